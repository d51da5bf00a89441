/* Renderers of IPC flows: JSON "flows" array, text table, Graphviz graph, Chrome trace. */
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
	json_object_begin(j, "wire_ns");
	json_u64(j, "min", f->wire_ns.min);
	json_u64(j, "p50", f->wire_ns.p50);
	json_u64(j, "p99", f->wire_ns.p99);
	json_u64(j, "max", f->wire_ns.max);
	json_object_end(j);
}

static int json_flow_peer(void *ctx, const struct ipcperf_flow *f)
{
	struct json_ctx *jc = ctx;
	struct json *j = jc->j;
	const struct flowpeer *peer = jc->fo ? flowpeers_of(&jc->fo->peers, f) : NULL;

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
	json_u64(j, "max_queued", f->max_queued);
	json_u64(j, "writer_blocked_ns", f->writer_blocked_ns);
	json_u64(j, "reader_blocked_ns", f->reader_blocked_ns);
	json_str(j, "verdict", ipcperf_verdict_name(f->verdict));
	/* Added fields. */
	json_bool(j, "capacity_default", f->capacity_default);
	json_u64(j, "full_ns", f->full_ns);
	json_u64(j, "bytes_written", f->bytes_written);
	json_u64(j, "unmatched_bytes", f->unmatched_bytes);
	json_u64(j, "writes", f->writes);
	json_u64(j, "reads", f->reads);
	json_u64(j, "matches", f->matches);
	json_bool(j, "datagram", f->datagram);
	json_u64(j, "ino", f->ino);
	json_u64(j, "reader_ino", f->reader_ino);
	json_u64(j, "first_ns", f->first_ns);
	json_u64(j, "last_ns", f->last_ns);
	json_u64(j, "stage", f->stage);
	json_u64(j, "write_again", f->write_again);
	json_u64(j, "read_again", f->read_again);
	json_u64(j, "write_wait_ns", f->write_wait_ns);
	json_u64(j, "read_wait_ns", f->read_wait_ns);
	json_u64(j, "write_waits", f->write_waits);
	json_u64(j, "read_waits", f->read_waits);
	json_judged(j, f);
	if (jc->fo)
		json_untraced_peer(j, peer ? peer->pid : 0, peer ? peer->comm : "",
				   !f->nr_writers || !f->nr_readers);
	json_object_end(j);
	return 0;
}

/* A pid, or null for none (0). */
static void json_pid_or_null(struct json *j, const char *key, pid_t pid)
{
	if (pid)
		json_i64(j, key, pid);
	else
		json_null(j, key);
}

static int json_neck(void *ctx, const struct ipcperf_bottleneck *b)
{
	struct json *j = ctx;

	json_object_begin(j, NULL);
	json_i64(j, "pid", b->pid);
	json_pid_or_null(j, "waits_to_write", b->waits_to_write);
	json_u64(j, "write_wait_ns", b->write_wait_ns);
	json_pid_or_null(j, "waits_to_read", b->waits_to_read);
	json_u64(j, "read_wait_ns", b->read_wait_ns);
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

static int json_proc(void *ctx, const struct ipcperf_proc_row *row)
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
	const struct ipcperf_flow *f = &g->f;

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
	json_str(j, "object", g->flows == 1 ? g->object : "");
	json_u64(j, "bytes", f->bytes_read);
	json_u64(j, "bytes_written", f->bytes_written);
	json_u64(j, "unmatched_bytes", f->unmatched_bytes);
	json_u64(j, "writes", f->writes);
	json_u64(j, "reads", f->reads);
	json_u64(j, "matches", f->matches);
	json_wire(j, f);
	json_u64(j, "max_queued", f->max_queued);
	json_u64(j, "writer_blocked_ns", f->writer_blocked_ns);
	json_u64(j, "reader_blocked_ns", f->reader_blocked_ns);
	json_u64(j, "write_again", f->write_again);
	json_u64(j, "read_again", f->read_again);
	json_u64(j, "write_wait_ns", f->write_wait_ns);
	json_u64(j, "read_wait_ns", f->read_wait_ns);
	json_str(j, "verdict", g->mixed ? "mixed" : ipcperf_verdict_name(f->verdict));
	json_verdicts(j, g);
	json_u64(j, "first_ns", f->first_ns);
	json_u64(j, "last_ns", f->last_ns);
	json_u64(j, "stage", f->stage);
	json_object_end(j);
}

