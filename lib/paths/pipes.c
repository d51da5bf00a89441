/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Pipe chains: the stages of a pipeline (src | a | b | sink), one message
 * at a time, from the flows' tap.
 *
 * A pipe carries no answers: a message is one write call's bytes, numbered
 * by byte offset as the writes and the flows' matches come (the matches of
 * a pipe come in the order of its bytes), then taken in the order they
 * happened (order.c). A thread that took a message's first byte holds it;
 * the next write it makes on a pipe passes it on: that write's message is
 * the next link of the chain, and the stage's own time is from the read
 * that took the message's last byte to that write's start. A write by a
 * thread that holds nothing starts a chain (its writer is the originator).
 * A thread that never writes on a pipe again is the chain's last stage (a
 * sink): its link ends where the message was read whole.
 *
 * One message in, one message out, or nothing is said: a stage that took
 * several messages before it wrote (stdio's buffers, a read that took the
 * bytes of several) merged them, and one that wrote again without taking a
 * new message, or before it had the whole message, split it; each chain it
 * touched is counted with that reason, never guessed. What a write is (a
 * link, a merge, a piece) is settled when a traced thread of another
 * process reads it: a write read out of sight (the last stage's output
 * piped to a pager, a stage's stderr) says nothing of what the stage did,
 * and the messages it carried end at that stage, as at a sink. A pipe whose
 * two ends are in one process is a hand-off inside it, no stage.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "fd/fdtable.h"
#include "paths/paths.h"

/* Messages a thread may take without writing before the oldest are decided. */
#define TAKEN_MAX 1024
/*
 * A message no traced thread read when a pipe's most (1 MiB, the default
 * pipe-max-size) was written after it, a second of events later, was read
 * out of sight: a traced reader's read comes some tens of ms late at most.
 */
#define GONE_BYTES (1ull << 20)
#define GONE_NS 1000000000ull

/* One message: one write call's bytes into a pipe. */
struct ipp_pmsg {
	uint64_t off0, off1;
	uint64_t w_start;
	pid_t wpid, wtid;
	int wfd;
	uint64_t rd;			/* bytes read so far */
	bool read;			/* its first byte was read: */
	uint64_t r_last;		/* the end of the last read that took its bytes */
	pid_t rpid, rtid;
	int rfd;
	bool many;			/* bytes of it read by more than one thread */
	bool fwd;			/* its reader passed it on: */
	uint64_t next_start;		/* at the start of that write */
	uint64_t cut[3];		/* its reader's own time, by state */
	struct ipp_pchain *chain;	/* NULL: not in one yet, or its chain is out */
	bool out;			/* its chain is out */
	/* written by a stage, until a traced process reads it: */
	struct ipp_pmsg **from;		/* the messages it passes on (references) */
	size_t nr_from;
	bool short_in;			/* the last of them was not all read by then */
	struct ipp_pmsg *split_of;	/* a second piece of this one's (a reference) */
	bool split;			/* a second piece of it was read before it */
	size_t refs;
};

/* A chain: the messages of one request, in order, and how many are not decided yet. */
struct ipp_pchain {
	struct ipp_pmsg **v;
	size_t n, cap;
	size_t open;
	enum ipp_drop drop;
};

/* A pipe: its bytes in and out, and the messages whose bytes are not all matched. */
struct ipp_pipe {
	uint64_t woff, roff;
	struct ipp_pmsg **q;
	size_t n, cap;
};

/* A thread: the messages it took since it last wrote, and the write that passed them on. */
struct ipp_pthr {
	struct ipp_pmsg **taken;	/* references */
	size_t n, cap;
	struct ipp_pmsg *last;		/* the write that passed its last ones on, until it takes more */
	bool stage;			/* it wrote on a pipe */
};

struct ipp_pipes {
	struct ipp_idmap pipes;		/* pipe inode -> ipp_pipe */
	struct ipp_idmap thrs;		/* tid -> ipp_pthr */
	struct ipp_idmap chains;	/* chain address -> chain, until out */
};

static struct ipp_pipes *pipes_of(struct ipcperf_paths *p)
{
	if (!p->pipes)
		p->pipes = calloc(1, sizeof(*p->pipes));
	return p->pipes;
}

static void msgs_put(struct ipp_pmsg **v, size_t n);

static void msg_put(struct ipp_pmsg *m)
{
	if (!m || --m->refs)
		return;
	msgs_put(m->from, m->nr_from);
	msg_put(m->split_of);
	free(m);
}

/* Let go of the @n references of the array @v, and of the array. */
static void msgs_put(struct ipp_pmsg **v, size_t n)
{
	for (size_t k = 0; k < n; k++)
		msg_put(v[k]);
	free(v);
}

static struct ipp_pthr *pthr_of(struct ipp_pipes *ps, pid_t tid)
{
	if (tid <= 0)
		return NULL;
	return ipp_idmap__get_new(&ps->thrs, (uint64_t)tid, sizeof(struct ipp_pthr));
}

/* ------------------------------------------------------------------ the paths */

static enum ipp_drop check(const struct ipp_pchain *c)
{
	if (c->drop)
		return c->drop;
	for (size_t k = 0; k < c->n; k++) {
		if (!c->v[k]->read)
			return IPP_DROP_UNTRACED;
		if (c->v[k]->rd < c->v[k]->off1 - c->v[k]->off0)
			return IPP_DROP_UNREAD;
	}
	return IPP_DROP_NONE;
}

/*
 * Hop @k of @c into @h, its caller's time from @from (the end of the hop
 * before: the times follow one another, so they add up to the whole).
 */
static void put_hop(struct ipcperf_paths *p, const struct ipp_pchain *c, size_t k, uint64_t from,
		    struct ipcperf_path_hop *h, char *comm)
{
	const struct ipp_pmsg *m = c->v[k];

	*h = (struct ipcperf_path_hop){
		.parent = (int)k - 1, .pid = m->rpid, .tid = m->rtid, .comm = comm, .fd = m->rfd,
		.caller_pid = m->wpid, .caller_tid = m->wtid, .caller_fd = m->wfd,
		.kind = IPCPERF_FD_PIPE, .request_bytes = m->off1 - m->off0, .call_start_ns = from,
	};
	ipp_paths__comm(p, m->rpid, comm);
	h->start_ns = m->r_last > from ? m->r_last : from;
	h->end_ns = m->fwd && m->next_start > h->start_ns ? m->next_start : h->start_ns;
	h->call_end_ns = h->end_ns;
	h->request_ns = h->start_ns - h->call_start_ns;
	h->self_ns = h->end_ns - h->start_ns;
	if (ipp_paths__split_ok(p)) {
		h->split = true;
		h->cpu_ns = m->cut[IPP_RUN_ON];
		h->runq_ns = m->cut[IPP_RUN_RUNQ];
		h->blocked_ns = m->cut[IPP_RUN_BLOCKED];
	}
}

static void emit(struct ipcperf_paths *p, const struct ipp_pchain *c)
{
	enum ipp_drop d = check(c);
	size_t cap = p->cap_comms;
	uint64_t from = c->v[0]->w_start;
	struct ipcperf_path path;

	if (d) {
		ipp_paths__count_drop(p, d);
		return;
	}
	if (ipp_grow((void **)&p->hops, &p->cap_hops, c->n, sizeof(*p->hops)) < 0 ||
	    ipp_grow((void **)&p->comms, &cap, c->n + 1, sizeof(*p->comms)) < 0)
		return;
	p->cap_comms = cap;
	for (size_t k = 0; k < c->n; k++) {
		put_hop(p, c, k, from, &p->hops[k], p->comms[k + 1]);
		from = p->hops[k].end_ns;
	}
	path = (struct ipcperf_path){
		.pid = c->v[0]->wpid, .tid = c->v[0]->wtid, .comm = p->comms[0], .fd = c->v[0]->wfd,
		.start_ns = c->v[0]->w_start, .end_ns = from, .hops = p->hops, .nr_hops = c->n,
	};
	ipp_paths__comm(p, path.pid, p->comms[0]);
	ipp_paths__unmap(p, &path, p->hops);
	p->counts.paths++;
	if (p->cb)
		p->cb(p->cb_ctx, &path);
}

static void chain_free(struct ipp_pipes *ps, struct ipp_pchain *c)
{
	ipp_idmap__del(&ps->chains, (uint64_t)(uintptr_t)c);
	for (size_t k = 0; k < c->n; k++) {
		c->v[k]->chain = NULL;
		c->v[k]->out = true;
		msg_put(c->v[k]);
	}
	free(c->v);
	free(c);
}

/* @m's fate is known (passed on, or the chain ends with it): out with the chain when all are. */
static void decide(struct ipcperf_paths *p, struct ipp_pmsg *m)
{
	struct ipp_pchain *c = m->chain;

	if (!c || --c->open)
		return;
	emit(p, c);
	chain_free(p->pipes, c);
}

/* @m joins @c (NULL: a chain of its own). */
static void join(struct ipcperf_paths *p, struct ipp_pchain *c, struct ipp_pmsg *m)
{
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return;
		if (ipp_idmap__put(&p->pipes->chains, (uint64_t)(uintptr_t)c, c) < 0) {
			free(c);
			return;
		}
	}
	if (ipp_grow((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v)) < 0) {
		ipp_drop_once(&c->drop, IPP_DROP_LOST);
		return;
	}
	c->v[c->n++] = m;
	m->refs++;
	m->chain = c;
	c->open++;
}

