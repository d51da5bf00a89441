/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The events a live session opens, and their tracefs formats (formats.h). */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <tracefs.h>
#include <unistd.h>
#include "source/formats.h"
#include "capture/perfdata.h"

void ipp_explain_perm(const char *what)
{
	int paranoid = 0;

	if (ipp_read_int("/proc/sys/kernel/perf_event_paranoid", &paranoid) == 0)
		ipp_info("%s: permission denied: kernel.perf_event_paranoid is %d; tracepoints "
			 "need root or CAP_PERFMON (with read access to tracefs), or "
			 "'sysctl kernel.perf_event_paranoid=-1'\n", what, paranoid);
	else
		ipp_info("%s: permission denied: run as root or with CAP_PERFMON\n", what);
}

void ipp_explain_tracefs_perm(const char *system, const char *name)
{
	const char *dir = tracefs_tracing_dir();
	char exe[256] = "PROGRAM", mode[64] = "";
	struct stat st;
	ssize_t n;

	if (!dir)
		dir = "/sys/kernel/tracing";
	if (stat(dir, &st) == 0)
		snprintf(mode, sizeof(mode), ", mode %04o, owner uid %u gid %u",
			 (unsigned int)(st.st_mode & 07777), (unsigned int)st.st_uid,
			 (unsigned int)st.st_gid);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0)
		exe[n] = '\0';
	/*
	 * This is not perf_event_open's EACCES: CAP_PERFMON lifts that one but
	 * does not give access to tracefs.
	 */
	ipp_info("reading tracepoint formats: permission denied on %s/events/%s/%s/format: "
		 "tracefs (%s%s) is not readable by uid %u, with or without CAP_PERFMON; "
		 "fix: let a group read it (sudo mount -o remount,gid=GROUP,mode=0750 %s, with "
		 "the user in GROUP), or run as root, or give the program CAP_DAC_READ_SEARCH "
		 "(sudo setcap cap_perfmon,cap_bpf,cap_dac_read_search+ep %s)\n", dir, system,
		 name, dir, mode, (unsigned int)geteuid(), dir, exe);
}

unsigned int ipp_sideband_pages(unsigned int ring_pages)
{
	return ring_pages >= 8 ? ring_pages / 8 : 1;
}

void ipp_event_attr(const struct ipp_event *ev, const struct ipp_open_mode *mode,
		    struct perf_event_attr *a)
{
	unsigned int pages = ev->role == IPP_EV_SIDEBAND ? ipp_sideband_pages(mode->ring_pages) :
				   mode->ring_pages;

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	if (ev->role == IPP_EV_TRACEPOINT) {
		a->type = PERF_TYPE_TRACEPOINT;
		a->config = (uint64_t)ev->id;
		a->sample_period = 1;
	} else {
		a->type = PERF_TYPE_SOFTWARE;
		a->config = PERF_COUNT_SW_DUMMY;
	}
	/*
	 * Every record carries the same sample_id trailer, so there is one
	 * layout to parse (perfdata.h).
	 */
	a->sample_type = IPP_PD_OWN_SAMPLE_TYPE;
	a->disabled = 1;
	/*
	 * CPU-wide events see every task, so there is nothing to inherit and no
	 * command's exec to wait for.
	 */
	a->inherit = !mode->cpu_wide;
	a->enable_on_exec = mode->command && !mode->cpu_wide;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	/*
	 * Wake the reader at half full: large batches are cheap to read, and
	 * the reader also reads every few tens of ms anyway. Never per record
	 * (10x the tracer's CPU).
	 */
	a->watermark = 1;
	a->wakeup_watermark = pages * (unsigned int)sysconf(_SC_PAGESIZE) / 2;
	/* Switch-in/out records give the time spent off CPU inside a syscall. */
	a->context_switch = ev->role == IPP_EV_SWITCH;
	/*
	 * Side-band COMM/FORK/EXIT records, once, so that captures name their
	 * threads and a CPU-scope session can follow its targets.
	 */
	a->comm = a->task = a->comm_exec = ev->role == IPP_EV_SIDEBAND;
}

/*
 * Whether @ev is sched_switch or sched_wakeup. The record of a thread
 * switched in from idle or from the tracer, or woken in an interrupt,
 * belongs to the idle task or to the tracer.
 */
static bool is_sched_tp(const struct ipp_event *ev)
{
	return !strcmp(ev->system, "sched") &&
	       (!strcmp(ev->name, "sched_switch") || !strcmp(ev->name, "sched_wakeup"));
}

int ipp_event_filter(const struct ipp_evset *es, const struct ipp_event *ev,
		     const struct ipp_open_mode *mode, char **out)
{
	const char *ids = strcmp(ev->system, "raw_syscalls") ? NULL : es->raw_filter;
	char pids[64] = "";
	int n;

	*out = NULL;
	if (ev->role != IPP_EV_TRACEPOINT)
		return 0;
	if (mode->sched_idle && is_sched_tp(ev))
		;	/* every switch: from idle, from us (we run at nice -10, ahead of the targets) */
	else if (mode->cpu_wide && !mode->system_wide)
		snprintf(pids, sizeof(pids), "common_pid != 0 && common_pid != %d", (int)mode->self);
	else if (mode->system_wide && !mode->include_self)
		snprintf(pids, sizeof(pids), "common_pid != %d", (int)mode->self);
	if (!ids && !pids[0])
		return 0;
	if (!pids[0])
		n = asprintf(out, "%s", ids);
	else if (!ids)
		n = asprintf(out, "%s", pids);
	else
		n = asprintf(out, "(%s) && %s", ids, pids);
	if (n < 0) {
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}
