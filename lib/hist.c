/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Log-linear latency histogram: see hist.h for the layout and its error bound. */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "hist.h"

void ipp_hist_init(struct ipp_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

static inline unsigned int hist_index(uint64_t v)
{
	if (v < IPP_HIST_SUB)
		return (unsigned int)v;
	/* e >= 5: the top bit; the next 5 bits pick the sub-bucket. */
	unsigned int e = 63u - (unsigned int)__builtin_clzll(v);
	unsigned int shift = e - IPP_HIST_SUB_BITS;
	unsigned int sub = (unsigned int)(v >> shift) - IPP_HIST_SUB;
	return (shift + 1) * IPP_HIST_SUB + sub;
}

void ipp_hist_clear(struct ipp_hist *h)
{
	if (h->bucketed) {
		unsigned int lo = hist_index(h->min), hi = hist_index(h->max);

		memset(&h->bucket[lo], 0, (hi - lo + 1) * sizeof(h->bucket[0]));
	}
	h->count = h->sum_lo = h->sum_hi = h->max = h->bucketed = 0;
	h->min = UINT64_MAX;
	h->saturated = false;
}

unsigned int ipp_hist_index(uint64_t v)
{
	return hist_index(v);
}

void ipp_hist_bucket_bounds(unsigned int idx, uint64_t *lo, uint64_t *hi)
{
	unsigned int group = idx / IPP_HIST_SUB;

	if (group == 0) {
		*lo = *hi = idx;
		return;
	}
	unsigned int shift = group - 1;
	uint64_t sub = idx % IPP_HIST_SUB;
	*lo = (IPP_HIST_SUB + sub) << shift;
	/* The last bucket ends at UINT64_MAX: lo + width - 1 does not wrap. */
	*hi = *lo + ((UINT64_C(1) << shift) - 1);
}

static inline void bucket_add(struct ipp_hist *h, unsigned int idx, uint64_t n)
{
	uint64_t room = UINT32_MAX - h->bucket[idx];

	if (n > room) {
		n = room;
		h->saturated = true;
	}
	h->bucket[idx] += (uint32_t)n;
	h->bucketed += n;
}

/* @n samples whose sum is @sum_hi:@sum_lo, the least @min and the largest @max, into @h's totals. */
static inline void add_totals(struct ipp_hist *h, uint64_t n, uint64_t sum_lo, uint64_t sum_hi,
			      uint64_t min, uint64_t max)
{
	h->count += n;
	h->sum_lo += sum_lo;
	h->sum_hi += sum_hi + (h->sum_lo < sum_lo);	/* carry */
	if (min < h->min)
		h->min = min;
	if (max > h->max)
		h->max = max;
}

void ipp_hist_add(struct ipp_hist *h, uint64_t v)
{
	unsigned int idx = hist_index(v);

	add_totals(h, 1, v, 0, v, v);
	if (__builtin_expect(h->bucket[idx] == UINT32_MAX, 0))
		h->saturated = true;
	else {
		h->bucket[idx]++;
		h->bucketed++;
	}
}

uint64_t ipp_hist_count(const struct ipp_hist *h)
{
	return h->count;
}

uint64_t ipp_hist_min(const struct ipp_hist *h)
{
	return h->count ? h->min : 0;
}

uint64_t ipp_hist_max(const struct ipp_hist *h)
{
	return h->count ? h->max : 0;
}

uint64_t ipp_hist_sum(const struct ipp_hist *h)
{
	return h->sum_hi ? UINT64_MAX : h->sum_lo;
}

bool ipp_hist_saturated(const struct ipp_hist *h)
{
	return h->saturated;
}

/*
 * (hi:lo) / d for hi < d (so the quotient fits in 64 bits): restoring long
 * division, one bit at a time. Written out rather than using unsigned
 * __int128 so that 32-bit targets build too; it only runs when a report asks.
 */
static uint64_t div128_64(uint64_t hi, uint64_t lo, uint64_t d)
{
	uint64_t q = 0;

	for (int i = 0; i < 64; i++) {
		bool top = hi >> 63;

		hi = (hi << 1) | (lo >> 63);
		lo <<= 1;
		q <<= 1;
		/* The true remainder is 2^64 + hi when top is set: always >= d. */
		if (top || hi >= d) {
			hi -= d;
			q |= 1;
		}
	}
	return q;
}

uint64_t ipp_hist_avg(const struct ipp_hist *h)
{
	if (!h->count)
		return 0;
	/* sum <= count * max < count * 2^64, hence sum_hi < count. */
	return div128_64(h->sum_hi, h->sum_lo, h->count);
}

uint64_t ipp_hist_percentile(const struct ipp_hist *h, double p)
{
	if (!h->count)
		return 0;
	if (!(p > 0))	/* also NaN */
		return h->min;
	if (p >= 100 || !h->bucketed)
		return h->max;

	/* rank = ceil(p / 100 * n), at least 1, at most n; no libm needed. */
	double x = p / 100.0 * (double)h->bucketed;
	uint64_t rank;
	if (x >= (double)h->bucketed) {
		rank = h->bucketed;
	} else {
		rank = (uint64_t)x;
		if ((double)rank < x)
			rank++;
		if (rank < 1)
			rank = 1;
	}
	if (rank == h->bucketed)	/* the largest sample: max itself */
		return h->max;

	uint64_t seen = 0;
	unsigned int idx = ipp_hist_index(h->min);
	unsigned int last = ipp_hist_index(h->max);
	for (; idx < last; idx++) {
		seen += h->bucket[idx];
		if (seen >= rank)
			break;
	}

	uint64_t lo, hi, v;
	ipp_hist_bucket_bounds(idx, &lo, &hi);
	v = lo + (hi - lo + 1) / 2;	/* the middle; hi - lo + 1 never wraps (max 2^58) */
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}

bool ipp_hist_count_le(const struct ipp_hist *h, const uint64_t *bounds, size_t n,
		       uint64_t *out)
{
	unsigned int idx, last;
	uint64_t seen = 0;
	size_t i = 0;

	for (size_t k = 1; k < n; k++)
		if (bounds[k] < bounds[k - 1])
			return false;
	if (!h->count) {
		memset(out, 0, n * sizeof(*out));
		return true;
	}
	/* The buckets in order: their clamped middles only grow, so one sweep does. */
	idx = ipp_hist_index(h->min);
	last = ipp_hist_index(h->max);
	for (; idx <= last; idx++) {
		uint64_t lo, hi, mid;

		if (!h->bucket[idx])
			continue;
		ipp_hist_bucket_bounds(idx, &lo, &hi);
		mid = lo + (hi - lo + 1) / 2;
		if (mid < h->min)
			mid = h->min;
		if (mid > h->max)
			mid = h->max;
		while (i < n && bounds[i] < mid)
			out[i++] = seen;
		seen += h->bucket[idx];
	}
	while (i < n)
		out[i++] = seen;
	return true;
}

void ipp_hist_add_buckets(struct ipp_hist *h, uint64_t n, uint64_t sum, uint64_t min, uint64_t max,
			  unsigned int first, const uint32_t *counts, size_t nb)
{
	unsigned int lo = hist_index(min), hi = hist_index(max);

	if (!n)
		return;
	add_totals(h, n, sum, 0, min, max);
	/* the window's buckets below min's and above max's hold nothing: a summary reads ~1 in 50 */
	for (size_t i = lo > first ? lo - first : 0; i < nb && first + i <= hi; i++)
		if (counts[i])
			bucket_add(h, first + (unsigned int)i, counts[i]);
}

/*
 * Add to @dst the samples whose totals @t holds, their buckets t->first to
 * t->first + t->n - 1 counted in @bucket: a packed histogram's, or a window
 * of a dense one's.
 */
static void merge_counts(struct ipp_hist *dst, const struct ipp_hist_packed *t,
			 const uint32_t *bucket)
{
	if (!t->count)
		return;
	add_totals(dst, t->count, t->sum_lo, t->sum_hi, t->min, t->max);
	if (t->saturated)
		dst->saturated = true;
	for (unsigned int i = 0; i < t->n; i++)
		if (bucket[i])
			bucket_add(dst, t->first + i, bucket[i]);
}

void ipp_hist_merge(struct ipp_hist *dst, const struct ipp_hist *src)
{
	unsigned int first = ipp_hist_index(src->min), last = ipp_hist_index(src->max);
	struct ipp_hist_packed t = {
		.count = src->count, .sum_lo = src->sum_lo, .sum_hi = src->sum_hi,
		.min = src->min, .max = src->max, .saturated = src->saturated,
		.first = first, .n = last - first + 1,
	};

	merge_counts(dst, &t, &src->bucket[first]);
}

struct ipp_hist_packed *ipp_hist_pack(const struct ipp_hist *h)
{
	struct ipp_hist_packed *p;
	unsigned int first, last;

	errno = 0;
	if (!h->count)
		return NULL;
	first = ipp_hist_index(h->min);
	last = ipp_hist_index(h->max);
	p = malloc(sizeof(*p) + (last - first + 1) * sizeof(p->bucket[0]));
	if (!p)
		return NULL;
	*p = (struct ipp_hist_packed){
		.count = h->count, .sum_lo = h->sum_lo, .sum_hi = h->sum_hi, .min = h->min,
		.max = h->max, .bucketed = h->bucketed, .saturated = h->saturated,
		.first = first, .n = last - first + 1,
	};
	memcpy(p->bucket, &h->bucket[first], p->n * sizeof(p->bucket[0]));
	return p;
}

struct ipp_hist *ipp_hist_unpack(struct ipp_hist_packed **packed)
{
	struct ipp_hist *h = malloc(sizeof(*h));

	if (!h)
		return NULL;
	ipp_hist_init(h);
	if (*packed)
		ipp_hist_merge_packed(h, *packed);
	free(*packed);
	*packed = NULL;
	return h;
}

const struct ipp_hist *ipp_hist_dense(const struct ipp_hist *dense,
				      const struct ipp_hist_packed *packed, struct ipp_hist *scratch)
{
	if (dense)
		return dense;
	ipp_hist_init(scratch);
	if (packed)
		ipp_hist_merge_packed(scratch, packed);
	return scratch;
}

int ipp_hist_fold(struct ipp_hist_packed **dst, const struct ipp_hist *dense,
		  const struct ipp_hist_packed *packed, struct ipp_hist *scratch)
{
	struct ipp_hist_packed *p;

	ipp_hist_init(scratch);
	if (*dst)
		ipp_hist_merge_packed(scratch, *dst);
	if (packed)
		ipp_hist_merge_packed(scratch, packed);
	if (dense)
		ipp_hist_merge(scratch, dense);
	p = ipp_hist_pack(scratch);
	if (!p)
		return -ENOMEM;
	free(*dst);
	*dst = p;
	return 0;
}

bool ipp_hist_add_packed(struct ipp_hist_packed *dst, const struct ipp_hist_packed *src)
{
	unsigned int off = src->first - dst->first;

	if (!src->count)
		return true;
	if (!dst->count || src->first < dst->first || src->first + src->n > dst->first + dst->n)
		return false;
	dst->count += src->count;
	dst->sum_lo += src->sum_lo;
	dst->sum_hi += src->sum_hi + (dst->sum_lo < src->sum_lo);	/* carry */
	dst->min = src->min < dst->min ? src->min : dst->min;
	dst->max = src->max > dst->max ? src->max : dst->max;
	dst->saturated |= src->saturated;
	for (unsigned int i = 0; i < src->n; i++) {
		uint64_t n = src->bucket[i], room = UINT32_MAX - dst->bucket[off + i];

		if (n > room) {
			n = room;
			dst->saturated = true;
		}
		dst->bucket[off + i] += (uint32_t)n;
		dst->bucketed += n;
	}
	return true;
}

void ipp_hist_merge_packed(struct ipp_hist *dst, const struct ipp_hist_packed *src)
{
	merge_counts(dst, src, src->bucket);
}

/* ---------------------------------------------------------------- public */

/* The public face of a histogram is the histogram itself (ipp_as_hist()). */
static const struct ipp_hist *of_hist(const struct ipcperf_hist *h)
{
	return (const struct ipp_hist *)(const void *)h;
}

const struct ipcperf_hist *ipp_as_hist(const struct ipp_hist *h)
{
	return (const struct ipcperf_hist *)(const void *)h;
}

uint64_t ipcperf_hist__count(const struct ipcperf_hist *h)
{
	return h ? ipp_hist_count(of_hist(h)) : 0;
}

uint64_t ipcperf_hist__sum(const struct ipcperf_hist *h)
{
	return h ? ipp_hist_sum(of_hist(h)) : 0;
}

int ipcperf_hist__count_le(const struct ipcperf_hist *h, const uint64_t *bounds, size_t n,
			   uint64_t *counts)
{
	if (!h || (n && (!bounds || !counts)))
		return -EINVAL;
	return ipp_hist_count_le(of_hist(h), bounds, n, counts) ? 0 : -EINVAL;
}

static struct ipp_hist *of_hist_mut(struct ipcperf_hist *h)
{
	return (struct ipp_hist *)(void *)h;
}

struct ipcperf_hist *ipcperf_hist__new(void)
{
	struct ipp_hist *h = malloc(sizeof(*h));

	if (!h)
		return NULL;
	ipp_hist_init(h);
	return (struct ipcperf_hist *)(void *)h;
}

void ipcperf_hist__delete(struct ipcperf_hist *h)
{
	free(h);
}

int ipcperf_hist__merge(struct ipcperf_hist *dst, const struct ipcperf_hist *src)
{
	if (!dst)
		return -EINVAL;
	if (src)
		ipp_hist_merge(of_hist_mut(dst), of_hist(src));
	return 0;
}

int ipcperf_hist__lat(const struct ipcperf_hist *h, struct ipcperf_lat *lat)
{
	const struct ipp_hist *p = of_hist(h);

	if (!h || !lat)
		return -EINVAL;
	*lat = (struct ipcperf_lat){
		.min = ipp_hist_min(p), .avg = ipp_hist_avg(p), .max = ipp_hist_max(p),
		.p50 = ipp_hist_percentile(p, 50), .p99 = ipp_hist_percentile(p, 99),
	};
	return 0;
}
