/* Unit tests of the latency histogram (lib/hist.c): pure, no kernel. */
#include <math.h>	/* NAN, INFINITY only: no libm */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>

#include "hist.h"
#include "check-helpers.h"
#include "suites.h"

/*
 * Cumulative counts at bounds: exact below 32 and outside [min, max), never
 * more than a 64th off at a bound, growing with the bound, and bounds that
 * are not ascending refused untouched.
 */
/* @h holds each of @lo..@hi once (and nothing else). */
static void hist_of_range(struct ipp_hist *h, uint64_t lo, uint64_t hi)
{
	ipp_hist_init(h);
	for (uint64_t v = lo; v <= hi; v++)
		ipp_hist_add(h, v);
}

START_TEST(test_count_le)
{
	static const uint64_t small[] = { 0, 4, 5, 31 };
	uint64_t out[64], bnd[64];
	struct ipp_hist h;

	ipp_hist_init(&h);
	ck_assert(ipp_hist_count_le(&h, small, 4, out));
	for (int i = 0; i < 4; i++)
		ck_assert_uint_eq(out[i], 0);
	for (uint64_t v = 1; v <= 10; v++)
		ipp_hist_add(&h, v);
	ck_assert(ipp_hist_count_le(&h, small, 4, out));
	ck_assert_uint_eq(out[0], 0);
	ck_assert_uint_eq(out[1], 4);
	ck_assert_uint_eq(out[2], 5);
	ck_assert_uint_eq(out[3], 10);

	/* 1..100000: the count at b is b, but for the samples of b's bucket. */
	hist_of_range(&h, 1, 100000);
	for (int i = 0; i < 64; i++)
		bnd[i] = (uint64_t)i * i * 25 + 1;
	ck_assert(ipp_hist_count_le(&h, bnd, 64, out));
	for (int i = 0; i < 64; i++) {
		uint64_t b = bnd[i] > 100000 ? 100000 : bnd[i];

		ck_assert_uint_le(out[i] > b ? out[i] - b : b - out[i], b / 32 + 1);
		if (i)
			ck_assert_uint_ge(out[i], out[i - 1]);
		if (bnd[i] >= 100000)
			ck_assert_uint_eq(out[i], 100000);	/* past max: all, exactly */
	}
	/* A bound at a bucket's top is exact: [1024, 1055] is one bucket. */
	bnd[0] = 1055;
	ck_assert(ipp_hist_count_le(&h, bnd, 1, out));
	ck_assert_uint_eq(out[0], 1055);

	bnd[0] = 10;
	bnd[1] = 5;
	out[0] = out[1] = 77;
	ck_assert(!ipp_hist_count_le(&h, bnd, 2, out));
	ck_assert_uint_eq(out[0], 77);
}
END_TEST

Suite *hist_suite(void);	/* until suites.h declares it */

/* ceil(p / 100 * n) clamped to [1, n], written out to need no libm. */
static size_t rank_of(double p, size_t n)
{
	double x = p / 100.0 * (double)n;
	size_t r = (size_t)x;
	if ((double)r < x)
		r++;
	return r < 1 ? 1 : r > n ? n : r;
}

/* Nearest-rank percentile of a sorted array: the definition ipp_hist_percentile follows. */
static uint64_t exact_percentile(const uint64_t *sorted, size_t n, double p)
{
	if (p <= 0)
		return sorted[0];
	return sorted[rank_of(p, n) - 1];
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* xorshift64*: deterministic, so a failure reproduces. */
static uint64_t rng_state = 88172645463325252ull;
static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

START_TEST(test_empty)
{
	struct ipp_hist h;
	ipp_hist_init(&h);
	ck_assert_uint_eq(ipp_hist_count(&h), 0);
	ck_assert_uint_eq(ipp_hist_min(&h), 0);
	ck_assert_uint_eq(ipp_hist_max(&h), 0);
	ck_assert_uint_eq(ipp_hist_avg(&h), 0);
	ck_assert_uint_eq(ipp_hist_sum(&h), 0);
	ck_assert_uint_eq(ipp_hist_percentile(&h, 0), 0);
	ck_assert_uint_eq(ipp_hist_percentile(&h, 50), 0);
	ck_assert_uint_eq(ipp_hist_percentile(&h, 100), 0);
	ck_assert(!ipp_hist_saturated(&h));
}
END_TEST

START_TEST(test_exact_stats)
{
	static const uint64_t v[] = { 700, 3, 12345, 99, 1000000007, 3, 64 };
	struct ipp_hist h;
	uint64_t sum = 0;

	ipp_hist_init(&h);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		ipp_hist_add(&h, v[i]);
		sum += v[i];
	}
	ck_assert_uint_eq(ipp_hist_count(&h), 7);
	ck_assert_uint_eq(ipp_hist_min(&h), 3);
	ck_assert_uint_eq(ipp_hist_max(&h), 1000000007);
	ck_assert_uint_eq(ipp_hist_sum(&h), sum);
	ck_assert_uint_eq(ipp_hist_avg(&h), sum / 7);	/* floor */
	ck_assert_uint_eq(ipp_hist_percentile(&h, 0), 3);
	ck_assert_uint_eq(ipp_hist_percentile(&h, 100), 1000000007);
}
END_TEST

