/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Accounting: per-(process, fd, object) throughput and latency, per-process
 * scheduling, per-(process, syscall) totals. What each fd is comes from the
 * fd table (fdtable.c); the counts of each of its incarnations are kept here,
 * by the same index.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "callfds.h"
#include "fdtable.h"
#include "procres.h"
#include "resolve.h"
#include "hist.h"
#include "internal.h"
#include "syscalls.h"

/*
 * Its histogram is made at its first timed call: a process that opens and
 * closes fds at full speed makes an incarnation per open, and most of them
 * are never read or written (a histogram is 4 KiB).
 */
struct side {
	uint64_t ops, bytes, errors, time_ns, msgs;
	struct ipp_hist *hist;
};

/* The counts of one incarnation of an fd (the fd table's index). */
struct inccount {
	uint64_t first_ns, last_ns;
	struct side rd, wr;
};

struct scstat {
	pid_t tid;		/* 0 unless per_thread */
	int nr;
	const char *name;
	uint64_t calls, errors, time_ns;
	struct ipcperf_errno_count *errnos;	/* ascending by err */
	size_t nr_errnos;
	struct ipp_hist hist;
};

struct proc {
	pid_t pid;
	char comm[16];
	uint64_t vol, invol, wakeups, migrations, syscalls, threads;
	bool exited;
	bool seen;		/* had an event of its own (not only created by fork) */
	uint64_t seen_ns;	/* the time of the first */
	struct scstat **sc;	/* sorted by (tid, nr) */
	size_t nr_sc, cap_sc;
};

struct thread {
	pid_t tid, pid;
	int last_cpu;
};

/* Direct-mapped caches of the last procs and threads looked up, by id modulo this. */
#define LOOKUP_CACHE 16

struct ipcperf_stats {
	bool no_proc;
	bool per_thread;
	struct proc **procs;
	size_t nr_procs, cap_procs;
	struct proc *proc_cache[LOOKUP_CACHE];		/* procs are never freed before the end */
	struct thread *thread_cache[LOOKUP_CACHE];	/* cleared when threads[] moves */
	struct ipp_fdtab *fdt;	/* what each fd is */
	struct inccount *counts;	/* by incarnation */
	size_t nr_counts, cap_counts;
	struct thread *threads;
	size_t nr_threads, cap_threads;
	/* ipcperf_stats__on_call(): calls wait here until their fd is settled. */
	void (*call_cb)(void *ctx, const struct ipcperf_syscall *ev,
			const struct ipcperf_fd_object *fd);
	void *call_ctx;
	struct ipp_settleq calls;
	/* ipcperf_stats__on_every_call(): every call, until its fds are settled. */
	ipp_callfds_fn every_cb;
	void *every_ctx;
	struct ipp_callfds every;
	/* ipcperf_stats__attach(): the session whose targets' fds are read at its start */
	const struct ipcperf_session *scan_on_start;
	/*
	 * The command the session started, and its first exec: the fds it had
	 * until then, closed by that exec, were the tracer's, not the command's.
	 */
	pid_t cmd_pid;
	uint64_t cmd_exec_ns;
};

/*
 * The table asks /proc what its fds are; recording, each answer also goes
 * to the capture's @log. Without the kernel's words on fds, /proc is read
 * ahead of the merge, as session @s takes its records (procres.h), and
 * the table takes those answers: one resolver for every stats object of
 * the session.
 */
static void proc_resolver(struct ipcperf_stats *st, struct ipcperf_session *s,
			  struct ipp_identlog *log)
{
	struct ipp_procres *pr = ipp_procres__new(), *use = pr;
	struct ipp_resolver *res;

	if (s && pr && !ipp_session_kernel_fdid(s)) {
		struct ipp_procres *shared = ipp_session_read_ahead(s, pr);

		if (shared)
			use = shared;
	}
	res = ipp_procres__resolver(use);
	ipp_procres__put(pr);
	if (res && log)
		res = ipp_logres__record(log, res);
	ipp_fdtab__set_resolver(st->fdt, res);
}

struct ipcperf_stats *ipcperf_stats__new(const struct ipcperf_stats_opts *opts)
{
	struct ipcperf_stats *st;

