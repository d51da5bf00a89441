/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The event set of a live session (struct ipp_evset, formats.h): its
 * tracepoints, their formats read from tracefs and given to the decoder,
 * its dummy events and its raw filter.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include <unistd.h>
#include "source/formats.h"

/*
 * Add the tracepoint @system:@name to @es and its format to @dec. Returns 0
 * when it was added, 1 when it is missing and not @required (skipped with a
 * warning), or -errno after explaining the error.
 */
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

/* Add a dummy event of @role; dummies come after the tracepoints. */
static void add_dummy(struct ipp_evset *es, enum ipp_ev_role role)
{
	struct ipp_event *ev = &es->v[es->n++];

	ev->role = role;
	ev->system = "software";
	snprintf(ev->name, sizeof(ev->name), "dummy");
	ev->id = -1;
}

/* Build the kernel filter that keeps only the calls of the session's syscall sets. */
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

/* Add each call's sys_enter_X and sys_exit_X tracepoints, or neither of them. */
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
	/*
	 * sched_waking is opened only for the request paths (plan.h), and only
	 * where the kernel has it.
	 */
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
	/* This dummy is opened only where the kernel's task records replace the task tracepoints. */
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
