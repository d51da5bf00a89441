/* Request paths as a Chrome trace-event timeline: tracks, slices, flow arrows. */
#include "config.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "output.h"
#include "pathsout.h"
#include "perfettoout.h"
#include "util.h"

/*
 * Above any pid_max (2^22): a track of a thread past the first is tid +
 * lane * this; captures joined, a process of host k is pid + k * this.
 */
#define ID_STRIDE (1 << 22)
/* How deep slices nest on one track before another track of the thread is taken. */
#define LANE_DEPTH 32

/* One span: hop @hop's exchange at its caller (client) or its server. */

/* The open slices of one track of a thread: the ends of those that enclose the next. */
struct lane {
	uint64_t end[LANE_DEPTH];
	unsigned n;
};


/* By thread, then by start, the longer first: an enclosing slice comes before what it holds. */
static int cmp_slice(const void *a, const void *b)
{
	const struct paths_span *x = a, *y = b;
	int c;

	if ((c = cli_cmp_u64(x->host, y->host)) || (c = cli_cmp_i64(x->pid, y->pid)) ||
	    (c = cli_cmp_i64(x->tid, y->tid)) || (c = cli_cmp_u64(x->start_ns, y->start_ns)))
		return c;
	/* The same start: the longer, which ends later, first. */
	if ((c = cli_cmp_u64(y->end_ns, x->end_ns)))
		return c;
	return cli_cmp_u64(x->req, y->req);
}

/* Whether @s nests on lane @l: the slices that ended before it closed, it fits in the innermost. */
static bool fits(struct lane *l, const struct paths_span *s)
{
	while (l->n && l->end[l->n - 1] <= s->start_ns)
		l->n--;
	if (l->n == LANE_DEPTH || (l->n && l->end[l->n - 1] < s->end_ns))
		return false;
	l->end[l->n++] = s->end_ns;
	return true;
}

/* The first track of its thread each slice nests on (@v sorted). @return 0, or -1. */
static int assign_lanes(struct paths_span *v, size_t n)
{
	struct lane *lanes = NULL;
	size_t cap = 0, nr = 0;

	for (size_t i = 0; i < n; i++) {
		if (i && (v[i].host != v[i - 1].host || v[i].pid != v[i - 1].pid ||
			  v[i].tid != v[i - 1].tid))
			nr = 0;
		for (v[i].lane = 0; v[i].lane < nr && !fits(&lanes[v[i].lane], &v[i]); v[i].lane++)
			;
		if (v[i].lane < nr)
			continue;
		if (cli_grow((void **)&lanes, &cap, nr + 1, sizeof(*lanes)) < 0) {
			free(lanes);
			return -1;
		}
		lanes[nr] = (struct lane){ .n = 0 };
		fits(&lanes[nr++], &v[i]);
	}
	free(lanes);
	return 0;
}

static pid_t track(const struct paths_span *s)
{
	return s->tid + (pid_t)s->lane * ID_STRIDE;
}

/* The timeline's process of @s: its pid, apart from the other hosts' when captures are joined. */
static pid_t proc(const struct paths_span *s)
{
	return s->pid + (pid_t)s->host * ID_STRIDE;
}

/* A time in µs, to the ns (a double holds it exactly below 2^53 ns: 104 days of uptime). */
static void put_us(struct json *j, const char *key, uint64_t ns)
{
	json_fixed(j, key, (double)ns / 1e3, 3);
}

/* The head every event has: its phase, name, process and track. */
static void put_head(struct json *j, const char *ph, const char *name, pid_t pid, pid_t tid)
{
	json_object_begin(j, NULL);
	json_str(j, "ph", ph);
	json_str(j, "name", name);
	json_i64(j, "pid", pid);
	json_i64(j, "tid", tid);
}

static void put_meta(struct json *j, const char *what, pid_t pid, pid_t tid, const char *name)
{
	put_head(j, "M", what, pid, tid);
	json_object_begin(j, "args");
	json_str(j, "name", name);
	json_object_end(j);
	json_object_end(j);
}

/*
 * At the first slice @v[i] of a thread: the process's name (at its first;
 * "comm@host" when captures are joined), each track's.
 */
static void put_names(struct json *j, const struct pathsout *po, const struct paths_span *v,
		      size_t n, size_t i)
{
	const struct paths_span *s = &v[i];
	const char *host = pathsout_host(po, s->host);
	char name[IPCPERF_COMM_LEN + IPCPERF_HOST_MAX + 48];
	unsigned lanes = 0;

	if (!i || proc(&v[i - 1]) != proc(s)) {
		snprintf(name, sizeof(name), "%s%s%s", *s->comm ? s->comm : "?", host ? "@" : "",
			 host ? host : "");
		put_meta(j, "process_name", proc(s), proc(s), name);
	}
	for (size_t k = i; k < n && proc(&v[k]) == proc(s) && v[k].tid == s->tid; k++)
		lanes = v[k].lane + 1 > lanes ? v[k].lane + 1 : lanes;
	for (unsigned l = 0; l < lanes; l++) {
		if (l)
			snprintf(name, sizeof(name), "%s %d (overlapping requests %u)", s->comm,
				 (int)s->tid, l);
		else
			snprintf(name, sizeof(name), "%s %d", s->comm, (int)s->tid);
		put_meta(j, "thread_name", proc(s), s->tid + (pid_t)l * ID_STRIDE, name);
	}
}

