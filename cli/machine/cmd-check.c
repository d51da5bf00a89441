/*
 * ipcperf check: an environment doctor. Each line is "OK  ..." or
 * "PROBLEM ... — fix: COMMAND", one per item of the library's machine check
 * (ipcperf_machine_check(), lib/machine/check.c); the exit status says whether
 * tracing can work, judged by its test capture of /bin/true.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmds.h"
#include "util.h"


/* One line per item: "OK      what" or "PROBLEM what — fix: how"; each out at once. */
static int print_item(void *ctx, const struct ipcperf_check_item *it)
{
	FILE *f = ctx;

	if (it->status == IPCPERF_CHECK_OK)
		fprintf(f, "OK      %s\n", it->detail);
	else
		fprintf(f, "PROBLEM %s \xe2\x80\x94 fix: %s\n", it->detail, it->fix ? it->fix : "");
	fflush(f);
	return 0;
}

/* The check takes no arguments. */
static int check_args(void *opts, int argc, char **argv, int first)
{
	if (first < argc) {
		cli_err("check takes no arguments ('%s')", argv[first]);
		return -1;
	}
	return 0;
}

static int check_run(const void *opts)
{
	const struct check_opts *o = opts;
	IPCPERF_OPTS(ipcperf_check_opts, co, .ring_pages = o->ring_pages);
	struct cli_out out;
	int works;

	cli_setup_print(o->verbose);
	if (!o->verbose)
		ipcperf_set_print(NULL);	/* the lines below explain; -v shows the library too */
	if (cli_out_open(&out, NULL, "the report") < 0)
		return EXIT_RUNTIME;
	works = ipcperf_machine_check(&co, print_item, out.f);
	if (works < 0)
		cli_err("cannot check this machine: %s", strerror(-works));
	if (cli_out_close(&out) < 0)
		return EXIT_RUNTIME;	/* said, with the errno */
	return works > 0 ? EXIT_OK : EXIT_RUNTIME;
}

const struct cli_command cli_cmd_check = {
	.id = CMD_CHECK,
	.name = "check",
	.summary = "check this machine and user for tracing: each problem with its fix",
	.usage =
		"usage: ipcperf check [OPTIONS]\n\n"
		"Check that this machine and this user can trace, one line per check:\n"
		"  OK      what was found\n"
		"  PROBLEM what is wrong \xe2\x80\x94 fix: the command that fixes it\n"
		"It checks tracefs (mounted or mountable, readable), kernel.perf_event_paranoid\n"
		"against root and CAP_PERFMON, the mlock limit for the ring size (-m), the\n"
		"tracepoints and counters (a hardware PMU), where fd identities come from (bpf:\n"
		"the kernel's records at each call, exact; proc: /proc after the call), the\n"
		"libperf version, and ends with a test capture of /bin/true.\n\n"
		"Options:\n",
	.epilog =
		"\n"
		"Exit status: 0 tracing works here (PROBLEM lines may still limit what it\n"
		"shows, e.g. no hardware counters), 1 tracing cannot work here, 2 usage error.\n",
	.check = check_args,
	.run = check_run,
};
