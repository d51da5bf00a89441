/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Flow correlation: links each read on a channel to the write(s) it drained.
 *
 * Byte streams (pipes, stream sockets) are matched by byte offset: the k-th
 * byte written into a channel is the k-th byte read out (doc/accuracy.md,
 * rule 6), so every channel keeps a FIFO of the written segments not yet read
 * and each read takes its bytes from the front. Datagrams are matched message
 * by message. A pipe is one flow; a socket end carries the flow from itself
 * to its peer, keyed by the writing end's inode.
 *
 * Events arrive in the order calls finish. A read can finish before the write
 * that fed it (a large write into a full pipe returns only after the reader
 * has drained part of it): such read bytes wait as "debt" for a write that
 * was already under way when the read finished; bytes no traced write can
 * explain were written before the capture and count as unmatched.
 *
 * What an fd is may be settled only some time after the call (see fdtable.h:
 * a /proc answer is confirmed when the events reach the time it was read),
 * so calls wait in arrival order until their fd is settled; a call on an fd
 * that turns out unknown is left out.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include "stats/account.h"
#include "flows/flows.h"
#include "flows/chains.h"
#include "fd/fdtable.h"
#include "hist.h"
#include "internal.h"
#include "flows/waits.h"

const char *ipcperf_verdict_name(enum ipcperf_verdict v)
{
	switch (v) {
	case IPCPERF_VERDICT_BACKPRESSURE: return "backpressure";
	case IPCPERF_VERDICT_CONSUMER_STARVED: return "consumer-starved";
	case IPCPERF_VERDICT_IDLE: return "idle";
	case IPCPERF_VERDICT_UNMEASURED: return "unmeasured";
	default: return "balanced";
	}
}

struct ipcperf_flows *ipcperf_flows__new(struct ipcperf_stats *st)
{
	struct ipcperf_flows *fl;

	fl = ipp_new_checked(st != NULL, sizeof(*fl));
	if (!fl)
		return NULL;
	fl->st = st;
	fl->fold_at = IPP_FLOWS_FOLD_MIN;
	fl->waits = ipp_waits__new();
	if (!fl->waits)
		return ipp_new_failed(fl);
	ipp_settleq__init(&fl->pend, ipp_stats__fdtab(st));
	return fl;
}

void ipcperf_flows__delete(struct ipcperf_flows *fl)
{
	if (!fl)
		return;
	for (size_t i = 0; i < fl->nr; i++) {
		ipp_flows__unpin(fl, fl->flows[i]);
		ipp_flows__free_flow(fl->flows[i]);
	}
	ipp_flows__drop_folds(fl);
	ipp_settleq__fini(&fl->pend);
	ipp_waits__delete(fl->waits);
	ipp_free_all(fl->folds, fl->flows, fl->warm, fl->served, fl->takes, fl);
}

void ipp_flows__free_flow(struct flow *f)
{
	free(f->writers.v);
	free(f->readers.v);
	free(f->segs.v);
	free(f->debts.v);
	free(f->wire);
	free(f->wire_packed);
	free(f);
}

void ipp_flows__unpin(struct ipcperf_flows *fl, struct flow *f)
{
	for (int i = 0; i < 2; i++) {
		ipp_stats__unpin(fl->st, f->pinned[i]);
		f->pinned[i] = 0;
	}
}

/*
 * The inodes of @f's ends pinned in the stats while it has a side no
 * traced process made a call on (since the last reset): the row of its
 * traced end names that side (ipp_peers__of_inos(), the CLI's groups), so
 * it must not fold into its group first (stats/connfold.c). A pin that
 * finds no memory is left out: that row may fold.
 */
static void flow_pin(struct ipcperf_flows *fl, struct flow *f)
{
	bool one_sided = !f->writers.n || !f->readers.n;
	const uint64_t want[2] = { one_sided ? f->ino & ~UNPEERED : 0,
				   one_sided ? f->reader_ino : 0 };

	for (int i = 0; i < 2; i++) {
		if (f->pinned[i] == want[i])
			continue;
		ipp_stats__unpin(fl->st, f->pinned[i]);
		f->pinned[i] = ipp_stats__pin(fl->st, want[i]) == 0 ? want[i] : 0;
	}
}

IPP_DEFINE_CB_SETTER(ipcperf_flows__on_match, struct ipcperf_flows, match_cb, match_ctx)

