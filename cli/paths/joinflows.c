/*
 * ipcperf report --view flows -i A -i B ...: the flows of the captures of
 * several hosts, joined by paths' two passes (joinrun.c). Each host's
 * flows as its own report gives them, its processes named with their host
 * (proxy@front); a TCP connection seen from two hosts is left out there
 * and given once, a flow a direction (ipcperf_paths__for_each_joined()):
 * the bytes both ends agree on, and the wire times on the first host's
 * clock, +- what the two hosts' clocks are known to.
 */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cmds.h"
#include "flowout.h"
#include "joinrun.h"
#include "util.h"

/* A joined flow, copied out of the walk (whose data lives for the call). */
struct jflow {
	struct ipcperf_joined_flow f;
	char object[128];
	char wcomm[IPCPERF_COMM_LEN], rcomm[IPCPERF_COMM_LEN];
	uint64_t pm;			/* its wire times' +-: the two hosts' clocks' */
};

struct jflows_run {
	const struct report_opts *o;
	const struct paths_join_view *v;
	struct jflow *jf;
	size_t n, cap;
	unsigned int host;		/* the host whose flows are loaded */
	struct cli_out out;
};

static int copy_joined(void *ctx, const struct ipcperf_joined_flow *f)
{
	struct jflows_run *r = ctx;
	const struct paths_host *h = r->v->hosts;
	struct jflow *d;

	if (cli_grow((void **)&r->jf, &r->cap, r->n + 1, sizeof(*d)) < 0)
		return -ENOMEM;
	d = &r->jf[r->n++];
	d->f = *f;
	snprintf(d->object, sizeof(d->object), "%s", f->object);
	snprintf(d->wcomm, sizeof(d->wcomm), "%s", f->writer.comm);
	snprintf(d->rcomm, sizeof(d->rcomm), "%s", f->reader.comm);
	d->f.object = d->object;
	d->f.writer.comm = d->wcomm;
	d->f.reader.comm = d->rcomm;
	d->f.wire_hist = NULL;
	d->pm = f->writer.host < r->v->n && f->reader.host < r->v->n ?
		h[f->writer.host].uncertainty_ns + h[f->reader.host].uncertainty_ns : 0;
	return 0;
}

/* A flow of host r->host that is the half of a joined one: given once, joined. */
static bool not_joined(void *ctx, const struct ipcperf_flow *f)
{
	const struct jflows_run *r = ctx;

	for (size_t i = 0; i < r->n; i++) {
		const struct ipcperf_joined_flow *j = &r->jf[i].f;

		if ((f->ino && j->writer.host == r->host && j->writer.ino == f->ino) ||
		    (f->reader_ino && j->reader.host == r->host && j->reader.ino == f->reader_ino))
			return false;
	}
	return true;
}

/* Host @i's flows less the joined ones' halves. @return 0, or -errno. */
static int load_host(struct jflows_run *r, size_t i, struct flowout *fo)
{
	r->host = (unsigned int)i;
	return flowout_load_kept(fo, r->v->fl[i], r->v->st[i], not_joined, r);
}

/* Its processes named with their host: "proxy@front". @return 0, or -ENOMEM. */
static int name_hosts(struct flowout *fo, const char *host)
{
	for (size_t i = 0; i < fo->nr_procs; i++) {
		char *c;

		if (asprintf(&c, "%s@%s", fo->procs[i].comm, host) < 0)
			return -ENOMEM;
		free(fo->procs[i].comm);
		fo->procs[i].comm = c;
	}
	return 0;
}

/* The name of @e's host ("" when there is no such host). */
static const char *host_name(const struct paths_join_view *v, const struct ipcperf_joined_end *e)
{
	return e->host < v->n ? v->hosts[e->host].ci.host : "";
}

/* ------------------------------------------------------------------ text */

/* "5589 proxy@front", escaped. */
static const char *end_str(char *b, size_t len, const struct paths_join_view *v,
			   const struct ipcperf_joined_end *e)
{
	char c[CLI_ESC_LEN(IPCPERF_COMM_LEN)], h[CLI_ESC_LEN(IPCPERF_HOST_MAX)];

	snprintf(b, len, "%d %s@%s", (int)e->pid, cli_esc(c, sizeof(c), *e->comm ? e->comm : "?"),
		 cli_esc(h, sizeof(h), host_name(v, e)));
	return b;
}

/* A joined flow's cells: writer, reader, object, bytes, wire p50, wire p99. */
#define JCOLS 6
#define JCELL 160

