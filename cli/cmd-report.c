/*
 * ipcperf report: the stat, syscalls or flows view of a capture, made by
 * ipcperf record (or stat --record) or by perf record of the same
 * tracepoints. It runs the view's own command on a replay session, so the
 * numbers and formats are those of the live run.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmds.h"

enum cli_parsed report_parse(int argc, char **argv, struct report_opts *o)
{
	enum cli_parsed p;
	bool flows, paths;
	int first;

	*o = (struct report_opts){ .view = VIEW_STAT };
	p = cli_options_parse(CMD_REPORT, argc, argv, o, &first);
	if (p != CLI_PARSED_RUN)
		return p;
	flows = o->view == VIEW_FLOWS;
	paths = o->view == VIEW_PATHS;
	if (!o->input && access(CLI_DEFAULT_CAPTURE, F_OK) == 0)
		o->input = CLI_DEFAULT_CAPTURE;
	if (first < argc)
		cli_err("a report takes no target or command: it reads the capture of -i FILE");
	else if (!o->input)
		cli_err("give the capture with -i FILE (there is no " CLI_DEFAULT_CAPTURE
			" here, the file ipcperf record writes by default)");
	else if (!flows && (o->dot || o->trace_out))
		cli_err("--dot and --trace-out go with --view flows");
	else if ((flows || paths) && o->sep)
		cli_err("the %s view has no -x output: use --json", flows ? "flows" : "paths");
	else if (o->requests && !(paths && o->json))
		cli_err("--requests goes with --view paths and --json");
	else if (flows || paths || stat_check_format(o->json, o->sep) == 0)
		return CLI_PARSED_RUN;
	return CLI_PARSED_USAGE;
}

/* The paths view: ipcperf paths -i on the capture. */
static int report_paths(const struct report_opts *o)
{
	struct paths_opts po = {
		.t = { .input = o->input, .output = o->output },
		.json = o->json,
		.requests = o->requests,
		.quiet = true,
		.verbose = o->verbose,
	};

	return paths_run(&po);
}

/* The view's own command, on the capture: its targets were those of the recording. */
int report_run(const struct report_opts *o)
{
	if (o->view == VIEW_PATHS)
		return report_paths(o);
	if (o->view == VIEW_FLOWS) {
		struct flows_opts fo = {
			.t = { .input = o->input, .output = o->output },
			.json = o->json,
			.dot = o->dot,
			.trace_out = o->trace_out,
			.quiet = true,
			.verbose = o->verbose,
			.wide = o->wide,
			/* a capture's flows a row each, as stat's flows are */
			.per_flow = true,
		};

		return flows_run(&fo);
	} else {
		struct stat_opts so;

		stat_opts_init(&so);
		so.t.input = o->input;
		so.t.output = o->output;
		so.json = o->json;
		so.sep = o->sep;
		so.syscalls = o->view == VIEW_SYSCALLS;
		so.quiet = true;
		so.verbose = o->verbose;
		so.wide = o->wide;
		return stat_run(&so);
	}
}

static int report_main(int argc, char **argv)
{
	struct report_opts o;
	enum cli_parsed p = report_parse(argc, argv, &o);

	return p == CLI_PARSED_RUN ? report_run(&o) : cli_parsed_exit(p);
}

const struct cli_command cli_cmd_report = {
	.name = "report",
	.summary = "the stat, syscalls, flows or paths view of a capture",
	.usage =
		"usage: ipcperf report [-i FILE] [--view stat|syscalls|flows|paths] [OPTIONS]\n\n"
		"Read a capture (ipcperf record, ipcperf stat --record, or perf record -e\n"
		"syscalls:sys_enter_write -e syscalls:sys_exit_write ...) and give the view\n"
		"ipcperf stat, stat -s, flows or paths would have given live, with the same\n"
		"numbers.\n"
		"A perf record capture has no ipcperf section: its per-fd ops, bytes,\n"
		"latencies and syscall counts are exact, but fd objects and kinds are unknown,\n"
		"there are no counters, and flows cannot name their channels.\n\n"
		"Options:\n",
	.epilog =
		"\n"
		"A capture that is corrupt or cut short gives one error naming the file offset\n"
		"and exit status 1; one whose recorder was killed is read up to its last\n"
		"complete record, with a warning that it is partial.\n\n"
		"Exit status: 0 done, 1 the capture could not be read or the output written,\n"
		"2 usage error.\n",
	.main = report_main,
};
