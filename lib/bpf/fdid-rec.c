/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Decoding of the fd-identity records (fdid-rec.h) into what lib/fd/procfd.c
 * gives from /proc. Pure: bytes in, struct out.
 */
#include "config.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "fdid-rec.h"

int ipp_fdid_rec__parse(const void *raw, size_t size, struct ipp_fdid_rec *out)
{
	struct ipp_fdid_rec r;
	uint16_t rsize;
	size_t need;
	int err = ipp_krec__head(raw, size, &rsize);

	if (err)
		return err;
	if (rsize < IPP_FDID_REC_IO_SIZE)
		return -EPROTO;
	memset(&r, 0, sizeof(r));
	memcpy(&r, raw, rsize < sizeof(r) ? rsize : sizeof(r));
	if (r.what == IPP_FDID_IO) {
		need = IPP_FDID_REC_IO_SIZE;
	} else if (r.what == IPP_FDID_NEW || r.what == IPP_FDID_UPDATE) {
		if (r.size < IPP_FDID_REC_HDR_SIZE + 1 || r.path_len >= IPP_FDID_PATH_MAX)
			return -EPROTO;
		need = IPP_FDID_REC_HDR_SIZE + r.path_len + 1u;
	} else {
		return -EPROTO;
	}
	if (r.size < need)
		return -EPROTO;
	r.path[r.what == IPP_FDID_IO ? 0 : r.path_len] = '\0';
	*out = r;
	return 0;
}


/* Set the object's name as lib/fd/procfd.c does: a name too long keeps its end, behind "...". */
static void set_object(struct ipp_fdid *out, const char *s, bool cut)
{
	size_t len = strlen(s);

	if (!cut && len < sizeof(out->object)) {
		memcpy(out->object, s, len + 1);
		return;
	}
	size_t keep = sizeof(out->object) - 4;

	if (keep > len)
		keep = len;
	memcpy(out->object, "...", 3);
	memcpy(out->object + 3, s + len - keep, keep + 1);
	out->truncated = true;
}

static bool is_tty(const struct ipp_fdid_rec *r)
{
	unsigned int maj = major(r->rdev), min = minor(r->rdev);

	if (!S_ISCHR(r->mode))
		return false;
	if (maj == 4 || (maj == 5 && min <= 2) || (maj >= 136 && maj <= 143))
		return true;
	return !strncmp(r->path, "/dev/pts/", 9) || !strncmp(r->path, "/dev/tty", 8) ||
	       !strcmp(r->path, "/dev/console");
}

static void set_inet(union ipp_sockaddr *a, int family, const uint8_t *addr, uint16_t port)
{
	memset(a, 0, sizeof(*a));
	if (family == AF_INET) {
		a->in.sin_family = AF_INET;
		a->in.sin_port = htons(port);
		memcpy(&a->in.sin_addr, addr, 4);
	} else {
		a->in6.sin6_family = AF_INET6;
		a->in6.sin6_port = htons(port);
		memcpy(&a->in6.sin6_addr, addr, 16);
	}
}

static bool is_loopback(int family, const uint8_t *addr)
{
	static const uint8_t v6lo[16] = { [15] = 1 };
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (family == AF_INET)
		return addr[0] == 127;
	return !memcmp(addr, v6lo, 16) || (!memcmp(addr, mapped, 12) && addr[12] == 127);
}

int ipp_fdid_rec__to_fdid(const struct ipp_fdid_rec *r, struct ipp_fdid *out)
{
	struct ipp_fdid id;
	char name[IPP_FDID_PATH_MAX + 32];

	if (r->what == IPP_FDID_IO)
		return -EINVAL;
	if (r->kind == IPP_FDID_NOFILE)
		return -ENOENT;
	memset(&id, 0, sizeof(id));
	id.ino = r->ino;
	id.dev = r->dev;
	id.flags = (int)r->f_flags;
	id.state = -1;
	switch (r->kind) {
	case IPP_FDID_PIPE:
		id.kind = IPCPERF_FD_PIPE;
		snprintf(name, sizeof(name), "pipe:[%llu]", (unsigned long long)r->ino);
		break;
	case IPP_FDID_SOCKET:
		snprintf(name, sizeof(name), "socket:[%llu]", (unsigned long long)r->ino);
		id.family = r->family;
		id.type = r->type;
		id.protocol = r->protocol;
		id.state = r->state;
		id.diag = true;
		id.sndbuf = r->capacity;
		id.rcvbuf = r->rcvbuf;
		if (r->family == AF_UNIX) {
			id.kind = IPCPERF_FD_UNIX;
			id.peer_ino = r->peer_ino;
		} else if ((r->family == AF_INET || r->family == AF_INET6) &&
			   (r->protocol == IPPROTO_TCP || r->protocol == IPPROTO_UDP)) {
			id.kind = r->protocol == IPPROTO_TCP ? IPCPERF_FD_TCP : IPCPERF_FD_UDP;
			set_inet(&id.local, r->family, r->saddr, r->sport);
			if (r->dport)
				set_inet(&id.remote, r->family, r->daddr, r->dport);
			id.loopback = is_loopback(r->family, r->saddr) ||
				      (r->dport && is_loopback(r->family, r->daddr));
		} else {
			id.kind = IPCPERF_FD_OTHER;
		}
		break;
	case IPP_FDID_ANON:
		id.kind = IPCPERF_FD_OTHER;
		snprintf(name, sizeof(name), "anon_inode:%s", r->path);
		break;
	case IPP_FDID_FIFO:
	case IPP_FDID_FILE:
		id.kind = r->kind == IPP_FDID_FIFO ? IPCPERF_FD_PIPE : is_tty(r) ? IPCPERF_FD_TTY : IPCPERF_FD_FILE;
		snprintf(name, sizeof(name), "%s%s", r->path,
			 r->flags & IPP_FDID_F_DELETED ? " (deleted)" : "");
		break;
	default:
		return -EPROTO;
	}
	set_object(&id, name, (r->flags & IPP_FDID_F_PATH_TRUNC) != 0);
	*out = id;
	return 0;
}

const char *ipp_fdid_rec__what_name(unsigned int what)
{
	switch (what) {
	case IPP_FDID_NEW: return "new";
	case IPP_FDID_UPDATE: return "update";
	case IPP_FDID_IO: return "io";
	case IPP_FDID_CALL: return "call";
	case IPP_FDID_SCHED: return "sched";
	case IPP_FDID_SUM: return "sum";
	case IPP_FDID_TASK: return "task";
	case IPP_FDID_ARGS: return "args";
	case IPP_FDID_SIGNAL: return "signal";
	default: return "?";
	}
}
