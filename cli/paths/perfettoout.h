/*
 * Request paths as a timeline in the Chrome trace-event JSON that
 * ui.perfetto.dev and chrome://tracing open: a track per thread, a slice per
 * span, an arrow for each message on a channel (request and response).
 */
#ifndef IPCPERF_CLI_PERFETTOOUT_H
#define IPCPERF_CLI_PERFETTOOUT_H
#include <stdio.h>
#include "pathsout.h"

/*
 * The timeline of the requests @po kept, into @f. Spans of one thread
 * that overlap without nesting (an event loop serving two requests at
 * once) go on more tracks of that thread. @return 0, or -1 (out of memory).
 */
int perfettoout_write(FILE *f, const struct pathsout *po);

#endif /* IPCPERF_CLI_PERFETTOOUT_H */
