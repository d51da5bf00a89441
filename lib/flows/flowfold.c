/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Closed channels folded into their groups (flows.h): a server traced for
 * hours closes a connection per request, and each connection is two flows
 * of its own. Once more than fold_at flows are kept, the flows of the
 * channels that no fd holds any more, and that no call waits for, are
 * added into the fold of their group (the writers, the readers, the kind
 * and the endpoint: what the CLI's groups are keyed by; for a side no
 * traced process was on, the process the row of its traced end names as
 * its peer) and freed. A fold
 * is a flow itself, its figures the sums of its flows (max_queued the
 * largest, the spans the widest, the wire times merged), so that the walks
 * hand it out as one more flow, with how many it holds and their verdicts.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "flows/flows.h"
#include "stats/groups.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The inodes an fd still holds, or a queued call still needs, sorted into
 * *@out (freed by the caller). @return how many, or -ENOMEM.
 */
static ssize_t held_inos(struct ipcperf_flows *fl, uint64_t **out)
{
	struct ipp_fdtab *t = ipp_stats__fdtab(fl->st);
	size_t n = 0, count = ipp_fdtab__count(t);
	uint64_t *v = malloc((count + 1) * sizeof(*v));

	*out = v;
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < count; i++) {
		const struct ipp_inc *inc = ipp_fdtab__inc(t, i);

		if (inc && (inc->open || inc->pins) && inc->id.ino)
			v[n++] = inc->id.ino;
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	return (ssize_t)n;
}

static bool held(const uint64_t *v, size_t n, uint64_t ino)
{
	return ino && bsearch(&ino, v, n, sizeof(*v), cmp_u64);
}

/* @f's channel is gone: neither end held, no call of it waiting. */
static bool closed(const struct flow *f, const uint64_t *v, size_t n)
{
	return !held(v, n, f->ino & ~UNPEERED) && !held(v, n, f->reader_ino);
}

static bool same_pids(const struct pidset *a, const struct pidset *b)
{
	return a->n == b->n && (!a->n || !memcmp(a->v, b->v, a->n * sizeof(*a->v)));
}

/* Whether flow @f, its untraced side's process @peer, is of fold @g's group. */
static bool same_group(const struct flow *g, const struct flow *f, pid_t peer)
{
	return g->kind == f->kind && g->datagram == f->datagram &&
	       same_pids(&g->writers, &f->writers) && same_pids(&g->readers, &f->readers) &&
	       !strcmp(g->endpoint, f->endpoint) && g->untraced_pid == peer;
}

static int pids_copy(struct pidset *dst, const struct pidset *src)
{
	dst->v = malloc((src->n + 1) * sizeof(*dst->v));
	if (!dst->v)
		return -ENOMEM;
	if (src->n)	/* a side no traced process made a call on has no pids, nor array */
		memcpy(dst->v, src->v, src->n * sizeof(*dst->v));
	dst->n = dst->cap = src->n;
	return 0;
}

/* A new fold for the group of @f, @peer its untraced side: its names, no figures yet. NULL: no memory. */
static struct flow *fold_new(const struct flow *f, const struct ipp_inopeer *peer)
{
	struct flow *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->ino = f->ino;
	g->reader_ino = f->reader_ino;
	memcpy(g->object, f->object, sizeof(g->object));
	memcpy(g->endpoint, f->endpoint, sizeof(g->endpoint));
	g->kind = f->kind;
	g->datagram = f->datagram;
	g->capacity = f->capacity;
	g->cap_default = f->cap_default;
	g->active = true;
	if (peer) {
		g->untraced_pid = peer->pid;
		memcpy(g->untraced_comm, peer->comm, sizeof(g->untraced_comm));
	}
	if (pids_copy(&g->writers, &f->writers) < 0 || pids_copy(&g->readers, &f->readers) < 0) {
		ipp_flows__free_flow(g);
		return NULL;
	}
	return g;
}

