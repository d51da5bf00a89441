/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests of top's rows (cli/topview.c): the fd pane's groups, made
 * again from the fds at each update, on hand-made calls with exactly known
 * bytes over two intervals: a server's connections from two traced
 * clients and one untraced are one row naming its known peers, its totals
 * the sums of its fds'; with per_fd, a row each. The rows' order: by the
 * key, its ties by the totals, the pid and the fd.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <check.h>

#include <ipcperf/ipcperf.h>
#include "check-helpers.h"
#include "suites.h"
#include "top/topview.h"

static struct ipcperf_stats *st;
static uint64_t clk = 1000;

static void setup(void)
{
	IPCPERF_OPTS(ipcperf_stats_opts, o, .no_proc = true);

	st = ipcperf_stats__new(&o);
	ck_assert_ptr_nonnull(st);
}

static void teardown(void)
{
	ipcperf_stats__delete(st);
}

static void sc(pid_t pid, int nr, const char *name, enum ipcperf_sc_class cls, int fd, int64_t ret)
{
	struct ipcperf_syscall ev = {
		.start_ns = clk, .end_ns = clk + 1000, .pid = pid, .tid = pid, .nr = nr,
		.name = name, .cls = cls, .fd = cls == IPCPERF_SC_FD_NEW ? -1 : fd, .ret = ret,
		.count = ret > 0 ? (uint64_t)ret : 0, .nr_args = 3,
	};

	ev.args[0] = cls == IPCPERF_SC_FD_NEW ? (uint64_t)(int64_t)AT_FDCWD : (uint64_t)fd;
	ev.args[2] = ev.count;
	clk += 2000;
	ipcperf_stats__add_syscall(st, &ev);
}

/* TCP socket @fd of @pid, inode @ino, "127.0.0.1:@lp -> 127.0.0.1:@rp", made now. */
static void conn(pid_t pid, int fd, uint64_t ino, int lp, int rp)
{
	char object[32], detail[64];
	struct ipcperf_fd_open ev = {
		.time_ns = clk, .pid = pid, .tid = pid, .fd = fd, .nr = SYS_openat, .ret = fd,
		.object = object, .kind = IPCPERF_FD_TCP, .ino = ino, .detail = detail,
		.capacity = -1,
	};

	snprintf(object, sizeof(object), "socket:[%llu]", (unsigned long long)ino);
	snprintf(detail, sizeof(detail), "127.0.0.1:%d -> 127.0.0.1:%d", lp, rp);
	ipcperf_stats__add_fd_open(st, &ev);
	sc(pid, SYS_openat, "openat", IPCPERF_SC_FD_NEW, fd, fd);
}

static void io(pid_t pid, int fd, bool w, int64_t bytes)
{
	sc(pid, w ? SYS_write : SYS_read, w ? "write" : "read", w ? IPCPERF_SC_WRITE : IPCPERF_SC_READ,
	   fd, bytes);
}

static void comm(pid_t pid, const char *filename)
{
	struct ipcperf_task ev = { .kind = IPCPERF_TASK_EXEC, .time_ns = clk++, .pid = pid,
				   .tid = pid, .filename = filename };

	ipcperf_stats__add_task(st, &ev);
}

/* One interval taken in (the accounting then zeroed, as ipcperf_interval__next() does). */
static void take(struct topview *tv)
{
	struct ipcperf_interval_info in = { .sz = sizeof(in), .start_ns = 0, .end_ns = 1000000000,
					    .time_ns = 1000000000 };

	ck_assert_int_eq(topview_update(tv, st, NULL, &in), 0);
	ipcperf_stats__reset(st);
}

/* The fd pane of a frame of @tv, in a malloc'ed string. */
static char *pane_of(struct topview *tv)
{
	char *buf = NULL, *from, *to;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	topview_draw(tv, f, 0, 0, false);
	fclose(f);
	from = strstr(buf, "OBJECT\n");
	ck_assert_ptr_nonnull(from);
	from += strlen("OBJECT\n");
	to = strstr(from, "\n\n");
	ck_assert_ptr_nonnull(to);
	memmove(buf, from, (size_t)(to - from) + 1);
	buf[to - from + 1] = '\0';
	return buf;
}

/*
 * Server 300 (port 5000) served 2 connections of client 200, 1 of client
 * 201 and 1 of a client not traced (its end unknown); each asks 100 bytes
 * and gets 200, the first frame 3 of them, the second all 4 again.
 */
