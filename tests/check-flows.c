/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests of flow correlation (lib/flows/flows.c) through the public API.
 *
 * A stats object made with no_proc learns what each fd is only from
 * ipcperf_stats__set_fd_identity() (and from the fd events it is fed: fork,
 * dup2, close); the flows object asks it. Only the "proc" test case lets the
 * stats read /proc, of this test's own process (no root needed), to replay
 * what late lookups do to fds whose numbers were reused. Every hand-built syscall goes to
 * the stats first and then to the flows, the order the engine uses. Events
 * are fed in the order the calls finish (end_ns), as the engine delivers them.
 *
 * Every expected number below is worked out by hand from the events: bytes by
 * byte offset (the k-th byte written is the k-th byte read, doc/accuracy.md rule 6),
 * datagrams message by message, wire time = read end - write start (never 0:
 * a read can end before its write returns, never before it started; at
 * least 1 ns), occupancy = written - read, and the verdict rule of
 * ipcperf_flows__new(): idle when no byte went in or out, else
 * backpressure when W > 2R and W >= 1 ms,
 * consumer-starved when R > 2W and R >= 1 ms, balanced otherwise.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <check.h>

#include <ipcperf/ipcperf.h>
#include "check-helpers.h"
#include "suites.h"

/* ------------------------------------------------------------------ fixture */

static struct ipcperf_stats *st;
static struct ipcperf_flows *fl;

/* Every match the callback got, copied (the callback's data lives only during the call). */
#define MAX_MATCHES 256
struct match_rec {
	struct ipcperf_flow_match m;
	char object[64];
};
static struct match_rec matches[MAX_MATCHES];
static size_t nr_matches;

static void on_match(void *ctx, const struct ipcperf_flow_match *m)
{
	ck_assert_ptr_eq(ctx, matches);
	ck_assert_msg(nr_matches < MAX_MATCHES, "too many matches");
	matches[nr_matches].m = *m;
	ck_assert_ptr_nonnull(m->object);
	snprintf(matches[nr_matches].object, sizeof(matches[nr_matches].object), "%s", m->object);
	matches[nr_matches].m.object = NULL;
	nr_matches++;
}

/* Stats and flows that look fds up in /proc unless @no_proc; matches go to matches[]. */
static void setup_matching(bool no_proc)
{
	flows_fixture_new(&st, &fl, no_proc);
	nr_matches = 0;
	ck_assert_int_eq(ipcperf_flows__on_match(fl, on_match, matches), 0);
}

static void setup(void)
{
	setup_matching(true);
}

static void teardown(void)
{
	flows_fixture_delete(&st, &fl);
}

/* ------------------------------------------------------------------ naming fds */

/* @pid's @fd is an end of pipe:[@ino] holding @cap bytes (0: unknown). */
static void name_pipe(pid_t pid, int fd, uint64_t ino, int64_t cap)
{
	char obj[64];

	snprintf(obj, sizeof(obj), "pipe:[%llu]", (unsigned long long)ino);
	IPCPERF_OPTS(ipcperf_fd_identity, id, .object = obj, .kind = IPCPERF_FD_PIPE, .ino = ino,
		     .capacity = cap);
	ck_assert_int_eq(ipcperf_stats__set_fd_identity(st, pid, fd, &id), 0);
}

/* The two ends of pipe:[@ino] (@cap bytes, 0: unknown): @pid_a's @fd_a and @pid_b's @fd_b. */
static void name_pipe_ends(pid_t pid_a, int fd_a, pid_t pid_b, int fd_b, uint64_t ino, int64_t cap)
{
	name_pipe(pid_a, fd_a, ino, cap);
	name_pipe(pid_b, fd_b, ino, cap);
}

/* @pid's @fd is socket:[@ino] of @kind, connected to socket:[@peer]. */
static void name_sock(pid_t pid, int fd, enum ipcperf_fd_kind kind, uint64_t ino, uint64_t peer,
		      int type, int64_t cap)
{
	char obj[64];

	snprintf(obj, sizeof(obj), "socket:[%llu]", (unsigned long long)ino);
	IPCPERF_OPTS(ipcperf_fd_identity, id, .object = obj, .kind = kind, .ino = ino,
		     .peer_ino = peer, .sock_type = type, .capacity = cap);
	ck_assert_int_eq(ipcperf_stats__set_fd_identity(st, pid, fd, &id), 0);
}

/* A connected unix socketpair: @pa's @fa is socket:[@a], @pb's @fb is socket:[@b]. */
static void name_socketpair(pid_t pa, int fa, uint64_t a, pid_t pb, int fb, uint64_t b, int type)
{
	name_sock(pa, fa, IPCPERF_FD_UNIX, a, b, type, 0);
	name_sock(pb, fb, IPCPERF_FD_UNIX, b, a, type, 0);
}

/* ------------------------------------------------------------------ feeding */

static void feed(const struct ipcperf_syscall *ev)
{
	ipcperf_stats__add_syscall(st, ev);
	ipcperf_flows__add_syscall(fl, ev);
}

/* One read or write call of thread @tid of @pid on @fd, [start, end], returning @ret. */
static void io_t(pid_t pid, pid_t tid, enum ipcperf_sc_class cls, int fd, int64_t ret,
		 uint64_t start, uint64_t end, uint64_t blocked)
{
	bool w = cls == IPCPERF_SC_WRITE;
	struct ipcperf_syscall ev = {
		.start_ns = start, .end_ns = end, .pid = pid, .tid = tid, .cpu = 0,
		.nr = w ? SYS_write : SYS_read, .name = w ? "write" : "read", .cls = cls,
		.fd = fd, .count = ret > 0 ? (uint64_t)ret : 4096, .ret = ret,
		.nr_args = 3, .blocked_ns = blocked, .off_cpu_ns = blocked,
		.switches = blocked ? 1 : 0,
	};

	ck_assert_msg(end >= start, "bad test: call ends before it starts");
	ev.args[0] = (uint64_t)fd;
	ev.args[1] = 0x7ffd1000;
	ev.args[2] = ev.count;
	feed(&ev);
}

static void wr(pid_t pid, int fd, int64_t ret, uint64_t start, uint64_t end)
{
	io_t(pid, pid, IPCPERF_SC_WRITE, fd, ret, start, end, 0);
}

static void rd(pid_t pid, int fd, int64_t ret, uint64_t start, uint64_t end)
{
	io_t(pid, pid, IPCPERF_SC_READ, fd, ret, start, end, 0);
}

static void wr_blocked(pid_t pid, int fd, int64_t ret, uint64_t start, uint64_t end,
		       uint64_t blocked)
{
	io_t(pid, pid, IPCPERF_SC_WRITE, fd, ret, start, end, blocked);
}

static void rd_blocked(pid_t pid, int fd, int64_t ret, uint64_t start, uint64_t end,
		       uint64_t blocked)
{
	io_t(pid, pid, IPCPERF_SC_READ, fd, ret, start, end, blocked);
}

static void do_close(pid_t pid, int fd, uint64_t at)
{
	struct ipcperf_syscall ev = {
		.start_ns = at, .end_ns = at + 100, .pid = pid, .tid = pid, .nr = SYS_close,
		.name = "close", .cls = IPCPERF_SC_FD_CLOSE, .fd = fd, .ret = 0, .nr_args = 1,
	};

	ev.args[0] = (uint64_t)fd;
	feed(&ev);
}

static void do_dup2(pid_t pid, int oldfd, int newfd, uint64_t at)
{
	struct ipcperf_syscall ev = {
		.start_ns = at, .end_ns = at + 100, .pid = pid, .tid = pid, .nr = SYS_dup3,
		.name = "dup3", .cls = IPCPERF_SC_FD_DUP2, .fd = oldfd, .ret = newfd, .nr_args = 3,
	};

	ev.args[0] = (uint64_t)oldfd;
	ev.args[1] = (uint64_t)newfd;
	ev.args[2] = 0;
	feed(&ev);
}

static void do_fork(pid_t parent, pid_t child, uint64_t at)
{
	struct ipcperf_task t = {
		.kind = IPCPERF_TASK_FORK, .time_ns = at, .pid = parent, .tid = parent,
		.child_tid = child, .comm = "child",
	};

	ipcperf_stats__add_task(st, &t);
}

/* ------------------------------------------------------------------ reading flows */

#define MAX_FLOWS 16
#define MAX_PIDS 8
struct flow_rec {
	struct ipcperf_flow f;
	char object[64];
	char untraced_comm[IPCPERF_COMM_LEN];
	pid_t writers[MAX_PIDS], readers[MAX_PIDS];
};
static struct flow_rec flows[MAX_FLOWS];
static size_t nr_flows;

static int collect(void *ctx, const struct ipcperf_flow *f)
{
	struct flow_rec *r;

	ck_assert_ptr_eq(ctx, flows);
	ck_assert_msg(nr_flows < MAX_FLOWS, "too many flows");
	ck_assert_uint_le(f->nr_writers, MAX_PIDS);
	ck_assert_uint_le(f->nr_readers, MAX_PIDS);
	r = &flows[nr_flows++];
	memset(r, 0, sizeof(*r));
	r->f = *f;
	ck_assert_ptr_nonnull(f->object);
	snprintf(r->object, sizeof(r->object), "%s", f->object);
	ck_assert_ptr_nonnull(f->untraced_comm);
	snprintf(r->untraced_comm, sizeof(r->untraced_comm), "%s", f->untraced_comm);
	r->f.untraced_comm = NULL;
	if (f->nr_writers)
		memcpy(r->writers, f->writers, f->nr_writers * sizeof(pid_t));
	if (f->nr_readers)
		memcpy(r->readers, f->readers, f->nr_readers * sizeof(pid_t));
	r->f.object = NULL;
	r->f.writers = r->f.readers = NULL;
	return 0;
}

/* Walk the flows into flows[]; @return their number. */
static size_t snapshot(void)
{
	nr_flows = 0;
	ck_assert_int_eq(ipcperf_flows__for_each(fl, collect, flows), 0);
	return nr_flows;
}

/* The one flow of the walk (asserts there is exactly one). */
static const struct flow_rec *only_flow(void)
{
	ck_assert_uint_eq(snapshot(), 1);
	return &flows[0];
}

static const struct flow_rec *flow_of(uint64_t ino)
{
	for (size_t i = 0; i < nr_flows; i++)
		if (flows[i].f.ino == ino)
			return &flows[i];
	ck_abort_msg("no flow with ino %llu", (unsigned long long)ino);
	return NULL;
}

static void assert_pids(const pid_t *got, size_t n, const pid_t *want, size_t nw, const char *what)
{
	ck_assert_msg(n == nw, "%s: %zu pids, want %zu", what, n, nw);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(got[i] == want[i], "%s[%zu] = %d, want %d", what, i, (int)got[i],
			      (int)want[i]);
}

#define ASSERT_WRITERS(r, ...) do { \
	const pid_t want_[] = { __VA_ARGS__ }; \
	assert_pids((r)->writers, (r)->f.nr_writers, want_, sizeof(want_) / sizeof(pid_t), "writers"); \
} while (0)
#define ASSERT_READERS(r, ...) do { \
	const pid_t want_[] = { __VA_ARGS__ }; \
	assert_pids((r)->readers, (r)->f.nr_readers, want_, sizeof(want_) / sizeof(pid_t), "readers"); \
} while (0)

/* Flow @r is written by @writer alone and read by @reader alone. */
static void expect_ends(const struct flow_rec *r, pid_t writer, pid_t reader)
{
	ASSERT_WRITERS(r, writer);
	ASSERT_READERS(r, reader);
}

/* The bytes written into flow @r and read out of it. */
static void expect_bytes(const struct flow_rec *r, uint64_t written, uint64_t read)
{
	ck_assert_uint_eq(r->f.bytes_written, written);
	ck_assert_uint_eq(r->f.bytes_read, read);
}

/* Flow @r's successful writes and reads, and the bytes they moved. */
static void expect_io(const struct flow_rec *r, uint64_t writes, uint64_t reads, uint64_t written,
		      uint64_t read)
{
	ck_assert_uint_eq(r->f.writes, writes);
	ck_assert_uint_eq(r->f.reads, reads);
	expect_bytes(r, written, read);
}

/* The shortest and longest wire time of flow @r's matches. */
static void expect_wire(const struct flow_rec *r, uint64_t min, uint64_t max)
{
	ck_assert_uint_eq(r->f.wire_ns.min, min);
	ck_assert_uint_eq(r->f.wire_ns.max, max);
}

/* The time flow @r's writers and its readers spent blocked in its calls. */
static void expect_blocked(const struct flow_rec *r, uint64_t writer, uint64_t reader)
{
	ck_assert_uint_eq(r->f.writer_blocked_ns, writer);
	ck_assert_uint_eq(r->f.reader_blocked_ns, reader);
}

/* A percentile from the log-linear histogram: within 1/64 of the sample @want. */
#define ck_assert_near(got, want) do { \
	uint64_t g_ = (got), w_ = (want), d_ = g_ > w_ ? g_ - w_ : w_ - g_; \
	ck_assert_msg(d_ * 64 <= w_, "%s = %llu, want %llu within 1/64", #got, \
		      (unsigned long long)g_, (unsigned long long)w_); \
} while (0)

/*
 * Match @i is @bytes of @wpid's write [ws, we] taken by @rpid's read [rs, re],
 * leaving @queued bytes in the channel after the read. Only the one test of
 * that field checks it on a match that is not the last piece of its read
 * (ANY_QUEUED elsewhere), so that a fault there fails one test, not many.
 */
#define ANY_QUEUED UINT64_MAX
static void assert_match(size_t i, pid_t wpid, uint64_t ws, uint64_t we, pid_t rpid, uint64_t rs,
			 uint64_t re, uint64_t bytes, uint64_t queued)
{
	const struct ipcperf_flow_match *m;

	ck_assert_msg(i < nr_matches, "match %zu missing (%zu matches)", i, nr_matches);
	m = &matches[i].m;
	ck_assert_msg(m->wpid == wpid && m->wtid == wpid, "match %zu: writer %d/%d, want %d", i,
		      (int)m->wpid, (int)m->wtid, (int)wpid);
	ck_assert_msg(m->rpid == rpid && m->rtid == rpid, "match %zu: reader %d/%d, want %d", i,
		      (int)m->rpid, (int)m->rtid, (int)rpid);
	ck_assert_msg(m->write_start_ns == ws && m->write_end_ns == we,
		      "match %zu: write [%llu, %llu], want [%llu, %llu]", i,
		      (unsigned long long)m->write_start_ns, (unsigned long long)m->write_end_ns,
		      (unsigned long long)ws, (unsigned long long)we);
	ck_assert_msg(m->read_start_ns == rs && m->read_end_ns == re,
		      "match %zu: read [%llu, %llu], want [%llu, %llu]", i,
		      (unsigned long long)m->read_start_ns, (unsigned long long)m->read_end_ns,
		      (unsigned long long)rs, (unsigned long long)re);
	ck_assert_msg(m->bytes == bytes, "match %zu: %llu bytes, want %llu", i,
		      (unsigned long long)m->bytes, (unsigned long long)bytes);
	ck_assert_msg(queued == ANY_QUEUED || m->queued == queued,
		      "match %zu: queued %llu, want %llu", i,
		      (unsigned long long)m->queued, (unsigned long long)queued);
}

