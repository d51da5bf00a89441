/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests of the accounting (lib/stats/intake.c) through the public API: events
 * are built by hand the way the engine fills them and fed with
 * ipcperf_stats__add_*(); rows are collected and checked for exact values.
 * No root, no kernel, no /proc (no_proc): what an fd refers to comes only
 * from ipcperf_stats__set_fd_object() and fd duplication; one test reads
 * /proc about an fd of its own process. The calls the kernel adds up reach
 * the stats through the library's own entry (ipp_stats__add_sum()).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <check.h>

#include <ipcperf/ipcperf.h>
#include "stats/account.h"
#include "bpf/sum-rec.h"
#include "check-helpers.h"
#include "suites.h"

/* ------------------------------------------------------------------ feeding */

/*
 * Every event goes to each sink: the interval test feeds one stats object
 * that is never reset and one that is reset between intervals.
 */
static struct ipcperf_stats *sink[2];
static size_t nr_sinks;
static struct ipcperf_stats *st;	/* sink[0] */
static uint64_t clk;			/* event clock: strictly increasing */

static struct ipcperf_stats *new_stats(void)
{
	IPCPERF_OPTS(ipcperf_stats_opts, o, .no_proc = true);
	struct ipcperf_stats *s = ipcperf_stats__new(&o);

	ck_assert_ptr_nonnull(s);
	return s;
}

static void setup(void)
{
	st = sink[0] = new_stats();
	nr_sinks = 1;
	clk = 1000000;
}

static void teardown(void)
{
	for (size_t i = 0; i < nr_sinks; i++)
		ipcperf_stats__delete(sink[i]);
	nr_sinks = 0;
	st = NULL;
}

static void feed_sc(const struct ipcperf_syscall *ev)
{
	for (size_t i = 0; i < nr_sinks; i++)
		ipcperf_stats__add_syscall(sink[i], ev);
}

/* A completed call of @dur ns starting now; the clock moves past its end. */
static struct ipcperf_syscall call(pid_t pid, pid_t tid, int nr, const char *name,
				   enum ipcperf_sc_class cls, int fd, int64_t ret, uint64_t dur)
{
	struct ipcperf_syscall ev = {
		.start_ns = clk, .end_ns = clk + dur, .pid = pid, .tid = tid, .cpu = 0,
		.nr = nr, .name = name, .cls = cls, .fd = fd, .ret = ret,
	};

	clk += dur + 10;
	return ev;
}

/* read/write family: args {fd, buf, count}. */
static struct ipcperf_syscall do_io(pid_t pid, pid_t tid, int nr, const char *name,
				    enum ipcperf_sc_class cls, int fd, uint64_t count, int64_t ret,
				    uint64_t dur)
{
	struct ipcperf_syscall ev = call(pid, tid, nr, name, cls, fd, ret, dur);

	ev.args[0] = (uint64_t)fd;
	ev.args[1] = 0x7ffd1000;
	ev.args[2] = count;
	ev.nr_args = 3;
	ev.count = count;
	feed_sc(&ev);
	return ev;
}

static struct ipcperf_syscall do_write(pid_t pid, int fd, uint64_t count, int64_t ret, uint64_t dur)
{
	return do_io(pid, pid, SYS_write, "write", IPCPERF_SC_WRITE, fd, count, ret, dur);
}

static struct ipcperf_syscall do_read(pid_t pid, int fd, uint64_t count, int64_t ret, uint64_t dur)
{
	return do_io(pid, pid, SYS_read, "read", IPCPERF_SC_READ, fd, count, ret, dur);
}

/* sendmmsg/recvmmsg: args {fd, msgvec, vlen, flags}; ret counts messages. */
static void do_mmsg(pid_t pid, bool send, int fd, uint64_t vlen, int64_t ret, uint64_t dur)
{
	struct ipcperf_syscall ev = call(pid, pid, send ? SYS_sendmmsg : SYS_recvmmsg,
					 send ? "sendmmsg" : "recvmmsg",
					 send ? IPCPERF_SC_WRITE : IPCPERF_SC_READ, fd, ret, dur);

	ev.args[0] = (uint64_t)fd;
	ev.args[1] = 0x7ffd2000;
	ev.args[2] = vlen;
	ev.nr_args = 4;
	ev.count = vlen;
	ev.ret_is_msgs = true;
	feed_sc(&ev);
}

static void do_close(pid_t pid, int fd, int64_t ret)
{
	struct ipcperf_syscall ev = call(pid, pid, SYS_close, "close", IPCPERF_SC_FD_CLOSE, fd,
					 ret, 300);

	ev.args[0] = (uint64_t)fd;
	ev.nr_args = 1;
	feed_sc(&ev);
}

#ifdef SYS_dup2
#define DUP2_NR SYS_dup2
#define DUP2_NAME "dup2"
#else
#define DUP2_NR SYS_dup3
#define DUP2_NAME "dup3"
#endif

/* dup2(old, new) = ret (new on success). */
static void do_dup2_ret(pid_t pid, int oldfd, int newfd, int64_t ret)
{
	struct ipcperf_syscall ev = call(pid, pid, DUP2_NR, DUP2_NAME, IPCPERF_SC_FD_DUP2, oldfd,
					 ret, 200);

	ev.args[0] = (uint64_t)oldfd;
	ev.args[1] = (uint64_t)newfd;
	ev.nr_args = 2;
	feed_sc(&ev);
}

static void do_dup2(pid_t pid, int oldfd, int newfd)
{
	do_dup2_ret(pid, oldfd, newfd, newfd);
}

static void do_dup3(pid_t pid, int oldfd, int newfd, int flags)
{
	struct ipcperf_syscall ev = call(pid, pid, SYS_dup3, "dup3", IPCPERF_SC_FD_DUP2, oldfd,
					 newfd, 200);

	ev.args[0] = (uint64_t)oldfd;
	ev.args[1] = (uint64_t)newfd;
	ev.args[2] = (uint64_t)flags;
	ev.nr_args = 3;
	feed_sc(&ev);
}

/* dup(old) = newfd: FD_NEW with fd = old. */
static void do_dup(pid_t pid, int oldfd, int newfd)
{
	struct ipcperf_syscall ev = call(pid, pid, SYS_dup, "dup", IPCPERF_SC_FD_NEW, oldfd,
					 newfd, 200);

	ev.args[0] = (uint64_t)oldfd;
	ev.nr_args = 1;
	feed_sc(&ev);
}

/* fcntl(fd, cmd, arg) = ret: F_DUPFD* make a new fd (FD_NEW), the rest only use one. */
static void do_fcntl(pid_t pid, int fd, int cmd, int arg, int64_t ret)
{
	bool dup = cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC;
	struct ipcperf_syscall ev = call(pid, pid, SYS_fcntl, "fcntl",
					 dup ? IPCPERF_SC_FD_NEW : IPCPERF_SC_FD_OTHER, fd, ret, 200);

	ev.args[0] = (uint64_t)fd;
	ev.args[1] = (uint64_t)cmd;
	ev.args[2] = (uint64_t)arg;
	ev.nr_args = 3;
	feed_sc(&ev);
}

/* openat(AT_FDCWD, path, flags, mode) = ret: FD_NEW without an fd argument. */
static void do_openat(pid_t pid, int64_t ret)
{
	struct ipcperf_syscall ev = call(pid, pid, SYS_openat, "openat", IPCPERF_SC_FD_NEW, -1,
					 ret, 1500);

	ev.args[0] = (uint64_t)(int64_t)AT_FDCWD;
	ev.args[1] = 0x7ffd3000;
	ev.args[2] = O_RDONLY;
	ev.nr_args = 4;
	feed_sc(&ev);
}

/* accept4(lfd, addr, addrlen, flags) = newfd: FD_NEW whose fd is the listener. */
static void do_accept4(pid_t pid, int lfd, int newfd)
{
	struct ipcperf_syscall ev = call(pid, pid, SYS_accept4, "accept4", IPCPERF_SC_FD_NEW, lfd,
					 newfd, 5000);

	ev.args[0] = (uint64_t)lfd;
	ev.nr_args = 4;
	feed_sc(&ev);
}

static void set_obj(pid_t pid, int fd, const char *object, enum ipcperf_fd_kind kind)
{
	for (size_t i = 0; i < nr_sinks; i++)
		ck_assert_int_eq(ipcperf_stats__set_fd_object(sink[i], pid, fd, object, kind), 0);
}

static void do_switch(pid_t pid, pid_t tid, int cpu, bool preempted, const char *comm)
{
	struct ipcperf_switch ev = {
		.time_ns = clk, .pid = pid, .tid = tid, .cpu = cpu, .preempted = preempted,
		.prev_state = preempted ? 0 : 1, .next_tid = 0, .next_comm = "swapper",
	};

	snprintf(ev.prev_comm, sizeof(ev.prev_comm), "%s", comm);
	clk += 10;
	for (size_t i = 0; i < nr_sinks; i++)
		ipcperf_stats__add_switch(sink[i], &ev);
}

static void do_wakeup(pid_t waker_pid, pid_t waker_tid, pid_t tid)
{
	struct ipcperf_wakeup ev = {
		.time_ns = clk, .waker_pid = waker_pid, .waker_tid = waker_tid, .tid = tid,
		.target_cpu = 1, .comm = "woken",
	};

	clk += 10;
	for (size_t i = 0; i < nr_sinks; i++)
		ipcperf_stats__add_wakeup(sink[i], &ev);
}

static void do_task(enum ipcperf_task_kind kind, pid_t pid, pid_t tid, pid_t child,
		    const char *comm, const char *filename)
{
	struct ipcperf_task ev = {
		.kind = kind, .time_ns = clk, .pid = pid, .tid = tid, .child_tid = child,
		.comm = comm, .filename = filename,
	};

	clk += 10;
	for (size_t i = 0; i < nr_sinks; i++)
		ipcperf_stats__add_task(sink[i], &ev);
}

static void do_fork(pid_t pid, pid_t tid, pid_t child, const char *comm)
{
	do_task(IPCPERF_TASK_FORK, pid, tid, child, comm, NULL);
}

static void do_exec(pid_t pid, const char *filename)
{
	do_task(IPCPERF_TASK_EXEC, pid, pid, 0, NULL, filename);
}

static void do_exit(pid_t pid, pid_t tid, const char *comm)
{
	do_task(IPCPERF_TASK_EXIT, pid, tid, 0, comm, NULL);
}

/* ------------------------------------------------------------------ collecting */

#define MAX_ROWS 128

/* Rows live only during the callback: keep copies of their strings. */
struct fd_rec {
	struct ipcperf_fd_row r;
	char object[128];
	char detail[128];
	char endpoint[64];
};

/* Grows: the interval test makes many rows of unknown incarnations. */
struct fd_rows {
	size_t n, cap;
	struct fd_rec *v;
	pid_t pid;		/* fds_of_pid(): the process whose rows are kept */
};

static int collect_fd(void *ctx, const struct ipcperf_fd_row *row)
{
	struct fd_rows *rs = ctx;
	struct fd_rec *rec;

	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? 2 * rs->cap : 16;
		rs->v = realloc(rs->v, rs->cap * sizeof(*rs->v));
		ck_assert_ptr_nonnull(rs->v);
	}
	ck_assert_ptr_nonnull(row->object);
	ck_assert_ptr_nonnull(row->detail);
	rec = &rs->v[rs->n++];
	rec->r = *row;
	snprintf(rec->object, sizeof(rec->object), "%s", row->object);
	snprintf(rec->detail, sizeof(rec->detail), "%s", row->detail);
	ck_assert_ptr_nonnull(row->group_endpoint);
	snprintf(rec->endpoint, sizeof(rec->endpoint), "%s", row->group_endpoint);
	return 0;
}

static struct fd_rows *fds_of(struct ipcperf_stats *s)
{
	struct fd_rows *rs = calloc(1, sizeof(*rs));

	ck_assert_ptr_nonnull(rs);
	ck_assert_int_eq(ipcperf_stats__for_each_fd(s, collect_fd, rs), 0);
	/* The strings were copied into the array, which no longer moves: point at them. */
	for (size_t i = 0; i < rs->n; i++) {
		rs->v[i].r.object = rs->v[i].object;
		rs->v[i].r.detail = rs->v[i].detail;
		rs->v[i].r.group_endpoint = rs->v[i].endpoint;
	}
	return rs;
}

static int collect_fd_of(void *ctx, const struct ipcperf_fd_row *row);

/* The rows of @pid only (a stats object with more rows than fds_of() should copy). */
static struct fd_rows *fds_of_pid(struct ipcperf_stats *s, pid_t pid)
{
	struct fd_rows *rs = calloc(1, sizeof(*rs));

	ck_assert_ptr_nonnull(rs);
	rs->pid = pid;
	ck_assert_int_eq(ipcperf_stats__for_each_fd(s, collect_fd_of, rs), 0);
	for (size_t i = 0; i < rs->n; i++) {
		rs->v[i].r.object = rs->v[i].object;
		rs->v[i].r.detail = rs->v[i].detail;
		rs->v[i].r.group_endpoint = rs->v[i].endpoint;
	}
	return rs;
}

static int collect_fd_of(void *ctx, const struct ipcperf_fd_row *row)
{
	struct fd_rows *rs = ctx;

	return row->pid == rs->pid ? collect_fd(ctx, row) : 0;
}

static void free_fds(struct fd_rows *rs)
{
	free(rs->v);
	free(rs);
}

/* The only row of (pid, fd, object); fails when there is none or several. */
static const struct ipcperf_fd_row *row_of(const struct fd_rows *rs, pid_t pid, int fd,
					   const char *object)
{
	const struct ipcperf_fd_row *found = NULL;

	for (size_t i = 0; i < rs->n; i++) {
		const struct ipcperf_fd_row *r = &rs->v[i].r;

		if (r->pid == pid && r->fd == fd && strcmp(r->object, object) == 0) {
			ck_assert_msg(!found, "two rows for (%d, %d, %s)", (int)pid, fd, object);
			found = r;
		}
	}
	ck_assert_msg(found, "no row for (%d, %d, %s)", (int)pid, fd, object);
	return found;
}

/* A row of an fd held without I/O: zero calls on both sides, no times. */
static void ck_no_io(const struct ipcperf_fd_row *r)
{
	ck_assert_uint_eq(r->read.ops, 0);
	ck_assert_uint_eq(r->write.ops, 0);
	ck_assert_uint_eq(r->read.bytes + r->write.bytes, 0);
	ck_assert_uint_eq(r->read.errors + r->write.errors, 0);
	ck_assert_uint_eq(r->first_ns, 0);
	ck_assert_uint_eq(r->last_ns, 0);
}

static size_t count_rows(const struct fd_rows *rs, pid_t pid, int fd)
{
	size_t n = 0;

	for (size_t i = 0; i < rs->n; i++)
		n += rs->v[i].r.pid == pid && rs->v[i].r.fd == fd;
	return n;
}

struct proc_rec {
	struct ipcperf_proc_row r;
	char comm[32];
};

struct proc_rows {
	size_t n;
	struct proc_rec v[MAX_ROWS];
};

static int collect_proc(void *ctx, const struct ipcperf_proc_row *row)
{
	struct proc_rows *rs = ctx;
	struct proc_rec *rec;

	ck_assert_uint_lt(rs->n, MAX_ROWS);
	ck_assert_ptr_nonnull(row->comm);
	rec = &rs->v[rs->n++];
	rec->r = *row;
	snprintf(rec->comm, sizeof(rec->comm), "%s", row->comm);
	rec->r.comm = rec->comm;
	return 0;
}

static struct proc_rows *procs_of(struct ipcperf_stats *s)
{
	struct proc_rows *rs = calloc(1, sizeof(*rs));

	ck_assert_ptr_nonnull(rs);
	ck_assert_int_eq(ipcperf_stats__for_each_proc(s, collect_proc, rs), 0);
	return rs;
}

static const struct ipcperf_proc_row *proc_of(const struct proc_rows *rs, pid_t pid)
{
	for (size_t i = 0; i < rs->n; i++)
		if (rs->v[i].r.pid == pid)
			return &rs->v[i].r;
	ck_abort_msg("no process row for %d", (int)pid);
	return NULL;
}

struct sc_rec {
	struct ipcperf_syscall_row r;
	char name[32];
	struct ipcperf_errno_count errnos[16];
};

struct sc_rows {
	size_t n;
	struct sc_rec v[MAX_ROWS];
};

static int collect_sc(void *ctx, const struct ipcperf_syscall_row *row)
{
	struct sc_rows *rs = ctx;
	struct sc_rec *rec;

	ck_assert_uint_lt(rs->n, MAX_ROWS);
	ck_assert_ptr_nonnull(row->name);
	rec = &rs->v[rs->n++];
	rec->r = *row;
	snprintf(rec->name, sizeof(rec->name), "%s", row->name);
	rec->r.name = rec->name;
	ck_assert_uint_le(row->nr_errnos, 16);
	if (row->nr_errnos)
		memcpy(rec->errnos, row->errnos, row->nr_errnos * sizeof(*row->errnos));
	rec->r.errnos = rec->errnos;
	return 0;
}

static struct sc_rows *syscalls_of(struct ipcperf_stats *s)
{
	struct sc_rows *rs = calloc(1, sizeof(*rs));

	ck_assert_ptr_nonnull(rs);
	ck_assert_int_eq(ipcperf_stats__for_each_syscall(s, collect_sc, rs), 0);
	return rs;
}

/* ------------------------------------------------------------------ asserting */

/* ops, bytes, errors, time_ns of one direction, exactly. */
#define ck_io(io, OPS, BYTES, ERRORS, TIME) do { \
	ck_assert_uint_eq((io).ops, (OPS)); \
	ck_assert_uint_eq((io).bytes, (BYTES)); \
	ck_assert_uint_eq((io).errors, (ERRORS)); \
	ck_assert_uint_eq((io).time_ns, (TIME)); \
} while (0)

/* min, avg, max of a latency, exactly. */
#define ck_lat(lat, MIN, AVG, MAX) do { \
	ck_assert_uint_eq((lat).min, (MIN)); \
	ck_assert_uint_eq((lat).avg, (AVG)); \
	ck_assert_uint_eq((lat).max, (MAX)); \
} while (0)

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted array: the sample of rank ceil(p/100 n). */
static uint64_t rank_value(const uint64_t *sorted, size_t n, double p)
{
	double r = ceil(p / 100.0 * (double)n);
	size_t rank = r < 1 ? 1 : r > (double)n ? n : (size_t)r;

	return sorted[rank - 1];
}

/* xorshift64*: deterministic, so that a failure reproduces. */
static uint64_t rng_state;
static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static void do_pipe2(pid_t pid);

/* A zero-copy move: {in, out} in ev.fd, ev.out_fd (-1: vmsplice, one fd). */
static void do_move(pid_t pid, int nr, const char *name, int in, int out, int64_t ret,
		    uint64_t dur)
{
	struct ipcperf_syscall ev = call(pid, pid, nr, name, IPCPERF_SC_MOVE, in, ret, dur);

	ev.out_fd = out;
	ev.nr_args = 4;
	feed_sc(&ev);
}

/* What the kernel said of @fd: a pipe end opened with @accmode. */
static void pipe_end(pid_t pid, int fd, uint64_t ino, int accmode)
{
	char obj[32];
	struct ipcperf_fd_open ev = {
		.time_ns = clk, .pid = pid, .tid = pid, .fd = fd, .nr = SYS_pipe2, .ret = 0,
		.object = obj, .kind = IPCPERF_FD_PIPE, .ino = ino, .detail = "",
		.capacity = 65536, .accmode = accmode,
	};

	snprintf(obj, sizeof(obj), "pipe:[%llu]", (unsigned long long)ino);
	for (size_t i = 0; i < nr_sinks; i++)
		ipcperf_stats__add_fd_open(sink[i], &ev);
}