START_TEST(test_groups)
{
	static const struct { pid_t cli; int sfd, cfd, port; } c[] = {
		{ 200, 10, 3, 41000 }, { 200, 11, 4, 41001 }, { 201, 12, 3, 41002 }, { 0, 13, 0, 41003 },
	};
	struct topview tv = { .key = TOP_KEY_BYTES, .what = "test", .delay = 1 };
	char *pane;

	comm(200, "/usr/bin/cli");
	comm(201, "/usr/bin/cli2");
	comm(300, "/usr/bin/srv");
	for (int i = 0; i < 4; i++) {
		conn(300, c[i].sfd, 900 + (uint64_t)i, 5000, c[i].port);
		if (c[i].cli)
			conn(c[i].cli, c[i].cfd, 800 + (uint64_t)i, c[i].port, 5000);
	}
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 4 - !round; i++) {
			io(300, c[i].sfd, false, 100);
			io(300, c[i].sfd, true, 200);
		}
		take(&tv);
	}
	pane = pane_of(&tv);
	ck_assert_msg(strstr(pane, "    300     * tcp       8.0   1.2 kB   0.0        14        2100  "
			     "127.0.0.1:5000 <- 2 peers, 4 conns\n"),
		      "no group row of the server's 4 connections, 2 known peers:\n%s", pane);
	ck_assert_uint_eq(tv.groups.nr, 3);
	free(pane);

	tv.per_fd = true;
	pane = pane_of(&tv);
	ck_assert_msg(strstr(pane, "    300    10 tcp       2.0    300 B   0.0         4         600  "
			     "127.0.0.1:5000 -> 127.0.0.1:41000\n") &&
		      strstr(pane, "    300    13 tcp       2.0    300 B   0.0         2         300  "
			     "127.0.0.1:5000 -> 127.0.0.1:41003\n"),
		      "no row of fd 10 (600 bytes) and fd 13 (300):\n%s", pane);
	free(pane);
	topview_free(&tv);
}
END_TEST

/* The "PID FD" (or "PID COMM") of each row of the pane under @heading of @tv's frame, one a line. */
static char *order_of(struct topview *tv, const char *heading)
{
	char *buf = NULL, *out = NULL, *at, *end;
	size_t len = 0, olen = 0;
	FILE *f = open_memstream(&buf, &len), *o = open_memstream(&out, &olen);
	int pid, fd;

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(o);
	topview_draw(tv, f, 0, 0, false);
	fclose(f);
	at = strstr(buf, heading);
	ck_assert_msg(at != NULL, "no pane %s:\n%s", heading, buf);
	at = strchr(at, '\n') + 1;
	end = strstr(at, "\n\n");
	for (; at && (!end || at < end); at = strchr(at, '\n'), at = at ? at + 1 : NULL)
		if (sscanf(at, "%d %d", &pid, &fd) == 2)
			fprintf(o, "%d/%d ", pid, fd);
		else if (sscanf(at, "%d", &pid) == 1)
			fprintf(o, "%d ", pid);
	fclose(o);
	free(buf);
	return out;
}

/*
 * Processes and fds, largest first by the key (bytes) in the last interval,
 * then since the start, then by pid, and an fd by its fd: in the second
 * interval every fd below moved 50 bytes but 600's and 700's, 100 each.
 */
START_TEST(test_order)
{
	static const struct { pid_t pid; int fd; int64_t first, second; } c[] = {
		{ 500, 5, 300, 50 }, { 500, 4, 100, 50 }, { 400, 7, 100, 50 }, { 400, 6, 0, 50 },
		{ 400, 9, 0, 50 }, { 700, 3, 0, 100 }, { 600, 3, 0, 100 },
	};
	struct topview tv = { .key = TOP_KEY_BYTES, .what = "test", .delay = 1, .per_fd = true };
	char *order;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		conn(c[i].pid, c[i].fd, 700 + i, 6000 + (int)i, 5000);
	for (int round = 0; round < 2; round++) {
		for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
			if (round ? c[i].second : c[i].first)
				io(c[i].pid, c[i].fd, true, round ? c[i].second : c[i].first);
		take(&tv);
	}
	/* processes: 400 moved 150 (250 in all), 500 100 (500), 600 and 700 100 (100) */
	order = order_of(&tv, "COMM");
	ck_assert_str_eq(order, "400 500 600 700 ");
	free(order);
	order = order_of(&tv, "OBJECT");
	ck_assert_str_eq(order, "600/3 700/3 500/5 400/7 500/4 400/6 400/9 ");
	free(order);
	topview_free(&tv);
}
END_TEST

Suite *topview_suite(void)
{
	const TTest *const tests[] = { test_groups, test_order };
	Suite *s = suite_create("topview");

	add_tests(new_tcase(s, "groups", setup, teardown), tests, sizeof(tests) / sizeof(tests[0]));
	return s;
}
