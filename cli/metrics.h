/*
 * The metrics of ipcperf stat as a Prometheus exposition: the text format
 * 0.0.4 (files, promtool, node_exporter's textfile collector, and scrapers
 * that ask for nothing else) or OpenMetrics 1.0.0 (what Prometheus asks
 * for). Every value is a running total since the start of the run; the
 * names, labels and units are in doc/metrics.md.
 *
 * Pure: it reads the accounting objects it is given and writes text, so
 * the tests reach it without a kernel.
 */
#ifndef IPCPERF_CLI_METRICS_H
#define IPCPERF_CLI_METRICS_H
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <ipcperf/ipcperf.h>

enum metrics_format {
	METRICS_TEXT,		/* Prometheus text format 0.0.4 */
	METRICS_OPENMETRICS,	/* OpenMetrics 1.0.0 */
};

/* The HTTP Content-Type of @fmt; static. */
const char *metrics_content_type(enum metrics_format fmt);

/* The counters of one target process and its children; pid 0 and comm NULL: all targets. */
struct metrics_counters {
	pid_t pid;
	const char *comm;
	const struct ipcperf_counter_value *v;	/* IPCPERF_CNT__MAX of them */
};

/* What one exposition shows. Nothing here is kept after the call. */
struct metrics_src {
	struct ipcperf_stats *stats;		/* required: never reset during the run */
	struct ipcperf_flows *flows;		/* NULL: no flow metrics */
	bool final;				/* the run is over: settle every call of the flows */
	const struct metrics_counters *cnt;
	size_t nr_cnt;
	uint64_t lost_events;
	uint64_t unpaired_syscalls;
	bool pid_label;				/* a pid label on fd, process and counter series */
	bool object_label;			/* an object label on fd and flow series (a series per fd) */
};

/*
 * Write the exposition of @src to @f (errors of @f are the caller's).
 * @return 0, or -errno (ENOMEM, or what the library's walks returned).
 */
int metrics_write(FILE *f, const struct metrics_src *src, enum metrics_format fmt);

/*
 * Replace @path with the exposition of @src in the text format, atomically:
 * written whole into a temporary file in the same directory (".NAME.XXXXXX",
 * which a textfile collector's *.prom pattern leaves alone), then renamed
 * over @path, so that a reader opens the old file or the new one, never a
 * part. Mode 0666 less the umask, as a file created with open(2).
 * @return 0, or -errno: -ELOOP when @path is a symbolic link, -EISDIR a
 *   directory, -EINVAL anything else that is not a regular file (none of
 *   them is ever replaced); the temporary file never stays behind.
 */
int metrics_write_file(const char *path, const struct metrics_src *src);
#endif
