/* ipcperf trace: one line per completed syscall, strace-style. */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "output.h"

static void on_syscall(void *ctx, const struct ipcperf_syscall *ev)
{
	FILE *out = ctx;
	uint64_t ns = ev->end_ns - ev->start_ns;

	fprintf(out, "%d/%d %s(", (int)ev->pid, (int)ev->tid, ev->name);
	if (!ev->name[0] || ev->cls == IPCPERF_SC_OTHER) {
		/* A call we know nothing of: its raw arguments. */
		for (unsigned int i = 0; i < ev->nr_args && i < 3; i++)
			fprintf(out, "%s0x%" PRIx64, i ? ", " : "", ev->args[i]);
		if (ev->nr_args > 3)
			fprintf(out, ", ...");
	} else if (ev->fd >= 0) {
		fprintf(out, "%d", ev->fd);
		if (ev->cls == IPCPERF_SC_READ || ev->cls == IPCPERF_SC_WRITE) {
			if (ev->nr_args > 2)
				fprintf(out, ", %" PRIu64, ev->count);
		}
	}
	if (ev->ret < 0 && ev->ret >= -4095) {
		const char *name = strerrorname_np((int)-ev->ret);

		if (name)
			fprintf(out, ") = -1 %s", name);
		else
			fprintf(out, ") = -1 E%d", (int)-ev->ret);
	} else {
		fprintf(out, ") = %" PRId64, ev->ret);
	}
	if (ev->started_before_capture)
		fputs(" <entered before the capture>\n", out);	/* its duration is unknown */
	else
		fprintf(out, " <%" PRIu64 ".%06" PRIu64 ">\n", ns / 1000000000, ns / 1000 % 1000000);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: ipcperf trace [OPTIONS] {-p PID | -t TID | -a | -- CMD [ARGS]}\n\n"
		   "Print each completed read/write/send/recv and fd syscall of the targets:\n"
		   "  PID/TID NAME(FD, COUNT) = RET <SECONDS>\n\n"
		   "Options:\n" CLI_TARGET_HELP
		   "  -s, --all-syscalls      every syscall (raw_syscalls), not only I/O and fd calls\n"
		   "  -q, --quiet             no live status line (shown on a terminal when the\n"
		   "                          trace itself goes to a file or a pipe)\n"
		   "  -v, --verbose           more diagnostics\n"
		   "  -h, --help              this help\n");
}

int cmd_trace(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_TARGET_LONGOPTS,
		{ "verbose", no_argument, NULL, 'v' },
		{ "all-syscalls", no_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_target t = { 0 };
	struct cli_result res;
	struct ipcperf_session_stats st = { .sz = sizeof(st) };
	bool verbose = false, all = false, quiet = false;
	struct cli_out out;
	int opt;
	bool lost;

	while ((opt = getopt_long(argc, argv, "+" CLI_TARGET_OPTSTRING "vhsq", longopts, NULL)) != -1) {
		int r = cli_target_opt(&t, opt, optarg);

		if (r < 0)
			goto usage_err;
		if (r == 0)
			continue;
		switch (opt) {
		case 'v':
			verbose = true;
			break;
		case 's':
			all = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			cli_target_free(&t);
			return EXIT_OK;
		default:
			goto usage_err;
		}
	}
	if (cli_target_finish(&t, argc, argv, optind) < 0)
		goto usage_err;
	cli_setup_print(verbose);
	if (cli_open_output(&out, &t) < 0) {
		cli_target_free(&t);
		return EXIT_RUNTIME;
	}
	{
		IPCPERF_OPTS(ipcperf_handlers, h, .ctx = out.f, .syscall = on_syscall);
		struct cli_run run = {
			.handlers = &h,
			.progress = "ipcperf trace",
			.events = IPCPERF_EV_TASK |
				  (all ? IPCPERF_EV_ALL_SYSCALLS : IPCPERF_EV_IO | IPCPERF_EV_FDS),
		};

		/* Not when the trace lines themselves go to the terminal: they would mix. */
		cli_status_enable(!quiet && isatty(STDERR_FILENO) && !isatty(out.fd));
		cli_run(&t, &run, &res);
		cli_status_clear();
		cli_status_enable(false);
	}
	if (res.session && ipcperf_session__stats(res.session, &st) == 0) {
		if (st.lost)
			cli_err("warning: %" PRIu64 " events lost: the trace is incomplete; "
				"raise -m", st.lost);
		if (st.unpaired_enter || st.unpaired_exit)
			fprintf(stderr, "%s: %" PRIu64 " syscalls unfinished at the end, %" PRIu64
				" already under way at the start\n", cli_prog, st.unpaired_enter,
				st.unpaired_exit);
	}
	/* The trace is complete before a command that outlived it is waited for. */
	lost = cli_out_close(&out) < 0;
	cli_wait_command(&res);
	ipcperf_session__delete(res.session);
	cli_target_free(&t);
	return cli_exit(&res, lost);
usage_err:
	fprintf(stderr, "Run 'ipcperf trace --help' for usage.\n");
	cli_target_free(&t);
	return EXIT_USAGE;
}
