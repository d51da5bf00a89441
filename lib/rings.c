/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The live source (source.h): the targets (pids, tids, a command started
 * corked, or the whole system), the events of formats.c opened on them
 * through libperf, their per-CPU rings read into the pipeline, and what
 * only a live session knows: when the targets are all gone, the losses no
 * LOST record reported, the counters, and a capture being written.
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
#include "fdid-bpf.h"
#include "formats.h"
#include "record.h"
#include "source.h"

#define MAX_RING_PAGES (1u << 16)
/*
 * Records are delivered only once they are this much older than the start
 * of the pass that read the rings: a record stamped earlier has surely been
 * committed to its ring by then (the gap between stamping and committing is
 * microseconds, but a VM's vCPU can be held up by its host for milliseconds).
 */
#define MERGE_SLACK_NS (20 * IPP_NS_PER_MS)
/* How often the fd of a CPU-scope session becomes readable without data. */
#define TICK_NS (50 * IPP_NS_PER_MS)
/* How often a CPU-scope session checks its targets against /proc. */
#define CHECK_NS IPP_NS_PER_SEC
/*
 * How long one pass over the rings (reading, and delivering what was read)
 * may take before it returns, leaving the rest for the next pass: a busy
 * target must not keep its tracer from its clock (-d) and its signals.
 */
#define PASS_NS (50 * IPP_NS_PER_MS)
/* Records taken from a ring before the next ring's turn and a look at the clock. */
#define RING_CHUNK 64
/* How long the stop may spend on what is left in the rings; the rest is counted lost. */
#define DRAIN_NS (400 * IPP_NS_PER_MS)
/* epoll events taken per call. */
#define EPOLL_BATCH 64

/* The counters the kernel's own accounting of a task also gives. */
#define IPP_SW_COUNTERS                                                                \
	(IPCPERF_CNT_BIT(IPCPERF_CNT_TASK_CLOCK) | IPCPERF_CNT_BIT(IPCPERF_CNT_PAGE_FAULTS) | \
	 IPCPERF_CNT_BIT(IPCPERF_CNT_CONTEXT_SWITCHES) | IPCPERF_CNT_BIT(IPCPERF_CNT_CPU_MIGRATIONS))

struct ipp_rings {
	struct ipp_source base;
	/* targets */
	pid_t *pids;
	size_t nr_pids;
	pid_t *tids;
	size_t nr_tids;
	bool system_wide;
	struct ipp_cmd cmd;
	bool has_cmd;
	pid_t *targets;		/* target processes: pids, tgids of tids, the command */
	size_t nr_targets;
	pid_t *owner;		/* tgid of each entry of the thread map */
	/* how */
	unsigned int ring_pages;
	bool want_counters;
	unsigned int counter_mask;	/* IPCPERF_CNT_BIT()s of the counters to open */
	unsigned int scope;	/* as asked (enum ipcperf_scope) */
	bool cpu_scope;		/* events CPU-wide, targets followed by the pipeline's follow */
	struct ipp_open_mode mode;
	struct ipp_evset es;
	/* libperf */
	struct perf_evlist *evlist;	/* tracepoints and the switch event: the sample rings */
	struct perf_evlist *sb_evlist;	/* the side-band event and its rings */
	struct perf_cpu_map *cpus;
	struct perf_thread_map *threads;
	struct ipp_counters *counters;
	int *ring_fds;		/* by CPU index: an fd of that CPU's sample ring */
	/* The kernel's fd identity (lib/bpf): NULL when it could not be had or no_bpf. */
	struct ipp_bpf *bpf;
	bool no_bpf;
	/*
	 * Syscalls paired in the kernel (call records into the sample rings)
	 * in place of their sys_enter/sys_exit samples, which are then not
	 * opened; and the switch records too, when the calls carry their time
	 * off CPU. pair_failed: it was tried and could not be had.
	 */
	bool paired;
	bool paired_switches;
	bool pair_failed;
	/* ... and the threads' switches and wakeups counted there (IPCPERF_EV_SCHED_TOTALS) */
	bool sched_counted;
	/*
	 * ... and the software counters taken from what the kernel accounts
	 * to each counted thread, not from per-task events (see task_acct_ok());
	 * acct_final: the threads alive at the stop are in the sums.
	 */
	bool task_acct;
	bool acct_final;
	bool syscall_samples;	/* asked for the samples (ipcperf_session_opts) */
	int epfd;
	int tick_fd;		/* CPU scope: makes epfd readable now and then (no ring hangs up) */
	size_t nr_live;		/* ring fds not hung up */
	/* CPU scope */
	uint64_t check_ns;	/* when the targets were last checked against /proc */
	bool cmd_exited;	/* the command exited (waitid), whatever the records say */
	/* the run */
	uint64_t start_ns, stop_ns;
	void (*tap)(void *ctx, const void *rec, size_t size);
	void *tap_ctx;
	struct ipp_recorder *recorder;
};

static struct ipp_rings *rings_of(struct ipp_source *src)
{
	return (struct ipp_rings *)src;
}

static const struct ipp_rings *crings_of(const struct ipp_source *src)
{
	return (const struct ipp_rings *)src;
}

static int libperf_print(enum libperf_print_level level, const char *fmt, va_list ap)
{
	ipp_vprint(IPCPERF_DEBUG, fmt, ap);
	return 0;
}

static void libperf_init_once(void)
{
	static bool done;

	if (!done) {
		libperf_init(libperf_print);
		done = true;
	}
}