/*
 * A move counts as a read of its source and a write of its destination,
 * ops, errors, time and bytes on both, and says so in read_moved and
 * write_moved; a failed one is an error on both. vmsplice has one fd: the
 * pipe's read end is read from, its write end written to. io_uring_enter's
 * returns add up to the requests not accounted.
 */
START_TEST(test_moves_count_both_sides)
{
	const struct ipcperf_fd_row *r;
	const struct ipcperf_proc_row *p;
	struct proc_rows *ps;
	struct fd_rows *rs;

	set_obj(100, 3, "/srv/f", IPCPERF_FD_FILE);
	set_obj(100, 4, "socket:[9]", IPCPERF_FD_TCP);
	pipe_end(100, 5, 7, O_RDONLY);
	pipe_end(100, 6, 7, O_WRONLY);
	do_pipe2(100);
	do_write(100, 4, 10, 10, 100);				/* a plain write */
	do_move(100, SYS_sendfile, "sendfile", 3, 4, 1000, 500);
	do_move(100, SYS_splice, "splice", 3, 6, 300, 400);
	do_move(100, SYS_splice, "splice", 3, 4, -EINVAL, 100);
	do_move(100, SYS_vmsplice, "vmsplice", 6, -1, 50, 70);	/* into the pipe */
	do_move(100, SYS_vmsplice, "vmsplice", 5, -1, 60, 80);	/* out of it */
	do_move(100, SYS_copy_file_range, "copy_file_range", 3, 3, 20, 30);
	for (int64_t ret = 3; ret >= -1; ret -= 2) {		/* 3, 1, -1 */
		struct ipcperf_syscall ev = call(100, 100, SYS_io_uring_enter, "io_uring_enter",
						 IPCPERF_SC_OTHER, 7, ret < 0 ? -EBUSY : ret, 10);

		feed_sc(&ev);
	}

	rs = fds_of(st);
	r = row_of(rs, 100, 3, "/srv/f");
	ck_io(r->read, 4, 1320, 1, 500 + 400 + 100 + 30);
	ck_assert_uint_eq(r->read_moved.ops, 4);
	ck_assert_uint_eq(r->read_moved.bytes, 1320);
	ck_io(r->write, 1, 20, 0, 30);				/* copy_file_range onto itself */
	ck_assert_uint_eq(r->write_moved.ops, 1);
	ck_assert_uint_eq(r->write_moved.bytes, 20);
	r = row_of(rs, 100, 4, "socket:[9]");
	ck_io(r->write, 3, 1010, 1, 100 + 500 + 100);
	ck_assert_uint_eq(r->write_moved.ops, 2);
	ck_assert_uint_eq(r->write_moved.bytes, 1000);
	ck_io(r->read, 0, 0, 0, 0);
	r = row_of(rs, 100, 6, "pipe:[7]");
	ck_io(r->write, 2, 350, 0, 400 + 70);
	ck_assert_uint_eq(r->write_moved.bytes, 350);
	ck_io(r->read, 0, 0, 0, 0);
	r = row_of(rs, 100, 5, "pipe:[7]");
	ck_io(r->read, 1, 60, 0, 80);
	ck_assert_uint_eq(r->read_moved.ops, 1);
	ck_io(r->write, 0, 0, 0, 0);
	free_fds(rs);
	ps = procs_of(st);
	p = proc_of(ps, 100);
	ck_assert_uint_eq(p->uring_unaccounted, 4);
	free(ps);
}
END_TEST

/* ------------------------------------------------------------------ bytes, errors, time */

START_TEST(test_bytes_errors_time)
{
	struct ipcperf_syscall first, last;
	const struct ipcperf_fd_row *r;
	struct fd_rows *rs;

	set_obj(100, 3, "pipe:[77]", IPCPERF_FD_PIPE);
	first = do_write(100, 3, 100, 100, 1000);
	do_write(100, 3, 200, 50, 3000);	/* short write: 50 bytes, not 200 */
	do_write(100, 3, 10, -32, 500);		/* EPIPE */
	do_write(100, 3, 10, -9, 700);		/* EBADF */
	do_write(100, 3, 5, 0, 200);		/* 0 bytes, no error */
	do_read(100, 3, 4096, 4096, 10000);
	last = do_read(100, 3, 4096, 0, 50);	/* EOF */

	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 1);
	r = row_of(rs, 100, 3, "pipe:[77]");
	ck_io(r->write, 5, 150, 2, 1000 + 3000 + 500 + 700 + 200);
	ck_lat(r->write.lat_ns, 200, 5400 / 5, 3000);
	ck_assert_uint_eq(r->write.msgs, 0);
	ck_io(r->read, 2, 4096, 0, 10050);
	ck_lat(r->read.lat_ns, 50, 10050 / 2, 10000);
	ck_assert_uint_eq(r->read.msgs, 0);
	ck_assert_uint_eq(r->first_ns, first.start_ns);
	ck_assert_uint_eq(r->last_ns, last.end_ns);
	free_fds(rs);
}
END_TEST

START_TEST(test_only_errors_still_a_row)
{
	const struct ipcperf_fd_row *r;
	struct fd_rows *rs;

	set_obj(100, 4, "socket:[12]", IPCPERF_FD_TCP);
	do_read(100, 4, 100, -11, 40);	/* EAGAIN */
	do_read(100, 4, 100, -11, 60);

	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 1);
	r = row_of(rs, 100, 4, "socket:[12]");
	/* refused (would block), not failed: again, no errors */
	ck_io(r->read, 2, 0, 0, 100);
	ck_assert_uint_eq(r->read.again, 2);
	ck_lat(r->read.lat_ns, 40, 50, 60);
	ck_io(r->write, 0, 0, 0, 0);
	ck_lat(r->write.lat_ns, 0, 0, 0);
	free_fds(rs);
}
END_TEST

/* Each syscall row's histogram merged into @ctx (it lives only during the call). */
static int merge_sc_hist(void *ctx, const struct ipcperf_syscall_row *row)
{
	ck_assert_ptr_nonnull(row->hist);
	ck_assert_uint_eq(ipcperf_hist__count(row->hist), row->calls);
	ck_assert_int_eq(ipcperf_hist__merge(ctx, row->hist), 0);
	return 0;
}

/*
 * Two processes' rows of one syscall merged: 5 calls of 2 ms in one, 995 of
 * 1 us in the other. Each row's p99 is its own (2 ms, 1 us); the largest of
 * them (2 ms) is only an upper bound of the union's, whose 990th call of
 * 1000 is a 1 us one.
 */
START_TEST(test_syscall_rows_merge_exact)
{
	struct ipcperf_hist *h = ipcperf_hist__new();
	struct ipcperf_lat l;
	struct sc_rows *sr;

	ck_assert_ptr_nonnull(h);
	for (int i = 0; i < 5; i++)
		feed_sc((struct ipcperf_syscall[]){ call(100, 100, SYS_getpid, "getpid",
							 IPCPERF_SC_OTHER, -1, 100, 2000000) });
	for (int i = 0; i < 995; i++)
		feed_sc((struct ipcperf_syscall[]){ call(200, 200, SYS_getpid, "getpid",
							 IPCPERF_SC_OTHER, -1, 200, 1000) });
	sr = syscalls_of(st);
	ck_assert_uint_eq(sr->n, 2);
	ck_assert_uint_eq(sr->v[0].r.lat_ns.p99, 2000000);
	ck_assert_uint_eq(sr->v[1].r.lat_ns.p99, 1000);
	free(sr);
	ck_assert_int_eq(ipcperf_stats__for_each_syscall(st, merge_sc_hist, h), 0);
	ck_assert_int_eq(ipcperf_hist__lat(h, &l), 0);
	ck_assert_uint_eq(ipcperf_hist__count(h), 1000);
	ck_assert_uint_eq(ipcperf_hist__sum(h), 5 * 2000000 + 995 * 1000);
	ck_lat(l, 1000, (5 * 2000000 + 995 * 1000) / 1000, 2000000);
	ck_assert_uint_eq(l.p50, 1000);
	ck_assert_uint_eq(l.p99, 1000);
	/* NULL: nothing to add; no histogram to add to. */
	ck_assert_int_eq(ipcperf_hist__merge(h, NULL), 0);
	ck_assert_uint_eq(ipcperf_hist__count(h), 1000);
	ck_assert_int_eq(ipcperf_hist__merge(NULL, h), -EINVAL);
	ck_assert_int_eq(ipcperf_hist__lat(NULL, &l), -EINVAL);
	ipcperf_hist__delete(h);
	ipcperf_hist__delete(NULL);
}
END_TEST

START_TEST(test_latency_percentiles)
{
	enum { N = 301 };
	uint64_t durs[N], sorted[N], sum = 0;
	const struct ipcperf_fd_row *r;
	struct sc_rows *sr;
	struct fd_rows *rs;

	rng_state = 0x9e3779b97f4a7c15ull;
	set_obj(100, 5, "pipe:[5]", IPCPERF_FD_PIPE);
	for (size_t i = 0; i < N; i++) {
		/* spread over 4 orders of magnitude, so buckets of many widths are used */
		uint64_t d = 100 + rng() % 1000;

		for (uint64_t k = rng() % 4; k; k--)
			d *= 10;
		durs[i] = d;
		sum += d;
		do_write(100, 5, 64, 64, d);
	}
	memcpy(sorted, durs, sizeof(durs));
	qsort(sorted, N, sizeof(sorted[0]), cmp_u64);

	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 1);
	r = row_of(rs, 100, 5, "pipe:[5]");
	ck_io(r->write, N, 64 * N, 0, sum);
	ck_lat(r->write.lat_ns, sorted[0], sum / N, sorted[N - 1]);
	ck_assert_within_64th(r->write.lat_ns.p50, rank_value(sorted, N, 50));
	ck_assert_within_64th(r->write.lat_ns.p99, rank_value(sorted, N, 99));
	free_fds(rs);

	/* the syscall row has the same distribution */
	sr = syscalls_of(st);
	ck_assert_uint_eq(sr->n, 1);
	ck_assert_str_eq(sr->v[0].r.name, "write");
	ck_assert_uint_eq(sr->v[0].r.calls, N);
	ck_assert_uint_eq(sr->v[0].r.time_ns, sum);
	ck_lat(sr->v[0].r.lat_ns, sorted[0], sum / N, sorted[N - 1]);
	ck_assert_within_64th(sr->v[0].r.lat_ns.p50, rank_value(sorted, N, 50));
	ck_assert_within_64th(sr->v[0].r.lat_ns.p99, rank_value(sorted, N, 99));
	free(sr);
}
END_TEST

START_TEST(test_mmsg_counts_messages)
{
	const struct ipcperf_fd_row *r;
	struct fd_rows *rs;

	set_obj(100, 6, "socket:[555]", IPCPERF_FD_UDP);
	do_mmsg(100, true, 6, 8, 5, 100);
	do_mmsg(100, true, 6, 8, 3, 200);
	do_mmsg(100, true, 6, 8, -11, 300);	/* refused (EAGAIN): no messages, no error */
	do_mmsg(100, false, 6, 16, 4, 400);
	/* a byte-counting call on the same fd adds bytes, not messages */
	do_io(100, 100, SYS_sendto, "sendto", IPCPERF_SC_WRITE, 6, 100, 100, 500);

	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 1);
	r = row_of(rs, 100, 6, "socket:[555]");
	ck_assert_int_eq(r->kind, IPCPERF_FD_UDP);
	ck_assert_uint_eq(r->ino, 555);
	ck_io(r->write, 4, 100, 0, 1100);
	ck_assert_uint_eq(r->write.again, 1);
	ck_assert_uint_eq(r->write.msgs, 8);
	ck_io(r->read, 1, 0, 0, 400);
	ck_assert_uint_eq(r->read.msgs, 4);
	free_fds(rs);
}
END_TEST

/* ------------------------------------------------------------------ fd identity */

START_TEST(test_identity_lifecycle)
{
	const struct ipcperf_fd_row *r;
	struct fd_rows *rs;

	/* a known object */
	set_obj(100, 3, "pipe:[77]", IPCPERF_FD_PIPE);
	do_write(100, 3, 10, 10, 100);
	do_write(100, 3, 10, 10, 100);
	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 1);
	r = row_of(rs, 100, 3, "pipe:[77]");
	ck_assert_int_eq(r->kind, IPCPERF_FD_PIPE);
	ck_assert_uint_eq(r->ino, 77);
	ck_assert_uint_eq(r->peer_ino, 0);
	ck_assert_str_eq(r->detail, "");
	ck_io(r->write, 2, 20, 0, 200);
	free_fds(rs);

	/* dup2 copies the identity exactly */
	do_dup2(100, 3, 10);
	do_write(100, 10, 5, 5, 100);
	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 2);
	r = row_of(rs, 100, 10, "pipe:[77]");
	ck_assert_int_eq(r->kind, IPCPERF_FD_PIPE);
	ck_assert_uint_eq(r->ino, 77);
	ck_assert_uint_eq(r->peer_ino, 0);
	ck_assert_str_eq(r->detail, "");
	ck_io(r->write, 1, 5, 0, 100);
	free_fds(rs);

	/* fd 3 closed and reused for another object: a second row for fd 3 */
	do_close(100, 3, 0);
	set_obj(100, 3, "/dev/null", IPCPERF_FD_FILE);
	do_write(100, 3, 7, 7, 100);
	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 3);
	ck_assert_uint_eq(count_rows(rs, 100, 3), 2);
	r = row_of(rs, 100, 3, "pipe:[77]");
	ck_io(r->write, 2, 20, 0, 200);
	r = row_of(rs, 100, 3, "/dev/null");
	ck_assert_int_eq(r->kind, IPCPERF_FD_FILE);
	ck_assert_uint_eq(r->ino, 0);
	ck_io(r->write, 1, 7, 0, 100);
	free_fds(rs);

	/* fd 10 closed and reused with no identity (no /proc): unknown, not guessed */
	do_close(100, 10, 0);
	do_write(100, 10, 4, 4, 100);
	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 4);
	ck_assert_uint_eq(count_rows(rs, 100, 10), 2);
	r = row_of(rs, 100, 10, "pipe:[77]");
	ck_io(r->write, 1, 5, 0, 100);
	r = row_of(rs, 100, 10, "unknown");
	ck_assert_int_eq(r->kind, IPCPERF_FD_UNKNOWN);
	ck_assert_str_eq(ipcperf_fd_kind_name(r->kind), "unknown");
	ck_assert_uint_eq(r->ino, 0);
	ck_io(r->write, 1, 4, 0, 100);
	/* ordered by fd within the pid */
	ck_assert_int_eq(rs->v[0].r.fd, 3);
	ck_assert_int_eq(rs->v[1].r.fd, 3);
	ck_assert_int_eq(rs->v[2].r.fd, 10);
	ck_assert_int_eq(rs->v[3].r.fd, 10);
	free_fds(rs);
}
END_TEST

/* What ipcperf_stats__on_call() handed over, in order. */
struct calls_seen {
	struct {
		pid_t pid;
		int fd;
		int64_t ret;
		char object[128];
		enum ipcperf_fd_kind kind;
		uint64_t ino;
	} v[16];
	size_t n;
};

static void on_call(void *ctx, const struct ipcperf_syscall *ev, const struct ipcperf_fd_object *fd)
{
	struct calls_seen *c = ctx;

	ck_assert_uint_lt(c->n, 16);
	c->v[c->n].pid = ev->pid;
	c->v[c->n].fd = ev->fd;
	c->v[c->n].ret = ev->ret;
	snprintf(c->v[c->n].object, sizeof(c->v[c->n].object), "%s", fd->object);
	c->v[c->n].kind = fd->kind;
	c->v[c->n].ino = fd->ino;
	c->n++;
}

/* Each read or write with the object its fd was at that call, in order; at once without /proc. */
START_TEST(test_on_call)
{
	struct calls_seen c = { 0 };

	ck_assert_int_eq(ipcperf_stats__on_call(NULL, on_call, &c), -EINVAL);
	ck_assert_int_eq(ipcperf_stats__on_call(st, on_call, &c), 0);
	set_obj(100, 3, "pipe:[77]", IPCPERF_FD_PIPE);
	do_write(100, 3, 10, 10, 100);
	do_close(100, 3, 0);
	set_obj(100, 3, "/dev/null", IPCPERF_FD_FILE);
	do_write(100, 3, 7, 7, 100);
	do_dup2(100, 3, 10);
	do_read(100, 10, 5, -EBADF, 100);
	do_write(100, 11, 1, 1, 100);	/* never seen: unknown */
	ck_assert_uint_eq(c.n, 4);
	ck_assert_str_eq(c.v[0].object, "pipe:[77]");
	ck_assert_int_eq(c.v[0].kind, IPCPERF_FD_PIPE);
	ck_assert_uint_eq(c.v[0].ino, 77);
	ck_assert_int_eq(c.v[0].ret, 10);
	ck_assert_str_eq(c.v[1].object, "/dev/null");
	ck_assert_int_eq(c.v[1].kind, IPCPERF_FD_FILE);
	ck_assert_int_eq(c.v[2].fd, 10);
	ck_assert_str_eq(c.v[2].object, "/dev/null");
	ck_assert_int_eq(c.v[2].ret, -EBADF);
	ck_assert_str_eq(c.v[3].object, "unknown");
	ck_assert_int_eq(c.v[3].kind, IPCPERF_FD_UNKNOWN);
	/* Nothing left to settle; other calls are not handed over. */
	do_close(100, 10, 0);
	ipcperf_stats__settle_calls(st);
	ipcperf_stats__settle_calls(NULL);
	ck_assert_uint_eq(c.n, 4);
	/* NULL stops the calls. */
	ck_assert_int_eq(ipcperf_stats__on_call(st, NULL, NULL), 0);
	do_write(100, 3, 1, 1, 100);
	ck_assert_uint_eq(c.n, 4);
}
END_TEST

/*
 * With /proc: the answer about an fd of this very process is read when the
 * fd is first used, at a time the events have not reached yet (their clock
 * is far behind), so the call waits until an event catches up, or until
 * the calls are settled at the end.
 */
START_TEST(test_on_call_waits_for_proc)
{
	IPCPERF_OPTS(ipcperf_stats_opts, o);
	struct ipcperf_stats *live = ipcperf_stats__new(&o);
	struct calls_seen c = { 0 };
	struct ipcperf_syscall ev;
	char want[64];
	int fds[2];

	ck_assert_ptr_nonnull(live);
	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(ipcperf_stats__on_call(live, on_call, &c), 0);
	ev = call(getpid(), getpid(), SYS_write, "write", IPCPERF_SC_WRITE, fds[1], 1, 100);
	ev.args[0] = (uint64_t)fds[1];
	ev.nr_args = 3;
	ipcperf_stats__add_syscall(live, &ev);
	ck_assert_uint_eq(c.n, 0);
	ipcperf_stats__settle_calls(live);
	ck_assert_uint_eq(c.n, 1);
	{
		struct stat sb;

		ck_assert_int_eq(fstat(fds[1], &sb), 0);
		snprintf(want, sizeof(want), "pipe:[%llu]", (unsigned long long)sb.st_ino);
		ck_assert_str_eq(c.v[0].object, want);
		ck_assert_uint_eq(c.v[0].ino, (uint64_t)sb.st_ino);
	}
	ck_assert_int_eq(c.v[0].kind, IPCPERF_FD_PIPE);
	close(fds[0]);
	close(fds[1]);
	ipcperf_stats__delete(live);
}
END_TEST

