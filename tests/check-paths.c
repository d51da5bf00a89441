/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests of request paths (lib/paths/) through the public API, with
 * hand-built calls: a client (pid 100), a proxy (pid 200, thread 201) and
 * a backend (pid 300, thread 301); the client's fd 3 is socket:[1001],
 * connected to the proxy's fd 5, socket:[1002]; the proxy's fd 7 is
 * socket:[2001], connected to the backend's fd 5, socket:[2002]. Every call
 * goes to the stats, the flows and the paths in that order, in the order
 * the calls end, as the engine delivers them. The paths hand a call on
 * once the calls have gone 20 ms past it: tick() moves them on, with a read
 * of a fourth process on a socket nobody writes into.
 *
 * The times of the chain (ns), and what they make:
 *   client  write 100 B [1000, 1100]             read 200 B [1200, 5900]
 *   proxy   read [500, 1200]  write to backend [2200, 2300]
 *           read the answer [2400, 5600]  write 200 B [5700, 5800]
 *   backend read [600, 2400]  write 200 B [5400, 5500]
 * proxy: request 1200 - 1000 = 200, span [1200, 5800] less its call
 * [2200, 5600]: self 1200, response 5900 - 5800 = 100; backend: request
 * 2400 - 2200 = 200, self 5500 - 2400 = 3100, response 5600 - 5500 = 100;
 * end to end 5900 - 1000 = 4900, their sum. A pipeline src (pid 500) |
 * stage (600) | sink (700) goes through pipe:[5001] and pipe:[5002].
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <check.h>

#include <ipcperf/ipcperf.h>
#include "paths/paths.h"
#include "check-helpers.h"
#include "suites.h"

static struct ipcperf_stats *st;
static struct ipcperf_flows *fl;
static struct ipcperf_paths *pa;

/* The paths handed out, copied (a path lives only during the callback). */
#define MAX_PATHS 8
#define MAX_HOPS 4
static struct ipcperf_path got[MAX_PATHS];
static struct ipcperf_path_hop got_hops[MAX_PATHS][MAX_HOPS];
static size_t nr_got;

static void on_path(void *ctx, const struct ipcperf_path *p)
{
	ck_assert_ptr_eq(ctx, got);
	ck_assert_uint_lt(nr_got, MAX_PATHS);
	ck_assert_uint_le(p->nr_hops, MAX_HOPS);
	got[nr_got] = *p;
	memcpy(got_hops[nr_got], p->hops, p->nr_hops * sizeof(*p->hops));
	got[nr_got].hops = got_hops[nr_got];
	got[nr_got].comm = NULL;
	for (size_t i = 0; i < p->nr_hops; i++)
		got_hops[nr_got][i].comm = NULL;
	nr_got++;
}

static void name_sock(pid_t pid, int fd, uint64_t ino, uint64_t peer)
{
	char obj[64];

	snprintf(obj, sizeof(obj), "socket:[%llu]", (unsigned long long)ino);
	IPCPERF_OPTS(ipcperf_fd_identity, id, .object = obj, .kind = IPCPERF_FD_UNIX, .ino = ino,
		     .peer_ino = peer, .sock_type = SOCK_STREAM);
	ck_assert_int_eq(ipcperf_stats__set_fd_identity(st, pid, fd, &id), 0);
}

/* A pipeline src (pid 500) | stage (600) | sink (700): pipe:[5001], then pipe:[5002]. */
static void name_pipe(pid_t pid, int fd, uint64_t ino)
{
	char obj[64];

	snprintf(obj, sizeof(obj), "pipe:[%llu]", (unsigned long long)ino);
	IPCPERF_OPTS(ipcperf_fd_identity, id, .object = obj, .kind = IPCPERF_FD_PIPE, .ino = ino);
	ck_assert_int_eq(ipcperf_stats__set_fd_identity(st, pid, fd, &id), 0);
}

static void setup(void)
{
	flows_fixture_new(&st, &fl, true);
	pa = ipcperf_paths__new(fl);
	ck_assert_ptr_nonnull(pa);
	nr_got = 0;
	ck_assert_int_eq(ipcperf_paths__on_path(pa, on_path, got), 0);
	name_sock(100, 3, 1001, 1002);
	name_sock(200, 5, 1002, 1001);
	name_sock(200, 7, 2001, 2002);
	name_sock(300, 5, 2002, 2001);
	name_sock(400, 3, 3001, 3002);
	name_pipe(500, 1, 5001);
	name_pipe(600, 0, 5001);
	name_pipe(600, 1, 5002);
	name_pipe(700, 0, 5002);
	name_pipe(600, 2, 5003);
	name_pipe(600, 3, 5004);
	name_pipe(600, 4, 5004);
}

static void teardown(void)
{
	ipcperf_paths__delete(pa);
	flows_fixture_delete(&st, &fl);
}

static void feed(const struct ipcperf_syscall *ev)
{
	ipcperf_stats__add_syscall(st, ev);
	ipcperf_flows__add_syscall(fl, ev);
	ipcperf_paths__add_syscall(pa, ev);
}

/* A read (@w false) or write of thread @tid of @pid on @fd, [@start, @end], moving @ret bytes. */
static void io(pid_t pid, pid_t tid, bool w, int fd, int64_t ret, uint64_t start, uint64_t end)
{
	struct ipcperf_syscall ev = {
		.start_ns = start, .end_ns = end, .pid = pid, .tid = tid,
		.nr = w ? SYS_write : SYS_read, .name = w ? "write" : "read",
		.cls = w ? IPCPERF_SC_WRITE : IPCPERF_SC_READ, .fd = fd, .count = (uint64_t)ret,
		.ret = ret, .nr_args = 3, .out_fd = -1,
	};

	ev.args[0] = (uint64_t)fd;
	ev.args[2] = (uint64_t)ret;
	feed(&ev);
}

/* An epoll_wait of thread @tid of @pid that returned one ready fd at @end. */
static void wait_ready(pid_t pid, pid_t tid, uint64_t start, uint64_t end)
{
	struct ipcperf_syscall ev = {
		.start_ns = start, .end_ns = end, .pid = pid, .tid = tid, .nr = SYS_epoll_wait,
		.name = "epoll_wait", .cls = IPCPERF_SC_WAIT, .fd = 9, .ret = 1, .nr_args = 4,
		.out_fd = -1,
	};

	ev.args[0] = 9;
	feed(&ev);
}

/* The calls have come up to @t: what happened before @t - 20 ms is handed on. */
static void tick(uint64_t t)
{
	io(400, 400, false, 3, 10, t, t);
}

/* The request's way in: the client writes, the proxy reads it (tid 201). */
static void request_in(void)
{
	io(100, 100, true, 3, 100, 1000, 1100);
	io(200, 201, false, 5, 100, 500, 1200);
}

