/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The live source (source.h): the targets (pids, tids, a command started
 * corked, or the whole system), the events of formats.c opened on them
 * through libperf, their per-CPU rings read into the pipeline, and what
 * only a live session knows: when the targets are all gone, the losses no
 * LOST record reported, the counters, and a capture being written. This
 * file holds the source's operations, its start and its stop; rings-open.c
 * opens the events and rings-read.c reads them (rings.h).
 */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "source/rings.h"

static int libperf_print(enum libperf_print_level level, const char *fmt, va_list ap)
{
	ipp_vprint(IPCPERF_DEBUG, fmt, ap);
	return 0;
}

static void libperf_hook(void)
{
	libperf_init(libperf_print);
}

/*
 * libperf has one print hook per process, so it is replaced once, whichever
 * thread starts a session.
 */
static void libperf_init_once(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, libperf_hook);
}


static void rings_destroy(struct ipp_source *src);

struct ipp_source *ipp_rings__new(const struct ipcperf_session_opts *user,
				  struct ipp_pipeline *pl)
{
	struct ipcperf_session_opts o;
	struct ipp_rings *s;
	pid_t *t;
	int err = ipp_rings__validate(user, &o);

	if (err) {
		return ipp_null_errno(-err);
	}
	s = ipp_new(sizeof(*s));
	if (!s)
		return NULL;
	s->base.ops = &ipp_rings_ops;
	s->base.pl = pl;
	s->epfd = s->tick_fd = s->cmd_pidfd = -1;
	s->cmd.pid = -1;
	s->system_wide = o.system_wide;
	s->no_bpf = o.no_bpf;
	s->syscall_samples = o.syscall_samples;
	s->call_memory = o.call_memory;
	s->ring_pages = o.ring_pages;
	s->want_counters = o.counters || o.counter_mask;
	s->counter_mask = o.counter_mask ? o.counter_mask : IPCPERF_CNT_BIT(IPCPERF_CNT__MAX) - 1;
	s->scope = o.system_wide ? IPCPERF_SCOPE_CPU : o.scope;
	s->self = getpid();
	s->include_self = o.include_self;
	ipp_pipeline__set_self(pl, s->self, s->include_self);
	s->pids = ipp_rings__copy_pids(o.pids, o.nr_pids, &s->nr_pids);
	s->tids = ipp_rings__copy_pids(o.tids, o.nr_tids, &s->nr_tids);
	if ((o.nr_pids && !s->pids) || (o.nr_tids && !s->tids))
		err = -ENOMEM;
	if (!err && (s->nr_pids || s->nr_tids))
		err = ipp_rings__resolve_targets(s);
	if (!err)
		err = ipp_evset__load(&s->es, o.events, ipp_pipeline__decoder(pl));
	if (!err && o.argv) {
		err = ipp_cmd__fork(&s->cmd, o.argv);
		if (err)
			ipp_info("cannot fork the command: %s\n", strerror(-err));
		else if (!(t = realloc(s->targets, (s->nr_targets + 1) * sizeof(pid_t))))
			err = -ENOMEM;
		else
			(s->targets = t)[s->nr_targets++] = s->cmd.pid;
		s->has_cmd = s->cmd.pid > 0;
	}
	if (err) {
		rings_destroy(&s->base);
		return ipp_null_errno(-err);
	}
	return &s->base;
}

/* ------------------------------------------------------------------ starting */

/*
 * Threads already inside a call when the events were enabled (a reader
 * blocked in read) will show only its exit, which carries no fd: without
 * its bytes, flows would pair every later write with the read after the
 * one that took it. /proc/PID/task/TID/syscall tells the call and its
 * arguments; the pairer then completes it at its exit.
 */
