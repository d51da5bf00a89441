/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What an fd of a process refers to, from /proc/PID/fd, /proc/PID/fdinfo
 * (procfd.c) and NETLINK_SOCK_DIAG (sockdb.c). Not pure: it reads /proc
 * and talks to the kernel, but opens no perf events and needs no privilege
 * for the caller's own processes.
 *
 * Objects are named as the JSON contract wants them: "pipe:[123]",
 * "socket:[456]", "/path" (the text of the /proc link), or "unknown".
 *
 * Limits:
 *  - sock_diag answers for the caller's network namespace only. A socket of
 *    a process in another netns (a container's) is asked of itself: a copy
 *    of the fd (pidfd_getfd) tells a TCP or UDP socket's addresses, sizes
 *    and state (no inet peer inode), and a unix socket is looked up in the
 *    sock_diag of its own namespace (SIOCGSKNS, setns: CAP_SYS_ADMIN). When
 *    that fails too (no ptrace access, an older kernel), its kind, family
 *    and type come from the socket's protocol name (xattr
 *    system.sockprotoname: "TCP", "UDPv6", "UNIX-STREAM", ...), diag is
 *    false and addresses, peer and buffer sizes are unknown (0).
 *  - Sockets that are in no kernel lookup table are not in sock_diag dumps
 *    either: a TCP socket never bound nor connected, an unbound UDP socket.
 *    Same fallback as above.
 *  - Socket inodes are 32-bit in sock_diag; sockfs inode numbers are too.
 */
#ifndef IPCPERF_PROCFD_H
#define IPCPERF_PROCFD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <sys/un.h>
#include "ipcperf/ipcperf.h"
#include "fdid.h"

/*
 * Format @a as "127.0.0.1:80", "[::1]:80", "/path", "@name", or "" (none)
 * into @buf of @len bytes (always NUL-terminated when len > 0).
 * @return the length it needed, as snprintf.
 */
int ipp_sockaddr_str(const union ipp_sockaddr *a, char *buf, size_t len);

/*
 * A snapshot of every unix, TCP and UDP (IPv4 and IPv6) socket of the
 * caller's network namespace, looked up by inode: one set of netlink dumps
 * answers any number of resolutions.
 */
struct ipp_sockdb;

/* @return an empty db, freed with ipp_sockdb__delete(); NULL with errno (ENOMEM). */
struct ipp_sockdb *ipp_sockdb__new(void);
/* Accepts NULL. */
void ipp_sockdb__delete(struct ipp_sockdb *db);
/*
 * Replace the contents with fresh dumps: unix, tcp, tcp6, udp, udp6. A
 * family this kernel cannot dump (no IPv6, no udp_diag) is left out.
 * @return the number of sockets (>= 0), or -errno (the old contents stay):
 *   -ENOMEM, or the netlink socket's error.
 */
int ipp_sockdb__refresh(struct ipp_sockdb *db);
/*
 * The same, of the network namespace @nsfd (an fd of /proc/PID/ns/net; -1:
 * ours): its sock_diag asked from there (setns: CAP_SYS_ADMIN).
 */
int ipp_sockdb__refresh_in(struct ipp_sockdb *db, int nsfd);
/* Number of sockets of the last successful refresh. */
size_t ipp_sockdb__count(const struct ipp_sockdb *db);
/*
 * Describe the socket of inode @ino: fills every member of @out (object
 * "socket:[ino]", flags -1, dev 0, diag true).
 * @return 0, or -ENOENT when the snapshot has no such socket (@out untouched).
 */
int ipp_sockdb__lookup(const struct ipp_sockdb *db, uint64_t ino, struct ipp_fdid *out);

/*
 * The inodes of the open inet sockets of @kind (tcp or udp) whose addresses
 * read @details[i] ("LOCAL -> REMOTE", as an fd's detail gives them), into
 * @inos[i]; 0 for none. One pass over @db for all @n of them.
 * @return 0 or -ENOMEM.
 */
int ipp_sockdb__find_addrs(const struct ipp_sockdb *db, enum ipcperf_fd_kind kind,
			   const char *const *details, size_t n, uint64_t *inos);
/*
 * The same, asked of the kernel now: a TCP connection whose two endpoints
 * have ports and no link-local address is looked up alone, in the kernel's
 * connection hash; the others (and UDP) are found in one dump, made only
 * if one of them needs it. A closed server's connections would otherwise
 * cost a walk of every socket of the machine, TIME_WAIT ones included.
 * @return 0, -ENOMEM, or -EIO when the kernel could not be asked.
 */
