/*
 * The renderers of ipcperf stat, as flowout.h is for flows. They write a
 * snapshot (statsnap.h) as the text tables, as one JSON document (schema 1,
 * doc/json.md; one per line with -I), or as CSV rows (each kind of row
 * headed first). Pure: they do no I/O except on the FILE they are given.
 */
#ifndef IPCPERF_CLI_STATOUT_H
#define IPCPERF_CLI_STATOUT_H
#include <stdbool.h>
#include <stdio.h>
#include "cmds.h"
#include "statsnap.h"

enum stat_format { FMT_TEXT, FMT_JSON, FMT_CSV };

/* How stat's output looks, and what it keeps from one snapshot to the next. */
struct statout {
	FILE *f;
	const struct stat_opts *o;	/* -x's separator, -v, -I, the syscall views */
	enum stat_format fmt;
	const char *what;		/* the targets in words, for the text heading */
	const struct thread_names *names;	/* --per-thread: the tables' headings */
	bool csv_header_done;
};

/* Write @sn in c->fmt, then flush. */
void statout_print(struct statout *c, const struct snap *sn);

/* ------------------------------------------------------------------ for the renderers */

/* statout.c writes the text tables; these write JSON and CSV: */
void statout_json(struct statout *c, const struct snap *sn);
void statout_csv(struct statout *c, const struct snap *sn);

/*
 * The counters' names and metrics, which every renderer uses
 * (statout-cnt.c). Each entry gives a counter's names in JSON and in text;
 * statout_cnt_info lists them in the order of the JSON schema.
 */
struct statout_cnt {
	enum ipcperf_counter id;
	const char *json;
	const char *text;
};
#define STATOUT_NR_CNT 8
extern const struct statout_cnt statout_cnt_info[STATOUT_NR_CNT];
/* perf stat's order for the text table, as indexes into statout_cnt_info. */
extern const unsigned int statout_cnt_text_order[STATOUT_NR_CNT];

/* What perf stat writes after a count: a value and its unit ("CPUs utilized", "K/sec"). */
struct statout_metric {
	double value;
	char unit[24];
	int prec;	/* decimals, as perf stat prints them */
};
/*
 * Store in @m the metric perf stat gives a counter: CPUs utilized for
 * task-clock (of @elapsed_ns, the time the counts cover), GHz for cycles
 * (of task-clock), insn per cycle, the share of cache misses, and a rate
 * for the others. Returns false when there is none (nothing to divide by).
 */
bool statout_cnt_metric(struct statout_metric *m, const struct cnt_set *set,
			enum ipcperf_counter id, uint64_t elapsed_ns);

#endif
