/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * How the live source opens (rings.h): the events of formats.c, their
 * evlists, CPU and thread maps, rings and counters, and the BPF programs
 * that identify fds and pair calls in the kernel (lib/bpf), connected to them.
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
#include "source/rings.h"

/* Make the "any CPU" map. libperf 6.12 renamed its constructor without changing the soname. */
static struct perf_cpu_map *cpu_map_any(void)
{
#ifdef HAVE_PERF_CPU_MAP__NEW_ANY_CPU
	return perf_cpu_map__new_any_cpu();
#else
	return perf_cpu_map__dummy_new();
#endif
}

/* ------------------------------------------------------------------ opening */

void ipp_rings__close_bpf(struct ipp_rings *s)
{
	ipp_bpf__delete(s->bpf);
	s->bpf = NULL;
	ipp_plan__none(&s->plan);
	ipp_pipeline__clear_fdid_ids(s->base.pl);
}

/*
 * Delete @el and its evsels, with the references to the cpu and thread maps
 * that perf_evlist__set_maps() gave each evsel. libperf 6.1's
 * perf_evsel__delete() never puts them, while later versions do. Setting the
 * evlist to no maps makes it put them itself, so that neither version puts
 * them twice.
 */
static void evlist_delete(struct perf_evlist *el)
{
	perf_evlist__set_maps(el, NULL, NULL);
	perf_evlist__delete(el);
}

/*
 * Delete @evsel, already taken out of its evlist, and put its map
 * references: an evlist with no maps puts them as it adopts the evsel (see
 * evlist_delete()).
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

void ipp_rings__close_events(struct ipp_rings *s)
{
	ipp_rings__close_bpf(s);
	free(s->ring_fds);
	s->ring_fds = NULL;
	ipp_pipeline__follow(s->base.pl, NULL);
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
	if (s->cmd_pidfd >= 0)
		close(s->cmd_pidfd);
	s->cmd_pidfd = -1;
	s->nr_live = 0;
	for (size_t i = 0; i < s->es.n; i++)
		s->es.v[i].opened = false;
}

/* List this process's perf_event fds into *@out. */
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
 * Find the ring fd of each CPU among the fds the first sample event got.
 * libperf opens them CPU by CPU, thread by thread, and each takes the lowest
 * free number, so in ascending order the first of every @per_cpu fds is
 * that CPU's.
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
 * Note the kernel ids of the instances of @ev, which are the perf fds that
 * appeared since @known, and give each of them @filter; @known then takes
 * them in. libperf does not hand out its fds, and a capture needs the ids
 * to map each sample to its event.
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

/* Append the command after the @n threads of the running targets, in *@t and in the owners. */
static int append_cmd(struct ipp_rings *s, pid_t **t, int n)
{
	pid_t *nt = realloc(*t, ((size_t)n + 1) * sizeof(pid_t));
	pid_t *no = nt ? realloc(s->owner, ((size_t)n + 1) * sizeof(pid_t)) : NULL;

	if (nt)
		*t = nt;
	if (!no) {
		free(*t);
		return -ENOMEM;
	}
	s->owner = no;
	nt[n] = no[n] = s->cmd.pid;
	return 0;
}

/* Make the cpu map, the thread map of the targets, and the list of each thread's tgid. */
static int make_maps(struct ipp_rings *s)
{
	s->cpus = perf_cpu_map__new(NULL);
	if (!s->cpus)
		return -ENOMEM;
	if (s->system_wide) {
		s->threads = perf_thread_map__new_dummy();
	} else if (s->has_cmd && !ipp_rings__mixed(s)) {
		s->threads = perf_thread_map__new_array(1, &s->cmd.pid);
		s->owner = malloc(sizeof(pid_t));
		if (!s->owner)
			return -ENOMEM;
		s->owner[0] = s->cmd.pid;
	} else {
		pid_t *t;
		int n, err = ipp_rings__collect_threads(s, &t, &s->owner, &n);

		if (!err && s->has_cmd)
			err = append_cmd(s, &t, n++);
		if (err)
			return err;
		s->threads = perf_thread_map__new_array(n, t);
		free(t);
	}
	return s->threads ? 0 : -ENOMEM;
}

