/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The stats read out (account.h): a row per fd held (its incarnations of
 * the same object merged), per process, per (process, syscall).
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "account.h"

static void lat_of(const struct ipp_hist *h, struct ipcperf_lat *l)
{
	l->min = ipp_hist_min(h);
	l->avg = ipp_hist_avg(h);
	l->p50 = ipp_hist_percentile(h, 50);
	l->p99 = ipp_hist_percentile(h, 99);
	l->max = ipp_hist_max(h);
}

/* An incarnation (its index) with the identity it is reported under. */
struct rowref {
	size_t inc;
	const struct ipp_inc *in;
	const struct ipp_ident *id;
};

static int cmp_rowref(const void *a, const void *b)
{
	const struct rowref *x = a, *y = b;
	int c;

	if (x->in->pid != y->in->pid)
		return x->in->pid < y->in->pid ? -1 : 1;
	if (x->in->fd != y->in->fd)
		return x->in->fd < y->in->fd ? -1 : 1;
	c = strcmp(x->id->object, y->id->object);
	if (c)
		return c;
	/* Two unknown incarnations are two rows: never merged on a guess. */
	return (x->inc > y->inc) - (x->inc < y->inc);
}

static bool same_row(const struct rowref *a, const struct rowref *b)
{
	return a->in->pid == b->in->pid && a->in->fd == b->in->fd &&
	       a->id->state != IPP_ID_UNKNOWN && b->id->state != IPP_ID_UNKNOWN &&
	       strcmp(a->id->object, b->id->object) == 0;
}

/* Add @src into @dst, whose histogram is the caller's. */
static void add_side(struct side *dst, const struct side *src)
{
	dst->ops += src->ops;
	dst->bytes += src->bytes;
	dst->errors += src->errors;
	dst->time_ns += src->time_ns;
	dst->msgs += src->msgs;
	dst->again += src->again;
	if (src->hist)
		ipp_hist_merge(dst->hist, src->hist);
}

/* @dst (its histogram the caller's) becomes a copy of @src. */
static void copy_side(struct side *dst, const struct side *src)
{
	struct ipp_hist *h = dst->hist;

	*dst = (struct side){ .hist = h };
	ipp_hist_init(h);
	add_side(dst, src);
}

static void io_of(const struct side *sd, struct ipcperf_io *io)
{
	io->ops = sd->ops;
	io->bytes = sd->bytes;
	io->errors = sd->errors;
	io->time_ns = sd->time_ns;
	io->msgs = sd->msgs;
	io->again = sd->again;
	lat_of(sd->hist, &io->lat_ns);
}

/*
 * The counts of incarnation @inc: none yet (@zero, whose histograms are
 * initialized) when it was only held, never read or written.
 */
static const struct inccount *counts_of(const struct ipcperf_stats *st, size_t inc,
					const struct inccount *zero)
{
	return inc < st->nr_counts ? &st->counts[inc] : zero;
}

/*
 * Not an fd @p held: one of the command's process that its first exec
 * closed (the tracer's, before the command), or one that ended before the
 * pid did anything of its own (the copy a thread's clone made, under the
 * thread's id, of a table it shares; the fds of an earlier holder of the pid).
 */
static bool not_held(const struct ipcperf_stats *st, const struct proc *p,
		     const struct ipp_inc *in)
{
	if (in->open)
		return false;
	return (st->cmd_exec_ns && in->pid == st->cmd_pid && in->end_ns <= st->cmd_exec_ns) ||
	       in->end_ns < p->seen_ns;
}

/* Whether incarnation @inc made any read or write call. */
static bool has_io(const struct ipcperf_stats *st, size_t inc)
{
	return inc < st->nr_counts && (st->counts[inc].rd.ops || st->counts[inc].wr.ops);
}

/*
 * The incarnations to report, sorted into rows: every fd a process we saw
 * held during the capture, with I/O or without (a thread's copy of its
 * parent's table at clone is never used: its pid is never seen).
 */
static size_t held_rows(struct ipcperf_stats *st, struct rowref *v, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct ipp_inc *in = ipp_fdtab__inc(st->fdt, i);
		const struct proc *p = ipp_stats__proc(st, in->pid, false);

		if (!p || !p->seen || (not_held(st, p, in) && !has_io(st, i)))
			continue;
		v[k].inc = i;
		v[k].in = in;
		v[k++].id = ipp_fdtab__reported(st->fdt, i);
	}
	if (k > 1)
		qsort(v, k, sizeof(*v), cmp_rowref);
	return k;
}