/* What the kernel said of fd @fd, made by call @nr of @pid that returned @ret. */
static void fd_open(pid_t pid, int fd, int nr, int64_t ret, const char *object,
		    enum ipcperf_fd_kind kind, uint64_t ino, const char *detail)
{
	struct ipcperf_fd_open ev = {
		.time_ns = clk, .pid = pid, .tid = pid, .fd = fd, .nr = nr, .ret = ret,
		.object = object, .kind = kind, .ino = ino, .detail = detail ? detail : "",
		.capacity = -1, .gone = object == NULL,
	};

	for (size_t i = 0; i < nr_sinks; i++)
		ipcperf_stats__add_fd_open(sink[i], &ev);
}

/*
 * @pid's fd @fd is socket:[@ino], TCP, @detail its addresses: first seen
 * made by an openat that stands for socket().
 */
static void tcp_socket(pid_t pid, int fd, uint64_t ino, const char *detail)
{
	char obj[32];

	snprintf(obj, sizeof(obj), "socket:[%llu]", (unsigned long long)ino);
	fd_open(pid, fd, SYS_openat, fd, obj, IPCPERF_FD_TCP, ino, detail);
	do_openat(pid, fd);
}

static void do_pipe2(pid_t pid)
{
	struct ipcperf_syscall ev = call(pid, pid, SYS_pipe2, "pipe2", IPCPERF_SC_FD_PAIR, -1, 0, 900);

	ev.args[0] = 0x7ffd4000;
	ev.nr_args = 2;
	feed_sc(&ev);
}

/*
 * The kernel's word on new fds: before the exit of the call that made them
 * (pipe2's two ends), or after it (openat), exact either way; a word whose
 * call's exit never came is not given to another call; a fd gone before the
 * kernel looked is unknown.
 */
START_TEST(test_kernel_fd_identity)
{
	const struct ipcperf_fd_row *r;
	struct fd_rows *rs;

	/* before the exit */
	fd_open(100, 3, SYS_pipe2, 0, "pipe:[500]", IPCPERF_FD_PIPE, 500, NULL);
	fd_open(100, 4, SYS_pipe2, 0, "pipe:[500]", IPCPERF_FD_PIPE, 500, NULL);
	do_pipe2(100);
	do_write(100, 4, 10, 10, 100);
	do_read(100, 3, 10, 10, 100);
	/* after the exit */
	do_openat(100, 5);
	fd_open(100, 5, SYS_openat, 5, "/etc/hostname", IPCPERF_FD_FILE, 0, NULL);
	do_read(100, 5, 100, 7, 100);
	/* a word for a call whose exit was lost: the next call (another one) does not take it */
	fd_open(100, 6, SYS_openat, 6, "/etc/passwd", IPCPERF_FD_FILE, 0, NULL);
	do_close(100, 5, 0);
	do_read(100, 6, 10, 10, 100);
	/* gone before the kernel looked */
	do_openat(100, 7);
	fd_open(100, 7, SYS_openat, 7, NULL, IPCPERF_FD_UNKNOWN, 0, NULL);
	do_read(100, 7, 1, 1, 100);

	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 5);
	r = row_of(rs, 100, 3, "pipe:[500]");
	ck_assert_int_eq(r->kind, IPCPERF_FD_PIPE);
	ck_assert_uint_eq(r->ino, 500);
	ck_io(r->read, 1, 10, 0, 100);
	r = row_of(rs, 100, 4, "pipe:[500]");
	ck_io(r->write, 1, 10, 0, 100);
	r = row_of(rs, 100, 5, "/etc/hostname");
	ck_assert_int_eq(r->kind, IPCPERF_FD_FILE);
	ck_io(r->read, 1, 7, 0, 100);
	ck_assert_uint_eq(count_rows(rs, 100, 6), 1);
	r = row_of(rs, 100, 6, "unknown");
	ck_io(r->read, 1, 10, 0, 100);
	r = row_of(rs, 100, 7, "unknown");
	ck_io(r->read, 1, 1, 0, 100);
	free_fds(rs);
}
END_TEST

/* Bytes the heap holds now (0 where the allocator does not say: ASan, valgrind). */
static size_t heap_in_use(void)
{
	return mallinfo2().uordblks;
}

/*
 * @n times: open fd 3 (the kernel names it /dev/null after the exit; the
 * first time before, which tells the table the kernel speaks), read it on
 * every other pass, close it; every 1000th pass fd 4 too, written once.
 */
static void churn(pid_t pid, unsigned int n)
{
	fd_open(pid, 3, SYS_openat, 3, "/dev/null", IPCPERF_FD_FILE, 0, NULL);
	for (unsigned int i = 0; i < n; i++) {
		do_openat(pid, 3);
		if (i)
			fd_open(pid, 3, SYS_openat, 3, "/dev/null", IPCPERF_FD_FILE, 0, NULL);
		if (i % 2 == 0)
			do_read(pid, 3, 10, 10, 100);
		if (i % 1000 == 0) {
			do_openat(pid, 4);
			fd_open(pid, 4, SYS_openat, 4, "/etc/passwd", IPCPERF_FD_FILE, 0, NULL);
			do_write(pid, 4, 1, 1, 200);
			do_close(pid, 4, 0);
		}
		do_close(pid, 3, 0);
	}
}

/*
 * A closed fd's counts fold into its row (pid, fd, object) and its state is
 * freed: the rows of 100,000 opens are exact, and the heap after them holds
 * what it held after 10,000 (a retired incarnation cost ~500 bytes before).
 */
START_TEST(test_closed_fds_folded)
{
	const struct ipcperf_fd_row *r;
	struct fd_rows *rs;
	size_t after_10k;

	churn(100, 10000);
	after_10k = heap_in_use();
	churn(100, 90000);
	ck_assert_uint_le(heap_in_use(), after_10k + 64 * 1024);
	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 2);
	r = row_of(rs, 100, 3, "/dev/null");
	ck_io(r->read, 50000, 500000, 0, 50000 * 100);
	ck_assert_uint_eq(r->read.lat_ns.max, 100);
	ck_assert_uint_eq(r->write.ops, 0);
	r = row_of(rs, 100, 4, "/etc/passwd");
	ck_io(r->write, 100, 100, 0, 100 * 200);
	free_fds(rs);
	/* reset: the folded counts go too, the rows stay */
	ipcperf_stats__reset(st);
	do_openat(100, 3);
	fd_open(100, 3, SYS_openat, 3, "/dev/null", IPCPERF_FD_FILE, 0, NULL);
	do_read(100, 3, 10, 4, 100);
	rs = fds_of(st);
	r = row_of(rs, 100, 3, "/dev/null");
	ck_io(r->read, 1, 4, 0, 100);
	r = row_of(rs, 100, 4, "/etc/passwd");
	ck_io(r->write, 0, 0, 0, 0);
	free_fds(rs);
}
END_TEST

static void count_call(void *ctx, const struct ipcperf_syscall *ev,
		       const struct ipcperf_fd_object *fd)
{
	(void)ev;
	if (!strcmp(fd->object, "/dev/null"))
		(*(unsigned int *)ctx)++;
}

static void count_every(void *ctx, const struct ipcperf_syscall *ev,
			const struct ipcperf_call_fds *fds)
{
	(void)ev;
	if (fds->fd && !strcmp(fds->fd->object, "/dev/null"))
		(*(unsigned int *)ctx)++;
}

/* The same with calls waiting for their fds (on_call, on_every_call): freed once handed out. */
START_TEST(test_closed_fds_freed_with_calls)
{
	unsigned int reads = 0, every = 0;
	size_t after_10k;

	ck_assert_int_eq(ipcperf_stats__on_call(st, count_call, &reads), 0);
	ck_assert_int_eq(ipcperf_stats__on_every_call(st, count_every, &every), 0);
	churn(100, 10000);
	after_10k = heap_in_use();
	churn(100, 90000);
	ipcperf_stats__settle_calls(st);
	ck_assert_uint_le(heap_in_use(), after_10k + 64 * 1024);
	ck_assert_uint_eq(reads, 50000);
	/* every call on fd 3 but its opens: the reads and the closes */
	ck_assert_uint_eq(every, 150000);
}
END_TEST

/* How many fd rows a stats object reports (any number: no copies kept). */
static int count_row(void *ctx, const struct ipcperf_fd_row *row)
{
	(void)row;
	(*(size_t *)ctx)++;
	return 0;
}

static size_t nr_rows(struct ipcperf_stats *s)
{
	size_t n = 0;

	ck_assert_int_eq(ipcperf_stats__for_each_fd(s, count_row, &n), 0);
	return n;
}

/* @n threads of @pid, from @first_tid on: each cloned, writes 10 bytes on fd 1, exits. */
static void thread_churn(pid_t pid, pid_t first_tid, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		pid_t tid = first_tid + (pid_t)i;

		do_fork(pid, pid, tid, "srv");
		do_io(pid, tid, SYS_write, "write", IPCPERF_SC_WRITE, 1, 10, 10, 100);
		do_exit(pid, tid, "srv");
	}
}

/*
 * A server that makes a thread per request: each clone makes a copy of the
 * process's fd table under the thread's id (the event does not say it is
 * a thread), never used; it goes with the thread, with the thread's other
 * entries (its process entry, the kernel's words' last exit). Per thread
 * the heap keeps its threads-table entry (16 bytes), where it kept ~2 KB.
 */
START_TEST(test_thread_copies_freed)
{
	const struct ipcperf_fd_row *r;
	struct fd_rows *rs;
	size_t after_2k;

	do_switch(100, 100, 0, false, "srv");
	for (int fd = 0; fd < 8; fd++)
		set_obj(100, fd, "/dev/null", IPCPERF_FD_FILE);
	/* the kernel speaks: the table keeps each thread's last exit */
	do_openat(100, 9);
	fd_open(100, 9, SYS_openat, 9, "/etc/hostname", IPCPERF_FD_FILE, 0, NULL);
	thread_churn(100, 1000, 2000);
	after_2k = heap_in_use();
	thread_churn(100, 3000, 18000);
	ck_assert_uint_le(heap_in_use(), after_2k + 18000 * 64);
	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 9);
	r = row_of(rs, 100, 1, "/dev/null");
	ck_io(r->write, 20000, 200000, 0, 20000 * 100);
	free_fds(rs);
}
END_TEST

/* @n processes, forked by 100 from pid @first on: each writes 2 bytes on fd 1 (1 ms) and exits. */
static void proc_churn(pid_t first, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		pid_t pid = first + (pid_t)i;

		do_fork(100, 100, pid, "sh");
		do_io(pid, pid, SYS_write, "write", IPCPERF_SC_WRITE, 1, 2, 2, 1000000);
		do_exit(pid, pid, "echo");
	}
}

/*
 * Short-lived processes (a shell's commands): each one's fds end with it
 * and fold into its rows, a second of events after its exit (the kernel's
 * sums come just after an exit's record), and its syscall rows keep their
 * latencies packed. Per process the heap keeps its rows (here 3, of which
 * one written, and a syscall row: well under 2 KB), where it kept every fd
 * open and two dense histograms of ~7.7 KB.
 */
START_TEST(test_exited_processes_folded)
{
	struct fd_rows *rs;
	size_t after_1k;

	do_switch(100, 100, 0, false, "sh");
	for (int fd = 0; fd < 3; fd++)
		set_obj(100, fd, "/dev/null", IPCPERF_FD_FILE);
	proc_churn(1000, 1000);
	after_1k = heap_in_use();
	proc_churn(2000, 9000);
	ck_assert_uint_le(heap_in_use(), after_1k + 9000 * 2048);
	ck_assert_uint_eq(nr_rows(st), 3 + 10000 * 3);
	/* the last ones are rows too, as they were */
	rs = fds_of_pid(st, 10999);
	ck_assert_uint_eq(rs->n, 3);
	ck_io(row_of(rs, 10999, 1, "/dev/null")->write, 1, 2, 0, 1000000);
	ck_no_io(row_of(rs, 10999, 2, "/dev/null"));
	free_fds(rs);
}
END_TEST

/* A call of thread @tid of @pid from @start to @end (the clock is left as it is). */
static struct ipcperf_syscall call_at(pid_t pid, pid_t tid, int nr, const char *name,
				      enum ipcperf_sc_class cls, int fd, int64_t ret,
				      uint64_t start, uint64_t end)
{
	struct ipcperf_syscall ev = {
		.start_ns = start, .end_ns = end, .pid = pid, .tid = tid, .cpu = 0, .nr = nr,
		.name = name, .cls = cls, .fd = fd, .ret = ret, .nr_args = 3,
		.args = { (uint64_t)fd, 0x7ffd1000, ret > 0 ? (uint64_t)ret : 0 },
	};

	return ev;
}

/* The kernel's sums of @ops calls of @nr on @fd of @pid, @bytes each, @dur ns each, in [@first, @last]. */
static void sum_of(pid_t pid, int fd, int nr, uint64_t ops, uint64_t bytes, uint64_t dur,
		   uint64_t first, uint64_t last)
{
	static struct ipp_sum_rec r;
	unsigned int b = ipp_hist_index(dur);

	memset(&r, 0, sizeof(r));
	r.pid = pid;
	r.tid = pid;
	r.fd = fd;
	r.nr = nr;
	r.ops = ops;
	r.bytes = ops * bytes;
	r.time_ns = ops * dur;
	r.min_ns = r.max_ns = dur;
	r.first_ns = first;
	r.last_ns = last;
	r.base = b & ~31u;
	r.hist[b - r.base] = (uint32_t)ops;
	for (size_t i = 0; i < nr_sinks; i++)
		ipp_stats__add_sum(sink[i], &r);
}

/*
 * Thread 101 closes socket fd 6 of a server; the fd is gone early in the
 * call, and thread 102's openat takes the number and returns before the
 * close does. The close ends the socket, not the file, whose reads before
 * and after the close's exit are the file's; the kernel's sums of the
 * socket's writes, written at the close's exit (after the openat's), are
 * the socket's. Before: the file's incarnation was ended by the close (its
 * next read went to a row "unknown"), and the socket's writes were the file's.
 */
START_TEST(test_close_racing_new_fd)
{
	struct ipcperf_syscall ev;
	uint64_t t0;
	struct fd_rows *rs;

	/* the word before its exit: the table learns that the kernel speaks */
	fd_open(100, 6, SYS_accept4, 6, "socket:[900]", IPCPERF_FD_TCP, 900,
		"127.0.0.1:80 -> 127.0.0.1:40000");
	do_accept4(100, 3, 6);
	do_io(100, 101, SYS_recvfrom, "recvfrom", IPCPERF_SC_READ, 6, 100, 90, 500);
	t0 = clk;
	/* the socket's two sendtos, added up in the kernel */
	clk += 2000;
	/* the close of thread 101: [t0 + 3000, t0 + 9000] */
	/* the openat of thread 102: [t0 + 4000, t0 + 5000], its word after its exit */
	ev = call_at(100, 102, SYS_openat, "openat", IPCPERF_SC_FD_NEW, -1, 6, t0 + 4000, t0 + 5000);
	feed_sc(&ev);
	{
		struct ipcperf_fd_open w = {
			.time_ns = t0 + 5001, .pid = 100, .tid = 102, .fd = 6, .nr = SYS_openat,
			.ret = 6, .object = "/etc/hostname", .kind = IPCPERF_FD_FILE,
			.detail = "", .capacity = -1,
		};

		for (size_t i = 0; i < nr_sinks; i++)
			ipcperf_stats__add_fd_open(sink[i], &w);
	}
	ev = call_at(100, 102, SYS_read, "read", IPCPERF_SC_READ, 6, 7, t0 + 6000, t0 + 6500);
	feed_sc(&ev);
	sum_of(100, 6, SYS_sendto, 2, 150, 300, t0 + 500, t0 + 2500);
	ev = call_at(100, 101, SYS_close, "close", IPCPERF_SC_FD_CLOSE, 6, 0, t0 + 3000, t0 + 9000);
	ev.nr_args = 1;
	feed_sc(&ev);
	ev = call_at(100, 102, SYS_read, "read", IPCPERF_SC_READ, 6, 5, t0 + 9500, t0 + 9900);
	feed_sc(&ev);
	clk = t0 + 10000;

	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 2);
	ck_io(row_of(rs, 100, 6, "socket:[900]")->read, 1, 90, 0, 500);
	ck_io(row_of(rs, 100, 6, "socket:[900]")->write, 2, 300, 0, 600);
	ck_io(row_of(rs, 100, 6, "/etc/hostname")->read, 2, 12, 0, 900);
	ck_assert_uint_eq(row_of(rs, 100, 6, "/etc/hostname")->write.ops, 0);
	free_fds(rs);
}
END_TEST
/*
 * A read of thread 101 under way on fd 3, a pipe, while thread 100 ends
 * the fd (close and open again, or dup2 over it, _i & 1) and makes it a
 * file; the read returns after: the kernel held the pipe, the read is the
 * pipe's. With _i & 2, 300 files opened and closed on fd 4 meanwhile: a
 * sweep (at 256 closed) retires the pipe's incarnation before the read's
 * exit comes.
 */
START_TEST(test_read_across_fd_end)
{
	struct ipcperf_syscall ev;
	struct fd_rows *rs;
	uint64_t t0;

	fd_open(100, 3, SYS_openat, 3, "pipe:[500]", IPCPERF_FD_PIPE, 500, NULL);
	do_openat(100, 3);
	t0 = clk;
	clk += 1000;
	if (_i & 1) {
		fd_open(100, 4, SYS_openat, 4, "/etc/hostname", IPCPERF_FD_FILE, 0, NULL);
		do_openat(100, 4);
		do_dup2(100, 4, 3);
		do_close(100, 4, 0);
	} else {
		do_close(100, 3, 0);
		fd_open(100, 3, SYS_openat, 3, "/etc/hostname", IPCPERF_FD_FILE, 0, NULL);
		do_openat(100, 3);
	}
	for (int i = 0; (_i & 2) && i < 300; i++) {
		fd_open(100, 4, SYS_openat, 4, "/dev/null", IPCPERF_FD_FILE, 0, NULL);
		do_openat(100, 4);
		do_close(100, 4, 0);
	}
	ev = call_at(100, 101, SYS_read, "read", IPCPERF_SC_READ, 3, 77, t0, clk);
	ev.args[0] = 3;
	ev.nr_args = 3;
	feed_sc(&ev);
	rs = fds_of(st);
	ck_io(row_of(rs, 100, 3, "pipe:[500]")->read, 1, 77, 0, clk - t0);
	ck_io(row_of(rs, 100, 3, "/etc/hostname")->read, 0, 0, 0, 0);
	free_fds(rs);
}
END_TEST

/* ipcperf_stats__on_every_call(): each call as "name fd<object> = new<object>...", in order. */
struct every_log {
	char lines[16][160];
	size_t n;
};

static void log_every(void *ctx, const struct ipcperf_syscall *ev, const struct ipcperf_call_fds *fds)
{
	struct every_log *l = ctx;
	char *b;
	size_t at;

	ck_assert_uint_lt(l->n, 16);
	b = l->lines[l->n++];
	at = (size_t)snprintf(b, 160, "%s", ev->name);
	if (fds->fd)
		at += (size_t)snprintf(b + at, 160 - at, " %d<%s>", ev->fd, fds->fd->object);
	for (unsigned int i = 0; i < fds->nr_new; i++)
		at += (size_t)snprintf(b + at, 160 - at, " %s%d<%s>", i ? "" : "= ", fds->new_fds[i],
				       fds->new_objects[i].object);
}

