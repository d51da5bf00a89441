/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests of the metrics exposition (cli/metrics.c): stats objects fed by
 * hand (no_proc, fd objects set by the test), the exposition written to
 * memory and checked as text: the whole of it for a small input in both
 * formats, then label escaping, aggregation, histogram buckets, the
 * counters that must be absent, and the atomic file. No root, no kernel.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <check.h>

#include <ipcperf/ipcperf.h>
#include "metrics.h"
#include "suites.h"

static struct ipcperf_stats *st;
static uint64_t clk;

static void setup(void)
{
	IPCPERF_OPTS(ipcperf_stats_opts, o, .no_proc = true);

	st = ipcperf_stats__new(&o);
	ck_assert_ptr_nonnull(st);
	clk = 1000000;
}

static void teardown(void)
{
	ipcperf_stats__delete(st);
	st = NULL;
}

/* A process named @comm: one switch-out of its thread gives the accounting its name. */
static void proc(pid_t pid, const char *comm)
{
	struct ipcperf_switch ev = {
		.time_ns = clk++, .pid = pid, .tid = pid, .cpu = 0, .preempted = false,
		.prev_state = 1, .next_tid = 0, .next_comm = "swapper",
	};

	snprintf(ev.prev_comm, sizeof(ev.prev_comm), "%s", comm);
	ipcperf_stats__add_switch(st, &ev);
}

/* A read (@write false) or write on @fd of @pid returning @ret after @dur ns. */
static void io(pid_t pid, int fd, bool write, int64_t ret, uint64_t dur)
{
	struct ipcperf_syscall ev = {
		.start_ns = clk, .end_ns = clk + dur, .pid = pid, .tid = pid,
		.nr = write ? 1 : 0, .name = write ? "write" : "read",
		.cls = write ? IPCPERF_SC_WRITE : IPCPERF_SC_READ, .fd = fd, .ret = ret,
	};

	clk += dur + 10;
	ipcperf_stats__add_syscall(st, &ev);
}

static void object(pid_t pid, int fd, const char *obj, enum ipcperf_fd_kind kind)
{
	ck_assert_int_eq(ipcperf_stats__set_fd_object(st, pid, fd, obj, kind), 0);
}

/* The exposition of @src in @fmt; free() it. */
static char *expose(const struct metrics_src *src, enum metrics_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(metrics_write(f, src, fmt), 0);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_uint_eq(strlen(buf), len);	/* no NUL inside */
	return buf;
}

/* The one line of @text that starts with @prefix, or fail. */
static const char *line_of(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);

	for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
		if (!strncmp(l, prefix, n))
			return l;
		if (!strchr(l, '\n'))
			break;
	}
	ck_abort_msg("no line starting with '%s' in:\n%s", prefix, text);
	return NULL;
}

/* The value on the line of @text that starts with @prefix. */
static double value_of(const char *text, const char *prefix)
{
	const char *l = line_of(text, prefix), *sp = strchr(l, ' ');

	/* The labels' values may hold spaces: the value is after the closing brace. */
	if (strchr(l, '}') && strchr(l, '}') < strchr(l, '\n'))
		sp = strchr(l, '}') + 1;
	return strtod(sp, NULL);
}

static void cnt_values(struct ipcperf_counter_value *v)
{
	for (int i = 0; i < IPCPERF_CNT__MAX; i++)
		v[i] = (struct ipcperf_counter_value){ .status = IPCPERF_CNT_NOT_SUPPORTED };
	v[IPCPERF_CNT_TASK_CLOCK] = (struct ipcperf_counter_value){ .value = 1500000,
								    .enabled_ns = 1, .running_ns = 1 };
	v[IPCPERF_CNT_PAGE_FAULTS] = (struct ipcperf_counter_value){ .value = 7 };
	v[IPCPERF_CNT_CPU_MIGRATIONS].status = IPCPERF_CNT_NOT_REQUESTED;
	v[IPCPERF_CNT_CONTEXT_SWITCHES].status = IPCPERF_CNT_NOT_COUNTED;
}

