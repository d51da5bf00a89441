/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A NETLINK_SOCK_DIAG socket (nl.c), for sockdb.c: one request at a time,
 * its replies handed to a callback, their attributes walked; or, for
 * sockdb-ask.c, a batch of requests sent at once, an answer each.
 */
#ifndef IPP_FD_NL_H
#define IPP_FD_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/netlink.h>

/* Big enough for the largest dump skb the kernel builds for us (32 KiB). */
#define NL_BUFSZ (64 * 1024)

struct nl {
	int fd;
	uint32_t seq;
	char *buf;
};
typedef int (*ipp_nl_cb_t)(void *ctx, const struct nlmsghdr *h);

/* A sock_diag socket of this thread's network namespace. @return 0 or -errno. */
int ipp_nl__open(struct nl *nl);
/*
 * A sock_diag socket made in the network namespace @nsfd, which it then
 * answers for (needs CAP_SYS_ADMIN). @return 0 or -errno.
 */
int ipp_nl__open_in(struct nl *nl, int nsfd);
void ipp_nl__close(struct nl *nl);
/*
 * Send @req (a struct nlmsghdr first, @len bytes in all) and hand every
 * reply to @cb until the dump ends (@dump) or the one reply came.
 * @return 0, the first non-zero return of @cb, or the kernel's -errno.
 */
int ipp_nl__query(struct nl *nl, void *req, size_t len, bool dump, ipp_nl_cb_t cb, void *ctx);
/*
 * What ipp_nl__query_each() hands each request: its answer @h, or NULL and
 * @err, the kernel's -errno for it (-ENOENT: nothing of that name).
 * @return 0 to go on, else the value to stop with.
 */
typedef int (*ipp_nl_each_t)(void *ctx, size_t i, const struct nlmsghdr *h, int err);
/*
 * Send @count requests that are not dumps in one go (@reqs: @count of @len
 * bytes each, a multiple of 4, a struct nlmsghdr first) and hand each its
 * one answer through @cb. The answers wait in the socket's buffer: keep
 * @count to a few dozen. @return 0, the first non-zero return of @cb, or
 * the socket's -errno.
 */
int ipp_nl__query_each(struct nl *nl, void *reqs, size_t len, size_t count, ipp_nl_each_t cb,
		       void *ctx);
/*
 * The next attribute of @h at *@off (start: NLMSG_ALIGN of the fixed
 * header's size), its payload size in *@alen; NULL at the end.
 */
const struct nlattr *ipp_nl__attr_next(const struct nlmsghdr *h, size_t *off, size_t *alen);
const void *ipp_nl__attr_data(const struct nlattr *a);

#endif
