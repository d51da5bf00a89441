/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ipcwork: a workload whose I/O is known exactly, for ipcperf's tests and demo.
 *
 *   ipcwork [pipe] [--exit N] [--hold MS] [-v]
 *	P0 makes a data pipe on fds 10 (read) / 11 (write) and a "go" pipe on
 *	fds 12 / 13, then forks a reader R and a writer W.
 *	W writes 10 buffers of 100, 200, ..., 1000 bytes (5500) to fd 11, then
 *	a thread T writes 5 x 300 (1500), then a child G writes 3 x 700 (2100).
 *	When W has exited, P0 writes the go byte to fd 13; R reads it from fd 12
 *	and only then drains fd 10 in reads of 1000 bytes: 9 x 1000, 1 x 100
 *	and 1 x 0 (EOF). The go byte keeps reads from racing writes, and 9100
 *	bytes fit in a pipe, so no write blocks. P0 exits with N.
 *	--hold MS: P0 waits MS ms after making its pipes and before forking.
 *	The whole run takes milliseconds; a tracer can only tell what an fd
 *	is by reading /proc while it is open, and it reads its rings every few
 *	tens of ms. The pause is that chance (the demo uses it).
 *
 *   ipcwork threads [-v]
 *	Opens /dev/null once per thread, starts 3 threads, prints "ready PID",
 *	and waits for one byte on stdin; then thread i (0..2) writes
 *	(i + 1) * 2 buffers of 64 bytes to its /dev/null fd. For attaching to
 *	a running multi-threaded process.
 *
 *   ipcwork naps N --out FILE [--hold]
 *	A thread sleeps N times for 100 us (nanosleep), reads its own
 *	context switches right after the last (getrusage RUSAGE_THREAD) and
 *	returns; the main thread joins it and writes "naps TID NVCSW NIVCSW"
 *	to FILE. A tracer must count exactly NVCSW voluntary switches for
 *	that thread, at least NIVCSW preemptions, and at least NVCSW wakeups
 *	(a sleep preempted before it blocks is woken without a voluntary
 *	switch). --hold: once the thread has its count it blocks in pause()
 *	for good (one more voluntary switch), and the main thread writes the
 *	line and pauses too, for a tracer that stops while they are alive;
 *	kill the process.
 *
 *   ipcwork spin MS --out FILE [--hold]
 *	One thread, no other: reads the process's CPU clock
 *	(CLOCK_PROCESS_CPUTIME_ID, the scheduler's runtime of its threads),
 *	burns MS ms of CPU, reads it again and writes "spin START END" (ns)
 *	to FILE, then exits 0 (--hold: pauses for good; kill it). A tracer
 *	that counts the runtime from the exec to the exit call (or the stop)
 *	counts at least END - START and at most END plus the few us of the
 *	line's write.
 *
 * Every transfer is a single write()/read() whose result is checked; anything
 * unexpected exits 3 with a message on stderr. Nothing goes to stdout but the
 * "ready" line, unless -v.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1	/* gettid, RUSAGE_THREAD */
#endif
#include <errno.h>
#include <time.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "work-common.h"

enum { DATA_RD = 10, DATA_WR = 11, GO_RD = 12, GO_WR = 13 };
enum { EXIT_USAGE = 2 };
enum { NR_THREADS = 3, THREAD_BUF = 64 };

/* One write() of @len bytes that must transfer them all. */
static void write_all_once(int fd, const void *buf, size_t len)
{
	ssize_t n;

	do
		n = write(fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		die("write(%d, %zu): %s", fd, len, strerror(errno));
	if ((size_t)n != len)
		die("write(%d, %zu) = %zd: short write", fd, len, n);
}

/* One read() of up to @len bytes; returns what it got. */
static size_t read_once(int fd, void *buf, size_t len)
{
	ssize_t n;

	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		die("read(%d, %zu): %s", fd, len, strerror(errno));
	return (size_t)n;
}


/*
 * A pipe whose ends are @rd and @wr. The ends pipe() returns may be anywhere,
 * even on @rd or @wr, so lift them above the targets first: then no dup2()
 * can clobber the other end.
 */
static void pipe_at(int rd, int wr)
{
	int p[2], hi[2];

	if (pipe(p) < 0)
		die("pipe: %s", strerror(errno));
	for (int i = 0; i < 2; i++) {
		hi[i] = fcntl(p[i], F_DUPFD, 64);
		if (hi[i] < 0)
			die("fcntl(F_DUPFD): %s", strerror(errno));
		xclose(p[i]);
	}
	if (dup2(hi[0], rd) < 0 || dup2(hi[1], wr) < 0)
		die("dup2: %s", strerror(errno));
	xclose(hi[0]);
	xclose(hi[1]);
}

/* ---------------------------------------------------------------- pipe */

static void write_n(int n, size_t len)
{
	static const char zeros[1000];

	for (int i = 0; i < n; i++)
		write_all_once(DATA_WR, zeros, len);
}

static void *thread_t(void *arg)
{
	(void)arg;
	write_n(5, 300);
	return NULL;
}

static void writer_w(void)
{
	static const char zeros[1000];
	pthread_t t;
	pid_t g;
	int err;

	work_role = "W";
	xclose(DATA_RD);
	xclose(GO_RD);
	xclose(GO_WR);

	for (size_t len = 100; len <= 1000; len += 100)
		write_all_once(DATA_WR, zeros, len);
	note("wrote 10 buffers, 5500 bytes");

	err = pthread_create(&t, NULL, thread_t, NULL);
	if (err)
		die("pthread_create: %s", strerror(err));
	err = pthread_join(t, NULL);
	if (err)
		die("pthread_join: %s", strerror(err));
	note("thread wrote 5 buffers, 1500 bytes");

	g = xfork(NULL);
	if (g == 0) {
		work_role = "G";
		write_n(3, 700);
		note("wrote 3 buffers, 2100 bytes");
		_exit(0);
	}
	reap(g, "grandchild G");
	_exit(0);
}

static void reader_r(void)
{
	char buf[1000];
	size_t total = 0;
	int nr = 0;

	work_role = "R";
	xclose(DATA_WR);
	xclose(GO_WR);

	if (read_once(GO_RD, buf, 1) != 1)
		die("no go byte on fd %d", GO_RD);
	/* All 9100 bytes are in the pipe and every writer is gone: 9 x 1000, 100, EOF. */
	for (;;) {
		size_t want = nr < 9 ? 1000 : nr == 9 ? 100 : 0;
		size_t n = read_once(DATA_RD, buf, sizeof(buf));

		if (n != want)
			die("read #%d on fd %d returned %zu, expected %zu", nr + 1, DATA_RD, n, want);
		nr++;
		total += n;
		if (n == 0)
			break;
	}
	note("read %d times, %zu bytes", nr, total);
	_exit(0);
}

static int run_pipe(int exit_code, int hold_ms)
{
	pid_t r, w;

	pipe_at(DATA_RD, DATA_WR);
	pipe_at(GO_RD, GO_WR);
	if (hold_ms > 0) {
		struct timespec ts = { hold_ms / 1000, (hold_ms % 1000) * 1000000L };

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}

	r = xfork(NULL);
	if (r == 0)
		reader_r();
	w = xfork(NULL);
	if (w == 0)
		writer_w();

	/* If W failed, reap() exits: that hangs up the go pipe and R fails loudly too. */
	reap(w, "writer W");
	write_all_once(GO_WR, "g", 1);
	xclose(DATA_RD);
	xclose(DATA_WR);
	xclose(GO_WR);
	reap(r, "reader R");
	note("done, exiting %d", exit_code);
	return exit_code;
}

/* ---------------------------------------------------------------- threads */

struct worker {
	pthread_t thread;
	int idx;
	int fd;
};

static pthread_barrier_t go_barrier;

static void *worker_main(void *arg)
{
	static const char buf[THREAD_BUF];
	const struct worker *w = arg;

	pthread_barrier_wait(&go_barrier);
	for (int i = 0; i < (w->idx + 1) * 2; i++)
		write_all_once(w->fd, buf, sizeof(buf));
	return NULL;
}

static int run_threads(void)
{
	struct worker w[NR_THREADS];
	char go;
	int err;

	/* Everything is opened before "ready": after go, only the writes happen. */
	err = pthread_barrier_init(&go_barrier, NULL, NR_THREADS + 1);
	if (err)
		die("pthread_barrier_init: %s", strerror(err));
	for (int i = 0; i < NR_THREADS; i++) {
		w[i].idx = i;
		w[i].fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (w[i].fd < 0)
			die("open /dev/null: %s", strerror(errno));
	}
	for (int i = 0; i < NR_THREADS; i++) {
		err = pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
		if (err)
			die("pthread_create: %s", strerror(err));
	}

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (read_once(STDIN_FILENO, &go, 1) != 1)
		die("stdin closed before the go byte");
	pthread_barrier_wait(&go_barrier);

	for (int i = 0; i < NR_THREADS; i++) {
		err = pthread_join(w[i].thread, NULL);
		if (err)
			die("pthread_join: %s", strerror(err));
	}
	note("threads wrote 2, 4 and 6 buffers of %d bytes", THREAD_BUF);
	return 0;
}

/* ---------------------------------------------------------------- naps */

struct naps {
	long n;
	const char *out;
	bool hold;
	struct rusage ru;
	pid_t tid;
	int counted[2];		/* --hold: a pipe, a byte once the thread's count is in ru */
};

static void write_naps(const struct naps *z)
{
	FILE *f = fopen(z->out, "we");

	if (!f || fprintf(f, "naps %d %ld %ld\n", (int)z->tid, z->ru.ru_nvcsw, z->ru.ru_nivcsw) < 0 ||
	    fclose(f) != 0)
		die("cannot write %s: %s", z->out, strerror(errno));
}

static void *nap_main(void *arg)
{
	struct naps *z = arg;
	const struct timespec nap = { .tv_nsec = 100000 };

	z->tid = gettid();
	for (long i = 0; i < z->n; i++)
		while (nanosleep(&nap, NULL) < 0 && errno == EINTR)
			;
	/* nothing between the last sleep and this that could block */
	if (getrusage(RUSAGE_THREAD, &z->ru) < 0)
		die("getrusage: %s", strerror(errno));
	if (!z->hold)
		return NULL;
	/* the main thread writes the line: a file write may block, pause() blocks once */
	if (write(z->counted[1], "c", 1) != 1)
		die("write: %s", strerror(errno));
	for (;;)
		pause();
}

static int run_naps(struct naps *z)
{
	pthread_t t;
	int err;
	char c;

	/*
	 * The main thread blocks while the other naps: a timer's wakeup in an
	 * interrupt that comes while a target runs is that target's sample.
	 */
	if (z->hold && pipe2(z->counted, O_CLOEXEC) < 0)
		die("pipe2: %s", strerror(errno));
	err = pthread_create(&t, NULL, nap_main, z);
	if (err)
		die("pthread_create: %s", strerror(err));
	if (z->hold) {
		while (read(z->counted[0], &c, 1) != 1)
			if (errno != EINTR)
				die("read: %s", strerror(errno));
		write_naps(z);
		for (;;)
			pause();
	}
	err = pthread_join(t, NULL);
	if (err)
		die("pthread_join: %s", strerror(err));
	write_naps(z);
	return 0;
}

/* ---------------------------------------------------------------- spin */

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) < 0)
		die("clock_gettime: %s", strerror(errno));
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* @z->n ms of CPU on this thread, between two reads of the process's clock */
static int run_spin(const struct naps *z)
{
	uint64_t start = clock_ns(CLOCK_PROCESS_CPUTIME_ID), end;
	uint64_t until = clock_ns(CLOCK_THREAD_CPUTIME_ID) + (uint64_t)z->n * 1000000ull;
	FILE *f;

	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < until)
		;
	end = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	f = fopen(z->out, "we");
	if (!f || fprintf(f, "spin %llu %llu\n", (unsigned long long)start,
			  (unsigned long long)end) < 0 || fclose(f) != 0)
		die("cannot write %s: %s", z->out, strerror(errno));
	while (z->hold)
		pause();
	return 0;
}

