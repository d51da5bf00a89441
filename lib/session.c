/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The capture session: targets, tracepoints opened through libperf on
 * per-CPU rings, the read loop, and dispatch of merged, decoded, paired
 * events to the registered handlers.
 */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <tracefs.h>
#include <unistd.h>
#include "internal.h"
#include "perfdata.h"
#include "record.h"

#define MAX_RING_PAGES (1u << 16)
/*
 * Records are delivered only once they are this much older than the start
 * of the pass that read the rings: a record stamped earlier has surely been
 * committed to its ring by then (the gap between stamping and committing is
 * microseconds, but a VM's vCPU can be held up by its host for milliseconds).
 */
#define MERGE_SLACK_NS (20ull * 1000 * 1000)
/* How often the fd of a CPU-scope session becomes readable without data. */
#define TICK_NS (50l * 1000 * 1000)
/* How often a CPU-scope session checks its targets against /proc. */
#define CHECK_NS (1000ull * 1000 * 1000)

/* What an event of the session is for. */
enum ev_role {
	EV_TRACEPOINT,	/* a tracepoint: its samples carry the data */
	/*
	 * The side-band records (COMM, FORK, EXIT) that say who the targets
	 * are: a software dummy event with rings of its own, so that a flood of
	 * samples never crowds them out.
	 */
	EV_SIDEBAND,
	/* The SWITCH records of IPCPERF_EV_BLOCKED: a dummy event in the sample rings. */
	EV_SWITCH,
};

struct tp {
	enum ev_role role;
	const char *system;
	char name[48];
	int id;			/* tracepoint id; -1 for the dummy events */
	bool opened;
	char *format;		/* tracefs format text */
	size_t format_len;
	struct perf_event_attr attr;
	uint64_t *ids;		/* kernel ids of its instances (one per CPU x thread) */
	size_t nr_ids;
};

enum state { S_NEW, S_STARTED, S_STOPPED };

struct ipcperf_session {
	enum state state;
	/* targets */
	pid_t *pids;
	size_t nr_pids;
	pid_t *tids;
	size_t nr_tids;
	bool system_wide;
	bool include_self;
	struct ipp_cmd cmd;
	bool has_cmd;
	unsigned int ring_pages;
	unsigned int events;
	char *raw_filter;	/* IPCPERF_EV_RAW_FILTER: "id == 0 || id == 1 || ..." */
	bool want_counters;
	unsigned int counter_mask;	/* IPCPERF_CNT_BIT()s of the counters to open */
	unsigned int scope;	/* as asked (enum ipcperf_scope) */
	bool cpu_scope;		/* tracepoints CPU-wide, targets followed by @follow */
	struct ipp_follow *follow;
	uint64_t foreign;	/* records of other tasks, dropped */
	bool sideband_lost;	/* side-band records were lost: tasks unknown may be targets' */
	uint64_t unattributed;	/* records dropped because nobody could say whose they were */
	uint64_t unattr_told;	/* how many of them the lost handlers were told of */
	uint64_t check_ns;	/* when the targets were last checked against /proc */
	bool cmd_exited;	/* the command exited (waitid), whatever the records say */
	pid_t self;
	pid_t *targets;		/* target processes: pids, tgids of tids, the command */
	size_t nr_targets;
	pid_t *owner;		/* tgid of each entry of the thread map */
	struct ipp_counters *counters;
	void (*tap)(void *ctx, const void *rec, size_t size);
	void *tap_ctx;

	/* events */
	struct ipp_decoder *dec;
	struct tp *tps;
	size_t nr_tps;
	unsigned int skipped;

	/* handlers */
	struct ipcperf_handlers *handlers;
	size_t nr_handlers;

	/* libperf */
	struct perf_evlist *evlist;	/* tracepoints and the switch event: the sample rings */
	struct perf_evlist *sb_evlist;	/* the side-band event and its rings */
	struct perf_cpu_map *cpus;
	struct perf_thread_map *threads;
	int epfd;
	int tick_fd;		/* CPU scope: makes epfd readable now and then (no ring hangs up) */
	int *perf_fds;
	size_t nr_perf_fds;
	size_t nr_live;

	/* pipeline */
	struct ipp_merge *merge;
	struct ipp_pairer *pairer;
	uint64_t *lost_per_cpu;
	uint64_t *samples_per_cpu;	/* syscall samples received, by CPU */
	bool *sc_tp;			/* by tracepoint id: a syscall tracepoint */
	size_t nr_sc_tp;
	int nr_cpu_slots;
	uint64_t records, lost, syscalls;
	uint64_t start_ns, stop_ns;

	/* replay of a capture (ipcperf_session__open_file) */
	struct ipp_pd_reader *rd;
	bool eof;
	uint64_t round_max;	/* latest time read since the last FINISHED_ROUND */
	uint64_t prev_round_max;	/* latest time read before it: safe to deliver up to */
	uint64_t first_ns, last_ns;	/* times of the first and last record read */
	struct ipp_rec_data rec;	/* the capture's ipcperf section, when it has one */
	bool has_rec;
	bool rec_lost_done;		/* its end-of-run losses were delivered */

	/* recording (ipcperf_session__record) */
	struct ipp_recorder *recorder;
};

/* ------------------------------------------------------------------ */

static int libperf_print(enum libperf_print_level level, const char *fmt, va_list ap)
{
	ipp_vprint(IPCPERF_DEBUG, fmt, ap);
	return 0;
}

/* The "any CPU" map: libperf 6.12 renamed its constructor (same soname). */
static struct perf_cpu_map *ipp_cpu_map_any(void)
{
#ifdef HAVE_PERF_CPU_MAP__NEW_ANY_CPU
	return perf_cpu_map__new_any_cpu();
#else
	return perf_cpu_map__dummy_new();
#endif
}

static void libperf_init_once(void)
{
	static bool done;

	if (!done) {
		libperf_init(libperf_print);
		done = true;
	}
}

static int read_int_file(const char *path, int *val)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%d", val) == 1;
	fclose(f);
	return ok ? 0 : -EINVAL;
}

static void explain_perm(const char *what)
{
	int paranoid = 0;

	if (read_int_file("/proc/sys/kernel/perf_event_paranoid", &paranoid) == 0)
		ipp_info("%s: permission denied: kernel.perf_event_paranoid is %d; tracepoints "
			 "need root or CAP_PERFMON (with read access to tracefs), or "
			 "'sysctl kernel.perf_event_paranoid=-1'\n", what, paranoid);
	else
		ipp_info("%s: permission denied: run as root or with CAP_PERFMON\n", what);
}

/* ------------------------------------------------------------------ options */

static bool is_pow2(unsigned int v)
{
	return v && !(v & (v - 1));
}

static int check_pids(const pid_t *v, size_t n, const char *what)
{
	if (n && !v) {
		ipp_info("invalid options: nr_%s is %zu but %s is NULL\n", what, n, what);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++)
		if (v[i] <= 0) {
			ipp_info("invalid options: %s[%zu] is %d; a pid must be > 0\n", what, i,
				 (int)v[i]);
			return -EINVAL;
		}
	return 0;
}

