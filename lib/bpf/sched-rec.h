/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sched record of the BPF programs (sched_count and the others in
 * fdid.bpf.c), what the kernel accounts to a task (its counters' sources,
 * which lib/fd/proctask.c also reads from /proc), the sched_tot map's value,
 * and the record's decoder (sched-rec.c). Both sides include it.
 */
#ifndef IPCPERF_SCHED_REC_H
#define IPCPERF_SCHED_REC_H

#include "krec.h"

/*
 * What the kernel itself accounts to a thread (task_struct): the software
 * counters' sources. The record carries how much each grew while counted.
 */
struct ipp_task_acct {
	__u64 runtime_ns;	/* se.sum_exec_runtime: task-clock */
	__u64 faults;		/* min_flt + maj_flt: page-faults */
	__u64 switches;		/* nvcsw + nivcsw: context-switches */
	__u64 migrations;	/* se.nr_migrations: cpu-migrations */
};

/*
 * A thread's scheduling, counted in the kernel (IPP_FDID_SCHED): written at
 * the thread's last switch (into TASK_DEAD), in place of its sched_switch
 * and sched_wakeup samples, when the session asks for it; the threads
 * still alive at the end are read from the sched_tot map (struct
 * ipp_sched_slot). Fixed size.
 */
struct ipp_sched_rec {
	IPP_KREC_HDR(pad0);	/* what: IPP_FDID_SCHED; flags 0 */
	__u64 voluntary;	/* switched out blocked (sched_switch, not runnable) */
	__u64 involuntary;	/* switched out still runnable (preempted) */
	__u64 wakeups;		/* woken (sched_wakeup) */
	__u64 migrations;	/* switched out on another CPU than the time before */
	char comm[16];
	/* --- 64 */
	__s32 root;		/* the target it descends from (its counters' owner) */
	__u32 pad1;
	struct ipp_task_acct acct;	/* grown while counted (the last switch left out) */
};
#define IPP_SCHED_REC_SIZE 104
_Static_assert(sizeof(struct ipp_sched_rec) == IPP_SCHED_REC_SIZE, "the sched record's size");

/*
 * The sched_tot map's value, by tid (a hash map, so that userspace can
 * read the threads still alive at the end).
 */
struct ipp_sched_slot {
	__u64 voluntary;
	__u64 involuntary;
	__u64 wakeups;
	__u64 migrations;
	__s32 pid;		/* tgid */
	__s32 last_cpu;		/* where it was last switched out; -1 not yet */
	__u8 exited;		/* its record could not be written: read at the end */
	__u8 ended;		/* it called exit or exit_group: end is set */
	__u8 pad[2];
	__s32 root;		/* the target it descends from */
	char comm[16];
	struct ipp_task_acct base;	/* when it was first counted (0: born counted) */
	struct ipp_task_acct last;	/* at its last switch-out */
	struct ipp_task_acct end;	/* at its exit call */
};

#ifndef __bpf__
/* ---------------------------------------------------------------- userspace: lib/bpf/sched-rec.c */
#include <stddef.h>

/*
 * Check the RAW data of one bpf-output sample that holds a sched record
 * (IPP_FDID_SCHED) and copy it into @out, comm NUL-terminated. Pure.
 * Returns 0, -ENOTSUP for another version, or -EPROTO when it is not a
 * sched record or is too short.
 */
int ipp_sched_rec__parse(const void *raw, size_t size, struct ipp_sched_rec *out);

#endif

#endif /* IPCPERF_SCHED_REC_H */