static void joined_cells(char (*c)[JCELL], const struct jflows_run *r, const struct jflow *j)
{
	char a[32], u[32];

	end_str(c[0], JCELL, r->v, &j->f.writer);
	end_str(c[1], JCELL, r->v, &j->f.reader);
	cli_esc(c[2], JCELL, j->object);
	snprintf(c[3], JCELL, "%" PRIu64, j->f.bytes);
	fmt_ns(u, sizeof(u), j->pm);
	snprintf(c[4], JCELL, "%s +-%s", fmt_ns(a, sizeof(a), j->f.wire_ns.p50), u);
	snprintf(c[5], JCELL, "%s +-%s", fmt_ns(a, sizeof(a), j->f.wire_ns.p99), u);
}

static void joined_row(FILE *f, char (*c)[JCELL], const int *w)
{
	fprintf(f, "%-*s  %s  %-*s  %-*s  %*s  %*s  %*s\n", w[0], c[0], strcmp(c[0], "writer") ? "->" : "  ",
		w[1], c[1], w[2], c[2], w[3], c[3], w[4], c[4], w[5], c[5]);
}

static void text_joined(FILE *f, const struct jflows_run *r)
{
	char head[JCOLS][JCELL] = { "writer", "reader", "object", "bytes", "wire p50", "wire p99" };
	char (*c)[JCOLS][JCELL] = calloc(r->n + 1, sizeof(*c));
	int w[JCOLS] = { 0 };

	fprintf(f, "\nbetween the hosts: TCP connections seen from both ends, a flow a direction; "
		"wire times on %s's clock, +- what the clocks are known to\n\n",
		r->v->hosts[0].ci.host);
	if (!r->n || !c) {
		fprintf(f, "(none)\n");
		free(c);
		return;
	}
	memcpy(c[0], head, sizeof(head));
	for (size_t i = 0; i < r->n; i++)
		joined_cells(c[i + 1], r, &r->jf[i]);
	for (size_t i = 0; i <= r->n; i++)
		for (int k = 0; k < JCOLS; k++)
			if ((int)strlen(c[i][k]) > w[k])
				w[k] = (int)strlen(c[i][k]);
	for (size_t i = 0; i <= r->n; i++)
		joined_row(f, c[i], w);
	free(c);
}

/* One host's flows as a table. @return 0, or -errno. */
static int text_host(FILE *f, struct jflows_run *r, size_t i)
{
	struct ipcperf_session_stats st = { .sz = sizeof(st) };
	struct flowout fo;
	int err = load_host(r, i, &fo);

	if (err < 0 || (err = name_hosts(&fo, r->v->hosts[i].ci.host)) < 0) {
		flowout_free(&fo);
		return err;
	}
	ipcperf_session__stats(r->v->s[i], &st);
	fo.per_flow = true;
	fprintf(f, "%shost %s (%s), %.3f s\n\n", i ? "\n" : "", r->v->hosts[i].ci.host,
		r->v->inputs[i], (st.stop_ns > st.start_ns ? st.stop_ns - st.start_ns : 0) / 1e9);
	if (fo.nr_flows)
		flowout_text(f, &fo, st.stop_ns > st.start_ns ? st.stop_ns - st.start_ns : 0);
	else
		fprintf(f, "(no flows of its own: its connections to the other hosts are below)\n");
	flowout_free(&fo);
	return 0;
}

static int text_report(struct jflows_run *r, const struct cli_summary *sum)
{
	FILE *f = r->out.f;
	int err = 0;

	fprintf(f, "ipcperf flows: %zu hosts joined (", r->v->n);
	for (size_t i = 0; i < r->v->n; i++) {
		char h[CLI_ESC_LEN(IPCPERF_HOST_MAX)];

		fprintf(f, "%s%s", i ? ", " : "", cli_esc(h, sizeof(h), r->v->hosts[i].ci.host));
	}
	fprintf(f, ")\n\n");
	for (size_t i = 0; i < r->v->n && err == 0; i++)
		err = text_host(f, r, i);
	if (err < 0)
		return err;
	text_joined(f, r);
	paths_text_hosts(f, r->v->hosts, r->v->inputs, r->v->n, r->v->ps);
	fprintf(f, "\nlost events: %" PRIu64 ", unpaired syscalls: %" PRIu64 "\n", sum->lost,
		sum->unpaired);
	return 0;
}

/* ------------------------------------------------------------------ JSON */

