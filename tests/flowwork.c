/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * flowwork: IPC workloads whose flows are known exactly, for the tests of
 * `ipcperf flows` (tests/check-flowlive.c).
 *
 *   flowwork SCENARIO [ARG] [-v]
 *
 * Nothing is printed on stdout (except `ready ...` of preconnected). With -v,
 * each process says who it is on stderr, one line each, so that a test can
 * tell which pid played which role:
 *   flowwork: role=ROLE pid=PID
 *   flowwork: pipe-capacity=N		(F_GETPIPE_SZ of the scenario's pipe)
 * Every call is checked: anything unexpected exits 3 with a message on
 * stderr; success exits 0. Reads and writes on stream channels loop until
 * the full count moved, so the byte totals below are exact whatever the
 * kernel splits them into; the number of calls is exact where it says so.
 *
 * Timing rules, in every process of every scenario:
 *  - it sleeps SETTLE_MS (300 ms) after setting its channel up and before its
 *    first read or write on it, and
 *  - it keeps its channel fds open SETTLE_MS after its last read or write
 *    (and only then closes them and exits).
 * Why: the tracer learns what an fd is (pipe:[N], socket:[N] and its peer,
 * the pipe's capacity) from /proc/PID/fd, fdinfo, sock_diag and pidfd_getfd
 * *while the process lives and the fd is open*, and it does so when it
 * consumes the events, which it reads from the rings at most every ~100 ms.
 * The sleep before lets the fd table settle (dup2, closes of the unused ends,
 * exec) and those events be consumed before data moves; the hold after keeps
 * the fd there until the tracer has looked, even when it is late.
 *
 * Roles below: P is the process started (the parent), C its child (fork).
 *
 * backpressure	A pipe (capacity printed with -v; 65536 by default). C (role
 *		producer) writes 64 x 4096 = 262144 bytes as fast as it can:
 *		the first 16 fill the pipe, each further write blocks until P
 *		reads. P (role consumer) sleeps 20 ms before each of its 64
 *		reads of 4096 bytes (4096 <= PIPE_BUF: each write is atomic and
 *		each read gets one whole write). P starts reading 20 ms after
 *		C's first write, so the pipe is full before the first read.
 *		The consumer is >10x slower than the producer: C sleeps ~48 x
 *		20 ms inside writes, P almost never inside reads.
 *		  flow pipe:[A] C -> P: 262144 bytes, writes 64, reads 64,
 *		  max queued = capacity, verdict backpressure
 *		No EOF read: P stops after 262144 bytes (a read waiting for EOF
 *		would count as reader blocked time).
 *
 * starved		A pipe. C (producer) sleeps 50 ms before each of its 64 writes
 *		of 100 bytes. P (consumer) reads with 4096-byte reads until it
 *		has 6400 bytes, so it waits ~50 ms inside each read.
 *		  flow pipe:[A] C -> P: 6400 bytes, writes 64,
 *		  verdict consumer-starved
 *
 * bigwrite	A pipe. P (role consumer) is asleep in read (4096-byte reads)
 *		when C (role producer), SETTLE_MS + 50 ms in, writes 262144
 *		bytes with one write (four times the default capacity; it
 *		must not be split). The reads that drain the write's first
 *		bytes end before the write returns (at most a pipe's worth is
 *		left in it then).
 *		  flow pipe:[A] C -> P: 262144 bytes, writes 1, every read's
 *		  wire time > 0 (from the write's start)
 *
 * twophase	A pipe, backpressured, then starved (for flows -I). Phase 1:
 *		C (role producer) writes 56 x 4096 = 229376 bytes as fast as
 *		it can while P (role consumer) sleeps 12 ms before each of its
 *		56 reads of 4096 bytes (~0.67 s): once the pipe is full C
 *		sleeps in its writes, P never in its reads. C then waits until
 *		the pipe is empty (FIONREAD, no read or write). Phase 2: C
 *		sleeps 50 ms before each of its 14 writes of 100 bytes (~0.7
 *		s) while P reads them with 4096-byte reads, asleep in each.
 *		With -v, P says the bytes at its end:
 *		  flowwork: twophase bytes=230776 phase1=229376 phase2=1400
 *		  flow pipe:[A] C -> P: 230776 bytes, backpressure in phase 1,
 *		  consumer-starved in phase 2
 *
 * idle		A pipe no byte goes through. C (role producer) holds the write
 *		end SETTLE_MS + 50 ms and closes it without writing; P (role
 *		consumer) reads once, asleep in the read until C closes, and
 *		gets EOF (0 bytes).
 *		  flow pipe:[A]: 0 bytes, writes 0, reads 0, no writer, reader
 *		  P (its EOF read), reader blocked >= 50 ms, verdict idle
 *
 * unix-rr		socketpair(AF_UNIX, SOCK_STREAM). C (role client) sends 20
 *		requests of 64 bytes, each with one write, and reads a 256-byte
 *		response after each; P (role server) reads each 64-byte request
 *		and answers with one write of 256 bytes. Before each read, each
 *		side waits with poll() (not traced) until the bytes are in the
 *		socket, then sleeps 1 ms: no read ever waits for its write, so
 *		each read ends >= 1 ms after the write that fed it, and every
 *		wire time is > 0.
 *		  flow socket:[C's end] C -> P: 1280 bytes (20 writes)
 *		  flow socket:[P's end] P -> C: 5120 bytes (20 writes)
 *
 * tcp		P (role server) listens on 127.0.0.1, ephemeral port, and forks
 *		C (role client), which connects (right after socket(), so the
 *		tracer sees the socket connected), then sends 10 x 1000 bytes,
 *		each with one write, waiting for a 1-byte ack after each; P
 *		waits for the connection in epoll_wait (an epoll fd made after
 *		the fork), accepts, reads each 1000 bytes and acks with a
 *		1-byte write. P's fds: 3 listening (accept only), 4 the epoll
 *		fd (no read or write), 5 the accepted socket.
 *		  flow socket:[C's] C -> P: 10000 bytes, kind tcp
 *		  flow socket:[P's accepted] P -> C: 10 bytes, kind tcp
 *
 * pipes		Six pipes, made first thing in main, so on the lowest free fds
 *		(3..14 when only 0, 1, 2 are open): the fd numbers a program usually gets, and that the
 *		dynamic loader and the tracer's own start-up used just before.
 *		With -v, each pipe k (0..5) is named: "flowwork: pipe k=K ino=N".
 *		C (role producer) writes (k + 1) x 1000 bytes into pipe k with
 *		one write; P (role consumer) reads each pipe in turn, 0 to 5,
 *		until it has its bytes, with 4096-byte reads (one read for
 *		pipes 0..3, two for 4 and 5).
 *		  flow pipe:[ino of k] C -> P: (k + 1) x 1000 bytes, k = 0..5
 *
 * deepqueue	A unix socketpair (stream) whose writing end gets an 8 MiB send
 *		buffer (SO_SNDBUFFORCE: root), deeper than all the bytes. C
 *		(role producer) writes 2 MiB in 32 writes of 65536 bytes as
 *		fast as it can: none waits for room. P (role consumer) starts
 *		SETTLE_MS + 100 ms in, when every byte is in the socket, and
 *		reads 4096 bytes every 2 ms (512 reads, ~1.1 s): no read waits
 *		for bytes. Neither side sleeps in a call, yet the bytes wait
 *		in the channel for the slow reader (the median ~0.5 s, some
 *		250 of its reads).
 *		  flow socket:[C's end] C -> P: 2097152 bytes, writes 32,
 *		  reads 512, verdict backpressure by queue residence
 *
 * producer N	One process (role producer): writes N bytes of 'x' to stdout
 *		in writes of at most 1024 bytes, then exits.
 * consumer	One process (role consumer): reads stdin with 4096-byte reads
 *		until EOF, then exits. As `sh -c 'flowwork producer 5000 |
 *		flowwork consumer'`: one pipe flow between sh's two children,
 *		5000 bytes.
 *
 * relay		One process (role relay): reads stdin with reads of at most
 *		4096 bytes, sleeps 20 ms after each, and writes what it read
 *		to stdout, until EOF. As `sh -c 'flowwork producer 262144 |
 *		flowwork relay | flowwork consumer'`: the relay is >10x slower
 *		than either side, so the producer waits to write into it
 *		(backpressure) and the consumer waits to read from it
 *		(consumer-starved): the relay is the bottleneck.
 *		  flows pipe:[A] producer -> relay and pipe:[B] relay ->
 *		  consumer, 262144 bytes each
 *
 * preconnected	For "a unix socket connected before the capture started".
 *		P makes socketpair(AF_UNIX, SOCK_STREAM) and forks C; C waits
 *		for SIGUSR1. P prints `ready P C` (its pid and C's) on stdout
 *		and waits for one byte on stdin (the test starts the tracer
 *		with -p P,C meanwhile), then sends SIGUSR1 to C. C (role
 *		sender) writes 50 x 100 bytes; P (role receiver) reads 5000
 *		bytes with 4096-byte reads. P waits for C and exits.
 *		  flow socket:[C's end] C -> P: 5000 bytes
 *		EOF on stdin instead of the byte: exit 3.
 *
 * Event loops: CHAN is pipe, unix (socketpair, stream) or tcp (127.0.0.1,
 * C connects to P, both buffers set to 32768 so that the channel fills).
 * Both ends are non-blocking and each process waits in epoll_wait on its
 * own epoll fd (level-triggered): the producer C for EPOLLOUT on the
 * writing end, the consumer P for EPOLLIN on the reading end. At its end,
 * each says what it was refused and how many of its waits returned ready:
 *   flowwork: again role=ROLE again=N waits=W
 * Every wait that returns is followed by a read or write on the fd.
 *
 * evflood CHAN	C (role producer) writes 1 MiB in writes of 16384 bytes
 *		as fast as it can: refused (EAGAIN, counted), it waits in
 *		epoll for room, once per refusal (waits == again). P (role
 *		consumer) starts SETTLE_MS + 50 ms after C, and then, until it
 *		has 1 MiB, waits in epoll (the channel is never empty: no
 *		sleep there), reads once (at most 16384 bytes) and sleeps
 *		2 ms: >= 64 rounds, C waits in epoll >= 100 ms.
 *		  flow CHAN C -> P: 1048576 bytes, write_again = C's again > 0,
 *		  write_waits = C's waits, read_again, read_waits = P's,
 *		  verdict backpressure
 *
 * evtrickle CHAN	C (role producer) writes 32 x 100 bytes, one write each,
 *		20 ms apart, never refused and never waiting. P (role
 *		consumer), until it has 3200 bytes, waits in epoll (~20 ms
 *		each time) and reads with 4096-byte reads until one is
 *		refused (EAGAIN, counted).
 *		  flow CHAN C -> P: 3200 bytes, write_again = write_waits = 0,
 *		  read_again = P's again > 0, read_waits = P's waits,
 *		  verdict consumer-starved
 *
 * pollflood CHAN, polltrickle CHAN
 *		The same, each process waiting in poll() on its one fd
 *		(POLLOUT, POLLIN) instead of epoll: no epoll fd.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "work-common.h"

#define SETTLE_MS 300
#define DEEP_TOTAL (2 * 1024 * 1024)
#define DEEP_WRITE 65536

static const char *scenario = "?";

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0)
		if (errno != EINTR)
			die("nanosleep: %s", strerror(errno));
}

static void role(const char *name)
{
	if (work_verbose)
		fprintf(stderr, "flowwork: role=%s pid=%d\n", name, (int)getpid());
}

/* Write all @len bytes with one or more write() calls; @return the calls made. */
static unsigned int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	unsigned int calls = 0;

	while (len) {
		ssize_t n = write(fd, p, len);

		calls++;
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("write(%d, %zu): %s", fd, len, n < 0 ? strerror(errno) : "returned 0");
		p += n;
		len -= (size_t)n;
	}
	return calls;
}

/* Read exactly @len bytes with reads of at most @chunk; EOF before is fatal. */
static void read_exact(int fd, size_t len, size_t chunk)
{
	char buf[4096];

	if (chunk > sizeof(buf))
		chunk = sizeof(buf);
	while (len) {
		ssize_t n = read(fd, buf, len < chunk ? len : chunk);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("read(%d): %s with %zu bytes still to come", fd,
			    n < 0 ? strerror(errno) : "EOF", len);
		len -= (size_t)n;
	}
}

/* Wait (poll, not a traced call) until @fd has bytes to read, then 1 ms more. */
static void await_data(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	while (poll(&p, 1, -1) < 0)
		if (errno != EINTR)
			die("poll(%d): %s", fd, strerror(errno));
	sleep_ms(1);
}


/*
 * Fork C, which plays @child_role on @ch[1], while P plays @parent_role on
 * @ch[0]: each closes the other's end. @return as fork().
 */
static pid_t fork_ends(int ch[2], const char *child_role, const char *parent_role)
{
	pid_t c = xfork(NULL);

	role(c == 0 ? child_role : parent_role);
	xclose(c == 0 ? ch[0] : ch[1]);
	return c;
}

/* The end of C's part: its channel fd held SETTLE_MS after its last call. */
__attribute__((noreturn)) static void child_done(int fd)
{
	sleep_ms(SETTLE_MS);
	xclose(fd);
	_exit(0);
}

/* The end of P's part: its channel fd held SETTLE_MS, then C waited for; @return 0. */
static int parent_done(int fd, pid_t c)
{
	sleep_ms(SETTLE_MS);
	xclose(fd);
	reap(c, "child");
	return 0;
}

/* One write() of all @len bytes, or die. */
static void write_whole(int fd, const void *buf, size_t len)
{
	if (write_all(fd, buf, len) != 1)
		die("a %zu-byte write on fd %d was split", len, fd);
}

/* ------------------------------------------------------------------ pipes */

static void make_pipe(int p[2])
{
	int cap;

	if (pipe(p) < 0)
		die("pipe: %s", strerror(errno));
	cap = fcntl(p[1], F_GETPIPE_SZ);
	if (cap < 0)
		die("F_GETPIPE_SZ: %s", strerror(errno));
	if (work_verbose)
		fprintf(stderr, "flowwork: pipe-capacity=%d\n", cap);
}

/*
 * backpressure, starved and bigwrite: over a pipe, C (producer) makes
 * @writes writes of @wlen bytes of @fill, starting @wstart_ms after
 * SETTLE_MS, @wgap_ms before each; P (consumer) makes @reads read_exact()s
 * of @rlen bytes in reads of at most 4096, @rgap_ms before each.
 */
struct pipe_plan {
	char fill;
	unsigned int wstart_ms, wgap_ms, rgap_ms;
	int writes, reads;
	size_t wlen, rlen;
};

/* The longest write of a plan: bigwrite's. */
#define PLAN_MAX_WRITE 262144

static int pipe_plan_run(const struct pipe_plan *pl)
{
	static char buf[PLAN_MAX_WRITE];
	int p[2];
	pid_t c;

	make_pipe(p);
	c = fork_ends(p, "producer", "consumer");
	if (c == 0) {
		memset(buf, pl->fill, pl->wlen);
		sleep_ms(SETTLE_MS + pl->wstart_ms);
		for (int i = 0; i < pl->writes; i++) {
			if (pl->wgap_ms)
				sleep_ms(pl->wgap_ms);
			write_whole(p[1], buf, pl->wlen);
		}
		child_done(p[1]);
	}
	sleep_ms(SETTLE_MS);
	for (int i = 0; i < pl->reads; i++) {
		if (pl->rgap_ms)
			sleep_ms(pl->rgap_ms);
		read_exact(p[0], pl->rlen, 4096);
	}
	return parent_done(p[0], c);
}

#define TWO_BIG_N 56
#define TWO_SMALL_N 14
#define TWO_SMALL 100

/* twophase's producer: fast into a slow reader, then slow into a waiting one. */
__attribute__((noreturn)) static void twophase_producer(int wr)
{
	static char buf[4096];
	int queued;

	memset(buf, 't', sizeof(buf));
	sleep_ms(SETTLE_MS);
	for (int i = 0; i < TWO_BIG_N; i++)
		write_whole(wr, buf, sizeof(buf));
	do {
		if (ioctl(wr, FIONREAD, &queued) < 0)
			die("FIONREAD: %s", strerror(errno));
		sleep_ms(1);
	} while (queued > 0);
	for (int i = 0; i < TWO_SMALL_N; i++) {
		sleep_ms(50);
		write_whole(wr, buf, TWO_SMALL);
	}
	child_done(wr);
}

static int twophase(const char *arg)
{
	int p[2];
	pid_t c;

	make_pipe(p);
	c = fork_ends(p, "producer", "consumer");
	if (c == 0)
		twophase_producer(p[1]);
	sleep_ms(SETTLE_MS);
	for (int i = 0; i < TWO_BIG_N; i++) {
		sleep_ms(12);
		read_exact(p[0], 4096, 4096);
	}
	read_exact(p[0], TWO_SMALL_N * TWO_SMALL, 4096);
	if (work_verbose)
		fprintf(stderr, "flowwork: twophase bytes=%d phase1=%d phase2=%d\n",
			TWO_BIG_N * 4096 + TWO_SMALL_N * TWO_SMALL, TWO_BIG_N * 4096,
			TWO_SMALL_N * TWO_SMALL);
	return parent_done(p[0], c);
}

static int idle(const char *arg)
{
	char buf[64];
	ssize_t n;
	int p[2];
	pid_t c;

	make_pipe(p);
	c = fork_ends(p, "producer", "consumer");
	if (c == 0) {
		sleep_ms(SETTLE_MS + 50);
		xclose(p[1]);
		_exit(0);
	}
	while ((n = read(p[0], buf, sizeof(buf))) < 0 && errno == EINTR)
		;
	if (n != 0)
		die("read of the idle pipe: %zd, want EOF", n);
	return parent_done(p[0], c);
}

static int pipes(const char *arg)
{
	static char buf[6000];
	int p[6][2];
	pid_t c;

	for (int k = 0; k < 6; k++) {
		struct stat sb;

		if (pipe(p[k]) < 0 || fstat(p[k][0], &sb) < 0)
			die("pipe: %s", strerror(errno));
		if (work_verbose)
			fprintf(stderr, "flowwork: pipe k=%d ino=%llu\n", k,
				(unsigned long long)sb.st_ino);
	}
	c = xfork(NULL);
	if (c == 0) {
		role("producer");
		for (int k = 0; k < 6; k++)
			xclose(p[k][0]);
		memset(buf, 'm', sizeof(buf));
		sleep_ms(SETTLE_MS);
		for (int k = 0; k < 6; k++)
			write_whole(p[k][1], buf, (size_t)(k + 1) * 1000);
		sleep_ms(SETTLE_MS);
		for (int k = 0; k < 6; k++)
			xclose(p[k][1]);
		_exit(0);
	}
	role("consumer");
	for (int k = 0; k < 6; k++)
		xclose(p[k][1]);
	sleep_ms(SETTLE_MS);
	for (int k = 0; k < 6; k++)
		read_exact(p[k][0], (size_t)(k + 1) * 1000, 4096);
	sleep_ms(SETTLE_MS);
	for (int k = 0; k < 6; k++)
		xclose(p[k][0]);
	reap(c, "child");
	return 0;
}

static int producer(const char *arg)
{
	char buf[1024];
	char *end;
	unsigned long n;

	if (!arg)
		die("usage: flowwork producer BYTES");
	errno = 0;
	n = strtoul(arg, &end, 10);
	if (errno || *end || end == arg)
		die("bad byte count '%s'", arg);
	role("producer");
	memset(buf, 'x', sizeof(buf));
	sleep_ms(SETTLE_MS);
	while (n) {
		size_t k = n < sizeof(buf) ? n : sizeof(buf);

		write_all(1, buf, k);
		n -= k;
	}
	sleep_ms(SETTLE_MS);
	return 0;
}

/* consumer and relay (the scenario's name says which): stdin read until EOF. */
static int from_stdin(const char *arg)
{
	bool relay = !strcmp(scenario, "relay");
	char buf[4096];
	ssize_t n;

	role(scenario);
	sleep_ms(SETTLE_MS);
	while ((n = read(0, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("read(0): %s", strerror(errno));
		if (relay) {
			sleep_ms(20);
			write_all(1, buf, (size_t)n);
		}
	}
	sleep_ms(SETTLE_MS);
	return 0;
}

/* ------------------------------------------------------------------ sockets */

static void make_socketpair(int type, int sv[2])
{
	if (socketpair(AF_UNIX, type, 0, sv) < 0)
		die("socketpair: %s", strerror(errno));
}

static int unix_rr(const char *arg)
{
	char req[64], resp[256];
	int sv[2];
	pid_t c;

	memset(req, 'q', sizeof(req));
	memset(resp, 'r', sizeof(resp));
	make_socketpair(SOCK_STREAM, sv);
	c = fork_ends(sv, "client", "server");
	if (c == 0) {
		sleep_ms(SETTLE_MS);
		for (int i = 0; i < 20; i++) {
			write_whole(sv[1], req, sizeof(req));
			await_data(sv[1]);
			read_exact(sv[1], sizeof(resp), sizeof(resp));
		}
		child_done(sv[1]);
	}
	sleep_ms(SETTLE_MS);
	for (int i = 0; i < 20; i++) {
		await_data(sv[0]);
		read_exact(sv[0], sizeof(req), sizeof(req));
		write_whole(sv[0], resp, sizeof(resp));
	}
	return parent_done(sv[0], c);
}

/*
 * A deep channel and a slow reader: the writer never waits, the bytes do.
 * SO_SNDBUFFORCE, not SO_SNDBUF: the latter is capped at wmem_max (~200 KB).
 */
static int deepqueue(const char *arg)
{
	static char buf[DEEP_WRITE];
	int sv[2], big = 8 << 20;
	pid_t c;

	make_socketpair(SOCK_STREAM, sv);
	if (setsockopt(sv[1], SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big)) < 0)
		die("SO_SNDBUFFORCE of 8 MiB (needs CAP_NET_ADMIN): %s", strerror(errno));
	c = fork_ends(sv, "producer", "consumer");
	if (c == 0) {
		memset(buf, 'q', sizeof(buf));
		sleep_ms(SETTLE_MS);
		for (int i = 0; i < DEEP_TOTAL / DEEP_WRITE; i++)
			write_whole(sv[1], buf, sizeof(buf));
		child_done(sv[1]);
	}
	sleep_ms(SETTLE_MS + 100);
	for (int i = 0; i < DEEP_TOTAL / 4096; i++) {
		read_exact(sv[0], 4096, 4096);
		sleep_ms(2);
	}
	return parent_done(sv[0], c);
}

static int tcp(const char *arg)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	char msg[1000], ack = 'k';
	int ls, s, ep, one = 1;
	pid_t c;

	memset(msg, 't', sizeof(msg));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0)
		die("socket: %s", strerror(errno));
	if (bind(ls, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(ls, 1) < 0 ||
	    getsockname(ls, (struct sockaddr *)&a, &alen) < 0)
		die("listen on 127.0.0.1: %s", strerror(errno));
	c = xfork(NULL);
	if (c == 0) {
		role("client");
		xclose(ls);
		s = socket(AF_INET, SOCK_STREAM, 0);
		if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)) < 0)
			die("connect: %s", strerror(errno));
		/* No Nagle delay between a send and the ack wait (not needed, but cheap). */
		setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		sleep_ms(SETTLE_MS);
		for (int i = 0; i < 10; i++) {
			write_whole(s, msg, sizeof(msg));
			read_exact(s, 1, 1);
		}
		child_done(s);
	}
	role("server");
	/* As a server does: wait in epoll for the connection, then accept it. */
	ep = epoll_create1(0);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, ls, &(struct epoll_event){ .events = EPOLLIN }) < 0)
		die("epoll: %s", strerror(errno));
	while (epoll_wait(ep, &(struct epoll_event){ 0 }, 1, -1) < 0)
		if (errno != EINTR)
			die("epoll_wait: %s", strerror(errno));
	s = accept(ls, NULL, NULL);
	if (s < 0)
		die("accept: %s", strerror(errno));
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	sleep_ms(SETTLE_MS);
	for (int i = 0; i < 10; i++) {
		read_exact(s, sizeof(msg), sizeof(msg));
		write_whole(s, &ack, 1);
	}
	sleep_ms(SETTLE_MS);
	xclose(s);
	xclose(ep);
	xclose(ls);
	reap(c, "child");
	return 0;
}

static void on_usr1(int sig)
{
	(void)sig;
}

static int preconnected(const char *arg)
{
	char msg[100], go;
	sigset_t usr1, old;
	int sv[2], sig;
	ssize_t n;
	pid_t c;

	memset(msg, 'p', sizeof(msg));
	/* Blocked before the fork, so that a signal sent early is not lost. */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	signal(SIGUSR1, on_usr1);
	if (sigprocmask(SIG_BLOCK, &usr1, &old) < 0)
		die("sigprocmask: %s", strerror(errno));
	make_socketpair(SOCK_STREAM, sv);
	c = fork_ends(sv, "sender", "receiver");
	if (c == 0) {
		while (sigwait(&usr1, &sig) != 0 || sig != SIGUSR1)
			;
		sleep_ms(SETTLE_MS);
		for (int i = 0; i < 50; i++)
			write_whole(sv[1], msg, sizeof(msg));
		child_done(sv[1]);
	}
	printf("ready %d %d\n", (int)getpid(), (int)c);
	fflush(stdout);
	while ((n = read(0, &go, 1)) < 0 && errno == EINTR)
		;
	if (n != 1) {
		kill(c, SIGKILL);
		die("no go byte on stdin (%s)", n < 0 ? strerror(errno) : "EOF");
	}
	if (kill(c, SIGUSR1) < 0)
		die("kill(%d, SIGUSR1): %s", (int)c, strerror(errno));
	sleep_ms(SETTLE_MS);
	read_exact(sv[0], 5000, 4096);
	return parent_done(sv[0], c);
}

/* ------------------------------------------------------------------ event loops */

#define EV_TOTAL (1024 * 1024)
#define EV_CHUNK 16384
#define EV_SOCKBUF 32768
#define TRICKLE_WRITES 32
#define TRICKLE_BYTES 100

/* An event-loop channel: after ev_chan_split(), the process's own end. */
struct evchan {
	const char *kind;
	int rd, wr, ls;
	struct sockaddr_in a;
};

static void set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		die("O_NONBLOCK on %d: %s", fd, strerror(errno));
}

static void set_buf(int fd, int opt)
{
	int v = EV_SOCKBUF;

	if (setsockopt(fd, SOL_SOCKET, opt, &v, sizeof(v)) < 0)
		die("setsockopt(%d): %s", fd, strerror(errno));
}

/* Before the fork: the pipe, the socketpair, or P's listening socket. */
static void ev_chan_make(struct evchan *ch, const char *kind)
{
	socklen_t alen = sizeof(ch->a);
	int sv[2];

	ch->kind = kind ? kind : "?";
	ch->rd = ch->wr = ch->ls = -1;
	if (!strcmp(ch->kind, "pipe")) {
		make_pipe(sv);
	} else if (!strcmp(ch->kind, "unix")) {
		make_socketpair(SOCK_STREAM, sv);
	} else if (!strcmp(ch->kind, "tcp")) {
		ch->a = (struct sockaddr_in){ .sin_family = AF_INET,
					      .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		ch->ls = socket(AF_INET, SOCK_STREAM, 0);
		if (ch->ls < 0)
			die("socket: %s", strerror(errno));
		set_buf(ch->ls, SO_RCVBUF);
		if (bind(ch->ls, (struct sockaddr *)&ch->a, sizeof(ch->a)) < 0 ||
		    listen(ch->ls, 1) < 0 || getsockname(ch->ls, (struct sockaddr *)&ch->a, &alen) < 0)
			die("listen on 127.0.0.1: %s", strerror(errno));
		return;
	} else {
		die("channel '%s': want pipe, unix or tcp", ch->kind);
	}
	ch->rd = sv[0];
	ch->wr = sv[1];
}

/* After the fork: the producer keeps (or connects) the writing end, the consumer the reading one. */
static void ev_chan_split(struct evchan *ch, bool producer)
{
	if (ch->ls >= 0 && producer) {
		xclose(ch->ls);
		ch->wr = socket(AF_INET, SOCK_STREAM, 0);
		if (ch->wr < 0)
			die("socket: %s", strerror(errno));
		set_buf(ch->wr, SO_SNDBUF);
		if (connect(ch->wr, (struct sockaddr *)&ch->a, sizeof(ch->a)) < 0)
			die("connect: %s", strerror(errno));
	} else if (ch->ls >= 0) {
		ch->rd = accept(ch->ls, NULL, NULL);
		if (ch->rd < 0)
			die("accept: %s", strerror(errno));
		xclose(ch->ls);
	} else {
		xclose(producer ? ch->rd : ch->wr);
	}
	set_nonblock(producer ? ch->wr : ch->rd);
}

/* poll() in place of epoll (pollflood, polltrickle): the one fd and what it waits for. */
static bool use_poll;
static struct pollfd poll_on;

/* An epoll fd watching @fd for @events (with use_poll: -1, the fd kept for poll()). */
static int ev_epoll(int fd, uint32_t events)
{
	int ep;

	if (use_poll) {
		poll_on = (struct pollfd){ .fd = fd, .events = events == EPOLLIN ? POLLIN : POLLOUT };
		return -1;
	}
	ep = epoll_create1(0);

	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &(struct epoll_event){ .events = events }) < 0)
		die("epoll: %s", strerror(errno));
	return ep;
}

