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

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

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
	const char *path = getenv("BENCH_TIME_FILE");
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
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		if (one() < 0) {
			fprintf(stderr, "fork-loop: %s\n", strerror(errno));
			return 1;
		}
	t1 = now_ns();
	if (path && *path) {
		FILE *f = fopen(path, "we");

		if (!f || fprintf(f, "%" PRIu64 "\n", t1 - t0) < 0 || fclose(f) != 0) {
			fprintf(stderr, "fork-loop: BENCH_TIME_FILE: %s\n", strerror(errno));
			return 1;
		}
	}
	return 0;
}