/* The "any CPU" map: libperf 6.12 renamed its constructor (same soname). */
static struct perf_cpu_map *cpu_map_any(void)
{
#ifdef HAVE_PERF_CPU_MAP__NEW_ANY_CPU
	return perf_cpu_map__new_any_cpu();
#else
	return perf_cpu_map__dummy_new();
#endif
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

static int check_targets_given(const struct ipcperf_session_opts *o)
{
	int kinds = (o->nr_pids || o->nr_tids) + !!o->system_wide + !!o->argv;

	if (kinds != 1) {
		ipp_info("invalid options: %s\n", kinds ? "give only one kind of target "
			 "(pids/tids, argv, or system_wide)" :
			 "no target (give pids, tids, argv or system_wide)");
		return -EINVAL;
	}
	if (o->argv && !o->argv[0]) {
		ipp_info("invalid options: argv is empty\n");
		return -EINVAL;
	}
	return 0;
}

static int validate(const struct ipcperf_session_opts *o, struct ipcperf_session_opts *out)
{
	int err;

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
	    (err = check_pids(out->tids, out->nr_tids, "tids")) ||
	    (err = check_targets_given(out)))
		return err;
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

/* ------------------------------------------------------------------ targets */

/* The threads of pid or tid @id, into *@t (NULL for a tid: itself). @return how many, or -errno. */
static int threads_of(pid_t id, bool is_pid, pid_t **t)
{
	int k;

	*t = NULL;
	if (is_pid) {
		k = ipp_list_threads(id, t);
		if (k == -ESRCH)
			ipp_info("no such process: %d\n", (int)id);
	} else {
		k = kill(id, 0) < 0 && errno == ESRCH ? -ESRCH : 1;
		if (k == -ESRCH)
			ipp_info("no such thread: %d\n", (int)id);
	}
	if (k > 0 && ipp_all_exited(id, *t, k)) {
		ipp_info("%s %d is a zombie (exited, not reaped): nothing to trace\n",
			 is_pid ? "pid" : "tid", (int)id);
		free(*t);
		*t = NULL;
		k = -ESRCH;
	}
	return k;
}

/*
 * Every thread of the pids and the tids: @out, and with @owners the tgid of
 * each, read once per pid or tid given.
 */
static int collect_threads(const struct ipp_rings *s, pid_t **out, pid_t **owners, int *nr)
{
	pid_t *all = NULL, *own = NULL;
	size_t n = 0, cap_all = 0, cap_own = 0;
	int err = 0;

	for (size_t i = 0; !err && i < s->nr_pids + s->nr_tids; i++) {
		bool is_pid = i < s->nr_pids;
		pid_t id = is_pid ? s->pids[i] : s->tids[i - s->nr_pids], tgid = 0, *t;
		int k = threads_of(id, is_pid, &t);

		if (k < 0) {
			err = k;
			break;
		}
		if (ipp_grow((void **)&all, &cap_all, n + (size_t)k, sizeof(*all)) < 0 ||
		    (owners && ipp_grow((void **)&own, &cap_own, n + (size_t)k, sizeof(*own)) < 0)) {
			free(t);
			err = -ENOMEM;
			break;
		}
		if (owners)
			tgid = ipp_tgid_of(id);
		for (int m = 0; m < k; m++) {
			all[n + m] = t ? t[m] : id;
			if (owners)
				own[n + m] = tgid > 0 ? tgid : all[n + m];
		}
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

static void add_target(struct ipp_rings *s, pid_t pid)
{
	for (size_t i = 0; i < s->nr_targets; i++)
		if (s->targets[i] == pid)
			return;
	s->targets[s->nr_targets++] = pid;
}

static pid_t *copy_pids(const pid_t *v, size_t n)
{
	pid_t *c = n ? malloc(n * sizeof(*c)) : NULL;

	if (c)
		memcpy(c, v, n * sizeof(*c));
	return c;
}

/* The target processes of pids and tids; a wrong pid is the likeliest mistake: said first. */
static int resolve_targets(struct ipp_rings *s)
{
	pid_t *t;
	int n, err = collect_threads(s, &t, NULL, &n);

	if (err)
		return err;
	free(t);
	s->targets = calloc(s->nr_pids + s->nr_tids, sizeof(pid_t));
	if (!s->targets)
		return -ENOMEM;
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
	return 0;
}

static void rings_destroy(struct ipp_source *src);

struct ipp_source *ipp_rings__new(const struct ipcperf_session_opts *user,
				  struct ipp_pipeline *pl)
{
	struct ipcperf_session_opts o;
	struct ipp_rings *s;
	int err = validate(user, &o);

	if (err) {
		errno = -err;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	s->base.ops = &ipp_rings_ops;
	s->base.pl = pl;
	s->epfd = s->tick_fd = -1;
	s->cmd.pid = -1;
	s->system_wide = o.system_wide;
	s->no_bpf = o.no_bpf;
	s->syscall_samples = o.syscall_samples;
	s->ring_pages = o.ring_pages;
	s->want_counters = o.counters || o.counter_mask;
	s->counter_mask = o.counter_mask ? o.counter_mask : IPCPERF_CNT_BIT(IPCPERF_CNT__MAX) - 1;
	s->scope = o.system_wide ? IPCPERF_SCOPE_CPU : o.scope;
	pl->self = getpid();
	pl->include_self = o.include_self;
	s->pids = copy_pids(o.pids, o.nr_pids);
	s->tids = copy_pids(o.tids, o.nr_tids);
	s->nr_pids = s->pids ? o.nr_pids : 0;
	s->nr_tids = s->tids ? o.nr_tids : 0;
	if (s->nr_pids != o.nr_pids || s->nr_tids != o.nr_tids)
		err = -ENOMEM;
	if (!err && (s->nr_pids || s->nr_tids))
		err = resolve_targets(s);
	if (!err)
		err = ipp_evset__load(&s->es, o.events, pl->dec);
	if (!err && o.argv) {
		err = ipp_cmd__fork(&s->cmd, o.argv);
		if (err)
			ipp_info("cannot fork the command: %s\n", strerror(-err));
		else if (!(s->targets = malloc(sizeof(pid_t))))
			err = -ENOMEM;
		else
			s->targets[s->nr_targets++] = s->cmd.pid;
		s->has_cmd = s->cmd.pid > 0;
	}
	if (err) {
		rings_destroy(&s->base);
		errno = -err;
		return NULL;
	}
	return &s->base;
}

/* ------------------------------------------------------------------ opening */

static void close_bpf(struct ipp_rings *s)
{
	struct ipp_pipeline *pl = s->base.pl;

	ipp_bpf__delete(s->bpf);
	s->bpf = NULL;
	s->paired = s->paired_switches = s->sched_counted = s->task_acct = false;
	free(pl->fdid_ids);
	pl->fdid_ids = NULL;
	pl->nr_fdid_ids = 0;
}

/*
 * Delete @el and its evsels with the references to the cpu and thread maps
 * that perf_evlist__set_maps() gave each evsel: libperf 6.1's
 * perf_evsel__delete() never puts them (later ones do). Set to no maps, the
 * evlist puts them itself, and both versions are left nothing to put twice.
 */
static void evlist_delete(struct perf_evlist *el)
{
	perf_evlist__set_maps(el, NULL, NULL);
	perf_evlist__delete(el);
}

/*
 * Delete @evsel, taken out of its evlist, without its map references: in an
 * evlist of no maps, which puts them as it adopts it (see evlist_delete()).
 */
static void evsel_delete(struct perf_evsel *evsel)
{
	struct perf_evlist *el = perf_evlist__new();

	if (!el) {
		perf_evsel__delete(evsel);	/* out of memory: the references stay */
		return;
	}
	perf_evlist__set_maps(el, NULL, NULL);
	perf_evlist__add(el, evsel);
	perf_evlist__delete(el);
}

static void close_events(struct ipp_rings *s)
{
	close_bpf(s);
	free(s->ring_fds);
	s->ring_fds = NULL;
	ipp_follow__delete(s->base.pl->follow);
	s->base.pl->follow = NULL;
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
		evlist_delete(*el);	/* deletes the evsels too */
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
	s->nr_live = 0;
	for (size_t i = 0; i < s->es.n; i++)
		s->es.v[i].opened = false;
}

/* This process's perf_event fds. */
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
		if (ipp_grow((void **)&v, &cap, n + 1, sizeof(*v)) < 0) {
			free(v);
			closedir(d);
			return -ENOMEM;
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

/* A set of perf fds. */
struct fdset {
	int *v;
	size_t n, cap;
};

static int cmp_int(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/*
 * The ring of each CPU, from the fds the first sample event got: libperf
 * opens them CPU by CPU, thread by thread, and each takes the lowest free
 * number, so in ascending order the first of every @per_cpu is its CPU's.
 */
static int note_ring_fds(struct ipp_rings *s, struct fdset *fresh, size_t per_cpu)
{
	size_t nr_cpus = (size_t)perf_cpu_map__nr(s->cpus);

	if (!per_cpu || fresh->n != nr_cpus * per_cpu)
		return 0;	/* not as expected: no kernel fd identity, /proc as before */
	qsort(fresh->v, fresh->n, sizeof(*fresh->v), cmp_int);
	s->ring_fds = calloc(nr_cpus, sizeof(*s->ring_fds));
	if (!s->ring_fds)
		return -ENOMEM;
	for (size_t i = 0; i < nr_cpus; i++)
		s->ring_fds[i] = fresh->v[i * per_cpu];
	return 0;
}

/*
 * The kernel ids of the instances of @ev: the perf fds that appeared since
 * @known (which then takes them in), each given @filter. libperf does not
 * hand out its fds, and a capture needs the ids to map each sample to its
 * event.
 */
static int note_ids(struct ipp_event *ev, struct fdset *known, const char *filter,
		    struct fdset *fresh)
{
	struct fdset now;
	int err = perf_fds_now(&now.v, &now.n);

	if (err)
		return err;
	free(ev->ids);
	ev->ids = calloc(now.n ? now.n : 1, sizeof(uint64_t));
	ev->nr_ids = 0;
	for (size_t i = 0; ev->ids && i < now.n; i++) {
		uint64_t id;

		if (in_list(known->v, known->n, now.v[i]))
			continue;
		if (fresh && ipp_grow((void **)&fresh->v, &fresh->cap, fresh->n + 1,
				      sizeof(*fresh->v)) == 0)
			fresh->v[fresh->n++] = now.v[i];
		if (ioctl(now.v[i], PERF_EVENT_IOC_ID, &id) == 0)
			ev->ids[ev->nr_ids++] = id;
		/* Inherited instances use their parent's filter. */
		if (filter && ioctl(now.v[i], PERF_EVENT_IOC_SET_FILTER, filter) < 0) {
			err = -errno;
			ipp_info("cannot set the filter '%.60s%s' on %s:%s: %s\n", filter,
				 strlen(filter) > 60 ? "..." : "", ev->system, ev->name,
				 strerror(-err));
			free(now.v);
			return err;
		}
	}
	free(known->v);
	*known = now;
	return ev->ids ? 0 : -ENOMEM;
}

/* The cpu map, the thread map of the targets, and the tgid of each thread. */
static int make_maps(struct ipp_rings *s)
{
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
		int n, err = collect_threads(s, &t, &s->owner, &n);

		if (err)
			return err;
		s->threads = perf_thread_map__new_array(n, t);
		free(t);
	}
	return s->threads ? 0 : -ENOMEM;
}

static bool is_syscall_tp(const struct ipp_event *ev)
{
	return ev->role == IPP_EV_TRACEPOINT &&
	       (!strcmp(ev->system, "syscalls") || !strcmp(ev->system, "raw_syscalls"));
}

/* sched_switch and sched_wakeup: what the kernel's counts of each thread stand in for. */
static bool is_sched_count_tp(const struct ipp_event *ev)
{
	return ev->role == IPP_EV_TRACEPOINT && !strcmp(ev->system, "sched") &&
	       (!strcmp(ev->name, "sched_switch") || !strcmp(ev->name, "sched_wakeup"));
}

/* An event the kernel's call records or counts stand in for: not opened. */
static bool paired_away(const struct ipp_rings *s, const struct ipp_event *ev)
{
	return (s->paired && is_syscall_tp(ev)) ||
	       (s->paired_switches && ev->role == IPP_EV_SWITCH) ||
	       (s->sched_counted && is_sched_count_tp(ev));
}

/* An evsel per event, in the sample or the side-band evlist, on the maps of the scope. */
static int make_evlists(struct ipp_rings *s, struct perf_evsel **evsels)
{
	struct perf_thread_map *tasks = s->threads;

	s->evlist = perf_evlist__new();
	s->sb_evlist = perf_evlist__new();
	if (!s->evlist || !s->sb_evlist)
		return -ENOMEM;
	for (size_t i = 0; i < s->es.n; i++) {
		struct perf_event_attr attr;

		if (paired_away(s, &s->es.v[i]))
			continue;	/* evsels[i] stays NULL */
		ipp_event_attr(&s->es.v[i], &s->mode, &attr);
		evsels[i] = perf_evsel__new(&attr);
		if (!evsels[i])
			return -ENOMEM;
		perf_evlist__add(s->es.v[i].role == IPP_EV_SIDEBAND ? s->sb_evlist : s->evlist,
				 evsels[i]);
	}
	/* CPU-wide: on every CPU for any task; s->threads stays for the counters. */
	if (s->cpu_scope && !(tasks = perf_thread_map__new_dummy()))
		return -ENOMEM;
	perf_evlist__set_maps(s->evlist, s->cpus, tasks);
	perf_evlist__set_maps(s->sb_evlist, s->cpus, tasks);
	if (tasks != s->threads)
		perf_thread_map__put(tasks);
	return 0;
}

/* Why @ev could not be opened; @return true when it is only missing (skip it). */
static bool open_failed(const struct ipp_rings *s, const struct ipp_event *ev, int err)
{
	switch (-err) {
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
		ipp_warn("cannot open %s:%s (%s); skipped\n", ev->system, ev->name, strerror(-err));
		return true;
	case EACCES:
	case EPERM:
		/* IPCPERF_SCOPE_AUTO then tries per task, which may be allowed. */
		if (!(s->cpu_scope && s->scope == IPCPERF_SCOPE_AUTO))
			ipp_explain_perm("opening tracepoints");
		return false;
	case ESRCH:
		ipp_info("a target exited before its events could be opened\n");
		return false;
	case EMFILE:
	case ENFILE:
		ipp_info("out of file descriptors opening %s:%s: each event takes one fd per "
			 "CPU per thread; raise 'ulimit -n'\n", ev->system, ev->name);
		return false;
	default:
		ipp_info("cannot open %s:%s: %s\n", ev->system, ev->name, strerror(-err));
		return false;
	}
}

/* One by one, so that a failure names its event and a missing one does not sink the rest. */
static int open_each(struct ipp_rings *s, struct perf_evsel **evsels)
{
	struct fdset known = { 0 }, fresh = { 0 };
	int err = perf_fds_now(&known.v, &known.n);
	bool first_sample = true;

	for (size_t i = 0; !err && i < s->es.n; i++) {
		struct ipp_event *ev = &s->es.v[i];
		char *filter = NULL;
		/* The side-band event's rings are not the samples'. */
		bool rings_of_samples = first_sample && ev->role != IPP_EV_SIDEBAND;

		if (!evsels[i])
			continue;	/* paired away */
		err = perf_evsel__open(evsels[i], perf_evsel__cpus(evsels[i]),
				       perf_evsel__threads(evsels[i]));
		if (err && open_failed(s, ev, err)) {
			perf_evlist__remove(ev->role == IPP_EV_SIDEBAND ? s->sb_evlist : s->evlist,
					    evsels[i]);
			evsel_delete(evsels[i]);
			s->es.skipped++;
			err = 0;
			continue;
		}
		if (err)
			break;
		ev->opened = true;
		ev->attr = *perf_evsel__attr(evsels[i]);
		err = ipp_event_filter(&s->es, ev, &s->mode, &filter);
		if (!err)
			err = note_ids(ev, &known, filter, rings_of_samples ? &fresh : NULL);
		free(filter);
		if (!err && rings_of_samples) {
			err = note_ring_fds(s, &fresh, (size_t)perf_thread_map__nr(
						   perf_evsel__threads(evsels[i])));
			first_sample = false;
		}
	}
	free(known.v);
	free(fresh.v);
	return err;
}

static int map_rings(struct ipp_rings *s)
{
	int err = perf_evlist__mmap(s->evlist, (int)s->ring_pages);

	if (!err && perf_evlist__next(s->sb_evlist, NULL))
		err = perf_evlist__mmap(s->sb_evlist, (int)ipp_sideband_pages(s->ring_pages));
	if (err == -EPERM || err == -ENOMEM) {
		int kb = 0;

		ipp_read_int("/proc/sys/kernel/perf_event_mlock_kb", &kb);
		ipp_info("cannot map %d rings of %u pages: over the locked-memory limit "
			 "(kernel.perf_event_mlock_kb=%d plus 'ulimit -l'); use fewer pages "
			 "or raise them\n", perf_cpu_map__nr(s->cpus), s->ring_pages, kb);
		return -EPERM;
	}
	if (err)
		ipp_info("cannot map the rings: %s\n", strerror(-err));
	return err;
}

/* The ring fds (those opened since @before) into the epoll set: readable, and hang-ups. */
static int watch_rings(struct ipp_rings *s, const struct fdset *before)
{
	struct fdset after;
	int err = perf_fds_now(&after.v, &after.n);

	if (err)
		return err;
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0)
		err = -errno;
	for (size_t i = 0; !err && i < after.n; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.fd = after.v[i] };

		if (in_list(before->v, before->n, after.v[i]))
			continue;
		if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, after.v[i], &ev) < 0)
			err = -errno;
		s->nr_live++;
	}
	free(after.v);
	return err;
}

/*
 * CPU-wide rings never hang up when the targets exit, and wake the reader
 * only half full: a tick makes the fd readable, so that a caller waiting on
 * it consumes, and finds done(), in time.
 */
static int start_tick(struct ipp_rings *s)
{
	struct itimerspec its = {
		.it_interval = { .tv_nsec = TICK_NS }, .it_value = { .tv_nsec = TICK_NS },
	};
	struct epoll_event ev = { .events = EPOLLIN };

	s->tick_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	ev.data.fd = s->tick_fd;
	if (s->tick_fd < 0 || timerfd_settime(s->tick_fd, 0, &its, NULL) < 0 ||
	    epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->tick_fd, &ev) < 0)
		return -errno;
	return 0;
}

