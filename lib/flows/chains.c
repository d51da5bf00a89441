/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The flows' chains: each flow's stage, and the processes they wait on (chains.h). */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "flows/chains.h"

/* The processes of a set of flows, with their depth along the chains. */
struct graph {
	pid_t *pids;		/* ascending, unique */
	size_t n;
	unsigned *depth;
};

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

static size_t node_of(const struct graph *g, pid_t pid)
{
	const pid_t *p = bsearch(&pid, g->pids, g->n, sizeof(pid), cmp_pid);

	return (size_t)(p - g->pids);
}

static bool has_pid(const pid_t *v, size_t n, pid_t pid)
{
	/* a side nobody traced has no array at all */
	return n && bsearch(&pid, v, n, sizeof(pid), cmp_pid) != NULL;
}

/* Every writer and reader of the flows, once. @return 0 or -ENOMEM. */
static int graph_nodes(struct graph *g, const struct ipp_chain_flow *v, size_t nr)
{
	size_t all = 0, n = 0;

	for (size_t i = 0; i < nr; i++)
		all += v[i].nr_writers + v[i].nr_readers;
	g->pids = malloc((all + 1) * sizeof(*g->pids));
	g->depth = calloc(all + 1, sizeof(*g->depth));
	if (!g->pids || !g->depth)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++) {
		/* a side nobody traced has no array at all */
		for (size_t k = 0; k < v[i].nr_writers; k++)
			g->pids[n++] = v[i].writers[k];
		for (size_t k = 0; k < v[i].nr_readers; k++)
			g->pids[n++] = v[i].readers[k];
	}
	qsort(g->pids, n, sizeof(pid_t), cmp_pid);
	g->n = 0;
	for (size_t i = 0; i < n; i++)
		if (!g->n || g->pids[g->n - 1] != g->pids[i])
			g->pids[g->n++] = g->pids[i];
	return 0;
}

/* The edges into each process not placed yet, from processes not placed yet. */
static void count_in(const struct graph *g, const struct ipp_chain_flow *v, size_t nr,
		     const bool *placed, size_t *in)
{
	memset(in, 0, g->n * sizeof(*in));
	for (size_t i = 0; i < nr; i++)
		for (size_t w = 0; w < v[i].nr_writers; w++) {
			if (placed[node_of(g, v[i].writers[w])])
				continue;
			for (size_t r = 0; r < v[i].nr_readers; r++)
				if (v[i].readers[r] != v[i].writers[w])
					in[node_of(g, v[i].readers[r])]++;
		}
}

/* Place process @p: what it writes into, not placed yet, is one deeper than it, at least. */
static void place(struct graph *g, const struct ipp_chain_flow *v, size_t nr, const bool *placed,
		  size_t p)
{
	for (size_t i = 0; i < nr; i++) {
		if (!has_pid(v[i].writers, v[i].nr_writers, g->pids[p]))
			continue;
		for (size_t r = 0; r < v[i].nr_readers; r++) {
			size_t q = node_of(g, v[i].readers[r]);

			if (!placed[q] && g->depth[q] < g->depth[p] + 1)
				g->depth[q] = g->depth[p] + 1;
		}
	}
}

/*
 * Depths in topological order: each round places the smallest pid no
 * unplaced process writes into, or, when every one left is fed by another
 * (a cycle), the smallest pid left.
 */
static int graph_depths(struct graph *g, const struct ipp_chain_flow *v, size_t nr)
{
	bool *placed = calloc(g->n + 1, sizeof(*placed));
	size_t *in = malloc((g->n + 1) * sizeof(*in));
	int err = placed && in ? 0 : -ENOMEM;

	for (size_t left = g->n; !err && left; left--) {
		size_t pick = g->n;

		count_in(g, v, nr, placed, in);
		for (size_t p = 0; p < g->n && pick == g->n; p++)
			if (!placed[p] && !in[p])
				pick = p;
		for (size_t p = 0; p < g->n && pick == g->n; p++)
			if (!placed[p])
				pick = p;
		placed[pick] = true;
		place(g, v, nr, placed, pick);
	}
	free(placed);
	free(in);
	return err;
}