static int validate(const struct ipcperf_session_opts *o, struct ipcperf_session_opts *out)
{
	int kinds, err;

	memset(out, 0, sizeof(*out));
	if (!o) {
		ipp_info("invalid options: no target (give pids, tids, argv or system_wide)\n");
		return -EINVAL;
	}
	if (o->sz < offsetof(struct ipcperf_session_opts, nr_pids) + sizeof(o->nr_pids) ||
	    !ipp_opts_valid(o, o->sz, sizeof(*o))) {
		ipp_info("invalid options: sz is %zu; set it with IPCPERF_OPTS()\n", o->sz);
		return -EINVAL;
	}
	memcpy(out, o, o->sz < sizeof(*out) ? o->sz : sizeof(*out));
	out->sz = sizeof(*out);
	if ((err = check_pids(out->pids, out->nr_pids, "pids")) ||
	    (err = check_pids(out->tids, out->nr_tids, "tids")))
		return err;
	kinds = (out->nr_pids || out->nr_tids) + !!out->system_wide + !!out->argv;
	if (kinds != 1) {
		ipp_info("invalid options: %s\n", kinds ? "give only one kind of target "
			 "(pids/tids, argv, or system_wide)" :
			 "no target (give pids, tids, argv or system_wide)");
		return -EINVAL;
	}
	if (out->argv && !out->argv[0]) {
		ipp_info("invalid options: argv is empty\n");
		return -EINVAL;
	}
	if (!out->ring_pages)
		out->ring_pages = IPCPERF_DEFAULT_RING_PAGES;
	if (!is_pow2(out->ring_pages) || out->ring_pages > MAX_RING_PAGES) {
		ipp_info("invalid options: ring_pages is %u; it must be a power of two "
			 "from 1 to %u\n", out->ring_pages, MAX_RING_PAGES);
		return -EINVAL;
	}
	if (out->scope > IPCPERF_SCOPE_CPU) {
		ipp_info("invalid options: scope is %u; use IPCPERF_SCOPE_AUTO, _TASK or _CPU\n",
			 out->scope);
		return -EINVAL;
	}
	if (!out->events)
		out->events = IPCPERF_EV_DEFAULT;
	if (out->counter_mask & ~(IPCPERF_CNT_BIT(IPCPERF_CNT__MAX) - 1)) {
		ipp_info("invalid options: unknown bits 0x%x in counter_mask\n",
			 out->counter_mask & ~(IPCPERF_CNT_BIT(IPCPERF_CNT__MAX) - 1));
		return -EINVAL;
	}
	if (out->events & ~(unsigned int)IPCPERF_EV__ALL) {
		ipp_info("invalid options: unknown bits 0x%x in events\n",
			 out->events & ~(unsigned int)IPCPERF_EV__ALL);
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------------ formats */

static int add_tp(struct ipcperf_session *s, const char *system, const char *name, bool required)
{
	size_t size = 0;
	char *text = tracefs_event_file_read(NULL, system, name, "format", (int *)&size);
	struct tp *tp;
	int id;

	if (!text) {
		int e = errno;

		if (e == EACCES || e == EPERM) {
			explain_perm("reading tracepoint formats");
			return -EACCES;
		}
		if (required) {
			ipp_info("tracepoint %s:%s is not available in this kernel\n", system, name);
			return -ENOENT;
		}
		ipp_warn("tracepoint %s:%s is not available in this kernel; skipped\n",
			 system, name);
		s->skipped++;
		return 1;
	}
	id = ipp_decoder__add_format(s->dec, system, name, text, size);
	if (id < 0) {
		free(text);
		ipp_info("cannot parse the format of %s:%s (%s)\n", system, name, strerror(-id));
		return id;
	}
	tp = &s->tps[s->nr_tps++];
	tp->role = EV_TRACEPOINT;
	tp->format = text;
	tp->format_len = size;
	tp->system = system;
	snprintf(tp->name, sizeof(tp->name), "%s", name);
	tp->id = id;
	return 0;
}

/* One of the session's dummy events (after the tracepoints). */
static void add_dummy(struct ipcperf_session *s, enum ev_role role)
{
	struct tp *tp = &s->tps[s->nr_tps++];

	tp->role = role;
	tp->system = "software";
	snprintf(tp->name, sizeof(tp->name), "dummy");
	tp->id = -1;
}

/* The kernel filter that keeps the calls of the session's syscall sets. */
static int build_raw_filter(struct ipcperf_session *s)
{
	size_t len = 0, cap = 64 * ipp_nr_syscalls;
	char *f = malloc(cap);

	if (!f)
		return -ENOMEM;
	f[0] = '\0';
	for (size_t i = 0; i < ipp_nr_syscalls; i++) {
		const struct ipp_scdesc *sc = &ipp_syscalls[i];

		if (!(sc->set & s->events) || sc->nr < 0)
			continue;
		len += (size_t)snprintf(f + len, cap - len, "%sid == %d", len ? " || " : "", sc->nr);
	}
	s->raw_filter = f;
	return 0;
}

static int load_formats(struct ipcperf_session *s)
{
	const char *dir = tracefs_tracing_dir();
	int err;

	if (!dir) {
		if (geteuid() != 0)
			ipp_info("tracefs is not mounted and only root can mount it: "
				 "mount -t tracefs nodev /sys/kernel/tracing\n");
		else
			ipp_info("tracefs is not mounted and could not be mounted: "
				 "mount -t tracefs nodev /sys/kernel/tracing\n");
		return -ENOENT;
	}
	/* Each syscall's enter and exit, 5 sched tracepoints, 2 raw_syscalls, 2 dummies. */
	s->tps = calloc(2 * ipp_nr_syscalls + 9, sizeof(*s->tps));
	if (!s->tps)
		return -ENOMEM;
	if (!(s->events & IPCPERF_EV_ALL_SYSCALLS) && (s->events & IPCPERF_EV_RAW_FILTER) &&
	    (s->events & (IPCPERF_EV_IO | IPCPERF_EV_FDS))) {
		err = build_raw_filter(s);
		if (err)
			return err;
	}
	if (s->events & IPCPERF_EV_ALL_SYSCALLS || s->raw_filter) {
		if ((err = add_tp(s, "raw_syscalls", "sys_enter", true)) < 0 ||
		    (err = add_tp(s, "raw_syscalls", "sys_exit", true)) < 0)
			return err;
	}
	for (size_t i = 0; i < ipp_nr_syscalls && !(s->events & IPCPERF_EV_ALL_SYSCALLS) &&
			   !s->raw_filter; i++) {
		const struct ipp_scdesc *sc = &ipp_syscalls[i];
		char enter[48], exit_[48];
		size_t before = s->nr_tps;

		if (!(sc->set & s->events) || sc->nr < 0)
			continue;
		snprintf(enter, sizeof(enter), "sys_enter_%s", sc->name);
		snprintf(exit_, sizeof(exit_), "sys_exit_%s", sc->name);
		if ((err = add_tp(s, "syscalls", enter, false)) < 0)
			return err;
		if (err == 0 && (err = add_tp(s, "syscalls", exit_, false)) < 0)
			return err;
		if (err > 0 && s->nr_tps != before) {
			/* An enter without its exit is of no use: drop both. */
			s->nr_tps = before;
		}
	}
	if (s->events & IPCPERF_EV_SCHED) {
		if ((err = add_tp(s, "sched", "sched_switch", false)) < 0 ||
		    (err = add_tp(s, "sched", "sched_wakeup", false)) < 0)
			return err;
	}
	if (s->events & IPCPERF_EV_TASK) {
		if ((err = add_tp(s, "sched", "sched_process_fork", false)) < 0 ||
		    (err = add_tp(s, "sched", "sched_process_exec", false)) < 0 ||
		    (err = add_tp(s, "sched", "sched_process_exit", false)) < 0)
			return err;
	}
	if (!s->nr_tps) {
		ipp_info("none of the tracepoints ipcperf uses exist in this kernel "
			 "(CONFIG_FTRACE_SYSCALLS?)\n");
		return -ENOENT;
	}
	add_dummy(s, EV_SIDEBAND);
	if (s->events & IPCPERF_EV_BLOCKED)
		add_dummy(s, EV_SWITCH);
	return 0;
}

/* ------------------------------------------------------------------ targets */

/*
 * Every thread of the pids and the tids: @out, and with @owners the tgid of
 * each, read once per pid or tid given.
 */
static int collect_threads(struct ipcperf_session *s, pid_t **out, pid_t **owners, int *nr)
{
	pid_t *all = NULL, *own = NULL;
	size_t n = 0;
	int err = 0;

	for (size_t i = 0; !err && i < s->nr_pids + s->nr_tids; i++) {
		bool is_pid = i < s->nr_pids;
		pid_t id = is_pid ? s->pids[i] : s->tids[i - s->nr_pids];
		pid_t *t = NULL, *na, *no;
		int k;

		if (is_pid) {
			k = ipp_list_threads(id, &t);
			if (k == -ESRCH)
				ipp_info("no such process: %d\n", (int)id);
		} else if (kill(id, 0) < 0 && errno == ESRCH) {
			ipp_info("no such thread: %d\n", (int)id);
			k = -ESRCH;
		} else {
			k = 1;
		}
		if (k < 0) {
			err = k;
			break;
		}
		na = realloc(all, (n + k) * sizeof(*all));
		if (na)
			all = na;
		no = na && owners ? realloc(own, (n + k) * sizeof(*own)) : NULL;
		if (no)
			own = no;
		if (!na || (owners && !no)) {
			free(t);
			err = -ENOMEM;
			break;
		}
		if (owners) {
			pid_t tgid = ipp_tgid_of(id);

			for (int m = 0; m < k; m++)
				own[n + m] = tgid > 0 ? tgid : (t ? t[m] : id);
		}
		for (int m = 0; m < k; m++)
			all[n + m] = t ? t[m] : id;
		n += (size_t)k;
		free(t);
	}
	if (err) {
		free(all);
		free(own);
		return err;
	}
	*out = all;
	if (owners)
		*owners = own;
	*nr = (int)n;
	return 0;
}

/* ------------------------------------------------------------------ new/delete */

static void add_target(struct ipcperf_session *s, pid_t pid)
{
	for (size_t i = 0; i < s->nr_targets; i++)
		if (s->targets[i] == pid)
			return;
	s->targets[s->nr_targets++] = pid;
}

const pid_t *ipp_session_target_pids(const struct ipcperf_session *s, size_t *nr)
{
	*nr = s->nr_targets;
	return s->targets;
}

/* A session with its pipeline (decoder, merge, pairer) and nothing open; NULL with errno. */
static struct ipcperf_session *session_alloc(void)
{
	struct ipcperf_session *s = calloc(1, sizeof(*s));

	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	s->epfd = -1;
	s->tick_fd = -1;
	s->cmd.pid = -1;
	s->dec = ipp_decoder__new();
	s->merge = ipp_merge__new();
	s->pairer = ipp_pairer__new();
	if (!s->dec || !s->merge || !s->pairer) {
		ipcperf_session__delete(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

struct ipcperf_session *ipcperf_session__new(const struct ipcperf_session_opts *user)
{
	struct ipcperf_session_opts o;
	struct ipcperf_session *s;
	int err = validate(user, &o);

	if (err) {
		errno = -err;
		return NULL;
	}
	s = session_alloc();
	if (!s)
		return NULL;
	s->system_wide = o.system_wide;
	s->include_self = o.include_self;
	s->ring_pages = o.ring_pages;
	s->events = o.events;
	s->want_counters = o.counters || o.counter_mask;
	s->counter_mask = o.counter_mask ? o.counter_mask : IPCPERF_CNT_BIT(IPCPERF_CNT__MAX) - 1;
	s->scope = o.system_wide ? IPCPERF_SCOPE_CPU : o.scope;
	s->self = getpid();
	if (o.nr_pids) {
		s->pids = malloc(o.nr_pids * sizeof(pid_t));
		if (!s->pids)
			goto nomem;
		memcpy(s->pids, o.pids, o.nr_pids * sizeof(pid_t));
		s->nr_pids = o.nr_pids;
	}
	if (o.nr_tids) {
		s->tids = malloc(o.nr_tids * sizeof(pid_t));
		if (!s->tids)
			goto nomem;
		memcpy(s->tids, o.tids, o.nr_tids * sizeof(pid_t));
		s->nr_tids = o.nr_tids;
	}

	/* Targets first: a wrong pid is the likeliest mistake, say it before anything else. */
	if (s->nr_pids || s->nr_tids) {
		pid_t *t;
		int n;

		err = collect_threads(s, &t, NULL, &n);
		if (err)
			goto fail;
		free(t);
		s->targets = calloc(s->nr_pids + s->nr_tids, sizeof(pid_t));
		if (!s->targets)
			goto nomem;
		for (size_t i = 0; i < s->nr_pids + s->nr_tids; i++) {
			pid_t id = i < s->nr_pids ? s->pids[i] : s->tids[i - s->nr_pids];

			if (ipp_is_kernel_thread(id))
				ipp_warn("%s %d is a kernel thread: kernel threads make no system "
					 "calls, so only its scheduling and counters can be seen\n",
					 i < s->nr_pids ? "pid" : "tid", (int)id);
		}
		for (size_t i = 0; i < s->nr_pids; i++)
			add_target(s, s->pids[i]);
		for (size_t i = 0; i < s->nr_tids; i++) {
			pid_t tgid = ipp_tgid_of(s->tids[i]);

			add_target(s, tgid > 0 ? tgid : s->tids[i]);
		}
	}
	err = load_formats(s);
	if (err)
		goto fail;
	if (o.argv) {
		err = ipp_cmd__fork(&s->cmd, o.argv);
		if (err) {
			ipp_info("cannot fork the command: %s\n", strerror(-err));
			goto fail;
		}
		s->has_cmd = true;
		s->targets = malloc(sizeof(pid_t));
		if (!s->targets)
			goto nomem;
		s->targets[s->nr_targets++] = s->cmd.pid;
	}
	return s;
nomem:
	err = -ENOMEM;
fail:
	ipcperf_session__delete(s);
	errno = -err;
	return NULL;
}

static void close_events(struct ipcperf_session *s)
{
	ipp_follow__delete(s->follow);
	s->follow = NULL;
	ipp_counters__delete(s->counters);
	s->counters = NULL;
	free(s->owner);
	s->owner = NULL;
	for (int i = 0; i < 2; i++) {
		struct perf_evlist **el = i ? &s->sb_evlist : &s->evlist;

		if (!*el)
			continue;
		perf_evlist__munmap(*el);
		perf_evlist__close(*el);
		perf_evlist__delete(*el);	/* deletes the evsels too */
		*el = NULL;
	}
	perf_cpu_map__put(s->cpus);
	perf_thread_map__put(s->threads);
	s->cpus = NULL;
	s->threads = NULL;
	if (s->epfd >= 0)
		close(s->epfd);
	s->epfd = -1;
	if (s->tick_fd >= 0)
		close(s->tick_fd);
	s->tick_fd = -1;
	free(s->perf_fds);
	s->perf_fds = NULL;
	s->nr_perf_fds = s->nr_live = 0;
}

void ipcperf_session__delete(struct ipcperf_session *s)
{
	if (!s)
		return;
	if (s->state == S_STARTED)
		ipcperf_session__stop(s);
	close_events(s);
	if (s->has_cmd)
		ipp_cmd__abort(&s->cmd);
	ipp_decoder__delete(s->dec);
	ipp_merge__delete(s->merge);
	ipp_pairer__delete(s->pairer);
	for (size_t i = 0; s->tps && i < s->nr_tps; i++) {
		free(s->tps[i].format);
		free(s->tps[i].ids);
	}
	free(s->tps);
	free(s->handlers);
	free(s->pids);
	free(s->tids);
	free(s->raw_filter);
	free(s->targets);
	free(s->lost_per_cpu);
	free(s->samples_per_cpu);
	free(s->sc_tp);
	ipp_pd_reader__delete(s->rd);
	if (s->has_rec)
		ipp_rec_data__free(&s->rec);
	ipp_recorder__delete(s->recorder);	/* never started: the file stays partial */
	free(s);
}

int ipcperf_session__add_handlers(struct ipcperf_session *s, const struct ipcperf_handlers *h)
{
	struct ipcperf_handlers *v;

	if (!s || !h || h->sz < offsetof(struct ipcperf_handlers, ctx) + sizeof(h->ctx) ||
	    !ipp_opts_valid(h, h->sz, sizeof(*h)))
		return -EINVAL;
	if (s->state != S_NEW)
		return -EBUSY;
	v = realloc(s->handlers, (s->nr_handlers + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->handlers = v;
	memset(&v[s->nr_handlers], 0, sizeof(*v));
	memcpy(&v[s->nr_handlers], h, h->sz < sizeof(*h) ? h->sz : sizeof(*h));
	s->nr_handlers++;
	return 0;
}

/* ------------------------------------------------------------------ start */

/* Sorted list of this process's perf_event fds. */
static int perf_fds_now(int **out, size_t *nr)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int *v = NULL;
	size_t n = 0, cap = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char path[64], link[64];
		ssize_t len;
		int fd = atoi(de->d_name);

		if (de->d_name[0] == '.' || fd == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = '\0';
		if (strcmp(link, "anon_inode:[perf_event]") != 0)
			continue;
		if (n == cap) {
			int *nv = realloc(v, (cap = cap ? cap * 2 : 64) * sizeof(*v));
			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
		}
		v[n++] = fd;
	}
	closedir(d);
	*out = v;
	*nr = n;
	return 0;
}

static bool in_list(const int *v, size_t n, int fd)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == fd)
			return true;
	return false;
}

/*
 * The kernel ids of the instances of @tp: the perf fds that appeared since
 * @known (which then takes them in). libperf does not hand out its fds, and
 * a capture needs the ids to map each sample to its event.
 */
static int note_ids(struct tp *tp, int **known, size_t *nr_known, const char *filter)
{
	int *now;
	size_t n;
	int err = perf_fds_now(&now, &n);

	if (err)
		return err;
	free(tp->ids);
	tp->ids = calloc(n ? n : 1, sizeof(uint64_t));
	tp->nr_ids = 0;
	if (!tp->ids) {
		free(now);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t id;

		if (in_list(*known, *nr_known, now[i]))
			continue;
		if (ioctl(now[i], PERF_EVENT_IOC_ID, &id) == 0)
			tp->ids[tp->nr_ids++] = id;
		/* Inherited instances use their parent's filter. */
		if (filter && ioctl(now[i], PERF_EVENT_IOC_SET_FILTER, filter) < 0) {
			int e = -errno;

			ipp_info("cannot set the filter '%.60s%s' on %s:%s: %s\n", filter,
				 strlen(filter) > 60 ? "..." : "", tp->system, tp->name, strerror(-e));
			free(now);
			return e;
		}
	}
	free(*known);
	*known = now;
	*nr_known = n;
	return 0;
}

/*
 * The in-kernel filter of @tp into @out (NULL: none): the syscall numbers of
 * IPCPERF_EV_RAW_FILTER on raw_syscalls, and on CPU-wide events the records
 * that can never be a target's: the idle task's (pid 0: switches from idle,
 * wakeups from interrupts) and, unless include_self, this process's own.
 */
static int tp_filter(const struct ipcperf_session *s, const struct tp *tp, char **out)
{
	const char *ids = strcmp(tp->system, "raw_syscalls") ? NULL : s->raw_filter;
	char pids[64] = "";
	int n;

	*out = NULL;
	if (s->cpu_scope && !s->system_wide)
		snprintf(pids, sizeof(pids), "common_pid != 0 && common_pid != %d", (int)s->self);
	else if (s->system_wide && !s->include_self)
		snprintf(pids, sizeof(pids), "common_pid != %d", (int)s->self);
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

/* Pages of each side-band ring: FORK, EXIT and COMM records are few. */
static unsigned int sideband_pages(const struct ipcperf_session *s)
{
	return s->ring_pages >= 8 ? s->ring_pages / 8 : 1;
}

static void fill_attr(struct ipcperf_session *s, const struct tp *tp, struct perf_event_attr *a)
{
	unsigned int pages = tp->role == EV_SIDEBAND ? sideband_pages(s) : s->ring_pages;

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	if (tp->role == EV_TRACEPOINT) {
		a->type = PERF_TYPE_TRACEPOINT;
		a->config = (uint64_t)tp->id;
		a->sample_period = 1;
	} else {
		a->type = PERF_TYPE_SOFTWARE;
		a->config = PERF_COUNT_SW_DUMMY;
	}
	/* The same sample_id trailer on every record: one layout to parse. */
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
	a->disabled = 1;
	/* CPU-wide events see every task: nothing to inherit, no exec of ours to wait for. */
	a->inherit = !s->system_wide && !s->cpu_scope;
	a->enable_on_exec = s->has_cmd && !s->cpu_scope;
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
	a->context_switch = tp->role == EV_SWITCH;
	/*
	 * Side-band COMM/FORK/EXIT records, once, so that captures name their
	 * threads and a CPU-scope session can follow its targets.
	 */
	a->comm = a->task = a->comm_exec = tp->role == EV_SIDEBAND;
}

static int open_events(struct ipcperf_session *s)
{
	struct perf_evsel **evsels = NULL;
	int *before = NULL, *after = NULL, *known = NULL;
	size_t nr_before = 0, nr_after = 0, nr_known = 0;
	int err;

	s->cpus = perf_cpu_map__new(NULL);
	if (!s->cpus)
		return -ENOMEM;
	if (s->system_wide) {
		s->threads = perf_thread_map__new_dummy();
	} else if (s->has_cmd) {
		s->threads = perf_thread_map__new_array(1, &s->cmd.pid);
		s->owner = malloc(sizeof(pid_t));
		if (!s->owner)
			return -ENOMEM;
		s->owner[0] = s->cmd.pid;
	} else {
		pid_t *t;
		int n;

		err = collect_threads(s, &t, &s->owner, &n);
		if (err)
			return err;
		s->threads = perf_thread_map__new_array(n, t);
		free(t);
		if (!s->owner)
			return -ENOMEM;
	}
	if (!s->threads)
		return -ENOMEM;
	s->evlist = perf_evlist__new();
	s->sb_evlist = perf_evlist__new();
	evsels = calloc(s->nr_tps, sizeof(*evsels));
	if (!s->evlist || !s->sb_evlist || !evsels) {
		free(evsels);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->nr_tps; i++) {
		struct perf_event_attr attr;

		fill_attr(s, &s->tps[i], &attr);
		evsels[i] = perf_evsel__new(&attr);
		if (!evsels[i]) {
			free(evsels);
			return -ENOMEM;
		}
		perf_evlist__add(s->tps[i].role == EV_SIDEBAND ? s->sb_evlist : s->evlist,
				 evsels[i]);
	}
	if (s->cpu_scope) {
		/* The tracepoints on every CPU for any task; s->threads stays for the counters. */
		struct perf_thread_map *any_task = perf_thread_map__new_dummy();

		if (!any_task) {
			free(evsels);
			return -ENOMEM;
		}
		perf_evlist__set_maps(s->evlist, s->cpus, any_task);
		perf_evlist__set_maps(s->sb_evlist, s->cpus, any_task);
		perf_thread_map__put(any_task);
	} else {
		perf_evlist__set_maps(s->evlist, s->cpus, s->threads);
		perf_evlist__set_maps(s->sb_evlist, s->cpus, s->threads);
	}

	err = perf_fds_now(&before, &nr_before);
	if (!err)
		err = perf_fds_now(&known, &nr_known);
	if (err)
		goto out;
	/* One by one, so that a failure names its event and a missing one does not sink the rest. */
	for (size_t i = 0; i < s->nr_tps; i++) {
		struct tp *tp = &s->tps[i];

		err = perf_evsel__open(evsels[i], perf_evsel__cpus(evsels[i]),
				       perf_evsel__threads(evsels[i]));
		if (!err) {
			char *filter;

			tp->opened = true;
			tp->attr = *perf_evsel__attr(evsels[i]);
			err = tp->role == EV_TRACEPOINT ? tp_filter(s, tp, &filter) : (filter = NULL, 0);
			if (!err)
				err = note_ids(tp, &known, &nr_known, filter);
			free(filter);
			if (err)
				goto out;
			continue;
		}
		switch (-err) {
		case ENOENT:
		case ENODEV:
		case EOPNOTSUPP:
			ipp_warn("cannot open %s:%s (%s); skipped\n", tp->system, tp->name,
				 strerror(-err));
			perf_evlist__remove(tp->role == EV_SIDEBAND ? s->sb_evlist : s->evlist,
					    evsels[i]);
			perf_evsel__delete(evsels[i]);
			s->skipped++;
			err = 0;
			continue;
		case EACCES:
		case EPERM:
			/* IPCPERF_SCOPE_AUTO then tries per task, which may be allowed. */
			if (!(s->cpu_scope && s->scope == IPCPERF_SCOPE_AUTO))
				explain_perm("opening tracepoints");
			break;
		case ESRCH:
			ipp_info("a target exited before its events could be opened\n");
			break;
		case EMFILE:
		case ENFILE:
			ipp_info("out of file descriptors opening %s:%s: each event takes one fd per "
				 "CPU per thread; raise 'ulimit -n'\n", tp->system, tp->name);
			break;
		default:
			ipp_info("cannot open %s:%s: %s\n", tp->system, tp->name, strerror(-err));
		}
		goto out;
	}

	err = perf_evlist__mmap(s->evlist, (int)s->ring_pages);
	if (!err && perf_evlist__next(s->sb_evlist, NULL))
		err = perf_evlist__mmap(s->sb_evlist, (int)sideband_pages(s));
	if (err) {
		if (err == -EPERM || err == -ENOMEM) {
			int kb = 0;

			read_int_file("/proc/sys/kernel/perf_event_mlock_kb", &kb);
			ipp_info("cannot map %d rings of %u pages: over the locked-memory limit "
				 "(kernel.perf_event_mlock_kb=%d plus 'ulimit -l'); use fewer pages "
				 "or raise them\n", perf_cpu_map__nr(s->cpus), s->ring_pages, kb);
			err = -EPERM;
		} else {
			ipp_info("cannot map the rings: %s\n", strerror(-err));
		}
		goto out;
	}

	err = perf_fds_now(&after, &nr_after);
	if (err)
		goto out;
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	s->perf_fds = calloc(nr_after ? nr_after : 1, sizeof(int));
	if (s->epfd < 0 || !s->perf_fds) {
		err = s->epfd < 0 ? -errno : -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nr_after; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.fd = after[i] };

		if (in_list(before, nr_before, after[i]))
			continue;
		if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, after[i], &ev) < 0) {
			err = -errno;
			goto out;
		}
		s->perf_fds[s->nr_perf_fds++] = after[i];
	}
	s->nr_live = s->nr_perf_fds;
	if (s->cpu_scope && !s->system_wide) {
		/*
		 * CPU-wide rings never hang up when the targets exit, and wake
		 * the reader only half full: a tick makes the fd readable, so that
		 * a caller waiting on it consumes, and finds done(), in time.
		 */
		struct itimerspec its = {
			.it_interval = { .tv_nsec = TICK_NS }, .it_value = { .tv_nsec = TICK_NS },
		};
		struct epoll_event ev = { .events = EPOLLIN };

		s->tick_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		ev.data.fd = s->tick_fd;
		if (s->tick_fd < 0 || timerfd_settime(s->tick_fd, 0, &its, NULL) < 0 ||
		    epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->tick_fd, &ev) < 0) {
			err = -errno;
			goto out;
		}
	}
	if (s->want_counters) {
		/*
		 * Counting needs no ring, so a task's counters need no per-CPU
		 * instances: one "any CPU" instance per thread is enabled exactly
		 * while the task runs. Per-CPU instances would each be enabled the
		 * whole time but run only on their CPU, and scaling by
		 * enabled/running would multiply the counts by the number of CPUs.
		 * System-wide counting is per CPU by nature.
		 */
		struct perf_cpu_map *any = s->system_wide ? perf_cpu_map__get(s->cpus) :
				    ipp_cpu_map_any();

		if (!any) {
			err = -ENOMEM;
			goto out;
		}
		err = ipp_counters__open(&s->counters, any, s->threads, !s->system_wide,
					 s->has_cmd, s->counter_mask);
		perf_cpu_map__put(any);
		if (err)
			goto out;
	}
	s->nr_cpu_slots = perf_cpu_map__max(s->cpus).cpu + 1;
	s->lost_per_cpu = calloc(s->nr_cpu_slots, sizeof(uint64_t));
	s->samples_per_cpu = calloc(s->nr_cpu_slots, sizeof(uint64_t));
	for (size_t i = 0; i < s->nr_tps; i++)
		if (s->tps[i].id >= 0 && (size_t)s->tps[i].id >= s->nr_sc_tp)
			s->nr_sc_tp = (size_t)s->tps[i].id + 1;
	s->sc_tp = calloc(s->nr_sc_tp ? s->nr_sc_tp : 1, sizeof(bool));
	if (!s->lost_per_cpu || !s->samples_per_cpu || !s->sc_tp)
		err = -ENOMEM;
	for (size_t i = 0; s->sc_tp && i < s->nr_tps; i++)
		if (s->tps[i].role == EV_TRACEPOINT)
			s->sc_tp[s->tps[i].id] = strcmp(s->tps[i].system, "sched") != 0;
out:
	free(evsels);
	free(before);
	free(after);
	free(known);
	return err;
}

/*
 * Threads already inside a call when the events were enabled (a reader
 * blocked in read) will show only its exit, which carries no fd: without
 * its bytes, flows would pair every later write with the read after the
 * one that took it. /proc/PID/task/TID/syscall tells the call and its
 * arguments; the pairer then completes it at its exit.
 */
static void seed_calls_in_progress(struct ipcperf_session *s)
{
	int n = perf_thread_map__nr(s->threads);

	for (int i = 0; i < n; i++) {
		pid_t tid = perf_thread_map__pid(s->threads, i);
		pid_t pid = s->owner ? s->owner[i] : tid;
		char path[64], line[256];
		unsigned long long a[6];
		long nr;
		FILE *f;

		/* A kernel thread's syscall file reads "0 0x0 ...": no call of its own. */
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
			/* Only calls whose exit we will see: ones we trace. */
			if ((s->events & IPCPERF_EV_ALL_SYSCALLS) || (sc && (sc->set & s->events)))
				ipp_pairer__seed(s->pairer, s->start_ns, pid, tid, sc, (int)nr, args, 6);
		}
		fclose(f);
	}
}