	if (opts && (opts->sz < sizeof(size_t) || !ipp_opts_valid(opts, opts->sz, sizeof(*opts)))) {
		errno = EINVAL;
		return NULL;
	}
	st = calloc(1, sizeof(*st));
	if (!st) {
		errno = ENOMEM;
		return NULL;
	}
	st->no_proc = IPP_OPTS_HAS(opts, no_proc) && opts->no_proc;
	st->per_thread = IPP_OPTS_HAS(opts, per_thread) && opts->per_thread;
	st->fdt = ipp_fdtab__new();
	if (!st->fdt) {
		free(st);
		errno = ENOMEM;
		return NULL;
	}
	/* Not attached to a session: /proc, read when an fd is first seen. */
	if (!st->no_proc)
		proc_resolver(st, NULL, NULL);
	ipp_settleq__init(&st->calls, st->fdt);
	ipp_callfds__init(&st->every, st->fdt);
	return st;
}

static void free_proc(struct proc *p)
{
	for (size_t i = 0; i < p->nr_sc; i++) {
		free(p->sc[i]->errnos);
		free(p->sc[i]);
	}
	free(p->sc);
	free(p);
}

static void free_hists(struct inccount *c)
{
	free(c->rd.hist);
	free(c->wr.hist);
}

void ipcperf_stats__delete(struct ipcperf_stats *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->nr_procs; i++)
		free_proc(st->procs[i]);
	free(st->procs);
	for (size_t i = 0; i < st->nr_counts; i++)
		free_hists(&st->counts[i]);
	free(st->counts);
	free(st->threads);
	ipp_settleq__fini(&st->calls);
	ipp_callfds__fini(&st->every);
	ipp_fdtab__delete(st->fdt);
	free(st);
}

/* ------------------------------------------------------------------ lookups */

static int cmp_proc(const void *key, const void *elem)
{
	pid_t a = *(const pid_t *)key, b = (*(struct proc *const *)elem)->pid;

	return (a > b) - (a < b);
}

static int cmp_thread(const void *key, const void *elem)
{
	pid_t a = *(const pid_t *)key, b = ((const struct thread *)elem)->tid;

	return (a > b) - (a < b);
}

/* procs is kept sorted by pid. */
static struct proc *get_proc(struct ipcperf_stats *st, pid_t pid, bool create)
{
	struct proc **c = &st->proc_cache[(unsigned int)pid % LOOKUP_CACHE];
	struct proc *p;
	size_t lo;

	if (*c && (*c)->pid == pid)
		return *c;
	if (ipp_bsearch_at(&pid, st->procs, st->nr_procs, sizeof(*st->procs), cmp_proc, &lo))
		return *c = st->procs[lo];
	if (!create)
		return NULL;
	if (ipp_grow((void **)&st->procs, &st->cap_procs, st->nr_procs + 1, sizeof(*st->procs)) < 0)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	memmove(&st->procs[lo + 1], &st->procs[lo], (st->nr_procs - lo) * sizeof(*st->procs));
	st->procs[lo] = p;
	st->nr_procs++;
	return *c = p;
}

static struct thread *get_thread(struct ipcperf_stats *st, pid_t tid, bool create)
{
	struct thread **c = &st->thread_cache[(unsigned int)tid % LOOKUP_CACHE];
	size_t lo;

	if (*c && (*c)->tid == tid)
		return *c;
	if (ipp_bsearch_at(&tid, st->threads, st->nr_threads, sizeof(*st->threads), cmp_thread, &lo))
		return *c = &st->threads[lo];
	if (!create)
		return NULL;
	if (ipp_grow((void **)&st->threads, &st->cap_threads, st->nr_threads + 1,
		     sizeof(*st->threads)) < 0)
		return NULL;
	memmove(&st->threads[lo + 1], &st->threads[lo],
		(st->nr_threads - lo) * sizeof(*st->threads));
	st->threads[lo] = (struct thread){ .tid = tid, .last_cpu = -1 };
	st->nr_threads++;
	memset(st->thread_cache, 0, sizeof(st->thread_cache));
	return *c = &st->threads[lo];
}

/* @p had an event of its own at @ns. */
static void see_proc(struct proc *p, uint64_t ns)
{
	if (!p->seen)
		p->seen_ns = ns;
	p->seen = true;
}

/* Note that thread @tid belongs to process @pid (counts threads per process). */
static void see_thread(struct ipcperf_stats *st, struct proc *p, pid_t tid)
{
	struct thread *t = get_thread(st, tid, true);

	if (t && t->pid != p->pid) {
		t->pid = p->pid;
		p->threads++;
	}
}

