/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Pipelining: the requests of a caller's turn, answered in order.
 *
 * A caller may write several requests before it reads an answer. Without
 * the protocol, the boundaries known are the calls': each write call of
 * the caller's turn (its writes between two of the server's) is a request,
 * and the server's writes answer them first in, first out. The first write
 * of the server answers the turn's first request; a later one begins the
 * answer of the next request once the server has read that request's first
 * byte (it cannot answer what it has not read), and else goes on with the
 * answer under way. A read that took the first bytes of several requests
 * makes its thread hold the first of them; the thread holds the next one
 * from the write that answers the one before: from then on it is served,
 * and the time it waited behind the ones before is its request's channel
 * time (queued), as when the server reads one request at a time. An event
 * loop may pass each request it read on before it answers the first: the
 * calls it made whose answers it has read nothing of when it answers a
 * request go to the next request read with it (pass_calls()).
 *
 * The turn ends when the caller writes after answers began. A request not
 * answered then that the server had not read when its last answer began is
 * one of its own: it goes on into the next turn, first in line. The others
 * left without an answer were read with the ones answered: when the server
 * answered once, they were not requests of their own (one request written
 * in several calls, or requests it answered together) and are folded into
 * the answered one, the exchange as turn-taking alone cuts it; when it
 * answered more than once, some answer was several requests': which is not
 * known, and the whole turn is counted (pipelined). So is a turn whose
 * server, after an answer, read more requests, then answered again a
 * request it had read in one read with an earlier one: a server that reads
 * what came and answers it at once (several requests' answers in one
 * write) cannot be told from one that answers each in turn. At the end of the stream or the
 * flush, the turn ends with nothing carried.
 *
 * An answered exchange closes when its turn ends, or later, once its
 * caller read its answer whole, when the caller wrote again before it read
 * it (a caller that writes its next requests as answers come back).
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "paths/paths.h"

static int push(struct ipp_turn *t, struct ipp_xchg *x)
{
	if (ipp_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v)) < 0)
		return -1;
	t->v[t->n++] = x;
	return 0;
}

int ipp_turn__add(struct ipp_conn *c, struct ipp_xchg *x)
{
	return push(&c->turn, x);
}

static bool holds(const struct ipp_msg *m, uint64_t off)
{
	return off >= m->off0 && off < m->off1;
}

struct ipp_xchg *ipp_turn__of(const struct ipp_conn *c, int dir, uint64_t off)
{
	const struct ipp_turn *t = &c->turn;
	size_t n = dir ? t->answered : t->n;

	for (size_t i = 0; i < n; i++)
		if (holds(dir ? &t->v[i]->resp : &t->v[i]->req, off))
			return t->v[i];
	for (size_t i = 0; dir && i < c->owed.n; i++)
		if (holds(&c->owed.v[i]->resp, off))
			return c->owed.v[i];
	return NULL;
}

static bool read_whole(const struct ipp_xchg *x)
{
	return x->resp.rd >= x->resp.off1 - x->resp.off0;
}

void ipp_turn__took(struct ipcperf_paths *p, struct ipp_conn *c, struct ipp_xchg *x)
{
	struct ipp_turn *o = &c->owed;

	for (size_t i = 0; i < o->n; i++) {
		if (o->v[i] != x || !read_whole(x))
			continue;
		memmove(o->v + i, o->v + i + 1, (--o->n - i) * sizeof(*o->v));
		ipp_paths__close_xchg(p, x);
		return;
	}
}

/* The answered @x of a turn that ends: closed, or owed its answer's reading (@carry). */
static void answered(struct ipcperf_paths *p, struct ipp_conn *c, struct ipp_xchg *x, bool carry)
{
	if (carry && !read_whole(x) && push(&c->owed, x) == 0)
		return;
	ipp_paths__close_xchg(p, x);
}

