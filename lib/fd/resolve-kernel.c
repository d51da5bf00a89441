/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The kernel-records source of fd identity (resolve-kernel.h). */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "bpf/fdid-rec.h"
#include "fd/procfd.h"
#include "fd/resolve-kernel.h"

/* ------------------------------------------------------------------ records */

int ipp_kernel_fd_open(const void *raw, size_t size, uint64_t time, struct ipcperf_fd_open *ev,
		       struct ipp_ident *buf)
{
	struct ipp_fdid_rec rec;
	struct ipp_fdid f;

	if (ipp_fdid_rec__parse(raw, size, &rec) < 0 || rec.what == IPP_FDID_IO)
		return -EINVAL;
	*ev = (struct ipcperf_fd_open){
		.time_ns = time, .pid = rec.pid, .tid = rec.tid, .fd = rec.fd, .nr = rec.nr,
		.ret = rec.ret, .update = rec.what == IPP_FDID_UPDATE, .object = "unknown",
		.kind = IPCPERF_FD_UNKNOWN, .detail = "", .capacity = -1,
		.cloexec = rec.flags & IPP_FDID_F_CLOEXEC, .accmode = -1,
	};
	if (ipp_fdid_rec__to_fdid(&rec, &f) < 0) {
		ev->gone = true;
		return 0;
	}
	ipp_ident_of_fdid(buf, &f, time);
	/* A pipe's size comes with it; sockets have their send buffer. */
	if ((rec.kind == IPP_FDID_PIPE || rec.kind == IPP_FDID_FIFO) && rec.capacity)
		buf->capacity = rec.capacity;
	ev->object = buf->object;
	ev->kind = buf->kind;
	ev->detail = buf->detail;
	ev->ino = buf->ino;
	ev->peer_ino = buf->peer_ino;
	ev->sock_type = buf->sock_type;
	ev->capacity = buf->capacity;
	ev->accmode = (int)(rec.f_flags & O_ACCMODE);
	return 0;
}

/* ------------------------------------------------------------------ identities */

/* What the kernel said: exact (or unknown, for an fd gone before it could be looked at). */
void ipp_ident_of_open(struct ipp_ident *id, const struct ipcperf_fd_open *ev)
{
	memset(id, 0, sizeof(*id));
	id->state = ev->gone ? IPP_ID_UNKNOWN : IPP_ID_FINAL;
	id->cloexec = ev->gone ? -1 : ev->cloexec;
	id->capacity = -1;
	if (ev->gone) {
		/* the kernel looked when the call returned: the fd was gone */
		id->read_ns = ev->time_ns;
		id->read_err = -ENOENT;
		return;
	}
	id->kind = ev->kind;
	id->ino = ev->ino;
	id->peer_ino = ev->peer_ino;
	id->sock_type = ev->sock_type;
	id->capacity = ev->capacity;
	id->accmode = ev->accmode >= 0 ? (signed char)((ev->accmode & O_ACCMODE) + 1) : 0;
	snprintf(id->object, sizeof(id->object), "%s", ev->object ? ev->object : "unknown");
	snprintf(id->detail, sizeof(id->detail), "%s", ev->detail ? ev->detail : "");
}

/* "A -> B" and "B -> A": the two ends of one inet connection. */
static bool mirrored(const char *a, const char *b)
{
	const char *sa = strstr(a, " -> "), *sb = strstr(b, " -> ");
	size_t la, lb;

	if (!sa || !sb)
		return false;
	la = (size_t)(sa - a);
	lb = (size_t)(sb - b);
	/* Unconnected ("A -> "): no peer to find. */
	return sa[4] && strlen(sa + 4) == lb && !strncmp(sa + 4, b, lb) &&
	       strlen(sb + 4) == la && !strncmp(sb + 4, a, la);
}

/*
 * The kernel names a TCP or UDP socket by its addresses, not its peer: the
 * peer is the open socket whose addresses are this one's mirrored (a
 * loopback connection has both ends here), as sock_diag pairs them.
 */
