/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fd identity: the fd table by incarnation, and its resolvers (fdtable.h). */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "procfd.h"
#include "resolve.h"
#include "resolve-kernel.h"
#include "fdtable.h"
#include "syscalls.h"

struct fdslot {
	int fd;
	size_t inc;		/* index into t->incs */
};

/* The open incarnations of one process, unsorted. */
struct fdproc {
	pid_t pid;
	struct fdslot *fds;
	size_t nr_fds, cap_fds;
	/*
	 * When each fd number was last closed (whatever it was), and when the
	 * process began (fork) or exec'd: a /proc answer read before these
	 * cannot describe an fd first seen after them.
	 */
	struct fdclosed {
		int fd;
		uint64_t ns;
	} *closed;
	size_t nr_closed, cap_closed;
	uint64_t base_ns;
};

struct ipp_fdtab {
	struct fdproc **procs;	/* sorted by pid */
	size_t nr_procs, cap_procs;
	struct fdproc *last;	/* the last looked up */
	struct ipp_inc *incs;
	size_t nr_incs, cap_incs;
	size_t *closed;		/* closed incarnations not retired yet */
	size_t nr_closed, cap_closed;
	size_t *free_incs;	/* retired slots, taken again by new incarnations */
	size_t nr_free, cap_free;
	/* Who says what an fd is (resolve.h: /proc, a capture's log); NULL: nobody. */
	struct ipp_resolver *res;
	uint64_t now_ns;	/* latest event time delivered */
	struct ipp_kwords *kw;	/* the kernel's words waiting for their exits (resolve-kernel.h) */
	bool kernel_words;	/* the kernel describes fds (ipp_fdtab__expect_kernel) */
	/* The fds the kernel described before the exit of the last call fed. */
	int early[IPP_MAX_CALL_FDS];
	size_t nr_early;
	/*
	 * The incarnations retired last, as they were reported: a call under
	 * way on one when it closed (in another thread) ends after the close,
	 * maybe after the sweep that retired it (inc_at()).
	 */
	struct retired {
		pid_t pid;
		int fd;
		uint64_t start_ns, end_ns;
		struct ipp_ident id;
	} *recent;		/* RECENT of them, allocated at the first retirement */
	size_t recent_at;	/* where the next one goes */
};

#define RECENT 256

/* The detail of a socket named whose addresses could not be read before it closed. */
#define ADDRESSES_CLOSED "addresses unknown: closed-before-read"

const char *ipcperf_fd_kind_name(enum ipcperf_fd_kind kind)
{
	static const char *const names[] = {
		[IPCPERF_FD_UNKNOWN] = "unknown", [IPCPERF_FD_PIPE] = "pipe",
		[IPCPERF_FD_UNIX] = "unix", [IPCPERF_FD_TCP] = "tcp", [IPCPERF_FD_UDP] = "udp",
		[IPCPERF_FD_FILE] = "file", [IPCPERF_FD_TTY] = "tty", [IPCPERF_FD_OTHER] = "other",
	};

	return (unsigned int)kind < IPP_ARRAY_SIZE(names) ? names[kind] : "unknown";
}

struct ipp_fdtab *ipp_fdtab__new(void)
{
	struct ipp_fdtab *t = calloc(1, sizeof(*t));

	if (t && !(t->kw = ipp_kwords__new())) {
		free(t);
		t = NULL;
	}
	return t;
}

void ipp_fdtab__delete(struct ipp_fdtab *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr_procs; i++) {
		free(t->procs[i]->fds);
		free(t->procs[i]->closed);
		free(t->procs[i]);
	}
	free(t->procs);
	free(t->incs);
	free(t->closed);
	free(t->free_incs);
	free(t->recent);
	ipp_kwords__delete(t->kw);
	ipp_resolver__put(t->res);
	free(t);
}

void ipp_fdtab__set_resolver(struct ipp_fdtab *t, struct ipp_resolver *r)
{
	ipp_resolver__put(t->res);
	t->res = r;
}

bool ipp_fdtab__has_resolver(const struct ipp_fdtab *t)
{
	return t->res != NULL;
}

void ipp_fdtab__expect_kernel(struct ipp_fdtab *t)
{
	t->kernel_words = true;
}

void ipp_fdtab__clock(struct ipp_fdtab *t, uint64_t ns)
{
	t->now_ns = ns;
}

/* ------------------------------------------------------------------ lookups */

