/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * NETLINK_SOCK_DIAG: what each unix, TCP and UDP socket of this network
 * namespace is bound and connected to, looked up by inode (procfd.h); and
 * a socket of another namespace, asked of itself and of its namespace.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/sockios.h>
#include <linux/unix_diag.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

#include "internal.h"
#include "fd/procfd.h"
#include "fd/nl.h"

/* ------------------------------------------------------------------ sockdb */

union inaddr {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
};

struct sockent {
	uint32_t ino;
	uint32_t peer;		/* unix: UNIX_DIAG_PEER; inet: set by link_inet_peers() */
	uint8_t family, type, protocol, state;
	uint32_t rcvbuf, sndbuf, rqueue, wqueue;
	union {
		struct {
			union inaddr local, remote;
		} in;
		char name[sizeof(((struct sockaddr_un *)0)->sun_path)];
	};
};

struct ipp_sockdb {
	struct sockent *ents;	/* sorted by ino once finished */
	size_t n, cap;
};

struct ipp_sockdb *ipp_sockdb__new(void)
{
	return ipp_new(sizeof(struct ipp_sockdb));
}

void ipp_sockdb__delete(struct ipp_sockdb *db)
{
	if (db)
		ipp_free_all(db->ents, db);
}

size_t ipp_sockdb__count(const struct ipp_sockdb *db)
{
	return db->n;
}

/* Append a copy of @e. @return 0, -ENOMEM. */
static int db_add(struct ipp_sockdb *db, const struct sockent *e)
{
	if (ipp_grow((void **)&db->ents, &db->cap, db->n + 1, sizeof(*db->ents)) < 0)
		return -ENOMEM;
	db->ents[db->n++] = *e;
	return 0;
}

/* UNIX_DIAG_NAME bytes → text: a path up to its NUL, or "@" + an abstract name. */
static void unix_name(char *dst, size_t size, const unsigned char *src, size_t len)
{
	size_t o = 0;

	if (len && src[0] == '\0') {
		for (size_t i = 0; i < len && o + 1 < size; i++)
			dst[o++] = src[i] ? (char)src[i] : '@';
	} else {
		for (size_t i = 0; i < len && src[i] && o + 1 < size; i++)
			dst[o++] = (char)src[i];
	}
	dst[o] = '\0';
}

/* A sock_diag answer @h whose message has @size bytes: 1, 0 (another type: pass), -EPROTO. */
static int diag_answer(const struct nlmsghdr *h, size_t size)
{
	if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY)
		return 0;
	return h->nlmsg_len < NLMSG_LENGTH(size) ? -EPROTO : 1;
}

/* The buffer sizes from a socket's SK_MEMINFO attribute (@p, @alen bytes), if it has them. */
static void set_meminfo(struct sockent *e, const void *p, size_t alen)
{
	uint32_t mem[SK_MEMINFO_VARS];

	if (alen < (SK_MEMINFO_SNDBUF + 1) * sizeof(uint32_t))
		return;
	memcpy(mem, p, (SK_MEMINFO_SNDBUF + 1) * sizeof(uint32_t));
	e->rcvbuf = mem[SK_MEMINFO_RCVBUF];
	e->sndbuf = mem[SK_MEMINFO_SNDBUF];
}

/* Each attribute of answer @h, after its message of @size bytes, to @take with @e. */
static void take_attrs(const struct nlmsghdr *h, size_t size, struct sockent *e,
		       void (*take)(struct sockent *e, int type, const void *p, size_t alen))
{
	const struct nlattr *a;
	size_t off = NLMSG_ALIGN(size), alen;

	while ((a = ipp_nl__attr_next(h, &off, &alen)))
		take(e, a->nla_type & NLA_TYPE_MASK, ipp_nl__attr_data(a), alen);
}

