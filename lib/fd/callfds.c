/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every call with what its fds are, once that is settled (callfds.h). */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fd/callfds.h"
#include "internal.h"

/*
 * The kernel's words on a call's new fds come just before or just after its
 * exit, in the same ring; past this, in the events' time, none is coming.
 */
#define IPP_LATE_WORD_NS 10000000ull

void ipp_callfds__init(struct ipp_callfds *q, const struct ipp_fdtab *t)
{
	memset(q, 0, sizeof(*q));
	q->t = t;
}

void ipp_callfds__fini(struct ipp_callfds *q)
{
	for (size_t i = 0; i < q->len; i++)
		free(q->v[(q->head + i) % q->cap].mem);
	free(q->v);
	memset(q, 0, sizeof(*q));
}

static struct ipp_callfds_call *at(const struct ipp_callfds *q, size_t i)
{
	return &q->v[(q->head + i) % q->cap];
}

long ipp_callfds__arg_inc(struct ipp_fdtab *t, const struct ipcperf_syscall *ev)
{
	long inc;

	if (ev->fd < 0 || ev->cls == IPCPERF_SC_READ || ev->cls == IPCPERF_SC_WRITE ||
	    ev->cls == IPCPERF_SC_MOVE)
		return -1;	/* data calls: the table's answer, after it took the call */
	inc = ipp_fdtab__inc_of(t, ev->pid, ev->fd);
	return inc < 0 ? -1 : inc;
}

/*
 * The call's memory, copied: it lives only for the handler's call, and
 * this one may wait. One block, the pieces then their bytes. @return 0, -ENOMEM.
 */
static int copy_mem(struct ipp_callfds_call *c)
{
	size_t bytes = 0, at;
	struct ipcperf_call_mem *m;

	if (!c->ev.nr_mem)
		return 0;
	for (unsigned int i = 0; i < c->ev.nr_mem; i++)
		bytes += c->ev.mem[i].len;
	at = c->ev.nr_mem * sizeof(*m);
	if (!(m = c->mem = malloc(at + bytes))) {
		c->ev.nr_mem = 0;
		c->ev.mem = NULL;
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < c->ev.nr_mem; i++) {
		m[i] = c->ev.mem[i];
		m[i].data = (unsigned char *)m + at;
		memcpy((unsigned char *)m + at, c->ev.mem[i].data, m[i].len);
		at += m[i].len;
	}
	c->ev.mem = m;
	return 0;
}

static void add_made(struct ipp_callfds_call *c, struct ipp_fdtab *t, int fd)
{
	long inc;

	for (unsigned int i = 0; i < c->nr_made; i++)
		if (c->made_fd[i] == fd)
			return;
	if (c->nr_made == IPP_CALL_MADE || (inc = ipp_fdtab__inc_of(t, c->ev.pid, fd)) < 0)
		return;
	c->made_fd[c->nr_made] = fd;
	c->made_inc[c->nr_made++] = inc;
	ipp_fdtab__pin(t, inc, 1);
}

/* The fd a call made that its arguments or return value name, or -1. */
static int named_new_fd(const struct ipcperf_syscall *ev)
{
	if (ev->ret < 0)
		return -1;
	if (ev->cls == IPCPERF_SC_FD_NEW)
		return (int)ev->ret;
	if (ev->cls == IPCPERF_SC_FD_DUP2 && ev->nr_args >= 2)
		return (int)ev->args[1];
	return -1;
}

/*
 * Whether the kernel describes fds this call made (fdid.bpf.c), so that a
 * call without its word waits for it. Not a recvmsg: most carry no fds, and
 * each would wait for the thread's next call; its SCM_RIGHTS are told when
 * their words come before its exit, as they do where the session sets the
 * program up (bpf-proto facts), not when they come after.
 */
static bool may_have_words(const struct ipcperf_syscall *ev)
{
	if (ev->ret < 0)
		return false;
	return ev->cls == IPCPERF_SC_FD_NEW || ev->cls == IPCPERF_SC_FD_PAIR ||
	       ev->cls == IPCPERF_SC_FD_DUP2;
}

