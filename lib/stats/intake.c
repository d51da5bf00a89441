/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Accounting: per-(process, fd, object) throughput and latency, per-process
 * scheduling, per-(process, syscall) totals. What each fd is comes from the
 * fd table (fdtable.c); the counts of each of its incarnations are kept here,
 * by the same index. This file: the stats fed with events (the intake layer
 * of account.h); made and reset in stats.c, attached to a session in
 * attach.c, read out in readout.c, swept in retain.c.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include "stats/account.h"
#include "stats/groups.h"
#include "syscalls.h"
#include "bpf/sum-rec.h"

/* ------------------------------------------------------------------ lookups */

static int cmp_thread(const void *key, const void *elem)
{
	pid_t a = *(const pid_t *)key, b = ((const struct thread *)elem)->tid;

	return (a > b) - (a < b);
}

static struct thread *get_thread(struct ipcperf_stats *st, pid_t tid, bool create)
{
	struct thread **c = &st->thread_cache[(unsigned int)tid % LOOKUP_CACHE];
	struct thread *t;
	size_t lo;

	if (*c && (*c)->tid == tid)
		return *c;
	if (ipp_bsearch_at(&tid, st->threads, st->nr_threads, sizeof(*st->threads), cmp_thread, &lo))
		return *c = &st->threads[lo];
	if (!create)
		return NULL;
	t = ipp_insert_at((void **)&st->threads, &st->nr_threads, &st->cap_threads, lo,
			  sizeof(*t));
	if (!t)
		return NULL;
	*t = (struct thread){ .tid = tid, .last_cpu = -1 };
	/* The array moved or shifted: every pointer the cache holds is stale. */
	memset(st->thread_cache, 0, sizeof(st->thread_cache));
	return *c = t;
}

/* @p had an event of its own at @ns. */
static void see_proc(struct proc *p, uint64_t ns)
{
	if (!p->seen)
		p->seen_ns = ns;
	p->seen = true;
}

/* Note that thread @tid belongs to process @pid (counts threads per process). */
static void see_thread(struct ipcperf_stats *st, struct proc *p, pid_t tid)
{
	struct thread *t = get_thread(st, tid, true);

	if (t && t->pid != p->pid) {
		t->pid = p->pid;
		p->threads++;
	}
}

/* The counts of incarnation @inc of the fd table, zeroed when new. */
static struct inccount *count_of(struct ipcperf_stats *st, long inc)
{
	size_t need = (size_t)inc + 1;

	if (inc < 0)
		return NULL;
	if (need > st->nr_counts) {
		if (ipp_grow((void **)&st->counts, &st->cap_counts, need, sizeof(*st->counts)) < 0)
			return NULL;
		for (size_t i = st->nr_counts; i < need; i++) {
			memset(&st->counts[i], 0, sizeof(st->counts[i]));
		}
		st->nr_counts = need;
	}
	return &st->counts[inc];
}

/* ------------------------------------------------------------------ feeding */

/*
 * The dense histogram of @sc, to add to: made at its first timed call, or
 * from its packed one (a call of its process seen after the exit). NULL:
 * no memory (the call's latency is left out, its counts are not).
 */
static struct ipp_hist *sc_hist(struct scstat *sc)
{
	if (!sc->hist)
		sc->hist = ipp_hist_unpack(&sc->packed);
	return sc->hist;
}

/* @sc's histogram packed, its dense one freed (kept when packing had no memory). */
static void pack_sc(struct scstat *sc)
{
	struct ipp_hist_packed *ph;

	if (!sc->hist)
		return;
	ph = ipp_hist_pack(sc->hist);
	if (!ph && errno)
		return;
	free(sc->packed);	/* NULL: sc_hist() took it in */
	sc->packed = ph;
	free(sc->hist);
	sc->hist = NULL;
}

/* An exited process's rows keep their latencies packed until the report. */
static void pack_proc(struct proc *p)
{
	for (size_t i = 0; i < p->nr_sc; i++)
		pack_sc(p->sc[i]);
}