/* A unix socket's attribute @type, of @alen bytes at @p. */
static void unix_attr(struct sockent *e, int type, const void *p, size_t alen)
{
	struct unix_diag_rqlen rq;

	switch (type) {
	case UNIX_DIAG_NAME:
		unix_name(e->name, sizeof(e->name), p, alen);
		break;
	case UNIX_DIAG_PEER:
		if (alen >= sizeof(e->peer))
			memcpy(&e->peer, p, sizeof(e->peer));
		break;
	case UNIX_DIAG_RQLEN:
		if (alen >= sizeof(rq)) {
			memcpy(&rq, p, sizeof(rq));
			e->rqueue = rq.udiag_rqueue;
			e->wqueue = rq.udiag_wqueue;
		}
		break;
	case UNIX_DIAG_MEMINFO:
		set_meminfo(e, p, alen);
		break;
	}
}

static int add_unix(void *ctx, const struct nlmsghdr *h)
{
	const struct unix_diag_msg *m = NLMSG_DATA(h);
	int ok = diag_answer(h, sizeof(*m));

	if (ok <= 0)
		return ok;

	struct sockent e = {
		.ino = m->udiag_ino, .family = AF_UNIX, .type = m->udiag_type,
		.state = m->udiag_state, .name = "",	/* every byte: the whole is copied out */
	};
	take_attrs(h, sizeof(*m), &e, unix_attr);
	return db_add(ctx, &e);
}

struct inet_ctx {
	struct ipp_sockdb *db;
	uint8_t protocol;
};

static void set_inaddr(union inaddr *a, int family, const __be32 *addr, __be16 port, uint32_t ifindex)
{
	memset(a, 0, sizeof(*a));
	if (family == AF_INET) {
		a->in.sin_family = AF_INET;
		a->in.sin_port = port;
		memcpy(&a->in.sin_addr, addr, 4);
	} else {
		a->in6.sin6_family = AF_INET6;
		a->in6.sin6_port = port;
		memcpy(&a->in6.sin6_addr, addr, 16);
		/* getsockname() gives a scope only to link-local addresses. */
		if (IN6_IS_ADDR_LINKLOCAL(&a->in6.sin6_addr))
			a->in6.sin6_scope_id = ifindex;
	}
}

/* An inet socket's attribute @type: only its buffer sizes are wanted. */
static void inet_attr(struct sockent *e, int type, const void *p, size_t alen)
{
	if (type == INET_DIAG_SKMEMINFO)
		set_meminfo(e, p, alen);
}

static int add_inet(void *ctx, const struct nlmsghdr *h)
{
	const struct inet_ctx *ic = ctx;
	const struct inet_diag_msg *m = NLMSG_DATA(h);
	int ok = diag_answer(h, sizeof(*m));

	if (ok <= 0)
		return ok;
	/* TIME_WAIT and request sockets have no inode and no fd. */
	if (!m->idiag_inode || (m->idiag_family != AF_INET && m->idiag_family != AF_INET6))
		return 0;

	struct sockent e = {
		.ino = m->idiag_inode, .family = m->idiag_family, .protocol = ic->protocol,
		.type = ic->protocol == IPPROTO_TCP ? SOCK_STREAM : SOCK_DGRAM,
		.state = m->idiag_state, .rqueue = m->idiag_rqueue, .wqueue = m->idiag_wqueue,
	};
	set_inaddr(&e.in.local, e.family, m->id.idiag_src, m->id.idiag_sport, m->id.idiag_if);
	set_inaddr(&e.in.remote, e.family, m->id.idiag_dst, m->id.idiag_dport, m->id.idiag_if);
	take_attrs(h, sizeof(*m), &e, inet_attr);
	return db_add(ic->db, &e);
}

enum {
	DUMP_UNIX = 1u << 0,
	DUMP_TCP4 = 1u << 1,
	DUMP_TCP6 = 1u << 2,
	DUMP_UDP4 = 1u << 3,
	DUMP_UDP6 = 1u << 4,
	DUMP_ALL = 0x1f,
};

#define UNIX_SHOW (UDIAG_SHOW_NAME | UDIAG_SHOW_PEER | UDIAG_SHOW_RQLEN | UDIAG_SHOW_MEMINFO)

/* A sock_diag request: the netlink header, then a unix or an inet one. */
struct diag_req {
	struct nlmsghdr h;
	union {
		struct unix_diag_req un;
		struct inet_diag_req_v2 in;
	};
};