/* The events as opened, into the capture: before any record. */
static int record_events(struct ipcperf_session *s)
{
	for (size_t i = 0; i < s->nr_tps; i++) {
		const struct tp *tp = &s->tps[i];
		int err;

		if (!tp->opened)
			continue;
		err = ipp_recorder__add_event(s->recorder, tp->system, tp->name, &tp->attr,
					      sizeof(tp->attr), tp->ids, tp->nr_ids, tp->format,
					      tp->format_len);
		if (err) {
			ipp_info("cannot describe %s:%s in the capture: %s\n", tp->system, tp->name,
				 strerror(-err));
			return err;
		}
	}
	return 0;
}

int ipcperf_session__record(struct ipcperf_session *s, const char *path)
{
	if (!s || !path || s->rd)
		return -EINVAL;
	if (s->state != S_NEW || s->recorder)
		return -EBUSY;
	s->recorder = ipp_recorder__new(path);
	return s->recorder ? 0 : -errno;
}

struct ipp_identlog *ipp_session_identlog(const struct ipcperf_session *s, bool *replay)
{
	*replay = s->rd != NULL;
	if (s->recorder)
		return ipp_recorder__log(s->recorder);
	return s->has_rec ? s->rec.log : NULL;
}

/* Now, in the clock ticks since boot that /proc/PID/stat gives process start times in. */
static uint64_t boot_ticks_now(void)
{
	struct timespec ts;
	long hz = sysconf(_SC_CLK_TCK);

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) /
	       (1000000000ull / (uint64_t)(hz > 0 ? hz : 100));
}

