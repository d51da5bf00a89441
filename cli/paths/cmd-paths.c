/* ipcperf paths: each request followed from process to process, and where its time goes. */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cmds.h"
#include "joinrun.h"
#include "otlpout.h"
#include "output.h"
#include "pathsout.h"
#include "perfettoout.h"
#include "util.h"

/* A run of paths: the accounting under it, the paths, what is gathered of them. */
struct paths_cmd {
	const struct paths_opts *o;
	struct cli_out out, otlp, perfetto;
	int64_t real_minus_mono;	/* the wall clock less the paths' clock, at the start */
	struct ipcperf_stats *st;
	struct ipcperf_flows *fl;
	struct ipcperf_paths *pa;
	struct pathsout *po;
	char what[CLI_WHAT_LEN];
};

/* The targets, or with -i a capture: its targets were those of its recording. */
static int paths_check(void *opts, int argc, char **argv, int first)
{
	struct paths_opts *o = opts;

	o->t.input = o->inputs.n ? o->inputs.v[0] : NULL;
	if (o->t.host && !o->t.record) {
		cli_err("--host names the host of the capture --record writes: add --record FILE");
		return -1;
	}
	if (!o->t.input)
		return cli_target_finish(&o->t, argc, argv, first);
	if (first < argc || o->t.pids.n || o->t.tids.n || o->t.system_wide) {
		cli_err("-i reads a capture, whose targets are those it was recorded with: "
			"give no -p, -t, -a or command with it");
		return -1;
	}
	if (o->t.record) {
		cli_err("-i reads a capture and --record writes one while tracing: give one of them");
		return -1;
	}
	return 0;
}

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * The accounting, the paths and every output, before the capture, so that
 * a bad path costs no run. @return 0, or -1 (said).
 */
static int paths_open(struct paths_cmd *c)
{
	const struct paths_opts *o = c->o;
	/* The traces and the timeline are drawn from every request, kept. */
	bool keep = (o->json && o->requests) || o->otlp || o->otlp_endpoint || o->perfetto;

	c->st = ipcperf_stats__new(NULL);
	c->fl = c->st ? ipcperf_flows__new(c->st) : NULL;
	c->pa = c->fl ? ipcperf_paths__new(c->fl) : NULL;
	c->po = c->pa ? pathsout_new(keep) : NULL;
	if (!c->po) {
		cli_err("cannot set up the request paths: %s", strerror(errno ? errno : ENOMEM));
		return -1;
	}
	ipcperf_paths__on_path(c->pa, pathsout_add, c->po);
	c->real_minus_mono = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
	if (cli_open_output(&c->out, &o->t) < 0 ||
	    (o->otlp && cli_out_open(&c->otlp, o->otlp, "the traces") < 0) ||
	    (o->perfetto && cli_out_open(&c->perfetto, o->perfetto, "the timeline") < 0))
		return -1;
	return 0;
}

/*
 * The traces and the timeline, after the report: the file first, the POST
 * last, so that a collector that cannot be reached costs no file.
 * @return 0, or -1 (said).
 */
static int paths_traces(struct paths_cmd *c)
{
	const struct paths_opts *o = c->o;
	size_t len = 0;
	char *doc = NULL;
	int ret = 0;

	if (o->perfetto && perfettoout_write(c->perfetto.f, c->po) < 0) {
		cli_err("cannot write the timeline: %s", strerror(ENOMEM));
		ret = -1;
	}
	if (!o->otlp && !o->otlp_endpoint)
		return ret;
	if (!(doc = otlpout_doc(c->po, c->real_minus_mono, &len))) {
		cli_err("cannot make the traces: %s", strerror(ENOMEM));
		return -1;
	}
	if (o->otlp)
		fwrite(doc, 1, len, c->otlp.f);
	if (o->otlp_endpoint && otlpout_post(o->otlp_endpoint, doc, len) < 0)
		ret = -1;
	free(doc);
	return ret;
}

static int paths_setup(void *ctx, struct ipcperf_session *s)
{
	struct paths_cmd *c = ctx;
	int err;

	/* In this order: each event reaches the stats, then the flows, then the paths. */
	if ((err = ipcperf_stats__attach(c->st, s)) < 0 ||
	    (err = ipcperf_flows__attach(c->fl, s)) < 0 ||
	    (err = ipcperf_paths__attach(c->pa, s)) < 0) {
		cli_err("cannot set up the request paths: %s", strerror(-err));
		return err;
	}
	return 0;
}

static void say_losses(struct paths_cmd *c, const struct ipcperf_session_stats *st)
{
	cli_warn_lost(&c->o->t, st, "the requests under way then are not attributed");
	if (c->o->verbose)
		fprintf(stderr, "%s: %" PRIu64 " records from %u rings, %" PRIu64 " syscalls, %" PRIu64
			" unpaired\n", cli_prog, st->records, st->rings, st->syscalls,
			st->unpaired_enter + st->unpaired_exit);
}