static void mark(struct ipp_pmsg *m, enum ipp_drop d)
{
	if (m->chain)
		ipp_drop_once(&m->chain->drop, d);
}

/* ------------------------------------------------------------------ the calls, in order */

/* A message taken ends there (a sink), or is left out for @d: no own time of a stage's. */
static void end_at(struct ipcperf_paths *p, struct ipp_pmsg *m, enum ipp_drop d)
{
	if (d)
		mark(m, d);
	decide(p, m);
}

/*
 * @t writes @m. It holds nothing: a chain begins. It holds the messages it
 * took since it last wrote: @m passes them on, once a traced process of
 * another reads it (link()). It took nothing since it passed one on: @m is
 * a second piece of that one, if it is read.
 */
static void on_write(struct ipcperf_paths *p, struct ipp_pthr *t, struct ipp_pmsg *m)
{
	struct ipp_pmsg *in = t->n ? t->taken[t->n - 1] : NULL;

	t->stage = true;
	if (!in && !t->last) {
		join(p, NULL, m);
		return;
	}
	if (!in) {
		m->split_of = t->last;
		t->last->refs++;
		return;
	}
	m->from = t->taken;
	m->nr_from = t->n;
	t->taken = NULL;
	t->n = t->cap = 0;
	m->short_in = in->many || in->rd < in->off1 - in->off0;
	in->next_start = m->w_start;
	if (ipp_paths__split_ok(p) && m->w_start > in->r_last)
		ipp_paths__thr_split(ipp_idmap__get(&p->thrs, (uint64_t)in->rtid), in->r_last,
				     m->w_start, IPP_RUN_ON, in->cut);
	msg_put(t->last);
	t->last = m;
	m->refs++;
}

