/* ipcperf flows: who feeds whom through pipes and sockets: table, JSON, Graphviz, Chrome trace. */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"
#include "flowout.h"
#include "output.h"
#include "util.h"

struct flows_cmd {
	struct cli_target t;
	bool json, quiet, verbose;
	const char *dot_path, *trace_path;
	struct cli_out out, dot, trace;
	struct ipcperf_stats *st;
	struct ipcperf_flows *fl;
	struct flowout_trace *tr;
	char what[CLI_WHAT_LEN];
};

static int flows_setup(void *ctx, struct ipcperf_session *s)
{
	struct flows_cmd *c = ctx;
	int err;

	/* In this order: each event reaches the stats, then the flows, then the timeline. */
	if ((err = ipcperf_stats__attach(c->st, s)) < 0 ||
	    (err = ipcperf_flows__attach(c->fl, s)) < 0) {
		cli_err("cannot set up the flow correlation: %s", strerror(-err));
		return err;
	}
	if (c->tr && (err = flowout_trace_attach(c->tr, s, c->fl, c->st)) < 0) {
		cli_err("cannot set up the timeline: %s", strerror(-err));
		return err;
	}
	return 0;
}

static int json_proc(void *ctx, const struct ipcperf_proc_row *row)
{
	struct json *j = ctx;

	json_object_begin(j, NULL);
	json_i64(j, "pid", row->pid);
	json_str(j, "comm", row->comm);
	json_object_end(j);
	return 0;
}

static int print_json(struct flows_cmd *c, const struct ipcperf_session_stats *st,
		      uint64_t duration_ns, const int *exit_status)
{
	struct json j;
	int err;

	json_init(&j, c->out.f, true);
	json_object_begin(&j, NULL);
	json_u64(&j, "schema", 1);
	json_str(&j, "tool", "ipcperf");
	json_str(&j, "version", ipcperf_version());
	json_u64(&j, "duration_ns", duration_ns);
	json_u64(&j, "lost_events", st->lost);
	json_u64(&j, "unpaired_syscalls", st->unpaired_enter + st->unpaired_exit);
	json_u64(&j, "records", st->records);
	if (exit_status) {
		if (WIFSIGNALED(*exit_status))
			json_u64(&j, "exit_signal", (uint64_t)WTERMSIG(*exit_status));
		else if (WIFEXITED(*exit_status))
			json_u64(&j, "exit_status", (uint64_t)WEXITSTATUS(*exit_status));
	}
	json_array_begin(&j, "processes");
	err = ipcperf_stats__for_each_proc(c->st, json_proc, &j);
	json_array_end(&j);
	if (err >= 0)
		err = flowout_json(&j, c->fl);
	json_object_end(&j);
	json_end_document(&j);
	return err;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ipcperf flows [OPTIONS] {-p PID | -t TID | -a | -- CMD [ARGS]}\n\n"
		"Show how data moves between the targets through pipes, FIFOs, unix sockets and\n"
		"loopback TCP: per channel and direction (a flow), who writes into it and who\n"
		"reads it out, the bytes, MB/s over the capture, the wire time (from the end of a\n"
		"write to the end of the read that took its bytes: p50, p99), the most bytes\n"
		"queued in the channel against its capacity, the time writers and readers slept\n"
		"inside their calls, and a verdict:\n"
		"  backpressure      writers' blocked time W > 2 x readers' R, and W >= 1 ms\n"
		"                    (the consumer is slow: writers wait on a full channel)\n"
		"  consumer-starved  R > 2 x W, and R >= 1 ms (the producer is slow)\n"
		"  balanced          otherwise\n\n"
		"Options:\n" CLI_TARGET_HELP
		"  -j, --json              JSON, schema 1 (fields: ipcperf-flows(1), doc/json.md)\n"
		"      --dot FILE          also write the flow graph for Graphviz to FILE\n"
		"                          (dot -Tsvg FILE > flows.svg)\n"
		"      --trace-out FILE    also write a timeline in the Chrome Trace Event Format\n"
		"                          to FILE, for Perfetto UI or chrome://tracing: read and\n"
		"                          write calls per thread, an arrow from each write to each\n"
		"                          read that took its bytes, queued bytes per channel\n"
		"  -q, --quiet             no live status line on the terminal\n"
		"  -v, --verbose           more diagnostics\n"
		"  -h, --help              this help\n\n"
		"Lost events are given on the last line (and in JSON); when there were any, a\n"
		"warning on stderr says so: flows are then incomplete.\n\n"
		"Exit status: 0 done, 1 runtime error (e.g. no such process, permission denied,\n"
		"output not written), 2 usage error; with -- CMD, the command's own status (its\n"
		"signal is re-raised), or 1 if it succeeded but an output could not be written.\n");
}

enum { OPT_DOT = 256, OPT_TRACE };

