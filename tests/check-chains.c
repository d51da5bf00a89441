/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests of the flows' chains (lib/flows/chains.c): each flow's stage, and
 * which processes the chains wait on (the rule in chains.h), on hand-built
 * flows whose answers are worked out by hand.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>

#include "flows/chains.h"
#include "check-helpers.h"
#include "suites.h"

#define BP IPCPERF_VERDICT_BACKPRESSURE
#define CS IPCPERF_VERDICT_CONSUMER_STARVED
#define BAL IPCPERF_VERDICT_BALANCED

/* Pids live here: a flow points at them. */
static const pid_t P[] = { 0, 101, 102, 103, 104 };

/* One writer @w, one reader @r. */
static struct ipp_chain_flow flow(int w, int r, enum ipcperf_verdict v, uint64_t wb, uint64_t rb)
{
	return (struct ipp_chain_flow){ .writers = &P[w], .nr_writers = 1, .readers = &P[r],
					.nr_readers = 1, .verdict = v,
					.writer_blocked_ns = wb, .reader_blocked_ns = rb };
}

struct necks {
	struct ipcperf_bottleneck v[8];
	size_t n;
};

static int collect(void *ctx, const struct ipcperf_bottleneck *b)
{
	struct necks *nk = ctx;

	ck_assert_uint_lt(nk->n, 8);
	nk->v[nk->n++] = *b;
	return 0;
}

static struct necks necks_of(const struct ipp_chain_flow *v, size_t n)
{
	struct necks nk = { .n = 0 };

	ck_assert_int_eq(ipp_chains__bottlenecks(v, n, collect, &nk), 0);
	return nk;
}

