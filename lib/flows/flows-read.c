/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The flows read out (flows.h): each flow's figures, its verdict (who waits
 * on whom, by how much) and its stage along its chain, in the order the
 * flows began; and the chains' bottlenecks.
 */
#include "config.h"
#include <errno.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include "flows/flows.h"
#include "flows/chains.h"

#define BLOCKED_MIN_NS 1000000ull	/* 1 ms: less than this decides nothing */
/* A verdict's line: one side's figure over the other's; within MARGIN of it, marginal. */
#define LINE 2.0
#define MARGIN 1.25
/* The reads a reader's pace is measured over, at least: fewer say little of it. */
#define PACE_MIN_READS 8

/* ------------------------------------------------------------------ reading */

/* Writers' time asleep for room: in their writes, and in epoll waits that ended writable. */
static uint64_t held_ns(const struct flow *f)
{
	return f->wblocked + f->wwait;
}

/* Readers' time asleep for bytes: in their reads, and in epoll waits that ended readable. */
static uint64_t starved_ns(const struct flow *f)
{
	return f->rblocked + f->rwait;
}

static uint64_t full_ns_of(const struct flow *f)
{
	return f->full_ns + (f->full_since && f->last > f->full_since ? f->last - f->full_since : 0);
}

/* What the verdict rule makes of a flow (doc/accuracy.md, "Verdicts"). */
struct judged {
	enum ipcperf_verdict verdict, marginal;
	double margin, residence;
	bool by_queue;
	uint64_t write_pace, read_pace;
};

/* One side's time per call over its calls' span; 0 without calls. */
static uint64_t pace_of(const struct moved *m)
{
	return m->calls && m->last > m->first ? (m->last - m->first) / m->calls : 0;
}

/* @a over @b; past any line when only @b is 0. */
static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : a ? DBL_MAX : 0;
}

/*
 * The queue residence: the median wire time @p50 over the slower side's
 * pace, the calls the bytes waited in the channel for; 0 without
 * PACE_MIN_READS reads to give the reader's pace, under 1 ms (nothing
 * waited long), or when the writers met a full channel (waited 1 ms, or
 * were refused): then the channel filled, and W and R say who held whom.
 */
static double residence_of(const struct flow *f, uint64_t p50, struct judged *j)
{
	uint64_t pace;

	j->write_pace = pace_of(&f->written);
	j->read_pace = pace_of(&f->read);
	pace = j->write_pace > j->read_pace ? j->write_pace : j->read_pace;
	if (f->read.calls < PACE_MIN_READS || p50 < BLOCKED_MIN_NS || !pace ||
	    held_ns(f) >= BLOCKED_MIN_NS || f->wagain)
		return 0;
	return (double)p50 / (double)pace;
}

/* The verdict @v, decided by ratio @r past the line: marginal when @r is close to it. */
static void decided(struct judged *j, enum ipcperf_verdict v, double r, bool by_queue)
{
	j->verdict = v;
	j->by_queue = by_queue;
	if (r < LINE * MARGIN) {
		j->marginal = v;
		j->margin = r;
	}
}

/* No line crossed: ratio @r (when it @counts) close below the line of @v, the closest kept. */
static void near(struct judged *j, bool counts, double r, enum ipcperf_verdict v, bool by_queue)
{
	if (!counts || r < LINE / MARGIN || r <= j->margin)
		return;
	j->marginal = v;
	j->margin = r;
	j->by_queue = by_queue;
}

/*
 * Non-blocking ends, when the times decided nothing: who was refused
 * more, and a channel that sat full half its life. Ends that never were
 * refused nor waited in epoll (blocking programs) stay balanced.
 */
static enum ipcperf_verdict refusals_verdict(const struct flow *f)
{
	uint64_t life = f->last - f->first;

	if (!f->wagain && !f->ragain && !f->wwaits && !f->rwaits)
		return IPCPERF_VERDICT_BALANCED;
	if (f->wagain > 2 * f->ragain ||
	    (full_ns_of(f) >= BLOCKED_MIN_NS && 2 * full_ns_of(f) >= life))
		return IPCPERF_VERDICT_BACKPRESSURE;
	if (f->ragain > 2 * f->wagain)
		return IPCPERF_VERDICT_CONSUMER_STARVED;
	return IPCPERF_VERDICT_BALANCED;
}

/*
 * doc/accuracy.md, "Verdicts": the time each side slept waiting for the
 * other first, then the queue residence (@p50: the median wire time),
 * then the refusals; each ratio against its line of 2, marginal within
 * a factor MARGIN of it.
 */
static struct judged judge(const struct flow *f, uint64_t p50)
{
	uint64_t held = held_ns(f), starved = starved_ns(f);
	double wr = ratio(held, starved), rw = ratio(starved, held);
	struct judged j = { .verdict = IPCPERF_VERDICT_BALANCED,
			    .marginal = IPCPERF_VERDICT_BALANCED };