/* The counts of incarnation @inc of the fd table, zeroed when new. */
static struct inccount *count_of(struct ipcperf_stats *st, long inc)
{
	size_t need = (size_t)inc + 1;

	if (inc < 0)
		return NULL;
	if (need > st->nr_counts) {
		if (ipp_grow((void **)&st->counts, &st->cap_counts, need, sizeof(*st->counts)) < 0)
			return NULL;
		for (size_t i = st->nr_counts; i < need; i++) {
			memset(&st->counts[i], 0, sizeof(st->counts[i]));
		}
		st->nr_counts = need;
	}
	return &st->counts[inc];
}

/* ------------------------------------------------------------------ feeding */

/* A syscall table's key: (tid, nr). */
struct sckey {
	pid_t tid;
	int nr;
};

static int cmp_sc(const void *key, const void *elem)
{
	const struct sckey *k = key;
	const struct scstat *e = *(struct scstat *const *)elem;

	if (k->tid != e->tid)
		return k->tid < e->tid ? -1 : 1;
	return (k->nr > e->nr) - (k->nr < e->nr);
}

static struct scstat *get_sc(struct proc *p, pid_t tid, int nr, const char *name)
{
	struct sckey key = { tid, nr };
	struct scstat *sc;
	size_t lo;

	if (ipp_bsearch_at(&key, p->sc, p->nr_sc, sizeof(*p->sc), cmp_sc, &lo))
		return p->sc[lo];
	if (ipp_grow((void **)&p->sc, &p->cap_sc, p->nr_sc + 1, sizeof(*p->sc)) < 0)
		return NULL;
	sc = calloc(1, sizeof(*sc));
	if (!sc)
		return NULL;
	sc->tid = tid;
	sc->nr = nr;
	sc->name = name ? name : ipp_syscall_name_any(nr);
	ipp_hist_init(&sc->hist);
	memmove(&p->sc[lo + 1], &p->sc[lo], (p->nr_sc - lo) * sizeof(*p->sc));
	p->sc[lo] = sc;
	p->nr_sc++;
	return sc;
}

static void count_errno(struct scstat *sc, int err)
{
	size_t i;
	struct ipcperf_errno_count *v;

	for (i = 0; i < sc->nr_errnos && sc->errnos[i].err < err; i++)
		;
	if (i < sc->nr_errnos && sc->errnos[i].err == err) {
		sc->errnos[i].count++;
		return;
	}
	v = realloc(sc->errnos, (sc->nr_errnos + 1) * sizeof(*v));
	if (!v)
		return;
	sc->errnos = v;
	memmove(&v[i + 1], &v[i], (sc->nr_errnos - i) * sizeof(*v));
	v[i] = (struct ipcperf_errno_count){ .err = err, .count = 1 };
	sc->nr_errnos++;
}

static void account(struct side *sd, const struct ipcperf_syscall *ev)
{
	uint64_t dur = ev->end_ns - ev->start_ns;

	sd->ops++;
	/* Entered before the capture: its bytes are real, its duration is not. */
	if (!ev->started_before_capture) {
		sd->time_ns += dur;
		if (!sd->hist && (sd->hist = malloc(sizeof(*sd->hist))) != NULL)
			ipp_hist_init(sd->hist);
		if (sd->hist)
			ipp_hist_add(sd->hist, dur);
	}
	if (ev->ret < 0)
		sd->errors++;
	else if (ev->ret_is_msgs)
		sd->msgs += (uint64_t)ev->ret;
	else
		sd->bytes += (uint64_t)ev->ret;
}

static void call_settled(void *ctx, const struct ipcperf_syscall *ev, const struct ipp_ident *id)
{
	struct ipcperf_stats *st = ctx;
	struct ipcperf_fd_object fd = {
		.object = id->object, .kind = id->kind, .detail = id->detail, .ino = id->ino,
		.peer_ino = id->peer_ino,
	};

	st->call_cb(st->call_ctx, ev, &fd);
}

int ipcperf_stats__on_call(struct ipcperf_stats *st,
			   void (*cb)(void *ctx, const struct ipcperf_syscall *ev,
				      const struct ipcperf_fd_object *fd),
			   void *ctx)
{
	if (!st)
		return -EINVAL;
	st->call_cb = cb;
	st->call_ctx = ctx;
	return 0;
}