/* The proxy's thread @tid calls the backend, @dt after the first call; the backend reads it. */
static void backend_call(pid_t tid, uint64_t dt)
{
	io(200, tid, true, 7, 100, 2200 + dt, 2300 + dt);
	io(300, 301, false, 5, 100, 600 + dt, 2400 + dt);
}

/* The backend answers the call @dt after the first's, and the proxy's thread @tid reads it. */
static void backend_answer(pid_t tid, uint64_t dt)
{
	io(300, 301, true, 5, 200, 5400 + dt, 5500 + dt);
	io(200, tid, false, 7, 200, 2400 + dt, 5600 + dt);
}

/* The proxy's thread @tid answers the client, @dt after the first answer. */
static void proxy_answer(pid_t tid, uint64_t dt)
{
	io(200, tid, true, 5, 200, 5700 + dt, 5800 + dt);
}

/* The proxy's @tid serves a request, @dt after the first: its call, its answer (not read yet). */
static void serve(pid_t tid, uint64_t dt)
{
	backend_call(tid, dt);
	backend_answer(tid, dt);
	proxy_answer(tid, dt);
}

/* The client reads the first answer. */
static void client_reads(void)
{
	io(100, 100, false, 3, 200, 1200, 5900);
}

/* The rest of the chain, from the proxy's write to the backend. */
static void rest_of_chain(void)
{
	serve(201, 0);
	client_reads();
}

/* The client writes @n requests of @bytes back to back, a call each, 150 ns apart from 1000. */
static void client_writes(int n, int64_t bytes)
{
	for (int i = 0; i < n; i++)
		io(100, 100, true, 3, bytes, 1000 + 150 * i, 1100 + 150 * i);
}

/* The client writes @n requests of @bytes back to back; the proxy reads them all [500, 1300]. */
static void pipelined_in(int n, int64_t bytes)
{
	client_writes(n, bytes);
	io(200, 201, false, 5, n * bytes, 500, 1300);
}

/*
 * The second of two pipelined requests answered: the backend answers, the
 * proxy's read of it (from @read_start) returns at 7200, the proxy answers
 * and the client reads it [5950, 7500].
 */
static void second_answer(uint64_t read_start)
{
	io(300, 301, true, 5, 200, 7000, 7100);
	io(200, 201, false, 7, 200, read_start, 7200);
	io(200, 201, true, 5, 200, 7300, 7400);
	io(100, 100, false, 3, 200, 5950, 7500);
}

/* What the paths counted. */
static struct ipcperf_paths_stats counts(void)
{
	struct ipcperf_paths_stats ps = { .sz = sizeof(ps) };

	ck_assert_int_eq(ipcperf_paths__stats(pa, &ps), 0);
	return ps;
}

/* The paths flushed: @nr handed out in all. */
static void flushed(size_t nr)
{
	ck_assert_int_eq(ipcperf_paths__flush(pa), 0);
	ck_assert_uint_eq(nr_got, nr);
}

/* The flush hands out the chain whole: one path of two hops, the backend's self time 3100. */
static void expect_whole_chain(void)
{
	flushed(1);
	ck_assert_uint_eq(got[0].nr_hops, 2);
	ck_assert_uint_eq(got_hops[0][1].self_ns, 3100);
	ck_assert_uint_eq(counts().paths, 1);
}

/* Path @i began with @pid's call on @fd at @start, ended at @end, went through @nr_hops hops. */
static void expect_path(size_t i, pid_t pid, int fd, uint64_t start, uint64_t end, size_t nr_hops)
{
	ck_assert_int_eq(got[i].pid, pid);
	ck_assert_int_eq(got[i].fd, fd);
	ck_assert_uint_eq(got[i].start_ns, start);
	ck_assert_uint_eq(got[i].end_ns, end);
	ck_assert_uint_eq(got[i].nr_hops, nr_hops);
}

/* Hop @h: below hop @parent, @pid's fd @fd, called by @caller_pid on its fd @caller_fd. */
static void expect_hop(const struct ipcperf_path_hop *h, int parent, pid_t pid, int fd,
		       pid_t caller_pid, int caller_fd)
{
	ck_assert_int_eq(h->parent, parent);
	ck_assert_int_eq(h->pid, pid);
	ck_assert_int_eq(h->fd, fd);
	ck_assert_int_eq(h->caller_pid, caller_pid);
	ck_assert_int_eq(h->caller_fd, caller_fd);
}

/* Hop @h's times: the request's in the channel, its own and the response's. */
static void expect_times(const struct ipcperf_path_hop *h, uint64_t request, uint64_t self,
			 uint64_t response)
{
	ck_assert_uint_eq(h->request_ns, request);
	ck_assert_uint_eq(h->self_ns, self);
	ck_assert_uint_eq(h->response_ns, response);
}

/* Hop @h's request and response bytes. */
static void expect_bytes(const struct ipcperf_path_hop *h, uint64_t request, uint64_t response)
{
	ck_assert_uint_eq(h->request_bytes, request);
	ck_assert_uint_eq(h->response_bytes, response);
}

/* The call that reached hop @h: from @start to @end. */
static void expect_call(const struct ipcperf_path_hop *h, uint64_t start, uint64_t end)
{
	ck_assert_uint_eq(h->call_start_ns, start);
	ck_assert_uint_eq(h->call_end_ns, end);
}

START_TEST(chain_thread)
{
	const struct ipcperf_path_hop *h = got_hops[0];
	struct ipcperf_paths_stats ps;

	request_in();
	rest_of_chain();
	flushed(1);
	expect_path(0, 100, 3, 1000, 5900, 2);
	expect_hop(&h[0], -1, 200, 5, 100, 3);
	ck_assert_int_eq(h[0].tid, 201);
	expect_bytes(&h[0], 100, 200);
	expect_times(&h[0], 200, 1200, 100);
	expect_hop(&h[1], 0, 300, 5, 200, 7);
	expect_call(&h[1], 2200, 5600);
	expect_times(&h[1], 200, 3100, 100);
	ps = counts();
	ck_assert_uint_eq(ps.paths, 1);
	ck_assert_uint_eq(ps.no_response + ps.untraced_hop + ps.unread + ps.no_cause + ps.lost, 0);
}
END_TEST

/* Thread @tid changes state at @t, as the session hands it (complete: CPU-wide, with idle's). */
static void sched(pid_t tid, uint64_t t, enum ipp_run_state state)
{
	struct ipp_sched_ev ev = { .time = t, .tid = tid, .state = state, .complete = true };

	ipp_paths__on_sched(pa, &ev);
}

/* Thread @tid woken at @woken, on a CPU from @on. */
static void woken_on(pid_t tid, uint64_t woken, uint64_t on)
{
	sched(tid, woken, IPP_RUN_WOKEN);
	sched(tid, on, IPP_RUN_ON);
}

