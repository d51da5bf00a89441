/*
 * Unit tests of the pipeline's counts (pipeline.c, an opaque object the
 * sources reach through its operations) and of what a consumer is handed
 * when it attaches to a session (session.h), with captures of the corpus:
 * no root, no kernel.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <check.h>

#include "internal.h"
#include "pipeline/pipeline.h"
#include "session/session.h"
#include "suites.h"

/* A PERF_RECORD_LOST of @n records on @cpu into @p. */
static void take_lost(struct ipp_pipeline *p, int cpu, uint64_t n)
{
	struct ipp_pd_sample s = { .cpu = (uint32_t)cpu, .time = 1000 };
	uint64_t body[2] = { 42, n };	/* id, lost */

	ck_assert_int_eq(ipp_pipeline__take(p, PERF_RECORD_LOST, 0, &s, body, sizeof(body), false),
			 0);
}

/* A sample of tracepoint @id on @cpu into @p. */
static void take_sample(struct ipp_pipeline *p, int cpu, uint16_t id)
{
	unsigned char raw[8] = { 0 };
	struct ipp_pd_sample s = {
		.cpu = (uint32_t)cpu, .time = 2000, .pid = 7, .tid = 7, .raw = raw,
		.raw_size = sizeof(raw),
	};

	memcpy(raw, &id, sizeof(id));
	ck_assert_int_eq(ipp_pipeline__take(p, PERF_RECORD_SAMPLE, 0, &s, NULL, 0, false), 0);
}

/* A pipeline with counts for CPUs 0..@nr_cpus-1, where tracepoint 5 is a syscall one. */
static struct ipp_pipeline *new_pipeline(size_t nr_cpus)
{
	struct ipp_pipeline *p = ipp_pipeline__new();

	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(ipp_pipeline__cpus(p, nr_cpus), 0);
	ck_assert_int_eq(ipp_pipeline__syscall_tp(p, 5), 0);
	return p;
}

/*
 * Records taken and skipped, losses reported and found, syscall samples by
 * CPU and unpaired enters come out of on_cpu() and stats() exactly.
 */
START_TEST(test_counts)
{
	struct ipp_pipeline *p = new_pipeline(2);
	struct ipcperf_session_stats v = { .sz = sizeof(v) };
	uint64_t samples, lost;

	ck_assert(ipp_pipeline__is_syscall_tp(p, 5));
	ck_assert(!ipp_pipeline__is_syscall_tp(p, 4));
	ck_assert(!ipp_pipeline__is_syscall_tp(p, 6));
	ck_assert(!ipp_pipeline__is_syscall_tp(p, -1));
	ipp_pipeline__skip(p);
	ipp_pipeline__skip(p);
	take_lost(p, 1, 7);
	take_sample(p, 1, 5);
	take_sample(p, 1, 5);
	take_sample(p, 0, 4);		/* not a syscall tracepoint: not counted by CPU */
	ipp_pipeline__lost(p, 0, 4);	/* found at the end, no LOST record */
	ipp_pipeline__unpaired_enters(p, 3);

	ck_assert(ipp_pipeline__on_cpu(p, 0, &samples, &lost));
	ck_assert_uint_eq(samples, 0);
	ck_assert_uint_eq(lost, 4);
	ck_assert(ipp_pipeline__on_cpu(p, 1, &samples, &lost));
	ck_assert_uint_eq(samples, 2);
	ck_assert_uint_eq(lost, 7);
	ck_assert(!ipp_pipeline__on_cpu(p, 2, &samples, &lost));
	ck_assert_uint_eq(samples + lost, 0);
	ck_assert(!ipp_pipeline__on_cpu(p, -1, &samples, &lost));

	ipp_pipeline__stats(p, &v);
	ck_assert_uint_eq(v.records, 6);	/* 2 skipped + 1 LOST + 3 samples */
	ck_assert_uint_eq(v.lost, 11);
	ck_assert_uint_eq(v.unattributed, 0);
	ck_assert_uint_eq(v.unpaired_enter, 3);
	ck_assert_uint_eq(v.unpaired_exit, 0);
	ck_assert_uint_eq(v.syscalls, 0);
	ck_assert_uint_eq(v.foreign, 0);
	ipp_pipeline__delete(p);
	ipp_pipeline__delete(NULL);
}
END_TEST