int ipcperf_stats__on_every_call(struct ipcperf_stats *st,
				 void (*cb)(void *ctx, const struct ipcperf_syscall *ev,
					    const struct ipcperf_call_fds *fds),
				 void *ctx)
{
	if (!st)
		return -EINVAL;
	st->every_cb = cb;
	st->every_ctx = ctx;
	return 0;
}

void ipcperf_stats__settle_calls(struct ipcperf_stats *st)
{
	if (st && st->call_cb)
		ipp_settleq__drain(&st->calls, true, call_settled, st);
	if (st && st->every_cb)
		ipp_callfds__drain(&st->every, true, st->every_cb, st->every_ctx);
}

void ipcperf_stats__add_syscall(struct ipcperf_stats *st, const struct ipcperf_syscall *evp)
{
	struct ipcperf_syscall named;
	const struct ipcperf_syscall *ev = evp;
	struct proc *p = get_proc(st, ev->pid, true);
	struct inccount *c;
	struct scstat *sc;
	long inc;

	if (!p)
		return;
	if (!ev->name) {
		/* Fed by hand without a name: the table's, so comparisons below hold. */
		named = *evp;
		named.name = ipp_syscall_name_any(evp->nr);
		ev = &named;
	}
	see_proc(p, ev->start_ns);
	p->syscalls++;
	see_thread(st, p, ev->tid);
	sc = get_sc(p, st->per_thread ? ev->tid : 0, ev->nr, ev->name);
	if (sc) {
		sc->calls++;
		if (!ev->started_before_capture) {
			sc->time_ns += ev->end_ns - ev->start_ns;
			ipp_hist_add(&sc->hist, ev->end_ns - ev->start_ns);
		}
		if (ev->ret < 0 && ev->ret >= -IPP_MAX_ERRNO) {
			sc->errors++;
			count_errno(sc, (int)-ev->ret);
		}
	}
	if (st->every_cb) {
		long arg_inc = ipp_callfds__arg_inc(st->fdt, ev);

		inc = ipp_fdtab__syscall(st->fdt, ev);
		ipp_callfds__push(&st->every, st->fdt, ev, arg_inc, inc);
		ipp_callfds__drain(&st->every, false, st->every_cb, st->every_ctx);
	} else {
		inc = ipp_fdtab__syscall(st->fdt, ev);
	}
	c = count_of(st, inc);
	if (!c)
		return;
	if (st->call_cb) {
		ipp_settleq__push(&st->calls, ev, inc);
		ipp_settleq__drain(&st->calls, false, call_settled, st);
	}
	if (!c->first_ns)
		c->first_ns = ev->start_ns;
	c->last_ns = ev->end_ns;
	account(ev->cls == IPCPERF_SC_READ ? &c->rd : &c->wr, ev);
}

/* Thread @tid of @pid was scheduled (named @comm then), at @time: its process, seen. */
static struct proc *sched_proc(struct ipcperf_stats *st, pid_t pid, pid_t tid,
			       const char comm[16], uint64_t time)
{
	struct proc *p = get_proc(st, pid, true);

	if (!p)
		return NULL;
	ipp_fdtab__clock(st->fdt, time);
	see_proc(p, time);
	if (!p->comm[0])
		memcpy(p->comm, comm, sizeof(p->comm));
	see_thread(st, p, tid);
	return p;
}

void ipcperf_stats__add_switch(struct ipcperf_stats *st, const struct ipcperf_switch *ev)
{
	struct proc *p = sched_proc(st, ev->pid, ev->tid, ev->prev_comm, ev->time_ns);
	struct thread *t;

	if (!p)
		return;
	if (ev->preempted)
		p->invol++;
	else
		p->vol++;
	t = get_thread(st, ev->tid, false);
	if (t) {
		if (t->last_cpu >= 0 && t->last_cpu != ev->cpu)
			p->migrations++;
		t->last_cpu = ev->cpu;
	}
}

void ipcperf_stats__add_wakeup(struct ipcperf_stats *st, const struct ipcperf_wakeup *ev)
{
	struct thread *t = get_thread(st, ev->tid, false);
	struct proc *p;

	ipp_fdtab__clock(st->fdt, ev->time_ns);
	/* Only threads of processes we account for: the woken one may be anybody. */
	if (!t || !(p = get_proc(st, t->pid, false)))
		return;
	p->wakeups++;
}

