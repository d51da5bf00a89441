/*
 * open-loop: a workload of bench/overhead: N times open(2) a file by its
 * absolute path and close it (default 200000), what a tracer pays at each
 * fd-creating call (the BPF prototype: the record and its path walk).
 *
 * The file is the program itself (argv[0], made absolute), a path a few
 * directories deep. One untimed open first. With BENCH_TIME_FILE set,
 * writes the nanoseconds of the N timed open + close pairs there. Prints
 * nothing.
 *
 * usage: open-loop [N]        exit status 0, or 1 on any failure
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench-time.h"

int main(int argc, char **argv)
{
	char path[PATH_MAX];
	long n = 200000;
	uint64_t t0, t1;
	int fd;

	if (argc > 2 || (argc == 2 && (n = strtol(argv[1], NULL, 10)) <= 0)) {
		fprintf(stderr, "usage: open-loop [OPENS]\n");
		return 1;
	}
	if (!realpath("/proc/self/exe", path) || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		fprintf(stderr, "open-loop: %s\n", strerror(errno));
		return 1;
	}
	close(fd);
	t0 = work_now_ns();
	for (long i = 0; i < n; i++) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "open-loop: %s: %s\n", path, strerror(errno));
			return 1;
		}
		close(fd);
	}
	t1 = work_now_ns();
	if (bench_write_time(t1 - t0) < 0) {
		fprintf(stderr, "open-loop: BENCH_TIME_FILE: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
