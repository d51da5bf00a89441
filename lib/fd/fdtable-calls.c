/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the events do to the fd table (fdtable.h): a call's exit, the
 * kernel's words on the fds it made, a task's fork, exec and exit, the
 * caller's word on an fd; and the fds a process holds at attach.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fd/procfd.h"
#include "fd/resolve.h"
#include "fd/resolve-kernel.h"
#include "fd/fdtable.h"
#include "fd/fdtable-int.h"
#include "syscalls.h"

/* close_range()'s flag (linux/close_range.h), for C libraries that do not define it. */
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* ------------------------------------------------------------------ events */

/* What one end's identity tells of its peer's, and back. */
static void link_peer(struct ipp_fdtab *t, struct ipp_inc *in)
{
	ipp_kernel_link_peer(t->incs, t->nr_incs, in);
}

/*
 * The kernel's word on @ev->fd comes after the exit (of @pid, at @end_ns)
 * of its call: what that exit made the fd (looked up in /proc, or nothing:
 * pipe2) becomes exact, from the exit's time.
 */
static void apply_late(struct ipp_fdtab *t, pid_t pid, uint64_t end_ns,
		       const struct ipcperf_fd_open *ev)
{
	struct fdproc *p = ipp_fdt_get_proc(t, pid, true);
	struct fdslot *s = p ? ipp_fdt_find_slot(p, ev->fd) : NULL;
	struct ipp_inc *in;

	if (!p)
		return;
	if (s && t->incs[s->inc].start_ns == end_ns) {
		signed char origin = t->incs[s->inc].id.origin;	/* an accept's, marked at the exit */

		ipp_ident_of_open(&t->incs[s->inc].id, ev);
		t->incs[s->inc].id.origin = origin;
		link_peer(t, &t->incs[s->inc]);
		return;
	}
	ipp_fdt_end_inc(t, p, ev->fd, end_ns);
	in = ipp_fdt_new_inc(t, p, ev->fd, end_ns);
	if (in) {
		ipp_ident_of_open(&in->id, ev);
		link_peer(t, in);
	}
}

bool ipp_fdtab__fd_open(struct ipp_fdtab *t, const struct ipcperf_fd_open *ev)
{
	struct fdproc *p;
	struct fdslot *s;
	uint64_t end_ns;
	pid_t pid;

	t->now_ns = ev->time_ns;
	t->kernel_words = true;
	if (ev->fd < 0)
		return false;
	if (ev->update) {
		/* connect: the open incarnation now has a peer. */
		p = ipp_fdt_get_proc(t, ev->pid, false);
		s = p ? ipp_fdt_find_slot(p, ev->fd) : NULL;
		if (s && !ev->gone) {
			int cloexec = t->incs[s->inc].id.cloexec;

			ipp_ident_of_open(&t->incs[s->inc].id, ev);
			t->incs[s->inc].id.cloexec = cloexec;
			t->incs[s->inc].id.origin = IPP_ORIGIN_CONNECTED;
			link_peer(t, &t->incs[s->inc]);
		}
		return false;
	}
	if (!ipp_kwords__word(t->kw, ev, &pid, &end_ns))
		return false;	/* held for its call's exit */
	apply_late(t, pid, end_ns, ev);
	return true;
}

struct early_ctx {
	struct ipp_fdtab *t;
	struct fdproc *p;
	uint64_t when;
};

/* A new fd the kernel described before its call's exit: a new incarnation, exact. */
static void apply_early(void *ctx, int fd, const struct ipp_ident *id)
{
	struct early_ctx *e = ctx;
	struct ipp_inc *in;

	ipp_fdt_end_inc(e->t, e->p, fd, e->when);
	in = ipp_fdt_new_inc(e->t, e->p, fd, e->when);
	if (in) {
		in->id = *id;
		link_peer(e->t, in);
	}
	e->t->early[e->t->nr_early++] = fd;
}

static bool in_fds(const int *fds, size_t n, long fd)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] == fd)
			return true;
	return false;
}

/* Whether the fd a call made closes at exec: 1, 0, or -1 when it cannot be told. */
static int new_fd_cloexec(const struct ipp_scdesc *sc, const struct ipcperf_syscall *ev)
{
	if (sc->flags_arg == IPP_CLOEXEC_NEVER)
		return 0;
	if (sc->flags_arg < 0 || (unsigned int)sc->flags_arg >= ev->nr_args)
		return -1;
	return !!(ev->args[sc->flags_arg] & sc->cloexec_flag);
}