static void seed_calls_in_progress(struct ipp_rings *s)
{
	int n = perf_thread_map__nr(s->threads);

	for (int i = 0; i < n; i++) {
		pid_t tid = perf_thread_map__pid(s->threads, i);
		pid_t pid = s->owner ? s->owner[i] : tid;
		char path[64], line[256];
		unsigned long long a[6];
		long nr;
		FILE *f;

		/*
		 * A kernel thread's syscall file reads "0 0x0 ...": it makes no
		 * calls of its own.
		 */
		if (ipp_is_kernel_thread(tid))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid, (int)tid);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(line, sizeof(line), f) &&
		    sscanf(line, "%ld %llx %llx %llx %llx %llx %llx", &nr, &a[0], &a[1], &a[2],
			   &a[3], &a[4], &a[5]) == 7 && nr >= 0) {
			const struct ipp_scdesc *sc = ipp_scdesc_by_nr((int)nr);
			uint64_t args[6];

			for (int k = 0; k < 6; k++)
				args[k] = a[k];
			/*
			 * Seed only the calls the session traces, since only
			 * their exits will be seen.
			 */
			if ((s->es.events & IPCPERF_EV_ALL_SYSCALLS) || (sc && (sc->set & s->es.events)))
				ipp_pipeline__seed_call(s->base.pl, s->start_ns, pid, tid, sc,
							(int)nr, args, 6);
		}
		fclose(f);
	}
}

/* Return the time now in clock ticks since boot, the unit of the start times in /proc/PID/stat. */
static uint64_t boot_ticks_now(void)
{
	struct timespec ts;
	long hz = sysconf(_SC_CLK_TCK);

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ((uint64_t)ts.tv_sec * IPP_NS_PER_SEC + (uint64_t)ts.tv_nsec) /
	       (IPP_NS_PER_SEC / (uint64_t)(hz > 0 ? hz : 100));
}

/*
 * Give a CPU-scope session its targets as they are once the events are on:
 * the threads of the pids (and the tids) that still exist, so that every
 * later change arrives as a fork or exit record. The command becomes a
 * target at its exec.
 */
static int follow_targets(struct ipp_rings *s)
{
	struct ipp_follow *f = ipp_follow__new();
	pid_t *now = NULL, *tgid = NULL;
	int n = 0, err;

	if (!f)
		return -ENOMEM;
	s->follow = f;
	ipp_pipeline__follow(s->base.pl, f);
	s->check_ns = ipp_now_ns();
	if (s->has_cmd) {
		ipp_follow__expect_exec(f, s->cmd.pid);
		if (!ipp_rings__mixed(s))
			return 0;
	} else {
		ipp_follow__set_start(f, boot_ticks_now());
	}
	err = ipp_rings__collect_threads(s, &now, &tgid, &n);
	if (err == -ESRCH)
		return 0;	/* gone already: done() says so */
	for (int i = 0; !err && i < n; i++)
		err = ipp_follow__add(f, now[i], tgid[i]);
	free(now);
	free(tgid);
	return err;
}

/*
 * Describe the bpf-output events of the kernel's fd identity the way a capture
 * describes an event.
 */
static int bpf_event_desc(const struct ipp_rings *s,
			  int (*cb)(void *ctx, const struct ipcperf_event_desc *d), void *ctx)
{
	struct perf_event_attr a;
	struct ipcperf_event_desc d = {
		.system = "software", .name = "bpf-output", .id = -1, .attr = &a,
		.attr_size = sizeof(a),
	};

	ipp_bpf__output_attr(&a, CLOCK_MONOTONIC);
	d.ids = ipp_bpf__ids(s->bpf, &d.nr_ids);
	return cb(ctx, &d);
}

static int add_desc(void *ctx, const struct ipcperf_event_desc *d)
{
	return ipp_recorder__add_event(ctx, d);
}

/*
 * Return an id of the capture's first event, for the trailer of the records the
 * capture makes up.
 */
static uint64_t first_id(const struct ipp_rings *s)
{
	for (size_t i = 0; i < s->es.n; i++)
		if (s->es.v[i].opened && s->es.v[i].nr_ids)
			return s->es.v[i].ids[0];
	return 0;
}