/* @m, written by a stage, is read: the messages it passes on go on in it. */
static void link_from(struct ipcperf_paths *p, struct ipp_pmsg *m, bool inside)
{
	struct ipp_pmsg *in = m->from[m->nr_from - 1];

	for (size_t k = 0; k + 1 < m->nr_from; k++)
		end_at(p, m->from[k], inside ? IPP_DROP_NO_CAUSE : IPP_DROP_MERGED);
	if (inside) {
		end_at(p, in, IPP_DROP_NO_CAUSE);	/* a hand-off in one process: not followed */
		return;
	}
	if (m->nr_from > 1)
		mark(in, IPP_DROP_MERGED);
	if (m->short_in || in->split)
		mark(in, IPP_DROP_SPLIT);
	in->fwd = true;
	join(p, in->chain, m);
	decide(p, in);
}

/* @m, a second piece of what its writer passed on, is read: that one was split. */
static void link_piece(struct ipcperf_paths *p, struct ipp_pmsg *m)
{
	struct ipp_pmsg *w = m->split_of;

	if (w->chain) {
		mark(w, IPP_DROP_SPLIT);
		join(p, w->chain, m);
	} else {
		w->split = true;	/* when it is read itself, it is split */
	}
	if (!m->chain)
		join(p, NULL, m);
	mark(m, IPP_DROP_PART);
}