START_TEST(test_on_every_call)
{
	static const char *const want[] = {
		"pipe2 = 3<pipe:[500]> 4<pipe:[500]>",	/* the words before the exit */
		"write 4<pipe:[500]>",
		"openat = 5</etc/hostname>",		/* the word after the exit */
		"read 5</etc/hostname>",
		"dup2 5</etc/hostname> = 9</etc/hostname>",
		"close 5</etc/hostname>",		/* what it closed */
		"read 9</etc/hostname>",
		"close 9</etc/hostname>",
		"read 9<unknown>",			/* closed: never seen again */
	};
	struct every_log l = { .n = 0 };
	struct ipcperf_syscall ev;

	ck_assert_int_eq(ipcperf_stats__on_every_call(st, log_every, &l), 0);
	ck_assert_int_eq(ipcperf_stats__on_every_call(NULL, log_every, &l), -EINVAL);
	fd_open(100, 3, SYS_pipe2, 0, "pipe:[500]", IPCPERF_FD_PIPE, 500, NULL);
	fd_open(100, 4, SYS_pipe2, 0, "pipe:[500]", IPCPERF_FD_PIPE, 500, NULL);
	do_pipe2(100);
	do_write(100, 4, 10, 10, 100);
	do_openat(100, 5);
	/* waits for the kernel's word, which comes after the exit */
	ck_assert_uint_eq(l.n, 2);
	fd_open(100, 5, SYS_openat, 5, "/etc/hostname", IPCPERF_FD_FILE, 0, NULL);
	do_read(100, 5, 100, 7, 100);
	ev = call(100, 100, SYS_dup2, "dup2", IPCPERF_SC_FD_DUP2, 5, 9, 100);
	ev.args[0] = 5;
	ev.args[1] = 9;
	ev.nr_args = 2;
	feed_sc(&ev);
	do_close(100, 5, 0);
	do_read(100, 9, 100, 7, 100);
	do_close(100, 9, 0);
	do_read(100, 9, 100, 7, 100);
	ipcperf_stats__settle_calls(st);
	ck_assert_uint_eq(l.n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < l.n; i++)
		ck_assert_str_eq(l.lines[i], want[i]);
}
END_TEST

static void log_signal(void *ctx, const struct ipcperf_signal *ev)
{
	struct every_log *l = ctx;
	siginfo_t si;

	ck_assert_uint_lt(l->n, 16);
	memcpy(&si, ev->info, sizeof(si));
	snprintf(l->lines[l->n++], 160, "signal %d to %d from %d", ev->signo, (int)ev->tid,
		 (int)si.si_pid);
}

/* @sig with si_pid @from, as the kernel's siginfo says it. */
static void sig_from(struct ipcperf_signal *sig, int signo, pid_t from)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_signo = signo;
	si.si_pid = from;
	sig->signo = signo;
	memcpy(sig->info, &si, sizeof(si));
}

static void log_exit(void *ctx, const struct ipcperf_task *ev)
{
	struct every_log *l = ctx;

	ck_assert_uint_lt(l->n, 16);
	snprintf(l->lines[l->n++], 160, "exit %d %s status %#x", (int)ev->tid,
		 ev->comm ? ev->comm : "-", (unsigned int)ev->exit_status);
}

/* Signals and exits come in their place among the calls: behind a call that waits for its fd. */
START_TEST(test_on_every_signal_and_exit)
{
	static const char *const want[] = {
		"pipe2 = 3<pipe:[500]> 4<pipe:[500]>",
		"openat = 5</etc/hostname>",
		"signal 17 to 100 from 101",
		"exit 101 child status 0x9",
		"read 5</etc/hostname>",
		"signal 15 to 100 from 100",
	};
	struct every_log l = { .n = 0 };
	struct ipcperf_signal sig = { .time_ns = 10, .pid = 100, .tid = 100, .signo = SIGCHLD };
	struct ipcperf_task ex = { .kind = IPCPERF_TASK_EXIT, .time_ns = 11, .pid = 101,
				   .tid = 101, .comm = "child", .exit_status = SIGKILL };
	char comm[16] = "child";

	ck_assert_int_eq(ipcperf_stats__on_every_signal(NULL, log_signal, &l), -EINVAL);
	ck_assert_int_eq(ipcperf_stats__on_every_exit(NULL, log_exit, &l), -EINVAL);
	/* without a callback, nothing waits for them */
	ipcperf_stats__add_signal(st, &sig);
	ck_assert_int_eq(ipcperf_stats__on_every_call(st, log_every, &l), 0);
	ck_assert_int_eq(ipcperf_stats__on_every_signal(st, log_signal, &l), 0);
	ck_assert_int_eq(ipcperf_stats__on_every_exit(st, log_exit, &l), 0);
	/* the kernel describes fds: a call that makes one waits for its word */
	fd_open(100, 3, SYS_pipe2, 0, "pipe:[500]", IPCPERF_FD_PIPE, 500, NULL);
	fd_open(100, 4, SYS_pipe2, 0, "pipe:[500]", IPCPERF_FD_PIPE, 500, NULL);
	do_pipe2(100);
	do_openat(100, 5);
	sig_from(&sig, SIGCHLD, 101);
	ipcperf_stats__add_signal(st, &sig);
	ex.comm = comm;
	ipcperf_stats__add_task(st, &ex);
	memset(comm, 0, sizeof(comm));	/* handed only for the call: copied */
	ck_assert_uint_eq(l.n, 1);
	fd_open(100, 5, SYS_openat, 5, "/etc/hostname", IPCPERF_FD_FILE, 0, NULL);
	do_read(100, 5, 100, 7, 100);
	sig_from(&sig, SIGTERM, 100);
	ipcperf_stats__add_signal(st, &sig);
	ipcperf_stats__settle_calls(st);
	ck_assert_uint_eq(l.n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < l.n; i++)
		ck_assert_str_eq(l.lines[i], want[i]);
}
END_TEST

static void log_entered(void *ctx, const struct ipcperf_syscall *ev,
			const struct ipcperf_call_fds *fds)
{
	struct every_log *l = ctx;

	ck_assert_uint_lt(l->n, 16);
	snprintf(l->lines[l->n++], 160, "entered %s %d<%s>", ev->name, ev->fd,
		 fds->fd ? fds->fd->object : "-");
}

/* A call under way comes in its place too, with its fd as it is then. */
START_TEST(test_on_every_call_entered)
{
	static const char *const want[] = {
		"pipe2 = 3<pipe:[500]> 4<pipe:[500]>",
		"openat = 5</etc/hostname>",
		"entered read 5</etc/hostname>",
		"write 4<pipe:[500]>",
		"read 5</etc/hostname>",
	};
	struct every_log l = { .n = 0 };
	struct ipcperf_syscall rd;

	ck_assert_int_eq(ipcperf_stats__on_every_call_entered(NULL, log_entered, &l), -EINVAL);
	ck_assert_int_eq(ipcperf_stats__on_every_call(st, log_every, &l), 0);
	ck_assert_int_eq(ipcperf_stats__on_every_call_entered(st, log_entered, &l), 0);
	fd_open(100, 3, SYS_pipe2, 0, "pipe:[500]", IPCPERF_FD_PIPE, 500, NULL);
	fd_open(100, 4, SYS_pipe2, 0, "pipe:[500]", IPCPERF_FD_PIPE, 500, NULL);
	do_pipe2(100);
	do_openat(100, 5);
	fd_open(100, 5, SYS_openat, 5, "/etc/hostname", IPCPERF_FD_FILE, 0, NULL);
	rd = call(100, 101, SYS_read, "read", IPCPERF_SC_READ, 5, 0, 1000);
	ipcperf_stats__add_call_entered(st, &rd);
	do_write(100, 4, 10, 10, 100);
	do_io(100, 101, SYS_read, "read", IPCPERF_SC_READ, 5, 100, 7, 100);
	ipcperf_stats__settle_calls(st);
	ck_assert_uint_eq(l.n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < l.n; i++)
		ck_assert_str_eq(l.lines[i], want[i]);
}
END_TEST

/* The kernel names inet sockets by their addresses: mirrored addresses make two ends peers. */
START_TEST(test_kernel_tcp_peers)
{
	struct fd_rows *rs;
	const struct ipcperf_fd_row *r;

	fd_open(200, 3, SYS_socket, 3, "socket:[900]", IPCPERF_FD_TCP, 900,
		"127.0.0.1:0 -> ");
	do_openat(200, 3);	/* stands for socket(): any call that returned 3 */
	fd_open(200, 3, SYS_openat, 3, "socket:[900]", IPCPERF_FD_TCP, 900,
		"127.0.0.1:41000 -> 127.0.0.1:5000");
	do_accept4(300, 4, 6);
	fd_open(300, 6, SYS_accept4, 6, "socket:[901]", IPCPERF_FD_TCP, 901,
		"127.0.0.1:5000 -> 127.0.0.1:41000");
	do_write(200, 3, 5, 5, 100);
	do_read(300, 6, 5, 5, 100);
	rs = fds_of(st);
	r = row_of(rs, 200, 3, "socket:[900]");
	ck_assert_uint_eq(r->peer_ino, 901);
	r = row_of(rs, 300, 6, "socket:[901]");
	ck_assert_uint_eq(r->peer_ino, 900);
	ck_assert_str_eq(r->detail, "127.0.0.1:5000 -> 127.0.0.1:41000");
	free_fds(rs);
}
END_TEST

/* The groups of a stats object, copied (the strings cut to 64). */
struct grp {
	pid_t pid, peer;
	enum ipcperf_fd_group_role role;
	enum ipcperf_fd_kind kind;
	char endpoint[64], peer_comm[16], object[64];
	uint64_t conns, rops, rbytes, wops, wbytes, by_ports;
	int fd;
};

struct grps {
	struct grp v[32];
	size_t n;
};

static int collect_group(void *ctx, const struct ipcperf_fd_group *g)
{
	struct grps *gs = ctx;
	struct grp *d = &gs->v[gs->n++];

	ck_assert_uint_le(gs->n, 32);
	*d = (struct grp){ .pid = g->pid, .peer = g->peer_pid, .role = g->role, .kind = g->kind,
			   .conns = g->conns, .rops = g->read.ops, .rbytes = g->read.bytes,
			   .wops = g->write.ops, .wbytes = g->write.bytes, .fd = g->fd,
			   .by_ports = g->by_ports };
	snprintf(d->endpoint, sizeof(d->endpoint), "%s", g->endpoint);
	snprintf(d->peer_comm, sizeof(d->peer_comm), "%s", g->peer_comm);
	snprintf(d->object, sizeof(d->object), "%s", g->object);
	return 0;
}

/* The groups of st, copied into @gs: @n of them. */
static void collect_groups(struct grps *gs, size_t n)
{
	ck_assert_int_eq(ipcperf_stats__for_each_fd_group(st, collect_group, gs), 0);
	ck_assert_uint_eq(gs->n, n);
}

/*
 * Group @g: @pid's, its role, endpoint and connections, the process at
 * their other end, the bytes they read and wrote.
 */
static void expect_group(const struct grp *g, pid_t pid, enum ipcperf_fd_group_role role,
			 const char *endpoint, uint64_t conns, pid_t peer, uint64_t rbytes,
			 uint64_t wbytes)
{
	ck_assert_int_eq(g->pid, pid);
	ck_assert_int_eq(g->role, role);
	ck_assert_str_eq(g->endpoint, endpoint);
	ck_assert_uint_eq(g->conns, conns);
	ck_assert_int_eq(g->peer, peer);
	ck_assert_uint_eq(g->rbytes, rbytes);
	ck_assert_uint_eq(g->wbytes, wbytes);
}

/*
 * One request on a connection: the client 200's fd @cfd writes 100 B, the
 * server 300's @sfd reads them and answers 200 B; both close.
 */
static void exchange_and_close(int cfd, int sfd)
{
	do_write(200, cfd, 100, 100, 1000);
	do_read(300, sfd, 100, 100, 1000);
	do_write(300, sfd, 200, 200, 1000);
	do_read(200, cfd, 200, 200, 1000);
	do_close(200, cfd, 0);
	do_close(300, sfd, 0);
}

/*
 * A server (300) with five loopback connections from a client (200), each
 * closed after 100 bytes in and 200 out, a pipe from the client to the
 * server, and a connection whose ports are both ephemeral: each side's
 * connections are one group (the server's under its local address, the
 * client's under the remote one), exact, naming the other process; the
 * pipe and the odd connection are rows of their own; the peer of one fd
 * is asked by its object (ipcperf_stats__fd_peer()), closed connections too.
 */
START_TEST(test_groups_and_peers)
{
	IPCPERF_OPTS(ipcperf_fd_identity, pipe_id, .object = "pipe:[77]", .kind = IPCPERF_FD_PIPE,
		     .ino = 77);
	struct ipcperf_fd_object q = { .object = "socket:[952]", .kind = IPCPERF_FD_TCP,
				       .detail = "127.0.0.1:5000 -> 127.0.0.1:41002", .ino = 952 };
	char obj[32], det[64], comm[16];
	struct grps gs = { .n = 0 };
	struct fd_rows *rs;

	do_exec(200, "/usr/bin/cli");
	do_exec(300, "/usr/bin/srv");
	for (int i = 0; i < 5; i++) {
		/* the kernel's word on each new fd, then its call (stands for socket()) */
		snprintf(det, sizeof(det), "127.0.0.1:%d -> 127.0.0.1:5000", 41000 + i);
		tcp_socket(200, 3 + i, 900 + i, det);
		snprintf(obj, sizeof(obj), "socket:[%d]", 950 + i);
		snprintf(det, sizeof(det), "127.0.0.1:5000 -> 127.0.0.1:%d", 41000 + i);
		fd_open(300, 10 + i, SYS_accept4, 10 + i, obj, IPCPERF_FD_TCP, 950 + i, det);
		do_accept4(300, 5, 10 + i);
		exchange_and_close(3 + i, 10 + i);
	}
	for (size_t i = 0; i < nr_sinks; i++) {
		ck_assert_int_eq(ipcperf_stats__set_fd_identity(sink[i], 200, 20, &pipe_id), 0);
		ck_assert_int_eq(ipcperf_stats__set_fd_identity(sink[i], 300, 21, &pipe_id), 0);
	}
	do_write(200, 20, 64, 64, 500);
	do_read(300, 21, 64, 64, 500);
	tcp_socket(200, 30, 990, "127.0.0.1:40000 -> 127.0.0.1:40001");
	do_write(200, 30, 1, 1, 100);

	collect_groups(&gs, 5);
	/* the client: its connections (lowest fd 3), the pipe, the odd connection */
	expect_group(&gs.v[0], 200, IPCPERF_GROUP_CLIENT, "127.0.0.1:5000", 5, 300, 1000, 500);
	ck_assert_int_eq(gs.v[0].fd, 3);
	ck_assert_str_eq(gs.v[0].peer_comm, "srv");
	ck_assert_str_eq(gs.v[0].object, "");
	ck_assert_uint_eq(gs.v[0].rops, 5);
	ck_assert_uint_eq(gs.v[0].wops, 5);
	ck_assert_int_eq(gs.v[1].role, IPCPERF_GROUP_ONE);
	ck_assert_str_eq(gs.v[1].endpoint, "pipe:[77]");
	ck_assert_str_eq(gs.v[1].object, "pipe:[77]");
	ck_assert_int_eq(gs.v[1].peer, 300);
	ck_assert_uint_eq(gs.v[1].wbytes, 64);
	ck_assert_int_eq(gs.v[2].role, IPCPERF_GROUP_ONE);
	ck_assert_int_eq(gs.v[2].fd, 30);
	ck_assert_int_eq(gs.v[2].peer, 0);
	ck_assert_uint_eq(gs.v[2].conns, 1);
	/* the server: its connections, the pipe */
	expect_group(&gs.v[3], 300, IPCPERF_GROUP_SERVED, "127.0.0.1:5000", 5, 200, 500, 1000);
	ck_assert_str_eq(gs.v[3].peer_comm, "cli");
	ck_assert_int_eq(gs.v[4].pid, 300);
	ck_assert_int_eq(gs.v[4].peer, 200);
	ck_assert_uint_eq(gs.v[4].rbytes, 64);

	/* Each fd row says its group (a caller that keeps rows of its own groups them so). */
	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 13);
	for (size_t i = 0; i < rs->n; i++) {
		const struct ipcperf_fd_row *r = &rs->v[i].r;
		bool conn = r->kind == IPCPERF_FD_TCP && r->fd != 30;

		ck_assert_int_eq(r->group_role, !conn ? IPCPERF_GROUP_ONE :
				 r->pid == 200 ? IPCPERF_GROUP_CLIENT : IPCPERF_GROUP_SERVED);
		ck_assert_str_eq(r->group_endpoint, conn ? "127.0.0.1:5000" : "");
	}
	free_fds(rs);

	ck_assert_int_eq(ipcperf_stats__fd_peer(st, 300, &q, true, comm, sizeof(comm)), 200);
	ck_assert_str_eq(comm, "cli");
	q = (struct ipcperf_fd_object){ .object = "pipe:[77]", .kind = IPCPERF_FD_PIPE, .ino = 77 };
	ck_assert_int_eq(ipcperf_stats__fd_peer(st, 200, &q, false, comm, sizeof(comm)), 300);
	ck_assert_str_eq(comm, "srv");
	q = (struct ipcperf_fd_object){ .object = "socket:[990]", .kind = IPCPERF_FD_TCP,
					.detail = "127.0.0.1:40000 -> 127.0.0.1:40001", .ino = 990 };
	ck_assert_int_eq(ipcperf_stats__fd_peer(st, 200, &q, false, comm, sizeof(comm)), 0);
	ck_assert_str_eq(comm, "");
	ck_assert_int_eq(ipcperf_stats__fd_peer(NULL, 200, &q, false, comm, sizeof(comm)), -EINVAL);
}
END_TEST

/*
 * connect(@fd) = 0 by @pid, and the kernel's word on what it is connected
 * to now (@detail), before its exit (@word_first) or after it.
 */
static void do_connect_tcp(pid_t pid, int fd, const char *object, uint64_t ino,
			   const char *detail, bool word_first)
{
	struct ipcperf_syscall ev = call(pid, pid, SYS_connect, "connect", IPCPERF_SC_FD_OTHER, fd,
					 0, 3000);
	struct ipcperf_fd_open w = {
		.time_ns = word_first ? ev.start_ns + 1 : ev.end_ns + 1, .pid = pid, .tid = pid,
		.fd = fd, .nr = SYS_connect, .update = true, .object = object,
		.kind = IPCPERF_FD_TCP, .ino = ino, .detail = detail, .capacity = -1,
	};

	ev.args[0] = (uint64_t)fd;
	ev.nr_args = 3;
	if (!word_first)
		feed_sc(&ev);
	for (size_t i = 0; i < nr_sinks; i++)
		ipcperf_stats__add_fd_open(sink[i], &w);
	if (word_first)
		feed_sc(&ev);
}

/*
 * A server (300) listening on an ephemeral port (45000, as bind to port 0
 * or gRPC's 50051 gives) with four connections from a client (200): both
 * ports of each are ephemeral, yet the accepted sockets are one group
 * under the listener's address and the connected ones one under the
 * remote address, whichever way the kernel's words and the exits come.
 * Two connections whose accept or connect was not seen fall back to the
 * ports: the server's (both ephemeral) stays a row, the client's (to port
 * 6000) groups as a client's; both say so (by_ports). Before, the four
 * connections were eight rows.
 */
