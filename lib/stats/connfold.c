/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Closed connections folded into their groups (ipcperf_stats_opts.fold_conns):
 * a server traced for hours closes a connection per request, and each one
 * is a row of its own (its own socket). Once enough folded rows of closed
 * connections have piled up, they are grouped as the group walk would
 * group them at the report (groups.c: process, kind, endpoint, peer
 * process) and added into one fold per group, their rows freed.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stats/groups.h"

/* The fold of the group of @key, made when new. NULL: no memory. */
static struct connfold *cfold_of(struct ipcperf_stats *st, const struct connfold *key)
{
	for (size_t i = 0; i < st->nr_cfolds; i++) {
		struct connfold *cf = &st->cfolds[i];

		if (cf->pid == key->pid && cf->role == key->role && cf->id.kind == key->id.kind &&
		    cf->peer == key->peer && !strcmp(cf->endpoint, key->endpoint))
			return cf;
	}
	if (ipp_grow((void **)&st->cfolds, &st->cap_cfolds, st->nr_cfolds + 1,
		     sizeof(*st->cfolds)) < 0)
		return NULL;
	st->cfolds[st->nr_cfolds] = *key;
	return &st->cfolds[st->nr_cfolds++];
}

/* The fold (index) a row of the walk stands for. */
static size_t fold_index(const struct ipcperf_stats *st, const struct ipp_rowref *r)
{
	return (size_t)((const struct foldrow *)((const char *)r->c -
						 offsetof(struct foldrow, c)) - st->folds);
}

/*
 * Row @r (a fold) into the fold of its group, unless it stays a row: it
 * groups with no other (IPCPERF_GROUP_ONE), or a traced process still
 * holds its other end (so that the walk at the report names that peer,
 * and that peer's row names this process), or a flow still names its
 * untraced side from it (pinned). @return whether it was taken.
 */
static bool take_row(struct ipcperf_stats *st, struct ipp_peers *pe, const struct ipp_ports *pp,
		     const struct ipp_rowref *r, struct ipp_hist *scratch)
{
	const struct foldrow *f = &st->folds[fold_index(st, r)];
	struct connfold key = { .pid = r->pid, .fd = r->fd, .conns = 0 };
	struct connfold *cf;
	const char *comm;

	key.role = ipp_group__key(r, pp, key.endpoint);
	if (key.role == IPCPERF_GROUP_ONE || ipp_peers__held_peer(pe, r) ||
	    ipp_stats__pinned(st, r->id->ino))
		return false;
	key.peer = ipp_peers__of(pe, r, &comm);
	snprintf(key.peer_comm, sizeof(key.peer_comm), "%s", comm);
	key.id = *r->id;
	key.id.state = IPP_ID_UNKNOWN;
	cf = cfold_of(st, &key);
	if (!cf)
		return false;
	if (r->fd < cf->fd)
		cf->fd = r->fd;
	cf->conns++;
	cf->by_ports += ipp_group__by_ports(r);
	ipp_fold__add(&cf->c, cf->packed, &f->c, f->packed, scratch);
	return true;
}

void ipp_stats__compact(struct ipcperf_stats *st)
{
	struct ipp_hist *scratch = malloc(sizeof(*scratch));
	struct ipp_rowref *v = NULL;
	struct ipp_peers *pe = NULL;
	bool *keep = calloc(st->nr_folds ? st->nr_folds : 1, sizeof(*keep)), *taken = NULL;
	struct ipp_ports pp;
	size_t n = 0;

	if (!scratch || !keep || !(v = ipp_rows__held(st, &n)) || !(pe = ipp_peers__new(st, v, n)) ||
	    !(taken = calloc(n ? n : 1, sizeof(*taken))))
		goto out;
	ipp_group__read_ports(&pp, !st->no_proc);
	for (size_t i = 0; i < st->nr_folds; i++)
		keep[i] = true;
	for (size_t i = 0; i < n; i++) {
		if (v[i].inc != SIZE_MAX || !take_row(st, pe, &pp, &v[i], scratch))
			continue;
		keep[fold_index(st, &v[i])] = false;
		ipp_peers__forget(st->peercache, &v[i]);
		taken[i] = true;
	}
	/* before the folds go: v's rows point into them */
	ipp_peers__forget_mirrors(st->peercache, v, n, taken);
	ipp_stats__keep_folds(st, keep);
out:
	free(taken);
	st->compact_at = 2 * st->nr_folds + IPP_COMPACT_FIRST;
	ipp_peers__delete(pe);
	free(v);
	free(keep);
	free(scratch);
}

/* The row of fold @cf, its sums in @sum, to @cb. */
static int emit_fold(const struct connfold *cf, struct ipp_rowsum *sum,
		     int (*cb)(void *ctx, const struct ipcperf_fd_row *row), void *ctx)
{
	const struct ipp_rowref r = { .inc = SIZE_MAX, .pid = cf->pid, .fd = cf->fd, .id = &cf->id,
				      .c = &cf->c, .packed = { cf->packed[0], cf->packed[1] },
				      .cf = cf };
	struct ipcperf_fd_row row = {
		.pid = cf->pid, .fd = -1, .object = "", .kind = cf->id.kind, .detail = "",
		.peer_pid = cf->peer, .peer_comm = cf->peer_comm,
		.group_role = (enum ipcperf_fd_group_role)cf->role, .group_endpoint = cf->endpoint,
		.folded = cf->conns,
	};

	ipp_rowsum__reset(sum);
	ipp_rowsum__add(sum, &r);
	IPP_ROWSUM_OUT(sum, &row);
	return cb(ctx, &row);
}

int ipcperf_stats__for_each_fd_fold(struct ipcperf_stats *st,
				    int (*cb)(void *ctx, const struct ipcperf_fd_row *row),
				    void *ctx)
{
	struct ipp_rowsum sum;
	int ret = 0;

	if (!st || !cb)
		return -EINVAL;
	if (!st->nr_cfolds)
		return 0;
	if (ipp_rowsum__init(&sum) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < st->nr_cfolds && !ret; i++)
		ret = emit_fold(&st->cfolds[i], &sum, cb, ctx);
	ipp_rowsum__fini(&sum);
	return ret;
}

/* ------------------------------------------------------------------ pins */

/* How many flows pin @ino (ipp_idmap values are never NULL: a count, 1 and up). */
static uintptr_t pin_count(const struct ipcperf_stats *st, uint64_t ino)
{
	return ino ? (uintptr_t)ipp_idmap__get(&st->pins, ino) : 0;
}

int ipp_stats__pin(struct ipcperf_stats *st, uint64_t ino)
{
	if (!ino)
		return 0;
	return ipp_idmap__put(&st->pins, ino, (void *)(pin_count(st, ino) + 1));
}

bool ipp_stats__pinned(const struct ipcperf_stats *st, uint64_t ino)
{
	return pin_count(st, ino) != 0;
}

void ipp_stats__unpin(struct ipcperf_stats *st, uint64_t ino)
{
	uintptr_t n = pin_count(st, ino);

	if (n > 1)
		ipp_idmap__put(&st->pins, ino, (void *)(n - 1));	/* there: no growth, no failure */
	else if (n)
		ipp_idmap__del(&st->pins, ino);
}
