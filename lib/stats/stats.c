/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The stats object (account.h) made, emptied and freed: what
 * ipcperf_stats__new() sets up, ipcperf_stats__reset() clears and
 * ipcperf_stats__delete() gives back, over the parts of every layer below
 * (account.h). Fed in intake.c, attached in attach.c, read out in readout.c.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "stats/account.h"
#include "stats/groups.h"

struct ipcperf_stats *ipcperf_stats__new(const struct ipcperf_stats_opts *opts)
{
	struct ipcperf_stats *st;

	st = ipp_new_checked(ipp_opts_valid(opts, opts ? opts->sz : 0, sizeof(*opts)), sizeof(*st));
	if (!st)
		return NULL;
	st->no_proc = IPP_OPTS_HAS(opts, no_proc) && opts->no_proc;
	st->per_thread = IPP_OPTS_HAS(opts, per_thread) && opts->per_thread;
	st->fold_conns = IPP_OPTS_HAS(opts, fold_conns) && opts->fold_conns;
	st->fold_exited = IPP_OPTS_HAS(opts, fold_exited) && opts->fold_exited;
	st->compact_at = IPP_COMPACT_FIRST;
	st->fdt = ipp_fdtab__new();
	if (!st->fdt)
		return ipp_new_failed(st);
	/* Not attached to a session: /proc, read when an fd is first seen. */
	if (!st->no_proc)
		ipp_stats__proc_resolver(st, NULL, NULL);
	ipp_settleq__init(&st->calls, st->fdt);
	ipp_callfds__init(&st->every, st->fdt);
	return st;
}

static void free_hists(struct inccount *c)
{
	free(c->rd.hist);
	free(c->wr.hist);
}

/* A fold's histograms, dense or packed: freed and NULL. */
static void free_fold(struct foldrow *f)
{
	free_hists(&f->c);
	free(f->packed[0]);
	free(f->packed[1]);
	f->packed[0] = f->packed[1] = NULL;
}

void ipcperf_stats__delete(struct ipcperf_stats *st)
{
	if (!st)
		return;
	ipp_delete_ptrs(st->procs, st->nr_procs, ipp_proc__free);
	ipp_delete_ptrs(st->exited, st->nr_exited, ipp_proc__free);
	for (size_t i = 0; i < st->nr_counts; i++)
		free_hists(&st->counts[i]);
	free(st->counts);
	for (size_t i = 0; i < st->nr_folds; i++)
		free_fold(&st->folds[i]);
	free(st->folds);
	ipp_stats__free_ids(st);
	ipp_stats__free_spares(st);
	for (size_t i = 0; i < st->nr_cfolds; i++) {
		free(st->cfolds[i].packed[0]);
		free(st->cfolds[i].packed[1]);
	}
	free(st->cfolds);
	ipp_idmap__fini(&st->pins);
	free(st->fold_idx);
	free(st->threads);
	ipp_settleq__fini(&st->calls);
	ipp_callfds__fini(&st->every);
	ipp_fdtab__delete(st->fdt);
	ipp_peers__free_cache(st->peercache);
	free(st);
}

struct ipp_fdtab *ipp_stats__fdtab(struct ipcperf_stats *st)
{
	return st->fdt;
}

void ipcperf_stats__reset(struct ipcperf_stats *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->nr_counts; i++) {
		struct inccount *c = &st->counts[i];

		free_hists(c);
		memset(c, 0, sizeof(*c));
	}
	for (size_t i = 0; i < st->nr_folds; i++) {
		free_fold(&st->folds[i]);
		memset(&st->folds[i].c, 0, sizeof(st->folds[i].c));
	}
	for (size_t i = 0; i < st->nr_cfolds; i++) {
		struct connfold *cf = &st->cfolds[i];

		free(cf->packed[0]);
		free(cf->packed[1]);
		cf->packed[0] = cf->packed[1] = NULL;
		memset(&cf->c, 0, sizeof(cf->c));
		cf->conns = cf->by_ports = 0;	/* an interval's: those folded during it */
	}
	for (size_t i = 0; i < st->nr_procs; i++)
		ipp_proc__reset(st->procs[i]);
	for (size_t i = 0; i < st->nr_exited; i++) {
		ipp_proc__reset(st->exited[i]);
		st->exited[i]->threads = 0;	/* those of the processes folded since */
	}
}
