/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What an fd refers to (struct ipp_fdid) and a socket address, on the
 * ground floor: fd/ fills them from /proc and sock_diag, bpf/ from the
 * kernel's records, and neither needs the other for it.
 */
#ifndef IPCPERF_FDID_H
#define IPCPERF_FDID_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <sys/un.h>
#include "ipcperf/ipcperf.h"

/*
 * A socket address. sa.sa_family says which member is valid; AF_UNSPEC
 * (0) when unknown or none. Ports and addresses are in network order, as
 * from getsockname(). For AF_UNIX, un.sun_path is NUL-terminated text: a
 * path, or an abstract name shown with a leading '@' (as ss does; NULs inside
 * the name also become '@'); "" for an unbound socket.
 */
union ipp_sockaddr {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
	struct sockaddr_un un;
};

struct ipp_fdid {
	enum ipcperf_fd_kind kind;
	uint64_t ino;		/* st_ino of the object (pipe/socket inode, file inode) */
	uint64_t dev;		/* st_dev of the object */
	char object[128];	/* "pipe:[N]", "socket:[N]", "/path", "anon_inode:[eventfd]", "unknown" */
	bool truncated;		/* the path did not fit: object is "..." and its last 124 bytes */
	int flags;		/* open flags from fdinfo (O_ACCMODE, O_NONBLOCK...), -1 if unknown */

	/* Sockets (family == 0 otherwise). */
	int family;		/* AF_UNIX, AF_INET, AF_INET6, AF_NETLINK...; 0 unknown */
	int type;		/* SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET...; 0 unknown */
	int protocol;		/* IPPROTO_TCP / IPPROTO_UDP for inet, else 0 */
	int state;		/* TCP_* of <netinet/tcp.h> (unix: TCP_LISTEN, TCP_ESTABLISHED,
				 * TCP_CLOSE...); -1 unknown */
	bool diag;		/* the fields below came from sock_diag; false: all unknown */
	/*
	 * Inode of the socket at the other end, on this host; 0 if none or
	 * unknown. unix: UNIX_DIAG_PEER. tcp/udp: the socket whose local and
	 * remote address:port are this one's remote and local (so a loopback
	 * connection names both its ends).
	 */
	uint64_t peer_ino;
	union ipp_sockaddr local;	/* inet: getsockname(); unix: our bound name */
	union ipp_sockaddr remote;	/* inet: getpeername() (port 0 unconnected); unix: the peer's name */
	/* inet: traffic stays on this host (an address is loopback, or the peer is local). */
	bool loopback;
	uint32_t rcvbuf;	/* SO_RCVBUF as the kernel holds it (SK_MEMINFO_RCVBUF); 0 unknown */
	uint32_t sndbuf;	/* SO_SNDBUF (SK_MEMINFO_SNDBUF); 0 unknown */
	uint32_t rqueue;	/* bytes waiting to be read (listening: pending connections) */
	uint32_t wqueue;	/* bytes sent but not yet taken / acked (listening: backlog) */
};

#endif
