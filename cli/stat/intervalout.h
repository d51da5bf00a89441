/*
 * stat -I's compact text form: one line per interval and process, perf
 * stat -I's way (a time column, exact counts), with a header line first and
 * again every INTERVALOUT_HEADER_EVERY lines. The full tables of each
 * interval are statout.h's (--interval-full). Pure: no I/O but its FILE.
 */
#ifndef IPCPERF_CLI_INTERVALOUT_H
#define IPCPERF_CLI_INTERVALOUT_H
#include <stdint.h>
#include <stdio.h>
#include "statsnap.h"

/* The header again after this many lines, as perf stat -I repeats its own. */
#define INTERVALOUT_HEADER_EVERY 25

struct intervalout {
	FILE *f;
	unsigned int since_header;	/* lines since the header; 0: none printed yet */
};

/* What one process did in one interval (or in all of them): the sums of its fds. */
struct interval_sums {
	uint64_t ops, in, out;		/* read and write calls; bytes read, bytes written */
	uint64_t cs;			/* context switches, voluntary and involuntary */
};

/* Fill @s with the sums of all @p's fds (whether or not --top cut them) and its switches. */
void interval_sums_of(const struct proc_snap *p, struct interval_sums *s);

/*
 * Print one line per process of the interval @sn (its idle processes are
 * already left out), with the header first when it is due; then flush.
 */
void intervalout_print(struct intervalout *c, const struct snap *sn);

#endif
