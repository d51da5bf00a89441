/* The lines of ipcperf trace: one call each, as strace -f -yy prints them (traceout.c). */
#ifndef IPCPERF_CLI_TRACEOUT_H
#define IPCPERF_CLI_TRACEOUT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <ipcperf/ipcperf.h>
#include "tracefds.h"

/* A task seen, its process, and that process's working directory as last known. */
struct traceout_task {
	pid_t tid, pid;
	char *cwd;
};

/* What the lines are printed with, and the tasks traced so far. */
struct traceout {
	FILE *f;
	unsigned int strsize;		/* -s */
	bool times;			/* -T */
	int stamps;			/* --timestamps (enum trace_stamp) */
	int64_t real_minus_mono;	/* CLOCK_REALTIME - CLOCK_MONOTONIC, ns */
	struct traceout_task *tasks;	/* alive (their exit not printed yet) */
	size_t nr_tasks, cap_tasks;
	char *first_cwd;		/* ours: the command's, the fallback */
	struct tracefds fds;		/* what each process's fds are, as its calls said */
};

/* Set up @t to print on @f. @return 0, -ENOMEM. */
int traceout_init(struct traceout *t, FILE *f, unsigned int strsize, bool times, int stamps);
void traceout_fini(struct traceout *t);

/*
 * [pid  N] (when more than one task is alive) HH:MM:SS.uuuuuu NAME(ARGS)
 * = RET <SECONDS>, as strace -f -yy: fds with what they are, strings from
 * the call's memory, the return at column 40; "+++ exited with N +++"
 * after exit and exit_group. @fds NULL: plain fd numbers.
 */
void traceout_call(struct traceout *t, const struct ipcperf_syscall *ev,
		   const struct ipcperf_call_fds *fds);

/* "--- SIGCHLD {si_signo=SIGCHLD, ...} ---" (and "--- stopped by SIGSTOP ---"), as strace -f. */
void traceout_signal(struct traceout *t, const struct ipcperf_signal *ev);

/*
 * Task @ev->tid ended: "+++ exited with N +++" or "+++ killed by SIGKILL
 * +++" when its status is known and its exit or exit_group did not say it
 * already; from now on it is no longer traced.
 */
void traceout_exit(struct traceout *t, const struct ipcperf_task *ev);

#endif
