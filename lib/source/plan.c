/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The live source's plan (plan.h): what it loads, pairs, counts and opens. */
#include "config.h"
#include <errno.h>
#include <string.h>
#include "internal.h"
#include "source/plan.h"


static bool is_syscall_tp(const struct ipp_event *ev)
{
	return ev->role == IPP_EV_TRACEPOINT &&
	       (!strcmp(ev->system, "syscalls") || !strcmp(ev->system, "raw_syscalls"));
}

/* Whether @ev is sched_switch or sched_wakeup, which the kernel's per-thread counts replace. */
static bool is_sched_count_tp(const struct ipp_event *ev)
{
	return ev->role == IPP_EV_TRACEPOINT && !strcmp(ev->system, "sched") &&
	       (!strcmp(ev->name, "sched_switch") || !strcmp(ev->name, "sched_wakeup"));
}

/* Whether @ev is sched_process_fork, exec or exit, which the kernel's task records replace. */
static bool is_task_tp(const struct ipp_event *ev)
{
	return ev->role == IPP_EV_TRACEPOINT && !strcmp(ev->system, "sched") &&
	       !strncmp(ev->name, "sched_process_", 14);
}

/*
 * Whether the kernel is to pair the syscalls: a live session that reads
 * its records itself (a capture and a tap want the samples), asked for the
 * read/write and fd calls and not for the samples, with a sample event
 * left to carry the ring of each CPU.
 */
static bool want_pairing(const struct ipp_plan *p, const struct ipp_plan_in *in)
{
	if (p->pair_failed || in->want_samples)
		return false;
	for (size_t i = 0; i < in->es->n; i++)
		if (in->es->v[i].role == IPP_EV_TRACEPOINT && !is_syscall_tp(&in->es->v[i]))
			return true;
	return false;
}

/*
 * Whether the kernel is to count the threads' switches and wakeups too
 * (where it pairs the calls): asked for, and a task tracepoint left to
 * carry the ring of each CPU.
 */
static bool want_sched_counts(const struct ipp_plan_in *in)
{
	const struct ipp_evset *es = in->es;

	if (!(es->events & IPCPERF_EV_SCHED_TOTALS) || !(es->events & IPCPERF_EV_SCHED))
		return false;
	for (size_t i = 0; i < es->n; i++)
		if (es->v[i].role == IPP_EV_TRACEPOINT && !is_syscall_tp(&es->v[i]) &&
		    !is_sched_count_tp(&es->v[i]))
			return true;
	return false;
}

/*
 * Whether the kernel is to add the read/write family's calls up per fd
 * (where it pairs them): the session's only syscall consumer takes them
 * so (an ipcperf_stats with no per-call callback, no per-thread rows),
 * wants totals at the end only (IPCPERF_EV_SCHED_TOTALS: no view while it
 * runs, no intervals), and the targets are processes the kernel follows.
 */
static bool want_sums(const struct ipp_plan_in *in)
{
	return in->sums_ok && (in->es->events & IPCPERF_EV_SCHED_TOTALS) && !in->system_wide;
}

/*
 * Whether the session is to have the kernel's fd identity: it traces the
 * I/O or fd calls, on their own or among all syscalls (--syscalls classifies
 * them as well: the fd table is the same).
 */
bool ipp_plan__wants_fdid(const struct ipp_plan_in *in)
{
	return !in->no_bpf &&
	       (in->es->events & (IPCPERF_EV_IO | IPCPERF_EV_FDS | IPCPERF_EV_ALL_SYSCALLS));
}

void ipp_plan__choose(struct ipp_plan *p, const struct ipp_plan_in *in)
{
	p->fdid = ipp_plan__wants_fdid(in);
	p->pair = p->fdid && want_pairing(p, in);
	p->pair_switches = p->pair && (in->es->events & IPCPERF_EV_BLOCKED);
	p->count_sched = p->pair && want_sched_counts(in);
	p->sums = p->pair && want_sums(in);
	p->task_recs = p->pair && (in->es->events & IPCPERF_EV_TASK);
}

/*
 * The software counters come from the kernel's accounting of the counted
 * threads when it counts their switches, counters are wanted, and the
 * targets are processes (a command or pids: their counters are the
 * process and its descendants, as an inherited counter's), not tids or
 * the whole machine (counted per CPU, which costs no switch).
 */
void ipp_plan__had(struct ipp_plan *p, const struct ipp_plan_in *in, bool sched_counted)
{
	p->paired = true;
	p->paired_switches = p->pair_switches;
	p->sched_counted = sched_counted;
	p->task_acct = sched_counted && in->sw_counters && in->processes && !in->system_wide;
}

void ipp_plan__none(struct ipp_plan *p)
{
	p->paired = p->paired_switches = p->sched_counted = p->task_acct = p->summed = false;
	p->paired_tasks = false;
}

bool ipp_plan__opens(const struct ipp_plan *p, const struct ipp_event *ev)
{
	if (ev->role == IPP_EV_RING)
		return p->paired_tasks;
	if (ev->role == IPP_EV_TRACEPOINT && !strcmp(ev->name, "sched_waking"))
		return p->wakings;
	return !((p->paired && is_syscall_tp(ev)) ||
		 (p->paired_switches && ev->role == IPP_EV_SWITCH) ||
		 (p->sched_counted && is_sched_count_tp(ev)) ||
		 (p->paired_tasks && is_task_tp(ev)));
}

const char *ipp_plan__bpf_why(int err)
{
	switch (err) {
	case ENOTSUP:
		return "this libipcperf was built without BPF (configure --enable-bpf)";
	case EPERM:
	case EACCES:
		return "no CAP_BPF and CAP_PERFMON (run as root)";
	case ENOENT:
		return "the kernel has no BTF (/sys/kernel/btf/vmlinux)";
	case EINVAL:
		return "the kernel refused the program (ipcperf -v says why)";
	default:
		return strerror(err);
	}
}