/*
 * The targets of a CPU-scope session, as they are once the events are on:
 * the threads of the pids (and the tids) that still exist, so that every
 * later change arrives as a fork or exit record; the command from its exec.
 */
static int follow_targets(struct ipcperf_session *s)
{
	pid_t *now = NULL, *tgid = NULL;
	int n = 0, err;

	s->follow = ipp_follow__new();
	if (!s->follow)
		return -ENOMEM;
	s->check_ns = ipp_now_ns();
	if (s->has_cmd) {
		ipp_follow__expect_exec(s->follow, s->cmd.pid);
		return 0;
	}
	ipp_follow__set_start(s->follow, boot_ticks_now());
	err = collect_threads(s, &now, &tgid, &n);
	if (err == -ESRCH)
		return 0;	/* gone already: done() says so */
	for (int i = 0; !err && i < n; i++)
		err = ipp_follow__add(s->follow, now[i], tgid[i]);
	free(now);
	free(tgid);
	return err;
}

/* Open everything; IPCPERF_SCOPE_AUTO falls back from CPU-wide to per task when not allowed. */
static int open_scoped(struct ipcperf_session *s)
{
	int err;

	if (s->recorder && !s->system_wide && s->scope == IPCPERF_SCOPE_CPU) {
		/* A capture holds the targets' records only; replays have no one to follow. */
		ipp_info("a capture is recorded per task: use scope task or auto to record\n");
		return -EINVAL;
	}
	s->cpu_scope = s->system_wide || s->scope == IPCPERF_SCOPE_CPU ||
		       (s->scope == IPCPERF_SCOPE_AUTO && !s->recorder && !s->tap);
	err = open_events(s);
	/* The fork, exec and exit records come with the side-band event: without it, no one to follow. */
	if (!err && s->cpu_scope && !s->system_wide && !perf_evlist__next(s->sb_evlist, NULL)) {
		ipp_print(s->scope == IPCPERF_SCOPE_AUTO ? IPCPERF_DEBUG : IPCPERF_INFO,
			  "cannot follow the targets CPU-wide without the side-band dummy event\n");
		err = -ENOENT;
	}
	if ((err == -EACCES || err == -EPERM || err == -ENOENT) && !s->system_wide &&
	    s->cpu_scope && s->scope == IPCPERF_SCOPE_AUTO) {
		ipp_debug("cannot trace CPU-wide (%s); tracing per task\n", strerror(-err));
		close_events(s);
		s->cpu_scope = false;
		err = open_events(s);
	}
	if (!err && s->recorder)
		err = record_events(s);
	return err;
}