/* The records of the tracing process are dropped unless it asked for them, and counted. */
START_TEST(test_self_dropped)
{
	struct ipp_pipeline *p = new_pipeline(1);
	struct ipcperf_session_stats v = { .sz = sizeof(v) };
	uint64_t samples, lost;

	ipp_pipeline__set_self(p, 7, false);
	take_sample(p, 0, 5);		/* pid 7: counted as fired, then dropped */
	ck_assert_int_eq(ipp_pipeline__deliver(p, UINT64_MAX), 0);
	ck_assert(ipp_pipeline__on_cpu(p, 0, &samples, &lost));
	ck_assert_uint_eq(samples, 1);
	ipp_pipeline__stats(p, &v);
	ck_assert_uint_eq(v.records, 1);
	ipp_pipeline__delete(p);
}
END_TEST

static int started;

static void on_start(void *ctx)
{
	ck_assert_ptr_eq(ctx, &started);
	started++;
}

/* Attach to a replay of @file: *@at filled; on_start called once, at the start. */
static struct ipcperf_session *attach_file(const char *file, struct ipp_attach *at)
{
	IPCPERF_OPTS(ipcperf_handlers, h, .ctx = &started);
	struct ipcperf_session *s = ipcperf_session__open_file(file, NULL);

	ck_assert_ptr_nonnull(s);
	started = 0;
	memset(at, 0xff, sizeof(*at));
	ck_assert_int_eq(ipp_session__attach(s, &h, on_start, at), 0);
	ck_assert_int_eq(started, 0);
	ck_assert_int_eq(ipcperf_session__start(s), 0);
	ck_assert_int_eq(started, 1);
	/* Too late for another: refused, and nobody is called. */
	ck_assert_int_eq(ipp_session__attach(s, &h, on_start, at), -EBUSY);
	ck_assert_int_eq(started, 1);
	return s;
}

/* A capture of perf record's: a replay, no targets, no command, no identity log. */
START_TEST(test_attach_perf_capture)
{
	struct ipp_attach at;
	struct ipcperf_session *s = attach_file(PERFDATA_CORPUS "/ok-perf-write.data", &at);

	ck_assert(at.replay);
	ck_assert_ptr_null(at.pids);
	ck_assert_uint_eq(at.nr_pids, 0);
	ck_assert_int_eq(at.cmd_pid, 0);
	ck_assert(!at.kernel_fdid);
	ck_assert_ptr_null(at.log);
	ck_assert(at.log_replay);
	ipcperf_session__delete(s);
}
END_TEST

/* A capture with an ipcperf section: its identity log, to replay, and the command it recorded. */
START_TEST(test_attach_ipcperf_capture)
{
	struct ipp_attach at;
	struct ipcperf_session *s = attach_file(PERFDATA_CORPUS "/ok-ring-1-page.data", &at);
	pid_t cmd = ipcperf_session__child_pid(s);

	ck_assert(at.replay);
	ck_assert_uint_eq(at.nr_pids, 0);
	ck_assert_int_eq(at.cmd_pid, cmd > 0 ? cmd : 0);
	ck_assert_ptr_nonnull(at.log);
	ck_assert(at.log_replay);
	ipcperf_session__delete(s);
}
END_TEST

Suite *pipeline_suite(void)
{
	Suite *s = suite_create("pipeline");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_counts);
	tcase_add_test(tc, test_self_dropped);
	tcase_add_test(tc, test_attach_perf_capture);
	tcase_add_test(tc, test_attach_ipcperf_capture);
	suite_add_tcase(s, tc);
	return s;
}
