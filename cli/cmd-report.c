/*
 * ipcperf report: the stat, syscalls or flows view of a capture, made by
 * ipcperf record (or stat --record) or by perf record of the same
 * tracepoints. It runs the view's own command on a replay session, so the
 * numbers and formats are those of the live run.
 */
#include "config.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: ipcperf report -i FILE [--view stat|syscalls|flows] [OPTIONS]\n\n"
		   "Read a capture (ipcperf record, ipcperf stat --record, or perf record -e\n"
		   "syscalls:sys_enter_write -e syscalls:sys_exit_write ...) and give the view\n"
		   "ipcperf stat, stat -s or flows would have given live, with the same numbers.\n"
		   "A perf record capture has no ipcperf section: its per-fd ops, bytes,\n"
		   "latencies and syscall counts are exact, but fd objects and kinds are unknown,\n"
		   "there are no counters, and flows cannot name their channels.\n\n"
		   "Options:\n"
		   "  -i, --input FILE        the capture to read (required)\n"
		   "      --view VIEW         stat (default), syscalls (stat -s) or flows\n"
		   "  -j, --json              JSON, as the view's --json\n"
		   "  -x, --field-separator SEP\n"
		   "                          rows of fields separated by SEP (stat and syscalls)\n"
		   "  -o, --output FILE       write to FILE instead of standard output\n"
		   "      --dot FILE          flows: the flow graph in Graphviz DOT\n"
		   "      --trace-out FILE    flows: the timeline (Chrome trace JSON)\n"
		   "  -v, --verbose           more diagnostics\n"
		   "  -h, --help              this help\n\n"
		   "A capture that is corrupt or cut short gives one error naming the file offset\n"
		   "and exit status 1; one whose recorder was killed is read up to its last\n"
		   "complete record, with a warning that it is partial.\n\n"
		   "Exit status: 0 done, 1 the capture could not be read or the output written,\n"
		   "2 usage error.\n");
}

enum { OPT_VIEW = 256, OPT_DOT, OPT_TRACE };

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "view", required_argument, NULL, OPT_VIEW },
		{ "json", no_argument, NULL, 'j' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "output", required_argument, NULL, 'o' },
		{ "dot", required_argument, NULL, OPT_DOT },
		{ "trace-out", required_argument, NULL, OPT_TRACE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = NULL, *view = "stat", *sep = NULL, *out = NULL, *dot = NULL,
		   *trace = NULL;
	bool json = false, verbose = false, flows;
	char *args[16];
	int opt, n = 0;

	argv[0] = "ipcperf report";	/* what getopt's own messages start with */
	while ((opt = getopt_long(argc, argv, "+i:jx:o:vh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'i': input = optarg; break;
		case OPT_VIEW: view = optarg; break;
		case 'j': json = true; break;
		case 'x': sep = optarg; break;
		case 'o': out = optarg; break;
		case OPT_DOT: dot = optarg; break;
		case OPT_TRACE: trace = optarg; break;
		case 'v': verbose = true; break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			goto usage_err;
		}
	}
	if (optind < argc) {
		cli_err("a report takes no target or command: it reads the capture of -i FILE");
		return EXIT_USAGE;
	}
	if (!input) {
		cli_err("give the capture with -i FILE");
		return EXIT_USAGE;
	}
	if (strcmp(view, "stat") && strcmp(view, "syscalls") && strcmp(view, "flows")) {
		cli_err("invalid value '%s' for --view: give stat, syscalls or flows", view);
		return EXIT_USAGE;
	}
	flows = !strcmp(view, "flows");
	if (!flows && (dot || trace)) {
		cli_err("--dot and --trace-out go with --view flows");
		return EXIT_USAGE;
	}
	if (flows && sep) {
		cli_err("the flows view has no -x output: use --json");
		return EXIT_USAGE;
	}
	/* The view's own command, on the capture. */
	args[n++] = flows ? "flows" : "stat";
	args[n++] = "-q";
	if (!strcmp(view, "syscalls"))
		args[n++] = "-s";
	if (json)
		args[n++] = "-j";
	if (verbose)
		args[n++] = "-v";
	if (sep) {
		args[n++] = "-x";
		args[n++] = (char *)sep;
	}
	if (out) {
		args[n++] = "-o";
		args[n++] = (char *)out;
	}
	if (dot) {
		args[n++] = "--dot";
		args[n++] = (char *)dot;
	}
	if (trace) {
		args[n++] = "--trace-out";
		args[n++] = (char *)trace;
	}
	args[n] = NULL;
	cli_report_input = input;
	optind = 0;	/* getopt starts over for the view's options */
	return flows ? cmd_flows(n, args) : cmd_stat(n, args);
usage_err:
	fprintf(stderr, "Run 'ipcperf report --help' for usage.\n");
	return EXIT_USAGE;
}
