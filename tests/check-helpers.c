/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What several libcheck suites share (check-helpers.h says what). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <check.h>

#include <ipcperf/ipcperf.h>
#include "check-helpers.h"

int run_suites(const suite_fn *suites, size_t n)
{
	SRunner *sr = srunner_create(suites[0]());

	for (size_t i = 1; i < n; i++)
		srunner_add_suite(sr, suites[i]());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

TCase *new_tcase(Suite *s, const char *name, SFun setup, SFun teardown)
{
	TCase *tc = tcase_create(name);

	if (setup || teardown)
		tcase_add_checked_fixture(tc, setup, teardown);
	suite_add_tcase(s, tc);
	return tc;
}

void add_tests(TCase *tc, const TTest *const *tests, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tcase_add_test(tc, tests[i]);
}

void flows_fixture_new(struct ipcperf_stats **st, struct ipcperf_flows **fl, bool no_proc)
{
	IPCPERF_OPTS(ipcperf_stats_opts, o, .no_proc = no_proc);

	*st = ipcperf_stats__new(&o);
	ck_assert_ptr_nonnull(*st);
	*fl = ipcperf_flows__new(*st);
	ck_assert_ptr_nonnull(*fl);
}

void flows_fixture_delete(struct ipcperf_stats **st, struct ipcperf_flows **fl)
{
	ipcperf_flows__delete(*fl);
	ipcperf_stats__delete(*st);
	*fl = NULL;
	*st = NULL;
}

void expect_fd_kind_names(void)
{
	static const struct {
		enum ipcperf_fd_kind kind;
		const char *name;
	} names[] = {
		{ IPCPERF_FD_UNKNOWN, "unknown" },
		{ IPCPERF_FD_PIPE, "pipe" },
		{ IPCPERF_FD_UNIX, "unix" },
		{ IPCPERF_FD_TCP, "tcp" },
		{ IPCPERF_FD_UDP, "udp" },
		{ IPCPERF_FD_FILE, "file" },
		{ IPCPERF_FD_TTY, "tty" },
		{ IPCPERF_FD_OTHER, "other" },
		{ (enum ipcperf_fd_kind)99, "unknown" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		ck_assert_str_eq(ipcperf_fd_kind_name(names[i].kind), names[i].name);
}

struct sc_count *sc_counts_get(struct sc_counts *t, const char *name)
{
	struct sc_count *c = (struct sc_count *)sc_counts_find(t, name);

	if (c)
		return c;
	ck_assert_msg(t->n < ARRAY_SIZE(t->v), "too many syscall names");
	ck_assert_msg(strlen(name) < sizeof(t->v[0].name), "syscall name too long: %s", name);
	memset(&t->v[t->n], 0, sizeof(t->v[0]));
	snprintf(t->v[t->n].name, sizeof(t->v[0].name), "%s", name);
	return &t->v[t->n++];
}

const struct sc_count *sc_counts_find(const struct sc_counts *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].name, name))
			return &t->v[i];
	return NULL;
}

void msg_add(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Under AddressSanitizer, an allocation too large to make returns NULL, as
 * the C library's does, instead of ending the run: the unit tests check
 * that the library reports it (ENOMEM). Read by the sanitizer at start;
 * without it, an unused function.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}
