/* ipcperf flows --dot: the flow graph (flowout-dot.c), from a snapshot of flowout.h. */
#ifndef IPCPERF_CLI_FLOWOUT_DOT_H
#define IPCPERF_CLI_FLOWOUT_DOT_H
#include "flowout.h"

/*
 * The Graphviz digraph: processes as nodes (a bottleneck filled red and
 * saying so), one edge per (writer, reader) of each flow labelled with the
 * object, bytes, MB/s over @duration_ns, wire p99, the blocked times of
 * each side and the verdict; backpressure edges red and bold,
 * consumer-starved edges blue and dashed, balanced grey; a small legend.
 * A side nobody traced is drawn as a "not traced" node.
 */
void flowout_dot(FILE *f, const struct flowout *fo, uint64_t duration_ns);

#endif
