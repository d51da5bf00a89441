/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The events a live session opens: its tracepoints, with their formats read
 * from tracefs (and learnt by the decoder), and its dummy events; how
 * each is opened (perf_event_attr) and filtered in the kernel. Nothing here
 * opens an event: rings.c does.
 */
#ifndef IPCPERF_FORMATS_H
#define IPCPERF_FORMATS_H

#include <linux/perf_event.h>
#include "internal.h"
#include "pipeline/decode.h"

/* What an event of the session is for. */
enum ipp_ev_role {
	IPP_EV_TRACEPOINT,	/* a tracepoint: its samples carry the data */
	/*
	 * The side-band records (COMM, FORK, EXIT) that say who the targets
	 * are: a software dummy event with rings of its own, so that a flood of
	 * samples never crowds them out.
	 */
	IPP_EV_SIDEBAND,
	/* The SWITCH records of IPCPERF_EV_BLOCKED: a dummy event in the sample rings. */
	IPP_EV_SWITCH,
	/*
	 * A dummy event that only owns the sample ring of each CPU, for the
	 * kernel's records, when no tracepoint of the session is opened
	 * (ipp_plan.paired_tasks).
	 */
	IPP_EV_RING,
};

struct ipp_event {
	enum ipp_ev_role role;
	const char *system;	/* "syscalls", "raw_syscalls", "sched", "software" */
	char name[48];
	int id;			/* tracepoint id; -1 for the dummy events */
	bool opened;
	char *format;		/* tracefs format text (tracepoints) */
	size_t format_len;
	struct perf_event_attr attr;	/* as opened */
	uint64_t *ids;		/* kernel ids of its instances (one per CPU x thread) */
	size_t nr_ids;
};

struct ipp_evset {
	struct ipp_event *v;
	size_t n;
	unsigned int events;	/* enum ipcperf_event_set */
	char *raw_filter;	/* IPCPERF_EV_RAW_FILTER: "id == 0 || id == 1 || ..." */
	unsigned int skipped;	/* tracepoints this kernel lacks */
};

/*
 * Fill @es with the events of @events (enum ipcperf_event_set), reading
 * their formats from tracefs (mounted when needed and allowed) and giving
 * them to @dec. Returns 0, or after explaining the error through the print
 * function: -ENOENT when tracefs or a required tracepoint is missing,
 * -EACCES, -ENOMEM, or the decoder's error.
 */
int ipp_evset__load(struct ipp_evset *es, unsigned int events, struct ipp_decoder *dec);
void ipp_evset__fini(struct ipp_evset *es);

/* How a live session opens its events. */
struct ipp_open_mode {
	unsigned int ring_pages;	/* of the sample rings */
	bool cpu_wide;			/* on every CPU for every task (CPU scope, -a) */
	bool system_wide;
	bool command;			/* the targets are a command to start (enable_on_exec) */
	bool include_self;
	pid_t self;
	/*
	 * sched_switch and sched_wakeup keep the records of the idle task and
	 * of the tracing process, which the request paths need to split time.
	 */
	bool sched_idle;
};

/*
 * Return the pages of each side-band ring when the sample rings have
 * @ring_pages; its records are few.
 */
unsigned int ipp_sideband_pages(unsigned int ring_pages);
/* Fill in the attributes that @ev is opened with in @mode. */
void ipp_event_attr(const struct ipp_event *ev, const struct ipp_open_mode *mode,
		    struct perf_event_attr *a);
/*
 * Store in *@out the in-kernel filter of @ev, or NULL when it needs none;
 * the caller frees it. The filter keeps the syscall numbers of
 * IPCPERF_EV_RAW_FILTER on raw_syscalls, and on CPU-wide events drops the
 * records that can never be a target's: the idle task's and, unless
 * include_self, those of the library's own process. Returns 0 or -ENOMEM.
 */
int ipp_event_filter(const struct ipp_evset *es, const struct ipp_event *ev,
		     const struct ipp_open_mode *mode, char **out);

/* Explain why permission was denied for @what, and how to fix it. */
void ipp_explain_perm(const char *what);
/*
 * Say that tracefs denied reading the format of @system:@name (EACCES on the
 * file, not on perf_event_open): its path, tracefs's mode, and the fixes.
 */
void ipp_explain_tracefs_perm(const char *system, const char *name);

#endif /* IPCPERF_FORMATS_H */
