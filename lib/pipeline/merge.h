/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The timestamp merge of the per-CPU rings (merge.c). Orders records from
 * several rings by timestamp. Records are copied in; ipp_merge__pop()
 * hands out the oldest one not newer than a horizon. Equal timestamps come
 * out in push order. Pure: no I/O.
 */
#ifndef IPCPERF_MERGE_H
#define IPCPERF_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The type of a merge record is a perf record's type (PERF_RECORD_*) or one
 * of these, above the kernel's. These are the records of the BPF programs
 * (lib/bpf), each kind with its own type, given once when it is pushed.
 */
enum ipp_mrec_type {
	IPP_MREC_KFD = 0x10001u,	/* an fd identity record (struct ipp_fdid_rec) */
	IPP_MREC_KCALL,			/* a call paired in the kernel (struct ipp_call_rec) */
	IPP_MREC_KSCHED,		/* a thread's counted scheduling (struct ipp_sched_rec) */
	IPP_MREC_KSUM,			/* one fd's calls added up in the kernel (struct ipp_sum_rec) */
	IPP_MREC_KTASK,			/* a target's fork, exec or exit (struct ipp_task_rec) */
	IPP_MREC_KARGS,			/* a call's user memory (struct ipp_args_rec) */
	IPP_MREC_KSIG,			/* a signal delivered (struct ipp_sig_rec) */
	IPP_MREC_SELF_SCHED,		/* a switch or wakeup sample of ours: for the sched taker only */
};

struct ipp_mrec {
	uint64_t time;
	uint64_t seq;		/* push order, breaks ties */
	uint32_t size;		/* bytes in data[] */
	uint32_t type;		/* PERF_RECORD_* or enum ipp_mrec_type */
	pid_t pid, tid;
	int cpu;
	uint32_t misc;		/* perf_event_header.misc */
	bool pooled;		/* a block of the merge's free list, not a malloc() of its own */
	unsigned char data[];	/* RAW bytes of a sample; body of other records */
};

/* A record to push: the fields of struct ipp_mrec the caller gives, and its bytes. */
struct ipp_mrec_in {
	uint64_t time;
	uint32_t type;		/* PERF_RECORD_* or enum ipp_mrec_type */
	uint32_t misc;
	pid_t pid, tid;
	int cpu;
	const void *data;
	uint32_t size;
};

struct ipp_merge;
struct ipp_merge *ipp_merge__new(void);
void ipp_merge__delete(struct ipp_merge *m);
/* Copy record @in into the merge. Returns 0 or -ENOMEM. */
int ipp_merge__push(struct ipp_merge *m, const struct ipp_mrec_in *in);
/*
 * Return the oldest record with time <= @horizon, or NULL. The record
 * belongs to the merge and stays valid until the next push or pop.
 */
const struct ipp_mrec *ipp_merge__pop(struct ipp_merge *m, uint64_t horizon);
size_t ipp_merge__len(const struct ipp_merge *m);

#endif /* IPCPERF_MERGE_H */