/* ------------------------------------------------------------------ byte streams */

/* write 100, then reads of 30 and 70: two matches of the one write. */
START_TEST(test_partial_reads)
{
	const struct flow_rec *r;

	name_pipe_ends(10, 4, 20, 3, 5000, 65536);
	wr(10, 4, 100, 1000, 1100);
	rd(20, 3, 30, 1200, 1300);
	rd(20, 3, 70, 1400, 1500);

	ck_assert_uint_eq(nr_matches, 2);
	assert_match(0, 10, 1000, 1100, 20, 1200, 1300, 30, 70);
	assert_match(1, 10, 1000, 1100, 20, 1400, 1500, 70, 0);
	ck_assert_str_eq(matches[0].object, "pipe:[5000]");
	ck_assert_str_eq(matches[1].object, "pipe:[5000]");

	r = only_flow();
	ck_assert_str_eq(r->object, "pipe:[5000]");
	ck_assert_int_eq(r->f.kind, IPCPERF_FD_PIPE);
	ck_assert_uint_eq(r->f.ino, 5000);
	ck_assert_uint_eq(r->f.reader_ino, 5000);
	ck_assert(!r->f.datagram);
	expect_ends(r, 10, 20);
	expect_io(r, 1, 2, 100, 100);
	ck_assert_uint_eq(r->f.unmatched_bytes, 0);
	ck_assert_uint_eq(r->f.matches, 2);
	/* wire = read end - write start: 1300 - 1000 and 1500 - 1000 */
	expect_wire(r, 300, 500);
	ck_assert_near(r->f.wire_ns.p50, 300);
	ck_assert_near(r->f.wire_ns.p99, 500);
	ck_assert_int_eq(r->f.capacity, 65536);
	ck_assert(!r->f.capacity_default);
	ck_assert_uint_eq(r->f.max_queued, 100);
	ck_assert_uint_eq(r->f.full_ns, 0);
	ck_assert_uint_eq(r->f.first_ns, 1000);
	ck_assert_uint_eq(r->f.last_ns, 1500);
	ck_assert_int_eq(r->f.verdict, IPCPERF_VERDICT_BALANCED);
}
END_TEST

/* writes of 10, 20, 30, then one read of 60 drains all three. */
START_TEST(test_read_drains_several_writes)
{
	const struct flow_rec *r;

	name_pipe_ends(10, 4, 20, 3, 77, 65536);
	wr(10, 4, 10, 1000, 1010);
	wr(10, 4, 20, 2000, 2020);
	wr(10, 4, 30, 3000, 3030);
	rd(20, 3, 60, 5000, 5100);

	ck_assert_uint_eq(nr_matches, 3);
	ck_assert_uint_eq(matches[0].m.write_end_ns, 1010);
	ck_assert_uint_eq(matches[0].m.bytes, 10);
	ck_assert_uint_eq(matches[1].m.write_end_ns, 2020);
	ck_assert_uint_eq(matches[1].m.bytes, 20);
	ck_assert_uint_eq(matches[2].m.write_end_ns, 3030);
	ck_assert_uint_eq(matches[2].m.bytes, 30);
	for (size_t i = 0; i < 3; i++)
		ck_assert_uint_eq(matches[i].m.read_end_ns, 5100);

	r = only_flow();
	expect_io(r, 3, 1, 60, 60);
	ck_assert_uint_eq(r->f.matches, 3);
	ck_assert_uint_eq(r->f.unmatched_bytes, 0);
	ck_assert_uint_eq(r->f.max_queued, 60);
	/* wire: 5100 - 3000, 5100 - 2000, 5100 - 1000 */
	expect_wire(r, 2100, 4100);
	ck_assert_near(r->f.wire_ns.p50, 3100);
	ck_assert_near(r->f.wire_ns.p99, 4100);
}
END_TEST

/*
 * ipcperf_flow_match.queued is documented as "bytes left in the channel after
 * the read": after the one read of 60 the channel is empty, so every match of
 * that read says 0, not a running count between its pieces.
 */
START_TEST(test_match_queued_is_after_the_read)
{
	name_pipe_ends(10, 4, 20, 3, 77, 65536);
	wr(10, 4, 10, 1000, 1010);
	wr(10, 4, 20, 2000, 2020);
	wr(10, 4, 30, 3000, 3030);
	wr(10, 4, 40, 4000, 4040);
	rd(20, 3, 60, 5000, 5100);	/* leaves the 40 of the last write */

	ck_assert_uint_eq(nr_matches, 3);
	for (size_t i = 0; i < 3; i++)
		ck_assert_msg(matches[i].m.queued == 40,
			      "match %zu of the read of 60: queued %llu, want 40 (left after the read)",
			      i, (unsigned long long)matches[i].m.queued);
}
END_TEST

/*
 * The same when one read drains many writes (a producer of small records, a
 * consumer with a big buffer): 41 writes of 100, one read of 4000 takes the
 * first 40; each of its 40 matches says 100 are left after the read.
 */
START_TEST(test_match_queued_read_drains_many)
{
	uint64_t t = 1000;

	name_pipe_ends(10, 4, 20, 3, 78, 65536);
	for (int i = 0; i < 41; i++, t += 100)
		wr(10, 4, 100, t, t + 10);
	rd(20, 3, 4000, t, t + 50);
	ck_assert_uint_eq(nr_matches, 40);
	for (size_t i = 0; i < nr_matches; i++) {
		ck_assert_uint_eq(matches[i].m.bytes, 100);
		ck_assert_uint_eq(matches[i].m.write_end_ns, 1010 + 100 * i);
		ck_assert_msg(matches[i].m.queued == 100,
			      "match %zu of 40 of one read: queued %llu, want 100 (left after the "
			      "read)", i, (unsigned long long)matches[i].m.queued);
	}
	ck_assert_uint_eq(only_flow()->f.max_queued, 4100);
}
END_TEST

/* One write of 90 drained by three reads of 30; then a 50/50 + 75/25 interleave. */
START_TEST(test_write_drained_by_several_reads)
{
	const struct flow_rec *r;

	name_pipe_ends(10, 4, 20, 3, 88, 0);
	wr(10, 4, 90, 1000, 1100);
	rd(20, 3, 30, 2000, 2100);
	rd(20, 3, 30, 3000, 3100);
	rd(20, 3, 30, 4000, 4100);
	ck_assert_uint_eq(nr_matches, 3);
	assert_match(0, 10, 1000, 1100, 20, 2000, 2100, 30, 60);
	assert_match(1, 10, 1000, 1100, 20, 3000, 3100, 30, 30);
	assert_match(2, 10, 1000, 1100, 20, 4000, 4100, 30, 0);

	/* writes 50 + 50, reads 75 + 25: (w1,r1,50) (w2,r1,25) (w2,r2,25) */
	wr(10, 4, 50, 5000, 5050);
	wr(10, 4, 50, 6000, 6050);
	rd(20, 3, 75, 7000, 7100);
	rd(20, 3, 25, 8000, 8100);
	ck_assert_uint_eq(nr_matches, 6);
	ck_assert_uint_eq(matches[3].m.write_end_ns, 5050);
	ck_assert_uint_eq(matches[3].m.read_end_ns, 7100);
	ck_assert_uint_eq(matches[3].m.bytes, 50);
	ck_assert_uint_eq(matches[4].m.write_end_ns, 6050);
	ck_assert_uint_eq(matches[4].m.read_end_ns, 7100);
	ck_assert_uint_eq(matches[4].m.bytes, 25);
	assert_match(5, 10, 6000, 6050, 20, 8000, 8100, 25, 0);

	r = only_flow();
	expect_io(r, 3, 5, 190, 190);
	ck_assert_uint_eq(r->f.matches, 6);
	ck_assert_uint_eq(r->f.max_queued, 100);
	/* no capacity given: unknown, and no time "full" can be told */
	ck_assert_int_eq(r->f.capacity, -1);
	ck_assert_uint_eq(r->f.full_ns, 0);
	/* wires (read end - write start): 1100 2100 3100 2100 1100 2100 */
	expect_wire(r, 1100, 3100);
	ck_assert_near(r->f.wire_ns.p50, 2100);
}
END_TEST

/* Two processes write into one pipe: both are writers, ascending; each match names its writer. */
START_TEST(test_two_writers_one_pipe)
{
	const struct flow_rec *r;

	name_pipe(300, 5, 42, 65536);	/* writer with the larger pid writes first */
	name_pipe_ends(100, 5, 200, 0, 42, 65536);
	wr(300, 5, 40, 1000, 1040);
	wr(100, 5, 60, 2000, 2060);
	wr(300, 5, 5, 2500, 2505);
	rd(200, 0, 100, 3000, 3100);
	rd(200, 0, 5, 4000, 4100);

	ck_assert_uint_eq(nr_matches, 3);
	assert_match(0, 300, 1000, 1040, 200, 3000, 3100, 40, ANY_QUEUED);
	assert_match(1, 100, 2000, 2060, 200, 3000, 3100, 60, 5);
	assert_match(2, 300, 2500, 2505, 200, 4000, 4100, 5, 0);

	r = only_flow();
	ASSERT_WRITERS(r, 100, 300);
	ASSERT_READERS(r, 200);
	ck_assert_uint_eq(r->f.writes, 3);
	ck_assert_uint_eq(r->f.reads, 2);
	ck_assert_uint_eq(r->f.bytes_read, 105);
	ck_assert_uint_eq(r->f.max_queued, 105);
}
END_TEST

/* Two reader processes share the read end: bytes go to whichever read first. */
START_TEST(test_two_readers_one_pipe)
{
	const struct flow_rec *r;

	name_pipe_ends(10, 4, 30, 3, 43, 65536);
	name_pipe(20, 3, 43, 65536);
	wr(10, 4, 100, 1000, 1100);
	rd(30, 3, 60, 2000, 2100);
	rd(20, 3, 40, 3000, 3100);
	assert_match(0, 10, 1000, 1100, 30, 2000, 2100, 60, 40);
	assert_match(1, 10, 1000, 1100, 20, 3000, 3100, 40, 0);
	r = only_flow();
	ASSERT_WRITERS(r, 10);
	ASSERT_READERS(r, 20, 30);
}
END_TEST

/* Threads: matches carry the tids, the writer/reader lists hold processes. */
START_TEST(test_threads_listed_by_process)
{
	const struct flow_rec *r;
	const struct ipcperf_flow_match *m;

	name_pipe_ends(10, 4, 20, 3, 44, 0);
	io_t(10, 11, IPCPERF_SC_WRITE, 4, 30, 1000, 1100, 0);
	io_t(10, 12, IPCPERF_SC_WRITE, 4, 30, 1200, 1300, 0);
	io_t(20, 21, IPCPERF_SC_READ, 3, 60, 2000, 2100, 0);
	ck_assert_uint_eq(nr_matches, 2);
	m = &matches[0].m;
	ck_assert_int_eq(m->wpid, 10);
	ck_assert_int_eq(m->wtid, 11);
	ck_assert_int_eq(m->rpid, 20);
	ck_assert_int_eq(m->rtid, 21);
	m = &matches[1].m;
	ck_assert_int_eq(m->wpid, 10);
	ck_assert_int_eq(m->wtid, 12);
	ck_assert_int_eq(m->rtid, 21);
	r = only_flow();
	expect_ends(r, 10, 20);
}
END_TEST

/*
 * A write of 100 into a full pipe returns only after the reader took the
 * bytes: the read [2000, 3000] is delivered before the write [1000, 5000].
 * It is matched (the write was under way when the read finished), with wire
 * time 3000 - 1000 (from the write's start: not 0), and nothing is unmatched.
 */
START_TEST(test_read_finishing_before_its_write)
{
	const struct flow_rec *r;

	name_pipe_ends(10, 4, 20, 3, 45, 65536);
	rd(20, 3, 100, 2000, 3000);
	ck_assert_uint_eq(nr_matches, 0);
	wr(10, 4, 100, 1000, 5000);
	ck_assert_uint_eq(nr_matches, 1);
	assert_match(0, 10, 1000, 5000, 20, 2000, 3000, 100, 0);

	r = only_flow();
	expect_bytes(r, 100, 100);
	ck_assert_uint_eq(r->f.matches, 1);
	ck_assert_uint_eq(r->f.unmatched_bytes, 0);
	expect_wire(r, 2000, 2000);
	expect_ends(r, 10, 20);
}
END_TEST

/*
 * A write of 200 [1000, 5000]; one read of 100 ends before it [2000, 3000],
 * another after it [5500, 6000]: the first is matched with wire 2000 (from
 * the write's start), the rest of the write stays queued and feeds the second
 * (wire 5000).
 */
START_TEST(test_read_before_write_partial)
{
	const struct flow_rec *r;

	name_pipe_ends(10, 4, 20, 3, 46, 65536);
	rd(20, 3, 100, 2000, 3000);
	wr(10, 4, 200, 1000, 5000);
	rd(20, 3, 100, 5500, 6000);
	ck_assert_uint_eq(nr_matches, 2);
	ck_assert_uint_eq(matches[0].m.bytes, 100);
	ck_assert_uint_eq(matches[0].m.read_end_ns, 3000);
	assert_match(1, 10, 1000, 5000, 20, 5500, 6000, 100, 0);
	r = only_flow();
	ck_assert_uint_eq(r->f.unmatched_bytes, 0);
	ck_assert_uint_eq(r->f.matches, 2);
	expect_wire(r, 2000, 5000);
	ck_assert_uint_eq(r->f.max_queued, 100);
}
END_TEST

/*
 * A reader asleep in read before the write comes (gzip | wc): the read
 * [1000, 2050] ends before the write [2000, 2100] returns. Its wire time is
 * from the write's start, 50, not 0; a read ending just as the write started
 * still took 1 ns.
 */
START_TEST(test_wire_reader_blocked_before_write)
{
	const struct flow_rec *r;

	name_pipe_ends(10, 4, 20, 3, 49, 65536);
	rd_blocked(20, 3, 100, 1000, 2050, 1000);
	wr(10, 4, 100, 2000, 2100);
	rd_blocked(20, 3, 100, 2500, 4000, 1400);
	wr(10, 4, 100, 4000, 4200);
	ck_assert_uint_eq(nr_matches, 2);
	assert_match(0, 10, 2000, 2100, 20, 1000, 2050, 100, 0);
	assert_match(1, 10, 4000, 4200, 20, 2500, 4000, 100, 0);
	r = only_flow();
	ck_assert_uint_eq(r->f.matches, 2);
	ck_assert_uint_eq(r->f.unmatched_bytes, 0);
	expect_wire(r, 1, 50);
	ck_assert_uint_gt(r->f.wire_ns.p50, 0);
}
END_TEST

