/*
 * Shared layer of the ipcperf CLI: messages, targets, outputs (common.c), the
 * run (run.c), the heap while a session loads (heap.c), its end (release.c).
 */
#ifndef IPCPERF_CLI_H
#define IPCPERF_CLI_H
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <ipcperf/ipcperf.h>
#include "userfile.h"

struct pollfd;

/* Exit codes shared by every subcommand (a command's own status passes through). */
enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

/* A list of pids or tids (-p, -t). */
struct cli_ids {
	pid_t *v;
	size_t n, cap;
};

/* Options every capturing subcommand takes. */
/* The captures of paths -i, given once or more (the hosts joined). */
#define CLI_INPUTS_MAX 16
struct cli_inputs {
	const char *v[CLI_INPUTS_MAX];
	size_t n;
};

struct cli_target {
	struct cli_ids pids, tids;
	bool system_wide;
	char **argv;		/* -- CMD ARGS */
	double duration;	/* -d SECS; 0 = until the targets exit or a signal */
	bool keep_running;	/* --keep-running: -d leaves the command of -- CMD running */
	unsigned int ring_pages;	/* -m PAGES */
	const char *output;	/* -o FILE */
	const char *record;	/* --record FILE (record: -o FILE): also write a capture */
	const char *host;	/* --host NAME: the host the capture names */
	const char *input;	/* report -i FILE: replay this capture instead of tracing */
	unsigned int scope;	/* --scope: enum ipcperf_scope */
	bool no_bpf;		/* --no-bpf: fd identity from /proc only */
	bool syscall_samples;	/* --syscall-samples: never pair the calls in the kernel */
};

extern const char *cli_prog;
__attribute__((format(printf, 1, 2))) void cli_err(const char *fmt, ...);

/* -j and -x together are a usage error, said: @return -1 then, else 0. */
int cli_check_format(bool json, const char *sep);

/* Install the library print function (warnings and explanations to stderr). */
void cli_setup_print(bool verbose);

/*
 * After the options: take the command of "-- CMD ARGS" (argv[first] on),
 * and check that exactly one kind of target was given.
 * @return 0, or -1 after saying the usage error.
 */
int cli_target_finish(struct cli_target *t, int argc, char **argv, int first);
/* The targets in words, for report headers: "command 'ls -l'", "pid 12,13", "whole system". */
void cli_describe_targets(const struct cli_target *t, char *buf, size_t len);

/*
 * An output of a subcommand: its report, a --dot graph, a timeline. Write
 * to @f. The stream keeps the first write error (stdio's ferror() keeps no
 * errno), says it at once in one line naming @what, the file and the errno,
 * and drops everything written after it, so that the output is cut at the
 * error rather than holed. Must not move while open: @f points to it.
 */
struct cli_out {
	FILE *f;
	const char *what;	/* "the output", "the graph", ...: for messages */
	const char *name;	/* the path as given, or "standard output" */
	int fd;
	bool own_fd;		/* a file opened here: closed with the stream */
	bool regular;		/* a regular file opened here (cli_out_discard() removes it) */
	dev_t dev;
	ino_t ino;
	int err;		/* the first write error (an errno), 0 while there is none */
};

/*
 * Open @path for @what: NULL, "-" and "/dev/stdout" are standard output,
 * "/dev/stderr" standard error, "/dev/fd/N" descriptor N as it is (not
 * reopened, so neither truncated nor moved to its start, as a shell's
 * redirection would have left it). Any other path is created (mode 0666 less
 * the umask) or truncated; a symbolic link as its last component is refused,
 * whether it points to a file or nowhere: ipcperf runs as root, and a link
 * another user planted at the path would have it overwrite (or create) the
 * file the link names. Links in the directories of the path are followed.
 * @return 0, or -1 after printing why.
 */
int cli_out_open(struct cli_out *o, const char *path, const char *what);
/*
 * Flush and close (a zeroed, never opened @o is fine).
 * @return 0, or -1 when anything written to it was lost (said once).
 */
