/* Shared layer of the ipcperf CLI: options, targets, the run loop, output. */
#ifndef IPCPERF_CLI_H
#define IPCPERF_CLI_H
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <ipcperf/ipcperf.h>

struct pollfd;

/* Exit codes shared by every subcommand (a command's own status passes through). */
enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

/* Options every capturing subcommand takes. */
struct cli_target {
	pid_t *pids;
	size_t nr_pids;
	pid_t *tids;
	size_t nr_tids;
	bool system_wide;
	char **argv;		/* -- CMD ARGS */
	double duration;	/* -d SECS; 0 = until the targets exit or a signal */
	unsigned int ring_pages;	/* -m PAGES */
	const char *output;	/* -o FILE */
	const char *record;	/* --record FILE (record: -o FILE): also write a capture */
	const char *input;	/* report -i FILE: replay this capture instead of tracing */
	unsigned int scope;	/* --scope: enum ipcperf_scope */
};

extern const char *cli_prog;
__attribute__((format(printf, 1, 2))) void cli_err(const char *fmt, ...);

/* Install the library print function (warnings and explanations to stderr). */
void cli_setup_print(bool verbose);

/*
 * Handle a target option (-p, -t, -a, -d, -m, -o) given by getopt.
 * @return 0 if handled, 1 if @opt is not a target option, -1 after printing a usage error.
 */
int cli_target_opt(struct cli_target *t, int opt, const char *arg);
/* After getopt: take "-- CMD ARGS" and check that exactly one kind of target was given. */
int cli_target_finish(struct cli_target *t, int argc, char **argv, int first);
void cli_target_free(struct cli_target *t);
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
/* Close, and remove the file if it is a regular file opened here: for a run that never ran. */
void cli_out_discard(struct cli_out *o);
/* The open output of the target options: -o FILE, else standard output. */
static inline int cli_open_output(struct cli_out *o, const struct cli_target *t)
{
	return cli_out_open(o, t->output, "the output");
}
/*
 * The exit code of a run whose output was lost: 1, unless the command of
 * "-- CMD" failed (@code < 0: exit like it, @status its wait status), which
 * keeps its own status.
 */
int cli_code_output_lost(int code, int status);

/*
 * Create a session for @t with @h registered and run it until the targets
 * exit, -d expires, or SIGINT/SIGTERM arrives; then stop and drain.
 * @tick, if set, is called about every @tick_ms with the session.
 * @return the exit code for the CLI: the command's status under -- CMD,
 *   else EXIT_OK or EXIT_RUNTIME. *@sess receives the stopped session
 *   (the caller deletes it) when the capture ran.
 */
struct cli_run {
	const struct ipcperf_handlers *handlers;
	unsigned int events;			/* enum ipcperf_event_set, 0 = default */
	bool counters;				/* opts.counters */
	unsigned int counter_mask;		/* opts.counter_mask: 0 = all */
	/* Called after the session is created, before it starts (e.g. to attach
	 * accounting); a negative return ends the run with EXIT_RUNTIME. */
	int (*setup)(void *ctx, struct ipcperf_session *s);
	/* Called every tick_ms, after the events so far were consumed. */
	void (*tick)(void *ctx, struct ipcperf_session *s);
	void *tick_ctx;				/* ctx of setup, tick and status */
	unsigned int tick_ms;
	/* Called every status_ms (no consume: for a progress line). */
	void (*status)(void *ctx, struct ipcperf_session *s);
	unsigned int status_ms;
	/* If set, true after the run when the capture (t->record) could not be written. */
	bool *capture_failed;
	/*
	 * More for the loop to wait on (an HTTP listener): before each wait
	 * io_fds() fills at most @max pollfds and says how many; after it
	 * io_ready() gets them back with their revents. ctx: tick_ctx.
	 */
	unsigned int (*io_fds)(void *ctx, struct pollfd *fds, unsigned int max);
	void (*io_ready)(void *ctx, const struct pollfd *fds, unsigned int n);
};
/* Most pollfds io_fds() may fill. */
#define CLI_RUN_IO_FDS 16
int cli_run(const struct cli_target *t, const struct cli_run *run, struct ipcperf_session **sess,
	    int *cmd_status);
/*
 * cli_run's code when the capture ended (-d) while the command still runs:
 * print the results, then call cli_finish_command() before deleting the
 * session, so that the report does not wait for the command.
 */
#define CLI_CMD_RUNNING 1000
/* Wait for a command that outlived the capture; the CLI's exit code (-1: exit like it). */
int cli_finish_command(struct ipcperf_session *s, int code, int *cmd_status);
/* Exit like the command did: its code, or re-raise its signal. */
int cli_exit_like(int status);

/* Target options for getopt and the help text that describes them. */
#define CLI_OPT_SCOPE 512	/* a long option's code: above every command's own */
#define CLI_TARGET_OPTSTRING "p:t:ad:m:o:"
#define CLI_TARGET_HELP \
	"  -p, --pid PID[,PID...]  trace these processes (all their threads)\n" \
	"  -t, --tid TID[,TID...]  trace these threads\n" \
	"  -a, --all-cpus          trace the whole system\n" \
	"  -d, --duration SECS     stop after SECS seconds\n" \
	"  -m, --mmap-pages PAGES  pages per CPU ring, a power of two (default 512)\n" \
	"  -o, --output FILE       write to FILE instead of standard output\n" \
	"  -- CMD [ARGS]           run CMD and trace it and its children\n" \
	"      --scope auto|cpu|task\n" \
	"                          tracepoints on every CPU, keeping the targets' records\n" \
	"                          (cpu: cheaper for the targets; needs root or CAP_PERFMON),\n" \
	"                          or per task (task: no other process's records);\n" \
	"                          auto (default): cpu when allowed\n"
#define CLI_TARGET_LONGOPTS \
	{ "pid", required_argument, NULL, 'p' }, \
	{ "tid", required_argument, NULL, 't' }, \
	{ "all-cpus", no_argument, NULL, 'a' }, \
	{ "duration", required_argument, NULL, 'd' }, \
	{ "mmap-pages", required_argument, NULL, 'm' }, \
	{ "output", required_argument, NULL, 'o' }, \
	{ "scope", required_argument, NULL, CLI_OPT_SCOPE }

int cmd_trace(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_flows(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
/* The capture `ipcperf report` hands to the view it runs (stat, flows); NULL otherwise. */
extern const char *cli_report_input;

/*
 * What to do about lost events, for the warning that counts them: "raise the
 * ring size with -m (now 512 pages per CPU)" live; for a report, the ring
 * size the capture was recorded with (@st->ring_pages), when it says.
 */
void cli_lost_hint(char *buf, size_t len, const struct cli_target *t,
		   const struct ipcperf_session_stats *st);
#endif