static const char *const small_text =
	"# HELP ipcperf_info The ipcperf that measured.\n"
	"# TYPE ipcperf_info gauge\n"
	"ipcperf_info{version=\"" PACKAGE_VERSION "\"} 1\n"
	"# HELP ipcperf_lost_events_total Records lost (the kernel's ring overflowed, or a task "
	"could not be placed): when not 0, every other count is a lower bound.\n"
	"# TYPE ipcperf_lost_events_total counter\n"
	"ipcperf_lost_events_total 2\n"
	"# HELP ipcperf_unpaired_syscalls_total System calls seen only entering or only leaving: "
	"left out of the latencies.\n"
	"# TYPE ipcperf_unpaired_syscalls_total counter\n"
	"ipcperf_unpaired_syscalls_total 1\n"
	"# HELP ipcperf_fd_ops_total Read- and write-family calls completed on an fd object, "
	"failed ones included.\n"
	"# TYPE ipcperf_fd_ops_total counter\n"
	"ipcperf_fd_ops_total{comm=\"cat\",kind=\"pipe\",object=\"pipe:[5]\",direction=\"read\"} 2\n"
	"# HELP ipcperf_fd_bytes_total Bytes moved through an fd object: the sum of the calls' "
	"positive return values.\n"
	"# TYPE ipcperf_fd_bytes_total counter\n"
	"ipcperf_fd_bytes_total{comm=\"cat\",kind=\"pipe\",object=\"pipe:[5]\",direction=\"read\"} 100\n"
	"# HELP ipcperf_fd_errors_total Calls on an fd object that failed (they move nothing), "
	"EAGAIN left out.\n"
	"# TYPE ipcperf_fd_errors_total counter\n"
	"ipcperf_fd_errors_total{comm=\"cat\",kind=\"pipe\",object=\"pipe:[5]\",direction=\"read\"} 0\n"
	"# HELP ipcperf_fd_would_block_total Calls on a non-blocking fd object refused with EAGAIN: "
	"it was empty (read) or full (write).\n"
	"# TYPE ipcperf_fd_would_block_total counter\n"
	"ipcperf_fd_would_block_total{comm=\"cat\",kind=\"pipe\",object=\"pipe:[5]\",direction=\"read\"} 0\n"
	"# HELP ipcperf_fd_latency_seconds Time inside the read- and write-family calls on an fd "
	"object (calls under way at the start left out); a call within 1/64 of a bucket bound may "
	"be counted on the other side of it.\n"
	"# TYPE ipcperf_fd_latency_seconds histogram\n"
#define B(le, n) "ipcperf_fd_latency_seconds_bucket{comm=\"cat\",kind=\"pipe\",object=\"pipe:[5]\"," \
		 "direction=\"read\",le=\"" le "\"} " n "\n"
	B("1e-06", "1") B("2e-06", "2") B("5e-06", "2") B("1e-05", "2") B("2e-05", "2")
	B("5e-05", "2") B("0.0001", "2") B("0.0002", "2") B("0.0005", "2") B("0.001", "2")
	B("0.002", "2") B("0.005", "2") B("0.01", "2") B("0.02", "2") B("0.05", "2") B("0.1", "2")
	B("0.2", "2") B("0.5", "2") B("1", "2") B("2", "2") B("5", "2") B("10", "2") B("+Inf", "2")