static int cmp_fdproc_pid(const void *key, const void *elem)
{
	pid_t pid = *(const pid_t *)key, other = (*(struct fdproc *const *)elem)->pid;

	return (pid > other) - (pid < other);
}

static struct fdproc *get_proc(struct ipp_fdtab *t, pid_t pid, bool create)
{
	size_t at;
	struct fdproc *p;

	if (t->last && t->last->pid == pid)
		return t->last;
	if (ipp_bsearch_at(&pid, t->procs, t->nr_procs, sizeof(*t->procs), cmp_fdproc_pid, &at))
		return t->last = t->procs[at];
	if (!create)
		return NULL;
	if (ipp_grow((void **)&t->procs, &t->cap_procs, t->nr_procs + 1, sizeof(*t->procs)) < 0)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	memmove(&t->procs[at + 1], &t->procs[at], (t->nr_procs - at) * sizeof(*t->procs));
	t->procs[at] = p;
	t->nr_procs++;
	return t->last = p;
}

static struct fdslot *find_slot(struct fdproc *p, int fd)
{
	for (size_t i = 0; i < p->nr_fds; i++)
		if (p->fds[i].fd == fd)
			return &p->fds[i];
	return NULL;
}

long ipp_fdtab__inc_of(struct ipp_fdtab *t, pid_t pid, int fd)
{
	struct fdproc *p = get_proc(t, pid, false);
	struct fdslot *s = p ? find_slot(p, fd) : NULL;

	return s ? (long)s->inc : -ENOENT;
}

static struct ipp_inc *ended_during(struct ipp_fdtab *t, struct fdproc *p, int fd, uint64_t start);

long ipp_fdtab__inc_at(struct ipp_fdtab *t, pid_t pid, int fd, uint64_t start_ns)
{
	struct fdproc *p = get_proc(t, pid, false);
	struct fdslot *s = p ? find_slot(p, fd) : NULL;
	struct ipp_inc *in;

	if (!p)
		return -ENOENT;
	if (s && (!start_ns || t->incs[s->inc].start_ns <= start_ns))
		return (long)s->inc;
	in = ended_during(t, p, fd, start_ns);
	return in ? (long)(in - t->incs) : -ENOENT;
}

static struct ipp_inc *cur_inc(struct ipp_fdtab *t, struct fdproc *p, int fd, bool do_resolve);

long ipp_fdtab__sum_inc(struct ipp_fdtab *t, pid_t pid, int fd, uint64_t first_ns,
			uint64_t last_ns)
{
	struct fdproc *p = get_proc(t, pid, true);
	struct fdslot *s = p ? find_slot(p, fd) : NULL;
	struct ipp_inc *in;
	long last = -1;

	if (!p)
		return -ENOMEM;
	if (s && t->incs[s->inc].start_ns <= last_ns)
		return (long)s->inc;
	/* Slots are reused once retired: the last one is the one that ended last. */
	for (size_t i = 0; i < t->nr_incs; i++) {
		const struct ipp_inc *c = &t->incs[i];

		if (!c->retired && c->pid == pid && c->fd == fd &&
		    (last < 0 || c->end_ns >= t->incs[last].end_ns))
			last = (long)i;
	}
	if (last >= 0 && t->incs[last].end_ns >= first_ns)
		return last;
	in = cur_inc(t, p, fd, true);
	return in ? (long)(in - t->incs) : -ENOMEM;
}

size_t ipp_fdtab__count(const struct ipp_fdtab *t)
{
	return t->nr_incs;
}

const struct ipp_inc *ipp_fdtab__inc(const struct ipp_fdtab *t, size_t inc)
{
	return inc < t->nr_incs && !t->incs[inc].retired ? &t->incs[inc] : NULL;
}

void ipp_fdtab__pin(const struct ipp_fdtab *t, long inc, int delta)
{
	if (inc >= 0 && (size_t)inc < t->nr_incs)
		t->incs[inc].pins += (uint32_t)delta;
}

size_t ipp_fdtab__nr_closed(const struct ipp_fdtab *t)
{
	return t->nr_closed;
}

/* ------------------------------------------------------------------ resolvers */

/*
 * Ask the resolver what the fd is, for an incarnation that began no earlier
 * than @floor_ns. The answer is checked against the incarnation's end later.
 */