/* Make an evsel per event, in the sample or the side-band evlist, on the maps of the scope. */
static int make_evlists(struct ipp_rings *s, struct perf_evsel **evsels)
{
	struct perf_thread_map *tasks = s->threads;

	s->evlist = perf_evlist__new();
	s->sb_evlist = perf_evlist__new();
	if (!s->evlist || !s->sb_evlist)
		return -ENOMEM;
	for (size_t i = 0; i < s->es.n; i++) {
		struct perf_event_attr attr;

		if (!ipp_plan__opens(&s->plan, &s->es.v[i]))
			continue;	/* evsels[i] stays NULL */
		ipp_event_attr(&s->es.v[i], &s->mode, &attr);
		evsels[i] = perf_evsel__new(&attr);
		if (!evsels[i])
			return -ENOMEM;
		perf_evlist__add(s->es.v[i].role == IPP_EV_SIDEBAND ? s->sb_evlist : s->evlist,
				 evsels[i]);
	}
	/* CPU-wide events run on every CPU for any task; s->threads stays for the counters. */
	if (s->cpu_scope && !(tasks = perf_thread_map__new_dummy()))
		return -ENOMEM;
	perf_evlist__set_maps(s->evlist, s->cpus, tasks);
	perf_evlist__set_maps(s->sb_evlist, s->cpus, tasks);
	if (tasks != s->threads)
		perf_thread_map__put(tasks);
	return 0;
}

/* Explain why @ev could not be opened. Returns true when it is only missing and may be skipped. */
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

/*
 * Open the events one by one, so that a failure names its event and a missing
 * one does not sink the rest.
 */
static int open_each(struct ipp_rings *s, struct perf_evsel **evsels)
{
	struct fdset known = { 0 }, fresh = { 0 };
	int err = perf_fds_now(&known.v, &known.n);
	bool first_sample = true;

	for (size_t i = 0; !err && i < s->es.n; i++) {
		struct ipp_event *ev = &s->es.v[i];
		char *filter = NULL;
		/* The side-band event has rings of its own, apart from the samples' rings. */
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

/* Add the ring fds opened since @before to the epoll set, watching for data and hang-ups. */
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
 * CPU-wide rings never hang up when the targets exit, and they wake the
 * reader only when half full. A tick makes the fd readable, so that a
 * caller waiting on it consumes and finds done() in time.
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
 * Make the command's exit wake the reader by adding its pidfd to the epoll
 * set, once. A SIGCHLD that came between two waits would leave the reader
 * asleep until a tick or a ring's wakeup mark, delaying the end of a short
 * run by that much.
 */
static int watch_command(struct ipp_rings *s)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLONESHOT };

	if (!s->has_cmd || s->cmd.pid <= 0)
		return 0;
#ifdef SYS_pidfd_open
	s->cmd_pidfd = (int)syscall(SYS_pidfd_open, s->cmd.pid, 0);
#endif
	if (s->cmd_pidfd < 0)
		return 0;	/* before Linux 5.3: SIGCHLD and the rings end the run */
	ev.data.fd = s->cmd_pidfd;
	return epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->cmd_pidfd, &ev) < 0 ? -errno : 0;
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
	/*
	 * With plan.task_acct the software counters come from the kernel's
	 * accounting, and per-task events are opened only for the others.
	 */
	mask = s->plan.task_acct ? s->counter_mask & ~IPP_SW_COUNTERS : s->counter_mask;
	err = mask ? ipp_counters__open(&s->counters, any, s->threads, !s->system_wide,
					s->has_cmd && !ipp_rings__mixed(s), mask) : 0;
	perf_cpu_map__put(any);
	return err;
}