void ipcperf_stats__add_sched_totals(struct ipcperf_stats *st,
				     const struct ipcperf_sched_totals *ev)
{
	struct proc *p;

	if (!st || !ev || !(p = sched_proc(st, ev->pid, ev->tid, ev->comm, ev->time_ns)))
		return;
	p->vol += ev->voluntary;
	p->invol += ev->involuntary;
	p->wakeups += ev->wakeups;
	p->migrations += ev->migrations;
}

void ipcperf_stats__add_task(struct ipcperf_stats *st, const struct ipcperf_task *ev)
{
	struct proc *p = get_proc(st, ev->pid, true), *c;

	ipp_fdtab__task(st->fdt, ev);
	if (!p)
		return;
	switch (ev->kind) {
	case IPCPERF_TASK_FORK:
		see_thread(st, p, ev->tid);
		if (ev->child_tid == ev->pid)
			break;
		c = get_proc(st, ev->child_tid, true);
		if (!c)
			break;
		c->exited = false;
		if (ev->comm)
			snprintf(c->comm, sizeof(c->comm), "%s", ev->comm);
		break;
	case IPCPERF_TASK_EXEC: {
		const char *base = ev->filename ? strrchr(ev->filename, '/') : NULL;

		see_proc(p, ev->time_ns);
		if (ev->pid == st->cmd_pid && !st->cmd_exec_ns)
			st->cmd_exec_ns = ev->time_ns;
		if (ev->filename)
			snprintf(p->comm, sizeof(p->comm), "%s", base ? base + 1 : ev->filename);
		break;
	}
	case IPCPERF_TASK_EXIT:
		if (ev->tid == ev->pid) {
			p->exited = true;
			if (ev->comm && !p->comm[0])
				snprintf(p->comm, sizeof(p->comm), "%s", ev->comm);
		}
		break;
	}
}

int ipcperf_stats__set_fd_identity(struct ipcperf_stats *st, pid_t pid, int fd,
				   const struct ipcperf_fd_identity *id)
{
	if (!st || !id || id->sz < offsetof(struct ipcperf_fd_identity, kind) + sizeof(id->kind) ||
	    !ipp_opts_valid(id, id->sz, sizeof(*id)) || !id->object || fd < 0 || pid <= 0)
		return -EINVAL;
	if (!get_proc(st, pid, true))
		return -ENOMEM;
	return ipp_fdtab__set_identity(st->fdt, pid, fd, id);
}

int ipcperf_stats__set_fd_object(struct ipcperf_stats *st, pid_t pid, int fd, const char *object,
				 enum ipcperf_fd_kind kind)
{
	IPCPERF_OPTS(ipcperf_fd_identity, id, .object = object, .kind = kind);

	return ipcperf_stats__set_fd_identity(st, pid, fd, &id);
}

/* ------------------------------------------------------------------ attach */

/* The session's events are on: the fds its running targets have now. */
static void scan_started(void *ctx)
{
	struct ipcperf_stats *st = ctx;
	const pid_t *pids;
	size_t n;

	if (!st->scan_on_start)
		return;
	pids = ipp_session_target_pids(st->scan_on_start, &n);
	st->scan_on_start = NULL;
	ipp_fdtab__attach_fds(st->fdt, pids, n);
}

static void h_syscall(void *ctx, const struct ipcperf_syscall *ev)
{
	ipcperf_stats__add_syscall(ctx, ev);
}

static void h_switch(void *ctx, const struct ipcperf_switch *ev)
{
	ipcperf_stats__add_switch(ctx, ev);
}

static void h_wakeup(void *ctx, const struct ipcperf_wakeup *ev)
{
	ipcperf_stats__add_wakeup(ctx, ev);
}

void ipcperf_stats__add_fd_open(struct ipcperf_stats *st, const struct ipcperf_fd_open *ev)
{
	if (!st || !ev)
		return;
	if (ipp_fdtab__fd_open(st->fdt, ev) && st->every_cb)
		ipp_callfds__late_word(&st->every, st->fdt, ev);
}

static void h_fd_open(void *ctx, const struct ipcperf_fd_open *ev)
{
	ipcperf_stats__add_fd_open(ctx, ev);
}

static void h_sched_totals(void *ctx, const struct ipcperf_sched_totals *ev)
{
	ipcperf_stats__add_sched_totals(ctx, ev);
}