/* Send @req, of @size bytes after its header, and hand each answer to @add. */
static int diag_query(struct nl *nl, struct diag_req *req, size_t size, bool dump,
		      ipp_nl_cb_t add, void *ctx)
{
	req->h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	return ipp_nl__query(nl, req, NLMSG_LENGTH(size), dump, add, ctx);
}

/* The unix socket of inode @ino only (0: dump them all). */
static int query_unix(struct nl *nl, struct ipp_sockdb *db, uint32_t ino)
{
	struct diag_req req = { .un = {
		.sdiag_family = AF_UNIX,
		.udiag_states = ~0u,
		.udiag_ino = ino,
		.udiag_show = UNIX_SHOW,
		.udiag_cookie = { INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE },
	} };

	return diag_query(nl, &req, sizeof(req.un), ino == 0, add_unix, db);
}

static int dump_inet(struct nl *nl, struct ipp_sockdb *db, int family, uint8_t protocol)
{
	struct diag_req req = { .in = {
		.sdiag_family = (uint8_t)family,
		.sdiag_protocol = protocol,
		.idiag_ext = 1u << (INET_DIAG_SKMEMINFO - 1),
		/* Every state but those of sockets without an fd. */
		.idiag_states = ~((1u << TCP_TIME_WAIT) | (1u << 12 /* TCP_NEW_SYN_RECV */)),
	} };
	struct inet_ctx ic = { .db = db, .protocol = protocol };

	return diag_query(nl, &req, sizeof(req.in), true, add_inet, &ic);
}

/* Errors that mean "this kernel cannot dump that family": leave it out. */
static bool dump_unsupported(int err)
{
	return err == -ENOENT || err == -EOPNOTSUPP || err == -EPROTONOSUPPORT ||
	       err == -EAFNOSUPPORT || err == -EINVAL;
}

static int dump(struct nl *nl, struct ipp_sockdb *db, unsigned int mask)
{
	static const struct {
		unsigned int bit;
		int family;
		uint8_t protocol;
	} inet[] = {
		{ DUMP_TCP4, AF_INET, IPPROTO_TCP },
		{ DUMP_TCP6, AF_INET6, IPPROTO_TCP },
		{ DUMP_UDP4, AF_INET, IPPROTO_UDP },
		{ DUMP_UDP6, AF_INET6, IPPROTO_UDP },
	};
	int err;

	if (mask & DUMP_UNIX) {
		err = query_unix(nl, db, 0);
		if (err < 0 && !dump_unsupported(err))
			return err;
	}
	for (size_t i = 0; i < sizeof(inet) / sizeof(inet[0]); i++) {
		if (!(mask & inet[i].bit))
			continue;
		err = dump_inet(nl, db, inet[i].family, inet[i].protocol);
		if (err < 0 && !dump_unsupported(err))
			return err;
	}
	return 0;
}

static int cmp_ino(const void *a, const void *b)
{
	uint32_t x = ((const struct sockent *)a)->ino, y = ((const struct sockent *)b)->ino;
	return x < y ? -1 : x > y;
}

static const struct sockent *db_find(const struct ipp_sockdb *db, uint64_t ino)
{
	if (ino == 0 || ino > UINT32_MAX || !db->n)
		return NULL;
	struct sockent key = { .ino = (uint32_t)ino };
	return bsearch(&key, db->ents, db->n, sizeof(key), cmp_ino);
}

/* An inet endpoint as 16 address bytes (IPv4 as ::ffff:a.b.c.d) and a port. */
struct endpoint {
	uint8_t addr[16];
	uint8_t port[2];
};

static void endpoint_of(struct endpoint *ep, const union inaddr *a)
{
	if (a->sa.sa_family == AF_INET) {
		memset(ep->addr, 0, 10);
		ep->addr[10] = ep->addr[11] = 0xff;
		memcpy(ep->addr + 12, &a->in.sin_addr, 4);
		memcpy(ep->port, &a->in.sin_port, 2);
	} else {
		memcpy(ep->addr, &a->in6.sin6_addr, 16);
		memcpy(ep->port, &a->in6.sin6_port, 2);
	}
}