/* @m's first byte was read by a traced thread (of the writer's process: @inside). */
static void link(struct ipcperf_paths *p, struct ipp_pmsg *m, bool inside)
{
	if (m->nr_from)
		link_from(p, m, inside);
	else if (m->split_of && !inside)
		link_piece(p, m);
	msgs_put(m->from, m->nr_from);
	m->from = NULL;
	m->nr_from = 0;
	msg_put(m->split_of);
	m->split_of = NULL;
}

/* @t took @m's first byte: a sink's oldest messages are decided once it keeps too many. */
static void on_take(struct ipcperf_paths *p, struct ipp_pthr *t, struct ipp_pmsg *m)
{
	if (ipp_grow((void **)&t->taken, &t->cap, t->n + 1, sizeof(*t->taken)) < 0) {
		mark(m, IPP_DROP_LOST);
		return;
	}
	t->taken[t->n++] = m;
	m->refs++;
	msg_put(t->last);
	t->last = NULL;
	if (t->n < TAKEN_MAX)
		return;
	/* a stage that took so many without writing merges them; a sink ends them */
	for (size_t k = 0; k + 1 < t->n; k++) {
		end_at(p, t->taken[k], t->stage ? IPP_DROP_MERGED : IPP_DROP_NONE);
		msg_put(t->taken[k]);
	}
	t->taken[0] = t->taken[t->n - 1];
	t->n = 1;
}

static void on_match(struct ipcperf_paths *p, struct ipp_pthr *t, const struct ipp_item *it)
{
	struct ipp_pmsg *m = it->pm;

	if (m->out)
		return;		/* its chain is out already (a split) */
	m->rd += it->bytes;
	if (it->end > m->r_last)
		m->r_last = it->end;
	if (it->off != m->off0) {
		m->many |= m->read && m->rtid != it->tid;
		return;
	}
	m->read = true;
	m->rpid = it->pid;
	m->rtid = it->tid;
	m->rfd = it->fd;
	link(p, m, it->pid == m->wpid);
	if (it->pid == m->wpid) {
		end_at(p, m, IPP_DROP_PART);	/* a pipe inside one process: no stage */
		return;
	}
	if (m->chain)
		on_take(p, t, m);
}

/*
 * @m was read out of sight (or not at all). A chain's first is not followed
 * (untraced); what a stage passed on in it ends at that stage, as at a
 * sink: the path leaves the traced processes there.
 */
static void unseen(struct ipcperf_paths *p, struct ipp_pmsg *m)
{
	if (m->read)
		return;
	if (m->chain)
		end_at(p, m, IPP_DROP_UNTRACED);
	for (size_t i = 0; i < m->nr_from; i++) {
		end_at(p, m->from[i], IPP_DROP_NONE);
		msg_put(m->from[i]);
	}
	free(m->from);
	m->from = NULL;
	m->nr_from = 0;
}

void ipp_pipes__process(struct ipcperf_paths *p, const struct ipp_item *it)
{
	struct ipp_pthr *t = pthr_of(p->pipes, it->tid);

	if (it->kind == IPP_IT_PGONE) {
		unseen(p, it->pm);
		return;
	}
	if (!t) {
		mark(it->pm, IPP_DROP_LOST);
		return;
	}
	if (it->kind == IPP_IT_PWRITE)
		on_write(p, t, it->pm);
	else
		on_match(p, t, it);
}

