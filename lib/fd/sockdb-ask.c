/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A TCP connection's socket asked of the kernel by its addresses
 * (ipp_sockdb__ask_addrs(), procfd.h): looked up alone in the kernel's
 * connection hash, a batch of requests a send (nl.c), not found in a dump
 * of every socket as sockdb.c's snapshot is; what cannot be asked alone
 * falls back to one such dump.
 */
#include "config.h"
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>

#include "internal.h"
#include "fd/procfd.h"
#include "fd/nl.h"

/*
 * "ADDR:PORT" (the @len bytes at @s) as ipp_sockaddr_str() writes an IPv4 or
 * IPv6 address, into @a. False when it is not one, or when it is link-local
 * (the lookup would need the interface, which the text does not give).
 */
static bool parse_endpoint(const char *s, size_t len, union ipp_sockaddr *a)
{
	char buf[IPP_ADDR_MAX], again[IPP_ADDR_MAX];
	char *colon, *end;
	unsigned long port;

	if (len < 3 || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	colon = strrchr(buf, ':');
	if (!colon || colon == buf)
		return false;
	*colon = '\0';
	port = strtoul(colon + 1, &end, 10);
	if (*end || end == colon + 1 || port > 65535)
		return false;
	memset(a, 0, sizeof(*a));
	if (buf[0] == '[' && colon[-1] == ']') {
		colon[-1] = '\0';
		a->in6.sin6_family = AF_INET6;
		a->in6.sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, buf + 1, &a->in6.sin6_addr) != 1 ||
		    IN6_IS_ADDR_LINKLOCAL(&a->in6.sin6_addr))
			return false;
	} else {
		a->in.sin_family = AF_INET;
		a->in.sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, buf, &a->in.sin_addr) != 1)
			return false;
	}
	/* Only a text that reads back the same: what the dump's match compares. */
	ipp_sockaddr_str(a, again, sizeof(again));
	return strlen(again) == len && !memcmp(again, s, len);
}

static uint16_t port_of(const union ipp_sockaddr *a)
{
	return ntohs(a->sa.sa_family == AF_INET ? a->in.sin_port : a->in6.sin6_port);
}

/* @detail "LOCAL -> REMOTE" into @l and @r, both of one family: false if it cannot be asked alone. */
static bool parse_conn(const char *detail, union ipp_sockaddr *l, union ipp_sockaddr *r)
{
	const char *arrow = strstr(detail, " -> ");

	return arrow && parse_endpoint(detail, (size_t)(arrow - detail), l) &&
	       parse_endpoint(arrow + 4, strlen(arrow + 4), r) && l->sa.sa_family == r->sa.sa_family;
}

/* The id sock_diag looks a connection up by: local (src) and remote (dst) as in our dumps. */
static void sockid_of(struct inet_diag_sockid *id, const union ipp_sockaddr *l,
		      const union ipp_sockaddr *r)
{
	memset(id, 0, sizeof(*id));
	if (l->sa.sa_family == AF_INET) {
		id->idiag_sport = l->in.sin_port;
		id->idiag_dport = r->in.sin_port;
		memcpy(id->idiag_src, &l->in.sin_addr, 4);
		memcpy(id->idiag_dst, &r->in.sin_addr, 4);
	} else {
		id->idiag_sport = l->in6.sin6_port;
		id->idiag_dport = r->in6.sin6_port;
		memcpy(id->idiag_src, &l->in6.sin6_addr, 16);
		memcpy(id->idiag_dst, &r->in6.sin6_addr, 16);
	}
	id->idiag_cookie[0] = id->idiag_cookie[1] = INET_DIAG_NOCOOKIE;
}

/*
 * The TCP sockets of the details asked alone: the kernel's connection hash
 * looked up for each (not a walk of every socket, as a dump is), a batch
 * of requests sent at once. The kernel answers with the connection or,
 * failing that, a listener of the port; sockets without an fd (TIME_WAIT,
 * requests) have no inode: only an answer whose addresses read the detail
 * again counts, as in a dump (find_addrs).
 */
enum { ASK_BATCH = 32 };

struct tcp_req {
	struct nlmsghdr h;
	struct inet_diag_req_v2 r;
};

struct tcp_batch {
	struct tcp_req req[ASK_BATCH];
	size_t idx[ASK_BATCH];	/* the detail each request asks for */
	size_t n;
	uint64_t *inos;
};