/* Write COMM records for the threads of @pid, which were running before the capture began. */
static void record_comms_of(struct ipp_rings *s, pid_t pid, uint64_t id)
{
	char comm[16];
	pid_t *tids;
	int n = ipp_list_threads(pid, &tids);

	for (int i = 0; i < n; i++) {
		ipp_task_comm(pid, tids[i], comm, sizeof(comm));
		if (comm[0])
			ipp_recorder__comm(s->recorder, pid, tids[i], comm, id);
	}
	if (n > 0)
		free(tids);
}

/*
 * Write the names of the targets already running (every process with -a)
 * into the capture, as perf record does; otherwise perf script shows their
 * records as ":PID". The command has no name yet: its exec gives it one.
 */
static void record_comms(struct ipp_rings *s)
{
	uint64_t id = first_id(s);
	pid_t *pids = NULL;
	int n;

	if (s->system_wide) {
		n = ipp_list_processes(&pids);
		for (int i = 0; i < n; i++)
			record_comms_of(s, pids[i], id);
		free(pids);
		return;
	}
	for (size_t i = 0; i < s->nr_targets; i++)
		if (!s->has_cmd || s->targets[i] != s->cmd.pid)
			record_comms_of(s, s->targets[i], id);
}

/*
 * Describe every opened event of @es to the capture, before any record. Returns
 * 0 or an explained -errno.
 */
static int record_events(struct ipp_recorder *r, const struct ipp_evset *es)
{
	for (size_t i = 0; i < es->n; i++) {
		const struct ipp_event *ev = &es->v[i];
		const struct ipcperf_event_desc d = {
			.system = ev->system, .name = ev->name, .id = ev->id, .attr = &ev->attr,
			.attr_size = sizeof(ev->attr), .ids = ev->ids, .nr_ids = ev->nr_ids,
			.format = ev->format, .format_len = ev->format_len,
		};
		int err;

		if (!ev->opened)
			continue;
		err = ipp_recorder__add_event(r, &d);
		if (err) {
			ipp_info("cannot describe %s:%s in the capture: %s\n", ev->system, ev->name,
				 strerror(-err));
			return err;
		}
	}
	return 0;
}

/*
 * Open everything. IPCPERF_SCOPE_AUTO falls back from CPU-wide to per-task
 * events when CPU-wide ones are not allowed.
 */
static int open_scoped(struct ipp_rings *s)
{
	int err;

	if (s->recorder && !s->system_wide && s->scope == IPCPERF_SCOPE_CPU) {
		/*
		 * A capture holds only the targets' records, and a replay has
		 * no one to follow.
		 */
		ipp_info("a capture is recorded per task: use scope task or auto to record\n");
		return -EINVAL;
	}
	s->cpu_scope = s->system_wide || s->scope == IPCPERF_SCOPE_CPU ||
		       (s->scope == IPCPERF_SCOPE_AUTO && !s->recorder && !s->tap);
	err = ipp_rings__open_events(s);
	/*
	 * The fork, exec and exit records come with the side-band event;
	 * without it no target can be followed.
	 */
	if (!err && s->cpu_scope && !s->system_wide && !perf_evlist__next(s->sb_evlist, NULL)) {
		ipp_print(s->scope == IPCPERF_SCOPE_AUTO ? IPCPERF_DEBUG : IPCPERF_INFO,
			  "cannot follow the targets CPU-wide without the side-band dummy event\n");
		err = -ENOENT;
	}
	if ((err == -EACCES || err == -EPERM || err == -ENOENT) && !s->system_wide &&
	    s->cpu_scope && s->scope == IPCPERF_SCOPE_AUTO) {
		ipp_debug("cannot trace CPU-wide (%s); tracing per task\n", strerror(-err));
		ipp_rings__close_events(s);
		s->cpu_scope = false;
		err = ipp_rings__open_events(s);
	}
	if (!err && s->recorder)
		err = record_events(s->recorder, &s->es);
	if (!err && s->recorder && s->bpf)
		err = bpf_event_desc(s, add_desc, s->recorder);
	/* This comes after every event is described, because the first record begins the file. */
	if (!err && s->recorder)
		record_comms(s);
	return err;
}

