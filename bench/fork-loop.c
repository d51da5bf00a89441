/*
 * fork-loop: a workload of bench/overhead: N times, fork a child that exits
 * at once and wait for it (default 10000), the worst case for whatever a
 * tracer does at fork and exit (following children, side-band records).
 *
 * One untimed fork first. With BENCH_TIME_FILE set, writes the nanoseconds
 * of the N timed forks there (CLOCK_MONOTONIC around the loop). Prints
 * nothing.
 *
 * usage: fork-loop [N]        exit status 0, or 1 on any failure
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

static int one(void)
{
	int status;
	pid_t c = fork();

	if (c < 0)
		return -1;
	if (c == 0)
		_exit(0);
	if (waitpid(c, &status, 0) != c || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	long n = 10000;
	uint64_t t0, t1;

	if (argc > 2 || (argc == 2 && (n = strtol(argv[1], NULL, 10)) <= 0)) {
		fprintf(stderr, "usage: fork-loop [FORKS]\n");
		return 1;
	}
	if (one() < 0) {
		fprintf(stderr, "fork-loop: %s\n", strerror(errno));
		return 1;
	}
	t0 = work_now_ns();
	for (long i = 0; i < n; i++)
		if (one() < 0) {
			fprintf(stderr, "fork-loop: %s\n", strerror(errno));
			return 1;
		}
	t1 = work_now_ns();
	if (bench_write_time(t1 - t0) < 0) {
		fprintf(stderr, "fork-loop: BENCH_TIME_FILE: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