#undef B
	"ipcperf_fd_latency_seconds_count{comm=\"cat\",kind=\"pipe\",object=\"pipe:[5]\","
	"direction=\"read\"} 2\n"
	"ipcperf_fd_latency_seconds_sum{comm=\"cat\",kind=\"pipe\",object=\"pipe:[5]\","
	"direction=\"read\"} 0.0000021\n"
	"# HELP ipcperf_process_context_switches_total Context switches of the processes' threads: "
	"voluntary (blocked) or involuntary (preempted), from sched_switch.\n"
	"# TYPE ipcperf_process_context_switches_total counter\n"
	"ipcperf_process_context_switches_total{comm=\"cat\",type=\"voluntary\"} 1\n"
	"ipcperf_process_context_switches_total{comm=\"cat\",type=\"involuntary\"} 0\n"
	"# HELP ipcperf_process_wakeups_total Times the processes' threads were woken "
	"(sched_wakeup).\n"
	"# TYPE ipcperf_process_wakeups_total counter\n"
	"ipcperf_process_wakeups_total{comm=\"cat\"} 0\n"
	"# HELP ipcperf_process_cpu_migrations_total Consecutive switch-outs of a thread of the "
	"processes on different CPUs.\n"
	"# TYPE ipcperf_process_cpu_migrations_total counter\n"
	"ipcperf_process_cpu_migrations_total{comm=\"cat\"} 0\n"
	"# HELP ipcperf_perf_task_clock_seconds_total perf's task-clock: time on CPU of a target "
	"process and the children it reaped.\n"
	"# TYPE ipcperf_perf_task_clock_seconds_total counter\n"
	"ipcperf_perf_task_clock_seconds_total{comm=\"cat\"} 0.0015\n"
	"# HELP ipcperf_perf_page_faults_total perf's page-faults of a target process and the "
	"children it reaped.\n"
	"# TYPE ipcperf_perf_page_faults_total counter\n"
	"ipcperf_perf_page_faults_total{comm=\"cat\"} 7\n"
	"# EOF\n";

/* The small input: "cat" reads 100 bytes (1500 ns) and EOF (600 ns) from a pipe. */
static void small_input(struct metrics_src *src, struct metrics_counters *mc,
			struct ipcperf_counter_value *v)
{
	proc(10, "cat");
	object(10, 3, "pipe:[5]", IPCPERF_FD_PIPE);
	io(10, 3, false, 100, 1500);
	io(10, 3, false, 0, 600);
	cnt_values(v);
	*mc = (struct metrics_counters){ .pid = 10, .comm = "cat", .v = v };
	/* An object label (--metrics-per-fd): the series per fd, as before 0.2. */
	*src = (struct metrics_src){ .stats = st, .cnt = mc, .nr_cnt = 1, .lost_events = 2,
				     .unpaired_syscalls = 1, .object_label = true };
}

/* The small input exposed in @fmt: malloc'ed. */
static char *expose_small(enum metrics_format fmt)
{
	struct ipcperf_counter_value v[IPCPERF_CNT__MAX];
	struct metrics_counters mc;
	struct metrics_src src;

	small_input(&src, &mc, v);
	return expose(&src, fmt);
}

/* The whole text for a small input; a counter not OK (any reason) has no family at all. */
START_TEST(test_text_exact)
{
	char *text = expose_small(METRICS_TEXT);

	ck_assert_str_eq(text, small_text);
	free(text);
}
END_TEST

/* OpenMetrics: the same samples; families named without _total/_info, UNIT lines, ".0". */
START_TEST(test_openmetrics)
{
	char *text = expose_small(METRICS_OPENMETRICS);
	static const char head[] = "# TYPE ipcperf info\n# HELP ipcperf The ipcperf that measured.\n"
				   "ipcperf_info{version=\"" PACKAGE_VERSION "\"} 1\n"
				   "# TYPE ipcperf_lost_events counter\n";

	ck_assert(!strncmp(text, head, sizeof(head) - 1));
	ck_assert(strstr(text, "# TYPE ipcperf_fd_bytes counter\n# UNIT ipcperf_fd_bytes bytes\n"
			       "# HELP ipcperf_fd_bytes Bytes moved"));
	ck_assert(strstr(text, "# TYPE ipcperf_fd_latency_seconds histogram\n"
			       "# UNIT ipcperf_fd_latency_seconds seconds\n"));
	ck_assert(strstr(text, "# TYPE ipcperf_perf_task_clock_seconds counter\n"
			       "# UNIT ipcperf_perf_task_clock_seconds seconds\n"));
	ck_assert(strstr(text, ",le=\"1.0\"} 2\n"));
	ck_assert(strstr(text, ",le=\"10.0\"} 2\n"));
	ck_assert(!strstr(text, ",le=\"1\"}"));
	ck_assert(!strstr(text, "_total counter"));
	/* The samples are those of the text format, but for the whole seconds' ".0". */
	for (const char *a = small_text; *a; a = strchr(a, '\n') + 1) {
		char want[512];

		snprintf(want, sizeof(want), "\n%.*s\n", (int)(strchr(a, '\n') - a), a);
		if (*a == '#' || strstr(want, "le=\"1\"}") || strstr(want, "le=\"2\"}") ||
		    strstr(want, "le=\"5\"}") || strstr(want, "le=\"10\"}"))
			continue;
		ck_assert_msg(strstr(text, want), "OpenMetrics lacks %s", want);
	}
	ck_assert_str_eq(text + strlen(text) - 6, "# EOF\n");
	free(text);
}
END_TEST