static void batch_add(struct tcp_batch *b, size_t i, const union ipp_sockaddr *l,
		      const union ipp_sockaddr *r)
{
	struct tcp_req *q = &b->req[b->n];

	memset(q, 0, sizeof(*q));
	q->h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	q->r.sdiag_family = (uint8_t)l->sa.sa_family;
	q->r.sdiag_protocol = IPPROTO_TCP;
	q->r.idiag_states = ~0u;
	sockid_of(&q->r.id, l, r);
	b->idx[b->n++] = i;
}

/*
 * The inode of answer @h to request @q when it is a socket with an fd of
 * just the addresses asked, else 0. The same as its addresses reading the
 * detail again (a dump's match): the request's were parsed from the detail
 * only when they read it back (parse_endpoint()), and have no scope.
 */
static uint64_t answer_ino(const struct nlmsghdr *h, const struct inet_diag_req_v2 *q)
{
	const struct inet_diag_msg *m = NLMSG_DATA(h);
	size_t alen = q->sdiag_family == AF_INET ? 4 : 16;

	if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY || h->nlmsg_len < NLMSG_LENGTH(sizeof(*m)) ||
	    !m->idiag_inode || m->idiag_family != q->sdiag_family)
		return 0;
	if (m->id.idiag_sport != q->id.idiag_sport || m->id.idiag_dport != q->id.idiag_dport ||
	    memcmp(m->id.idiag_src, q->id.idiag_src, alen) ||
	    memcmp(m->id.idiag_dst, q->id.idiag_dst, alen))
		return 0;
	return m->idiag_inode;
}

static int batch_answer(void *ctx, size_t i, const struct nlmsghdr *h, int err)
{
	struct tcp_batch *b = ctx;
	size_t k = b->idx[i];

	b->inos[k] = h ? answer_ino(h, &b->req[i].r) : 0;
	return h || err == -ENOENT ? 0 : err;
}

static int batch_flush(struct nl *nl, struct tcp_batch *b)
{
	int err = ipp_nl__query_each(nl, b->req, sizeof(b->req[0]), b->n, batch_answer, b);

	b->n = 0;
	return err;
}

/* The details of @details not asked alone (@inos[i] still ~0), found in one dump. */
static int dump_rest(enum ipcperf_fd_kind kind, const char *const *details, size_t n,
		     uint64_t *inos)
{
	const char **rest = malloc((n ? n : 1) * sizeof(*rest));
	uint64_t *got = malloc((n ? n : 1) * sizeof(*got));
	struct ipp_sockdb *db = NULL;
	size_t m = 0, k = 0;
	int err = rest && got ? 0 : -ENOMEM;

	for (size_t i = 0; !err && i < n; i++)
		if (inos[i] == UINT64_MAX)
			rest[m++] = details[i];
	if (m && !err && !(db = ipp_sockdb__new()))
		err = -ENOMEM;
	if (m && !err)
		err = ipp_sockdb__refresh(db) < 0 ? -EIO : 0;
	if (m && !err)
		err = ipp_sockdb__find_addrs(db, kind, rest, m, got);
	for (size_t i = 0; m && !err && i < n; i++)
		if (inos[i] == UINT64_MAX)
			inos[i] = got[k++];
	ipp_sockdb__delete(db);
	free(rest);
	free(got);
	return err;
}

int ipp_sockdb__ask_addrs(enum ipcperf_fd_kind kind, const char *const *details, size_t n,
			  uint64_t *inos)
{
	struct tcp_batch *b = kind == IPCPERF_FD_TCP && n ? malloc(sizeof(*b)) : NULL;
	struct nl nl;
	int err = b ? ipp_nl__open(&nl) : -ENOENT;
	bool open = !err;

	if (b)
		b->n = 0, b->inos = inos;
	for (size_t i = 0; i < n && (!open || !err); i++) {
		union ipp_sockaddr l, r;
		bool alone = open && parse_conn(details[i], &l, &r);

		inos[i] = UINT64_MAX;
		/*
		 * Every socket sock_diag lists is bound to a port: none has local
		 * port 0. A wildcard remote (port 0) is a listener's or a bound
		 * socket's, which the hash lookup does not find: the dump does.
		 */
		if (alone && !port_of(&l))
			inos[i] = 0;
		else if (alone && port_of(&r))
			batch_add(b, i, &l, &r);
		if (open && b->n && (b->n == ASK_BATCH || i + 1 == n))
			err = batch_flush(&nl, b);
	}
	if (open)
		ipp_nl__close(&nl);
	free(b);
	if (open && err)
		return err == -ENOMEM ? err : -EIO;
	return dump_rest(kind, details, n, inos);
}
