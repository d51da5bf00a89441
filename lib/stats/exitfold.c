/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Exited processes folded into a row per comm (ipcperf_stats_opts.fold_exited):
 * a machine that runs short-lived processes for hours would otherwise
 * leave a process row, its syscall rows and its fd rows for each one it
 * ever ran. Once a process's report is settled (a second of events past
 * its exit, every fd of it retired into its folded rows, retain.c),
 * its counts are added into the row of the exited processes of its comm:
 * the process's counts, its syscall rows by syscall, its fd rows by kind,
 * exactly; then its own rows, its threads and its fd table entry go.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stats/groups.h"

/* The row of the exited processes named @comm, made when new. NULL: no memory. */
static struct proc *exited_of(struct ipcperf_stats *st, const char *comm)
{
	struct proc *e;

	for (size_t i = 0; i < st->nr_exited; i++)
		if (!strcmp(st->exited[i]->comm, comm))
			return st->exited[i];
	if (ipp_grow((void **)&st->exited, &st->cap_exited, st->nr_exited + 1,
		     sizeof(*st->exited)) < 0 || !(e = calloc(1, sizeof(*e))))
		return NULL;
	e->pid = -(pid_t)(st->nr_exited + 1);
	snprintf(e->comm, sizeof(e->comm), "%s", comm);
	e->exited = e->seen = true;
	st->exited[st->nr_exited++] = e;
	return e;
}

/* @src (packed, or dense where packing had no memory) added into *@dst, packed. */
static void merge_hist(struct ipp_hist_packed **dst, const struct scstat *src,
		       struct ipp_hist *scratch)
{
	/* Without memory, the latencies miss these calls; the counts do not. */
	if (src->hist || src->packed)
		ipp_hist_fold(dst, src->hist, src->packed, scratch);
}

/* @p's counts and syscall rows into @e, its comm's row. */
static void add_proc(struct proc *e, const struct proc *p, struct ipp_hist *scratch)
{
	e->folded++;
	e->vol += p->vol;
	e->invol += p->invol;
	e->wakeups += p->wakeups;
	e->migrations += p->migrations;
	e->syscalls += p->syscalls;
	e->threads += p->threads;
	e->uring_ops += p->uring_ops;
	for (size_t k = 0; k < p->nr_sc; k++) {
		const struct scstat *sc = p->sc[k];
		struct scstat *d = ipp_proc__sc(e, 0, sc->nr, sc->name);

		if (!d)
			continue;
		d->calls += sc->calls;
		d->errors += sc->errors;
		d->time_ns += sc->time_ns;
		for (size_t i = 0; i < sc->nr_errnos; i++)
			ipp_proc__sc_errnos(d, sc->errnos[i].err, sc->errnos[i].count);
		merge_hist(&d->packed, sc, scratch);
	}
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static bool has_pid(const pid_t *v, size_t n, pid_t pid)
{
	return n && bsearch(&pid, v, n, sizeof(*v), cmp_pid);
}

/*
 * The pids that hold an incarnation, open or not retired yet, or a row
 * whose inode a flow is named from (pinned: the row must keep its object
 * and peer), sorted. NULL: no memory.
 */
static pid_t *holders(const struct ipcperf_stats *st, size_t *nr)
{
	size_t n = ipp_fdtab__count(st->fdt), k = 0;
	pid_t *v = malloc((n + st->nr_folds + 1) * sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const struct ipp_inc *in = ipp_fdtab__inc(st->fdt, i);

		if (in && !in->retired)
			v[k++] = in->pid;
	}
	for (size_t i = 0; st->pins.n && i < st->nr_folds; i++)
		if (ipp_stats__pinned(st, st->folds[i].id->ino))
			v[k++] = st->folds[i].pid;
	qsort(v, k, sizeof(*v), cmp_pid);
	*nr = k;
	return v;
}

/*
 * The processes to fold now, out of st->procs (sorted, in *@nr): exited a
 * second of events ago, holding no incarnation nor pinned row, seen, named. NULL: none,
 * or no memory.
 */
static pid_t *settled_exits(struct ipcperf_stats *st, size_t *nr)
{
	uint64_t now = ipp_fdtab__now(st->fdt);
	size_t nh = 0, k = 0;
	pid_t *held = NULL, *v = NULL;

	*nr = 0;
	for (size_t i = 0; i < st->nr_procs; i++) {
		const struct proc *p = st->procs[i];

		if (!p->exited || !p->exit_ns || now < p->exit_ns + IPP_EXIT_SETTLE_NS)
			continue;
		if (!v && (!(held = holders(st, &nh)) ||
			   !(v = malloc(st->nr_procs * sizeof(*v)))))
			break;
		if (!has_pid(held, nh, p->pid))
			v[k++] = p->pid;
	}
	free(held);
	if (!k) {
		free(v);
		return NULL;
	}
	*nr = k;
	return v;
}

/* The fd rows of @pids (folds, connection folds) into their comms' rows, by kind. */
static void fold_fds(struct ipcperf_stats *st, const pid_t *pids, size_t n,
		     struct ipp_hist *scratch, bool *keep)
{
	size_t nr = st->nr_folds;

	for (size_t i = 0; i < nr; i++) {
		struct ipp_ident id = { .state = IPP_ID_FINAL };
		struct ipp_rowref r = { .inc = SIZE_MAX };
		struct proc *p, *e;
		struct foldrow *d;

		if (!has_pid(pids, n, st->folds[i].pid) ||
		    !(p = ipp_stats__proc(st, st->folds[i].pid, false)) ||
		    !(e = exited_of(st, p->comm)))
			continue;
		id.kind = st->folds[i].id->kind;
		/* made first: the folds may move, the index stays */
		if (!(d = ipp_stats__fold_row(st, e->pid, -1, &id)))
			continue;
		ipp_fold__add(&d->c, d->packed, &st->folds[i].c, st->folds[i].packed, scratch);
		r.pid = st->folds[i].pid;
		r.fd = st->folds[i].fd;
		r.id = st->folds[i].id;
		ipp_peers__forget(st->peercache, &r);
		keep[i] = false;
	}
}

/* The closed connections of @pids folded into groups (fold_conns): into their comms' rows too. */
static void fold_cfolds(struct ipcperf_stats *st, const pid_t *pids, size_t n,
			struct ipp_hist *scratch)
{
	size_t k = 0;

	for (size_t i = 0; i < st->nr_cfolds; i++) {
		struct connfold *cf = &st->cfolds[i];
		struct ipp_ident id = { .state = IPP_ID_FINAL, .kind = cf->id.kind };
		struct proc *p, *e;
		struct foldrow *d;

		if (!has_pid(pids, n, cf->pid) || !(p = ipp_stats__proc(st, cf->pid, false)) ||
		    !(e = exited_of(st, p->comm)) || !(d = ipp_stats__fold_row(st, e->pid, -1, &id))) {
			st->cfolds[k++] = *cf;
			continue;
		}
		ipp_fold__add(&d->c, d->packed, &cf->c, cf->packed, scratch);
		free(cf->packed[0]);
		free(cf->packed[1]);
	}
	st->nr_cfolds = k;
}

/* The thread entries of @pids gone (16 bytes a thread ever seen). */
static void drop_threads(struct ipcperf_stats *st, const pid_t *pids, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < st->nr_threads; i++)
		if (!has_pid(pids, n, st->threads[i].pid))
			st->threads[k++] = st->threads[i];
	st->nr_threads = k;
	memset(st->thread_cache, 0, sizeof(st->thread_cache));
}

