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
#include "formats.h"
#include "perfdata.h"

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
	/* Not perf_event_open's EACCES: CAP_PERFMON, which lifts that, does not give tracefs. */
	ipp_info("reading tracepoint formats: permission denied on %s/events/%s/%s/format: "
		 "tracefs (%s%s) is not readable by uid %u, with or without CAP_PERFMON; "
		 "fix: let a group read it (sudo mount -o remount,gid=GROUP,mode=0750 %s, with "
		 "the user in GROUP), or run as root, or give the program CAP_DAC_READ_SEARCH "
		 "(sudo setcap cap_perfmon,cap_bpf,cap_dac_read_search+ep %s)\n", dir, system,
		 name, dir, mode, (unsigned int)geteuid(), dir, exe);
}

char *ipp_tracefs_events_file(const char *name, size_t *len)
{
	char path[64];
	int size = 0;
	char *buf;

	snprintf(path, sizeof(path), "events/%s", name);
	buf = tracefs_instance_file_read(NULL, path, &size);
	if (buf && size <= 0) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		*len = (size_t)size;
	return buf;
}

/* @return 0 added; 1 skipped (missing, not @required); -errno. */
static int add_tp(struct ipp_evset *es, struct ipp_decoder *dec, const char *system,
		  const char *name, bool required)
{
	size_t size = 0;
	char *text = tracefs_event_file_read(NULL, system, name, "format", (int *)&size);
	struct ipp_event *ev;
	int id;

	if (!text) {
		int e = errno;

		if (e == EACCES || e == EPERM) {
			ipp_explain_tracefs_perm(system, name);
			return -EACCES;
		}
		if (required) {
			ipp_info("tracepoint %s:%s is not available in this kernel\n", system, name);
			return -ENOENT;
		}
		ipp_warn("tracepoint %s:%s is not available in this kernel; skipped\n",
			 system, name);
		es->skipped++;
		return 1;
	}
	id = ipp_decoder__add_format(dec, system, name, text, size);
	if (id < 0) {
		free(text);
		ipp_info("cannot parse the format of %s:%s (%s)\n", system, name, strerror(-id));
		return id;
	}
	ev = &es->v[es->n++];
	ev->role = IPP_EV_TRACEPOINT;
	ev->format = text;
	ev->format_len = size;
	ev->system = system;
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	ev->id = id;
	return 0;
}

/* One of the dummy events (after the tracepoints). */
static void add_dummy(struct ipp_evset *es, enum ipp_ev_role role)
{
	struct ipp_event *ev = &es->v[es->n++];

	ev->role = role;
	ev->system = "software";
	snprintf(ev->name, sizeof(ev->name), "dummy");
	ev->id = -1;
}

/* The kernel filter that keeps the calls of the session's syscall sets. */
static int build_raw_filter(struct ipp_evset *es)
{
	size_t len = 0, cap = 64 * ipp_nr_syscalls;
	char *f = malloc(cap);

	if (!f)
		return -ENOMEM;
	f[0] = '\0';
	for (size_t i = 0; i < ipp_nr_syscalls; i++) {
		const struct ipp_scdesc *sc = &ipp_syscalls[i];

		if (!(sc->set & es->events) || sc->nr < 0)
			continue;
		len += (size_t)snprintf(f + len, cap - len, "%sid == %d", len ? " || " : "", sc->nr);
	}
	es->raw_filter = f;
	return 0;
}

/* Each call's sys_enter_X and sys_exit_X, or neither. */
static int add_syscall_tps(struct ipp_evset *es, struct ipp_decoder *dec)
{
	for (size_t i = 0; i < ipp_nr_syscalls; i++) {
		const struct ipp_scdesc *sc = &ipp_syscalls[i];
		char enter[48], exit_[48];
		size_t before = es->n;
		int err;

		if (!(sc->set & es->events) || sc->nr < 0)
			continue;
		snprintf(enter, sizeof(enter), "sys_enter_%s", ipp_scdesc_tp(sc));
		snprintf(exit_, sizeof(exit_), "sys_exit_%s", ipp_scdesc_tp(sc));
		if ((err = add_tp(es, dec, "syscalls", enter, false)) < 0)
			return err;
		if (err == 0 && (err = add_tp(es, dec, "syscalls", exit_, false)) < 0)
			return err;
		/* An enter without its exit is of no use: drop both. */
		if (err > 0)
			es->n = before;
	}
	return 0;
}