int cli_out_close(struct cli_out *o);
/*
 * cli_out_close() on each output of a list ended by NULL: a command's
 * outputs at its end. @return 0, or -1 when any of them lost what was
 * written to it.
 */
__attribute__((sentinel)) int cli_out_close_all(struct cli_out *o, ...);
/* Close, and remove the file if it is a regular file opened here: for a run that never ran. */
void cli_out_discard(struct cli_out *o);
/* The open output of the target options: -o FILE, else standard output. */
static inline int cli_open_output(struct cli_out *o, const struct cli_target *t)
{
	return cli_out_open(o, t->output, "the output");
}

/* ------------------------------------------------------------------ the run (run.c) */

/* What a capture is made of, and what is called while it runs. */
struct cli_run {
	const struct ipcperf_handlers *handlers;
	unsigned int events;			/* enum ipcperf_event_set, 0 = default */
	bool counters;				/* opts.counters */
	unsigned int counter_mask;		/* opts.counter_mask: 0 = all */
	bool call_memory;			/* opts.call_memory */
	void *ctx;				/* of every callback below */
	/* Called after the session is created, before it starts (e.g. to attach
	 * accounting); a negative return ends the run (CLI_END_NOT_RUN). */
	int (*setup)(void *ctx, struct ipcperf_session *s);
	/* Called every tick_ms, after the events so far were consumed. */
	void (*tick)(void *ctx, struct ipcperf_session *s);
	unsigned int tick_ms;
	/* If set, the live status line says "PROGRESS: 12 s, N events, N lost"
	 * every CLI_STATUS_MS (when @status). */
	const char *progress;
	/* The status line on while it runs (cli_status_enable()), cleared at its end. */
	bool status;
	/*
	 * If set, one line on stderr as soon as the capture of running targets
	 * (-p, -t, -a; not a command) is live: "LIVE: live, pid 12 (...)".
	 */
	const char *live;
	/*
	 * More for the loop to wait on (an HTTP listener): before each wait
	 * io_fds() fills at most @max pollfds and says how many; after it
	 * io_ready() gets them back with their revents.
	 */
	unsigned int (*io_fds)(void *ctx, struct pollfd *fds, unsigned int max);
	void (*io_ready)(void *ctx, const struct pollfd *fds, unsigned int n);
	/*
	 * If set, asked after each wait and tick: true ends the capture as the
	 * end of -d does (the command of -- CMD gets SIGTERM, and its end so
	 * counts as a success): top's q, its -n frames.
	 */
	bool (*stop)(void *ctx);
	/*
	 * If set, called when a crash of ours (SIGSEGV, SIGABRT...) is about to
	 * end us, to put back what setup() changed: top's terminal. It runs in
	 * a signal handler: async-signal-safe calls only.
	 */
	void (*restore)(void);
};
/* Most pollfds io_fds() may fill. */
#define CLI_RUN_IO_FDS 16

/* How a run ended. */
enum cli_end {
	CLI_END_NOT_RUN,	/* nothing ran: the reason was said (exit 1) */
	CLI_END_REFUSED,	/* the library refused the targets as given, said (exit 2) */
	CLI_END_DONE,		/* the targets exited, -d expired or a stop signal came: report */
	CLI_END_FAILED,		/* reading the events failed partway, said: report what was read */
};

/* Where the command of "-- CMD" stands after the run. */
enum cli_cmd_state {
	CLI_CMD_NONE,		/* there is none: -p, -t, -a, a capture, or nothing ran */
	CLI_CMD_EXITED,		/* it exited: cmd_status is its wait status */
	CLI_CMD_RUNNING,	/* -d ended the capture first: report, then cli_wait_command() */
	CLI_CMD_LOST,		/* it could not be waited for (said) */
};

