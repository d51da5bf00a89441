/*
 * ipcperf stat shows the targets' per-fd throughput and latency, their
 * scheduling and their counters. This file holds its options and its run;
 * statsnap.c makes the snapshots, and statout.c writes them as the table,
 * JSON or CSV.
 */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "cmds.h"
#include "httpd.h"
#include "intervalout.h"
#include "metrics.h"
#include "output.h"
#include "statout.h"
#include "statsnap.h"
#include "util.h"

/* One run of stat: its options, its accounting and its output. */
struct stat_cmd {
	const struct stat_opts *o;
	struct statout out;
	struct intervalout iout;	/* -I in text: the compact lines */
	struct cli_out output;
	char what[CLI_WHAT_LEN];	/* the targets, for the text header */

	struct ipcperf_stats *total;
	struct ipcperf_interval *iv;	/* -I: the deltas */
	struct ipcperf_flows *flows;
	struct cnt_target *cnt_targets;
	size_t nr_cnt_targets;
	struct cnt_set all_cur, all_delta;	/* pid 0: all targets */
	struct thread_names names;	/* --per-thread */

	/* For --openmetrics FILE and --listen: the running totals as metrics (cli/metrics.h). */
	int om_err;			/* the last error writing om_path, said once */
	struct httpd *httpd;
	struct ipcperf_session *sess;	/* for the counters and losses at a scrape */
	bool run_over;			/* stopped: the flows settle every call */
	/* What this process's children had used before the command, which exec keeps. */
	struct rusage ru0;
};

static int stat_run(const void *opts);

/*
 * With --no-counters, mark each counter of @set "not requested" and return
 * true; otherwise return false.
 */
static bool not_requested(const struct stat_cmd *c, struct cnt_set *set)
{
	if (!c->o->no_counters)
		return false;
	set->valid = true;
	for (int i = 0; i < IPCPERF_CNT__MAX; i++)
		set->v[i] = (struct ipcperf_counter_value){ .status = IPCPERF_CNT_NOT_REQUESTED };
	return true;
}

/* Read the counters of target @pid (all targets when 0) into @set. */
static void read_cnt(const struct stat_cmd *c, struct ipcperf_session *s, pid_t pid,
		     struct cnt_set *set)
{
	if (!not_requested(c, set))
		cnt_read(s, pid, set);
}

/* Read the counters of target @pid (all targets when 0) over the interval just closed into @set. */
static void interval_cnt(const struct stat_cmd *c, pid_t pid, struct cnt_set *set)
{
	if (!not_requested(c, set))
		set->valid = ipcperf_interval__counters(c->iv, pid, set->v) == 0;
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000ull + (uint64_t)tv->tv_usec * 1000ull;
}

/*
 * Store the command's user and system time once it was reaped, as perf stat
 * reports its workload's: what this process's children used (the command,
 * and its orphans that this process reaped as their subreaper), less what
 * they had used when stat began (@c->ru0), since a shell that execs ipcperf
 * passes on its own children's times.
 */
static void command_times(const struct stat_cmd *c, const struct cli_result *res, struct snap *sn)
{
	struct rusage ru;

	if (!cli_cmd_status(res) || getrusage(RUSAGE_CHILDREN, &ru) < 0)
		return;
	sn->has_times = true;
	sn->user_ns = tv_ns(&ru.ru_utime) - tv_ns(&c->ru0.ru_utime);
	sn->sys_ns = tv_ns(&ru.ru_stime) - tv_ns(&c->ru0.ru_stime);
}

/* ------------------------------------------------------------------ metrics */

/*
 * Write the running totals as metrics in @fmt to @f, or atomically into the
 * file @path. c->total is never reset, so even with -I they are the totals
 * since the start. Counters and losses are read now. Returns 0 or -errno.
 */