/* Bytes that were in the pipe before the capture: read, never written. */
START_TEST(test_read_of_data_written_before_capture)
{
	const struct flow_rec *r;

	name_pipe(20, 3, 47, 65536);
	rd(20, 3, 100, 1000, 1100);
	rd(20, 3, 28, 1200, 1300);
	ck_assert_uint_eq(nr_matches, 0);
	r = only_flow();
	ck_assert_str_eq(r->object, "pipe:[47]");
	expect_bytes(r, 0, 128);
	ck_assert_uint_eq(r->f.unmatched_bytes, 128);
	ck_assert_uint_eq(r->f.matches, 0);
	ck_assert_uint_eq(r->f.writes, 0);
	ck_assert_uint_eq(r->f.reads, 2);
	ck_assert_uint_eq(r->f.nr_writers, 0);
	ASSERT_READERS(r, 20);
	expect_wire(r, 0, 0);
}
END_TEST

/*
 * A read that finished before a write even started cannot have been fed by
 * it: those bytes are unmatched, and the write's bytes stay queued for a
 * later read.
 */
START_TEST(test_read_before_write_started_is_unmatched)
{
	const struct flow_rec *r;

	name_pipe_ends(10, 4, 20, 3, 48, 65536);
	rd(20, 3, 50, 1000, 1100);
	wr(10, 4, 70, 2000, 2100);
	ck_assert_uint_eq(nr_matches, 0);
	rd(20, 3, 70, 3000, 3100);
	ck_assert_uint_eq(nr_matches, 1);
	assert_match(0, 10, 2000, 2100, 20, 3000, 3100, 70, 0);
	r = only_flow();
	ck_assert_uint_eq(r->f.bytes_read, 120);
	ck_assert_uint_eq(r->f.bytes_written, 70);
	ck_assert_uint_eq(r->f.unmatched_bytes, 50);
	ck_assert_uint_eq(r->f.matches, 1);
	ck_assert_uint_eq(r->f.wire_ns.min, 1100);
	ck_assert_uint_eq(r->f.max_queued, 70);
}
END_TEST

/* Errors and EOF move no bytes and match nothing; they still name the process. */
/* A zero-copy move of @ret bytes from @in to @out (-1: vmsplice, on @in alone). */
static void mv(pid_t pid, int nr, const char *name, int in, int out, int64_t ret, uint64_t start,
	       uint64_t end, uint64_t blocked)
{
	struct ipcperf_syscall ev = {
		.start_ns = start, .end_ns = end, .pid = pid, .tid = pid, .nr = nr, .name = name,
		.cls = IPCPERF_SC_MOVE, .fd = in, .out_fd = out, .ret = ret, .nr_args = 4,
		.blocked_ns = blocked, .off_cpu_ns = blocked, .switches = blocked ? 1 : 0,
	};

	feed(&ev);
}

/*
 * Moves feed flows as reads of their source and writes of their
 * destination: a pipe filled by splice from a file and drained by a read,
 * a socket written by sendfile from the pipe, tee writing a second pipe
 * without taking anything out of the first (its later read drains it), a
 * vmsplice into the pipe's write end (no open mode known: a write). The
 * file is no flow. A failed move moves nothing. A move's blocked time
 * counts for both channels.
 */
START_TEST(test_moves_feed_flows)
{
	IPCPERF_OPTS(ipcperf_fd_identity, file, .object = "/srv/f", .kind = IPCPERF_FD_FILE);
	const struct flow_rec *f;

	ck_assert_int_eq(ipcperf_stats__set_fd_identity(st, 100, 3, &file), 0);
	name_pipe(100, 4, 70, 65536);		/* read end */
	name_pipe(100, 5, 70, 65536);		/* write end */
	name_pipe(100, 7, 71, 65536);		/* pipe B, write end */
	name_pipe(200, 8, 71, 65536);		/* pipe B, read end */
	name_sock(100, 6, IPCPERF_FD_TCP, 80, 81, SOCK_STREAM, 0);
	name_sock(200, 9, IPCPERF_FD_TCP, 81, 80, SOCK_STREAM, 0);
	mv(100, SYS_splice, "splice", 3, 5, 1000, 1 * MS, 2 * MS, 0);	/* file -> pipe A */
	mv(100, SYS_tee, "tee", 4, 7, 600, 3 * MS, 4 * MS, 0);		/* A -> B, A keeps them */
	mv(100, SYS_splice, "splice", 4, 6, 600, 5 * MS, 6 * MS, 0);	/* A -> socket */
	mv(100, SYS_splice, "splice", 4, 6, -EINVAL, 7 * MS, 8 * MS, 0);
	rd(100, 4, 400, 9 * MS, 10 * MS);
	mv(100, SYS_vmsplice, "vmsplice", 5, -1, 50, 11 * MS, 12 * MS, 0);
	rd(100, 4, 50, 13 * MS, 14 * MS);
	rd(200, 8, 600, 15 * MS, 16 * MS);
	/* sendfile from the file into the socket, asleep 3 ms for room */
	mv(100, SYS_sendfile, "sendfile", 3, 6, 2000, 17 * MS, 21 * MS, 3 * MS);
	rd(200, 9, 2600, 22 * MS, 23 * MS);

	ck_assert_uint_eq(snapshot(), 3);
	f = flow_of(70);
	expect_bytes(f, 1050, 1050);
	ck_assert_uint_eq(f->f.writes, 2);
	ck_assert_uint_eq(f->f.reads, 3);
	ck_assert_uint_eq(f->f.unmatched_bytes, 0);
	ck_assert_uint_eq(f->f.max_queued, 1000);
	f = flow_of(71);
	expect_bytes(f, 600, 600);
	ck_assert_uint_eq(f->f.unmatched_bytes, 0);
	f = flow_of(80);
	expect_bytes(f, 2600, 2600);
	ck_assert_uint_eq(f->f.writes, 2);
	ck_assert_uint_eq(f->f.unmatched_bytes, 0);
	ck_assert_uint_eq(f->f.writer_blocked_ns, 3 * MS);
	ck_assert_int_eq(f->f.verdict, IPCPERF_VERDICT_BACKPRESSURE);
	expect_ends(f, 100, 200);
}
END_TEST

START_TEST(test_errors_and_eof_move_nothing)
{
	const struct flow_rec *r;

	name_pipe_ends(10, 4, 20, 3, 49, 65536);
	wr(10, 4, 40, 1000, 1100);
	wr(10, 4, -EAGAIN, 1200, 1300);
	wr(10, 4, -EPIPE, 1400, 1500);
	rd(20, 3, -EINTR, 1600, 1700);
	rd(20, 3, 40, 1800, 1900);
	rd(20, 3, -EAGAIN, 2000, 2100);
	rd(20, 3, 0, 2200, 2300);	/* EOF */
	ck_assert_uint_eq(nr_matches, 1);
	assert_match(0, 10, 1000, 1100, 20, 1800, 1900, 40, 0);
	r = only_flow();
	expect_bytes(r, 40, 40);
	ck_assert_uint_eq(r->f.unmatched_bytes, 0);
	ck_assert_uint_eq(r->f.writes, 1);	/* successful calls only */
	ck_assert_uint_le(r->f.reads, 2);	/* the read of 40 (and perhaps the EOF) */
	ck_assert_uint_ge(r->f.reads, 1);
	ck_assert_uint_eq(r->f.matches, 1);
	ck_assert_uint_eq(r->f.max_queued, 40);
	ck_assert_uint_eq(r->f.last_ns, 2300);

	/* a failed read with bytes still queued does not take them */
	wr(10, 4, 10, 3000, 3100);
	rd(20, 3, -EFAULT, 3200, 3300);
	ck_assert_uint_eq(nr_matches, 1);
	rd(20, 3, 10, 3400, 3500);
	ck_assert_uint_eq(nr_matches, 2);
	assert_match(1, 10, 3000, 3100, 20, 3400, 3500, 10, 0);
}
END_TEST

/* An fd the stats cannot name is not part of any flow; nor is a file. */
START_TEST(test_fd_without_identity_ignored)
{
	IPCPERF_OPTS(ipcperf_fd_identity, file, .object = "/tmp/x", .kind = IPCPERF_FD_FILE);

	wr(10, 4, 100, 1000, 1100);
	rd(20, 3, 100, 1200, 1300);
	ck_assert_int_eq(ipcperf_stats__set_fd_identity(st, 10, 7, &file), 0);
	wr(10, 7, 100, 1400, 1500);
	ck_assert_uint_eq(snapshot(), 0);
	ck_assert_uint_eq(nr_matches, 0);

	/* naming the read end only later: the earlier calls stay out */
	name_pipe(20, 3, 50, 65536);
	rd(20, 3, 10, 2000, 2100);
	ck_assert_uint_eq(snapshot(), 1);
	ck_assert_uint_eq(flows[0].f.bytes_read, 10);
	ck_assert_uint_eq(flows[0].f.reads, 1);
}
END_TEST

/* After close, the fd number is no longer the pipe: its calls are not the flow's. */
START_TEST(test_closed_fd_leaves_the_flow)
{
	const struct flow_rec *r;

	name_pipe_ends(10, 4, 20, 3, 51, 65536);
	wr(10, 4, 10, 1000, 1100);
	do_close(10, 4, 1200);
	wr(10, 4, 99, 1400, 1500);	/* fd 4 now unknown (no /proc) */
	rd(20, 3, 10, 1600, 1700);
	r = only_flow();
	ck_assert_uint_eq(r->f.bytes_written, 10);
	ck_assert_uint_eq(r->f.writes, 1);
	ck_assert_uint_eq(r->f.bytes_read, 10);
	ck_assert_uint_eq(r->f.unmatched_bytes, 0);
}
END_TEST

/*
 * `sh -c 'a | b'`: sh's pipe is copied into its children at fork, and each
 * child dup2()s its end onto 1 or 0. The flow is between the two children.
 */
START_TEST(test_fork_and_dup2_follow_the_pipe)
{
	const struct flow_rec *r;

	name_pipe(100, 3, 52, 65536);	/* sh: read end */
	name_pipe(100, 4, 52, 65536);	/* sh: write end */
	do_fork(100, 101, 1000);
	do_fork(100, 102, 1100);
	do_dup2(101, 4, 1, 1200);
	do_close(101, 3, 1300);
	do_close(101, 4, 1400);
	do_dup2(102, 3, 0, 1250);
	do_close(102, 3, 1350);
	do_close(102, 4, 1450);
	do_close(100, 3, 1500);
	do_close(100, 4, 1600);
	wr(101, 1, 5000, 2000, 2100);
	rd(102, 0, 4096, 2200, 2300);
	rd(102, 0, 904, 2400, 2500);
	ck_assert_uint_eq(nr_matches, 2);
	r = only_flow();
	ck_assert_str_eq(r->object, "pipe:[52]");
	expect_ends(r, 101, 102);
	ck_assert_uint_eq(r->f.bytes_read, 5000);
	ck_assert_uint_eq(r->f.unmatched_bytes, 0);
}
END_TEST

/* ------------------------------------------------------------------ sockets */

/*
 * A unix stream socketpair, request/response: A (pid 10, fd 3, socket:[1001])
 * sends 64, B (pid 20, fd 4, socket:[1002]) reads 64 and answers 256, A reads
 * it. Twice. Two flows: A->B keyed by A's inode (reader_ino B), and B->A.
 */
START_TEST(test_socketpair_request_response)
{
	const struct flow_rec *ab, *ba;
	uint64_t t = 10000;

	name_socketpair(10, 3, 1001, 20, 4, 1002, SOCK_STREAM);
	for (int i = 0; i < 2; i++, t += 10000) {
		wr(10, 3, 64, t, t + 100);
		rd(20, 4, 64, t + 50, t + 300);
		wr(20, 4, 256, t + 400, t + 500);
		rd(10, 3, 256, t + 150, t + 800);
	}
	ck_assert_uint_eq(nr_matches, 4);
	assert_match(0, 10, 10000, 10100, 20, 10050, 10300, 64, 0);
	ck_assert_str_eq(matches[0].object, "socket:[1001]");
	assert_match(1, 20, 10400, 10500, 10, 10150, 10800, 256, 0);
	ck_assert_str_eq(matches[1].object, "socket:[1002]");

	ck_assert_uint_eq(snapshot(), 2);
	/* ordered by first activity: A's first send came first */
	ab = &flows[0];
	ba = &flows[1];
	ck_assert_str_eq(ab->object, "socket:[1001]");
	ck_assert_int_eq(ab->f.kind, IPCPERF_FD_UNIX);
	ck_assert_uint_eq(ab->f.ino, 1001);
	ck_assert_uint_eq(ab->f.reader_ino, 1002);
	ck_assert(!ab->f.datagram);
	expect_ends(ab, 10, 20);
	ck_assert_uint_eq(ab->f.bytes_read, 128);
	ck_assert_uint_eq(ab->f.bytes_written, 128);
	ck_assert_uint_eq(ab->f.matches, 2);
	expect_wire(ab, 300, 300);
	ck_assert_uint_eq(ab->f.max_queued, 64);

	ck_assert_str_eq(ba->object, "socket:[1002]");
	ck_assert_int_eq(ba->f.kind, IPCPERF_FD_UNIX);
	ck_assert_uint_eq(ba->f.ino, 1002);
	ck_assert_uint_eq(ba->f.reader_ino, 1001);
	expect_ends(ba, 20, 10);
	ck_assert_uint_eq(ba->f.bytes_read, 512);
	ck_assert_uint_eq(ba->f.matches, 2);
	expect_wire(ba, 400, 400);
	ck_assert_uint_eq(ba->f.max_queued, 256);
}
END_TEST

/*
 * A flow first seen from its reading end (the writer's sends predate the
 * capture): still keyed and named by the writing end, the peer.
 */
START_TEST(test_socket_flow_seen_from_reader)
{
	const struct flow_rec *r;

	name_socketpair(10, 3, 2001, 20, 4, 2002, SOCK_STREAM);
	rd(20, 4, 30, 1000, 1100);
	wr(10, 3, 40, 2000, 2100);
	rd(20, 4, 40, 2200, 2300);
	r = only_flow();
	ck_assert_str_eq(r->object, "socket:[2001]");
	ck_assert_uint_eq(r->f.ino, 2001);
	ck_assert_uint_eq(r->f.reader_ino, 2002);
	expect_ends(r, 10, 20);
	ck_assert_uint_eq(r->f.unmatched_bytes, 30);
	ck_assert_uint_eq(r->f.bytes_read, 70);
	ck_assert_uint_eq(r->f.matches, 1);
}
END_TEST

