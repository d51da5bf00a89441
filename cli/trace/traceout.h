/* The lines of ipcperf trace: one call each, as strace -f -yy prints them (traceout.c). */
#ifndef IPCPERF_CLI_TRACEOUT_H
#define IPCPERF_CLI_TRACEOUT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <ipcperf/ipcperf.h>
#include "tracefds.h"

/* A task seen, its process, and the working directory of that process as last known. */
struct traceout_task {
	pid_t tid, pid;
	char *cwd;
};

/*
 * A call under way (traceout_entered()): what strace -f prints at its
 * entry, which the next line of another task ends with " <unfinished ...>".
 */
struct traceout_entry {
	pid_t tid;
	int nr;
	const char *name;		/* static storage */
	uint64_t start_ns;
	char *text;			/* NAME(ARGS up to the first one the call writes */
	bool shown;			/* printed: its end is "<... NAME resumed>" */
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
	struct traceout_entry *entries;	/* calls under way, in the order they came */
	size_t nr_entries, cap_entries;
};

/* Set up @t to print on @f. Returns 0 or -ENOMEM. */
int traceout_init(struct traceout *t, FILE *f, unsigned int strsize, bool times, int stamps);
void traceout_fini(struct traceout *t);

/*
 * Print the line of call @ev as strace -f -yy does: "[pid  N]" (when more
 * than one task is alive), HH:MM:SS.uuuuuu, NAME(ARGS), " = RET" at column
 * 40, and <SECONDS>. Fds show what they are and strings come from the
 * call's memory; "+++ exited with N +++" follows exit and exit_group. With
 * @fds NULL, fds are plain numbers.
 */
void traceout_call(struct traceout *t, const struct ipcperf_syscall *ev,
		   const struct ipcperf_call_fds *fds);

/*
 * A call under way (its thread was switched out in it): strace -f prints
 * what it knows at a call's entry at once, and ends that line with
 * " <unfinished ...>" when another task's line comes before the call's
 * exit, whose line then starts "<... NAME resumed>". Lines are written at
 * calls' exits here, so the call's entry is kept and printed that way only
 * when another task's line does come first.
 */
void traceout_entered(struct traceout *t, const struct ipcperf_syscall *ev,
		      const struct ipcperf_call_fds *fds);

/* At the end of the trace, print the calls still under way, each ending " <unfinished ...>". */
void traceout_flush(struct traceout *t);

/*
 * Print a signal as strace -f does: "--- SIGCHLD {si_signo=SIGCHLD, ...} ---"
 * and "--- stopped by SIGSTOP ---".
 */
void traceout_signal(struct traceout *t, const struct ipcperf_signal *ev);

/*
 * Task @ev->tid ended: "+++ exited with N +++" or "+++ killed by SIGKILL
 * +++" when its status is known and its exit or exit_group did not say it
 * already; from now on it is no longer traced.
 */
void traceout_exit(struct traceout *t, const struct ipcperf_task *ev);

#endif