/*
 * A histogram cleared is a new one, byte for byte, whatever it held: its
 * buckets from its min's to its max's zeroed are all it had (lib/stats
 * keeps cleared ones for the next incarnations).
 */
START_TEST(test_clear)
{
	static const uint64_t v[] = { 0, 31, 32, 1000, 1001, 123456789, UINT64_MAX };
	struct ipp_hist *fresh = malloc(sizeof(*fresh)), *h = malloc(sizeof(*h)), *src;

	ck_assert_ptr_nonnull(fresh);
	ck_assert_ptr_nonnull(h);
	ipp_hist_init(fresh);
	ipp_hist_init(h);
	ipp_hist_clear(h);
	ck_assert_int_eq(memcmp(h, fresh, sizeof(*h)), 0);
	for (size_t n = 1; n <= sizeof(v) / sizeof(v[0]); n++) {
		for (size_t i = 0; i < n; i++)
			ipp_hist_add(h, v[(i * 5 + n) % n]);
		ipp_hist_clear(h);
		ck_assert_int_eq(memcmp(h, fresh, sizeof(*h)), 0);
	}
	/* merged into, and saturated */
	src = malloc(sizeof(*src));
	ck_assert_ptr_nonnull(src);
	ipp_hist_init(src);
	ipp_hist_add(src, 7);
	ipp_hist_add(src, 1u << 20);
	ipp_hist_add(h, 500);
	ipp_hist_merge(h, src);
	h->bucket[ipp_hist_index(500)] = UINT32_MAX;
	h->saturated = true;
	ipp_hist_clear(h);
	ck_assert_int_eq(memcmp(h, fresh, sizeof(*h)), 0);
	ck_assert_uint_eq(ipp_hist_count(h), 0);
	ck_assert_uint_eq(ipp_hist_min(h), 0);
	free(src);
	free(h);
	free(fresh);
}
END_TEST

/* Buckets tile 0..UINT64_MAX without gaps, and half a width is <= 1/64 of the low bound. */
START_TEST(test_bucket_layout)
{
	uint64_t prev_hi = 0;

	ck_assert_uint_eq(IPP_HIST_BUCKETS, 1920);
	for (unsigned int i = 0; i < IPP_HIST_BUCKETS; i++) {
		uint64_t lo, hi;
		ipp_hist_bucket_bounds(i, &lo, &hi);
		if (i == 0)
			ck_assert_uint_eq(lo, 0);
		else
			ck_assert_uint_eq(lo, prev_hi + 1);
		ck_assert_uint_ge(hi, lo);
		ck_assert_uint_eq(ipp_hist_index(lo), i);
		ck_assert_uint_eq(ipp_hist_index(hi), i);
		ck_assert_uint_eq(ipp_hist_index(lo + (hi - lo) / 2), i);
		ck_assert_uint_le((hi - lo + 1) / 2, lo / 64);
		prev_hi = hi;
	}
	ck_assert_uint_eq(prev_hi, UINT64_MAX);
	ck_assert_uint_eq(ipp_hist_index(UINT64_MAX), IPP_HIST_BUCKETS - 1);
	ck_assert_uint_eq(ipp_hist_index(0), 0);
	ck_assert_uint_eq(ipp_hist_index(31), 31);
	ck_assert_uint_eq(ipp_hist_index(32), 32);
	ck_assert_uint_eq(ipp_hist_index(63), 63);
	/* "a few KiB": the bucket array dominates. */
	ck_assert_uint_le(sizeof(struct ipp_hist), 8 * 1024);
}
END_TEST