static void link_inet_peer(struct ipp_inc *incs, size_t n, struct ipp_inc *in)
{
	struct ipp_ident *id = &in->id;

	if ((id->kind != IPCPERF_FD_TCP && id->kind != IPCPERF_FD_UDP) || id->peer_ino ||
	    id->state != IPP_ID_FINAL || !strstr(id->detail, " -> "))
		return;
	for (size_t i = 0; i < n; i++) {
		struct ipp_ident *o = &incs[i].id;

		if (!incs[i].open || &incs[i] == in || o->kind != id->kind ||
		    o->state != IPP_ID_FINAL || !mirrored(id->detail, o->detail))
			continue;
		id->peer_ino = o->ino;
		if (!o->peer_ino)
			o->peer_ino = id->ino;
		return;
	}
}

static bool unix_connected(const struct ipp_ident *id)
{
	return id->kind == IPCPERF_FD_UNIX && id->state == IPP_ID_FINAL &&
	       (id->sock_type == SOCK_STREAM || id->sock_type == SOCK_SEQPACKET);
}

static void set_unix_peer(struct ipp_ident *id, uint64_t peer_ino)
{
	id->peer_ino = peer_ino;
	snprintf(id->detail, sizeof(id->detail), "peer socket:[%llu]", (unsigned long long)peer_ino);
}

/*
 * A unix stream client is connected to an embryo until the server accepts
 * it: the kernel names no peer at its connect (peer_ino 0), and names the
 * client as the peer of the accepted socket. Connected unix stream and
 * seqpacket sockets are each other's peers: what one end says completes
 * the other, whichever of the two the kernel described first.
 */
static void link_unix_peer(struct ipp_inc *incs, size_t n, struct ipp_inc *in)
{
	struct ipp_ident *id = &in->id;

	if (!unix_connected(id) || !id->ino)
		return;
	for (size_t i = 0; i < n; i++) {
		struct ipp_ident *o = &incs[i].id;

		if (!incs[i].open || &incs[i] == in || !unix_connected(o))
			continue;
		if (id->peer_ino && o->ino == id->peer_ino && !o->peer_ino)
			set_unix_peer(o, id->ino);	/* every copy of the other end */
		else if (!id->peer_ino && o->peer_ino == id->ino && o->ino)
			set_unix_peer(id, o->ino);
	}
}

/* What one end's identity tells of its peer's, and back. */
void ipp_kernel_link_peer(struct ipp_inc *incs, size_t n, struct ipp_inc *in)
{
	link_inet_peer(incs, n, in);
	link_unix_peer(incs, n, in);
}

/* ------------------------------------------------------------------ words and exits */

struct ipp_kwords {
	/*
	 * What the kernel said the fds a call made are, in the moment before
	 * that call's exit arrives: applied at the exit of the same call on
	 * the same thread, dropped at any other.
	 */
	struct pending_fd {
		pid_t pid, tid;
		int fd, nr;
		int64_t ret;
		struct ipp_ident id;
	} *pend;
	size_t nr_pend, cap_pend;
	/*
	 * The last exit of each thread, for the kernel's words that come after
	 * their call's exit (the order of the tracepoints' probes decides):
	 * sorted by tid.
	 */
	struct lastexit {
		pid_t tid, pid;
		int nr;
		int64_t ret;
		uint64_t end_ns;
		enum { LE_OPEN, LE_EARLY, LE_LATE } state;
	} *lex;
	size_t nr_lex, cap_lex;
};

struct ipp_kwords *ipp_kwords__new(void)
{
	return calloc(1, sizeof(struct ipp_kwords));
}

void ipp_kwords__delete(struct ipp_kwords *k)
{
	if (!k)
		return;
	free(k->pend);
	free(k->lex);
	free(k);
}

