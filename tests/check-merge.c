/*
 * Unit tests of merge.c: records pushed from several rings, out of order,
 * come out by timestamp; equal timestamps in push order; nothing newer than
 * the horizon; every byte and header field copied in.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>

#include "internal.h"
#include "pipeline/merge.h"
#include "suites.h"

#define PERF_RECORD_SAMPLE_TYPE 9u	/* PERF_RECORD_SAMPLE */

/* Push a record whose data is the u32 @tag, so the order can be checked. */
static void push_tag(struct ipp_merge *m, uint64_t time, int cpu, uint32_t tag)
{
	ck_assert_int_eq(ipp_merge__push(m, &(struct ipp_mrec_in){
					 .time = time, .type = PERF_RECORD_SAMPLE_TYPE, .pid = 100,
					 .tid = 100 + cpu, .cpu = cpu, .data = &tag, .size = sizeof(tag) }),
			 0);
}

static uint32_t tag_of(const struct ipp_mrec *r)
{
	uint32_t tag;

	ck_assert_uint_eq(r->size, sizeof(tag));
	memcpy(&tag, r->data, sizeof(tag));
	return tag;
}

/* Deterministic pseudo-random numbers (Knuth's MMIX LCG), fixed seed. */
static uint64_t lcg_state;
static void lcg_seed(uint64_t seed) { lcg_state = seed; }
static uint32_t lcg(void)
{
	lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(lcg_state >> 33);
}

START_TEST(test_empty)
{
	struct ipp_merge *m = ipp_merge__new();

	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(ipp_merge__len(m), 0);
	ck_assert_ptr_null(ipp_merge__pop(m, UINT64_MAX));
	ck_assert_ptr_null(ipp_merge__pop(m, 0));
	ipp_merge__delete(m);
	ipp_merge__delete(NULL);
}
END_TEST

/*
 * Three rings, each in time order on its own, pushed interleaved the way a
 * reader drains one ring after another: the merge gives one global order.
 */
START_TEST(test_three_rings)
{
	struct ipp_merge *m = ipp_merge__new();
	/* time, cpu (ring), tag = expected position */
	static const struct { uint64_t time; int cpu; uint32_t tag; } in[] = {
		{ 1000, 0, 1 }, { 1400, 0, 5 }, { 1900, 0, 8 },
		{ 900, 1, 0 }, { 1300, 1, 4 }, { 2000, 1, 9 },
		{ 1100, 2, 2 }, { 1200, 2, 3 }, { 1500, 2, 6 }, { 1800, 2, 7 },
		{ 2500, 0, 11 }, { 2100, 1, 10 }, { 3000, 2, 12 },
	};
	const struct ipp_mrec *r;
	uint64_t last = 0;
	uint32_t n = 0;

	ck_assert_ptr_nonnull(m);
	for (size_t i = 0; i < IPP_ARRAY_SIZE(in); i++) {
		push_tag(m, in[i].time, in[i].cpu, in[i].tag);
		ck_assert_uint_eq(ipp_merge__len(m), i + 1);
	}
	while ((r = ipp_merge__pop(m, UINT64_MAX))) {
		ck_assert_uint_ge(r->time, last);
		last = r->time;
		ck_assert_uint_eq(tag_of(r), n);
		n++;
		ck_assert_uint_eq(ipp_merge__len(m), IPP_ARRAY_SIZE(in) - n);
	}
	ck_assert_uint_eq(n, IPP_ARRAY_SIZE(in));
	ck_assert_uint_eq(ipp_merge__len(m), 0);
	ipp_merge__delete(m);
}
END_TEST

/* Equal timestamps come out in push order, whichever ring they came from. */
START_TEST(test_ties_in_push_order)
{
	struct ipp_merge *m = ipp_merge__new();
	const struct ipp_mrec *r;
	uint64_t prev_seq = 0;

	ck_assert_ptr_nonnull(m);
	push_tag(m, 500, 2, 3);
	push_tag(m, 100, 0, 0);
	push_tag(m, 500, 0, 4);
	push_tag(m, 200, 1, 1);
	push_tag(m, 500, 1, 5);
	push_tag(m, 200, 2, 2);
	push_tag(m, 500, 2, 6);
	for (uint32_t want = 0; want < 7; want++) {
		r = ipp_merge__pop(m, UINT64_MAX);
		ck_assert_ptr_nonnull(r);
		ck_assert_uint_eq(tag_of(r), want);
		if (want == 4 || want == 5 || want == 6)
			ck_assert_uint_gt(r->seq, prev_seq);
		prev_seq = r->seq;
	}
	ck_assert_ptr_null(ipp_merge__pop(m, UINT64_MAX));
	ipp_merge__delete(m);
}
END_TEST