	j.residence = residence_of(f, p50, &j);
	/* No byte went in or came out: nobody held anybody back. */
	if (!f->written.bytes && !f->read.bytes) {
		j.verdict = IPCPERF_VERDICT_IDLE;
	} else if (!f->traced_w || !f->traced_r) {
		/* a side nobody traced: its half of the rule was not measured */
		j.verdict = IPCPERF_VERDICT_UNMEASURED;
		j.residence = 0;
		j.by_queue = false;
	} else if (held >= BLOCKED_MIN_NS && wr > LINE) {
		decided(&j, IPCPERF_VERDICT_BACKPRESSURE, wr, false);
	} else if (starved >= BLOCKED_MIN_NS && rw > LINE) {
		decided(&j, IPCPERF_VERDICT_CONSUMER_STARVED, rw, false);
	} else if (j.residence > LINE) {
		decided(&j, IPCPERF_VERDICT_BACKPRESSURE, j.residence, true);
	} else {
		near(&j, held >= BLOCKED_MIN_NS, wr, IPCPERF_VERDICT_BACKPRESSURE, false);
		near(&j, starved >= BLOCKED_MIN_NS, rw, IPCPERF_VERDICT_CONSUMER_STARVED, false);
		near(&j, true, j.residence, IPCPERF_VERDICT_BACKPRESSURE, true);
		j.verdict = refusals_verdict(f);
		if (j.verdict != IPCPERF_VERDICT_BALANCED) {
			/* the refusals decided it, clearly: the times' closeness is beside it */
			j.marginal = IPCPERF_VERDICT_BALANCED;
			j.margin = 0;
			j.by_queue = false;
		}
	}
	return j;
}

/* The wire times of @f as a dense histogram: its own, or its packed one in @scratch. */
static const struct ipp_hist *dense_wire(const struct flow *f, struct ipp_hist *scratch)
{
	return ipp_hist_dense(f->wire, f->wire_packed, scratch);
}

/* The median wire time of @f (0 without matches); @scratch for a packed histogram. */
static uint64_t wire_p50(const struct flow *f, struct ipp_hist *scratch)
{
	return f->matches ? ipp_hist_percentile(dense_wire(f, scratch), 50) : 0;
}

enum ipcperf_verdict ipp_flows__verdict(const struct flow *f, struct ipp_hist *scratch)
{
	return judge(f, wire_p50(f, scratch)).verdict;
}

static int cmp_first(const void *a, const void *b)
{
	const struct flow *x = *(const struct flow *const *)a, *y = *(const struct flow *const *)b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* What the chains need of the @n flows of @v, into @c. @return 0 or -ENOMEM. */
static int chain_view(struct flow *const *v, size_t n, struct ipp_chain_flow *c)
{
	struct ipp_hist *scratch = malloc(sizeof(*scratch));

	if (!scratch)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint64_t p50 = wire_p50(v[i], scratch);
		struct judged j = judge(v[i], p50);

		c[i] = (struct ipp_chain_flow){
			.writers = v[i]->writers.v, .nr_writers = v[i]->writers.n,
			.readers = v[i]->readers.v, .nr_readers = v[i]->readers.n,
			.verdict = j.verdict, .marginal = j.marginal,
			.by_queue = j.by_queue, .wire_p50 = p50,
			.writer_blocked_ns = held_ns(v[i]), .reader_blocked_ns = starved_ns(v[i]),
		};
	}
	free(scratch);
	return 0;
}

static int chain_stages(struct flow *const *v, size_t n, unsigned *stage)
{
	struct ipp_chain_flow *c = malloc(n * sizeof(*c));
	int err;

	if (!c)
		return -ENOMEM;
	err = chain_view(v, n, c);
	if (!err)
		err = ipp_chains__stages(c, n, stage);
	free(c);
	return err;
}

/* What judge() made of a flow, into what the walk hands out. */
static void put_judged(struct ipcperf_flow *out, struct judged j)
{
	out->verdict = j.verdict;
	out->marginal = j.marginal;
	out->margin = j.margin;
	out->by_queue = j.by_queue;
	out->queue_residence = j.residence;
	out->write_pace_ns = j.write_pace;
	out->read_pace_ns = j.read_pace;
}

/*
 * The calls waiting for their fds settled (all of them with @settle_all),
 * then the flows with a call since the last reset and the folds, into *@out
 * (NULL when none; freed by the caller), by first activity when @sorted;
 * and the reader's array of @elem bytes a flow, *@per_flow (freed by the
 * caller too). @return how many, 0 (none: both NULL), or -ENOMEM.
 */
static ssize_t active_flows(struct ipcperf_flows *fl, bool settle_all, bool sorted,
			    struct flow ***out, size_t elem, void **per_flow)
{
	struct flow **v;
	size_t n = fl->nr_folds;

