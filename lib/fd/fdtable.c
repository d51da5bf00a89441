/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fd identity: the fd table by incarnation, and its resolvers (fdtable.h):
 * incarnations started, ended, copied and looked up; retired once
 * reported. What each call and task event does to them is in
 * fdtable-calls.c.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fd/procfd.h"
#include "fd/resolve.h"
#include "fd/resolve-kernel.h"
#include "fd/fdtable.h"
#include "fd/fdtable-int.h"
#include "syscalls.h"

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

/* The port of "ADDR:PORT" (its @len bytes), -1 when there is none. */
static long port_of(const char *addr, size_t len)
{
	const char *c = memrchr(addr, ':', len);

	return c && c + 1 < addr + len ? strtol(c + 1, NULL, 10) : -1;
}

void ipcperf_inet_endpoint(char *buf, size_t len, const char *detail)
{
	const char *arrow = detail ? strstr(detail, " -> ") : NULL;
	size_t l1;

	if (!len)
		return;
	buf[0] = 0;
	if (!arrow)
		return;
	l1 = (size_t)(arrow - detail);
	if (port_of(detail, l1) < port_of(arrow + 4, strlen(arrow + 4)))
		snprintf(buf, len, "%.*s", (int)l1, detail);
	else
		snprintf(buf, len, "%s", arrow + 4);
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

void ipp_fdt_free_proc(void *obj)
{
	struct fdproc *p = obj;

	ipp_free_all(p->fds, p->closed, p->ranges, p);
}

void ipp_fdtab__delete(struct ipp_fdtab *t)
{
	if (!t)
		return;
	ipp_delete_ptrs(t->procs, t->nr_procs, ipp_fdt_free_proc);
	ipp_free_all(t->incs, t->closed, t->free_incs, t->recent);
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

struct fdproc *ipp_fdt_get_proc(struct ipp_fdtab *t, pid_t pid, bool create)
{
	struct fdproc *p;
	bool made;

	if (t->last && t->last->pid == pid)
		return t->last;
	p = ipp_sorted_get_new((void **)&t->procs, &t->nr_procs, &t->cap_procs, sizeof(*p), &pid,
			       ipp_fdt_cmp_pid, create, &made);
	if (made)
		p->pid = pid;
	if (p)
		t->last = p;
	return p;
}

struct fdslot *ipp_fdt_find_slot(struct fdproc *p, int fd)
{
	for (size_t i = 0; i < p->nr_fds; i++)
		if (p->fds[i].fd == fd)
			return &p->fds[i];
	return NULL;
}

long ipp_fdtab__inc_of(struct ipp_fdtab *t, pid_t pid, int fd)
{
	struct fdproc *p = ipp_fdt_get_proc(t, pid, false);
	struct fdslot *s = p ? ipp_fdt_find_slot(p, fd) : NULL;

	return s ? (long)s->inc : -ENOENT;
}

static struct ipp_inc *ended_during(struct ipp_fdtab *t, struct fdproc *p, int fd, uint64_t start);

long ipp_fdtab__inc_at(struct ipp_fdtab *t, pid_t pid, int fd, uint64_t start_ns)
{
	struct fdproc *p = ipp_fdt_get_proc(t, pid, false);
	struct fdslot *s = p ? ipp_fdt_find_slot(p, fd) : NULL;
	struct ipp_inc *in;

	if (!p)
		return -ENOENT;
	if (s && (!start_ns || t->incs[s->inc].start_ns <= start_ns))
		return (long)s->inc;
	in = ended_during(t, p, fd, start_ns);
	return in ? (long)(in - t->incs) : -ENOENT;
}


long ipp_fdtab__sum_inc(struct ipp_fdtab *t, pid_t pid, int fd, uint64_t first_ns,
			uint64_t last_ns)
{
	struct fdproc *p = ipp_fdt_get_proc(t, pid, true);
	struct fdslot *s = p ? ipp_fdt_find_slot(p, fd) : NULL;
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
	in = ipp_fdt_cur_inc(t, p, fd, true);
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
void ipp_fdt_resolve(struct ipp_fdtab *t, struct ipp_inc *in, uint64_t floor_ns)
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

struct ipp_inc *ipp_fdt_new_inc(struct ipp_fdtab *t, struct fdproc *p, int fd, uint64_t start)
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
void ipp_fdt_note_closed(struct fdproc *p, int fd, uint64_t when)
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
	for (size_t i = 0; i < p->nr_ranges; i++)
		if ((unsigned int)in->fd >= p->ranges[i].lo && (unsigned int)in->fd <= p->ranges[i].hi &&
		    p->ranges[i].ns > floor_ns)
			floor_ns = p->ranges[i].ns;
	return floor_ns;
}

void ipp_fdt_end_inc(struct ipp_fdtab *t, struct fdproc *p, int fd, uint64_t when)
{
	struct fdslot *s = ipp_fdt_find_slot(p, fd);
	struct ipp_inc *in;

	ipp_fdt_note_closed(p, fd, when);
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
bool ipp_fdt_began_after(const struct ipp_fdtab *t, struct fdproc *p, int fd, uint64_t ns)
{
	const struct fdslot *s = ipp_fdt_find_slot(p, fd);

	return s && t->incs[s->inc].start_ns > ns;
}

/* The open incarnation of @fd, starting one if there is none. */
struct ipp_inc *ipp_fdt_cur_inc(struct ipp_fdtab *t, struct fdproc *p, int fd, bool do_resolve)
{
	struct fdslot *s = ipp_fdt_find_slot(p, fd);
	struct ipp_inc *in;

	if (s)
		return &t->incs[s->inc];
	in = ipp_fdt_new_inc(t, p, fd, 0);
	if (in && do_resolve)
		ipp_fdt_resolve(t, in, floor_of(p, in));
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
	struct ipp_inc *in = ipp_fdt_new_inc(t, p, fd, r ? r->start_ns : start);

	if (!in)
		return NULL;
	p->nr_fds--;	/* ipp_fdt_new_inc() put its slot last: it is not the open one */
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
struct ipp_inc *ipp_fdt_inc_at(struct ipp_fdtab *t, struct fdproc *p, int fd, uint64_t start)
{
	struct fdslot *s = ipp_fdt_find_slot(p, fd);
	struct ipp_inc *in;

	if (!s || !start || t->incs[s->inc].start_ns <= start)
		return ipp_fdt_cur_inc(t, p, fd, true);
	in = ended_during(t, p, fd, start);
	return in ? in : lost_inc(t, p, fd, start, t->incs[s->inc].start_ns);
}

/* Start an incarnation of @fd that refers to what @from refers to (dup, dup2, fork). */
void ipp_fdt_dup_inc(struct ipp_fdtab *t, struct fdproc *p, int fd, const struct ipp_ident *from,
		     uint64_t when, int cloexec)
{
	struct ipp_inc *in;

	ipp_fdt_end_inc(t, p, fd, when);
	in = ipp_fdt_new_inc(t, p, fd, when);
	if (!in)
		return;
	if (from && (from->state == IPP_ID_FINAL || from->state == IPP_ID_PROC)) {
		in->id = *from;		/* IPP_ID_PROC keeps its authority */
		if (from->state == IPP_ID_PROC && from->auth < t->nr_incs)
			t->incs[from->auth].was_auth = true;
	}
	else
		ipp_fdt_resolve(t, in, when);
	if (in->id.state != IPP_ID_UNKNOWN)
		in->id.cloexec = cloexec;
	if (from)
		in->id.origin = from->origin;
}

/* @fd of @p becomes a copy of @from_fd of @p. */
void ipp_fdt_dup_fd(struct ipp_fdtab *t, struct fdproc *p, int from_fd, int fd, uint64_t when,
		    int cloexec)
{
	struct fdslot *s = ipp_fdt_find_slot(p, from_fd);
	struct ipp_ident from;

	if (s)
		from = t->incs[s->inc].id;
	ipp_fdt_dup_inc(t, p, fd, s ? &from : NULL, when, cloexec);
}

/*
 * Look the open incarnation of @fd up again in /proc (what it is connected
 * to changed at @when).
 */
void ipp_fdt_relook(struct ipp_fdtab *t, struct fdproc *p, int fd, uint64_t when)
{
	struct fdslot *s = ipp_fdt_find_slot(p, fd);
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
	ipp_fdt_resolve(t, in, when);
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
void ipp_fdt_set_cloexec(struct ipp_fdtab *t, struct fdproc *p, int fd, int cloexec)
{
	struct fdslot *s = ipp_fdt_find_slot(p, fd);

	if (s)
		t->incs[s->inc].id.cloexec = cloexec;
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
bool ipp_fdt_retirable(const struct ipp_fdtab *t, size_t i, const struct ipp_ident **id)
{
	const struct ipp_inc *in = &t->incs[i];

	if (in->open || in->retired || in->pins || in->was_auth ||
	    (in->by_task && t->now_ns < in->end_ns + BY_TASK_NS))
		return false;
	if (in->id.state != IPP_ID_FINAL && (in->id.state != IPP_ID_PROC || !answer_holds(t, i)))
		return false;
	/*
	 * Only an identity that holds retires, so it is reported as itself:
	 * what fdtable-report.c's ipp_fdtab__reported() says of it too, asked
	 * here without calling up into the module built on this table.
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

		if (!ipp_fdt_retirable(t, i, &id) ||
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
