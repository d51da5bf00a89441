/*
 * What trace says of signals and of the end of a task, as strace -f
 * prints them (tracesig.c): "--- SIGCHLD {si_signo=SIGCHLD, ...} ---",
 * "--- stopped by SIGSTOP ---", "+++ killed by SIGSEGV (core dumped) +++".
 */
#ifndef IPCPERF_CLI_TRACESIG_H
#define IPCPERF_CLI_TRACESIG_H

#include <stdbool.h>
#include <stdio.h>
#include <ipcperf/ipcperf.h>

/*
 * Print the siginfo of signal @ev in braces: {si_signo=SIGCHLD,
 * si_code=CLD_EXITED, si_pid=N, ...}.
 */
void tracesig_info(FILE *f, const struct ipcperf_signal *ev);

/* Print the lines of signal @ev, each after @leader (the "[pid N] " and time stamp, or ""). */
void tracesig_lines(FILE *f, const char *leader, const struct ipcperf_signal *ev);

/*
 * Print "+++ exited with N +++", "+++ killed by SIGKILL +++" or "+++ killed
 * by SIGSEGV (core dumped) +++" for a wait status @status (>= 0), after
 * @leader.
 */
void tracesig_exit(FILE *f, const char *leader, int status);

#endif