static void h_task(void *ctx, const struct ipcperf_task *ev)
{
	ipcperf_stats__add_task(ctx, ev);
}

/* A target's name, from /proc at attach (or the capture's log). */
static void set_comm(void *ctx, pid_t pid, const char *name)
{
	struct proc *p = get_proc(ctx, pid, true);

	if (p)
		snprintf(p->comm, sizeof(p->comm), "%.15s", name);
}

struct ipp_fdtab *ipp_stats_fdtab(struct ipcperf_stats *st)
{
	return st->fdt;
}

int ipcperf_stats__attach(struct ipcperf_stats *st, struct ipcperf_session *s)
{
	IPCPERF_OPTS(ipcperf_handlers, h, .ctx = st, .syscall = h_syscall,
		     .sched_switch = h_switch, .wakeup = h_wakeup, .task = h_task,
		     .fd_open = h_fd_open, .sched_totals = h_sched_totals);
	struct ipp_identlog *log;
	const pid_t *pids;
	bool replay = false;
	size_t n;
	int err;

	if (!st || !s)
		return -EINVAL;
	err = ipcperf_session__add_handlers(s, &h);
	if (err)
		return err;
	if (ipp_session_kernel_fdid(s))
		ipp_fdtab__expect_kernel(st->fdt);
	st->cmd_pid = ipcperf_session__child_pid(s) > 0 ? ipcperf_session__child_pid(s) : 0;
	log = st->no_proc ? NULL : ipp_session_identlog(s, &replay);
	if (log && replay) {
		ipp_fdtab__set_resolver(st->fdt, ipp_logres__replay(log));
		ipp_fdtab__attach_replay(st->fdt, set_comm, st);
		return 0;
	}
	/* A capture without a log: its processes are not this machine's now. */
	if (ipp_session_is_replay(s))
		st->no_proc = true;
	if (st->no_proc)
		ipp_fdtab__set_resolver(st->fdt, NULL);
	else
		proc_resolver(st, s, log);
	/*
	 * fds that exist before the capture, read while they are open. A
	 * command is held before its exec until the events are on: its fds now
	 * are those it starts with. Processes that run (-p, -t) may change
	 * theirs until the events are on, which can take a second (the BPF
	 * program loads): their fds are read once the events are on, which see
	 * every change since.
	 */
	pids = ipp_session_target_pids(s, &n);
	st->scan_on_start = ipcperf_session__child_pid(s) <= 0 ? s : NULL;
	ipp_fdtab__attach(st->fdt, pids, n, set_comm, st, !st->scan_on_start);
	if (st->scan_on_start && (err = ipp_session_on_start(s, scan_started, st)) < 0)
		return err;
	return 0;
}

/* ------------------------------------------------------------------ reading */

static void lat_of(const struct ipp_hist *h, struct ipcperf_lat *l)
{
	l->min = ipp_hist_min(h);
	l->avg = ipp_hist_avg(h);
	l->p50 = ipp_hist_percentile(h, 50);
	l->p99 = ipp_hist_percentile(h, 99);
	l->max = ipp_hist_max(h);
}

/* An incarnation (its index) with the identity it is reported under. */
struct rowref {
	size_t inc;
	const struct ipp_inc *in;
	const struct ipp_ident *id;
};

static int cmp_rowref(const void *a, const void *b)
{
	const struct rowref *x = a, *y = b;
	int c;

	if (x->in->pid != y->in->pid)
		return x->in->pid < y->in->pid ? -1 : 1;
	if (x->in->fd != y->in->fd)
		return x->in->fd < y->in->fd ? -1 : 1;
	c = strcmp(x->id->object, y->id->object);
	if (c)
		return c;
	/* Two unknown incarnations are two rows: never merged on a guess. */
	return (x->inc > y->inc) - (x->inc < y->inc);
}

static bool same_row(const struct rowref *a, const struct rowref *b)
{
	return a->in->pid == b->in->pid && a->in->fd == b->in->fd &&
	       a->id->state != IPP_ID_UNKNOWN && b->id->state != IPP_ID_UNKNOWN &&
	       strcmp(a->id->object, b->id->object) == 0;
}

/* Add @src into @dst, whose histogram is the caller's. */
static void add_side(struct side *dst, const struct side *src)
{
	dst->ops += src->ops;
	dst->bytes += src->bytes;
	dst->errors += src->errors;
	dst->time_ns += src->time_ns;
	dst->msgs += src->msgs;
	if (src->hist)
		ipp_hist_merge(dst->hist, src->hist);
}

