/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The live source's plan (plan.c) says which help from the kernel's BPF
 * programs a session loads (fd identity, calls paired in the kernel,
 * switches and wakeups counted there), and so which events it opens. It is
 * chosen once from the options and the events; then the code that opens,
 * reads and stops the session reads it (rings.h).
 */
#ifndef IPCPERF_PLAN_H
#define IPCPERF_PLAN_H

#include <stdbool.h>
#include "source/formats.h"
#include "pipeline/taskacct.h"

/* What the plan is chosen from. */
struct ipp_plan_in {
	const struct ipp_evset *es;
	bool no_bpf;
	bool want_samples;	/* the syscalls' samples: asked for, or a capture or a tap reads them */
	bool system_wide;
	bool processes;		/* the targets are processes (pids or a command), not tids */
	bool sw_counters;	/* software counters wanted (ipcperf_session_opts.counter_mask) */
	bool sums_ok;		/* the calls' one consumer takes them added up (ipp_pipeline__takes_sums()) */
};

struct ipp_plan {
	/* What was chosen (ipp_plan__choose()). */
	bool fdid;		/* load the kernel's fd identity (lib/bpf) */
	bool pair;		/* ... and have it pair the syscalls */
	bool pair_switches;	/* ... and the switches (the calls carry their time off CPU) */
	bool count_sched;	/* ... and count the threads' switches and wakeups */
	bool sums;		/* ... and add the read/write family's calls up per fd (sum-rec.h) */
	bool task_recs;		/* ... and write the targets' forks, execs and exits */
	/*
	 * Open sched_waking. The request paths need it to attribute the
	 * targets' scheduling: a hand-off belongs to the waker, and
	 * sched_wakeup may run on the wakee's CPU.
	 */
	bool wakings;
	/*
	 * What the session had once the programs loaded (ipp_plan__had()).
	 * paired: the kernel pairs the syscalls and writes call records into
	 * the sample rings in place of their sys_enter/sys_exit samples, which
	 * are then not opened. paired_switches: it does the same for the switch
	 * records. sched_counted: it counts the threads' switches and wakeups
	 * (IPCPERF_EV_SCHED_TOTALS). task_acct: the software counters come from
	 * what the kernel accounts to each counted thread, not from per-task
	 * events.
	 */
	bool paired;
	bool paired_switches;
	bool sched_counted;
	bool task_acct;
	bool summed;		/* the calls added up in the kernel: its sums read at the stop */
	/*
	 * The forks, execs and exits come from the kernel's task records, so
	 * their sched_process_* tracepoints are not opened: closing the perf
	 * event of a tracepoint waits for an RCU grace period, about 35-70 ms
	 * each here. A dummy event (IPP_EV_RING) then carries the sample ring
	 * of each CPU.
	 */
	bool paired_tasks;
	bool pair_failed;	/* pairing was tried and could not be had: not chosen again */
};

/* Whether the session is to have the kernel's fd identity at all. */
bool ipp_plan__wants_fdid(const struct ipp_plan_in *in);
/* Choose what to load and store it in @p; the fields saying what was had are left as they are. */
void ipp_plan__choose(struct ipp_plan *p, const struct ipp_plan_in *in);
/*
 * Record in @p what loaded: whether the calls (and the switches, as chosen)
 * are paired, and whether the scheduling is counted.
 */
void ipp_plan__had(struct ipp_plan *p, const struct ipp_plan_in *in, bool sched_counted);
/* Record in @p that none of the kernel's help is available (any more). */
void ipp_plan__none(struct ipp_plan *p);
/* Whether event @ev is opened: not when the kernel's records or counts stand in for it. */
bool ipp_plan__opens(const struct ipp_plan *p, const struct ipp_event *ev);
/*
 * Return a sentence saying why the kernel's fd identity could not be loaded,
 * for the error -@err.
 */
const char *ipp_plan__bpf_why(int err);

#endif /* IPCPERF_PLAN_H */