/* Thread @tid preempted at @off, back on a CPU at @on. */
static void preempted(pid_t tid, uint64_t off, uint64_t on)
{
	sched(tid, off, IPP_RUN_RUNQ);
	sched(tid, on, IPP_RUN_ON);
}

/*
 * The self time split by the threads' scheduling. The proxy (201): its
 * self time is [1200, 2200] and [5600, 5800]; preempted at 1500, back on at
 * 1700: cpu 300 + 500 + 200, runq 200; its switch out at 3000 (blocked in
 * its read of the answer) is inside its call. The backend (301): [2400,
 * 5500]; asleep at 2600, woken at 5000 (a second wakeup at 5050 changes
 * nothing), on at 5100: cpu 200 + 400, runq 100, blocked 2400.
 */
START_TEST(self_split)
{
	const struct ipcperf_path_hop *h;

	sched(201, 400, IPP_RUN_BLOCKED);
	woken_on(201, 1150, 1160);
	preempted(201, 1500, 1700);
	sched(201, 3000, IPP_RUN_BLOCKED);
	sched(301, 2600, IPP_RUN_BLOCKED);
	sched(301, 5000, IPP_RUN_WOKEN);
	woken_on(301, 5050, 5100);
	woken_on(201, 5550, 5560);
	request_in();
	rest_of_chain();
	flushed(1);
	h = got[0].hops;
	ck_assert(h[0].split);
	ck_assert_uint_eq(h[0].cpu_ns, 1000);
	ck_assert_uint_eq(h[0].runq_ns, 200);
	ck_assert_uint_eq(h[0].blocked_ns, 0);
	ck_assert(h[1].split);
	ck_assert_uint_eq(h[1].cpu_ns, 600);
	ck_assert_uint_eq(h[1].runq_ns, 100);
	ck_assert_uint_eq(h[1].blocked_ns, 2400);
	ck_assert_uint_eq(h[1].cpu_ns + h[1].runq_ns + h[1].blocked_ns, h[1].self_ns);
}
END_TEST

/* The proxy's worker (202) does the rest: it calls the backend and answers the client. */
static void worker_chain(void)
{
	serve(202, 0);
	client_reads();
}

/* Thread @tid woken by @waker_tid of @pid at @t (sched_waking: the waker's). */
static void woken(pid_t pid, pid_t waker_tid, pid_t tid, uint64_t t)
{
	struct ipp_sched_ev ev = { .time = t, .pid = pid, .tid = tid, .state = IPP_RUN_WAKING,
				   .waker = waker_tid, .complete = true };

	ipp_paths__on_sched(pa, &ev);
}

/* Thread @tid of @pid went to sleep at @t (its switch out says its process). */
static void asleep(pid_t pid, pid_t tid, uint64_t t)
{
	struct ipp_sched_ev ev = { .time = t, .pid = pid, .tid = tid, .state = IPP_RUN_BLOCKED,
				   .complete = true };

	ipp_paths__on_sched(pa, &ev);
}

/*
 * A worker pool: the reader (201) reads the request and wakes the worker
 * (202, asleep since 100) at 1300; the worker runs from 1400. The wakeup
 * carries the request: one path, as the thread's. Self time split: the
 * reader [1200, 1300] on CPU; the worker runnable [1300, 1400], on CPU
 * [1400, 2200] and [5600, 5800]. The reader's second wakeup (1350, a
 * mutex's waiter, 203) does not hand it on again, nor does a wakeup of a
 * thread of another process.
 */
START_TEST(pool_hand_off)
{
	const struct ipcperf_path_hop *h;

	asleep(200, 202, 100);
	asleep(200, 203, 100);
	asleep(300, 301, 2600);
	request_in();
	woken(200, 201, 301, 1250);
	woken(200, 201, 202, 1300);
	woken(200, 201, 203, 1350);
	sched(202, 1400, IPP_RUN_ON);
	sched(301, 5100, IPP_RUN_ON);
	worker_chain();
	flushed(1);
	ck_assert_uint_eq(counts().no_cause, 0);
	ck_assert_uint_eq(got[0].nr_hops, 2);
	h = got[0].hops;
	ck_assert_int_eq(h[0].tid, 201);
	ck_assert_uint_eq(h[0].self_ns, 1200);
	ck_assert_int_eq(h[1].parent, 0);
	ck_assert_int_eq(h[1].caller_tid, 202);
	ck_assert(h[0].split);
	ck_assert_uint_eq(h[0].cpu_ns, 100 + 800 + 200);
	ck_assert_uint_eq(h[0].runq_ns, 100);
	ck_assert_uint_eq(h[0].blocked_ns, 0);
}
END_TEST

/*
 * A thread per connection (201) that wakes a thread of its process (202)
 * while it holds the request, and makes every call itself: the self time
 * stays its own (on CPU throughout), not the woken thread's (asleep).
 */
START_TEST(woken_but_no_worker)
{
	asleep(200, 202, 100);
	request_in();
	woken(200, 201, 202, 1300);
	rest_of_chain();
	flushed(1);
	ck_assert(got[0].hops[0].split);
	ck_assert_uint_eq(got[0].hops[0].cpu_ns, 1200);
	ck_assert_uint_eq(got[0].hops[0].blocked_ns, 0);
}
END_TEST

/* No wakeup by the reader (the worker took it without sleeping): the worker's call has no cause. */
START_TEST(pool_no_wakeup)
{
	asleep(200, 202, 100);
	request_in();
	worker_chain();
	flushed(0);
	ck_assert_uint_eq(counts().no_cause, 1);
}
END_TEST

/* Without the scheduling (none, or not all of it: per task), the self time is not split. */
START_TEST(self_not_split)
{
	struct ipp_sched_ev ev = { .time = 1500, .tid = 201, .state = IPP_RUN_RUNQ };

	request_in();
	rest_of_chain();
	flushed(1);
	ck_assert(!got[0].hops[0].split);
	ck_assert_uint_eq(got[0].hops[0].cpu_ns, 0);
	ipp_paths__on_sched(pa, &ev);	/* incomplete: a switch-in may be missing */
	nr_got = 0;
	io(100, 100, true, 3, 100, 10000, 10100);
	io(200, 201, false, 5, 100, 9000, 10200);
	io(200, 201, true, 5, 200, 10300, 10400);
	io(100, 100, false, 3, 200, 10200, 10500);
	flushed(1);
	ck_assert(!got[0].hops[0].split);
}
END_TEST

