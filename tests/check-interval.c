/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The library's stat helpers (lib/stats/interval.c): the event set an accounting
 * needs, process names, and intervals whose deltas add up to the totals
 * (driven by the replay of a capture: no root, no kernel).
 */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include <ipcperf/ipcperf.h>
#include "suites.h"

#define EV_IO_FDS (IPCPERF_EV_IO | IPCPERF_EV_FDS)
#define EV_SCHED_TASK (IPCPERF_EV_SCHED | IPCPERF_EV_TASK)

/* What ipcperf stat opened before the policy moved into the library, for each use. */
START_TEST(test_stats_events)
{
	struct ipcperf_stats_events_opts bad = { .sz = 1 };

	ck_assert_int_eq(ipcperf_stats__events(NULL),
			 EV_IO_FDS | IPCPERF_EV_RAW_FILTER | EV_SCHED_TASK | IPCPERF_EV_SCHED_TOTALS);
	{
		IPCPERF_OPTS(ipcperf_stats_events_opts, o, .every_syscall = true);
		ck_assert_int_eq(ipcperf_stats__events(&o), IPCPERF_EV_ALL_SYSCALLS | EV_SCHED_TASK |
				 IPCPERF_EV_SCHED_TOTALS);
	}
	{
		IPCPERF_OPTS(ipcperf_stats_events_opts, o, .recording = true, .flows = true);
		ck_assert_int_eq(ipcperf_stats__events(&o), EV_IO_FDS | EV_SCHED_TASK |
				 IPCPERF_EV_BLOCKED | IPCPERF_EV_WAITS | IPCPERF_EV_SCHED_TOTALS);
	}
	{
		IPCPERF_OPTS(ipcperf_stats_events_opts, o, .running_view = true);
		ck_assert_int_eq(ipcperf_stats__events(&o),
				 EV_IO_FDS | IPCPERF_EV_RAW_FILTER | EV_SCHED_TASK);
	}
	{
		IPCPERF_OPTS(ipcperf_stats_events_opts, o, .every_syscall = true, .recording = true,
			     .flows = true, .running_view = true);
		ck_assert_int_eq(ipcperf_stats__events(&o), IPCPERF_EV_ALL_SYSCALLS | EV_SCHED_TASK |
				 IPCPERF_EV_BLOCKED | IPCPERF_EV_WAITS);
	}
	ck_assert_int_eq(ipcperf_stats__events(&bad), -EINVAL);
}
END_TEST