static void resolve(struct ipp_fdtab *t, struct ipp_inc *in, uint64_t floor_ns)
{
	if (in->id.state != IPP_ID_NONE)
		return;
	if (!t->res) {
		in->id.state = IPP_ID_UNKNOWN;
		return;
	}
	t->res->ops->resolve(t->res, in->pid, in->fd, floor_ns, &in->id);
	in->id.auth = (size_t)(in - t->incs);
}

/* ------------------------------------------------------------------ incarnations */

static struct ipp_inc *new_inc(struct ipp_fdtab *t, struct fdproc *p, int fd, uint64_t start)
{
	struct ipp_inc *in;
	struct fdslot *s;
	size_t at = t->nr_free ? t->free_incs[t->nr_free - 1] : t->nr_incs;

	if ((!t->nr_free &&
	     ipp_grow((void **)&t->incs, &t->cap_incs, t->nr_incs + 1, sizeof(*t->incs)) < 0) ||
	    ipp_grow((void **)&p->fds, &p->cap_fds, p->nr_fds + 1, sizeof(*p->fds)) < 0)
		return NULL;
	if (t->nr_free)
		t->nr_free--;
	else
		t->nr_incs++;
	in = &t->incs[at];
	memset(in, 0, sizeof(*in));
	in->pid = p->pid;
	in->fd = fd;
	in->open = true;
	in->start_ns = start;
	in->id.cloexec = -1;
	s = &p->fds[p->nr_fds++];
	s->fd = fd;
	s->inc = at;
	return in;
}

/* @fd of @p was closed (or replaced) by @when, whether or not the table knew it. */
static void note_closed(struct fdproc *p, int fd, uint64_t when)
{
	for (size_t i = 0; i < p->nr_closed; i++) {
		if (p->closed[i].fd == fd) {
			if (when > p->closed[i].ns)
				p->closed[i].ns = when;
			return;
		}
	}
	/* Out of memory: the floor stays lower, and an answer older than the close may be taken. */
	if (ipp_grow((void **)&p->closed, &p->cap_closed, p->nr_closed + 1, sizeof(*p->closed)) < 0)
		return;
	p->closed[p->nr_closed++] = (struct fdclosed){ .fd = fd, .ns = when };
}

/*
 * The earliest time incarnation @in of @p can have begun: its start, or
 * for one first seen in use (start 0), the last close of its number or the
 * process's fork or exec. A /proc answer read before is about another.
 */
static uint64_t floor_of(const struct fdproc *p, const struct ipp_inc *in)
{
	uint64_t floor_ns = p->base_ns;

	if (in->start_ns)
		return in->start_ns;
	for (size_t i = 0; i < p->nr_closed; i++)
		if (p->closed[i].fd == in->fd && p->closed[i].ns > floor_ns)
			floor_ns = p->closed[i].ns;
	return floor_ns;
}

static void end_inc(struct ipp_fdtab *t, struct fdproc *p, int fd, uint64_t when)
{
	struct fdslot *s = find_slot(p, fd);
	struct ipp_inc *in;

	note_closed(p, fd, when);
	if (!s)
		return;
	in = &t->incs[s->inc];
	in->open = false;
	in->end_ns = when;
	/* Out of memory: it is never retired, and stays as it was before. */
	if (ipp_grow((void **)&t->closed, &t->cap_closed, t->nr_closed + 1, sizeof(*t->closed)) == 0)
		t->closed[t->nr_closed++] = s->inc;
	/* Its addresses were looked for again (at its connect) only after it closed. */
	if (in->id.state == IPP_ID_PROC && in->id.partial && in->id.read_ns > when)
		snprintf(in->id.detail, sizeof(in->id.detail), "%s", ADDRESSES_CLOSED);
	*s = p->fds[--p->nr_fds];
}

/* Whether the open incarnation of @fd of @p began after @ns. */
static bool began_after(const struct ipp_fdtab *t, struct fdproc *p, int fd, uint64_t ns)
{
	const struct fdslot *s = find_slot(p, fd);

	return s && t->incs[s->inc].start_ns > ns;
}

/* The open incarnation of @fd, starting one if there is none. */
static struct ipp_inc *cur_inc(struct ipp_fdtab *t, struct fdproc *p, int fd, bool do_resolve)
{
	struct fdslot *s = find_slot(p, fd);
	struct ipp_inc *in;