void ipp_pipes__late(struct ipcperf_paths *p, struct ipp_pmsg *m)
{
	(void)p;
	mark(m, IPP_DROP_LATE);
}

void ipp_pipes__hold(struct ipp_pmsg *m)
{
	m->refs++;
}

void ipp_pipes__put(struct ipp_pmsg *m)
{
	msg_put(m);
}

/* ------------------------------------------------------------------ the tap */

static struct ipp_pipe *pipe_of(struct ipp_pipes *ps, uint64_t ino, bool create)
{
	return create ? ipp_idmap__get_new(&ps->pipes, ino, sizeof(struct ipp_pipe)) :
			ipp_idmap__get(&ps->pipes, ino);
}

static void tap_write(struct ipcperf_paths *p, struct ipp_pipe *pp, const struct ipcperf_syscall *ev)
{
	struct ipp_pmsg *m = calloc(1, sizeof(*m));
	struct ipp_item it = { .kind = IPP_IT_PWRITE, .eff = ev->start_ns, .pid = ev->pid,
			       .tid = ev->tid, .fd = ev->fd, .start = ev->start_ns,
			       .end = ev->end_ns };

	if (!m || ipp_grow((void **)&pp->q, &pp->cap, pp->n + 1, sizeof(*pp->q)) < 0) {
		free(m);
		pp->woff += (uint64_t)ev->ret;
		return;
	}
	*m = (struct ipp_pmsg){ .off0 = pp->woff, .off1 = pp->woff + (uint64_t)ev->ret,
				.w_start = ev->start_ns, .wpid = ev->pid, .wtid = ev->tid,
				.wfd = ev->fd, .rfd = -1, .refs = 1 };
	pp->woff = m->off1;
	pp->q[pp->n++] = m;
	it.pm = m;
	ipp_order__push(p, &it, ev->end_ns);
	/* after this write's item: the ones that say a message went out of sight */
	while (pp->n > 1 && pp->woff - pp->q[0]->off1 > GONE_BYTES &&
	       ev->start_ns - pp->q[0]->w_start > GONE_NS) {
		it = (struct ipp_item){ .kind = IPP_IT_PGONE, .eff = ev->start_ns, .pm = pp->q[0],
					.pid = ev->pid, .tid = ev->tid, .fd = -1 };
		ipp_order__push(p, &it, ev->end_ns);
		msg_put(pp->q[0]);
		memmove(pp->q, pp->q + 1, --pp->n * sizeof(*pp->q));
	}
}

bool ipp_pipes__on_call(struct ipcperf_paths *p, const struct ipcperf_syscall *ev,
			const struct ipp_ident *ch, bool writing)
{
	struct ipp_pipes *ps;
	struct ipp_pipe *pp;

	if (ch->kind != IPCPERF_FD_PIPE)
		return false;
	ps = pipes_of(p);
	pp = ps && ch->ino ? pipe_of(ps, ch->ino, writing && ev->ret > 0) : NULL;
	if (!writing) {
		p->rd_tid = ev->tid;
		p->rd_start = ev->start_ns;
		p->rd_fd = ev->fd;
	}
	if (pp && writing && ev->ret > 0)
		tap_write(p, pp, ev);
	else
		ipp_order__tick(p, ev->end_ns);
	return true;
}