START_TEST(test_groups_by_origin)
{
	char obj[32], det[64];
	struct grps gs = { .n = 0 };

	do_exec(200, "/usr/bin/cli");
	do_exec(300, "/usr/bin/srv");
	for (int i = 0; i < 4; i++) {
		snprintf(obj, sizeof(obj), "socket:[%d]", 900 + i);
		tcp_socket(200, 3 + i, 900 + i, "");
		snprintf(det, sizeof(det), "127.0.0.1:%d -> 127.0.0.1:45000", 51000 + i);
		do_connect_tcp(200, 3 + i, obj, 900 + i, det, i % 2);
		snprintf(obj, sizeof(obj), "socket:[%d]", 950 + i);
		snprintf(det, sizeof(det), "127.0.0.1:45000 -> 127.0.0.1:%d", 51000 + i);
		if (i % 2)
			fd_open(300, 10 + i, SYS_accept4, 10 + i, obj, IPCPERF_FD_TCP, 950 + i, det);
		do_accept4(300, 5, 10 + i);
		if (!(i % 2))
			fd_open(300, 10 + i, SYS_accept4, 10 + i, obj, IPCPERF_FD_TCP, 950 + i, det);
		exchange_and_close(3 + i, 10 + i);
	}
	/* fds first seen made by another call (openat stands for it): their origin unseen */
	tcp_socket(300, 20, 980, "127.0.0.1:45000 -> 127.0.0.1:52000");
	do_read(300, 20, 7, 7, 100);
	tcp_socket(200, 21, 981, "127.0.0.1:52001 -> 127.0.0.1:6000");
	do_write(200, 21, 9, 9, 100);

	collect_groups(&gs, 4);
	expect_group(&gs.v[0], 200, IPCPERF_GROUP_CLIENT, "127.0.0.1:45000", 4, 300, 800, 400);
	expect_group(&gs.v[1], 200, IPCPERF_GROUP_CLIENT, "127.0.0.1:6000", 1, 0, 0, 9);
	expect_group(&gs.v[2], 300, IPCPERF_GROUP_SERVED, "127.0.0.1:45000", 4, 200, 400, 800);
	ck_assert_int_eq(gs.v[3].role, IPCPERF_GROUP_ONE);
	ck_assert_int_eq(gs.v[3].fd, 20);
	ck_assert_uint_eq(gs.v[3].rbytes, 7);
	/* those made by an accept or a connect grouped so, the others (1 and 3) by their ports */
	for (size_t i = 0; i < gs.n; i++)
		ck_assert_uint_eq(gs.v[i].by_ports, i == 1 || i == 3);
}
END_TEST

/*
 * An accepted socket's copies are accepted sockets too: the child a server
 * forks with it (a pre-forking server) and a dup of it in that child group
 * as the server's connections, though both its ports are ephemeral.
 */
START_TEST(test_groups_origin_copied)
{
	struct grps gs = { .n = 0 };

	do_exec(300, "/usr/bin/srv");
	fd_open(300, 10, SYS_accept4, 10, "socket:[950]", IPCPERF_FD_TCP, 950,
		"127.0.0.1:45000 -> 127.0.0.1:51000");
	do_accept4(300, 5, 10);
	do_fork(300, 300, 301, "srv");
	do_dup(301, 10, 11);
	do_read(300, 10, 100, 100, 1000);
	do_read(301, 11, 50, 50, 1000);
	do_write(301, 10, 20, 20, 1000);

	collect_groups(&gs, 2);
	for (size_t i = 0; i < gs.n; i++) {
		ck_assert_int_eq(gs.v[i].pid, 300 + (int)i);
		ck_assert_int_eq(gs.v[i].role, IPCPERF_GROUP_SERVED);
		ck_assert_str_eq(gs.v[i].endpoint, "127.0.0.1:45000");
		ck_assert_uint_eq(gs.v[i].by_ports, 0);
	}
	ck_assert_uint_eq(gs.v[0].rbytes, 100);
	ck_assert_uint_eq(gs.v[1].conns, 2);
	ck_assert_uint_eq(gs.v[1].rbytes, 50);
	ck_assert_uint_eq(gs.v[1].wbytes, 20);
}
END_TEST

/* The kernel's word on a unix socket @ino: its peer (0: none, or not accepted yet). */
static void fd_open_unix(pid_t pid, int fd, int nr, int64_t ret, uint64_t ino, uint64_t peer_ino,
			 int type, bool update)
{
	char object[32], detail[48] = "";
	struct ipcperf_fd_open ev = {
		.time_ns = clk, .pid = pid, .tid = pid, .fd = fd, .nr = nr, .ret = ret,
		.update = update, .object = object, .kind = IPCPERF_FD_UNIX, .detail = detail,
		.ino = ino, .peer_ino = peer_ino, .sock_type = type, .capacity = -1,
	};

	snprintf(object, sizeof(object), "socket:[%llu]", (unsigned long long)ino);
	if (peer_ino)
		snprintf(detail, sizeof(detail), "peer socket:[%llu]", (unsigned long long)peer_ino);
	for (size_t i = 0; i < nr_sinks; i++)
		ipcperf_stats__add_fd_open(sink[i], &ev);
}

/*
 * A unix stream client's peer is an embryo until accept: the kernel names
 * it at the accept, as the accepted socket's peer. That completes the
 * client, whether its connect's word came before or after the accept's; a
 * datagram socket's peer is not made to point back.
 */
START_TEST(test_kernel_unix_pending_peer)
{
	const struct ipcperf_fd_row *r;
	struct fd_rows *rs;

	/* connect's word first, then the accept's */
	do_openat(200, 3);	/* stands for socket() */
	fd_open_unix(200, 3, SYS_openat, 3, 800, 0, SOCK_STREAM, false);
	fd_open_unix(200, 3, SYS_connect, 0, 800, 0, SOCK_STREAM, true);
	do_accept4(300, 5, 6);
	fd_open_unix(300, 6, SYS_accept4, 6, 801, 800, SOCK_STREAM, false);
	do_write(200, 3, 5, 5, 100);
	do_read(300, 6, 5, 5, 100);
	do_write(300, 6, 7, 7, 100);
	do_read(200, 3, 7, 7, 100);
	/* the accept's word first, then connect's (it still says pending) */
	do_openat(200, 4);
	fd_open_unix(200, 4, SYS_openat, 4, 810, 0, SOCK_SEQPACKET, false);
	do_accept4(300, 5, 7);
	fd_open_unix(300, 7, SYS_accept4, 7, 811, 810, SOCK_SEQPACKET, false);
	fd_open_unix(200, 4, SYS_connect, 0, 810, 0, SOCK_SEQPACKET, true);
	do_write(200, 4, 9, 9, 100);
	do_read(300, 7, 9, 9, 100);
	/* datagrams: connect() points one way only */
	do_openat(200, 8);
	fd_open_unix(200, 8, SYS_openat, 8, 820, 0, SOCK_DGRAM, false);
	do_openat(200, 9);
	fd_open_unix(200, 9, SYS_openat, 9, 821, 820, SOCK_DGRAM, false);
	do_write(200, 9, 3, 3, 100);
	do_read(200, 8, 3, 3, 100);

	rs = fds_of(st);
	r = row_of(rs, 200, 3, "socket:[800]");
	ck_assert_uint_eq(r->peer_ino, 801);
	ck_assert_str_eq(r->detail, "peer socket:[801]");
	r = row_of(rs, 300, 6, "socket:[801]");
	ck_assert_uint_eq(r->peer_ino, 800);
	r = row_of(rs, 200, 4, "socket:[810]");
	ck_assert_uint_eq(r->peer_ino, 811);
	ck_assert_str_eq(r->detail, "peer socket:[811]");
	r = row_of(rs, 200, 8, "socket:[820]");
	ck_assert_uint_eq(r->peer_ino, 0);
	ck_assert_str_eq(r->detail, "");
	free_fds(rs);
}
END_TEST

START_TEST(test_unknown_incarnations_not_merged)
{
	struct fd_rows *rs;
	uint64_t a, b;

	do_write(100, 5, 1, 1, 100);
	do_close(100, 5, 0);
	do_write(100, 5, 2, 2, 200);
	do_write(100, 5, 2, 2, 200);

	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 2);
	for (size_t i = 0; i < 2; i++) {
		ck_assert_int_eq(rs->v[i].r.pid, 100);
		ck_assert_int_eq(rs->v[i].r.fd, 5);
		ck_assert_str_eq(rs->v[i].r.object, "unknown");
		ck_assert_int_eq(rs->v[i].r.kind, IPCPERF_FD_UNKNOWN);
	}
	a = rs->v[0].r.write.bytes;
	b = rs->v[1].r.write.bytes;
	ck_assert_msg((a == 1 && b == 4) || (a == 4 && b == 1), "bytes %llu and %llu",
		      (unsigned long long)a, (unsigned long long)b);
	ck_assert_uint_eq(rs->v[0].r.write.ops + rs->v[1].r.write.ops, 3);
	free_fds(rs);
}
END_TEST

START_TEST(test_known_incarnations_merged)
{
	struct ipcperf_syscall first, last;
	const struct ipcperf_fd_row *r;
	struct fd_rows *rs;

	set_obj(100, 4, "socket:[900]", IPCPERF_FD_UNIX);
	first = do_write(100, 4, 10, 10, 100);
	do_read(100, 4, 10, 3, 50);
	do_close(100, 4, 0);
	do_openat(100, 4);			/* held without I/O: a row of its own */
	set_obj(100, 4, "socket:[900]", IPCPERF_FD_UNIX);
	last = do_write(100, 4, 20, 20, 300);

	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 2);
	ck_no_io(row_of(rs, 100, 4, "unknown"));
	r = row_of(rs, 100, 4, "socket:[900]");
	ck_assert_int_eq(r->kind, IPCPERF_FD_UNIX);
	ck_assert_uint_eq(r->ino, 900);
	ck_io(r->write, 2, 30, 0, 400);
	ck_lat(r->write.lat_ns, 100, 200, 300);
	ck_io(r->read, 1, 3, 0, 50);
	ck_lat(r->read.lat_ns, 50, 50, 50);
	ck_assert_uint_eq(r->first_ns, first.start_ns);
	ck_assert_uint_eq(r->last_ns, last.end_ns);
	free_fds(rs);
}
END_TEST

START_TEST(test_dup_family_copies_identity)
{
	const struct ipcperf_fd_row *r;
	struct fd_rows *rs;

	set_obj(100, 3, "pipe:[77]", IPCPERF_FD_PIPE);
	set_obj(100, 9, "/dev/null", IPCPERF_FD_FILE);
	set_obj(100, 40, "socket:[1]", IPCPERF_FD_TCP);
	do_dup(100, 3, 4);
	do_fcntl(100, 3, F_DUPFD, 20, 20);
	do_dup3(100, 3, 30, 0);
	do_dup2(100, 3, 3);			/* same fd: nothing changes */
	do_dup2_ret(100, 3, 9, -EBADF);		/* failed: fd 9 keeps its object */
	do_accept4(100, 40, 41);		/* accept makes a new object, not a copy */
	do_write(100, 3, 1, 1, 100);
	do_write(100, 4, 2, 2, 100);
	do_write(100, 20, 3, 3, 100);
	do_write(100, 30, 4, 4, 100);
	do_write(100, 9, 5, 5, 100);
	do_write(100, 41, 6, 6, 100);

	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 7);
	/* the listening socket accept4 was called on: held, no read or write */
	r = row_of(rs, 100, 40, "socket:[1]");
	ck_assert_int_eq(r->kind, IPCPERF_FD_TCP);
	ck_no_io(r);
	ck_assert_uint_eq(row_of(rs, 100, 3, "pipe:[77]")->write.bytes, 1);
	ck_assert_uint_eq(row_of(rs, 100, 4, "pipe:[77]")->write.bytes, 2);
	ck_assert_uint_eq(row_of(rs, 100, 20, "pipe:[77]")->write.bytes, 3);
	ck_assert_uint_eq(row_of(rs, 100, 30, "pipe:[77]")->write.bytes, 4);
	for (int fd = 3; fd <= 30; fd++) {
		if (fd != 3 && fd != 4 && fd != 20 && fd != 30)
			continue;
		r = row_of(rs, 100, fd, "pipe:[77]");
		ck_assert_int_eq(r->kind, IPCPERF_FD_PIPE);
		ck_assert_uint_eq(r->ino, 77);
	}
	r = row_of(rs, 100, 9, "/dev/null");
	ck_assert_int_eq(r->kind, IPCPERF_FD_FILE);
	ck_assert_uint_eq(r->write.bytes, 5);
	r = row_of(rs, 100, 41, "unknown");
	ck_assert_int_eq(r->kind, IPCPERF_FD_UNKNOWN);
	ck_assert_uint_eq(r->write.bytes, 6);
	free_fds(rs);
}
END_TEST

START_TEST(test_rows_ordered_by_pid_then_fd)
{
	static const struct { pid_t pid; int fd; } want[] = {
		{ 7, 1 }, { 100, 2 }, { 100, 7 }, { 100, 12 }, { 200, 2 },
		{ 300, 0 }, { 300, 1 }, { 1000, 3 },
	};
	struct fd_rows *rs;

	do_write(300, 1, 1, 1, 10);
	do_write(100, 7, 1, 1, 10);
	do_write(1000, 3, 1, 1, 10);
	do_write(200, 2, 1, 1, 10);
	do_write(100, 12, 1, 1, 10);
	do_read(100, 2, 1, 1, 10);
	do_write(300, 0, 1, 1, 10);
	do_write(7, 1, 1, 1, 10);
	do_write(100, 7, 1, 1, 10);

	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < rs->n; i++) {
		ck_assert_int_eq(rs->v[i].r.pid, want[i].pid);
		ck_assert_int_eq(rs->v[i].r.fd, want[i].fd);
	}
	free_fds(rs);
}
END_TEST

/*
 * fds held without I/O are rows with zero calls (ipcperf-stat(1): "Descriptors
 * without I/O are included"): 5 opened, 6 and 7 copies of it, 8 named. pid
 * 200 never did anything of its own: no rows.
 */
START_TEST(test_rows_without_io)
{
	struct fd_rows *rs;
	struct sc_rows *sr;

	do_openat(100, 5);
	do_dup2(100, 5, 6);
	do_dup(100, 5, 7);
	do_close(100, 5, 0);
	do_close(100, 6, 0);
	do_close(100, 9, -EBADF);	/* never open */
	set_obj(100, 8, "pipe:[1]", IPCPERF_FD_PIPE);
	set_obj(200, 8, "pipe:[1]", IPCPERF_FD_PIPE);

	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 4);
	for (size_t i = 0; i < rs->n; i++) {
		ck_assert_int_eq(rs->v[i].r.pid, 100);
		ck_assert_int_eq(rs->v[i].r.fd, 5 + (int)i);
		ck_no_io(&rs->v[i].r);
	}
	ck_assert_str_eq(rs->v[0].r.object, "unknown");
	ck_assert_str_eq(rs->v[1].r.object, "unknown");
	ck_assert_str_eq(rs->v[2].r.object, "unknown");
	ck_assert_str_eq(rs->v[3].r.object, "pipe:[1]");
	ck_assert_int_eq(rs->v[3].r.kind, IPCPERF_FD_PIPE);
	free_fds(rs);
	/* the calls themselves are still counted */
	sr = syscalls_of(st);
	ck_assert_uint_eq(sr->n, 4);
	free(sr);
}
END_TEST

START_TEST(test_close_ebadf_keeps_eintr_ends)
{
	const struct ipcperf_fd_row *r;
	struct fd_rows *rs;

	set_obj(100, 3, "pipe:[77]", IPCPERF_FD_PIPE);
	do_close(100, 3, -EBADF);	/* was not open: nothing ends */
	do_write(100, 3, 5, 5, 100);
	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 1);
	r = row_of(rs, 100, 3, "pipe:[77]");
	ck_io(r->write, 1, 5, 0, 100);
	free_fds(rs);

	do_close(100, 3, -EINTR);	/* Linux releases the fd even then */
	do_write(100, 3, 6, 6, 100);
	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 2);
	r = row_of(rs, 100, 3, "pipe:[77]");
	ck_io(r->write, 1, 5, 0, 100);
	r = row_of(rs, 100, 3, "unknown");
	ck_io(r->write, 1, 6, 0, 100);
	free_fds(rs);

	/* the failed closes are errors of the close syscall row */
	{
		struct sc_rows *sr = syscalls_of(st);

		ck_assert_uint_eq(sr->n, 2);
		ck_assert_str_eq(sr->v[0].r.name, "close");
		ck_assert_uint_eq(sr->v[0].r.calls, 2);
		ck_assert_uint_eq(sr->v[0].r.errors, 2);
		free(sr);
	}
}
END_TEST

START_TEST(test_set_fd_identity)
{
	IPCPERF_OPTS(ipcperf_fd_identity, a, .object = "socket:[41]", .kind = IPCPERF_FD_UNIX,
		     .peer_ino = 42, .sock_type = 1, .capacity = 212992);
	IPCPERF_OPTS(ipcperf_fd_identity, b, .object = "/run/x.sock", .kind = IPCPERF_FD_UNIX,
		     .ino = 43);
	const struct ipcperf_fd_row *r;
	struct fd_rows *rs;
	struct {
		struct ipcperf_fd_identity id;
		char tail[8];
	} big;

	ck_assert_int_eq(ipcperf_stats__set_fd_identity(st, 100, 3, &a), 0);
	ck_assert_int_eq(ipcperf_stats__set_fd_identity(st, 100, 4, &b), 0);
	do_write(100, 3, 10, 10, 100);
	do_write(100, 4, 10, 10, 100);
	do_dup2(100, 3, 9);
	do_write(100, 9, 10, 10, 100);

	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 3);
	r = row_of(rs, 100, 3, "socket:[41]");
	ck_assert_int_eq(r->kind, IPCPERF_FD_UNIX);
	ck_assert_uint_eq(r->ino, 41);		/* parsed from the object */
	ck_assert_uint_eq(r->peer_ino, 42);
	r = row_of(rs, 100, 4, "/run/x.sock");
	ck_assert_uint_eq(r->ino, 43);		/* given */
	ck_assert_uint_eq(r->peer_ino, 0);
	r = row_of(rs, 100, 9, "socket:[41]");	/* the copy has it all */
	ck_assert_uint_eq(r->ino, 41);
	ck_assert_uint_eq(r->peer_ino, 42);
	free_fds(rs);

	ck_assert_int_eq(ipcperf_stats__set_fd_identity(NULL, 100, 3, &a), -EINVAL);
	ck_assert_int_eq(ipcperf_stats__set_fd_identity(st, 100, 3, NULL), -EINVAL);
	ck_assert_int_eq(ipcperf_stats__set_fd_identity(st, 0, 3, &a), -EINVAL);
	ck_assert_int_eq(ipcperf_stats__set_fd_identity(st, 100, -1, &a), -EINVAL);
	a.object = NULL;
	ck_assert_int_eq(ipcperf_stats__set_fd_identity(st, 100, 3, &a), -EINVAL);
	a.object = "x";
	a.sz = 1;
	ck_assert_int_eq(ipcperf_stats__set_fd_identity(st, 100, 3, &a), -EINVAL);
	memset(&big, 0, sizeof(big));
	big.id.sz = sizeof(big);
	big.id.object = "pipe:[5]";
	ck_assert_int_eq(ipcperf_stats__set_fd_identity(st, 100, 3, &big.id), 0);
	big.tail[0] = 1;
	ck_assert_int_eq(ipcperf_stats__set_fd_identity(st, 100, 3, &big.id), -EINVAL);
}
END_TEST

/* ------------------------------------------------------------------ fork, exec */

