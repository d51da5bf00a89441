/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Connections and their exchanges, from the flows' tap.
 *
 * A stream socket's two directions are one connection: the end that wrote
 * first is the caller's. Turn-taking cuts each direction's bytes into
 * messages: a write from the caller's end after bytes went the other way
 * starts a request (and closes the exchange before it), a write from the
 * other end starts the response of the exchange under way. Writes are
 * numbered by byte offset as they come; the flows' matches come in the
 * order of each direction's bytes, so a match's offset says which message
 * it read and whether it took that message's first byte.
 *
 * A read that took a request's first byte makes its thread hold that
 * request (the server span begins); a read of a response makes the caller's
 * thread hold again the request it made that exchange for. A request that
 * starts belongs to what its thread holds, unless a wait returned in that
 * thread since the read that made it hold it (paths.c: an event loop's
 * turn) or the request held was answered already.
 */
#include "config.h"
#include <stdlib.h>
#include <sys/socket.h>
#include "fdtable.h"
#include "paths/paths.h"

/* @ino, when not known yet, is @c's end whose inode was missing (a peer known only later). */
static void learn_end(struct ipcperf_paths *p, struct ipp_conn *c, uint64_t ino)
{
	int slot = !c->end[0] ? 0 : !c->end[1] ? 1 : -1;

	if (!ino || ino == c->end[0] || ino == c->end[1] || slot < 0)
		return;
	if (ipp_idmap__get(&p->conns, ino) || ipp_idmap__put(&p->conns, ino, c) < 0)
		return;	/* taken by a connection of its own: the two stay apart */
	c->end[slot] = ino;
}

/*
 * The connection of the socket @ch; made (when @create) at its first
 * write. The caller's end is the one that connected, and the other the
 * one a listener accepted; of a connection made before the capture (or a
 * socket pair), the end that writes first.
 */
static struct ipp_conn *conn_of(struct ipcperf_paths *p, const struct ipp_ident *ch, bool create)
{
	struct ipp_conn *c = ipp_idmap__get(&p->conns, ch->ino);
	int me;

	if (!c && ch->peer_ino)
		c = ipp_idmap__get(&p->conns, ch->peer_ino);
	if (c) {
		learn_end(p, c, ch->ino);
		learn_end(p, c, ch->peer_ino);
		return c;
	}
	if (!create)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	me = ch->origin == IPP_ORIGIN_ACCEPTED;
	c->end[me] = ch->ino;
	c->kind = ch->kind;
	if (ipp_idmap__put(&p->conns, ch->ino, c) < 0) {
		free(c);
		return NULL;
	}
	learn_end(p, c, ch->peer_ino);
	return c;
}

static void msg_start(struct ipp_msg *m, const struct ipcperf_syscall *ev, uint64_t off)
{
	*m = (struct ipp_msg){ .off0 = off, .off1 = off + (uint64_t)ev->ret,
			       .w_start = ev->start_ns, .w_end = ev->end_ns, .wpid = ev->pid,
			       .wtid = ev->tid, .wfd = ev->fd, .rfd = -1 };
}

static void msg_extend(struct ipp_msg *m, const struct ipcperf_syscall *ev)
{
	m->off1 += (uint64_t)ev->ret;
	if (ev->end_ns > m->w_end)
		m->w_end = ev->end_ns;
}

static int add_kid(struct ipp_xchg *parent, struct ipp_xchg *x)
{
	if (ipp_grow((void **)&parent->kids, &parent->cap_kids, parent->nr_kids + 1,
		     sizeof(*parent->kids)) < 0)
		return -1;
	parent->kids[parent->nr_kids++] = x;
	parent->open++;
	x->parent = parent;
	return 0;
}

struct suspects {
	pid_t pid;
	size_t n;
};

/* A request @ctx's process holds, unanswered: the one an unexplained call may be for. */
static void suspect(void *ctx, void *val)
{
	struct suspects *s = ctx;
	struct ipp_xchg *x = val;

	if (x->req.read && x->req.rpid == s->pid && !x->answered) {
		if (!x->drop)
			x->drop = IPP_DROP_NO_CAUSE;
		s->n++;
	}
}