static int cmp_lastexit(const void *key, const void *elem)
{
	pid_t a = *(const pid_t *)key, b = ((const struct lastexit *)elem)->tid;

	return (a > b) - (a < b);
}

/* The last exit of thread @tid, made if @create; NULL if none (or out of memory). */
static struct lastexit *last_exit(struct ipp_kwords *k, pid_t tid, bool create)
{
	size_t at;

	if (ipp_bsearch_at(&tid, k->lex, k->nr_lex, sizeof(*k->lex), cmp_lastexit, &at))
		return &k->lex[at];
	if (!create ||
	    ipp_grow((void **)&k->lex, &k->cap_lex, k->nr_lex + 1, sizeof(*k->lex)) < 0)
		return NULL;
	memmove(&k->lex[at + 1], &k->lex[at], (k->nr_lex - at) * sizeof(*k->lex));
	k->nr_lex++;
	k->lex[at] = (struct lastexit){ .tid = tid };
	return &k->lex[at];
}

bool ipp_kwords__word(struct ipp_kwords *k, const struct ipcperf_fd_open *ev, pid_t *pid,
		      uint64_t *end_ns)
{
	/*
	 * After its call's exit: the thread's last exit is that call, unless
	 * that exit already took words that came before it (then these are
	 * the next call's, which has not exited yet).
	 */
	struct lastexit *l = last_exit(k, ev->tid, false);

	if (l && l->state != LE_EARLY && l->nr == ev->nr && l->ret == ev->ret &&
	    l->pid == ev->pid) {
		l->state = LE_LATE;
		*pid = l->pid;
		*end_ns = l->end_ns;
		return true;
	}
	if (ipp_grow((void **)&k->pend, &k->cap_pend, k->nr_pend + 1, sizeof(*k->pend)) < 0)
		return false;	/* out of memory: the fd is resolved from /proc as without the kernel's word */
	k->pend[k->nr_pend] = (struct pending_fd){ .pid = ev->pid, .tid = ev->tid, .fd = ev->fd,
						   .nr = ev->nr, .ret = ev->ret };
	ipp_ident_of_open(&k->pend[k->nr_pend].id, ev);
	k->nr_pend++;
	return false;
}

size_t ipp_kwords__exit(struct ipp_kwords *k, const struct ipcperf_syscall *ev, bool track,
			void (*apply)(void *ctx, int fd, const struct ipp_ident *id), void *ctx)
{
	size_t n = 0, kept = 0;

	for (size_t i = 0; i < k->nr_pend; i++) {
		struct pending_fd *pf = &k->pend[i];

		if (pf->tid != ev->tid) {
			k->pend[kept++] = *pf;
			continue;
		}
		if (pf->nr != ev->nr || pf->ret != ev->ret || pf->pid != ev->pid || n == IPP_MAX_CALL_FDS)
			continue;
		apply(ctx, pf->fd, &pf->id);
		n++;
	}
	k->nr_pend = kept;
	if (track) {
		struct lastexit *l = last_exit(k, ev->tid, true);

		if (l)
			*l = (struct lastexit){ .tid = ev->tid, .pid = ev->pid, .nr = ev->nr,
						.ret = ev->ret, .end_ns = ev->end_ns,
						.state = n ? LE_EARLY : LE_OPEN };
	}
	return n;
}

void ipp_kwords__gone(struct ipp_kwords *k, pid_t tid)
{
	size_t at, kept = 0;

	if (ipp_bsearch_at(&tid, k->lex, k->nr_lex, sizeof(*k->lex), cmp_lastexit, &at)) {
		memmove(&k->lex[at], &k->lex[at + 1], (k->nr_lex - at - 1) * sizeof(*k->lex));
		k->nr_lex--;
	}
	for (size_t i = 0; i < k->nr_pend; i++)
		if (k->pend[i].tid != tid)
			k->pend[kept++] = k->pend[i];
	k->nr_pend = kept;
}