/*
 * Counting needs no ring, so a task's counters need no per-CPU instances:
 * one "any CPU" instance per thread is enabled exactly while the task runs.
 * Per-CPU instances would each be enabled the whole time but run only on
 * their CPU, and scaling by enabled/running would multiply the counts by
 * the number of CPUs. System-wide counting is per CPU by nature.
 */
static int open_counters(struct ipp_rings *s)
{
	struct perf_cpu_map *any = s->system_wide ? perf_cpu_map__get(s->cpus) : cpu_map_any();
	unsigned int mask;
	int err;

	if (!any)
		return -ENOMEM;
	/* the software ones from the kernel's accounting: per-task events only for the others */
	mask = s->task_acct ? s->counter_mask & ~IPP_SW_COUNTERS : s->counter_mask;
	err = mask ? ipp_counters__open(&s->counters, any, s->threads, !s->system_wide, s->has_cmd,
					mask) : 0;
	perf_cpu_map__put(any);
	return err;
}

/* Why the kernel's fd identity cannot be had, for a message. */
static const char *bpf_why(int err)
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

/*
 * Whether the kernel is to pair the syscalls: a live session that reads
 * its records itself (a capture and a tap want the samples), asked for the
 * read/write and fd calls and not for the samples, with a sample event
 * left to carry the ring of each CPU.
 */