/* An epoll loop's wait returned between the read of the request and the write to the backend. */
START_TEST(turn_ended)
{
	struct ipcperf_paths_stats ps;

	request_in();
	wait_ready(200, 201, 1300, 2100);
	rest_of_chain();
	flushed(0);
	ps = counts();
	ck_assert_uint_eq(ps.paths, 0);
	/* one request, not attributed: its exchange with the backend is part of it, not counted again */
	ck_assert_uint_eq(ps.no_cause, 1);
	ck_assert_uint_eq(ps.no_response, 0);
}
END_TEST

/* A wait in the same thread before the read of the request does not end its turn. */
START_TEST(turn_before_read)
{
	wait_ready(200, 201, 300, 400);
	request_in();
	rest_of_chain();
	flushed(1);
	ck_assert_uint_eq(got[0].nr_hops, 2);
}
END_TEST

/* The session ends with the backend still on it: nothing is handed out, one request counted. */
START_TEST(no_response)
{
	struct ipcperf_paths_stats ps;

	request_in();
	backend_call(201, 0);
	flushed(0);
	ps = counts();
	ck_assert_uint_eq(ps.paths, 0);
	ck_assert_uint_eq(ps.no_response, 1);
}
END_TEST

/* A second request on the client's connection completes the first: handed out before the flush. */
START_TEST(next_request_completes)
{
	request_in();
	rest_of_chain();
	/* the proxy's next call to the backend closes the backend's exchange */
	io(100, 100, true, 3, 100, 6000, 6100);
	io(200, 201, false, 5, 100, 5900, 6200);
	ck_assert_uint_eq(nr_got, 0);	/* not before the calls went 20 ms past it */
	tick(30 * MS);
	ck_assert_uint_eq(nr_got, 0);
	io(200, 201, true, 7, 100, 6300, 6400);
	ck_assert_uint_eq(nr_got, 1);
	ck_assert_uint_eq(got[0].end_ns, 5900);
	/* the second one never got its answer */
	flushed(1);
	ck_assert_uint_eq(counts().no_response, 1);
}
END_TEST

/* A read that returns 0: end of file on a socket. */
static void eof(pid_t pid, pid_t tid, int fd, uint64_t start, uint64_t end)
{
	struct ipcperf_syscall ev = {
		.start_ns = start, .end_ns = end, .pid = pid, .tid = tid, .nr = SYS_read,
		.name = "read", .cls = IPCPERF_SC_READ, .fd = fd, .count = 100, .ret = 0,
		.nr_args = 3, .out_fd = -1,
	};

	ev.args[0] = (uint64_t)fd;
	feed(&ev);
}

/*
 * The client closes after its answer: the proxy's end of file completes
 * its exchange, the backend's (the proxy closed too) the backend's: the
 * path goes out then, not at the flush.
 */
START_TEST(closed_completes)
{
	request_in();
	rest_of_chain();
	eof(200, 201, 5, 5900, 6000);
	tick(30 * MS);
	ck_assert_uint_eq(nr_got, 0);
	eof(300, 301, 5, 5600, 6100);
	tick(31 * MS);
	ck_assert_uint_eq(nr_got, 1);
	ck_assert_uint_eq(got[0].nr_hops, 2);
	flushed(1);
	ck_assert_uint_eq(counts().paths, 1);
}
END_TEST

/* A request ended by a half close: the server's end of file before its answer ends nothing. */
START_TEST(half_close)
{
	request_in();
	backend_call(201, 0);
	eof(300, 301, 5, 2450, 2500);
	backend_answer(201, 0);
	proxy_answer(201, 0);
	client_reads();
	expect_whole_chain();
}
END_TEST

/*
 * The capture began as the backend answered a request of before: the first
 * write seen on the proxy's connection to it is the backend's. The end a
 * listener accepted is the server's all the same: that answer belongs to no
 * exchange, and the chain after it is whole.
 */
START_TEST(accepted_end_writes_first)
{
	struct ipcperf_syscall acc = {
		.start_ns = 10, .end_ns = 20, .pid = 300, .tid = 301, .nr = SYS_accept4,
		.name = "accept4", .cls = IPCPERF_SC_FD_NEW, .fd = 4, .ret = 5, .nr_args = 4,
		.out_fd = -1,
	};

	struct ipcperf_fd_open op = {
		.time_ns = 20, .pid = 300, .tid = 301, .fd = 5, .nr = SYS_accept4, .ret = 5,
		.object = "socket:[2002]", .kind = IPCPERF_FD_UNIX, .detail = "", .ino = 2002,
		.peer_ino = 2001, .sock_type = SOCK_STREAM, .capacity = -1, .accmode = -1,
	};

	acc.args[0] = 4;
	/* what the kernel said of the new fd, at the accept's exit, then the accept */
	ipcperf_stats__add_fd_open(st, &op);
	feed(&acc);
	io(300, 301, true, 5, 200, 100, 150);
	io(200, 201, false, 7, 200, 90, 160);
	request_in();
	rest_of_chain();
	expect_whole_chain();
	ck_assert_int_eq(got_hops[0][1].pid, 300);
}
END_TEST

/* @pid accepted its fd @fd, socket:[@ino] connected to socket:[@peer], at @t: the server's end. */
static void accepted(pid_t pid, int fd, uint64_t ino, uint64_t peer, uint64_t t)
{
	char obj[64];
	struct ipcperf_syscall acc = {
		.start_ns = t - 10, .end_ns = t, .pid = pid, .tid = pid + 1, .nr = SYS_accept4,
		.name = "accept4", .cls = IPCPERF_SC_FD_NEW, .fd = 4, .ret = fd, .nr_args = 4,
		.out_fd = -1,
	};
	struct ipcperf_fd_open op = {
		.time_ns = t, .pid = pid, .tid = pid + 1, .fd = fd, .nr = SYS_accept4, .ret = fd,
		.object = obj, .kind = IPCPERF_FD_UNIX, .detail = "", .ino = ino, .peer_ino = peer,
		.sock_type = SOCK_STREAM, .capacity = -1, .accmode = -1,
	};

	snprintf(obj, sizeof(obj), "socket:[%llu]", (unsigned long long)ino);
	acc.args[0] = 4;
	/* what the kernel said of the new fd, at the accept's exit, then the accept */
	ipcperf_stats__add_fd_open(st, &op);
	feed(&acc);
}

/*
 * The proxy's answer returns late (8000), after the client read it (5900)
 * and sent its next request (6100): the answer began at 5700, before that
 * request, which is a second exchange, not more of the first.
 */
START_TEST(answer_returns_late)
{
	request_in();
	backend_call(201, 0);
	backend_answer(201, 0);
	client_reads();
	io(100, 100, true, 3, 100, 6000, 6100);
	io(200, 201, true, 5, 200, 5700, 8000);
	io(200, 201, false, 5, 100, 8100, 8200);
	flushed(1);
	expect_bytes(&got_hops[0][0], 100, 200);
	/* kept within the call: the client had it all at 5900 */
	ck_assert_uint_eq(got_hops[0][0].end_ns, 5900);
	ck_assert_uint_eq(got_hops[0][0].self_ns, 5900 - 1200 - 3400);
	ck_assert_uint_eq(counts().no_response, 1);
}
END_TEST

