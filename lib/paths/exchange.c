/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Connections and their exchanges, from the flows' tap.
 *
 * A stream socket's two directions are one connection: the end that
 * connected is the caller's, the end a listener accepted the server's (of
 * a connection made before the capture, or a socket pair: the end that
 * wrote first). Writes and matches are numbered by byte offset as they
 * come (the flows' matches come in the order of each direction's bytes),
 * then wait in order.c to be taken in the order they happened. Turn-taking
 * cuts each direction's bytes into messages: a write from the caller's end
 * after bytes went the other way starts a request (and ends the turn
 * before it, closing its exchanges), a write from the other end starts the
 * response of the exchange under way. Within a turn, each write call of the
 * caller is a request of its own, answered in order (pipelining:
 * turn.c). A match's offset says which message it read and whether it
 * took that message's first byte.
 *
 * A read that took a request's first byte makes its thread hold that
 * request (the server span begins); a read of a response makes the caller's
 * thread hold again the request it made that exchange for. A request that
 * starts belongs to what its thread holds, unless a wait returned in that
 * thread since the read that made it hold it (paths.c: an event loop's
 * turn) or the request held was answered already; the first request on a
 * socket that the thread connected in the turn it held a request belongs
 * to that request, whatever the turn it is written in.
 */
#include "config.h"
#include <stdlib.h>
#include <sys/socket.h>
#include "fd/fdtable.h"
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

void ipp_paths__msg_start(struct ipp_msg *m, const struct ipp_item *it)
{
	*m = (struct ipp_msg){ .off0 = it->off, .off1 = it->off + it->bytes,
			       .w_start = it->start, .w_end = it->end, .wpid = it->pid,
			       .wtid = it->tid, .wfd = it->fd, .rfd = -1 };
}

void ipp_paths__msg_extend(struct ipp_msg *m, const struct ipp_item *it)
{
	if (it->off + it->bytes > m->off1)
		m->off1 = it->off + it->bytes;
	if (it->end > m->w_end)
		m->w_end = it->end;
}

int ipp_paths__add_kid(struct ipp_xchg *parent, struct ipp_xchg *x)
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
		ipp_drop_once(&x->drop, IPP_DROP_NO_CAUSE);
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

struct ipp_xchg *ipp_paths__held(struct ipcperf_paths *p, const struct ipp_item *it)
{
	struct ipp_thr *t = ipp_paths__thr(p, it->tid);
	struct ipp_xchg *held = t && t->held ? ipp_idmap__get(&p->live, t->held) : NULL;

	if (!held || held->answered || ipp_paths__thr_waited(t, t->held_at, it->start))
		return NULL;
	return held;
}

/*
 * What the request @x, just started by @it, belongs to: the request its
 * fd was connected for, or else the one its thread holds, if it still may;
 * else it is an originator's, or (when its process serves requests) one no
 * rule explains.
 */
static void attach_request(struct ipcperf_paths *p, struct ipp_xchg *x, const struct ipp_item *it)
{
	struct ipp_xchg *cause = ipp_sockfd__dialed_for(p, it);

	if (!cause)
		cause = ipp_paths__held(p, it);
	if (cause && ipp_paths__add_kid(cause, x) == 0)
		return;
	if (ipp_idmap__get(&p->servers, (uint64_t)it->pid))
		unexplained(p, x, it->pid);
}

static void new_request(struct ipcperf_paths *p, struct ipp_conn *c, const struct ipp_item *it)
{
	struct ipp_xchg *x = calloc(1, sizeof(*x));

	if (!x)
		return;
	x->id = ++p->next_id;
	x->kind = c->kind;
	x->open = 1;
	ipp_paths__msg_start(&x->req, it);
	if (ipp_idmap__put(&p->live, x->id, x) < 0) {
		free(x);
		return;
	}
	if (ipp_turn__add(c, x) < 0) {
		ipp_idmap__del(&p->live, x->id);
		free(x);
		return;
	}
	c->cur = x;
	attach_request(p, x, it);
}

/* A write, at its start: a request begins or goes on, a response begins or goes on. */
/*
 * A write, at its start: from the caller, a request (after answers: of a
 * new turn); from the server, an answer begins or goes on (turn.c).
 */
static void on_write(struct ipcperf_paths *p, const struct ipp_item *it)
{
	struct ipp_conn *c = it->c;

	if (it->dir == 1) {
		ipp_turn__answer(p, c, it);
		return;
	}
	if (c->turn.answered)
		ipp_turn__end(p, c, true);
	new_request(p, c, it);
}

/*
 * The exchange under way on @c ends with the connection (or the capture);
 * the requests its accepted end read from a client not traced (none of
 * their bytes matched) are counted.
 */
