/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Accounting: per-(process, fd, object) throughput and latency, per-process
 * scheduling, per-(process, syscall) totals.
 *
 * fd identity (DESIGN.md, accuracy rule 2). Each fd of a process goes through
 * incarnations: one starts when an fd-creating call returns it, when dup2
 * replaces it, or when an fd never seen before is used; one ends at close,
 * dup2 over it, or exec. What an incarnation refers to comes from the
 * caller (ipcperf_stats__set_fd_identity()), from reading /proc, or is copied
 * from the incarnation it was duplicated from (dup, dup2, fork). A /proc
 * answer read at time T describes the incarnation that was open at T. Events
 * reach us late, so the incarnation looked up (the answer's authority) may
 * turn out to have ended before T (its close was still on its way through
 * the rings when we looked): then the answer was about a later object, and
 * the authority and every copy made of it are reported as unknown. Copies
 * are checked against their authority, so a child forked before the lookup
 * still learns what its inherited fd is.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fdid.h"
#include "hist.h"
#include "internal.h"

enum id_state {
	ID_NONE,	/* not looked up yet */
	ID_PROC,	/* from /proc at res_ns: valid unless the incarnation ended before */
	ID_FINAL,	/* exact (duplicated from a known fd, or given by the caller) */
	ID_UNKNOWN,
};

struct ident {
	enum id_state state;
	enum ipcperf_fd_kind kind;
	uint64_t res_ns;
	uint64_t ino, peer_ino;
	int sock_type;		/* SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET; 0 for pipes */
	int64_t capacity;	/* bytes the channel holds; -1 unknown */
	bool cap_default;	/* capacity is the system default, not measured */
	int cloexec;		/* the fd closes at exec: 1, 0, or -1 unknown */
	size_t auth;		/* ID_PROC: the incarnation /proc described (index) */
	char object[128];
	char detail[136];	/* "addr:port -> addr:port": two 64-byte addresses */
};

struct side {
	uint64_t ops, bytes, errors, time_ns, msgs;
	struct ipp_hist hist;
};

struct inc {
	pid_t pid;
	int fd;
	bool open;
	uint64_t start_ns;	/* 0: open since before we looked */
	uint64_t end_ns;
	uint64_t first_ns, last_ns;
	struct ident id;
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

struct fdslot {
	int fd;
	size_t inc;		/* index into st->incs */
};

struct proc {
	pid_t pid;
	char comm[16];
	uint64_t vol, invol, wakeups, migrations, syscalls, threads;
	bool exited;
	bool seen;		/* had an event of its own (not only created by fork) */
	struct fdslot *fds;	/* open incarnations, unsorted */
	size_t nr_fds, cap_fds;
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
	struct inc *incs;
	size_t nr_incs, cap_incs;
	struct thread *threads;
	size_t nr_threads, cap_threads;
	struct ipp_sockdb *sockdb;
	uint64_t sockdb_ns;
	uint64_t now_ns;	/* latest event time delivered */
	/*
	 * Captures (record.c): recording, every answer read from /proc goes to
	 * the log; replaying (@replay), answers come from the log instead, in the
	 * order they were asked for, and /proc is never read.
	 */
	struct ipp_identlog *log;
	bool replay;
};

const char *ipcperf_fd_kind_name(enum ipcperf_fd_kind kind)
{
	static const char *const names[] = {
		[IPCPERF_FD_UNKNOWN] = "unknown", [IPCPERF_FD_PIPE] = "pipe",
		[IPCPERF_FD_UNIX] = "unix", [IPCPERF_FD_TCP] = "tcp", [IPCPERF_FD_UDP] = "udp",
		[IPCPERF_FD_FILE] = "file", [IPCPERF_FD_TTY] = "tty", [IPCPERF_FD_OTHER] = "other",
	};

	return (unsigned int)kind < IPP_ARRAY_SIZE(names) ? names[kind] : "unknown";
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
	return st;
}

static void free_proc(struct proc *p)
{
	for (size_t i = 0; i < p->nr_sc; i++) {
		free(p->sc[i]->errnos);
		free(p->sc[i]);
	}
	free(p->sc);
	free(p->fds);
	free(p);
}

void ipcperf_stats__delete(struct ipcperf_stats *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->nr_procs; i++)
		free_proc(st->procs[i]);
	free(st->procs);
	free(st->incs);
	free(st->threads);
	ipp_sockdb__delete(st->sockdb);
	free(st);
}

/* ------------------------------------------------------------------ lookups */

/* Binary search in procs, which is kept sorted by pid. */
static struct proc *get_proc(struct ipcperf_stats *st, pid_t pid, bool create)
{
	struct proc **c = &st->proc_cache[(unsigned int)pid % LOOKUP_CACHE];
	size_t lo = 0, hi = st->nr_procs;
	struct proc *p;

	if (*c && (*c)->pid == pid)
		return *c;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (st->procs[mid]->pid == pid)
			return *c = st->procs[mid];
		if (st->procs[mid]->pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!create)
		return NULL;
	if (st->nr_procs == st->cap_procs) {
		size_t cap = st->cap_procs ? st->cap_procs * 2 : 16;
		struct proc **v = realloc(st->procs, cap * sizeof(*v));

		if (!v)
			return NULL;
		st->procs = v;
		st->cap_procs = cap;
	}
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
	size_t lo = 0, hi = st->nr_threads;

	if (*c && (*c)->tid == tid)
		return *c;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (st->threads[mid].tid == tid)
			return *c = &st->threads[mid];
		if (st->threads[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!create)
		return NULL;
	if (st->nr_threads == st->cap_threads) {
		size_t cap = st->cap_threads ? st->cap_threads * 2 : 64;
		struct thread *v = realloc(st->threads, cap * sizeof(*v));

		if (!v)
			return NULL;
		st->threads = v;
		st->cap_threads = cap;
	}
	memmove(&st->threads[lo + 1], &st->threads[lo],
		(st->nr_threads - lo) * sizeof(*st->threads));
	st->threads[lo] = (struct thread){ .tid = tid, .last_cpu = -1 };
	st->nr_threads++;
	memset(st->thread_cache, 0, sizeof(st->thread_cache));
	return *c = &st->threads[lo];
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

static struct fdslot *find_slot(struct proc *p, int fd)
{
	for (size_t i = 0; i < p->nr_fds; i++)
		if (p->fds[i].fd == fd)
			return &p->fds[i];
	return NULL;
}

static void drop_slot(struct proc *p, struct fdslot *s)
{
	*s = p->fds[--p->nr_fds];
}

/* ------------------------------------------------------------------ identity */

static enum ipcperf_fd_kind map_kind(enum ipp_fd_kind k)
{
	switch (k) {
	case IPP_FD_PIPE: return IPCPERF_FD_PIPE;
	case IPP_FD_UNIX: return IPCPERF_FD_UNIX;
	case IPP_FD_TCP: return IPCPERF_FD_TCP;
	case IPP_FD_UDP: return IPCPERF_FD_UDP;
	case IPP_FD_FILE: return IPCPERF_FD_FILE;
	case IPP_FD_TTY: return IPCPERF_FD_TTY;
	case IPP_FD_OTHER: return IPCPERF_FD_OTHER;
	default: return IPCPERF_FD_UNKNOWN;
	}
}

static void ident_from_fdid(struct ident *id, const struct ipp_fdid *f, uint64_t when)
{
	memset(id, 0, sizeof(*id));
	id->state = ID_PROC;
	id->res_ns = when;
	id->kind = map_kind(f->kind);
	id->ino = (f->kind == IPP_FD_PIPE || f->family) ? f->ino : 0;
	id->peer_ino = f->peer_ino;
	id->sock_type = f->type;
	id->capacity = f->sndbuf ? (int64_t)f->sndbuf : -1;
	id->cloexec = f->flags < 0 ? -1 : !!(f->flags & O_CLOEXEC);
	snprintf(id->object, sizeof(id->object), "%s", f->object);
	if (f->kind == IPP_FD_TCP || f->kind == IPP_FD_UDP) {
		char l[64] = "", r[64] = "";

		ipp_sockaddr_str(&f->local, l, sizeof(l));
		ipp_sockaddr_str(&f->remote, r, sizeof(r));
		snprintf(id->detail, sizeof(id->detail), "%s -> %s", l, r);
	} else if (f->kind == IPP_FD_UNIX && f->peer_ino) {
		snprintf(id->detail, sizeof(id->detail), "peer socket:[%llu]",
			 (unsigned long long)f->peer_ino);
	}
}

static struct ipp_sockdb *fresh_sockdb(struct ipcperf_stats *st)
{
	uint64_t now = ipp_now_ns();

	if (!st->sockdb)
		st->sockdb = ipp_sockdb__new();
	/* One netlink dump serves every lookup of the next 100 ms. */
	if (st->sockdb && now - st->sockdb_ns > 100000000ull) {
		ipp_sockdb__refresh(st->sockdb);
		st->sockdb_ns = now;
	}
	return st->sockdb;
}

/* Only sockets need the netlink socket table: don't dump it for pipes and files. */
static bool is_socket(pid_t pid, int fd)
{
	char path[64], link[16];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
	n = readlink(path, link, sizeof(link) - 1);
	return n >= 7 && strncmp(link, "socket:", 7) == 0;
}

/*
 * A pipe's capacity from F_GETPIPE_SZ on a duplicate of the target's fd
 * (pidfd_getfd); without one, the kernel's default of 16 pages, said so.
 */
static void set_pipe_capacity(struct ident *id, pid_t pid, int fd)
{
	int cap = ipp_pipe_capacity_via_pidfd(pid, fd);

	id->cap_default = cap <= 0;
	id->capacity = cap > 0 ? cap : 16 * 4096;
}

/* Recording: note what /proc answered (@id NULL or not ID_PROC: could not be resolved). */
static void log_answer(struct ipcperf_stats *st, uint32_t what, pid_t pid, int fd,
		       const struct ident *id)
{
	struct ipp_ident_ans a = { .what = what, .pid = pid, .fd = fd };

	if (!st->log || st->replay)
		return;
	if (id && id->state == ID_PROC) {
		a.ok = 1;
		a.res_ns = id->res_ns;
		a.kind = id->kind;
		a.sock_type = id->sock_type;
		a.ino = id->ino;
		a.peer_ino = id->peer_ino;
		a.capacity = id->capacity;
		a.cap_default = id->cap_default;
		a.cloexec = id->cloexec;
		memcpy(a.object, id->object, sizeof(a.object));
		memcpy(a.detail, id->detail, sizeof(a.detail));
	}
	ipp_identlog__add(st->log, &a);
}

/* Replay: the answer logged for the same question, into @id (ID_UNKNOWN if none). */
static int replay_answer(struct ipcperf_stats *st, unsigned int mask, pid_t pid, int fd,
			 struct ident *id, struct ipp_ident_ans *a)
{
	if (ipp_identlog__take(st->log, mask, pid, fd, a) < 0) {
		if (id) {
			memset(id, 0, sizeof(*id));
			id->state = ID_UNKNOWN;
			id->cloexec = -1;
		}
		return -ENOENT;
	}
	if (!id)
		return 0;
	memset(id, 0, sizeof(*id));
	id->state = a->ok ? ID_PROC : ID_UNKNOWN;
	id->cloexec = -1;
	if (!a->ok)
		return 0;
	id->res_ns = a->res_ns;
	id->kind = (enum ipcperf_fd_kind)a->kind;
	id->sock_type = a->sock_type;
	id->ino = a->ino;
	id->peer_ino = a->peer_ino;
	id->capacity = a->capacity;
	id->cap_default = a->cap_default;
	id->cloexec = a->cloexec;
	memcpy(id->object, a->object, sizeof(id->object));
	memcpy(id->detail, a->detail, sizeof(id->detail));
	return 0;
}

/* Look the fd up in /proc; the answer is checked against the incarnation's end later. */
static void resolve(struct ipcperf_stats *st, struct inc *in)
{
	struct ipp_fdid f;
	uint64_t when;

	if (in->id.state != ID_NONE)
		return;
	if (st->replay) {
		struct ipp_ident_ans a;

		replay_answer(st, IPP_IDQ_RESOLVE, in->pid, in->fd, &in->id, &a);
		in->id.auth = (size_t)(in - st->incs);
		return;
	}
	if (st->no_proc) {
		in->id.state = ID_UNKNOWN;
		return;
	}
	when = ipp_now_ns();
	if (ipp_fdid_resolve(in->pid, in->fd, is_socket(in->pid, in->fd) ? fresh_sockdb(st) : NULL,
			     &f) == 0) {
		ident_from_fdid(&in->id, &f, when);
		in->id.auth = (size_t)(in - st->incs);
		if (f.kind == IPP_FD_PIPE)
			set_pipe_capacity(&in->id, in->pid, in->fd);
	} else {
		in->id.state = ID_UNKNOWN;
	}
	log_answer(st, IPP_IDQ_RESOLVE, in->pid, in->fd, &in->id);
}

static struct inc *new_inc(struct ipcperf_stats *st, struct proc *p, int fd, uint64_t start)
{
	struct inc *in;
	struct fdslot *s;

	if (st->nr_incs == st->cap_incs) {
		size_t cap = st->cap_incs ? st->cap_incs * 2 : 64;
		struct inc *v = realloc(st->incs, cap * sizeof(*v));

		if (!v)
			return NULL;
		st->incs = v;
		st->cap_incs = cap;
	}
	if (p->nr_fds == p->cap_fds) {
		size_t cap = p->cap_fds ? p->cap_fds * 2 : 16;
		struct fdslot *v = realloc(p->fds, cap * sizeof(*v));

		if (!v)
			return NULL;
		p->fds = v;
		p->cap_fds = cap;
	}
	in = &st->incs[st->nr_incs];
	memset(in, 0, sizeof(*in));
	in->pid = p->pid;
	in->fd = fd;
	in->open = true;
	in->start_ns = start;
	in->id.cloexec = -1;
	ipp_hist_init(&in->rd.hist);
	ipp_hist_init(&in->wr.hist);
	s = &p->fds[p->nr_fds++];
	s->fd = fd;
	s->inc = st->nr_incs++;
	return in;
}

static void end_inc(struct ipcperf_stats *st, struct proc *p, int fd, uint64_t when)
{
	struct fdslot *s = find_slot(p, fd);
	struct inc *in;

	if (!s)
		return;
	in = &st->incs[s->inc];
	in->open = false;
	in->end_ns = when;
	drop_slot(p, s);
}

/* The open incarnation of @fd, starting one if there is none. */
static struct inc *cur_inc(struct ipcperf_stats *st, struct proc *p, int fd, uint64_t when,
			   bool do_resolve)
{
	struct fdslot *s = find_slot(p, fd);
	struct inc *in;

	if (s)
		return &st->incs[s->inc];
	in = new_inc(st, p, fd, 0);
	if (in && do_resolve)
		resolve(st, in);
	return in;
}

/* Start an incarnation of @fd that refers to what @from refers to (dup, dup2, fork). */
static void dup_inc(struct ipcperf_stats *st, struct proc *p, int fd, const struct ident *from,
		    uint64_t when, int cloexec)
{
	struct inc *in;

	end_inc(st, p, fd, when);
	in = new_inc(st, p, fd, when);
	if (!in)
		return;
	if (from && (from->state == ID_FINAL || from->state == ID_PROC))
		in->id = *from;		/* ID_PROC keeps its authority */
	else
		resolve(st, in);
	if (in->id.state != ID_UNKNOWN)
		in->id.cloexec = cloexec;
}

/* Look the open incarnation of @fd up again in /proc (what it is connected to changed). */
static void relook(struct ipcperf_stats *st, struct proc *p, int fd)
{
	struct fdslot *s = find_slot(p, fd);
	struct inc *in;
	int cloexec;

	if (!s || (st->no_proc && !st->replay))
		return;
	in = &st->incs[s->inc];
	if (in->id.state == ID_FINAL)
		return;
	cloexec = in->id.cloexec;
	in->id.state = ID_NONE;
	st->sockdb_ns = 0;	/* the connection is newer than any table we hold */
	resolve(st, in);
	if (in->id.state != ID_UNKNOWN)
		in->id.cloexec = cloexec;
}

/* Set the close-on-exec state of the open incarnation of @fd. */
static void set_cloexec(struct ipcperf_stats *st, struct proc *p, int fd, int cloexec)
{
	struct fdslot *s = find_slot(p, fd);

	if (s)
		st->incs[s->inc].id.cloexec = cloexec;
}

/* ------------------------------------------------------------------ feeding */

static int cmp_sckey(pid_t tid_a, int nr_a, pid_t tid_b, int nr_b)
{
	if (tid_a != tid_b)
		return tid_a < tid_b ? -1 : 1;
	return nr_a < nr_b ? -1 : nr_a > nr_b;
}

static struct scstat *get_sc(struct proc *p, pid_t tid, int nr, const char *name)
{
	size_t lo = 0, hi = p->nr_sc;
	struct scstat *sc;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = cmp_sckey(p->sc[mid]->tid, p->sc[mid]->nr, tid, nr);

		if (!c)
			return p->sc[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (p->nr_sc == p->cap_sc) {
		size_t cap = p->cap_sc ? p->cap_sc * 2 : 16;
		struct scstat **v = realloc(p->sc, cap * sizeof(*v));

		if (!v)
			return NULL;
		p->sc = v;
		p->cap_sc = cap;
	}
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

/* Whether the fd an fd-creating call returned closes at exec (-1: cannot tell). */
static int new_fd_cloexec(const struct ipcperf_syscall *ev)
{
	if (!strcmp(ev->name, "openat") && ev->nr_args > 2)
		return !!(ev->args[2] & O_CLOEXEC);
	if (!strcmp(ev->name, "open") && ev->nr_args > 1)
		return !!(ev->args[1] & O_CLOEXEC);
	if (!strcmp(ev->name, "socket") && ev->nr_args > 1)
		return !!(ev->args[1] & SOCK_CLOEXEC);
	if (!strcmp(ev->name, "accept4") && ev->nr_args > 3)
		return !!(ev->args[3] & SOCK_CLOEXEC);
	if (!strcmp(ev->name, "accept"))
		return 0;
	return -1;
}

static void account(struct side *sd, const struct ipcperf_syscall *ev)
{
	uint64_t dur = ev->end_ns - ev->start_ns;

	sd->ops++;
	/* Entered before the capture: its bytes are real, its duration is not. */
	if (!ev->started_before_capture) {
		sd->time_ns += dur;
		ipp_hist_add(&sd->hist, dur);
	}
	if (ev->ret < 0)
		sd->errors++;
	else if (ev->ret_is_msgs)
		sd->msgs += (uint64_t)ev->ret;
	else
		sd->bytes += (uint64_t)ev->ret;
}

void ipcperf_stats__add_syscall(struct ipcperf_stats *st, const struct ipcperf_syscall *evp)
{
	struct ipcperf_syscall named;
	const struct ipcperf_syscall *ev = evp;
	struct proc *p = get_proc(st, ev->pid, true);
	struct scstat *sc;
	struct inc *in;

	if (!p)
		return;
	if (!ev->name) {
		/* Fed by hand without a name: the table's, so comparisons below hold. */
		named = *evp;
		named.name = ipp_syscall_name_any(evp->nr);
		ev = &named;
	}
	st->now_ns = ev->end_ns;
	p->seen = true;
	p->syscalls++;
	see_thread(st, p, ev->tid);
	sc = get_sc(p, st->per_thread ? ev->tid : 0, ev->nr, ev->name);
	if (sc) {
		sc->calls++;
		if (!ev->started_before_capture) {
			sc->time_ns += ev->end_ns - ev->start_ns;
			ipp_hist_add(&sc->hist, ev->end_ns - ev->start_ns);
		}
		/* Kernel errors are -1..-4095; larger negatives are values (lseek, ...). */
		if (ev->ret < 0 && ev->ret >= -4095) {
			sc->errors++;
			count_errno(sc, (int)-ev->ret);
		}
	}

	switch (ev->cls) {
	case IPCPERF_SC_READ:
	case IPCPERF_SC_WRITE:
		if (ev->fd < 0)
			break;
		in = cur_inc(st, p, ev->fd, ev->start_ns, true);
		if (!in)
			break;
		if (!in->first_ns)
			in->first_ns = ev->start_ns;
		in->last_ns = ev->end_ns;
		account(ev->cls == IPCPERF_SC_READ ? &in->rd : &in->wr, ev);
		break;
	case IPCPERF_SC_FD_NEW:
		if (ev->ret < 0)
			break;
		if (ev->fd >= 0 && strcmp(ev->name, "accept") && strcmp(ev->name, "accept4")) {
			/* dup, fcntl(F_DUPFD): the new fd is the old one's object */
			struct fdslot *s = find_slot(p, ev->fd);
			struct ident from;

			/* fcntl(F_DUPFD_CLOEXEC) alone sets close-on-exec on the copy. */
			int cx = ev->nr_args > 1 && !strcmp(ev->name, "fcntl") &&
				 ev->args[1] == F_DUPFD_CLOEXEC;

			if (s) {
				from = st->incs[s->inc].id;
				dup_inc(st, p, (int)ev->ret, &from, ev->end_ns, cx);
			} else {
				dup_inc(st, p, (int)ev->ret, NULL, ev->end_ns, cx);
			}
		} else {
			end_inc(st, p, (int)ev->ret, ev->end_ns);
			in = new_inc(st, p, (int)ev->ret, ev->end_ns);
			if (in) {
				resolve(st, in);
				if (in->id.state != ID_UNKNOWN)
					in->id.cloexec = new_fd_cloexec(ev);
			}
		}
		break;
	case IPCPERF_SC_FD_DUP2:
		if (ev->ret < 0 || ev->nr_args < 2 || ev->args[0] == ev->args[1])
			break;
		{
			struct fdslot *s = find_slot(p, (int)ev->args[0]);
			struct ident from;

			/* dup2 clears close-on-exec on the copy; dup3 sets it on request. */
			int cx = !strcmp(ev->name, "dup3") && ev->nr_args > 2 &&
				 (ev->args[2] & O_CLOEXEC);

			if (s) {
				from = st->incs[s->inc].id;
				dup_inc(st, p, (int)ev->args[1], &from, ev->end_ns, cx);
			} else {
				dup_inc(st, p, (int)ev->args[1], NULL, ev->end_ns, cx);
			}
		}
		break;
	case IPCPERF_SC_FD_OTHER:
		if (ev->ret >= 0 && ev->fd >= 0 && ev->nr_args > 2 && !strcmp(ev->name, "fcntl") &&
		    ev->args[1] == F_SETFD)
			set_cloexec(st, p, ev->fd, !!(ev->args[2] & FD_CLOEXEC));
		/* A socket looked up before it connected has no peer yet: look again. */
		if ((ev->ret == 0 || ev->ret == -EINPROGRESS) && ev->fd >= 0 &&
		    !strcmp(ev->name, "connect"))
			relook(st, p, ev->fd);
		break;
	case IPCPERF_SC_FD_CLOSE:
		/* On Linux the fd is gone even when close fails, except with EBADF. */
		if (ev->fd >= 0 && ev->ret != -EBADF)
			end_inc(st, p, ev->fd, ev->start_ns);
		break;
	default:
		break;
	}
}

void ipcperf_stats__add_switch(struct ipcperf_stats *st, const struct ipcperf_switch *ev)
{
	struct proc *p = get_proc(st, ev->pid, true);
	struct thread *t;

	if (!p)
		return;
	st->now_ns = ev->time_ns;
	p->seen = true;
	if (!p->comm[0])
		memcpy(p->comm, ev->prev_comm, sizeof(p->comm));
	see_thread(st, p, ev->tid);
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

	st->now_ns = ev->time_ns;
	/* Only threads of processes we account for: the woken one may be anybody. */
	if (!t || !(p = get_proc(st, t->pid, false)))
		return;
	p->wakeups++;
}

struct fdlist {
	struct {
		int fd;
		struct ident id;
	} *v;
	size_t n;
	uint64_t when;
};

static int add_fd(struct fdlist *l, int fd, const struct ident *id)
{
	void *v = realloc(l->v, (l->n + 1) * sizeof(*l->v));

	if (!v)
		return -ENOMEM;
	l->v = v;
	l->v[l->n].fd = fd;
	l->v[l->n++].id = *id;
	return 0;
}

static int collect_fd(void *ctx, int fd, const struct ipp_fdid *f)
{
	struct fdlist *l = ctx;
	struct ident id;

	ident_from_fdid(&id, f, l->when);
	return add_fd(l, fd, &id);
}

/* The fds of process @pid now, from /proc or (replaying) from the log. */
static void scan_fds(struct ipcperf_stats *st, pid_t pid, struct fdlist *l)
{
	if (st->replay) {
		struct ipp_ident_ans a;
		struct ident id;

		while (replay_answer(st, IPP_IDQ_SCAN | IPP_IDQ_SCAN_END, pid, -1, &id, &a) == 0 &&
		       a.what == IPP_IDQ_SCAN)
			if (id.state == ID_PROC && add_fd(l, a.fd, &id) < 0)
				break;
		return;
	}
	if (ipp_fdid_scan(pid, fresh_sockdb(st), collect_fd, l) < 0)
		l->n = 0;
	for (size_t k = 0; k < l->n; k++)
		log_answer(st, IPP_IDQ_SCAN, pid, l->v[k].fd, &l->v[k].id);
	log_answer(st, IPP_IDQ_SCAN_END, pid, -1, NULL);
}

/*
 * exec closed the close-on-exec fds and kept the others. Which ones were
 * close-on-exec we track (fdinfo flags, O_CLOEXEC of the creating call,
 * dup2 clears it, F_SETFD); an fd we cannot tell about is ended, never
 * guessed. /proc, read now, can name survivors we did not know: read later
 * than the exec, its answer is held to the usual check (their incarnation
 * must not have ended before we looked). It cannot tell who survived: by now
 * a closed fd's number may be in use again.
 */
static void exec_fds(struct ipcperf_stats *st, struct proc *p, uint64_t when)
{
	struct fdlist l = { .when = ipp_now_ns() };
	bool scanned = false;

	for (size_t i = p->nr_fds; i-- > 0;) {
		struct inc *in = &st->incs[p->fds[i].inc];

		if (in->id.cloexec != 0) {
			end_inc(st, p, in->fd, when);
			continue;
		}
		if (in->id.state != ID_NONE && in->id.state != ID_UNKNOWN)
			continue;
		if (!scanned && (!st->no_proc || st->replay)) {
			scanned = true;
			scan_fds(st, p->pid, &l);
		}
		for (size_t k = 0; k < l.n; k++)
			if (l.v[k].fd == in->fd) {
				in->id = l.v[k].id;
				in->id.auth = p->fds[i].inc;
				in->id.cloexec = 0;
			}
	}
	free(l.v);
}

void ipcperf_stats__add_task(struct ipcperf_stats *st, const struct ipcperf_task *ev)
{
	struct proc *p = get_proc(st, ev->pid, true);

	if (!p)
		return;
	st->now_ns = ev->time_ns;
	switch (ev->kind) {
	case IPCPERF_TASK_FORK: {
		/*
		 * A new process starts with a copy of its parent's fd table. The
		 * tracepoint does not say whether the child is a thread; a thread's
		 * copy is never used, since its events carry its parent's pid.
		 */
		struct proc *c;

		see_thread(st, p, ev->tid);
		if (ev->child_tid == ev->pid)
			break;
		c = get_proc(st, ev->child_tid, true);
		if (!c)
			break;
		/*
		 * A pid we knew (an exited process, or a thread's copy) is reused:
		 * the new process has its parent's fds, not the old holder's.
		 */
		while (c->nr_fds)
			end_inc(st, c, c->fds[0].fd, ev->time_ns);
		c->exited = false;
		if (ev->comm)
			snprintf(c->comm, sizeof(c->comm), "%s", ev->comm);
		for (size_t i = 0; i < p->nr_fds; i++) {
			struct ident from = st->incs[p->fds[i].inc].id;
			int fd = p->fds[i].fd;

			dup_inc(st, c, fd, &from, ev->time_ns, from.cloexec);
			p = get_proc(st, ev->pid, false);
		}
		break;
	}
	case IPCPERF_TASK_EXEC: {
		const char *base = ev->filename ? strrchr(ev->filename, '/') : NULL;

		exec_fds(st, p, ev->time_ns);
		p->seen = true;
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
	struct proc *p;
	struct inc *in;

	if (!st || !id || id->sz < offsetof(struct ipcperf_fd_identity, kind) + sizeof(id->kind) ||
	    !ipp_opts_valid(id, id->sz, sizeof(*id)) || !id->object || fd < 0 || pid <= 0)
		return -EINVAL;
	p = get_proc(st, pid, true);
	if (!p)
		return -ENOMEM;
	end_inc(st, p, fd, st->now_ns);
	in = new_inc(st, p, fd, st->now_ns);
	if (!in)
		return -ENOMEM;
	in->id.state = ID_FINAL;
	in->id.kind = id->kind;
	in->id.capacity = -1;
	snprintf(in->id.object, sizeof(in->id.object), "%s", id->object);
	if (IPP_OPTS_HAS(id, ino) && id->ino)
		in->id.ino = id->ino;
	else if (sscanf(id->object, "pipe:[%llu]", (unsigned long long *)&in->id.ino) != 1)
		sscanf(id->object, "socket:[%llu]", (unsigned long long *)&in->id.ino);
	if (IPP_OPTS_HAS(id, peer_ino))
		in->id.peer_ino = id->peer_ino;
	if (in->id.kind == IPCPERF_FD_UNIX && in->id.peer_ino)
		snprintf(in->id.detail, sizeof(in->id.detail), "peer socket:[%llu]",
			 (unsigned long long)in->id.peer_ino);
	if (IPP_OPTS_HAS(id, sock_type))
		in->id.sock_type = id->sock_type;
	if (IPP_OPTS_HAS(id, capacity) && id->capacity > 0)
		in->id.capacity = id->capacity;
	return 0;
}

int ipcperf_stats__set_fd_object(struct ipcperf_stats *st, pid_t pid, int fd, const char *object,
				 enum ipcperf_fd_kind kind)
{
	IPCPERF_OPTS(ipcperf_fd_identity, id, .object = object, .kind = kind);

	return ipcperf_stats__set_fd_identity(st, pid, fd, &id);
}

/* ------------------------------------------------------------------ attach */

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

static void h_task(void *ctx, const struct ipcperf_task *ev)
{
	ipcperf_stats__add_task(ctx, ev);
}

struct scan_ctx {
	struct ipcperf_stats *st;
	pid_t pid;
	uint64_t when;
};

static int scan_one(void *ctx, int fd, const struct ipp_fdid *f)
{
	struct scan_ctx *sc = ctx;
	struct proc *p = get_proc(sc->st, sc->pid, true);
	struct inc *in;

	if (!p)
		return -ENOMEM;
	in = cur_inc(sc->st, p, fd, sc->when, false);
	if (in && in->id.state == ID_NONE) {
		ident_from_fdid(&in->id, f, sc->when);
		in->id.auth = (size_t)(in - sc->st->incs);
		if (f->kind == IPP_FD_PIPE)
			set_pipe_capacity(&in->id, sc->pid, fd);
		log_answer(sc->st, IPP_IDQ_SCAN, sc->pid, fd, &in->id);
	}
	return 0;
}

/* Does @id say what its incarnation is? A /proc answer only while its authority was open. */
static bool ident_valid(const struct ipcperf_stats *st, const struct ident *id)
{
	const struct inc *a;

	if (id->state == ID_FINAL)
		return true;
	if (id->state != ID_PROC || id->auth >= st->nr_incs)
		return false;
	a = &st->incs[id->auth];
	return a->open || a->end_ns >= id->res_ns;
}

long ipp_stats_inc_of(struct ipcperf_stats *st, pid_t pid, int fd)
{
	struct proc *p = get_proc(st, pid, false);
	struct fdslot *s = p ? find_slot(p, fd) : NULL;

	return s ? (long)s->inc : -ENOENT;
}

int ipp_stats_chan_at(struct ipcperf_stats *st, long inc, bool final, struct ipp_chan *out)
{
	const struct ident *id;

	if (inc < 0 || (size_t)inc >= st->nr_incs)
		return -ENOENT;
	id = &st->incs[inc].id;
	if (id->state == ID_NONE)
		return final ? -ENOENT : 0;
	if (id->state == ID_PROC && id->auth < st->nr_incs && !final &&
	    st->incs[id->auth].open && st->now_ns < id->res_ns)
		return 0;
	if (!ident_valid(st, id) || !id->ino)
		return -ENOENT;
	out->kind = id->kind;
	out->ino = id->ino;
	out->peer_ino = id->peer_ino;
	out->sock_type = id->sock_type;
	out->capacity = id->capacity;
	out->cap_default = id->cap_default;
	out->object = id->object;
	return 1;
}

/* A process's name and the fds it has before the capture, replayed from the log. */
static void replay_attach(struct ipcperf_stats *st)
{
	struct ipp_ident_ans a;

	/* The recorder logged, per target, its name and then its fds. */
	while (ipp_identlog__take_any(st->log, IPP_IDQ_COMM, &a) == 0) {
		struct proc *p = get_proc(st, a.pid, true);
		struct fdlist l = { 0 };

		if (p && a.ok)
			snprintf(p->comm, sizeof(p->comm), "%.15s", a.object);
		scan_fds(st, a.pid, &l);
		for (size_t k = 0; p && k < l.n; k++) {
			struct inc *in = cur_inc(st, p, l.v[k].fd, 0, false);

			if (in && in->id.state == ID_NONE) {
				in->id = l.v[k].id;
				in->id.auth = (size_t)(in - st->incs);
			}
		}
		free(l.v);
	}
}

int ipcperf_stats__attach(struct ipcperf_stats *st, struct ipcperf_session *s)
{
	IPCPERF_OPTS(ipcperf_handlers, h, .ctx = st, .syscall = h_syscall,
		     .sched_switch = h_switch, .wakeup = h_wakeup, .task = h_task);
	const pid_t *pids;
	size_t n;
	int err;

	if (!st || !s)
		return -EINVAL;
	err = ipcperf_session__add_handlers(s, &h);
	if (err)
		return err;
	st->log = st->no_proc ? NULL : ipp_session_identlog(s, &st->replay);
	st->replay = st->replay && st->log;
	if (st->replay) {
		replay_attach(st);
		return 0;
	}
	/* A capture without a log: its processes are not this machine's now. */
	if (ipp_session_is_replay(s))
		st->no_proc = true;
	if (st->no_proc)
		return 0;
	/* fds that exist before the capture: their identity now, while they are open. */
	pids = ipp_session_target_pids(s, &n);
	for (size_t i = 0; i < n; i++) {
		struct scan_ctx sc = { .st = st, .pid = pids[i], .when = ipp_now_ns() };
		struct proc *p = get_proc(st, pids[i], true);
		struct ident cid = { .state = ID_UNKNOWN };
		char path[64], comm[32] = "";
		FILE *f;

		if (p) {
			snprintf(path, sizeof(path), "/proc/%d/comm", (int)pids[i]);
			f = fopen(path, "re");
			if (f) {
				if (fgets(comm, sizeof(comm), f)) {
					comm[strcspn(comm, "\n")] = '\0';
					cid.state = ID_PROC;
					snprintf(cid.object, sizeof(cid.object), "%s", comm);
				}
				fclose(f);
				snprintf(p->comm, sizeof(p->comm), "%.15s", comm);
			}
		}
		log_answer(st, IPP_IDQ_COMM, pids[i], -1, &cid);
		ipp_fdid_scan(pids[i], fresh_sockdb(st), scan_one, &sc);
		log_answer(st, IPP_IDQ_SCAN_END, pids[i], -1, NULL);
	}
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

/* An incarnation with the identity it is reported under. */
struct rowref {
	const struct inc *in;
	const struct ident *id;
};

static const struct ident unknown_ident = { .state = ID_UNKNOWN, .object = "unknown" };

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
	return x->in < y->in ? -1 : x->in > y->in;
}

static bool same_row(const struct rowref *a, const struct rowref *b)
{
	return a->in->pid == b->in->pid && a->in->fd == b->in->fd &&
	       a->id->state != ID_UNKNOWN && b->id->state != ID_UNKNOWN &&
	       strcmp(a->id->object, b->id->object) == 0;
}

static void add_side(struct side *dst, const struct side *src)
{
	dst->ops += src->ops;
	dst->bytes += src->bytes;
	dst->errors += src->errors;
	dst->time_ns += src->time_ns;
	dst->msgs += src->msgs;
	ipp_hist_merge(&dst->hist, &src->hist);
}

static void io_of(const struct side *sd, struct ipcperf_io *io)
{
	io->ops = sd->ops;
	io->bytes = sd->bytes;
	io->errors = sd->errors;
	io->time_ns = sd->time_ns;
	io->msgs = sd->msgs;
	lat_of(&sd->hist, &io->lat_ns);
}

int ipcperf_stats__for_each_fd(struct ipcperf_stats *st,
			       int (*cb)(void *ctx, const struct ipcperf_fd_row *row), void *ctx)
{
	struct rowref *v;
	struct side *rd, *wr;
	int ret = 0;

	if (!st || !cb)
		return -EINVAL;
	if (!st->nr_incs)
		return 0;
	v = malloc(st->nr_incs * sizeof(*v));
	rd = malloc(sizeof(*rd));
	wr = malloc(sizeof(*wr));
	if (!v || !rd || !wr) {
		free(v);
		free(rd);
		free(wr);
		return -ENOMEM;
	}
	for (size_t i = 0; i < st->nr_incs; i++) {
		v[i].in = &st->incs[i];
		v[i].id = ident_valid(st, &st->incs[i].id) ? &st->incs[i].id : &unknown_ident;
	}
	qsort(v, st->nr_incs, sizeof(*v), cmp_rowref);
	for (size_t i = 0; i < st->nr_incs && !ret;) {
		const struct inc *in = v[i].in;
		const struct ident *id = v[i].id;
		struct ipcperf_fd_row row = {
			.pid = in->pid, .fd = in->fd, .object = id->object, .kind = id->kind,
			.detail = id->detail, .ino = id->ino, .peer_ino = id->peer_ino,
			.first_ns = in->first_ns, .last_ns = in->last_ns,
		};
		size_t j;

		*rd = in->rd;
		*wr = in->wr;
		for (j = i + 1; j < st->nr_incs && same_row(&v[i], &v[j]); j++) {
			const struct inc *o = v[j].in;

			add_side(rd, &o->rd);
			add_side(wr, &o->wr);
			if (o->first_ns && (!row.first_ns || o->first_ns < row.first_ns))
				row.first_ns = o->first_ns;
			if (o->last_ns > row.last_ns)
				row.last_ns = o->last_ns;
		}
		/* An fd that only came and went (no data calls) is not a row. */
		if (rd->ops || wr->ops) {
			io_of(rd, &row.read);
			io_of(wr, &row.write);
			ret = cb(ctx, &row);
		}
		i = j;
	}
	free(v);
	free(rd);
	free(wr);
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
	for (size_t i = 0; i < st->nr_incs; i++) {
		struct inc *in = &st->incs[i];

		memset(&in->rd, 0, sizeof(in->rd));
		memset(&in->wr, 0, sizeof(in->wr));
		ipp_hist_init(&in->rd.hist);
		ipp_hist_init(&in->wr.hist);
		in->first_ns = in->last_ns = 0;
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
