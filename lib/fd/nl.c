/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The NETLINK_SOCK_DIAG socket sockdb.c asks: opened here or in another
 * network namespace, a request and its replies, a reply's attributes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>

#include "fd/nl.h"

int ipp_nl__open(struct nl *nl)
{
	nl->seq = 0;
	nl->buf = malloc(NL_BUFSZ);
	if (!nl->buf)
		return -ENOMEM;
	nl->fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (nl->fd < 0) {
		int err = -errno;
		free(nl->buf);
		return err;
	}
	return 0;
}

void ipp_nl__close(struct nl *nl)
{
	close(nl->fd);
	free(nl->buf);
}

/*
 * Send @req (which starts with a struct nlmsghdr, @len bytes in all) and hand
 * every reply to @cb until the dump ends (@dump) or the one reply came.
 * @return 0, the first non-zero return of @cb, or the kernel's -errno.
 */
int ipp_nl__query(struct nl *nl, void *req, size_t len, bool dump, ipp_nl_cb_t cb, void *ctx)
{
	struct nlmsghdr *rh = req;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	uint32_t seq = ++nl->seq;

	rh->nlmsg_len = (uint32_t)len;
	rh->nlmsg_flags = NLM_F_REQUEST | (dump ? NLM_F_DUMP : 0);
	rh->nlmsg_seq = seq;
	for (;;) {
		if (sendto(nl->fd, req, len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) >= 0)
			break;
		if (errno != EINTR)
			return -errno;
	}

	for (;;) {
		struct iovec iov = { .iov_base = nl->buf, .iov_len = NL_BUFSZ };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n = recvmsg(nl->fd, &msg, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (msg.msg_flags & MSG_TRUNC)
			return -EMSGSIZE;
		if (n == 0)
			return -EPROTO;

		size_t off = 0;
		while ((size_t)n - off >= sizeof(struct nlmsghdr)) {
			const struct nlmsghdr *h = (const void *)(nl->buf + off);

			if (h->nlmsg_len < sizeof(*h) || h->nlmsg_len > (size_t)n - off)
				return -EPROTO;
			off += NLMSG_ALIGN(h->nlmsg_len);
			if (h->nlmsg_seq != seq)
				continue;	/* left over from an earlier query */
			if (h->nlmsg_type == NLMSG_DONE) {
				int err = 0;
				if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int)))
					memcpy(&err, NLMSG_DATA(h), sizeof(err));
				return err < 0 ? err : 0;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr e;
				if (h->nlmsg_len < NLMSG_LENGTH(sizeof(e)))
					return -EPROTO;
				memcpy(&e, NLMSG_DATA(h), sizeof(e));
				return e.error;
			}
			int r = cb(ctx, h);
			if (r)
				return r;
			if (!dump)
				return 0;
		}
	}
}

/* Send @len bytes of requests to the kernel. @return 0 or -errno. */
static int send_all(struct nl *nl, const void *req, size_t len)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };

	while (sendto(nl->fd, req, len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

/* The answers of one datagram to requests first.. first + count - 1; *@got counts them. */
static int each_answer(const char *buf, size_t n, uint32_t first, size_t count, size_t *got,
		       ipp_nl_each_t cb, void *ctx)
{
	size_t off = 0;

	while (n - off >= sizeof(struct nlmsghdr)) {
		const struct nlmsghdr *h = (const void *)(buf + off);
		size_t i = h->nlmsg_seq - first;
		struct nlmsgerr e;
		int r;

		if (h->nlmsg_len < sizeof(*h) || h->nlmsg_len > n - off)
			return -EPROTO;
		off += NLMSG_ALIGN(h->nlmsg_len);
		if (h->nlmsg_seq - first >= count || h->nlmsg_type == NLMSG_DONE)
			continue;	/* left over from an earlier query */
		if (h->nlmsg_type != NLMSG_ERROR) {
			r = cb(ctx, i, h, 0);
		} else {
			if (h->nlmsg_len < NLMSG_LENGTH(sizeof(e)))
				return -EPROTO;
			memcpy(&e, NLMSG_DATA(h), sizeof(e));
			r = cb(ctx, i, NULL, e.error);
		}
		++*got;
		if (r)
			return r;
	}
	return 0;
}

int ipp_nl__query_each(struct nl *nl, void *reqs, size_t len, size_t count, ipp_nl_each_t cb,
		       void *ctx)
{
	uint32_t first = nl->seq + 1;
	size_t got = 0;
	int err;

	for (size_t i = 0; i < count; i++) {
		struct nlmsghdr *rh = (void *)((char *)reqs + i * len);

		rh->nlmsg_len = (uint32_t)len;
		rh->nlmsg_flags = NLM_F_REQUEST;
		rh->nlmsg_seq = ++nl->seq;
	}
	err = count ? send_all(nl, reqs, len * count) : 0;
	while (!err && got < count) {
		struct iovec iov = { .iov_base = nl->buf, .iov_len = NL_BUFSZ };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n = recvmsg(nl->fd, &msg, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPROTO;
		if (msg.msg_flags & MSG_TRUNC)
			return -EMSGSIZE;
		err = each_answer(nl->buf, (size_t)n, first, count, &got, cb, ctx);
	}
	return err;
}

/*
 * The next attribute of message @h at *@off (start: NLMSG_ALIGN of the fixed
 * header's size), its payload size in *@alen; NULL at the end or on a
 * malformed attribute.
 */
const struct nlattr *ipp_nl__attr_next(const struct nlmsghdr *h, size_t *off, size_t *alen)
{
	size_t plen = h->nlmsg_len - NLMSG_HDRLEN;
	const struct nlattr *a;

	if (*off + NLA_HDRLEN > plen)
		return NULL;
	a = (const void *)((const char *)NLMSG_DATA(h) + *off);
	if (a->nla_len < NLA_HDRLEN || a->nla_len > plen - *off)
		return NULL;
	*alen = a->nla_len - NLA_HDRLEN;
	*off += NLA_ALIGN(a->nla_len);
	return a;
}

const void *ipp_nl__attr_data(const struct nlattr *a)
{
	return (const char *)a + NLA_HDRLEN;
}

/*
 * A sock_diag socket made in the network namespace @nsfd, which it then
 * answers for: this thread goes there for the socket() call and comes back
 * (a network namespace is a thread's own). Needs CAP_SYS_ADMIN.
 */
int ipp_nl__open_in(struct nl *nl, int nsfd)
{
	int self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	int err;

	if (self < 0)
		return -errno;
	if (setns(nsfd, CLONE_NEWNET) < 0) {
		err = -errno;
		close(self);
		return err;
	}
	err = ipp_nl__open(nl);
	/* Not back: the socket would answer for the wrong namespace. */
	if (setns(self, CLONE_NEWNET) < 0 && !err) {
		err = -errno;
		ipp_nl__close(nl);
	}
	close(self);
	return err;
}