/* The capacity of a socket flow is the writing end's (its send buffer). */
START_TEST(test_socket_capacity_from_writer)
{
	const struct flow_rec *r;

	name_sock(10, 3, IPCPERF_FD_TCP, 3001, 3002, SOCK_STREAM, 200000);
	name_sock(20, 4, IPCPERF_FD_TCP, 3002, 3001, SOCK_STREAM, 100000);
	rd(20, 4, 10, 500, 600);		/* unmatched, but the flow exists now */
	wr(10, 3, 1000, 1000, 1100);
	rd(20, 4, 1000, 1200, 1300);
	r = only_flow();
	ck_assert_int_eq(r->f.kind, IPCPERF_FD_TCP);
	ck_assert_str_eq(r->object, "socket:[3001]");
	ck_assert_int_eq(r->f.capacity, 200000);
	ck_assert_uint_eq(r->f.bytes_read, 1010);
	ck_assert_uint_eq(r->f.unmatched_bytes, 10);
}
END_TEST

/*
 * Datagrams: one read takes one message whatever its size. Messages of 100
 * and 40; the first is read into a 50-byte buffer (recv returns 50, the rest
 * of the message is discarded), the second whole.
 */
START_TEST(test_datagram_one_message_per_read)
{
	const struct flow_rec *r;

	name_socketpair(10, 3, 4001, 20, 4, 4002, SOCK_DGRAM);
	wr(10, 3, 100, 1000, 1100);
	wr(10, 3, 40, 1200, 1300);
	rd(20, 4, 50, 2000, 2100);
	rd(20, 4, 40, 3000, 3100);
	ck_assert_uint_eq(nr_matches, 2);
	assert_match(0, 10, 1000, 1100, 20, 2000, 2100, 50, ANY_QUEUED);
	assert_match(1, 10, 1200, 1300, 20, 3000, 3100, 40, ANY_QUEUED);
	r = only_flow();
	ck_assert(r->f.datagram);
	ck_assert_str_eq(r->object, "socket:[4001]");
	expect_io(r, 2, 2, 140, 90);
	ck_assert_uint_eq(r->f.unmatched_bytes, 0);
	ck_assert_uint_eq(r->f.matches, 2);
	ck_assert_uint_eq(r->f.max_queued, 140);
	expect_wire(r, 1100, 1900);
}
END_TEST

/*
 * match.queued is what is left in the channel after the read: the message
 * that read took is gone (as on the stream path). Messages of 100 and 40:
 * after the first read 40 are left, after the second 0.
 */
START_TEST(test_datagram_match_queued_after_read)
{
	name_socketpair(10, 3, 4001, 20, 4, 4002, SOCK_DGRAM);
	wr(10, 3, 100, 1000, 1100);
	wr(10, 3, 40, 1200, 1300);
	rd(20, 4, 50, 2000, 2100);
	rd(20, 4, 40, 3000, 3100);
	ck_assert_uint_eq(nr_matches, 2);
	ck_assert_msg(matches[0].m.queued == 40,
		      "datagram match 0: queued %llu, want 40 (left after the read)",
		      (unsigned long long)matches[0].m.queued);
	ck_assert_msg(matches[1].m.queued == 0,
		      "datagram match 1: queued %llu, want 0 (left after the read)",
		      (unsigned long long)matches[1].m.queued);
}
END_TEST

/*
 * A datagram read into a short buffer takes part of a message: the match's
 * bytes are what the read took (50 of 100), whether the send was seen before
 * the read (above) or after it (here: the read finished first, inside the
 * send's span). So the matched bytes add up to the bytes read.
 */
START_TEST(test_datagram_read_before_send_bytes)
{
	const struct flow_rec *r;

	name_socketpair(10, 3, 4101, 20, 4, 4102, SOCK_DGRAM);
	rd(20, 4, 50, 2000, 3000);
	wr(10, 3, 100, 1000, 5000);
	ck_assert_uint_eq(nr_matches, 1);
	ck_assert_uint_eq(matches[0].m.read_end_ns, 3000);
	ck_assert_uint_eq(matches[0].m.write_end_ns, 5000);
	r = only_flow();
	ck_assert_uint_eq(r->f.bytes_read, 50);
	ck_assert_uint_eq(r->f.unmatched_bytes, 0);
	ck_assert_uint_eq(r->f.matches, 1);
	ck_assert_msg(matches[0].m.bytes == 50,
		      "match of a 50-byte read of a 100-byte message seen after the read: %llu "
		      "bytes, want 50 (what the read took, as when the send comes first)",
		      (unsigned long long)matches[0].m.bytes);
}
END_TEST

/* Seqpacket keeps message boundaries too; a message read before its send returned is matched. */
START_TEST(test_seqpacket_messages)
{
	const struct flow_rec *r;

	name_socketpair(10, 3, 5001, 20, 4, 5002, SOCK_SEQPACKET);
	rd(20, 4, 128, 1500, 1600);	/* ends before the send that fed it */
	wr(10, 3, 128, 1000, 1700);
	wr(10, 3, 128, 2000, 2100);
	wr(10, 3, 128, 2200, 2300);
	rd(20, 4, 128, 3000, 3100);
	rd(20, 4, 128, 4000, 4100);
	ck_assert_uint_eq(nr_matches, 3);
	assert_match(0, 10, 1000, 1700, 20, 1500, 1600, 128, 0);
	assert_match(1, 10, 2000, 2100, 20, 3000, 3100, 128, ANY_QUEUED);
	assert_match(2, 10, 2200, 2300, 20, 4000, 4100, 128, ANY_QUEUED);
	r = only_flow();
	ck_assert(r->f.datagram);
	ck_assert_uint_eq(r->f.bytes_read, 384);
	ck_assert_uint_eq(r->f.unmatched_bytes, 0);
	ck_assert_uint_eq(r->f.max_queued, 256);
	expect_wire(r, 600, 1900);
}
END_TEST

/* ------------------------------------------------------------------ occupancy */

/* Pipe 60 of 65536 bytes, from 10's fd 4 to 20's fd 3: a first write of @bytes [900, 1000]. */
static void pipe60_first_write(int64_t bytes)
{
	name_pipe_ends(10, 4, 20, 3, 60, 65536);
	wr(10, 4, bytes, 900, 1000);
}

/*
 * Capacity 65536: "full" is queued >= 90%, i.e. >= 58983 bytes.
 *   1000  write 40000 -> 40000
 *   2000  write 20000 -> 60000  full from 2000
 *   5000  read 10000  -> 50000  not full: 3000 ns
 *   6000  write 15536 -> 65536  full from 6000; max 65536
 *  10000  read 65536  -> 0      not full: 4000 ns
 * full_ns = 7000.
 */
START_TEST(test_occupancy_full_time)
{
	const struct flow_rec *r;

	pipe60_first_write(40000);
	wr(10, 4, 20000, 1900, 2000);
	rd(20, 3, 10000, 4900, 5000);
	wr(10, 4, 15536, 5900, 6000);
	rd(20, 3, 65536, 9900, 10000);
	r = only_flow();
	ck_assert_uint_eq(r->f.max_queued, 65536);
	ck_assert_uint_eq(r->f.full_ns, 7000);
	ck_assert_uint_eq(r->f.bytes_read, 75536);
	ck_assert_uint_eq(r->f.bytes_written, 75536);
	ck_assert_uint_eq(r->f.matches, 1 + 3);
	/* queued after each read's matches */
	ck_assert_uint_eq(matches[0].m.queued, 50000);
	ck_assert_uint_eq(matches[nr_matches - 1].m.queued, 0);
}
END_TEST

/*
 * Intervals (ipcperf_flows__reset()): each walk gives the flows with a call
 * since the reset, with what happened since and the verdict of that; the
 * bytes queued carry over, matched in the interval that reads them.
 */
START_TEST(test_reset_intervals)
{
	const struct flow_rec *r;

	name_pipe_ends(10, 4, 20, 3, 5000, 65536);
	name_pipe_ends(10, 5, 20, 6, 6000, 65536);
	/* 1: the writer waits 5 ms for room; 100 bytes stay queued; another pipe moves 10 */
	wr_blocked(10, 4, 4096, 1000, 5001000, 5000000);
	rd(20, 3, 4096, 5000500, 5001500);
	wr(10, 4, 100, 6000000, 6000100);
	wr(10, 5, 10, 6100000, 6100100);
	rd(20, 6, 10, 6200000, 6200100);
	ck_assert_uint_eq(snapshot(), 2);
	r = flow_of(5000);
	expect_bytes(r, 4196, 4096);
	ck_assert_uint_eq(r->f.writer_blocked_ns, 5000000);
	ck_assert_int_eq(r->f.verdict, IPCPERF_VERDICT_BACKPRESSURE);
	ipcperf_flows__reset(fl);
	/* 2: the queued 100 read, then the reader waits 4 ms for 50 more */
	rd(20, 3, 100, 7000000, 7000200);
	wr(10, 4, 50, 11999000, 11999100);
	rd_blocked(20, 3, 50, 8000000, 12000000, 4000000);
	r = only_flow();
	ck_assert_uint_eq(r->f.ino, 5000);
	expect_io(r, 1, 2, 50, 150);
	ck_assert_uint_eq(r->f.matches, 2);
	expect_blocked(r, 0, 4000000);
	ck_assert_uint_eq(r->f.max_queued, 100);
	ck_assert_uint_eq(r->f.first_ns, 7000000);
	ck_assert_uint_eq(r->f.last_ns, 12000000);
	ck_assert_uint_eq(r->f.unmatched_bytes, 0);
	ck_assert_near(r->f.wire_ns.max, 7000200 - 6000000);
	ck_assert_near(r->f.wire_ns.min, 12000000 - 11999000);
	expect_ends(r, 10, 20);
	ck_assert_int_eq(r->f.verdict, IPCPERF_VERDICT_CONSUMER_STARVED);
	/* 3: no call; 4: a write nobody reads in it, its reader traced all along */
	ipcperf_flows__reset(fl);
	ck_assert_uint_eq(snapshot(), 0);
	ipcperf_flows__reset(fl);
	wr(10, 4, 30, 13000000, 13000100);
	r = only_flow();
	ck_assert_int_eq(r->f.verdict, IPCPERF_VERDICT_BALANCED);
	expect_bytes(r, 30, 0);
	ck_assert_uint_eq(r->f.matches, 0);
	ck_assert_uint_eq(r->f.nr_readers, 0);
}
END_TEST

/* A channel full at the reset is full in the next interval from the reset on. */
START_TEST(test_reset_full_carries)
{
	const struct flow_rec *r;

	pipe60_first_write(65536);
	r = only_flow();
	ck_assert_uint_eq(r->f.max_queued, 65536);
	ipcperf_flows__reset(fl);
	rd(20, 3, 65536, 4900, 5000);
	r = only_flow();
	ck_assert_uint_eq(r->f.max_queued, 65536);
	ck_assert_uint_eq(r->f.full_ns, 4000);
	expect_bytes(r, 0, 65536);
	ck_assert_uint_eq(r->f.nr_writers, 0);
	ipcperf_flows__reset(NULL);
}
END_TEST

/* Exactly 90% counts as full; still full at the flow's last call counts up to it. */
START_TEST(test_occupancy_threshold_and_open_end)
{
	const struct flow_rec *r;

	name_pipe_ends(10, 4, 20, 3, 61, 1000);
	wr(10, 4, 899, 100, 200);		/* 899: below */
	wr(10, 4, 1, 1000, 1100);		/* 900: full from 1100 */
	rd(20, 3, 1, 1500, 1600);		/* 899: 500 ns full */
	wr(10, 4, 101, 2000, 2100);		/* 1000: full from 2100 */
	wr(10, 4, -EAGAIN, 4000, 4100);		/* still full at the last call, 4100 */
	r = only_flow();
	ck_assert_int_eq(r->f.capacity, 1000);
	ck_assert_uint_eq(r->f.max_queued, 1000);
	ck_assert_uint_eq(r->f.full_ns, 500 + 2000);
	ck_assert_uint_eq(r->f.last_ns, 4100);
}
END_TEST

/* ------------------------------------------------------------------ verdicts */

/* One write and one read of 100 bytes on a pipe, the writer asleep @wblocked, the reader @rblocked. */
static const struct flow_rec *flow_for(uint64_t wblocked, uint64_t rblocked)
{
	const struct flow_rec *r;

	name_pipe_ends(10, 4, 20, 3, 70, 65536);
	wr_blocked(10, 4, 100, 1000, 1000 + wblocked + 100, wblocked);
	rd_blocked(20, 3, 100, 500, 1000 + wblocked + 200 + rblocked, rblocked);
	r = only_flow();
	expect_blocked(r, wblocked, rblocked);
	return r;
}

static enum ipcperf_verdict verdict_for(uint64_t wblocked, uint64_t rblocked)
{
	return flow_for(wblocked, rblocked)->f.verdict;
}

START_TEST(test_verdict_backpressure)
{
	ck_assert_int_eq(verdict_for(10 * MS, 1 * MS), IPCPERF_VERDICT_BACKPRESSURE);
}
END_TEST

START_TEST(test_verdict_consumer_starved)
{
	ck_assert_int_eq(verdict_for(0, 10 * MS), IPCPERF_VERDICT_CONSUMER_STARVED);
}
END_TEST

START_TEST(test_verdict_balanced_both)
{
	ck_assert_int_eq(verdict_for(5 * MS, 5 * MS), IPCPERF_VERDICT_BALANCED);
}
END_TEST

START_TEST(test_verdict_balanced_under_1ms)
{
	ck_assert_int_eq(verdict_for(MS - 1, 0), IPCPERF_VERDICT_BALANCED);
}
END_TEST

START_TEST(test_verdict_balanced_under_1ms_readers)
{
	ck_assert_int_eq(verdict_for(0, MS - 1), IPCPERF_VERDICT_BALANCED);
}
END_TEST

/* The rule's edges: W >= 1 ms counts; W must be more than twice R. */
START_TEST(test_verdict_edges)
{
	ck_assert_int_eq(verdict_for(MS, 0), IPCPERF_VERDICT_BACKPRESSURE);
}
END_TEST

START_TEST(test_verdict_edge_twice)
{
	ck_assert_int_eq(verdict_for(4 * MS, 2 * MS), IPCPERF_VERDICT_BALANCED);
}
END_TEST

START_TEST(test_verdict_edge_twice_readers)
{
	ck_assert_int_eq(verdict_for(2 * MS, 4 * MS + 1), IPCPERF_VERDICT_CONSUMER_STARVED);
}
END_TEST

/*
 * No byte went through: a reader asleep 10 ms until EOF, a writer whose
 * write failed. Nobody was held back by anybody: idle, not consumer-starved.
 */
START_TEST(test_verdict_idle)
{
	const struct flow_rec *r;

	name_pipe(20, 3, 72, 65536);
	rd_blocked(20, 3, 0, 1000, 1000 + 10 * MS, 10 * MS);
	r = only_flow();
	ck_assert_uint_eq(r->f.bytes_read, 0);
	ck_assert_uint_eq(r->f.bytes_written, 0);
	ck_assert_uint_eq(r->f.nr_writers, 0);
	ck_assert_uint_eq(r->f.reader_blocked_ns, 10 * MS);
	ck_assert_int_eq(r->f.verdict, IPCPERF_VERDICT_IDLE);
	ck_assert_str_eq(ipcperf_verdict_name(IPCPERF_VERDICT_IDLE), "idle");
}
END_TEST