static int rings_start(struct ipp_source *src)
{
	struct ipp_rings *s = rings_of(src);
	int err;

	libperf_init_once();
	err = open_scoped(s);
	if (err)
		goto fail;
	ipp_clock_pair(&s->clk.mono_start, &s->clk.real_start);
	s->start_ns = s->clk.mono_start;
	/* Enable the kernel's fd identity first, so that every call the events see is described. */
	if (s->bpf && (err = ipp_bpf__enable(s->bpf)) < 0) {
		ipp_debug("fd identity from /proc: %s\n", ipp_plan__bpf_why(-err));
		ipp_rings__close_bpf(s);
	}
	/*
	 * A command's per-task events and counters switch on at its exec
	 * (enable_on_exec); everything else is enabled now. CPU-wide events
	 * are enabled now too: the command's records before its exec are
	 * dropped as not yet a target's. So are per-task events when running
	 * targets come with the command (mixed), since those are traced from now.
	 */
	if (!s->has_cmd || (s->cpu_scope && !s->system_wide) || ipp_rings__mixed(s)) {
		/*
		 * Enable the side-band first, so that no fork goes unseen while
		 * samples already flow.
		 */
		perf_evlist__enable(s->sb_evlist);
		perf_evlist__enable(s->evlist);
	}
	if (((s->cpu_scope && !s->system_wide) || ipp_rings__mixed(s)) &&
	    (err = follow_targets(s)) < 0)
		goto fail;
	if (ipp_rings__mixed(s)) {
		ipp_counters__enable(s->counters, true);
		seed_calls_in_progress(s);
	}
	if (s->has_cmd) {
		err = ipp_cmd__release(&s->cmd);
		if (err) {
			ipp_info("cannot run the command: %s\n", strerror(-err));
			goto fail;
		}
		ipp_pipeline__cmd_released(src->pl);
	} else {
		ipp_counters__enable(s->counters, true);
		if (!s->system_wide)
			seed_calls_in_progress(s);
	}
	return 0;
fail:
	ipp_rings__close_events(s);
	return err;
}

int ipp_rings__record(struct ipp_source *src, const char *path, int fd)
{
	struct ipp_rings *s = rings_of(src);

	if (s->recorder)
		return -EBUSY;
	s->recorder = ipp_recorder__new(path, fd);
	return s->recorder ? 0 : -errno;
}

void ipp_rings__set_host(struct ipp_source *src, const char *name)
{
	snprintf(rings_of(src)->host, sizeof(rings_of(src)->host), "%s", name);
}

void ipp_rings__set_tap(struct ipp_source *src, void (*tap)(void *ctx, const void *rec,
							     size_t size), void *ctx)
{
	rings_of(src)->tap = tap;
	rings_of(src)->tap_ctx = ctx;
}

static int rings_read_counters(const struct ipp_source *src, pid_t pid,
			       struct ipcperf_counter_value *vals)
{
	const struct ipp_rings *s = crings_of(src);
	bool *use = NULL;
	int n, err = 0;

	if (!s->counters && !s->plan.task_acct)
		return -ENODATA;
	if (pid) {
		bool any = false;

		if (!s->owner)
			return -ESRCH;
		n = perf_thread_map__nr(s->threads);
		use = calloc(n, sizeof(*use));
		if (!use)
			return -ENOMEM;
		for (int i = 0; i < n; i++)
			any |= use[i] = s->owner[i] == pid;
		if (!any) {
			free(use);
			return -ESRCH;
		}
	}
	if (s->counters) {
		err = ipp_counters__read(s->counters, use, vals);
	} else {
		for (int i = 0; i < IPCPERF_CNT__MAX; i++)
			vals[i] = (struct ipcperf_counter_value){ .status = IPCPERF_CNT_NOT_REQUESTED };
	}
	free(use);
	if (!err && s->plan.task_acct) {
		struct ipp_acct_sum gone;
		struct ipp_task_acct alive = { 0 };

		ipp_pipeline__acct_sum(s->base.pl, pid, &gone);
		if (!s->acct_final)
			ipp_taskacct__alive(s->bpf, pid, &alive);
		ipp_taskacct__counters(&gone, &alive, s->counter_mask, vals);
	}
	return err;
}