/*
 * The client's request returns late (9000), after the proxy served it
 * whole: its bytes were there from 1000, so the proxy held it from its
 * read (1200) and its call to the backend is the request's.
 */
START_TEST(request_returns_late)
{
	accepted(200, 5, 1002, 1001, 400);
	io(200, 201, false, 5, 100, 500, 1200);
	serve(201, 0);
	io(100, 100, true, 3, 100, 1000, 9000);
	io(100, 100, false, 3, 200, 9100, 9200);
	expect_whole_chain();
	ck_assert_uint_eq(got_hops[0][0].request_ns, 200);
}
END_TEST

/*
 * Pipelining: the client writes two requests back to back (a write call
 * each) and the proxy reads both in one read [500, 1300]; it serves the
 * first (backend [2200, 5600], answer [5700, 5800]), then the second
 * (backend [6000, 7200], answer [7300, 7400]); the client reads the two
 * answers. Two paths, each answer paired with its request; the second is
 * served from the first's answer (5800): it waited behind it in the
 * channel (request 5800 - 1150 = 4650), self 7400 - 5800 - 1200 = 400.
 */
START_TEST(pipelined_pair)
{
	const struct ipcperf_path_hop *h;

	pipelined_in(2, 100);
	serve(201, 0);
	io(100, 100, false, 3, 200, 1300, 5900);
	io(200, 201, true, 7, 100, 6000, 6100);
	io(300, 301, false, 5, 100, 5600, 6200);
	second_answer(6200);
	flushed(2);
	ck_assert_uint_eq(counts().paths, 2);
	expect_path(0, 100, 3, 1000, 5900, 2);
	h = got_hops[0];
	expect_bytes(&h[0], 100, 200);
	expect_times(&h[0], 300, 1100, 100);
	ck_assert_uint_eq(h[1].call_start_ns, 2200);
	ck_assert_uint_eq(h[1].self_ns, 3100);
	expect_path(1, 100, 3, 1150, 7500, 2);
	h = got_hops[1];
	expect_bytes(&h[0], 100, 200);
	expect_times(&h[0], 4650, 400, 100);
	ck_assert_int_eq(h[1].parent, 0);
	expect_call(&h[1], 6000, 7200);
	expect_times(&h[1], 200, 900, 100);
}
END_TEST

/*
 * An event loop reads two pipelined requests in one read and passes each
 * on to the backend at once (2200, 2400), before the first answer comes
 * back. The second call's answer was not read when the first request was
 * answered (5800): it is the second request's call, and the second request
 * was served from it on (2400). Each request is a path of two hops whose
 * times add up.
 */
START_TEST(pipelined_passed_on)
{
	const struct ipcperf_path_hop *h;

	pipelined_in(2, 100);
	io(200, 201, true, 7, 100, 2200, 2300);
	io(300, 301, false, 5, 100, 600, 2350);
	io(200, 201, true, 7, 100, 2400, 2500);
	io(300, 301, true, 5, 200, 5400, 5500);
	io(300, 301, false, 5, 100, 5550, 5600);
	io(200, 201, false, 7, 200, 2600, 5600);
	proxy_answer(201, 0);
	io(100, 100, false, 3, 200, 1300, 5900);
	second_answer(5900);
	ck_assert_int_eq(ipcperf_paths__flush(pa), 0);
	ck_assert_uint_eq(counts().paths, 2);
	ck_assert_uint_eq(nr_got, 2);
	for (size_t i = 0; i < 2; i++) {
		uint64_t sum = 0;

		ck_assert_uint_eq(got[i].nr_hops, 2);
		for (size_t k = 0; k < 2; k++)
			sum += got_hops[i][k].request_ns + got_hops[i][k].self_ns +
			       got_hops[i][k].response_ns;
		ck_assert_uint_eq(sum, got[i].end_ns - got[i].start_ns);
	}
	expect_path(0, 100, 3, 1000, 5900, 2);
	expect_call(&got_hops[0][1], 2200, 5600);
	h = got_hops[1];
	expect_path(1, 100, 3, 1150, 7500, 2);
	ck_assert_uint_eq(h[0].request_ns, 2400 - 1150);
	expect_call(&h[1], 2400, 7200);
}
END_TEST

/*
 * One request written in two calls (50 bytes, then 50), answered once:
 * the second call was not a request of its own. When the client writes
 * again, it is folded into the first: one path of 100 bytes, as without
 * pipelining; the next request, never answered, is counted so.
 */
START_TEST(pipelined_fold)
{
	pipelined_in(2, 50);
	serve(201, 0);
	io(100, 100, false, 3, 200, 1300, 5900);
	io(100, 100, true, 3, 100, 6000, 6100);
	flushed(1);
	expect_path(0, 100, 3, 1000, 5900, 2);
	expect_bytes(&got_hops[0][0], 100, 200);
	expect_times(&got_hops[0][0], 300, 1100, 100);
	ck_assert_uint_eq(got_hops[0][1].self_ns, 3100);
	ck_assert_uint_eq(counts().paths, 1);
	ck_assert_uint_eq(counts().no_response, 1);
	ck_assert_uint_eq(counts().no_cause, 0);
}
END_TEST

/* A non-blocking connect of @fd by thread @tid of @pid: under way (EINPROGRESS) at @end. */
static void dial(pid_t pid, pid_t tid, int fd, uint64_t start, uint64_t end)
{
	struct ipcperf_syscall ev = {
		.start_ns = start, .end_ns = end, .pid = pid, .tid = tid, .nr = SYS_connect,
		.name = "connect", .cls = IPCPERF_SC_FD_OTHER, .fd = fd, .ret = -EINPROGRESS,
		.nr_args = 3, .out_fd = -1,
	};

	ev.args[0] = (uint64_t)fd;
	feed(&ev);
}

/* In the request's turn the proxy connects fd 7 to the backend; a wait says writable at 2000. */
static void connect_for_request(void)
{
	dial(200, 201, 7, 1300, 1350);
	wait_ready(200, 201, 1400, 2000);
}

/*
 * nginx's way with a request: in the turn it reads it, it starts a
 * non-blocking connect to the backend; it writes the request there in a
 * later turn, when a wait says the socket is writable. The connect made in
 * the request's turn carries the request to that write.
 */