/* A write that failed after sleeping 10 ms moved nothing either: idle. */
START_TEST(test_verdict_idle_failed_write)
{
	const struct flow_rec *r;

	name_pipe(10, 4, 73, 65536);
	wr_blocked(10, 4, -EPIPE, 1000, 1000 + 10 * MS, 10 * MS);
	r = only_flow();
	ck_assert_uint_eq(r->f.writer_blocked_ns, 10 * MS);
	ck_assert_int_eq(r->f.verdict, IPCPERF_VERDICT_IDLE);
}
END_TEST

/*
 * A server traced alone (issue 38): its TCP socket's peer is not known. It
 * reads 100 bytes asleep 10 ms and writes 200: both directions are flows,
 * with its exact bytes, and neither gets a verdict from its one side.
 */
START_TEST(test_verdict_one_side)
{
	const struct flow_rec *in = NULL, *out = NULL;

	name_sock(30, 5, IPCPERF_FD_TCP, 81, 0, SOCK_STREAM, 4096);
	rd_blocked(30, 5, 100, 1000, 1000 + 10 * MS, 10 * MS);
	wr(30, 5, 200, 2000 + 10 * MS, 3000 + 10 * MS);
	ck_assert_uint_eq(snapshot(), 2);
	for (size_t i = 0; i < 2; i++)
		*(flows[i].f.nr_writers ? &out : &in) = &flows[i];
	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(out);
	ck_assert_str_eq(in->object, "socket:[81]");
	ck_assert_uint_eq(in->f.ino, 0);
	ck_assert_uint_eq(in->f.reader_ino, 81);
	ck_assert_uint_eq(in->f.nr_readers, 1);
	expect_bytes(in, 0, 100);
	ck_assert_uint_eq(in->f.unmatched_bytes, 100);
	ck_assert_uint_eq(in->f.reader_blocked_ns, 10 * MS);
	ck_assert_int_eq(in->f.verdict, IPCPERF_VERDICT_UNMEASURED);
	ck_assert_uint_eq(out->f.ino, 81);
	ck_assert_uint_eq(out->f.nr_readers, 0);
	expect_bytes(out, 200, 0);
	ck_assert_int_eq(out->f.verdict, IPCPERF_VERDICT_UNMEASURED);
	ck_assert_str_eq(ipcperf_verdict_name(IPCPERF_VERDICT_UNMEASURED), "unmeasured");
}
END_TEST

/*
 * A socket's side no traced process was seen on keeps at most 512 of the
 * other side's calls waiting for it, and drops the oldest 128 when full
 * (issue 41: memory per live connection of a server traced alone). 600
 * one-byte writes on a TCP connection before its reader's first read of
 * 600: the 128 oldest were read out of sight, 472 match. Then 600 one-byte
 * reads inside one write of 600 that ends last (a writer seen only once
 * its call ends): the 128 oldest reads are unmatched, 472 match.
 */
START_TEST(test_unseen_side_keeps_at_most_512)
{
	const struct flow_rec *r;
	uint64_t t = 1000;

	ck_assert_int_eq(ipcperf_flows__on_match(fl, NULL, NULL), 0);	/* more than matches[] holds */
	name_sock(10, 4, IPCPERF_FD_TCP, 81, 82, SOCK_STREAM, 0);
	name_sock(20, 3, IPCPERF_FD_TCP, 82, 81, SOCK_STREAM, 0);
	for (int i = 0; i < 600; i++, t += 1000)
		wr(10, 4, 1, t, t + 100);
	rd(20, 3, 600, t, t + 100);
	r = only_flow();
	expect_bytes(r, 600, 600);
	ck_assert_uint_eq(r->f.matches, 472);
	ck_assert_uint_eq(r->f.unmatched_bytes, 128);

	name_sock(20, 7, IPCPERF_FD_TCP, 91, 92, SOCK_STREAM, 0);
	name_sock(10, 8, IPCPERF_FD_TCP, 92, 91, SOCK_STREAM, 0);
	t += 1000;
	for (int i = 0; i < 600; i++)
		rd(20, 7, 1, t + 1000 + (uint64_t)i * 1000, t + 1100 + (uint64_t)i * 1000);
	wr(10, 8, 600, t, t + 700000);
	ck_assert_uint_eq(snapshot(), 2);
	for (size_t i = 0; i < 2; i++) {
		if (flows[i].f.ino != 92)
			continue;
		expect_bytes(&flows[i], 600, 600);
		ck_assert_uint_eq(flows[i].f.matches, 472);
		ck_assert_uint_eq(flows[i].f.unmatched_bytes, 128);
		return;
	}
	ck_abort_msg("no flow of socket:[92]");
}
END_TEST

/* Blocked time adds up over calls, failed ones and EOF included; names are static. */
START_TEST(test_blocked_time_sums)
{
	const struct flow_rec *r;
	uint64_t t = 1000;

	name_pipe_ends(10, 4, 20, 3, 71, 65536);
	for (int i = 0; i < 10; i++, t += 3 * MS)
		wr_blocked(10, 4, 4096, t, t + 2 * MS, MS);
	rd_blocked(20, 3, 40960, t, t + 100, 0);
	rd_blocked(20, 3, 0, t + 1000, t + 1000 + 400000, 300000);	/* EOF after a wait */
	r = only_flow();
	expect_blocked(r, 10 * MS, 300000);
	ck_assert_int_eq(r->f.verdict, IPCPERF_VERDICT_BACKPRESSURE);
	ck_assert_str_eq(ipcperf_verdict_name(IPCPERF_VERDICT_BACKPRESSURE), "backpressure");
	ck_assert_str_eq(ipcperf_verdict_name(IPCPERF_VERDICT_CONSUMER_STARVED), "consumer-starved");
	ck_assert_str_eq(ipcperf_verdict_name(IPCPERF_VERDICT_BALANCED), "balanced");
}
END_TEST

/* ------------------------------------------------------------------ margins */

/*
 * A ratio within 1.25x of its line of 2 (1.6 to 2.5) is marginal
 * (doc/accuracy.md, "Verdicts"): the flow names the verdict it is near, on
 * either side of the line, and the ratio; the verdict itself keeps the rule.
 */
static void assert_margin(uint64_t w, uint64_t r, enum ipcperf_verdict verdict,
			  enum ipcperf_verdict marginal, double margin)
{
	const struct flow_rec *f = flow_for(w, r);

	ck_assert_int_eq(f->f.verdict, verdict);
	ck_assert_int_eq(f->f.marginal, marginal);
	ck_assert_msg(f->f.margin > margin - 1e-9 && f->f.margin < margin + 1e-9,
		      "W %llu, R %llu: margin %.6f, want %.6f", (unsigned long long)w,
		      (unsigned long long)r, f->f.margin, margin);
	ck_assert(!f->f.by_queue);
}

#define BAL IPCPERF_VERDICT_BALANCED
#define BP IPCPERF_VERDICT_BACKPRESSURE
#define CS IPCPERF_VERDICT_CONSUMER_STARVED

/* Writer and reader asleep @w, @r ns: the verdict, the one it is near, and the ratio. */
static const struct margin_case {
	uint64_t w, r;
	enum ipcperf_verdict verdict, marginal;
	double margin;
} margin_cases[] = {
	/* Around the line of 2: below it, on it, above it, clear of it. */
	{ 19 * MS, 10 * MS, BAL, BP, 1.9 },
	{ 20 * MS, 10 * MS, BAL, BP, 2.0 },
	{ 21 * MS, 10 * MS, BP, BP, 2.1 },
	{ 30 * MS, 10 * MS, BP, BAL, 0 },
	/* The band's ends: 1.6 in, 2.5 out; below 1.6 nothing is near. */
	{ 16 * MS, 10 * MS, BAL, BP, 1.6 },
	{ 25 * MS, 10 * MS, BP, BAL, 0 },
	{ 15 * MS, 10 * MS, BAL, BAL, 0 },
	/* The readers' side: R / W = 1.9 leans to consumer-starved; 2.1 is it, marginally. */
	{ 10 * MS, 19 * MS, BAL, CS, 1.9 },
	{ 10 * MS, 21 * MS, CS, CS, 2.1 },
	/* Under 1 ms nothing is decided, so nothing is near either: R = 0 and W 0.9 ms. */
	{ MS - 1, 0, BAL, BAL, 0 },
};

#undef BAL
#undef BP
#undef CS

START_TEST(test_margins)
{
	const struct margin_case *c = &margin_cases[_i];

	assert_margin(c->w, c->r, c->verdict, c->marginal, c->margin);
}
END_TEST

/*
 * A slow reader behind a deep channel: 8 writes of 4096 bytes, 10 us each,
 * back to back from 1 us; 8 reads of 4096 bytes, 10 us each, one every 2 ms
 * from 10 ms. Nobody sleeps in a call (W = R = 0), yet the bytes wait 10 to
 * 24 ms: the queue residence is the median wire time over the slower
 * side's pace, the reader's (14.01 ms of reads / 8 = 1751250 ns; the
 * writer's 80 us / 8 = 10000 ns), some 9 of the reader's reads: backpressure.
 */
START_TEST(test_queue_residence)
{
	const struct flow_rec *f;

	name_pipe_ends(10, 4, 20, 3, 70, 1 << 20);
	for (uint64_t k = 0; k < 8; k++)
		wr(10, 4, 4096, 1000 + k * 10000, 11000 + k * 10000);
	for (uint64_t k = 0; k < 8; k++)
		rd(20, 3, 4096, 10 * MS + 2 * k * MS, 10 * MS + 2 * k * MS + 10000);
	f = only_flow();
	ck_assert_uint_eq(f->f.writer_blocked_ns + f->f.reader_blocked_ns, 0);
	ck_assert_uint_eq(f->f.write_pace_ns, 10000);
	ck_assert_uint_eq(f->f.read_pace_ns, 1751250);
	ck_assert_msg(f->f.queue_residence == (double)f->f.wire_ns.p50 / 1751250.0,
		      "queue residence %.4f, wire p50 %llu", f->f.queue_residence,
		      (unsigned long long)f->f.wire_ns.p50);
	ck_assert_msg(f->f.queue_residence > 8 && f->f.queue_residence < 10,
		      "queue residence %.4f, want ~9", f->f.queue_residence);
	ck_assert_int_eq(f->f.verdict, IPCPERF_VERDICT_BACKPRESSURE);
	ck_assert(f->f.by_queue);
	ck_assert_int_eq(f->f.marginal, IPCPERF_VERDICT_BALANCED);
}
END_TEST

/*
 * A reader that keeps up: each 4096-byte write, every 2 ms, is read 100 us
 * after it ends: the bytes wait less than one read, no queue.
 */
START_TEST(test_queue_residence_keeping_up)
{
	const struct flow_rec *f;

	name_pipe_ends(10, 4, 20, 3, 70, 65536);
	for (uint64_t k = 0; k < 8; k++) {
		wr(10, 4, 4096, 2 * k * MS, 2 * k * MS + 10000);
		rd(20, 3, 4096, 2 * k * MS + 110000, 2 * k * MS + 120000);
	}
	f = only_flow();
	ck_assert_msg(f->f.queue_residence == 0, "residence %.4f: wire p50 %llu is under 1 ms",
		      f->f.queue_residence, (unsigned long long)f->f.wire_ns.p50);
	ck_assert_int_eq(f->f.verdict, IPCPERF_VERDICT_BALANCED);
	ck_assert_int_eq(f->f.marginal, IPCPERF_VERDICT_BALANCED);
}
END_TEST

/*
 * The same slow reader, but its writer met a full channel (asleep 2 ms in
 * its last write): the residence is not counted (a full channel's bytes wait
 * behind a buffer's worth of reads), W and R decide: backpressure by W.
 */
START_TEST(test_queue_residence_full_channel)
{
	const struct flow_rec *f;

	name_pipe_ends(10, 4, 20, 3, 70, 65536);
	for (uint64_t k = 0; k < 7; k++)
		wr(10, 4, 4096, 1000 + k * 10000, 11000 + k * 10000);
	for (uint64_t k = 0; k < 8; k++) {
		rd(20, 3, 4096, 10 * MS + 2 * k * MS, 10 * MS + 2 * k * MS + 10000);
		if (k == 0)	/* the last write, asleep from 8 ms until the first read made room */
			wr_blocked(10, 4, 4096, 8 * MS, 10 * MS + 20000, 2 * MS);
	}
	f = only_flow();
	ck_assert_uint_eq(f->f.writer_blocked_ns, 2 * MS);
	ck_assert(f->f.queue_residence == 0);
	ck_assert_int_eq(f->f.verdict, IPCPERF_VERDICT_BACKPRESSURE);
	ck_assert(!f->f.by_queue);
}
END_TEST

/* One read gives no pace (8 are needed): bytes that waited 50 ms for it decide nothing. */
START_TEST(test_queue_residence_one_read)
{
	const struct flow_rec *f;

	name_pipe_ends(10, 4, 20, 3, 70, 65536);
	wr(10, 4, 100, 1000, 2000);
	rd(20, 3, 100, 50 * MS, 50 * MS + 1000);
	f = only_flow();
	ck_assert(f->f.queue_residence == 0);
	ck_assert_int_eq(f->f.verdict, IPCPERF_VERDICT_BALANCED);
}
END_TEST

/* ------------------------------------------------------------------ walking */

/* Flows come by first activity, not by inode; a non-zero return stops the walk. */
static int count_and_stop(void *ctx, const struct ipcperf_flow *f)
{
	int *n = ctx;

	(void)f;
	return ++*n == 2 ? 42 : 0;
}

START_TEST(test_for_each_order_and_stop)
{
	int n = 0;

	name_pipe_ends(10, 4, 20, 3, 900, 0);
	name_pipe_ends(10, 6, 20, 5, 100, 0);
	name_pipe_ends(10, 8, 20, 7, 500, 0);
	wr(10, 4, 1, 1000, 1100);	/* ino 900 first */
	wr(10, 8, 1, 2000, 2100);	/* then 500 */
	rd(20, 5, 1, 2500, 2600);	/* then 100 (read first: unmatched) */
	wr(10, 6, 1, 3000, 3100);
	ck_assert_uint_eq(snapshot(), 3);
	ck_assert_uint_eq(flows[0].f.ino, 900);
	ck_assert_uint_eq(flows[0].f.first_ns, 1000);
	ck_assert_uint_eq(flows[1].f.ino, 500);
	ck_assert_uint_eq(flows[1].f.first_ns, 2000);
	ck_assert_uint_eq(flows[2].f.ino, 100);
	ck_assert_uint_eq(flows[2].f.first_ns, 2500);
	ck_assert_uint_eq(flow_of(100)->f.last_ns, 3100);

	ck_assert_int_eq(ipcperf_flows__for_each(fl, count_and_stop, &n), 42);
	ck_assert_int_eq(n, 2);
}
END_TEST