int ipcperf_session__start(struct ipcperf_session *s)
{
	int err;

	if (!s)
		return -EINVAL;
	if (s->state != S_NEW)
		return -EBUSY;
	if (s->rd) {
		/* Nothing to open: records come from the file at consume(). */
		s->state = S_STARTED;
		return 0;
	}
	libperf_init_once();
	err = open_scoped(s);
	if (err) {
		close_events(s);
		return err;
	}
	s->start_ns = ipp_now_ns();
	/*
	 * Per-task events of a command (and its counters) switch on at its
	 * exec (enable_on_exec); everything else now. CPU-wide, the command's
	 * records before its exec are dropped as not yet a target's.
	 */
	if (!s->has_cmd || (s->cpu_scope && !s->system_wide)) {
		/* Side-band first: no fork goes unseen while samples already flow. */
		perf_evlist__enable(s->sb_evlist);
		perf_evlist__enable(s->evlist);
	}
	if (s->cpu_scope && !s->system_wide && (err = follow_targets(s)) < 0) {
		close_events(s);
		return err;
	}
	if (s->has_cmd) {
		err = ipp_cmd__release(&s->cmd);
		if (err) {
			ipp_info("cannot run the command: %s\n", strerror(-err));
			close_events(s);
			return err;
		}
	} else {
		ipp_counters__enable(s->counters, true);
		if (!s->system_wide)
			seed_calls_in_progress(s);
	}
	s->state = S_STARTED;
	return 0;
}

/* ------------------------------------------------------------------ reading */

/* Trailer that sample_id_all appends to non-sample records, for our sample_type. */
struct sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
	uint64_t id;
};

static void take_record(struct ipcperf_session *s, const union perf_event *ev, bool sideband)
{
	const unsigned char *p = (const unsigned char *)ev;
	size_t size = ev->header.size;
	struct sample_id sid;

	s->records++;
	if (s->tap)
		s->tap(s->tap_ctx, ev, size);
	if (s->recorder)
		ipp_recorder__write(s->recorder, ev, size);
	if (ev->header.type == PERF_RECORD_SAMPLE) {
		/* id, pid, tid, time, cpu, res, raw_size, raw */
		uint32_t pid, tid, cpu, raw_size;
		uint64_t time;

		if (size < 8 + 8 + 8 + 8 + 8 + 4)
			return;
		memcpy(&pid, p + 16, 4);
		memcpy(&tid, p + 20, 4);
		memcpy(&time, p + 24, 8);
		memcpy(&cpu, p + 32, 4);
		memcpy(&raw_size, p + 40, 4);
		if ((int)cpu < s->nr_cpu_slots && raw_size >= 2 && raw_size <= size - 44) {
			uint16_t id;

			memcpy(&id, p + 44, sizeof(id));
			if (id < s->nr_sc_tp && s->sc_tp[id])
				s->samples_per_cpu[cpu]++;
		}
		if (raw_size > size - 44)
			return;
		if (!s->include_self && (pid_t)pid == s->self)
			return;
		/* Out of memory: the record is dropped, and counted like any loss. */
		if (ipp_merge__push(s->merge, time, PERF_RECORD_SAMPLE, ev->header.misc,
				    (pid_t)pid, (pid_t)tid, (int)cpu, p + 44, raw_size) < 0) {
			s->lost++;
			if ((int)cpu < s->nr_cpu_slots)
				s->lost_per_cpu[cpu]++;
		}
		return;
	}
	if (size < sizeof(ev->header) + sizeof(sid))
		return;
	memcpy(&sid, p + size - sizeof(sid), sizeof(sid));
	switch (ev->header.type) {
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES: {
		uint64_t n;

		memcpy(&n, ev->header.type == PERF_RECORD_LOST ? p + 16 : p + 8, sizeof(n));
		s->lost += n;
		/* Forks and exits may be among them: whose a task is, /proc says from now on. */
		if (sideband && !s->sideband_lost) {
			ipp_debug("side-band records lost: whose an unknown task is, /proc says "
				  "from now on\n");
			s->sideband_lost = true;
		}
		if ((int)sid.cpu < s->nr_cpu_slots)
			s->lost_per_cpu[sid.cpu] += n;
		ipp_merge__push(s->merge, sid.time, PERF_RECORD_LOST, 0, (pid_t)sid.pid,
				(pid_t)sid.tid, (int)sid.cpu, &n, sizeof(n));
		break;
	}
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		if (!s->include_self && (pid_t)sid.pid == s->self)
			break;
		ipp_merge__push(s->merge, sid.time, PERF_RECORD_SWITCH, ev->header.misc,
				(pid_t)sid.pid, (pid_t)sid.tid, (int)sid.cpu, NULL, 0);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		/* pid, ppid, tid, ptid: who the targets are, in time order with their records */
		if (s->follow && size >= 8 + 16 + sizeof(sid))
			ipp_merge__push(s->merge, sid.time, ev->header.type, 0, (pid_t)sid.pid,
					(pid_t)sid.tid, (int)sid.cpu, p + 8, 16);
		break;
	case PERF_RECORD_COMM:
		if (s->follow && (ev->header.misc & PERF_RECORD_MISC_COMM_EXEC) &&
		    size >= 8 + 8 + sizeof(sid))
			ipp_merge__push(s->merge, sid.time, PERF_RECORD_COMM, 0, (pid_t)sid.pid,
					(pid_t)sid.tid, (int)sid.cpu, p + 8, 8);
		break;
	default:
		break;
	}
}

static int read_rings(struct ipcperf_session *s)
{
	struct perf_mmap *map;
	uint64_t before = s->records;

	for (int sb = 0; sb < 2; sb++)
		perf_evlist__for_each_mmap(sb ? s->sb_evlist : s->evlist, map, false) {
			union perf_event *ev;

			if (perf_mmap__read_init(map) < 0)
				continue;
			while ((ev = perf_mmap__read_event(map)) != NULL) {
				take_record(s, ev, sb);
				perf_mmap__consume(map);
			}
			/*
			 * No perf_mmap__read_done(): in libperf 6.1 it moves the read
			 * position to the ring's head as it is now, past records
			 * written since the last read_event(), which were then never
			 * read and never reported lost. read_event() already keeps
			 * the position, and consume() hands the space back.
			 */
		}
	/* A pass over every ring: what a capture marks as a finished round. */
	if (s->tap && s->records != before)
		s->tap(s->tap_ctx, NULL, 0);
	if (s->recorder && s->records != before)
		ipp_recorder__write(s->recorder, NULL, 0);
	return 0;
}

#define EMIT(s, member, ev)                                             \
	do {                                                            \
		for (size_t i_ = 0; i_ < (s)->nr_handlers; i_++)        \
			if ((s)->handlers[i_].member)                   \
				(s)->handlers[i_].member((s)->handlers[i_].ctx, (ev)); \
	} while (0)

