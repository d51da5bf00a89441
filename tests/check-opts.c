/*
 * Unit tests of the public API's argument checks: everything here is refused
 * (or answered) before the library touches the kernel, so it runs as any
 * user. Each refusal must also explain itself through the print function.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <check.h>

#include "ipcperf/ipcperf.h"
#include "suites.h"

/* ------------------------------------------------------------------ captured diagnostics */

static char msgs[16384];
static size_t msgs_len;
static unsigned int nr_msgs, nr_info, nr_no_newline;

__attribute__((format(printf, 2, 0)))
static int capture(enum ipcperf_print_level level, const char *fmt, va_list ap)
{
	char line[2048];
	int n = vsnprintf(line, sizeof(line), fmt, ap);

	if (n < 0)
		return n;
	nr_msgs++;
	if (level == IPCPERF_INFO)
		nr_info++;
	if (n == 0 || line[strlen(line) - 1] != '\n')
		nr_no_newline++;
	size_t len = strlen(line);
	if (len > sizeof(msgs) - 1 - msgs_len)
		len = sizeof(msgs) - 1 - msgs_len;
	memcpy(msgs + msgs_len, line, len);
	msgs_len += len;
	msgs[msgs_len] = '\0';
	return n;
}

static void capture_reset(void)
{
	msgs[0] = '\0';
	msgs_len = 0;
	nr_msgs = nr_info = nr_no_newline = 0;
}

static void setup(void)
{
	capture_reset();
	ipcperf_set_print(capture);
}

static void teardown(void)
{
	ipcperf_set_print(NULL);
}

/*
 * @opts is refused with EINVAL, and the reason was printed: at least one
 * INFO message, every message ending in a newline, and one containing
 * @needle ("" for any).
 */
#define EXPECT_EINVAL(opts, needle)							\
	do {										\
		capture_reset();							\
		errno = 0;								\
		struct ipcperf_session *s_ = ipcperf_session__new(opts);		\
		int err_ = errno;							\
		if (s_)									\
			ipcperf_session__delete(s_);					\
		ck_assert_ptr_null(s_);							\
		ck_assert_int_eq(err_, EINVAL);						\
		ck_assert_msg(nr_msgs > 0, "EINVAL without a message");			\
		ck_assert_uint_ge(nr_info, 1);						\
		ck_assert_uint_eq(nr_no_newline, 0);					\
		ck_assert_msg(strstr(msgs, needle), "no message names \"%s\"; got: %s",	\
			      needle, msgs);						\
	} while (0)

static pid_t self[1];

static void self_setup(void)
{
	self[0] = getpid();
}

/* ------------------------------------------------------------------ library-wide */

START_TEST(test_version)
{
	ck_assert_str_eq(ipcperf_version(), "0.2.0");
}
END_TEST

START_TEST(test_syscall_name)
{
	ck_assert_str_eq(ipcperf_syscall_name(__NR_write), "write");
	ck_assert_str_eq(ipcperf_syscall_name(__NR_read), "read");
	ck_assert_str_eq(ipcperf_syscall_name(__NR_close), "close");
	/* Every syscall of the architecture has its name, traced by default or not. */
	ck_assert_str_eq(ipcperf_syscall_name(__NR_getpid), "getpid");
	ck_assert_str_eq(ipcperf_syscall_name(__NR_exit_group), "exit_group");
	ck_assert_ptr_null(ipcperf_syscall_name(-1));
	ck_assert_ptr_null(ipcperf_syscall_name(1000000));
}
END_TEST

START_TEST(test_set_print_returns_previous)
{
	/* setup() installed capture */
	ck_assert_ptr_eq(ipcperf_set_print(NULL), capture);
	ck_assert_ptr_null(ipcperf_set_print(capture));
	ck_assert_ptr_eq(ipcperf_set_print(capture), capture);
}
END_TEST

START_TEST(test_delete_null)
{
	ipcperf_session__delete(NULL);
}
END_TEST

/* ------------------------------------------------------------------ session opts */

START_TEST(test_null_opts)
{
	/* NULL means defaults, and the defaults name no target */
	EXPECT_EINVAL(NULL, "");
}
END_TEST

START_TEST(test_no_target)
{
	IPCPERF_OPTS(ipcperf_session_opts, opts);
	IPCPERF_OPTS(ipcperf_session_opts, empty_list, .pids = self, .nr_pids = 0);

	EXPECT_EINVAL(&opts, "");
	EXPECT_EINVAL(&empty_list, "");
}
END_TEST

START_TEST(test_sz_too_small)
{
	IPCPERF_OPTS(ipcperf_session_opts, opts, .pids = self, .nr_pids = 1);

	/* sz itself cut short */
	opts.sz = 0;
	EXPECT_EINVAL(&opts, "");
	opts.sz = sizeof(size_t) - 1;
	EXPECT_EINVAL(&opts, "");
	/* pids not covered: a struct from before pids existed names no target */
	opts.sz = offsetof(struct ipcperf_session_opts, pids) + sizeof(opts.pids) - 1;
	EXPECT_EINVAL(&opts, "");
	opts.sz = sizeof(size_t);
	EXPECT_EINVAL(&opts, "");
}
END_TEST