START_TEST(connect_then_wait)
{
	request_in();
	connect_for_request();
	backend_call(201, 0);
	io(300, 301, true, 5, 200, 5400, 5500);
	wait_ready(200, 201, 2350, 5550);
	io(200, 201, false, 7, 200, 5560, 5600);
	proxy_answer(201, 0);
	client_reads();
	expect_whole_chain();
	ck_assert_int_eq(got_hops[0][1].caller_fd, 7);
	ck_assert_uint_eq(got_hops[0][0].self_ns, 1200);
	ck_assert_uint_eq(counts().no_cause, 0);
}
END_TEST

/*
 * A client that is not traced: the proxy accepted its connection, reads a
 * request no traced write sent, calls the backend in that turn and
 * answers; then a second request, its call made after a connect in a
 * later turn. Each request read is counted as from a client not traced;
 * the proxy, which served no traced caller, is the originator of its calls
 * to the backend: two paths proxy -> backend.
 */
START_TEST(untraced_client)
{
	struct ipcperf_paths_stats ps;

	accepted(200, 5, 1002, 1001, 400);
	io(200, 201, false, 5, 100, 500, 1200);
	serve(201, 0);
	io(200, 201, false, 5, 100, 6000, 6100);
	dial(200, 201, 7, 6200, 6300);
	wait_ready(200, 201, 6400, 7000);
	serve(201, 5000);
	flushed(2);
	for (size_t i = 0; i < 2; i++) {
		ck_assert_int_eq(got[i].pid, 200);
		ck_assert_int_eq(got_hops[i][0].pid, 300);
		ck_assert_uint_eq(got_hops[i][0].self_ns, 3100);
	}
	ps = counts();
	ck_assert_uint_eq(ps.untraced_client, 2);
	ck_assert_uint_eq(ps.no_cause, 0);
	ck_assert_uint_eq(ps.paths, 2);
	ck_assert_uint_eq(ps.no_response + ps.untraced_hop + ps.unread + ps.lost + ps.late, 0);
}
END_TEST

/*
 * The proxy reads @n requests of 100 B [@read_start, @read_end] and answers
 * them, 200 B each, in one write from @write_start.
 */
static void answer_at_once(int n, uint64_t read_start, uint64_t read_end, uint64_t write_start)
{
	io(200, 201, false, 5, 100 * n, read_start, read_end);
	io(200, 201, true, 5, 200 * n, write_start, write_start + 100);
}

/*
 * A server that reads what came and answers it at once: three requests
 * written back to back; the proxy reads the first two in one read and
 * answers them in one write, then reads the third and answers it. Its
 * second answer cannot be told from the second request's own: the three
 * are counted (pipelined), none handed out.
 */
START_TEST(pipelined_unpaired)
{
	struct ipcperf_paths_stats ps;

	client_writes(3, 100);
	answer_at_once(2, 500, 1260, 2000);
	answer_at_once(1, 2200, 2300, 2400);
	io(100, 100, false, 3, 600, 1500, 2600);
	flushed(0);
	ps = counts();
	ck_assert_uint_eq(ps.paths, 0);
	ck_assert_uint_eq(ps.pipelined, 3);
	ck_assert_uint_eq(ps.no_response + ps.unread + ps.no_cause, 0);
}
END_TEST

/* The path of the client @pid, of those handed out. */
static const struct ipcperf_path *path_of(pid_t pid)
{
	for (size_t i = 0; i < nr_got; i++)
		if (got[i].pid == pid)
			return &got[i];
	ck_abort_msg("no path of pid %d", (int)pid);
	return NULL;
}

/*
 * A proxy that opens a backend connection as it accepts a client: it read
 * client A's request (1200), then accepted client B (1300) and connected
 * fd 7 (1350) for B, then read B's request (1450). Its first write on fd 7
 * (2200) is B's request's call, not A's: the accept ended A's turn.
 */
START_TEST(connect_after_accept)
{
	request_in();
	accepted(200, 9, 3002, 3001, 1300);
	dial(200, 201, 7, 1350, 1360);
	io(400, 400, true, 3, 100, 1320, 1330);
	io(200, 201, false, 9, 100, 1400, 1450);
	backend_call(201, 0);
	io(300, 301, true, 5, 200, 5400, 5500);
	io(200, 201, false, 7, 200, 5560, 5600);
	io(200, 201, true, 9, 200, 5700, 5800);
	io(400, 400, false, 3, 200, 1340, 5900);
	flushed(1);
	ck_assert_int_eq(got[0].pid, 400);
	ck_assert_uint_eq(got[0].nr_hops, 2);
	ck_assert_int_eq(got_hops[0][1].caller_fd, 7);
	ck_assert_uint_eq(got_hops[0][0].self_ns, 5800 - 1450 - (5600 - 2200));
	ck_assert_uint_eq(counts().no_response, 1);
}
END_TEST

/*
 * The proxy reads a 200 B answer on its fd @from [@read_start, @read_end] and
 * writes it on @to [@write_start, @write_end].
 */
static void relay(int from, int to, uint64_t read_start, uint64_t read_end, uint64_t write_start,
		  uint64_t write_end)
{
	io(200, 201, false, from, 200, read_start, read_end);
	io(200, 201, true, to, 200, write_start, write_end);
}

/*
 * Two requests in one nginx worker: A (client 100, on the proxy's fd 5)
 * and B (client 110, fd 6), each connected for in its own turn (fds 7 and
 * 8). One wait returns B's request and fd 7 writable: the worker reads B,
 * connects for it, then writes A's request on fd 7 in B's turn. That write
 * is A's (its fd was connected for A), not B's, though the thread holds B.
 */
START_TEST(connect_other_turn)
{
	const struct ipcperf_path *a, *b;

	name_sock(110, 3, 1003, 1004);
	name_sock(200, 6, 1004, 1003);
	name_sock(200, 8, 2003, 2004);
	name_sock(300, 6, 2004, 2003);
	request_in();
	dial(200, 201, 7, 1300, 1350);
	io(110, 110, true, 3, 100, 1400, 1500);
	wait_ready(200, 201, 1360, 1600);
	io(200, 201, false, 6, 100, 1650, 1700);
	dial(200, 201, 8, 1750, 1800);
	io(200, 201, true, 7, 100, 1850, 1900);
	io(300, 301, false, 5, 100, 600, 2000);
	wait_ready(200, 201, 1950, 2100);
	io(200, 201, true, 8, 100, 2150, 2200);
	io(300, 301, true, 5, 200, 5000, 5100);
	wait_ready(200, 201, 2250, 5150);
	io(300, 301, false, 6, 100, 5150, 5200);
	relay(7, 5, 5160, 5210, 5220, 5300);
	io(100, 100, false, 3, 200, 1200, 5400);
	io(300, 301, true, 6, 200, 8000, 8100);
	wait_ready(200, 201, 5350, 8150);
	relay(8, 6, 8160, 8200, 8210, 8300);
	io(110, 110, false, 3, 200, 1600, 8400);
	flushed(2);
	a = path_of(100);
	b = path_of(110);
	ck_assert_uint_eq(a->nr_hops, 2);
	ck_assert_uint_eq(b->nr_hops, 2);
	ck_assert_int_eq(a->hops[1].caller_fd, 7);
	ck_assert_int_eq(a->hops[1].fd, 5);
	ck_assert_uint_eq(a->hops[1].self_ns, 5100 - 2000);
	ck_assert_int_eq(b->hops[1].caller_fd, 8);
	ck_assert_int_eq(b->hops[1].fd, 6);
	ck_assert_uint_eq(b->hops[1].self_ns, 8100 - 5200);
	ck_assert_uint_eq(counts().no_cause, 0);
}
END_TEST

