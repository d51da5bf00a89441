/* ipcperf flows: who feeds whom through pipes and sockets: table, JSON, Graphviz, Chrome trace. */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "cmds.h"
#include "flowout-dot.h"
#include "flowout-trace.h"
#include "output.h"
#include "util.h"

/* -I: the flows of the interval under way, and what the intervals before left. */
struct flows_interval {
	struct ipcperf_flows *fl;	/* reset at the end of each interval */
	unsigned int n;			/* intervals printed */
	uint64_t last_ns;		/* the end of the one before (0: none yet) */
	uint64_t prev_lost;		/* events lost up to then */
	/*
	 * --json: the objects of "intervals", kept until the document is
	 * written: in an unlinked temporary file (a run left on for hours
	 * writes gigabytes of them), read back through a mapping of it; in
	 * memory where no temporary file can be made.
	 */
	FILE *json_f;
	bool spilled;			/* json_f is the temporary file */
	struct json j;
	char *text;
	size_t len;
	void *map;			/* the file's mapping, map_len bytes */
	size_t map_len;
};

/* A run of flows: its accounting and its outputs. */
struct flows_cmd {
	const struct flows_opts *o;
	struct cli_out out, dot, trace;
	struct ipcperf_stats *st;
	struct ipcperf_flows *fl;
	struct flowout_trace *tr;
	struct flows_interval iv;
	char what[CLI_WHAT_LEN];
};

static int flows_check(void *opts, int argc, char **argv, int first)
{
	return cli_target_finish(&((struct flows_opts *)opts)->t, argc, argv, first);
}