int ipp_callfds__push(struct ipp_callfds *q, struct ipp_fdtab *t, const struct ipcperf_syscall *ev,
		      long arg_inc, long data_inc)
{
	struct ipp_callfds_call *c;
	const int *early;
	size_t nr_early;
	int fd;

	if (ipp_ring_reserve((void **)&q->v, &q->cap, &q->head, q->len, sizeof(*q->v), 256) < 0)
		return -ENOMEM;
	/* The thread's earlier call: its words would have come before this exit. */
	for (size_t i = q->len; i-- > 0;)
		if (at(q, i)->kind == IPP_CALLFDS_CALL && at(q, i)->ev.tid == ev->tid) {
			at(q, i)->await_words = false;
			break;
		}
	c = at(q, q->len);
	*c = (struct ipp_callfds_call){
		.kind = IPP_CALLFDS_CALL,
		.ev = *ev,
		.arg_inc = ev->cls == IPCPERF_SC_READ || ev->cls == IPCPERF_SC_WRITE ||
			   ev->cls == IPCPERF_SC_MOVE ? data_inc : arg_inc,
		.out_inc = ev->cls == IPCPERF_SC_MOVE && ev->out_fd >= 0 ?
			   ipp_fdtab__inc_at(t, ev->pid, ev->out_fd, ev->start_ns) : -1,
	};
	if (c->out_inc < 0)
		c->out_inc = -1;
	q->len++;
	ipp_fdtab__pin(t, c->arg_inc, 1);
	copy_mem(c);	/* without memory, the call still goes: only its pieces are lost */
	nr_early = ipp_fdtab__made_early(t, &early);
	for (size_t i = 0; i < nr_early; i++)
		add_made(c, t, early[i]);
	if ((fd = named_new_fd(ev)) >= 0)
		add_made(c, t, fd);
	c->await_words = !nr_early && ipp_fdtab__kernel_words(t) && may_have_words(ev);
	return 0;
}

/* A signal or an exit: settled as it comes, handed once the calls before it are. */
static struct ipp_callfds_call *push_other(struct ipp_callfds *q, enum ipp_callfds_kind kind)
{
	struct ipp_callfds_call *c;

	if (ipp_ring_reserve((void **)&q->v, &q->cap, &q->head, q->len, sizeof(*q->v), 256) < 0)
		return NULL;
	c = at(q, q->len++);
	*c = (struct ipp_callfds_call){ .kind = kind, .arg_inc = -1, .out_inc = -1 };
	return c;
}

int ipp_callfds__push_signal(struct ipp_callfds *q, const struct ipcperf_signal *ev)
{
	struct ipp_callfds_call *c = push_other(q, IPP_CALLFDS_SIGNAL);

	if (!c)
		return -ENOMEM;
	c->sig = *ev;
	return 0;
}

int ipp_callfds__push_exit(struct ipp_callfds *q, const struct ipcperf_task *ev)
{
	struct ipp_callfds_call *c = push_other(q, IPP_CALLFDS_EXIT);

	if (!c)
		return -ENOMEM;
	c->task = *ev;
	c->task.filename = NULL;
	if (ev->comm)
		snprintf(c->comm, sizeof(c->comm), "%s", ev->comm);
	c->task.comm = ev->comm ? c->comm : NULL;	/* pointed to again when handed */
	return 0;
}

int ipp_callfds__push_entered(struct ipp_callfds *q, struct ipp_fdtab *t,
			      const struct ipcperf_syscall *ev)
{
	struct ipp_callfds_call *c = push_other(q, IPP_CALLFDS_ENTERED);
	long inc;

	if (!c)
		return -ENOMEM;
	c->ev = *ev;
	if (ev->fd >= 0 && (inc = ipp_fdtab__inc_of(t, ev->pid, ev->fd)) >= 0)
		c->arg_inc = inc;
	if (ev->out_fd >= 0 && (inc = ipp_fdtab__inc_of(t, ev->pid, ev->out_fd)) >= 0)
		c->out_inc = inc;
	ipp_fdtab__pin(t, c->arg_inc, 1);	/* as a call's: its out_inc is not pinned */
	copy_mem(c);	/* without memory, the call still goes: only its pieces are lost */
	return 0;
}