/* A close of @fd by thread @tid of @pid, [@start, @end]. */
static void shut(pid_t pid, pid_t tid, int fd, uint64_t start, uint64_t end)
{
	struct ipcperf_syscall ev = {
		.start_ns = start, .end_ns = end, .pid = pid, .tid = tid, .nr = SYS_close,
		.name = "close", .cls = IPCPERF_SC_FD_CLOSE, .fd = fd, .nr_args = 1, .out_fd = -1,
	};

	ev.args[0] = (uint64_t)fd;
	feed(&ev);
}

/*
 * nginx closes its connection to the backend once it has read the length
 * the answer announced, never reading the end of file; ab closes its own
 * after the answer. Those closes complete the request: it goes out before
 * the flush. The backend's close (before nginx read the answer) and nginx's
 * close of the client's connection (before ab read it) end nothing.
 */
START_TEST(close_completes)
{
	request_in();
	connect_for_request();
	backend_call(201, 0);
	io(300, 301, true, 5, 200, 5400, 5500);
	shut(300, 301, 5, 5510, 5520);
	wait_ready(200, 201, 2350, 5550);
	io(200, 201, false, 7, 200, 5560, 5600);
	shut(200, 201, 7, 5610, 5650);
	proxy_answer(201, 0);
	shut(200, 201, 5, 5810, 5820);
	client_reads();
	shut(100, 100, 3, 6000, 6010);
	tick(30 * MS);
	ck_assert_uint_eq(nr_got, 1);
	ck_assert_uint_eq(got[0].nr_hops, 2);
	ck_assert_uint_eq(got[0].end_ns, 5900);
	ck_assert_uint_eq(got_hops[0][1].response_bytes, 200);
	ck_assert_uint_eq(got_hops[0][1].self_ns, 3100);
	flushed(1);
	ck_assert_uint_eq(counts().paths, 1);
}
END_TEST

/* src writes a 64 B record [@start, @start + 100]; the stage reads it [@read_start, @read_end]. */
static void record_in(uint64_t start, uint64_t read_start, uint64_t read_end)
{
	io(500, 500, true, 1, 64, start, start + 100);
	io(600, 600, false, 0, 64, read_start, read_end);
}

/* The stage writes @bytes [@start, @start + 100]; the sink reads them [600, @read_end]. */
static void record_out(int64_t bytes, uint64_t start, uint64_t read_end)
{
	io(600, 600, true, 1, bytes, start, start + 100);
	io(700, 700, false, 0, bytes, 600, read_end);
}

/*
 * A record down the pipeline: src writes 64 B [1000, 1100]; the stage's
 * read [500, 1300] takes it (channel 300), its write on [3300, 3400]
 * passes it on (self 2000); the sink's read [600, 3600] takes that
 * (channel 300). End to end 3600 - 1000 = 2600, their sum.
 */
START_TEST(pipe_chain)
{
	const struct ipcperf_path_hop *h = got_hops[0];

	record_in(1000, 500, 1300);
	record_out(64, 3300, 3600);
	flushed(1);
	expect_path(0, 500, 1, 1000, 3600, 2);
	expect_hop(&h[0], -1, 600, 0, 500, 1);
	ck_assert_int_eq(h[0].kind, IPCPERF_FD_PIPE);
	expect_bytes(&h[0], 64, 0);
	expect_call(&h[0], 1000, 3300);
	ck_assert_uint_eq(h[0].start_ns, 1300);
	ck_assert_uint_eq(h[0].end_ns, 3300);
	expect_times(&h[0], 300, 2000, 0);
	expect_hop(&h[1], 0, 700, 0, 600, 1);
	ck_assert_uint_eq(h[1].call_start_ns, 3300);
	ck_assert_uint_eq(h[1].start_ns, 3600);
	ck_assert_uint_eq(h[1].end_ns, 3600);
	ck_assert_uint_eq(h[1].request_ns, 300);
	ck_assert_uint_eq(h[1].self_ns, 0);
	ck_assert_uint_eq(counts().paths, 1);
}
END_TEST

/* The records the stages merged into one write, and those they split over several. */
static void expect_pieces(uint64_t merged, uint64_t split)
{
	struct ipcperf_paths_stats ps = counts();

	ck_assert_uint_eq(ps.merged, merged);
	ck_assert_uint_eq(ps.split, split);
}

/* The stage reads two records, then writes them in one call: both are merged. */
START_TEST(pipe_merged)
{
	record_in(1000, 500, 1200);
	record_in(2000, 1300, 2200);
	record_out(128, 3000, 3200);
	flushed(0);
	expect_pieces(2, 0);
}
END_TEST

/* The stage writes a record in two calls: it is split. */
START_TEST(pipe_split)
{
	record_in(1000, 500, 1200);
	io(600, 600, true, 1, 32, 2000, 2100);
	io(600, 600, true, 1, 32, 2200, 2300);
	io(700, 700, false, 0, 64, 600, 2400);
	flushed(0);
	expect_pieces(0, 1);
}
END_TEST

/*
 * The stage writes what it read to a pipe no traced process reads (its
 * stderr, say): whether it merged is not seen, and nothing goes on from it
 * in sight: the records end there, as at a sink, and its second piece of a
 * line is no split either.
 */
START_TEST(pipe_out_of_sight)
{
	record_in(1000, 500, 1200);
	record_in(2000, 1300, 2200);
	io(600, 600, true, 2, 128, 3000, 3100);
	io(600, 600, true, 2, 10, 3200, 3300);
	flushed(2);
	ck_assert_uint_eq(counts().merged + counts().split + counts().untraced_hop, 0);
	ck_assert_uint_eq(got[0].nr_hops, 1);
	ck_assert_int_eq(got[0].hops[0].pid, 600);
	ck_assert_uint_eq(got[0].hops[0].self_ns, 0);
	ck_assert_uint_eq(got[0].end_ns - got[0].start_ns, got[0].hops[0].request_ns);
	ck_assert_uint_eq(got[0].end_ns + got[1].end_ns, 1200 + 2200);
}
END_TEST