START_TEST(test_uniform_1_10000)
{
	struct ipp_hist h;

	hist_of_range(&h, 1, 10000);
	ck_assert_uint_eq(ipp_hist_count(&h), 10000);
	ck_assert_uint_eq(ipp_hist_min(&h), 1);
	ck_assert_uint_eq(ipp_hist_max(&h), 10000);
	ck_assert_uint_eq(ipp_hist_avg(&h), 5000);	/* 50005000 / 10000 = 5000.5 */
	ck_assert_within_64th(ipp_hist_percentile(&h, 50), 5000);
	ck_assert_within_64th(ipp_hist_percentile(&h, 99), 9900);
	ck_assert_within_64th(ipp_hist_percentile(&h, 99.9), 9990);
	ck_assert_within_64th(ipp_hist_percentile(&h, 1), 100);
	ck_assert_uint_eq(ipp_hist_percentile(&h, 0.001), 1);	/* rank 1: exact bucket */
	ck_assert_uint_eq(ipp_hist_percentile(&h, 0.5), 50);	/* < 64: exact buckets */
	ck_assert_uint_eq(ipp_hist_percentile(&h, 0), 1);
	ck_assert_uint_eq(ipp_hist_percentile(&h, 100), 10000);
	for (double p = 0.5; p < 100; p += 0.5)
		ck_assert_within_64th(ipp_hist_percentile(&h, p),
				      rank_of(p, 10000));
}
END_TEST

/* Log-spread random values over the whole range: every percentile within 1/64. */
START_TEST(test_random_spread)
{
	enum { N = 200000 };
	uint64_t *v = malloc(N * sizeof(*v));
	struct ipp_hist h;

	ck_assert_ptr_nonnull(v);
	ipp_hist_init(&h);
	for (size_t i = 0; i < N; i++) {
		v[i] = rng() >> (rng() % 64);	/* every magnitude */
		ipp_hist_add(&h, v[i]);
	}
	qsort(v, N, sizeof(*v), cmp_u64);
	ck_assert_uint_eq(ipp_hist_min(&h), v[0]);
	ck_assert_uint_eq(ipp_hist_max(&h), v[N - 1]);

	uint64_t prev = 0;
	for (double p = 0; p <= 100; p += 0.25) {
		uint64_t est = ipp_hist_percentile(&h, p);
		ck_assert_within_64th(est, exact_percentile(v, N, p));
		ck_assert_uint_ge(est, prev);	/* monotonic in p */
		prev = est;
	}
	free(v);
}
END_TEST

START_TEST(test_single_value)
{
	static const uint64_t vals[] = { 0, 1, 31, 32, 63, 64, 1000, 12345678,
					 UINT64_C(1) << 63, UINT64_MAX };
	static const double ps[] = { 0, 0.001, 1, 25, 50, 90, 99, 99.99, 100 };

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		struct ipp_hist h;
		ipp_hist_init(&h);
		ipp_hist_add(&h, vals[i]);
		ipp_hist_add(&h, vals[i]);
		ipp_hist_add(&h, vals[i]);
		ck_assert_uint_eq(ipp_hist_count(&h), 3);
		ck_assert_uint_eq(ipp_hist_min(&h), vals[i]);
		ck_assert_uint_eq(ipp_hist_max(&h), vals[i]);
		ck_assert_uint_eq(ipp_hist_avg(&h), vals[i]);
		for (size_t j = 0; j < sizeof(ps) / sizeof(ps[0]); j++)
			ck_assert_uint_eq(ipp_hist_percentile(&h, ps[j]), vals[i]);
	}
}
END_TEST

