/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fd summary record (IPP_FDID_SUM): the calls of one syscall on one fd
 * of one process that the kernel added up itself (calls.bpf.c) in place of
 * a call record each, written when that fd's incarnation ends (close, dup2
 * or dup3 onto it, close_range, exec, the process's exit) or read out of
 * the map at the end. It is also the map's value (agg in common.bpf.h), one
 * per CPU. Both sides include it; the decoder is sum-rec.c.
 */
#ifndef IPCPERF_SUM_REC_H
#define IPCPERF_SUM_REC_H

#include "krec.h"

/*
 * Latency buckets kept per summary: a window of lib/hist.c's buckets
 * (the same boundaries: 32 exact, then 32 per power of two), from @base.
 * 512 of them are 16 powers of two; a call whose bucket falls outside the
 * window is not added up but written as a call record of its own.
 */
#define IPP_SUM_BUCKETS 512
/* The window starts this many powers of two below the first call's. */
#define IPP_SUM_BELOW 6

struct ipp_sum_rec {
	IPP_KREC_HDR(pad0);	/* what: IPP_FDID_SUM; pid: tgid; tid: the last caller */
	__s32 fd;
	__s32 nr;		/* syscall number (this architecture's) */
	__u64 ops;		/* calls added up: each had its sys_enter seen */
	__u64 bytes;		/* sum of the non-negative returns */
	__u64 eagain;		/* calls that failed with EAGAIN (the only errors added up) */
	__u64 time_ns;		/* sum of their durations */
	__u64 min_ns, max_ns;	/* of the durations */
	__u64 first_ns;		/* the first call's start */
	__u64 last_ns;		/* the last call's end */
	__u32 base;		/* the window's first bucket (a multiple of 32); as written, hist[0]'s */
	__u32 cpu;		/* whose per-CPU copy */
	__u32 hist[IPP_SUM_BUCKETS];	/* calls in bucket base + i */
};
/*
 * The fields before the buckets. A record is written with the buckets from
 * its least call's to its largest's only (size says how many, base which
 * is the first); the decoder puts them back in a window of IPP_SUM_BUCKETS.
 */
#define IPP_SUM_HEAD_SIZE 96
#define IPP_SUM_REC_SIZE (IPP_SUM_HEAD_SIZE + 4 * IPP_SUM_BUCKETS)
_Static_assert(sizeof(struct ipp_sum_rec) == IPP_SUM_REC_SIZE, "the summary record's size");

/* Syscalls added up at most (agg_nrs: what a close flushes). */
#define IPP_SUM_MAX_NRS 16

/* The agg map's key. */
struct ipp_sum_key {
	__u32 tgid;
	__s32 fd;
	__s32 nr;
	__u32 pad;	/* 0 */
};

/*
 * The fast sums (agg_fast in common.bpf.h): a per-CPU array of slots, in
 * pairs, that a key takes before the agg map: an array's slot is a few
 * instructions away, where the hash map costs a hash, a bucket walk and the
 * pages between (~80 ns a call here). A key goes to the slot pair its tag
 * hashes to; when both are another key's, to agg. A slot's tag is its key
 * packed in 64 bits (IPP_SUM_TAG): tgid < 2^22 (PID_MAX_LIMIT), nr < 1024
 * (IPP_FDID_MAX_NR); 0 is a free slot.
 */
#define IPP_SUM_FAST 128	/* at most: the loader takes fewer on many CPUs (IPP_SUM_FAST_BYTES) */
/* What the fast slots may take on all CPUs together: 128 of them up to 30 CPUs, 2 on 1000. */
#define IPP_SUM_FAST_BYTES (8u << 20)
/*
 * The agg map's keys at most (a key's sums take a record on every CPU, and
 * the kernel's element: IPP_SUM_KEY_BYTES), and what they may take on all
 * CPUs together when all are in use: 7598 keys on 1 CPU, 3855 on 2, 122
 * on 64, 30 on 256, 7 on 1024. A call whose key finds no room is written as
 * a call record (exact, only dearer). doc/scaling.md.
 */
#define IPP_SUM_AGG_KEYS 16384u
#define IPP_SUM_AGG_BYTES (16u << 20)
#define IPP_SUM_KEY_BYTES 64u	/* the hash element and its key, besides the values */
#define IPP_SUM_TAG(tgid, fd, nr) \
	(((__u64)(tgid) << 42) | ((__u64)((__u32)(nr) & 1023) << 32) | (__u64)(__u32)(fd))
#define IPP_SUM_TAG_TGID(t) ((__u32)((t) >> 42))
#define IPP_SUM_TAG_NR(t) ((__s32)(((t) >> 32) & 1023))
#define IPP_SUM_TAG_FD(t) ((__s32)(__u32)(t))

/*
 * A fast slot on one CPU: the sums of the key that @tag names. A slot with
 * another key's tag is stale and not counted.
 */
struct ipp_sum_slot {
	__u64 tag;
	struct ipp_sum_rec v;
};

/* What the want map says of each syscall, by number; 0 means it is not paired. */
enum ipp_sum_want {
	WANT_CALL = 1,		/* a call record */
	WANT_SUM,		/* added up into agg, when its enter was seen and it did not fail but EAGAIN */
	WANT_SUM_NOFDS,		/* the same, unless it received fds (recvmsg: their records wait for its exit) */
	WANT_FLUSH_FD1,		/* a call record, after the sums of the fd of argument 1 (close) */
	WANT_FLUSH_FD2,		/* ... of argument 2 when it returned >= 0 and is not argument 1 (dup2, dup3) */
	WANT_FLUSH_RANGE,	/* ... of the fds of arguments 1 to 2 when it returned 0 (close_range) */
	WANT_FLUSH_ONLY_RANGE,	/* the same, and no call record: not a call the session traces */
	WANT_SUM_ANY,		/* added up as WANT_SUM, under fd -1: a call of -s that uses no fd of the table's */
};

#ifndef __bpf__
/* ---------------------------------------------------------------- userspace: lib/bpf/sum-rec.c */
#include <stddef.h>

/*
 * Check the RAW data of one bpf-output sample that holds a summary record
 * and copy it into @out, its buckets into a whole window (base a multiple
 * of 32, the others 0). Pure. Returns 0, -ENOTSUP for another version, or
 * -EPROTO when it is not a summary, is too short, or its window or counts
 * do not hold together (buckets past lib/hist.c's last or past a window
 * from the multiple of 32 below the first, a bucket sum other than ops,
 * min > max).
 */
int ipp_sum_rec__parse(const void *raw, size_t size, struct ipp_sum_rec *out);
/*
 * Return the number of fast slots on @ncpus CPUs: as many as
 * IPP_SUM_FAST_BYTES holds on all of them (each CPU has its copy of each),
 * as a power of two from 2 to IPP_SUM_FAST. Pure.
 */
unsigned int ipp_sum_rec__fast_slots(long ncpus);
/*
 * Return the number of the agg map's keys on @ncpus CPUs: as many as
 * IPP_SUM_AGG_BYTES holds, from 1 to IPP_SUM_AGG_KEYS. Pure.
 */
unsigned int ipp_sum_rec__agg_keys(long ncpus);

#endif

#endif /* IPCPERF_SUM_REC_H */
