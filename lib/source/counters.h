/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The perf counters of a live session (counters.c). */
#ifndef IPCPERF_COUNTERS_H
#define IPCPERF_COUNTERS_H

#include <stdbool.h>
#include "ipcperf/ipcperf.h"

struct ipp_counters;
struct perf_cpu_map;
struct perf_thread_map;
/*
 * Open the counters of @mask (IPCPERF_CNT_BIT()s) on @cpus x @threads;
 * unsupported ones are left out.
 */
int ipp_counters__open(struct ipp_counters **out, struct perf_cpu_map *cpus,
		       struct perf_thread_map *threads, bool inherit, bool enable_on_exec,
		       unsigned int mask);
void ipp_counters__enable(struct ipp_counters *c, bool on);
/*
 * Sum each counter over the CPUs and over the threads whose @use_thread entry
 * is true (all when NULL).
 */
int ipp_counters__read(const struct ipp_counters *c, const bool *use_thread,
		       struct ipcperf_counter_value *vals);
void ipp_counters__delete(struct ipp_counters *c);

#endif /* IPCPERF_COUNTERS_H */