void ipp_flows__tap(struct ipcperf_flows *fl, const struct ipp_flowtap *t)
{
	fl->tap = t ? *t : (struct ipp_flowtap){ 0 };
}

struct ipcperf_stats *ipp_flows__stats(struct ipcperf_flows *fl)
{
	return fl->st;
}

/* Flows made between two cool() passes; still for this long (the events' time, 10 ms), a flow is packed. */
#define COOL_EVERY 256
#define COOL_NS 10000000ull

static void fifo_release(struct fifo *q)
{
	if (q->len)
		return;
	free(q->v);
	*q = (struct fifo){ 0 };
}

/*
 * The warm flows still for COOL_NS: their wire histograms packed, their
 * empty queues freed (a flow that moves bytes again takes them back).
 */
static void cool(struct ipcperf_flows *fl)
{
	size_t k = 0;

	for (size_t i = 0; i < fl->nr_warm; i++) {
		struct flow *f = fl->warm[i];
		struct ipp_hist_packed *p = NULL;

		if (f->last + COOL_NS > fl->now || (!(p = ipp_hist_pack(f->wire)) && errno)) {
			fl->warm[k++] = f;
			continue;
		}
		fifo_release(&f->segs);
		fifo_release(&f->debts);
		f->wire_packed = p;
		free(f->wire);
		f->wire = NULL;
	}
	fl->nr_warm = k;
}

/* ------------------------------------------------------------------ containers */

static struct seg *fifo_front(struct fifo *q)
{
	return q->len ? &q->v[q->head] : NULL;
}

static void fifo_pop(struct fifo *q)
{
	q->head = (q->head + 1) % q->cap;
	q->len--;
}

static int fifo_push(struct fifo *q, const struct seg *s)
{
	if (ipp_ring_reserve((void **)&q->v, &q->cap, &q->head, q->len, sizeof(*q->v),
			     IPP_GROW_MIN) < 0)
		return -ENOMEM;
	q->v[(q->head + q->len) % q->cap] = *s;
	q->len++;
	return 0;
}

static void pidset_add(struct pidset *s, pid_t pid)
{
	size_t i = 0;
	pid_t *slot;

	while (i < s->n && s->v[i] < pid)
		i++;
	if (i < s->n && s->v[i] == pid)
		return;
	slot = ipp_insert_at((void **)&s->v, &s->n, &s->cap, i, sizeof(*slot));
	if (slot)
		*slot = pid;
}

/*
 * Where a key sorts among the flows: by its inode, the UNPEERED bit last.
 * The kernel numbers new sockets upwards, so a new flow, keyed by a
 * writing end or UNPEERED, goes at the end of the array: by the keys
 * alone, a new writing end's flow would go before every UNPEERED one, and
 * a busy server's new connections would move half the array each.
 */
static uint64_t sort_key(uint64_t key)
{
	return key << 1 | key >> 63;
}

static int cmp_flow_ino(const void *key, const void *elem)
{
	uint64_t a = sort_key(*(const uint64_t *)key);
	uint64_t b = sort_key((*(struct flow *const *)elem)->ino);

	return (a > b) - (a < b);
}

static struct flow *get_flow(struct ipcperf_flows *fl, uint64_t ino, bool create)
{
	bool made;
	struct flow *f = ipp_sorted_get_new((void **)&fl->flows, &fl->nr, &fl->cap, sizeof(*f), &ino,
					    cmp_flow_ino, create, &made);

	if (!made)
		return f;
	f->ino = ino;
	f->capacity = -1;
	if (++fl->made % COOL_EVERY == 0)
		cool(fl);
	return f;
}

/* ------------------------------------------------------------------ matching */

/*
 * The dense wire histogram of @f to add to: made, or taken back from its
 * packed one; the flow is warm. NULL: no memory.
 */
static struct ipp_hist *wire_of(struct ipcperf_flows *fl, struct flow *f)
{
	if (f->wire)
		return f->wire;
	if (ipp_grow((void **)&fl->warm, &fl->cap_warm, fl->nr_warm + 1, sizeof(*fl->warm)) < 0)
		return NULL;
	f->wire = ipp_hist_unpack(&f->wire_packed);
	if (f->wire)
		fl->warm[fl->nr_warm++] = f;
	return f->wire;
}