/* The fold of @f's group (@peer: its untraced side, NULL if none), made when new. NULL: no memory. */
static struct flow *fold_of(struct ipcperf_flows *fl, const struct flow *f,
			    const struct ipp_inopeer *peer)
{
	struct flow *g;

	for (size_t i = 0; i < fl->nr_folds; i++)
		if (same_group(fl->folds[i], f, peer ? peer->pid : 0))
			return fl->folds[i];
	if (ipp_grow((void **)&fl->folds, &fl->cap_folds, fl->nr_folds + 1,
		     sizeof(*fl->folds)) < 0 || !(g = fold_new(f, peer)))
		return NULL;
	fl->folds[fl->nr_folds++] = g;
	return g;
}

static void span_merge(uint64_t *first, uint64_t *last, uint64_t f, uint64_t l)
{
	if (f && (!*first || f < *first))
		*first = f;
	if (l > *last)
		*last = l;
}

/* A side's calls of a flow, @m, added into @into, its fold's. */
static void moved_merge(struct moved *into, const struct moved *m)
{
	into->calls += m->calls;
	into->bytes += m->bytes;
	span_merge(&into->first, &into->last, m->first, m->last);
}

/* @f's wire times added into @g's, packed; @scratch a dense histogram to do it in. */
static int wire_merge(struct flow *g, const struct flow *f, struct ipp_hist *scratch)
{
	/* A flow holds its wire times either dense or packed, never both. */
	return f->matches ? ipp_hist_fold(&g->wire_packed, f->wire, f->wire_packed, scratch) : 0;
}

/* The reads still waiting for their write: bytes no write will explain now. */
static uint64_t debts_left(const struct flow *f)
{
	uint64_t n = 0;

	for (size_t k = 0; k < f->debts.len; k++)
		n += f->debts.v[(f->debts.head + k) % f->debts.cap].left;
	return n;
}

/* The counts of @f added into @g. */
static void sums_add(struct flow *g, const struct flow *f)
{
	moved_merge(&g->written, &f->written);
	moved_merge(&g->read, &f->read);
	g->unmatched += f->unmatched + debts_left(f);
	g->matches += f->matches;
	g->full_ns += f->full_ns +
		      (f->full_since && f->last > f->full_since ? f->last - f->full_since : 0);
	g->wblocked += f->wblocked;
	g->rblocked += f->rblocked;
	g->wagain += f->wagain;
	g->ragain += f->ragain;
	g->wwait += f->wwait;
	g->rwait += f->rwait;
	g->wwaits += f->wwaits;
	g->rwaits += f->rwaits;
	if (f->max_queued > g->max_queued)
		g->max_queued = f->max_queued;
	if (f->capacity != g->capacity || f->cap_default != g->cap_default)
		g->capacity = -1;
	g->traced_w |= f->traced_w;
	g->traced_r |= f->traced_r;
}

/* @f into its group's fold. @return 0 or -ENOMEM (then @f is kept as it is). */
static int fold_one(struct ipcperf_flows *fl, const struct flow *f, const struct ipp_inopeer *peer,
		    struct ipp_hist *scratch)
{
	enum ipcperf_verdict v = ipp_flows__verdict(f, scratch);
	struct flow *g = fold_of(fl, f, peer);

	if (!g || wire_merge(g, f, scratch) < 0)
		return -ENOMEM;
	sums_add(g, f);
	span_merge(&g->first, &g->last, f->first, f->last);
	g->verdicts[v]++;
	g->folded++;
	fl->folded++;
	return 0;
}

/* Whether @f has a side no traced process made a call on (in the interval). */
static bool one_sided(const struct flow *f)
{
	return !f->writers.n || !f->readers.n;
}

/*
 * The inode of @f's end whose row names its untraced side, as the CLI
 * finds it (flowpeers_of()): the writing end's when a traced process
 * wrote, else the reading end's.
 */
static uint64_t traced_end(const struct flow *f)
{
	uint64_t ino = f->ino & UNPEERED ? 0 : f->ino;

	return f->writers.n || !f->reader_ino ? ino : f->reader_ino;
}