/* @dst (its histogram the caller's) becomes a copy of @src. */
static void copy_side(struct side *dst, const struct side *src)
{
	struct ipp_hist *h = dst->hist;

	*dst = (struct side){ .hist = h };
	ipp_hist_init(h);
	add_side(dst, src);
}

static void io_of(const struct side *sd, struct ipcperf_io *io)
{
	io->ops = sd->ops;
	io->bytes = sd->bytes;
	io->errors = sd->errors;
	io->time_ns = sd->time_ns;
	io->msgs = sd->msgs;
	lat_of(sd->hist, &io->lat_ns);
}

/*
 * The counts of incarnation @inc: none yet (@zero, whose histograms are
 * initialized) when it was only held, never read or written.
 */
static const struct inccount *counts_of(const struct ipcperf_stats *st, size_t inc,
					const struct inccount *zero)
{
	return inc < st->nr_counts ? &st->counts[inc] : zero;
}

/*
 * Not an fd @p held: one of the command's process that its first exec
 * closed (the tracer's, before the command), or one that ended before the
 * pid did anything of its own (the copy a thread's clone made, under the
 * thread's id, of a table it shares; the fds of an earlier holder of the pid).
 */
static bool not_held(const struct ipcperf_stats *st, const struct proc *p,
		     const struct ipp_inc *in)
{
	if (in->open)
		return false;
	return (st->cmd_exec_ns && in->pid == st->cmd_pid && in->end_ns <= st->cmd_exec_ns) ||
	       in->end_ns < p->seen_ns;
}

/* Whether incarnation @inc made any read or write call. */
static bool has_io(const struct ipcperf_stats *st, size_t inc)
{
	return inc < st->nr_counts && (st->counts[inc].rd.ops || st->counts[inc].wr.ops);
}

/*
 * The incarnations to report, sorted into rows: every fd a process we saw
 * held during the capture, with I/O or without (a thread's copy of its
 * parent's table at clone is never used: its pid is never seen).
 */
static size_t held_rows(struct ipcperf_stats *st, struct rowref *v, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct ipp_inc *in = ipp_fdtab__inc(st->fdt, i);
		const struct proc *p = get_proc(st, in->pid, false);

		if (!p || !p->seen || (not_held(st, p, in) && !has_io(st, i)))
			continue;
		v[k].inc = i;
		v[k].in = in;
		v[k++].id = ipp_fdtab__reported(st->fdt, i);
	}
	if (k > 1)
		qsort(v, k, sizeof(*v), cmp_rowref);
	return k;
}

/* Hand @cb the row of @v[@i] and the incarnations after it that are the same row. */
static int emit_row(const struct ipcperf_stats *st, const struct rowref *v, size_t n, size_t *i,
		    struct side *rd, struct side *wr, const struct inccount *zero,
		    int (*cb)(void *ctx, const struct ipcperf_fd_row *row), void *ctx)
{
	const struct inccount *c = counts_of(st, v[*i].inc, zero);
	const struct ipp_ident *id = v[*i].id;
	struct ipcperf_fd_row row = {
		.pid = v[*i].in->pid, .fd = v[*i].in->fd, .object = id->object,
		.kind = id->kind, .detail = id->detail, .ino = id->ino,
		.peer_ino = id->peer_ino, .first_ns = c->first_ns, .last_ns = c->last_ns,
	};
	size_t j;

	copy_side(rd, &c->rd);
	copy_side(wr, &c->wr);
	for (j = *i + 1; j < n && same_row(&v[*i], &v[j]); j++) {
		const struct inccount *o = counts_of(st, v[j].inc, zero);

		add_side(rd, &o->rd);
		add_side(wr, &o->wr);
		if (o->first_ns && (!row.first_ns || o->first_ns < row.first_ns))
			row.first_ns = o->first_ns;
		if (o->last_ns > row.last_ns)
			row.last_ns = o->last_ns;
	}
	*i = j;
	io_of(rd, &row.read);
	io_of(wr, &row.write);
	row.read_hist = ipp_as_hist(rd->hist);
	row.write_hist = ipp_as_hist(wr->hist);
	return cb(ctx, &row);
}

