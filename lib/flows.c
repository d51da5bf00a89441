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
#include "account.h"
#include "chains.h"
#include "fdtable.h"
#include "hist.h"
#include "internal.h"
#include "waits.h"

#define BLOCKED_MIN_NS 1000000ull	/* 1 ms: less than this decides nothing */
/* A verdict's line: one side's figure over the other's; within MARGIN of it, marginal. */
#define LINE 2.0
#define MARGIN 1.25
/* The reads a reader's pace is measured over, at least: fewer say little of it. */
#define PACE_MIN_READS 8
/*
 * The key of a flow read from a socket whose peer is not known: the
 * reader's inode with this bit, apart from the flows keyed by a writing
 * end (the kernel numbers socket inodes with 32 bits: get_next_ino()).
 */
#define UNPEERED (1ull << 63)

struct seg {
	uint64_t start, end;	/* of the call that wrote (or read, for debts) */
	pid_t pid, tid;
	uint64_t left;		/* bytes not matched yet */
};

struct fifo {
	struct seg *v;
	size_t head, len, cap;
};

struct pidset {
	pid_t *v;
	size_t n, cap;
};

struct flow {
	uint64_t ino, reader_ino;
	char object[128];
	enum ipcperf_fd_kind kind;
	bool datagram;
	struct pidset writers, readers;
	uint64_t writes, reads, bytes_w, bytes_r, unmatched, matches;
	/*
	 * The wire times: dense while the flow moves bytes, packed once it
	 * has been still for a while (cool()): a server's flows, two per
	 * connection, are kept to the report (a dense histogram is ~7.7 KB).
	 * Both NULL while empty.
	 */
	struct ipp_hist *wire;
	struct ipp_hist_packed *wire_packed;
	int64_t capacity;
	bool cap_default;
	uint64_t queued, max_queued;
	uint64_t full_since, full_ns;
	uint64_t full_end;	/* when it last stopped being full */
	uint64_t wblocked, rblocked;
	uint64_t wagain, ragain;	/* refused with EAGAIN: full, empty */
	uint64_t wwait, rwait, wwaits, rwaits;	/* epoll waits that ended ready for it */
	uint64_t first, last;
	uint64_t wfirst, wlast, rfirst, rlast;	/* the successful writes' and reads' span */
	bool active;		/* a call since it was made or since ipcperf_flows__reset() */
	/* A traced process wrote into it, read from it: ever, not reset with the pidsets. */
	bool traced_w, traced_r;
	struct fifo segs;	/* written, not yet read */
	struct fifo debts;	/* read before their write was seen */
};

/* What the waits said of a queued call: the wait it was served after. */
struct served {
	bool waited;
	struct ipp_waited w;
};

struct ipcperf_flows {
	struct ipcperf_stats *st;
	struct ipp_settleq pend;	/* calls whose fd is not settled yet */
	struct served *served;		/* one for each call in pend, in its order */
	size_t served_head, served_cap;
	struct ipp_waits *waits;
	struct take { struct seg w; uint64_t bytes; } *takes;	/* one read's matches */
	size_t cap_takes;
	struct flow **flows;	/* sorted by ino */
	size_t nr, cap;
	size_t made;		/* flows made: every COOL_EVERY of them, cool() */
	uint64_t now;		/* the latest call's end */
	struct flow **warm;	/* the flows whose wire histogram is dense: what cool() visits */
	size_t nr_warm, cap_warm;
	void (*match_cb)(void *ctx, const struct ipcperf_flow_match *m);
	void *match_ctx;
};

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

	if (!st) {
		errno = EINVAL;
		return NULL;
	}
	fl = calloc(1, sizeof(*fl));
	if (!fl) {
		errno = ENOMEM;
		return NULL;
	}
	fl->st = st;
	fl->waits = ipp_waits__new();
	if (!fl->waits) {
		free(fl);
		errno = ENOMEM;
		return NULL;
	}
	ipp_settleq__init(&fl->pend, ipp_stats_fdtab(st));
	return fl;
}

void ipcperf_flows__delete(struct ipcperf_flows *fl)
{
	if (!fl)
		return;
	for (size_t i = 0; i < fl->nr; i++) {
		struct flow *f = fl->flows[i];

		free(f->writers.v);
		free(f->readers.v);
		free(f->segs.v);
		free(f->debts.v);
		free(f->wire);
		free(f->wire_packed);
		free(f);
	}
	free(fl->flows);
	free(fl->warm);
	ipp_settleq__fini(&fl->pend);
	free(fl->served);
	ipp_waits__delete(fl->waits);
	free(fl->takes);
	free(fl);
}

