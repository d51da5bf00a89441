/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rows and their sums (groups.h): the incarnations to report sorted
 * into rows (pid, fd, object), and the counts of a row's incarnations
 * added up. Read by the group walk, the readout and the folding above.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "stats/groups.h"

static int cmp_rowref(const void *a, const void *b)
{
	const struct ipp_rowref *x = a, *y = b;
	int c;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->fd != y->fd)
		return x->fd < y->fd ? -1 : 1;
	c = strcmp(x->id->object, y->id->object);
	if (c)
		return c;
	/* the rows of folded exited processes: one a kind, object "" */
	if (x->id->kind != y->id->kind)
		return x->id->kind < y->id->kind ? -1 : 1;
	/* Two unknown incarnations are two rows: never merged on a guess. */
	return (x->inc > y->inc) - (x->inc < y->inc);
}

bool ipp_rows__same(const struct ipp_rowref *a, const struct ipp_rowref *b)
{
	return a->pid == b->pid && a->fd == b->fd &&
	       a->id->state != IPP_ID_UNKNOWN && b->id->state != IPP_ID_UNKNOWN &&
	       a->id->kind == b->id->kind && strcmp(a->id->object, b->id->object) == 0;
}

/* Add @src into @dst, whose histogram is the caller's. */
static void add_side(struct side *dst, const struct side *src)
{
	ipp_side_add(dst, src);
	if (src->hist)
		ipp_hist_merge(dst->hist, src->hist);
}

static void io_of(const struct side *sd, struct ipcperf_io *io)
{
	io->ops = sd->ops;
	io->bytes = sd->bytes;
	io->errors = sd->errors;
	io->time_ns = sd->time_ns;
	io->msgs = sd->msgs;
	io->again = sd->again;
	ipp_lat_of(sd->hist, &io->lat_ns);
}

int ipp_rowsum__init(struct ipp_rowsum *s)
{
	memset(s, 0, sizeof(*s));
	s->rd.hist = malloc(sizeof(*s->rd.hist));
	s->wr.hist = malloc(sizeof(*s->wr.hist));
	if (!s->rd.hist || !s->wr.hist) {
		ipp_rowsum__fini(s);
		return -ENOMEM;
	}
	ipp_rowsum__reset(s);
	return 0;
}

void ipp_rowsum__fini(struct ipp_rowsum *s)
{
	free(s->rd.hist);
	free(s->wr.hist);
	memset(s, 0, sizeof(*s));
}

void ipp_rowsum__reset(struct ipp_rowsum *s)
{
	struct ipp_hist *r = s->rd.hist, *w = s->wr.hist;

	*s = (struct ipp_rowsum){ .rd.hist = r, .wr.hist = w };
	ipp_hist_init(r);
	ipp_hist_init(w);
}

/* The counts of @r: none yet when it was only held, never read or written. */
void ipp_rowsum__add(struct ipp_rowsum *s, const struct ipp_rowref *r)
{
	static const struct inccount zero;
	const struct inccount *c = r->c ? r->c : &zero;

	add_side(&s->rd, &c->rd);
	add_side(&s->wr, &c->wr);
	if (r->packed[0])
		ipp_hist_merge_packed(s->rd.hist, r->packed[0]);
	if (r->packed[1])
		ipp_hist_merge_packed(s->wr.hist, r->packed[1]);
	if (c->first_ns && (!s->first_ns || c->first_ns < s->first_ns))
		s->first_ns = c->first_ns;
	if (c->last_ns > s->last_ns)
		s->last_ns = c->last_ns;
}

void ipp_rowsum__io(const struct ipp_rowsum *s, struct ipcperf_io *rd, struct ipcperf_io *wr)
{
	io_of(&s->rd, rd);
	io_of(&s->wr, wr);
}

void ipp_rowsum__moved(const struct ipp_rowsum *s, struct ipcperf_moved *rd,
		       struct ipcperf_moved *wr)
{
	*rd = (struct ipcperf_moved){ .ops = s->rd.mv_ops, .bytes = s->rd.mv_bytes };
	*wr = (struct ipcperf_moved){ .ops = s->wr.mv_ops, .bytes = s->wr.mv_bytes };
}

/*
 * Not an fd @p held: one of the command's process that its first exec
 * closed (the tracer's, before the command), or one that ended before the
 * pid did anything of its own (the copy a thread's clone made, under the
 * thread's id, of a table it shares; the fds of an earlier holder of the pid).
 */
bool ipp_rows__not_held(const struct ipcperf_stats *st, const struct proc *p,
			const struct ipp_inc *in)
{
	if (in->open)
		return false;
	return (st->cmd_exec_ns && in->pid == st->cmd_pid && in->end_ns <= st->cmd_exec_ns) ||
	       in->end_ns < p->seen_ns;
}

bool ipp_rows__has_io(const struct ipcperf_stats *st, size_t inc)
{
	return inc < st->nr_counts && (st->counts[inc].rd.ops || st->counts[inc].wr.ops);
}

bool ipp_rows__ref_has_io(const struct ipp_rowref *r)
{
	return r->c && (r->c->rd.ops || r->c->wr.ops);
}

/*
 * The incarnations to report, sorted into rows: every fd a process we saw
 * held during the capture, with I/O or without (a thread's copy of its
 * parent's table at clone is never used: its pid is never seen).
 */
struct ipp_rowref *ipp_rows__held(struct ipcperf_stats *st, size_t *nr)
{
	size_t n = ipp_fdtab__count(st->fdt), k = 0;
	struct ipp_rowref *v = malloc((n + st->nr_folds ? n + st->nr_folds : 1) * sizeof(*v));

	*nr = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const struct ipp_inc *in = ipp_fdtab__inc(st->fdt, i);
		const struct proc *p = in ? ipp_stats__proc(st, in->pid, false) : NULL;

		if (!p || !p->seen || (ipp_rows__not_held(st, p, in) && !ipp_rows__has_io(st, i)))
			continue;
		v[k++] = (struct ipp_rowref){ .inc = i, .pid = in->pid, .fd = in->fd,
					      .id = ipp_fdtab__reported(st->fdt, i),
					      .c = i < st->nr_counts ? &st->counts[i] : NULL };
	}
	for (size_t i = 0; i < st->nr_folds; i++) {
		const struct foldrow *f = &st->folds[i];

		v[k++] = (struct ipp_rowref){ .inc = SIZE_MAX, .pid = f->pid, .fd = f->fd,
					      .id = f->id, .c = &f->c,
					      .packed = { f->packed[0], f->packed[1] } };
	}
	if (k > 1)
		qsort(v, k, sizeof(*v), cmp_rowref);
	*nr = k;
	return v;
}