int ipcperf_stats__for_each_fd(struct ipcperf_stats *st,
			       int (*cb)(void *ctx, const struct ipcperf_fd_row *row), void *ctx)
{
	size_t n;
	struct rowref *v;
	struct side *rd, *wr;
	struct inccount *zero;
	int ret = 0;

	if (!st || !cb)
		return -EINVAL;
	n = ipp_fdtab__count(st->fdt);
	if (!n)
		return 0;
	v = malloc(n * sizeof(*v));
	rd = calloc(1, sizeof(*rd));
	wr = calloc(1, sizeof(*wr));
	zero = calloc(1, sizeof(*zero));
	if (rd)
		rd->hist = malloc(sizeof(*rd->hist));
	if (wr)
		wr->hist = malloc(sizeof(*wr->hist));
	if (!v || !rd || !wr || !zero || !rd->hist || !wr->hist) {
		ret = -ENOMEM;
		goto out;
	}
	n = held_rows(st, v, n);
	for (size_t i = 0; i < n && !ret;)
		ret = emit_row(st, v, n, &i, rd, wr, zero, cb, ctx);
out:
	free(v);
	if (rd)
		free(rd->hist);
	if (wr)
		free(wr->hist);
	free(rd);
	free(wr);
	free(zero);
	return ret;
}

int ipcperf_stats__for_each_proc(struct ipcperf_stats *st,
				 int (*cb)(void *ctx, const struct ipcperf_proc_row *row), void *ctx)
{
	if (!st || !cb)
		return -EINVAL;
	for (size_t i = 0; i < st->nr_procs; i++) {
		const struct proc *p = st->procs[i];
		struct ipcperf_proc_row row = {
			.pid = p->pid, .comm = p->comm, .voluntary_cs = p->vol,
			.involuntary_cs = p->invol, .wakeups = p->wakeups,
			.migrations = p->migrations, .syscalls = p->syscalls,
			.threads = p->threads, .exited = p->exited,
		};
		int ret;

		if (!p->seen)
			continue;
		ret = cb(ctx, &row);
		if (ret)
			return ret;
	}
	return 0;
}

static int cmp_sc_name(const void *a, const void *b)
{
	const struct scstat *x = *(const struct scstat *const *)a;
	const struct scstat *y = *(const struct scstat *const *)b;
	int c;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	c = strcmp(x->name, y->name);
	return c ? c : (x->nr > y->nr) - (x->nr < y->nr);
}

int ipcperf_stats__for_each_syscall(struct ipcperf_stats *st,
				    int (*cb)(void *ctx, const struct ipcperf_syscall_row *row),
				    void *ctx)
{
	if (!st || !cb)
		return -EINVAL;
	for (size_t i = 0; i < st->nr_procs; i++) {
		const struct proc *p = st->procs[i];
		const struct scstat **v;
		int ret = 0;

		if (!p->nr_sc)
			continue;
		v = malloc(p->nr_sc * sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (size_t k = 0; k < p->nr_sc; k++)
			v[k] = p->sc[k];
		qsort(v, p->nr_sc, sizeof(*v), cmp_sc_name);
		for (size_t k = 0; k < p->nr_sc && !ret; k++) {
			struct ipcperf_syscall_row row = {
				.pid = p->pid, .name = v[k]->name, .calls = v[k]->calls,
				.errors = v[k]->errors, .time_ns = v[k]->time_ns, .nr = v[k]->nr,
				.tid = v[k]->tid, .errnos = v[k]->errnos,
				.nr_errnos = v[k]->nr_errnos,
			};

			if (!v[k]->calls)
				continue;
			lat_of(&v[k]->hist, &row.lat_ns);
			ret = cb(ctx, &row);
		}
		free(v);
		if (ret)
			return ret;
	}
	return 0;
}

void ipcperf_stats__reset(struct ipcperf_stats *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->nr_counts; i++) {
		struct inccount *c = &st->counts[i];

		free_hists(c);
		memset(c, 0, sizeof(*c));
	}
	for (size_t i = 0; i < st->nr_procs; i++) {
		struct proc *p = st->procs[i];

		p->vol = p->invol = p->wakeups = p->migrations = p->syscalls = 0;
		for (size_t k = 0; k < p->nr_sc; k++) {
			struct scstat *sc = p->sc[k];

			sc->calls = sc->errors = sc->time_ns = 0;
			free(sc->errnos);
			sc->errnos = NULL;
			sc->nr_errnos = 0;
			ipp_hist_init(&sc->hist);
		}
	}
}
