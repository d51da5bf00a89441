/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the paths know of a process's socket fds, by (pid, fd): the request
 * a connect on it was made for, and the connection it is on.
 *
 * An event loop connects without waiting (EINPROGRESS) in the turn it read
 * a request, and writes the request when a later wait says the socket is
 * writable, often in the turn of another request it read: the connect
 * carries the request to that first write (nginx to its upstream).
 *
 * A close of an fd whose exchange under way was answered, and its answer
 * read whole, ends that exchange as an end of file would: nginx closes its
 * connection to a backend once it read the length the answer announced,
 * without reading the end of file, and its request would otherwise wait
 * for the flush. A close before then ends nothing (a copy of the fd in
 * another process, or a server that closes before its caller read it all).
 *
 * Connects and closes come straight from the session, ahead of the flows'
 * calls: they wait in order.c and come here in the order of the moments,
 * as writes and matches do, so that what a thread holds, and what an fd is
 * on, are those of the moment of the call.
 */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include "paths/paths.h"

static uint64_t fd_key(pid_t pid, int fd)
{
	return (uint64_t)(uint32_t)pid << 32 | (uint32_t)fd;
}

static void push(struct ipcperf_paths *p, enum ipp_item_kind kind, const struct ipcperf_syscall *ev)
{
	struct ipp_item it = {
		.kind = kind, .eff = ev->start_ns, .pid = ev->pid, .tid = ev->tid, .fd = ev->fd,
		.start = ev->start_ns, .end = ev->end_ns,
	};

	/* the clock is the flows': these come ahead of it */
	ipp_order__push(p, &it, 0);
}

void ipp_paths__on_connect(struct ipcperf_paths *p, const struct ipcperf_syscall *ev)
{
	push(p, IPP_IT_CONNECT, ev);
}

void ipp_paths__on_close(struct ipcperf_paths *p, const struct ipcperf_syscall *ev)
{
	push(p, IPP_IT_CLOSE, ev);
}

/* A connect of @it->fd: made for the request its thread holds in this turn, if any. */
static void connected(struct ipcperf_paths *p, const struct ipp_item *it)
{
	uint64_t key = fd_key(it->pid, it->fd);
	struct ipp_xchg *held = ipp_paths__held(p, it);

	ipp_idmap__del(&p->dialed, key);
	if (held)
		ipp_idmap__put(&p->dialed, key, (void *)(uintptr_t)held->id);
}

struct ipp_xchg *ipp_sockfd__dialed_for(struct ipcperf_paths *p, const struct ipp_item *it)
{
	uint64_t key = fd_key(it->pid, it->fd);
	uintptr_t id = (uintptr_t)ipp_idmap__get(&p->dialed, key);
	struct ipp_xchg *x;

	if (!id)
		return NULL;
	ipp_idmap__del(&p->dialed, key);
	x = ipp_idmap__get(&p->live, (uint64_t)id);
	return x && !x->answered ? x : NULL;
}

void ipp_sockfd__saw(struct ipcperf_paths *p, const struct ipp_item *it)
{
	uint64_t key = fd_key(it->pid, it->fd);
	struct ipp_conn *was;

	if (it->fd < 0)
		return;
	was = ipp_idmap__get(&p->fdconn, key);
	if (was == it->c || ipp_idmap__put(&p->fdconn, key, it->c) < 0)
		return;
	it->c->refs++;
	ipp_paths__put_conn(p, was);
}

/* A close of @it->fd: the end of its connection, if all that was asked was answered and read. */
static void closed(struct ipcperf_paths *p, const struct ipp_item *it)
{
	uint64_t key = fd_key(it->pid, it->fd);
	struct ipp_conn *c = ipp_idmap__get(&p->fdconn, key);
	const struct ipp_xchg *x;

	ipp_idmap__del(&p->dialed, key);
	if (!c)
		return;
	ipp_idmap__del(&p->fdconn, key);
	x = c->cur;
	if (x && x->answered && x->resp.rd >= x->resp.off1 - x->resp.off0)
		ipp_paths__end_conn(p, c);
	ipp_paths__put_conn(p, c);
}

void ipp_sockfd__process(struct ipcperf_paths *p, const struct ipp_item *it)
{
	if (it->kind == IPP_IT_CONNECT)
		connected(p, it);
	else
		closed(p, it);
}

static void put_ref(void *ctx, void *val)
{
	ipp_paths__put_conn(ctx, val);
}

void ipp_sockfd__fini(struct ipcperf_paths *p)
{
	ipp_idmap__each(&p->fdconn, put_ref, p);
	ipp_idmap__fini(&p->fdconn);
	ipp_idmap__fini(&p->dialed);
}