START_TEST(test_huge_values)
{
	struct ipp_hist h;

	/* 2^64 - 1 three times: the sum needs 66 bits. */
	ipp_hist_init(&h);
	for (int i = 0; i < 3; i++)
		ipp_hist_add(&h, UINT64_MAX);
	ck_assert_uint_eq(ipp_hist_avg(&h), UINT64_MAX);
	ck_assert_uint_eq(ipp_hist_sum(&h), UINT64_MAX);	/* saturated */
	ck_assert_uint_eq(ipp_hist_percentile(&h, 50), UINT64_MAX);

	/* (2^64 - 1 + 1) / 2 = 2^63 exactly. */
	ipp_hist_init(&h);
	ipp_hist_add(&h, UINT64_MAX);
	ipp_hist_add(&h, 1);
	ck_assert_uint_eq(ipp_hist_avg(&h), UINT64_C(1) << 63);

	/* 2^63 + 2^63 + 0 = 2^64: floor(2^64 / 3). */
	ipp_hist_init(&h);
	ipp_hist_add(&h, UINT64_C(1) << 63);
	ipp_hist_add(&h, UINT64_C(1) << 63);
	ipp_hist_add(&h, 0);
	ck_assert_uint_eq(ipp_hist_avg(&h), UINT64_C(6148914691236517205));
	ck_assert_uint_eq(ipp_hist_min(&h), 0);
	ck_assert_uint_eq(ipp_hist_max(&h), UINT64_C(1) << 63);
	ck_assert_uint_eq(ipp_hist_percentile(&h, 50), UINT64_C(1) << 63);
	ck_assert_uint_eq(ipp_hist_percentile(&h, 33), 0);

	/* Many huge values: still exact. 1000 * (2^64 - 1000) / 1000. */
	ipp_hist_init(&h);
	for (int i = 0; i < 1000; i++)
		ipp_hist_add(&h, UINT64_MAX - 999);
	ck_assert_uint_eq(ipp_hist_avg(&h), UINT64_MAX - 999);
	ck_assert_within_64th(ipp_hist_percentile(&h, 50), UINT64_MAX - 999);
}
END_TEST

/* The 128-bit long division against the compiler's own 128-bit arithmetic. */
START_TEST(test_avg_random)
{
#ifdef __SIZEOF_INT128__
	for (int round = 0; round < 200; round++) {
		struct ipp_hist h;
		unsigned __int128 sum = 0;
		int n = 1 + (int)(rng() % 50);

		ipp_hist_init(&h);
		for (int i = 0; i < n; i++) {
			uint64_t v = round % 2 ? UINT64_MAX - (rng() >> (rng() % 64)) : rng();
			ipp_hist_add(&h, v);
			sum += v;
		}
		ck_assert_uint_eq(ipp_hist_avg(&h), (uint64_t)(sum / (unsigned)n));
		ck_assert_uint_eq(ipp_hist_sum(&h), sum >> 64 ? UINT64_MAX : (uint64_t)sum);
	}
#endif
}
END_TEST

START_TEST(test_merge)
{
	struct ipp_hist a, b, all, empty;

	ipp_hist_init(&a);
	ipp_hist_init(&b);
	ipp_hist_init(&all);
	ipp_hist_init(&empty);
	for (int i = 0; i < 50000; i++) {
		uint64_t v = rng() >> (rng() % 64);
		ipp_hist_add(i % 3 ? &a : &b, v);
		ipp_hist_add(&all, v);
	}
	ipp_hist_add(&b, UINT64_MAX);
	ipp_hist_add(&all, UINT64_MAX);

	ipp_hist_merge(&a, &b);
	ck_assert_mem_eq(&a, &all, sizeof(a));
	ipp_hist_merge(&a, &empty);
	ck_assert_mem_eq(&a, &all, sizeof(a));
	ipp_hist_merge(&empty, &all);
	ck_assert_mem_eq(&empty, &all, sizeof(a));
	ck_assert_uint_eq(ipp_hist_avg(&a), ipp_hist_avg(&all));
	ck_assert_uint_eq(ipp_hist_percentile(&a, 99), ipp_hist_percentile(&all, 99));
}
END_TEST

/*
 * A packed histogram holds the buckets from its min's to its max's and
 * merges as the dense one: 1000 calls of 2-9 us span some 70 buckets (32
 * sub-buckets an octave), a few hundred bytes instead of ~7.7 KB.
 */
/*
 * 1000 samples from @lo to @lo + @span into @h, the same split between @a
 * (all but every @nth) and @b (every @nth).
 */
static void fill_split(struct ipp_hist *h, struct ipp_hist *a, struct ipp_hist *b, uint64_t lo,
		       uint64_t span, int nth)
{
	ipp_hist_init(h);
	ipp_hist_init(a);
	ipp_hist_init(b);
	for (int i = 0; i < 1000; i++) {
		uint64_t v = lo + rng() % span;

		ipp_hist_add(h, v);
		ipp_hist_add(i % nth ? a : b, v);
	}
}