static void put_slice(struct json *j, const struct paths_span *s)
{
	const struct ipcperf_path_hop *h = &s->p->hops[s->hop];
	char name[IPCPERF_COMM_LEN + 16];

	snprintf(name, sizeof(name), s->server ? "%s" : "call %s", *h->comm ? h->comm : "?");
	put_head(j, "X", name, proc(s), track(s));
	json_str(j, "cat", s->server ? "server" : "client");
	put_us(j, "ts", s->start_ns);
	put_us(j, "dur", s->end_ns - s->start_ns);
	json_object_begin(j, "args");
	json_u64(j, "request", s->req);
	json_str(j, "channel", ipcperf_fd_kind_name(h->kind));
	json_i64(j, "fd", s->fd);
	json_u64(j, "request_bytes", h->request_bytes);
	json_u64(j, "response_bytes", h->response_bytes);
	if (s->server)
		json_u64(j, "self_ns", h->self_ns);
	json_object_end(j);
	json_object_end(j);
}

/*
 * One end of an arrow, inside slice @s (1 µs from its start, or from its
 * end with @at_end, at most half way): the viewers bind it to the slice
 * that encloses its time on its track.
 */
static void put_flow(struct json *j, const struct paths_span *s, bool start, uint64_t id, bool at_end)
{
	uint64_t d = (s->end_ns - s->start_ns) / 2;

	d = d < 1000 ? d : 1000;
	put_head(j, start ? "s" : "f", at_end ? "response" : "request", proc(s), track(s));
	json_str(j, "cat", "message");
	json_u64(j, "id", id);
	put_us(j, "ts", at_end ? s->end_ns - d : s->start_ns + d);
	if (!start)
		json_str(j, "bp", "e");
	json_object_end(j);
}

/* The arrows of a hop: request from the client slice @c to the server's @sv, response back. */
static void put_arrows(struct json *j, const struct paths_span *c, const struct paths_span *sv)
{
	uint64_t id = 2 * (((uint64_t)c->req << 16) + c->hop) + 1;

	put_flow(j, c, true, id, false);
	put_flow(j, sv, false, id, false);
	put_flow(j, sv, true, id + 1, true);
	put_flow(j, c, false, id + 1, true);
}

/* Every span of the kept requests, sorted by track. @return the array (freed by the caller). */
static struct paths_span *slices(const struct pathsout *po, size_t *n)
{
	struct paths_span *v = NULL;
	size_t cap = 0;

	*n = 0;
	for (size_t r = 0; r < pathsout_nr_requests(po); r++) {
		const struct ipcperf_path *p = pathsout_request(po, r);

		if (cli_grow((void **)&v, &cap, *n + 2 * p->nr_hops, sizeof(*v)) < 0) {
			free(v);
			return NULL;
		}
		for (size_t k = 0; k < 2 * p->nr_hops; k++)
			paths_span_of(&v[(*n)++], p, r, k / 2, k % 2);
	}
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_slice);
	return v;
}

/* By request, then hop, its client slice before its server slice. */
static int cmp_hop(const void *a, const void *b)
{
	const struct paths_span *x = *(const struct paths_span *const *)a, *y = *(const struct paths_span *const *)b;

	int c;

	if ((c = cli_cmp_u64(x->req, y->req)) || (c = cli_cmp_u64(x->hop, y->hop)))
		return c;
	return (int)x->server - (int)y->server;
}

/* The arrows of every hop, once the slices have their tracks. @return 0, or -1. */
static int put_all_arrows(struct json *j, const struct paths_span *v, size_t n)
{
	const struct paths_span **by = malloc((n ? n : 1) * sizeof(*by));

	if (!by)
		return -1;
	for (size_t i = 0; i < n; i++)
		by[i] = &v[i];
	qsort(by, n, sizeof(*by), cmp_hop);
	for (size_t i = 0; i + 1 < n; i += 2)
		put_arrows(j, by[i], by[i + 1]);
	free(by);
	return 0;
}

int perfettoout_write(FILE *f, const struct pathsout *po)
{
	size_t n;
	struct paths_span *v = slices(po, &n);
	struct json j;

	if ((!v && pathsout_nr_requests(po)) || assign_lanes(v, n) < 0) {
		free(v);
		return -1;
	}
	json_init(&j, f, false);
	json_object_begin(&j, NULL);
	json_str(&j, "displayTimeUnit", "ms");
	json_array_begin(&j, "traceEvents");
	for (size_t i = 0; i < n; i++) {
		if (!i || proc(&v[i - 1]) != proc(&v[i]) || v[i - 1].tid != v[i].tid)
			put_names(&j, po, v, n, i);
		put_slice(&j, &v[i]);
	}
	if (put_all_arrows(&j, v, n) < 0) {
		free(v);
		return -1;
	}
	json_array_end(&j);
	json_object_end(&j);
	json_end_document(&j);
	free(v);
	return 0;
}
