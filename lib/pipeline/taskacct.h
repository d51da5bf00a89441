/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Task accounting (taskacct.c), beside the counters. It gives a session's
 * software counters from what the kernel accounted to each counted thread
 * rather than from per-task events: lib/bpf's sched slots for the threads
 * alive, and sums by target for those gone.
 */
#ifndef IPCPERF_TASKACCT_H
#define IPCPERF_TASKACCT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "ipcperf/ipcperf.h"

/* The counters that the kernel's own accounting of a task also gives. */
#define IPP_SW_COUNTERS                                                                \
	(IPCPERF_CNT_BIT(IPCPERF_CNT_TASK_CLOCK) | IPCPERF_CNT_BIT(IPCPERF_CNT_PAGE_FAULTS) | \
	 IPCPERF_CNT_BIT(IPCPERF_CNT_CONTEXT_SWITCHES) | IPCPERF_CNT_BIT(IPCPERF_CNT_CPU_MIGRATIONS))

struct ipp_bpf;
struct ipp_sched_slot;
struct ipp_task_acct;

/* The task accounting of target @root's threads and its descendants', summed. */
struct ipp_acct_sum {
	pid_t root;
	uint64_t runtime_ns, faults, switches, migrations;
};

/* The sums, by target, of the threads that are gone. */
struct ipp_acct_sums {
	struct ipp_acct_sum *v;
	size_t nr, cap;
};

/* Add @a to @root's sum. Returns 0 or -ENOMEM. */
int ipp_taskacct__add(struct ipp_acct_sums *p, pid_t root, const struct ipp_task_acct *a);
/* Store the sum of @root (of every target when 0) in @out. Returns how many targets were summed. */
size_t ipp_taskacct__sum(const struct ipp_acct_sums *p, pid_t root, struct ipp_acct_sum *out);
/* Add to @sum what the kernel accounted to counted thread @tid (slot @t) since its base. */
void ipp_taskacct__live(struct ipp_task_acct *sum, uint32_t tid, const struct ipp_sched_slot *t);
/* Add to @sum what @bpf accounted to the live threads of target @root (all targets when 0). */
void ipp_taskacct__alive(const struct ipp_bpf *bpf, pid_t root, struct ipp_task_acct *sum);
/*
 * Fill @vals with the software counters of @mask, from the threads @gone
 * and those @alive. They are not multiplexed: both enabled and running are
 * the task-clock.
 */
void ipp_taskacct__counters(const struct ipp_acct_sum *gone, const struct ipp_task_acct *alive,
			    unsigned int mask, struct ipcperf_counter_value *vals);

#endif /* IPCPERF_TASKACCT_H */