static void account(struct ipcperf_stats *st, struct side *sd, const struct ipcperf_syscall *ev)
{
	uint64_t dur = ev->end_ns - ev->start_ns;

	sd->ops++;
	/* Entered before the capture: its bytes are real, its duration is not. */
	if (!ev->started_before_capture) {
		sd->time_ns += dur;
		if (!sd->hist)
			sd->hist = ipp_stats__hist(st);
		if (sd->hist)
			ipp_hist_add(sd->hist, dur);
	}
	if (ev->ret == -EAGAIN)
		sd->again++;	/* a refusal: would block, not an error */
	else if (ev->ret < 0)
		sd->errors++;
	else if (ev->ret_is_msgs)
		sd->msgs += (uint64_t)ev->ret;
	else
		sd->bytes += (uint64_t)ev->ret;
}

/*
 * A zero-copy move: a read of its source (@in_inc), a write of its
 * destination, each with the call's ops, errors, time and bytes. vmsplice
 * has one fd: a pipe's read end is read from, else it is written to.
 */
static void account_move(struct ipcperf_stats *st, const struct ipcperf_syscall *ev, long in_inc)
{
	long out_inc = ev->out_fd >= 0 ?
		       ipp_fdtab__inc_at(st->fdt, ev->pid, ev->out_fd, ev->start_ns) : -1;
	struct inccount *in, *out;
	struct side *sd[2] = { NULL, NULL };

	/* the higher index first: the counts may move while they grow */
	if (!count_of(st, out_inc > in_inc ? out_inc : in_inc) || !(in = count_of(st, in_inc)))
		return;
	out = out_inc >= 0 ? count_of(st, out_inc) : NULL;
	if (ev->out_fd < 0)
		sd[0] = ipp_fdtab__inc(st->fdt, (size_t)in_inc)->id.accmode == O_RDONLY + 1 ?
			&in->rd : &in->wr;
	else
		sd[0] = &in->rd;
	if (out) {
		if (!out->first_ns)
			out->first_ns = ev->start_ns;
		out->last_ns = ev->end_ns;
		sd[1] = &out->wr;
	}
	for (int i = 0; i < 2; i++) {
		if (!sd[i])
			continue;
		account(st, sd[i], ev);
		sd[i]->mv_ops++;
		if (ev->ret > 0)
			sd[i]->mv_bytes += (uint64_t)ev->ret;
	}
}

static void call_settled(void *ctx, const struct ipcperf_syscall *ev, const struct ipp_ident *id)
{
	struct ipcperf_stats *st = ctx;
	struct ipcperf_fd_object fd = {
		.object = id->object, .kind = id->kind, .detail = id->detail, .ino = id->ino,
		.peer_ino = id->peer_ino, .sock_type = id->sock_type,
	};

	st->call_cb(st->call_ctx, ev, &fd);
}

/* The callbacks a caller sets: ipcperf.h says when each is called. */
IPP_DEFINE_CB_SETTER(ipcperf_stats__on_call, struct ipcperf_stats, call_cb, call_ctx)
IPP_DEFINE_CB_SETTER(ipcperf_stats__on_every_call, struct ipcperf_stats, every.call_cb,
		     every.call_ctx)
IPP_DEFINE_CB_SETTER(ipcperf_stats__on_every_signal, struct ipcperf_stats, every.signal_cb,
		     every.signal_ctx)
IPP_DEFINE_CB_SETTER(ipcperf_stats__on_every_call_entered, struct ipcperf_stats, every.entered_cb,
		     every.entered_ctx)
IPP_DEFINE_CB_SETTER(ipcperf_stats__on_every_exit, struct ipcperf_stats, every.exit_cb,
		     every.exit_ctx)

void ipcperf_stats__settle_calls(struct ipcperf_stats *st)
{
	if (st && st->call_cb)
		ipp_settleq__drain(&st->calls, true, call_settled, st);
	if (st)
		ipp_callfds__drain(&st->every, true);
}

void ipcperf_stats__add_call_entered(struct ipcperf_stats *st, const struct ipcperf_syscall *ev)
{
	if (!st || !ev || !st->every.entered_cb)
		return;
	if (ipp_callfds__push_entered(&st->every, st->fdt, ev) == 0)
		ipp_callfds__drain(&st->every, false);
}

