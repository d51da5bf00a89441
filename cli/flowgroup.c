/* Flow groups: a server's connections as a few rows, their sums exact. */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "flowgroup.h"

/* ------------------------------------------------------------------ peers */

static int cmp_ino_key(const void *key, const void *elem)
{
	uint64_t a = *(const uint64_t *)key, b = ((const struct flowpeer *)elem)->ino;

	return a < b ? -1 : a > b;
}

static bool flow_kind(enum ipcperf_fd_kind k)
{
	return k == IPCPERF_FD_PIPE || k == IPCPERF_FD_UNIX || k == IPCPERF_FD_TCP ||
	       k == IPCPERF_FD_UDP;
}

static int load_row(void *ctx, const struct ipcperf_fd_row *row)
{
	struct flowpeers *p = ctx;
	struct flowpeer *e;
	size_t at;

	if (!row->ino || !flow_kind(row->kind))
		return 0;
	if (cli_bsearch(&row->ino, p->v, p->n, sizeof(*p->v), cmp_ino_key, &at)) {
		e = &p->v[at];
		if (e->pid)
			return 0;	/* an end held twice: its first row that names a peer */
	} else {
		if (cli_grow((void **)&p->v, &p->cap, p->n + 1, sizeof(*p->v)) < 0)
			return -ENOMEM;
		e = cli_insert_at(p->v, p->n++, sizeof(*p->v), at);
		e->ino = row->ino;
	}
	e->pid = row->peer_pid;
	snprintf(e->comm, sizeof(e->comm), "%s", row->peer_comm ? row->peer_comm : "");
	if (row->kind == IPCPERF_FD_TCP || row->kind == IPCPERF_FD_UDP)
		ipcperf_inet_endpoint(e->endpoint, sizeof(e->endpoint), row->detail);
	return 0;
}

int flowpeers_load(struct flowpeers *p, struct ipcperf_stats *st)
{
	int err;

	memset(p, 0, sizeof(*p));
	if (!st)
		return 0;
	err = ipcperf_stats__for_each_fd(st, load_row, p);
	if (err < 0)
		flowpeers_free(p);
	return err < 0 ? err : 0;
}

void flowpeers_free(struct flowpeers *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}

const struct flowpeer *flowpeers_of(const struct flowpeers *p, const struct ipcperf_flow *f,
				    struct flowpeer *fold)
{
	uint64_t ino = f->nr_writers || !f->reader_ino ? f->ino : f->reader_ino;
	size_t at;

	if (f->folded && (!f->nr_writers || !f->nr_readers)) {
		*fold = (struct flowpeer){ .ino = ino, .pid = f->untraced_pid };
		snprintf(fold->comm, sizeof(fold->comm), "%s", f->untraced_comm ? f->untraced_comm : "");
		snprintf(fold->endpoint, sizeof(fold->endpoint), "%s", f->endpoint ? f->endpoint : "");
		return fold;
	}
	if (!p || !ino || !cli_bsearch(&ino, p->v, p->n, sizeof(*p->v), cmp_ino_key, &at))
		return NULL;
	return &p->v[at];
}

uint64_t flowgroup_bytes(const struct ipcperf_flow *f)
{
	return f->nr_readers || !f->nr_writers ? f->bytes_read : f->bytes_written;
}

/* ------------------------------------------------------------------ groups */

