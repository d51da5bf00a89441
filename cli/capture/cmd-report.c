/*
 * ipcperf report: the stat, syscalls, flows or paths view of a capture,
 * made by ipcperf record (or stat --record) or by perf record of the same
 * tracepoints. It runs the view's own command on a replay session, so the
 * numbers and formats are those of the live run: stat's, flows' or paths'
 * replay, which ipcperf.c hands it (a command calls no other command).
 * The captures of several hosts (-i A -i B) are joined by paths' join:
 * its flows view, or its paths.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmds.h"

/* Several -i: the views that join them, and their options. @return 0, or -1 (said). */
static int check_joined(struct report_opts *o)
{
	if (o->inputs.n < 2)
		return 0;
	if (o->view == VIEW_STAT || o->view == VIEW_SYSCALLS) {
		cli_err("the %s view reads one capture: to join the captures of several hosts use "
			"--view flows or --view paths", o->view == VIEW_STAT ? "stat" : "syscalls");
		return -1;
	}
	if (o->dot || o->trace_out) {
		cli_err("--dot and --trace-out read one capture: give one -i");
		return -1;
	}
	return 0;
}

static void report_init(void *opts)
{
	((struct report_opts *)opts)->view = VIEW_UNSET;
}

static int report_check(void *opts, int argc, char **argv, int first)
{
	struct report_opts *o = opts;
	bool flows, paths;

	if (o->view == VIEW_UNSET)
		o->view = o->inputs.n > 1 ? VIEW_FLOWS : VIEW_STAT;
	flows = o->view == VIEW_FLOWS;
	paths = o->view == VIEW_PATHS;
	o->input = o->inputs.n ? o->inputs.v[0] : NULL;
	if (!o->input && access(CLI_DEFAULT_CAPTURE, F_OK) == 0)
		o->input = CLI_DEFAULT_CAPTURE;
	if (first < argc)
		cli_err("a report takes no target or command: it reads the capture of -i FILE");
	else if (!o->input)
		cli_err("give the capture with -i FILE (there is no " CLI_DEFAULT_CAPTURE
			" here, the file ipcperf record writes by default)");
	else if (check_joined(o) < 0)
		return -1;
	else if (!flows && (o->dot || o->trace_out))
		cli_err("--dot and --trace-out go with --view flows");
	else if ((flows || paths) && o->sep)
		cli_err("the %s view has no -x output: use --json", flows ? "flows" : "paths");
	else if (o->requests && !(paths && o->json))
		cli_err("--requests goes with --view paths and --json");
	else if (flows || paths || cli_check_format(o->json, o->sep) == 0)
		return 0;
	return -1;
}

int report_main(int argc, char **argv, const struct report_views *v)
{
	struct report_opts o;
	enum cli_parsed p = cli_command_parse(&cli_cmd_report, argc, argv, &o, sizeof(o));

	if (p != CLI_PARSED_RUN)
		return cli_parsed_exit(p);
	if (o.view == VIEW_PATHS)
		return v->paths(&o);
	if (o.view == VIEW_FLOWS)
		return o.inputs.n > 1 ? v->joined_flows(&o) : v->flows(&o);
	return v->stat(&o);
}

/* No run(): ipcperf.c calls report_main() with the views. */
const struct cli_command cli_cmd_report = {
	.id = CMD_REPORT,
	.name = "report",
	.summary = "the stat, syscalls, flows or paths view of a capture",
	.usage =
		"usage: ipcperf report [-i FILE]... [--view stat|syscalls|flows|paths] [OPTIONS]\n\n"
		"Read a capture (ipcperf record, ipcperf stat --record, or perf record -e\n"
		"syscalls:sys_enter_write -e syscalls:sys_exit_write ...) and give the view\n"
		"ipcperf stat, stat -s, flows or paths would have given live, with the same\n"
		"numbers.\n"
		"A perf record capture has no ipcperf section: its per-fd ops, bytes,\n"
		"latencies and syscall counts are exact, but fd objects and kinds are unknown,\n"
		"there are no counters, and flows cannot name their channels.\n"
		"Given several -i (captures of several hosts, ipcperf record --host), the flows\n"
		"view (the default then) gives each host's flows and the TCP connections between\n"
		"the hosts, a flow a direction, their wire times on the first host's clock;\n"
		"the paths view joins them as ipcperf paths -i A -i B does.\n\n"
		"Options:\n",
	.epilog =
		"\n"
		"A capture that is corrupt or cut short gives one error naming the file offset\n"
		"and exit status 1; one whose recorder was killed is read up to its last\n"
		"complete record, with a warning that it is partial.\n\n"
		"Exit status: 0 done, 1 the capture could not be read or the output written,\n"
		"2 usage error.\n",
	.init = report_init,
	.check = report_check,
};