/* The table entry of @ev's call: by number, or by name for an event made by hand without one. */
static const struct ipp_scdesc *desc_of(const struct ipcperf_syscall *ev)
{
	const struct ipp_scdesc *sc = ipp_scdesc_by_nr(ev->nr);

	if (sc && (!ev->name || ev->name == sc->name || !strcmp(ev->name, sc->name)))
		return sc;
	return ev->name ? ipp_scdesc_by_name(ev->name) : NULL;
}

static void fcntl_call(struct ipp_fdtab *t, struct fdproc *p, const struct ipcperf_syscall *ev)
{
	if (ev->ret < 0 || ev->fd < 0 || ev->nr_args < 2)
		return;
	switch (ev->args[1]) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		/* F_DUPFD_CLOEXEC alone sets close-on-exec on the copy. */
		ipp_fdt_dup_fd(t, p, ev->fd, (int)ev->ret, ev->end_ns, ev->args[1] == F_DUPFD_CLOEXEC);
		break;
	case F_SETFD:
		if (ev->nr_args > 2)
			ipp_fdt_set_cloexec(t, p, ev->fd, !!(ev->args[2] & FD_CLOEXEC));
		break;
	default:
		break;
	}
}

/* The numbers @lo to @hi of @p were closed by @when, held in the table or not. */
static void note_range(struct fdproc *p, unsigned int lo, unsigned int hi, uint64_t when)
{
	size_t k = 0;

	/* A range inside this one says nothing more: a child's close_range(3, ~0U) stays one entry. */
	for (size_t i = 0; i < p->nr_ranges; i++)
		if (p->ranges[i].lo < lo || p->ranges[i].hi > hi || p->ranges[i].ns > when)
			p->ranges[k++] = p->ranges[i];
	p->nr_ranges = k;
	/* Out of memory: the floor stays lower, as in note_closed(). */
	if (ipp_grow((void **)&p->ranges, &p->cap_ranges, p->nr_ranges + 1, sizeof(*p->ranges)) < 0)
		return;
	p->ranges[p->nr_ranges++] = (struct fdrange){ .lo = lo, .hi = hi, .ns = when };
}

/*
 * close_range(first, last, flags) returned 0: each fd of @p from first to
 * last ends at the call's start, as close's fd does (the kernel takes each
 * one out of the table as it goes; an incarnation begun after the start is
 * another thread's new fd on a number already freed). With
 * CLOSE_RANGE_CLOEXEC they stay open with close-on-exec set, and end at the
 * exec. CLOSE_RANGE_UNSHARE needs nothing more: the caller first gets its
 * own copy of an fd table it shared, and closes the fds there, which is
 * what the close does here. The one table this keeps per process cannot
 * hold a thread's private copy; the callers that unshare (a child between
 * fork or clone and exec) share their table with no other process seen. A
 * call that failed (EINVAL: first above last, an unknown flag; ENOMEM)
 * changed nothing.
 */
static void close_range_call(struct ipp_fdtab *t, struct fdproc *p,
			     const struct ipcperf_syscall *ev)
{
	unsigned int first, last;
	bool cloexec;

	if (ev->ret != 0 || ev->nr_args < 3)
		return;
	/* unsigned int arguments: what the registers hold above them is not the call's */
	first = (unsigned int)ev->args[0];
	last = (unsigned int)ev->args[1];
	cloexec = ev->args[2] & CLOSE_RANGE_CLOEXEC;
	/* Backwards: end_inc() moves the last slot into the one it frees. */
	for (size_t i = p->nr_fds; i-- > 0;) {
		struct ipp_inc *in = &t->incs[p->fds[i].inc];

		if ((unsigned int)in->fd < first || (unsigned int)in->fd > last ||
		    in->start_ns > ev->start_ns)
			continue;
		if (cloexec) {
			in->id.cloexec = 1;
			continue;
		}
		ipp_fdt_end_inc(t, p, in->fd, ev->start_ns);
		/* an answer read while the call ran may still show the fd */
		ipp_fdt_note_closed(p, in->fd, ev->end_ns);
	}
	if (!cloexec)
		note_range(p, first, last, ev->end_ns);
}

/*
 * Which end of its connection the socket @ev made or connected is: a new
 * fd made from an fd argument is accept's (accept, accept4: the listener's);
 * a connect that succeeded or is under way (EINPROGRESS) made its caller's.
 */
