/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fd rows grouped by process, kind, endpoint and peer process
 * (groups.h); the peers come from peers.c.
 */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "stats/groups.h"

/* ------------------------------------------------------------------ groups */

void ipp_group__read_ports(struct ipp_ports *p, bool proc)
{
	FILE *f = proc ? fopen("/proc/sys/net/ipv4/ip_local_port_range", "re") : NULL;

	*p = (struct ipp_ports){ 32768, 60999 };
	if (f && fscanf(f, "%u %u", &p->lo, &p->hi) != 2)
		*p = (struct ipp_ports){ 32768, 60999 };
	if (f)
		fclose(f);
}

/* One row (incarnations v[start, end)), or a fold of closed connections, with the key of its group. */
struct grow {
	pid_t pid, peer;
	int kind, role, fd;
	size_t start, end;
	uint64_t conns;		/* 1, or the connections folded */
	uint64_t by_ports;	/* of conns, those grouped by their ports (ipp_group__by_ports()) */
	const char *peer_comm;
	char endpoint[IPP_OBJECT_MAX];
};

/* The port of "ADDR:PORT" (the first @len bytes of @s), -1 if none. */
static long port_of(const char *s, size_t len)
{
	const char *c = memrchr(s, ':', len);

	return c && c + 1 < s + len && isdigit((unsigned char)c[1]) ? strtol(c + 1, NULL, 10) : -1;
}

static bool ephemeral(const struct ipp_ports *p, long port)
{
	return port >= (long)p->lo && port <= (long)p->hi;
}

/*
 * The addresses of inet row @id ("L -> R"): the remote one, with *@ll the
 * length of L and the ports *@lp, *@rp (-1 where none); NULL if it has none.
 */
static const char *inet_ports(const struct ipp_ident *id, size_t *ll, long *lp, long *rp)
{
	const char *arrow = strstr(id->detail, " -> ");

	*ll = arrow ? (size_t)(arrow - id->detail) : 0;
	*lp = arrow ? port_of(id->detail, *ll) : -1;
	*rp = arrow ? port_of(arrow + 4, strlen(arrow + 4)) : -1;
	return *lp > 0 && *rp > 0 ? arrow + 4 : NULL;
}

/*
 * How inet row @id groups: a server's connection (accepted; or, its origin
 * not seen, its remote port ephemeral and its local port not), a client's
 * (connected; or the other way round), or alone.
 */
static int inet_role(const struct ipp_ident *id, const struct ipp_ports *pp, char *endpoint)
{
	size_t ll;
	long lp, rp;
	const char *remote = inet_ports(id, &ll, &lp, &rp);
	bool unseen = id->origin == IPP_ORIGIN_UNSEEN;

	if (!remote)
		return IPCPERF_GROUP_ONE;
	if (id->origin == IPP_ORIGIN_ACCEPTED ||
	    (unseen && ephemeral(pp, rp) && !ephemeral(pp, lp))) {
		snprintf(endpoint, IPP_OBJECT_MAX, "%.*s", (int)ll, id->detail);
		return IPCPERF_GROUP_SERVED;
	}
	if (id->origin == IPP_ORIGIN_CONNECTED ||
	    (unseen && ephemeral(pp, lp) && !ephemeral(pp, rp))) {
		snprintf(endpoint, IPP_OBJECT_MAX, "%s", remote);
		return IPCPERF_GROUP_CLIENT;
	}
	return IPCPERF_GROUP_ONE;
}

bool ipp_group__by_ports(const struct ipp_rowref *r)
{
	const struct ipp_ident *id = r->id;
	size_t ll;
	long lp, rp;

	return id->state != IPP_ID_UNKNOWN && ipp_is_inet(id->kind) &&
	       id->origin == IPP_ORIGIN_UNSEEN && inet_ports(id, &ll, &lp, &rp);
}

/*
 * A unix socket that is a connection: a stream or seqpacket one with a
 * peer, or one that accept returned (a connection whatever else is known:
 * a client that closed at once leaves it no peer to name). A socket that
 * connect was called on needs its peer: the call may have failed.
 */
