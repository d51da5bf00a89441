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
#include "stats/account.h"
#include "stats/groups.h"

/* Hand @cb the row of @v[@i] and the incarnations after it that are the same row. */
static int emit_row(const struct ipcperf_stats *st, const struct ipp_rowref *v, size_t n,
		    size_t *i, struct ipp_rowsum *sum, struct ipp_peers *pe,
		    const struct ipp_ports *pp,
		    int (*cb)(void *ctx, const struct ipcperf_fd_row *row), void *ctx)
{
	const struct ipp_ident *id = v[*i].id;
	char endpoint[IPP_OBJECT_MAX];
	struct ipcperf_fd_row row = {
		.pid = v[*i].pid, .fd = v[*i].fd, .object = id->object,
		.kind = id->kind, .detail = id->detail, .ino = id->ino,
		.peer_ino = id->peer_ino, .group_endpoint = endpoint,
	};
	size_t j;

	ipp_rowsum__reset(sum);
	for (j = *i; j < n && (j == *i || ipp_rows__same(&v[*i], &v[j])); j++)
		ipp_rowsum__add(sum, &v[j]);
	row.peer_pid = ipp_peers__of(pe, &v[*i], &row.peer_comm);
	/* As ipcperf_stats__for_each_fd_group() keys the row: by its first incarnation. */
	row.group_role = (enum ipcperf_fd_group_role)ipp_group__key(&v[*i], pp, endpoint);
	*i = j;
	IPP_ROWSUM_OUT(sum, &row);
	return cb(ctx, &row);
}

int ipcperf_stats__for_each_fd(struct ipcperf_stats *st,
			       int (*cb)(void *ctx, const struct ipcperf_fd_row *row), void *ctx)
{
	size_t n;
	struct ipp_rowref *v;
	struct ipp_rowsum sum;
	struct ipp_peers *pe = NULL;
	struct ipp_ports pp;
	int ret = 0;

	if (!st || !cb)
		return -EINVAL;
	if (!ipp_fdtab__count(st->fdt) && !st->nr_folds)
		return 0;
	ipp_group__read_ports(&pp, !st->no_proc);
	v = ipp_rows__held(st, &n);
	if (!v || ipp_rowsum__init(&sum) < 0) {
		free(v);
		return -ENOMEM;
	}
	pe = ipp_peers__new(st, v, n);
	if (!pe)
		ret = -ENOMEM;
	for (size_t i = 0; i < n && !ret;)
		ret = emit_row(st, v, n, &i, &sum, pe, &pp, cb, ctx);
	ipp_peers__delete(pe);
	ipp_rowsum__fini(&sum);
	free(v);
	return ret;
}

/*
 * The process of rank @i in pid order: the rows of folded exited
 * processes first (pids -nr_exited to -1), then the others.
 */
static const struct proc *proc_at(const struct ipcperf_stats *st, size_t i)
{
	return i < st->nr_exited ? st->exited[st->nr_exited - 1 - i] : st->procs[i - st->nr_exited];
}

int ipcperf_stats__for_each_proc(struct ipcperf_stats *st,
				 int (*cb)(void *ctx, const struct ipcperf_proc_row *row), void *ctx)
{
	int ret = 0;

	if (!st || !cb)
		return -EINVAL;
	for (size_t i = 0; i < st->nr_exited + st->nr_procs && !ret; i++) {
		const struct proc *p = proc_at(st, i);
		struct ipcperf_proc_row row = {
			.pid = p->pid, .comm = p->comm, .voluntary_cs = p->vol,
			.involuntary_cs = p->invol, .wakeups = p->wakeups,
			.migrations = p->migrations, .syscalls = p->syscalls,
			.threads = p->threads, .exited = p->exited,
			.uring_unaccounted = p->uring_ops, .left_ns = p->left_ns,
			.folded = p->folded,
		};

		if (p->seen)
			ret = cb(ctx, &row);
	}
	return ret;
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

/* The syscall rows of @p, by (tid, name), to @cb; @scratch for packed histograms. */
static int proc_syscalls(const struct proc *p, struct ipp_hist *scratch,
			 int (*cb)(void *ctx, const struct ipcperf_syscall_row *row), void *ctx)
{
	const struct scstat **v = malloc(p->nr_sc * sizeof(*v));
	int ret = 0;

	if (!v)
		return -ENOMEM;
	for (size_t k = 0; k < p->nr_sc; k++)
		v[k] = p->sc[k];
	qsort(v, p->nr_sc, sizeof(*v), cmp_sc_name);
	for (size_t k = 0; k < p->nr_sc && !ret; k++) {
		const struct ipp_hist *h = ipp_hist_dense(v[k]->hist, v[k]->packed, scratch);
		struct ipcperf_syscall_row row = {
			.pid = p->pid, .name = v[k]->name, .calls = v[k]->calls,
			.errors = v[k]->errors, .time_ns = v[k]->time_ns, .nr = v[k]->nr,
			.tid = v[k]->tid, .errnos = v[k]->errnos,
			.nr_errnos = v[k]->nr_errnos, .hist = ipp_as_hist(h),
		};

		if (!v[k]->calls)
			continue;
		ipp_lat_of(h, &row.lat_ns);
		ret = cb(ctx, &row);
	}
	free(v);
	return ret;
}

int ipcperf_stats__for_each_syscall(struct ipcperf_stats *st,
				    int (*cb)(void *ctx, const struct ipcperf_syscall_row *row),
				    void *ctx)
{
	struct ipp_hist *scratch;
	int ret = 0;

	if (!st || !cb)
		return -EINVAL;
	scratch = malloc(sizeof(*scratch));
	if (!scratch)
		return -ENOMEM;
	for (size_t i = 0; i < st->nr_exited + st->nr_procs && !ret; i++)
		if (proc_at(st, i)->nr_sc)
			ret = proc_syscalls(proc_at(st, i), scratch, cb, ctx);
	free(scratch);
	return ret;
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