static void mark_origin(struct ipp_fdtab *t, struct fdproc *p, const struct ipp_scdesc *sc,
			const struct ipcperf_syscall *ev)
{
	struct fdslot *s = NULL;
	enum ipp_origin o = IPP_ORIGIN_UNSEEN;

	if (sc->fd_op == IPP_FDOP_NEW && sc->fd_arg >= 0 && ev->ret >= 0) {
		s = ipp_fdt_find_slot(p, (int)ev->ret);
		o = IPP_ORIGIN_ACCEPTED;
	} else if (sc->fd_op == IPP_FDOP_CONNECT && (ev->ret == 0 || ev->ret == -EINPROGRESS) &&
		   ev->fd >= 0) {
		s = ipp_fdt_find_slot(p, ev->fd);
		o = IPP_ORIGIN_CONNECTED;
	}
	if (s)
		t->incs[s->inc].id.origin = (signed char)o;
}

long ipp_fdtab__syscall(struct ipp_fdtab *t, const struct ipcperf_syscall *ev)
{
	const struct ipp_scdesc *sc;
	struct fdproc *p = ipp_fdt_get_proc(t, ev->pid, true);
	struct ipp_inc *in;
	struct early_ctx early = { .t = t, .p = p, .when = ev->end_ns };
	const int *known = t->early;
	size_t nr_known;

	t->now_ns = ev->end_ns;
	t->nr_early = 0;
	if (!p)
		return -ENOMEM;
	/* The new fds the kernel described before this exit; the exit is its thread's last. */
	nr_known = ipp_kwords__exit(t->kw, ev, t->kernel_words, apply_early, &early);
	if (ev->cls == IPCPERF_SC_READ || ev->cls == IPCPERF_SC_WRITE || ev->cls == IPCPERF_SC_MOVE) {
		if (ev->fd < 0)
			return -1;
		/* A move's destination first (ipp_fdtab__inc_at() finds it): incs may move. */
		if (ev->cls == IPCPERF_SC_MOVE && ev->out_fd >= 0 && ev->out_fd != ev->fd &&
		    !ipp_fdt_inc_at(t, p, ev->out_fd, ev->start_ns))
			return -ENOMEM;
		in = ipp_fdt_inc_at(t, p, ev->fd, ev->start_ns);
		return in ? (long)(in - t->incs) : -ENOMEM;
	}
	sc = desc_of(ev);
	if (!sc)
		return -1;
	/* The new fd the kernel described is already in the table, exactly. */
	if (nr_known && ev->ret >= 0 && sc->fd_op != IPP_FDOP_CLOSE &&
	    sc->fd_op != IPP_FDOP_CLOSE_RANGE &&
	    (in_fds(known, nr_known, ev->ret) ||
	     (sc->fd_op == IPP_FDOP_DUP2 && ev->nr_args >= 2 &&
	      in_fds(known, nr_known, (long)ev->args[1])))) {
		mark_origin(t, p, sc, ev);
		return -1;
	}
	switch (sc->fd_op) {
	case IPP_FDOP_NEW:
		if (ev->ret < 0)
			break;
		ipp_fdt_end_inc(t, p, (int)ev->ret, ev->end_ns);
		in = ipp_fdt_new_inc(t, p, (int)ev->ret, ev->end_ns);
		if (in) {
			ipp_fdt_resolve(t, in, ev->end_ns);
			if (in->id.state != IPP_ID_UNKNOWN)
				in->id.cloexec = new_fd_cloexec(sc, ev);
		}
		break;
	case IPP_FDOP_DUP:
		if (ev->ret >= 0 && ev->fd >= 0)
			ipp_fdt_dup_fd(t, p, ev->fd, (int)ev->ret, ev->end_ns, 0);
		break;
	case IPP_FDOP_DUP2:
		/* dup2 clears close-on-exec on the copy; dup3 sets it on request. */
		if (ev->ret >= 0 && ev->nr_args >= 2 && ev->args[0] != ev->args[1])
			ipp_fdt_dup_fd(t, p, (int)ev->args[0], (int)ev->args[1], ev->end_ns,
				       new_fd_cloexec(sc, ev) > 0);
		break;
	case IPP_FDOP_FCNTL:
		fcntl_call(t, p, ev);
		break;
	case IPP_FDOP_CONNECT:
		/* A socket looked up before it connected has no peer yet: look again. */
		if ((ev->ret == 0 || ev->ret == -EINPROGRESS) && ev->fd >= 0)
			ipp_fdt_relook(t, p, ev->fd, ev->end_ns);
		break;
	case IPP_FDOP_CLOSE:
		/*
		 * On Linux the fd is gone even when close fails, except with
		 * EBADF. It is gone early in the call: another thread's call can
		 * take its number and return before this exit. An incarnation
		 * begun after this call began is that one: what this call closed
		 * ended when it began.
		 */
		if (ev->fd >= 0 && ev->ret != -EBADF && !ipp_fdt_began_after(t, p, ev->fd, ev->start_ns)) {
			ipp_fdt_end_inc(t, p, ev->fd, ev->start_ns);
			/* an answer read while the close ran may still show the fd */
			ipp_fdt_note_closed(p, ev->fd, ev->end_ns);
		}
		break;
	case IPP_FDOP_CLOSE_RANGE:
		close_range_call(t, p, ev);
		break;
	case IPP_FDOP_PAIR:
	case IPP_FDOP_NONE:
		/* The new fds are in user memory: resolved when first used. */
		break;
	}
	mark_origin(t, p, sc, ev);
	return -1;
}

