/* IPC flows in JSON (doc/json.md): the "flows" array, and the document of ipcperf flows. */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "flowout.h"
#include "util.h"

/* ------------------------------------------------------------------ JSON */

static void json_pids(struct json *j, const char *key, const pid_t *v, size_t n)
{
	json_array_begin(j, key);
	for (size_t i = 0; i < n; i++)
		json_i64(j, NULL, v[i]);
	json_array_end(j);
}

/* What the verdict weighed beyond the blocked times: the paces, the queue, the margin. */
static void json_judged(struct json *j, const struct ipcperf_flow *f)
{
	bool marginal = f->marginal != IPCPERF_VERDICT_BALANCED;

	json_u64(j, "write_pace_ns", f->write_pace_ns);
	json_u64(j, "read_pace_ns", f->read_pace_ns);
	json_fixed(j, "queue_residence", f->queue_residence, 2);
	json_bool(j, "verdict_by_queue", f->by_queue);
	if (marginal) {
		json_fixed(j, "verdict_margin", f->margin, 2);
		json_str(j, "verdict_marginal", ipcperf_verdict_name(f->marginal));
	} else {
		json_null(j, "verdict_margin");
		json_null(j, "verdict_marginal");
	}
}

/* What a flow's JSON is written with: the document, and the snapshot that names untraced sides. */
struct json_ctx {
	struct json *j;
	const struct flowout *fo;	/* NULL: no peers */
	uint64_t folded;		/* the flows the folds walked hold */
};

/* "peer_pid", "peer_comm": the process at the side of @f nobody traced, or nulls. */
static void json_untraced_peer(struct json *j, pid_t pid, const char *comm, bool one_sided)
{
	if (one_sided && pid) {
		json_i64(j, "peer_pid", pid);
		json_str(j, "peer_comm", comm);
	} else {
		json_null(j, "peer_pid");
		json_null(j, "peer_comm");
	}
}

static int json_flow_peer(void *ctx, const struct ipcperf_flow *f);

static int json_flow(void *ctx, const struct ipcperf_flow *f)
{
	struct json_ctx jc = { .j = ctx };

	return json_flow_peer(&jc, f);
}

/* "wire_ns": a flow's or a group's wire times. */
static void json_wire(struct json *j, const struct ipcperf_flow *f)
{
	json_spread(j, "wire_ns", f->wire_ns.min, f->wire_ns.p50, f->wire_ns.p99, f->wire_ns.max);
}

/*
 * The runs of fields a flow and a group of flows both have, each in the
 * order both write it: the calls, the blocked times, the refused calls and
 * their waits, the span.
 */
static void json_calls(struct json *j, const struct ipcperf_flow *f)
{
	const struct json_u64_row rows[] = {
		{ "bytes_written", f->bytes_written }, { "unmatched_bytes", f->unmatched_bytes },
		{ "writes", f->writes }, { "reads", f->reads }, { "matches", f->matches },
	};

	json_u64_rows(j, rows, JSON_NROWS(rows));
}

static void json_blocked(struct json *j, const struct ipcperf_flow *f)
{
	const struct json_u64_row rows[] = {
		{ "max_queued", f->max_queued }, { "writer_blocked_ns", f->writer_blocked_ns },
		{ "reader_blocked_ns", f->reader_blocked_ns },
	};

	json_u64_rows(j, rows, JSON_NROWS(rows));
}

static void json_again(struct json *j, const struct ipcperf_flow *f)
{
	const struct json_u64_row rows[] = {
		{ "write_again", f->write_again }, { "read_again", f->read_again },
		{ "write_wait_ns", f->write_wait_ns }, { "read_wait_ns", f->read_wait_ns },
	};

	json_u64_rows(j, rows, JSON_NROWS(rows));
}

static void json_span(struct json *j, const struct ipcperf_flow *f)
{
	const struct json_u64_row rows[] = {
		{ "first_ns", f->first_ns }, { "last_ns", f->last_ns }, { "stage", f->stage },
	};

	json_u64_rows(j, rows, JSON_NROWS(rows));
}