/* @return 1 when an event went to the handlers, else 0. */
static int dispatch_sample(struct ipcperf_session *s, const struct ipp_mrec *r)
{
	struct ipp_rec rec;
	struct ipcperf_syscall sc;

	if (ipp_decoder__decode(s->dec, r->data, r->size, &rec) < 0)
		return 0;
	switch (rec.kind) {
	case IPP_REC_SYS_ENTER:
		ipp_pairer__enter(s->pairer, r->time, r->pid, r->tid, rec.enter.sc, rec.enter.nr,
				  rec.enter.args, rec.enter.nr_args);
		return 0;
	case IPP_REC_SYS_EXIT:
		if (!ipp_pairer__exit(s->pairer, r->time, r->pid, r->tid, r->cpu, rec.exit.nr,
				      rec.exit.ret, &sc))
			return 0;
		if (rec.exit.sc && rec.exit.sc->fd_op == IPP_FDOP_FCNTL &&
		    (sc.args[1] == F_DUPFD || sc.args[1] == F_DUPFD_CLOEXEC))
			sc.cls = IPCPERF_SC_FD_NEW;
		s->syscalls++;
		EMIT(s, syscall, &sc);
		break;
	case IPP_REC_SWITCH: {
		struct ipcperf_switch ev = {
			.time_ns = r->time, .pid = r->pid, .tid = rec.sw.prev_tid, .cpu = r->cpu,
			/* 0 (R) or the preempted marker above the state bits (R+): runnable */
			.preempted = (rec.sw.prev_state & 0xff) == 0,
			.prev_state = rec.sw.prev_state, .next_tid = rec.sw.next_tid,
		};
		memcpy(ev.prev_comm, rec.sw.prev_comm, sizeof(ev.prev_comm));
		memcpy(ev.next_comm, rec.sw.next_comm, sizeof(ev.next_comm));
		EMIT(s, sched_switch, &ev);
		break;
	}
	case IPP_REC_WAKEUP: {
		struct ipcperf_wakeup ev = {
			.time_ns = r->time, .waker_pid = r->pid, .waker_tid = r->tid,
			.tid = rec.wake.tid, .target_cpu = rec.wake.target_cpu,
		};
		memcpy(ev.comm, rec.wake.comm, sizeof(ev.comm));
		EMIT(s, wakeup, &ev);
		break;
	}
	case IPP_REC_FORK: {
		struct ipcperf_task ev = {
			.kind = IPCPERF_TASK_FORK, .time_ns = r->time, .pid = r->pid,
			.tid = rec.fork.parent_tid, .child_tid = rec.fork.child_tid,
			.comm = rec.fork.child_comm,
		};
		EMIT(s, task, &ev);
		break;
	}
	case IPP_REC_EXEC: {
		struct ipcperf_task ev = {
			.kind = IPCPERF_TASK_EXEC, .time_ns = r->time, .pid = r->pid,
			.tid = rec.exec.tid, .filename = rec.exec.filename,
		};
		EMIT(s, task, &ev);
		break;
	}
	case IPP_REC_EXIT: {
		struct ipcperf_task ev = {
			.kind = IPCPERF_TASK_EXIT, .time_ns = r->time, .pid = r->pid,
			.tid = rec.pexit.tid, .comm = rec.pexit.comm,
		};
		ipp_pairer__thread_exit(s->pairer, rec.pexit.tid);
		EMIT(s, task, &ev);
		break;
	}
	default:
		return 0;
	}
	return 1;
}

/* A fork, exit or exec record of any task: keep the targets of a CPU-scope session. */
static void follow_record(struct ipcperf_session *s, const struct ipp_mrec *r)
{
	uint32_t v[4];

	memcpy(v, r->data, r->size < sizeof(v) ? r->size : sizeof(v));
	switch (r->type) {
	case PERF_RECORD_FORK:	/* pid, ppid, tid, ptid */
		if (ipp_follow__fork(s->follow, (pid_t)v[3], (pid_t)v[2], (pid_t)v[0]) < 0)
			ipp_warn("out of memory following the targets: a new task is not traced\n");
		break;
	case PERF_RECORD_EXIT:
		ipp_follow__exit(s->follow, (pid_t)v[2]);
		break;
	default:		/* COMM with the exec flag: pid, tid */
		if (ipp_follow__exec(s->follow, (pid_t)v[0], (pid_t)v[1]) < 0)
			ipp_warn("out of memory following the targets: an exec'd task is not traced\n");
		break;
	}
}

/*
 * A CPU-scope record of a task that is not a target, as far as the side-band
 * records tell: another task's (foreign), unless side-band records were lost,
 * when /proc says whose it is. A record nobody can place any more is counted
 * with the lost ones: it may have been a target's.
 * @return true when the record is a target's after all.
 */
static bool untracked_task(struct ipcperf_session *s, const struct ipp_mrec *r)
{
	int whose = IPP_FOLLOW_OTHER;

	if (s->sideband_lost)
		whose = ipp_follow__resolve(s->follow, r->tid, s->has_cmd && s->cmd.started);
	if (whose == IPP_FOLLOW_TARGET)
		return true;
	if (whose == IPP_FOLLOW_OTHER)
		s->foreign++;
	else
		s->unattributed++;
	return false;
}

/* Tell the lost handlers of the records untracked_task() could not place. */
static int report_unattributed(struct ipcperf_session *s)
{
	struct ipcperf_lost ev = { .cpu = -1, .lost = s->unattributed - s->unattr_told };

	if (!ev.lost)
		return 0;
	s->unattr_told = s->unattributed;
	ev.total = s->lost + s->unattributed;
	EMIT(s, lost, &ev);
	return 1;
}

/* Deliver merged records up to @horizon. @return events handed to handlers. */
static int deliver(struct ipcperf_session *s, uint64_t horizon)
{
	const struct ipp_mrec *r;
	int n = 0;

	while ((r = ipp_merge__pop(s->merge, horizon)) != NULL) {
		switch (r->type) {
		case PERF_RECORD_SAMPLE:
			if (s->follow && !ipp_follow__has(s->follow, r->tid) && !untracked_task(s, r))
				break;
			n += dispatch_sample(s, r);
			break;
		case PERF_RECORD_FORK:
		case PERF_RECORD_EXIT:
		case PERF_RECORD_COMM:
			follow_record(s, r);
			break;
		case PERF_RECORD_SWITCH:
			if (s->follow && !ipp_follow__has(s->follow, r->tid) && !untracked_task(s, r))
				break;
			ipp_pairer__switch(s->pairer, r->time, r->tid,
					   r->misc & PERF_RECORD_MISC_SWITCH_OUT,
					   r->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
			break;
		case PERF_RECORD_LOST: {
			struct ipcperf_lost ev = { .cpu = r->cpu, .total = s->lost + s->unattributed };

			memcpy(&ev.lost, r->data, sizeof(ev.lost));
			EMIT(s, lost, &ev);
			n++;
			break;
		}
		default:
			break;
		}
	}
	if (s->follow)
		n += report_unattributed(s);
	return n;
}

/* Note rings whose targets all exited: they stop counting towards done(). */
static void reap_hangups(struct ipcperf_session *s, const struct epoll_event *evs, int n)
{
	for (int i = 0; i < n; i++)
		if (evs[i].events & (EPOLLHUP | EPOLLERR)) {
			epoll_ctl(s->epfd, EPOLL_CTL_DEL, evs[i].data.fd, NULL);
			if (s->nr_live)
				s->nr_live--;
		}
}

static int check_hangups(struct ipcperf_session *s)
{
	struct epoll_event evs[64];
	int n;

	do {
		n = epoll_wait(s->epfd, evs, 64, 0);
		if (n < 0)
			return errno == EINTR ? 0 : -errno;
		reap_hangups(s, evs, n);
	} while (n == 64);
	return 0;
}

/* ------------------------------------------------------------------ replay */

bool ipp_session_is_replay(const struct ipcperf_session *s)
{
	return s && s->rd;
}

/* Room for per-CPU counts of @cpu. @return false when out of memory. */
static bool cpu_slot(struct ipcperf_session *s, uint32_t cpu)
{
	uint64_t *l, *n;
	int nr;

	if (cpu < (uint32_t)s->nr_cpu_slots)
		return true;
	if (cpu > 1u << 20)
		return false;
	nr = (int)cpu + 1;
	l = realloc(s->lost_per_cpu, nr * sizeof(*l));
	if (l)
		s->lost_per_cpu = l;
	n = realloc(s->samples_per_cpu, nr * sizeof(*n));
	if (n)
		s->samples_per_cpu = n;
	if (!l || !n)
		return false;
	memset(l + s->nr_cpu_slots, 0, (nr - s->nr_cpu_slots) * sizeof(*l));
	memset(n + s->nr_cpu_slots, 0, (nr - s->nr_cpu_slots) * sizeof(*n));
	s->nr_cpu_slots = nr;
	return true;
}

static void note_time(struct ipcperf_session *s, uint64_t t)
{
	if (!s->first_ns || t < s->first_ns)
		s->first_ns = t;
	if (t > s->last_ns)
		s->last_ns = t;
	if (t > s->round_max)
		s->round_max = t;
}

/*
 * One record of the capture into the merge, as take_record() does for a ring
 * record. Samples and the other kernel records carry their own id, time, cpu.
 * @return 0, or -ENOMEM.
 */
static int take_file_record(struct ipcperf_session *s, const struct ipp_pd_rec *rec)
{
	struct ipp_pd_sample smp;
	int err;

	if (rec->type >= IPP_PD_RECORD_USER_TYPE_START)
		return 0;	/* perf's own records (FINISHED_ROUND handled by the caller) */
	s->records++;
	err = ipp_pd_reader__parse(s->rd, rec, &smp);
	if (err < 0)
		return 0;	/* no sample_id_all, unknown id, or too short: nothing to place in time */
	if (!(smp.sample_type & PERF_SAMPLE_TIME))
		return 0;
	if (smp.sample_type & PERF_SAMPLE_CPU && smp.cpu >= (uint32_t)s->nr_cpu_slots &&
	    !cpu_slot(s, smp.cpu))
		return -ENOMEM;
	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		if (!smp.raw || smp.raw_size < 2)
			return 0;
		if (!s->include_self && s->self > 0 && (pid_t)smp.pid == s->self)
			return 0;
		note_time(s, smp.time);
		if (smp.sample_type & PERF_SAMPLE_CPU)
			s->samples_per_cpu[smp.cpu]++;
		return ipp_merge__push(s->merge, smp.time, PERF_RECORD_SAMPLE, rec->misc,
				       (pid_t)smp.pid, (pid_t)smp.tid, (int)smp.cpu, smp.raw,
				       smp.raw_size);
	case PERF_RECORD_LOST: {
		uint64_t n;

		if (rec->size < 24)
			return 0;
		memcpy(&n, (const unsigned char *)rec->data + 16, sizeof(n));
		s->lost += n;
		if (smp.sample_type & PERF_SAMPLE_CPU)
			s->lost_per_cpu[smp.cpu] += n;
		note_time(s, smp.time);
		return ipp_merge__push(s->merge, smp.time, PERF_RECORD_LOST, 0, (pid_t)smp.pid,
				       (pid_t)smp.tid, (int)smp.cpu, &n, sizeof(n));
	}
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		if (!s->include_self && s->self > 0 && (pid_t)smp.pid == s->self)
			return 0;
		note_time(s, smp.time);
		return ipp_merge__push(s->merge, smp.time, PERF_RECORD_SWITCH, rec->misc,
				       (pid_t)smp.pid, (pid_t)smp.tid, (int)smp.cpu, NULL, 0);
	default:
		return 0;
	}
}