static bool unix_conn(const struct ipp_ident *id)
{
	return ((id->sock_type == SOCK_STREAM || id->sock_type == SOCK_SEQPACKET) && id->peer_ino) ||
	       id->origin == IPP_ORIGIN_ACCEPTED;
}

int ipp_group__key(const struct ipp_rowref *r, const struct ipp_ports *pp, char *endpoint)
{
	const struct ipp_ident *id = r->id;

	endpoint[0] = '\0';
	if (id->state == IPP_ID_UNKNOWN)
		return IPCPERF_GROUP_ONE;
	if (ipp_is_inet(id->kind))
		return inet_role(id, pp, endpoint);
	if (id->kind == IPCPERF_FD_UNIX && unix_conn(id))
		return IPCPERF_GROUP_UNIX;
	return IPCPERF_GROUP_ONE;
}

static int cmp_grow(const void *a, const void *b)
{
	const struct grow *x = a, *y = b;
	int c;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->role != y->role || x->role == IPCPERF_GROUP_ONE)
		return x->role != y->role ? x->role - y->role : (x->start > y->start) - (x->start < y->start);
	if (x->kind != y->kind)
		return x->kind - y->kind;
	if ((c = strcmp(x->endpoint, y->endpoint)))
		return c;
	if (x->peer != y->peer)
		return x->peer < y->peer ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

static bool same_group(const struct grow *a, const struct grow *b)
{
	return a->role != IPCPERF_GROUP_ONE && a->pid == b->pid && a->role == b->role &&
	       a->kind == b->kind && a->peer == b->peer && !strcmp(a->endpoint, b->endpoint);
}

/* A group: rows g[first, end) of the sorted rows, with its lowest fd and its connections. */
struct gspan {
	size_t first, end;
	pid_t pid;
	int fd;
	uint64_t conns, by_ports;
};

static int cmp_gspan(const void *a, const void *b)
{
	const struct gspan *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->fd != y->fd)
		return x->fd < y->fd ? -1 : 1;
	return (x->first > y->first) - (x->first < y->first);
}

/* The rows of @v with their group keys, sorted by group. @return them (*@nr), or NULL. */
static struct grow *group_rows(struct ipcperf_stats *st, const struct ipp_rowref *v, size_t n,
			       struct ipp_peers *pe, size_t *nr)
{
	struct grow *g = malloc((n ? n : 1) * sizeof(*g));
	struct ipp_ports pp;
	size_t k = 0;

	if (!g)
		return NULL;
	ipp_group__read_ports(&pp, !st->no_proc);
	for (size_t i = 0; i < n; k++) {
		struct grow *r = &g[k];

		r->pid = v[i].pid;
		r->fd = v[i].fd;
		r->kind = v[i].id->kind;
		r->start = i;
		r->conns = v[i].cf ? v[i].cf->conns : 1;
		if (v[i].cf) {
			r->by_ports = v[i].cf->by_ports;
			r->peer = v[i].cf->peer;
			r->peer_comm = v[i].cf->peer_comm;
			r->role = v[i].cf->role;
			snprintf(r->endpoint, sizeof(r->endpoint), "%s", v[i].cf->endpoint);
			r->end = ++i;
			continue;
		}
		r->peer = ipp_peers__of(pe, &v[i], &r->peer_comm);
		r->role = ipp_group__key(&v[i], &pp, r->endpoint);
		r->by_ports = ipp_group__by_ports(&v[i]);
		for (i++; i < n && ipp_rows__same(&v[r->start], &v[i]); i++)
			;
		r->end = i;
	}
	if (k > 1)
		qsort(g, k, sizeof(*g), cmp_grow);
	*nr = k;
	return g;
}

/* The groups of the sorted rows @g, ordered by pid and lowest fd. @return them (*@nr), or NULL. */
static struct gspan *spans_of(const struct grow *g, size_t n, size_t *nr)
{
	struct gspan *s = malloc((n ? n : 1) * sizeof(*s));
	size_t k = 0;