/*
 * Write what a replay needs besides the records: the counts, the counters and
 * the end of the file.
 */
static int finish_recording(struct ipp_rings *s)
{
	struct ipcperf_session_stats counts = { .sz = sizeof(counts) };
	struct ipp_rec_session ss = {
		.start_ns = s->start_ns, .stop_ns = s->stop_ns,
		.self = s->self, .cmd_pid = s->has_cmd ? s->cmd.pid : -1,
		.include_self = s->include_self,
		.rings = s->cpus ? (unsigned int)perf_cpu_map__nr(s->cpus) : 0,
		.skipped = s->es.skipped, .ring_pages = s->ring_pages,
	};
	struct ipp_recorder *r = s->recorder;
	struct ipcperf_counter_value v[IPCPERF_CNT__MAX];

	/* Count the records the kernel (or a lack of memory) lost, not those nobody could place. */
	ipp_pipeline__stats(s->base.pl, &counts);
	ss.lost = counts.lost - counts.unattributed;
	ss.records = counts.records;
	if (s->counters) {
		if (rings_read_counters(&s->base, 0, v) == 0)
			ipp_recorder__counters(r, 0, v);
		for (size_t i = 0; i < s->nr_targets; i++)
			if (rings_read_counters(&s->base, s->targets[i], v) == 0)
				ipp_recorder__counters(r, s->targets[i], v);
	}
	s->recorder = NULL;
	{
		struct ipcperf_capture_info ci = { .sz = sizeof(ci) };

		s->base.ops->info(&s->base, &ci);
		ipp_recorder__place(r, ci.host, &s->clk);
	}
	return ipp_recorder__finish(r, &ss);	/* which explains a failure */
}

/*
 * Report the calls still under way at the end, whose exits will not be
 * seen. The kernel counted their enters; they count as unpaired enters,
 * as sys_enter samples without their exit do.
 */
static void calls_under_way(struct ipp_rings *s)
{
	uint64_t n = 0;
	int err = ipp_bpf__calls_under_way(s->bpf, &n);

	if (err < 0)
		ipp_debug("cannot count the calls under way: %s\n", strerror(-err));
	ipp_pipeline__unpaired_enters(s->base.pl, n);
}

struct sched_end {
	struct ipp_pipeline *pl;
	uint64_t now;
	int n;
};

static int sched_alive(void *ctx, uint32_t tid, const struct ipp_sched_slot *t)
{
	struct sched_end *e = ctx;
	struct ipp_task_acct grown = { 0 };
	struct ipcperf_sched_totals ev = {
		.time_ns = e->now, .pid = t->pid, .tid = (pid_t)tid, .exited = t->exited,
		.voluntary = t->voluntary, .involuntary = t->involuntary,
		.wakeups = t->wakeups, .migrations = t->migrations,
	};

	memcpy(ev.comm, t->comm, sizeof(ev.comm));
	ev.comm[sizeof(ev.comm) - 1] = '\0';
	ipp_taskacct__live(&grown, tid, t);
	if (ipp_pipeline__acct_add(e->pl, t->root, &grown) < 0)
		ipp_info("cannot keep thread %u's counters: %s\n", tid, strerror(ENOMEM));
	ipp_pipeline__sched_totals(e->pl, &ev);
	e->n = 1;
	return 0;
}

/*
 * Deliver, after every record, the counts of the threads alive at the end
 * and of those whose record found no room. What the kernel could not count
 * (switches and wakeups while its map was full, the dropped counts of a
 * reused tid) is reported lost on the CPU that dropped it. Returns 1 when
 * something was handed to the handlers, else 0.
 */
