/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A map of 64-bit keys (inodes, tids, ids; never 0) to pointers: open
 * addressing with linear probing, at most half full, deletion by moving
 * back the entries of the run that follows (no tombstones).
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include "internal.h"

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

void *ipp_idmap__get(const struct ipp_idmap *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	for (size_t i = slot_of(key, m->cap); m->v[i].key; i = (i + 1) & (m->cap - 1))
		if (m->v[i].key == key)
			return m->v[i].val;
	return NULL;
}

static void place(struct ipp_idslot *v, size_t cap, uint64_t key, void *val)
{
	size_t i = slot_of(key, cap);

	while (v[i].key && v[i].key != key)
		i = (i + 1) & (cap - 1);
	v[i].key = key;
	v[i].val = val;
}

static int grow(struct ipp_idmap *m)
{
	size_t cap = m->cap ? 2 * m->cap : 64;
	struct ipp_idslot *v = calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++)
		if (m->v[i].key)
			place(v, cap, m->v[i].key, m->v[i].val);
	free(m->v);
	m->v = v;
	m->cap = cap;
	return 0;
}

int ipp_idmap__put(struct ipp_idmap *m, uint64_t key, void *val)
{
	if (ipp_idmap__get(m, key)) {
		place(m->v, m->cap, key, val);
		return 0;
	}
	if (2 * (m->n + 1) > m->cap && grow(m) < 0)
		return -ENOMEM;
	place(m->v, m->cap, key, val);
	m->n++;
	return 0;
}

void *ipp_idmap__get_new(struct ipp_idmap *m, uint64_t key, size_t size)
{
	void *val = ipp_idmap__get(m, key);

	if (val)
		return val;
	val = calloc(1, size);
	if (val && ipp_idmap__put(m, key, val) < 0) {
		free(val);
		val = NULL;
	}
	return val;
}

void ipp_idmap__del(struct ipp_idmap *m, uint64_t key)
{
	size_t mask = m->cap - 1, i, j;

	if (!m->cap)
		return;
	for (i = slot_of(key, m->cap); m->v[i].key != key; i = (i + 1) & mask)
		if (!m->v[i].key)
			return;
	m->v[i].key = 0;
	m->n--;
	/* Move back each entry of the run after the hole that would no longer be found. */
	for (j = (i + 1) & mask; m->v[j].key; j = (j + 1) & mask) {
		size_t home = slot_of(m->v[j].key, m->cap);

		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			m->v[i] = m->v[j];
			m->v[j].key = 0;
			i = j;
		}
	}
}

void ipp_idmap__each(const struct ipp_idmap *m, void (*fn)(void *ctx, void *val), void *ctx)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->v[i].key)
			fn(ctx, m->v[i].val);
}

void ipp_idmap__fini(struct ipp_idmap *m)
{
	free(m->v);
	*m = (struct ipp_idmap){ 0 };
}