int ipp_sockdb__ask_addrs(enum ipcperf_fd_kind kind, const char *const *details, size_t n,
			  uint64_t *inos);

/*
 * Ask the kernel about the one socket of inode @ino (of @kind: unix, tcp or
 * udp): a unix socket is one request by inode, tcp and udp need dumps of
 * that protocol, since sock_diag cannot look inet sockets up by inode.
 * @return 0 with @out filled as ipp_sockdb__lookup() does; -ENOENT (not
 *   found, or another kind); the netlink socket's -errno.
 */
int ipp_sockdiag_ask(uint32_t ino, enum ipcperf_fd_kind kind, struct ipp_fdid *out);

/*
 * Describe socket @sfd (inode @ino, an fd of ours), of any network
 * namespace: a TCP or UDP socket by getsockname, getpeername and its
 * options (peer_ino 0), a unix socket by sock_diag in its own namespace.
 * Fills the socket members of @out (diag true).
 * @return 0; -ENOENT (another protocol, or not found); -errno.
 */
int ipp_sock_describe_fd(int sfd, uint64_t ino, struct ipp_fdid *out);

/*
 * Identify fd @fd of process @pid.
 * @db: a snapshot to look sockets up in, or NULL to ask the kernel about this
 *   one socket (a unix socket: one request by inode; tcp/udp: dumps of that
 *   protocol, as sock_diag cannot look inet sockets up by inode). With a db,
 *   a socket it lacks is asked about only when it is a unix socket (cheap);
 *   for tcp/udp the fallback of the header comment applies: refresh the db
 *   when sockets may be newer than it.
 * @return 0 with @out filled; -ENOENT when @fd is not open; -ESRCH when the
 *   process does not exist or has exited (zombie); -EACCES when /proc denies
 *   it (another user's process, without CAP_SYS_PTRACE); -EINVAL for a
 *   negative fd or pid <= 0. @out is only written on success.
 */
int ipp_procfd_resolve(pid_t pid, int fd, const struct ipp_sockdb *db, struct ipp_fdid *out);

/*
 * ipp_procfd_resolve(), with the socket table asked of @get_db(@ctx) only
 * once the fd's object is held and found to be a socket: a table made
 * (a dump of every socket of the machine takes milliseconds) before the
 * object was held would give the fd that time to be closed. @get_db may
 * return NULL (then the one socket is asked about, as with @db NULL).
 */
int ipp_procfd_resolve_held(pid_t pid, int fd, const struct ipp_sockdb *(*get_db)(void *ctx),
			    void *ctx, struct ipp_fdid *out);

/*
 * Call @cb for every open fd of @pid, in increasing fd order. @id lives only
 * for the call. An fd closed while scanning is skipped. With @db NULL, one
 * snapshot is taken (at the first socket) and used for the whole scan.
 * When @pid is the caller itself, the fd of the /proc directory being read
 * is left out.
 * @return the number of fds reported; the first non-zero return of @cb,
 *   which stops the scan; or -ESRCH / -EACCES / -ENOMEM (the callback may
 *   have been called for some fds by then).
 */
int ipp_procfd_scan(pid_t pid, const struct ipp_sockdb *db,
		  int (*cb)(void *ctx, int fd, const struct ipp_fdid *id), void *ctx);

/*
 * An fd of the network namespace of process @pid when it is another than
 * ours (a container's), to be closed by the caller; -1 when it is ours or
 * cannot be told.
 */
int ipp_procfd_other_netns(pid_t pid);

/*
 * Capacity in bytes of the pipe at fd @fd of process @pid (a tgid): a copy of
 * the fd is taken with pidfd_open + pidfd_getfd, asked F_GETPIPE_SZ, closed.
 * Needs ptrace access to @pid (same user, or CAP_SYS_PTRACE; always true
 * for the caller's own process). The copy is closed before returning; while
 * it is held (microseconds) a reader would not yet see EOF if the target
 * closed its last write end at that very moment.
 * @return bytes (> 0); -ESRCH (no such process), -EBADF (@fd not open),
 *   -EPERM (no ptrace access), -EINVAL (not a pipe, or @pid not a tgid),
 *   -ENOSYS (kernel older than 5.6). Falling back, e.g. to 65536 (16 pages,
 *   the default size of a new pipe), is the caller's decision.
 */
int ipp_pipe_capacity_via_pidfd(pid_t pid, int fd);

#endif /* IPCPERF_PROCFD_H */