static bool want_pairing(const struct ipp_rings *s)
{
	if (s->pair_failed || s->syscall_samples || s->recorder || s->tap)
		return false;
	for (size_t i = 0; i < s->es.n; i++)
		if (s->es.v[i].role == IPP_EV_TRACEPOINT && !is_syscall_tp(&s->es.v[i]))
			return true;
	return false;
}

/*
 * Whether the kernel is to count the threads' switches and wakeups too
 * (where it pairs the calls): asked for, and a task tracepoint left to
 * carry the ring of each CPU.
 */
static bool want_sched_counts(const struct ipp_rings *s)
{
	if (!(s->es.events & IPCPERF_EV_SCHED_TOTALS) || !(s->es.events & IPCPERF_EV_SCHED))
		return false;
	for (size_t i = 0; i < s->es.n; i++)
		if (s->es.v[i].role == IPP_EV_TRACEPOINT && !is_syscall_tp(&s->es.v[i]) &&
		    !is_sched_count_tp(&s->es.v[i]))
			return true;
	return false;
}

/*
 * Whether the software counters come from the kernel's accounting of the
 * counted threads: switches counted in the kernel, counters wanted, and
 * targets that are processes (a command or pids: their counters are the
 * process and its descendants, as an inherited counter's), not tids or
 * the whole machine (counted per CPU, which costs no switch).
 */
static bool task_acct_ok(const struct ipp_rings *s)
{
	return s->sched_counted && s->want_counters && !s->system_wide && !s->nr_tids &&
	       (s->counter_mask & IPP_SW_COUNTERS);
}

/*
 * Every call, for IPCPERF_EV_ALL_SYSCALLS, but exit and exit_group: they
 * never return, and their samples give no call either.
 */
static int want_all_syscalls(struct ipp_rings *s)
{
	for (int nr = 0; nr <= ipp_syscall_max && nr < IPP_FDID_MAX_NR; nr++) {
		int err;

		if (nr == SYS_exit || nr == SYS_exit_group)
			continue;
		if ((err = ipp_bpf__want_syscall(s->bpf, nr)) < 0)
			return err;
	}
	return 0;
}

/* The syscalls the session's tracepoints would have given, to be paired in the kernel. */
static int want_syscalls(struct ipp_rings *s)
{
	if (s->es.events & IPCPERF_EV_ALL_SYSCALLS)
		return want_all_syscalls(s);
	for (size_t i = 0; i < ipp_nr_syscalls; i++) {
		const struct ipp_scdesc *sc = &ipp_syscalls[i];
		int err;

		if (!(sc->set & s->es.events) || sc->nr < 0)
			continue;
		if ((err = ipp_bpf__want_syscall(s->bpf, sc->nr)) < 0)
			return err;
	}
	return 0;
}

static void load_bpf(struct ipp_rings *s);

/*
 * Whether the session is to have the kernel's fd identity: it traces the
 * I/O or fd calls, on their own or among all syscalls (--syscalls classifies
 * them as well: the fd table is the same).
 */
static bool wants_fdid(const struct ipp_rings *s)
{
	return !s->no_bpf &&
	       (s->es.events & (IPCPERF_EV_IO | IPCPERF_EV_FDS | IPCPERF_EV_ALL_SYSCALLS));
}

/* Load the fd identity again, without the calls' pairing, which failed. */
static void load_bpf_unpaired(struct ipp_rings *s)
{
	s->pair_failed = true;
	load_bpf(s);
}

/*
 * The kernel's fd identity (lib/bpf), loaded before the events are opened:
 * when it pairs the syscalls too, their tracepoints are not opened. When it
 * cannot be had, fds are identified from /proc, as without it; said once,
 * at debug level unless asked for.
 */
