/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Log-linear histogram of u64 values (latencies in ns), bounded memory.
 *
 * count, sum, min and max are exact. Percentiles come from buckets: values
 * below 32 have a bucket each; above, every power of two [2^e, 2^(e+1)) is
 * cut into 32 equal sub-buckets of width 2^(e-5). A percentile is the middle
 * of the bucket holding the sample of that rank, so it is off from that
 * sample by at most half a bucket width, i.e. at most 1/64 of the sample
 * (width / 2 <= 2^(e-6) <= v / 64), and then clamped to [min, max].
 * The buckets cover 0 .. UINT64_MAX: 32 + 59 * 32 = 1920 of them.
 *
 * Size: ~7.6 KiB. Why so small and why 32-bit bucket counts: a run keeps one
 * histogram per fd row and direction plus one per flow, and a system-wide run
 * can have thousands of rows; 64 sub-buckets with 64-bit counts would be
 * 30 KiB each. 32 sub-buckets reported at their middle already meet the 1/64
 * bound, and 32-bit counts only matter past 4.29e9 samples *in one bucket*
 * (71 minutes of back-to-back 1 us calls on one fd all of the same
 * latency): such a bucket then stops counting (saturates), ipp_hist_saturated()
 * turns true, percentiles keep being computed from the bucket counts (so they
 * under-weight that bucket), and count/sum/avg/min/max stay exact.
 *
 * Pure: no I/O, no allocation. Not thread-safe (one writer, no readers
 * concurrently with it).
 */
#ifndef IPCPERF_HIST_H
#define IPCPERF_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IPP_HIST_SUB_BITS 5
#define IPP_HIST_SUB (1u << IPP_HIST_SUB_BITS)	/* sub-buckets per power of two */
/* Exact buckets 0..31, then one group of 32 per exponent 5..63. */
#define IPP_HIST_BUCKETS (IPP_HIST_SUB + (64 - IPP_HIST_SUB_BITS) * IPP_HIST_SUB)

struct ipp_hist {
	uint64_t count;		/* samples added */
	uint64_t sum_lo;	/* sum of samples: a 128-bit integer (hi:lo), so */
	uint64_t sum_hi;	/*   2^64 samples of UINT64_MAX cannot overflow it */
	uint64_t min;		/* UINT64_MAX while empty */
	uint64_t max;
	uint64_t bucketed;	/* sum of bucket[]; < count only once saturated */
	bool saturated;		/* some bucket reached UINT32_MAX and stopped counting */
	uint32_t bucket[IPP_HIST_BUCKETS];
};

/* Make @h empty. A zero-filled struct is NOT empty-initialized (min). */
void ipp_hist_init(struct ipp_hist *h);
/*
 * Make @h, a histogram ipp_hist_init() made, empty again: its buckets from
 * its least sample's to its largest's zeroed (no other holds one), not all
 * ~7.7 KB of them.
 */
void ipp_hist_clear(struct ipp_hist *h);
/* Add one sample. O(1): a clz and an increment. */
void ipp_hist_add(struct ipp_hist *h, uint64_t v);

uint64_t ipp_hist_count(const struct ipp_hist *h);
/* Exact minimum / maximum; 0 when empty. */
uint64_t ipp_hist_min(const struct ipp_hist *h);
uint64_t ipp_hist_max(const struct ipp_hist *h);
/* floor(sum / count), exact (128-bit sum); 0 when empty. */
uint64_t ipp_hist_avg(const struct ipp_hist *h);
/* The sum, saturated at UINT64_MAX. */
uint64_t ipp_hist_sum(const struct ipp_hist *h);
/* True once a bucket saturated: percentiles under-weight it (see above). */
bool ipp_hist_saturated(const struct ipp_hist *h);

/*
 * The @p-th percentile, p in [0, 100], nearest-rank: the sample of rank
 * ceil(p / 100 * n) (at least 1), reported as the middle of its bucket,
 * clamped to [min, max]. Within 1/64 of that sample. p <= 0 (and NaN) gives
 * min, p >= 100 gives max, exactly. 0 when empty.
 */
uint64_t ipp_hist_percentile(const struct ipp_hist *h, double p);