static void set_queued(struct flow *f, uint64_t queued, uint64_t when)
{
	bool full;

	f->queued = queued;
	/*
	 * Calls are seen as they end: a writer woken by a reader can return
	 * before that reader does, and the estimate overshoots by a write. A
	 * pipe whose size we read cannot hold more than that size.
	 */
	if (f->kind == IPCPERF_FD_PIPE && !f->cap_default && f->capacity > 0 &&
	    queued > (uint64_t)f->capacity)
		queued = (uint64_t)f->capacity;
	if (queued > f->max_queued)
		f->max_queued = queued;
	if (f->capacity <= 0)
		return;
	full = queued * 10 >= (uint64_t)f->capacity * 9;
	if (full && !f->full_since)
		f->full_since = when ? when : 1;
	else if (!full && f->full_since) {
		f->full_ns += when - f->full_since;
		f->full_since = 0;
		f->full_end = when;
	}
}

static void match(struct ipcperf_flows *fl, struct flow *f, const struct seg *w,
		  const struct seg *r, uint64_t bytes)
{
	/*
	 * From the write's start (its bytes begin to go in) to the read's end
	 * (they are out): bytes can leave before the write that put them in
	 * returns (a reader blocked in read), never before it started. At least
	 * 1 ns: bytes that crossed took time.
	 */
	uint64_t wire = r->end > w->start ? r->end - w->start : 1;
	struct ipp_hist *h = wire_of(fl, f);

	if (h)
		ipp_hist_add(h, wire);
	f->matches++;
	if (fl->match_cb || fl->tap.match) {
		struct ipcperf_flow_match m = {
			.object = f->object, .wpid = w->pid, .wtid = w->tid, .rpid = r->pid,
			.rtid = r->tid, .write_start_ns = w->start, .write_end_ns = w->end,
			.read_start_ns = r->start, .read_end_ns = r->end, .bytes = bytes,
			.queued = f->queued,
		};

		if (fl->tap.match)
			fl->tap.match(fl->tap.ctx, f->ino, &m);
		if (fl->match_cb)
			fl->match_cb(fl->match_ctx, &m);
	}
}

/*
 * @ev, a call that moved bytes, counted into its side @m of a flow; its
 * span [first, last] takes it in (0: none yet; a call from 0 counts from 1 ns).
 * @return its segment, every byte of it still to match.
 */
static struct seg moved_add(struct moved *m, const struct ipcperf_syscall *ev)
{
	m->calls++;
	m->bytes += (uint64_t)ev->ret;
	if (!m->first || ev->start_ns < m->first)
		m->first = ev->start_ns ? ev->start_ns : 1;
	if (ev->end_ns > m->last)
		m->last = ev->end_ns;
	return (struct seg){ .start = ev->start_ns, .end = ev->end_ns, .pid = ev->pid,
			     .tid = ev->tid, .left = (uint64_t)ev->ret };
}

/*
 * A socket's side that no traced call was seen on yet: its writes (or its
 * reads) queue for the other side's calls, which may never come (a server
 * traced alone: its client is not). A queue of such a side holds at most
 * UNSEEN_KEEP entries, 16 KiB: a busy server's live connections each have
 * two. When it is full, its oldest UNSEEN_DROP go at once (a run of
 * neighbours, where one at a time was a cache miss a call): the writes
 * were read out of sight, the reads are unmatched. So a traced side whose
 * first call comes after more than UNSEEN_KEEP - UNSEEN_DROP of the
 * other's may have its first matches wrong (doc/accuracy.md). A unix
 * socket with its default buffer never holds that many: each write is a
 * buffer of its own, charged ~766 bytes to the 208 KiB (278 one-byte
 * writes fill it, on Linux 6.1); TCP's receive side merges them. A pipe
 * holds no more than its size, and keeps its queue.
 */
#define UNSEEN_KEEP 512
#define UNSEEN_DROP 128

/* Room for one more entry in the queue of @f's writes (@writes) or reads, made as above. */
static void unseen_room(struct ipcperf_flows *fl, struct flow *f, bool writes)
{
	struct fifo *q = writes ? &f->segs : &f->debts;
	uint64_t gone = 0;

	if (f->kind == IPCPERF_FD_PIPE || (writes ? f->traced_r : f->traced_w) ||
	    q->len < UNSEEN_KEEP)
		return;
	for (size_t i = 0; i < UNSEEN_DROP; i++) {
		gone += fifo_front(q)->left;
		fifo_pop(q);
	}
	if (writes)
		set_queued(f, f->queued - gone, fl->now);
	else
		f->unmatched += gone;
}