static bool endpoint_any_port(const struct endpoint *ep)
{
	return ep->port[0] == 0 && ep->port[1] == 0;
}

static bool addr_is_v4(const uint8_t a[16])
{
	static const uint8_t v4map[12] = { [10] = 0xff, [11] = 0xff };
	return !memcmp(a, v4map, 12);
}

/* @a is the wildcard address of a socket that would receive traffic to @to. */
static bool addr_is_any_for(const uint8_t a[16], const uint8_t to[16])
{
	static const uint8_t zero[16], v4any[16] = { [10] = 0xff, [11] = 0xff };
	return !memcmp(a, zero, 16) || (!memcmp(a, v4any, 16) && addr_is_v4(to));
}

static bool addr_is_loopback(const uint8_t a[16])
{
	static const uint8_t v6lo[16] = { [15] = 1 };
	return !memcmp(a, v6lo, 16) || (addr_is_v4(a) && a[12] == 127);
}

/* Sort key of a connection: protocol, local endpoint, remote endpoint. */
struct conn_key {
	uint8_t b[1 + 2 * sizeof(struct endpoint)];
	uint32_t idx;
};

static void conn_key(struct conn_key *k, uint8_t protocol, const struct endpoint *a,
		     const struct endpoint *b)
{
	k->b[0] = protocol;
	memcpy(k->b + 1, a, sizeof(*a));
	memcpy(k->b + 1 + sizeof(*a), b, sizeof(*b));
}

static int cmp_conn(const void *a, const void *b)
{
	return memcmp(((const struct conn_key *)a)->b, ((const struct conn_key *)b)->b,
		      sizeof(((const struct conn_key *)a)->b));
}

/*
 * The UDP socket a datagram to @to would be delivered to: the one unconnected
 * socket bound to exactly that address and port, or else the one bound to the
 * wildcard address on that port. 0 when none, or several (SO_REUSEPORT).
 */
static uint32_t udp_receiver(const struct ipp_sockdb *db, const struct endpoint *to, size_t self)
{
	uint32_t exact = 0, wild = 0;
	unsigned int n_exact = 0, n_wild = 0;

	for (size_t i = 0; i < db->n; i++) {
		const struct sockent *e = &db->ents[i];
		struct endpoint l, r;

		if (i == self || e->protocol != IPPROTO_UDP)
			continue;
		endpoint_of(&r, &e->in.remote);
		if (!endpoint_any_port(&r))
			continue;
		endpoint_of(&l, &e->in.local);
		if (memcmp(l.port, to->port, 2))
			continue;
		if (!memcmp(l.addr, to->addr, 16)) {
			exact = e->ino;
			n_exact++;
		} else if (addr_is_any_for(l.addr, to->addr)) {
			wild = e->ino;
			n_wild++;
		}
	}
	if (n_exact)
		return n_exact == 1 ? exact : 0;
	return n_wild == 1 ? wild : 0;
}

/*
 * Give each connected inet socket the inode of its other end when that end is
 * a socket of this host: the socket whose endpoints are this one's, swapped.
 */
