/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tap's calls and matches, put back in the order they happened.
 *
 * The flows hand calls on in the order they returned. A write's bytes are
 * there from its start, a read took them by its end: a writer preempted
 * inside its call (after its bytes woke the reader) may return after the
 * reader answered, and a server's answer may return after its caller read
 * it and sent the next request. Turns are a matter of these moments, so each
 * item waits here, by its moment (a write's start, a read's end), until the
 * calls have gone WINDOW past it; then it is handed to exchange.c. What a
 * write's and a read's bytes are (their offsets in their direction) is
 * counted as they come, in the flows' byte order.
 *
 * Most items come in the order of their moments (one thread's calls, a
 * direction's matches): those wait in a ring of keys that stays in order,
 * the others in a heap; the earlier of the two heads goes first.
 *
 * An item that comes after items of a later moment were handed on is late:
 * the exchange under way on its connection is left out (never guessed).
 *
 * A connect comes straight from the session, ahead of the flows' calls: it
 * waits here too, and does not move the clock (@now 0), which is the
 * flows'.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "paths/paths.h"

/* How long (in the events' time) an item waits for calls that happened before it. */
#define WINDOW 20000000ull

static bool before(const struct ipp_okey *a, const struct ipp_okey *b)
{
	return a->eff < b->eff || (a->eff == b->eff && a->seq < b->seq);
}

/*
 * The heap holds keys (24 bytes), not the items (over 100): a sift moves
 * each key once, into the hole, rather than swapping whole items.
 */
static void sift_up(struct ipp_okey *v, size_t i)
{
	struct ipp_okey k = v[i];

	while (i) {
		size_t up = (i - 1) / 2;

		if (!before(&k, &v[up]))
			break;
		v[i] = v[up];
		i = up;
	}
	v[i] = k;
}

static void sift_down(struct ipp_okey *v, size_t n, size_t i)
{
	struct ipp_okey k = v[i];

	for (;;) {
		size_t l = 2 * i + 1, m = l;

		if (l >= n)
			break;
		if (l + 1 < n && before(&v[l + 1], &v[l]))
			m = l + 1;
		if (!before(&v[m], &k))
			break;
		v[i] = v[m];
		i = m;
	}
	v[i] = k;
}

/* A slot for an item: a free one, or a new one. @return its index; SIZE_MAX out of memory. */
static size_t slot_take(struct ipp_order *o)
{
	if (o->nr_free)
		return o->free[--o->nr_free];
	if (ipp_grow((void **)&o->items, &o->cap_items, o->top + 1, sizeof(*o->items)) < 0 ||
	    ipp_grow((void **)&o->free, &o->cap_free, o->top + 1, sizeof(*o->free)) < 0)
		return SIZE_MAX;
	return o->top++;
}

/* Hand @it on (exchange.c), and let go of its connection. */
static void run(struct ipcperf_paths *p, struct ipp_item *it)
{
	if (it->eff > p->order.done)
		p->order.done = it->eff;
	ipp_paths__process(p, it);
	if (it->c)
		ipp_paths__put_conn(p, it->c);
	ipp_pipes__put(it->pm);
}

/* @it came too late, or cannot wait: what it belongs to is left out. */
static void late(struct ipcperf_paths *p, struct ipp_item *it)
{
	ipp_paths__late(p, it->c);
	if (it->pm)
		ipp_pipes__late(p, it->pm);
	run(p, it);
}

static struct ipp_okey *q_at(const struct ipp_order *o, size_t i)
{
	return &o->q[(o->qhead + i) & (o->qcap - 1)];
}

/* Key @k goes to the ring when it is not before the ring's last. @return 0; -ENOMEM. */
static int q_push(struct ipp_order *o, const struct ipp_okey *k)
{
	if (o->qn == o->qcap) {
		size_t cap = o->qcap ? 2 * o->qcap : 256;
		struct ipp_okey *q = malloc(cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		for (size_t i = 0; i < o->qn; i++)
			q[i] = *q_at(o, i);
		free(o->q);
		o->q = q;
		o->qcap = cap;
		o->qhead = 0;
	}
	*q_at(o, o->qn++) = *k;
	return 0;
}

/* Take the earliest key, of the ring's head and the heap's top, if before @upto. */
static bool take_key(struct ipp_order *o, uint64_t upto, struct ipp_okey *k)
{
	bool from_q = o->qn && (!o->n || before(q_at(o, 0), &o->v[0]));

	if (from_q && q_at(o, 0)->eff < upto) {
		*k = *q_at(o, 0);
		o->qhead = (o->qhead + 1) & (o->qcap - 1);
		o->qn--;
		return true;
	}
	if (from_q || !o->n || o->v[0].eff >= upto)
		return false;
	*k = o->v[0];
	o->v[0] = o->v[--o->n];
	sift_down(o->v, o->n, 0);
	return true;
}

/* Hand on every item older than @upto. */
static void release(struct ipcperf_paths *p, uint64_t upto)
{
	struct ipp_order *o = &p->order;
	struct ipp_okey k;

	while (take_key(o, upto, &k)) {
		struct ipp_item it = o->items[k.slot];

		/* its slot is free once it is copied out: run() may push more */
		o->free[o->nr_free++] = k.slot;
		run(p, &it);
	}
}

/* Place key @k: in the ring when it comes after the ring's last, else in the heap. @return 0; -ENOMEM. */
static int place(struct ipp_order *o, const struct ipp_okey *k)
{
	if (!o->qn || !before(k, q_at(o, o->qn - 1)))
		return q_push(o, k);
	if (ipp_grow((void **)&o->v, &o->cap, o->n + 1, sizeof(*o->v)) < 0)
		return -ENOMEM;
	o->v[o->n] = *k;
	sift_up(o->v, o->n++);
	return 0;
}

void ipp_order__push(struct ipcperf_paths *p, struct ipp_item *it, uint64_t now)
{
	struct ipp_order *o = &p->order;
	size_t slot;

	it->seq = ++o->seq;
	if (!it->c && !it->pm && it->eff < o->done)
		return;		/* a wakeup, connect or close too late to be placed: never a wrong turn */
	if (it->c)
		it->c->refs++;
	if (it->pm)
		ipp_pipes__hold(it->pm);
	/* late: the moments after it were handed on already */
	if (it->eff < o->done || (slot = slot_take(o)) == SIZE_MAX) {
		late(p, it);
		return;
	}
	if (place(o, &(struct ipp_okey){ .eff = it->eff, .seq = it->seq, .slot = slot }) < 0) {
		o->free[o->nr_free++] = slot;
		late(p, it);
		return;
	}
	o->items[slot] = *it;
	ipp_order__tick(p, now);
}

void ipp_order__tick(struct ipcperf_paths *p, uint64_t now)
{
	struct ipp_order *o = &p->order;

	if (now > o->now)
		o->now = now;
	if (o->now > WINDOW)
		release(p, o->now - WINDOW);
}

void ipp_order__flush(struct ipcperf_paths *p)
{
	release(p, UINT64_MAX);
}

/* Let go of what the item of key @k holds. */
static void drop_item(struct ipcperf_paths *p, const struct ipp_okey *k)
{
	const struct ipp_item *it = &p->order.items[k->slot];

	if (it->c)
		ipp_paths__put_conn(p, it->c);
	ipp_pipes__put(it->pm);
}

void ipp_order__fini(struct ipcperf_paths *p)
{
	struct ipp_order *o = &p->order;

	for (size_t i = 0; i < o->n; i++)
		drop_item(p, &o->v[i]);
	for (size_t i = 0; i < o->qn; i++)
		drop_item(p, q_at(o, i));
	free(o->v);
	free(o->q);
	free(o->items);
	free(o->free);
	memset(o, 0, sizeof(*o));
}
