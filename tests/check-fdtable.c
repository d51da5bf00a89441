/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests of the fd table (lib/fdtable.c, lib/fdreport.c) through its
 * own API (lib/fdtable.h): calls and task events are built by hand the way
 * the pipeline hands them to the stats, and fed to ipp_fdtab__syscall() and
 * ipp_fdtab__task(). What an fd is comes from a scripted resolver
 * (lib/resolve.h) whose answers carry the time /proc would have been read,
 * so each case says exactly which incarnation each call went to and what
 * it is reported as. No root, no kernel, no /proc.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <check.h>

#include <ipcperf/ipcperf.h>
#include "fd/fdtable.h"
#include "fd/resolve.h"
#include "syscalls.h"
#include "check-helpers.h"
#include "suites.h"

/* ------------------------------------------------------------------ a scripted resolver */

/* What /proc would say of @fd of @pid when read at @read_at (err: the read failed). */
struct answer {
	pid_t pid;
	int fd;
	const char *object;
	uint64_t read_at;
	int cloexec;
	int err;
	bool used;
};

struct asked {
	pid_t pid;
	int fd;
	uint64_t floor_ns;
};

static struct script {
	struct ipp_resolver base;
	struct answer ans[16];
	size_t nr_ans;
	struct asked asked[32];
	size_t nr_asked;
	unsigned int puts;
} res;

static struct ipp_fdtab *t;

/* The first answer not given yet for @fd of @pid, as /proc read then would give it. */
static void script_resolve(struct ipp_resolver *r, pid_t pid, int fd, uint64_t floor_ns,
			   struct ipp_ident *id)
{
	struct script *s = (struct script *)r;

	ck_assert_uint_lt(s->nr_asked, IPP_ARRAY_SIZE(s->asked));
	s->asked[s->nr_asked++] = (struct asked){ pid, fd, floor_ns };
	memset(id, 0, sizeof(*id));
	id->capacity = -1;
	id->cloexec = -1;
	for (size_t i = 0; i < s->nr_ans; i++) {
		struct answer *a = &s->ans[i];

		if (a->used || a->pid != pid || a->fd != fd)
			continue;
		a->used = true;
		id->read_ns = a->read_at;
		if (a->err) {
			id->state = IPP_ID_UNKNOWN;
			id->read_err = a->err;
			return;
		}
		id->state = IPP_ID_PROC;
		id->res_ns = a->read_at;
		id->kind = IPCPERF_FD_FILE;
		id->cloexec = a->cloexec;
		snprintf(id->object, sizeof(id->object), "%s", a->object);
		return;
	}
	id->state = IPP_ID_UNKNOWN;
	id->read_ns = 1;
	id->read_err = -ENOENT;
}

static void script_scan(struct ipp_resolver *r, pid_t pid, bool pipe_cap, ipp_ident_cb cb,
			void *ctx)
{
	(void)r, (void)pid, (void)pipe_cap, (void)cb, (void)ctx;
}

static int script_comm(struct ipp_resolver *r, pid_t pid, char *buf, size_t len)
{
	(void)r, (void)pid, (void)buf, (void)len;
	return -ENOENT;
}

static int script_next_proc(struct ipp_resolver *r, pid_t *pid, char *buf, size_t len)
{
	(void)r, (void)pid, (void)buf, (void)len;
	return -ENOENT;
}

static void script_connected(struct ipp_resolver *r)
{
	(void)r;
}

static void script_put(struct ipp_resolver *r)
{
	((struct script *)r)->puts++;
}

static const struct ipp_resolver_ops script_ops = {
	.resolve = script_resolve,
	.scan = script_scan,
	.comm = script_comm,
	.next_proc = script_next_proc,
	.connected = script_connected,
	.put = script_put,
};

/* /proc, read at @read_at, says @fd of @pid is @object (@cloexec: its fdinfo flags). */
static void answer(pid_t pid, int fd, const char *object, uint64_t read_at, int cloexec)
{
	ck_assert_uint_lt(res.nr_ans, IPP_ARRAY_SIZE(res.ans));
	res.ans[res.nr_ans++] = (struct answer){ .pid = pid, .fd = fd, .object = object,
						 .read_at = read_at, .cloexec = cloexec };
}

static void setup(void)
{
	memset(&res, 0, sizeof(res));
	res.base.ops = &script_ops;
	t = ipp_fdtab__new();
	ck_assert_ptr_nonnull(t);
	ipp_fdtab__set_resolver(t, &res.base);
}

static void teardown(void)
{
	ipp_fdtab__delete(t);
	ck_assert_uint_eq(res.puts, 1);	/* the table put the reference it took */
	t = NULL;
}

/* ------------------------------------------------------------------ events */

/*
 * A completed call of @name from @start to @end, with its arguments as the
 * tracepoint carries them; its fd is the argument the syscall table names.
 * @return what ipp_fdtab__syscall() returned: the incarnation a read/write
 * went to, -1 for the other calls.
 */
