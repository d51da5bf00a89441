/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Task accounting (taskacct.h): the software counters taken from the kernel's accounting. */
#include "config.h"
#include <errno.h>
#include <string.h>
#include "internal.h"
#include "bpf/fdid-bpf.h"
#include "bpf/sched-rec.h"
#include "fd/proctask.h"
#include "pipeline/taskacct.h"

int ipp_taskacct__add(struct ipp_acct_sums *p, pid_t root, const struct ipp_task_acct *a)
{
	struct ipp_acct_sum *s = NULL;

	for (size_t i = 0; i < p->nr && !s; i++)
		if (p->v[i].root == root)
			s = &p->v[i];
	if (!s) {
		if (ipp_grow((void **)&p->v, &p->cap, p->nr + 1, sizeof(*p->v)) < 0)
			return -ENOMEM;
		s = &p->v[p->nr++];
		*s = (struct ipp_acct_sum){ .root = root };
	}
	s->runtime_ns += a->runtime_ns;
	s->faults += a->faults;
	s->switches += a->switches;
	s->migrations += a->migrations;
	return 0;
}

size_t ipp_taskacct__sum(const struct ipp_acct_sums *p, pid_t root, struct ipp_acct_sum *out)
{
	size_t n = 0;

	*out = (struct ipp_acct_sum){ .root = root };
	for (size_t i = 0; i < p->nr; i++) {
		if (root && p->v[i].root != root)
			continue;
		out->runtime_ns += p->v[i].runtime_ns;
		out->faults += p->v[i].faults;
		out->switches += p->v[i].switches;
		out->migrations += p->v[i].migrations;
		n++;
	}
	return n;
}

void ipp_taskacct__live(struct ipp_task_acct *sum, uint32_t tid, const struct ipp_sched_slot *t)
{
	struct ipp_task_acct now = t->ended ? t->end : t->last;

	/*
	 * For a thread alive, take the kernel's accounting now, but the
	 * switches as at the last one counted: the counting has stopped, and
	 * they stay the sum of the switch counts. For a thread that exited, or
	 * is past its exit call, take the values as the kernel left them then.
	 */
	if (!t->exited && !t->ended && ipp_task_acct_read(t->pid, (pid_t)tid, &now) == 0)
		now.switches = t->last.switches;
	sum->runtime_ns += now.runtime_ns - t->base.runtime_ns;
	sum->faults += now.faults - t->base.faults;
	sum->switches += now.switches - t->base.switches;
	sum->migrations += now.migrations - t->base.migrations;
}

struct live_root {
	pid_t root;
	struct ipp_task_acct *sum;
};

static int live_of_root(void *ctx, uint32_t tid, const struct ipp_sched_slot *t)
{
	struct live_root *l = ctx;

	if (!l->root || t->root == l->root)
		ipp_taskacct__live(l->sum, tid, t);
	return 0;
}

void ipp_taskacct__alive(const struct ipp_bpf *bpf, pid_t root, struct ipp_task_acct *sum)
{
	struct live_root l = { .root = root, .sum = sum };

	ipp_bpf__for_each_sched(bpf, live_of_root, &l);
}

void ipp_taskacct__counters(const struct ipp_acct_sum *gone, const struct ipp_task_acct *alive,
			    unsigned int mask, struct ipcperf_counter_value *vals)
{
	uint64_t v[IPCPERF_CNT__MAX] = { 0 };

	v[IPCPERF_CNT_TASK_CLOCK] = gone->runtime_ns + alive->runtime_ns;
	v[IPCPERF_CNT_PAGE_FAULTS] = gone->faults + alive->faults;
	v[IPCPERF_CNT_CONTEXT_SWITCHES] = gone->switches + alive->switches;
	v[IPCPERF_CNT_CPU_MIGRATIONS] = gone->migrations + alive->migrations;
	for (int i = 0; i < IPCPERF_CNT__MAX; i++) {
		if (!(IPP_SW_COUNTERS & IPCPERF_CNT_BIT(i)))
			continue;
		vals[i] = (struct ipcperf_counter_value){
			.value = v[i], .enabled_ns = v[IPCPERF_CNT_TASK_CLOCK],
			.running_ns = v[IPCPERF_CNT_TASK_CLOCK],
		};
		if (!(mask & IPCPERF_CNT_BIT(i)))
			vals[i] = (struct ipcperf_counter_value){ .status = IPCPERF_CNT_NOT_REQUESTED };
		else if (!v[IPCPERF_CNT_TASK_CLOCK])
			vals[i].status = IPCPERF_CNT_NOT_COUNTED;	/* as a counter never scheduled */
	}
}