/* A process's name: none before it is seen, then the latest its events gave. */
START_TEST(test_proc_comm)
{
	IPCPERF_OPTS(ipcperf_stats_opts, so, .no_proc = true);
	struct ipcperf_stats *st = ipcperf_stats__new(&so);
	struct ipcperf_task ex = { .kind = IPCPERF_TASK_EXEC, .time_ns = 10, .pid = 42, .tid = 42,
				   .comm = "worker", .filename = "/usr/bin/worker" };
	struct ipcperf_switch sw = { .time_ns = 20, .pid = 42, .tid = 42, .prev_comm = "renamed" };
	char buf[16], small[4];

	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(ipcperf_stats__proc_comm(st, 42, buf, sizeof(buf)), -ENOENT);
	ipcperf_stats__add_task(st, &ex);
	ck_assert_int_eq(ipcperf_stats__proc_comm(st, 42, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "worker");
	ck_assert_int_eq(ipcperf_stats__proc_comm(st, 42, small, sizeof(small)), 0);
	ck_assert_str_eq(small, "wor");
	/* A switch names a process only when nothing else did; an exec renames it. */
	ipcperf_stats__add_switch(st, &sw);
	ck_assert_int_eq(ipcperf_stats__proc_comm(st, 42, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "worker");
	ex.time_ns = 30;
	ex.filename = "/bin/other";
	ipcperf_stats__add_task(st, &ex);
	ck_assert_int_eq(ipcperf_stats__proc_comm(st, 42, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "other");
	sw.pid = sw.tid = 44;
	ipcperf_stats__add_switch(st, &sw);
	ck_assert_int_eq(ipcperf_stats__proc_comm(st, 44, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "renamed");
	ck_assert_int_eq(ipcperf_stats__proc_comm(st, 43, buf, sizeof(buf)), -ENOENT);
	ck_assert_int_eq(ipcperf_stats__proc_comm(NULL, 42, buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(ipcperf_stats__proc_comm(st, 42, NULL, 0), -EINVAL);
	ipcperf_stats__delete(st);
}
END_TEST

/* Calls and errors of every syscall row, summed. */
struct sc_sum {
	uint64_t calls, errors, time_ns;
};

static int sum_sc(void *ctx, const struct ipcperf_syscall_row *row)
{
	struct sc_sum *s = ctx;

	s->calls += row->calls;
	s->errors += row->errors;
	s->time_ns += row->time_ns;
	return 0;
}

/*
 * @n calls of @dur ns (every third failing) by pid 900, fed by hand to the
 * totals and to the interval's accounting, as a session would feed both.
 */
static void feed_calls(struct ipcperf_stats *total, struct ipcperf_interval *iv, int n,
		       uint64_t dur)
{
	static uint64_t clk = 1000000000;

	for (int i = 0; i < n; i++) {
		struct ipcperf_syscall ev = {
			.start_ns = clk, .end_ns = clk + dur, .pid = 900, .tid = 900, .nr = 39,
			.name = "getpid", .fd = -1, .ret = i % 3 ? 900 : -EPERM,
		};

		clk += dur + 1;
		ipcperf_stats__add_syscall(total, &ev);
		ipcperf_stats__add_syscall(ipcperf_interval__stats(iv), &ev);
	}
}

/* Close an interval at @end_ns, add its counts to @sum, start the next. */
static void one_interval(struct ipcperf_interval *iv, uint64_t end_ns, struct sc_sum *sum,
			 struct ipcperf_interval_info *tot, unsigned int *busy)
{
	struct ipcperf_interval_info in = { .sz = sizeof(in) };
	struct ipcperf_counter_value v[IPCPERF_CNT__MAX];
	struct sc_sum s = { 0 };

	ck_assert_int_eq(ipcperf_interval__counters(iv, 0, v), -EBUSY);
	ck_assert_int_eq(ipcperf_interval__close(iv, end_ns, &in), 0);
	ck_assert_uint_le(in.start_ns, in.end_ns);
	ck_assert_int_eq(ipcperf_interval__counters(iv, 12345, v), -ESRCH);
	ck_assert_int_eq(ipcperf_stats__for_each_syscall(ipcperf_interval__stats(iv), sum_sc, &s),
			 0);
	*busy += s.calls > 0;
	sum->calls += s.calls;
	sum->errors += s.errors;
	sum->time_ns += s.time_ns;
	tot->lost += in.lost;
	tot->records += in.records;
	tot->unpaired += in.unpaired;
	tot->end_ns = in.end_ns;
	ipcperf_interval__next(iv);
}

/*
 * A capture replayed round by round, an interval closed after each: the
 * intervals' calls, errors, time, records and losses add up to the totals,
 * and the intervals follow one another.
 */
START_TEST(test_intervals_add_up)
{
	struct ipcperf_session *s = ipcperf_session__open_file(PERFDATA_CORPUS "/ok-ipcperf-pipe.data",
							       NULL);
	struct ipcperf_stats *total = ipcperf_stats__new(NULL);
	struct ipcperf_session_stats ss = { .sz = sizeof(ss) };
	struct ipcperf_interval_info tot = { 0 };
	struct sc_sum want = { 0 }, got = { 0 };
	struct ipcperf_interval *iv;
	unsigned int busy = 0, loops = 0;
	uint64_t t = 0;

	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_nonnull(total);
	ck_assert_ptr_null(ipcperf_interval__new(NULL, NULL));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ipcperf_stats__attach(total, s), 0);
	iv = ipcperf_interval__new(s, NULL);
	ck_assert_ptr_nonnull(iv);
	ck_assert_int_eq(ipcperf_session__start(s), 0);
	while (!ipcperf_session__done(s)) {
		ck_assert_int_ge(ipcperf_session__consume(s), 0);
		ck_assert_int_lt(++loops, 100000);
		one_interval(iv, t += 1000, &got, &tot, &busy);
	}
	/* Three more, of known calls each: an interval has its own, not the ones before. */
	for (int k = 1; k <= 3; k++) {
		struct sc_sum before = got;

		feed_calls(total, iv, 30 * k, 1000 * (uint64_t)k);
		one_interval(iv, t += 1000, &got, &tot, &busy);
		ck_assert_uint_eq(got.calls - before.calls, 30 * k);
		ck_assert_uint_eq(got.errors - before.errors, 10 * k);
		ck_assert_uint_eq(got.time_ns - before.time_ns, 30 * k * 1000 * (uint64_t)k);
	}
	ck_assert_int_ge(ipcperf_session__stop(s), 0);
	ck_assert_int_eq(ipcperf_session__stats(s, &ss), 0);
	one_interval(iv, ss.stop_ns, &got, &tot, &busy);
	ck_assert_int_eq(ipcperf_stats__for_each_syscall(total, sum_sc, &want), 0);
	ck_assert_uint_gt(want.calls, 0);
	ck_assert_uint_ge(busy, 4);
	ck_assert_uint_eq(got.calls, want.calls);
	ck_assert_uint_eq(got.errors, want.errors);
	ck_assert_uint_eq(got.time_ns, want.time_ns);
	ck_assert_uint_eq(tot.records, ss.records);
	ck_assert_uint_eq(tot.lost, ss.lost);
	ck_assert_uint_eq(tot.unpaired, ss.unpaired_enter + ss.unpaired_exit);
	/* The last interval ends at the stop, or where the one before ended if later. */
	ck_assert_uint_eq(tot.end_ns, ss.stop_ns > t ? ss.stop_ns : t);
	ipcperf_session__delete(s);
	ipcperf_interval__delete(iv);
	ipcperf_stats__delete(total);
}
END_TEST

Suite *interval_suite(void)
{
	Suite *s = suite_create("interval");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_stats_events);
	tcase_add_test(tc, test_proc_comm);
	tcase_add_test(tc, test_intervals_add_up);
	suite_add_tcase(s, tc);
	return s;
}
