/* ipcperf flows --trace-out: the timeline of the flows (flowout-trace.c). */
#ifndef IPCPERF_CLI_FLOWOUT_TRACE_H
#define IPCPERF_CLI_FLOWOUT_TRACE_H
#include "flowout.h"

/*
 * Chrome Trace Event Format timeline (Perfetto UI, chrome://tracing), written
 * to its file as events arrive: a track per thread with its read/write
 * syscall slices, a flow arrow from each write to each read that took bytes
 * of it, and a counter of queued bytes per channel. Memory: a little per
 * thread, per open fd and per channel, never per event.
 */
struct flowout_trace;

/* @f is written, not closed. NULL with errno. */
struct flowout_trace *flowout_trace_new(FILE *f);
/*
 * Register on @s and @fl (call after ipcperf_stats__attach() and
 * ipcperf_flows__attach(): the slices need what the stats know of each fd).
 * @return 0 or -errno.
 */
int flowout_trace_attach(struct flowout_trace *t, struct ipcperf_session *s,
			 struct ipcperf_flows *fl, struct ipcperf_stats *st);
/*
 * Write the process and thread names and close the document.
 * @return 0, or -EIO when the file could not be written.
 */
int flowout_trace_finish(struct flowout_trace *t);
/* Accepts NULL. Does not close the file. */
void flowout_trace_delete(struct flowout_trace *t);

#endif