/*
 * Two processes of one name writing into one pipe are one series (summed);
 * with pid_label, one each. Errors are ops and move nothing.
 */
START_TEST(test_aggregate)
{
	struct metrics_src src = { .stats = st, .object_label = true };
	char *text;

	proc(100, "writer");
	proc(300, "writer");
	proc(200, "reader");
	object(100, 4, "pipe:[7]", IPCPERF_FD_PIPE);
	object(300, 4, "pipe:[7]", IPCPERF_FD_PIPE);
	object(200, 3, "pipe:[7]", IPCPERF_FD_PIPE);
	io(100, 4, true, 100, 1500);
	io(300, 4, true, 50, 3000);
	io(300, 4, true, -32, 500);
	io(200, 3, false, 150, 700000);
	/* a refusal of a non-blocking read: would block, no error */
	object(200, 5, "pipe:[8]", IPCPERF_FD_PIPE);
	io(200, 5, false, -EAGAIN, 1000);
	text = expose(&src, METRICS_TEXT);
#define W "{comm=\"writer\",kind=\"pipe\",object=\"pipe:[7]\",direction=\"write\"}"
#define R "{comm=\"reader\",kind=\"pipe\",object=\"pipe:[7]\",direction=\"read\"}"
	ck_assert_double_eq(value_of(text, "ipcperf_fd_bytes_total" W), 150);
	ck_assert_double_eq(value_of(text, "ipcperf_fd_ops_total" W), 3);
	ck_assert_double_eq(value_of(text, "ipcperf_fd_errors_total" W), 1);
	ck_assert_double_eq(value_of(text, "ipcperf_fd_bytes_total" R), 150);
#define R8 "{comm=\"reader\",kind=\"pipe\",object=\"pipe:[8]\",direction=\"read\"}"
	ck_assert_double_eq(value_of(text, "ipcperf_fd_would_block_total" R8), 1);
	ck_assert_double_eq(value_of(text, "ipcperf_fd_errors_total" R8), 0);
	ck_assert_double_eq(value_of(text, "ipcperf_fd_would_block_total" W), 0);
#undef R8
	ck_assert_double_eq(value_of(text, "ipcperf_fd_latency_seconds_count" W), 3);
	ck_assert_double_eq(value_of(text, "ipcperf_fd_latency_seconds_sum" W), 0.000005);
	ck_assert_double_eq(value_of(text, "ipcperf_process_context_switches_total{comm=\"writer\","
					  "type=\"voluntary\"}"), 2);
	/* No write side for the reader, no read side for the writers. */
	ck_assert(!strstr(text, "comm=\"reader\",kind=\"pipe\",object=\"pipe:[7]\",direction=\"write\""));
	ck_assert(!strstr(text, "comm=\"writer\",kind=\"pipe\",object=\"pipe:[7]\",direction=\"read\""));
	free(text);

	src.pid_label = true;
	text = expose(&src, METRICS_TEXT);
	ck_assert_double_eq(value_of(text, "ipcperf_fd_bytes_total{comm=\"writer\",pid=\"100\","
					  "kind=\"pipe\",object=\"pipe:[7]\",direction=\"write\"}"), 100);
	ck_assert_double_eq(value_of(text, "ipcperf_fd_bytes_total{comm=\"writer\",pid=\"300\","
					  "kind=\"pipe\",object=\"pipe:[7]\",direction=\"write\"}"), 50);
	free(text);
#undef W
#undef R
}
END_TEST

