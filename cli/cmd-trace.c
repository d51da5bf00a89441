/* ipcperf trace: one line per completed syscall, strace-style. */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmds.h"
#include "output.h"

static void on_syscall(void *ctx, const struct ipcperf_syscall *ev)
{
	FILE *out = ctx;
	uint64_t ns = ev->end_ns - ev->start_ns;

	fprintf(out, "%d/%d %s(", (int)ev->pid, (int)ev->tid, ev->name);
	if (!ev->name[0] || ev->cls == IPCPERF_SC_OTHER) {
		/* A call we know nothing of: its raw arguments. */
		for (unsigned int i = 0; i < ev->nr_args && i < 3; i++)
			fprintf(out, "%s0x%" PRIx64, i ? ", " : "", ev->args[i]);
		if (ev->nr_args > 3)
			fprintf(out, ", ...");
	} else if (ev->fd >= 0) {
		fprintf(out, "%d", ev->fd);
		if (ev->cls == IPCPERF_SC_READ || ev->cls == IPCPERF_SC_WRITE) {
			if (ev->nr_args > 2)
				fprintf(out, ", %" PRIu64, ev->count);
		}
	}
	if (ev->ret < 0 && ev->ret >= -4095) {
		const char *name = strerrorname_np((int)-ev->ret);

		if (name)
			fprintf(out, ") = -1 %s", name);
		else
			fprintf(out, ") = -1 E%d", (int)-ev->ret);
	} else {
		fprintf(out, ") = %" PRId64, ev->ret);
	}
	if (ev->started_before_capture)
		fputs(" <entered before the capture>\n", out);	/* its duration is unknown */
	else
		fprintf(out, " <%" PRIu64 ".%06" PRIu64 ">\n", ns / 1000000000, ns / 1000 % 1000000);
}

enum cli_parsed trace_parse(int argc, char **argv, struct trace_opts *o)
{
	*o = (struct trace_opts){ 0 };
	return cli_options_parse_capture(CMD_TRACE, argc, argv, o, &o->t);
}

/* After the capture: what was lost or left unpaired, on stderr. */
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

int trace_run(const struct trace_opts *o)
{
	struct cli_result res;
	struct cli_out out;
	bool lost;

	cli_setup_print(o->verbose);
	if (cli_open_output(&out, &o->t) < 0)
		return EXIT_RUNTIME;
	{
		IPCPERF_OPTS(ipcperf_handlers, h, .ctx = out.f, .syscall = on_syscall);
		struct cli_run run = {
			.handlers = &h,
			.progress = "ipcperf trace",
			.events = IPCPERF_EV_TASK | (o->all_syscalls ? IPCPERF_EV_ALL_SYSCALLS :
							   IPCPERF_EV_IO | IPCPERF_EV_FDS),
		};

		/* Not when the trace lines themselves go to the terminal: they would mix. */
		cli_status_enable(!o->quiet && isatty(STDERR_FILENO) && !isatty(out.fd));
		cli_run(&o->t, &run, &res);
		cli_status_clear();
		cli_status_enable(false);
	}
	if (res.session)
		say_losses(res.session);
	/* The trace is complete before a command that outlived it is waited for. */
	lost = cli_out_close(&out) < 0;
	cli_wait_command(&res);
	ipcperf_session__delete(res.session);
	return cli_exit(&res, lost);
}

static int trace_main(int argc, char **argv)
{
	struct trace_opts o;
	enum cli_parsed p = trace_parse(argc, argv, &o);
	int code = p == CLI_PARSED_RUN ? trace_run(&o) : cli_parsed_exit(p);

	cli_target_free(&o.t);
	return code;
}

const struct cli_command cli_cmd_trace = {
	.name = "trace",
	.summary = "print each completed syscall of the targets, strace-style",
	.usage = "usage: ipcperf trace [OPTIONS] {-p PID | -t TID | -a | -- CMD [ARGS]}\n\n"
		 "Print each completed read/write/send/recv and fd syscall of the targets:\n"
		 "  PID/TID NAME(FD, COUNT) = RET <SECONDS>\n\n"
		 "Options:\n",
	.epilog = "",
	.main = trace_main,
};