/* The stage of each of the @n flows @v is @want's. */
static void expect_stages(const struct ipp_chain_flow *v, size_t n, const unsigned *want)
{
	unsigned stage[8];

	ck_assert_uint_le(n, 8);
	ck_assert_int_eq(ipp_chains__stages(v, n, stage), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(stage[i] == want[i], "flow %zu: stage %u, expected %u", i, stage[i],
			      want[i]);
}

/* The @n flows @v name one bottleneck, process @pid: returned for more checks. */
static struct necks one_neck(const struct ipp_chain_flow *v, size_t n, pid_t pid)
{
	struct necks nk = necks_of(v, n);

	ck_assert_uint_eq(nk.n, 1);
	ck_assert_int_eq(nk.v[0].pid, pid);
	return nk;
}

/* The @n flows @v name no bottleneck. */
static void no_neck(const struct ipp_chain_flow *v, size_t n)
{
	ck_assert_uint_eq(necks_of(v, n).n, 0);
}

/* a | b | c with a slow b: a waits to write into b, c waits to read from it. */
START_TEST(test_slow_middle)
{
	/* given out of order: the stage does not come from the order */
	struct ipp_chain_flow v[] = { flow(2, 3, CS, 5 * MS, 800 * MS),
				      flow(1, 2, BP, 900 * MS, 10 * MS) };
	struct necks nk;

	expect_stages(v, 2, (const unsigned[]){ 1, 0 });
	nk = one_neck(v, 2, 102);
	ck_assert_int_eq(nk.v[0].waits_to_write, 101);
	ck_assert_uint_eq(nk.v[0].write_wait_ns, 900 * MS);
	ck_assert_int_eq(nk.v[0].waits_to_read, 103);
	ck_assert_uint_eq(nk.v[0].read_wait_ns, 800 * MS);
}
END_TEST

/* The last stage slow: it is the bottleneck, nobody waits to read from it. */
START_TEST(test_slow_end)
{
	struct ipp_chain_flow v[] = { flow(1, 2, BAL, 0, 0), flow(2, 3, BP, 400 * MS, 0) };
	struct necks nk = one_neck(v, 2, 103);

	ck_assert_int_eq(nk.v[0].waits_to_write, 102);
	ck_assert_uint_eq(nk.v[0].write_wait_ns, 400 * MS);
	ck_assert_int_eq(nk.v[0].waits_to_read, 0);
	ck_assert_uint_eq(nk.v[0].read_wait_ns, 0);
}
END_TEST

/* A slow source: the first process; a starved middle waits, so it is not one. */
START_TEST(test_slow_source)
{
	struct ipp_chain_flow v[] = { flow(1, 2, CS, 0, 300 * MS), flow(2, 3, CS, 0, 290 * MS) };
	struct necks nk = one_neck(v, 2, 101);

	ck_assert_int_eq(nk.v[0].waits_to_write, 0);
	ck_assert_int_eq(nk.v[0].waits_to_read, 102);
	ck_assert_uint_eq(nk.v[0].read_wait_ns, 300 * MS);
}
END_TEST

START_TEST(test_balanced_has_none)
{
	struct ipp_chain_flow v[] = { flow(1, 2, BAL, 3 * MS, 2 * MS),
				      flow(2, 3, IPCPERF_VERDICT_IDLE, 0, 0) };

	ck_assert_uint_eq(necks_of(v, 2).n, 0);
}
END_TEST

/* Two writers held back by one reader: their waits add up, the longest is named. */
START_TEST(test_fan_in)
{
	struct ipp_chain_flow v[] = { flow(1, 3, BP, 100 * MS, 0), flow(2, 3, BP, 250 * MS, 0) };
	struct necks nk = one_neck(v, 2, 103);

	ck_assert_int_eq(nk.v[0].waits_to_write, 102);
	ck_assert_uint_eq(nk.v[0].write_wait_ns, 350 * MS);
	expect_stages(v, 2, (const unsigned[]){ 0, 0 });
}
END_TEST

/* A longer chain with a shortcut: the stage is the longest way in. */
START_TEST(test_stages_longest_path)
{
	struct ipp_chain_flow v[] = { flow(3, 4, BAL, 0, 0), flow(1, 3, BAL, 0, 0),
				      flow(2, 3, BAL, 0, 0), flow(1, 2, BAL, 0, 0) };

	/* 103 is at depth 2: 101 -> 102 -> 103 */
	expect_stages(v, 4, (const unsigned[]){ 2, 0, 1, 0 });
}
END_TEST

/* A client and a server talking both ways: the cycle is cut at the smallest pid. */
START_TEST(test_cycle)
{
	struct ipp_chain_flow v[] = { flow(2, 1, BAL, 0, 0), flow(1, 2, BAL, 0, 0) };

	expect_stages(v, 2, (const unsigned[]){ 1, 0 });
}
END_TEST

/* A process reading what it wrote itself: no edge, no verdict on itself. */
START_TEST(test_self_flow)
{
	struct ipp_chain_flow v[] = { flow(1, 1, BP, 50 * MS, 0) };

	expect_stages(v, 1, (const unsigned[]){ 0 });
	ck_assert_uint_eq(necks_of(v, 1).n, 0);
}
END_TEST

/* A bottleneck at each end of one chain, the shallower first; then only the end one. */
START_TEST(test_two_chains)
{
	struct ipp_chain_flow v[] = { flow(3, 4, BP, 20 * MS, 0), flow(1, 2, CS, 0, 30 * MS),
				      flow(2, 3, CS, 0, 30 * MS) };
	struct necks nk = necks_of(v, 3);

	/* 101 starves 102, which starves 103, which waits on 104 too: two, 101 and 104 */
	ck_assert_uint_eq(nk.n, 2);
	ck_assert_int_eq(nk.v[0].pid, 101);
	ck_assert_int_eq(nk.v[1].pid, 104);
	ck_assert_int_eq(nk.v[1].waits_to_write, 103);
	v[1] = flow(1, 2, BAL, 0, 0);
	v[2] = flow(2, 3, BAL, 0, 0);
	one_neck(v, 3, 104);
}
END_TEST

/* A side nobody traced (written before the capture): no array at all, and no one named. */
START_TEST(test_untraced_side)
{
	struct ipp_chain_flow v[] = { { .writers = NULL, .nr_writers = 0, .readers = &P[1],
					.nr_readers = 1, .verdict = BP,
					.writer_blocked_ns = 70 * MS },
				      { .writers = &P[2], .nr_writers = 1, .readers = NULL,
					.nr_readers = 0, .verdict = BAL } };
	struct necks nk;

	expect_stages(v, 2, (const unsigned[]){ 0, 0 });
	nk = one_neck(v, 2, 101);
	ck_assert_int_eq(nk.v[0].waits_to_write, 0);
	ck_assert_uint_eq(nk.v[0].write_wait_ns, 70 * MS);
}
END_TEST

/* A flow near its line (marginal), leaning to @lean, its verdict by the rule @v. */
static struct ipp_chain_flow near_line(int w, int r, enum ipcperf_verdict v,
				       enum ipcperf_verdict lean, uint64_t wb, uint64_t rb)
{
	struct ipp_chain_flow f = flow(w, r, v, wb, rb);

	f.marginal = lean;
	return f;
}

/* A reader that holds its writer back only marginally (2.1x) is no bottleneck; 3x, it is. */
START_TEST(test_marginal_is_none)
{
	struct ipp_chain_flow v[] = { near_line(1, 2, BP, BP, 210 * MS, 100 * MS) };

	no_neck(v, 1);
	v[0] = flow(1, 2, BP, 300 * MS, 100 * MS);
	one_neck(v, 1, 102);
}
END_TEST

/*
 * seq | sort | uniq: uniq starves its reader clearly, and waits for sort
 * near the line. On either side of that line (balanced at 1.9x,
 * consumer-starved at 2.1x) uniq may be waiting: it is never named, and
 * sort, near the line too, neither.
 */
START_TEST(test_marginal_wait_names_nobody)
{
	struct ipp_chain_flow v[] = { near_line(1, 2, BAL, CS, 100 * MS, 190 * MS),
				      flow(2, 3, CS, 0, 500 * MS) };

	no_neck(v, 2);
	v[0] = near_line(1, 2, CS, CS, 100 * MS, 210 * MS);
	no_neck(v, 2);
	/* clear both ways: sort starves uniq, which starves its reader: sort alone */
	v[0] = flow(1, 2, CS, 100 * MS, 300 * MS);
	one_neck(v, 2, 101);
}
END_TEST

/* Held back by its queue (the writer never waited): the bytes' median wait is the figure. */
START_TEST(test_queue_wait)
{
	struct ipp_chain_flow v[] = { flow(1, 2, BP, 0, 0) };
	struct necks nk;

	v[0].by_queue = true;
	v[0].wire_p50 = 560 * MS;
	nk = one_neck(v, 1, 102);
	ck_assert_int_eq(nk.v[0].waits_to_write, 101);
	ck_assert_uint_eq(nk.v[0].write_wait_ns, 0);
	ck_assert_uint_eq(nk.v[0].queue_wait_ns, 560 * MS);
}
END_TEST

Suite *chains_suite(void)
{
	Suite *s = suite_create("chains");
	TCase *tc = tcase_create("chains");

	tcase_add_test(tc, test_slow_middle);
	tcase_add_test(tc, test_slow_end);
	tcase_add_test(tc, test_slow_source);
	tcase_add_test(tc, test_balanced_has_none);
	tcase_add_test(tc, test_fan_in);
	tcase_add_test(tc, test_stages_longest_path);
	tcase_add_test(tc, test_cycle);
	tcase_add_test(tc, test_self_flow);
	tcase_add_test(tc, test_two_chains);
	tcase_add_test(tc, test_untraced_side);
	tcase_add_test(tc, test_marginal_is_none);
	tcase_add_test(tc, test_marginal_wait_names_nobody);
	tcase_add_test(tc, test_queue_wait);
	suite_add_tcase(s, tc);
	return s;
}
