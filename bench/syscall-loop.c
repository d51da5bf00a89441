/*
 * syscall-loop: the single-process workload of bench/overhead.
 *
 * N (default 1000000) write(2) calls of 1 byte to /dev/null: about the
 * cheapest system call there is that a syscall tracer (ipcperf stat, ipcperf
 * stat --syscalls, strace, perf trace) accounts for, so a tracer's cost per
 * event dominates.  One untimed warm-up call comes first; in total the
 * process makes N + 1 such writes.
 *
 * It prints nothing.  When the environment variable BENCH_TIME_FILE is set,
 * it writes to that file the elapsed nanoseconds of the N timed calls,
 * measured with clock_gettime(CLOCK_MONOTONIC) just before the first and just
 * after the last, followed by a newline; a tracer's start-up and tear-down are
 * left out.
 *
 * usage: syscall-loop [N]    exit status 0, or 1 on any failure
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench-time.h"

static const char *prog = "syscall-loop";

static void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
	exit(1);
}

int main(int argc, char **argv)
{
	long n = 1000000;
	uint64_t t0, t1;
	char c = 'x';
	int fd;

	if (argc > 2 || (argc == 2 && (n = strtol(argv[1], NULL, 10)) <= 0)) {
		fprintf(stderr, "usage: %s [CALLS]\n", prog);
		return 1;
	}
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		die("/dev/null");
	if (write(fd, &c, 1) != 1)	/* warm-up, untimed */
		die("write");
	t0 = work_now_ns();
	for (long i = 0; i < n; i++)
		if (write(fd, &c, 1) != 1)
			die("write");
	t1 = work_now_ns();
	close(fd);
	if (bench_write_time(t1 - t0) < 0)
		die("BENCH_TIME_FILE");
	return 0;
}
