/* ipcperf paths -i A -i B ...: the captures of several hosts joined (joinrun.c). */
#ifndef IPCPERF_CLI_JOINRUN_H
#define IPCPERF_CLI_JOINRUN_H
#include "cmds.h"
#include "output.h"
#include "pathsout.h"

/* Run paths over o->inputs (two or more captures). @return the exit code. */
int paths_join_run(const struct paths_opts *o);

/*
 * The text's last lines: the hosts of captures @inputs (@n), each one's
 * clock against the first's, and the TCP connections between them.
 */
void paths_text_hosts(FILE *f, const struct paths_host *hosts, const char *const *inputs,
		      size_t n, const struct ipcperf_paths_stats *ps);

/*
 * The summary of the captures joined, sessions @s (@n): the first's
 * duration, every one's losses, records and unpaired calls.
 */
void paths_join_summary(struct ipcperf_session *const *s, size_t n, struct cli_summary *sum);

/* The captures joined, read by both passes, for another view of them. */
struct paths_join_view {
	size_t n;
	const char *const *inputs;		/* the captures' files */
	const struct paths_host *hosts;		/* their hosts, clocks and offsets */
	struct ipcperf_session *s[CLI_INPUTS_MAX];
	struct ipcperf_stats *st[CLI_INPUTS_MAX];
	struct ipcperf_flows *fl[CLI_INPUTS_MAX];
	struct ipcperf_paths *pa;		/* flushed: its joined flows are all there */
	const struct ipcperf_paths_stats *ps;
};
typedef int (*paths_join_fn)(void *ctx, const struct paths_join_view *v);
/*
 * Read o->inputs (two or more captures) joined, as paths_join_run() does,
 * and hand @fn what the second pass read (it lives for the call); the
 * clocks' errors are said as paths says them. @return @fn's, or -1 (said).
 */
int paths_join_view(const struct paths_opts *o, paths_join_fn fn, void *ctx);

#endif