/*
 * Options a session takes: made (the command forked corked, never run) and
 * deleted; without the rights to read tracefs, no EINVAL at least.
 */
#define EXPECT_TAKEN(opts)								\
	do {										\
		errno = 0;								\
		struct ipcperf_session *s_ = ipcperf_session__new(opts);		\
		int err_ = errno;							\
		if (s_)									\
			ipcperf_session__delete(s_);					\
		else									\
			ck_assert_msg(err_ == EACCES || err_ == EPERM || err_ == ENOENT,	\
				      "refused: %s; messages: %s", strerror(err_), msgs);	\
	} while (0)

START_TEST(test_several_targets)
{
	char *argv[] = { "/bin/true", NULL };
	IPCPERF_OPTS(ipcperf_session_opts, pids_argv, .pids = self, .nr_pids = 1, .argv = argv);
	IPCPERF_OPTS(ipcperf_session_opts, tids_argv, .tids = self, .nr_tids = 1, .argv = argv);
	IPCPERF_OPTS(ipcperf_session_opts, sw_pids, .system_wide = true, .pids = self,
		     .nr_pids = 1);
	IPCPERF_OPTS(ipcperf_session_opts, sw_tids, .system_wide = true, .tids = self,
		     .nr_tids = 1);
	IPCPERF_OPTS(ipcperf_session_opts, sw_argv, .system_wide = true, .argv = argv);

	/* -p with -- CMD (a server and its client) is one target set; -a goes alone. */
	EXPECT_TAKEN(&pids_argv);
	EXPECT_TAKEN(&tids_argv);
	EXPECT_EINVAL(&sw_pids, "");
	EXPECT_EINVAL(&sw_tids, "");
	EXPECT_EINVAL(&sw_argv, "");
}
END_TEST

START_TEST(test_ring_pages)
{
	IPCPERF_OPTS(ipcperf_session_opts, opts, .pids = self, .nr_pids = 1);

	opts.ring_pages = 3;
	EXPECT_EINVAL(&opts, "ring_pages");
	opts.ring_pages = 1000;
	EXPECT_EINVAL(&opts, "ring_pages");
	opts.ring_pages = 257;
	EXPECT_EINVAL(&opts, "ring_pages");

	/* the same check in system-wide mode */
	IPCPERF_OPTS(ipcperf_session_opts, sw, .system_wide = true, .ring_pages = 6);
	EXPECT_EINVAL(&sw, "ring_pages");
}
END_TEST

START_TEST(test_bad_pid_lists)
{
	const pid_t zero[1] = { 0 }, negative[1] = { -5 };
	pid_t mixed[3] = { getpid(), 0, getpid() };
	IPCPERF_OPTS(ipcperf_session_opts, no_pids, .nr_pids = 2);
	IPCPERF_OPTS(ipcperf_session_opts, no_tids, .nr_tids = 1);
	IPCPERF_OPTS(ipcperf_session_opts, pid0, .pids = zero, .nr_pids = 1);
	IPCPERF_OPTS(ipcperf_session_opts, pidneg, .pids = negative, .nr_pids = 1);
	IPCPERF_OPTS(ipcperf_session_opts, pidmix, .pids = mixed, .nr_pids = 3);
	IPCPERF_OPTS(ipcperf_session_opts, tid0, .tids = zero, .nr_tids = 1);
	IPCPERF_OPTS(ipcperf_session_opts, tidneg, .tids = negative, .nr_tids = 1);

	EXPECT_EINVAL(&no_pids, "");
	EXPECT_EINVAL(&no_tids, "");
	EXPECT_EINVAL(&pid0, "");
	EXPECT_EINVAL(&pidneg, "");
	EXPECT_EINVAL(&pidmix, "");
	EXPECT_EINVAL(&tid0, "");
	EXPECT_EINVAL(&tidneg, "");
}
END_TEST

START_TEST(test_empty_argv)
{
	char *argv[] = { NULL };
	IPCPERF_OPTS(ipcperf_session_opts, opts, .argv = argv);

	EXPECT_EINVAL(&opts, "");
}
END_TEST

START_TEST(test_unknown_events)
{
	IPCPERF_OPTS(ipcperf_session_opts, opts, .pids = self, .nr_pids = 1);

	opts.events = 1u << 20;
	EXPECT_EINVAL(&opts, "events");
	opts.events = IPCPERF_EV__ALL | 1u << 9;
	EXPECT_EINVAL(&opts, "events");
}
END_TEST

/* A caller built against a newer header: fine while the fields we don't know are zero. */
START_TEST(test_newer_struct)
{
	struct {
		struct ipcperf_session_opts o;
		unsigned long long future[4];
	} big;

	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.o.pids = self;
	big.o.nr_pids = 1;
	big.future[2] = 1;
	EXPECT_EINVAL(&big.o, "");

	/* a zero tail is accepted: the next field is checked as usual */
	big.future[2] = 0;
	big.o.ring_pages = 3;
	EXPECT_EINVAL(&big.o, "ring_pages");
}
END_TEST