START_TEST(test_packed)
{
	struct ipp_hist h, a, b, empty;
	struct ipp_hist_packed *p;

	ipp_hist_init(&empty);
	fill_split(&h, &a, &b, 2000, 7000, 2);
	p = ipp_hist_pack(&h);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p->first, ipp_hist_index(h.min));
	ck_assert_uint_eq(p->n, ipp_hist_index(h.max) - ipp_hist_index(h.min) + 1);
	ck_assert_uint_le(sizeof(*p) + p->n * sizeof(p->bucket[0]), 600);
	/* into an empty one: the same histogram; into half of it: the whole */
	ipp_hist_merge_packed(&empty, p);
	ck_assert_mem_eq(&empty, &h, sizeof(h));
	free(p);
	p = ipp_hist_pack(&b);
	ck_assert_ptr_nonnull(p);
	ipp_hist_merge_packed(&a, p);
	ck_assert_mem_eq(&a, &h, sizeof(h));
	free(p);
	/* an empty one packs to nothing, and that is no error */
	ipp_hist_init(&empty);
	errno = EINVAL;
	ck_assert_ptr_null(ipp_hist_pack(&empty));
	ck_assert_int_eq(errno, 0);
}
END_TEST

/* Unpacked: the same histogram as was packed, the packed one freed; from none, an empty one. */
START_TEST(test_unpack)
{
	struct ipp_hist h, empty;
	struct ipp_hist_packed *p = NULL;
	struct ipp_hist *u;

	ipp_hist_init(&h);
	ipp_hist_init(&empty);
	for (int i = 0; i < 1000; i++)
		ipp_hist_add(&h, 100 + rng() % 90000);
	u = ipp_hist_unpack(&p);
	ck_assert_ptr_nonnull(u);
	ck_assert_mem_eq(u, &empty, sizeof(empty));
	free(u);
	p = ipp_hist_pack(&h);
	ck_assert_ptr_nonnull(p);
	u = ipp_hist_unpack(&p);
	ck_assert_ptr_nonnull(u);
	ck_assert_ptr_null(p);
	ck_assert_mem_eq(u, &h, sizeof(h));
	ck_assert_uint_eq(ipp_hist_count(u), 1000);
	free(u);
}
END_TEST

/*
 * Folded into a packed one: a dense half and a packed half give the whole;
 * the dense view of it is the whole too, and a dense one is its own view.
 */
START_TEST(test_fold_dense)
{
	struct ipp_hist h, a, b, scratch;
	struct ipp_hist_packed *dst = NULL, *pb;

	fill_split(&h, &a, &b, 300, 50000, 3);
	pb = ipp_hist_pack(&b);
	ck_assert_ptr_nonnull(pb);
	ck_assert_int_eq(ipp_hist_fold(&dst, &a, NULL, &scratch), 0);
	ck_assert_uint_eq(dst->count, ipp_hist_count(&a));
	ck_assert_int_eq(ipp_hist_fold(&dst, NULL, pb, &scratch), 0);
	ck_assert_uint_eq(dst->count, 1000);
	ck_assert_ptr_eq(ipp_hist_dense(NULL, dst, &scratch), &scratch);
	ck_assert_mem_eq(&scratch, &h, sizeof(h));
	ck_assert_ptr_eq(ipp_hist_dense(&a, dst, &scratch), &a);
	/* nothing to fold: no packed histogram, *dst kept */
	ipp_hist_init(&b);
	ck_assert_int_eq(ipp_hist_fold(&pb, &b, NULL, &scratch), 0);
	ck_assert_uint_eq(pb->count, 1000 - ipp_hist_count(&a));
	free(pb);
	pb = NULL;
	ck_assert_int_eq(ipp_hist_fold(&pb, &b, NULL, &scratch), -ENOMEM);
	ck_assert_ptr_null(pb);
	free(dst);
}
END_TEST

/* Two packed histograms alike, field by field (not their padding). */
static void ck_packed_eq(const struct ipp_hist_packed *x, const struct ipp_hist_packed *y)
{
	ck_assert_uint_eq(x->count, y->count);
	ck_assert_uint_eq(x->sum_lo, y->sum_lo);
	ck_assert_uint_eq(x->sum_hi, y->sum_hi);
	ck_assert_uint_eq(x->min, y->min);
	ck_assert_uint_eq(x->max, y->max);
	ck_assert_uint_eq(x->bucketed, y->bucketed);
	ck_assert_int_eq(x->saturated, y->saturated);
	ck_assert_uint_eq(x->first, y->first);
	ck_assert_uint_eq(x->n, y->n);
	ck_assert_mem_eq(x->bucket, y->bucket, x->n * sizeof(x->bucket[0]));
}

/*
 * A packed histogram added into one whose buckets cover it: in place, the
 * same bytes as packing the whole; one that reaches outside is refused and
 * leaves it as it was.
 */