/* The match callback sees every match, live; without one, nothing breaks. */
START_TEST(test_on_match_every_match)
{
	uint64_t t = 1000, total = 0;

	name_pipe_ends(10, 4, 20, 3, 80, 65536);
	/* 7 writes of 300, reads of 500: 2100 = 4 x 500 + 100 */
	for (int i = 0; i < 7; i++, t += 1000)
		wr(10, 4, 300, t, t + 10);
	for (int i = 0; i < 5; i++, t += 1000)
		rd(20, 3, i < 4 ? 500 : 100, t, t + 10);
	/*
	 * reads: 500 = 300 + 200 | 100 + 300 + 100 | 200 + 300 | 300 + 200 | 100:
	 * 2 + 3 + 2 + 2 + 1 = 10 matches
	 */
	ck_assert_uint_eq(nr_matches, 10);
	for (size_t i = 0; i < nr_matches; i++) {
		ck_assert_int_eq(matches[i].m.wpid, 10);
		ck_assert_int_eq(matches[i].m.rpid, 20);
		ck_assert_uint_ge(matches[i].m.read_end_ns, matches[i].m.write_end_ns);
		ck_assert_str_eq(matches[i].object, "pipe:[80]");
		total += matches[i].m.bytes;
	}
	ck_assert_uint_eq(total, 2100);
	ck_assert_uint_eq(only_flow()->f.matches, 10);

	ck_assert_int_eq(ipcperf_flows__on_match(fl, NULL, NULL), 0);
	wr(10, 4, 1, t, t + 10);
	rd(20, 3, 1, t + 20, t + 30);
	ck_assert_uint_eq(nr_matches, 10);
	ck_assert_uint_eq(only_flow()->f.matches, 11);
}
END_TEST

START_TEST(test_null_args)
{
	struct ipcperf_syscall ev = { .cls = IPCPERF_SC_WRITE, .fd = 3, .ret = 1 };

	errno = 0;
	ck_assert_ptr_null(ipcperf_flows__new(NULL));
	ck_assert_int_eq(errno, EINVAL);
	ipcperf_flows__delete(NULL);
	ipcperf_flows__add_syscall(NULL, &ev);
	ck_assert_int_lt(ipcperf_flows__for_each(NULL, collect, flows), 0);
	ck_assert_int_lt(ipcperf_flows__for_each(fl, NULL, NULL), 0);
	ck_assert_int_lt(ipcperf_flows__on_match(NULL, on_match, matches), 0);
	ck_assert_int_lt(ipcperf_flows__attach(NULL, NULL), 0);
	/* nothing yet: the walk calls nothing and returns 0 */
	ck_assert_uint_eq(snapshot(), 0);
}
END_TEST

/* sendmmsg/recvmmsg count messages, not bytes: they cannot be matched by byte. */
START_TEST(test_mmsg_ignored)
{
	struct ipcperf_syscall ev = {
		.start_ns = 1000, .end_ns = 1100, .pid = 10, .tid = 10, .nr = SYS_sendmmsg,
		.name = "sendmmsg", .cls = IPCPERF_SC_WRITE, .fd = 3, .count = 4, .ret = 4,
		.nr_args = 4, .ret_is_msgs = true,
	};

	name_socketpair(10, 3, 6001, 20, 4, 6002, SOCK_DGRAM);
	feed(&ev);
	wr(10, 3, 10, 2000, 2100);
	rd(20, 4, 10, 2200, 2300);
	ck_assert_uint_eq(only_flow()->f.bytes_written, 10);
	ck_assert_uint_eq(flows[0].f.writes, 1);
	ck_assert_uint_eq(flows[0].f.matches, 1);
}
END_TEST

/* ------------------------------------------------------------------ with /proc */

/*
 * The two tests below are the only ones that let the stats read /proc (of
 * this very process: no root, no tracing). They replay what a real capture
 * delivers: events are consumed some time after they happened, so the stats
 * look an fd up in /proc later than the call that used it, when the fd number
 * may name a newer object already. Such a late answer must not make the
 * earlier calls part of the newer object's flow.
 */
static void proc_setup(void)
{
	setup_matching(false);
}

static uint64_t ino_of(int fd)
{
	struct stat sb;

	ck_assert_int_eq(fstat(fd, &sb), 0);
	return (uint64_t)sb.st_ino;
}

static void feed_openat(pid_t pid, int64_t ret, uint64_t at)
{
	struct ipcperf_syscall ev = {
		.start_ns = at, .end_ns = at + 100, .pid = pid, .tid = pid, .nr = SYS_openat,
		.name = "openat", .cls = IPCPERF_SC_FD_NEW, .fd = -1, .ret = ret, .nr_args = 4,
	};

	ev.args[0] = (uint64_t)(int64_t)AT_FDCWD;
	ev.args[2] = O_RDONLY | O_CLOEXEC;
	feed(&ev);
}

/*
 * What the dynamic loader does in every traced program, replayed late:
 *   t0  openat("libc.so.6") = 3; read(3, 832) = 832; close(3)
 *   t1  pipe2() = [3, 4]; write(4, 100); read(3, 100)
 * The stats look fd 3 up when the openat is consumed, after t1: /proc then
 * says pipe:[N]. The 832 bytes of libc are not part of that pipe's flow:
 * the flow has 100 bytes, none unmatched.
 */
START_TEST(test_late_lookup_of_reused_fd)
{
	pid_t me = getpid();
	uint64_t t0 = mono_ns(), ino;
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ino = ino_of(p[0]);
	/* the calls happened before now; their events arrive only now */
	feed_openat(me, p[0], t0 - 9000000);
	rd(me, p[0], 832, t0 - 8000000, t0 - 7999000);
	do_close(me, p[0], t0 - 7000000);
	wr(me, p[1], 100, t0 - 6000000, t0 - 5999000);
	rd(me, p[0], 100, t0 - 5000000, t0 - 4999000);

	ck_assert_uint_eq(snapshot(), 1);
	ck_assert_uint_eq(flows[0].f.ino, ino);
	ck_assert_msg(flows[0].f.bytes_read == 100 && flows[0].f.unmatched_bytes == 0,
		      "pipe:[%llu]: %llu bytes read (%llu unmatched), want 100 (0): the read of "
		      "libc on fd %d before the pipe existed was counted as the pipe's",
		      (unsigned long long)ino, (unsigned long long)flows[0].f.bytes_read,
		      (unsigned long long)flows[0].f.unmatched_bytes, p[0]);
	ck_assert_uint_eq(flows[0].f.reads, 1);
	ck_assert_uint_eq(nr_matches, 1);
	assert_match(0, me, t0 - 6000000, t0 - 5999000, me, t0 - 5000000, t0 - 4999000, 100, 0);
	close(p[0]);
	close(p[1]);
}
END_TEST

/*
 * A pipe known on fds A, B before an exec (the way an attach scan learns the
 * fds of a command waiting to be released), closed before or at the exec
 * without a traced close; the new program makes a pipe that gets the same
 * numbers. The exec is consumed after that: /proc shows fds A and B open,
 * but on another pipe. The new program's I/O must not be put into the old
 * pipe's flow.
 */
START_TEST(test_exec_then_fd_reuse)
{
	pid_t me = getpid();
	uint64_t t0 = mono_ns(), old_ino, new_ino;
	struct ipcperf_task ex = {
		.kind = IPCPERF_TASK_EXEC, .time_ns = t0 - 6000000, .pid = me, .tid = me,
		.comm = "new", .filename = "/usr/bin/new",
	};
	int p[2], q[2];

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	old_ino = ino_of(p[0]);
	/* learnt now, as an attach scan would: a failed call makes the stats look */
	rd(me, p[0], -EAGAIN, t0 - 9000000, t0 - 8999000);
	wr(me, p[1], -EAGAIN, t0 - 8000000, t0 - 7999000);
	close(p[0]);
	close(p[1]);
	ck_assert_int_eq(pipe(q), 0);
	/* the same numbers again (the lowest free ones, normally; made sure of) */
	for (int i = 0; i < 2; i++) {
		if (q[i] == p[i])
			continue;
		ck_assert_int_eq(dup2(q[i], p[i]), p[i]);
		close(q[i]);
		q[i] = p[i];
	}
	new_ino = ino_of(q[0]);
	ck_assert_uint_ne(old_ino, new_ino);
	ipcperf_stats__add_task(st, &ex);
	wr(me, q[1], 100, t0 - 5000000, t0 - 4999000);
	rd(me, q[0], 100, t0 - 4000000, t0 - 3999000);

	snapshot();
	for (size_t i = 0; i < nr_flows; i++)
		ck_assert_msg(flows[i].f.ino != old_ino || flows[i].f.bytes_read == 0,
			      "the new program's 100 bytes went into pipe:[%llu], closed at the "
			      "exec, instead of pipe:[%llu] which now has fds %d and %d",
			      (unsigned long long)old_ino, (unsigned long long)new_ino, q[0], q[1]);
	/* /proc, read after these calls, still names the fds they used: pipe:[new] */
	ck_assert_uint_eq(flow_of(new_ino)->f.bytes_read, 100);
	ck_assert_uint_eq(flow_of(new_ino)->f.unmatched_bytes, 0);
	ck_assert_uint_eq(nr_matches, 1);
	close(q[0]);
	close(q[1]);
}
END_TEST

/* ------------------------------------------------------------------ event loops */

/* A call of @pid's event loop: @name of class @cls, args @a0..@a2, returning @ret. */
static void ev_call(pid_t pid, const char *name, int nr, enum ipcperf_sc_class cls, int fd,
		    uint64_t a1, uint64_t a2, int64_t ret, uint64_t start, uint64_t end,
		    uint64_t blocked)
{
	struct ipcperf_syscall ev = {
		.start_ns = start, .end_ns = end, .pid = pid, .tid = pid, .nr = nr, .name = name,
		.cls = cls, .fd = fd, .ret = ret, .nr_args = 4, .blocked_ns = blocked,
		.off_cpu_ns = blocked, .switches = blocked ? 1 : 0,
	};

	ev.args[0] = (uint64_t)(fd < 0 ? 0 : fd);
	ev.args[1] = a1;
	ev.args[2] = a2;
	ev.args[3] = 0x7ffd2000;	/* the struct epoll_event, in user memory */
	feed(&ev);
}

static void ep_create(pid_t pid, int epfd, uint64_t at)
{
	ev_call(pid, "epoll_create1", SYS_epoll_create1, IPCPERF_SC_FD_NEW, -1, 0, 0, epfd, at,
		at + 100, 0);
}

/* epoll_ctl(@epfd, @op, @fd, ...) = 0 */
static void ep_ctl(pid_t pid, int epfd, int op, int fd, uint64_t at)
{
	ev_call(pid, "epoll_ctl", SYS_epoll_ctl, IPCPERF_SC_FD_OTHER, epfd, (uint64_t)op,
		(uint64_t)fd, 0, at, at + 100, 0);
}

/* epoll_pwait(@epfd, ...) = @ready, asleep @blocked of [start, end] */
static void ep_wait(pid_t pid, int epfd, int64_t ready, uint64_t start, uint64_t end,
		    uint64_t blocked)
{
	ev_call(pid, "epoll_pwait", SYS_epoll_pwait, IPCPERF_SC_WAIT, epfd, 0x7ffd3000, 8, ready,
		start, end, blocked);
}

/* Refusals: 3 writes found the pipe full, 1 read found it empty; they move nothing. */
START_TEST(test_again_counts)
{
	const struct flow_rec *r;

	name_pipe_ends(10, 4, 20, 3, 80, 65536);
	rd(20, 3, -EAGAIN, 100, 200);
	wr(10, 4, 100, 300, 400);
	wr(10, 4, -EAGAIN, 500, 600);
	wr(10, 4, -EAGAIN, 700, 800);
	wr(10, 4, -EAGAIN, 900, 1000);
	rd(20, 3, 100, 1100, 1200);
	r = only_flow();
	ck_assert_uint_eq(r->f.write_again, 3);
	ck_assert_uint_eq(r->f.read_again, 1);
	ck_assert_uint_eq(r->f.writes, 1);
	ck_assert_uint_eq(r->f.bytes_read, 100);
	ck_assert_uint_eq(r->f.write_waits + r->f.read_waits, 0);
	/* refused 3 > 2 x 1: the writer was held back, though nobody slept */
	ck_assert_int_eq(r->f.verdict, IPCPERF_VERDICT_BACKPRESSURE);
}
END_TEST

/* @w writes and @r reads refused on a pipe where 100 bytes went through: the verdict. */
static enum ipcperf_verdict verdict_for_again(unsigned int w, unsigned int r)
{
	uint64_t t = 1000;

	name_pipe_ends(10, 4, 20, 3, 81, 65536);
	wr(10, 4, 100, t, t + 100);
	for (unsigned int i = 0; i < w; i++, t += 200)
		wr(10, 4, -EAGAIN, t + 200, t + 300);
	for (unsigned int i = 0; i < r; i++, t += 200)
		rd(20, 3, -EAGAIN, t + 200, t + 300);
	rd(20, 3, 100, t + 200, t + 300);
	return only_flow()->f.verdict;
}

START_TEST(test_again_verdict_edge)
{
	/* 2 is not more than twice 1 */
	ck_assert_int_eq(verdict_for_again(2, 1), IPCPERF_VERDICT_BALANCED);
}
END_TEST

START_TEST(test_again_verdict_starved)
{
	ck_assert_int_eq(verdict_for_again(1, 3), IPCPERF_VERDICT_CONSUMER_STARVED);
}
END_TEST

START_TEST(test_again_verdict_no_refusal)
{
	ck_assert_int_eq(verdict_for_again(0, 0), IPCPERF_VERDICT_BALANCED);
}
END_TEST

/*
 * Writer 10 waits for room on fd 4 (its epoll fd 5), reader 20 for bytes on
 * fd 3 (its epoll fd 6); each wait goes to the first call on a watched fd
 * after it, once.
 */