static int graph_build(struct graph *g, const struct ipp_chain_flow *v, size_t nr)
{
	int err;

	memset(g, 0, sizeof(*g));
	err = graph_nodes(g, v, nr);
	return err ? err : graph_depths(g, v, nr);
}

static void graph_free(struct graph *g)
{
	free(g->pids);
	free(g->depth);
}

int ipp_chains__stages(const struct ipp_chain_flow *v, size_t n, unsigned *stage)
{
	struct graph g;
	int err = graph_build(&g, v, n);

	for (size_t i = 0; !err && i < n; i++) {
		stage[i] = 0;
		for (size_t w = 0; w < v[i].nr_writers; w++) {
			unsigned d = g.depth[node_of(&g, v[i].writers[w])];

			if (d > stage[i])
				stage[i] = d;
		}
	}
	graph_free(&g);
	return err;
}

/* The first process of @v other than @self, or 0. */
static pid_t other(const pid_t *v, size_t n, pid_t self)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] != self)
			return v[i];
	return 0;
}

/* What the flows around @pid say of it. @return true when it is a bottleneck. */
static bool judge(const struct ipp_chain_flow *v, size_t nr, pid_t pid, struct ipcperf_bottleneck *b)
{
	bool waited_on = false, waits = false;
	uint64_t most_w = 0, most_r = 0;

	memset(b, 0, sizeof(*b));
	b->pid = pid;
	for (size_t i = 0; i < nr; i++) {
		bool in = has_pid(v[i].readers, v[i].nr_readers, pid);
		bool out = has_pid(v[i].writers, v[i].nr_writers, pid);
		enum ipcperf_verdict leans = v[i].marginal;

		if (in == out)		/* not its flow, or it feeds itself */
			continue;
		if (leans != IPCPERF_VERDICT_BALANCED) {
			/* near the line: it may wait, it is not waited on */
			waits |= (in && leans == IPCPERF_VERDICT_CONSUMER_STARVED) ||
				 (out && leans == IPCPERF_VERDICT_BACKPRESSURE);
			continue;
		}
		if (in && v[i].verdict == IPCPERF_VERDICT_BACKPRESSURE) {
			waited_on = true;
			b->write_wait_ns += v[i].writer_blocked_ns;
			if (v[i].by_queue && v[i].wire_p50 > b->queue_wait_ns)
				b->queue_wait_ns = v[i].wire_p50;
			if (v[i].writer_blocked_ns >= most_w) {
				most_w = v[i].writer_blocked_ns;
				b->waits_to_write = other(v[i].writers, v[i].nr_writers, pid);
			}
		} else if (out && v[i].verdict == IPCPERF_VERDICT_CONSUMER_STARVED) {
			waited_on = true;
			b->read_wait_ns += v[i].reader_blocked_ns;
			if (v[i].reader_blocked_ns >= most_r) {
				most_r = v[i].reader_blocked_ns;
				b->waits_to_read = other(v[i].readers, v[i].nr_readers, pid);
			}
		} else if ((in && v[i].verdict == IPCPERF_VERDICT_CONSUMER_STARVED) ||
			   (out && v[i].verdict == IPCPERF_VERDICT_BACKPRESSURE)) {
			waits = true;
		}
	}
	return waited_on && !waits;
}

struct ranked {
	unsigned depth;
	pid_t pid;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return cmp_pid(&x->pid, &y->pid);
}

int ipp_chains__bottlenecks(const struct ipp_chain_flow *v, size_t n,
			    int (*cb)(void *ctx, const struct ipcperf_bottleneck *b), void *ctx)
{
	struct graph g;
	struct ranked *order = NULL;
	int err = graph_build(&g, v, n);

	if (!err && !(order = malloc((g.n + 1) * sizeof(*order))))
		err = -ENOMEM;
	for (size_t p = 0; !err && p < g.n; p++)
		order[p] = (struct ranked){ .depth = g.depth[p], .pid = g.pids[p] };
	if (!err)
		qsort(order, g.n, sizeof(*order), cmp_ranked);
	for (size_t p = 0; !err && p < g.n; p++) {
		struct ipcperf_bottleneck b;

		if (judge(v, n, order[p].pid, &b))
			err = cb(ctx, &b);
	}
	free(order);
	graph_free(&g);
	return err;
}
