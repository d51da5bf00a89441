/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The public request paths: a tap on the flows (the bytes: exchange.c),
 * the session's waits (each thread's turns), connects, closes and lost
 * records, the threads, the flush.
 *
 * The flows hand calls on once what their fd is has been settled, some
 * tens of ms of events after the calls; the waits come straight from the
 * session. So a thread's waits are kept by the time they returned, and a
 * question about its turns (was there a wait between the read that made it
 * hold a request and this write?) is asked with the calls' times: a
 * thread's calls never overlap.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "flows/flowtap.h"
#include "paths/paths.h"

/* A thread's waits kept, at most, when it holds nothing (a client's loop): the latest ones. */
#define WAITS_KEEP 1024

struct ipcperf_paths *ipcperf_paths__new(struct ipcperf_flows *fl)
{
	struct ipcperf_paths *p;
	struct ipp_flowtap tap;

	p = ipp_new_checked(fl != NULL, sizeof(*p));
	if (!p)
		return NULL;
	p->fl = fl;
	p->st = ipp_flows__stats(fl);
	tap = (struct ipp_flowtap){ .ctx = p, .call = ipp_paths__on_call,
				    .match = ipp_paths__on_match };
	ipp_flows__tap(fl, &tap);
	return p;
}

static void free_thr(void *ctx, void *val)
{
	struct ipp_thr *t = val;

	(void)ctx;
	free(t->waits);
	free(t->runs);
	free(t);
}

/* The roots of the trees still under way: each tree is freed from its root. */
static void free_root(void *ctx, void *val)
{
	struct ipp_xchg *x = val, ***roots = ctx;

	if (!x->parent)
		*(*roots)++ = x;
}

static void free_live(struct ipcperf_paths *p)
{
	struct ipp_xchg **roots = calloc(p->live.n + 1, sizeof(*roots)), **end = roots;

	if (roots) {
		ipp_idmap__each(&p->live, free_root, &end);
		for (struct ipp_xchg **r = roots; r < end; r++)
			ipp_paths__free_tree(p, *r);
	}
	free(roots);
	ipp_idmap__fini(&p->live);
}

void ipcperf_paths__delete(struct ipcperf_paths *p)
{
	if (!p)
		return;
	ipp_join__free(p);
	ipp_joinflows__free(p);
	ipp_flows__tap(p->fl, NULL);
	ipp_order__fini(p);
	ipp_pipes__free(p);
	free_live(p);
	/* its references first: the connections still in the map are freed next */
	ipp_sockfd__fini(p);
	ipp_paths__free_conns(p);
	ipp_idmap__each(&p->thrs, free_thr, NULL);
	ipp_idmap__fini(&p->thrs);
	ipp_idmap__fini(&p->servers);
	free(p->hops);
	free(p->comms);
	free(p);
}

struct ipp_thr *ipp_paths__thr(struct ipcperf_paths *p, pid_t tid)
{
	struct ipp_thr *t;

	if (tid <= 0)
		return NULL;
	t = ipp_idmap__get_new(&p->thrs, (uint64_t)tid, sizeof(*t));
	if (t)
		t->tid = tid;
	return t;
}

bool ipp_paths__thr_waited(const struct ipp_thr *t, uint64_t from, uint64_t to)
{
	size_t lo = 0, hi = t->nr_waits;

	/* the first wait that returned after @from */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->waits[mid] <= from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nr_waits && t->waits[lo] < to;
}

/* Forget the waits of @t that returned at or before @upto: no question asks about them again. */
static void drop_waits(struct ipp_thr *t, uint64_t upto)
{
	size_t k = 0;

	while (k < t->nr_waits && t->waits[k] <= upto)
		k++;
	if (!k)
		return;	/* none: and no array to move, maybe (NULL + 0 is undefined) */
	memmove(t->waits, t->waits + k, (t->nr_waits - k) * sizeof(*t->waits));
	t->nr_waits -= k;
}

void ipp_paths__thr_hold(struct ipp_thr *t, const struct ipp_xchg *x, uint64_t at)
{
	t->held = x->id;
	t->held_at = at;
	drop_waits(t, at);
}