/* ------------------------------------------------------------------ a session, not started */

/*
 * ipcperf_session__new() reads tracepoint formats from tracefs, which an
 * unprivileged user usually may not: then there is no session to check
 * against and the test has nothing to say.
 */
static struct ipcperf_session *self_session(void)
{
	IPCPERF_OPTS(ipcperf_session_opts, opts, .pids = self, .nr_pids = 1);
	struct ipcperf_session *s;

	errno = 0;
	s = ipcperf_session__new(&opts);
	if (!s) {
		int err = errno;

		ck_assert_msg(err == EACCES || err == EPERM || err == ENOENT,
			      "session on self: %s; messages: %s", strerror(err), msgs);
		fprintf(stderr, "check-opts: no session on self (%s): skipping its checks\n",
			strerror(err));
	}
	return s;
}

static void on_syscall(void *ctx, const struct ipcperf_syscall *ev)
{
	(void)ev;
	(*(int *)ctx)++;
}

START_TEST(test_add_handlers_sz)
{
	struct ipcperf_session *s = self_session();
	int calls = 0;

	if (!s)
		return;
	IPCPERF_OPTS(ipcperf_handlers, h, .ctx = &calls, .syscall = on_syscall);
	struct {
		struct ipcperf_handlers h;
		void *future[2];
	} big;

	h.sz = 0;
	ck_assert_int_eq(ipcperf_session__add_handlers(s, &h), -EINVAL);

	memset(&big, 0, sizeof(big));
	big.h = h;
	big.h.sz = sizeof(big);
	big.future[1] = &calls;
	ck_assert_int_eq(ipcperf_session__add_handlers(s, &big.h), -EINVAL);
	big.future[1] = NULL;
	ck_assert_int_eq(ipcperf_session__add_handlers(s, &big.h), 0);

	h.sz = sizeof(h);
	ck_assert_int_eq(ipcperf_session__add_handlers(s, &h), 0);
	/* an older caller's struct that ends after .syscall */
	h.sz = offsetof(struct ipcperf_handlers, syscall) + sizeof(h.syscall);
	ck_assert_int_eq(ipcperf_session__add_handlers(s, &h), 0);

	ck_assert_int_eq(calls, 0);
	ipcperf_session__delete(s);
}
END_TEST

START_TEST(test_not_started)
{
	struct ipcperf_session *s = self_session();
	int status = 12345;

	if (!s)
		return;
	ck_assert_int_eq(ipcperf_session__fd(s), -EINVAL);
	ck_assert_int_eq(ipcperf_session__child_pid(s), -1);
	ck_assert_int_eq(ipcperf_session__wait_child(s, &status), -ECHILD);
	ck_assert_uint_eq(ipcperf_session__lost_on_cpu(s, 100000), 0);
	ck_assert_uint_eq(ipcperf_session__lost_on_cpu(s, -1), 0);

	struct ipcperf_session_stats st;
	memset(&st, 0xff, sizeof(st));
	st.sz = 0;
	ck_assert_int_eq(ipcperf_session__stats(s, &st), -EINVAL);
	memset(&st, 0xff, sizeof(st));
	st.sz = sizeof(st);
	ck_assert_int_eq(ipcperf_session__stats(s, &st), 0);
	ck_assert_uint_eq(st.records, 0);
	ck_assert_uint_eq(st.lost, 0);
	ck_assert_uint_eq(st.unpaired_enter, 0);
	ck_assert_uint_eq(st.unpaired_exit, 0);
	ck_assert_uint_eq(st.syscalls, 0);
	ck_assert_uint_eq(st.stop_ns, 0);
	ipcperf_session__delete(s);
}
END_TEST

/* A case of @s, added to it, whose tests have self as a target and capture the messages. */
static TCase *session_case(Suite *s, const char *name)
{
	TCase *tc = tcase_create(name);

	tcase_add_checked_fixture(tc, self_setup, NULL);
	tcase_add_checked_fixture(tc, setup, teardown);
	suite_add_tcase(s, tc);
	return tc;
}

Suite *opts_suite(void)
{
	Suite *s = suite_create("opts");
	TCase *tc;

	tc = tcase_create("library");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_version);
	tcase_add_test(tc, test_syscall_name);
	tcase_add_test(tc, test_set_print_returns_previous);
	tcase_add_test(tc, test_delete_null);
	suite_add_tcase(s, tc);

	tc = session_case(s, "session-opts");
	tcase_add_test(tc, test_null_opts);
	tcase_add_test(tc, test_no_target);
	tcase_add_test(tc, test_sz_too_small);
	tcase_add_test(tc, test_several_targets);
	tcase_add_test(tc, test_ring_pages);
	tcase_add_test(tc, test_bad_pid_lists);
	tcase_add_test(tc, test_empty_argv);
	tcase_add_test(tc, test_unknown_events);
	tcase_add_test(tc, test_newer_struct);

	tc = session_case(s, "session-not-started");
	tcase_add_test(tc, test_add_handlers_sz);
	tcase_add_test(tc, test_not_started);
	return s;
}
