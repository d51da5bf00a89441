/* ipcperf: entry point and subcommand dispatch. */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "cmds.h"

static const struct cli_command *const cmds[CMD__MAX] = {
	[CMD_STAT] = &cli_cmd_stat,
	[CMD_TRACE] = &cli_cmd_trace,
	[CMD_FLOWS] = &cli_cmd_flows,
	[CMD_PATHS] = &cli_cmd_paths,
	[CMD_TOP] = &cli_cmd_top,
	[CMD_RECORD] = &cli_cmd_record,
	[CMD_REPORT] = &cli_cmd_report,
	[CMD_LIST] = &cli_cmd_list,
	[CMD_CHECK] = &cli_cmd_check,
};

/*
 * report runs another command's view of a capture: handed to it here, so
 * that no command calls another.
 */
static const struct report_views report_views = {
	.stat = stat_replay, .flows = flows_replay, .paths = paths_replay,
	.joined_flows = paths_join_flows,
};

/* The subcommand called @name; CMD__MAX when there is none. */
static enum cli_cmd_id command_named(const char *name)
{
	int i;

	for (i = 0; i < CMD__MAX && strcmp(name, cmds[i]->name); i++)
		;
	return (enum cli_cmd_id)i;
}

/* Command @c (not report): its options parsed and run, then what they took freed. */
static int command_main(const struct cli_command *c, int argc, char **argv)
{
	union cli_cmd_opts opts;
	enum cli_parsed p = cli_command_parse(c, argc, argv, &opts, sizeof(opts));
	int code = p == CLI_PARSED_RUN ? c->run(&opts) : cli_parsed_exit(p);

	cli_options_free(c, &opts);
	return code;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: ipcperf [--version] [--help] COMMAND [OPTIONS] [-- CMD [ARGS]]\n\n"
		   "Watch what processes do in the kernel and how data moves between them.\n\n"
		   "Commands:\n");
	for (int i = 0; i < CMD__MAX; i++)
		fprintf(f, "  %-8s %s\n", cmds[i]->name, cmds[i]->summary);
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

/*
 * Not in --help, for contrib/bash-completion/ipcperf and its test:
 * --bash-completion prints the part of the completion made from the option
 * table; --list-options COMMAND the option words it offers for COMMAND.
 */
static int hidden(int argc, char **argv)
{
	enum cli_cmd_id id;

	if (!strcmp(argv[1], "--bash-completion") && argc == 2) {
		if (cli_options_bash(stdout, cmds) == 0)
			return EXIT_OK;
		cli_err("cannot make the completion: %s", strerror(ENOMEM));
		return EXIT_RUNTIME;
	}
	if (argc != 3 || (id = command_named(argv[2])) == CMD__MAX) {
		cli_err("give --list-options one COMMAND");
		return EXIT_USAGE;
	}
	cli_options_list(stdout, cmds[id]);
	return EXIT_OK;
}

static int run(int argc, char **argv)
{
	enum cli_cmd_id id;

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
	if (!strcmp(argv[1], "--bash-completion") || !strcmp(argv[1], "--list-options"))
		return hidden(argc, argv);
	id = command_named(argv[1]);
	if (id == CMD_REPORT)
		return report_main(argc - 1, argv + 1, &report_views);
	if (id < CMD__MAX)
		return command_main(cmds[id], argc - 1, argv + 1);
	cli_err("unknown command '%s'; run 'ipcperf --help' for the list", argv[1]);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	return close_stdout(run(argc, argv));
}