/*
 * Cumulative counts at @n ascending @bounds: @out[i] = the samples whose
 * value, taken as the middle of its bucket clamped to [min, max] (what the
 * percentiles report), is <= @bounds[i]. A sample can so be counted on the
 * wrong side of a bound only when its bucket straddles the bound, i.e. when
 * it is within half a bucket (1/64) of it; counts at bounds below 32, at the
 * top of a bucket, or outside [min, max) are exact. Once saturated, the
 * counts are the buckets' and fall short of the count. @return false when
 * @bounds are not ascending (@out then untouched).
 */
bool ipp_hist_count_le(const struct ipp_hist *h, const uint64_t *bounds, size_t n,
		       uint64_t *out);

/*
 * Add @n samples summing to @sum, of least @min and greatest @max, of which
 * @counts[i] fall in bucket @first + i (i < @nb, inside the buckets; the
 * caller checks they add up to @n), as if each had been ipp_hist_add()ed:
 * sums made elsewhere with the same buckets (the kernel's, lib/bpf/sum-rec.h).
 * Only the buckets from @min's to @max's are read: no sample lies outside.
 */
void ipp_hist_add_buckets(struct ipp_hist *h, uint64_t n, uint64_t sum, uint64_t min, uint64_t max,
			  unsigned int first, const uint32_t *counts, size_t nb);

/* Add every sample of @src to @dst, as if each had been ipp_hist_add()ed. */
void ipp_hist_merge(struct ipp_hist *dst, const struct ipp_hist *src);

/*
 * A histogram kept small: its totals and only the buckets from its least
 * sample's to its largest's (a row's calls span a few octaves: some
 * hundred bytes, not the ~7.7 KB of struct ipp_hist). For what is kept
 * long and read rarely (closed fds' rows, stats/folds.c).
 */
struct ipp_hist_packed {
	uint64_t count, sum_lo, sum_hi, min, max, bucketed;
	bool saturated;
	unsigned int first, n;		/* bucket[i] is bucket first + i */
	uint32_t bucket[];
};

/* @h packed, or NULL (no memory, errno ENOMEM; or @h empty, errno 0). Free with free(). */
struct ipp_hist_packed *ipp_hist_pack(const struct ipp_hist *h);
/*
 * A dense histogram of the samples of *@packed (none when it is NULL), which
 * is freed and set to NULL. @return it (free with free()), or NULL (no
 * memory) with *@packed kept.
 */
struct ipp_hist *ipp_hist_unpack(struct ipp_hist_packed **packed);
/*
 * The samples kept either way, dense: @dense itself when not NULL, else
 * @packed's (none when NULL) put into @scratch, which is returned.
 */
const struct ipp_hist *ipp_hist_dense(const struct ipp_hist *dense,
				      const struct ipp_hist_packed *packed, struct ipp_hist *scratch);
/*
 * Add the samples of @dense and of @packed (either may be NULL) to the
 * packed histogram *@dst (NULL: none yet), in @scratch. @return 0, or
 * -ENOMEM (or nothing to pack) with *@dst as it was.
 */
int ipp_hist_fold(struct ipp_hist_packed **dst, const struct ipp_hist *dense,
		  const struct ipp_hist_packed *packed, struct ipp_hist *scratch);
/* Add every sample of @src to @dst, as ipp_hist_merge() would. */
void ipp_hist_merge_packed(struct ipp_hist *dst, const struct ipp_hist_packed *src);
/*
 * Add @src to @dst in place when @src's buckets lie within @dst's: the same
 * as unpacking @dst, ipp_hist_merge_packed() of @src and packing again (its
 * range cannot grow), without the dense copy. @return false, @dst untouched,
 * when @src reaches outside them.
 */
bool ipp_hist_add_packed(struct ipp_hist_packed *dst, const struct ipp_hist_packed *src);

/* Bucket index of value @v, in [0, IPP_HIST_BUCKETS). */
unsigned int ipp_hist_index(uint64_t v);
/* Smallest and largest value of bucket @idx (< IPP_HIST_BUCKETS). */
void ipp_hist_bucket_bounds(unsigned int idx, uint64_t *lo, uint64_t *hi);

/* A histogram as the public API hands it out (struct ipcperf_hist is opaque). */
struct ipcperf_hist;
const struct ipcperf_hist *ipp_as_hist(const struct ipp_hist *h);

#endif /* IPCPERF_HIST_H */