static int link_inet_peers(struct ipp_sockdb *db)
{
	struct conn_key *keys;
	size_t nk = 0;

	keys = malloc((db->n ? db->n : 1) * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (size_t i = 0; i < db->n; i++) {
		const struct sockent *e = &db->ents[i];
		struct endpoint l, r;

		if (e->family != AF_INET && e->family != AF_INET6)
			continue;
		endpoint_of(&l, &e->in.local);
		endpoint_of(&r, &e->in.remote);
		conn_key(&keys[nk], e->protocol, &l, &r);
		keys[nk++].idx = (uint32_t)i;
	}
	qsort(keys, nk, sizeof(*keys), cmp_conn);

	for (size_t i = 0; i < db->n; i++) {
		struct sockent *e = &db->ents[i];
		struct endpoint l, r;
		struct conn_key k;

		if (e->family != AF_INET && e->family != AF_INET6)
			continue;
		endpoint_of(&l, &e->in.local);
		endpoint_of(&r, &e->in.remote);
		if (endpoint_any_port(&r))
			continue;
		conn_key(&k, e->protocol, &r, &l);
		const struct conn_key *m = bsearch(&k, keys, nk, sizeof(k), cmp_conn);
		if (m && m->idx != i)
			e->peer = db->ents[m->idx].ino;
		else if (e->protocol == IPPROTO_UDP)
			e->peer = udp_receiver(db, &r, i);
	}
	free(keys);
	return 0;
}

/* Sort by inode and link inet peers: the db can then answer lookups. */
static int db_finish(struct ipp_sockdb *db)
{
	if (!db->n)
		return 0;	/* and ents may be NULL, which qsort must not get */
	qsort(db->ents, db->n, sizeof(*db->ents), cmp_ino);
	return link_inet_peers(db);
}

int ipp_sockdb__refresh(struct ipp_sockdb *db)
{
	return ipp_sockdb__refresh_in(db, -1);
}

int ipp_sockdb__refresh_in(struct ipp_sockdb *db, int nsfd)
{
	struct ipp_sockdb fresh = { 0 };
	struct nl nl;
	int err;

	err = nsfd < 0 ? ipp_nl__open(&nl) : ipp_nl__open_in(&nl, nsfd);
	if (err)
		return err;
	err = dump(&nl, &fresh, DUMP_ALL);
	ipp_nl__close(&nl);
	if (!err)
		err = db_finish(&fresh);
	if (err) {
		free(fresh.ents);
		return err;
	}
	free(db->ents);
	*db = fresh;
	return db->n > INT_MAX ? INT_MAX : (int)db->n;
}

/* Only the socket members of @out. */
static void fill_socket(const struct ipp_sockdb *db, const struct sockent *e, struct ipp_fdid *out)
{
	out->family = e->family;
	out->type = e->type;
	out->protocol = e->protocol;
	out->state = e->state;
	out->diag = true;
	out->peer_ino = e->peer;
	out->rcvbuf = e->rcvbuf;
	out->sndbuf = e->sndbuf;
	out->rqueue = e->rqueue;
	out->wqueue = e->wqueue;
	out->loopback = false;
	memset(&out->local, 0, sizeof(out->local));
	memset(&out->remote, 0, sizeof(out->remote));

	if (e->family == AF_UNIX) {
		out->kind = IPCPERF_FD_UNIX;
		out->local.un.sun_family = AF_UNIX;
		memcpy(out->local.un.sun_path, e->name, sizeof(e->name));
		const struct sockent *p = e->peer ? db_find(db, e->peer) : NULL;
		if (p && p->family == AF_UNIX) {
			out->remote.un.sun_family = AF_UNIX;
			memcpy(out->remote.un.sun_path, p->name, sizeof(p->name));
		}
		return;
	}

	struct endpoint l, r;
	out->kind = e->protocol == IPPROTO_TCP ? IPCPERF_FD_TCP : IPCPERF_FD_UDP;
	memcpy(&out->local, &e->in.local, sizeof(e->in.local));
	memcpy(&out->remote, &e->in.remote, sizeof(e->in.remote));
	endpoint_of(&l, &e->in.local);
	endpoint_of(&r, &e->in.remote);
	out->loopback = addr_is_loopback(l.addr) || addr_is_loopback(r.addr) || e->peer;
}

int ipp_sockdb__lookup(const struct ipp_sockdb *db, uint64_t ino, struct ipp_fdid *out)
{
	const struct sockent *e = db_find(db, ino);

	if (!e)
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	out->ino = ino;
	out->flags = -1;
	snprintf(out->object, sizeof(out->object), "socket:[%llu]", (unsigned long long)ino);
	fill_socket(db, e, out);
	return 0;
}

/* The unix socket of inode @ino into @tmp, and its peer (for its name). */
static int ask_unix(struct nl *nl, struct ipp_sockdb *tmp, uint32_t ino)
{
	int err = query_unix(nl, tmp, ino);

	if (!err && tmp->n == 1 && tmp->ents[0].peer)
		(void)query_unix(nl, tmp, tmp->ents[0].peer);
	return err;
}

/* What the answers @tmp (after @err) say of socket @ino, into @out; @tmp freed. */
static int tmp_answer(struct ipp_sockdb *tmp, uint64_t ino, int err, struct ipp_fdid *out)
{
	const struct sockent *e;

	if (!err)
		err = db_finish(tmp);
	if (!err) {
		e = db_find(tmp, ino);
		if (e)
			fill_socket(tmp, e, out);
		else
			err = -ENOENT;
	}
	free(tmp->ents);
	return err;
}

int ipp_sockdiag_ask(uint32_t ino, enum ipcperf_fd_kind kind, struct ipp_fdid *out)
{
	struct ipp_sockdb tmp = { 0 };
	struct nl nl;
	int err;

	if (kind != IPCPERF_FD_UNIX && kind != IPCPERF_FD_TCP && kind != IPCPERF_FD_UDP)
		return -ENOENT;
	err = ipp_nl__open(&nl);
	if (err)
		return err;
	if (kind == IPCPERF_FD_UNIX)
		err = ask_unix(&nl, &tmp, ino);
	else if (kind == IPCPERF_FD_TCP)
		/* Both families: the other end of a connection may be in either. */
		err = dump(&nl, &tmp, DUMP_TCP4 | DUMP_TCP6);
	else
		err = dump(&nl, &tmp, DUMP_UDP4 | DUMP_UDP6);
	ipp_nl__close(&nl);
	return tmp_answer(&tmp, ino, err, out);
}

/* ------------------------------------------------------------------ a socket of its own */

/* Unix socket @sfd (inode @ino) asked of the sock_diag of its own network namespace. */
static int unix_of_fd(int sfd, uint64_t ino, struct ipp_fdid *out)
{
	struct ipp_sockdb tmp = { 0 };
	struct nl nl;
	int nsfd = ioctl(sfd, SIOCGSKNS), err;

	if (nsfd < 0)
		return -errno;
	if (ino > UINT32_MAX)
		err = -ENOENT;
	else
		err = ipp_nl__open_in(&nl, nsfd);
	close(nsfd);
	if (err)
		return err;
	err = ask_unix(&nl, &tmp, (uint32_t)ino);
	ipp_nl__close(&nl);
	return tmp_answer(&tmp, ino, err, out);
}

static bool sockaddr_loopback(const union ipp_sockaddr *a)
{
	union inaddr ia;
	struct endpoint ep;

	memcpy(&ia, a, sizeof(ia));
	endpoint_of(&ep, &ia);
	return a->sa.sa_family != AF_UNSPEC && addr_is_loopback(ep.addr);
}

/* The sizes and queues of @sfd, its TCP state: as sock_diag gives them. */
static void inet_state_of_fd(int sfd, int protocol, bool connected, struct ipp_fdid *out)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	int v;

	out->state = connected ? TCP_ESTABLISHED : TCP_CLOSE;
	if (protocol == IPPROTO_TCP && getsockopt(sfd, IPPROTO_TCP, TCP_INFO, &ti, &len) == 0)
		out->state = ti.tcpi_state;
	len = sizeof(v);
	if (getsockopt(sfd, SOL_SOCKET, SO_SNDBUF, &v, &len) == 0 && v > 0)
		out->sndbuf = (uint32_t)v;
	len = sizeof(v);
	if (getsockopt(sfd, SOL_SOCKET, SO_RCVBUF, &v, &len) == 0 && v > 0)
		out->rcvbuf = (uint32_t)v;
	if (ioctl(sfd, SIOCINQ, &v) == 0 && v > 0)
		out->rqueue = (uint32_t)v;
	if (ioctl(sfd, SIOCOUTQ, &v) == 0 && v > 0)
		out->wqueue = (uint32_t)v;
}

