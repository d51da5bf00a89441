/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests of the flows' renderers (cli/flowout.c): what a verdict near
 * its line (marginal) and one from the queue residence look like in the
 * text table, the bottleneck line and the JSON, on flows built from
 * hand-made calls (as tests/check-flows.c does) with exactly known times.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <check.h>

#include <ipcperf/ipcperf.h>
#include "flowout.h"
#include "check-helpers.h"
#include "suites.h"

static struct ipcperf_stats *st;
static struct ipcperf_flows *fl;

static void setup(void)
{
	flows_fixture_new(&st, &fl, true);
}

static void teardown(void)
{
	flows_fixture_delete(&st, &fl);
}

/* @pid's @fd is an end of pipe:[77]. */
static void name_pipe(pid_t pid, int fd)
{
	IPCPERF_OPTS(ipcperf_fd_identity, id, .object = "pipe:[77]", .kind = IPCPERF_FD_PIPE,
		     .ino = 77, .capacity = 65536);

	ck_assert_int_eq(ipcperf_stats__set_fd_identity(st, pid, fd, &id), 0);
}

static void io(pid_t pid, bool w, int fd, uint64_t start, uint64_t end, uint64_t blocked)
{
	struct ipcperf_syscall ev = {
		.start_ns = start, .end_ns = end, .pid = pid, .tid = pid,
		.nr = w ? SYS_write : SYS_read, .name = w ? "write" : "read",
		.cls = w ? IPCPERF_SC_WRITE : IPCPERF_SC_READ, .fd = fd, .count = 100, .ret = 100,
		.nr_args = 3, .blocked_ns = blocked, .off_cpu_ns = blocked,
		.switches = blocked ? 1 : 0,
	};

	ev.args[0] = (uint64_t)fd;
	ev.args[2] = 100;
	ipcperf_stats__add_syscall(st, &ev);
	ipcperf_flows__add_syscall(fl, &ev);
}

/* Pid 10 writes 100 bytes into the pipe asleep @w ns, pid 20 reads them asleep @r ns. */
static void one_flow(uint64_t w, uint64_t r)
{
	name_pipe(10, 4);
	name_pipe(20, 3);
	io(10, true, 4, 1000, 1000 + w + 100, w);
	io(20, false, 3, 500, 1000 + w + 200 + r, r);
}

/* The text report's table and bottleneck line, in a malloc'ed string. */
static char *text_of(void)
{
	struct flowout fo = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(flowout_load(&fo, fl, st), 0);
	flowout_text(f, &fo, 1000 * MS);
	flowout_free(&fo);
	fclose(f);
	return buf;
}

/* The "flows" and "bottlenecks" members, compact, in a malloc'ed string. */
static char *json_of(void)
{
	struct json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	json_init(&j, f, false);
	json_object_begin(&j, NULL);
	ck_assert_int_eq(flowout_json(&j, fl), 0);
	json_object_end(&j);
	fclose(f);
	return buf;
}

#define ck_assert_has(hay, needle) \
	ck_assert_msg(strstr((hay), (needle)) != NULL, "no \"%s\" in:\n%s", (needle), (hay))
#define ck_assert_lacks(hay, needle) \
	ck_assert_msg(strstr((hay), (needle)) == NULL, "\"%s\" in:\n%s", (needle), (hay))

/* One flow of a writer and a reader asleep in their calls, and what the reports say. */
struct verdict_case {
	uint64_t w, r;			/* ns asleep: writer, reader */
	const char *text_has[2];	/* NULL: none */
	const char *text_lacks;		/* NULL: none */
	const char *json_has[3];
};

