/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small primitives every module uses: growing arrays, sorted lookups, the clock. */
#include "config.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "internal.h"

int ipp_grow(void **v, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : IPP_GROW_MIN;
	void *nv;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2 / elem)
			return -ENOMEM;
		n *= 2;
	}
	nv = realloc(*v, n * elem);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = n;
	return 0;
}

void *ipp_insert_at(void **v, size_t *n, size_t *cap, size_t at, size_t elem)
{
	char *gap;

	if (ipp_grow(v, cap, *n + 1, elem) < 0)
		return NULL;
	gap = (char *)*v + at * elem;
	memmove(gap + elem, gap, (*n - at) * elem);
	(*n)++;
	return gap;
}

void *ipp_insert_new(void **v, size_t *n, size_t *cap, size_t at, size_t size)
{
	void *obj = calloc(1, size);
	void *slot = obj ? ipp_insert_at(v, n, cap, at, sizeof(obj)) : NULL;

	if (!slot) {
		free(obj);
		return NULL;
	}
	memcpy(slot, &obj, sizeof(obj));
	return obj;
}

void *ipp_new(size_t size)
{
	void *obj = calloc(1, size);

	if (!obj)
		errno = ENOMEM;
	return obj;
}

void *ipp_new_checked(bool args_ok, size_t size)
{
	if (!args_ok) {
		return ipp_null_errno(EINVAL);
	}
	return ipp_new(size);
}

int ipp_ring_reserve(void **v, size_t *cap, size_t *head, size_t len, size_t elem, size_t first)
{
	size_t n = *cap ? *cap * 2 : first, tail;
	char *nv;

	if (len < *cap)
		return 0;
	if (n > SIZE_MAX / elem || !(nv = malloc(n * elem)))
		return -ENOMEM;
	/* from the head to the end of the array, then what wrapped to its start */
	tail = *cap - *head < len ? *cap - *head : len;
	if (len) {
		memcpy(nv, (char *)*v + *head * elem, tail * elem);
		memcpy(nv + tail * elem, *v, (len - tail) * elem);
	}
	free(*v);
	*v = nv;
	*cap = n;
	*head = 0;
	return 0;
}

void ipp_remove_at(void *v, size_t *n, size_t at, size_t elem)
{
	char *e = (char *)v + at * elem;

	memmove(e, e + elem, (*n - at - 1) * elem);
	(*n)--;
}

uint64_t ipp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * IPP_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

void ipp_clock_pair(uint64_t *mono, uint64_t *real)
{
	struct timespec ts;
	uint64_t m0 = ipp_now_ns();

	clock_gettime(CLOCK_REALTIME, &ts);
	*real = (uint64_t)ts.tv_sec * IPP_NS_PER_SEC + (uint64_t)ts.tv_nsec;
	*mono = m0 + (ipp_now_ns() - m0) / 2;
}

int ipp_read_int(const char *path, int *val)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%d", val) == 1;
	fclose(f);
	return ok ? 0 : -EINVAL;
}

void ipp_free_each(void *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
}

void ipp_delete_ptrs(void *v, size_t n, void (*del)(void *obj))
{
	for (size_t i = 0; i < n; i++) {
		void *obj;

		/* memcpy: the array holds pointers to the caller's type, not void * */
		memcpy(&obj, (char *)v + i * sizeof(obj), sizeof(obj));
		del(obj);
	}
	free(v);
}

void *ipp_new_failed(void *obj)
{
	free(obj);
	return ipp_null_errno(ENOMEM);
}