int ipcperf_flows__on_match(struct ipcperf_flows *fl,
			    void (*cb)(void *ctx, const struct ipcperf_flow_match *m), void *ctx)
{
	if (!fl)
		return -EINVAL;
	fl->match_cb = cb;
	fl->match_ctx = ctx;
	return 0;
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

	while (i < s->n && s->v[i] < pid)
		i++;
	if (i < s->n && s->v[i] == pid)
		return;
	if (ipp_grow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v)) < 0)
		return;
	memmove(&s->v[i + 1], &s->v[i], (s->n - i) * sizeof(*s->v));
	s->v[i] = pid;
	s->n++;
}

static struct flow *get_flow(struct ipcperf_flows *fl, uint64_t ino, bool create)
{
	size_t lo = 0, hi = fl->nr;
	struct flow *f;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (fl->flows[mid]->ino == ino)
			return fl->flows[mid];
		if (fl->flows[mid]->ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!create)
		return NULL;
	if (ipp_grow((void **)&fl->flows, &fl->cap, fl->nr + 1, sizeof(*fl->flows)) < 0)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->ino = ino;
	f->capacity = -1;
	memmove(&fl->flows[lo + 1], &fl->flows[lo], (fl->nr - lo) * sizeof(*fl->flows));
	fl->flows[lo] = f;
	fl->nr++;
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
	f->wire = malloc(sizeof(*f->wire));
	if (!f->wire)
		return NULL;
	fl->warm[fl->nr_warm++] = f;
	ipp_hist_init(f->wire);
	if (f->wire_packed)
		ipp_hist_merge_packed(f->wire, f->wire_packed);
	free(f->wire_packed);
	f->wire_packed = NULL;
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
	if (fl->match_cb) {
		struct ipcperf_flow_match m = {
			.object = f->object, .wpid = w->pid, .wtid = w->tid, .rpid = r->pid,
			.rtid = r->tid, .write_start_ns = w->start, .write_end_ns = w->end,
			.read_start_ns = r->start, .read_end_ns = r->end, .bytes = bytes,
			.queued = f->queued,
		};

		fl->match_cb(fl->match_ctx, &m);
	}
}

/* One side's calls' span, [*@first, *@last], to take in @ev (0: none yet; a call from 0 counts from 1 ns). */
static void span_add(uint64_t *first, uint64_t *last, const struct ipcperf_syscall *ev)
{
	if (!*first || ev->start_ns < *first)
		*first = ev->start_ns ? ev->start_ns : 1;
	if (ev->end_ns > *last)
		*last = ev->end_ns;
}

static void on_write(struct ipcperf_flows *fl, struct flow *f, const struct ipcperf_syscall *ev)
{
	struct seg w = { .start = ev->start_ns, .end = ev->end_ns, .pid = ev->pid, .tid = ev->tid,
			 .left = (uint64_t)ev->ret };
	struct seg *d;

	f->writes++;
	f->bytes_w += w.left;
	span_add(&f->wfirst, &f->wlast, ev);
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
	fifo_push(&f->segs, &w);
	set_queued(f, f->queued + w.left, w.end);
}