/* The processes @pids into their comms' rows; their own freed. */
static void drop_procs(struct ipcperf_stats *st, const pid_t *pids, size_t n,
		       struct ipp_hist *scratch)
{
	size_t k = 0;

	for (size_t i = 0; i < st->nr_procs; i++) {
		struct proc *p = st->procs[i], *e = NULL;

		if (!has_pid(pids, n, p->pid) || (p->seen && !(e = exited_of(st, p->comm)))) {
			st->procs[k++] = p;
			continue;
		}
		/* one never seen (made by a fork, nothing of its own) was never reported */
		if (p->seen)
			add_proc(e, p, scratch);
		ipp_fdtab__forget(st->fdt, p->pid);
		ipp_proc__free(p);
	}
	st->nr_procs = k;
	memset(st->proc_cache, 0, sizeof(st->proc_cache));
}

void ipp_stats__fold_exited(struct ipcperf_stats *st)
{
	struct ipp_hist *scratch = NULL;
	bool *keep = NULL;
	size_t n = 0, nr_folds = st->nr_folds;
	/* room for the rows the folds and connection folds may make for their comms, one each */
	size_t room = 2 * nr_folds + st->nr_cfolds + 1;
	pid_t *pids = settled_exits(st, &n);

	if (!pids || !(scratch = malloc(sizeof(*scratch))) ||
	    !(keep = malloc(room * sizeof(*keep))))
		goto out;
	for (size_t i = 0; i < room; i++)
		keep[i] = true;
	fold_fds(st, pids, n, scratch, keep);
	fold_cfolds(st, pids, n, scratch);
	drop_procs(st, pids, n, scratch);
	drop_threads(st, pids, n);
	ipp_stats__keep_folds(st, keep);
out:
	free(keep);
	free(scratch);
	free(pids);
}