START_TEST(test_waits_put_on_ready_fds)
{
	const struct flow_rec *r;

	name_pipe_ends(10, 4, 20, 3, 82, 65536);
	name_pipe(20, 7, 83, 65536);	/* another pipe 20 reads, not watched */
	ep_create(10, 5, 100);
	ep_ctl(10, 5, EPOLL_CTL_ADD, 4, 200);
	ep_create(20, 6, 300);
	ep_ctl(20, 6, EPOLL_CTL_ADD, 3, 400);
	wr(10, 4, -EAGAIN, 1000, 1100);
	ep_wait(10, 5, 1, 1200, 1200 + 8 * MS, 8 * MS);
	wr(10, 4, 100, 9 * MS, 9 * MS + 100);
	wr(10, 4, 100, 9 * MS + 200, 9 * MS + 300);	/* not a second wait */
	ep_wait(20, 6, 1, 500, 10 * MS, 5 * MS);
	rd(20, 7, -EAGAIN, 10 * MS + 100, 10 * MS + 200);	/* not in the set */
	rd(20, 3, 200, 10 * MS + 300, 10 * MS + 400);
	rd(20, 3, -EAGAIN, 10 * MS + 500, 10 * MS + 600);
	ck_assert_uint_eq(snapshot(), 2);
	r = flow_of(82);
	ck_assert_uint_eq(r->f.write_wait_ns, 8 * MS);
	ck_assert_uint_eq(r->f.write_waits, 1);
	ck_assert_uint_eq(r->f.read_wait_ns, 5 * MS);
	ck_assert_uint_eq(r->f.read_waits, 1);
	ck_assert_uint_eq(r->f.write_again, 1);
	ck_assert_uint_eq(r->f.read_again, 1);
	/* the waits are not blocked time in the calls */
	expect_blocked(r, 0, 0);
	/* W = 8 ms is not more than twice R = 5 ms; 1 refusal each */
	ck_assert_int_eq(r->f.verdict, IPCPERF_VERDICT_BALANCED);
	r = flow_of(83);
	ck_assert_uint_eq(r->f.read_waits, 0);
	ck_assert_uint_eq(r->f.read_again, 1);
}
END_TEST

/*
 * The writer, refused, waits for room each time, 3 ms, and the reader takes
 * 100 bytes after each: backpressure, with no time blocked in the calls.
 * Refusals alone would say balanced: 4 writes and 4 reads refused.
 */
START_TEST(test_waits_verdict_backpressure)
{
	const struct flow_rec *r;

	name_pipe_ends(10, 4, 20, 3, 84, 65536);
	ep_create(10, 5, 100);
	ep_ctl(10, 5, EPOLL_CTL_ADD, 4, 200);
	for (uint64_t i = 0; i < 4; i++) {
		uint64_t t = 1000 + i * 10 * MS;

		wr(10, 4, -EAGAIN, t, t + 100);
		ep_wait(10, 5, 1, t + 200, t + 3 * MS + 200, 3 * MS);
		wr(10, 4, 100, t + 3 * MS + 300, t + 3 * MS + 400);
		rd(20, 3, 100, t + 4 * MS, t + 4 * MS + 100);
		rd(20, 3, -EAGAIN, t + 4 * MS + 200, t + 4 * MS + 300);
	}
	r = only_flow();
	ck_assert_uint_eq(r->f.write_wait_ns, 12 * MS);
	ck_assert_uint_eq(r->f.write_waits, 4);
	ck_assert_uint_eq(r->f.write_again, 4);
	ck_assert_uint_eq(r->f.read_again, 4);
	ck_assert_int_eq(r->f.verdict, IPCPERF_VERDICT_BACKPRESSURE);
}
END_TEST

/*
 * A relay: poll (no fd set known) says its input is readable; it reads it,
 * then writes its output. The wait goes to the read only: the write was not
 * refused before, so it did not wait for room.
 */
START_TEST(test_waits_poll_and_unrefused_write)
{
	name_pipe(10, 4, 89, 65536);	/* into the relay */
	name_pipe(20, 3, 89, 65536);
	name_pipe(20, 5, 90, 65536);	/* out of it */
	name_pipe(30, 3, 90, 65536);
	wr(10, 4, 100, 100, 200);
	ev_call(20, "poll", SYS_poll, IPCPERF_SC_WAIT, -1, 2, 1000, 1, 50, 4 * MS, 4 * MS);
	rd(20, 3, 100, 4 * MS + 100, 4 * MS + 200);
	wr(20, 5, 100, 4 * MS + 300, 4 * MS + 400);
	rd(30, 3, 100, 4 * MS + 500, 4 * MS + 600);
	/* refused, it waits again (ppoll): the next write is the one the room was for */
	wr(20, 5, -EAGAIN, 5 * MS, 5 * MS + 100);
	ev_call(20, "ppoll", SYS_ppoll, IPCPERF_SC_WAIT, -1, 1, 0, 1, 5 * MS + 200, 7 * MS,
		MS);
	wr(20, 5, 100, 7 * MS + 100, 7 * MS + 200);
	rd(30, 3, 100, 7 * MS + 300, 7 * MS + 400);
	ck_assert_uint_eq(snapshot(), 2);
	ck_assert_uint_eq(flow_of(89)->f.read_waits, 1);
	ck_assert_uint_eq(flow_of(89)->f.read_wait_ns, 4 * MS);
	ck_assert_int_eq(flow_of(89)->f.verdict, IPCPERF_VERDICT_CONSUMER_STARVED);
	ck_assert_uint_eq(flow_of(90)->f.write_waits, 1);
	ck_assert_uint_eq(flow_of(90)->f.write_wait_ns, MS);
	ck_assert_uint_eq(flow_of(90)->f.write_again, 1);
	ck_assert_int_eq(flow_of(90)->f.verdict, IPCPERF_VERDICT_BACKPRESSURE);
}
END_TEST

/*
 * A relay (socat) that selects on its output before writing: never
 * refused, it waits 3 ms for room on a full channel while its reader is
 * slow. The wait goes to its next write, the channel having been full
 * during it: backpressure, not balanced.
 */
START_TEST(test_waits_select_room_while_full)
{
	name_pipe(20, 5, 90, 1000);	/* out of the relay */
	name_pipe(30, 3, 90, 1000);
	wr(20, 5, 1000, 100, 200);	/* full */
	ev_call(20, "select", SYS_select, IPCPERF_SC_WAIT, -1, 6, 0x7ffd3000, 1, 300,
		3 * MS + 300, 3 * MS);
	rd(30, 3, 1000, 3 * MS, 3 * MS + 100);	/* room at last */
	wr(20, 5, 100, 3 * MS + 400, 3 * MS + 500);
	rd(30, 3, 100, 3 * MS + 600, 3 * MS + 700);
	ck_assert_uint_eq(snapshot(), 1);
	ck_assert_uint_eq(flow_of(90)->f.write_again, 0);
	ck_assert_uint_eq(flow_of(90)->f.write_waits, 1);
	ck_assert_uint_eq(flow_of(90)->f.write_wait_ns, 3 * MS);
	ck_assert_uint_eq(flow_of(90)->f.read_waits, 0);
	ck_assert_int_eq(flow_of(90)->f.verdict, IPCPERF_VERDICT_BACKPRESSURE);
}
END_TEST

/*
 * One epoll_wait of 100 ms (and 3 ns) returns 4 ready fds, pipes 91..94
 * that reader 20 then reads: a wait is one stretch of time, split in 4
 * shares that add up to it (the 3 ns to the first three), not 4 x 100 ms.
 */
START_TEST(test_waits_split_among_ready_fds)
{
	static const int fds[4] = { 3, 4, 5, 7 };
	uint64_t sum = 0, n = 0;

	ep_create(20, 6, 100);
	for (int i = 0; i < 4; i++) {
		name_pipe(10, 10 + i, 91 + (uint64_t)i, 65536);
		name_pipe(20, fds[i], 91 + (uint64_t)i, 65536);
		ep_ctl(20, 6, EPOLL_CTL_ADD, fds[i], 200 + (uint64_t)i * 100);
		wr(10, 10 + i, 100, 1000 + (uint64_t)i * 100, 1050 + (uint64_t)i * 100);
	}
	ep_wait(20, 6, 4, 900, 900 + 100 * MS + 3, 100 * MS + 3);
	for (int i = 0; i < 4; i++)
		rd(20, fds[i], 100, 101 * MS + (uint64_t)i * 100, 101 * MS + (uint64_t)i * 100 + 50);
	ck_assert_uint_eq(snapshot(), 4);
	for (uint64_t ino = 91; ino <= 94; ino++) {
		const struct flow_rec *r = flow_of(ino);

		ck_assert_uint_eq(r->f.read_waits, 1);
		ck_assert_uint_eq(r->f.read_wait_ns, 25 * MS + (ino < 94 ? 1 : 0));
		ck_assert_int_eq(r->f.verdict, IPCPERF_VERDICT_CONSUMER_STARVED);
		sum += r->f.read_wait_ns;
		n += r->f.read_waits;
	}
	ck_assert_uint_eq(sum, 100 * MS + 3);
	ck_assert_uint_eq(n, 4);
}
END_TEST

/*
 * poll (no fd set known) returns 2 ready fds; the thread tries pipe 95
 * first, refused (it was not one of them), then reads 96 and 97, then 98:
 * the two shares go to 96 and 97, none to 95 nor to 98, which came after
 * the wait's fds were all served.
 */
START_TEST(test_waits_shares_end_with_ready_count)
{
	for (int i = 0; i < 4; i++) {
		name_pipe(10, 10 + i, 95 + (uint64_t)i, 65536);
		name_pipe(20, 3 + i, 95 + (uint64_t)i, 65536);
		if (i)
			wr(10, 10 + i, 100, 100 + (uint64_t)i * 100, 150 + (uint64_t)i * 100);
	}
	ev_call(20, "poll", SYS_poll, IPCPERF_SC_WAIT, -1, 4, 1000, 2, 50, 6 * MS, 6 * MS);
	rd(20, 3, -EAGAIN, 6 * MS + 100, 6 * MS + 200);
	for (uint64_t i = 1; i < 4; i++)
		rd(20, 3 + (int)i, 100, 6 * MS + 100 + i * 200, 6 * MS + 200 + i * 200);
	ck_assert_uint_eq(snapshot(), 4);
	ck_assert_uint_eq(flow_of(95)->f.read_waits, 0);
	ck_assert_uint_eq(flow_of(95)->f.read_again, 1);
	ck_assert_uint_eq(flow_of(96)->f.read_wait_ns, 3 * MS);
	ck_assert_uint_eq(flow_of(97)->f.read_wait_ns, 3 * MS);
	ck_assert_uint_eq(flow_of(96)->f.read_waits + flow_of(97)->f.read_waits, 2);
	ck_assert_uint_eq(flow_of(98)->f.read_waits, 0);
	ck_assert_uint_eq(flow_of(98)->f.read_wait_ns, 0);
}
END_TEST

/* A timeout (0 ready) or an error readies nothing; a fd taken out of the set is not waited for. */
START_TEST(test_waits_timeout_and_del)
{
	const struct flow_rec *r;

	name_pipe_ends(10, 4, 20, 3, 85, 65536);
	ep_create(20, 6, 100);
	ep_ctl(20, 6, EPOLL_CTL_ADD, 3, 200);
	wr(10, 4, 300, 300, 400);
	ep_wait(20, 6, 0, 500, 3 * MS, 2 * MS);
	rd(20, 3, 100, 3 * MS + 100, 3 * MS + 200);
	ep_wait(20, 6, -EINTR, 4 * MS, 6 * MS, 2 * MS);
	rd(20, 3, 100, 6 * MS + 100, 6 * MS + 200);
	ep_ctl(20, 6, EPOLL_CTL_DEL, 3, 7 * MS);
	ep_wait(20, 6, 1, 8 * MS, 10 * MS, 2 * MS);
	rd(20, 3, 100, 10 * MS + 100, 10 * MS + 200);
	r = only_flow();
	ck_assert_uint_eq(r->f.read_waits, 0);
	ck_assert_uint_eq(r->f.read_wait_ns, 0);
	ck_assert_int_eq(r->f.verdict, IPCPERF_VERDICT_BALANCED);
}
END_TEST

/*
 * An epoll fd made before the capture (no epoll_create seen): its set is not
 * known, so it watches any fd. A close takes a fd out of a known set.
 */
START_TEST(test_waits_unknown_set_and_close)
{
	const struct flow_rec *r;

	name_pipe_ends(10, 4, 20, 3, 86, 65536);
	wr(10, 4, 300, 100, 200);
	ep_wait(20, 9, 1, 300, 4 * MS, 3 * MS);	/* epoll fd 9: from before */
	rd(20, 3, 100, 4 * MS + 100, 4 * MS + 200);
	ep_create(20, 6, 5 * MS);
	ep_ctl(20, 6, EPOLL_CTL_ADD, 11, 5 * MS + 200);
	do_close(20, 11, 5 * MS + 400);
	name_pipe(20, 11, 88, 65536);	/* fd 11 again, not added again */
	ep_ctl(20, 6, EPOLL_CTL_ADD, 12, 5 * MS + 600);
	ep_wait(20, 6, 1, 6 * MS, 9 * MS, 3 * MS);
	rd(20, 11, -EAGAIN, 9 * MS + 50, 9 * MS + 60);
	rd(20, 3, 100, 9 * MS + 100, 9 * MS + 200);	/* 3 is not in 6's set */
	ck_assert_uint_eq(snapshot(), 2);
	ck_assert_uint_eq(flow_of(88)->f.read_waits, 0);
	ck_assert_uint_eq(flow_of(88)->f.read_again, 1);
	r = flow_of(86);
	ck_assert_uint_eq(r->f.read_waits, 1);
	ck_assert_uint_eq(r->f.read_wait_ns, 3 * MS);
	ck_assert_int_eq(r->f.verdict, IPCPERF_VERDICT_CONSUMER_STARVED);
}
END_TEST

/*
 * Non-blocking ends, nobody asleep, one read refused: the pipe sat full
 * (at capacity from 200 to the last call's end, 9 ms + 100, of a life from 50) decides
 * backpressure before the refused read would say consumer-starved.
 */
START_TEST(test_full_channel_is_backpressure)
{
	const struct flow_rec *r;

	name_pipe_ends(10, 4, 20, 3, 87, 1000);
	rd(20, 3, -EAGAIN, 50, 60);
	wr(10, 4, 1000, 100, 200);
	rd(20, 3, 1000, 9 * MS, 9 * MS + 100);
	r = only_flow();
	ck_assert_uint_eq(r->f.full_ns, 9 * MS - 100);
	ck_assert_uint_eq(r->f.read_again, 1);
	ck_assert_int_eq(r->f.verdict, IPCPERF_VERDICT_BACKPRESSURE);
}
END_TEST

/*
 * Closed channels fold (ipcperf_flows__new(), "Memory"): 2,049 socketpairs
 * one after another, each a request of 64 bytes and an answer of 256, then
 * closed. The 4,097th flow is made while the 2,049th pair is open: the
 * 4,096 flows of the closed pairs fold into a fold per direction, exact,
 * and the open pair's flows stay their own.
 */
