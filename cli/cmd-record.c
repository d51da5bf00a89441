/* ipcperf record: write the targets' events into a perf.data capture for ipcperf report. */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

struct record_cmd {
	struct cli_target t;
	struct ipcperf_stats *st;
};

/*
 * The accounting is what reads fd identities from /proc while the targets
 * live; attached to a recording session, it stores them in the capture.
 */
static int record_setup(void *ctx, struct ipcperf_session *s)
{
	struct record_cmd *c = ctx;
	int err = ipcperf_stats__attach(c->st, s);

	if (err < 0)
		cli_err("cannot set up the accounting: %s", strerror(-err));
	return err;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: ipcperf record -o FILE [OPTIONS] {-p PID | -t TID | -a | -- CMD [ARGS]}\n\n"
		   "Write what the targets do into FILE, a capture in the perf.data format, for\n"
		   "'ipcperf report -i FILE' (the same numbers as ipcperf stat and flows live),\n"
		   "'perf script -i FILE' and 'perf report -i FILE'. The file is private (mode\n"
		   "0600) and holds no buffer contents: only syscall arguments and return values,\n"
		   "which are numbers, scheduling events, the fd identities read from /proc and\n"
		   "the counters.\n\n"
		   "Options:\n"
		   "  -o, --output FILE       the capture (required; replaced if it exists)\n"
		   "  -p, --pid PID[,PID...]  trace these processes (all their threads)\n"
		   "  -t, --tid TID[,TID...]  trace these threads\n"
		   "  -a, --all-cpus          trace the whole system\n"
		   "  -d, --duration SECS     stop after SECS seconds\n"
		   "  -m, --mmap-pages PAGES  pages per CPU ring, a power of two (default 512)\n"
		   "      --scope auto|task   per task (auto and task alike: a capture holds the\n"
		   "                          targets' records only; cpu is refused)\n"
		   "  -s, --all-syscalls      every syscall (raw_syscalls), for report --view syscalls\n"
		   "  -q, --quiet             no summary line on stderr\n"
		   "  -v, --verbose           more diagnostics\n"
		   "  -h, --help              this help\n"
		   "  -- CMD [ARGS]           run CMD and trace it and its children\n\n"
		   "Exit status: 0 done, 1 runtime error (the capture could not be written), 2\n"
		   "usage error; with -- CMD, the command's own status.\n");
}

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_TARGET_LONGOPTS,
		{ "all-syscalls", no_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct record_cmd c = { 0 };
	struct cli_result res;
	struct ipcperf_session_stats st = { .sz = sizeof(st) };
	bool verbose = false, quiet = false, all = false;
	int opt;

	argv[0] = "ipcperf record";	/* what getopt's own messages start with */
	while ((opt = getopt_long(argc, argv, "+" CLI_TARGET_OPTSTRING "sqvh", longopts,
				  NULL)) != -1) {
		int r = cli_target_opt(&c.t, opt, optarg);

		if (r < 0)
			goto usage_said;
		if (r == 0)
			continue;
		switch (opt) {
		case 's':
			all = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			usage(stdout);
			cli_target_free(&c.t);
			return EXIT_OK;
		default:
			goto usage_err;
		}
	}
	if (!c.t.output || !strcmp(c.t.output, "-") || !strcmp(c.t.output, "/dev/stdout")) {
		cli_err("give the capture's file with -o FILE (a capture must be seekable)");
		goto usage_said;
	}
	c.t.record = c.t.output;
	if (cli_target_finish(&c.t, argc, argv, optind) < 0)
		goto usage_said;
	cli_setup_print(verbose);
	c.st = ipcperf_stats__new(NULL);
	if (!c.st) {
		cli_err("cannot set up the accounting: %s", strerror(errno));
		cli_target_free(&c.t);
		return EXIT_RUNTIME;
	}
	{
		struct cli_run run = {
			/* What stat and flows need: I/O and fd calls, scheduling, tasks, blocked time. */
			.events = IPCPERF_EV_DEFAULT | IPCPERF_EV_SCHED | IPCPERF_EV_TASK |
				  (all ? IPCPERF_EV_ALL_SYSCALLS : 0),
			.counters = true,
			.setup = record_setup,
			.ctx = &c,
		};

		cli_run(&c.t, &run, &res);
	}
	if (res.session && ipcperf_session__stats(res.session, &st) == 0) {
		if (st.lost)
			cli_err("warning: %" PRIu64 " events lost: the capture is incomplete; "
				"raise -m", st.lost);
		/* A capture that could not be written was said so, and nothing else. */
		if (!quiet && !res.capture_failed)
			fprintf(stderr, "%s: wrote %s: %" PRIu64 " records, %.3f s\n", cli_prog,
				c.t.output, st.records,
				(st.stop_ns > st.start_ns ? st.stop_ns - st.start_ns : 0) / 1e9);
	}
	/* The capture is said before a command that outlived it is waited for. */
	cli_wait_command(&res);
	ipcperf_session__delete(res.session);
	ipcperf_stats__delete(c.st);
	cli_target_free(&c.t);
	return cli_exit(&res, false);
usage_err:
	fprintf(stderr, "Run 'ipcperf record --help' for usage.\n");
usage_said:
	cli_target_free(&c.t);
	return EXIT_USAGE;
}