/* Wait in epoll until the fd is ready; @return 1 (the waits that returned it). */
static unsigned int ev_wait(int ep)
{
	struct epoll_event e;
	int n;

	while ((n = use_poll ? poll(&poll_on, 1, -1) : epoll_wait(ep, &e, 1, -1)) < 0)
		if (errno != EINTR)
			die("%s: %s", use_poll ? "poll" : "epoll_wait", strerror(errno));
	if (n != 1)
		die("epoll_wait returned %d", n);
	return 1;
}

static void ev_said(const char *name, unsigned int again, unsigned int waits)
{
	if (work_verbose)
		fprintf(stderr, "flowwork: again role=%s again=%u waits=%u\n", name, again, waits);
}

/* C of evflood: 1 MiB as fast as the channel takes it, waiting for room when refused. */
static void flood_producer(int fd, int ep)
{
	static char buf[EV_CHUNK];
	unsigned int again = 0, waits = 0;
	size_t left = EV_TOTAL;

	memset(buf, 'f', sizeof(buf));
	while (left) {
		ssize_t n = write(fd, buf, left < sizeof(buf) ? left : sizeof(buf));

		if (n < 0 && errno == EAGAIN) {
			again++;
			waits += ev_wait(ep);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("write(%d): %s", fd, n < 0 ? strerror(errno) : "returned 0");
		left -= (size_t)n;
	}
	ev_said("producer", again, waits);
}

/* P of evflood: a wait, one read, 2 ms of work, until 1 MiB came. */
static void flood_consumer(int fd, int ep)
{
	static char buf[EV_CHUNK];
	unsigned int again = 0, waits = 0;
	size_t left = EV_TOTAL;

	while (left) {
		ssize_t n;

		waits += ev_wait(ep);
		n = read(fd, buf, left < sizeof(buf) ? left : sizeof(buf));
		if (n < 0 && errno == EAGAIN)
			again++;
		else if (n <= 0 && !(n < 0 && errno == EINTR))
			die("read(%d): %s", fd, n < 0 ? strerror(errno) : "EOF");
		else if (n > 0)
			left -= (size_t)n;
		sleep_ms(2);
	}
	ev_said("consumer", again, waits);
}

/* C of evtrickle: 32 writes of 100 bytes, 20 ms apart. */
static void trickle_producer(int fd)
{
	char msg[TRICKLE_BYTES];

	memset(msg, 's', sizeof(msg));
	for (int i = 0; i < TRICKLE_WRITES; i++) {
		if (i)
			sleep_ms(20);
		write_whole(fd, msg, sizeof(msg));
	}
	ev_said("producer", 0, 0);
}

/* P of evtrickle: wait, then read until the channel is empty (refused). */
static void trickle_consumer(int fd, int ep)
{
	char buf[4096];
	unsigned int again = 0, waits = 0;
	size_t left = TRICKLE_WRITES * TRICKLE_BYTES;

	while (left) {
		waits += ev_wait(ep);
		for (;;) {
			ssize_t n = read(fd, buf, sizeof(buf));

			if (n < 0 && errno == EAGAIN) {
				again++;
				break;
			}
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0 || (size_t)n > left)
				die("read(%d): %s", fd, n < 0 ? strerror(errno) : "EOF or too much");
			left -= (size_t)n;
		}
	}
	ev_said("consumer", again, waits);
}