/* What /proc said of a process's fds, with the time it said it. */
struct fdlist {
	struct {
		int fd;
		struct ipp_ident id;
	} *v;
	size_t n, cap;
};

static int add_fd(struct fdlist *l, int fd, const struct ipp_ident *id)
{
	if (ipp_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)) < 0)
		return -ENOMEM;
	l->v[l->n].fd = fd;
	l->v[l->n++].id = *id;
	return 0;
}

static int collect_fd(void *ctx, int fd, const struct ipp_ident *id)
{
	return add_fd(ctx, fd, id);
}

/* The fds of process @pid now, from the resolver. */
static void scan_fds(struct ipp_fdtab *t, pid_t pid, struct fdlist *l)
{
	t->res->ops->scan(t->res, pid, false, collect_fd, l);
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
static void exec_fds(struct ipp_fdtab *t, struct fdproc *p, uint64_t when)
{
	struct fdlist l = { 0 };
	bool scanned = false;

	for (size_t i = p->nr_fds; i-- > 0;) {
		struct ipp_inc *in = &t->incs[p->fds[i].inc];

		if (in->id.cloexec != 0) {
			in->by_task = true;
			ipp_fdt_end_inc(t, p, in->fd, when);
			continue;
		}
		if (in->id.state != IPP_ID_NONE && in->id.state != IPP_ID_UNKNOWN)
			continue;
		if (!scanned && t->res) {
			scanned = true;
			scan_fds(t, p->pid, &l);
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

/*
 * Every fd of @p ended at @when by a task event (an exit, or a reused pid):
 * the kernel's sums for them may come just after (by_task, ipp_fdt_retirable()).
 */
static void end_all(struct ipp_fdtab *t, struct fdproc *p, uint64_t when)
{
	while (p->nr_fds) {
		t->incs[p->fds[0].inc].by_task = true;
		ipp_fdt_end_inc(t, p, p->fds[0].fd, when);
	}
}

/* The entry of procs[@at], without fds, freed and gone. */
static void remove_proc(struct ipp_fdtab *t, size_t at)
{
	struct fdproc *p = t->procs[at];

	if (t->last == p)
		t->last = NULL;
	ipp_fdt_free_proc(p);
	ipp_remove_at(t->procs, &t->nr_procs, at, sizeof(*t->procs));
}

/*
 * The copy of its process's table a thread's clone made under the
 * thread's id (never used: its calls carry the process's pid), gone with
 * the thread: its incarnations end (retired with no row, ipp_fdtab__sweep())
 * and the thread's entry goes.
 */
static void drop_copy(struct ipp_fdtab *t, pid_t tid, uint64_t when)
{
	struct fdproc *p;
	size_t at;

	if (!ipp_bsearch_at(&tid, t->procs, t->nr_procs, sizeof(*t->procs), ipp_fdt_cmp_pid, &at))
		return;
	p = t->procs[at];
	while (p->nr_fds)
		ipp_fdt_end_inc(t, p, p->fds[0].fd, when);
	remove_proc(t, at);
}

void ipp_fdtab__forget(struct ipp_fdtab *t, pid_t pid)
{
	size_t at;

	if (ipp_bsearch_at(&pid, t->procs, t->nr_procs, sizeof(*t->procs), ipp_fdt_cmp_pid, &at) &&
	    !t->procs[at]->nr_fds)
		remove_proc(t, at);
}

void ipp_fdtab__task(struct ipp_fdtab *t, const struct ipcperf_task *ev)
{
	struct fdproc *p = ipp_fdt_get_proc(t, ev->pid, true), *c;

	t->now_ns = ev->time_ns;
	if (!p)
		return;
	switch (ev->kind) {
	case IPCPERF_TASK_FORK:
		/*
		 * A new process starts with a copy of its parent's fd table. The
		 * tracepoint does not say whether the child is a thread; a thread's
		 * copy is never used, since its events carry its parent's pid.
		 */
		if (ev->child_tid == ev->pid)
			break;
		c = ipp_fdt_get_proc(t, ev->child_tid, true);
		if (!c)
			break;
		/*
		 * A pid we knew (an exited process, or a thread's copy) is reused:
		 * the new process has its parent's fds, not the old holder's.
		 */
		end_all(t, c, ev->time_ns);
		c->base_ns = ev->time_ns;
		p = ipp_fdt_get_proc(t, ev->pid, false);
		for (size_t i = 0; p && i < p->nr_fds; i++) {
			struct ipp_ident from = t->incs[p->fds[i].inc].id;

			ipp_fdt_dup_inc(t, c, p->fds[i].fd, &from, ev->time_ns, from.cloexec);
		}
		break;
	case IPCPERF_TASK_EXEC:
		exec_fds(t, p, ev->time_ns);
		p->base_ns = ev->time_ns;
		break;
	case IPCPERF_TASK_EXIT:
		/* The process's fds close as it exits: folded into their rows once retired. */
		ipp_kwords__gone(t->kw, ev->tid);
		if (ev->tid != ev->pid)
			drop_copy(t, ev->tid, ev->time_ns);
		else
			end_all(t, p, ev->time_ns);
		break;
	}
}

int ipp_fdtab__set_identity(struct ipp_fdtab *t, pid_t pid, int fd,
			    const struct ipcperf_fd_identity *id)
{
	struct fdproc *p = ipp_fdt_get_proc(t, pid, true);
	struct ipp_inc *in;

	if (!p)
		return -ENOMEM;
	ipp_fdt_end_inc(t, p, fd, t->now_ns);
	in = ipp_fdt_new_inc(t, p, fd, t->now_ns);
	if (!in)
		return -ENOMEM;
	in->id.state = IPP_ID_FINAL;
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

/* ------------------------------------------------------------------ attach */

struct scan_ctx {
	struct ipp_fdtab *t;
	pid_t pid;
};

static int scan_one(void *ctx, int fd, const struct ipp_ident *id)
{
	struct scan_ctx *sc = ctx;
	struct fdproc *p = ipp_fdt_get_proc(sc->t, sc->pid, true);
	struct ipp_inc *in;

	if (!p)
		return -ENOMEM;
	in = ipp_fdt_cur_inc(sc->t, p, fd, false);
	if (in && in->id.state == IPP_ID_NONE) {
		in->id = *id;
		in->id.auth = (size_t)(in - sc->t->incs);
	}
	return 0;
}

void ipp_fdtab__attach_fds(struct ipp_fdtab *t, const pid_t *pids, size_t n)
{
	for (size_t i = 0; t->res && i < n; i++) {
		struct scan_ctx sc = { .t = t, .pid = pids[i] };

		t->res->ops->scan(t->res, pids[i], true, scan_one, &sc);
	}
}

void ipp_fdtab__attach(struct ipp_fdtab *t, const pid_t *pids, size_t n,
		       void (*comm)(void *ctx, pid_t pid, const char *name), void *ctx, bool fds)
{
	if (!t->res)
		return;
	for (size_t i = 0; i < n; i++) {
		char name[32] = "";

		if (t->res->ops->comm(t->res, pids[i], name, sizeof(name)) == 0)
			comm(ctx, pids[i], name);
	}
	if (fds)
		ipp_fdtab__attach_fds(t, pids, n);
}

void ipp_fdtab__attach_replay(struct ipp_fdtab *t,
			      void (*comm)(void *ctx, pid_t pid, const char *name), void *ctx)
{
	char name[IPP_OBJECT_MAX];
	pid_t pid;

	/* The recorder logged, per target, its name and then its fds. */
	while (t->res && t->res->ops->next_proc(t->res, &pid, name, sizeof(name)) == 0) {
		struct fdproc *p = ipp_fdt_get_proc(t, pid, true);
		struct fdlist l = { 0 };

		if (name[0])
			comm(ctx, pid, name);
		scan_fds(t, pid, &l);
		for (size_t k = 0; p && k < l.n; k++) {
			struct ipp_inc *in = ipp_fdt_cur_inc(t, p, l.v[k].fd, false);

			if (in && in->id.state == IPP_ID_NONE) {
				in->id = l.v[k].id;
				in->id.auth = (size_t)(in - t->incs);
			}
		}
		free(l.v);
	}
}