/* Losses the recorder found only at its stop (count_unreported_loss), after every record. */
static int replay_end_losses(struct ipcperf_session *s)
{
	int n = 0;

	if (!s->has_rec || s->rec_lost_done)
		return 0;
	s->rec_lost_done = true;
	for (size_t i = 0; i < s->rec.nr_lost; i++) {
		struct ipcperf_lost ev = { .cpu = (int)s->rec.lost[i].cpu, .lost = s->rec.lost[i].lost };

		if (!cpu_slot(s, s->rec.lost[i].cpu))
			continue;
		s->lost += ev.lost;
		s->lost_per_cpu[ev.cpu] += ev.lost;
		ev.total = s->lost;
		EMIT(s, lost, &ev);
		n++;
	}
	return n;
}

/* Records read per consume() when the capture has no rounds: keeps each call short. */
#define REPLAY_BATCH 65536

/*
 * Read the capture up to the end of a round (or a batch), and deliver what is
 * surely in order: perf's rule, everything up to the latest time read before
 * the previous FINISHED_ROUND. At the end of the file, everything.
 */
static int consume_file(struct ipcperf_session *s)
{
	struct ipp_pd_rec rec;
	int n = 0, err = 0;

	for (int i = 0; i < REPLAY_BATCH && !s->eof; i++) {
		err = ipp_pd_reader__next(s->rd, &rec);
		if (err <= 0) {
			if (err == 0)
				s->eof = true;
			break;
		}
		if (rec.type == IPP_PD_RECORD_FINISHED_ROUND) {
			n += deliver(s, s->prev_round_max);
			s->prev_round_max = s->round_max;
			break;
		}
		err = take_file_record(s, &rec);
		if (err < 0)
			break;
	}
	if (err < 0)
		return err;
	if (s->eof) {
		n += deliver(s, UINT64_MAX);
		n += replay_end_losses(s);
	}
	return n;
}

/* Tracepoint formats of the capture into the decoder: those it does not know are left out. */
static void load_file_formats(struct ipcperf_session *s)
{
	size_t n = ipp_pd_reader__nr_formats(s->rd);

	for (size_t i = 0; i < n; i++) {
		const struct ipp_pd_format *f = ipp_pd_reader__format(s->rd, i);

		ipp_decoder__add_format(s->dec, f->system, f->name, f->text, f->len);
	}
}

struct ipcperf_session *ipcperf_session__open_file(const char *path,
						   const struct ipcperf_file_opts *opts)
{
	const struct ipp_pd_info *info;
	struct ipcperf_session *s;
	int err;

	if (!path || (opts && (opts->sz < sizeof(size_t) ||
			       !ipp_opts_valid(opts, opts->sz, sizeof(*opts))))) {
		ipp_info("invalid options: %s\n", path ? "bad sz; set it with IPCPERF_OPTS()" :
			 "no file");
		errno = EINVAL;
		return NULL;
	}
	s = session_alloc();
	if (!s)
		return NULL;
	s->self = -1;
	s->include_self = true;
	s->rd = ipp_pd_reader__new();
	if (!s->rd) {
		err = -ENOMEM;
		goto fail;
	}
	/* The reader explains its errors (with the offset) and warns of a partial capture. */
	err = ipp_pd_reader__open(s->rd, path);
	if (err)
		goto fail;
	info = ipp_pd_reader__info(s->rd);
	if (IPP_OPTS_HAS(opts, refuse_partial) && opts->refuse_partial && info->partial) {
		ipp_info("%s: partial capture refused\n", path);
		err = -EPROTO;
		goto fail;
	}
	if (!info->has_tracing_data || !ipp_pd_reader__nr_formats(s->rd))
		ipp_warn("%s: the capture holds no tracepoint formats: its samples cannot be "
			 "decoded\n", path);
	load_file_formats(s);
	{
		uint32_t version;
		const void *blob;
		size_t len;

		if (ipp_pd_reader__blob(s->rd, &version, &blob, &len) < 0) {
			if (!info->partial)
				ipp_warn("%s: no ipcperf section (not written by ipcperf): per-fd ops, "
					 "bytes and latencies and the syscalls are exact, but fd objects "
					 "and kinds are unknown, there are no counters, and flows cannot "
					 "name their channels\n", path);
		} else {
			if (version != IPP_REC_BLOB_VERSION) {
				ipp_warn("%s: ipcperf section of version %u, this ipcperf reads %u: "
					 "left out (fd identities unknown)\n", path, version,
					 IPP_REC_BLOB_VERSION);
			} else if ((err = ipp_rec_data__parse(&s->rec, blob, len)) < 0) {
				if (err == -ENOMEM)
					goto fail;
				ipp_warn("%s: the ipcperf section is malformed: left out (fd "
					 "identities unknown)\n", path);
			} else {
				s->has_rec = true;
				if (s->rec.has_session) {
					s->self = s->rec.ss.self;
					s->include_self = s->rec.ss.include_self;
				}
			}
		}
	}
	return s;
fail:
	ipcperf_session__delete(s);
	errno = -err;
	return NULL;
}

bool ipcperf_session__partial(const struct ipcperf_session *s)
{
	return s && s->rd && ipp_pd_reader__info(s->rd)->partial;
}