START_TEST(test_packed_in_place)
{
	struct ipp_hist h, a, b;
	struct ipp_hist_packed *pa, *pb, *ph, *again;

	ipp_hist_init(&h);
	ipp_hist_init(&a);
	ipp_hist_init(&b);
	for (int i = 0; i < 1000; i++) {
		uint64_t v = i < 2 ? 2000 + 7000 * (uint64_t)i : 3000 + rng() % 5000;

		ipp_hist_add(&h, v);
		ipp_hist_add(i < 2 || i % 2 ? &a : &b, v);
	}
	pa = ipp_hist_pack(&a);
	pb = ipp_hist_pack(&b);
	ph = ipp_hist_pack(&h);
	ck_assert_ptr_nonnull(pa);
	ck_assert_ptr_nonnull(pb);
	ck_assert_ptr_nonnull(ph);
	ck_assert(!ipp_hist_add_packed(pb, pa));
	again = ipp_hist_pack(&b);
	ck_assert_ptr_nonnull(again);
	ck_packed_eq(pb, again);
	ck_assert(ipp_hist_add_packed(pa, pb));
	ck_packed_eq(pa, ph);
	free(pa);
	free(pb);
	free(ph);
	free(again);
}
END_TEST

START_TEST(test_bad_p)
{
	struct ipp_hist h;

	hist_of_range(&h, 100, 200);
	ck_assert_uint_eq(ipp_hist_percentile(&h, -5), 100);
	ck_assert_uint_eq(ipp_hist_percentile(&h, NAN), 100);
	ck_assert_uint_eq(ipp_hist_percentile(&h, 250), 200);
	ck_assert_uint_eq(ipp_hist_percentile(&h, INFINITY), 200);
}
END_TEST

/* A bucket at UINT32_MAX stops counting; count and sum stay exact. */
START_TEST(test_saturation)
{
	struct ipp_hist h, m;
	unsigned int idx = ipp_hist_index(1000);

	ipp_hist_init(&h);
	ipp_hist_add(&h, 1000);
	/* Pretend 2^32 - 2 samples of 1000 were added (minus the one just added). */
	h.bucket[idx] = UINT32_MAX - 1;
	h.bucketed = UINT32_MAX - 1;
	h.count = UINT32_MAX - 1;
	h.sum_lo = (uint64_t)(UINT32_MAX - 1) * 1000;

	ipp_hist_add(&h, 1000);
	ck_assert(!ipp_hist_saturated(&h));
	ck_assert_uint_eq(h.bucket[idx], UINT32_MAX);
	ipp_hist_add(&h, 1000);
	ck_assert(ipp_hist_saturated(&h));
	ck_assert_uint_eq(h.bucket[idx], UINT32_MAX);
	ck_assert_uint_eq(ipp_hist_count(&h), (uint64_t)UINT32_MAX + 1);
	ck_assert_uint_eq(ipp_hist_avg(&h), 1000);
	ck_assert_within_64th(ipp_hist_percentile(&h, 50), 1000);

	/* Merging a saturated bucket into a non-empty one saturates too. */
	ipp_hist_init(&m);
	ipp_hist_add(&m, 1000);
	ipp_hist_add(&m, 5);
	ipp_hist_merge(&m, &h);
	ck_assert(ipp_hist_saturated(&m));
	ck_assert_uint_eq(m.bucket[idx], UINT32_MAX);
	ck_assert_uint_eq(ipp_hist_count(&m), (uint64_t)UINT32_MAX + 3);
	ck_assert_uint_eq(ipp_hist_min(&m), 5);
	ck_assert_within_64th(ipp_hist_percentile(&m, 50), 1000);
}
END_TEST

Suite *hist_suite(void)
{
	Suite *s = suite_create("hist");
	TCase *tc = tcase_create("hist");

	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_exact_stats);
	tcase_add_test(tc, test_bucket_layout);
	tcase_add_test(tc, test_uniform_1_10000);
	tcase_add_test(tc, test_random_spread);
	tcase_add_test(tc, test_single_value);
	tcase_add_test(tc, test_huge_values);
	tcase_add_test(tc, test_avg_random);
	tcase_add_test(tc, test_merge);
	tcase_add_test(tc, test_packed);
	tcase_add_test(tc, test_packed_in_place);
	tcase_add_test(tc, test_unpack);
	tcase_add_test(tc, test_fold_dense);
	tcase_add_test(tc, test_bad_p);
	tcase_add_test(tc, test_saturation);
	tcase_add_test(tc, test_count_le);
	tcase_add_test(tc, test_clear);
	suite_add_tcase(s, tc);
	return s;
}
