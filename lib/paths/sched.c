/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The threads' scheduling, to split each server span's self time into on
 * CPU, waiting to run (runnable, not running) and blocked.
 *
 * The session hands the changes of every target thread (session.h): put on
 * a CPU (on CPU), switched out still runnable or woken from a sleep
 * (waiting to run), switched out asleep (blocked). Each thread keeps its
 * changes in time order for as long as a span may still ask about them:
 * the spans are made in the order of the moments (order.c), so a change
 * older than both the oldest request still held and the latest moment
 * handed on is never asked about again.
 *
 * A piece of self time starts at a moment the thread was running (a call's
 * return) or was woken (a hand-off): its state there is given, and the
 * changes inside the piece do the rest, so the three parts add up to the
 * piece exactly.
 */
#include "config.h"
#include <string.h>
#include "paths/paths.h"
#include "session/session.h"

/* Changes a thread keeps before the old ones are dropped. */
#define RUNS_PRUNE 1024

static void oldest_held(void *ctx, void *val)
{
	const struct ipp_xchg *x = val;
	uint64_t *from = ctx;

	if (x->req.read && x->req.r_first < *from)
		*from = x->req.r_first;
}

/* The earliest moment a span may still ask about. */
static uint64_t needed_from(const struct ipcperf_paths *p)
{
	uint64_t from = p->order.done;

	ipp_idmap__each(&p->live, oldest_held, &from);
	return from;
}

/* Drop @t's changes before @from, but the last one (its state at @from). */
static void runs_prune(struct ipp_thr *t, uint64_t from)
{
	size_t k = 0;

	while (k + 1 < t->nr_runs && t->runs[k + 1].t <= from)
		k++;
	memmove(t->runs, t->runs + k, (t->nr_runs - k) * sizeof(*t->runs));
	t->nr_runs -= k;
}

static void run_add(struct ipcperf_paths *p, struct ipp_thr *t, uint64_t time,
		    enum ipp_run_state state)
{
	if (t->nr_runs >= RUNS_PRUNE && t->nr_runs == t->cap_runs)
		runs_prune(t, needed_from(p));
	if (ipp_grow((void **)&t->runs, &t->cap_runs, t->nr_runs + 1, sizeof(*t->runs)) < 0) {
		p->sched_short = true;
		return;
	}
	t->runs[t->nr_runs++] = (struct ipp_run){ .t = time, .state = state };
}

void ipp_paths__on_sched(void *ctx, const struct ipp_sched_ev *ev)
{
	struct ipcperf_paths *p = ctx;
	struct ipp_thr *t = ipp_paths__thr(p, ev->tid);
	enum ipp_run_state last;

	if (ev->state == IPP_RUN_WAKING) {
		ipp_paths__on_waking(p, ev->time, ev->pid, ev->waker, ev->tid);
		return;
	}
	p->sched_seen = true;
	if (!ev->complete)
		p->sched_short = true;
	if (!t) {
		p->sched_short = true;
		return;
	}
	if (ev->pid > 0)
		t->pid = ev->pid;
	last = t->nr_runs ? t->runs[t->nr_runs - 1].state : IPP_RUN_ON;
	/* a wakeup counts only for a thread asleep (not one woken before it switched out) */
	if (ev->state == IPP_RUN_WOKEN && (!t->nr_runs || last != IPP_RUN_BLOCKED))
		return;
	if (ev->state == IPP_RUN_WOKEN)
		run_add(p, t, ev->time, IPP_RUN_RUNQ);
	else if (!t->nr_runs || last != ev->state)
		run_add(p, t, ev->time, ev->state);
}

bool ipp_paths__split_ok(const struct ipcperf_paths *p)
{
	return p->sched_seen && !p->sched_short;
}

void ipp_paths__thr_split(const struct ipp_thr *t, uint64_t a, uint64_t b, enum ipp_run_state at_a,
		    uint64_t out[3])
{
	size_t lo = 0, hi = t ? t->nr_runs : 0;
	enum ipp_run_state st = at_a;
	uint64_t cur = a;

	if (b <= a)
		return;
	/* the first change after @a */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->runs[mid].t <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; t && lo < t->nr_runs && t->runs[lo].t < b; lo++) {
		out[st] += t->runs[lo].t - cur;
		cur = t->runs[lo].t;
		st = t->runs[lo].state;
	}
	out[st] += b - cur;
}

void ipp_paths__take_sched(struct ipcperf_paths *p, struct ipcperf_session *s)
{
	ipp_session__take_sched(s, ipp_paths__on_sched, p);
}