/* TCP or UDP socket @sfd, by its own addresses (getsockname, getpeername). */
static int inet_of_fd(int sfd, int family, int type, int protocol, struct ipp_fdid *out)
{
	socklen_t len = sizeof(out->local);
	bool connected;

	memset(&out->local, 0, sizeof(out->local));
	memset(&out->remote, 0, sizeof(out->remote));
	if (getsockname(sfd, &out->local.sa, &len) < 0)
		return -errno;
	len = sizeof(out->remote);
	connected = getpeername(sfd, &out->remote.sa, &len) == 0;
	if (!connected) {
		/* Not connected: the wildcard, as sock_diag says it. */
		memset(&out->remote, 0, sizeof(out->remote));
		out->remote.sa.sa_family = (sa_family_t)family;
	}
	out->family = family;
	out->type = type;
	out->protocol = protocol;
	out->kind = protocol == IPPROTO_TCP ? IPCPERF_FD_TCP : IPCPERF_FD_UDP;
	out->peer_ino = 0;
	out->rcvbuf = out->sndbuf = out->rqueue = out->wqueue = 0;
	inet_state_of_fd(sfd, protocol, connected, out);
	out->loopback = sockaddr_loopback(&out->local) || sockaddr_loopback(&out->remote);
	out->diag = true;
	return 0;
}