/* Backslash, double quote and newline escaped; bytes that are not UTF-8 become U+FFFD. */
START_TEST(test_escaping)
{
	struct metrics_src src = { .stats = st, .object_label = true };
	char *text;

	proc(10, "a\"b\\c");
	object(10, 3, "/tmp/x\ny\xff\xc3\xa9\xe2\x82", IPCPERF_FD_FILE);
	io(10, 3, true, 5, 100);
	text = expose(&src, METRICS_TEXT);
	ck_assert(strstr(text, "ipcperf_fd_bytes_total{comm=\"a\\\"b\\\\c\",kind=\"file\","
			       "object=\"/tmp/x\\ny\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\","
			       "direction=\"write\"} 5\n"));
	free(text);
}
END_TEST

/*
 * By default no label names an fd's object: the fds (and the flows) of one
 * process name, kind and direction are one series, their values summed, so
 * that a thousand connections add no series.
 */
START_TEST(test_no_object_by_default)
{
	struct metrics_src src = { .stats = st };
	char obj[32], *text;
	size_t series = 0;

	proc(10, "srv");
	for (int fd = 3; fd < 1003; fd++) {
		snprintf(obj, sizeof(obj), "socket:[%d]", 5000 + fd);
		object(10, fd, obj, IPCPERF_FD_TCP);
		io(10, fd, false, 100, 1000);
		io(10, fd, true, 200, 2000);
	}
	text = expose(&src, METRICS_TEXT);
	ck_assert(!strstr(text, "object="));
	ck_assert(!strstr(text, "socket:["));
	ck_assert_double_eq(value_of(text, "ipcperf_fd_bytes_total{comm=\"srv\",kind=\"tcp\","
					  "direction=\"read\"}"), 100000);
	ck_assert_double_eq(value_of(text, "ipcperf_fd_bytes_total{comm=\"srv\",kind=\"tcp\","
					  "direction=\"write\"}"), 200000);
	ck_assert_double_eq(value_of(text, "ipcperf_fd_latency_seconds_count{comm=\"srv\","
					  "kind=\"tcp\",direction=\"write\"}"), 1000);
	for (const char *l = text; (l = strchr(l, '\n')); l++)
		series += l[1] && l[1] != '#';
	/* 2 directions x (ops, bytes, errors, 20 buckets, count, sum), the rest fixed. */
	ck_assert_uint_lt(series, 80);
	free(text);

	src.object_label = true;
	text = expose(&src, METRICS_TEXT);
	ck_assert_double_eq(value_of(text, "ipcperf_fd_bytes_total{comm=\"srv\",kind=\"tcp\","
					  "object=\"socket:[5003]\",direction=\"read\"}"), 100);
	free(text);
}
END_TEST

/* Buckets only grow, end at the count, and every le of the text format is a float. */
START_TEST(test_buckets)
{
	struct metrics_src src = { .stats = st };
	char *text;
	double prev = -1;
	int n = 0;

	proc(10, "w");
	object(10, 3, "pipe:[1]", IPCPERF_FD_PIPE);
	for (uint64_t d = 1; d < 20000000000ull; d = d * 3 + 7)
		io(10, 3, true, 1, d);
	text = expose(&src, METRICS_TEXT);
	for (const char *l = strstr(text, "ipcperf_fd_latency_seconds_bucket"); l;
	     l = strstr(l + 1, "ipcperf_fd_latency_seconds_bucket")) {
		const char *le = strstr(l, "le=\"") + 4;
		double v = strtod(strchr(l, '}') + 1, NULL);
		char *end;

		if (strncmp(le, "+Inf", 4)) {
			strtod(le, &end);
			ck_assert_int_eq(*end, '"');
		}
		ck_assert(v >= prev);
		prev = v;
		n++;
	}
	ck_assert_int_eq(n, 23);
	ck_assert_double_eq(prev, value_of(text, "ipcperf_fd_latency_seconds_count"));
	ck_assert_double_eq(prev, value_of(text, "ipcperf_fd_ops_total"));
	free(text);
}
END_TEST

