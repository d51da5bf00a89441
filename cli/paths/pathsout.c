/* Renderers of request paths: shapes, the text blocks, the JSON document. */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "pathsout.h"

/* The most bytes a shape's name takes ("client -> proxy -> backend"). */
#define SHAPE_LEN 256

/* The values of one figure over the requests of a shape, exact. */
struct vals {
	uint64_t *v;
	size_t n, cap;
	uint64_t sum;
	bool sorted;
};

struct hopstat {
	char comm[CLI_ESC_LEN(IPCPERF_COMM_LEN)];
	int parent;
	enum ipcperf_fd_kind kind;
	struct vals req, self, resp;
	/* the self time split: by every request of the shape (split), else not shown */
	struct vals cpu, runq, blocked;
	bool unsplit;
	unsigned int host, caller_host;	/* captures joined: the server's, the caller's */
};

struct shape {
	char name[SHAPE_LEN];
	size_t nr_hops;
	struct hopstat *hops;
	struct vals e2e;
};

/* One request kept for --requests: the path and its hops, copied. */
struct kept {
	struct ipcperf_path path;
	struct ipcperf_path_hop *hops;
	char (*comms)[IPCPERF_COMM_LEN];	/* [0] the originator's, then each hop's */
	size_t shape;
};

struct pathsout {
	bool keep, failed;
	struct shape *shapes;
	size_t nr, cap;
	struct kept *reqs;
	size_t nr_reqs, cap_reqs;
	const struct paths_host *hosts;	/* captures joined: pathsout_set_hosts() */
	size_t nr_hosts;
};

void pathsout_set_hosts(struct pathsout *po, const struct paths_host *hosts, size_t n)
{
	po->hosts = hosts;
	po->nr_hosts = n;
}

const char *pathsout_host(const struct pathsout *po, unsigned int host)
{
	return po->nr_hosts > 1 && host < po->nr_hosts ? po->hosts[host].ci.host : NULL;
}

/* @comm, escaped, and with captures joined its host: "backend@web-2". */
static const char *who(const struct pathsout *po, const char *comm, unsigned int host, char *b,
		       size_t len)
{
	char esc[CLI_ESC_LEN(IPCPERF_COMM_LEN)], hesc[CLI_ESC_LEN(IPCPERF_HOST_MAX)];

	cli_esc(esc, sizeof(esc), *comm ? comm : "?");
	if (po->nr_hosts > 1 && host < po->nr_hosts)
		snprintf(b, len, "%s@%s", esc, cli_esc(hesc, sizeof(hesc), po->hosts[host].ci.host));
	else
		snprintf(b, len, "%s", esc);
	return b;
}

/* The channel times' uncertainty of a hop between hosts @a and @b: their clocks' against host 0. */
static uint64_t hop_pm(const struct pathsout *po, unsigned int a, unsigned int b)
{
	if (a == b || a >= po->nr_hosts || b >= po->nr_hosts)
		return 0;
	return po->hosts[a].uncertainty_ns + po->hosts[b].uncertainty_ns;
}

struct pathsout *pathsout_new(bool keep)
{
	struct pathsout *po = calloc(1, sizeof(*po));

	if (po)
		po->keep = keep;
	return po;
}

void pathsout_delete(struct pathsout *po)
{
	if (!po)
		return;
	for (size_t i = 0; i < po->nr; i++) {
		struct shape *s = &po->shapes[i];

		for (size_t h = 0; h < s->nr_hops; h++) {
			free(s->hops[h].req.v);
			free(s->hops[h].self.v);
			free(s->hops[h].resp.v);
			free(s->hops[h].cpu.v);
			free(s->hops[h].runq.v);
			free(s->hops[h].blocked.v);
		}
		free(s->hops);
		free(s->e2e.v);
	}
	for (size_t i = 0; i < po->nr_reqs; i++) {
		free(po->reqs[i].hops);
		free(po->reqs[i].comms);
	}
	free(po->shapes);
	free(po->reqs);
	free(po);
}