	if (s)
		return &t->incs[s->inc];
	in = new_inc(t, p, fd, 0);
	if (in && do_resolve)
		resolve(t, in, floor_of(p, in));
	return in;
}

/*
 * The closed incarnation @fd of @p had when a call that began at @start
 * looked it up, and that ended while the call ran; NULL if the table no
 * longer holds it.
 */
static struct ipp_inc *ended_during(struct ipp_fdtab *t, struct fdproc *p, int fd, uint64_t start)
{
	struct ipp_inc *best = NULL;

	for (size_t j = 0; j < t->nr_closed; j++) {
		struct ipp_inc *in = &t->incs[t->closed[j]];

		if (in->pid == p->pid && in->fd == fd && in->start_ns <= start &&
		    in->end_ns >= start && (!best || in->start_ns > best->start_ns))
			best = in;
	}
	return best;
}

/* The recently retired incarnation of @fd of @p a call that began at @start used; NULL if none. */
static const struct retired *retired_at(const struct ipp_fdtab *t, pid_t pid, int fd,
					uint64_t start)
{
	for (size_t i = 0; t->recent && i < RECENT; i++) {
		const struct retired *r = &t->recent[i];

		if (r->pid == pid && r->fd == fd && r->start_ns <= start && r->end_ns >= start)
			return r;
	}
	return NULL;
}

/*
 * A closed incarnation of @fd again, for a call that began at @start on an
 * fd whose incarnation then is no longer held: the bytes of that call are
 * not the open incarnation's (it began after @start). It is the retired
 * one as it was reported (its row takes the call when it retires again),
 * or, retired too long ago, one of no identity ending at @end.
 */
static struct ipp_inc *lost_inc(struct ipp_fdtab *t, struct fdproc *p, int fd, uint64_t start,
				uint64_t end)
{
	const struct retired *r = retired_at(t, p->pid, fd, start);
	struct ipp_inc *in = new_inc(t, p, fd, r ? r->start_ns : start);

	if (!in)
		return NULL;
	p->nr_fds--;	/* new_inc() put its slot last: it is not the open one */
	in->open = false;
	in->end_ns = r ? r->end_ns : end;
	if (r && r->id.state != IPP_ID_UNKNOWN) {
		in->id = r->id;
		in->id.state = IPP_ID_FINAL;	/* what its row is named: settled */
	} else {
		in->id.state = IPP_ID_UNKNOWN;
		in->id.read_ns = in->end_ns + 1;	/* reported as closed before it was read */
	}
	if (ipp_grow((void **)&t->closed, &t->cap_closed, t->nr_closed + 1, sizeof(*t->closed)) == 0)
		t->closed[t->nr_closed++] = (size_t)(in - t->incs);
	return in;
}

/*
 * The incarnation of @fd a read/write-family call that began at @start
 * used: the kernel looks the fd up as the call begins and holds that file
 * to its end, whatever another thread makes of the fd number meanwhile
 * (close and open again, dup2 over it). The open one unless it began after
 * @start; then the one that ended while the call ran.
 */
static struct ipp_inc *inc_at(struct ipp_fdtab *t, struct fdproc *p, int fd, uint64_t start)
{
	struct fdslot *s = find_slot(p, fd);
	struct ipp_inc *in;

	if (!s || !start || t->incs[s->inc].start_ns <= start)
		return cur_inc(t, p, fd, true);
	in = ended_during(t, p, fd, start);
	return in ? in : lost_inc(t, p, fd, start, t->incs[s->inc].start_ns);
}

/* Start an incarnation of @fd that refers to what @from refers to (dup, dup2, fork). */
static void dup_inc(struct ipp_fdtab *t, struct fdproc *p, int fd, const struct ipp_ident *from,
		    uint64_t when, int cloexec)
{
	struct ipp_inc *in;

	end_inc(t, p, fd, when);
	in = new_inc(t, p, fd, when);
	if (!in)
		return;
	if (from && (from->state == IPP_ID_FINAL || from->state == IPP_ID_PROC)) {
		in->id = *from;		/* IPP_ID_PROC keeps its authority */
		if (from->state == IPP_ID_PROC && from->auth < t->nr_incs)
			t->incs[from->auth].was_auth = true;
	}
	else
		resolve(t, in, when);
	if (in->id.state != IPP_ID_UNKNOWN)
		in->id.cloexec = cloexec;
	if (from)
		in->id.origin = from->origin;
}

