/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The flows of the TCP connections joined across hosts (join.c): each
 * direction of such a connection is one flow, kept here from the matches
 * join.c makes of its bytes (ipp_joinflows__add()) and handed out by
 * ipcperf_paths__for_each_joined(). Its bytes are those both ends agree
 * on: written at one host and read at the other. Its wire times are on the
 * first host's clock as the offsets given to ipcperf_paths__add_host()
 * put each host's; a read that ends before its write began on those
 * clocks (an offset off by less than its uncertainty) counts 0.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hist.h"
#include "paths/paths.h"

/* One direction of a joined connection: its writing end's bytes, read at the other host. */
struct ipp_jflow {
	uint64_t wkey, rkey;		/* the ends' joined inodes */
	char object[IPP_DETAIL_MAX];	/* the writing end's "local -> remote" */
	pid_t wpid, rpid;		/* of the first match, joined pids */
	int wfd, rfd;
	uint64_t bytes, matches, first_ns, last_ns;
	struct ipp_hist wire;
};

static struct ipp_jflow *jflow_new(struct ipcperf_paths *p, uint64_t wkey, uint64_t rkey,
				   const char *addr, int wfd, int rfd,
				   const struct ipcperf_flow_match *m)
{
	struct ipp_jflow *f = calloc(1, sizeof(*f));

	if (!f || ipp_idmap__put(&p->jflows, wkey, f) < 0) {
		free(f);
		return NULL;
	}
	f->wkey = wkey;
	f->rkey = rkey;
	snprintf(f->object, sizeof(f->object), "%s", addr);
	f->wpid = m->wpid;
	f->rpid = m->rpid;
	f->wfd = wfd;
	f->rfd = rfd;
	f->first_ns = m->write_start_ns;
	ipp_hist_init(&f->wire);
	return f;
}

void ipp_joinflows__add(struct ipcperf_paths *p, uint64_t wkey, uint64_t rkey, const char *addr,
			int wfd, int rfd, const struct ipcperf_flow_match *m)
{
	struct ipp_jflow *f = ipp_idmap__get(&p->jflows, wkey);
	int64_t wire = (int64_t)(m->read_end_ns - m->write_start_ns);

	if (!f && !(f = jflow_new(p, wkey, rkey, addr, wfd, rfd, m)))
		return;		/* no memory: the flow is left out, its paths are not */
	f->bytes += m->bytes;
	f->matches++;
	if (m->read_end_ns > f->last_ns)
		f->last_ns = m->read_end_ns;
	ipp_hist_add(&f->wire, wire > 0 ? (uint64_t)wire : 0);
}

/* ------------------------------------------------------------------ handed out */

struct jflow_list {
	struct ipp_jflow **v;
	size_t n, cap;
	int err;
};

static void collect(void *ctx, void *val)
{
	struct jflow_list *l = ctx;

	if (ipp_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)) < 0)
		l->err = -ENOMEM;
	else
		l->v[l->n++] = val;
}

/* By first write, then writing end: the order does not depend on the map's. */
static int cmp_jflow(const void *a, const void *b)
{
	const struct ipp_jflow *x = *(struct ipp_jflow *const *)a, *y = *(struct ipp_jflow *const *)b;

	if (x->first_ns != y->first_ns)
		return x->first_ns < y->first_ns ? -1 : 1;
	return x->wkey < y->wkey ? -1 : x->wkey > y->wkey;
}

/* One end's facts as its own host knows them; its comm into @comm. */
static void end_of(const struct ipcperf_paths *p, struct ipcperf_joined_end *e, pid_t pid,
		   int fd, uint64_t key, char *comm)
{
	ipp_paths__comm(p, pid, comm);
	e->pid = ipp_paths__pid_on(p, pid, &e->host);
	e->comm = comm;
	e->fd = fd;
	e->ino = key ^ ((uint64_t)e->host << IPP_HOST_INO_SHIFT);
}

static int hand_out(const struct ipcperf_paths *p, const struct ipp_jflow *f,
		    int (*cb)(void *ctx, const struct ipcperf_joined_flow *f), void *ctx)
{
	char wcomm[IPP_COMM_MAX], rcomm[IPP_COMM_MAX];
	struct ipcperf_joined_flow jf = {
		.object = f->object, .bytes = f->bytes, .matches = f->matches,
		.first_ns = f->first_ns, .last_ns = f->last_ns,
		.wire_ns = { ipp_hist_min(&f->wire), ipp_hist_percentile(&f->wire, 50),
			     ipp_hist_percentile(&f->wire, 99), ipp_hist_max(&f->wire) },
		.wire_hist = ipp_as_hist(&f->wire),
	};

	end_of(p, &jf.writer, f->wpid, f->wfd, f->wkey, wcomm);
	end_of(p, &jf.reader, f->rpid, f->rfd, f->rkey, rcomm);
	return cb(ctx, &jf);
}

int ipcperf_paths__for_each_joined(const struct ipcperf_paths *p,
				   int (*cb)(void *ctx, const struct ipcperf_joined_flow *f),
				   void *ctx)
{
	struct jflow_list l = { 0 };
	int ret = 0;

	if (!p || !cb)
		return -EINVAL;
	ipp_idmap__each(&p->jflows, collect, &l);
	if (!l.err && l.n)
		qsort(l.v, l.n, sizeof(*l.v), cmp_jflow);
	for (size_t i = 0; !l.err && !ret && i < l.n; i++)
		ret = hand_out(p, l.v[i], cb, ctx);
	free(l.v);
	return l.err ? l.err : ret;
}

static void free_jflow(void *ctx, void *val)
{
	(void)ctx;
	free(val);
}

void ipp_joinflows__free(struct ipcperf_paths *p)
{
	ipp_idmap__each(&p->jflows, free_jflow, NULL);
	ipp_idmap__fini(&p->jflows);
}