static void on_write(struct ipcperf_flows *fl, struct flow *f, const struct ipcperf_syscall *ev)
{
	struct seg w = moved_add(&f->written, ev);
	struct seg *d;

	/* Reads that finished before this write could not have been fed by it. */
	while ((d = fifo_front(&f->debts)) && d->end < w.start) {
		f->unmatched += d->left;
		fifo_pop(&f->debts);
	}
	while (w.left && (d = fifo_front(&f->debts))) {
		/* A datagram read took what it took of the message, and the whole message left. */
		uint64_t take = d->left < w.left ? d->left : w.left;
		struct seg rd = *d;

		w.left = f->datagram ? 0 : w.left - take;
		d->left -= take;
		if (!d->left || f->datagram)
			fifo_pop(&f->debts);
		match(fl, f, &w, &rd, take);
	}
	if (!w.left && !f->datagram)
		return;
	if (f->datagram && w.left != (uint64_t)ev->ret)
		return;	/* the message was taken by a read already */
	unseen_room(fl, f, true);
	fifo_push(&f->segs, &w);
	set_queued(f, f->queued + w.left, w.end);
}

static void on_read(struct ipcperf_flows *fl, struct flow *f, const struct ipcperf_syscall *ev)
{
	struct seg r = moved_add(&f->read, ev);
	struct seg *w;

	if (f->datagram) {
		/* One read, one message: whatever its size, the whole message leaves. */
		struct seg msg;

		w = fifo_front(&f->segs);
		if (!w) {
			unseen_room(fl, f, false);
			fifo_push(&f->debts, &r);
			return;
		}
		msg = *w;
		fifo_pop(&f->segs);
		set_queued(f, f->queued - msg.left, r.end);
		match(fl, f, &msg, &r, r.left);
		return;
	}
	/* Take the bytes first, report the matches after: "queued" is what the read left. */
	{
		size_t n = 0;
		uint64_t total = 0;

		while (r.left && (w = fifo_front(&f->segs))) {
			uint64_t take = w->left < r.left ? w->left : r.left;

			if (ipp_grow((void **)&fl->takes, &fl->cap_takes, n + 1, sizeof(*fl->takes)) < 0)
				break;	/* out of memory: the rest stays queued */
			fl->takes[n].w = *w;
			fl->takes[n++].bytes = take;
			total += take;
			w->left -= take;
			r.left -= take;
			if (!w->left)
				fifo_pop(&f->segs);
		}
		set_queued(f, f->queued - total, r.end);
		for (size_t i = 0; i < n; i++)
			match(fl, f, &fl->takes[i].w, &r, fl->takes[i].bytes);
	}
	if (r.left) {
		unseen_room(fl, f, false);
		fifo_push(&f->debts, &r);
	}
}

/* What the waits said of the call at the front of pend (it leaves it now). */
static struct served pop_served(struct ipcperf_flows *fl)
{
	struct served sv = fl->served[fl->served_head];

	fl->served_head = (fl->served_head + 1) % fl->served_cap;
	return sv;
}

/* Refusals and waits of the call @ev, on @f. */
static void add_waits(struct flow *f, const struct ipcperf_syscall *ev, const struct served *sv)
{
	bool writing = ev->cls == IPCPERF_SC_WRITE;

	if (ev->ret == -EAGAIN)
		(*(writing ? &f->wagain : &f->ragain))++;
	if (!sv->waited)
		return;
	if (!writing) {
		f->rwait += sv->w.blocked_ns;
		f->rwaits++;
		return;
	}
	/* a writer waited for room: refused, or the channel full while it waited */
	if (sv->w.refused || f->full_since || (f->full_end && f->full_end >= sv->w.start_ns)) {
		f->wwait += sv->w.blocked_ns;
		f->wwaits++;
	}
}

/*
 * The endpoint of an inet channel from its end @ch: the server's address,
 * on which both ends agree: an accepted socket's local one, a connected
 * socket's remote one (a server on a port of the ephemeral range has
 * clients on lower ports); with neither seen, the lower port's.
 */