/* @fd of @p becomes a copy of @from_fd of @p. */
static void dup_fd(struct ipp_fdtab *t, struct fdproc *p, int from_fd, int fd, uint64_t when,
		   int cloexec)
{
	struct fdslot *s = find_slot(p, from_fd);
	struct ipp_ident from;

	if (s)
		from = t->incs[s->inc].id;
	dup_inc(t, p, fd, s ? &from : NULL, when, cloexec);
}

/*
 * Look the open incarnation of @fd up again in /proc (what it is connected
 * to changed at @when).
 */
static void relook(struct ipp_fdtab *t, struct fdproc *p, int fd, uint64_t when)
{
	struct fdslot *s = find_slot(p, fd);
	struct ipp_ident before;
	struct ipp_inc *in;

	if (!s || !t->res)
		return;
	in = &t->incs[s->inc];
	if (in->id.state == IPP_ID_FINAL)
		return;
	before = in->id;
	in->id.state = IPP_ID_NONE;
	t->res->ops->connected(t->res);	/* newer than any socket table held */
	resolve(t, in, when);
	/*
	 * Read after the connect with its addresses, what was read before
	 * stays unless this has them too (the same question is asked either
	 * way: a capture's log answers it).
	 */
	if (before.state == IPP_ID_PROC && !before.partial && before.res_ns >= when &&
	    (in->id.state != IPP_ID_PROC || in->id.partial)) {
		in->id = before;
		return;
	}
	/*
	 * Closed since: what was read before still names it, without its peer;
	 * when this read was, is kept for the report.
	 */
	if (in->id.state == IPP_ID_UNKNOWN && before.state == IPP_ID_PROC) {
		uint64_t read_ns = in->id.read_ns;

		in->id = before;
		in->id.read_ns = read_ns;
	} else if (in->id.state != IPP_ID_UNKNOWN)
		in->id.cloexec = before.cloexec;
}

/* Set the close-on-exec state of the open incarnation of @fd. */
static void set_cloexec(struct ipp_fdtab *t, struct fdproc *p, int fd, int cloexec)
{
	struct fdslot *s = find_slot(p, fd);

	if (s)
		t->incs[s->inc].id.cloexec = cloexec;
}

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
	struct fdproc *p = get_proc(t, pid, true);
	struct fdslot *s = p ? find_slot(p, ev->fd) : NULL;
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
	end_inc(t, p, ev->fd, end_ns);
	in = new_inc(t, p, ev->fd, end_ns);
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
		p = get_proc(t, ev->pid, false);
		s = p ? find_slot(p, ev->fd) : NULL;
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

	end_inc(e->t, e->p, fd, e->when);
	in = new_inc(e->t, e->p, fd, e->when);
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
		dup_fd(t, p, ev->fd, (int)ev->ret, ev->end_ns, ev->args[1] == F_DUPFD_CLOEXEC);
		break;
	case F_SETFD:
		if (ev->nr_args > 2)
			set_cloexec(t, p, ev->fd, !!(ev->args[2] & FD_CLOEXEC));
		break;
	default:
		break;
	}
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
		s = find_slot(p, (int)ev->ret);
		o = IPP_ORIGIN_ACCEPTED;
	} else if (sc->fd_op == IPP_FDOP_CONNECT && (ev->ret == 0 || ev->ret == -EINPROGRESS) &&
		   ev->fd >= 0) {
		s = find_slot(p, ev->fd);
		o = IPP_ORIGIN_CONNECTED;
	}
	if (s)
		t->incs[s->inc].id.origin = (signed char)o;
}