/*
 * A process that serves requests started @x, and no rule says for which:
 * none of the requests it holds can be told complete without it, so each
 * is left out (no_cause), and @x with them; @x is counted itself only
 * when its process held none.
 */
static void unexplained(struct ipcperf_paths *p, struct ipp_xchg *x, pid_t pid)
{
	struct suspects s = { .pid = pid };

	ipp_idmap__each(&p->live, suspect, &s);
	x->drop = s.n ? IPP_DROP_PART : IPP_DROP_NO_CAUSE;
}

/*
 * What the request @x, just started by @ev, belongs to: the request its
 * thread holds, if it still may; else it is an originator's, or (when its
 * process serves requests) one no rule explains.
 */
static void attach_request(struct ipcperf_paths *p, struct ipp_xchg *x,
			   const struct ipcperf_syscall *ev)
{
	struct ipp_thr *t = ipp_paths__thr(p, ev->tid);
	struct ipp_xchg *held = t && t->held ? ipp_idmap__get(&p->live, t->held) : NULL;

	if (held && !held->answered && !ipp_thr__waited(t, t->held_at, ev->start_ns) &&
	    add_kid(held, x) == 0)
		return;
	if (ipp_idmap__get(&p->servers, (uint64_t)ev->pid))
		unexplained(p, x, ev->pid);
}

static void new_request(struct ipcperf_paths *p, struct ipp_conn *c,
			const struct ipcperf_syscall *ev, uint64_t off)
{
	struct ipp_xchg *x = calloc(1, sizeof(*x));

	if (!x)
		return;
	x->id = ++p->next_id;
	x->kind = c->kind;
	x->open = 1;
	msg_start(&x->req, ev, off);
	if (ipp_idmap__put(&p->live, x->id, x) < 0) {
		free(x);
		return;
	}
	if (c->cur)
		ipp_xchg__close(p, c->cur);
	c->cur = x;
	attach_request(p, x, ev);
}

static void on_write(struct ipcperf_paths *p, const struct ipcperf_syscall *ev,
		     const struct ipp_ident *ch)
{
	struct ipp_conn *c = conn_of(p, ch, true);
	struct ipp_xchg *x;
	int dir;
	uint64_t off;

	if (!c)
		return;
	dir = ch->ino == c->end[1] ? 1 : 0;
	off = c->woff[dir];
	c->woff[dir] += (uint64_t)ev->ret;
	x = c->cur;
	if (dir == 0 && (!x || x->answered)) {
		new_request(p, c, ev, off);
	} else if (dir == 0) {
		msg_extend(&x->req, ev);
	} else if (x && !x->answered) {
		x->answered = true;
		msg_start(&x->resp, ev, off);
	} else if (x) {
		msg_extend(&x->resp, ev);
	}
	/* else: a response to a request written before we looked: no exchange */
}

/* The exchange under way on @c ends with the connection (or the capture). */
static void close_cur(struct ipcperf_paths *p, struct ipp_conn *c)
{
	struct ipp_xchg *x = c->cur;

	/* its tree may go out now: the connection lets go of it first */
	c->cur = NULL;
	if (!x || x->closed)
		return;
	if (!x->answered && !x->drop)
		x->drop = IPP_DROP_NO_RESPONSE;
	ipp_xchg__close(p, x);
}

/*
 * A read on @ch found the end of the stream: its peer closed, or shut
 * down its writing side. Once the exchange under way was answered, it is
 * complete, and the connection is forgotten (its inodes may name new
 * sockets later); before, the caller may still wait for the answer (a
 * request ended by a half close).
 */
