/* The counters as stat's renderers give them: their names, and perf stat's metrics (statout.h). */
#include "config.h"
#include <stdio.h>
#include "statout.h"

/* In the order of the JSON schema. */
const struct statout_cnt statout_cnt_info[STATOUT_NR_CNT] = {
	{ IPCPERF_CNT_CYCLES, "cycles", "cycles" },
	{ IPCPERF_CNT_INSTRUCTIONS, "instructions", "instructions" },
	{ IPCPERF_CNT_CACHE_REFERENCES, "cache_references", "cache-references" },
	{ IPCPERF_CNT_CACHE_MISSES, "cache_misses", "cache-misses" },
	{ IPCPERF_CNT_PAGE_FAULTS, "page_faults", "page-faults" },
	{ IPCPERF_CNT_TASK_CLOCK, "task_clock_ns", "task-clock" },
	/* These are not in schema 1's list; they are added, as the schema allows. */
	{ IPCPERF_CNT_CONTEXT_SWITCHES, "context_switches", "context-switches" },
	{ IPCPERF_CNT_CPU_MIGRATIONS, "cpu_migrations", "cpu-migrations" },
};
const unsigned int statout_cnt_text_order[STATOUT_NR_CNT] = { 5, 6, 7, 4, 0, 1, 2, 3 };

/* Store in @m a rate as perf stat gives it, such as 12.345 "K/sec". */
static void rate_metric(struct statout_metric *m, double per_sec)
{
	static const char *const unit[] = { "", "K", "M", "G" };
	int u = 0;

	while (per_sec >= 1000 && u < 3) {
		per_sec /= 1000;
		u++;
	}
	m->value = per_sec;
	snprintf(m->unit, sizeof(m->unit), "%s/sec", unit[u]);
}

/*
 * Store @a / @b (times @scale) in @m as @unit and return true, when @b's
 * counter counted and is not 0; otherwise return false.
 */
static bool ratio_metric(struct statout_metric *m, double a, const struct ipcperf_counter_value *b,
			 double scale, const char *unit, int prec)
{
	if (b->status != IPCPERF_CNT_OK || !b->value)
		return false;
	m->value = scale * a / (double)b->value;
	m->prec = prec;
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	return true;
}

bool statout_cnt_metric(struct statout_metric *m, const struct cnt_set *set, enum ipcperf_counter id,
		       uint64_t elapsed_ns)
{
	double v = (double)set->v[id].value;

	m->prec = 3;
	switch (id) {
	case IPCPERF_CNT_TASK_CLOCK:
		if (!elapsed_ns)
			return false;
		m->value = v / (double)elapsed_ns;
		snprintf(m->unit, sizeof(m->unit), "CPUs utilized");
		return true;
	case IPCPERF_CNT_CYCLES:
		return ratio_metric(m, v, &set->v[IPCPERF_CNT_TASK_CLOCK], 1, "GHz", 3);
	case IPCPERF_CNT_INSTRUCTIONS:
		return ratio_metric(m, v, &set->v[IPCPERF_CNT_CYCLES], 1, "insn per cycle", 2);
	case IPCPERF_CNT_CACHE_MISSES:
		return ratio_metric(m, v, &set->v[IPCPERF_CNT_CACHE_REFERENCES], 100,
				    "of all cache refs", 3);
	default:
		if (!elapsed_ns)
			return false;
		rate_metric(m, v / ((double)elapsed_ns / 1e9));
		return true;
	}
}