static int json_flows_doc(struct json *j, struct ipcperf_flows *fl, const struct flowout *fo)
{
	struct json_ctx jc = { .j = j, .fo = fo };
	int err;

	json_array_begin(j, "flows");
	err = ipcperf_flows__for_each(fl, json_flow_peer, &jc);
	json_array_end(j);
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
	err = ipcperf_stats__for_each_proc(st, json_proc, &j);
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

void flowout_interval_json(struct json *j, const struct flowout *fo, const struct flowout_span *sp)
{
	struct json_ctx jc = { .j = j, .fo = fo };

	json_object_begin(j, NULL);
	json_u64(j, "interval", sp->n);
	json_u64(j, "time_ns", sp->time_ns);
	json_u64(j, "duration_ns", sp->duration_ns);
	json_u64(j, "lost_events", sp->lost);
	json_array_begin(j, "flows");
	for (size_t i = 0; i < fo->nr_flows; i++)
		json_flow_peer(&jc, &fo->flows[i].f);
	json_array_end(j);
	json_array_begin(j, "flow_groups");
	for (size_t i = 0; i < fo->groups.n; i++)
		json_group(j, &fo->groups.v[i]);
	json_array_end(j);
	json_object_end(j);
}

/* ------------------------------------------------------------------ snapshot */

struct load_ctx {
	struct flowout *fo;
	int err;
	bool groups_only;	/* the flows into their groups, not copied */
	size_t seen;		/* flows walked */
};

static int load_flow(void *ctx, const struct ipcperf_flow *f)
{
	struct load_ctx *lc = ctx;
	struct flowout *fo = lc->fo;
	struct flowout_flow *d;

	if (lc->groups_only) {
		if (flowgroups_add(&fo->groups, f, flowpeers_of(&fo->peers, f), ++lc->seen) < 0)
			return lc->err = -ENOMEM;
		return 0;
	}
	if (cli_grow((void **)&fo->flows, &fo->cap_flows, fo->nr_flows + 1, sizeof(*d)) < 0)
		return lc->err = -ENOMEM;
	d = &fo->flows[fo->nr_flows];
	memset(d, 0, sizeof(*d));
	d->f = *f;
	d->object = strdup(f->object ? f->object : "unknown");
	d->writers = malloc((f->nr_writers + 1) * sizeof(pid_t));
	d->readers = malloc((f->nr_readers + 1) * sizeof(pid_t));
	fo->nr_flows++;		/* counted now, so that flowout_free() frees what was copied */
	if (!d->object || !d->writers || !d->readers)
		return lc->err = -ENOMEM;
	/* A flow nobody traced writing into (or reading from) has no list at all. */
	if (f->nr_writers)
		memcpy(d->writers, f->writers, f->nr_writers * sizeof(pid_t));
	if (f->nr_readers)
		memcpy(d->readers, f->readers, f->nr_readers * sizeof(pid_t));
	d->f.object = d->object;
	d->f.writers = d->writers;
	d->f.readers = d->readers;
	d->f.wire_hist = NULL;	/* it lives only for the call: its group has it */
	d->rank = fo->nr_flows;
	if (flowgroups_add(&fo->groups, f, flowpeers_of(&fo->peers, f), d->rank) < 0)
		return lc->err = -ENOMEM;
	return 0;
}

/* Append a copy of @row's pid and comm to @fo's processes (which come in pid order). */
static int add_proc(struct flowout *fo, const struct ipcperf_proc_row *row)
{
	struct flowout_proc *p;

	if (cli_grow((void **)&fo->procs, &fo->cap_procs, fo->nr_procs + 1, sizeof(*p)) < 0)
		return -ENOMEM;
	p = &fo->procs[fo->nr_procs];
	p->pid = row->pid;
	p->comm = strdup(row->comm ? row->comm : "");
	if (!p->comm)
		return -ENOMEM;
	fo->nr_procs++;
	return 0;
}

static int load_proc(void *ctx, const struct ipcperf_proc_row *row)
{
	struct load_ctx *lc = ctx;
	int err = add_proc(lc->fo, row);

	return err < 0 ? (lc->err = err) : 0;
}

static int load_neck(void *ctx, const struct ipcperf_bottleneck *b)
{
	struct load_ctx *lc = ctx;
	struct flowout *fo = lc->fo;

	if (cli_grow((void **)&fo->necks, &fo->cap_necks, fo->nr_necks + 1, sizeof(*b)) < 0)
		return lc->err = -ENOMEM;
	fo->necks[fo->nr_necks++] = *b;
	return 0;
}

/* Along the chains, then in the order they came (by first activity). */
static int cmp_stage(const void *a, const void *b)
{
	const struct flowout_flow *x = a, *y = b;

	if (x->f.stage != y->f.stage)
		return x->f.stage < y->f.stage ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* What load() walks: the flows and bottlenecks; an interval's flows, settling nothing or all. */
enum load_walk { LOAD_RUN, LOAD_INTERVAL_SETTLED, LOAD_INTERVAL_LAST };

static int load(struct flowout *fo, struct ipcperf_flows *fl, struct ipcperf_stats *st,
		bool groups_only, enum load_walk walk)
{
	struct load_ctx lc = { .fo = fo, .groups_only = groups_only };
	int err;

	memset(fo, 0, sizeof(*fo));
	/* the processes' names and the fds' peers first: the groups are made as the flows come */
	if (st)
		err = ipcperf_stats__for_each_proc(st, load_proc, &lc);
	else
		err = 0;
	if (err >= 0 && lc.err >= 0)
		err = flowpeers_load(&fo->peers, st);
	if (err >= 0 && lc.err >= 0 && walk == LOAD_INTERVAL_SETTLED)
		err = ipcperf_flows__for_each_settled(fl, load_flow, &lc);
	else if (err >= 0 && lc.err >= 0)
		err = ipcperf_flows__for_each(fl, load_flow, &lc);
	/* Not an interval's: a walk of the bottlenecks settles every call. */
	if (err >= 0 && lc.err >= 0 && walk == LOAD_RUN)
		err = ipcperf_flows__for_each_bottleneck(fl, load_neck, &lc);
	if (fo->flows)
		qsort(fo->flows, fo->nr_flows, sizeof(*fo->flows), cmp_stage);
	flowgroups_sort(&fo->groups);
	if (err < 0 || lc.err < 0) {
		flowout_free(fo);
		return err < 0 ? err : lc.err;
	}
	return 0;
}

int flowout_load(struct flowout *fo, struct ipcperf_flows *fl, struct ipcperf_stats *st)
{
	return load(fo, fl, st, false, LOAD_RUN);
}

int flowout_load_groups(struct flowout *fo, struct ipcperf_flows *fl, struct ipcperf_stats *st)
{
	return load(fo, fl, st, true, LOAD_RUN);
}

int flowout_load_interval(struct flowout *fo, struct ipcperf_flows *fl, struct ipcperf_stats *st,
			  bool last)
{
	return load(fo, fl, st, false, last ? LOAD_INTERVAL_LAST : LOAD_INTERVAL_SETTLED);
}

void flowout_free(struct flowout *fo)
{
	for (size_t i = 0; i < fo->nr_flows; i++) {
		free(fo->flows[i].object);
		free(fo->flows[i].writers);
		free(fo->flows[i].readers);
	}
	for (size_t i = 0; i < fo->nr_procs; i++)
		free(fo->procs[i].comm);
	free(fo->flows);
	free(fo->necks);
	free(fo->procs);
	flowpeers_free(&fo->peers);
	flowgroups_free(&fo->groups);
	memset(fo, 0, sizeof(*fo));
}

/* A pid_t key against an element that starts with one (flowout_proc, thr). */
static int cmp_pid_key(const void *key, const void *elem)
{
	pid_t a = *(const pid_t *)key, b = *(const pid_t *)elem;

	return a < b ? -1 : a > b;
}

const char *flowout_comm(const struct flowout *fo, pid_t pid)
{
	size_t i;

	if (cli_bsearch(&pid, fo->procs, fo->nr_procs, sizeof(*fo->procs), cmp_pid_key, &i))
		return fo->procs[i].comm;
	return "?";
}

/* ------------------------------------------------------------------ text */

enum { COL_W, COL_ARROW, COL_R, COL_OBJ, COL_KIND, COL_BYTES, COL_RATE, COL_P50, COL_P99,
       COL_QUEUE, COL_WBLK, COL_RBLK, COL_AGAIN, COL_WAITED, COL_VERDICT, COL_UNMATCHED,
       NR_COLS };

static const struct {
	const char *title;
	bool right;
} cols[NR_COLS] = {
	[COL_W] = { "writer", false },
	[COL_ARROW] = { "", false },
	[COL_R] = { "reader", false },
	[COL_OBJ] = { "object", false },
	[COL_KIND] = { "kind", false },
	[COL_BYTES] = { "bytes", true },
	[COL_RATE] = { "MB/s", true },
	[COL_P50] = { "wire p50", true },
	[COL_P99] = { "wire p99", true },
	[COL_QUEUE] = { "max queued / capacity", false },
	[COL_WBLK] = { "wr blocked", true },
	[COL_RBLK] = { "rd blocked", true },
	[COL_AGAIN] = { "again w/r", true },
	[COL_WAITED] = { "epoll w/r", true },
	[COL_VERDICT] = { "verdict", false },
	[COL_UNMATCHED] = { "unmatched", true },
};

#define MAX_SIDE_SHOWN 3
/* A cell of the text table: a side, an object (cut to fit), a number. */
#define CELL_LEN 128

/*
 * "12 sh (not traced)", the process at a side nobody traced (the @writer
 * side or the reader), or "(not traced)" when not known; a traced process
 * there made no such call: "12 ab (wrote nothing)".
 */
static void untraced_str(char *buf, size_t len, const struct flowout *fo, pid_t pid,
			 const char *comm, bool writer)
{
	char esc[CLI_ESC_LEN(CLI_COMM_LEN)];
	bool traced = pid && strcmp(flowout_comm(fo, pid), "?");

	if (pid)
		snprintf(buf, len, "%d %s (%s)", (int)pid, cli_esc(esc, sizeof(esc), comm),
			 !traced ? "not traced" : writer ? "wrote nothing" : "read nothing");
	else
		snprintf(buf, len, "(not traced)");
}

/* "1234 head, 1240 sh (+2)", or the untraced side (@peer) when nobody traced did it. */
static void side_str(char *buf, size_t len, const struct flowout *fo, const pid_t *v, size_t n,
		     const struct flowpeer *peer, bool writer)
{
	size_t off = 0;
	char comm[CLI_ESC_LEN(CLI_COMM_LEN)];

	if (!n) {
		untraced_str(buf, len, fo, peer ? peer->pid : 0, peer ? peer->comm : "", writer);
		return;
	}
	buf[0] = 0;
	for (size_t i = 0; i < n && i < MAX_SIDE_SHOWN && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%d %s", i ? ", " : "", (int)v[i],
					cli_esc(comm, sizeof(comm), flowout_comm(fo, v[i])));
	if (n > MAX_SIDE_SHOWN && off < len)
		snprintf(buf + off, len - off, " (+%zu)", n - MAX_SIDE_SHOWN);
}

/* One line of the table (the titles when @row is NULL), without trailing blanks. */
static void print_row(FILE *f, char (*row)[CELL_LEN], const int *width, const bool *hide)
{
	char line[NR_COLS * (CELL_LEN + 4)];
	size_t off = 0;

	for (int c = 0; c < NR_COLS && off < sizeof(line); c++) {
		if (hide[c])
			continue;
		off += (size_t)snprintf(line + off, sizeof(line) - off, "%s%*s", c ? "  " : "",
					cols[c].right ? width[c] : -width[c],
					row ? row[c] : cols[c].title);
	}
	if (off >= sizeof(line))
		off = sizeof(line) - 1;
	while (off && line[off - 1] == ' ')
		off--;
	line[off] = 0;
	fprintf(f, "%s\n", line);
}

/* "comm[pid]" of @pid, comm escaped (bytes a process chose), into @buf. */
static const char *proc_str(char *buf, size_t len, const struct flowout *fo, pid_t pid)
{
	char comm[CLI_ESC_LEN(CLI_COMM_LEN)];

	snprintf(buf, len, "%s[%d]", cli_esc(comm, sizeof(comm), flowout_comm(fo, pid)), (int)pid);
	return buf;
}

/* "comm[pid]" of @pid into @buf, or @none when no traced process is there (0). */
static const char *side_of(char *buf, size_t len, const struct flowout *fo, pid_t pid,
			   const char *none)
{
	return pid ? proc_str(buf, len, fo, pid) : none;
}

void flowout_bottlenecks(FILE *f, const struct flowout *fo)
{
	char p[CELL_LEN], o[CELL_LEN], t[CLI_NUM_LEN], line[4 * CELL_LEN];
	bool moved = false;
	size_t waiting = 0, marginal = 0;

	for (size_t i = 0; i < fo->nr_necks; i++) {
		const struct ipcperf_bottleneck *b = &fo->necks[i];
		bool w = b->waits_to_write || b->write_wait_ns;
		bool r = b->waits_to_read || b->read_wait_ns;
		size_t n;

		n = (size_t)snprintf(line, sizeof(line), "bottleneck: %s:",
				     proc_str(p, sizeof(p), fo, b->pid));
		if (w && b->queue_wait_ns && !b->write_wait_ns && n < sizeof(line))
			n += (size_t)snprintf(line + n, sizeof(line) - n,
					      " the bytes of %s wait %s (median) in the channel for it%s",
					      side_of(o, sizeof(o), fo, b->waits_to_write,
						      "a writer not traced"),
					      fmt_ns(t, sizeof(t), b->queue_wait_ns), r ? "," : "");
		else if (w && n < sizeof(line))
			n += (size_t)snprintf(line + n, sizeof(line) - n,
					      " %s waits %s to write into it%s",
					      side_of(o, sizeof(o), fo, b->waits_to_write,
						      "a writer not traced"),
					      fmt_ns(t, sizeof(t), b->write_wait_ns), r ? "," : "");
		if (r && n < sizeof(line))
			snprintf(line + n, sizeof(line) - n, " %s waits %s to read from it",
				 side_of(o, sizeof(o), fo, b->waits_to_read, "a reader not traced"),
				 fmt_ns(t, sizeof(t), b->read_wait_ns));
		cli_put_folded(f, line, cli_term_width(f), "  ");
	}
	for (size_t i = 0; i < fo->nr_flows; i++) {
		enum ipcperf_verdict v = fo->flows[i].f.verdict;
		bool clear = fo->flows[i].f.marginal == IPCPERF_VERDICT_BALANCED;

		moved |= v != IPCPERF_VERDICT_IDLE && v != IPCPERF_VERDICT_UNMEASURED;
		waiting += clear && (v == IPCPERF_VERDICT_BACKPRESSURE ||
				     v == IPCPERF_VERDICT_CONSUMER_STARVED);
		marginal += !clear;
	}
	if (fo->nr_necks || !moved)
		return;
	if (!waiting && marginal)
		fprintf(f, "bottleneck: none (no flow is clearly held back or starved: %zu marginal, "
			"near the line)\n", marginal);
	else if (!waiting)
		fprintf(f, "bottleneck: none (no flow is held back or starved)\n");
	else
		fprintf(f, "bottleneck: none (%zu flow%s held back or starved, each by a process "
			"that waits on another flow itself: a cycle, as requests and their answers)\n",
			waiting, waiting == 1 ? "" : "s");
}

/*
 * On a terminal narrower than the table, columns go in this order until it
 * fits (ipcperf-flows(1)), the lesser first, so that the wire times, the
 * flows' headline figures, go last: kind, max queued, MB/s, the event
 * loop's refused writes and waits, unmatched, the object, the arrow, the
 * blocked times, wire p99.
 */
static const int drop_order[] = { COL_KIND, COL_QUEUE, COL_RATE, COL_AGAIN, COL_WAITED,
				  COL_UNMATCHED, COL_OBJ, COL_ARROW, COL_WBLK, COL_RBLK, COL_P99 };

static void fit_columns(const int *width, bool *hide, bool unmatched_col, bool evloop_cols,
			int term)
{
	int total = 0;

	for (int c = 0; c < NR_COLS; c++) {
		hide[c] = (c == COL_UNMATCHED && !unmatched_col) ||
			  ((c == COL_AGAIN || c == COL_WAITED) && !evloop_cols);
		total += hide[c] ? 0 : width[c] + (c ? 2 : 0);
	}
	for (size_t k = 0; term > 0 && total > term && k < sizeof(drop_order) / sizeof(*drop_order);
	     k++) {
		if (hide[drop_order[k]])
			continue;
		hide[drop_order[k]] = true;
		total -= width[drop_order[k]] + 2;
	}
}

/*
 * "backpressure", "backpressure (queue: 262x)" from the queue residence,
 * or, near the line, the verdict it points to: "backpressure (marginal:
 * 1.9x)", the same on both sides of the line.
 */
static void verdict_str(char *buf, size_t len, const struct ipcperf_flow *fw)
{
	if (fw->marginal != IPCPERF_VERDICT_BALANCED)
		snprintf(buf, len, "%s (%smarginal: %.1fx)", ipcperf_verdict_name(fw->marginal),
			 fw->by_queue ? "queue, " : "", fw->margin);
	else if (fw->by_queue)
		snprintf(buf, len, "%s (queue: %.0fx)", ipcperf_verdict_name(fw->verdict),
			 fw->queue_residence);
	else
		snprintf(buf, len, "%s", ipcperf_verdict_name(fw->verdict));
}

/* The cells of flow @fw's row. */
static void fill_row(char (*row)[CELL_LEN], const struct flowout *fo,
		     const struct ipcperf_flow *fw, uint64_t duration_ns)
{
	char a[CLI_NUM_LEN], b[CLI_NUM_LEN];
	const struct flowpeer *peer = flowpeers_of(&fo->peers, fw);
	uint64_t bytes = flowgroup_bytes(fw);

	side_str(row[COL_W], sizeof(row[COL_W]), fo, fw->writers, fw->nr_writers, peer, true);
	snprintf(row[COL_ARROW], sizeof(row[COL_ARROW]), "->");
	side_str(row[COL_R], sizeof(row[COL_R]), fo, fw->readers, fw->nr_readers, peer, false);
	cli_esc(row[COL_OBJ], sizeof(row[COL_OBJ]), fw->object);
	snprintf(row[COL_KIND], sizeof(row[COL_KIND]), "%s%s", ipcperf_fd_kind_name(fw->kind),
		 fw->datagram ? "/dgram" : "");
	snprintf(row[COL_BYTES], sizeof(row[COL_BYTES]), "%" PRIu64, bytes);
	if (duration_ns)
		snprintf(row[COL_RATE], sizeof(row[COL_RATE]), "%.2f",
			 (double)bytes / ((double)duration_ns / 1e9) / 1e6);
	else
		snprintf(row[COL_RATE], sizeof(row[COL_RATE]), "-");
	if (fw->matches) {
		snprintf(row[COL_P50], sizeof(row[COL_P50]), "%s",
			 fmt_ns(a, sizeof(a), fw->wire_ns.p50));
		snprintf(row[COL_P99], sizeof(row[COL_P99]), "%s",
			 fmt_ns(b, sizeof(b), fw->wire_ns.p99));
	} else {
		snprintf(row[COL_P50], sizeof(row[COL_P50]), "-");
		snprintf(row[COL_P99], sizeof(row[COL_P99]), "-");
	}
	if (fw->capacity >= 0)
		snprintf(row[COL_QUEUE], sizeof(row[COL_QUEUE]), "%" PRIu64 " / %" PRId64 "%s",
			 fw->max_queued, fw->capacity,
			 fw->capacity_default ? " (default)" : "");
	else
		snprintf(row[COL_QUEUE], sizeof(row[COL_QUEUE]), "%" PRIu64 " / ?",
			 fw->max_queued);
	snprintf(row[COL_WBLK], sizeof(row[COL_WBLK]), "%s",
		 fmt_ns(a, sizeof(a), fw->writer_blocked_ns));
	snprintf(row[COL_RBLK], sizeof(row[COL_RBLK]), "%s",
		 fmt_ns(b, sizeof(b), fw->reader_blocked_ns));
	verdict_str(row[COL_VERDICT], sizeof(row[COL_VERDICT]), fw);
	snprintf(row[COL_UNMATCHED], sizeof(row[COL_UNMATCHED]), "%" PRIu64,
		 fw->unmatched_bytes);
	snprintf(row[COL_AGAIN], CELL_LEN, "%" PRIu64 " / %" PRIu64, fw->write_again,
		 fw->read_again);
	snprintf(row[COL_WAITED], CELL_LEN, "%s / %s", fmt_ns(a, sizeof(a), fw->write_wait_ns),
		 fmt_ns(b, sizeof(b), fw->read_wait_ns));
}

/* The cells of group @g's row: its sums as a flow's, its sides, "N conns", its verdict. */
static void fill_group_row(char (*row)[CELL_LEN], const struct flowout *fo,
			   const struct flowgroup *g, uint64_t duration_ns)
{
	const struct ipcperf_flow *fw = &g->f;
	char ep[CLI_ESC_LEN(FLOWGROUP_EP_LEN)];

	fill_row(row, fo, fw, duration_ns);
	if (!fw->nr_writers)
		untraced_str(row[COL_W], CELL_LEN, fo, g->peer_pid, g->peer_comm, true);
	if (!fw->nr_readers)
		untraced_str(row[COL_R], CELL_LEN, fo, g->peer_pid, g->peer_comm, false);
	if (g->flows > 1)
		snprintf(row[COL_OBJ], CELL_LEN, "%zu %s%s%s", g->flows,
			 fw->kind == IPCPERF_FD_PIPE ? "pipes" : "conns", g->endpoint[0] ? " " : "",
			 cli_esc(ep, sizeof(ep), g->endpoint));
	if (g->mixed)
		snprintf(row[COL_VERDICT], CELL_LEN, "mixed");
}

static bool any_unmeasured(const struct flowout *fo)
{
	for (size_t i = 0; i < fo->nr_flows; i++)
		if (fo->flows[i].f.verdict == IPCPERF_VERDICT_UNMEASURED)
			return true;
	return false;
}

/* The rows of the table, per flow or per group, into @cell; @any: the optional columns' use. */
static size_t fill_rows(char (*cell)[NR_COLS][CELL_LEN], const struct flowout *fo,
			uint64_t duration_ns, bool *any_unmatched, bool *any_evloop)
{
	size_t n = fo->per_flow ? fo->nr_flows : fo->groups.n;

	for (size_t i = 0; i < n; i++) {
		const struct ipcperf_flow *fw = fo->per_flow ? &fo->flows[i].f : &fo->groups.v[i].f;

		if (fo->per_flow)
			fill_row(cell[i], fo, fw, duration_ns);
		else
			fill_group_row(cell[i], fo, &fo->groups.v[i], duration_ns);
		*any_unmatched |= fw->unmatched_bytes != 0;
		*any_evloop |= fw->write_again || fw->read_again || fw->write_waits ||
			       fw->read_waits;
	}
	return n;
}

/* Which notes the table needs: its optional columns, and rows of groups. */
struct table_notes {
	bool unmatched, evloop, groups;
};

/* The table of @fo's flows (it has some), its titles first. @return -1 (said) without memory. */
static int text_table(FILE *f, const struct flowout *fo, uint64_t duration_ns,
		      struct table_notes *tn)
{
	char (*cell)[NR_COLS][CELL_LEN] = calloc(fo->nr_flows, sizeof(*cell));
	int width[NR_COLS];
	bool hide[NR_COLS];
	size_t n;

	if (!cell) {
		fprintf(f, "(out of memory)\n");
		return -1;
	}
	for (int c = 0; c < NR_COLS; c++)
		width[c] = (int)strlen(cols[c].title);
	n = fill_rows(cell, fo, duration_ns, &tn->unmatched, &tn->evloop);
	for (size_t i = 0; i < n; i++) {
		char (*row)[CELL_LEN] = cell[i];

		tn->groups |= !fo->per_flow && fo->groups.v[i].flows > 1;
		for (int c = 0; c < NR_COLS; c++) {
			int l = (int)strlen(row[c]);

			if (l > width[c])
				width[c] = l;
		}
	}
	fit_columns(width, hide, tn->unmatched, tn->evloop, cli_term_width(f));
	print_row(f, NULL, width, hide);
	for (size_t i = 0; i < n; i++)
		print_row(f, cell[i], width, hide);
	free(cell);
	return 0;
}

void flowout_text(FILE *f, const struct flowout *fo, uint64_t duration_ns)
{
	int term = cli_term_width(f);
	struct table_notes tn = { 0 };

	if (!fo->nr_flows) {
		fprintf(f, "(no flows: no traced process wrote into or read from a pipe or socket"
			   " that ipcperf could follow)\n");
		return;
	}
	if (text_table(f, fo, duration_ns, &tn) < 0)
		return;
	fputc('\n', f);
	flowout_bottlenecks(f, fo);
	fputc('\n', f);
	if (tn.groups)
		cli_put_folded(f, "a row: the flows of one writer side, reader side, kind and "
			       "endpoint, added up (--per-flow: a row each); wire: of all their "
			       "matches; verdict: theirs (idle ones aside), or mixed", term, "  ");
	cli_put_folded(f, "bytes: read out of the channel (written into it when nobody traced "
		       "read it); wire: start of a write to end of the read that took its bytes; "
		       "blocked: asleep in the calls", term, "  ");
	if (tn.evloop)
		cli_put_folded(f, "again: writes refused (full) / reads that found it empty "
			       "(EAGAIN); epoll: asleep in waits (epoll, poll, select) that ended with it "
			       "writable / "
			       "readable", term, "  ");
	cli_put_folded(f, "verdict: idle if no byte went in or out; backpressure if writers "
		       "waited W > 2R and W >= 1 ms; consumer-starved if readers waited R > 2W "
		       "and R >= 1 ms; W and R: blocked plus epoll; else backpressure (queue: Nx) if "
		       "writers never met a full channel and the bytes waited in it (wire p50, "
		       ">= 1 ms) N > 2 times the slower side's time per call; else, for non-blocking ends, "
		       "backpressure if writes were refused more than twice as often as reads or "
		       "the channel sat full half its life, consumer-starved if reads found it "
		       "empty more than twice as often; else balanced; marginal: a ratio within "
		       "1.25x of its line of 2 (1.6x to 2.5x), named by the side it leans to, "
		       "is no bottleneck", term, "  ");
	if (any_unmeasured(fo))
		cli_put_folded(f, "unmeasured: nobody traced wrote into the channel, or nobody "
			       "traced read it: the other side's waits are not known", term, "  ");
	if (tn.unmatched)
		cli_put_folded(f, "unmatched: bytes read that no traced write put in (written "
			       "before the capture, or by a process not traced)", term, "  ");
}

void flowout_interval_text(FILE *f, const struct flowout *fo, const struct flowout_span *sp)
{
	struct table_notes tn = { 0 };

	fprintf(f, "--- %.3f s: interval of %.3f s ---\n", sp->time_ns / 1e9, sp->duration_ns / 1e9);
	if (!fo->nr_flows)
		fprintf(f, "(no flow had a call in the interval)\n");
	else
		text_table(f, fo, sp->duration_ns, &tn);
	if (sp->lost)
		fprintf(f, "lost events in the interval: %" PRIu64 "\n", sp->lost);
	fputc('\n', f);
	fflush(f);
}

void flowout_text_report(FILE *f, const char *what, const struct flowout *fo,
			 const struct cli_summary *sum)
{
	char head[CLI_WHAT_LEN + 64];

	/* a long command is folded on a narrow terminal, as the notes are */
	snprintf(head, sizeof(head), "ipcperf flows: %s, %.3f s", what, sum->duration_ns / 1e9);
	cli_put_folded(f, head, cli_term_width(f), "  ");
	fputc('\n', f);
	flowout_text(f, fo, sum->duration_ns);
	fprintf(f, "\nlost events: %" PRIu64 ", unpaired syscalls: %" PRIu64 "\n", sum->lost,
		sum->unpaired);
}

/* ------------------------------------------------------------------ DOT */

/*
 * A DOT string literal's content: " and \ escaped; anything outside printable
 * ASCII becomes '?' (a comm is arbitrary bytes, and dot warns on bad UTF-8).
 */
static void dot_escape(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fputc('\\', f);
		fputc(*p >= 0x20 && *p < 0x7f ? *p : '?', f);
	}
}

static void dot_edge(FILE *f, const char *from, const char *to, const struct ipcperf_flow *fw,
		     uint64_t duration_ns)
{
	char b[CLI_NUM_LEN], w[CLI_NUM_LEN];

	fprintf(f, "  %s -> %s [label=\"", from, to);
	dot_escape(f, fw->object);
	fprintf(f, "\\n%s", fmt_bytes(b, sizeof(b), fw->bytes_read));
	if (duration_ns)
		fprintf(f, ", %.2f MB/s", (double)fw->bytes_read / ((double)duration_ns / 1e9) / 1e6);
	if (fw->matches)
		fprintf(f, "\\nwire p99 %s", fmt_ns(w, sizeof(w), fw->wire_ns.p99));
	fprintf(f, "\\nblocked: writer %s", fmt_ns(b, sizeof(b), fw->writer_blocked_ns));
	fprintf(f, ", reader %s", fmt_ns(w, sizeof(w), fw->reader_blocked_ns));
	fprintf(f, "\\n%s\"", ipcperf_verdict_name(fw->verdict));
	switch (fw->verdict) {
	case IPCPERF_VERDICT_BACKPRESSURE:
		fprintf(f, ", color=\"red\", fontcolor=\"red\", style=\"bold\", penwidth=3");
		break;
	case IPCPERF_VERDICT_CONSUMER_STARVED:
		fprintf(f, ", color=\"blue\", fontcolor=\"blue\", style=\"dashed\", penwidth=1.5");
		break;
	case IPCPERF_VERDICT_IDLE:
		fprintf(f, ", color=\"grey70\", fontcolor=\"grey50\", style=\"dotted\"");
		break;
	default:
		fprintf(f, ", color=\"grey50\", fontcolor=\"grey30\"");
		break;
	}
	fprintf(f, "];\n");
}

static bool is_neck(const struct flowout *fo, pid_t pid)
{
	for (size_t i = 0; i < fo->nr_necks; i++)
		if (fo->necks[i].pid == pid)
			return true;
	return false;
}

/* A process's node; a bottleneck's filled and saying so. */
static void dot_node(FILE *f, const struct flowout *fo, pid_t pid)
{
	bool neck = is_neck(fo, pid);

	fprintf(f, "  p%d [label=\"", (int)pid);
	dot_escape(f, flowout_comm(fo, pid));
	fprintf(f, "\\n%d%s\"", (int)pid, neck ? "\\nbottleneck" : "");
	if (neck)
		fprintf(f, ", style=\"rounded,filled,bold\", fillcolor=\"#ffd6d6\", color=\"red\"");
	fprintf(f, "];\n");
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

void flowout_dot(FILE *f, const struct flowout *fo, uint64_t duration_ns)
{
	pid_t *pids;
	size_t n = 0, cap = 0;

	fprintf(f, "digraph ipcperf_flows {\n"
		   "  graph [rankdir=LR, fontname=\"Helvetica\", fontsize=12, labelloc=t,"
		   " label=\"ipcperf flows\"];\n"
		   "  node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=11];\n"
		   "  edge [fontname=\"Helvetica\", fontsize=9];\n");
	/* Nodes: every process that wrote or read a flow, once. */
	for (size_t i = 0; i < fo->nr_flows; i++)
		cap += fo->flows[i].f.nr_writers + fo->flows[i].f.nr_readers;
	pids = malloc((cap + 1) * sizeof(*pids));
	for (size_t i = 0; pids && i < fo->nr_flows; i++) {
		const struct ipcperf_flow *fw = &fo->flows[i].f;

		memcpy(pids + n, fw->writers, fw->nr_writers * sizeof(*pids));
		n += fw->nr_writers;
		memcpy(pids + n, fw->readers, fw->nr_readers * sizeof(*pids));
		n += fw->nr_readers;
	}
	if (pids)
		qsort(pids, n, sizeof(*pids), cmp_pid);
	for (size_t i = 0; pids && i < n; i++) {
		if (i && pids[i] == pids[i - 1])
			continue;
		dot_node(f, fo, pids[i]);
	}
	free(pids);
	for (size_t i = 0; i < fo->nr_flows; i++) {
		const struct ipcperf_flow *fw = &fo->flows[i].f;
		char from[32], to[32];

		/* A side nobody traced (written before the capture, or by another process). */
		if (!fw->nr_writers)
			fprintf(f, "  w%zu [label=\"not traced\", style=\"rounded,dashed\", "
				   "fontcolor=\"grey40\"];\n", i);
		if (!fw->nr_readers)
			fprintf(f, "  r%zu [label=\"not traced\", style=\"rounded,dashed\", "
				   "fontcolor=\"grey40\"];\n", i);
		for (size_t a = 0; a < (fw->nr_writers ? fw->nr_writers : 1); a++) {
			if (fw->nr_writers)
				snprintf(from, sizeof(from), "p%d", (int)fw->writers[a]);
			else
				snprintf(from, sizeof(from), "w%zu", i);
			for (size_t b = 0; b < (fw->nr_readers ? fw->nr_readers : 1); b++) {
				if (fw->nr_readers)
					snprintf(to, sizeof(to), "p%d", (int)fw->readers[b]);
				else
					snprintf(to, sizeof(to), "r%zu", i);
				dot_edge(f, from, to, fw, duration_ns);
			}
		}
	}
	fprintf(f, "  legend [shape=plaintext, fontsize=8, fontcolor=\"grey30\", label=\""
		   "red, bold: backpressure (writers wait on a full channel)\\l"
		   "blue, dashed: consumer-starved (readers wait on an empty one)\\l"
		   "grey: balanced; dotted: idle; filled: the bottleneck\\l\"];\n"
		   "}\n");
}

/* ------------------------------------------------------------------ Chrome trace */

/* The longest process or thread name the timeline gives. */
#define TRACE_NAME_LEN 32

struct thr {
	pid_t tid;		/* first: the key (cmp_pid_key) */
	pid_t pid;
	char comm[CLI_COMM_LEN];
};

/* Where the counter of a channel goes: the process that first wrote into it. */
struct chan {
	char *object;		/* first: the key */
	pid_t pid;
};

struct flowout_trace {
	FILE *f;
	struct ipcperf_stats *st;
	uint64_t base_ns;
	uint64_t next_id;
	bool any;			/* an event was written: the next needs a comma */

	struct thr *thr;		/* by tid */
	size_t nr_thr, cap_thr;
	struct chan *chan;		/* by object */
	size_t nr_chan, cap_chan;

	/* The last counter sample, held back: one read that takes several writes
	 * gives several matches at one time, and only the last queued value holds. */
	bool cnt_pending;
	char cnt_object[CELL_LEN];
	pid_t cnt_pid;
	uint64_t cnt_ts, cnt_queued;
};

struct flowout_trace *flowout_trace_new(FILE *f)
{
	struct flowout_trace *t = calloc(1, sizeof(*t));

	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	t->f = f;
	return t;
}

void flowout_trace_delete(struct flowout_trace *t)
{
	if (!t)
		return;
	free(t->thr);
	for (size_t i = 0; i < t->nr_chan; i++)
		free(t->chan[i].object);
	free(t->chan);
	free(t);
}

/* --- threads and channels: sorted by their key, so that each event finds its own */

/* The thread @tid (NULL when unknown, or out of memory), added when @create. */
static struct thr *thr_get(struct flowout_trace *t, pid_t tid, bool create)
{
	struct thr *th;
	size_t i;

	if (tid <= 0)
		return NULL;
	if (cli_bsearch(&tid, t->thr, t->nr_thr, sizeof(*t->thr), cmp_pid_key, &i))
		return &t->thr[i];
	if (!create || cli_grow((void **)&t->thr, &t->cap_thr, t->nr_thr + 1, sizeof(*th)) < 0)
		return NULL;
	th = cli_insert_at(t->thr, t->nr_thr++, sizeof(*th), i);
	th->tid = tid;
	return th;
}

static int cmp_object_key(const void *key, const void *elem)
{
	return strcmp(key, ((const struct chan *)elem)->object);
}

/* The channel @object, added if new; NULL when out of memory. */
static struct chan *chan_get(struct flowout_trace *t, const char *object)
{
	struct chan *ch;
	char *copy;
	size_t i;

	if (cli_bsearch(object, t->chan, t->nr_chan, sizeof(*t->chan), cmp_object_key, &i))
		return &t->chan[i];
	if (cli_grow((void **)&t->chan, &t->cap_chan, t->nr_chan + 1, sizeof(*ch)) < 0 ||
	    !(copy = strdup(object)))
		return NULL;
	ch = cli_insert_at(t->chan, t->nr_chan++, sizeof(*ch), i);
	ch->object = copy;
	return ch;
}

/* --- writing */

/* Microseconds since the base, with the nanoseconds as three decimals (exact). */
static void put_ts(struct flowout_trace *t, const char *key, uint64_t ns, bool relative)
{
	if (relative)
		ns = ns > t->base_ns ? ns - t->base_ns : 0;
	fprintf(t->f, ",\"%s\":%" PRIu64 ".%03" PRIu64, key, ns / 1000, ns % 1000);
}

static void ev_begin(struct flowout_trace *t, char ph, pid_t pid, pid_t tid)
{
	fprintf(t->f, "%s{\"ph\":\"%c\",\"pid\":%d,\"tid\":%d", t->any ? ",\n" : "", ph, (int)pid,
		(int)tid);
	t->any = true;
}

/* A read or write, with what its fd was (the stats say once it is settled). */
static void trace_call(void *ctx, const struct ipcperf_syscall *ev, const struct ipcperf_fd_object *fd)
{
	struct flowout_trace *t = ctx;
	struct thr *th = thr_get(t, ev->tid, true);

	if (th)
		th->pid = ev->pid;
	ev_begin(t, 'X', ev->pid, ev->tid);
	put_ts(t, "ts", ev->start_ns, true);
	put_ts(t, "dur", ev->end_ns >= ev->start_ns ? ev->end_ns - ev->start_ns : 0, false);
	fprintf(t->f, ",\"cat\":\"syscall\",\"name\":\"%s fd %d\",\"args\":{", ev->name, ev->fd);
	if (ev->ret < 0)
		fprintf(t->f, "\"bytes\":0,\"error\":%" PRId64, ev->ret);
	else if (ev->ret_is_msgs)
		fprintf(t->f, "\"msgs\":%" PRId64, ev->ret);
	else
		fprintf(t->f, "\"bytes\":%" PRId64, ev->ret);
	fputs(",\"object\":", t->f);
	json_write_string(t->f, fd->object);
	fputs("}}", t->f);
}

static void flush_counter(struct flowout_trace *t)
{
	if (!t->cnt_pending)
		return;
	ev_begin(t, 'C', t->cnt_pid, t->cnt_pid);
	put_ts(t, "ts", t->cnt_ts, true);
	fputs(",\"cat\":\"flow\",\"name\":", t->f);
	{
		char name[160];

		snprintf(name, sizeof(name), "queued %s", t->cnt_object);
		json_write_string(t->f, name);
	}
	fprintf(t->f, ",\"args\":{\"bytes\":%" PRIu64 "}}", t->cnt_queued);
	t->cnt_pending = false;
}

static void trace_match(void *ctx, const struct ipcperf_flow_match *m)
{
	struct flowout_trace *t = ctx;
	uint64_t id = ++t->next_id, s_ts = m->write_end_ns;
	struct chan *ch;

	/*
	 * The arrow leaves the write at its end and enters the read at its end.
	 * A viewer binds a flow end only to a start it has already seen in time
	 * order, and may round timestamps to the nanosecond below. So when the
	 * read ended first or nearly with the write (a large write into a full
	 * pipe returns after the reader took its first bytes), the start goes
	 * half-way between the write's start and the read's end: still inside
	 * the write, and well before the end.
	 */
	if (m->write_end_ns + 2 > m->read_end_ns) {
		uint64_t hi = m->write_end_ns < m->read_end_ns ? m->write_end_ns : m->read_end_ns;

		s_ts = m->write_start_ns + (hi > m->write_start_ns ? (hi - m->write_start_ns) / 2 : 0);
	}
	ev_begin(t, 's', m->wpid, m->wtid);
	fprintf(t->f, ",\"id\":%" PRIu64, id);
	put_ts(t, "ts", s_ts, true);
	fputs(",\"cat\":\"flow\",\"name\":", t->f);
	json_write_string(t->f, m->object);
	fprintf(t->f, ",\"args\":{\"bytes\":%" PRIu64 "}}", m->bytes);
	ev_begin(t, 'f', m->rpid, m->rtid);
	fprintf(t->f, ",\"bp\":\"e\",\"id\":%" PRIu64, id);
	put_ts(t, "ts", m->read_end_ns, true);
	fputs(",\"cat\":\"flow\",\"name\":", t->f);
	json_write_string(t->f, m->object);
	fputs("}", t->f);

	if (t->cnt_pending && (t->cnt_ts != m->read_end_ns || strcmp(t->cnt_object, m->object)))
		flush_counter(t);
	ch = chan_get(t, m->object);
	if (ch && !ch->pid)
		ch->pid = m->wpid;
	t->cnt_pending = true;
	snprintf(t->cnt_object, sizeof(t->cnt_object), "%s", m->object);
	t->cnt_pid = ch ? ch->pid : m->wpid;
	t->cnt_ts = m->read_end_ns;
	t->cnt_queued = m->queued;
}

static void trace_task(void *ctx, const struct ipcperf_task *ev)
{
	struct flowout_trace *t = ctx;
	struct thr *th;

	/* Only threads that have slices are named: the table stays as small as the timeline. */
	switch (ev->kind) {
	case IPCPERF_TASK_EXEC:
		th = thr_get(t, ev->tid, false);
		break;
	case IPCPERF_TASK_FORK:
		th = thr_get(t, ev->child_tid, false);	/* a recycled tid: a new thread */
		break;
	default:
		return;
	}
	if (th && ev->comm)
		snprintf(th->comm, sizeof(th->comm), "%s", ev->comm);
}

static void trace_switch(void *ctx, const struct ipcperf_switch *ev)
{
	struct thr *th = thr_get(ctx, ev->tid, false);

	if (th)
		memcpy(th->comm, ev->prev_comm, sizeof(th->comm));
}

int flowout_trace_attach(struct flowout_trace *t, struct ipcperf_session *s,
			 struct ipcperf_flows *fl, struct ipcperf_stats *st)
{
	IPCPERF_OPTS(ipcperf_handlers, h, .ctx = t, .sched_switch = trace_switch,
		     .task = trace_task);
	int err;

	t->st = st;
	/* Timestamps count from here: before anything the session can record. */
	t->base_ns = cli_now_ns();
	if ((err = ipcperf_flows__on_match(fl, trace_match, t)) < 0 ||
	    (err = ipcperf_stats__on_call(st, trace_call, t)) < 0 ||
	    (err = ipcperf_session__add_handlers(s, &h)) < 0)
		return err;
	fprintf(t->f, "{\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"tool\":\"ipcperf\","
		      "\"version\":");
	json_write_string(t->f, ipcperf_version());
	fprintf(t->f, ",\"clock\":\"CLOCK_MONOTONIC\",\"base_ns\":%" PRIu64 "},\n"
		      "\"traceEvents\":[\n", t->base_ns);
	return 0;
}

static int meta_proc(void *ctx, const struct ipcperf_proc_row *row)
{
	return add_proc(ctx, row);
}

static int cmp_thr(const void *a, const void *b)
{
	const struct thr *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void meta_event(struct flowout_trace *t, const char *what, pid_t pid, pid_t tid,
		       const char *name)
{
	ev_begin(t, 'M', pid, tid);
	fprintf(t->f, ",\"ts\":0,\"name\":\"%s\",\"args\":{\"name\":", what);
	json_write_string(t->f, name);
	fputs("}}", t->f);
}

int flowout_trace_finish(struct flowout_trace *t)
{
	struct flowout names = { 0 };
	struct thr *v = NULL;
	size_t n = 0;

	if (t->st)
		ipcperf_stats__settle_calls(t->st);
	flush_counter(t);
	/* Names: processes from the stats (their last comm), threads from what they were called. */
	if (t->st)
		ipcperf_stats__for_each_proc(t->st, meta_proc, &names);
	if (t->nr_thr)
		v = malloc(t->nr_thr * sizeof(*v));
	if (v) {
		n = t->nr_thr;
		memcpy(v, t->thr, n * sizeof(*v));
		qsort(v, n, sizeof(*v), cmp_thr);
	}
	for (size_t i = 0; i < n; i++) {
		const char *pcomm = flowout_comm(&names, v[i].pid);
		char buf[TRACE_NAME_LEN];

		if (!strcmp(pcomm, "?"))
			pcomm = NULL;
		if (i == 0 || v[i - 1].pid != v[i].pid) {
			const struct thr *main_thr = thr_get(t, v[i].pid, false);

			if (!pcomm && main_thr && main_thr->comm[0])
				pcomm = main_thr->comm;
			snprintf(buf, sizeof(buf), "%s", pcomm ? pcomm : "?");
			meta_event(t, "process_name", v[i].pid, v[i].pid, buf);
		}
		snprintf(buf, sizeof(buf), "%s", v[i].comm[0] ? v[i].comm : pcomm ? pcomm : "?");
		meta_event(t, "thread_name", v[i].pid, v[i].tid, buf);
	}
	free(v);
	flowout_free(&names);
	fputs("\n]}\n", t->f);
	if (fflush(t->f) != 0 || ferror(t->f))
		return -EIO;
	return 0;
}
