/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Captures of several hosts joined (ipcperf_paths__add_host()): each host's
 * events come through a port that keeps them apart from the other hosts'
 * (its pids, tids and inodes moved into a range of its own, its times put
 * on the first host's clock by the offset given), and a TCP connection seen
 * from two hosts becomes one channel.
 *
 * Neither host's flows can match such a connection's bytes: each sees one
 * end, whose peer is not on its host. Its ends are paired here by their
 * addresses (this end's local and remote are the other's remote and local)
 * once both have made a call; their bytes are matched by offset in each
 * direction, as the flows match a channel's, and handed to the paths as the
 * flows' matches would be. Offsets count from the connection's first byte,
 * so both ends must have been seen from their start (an accept or a
 * connect in the capture): a connection made before either capture is
 * counted, not matched. Each match bounds the two hosts' clocks: the bytes
 * were read after they began to be written, so the reader's clock less the
 * writer's is at most the read's end less the write's start, in each
 * direction (doc/accuracy.md). When no single offset fits those bounds,
 * a clock that drifts at a steady rate may (clockfit.c).
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "fd/fdtable.h"
#include "flows/flowtap.h"
#include "session/session.h"
#include "paths/paths.h"

/* The most calls a pending end keeps for its peer: past them, no peer is coming. */
#define PENDING_MAX 4096

/* Bytes written from an end, or read at it, not matched yet. */
struct jseg {
	uint64_t left;
	pid_t pid, tid;
	int fd;
	uint64_t start, end;
};

struct jfifo {
	struct jseg *v;
	size_t head, n, cap;
};

enum jstate { J_PENDING, J_PAIRED, J_ALONE };

/* A TCP socket end whose peer is not on its host. */
struct jend {
	uint64_t jino;
	unsigned int host;
	uint64_t addr_key;		/* its "local -> remote", hashed */
	char addr[IPP_DETAIL_MAX];
	bool seen_start;		/* its accept or connect is in the capture */
	enum jstate state;
	struct jend *peer;
	struct jfifo wrote, read;	/* its writes not read at the peer; its reads not matched */
};

struct ipp_host {
	struct ipcperf_paths *p;
	unsigned int idx;
	struct ipcperf_flows *fl;
	struct ipcperf_stats *st;
	int64_t offset;			/* its clock less the first host's at ref_ns, */
	int64_t drift_ppb;		/* changing by this many ns a second */
	uint64_t ref_ns;		/* on its own clock */
};

struct ipp_join {
	struct ipp_host **hosts;
	size_t nr, cap;
	struct ipp_idmap ends;		/* jino -> jend */
	struct ipp_idmap waiting;	/* addr_key -> the jend pending with it */
	int64_t *up;			/* [w * nr + r]: min of a read's end less its write's start */
	uint64_t *samples;		/* [w * nr + r] */
	struct ipp_clockfit *fits;	/* [a * nr + b], a < b: b's clock less a's, over time */
	size_t cap_up;
};

static pid_t jpid(const struct ipp_host *h, pid_t pid)
{
	return pid > 0 ? pid + (pid_t)h->idx * IPP_HOST_PIDS : pid;
}

static uint64_t jino(const struct ipp_host *h, uint64_t ino)
{
	return ino ? ino ^ ((uint64_t)h->idx << IPP_HOST_INO_SHIFT) : 0;
}

static uint64_t jtime(const struct ipp_host *h, uint64_t t)
{
	double drift = (double)h->drift_ppb * ((double)t - (double)h->ref_ns) / 1e9;

	return t ? t - (uint64_t)h->offset - (uint64_t)(int64_t)drift : 0;
}

/* A thread and a span of time of host @h (a call, one side of a match), joined in place. */
static void jspan(const struct ipp_host *h, pid_t *pid, pid_t *tid, uint64_t *start,
		  uint64_t *end)
{
	*pid = jpid(h, *pid);
	*tid = jpid(h, *tid);
	*start = jtime(h, *start);
	*end = jtime(h, *end);
}

pid_t ipp_paths__pid_on(const struct ipcperf_paths *p, pid_t pid, unsigned int *host)
{
	*host = 0;
	if (!p->join || pid <= 0)
		return pid;
	*host = (unsigned int)(pid / IPP_HOST_PIDS);
	return pid % IPP_HOST_PIDS;
}

void ipp_paths__comm(const struct ipcperf_paths *p, pid_t pid, char *buf)
{
	unsigned int host;
	pid_t own = ipp_paths__pid_on(p, pid, &host);
	struct ipcperf_stats *st = p->join && host < p->join->nr ? p->join->hosts[host]->st : p->st;

	if (ipcperf_stats__proc_comm(st, own, buf, IPP_COMM_MAX) < 0)
		buf[0] = '\0';
}

void ipp_paths__unmap(const struct ipcperf_paths *p, struct ipcperf_path *path,
		      struct ipcperf_path_hop *hops)
{
	if (!p->join)
		return;
	path->pid = ipp_paths__pid_on(p, path->pid, &path->host);
	path->tid = ipp_paths__pid_on(p, path->tid, &path->host);
	for (size_t i = 0; i < path->nr_hops; i++) {
		struct ipcperf_path_hop *h = &hops[i];

		h->pid = ipp_paths__pid_on(p, h->pid, &h->host);
		h->tid = ipp_paths__pid_on(p, h->tid, &h->host);
		h->caller_pid = ipp_paths__pid_on(p, h->caller_pid, &h->caller_host);
		h->caller_tid = ipp_paths__pid_on(p, h->caller_tid, &h->caller_host);
	}
}

/* ------------------------------------------------------------------ the bytes */

static int fifo_push(struct jfifo *f, const struct jseg *s)
{
	if (ipp_ring_reserve((void **)&f->v, &f->cap, &f->head, f->n, sizeof(*f->v), 64) < 0)
		return -ENOMEM;
	f->v[(f->head + f->n++) % f->cap] = *s;
	return 0;
}

static struct jseg *fifo_front(struct jfifo *f)
{
	return f->n ? &f->v[f->head] : NULL;
}

static void fifo_pop(struct jfifo *f)
{
	f->head = (f->head + 1) % f->cap;
	f->n--;
}

static void fifo_free(struct jfifo *f)
{
	free(f->v);
	*f = (struct jfifo){ 0 };
}

/* Bound the reader's clock less the writer's: at most @read_end - @write_start. */
static void bound(struct ipp_join *j, unsigned int w, unsigned int r, uint64_t write_start,
		  uint64_t read_end)
{
	int64_t d = (int64_t)(read_end - write_start);
	size_t at = (size_t)w * j->nr + r;

	if (w == r || at >= j->cap_up)
		return;
	if (!j->samples[at] || d < j->up[at])
		j->up[at] = d;
	j->samples[at]++;
	/* b's clock less a's (a < b) at the middle of the crossing */
	ipp_clockfit__add(&j->fits[w < r ? w * j->nr + r : r * j->nr + w],
			  write_start / 2 + read_end / 2, w < r ? d : -d, w < r);
}

/* Hand the paths the bytes @e wrote that its peer has read, as the flows' matches would be. */
static void drain(struct ipcperf_paths *p, struct jend *e)
{
	struct jend *r = e->peer;
	struct jseg *w, *rd;

	while ((w = fifo_front(&e->wrote)) && (rd = fifo_front(&r->read))) {
		uint64_t take = w->left < rd->left ? w->left : rd->left;
		struct ipcperf_flow_match m = {
			.object = "", .wpid = w->pid, .wtid = w->tid, .rpid = rd->pid, .rtid = rd->tid,
			.write_start_ns = w->start, .write_end_ns = w->end,
			.read_start_ns = rd->start, .read_end_ns = rd->end, .bytes = take,
		};

		bound(p->join, e->host, r->host, w->start, rd->end);
		ipp_joinflows__add(p, e->jino, r->jino, e->addr, w->fd, rd->fd, &m);
		/* the read's fd, as the flows' read call would have told it */
		p->rd_tid = rd->tid;
		p->rd_start = rd->start;
		p->rd_fd = rd->fd;
		ipp_paths__on_match(p, e->jino, &m);
		w->left -= take;
		rd->left -= take;
		if (!w->left)
			fifo_pop(&e->wrote);
		if (!rd->left)
			fifo_pop(&r->read);
	}
}

/* ------------------------------------------------------------------ the ends */

static uint64_t hash_str(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h ? h : 1;
}

/* Return the hash of the mirror of @addr ("L -> R": "R -> L"); 0 when @addr is not of that form. */
static uint64_t mirror_key(const char *addr)
{
	const char *arrow = strstr(addr, " -> ");
	char m[IPP_DETAIL_MAX];

	if (!arrow || arrow == addr || !arrow[4])
		return 0;
	snprintf(m, sizeof(m), "%s -> %.*s", arrow + 4, (int)(arrow - addr), addr);
	return hash_str(m);
}

static void end_alone(struct ipp_join *j, struct jend *e)
{
	if (e->state == J_PENDING && ipp_idmap__get(&j->waiting, e->addr_key) == e)
		ipp_idmap__del(&j->waiting, e->addr_key);
	e->state = J_ALONE;
	fifo_free(&e->wrote);
	fifo_free(&e->read);
}

/* Pair @e with its peer on another host, if the peer made a call already: one channel. */
static void pair(struct ipcperf_paths *p, struct jend *e)
{
	struct ipp_join *j = p->join;
	uint64_t mk = mirror_key(e->addr);
	struct jend *o = mk ? ipp_idmap__get(&j->waiting, mk) : NULL;

	if (!o || o->host == e->host || mirror_key(o->addr) != e->addr_key) {
		if (!ipp_idmap__get(&j->waiting, e->addr_key))
			ipp_idmap__put(&j->waiting, e->addr_key, e);
		return;
	}
	ipp_idmap__del(&j->waiting, mk);
	if (!e->seen_start || !o->seen_start) {
		/* offsets from different firsts: its bytes cannot be matched */
		p->counts.tcp_unseen_start++;
		end_alone(j, o);
		end_alone(j, e);
		return;
	}
	e->peer = o;
	o->peer = e;
	e->state = o->state = J_PAIRED;
	p->counts.tcp_joined++;
	drain(p, e);
	drain(p, o);
}

/* Tell whether both addresses are the host's own loopback: a connection that never leaves it. */
static bool loopback(const char *addr)
{
	const char *r = strstr(addr, " -> ");

	return r && ((!strncmp(addr, "127.", 4) && !strncmp(r + 4, "127.", 4)) ||
		     (!strncmp(addr, "[::1]", 5) && !strncmp(r + 4, "[::1]", 5)));
}

/*
 * The end of @ch when its peer is not on its host: found, or made and
 * paired if its peer made a call already. NULL: on its host, or no memory.
 */
static struct jend *end_of(struct ipcperf_paths *p, const struct ipp_host *h,
			   const struct ipp_ident *ch)
{
	uint64_t ino = jino(h, ch->ino);
	struct jend *e = ipp_idmap__get(&p->join->ends, ino);

	if (e && ch->peer_ino && e->state != J_ALONE)
		end_alone(p->join, e);	/* its peer is on its host after all */
	if (e || ch->peer_ino || loopback(ch->detail))
		return e;
	e = calloc(1, sizeof(*e));
	if (!e || ipp_idmap__put(&p->join->ends, ino, e) < 0) {
		free(e);
		return NULL;
	}
	e->jino = ino;
	e->host = h->idx;
	snprintf(e->addr, sizeof(e->addr), "%s", ch->detail);
	e->addr_key = hash_str(e->addr);
	e->seen_start = ch->origin != IPP_ORIGIN_UNSEEN;
	if (!strstr(e->addr, " -> "))
		e->state = J_ALONE;	/* no addresses: nothing to pair it by */
	else
		pair(p, e);
	return e;
}

/* Keep a call's bytes on an end of a channel across hosts, and match them. */
static void end_bytes(struct ipcperf_paths *p, struct jend *e, const struct ipcperf_syscall *ev,
		      bool writing)
{
	struct jseg s = { .left = (uint64_t)ev->ret, .pid = ev->pid, .tid = ev->tid, .fd = ev->fd,
			  .start = ev->start_ns, .end = ev->end_ns };

	if (e->state == J_ALONE || ev->ret <= 0)
		return;
	if (e->state == J_PENDING && e->wrote.n + e->read.n >= PENDING_MAX) {
		end_alone(p->join, e);
		return;
	}
	if (fifo_push(writing ? &e->wrote : &e->read, &s) < 0)
		return;
	if (e->state == J_PAIRED)
		drain(p, writing ? e : e->peer);
}

/* ------------------------------------------------------------------ the ports */

static void port_call(void *ctx, const struct ipcperf_syscall *ev, const struct ipp_ident *ch,
		      uint64_t key, bool writing)
{
	struct ipp_host *h = ctx;
	struct ipcperf_paths *p = h->p;
	struct ipcperf_syscall e = *ev;
	struct ipp_ident c = *ch;
	struct jend *end = NULL;

	jspan(h, &e.pid, &e.tid, &e.start_ns, &e.end_ns);
	c.ino = jino(h, ch->ino);
	c.peer_ino = jino(h, ch->peer_ino);
	key = jino(h, key);
	if (ch->kind == IPCPERF_FD_TCP && ch->sock_type == SOCK_STREAM && ch->ino)
		end = end_of(p, h, ch);
	if (end && end->state == J_PAIRED) {
		c.peer_ino = end->peer->jino;
		key = writing ? end->jino : end->peer->jino;
	}
	ipp_paths__on_call(p, &e, &c, key, writing);
	if (end)
		end_bytes(p, end, &e, writing);
}

static void port_match(void *ctx, uint64_t key, const struct ipcperf_flow_match *m)
{
	struct ipp_host *h = ctx;
	struct ipcperf_flow_match x = *m;

	jspan(h, &x.wpid, &x.wtid, &x.write_start_ns, &x.write_end_ns);
	jspan(h, &x.rpid, &x.rtid, &x.read_start_ns, &x.read_end_ns);
	ipp_paths__on_match(h->p, jino(h, key), &x);
}

static void port_syscall(void *ctx, const struct ipcperf_syscall *ev)
{
	struct ipp_host *h = ctx;
	struct ipcperf_syscall e = *ev;

	jspan(h, &e.pid, &e.tid, &e.start_ns, &e.end_ns);
	ipcperf_paths__add_syscall(h->p, &e);
}

static void port_lost(void *ctx, const struct ipcperf_lost *ev)
{
	(void)ev;
	ipp_paths__lost(((struct ipp_host *)ctx)->p);
}

static void port_sched(void *ctx, const struct ipp_sched_ev *ev)
{
	struct ipp_host *h = ctx;
	struct ipp_sched_ev e = *ev;

	e.time = jtime(h, ev->time);
	e.pid = jpid(h, ev->pid);
	e.tid = jpid(h, ev->tid);
	e.waker = jpid(h, ev->waker);
	ipp_paths__on_sched(h->p, &e);
}

/* ------------------------------------------------------------------ the hosts */

static struct ipp_host *host_new(struct ipcperf_paths *p, struct ipcperf_flows *fl,
				 int64_t offset)
{
	struct ipp_join *j = p->join;
	struct ipp_host *h;
	struct ipp_flowtap tap;

	if (j->nr >= IPP_HOSTS_MAX ||
	    ipp_grow((void **)&j->hosts, &j->cap, j->nr + 1, sizeof(*j->hosts)) < 0 ||
	    !(h = calloc(1, sizeof(*h))))
		return NULL;
	*h = (struct ipp_host){ .p = p, .idx = (unsigned int)j->nr, .fl = fl,
				.st = ipp_flows__stats(fl), .offset = offset };
	j->hosts[j->nr++] = h;
	tap = (struct ipp_flowtap){ .ctx = h, .call = port_call, .match = port_match };
	ipp_flows__tap(fl, &tap);
	return h;
}

/* Make room for the bounds of @n hosts, the old ones kept at their place. */
static int bounds_room(struct ipp_join *j, size_t n)
{
	int64_t *up = calloc(n * n, sizeof(*up));
	uint64_t *sm = calloc(n * n, sizeof(*sm));
	struct ipp_clockfit *fits = calloc(n * n, sizeof(*fits));

	if (!up || !sm || !fits) {
		free(up);
		free(sm);
		free(fits);
		return -ENOMEM;
	}
	for (size_t w = 0; j->up && w + 1 < n; w++)
		for (size_t r = 0; r + 1 < n; r++) {
			up[w * n + r] = j->up[w * (n - 1) + r];
			sm[w * n + r] = j->samples[w * (n - 1) + r];
			fits[w * n + r] = j->fits[w * (n - 1) + r];
		}
	free(j->up);
	free(j->samples);
	free(j->fits);
	j->up = up;
	j->samples = sm;
	j->fits = fits;
	j->cap_up = n * n;
	return 0;
}

int ipcperf_paths__add_host(struct ipcperf_paths *p, struct ipcperf_flows *fl,
			    struct ipcperf_session *s, int64_t clock_offset_ns)
{
	IPCPERF_OPTS(ipcperf_handlers, hd, .syscall = port_syscall, .lost = port_lost);
	struct ipp_host *h;
	int err;

	if (!p || !fl || !s || fl == p->fl)
		return -EINVAL;
	if (!p->join) {
		p->join = calloc(1, sizeof(*p->join));
		if (!p->join || !host_new(p, p->fl, 0))
			return -ENOMEM;
	}
	if (bounds_room(p->join, p->join->nr + 1) < 0 || !(h = host_new(p, fl, clock_offset_ns)))
		return -ENOMEM;
	hd.ctx = h;
	err = ipcperf_session__add_handlers(s, &hd);
	if (err < 0)
		return err;
	ipp_session__take_sched(s, port_sched, h);
	return (int)h->idx;
}

int ipcperf_paths__host_clock(struct ipcperf_paths *p, unsigned int host, int64_t offset_ns,
			      int64_t drift_ppb, uint64_t ref_ns)
{
	struct ipp_host *h;

	if (!p || !p->join || !host || host >= p->join->nr)
		return -EINVAL;
	h = p->join->hosts[host];
	h->offset = offset_ns;
	h->drift_ppb = drift_ppb;
	h->ref_ns = ref_ns;
	return 0;
}

/* Give the bounds of host @b's clock less host @a's, when bytes went both ways between them. */
static bool pair_bounds(const struct ipp_join *j, unsigned int a, unsigned int b, int64_t *lo,
			int64_t *hi, uint64_t *n)
{
	size_t ab = (size_t)a * j->nr + b, ba = (size_t)b * j->nr + a;

	/* b's clock less a's: at most up[a->b], at least -up[b->a] */
	if (!j->samples[ab] || !j->samples[ba])
		return false;
	*hi = j->up[ab];
	*lo = -j->up[ba];
	*n = j->samples[ab] + j->samples[ba];
	return true;
}

/*
 * Give host @host's clock less host 0's, through the hosts bounded pairwise
 * from host 0; @from[b], the host each was bounded from.
 */
static bool chain_bounds(const struct ipp_join *j, unsigned int host, int64_t *lo, int64_t *hi,
			 uint64_t *n, unsigned int *from)
{
	int64_t blo[IPP_HOSTS_MAX], bhi[IPP_HOSTS_MAX];
	uint64_t bn[IPP_HOSTS_MAX];
	bool known[IPP_HOSTS_MAX] = { [0] = true };
	bool grew = true;

	blo[0] = bhi[0] = 0;
	bn[0] = 0;
	while (grew && !known[host]) {
		grew = false;
		for (unsigned int a = 0; a < j->nr; a++)
			for (unsigned int b = 0; known[a] && b < j->nr; b++) {
				int64_t l, h;
				uint64_t k;

				if (known[b] || !pair_bounds(j, a, b, &l, &h, &k))
					continue;
				blo[b] = blo[a] + l;
				bhi[b] = bhi[a] + h;
				bn[b] = bn[a] + k;
				from[b] = a;
				known[b] = grew = true;
			}
	}
	*lo = blo[host];
	*hi = bhi[host];
	*n = bn[host];
	return known[host];
}

/*
 * Host @b's clock less host @a's as a line: one offset, the middle of the
 * bounds, when it fits them; else the line of a clock that drifts, when
 * one fits (@drifting then). @return false: nothing fits.
 */
static bool link_line(const struct ipp_join *j, unsigned int a, unsigned int b,
		      struct ipp_clockline *l, bool *drifting)
{
	int64_t lo, hi;
	uint64_t n;

	if (!pair_bounds(j, a, b, &lo, &hi, &n))
		return false;
	if (lo <= hi) {
		*l = (struct ipp_clockline){ .fits = true, .offset_ns = lo + (hi - lo) / 2,
					     .uncertainty_ns = (uint64_t)(hi - lo + 1) / 2 };
		return true;
	}
	if (ipp_clockfit__line(&j->fits[a < b ? a * j->nr + b : b * j->nr + a], l) < 0 || !l->fits)
		return false;
	if (a > b) {
		l->offset_ns = -l->offset_ns;
		l->drift_ppb = -l->drift_ppb;
	}
	*drifting = true;
	return true;
}

/* Host @host's clock less host 0's along the chain @from, link by link, into @c. */
static bool chain_line(const struct ipp_join *j, unsigned int host, const unsigned int *from,
		       struct ipcperf_paths_clock *c)
{
	struct ipp_clockline l;
	int64_t offset = 0;

	c->drifting = false;
	c->drift_ppb = 0;
	c->ref_ns = 0;
	c->uncertainty_ns = 0;
	for (unsigned int b = host; b; b = from[b]) {
		if (!link_line(j, from[b], b, &l, &c->drifting))
			return false;
		if (l.drift_ppb && !c->ref_ns)
			c->ref_ns = l.ref_ns;
		/* each link's offset at the chain's time of reference */
		offset += l.offset_ns + (int64_t)((double)l.drift_ppb *
						  ((double)c->ref_ns - (double)l.ref_ns) / 1e9);
		c->drift_ppb += l.drift_ppb;
		c->uncertainty_ns += l.uncertainty_ns;
	}
	c->offset_ns = offset;
	return true;
}

int ipcperf_paths__clock(const struct ipcperf_paths *p, unsigned int host,
			 struct ipcperf_paths_clock *out)
{
	struct ipcperf_paths_clock c = { .sz = sizeof(c) };
	unsigned int from[IPP_HOSTS_MAX] = { 0 };
	size_t sz;

	if (!p || !out || out->sz < sizeof(out->sz) || !p->join || host >= p->join->nr)
		return -EINVAL;
	if (host && chain_bounds(p->join, host, &c.lo_ns, &c.hi_ns, &c.exchanges, from))
		c.known = chain_line(p->join, host, from, &c);
	c.inconsistent = host && c.exchanges && !c.known;
	sz = out->sz < sizeof(c) ? out->sz : sizeof(c);
	memcpy((char *)out + sizeof(out->sz), (const char *)&c + sizeof(c.sz), sz - sizeof(c.sz));
	return 0;
}

static void count_pending(void *ctx, void *val)
{
	struct ipcperf_paths *p = ctx;
	struct jend *e = val;

	if (e->state == J_PENDING)
		p->counts.tcp_no_peer++;
}

void ipp_join__flush(struct ipcperf_paths *p)
{
	if (!p->join)
		return;
	ipp_idmap__each(&p->join->ends, count_pending, p);
	ipp_idmap__fini(&p->join->waiting);
}

static void free_end(void *ctx, void *val)
{
	struct jend *e = val;

	(void)ctx;
	fifo_free(&e->wrote);
	fifo_free(&e->read);
	free(e);
}

void ipp_join__free(struct ipcperf_paths *p)
{
	struct ipp_join *j = p->join;

	if (!j)
		return;
	for (size_t i = 0; i < j->nr; i++) {
		ipp_flows__tap(j->hosts[i]->fl, NULL);
		free(j->hosts[i]);
	}
	free(j->hosts);
	ipp_idmap__each(&j->ends, free_end, NULL);
	ipp_idmap__fini(&j->ends);
	ipp_idmap__fini(&j->waiting);
	for (size_t i = 0; i < j->cap_up; i++)
		ipp_clockfit__fini(&j->fits[i]);
	free(j->up);
	free(j->samples);
	free(j->fits);
	free(j);
	p->join = NULL;
}
