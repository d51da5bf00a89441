/*
 * The per-syscall summary of `ipcperf stat --syscalls` (the strace -c view):
 * rows copied out of the library's ipcperf_syscall_row, merged across
 * processes for --total, sorted by -S, and rendered as a table, JSON or CSV.
 * Pure: no I/O but the FILE it is given.
 */
#ifndef IPCPERF_CLI_SYSCALLS_OUT_H
#define IPCPERF_CLI_SYSCALLS_OUT_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <ipcperf/ipcperf.h>
#include "output.h"

struct sc_errno {
	int err;		/* positive errno value */
	uint64_t count;
};

struct sc_row {
	char *name;
	pid_t tid;		/* --per-thread: the thread; else 0 */
	uint64_t calls, errors, time_ns;
	struct ipcperf_lat lat_ns;
	/*
	 * Merged rows (--total): how many rows went in. p50 and p99 are those
	 * of the union, from the rows' histograms merged; only when a row came
	 * without one (!exact) are they the largest of theirs, an upper bound
	 * (min, max, calls, errors and time are exact either way).
	 */
	unsigned int merged;
	bool exact;
	struct ipcperf_hist *hist;	/* with sc_rows.hists; owned */
	struct sc_errno *errnos;	/* ascending by err */
	size_t nr_errnos, cap_errnos;
};

/* A growable list of rows (zero-initialize). */
struct sc_rows {
	struct sc_row *v;
	size_t n, cap;
	bool hists;		/* rows keep a copy of their histogram, to be merged */
};

enum sc_sort {
	SC_SORT_TIME = 0,	/* total time, largest first (default, as strace -c) */
	SC_SORT_CALLS,
	SC_SORT_ERRORS,
	SC_SORT_NAME,		/* ascending */
	SC_SORT_AVG,
	SC_SORT_MAX,
	SC_SORT_MIN,
	SC_SORT_P99,
};

/* The keys -S takes, for the help and for error messages. */
#define SC_SORT_KEYS "time|calls|errors|name|avg|max|min|p99"

/* Parse a -S key (also strace's aliases, e.g. "count", "avg-time"); -1 if unknown. */
int sc_sort_parse(const char *s, enum sc_sort *out);

/* Append a copy of @row (with @r->hists, of its histogram too). @return 0 or -ENOMEM. */
int sc_rows_add(struct sc_rows *r, const struct ipcperf_syscall_row *row);
/*
 * Merge every row of @src into @dst by syscall name (threads and processes
 * are folded together): sums of calls, errors, time and each errno; min and
 * max exact; p50 and p99 of the merged histograms (an upper bound, the
 * largest of the rows', only when a row of @src has none).
 * @return 0 or -ENOMEM.
 */
int sc_rows_merge(struct sc_rows *dst, const struct sc_rows *src);
/* Free the rows' histograms (once merged). */
void sc_rows_drop_hists(struct sc_rows *r);
/* Order by tid (per-thread rows stay grouped), then by @key. */
void sc_rows_sort(struct sc_rows *r, enum sc_sort key);
void sc_rows_free(struct sc_rows *r);

/* "EBADF"; "ERESTARTSYS" and kin for the kernel's restart codes; else "errno_N" in @buf. */
const char *sc_errno_name(int err, char *buf, size_t len);

/*
 * One table as strace -c -w prints it, plus min, p99 and max: % time,
 * seconds, usecs/call, min, p99, max (usecs), calls, errors (blank when 0),
 * syscall; then a total row. Each line starts with @indent. With @errnos,
 * the errors of each row by errno name follow the table.
 */
void sc_text_table(FILE *f, const char *indent, const struct sc_row *rows, size_t n,
		   bool errnos);

/*
 * The rows as a JSON array @key: name, calls, errors, time_ns, min_ns,
 * max_ns, p99_ns, avg_ns, lat_ns {min, avg, p50, p99, max}, errnos
 * {"EBADF": N, ...}; "tid" with @with_tid; "p99_upper_bound" on merged rows
 * with @merged_info (true only where a row had no histogram).
 */
void sc_json_rows(struct json *j, const char *key, const struct sc_row *rows, size_t n,
		  bool with_tid, bool merged_info);

/* "EBADF=200;ENOENT=3" (empty when no errors): malloc'ed, NULL when out of memory. */
char *sc_errnos_str(const struct sc_row *row);

#endif