void ipp_callfds__late_word(struct ipp_callfds *q, struct ipp_fdtab *t,
			    const struct ipcperf_fd_open *ev)
{
	for (size_t i = q->len; i-- > 0;) {
		struct ipp_callfds_call *c = at(q, i);

		if (c->kind != IPP_CALLFDS_CALL || c->ev.tid != ev->tid)
			continue;
		if (c->await_words && c->ev.nr == ev->nr && c->ev.ret == ev->ret)
			add_made(c, t, ev->fd);
		return;
	}
}

static bool settled(const struct ipp_callfds *q, const struct ipp_callfds_call *c, bool final,
		    const struct ipp_ident **arg, const struct ipp_ident **made)
{
	*arg = NULL;
	if (c->kind == IPP_CALLFDS_SIGNAL || c->kind == IPP_CALLFDS_EXIT)
		return true;
	if (!final && c->await_words && ipp_fdtab__now(q->t) < c->ev.end_ns + IPP_LATE_WORD_NS)
		return false;
	if (c->arg_inc >= 0 && !ipp_fdtab__settled(q->t, c->arg_inc, final, arg))
		return false;
	if (c->out_inc >= 0 && !ipp_fdtab__settled(q->t, c->out_inc, final, &made[IPP_CALL_MADE]))
		return false;
	for (unsigned int i = 0; i < c->nr_made; i++)
		if (!ipp_fdtab__settled(q->t, c->made_inc[i], final, &made[i]))
			return false;
	return true;
}

static void object_of(struct ipcperf_fd_object *o, const struct ipp_ident *id)
{
	*o = (struct ipcperf_fd_object){
		.object = id->object, .kind = id->kind, .detail = id->detail, .ino = id->ino,
		.peer_ino = id->peer_ino, .sock_type = id->sock_type,
	};
}

/* A signal or an exit, to its callback. */
static void hand_other(const struct ipp_callfds *q, struct ipp_callfds_call *c)
{
	if (c->kind == IPP_CALLFDS_SIGNAL && q->signal_cb) {
		q->signal_cb(q->signal_ctx, &c->sig);
	} else if (c->kind == IPP_CALLFDS_EXIT && q->exit_cb) {
		c->task.comm = c->task.comm ? c->comm : NULL;
		q->exit_cb(q->exit_ctx, &c->task);
	}
}

void ipp_callfds__drain(struct ipp_callfds *q, bool final)
{
	while (q->len) {
		struct ipp_callfds_call c = *at(q, 0);
		/* made[IPP_CALL_MADE]: a move's destination */
		const struct ipp_ident *arg, *made[IPP_CALL_MADE + 1];
		struct ipcperf_fd_object argo, outo, mo[IPP_CALL_MADE];
		struct ipcperf_call_fds fds = { .nr_new = c.nr_made, .new_fds = c.made_fd,
						.new_objects = mo };

		if (!settled(q, &c, final, &arg, made))
			break;
		q->head = (q->head + 1) % q->cap;
		q->len--;
		if (c.kind == IPP_CALLFDS_SIGNAL || c.kind == IPP_CALLFDS_EXIT) {
			hand_other(q, &c);
			continue;
		}
		ipp_fdtab__pin(q->t, c.arg_inc, -1);
		for (unsigned int i = 0; i < c.nr_made; i++)
			ipp_fdtab__pin(q->t, c.made_inc[i], -1);
		if (arg) {
			object_of(&argo, arg);
			fds.fd = &argo;
		} else if (c.ev.fd >= 0) {
			/* an fd the table never saw (closed or used before the capture) */
			static const struct ipcperf_fd_object unknown = { .object = "unknown",
									  .detail = "" };
			fds.fd = &unknown;
		}
		for (unsigned int i = 0; i < c.nr_made; i++)
			object_of(&mo[i], made[i]);
		if (c.out_inc >= 0) {
			object_of(&outo, made[IPP_CALL_MADE]);
			fds.out_fd = &outo;
		}
		if (c.kind == IPP_CALLFDS_ENTERED && q->entered_cb)
			q->entered_cb(q->entered_ctx, &c.ev, &fds);
		else if (c.kind == IPP_CALLFDS_CALL && q->call_cb)
			q->call_cb(q->call_ctx, &c.ev, &fds);
		free(c.mem);
	}
}
