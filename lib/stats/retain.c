/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sweep, what bounds the memory of a long capture: the closed
 * incarnations whose report is settled folded into their rows (folds.c) or
 * dropped, then, as asked, the closed connections folded into their groups
 * (connfold.c) and the exited processes into a row per comm (exitfold.c).
 * Intake (intake.c) calls it as the incarnations close.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "stats/groups.h"

/* @src's counts into @dst; its histogram taken over or merged and freed. */
static void fold_side(struct ipcperf_stats *st, struct side *dst, struct ipp_hist_packed **ph,
		      struct side *src)
{
	ipp_side_add(dst, src);
	if (!src->hist)
		return;
	/* The row's histogram is packed (*@ph), or dense (dst->hist) if packing had no memory. */
	if (*ph) {
		ipp_hist_merge_packed(src->hist, *ph);
		free(*ph);
		*ph = NULL;
	}
	if (dst->hist) {
		ipp_hist_merge(dst->hist, src->hist);
		ipp_stats__hist_done(st, src->hist);
	} else if (src->hist->count && !(*ph = ipp_hist_pack(src->hist))) {
		dst->hist = src->hist;
	} else {
		ipp_stats__hist_done(st, src->hist);
	}
	src->hist = NULL;
}

static void fold_counts(struct ipcperf_stats *st, struct foldrow *f, struct inccount *src)
{
	struct inccount *dst = &f->c;

	if (src->first_ns && (!dst->first_ns || src->first_ns < dst->first_ns))
		dst->first_ns = src->first_ns;
	if (src->last_ns > dst->last_ns)
		dst->last_ns = src->last_ns;
	fold_side(st, &dst->rd, &f->packed[0], &src->rd);
	fold_side(st, &dst->wr, &f->packed[1], &src->wr);
}

/* Incarnation @inc retires: its counts into its row, or gone if no row would show it. */
static void retire(void *ctx, size_t inc, const struct ipp_inc *in, const struct ipp_ident *id)
{
	struct ipcperf_stats *st = ctx;
	struct inccount *c = inc < st->nr_counts ? &st->counts[inc] : NULL;
	const struct proc *p = ipp_stats__proc(st, in->pid, false);
	struct foldrow *f;

	if ((!p || !p->seen || ipp_rows__not_held(st, p, in)) && !ipp_rows__has_io(st, inc))
		f = NULL;
	else
		f = ipp_stats__fold_row(st, in->pid, in->fd, id);
	if (f && c)
		fold_counts(st, f, c);
	if (c) {
		ipp_stats__hist_done(st, c->rd.hist);
		ipp_stats__hist_done(st, c->wr.hist);
		memset(c, 0, sizeof(*c));
	}
}

void ipp_stats__sweep(struct ipcperf_stats *st)
{
	ipp_fdtab__sweep(st->fdt, retire, st);
	st->sweep_at = 2 * ipp_fdtab__nr_closed(st->fdt) + 256;
	st->swept_ns = ipp_fdtab__now(st->fdt);
	if (st->fold_conns && st->nr_folds >= st->compact_at)
		ipp_stats__compact(st);
	if (st->fold_exited)
		ipp_stats__fold_exited(st);
}