static void load_bpf(struct ipp_rings *s)
{
	bool pair = want_pairing(s);
	IPP_BPF_OPTS(o, .all_tasks = s->system_wide, .pair_calls = pair,
		     .pair_switches = pair && (s->es.events & IPCPERF_EV_BLOCKED),
		     .count_sched = pair && want_sched_counts(s),
		     .exclude_tgid = s->system_wide && !s->base.pl->include_self ? s->base.pl->self : 0);

	if (!wants_fdid(s))
		return;
	s->bpf = ipp_bpf__new(&o);
	/* Not for a missing privilege, BTF or build: the fd programs alone would fail alike. */
	if (!s->bpf && pair && errno != EPERM && errno != EACCES && errno != ENOENT &&
	    errno != ENOTSUP) {
		/* a kernel without what the call programs need may still take the fd programs */
		ipp_debug("cannot pair the syscalls in the kernel (%s): taking their samples\n",
			  strerror(errno));
		load_bpf_unpaired(s);
		return;
	}
	if (!s->bpf) {
		ipp_debug("fd identity from /proc: %s\n", bpf_why(errno));
		return;
	}
	if (!ipp_bpf__pairs(s->bpf))
		return;
	if (want_syscalls(s) < 0) {
		/* the fd identity works without: keep the samples */
		ipp_debug("cannot pair the syscalls in the kernel: taking their samples\n");
		close_bpf(s);
		load_bpf_unpaired(s);
		return;
	}
	s->paired = true;
	s->paired_switches = o.pair_switches;
	s->sched_counted = ipp_bpf__counts_sched(s->bpf);
	s->task_acct = task_acct_ok(s);
}

/*
 * The threads of the running targets, counted from now on: what the kernel
 * accounted to each so far is its base (a command's are counted from its
 * exec, their children from their fork, by the kernel itself). A thread
 * that cannot be read (gone since) or found no room is counted from its
 * first switch, as without a base.
 */
static void seed_threads(struct ipp_rings *s)
{
	int n = s->threads ? perf_thread_map__nr(s->threads) : 0;

	for (int i = 0; i < n; i++) {
		pid_t tid = perf_thread_map__pid(s->threads, i), pid = s->owner[i];
		struct ipp_task_acct base = { 0 };
		char comm[16];
		int err;

		if (ipp_task_acct_read(pid, tid, &base) < 0)
			continue;
		ipp_task_comm(pid, tid, comm, sizeof(comm));
		if ((err = ipp_bpf__seed_thread(s->bpf, tid, pid, pid, comm, &base)) < 0)
			ipp_debug("thread %d counted from its first switch: %s\n", (int)tid,
				  strerror(-err));
	}
}

/*
 * The loaded fd identity told the targets and pointed into each CPU's
 * sample ring. @return 0; -EAGAIN when the syscalls were to be paired and
 * cannot be: the events must be opened again with their samples.
 */
static int connect_bpf(struct ipp_rings *s)
{
	const uint64_t *ids;
	size_t nr = 0;
	int err = 0;

	if (!s->bpf)
		return 0;
	if (!s->ring_fds) {
		/* no sample event opened: no ring to write into (and nothing paired away) */
		ipp_debug("fd identity from /proc: no sample ring for the kernel's records\n");
		close_bpf(s);
		return 0;
	}
	for (size_t i = 0; !err && !s->system_wide && i < s->nr_targets; i++)
		err = s->has_cmd && s->paired && s->targets[i] == s->cmd.pid ?
			      ipp_bpf__add_command(s->bpf, s->targets[i]) :
			      ipp_bpf__add_target(s->bpf, s->targets[i]);
	if (!err && s->task_acct && !s->has_cmd)
		seed_threads(s);
	for (int i = 0; !err && i < perf_cpu_map__nr(s->cpus); i++)
		err = ipp_bpf__set_output(s->bpf, perf_cpu_map__cpu(s->cpus, i).cpu, s->ring_fds[i],
					  CLOCK_MONOTONIC);
	ids = ipp_bpf__ids(s->bpf, &nr);
	if (!err)
		err = ipp_pipeline__fdid_ids(s->base.pl, ids, nr);
	if (err) {
		bool paired = s->paired;

		ipp_debug("fd identity from /proc: %s\n", bpf_why(-err));
		close_bpf(s);
		if (paired) {
			s->pair_failed = true;
			return -EAGAIN;
		}
		return 0;
	}
	ipp_debug("fd identity from the kernel: %zu programs, records into %zu rings%s%s\n",
		  ipp_bpf__nr_programs(s->bpf), nr,
		  s->paired ? "; syscalls paired in the kernel" : "",
		  s->sched_counted ? "; switches and wakeups counted there" : "");
	return 0;
}

/* The pipeline's per-CPU counts, and which tracepoints count towards unreported loss. */
static int count_setup(struct ipp_rings *s)
{
	struct ipp_pipeline *pl = s->base.pl;
	int err = ipp_pipeline__cpus(pl, (size_t)perf_cpu_map__max(s->cpus).cpu + 1);

	for (size_t i = 0; !err && i < s->es.n; i++)
		if (s->es.v[i].role == IPP_EV_TRACEPOINT && strcmp(s->es.v[i].system, "sched"))
			err = ipp_pipeline__syscall_tp(pl, s->es.v[i].id);
	return err;
}

static int open_events_once(struct ipp_rings *s)
{
	struct perf_evsel **evsels = calloc(s->es.n ? s->es.n : 1, sizeof(*evsels));
	struct fdset before = { 0 };
	int err = evsels ? make_maps(s) : -ENOMEM;

	s->mode = (struct ipp_open_mode){
		.ring_pages = s->ring_pages, .cpu_wide = s->cpu_scope,
		.system_wide = s->system_wide, .command = s->has_cmd,
		.include_self = s->base.pl->include_self, .self = s->base.pl->self,
	};
	/* Before the events: whether the syscalls' tracepoints are opened depends on it. */
	if (!err)
		load_bpf(s);
	if (!err)
		err = make_evlists(s, evsels);
	if (!err)
		err = perf_fds_now(&before.v, &before.n);
	if (!err)
		err = open_each(s, evsels);
	if (!err)
		err = map_rings(s);
	if (!err)
		err = watch_rings(s, &before);
	/* After: its CPU-wide events would never hang up, and done() waits for the rings to. */
	if (!err)
		err = connect_bpf(s);
	if (!err && s->cpu_scope && !s->system_wide)
		err = start_tick(s);
	if (!err && s->want_counters)
		err = open_counters(s);
	if (!err)
		err = count_setup(s);
	free(evsels);
	free(before.v);
	return err;
}

static int open_events(struct ipp_rings *s)
{
	int err = open_events_once(s);

	/* The kernel could not pair the syscalls after all: with their samples, then. */
	if (err == -EAGAIN) {
		close_events(s);
		err = open_events_once(s);
	}
	return err;
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
			if ((s->es.events & IPCPERF_EV_ALL_SYSCALLS) || (sc && (sc->set & s->es.events)))
				ipp_pairer__seed(s->base.pl->pairer, s->start_ns, pid, tid, sc,
						 (int)nr, args, 6);
		}
		fclose(f);
	}
}

/* Now, in the clock ticks since boot that /proc/PID/stat gives process start times in. */
static uint64_t boot_ticks_now(void)
{
	struct timespec ts;
	long hz = sysconf(_SC_CLK_TCK);

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ((uint64_t)ts.tv_sec * IPP_NS_PER_SEC + (uint64_t)ts.tv_nsec) /
	       (IPP_NS_PER_SEC / (uint64_t)(hz > 0 ? hz : 100));
}

/*
 * The targets of a CPU-scope session, as they are once the events are on:
 * the threads of the pids (and the tids) that still exist, so that every
 * later change arrives as a fork or exit record; the command from its exec.
 */