static int sched_at_stop(struct ipp_rings *s)
{
	struct sched_end e = { .pl = s->base.pl, .now = ipp_now_ns() };
	int err = ipp_bpf__for_each_sched(s->bpf, sched_alive, &e);

	s->acct_final = true;

	if (err < 0)
		ipp_info("cannot read the threads' switch counts: %s\n", strerror(-err));
	for (int i = 0; i < perf_cpu_map__nr(s->cpus); i++) {
		int c = perf_cpu_map__cpu(s->cpus, i).cpu;
		uint64_t full = 0, lost = 0;

		if (ipp_bpf__stat_on_cpu(s->bpf, IPP_FDID_ST_SCHED_FULL, c, &full) < 0 ||
		    ipp_bpf__stat_on_cpu(s->bpf, IPP_FDID_ST_SCHED_LOST, c, &lost) < 0 ||
		    full + lost == 0)
			continue;
		ipp_pipeline__lost(s->base.pl, c, full + lost);
		e.n = 1;
	}
	return e.n;
}

static int sum_left(void *ctx, const struct ipp_sum_rec *r)
{
	ipp_pipeline__sum(ctx, r);
	return 0;
}

/*
 * Deliver the calls the kernel added up that no fd-ending call flushed.
 * This runs after every record, so they go to the fd incarnations open at
 * the end.
 */
static void sums_at_stop(struct ipp_rings *s)
{
	int err = ipp_bpf__for_each_sum(s->bpf, sum_left, s->base.pl);

	if (err < 0)
		ipp_info("cannot read the calls added up in the kernel: %s\n", strerror(-err));
}

static int rings_stop(struct ipp_source *src)
{
	struct ipp_rings *s = rings_of(src);
	bool dry = false;
	int n;

	perf_evlist__disable(s->evlist);
	perf_evlist__disable(s->sb_evlist);
	if (s->plan.paired)
		ipp_bpf__stop_calls(s->bpf);
	ipp_counters__enable(s->counters, false);
	/* The capture ends here; what follows only reads what the rings hold. */
	ipp_clock_pair(&s->clk.mono_stop, &s->clk.real_stop);
	s->stop_ns = s->clk.mono_stop;
	/*
	 * What is in the rings is read and delivered, in order, for DRAIN_NS at
	 * most; what is left when the clock ran out is counted as lost. Rings
	 * that ran dry left nothing behind: a record written after that (a
	 * thread's last switch) came after the stop, as it did before passes
	 * were bounded, and the kernel's counts say what the events lost.
	 */
	n = ipp_rings__read_rings(s, UINT64_MAX, ipp_now_ns() + DRAIN_NS, &dry);
	if (n < 0)
		n = 0;
	if (!dry)
		n += ipp_rings__count_left(s);
	n += ipp_pipeline__deliver(src->pl, UINT64_MAX);
	if (s->plan.summed)
		sums_at_stop(s);
	n += ipp_rings__count_unreported_loss(s);
	if (s->plan.paired)
		calls_under_way(s);
	if (s->plan.sched_counted)
		n += sched_at_stop(s);
	if (s->bpf)
		s->bpf_missed = ipp_bpf__missed(s->bpf);
	ipp_pipeline__flush(src->pl);
	if (s->recorder) {
		int err = finish_recording(s);

		if (err)
			return err;
	}
	return n;
}

static void rings_stats(const struct ipp_source *src, bool stopped,
			struct ipcperf_session_stats *v)
{
	const struct ipp_rings *s = crings_of(src);