static int add_sched_tps(struct ipp_evset *es, struct ipp_decoder *dec)
{
	/* sched_waking: opened for the request paths only (plan.h), where it is there */
	static const char *const sched[] = { "sched_switch", "sched_wakeup", "sched_waking" };
	static const char *const task[] = {
		"sched_process_fork", "sched_process_exec", "sched_process_exit",
	};
	int err;

	for (size_t i = 0; (es->events & IPCPERF_EV_SCHED) && i < IPP_ARRAY_SIZE(sched); i++)
		if ((err = add_tp(es, dec, "sched", sched[i], false)) < 0)
			return err;
	for (size_t i = 0; (es->events & IPCPERF_EV_TASK) && i < IPP_ARRAY_SIZE(task); i++)
		if ((err = add_tp(es, dec, "sched", task[i], false)) < 0)
			return err;
	return 0;
}

int ipp_evset__load(struct ipp_evset *es, unsigned int events, struct ipp_decoder *dec)
{
	int err;

	memset(es, 0, sizeof(*es));
	es->events = events;
	if (!tracefs_tracing_dir()) {
		if (geteuid() != 0)
			ipp_info("tracefs is not mounted and only root can mount it: "
				 "mount -t tracefs nodev /sys/kernel/tracing\n");
		else
			ipp_info("tracefs is not mounted and could not be mounted: "
				 "mount -t tracefs nodev /sys/kernel/tracing\n");
		return -ENOENT;
	}
	/* Each syscall's enter and exit, 6 sched tracepoints, 2 raw_syscalls, 3 dummies. */
	es->v = calloc(2 * ipp_nr_syscalls + 11, sizeof(*es->v));
	if (!es->v)
		return -ENOMEM;
	if (!(events & IPCPERF_EV_ALL_SYSCALLS) && (events & IPCPERF_EV_RAW_FILTER) &&
	    (events & (IPCPERF_EV_IO | IPCPERF_EV_FDS)) && (err = build_raw_filter(es)) < 0)
		return err;
	if (events & IPCPERF_EV_ALL_SYSCALLS || es->raw_filter) {
		if ((err = add_tp(es, dec, "raw_syscalls", "sys_enter", true)) < 0 ||
		    (err = add_tp(es, dec, "raw_syscalls", "sys_exit", true)) < 0)
			return err;
	} else if ((err = add_syscall_tps(es, dec)) < 0) {
		return err;
	}
	if ((err = add_sched_tps(es, dec)) < 0)
		return err;
	if (!es->n) {
		ipp_info("none of the tracepoints ipcperf uses exist in this kernel "
			 "(CONFIG_FTRACE_SYSCALLS?)\n");
		return -ENOENT;
	}
	add_dummy(es, IPP_EV_SIDEBAND);
	if (events & IPCPERF_EV_BLOCKED)
		add_dummy(es, IPP_EV_SWITCH);
	/* opened only where the kernel's task records replace the task tracepoints */
	if (events & IPCPERF_EV_TASK)
		add_dummy(es, IPP_EV_RING);
	return 0;
}

void ipp_evset__fini(struct ipp_evset *es)
{
	for (size_t i = 0; es->v && i < es->n; i++) {
		free(es->v[i].format);
		free(es->v[i].ids);
	}
	free(es->v);
	free(es->raw_filter);
	memset(es, 0, sizeof(*es));
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
	/* The same sample_id trailer on every record: one layout to parse (perfdata.h). */
	a->sample_type = IPP_PD_OWN_SAMPLE_TYPE;
	a->disabled = 1;
	/* CPU-wide events see every task: nothing to inherit, no exec of ours to wait for. */
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
 * sched_switch or sched_wakeup: a thread switched in from idle or from the
 * tracer, or woken in an interrupt, is idle's or the tracer's record.
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
