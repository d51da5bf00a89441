/* Unit tests of trace's table of fds (cli/trace/tracefds.c). */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "tracefds.h"
#include "check-helpers.h"
#include "suites.h"

static void set(struct tracefds *t, pid_t pid, int fd, const char *path)
{
	struct ipcperf_fd_object o = { .kind = IPCPERF_FD_FILE, .object = path, .detail = "" };

	tracefds_set(t, pid, fd, &o);
}

static const char *object(const struct tracefds *t, pid_t pid, int fd)
{
	const struct ipcperf_fd_object *o = tracefds_get(t, pid, fd);

	return o ? o->object : NULL;
}

/* A pid's fd and the file it names (NULL: none). */
struct fd_object {
	pid_t pid;
	int fd;
	const char *path;
};

/* Each of @set set in @t, then pid 10 forks pid 11. */
static void fork_after(struct tracefds *t, const struct fd_object *set_v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		set(t, set_v[i].pid, set_v[i].fd, set_v[i].path);
	tracefds_fork(t, 10, 11);
}

/* Each of @want is what @t says its fd names. */
static void expect_objects(const struct tracefds *t, const struct fd_object *want, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *got = object(t, want[i].pid, want[i].fd);

		if (want[i].path)
			ck_assert_str_eq(got, want[i].path);
		else
			ck_assert_ptr_null(got);
	}
}

/* fork copies the parent's fds to the child */
START_TEST(test_fork_copies)
{
	static const struct fd_object before[] = {
		{ 10, 0, "/dev/null" }, { 10, 3, "/etc/passwd" }, { 20, 3, "/tmp/other" },
	};
	static const struct fd_object after[] = {
		{ 11, 0, "/dev/null" }, { 11, 3, "/etc/passwd" }, { 11, 4, NULL },
	};
	struct tracefds t = { 0 };

	fork_after(&t, before, ARRAY_SIZE(before));
	expect_objects(&t, after, ARRAY_SIZE(after));
	ck_assert_uint_eq(t.n, 5);
	/* the copies are the child's own: the parent's close leaves them */
	tracefds_drop(&t, 10, -1);
	ck_assert_str_eq(object(&t, 11, 3), "/etc/passwd");
	ck_assert_str_eq(object(&t, 20, 3), "/tmp/other");
	tracefds_fini(&t);
}
END_TEST

/*
 * The child's first calls came before the parent's fork returned (it ran on
 * another CPU): the fd it opened stays what its call said, not the parent's.
 */
START_TEST(test_fork_after_childs_calls)
{
	static const struct fd_object before[] = {
		{ 10, 3, "/etc/passwd" }, { 10, 4, "/etc/group" },
		{ 11, 3, "/usr/lib/x86_64-linux-gnu/libc.so.6" },
	};
	static const struct fd_object after[] = {
		{ 11, 3, "/usr/lib/x86_64-linux-gnu/libc.so.6" }, { 11, 4, "/etc/group" },
		{ 10, 3, "/etc/passwd" },
	};
	struct tracefds t = { 0 };

	fork_after(&t, before, ARRAY_SIZE(before));
	expect_objects(&t, after, ARRAY_SIZE(after));
	ck_assert_uint_eq(t.n, 4);
	tracefds_fini(&t);
}
END_TEST

/* many fds: the table grows, every one kept */
START_TEST(test_many)
{
	struct tracefds t = { 0 };
	char path[32];

	for (int fd = 0; fd < 1000; fd++) {
		snprintf(path, sizeof(path), "/f%d", fd);
		set(&t, 10, fd, path);
	}
	tracefds_fork(&t, 10, 11);
	ck_assert_uint_eq(t.n, 2000);
	ck_assert_str_eq(object(&t, 11, 999), "/f999");
	tracefds_drop(&t, 11, 500);
	ck_assert_ptr_null(object(&t, 11, 500));
	ck_assert_str_eq(object(&t, 10, 500), "/f500");
	tracefds_fini(&t);
}
END_TEST

Suite *tracefds_suite(void)
{
	Suite *s = suite_create("tracefds");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, test_fork_copies);
	tcase_add_test(tc, test_fork_after_childs_calls);
	tcase_add_test(tc, test_many);
	suite_add_tcase(s, tc);
	return s;
}