int ipp_sock_describe_fd(int sfd, uint64_t ino, struct ipp_fdid *out)
{
	int family = 0, type = 0, protocol = 0;
	socklen_t len = sizeof(int);

	if (getsockopt(sfd, SOL_SOCKET, SO_DOMAIN, &family, &len) < 0 ||
	    (len = sizeof(int), getsockopt(sfd, SOL_SOCKET, SO_TYPE, &type, &len) < 0) ||
	    (len = sizeof(int), getsockopt(sfd, SOL_SOCKET, SO_PROTOCOL, &protocol, &len) < 0))
		return -errno;
	if (family == AF_UNIX)
		return unix_of_fd(sfd, ino, out);
	if ((family == AF_INET || family == AF_INET6) &&
	    (protocol == IPPROTO_TCP || protocol == IPPROTO_UDP))
		return inet_of_fd(sfd, family, type, protocol, out);
	return -ENOENT;
}

/* ------------------------------------------------------------------ by addresses */

struct addrino {
	char detail[IPP_DETAIL_MAX];
	uint64_t ino;
};

static int cmp_addrino(const void *a, const void *b)
{
	return strcmp(((const struct addrino *)a)->detail, ((const struct addrino *)b)->detail);
}

/* "L -> R" of every inet socket of @kind in @db, sorted; NULL with *@n 0 when none or no memory. */
static struct addrino *addr_index(const struct ipp_sockdb *db, enum ipcperf_fd_kind kind,
				  size_t *n)
{
	struct addrino *v = malloc((db->n ? db->n : 1) * sizeof(*v));

	*n = 0;
	for (size_t i = 0; v && i < db->n; i++) {
		struct ipp_fdid f;
		char l[IPP_ADDR_MAX] = "", r[IPP_ADDR_MAX] = "";

		if (db->ents[i].family == AF_UNIX || ipp_sockdb__lookup(db, db->ents[i].ino, &f) ||
		    f.kind != kind)
			continue;
		ipp_sockaddr_str(&f.local, l, sizeof(l));
		ipp_sockaddr_str(&f.remote, r, sizeof(r));
		snprintf(v[*n].detail, sizeof(v[*n].detail), "%s -> %s", l, r);
		v[(*n)++].ino = f.ino;
	}
	if (*n > 1)
		qsort(v, *n, sizeof(*v), cmp_addrino);
	return v;
}

int ipp_sockdb__find_addrs(const struct ipp_sockdb *db, enum ipcperf_fd_kind kind,
			   const char *const *details, size_t n, uint64_t *inos)
{
	size_t nr;
	struct addrino *v = addr_index(db, kind, &nr);

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct addrino key;
		const struct addrino *e;

		snprintf(key.detail, sizeof(key.detail), "%s", details[i]);
		e = nr ? bsearch(&key, v, nr, sizeof(*v), cmp_addrino) : NULL;
		inos[i] = e ? e->ino : 0;
	}
	free(v);
	return 0;
}