static const struct verdict_case verdict_cases[] = {
	/*
	 * W = 1.9 R: balanced by the rule, near its line. The text names the
	 * side it leans to, as it would at 2.1x: no flip between runs; the JSON
	 * keeps the rule's verdict and adds the margin; nobody is a bottleneck.
	 */
	{ 19 * MS, 10 * MS,
	  { "  backpressure (marginal: 1.9x)\n",
	    "\nbottleneck: none (no flow is clearly held back or starved: 1 marginal, "
	    "near the line)\n" },
	  NULL,
	  { "\"verdict\":\"balanced\"",
	    "\"verdict_margin\":1.90,\"verdict_marginal\":\"backpressure\"",
	    "\"bottlenecks\":[]" } },
	/* W = 2.1 R: backpressure by the rule, still marginal: nobody is a bottleneck. */
	{ 21 * MS, 10 * MS,
	  { "  backpressure (marginal: 2.1x)\n", NULL },
	  "bottleneck: [",
	  { "\"verdict\":\"backpressure\"",
	    "\"verdict_margin\":2.10,\"verdict_marginal\":\"backpressure\"",
	    "\"bottlenecks\":[]" } },
	/* 3x: clear, plain, and its reader the bottleneck. */
	{ 30 * MS, 10 * MS,
	  { "  backpressure\n", "\nbottleneck: [20]: [10] waits 30.00ms to write into it\n" },
	  "(marginal",
	  { "\"verdict\":\"backpressure\"",
	    "\"verdict_margin\":null,\"verdict_marginal\":null",
	    "\"bottlenecks\":[{\"pid\":20," } },
};

START_TEST(test_verdicts)
{
	const struct verdict_case *c = &verdict_cases[_i];
	char *t, *j;

	one_flow(c->w, c->r);
	t = text_of();
	for (size_t k = 0; k < ARRAY_SIZE(c->text_has) && c->text_has[k]; k++)
		ck_assert_has(t, c->text_has[k]);
	if (c->text_lacks)
		ck_assert_lacks(t, c->text_lacks);
	j = json_of();
	for (size_t k = 0; k < ARRAY_SIZE(c->json_has); k++)
		ck_assert_has(j, c->json_has[k]);
	free(t);
	free(j);
}
END_TEST

/*
 * 8 writes of 100 bytes back to back, 8 reads one every 2 ms from 10 ms,
 * nobody asleep in a call: backpressure by the queue residence (the median
 * wire time over the reader's 1751250 ns a read), in the text and the JSON.
 */
START_TEST(test_queue)
{
	char *t, *j, want[64];
	uint64_t p50 = 0;
	const char *at;

	name_pipe(10, 4);
	name_pipe(20, 3);
	for (uint64_t k = 0; k < 8; k++)
		io(10, true, 4, 1000 + k * 10000, 11000 + k * 10000, 0);
	for (uint64_t k = 0; k < 8; k++)
		io(20, false, 3, 10 * MS + 2 * k * MS, 10 * MS + 2 * k * MS + 10000, 0);
	j = json_of();
	at = strstr(j, "\"p50\":");
	ck_assert_ptr_nonnull(at);
	ck_assert(sscanf(at, "\"p50\":%lu", &p50) == 1);
	snprintf(want, sizeof(want), "\"queue_residence\":%.2f,\"verdict_by_queue\":true",
		 (double)p50 / 1751250.0);
	ck_assert_has(j, want);
	ck_assert_has(j, "\"write_pace_ns\":10000,\"read_pace_ns\":1751250,");
	ck_assert_has(j, "\"verdict\":\"backpressure\"");
	ck_assert_has(j, "\"queue_wait_ns\":");
	t = text_of();
	snprintf(want, sizeof(want), "  backpressure (queue: %.0fx)\n", (double)p50 / 1751250.0);
	ck_assert_has(t, want);
	ck_assert_has(t, "\nbottleneck: [20]: the bytes of [10] wait ");
	ck_assert_has(t, " (median) in the channel for it\n");
	free(t);
	free(j);
}
END_TEST

Suite *flowout_suite(void)
{
	Suite *s = suite_create("flowout");
	TCase *tc = new_tcase(s, "verdicts", setup, teardown);

	tcase_add_loop_test(tc, test_verdicts, 0, ARRAY_SIZE(verdict_cases));
	tcase_add_test(tc, test_queue);
	return s;
}
