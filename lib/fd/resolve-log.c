/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The capture-log resolver (resolve.h): a recording session's /proc answers
 * are added to the capture's identity log (identlog.c) as they are given; a
 * replay takes them back, in the order they were asked for, and never
 * reads /proc.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fd/identlog.h"
#include "fd/resolve.h"

struct logres {
	struct ipp_resolver base;
	int refs;
	struct ipp_identlog *log;
	struct ipp_resolver *inner;	/* recording: who answers; NULL: replaying */
};

/* ------------------------------------------------------------------ answers */

/* @id as a log entry (@id NULL or not IPP_ID_PROC: could not be resolved). */
static void log_answer(struct ipp_identlog *log, uint32_t what, pid_t pid, int fd,
		       const struct ipp_ident *id)
{
	struct ipp_ident_ans a = { .what = what, .pid = pid, .fd = fd };

	if (id && id->state != IPP_ID_PROC)
		a.res_ns = id->read_ns;	/* when the read that failed was made */
	if (id && id->state == IPP_ID_PROC) {
		a.ok = 1;
		a.res_ns = id->res_ns;
		a.kind = id->kind;
		a.sock_type = id->sock_type;
		a.ino = id->ino;
		a.peer_ino = id->peer_ino;
		a.capacity = id->capacity;
		a.cap_default = id->cap_default;
		a.cloexec = id->cloexec;
		memcpy(a.object, id->object, sizeof(a.object));
		memcpy(a.detail, id->detail, sizeof(a.detail));
	}
	ipp_identlog__add(log, &a);
}

/* The answer logged for the same question, into @id (unknown if none). */
static int replay_answer(struct ipp_identlog *log, unsigned int mask, pid_t pid, int fd,
			 struct ipp_ident *id, struct ipp_ident_ans *a)
{
	int err = ipp_identlog__take(log, mask, pid, fd, a);

	memset(id, 0, sizeof(*id));
	id->state = err == 0 && a->ok ? IPP_ID_PROC : IPP_ID_UNKNOWN;
	id->cloexec = -1;
	id->read_ns = err == 0 ? a->res_ns : 0;
	id->read_err = -ENOENT;
	if (id->state == IPP_ID_UNKNOWN)
		return err;
	id->read_err = 0;
	id->res_ns = a->res_ns;
	id->kind = (enum ipcperf_fd_kind)a->kind;
	id->sock_type = a->sock_type;
	id->ino = a->ino;
	id->peer_ino = a->peer_ino;
	id->capacity = a->capacity;
	id->cap_default = a->cap_default;
	id->cloexec = a->cloexec;
	memcpy(id->object, a->object, sizeof(id->object));
	memcpy(id->detail, a->detail, sizeof(id->detail));
	return 0;
}

/* ------------------------------------------------------------------ replay */

static void replay_resolve(struct ipp_resolver *r, pid_t pid, int fd, uint64_t floor_ns,
			   struct ipp_ident *id)
{
	struct ipp_ident_ans a;

	(void)floor_ns;
	replay_answer(((struct logres *)r)->log, IPP_IDQ_RESOLVE, pid, fd, id, &a);
}

static void replay_scan(struct ipp_resolver *r, pid_t pid, bool pipe_cap, ipp_ident_cb cb,
			void *ctx)
{
	struct ipp_ident_ans a;
	struct ipp_ident id;

	(void)pipe_cap;
	while (replay_answer(((struct logres *)r)->log, IPP_IDQ_SCAN | IPP_IDQ_SCAN_END, pid, -1,
			     &id, &a) == 0 && a.what == IPP_IDQ_SCAN)
		if (id.state == IPP_ID_PROC && cb(ctx, a.fd, &id))
			break;
}

static int replay_comm(struct ipp_resolver *r, pid_t pid, char *buf, size_t len)
{
	(void)r;
	(void)pid;
	(void)buf;
	(void)len;
	return -ENOENT;	/* a replay names its processes itself (next_proc) */
}

