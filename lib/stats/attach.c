/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The stats attached to a session (account.h): its events fed to the
 * stats' handlers, and the fds of its targets read at attach, or once the
 * session's events are on, or taken back from a capture's identity log.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include "stats/account.h"
#include "fd/procres.h"
#include "fd/resolve.h"
#include "session/session.h"

/* The session's events are on: the fds its running targets have now. */
static void scan_started(void *ctx)
{
	struct ipcperf_stats *st = ctx;

	if (!st->scan_on_start)
		return;
	st->scan_on_start = false;
	ipp_fdtab__attach_fds(st->fdt, st->scan_pids, st->nr_scan_pids);
}

/*
 * The session's handler h_NAME of events of type TYPE: the event handed to
 * ipcperf_stats__add_NAME(). A handler takes its context as a void *, and
 * ipcperf_stats__add_NAME() the stats: hence a function each.
 */
#define STATS_HANDLER(name, type)					\
	static void h_##name(void *ctx, const struct type *ev)		\
	{								\
		ipcperf_stats__add_##name(ctx, ev);			\
	}

STATS_HANDLER(syscall, ipcperf_syscall)
STATS_HANDLER(switch, ipcperf_switch)
STATS_HANDLER(wakeup, ipcperf_wakeup)
STATS_HANDLER(fd_open, ipcperf_fd_open)
STATS_HANDLER(sched_totals, ipcperf_sched_totals)
STATS_HANDLER(task, ipcperf_task)
STATS_HANDLER(signal, ipcperf_signal)
STATS_HANDLER(call_entered, ipcperf_syscall)

/* A target's name, from /proc at attach (or the capture's log). */
void ipp_stats__proc_resolver(struct ipcperf_stats *st, struct ipp_procres *shared,
			      struct ipp_identlog *log)
{
	struct ipp_procres *pr = shared ? NULL : ipp_procres__new();
	struct ipp_resolver *res = ipp_procres__resolver(shared ? shared : pr);

	ipp_procres__put(pr);
	if (res && log)
		res = ipp_resolve_log__record(log, res);
	ipp_fdtab__set_resolver(st->fdt, res);
}

static void set_comm(void *ctx, pid_t pid, const char *name)
{
	struct proc *p = ipp_stats__proc(ctx, pid, true);

	if (p)
		snprintf(p->comm, sizeof(p->comm), "%.15s", name);
}

int ipcperf_stats__attach(struct ipcperf_stats *st, struct ipcperf_session *s)
{
	IPCPERF_OPTS(ipcperf_handlers, h, .ctx = st, .syscall = h_syscall,
		     .sched_switch = h_switch, .wakeup = h_wakeup, .task = h_task,
		     .fd_open = h_fd_open, .sched_totals = h_sched_totals, .signal = h_signal,
		     .call_entered = h_call_entered);
	struct ipp_identlog *log;
	struct ipp_attach at;
	bool replay;
	int err;

	if (!st || !s)
		return -EINVAL;
	err = ipp_session__attach(s, &h, scan_started, &at);
	if (err)
		return err;
	ipp_session__take_sums(s, ipp_stats__add_sum, ipp_stats__takes_sums, st);
	if (at.kernel_fdid)
		ipp_fdtab__expect_kernel(st->fdt);
	st->cmd_pid = at.cmd_pid;
	log = st->no_proc ? NULL : at.log;
	replay = !st->no_proc && at.log_replay;
	if (log && replay) {
		ipp_fdtab__set_resolver(st->fdt, ipp_resolve_log__replay(log));
		ipp_fdtab__attach_replay(st->fdt, set_comm, st);
		return 0;
	}
	/* A capture without a log: its processes are not this machine's now. */
	if (at.replay)
		st->no_proc = true;
	if (st->no_proc)
		ipp_fdtab__set_resolver(st->fdt, NULL);
	else
		ipp_stats__proc_resolver(st, at.procres, log);
	/*
	 * fds that exist before the capture, read while they are open. A
	 * command is held before its exec until the events are on: its fds now
	 * are those it starts with. Processes that run (-p, -t) may change
	 * theirs until the events are on, which can take a second (the BPF
	 * program loads): their fds are read once the events are on, which see
	 * every change since.
	 */
	st->scan_on_start = !at.cmd_pid;
	st->scan_pids = at.pids;
	st->nr_scan_pids = at.nr_pids;
	ipp_fdtab__attach(st->fdt, at.pids, at.nr_pids, set_comm, st, !st->scan_on_start);
	return 0;
}