bool ipp_pipes__on_match(struct ipcperf_paths *p, uint64_t key, const struct ipcperf_flow_match *m)
{
	struct ipp_pipe *pp = p->pipes ? pipe_of(p->pipes, key, false) : NULL;
	struct ipp_item it;

	if (!pp)
		return false;
	/* the messages all of whose bytes were matched before this one */
	while (pp->n && pp->q[0]->off1 <= pp->roff) {
		msg_put(pp->q[0]);
		memmove(pp->q, pp->q + 1, --pp->n * sizeof(*pp->q));
	}
	it = (struct ipp_item){
		.kind = IPP_IT_PMATCH, .off = pp->roff, .bytes = m->bytes, .pid = m->rpid,
		.tid = m->rtid, .start = m->read_start_ns, .end = m->read_end_ns,
		.eff = m->read_end_ns,
		.fd = p->rd_tid == m->rtid && p->rd_start == m->read_start_ns ? p->rd_fd : -1,
	};
	pp->roff += m->bytes;
	if (!pp->n || pp->q[0]->off0 > it.off)
		return true;	/* bytes written before we looked */
	it.pm = pp->q[0];
	ipp_order__push(p, &it, m->read_end_ns > m->write_end_ns ? m->read_end_ns : m->write_end_ns);
	return true;
}

/* ------------------------------------------------------------------ the end */

static void lost_chain(void *ctx, void *val)
{
	struct ipp_pchain *c = val;

	(void)ctx;
	ipp_drop_once(&c->drop, IPP_DROP_LOST);
}

void ipp_pipes__lost(struct ipcperf_paths *p)
{
	if (p->pipes)
		ipp_idmap__each(&p->pipes->chains, lost_chain, NULL);
}

static void oldest(void *ctx, void *val)
{
	const struct ipp_pthr *t = val;
	uint64_t *from = ctx;

	if (t->n && t->taken[0]->r_last < *from)
		*from = t->taken[0]->r_last;
}

uint64_t ipp_pipes__needed_from(const struct ipcperf_paths *p, uint64_t from)
{
	if (p->pipes)
		ipp_idmap__each(&p->pipes->thrs, oldest, &from);
	return from;
}

/* The end: what a thread holds ends there (a stage's, under way: no answer of it came). */
static void flush_thr(void *ctx, void *val)
{
	struct ipcperf_paths *p = ctx;
	struct ipp_pthr *t = val;

	for (size_t k = 0; k < t->n; k++) {
		end_at(p, t->taken[k], t->stage ? IPP_DROP_NO_RESPONSE : IPP_DROP_NONE);
		msg_put(t->taken[k]);
	}
	t->n = 0;
}

/* The end: the messages no traced thread read. */
static void flush_pipe(void *ctx, void *val)
{
	struct ipcperf_paths *p = ctx;
	struct ipp_pipe *pp = val;

	for (size_t k = 0; k < pp->n; k++)
		unseen(p, pp->q[k]);
}

void ipp_pipes__flush(struct ipcperf_paths *p)
{
	if (!p->pipes)
		return;
	ipp_idmap__each(&p->pipes->thrs, flush_thr, p);
	ipp_idmap__each(&p->pipes->pipes, flush_pipe, p);
}

static void free_pthr(void *ctx, void *val)
{
	struct ipp_pthr *t = val;

	(void)ctx;
	msgs_put(t->taken, t->n);
	msg_put(t->last);
	free(t);
}

static void free_pipe(void *ctx, void *val)
{
	struct ipp_pipe *pp = val;

	(void)ctx;
	msgs_put(pp->q, pp->n);
	free(pp);
}

static void collect(void *ctx, void *val)
{
	struct ipp_pchain ***end = ctx;

	*(*end)++ = val;
}

void ipp_pipes__free(struct ipcperf_paths *p)
{
	struct ipp_pipes *ps = p->pipes;
	struct ipp_pchain **all, **end;

	if (!ps)
		return;
	all = calloc(ps->chains.n + 1, sizeof(*all));
	end = all;
	if (all)
		ipp_idmap__each(&ps->chains, collect, &end);
	for (struct ipp_pchain **c = all; c && c < end; c++)
		chain_free(ps, *c);
	free(all);
	ipp_idmap__each(&ps->thrs, free_pthr, NULL);
	ipp_idmap__each(&ps->pipes, free_pipe, NULL);
	ipp_idmap__fini(&ps->thrs);
	ipp_idmap__fini(&ps->pipes);
	ipp_idmap__fini(&ps->chains);
	free(ps);
	p->pipes = NULL;
}