/* After the capture: the last requests completed, the report. @return 0, or -1 (said). */
static int paths_report(struct paths_cmd *c, const struct cli_result *res)
{
	struct ipcperf_session_stats st = { .sz = sizeof(st) };
	struct ipcperf_paths_stats ps = { .sz = sizeof(ps) };
	struct paths_host host = { .ci.sz = sizeof(host.ci) };
	struct cli_summary sum;
	int err;

	ipcperf_session__capture_info(res->session, &host.ci);
	/* a capture's times on the wall clock of its recording, not on this one's now */
	if (c->o->t.input && host.ci.has_clock)
		c->real_minus_mono = (int64_t)(host.ci.real_start_ns - host.ci.mono_start_ns);

	if (ipcperf_session__stats(res->session, &st) < 0) {
		cli_err("cannot read the session's statistics");
		return -1;
	}
	cli_summary_of(&sum, &st, cli_cmd_status(res));
	if ((err = ipcperf_paths__flush(c->pa)) < 0 || (err = ipcperf_paths__stats(c->pa, &ps)) < 0) {
		cli_err("cannot collect the request paths: %s", strerror(-err));
		return -1;
	}
	if (pathsout_failed(c->po)) {
		cli_err("cannot collect the request paths: %s", strerror(ENOMEM));
		return -1;
	}
	if (c->o->json)
		pathsout_json(c->out.f, c->po, &ps, &sum, c->o->requests, &host, 1);
	else
		pathsout_text(c->out.f, c->po, c->what, &ps, &sum);
	say_losses(c, &st);
	return paths_traces(c);
}

/* What cli_finish() frees of a run of paths: the paths before the flows they tap. */
static void paths_free(void *ctx)
{
	struct paths_cmd *c = ctx;

	ipcperf_paths__delete(c->pa);
	pathsout_delete(c->po);
	ipcperf_flows__delete(c->fl);
	ipcperf_stats__delete(c->st);
}

static int paths_run(const void *opts)
{
	const struct paths_opts *o = opts;
	struct paths_cmd c = { .o = o };
	struct cli_result res = { .end = CLI_END_NOT_RUN };
	/* The default events, and the waits of event loops (their turns). */
	struct cli_run run = { .setup = paths_setup, .ctx = &c, .progress = "ipcperf paths",
			       .status = !o->quiet && isatty(STDERR_FILENO),
			       .live = o->quiet ? NULL : "ipcperf paths",
			       .events = IPCPERF_EV_DEFAULT | IPCPERF_EV_WAITS };
	bool failed = false;

	if (o->inputs.n > 1)
		return paths_join_run(o);
	cli_describe_targets(&o->t, c.what, sizeof(c.what));
	cli_setup_print(o->verbose);
	if (o->requests && !o->json) {
		cli_err("--requests goes with --json: add -j");
		return EXIT_USAGE;
	}
	if (paths_open(&c) == 0) {
		cli_run(&o->t, &run, &res);
		if (res.session)
			failed = paths_report(&c, &res) < 0;
	}
	failed |= cli_out_close_all(&c.out, &c.otlp, &c.perfetto, NULL) < 0;
	return cli_finish(&res, failed, paths_free, &c);
}

/* The paths view of a capture: ipcperf paths -i on it. */
int paths_replay(const struct report_opts *o)
{
	struct paths_opts po = {
		.t = { .input = o->input, .output = o->output },
		.inputs = o->inputs,
		.json = o->json,
		.requests = o->requests,
		.quiet = true,
		.verbose = o->verbose,
	};

	return paths_run(&po);
}

const struct cli_command cli_cmd_paths = {
	.id = CMD_PATHS,
	.name = "paths",
	.summary = "each request from process to process: where its time goes",
	.usage =
		"usage: ipcperf paths [OPTIONS] {-p PID | -t TID | -a | -- CMD [ARGS] | -i FILE}\n\n"
		"Follow each request through the targets: on a unix or TCP stream socket a\n"
		"request is the bytes one way and its response the bytes back (turn-taking\n"
		"delimits them, matched byte by byte); a process holds a request from the read\n"
		"that took its first byte to the write that completed its response, and the\n"
		"requests it makes meanwhile, in the same thread (in the same turn of its\n"
		"epoll, poll or select loop), are the next hops. Requests are gathered by\n"
		"shape (client -> proxy -> backend): the count, the end-to-end p50, p99 and\n"
		"max, and per hop the request's time in the channel, the process's own time\n"
		"(its span less its calls) and the response's time in the channel. A request\n"
		"that no rule explains is counted with its reason, never guessed.\n\n"
		"Options:\n",
	.epilog =
		"\n"
		"Exit status: 0 done, 1 runtime error, 2 usage error; with -- CMD, the command's\n"
		"own status (its signal is re-raised), or 1 if it succeeded but the report could\n"
		"not be written.\n",
	.check = paths_check,
	.run = paths_run,
};