/* The closed channels' flows of this pass: their fold to go into, their peers. */
struct pass {
	uint64_t *inos;			/* held or waited for, sorted */
	size_t nr_inos;
	struct ipp_inopeer *peers;	/* of the one-sided ones' traced ends, by ino */
	size_t nr_peers;
	bool named;			/* the peers were looked for */
};

/*
 * The peers of the traced ends of the closed one-sided flows, asked of the
 * stats in one walk (their rows are pinned while the flows live).
 * @return 0 or -ENOMEM (then those flows are kept).
 */
static int pass_name(struct ipcperf_flows *fl, struct pass *p)
{
	p->peers = malloc((fl->nr + 1) * sizeof(*p->peers));
	if (!p->peers)
		return -ENOMEM;
	for (size_t i = 0; i < fl->nr; i++) {
		const struct flow *f = fl->flows[i];

		if (f->active && one_sided(f) && closed(f, p->inos, p->nr_inos))
			p->peers[p->nr_peers++].ino = traced_end(f);
	}
	if (ipp_peers__of_inos(fl->st, p->peers, p->nr_peers) < 0)
		return -ENOMEM;
	p->named = true;
	return 0;
}

/* The peer found for @f's traced end; NULL when none was looked for. */
static const struct ipp_inopeer *pass_peer(const struct pass *p, const struct flow *f)
{
	return p->named ? ipp_peers__find_ino(p->peers, p->nr_peers, traced_end(f)) : NULL;
}

/*
 * What becomes of a closed flow: folded (true), or kept (false) when
 * memory ran out, or when a side made no call (in the interval) and its
 * peer could not be looked for. An inactive one has nothing to report:
 * it goes.
 */
static bool fold_or_keep(struct ipcperf_flows *fl, const struct flow *f, const struct pass *p,
			 struct ipp_hist *scratch)
{
	const struct ipp_inopeer *peer = NULL;

	if (!f->active)
		return true;
	if (one_sided(f) && !(peer = pass_peer(p, f)))
		return false;
	return fold_one(fl, f, peer, scratch) == 0;
}

/* A flow folded (or to drop), until it is freed: a channel's own flow has folded 0. */
#define GONE UINT64_MAX

/* The flows marked GONE out of the warm ones, then out of the kept ones, and freed. */
static void sweep_gone(struct ipcperf_flows *fl)
{
	size_t k = 0;

	for (size_t i = 0; i < fl->nr_warm; i++)
		if (fl->warm[i]->folded != GONE)
			fl->warm[k++] = fl->warm[i];
	fl->nr_warm = k;
	k = 0;
	for (size_t i = 0; i < fl->nr; i++) {
		if (fl->flows[i]->folded == GONE) {
			ipp_flows__unpin(fl, fl->flows[i]);
			ipp_flows__free_flow(fl->flows[i]);
		} else
			fl->flows[k++] = fl->flows[i];
	}
	fl->nr = k;
}

void ipp_flows__fold(struct ipcperf_flows *fl)
{
	struct ipp_hist *scratch = NULL;
	struct pass p = { 0 };
	ssize_t n = held_inos(fl, &p.inos);

	if (n >= 0) {
		p.nr_inos = (size_t)n;
		scratch = malloc(sizeof(*scratch));
		/* no memory to name them: the one-sided flows are kept */
		pass_name(fl, &p);
	}
	for (size_t i = 0; scratch && i < fl->nr; i++) {
		struct flow *f = fl->flows[i];

		if (closed(f, p.inos, p.nr_inos) && fold_or_keep(fl, f, &p, scratch))
			f->folded = GONE;
	}
	sweep_gone(fl);
	free(scratch);
	free(p.inos);
	free(p.peers);
	fl->fold_at = 2 * fl->nr + IPP_FLOWS_FOLD_MIN;
}

void ipp_flows__drop_folds(struct ipcperf_flows *fl)
{
	for (size_t i = 0; i < fl->nr_folds; i++)
		ipp_flows__free_flow(fl->folds[i]);
	fl->nr_folds = 0;
	fl->folded = 0;
}