START_TEST(test_fork_copies_fds)
{
	const struct ipcperf_fd_row *r;
	struct proc_rows *pr;
	struct fd_rows *rs;

	do_switch(100, 100, 0, false, "parent");
	set_obj(100, 3, "pipe:[77]", IPCPERF_FD_PIPE);
	do_dup2(100, 3, 10);
	do_fork(100, 100, 200, "child");
	/* after the fork: not in the child */
	set_obj(100, 5, "pipe:[88]", IPCPERF_FD_PIPE);
	do_close(100, 3, 0);		/* the parent's close does not close the child's */
	do_write(200, 10, 11, 11, 100);
	do_write(200, 3, 12, 12, 100);
	do_write(200, 5, 13, 13, 100);
	do_write(100, 10, 14, 14, 100);

	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 6);
	/* the parent held 3 (closed) and 5 (named after the fork) without I/O */
	ck_no_io(row_of(rs, 100, 3, "pipe:[77]"));
	ck_no_io(row_of(rs, 100, 5, "pipe:[88]"));
	r = row_of(rs, 100, 10, "pipe:[77]");
	ck_assert_uint_eq(r->write.bytes, 14);
	r = row_of(rs, 200, 3, "pipe:[77]");
	ck_assert_int_eq(r->kind, IPCPERF_FD_PIPE);
	ck_assert_uint_eq(r->ino, 77);
	ck_assert_uint_eq(r->write.bytes, 12);
	r = row_of(rs, 200, 10, "pipe:[77]");
	ck_assert_int_eq(r->kind, IPCPERF_FD_PIPE);
	ck_assert_uint_eq(r->ino, 77);
	ck_io(r->write, 1, 11, 0, 100);
	r = row_of(rs, 200, 5, "unknown");
	ck_assert_uint_eq(r->write.bytes, 13);
	/* order: pid 100 first (3, 5, 10), then 200 */
	ck_assert_int_eq(rs->v[0].r.pid, 100);
	ck_assert_int_eq(rs->v[0].r.fd, 3);
	ck_assert_int_eq(rs->v[1].r.fd, 5);
	ck_assert_int_eq(rs->v[2].r.pid, 100);
	ck_assert_int_eq(rs->v[2].r.fd, 10);
	ck_assert_int_eq(rs->v[3].r.pid, 200);
	ck_assert_int_eq(rs->v[3].r.fd, 3);
	ck_assert_int_eq(rs->v[4].r.fd, 5);
	ck_assert_int_eq(rs->v[5].r.fd, 10);
	free_fds(rs);

	pr = procs_of(st);
	ck_assert_uint_eq(pr->n, 2);
	ck_assert_int_eq(pr->v[0].r.pid, 100);
	ck_assert_str_eq(pr->v[0].r.comm, "parent");
	ck_assert_int_eq(pr->v[1].r.pid, 200);
	ck_assert_str_eq(pr->v[1].r.comm, "child");
	ck_assert_uint_eq(pr->v[1].r.threads, 1);
	ck_assert_uint_eq(pr->v[1].r.syscalls, 3);
	free(pr);
}
END_TEST

START_TEST(test_thread_fork_no_process_row)
{
	const struct ipcperf_proc_row *p;
	struct proc_rows *pr;
	struct fd_rows *rs;

	set_obj(100, 3, "pipe:[77]", IPCPERF_FD_PIPE);
	do_switch(100, 100, 0, true, "srv");
	do_fork(100, 100, 200, "srv");		/* a thread: its events keep pid 100 */
	do_io(100, 200, SYS_write, "write", IPCPERF_SC_WRITE, 3, 8, 8, 100);
	do_switch(100, 200, 1, false, "srv");
	do_wakeup(100, 100, 200);

	pr = procs_of(st);
	ck_assert_uint_eq(pr->n, 1);
	p = proc_of(pr, 100);
	ck_assert_uint_eq(p->threads, 2);
	ck_assert_uint_eq(p->syscalls, 1);
	ck_assert_uint_eq(p->voluntary_cs, 1);
	ck_assert_uint_eq(p->involuntary_cs, 1);
	ck_assert_uint_eq(p->wakeups, 1);
	ck_assert_uint_eq(p->migrations, 0);	/* two threads, one switch each */
	free(pr);

	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 1);
	ck_assert_uint_eq(row_of(rs, 100, 3, "pipe:[77]")->write.bytes, 8);
	free_fds(rs);
}
END_TEST

START_TEST(test_exec_ends_incarnations)
{
	struct proc_rows *pr;
	struct fd_rows *rs;

	do_switch(100, 100, 0, false, "sh");
	set_obj(100, 3, "pipe:[77]", IPCPERF_FD_PIPE);
	set_obj(100, 4, "socket:[5]", IPCPERF_FD_UNIX);
	set_obj(200, 3, "pipe:[9]", IPCPERF_FD_PIPE);
	do_write(100, 3, 1, 1, 100);
	do_exec(100, "/usr/bin/cat");
	do_write(100, 3, 2, 2, 100);
	do_write(100, 4, 3, 3, 100);
	do_write(200, 3, 4, 4, 100);	/* another process: untouched */

	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 5);
	/* 4 was held until the exec without I/O */
	ck_no_io(row_of(rs, 100, 4, "socket:[5]"));
	ck_assert_uint_eq(count_rows(rs, 100, 3), 2);
	ck_assert_uint_eq(row_of(rs, 100, 3, "pipe:[77]")->write.bytes, 1);
	ck_assert_uint_eq(row_of(rs, 100, 3, "unknown")->write.bytes, 2);
	ck_assert_uint_eq(row_of(rs, 100, 4, "unknown")->write.bytes, 3);
	ck_assert_uint_eq(row_of(rs, 200, 3, "pipe:[9]")->write.bytes, 4);
	free_fds(rs);

	pr = procs_of(st);
	ck_assert_str_eq(proc_of(pr, 100)->comm, "cat");
	free(pr);
}
END_TEST

START_TEST(test_exec_unknown_not_merged_with_unknown)
{
	struct fd_rows *rs;

	do_write(100, 3, 1, 1, 100);	/* unknown before exec */
	do_exec(100, "/bin/true");
	do_write(100, 3, 2, 2, 100);	/* unknown after exec: another incarnation */

	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 2);
	ck_assert_uint_eq(count_rows(rs, 100, 3), 2);
	ck_assert_uint_eq(rs->v[0].r.write.bytes + rs->v[1].r.write.bytes, 3);
	ck_assert_uint_eq(rs->v[0].r.write.ops, 1);
	ck_assert_uint_eq(rs->v[1].r.write.ops, 1);
	free_fds(rs);
}
END_TEST

/*
 * pid reuse (doc/accuracy.md rule 3): a pid the stats already know, from an exited
 * process, comes back as the child of a new fork. The new child starts with
 * a copy of its parent's fds, not with what the old process had open.
 */
START_TEST(test_fork_reused_pid_of_exited_process)
{
	struct fd_rows *rs;

	set_obj(100, 3, "pipe:[77]", IPCPERF_FD_PIPE);
	do_fork(100, 100, 200, "first");
	do_write(200, 3, 1, 1, 100);
	do_exit(200, 200, "first");

	do_close(100, 3, 0);
	set_obj(100, 3, "pipe:[88]", IPCPERF_FD_PIPE);
	do_fork(100, 100, 200, "second");	/* pid 200 again */
	do_write(200, 3, 2, 2, 100);

	rs = fds_of(st);
	/* the second child's 2 bytes must not land in the first child's pipe */
	ck_assert_uint_eq(row_of(rs, 200, 3, "pipe:[77]")->write.bytes, 1);
	ck_assert_uint_eq(row_of(rs, 200, 3, "pipe:[88]")->write.bytes, 2);
	/* the parent held both pipes on 3 without I/O */
	ck_no_io(row_of(rs, 100, 3, "pipe:[77]"));
	ck_no_io(row_of(rs, 100, 3, "pipe:[88]"));
	ck_assert_uint_eq(rs->n, 4);
	free_fds(rs);
}
END_TEST

/* Same with a tid that was a thread of 100 (a thread fork) and is reused as a process. */
START_TEST(test_fork_reused_tid_of_exited_thread)
{
	struct fd_rows *rs;

	set_obj(100, 3, "pipe:[77]", IPCPERF_FD_PIPE);
	do_fork(100, 100, 201, "worker");	/* a thread of 100 */
	do_io(100, 201, SYS_write, "write", IPCPERF_SC_WRITE, 3, 1, 1, 100);
	do_exit(100, 201, "worker");

	do_close(100, 3, 0);
	set_obj(100, 3, "pipe:[88]", IPCPERF_FD_PIPE);
	do_fork(100, 100, 201, "child");	/* now a process */
	do_write(201, 3, 2, 2, 100);

	rs = fds_of(st);
	ck_assert_uint_eq(row_of(rs, 100, 3, "pipe:[77]")->write.bytes, 1);
	ck_assert_uint_eq(row_of(rs, 201, 3, "pipe:[88]")->write.bytes, 2);
	/*
	 * The parent held pipe:[88] on 3 without I/O; the copy the thread's
	 * clone made under 201 was never 201's as a process: no row.
	 */
	ck_no_io(row_of(rs, 100, 3, "pipe:[88]"));
	ck_assert_uint_eq(count_rows(rs, 201, 3), 1);
	ck_assert_uint_eq(rs->n, 3);
	free_fds(rs);
}
END_TEST

/*
 * exec closes only the close-on-exec fds. Without /proc, what survives is
 * what is known not to be close-on-exec: copies made by dup, dup2,
 * dup3 without O_CLOEXEC, fcntl(F_DUPFD), or an fd cleared with F_SETFD.
 */
START_TEST(test_exec_keeps_fds_without_cloexec)
{
	struct fd_rows *rs;

	set_obj(100, 3, "pipe:[77]", IPCPERF_FD_PIPE);	/* close-on-exec not known */
	do_dup2(100, 3, 1);				/* cleared */
	do_dup3(100, 3, 4, O_CLOEXEC);			/* set */
	do_fcntl(100, 3, F_DUPFD, 10, 10);		/* cleared */
	do_fcntl(100, 3, F_DUPFD_CLOEXEC, 20, 20);	/* set */
	do_dup(100, 3, 5);				/* cleared ... */
	do_fcntl(100, 5, F_SETFD, FD_CLOEXEC, 0);	/* ... then set */
	set_obj(100, 6, "/dev/null", IPCPERF_FD_FILE);
	do_fcntl(100, 6, F_SETFD, 0, 0);		/* known cleared */
	do_write(100, 1, 1, 1, 100);
	do_exec(100, "/bin/cat");
	do_write(100, 1, 2, 2, 100);
	do_write(100, 3, 3, 3, 100);
	do_write(100, 4, 4, 4, 100);
	do_write(100, 5, 5, 5, 100);
	do_write(100, 6, 6, 6, 100);
	do_write(100, 10, 7, 7, 100);
	do_write(100, 20, 8, 8, 100);

	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 11);
	/* held until the exec closed them, without I/O */
	ck_no_io(row_of(rs, 100, 3, "pipe:[77]"));
	ck_no_io(row_of(rs, 100, 4, "pipe:[77]"));
	ck_no_io(row_of(rs, 100, 5, "pipe:[77]"));
	ck_no_io(row_of(rs, 100, 20, "pipe:[77]"));
	/* the same incarnation before and after exec: one row */
	ck_io(row_of(rs, 100, 1, "pipe:[77]")->write, 2, 3, 0, 200);
	ck_assert_uint_eq(row_of(rs, 100, 3, "unknown")->write.bytes, 3);
	ck_assert_uint_eq(row_of(rs, 100, 4, "unknown")->write.bytes, 4);
	ck_assert_uint_eq(row_of(rs, 100, 5, "unknown")->write.bytes, 5);
	ck_assert_uint_eq(row_of(rs, 100, 6, "/dev/null")->write.bytes, 6);
	ck_assert_uint_eq(row_of(rs, 100, 10, "pipe:[77]")->write.bytes, 7);
	ck_assert_uint_eq(row_of(rs, 100, 20, "unknown")->write.bytes, 8);
	free_fds(rs);
}
END_TEST

/* A shell's "cmd | ..." child: fork, dup2(pipe, 1), close(pipe), exec. */
START_TEST(test_fork_dup2_exec_redirect)
{
	struct proc_rows *pr;
	struct fd_rows *rs;

	do_switch(100, 100, 0, false, "sh");
	set_obj(100, 3, "pipe:[77]", IPCPERF_FD_PIPE);
	do_dup2(100, 3, 5);			/* not close-on-exec, in the child too */
	do_dup3(100, 3, 4, O_CLOEXEC);		/* close-on-exec, in the child too */
	do_fork(100, 100, 200, "sh");
	do_dup2(200, 3, 1);
	do_close(200, 3, 0);
	do_exec(200, "/bin/echo");
	do_write(200, 1, 6, 6, 100);
	do_write(200, 5, 7, 7, 100);
	do_write(200, 4, 8, 8, 100);

	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 8);
	/* held without I/O: the parent's 3, 4, 5; the child's 3 (closed) and 4 (until exec) */
	ck_no_io(row_of(rs, 100, 3, "pipe:[77]"));
	ck_no_io(row_of(rs, 100, 4, "pipe:[77]"));
	ck_no_io(row_of(rs, 100, 5, "pipe:[77]"));
	ck_no_io(row_of(rs, 200, 3, "pipe:[77]"));
	ck_no_io(row_of(rs, 200, 4, "pipe:[77]"));
	ck_assert_uint_eq(row_of(rs, 200, 1, "pipe:[77]")->write.bytes, 6);
	ck_assert_uint_eq(row_of(rs, 200, 1, "pipe:[77]")->ino, 77);
	ck_assert_uint_eq(row_of(rs, 200, 5, "pipe:[77]")->write.bytes, 7);
	ck_assert_uint_eq(row_of(rs, 200, 4, "unknown")->write.bytes, 8);
	free_fds(rs);

	pr = procs_of(st);
	ck_assert_uint_eq(pr->n, 2);
	ck_assert_str_eq(proc_of(pr, 200)->comm, "echo");
	free(pr);
}
END_TEST

/* ------------------------------------------------------------------ processes */

START_TEST(test_context_switches_and_migrations)
{
	const struct ipcperf_proc_row *p;
	struct proc_rows *pr;

	/* tid 100 switches out on cpus 0,0,1,0 (2 migrations); tid 101 on 3,3 (none). */
	do_switch(100, 100, 0, true, "app");
	do_switch(100, 101, 3, true, "app");
	do_switch(100, 100, 0, false, "app");
	do_switch(100, 101, 3, false, "app");
	do_switch(100, 100, 1, true, "app");
	do_switch(100, 100, 0, false, "app");
	do_switch(200, 200, 2, false, "other");

	pr = procs_of(st);
	ck_assert_uint_eq(pr->n, 2);
	p = proc_of(pr, 100);
	ck_assert_uint_eq(p->involuntary_cs, 3);
	ck_assert_uint_eq(p->voluntary_cs, 3);
	ck_assert_uint_eq(p->migrations, 2);
	ck_assert_uint_eq(p->threads, 2);
	ck_assert_uint_eq(p->syscalls, 0);
	ck_assert_uint_eq(p->wakeups, 0);
	ck_assert_str_eq(p->comm, "app");
	ck_assert(!p->exited);
	p = proc_of(pr, 200);
	ck_assert_uint_eq(p->involuntary_cs, 0);
	ck_assert_uint_eq(p->voluntary_cs, 1);
	ck_assert_uint_eq(p->migrations, 0);
	ck_assert_uint_eq(p->threads, 1);
	ck_assert_str_eq(p->comm, "other");
	free(pr);
}
END_TEST

START_TEST(test_wakeups_only_known_threads)
{
	struct proc_rows *pr;

	do_switch(100, 100, 0, false, "a");
	do_io(100, 101, SYS_read, "read", IPCPERF_SC_READ, 0, 1, 1, 10);
	do_wakeup(0, 0, 555);		/* not seen yet: not counted anywhere */
	do_wakeup(0, 0, 555);
	do_wakeup(100, 101, 100);
	do_wakeup(0, 0, 100);		/* woken from an irq */
	do_wakeup(100, 100, 101);
	do_switch(500, 555, 1, false, "b");
	do_wakeup(100, 100, 555);
	do_wakeup(100, 100, 600);	/* before 600 was seen: not counted later either */
	do_wakeup(100, 100, 600);
	do_switch(600, 600, 0, false, "c");

	pr = procs_of(st);
	ck_assert_uint_eq(pr->n, 3);
	ck_assert_int_eq(pr->v[2].r.pid, 600);
	ck_assert_uint_eq(pr->v[2].r.wakeups, 0);
	ck_assert_int_eq(pr->v[0].r.pid, 100);
	ck_assert_uint_eq(pr->v[0].r.wakeups, 3);
	ck_assert_uint_eq(pr->v[0].r.threads, 2);
	ck_assert_int_eq(pr->v[1].r.pid, 500);
	ck_assert_uint_eq(pr->v[1].r.wakeups, 1);
	ck_assert_uint_eq(pr->v[1].r.threads, 1);
	free(pr);
}
END_TEST

START_TEST(test_comm_sources)
{
	struct proc_rows *pr;

	do_switch(100, 100, 0, false, "sh");
	do_fork(100, 100, 300, "kid");
	do_write(300, 1, 1, 1, 10);		/* no comm in a syscall: the fork's stays */
	do_fork(100, 100, 200, "sh");
	do_exec(200, "/usr/bin/python3");
	do_switch(200, 200, 0, false, "python3");
	do_fork(100, 100, 400, "sh");
	do_exec(400, "/opt/averyveryverylongname");
	do_switch(400, 400, 0, false, "averyveryverylo");
	do_exec(100, "/bin/ls");
	do_switch(100, 100, 0, false, "ls");

	pr = procs_of(st);
	ck_assert_uint_eq(pr->n, 4);
	ck_assert_str_eq(proc_of(pr, 100)->comm, "ls");
	ck_assert_str_eq(proc_of(pr, 200)->comm, "python3");
	ck_assert_str_eq(proc_of(pr, 300)->comm, "kid");
	/* the kernel keeps 15 characters of the file name */
	ck_assert_str_eq(proc_of(pr, 400)->comm, "averyveryverylo");
	free(pr);
}
END_TEST

START_TEST(test_procs_listed_only_with_own_events)
{
	static const pid_t want[] = { 20, 100, 300, 1000 };
	struct proc_rows *pr;

	do_switch(300, 300, 0, false, "c");
	do_write(100, 1, 1, 1, 10);
	do_switch(1000, 1001, 0, true, "d");
	do_read(20, 0, 1, 1, 10);
	set_obj(700, 3, "pipe:[1]", IPCPERF_FD_PIPE);	/* no event of its own */
	do_fork(100, 100, 800, "e");			/* created, never ran */
	do_wakeup(100, 100, 900);			/* never seen */
	do_exit(100, 100, "a");

	pr = procs_of(st);
	ck_assert_uint_eq(pr->n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < pr->n; i++)
		ck_assert_int_eq(pr->v[i].r.pid, want[i]);
	ck_assert(proc_of(pr, 100)->exited);
	ck_assert(!proc_of(pr, 300)->exited);
	free(pr);
}
END_TEST