size_t pathsout_nr_requests(const struct pathsout *po)
{
	return po->nr_reqs;
}

const struct ipcperf_path *pathsout_request(const struct pathsout *po, size_t i)
{
	return &po->reqs[i].path;
}

bool pathsout_failed(const struct pathsout *po)
{
	return po->failed;
}

/* Make room for one more element of @size in *@v (*@n used of *@cap). @return 0, or -1. */
static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	size_t c = *cap ? 2 * *cap : 16;
	void *nv;

	if (n < *cap)
		return 0;
	nv = realloc(*v, c * size);
	if (!nv)
		return -1;
	*v = nv;
	*cap = c;
	return 0;
}

static int vals_add(struct vals *a, uint64_t v)
{
	if (grow((void **)&a->v, &a->cap, a->n, sizeof(*a->v)) < 0)
		return -1;
	a->v[a->n++] = v;
	a->sum += v;
	a->sorted = false;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The value at quantile @q (nearest rank), of values sorted on demand. */
static uint64_t quantile(const struct vals *c, double q)
{
	struct vals *a = (struct vals *)c;
	size_t rank;

	if (!a->n)
		return 0;
	if (!a->sorted) {
		qsort(a->v, a->n, sizeof(*a->v), cmp_u64);
		a->sorted = true;
	}
	rank = (size_t)(q * (double)a->n + 0.999999);
	return a->v[rank ? rank - 1 : 0];
}

/* The subtree of hop @i into @b (of @len, at *@at): "proxy -> backend", "a -> (b, c)". */
static void name_tree(const struct pathsout *po, const struct ipcperf_path *p, size_t i, char *b,
		      size_t len, size_t *at)
{
	char esc[CLI_ESC_LEN(IPCPERF_COMM_LEN + IPCPERF_HOST_MAX)];
	size_t kids = 0, seen = 0;

	for (size_t k = i + 1; k < p->nr_hops; k++)
		kids += p->hops[k].parent == (int)i;
	*at += (size_t)snprintf(b + *at, *at < len ? len - *at : 0, "%s",
				who(po, p->hops[i].comm, p->hops[i].host, esc, sizeof(esc)));
	if (*at >= len)
		return;
	if (kids)
		*at += (size_t)snprintf(b + *at, len - *at, kids > 1 ? " -> (" : " -> ");
	for (size_t k = i + 1; k < p->nr_hops && *at < len; k++) {
		if (p->hops[k].parent != (int)i)
			continue;
		if (seen++)
			*at += (size_t)snprintf(b + *at, len - *at, ", ");
		if (*at < len)
			name_tree(po, p, k, b, len, at);
	}
	if (kids > 1 && *at < len)
		*at += (size_t)snprintf(b + *at, len - *at, ")");
}

static void shape_name(const struct pathsout *po, const struct ipcperf_path *p, char *b,
		       size_t len)
{
	char esc[CLI_ESC_LEN(IPCPERF_COMM_LEN + IPCPERF_HOST_MAX)];
	size_t at = (size_t)snprintf(b, len, "%s -> ", who(po, p->comm, p->host, esc, sizeof(esc)));

	if (at < len)
		name_tree(po, p, 0, b, len, &at);
}

/* The shape of @p: found, or added. @return its index, or -1 (out of memory). */
static long shape_of(struct pathsout *po, const struct ipcperf_path *p)
{
	char name[SHAPE_LEN];
	struct shape *s;

	shape_name(po, p, name, sizeof(name));
	for (size_t i = 0; i < po->nr; i++)
		if (po->shapes[i].nr_hops == p->nr_hops && !strcmp(po->shapes[i].name, name))
			return (long)i;
	if (grow((void **)&po->shapes, &po->cap, po->nr, sizeof(*po->shapes)) < 0)
		return -1;
	s = &po->shapes[po->nr];
	*s = (struct shape){ .nr_hops = p->nr_hops };
	s->hops = calloc(p->nr_hops, sizeof(*s->hops));
	if (!s->hops)
		return -1;
	memcpy(s->name, name, sizeof(name));
	for (size_t h = 0; h < p->nr_hops; h++) {
		s->hops[h].parent = p->hops[h].parent;
		s->hops[h].kind = p->hops[h].kind;
		s->hops[h].host = p->hops[h].host;
		s->hops[h].caller_host = p->hops[h].caller_host;
		cli_esc(s->hops[h].comm, sizeof(s->hops[h].comm),
			*p->hops[h].comm ? p->hops[h].comm : "?");
	}
	return (long)po->nr++;
}

static int keep(struct pathsout *po, const struct ipcperf_path *p, size_t shape)
{
	struct kept *k;

	if (grow((void **)&po->reqs, &po->cap_reqs, po->nr_reqs, sizeof(*po->reqs)) < 0)
		return -1;
	k = &po->reqs[po->nr_reqs];
	*k = (struct kept){ .path = *p, .shape = shape };
	k->hops = malloc(p->nr_hops * sizeof(*k->hops));
	k->comms = calloc(p->nr_hops + 1, sizeof(*k->comms));
	if (!k->hops || !k->comms) {
		free(k->hops);
		free(k->comms);
		return -1;
	}
	memcpy(k->hops, p->hops, p->nr_hops * sizeof(*k->hops));
	snprintf(k->comms[0], sizeof(k->comms[0]), "%s", p->comm);
	k->path.comm = k->comms[0];
	for (size_t h = 0; h < p->nr_hops; h++) {
		snprintf(k->comms[h + 1], sizeof(k->comms[0]), "%s", p->hops[h].comm);
		k->hops[h].comm = k->comms[h + 1];
	}
	k->path.hops = k->hops;
	po->nr_reqs++;
	return 0;
}

/* @h's self time split, into @hs; a hop not split makes its shape's hop not split. */
static int add_split(struct hopstat *hs, const struct ipcperf_path_hop *h)
{
	if (!h->split) {
		hs->unsplit = true;
		return 0;
	}
	return vals_add(&hs->cpu, h->cpu_ns) | vals_add(&hs->runq, h->runq_ns) |
	       vals_add(&hs->blocked, h->blocked_ns);
}

void pathsout_add(void *ctx, const struct ipcperf_path *p)
{
	struct pathsout *po = ctx;
	long i = p->nr_hops ? shape_of(po, p) : -1;
	struct shape *s;
	int err = 0;

	if (i < 0) {
		po->failed = true;
		return;
	}
	s = &po->shapes[i];
	err |= vals_add(&s->e2e, p->end_ns - p->start_ns);
	for (size_t h = 0; h < p->nr_hops; h++) {
		err |= vals_add(&s->hops[h].req, p->hops[h].request_ns);
		err |= vals_add(&s->hops[h].self, p->hops[h].self_ns);
		err |= vals_add(&s->hops[h].resp, p->hops[h].response_ns);
		err |= add_split(&s->hops[h], &p->hops[h]);
	}
	if (po->keep)
		err |= keep(po, p, (size_t)i);
	if (err)
		po->failed = true;
}

/* ------------------------------------------------------------------ where the time goes */

/* The largest part of a shape's time: a hop's self time, or the channels all together. */
struct most {
	long hop;		/* -1: the channels */
	uint64_t ns;		/* over all its requests */
};

static struct most most_of(const struct shape *s)
{
	struct most m = { .hop = -1 };
	uint64_t chan = 0;

	for (size_t h = 0; h < s->nr_hops; h++) {
		chan += s->hops[h].req.sum + s->hops[h].resp.sum;
		if (m.hop < 0 || s->hops[h].self.sum > m.ns) {
			m.hop = (long)h;
			m.ns = s->hops[h].self.sum;
		}
	}
	if (chan > m.ns)
		m = (struct most){ .hop = -1, .ns = chan };
	return m;
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* ------------------------------------------------------------------ text */

/* "p50 / p99", in a column of 19 unless @last. */
static void put_pair(FILE *f, const struct vals *v, bool last)
{
	char a[16], b[16], cell[40];

	snprintf(cell, sizeof(cell), "%s / %s", fmt_ns(a, sizeof(a), quantile(v, 0.5)),
		 fmt_ns(b, sizeof(b), quantile(v, 0.99)));
	fprintf(f, last ? "  %s" : "  %-19s", cell);
}

/* The hop's self time by state, p50s, under its line. */
static void text_split(FILE *f, const struct hopstat *hs)
{
	char a[16], b[16], c[16];

	if (hs->unsplit || !hs->cpu.n)
		return;
	fprintf(f, "  %-22s  self p50: cpu %s  runq %s  blocked %s\n", "",
		fmt_ns(a, sizeof(a), quantile(&hs->cpu, 0.5)),
		fmt_ns(b, sizeof(b), quantile(&hs->runq, 0.5)),
		fmt_ns(c, sizeof(c), quantile(&hs->blocked, 0.5)));
}

static void text_shape(FILE *f, const struct pathsout *po, const struct shape *s)
{
	char a[16], b[16], c[16];
	struct most m = most_of(s);

	fprintf(f, "\n%s: %zu requests\n", s->name, s->e2e.n);
	fprintf(f, "  end to end  p50 %s  p99 %s  max %s\n", fmt_ns(a, sizeof(a), quantile(&s->e2e, 0.5)),
		fmt_ns(b, sizeof(b), quantile(&s->e2e, 0.99)), fmt_ns(c, sizeof(c), quantile(&s->e2e, 1.0)));
	fprintf(f, "  %-22s  %-19s  %-19s  %s\n", "hop (channel)", "request p50 / p99",
		"self p50 / p99", "response p50 / p99");
	for (size_t h = 0; h < s->nr_hops; h++) {
		char label[96], name[CLI_ESC_LEN(IPCPERF_COMM_LEN + IPCPERF_HOST_MAX)];
		const struct hopstat *hs = &s->hops[h];
		uint64_t pm = hop_pm(po, hs->host, hs->caller_host);

		snprintf(label, sizeof(label), "%*s%s (%s)", hs->parent < 0 ? 0 : 2, "",
			 who(po, hs->comm, hs->host, name, sizeof(name)), ipcperf_fd_kind_name(hs->kind));
		fprintf(f, "  %-22.22s", label);
		put_pair(f, &hs->req, false);
		put_pair(f, &hs->self, false);
		put_pair(f, &hs->resp, true);
		fputc('\n', f);
		if (hs->host != hs->caller_host)
			fprintf(f, "  %-22s  request and response each +-%s (the hosts' clocks)\n", "",
				fmt_ns(name, sizeof(name), pm));
		text_split(f, hs);
	}
	if (m.hop >= 0)
		fprintf(f, "  most time: %s's own time, %.0f%% of the requests' time\n",
			s->hops[m.hop].comm, share(m.ns, s->e2e.sum));
	else
		fprintf(f, "  most time: in the channels, %.0f%% of the requests' time\n",
			share(m.ns, s->e2e.sum));
}

static uint64_t unattributed(const struct ipcperf_paths_stats *ps)
{
	return ps->no_response + ps->untraced_hop + ps->unread + ps->no_cause + ps->lost +
	       ps->late + ps->pipelined + ps->merged + ps->split + ps->untraced_client;
}

static void text_unattributed(FILE *f, const struct ipcperf_paths_stats *ps)
{
	if (!unattributed(ps))
		return;
	const struct { const char *what; uint64_t n; } why[] = {
		{ "no response", ps->no_response }, { "untraced hop", ps->untraced_hop },
		{ "response not read", ps->unread }, { "no cause", ps->no_cause },
		{ "events lost", ps->lost }, { "late", ps->late }, { "pipelined", ps->pipelined },
		{ "merged", ps->merged }, { "split", ps->split },
		{ "client not traced", ps->untraced_client },
	};
	const char *sep = "";

	/* the reasons that count, so that the line stays short */
	fprintf(f, "\nnot attributed: %" PRIu64 " (", unattributed(ps));
	for (size_t i = 0; i < sizeof(why) / sizeof(why[0]); i++) {
		if (!why[i].n)
			continue;
		fprintf(f, "%s%s %" PRIu64, sep, why[i].what, why[i].n);
		sep = ", ";
	}
	fputs(")\n", f);
	if (ps->untraced_client)
		fputs("  (client not traced: requests read from a client that is not traced; trace the\n"
		      "   clients too, with -p or -a, to follow them)\n", f);
	if (ps->merged || ps->split)
		fputs("  (merged, split: a stage of a pipeline passed on what it read joined or cut\n"
		      "   into other writes, as programs that buffer do: such messages are not followed)\n",
		      f);
}

/* The most requests first; of as many, the one seen first. */
static int cmp_count(const void *a, const void *b)
{
	const struct shape *x = *(const struct shape *const *)a, *y = *(const struct shape *const *)b;

	if (x->e2e.n != y->e2e.n)
		return x->e2e.n > y->e2e.n ? -1 : 1;
	return x < y ? -1 : x > y;
}

void pathsout_text(FILE *f, const struct pathsout *po, const char *what,
		   const struct ipcperf_paths_stats *ps, const struct cli_summary *sum)
{
	const struct shape *top = NULL, **order = calloc(po->nr + 1, sizeof(*order));
	struct most tm = { 0 };

	fprintf(f, "Request paths of %s: %" PRIu64 " requests in %zu shapes\n", what, ps->paths,
		po->nr);
	for (size_t i = 0; order && i < po->nr; i++)
		order[i] = &po->shapes[i];
	if (order)
		qsort(order, po->nr, sizeof(*order), cmp_count);
	for (size_t i = 0; i < po->nr; i++) {
		const struct shape *s = order ? order[i] : &po->shapes[i];
		struct most m = most_of(s);

		text_shape(f, po, s);
		if (!top || m.ns > tm.ns) {
			top = s;
			tm = m;
		}
	}
	free(order);
	text_unattributed(f, ps);
	fprintf(f, "\n%" PRIu64 " events lost\n", sum->lost);
	if (!top)
		fprintf(f, "most time: no request completed\n");
	else if (tm.hop >= 0)
		fprintf(f, "most time: %s's own time (%.0f%% of %s)\n", top->hops[tm.hop].comm,
			share(tm.ns, top->e2e.sum), top->name);
	else
		fprintf(f, "most time: the channels (%.0f%% of %s)\n", share(tm.ns, top->e2e.sum),
			top->name);
}

/* ------------------------------------------------------------------ JSON */

static void json_q(struct json *j, const char *key, const struct vals *v)
{
	json_object_begin(j, key);
	json_u64(j, "p50", quantile(v, 0.5));
	json_u64(j, "p99", quantile(v, 0.99));
	json_u64(j, "max", quantile(v, 1.0));
	json_u64(j, "sum", v->sum);
	json_object_end(j);
}

/* The self time split's quantiles; null when a request's hop was not split. */
static void json_split_q(struct json *j, const struct hopstat *hs)
{
	if (hs->unsplit || !hs->cpu.n) {
		json_null(j, "cpu_ns");
		json_null(j, "runq_ns");
		json_null(j, "blocked_ns");
		return;
	}
	json_q(j, "cpu_ns", &hs->cpu);
	json_q(j, "runq_ns", &hs->runq);
	json_q(j, "blocked_ns", &hs->blocked);
}

/* Captures joined: a hop's hosts, and its channel times' uncertainty (their clocks'). */
static void json_hosts(struct json *j, const struct pathsout *po, unsigned int host,
		       unsigned int caller)
{
	if (po->nr_hosts < 2 || host >= po->nr_hosts || caller >= po->nr_hosts)
		return;
	json_str(j, "host", po->hosts[host].ci.host);
	json_str(j, "caller_host", po->hosts[caller].ci.host);
	json_u64(j, "channel_uncertainty_ns", hop_pm(po, host, caller));
}

static void json_shape(struct json *j, const struct pathsout *po, const struct shape *s)
{
	struct most m = most_of(s);

	json_object_begin(j, NULL);
	json_str(j, "shape", s->name);
	json_u64(j, "count", s->e2e.n);
	json_q(j, "end_to_end_ns", &s->e2e);
	json_array_begin(j, "hops");
	for (size_t h = 0; h < s->nr_hops; h++) {
		json_object_begin(j, NULL);
		json_str(j, "comm", s->hops[h].comm);
		json_i64(j, "parent", s->hops[h].parent);
		json_str(j, "kind", ipcperf_fd_kind_name(s->hops[h].kind));
		json_hosts(j, po, s->hops[h].host, s->hops[h].caller_host);
		json_q(j, "request_ns", &s->hops[h].req);
		json_q(j, "self_ns", &s->hops[h].self);
		json_q(j, "response_ns", &s->hops[h].resp);
		json_split_q(j, &s->hops[h]);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_begin(j, "most_time");
	if (m.hop >= 0)
		json_u64(j, "hop", (uint64_t)m.hop);
	else
		json_null(j, "hop");
	json_str(j, "what", m.hop >= 0 ? "self" : "channels");
	json_fixed(j, "percent", share(m.ns, s->e2e.sum), 1);
	json_object_end(j);
	json_object_end(j);
}

/* The thread of a request or a hop, and the fd it was served on. */
static void json_thread_fd(struct json *j, pid_t pid, pid_t tid, const char *comm, int fd)
{
	json_i64(j, "pid", pid);
	json_i64(j, "tid", tid);
	json_str(j, "comm", comm);
	json_i64(j, "fd", fd);
}

static void json_hop(struct json *j, const struct pathsout *po, const struct ipcperf_path_hop *h)
{
	const struct json_u64_row rows[] = {
		{ "request_bytes", h->request_bytes }, { "response_bytes", h->response_bytes },
		{ "call_start_ns", h->call_start_ns }, { "start_ns", h->start_ns }, { "end_ns", h->end_ns },
		{ "call_end_ns", h->call_end_ns }, { "request_ns", h->request_ns },
		{ "self_ns", h->self_ns }, { "response_ns", h->response_ns },
	};

	json_object_begin(j, NULL);
	json_i64(j, "parent", h->parent);
	json_hosts(j, po, h->host, h->caller_host);
	json_thread_fd(j, h->pid, h->tid, h->comm, h->fd);
	json_i64(j, "caller_pid", h->caller_pid);
	json_i64(j, "caller_tid", h->caller_tid);
	json_i64(j, "caller_fd", h->caller_fd);
	json_str(j, "kind", ipcperf_fd_kind_name(h->kind));
	json_u64_rows(j, rows, JSON_NROWS(rows));
	if (h->split) {
		json_u64(j, "cpu_ns", h->cpu_ns);
		json_u64(j, "runq_ns", h->runq_ns);
		json_u64(j, "blocked_ns", h->blocked_ns);
	} else {
		json_null(j, "cpu_ns");
		json_null(j, "runq_ns");
		json_null(j, "blocked_ns");
	}
	json_object_end(j);
}

static void json_request(struct json *j, const struct pathsout *po, const struct kept *k)
{
	json_object_begin(j, NULL);
	json_u64(j, "shape", k->shape);
	if (po->nr_hosts > 1 && k->path.host < po->nr_hosts)
		json_str(j, "host", po->hosts[k->path.host].ci.host);
	json_thread_fd(j, k->path.pid, k->path.tid, k->path.comm, k->path.fd);
	json_u64(j, "start_ns", k->path.start_ns);
	json_u64(j, "end_ns", k->path.end_ns);
	json_u64(j, "end_to_end_ns", k->path.end_ns - k->path.start_ns);
	json_array_begin(j, "hops");
	for (size_t h = 0; h < k->path.nr_hops; h++)
		json_hop(j, po, &k->hops[h]);
	json_array_end(j);
	json_object_end(j);
}

static void json_host(struct json *j, const struct paths_host *h)
{
	json_object_begin(j, NULL);
	json_str(j, "name", h->ci.host);
	if (h->ci.has_clock) {
		json_object_begin(j, "clock");
		json_u64(j, "mono_start_ns", h->ci.mono_start_ns);
		json_u64(j, "real_start_ns", h->ci.real_start_ns);
		json_u64(j, "mono_stop_ns", h->ci.mono_stop_ns);
		json_u64(j, "real_stop_ns", h->ci.real_stop_ns);
		json_object_end(j);
	} else {
		json_null(j, "clock");
	}
	if (h->joined)
		pathsout_json_clock(j, h);
	json_object_end(j);
}

void pathsout_json_clock(struct json *j, const struct paths_host *h)
{
	json_i64(j, "offset_ns", h->offset_ns);
	json_u64(j, "uncertainty_ns", h->uncertainty_ns);
	if (h->drifting) {
		json_i64(j, "drift_ppb", h->drift_ppb);
		json_u64(j, "drift_ref_ns", h->ref_ns);
	} else {
		json_null(j, "drift_ppb");
	}
}

void pathsout_json(FILE *f, const struct pathsout *po, const struct ipcperf_paths_stats *ps,
		   const struct cli_summary *sum, bool requests, const struct paths_host *hosts,
		   size_t nr_hosts)
{
	struct json j;

	json_init(&j, f, true);
	json_doc_begin(&j);
	json_doc_summary(&j, sum);
	json_array_begin(&j, "hosts");
	for (size_t i = 0; i < nr_hosts; i++)
		json_host(&j, &hosts[i]);
	json_array_end(&j);
	json_u64(&j, "requests", ps->paths);
	json_object_begin(&j, "unattributed");
	json_u64(&j, "no_response", ps->no_response);
	json_u64(&j, "untraced_hop", ps->untraced_hop);
	json_u64(&j, "unread", ps->unread);
	json_u64(&j, "no_cause", ps->no_cause);
	json_u64(&j, "lost", ps->lost);
	json_u64(&j, "late", ps->late);
	json_u64(&j, "pipelined", ps->pipelined);
	json_u64(&j, "merged", ps->merged);
	json_u64(&j, "split", ps->split);
	json_u64(&j, "untraced_client", ps->untraced_client);
	json_object_end(&j);
	if (po->nr_hosts > 1) {
		json_object_begin(&j, "tcp_between_hosts");
		json_u64(&j, "joined", ps->tcp_joined);
		json_u64(&j, "unseen_start", ps->tcp_unseen_start);
		json_u64(&j, "no_peer", ps->tcp_no_peer);
		json_object_end(&j);
	}
	json_array_begin(&j, "shapes");
	for (size_t i = 0; i < po->nr; i++)
		json_shape(&j, po, &po->shapes[i]);
	json_array_end(&j);
	if (requests) {
		json_array_begin(&j, "request_list");
		for (size_t i = 0; i < po->nr_reqs; i++)
			json_request(&j, po, &po->reqs[i]);
		json_array_end(&j);
	}
	json_object_end(&j);
	json_end_document(&j);
}

void paths_span_of(struct paths_span *s, const struct ipcperf_path *p, size_t req, size_t hop,
		   bool server)
{
	const struct ipcperf_path_hop *h = &p->hops[hop];

	*s = (struct paths_span){ .p = p, .req = req, .hop = hop, .server = server };
	if (server) {
		s->host = h->host;
		s->pid = h->pid, s->tid = h->tid, s->comm = h->comm, s->fd = h->fd;
		s->start_ns = h->start_ns, s->end_ns = h->end_ns;
		return;
	}
	s->host = h->caller_host;
	s->pid = h->caller_pid, s->tid = h->caller_tid, s->fd = h->caller_fd;
	s->comm = h->parent < 0 ? p->comm : p->hops[h->parent].comm;
	s->start_ns = h->call_start_ns, s->end_ns = h->call_end_ns;
}
