/*
 * The renderers of ipcperf stat, as flowout.h is for flows: a snapshot
 * (statsnap.h) as the text tables, one JSON document (schema 1,
 * doc/json.md; one a line with -I), or CSV rows (a header of each kind of
 * row first). Pure: no I/O but the FILE they are given.
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

#endif
