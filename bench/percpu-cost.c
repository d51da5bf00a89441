/*
 * percpu-cost: what ipcperf's start pays for each CPU of the machine, by
 * the piece (doc/scaling.md), measured on the CPUs there are: N perf
 * events opened in turn on each CPU, then each mapped with a ring of P data
 * pages, then all closed; the time of each phase, per event and per page.
 * A session opens a few events per CPU (a dummy for the sample ring, one
 * for the side-band ring, a bpf-output event; without BPF a tracepoint
 * each) and maps two rings per CPU, so a machine of C CPUs pays about
 * C times what one CPU's share costs here.
 *
 * usage: percpu-cost [N [P [KIND]]]   N events (default 256), P pages a
 *   ring (default 32; 0: no rings), KIND dummy | bpf-output | tracepoint
 *   (syscalls:sys_enter_read; default dummy). As root. Prints one line:
 *   kind, n, pages, ns per open, ns per mmap, ns per page, ns per close.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench-time.h"

/* The id of syscalls:sys_enter_read, from tracefs; -1 when it cannot be read. */
static long tracepoint_id(void)
{
	const char *paths[] = { "/sys/kernel/tracing/events/syscalls/sys_enter_read/id",
				"/sys/kernel/debug/tracing/events/syscalls/sys_enter_read/id" };
	long id = -1;

	for (size_t i = 0; i < 2 && id < 0; i++) {
		FILE *f = fopen(paths[i], "re");

		if (f && fscanf(f, "%ld", &id) != 1)
			id = -1;
		if (f)
			fclose(f);
	}
	return id;
}

static int set_attr(struct perf_event_attr *a, const char *kind)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->disabled = 1;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
	a->type = PERF_TYPE_SOFTWARE;
	if (!strcmp(kind, "dummy")) {
		a->config = PERF_COUNT_SW_DUMMY;
	} else if (!strcmp(kind, "bpf-output")) {
		a->config = PERF_COUNT_SW_BPF_OUTPUT;
		a->sample_period = 1;
	} else if (!strcmp(kind, "tracepoint")) {
		long id = tracepoint_id();

		if (id < 0)
			return -1;
		a->type = PERF_TYPE_TRACEPOINT;
		a->config = (uint64_t)id;
		a->sample_period = 1;
	} else {
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 256, pages = argc > 2 ? atol(argv[2]) : 32;
	const char *kind = argc > 3 ? argv[3] : "dummy";
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN), page = sysconf(_SC_PAGESIZE);
	struct perf_event_attr a;
	uint64_t t0, t1, t2, t3;
	void **maps;
	int *fds;

	if (n < 1 || pages < 0 || (pages & (pages - 1)) || set_attr(&a, kind) < 0 || ncpus < 1) {
		fprintf(stderr, "usage: percpu-cost [N [P [dummy|bpf-output|tracepoint]]]: "
			"N >= 1, P 0 or a power of two\n");
		return 2;
	}
	fds = calloc((size_t)n, sizeof(*fds));
	maps = calloc((size_t)n, sizeof(*maps));
	if (!fds || !maps)
		return 1;
	t0 = work_now_ns();
	for (long i = 0; i < n; i++) {
		fds[i] = (int)syscall(__NR_perf_event_open, &a, -1, (int)(i % ncpus), -1, 0);
		if (fds[i] < 0) {
			fprintf(stderr, "percpu-cost: perf_event_open #%ld: %s\n", i, strerror(errno));
			return 1;
		}
	}
	t1 = work_now_ns();
	for (long i = 0; pages && i < n; i++) {
		maps[i] = mmap(NULL, (size_t)(pages + 1) * (size_t)page, PROT_READ | PROT_WRITE,
			       MAP_SHARED, fds[i], 0);
		if (maps[i] == MAP_FAILED) {
			fprintf(stderr, "percpu-cost: mmap #%ld of %ld pages: %s\n", i, pages + 1,
				strerror(errno));
			return 1;
		}
	}
	t2 = work_now_ns();
	for (long i = 0; i < n; i++) {
		if (pages)
			munmap(maps[i], (size_t)(pages + 1) * (size_t)page);
		close(fds[i]);
	}
	t3 = work_now_ns();
	printf("%s n=%ld pages=%ld open_ns=%.0f mmap_ns=%.0f page_ns=%.0f close_ns=%.0f\n", kind,
	       n, pages, (double)(t1 - t0) / (double)n, (double)(t2 - t1) / (double)n,
	       pages ? (double)(t2 - t1) / (double)(n * (pages + 1)) : 0.0,
	       (double)(t3 - t2) / (double)n);
	free(fds);
	free(maps);
	return 0;
}