	ipp_settleq__drain(&fl->pend, settle_all, ipp_flows__process, fl);
	*out = NULL;
	*per_flow = NULL;
	for (size_t i = 0; i < fl->nr; i++)
		n += fl->flows[i]->active;
	if (!n)
		return 0;
	v = malloc(n * sizeof(*v));
	*per_flow = malloc(n * elem);
	if (!v || !*per_flow) {
		free(v);
		free(*per_flow);
		*per_flow = NULL;
		return -ENOMEM;
	}
	n = 0;
	for (size_t i = 0; i < fl->nr; i++)
		if (fl->flows[i]->active)
			v[n++] = fl->flows[i];
	/* the folds of the closed channels, each one more flow with its count */
	for (size_t i = 0; i < fl->nr_folds; i++)
		v[n++] = fl->folds[i];
	if (sorted)
		qsort(v, n, sizeof(*v), cmp_first);
	*out = v;
	return (ssize_t)n;
}

static int walk(struct ipcperf_flows *fl, bool settle_all,
		int (*cb)(void *ctx, const struct ipcperf_flow *f), void *ctx)
{
	struct flow **v;
	struct ipp_hist *scratch;
	unsigned *stage;
	ssize_t nr;
	int ret = 0;

	if (!fl || !cb)
		return -EINVAL;
	nr = active_flows(fl, settle_all, true, &v, sizeof(*stage), (void **)&stage);
	if (nr <= 0)
		return (int)nr;
	scratch = malloc(sizeof(*scratch));
	ret = scratch ? chain_stages(v, (size_t)nr, stage) : -ENOMEM;
	for (size_t i = 0; i < (size_t)nr && !ret; i++) {
		const struct flow *f = v[i];
		const struct ipp_hist *wire = dense_wire(f, scratch);
		uint64_t unmatched = f->unmatched;
		struct ipcperf_flow out = {
			.object = f->object, .kind = f->kind,
			.ino = f->ino & UNPEERED ? 0 : f->ino,
			.reader_ino = f->reader_ino, .datagram = f->datagram,
			.writers = f->writers.v, .nr_writers = f->writers.n,
			.readers = f->readers.v, .nr_readers = f->readers.n,
			.writes = f->written.calls, .reads = f->read.calls,
			.bytes_written = f->written.bytes, .bytes_read = f->read.bytes,
			.matches = f->matches,
			.capacity = f->capacity, .capacity_default = f->cap_default,
			.max_queued = f->max_queued,
			.full_ns = full_ns_of(f),
			.writer_blocked_ns = f->wblocked, .reader_blocked_ns = f->rblocked,
			.first_ns = f->first, .last_ns = f->last,
			.wire_hist = ipp_as_hist(wire), .stage = stage[i],
			.write_again = f->wagain, .read_again = f->ragain,
			.write_wait_ns = f->wwait, .read_wait_ns = f->rwait,
			.write_waits = f->wwaits, .read_waits = f->rwaits,
			.endpoint = f->endpoint, .folded = f->folded,
			.untraced_pid = f->untraced_pid, .untraced_comm = f->untraced_comm,
		};

		/* Debts still open: read bytes no traced write explains. */
		for (size_t k = 0; k < f->debts.len; k++)
			unmatched += f->debts.v[(f->debts.head + k) % f->debts.cap].left;
		out.unmatched_bytes = unmatched;
		if (f->matches) {
			out.wire_ns.min = ipp_hist_min(wire);
			out.wire_ns.p50 = ipp_hist_percentile(wire, 50);
			out.wire_ns.p99 = ipp_hist_percentile(wire, 99);
			out.wire_ns.max = ipp_hist_max(wire);
		}
		put_judged(&out, judge(f, out.wire_ns.p50));
		memcpy(out.folded_verdicts, f->verdicts, sizeof(out.folded_verdicts));
		ret = cb(ctx, &out);
	}
	free(scratch);
	free(stage);
	free(v);
	return ret;
}

int ipcperf_flows__for_each(struct ipcperf_flows *fl,
			    int (*cb)(void *ctx, const struct ipcperf_flow *f), void *ctx)
{
	return walk(fl, true, cb, ctx);
}

int ipcperf_flows__for_each_settled(struct ipcperf_flows *fl,
				    int (*cb)(void *ctx, const struct ipcperf_flow *f), void *ctx)
{
	return walk(fl, false, cb, ctx);
}

int ipcperf_flows__for_each_bottleneck(struct ipcperf_flows *fl,
				       int (*cb)(void *ctx, const struct ipcperf_bottleneck *b),
				       void *ctx)
{
	struct ipp_chain_flow *c;
	struct flow **v;
	ssize_t nr;
	int err;

	if (!fl || !cb)
		return -EINVAL;
	nr = active_flows(fl, true, false, &v, sizeof(*c), (void **)&c);
	if (nr <= 0)
		return (int)nr;
	err = chain_view(v, (size_t)nr, c);
	if (!err)
		err = ipp_chains__bottlenecks(c, (size_t)nr, cb, ctx);
	free(c);
	free(v);
	return err;
}