static void inet_endpoint(char *buf, size_t len, const struct ipp_ident *ch)
{
	const char *arrow = strstr(ch->detail, " -> ");

	if (arrow && ch->origin == IPP_ORIGIN_ACCEPTED)
		snprintf(buf, len, "%.*s", (int)(arrow - ch->detail), ch->detail);
	else if (arrow && ch->origin == IPP_ORIGIN_CONNECTED)
		snprintf(buf, len, "%s", arrow + 4);
	else
		ipcperf_inet_endpoint(buf, len, ch->detail);
}

/* A call whose fd is settled: its bytes into the channel's flow. */
void ipp_flows__process(void *ctx, const struct ipcperf_syscall *ev, const struct ipp_ident *ch)
{
	struct ipcperf_flows *fl = ctx;
	struct flow *f;
	/* vmsplice (a move with one fd): out of a pipe's read end, else into the pipe */
	bool writing = ev->cls == IPCPERF_SC_WRITE ||
		       (ev->cls == IPCPERF_SC_MOVE && ch->accmode != O_RDONLY + 1);
	struct served sv = pop_served(fl);
	uint64_t key;

	if (ev->end_ns > fl->now)
		fl->now = ev->end_ns;
	if (ch->state == IPP_ID_UNKNOWN || !ch->ino)
		return;
	if (ch->kind != IPCPERF_FD_PIPE && ch->kind != IPCPERF_FD_UNIX &&
	    ch->kind != IPCPERF_FD_TCP && ch->kind != IPCPERF_FD_UDP)
		return;
	/* A pipe is one channel; a socket's data goes from the writing end to its peer. */
	key = ch->kind == IPCPERF_FD_PIPE || writing ? ch->ino : ch->peer_ino;
	if (!key)
		key = ch->ino | UNPEERED;	/* a peer not known (not traced): by the reader */
	f = get_flow(fl, key, true);
	if (!f)
		return;
	if (!f->object[0]) {
		f->kind = ch->kind;
		f->datagram = ch->sock_type == SOCK_DGRAM || ch->sock_type == SOCK_SEQPACKET;
		if (ch->kind == IPCPERF_FD_PIPE || writing || (key & UNPEERED))
			snprintf(f->object, sizeof(f->object), "%s", ch->object);
		else
			snprintf(f->object, sizeof(f->object), "socket:[%llu]",
				 (unsigned long long)key);
		f->reader_ino = ch->kind == IPCPERF_FD_PIPE ? ch->ino : ch->peer_ino;
	}
	if (!f->endpoint[0] && (ch->kind == IPCPERF_FD_TCP || ch->kind == IPCPERF_FD_UDP))
		inet_endpoint(f->endpoint, sizeof(f->endpoint), ch);
	if (!f->active) {
		f->active = true;
		f->first = ev->start_ns;
	}
	if (!writing && ch->kind != IPCPERF_FD_PIPE)
		f->reader_ino = ch->ino;
	if (f->capacity < 0 && ch->capacity > 0 && (writing || ch->kind == IPCPERF_FD_PIPE)) {
		f->capacity = ch->capacity;
		f->cap_default = ch->cap_default;
	}
	f->last = ev->end_ns;
	pidset_add(writing ? &f->writers : &f->readers, ev->pid);
	flow_pin(fl, f);
	*(writing ? &f->traced_w : &f->traced_r) = true;
	if (writing)
		f->wblocked += ev->blocked_ns;
	else
		f->rblocked += ev->blocked_ns;
	add_waits(f, ev, &sv);
	if (fl->tap.call && ev->ret >= 0)
		fl->tap.call(fl->tap.ctx, ev, ch, key, writing);
	if (ev->ret <= 0)
		return;	/* errors and EOF move nothing */
	if (writing)
		on_write(fl, f, ev);
	else
		on_read(fl, f, ev);
}

/* Queue @ev (its fd is incarnation @inc) with what the waits say of it. */
static void push(struct ipcperf_flows *fl, const struct ipcperf_syscall *ev, long inc)
{
	struct served sv = { 0 };
	size_t len = fl->pend.len;

	/* asked in the thread's order, as the calls come */
	sv.waited = ipp_waits__served(fl->waits, ev, &sv.w);
	if (inc < 0 || ipp_ring_reserve((void **)&fl->served, &fl->served_cap, &fl->served_head,
					len, sizeof(*fl->served), 256) < 0)
		return;
	if (ipp_settleq__push(&fl->pend, ev, inc) < 0)
		return;
	fl->served[(fl->served_head + len) % fl->served_cap] = sv;
}