static void close_cur(struct ipcperf_paths *p, struct ipp_conn *c)
{
	ipp_turn__end(p, c, false);
	if (!c->matched)
		p->counts.untraced_client += c->read_turns;
	c->read_turns = 0;
}

/*
 * A read found the end of the stream (its peer closed, or shut down its
 * writing side), or sockfd.c a close that ends it. Once the exchange under
 * way was answered, it is complete, and the connection is forgotten (its
 * inodes may name new sockets later); before, the caller may still wait
 * for the answer (a request ended by a half close).
 */
void ipp_paths__end_conn(struct ipcperf_paths *p, struct ipp_conn *c)
{
	if (c->gone || (c->turn.n && !c->turn.answered))
		return;
	close_cur(p, c);
	for (int i = 0; i < 2; i++)
		if (c->end[i] && ipp_idmap__get(&p->conns, c->end[i]) == c)
			ipp_idmap__del(&p->conns, c->end[i]);
	c->gone = true;
}

void ipp_paths__put_conn(struct ipcperf_paths *p, struct ipp_conn *c)
{
	(void)p;
	if (c && !--c->refs && c->gone) {
		ipp_turn__fini(c);
		free(c);
	}
}

void ipp_paths__late(struct ipcperf_paths *p, struct ipp_conn *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->turn.n; i++)
		ipp_drop_once(&c->turn.v[i]->drop, IPP_DROP_LATE);
	(void)p;
}

/* A call's item, with what it always carries. */
static struct ipp_item item_of(enum ipp_item_kind kind, struct ipp_conn *c, const struct ipp_ident *ch,
			       const struct ipcperf_syscall *ev)
{
	return (struct ipp_item){
		.kind = kind, .c = c, .dir = ch->ino == c->end[1] ? 1 : 0, .pid = ev->pid,
		.tid = ev->tid, .fd = ev->fd, .start = ev->start_ns, .end = ev->end_ns,
		.bytes = ev->ret > 0 ? (uint64_t)ev->ret : 0,
	};
}

void ipp_paths__on_call(void *ctx, const struct ipcperf_syscall *ev, const struct ipp_ident *ch,
			uint64_t key, bool writing)
{
	struct ipcperf_paths *p = ctx;
	struct ipp_conn *c;
	struct ipp_item it;

	(void)key;
	if (ipp_pipes__on_call(p, ev, ch, writing))
		return;
	if ((ch->kind != IPCPERF_FD_UNIX && ch->kind != IPCPERF_FD_TCP) ||
	    ch->sock_type != SOCK_STREAM || !ch->ino)
		return;
	/* an accepted end that reads first makes it too: its client may not be traced */
	c = conn_of(p, ch, ev->ret > 0 && (writing || ch->origin == IPP_ORIGIN_ACCEPTED));
	if (!c) {
		ipp_order__tick(p, ev->end_ns);
		return;
	}
	if (ch->ino == c->end[1] && ev->ret > 0) {
		c->read_turns += !writing && !c->reading;
		c->reading = !writing;
	}
	if (!writing) {
		/* its matches follow: they say the thread, not the fd */
		p->rd_tid = ev->tid;
		p->rd_start = ev->start_ns;
		p->rd_fd = ev->fd;
	}
	if (writing && !ev->ret)
		return;
	if (writing) {
		it = item_of(IPP_IT_WRITE, c, ch, ev);
		it.off = c->woff[it.dir];
		c->woff[it.dir] += it.bytes;
		it.eff = ev->start_ns;
	} else if (!ev->ret) {
		it = item_of(IPP_IT_EOF, c, ch, ev);
		it.eff = ev->end_ns;
	} else {
		return;
	}
	ipp_order__push(p, &it, ev->end_ns);
}

/*
 * A thread began waking @it->woken (sched_waking, the waker's own record:
 * sched_wakeup may run on the wakee's CPU, in whatever ran there): when it
 * holds a request it read itself, in the
 * same turn, not answered and not handed off yet, and the woken thread is
 * of its process, the request goes to that thread (a worker pool's hand-off
 * through a condition variable, an eventfd, a pipe): it holds it from the
 * wakeup on. Once only: the waker's later wakeups (a mutex's waiters) do
 * not pass it on again.
 */
static void hand_off(struct ipcperf_paths *p, const struct ipp_item *it)
{
	struct ipp_thr *t = ipp_idmap__get(&p->thrs, (uint64_t)it->tid), *w;
	struct ipp_xchg *x = t && t->held && t->held_read ? ipp_idmap__get(&p->live, t->held) : NULL;

	if (!x || x->answered || x->hand_tid || ipp_paths__thr_waited(t, t->held_at, it->eff))
		return;
	w = ipp_idmap__get(&p->thrs, (uint64_t)it->woken);
	if (!w || w == t || !w->pid || w->pid != it->pid)
		return;
	x->hand_tid = w->tid;
	x->hand_at = it->eff;
	ipp_paths__thr_hold(w, x, it->eff);
	w->held_read = false;
}

