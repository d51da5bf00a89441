/* ipcperf trace prints one line per completed syscall, in the style of strace. */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmds.h"
#include "output.h"
#include "traceout.h"

/* What prints a call once its fds are known, as the stats settle them. */
struct trace_ctx {
	struct traceout out;
	const struct tracesel *sel;
	struct ipcperf_stats *st;	/* the accounting that settles the calls */
};

/* What cli_finish() frees of a trace: the accounting, then the lines it fed. */
static void trace_free(void *ctx)
{
	struct trace_ctx *c = ctx;

	ipcperf_stats__delete(c->st);
	traceout_fini(&c->out);
}

static void on_call(void *ctx, const struct ipcperf_syscall *ev, const struct ipcperf_call_fds *fds)
{
	struct trace_ctx *c = ctx;

	if (tracesel_has(c->sel, ev->nr))
		traceout_call(&c->out, ev, fds);
}

static void on_entered(void *ctx, const struct ipcperf_syscall *ev,
		       const struct ipcperf_call_fds *fds)
{
	struct trace_ctx *c = ctx;

	if (tracesel_has(c->sel, ev->nr))
		traceout_entered(&c->out, ev, fds);
}

/* Print signals and exits whatever -e trace= chose, as strace does. */
static void on_signal(void *ctx, const struct ipcperf_signal *ev)
{
	traceout_signal(&((struct trace_ctx *)ctx)->out, ev);
}

static void on_exit_task(void *ctx, const struct ipcperf_task *ev)
{
	traceout_exit(&((struct trace_ctx *)ctx)->out, ev);
}

/* strace's default -s. */
static void trace_init(void *opts)
{
	((struct trace_opts *)opts)->strsize = 32;
}

static int trace_check(void *opts, int argc, char **argv, int first)
{
	return cli_target_finish(&((struct trace_opts *)opts)->t, argc, argv, first);
}

/* After the capture, report on stderr what was lost or left unpaired. */
static void say_losses(struct ipcperf_session *s)
{
	struct ipcperf_session_stats st = { .sz = sizeof(st) };

	if (ipcperf_session__stats(s, &st) < 0)
		return;
	if (st.lost)
		cli_err("warning: %" PRIu64 " events lost: the trace is incomplete; raise -m", st.lost);
	if (st.unpaired_enter || st.unpaired_exit)
		fprintf(stderr, "%s: %" PRIu64 " syscalls unfinished at the end, %" PRIu64
			" already under way at the start\n", cli_prog, st.unpaired_enter,
			st.unpaired_exit);
}

struct left_ctx {
	uint64_t start_ns;
};

/* Report a process that left what the user may see (ipcperf_proc_row.left_ns), and when. */
static int say_left(void *ctx, const struct ipcperf_proc_row *row)
{
	const struct left_ctx *l = ctx;

	if (row->left_ns)
		fprintf(stderr, "%s: pid %d (%s) left what uid %u may see at %.3f s: it executed a "
			"set-user-ID, set-group-ID or file-capability program; not traced from there on\n",
			cli_prog, (int)row->pid, row->comm ? row->comm : "?", (unsigned int)getuid(),
			(row->left_ns > l->start_ns ? row->left_ns - l->start_ns : 0) / 1e9);
	return 0;
}

/*
 * After the capture, report on stderr what was lost or left unpaired, and who
 * left the user's view.
 */
static void say_ends(struct ipcperf_session *s, struct ipcperf_stats *stats)
{
	struct ipcperf_session_stats st = { .sz = sizeof(st) };
	struct left_ctx l = { 0 };

	if (ipcperf_session__stats(s, &st) == 0)
		l.start_ns = st.start_ns;
	ipcperf_stats__for_each_proc(stats, say_left, &l);
	say_losses(s);
}

static int trace_run(const void *opts)
{
	const struct trace_opts *o = opts;
	struct cli_result res;
	struct ipcperf_stats *st;
	struct cli_out out;
	struct trace_ctx tc = { .sel = &o->sel };
	bool lost;

	cli_setup_print(o->verbose);
	if (!(st = ipcperf_stats__new(NULL))) {
		cli_err("cannot set up the accounting: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	if (cli_open_output(&out, &o->t) < 0) {
		ipcperf_stats__delete(st);
		return EXIT_RUNTIME;
	}
	if (traceout_init(&tc.out, out.f, o->strsize, o->times, o->stamps) < 0) {
		cli_err("out of memory");
		cli_out_close(&out);
		ipcperf_stats__delete(st);
		return EXIT_RUNTIME;
	}
	tc.st = st;
	ipcperf_stats__on_every_call(st, on_call, &tc);
	ipcperf_stats__on_every_call_entered(st, on_entered, &tc);
	ipcperf_stats__on_every_signal(st, on_signal, &tc);
	ipcperf_stats__on_every_exit(st, on_exit_task, &tc);
	{
		struct cli_run run = {
			.ctx = st,
			.setup = cli_setup_stats,	/* the accounting names each call's fds */
			.progress = "ipcperf trace",
			/* None when the trace lines themselves go to the terminal: they would mix. */
			.status = !o->quiet && isatty(STDERR_FILENO) && !isatty(out.fd),
			.live = o->quiet ? NULL : "ipcperf trace",
			/* Every syscall, as strace traces; -e chooses among them. */
			.events = IPCPERF_EV_TASK | IPCPERF_EV_ALL_SYSCALLS,
			/* Read the paths, strings and structs the arguments point to. */
			.call_memory = true,
		};

		cli_run(&o->t, &run, &res);
	}
	/* Print the calls still waiting for their fds, with what is known of them now. */
	ipcperf_stats__settle_calls(st);
	traceout_flush(&tc.out);
	if (res.session)
		say_ends(res.session, st);
	/* Finish the trace before waiting for a command that outlived it. */
	lost = cli_out_close(&out) < 0;
	return cli_finish(&res, lost, trace_free, &tc);
}

const struct cli_command cli_cmd_trace = {
	.id = CMD_TRACE,
	.name = "trace",
	.summary = "print each completed syscall of the targets, strace-style",
	.usage =
		"usage: ipcperf trace [OPTIONS] {-p PID | -t TID | -a | -- CMD [ARGS]}\n\n"
		"Print every syscall of the targets as strace -f -yy does: strings, paths\n"
		"and structs read in the kernel at the call, flags by name, each fd with\n"
		"what it is, \"[pid  N] \" first once more than one task is traced; the\n"
		"signals they take, how each task ends, a call another task's line\n"
		"interrupts in halves (<unfinished ...>, <... NAME resumed>):\n"
		"  openat(AT_FDCWD</tmp>, \"/etc/hosts\", O_RDONLY|O_CLOEXEC) = 3</etc/hosts>\n"
		"  read(3</etc/hosts>, \"127.0.0.1\\tlocalhost\\n\"..., 4096) = 174\n"
		"  [pid  812] write(1<pipe:[9031]>, \"hi\\n\", 3) = 3\n"
		"  [pid  812] +++ exited with 0 +++\n"
		"  --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=812, ...} ---\n\n"
		"Options:\n",
	.epilog = "",
	.init = trace_init,
	.check = trace_check,
	.run = trace_run,
};