/* Queue @ev as a call on @fd of class @cls. */
static void pend(struct ipcperf_flows *fl, const struct ipcperf_syscall *ev, int fd,
		 enum ipcperf_sc_class cls)
{
	struct ipcperf_syscall half = *ev;

	half.fd = fd;
	half.cls = cls;
	/* the file the call began with: another thread may have ended the fd meanwhile */
	push(fl, &half, ipp_fdtab__inc_at(ipp_stats__fdtab(fl->st), ev->pid, fd, ev->start_ns));
}

/*
 * A move between two fds: a read of its source, then a write of its
 * destination, each with the call's times (its blocked time on both: the
 * call does not say which end it waited for). tee leaves its bytes in the
 * source pipe: only its write.
 */
static void pend_move(struct ipcperf_flows *fl, const struct ipcperf_syscall *ev)
{
	if (ev->out_fd < 0) {
		pend(fl, ev, ev->fd, IPCPERF_SC_MOVE);	/* vmsplice: its way by the pipe end */
		return;
	}
	if (ev->nr != __NR_tee)
		pend(fl, ev, ev->fd, IPCPERF_SC_READ);
	pend(fl, ev, ev->out_fd, IPCPERF_SC_WRITE);
}

void ipcperf_flows__add_syscall(struct ipcperf_flows *fl, const struct ipcperf_syscall *ev)
{
	if (!fl)
		return;
	if (ipp_waits__follows(ev)) {
		ipp_waits__call(fl->waits, ev);
		return;
	}
	if ((ev->cls != IPCPERF_SC_READ && ev->cls != IPCPERF_SC_WRITE &&
	     ev->cls != IPCPERF_SC_MOVE) || ev->fd < 0 || ev->ret_is_msgs)
		return;
	if (ev->cls == IPCPERF_SC_MOVE)
		pend_move(fl, ev);
	else
		pend(fl, ev, ev->fd, ev->cls);
	ipp_settleq__drain(&fl->pend, false, ipp_flows__process, fl);
	if (fl->nr > fl->fold_at)
		ipp_flows__fold(fl);
}

static void h_syscall(void *ctx, const struct ipcperf_syscall *ev)
{
	ipcperf_flows__add_syscall(ctx, ev);
}

int ipcperf_flows__attach(struct ipcperf_flows *fl, struct ipcperf_session *s)
{
	IPCPERF_OPTS(ipcperf_handlers, h, .ctx = fl, .syscall = h_syscall);

	if (!fl || !s)
		return -EINVAL;
	return ipcperf_session__add_handlers(s, &h);
}

/* ------------------------------------------------------------------ intervals */

/*
 * Zero what @f counted, keep what the matching carries into the next
 * interval: the bytes queued, the reads waiting for their write, the
 * capacity, and a channel still full, full from @now on.
 */
static void flow_reset(struct flow *f, uint64_t now)
{
	f->writers.n = f->readers.n = 0;
	f->written = f->read = (struct moved){ 0 };
	f->unmatched = f->matches = 0;
	if (f->wire)
		ipp_hist_init(f->wire);
	free(f->wire_packed);
	f->wire_packed = NULL;
	f->max_queued = f->queued;
	if (f->kind == IPCPERF_FD_PIPE && !f->cap_default && f->capacity > 0 &&
	    f->max_queued > (uint64_t)f->capacity)
		f->max_queued = (uint64_t)f->capacity;
	f->full_ns = 0;
	if (f->full_since)
		f->full_since = now ? now : 1;
	f->wblocked = f->rblocked = f->wagain = f->ragain = 0;
	f->wwait = f->rwait = f->wwaits = f->rwaits = 0;
	f->first = f->last = 0;
	f->active = false;
}

void ipcperf_flows__reset(struct ipcperf_flows *fl)
{
	if (!fl)
		return;
	for (size_t i = 0; i < fl->nr; i++) {
		flow_reset(fl->flows[i], fl->now);
		flow_pin(fl, fl->flows[i]);	/* its sides start again from none */
	}
	ipp_flows__drop_folds(fl);
}