/* Host @i: its name, capture, clock, losses, processes and flows. @return 0, or -errno. */
static int json_host(struct json *j, struct jflows_run *r, size_t i)
{
	const struct paths_host *h = &r->v->hosts[i];
	struct ipcperf_session_stats st = { .sz = sizeof(st) };
	struct flowout fo;
	int err = load_host(r, i, &fo);

	if (err < 0)
		return err;
	ipcperf_session__stats(r->v->s[i], &st);
	json_object_begin(j, NULL);
	json_str(j, "name", h->ci.host);
	json_str(j, "input", r->v->inputs[i]);
	pathsout_json_clock(j, h);
	json_u64(j, "duration_ns", st.stop_ns > st.start_ns ? st.stop_ns - st.start_ns : 0);
	json_u64(j, "lost_events", st.lost);
	json_array_begin(j, "processes");
	err = ipcperf_stats__for_each_proc(r->v->st[i], flowout_json_proc, j);
	json_array_end(j);
	flowout_snapshot_json(j, &fo);
	json_object_end(j);
	flowout_free(&fo);
	return err < 0 ? err : 0;
}

static void json_end(struct json *j, const char *key, const struct paths_join_view *v,
		     const struct ipcperf_joined_end *e)
{
	json_object_begin(j, key);
	json_str(j, "host", host_name(v, e));
	json_i64(j, "pid", e->pid);
	json_str(j, "comm", e->comm);
	json_i64(j, "fd", e->fd);
	json_u64(j, "ino", e->ino);
	json_object_end(j);
}

static void json_joined(struct json *j, const struct jflows_run *r, const struct jflow *jf)
{
	const struct ipcperf_joined_flow *f = &jf->f;
	char name[2 * (IPCPERF_COMM_LEN + IPCPERF_HOST_MAX) + 8];

	snprintf(name, sizeof(name), "%s@%s -> %s@%s", f->writer.comm, host_name(r->v, &f->writer),
		 f->reader.comm, host_name(r->v, &f->reader));
	json_object_begin(j, NULL);
	json_str(j, "name", name);
	json_str(j, "object", f->object);
	json_str(j, "kind", "tcp");
	json_end(j, "writer", r->v, &f->writer);
	json_end(j, "reader", r->v, &f->reader);
	json_u64(j, "bytes", f->bytes);
	json_u64(j, "matches", f->matches);
	json_spread(j, "wire_ns", f->wire_ns.min, f->wire_ns.p50, f->wire_ns.p99, f->wire_ns.max);
	json_u64(j, "uncertainty_ns", jf->pm);
	json_u64(j, "first_ns", f->first_ns);
	json_u64(j, "last_ns", f->last_ns);
	json_object_end(j);
}

static int json_report(struct jflows_run *r, const struct cli_summary *sum)
{
	const struct ipcperf_paths_stats *ps = r->v->ps;
	struct json j;
	int err = 0;

	json_init(&j, r->out.f, true);
	json_doc_begin(&j);
	json_doc_summary(&j, sum);
	json_array_begin(&j, "hosts");
	for (size_t i = 0; i < r->v->n && err == 0; i++)
		err = json_host(&j, r, i);
	json_array_end(&j);
	json_array_begin(&j, "joined_flows");
	for (size_t i = 0; i < r->n; i++)
		json_joined(&j, r, &r->jf[i]);
	json_array_end(&j);
	json_object_begin(&j, "tcp_between_hosts");
	json_u64(&j, "joined", ps->tcp_joined);
	json_u64(&j, "unseen_start", ps->tcp_unseen_start);
	json_u64(&j, "no_peer", ps->tcp_no_peer);
	json_object_end(&j);
	json_object_end(&j);
	json_end_document(&j);
	return err;
}

/* ------------------------------------------------------------------ the run */

static int jflows_report(void *ctx, const struct paths_join_view *v)
{
	struct jflows_run *r = ctx;
	struct cli_summary sum;
	int err;

	/* opened once the captures are joined: a join that fails leaves no empty file */
	if (cli_out_open(&r->out, r->o->output, "the output") < 0)
		return -1;
	r->v = v;
	paths_join_summary(v->s, v->n, &sum);
	err = ipcperf_paths__for_each_joined(v->pa, copy_joined, r);
	if (err >= 0)
		err = r->o->json ? json_report(r, &sum) : text_report(r, &sum);
	if (err < 0) {
		cli_err("cannot collect the flows: %s", strerror(-err));
		return -1;
	}
	if (sum.lost)
		cli_err("warning: %" PRIu64 " events lost: flows are incomplete and their counts "
			"lower bounds", sum.lost);
	return 0;
}

int paths_join_flows(const struct report_opts *o)
{
	struct paths_opts po = {
		.t = { .input = o->input, .output = o->output },
		.inputs = o->inputs,
		.json = o->json,
		.quiet = true,
		.verbose = o->verbose,
	};
	struct jflows_run r = { .o = o };
	bool failed = true;

	failed = paths_join_view(&po, jflows_report, &r) < 0;
	failed |= cli_out_close(&r.out) < 0;
	free(r.jf);
	return failed ? EXIT_RUNTIME : EXIT_OK;
}