START_TEST(test_horizon)
{
	struct ipp_merge *m = ipp_merge__new();
	const struct ipp_mrec *r;

	ck_assert_ptr_nonnull(m);
	push_tag(m, 40, 0, 40);
	push_tag(m, 10, 1, 10);
	push_tag(m, 30, 2, 30);
	push_tag(m, 20, 0, 20);

	ck_assert_ptr_null(ipp_merge__pop(m, 9));
	ck_assert_uint_eq(ipp_merge__len(m), 4);

	r = ipp_merge__pop(m, 25);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->time, 10);
	ck_assert_uint_eq(tag_of(r), 10);
	r = ipp_merge__pop(m, 25);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->time, 20);
	ck_assert_ptr_null(ipp_merge__pop(m, 25));
	ck_assert_ptr_null(ipp_merge__pop(m, 25));
	ck_assert_uint_eq(ipp_merge__len(m), 2);

	/* the horizon is inclusive */
	r = ipp_merge__pop(m, 30);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->time, 30);
	ck_assert_ptr_null(ipp_merge__pop(m, 30));
	ck_assert_uint_eq(ipp_merge__len(m), 1);

	/* a record older than the last one popped still comes out */
	push_tag(m, 5, 1, 5);
	ck_assert_uint_eq(ipp_merge__len(m), 2);
	r = ipp_merge__pop(m, 30);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->time, 5);
	ck_assert_ptr_null(ipp_merge__pop(m, 30));

	r = ipp_merge__pop(m, UINT64_MAX);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->time, 40);
	ck_assert_ptr_null(ipp_merge__pop(m, UINT64_MAX));
	ck_assert_uint_eq(ipp_merge__len(m), 0);
	ipp_merge__delete(m);
}
END_TEST

/* A record's header fields as text, into @buf. */
static const char *header_str(char *buf, size_t len, uint64_t time, uint32_t type, uint32_t misc,
			      pid_t pid, pid_t tid, int cpu, uint32_t size)
{
	snprintf(buf, len, "time %" PRIu64 " type %" PRIu32 " misc %#" PRIx32 " pid %d tid %d cpu %d"
		 " size %" PRIu32, time, type, misc, (int)pid, (int)tid, cpu, size);
	return buf;
}

/* The next record popped has @want's header fields, size and bytes. */
static void expect_pop(struct ipp_merge *m, const struct ipp_mrec_in *want)
{
	const struct ipp_mrec *r = ipp_merge__pop(m, UINT64_MAX);
	char got_s[160], want_s[160];

	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(header_str(got_s, sizeof(got_s), r->time, r->type, r->misc, r->pid, r->tid,
				    r->cpu, r->size),
			 header_str(want_s, sizeof(want_s), want->time, want->type, want->misc,
				    want->pid, want->tid, want->cpu, want->size));
	if (want->size)
		ck_assert_int_eq(memcmp(r->data, want->data, want->size), 0);
}

/* Every header field and data byte is copied at push: the source can change. */
START_TEST(test_copies_record)
{
	struct ipp_merge *m = ipp_merge__new();
	unsigned char buf[300], want[300];
	static const unsigned char small[3] = { 0xde, 0xad, 0x01 };

	ck_assert_ptr_nonnull(m);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 7 + 1);
	memcpy(want, buf, sizeof(buf));
	ck_assert_int_eq(ipp_merge__push(m, &(struct ipp_mrec_in){
					 .time = 777, .type = 9 /* SAMPLE */, .misc = 0x2 /* USER */,
					 .pid = 4321, .tid = 4322, .cpu = 3, .data = buf, .size = sizeof(buf) }),
			 0);
	ck_assert_int_eq(ipp_merge__push(m, &(struct ipp_mrec_in){
					 .time = 778, .type = 2 /* LOST */, .pid = -1, .tid = -1, .cpu = 7,
					 .data = small, .size = 3 }),
			 0);
	ck_assert_int_eq(ipp_merge__push(m, &(struct ipp_mrec_in){
					 .time = 779, .type = 14 /* FORK */, .misc = 0x8000, .pid = 1,
					 .tid = 2, .cpu = 0, .data = small, .size = 0 }),
			 0);
	memset(buf, 0xee, sizeof(buf));

	expect_pop(m, &(struct ipp_mrec_in){ .time = 777, .type = 9, .misc = 0x2, .pid = 4321,
					     .tid = 4322, .cpu = 3, .data = want, .size = sizeof(want) });
	expect_pop(m, &(struct ipp_mrec_in){ .time = 778, .type = 2, .misc = 0, .pid = -1, .tid = -1,
					     .cpu = 7, .data = small, .size = 3 });
	expect_pop(m, &(struct ipp_mrec_in){ .time = 779, .type = 14, .misc = 0x8000, .pid = 1,
					     .tid = 2, .cpu = 0, .size = 0 });
	ck_assert_ptr_null(ipp_merge__pop(m, UINT64_MAX));
	ipp_merge__delete(m);
}
END_TEST