/* evflood, evtrickle, pollflood, polltrickle (the scenario's name says which) on channel @kind. */
static int evloop(const char *kind)
{
	bool flood = strstr(scenario, "flood") != NULL;
	struct evchan ch;
	pid_t c;
	int ep;

	use_poll = !strncmp(scenario, "poll", 4);
	ev_chan_make(&ch, kind);
	c = xfork(NULL);
	if (c == 0) {
		role("producer");
		ev_chan_split(&ch, true);
		ep = ev_epoll(ch.wr, EPOLLOUT);
		sleep_ms(SETTLE_MS);
		if (flood)
			flood_producer(ch.wr, ep);
		else
			trickle_producer(ch.wr);
		sleep_ms(SETTLE_MS);
		xclose(ch.wr);
		if (ep >= 0)
			xclose(ep);
		_exit(0);
	}
	role("consumer");
	ev_chan_split(&ch, false);
	ep = ev_epoll(ch.rd, EPOLLIN);
	sleep_ms(SETTLE_MS + (flood ? 50 : 0));
	if (flood)
		flood_consumer(ch.rd, ep);
	else
		trickle_consumer(ch.rd, ep);
	sleep_ms(SETTLE_MS);
	xclose(ch.rd);
	if (ep >= 0)
		xclose(ep);
	reap(c, "child");
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: flowwork backpressure|starved|bigwrite|twophase|idle|unix-rr|tcp|deepqueue|pipes|preconnected [-v]\n"
			"       flowwork producer BYTES [-v]\n"
			"       flowwork consumer [-v]\n"
			"       flowwork evflood|evtrickle|pollflood|polltrickle pipe|unix|tcp [-v]\n");
	return 2;
}