void ipcperf_stats__add_signal(struct ipcperf_stats *st, const struct ipcperf_signal *ev)
{
	if (!st || !ev || !st->every.signal_cb)
		return;
	if (ipp_callfds__push_signal(&st->every, ev) == 0)
		ipp_callfds__drain(&st->every, false);
}

static void add_syscall(struct ipcperf_stats *st, const struct ipcperf_syscall *evp);
static void sweep_after(struct ipcperf_stats *st);

void ipcperf_stats__add_syscall(struct ipcperf_stats *st, const struct ipcperf_syscall *evp)
{
	add_syscall(st, evp);
	sweep_after(st);
}

static void add_syscall(struct ipcperf_stats *st, const struct ipcperf_syscall *evp)
{
	struct ipcperf_syscall named;
	const struct ipcperf_syscall *ev = evp;
	struct proc *p = ipp_stats__proc(st, ev->pid, true);
	struct inccount *c;
	struct scstat *sc;
	long inc;

	if (!p)
		return;
	if (!ev->name) {
		/* Fed by hand without a name: the table's, so comparisons below hold. */
		named = *evp;
		named.name = ipp_syscall_name_any(evp->nr);
		ev = &named;
	}
	see_proc(p, ev->start_ns);
	p->syscalls++;
	see_thread(st, p, ev->tid);
	if (ev->nr == __NR_io_uring_enter && ev->ret > 0)
		p->uring_ops += (uint64_t)ev->ret;
	sc = ipp_proc__sc(p, st->per_thread ? ev->tid : 0, ev->nr, ev->name);
	if (sc) {
		sc->calls++;
		if (!ev->started_before_capture) {
			struct ipp_hist *h = sc_hist(sc);

			sc->time_ns += ev->end_ns - ev->start_ns;
			if (h)
				ipp_hist_add(h, ev->end_ns - ev->start_ns);
		}
		if (ev->ret < 0 && ev->ret >= -IPP_MAX_ERRNO) {
			sc->errors++;
			ipp_proc__sc_errnos(sc, (int)-ev->ret, 1);
		}
		if (p->exited)
			pack_sc(sc);
	}
	if (st->every.call_cb) {
		long arg_inc = ipp_callfds__arg_inc(st->fdt, ev);

		inc = ipp_fdtab__syscall(st->fdt, ev);
		ipp_callfds__push(&st->every, st->fdt, ev, arg_inc, inc);
		ipp_callfds__drain(&st->every, false);
	} else {
		inc = ipp_fdtab__syscall(st->fdt, ev);
	}
	c = count_of(st, inc);
	if (!c)
		return;
	if (st->call_cb) {
		ipp_settleq__push(&st->calls, ev, inc);
		ipp_settleq__drain(&st->calls, false, call_settled, st);
	}
	if (!c->first_ns)
		c->first_ns = ev->start_ns;
	c->last_ns = ev->end_ns;
	if (ev->cls == IPCPERF_SC_MOVE)
		account_move(st, ev, inc);
	else
		account(st, ev->cls == IPCPERF_SC_READ ? &c->rd : &c->wr, ev);
}

/* ------------------------------------------------------------------ the kernel's sums */

/* The durations of @r's calls into @h, as ipp_hist_add() would have put each. */
static void sum_hist(struct ipp_hist *h, const struct ipp_sum_rec *r)
{
	ipp_hist_add_buckets(h, r->ops, r->time_ns, r->min_ns, r->max_ns, r->base, r->hist,
			     IPP_SUM_BUCKETS);
}

/* @r's calls into side @sd, as account() would have added them one by one. */
static void account_sum(struct ipcperf_stats *st, struct side *sd, const struct ipp_sum_rec *r)
{
	sd->ops += r->ops;
	sd->time_ns += r->time_ns;
	sd->again += r->eagain;	/* the only failures the kernel adds up: refusals */
	sd->bytes += r->bytes;
	if (!sd->hist)
		sd->hist = ipp_stats__hist(st);
	if (sd->hist)
		sum_hist(sd->hist, r);
}

