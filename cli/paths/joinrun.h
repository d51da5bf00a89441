/* ipcperf paths -i A -i B ...: the captures of several hosts joined (joinrun.c). */
#ifndef IPCPERF_CLI_JOINRUN_H
#define IPCPERF_CLI_JOINRUN_H
#include "cmds.h"
#include "output.h"
#include "pathsout.h"

/* Run paths over o->inputs (two or more captures). @return the exit code. */
int paths_join_run(const struct paths_opts *o);

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