static void on_wait(struct ipcperf_paths *p, const struct ipcperf_syscall *ev)
{
	struct ipp_thr *t = ipp_paths__thr(p, ev->tid);

	if (!t)
		return;
	t->pid = ev->pid;
	if (t->nr_waits >= WAITS_KEEP && !t->held) {
		memmove(t->waits, t->waits + WAITS_KEEP / 2,
			(t->nr_waits - WAITS_KEEP / 2) * sizeof(*t->waits));
		t->nr_waits -= WAITS_KEEP / 2;
	}
	if (ipp_grow((void **)&t->waits, &t->cap_waits, t->nr_waits + 1, sizeof(*t->waits)) < 0)
		return;
	t->waits[t->nr_waits++] = ev->end_ns;
}

/* A connect that made a connection or is making one (a non-blocking socket's). */
static bool connecting(const struct ipcperf_syscall *ev)
{
	return ev->cls == IPCPERF_SC_FD_OTHER && ev->fd >= 0 && !strcmp(ev->name, "connect") &&
	       (ev->ret == 0 || ev->ret == -EINPROGRESS || ev->ret == -EAGAIN);
}

/*
 * An accept that returned a connection: it ends the thread's turn as a
 * wait does. A connect made after it is made for the new connection, not
 * for the request the thread read before (sockfd.c).
 */
static bool accepting(const struct ipcperf_syscall *ev)
{
	return ev->cls == IPCPERF_SC_FD_NEW && ev->ret >= 0 &&
	       (!strcmp(ev->name, "accept4") || !strcmp(ev->name, "accept"));
}

void ipcperf_paths__add_syscall(struct ipcperf_paths *p, const struct ipcperf_syscall *ev)
{
	if (!p)
		return;
	if (ev->cls == IPCPERF_SC_WAIT || accepting(ev))
		on_wait(p, ev);
	else if (connecting(ev))
		ipp_paths__on_connect(p, ev);
	else if (ev->cls == IPCPERF_SC_FD_CLOSE && ev->fd >= 0 && ev->ret == 0)
		ipp_paths__on_close(p, ev);
}

static void mark_lost(void *ctx, void *val)
{
	struct ipp_xchg *x = val;

	(void)ctx;
	ipp_drop_once(&x->drop, IPP_DROP_LOST);
}

void ipp_paths__lost(struct ipcperf_paths *p)
{
	ipp_idmap__each(&p->live, mark_lost, NULL);
	ipp_pipes__lost(p);
}

static void h_lost(void *ctx, const struct ipcperf_lost *ev)
{
	(void)ev;
	ipp_paths__lost(ctx);
}

static void h_syscall(void *ctx, const struct ipcperf_syscall *ev)
{
	ipcperf_paths__add_syscall(ctx, ev);
}


int ipcperf_paths__attach(struct ipcperf_paths *p, struct ipcperf_session *s)
{
	IPCPERF_OPTS(ipcperf_handlers, h, .ctx = p, .syscall = h_syscall, .lost = h_lost);
	int err;

	if (!p || !s)
		return -EINVAL;
	err = ipcperf_session__add_handlers(s, &h);
	if (err == 0)
		ipp_paths__take_sched(p, s);
	return err;
}

IPP_DEFINE_CB_SETTER(ipcperf_paths__on_path, struct ipcperf_paths, cb, cb_ctx)

static int settle_none(void *ctx, const struct ipcperf_flow *f)
{
	(void)ctx;
	(void)f;
	return 0;
}

int ipcperf_paths__flush(struct ipcperf_paths *p)
{
	int err;

	if (!p)
		return -EINVAL;
	/* a walk of the flows settles every call still waiting for its fd */
	err = ipcperf_flows__for_each(p->fl, settle_none, NULL);
	if (err < 0)
		return err;
	ipp_order__flush(p);
	ipp_paths__close_all(p);
	ipp_pipes__flush(p);
	ipp_join__flush(p);
	return 0;
}

int ipcperf_paths__stats(const struct ipcperf_paths *p, struct ipcperf_paths_stats *out)
{
	size_t sz;

	if (!p || !out || out->sz < sizeof(out->sz))
		return -EINVAL;
	sz = out->sz < sizeof(p->counts) ? out->sz : sizeof(p->counts);
	memcpy((char *)out + sizeof(out->sz), (const char *)&p->counts + sizeof(out->sz),
	       sz - sizeof(out->sz));
	return 0;
}