	v->start_ns = s->start_ns;
	v->stop_ns = s->stop_ns;
	v->rings = s->cpus ? (unsigned int)perf_cpu_map__nr(s->cpus) : 0;
	v->skipped_events = s->es.skipped;
	if (s->evlist)
		v->scope = s->cpu_scope ? IPCPERF_SCOPE_CPU : IPCPERF_SCOPE_TASK;
	v->ring_pages = s->ring_pages;
	if (s->evlist)
		v->fd_identity = s->bpf ? IPCPERF_FDID_BPF : IPCPERF_FDID_PROC;
	if (s->evlist)
		v->syscall_records = s->plan.paired ? IPCPERF_SC_RECORDS_KERNEL : IPCPERF_SC_RECORDS_SAMPLES;
	v->bpf_missed = s->bpf_missed;
	if (s->evlist && (s->es.events & IPCPERF_EV_SCHED))
		v->sched_records = s->plan.sched_counted ? IPCPERF_SCHED_RECORDS_TOTALS :
						      IPCPERF_SCHED_RECORDS_EVENTS;
}

static pid_t rings_child_pid(const struct ipp_source *src)
{
	return crings_of(src)->has_cmd ? crings_of(src)->cmd.pid : -1;
}

int ipp_rings__wait_child(struct ipp_source *src, int *status)
{
	struct ipp_rings *s = rings_of(src);

	return s->has_cmd ? ipp_cmd__wait(&s->cmd, status) : -ECHILD;
}

static int rings_for_each_event(const struct ipp_source *src,
				int (*cb)(void *ctx, const struct ipcperf_event_desc *d), void *ctx)
{
	const struct ipp_rings *s = crings_of(src);

	for (size_t i = 0; i < s->es.n; i++) {
		const struct ipp_event *ev = &s->es.v[i];
		struct ipcperf_event_desc d = {
			.system = ev->system, .name = ev->name, .id = ev->id,
			.attr = &ev->attr, .attr_size = sizeof(ev->attr),
			.ids = ev->ids, .nr_ids = ev->nr_ids,
			.format = ev->format, .format_len = ev->format_len,
		};
		int ret;

		if (!ev->opened)
			continue;
		ret = cb(ctx, &d);
		if (ret)
			return ret;
	}
	return s->bpf ? bpf_event_desc(s, cb, ctx) : 0;
}

static void rings_describe(const struct ipp_source *src, struct ipp_attach *at)
{
	const struct ipp_rings *s = crings_of(src);
	struct ipp_plan_in in;

	at->pids = s->targets;
	at->nr_pids = s->nr_targets;
	ipp_rings__plan_in(s, &in);
	at->kernel_fdid = ipp_plan__wants_fdid(&in);
	at->log = s->recorder ? ipp_recorder__log(s->recorder) : NULL;
	at->log_replay = false;
}

static void rings_info(const struct ipp_source *src, struct ipcperf_capture_info *out)
{
	const struct ipp_rings *s = crings_of(src);

	snprintf(out->host, sizeof(out->host), "%s", s->host);
	if (!out->host[0] && gethostname(out->host, sizeof(out->host)) < 0)
		out->host[0] = '\0';
	out->host[sizeof(out->host) - 1] = '\0';
	out->has_clock = s->clk.mono_start != 0;
	out->mono_start_ns = s->clk.mono_start;
	out->real_start_ns = s->clk.real_start;
	out->mono_stop_ns = s->clk.mono_stop;
	out->real_stop_ns = s->clk.real_stop;
}

static void rings_destroy(struct ipp_source *src)
{
	struct ipp_rings *s = rings_of(src);

	ipp_rings__close_events(s);
	if (s->has_cmd)
		ipp_cmd__abort(&s->cmd);
	ipp_evset__fini(&s->es);
	ipp_recorder__delete(s->recorder);	/* never finished: the file stays partial */
	ipp_free_all(s->pids, s->tids, s->targets, s);
}

const struct ipp_source_ops ipp_rings_ops = {
	.start = rings_start,
	.consume = ipp_rings__consume,
	.done = ipp_rings__done,
	.stop = rings_stop,
	.stats = rings_stats,
	.read_counters = rings_read_counters,
	.child_pid = rings_child_pid,
	.for_each_event = rings_for_each_event,
	.describe = rings_describe,
	.info = rings_info,
	.destroy = rings_destroy,
	.replay = false,
};

