/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The folded rows (account.h): the counts of closed incarnations, a row per
 * (pid, fd, object), found through a hash, with the identities they share;
 * and the adding of one fold into another (connfold.c, exitfold.c).
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stats/account.h"

static size_t fold_hash(pid_t pid, int fd, const char *object)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	h = (h ^ (uint32_t)pid) * 1099511628211ull;
	h = (h ^ (uint32_t)fd) * 1099511628211ull;
	for (const char *c = object; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	return (size_t)h;
}

/* Index fold @i in the hash (slots hold index + 1, 0 free; at most half full). */
static void fold_index(struct ipcperf_stats *st, size_t i)
{
	const struct foldrow *f = &st->folds[i];
	size_t h = fold_hash(f->pid, f->fd, f->id->object) & (st->cap_fold_idx - 1);

	while (st->fold_idx[h])
		h = (h + 1) & (st->cap_fold_idx - 1);
	st->fold_idx[h] = i + 1;
}

/* Room in the hash for one more fold. @return 0 or -ENOMEM. */
static int fold_room(struct ipcperf_stats *st)
{
	size_t cap = st->cap_fold_idx ? st->cap_fold_idx : 64;
	size_t *idx;

	if (2 * (st->nr_folds + 1) <= st->cap_fold_idx)
		return 0;
	while (2 * (st->nr_folds + 1) > cap)
		cap *= 2;
	idx = calloc(cap, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	free(st->fold_idx);
	st->fold_idx = idx;
	st->cap_fold_idx = cap;
	for (size_t i = 0; i < st->nr_folds; i++)
		fold_index(st, i);
	return 0;
}

/* @id as it is reported, with what only its check needed zeroed (padding too: compared whole). */
static void reported_id(struct ipp_ident *out, const struct ipp_ident *id)
{
	memset(out, 0, sizeof(*out));
	out->state = id->state;
	out->kind = id->kind;
	out->ino = id->ino;
	out->peer_ino = id->peer_ino;
	out->sock_type = id->sock_type;
	out->capacity = id->capacity;
	out->cap_default = id->cap_default;
	out->cloexec = id->cloexec;
	out->accmode = id->accmode;
	out->origin = id->origin;
	out->read_err = id->read_err;
	out->partial = id->partial;
	snprintf(out->object, sizeof(out->object), "%s", id->object);
	snprintf(out->detail, sizeof(out->detail), "%s", id->detail);
}

/*
 * The whole struct hashed 8 bytes a step, each step's high bits folded
 * down (the table takes the low ones). A byte a step (FNV-1a) took near a
 * microsecond of each closed connection: each row folded hashes its
 * identity, and so does each fold dropped.
 */
static size_t id_hash(const struct ipp_ident *id)
{
	const unsigned char *b = (const unsigned char *)id;
	uint64_t h = 1469598103934665603ull, w;

	_Static_assert(sizeof(*id) % sizeof(w) == 0, "an identity in whole words");
	for (size_t i = 0; i < sizeof(*id); i += sizeof(w)) {
		memcpy(&w, b + i, sizeof(w));
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 32;
	}
	return (size_t)h;
}

/* The slot of @id (reported_id()) in the hash: its entry, or the free slot where it goes. */
static struct sharedid **id_slot(const struct ipcperf_stats *st, const struct ipp_ident *id)
{
	size_t h = id_hash(id) & (st->cap_ids - 1);

	while (st->ids[h] && memcmp(&st->ids[h]->id, id, sizeof(*id)))
		h = (h + 1) & (st->cap_ids - 1);
	return &st->ids[h];
}

/* Room in the hash of shared identities for one more. @return 0 or -ENOMEM. */
static int id_room(struct ipcperf_stats *st)
{
	size_t cap = st->cap_ids ? st->cap_ids * 2 : 64, old = st->cap_ids;
	struct sharedid **v, **prev = st->ids;

	if (2 * (st->nr_ids + 1) <= st->cap_ids)
		return 0;
	v = calloc(cap, sizeof(*v));
	if (!v)
		return -ENOMEM;
	st->ids = v;
	st->cap_ids = cap;
	for (size_t i = 0; i < old; i++)
		if (prev[i])
			*id_slot(st, &prev[i]->id) = prev[i];
	free(prev);
	return 0;
}

/* @id shared by one more row. NULL: no memory. */
static const struct ipp_ident *share_id(struct ipcperf_stats *st, const struct ipp_ident *id)
{
	struct ipp_ident key;
	struct sharedid **slot;

	if (id_room(st) < 0)
		return NULL;
	reported_id(&key, id);
	slot = id_slot(st, &key);
	if (!*slot) {
		*slot = malloc(sizeof(**slot));
		if (!*slot)
			return NULL;
		(*slot)->refs = 0;
		(*slot)->id = key;
		st->nr_ids++;
	}
	(*slot)->refs++;
	return &(*slot)->id;
}

/* One row less shares @id: freed with its last; the hash rebuilt around the hole. */
static void unshare_id(struct ipcperf_stats *st, const struct ipp_ident *id)
{
	struct sharedid **slot = id_slot(st, id), *gone = *slot;
	size_t h;

	if (!gone || --gone->refs)
		return;
	*slot = NULL;
	st->nr_ids--;
	free(gone);
	/* open addressing: the entries after the hole move back where a lookup finds them */
	for (h = ((size_t)(slot - st->ids) + 1) & (st->cap_ids - 1); st->ids[h];
	     h = (h + 1) & (st->cap_ids - 1)) {
		struct sharedid *e = st->ids[h];

		st->ids[h] = NULL;
		*id_slot(st, &e->id) = e;
	}
}

void ipp_stats__free_ids(struct ipcperf_stats *st)
{
	for (size_t i = 0; i < st->cap_ids; i++)
		free(st->ids[i]);
	free(st->ids);
	st->ids = NULL;
	st->nr_ids = st->cap_ids = 0;
}

struct foldrow *ipp_stats__fold_row(struct ipcperf_stats *st, pid_t pid, int fd,
				    const struct ipp_ident *id)
{
	const struct ipp_ident *shared;
	size_t h;

	if (fold_room(st) < 0)
		return NULL;
	h = fold_hash(pid, fd, id->object) & (st->cap_fold_idx - 1);
	for (; st->fold_idx[h]; h = (h + 1) & (st->cap_fold_idx - 1)) {
		struct foldrow *f = &st->folds[st->fold_idx[h] - 1];

		if (f->pid == pid && f->fd == fd && f->id->kind == id->kind &&
		    strcmp(f->id->object, id->object) == 0)
			return f;
	}
	if (ipp_grow((void **)&st->folds, &st->cap_folds, st->nr_folds + 1, sizeof(*st->folds)) < 0 ||
	    !(shared = share_id(st, id)))
		return NULL;
	st->folds[st->nr_folds] = (struct foldrow){ .pid = pid, .fd = fd, .id = shared };
	st->fold_idx[h] = ++st->nr_folds;
	return &st->folds[st->nr_folds - 1];
}

void ipp_stats__keep_folds(struct ipcperf_stats *st, const bool *keep)
{
	size_t k = 0;

	for (size_t i = 0; i < st->nr_folds; i++) {
		struct foldrow *f = &st->folds[i];

		if (keep[i]) {
			st->folds[k++] = *f;
			continue;
		}
		free(f->c.rd.hist);
		free(f->c.wr.hist);
		free(f->packed[0]);
		free(f->packed[1]);
		unshare_id(st, f->id);
	}
	st->nr_folds = k;
	if (st->fold_idx)
		memset(st->fold_idx, 0, st->cap_fold_idx * sizeof(*st->fold_idx));
	for (size_t i = 0; i < k; i++)
		fold_index(st, i);
}

/* @src added to *@dst, both packed (NULL: empty); @scratch a dense histogram to do it in. */
static int merge_packed(struct ipp_hist_packed **dst, const struct ipp_hist_packed *src,
			struct ipp_hist *scratch)
{
	if (!src || (*dst && ipp_hist_add_packed(*dst, src)))
		return 0;
	return ipp_hist_fold(dst, NULL, src, scratch);
}

int ipp_fold__add(struct inccount *dc, struct ipp_hist_packed *dp[2], const struct inccount *c,
		  struct ipp_hist_packed *const packed[2], struct ipp_hist *scratch)
{
	const struct side *src[2] = { &c->rd, &c->wr };
	struct side *dst[2] = { &dc->rd, &dc->wr };
	int err = 0;

	if (c->first_ns && (!dc->first_ns || c->first_ns < dc->first_ns))
		dc->first_ns = c->first_ns;
	if (c->last_ns > dc->last_ns)
		dc->last_ns = c->last_ns;
	for (int s = 0; s < 2; s++) {
		struct ipp_hist_packed *dense = src[s]->hist ? ipp_hist_pack(src[s]->hist) : NULL;

		ipp_side_add(dst[s], src[s]);
		if (merge_packed(&dp[s], packed[s], scratch) < 0 ||
		    (src[s]->hist && src[s]->hist->count && !dense) ||
		    merge_packed(&dp[s], dense, scratch) < 0)
			err = -ENOMEM;
		free(dense);
	}
	return err;
}