static int stat_metrics(struct stat_cmd *c, FILE *f, const char *path, enum metrics_format fmt)
{
	struct ipcperf_session_stats st = { .sz = sizeof(st) };
	size_t n = c->nr_cnt_targets ? c->nr_cnt_targets : 1, k = 0;
	struct metrics_counters *mc = calloc(n, sizeof(*mc));
	struct cnt_set *sets = calloc(n, sizeof(*sets));
	struct metrics_src src = {
		.stats = c->total, .flows = c->flows, .final = c->run_over,
		.pid_label = c->o->om_pid, .object_label = c->o->metrics_per_fd,
	};
	int err;

	if (!mc || !sets) {
		free(mc);
		free(sets);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->nr_cnt_targets; i++) {
		read_cnt(c, c->sess, c->cnt_targets[i].pid, &sets[i]);
		if (sets[i].valid)
			mc[k++] = (struct metrics_counters){ .pid = c->cnt_targets[i].pid,
							     .comm = c->cnt_targets[i].comm,
							     .v = sets[i].v };
	}
	/*
	 * Without target processes of their own (-t, -a), write the sum over
	 * all targets, unlabelled.
	 */
	if (!c->nr_cnt_targets) {
		read_cnt(c, c->sess, 0, &sets[0]);
		if (sets[0].valid)
			mc[k++] = (struct metrics_counters){ .v = sets[0].v };
	}
	src.cnt = mc;
	src.nr_cnt = k;
	if (ipcperf_session__stats(c->sess, &st) == 0) {
		src.lost_events = st.lost;
		src.unpaired_syscalls = st.unpaired_enter + st.unpaired_exit;
	}
	err = path ? metrics_write_file(path, &src) : metrics_write(f, &src, fmt);
	free(mc);
	free(sets);
	return err;
}

static void say_om_error(const char *path, int err)
{
	if (err == -ELOOP)
		cli_err("refusing to write the metrics to %s: it is a symbolic link, which is "
			"never followed or replaced; give the path of a regular file", path);
	else if (err == -EINVAL)
		cli_err("refusing to write the metrics to %s: it is not a regular file", path);
	else
		cli_err("cannot write the metrics to %s: %s", path, strerror(-err));
}

/* Rewrite --openmetrics FILE. A failure is reported once, until a write succeeds again. */
static int stat_write_om(struct stat_cmd *c)
{
	int err;

	if (!c->o->om_path)
		return 0;
	err = stat_metrics(c, NULL, c->o->om_path, METRICS_TEXT);
	if (err && err != c->om_err)
		say_om_error(c->o->om_path, err);
	c->om_err = err;
	return err;
}

static int stat_http_body(void *ctx, FILE *f, enum metrics_format fmt)
{
	return stat_metrics(ctx, f, NULL, fmt);
}

static unsigned int stat_io_fds(void *ctx, struct pollfd *fds, unsigned int max)
{
	return httpd_pollfds(((struct stat_cmd *)ctx)->httpd, fds, max);
}

static void stat_io_ready(void *ctx, const struct pollfd *fds, unsigned int n)
{
	httpd_ready(((struct stat_cmd *)ctx)->httpd, fds, n);
}

/* ------------------------------------------------------------------ the run */

/* Print the deltas since the last interval (or the start) up to @end_ns, then start the next. */
static void emit_interval(struct stat_cmd *c, struct ipcperf_session *s, uint64_t end_ns)
{
	struct ipcperf_session_stats st = { .sz = sizeof(st) };
	struct ipcperf_interval_info in = { .sz = sizeof(in) };
	struct snap sn = { .is_interval = true };

	if (ipcperf_session__stats(s, &st) < 0 || ipcperf_interval__close(c->iv, end_ns, &in) < 0)
		return;
	sn.time_ns = in.time_ns;
	sn.duration_ns = in.end_ns - in.start_ns;
	sn.start_ns = st.start_ns;
	sn.lost = in.lost;
	sn.unpaired = in.unpaired;
	sn.records = in.records;
	sn.fd_identity = st.fd_identity;
	sn.syscall_records = st.syscall_records;
	sn.sched_records = st.sched_records;
	for (size_t i = 0; i < c->nr_cnt_targets; i++)
		interval_cnt(c, c->cnt_targets[i].pid, &c->cnt_targets[i].delta);
	interval_cnt(c, 0, &c->all_delta);
	sn.all = &c->all_delta;

	cli_status_clear();
	if (snap_take(&sn, ipcperf_interval__stats(c->iv), c->o, c->cnt_targets,
		      c->nr_cnt_targets, true) == 0) {
		if (c->out.fmt == FMT_TEXT && !c->o->interval_full)
			intervalout_print(&c->iout, &sn);
		else
			statout_print(&c->out, &sn);
	}
	snap_free(&sn);
	ipcperf_interval__next(c->iv);
}

static void stat_tick(void *ctx, struct ipcperf_session *s)
{
	emit_interval(ctx, s, cli_now_ns());
	stat_write_om(ctx);
}