/* "w1,2" of the traced pids, or "uPID" of the untraced side's process (0: not known). */
static size_t side_key(char *buf, size_t len, char tag, const pid_t *v, size_t n, pid_t peer)
{
	size_t off = 0;

	if (!n)
		return (size_t)snprintf(buf, len, "u%c%d|", tag, (int)peer);
	off += (size_t)snprintf(buf, len, "%c", tag);
	for (size_t i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%d", i ? "," : "", (int)v[i]);
	if (off < len)
		off += (size_t)snprintf(buf + off, len - off, "|");
	return off;
}

/*
 * The endpoint of @f: the flow's own, from its socket's addresses (a fold
 * of closed connections has no fd left to ask), else its fd's.
 */
static const char *flow_endpoint(const struct ipcperf_flow *f, const struct flowpeer *peer)
{
	if (f->endpoint && f->endpoint[0])
		return f->endpoint;
	return peer ? peer->endpoint : "";
}

/* The key of @f's group: writer side, reader side, kind, endpoint. NULL: no memory. */
static char *group_key(const struct ipcperf_flow *f, const struct flowpeer *peer)
{
	size_t len = (f->nr_writers + f->nr_readers) * CLI_INT_LEN + FLOWGROUP_EP_LEN + 64;
	char *k = malloc(len);
	pid_t other = peer ? peer->pid : 0;
	size_t off;

	if (!k)
		return NULL;
	off = side_key(k, len, 'w', f->writers, f->nr_writers, other);
	if (off < len)
		off += side_key(k + off, len - off, 'r', f->readers, f->nr_readers, other);
	if (off < len)
		snprintf(k + off, len - off, "%d|%d|%s", (int)f->kind, (int)f->datagram,
			 flow_endpoint(f, peer));
	return k;
}

static int cmp_group_key(const void *key, const void *elem)
{
	return strcmp(key, ((const struct flowgroup *)elem)->key);
}

static pid_t *pids_dup(const pid_t *v, size_t n)
{
	pid_t *d = malloc((n + 1) * sizeof(*d));

	if (d && n)
		memcpy(d, v, n * sizeof(*d));
	return d;
}

int flowcopy_set(struct flowcopy *c, const struct ipcperf_flow *f)
{
	c->f = *f;
	c->object = strdup(f->object ? f->object : "unknown");
	c->untraced_comm = strdup(f->untraced_comm ? f->untraced_comm : "");
	/* A flow nobody traced writing into (or reading from) has no list at all. */
	c->writers = pids_dup(f->writers, f->nr_writers);
	c->readers = pids_dup(f->readers, f->nr_readers);
	c->f.object = c->object;
	c->f.untraced_comm = c->untraced_comm;
	c->f.endpoint = NULL;
	c->f.writers = c->writers;
	c->f.readers = c->readers;
	c->f.wire_hist = NULL;
	return c->object && c->untraced_comm && c->writers && c->readers ? 0 : -ENOMEM;
}

void flowcopy_free(struct flowcopy *c)
{
	free(c->object);
	free(c->untraced_comm);
	free(c->writers);
	free(c->readers);
}

/* A new group at @at of @g, for @f: its first flow. */
static struct flowgroup *group_new(struct flowgroups *g, size_t at, char *key,
				   const struct ipcperf_flow *f, const struct flowpeer *peer,
				   size_t rank)
{
	struct flowgroup *gr;
	struct ipcperf_flow *s;
	int err;

	if (cli_grow((void **)&g->v, &g->cap, g->n + 1, sizeof(*g->v)) < 0)
		return NULL;
	gr = cli_insert_at(g->v, g->n++, sizeof(*g->v), at);
	gr->key = key;
	err = flowcopy_set(&gr->c, f);
	gr->wire = ipcperf_hist__new();
	gr->rank = rank;
	if (peer) {
		gr->peer_pid = peer->pid;
		snprintf(gr->peer_comm, sizeof(gr->peer_comm), "%s", peer->comm);
	}
	snprintf(gr->endpoint, sizeof(gr->endpoint), "%s", flow_endpoint(f, peer));
	/* s->endpoint stays NULL: the group's is endpoint, and this struct moves as groups come */
	s = &gr->c.f;
	s->wire_hist = gr->wire;
	if (err < 0 || !gr->wire)
		return NULL;	/* freed with the groups */
	/* the sums start from nothing: group_add() adds this flow too */
	s->writes = s->reads = s->bytes_written = s->bytes_read = 0;
	s->unmatched_bytes = s->matches = s->full_ns = 0;
	s->writer_blocked_ns = s->reader_blocked_ns = 0;
	s->write_again = s->read_again = 0;
	s->write_wait_ns = s->read_wait_ns = s->write_waits = s->read_waits = 0;
	s->max_queued = 0;
	if (f->folded)
		s->verdict = IPCPERF_VERDICT_IDLE;	/* its flows' verdicts come one by one */
	return gr;
}

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* @n flows of verdict @v into @gr's. */
static void group_verdict(struct flowgroup *gr, enum ipcperf_verdict v, uint64_t n)
{
	struct ipcperf_flow *s = &gr->c.f;

	/* idle flows (a connection closed before a byte) yield to the others */
	if (s->verdict == IPCPERF_VERDICT_IDLE)
		s->verdict = v;
	else if (v != IPCPERF_VERDICT_IDLE)
		gr->mixed |= v != s->verdict;
	if ((unsigned)v < FLOWGROUP_VERDICTS)
		gr->verdicts[v] += n;
}

static void group_add(struct flowgroup *gr, const struct ipcperf_flow *f)
{
	struct ipcperf_flow *s = &gr->c.f;

	s->writes += f->writes;
	s->reads += f->reads;
	s->bytes_written += f->bytes_written;
	s->bytes_read += f->bytes_read;
	s->unmatched_bytes += f->unmatched_bytes;
	s->matches += f->matches;
	s->full_ns += f->full_ns;
	s->writer_blocked_ns += f->writer_blocked_ns;
	s->reader_blocked_ns += f->reader_blocked_ns;
	s->write_again += f->write_again;
	s->read_again += f->read_again;
	s->write_wait_ns += f->write_wait_ns;
	s->read_wait_ns += f->read_wait_ns;
	s->write_waits += f->write_waits;
	s->read_waits += f->read_waits;
	s->max_queued = max64(s->max_queued, f->max_queued);
	s->stage = f->stage < s->stage ? f->stage : s->stage;
	s->first_ns = f->first_ns < s->first_ns ? f->first_ns : s->first_ns;
	s->last_ns = max64(s->last_ns, f->last_ns);
	if (f->capacity != s->capacity || f->capacity_default != s->capacity_default)
		s->capacity = -1;
	if (!f->folded) {
		group_verdict(gr, f->verdict, 1);
		gr->flows++;
		return;
	}
	/* a fold: its flows' verdicts one by one, as if they came apart */
	for (int v = 0; v < FLOWGROUP_VERDICTS; v++)
		if (f->folded_verdicts[v])
			group_verdict(gr, (enum ipcperf_verdict)v, f->folded_verdicts[v]);
	gr->flows += f->folded;
}

/* The wire times of the group, from its merged histogram. */
static void group_wire(struct flowgroup *gr)
{
	struct ipcperf_lat lat;

	if (!gr->c.f.matches || ipcperf_hist__lat(gr->wire, &lat) < 0)
		return;
	gr->c.f.wire_ns.min = lat.min;
	gr->c.f.wire_ns.p50 = lat.p50;
	gr->c.f.wire_ns.p99 = lat.p99;
	gr->c.f.wire_ns.max = lat.max;
}

int flowgroups_add(struct flowgroups *g, const struct ipcperf_flow *f,
		   const struct flowpeer *peer, size_t rank)
{
	char *key = group_key(f, peer);
	struct flowgroup *gr;
	size_t at;

	if (!key)
		return -ENOMEM;
	if (cli_bsearch(key, g->v, g->n, sizeof(*g->v), cmp_group_key, &at)) {
		free(key);
		gr = &g->v[at];
	} else if (!(gr = group_new(g, at, key, f, peer, rank))) {
		if (g->n > at && g->v[at].key == key)
			return -ENOMEM;	/* in the array: freed with it */
		free(key);
		return -ENOMEM;
	}
	group_add(gr, f);
	if (f->wire_hist && ipcperf_hist__merge(gr->wire, f->wire_hist) < 0)
		return -ENOMEM;
	return 0;
}

int flowgroup_cmp_stage(const struct ipcperf_flow *x, size_t x_rank, const struct ipcperf_flow *y,
			size_t y_rank)
{
	if (x->stage != y->stage)
		return x->stage < y->stage ? -1 : 1;
	return x_rank < y_rank ? -1 : x_rank > y_rank;
}

static int cmp_groups(const void *a, const void *b)
{
	const struct flowgroup *x = a, *y = b;

	return flowgroup_cmp_stage(&x->c.f, x->rank, &y->c.f, y->rank);
}

void flowgroups_sort(struct flowgroups *g)
{
	for (size_t i = 0; i < g->n; i++)
		group_wire(&g->v[i]);
	if (g->n)
		qsort(g->v, g->n, sizeof(*g->v), cmp_groups);
}

void flowgroups_free(struct flowgroups *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->v[i].key);
		flowcopy_free(&g->v[i].c);
		ipcperf_hist__delete(g->v[i].wire);
	}
	free(g->v);
	memset(g, 0, sizeof(*g));
}
