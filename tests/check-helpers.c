/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What several libcheck suites share (check-helpers.h says what). */
#include <stdlib.h>
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