/* The command exited: waitid() says so, whatever records went missing. It stays waitable. */
static bool cmd_exited(struct ipcperf_session *s)
{
	siginfo_t si = { 0 };

	if (!s->cmd_exited && s->has_cmd && s->cmd.started &&
	    (s->cmd.reaped ||
	     (waitid(P_PID, (id_t)s->cmd.pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid)))
		s->cmd_exited = true;
	return s->cmd_exited;
}

/*
 * The end of a CPU-scope run must not hang on an exit record that was lost
 * (the kernel reports a ring's losses only with its next record, and may
 * never): once a second, and as soon as the command exits, the targets are
 * compared with /proc; a task found gone stops being one once every record
 * stamped before it was seen gone has been delivered. After lost side-band
 * records, targets' threads and children the set lacks are looked for too.
 */
static void check_targets(struct ipcperf_session *s, uint64_t pass, uint64_t horizon)
{
	bool cmd_now = !s->cmd_exited && cmd_exited(s);

	ipp_follow__expire(s->follow, horizon);
	if (ipp_follow__done(s->follow) || (!cmd_now && pass - s->check_ns < CHECK_NS))
		return;
	/* Stamped with when /proc is read, not @pass: a task may exit in between. */
	s->check_ns = ipp_now_ns();
	if (ipp_follow__check(s->follow, s->check_ns, s->sideband_lost,
			      s->has_cmd && s->cmd.started) > 0)
		ipp_debug("targets checked against /proc\n");
}

int ipcperf_session__consume(struct ipcperf_session *s)
{
	uint64_t pass, horizon;
	int err;

	if (!s)
		return -EINVAL;
	if (s->state != S_STARTED)
		return s->state == S_STOPPED ? 0 : -EINVAL;
	if (s->rd)
		return consume_file(s);
	pass = ipp_now_ns();
	if (s->tick_fd >= 0) {
		uint64_t ticks;

		if (read(s->tick_fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
			return -errno;
	}
	err = check_hangups(s);
	if (err)
		return err;
	read_rings(s);
	horizon = pass > MERGE_SLACK_NS ? pass - MERGE_SLACK_NS : 0;
	err = deliver(s, horizon);
	if (s->follow)
		check_targets(s, pass, horizon);
	return err;
}

int ipcperf_session__poll(struct ipcperf_session *s, int timeout_ms)
{
	struct epoll_event evs[64];
	int n;

	if (!s)
		return -EINVAL;
	if (s->state != S_STARTED)
		return s->state == S_STOPPED ? 0 : -EINVAL;
	if (s->rd)
		return consume_file(s);
	n = epoll_wait(s->epfd, evs, 64, timeout_ms);
	if (n < 0)
		return -errno;
	reap_hangups(s, evs, n);
	return ipcperf_session__consume(s);
}

int ipcperf_session__fd(const struct ipcperf_session *s)
{
	if (!s || s->epfd < 0)
		return -EINVAL;
	return s->epfd;
}

bool ipcperf_session__done(const struct ipcperf_session *s)
{
	if (s && s->rd)
		return s->state != S_NEW && s->eof;
	if (s && s->follow)
		return s->state != S_NEW && ipp_follow__done(s->follow);
	return s && s->state != S_NEW && !s->system_wide && s->nr_live == 0;
}

/*
 * The kernel reports a ring's losses with a LOST record written by the next
 * record that fits; losses at the very end of a run never get one. A
 * syscall tracepoint's count is how often it fired in the task, kept or not,
 * so syscall records lost on a CPU are those that fired there minus those we
 * received; beyond what LOST records said, that is loss nobody reported.
 * (sched_wakeup also counts wakeups it has no record for: left out.)
 * @return 1 when a lost event was delivered for a newly found loss.
 */
static int count_unreported_loss(struct ipcperf_session *s)
{
	struct perf_evsel *evsel;
	int delivered = 0;

	for (int c = 0; c < s->nr_cpu_slots; c++) {
		uint64_t fired = 0, extra;
		int idx = -1;

		for (int i = 0; i < perf_cpu_map__nr(s->cpus); i++)
			if (perf_cpu_map__cpu(s->cpus, i).cpu == c)
				idx = i;
		if (idx < 0)
			continue;
		perf_evlist__for_each_evsel(s->evlist, evsel) {
			int nt = perf_thread_map__nr(perf_evsel__threads(evsel));
			uint64_t id = perf_evsel__attr(evsel)->config;

			if (perf_evsel__attr(evsel)->type != PERF_TYPE_TRACEPOINT ||
			    id >= s->nr_sc_tp || !s->sc_tp[id])
				continue;
			for (int t = 0; t < nt; t++) {
				struct perf_counts_values v = { 0 };

				if (perf_evsel__read(evsel, idx, t, &v) == 0)
					fired += v.val;
			}
		}
		if (fired <= s->samples_per_cpu[c] + s->lost_per_cpu[c])
			continue;
		extra = fired - s->samples_per_cpu[c] - s->lost_per_cpu[c];
		s->lost += extra;
		s->lost_per_cpu[c] += extra;
		if (s->recorder)
			ipp_recorder__lost(s->recorder, c, extra);
		{
			struct ipcperf_lost ev = { .cpu = c, .lost = extra,
						   .total = s->lost + s->unattributed };

			EMIT(s, lost, &ev);
			delivered = 1;
		}
	}
	return delivered;
}

static void record_counters(struct ipcperf_session *s, pid_t pid)
{
	struct ipcperf_counter_value v[IPCPERF_CNT__MAX];

	if (ipcperf_session__read_counters(s, pid, v) == 0)
		ipp_recorder__counters(s->recorder, pid, v);
}

/* Counts, counters and the end of the file: what a replay needs besides the records. */
static int finish_recording(struct ipcperf_session *s)
{
	struct ipp_rec_session ss = {
		.start_ns = s->start_ns, .stop_ns = s->stop_ns, .lost = s->lost,
		.records = s->records, .self = s->self, .cmd_pid = s->has_cmd ? s->cmd.pid : -1,
		.include_self = s->include_self,
		.rings = s->cpus ? (unsigned int)perf_cpu_map__nr(s->cpus) : 0,
		.skipped = s->skipped,
	};
	struct ipp_recorder *r = s->recorder;

	if (s->counters) {
		record_counters(s, 0);
		if (s->has_cmd)
			record_counters(s, s->cmd.pid);
		for (size_t i = 0; i < s->nr_targets; i++)
			if (!s->has_cmd || s->targets[i] != s->cmd.pid)
				record_counters(s, s->targets[i]);
	}
	s->recorder = NULL;
	return ipp_recorder__finish(r, &ss);	/* which explains a failure */
}

int ipcperf_session__stop(struct ipcperf_session *s)
{
	int n;

	if (!s)
		return -EINVAL;
	if (s->state != S_STARTED)
		return 0;
	if (s->rd) {
		/* What was read is delivered; the rest of the file is left unread. */
		n = deliver(s, UINT64_MAX);
		ipp_pairer__flush(s->pairer);
		s->start_ns = s->first_ns;
		s->stop_ns = s->last_ns;
		s->state = S_STOPPED;
		return n;
	}
	perf_evlist__disable(s->evlist);
	perf_evlist__disable(s->sb_evlist);
	ipp_counters__enable(s->counters, false);
	/* Everything already in the rings is read and delivered, in order. */
	read_rings(s);
	n = deliver(s, UINT64_MAX);
	n += count_unreported_loss(s);
	ipp_pairer__flush(s->pairer);
	s->stop_ns = ipp_now_ns();
	s->state = S_STOPPED;
	if (s->recorder) {
		int err = finish_recording(s);

		if (err)
			return err;
	}
	return n;
}

pid_t ipcperf_session__child_pid(const struct ipcperf_session *s)
{
	if (s && s->has_rec && s->rec.has_session)
		return s->rec.ss.cmd_pid > 0 ? s->rec.ss.cmd_pid : -1;
	return s && s->has_cmd ? s->cmd.pid : -1;
}

int ipcperf_session__wait_child(struct ipcperf_session *s, int *status)
{
	if (!s || !s->has_cmd)
		return -ECHILD;
	return ipp_cmd__wait(&s->cmd, status);
}

int ipcperf_session__stats(const struct ipcperf_session *s, struct ipcperf_session_stats *st)
{
	struct ipcperf_session_stats v = { .sz = sizeof(v) };

	if (!s || !st || st->sz < sizeof(size_t))
		return -EINVAL;
	v.records = s->records;
	v.lost = s->lost + s->unattributed;
	v.unattributed = s->unattributed;
	v.unpaired_enter = ipp_pairer__unpaired_enter(s->pairer);
	v.unpaired_exit = ipp_pairer__unpaired_exit(s->pairer);
	v.syscalls = s->syscalls;
	v.start_ns = s->rd && s->state != S_STOPPED ? s->first_ns : s->start_ns;
	v.stop_ns = s->stop_ns;
	v.rings = s->cpus ? (unsigned int)perf_cpu_map__nr(s->cpus) : 0;
	if (s->rd)
		v.rings = ipp_pd_reader__info(s->rd)->nr_cpus_online;
	if (s->has_rec && s->rec.has_session && (s->state == S_STOPPED || s->eof)) {
		/* What the live session said, so that a report gives the live numbers. */
		v.records = s->rec.ss.records;
		v.start_ns = s->rec.ss.start_ns;
		v.stop_ns = s->rec.ss.stop_ns;
		v.rings = s->rec.ss.rings;
		v.skipped_events = s->rec.ss.skipped;
	}
	v.skipped_events = s->skipped;
	if (s->state != S_NEW && !s->rd)
		v.scope = s->cpu_scope ? IPCPERF_SCOPE_CPU : IPCPERF_SCOPE_TASK;
	v.foreign = s->foreign;
	memcpy((char *)st + sizeof(size_t), (char *)&v + sizeof(size_t),
	       (st->sz < sizeof(v) ? st->sz : sizeof(v)) - sizeof(size_t));
	return 0;
}

uint64_t ipcperf_session__lost_on_cpu(const struct ipcperf_session *s, int cpu)
{
	if (!s || cpu < 0 || cpu >= s->nr_cpu_slots)
		return 0;
	return s->lost_per_cpu[cpu];
}

int ipcperf_session__read_counters(const struct ipcperf_session *s, pid_t pid,
				   struct ipcperf_counter_value *vals)
{
	bool *use = NULL;
	int n, err;

	if (!s || !vals || pid < 0)
		return -EINVAL;
	if (s->rd) {
		for (size_t i = 0; s->has_rec && i < s->rec.nr_cnt; i++)
			if (s->rec.cnt[i].pid == pid) {
				memcpy(vals, s->rec.cnt[i].v, sizeof(s->rec.cnt[i].v));
				return 0;
			}
		return s->has_rec && s->rec.nr_cnt ? -ESRCH : -ENODATA;
	}
	if (!s->counters)
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
	err = ipp_counters__read(s->counters, use, vals);
	free(use);
	return err;
}

int ipcperf_session__set_tap(struct ipcperf_session *s,
			     void (*tap)(void *ctx, const void *rec, size_t size), void *ctx)
{
	if (!s)
		return -EINVAL;
	if (s->state != S_NEW)
		return -EBUSY;
	s->tap = tap;
	s->tap_ctx = ctx;
	return 0;
}

int ipcperf_session__for_each_event(const struct ipcperf_session *s,
				    int (*cb)(void *ctx, const struct ipcperf_event_desc *d),
				    void *ctx)
{
	if (!s || !cb)
		return -EINVAL;
	if (s->state == S_NEW)
		return -EINVAL;
	for (size_t i = 0; s->rd && i < ipp_pd_reader__nr_events(s->rd); i++) {
		const struct ipp_pd_event *e = ipp_pd_reader__event(s->rd, i);
		struct ipcperf_event_desc d = {
			.system = e->format ? e->format->system : NULL,
			.name = e->format ? e->format->name : e->name,
			.id = e->format ? e->format->id : -1,
			.attr = &e->attr, .attr_size = sizeof(e->attr),
			.ids = e->ids, .nr_ids = e->nr_ids,
			.format = e->format ? e->format->text : NULL,
			.format_len = e->format ? e->format->len : 0,
		};
		int ret = cb(ctx, &d);

		if (ret)
			return ret;
	}
	for (size_t i = 0; i < s->nr_tps; i++) {
		const struct tp *tp = &s->tps[i];
		struct ipcperf_event_desc d = {
			.system = tp->system, .name = tp->name, .id = tp->id,
			.attr = &tp->attr, .attr_size = sizeof(tp->attr),
			.ids = tp->ids, .nr_ids = tp->nr_ids,
			.format = tp->format, .format_len = tp->format_len,
		};
		int ret;

		if (!tp->opened)
			continue;
		ret = cb(ctx, &d);
		if (ret)
			return ret;
	}
	return 0;
}