int cmd_flows(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_TARGET_LONGOPTS,
		{ "json", no_argument, NULL, 'j' },
		{ "dot", required_argument, NULL, OPT_DOT },
		{ "trace-out", required_argument, NULL, OPT_TRACE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct flows_cmd c = { 0 };
	struct cli_result res = { .end = CLI_END_NOT_RUN };
	struct ipcperf_session *s;
	struct ipcperf_session_stats st = { .sz = sizeof(st) };
	struct flowout fo = { 0 };
	uint64_t duration_ns;
	bool failed = false;
	int opt, err = 0;

	argv[0] = "ipcperf flows";	/* what getopt's own messages start with */
	while ((opt = getopt_long(argc, argv, "+" CLI_TARGET_OPTSTRING "jqvh", longopts,
				  NULL)) != -1) {
		int r = cli_target_opt(&c.t, opt, optarg);

		if (r < 0)
			goto usage_said;
		if (r == 0)
			continue;
		switch (opt) {
		case 'j':
			c.json = true;
			break;
		case OPT_DOT:
			c.dot_path = optarg;
			break;
		case OPT_TRACE:
			c.trace_path = optarg;
			break;
		case 'q':
			c.quiet = true;
			break;
		case 'v':
			c.verbose = true;
			break;
		case 'h':
			usage(stdout);
			cli_target_free(&c.t);
			return EXIT_OK;
		default:
			goto usage_err;	/* getopt said what */
		}
	}
	if (cli_target_finish(&c.t, argc, argv, optind) < 0)
		goto usage_said;
	cli_describe_targets(&c.t, c.what, sizeof(c.what));
	cli_setup_print(c.verbose);

	c.st = ipcperf_stats__new(NULL);
	c.fl = c.st ? ipcperf_flows__new(c.st) : NULL;
	if (!c.fl) {
		cli_err("cannot set up the flow correlation: %s", strerror(errno));
		goto out;
	}
	/* Every output is opened before the capture, so that a bad path costs no run. */
	if (cli_open_output(&c.out, &c.t) < 0)
		goto out;
	if (c.dot_path && cli_out_open(&c.dot, c.dot_path, "the graph") < 0)
		goto out;
	if (c.trace_path) {
		if (cli_out_open(&c.trace, c.trace_path, "the timeline") < 0)
			goto out;
		c.tr = flowout_trace_new(c.trace.f);
		if (!c.tr) {
			cli_err("cannot set up the timeline: %s", strerror(errno));
			goto out;
		}
	}
	cli_status_enable(!c.quiet && isatty(STDERR_FILENO));
	{
		struct cli_run run = {
			.setup = flows_setup,
			.ctx = &c,
			.progress = "ipcperf flows",
		};

		cli_run(&c.t, &run, &res);
	}
	cli_status_clear();
	cli_status_enable(false);
	s = res.session;
	if (!s) {
		/* It never ran (the reason was printed): leave no half-written files. */
		cli_out_discard(&c.dot);
		cli_out_discard(&c.trace);
		goto out;
	}
	if (ipcperf_session__stats(s, &st) < 0) {
		cli_err("cannot read the session's statistics");
		failed = true;
		goto out;
	}
	duration_ns = st.stop_ns > st.start_ns ? st.stop_ns - st.start_ns : 0;

	if (!c.json || c.dot.f)
		err = flowout_load(&fo, c.fl, c.st);
	if (err == 0 && c.json) {
		err = print_json(&c, &st, duration_ns, cli_cmd_status(&res));
	} else if (err == 0) {
		fprintf(c.out.f, "ipcperf flows: %s, %.3f s\n\n", c.what, duration_ns / 1e9);
		flowout_text(c.out.f, &fo, duration_ns);
		fprintf(c.out.f, "\nlost events: %" PRIu64 ", unpaired syscalls: %" PRIu64 "\n",
			st.lost, st.unpaired_enter + st.unpaired_exit);
	}
	if (err == 0 && c.dot.f)
		flowout_dot(c.dot.f, &fo);
	if (err < 0) {
		cli_err("cannot collect the flows: %s", strerror(-err));
		failed = true;
	}
	if (c.tr && flowout_trace_finish(c.tr) < 0)
		failed = true;	/* said by the stream, with its errno */

	if (st.lost) {
		char hint[CLI_HINT_LEN];

		cli_lost_hint(hint, sizeof(hint), &c.t, &st);
		cli_err("warning: %" PRIu64 " events lost: flows are incomplete and their counts "
			"lower bounds; %s", st.lost, hint);
	}
	if (c.verbose)
		fprintf(stderr, "%s: %" PRIu64 " records from %u rings, %" PRIu64 " syscalls, %" PRIu64
			" unpaired, %u tracepoints missing in this kernel\n", cli_prog, st.records,
			st.rings, st.syscalls, st.unpaired_enter + st.unpaired_exit,
			st.skipped_events);
out:
	flowout_free(&fo);
	/* Every output is out before a command that outlived the capture is waited for. */
	failed |= cli_out_close(&c.out) < 0;
	failed |= cli_out_close(&c.dot) < 0;
	failed |= cli_out_close(&c.trace) < 0;
	cli_wait_command(&res);
	/* The session first: it feeds the others. */
	ipcperf_session__delete(res.session);
	flowout_trace_delete(c.tr);
	ipcperf_flows__delete(c.fl);
	ipcperf_stats__delete(c.st);
	cli_target_free(&c.t);
	return cli_exit(&res, failed);
usage_err:
	fprintf(stderr, "Run 'ipcperf flows --help' for usage.\n");
usage_said:
	cli_target_free(&c.t);
	return EXIT_USAGE;
}