/* @r's calls into their syscall's row, as ipcperf_stats__add_syscall() would have. */
static void sum_row(struct proc *p, const struct ipp_sum_rec *r)
{
	struct scstat *sc = ipp_proc__sc(p, 0, r->nr, NULL);
	struct ipp_hist *h;

	if (!sc)
		return;
	sc->calls += r->ops;
	sc->time_ns += r->time_ns;
	if ((h = sc_hist(sc)) != NULL)
		sum_hist(h, r);
	if (r->eagain) {
		sc->errors += r->eagain;
		ipp_proc__sc_errnos(sc, EAGAIN, r->eagain);
	}
	if (p->exited)
		pack_sc(sc);
}

void ipp_stats__add_sum(void *ctx, const struct ipp_sum_rec *r)
{
	struct ipcperf_stats *st = ctx;
	const struct ipp_scdesc *desc = ipp_scdesc_by_nr(r->nr);
	struct proc *p = ipp_stats__proc(st, r->pid, true);
	struct inccount *c;

	if (!p || !r->ops)
		return;
	see_proc(p, r->first_ns);
	p->syscalls += r->ops;
	see_thread(st, p, r->tid);
	sum_row(p, r);
	/* as ipp_fdtab__syscall() counts a call to an incarnation: the read/write family's */
	if (r->fd < 0 || !desc || (desc->cls != IPCPERF_SC_READ && desc->cls != IPCPERF_SC_WRITE))
		return;
	c = count_of(st, ipp_fdtab__sum_inc(st->fdt, r->pid, r->fd, r->first_ns, r->last_ns));
	if (!c)
		return;
	if (!c->first_ns || r->first_ns < c->first_ns)
		c->first_ns = r->first_ns;
	if (r->last_ns > c->last_ns)
		c->last_ns = r->last_ns;
	account_sum(st, desc->cls == IPCPERF_SC_READ ? &c->rd : &c->wr, r);
}

bool ipp_stats__takes_sums(void *ctx)
{
	const struct ipcperf_stats *st = ctx;

	return !st->per_thread && !st->call_cb && !st->every.call_cb;
}

/*
 * Sweep once enough incarnations have closed; with fold_exited, also once
 * a second of events has gone by since the last sweep: an exit's fds wait
 * that second, and the sweeps by count alone would let a steady stream of
 * exits pile up three times as many before they fold.
 */
static void sweep_after(struct ipcperf_stats *st)
{
	size_t closed = ipp_fdtab__nr_closed(st->fdt);

	if (closed >= st->sweep_at ||
	    (st->fold_exited && closed &&
	     ipp_fdtab__now(st->fdt) >= st->swept_ns + IPP_EXIT_SETTLE_NS))
		ipp_stats__sweep(st);
}

/* Thread @tid of @pid was scheduled (named @comm then), at @time: its process, seen. */
static struct proc *sched_proc(struct ipcperf_stats *st, pid_t pid, pid_t tid,
			       const char comm[IPP_COMM_MAX], uint64_t time)
{
	struct proc *p = ipp_stats__proc(st, pid, true);

	if (!p)
		return NULL;
	ipp_fdtab__clock(st->fdt, time);
	see_proc(p, time);
	if (!p->comm[0])
		memcpy(p->comm, comm, sizeof(p->comm));
	see_thread(st, p, tid);
	return p;
}

void ipcperf_stats__add_switch(struct ipcperf_stats *st, const struct ipcperf_switch *ev)
{
	struct proc *p = sched_proc(st, ev->pid, ev->tid, ev->prev_comm, ev->time_ns);
	struct thread *t;

	if (!p)
		return;
	if (ev->preempted)
		p->invol++;
	else
		p->vol++;
	t = get_thread(st, ev->tid, false);
	if (t) {
		if (t->last_cpu >= 0 && t->last_cpu != ev->cpu)
			p->migrations++;
		t->last_cpu = ev->cpu;
	}
}