static void on_read(struct ipcperf_flows *fl, struct flow *f, const struct ipcperf_syscall *ev)
{
	struct seg r = { .start = ev->start_ns, .end = ev->end_ns, .pid = ev->pid, .tid = ev->tid,
			 .left = (uint64_t)ev->ret };
	struct seg *w;

	f->reads++;
	f->bytes_r += r.left;
	span_add(&f->rfirst, &f->rlast, ev);
	if (f->datagram) {
		/* One read, one message: whatever its size, the whole message leaves. */
		struct seg msg;

		w = fifo_front(&f->segs);
		if (!w) {
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
	if (r.left)
		fifo_push(&f->debts, &r);
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

/* A call whose fd is settled: its bytes into the channel's flow. */
static void process(void *ctx, const struct ipcperf_syscall *ev, const struct ipp_ident *ch)
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
	*(writing ? &f->traced_w : &f->traced_r) = true;
	if (writing)
		f->wblocked += ev->blocked_ns;
	else
		f->rblocked += ev->blocked_ns;
	add_waits(f, ev, &sv);
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
	push(fl, &half, ipp_fdtab__inc_at(ipp_stats_fdtab(fl->st), ev->pid, fd, ev->start_ns));
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
	ipp_settleq__drain(&fl->pend, false, process, fl);
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
	f->writes = f->reads = f->bytes_w = f->bytes_r = f->unmatched = f->matches = 0;
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
	f->wfirst = f->wlast = f->rfirst = f->rlast = 0;
	f->first = f->last = 0;
	f->active = false;
}

void ipcperf_flows__reset(struct ipcperf_flows *fl)
{
	if (!fl)
		return;
	for (size_t i = 0; i < fl->nr; i++)
		flow_reset(fl->flows[i], fl->now);
}

/* ------------------------------------------------------------------ reading */

/* Writers' time asleep for room: in their writes, and in epoll waits that ended writable. */
static uint64_t held_ns(const struct flow *f)
{
	return f->wblocked + f->wwait;
}

/* Readers' time asleep for bytes: in their reads, and in epoll waits that ended readable. */
static uint64_t starved_ns(const struct flow *f)
{
	return f->rblocked + f->rwait;
}

static uint64_t full_ns_of(const struct flow *f)
{
	return f->full_ns + (f->full_since && f->last > f->full_since ? f->last - f->full_since : 0);
}

/* What the verdict rule makes of a flow (doc/accuracy.md, "Verdicts"). */
struct judged {
	enum ipcperf_verdict verdict, marginal;
	double margin, residence;
	bool by_queue;
	uint64_t write_pace, read_pace;
};

/* One side's time per call over its calls' span; 0 without calls. */
static uint64_t pace_of(uint64_t first, uint64_t last, uint64_t calls)
{
	return calls && last > first ? (last - first) / calls : 0;
}

/* @a over @b; past any line when only @b is 0. */
static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : a ? DBL_MAX : 0;
}

/*
 * The queue residence: the median wire time @p50 over the slower side's
 * pace, the calls the bytes waited in the channel for; 0 without
 * PACE_MIN_READS reads to give the reader's pace, under 1 ms (nothing
 * waited long), or when the writers met a full channel (waited 1 ms, or
 * were refused): then the channel filled, and W and R say who held whom.
 */
static double residence_of(const struct flow *f, uint64_t p50, struct judged *j)
{
	uint64_t pace;

	j->write_pace = pace_of(f->wfirst, f->wlast, f->writes);
	j->read_pace = pace_of(f->rfirst, f->rlast, f->reads);
	pace = j->write_pace > j->read_pace ? j->write_pace : j->read_pace;
	if (f->reads < PACE_MIN_READS || p50 < BLOCKED_MIN_NS || !pace ||
	    held_ns(f) >= BLOCKED_MIN_NS || f->wagain)
		return 0;
	return (double)p50 / (double)pace;
}

/* The verdict @v, decided by ratio @r past the line: marginal when @r is close to it. */
static void decided(struct judged *j, enum ipcperf_verdict v, double r, bool by_queue)
{
	j->verdict = v;
	j->by_queue = by_queue;
	if (r < LINE * MARGIN) {
		j->marginal = v;
		j->margin = r;
	}
}

/* No line crossed: ratio @r (when it @counts) close below the line of @v, the closest kept. */
static void near(struct judged *j, bool counts, double r, enum ipcperf_verdict v, bool by_queue)
{
	if (!counts || r < LINE / MARGIN || r <= j->margin)
		return;
	j->marginal = v;
	j->margin = r;
	j->by_queue = by_queue;
}

/*
 * Non-blocking ends, when the times decided nothing: who was refused
 * more, and a channel that sat full half its life. Ends that never were
 * refused nor waited in epoll (blocking programs) stay balanced.
 */
static enum ipcperf_verdict refusals_verdict(const struct flow *f)
{
	uint64_t life = f->last - f->first;

	if (!f->wagain && !f->ragain && !f->wwaits && !f->rwaits)
		return IPCPERF_VERDICT_BALANCED;
	if (f->wagain > 2 * f->ragain ||
	    (full_ns_of(f) >= BLOCKED_MIN_NS && 2 * full_ns_of(f) >= life))
		return IPCPERF_VERDICT_BACKPRESSURE;
	if (f->ragain > 2 * f->wagain)
		return IPCPERF_VERDICT_CONSUMER_STARVED;
	return IPCPERF_VERDICT_BALANCED;
}

/*
 * doc/accuracy.md, "Verdicts": the time each side slept waiting for the
 * other first, then the queue residence (@p50: the median wire time),
 * then the refusals; each ratio against its line of 2, marginal within
 * a factor MARGIN of it.
 */
static struct judged judge(const struct flow *f, uint64_t p50)
{
	uint64_t held = held_ns(f), starved = starved_ns(f);
	double wr = ratio(held, starved), rw = ratio(starved, held);
	struct judged j = { .verdict = IPCPERF_VERDICT_BALANCED,
			    .marginal = IPCPERF_VERDICT_BALANCED };

	j.residence = residence_of(f, p50, &j);
	/* No byte went in or came out: nobody held anybody back. */
	if (!f->bytes_w && !f->bytes_r) {
		j.verdict = IPCPERF_VERDICT_IDLE;
	} else if (!f->traced_w || !f->traced_r) {
		/* a side nobody traced: its half of the rule was not measured */
		j.verdict = IPCPERF_VERDICT_UNMEASURED;
		j.residence = 0;
		j.by_queue = false;
	} else if (held >= BLOCKED_MIN_NS && wr > LINE) {
		decided(&j, IPCPERF_VERDICT_BACKPRESSURE, wr, false);
	} else if (starved >= BLOCKED_MIN_NS && rw > LINE) {
		decided(&j, IPCPERF_VERDICT_CONSUMER_STARVED, rw, false);
	} else if (j.residence > LINE) {
		decided(&j, IPCPERF_VERDICT_BACKPRESSURE, j.residence, true);
	} else {
		near(&j, held >= BLOCKED_MIN_NS, wr, IPCPERF_VERDICT_BACKPRESSURE, false);
		near(&j, starved >= BLOCKED_MIN_NS, rw, IPCPERF_VERDICT_CONSUMER_STARVED, false);
		near(&j, true, j.residence, IPCPERF_VERDICT_BACKPRESSURE, true);
		j.verdict = refusals_verdict(f);
		if (j.verdict != IPCPERF_VERDICT_BALANCED) {
			/* the refusals decided it, clearly: the times' closeness is beside it */
			j.marginal = IPCPERF_VERDICT_BALANCED;
			j.margin = 0;
			j.by_queue = false;
		}
	}
	return j;
}

/* The wire times of @f as a dense histogram: its own, or its packed one in @scratch. */
static const struct ipp_hist *dense_wire(const struct flow *f, struct ipp_hist *scratch)
{
	if (f->wire)
		return f->wire;
	ipp_hist_init(scratch);
	if (f->wire_packed)
		ipp_hist_merge_packed(scratch, f->wire_packed);
	return scratch;
}

/* The median wire time of @f (0 without matches); @scratch for a packed histogram. */
static uint64_t wire_p50(const struct flow *f, struct ipp_hist *scratch)
{
	return f->matches ? ipp_hist_percentile(dense_wire(f, scratch), 50) : 0;
}

static int cmp_first(const void *a, const void *b)
{
	const struct flow *x = *(const struct flow *const *)a, *y = *(const struct flow *const *)b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* What the chains need of the @n flows of @v, into @c. @return 0 or -ENOMEM. */
static int chain_view(struct flow *const *v, size_t n, struct ipp_chain_flow *c)
{
	struct ipp_hist *scratch = malloc(sizeof(*scratch));

	if (!scratch)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint64_t p50 = wire_p50(v[i], scratch);
		struct judged j = judge(v[i], p50);

		c[i] = (struct ipp_chain_flow){
			.writers = v[i]->writers.v, .nr_writers = v[i]->writers.n,
			.readers = v[i]->readers.v, .nr_readers = v[i]->readers.n,
			.verdict = j.verdict, .marginal = j.marginal,
			.by_queue = j.by_queue, .wire_p50 = p50,
			.writer_blocked_ns = held_ns(v[i]), .reader_blocked_ns = starved_ns(v[i]),
		};
	}
	free(scratch);
	return 0;
}

static int chain_stages(struct flow *const *v, size_t n, unsigned *stage)
{
	struct ipp_chain_flow *c = malloc(n * sizeof(*c));
	int err;

	if (!c)
		return -ENOMEM;
	err = chain_view(v, n, c);
	if (!err)
		err = ipp_chains__stages(c, n, stage);
	free(c);
	return err;
}

/* What judge() made of a flow, into what the walk hands out. */
static void put_judged(struct ipcperf_flow *out, struct judged j)
{
	out->verdict = j.verdict;
	out->marginal = j.marginal;
	out->margin = j.margin;
	out->by_queue = j.by_queue;
	out->queue_residence = j.residence;
	out->write_pace_ns = j.write_pace;
	out->read_pace_ns = j.read_pace;
}

/*
 * The flows with a call since the last reset, into *@out (NULL when
 * none; freed by the caller), by first activity when @sorted.
 * @return how many, or -ENOMEM.
 */
static ssize_t active_flows(const struct ipcperf_flows *fl, bool sorted, struct flow ***out)
{
	struct flow **v;
	size_t n = 0;

	*out = NULL;
	if (!fl->nr)
		return 0;
	v = malloc(fl->nr * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < fl->nr; i++)
		if (fl->flows[i]->active)
			v[n++] = fl->flows[i];
	if (sorted)
		qsort(v, n, sizeof(*v), cmp_first);
	*out = v;
	return (ssize_t)n;
}

static int walk(struct ipcperf_flows *fl, bool settle_all,
		int (*cb)(void *ctx, const struct ipcperf_flow *f), void *ctx)
{
	struct flow **v;
	struct ipp_hist *scratch;
	unsigned *stage;
	ssize_t nr;
	int ret = 0;

	if (!fl || !cb)
		return -EINVAL;
	ipp_settleq__drain(&fl->pend, settle_all, process, fl);
	nr = active_flows(fl, true, &v);
	if (nr <= 0) {
		free(v);
		return (int)nr;
	}
	stage = malloc((size_t)nr * sizeof(*stage));
	scratch = malloc(sizeof(*scratch));
	ret = stage && scratch ? chain_stages(v, (size_t)nr, stage) : -ENOMEM;
	for (size_t i = 0; i < (size_t)nr && !ret; i++) {
		const struct flow *f = v[i];
		const struct ipp_hist *wire = dense_wire(f, scratch);
		uint64_t unmatched = f->unmatched;
		struct ipcperf_flow out = {
			.object = f->object, .kind = f->kind,
			.ino = f->ino & UNPEERED ? 0 : f->ino,
			.reader_ino = f->reader_ino, .datagram = f->datagram,
			.writers = f->writers.v, .nr_writers = f->writers.n,
			.readers = f->readers.v, .nr_readers = f->readers.n,
			.writes = f->writes, .reads = f->reads, .bytes_written = f->bytes_w,
			.bytes_read = f->bytes_r, .matches = f->matches,
			.capacity = f->capacity, .capacity_default = f->cap_default,
			.max_queued = f->max_queued,
			.full_ns = full_ns_of(f),
			.writer_blocked_ns = f->wblocked, .reader_blocked_ns = f->rblocked,
			.first_ns = f->first, .last_ns = f->last,
			.wire_hist = ipp_as_hist(wire), .stage = stage[i],
			.write_again = f->wagain, .read_again = f->ragain,
			.write_wait_ns = f->wwait, .read_wait_ns = f->rwait,
			.write_waits = f->wwaits, .read_waits = f->rwaits,
		};

		/* Debts still open: read bytes no traced write explains. */
		for (size_t k = 0; k < f->debts.len; k++)
			unmatched += f->debts.v[(f->debts.head + k) % f->debts.cap].left;
		out.unmatched_bytes = unmatched;
		if (f->matches) {
			out.wire_ns.min = ipp_hist_min(wire);
			out.wire_ns.p50 = ipp_hist_percentile(wire, 50);
			out.wire_ns.p99 = ipp_hist_percentile(wire, 99);
			out.wire_ns.max = ipp_hist_max(wire);
		}
		put_judged(&out, judge(f, out.wire_ns.p50));
		ret = cb(ctx, &out);
	}
	free(scratch);
	free(stage);
	free(v);
	return ret;
}

int ipcperf_flows__for_each(struct ipcperf_flows *fl,
			    int (*cb)(void *ctx, const struct ipcperf_flow *f), void *ctx)
{
	return walk(fl, true, cb, ctx);
}

int ipcperf_flows__for_each_settled(struct ipcperf_flows *fl,
				    int (*cb)(void *ctx, const struct ipcperf_flow *f), void *ctx)
{
	return walk(fl, false, cb, ctx);
}

int ipcperf_flows__for_each_bottleneck(struct ipcperf_flows *fl,
				       int (*cb)(void *ctx, const struct ipcperf_bottleneck *b),
				       void *ctx)
{
	struct ipp_chain_flow *c;
	struct flow **v;
	ssize_t nr;
	int err;

	if (!fl || !cb)
		return -EINVAL;
	ipp_settleq__drain(&fl->pend, true, process, fl);
	nr = active_flows(fl, false, &v);
	if (nr <= 0) {
		free(v);
		return (int)nr;
	}
	c = malloc((size_t)nr * sizeof(*c));
	err = c ? chain_view(v, (size_t)nr, c) : -ENOMEM;
	if (!err)
		err = ipp_chains__bottlenecks(c, (size_t)nr, cb, ctx);
	free(c);
	free(v);
	return err;
}