static int json_flow_peer(void *ctx, const struct ipcperf_flow *f)
{
	struct json_ctx *jc = ctx;
	struct json *j = jc->j;
	struct flowpeer fold;
	const struct flowpeer *peer = jc->fo ? flowpeers_of(&jc->fo->peers, f, &fold) : NULL;

	json_object_begin(j, NULL);
	/* Schema 1 (doc/json.md) first, in its order. */
	json_str(j, "object", f->object);
	json_str(j, "kind", ipcperf_fd_kind_name(f->kind));
	json_pids(j, "writers", f->writers, f->nr_writers);
	json_pids(j, "readers", f->readers, f->nr_readers);
	json_u64(j, "bytes", f->bytes_read);
	json_wire(j, f);
	if (f->capacity >= 0)
		json_i64(j, "capacity", f->capacity);
	else
		json_null(j, "capacity");
	json_blocked(j, f);
	json_str(j, "verdict", ipcperf_verdict_name(f->verdict));
	/* Added fields. */
	json_bool(j, "capacity_default", f->capacity_default);
	json_u64(j, "full_ns", f->full_ns);
	json_calls(j, f);
	json_bool(j, "datagram", f->datagram);
	json_u64(j, "ino", f->ino);
	json_u64(j, "reader_ino", f->reader_ino);
	json_span(j, f);
	json_again(j, f);
	json_u64(j, "write_waits", f->write_waits);
	json_u64(j, "read_waits", f->read_waits);
	json_judged(j, f);
	json_str(j, "endpoint", f->endpoint ? f->endpoint : "");
	json_u64(j, "folded", f->folded);
	jc->folded += f->folded;
	if (jc->fo)
		json_untraced_peer(j, peer ? peer->pid : 0, peer ? peer->comm : "",
				   !f->nr_writers || !f->nr_readers);
	json_object_end(j);
	return 0;
}

/* One side of a bottleneck: the pid it waits for (@pid_key, null: none), how long (@ns_key). */
static void json_waits_for(struct json *j, const char *pid_key, pid_t pid, const char *ns_key,
			   uint64_t ns)
{
	if (pid)
		json_i64(j, pid_key, pid);
	else
		json_null(j, pid_key);
	json_u64(j, ns_key, ns);
}

static int json_neck(void *ctx, const struct ipcperf_bottleneck *b)
{
	struct json *j = ctx;

	json_object_begin(j, NULL);
	json_i64(j, "pid", b->pid);
	json_waits_for(j, "waits_to_write", b->waits_to_write, "write_wait_ns", b->write_wait_ns);
	json_waits_for(j, "waits_to_read", b->waits_to_read, "read_wait_ns", b->read_wait_ns);
	json_u64(j, "queue_wait_ns", b->queue_wait_ns);
	json_object_end(j);
	return 0;
}

int flowout_json(struct json *j, struct ipcperf_flows *fl)
{
	int err = 0;

	json_array_begin(j, "flows");
	if (fl)
		err = ipcperf_flows__for_each(fl, json_flow, j);
	json_array_end(j);
	json_array_begin(j, "bottlenecks");
	if (fl && err >= 0)
		err = ipcperf_flows__for_each_bottleneck(fl, json_neck, j);
	json_array_end(j);
	return err < 0 ? err : 0;
}

int flowout_json_proc(void *ctx, const struct ipcperf_proc_row *row)
{
	struct json *j = ctx;

	json_object_begin(j, NULL);
	json_i64(j, "pid", row->pid);
	json_str(j, "comm", row->comm);
	json_object_end(j);
	return 0;
}

static const char *untraced_side(const struct ipcperf_flow *f)
{
	return !f->nr_writers ? "writer" : !f->nr_readers ? "reader" : NULL;
}

/* "verdicts": how many of the group's flows have each verdict (those it has). */
static void json_verdicts(struct json *j, const struct flowgroup *g)
{
	json_object_begin(j, "verdicts");
	for (int v = 0; v < FLOWGROUP_VERDICTS; v++)
		if (g->verdicts[v])
			json_u64(j, ipcperf_verdict_name((enum ipcperf_verdict)v), g->verdicts[v]);
	json_object_end(j);
}