START_TEST(test_threads_distinct)
{
	struct proc_rows *pr;

	do_io(100, 100, SYS_write, "write", IPCPERF_SC_WRITE, 1, 1, 1, 10);
	do_io(100, 101, SYS_write, "write", IPCPERF_SC_WRITE, 1, 1, 1, 10);
	do_io(100, 101, SYS_write, "write", IPCPERF_SC_WRITE, 1, 1, 1, 10);
	do_io(100, 102, SYS_read, "read", IPCPERF_SC_READ, 0, 1, 1, 10);
	do_switch(100, 102, 0, false, "t");
	do_switch(100, 103, 0, false, "t");
	do_switch(100, 100, 0, false, "t");
	do_io(200, 200, SYS_write, "write", IPCPERF_SC_WRITE, 1, 1, 1, 10);

	pr = procs_of(st);
	ck_assert_uint_eq(pr->n, 2);
	ck_assert_uint_eq(proc_of(pr, 100)->threads, 4);
	ck_assert_uint_eq(proc_of(pr, 100)->syscalls, 4);
	ck_assert_uint_eq(proc_of(pr, 200)->threads, 1);
	ck_assert_uint_eq(proc_of(pr, 200)->syscalls, 1);
	free(pr);
}
END_TEST

/* ------------------------------------------------------------------ syscall rows */

START_TEST(test_syscall_rows)
{
	static const struct {
		pid_t pid;
		const char *name;
		uint64_t calls, errors, time_ns, min, max;
	} want[] = {
		{ 50, "writev", 1, 0, 700, 700, 700 },
		{ 100, "close", 2, 1, 600, 300, 300 },
		{ 100, DUP2_NAME, 1, 0, 200, 200, 200 },
		{ 100, "openat", 1, 0, 1500, 1500, 1500 },
		{ 100, "read", 2, 0, 1100, 100, 1000 },
		{ 100, "write", 3, 1, 3500, 500, 2000 },
	};
	struct sc_rows *sr;

	do_write(100, 3, 10, 10, 1000);
	do_read(100, 3, 10, 10, 100);
	do_close(100, 3, 0);
	do_write(100, 4, 10, -32, 500);
	do_io(50, 51, SYS_writev, "writev", IPCPERF_SC_WRITE, 1, 2, 30, 700);
	do_openat(100, 3);
	do_dup2(100, 3, 4);
	do_read(100, 4, 10, 0, 1000);
	do_close(100, 9, -EBADF);
	do_write(100, 4, 10, 10, 2000);

	sr = syscalls_of(st);
	ck_assert_uint_eq(sr->n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < sr->n; i++) {
		const struct ipcperf_syscall_row *r = &sr->v[i].r;

		ck_assert_int_eq(r->pid, want[i].pid);
		ck_assert_str_eq(r->name, want[i].name);
		ck_assert_uint_eq(r->calls, want[i].calls);
		ck_assert_uint_eq(r->errors, want[i].errors);
		ck_assert_uint_eq(r->time_ns, want[i].time_ns);
		ck_assert_uint_eq(r->lat_ns.min, want[i].min);
		ck_assert_uint_eq(r->lat_ns.max, want[i].max);
		ck_assert_uint_eq(r->lat_ns.avg, want[i].time_ns / want[i].calls);
	}
	free(sr);
}
END_TEST

START_TEST(test_syscall_errnos)
{
	struct ipcperf_syscall ev;
	struct sc_rows *sr;
	const struct ipcperf_syscall_row *w, *m;

	do_write(100, 3, 1, -EPIPE, 10);
	do_write(100, 3, 1, -EAGAIN, 10);
	do_write(100, 3, 1, -EPIPE, 10);
	do_write(100, 3, 1, 1, 10);
	do_write(100, 3, 1, -EINTR, 10);
	/* -4096 and below are values, not errors (an address from mmap, ...) */
	ev = call(100, 100, SYS_mmap, "mmap", IPCPERF_SC_OTHER, -1, (int64_t)0xffffffffff600000ull,
		  10);
	feed_sc(&ev);
	ev = call(100, 100, SYS_mmap, "mmap", IPCPERF_SC_OTHER, -1, -4095, 10);
	feed_sc(&ev);

	sr = syscalls_of(st);
	ck_assert_uint_eq(sr->n, 2);
	m = &sr->v[0].r;
	ck_assert_str_eq(m->name, "mmap");
	ck_assert_int_eq(m->nr, SYS_mmap);
	ck_assert_uint_eq(m->calls, 2);
	ck_assert_uint_eq(m->errors, 1);
	w = &sr->v[1].r;
	ck_assert_str_eq(w->name, "write");
	ck_assert_int_eq(w->nr, SYS_write);
	ck_assert_int_eq(w->tid, 0);
	ck_assert_uint_eq(w->calls, 5);
	ck_assert_uint_eq(w->errors, 4);
	free(sr);
}
END_TEST

/* Rows' errnos live only during the callback: check them inside it. */
static int check_errnos(void *ctx, const struct ipcperf_syscall_row *row)
{
	int *calls = ctx;

	(*calls)++;
	if (strcmp(row->name, "write") == 0) {
		ck_assert_uint_eq(row->nr_errnos, 3);
		ck_assert_ptr_nonnull(row->errnos);
		ck_assert_int_eq(row->errnos[0].err, EINTR);
		ck_assert_uint_eq(row->errnos[0].count, 1);
		ck_assert_int_eq(row->errnos[1].err, EAGAIN);
		ck_assert_uint_eq(row->errnos[1].count, 1);
		ck_assert_int_eq(row->errnos[2].err, EPIPE);
		ck_assert_uint_eq(row->errnos[2].count, 2);
	} else {
		ck_assert_str_eq(row->name, "close");
		ck_assert_uint_eq(row->nr_errnos, 0);
	}
	return 0;
}

START_TEST(test_syscall_errnos_by_errno)
{
	int calls = 0;

	do_write(100, 3, 1, -EPIPE, 10);
	do_write(100, 3, 1, -EAGAIN, 10);
	do_close(100, 3, 0);
	do_write(100, 3, 1, -EPIPE, 10);
	do_write(100, 3, 1, 1, 10);
	do_write(100, 3, 1, -EINTR, 10);
	ck_assert_int_eq(ipcperf_stats__for_each_syscall(st, check_errnos, &calls), 0);
	ck_assert_int_eq(calls, 2);

	/* reset forgets them */
	ipcperf_stats__reset(st);
	do_write(100, 3, 1, 1, 10);
	calls = 0;
	{
		struct sc_rows *sr = syscalls_of(st);

		ck_assert_uint_eq(sr->n, 1);
		ck_assert_uint_eq(sr->v[0].r.errors, 0);
		ck_assert_uint_eq(sr->v[0].r.nr_errnos, 0);
		free(sr);
	}
}
END_TEST

START_TEST(test_syscall_rows_per_thread)
{
	static const struct { pid_t tid; const char *name; uint64_t calls; } want[] = {
		{ 100, "read", 1 }, { 100, "write", 2 }, { 101, "close", 1 }, { 101, "write", 1 },
	};
	IPCPERF_OPTS(ipcperf_stats_opts, o, .no_proc = true, .per_thread = true);
	struct sc_rows *sr;

	ipcperf_stats__delete(st);
	st = sink[0] = ipcperf_stats__new(&o);
	ck_assert_ptr_nonnull(st);

	do_io(100, 101, SYS_write, "write", IPCPERF_SC_WRITE, 1, 1, 1, 10);
	do_io(100, 100, SYS_write, "write", IPCPERF_SC_WRITE, 1, 1, 1, 10);
	do_io(100, 100, SYS_read, "read", IPCPERF_SC_READ, 0, 1, 1, 10);
	do_io(100, 100, SYS_write, "write", IPCPERF_SC_WRITE, 1, 1, 1, 10);
	{
		struct ipcperf_syscall ev = call(100, 101, SYS_close, "close",
						 IPCPERF_SC_FD_CLOSE, 7, 0, 10);

		ev.args[0] = 7;
		ev.nr_args = 1;
		feed_sc(&ev);
	}

	sr = syscalls_of(st);
	ck_assert_uint_eq(sr->n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < sr->n; i++) {
		ck_assert_int_eq(sr->v[i].r.pid, 100);
		ck_assert_int_eq(sr->v[i].r.tid, want[i].tid);
		ck_assert_str_eq(sr->v[i].r.name, want[i].name);
		ck_assert_uint_eq(sr->v[i].r.calls, want[i].calls);
	}
	free(sr);
}
END_TEST

/* ------------------------------------------------------------------ reset */

START_TEST(test_reset_zeroes_counts_keeps_identity)
{
	const struct ipcperf_proc_row *p;
	const struct ipcperf_fd_row *r;
	struct proc_rows *pr;
	struct sc_rows *sr;
	struct fd_rows *rs;

	do_switch(100, 100, 0, true, "app");
	set_obj(100, 3, "pipe:[77]", IPCPERF_FD_PIPE);
	do_dup2(100, 3, 10);
	do_write(100, 10, 10, 10, 1000);
	do_read(100, 3, 10, 10, 1000);
	do_switch(100, 100, 1, false, "app");
	do_wakeup(0, 0, 100);

	ipcperf_stats__reset(st);

	/* still held, with no calls since the reset */
	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 2);
	ck_no_io(row_of(rs, 100, 3, "pipe:[77]"));
	ck_no_io(row_of(rs, 100, 10, "pipe:[77]"));
	free_fds(rs);
	sr = syscalls_of(st);
	ck_assert_uint_eq(sr->n, 0);
	free(sr);
	pr = procs_of(st);
	ck_assert_uint_eq(pr->n, 1);
	p = proc_of(pr, 100);
	ck_assert_uint_eq(p->voluntary_cs, 0);
	ck_assert_uint_eq(p->involuntary_cs, 0);
	ck_assert_uint_eq(p->wakeups, 0);
	ck_assert_uint_eq(p->migrations, 0);
	ck_assert_uint_eq(p->syscalls, 0);
	ck_assert_str_eq(p->comm, "app");
	free(pr);

	/* identities survive the reset */
	do_write(100, 10, 7, 7, 300);
	rs = fds_of(st);
	ck_assert_uint_eq(rs->n, 2);
	ck_no_io(row_of(rs, 100, 3, "pipe:[77]"));
	r = row_of(rs, 100, 10, "pipe:[77]");
	ck_assert_int_eq(r->kind, IPCPERF_FD_PIPE);
	ck_assert_uint_eq(r->ino, 77);
	ck_io(r->write, 1, 7, 0, 300);
	ck_lat(r->write.lat_ns, 300, 300, 300);
	ck_io(r->read, 0, 0, 0, 0);
	free_fds(rs);

	sr = syscalls_of(st);
	ck_assert_uint_eq(sr->n, 1);
	ck_assert_str_eq(sr->v[0].r.name, "write");
	ck_assert_uint_eq(sr->v[0].r.calls, 1);
	ck_assert_uint_eq(sr->v[0].r.time_ns, 300);
	ck_lat(sr->v[0].r.lat_ns, 300, 300, 300);
	free(sr);
}
END_TEST

/* Sums of rows over intervals, keyed by (pid, fd, object) / (pid) / (pid, name). */
#define MAX_KEYS 256

struct fd_sum {
	pid_t pid;
	int fd;
	char object[128];
	uint64_t v[2][5];	/* read, write: ops bytes errors time_ns msgs */
	uint64_t min[2], max[2];
};

struct sums {
	size_t nfd, nproc, nsc;
	struct fd_sum fd[MAX_KEYS];
	struct { pid_t pid; uint64_t v[5]; } proc[MAX_KEYS];
	struct { pid_t pid; char name[32]; uint64_t v[3]; uint64_t by_errno[160]; } sc[MAX_KEYS];
};

static void sum_io(struct fd_sum *s, int dir, const struct ipcperf_io *io)
{
	s->v[dir][0] += io->ops;
	s->v[dir][1] += io->bytes;
	s->v[dir][2] += io->errors;
	s->v[dir][3] += io->time_ns;
	s->v[dir][4] += io->msgs;
	if (!io->ops)
		return;
	if (!s->min[dir] || io->lat_ns.min < s->min[dir])
		s->min[dir] = io->lat_ns.min;
	if (io->lat_ns.max > s->max[dir])
		s->max[dir] = io->lat_ns.max;
}

static void add_snapshot(struct sums *sm, struct ipcperf_stats *s)
{
	struct fd_rows *rs = fds_of(s);
	struct proc_rows *pr = procs_of(s);
	struct sc_rows *sr = syscalls_of(s);
	size_t k;

	for (size_t i = 0; i < rs->n; i++) {
		const struct ipcperf_fd_row *r = &rs->v[i].r;

		for (k = 0; k < sm->nfd; k++)
			if (sm->fd[k].pid == r->pid && sm->fd[k].fd == r->fd &&
			    strcmp(sm->fd[k].object, r->object) == 0)
				break;
		if (k == sm->nfd) {
			ck_assert_uint_lt(sm->nfd, MAX_KEYS);
			sm->nfd++;
			sm->fd[k].pid = r->pid;
			sm->fd[k].fd = r->fd;
			snprintf(sm->fd[k].object, sizeof(sm->fd[k].object), "%s", r->object);
		}
		sum_io(&sm->fd[k], 0, &r->read);
		sum_io(&sm->fd[k], 1, &r->write);
	}
	for (size_t i = 0; i < pr->n; i++) {
		const struct ipcperf_proc_row *r = &pr->v[i].r;

		for (k = 0; k < sm->nproc; k++)
			if (sm->proc[k].pid == r->pid)
				break;
		if (k == sm->nproc) {
			ck_assert_uint_lt(sm->nproc, MAX_KEYS);
			sm->nproc++;
			sm->proc[k].pid = r->pid;
		}
		sm->proc[k].v[0] += r->voluntary_cs;
		sm->proc[k].v[1] += r->involuntary_cs;
		sm->proc[k].v[2] += r->wakeups;
		sm->proc[k].v[3] += r->migrations;
		sm->proc[k].v[4] += r->syscalls;
	}
	for (size_t i = 0; i < sr->n; i++) {
		const struct ipcperf_syscall_row *r = &sr->v[i].r;

		for (k = 0; k < sm->nsc; k++)
			if (sm->sc[k].pid == r->pid && strcmp(sm->sc[k].name, r->name) == 0)
				break;
		if (k == sm->nsc) {
			ck_assert_uint_lt(sm->nsc, MAX_KEYS);
			sm->nsc++;
			sm->sc[k].pid = r->pid;
			snprintf(sm->sc[k].name, sizeof(sm->sc[k].name), "%s", r->name);
		}
		sm->sc[k].v[0] += r->calls;
		sm->sc[k].v[1] += r->errors;
		sm->sc[k].v[2] += r->time_ns;
		for (size_t e = 0; e < r->nr_errnos; e++) {
			ck_assert_int_lt(r->errnos[e].err, 160);
			sm->sc[k].by_errno[r->errnos[e].err] += r->errnos[e].count;
		}
	}
	free_fds(rs);
	free(pr);
	free(sr);
}

static const char *const objects[] = { "pipe:[1]", "pipe:[2]", "socket:[3]", "/tmp/x" };
static const enum ipcperf_fd_kind kinds[] = {
	IPCPERF_FD_PIPE, IPCPERF_FD_PIPE, IPCPERF_FD_UNIX, IPCPERF_FD_FILE,
};

static int64_t random_ret(void)
{
	uint64_t r = rng() % 10;

	return r < 7 ? (int64_t)(1 + rng() % 5000) : r == 7 ? 0 : r == 8 ? -EAGAIN : -EPIPE;
}

static void random_event(void)
{
	pid_t pid = rng() % 2 ? 100 : 200;
	pid_t tid = pid + (pid_t)(rng() % 2);
	int fd = 3 + (int)(rng() % 6), fd2 = 3 + (int)(rng() % 6);
	uint64_t dur = 100 + rng() % 100000;
	static const int64_t close_rets[] = { 0, 0, 0, -EBADF, -EINTR };
	uint64_t k;

	switch (rng() % 16) {
	case 0: case 1: case 2:
		do_io(pid, tid, SYS_write, "write", IPCPERF_SC_WRITE, fd, 5000, random_ret(), dur);
		break;
	case 3: case 4: case 5:
		do_io(pid, tid, SYS_read, "read", IPCPERF_SC_READ, fd, 5000, random_ret(), dur);
		break;
	case 6:
		do_mmsg(pid, rng() % 2, fd, 8, rng() % 3 ? (int64_t)(rng() % 9) : -EAGAIN, dur);
		break;
	case 7:
		do_close(pid, fd, close_rets[rng() % 5]);
		break;
	case 8:
		do_dup2(pid, fd, fd2);
		break;
	case 9:
		if (fd == fd2)	/* these never return their argument */
			break;
		switch (rng() % 5) {
		case 0: do_dup(pid, fd, fd2); break;
		case 1: do_dup3(pid, fd, fd2, rng() % 2 ? O_CLOEXEC : 0); break;
		case 2: do_fcntl(pid, fd, F_DUPFD, fd2, fd2); break;
		case 3: do_fcntl(pid, fd, F_DUPFD_CLOEXEC, fd2, fd2); break;
		case 4: do_fcntl(pid, fd, F_SETFD, rng() % 2 ? FD_CLOEXEC : 0, 0); break;
		}
		break;
	case 10:
		do_openat(pid, fd);
		break;
	case 11:
		k = rng() % 4;
		set_obj(pid, fd, objects[k], kinds[k]);
		break;
	case 12:
		do_switch(pid, tid, (int)(rng() % 4), rng() % 2, pid == 100 ? "a" : "b");
		break;
	case 13:
		do_wakeup(0, 0, (pid_t)(rng() % 3 ? tid : 999));
		break;
	case 14:
		if (rng() % 8 == 0) {
			do_exec(pid, pid == 100 ? "/bin/a" : "/bin/b");
			break;
		}
		/* fall through */
	case 15:
		do_io(pid, tid, SYS_sendto, "sendto", IPCPERF_SC_WRITE, fd, 5000, random_ret(),
		      dur);
		break;
	}
}

static void assert_sums_equal(const struct sums *a, const struct sums *b)
{
	ck_assert_uint_eq(a->nfd, b->nfd);
	for (size_t i = 0; i < a->nfd; i++) {
		const struct fd_sum *x = &a->fd[i], *y = NULL;

		for (size_t k = 0; k < b->nfd; k++)
			if (b->fd[k].pid == x->pid && b->fd[k].fd == x->fd &&
			    strcmp(b->fd[k].object, x->object) == 0)
				y = &b->fd[k];
		ck_assert_msg(y, "(%d, %d, %s) only in the totals", (int)x->pid, x->fd, x->object);
		for (int d = 0; d < 2; d++) {
			for (int f = 0; f < 5; f++)
				ck_assert_msg(x->v[d][f] == y->v[d][f],
					      "(%d, %d, %s) %s field %d: total %llu, intervals %llu",
					      (int)x->pid, x->fd, x->object, d ? "write" : "read", f,
					      (unsigned long long)x->v[d][f],
					      (unsigned long long)y->v[d][f]);
			ck_assert_uint_eq(x->min[d], y->min[d]);
			ck_assert_uint_eq(x->max[d], y->max[d]);
		}
	}
	ck_assert_uint_eq(a->nproc, b->nproc);
	for (size_t i = 0; i < a->nproc; i++) {
		size_t k = 0;

		while (k < b->nproc && b->proc[k].pid != a->proc[i].pid)
			k++;
		ck_assert_msg(k < b->nproc, "process %d only in the totals", (int)a->proc[i].pid);
		for (int f = 0; f < 5; f++)
			ck_assert_msg(a->proc[i].v[f] == b->proc[k].v[f],
				      "process %d field %d: total %llu, intervals %llu",
				      (int)a->proc[i].pid, f, (unsigned long long)a->proc[i].v[f],
				      (unsigned long long)b->proc[k].v[f]);
	}
	ck_assert_uint_eq(a->nsc, b->nsc);
	for (size_t i = 0; i < a->nsc; i++) {
		size_t k = 0;

		while (k < b->nsc && (b->sc[k].pid != a->sc[i].pid ||
				      strcmp(b->sc[k].name, a->sc[i].name) != 0))
			k++;
		ck_assert_msg(k < b->nsc, "(%d, %s) only in the totals", (int)a->sc[i].pid,
			      a->sc[i].name);
		for (int f = 0; f < 3; f++)
			ck_assert_msg(a->sc[i].v[f] == b->sc[k].v[f],
				      "(%d, %s) field %d: total %llu, intervals %llu",
				      (int)a->sc[i].pid, a->sc[i].name, f,
				      (unsigned long long)a->sc[i].v[f],
				      (unsigned long long)b->sc[k].v[f]);
		for (int e = 0; e < 160; e++)
			ck_assert_msg(a->sc[i].by_errno[e] == b->sc[k].by_errno[e],
				      "(%d, %s) errno %d: total %llu, intervals %llu",
				      (int)a->sc[i].pid, a->sc[i].name, e,
				      (unsigned long long)a->sc[i].by_errno[e],
				      (unsigned long long)b->sc[k].by_errno[e]);
	}
}