/*
 * Ask the kernel to pair every call for IPCPERF_EV_ALL_SYSCALLS except exit
 * and exit_group, which never return; their samples give no call either.
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

/* Ask the kernel to pair the syscalls that the session's tracepoints would have given. */
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

/* Load the fd identity again, without the calls' pairing, which failed. */
static void load_bpf_unpaired(struct ipp_rings *s)
{
	s->plan.pair_failed = true;
	load_bpf(s);
}

/*
 * Load the kernel's fd identity (lib/bpf) before the events are opened,
 * because when it pairs the syscalls too their tracepoints are not opened.
 * When it cannot be loaded, fds are identified from /proc instead; that is
 * said once, at debug level unless the user asked for it.
 */
static void load_bpf(struct ipp_rings *s)
{
	struct ipp_plan_in in;
	struct ipp_plan *p = &s->plan;

	ipp_rings__plan_in(s, &in);
	ipp_plan__choose(p, &in);
	if (!p->fdid)
		return;
	IPP_BPF_OPTS(o, .all_tasks = s->system_wide, .pair_calls = p->pair,
		     .pair_switches = p->pair_switches, .count_sched = p->count_sched,
		     .agg_calls = p->sums,
		     .task_records = p->task_recs,
		     .call_args = s->call_memory,
		     .restricted = ipp_caller_restricted(),
		     .exclude_tgid = s->system_wide && !s->include_self ? s->self : 0);
	s->bpf = ipp_bpf__new(&o);
	/*
	 * Not after a missing privilege, BTF or build: the fd programs alone
	 * would fail the same way.
	 */
	if (!s->bpf && p->pair && errno != EPERM && errno != EACCES && errno != ENOENT &&
	    errno != ENOTSUP) {
		/*
		 * A kernel that lacks what the call programs need may still
		 * accept the fd programs.
		 */
		ipp_debug("cannot pair the syscalls in the kernel (%s): taking their samples\n",
			  strerror(errno));
		load_bpf_unpaired(s);
		return;
	}
	if (!s->bpf) {
		ipp_debug("fd identity from /proc: %s\n", ipp_plan__bpf_why(errno));
		return;
	}
	if (!ipp_bpf__pairs(s->bpf))
		return;
	if (want_syscalls(s) < 0) {
		/* The fd identity works without pairing, so keep the samples. */
		ipp_debug("cannot pair the syscalls in the kernel: taking their samples\n");
		ipp_rings__close_bpf(s);
		load_bpf_unpaired(s);
		return;
	}
	ipp_plan__had(p, &in, ipp_bpf__counts_sched(s->bpf));
	p->summed = ipp_bpf__settle_sums(s->bpf) > 0;
	p->paired_tasks = ipp_bpf__task_records(s->bpf);
}

/* Fill @in with what the session's plan is chosen from. */
void ipp_rings__plan_in(const struct ipp_rings *s, struct ipp_plan_in *in)
{
	*in = (struct ipp_plan_in){
		.es = &s->es,
		.no_bpf = s->no_bpf,
		.want_samples = s->syscall_samples || s->recorder || s->tap,
		.system_wide = s->system_wide,
		.processes = !s->system_wide && !s->nr_tids,
		.sw_counters = s->want_counters && (s->counter_mask & IPP_SW_COUNTERS),
		.sums_ok = ipp_pipeline__takes_sums(s->base.pl),
	};
}

/*
 * Start counting the threads of the running targets from now on: what the
 * kernel accounted to each so far becomes its base. (The kernel itself
 * counts a command's threads from its exec, and children from their fork.)
 * A thread that cannot be read (it is gone) or finds no room is counted
 * from its first switch, as if it had no base.
 */