/* For -I, make the intervals, attached after the totals and flows, with the targets' counters. */
static int stat_interval_new(struct stat_cmd *c, struct ipcperf_session *s)
{
	pid_t *pids = calloc(c->nr_cnt_targets + 1, sizeof(*pids));
	IPCPERF_OPTS(ipcperf_interval_opts, io, .per_thread = c->o->per_thread, .pids = pids,
		     .nr_pids = c->nr_cnt_targets, .fold_exited = stat_folds_exited(c->o),
		     .fold_conns = stat_folds_exited(c->o));

	for (size_t i = 0; pids && i < c->nr_cnt_targets; i++)
		pids[i] = c->cnt_targets[i].pid;
	int err;

	c->iv = pids ? ipcperf_interval__new(s, &io) : NULL;
	err = c->iv ? 0 : pids ? errno : ENOMEM;
	free(pids);
	if (err)
		cli_err("cannot set up the accounting: %s", strerror(err));
	return -err;
}

static int stat_setup(void *ctx, struct ipcperf_session *s)
{
	struct stat_cmd *c = ctx;
	pid_t child = ipcperf_session__child_pid(s);
	int err;

	c->sess = s;
	/* Attach the flows after the totals, since they take fd identities from them. */
	if ((err = ipcperf_stats__attach(c->total, s)) < 0 ||
	    (c->flows && (err = ipcperf_flows__attach(c->flows, s)) < 0)) {
		cli_err("cannot set up the accounting: %s", strerror(-err));
		return err;
	}
	/* The targets whose counters are read on their own: each -p process, and the command. */
	c->cnt_targets = calloc(c->o->t.pids.n + 1, sizeof(*c->cnt_targets));
	if (!c->cnt_targets)
		goto oom;
	for (size_t i = 0; i < c->o->t.pids.n; i++) {
		struct cnt_target *t = &c->cnt_targets[c->nr_cnt_targets++];

		t->pid = c->o->t.pids.v[i];
		/* Its name as read when the totals attached, or "" when there is none. */
		if (ipcperf_stats__proc_comm(c->total, t->pid, t->comm, sizeof(t->comm)) < 0)
			t->comm[0] = '\0';
	}
	if (child > 0) {
		const char *b = c->o->t.argv ? strrchr(c->o->t.argv[0], '/') : NULL;
		const char *name = c->o->t.argv ? c->o->t.argv[0] : "";	/* a report: from the capture */
		struct cnt_target *t = &c->cnt_targets[c->nr_cnt_targets++];

		t->pid = child;
		snprintf(t->comm, sizeof(t->comm), "%s", b ? b + 1 : name);
	}
	if (c->o->interval_ms && (err = stat_interval_new(c, s)) < 0)
		return err;
	/* A file that cannot be written fails the run now, before it starts, not at its end. */
	if (stat_write_om(c) < 0)
		return -EIO;
	return 0;
oom:
	cli_err("cannot set up the accounting: %s", strerror(ENOMEM));
	return -ENOMEM;
}

void stat_opts_init(struct stat_opts *o)
{
	*o = (struct stat_opts){ .sort = SORT_BYTES, .sc_sort = SC_SORT_TIME };
}

