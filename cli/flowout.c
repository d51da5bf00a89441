/*
 * IPC flows as text, for ipcperf flows and stat --flows: a snapshot of the
 * flows and of the names of their processes, the table, the bottlenecks.
 * The JSON is flowout-json.c's; flows' graph and timeline are in flows/.
 */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "flowout.h"
#include "util.h"

/* ------------------------------------------------------------------ snapshot */

struct load_ctx {
	struct flowout *fo;
	int err;
	bool groups_only;	/* the flows into their groups, not copied */
	size_t seen;		/* flows walked */
	flowout_keep_fn keep;	/* NULL: every flow */
	void *keep_ctx;
};

static int load_flow(void *ctx, const struct ipcperf_flow *f)
{
	struct load_ctx *lc = ctx;
	struct flowout *fo = lc->fo;
	struct flowout_flow *d;
	struct flowpeer fold;
	int err;

	if (lc->keep && !lc->keep(lc->keep_ctx, f))
		return 0;
	if (lc->groups_only) {
		if (flowgroups_add(&fo->groups, f, flowpeers_of(&fo->peers, f, &fold), ++lc->seen) < 0)
			return lc->err = -ENOMEM;
		return 0;
	}
	if (cli_grow((void **)&fo->flows, &fo->cap_flows, fo->nr_flows + 1, sizeof(*d)) < 0)
		return lc->err = -ENOMEM;
	d = &fo->flows[fo->nr_flows];
	memset(d, 0, sizeof(*d));
	/* without wire_hist, which lives only for the call: its group has it */
	err = flowcopy_set(&d->c, f);
	d->endpoint = strdup(f->endpoint ? f->endpoint : "");
	fo->nr_flows++;		/* counted now, so that flowout_free() frees what was copied */
	if (err < 0 || !d->endpoint)
		return lc->err = -ENOMEM;
	d->c.f.endpoint = d->endpoint;
	d->rank = fo->nr_flows;
	if (flowgroups_add(&fo->groups, f, flowpeers_of(&fo->peers, f, &fold), d->rank) < 0)
		return lc->err = -ENOMEM;
	return 0;
}

/* Append a copy of @row's pid and comm to @fo's processes (which come in pid order). */
int flowout_add_proc(struct flowout *fo, const struct ipcperf_proc_row *row)
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
	int err = flowout_add_proc(lc->fo, row);

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

	return flowgroup_cmp_stage(&x->c.f, x->rank, &y->c.f, y->rank);
}

/* What load() walks: the flows and bottlenecks; an interval's flows, settling nothing or all. */
enum load_walk { LOAD_RUN, LOAD_INTERVAL_SETTLED, LOAD_INTERVAL_LAST };

static int load(struct flowout *fo, struct ipcperf_flows *fl, struct ipcperf_stats *st,
		bool groups_only, enum load_walk walk, struct load_ctx lc)
{
	int err;

	lc.fo = fo;
	lc.groups_only = groups_only;

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
	return load(fo, fl, st, false, LOAD_RUN, (struct load_ctx){ 0 });
}

int flowout_load_kept(struct flowout *fo, struct ipcperf_flows *fl, struct ipcperf_stats *st,
		      flowout_keep_fn keep, void *ctx)
{
	return load(fo, fl, st, false, LOAD_RUN,
		    (struct load_ctx){ .keep = keep, .keep_ctx = ctx });
}

int flowout_load_groups(struct flowout *fo, struct ipcperf_flows *fl, struct ipcperf_stats *st)
{
	return load(fo, fl, st, true, LOAD_RUN, (struct load_ctx){ 0 });
}

int flowout_load_interval(struct flowout *fo, struct ipcperf_flows *fl, struct ipcperf_stats *st,
			  bool last)
{
	return load(fo, fl, st, false, last ? LOAD_INTERVAL_LAST : LOAD_INTERVAL_SETTLED,
		    (struct load_ctx){ 0 });
}

void flowout_free(struct flowout *fo)
{
	for (size_t i = 0; i < fo->nr_flows; i++) {
		flowcopy_free(&fo->flows[i].c);
		free(fo->flows[i].endpoint);
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

const char *flowout_comm(const struct flowout *fo, pid_t pid)
{
	size_t i;

	if (cli_bsearch(&pid, fo->procs, fo->nr_procs, sizeof(*fo->procs), cli_cmp_pid_key, &i))
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
		enum ipcperf_verdict v = fo->flows[i].c.f.verdict;
		bool clear = fo->flows[i].c.f.marginal == IPCPERF_VERDICT_BALANCED;

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
	struct flowpeer fold;
	const struct flowpeer *peer = flowpeers_of(&fo->peers, fw, &fold);
	uint64_t bytes = flowgroup_bytes(fw);

	side_str(row[COL_W], sizeof(row[COL_W]), fo, fw->writers, fw->nr_writers, peer, true);
	snprintf(row[COL_ARROW], sizeof(row[COL_ARROW]), "->");
	side_str(row[COL_R], sizeof(row[COL_R]), fo, fw->readers, fw->nr_readers, peer, false);
	if (fw->folded)	/* a fold: the closed channels of one group */
		snprintf(row[COL_OBJ], sizeof(row[COL_OBJ]), "%" PRIu64 " closed", fw->folded);
	else
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
	const struct ipcperf_flow *fw = &g->c.f;
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
		if (fo->flows[i].c.f.verdict == IPCPERF_VERDICT_UNMEASURED)
			return true;
	return false;
}

/* The rows of the table, per flow or per group, into @cell; @any: the optional columns' use. */
static size_t fill_rows(char (*cell)[NR_COLS][CELL_LEN], const struct flowout *fo,
			uint64_t duration_ns, bool *any_unmatched, bool *any_evloop)
{
	size_t n = fo->per_flow ? fo->nr_flows : fo->groups.n;

	for (size_t i = 0; i < n; i++) {
		const struct ipcperf_flow *fw = fo->per_flow ? &fo->flows[i].c.f : &fo->groups.v[i].c.f;

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
