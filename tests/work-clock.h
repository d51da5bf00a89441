/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* work-clock.h: the clock the test workloads time themselves with. */
#ifndef IPCPERF_TESTS_WORK_CLOCK_H
#define IPCPERF_TESTS_WORK_CLOCK_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in ns (the vDSO's: no system call a tracer would see). */
static inline uint64_t work_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