void ipcperf_stats__add_wakeup(struct ipcperf_stats *st, const struct ipcperf_wakeup *ev)
{
	struct thread *t = get_thread(st, ev->tid, false);
	struct proc *p;

	ipp_fdtab__clock(st->fdt, ev->time_ns);
	/* Only threads of processes we account for: the woken one may be anybody. */
	if (!t || !(p = ipp_stats__proc(st, t->pid, false)))
		return;
	p->wakeups++;
}

void ipcperf_stats__add_sched_totals(struct ipcperf_stats *st,
				     const struct ipcperf_sched_totals *ev)
{
	struct proc *p;

	if (!st || !ev || !(p = sched_proc(st, ev->pid, ev->tid, ev->comm, ev->time_ns)))
		return;
	p->vol += ev->voluntary;
	p->invol += ev->involuntary;
	p->wakeups += ev->wakeups;
	p->migrations += ev->migrations;
}

void ipcperf_stats__add_task(struct ipcperf_stats *st, const struct ipcperf_task *ev)
{
	struct proc *p = ipp_stats__proc(st, ev->pid, true), *c;

	ipp_fdtab__task(st->fdt, ev);
	if (!p)
		return;
	switch (ev->kind) {
	case IPCPERF_TASK_FORK:
		see_thread(st, p, ev->tid);
		if (ev->child_tid == ev->pid)
			break;
		c = ipp_stats__proc(st, ev->child_tid, true);
		if (!c)
			break;
		c->exited = false;
		c->exit_ns = 0;
		if (ev->comm)
			snprintf(c->comm, sizeof(c->comm), "%s", ev->comm);
		break;
	case IPCPERF_TASK_EXEC: {
		const char *base = ev->filename ? strrchr(ev->filename, '/') : NULL;

		see_proc(p, ev->time_ns);
		if (ev->pid == st->cmd_pid && !st->cmd_exec_ns)
			st->cmd_exec_ns = ev->time_ns;
		if (ev->filename)
			snprintf(p->comm, sizeof(p->comm), "%s", base ? base + 1 : ev->filename);
		if (ev->left_view)
			p->left_ns = ev->time_ns;
		break;
	}
	case IPCPERF_TASK_EXIT:
		if (ev->tid != ev->pid)
			ipp_stats__drop_unseen(st, ev->tid);
		if (ev->tid == ev->pid) {
			p->exited = true;
			p->exit_ns = ev->time_ns;
			pack_proc(p);
			if (ev->comm && !p->comm[0])
				snprintf(p->comm, sizeof(p->comm), "%s", ev->comm);
		}
		if (st->every.exit_cb && ipp_callfds__push_exit(&st->every, ev) == 0)
			ipp_callfds__drain(&st->every, false);
		break;
	}
	sweep_after(st);
}

int ipcperf_stats__set_fd_identity(struct ipcperf_stats *st, pid_t pid, int fd,
				   const struct ipcperf_fd_identity *id)
{
	if (!st || !id || id->sz < offsetof(struct ipcperf_fd_identity, kind) + sizeof(id->kind) ||
	    !ipp_opts_valid(id, id->sz, sizeof(*id)) || !id->object || fd < 0 || pid <= 0)
		return -EINVAL;
	if (!ipp_stats__proc(st, pid, true))
		return -ENOMEM;
	return ipp_fdtab__set_identity(st->fdt, pid, fd, id);
}

int ipcperf_stats__set_fd_object(struct ipcperf_stats *st, pid_t pid, int fd, const char *object,
				 enum ipcperf_fd_kind kind)
{
	IPCPERF_OPTS(ipcperf_fd_identity, id, .object = object, .kind = kind);

	return ipcperf_stats__set_fd_identity(st, pid, fd, &id);
}

void ipcperf_stats__add_fd_open(struct ipcperf_stats *st, const struct ipcperf_fd_open *ev)
{
	if (!st || !ev)
		return;
	if (ipp_fdtab__fd_open(st->fdt, ev) && st->every.call_cb)
		ipp_callfds__late_word(&st->every, st->fdt, ev);
}