bool ipp_turn__read_with(struct ipcperf_paths *p, const struct ipp_thr *t, const struct ipp_item *it)
{
	const struct ipp_xchg *held = t->held ? ipp_idmap__get(&p->live, t->held) : NULL;

	return held && held->req.read && held->req.rtid == it->tid && held->req.r_first == it->end &&
	       held->req.off0 < it->off && ipp_turn__of(it->c, 0, held->req.off0) == held;
}

struct ipp_xchg *ipp_turn__next(const struct ipp_conn *c)
{
	return c->turn.answered < c->turn.n ? c->turn.v[c->turn.answered] : NULL;
}

/* Every request of @t is left out: which answer is whose is not known. */
static void mixed(struct ipp_turn *t)
{
	for (size_t i = 0; i < t->n; i++)
		ipp_drop_once(&t->v[i]->drop, IPP_DROP_PIPELINED);
}

/* The server read @x's first byte after its answer @prev began: @x is a request of its own. */
static bool read_after(const struct ipp_xchg *x, const struct ipp_xchg *prev)
{
	return x->req.read && !x->queued && x->req.r_first > prev->resp.w_start;
}

/*
 * The server begins a second answer (or later) of turn @t with the next
 * request. Read together with one before it (in one read), the answer
 * before may have been several requests' (a server that reads what came
 * and answers it at once), unless the server read no later request since
 * that answer began.
 */
static void check_pairing(struct ipp_turn *t)
{
	const struct ipp_xchg *prev = t->v[t->answered - 1];

	if (!t->v[t->answered]->together)
		return;
	for (size_t i = t->answered + 1; i < t->n; i++)
		if (read_after(t->v[i], prev)) {
			mixed(t);
			return;
		}
}

/*
 * @x, read in one read with @next, is answered by thread @tid: the calls
 * that @tid made while it held @x and whose answers it has read nothing of
 * yet are @next's. @x's answer could not wait for them; an event loop that
 * passes each request it read on at once made them for the requests read
 * with @x. @next was served from the first of them on.
 */
static void pass_calls(struct ipp_xchg *x, struct ipp_xchg *next, pid_t tid)
{
	size_t k = 0;

	for (size_t i = 0; i < x->nr_kids; i++) {
		struct ipp_xchg *kid = x->kids[i];

		if (kid->req.wtid != tid || kid->resp.rd || kid->closed ||
		    ipp_paths__add_kid(next, kid) < 0) {
			x->kids[k++] = kid;
			continue;
		}
		x->open--;
		if (kid->req.w_start < next->req.r_first)
			next->req.r_first = kid->req.w_start;
	}
	x->nr_kids = k;
}

struct ipp_xchg *ipp_turn__answer(struct ipcperf_paths *p, struct ipp_conn *c,
				  const struct ipp_item *it)
{
	struct ipp_turn *t = &c->turn;
	struct ipp_xchg *x = ipp_turn__next(c), *next;
	struct ipp_thr *thr;

	if (!t->n)
		return NULL;	/* an answer to a request written before we looked */
	if (t->answered && (!x || !x->req.read)) {
		ipp_paths__msg_extend(&t->v[t->answered - 1]->resp, it);
		return NULL;
	}
	if (t->answered)
		check_pairing(t);
	t->answered++;
	x->answered = true;
	ipp_paths__msg_start(&x->resp, it);
	next = ipp_turn__next(c);
	/* read with one before it, it is not held yet (a request read on its own is) */
	thr = next && next->together && next->req.rtid == it->tid ? ipp_paths__thr(p, it->tid) : NULL;
	if (thr) {
		/* read already, it waited behind this one: its turn now */
		next->req.r_first = it->end;
		next->queued = true;
		pass_calls(x, next, it->tid);
		ipp_paths__thr_hold(thr, next, it->end);
		thr->held_read = true;
	}
	return x;
}

/* Take @x out of its parent's calls: @into, with the same parent, keeps the parent open. */
static void unhang(struct ipp_xchg *x)
{
	struct ipp_xchg *up = x->parent;

	for (size_t i = 0; up && i < up->nr_kids; i++) {
		if (up->kids[i] != x)
			continue;
		/* the calls stay in the order they began */
		memmove(up->kids + i, up->kids + i + 1, (--up->nr_kids - i) * sizeof(*up->kids));
		up->open--;
		return;
	}
}