static void end_of_file(struct ipcperf_paths *p, const struct ipp_ident *ch)
{
	struct ipp_conn *c = ipp_idmap__get(&p->conns, ch->ino);

	if (!c || (c->cur && !c->cur->answered))
		return;
	close_cur(p, c);
	for (int i = 0; i < 2; i++)
		if (c->end[i])
			ipp_idmap__del(&p->conns, c->end[i]);
	free(c);
}

void ipp_paths__on_call(void *ctx, const struct ipcperf_syscall *ev, const struct ipp_ident *ch,
			uint64_t key, bool writing)
{
	struct ipcperf_paths *p = ctx;

	(void)key;
	if ((ch->kind != IPCPERF_FD_UNIX && ch->kind != IPCPERF_FD_TCP) ||
	    ch->sock_type != SOCK_STREAM || !ch->ino)
		return;
	if (!ev->ret) {
		if (!writing)
			end_of_file(p, ch);
		return;
	}
	if (!writing) {
		conn_of(p, ch, false);
		/* its matches follow: they say the thread, not the fd */
		p->rd_tid = ev->tid;
		p->rd_start = ev->start_ns;
		p->rd_fd = ev->fd;
		return;
	}
	on_write(p, ev, ch);
}

/* A read took bytes [@off, @off + @m->bytes) of message @g (of exchange @x, @dir). */
static void took(struct ipcperf_paths *p, struct ipp_xchg *x, int dir, struct ipp_msg *g,
		 uint64_t off, const struct ipcperf_flow_match *m)
{
	struct ipp_thr *t = ipp_paths__thr(p, m->rtid);

	g->rd += m->bytes;
	if (m->read_end_ns > g->r_last)
		g->r_last = m->read_end_ns;
	if (off == g->off0 && !g->read) {
		g->read = true;
		g->r_first = m->read_end_ns;
		g->rpid = m->rpid;
		g->rtid = m->rtid;
		g->rfd = p->rd_tid == m->rtid && p->rd_start == m->read_start_ns ? p->rd_fd : -1;
		if (dir == 0)
			ipp_idmap__put(&p->servers, (uint64_t)m->rpid, (void *)1);
	}
	if (!t)
		return;
	if (dir == 0 && off == g->off0)
		ipp_thr__hold(t, x, m->read_end_ns);	/* the server span begins */
	else if (dir == 1 && x->parent)
		ipp_thr__hold(t, x->parent, m->read_end_ns);	/* back to what it called for */
}

void ipp_paths__on_match(void *ctx, uint64_t key, const struct ipcperf_flow_match *m)
{
	struct ipcperf_paths *p = ctx;
	struct ipp_conn *c = ipp_idmap__get(&p->conns, key);
	struct ipp_xchg *x;
	struct ipp_msg *g;
	uint64_t off;
	int dir;


	if (!c)
		return;
	dir = key == c->end[1] ? 1 : 0;
	off = c->roff[dir];
	c->roff[dir] += m->bytes;
	x = c->cur;
	if (!x || (dir == 1 && !x->answered))
		return;
	g = dir == 0 ? &x->req : &x->resp;
	/* bytes of an exchange closed already, or from before we looked */
	if (off < g->off0 || off >= g->off1)
		return;
	took(p, x, dir, g, off, m);
}

/* A connection is in the map under each end known: @fn visits it once, under the first known. */
static void each_conn(struct ipcperf_paths *p, void (*fn)(struct ipcperf_paths *p,
							   struct ipp_conn *c))
{
	for (size_t i = 0; i < p->conns.cap; i++) {
		struct ipp_conn *c = p->conns.v[i].val;

		if (p->conns.v[i].key && p->conns.v[i].key == (c->end[0] ? c->end[0] : c->end[1]))
			fn(p, c);
	}
}

void ipp_paths__close_all(struct ipcperf_paths *p)
{
	each_conn(p, close_cur);
}

static void free_conn(struct ipcperf_paths *p, struct ipp_conn *c)
{
	(void)p;
	free(c);
}

void ipp_paths__free_conns(struct ipcperf_paths *p)
{
	each_conn(p, free_conn);
	ipp_idmap__fini(&p->conns);
}
