/*
 * bench-time.h: the clock of the bench/ workloads (the test workloads' one,
 * work_now_ns()) and the file they report their time in. Header only:
 * bench/overhead and tests/test-memory.sh build each workload from its one
 * .c file, which finds this beside it.
 */
#ifndef IPCPERF_BENCH_TIME_H
#define IPCPERF_BENCH_TIME_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../tests/work-clock.h"

/*
 * Write @ns and a newline into the file the environment's BENCH_TIME_FILE
 * names (nothing when it is unset or empty). @return 0, or -1 with errno set.
 */
static inline int bench_write_time(uint64_t ns)
{
	const char *path = getenv("BENCH_TIME_FILE");
	FILE *f;

	if (!path || !*path)
		return 0;
	f = fopen(path, "we");
	if (!f)
		return -1;
	if (fprintf(f, "%" PRIu64 "\n", ns) < 0) {
		fclose(f);
		return -1;
	}
	return fclose(f) ? -1 : 0;
}

#endif