static int follow_targets(struct ipp_rings *s)
{
	struct ipp_follow *f = ipp_follow__new();
	pid_t *now = NULL, *tgid = NULL;
	int n = 0, err;

	if (!f)
		return -ENOMEM;
	s->base.pl->follow = f;
	s->check_ns = ipp_now_ns();
	if (s->has_cmd) {
		ipp_follow__expect_exec(f, s->cmd.pid);
		return 0;
	}
	ipp_follow__set_start(f, boot_ticks_now());
	err = collect_threads(s, &now, &tgid, &n);
	if (err == -ESRCH)
		return 0;	/* gone already: done() says so */
	for (int i = 0; !err && i < n; i++)
		err = ipp_follow__add(f, now[i], tgid[i]);
	free(now);
	free(tgid);
	return err;
}

/* The bpf-output events of the kernel's fd identity, as a capture describes an event. */
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

/* Open everything; IPCPERF_SCOPE_AUTO falls back from CPU-wide to per task when not allowed. */
static int open_scoped(struct ipp_rings *s)
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
		err = ipp_recorder__add_events(s->recorder, &s->es);
	if (!err && s->recorder && s->bpf)
		err = bpf_event_desc(s, add_desc, s->recorder);
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
	s->start_ns = ipp_now_ns();
	/* The kernel's fd identity first: the calls the events see are described. */
	if (s->bpf && (err = ipp_bpf__enable(s->bpf)) < 0) {
		ipp_debug("fd identity from /proc: %s\n", bpf_why(-err));
		close_bpf(s);
	}
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
	if (s->cpu_scope && !s->system_wide && (err = follow_targets(s)) < 0)
		goto fail;
	if (s->has_cmd) {
		err = ipp_cmd__release(&s->cmd);
		if (err) {
			ipp_info("cannot run the command: %s\n", strerror(-err));
			goto fail;
		}
		src->pl->cmd_exec_done = true;
	} else {
		ipp_counters__enable(s->counters, true);
		if (!s->system_wide)
			seed_calls_in_progress(s);
	}
	return 0;
fail:
	close_events(s);
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

void ipp_rings__set_tap(struct ipp_source *src, void (*tap)(void *ctx, const void *rec,
							     size_t size), void *ctx)
{
	rings_of(src)->tap = tap;
	rings_of(src)->tap_ctx = ctx;
}

/* ------------------------------------------------------------------ reading */