/* -I: a second flows object over the same stats, reset every interval. @return 0, or -1 (said). */
static int flows_interval_open(struct flows_cmd *c)
{
	struct flows_interval *iv = &c->iv;

	iv->fl = ipcperf_flows__new(c->st);
	if (iv->fl && c->o->json) {
		iv->json_f = tmpfile();
		iv->spilled = iv->json_f != NULL;
		if (!iv->json_f)
			iv->json_f = open_memstream(&iv->text, &iv->len);
		/* the objects of the array "intervals" of the document's object */
		if (iv->json_f)
			json_init_inside(&iv->j, iv->json_f, true, 2);
	}
	if (!iv->fl || (c->o->json && !iv->json_f)) {
		cli_err("cannot set up the intervals: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The accounting, and every output: opened before the capture, so that a
 * bad path costs no run. @return 0, or -1 (said).
 */
static int flows_open(struct flows_cmd *c)
{
	const struct flows_opts *o = c->o;
	/*
	 * Closed connections: their flows fold once closed
	 * (ipcperf_flows__new()), and their fd rows too. A flow whose other
	 * side is a process not traced (-p, -t, -a) is named from the row of
	 * its traced end's fd: the flows keep that row from folding while
	 * they keep the flow, and fold it with that name.
	 */
	IPCPERF_OPTS(ipcperf_stats_opts, so, .fold_conns = true);

	c->st = ipcperf_stats__new(&so);
	c->fl = c->st ? ipcperf_flows__new(c->st) : NULL;
	if (c->fl && o->interval_ms && flows_interval_open(c) < 0)
		return -1;
	if (!c->fl) {
		cli_err("cannot set up the flow correlation: %s", strerror(errno));
		return -1;
	}
	if (cli_open_output(&c->out, &o->t) < 0 ||
	    (o->dot && cli_out_open(&c->dot, o->dot, "the graph") < 0) ||
	    (o->trace_out && cli_out_open(&c->trace, o->trace_out, "the timeline") < 0))
		return -1;
	if (o->trace_out && !(c->tr = flowout_trace_new(c->trace.f))) {
		cli_err("cannot set up the timeline: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int flows_setup(void *ctx, struct ipcperf_session *s)
{
	struct flows_cmd *c = ctx;
	int err;

	/* In this order: each event reaches the stats, then the flows, then the timeline. */
	if ((err = ipcperf_stats__attach(c->st, s)) < 0 ||
	    (err = ipcperf_flows__attach(c->fl, s)) < 0 ||
	    (c->iv.fl && (err = ipcperf_flows__attach(c->iv.fl, s)) < 0)) {
		cli_err("cannot set up the flow correlation: %s", strerror(-err));
		return err;
	}
	if (c->tr && (err = flowout_trace_attach(c->tr, s, c->fl, c->st)) < 0) {
		cli_err("cannot set up the timeline: %s", strerror(-err));
		return err;
	}
	return 0;
}

/*
 * -I: the flows of the interval that ends at @end_ns (CLOCK_MONOTONIC),
 * printed or kept for the JSON; then the next starts. The @last one, after
 * the stop, settles every call left, as the whole run's report does.
 */
static void flows_interval_emit(struct flows_cmd *c, struct ipcperf_session *s, uint64_t end_ns,
				bool last)
{
	struct flows_interval *iv = &c->iv;
	struct ipcperf_session_stats st = { .sz = sizeof(st) };
	struct flowout fo;
	struct flowout_span sp;
	int err;

	if (ipcperf_session__stats(s, &st) < 0)
		return;
	if (!iv->last_ns)
		iv->last_ns = st.start_ns;
	if (end_ns < iv->last_ns)
		end_ns = iv->last_ns;
	sp = (struct flowout_span){ .n = ++iv->n, .time_ns = end_ns - st.start_ns,
				    .duration_ns = end_ns - iv->last_ns,
				    .lost = st.lost - iv->prev_lost };
	iv->last_ns = end_ns;
	iv->prev_lost = st.lost;
	err = flowout_load_interval(&fo, iv->fl, c->st, last);
	fo.per_flow = c->o->per_flow;
	cli_status_clear();
	if (err < 0)
		cli_err("cannot collect the flows of interval %u: %s", sp.n, strerror(-err));
	else if (iv->json_f)
		flowout_interval_json(&iv->j, &fo, &sp);
	else
		flowout_interval_text(c->out.f, &fo, &sp);
	flowout_free(&fo);
	ipcperf_flows__reset(iv->fl);
}

static void flows_tick(void *ctx, struct ipcperf_session *s)
{
	flows_interval_emit(ctx, s, cli_now_ns(), false);
}

/* The intervals' temporary file mapped (none when empty). @return 0, or -1 (errno). */
static int interval_file_map(struct flows_interval *iv)
{
	off_t end;

	if (fflush(iv->json_f) != 0 || ferror(iv->json_f) || (end = ftello(iv->json_f)) < 0)
		return -1;
	if (!end)
		return 0;
	iv->map = mmap(NULL, (size_t)end, PROT_READ, MAP_PRIVATE, fileno(iv->json_f), 0);
	if (iv->map == MAP_FAILED) {
		iv->map = NULL;
		return -1;
	}
	iv->map_len = (size_t)end;
	return 0;
}

/* -I --json: the intervals kept, to splice into the document; NULL without. */
static const struct flowout_intervals *flows_interval_json(struct flows_cmd *c,
							   struct flowout_intervals *out)
{
	if (!c->iv.json_f)
		return NULL;
	if (c->iv.spilled) {
		if (interval_file_map(&c->iv) < 0)
			cli_err("warning: the intervals could not be kept: %s", strerror(errno));
		*out = (struct flowout_intervals){ .text = c->iv.map, .len = c->iv.map_len };
		return out;
	}
	/* closed, the stream's text and length are final */
	if (fclose(c->iv.json_f) != 0)
		cli_err("warning: the intervals could not be kept: %s", strerror(errno));
	c->iv.json_f = NULL;
	*out = (struct flowout_intervals){ .text = c->iv.text, .len = c->iv.text ? c->iv.len : 0 };
	return out;
}

/* What was lost, and with -v what was read, on stderr. */
static void say_losses(struct flows_cmd *c, const struct ipcperf_session_stats *st)
{
	cli_warn_lost(&c->o->t, st, "flows are incomplete and their counts lower bounds");
	if (c->o->verbose)
		fprintf(stderr, "%s: %" PRIu64 " records from %u rings, %" PRIu64 " syscalls, %" PRIu64
			" unpaired, %u tracepoints missing in this kernel\n", cli_prog, st->records,
			st->rings, st->syscalls, st->unpaired_enter + st->unpaired_exit,
			st->skipped_events);
}

/* After the capture: the report, the graph, the end of the timeline. @return 0, or -1 (said). */
static int flows_report(struct flows_cmd *c, const struct cli_result *res)
{
	struct ipcperf_session_stats st = { .sz = sizeof(st) };
	struct cli_summary sum;
	struct flowout fo = { 0 };
	struct flowout_intervals ivs;
	int err = 0, ret = 0;

	if (ipcperf_session__stats(res->session, &st) < 0) {
		cli_err("cannot read the session's statistics");
		return -1;
	}
	cli_summary_of(&sum, &st, cli_cmd_status(res));
	/* the last, partial interval: the intervals then add up to the whole run */
	if (c->iv.fl)
		flows_interval_emit(c, res->session, st.stop_ns ? st.stop_ns : cli_now_ns(), true);
	/* the JSON streams its flows: it needs their groups only, unless a graph is drawn too */
	if (c->o->json && !c->dot.f)
		err = flowout_load_groups(&fo, c->fl, c->st);
	else
		err = flowout_load(&fo, c->fl, c->st);
	fo.per_flow = c->o->per_flow;
	if (err == 0 && c->o->json)
		err = flowout_json_doc(c->out.f, &sum, c->st, c->fl, &fo,
				       flows_interval_json(c, &ivs));
	else if (err == 0)
		flowout_text_report(c->out.f, c->what, &fo, &sum);
	if (err == 0 && c->dot.f)
		flowout_dot(c->dot.f, &fo, sum.duration_ns);
	flowout_free(&fo);
	if (err < 0) {
		cli_err("cannot collect the flows: %s", strerror(-err));
		ret = -1;
	}
	if (c->tr && flowout_trace_finish(c->tr) < 0)
		ret = -1;	/* said by the stream, with its errno */
	say_losses(c, &st);
	return ret;
}

/* What cli_finish() frees of a run of flows: the flows before the accounting they use. */
static void flows_free(void *ctx)
{
	struct flows_cmd *c = ctx;

	flowout_trace_delete(c->tr);
	if (c->iv.map)
		munmap(c->iv.map, c->iv.map_len);
	if (c->iv.json_f)
		fclose(c->iv.json_f);
	free(c->iv.text);
	ipcperf_flows__delete(c->iv.fl);
	ipcperf_flows__delete(c->fl);
	ipcperf_stats__delete(c->st);
}

static int flows_run(const void *opts)
{
	const struct flows_opts *o = opts;
	struct flows_cmd c = { .o = o };
	struct cli_result res = { .end = CLI_END_NOT_RUN };
	/* The default events, and an event loop's epoll calls (where its waits go). */
	struct cli_run run = { .setup = flows_setup, .ctx = &c, .progress = "ipcperf flows",
			       .status = !o->quiet && isatty(STDERR_FILENO),
			       .live = o->quiet ? NULL : "ipcperf flows",
			       .events = IPCPERF_EV_DEFAULT | IPCPERF_EV_WAITS,
			       .tick = o->interval_ms ? flows_tick : NULL, .tick_ms = o->interval_ms };
	bool failed = false;

	cli_set_wide(o->wide);
	cli_describe_targets(&o->t, c.what, sizeof(c.what));
	cli_setup_print(o->verbose);
	if (flows_open(&c) == 0) {
		cli_run(&o->t, &run, &res);
		if (res.session) {
			failed = flows_report(&c, &res) < 0;
		} else {
			/* It never ran (the reason was printed): leave no half-written files. */
			cli_out_discard(&c.dot);
			cli_out_discard(&c.trace);
		}
	}
	/* Every output is out before a command that outlived the capture is waited for. */
	failed |= cli_out_close_all(&c.out, &c.dot, &c.trace, NULL) < 0;
	return cli_finish(&res, failed, flows_free, &c);
}

int flows_replay(const struct report_opts *o)
{
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
}

const struct cli_command cli_cmd_flows = {
	.id = CMD_FLOWS,
	.name = "flows",
	.summary = "who feeds whom through pipes and sockets: wire time, backpressure",
	.usage =
		"usage: ipcperf flows [OPTIONS] {-p PID | -t TID | -a | -- CMD [ARGS]}\n\n"
		"Show how data moves between the targets through pipes, FIFOs, unix sockets and\n"
		"loopback TCP: per channel and direction (a flow), who writes into it and who\n"
		"reads it out, the bytes, MB/s over the capture, the wire time (from the start of\n"
		"a write to the end of the read that took its bytes: p50, p99), the most bytes\n"
		"queued in the channel against its capacity, the time writers and readers slept\n"
		"inside their calls or in waits (epoll, poll, select) for it, and a verdict:\n"
		"  backpressure      writers' waits W > 2 x readers' R, and W >= 1 ms\n"
		"                    (the consumer is slow: writers wait on a full channel)\n"
		"  consumer-starved  R > 2 x W, and R >= 1 ms (the producer is slow)\n"
		"  backpressure (queue: Nx)  else, when writers never met a full channel\n"
		"                    and the bytes waited in it (wire p50, >= 1 ms) N > 2 x\n"
		"                    the slower side's time per call (a slow reader behind\n"
		"                    a deep buffer)\n"
		"  balanced          otherwise; for non-blocking ends (refused with EAGAIN\n"
		"                    or waiting), backpressure when writes were\n"
		"                    refused > 2 x as often as reads or the channel sat full,\n"
		"                    consumer-starved when reads were refused > 2 x as often\n"
		"  idle              no byte went in or out (whatever W and R)\n"
		"A ratio within 1.25x of its line of 2 (1.6x to 2.5x) is marginal, as in\n"
		"\"backpressure (marginal: 1.9x)\" on either side of the line; it names no\n"
		"bottleneck.\n\n"
		"Options:\n",
	.epilog =
		"\n"
		"Lost events are given on the last line (and in JSON); when there were any, a\n"
		"warning on stderr says so: flows are then incomplete.\n\n"
		"Exit status: 0 done, 1 runtime error (e.g. no such process, permission denied,\n"
		"output not written), 2 usage error; with -- CMD, the command's own status (its\n"
		"signal is re-raised), or 1 if it succeeded but an output could not be written.\n",
	.check = flows_check,
	.run = flows_run,
};