int stat_replay(const struct report_opts *o)
{
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

static void stat_init(void *opts)
{
	stat_opts_init(opts);
}

static int stat_check(void *opts, int argc, char **argv, int first)
{
	struct stat_opts *o = opts;

	/* Report the errors of the options first, then those of the targets. */
	if (cli_check_format(o->json, o->sep) < 0)
		return -1;
	if (o->linger_s && !o->listen.on) {
		cli_err("--listen-linger needs --listen");
		return -1;
	}
	if (o->no_counters && o->counter_mask) {
		cli_err("-e chooses counters and --no-counters opens none: give one of them");
		return -1;
	}
	return cli_target_finish(&o->t, argc, argv, first);
}

bool stat_folds_exited(const struct stat_opts *o)
{
	return o->interval_ms || o->om_path || o->listen.on;
}

/*
 * Open the accounting, the metrics listener and the output, before the
 * capture. Returns 0, or -1 after reporting the error.
 */
static int stat_open(struct stat_cmd *c)
{
	const struct stat_opts *o = c->o;
	IPCPERF_OPTS(ipcperf_stats_opts, so, .per_thread = o->per_thread,
		     .fold_conns = snap_rows_by_group(o) || stat_folds_exited(o),
		     .fold_exited = stat_folds_exited(o));

	c->total = ipcperf_stats__new(&so);
	if (c->total && o->flows)
		c->flows = ipcperf_flows__new(c->total);
	if (!c->total || (o->flows && !c->flows)) {
		cli_err("cannot set up the accounting: %s", strerror(errno));
		return -1;
	}
	if (o->listen.on) {
		/* Bind before the command starts, so that a port in use fails the run at once. */
		c->httpd = httpd_new(&o->listen.addr, o->listen.len, stat_http_body, c);
		if (!c->httpd)
			return -1;
		/* Print this even with -q: with port 0 it is the only place that names the port. */
		fprintf(stderr, "%s: serving metrics at %s\n", cli_prog, httpd_url(c->httpd));
	}
	if (cli_open_output(&c->output, &o->t) < 0)
		return -1;
	c->out = (struct statout){
		.f = c->output.f,
		.o = o,
		.fmt = o->json ? FMT_JSON : o->sep ? FMT_CSV : FMT_TEXT,
		.what = c->what,
		.names = &c->names,
	};
	c->iout = (struct intervalout){ .f = c->output.f };
	return 0;
}

/* Return the events a capture for @o needs: what the accounting needs, as the library says. */
static unsigned int stat_events(const struct stat_opts *o)
{
	IPCPERF_OPTS(ipcperf_stats_events_opts, eo, .every_syscall = o->syscalls,
		     .recording = o->t.record != NULL, .flows = o->flows,
		     .running_view = o->interval_ms || o->listen.on);
	int ev = ipcperf_stats__events(&eo);

	return ev > 0 ? (unsigned int)ev : 0;
}

/* Run the capture, with the live status line while it runs. */
static void stat_capture(struct stat_cmd *c, struct cli_result *res)
{
	const struct stat_opts *o = c->o;
	struct ipcperf_handlers names;
	struct cli_run run = {
		.handlers = o->per_thread ? &names : NULL,
		.events = stat_events(o),
		.counters = !o->no_counters,
		.counter_mask = o->no_counters ? 0 : o->counter_mask,
		.setup = stat_setup,
		.tick = o->interval_ms ? stat_tick : NULL,
		.ctx = c,
		.tick_ms = o->interval_ms,
		.progress = "ipcperf stat",
		.status = !o->quiet && isatty(STDERR_FILENO),
		.live = o->quiet ? NULL : "ipcperf stat",
		.io_fds = c->httpd ? stat_io_fds : NULL,
		.io_ready = stat_io_ready,
	};

	/* For --per-thread, keep the threads' names for the tables' headings. */
	thread_names_handlers(&c->names, &names);
	cli_run(&o->t, &run, res);
}

/* Report on stderr what was lost or left unpaired, and with -v what was read. */
static void say_losses(const struct stat_cmd *c, const struct ipcperf_session_stats *st)
{
	cli_warn_lost(&c->o->t, st, "the counts are lower bounds");
	if (st->unpaired_enter || st->unpaired_exit)
		cli_err("warning: %" PRIu64 " syscalls unpaired (%" PRIu64 " already under way at "
			"the start, %" PRIu64 " unfinished at the end): left out of the latencies",
			st->unpaired_enter + st->unpaired_exit, st->unpaired_exit, st->unpaired_enter);
	if (st->bpf_missed && st->sched_records == IPCPERF_SCHED_RECORDS_TOTALS)
		cli_err("warning: the kernel skipped %" PRIu64 " runs of ipcperf's BPF programs "
			"(a wakeup in an interrupt during another): wakeups may be short by as many",
			st->bpf_missed);
	if (c->o->verbose)
		fprintf(stderr, "%s: %" PRIu64 " records from %u rings, %" PRIu64 " syscalls, %u "
			"tracepoints missing in this kernel\n", cli_prog, st->records, st->rings,
			st->syscalls, st->skipped_events);
}

/* For --listen-linger, serve the final totals until a scrape has them or the time is up. */
static void stat_linger(struct stat_cmd *c)
{
	unsigned int secs = c->o->linger_s;

	if (!c->httpd || !secs)
		return;
	if (!c->o->quiet)
		fprintf(stderr, "%s: serving the final totals at %s until a scrape takes them (at "
			"most %u s)\n", cli_prog, httpd_url(c->httpd), secs);
	httpd_linger(c->httpd, secs * CLI_MS_PER_SEC);
}

/*
 * After the capture, print the last interval, then the totals. Returns 0,
 * or -1 after reporting the error.
 */
static int stat_report(struct stat_cmd *c, const struct cli_result *res)
{
	struct ipcperf_session *s = res->session;
	struct ipcperf_session_stats st = { .sz = sizeof(st) };
	struct snap sn = { 0 };
	int ret = 0;

	if (ipcperf_session__stats(s, &st) < 0) {
		cli_err("cannot read the session's statistics");
		return -1;
	}
	if (c->o->interval_ms)	/* the last, partial interval: the deltas then add up to the totals */
		emit_interval(c, s, st.stop_ns ? st.stop_ns : cli_now_ns());

	for (size_t i = 0; i < c->nr_cnt_targets; i++)
		read_cnt(c, s, c->cnt_targets[i].pid, &c->cnt_targets[i].cur);
	read_cnt(c, s, 0, &c->all_cur);
	sn.all = &c->all_cur;
	sn.duration_ns = st.stop_ns > st.start_ns ? st.stop_ns - st.start_ns : 0;
	sn.time_ns = sn.duration_ns;
	sn.start_ns = st.start_ns;
	sn.lost = st.lost;
	sn.unpaired = st.unpaired_enter + st.unpaired_exit;
	sn.records = st.records;
	sn.fd_identity = st.fd_identity;
	sn.syscall_records = st.syscall_records;
	sn.sched_records = st.sched_records;
	sn.flows = c->flows;
	sn.flow_stats = c->total;
	sn.exit_status = cli_cmd_status(res);
	command_times(c, res, &sn);
	if (snap_take(&sn, c->total, c->o, c->cnt_targets, c->nr_cnt_targets, false) == 0) {
		statout_print(&c->out, &sn);
		c->run_over = true;
		if (stat_write_om(c) < 0)
			ret = -1;	/* said */
		say_losses(c, &st);
		stat_linger(c);
	} else {
		ret = -1;
	}
	snap_free(&sn);
	return ret;
}

/*
 * What cli_finish() frees of a run of stat: the library's objects, the
 * flows first, since they use the totals; then stat's own tables.
 */
static void stat_free(void *ctx)
{
	struct stat_cmd *c = ctx;

	ipcperf_flows__delete(c->flows);
	ipcperf_interval__delete(c->iv);
	ipcperf_stats__delete(c->total);
	thread_names_free(&c->names);
	free(c->cnt_targets);
}

static int stat_run(const void *opts)
{
	const struct stat_opts *o = opts;
	struct stat_cmd c = { .o = o };
	struct cli_result res = { .end = CLI_END_NOT_RUN };
	bool failed = false;

	getrusage(RUSAGE_CHILDREN, &c.ru0);	/* on failure, zeros: nothing to take off */

	cli_set_wide(o->wide);
	cli_describe_targets(&o->t, c.what, sizeof(c.what));
	cli_setup_print(o->verbose);
	if (stat_open(&c) == 0) {
		stat_capture(&c, &res);
		if (res.session)
			failed = stat_report(&c, &res) < 0;
	}
	/* Finish the report before waiting for a command that outlived the capture. */
	failed |= cli_out_close(&c.output) < 0;
	httpd_delete(c.httpd);
	return cli_finish(&res, failed, stat_free, &c);
}

const struct cli_command cli_cmd_stat = {
	.id = CMD_STAT,
	.name = "stat",
	.summary = "per-fd throughput and latency, scheduling and counters of the targets",
	.usage =
		"usage: ipcperf stat [OPTIONS] {-p PID | -t TID | -a | -- CMD [ARGS]}\n\n"
		"Count what the targets do, from the kernel side: per (process, fd, object) the\n"
		"read and write calls, bytes actually moved, errors, MB/s and latency (avg, p99);\n"
		"context switches, wakeups and cpu migrations per process; and the counters\n"
		"task-clock, page-faults, context-switches, cpu-migrations, cycles, instructions,\n"
		"cache-references and cache-misses (<not supported> where the machine lacks them,\n"
		"<not counted> when they never ran).\n\n"
		"Counters are kept per target process and include its children: with -- CMD they\n"
		"appear once, under the command's process; with -p under each PID; with -t and -a\n"
		"in one section for all targets (the whole system with -a).\n\n"
		"Options:\n",
	.epilog =
		"\n"
		"The last line of the text output gives the lost events and unpaired syscalls;\n"
		"when either is not zero a warning on stderr says so (with lost events the counts\n"
		"are lower bounds: raise -m). While it runs, a status line on stderr shows the\n"
		"elapsed time and events when stderr is a terminal (not with -q).\n\n"
		"Exit status: 0 done, 1 runtime error (e.g. no such process, permission denied,\n"
		"output not written), 2 usage error; with -- CMD, the command's own status (its\n"
		"signal is re-raised), or 1 if it succeeded but the output could not be written.\n",
	.init = stat_init,
	.check = stat_check,
	.run = stat_run,
};