static bool is_bpf_id(const struct ipp_rings *s, uint64_t id)
{
	const uint64_t *ids;
	size_t n;

	ids = ipp_bpf__ids(s->bpf, &n);
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/*
 * A ring record into the capture, the tap and the pipeline (perfdata.h says
 * its layout). @return its time stamp, 0 when it has none of ours.
 */
static uint64_t take_record(struct ipp_rings *s, const union perf_event *ev, bool sideband)
{
	size_t size = ev->header.size;
	struct ipp_pd_sample smp;

	if (s->tap)
		s->tap(s->tap_ctx, ev, size);
	if (s->recorder)
		ipp_recorder__write(s->recorder, ev, size);
	if (ev->header.type == PERF_RECORD_SAMPLE ? !ipp_pd_own_sample(ev, size, &smp) :
	    !ipp_pd_own_trailer(ev, size, &smp)) {
		s->base.pl->records++;
		return 0;
	}
	/* The kernel's fd identity records: their layout has the IP too. */
	if (s->bpf && ev->header.type == PERF_RECORD_SAMPLE && is_bpf_id(s, smp.id) &&
	    !ipp_pd_bpf_sample(ev, size, &smp)) {
		s->base.pl->records++;
		return 0;
	}
	ipp_pipeline__take(s->base.pl, ev->header.type, ev->header.misc, &smp,
			   (const unsigned char *)ev + sizeof(ev->header), size - sizeof(ev->header),
			   sideband);
	return smp.time;
}

/*
 * One ring's turn: up to @max records. *@time: the stamp of the last one
 * taken (left as it was when none had one). @return false when the ring may
 * hold more, true when it ran dry.
 */
static bool read_ring(struct ipp_rings *s, struct perf_mmap *map, bool sb, size_t max,
		      uint64_t *time)
{
	union perf_event *ev;

	if (perf_mmap__read_init(map) < 0)
		return true;
	/*
	 * No perf_mmap__read_done(): in libperf 6.1 it moves the read position
	 * to the ring's head as it is now, past records written since the last
	 * read_event(), which were then never read and never reported lost.
	 * read_event() already keeps the position, and consume() hands the
	 * space back.
	 */
	for (size_t n = 0; n < max; n++) {
		uint64_t t;

		if (!(ev = perf_mmap__read_event(map)))
			return true;
		t = take_record(s, ev, sb);
		if (t)
			*time = t;
		perf_mmap__consume(map);
	}
	return false;
}

/*
 * A round: RING_CHUNK records (at most) of every ring in turn, so that no
 * ring waits behind a busy one. @return UINT64_MAX when every ring ran dry;
 * else the stamp before which everything has been read from the rings that
 * may hold more (their next records are stamped later).
 */
static uint64_t read_round(struct ipp_rings *s)
{
	uint64_t before = s->base.pl->records, limit = UINT64_MAX;
	struct perf_mmap *map;

	for (int sb = 0; sb < 2; sb++)
		perf_evlist__for_each_mmap(sb ? s->sb_evlist : s->evlist, map, false) {
			uint64_t t = 0;

			/* (A record with no stamp of ours is not the pipeline's: no order to keep.) */
			if (!read_ring(s, map, sb, RING_CHUNK, &t) && t && t - 1 < limit)
				limit = t - 1;
		}
	/*
	 * Every ring read to its head: what a capture marks as a finished round
	 * (what comes after is stamped later than what came before the mark
	 * before). A ring left partly read would break that.
	 */
	if (limit == UINT64_MAX && s->base.pl->records != before) {
		if (s->tap)
			s->tap(s->tap_ctx, NULL, 0);
		if (s->recorder)
			ipp_recorder__write(s->recorder, NULL, 0);
	}
	return limit;
}

/*
 * Read the rings and deliver what they held up to @horizon, round by round,
 * until they are dry or the clock passes @until: what is still in them waits
 * for the next pass (the kernel counts what no longer fits as lost).
 * *@dry (when not NULL): whether they ran dry. @return the events delivered,
 * or -errno.
 */
static int read_rings(struct ipp_rings *s, uint64_t horizon, uint64_t until, bool *dry)
{
	uint64_t limit;
	int n = 0, err;

	do {
		limit = read_round(s);
		err = ipp_pipeline__deliver(s->base.pl, limit < horizon ? limit : horizon);
		if (err < 0)
			return err;
		n += err;
	} while (limit != UINT64_MAX && ipp_now_ns() < until);
	if (dry)
		*dry = limit == UINT64_MAX;
	return n;
}

/*
 * At the stop, what the bounded drain left in the rings: counted, by CPU,
 * as lost (and a LOST record as what it reports), never read.
 */
static void count_left(struct ipp_rings *s)
{
	struct perf_mmap *map;

	for (int sb = 0; sb < 2; sb++)
		perf_evlist__for_each_mmap(sb ? s->sb_evlist : s->evlist, map, false) {
			union perf_event *ev;

			if (perf_mmap__read_init(map) < 0)
				continue;
			while ((ev = perf_mmap__read_event(map)) != NULL) {
				struct ipp_pd_sample smp = { .cpu = (uint32_t)-1 };
				size_t size = ev->header.size;
				uint64_t n = 1;

				if (ev->header.type == PERF_RECORD_SAMPLE)
					ipp_pd_own_sample(ev, size, &smp);
				else
					ipp_pd_own_trailer(ev, size, &smp);
				if (ev->header.type == PERF_RECORD_LOST)
					n = ev->lost.lost;
				if (s->recorder)
					ipp_recorder__lost(s->recorder, (int)smp.cpu, n);
				ipp_pipeline__lost(s->base.pl, (int)smp.cpu, n);
				perf_mmap__consume(map);
			}
		}
}

/* Note rings whose targets all exited: they stop counting towards done(). */
static void reap_hangups(struct ipp_rings *s, const struct epoll_event *evs, int n)
{
	for (int i = 0; i < n; i++)
		if (evs[i].events & (EPOLLHUP | EPOLLERR)) {
			epoll_ctl(s->epfd, EPOLL_CTL_DEL, evs[i].data.fd, NULL);
			if (s->nr_live)
				s->nr_live--;
		}
}

static int check_hangups(struct ipp_rings *s)
{
	struct epoll_event evs[EPOLL_BATCH];
	int n;

	do {
		n = epoll_wait(s->epfd, evs, EPOLL_BATCH, 0);
		if (n < 0)
			return errno == EINTR ? 0 : -errno;
		reap_hangups(s, evs, n);
	} while (n == EPOLL_BATCH);
	return 0;
}

/* The command exited: waitid() says so, whatever records went missing. It stays waitable. */
static bool cmd_exited(struct ipp_rings *s)
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
static void check_targets(struct ipp_rings *s, uint64_t pass, uint64_t horizon)
{
	struct ipp_follow *f = s->base.pl->follow;
	bool cmd_now = !s->cmd_exited && cmd_exited(s);

	ipp_follow__expire(f, horizon);
	if (ipp_follow__done(f) || (!cmd_now && pass - s->check_ns < CHECK_NS))
		return;
	/* Stamped with when /proc is read, not @pass: a task may exit in between. */
	s->check_ns = ipp_now_ns();
	if (ipp_follow__check(f, s->check_ns, s->base.pl->sideband_lost,
			      s->has_cmd && s->cmd.started) > 0)
		ipp_debug("targets checked against /proc\n");
}

static int rings_consume(struct ipp_source *src)
{
	struct ipp_rings *s = rings_of(src);
	uint64_t pass = ipp_now_ns(), horizon;
	int err;

	if (s->tick_fd >= 0) {
		uint64_t ticks;

		if (read(s->tick_fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
			return -errno;
	}
	err = check_hangups(s);
	if (err)
		return err;
	horizon = pass > MERGE_SLACK_NS ? pass - MERGE_SLACK_NS : 0;
	err = read_rings(s, horizon, pass + PASS_NS, NULL);
	if (src->pl->follow)
		check_targets(s, pass, horizon);
	return err;
}

static int rings_wait(struct ipp_source *src, int timeout_ms)
{
	struct ipp_rings *s = rings_of(src);
	struct epoll_event evs[EPOLL_BATCH];
	int n = epoll_wait(s->epfd, evs, EPOLL_BATCH, timeout_ms);

	if (n < 0)
		return -errno;
	reap_hangups(s, evs, n);
	return 0;
}

static int rings_fd(const struct ipp_source *src)
{
	return crings_of(src)->epfd >= 0 ? crings_of(src)->epfd : -EINVAL;
}

static bool rings_done(const struct ipp_source *src)
{
	const struct ipp_rings *s = crings_of(src);

	if (src->pl->follow)
		return ipp_follow__done(src->pl->follow);
	return !s->system_wide && s->nr_live == 0;
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
static uint64_t fired_on(const struct ipp_rings *s, int idx)
{
	const struct ipp_pipeline *pl = s->base.pl;
	struct perf_evsel *evsel;
	uint64_t fired = 0, calls = 0;

	/* Call records tried on that CPU: each stands for a syscall sample. */
	if (s->paired &&
	    ipp_bpf__stat_on_cpu(s->bpf, IPP_FDID_ST_CALLS, perf_cpu_map__cpu(s->cpus, idx).cpu,
				 &calls) == 0)
		fired += calls;
	perf_evlist__for_each_evsel(s->evlist, evsel) {
		int nt = perf_thread_map__nr(perf_evsel__threads(evsel));
		uint64_t id = perf_evsel__attr(evsel)->config;

		if (perf_evsel__attr(evsel)->type != PERF_TYPE_TRACEPOINT ||
		    id >= pl->nr_sc_tp || !pl->sc_tp[id])
			continue;
		for (int t = 0; t < nt; t++) {
			struct perf_counts_values v = { 0 };

			if (perf_evsel__read(evsel, idx, t, &v) == 0)
				fired += v.val;
		}
	}
	return fired;
}

static int count_unreported_loss(struct ipp_rings *s)
{
	struct ipp_pipeline *pl = s->base.pl;
	int delivered = 0;

	for (int i = 0; i < perf_cpu_map__nr(s->cpus); i++) {
		int c = perf_cpu_map__cpu(s->cpus, i).cpu;
		uint64_t fired = fired_on(s, i), had, extra;

		if (c < 0 || (size_t)c >= pl->nr_cpu_slots)
			continue;
		had = pl->samples_per_cpu[c] + pl->lost_per_cpu[c];
		if (fired <= had)
			continue;
		extra = fired - had;
		if (s->recorder)
			ipp_recorder__lost(s->recorder, c, extra);
		ipp_pipeline__lost(pl, c, extra);
		delivered = 1;
	}
	return delivered;
}

/* What the kernel accounted to a live counted thread since its base. */
static int live_acct(void *ctx, uint32_t tid, const struct ipp_sched_slot *t)
{
	struct ipp_task_acct now = t->ended ? t->end : t->last, *sum = ctx;

	/*
	 * Alive: the kernel's accounting now, but the switches as at the last
	 * one counted (the counting has stopped; they stay the switch counts'
	 * sum). Exited, or past its exit call: as the kernel left them then.
	 */
	if (!t->exited && !t->ended && ipp_task_acct_read(t->pid, (pid_t)tid, &now) == 0)
		now.switches = t->last.switches;
	sum->runtime_ns += now.runtime_ns - t->base.runtime_ns;
	sum->faults += now.faults - t->base.faults;
	sum->switches += now.switches - t->base.switches;
	sum->migrations += now.migrations - t->base.migrations;
	return 0;
}

struct live_root {
	pid_t root;
	struct ipp_task_acct sum;
};

static int live_of_root(void *ctx, uint32_t tid, const struct ipp_sched_slot *t)
{
	struct live_root *l = ctx;

	return !l->root || t->root == l->root ? live_acct(&l->sum, tid, t) : 0;
}

/*
 * The software counters of target @pid (0: all) from the kernel's
 * accounting: the threads gone, and unless the stop took them in, those
 * still alive. Not multiplexed: enabled and running are the task-clock.
 */
static void acct_counters(const struct ipp_rings *s, pid_t pid, struct ipcperf_counter_value *vals)
{
	struct ipp_acct_sum sum;
	struct live_root l = { .root = pid };
	uint64_t v[IPCPERF_CNT__MAX] = { 0 };

	ipp_pipeline__acct_sum(s->base.pl, pid, &sum);
	if (!s->acct_final)
		ipp_bpf__for_each_sched(s->bpf, live_of_root, &l);
	v[IPCPERF_CNT_TASK_CLOCK] = sum.runtime_ns + l.sum.runtime_ns;
	v[IPCPERF_CNT_PAGE_FAULTS] = sum.faults + l.sum.faults;
	v[IPCPERF_CNT_CONTEXT_SWITCHES] = sum.switches + l.sum.switches;
	v[IPCPERF_CNT_CPU_MIGRATIONS] = sum.migrations + l.sum.migrations;
	for (int i = 0; i < IPCPERF_CNT__MAX; i++) {
		if (!(IPP_SW_COUNTERS & IPCPERF_CNT_BIT(i)))
			continue;
		vals[i] = (struct ipcperf_counter_value){
			.value = v[i], .enabled_ns = v[IPCPERF_CNT_TASK_CLOCK],
			.running_ns = v[IPCPERF_CNT_TASK_CLOCK],
		};
		if (!(s->counter_mask & IPCPERF_CNT_BIT(i)))
			vals[i] = (struct ipcperf_counter_value){ .status = IPCPERF_CNT_NOT_REQUESTED };
		else if (!v[IPCPERF_CNT_TASK_CLOCK])
			vals[i].status = IPCPERF_CNT_NOT_COUNTED;	/* as a counter never scheduled */
	}
}

static int rings_read_counters(const struct ipp_source *src, pid_t pid,
			       struct ipcperf_counter_value *vals)
{
	const struct ipp_rings *s = crings_of(src);
	bool *use = NULL;
	int n, err = 0;

	if (!s->counters && !s->task_acct)
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
	if (!err && s->task_acct)
		acct_counters(s, pid, vals);
	return err;
}

/* Counts, counters and the end of the file: what a replay needs besides the records. */
static int finish_recording(struct ipp_rings *s)
{
	const struct ipp_pipeline *pl = s->base.pl;
	struct ipp_rec_session ss = {
		.start_ns = s->start_ns, .stop_ns = s->stop_ns, .lost = pl->lost,
		.records = pl->records, .self = pl->self, .cmd_pid = s->has_cmd ? s->cmd.pid : -1,
		.include_self = pl->include_self,
		.rings = s->cpus ? (unsigned int)perf_cpu_map__nr(s->cpus) : 0,
		.skipped = s->es.skipped, .ring_pages = s->ring_pages,
	};
	struct ipp_recorder *r = s->recorder;
	struct ipcperf_counter_value v[IPCPERF_CNT__MAX];

	if (s->counters) {
		if (rings_read_counters(&s->base, 0, v) == 0)
			ipp_recorder__counters(r, 0, v);
		for (size_t i = 0; i < s->nr_targets; i++)
			if (rings_read_counters(&s->base, s->targets[i], v) == 0)
				ipp_recorder__counters(r, s->targets[i], v);
	}
	s->recorder = NULL;
	return ipp_recorder__finish(r, &ss);	/* which explains a failure */
}

/*
 * The calls still under way at the end, whose exits will not be seen: the
 * kernel counted their enters; they are unpaired enters, as sys_enter
 * samples without their exit are.
 */
static void calls_under_way(struct ipp_rings *s)
{
	uint64_t n = 0;
	int err = ipp_bpf__calls_under_way(s->bpf, &n);

	if (err < 0)
		ipp_debug("cannot count the calls under way: %s\n", strerror(-err));
	ipp_pairer__add_unpaired_enter(s->base.pl->pairer, n);
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
	live_acct(&grown, tid, t);
	if (ipp_pipeline__acct_add(e->pl, t->root, &grown) < 0)
		ipp_info("cannot keep thread %u's counters: %s\n", tid, strerror(ENOMEM));
	ipp_pipeline__sched_totals(e->pl, &ev);
	e->n = 1;
	return 0;
}

/*
 * The counts of the threads alive at the end (and of those whose record
 * found no room), after every record; what the kernel could not count
 * (switches and wakeups with its map full, a reused tid's counts dropped)
 * is lost, on the CPU that dropped it. @return 1 when something went to
 * the handlers.
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

static int rings_stop(struct ipp_source *src)
{
	struct ipp_rings *s = rings_of(src);
	bool dry = false;
	int n;

	perf_evlist__disable(s->evlist);
	perf_evlist__disable(s->sb_evlist);
	if (s->paired)
		ipp_bpf__stop_calls(s->bpf);
	ipp_counters__enable(s->counters, false);
	/*
	 * What is in the rings is read and delivered, in order, for DRAIN_NS at
	 * most; what is left when the clock ran out is counted as lost. Rings
	 * that ran dry left nothing behind: a record written after that (a
	 * thread's last switch) came after the stop, as it did before passes
	 * were bounded, and the kernel's counts say what the events lost.
	 */
	n = read_rings(s, UINT64_MAX, ipp_now_ns() + DRAIN_NS, &dry);
	if (n < 0)
		n = 0;
	if (!dry)
		count_left(s);
	n += ipp_pipeline__deliver(src->pl, UINT64_MAX);
	n += count_unreported_loss(s);
	if (s->paired)
		calls_under_way(s);
	if (s->sched_counted)
		n += sched_at_stop(s);
	ipp_pipeline__flush(src->pl);
	s->stop_ns = ipp_now_ns();
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
		v->syscall_records = s->paired ? IPCPERF_SC_RECORDS_KERNEL : IPCPERF_SC_RECORDS_SAMPLES;
	if (s->evlist && (s->es.events & IPCPERF_EV_SCHED))
		v->sched_records = s->sched_counted ? IPCPERF_SCHED_RECORDS_TOTALS :
						      IPCPERF_SCHED_RECORDS_EVENTS;
}

static pid_t rings_child_pid(const struct ipp_source *src)
{
	return crings_of(src)->has_cmd ? crings_of(src)->cmd.pid : -1;
}

static int rings_wait_child(struct ipp_source *src, int *status)
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

static const pid_t *rings_target_pids(const struct ipp_source *src, size_t *nr)
{
	*nr = crings_of(src)->nr_targets;
	return crings_of(src)->targets;
}

static bool rings_kernel_fdid(const struct ipp_source *src)
{
	return wants_fdid(crings_of(src));
}

static struct ipp_identlog *rings_identlog(const struct ipp_source *src, bool *replay)
{
	*replay = false;
	return crings_of(src)->recorder ? ipp_recorder__log(crings_of(src)->recorder) : NULL;
}

static void rings_destroy(struct ipp_source *src)
{
	struct ipp_rings *s = rings_of(src);

	close_events(s);
	if (s->has_cmd)
		ipp_cmd__abort(&s->cmd);
	ipp_evset__fini(&s->es);
	free(s->pids);
	free(s->tids);
	free(s->targets);
	ipp_recorder__delete(s->recorder);	/* never finished: the file stays partial */
	free(s);
}

const struct ipp_source_ops ipp_rings_ops = {
	.start = rings_start,
	.consume = rings_consume,
	.wait = rings_wait,
	.fd = rings_fd,
	.done = rings_done,
	.stop = rings_stop,
	.stats = rings_stats,
	.read_counters = rings_read_counters,
	.child_pid = rings_child_pid,
	.wait_child = rings_wait_child,
	.for_each_event = rings_for_each_event,
	.target_pids = rings_target_pids,
	.kernel_fdid = rings_kernel_fdid,
	.identlog = rings_identlog,
	.destroy = rings_destroy,
	.replay = false,
};