/* A record handed out stays intact until the next call, even a large one. */
START_TEST(test_large_record)
{
	struct ipp_merge *m = ipp_merge__new();
	const uint32_t size = 65536;
	unsigned char *buf = malloc(size);
	const struct ipp_mrec *r;

	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(buf);
	for (uint32_t i = 0; i < size; i++)
		buf[i] = (unsigned char)(i ^ (i >> 8));
	ck_assert_int_eq(ipp_merge__push(m, &(struct ipp_mrec_in){
					 .time = 1, .type = 9, .pid = 1, .tid = 1, .cpu = 0, .data = buf,
					 .size = size }),
			 0);
	push_tag(m, 2, 0, 2);
	r = ipp_merge__pop(m, UINT64_MAX);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->size, size);
	ck_assert_int_eq(memcmp(r->data, buf, size), 0);
	free(buf);
	ipp_merge__delete(m);
}
END_TEST

/*
 * Records of the size of the kernel's fd summaries (2 KiB: pooled big
 * blocks) and small ones, pushed out of order over several rounds so that
 * blocks are given back and taken again: each pops in order, its bytes its own.
 */
START_TEST(test_summary_sized_reused)
{
	struct ipp_merge *m = ipp_merge__new();
	enum { SIZE = 2144, PER = 64 };
	unsigned char buf[SIZE];
	const struct ipp_mrec *r;

	ck_assert_ptr_nonnull(m);
	for (uint32_t round = 0; round < 4; round++) {
		for (uint32_t i = 0; i < PER; i++) {
			uint64_t t = 1000 * round + (i * 37) % PER;

			memset(buf, (int)(t & 0xff), sizeof(buf));
			if (i % 3 == 0)
				push_tag(m, t, (int)(i % 4), (uint32_t)t);
			else
				ck_assert_int_eq(ipp_merge__push(m, &(struct ipp_mrec_in){
								 .time = t, .type = 9, .pid = 1, .tid = 1,
								 .cpu = (int)(i % 4), .data = buf, .size = SIZE }),
						 0);
		}
		for (uint32_t i = 0; i < PER; i++) {
			r = ipp_merge__pop(m, UINT64_MAX);
			ck_assert_ptr_nonnull(r);
			ck_assert_uint_eq(r->time, 1000 * round + i);
			if (r->size == SIZE) {
				ck_assert_uint_eq(r->data[0], (r->time & 0xff));
				ck_assert_uint_eq(r->data[SIZE - 1], (r->time & 0xff));
			} else {
				ck_assert_uint_eq(tag_of(r), r->time);
			}
		}
		ck_assert_ptr_null(ipp_merge__pop(m, UINT64_MAX));
	}
	ipp_merge__delete(m);
}
END_TEST

/* What came out of a merge so far: the last record, and how many. */
struct popped {
	uint64_t time, seq;
	uint32_t tag;
	size_t n;
};

/*
 * NULL when @r may come out after what @o saw (times never go back, equal
 * times in push order), and @o takes it; else what is wrong.
 */
static const char *popped_next(struct popped *o, const struct ipp_mrec *r)
{
	uint32_t tag = tag_of(r);

	if (o->n > 0 && r->time < o->time)
		return "time went backwards";
	if (o->n > 0 && r->time == o->time && (tag <= o->tag || r->seq <= o->seq))
		return "equal times out of push order";
	o->time = r->time;
	o->tag = tag;
	o->seq = r->seq;
	o->n++;
	return NULL;
}

/* 100k records with many equal timestamps, all pushed then all popped. */
START_TEST(test_random_100k)
{
	enum { N = 100000 };
	struct ipp_merge *m = ipp_merge__new();
	uint64_t *times = malloc(N * sizeof(*times));
	unsigned char *seen = calloc(N, 1);
	const struct ipp_mrec *r;
	struct popped o = { .n = 0 };

	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(times);
	ck_assert_ptr_nonnull(seen);
	lcg_seed(20240601);
	for (uint32_t i = 0; i < N; i++) {
		times[i] = 1000000 + lcg() % 50000;	/* ~2 records per timestamp */
		push_tag(m, times[i], (int)(lcg() % 8), i);
	}
	ck_assert_uint_eq(ipp_merge__len(m), N);
	/*
	 * Plain comparisons in the loop, one assertion after it: each libcheck
	 * assertion costs a write to the parent process, 500k of them minutes
	 * on a loaded machine.
	 */
	const char *bad = NULL;

	while (!bad && (r = ipp_merge__pop(m, UINT64_MAX))) {
		uint32_t tag = tag_of(r);

		if (tag >= N)
			bad = "tag out of range";
		else if (seen[tag])
			bad = "record popped twice";
		else if (r->time != times[tag])
			bad = "time not the one pushed";
		else
			bad = popped_next(&o, r);
		if (bad)
			break;
		seen[tag] = 1;
	}
	ck_assert_msg(!bad, "record %zu: %s", o.n, bad ? bad : "");
	ck_assert_uint_eq(o.n, N);
	ck_assert_uint_eq(ipp_merge__len(m), 0);
	free(times);
	free(seen);
	ipp_merge__delete(m);
}
END_TEST

