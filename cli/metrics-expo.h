/*
 * The exposition formats of the metrics (metrics-expo.c): the Prometheus
 * text format 0.0.4 and OpenMetrics 1.0. Label values escaped, the series
 * of one kind merged by their labels, families written with their
 * metadata, histograms at fixed bounds. What the series are is metrics.c's.
 */
#ifndef IPCPERF_CLI_METRICS_EXPO_H
#define IPCPERF_CLI_METRICS_EXPO_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <ipcperf/ipcperf.h>
#include "metrics.h"

/*
 * Histogram bounds, 1-2-5 from 1 us to 10 s, with their le labels as the
 * Go clients write them in each format (OpenMetrics wants a ".0" on whole
 * numbers). The library's buckets are 1/32 to 1/64 wide, so a count at a
 * bound may place a call within 1/64 of it on the wrong side (HELP says so).
 */
struct expo_bound {
	uint64_t ns;
	const char *text, *om;
};
#define EXPO_NR_BOUNDS 22
extern const struct expo_bound expo_bounds[EXPO_NR_BOUNDS];

/* A growing string; a failed allocation sets @oom and drops what follows. */
struct expo_buf {
	char *p;
	size_t len, cap;
	bool oom;
};

/*
 * Rows of one kind of series, by their labels: rows of several processes
 * with the same labels (same comm and object: no pid label) are merged, so
 * that every series is unique. How each value merges: its op.
 */
enum { EXPO_SUM, EXPO_MAX, EXPO_OR };

struct expo_row {
	char *key;		/* the labels, rendered */
	uint64_t *v;
};

struct expo_agg {
	size_t nv;
	const unsigned char *ops;	/* nv of them; NULL: all EXPO_SUM */
	struct expo_row *rows;
	size_t n, cap;
	bool oom;
};

/* Where a family goes, and in which format. */
struct expo_out {
	FILE *f;
	enum metrics_format fmt;
};

/* Append @n bytes of @s, or the string @s. */
void expo_putn(struct expo_buf *b, const char *s, size_t n);
void expo_puts(struct expo_buf *b, const char *s);

/*
 * Append name="value" (after a comma unless first), escaped as both formats
 * want: backslash, double quote and newline. Label values must be UTF-8, and
 * comm and paths are any bytes: a byte that is not UTF-8 becomes U+FFFD.
 */
void expo_label(struct expo_buf *b, const char *name, const char *value);

/* Append the label pid="@pid". */
void expo_pid(struct expo_buf *b, pid_t pid);

/* A new row for the labels in @key (taken over, even on failure); NULL when out of memory. */
uint64_t *expo_agg_add(struct expo_agg *a, struct expo_buf *key);

/* Sort by labels and merge the rows that have the same. */
void expo_agg_finish(struct expo_agg *a);

/* Free the rows of @a (not @a). */
void expo_agg_free(struct expo_agg *a);

/*
 * The metadata of family @name (@type: counter, gauge, histogram, info).
 * OpenMetrics names a counter family without its _total and an info
 * family without its _info, and has UNIT lines; the text format names the
 * family as its samples are named and knows no info type (a gauge of 1).
 */
void expo_meta(const struct expo_out *o, const char *name, const char *type, const char *unit,
	       const char *help);

/* One sample: NAME SUFFIX{KEY,EXTRA} VALUE. */
void expo_sample(const struct expo_out *o, const char *name, const char *suffix, const char *key,
		 const char *extra, const char *value);

/* @v in decimal, in @buf. */
const char *expo_u64(char *buf, size_t len, uint64_t v);

/* ns as seconds, exactly: "0.001234567", "2.5", "0.0". */
const char *expo_secs(char *buf, size_t len, uint64_t ns);

/* A counter family from value @idx of every row of @a (values in ns when @in_secs). */
void expo_counter_family(const struct expo_out *o, const struct expo_agg *a, size_t idx, const char *name,
			 const char *unit, const char *help, bool in_secs);

/*
 * A histogram family: each row's values from @idx on are its count, its sum
 * (ns) and its cumulative counts at the bounds.
 */
void expo_histogram_family(const struct expo_out *o, const struct expo_agg *a, size_t idx,
			   const char *name, const char *help);

/* Count, sum and the counts at the bounds of @h into @v (2 + EXPO_NR_BOUNDS values). */
int expo_hist_values(const struct ipcperf_hist *h, uint64_t *v);

#endif
