/* One Suite per module; the runners (check-unit.c, check-live.c) add them. */
#ifndef IPCPERF_TESTS_SUITES_H
#define IPCPERF_TESTS_SUITES_H
#include <check.h>

/* Pure modules: no root, no kernel (check-unit). */
Suite *decode_suite(void);
Suite *merge_suite(void);
Suite *pipeline_suite(void);
Suite *follow_suite(void);
Suite *pair_suite(void);
Suite *opts_suite(void);
Suite *hist_suite(void);
Suite *procfd_suite(void);
Suite *account_suite(void);
Suite *fdtable_suite(void);
Suite *flows_suite(void);
Suite *paths_suite(void);
Suite *chains_suite(void);
Suite *flowout_suite(void);
Suite *perfdata_suite(void);
Suite *metrics_suite(void);
Suite *httpd_suite(void);
Suite *tracefds_suite(void);
Suite *traceargs_suite(void);
Suite *util_suite(void);
Suite *interval_suite(void);
Suite *topview_suite(void);

/* Real tracepoints, rings and processes: root (check-live). */
Suite *engine_suite(void);
Suite *stat_suite(void);
Suite *flowlive_suite(void);
Suite *syscalls_suite(void);
Suite *loss_suite(void);
Suite *sched_suite(void);
Suite *machine_suite(void);

/*
 * Runs of a live scenario whose CPU-wide rings (every scope but
 * --scope=task) reported records lost: those rings hold every process's
 * records, and the suite's other jobs (a compile beside us) can fill them
 * before they are read. Exact rows need a run that lost nothing, so such
 * a run is made again, up to this many runs in all (check-stat,
 * check-flowlive); per task, or from the kernel's own sums, nothing may be
 * lost at the first run.
 */
#define LOSSY_RUNS 3
#endif
