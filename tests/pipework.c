/*
 * pipework: the stages of a shell pipeline whose every record is known: the
 * subject of the pipe chains of request paths (ipcperf paths).
 *
 *   src N GAP_MS | STAGE X_MS | ... | sink
 *
 * The role is the name the program was started by (a symbolic link: src,
 * sink, or any other name for a stage), or its first argument when started
 * as pipework. src writes N records of 64 bytes on its standard output, one
 * write call each, GAP_MS apart. A stage reads one record at a time (read
 * calls of at most the bytes the record still lacks, until it has all 64),
 * spins X_MS on the CPU, and writes the record on in one call. sink reads
 * the records the same way. At the end of its input each stage prints on
 * stderr "NAME self p50 NS": the median, over its records, of the time from
 * the return of the read that completed a record to the start of the write
 * that passed it on (its own time, as it measured it: the ground truth);
 * sink prints "records N" on stdout. Two stages break the rule of one
 * record in, one out: merger reads two records and writes them in one call
 * of 128 bytes, splitter writes each record in two calls of 32. Exit
 * status 1 on any failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "work-clock.h"

#define RECORD 64
#define MAX_RECORDS 100000

static void die(const char *what)
{
	fprintf(stderr, "pipework: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* One record from stdin: 1, or 0 at the end of the input. */
static int read_record(char *buf)
{
	size_t got = 0;

	while (got < RECORD) {
		ssize_t n = read(0, buf + got, RECORD - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("read");
		if (n == 0) {
			if (got)
				errno = EPROTO, die("a record cut short");
			return 0;
		}
		got += (size_t)n;
	}
	return 1;
}

static void write_record(const char *buf)
{
	ssize_t n = write(1, buf, RECORD);

	if (n != RECORD)
		die("write");
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void src(long n, double gap_ms)
{
	char buf[RECORD];
	struct timespec gap = { .tv_sec = (time_t)(gap_ms / 1000),
				.tv_nsec = (long)(gap_ms * 1e6) % 1000000000L };

	for (long i = 0; i < n; i++) {
		memset(buf, 'a' + (int)(i % 26), sizeof(buf));
		write_record(buf);
		nanosleep(&gap, NULL);
	}
}

static void stage(const char *name, double x_ms)
{
	static uint64_t self[MAX_RECORDS];
	uint64_t spin = (uint64_t)(x_ms * 1e6);
	char buf[RECORD];
	size_t n = 0;

	while (read_record(buf)) {
		uint64_t t0 = work_now_ns(), t1;

		while ((t1 = work_now_ns()) - t0 < spin)
			;
		t1 = work_now_ns();
		write_record(buf);
		if (n < MAX_RECORDS)
			self[n++] = t1 - t0;
	}
	qsort(self, n, sizeof(*self), cmp_u64);
	fprintf(stderr, "%s self p50 %llu\n", name,
		n ? (unsigned long long)self[(n + 1) / 2 - 1] : 0ull);
}

static void merger(void)
{
	char buf[2 * RECORD];

	while (read_record(buf) && read_record(buf + RECORD))
		if (write(1, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			die("write");
}

static void splitter(void)
{
	char buf[RECORD];

	while (read_record(buf))
		if (write(1, buf, RECORD / 2) != RECORD / 2 ||
		    write(1, buf + RECORD / 2, RECORD / 2) != RECORD / 2)
			die("write");
}

static void sink(void)
{
	char buf[RECORD];
	long n = 0;

	while (read_record(buf))
		n++;
	printf("records %ld\n", n);
}

int main(int argc, char **argv)
{
	const char *role = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];

	if (!strcmp(role, "pipework") && argc > 1) {
		role = argv[1];
		argv++;
		argc--;
	}
	if (!strcmp(role, "src") && argc == 3)
		src(atol(argv[1]), atof(argv[2]));
	else if (!strcmp(role, "sink") && argc == 1)
		sink();
	else if (!strcmp(role, "merger") && argc == 1)
		merger();
	else if (!strcmp(role, "splitter") && argc == 1)
		splitter();
	else if (strcmp(role, "src") && strcmp(role, "sink") && argc == 2)
		stage(role, atof(argv[1]));
	else {
		fprintf(stderr, "usage: src N GAP_MS | STAGE X_MS | sink (by name, or pipework ROLE)\n");
		return 1;
	}
	return 0;
}
