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

/*
 * "B -> A" of @a's "A -> B" into @want (as long as @a). @return false when
 * @a is no such detail, or is unconnected ("A -> "): no peer to find.
 */
static bool mirror_of(const char *a, char want[IPP_DETAIL_MAX])
{
	const char *arrow = strstr(a, " -> ");

	if (!arrow || !arrow[4])
		return false;
	snprintf(want, IPP_DETAIL_MAX, "%s -> %.*s", arrow + 4, (int)(arrow - a), a);
	return true;
}

/*
 * The kernel names a TCP or UDP socket by its addresses, not its peer: the
 * peer is the open socket whose addresses are this one's mirrored (a
 * loopback connection has both ends here), as sock_diag pairs them. The
 * mirror is written once, so that each open socket costs one string
 * compare, which mostly ends in the first few bytes.
 */
static void link_inet_peer(struct ipp_inc *incs, size_t n, struct ipp_inc *in)
{
	struct ipp_ident *id = &in->id;
	char want[IPP_DETAIL_MAX];

	if ((id->kind != IPCPERF_FD_TCP && id->kind != IPCPERF_FD_UDP) || id->peer_ino ||
	    id->state != IPP_ID_FINAL || !mirror_of(id->detail, want))
		return;
	for (size_t i = 0; i < n; i++) {
		struct ipp_ident *o = &incs[i].id;

		if (!incs[i].open || &incs[i] == in || o->kind != id->kind ||
		    o->state != IPP_ID_FINAL || strcmp(o->detail, want))
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
