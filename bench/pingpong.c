/*
 * pingpong: the benchmark workload of bench/overhead.
 *
 * Two processes bounce one byte back and forth through two pipes, N round
 * trips (default 100000): the parent writes a byte into pipe A, the child
 * reads it and writes it into pipe B, the parent reads it back.  Every round
 * trip is 2 write(2) and 2 read(2) of 1 byte each and at least two wakeups,
 * which is the worst case for a syscall tracer: nearly all the time is
 * spent in the kernel, in the calls being traced.
 *
 * One untimed warm-up round trip comes first (so the child is running and a
 * tracer following forks has attached to it); then the N timed ones.  In
 * total each process makes N + 1 reads and N + 1 writes of 1 byte.
 *
 * It prints nothing.  When the environment variable BENCH_TIME_FILE is set,
 * the parent writes to that file the elapsed nanoseconds of the N timed round
 * trips, measured with clock_gettime(CLOCK_MONOTONIC) just before the first
 * and just after the last, followed by a newline.  Timing inside the workload
 * leaves out the start-up and tear-down of whatever tracer runs it.
 *
 * usage: pingpong [N]        exit status 0, or 1 on any failure
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench-time.h"

static const char *prog = "pingpong";

static void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
	exit(1);
}

/* One byte each way; a pipe never splits a 1-byte write, so only EINTR
 * needs a retry.  End of file means the peer went away. */
static int put(int fd, char *c)
{
	ssize_t n;

	while ((n = write(fd, c, 1)) < 0 && errno == EINTR)
		;
	return n == 1 ? 0 : -1;
}

static int get(int fd, char *c)
{
	ssize_t n;

	while ((n = read(fd, c, 1)) < 0 && errno == EINTR)
		;
	if (n == 0)
		errno = EPIPE;
	return n == 1 ? 0 : -1;
}

int main(int argc, char **argv)
{
	long n = 100000;
	int a[2], b[2], status;
	uint64_t t0, t1;
	pid_t child;
	char c = 'x';

	if (argc > 2 || (argc == 2 && (n = strtol(argv[1], NULL, 10)) <= 0)) {
		fprintf(stderr, "usage: %s [ROUND_TRIPS]\n", prog);
		return 1;
	}
	if (pipe2(a, O_CLOEXEC) < 0 || pipe2(b, O_CLOEXEC) < 0)
		die("pipe");
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		close(a[1]);
		close(b[0]);
		for (long i = 0; i <= n; i++) {
			if (get(a[0], &c) < 0)
				die("child read");
			if (put(b[1], &c) < 0)
				die("child write");
		}
		_exit(0);
	}
	close(a[0]);
	close(b[1]);

	/* warm-up round trip, untimed */
	if (put(a[1], &c) < 0 || get(b[0], &c) < 0)
		die("warm-up");
	t0 = work_now_ns();
	for (long i = 0; i < n; i++) {
		if (put(a[1], &c) < 0)
			die("write");
		if (get(b[0], &c) < 0)
			die("read");
	}
	t1 = work_now_ns();

	close(a[1]);
	close(b[0]);
	if (waitpid(child, &status, 0) < 0)
		die("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "%s: child failed\n", prog);
		return 1;
	}
	if (bench_write_time(t1 - t0) < 0)
		die("BENCH_TIME_FILE");
	return 0;
}
