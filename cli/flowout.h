/*
 * Renderers of IPC flows, shared by `ipcperf flows` and `ipcperf stat`: the
 * JSON "flows" array of doc/json.md (flowout-json.c), the text table
 * (flowout.c). Those of flows only, its graph and timeline, are in flows/.
 */
#ifndef IPCPERF_CLI_FLOWOUT_H
#define IPCPERF_CLI_FLOWOUT_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <ipcperf/ipcperf.h>
#include "flowgroup.h"
#include "output.h"

/*
 * Write the key "flows" and its array (schema 1, doc/json.md) into the JSON
 * object @j has open. Streams straight from @fl.
 * @return 0, or -errno when the flows could not be read (the array is then
 *   closed with what was written).
 */
int flowout_json(struct json *j, struct ipcperf_flows *fl);

struct flowout;

/*
 * The objects of the "intervals" array of ipcperf flows -I --json, written
 * apart while the capture runs (a json_init_inside() writer, 2 deep).
 */
struct flowout_intervals {
	const char *text;
	size_t len;
};

/*
 * The JSON document of ipcperf flows (schema 1, doc/json.md): the summary,
 * the processes of @st, the flows of @fl (each with the process at its
 * untraced side, from @fo), @fo's flow groups ("flow_groups"), and with
 * @iv (NULL: none) the "intervals".
 * @return 0, or -errno when the processes or flows could not be read.
 */
int flowout_json_doc(FILE *f, const struct cli_summary *sum, struct ipcperf_stats *st,
		     struct ipcperf_flows *fl, const struct flowout *fo,
		     const struct flowout_intervals *iv);

/* One flow, copied out of ipcperf_flows__for_each() (whose data lives only for the call). */
struct flowout_flow {
	struct flowcopy c;	/* c.f's endpoint points at endpoint, this struct's copy */
	char *endpoint;
	size_t rank;		/* the order ipcperf_flows__for_each() gave it in */
};

struct flowout_proc {
	pid_t pid;
	char *comm;
};

/* A snapshot of the flows and of the names of the processes, for the table and the graph. */
struct flowout {
	struct flowout_flow *flows;	/* along the chains (stage), then by first activity */
	size_t nr_flows, cap_flows;
	struct ipcperf_bottleneck *necks;	/* by depth along the chains, then pid */
	size_t nr_necks, cap_necks;
	struct flowout_proc *procs;	/* ordered by pid */
	size_t nr_procs, cap_procs;
	struct flowpeers peers;		/* the traced ends' peers and endpoints */
	struct flowgroups groups;	/* the flows grouped (flowgroup.h) */
	bool per_flow;			/* the text table: a row per flow, not per group */
};

/* Fill @fo from @fl and @st (comms); free with flowout_free(). @return 0 or -errno. */
int flowout_load(struct flowout *fo, struct ipcperf_flows *fl, struct ipcperf_stats *st);
/* Whether a snapshot takes flow @f (flowout_load_kept()). */
typedef bool (*flowout_keep_fn)(void *ctx, const struct ipcperf_flow *f);
/* flowout_load(), of the flows @keep takes only (the bottlenecks: of all). @return 0 or -errno. */
int flowout_load_kept(struct flowout *fo, struct ipcperf_flows *fl, struct ipcperf_stats *st,
		      flowout_keep_fn keep, void *ctx);
/*
 * Only the processes, the peers and the groups of a snapshot (no flow is
 * copied: what the JSON needs beside the flows it streams). @return 0 or -errno.
 */
int flowout_load_groups(struct flowout *fo, struct ipcperf_flows *fl, struct ipcperf_stats *st);
/*
 * The flows @fl has had since its last reset (ipcperf_flows__reset()),
 * with their groups, and no bottlenecks: while the session runs, settling
 * nothing (a call whose fd is not settled yet goes to the next interval);
 * with @last (after the stop), all. @return 0 or -errno.
 */
int flowout_load_interval(struct flowout *fo, struct ipcperf_flows *fl, struct ipcperf_stats *st,
			  bool last);
void flowout_free(struct flowout *fo);
/* Add the process of @row (its pid and comm) to @fo. @return 0 or -ENOMEM. */
int flowout_add_proc(struct flowout *fo, const struct ipcperf_proc_row *row);
/* The comm of @pid in @fo, or "?" when it was never seen. */
const char *flowout_comm(const struct flowout *fo, pid_t pid);

/*
 * The text table: one row per group of flows (writers -> readers, "N conns"
 * and the endpoint, or the object of a group of one, kind, bytes, MB/s,
 * the merged wire p50/p99, ...), or with @fo->per_flow one row per flow
 * (writers -> readers, object, kind, bytes,
 * MB/s over @duration_ns, wire p50/p99, max queued / capacity, blocked
 * times, verdict), then a line with the verdict rule. Prints "(no flows ...)"
 * when there is none.
 */
void flowout_text(FILE *f, const struct flowout *fo, uint64_t duration_ns);
/*
 * One line per bottleneck, "bottleneck: gzip[12]: head[11] waits 1.20s to
 * write into it, wc[13] waits 1.18s to read from it", or, when flows moved
 * data and none is a bottleneck, "bottleneck: none (no flow is held back or
 * starved)" or, when some are, why none is: each process they wait on
 * waits on another flow (a client and its server, each waiting on the other).
 */
void flowout_bottlenecks(FILE *f, const struct flowout *fo);
/* One interval of ipcperf flows -I: its number (from 1), its end since the start, its length, its losses. */
struct flowout_span {
	unsigned int n;
	uint64_t time_ns, duration_ns, lost;
};
/*
 * "--- 0.600 s: interval of 0.300 s ---", then the table of @fo (loaded
 * with flowout_load_interval()) as flowout_text() makes it, without the
 * bottlenecks and notes, or a line saying no flow had a call in it.
 */
void flowout_interval_text(FILE *f, const struct flowout *fo, const struct flowout_span *sp);
/*
 * The interval as an object of the "intervals" array (doc/json.md):
 * "interval", "time_ns", "duration_ns", "lost_events", its "flows" and
 * "flow_groups".
 */
void flowout_interval_json(struct json *j, const struct flowout *fo, const struct flowout_span *sp);
/*
 * The flows of a snapshot into the JSON object @j has open: "flows",
 * "folded_flows", "bottlenecks" and "flow_groups", as flows --json has them.
 */
void flowout_snapshot_json(struct json *j, const struct flowout *fo);
/* A process as JSON ({ pid, comm }) into the struct json @ctx: ipcperf_stats__for_each_proc()'s callback. */
int flowout_json_proc(void *ctx, const struct ipcperf_proc_row *row);
/* The text report of ipcperf flows: a heading with the targets (@what), the table, the losses. */
void flowout_text_report(FILE *f, const char *what, const struct flowout *fo,
			 const struct cli_summary *sum);

#endif
