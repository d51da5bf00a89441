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
 * An item that comes after items of a later moment were handed on is late:
 * the exchange under way on its connection is left out (never guessed).
 *
 * A connect comes straight from the session, ahead of the flows' calls: it
 * waits here too, and does not move the clock (@now 0), which is the
 * flows'.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "paths/paths.h"

/* How long (in the events' time) an item waits for calls that happened before it. */
#define WINDOW 20000000ull

static bool before(const struct ipp_item *a, const struct ipp_item *b)
{
	return a->eff < b->eff || (a->eff == b->eff && a->seq < b->seq);
}

static void sift_up(struct ipp_item *v, size_t i)
{
	while (i) {
		size_t up = (i - 1) / 2;
		struct ipp_item tmp;

		if (!before(&v[i], &v[up]))
			return;
		tmp = v[i];
		v[i] = v[up];
		v[up] = tmp;
		i = up;
	}
}

static void sift_down(struct ipp_item *v, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct ipp_item tmp;

		if (l < n && before(&v[l], &v[m]))
			m = l;
		if (l + 1 < n && before(&v[l + 1], &v[m]))
			m = l + 1;
		if (m == i)
			return;
		tmp = v[i];
		v[i] = v[m];
		v[m] = tmp;
		i = m;
	}
}

/* Hand @it on (exchange.c), and let go of its connection. */
static void run(struct ipcperf_paths *p, struct ipp_item *it)
{
	if (it->eff > p->order.done)
		p->order.done = it->eff;
	ipp_paths__process(p, it);
	if (it->c)
		ipp_paths__put_conn(p, it->c);
}

/* Hand on every item older than @upto. */
static void release(struct ipcperf_paths *p, uint64_t upto)
{
	struct ipp_order *o = &p->order;

	while (o->n && o->v[0].eff < upto) {
		struct ipp_item it = o->v[0];

		o->v[0] = o->v[--o->n];
		sift_down(o->v, o->n, 0);
		run(p, &it);
	}
}

void ipp_order__push(struct ipcperf_paths *p, struct ipp_item *it, uint64_t now)
{
	struct ipp_order *o = &p->order;

	it->seq = ++o->seq;
	if (!it->c && it->eff < o->done)
		return;		/* a wakeup, connect or close too late to be placed: never a wrong turn */
	if (it->c)
		it->c->refs++;
	if (it->eff < o->done) {
		/* late: the moments after it were handed on already */
		ipp_paths__late(p, it->c);
		run(p, it);
		return;
	}
	if (ipp_grow((void **)&o->v, &o->cap, o->n + 1, sizeof(*o->v)) < 0) {
		ipp_paths__late(p, it->c);
		run(p, it);
		return;
	}
	o->v[o->n] = *it;
	sift_up(o->v, o->n++);
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

void ipp_order__fini(struct ipcperf_paths *p)
{
	struct ipp_order *o = &p->order;

	for (size_t i = 0; i < o->n; i++)
		if (o->v[i].c)
			ipp_paths__put_conn(p, o->v[i].c);
	free(o->v);
	memset(o, 0, sizeof(*o));
}
