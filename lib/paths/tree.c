/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Exchanges completed, and the paths made of them.
 *
 * An exchange is closed when its caller starts the next one on that
 * connection (or at the flush); a request is complete when its exchange and
 * every exchange under it are closed. It is then checked (every hop read by
 * a traced process, answered, the answer read whole, no rule failed) and
 * handed out as a public path, or counted with its reason; then freed.
 *
 * The times of a hop are nested into its caller's: a read can end a little
 * before the write that fed it returns, so each time is kept within the
 * interval that must hold it (the call within its caller's span, the span
 * within the call). Then a chain's end-to-end time is exactly the sum of
 * its hops' channel and self times.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "paths/paths.h"

static uint64_t clamp(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* The first reason found in @x's tree not to attribute it; IPP_DROP_NONE if none. */
static enum ipp_drop check(const struct ipp_xchg *x)
{
	if (x->drop)
		return x->drop;
	if (!x->answered)
		return IPP_DROP_NO_RESPONSE;
	if (!x->req.read)
		return IPP_DROP_UNTRACED;
	if (x->resp.rd < x->resp.off1 - x->resp.off0)
		return IPP_DROP_UNREAD;
	for (size_t i = 0; i < x->nr_kids; i++) {
		enum ipp_drop d = check(x->kids[i]);

		if (d)
			return d;
	}
	return IPP_DROP_NONE;
}

static size_t count_hops(const struct ipp_xchg *x)
{
	size_t n = 1;

	for (size_t i = 0; i < x->nr_kids; i++)
		n += count_hops(x->kids[i]);
	return n;
}

static const char *comm_of(struct ipcperf_paths *p, size_t i, pid_t pid)
{
	char *buf = p->comms[i];

	ipp_paths__comm(p, pid, buf);
	return buf;
}

/* The thread @x was handed to, when it did @x's work (a call of it, its answer); else 0. */
static pid_t worker_of(const struct ipp_xchg *x)
{
	if (!x->hand_tid || x->resp.wtid == x->hand_tid)
		return x->hand_tid;
	for (size_t i = 0; i < x->nr_kids; i++)
		if (x->kids[i]->req.wtid == x->hand_tid)
			return x->hand_tid;
	return 0;
}

/*
 * The piece [@a, @b) of @x's self time, by state into @out: in the thread
 * that read the request, and from a hand-off on, in the worker it woke
 * (waiting to run there from the wakeup), if the worker did its work. @a
 * is a return of a call of the thread that holds the request then: it runs.
 */
static void split_piece(struct ipcperf_paths *p, const struct ipp_xchg *x, uint64_t a, uint64_t b,
			uint64_t out[3])
{
	const struct ipp_thr *reader = ipp_idmap__get(&p->thrs, (uint64_t)x->req.rtid);

	if (!worker_of(x) || b <= x->hand_at) {
		ipp_paths__thr_split(reader, a, b, IPP_RUN_ON, out);
		return;
	}
	if (a < x->hand_at) {
		ipp_paths__thr_split(reader, a, x->hand_at, IPP_RUN_ON, out);
		a = x->hand_at;
	}
	ipp_paths__thr_split(ipp_idmap__get(&p->thrs, (uint64_t)x->hand_tid), a, b,
		       a == x->hand_at ? IPP_RUN_RUNQ : IPP_RUN_ON, out);
}

/* A hop's self time so far, by state: its pieces up to @at. */
struct selfcut {
	uint64_t at, out[3];
};

/* @x's self time goes on from @c->at to @to (a call's start, or the span's end). */
static void self_upto(struct ipcperf_paths *p, const struct ipp_xchg *x, struct selfcut *c,
		      uint64_t to)
{
	if (to > c->at)
		split_piece(p, x, c->at, to, c->out);
}

/*
 * Hop @x at p->hops[*@n] (under @parent), its call kept within [@lo, @hi]
 * (its caller's span); then its kids. @return the hop's index.
 */
static size_t put_hop(struct ipcperf_paths *p, const struct ipp_xchg *x, int parent, size_t *n,
		      uint64_t lo, uint64_t hi)
{
	size_t at = (*n)++;
	struct ipcperf_path_hop *h = &p->hops[at];
	uint64_t busy = 0, upto = 0;
	struct selfcut cut = { 0 };

	*h = (struct ipcperf_path_hop){
		.parent = parent, .pid = x->req.rpid, .tid = x->req.rtid, .fd = x->req.rfd,
		.caller_pid = x->req.wpid, .caller_tid = x->req.wtid, .caller_fd = x->req.wfd,
		.kind = x->kind, .request_bytes = x->req.off1 - x->req.off0,
		.response_bytes = x->resp.off1 - x->resp.off0,
	};
	h->comm = comm_of(p, at + 1, h->pid);
	h->call_start_ns = clamp(x->req.w_start, lo, hi);
	h->call_end_ns = clamp(x->resp.r_last, h->call_start_ns, hi);
	h->start_ns = clamp(x->req.r_first, h->call_start_ns, h->call_end_ns);
	h->end_ns = clamp(x->resp.w_end, h->start_ns, h->call_end_ns);
	h->request_ns = h->start_ns - h->call_start_ns;
	h->response_ns = h->call_end_ns - h->end_ns;
	cut.at = h->start_ns;
	/* its calls, in the order they began: their union is not its own time */
	for (size_t i = 0; i < x->nr_kids; i++) {
		size_t k = put_hop(p, x->kids[i], (int)at, n, h->start_ns, h->end_ns);
		const struct ipcperf_path_hop *kh = &p->hops[k];
		uint64_t from = kh->call_start_ns > upto ? kh->call_start_ns : upto;

		h = &p->hops[at];
		if (kh->call_end_ns > from) {
			busy += kh->call_end_ns - from;
			upto = kh->call_end_ns;
		}
		self_upto(p, x, &cut, kh->call_start_ns);
		if (kh->call_end_ns > cut.at)
			cut.at = kh->call_end_ns;
	}
	h->self_ns = h->end_ns - h->start_ns - busy;
	self_upto(p, x, &cut, h->end_ns);
	if (ipp_paths__split_ok(p)) {
		h->split = true;
		h->cpu_ns = cut.out[IPP_RUN_ON];
		h->runq_ns = cut.out[IPP_RUN_RUNQ];
		h->blocked_ns = cut.out[IPP_RUN_BLOCKED];
	}
	return at;
}

static int make_room(struct ipcperf_paths *p, size_t hops)
{
	size_t cap = p->cap_comms;

	if (ipp_grow((void **)&p->hops, &p->cap_hops, hops, sizeof(*p->hops)) < 0 ||
	    ipp_grow((void **)&p->comms, &cap, hops + 1, sizeof(*p->comms)) < 0)
		return -ENOMEM;
	p->cap_comms = cap;
	return 0;
}

void ipp_paths__count_drop(struct ipcperf_paths *p, enum ipp_drop d)
{
	switch (d) {
	case IPP_DROP_NO_RESPONSE: p->counts.no_response++; break;
	case IPP_DROP_UNTRACED: p->counts.untraced_hop++; break;
	case IPP_DROP_UNREAD: p->counts.unread++; break;
	case IPP_DROP_NO_CAUSE: p->counts.no_cause++; break;
	case IPP_DROP_LOST: p->counts.lost++; break;
	case IPP_DROP_LATE: p->counts.late++; break;
	case IPP_DROP_PIPELINED: p->counts.pipelined++; break;
	case IPP_DROP_MERGED: p->counts.merged++; break;
	case IPP_DROP_SPLIT: p->counts.split++; break;
	default: break;
	}
}

/* The request of root exchange @x is complete: out as a path, or counted. */
static void emit(struct ipcperf_paths *p, const struct ipp_xchg *x)
{
	enum ipp_drop d = check(x);
	size_t n = 0, hops;
	struct ipcperf_path path;

	if (d) {
		ipp_paths__count_drop(p, d);
		return;
	}
	hops = count_hops(x);
	if (make_room(p, hops) < 0)
		return;
	put_hop(p, x, -1, &n, 0, UINT64_MAX);
	path = (struct ipcperf_path){
		.pid = x->req.wpid, .tid = x->req.wtid, .comm = comm_of(p, 0, x->req.wpid),
		.fd = x->req.wfd, .start_ns = p->hops[0].call_start_ns,
		.end_ns = p->hops[0].call_end_ns, .hops = p->hops, .nr_hops = n,
	};
	ipp_paths__unmap(p, &path, p->hops);
	p->counts.paths++;
	if (p->cb)
		p->cb(p->cb_ctx, &path);
}

void ipp_paths__free_tree(struct ipcperf_paths *p, struct ipp_xchg *x)
{
	for (size_t i = 0; i < x->nr_kids; i++)
		ipp_paths__free_tree(p, x->kids[i]);
	ipp_idmap__del(&p->live, x->id);
	free(x->kids);
	free(x);
}

/* One more of @x's tree is closed: when all of it is, the request is complete. */
static void done(struct ipcperf_paths *p, struct ipp_xchg *x)
{
	if (--x->open)
		return;
	if (x->parent) {
		done(p, x->parent);
		return;
	}
	emit(p, x);
	ipp_paths__free_tree(p, x);
}

void ipp_paths__close_xchg(struct ipcperf_paths *p, struct ipp_xchg *x)
{
	if (x->closed)
		return;
	x->closed = true;
	done(p, x);
}