struct cli_result {
	enum cli_end end;
	/* Stopped, for the report (the caller deletes it); NULL when nothing ran,
	 * or a capture being replayed turned out corrupt. */
	struct ipcperf_session *session;
	bool capture_failed;	/* t->record could not be written (said) */
	enum cli_cmd_state cmd;
	int cmd_status;
	bool cmd_ended;		/* we ended it: -d expired (no --keep-running), or a read failed */
	bool cmd_killed;	/* it outlived its CLI_GRACE_MS: SIGKILL */
};
/* How long a command we end has between its SIGTERM (or stop signal) and SIGKILL. */
#define CLI_GRACE_MS 500
/* The nice value of a live capture's reader when it may raise itself (root, CAP_SYS_NICE). */
#define CLI_NICE (-10)

/*
 * Create a session for @t with what @run says, and run it until the targets
 * exit (the command of -- CMD and what it left in its session: daemons are
 * not waited for), -d expires, or a signal whose default action ends a
 * process arrives (SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGUSR1, ...); then
 * stop and drain, and settle the command: a stop signal goes on to it
 * first (SIGINT, SIGHUP themselves, any other as SIGTERM), the end of -d
 * or a failed read sends it SIGTERM
 * (unless --keep-running: then it outlives the capture, CLI_CMD_RUNNING),
 * SIGKILL follows CLI_GRACE_MS later; then it is reaped. Fills @res.
 * @return res->end.
 */
enum cli_end cli_run(const struct cli_target *t, const struct cli_run *run, struct cli_result *res);
/* A cli_run.setup that attaches the accounting @ctx (struct ipcperf_stats *), or says why not. */
int cli_setup_stats(void *ctx, struct ipcperf_session *s);
/* The command's wait status for a report, once it exited; else NULL. */
static inline const int *cli_cmd_status(const struct cli_result *res)
{
	return res->cmd == CLI_CMD_EXITED ? &res->cmd_status : NULL;
}
/*
 * For a command that outlived the capture (CLI_CMD_RUNNING): say so and
 * wait for it; a stop signal ends the wait and the command (as cli_run()
 * does). Call it when the report is out. Does nothing otherwise.
 */
void cli_wait_command(struct cli_result *res);
/*
 * Around a live session's open and start (cli/heap.c): the large blocks of
 * the BPF loads from one heap, kept and backed by huge pages; then the
 * heap as the C library would have it after them, the unused part given back.
 */
void cli_heap_load_begin(void);
void cli_heap_load_end(void);
/*
 * ipcperf_session__delete(@s) without waiting for the kernel to release
 * its tracepoints: a child that shares our memory holds its perf events
 * until we have exited (cli/release.c). Call it when the output is out.
 */
void cli_session_release(struct ipcperf_session *s);
/*
 * The exit code after the run: EXIT_USAGE or EXIT_RUNTIME when it never
 * ran; a command's own (its signal re-raised, so call this last, when all
 * is freed), except that @failed (the report or an output failed, said) or
 * a capture that could not be written make a command that succeeded exit 1;
 * without a command, 0 or 1. A command the end of -d ended with SIGTERM or
 * SIGKILL counts as one that succeeded. After SIGPIPE, or a stop signal the
 * command outlived (SIGKILL), that signal re-raised.
 */
int cli_exit(const struct cli_result *res, bool failed);
/*
 * The end of a command's run, in the order it must go, when its output is
 * out: the command that outlived the capture waited for
 * (cli_wait_command()); the session released, first, since it feeds the
 * command's objects; @free_ctx(@ctx) then frees those; last, cli_exit()'s
 * code, since it may re-raise the command's signal.
 */
int cli_finish(struct cli_result *res, bool failed, void (*free_ctx)(void *ctx), void *ctx);

/*
 * When @st counts lost events, the warning: how many, @what that costs the
 * command's report, and what to do about it: "raise the ring size with -m
 * (now 512 pages per CPU)" live; for a report, the ring size the capture
 * was recorded with (@st->ring_pages), when it says.
 */
void cli_warn_lost(const struct cli_target *t, const struct ipcperf_session_stats *st,
		   const char *what);
#endif