/*
 * The way a session uses it: rings drained in turns, each in its own time
 * order, popping up to the oldest "newest time" among the rings after each
 * round. Output must be one sorted stream with nothing lost.
 */
START_TEST(test_streaming_horizon)
{
	enum { RINGS = 3, PER_RING = 20000, N = RINGS * PER_RING };
	struct ipp_merge *m = ipp_merge__new();
	uint64_t now[RINGS] = { 0 };
	size_t left[RINGS] = { PER_RING, PER_RING, PER_RING };
	uint32_t tag = 0;
	uint64_t last = 0;
	size_t out = 0;
	const struct ipp_mrec *r;

	ck_assert_ptr_nonnull(m);
	lcg_seed(7);
	while (left[0] + left[1] + left[2] > 0) {
		uint64_t horizon = UINT64_MAX;

		for (int c = 0; c < RINGS; c++) {
			unsigned batch = lcg() % 50;

			for (; batch > 0 && left[c] > 0; batch--, left[c]--) {
				now[c] += lcg() % 100;
				push_tag(m, now[c], c, tag++);
			}
			/* a ring with nothing left no longer holds the horizon back */
			if (left[c] > 0 && now[c] < horizon)
				horizon = now[c];
		}
		while ((r = ipp_merge__pop(m, horizon))) {
			ck_assert_uint_le(r->time, horizon);
			ck_assert_uint_ge(r->time, last);
			last = r->time;
			out++;
		}
	}
	while ((r = ipp_merge__pop(m, UINT64_MAX))) {
		ck_assert_uint_ge(r->time, last);
		last = r->time;
		out++;
	}
	ck_assert_uint_eq(out, N);
	ck_assert_uint_eq(ipp_merge__len(m), 0);
	ipp_merge__delete(m);
}
END_TEST

/*
 * Mostly in time order, as a capture's rounds are, with late records now and
 * then and many equal times: the in-order ones take the FIFO, the late ones
 * the heap, and what comes out is still one stream sorted by time, equal
 * times in push order, whatever the horizon.
 */
START_TEST(test_mostly_in_order)
{
	enum { N = 50000 };
	struct ipp_merge *m = ipp_merge__new();
	const struct ipp_mrec *r;
	uint64_t now = 1000;
	struct popped o = { .n = 0 };
	const char *bad = NULL;

	ck_assert_ptr_nonnull(m);
	lcg_seed(99);
	for (uint32_t i = 0; i < N && !bad; i++) {
		uint64_t t;

		now += lcg() % 3;		/* many equal times */
		t = lcg() % 10 == 0 ? now - lcg() % 40 : now;	/* one in ten late */
		push_tag(m, t, (int)(i % 4), i);
		if (lcg() % 16 == 0 || i == N - 1) {
			uint64_t horizon = i == N - 1 ? UINT64_MAX : now - 50;

			while (!bad && (r = ipp_merge__pop(m, horizon)))
				bad = r->time > horizon ? "past the horizon" : popped_next(&o, r);
		}
	}
	ck_assert_msg(!bad, "record %zu: %s", o.n, bad ? bad : "");
	ck_assert_uint_eq(o.n, N);
	ck_assert_uint_eq(ipp_merge__len(m), 0);
	ipp_merge__delete(m);
}
END_TEST

Suite *merge_suite(void)
{
	Suite *s = suite_create("merge");
	TCase *tc = tcase_create("order");

	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_three_rings);
	tcase_add_test(tc, test_ties_in_push_order);
	tcase_add_test(tc, test_horizon);
	tcase_add_test(tc, test_copies_record);
	tcase_add_test(tc, test_large_record);
	tcase_add_test(tc, test_summary_sized_reused);
	tcase_add_test(tc, test_random_100k);
	tcase_add_test(tc, test_streaming_horizon);
	tcase_add_test(tc, test_mostly_in_order);
	suite_add_tcase(s, tc);
	return s;
}