	if (!s)
		return NULL;
	for (size_t i = 0; i < n; k++) {
		s[k] = (struct gspan){ .first = i, .pid = g[i].pid, .fd = g[i].fd,
				       .conns = g[i].conns, .by_ports = g[i].by_ports };
		for (i++; i < n && same_group(&g[s[k].first], &g[i]); i++) {
			if (g[i].fd < s[k].fd)
				s[k].fd = g[i].fd;
			s[k].conns += g[i].conns;
			s[k].by_ports += g[i].by_ports;
		}
		s[k].end = i;
	}
	if (k > 1)
		qsort(s, k, sizeof(*s), cmp_gspan);
	*nr = k;
	return s;
}

static int emit_group(struct ipcperf_stats *st, const struct ipp_rowref *v, const struct grow *g,
		      const struct gspan *s, struct ipp_rowsum *sum,
		      int (*cb)(void *ctx, const struct ipcperf_fd_group *g), void *ctx)
{
	const struct grow *r = &g[s->first];
	const struct ipp_ident *id = v[r->start].id;
	struct ipcperf_fd_group grp = {
		.pid = r->pid, .kind = id->kind, .role = r->role, .endpoint = r->endpoint,
		.fd = s->fd, .object = "", .detail = "", .peer_pid = r->peer,
		.peer_comm = r->peer_comm, .conns = s->conns, .by_ports = s->by_ports,
	};

	if (r->role == IPCPERF_GROUP_ONE)
		grp.endpoint = id->object;
	if (grp.conns == 1) {
		grp.object = id->object;
		grp.detail = id->detail;
	}
	ipp_rowsum__reset(sum);
	for (size_t k = s->first; k < s->end; k++)
		for (size_t i = g[k].start; i < g[k].end; i++)
			ipp_rowsum__add(sum, &v[i]);
	IPP_ROWSUM_OUT(sum, &grp);
	return cb(ctx, &grp);
}

/*
 * Rows @v (*@n of them) and after them the folds of closed connections
 * (ipp_stats__compact()), each a row of its group that merges with no
 * other. @return the rows, or NULL (@v freed).
 */
static struct ipp_rowref *with_cfolds(const struct ipcperf_stats *st, struct ipp_rowref *v,
				      size_t *n)
{
	struct ipp_rowref *w = st->nr_cfolds ? realloc(v, (*n + st->nr_cfolds) * sizeof(*v)) : v;

	if (!w) {
		free(v);
		return NULL;
	}
	for (size_t i = 0; i < st->nr_cfolds; i++) {
		const struct connfold *cf = &st->cfolds[i];

		w[(*n)++] = (struct ipp_rowref){ .inc = SIZE_MAX, .pid = cf->pid, .fd = cf->fd,
						 .id = &cf->id, .c = &cf->c,
						 .packed = { cf->packed[0], cf->packed[1] }, .cf = cf };
	}
	return w;
}

int ipcperf_stats__for_each_fd_group(struct ipcperf_stats *st,
				     int (*cb)(void *ctx, const struct ipcperf_fd_group *g),
				     void *ctx)
{
	struct ipp_rowref *v = NULL;
	struct ipp_peers *pe = NULL;
	struct grow *g = NULL;
	struct gspan *s = NULL;
	struct ipp_rowsum sum;
	size_t n = 0, ng = 0, ns = 0;
	int ret = -ENOMEM;

	if (!st || !cb)
		return -EINVAL;
	if (!ipp_fdtab__count(st->fdt) && !st->nr_folds && !st->nr_cfolds)
		return 0;
	if (ipp_rowsum__init(&sum) < 0)
		return -ENOMEM;
	if ((v = ipp_rows__held(st, &n)) && (pe = ipp_peers__new(st, v, n)) &&
	    (v = with_cfolds(st, v, &n)) && (g = group_rows(st, v, n, pe, &ng)) &&
	    (s = spans_of(g, ng, &ns)))
		ret = 0;
	for (size_t i = 0; i < ns && !ret; i++)
		ret = emit_group(st, v, g, &s[i], &sum, cb, ctx);
	free(s);
	free(g);
	ipp_peers__delete(pe);
	free(v);
	ipp_rowsum__fini(&sum);
	return ret;
}