/* The recorder logged, per target, its name and then its fds. */
static int replay_next_proc(struct ipp_resolver *r, pid_t *pid, char *buf, size_t len)
{
	struct ipp_ident_ans a;

	if (ipp_identlog__take_any(((struct logres *)r)->log, IPP_IDQ_COMM, &a) < 0)
		return -ENOENT;
	*pid = a.pid;
	snprintf(buf, len, "%s", a.ok ? a.object : "");
	return 0;
}

static void replay_connected(struct ipp_resolver *r)
{
	(void)r;
}

static void logres_put(struct ipp_resolver *r)
{
	struct logres *l = (struct logres *)r;

	if (--l->refs > 0)
		return;
	ipp_resolver__put(l->inner);
	free(l);
}

static const struct ipp_resolver_ops replay_ops = {
	.resolve = replay_resolve, .scan = replay_scan, .comm = replay_comm,
	.next_proc = replay_next_proc, .connected = replay_connected, .put = logres_put,
};

struct ipp_resolver *ipp_resolve_log__replay(struct ipp_identlog *log)
{
	struct logres *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->base.ops = &replay_ops;
	l->refs = 1;
	l->log = log;
	return &l->base;
}

/* ------------------------------------------------------------------ record */

static void record_resolve(struct ipp_resolver *r, pid_t pid, int fd, uint64_t floor_ns,
			   struct ipp_ident *id)
{
	struct logres *l = (struct logres *)r;

	l->inner->ops->resolve(l->inner, pid, fd, floor_ns, id);
	log_answer(l->log, IPP_IDQ_RESOLVE, pid, fd, id);
}

struct record_scan {
	struct logres *l;
	pid_t pid;
	ipp_ident_cb cb;
	void *ctx;
};

static int record_one(void *ctx, int fd, const struct ipp_ident *id)
{
	struct record_scan *rs = ctx;

	log_answer(rs->l->log, IPP_IDQ_SCAN, rs->pid, fd, id);
	return rs->cb(rs->ctx, fd, id);
}

static void record_scan(struct ipp_resolver *r, pid_t pid, bool pipe_cap, ipp_ident_cb cb,
			void *ctx)
{
	struct logres *l = (struct logres *)r;
	struct record_scan rs = { .l = l, .pid = pid, .cb = cb, .ctx = ctx };

	l->inner->ops->scan(l->inner, pid, pipe_cap, record_one, &rs);
	log_answer(l->log, IPP_IDQ_SCAN_END, pid, -1, NULL);
}

static int record_comm(struct ipp_resolver *r, pid_t pid, char *buf, size_t len)
{
	struct logres *l = (struct logres *)r;
	struct ipp_ident cid = { .state = IPP_ID_UNKNOWN };
	int err = l->inner->ops->comm(l->inner, pid, buf, len);

	if (err == 0) {
		cid.state = IPP_ID_PROC;
		snprintf(cid.object, sizeof(cid.object), "%s", buf);
	}
	log_answer(l->log, IPP_IDQ_COMM, pid, -1, &cid);
	return err;
}

static int record_next_proc(struct ipp_resolver *r, pid_t *pid, char *buf, size_t len)
{
	struct logres *l = (struct logres *)r;

	return l->inner->ops->next_proc(l->inner, pid, buf, len);
}

static void record_connected(struct ipp_resolver *r)
{
	struct logres *l = (struct logres *)r;

	l->inner->ops->connected(l->inner);
}

static const struct ipp_resolver_ops record_ops = {
	.resolve = record_resolve, .scan = record_scan, .comm = record_comm,
	.next_proc = record_next_proc, .connected = record_connected, .put = logres_put,
};

struct ipp_resolver *ipp_resolve_log__record(struct ipp_identlog *log, struct ipp_resolver *inner)
{
	struct logres *l = calloc(1, sizeof(*l));

	if (!l) {
		ipp_resolver__put(inner);
		return NULL;
	}
	l->base.ops = &record_ops;
	l->refs = 1;
	l->log = log;
	l->inner = inner;
	return &l->base;
}