/*
 * The scenarios: @run, which gets the argument after the name (NULL when
 * none), or without it, pipe_plan_run() of @plan.
 */
static const struct {
	const char *name;
	int (*run)(const char *arg);
	struct pipe_plan plan;
} scenarios[] = {
	{ .name = "backpressure",
	  .plan = { .fill = 'b', .writes = 64, .wlen = 4096, .reads = 64, .rlen = 4096, .rgap_ms = 20 } },
	{ .name = "starved",
	  .plan = { .fill = 's', .writes = 64, .wlen = 100, .wgap_ms = 50, .reads = 1, .rlen = 6400 } },
	{ .name = "bigwrite",
	  .plan = { .fill = 'b', .wstart_ms = 50, .writes = 1, .wlen = PLAN_MAX_WRITE,
		    .reads = 1, .rlen = PLAN_MAX_WRITE } },
	{ .name = "idle", .run = idle },
	{ .name = "twophase", .run = twophase },
	{ .name = "unix-rr", .run = unix_rr },
	{ .name = "tcp", .run = tcp },
	{ .name = "deepqueue", .run = deepqueue },
	{ .name = "pipes", .run = pipes },
	{ .name = "producer", .run = producer },
	{ .name = "relay", .run = from_stdin },
	{ .name = "consumer", .run = from_stdin },
	{ .name = "preconnected", .run = preconnected },
	{ .name = "evflood", .run = evloop },
	{ .name = "evtrickle", .run = evloop },
	{ .name = "pollflood", .run = evloop },
	{ .name = "polltrickle", .run = evloop },
};

int main(int argc, char **argv)
{
	const char *arg = NULL;

	if (argc < 2)
		return usage();
	scenario = argv[1];
	work_prog = "flowwork";
	work_role = scenario;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			work_verbose = true;
		else if (!arg)
			arg = argv[i];
		else
			return usage();
	}
	/* A reader that went away must show as an error, not kill us silently. */
	signal(SIGPIPE, SIG_IGN);
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		if (!strcmp(scenario, scenarios[i].name))
			return scenarios[i].run ? scenarios[i].run(arg) : pipe_plan_run(&scenarios[i].plan);
	return usage();
}