static long call(pid_t pid, const char *name, int64_t ret, uint64_t start, uint64_t end,
		 const uint64_t *args, unsigned int nr_args)
{
	const struct ipp_scdesc *sc = ipp_scdesc_by_name(name);
	struct ipcperf_syscall ev = {
		.start_ns = start, .end_ns = end, .pid = pid, .tid = pid, .name = name,
		.ret = ret, .nr_args = nr_args, .fd = -1, .out_fd = -1,
	};

	if (sc) {
		ev.nr = sc->nr;
		ev.name = sc->name;
		ev.cls = sc->cls;
		if (sc->fd_arg >= 0 && (unsigned int)sc->fd_arg < nr_args)
			ev.fd = (int)args[sc->fd_arg];
	}
	memcpy(ev.args, args, nr_args * sizeof(*args));
	return ipp_fdtab__syscall(t, &ev);
}

#define CALL(pid, name, ret, start, end, ...)                                          \
	call(pid, name, ret, start, end, (const uint64_t[]){ __VA_ARGS__ },            \
	     sizeof((const uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t))

#define PATH_PTR 0x7ffd2000u
#define BUF_PTR 0x7ffd1000u

/* openat(AT_FDCWD, path, @flags) = @fd, ending at @end. */
static void do_open(pid_t pid, int fd, uint64_t flags, uint64_t end)
{
	ck_assert_int_eq(CALL(pid, "openat", fd, end - 5, end, (uint64_t)AT_FDCWD, PATH_PTR, flags),
			 -1);
}

/* write(@fd, buf, @n) = @n from @start to @end: @return the incarnation it went to. */
static long do_write(pid_t pid, int fd, uint64_t n, uint64_t start, uint64_t end)
{
	return CALL(pid, "write", (int64_t)n, start, end, (uint64_t)fd, BUF_PTR, n);
}

static void do_close(pid_t pid, int fd, int64_t ret, uint64_t start, uint64_t end)
{
	ck_assert_int_eq(CALL(pid, "close", ret, start, end, (uint64_t)fd), -1);
}

static void do_task(enum ipcperf_task_kind kind, pid_t pid, pid_t child, uint64_t when)
{
	struct ipcperf_task ev = { .kind = kind, .time_ns = when, .pid = pid, .tid = pid,
				   .child_tid = child };

	ipp_fdtab__task(t, &ev);
}

/* The open incarnation of @fd of @pid: its index, which must exist. */
static size_t open_inc(pid_t pid, int fd)
{
	long i = ipp_fdtab__inc_of(t, pid, fd);

	ck_assert_msg(i >= 0, "fd %d of %d: no open incarnation (%ld)", fd, (int)pid, i);
	ck_assert(ipp_fdtab__inc(t, (size_t)i)->open);
	return (size_t)i;
}

/* /proc says @fd of @pid is @object when openat(@flags) returns it at @end: @return its incarnation. */
static size_t opened(pid_t pid, int fd, const char *object, uint64_t flags, uint64_t end)
{
	answer(pid, fd, object, end, 0);
	do_open(pid, fd, flags, end);
	return open_inc(pid, fd);
}

static const struct ipp_inc *inc(size_t i)
{
	const struct ipp_inc *in = ipp_fdtab__inc(t, i);

	ck_assert_ptr_nonnull(in);
	return in;
}

/* What incarnation @i is reported as, by object. */
static const char *reported(size_t i)
{
	return ipp_fdtab__reported(t, i)->object;
}

#define P 100
#define C 200

/* @fd of P has no open incarnation: @i, its last, ended at @end. */
static void expect_closed(int fd, size_t i, uint64_t end)
{
	ck_assert_int_eq(ipp_fdtab__inc_of(t, P, fd), -ENOENT);
	ck_assert_uint_eq(inc(i)->end_ns, end);
}

/* The exec at 500 closed @fd of P: its incarnation @i ended then, by the task, reported as @object. */
static void expect_exec_closed(int fd, size_t i, const char *object)
{
	expect_closed(fd, i, 500);
	ck_assert(inc(i)->by_task);
	ck_assert_str_eq(reported(i), object);
}

/* ------------------------------------------------------------------ open, close */

START_TEST(test_open_starts_incarnation)
{
	size_t a, b, u;

	answer(P, 3, "/tmp/a", 110, 0);
	answer(P, 4, "/tmp/b", 210, 0);
	do_open(P, 3, O_RDONLY, 110);
	a = open_inc(P, 3);
	ck_assert_uint_eq(inc(a)->start_ns, 110);
	ck_assert_int_eq(inc(a)->id.state, IPP_ID_PROC);
	ck_assert_str_eq(inc(a)->id.object, "/tmp/a");
	ck_assert_int_eq(inc(a)->id.cloexec, 0);
	ck_assert_uint_eq(inc(a)->id.auth, a);
	/* asked once, for an incarnation that began at the open's exit */
	ck_assert_uint_eq(res.nr_asked, 1);
	ck_assert_uint_eq(res.asked[0].floor_ns, 110);

	ck_assert_int_eq(do_write(P, 3, 10, 150, 160), (long)a);
	ck_assert_uint_eq(res.nr_asked, 1);

	/* O_CLOEXEC from the call's flags, whatever /proc said */
	do_open(P, 4, O_WRONLY | O_CLOEXEC, 210);
	b = open_inc(P, 4);
	ck_assert_uint_ne(b, a);
	ck_assert_int_eq(inc(b)->id.cloexec, 1);
	ck_assert_str_eq(reported(b), "/tmp/b");

	/* a failed open makes nothing and asks nothing */
	ck_assert_int_eq(CALL(P, "openat", -ENOENT, 300, 305, (uint64_t)AT_FDCWD, PATH_PTR, 0), -1);
	ck_assert_int_eq(ipp_fdtab__inc_of(t, P, 5), -ENOENT);
	ck_assert_uint_eq(res.nr_asked, 2);

	/* an fd first seen in use: looked up then, from the start of the process */
	u = (size_t)do_write(P, 7, 1, 400, 410);
	ck_assert_uint_eq(u, open_inc(P, 7));
	ck_assert_uint_eq(inc(u)->start_ns, 0);
	ck_assert_uint_eq(res.asked[2].floor_ns, 0);
	ck_assert_str_eq(reported(u), "unknown");
	ck_assert_str_eq(ipp_fdtab__reported(t, u)->detail, "identity unknown: not-found");
	ck_assert_uint_eq(ipp_fdtab__count(t), 3);
}
END_TEST

START_TEST(test_close_ends_incarnation)
{
	size_t a, b, u;

	a = opened(P, 3, "/a", O_RDONLY, 110);
	b = opened(P, 4, "/b", O_RDONLY, 120);

	/* the fd is gone early in the call: the incarnation ends at its start */
	do_close(P, 3, 0, 200, 210);
	ck_assert_int_eq(ipp_fdtab__inc_of(t, P, 3), -ENOENT);
	ck_assert(!inc(a)->open);
	ck_assert_uint_eq(inc(a)->end_ns, 200);
	ck_assert_str_eq(reported(a), "/a");
	ck_assert_uint_eq(ipp_fdtab__nr_closed(t), 1);

	/* EBADF closed nothing; any other error still closed the fd */
	do_close(P, 4, -EBADF, 250, 255);
	ck_assert_uint_eq(open_inc(P, 4), b);
	do_close(P, 4, -EINTR, 300, 310);
	ck_assert_int_eq(ipp_fdtab__inc_of(t, P, 4), -ENOENT);
	ck_assert_uint_eq(inc(b)->end_ns, 300);
	ck_assert_uint_eq(ipp_fdtab__nr_closed(t), 2);

	/* a close of an fd never seen ends nothing */
	do_close(P, 9, 0, 320, 330);
	ck_assert_uint_eq(ipp_fdtab__nr_closed(t), 2);

	/*
	 * fd 3 used again with no open seen: a new incarnation, and /proc must
	 * have been read after the close's exit to describe it.
	 */
	u = (size_t)do_write(P, 3, 1, 400, 410);
	ck_assert_uint_ne(u, a);
	ck_assert_uint_eq(res.nr_asked, 3);
	ck_assert_uint_eq(res.asked[2].floor_ns, 210);
	ck_assert_uint_eq(inc(a)->end_ns, 200);
}
END_TEST

#define CLOSE_RANGE_UNSHARE_FLAG 2u
#define CLOSE_RANGE_CLOEXEC_FLAG 4u

static void do_close_range(pid_t pid, unsigned int first, unsigned int last, uint64_t flags,
			   int64_t ret, uint64_t start, uint64_t end)
{
	ck_assert_int_eq(CALL(pid, "close_range", ret, start, end, first, last, flags), -1);
}

/*
 * close_range(first, last, 0): each open fd in the range ends at the
 * call's start, as close's fd does; the others go on. An fd another
 * thread's call made on a freed number while it ran is not its.
 */
START_TEST(test_close_range_ends_fds)
{
	size_t i3, i4, i5, i7, n5, u6;

	ck_assert_ptr_nonnull(ipp_scdesc_by_name("close_range"));
	i3 = opened(P, 3, "/a", O_RDONLY, 110);
	i4 = opened(P, 4, "/b", O_RDONLY, 120);
	i5 = opened(P, 5, "/c", O_RDONLY, 130);
	i7 = opened(P, 7, "/e", O_RDONLY, 140);
	answer(P, 5, "/new", 205, 0);
	ck_assert_int_eq(do_write(P, 4, 10, 150, 160), (long)i4);

	/* another thread's open took 5, freed early in the call, before the call's exit */
	do_open(P, 5, O_RDONLY, 205);
	n5 = open_inc(P, 5);
	do_close_range(P, 4, 6, 0, 0, 200, 210);
	ck_assert_int_eq(ipp_fdtab__inc_of(t, P, 4), -ENOENT);
	ck_assert(!inc(i4)->open);
	ck_assert_uint_eq(inc(i4)->end_ns, 200);
	ck_assert(!inc(i4)->by_task);
	ck_assert_str_eq(reported(i4), "/b");
	ck_assert_uint_eq(inc(i5)->end_ns, 205);	/* ended by the open, as before */
	ck_assert_uint_eq(open_inc(P, 5), n5);
	ck_assert_str_eq(reported(n5), "/new");
	/* outside the range: untouched */
	ck_assert_uint_eq(open_inc(P, 3), i3);
	ck_assert_uint_eq(open_inc(P, 7), i7);
	ck_assert_uint_eq(ipp_fdtab__nr_closed(t), 2);

	/* a range past the last open fd closes nothing */
	do_close_range(P, 8, ~0u, 0, 0, 220, 225);
	ck_assert_uint_eq(ipp_fdtab__nr_closed(t), 2);
	ck_assert_uint_eq(open_inc(P, 7), i7);

	/*
	 * 4 and 6 used with no open seen: new incarnations, for which /proc
	 * must have been read after the call's exit, whether the table held
	 * the number (4) or not (6).
	 */
	ck_assert_int_ne(do_write(P, 4, 1, 300, 310), (long)i4);
	u6 = (size_t)do_write(P, 6, 1, 320, 330);
	ck_assert_uint_eq(inc(u6)->start_ns, 0);
	ck_assert_uint_eq(res.nr_asked, 7);
	ck_assert_int_eq(res.asked[5].fd, 4);
	ck_assert_uint_eq(res.asked[5].floor_ns, 210);
	ck_assert_int_eq(res.asked[6].fd, 6);
	ck_assert_uint_eq(res.asked[6].floor_ns, 210);
	/* a number past every range: from the process's start */
	do_write(P, 2, 1, 340, 350);
	ck_assert_uint_eq(res.asked[7].floor_ns, 0);
}
END_TEST

/* What the children of fork call before exec: close_range(3, ~0U, 0), and with CLOSE_RANGE_UNSHARE. */
START_TEST(test_close_range_all_above)
{
	size_t i0, i3, i9, i12;

	answer(P, 0, "/dev/null", 50, 0);
	i0 = (size_t)do_write(P, 0, 1, 40, 50);
	i3 = opened(P, 3, "/a", O_RDONLY, 110);
	i9 = opened(P, 9, "/b", O_RDONLY, 120);
	i12 = opened(P, 12, "/c", O_RDONLY, 130);
	do_close_range(P, 10, ~0u, CLOSE_RANGE_UNSHARE_FLAG, 0, 150, 155);
	ck_assert_uint_eq(inc(i12)->end_ns, 150);
	ck_assert_uint_eq(open_inc(P, 9), i9);
	do_close_range(P, 3, ~0u, 0, 0, 200, 205);
	expect_closed(3, i3, 200);
	expect_closed(9, i9, 200);
	ck_assert_uint_eq(open_inc(P, 0), i0);
	ck_assert_uint_eq(ipp_fdtab__nr_closed(t), 3);
	ck_assert_str_eq(reported(i3), "/a");
	ck_assert_str_eq(reported(i9), "/b");
	ck_assert_str_eq(reported(i12), "/c");
}
END_TEST

/* A close_range that failed closed nothing: EINVAL for first above last, or a flag it does not know. */
START_TEST(test_close_range_failed)
{
	size_t i3, i4;

	i3 = opened(P, 3, "/a", O_RDONLY, 110);
	i4 = opened(P, 4, "/b", O_RDONLY, 120);
	do_close_range(P, 4, 3, 0, -EINVAL, 200, 205);
	do_close_range(P, 3, ~0u, 8, -EINVAL, 210, 215);
	do_close_range(P, 3, ~0u, CLOSE_RANGE_CLOEXEC_FLAG | 8, -EINVAL, 220, 225);
	ck_assert_uint_eq(open_inc(P, 3), i3);
	ck_assert_uint_eq(open_inc(P, 4), i4);
	ck_assert_int_eq(inc(i3)->id.cloexec, 0);
	ck_assert_uint_eq(ipp_fdtab__nr_closed(t), 0);
	ck_assert_int_eq(do_write(P, 4, 3, 300, 310), (long)i4);
	do_task(IPCPERF_TASK_EXEC, P, 0, 400);
	ck_assert_uint_eq(open_inc(P, 3), i3);
	ck_assert_uint_eq(open_inc(P, 4), i4);
}
END_TEST

/*
 * close_range(first, last, CLOSE_RANGE_CLOEXEC) closes nothing: the fds in
 * the range get close-on-exec and end at the exec; the others survive it.
 */
START_TEST(test_close_range_cloexec_then_exec)
{
	size_t i3, i4, i5, i9;

	i3 = opened(P, 3, "/a", O_RDONLY, 110);
	i4 = opened(P, 4, "/b", O_RDONLY, 120);
	i5 = opened(P, 5, "/c", O_RDONLY | O_CLOEXEC, 130);
	i9 = opened(P, 9, "/d", O_RDONLY, 140);

	do_close_range(P, 4, 8, CLOSE_RANGE_CLOEXEC_FLAG, 0, 200, 205);
	ck_assert_uint_eq(ipp_fdtab__nr_closed(t), 0);
	ck_assert_uint_eq(open_inc(P, 4), i4);
	ck_assert_int_eq(inc(i4)->id.cloexec, 1);
	ck_assert_int_eq(inc(i5)->id.cloexec, 1);
	ck_assert_int_eq(inc(i3)->id.cloexec, 0);
	ck_assert_int_eq(inc(i9)->id.cloexec, 0);
	/* still the same files until the exec */
	ck_assert_int_eq(do_write(P, 4, 7, 300, 310), (long)i4);

	do_task(IPCPERF_TASK_EXEC, P, 0, 500);
	expect_exec_closed(4, i4, "/b");
	expect_exec_closed(5, i5, "/c");
	ck_assert_uint_eq(ipp_fdtab__nr_closed(t), 2);
	ck_assert_uint_eq(open_inc(P, 3), i3);
	ck_assert_uint_eq(open_inc(P, 9), i9);
	ck_assert_int_eq(do_write(P, 9, 2, 600, 610), (long)i9);
	ck_assert_uint_eq(res.nr_asked, 4);
}
END_TEST

/* ------------------------------------------------------------------ duplication */

START_TEST(test_dup_family)
{
	size_t a, b, b2, i;

	a = opened(P, 3, "/a", O_RDONLY | O_CLOEXEC, 110);
	b = opened(P, 4, "/b", O_RDONLY, 210);

	/* dup2 onto an open fd: the old incarnation ends, a copy of 3 begins */
	ck_assert_int_eq(CALL(P, "dup2", 4, 300, 305, 3, 4), -1);
	b2 = open_inc(P, 4);
	ck_assert_uint_ne(b2, b);
	ck_assert(!inc(b)->open);
	ck_assert_uint_eq(inc(b)->end_ns, 305);
	ck_assert_str_eq(reported(b), "/b");
	ck_assert_uint_eq(inc(b2)->start_ns, 305);
	ck_assert_str_eq(inc(b2)->id.object, "/a");
	ck_assert_int_eq(inc(b2)->id.state, IPP_ID_PROC);
	ck_assert_uint_eq(inc(b2)->id.auth, a);	/* held to 3's answer */
	ck_assert(inc(a)->was_auth);
	ck_assert_int_eq(inc(b2)->id.cloexec, 0);	/* dup2 clears it */
	ck_assert_int_eq(do_write(P, 4, 8, 400, 410), (long)b2);

	/* dup3 sets close-on-exec on request, dup never, F_DUPFD_CLOEXEC always */
	ck_assert_int_eq(CALL(P, "dup3", 5, 420, 425, 3, 5, O_CLOEXEC), -1);
	ck_assert_int_eq(CALL(P, "dup", 6, 430, 435, 3), -1);
	ck_assert_int_eq(CALL(P, "fcntl", 10, 440, 445, 3, F_DUPFD_CLOEXEC, 10), -1);
	ck_assert_int_eq(inc(open_inc(P, 5))->id.cloexec, 1);
	ck_assert_int_eq(inc(open_inc(P, 6))->id.cloexec, 0);
	ck_assert_int_eq(inc(open_inc(P, 10))->id.cloexec, 1);
	ck_assert_str_eq(reported(open_inc(P, 5)), "/a");
	ck_assert_str_eq(reported(open_inc(P, 6)), "/a");
	ck_assert_str_eq(reported(open_inc(P, 10)), "/a");

	/* dup2 of an fd onto itself changes nothing */
	i = ipp_fdtab__count(t);
	ck_assert_int_eq(CALL(P, "dup2", 3, 450, 455, 3, 3), -1);
	ck_assert_uint_eq(open_inc(P, 3), a);
	ck_assert_uint_eq(ipp_fdtab__count(t), i);
	/* copies are not looked up */
	ck_assert_uint_eq(res.nr_asked, 2);
}
END_TEST

/* ------------------------------------------------------------------ exec, fork */

START_TEST(test_exec_ends_cloexec)
{
	size_t i3, i4, i5, i6, i7, i8;

	answer(P, 3, "/a", 110, 0);
	answer(P, 4, "/b", 120, 0);
	answer(P, 5, "/c", 135, -1);	/* /proc could not tell its flags */
	answer(P, 6, "/d", 155, 0);
	answer(P, 7, "/e", 160, 0);
	answer(P, 8, "/f", 170, 0);
	do_open(P, 3, O_RDONLY | O_CLOEXEC, 110);
	do_open(P, 4, O_RDONLY, 120);
	i5 = (size_t)do_write(P, 5, 1, 130, 140);
	i6 = (size_t)do_write(P, 6, 1, 150, 160);
	do_open(P, 7, O_RDONLY | O_CLOEXEC, 160);
	do_open(P, 8, O_RDONLY, 170);
	/* F_SETFD: 7 stays open across exec, 8 closes */
	ck_assert_int_eq(CALL(P, "fcntl", 0, 180, 182, 7, F_SETFD, 0), -1);
	ck_assert_int_eq(CALL(P, "fcntl", 0, 184, 186, 8, F_SETFD, FD_CLOEXEC), -1);
	i3 = open_inc(P, 3);
	i4 = open_inc(P, 4);
	i7 = open_inc(P, 7);
	i8 = open_inc(P, 8);

	do_task(IPCPERF_TASK_EXEC, P, 0, 500);
	/* close-on-exec, and unknown, end at the exec */
	expect_exec_closed(3, i3, "/a");
	expect_exec_closed(5, i5, "/c");
	expect_exec_closed(8, i8, "/f");
	ck_assert_uint_eq(ipp_fdtab__nr_closed(t), 3);
	/* the others go on as they were */
	ck_assert_uint_eq(open_inc(P, 4), i4);
	ck_assert_uint_eq(open_inc(P, 6), i6);
	ck_assert_uint_eq(open_inc(P, 7), i7);
	ck_assert_str_eq(reported(i7), "/e");
	ck_assert_int_eq(do_write(P, 4, 3, 600, 610), (long)i4);
	ck_assert_uint_eq(res.nr_asked, 6);
}
END_TEST

START_TEST(test_fork_copies_table)
{
	size_t p3, p4, c3, c4, old;

	answer(P, 3, "/a", 110, 0);
	answer(P, 4, "/b", 120, 0);
	answer(C, 9, "/old", 50, 0);
	do_open(C, 9, O_RDONLY, 50);	/* an earlier process of pid C */
	old = open_inc(C, 9);
	do_open(P, 3, O_RDONLY | O_CLOEXEC, 110);
	do_open(P, 4, O_RDONLY, 120);
	p3 = open_inc(P, 3);
	p4 = open_inc(P, 4);

	do_task(IPCPERF_TASK_FORK, P, C, 300);
	/* the child has copies of the parent's fds, not the old holder's */
	ck_assert_int_eq(ipp_fdtab__inc_of(t, C, 9), -ENOENT);
	ck_assert_uint_eq(inc(old)->end_ns, 300);
	c3 = open_inc(C, 3);
	c4 = open_inc(C, 4);
	ck_assert_uint_ne(c3, p3);
	ck_assert_uint_ne(c4, p4);
	ck_assert_uint_eq(inc(c3)->start_ns, 300);
	ck_assert_str_eq(inc(c3)->id.object, "/a");
	ck_assert_int_eq(inc(c3)->id.cloexec, 1);
	ck_assert_uint_eq(inc(c3)->id.auth, p3);
	ck_assert_str_eq(inc(c4)->id.object, "/b");
	ck_assert_int_eq(inc(c4)->id.cloexec, 0);
	ck_assert_uint_eq(res.nr_asked, 3);

	/* each table goes its own way */
	do_close(C, 3, 0, 400, 405);
	ck_assert_uint_eq(open_inc(P, 3), p3);
	ck_assert_int_eq(do_write(P, 3, 1, 410, 420), (long)p3);
	ck_assert_int_eq(do_write(C, 4, 1, 430, 440), (long)c4);
	do_task(IPCPERF_TASK_EXEC, C, 0, 500);
	ck_assert_uint_eq(open_inc(C, 4), c4);

	/* the parent's exit ends its fds, not the child's */
	do_task(IPCPERF_TASK_EXIT, P, 0, 600);
	ck_assert_int_eq(ipp_fdtab__inc_of(t, P, 4), -ENOENT);
	ck_assert_uint_eq(inc(p4)->end_ns, 600);
	ck_assert_uint_eq(open_inc(C, 4), c4);
	ck_assert_str_eq(reported(c4), "/b");
}
END_TEST

/* ------------------------------------------------------------------ reuse, retirement */

/* What ipp_fdtab__sweep() handed out: fd and identity of each incarnation retired. */
struct retired_log {
	size_t n;
	struct {
		size_t inc;
		int fd;
		enum ipp_ident_state state;
		char object[IPP_OBJECT_MAX];
	} v[8];
};

static void log_retired(void *ctx, size_t i, const struct ipp_inc *in, const struct ipp_ident *id)
{
	struct retired_log *l = ctx;

	ck_assert_uint_lt(l->n, IPP_ARRAY_SIZE(l->v));
	l->v[l->n].inc = i;
	l->v[l->n].fd = in->fd;
	l->v[l->n].state = id->state;
	snprintf(l->v[l->n].object, sizeof(l->v[l->n].object), "%s", id->object);
	l->n++;
}

START_TEST(test_reused_number_new_identity)
{
	struct retired_log l = { 0 };
	size_t a, b, c;
	long late;

	a = opened(P, 3, "/a", O_RDONLY, 110);
	ck_assert_int_eq(do_write(P, 3, 10, 200, 210), (long)a);
	do_close(P, 3, 0, 300, 305);
	b = opened(P, 3, "/b", O_RDONLY, 410);
	ck_assert_uint_ne(b, a);
	ck_assert_str_eq(reported(a), "/a");
	ck_assert_str_eq(reported(b), "/b");
	ck_assert_uint_eq(res.asked[1].floor_ns, 410);
	ck_assert_int_eq(do_write(P, 3, 5, 500, 510), (long)b);
	/* begun before the close (another thread), ended after the reopen: the old file's */
	ck_assert_int_eq(do_write(P, 3, 7, 250, 520), (long)a);

	/* the old one retires as what it was; its slot is free */
	ck_assert_uint_eq(ipp_fdtab__sweep(t, log_retired, &l), 1);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_uint_eq(l.v[0].inc, a);
	ck_assert_int_eq(l.v[0].fd, 3);
	ck_assert_str_eq(l.v[0].object, "/a");
	ck_assert_ptr_null(ipp_fdtab__inc(t, a));

	/* the next incarnation of 3 takes the slot, with nothing of the old one */
	do_close(P, 3, 0, 600, 605);
	c = opened(P, 3, "/c", O_RDONLY, 710);
	ck_assert_uint_eq(c, a);
	ck_assert_uint_eq(inc(c)->start_ns, 710);
	ck_assert_str_eq(reported(c), "/c");
	/*
	 * A call begun before the first close, ended now: its bytes are the
	 * first incarnation's, named as it retired, not the new one's.
	 */
	late = do_write(P, 3, 9, 260, 720);
	ck_assert_int_ge(late, 0);
	ck_assert_int_ne(late, (long)c);
	ck_assert_int_ne(late, (long)b);
	ck_assert(!inc((size_t)late)->open);
	ck_assert_uint_eq(inc((size_t)late)->start_ns, 110);
	ck_assert_uint_eq(inc((size_t)late)->end_ns, 300);
	ck_assert_str_eq(reported((size_t)late), "/a");
	ck_assert_str_eq(reported(c), "/c");
	ck_assert_int_eq(do_write(P, 3, 1, 800, 810), (long)c);
	ck_assert_uint_eq(res.nr_asked, 3);
}
END_TEST

/* Settled calls, in the order handed: the identity each was given. */
struct handed {
	size_t n;
	char object[4][IPP_OBJECT_MAX];
	char detail[4][IPP_DETAIL_MAX];
};

static void hand(void *ctx, const struct ipcperf_syscall *ev, const struct ipp_ident *id)
{
	struct handed *h = ctx;

	(void)ev;
	ck_assert_uint_lt(h->n, 4);
	snprintf(h->object[h->n], sizeof(h->object[h->n]), "%s", id->object);
	snprintf(h->detail[h->n], sizeof(h->detail[h->n]), "%s", id->detail);
	h->n++;
}

/* Queue a write of @fd that went to incarnation @i. */
static void queue_write(struct ipp_settleq *q, int fd, long i)
{
	struct ipcperf_syscall ev = { .pid = P, .fd = fd, .cls = IPCPERF_SC_WRITE };

	ck_assert_int_eq(ipp_settleq__push(q, &ev, i), 0);
}

/*
 * /proc was read ahead, at 500, for fd 3 first used at 100: by then the
 * fd had been closed (300) and its number given out again (410). The
 * answer describes the later file: the first incarnation, and its copy,
 * are unknown, and the answer is not the new incarnation's until the
 * events reach the time it was read.
 */
START_TEST(test_answer_outlived_by_close)
{
	struct ipp_settleq q;
	struct handed h = { 0 };
	const struct ipp_ident *id;
	size_t a, d, b;

	answer(P, 3, "/new", 500, 0);
	answer(P, 3, "/new", 500, 0);
	a = (size_t)do_write(P, 3, 10, 100, 110);
	ck_assert_uint_eq(res.asked[0].floor_ns, 0);
	ipp_settleq__init(&q, t);
	queue_write(&q, 3, (long)a);
	ck_assert_int_eq(ipp_fdtab__settled(t, (long)a, false, &id), 0);

	ck_assert_int_eq(CALL(P, "dup", 5, 200, 205, 3), -1);
	d = open_inc(P, 5);
	ck_assert_int_eq(ipp_fdtab__settled(t, (long)d, false, &id), 0);
	ipp_settleq__drain(&q, false, hand, &h);
	ck_assert_uint_eq(h.n, 0);

	do_close(P, 3, 0, 300, 305);
	ck_assert_int_eq(ipp_fdtab__settled(t, (long)a, false, &id), 1);
	ck_assert_int_eq(id->state, IPP_ID_UNKNOWN);
	ck_assert_str_eq(id->object, "unknown");
	ck_assert_str_eq(id->detail, "identity unknown: closed-before-read");
	ck_assert_int_eq(ipp_fdtab__settled(t, (long)d, false, &id), 1);
	ck_assert_str_eq(id->detail, "identity unknown: closed-before-read");
	ipp_settleq__drain(&q, false, hand, &h);
	ck_assert_uint_eq(h.n, 1);
	ck_assert_str_eq(h.object[0], "unknown");
	ck_assert_str_eq(h.detail[0], "identity unknown: closed-before-read");

	/* the new incarnation asks for itself, from after the reopen */
	do_open(P, 3, O_RDONLY, 410);
	b = open_inc(P, 3);
	ck_assert_uint_eq(res.nr_asked, 2);
	ck_assert_uint_eq(res.asked[1].floor_ns, 410);
	queue_write(&q, 3, do_write(P, 3, 5, 420, 430));
	ck_assert_int_eq(ipp_fdtab__settled(t, (long)b, false, &id), 0);
	ipp_settleq__drain(&q, false, hand, &h);
	ck_assert_uint_eq(h.n, 1);
	ipp_fdtab__clock(t, 500);
	ck_assert_int_eq(ipp_fdtab__settled(t, (long)b, false, &id), 1);
	ck_assert_str_eq(id->object, "/new");
	ipp_settleq__drain(&q, false, hand, &h);
	ck_assert_uint_eq(h.n, 2);
	ck_assert_str_eq(h.object[1], "/new");
	/* the old ones stay unknown */
	ck_assert_str_eq(reported(a), "unknown");
	ck_assert_str_eq(reported(d), "unknown");
	ipp_settleq__fini(&q);
}
END_TEST

START_TEST(test_sweep_retires_as_reported)
{
	struct ipcperf_fd_identity pipe9 = { .sz = sizeof(pipe9), .object = "pipe:[9]",
					     .kind = IPCPERF_FD_PIPE };
	struct retired_log l = { 0 };
	size_t a, b, e, f;

	answer(P, 3, "/a", 110, 0);
	answer(P, 4, "/b", 120, 0);
	do_open(P, 3, O_RDONLY, 110);
	do_open(P, 4, O_RDONLY, 120);
	ck_assert_int_eq(CALL(P, "dup2", 5, 200, 205, 3, 5), -1);
	ipp_fdtab__clock(t, 250);
	ck_assert_int_eq(ipp_fdtab__set_identity(t, P, 6, &pipe9), 0);
	a = open_inc(P, 3);
	b = open_inc(P, 4);
	e = open_inc(P, 5);
	f = open_inc(P, 6);
	do_close(P, 3, 0, 300, 305);
	do_close(P, 4, 0, 310, 315);
	do_close(P, 5, 0, 320, 325);
	do_close(P, 6, 0, 330, 335);
	ipp_fdtab__clock(t, 400);

	/* a call still queued for 4 keeps it */
	ipp_fdtab__pin(t, (long)b, 1);
	ck_assert_uint_eq(ipp_fdtab__sweep(t, log_retired, &l), 2);
	ck_assert_uint_eq(l.n, 2);
	/* 3 lends its answer to its copy: kept; the copy retires as 3's file */
	ck_assert_uint_eq(l.v[0].inc, e);
	ck_assert_int_eq(l.v[0].state, IPP_ID_PROC);
	ck_assert_str_eq(l.v[0].object, "/a");
	ck_assert_uint_eq(l.v[1].inc, f);
	ck_assert_int_eq(l.v[1].state, IPP_ID_FINAL);
	ck_assert_str_eq(l.v[1].object, "pipe:[9]");
	ck_assert_ptr_nonnull(ipp_fdtab__inc(t, a));
	ck_assert_str_eq(reported(b), "/b");

	ipp_fdtab__pin(t, (long)b, -1);
	ck_assert_uint_eq(ipp_fdtab__sweep(t, log_retired, &l), 1);
	ck_assert_uint_eq(l.v[2].inc, b);
	ck_assert_int_eq(l.v[2].fd, 4);
	ck_assert_str_eq(l.v[2].object, "/b");
	ck_assert_uint_eq(ipp_fdtab__nr_closed(t), 1);
}
END_TEST

Suite *fdtable_suite(void)
{
	const TTest *const tests[] = {
		test_open_starts_incarnation,
		test_close_ends_incarnation,
		test_close_range_ends_fds,
		test_close_range_all_above,
		test_close_range_failed,
		test_close_range_cloexec_then_exec,
		test_dup_family,
		test_exec_ends_cloexec,
		test_fork_copies_table,
		test_reused_number_new_identity,
		test_answer_outlived_by_close,
		test_sweep_retires_as_reported,
	};
	Suite *s = suite_create("fdtable");

	add_tests(new_tcase(s, "events", setup, teardown), tests, sizeof(tests) / sizeof(tests[0]));
	return s;
}