long ipp_fdtab__syscall(struct ipp_fdtab *t, const struct ipcperf_syscall *ev)
{
	const struct ipp_scdesc *sc;
	struct fdproc *p = get_proc(t, ev->pid, true);
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
		    !inc_at(t, p, ev->out_fd, ev->start_ns))
			return -ENOMEM;
		in = inc_at(t, p, ev->fd, ev->start_ns);
		return in ? (long)(in - t->incs) : -ENOMEM;
	}
	sc = desc_of(ev);
	if (!sc)
		return -1;
	/* The new fd the kernel described is already in the table, exactly. */
	if (nr_known && ev->ret >= 0 && sc->fd_op != IPP_FDOP_CLOSE &&
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
		end_inc(t, p, (int)ev->ret, ev->end_ns);
		in = new_inc(t, p, (int)ev->ret, ev->end_ns);
		if (in) {
			resolve(t, in, ev->end_ns);
			if (in->id.state != IPP_ID_UNKNOWN)
				in->id.cloexec = new_fd_cloexec(sc, ev);
		}
		break;
	case IPP_FDOP_DUP:
		if (ev->ret >= 0 && ev->fd >= 0)
			dup_fd(t, p, ev->fd, (int)ev->ret, ev->end_ns, 0);
		break;
	case IPP_FDOP_DUP2:
		/* dup2 clears close-on-exec on the copy; dup3 sets it on request. */
		if (ev->ret >= 0 && ev->nr_args >= 2 && ev->args[0] != ev->args[1])
			dup_fd(t, p, (int)ev->args[0], (int)ev->args[1], ev->end_ns,
			       new_fd_cloexec(sc, ev) > 0);
		break;
	case IPP_FDOP_FCNTL:
		fcntl_call(t, p, ev);
		break;
	case IPP_FDOP_CONNECT:
		/* A socket looked up before it connected has no peer yet: look again. */
		if ((ev->ret == 0 || ev->ret == -EINPROGRESS) && ev->fd >= 0)
			relook(t, p, ev->fd, ev->end_ns);
		break;
	case IPP_FDOP_CLOSE:
		/*
		 * On Linux the fd is gone even when close fails, except with
		 * EBADF. It is gone early in the call: another thread's call can
		 * take its number and return before this exit. An incarnation
		 * begun after this call began is that one: what this call closed
		 * ended when it began.
		 */
		if (ev->fd >= 0 && ev->ret != -EBADF && !began_after(t, p, ev->fd, ev->start_ns)) {
			end_inc(t, p, ev->fd, ev->start_ns);
			/* an answer read while the close ran may still show the fd */
			note_closed(p, ev->fd, ev->end_ns);
		}
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
			end_inc(t, p, in->fd, when);
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
 * the kernel's sums for them may come just after (by_task, retirable()).
 */
static void end_all(struct ipp_fdtab *t, struct fdproc *p, uint64_t when)
{
	while (p->nr_fds) {
		t->incs[p->fds[0].inc].by_task = true;
		end_inc(t, p, p->fds[0].fd, when);
	}
}

/* The entry of procs[@at], without fds, freed and gone. */
static void remove_proc(struct ipp_fdtab *t, size_t at)
{
	struct fdproc *p = t->procs[at];

	if (t->last == p)
		t->last = NULL;
	free(p->fds);
	free(p->closed);
	free(p);
	memmove(&t->procs[at], &t->procs[at + 1], (t->nr_procs - at - 1) * sizeof(*t->procs));
	t->nr_procs--;
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

	if (!ipp_bsearch_at(&tid, t->procs, t->nr_procs, sizeof(*t->procs), cmp_fdproc_pid, &at))
		return;
	p = t->procs[at];
	while (p->nr_fds)
		end_inc(t, p, p->fds[0].fd, when);
	remove_proc(t, at);
}

void ipp_fdtab__forget(struct ipp_fdtab *t, pid_t pid)
{
	size_t at;

	if (ipp_bsearch_at(&pid, t->procs, t->nr_procs, sizeof(*t->procs), cmp_fdproc_pid, &at) &&
	    !t->procs[at]->nr_fds)
		remove_proc(t, at);
}

void ipp_fdtab__task(struct ipp_fdtab *t, const struct ipcperf_task *ev)
{
	struct fdproc *p = get_proc(t, ev->pid, true), *c;

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
		c = get_proc(t, ev->child_tid, true);
		if (!c)
			break;
		/*
		 * A pid we knew (an exited process, or a thread's copy) is reused:
		 * the new process has its parent's fds, not the old holder's.
		 */
		end_all(t, c, ev->time_ns);
		c->base_ns = ev->time_ns;
		p = get_proc(t, ev->pid, false);
		for (size_t i = 0; p && i < p->nr_fds; i++) {
			struct ipp_ident from = t->incs[p->fds[i].inc].id;

			dup_inc(t, c, p->fds[i].fd, &from, ev->time_ns, from.cloexec);
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
	struct fdproc *p = get_proc(t, pid, true);
	struct ipp_inc *in;

	if (!p)
		return -ENOMEM;
	end_inc(t, p, fd, t->now_ns);
	in = new_inc(t, p, fd, t->now_ns);
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
	struct fdproc *p = get_proc(sc->t, sc->pid, true);
	struct ipp_inc *in;

	if (!p)
		return -ENOMEM;
	in = cur_inc(sc->t, p, fd, false);
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
		struct fdproc *p = get_proc(t, pid, true);
		struct fdlist l = { 0 };

		if (name[0])
			comm(ctx, pid, name);
		scan_fds(t, pid, &l);
		for (size_t k = 0; p && k < l.n; k++) {
			struct ipp_inc *in = cur_inc(t, p, l.v[k].fd, false);

			if (in && in->id.state == IPP_ID_NONE) {
				in->id = l.v[k].id;
				in->id.auth = (size_t)(in - t->incs);
			}
		}
		free(l.v);
	}
}

/* ------------------------------------------------------------------ retiring */

/*
 * How long, in the events' time, an incarnation ended by an exec or an
 * exit waits before it retires: the kernel writes the sums of the calls
 * it added up (live stat) just after that task's record, microseconds
 * later, and they must find it.
 */
#define BY_TASK_NS 1000000000ull

/*
 * A /proc answer that holds for good: its authority (@in itself or the
 * incarnation it was copied from, which is kept while copies of it live)
 * was open when /proc was read, and the events have gone past that read.
 */
static bool answer_holds(const struct ipp_fdtab *t, size_t i)
{
	const struct ipp_inc *in = &t->incs[i];
	const struct ipp_inc *a = in->id.auth < t->nr_incs ? &t->incs[in->id.auth] : NULL;

	if (in->id.auth == i)
		return in->end_ns >= in->id.res_ns;
	return a && !a->retired && t->now_ns >= in->id.res_ns &&
	       (a->open || a->end_ns >= in->id.res_ns);
}

/* Closed @in (index @i) is reported as @*id from now on, whatever comes. */
static bool retirable(const struct ipp_fdtab *t, size_t i, const struct ipp_ident **id)
{
	const struct ipp_inc *in = &t->incs[i];

	if (in->open || in->retired || in->pins || in->was_auth ||
	    (in->by_task && t->now_ns < in->end_ns + BY_TASK_NS))
		return false;
	if (in->id.state != IPP_ID_FINAL && (in->id.state != IPP_ID_PROC || !answer_holds(t, i)))
		return false;
	/*
	 * Only an identity that holds retires, so it is reported as itself:
	 * what fdreport.c's ipp_fdtab__reported() says of it too, asked here
	 * without calling up into the module built on this table.
	 */
	*id = &in->id;
	return true;
}

/* Retired @in, reported as @id, kept among the recent ones (out of memory: not kept). */
static void remember(struct ipp_fdtab *t, const struct ipp_inc *in, const struct ipp_ident *id)
{
	struct retired *r;

	if (!t->recent && !(t->recent = calloc(RECENT, sizeof(*t->recent))))
		return;
	r = &t->recent[t->recent_at++ % RECENT];
	r->pid = in->pid;
	r->fd = in->fd;
	r->start_ns = in->start_ns;
	r->end_ns = in->end_ns;
	r->id = *id;
}

size_t ipp_fdtab__sweep(struct ipp_fdtab *t, ipp_retire_fn cb, void *ctx)
{
	size_t k = 0, done = 0;

	for (size_t j = 0; j < t->nr_closed; j++) {
		size_t i = t->closed[j];
		const struct ipp_ident *id;

		if (!retirable(t, i, &id) ||
		    ipp_grow((void **)&t->free_incs, &t->cap_free, t->nr_free + 1,
			     sizeof(*t->free_incs)) < 0) {
			t->closed[k++] = i;
			continue;
		}
		cb(ctx, i, &t->incs[i], id);
		remember(t, &t->incs[i], id);
		memset(&t->incs[i], 0, sizeof(t->incs[i]));
		t->incs[i].retired = true;
		t->free_incs[t->nr_free++] = i;
		done++;
	}
	t->nr_closed = k;
	return done;
}

/* ------------------------------------------------------------------ queries */

size_t ipp_fdtab__made_early(const struct ipp_fdtab *t, const int **fds)
{
	*fds = t->early;
	return t->nr_early;
}

bool ipp_fdtab__kernel_words(const struct ipp_fdtab *t)
{
	return t->kernel_words;
}

uint64_t ipp_fdtab__now(const struct ipp_fdtab *t)
{
	return t->now_ns;
}