/* Counters of all targets (-t, -a) have no labels; an empty run still says its losses. */
START_TEST(test_unlabelled_counters)
{
	struct ipcperf_counter_value v[IPCPERF_CNT__MAX];
	struct metrics_counters mc;
	struct metrics_src src = { .stats = st, .cnt = &mc, .nr_cnt = 1 };
	char *text;

	cnt_values(v);
	mc = (struct metrics_counters){ .v = v };
	text = expose(&src, METRICS_TEXT);
	ck_assert(strstr(text, "\nipcperf_perf_page_faults_total 7\n"));
	ck_assert(strstr(text, "\nipcperf_lost_events_total 0\n"));
	ck_assert(!strstr(text, "ipcperf_fd_"));
	ck_assert(!strstr(text, "cpu_migrations"));	/* not requested */
	ck_assert(!strstr(text, "context_switches"));	/* not counted, and no process */
	ck_assert(!strstr(text, "cycles"));		/* not supported */
	free(text);
}
END_TEST

/* The file: replaced whole (a new inode), mode of a new file, no temporary left. */
START_TEST(test_file_atomic)
{
	char dir[] = "/tmp/check-metrics.XXXXXX", path[64], link[64];
	struct metrics_src src = { .stats = st };
	struct stat a, b;
	DIR *d;
	struct dirent *e;
	int n = 0;
	mode_t mask = umask(022);

	umask(mask);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ipcperf.prom", dir);
	ck_assert_int_eq(metrics_write_file(path, &src), 0);
	ck_assert_int_eq(stat(path, &a), 0);
	ck_assert_uint_eq(a.st_mode & 0777, 0666 & ~mask);
	ck_assert_int_eq(metrics_write_file(path, &src), 0);
	ck_assert_int_eq(stat(path, &b), 0);
	ck_assert_uint_ne(a.st_ino, b.st_ino);
	d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	ck_assert_int_eq(n, 1);

	/* A symbolic link, a directory, a missing directory: refused, nothing left. */
	snprintf(link, sizeof(link), "%s/link.prom", dir);
	ck_assert_int_eq(symlink(path, link), 0);
	ck_assert_int_eq(metrics_write_file(link, &src), -ELOOP);
	ck_assert_int_eq(metrics_write_file(dir, &src), -EISDIR);
	snprintf(link, sizeof(link), "%s/none/x.prom", dir);
	ck_assert_int_eq(metrics_write_file(link, &src), -ENOENT);
	d = opendir(dir);
	n = 0;
	while ((e = readdir(d)))
		n++;
	closedir(d);
	ck_assert_int_eq(n, 4);	/* ., .., ipcperf.prom, link.prom */
	snprintf(link, sizeof(link), "%s/link.prom", dir);
	unlink(link);
	unlink(path);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

Suite *metrics_suite(void)
{
	Suite *s = suite_create("metrics");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_text_exact);
	tcase_add_test(tc, test_openmetrics);
	tcase_add_test(tc, test_aggregate);
	tcase_add_test(tc, test_escaping);
	tcase_add_test(tc, test_no_object_by_default);
	tcase_add_test(tc, test_buckets);
	tcase_add_test(tc, test_unlabelled_counters);
	tcase_add_test(tc, test_file_atomic);
	suite_add_tcase(s, tc);
	return s;
}