void ipp_paths__on_waking(struct ipcperf_paths *p, uint64_t time, pid_t pid, pid_t waker,
			  pid_t woken)
{
	struct ipp_item it = { .kind = IPP_IT_WAKE, .eff = time, .pid = pid, .tid = waker,
			       .woken = woken, .start = time, .end = time, .fd = -1 };

	if (waker > 0 && woken > 0)
		ipp_order__push(p, &it, 0);
}

/* A read (@it) took bytes [@it->off, + @it->bytes) of message @g (of exchange @x). */
static void took(struct ipcperf_paths *p, struct ipp_xchg *x, struct ipp_msg *g,
		 const struct ipp_item *it)
{
	struct ipp_thr *t = ipp_paths__thr(p, it->tid);

	g->rd += it->bytes;
	if (it->end > g->r_last)
		g->r_last = it->end;
	if (it->off == g->off0 && !g->read) {
		g->read = true;
		g->r_first = it->end;
		g->rpid = it->pid;
		g->rtid = it->tid;
		g->rfd = it->fd;
		if (it->dir == 0)
			ipp_idmap__put(&p->servers, (uint64_t)it->pid, (void *)1);
	}
	if (!t)
		return;
	t->pid = it->pid;
	if (it->dir == 0 && it->off == g->off0 && ipp_turn__read_with(p, t, it)) {
		x->together = true;	/* held after the one before it (turn.c) */
	} else if (it->dir == 0 && it->off == g->off0) {
		ipp_paths__thr_hold(t, x, it->end);	/* the server span begins */
		t->held_read = true;
	} else if (it->dir == 1 && x->parent) {
		ipp_paths__thr_hold(t, x->parent, it->end);	/* back to what it called for */
		t->held_read = false;
	}
}

static void on_match(struct ipcperf_paths *p, const struct ipp_item *it)
{
	struct ipp_xchg *x = ipp_turn__of(it->c, it->dir, it->off);

	/* else: bytes of an exchange closed already, or from before we looked */
	if (!x)
		return;
	took(p, x, it->dir == 0 ? &x->req : &x->resp, it);
	if (it->dir == 1)
		ipp_turn__took(p, it->c, x);
}

void ipp_paths__on_match(void *ctx, uint64_t key, const struct ipcperf_flow_match *m)
{
	struct ipcperf_paths *p = ctx;
	struct ipp_conn *c;
	struct ipp_item it;

	if (ipp_pipes__on_match(p, key, m))
		return;
	c = ipp_idmap__get(&p->conns, key);
	if (!c)
		return;
	c->matched = true;
	it = (struct ipp_item){
		.kind = IPP_IT_MATCH, .c = c, .dir = key == c->end[1] ? 1 : 0, .bytes = m->bytes,
		.pid = m->rpid, .tid = m->rtid, .start = m->read_start_ns, .end = m->read_end_ns,
		.eff = m->read_end_ns,
		.fd = p->rd_tid == m->rtid && p->rd_start == m->read_start_ns ? p->rd_fd : -1,
	};
	it.off = c->roff[it.dir];
	c->roff[it.dir] += m->bytes;
	ipp_order__push(p, &it, m->read_end_ns > m->write_end_ns ? m->read_end_ns : m->write_end_ns);
}

void ipp_paths__process(struct ipcperf_paths *p, const struct ipp_item *it)
{
	if (it->kind == IPP_IT_WAKE) {
		hand_off(p, it);
		return;
	}
	if (it->pm) {
		ipp_pipes__process(p, it);
		return;
	}
	if (it->kind == IPP_IT_CONNECT || it->kind == IPP_IT_CLOSE) {
		ipp_sockfd__process(p, it);
		return;
	}
	if (it->c->gone)
		return;
	ipp_sockfd__saw(p, it);
	if (it->kind == IPP_IT_WRITE)
		on_write(p, it);
	else if (it->kind == IPP_IT_MATCH)
		on_match(p, it);
	else
		ipp_paths__end_conn(p, it->c);
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

/*
 * A connection is in the map under each end known: its second end's slot
 * is emptied first (the map is read no more), then each is freed once. One
 * pass that freed it at its first end would read it freed at its second,
 * when that slot comes later.
 */
void ipp_paths__free_conns(struct ipcperf_paths *p)
{
	struct ipp_idmap *m = &p->conns;

	for (size_t i = 0; i < m->cap; i++) {
		struct ipp_conn *c = m->v[i].val;

		if (m->v[i].key && m->v[i].key != (c->end[0] ? c->end[0] : c->end[1]))
			m->v[i].key = 0;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->v[i].key) {
			ipp_turn__fini(m->v[i].val);
			free(m->v[i].val);
		}
	ipp_idmap__fini(m);
}