static void json_group(struct json *j, const struct flowgroup *g)
{
	const struct ipcperf_flow *f = &g->c.f;

	json_object_begin(j, NULL);
	json_pids(j, "writers", f->writers, f->nr_writers);
	json_pids(j, "readers", f->readers, f->nr_readers);
	if (untraced_side(f))
		json_str(j, "untraced", untraced_side(f));
	else
		json_null(j, "untraced");
	json_untraced_peer(j, g->peer_pid, g->peer_comm, untraced_side(f) != NULL);
	json_str(j, "kind", ipcperf_fd_kind_name(f->kind));
	json_bool(j, "datagram", f->datagram);
	json_str(j, "endpoint", g->endpoint);
	json_u64(j, "flows", g->flows);
	json_str(j, "object", g->flows == 1 ? g->c.object : "");
	json_u64(j, "bytes", f->bytes_read);
	json_calls(j, f);
	json_wire(j, f);
	json_blocked(j, f);
	json_again(j, f);
	json_str(j, "verdict", g->mixed ? "mixed" : ipcperf_verdict_name(f->verdict));
	json_verdicts(j, g);
	json_span(j, f);
	json_object_end(j);
}

static int json_flows_doc(struct json *j, struct ipcperf_flows *fl, const struct flowout *fo)
{
	struct json_ctx jc = { .j = j, .fo = fo };
	int err;

	json_array_begin(j, "flows");
	err = ipcperf_flows__for_each(fl, json_flow_peer, &jc);
	json_array_end(j);
	json_u64(j, "folded_flows", jc.folded);
	json_array_begin(j, "bottlenecks");
	if (err >= 0)
		err = ipcperf_flows__for_each_bottleneck(fl, json_neck, j);
	json_array_end(j);
	json_array_begin(j, "flow_groups");
	for (size_t i = 0; i < fo->groups.n; i++)
		json_group(j, &fo->groups.v[i]);
	json_array_end(j);
	return err < 0 ? err : 0;
}

int flowout_json_doc(FILE *f, const struct cli_summary *sum, struct ipcperf_stats *st,
		     struct ipcperf_flows *fl, const struct flowout *fo,
		     const struct flowout_intervals *iv)
{
	struct json j;
	int err;

	json_init(&j, f, true);
	json_doc_begin(&j);
	json_doc_summary(&j, sum);
	json_array_begin(&j, "processes");
	err = ipcperf_stats__for_each_proc(st, flowout_json_proc, &j);
	json_array_end(&j);
	if (err >= 0)
		err = json_flows_doc(&j, fl, fo);
	if (iv) {
		json_array_begin(&j, "intervals");
		json_splice(&j, iv->text, iv->len);
		json_array_end(&j);
	}
	json_object_end(&j);
	json_end_document(&j);
	return err;
}

/* "flows" and "folded_flows" of @fo, then (@necks) its "bottlenecks", then its "flow_groups". */
static void json_snapshot_lists(struct json *j, const struct flowout *fo, bool necks)
{
	struct json_ctx jc = { .j = j, .fo = fo };

	json_array_begin(j, "flows");
	for (size_t i = 0; i < fo->nr_flows; i++)
		json_flow_peer(&jc, &fo->flows[i].c.f);
	json_array_end(j);
	json_u64(j, "folded_flows", jc.folded);
	if (necks) {
		json_array_begin(j, "bottlenecks");
		for (size_t i = 0; i < fo->nr_necks; i++)
			json_neck(j, &fo->necks[i]);
		json_array_end(j);
	}
	json_array_begin(j, "flow_groups");
	for (size_t i = 0; i < fo->groups.n; i++)
		json_group(j, &fo->groups.v[i]);
	json_array_end(j);
}

void flowout_snapshot_json(struct json *j, const struct flowout *fo)
{
	json_snapshot_lists(j, fo, true);
}

void flowout_interval_json(struct json *j, const struct flowout *fo, const struct flowout_span *sp)
{
	json_object_begin(j, NULL);
	json_u64(j, "interval", sp->n);
	json_u64(j, "time_ns", sp->time_ns);
	json_u64(j, "duration_ns", sp->duration_ns);
	json_u64(j, "lost_events", sp->lost);
	json_snapshot_lists(j, fo, false);
	json_object_end(j);
}