START_TEST(test_closed_channels_fold)
{
	enum { PAIRS = 2049 };
	uint64_t t = 10000, ino = 5000;
	const struct flow_rec *r;

	ck_assert_int_eq(ipcperf_flows__on_match(fl, NULL, NULL), 0);	/* 4,098 matches */
	for (int i = 0; i < PAIRS; i++, t += 10000, ino += 2) {
		name_socketpair(10, 3, ino, 20, 4, ino + 1, SOCK_STREAM);
		wr(10, 3, 64, t, t + 100);
		rd(20, 4, 64, t + 50, t + 300);
		wr(20, 4, 256, t + 400, t + 500);
		rd(10, 3, 256, t + 450, t + 900);
		do_close(10, 3, t + 1000);
		do_close(20, 4, t + 1000);
	}
	ck_assert_uint_eq(snapshot(), 4);
	for (int dir = 0; dir < 2; dir++) {
		uint64_t bytes = dir ? 256 : 64;

		r = &flows[dir];	/* the folds: their first flows came first */
		ck_assert_uint_eq(r->f.folded, PAIRS - 1);
		ck_assert_uint_eq(r->f.ino, 5000 + (uint64_t)dir);
		ck_assert_uint_eq(r->f.bytes_read, bytes * (PAIRS - 1));
		ck_assert_uint_eq(r->f.bytes_written, bytes * (PAIRS - 1));
		ck_assert_uint_eq(r->f.writes, PAIRS - 1);
		ck_assert_uint_eq(r->f.reads, PAIRS - 1);
		ck_assert_uint_eq(r->f.matches, PAIRS - 1);
		ck_assert_uint_eq(r->f.unmatched_bytes, 0);
		ck_assert_uint_eq(r->f.max_queued, bytes);
		ck_assert_uint_eq(r->f.wire_ns.min, dir ? 500 : 300);
		ck_assert_uint_eq(r->f.wire_ns.max, dir ? 500 : 300);
		ck_assert_uint_eq(r->f.first_ns, dir ? 10400 : 10000);
		ck_assert_uint_eq(r->f.last_ns, 10000 * (PAIRS - 1) + (dir ? 900 : 300));
		ck_assert_uint_eq(r->f.folded_verdicts[IPCPERF_VERDICT_BALANCED], PAIRS - 1);
		ck_assert_str_eq(r->f.endpoint, "");
		if (dir) {
			ASSERT_WRITERS(r, 20);
			ASSERT_READERS(r, 10);
		} else {
			ASSERT_WRITERS(r, 10);
			ASSERT_READERS(r, 20);
		}
	}
	/* the last pair's two flows: open when the pass came, their own */
	for (int dir = 0; dir < 2; dir++) {
		r = flow_of(ino - 2 + (uint64_t)dir);
		ck_assert_uint_eq(r->f.folded, 0);
		ck_assert_uint_eq(r->f.bytes_read, dir ? 256 : 64);
		ck_assert_uint_eq(r->f.matches, 1);
	}
	/* an interval's reset frees the folds: their sums were its */
	ipcperf_flows__reset(fl);
	ck_assert_uint_eq(snapshot(), 0);
}
END_TEST


/* @pid executes /usr/bin/@comm at @at. */
static void do_exec(pid_t pid, const char *comm, uint64_t at)
{
	char path[64];
	struct ipcperf_task t = {
		.kind = IPCPERF_TASK_EXEC, .time_ns = at, .pid = pid, .tid = pid,
		.comm = comm, .filename = path,
	};

	snprintf(path, sizeof(path), "/usr/bin/%s", comm);
	ipcperf_stats__add_task(st, &t);
}

/* The fold of the walk whose writers (@w) or readers (else) are @pid and whose untraced side is @peer. */
static const struct flow_rec *fold_of_side(bool w, pid_t pid, pid_t peer)
{
	for (size_t i = 0; i < nr_flows; i++) {
		const struct flow_rec *r = &flows[i];
		size_t n = w ? r->f.nr_writers : r->f.nr_readers;
		pid_t got = w ? r->writers[0] : r->readers[0];

		if (r->f.folded && n == 1 && got == pid && r->f.untraced_pid == peer &&
		    (w ? !r->f.nr_readers : !r->f.nr_writers))
			return r;
	}
	ck_abort_msg("no fold of %s %d with untraced side %d", w ? "writer" : "reader", (int)pid,
		     (int)peer);
	return NULL;
}


/* The fixture's stats and flows made anew with @o, and process 30 "alpha" seen. */
static void flows_over(const struct ipcperf_stats_opts *o)
{
	flows_fixture_delete(&st, &fl);
	st = ipcperf_stats__new(o);
	ck_assert_ptr_nonnull(st);
	fl = ipcperf_flows__new(st);
	ck_assert_ptr_nonnull(fl);
	do_exec(30, "alpha", 1000);
}

/*
 * A server traced alone, its clients not (issue 41): 2,049 unix socketpairs
 * one after another, the server (20) reading a request of 64 bytes and
 * writing an answer of 256 on its end; the other end is held by 30
 * ("alpha") for the even pairs, by 40 ("beta") for the odd ones, which
 * make no call: each flow has a side no traced process is on. At the
 * 4,097th flow the closed pairs' flows fold, into a fold per direction
 * and per untraced process (their traced end's row names it), exact; the
 * open pair's two flows stay their own. With fold_conns (_i 1), the
 * stats' rows of closed connections would fold into their groups first
 * (from 1,000 on): the flows keep the rows they are named from.
 */
START_TEST(test_one_sided_flows_fold)
{
	enum { PAIRS = 2049 };
	uint64_t t = 10000, ino = 5000;
	IPCPERF_OPTS(ipcperf_stats_opts, o, .no_proc = true, .fold_conns = _i == 1);
	const struct flow_rec *r;

	flows_over(&o);
	do_exec(40, "beta", 1000);
	for (int i = 0; i < PAIRS; i++, t += 10000, ino += 2) {
		pid_t peer = i % 2 ? 40 : 30;

		name_socketpair(peer, 3 + i % 2, ino, 20, 4, ino + 1, SOCK_STREAM);
		rd(20, 4, 64, t, t + 100);	/* written before: unmatched */
		wr(20, 4, 256, t + 400, t + 500);	/* read by nobody traced */
		do_close(20, 4, t + 1000);
		do_close(peer, 3 + i % 2, t + 1000);
	}
	ck_assert_uint_eq(snapshot(), 6);
	for (int k = 0; k < 4; k++) {
		pid_t peer = k % 2 ? 40 : 30;
		bool w = k >= 2;

		r = fold_of_side(w, 20, peer);
		ck_assert_str_eq(r->untraced_comm, peer == 30 ? "alpha" : "beta");
		ck_assert_uint_eq(r->f.folded, (PAIRS - 1) / 2);
		ck_assert_uint_eq(r->f.bytes_read, w ? 0 : 64 * (PAIRS - 1) / 2);
		ck_assert_uint_eq(r->f.unmatched_bytes, w ? 0 : 64 * (PAIRS - 1) / 2);
		ck_assert_uint_eq(r->f.bytes_written, w ? 256 * (PAIRS - 1) / 2 : 0);
		ck_assert_uint_eq(r->f.reads, w ? 0 : (PAIRS - 1) / 2);
		ck_assert_uint_eq(r->f.writes, w ? (PAIRS - 1) / 2 : 0);
		ck_assert_uint_eq(r->f.matches, 0);
		ck_assert_uint_eq(r->f.max_queued, w ? 256 : 0);
		ck_assert_uint_eq(r->f.folded_verdicts[IPCPERF_VERDICT_UNMEASURED], (PAIRS - 1) / 2);
	}
	/* the last pair's two flows: open when the pass came, their own, no untraced side named */
	for (size_t i = 0; i < nr_flows; i++) {
		if (flows[i].f.folded)
			continue;
		ck_assert_uint_eq(flows[i].f.untraced_pid, 0);
		ck_assert_str_eq(flows[i].untraced_comm, "");
		/* the server's end: the read flow's reading end, the write flow's writing end */
		ck_assert_uint_eq(flows[i].f.nr_readers ? flows[i].f.reader_ino : flows[i].f.ino,
				  ino - 1);
	}
}
END_TEST

/* A row of ino *@ctx (its peer into peer_of_row) when the walk meets it. */
static pid_t peer_of_row;
static int find_row(void *ctx, const struct ipcperf_fd_row *row)
{
	if (row->ino == *(const uint64_t *)ctx)
		peer_of_row = row->peer_pid ? row->peer_pid : -1;
	return 0;
}

/*
 * Exited processes fold into a row per comm (fold_exited), their rows with
 * no object: a server (20) that read a request from a socket whose other
 * end 30 holds and made no call on, then exited. Its flow, one-sided and
 * not folded (one flow is far from a fold pass), names its untraced side
 * from the server's row: that row stays, and names 30, after the second
 * an exit waits and a sweep.
 */
START_TEST(test_exit_keeps_the_pinned_row)
{
	IPCPERF_OPTS(ipcperf_stats_opts, o, .no_proc = true, .fold_exited = true);
	struct ipcperf_task ex = { .kind = IPCPERF_TASK_EXIT, .time_ns = 20000, .pid = 20,
				   .tid = 20, .comm = "srv" };
	uint64_t ino = 5001;

	flows_over(&o);
	do_exec(20, "srv", 1000);
	name_socketpair(30, 3, 5000, 20, 4, ino, SOCK_STREAM);
	name_pipe_ends(30, 5, 30, 6, 7000, 65536);
	rd(20, 4, 64, 10000, 10100);
	ipcperf_stats__add_task(st, &ex);
	/* 30's pipe, opened and closed, two seconds on: a sweep, after the exit's second */
	for (int k = 0; k < 300; k++) {
		uint64_t t = 2000000000ull + 1000 * (uint64_t)k;

		name_pipe_ends(30, 7, 30, 8, 8000 + (uint64_t)k, 65536);
		do_close(30, 7, t);
		do_close(30, 8, t + 200);
	}
	ck_assert_uint_eq(snapshot(), 1);
	ck_assert_uint_eq(flows[0].f.nr_readers, 1);
	ck_assert_uint_eq(flows[0].f.nr_writers, 0);
	peer_of_row = 0;
	ck_assert_int_eq(ipcperf_stats__for_each_fd(st, find_row, &ino), 0);
	ck_assert_int_eq(peer_of_row, 30);
}
END_TEST

Suite *flows_suite(void)
{
	Suite *s = suite_create("flows");
	TCase *tc;

	tc = tcase_create("streams");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_partial_reads);
	tcase_add_test(tc, test_read_drains_several_writes);
	tcase_add_test(tc, test_match_queued_is_after_the_read);
	tcase_add_test(tc, test_match_queued_read_drains_many);
	tcase_add_test(tc, test_write_drained_by_several_reads);
	tcase_add_test(tc, test_two_writers_one_pipe);
	tcase_add_test(tc, test_two_readers_one_pipe);
	tcase_add_test(tc, test_threads_listed_by_process);
	tcase_add_test(tc, test_read_finishing_before_its_write);
	tcase_add_test(tc, test_read_before_write_partial);
	tcase_add_test(tc, test_wire_reader_blocked_before_write);
	tcase_add_test(tc, test_read_of_data_written_before_capture);
	tcase_add_test(tc, test_read_before_write_started_is_unmatched);
	tcase_add_test(tc, test_errors_and_eof_move_nothing);
	tcase_add_test(tc, test_moves_feed_flows);
	tcase_add_test(tc, test_fd_without_identity_ignored);
	tcase_add_test(tc, test_closed_fd_leaves_the_flow);
	tcase_add_test(tc, test_fork_and_dup2_follow_the_pipe);
	suite_add_tcase(s, tc);

	tc = tcase_create("sockets");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_socketpair_request_response);
	tcase_add_test(tc, test_socket_flow_seen_from_reader);
	tcase_add_test(tc, test_socket_capacity_from_writer);
	tcase_add_test(tc, test_datagram_one_message_per_read);
	tcase_add_test(tc, test_datagram_match_queued_after_read);
	tcase_add_test(tc, test_datagram_read_before_send_bytes);
	tcase_add_test(tc, test_seqpacket_messages);
	tcase_add_test(tc, test_mmsg_ignored);
	suite_add_tcase(s, tc);

	tc = tcase_create("occupancy");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_occupancy_full_time);
	tcase_add_test(tc, test_occupancy_threshold_and_open_end);
	tcase_add_test(tc, test_reset_intervals);
	tcase_add_test(tc, test_reset_full_carries);
	suite_add_tcase(s, tc);

	tc = tcase_create("verdict");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_verdict_backpressure);
	tcase_add_test(tc, test_verdict_idle);
	tcase_add_test(tc, test_verdict_idle_failed_write);
	tcase_add_test(tc, test_verdict_one_side);
	tcase_add_test(tc, test_verdict_consumer_starved);
	tcase_add_test(tc, test_verdict_balanced_both);
	tcase_add_test(tc, test_verdict_balanced_under_1ms);
	tcase_add_test(tc, test_verdict_balanced_under_1ms_readers);
	tcase_add_test(tc, test_verdict_edges);
	tcase_add_test(tc, test_verdict_edge_twice);
	tcase_add_test(tc, test_verdict_edge_twice_readers);
	tcase_add_test(tc, test_blocked_time_sums);
	suite_add_tcase(s, tc);

	tc = tcase_create("margins");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_margins, 0, ARRAY_SIZE(margin_cases));
	tcase_add_test(tc, test_queue_residence);
	tcase_add_test(tc, test_queue_residence_keeping_up);
	tcase_add_test(tc, test_queue_residence_one_read);
	tcase_add_test(tc, test_queue_residence_full_channel);
	tcase_add_test(tc, test_unseen_side_keeps_at_most_512);
	suite_add_tcase(s, tc);

	tc = tcase_create("evloop");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_again_counts);
	tcase_add_test(tc, test_again_verdict_edge);
	tcase_add_test(tc, test_again_verdict_starved);
	tcase_add_test(tc, test_again_verdict_no_refusal);
	tcase_add_test(tc, test_waits_put_on_ready_fds);
	tcase_add_test(tc, test_waits_verdict_backpressure);
	tcase_add_test(tc, test_waits_poll_and_unrefused_write);
	tcase_add_test(tc, test_waits_select_room_while_full);
	tcase_add_test(tc, test_waits_split_among_ready_fds);
	tcase_add_test(tc, test_waits_shares_end_with_ready_count);
	tcase_add_test(tc, test_waits_timeout_and_del);
	tcase_add_test(tc, test_waits_unknown_set_and_close);
	tcase_add_test(tc, test_full_channel_is_backpressure);
	suite_add_tcase(s, tc);

	tc = tcase_create("api");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_for_each_order_and_stop);
	tcase_add_test(tc, test_on_match_every_match);
	tcase_add_test(tc, test_null_args);
	tcase_add_test(tc, test_closed_channels_fold);
	tcase_add_loop_test(tc, test_one_sided_flows_fold, 0, 2);
	tcase_add_test(tc, test_exit_keeps_the_pinned_row);
	suite_add_tcase(s, tc);

	tc = tcase_create("proc");
	tcase_add_checked_fixture(tc, proc_setup, teardown);
	tcase_add_test(tc, test_late_lookup_of_reused_fd);
	tcase_add_test(tc, test_exec_then_fd_reuse);
	suite_add_tcase(s, tc);
	return s;
}
