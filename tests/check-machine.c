/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The machine check (lib/machine/check.c): its items, in order, as ipcperf check prints them. */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <check.h>
#include <ipcperf/ipcperf.h>
#include "suites.h"

struct items {
	char names[16][32];
	unsigned int n, fatal;
	int stop_at;		/* return 7 from this item on (1-based; 0: never) */
};

static int on_item(void *ctx, const struct ipcperf_check_item *it)
{
	struct items *t = ctx;

	ck_assert_uint_lt(t->n, 16);
	ck_assert_ptr_nonnull(it->name);
	ck_assert_ptr_nonnull(it->detail);
	ck_assert_msg(it->detail[0] && !strchr(it->detail, '\n'), "%s: detail '%s'", it->name,
		      it->detail);
	/* A fix exactly where something is wrong. */
	ck_assert_msg((it->status == IPCPERF_CHECK_OK) == (it->fix == NULL), "%s: status %d, fix %s",
		      it->name, (int)it->status, it->fix ? it->fix : "NULL");
	t->fatal += it->status == IPCPERF_CHECK_FATAL;
	snprintf(t->names[t->n++], sizeof(t->names[0]), "%s", it->name);
	return t->stop_at && (int)t->n >= t->stop_at ? 7 : 0;
}

static const char *const order[] = {
	"tracefs", "perf_event_paranoid", "ring_buffers", "tracepoints", "software_counters",
	"hardware_counters", "fd_identity", "libperf", "capture",
};

/* As root: every item in order, tracing works, the capture is its last item. */
START_TEST(test_machine_check_items)
{
	IPCPERF_OPTS(ipcperf_check_opts, o, .ring_pages = 8);
	struct items t = { .n = 0 };

	ck_assert_int_eq(ipcperf_machine_check(&o, on_item, &t), 1);
	ck_assert_uint_eq(t.n, sizeof(order) / sizeof(order[0]));
	for (unsigned int i = 0; i < t.n; i++)
		ck_assert_str_eq(t.names[i], order[i]);
	ck_assert_uint_eq(t.fatal, 0);
}
END_TEST

START_TEST(test_machine_check_opts)
{
	IPCPERF_OPTS(ipcperf_check_opts, nocap, .no_capture = true);
	IPCPERF_OPTS(ipcperf_check_opts, bad, .ring_pages = 3);
	struct items t = { .n = 0 }, s = { .stop_at = 2 };

	/* Without the capture: no fatal item, so it works; "capture" left out. */
	ck_assert_int_eq(ipcperf_machine_check(&nocap, on_item, &t), 1);
	ck_assert_uint_eq(t.n, sizeof(order) / sizeof(order[0]) - 1);
	ck_assert_str_eq(t.names[t.n - 1], "libperf");
	/* A callback's non-zero return stops the items and is returned. */
	ck_assert_int_eq(ipcperf_machine_check(&nocap, on_item, &s), 7);
	ck_assert_uint_eq(s.n, 2);
	ck_assert_int_eq(ipcperf_machine_check(&bad, on_item, &t), -EINVAL);
	ck_assert_int_eq(ipcperf_machine_check(NULL, NULL, NULL), -EINVAL);
}
END_TEST

Suite *machine_suite(void)
{
	Suite *s = suite_create("machine");
	TCase *tc = tcase_create("check");

	tcase_add_test(tc, test_machine_check_items);
	tcase_add_test(tc, test_machine_check_opts);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}