/* @x, of the same turn as @into and after it, is more of @into's request: made one with it. */
static void fold(struct ipcperf_paths *p, struct ipp_xchg *into, struct ipp_xchg *x)
{
	struct ipp_thr *thr = x->req.read ? ipp_idmap__get(&p->thrs, (uint64_t)x->req.rtid) : NULL;

	if (ipp_grow((void **)&into->kids, &into->cap_kids, into->nr_kids + x->nr_kids,
		     sizeof(*into->kids)) < 0) {
		ipp_paths__close_xchg(p, x);
		return;
	}
	for (size_t i = 0; i < x->nr_kids; i++) {
		x->kids[i]->parent = into;
		into->kids[into->nr_kids++] = x->kids[i];
	}
	into->open += x->open - 1;
	if (x->req.off1 > into->req.off1)
		into->req.off1 = x->req.off1;
	if (x->req.w_end > into->req.w_end)
		into->req.w_end = x->req.w_end;
	into->req.rd += x->req.rd;
	if (x->req.r_last > into->req.r_last)
		into->req.r_last = x->req.r_last;
	ipp_drop_once(&into->drop, x->drop);
	if (thr && thr->held == x->id)
		thr->held = into->id;
	unhang(x);
	ipp_idmap__del(&p->live, x->id);
	free(x->kids);
	free(x);
}

/*
 * Whether @x, not answered in turn @t, is certainly a request of its own:
 * the server answered the one before without having read it yet.
 */
static bool own(const struct ipp_turn *t, const struct ipp_xchg *x)
{
	return t->answered && (!x->req.read || (!x->queued &&
				x->req.r_first > t->v[t->answered - 1]->resp.w_start));
}

/* The requests [@from, @to) of turn @t, not answered: folded into the first, or closed. */
static void unanswered(struct ipcperf_paths *p, struct ipp_turn *t, size_t from, size_t to,
		       size_t own_from)
{
	/* answered more than once, fewer times than read with them: some answer was several's */
	if (t->answered > 1 && from < own_from && from < to)
		mixed(t);
	for (size_t i = from; i < to; i++) {
		struct ipp_xchg *x = t->v[i];

		if (i < own_from && t->answered <= 1 && x->parent == t->v[0]->parent) {
			fold(p, t->v[0], x);
			continue;
		}
		ipp_drop_once(&x->drop, IPP_DROP_NO_RESPONSE);
		ipp_paths__close_xchg(p, x);
	}
}

void ipp_turn__end(struct ipcperf_paths *p, struct ipp_conn *c, bool carry)
{
	struct ipp_turn t = c->turn;
	size_t first = t.answered ? t.answered : 1, k = first, m;

	while (k < t.n && !own(&t, t.v[k]))
		k++;
	m = carry ? k : t.n;
	/* the connection lets go of them first: a tree may go out as it closes */
	c->turn.n = c->turn.answered = 0;
	c->cur = NULL;
	unanswered(p, &t, first, m, k);
	for (size_t i = 0; i < first && i < t.n; i++) {
		if (!t.v[i]->answered)
			ipp_drop_once(&t.v[i]->drop, IPP_DROP_NO_RESPONSE);
		answered(p, c, t.v[i], carry && t.v[i]->answered);
	}
	while (!carry && c->owed.n)
		ipp_paths__close_xchg(p, c->owed.v[--c->owed.n]);
	/* the requests of their own left: the oldest ones of the next turn (none: maybe no array) */
	if (t.n > m)
		memmove(t.v, t.v + m, (t.n - m) * sizeof(*t.v));
	c->turn.n = t.n - m;
	c->cur = c->turn.n ? t.v[c->turn.n - 1] : NULL;
}

void ipp_turn__fini(struct ipp_conn *c)
{
	free(c->turn.v);
	free(c->owed.v);
	c->turn = c->owed = (struct ipp_turn){ 0 };
}
