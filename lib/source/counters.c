/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Counting-mode events through libperf on the session's CPUs and threads:
 * software counters and, where a PMU exists, hardware ones. A counter the
 * machine lacks (no PMU in a VM: ENOENT/EOPNOTSUPP/ENODEV) is "not
 * supported", never 0; one that never got PMU time is "not counted".
 */
#include "config.h"
#include <errno.h>
#include <linux/perf_event.h>
#include <perf/cpumap.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "source/counters.h"

struct ipp_counters {
	struct perf_evsel *ev[IPCPERF_CNT__MAX];	/* NULL: not supported, or not in mask */
	unsigned int mask;				/* the counters asked for */
	int nr_cpus, nr_threads;
};

static const struct {
	uint32_t type;
	uint64_t config;
	const char *name;
	const char *perf;	/* perf's name: perf list, perf stat -e */
} defs[IPCPERF_CNT__MAX] = {
	[IPCPERF_CNT_TASK_CLOCK] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task_clock_ns",
				     "task-clock" },
	[IPCPERF_CNT_PAGE_FAULTS] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page_faults",
				      "page-faults" },
	[IPCPERF_CNT_CONTEXT_SWITCHES] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES,
					   "context_switches", "context-switches" },
	[IPCPERF_CNT_CPU_MIGRATIONS] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS,
					 "cpu_migrations", "cpu-migrations" },
	[IPCPERF_CNT_CYCLES] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles", "cycles" },
	[IPCPERF_CNT_INSTRUCTIONS] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
				       "instructions", "instructions" },
	[IPCPERF_CNT_CACHE_REFERENCES] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES,
					   "cache_references", "cache-references" },
	[IPCPERF_CNT_CACHE_MISSES] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES,
				       "cache_misses", "cache-misses" },
};

const char *ipcperf_counter_name(enum ipcperf_counter c)
{
	return (unsigned int)c < IPCPERF_CNT__MAX ? defs[c].name : NULL;
}

const char *ipcperf_counter_perf_name(enum ipcperf_counter c)
{
	return (unsigned int)c < IPCPERF_CNT__MAX ? defs[c].perf : NULL;
}

int ipp_counters__open(struct ipp_counters **out, struct perf_cpu_map *cpus,
		       struct perf_thread_map *threads, bool inherit, bool enable_on_exec,
		       unsigned int mask)
{
	struct ipp_counters *c = calloc(1, sizeof(*c));
	int err = 0;

	if (!c)
		return -ENOMEM;
	c->nr_cpus = perf_cpu_map__nr(cpus);
	c->nr_threads = perf_thread_map__nr(threads);
	c->mask = mask;
	for (int i = 0; i < IPCPERF_CNT__MAX; i++) {
		struct perf_event_attr attr = {
			.type = defs[i].type,
			.size = sizeof(attr),
			.config = defs[i].config,
			.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
			.disabled = 1,
			.inherit = inherit,
			.enable_on_exec = enable_on_exec,
		};
		struct perf_evsel *ev;

		if (!(mask & IPCPERF_CNT_BIT(i)))
			continue;	/* not asked for: it costs a PMU slot nobody reads */
		ev = perf_evsel__new(&attr);
		if (!ev) {
			err = -ENOMEM;
			break;
		}
		err = perf_evsel__open(ev, cpus, threads);
		if (err) {
			perf_evsel__delete(ev);
			if (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV || err == -EINVAL) {
				ipp_debug("counter %s not supported here (%s)\n", defs[i].name,
					  strerror(-err));
				err = 0;
				continue;
			}
			ipp_info("cannot open counter %s: %s\n", defs[i].name, strerror(-err));
			break;
		}
		c->ev[i] = ev;
	}
	if (err) {
		ipp_counters__delete(c);
		return err;
	}
	*out = c;
	return 0;
}

void ipp_counters__enable(struct ipp_counters *c, bool on)
{
	for (int i = 0; c && i < IPCPERF_CNT__MAX; i++)
		if (c->ev[i])
			(on ? perf_evsel__enable : perf_evsel__disable)(c->ev[i]);
}

void ipp_counters__delete(struct ipp_counters *c)
{
	if (!c)
		return;
	for (int i = 0; i < IPCPERF_CNT__MAX; i++)
		if (c->ev[i]) {
			perf_evsel__close(c->ev[i]);
			perf_evsel__delete(c->ev[i]);
		}
	free(c);
}

int ipp_counters__read(const struct ipp_counters *c, const bool *use_thread,
		       struct ipcperf_counter_value *vals)
{
	for (int i = 0; i < IPCPERF_CNT__MAX; i++) {
		struct ipcperf_counter_value *v = &vals[i];
		uint64_t val = 0, ena = 0, run = 0;

		memset(v, 0, sizeof(*v));
		if (!(c->mask & IPCPERF_CNT_BIT(i))) {
			v->status = IPCPERF_CNT_NOT_REQUESTED;
			continue;
		}
		if (!c->ev[i]) {
			v->status = IPCPERF_CNT_NOT_SUPPORTED;
			continue;
		}
		for (int cpu = 0; cpu < c->nr_cpus; cpu++)
			for (int t = 0; t < c->nr_threads; t++) {
				struct perf_counts_values cv = { 0 };

				if (use_thread && !use_thread[t])
					continue;
				if (perf_evsel__read(c->ev[i], cpu, t, &cv) < 0)
					continue;
				val += cv.val;
				ena += cv.ena;
				run += cv.run;
			}
		v->enabled_ns = ena;
		v->running_ns = run;
		if (!run) {
			v->status = IPCPERF_CNT_NOT_COUNTED;
			continue;
		}
		/* Multiplexed: extrapolate to the time it was enabled. */
		v->value = run < ena ? (uint64_t)((double)val * ena / run) : val;
	}
	return 0;
}
