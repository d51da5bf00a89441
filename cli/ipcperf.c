/* ipcperf: entry point and subcommand dispatch. */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} cmds[] = {
	{ "stat", cmd_stat, "per-fd throughput and latency, scheduling and counters of the targets" },
	{ "trace", cmd_trace, "print each completed syscall of the targets, strace-style" },
	{ "flows", cmd_flows, "who feeds whom through pipes and sockets: wire time, backpressure" },
	{ "record", cmd_record, "write the targets' events into a capture (perf.data format)" },
	{ "report", cmd_report, "the stat, syscalls or flows view of a capture" },
	{ "list", cmd_list, "the events and counters ipcperf can use here, and which are supported" },
	{ "check", cmd_check, "check this machine and user for tracing: each problem with its fix" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: ipcperf [--version] [--help] COMMAND [OPTIONS] [-- CMD [ARGS]]\n\n"
		   "Watch what processes do in the kernel and how data moves between them.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\nRun 'ipcperf COMMAND --help' for the options of a command.\n");
}

/*
 * What went to stdout itself (help, version; the reports have streams of
 * their own) must have reached it: exit 1 when it did not.
 */
static int close_stdout(int code)
{
	int err = fflush(stdout) ? errno : ferror(stdout) ? EIO : 0;

	if (!err)
		return code;
	cli_err("cannot write to standard output: %s", strerror(err));
	return code == EXIT_OK ? EXIT_RUNTIME : code;
}

static int run(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("ipcperf %s\n", ipcperf_version());
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	cli_err("unknown command '%s'; run 'ipcperf --help' for the list", argv[1]);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	return close_stdout(run(argc, argv));
}