START_TEST(test_interval_sums_equal_totals)
{
	struct sums *total = calloc(1, sizeof(*total)), *parts = calloc(1, sizeof(*parts));
	size_t intervals = 0;

	ck_assert_ptr_nonnull(total);
	ck_assert_ptr_nonnull(parts);
	sink[1] = new_stats();
	nr_sinks = 2;
	rng_state = 0x2545f4914f6cdd1dull + (uint64_t)_i;

	do_switch(100, 100, 0, false, "a");
	set_obj(100, 3, "pipe:[1]", IPCPERF_FD_PIPE);
	set_obj(100, 4, "pipe:[1]", IPCPERF_FD_PIPE);
	do_fork(100, 100, 200, "b");
	for (int n = 0; n < 4000; n++) {
		random_event();
		if (rng() % 40 == 0) {
			add_snapshot(parts, sink[1]);
			ipcperf_stats__reset(sink[1]);
			intervals++;
		}
	}
	add_snapshot(parts, sink[1]);
	add_snapshot(total, sink[0]);

	ck_assert_uint_gt(intervals, 50);
	ck_assert_uint_gt(total->nfd, 10);	/* the script did make rows */
	assert_sums_equal(total, parts);
	free(total);
	free(parts);
}
END_TEST

/* ------------------------------------------------------------------ API */

struct stopper {
	int calls;
	int stop_at;
	int ret;
};

static int stop_fd(void *ctx, const struct ipcperf_fd_row *row)
{
	struct stopper *s = ctx;

	(void)row;
	return ++s->calls == s->stop_at ? s->ret : 0;
}

static int stop_proc(void *ctx, const struct ipcperf_proc_row *row)
{
	struct stopper *s = ctx;

	(void)row;
	return ++s->calls == s->stop_at ? s->ret : 0;
}

static int stop_sc(void *ctx, const struct ipcperf_syscall_row *row)
{
	struct stopper *s = ctx;

	(void)row;
	return ++s->calls == s->stop_at ? s->ret : 0;
}

START_TEST(test_callback_stops_walk)
{
	struct stopper s;

	/* 3 processes, each with 2 fd rows and 2 syscall rows */
	for (pid_t pid = 100; pid <= 300; pid += 100) {
		do_write(pid, 1, 1, 1, 10);
		do_read(pid, 0, 1, 1, 10);
	}

	s = (struct stopper){ .stop_at = 2, .ret = 7 };
	ck_assert_int_eq(ipcperf_stats__for_each_fd(st, stop_fd, &s), 7);
	ck_assert_int_eq(s.calls, 2);
	s = (struct stopper){ .stop_at = 5, .ret = -5 };
	ck_assert_int_eq(ipcperf_stats__for_each_fd(st, stop_fd, &s), -5);
	ck_assert_int_eq(s.calls, 5);
	s = (struct stopper){ .stop_at = 100, .ret = 1 };
	ck_assert_int_eq(ipcperf_stats__for_each_fd(st, stop_fd, &s), 0);
	ck_assert_int_eq(s.calls, 6);

	s = (struct stopper){ .stop_at = 2, .ret = 9 };
	ck_assert_int_eq(ipcperf_stats__for_each_proc(st, stop_proc, &s), 9);
	ck_assert_int_eq(s.calls, 2);
	s = (struct stopper){ .stop_at = 100, .ret = 1 };
	ck_assert_int_eq(ipcperf_stats__for_each_proc(st, stop_proc, &s), 0);
	ck_assert_int_eq(s.calls, 3);

	s = (struct stopper){ .stop_at = 3, .ret = 42 };
	ck_assert_int_eq(ipcperf_stats__for_each_syscall(st, stop_sc, &s), 42);
	ck_assert_int_eq(s.calls, 3);
	s = (struct stopper){ .stop_at = 100, .ret = 1 };
	ck_assert_int_eq(ipcperf_stats__for_each_syscall(st, stop_sc, &s), 0);
	ck_assert_int_eq(s.calls, 6);
}
END_TEST

/* Connections @from to @to - 1 of a client 200 (fd 3) to a server 300 (fd 10, from listener 5). */
static void conn_churn(unsigned int from, unsigned int to)
{
	char obj[32], det[64];

	for (unsigned int i = from; i < to; i++) {
		snprintf(det, sizeof(det), "127.0.0.1:%u -> 127.0.0.1:5000", 33000 + i);
		tcp_socket(200, 3, 100000 + 2 * i, det);
		snprintf(obj, sizeof(obj), "socket:[%u]", 100001 + 2 * i);
		snprintf(det, sizeof(det), "127.0.0.1:5000 -> 127.0.0.1:%u", 33000 + i);
		fd_open(300, 10, SYS_accept4, 10, obj, IPCPERF_FD_TCP, 100001 + 2 * i, det);
		do_accept4(300, 5, 10);
		exchange_and_close(3, 10);
	}
}

/*
 * fold_conns: a client and a server, both traced, over 10,000 connections
 * one after the other. The rows of closed connections fold into their
 * groups once both ends are folded rows: the groups are those the rows
 * would make, exact, each naming the other process; the per-fd rows are
 * only those not folded yet, and the heap after 10,000 connections holds
 * what it held after 1,000, where each connection kept two rows (~1 KB).
 */
START_TEST(test_closed_conns_fold_into_groups)
{
	IPCPERF_OPTS(ipcperf_stats_opts, o, .no_proc = true, .fold_conns = true);
	struct grps gs = { .n = 0 };
	size_t after_1k;

	ipcperf_stats__delete(st);
	st = sink[0] = ipcperf_stats__new(&o);
	ck_assert_ptr_nonnull(st);
	do_exec(200, "/usr/bin/cli");
	do_exec(300, "/usr/bin/srv");
	conn_churn(0, 1000);
	after_1k = heap_in_use();
	conn_churn(1000, 10000);
	ck_assert_uint_le(heap_in_use(), after_1k + 512 * 1024);
	ck_assert_uint_lt(nr_rows(st), 2 * 3000);

	collect_groups(&gs, 2);
	expect_group(&gs.v[0], 200, IPCPERF_GROUP_CLIENT, "127.0.0.1:5000", 10000, 300, 2000000,
		     1000000);
	ck_assert_int_eq(gs.v[0].fd, 3);
	ck_assert_str_eq(gs.v[0].peer_comm, "srv");
	ck_assert_uint_eq(gs.v[0].rops, 10000);
	ck_assert_uint_eq(gs.v[0].wops, 10000);
	expect_group(&gs.v[1], 300, IPCPERF_GROUP_SERVED, "127.0.0.1:5000", 10000, 200, 1000000,
		     2000000);
	ck_assert_str_eq(gs.v[1].peer_comm, "cli");
	/* the client's sockets stand for socket() and no connect: grouped by their ports */
	ck_assert_uint_eq(gs.v[0].by_ports, 10000);
	ck_assert_uint_eq(gs.v[1].by_ports, 0);
}
END_TEST

/* Sums of a side's connections (tcp rows with calls, and folds): [0] the client, [1] the server. */
struct connsum {
	uint64_t conns, folds, rops, rbytes, wops, wbytes;
};

static int sum_conn_row(void *ctx, const struct ipcperf_fd_row *r)
{
	struct connsum *s = (struct connsum *)ctx + (r->pid == 300);

	if (r->kind != IPCPERF_FD_TCP || (!r->read.ops && !r->write.ops && !r->folded))
		return 0;
	if (r->folded) {
		ck_assert_int_eq(r->fd, -1);
		ck_assert_str_eq(r->object, "");
		ck_assert_str_eq(r->detail, "");
		ck_assert_int_eq(r->group_role, r->pid == 300 ? IPCPERF_GROUP_SERVED
							   : IPCPERF_GROUP_CLIENT);
		ck_assert_str_eq(r->group_endpoint, "127.0.0.1:5000");
		ck_assert_int_eq(r->peer_pid, r->pid == 300 ? 200 : 300);
		s->folds++;
	}
	s->conns += r->folded ? r->folded : 1;
	s->rops += r->read.ops;
	s->rbytes += r->read.bytes;
	s->wops += r->write.ops;
	s->wbytes += r->write.bytes;
	return 0;
}

/* @s's calls and bytes: @rops reads of @rbytes, @wops writes of @wbytes. */
static void expect_side(const struct connsum *s, uint64_t rops, uint64_t rbytes, uint64_t wops,
			uint64_t wbytes)
{
	ck_assert_uint_eq(s->rops, rops);
	ck_assert_uint_eq(s->rbytes, rbytes);
	ck_assert_uint_eq(s->wops, wops);
	ck_assert_uint_eq(s->wbytes, wbytes);
}

/* The rows and the folds of @st into @s (cleared first). */
static void sum_conns(struct connsum s[2])
{
	memset(s, 0, 2 * sizeof(*s));
	ck_assert_int_eq(ipcperf_stats__for_each_fd(st, sum_conn_row, s), 0);
	ck_assert_int_eq(ipcperf_stats__for_each_fd_fold(st, sum_conn_row, s), 0);
}

/*
 * fold_conns, the folds as rows (ipcperf_stats__for_each_fd_fold()): one
 * a group, fd -1, with its group's key and the rows it holds; with the rows
 * not folded, every connection, call and byte exactly once. After a reset
 * (an interval's stats), the folds hold only what came after it.
 */
START_TEST(test_closed_conns_fold_rows)
{
	IPCPERF_OPTS(ipcperf_stats_opts, o, .no_proc = true, .fold_conns = true);
	struct stopper stop = { .stop_at = 1, .ret = 1 };
	struct connsum s[2];

	ipcperf_stats__delete(st);
	st = sink[0] = ipcperf_stats__new(&o);
	ck_assert_ptr_nonnull(st);
	do_exec(200, "/usr/bin/cli");
	do_exec(300, "/usr/bin/srv");
	conn_churn(0, 10000);
	sum_conns(s);
	ck_assert_uint_eq(s[0].conns, 10000);
	ck_assert_uint_eq(s[0].folds, 1);
	expect_side(&s[0], 10000, 2000000, 10000, 1000000);
	ck_assert_uint_eq(s[1].conns, 10000);
	ck_assert_uint_eq(s[1].folds, 1);
	expect_side(&s[1], 10000, 1000000, 10000, 2000000);

	ipcperf_stats__reset(st);
	conn_churn(10000, 12000);
	sum_conns(s);
	expect_side(&s[0], 2000, 400000, 2000, 200000);
	expect_side(&s[1], 2000, 200000, 2000, 400000);
	/* rows held before the reset fold into the interval's count too: at least its own */
	ck_assert_uint_ge(s[1].conns, 2000);

	ck_assert_int_eq(ipcperf_stats__for_each_fd_fold(st, stop_fd, &stop), 1);
	ck_assert_int_eq(stop.calls, 1);
	ck_assert_int_eq(ipcperf_stats__for_each_fd_fold(NULL, stop_fd, &stop), -EINVAL);
	ck_assert_int_eq(ipcperf_stats__for_each_fd_fold(st, NULL, &stop), -EINVAL);
}
END_TEST

START_TEST(test_null_args)
{
	struct stopper s = { .stop_at = 1, .ret = 1 };

	do_write(100, 1, 1, 1, 10);
	ck_assert_int_eq(ipcperf_stats__for_each_fd(NULL, stop_fd, &s), -EINVAL);
	ck_assert_int_eq(ipcperf_stats__for_each_fd(st, NULL, &s), -EINVAL);
	ck_assert_int_eq(ipcperf_stats__for_each_proc(NULL, stop_proc, &s), -EINVAL);
	ck_assert_int_eq(ipcperf_stats__for_each_proc(st, NULL, &s), -EINVAL);
	ck_assert_int_eq(ipcperf_stats__for_each_syscall(NULL, stop_sc, &s), -EINVAL);
	ck_assert_int_eq(ipcperf_stats__for_each_syscall(st, NULL, &s), -EINVAL);
	ck_assert_int_eq(s.calls, 0);	/* a failed call never calls back */

	ck_assert_int_eq(ipcperf_stats__set_fd_object(NULL, 100, 3, "x", IPCPERF_FD_FILE), -EINVAL);
	ck_assert_int_eq(ipcperf_stats__set_fd_object(st, 100, 3, NULL, IPCPERF_FD_FILE), -EINVAL);
	ck_assert_int_eq(ipcperf_stats__set_fd_object(st, 100, -1, "x", IPCPERF_FD_FILE), -EINVAL);
	ck_assert_int_eq(ipcperf_stats__set_fd_object(st, 0, 3, "x", IPCPERF_FD_FILE), -EINVAL);
	ck_assert_int_eq(ipcperf_stats__set_fd_object(st, -4, 3, "x", IPCPERF_FD_FILE), -EINVAL);
	ck_assert_int_eq(ipcperf_stats__attach(NULL, NULL), -EINVAL);
	ck_assert_int_eq(ipcperf_stats__attach(st, NULL), -EINVAL);
}
END_TEST

START_TEST(test_new_and_delete)
{
	struct {
		struct ipcperf_stats_opts o;
		char tail[16];
	} big;
	struct ipcperf_stats_opts small = { .sz = 1 };
	struct ipcperf_stats *s;
	struct stopper cb = { .stop_at = 1, .ret = 1 };

	errno = 0;
	ck_assert_ptr_null(ipcperf_stats__new(&small));
	ck_assert_int_eq(errno, EINVAL);

	/* a newer caller's larger struct: fine while the unknown tail is zero */
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.o.no_proc = true;
	s = ipcperf_stats__new(&big.o);
	ck_assert_ptr_nonnull(s);
	ipcperf_stats__delete(s);
	big.tail[3] = 1;
	errno = 0;
	ck_assert_ptr_null(ipcperf_stats__new(&big.o));
	ck_assert_int_eq(errno, EINVAL);

	/* an older caller's struct without no_proc */
	small.sz = sizeof(size_t);
	s = ipcperf_stats__new(&small);
	ck_assert_ptr_nonnull(s);
	ipcperf_stats__delete(s);

	/* NULL opts: defaults; empty stats walk nothing */
	s = ipcperf_stats__new(NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(ipcperf_stats__for_each_fd(s, stop_fd, &cb), 0);
	ck_assert_int_eq(ipcperf_stats__for_each_proc(s, stop_proc, &cb), 0);
	ck_assert_int_eq(ipcperf_stats__for_each_syscall(s, stop_sc, &cb), 0);
	ck_assert_int_eq(cb.calls, 0);
	ipcperf_stats__delete(s);

	ipcperf_stats__delete(NULL);
}
END_TEST

START_TEST(test_kind_names)
{
	expect_fd_kind_names();
}
END_TEST

Suite *account_suite(void)
{
	Suite *s = suite_create("account");
	TCase *tc;

	tc = tcase_create("io");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_bytes_errors_time);
	tcase_add_test(tc, test_only_errors_still_a_row);
	tcase_add_test(tc, test_latency_percentiles);
	tcase_add_test(tc, test_syscall_rows_merge_exact);
	tcase_add_test(tc, test_mmsg_counts_messages);
	tcase_add_test(tc, test_moves_count_both_sides);
	suite_add_tcase(s, tc);

	tc = tcase_create("identity");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_identity_lifecycle);
	tcase_add_test(tc, test_unknown_incarnations_not_merged);
	tcase_add_test(tc, test_known_incarnations_merged);
	tcase_add_test(tc, test_dup_family_copies_identity);
	tcase_add_test(tc, test_rows_ordered_by_pid_then_fd);
	tcase_add_test(tc, test_rows_without_io);
	tcase_add_test(tc, test_close_ebadf_keeps_eintr_ends);
	tcase_add_test(tc, test_set_fd_identity);
	tcase_add_test(tc, test_on_call);
	tcase_add_test(tc, test_kernel_fd_identity);
	tcase_add_test(tc, test_closed_fds_folded);
	tcase_add_test(tc, test_closed_fds_freed_with_calls);
	tcase_add_test(tc, test_thread_copies_freed);
	tcase_add_test(tc, test_exited_processes_folded);
	tcase_add_test(tc, test_close_racing_new_fd);
	tcase_add_loop_test(tc, test_read_across_fd_end, 0, 4);
	tcase_add_test(tc, test_on_every_call);
	tcase_add_test(tc, test_on_every_signal_and_exit);
	tcase_add_test(tc, test_on_every_call_entered);
	tcase_add_test(tc, test_kernel_tcp_peers);
	tcase_add_test(tc, test_kernel_unix_pending_peer);
	tcase_add_test(tc, test_on_call_waits_for_proc);
	suite_add_tcase(s, tc);

	tc = tcase_create("fork-exec");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_fork_copies_fds);
	tcase_add_test(tc, test_thread_fork_no_process_row);
	tcase_add_test(tc, test_exec_ends_incarnations);
	tcase_add_test(tc, test_exec_unknown_not_merged_with_unknown);
	tcase_add_test(tc, test_exec_keeps_fds_without_cloexec);
	tcase_add_test(tc, test_fork_dup2_exec_redirect);
	tcase_add_test(tc, test_fork_reused_pid_of_exited_process);
	tcase_add_test(tc, test_fork_reused_tid_of_exited_thread);
	suite_add_tcase(s, tc);

	tc = tcase_create("processes");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_context_switches_and_migrations);
	tcase_add_test(tc, test_wakeups_only_known_threads);
	tcase_add_test(tc, test_comm_sources);
	tcase_add_test(tc, test_procs_listed_only_with_own_events);
	tcase_add_test(tc, test_threads_distinct);
	tcase_add_test(tc, test_syscall_rows);
	tcase_add_test(tc, test_syscall_errnos);
	tcase_add_test(tc, test_syscall_errnos_by_errno);
	tcase_add_test(tc, test_syscall_rows_per_thread);
	suite_add_tcase(s, tc);

	tc = tcase_create("reset");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_reset_zeroes_counts_keeps_identity);
	tcase_add_loop_test(tc, test_interval_sums_equal_totals, 0, 4);
	suite_add_tcase(s, tc);

	tc = tcase_create("api");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_callback_stops_walk);
	tcase_add_test(tc, test_groups_and_peers);
	tcase_add_test(tc, test_groups_by_origin);
	tcase_add_test(tc, test_groups_origin_copied);
	tcase_add_test(tc, test_closed_conns_fold_into_groups);
	tcase_add_test(tc, test_closed_conns_fold_rows);
	tcase_add_test(tc, test_null_args);
	tcase_add_test(tc, test_new_and_delete);
	tcase_add_test(tc, test_kind_names);
	suite_add_tcase(s, tc);
	return s;
}