/* ---------------------------------------------------------------- main */

static void usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "ipcwork: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr,
		"\nusage: ipcwork [pipe] [--exit N] [--hold MS] [-v]\n"
		"                                          writers -> pipe -> reader, exit N (0..255)\n"
		"       ipcwork threads [-v]              3 threads write to /dev/null after a byte on stdin\n"
		"       ipcwork naps N --out FILE [--hold] a thread sleeps N times, FILE gets its switches\n"
		"       ipcwork spin MS --out FILE [--hold] MS ms of CPU, FILE gets the CPU clock around it\n");
	exit(EXIT_USAGE);
}

/* The whole number @s, within @lo..@hi; anything else is usage(@bad, @s). */
static long num_arg(const char *s, long lo, long hi, const char *bad)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || end == s || *end || n < lo || n > hi)
		usage(bad, s);
	return n;
}

/* The value of the option at argv[*@i], which moves @i on to it. */
static const char *opt_value(int argc, char **argv, int *i)
{
	if (++*i == argc)
		usage("%s needs a value", argv[*i - 1]);
	return argv[*i];
}

int main(int argc, char **argv)
{
	const char *cmd = "pipe";
	struct naps z = { 0 };
	int exit_code = 0, hold_ms = 0;
	bool timed;
	int i = 1;

	work_prog = "ipcwork";
	if (argc > 1 && argv[1][0] != '-') {
		cmd = argv[1];
		i = 2;
	}
	timed = !strcmp(cmd, "naps") || !strcmp(cmd, "spin");
	if (strcmp(cmd, "pipe") && strcmp(cmd, "threads") && !timed)
		usage("unknown command '%s'", cmd);
	if (timed) {
		if (i == argc)
			usage("%s needs a count", cmd);
		z.n = num_arg(argv[i++], 1, 1000000, "bad count '%s' (1..1000000)");
	}

	for (; i < argc; i++) {
		if (!strcmp(argv[i], "-v")) {
			work_verbose = true;
		} else if (!strcmp(argv[i], "--out") && timed) {
			z.out = opt_value(argc, argv, &i);
		} else if (!strcmp(argv[i], "--hold") && timed) {
			z.hold = true;
		} else if (!strcmp(argv[i], "--exit") && !strcmp(cmd, "pipe")) {
			exit_code = (int)num_arg(opt_value(argc, argv, &i), 0, 255,
						 "bad exit status '%s'");
		} else if (!strcmp(argv[i], "--hold") && !strcmp(cmd, "pipe")) {
			hold_ms = (int)num_arg(opt_value(argc, argv, &i), 0, 60000,
					       "bad hold time '%s' (ms, 0..60000)");
		} else {
			usage("unknown option '%s'", argv[i]);
		}
	}

	if (timed) {
		if (!z.out)
			usage("%s needs --out FILE", cmd);
		return !strcmp(cmd, "naps") ? run_naps(&z) : run_spin(&z);
	}
	return !strcmp(cmd, "pipe") ? run_pipe(exit_code, hold_ms) : run_threads();
}