static void seed_threads(struct ipp_rings *s)
{
	int n = s->threads ? perf_thread_map__nr(s->threads) : 0;

	for (int i = 0; i < n; i++) {
		pid_t tid = perf_thread_map__pid(s->threads, i), pid = s->owner[i];
		struct ipp_task_acct base = { 0 };
		char comm[IPP_COMM_MAX];
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
 * Tell the loaded fd identity programs the targets and point them into each
 * CPU's sample ring. Returns 0, or -EAGAIN when the syscalls were to be
 * paired and cannot be: the events must then be opened again with their
 * samples.
 */
static int connect_bpf(struct ipp_rings *s)
{
	const uint64_t *ids;
	size_t nr = 0;
	int err = 0;

	if (!s->bpf)
		return 0;
	if (!s->ring_fds) {
		/* No sample event was opened, so the kernel has no ring to write into. */
		ipp_debug("fd identity from /proc: no sample ring for the kernel's records\n");
		ipp_rings__close_bpf(s);
		return 0;
	}
	for (size_t i = 0; !err && !s->system_wide && i < s->nr_targets; i++)
		err = s->has_cmd && s->plan.paired && s->targets[i] == s->cmd.pid ?
			      ipp_bpf__add_command(s->bpf, s->targets[i]) :
			      ipp_bpf__add_target(s->bpf, s->targets[i]);
	if (!err && s->plan.task_acct && (!s->has_cmd || ipp_rings__mixed(s)))
		seed_threads(s);
	for (int i = 0; !err && i < perf_cpu_map__nr(s->cpus); i++)
		err = ipp_bpf__set_output(s->bpf, perf_cpu_map__cpu(s->cpus, i).cpu, s->ring_fds[i],
					  CLOCK_MONOTONIC);
	ids = ipp_bpf__ids(s->bpf, &nr);
	if (!err)
		err = ipp_pipeline__fdid_ids(s->base.pl, ids, nr);
	if (err) {
		bool paired = s->plan.paired;

		ipp_debug("fd identity from /proc: %s\n", ipp_plan__bpf_why(-err));
		ipp_rings__close_bpf(s);
		if (paired) {
			s->plan.pair_failed = true;
			return -EAGAIN;
		}
		return 0;
	}
	ipp_debug("fd identity from the kernel: %zu programs, records into %zu rings%s%s%s\n",
		  ipp_bpf__nr_programs(s->bpf), nr,
		  s->plan.paired ? "; syscalls paired in the kernel" : "",
		  s->plan.summed ? "; read/write calls added up per fd there" : "",
		  s->plan.sched_counted ? "; switches and wakeups counted there" : "");
	return 0;
}

/* Set up the pipeline's per-CPU counts, and which tracepoints count towards unreported loss. */
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
		.system_wide = s->system_wide, .command = s->has_cmd && !ipp_rings__mixed(s),
		.include_self = s->include_self, .self = s->self,
		.sched_idle = ipp_pipeline__wants_sched(s->base.pl),
	};
	/* Per task, a switch in from another process's thread is not seen. */
	ipp_pipeline__sched_complete(s->base.pl, s->cpu_scope);
	s->plan.wakings = s->mode.sched_idle;
	/*
	 * Load BPF before the events, since whether the syscalls' tracepoints
	 * are opened depends on it.
	 */
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
	/*
	 * Connect BPF only after watch_rings(): its bpf-output events are
	 * CPU-wide and never hang up, and done() waits for the watched rings to.
	 */
	if (!err)
		err = connect_bpf(s);
	if (!err && s->cpu_scope && !s->system_wide)
		err = start_tick(s);
	if (!err)
		err = watch_command(s);
	if (!err && s->want_counters)
		err = open_counters(s);
	if (!err)
		err = count_setup(s);
	free(evsels);
	free(before.v);
	return err;
}

int ipp_rings__open_events(struct ipp_rings *s)
{
	int err = open_events_once(s);

	/*
	 * The kernel could not pair the syscalls after all, so open them again
	 * with their samples.
	 */
	if (err == -EAGAIN) {
		ipp_rings__close_events(s);
		err = open_events_once(s);
	}
	return err;
}