/*
 * Writes into a pipe that no traced process reads are not kept to the end:
 * a message more than 1 MiB and a second behind the pipe's last write was
 * read out of sight, and is counted then (untraced).
 */
START_TEST(pipe_read_out_of_sight)
{
	io(600, 600, true, 2, 64, 1000, 1100);
	io(600, 600, true, 2, 1 << 20, 500 * MS, 500 * MS + 100);
	io(600, 600, true, 2, 64, 1200 * MS, 1200 * MS + 100);
	tick(1300 * MS);
	ck_assert_uint_eq(counts().untraced_hop, 1);
	ck_assert_int_eq(ipcperf_paths__flush(pa), 0);
	ck_assert_uint_eq(counts().untraced_hop, 3);
	ck_assert_uint_eq(nr_got, 0);
}
END_TEST

/*
 * The stage hands the record to another thread of its own through a pipe
 * (pipe:[5004], fds 3 and 4): a hand-off inside one process, not a stage:
 * the record is not followed, and counted as no_cause.
 */
START_TEST(pipe_hand_off_inside)
{
	record_in(1000, 500, 1200);
	io(600, 600, true, 3, 64, 2000, 2100);
	io(600, 602, false, 4, 64, 1500, 2200);
	flushed(0);
	ck_assert_uint_eq(counts().no_cause, 1);
	ck_assert_uint_eq(counts().paths + counts().untraced_hop + counts().merged, 0);
}
END_TEST

/* ------------------------------------------------------------------ a drifting clock */

static void bounds_at(struct ipp_clockfit *f, uint64_t t, int64_t up, int64_t lo)
{
	ck_assert_int_eq(ipp_clockfit__add(f, t, up, true), 0);
	ck_assert_int_eq(ipp_clockfit__add(f, t, lo, false), 0);
}

/* The line of @f's bounds: its rate, time of reference, offset there and uncertainty. */
static void expect_line(struct ipp_clockfit *f, int64_t ppb, uint64_t ref, int64_t offset,
			uint64_t uncertainty)
{
	struct ipp_clockline l;

	ck_assert_int_eq(ipp_clockfit__line(f, &l), 0);
	ck_assert(l.fits);
	ck_assert_int_eq(l.drift_ppb, ppb);
	ck_assert_uint_eq(l.ref_ns, ref);
	ck_assert_int_eq(l.offset_ns, offset);
	ck_assert_uint_eq(l.uncertainty_ns, uncertainty);
	ipp_clockfit__fini(f);
}

/* Bounds 100 ns apart along 100 ns a second: that line, +-50 ns at either end. */
START_TEST(clock_drift_line)
{
	struct ipp_clockfit f = { 0 };

	bounds_at(&f, 1000000000, 100, 0);
	bounds_at(&f, 11000000000, 1100, 1000);
	/* at either end, the lines that fit reach from 0 to 100: 50 from the middle one */
	expect_line(&f, 100, 6000000000, 550, 50);
}
END_TEST

/* 100,000 crossings over 1,000 s: the windows widen, the line stays. */
START_TEST(clock_drift_widened)
{
	struct ipp_clockfit f = { 0 };

	for (uint64_t i = 0; i <= 100000; i++) {
		uint64_t t = 5000000000 + i * 10000000;
		/* 7 us less 250 ns each second, bounds 40 ns either side */
		int64_t truth = 7000 - (int64_t)(i * 10000000 / 4000000);

		bounds_at(&f, t, truth + 40, truth - 40);
	}
	ck_assert_uint_gt(f.width, 100000000);
	expect_line(&f, -250, 505000000000, 7000 - 125000, 40);
}
END_TEST

/* No line under 0 all along and over 10 in the middle; no rate from one time. */
START_TEST(clock_drift_none)
{
	struct ipp_clockfit f = { 0 };
	struct ipp_clockline l;

	/* none yet */
	ck_assert_int_eq(ipp_clockfit__line(&f, &l), 0);
	ck_assert(!l.fits);
	for (int i = 0; i < 2; i++) {
		/* under 0 at 1 s and 11 s; over 10 at 6 s */
		ck_assert_int_eq(ipp_clockfit__add(&f, 1000000000 + i * 10000000000ull, 0, true), 0);
	}
	ck_assert_int_eq(ipp_clockfit__add(&f, 6000000000, 10, false), 0);
	ck_assert(ipp_clockfit__line(&f, &l) == 0 && !l.fits);
	ipp_clockfit__fini(&f);
	/* all at one time: any rate fits */
	bounds_at(&f, 1000000000, 100, 0);
	ck_assert(ipp_clockfit__line(&f, &l) == 0 && !l.fits);
	ipp_clockfit__fini(&f);
}
END_TEST

Suite *paths_suite(void)
{
	Suite *s = suite_create("paths");
	TCase *tp = new_tcase(s, "pipes", setup, teardown);
	TCase *tc = new_tcase(s, "chain", setup, teardown);
	TCase *tk = new_tcase(s, "clock", NULL, NULL);

	tcase_add_test(tc, chain_thread);
	tcase_add_test(tc, self_split);
	tcase_add_test(tc, self_not_split);
	tcase_add_test(tc, pool_hand_off);
	tcase_add_test(tc, pool_no_wakeup);
	tcase_add_test(tc, woken_but_no_worker);
	tcase_add_test(tc, turn_ended);
	tcase_add_test(tc, turn_before_read);
	tcase_add_test(tc, no_response);
	tcase_add_test(tc, next_request_completes);
	tcase_add_test(tc, closed_completes);
	tcase_add_test(tc, half_close);
	tcase_add_test(tc, accepted_end_writes_first);
	tcase_add_test(tc, answer_returns_late);
	tcase_add_test(tc, request_returns_late);
	tcase_add_test(tc, pipelined_pair);
	tcase_add_test(tc, pipelined_passed_on);
	tcase_add_test(tc, pipelined_fold);
	tcase_add_test(tc, pipelined_unpaired);
	tcase_add_test(tc, connect_then_wait);
	tcase_add_test(tc, connect_other_turn);
	tcase_add_test(tc, connect_after_accept);
	tcase_add_test(tc, untraced_client);
	tcase_add_test(tc, close_completes);
	tcase_add_test(tp, pipe_chain);
	tcase_add_test(tp, pipe_merged);
	tcase_add_test(tp, pipe_split);
	tcase_add_test(tp, pipe_out_of_sight);
	tcase_add_test(tp, pipe_read_out_of_sight);
	tcase_add_test(tp, pipe_hand_off_inside);
	tcase_add_test(tk, clock_drift_line);
	tcase_add_test(tk, clock_drift_widened);
	tcase_add_test(tk, clock_drift_none);
	return s;
}
