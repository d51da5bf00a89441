/* ipcperf record: write the targets' events into a perf.data capture for ipcperf report. */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>
#include "cmds.h"
#include "output.h"

static int record_check(void *opts, int argc, char **argv, int first)
{
	struct record_opts *o = opts;
	const char *out = o->t.output;

	if (!out) {
		out = o->t.output = CLI_DEFAULT_CAPTURE;
		o->keep_old = true;
	}
	if (!strcmp(out, "-") || !strcmp(out, "/dev/stdout")) {
		cli_err("give the capture's file with -o FILE (a capture must be seekable)");
		return -1;
	}
	o->t.record = out;
	return cli_target_finish(&o->t, argc, argv, first);
}

/* What was lost, and what was written (unless -q, or a capture that failed, which was said). */
static void say_capture(const struct record_opts *o, const struct cli_result *res)
{
	struct ipcperf_session_stats st = { .sz = sizeof(st) };
	char path[CLI_ESC_LEN(PATH_MAX)];

	if (ipcperf_session__stats(res->session, &st) < 0)
		return;
	if (st.lost)
		cli_err("warning: %" PRIu64 " events lost: the capture is incomplete; raise -m",
			st.lost);
	if (!o->quiet && !res->capture_failed)
		fprintf(stderr, "%s: wrote %s: %" PRIu64 " records, %.3f s\n", cli_prog,
			cli_esc(path, sizeof(path), o->t.output), st.records,
			(st.stop_ns > st.start_ns ? st.stop_ns - st.start_ns : 0) / 1e9);
}

/* What cli_finish() frees of a recording: its accounting. */
static void free_stats(void *st)
{
	ipcperf_stats__delete(st);
}

static int record_run(const void *opts)
{
	const struct record_opts *o = opts;
	struct ipcperf_stats *st;
	struct cli_result res;

	cli_setup_print(o->verbose);
	if (o->keep_old && cli_user_keep_old(o->t.output) < 0)
		return EXIT_RUNTIME;
	st = ipcperf_stats__new(NULL);
	if (!st) {
		cli_err("cannot set up the accounting: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	{
		struct cli_run run = {
			/*
			 * What stat and flows need: I/O and fd calls, scheduling,
			 * tasks, blocked time, an event loop's epoll calls. The calls
			 * through raw_syscalls and a
			 * kernel filter on their ids: 2 tracepoints in place of one
			 * enter/exit pair per call, whose closes take seconds.
			 */
			.events = IPCPERF_EV_DEFAULT | IPCPERF_EV_SCHED | IPCPERF_EV_TASK |
				  IPCPERF_EV_WAITS |
				  (o->all_syscalls ? IPCPERF_EV_ALL_SYSCALLS : IPCPERF_EV_RAW_FILTER),
			.counters = true,
			/*
			 * The accounting is what reads fd identities from /proc while
			 * the targets live; attached to a recording session, it stores
			 * them in the capture.
			 */
			.setup = cli_setup_stats,
			.ctx = st,
			.live = o->quiet ? NULL : "ipcperf record",
		};

		cli_run(&o->t, &run, &res);
	}
	if (res.session)
		say_capture(o, &res);
	/* The capture is said before a command that outlived it is waited for. */
	return cli_finish(&res, false, free_stats, st);
}

const struct cli_command cli_cmd_record = {
	.id = CMD_RECORD,
	.name = "record",
	.summary = "write the targets' events into a capture (perf.data format)",
	.usage =
		"usage: ipcperf record [-o FILE] [OPTIONS] {-p PID | -t TID | -a | -- CMD [ARGS]}\n\n"
		"Write what the targets do into FILE (default ipcperf.data, the previous one\n"
		"kept as ipcperf.data.old), a capture in the perf.data format, for\n"
		"'ipcperf report -i FILE' (the same numbers as ipcperf stat and flows live),\n"
		"'perf script -i FILE' and 'perf report -i FILE'. The file is private (mode\n"
		"0600) and holds no buffer contents: only syscall arguments and return values,\n"
		"which are numbers, scheduling events, the fd identities read from /proc and\n"
		"the counters.\n\n"
		"Options:\n",
	.epilog =
		"\n"
		"Exit status: 0 done, 1 runtime error (the capture could not be written), 2\n"
		"usage error; with -- CMD, the command's own status.\n",
	.check = record_check,
	.run = record_run,
};