/* Hand @cb the row of @v[@i] and the incarnations after it that are the same row. */
static int emit_row(const struct ipcperf_stats *st, const struct rowref *v, size_t n, size_t *i,
		    struct side *rd, struct side *wr, const struct inccount *zero,
		    int (*cb)(void *ctx, const struct ipcperf_fd_row *row), void *ctx)
{
	const struct inccount *c = counts_of(st, v[*i].inc, zero);
	const struct ipp_ident *id = v[*i].id;
	struct ipcperf_fd_row row = {
		.pid = v[*i].in->pid, .fd = v[*i].in->fd, .object = id->object,
		.kind = id->kind, .detail = id->detail, .ino = id->ino,
		.peer_ino = id->peer_ino, .first_ns = c->first_ns, .last_ns = c->last_ns,
	};
	size_t j;

	copy_side(rd, &c->rd);
	copy_side(wr, &c->wr);
	for (j = *i + 1; j < n && same_row(&v[*i], &v[j]); j++) {
		const struct inccount *o = counts_of(st, v[j].inc, zero);

		add_side(rd, &o->rd);
		add_side(wr, &o->wr);
		if (o->first_ns && (!row.first_ns || o->first_ns < row.first_ns))
			row.first_ns = o->first_ns;
		if (o->last_ns > row.last_ns)
			row.last_ns = o->last_ns;
	}
	*i = j;
	io_of(rd, &row.read);
	io_of(wr, &row.write);
	row.read_hist = ipp_as_hist(rd->hist);
	row.write_hist = ipp_as_hist(wr->hist);
	return cb(ctx, &row);
}

int ipcperf_stats__for_each_fd(struct ipcperf_stats *st,
			       int (*cb)(void *ctx, const struct ipcperf_fd_row *row), void *ctx)
{
	size_t n;
	struct rowref *v;
	struct side *rd, *wr;
	struct inccount *zero;
	int ret = 0;

	if (!st || !cb)
		return -EINVAL;
	n = ipp_fdtab__count(st->fdt);
	if (!n)
		return 0;
	v = malloc(n * sizeof(*v));
	rd = calloc(1, sizeof(*rd));
	wr = calloc(1, sizeof(*wr));
	zero = calloc(1, sizeof(*zero));
	if (rd)
		rd->hist = malloc(sizeof(*rd->hist));
	if (wr)
		wr->hist = malloc(sizeof(*wr->hist));
	if (!v || !rd || !wr || !zero || !rd->hist || !wr->hist) {
		ret = -ENOMEM;
		goto out;
	}
	n = held_rows(st, v, n);
	for (size_t i = 0; i < n && !ret;)
		ret = emit_row(st, v, n, &i, rd, wr, zero, cb, ctx);
out:
	free(v);
	if (rd)
		free(rd->hist);
	if (wr)
		free(wr->hist);
	free(rd);
	free(wr);
	free(zero);
	return ret;
}

int ipcperf_stats__for_each_proc(struct ipcperf_stats *st,
				 int (*cb)(void *ctx, const struct ipcperf_proc_row *row), void *ctx)
{
	if (!st || !cb)
		return -EINVAL;
	for (size_t i = 0; i < st->nr_procs; i++) {
		const struct proc *p = st->procs[i];
		struct ipcperf_proc_row row = {
			.pid = p->pid, .comm = p->comm, .voluntary_cs = p->vol,
			.involuntary_cs = p->invol, .wakeups = p->wakeups,
			.migrations = p->migrations, .syscalls = p->syscalls,
			.threads = p->threads, .exited = p->exited,
		};
		int ret;

		if (!p->seen)
			continue;
		ret = cb(ctx, &row);
		if (ret)
			return ret;
	}
	return 0;
}

static int cmp_sc_name(const void *a, const void *b)
{
	const struct scstat *x = *(const struct scstat *const *)a;
	const struct scstat *y = *(const struct scstat *const *)b;
	int c;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	c = strcmp(x->name, y->name);
	return c ? c : (x->nr > y->nr) - (x->nr < y->nr);
}

int ipcperf_stats__for_each_syscall(struct ipcperf_stats *st,
				    int (*cb)(void *ctx, const struct ipcperf_syscall_row *row),
				    void *ctx)
{
	if (!st || !cb)
		return -EINVAL;
	for (size_t i = 0; i < st->nr_procs; i++) {
		const struct proc *p = st->procs[i];
		const struct scstat **v;
		int ret = 0;

		if (!p->nr_sc)
			continue;
		v = malloc(p->nr_sc * sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (size_t k = 0; k < p->nr_sc; k++)
			v[k] = p->sc[k];
		qsort(v, p->nr_sc, sizeof(*v), cmp_sc_name);
		for (size_t k = 0; k < p->nr_sc && !ret; k++) {
			struct ipcperf_syscall_row row = {
				.pid = p->pid, .name = v[k]->name, .calls = v[k]->calls,
				.errors = v[k]->errors, .time_ns = v[k]->time_ns, .nr = v[k]->nr,
				.tid = v[k]->tid, .errnos = v[k]->errnos,
				.nr_errnos = v[k]->nr_errnos, .hist = ipp_as_hist(&v[k]->hist),
			};

			if (!v[k]->calls)
				continue;
			lat_of(&v[k]->hist, &row.lat_ns);
			ret = cb(ctx, &row);
		}
		free(v);
		if (ret)
			return ret;
	}
	return 0;
}

int ipcperf_stats__proc_comm(struct ipcperf_stats *st, pid_t pid, char *buf, size_t len)
{
	struct proc *p;

	if (!st || !buf || !len)
		return -EINVAL;
	p = ipp_stats__proc(st, pid, false);
	if (!p || !p->comm[0])
		return -ENOENT;
	snprintf(buf, len, "%s", p->comm);
	return 0;
}
