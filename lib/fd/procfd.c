/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What an fd of a process is, from /proc/PID/fd and fdinfo (sockets
 * described through sockdb.c), and a pipe's capacity through pidfd_getfd
 * (procfd.h).
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
#include <linux/unix_diag.h>
#include <netinet/tcp.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

#include "internal.h"
#include "fd/proctask.h"
#include "fd/procfd.h"

/* ------------------------------------------------------------------ sockets of /proc */

/* What system.sockprotoname tells about a socket that sock_diag did not describe. */
static const struct proto {
	const char *name;
	int family, type, protocol;
	enum ipcperf_fd_kind kind;
} protos[] = {
	{ "UNIX-STREAM", AF_UNIX, SOCK_STREAM, 0, IPCPERF_FD_UNIX },
	{ "UNIX", AF_UNIX, 0, 0, IPCPERF_FD_UNIX },	/* dgram or seqpacket */
	{ "TCP", AF_INET, SOCK_STREAM, IPPROTO_TCP, IPCPERF_FD_TCP },
	{ "TCPv6", AF_INET6, SOCK_STREAM, IPPROTO_TCP, IPCPERF_FD_TCP },
	{ "UDP", AF_INET, SOCK_DGRAM, IPPROTO_UDP, IPCPERF_FD_UDP },
	{ "UDPv6", AF_INET6, SOCK_DGRAM, IPPROTO_UDP, IPCPERF_FD_UDP },
	{ "UDP-Lite", AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE, IPCPERF_FD_OTHER },
	{ "UDPLITEv6", AF_INET6, SOCK_DGRAM, IPPROTO_UDPLITE, IPCPERF_FD_OTHER },
	{ "RAW", AF_INET, SOCK_RAW, 0, IPCPERF_FD_OTHER },
	{ "RAWv6", AF_INET6, SOCK_RAW, 0, IPCPERF_FD_OTHER },
	{ "PING", AF_INET, SOCK_DGRAM, IPPROTO_ICMP, IPCPERF_FD_OTHER },
	{ "PINGv6", AF_INET6, SOCK_DGRAM, IPPROTO_ICMPV6, IPCPERF_FD_OTHER },
	{ "MPTCP", AF_INET, SOCK_STREAM, 0, IPCPERF_FD_OTHER },
	{ "MPTCPv6", AF_INET6, SOCK_STREAM, 0, IPCPERF_FD_OTHER },
	{ "SCTP", AF_INET, 0, IPPROTO_SCTP, IPCPERF_FD_OTHER },
	{ "SCTPv6", AF_INET6, 0, IPPROTO_SCTP, IPCPERF_FD_OTHER },
	{ "NETLINK", AF_NETLINK, 0, 0, IPCPERF_FD_OTHER },
	{ "PACKET", AF_PACKET, 0, 0, IPCPERF_FD_OTHER },
};

/* The protocol of the socket that @path (a /proc fd link) leads to, or NULL. */
static const struct proto *socket_proto(const char *path, bool *named)
{
	char name[64];
	ssize_t n = getxattr(path, "system.sockprotoname", name, sizeof(name) - 1);

	*named = n > 0;
	if (n <= 0)
		return NULL;
	name[n] = '\0';
	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++)
		if (!strcmp(name, protos[i].name))
			return &protos[i];
	return NULL;
}

/*
 * The socket table, made at the first socket: by the scan itself (@db, its
 * own), or asked of @get (the caller's, once the socket is held).
 */
struct lazy_db {
	struct ipp_sockdb *db;
	bool tried;
	const struct ipp_sockdb *(*get)(void *ctx);
	void *ctx;
};

int ipp_procfd_other_netns(pid_t pid)
{
	char path[64];
	struct stat theirs, ours;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &theirs) < 0 || stat("/proc/self/ns/net", &ours) < 0 ||
	    (theirs.st_ino == ours.st_ino && theirs.st_dev == ours.st_dev)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Whether process @pid is in another network namespace than ours. */
static bool other_netns(pid_t pid)
{
	int fd = ipp_procfd_other_netns(pid);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
/* A copy of fd @fd of process @pid, ours to close; or -errno. */
static int pidfd_copy(pid_t pid, int fd)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), copy;

	if (pidfd < 0)
		return -errno;
	copy = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (copy < 0)
		copy = -errno;
	close(pidfd);
	return copy;
}
#endif

/*
 * Socket @fd of process @pid (inode out->ino), asked of a copy of it: for a
 * socket of another network namespace, which our sock_diag does not see.
 */
static int describe_copy(pid_t pid, int fd, struct ipp_fdid *out)
{
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
	int sfd = pidfd_copy(pid, fd), err;
	struct stat st;

	if (sfd < 0)
		return sfd;
	/* The fd may have been closed and reused since it was held: the same socket only. */
	if (fstat(sfd, &st) < 0 || st.st_ino != out->ino)
		err = -ENOENT;
	else
		err = ipp_sock_describe_fd(sfd, out->ino, out);
	close(sfd);
	return err;
#else
	(void)pid;
	(void)fd;
	(void)out;
	return -ENOSYS;
#endif
}

static void describe_socket(pid_t pid, int fd, const char *path, const struct ipp_sockdb *db,
			    struct lazy_db *lazy, struct ipp_fdid *out)
{
	if (!db && lazy && lazy->get) {
		db = lazy->get(lazy->ctx);
	} else if (!db && lazy) {
		if (!lazy->tried) {
			lazy->tried = true;
			lazy->db = ipp_sockdb__new();
			if (lazy->db && ipp_sockdb__refresh(lazy->db) < 0) {
				ipp_sockdb__delete(lazy->db);
				lazy->db = NULL;
			}
		}
		db = lazy->db;
	}

	if (db && ipp_sockdb__lookup(db, out->ino, out) == 0)
		return;

	bool named;
	const struct proto *p = socket_proto(path, &named);
	/* Not in the snapshot: ask about this one socket (with a snapshot, only when cheap). */
	if (p && out->ino <= UINT32_MAX && (!db || p->kind == IPCPERF_FD_UNIX) &&
	    ipp_sockdiag_ask((uint32_t)out->ino, p->kind, out) == 0)
		return;
	if (p && p->kind != IPCPERF_FD_OTHER && other_netns(pid) && describe_copy(pid, fd, out) == 0)
		return;
	if (p) {
		out->kind = p->kind;
		out->family = p->family;
		out->type = p->type;
		out->protocol = p->protocol;
	} else {
		/* A protocol we have no entry for is still a socket: other. */
		out->kind = named ? IPCPERF_FD_OTHER : IPCPERF_FD_UNKNOWN;
	}
}

/* ------------------------------------------------------------------ /proc */

/* True when @pid does not exist or has exited (zombie): its fds are gone. */
static bool proc_gone(pid_t pid)
{
	char path[64], buf[512];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	/* "pid (comm) S ...": comm may hold spaces and parentheses. */
	const char *p = ipp_stat_after_comm(buf);
	if (!p)
		return false;
	return p[0] == 'Z' || p[0] == 'X' || p[0] == 'x';
}

static int proc_error(pid_t pid, int err)
{
	switch (err) {
	case ENOENT:
	case ESRCH:
		return proc_gone(pid) ? -ESRCH : -ENOENT;
	case EPERM:
	case EACCES:
		/* /proc denies a zombie's fds to non-root (no mm: not dumpable). */
		return proc_gone(pid) ? -ESRCH : -EACCES;
	default:
		return -err;
	}
}

/* flags of /proc/PID/fdinfo/FD, -1 unknown or when its ino is not @ino (fd reused). */
static int fdinfo_flags(pid_t pid, int fd, uint64_t ino)
{
	char path[64], buf[512];
	int f, flags = -1;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)pid, fd);
	f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return -1;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return -1;
	buf[n] = '\0';

	for (char *line = buf, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strncmp(line, "flags:", 6)) {
			flags = (int)strtol(line + 6, NULL, 8);
		} else if (!strncmp(line, "ino:", 4)) {
			if (strtoull(line + 4, NULL, 10) != ino)
				return -1;
		}
	}
	return flags;
}

static bool is_tty(const char *link, const struct stat *st)
{
	if (!S_ISCHR(st->st_mode))
		return false;
	unsigned int maj = major(st->st_rdev), min = minor(st->st_rdev);
	/* 4: vt and serial; 5: tty, console, ptmx; 136-143: pts. */
	if (maj == 4 || (maj == 5 && min <= 2) || (maj >= 136 && maj <= 143))
		return true;
	return !strncmp(link, "/dev/pts/", 9) || !strncmp(link, "/dev/tty", 8) ||
	       !strcmp(link, "/dev/console");
}

static void set_object(struct ipp_fdid *out, const char *link, size_t len)
{
	if (len < sizeof(out->object)) {
		memcpy(out->object, link, len + 1);
		return;
	}
	/* Keep the end, where the file name is. */
	size_t keep = sizeof(out->object) - 4;
	memcpy(out->object, "...", 3);
	memcpy(out->object + 3, link + len - keep, keep + 1);
	out->truncated = true;
}

static int resolve(pid_t pid, int fd, const struct ipp_sockdb *db, struct lazy_db *lazy,
		   struct ipp_fdid *out)
{
	char path[64], self[64];
	char *link;
	struct stat st;
	struct ipp_fdid id;
	ssize_t len;
	int pfd, err = 0;

	if (pid <= 0 || fd < 0 || !out)
		return -EINVAL;

	/*
	 * Hold the object with an O_PATH fd, then ask everything of that fd:
	 * stat and name always describe the same object even if the target
	 * closes and reuses its fd meanwhile. O_PATH neither opens a pipe end
	 * nor holds a socket open.
	 */
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return proc_error(pid, errno);
	link = malloc(PATH_MAX);
	if (!link) {
		close(pfd);
		return -ENOMEM;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	if (fstat(pfd, &st) < 0) {
		err = -errno;
		goto out;
	}
	len = readlink(self, link, PATH_MAX - 1);
	if (len < 0) {
		err = -errno;
		goto out;
	}
	link[len] = '\0';

	memset(&id, 0, sizeof(id));
	id.ino = st.st_ino;
	id.dev = st.st_dev;
	id.state = -1;
	set_object(&id, link, (size_t)len);

	if (S_ISFIFO(st.st_mode)) {
		id.kind = IPCPERF_FD_PIPE;	/* "pipe:[N]", or the path of a FIFO */
	} else if (S_ISSOCK(st.st_mode)) {
		describe_socket(pid, fd, self, db, lazy, &id);
	} else if (is_tty(link, &st)) {
		id.kind = IPCPERF_FD_TTY;
	} else if (link[0] == '/') {
		id.kind = IPCPERF_FD_FILE;
	} else {
		id.kind = IPCPERF_FD_OTHER;	/* anon_inode:[eventfd], net:[...], ... */
	}
	id.flags = fdinfo_flags(pid, fd, id.ino);
	*out = id;
out:
	free(link);
	close(pfd);
	return err;
}

int ipp_procfd_resolve(pid_t pid, int fd, const struct ipp_sockdb *db, struct ipp_fdid *out)
{
	return resolve(pid, fd, db, NULL, out);
}

int ipp_procfd_resolve_held(pid_t pid, int fd, const struct ipp_sockdb *(*get_db)(void *ctx),
			    void *ctx, struct ipp_fdid *out)
{
	struct lazy_db lazy = { .get = get_db, .ctx = ctx };

	return resolve(pid, fd, NULL, get_db ? &lazy : NULL, out);
}

int ipp_procfd_scan(pid_t pid, const struct ipp_sockdb *db,
		  int (*cb)(void *ctx, int fd, const struct ipp_fdid *id), void *ctx)
{
	struct lazy_db lazy = { 0 };
	struct ipp_fdid id;
	struct dirent *de;
	char path[64];
	DIR *d;
	int n = 0, ret = 0, skip = -1;

	if (pid <= 0 || !cb)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : proc_error(pid, errno);
	if (pid == getpid() || pid == (pid_t)syscall(SYS_gettid))
		skip = dirfd(d);

	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno)
				ret = proc_error(pid, errno);
			break;
		}
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		char *end;
		long fd = strtol(de->d_name, &end, 10);
		if (*end || fd < 0 || fd > INT_MAX || fd == skip)
			continue;

		int r = resolve(pid, (int)fd, db, &lazy, &id);
		if (r == -ENOENT)
			continue;	/* closed since the listing */
		if (r < 0) {
			ret = r;
			break;
		}
		n++;
		r = cb(ctx, (int)fd, &id);
		if (r) {
			ret = r;
			break;
		}
	}
	closedir(d);
	ipp_sockdb__delete(lazy.db);
	if (ret)
		return ret;
	/* A zombie lists no fds at all: say it is gone, as resolve does. */
	if (n == 0 && proc_gone(pid))
		return -ESRCH;
	return n;
}

/* ------------------------------------------------------------------ pidfd */

int ipp_pipe_capacity_via_pidfd(pid_t pid, int fd)
{
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
	int tfd, sz, err;
	struct stat st;

	if (pid <= 0 || fd < 0)
		return -EINVAL;
	tfd = pidfd_copy(pid, fd);
	if (tfd < 0)
		return tfd;
	if (fstat(tfd, &st) < 0)
		err = -errno;
	else if (!S_ISFIFO(st.st_mode))
		err = -EINVAL;
	else if ((sz = fcntl(tfd, F_GETPIPE_SZ)) < 0)
		err = -errno;
	else
		err = sz;
	close(tfd);
	return err;
#else
	(void)pid;
	(void)fd;
	return -ENOSYS;
#endif
}

/* The decimal digits of @v at @p: @return the end. */
static char *put_dec(char *p, unsigned int v)
{
	char d[10];
	int n = 0;

	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n)
		*p++ = d[--n];
	return p;
}

/*
 * "A.B.C.D:PORT", as inet_ntop() and snprintf() would write it, without
 * them: a connection per request names two addresses at each fd made.
 */
static int inet4_str(const struct sockaddr_in *in, char *buf, size_t len)
{
	const unsigned char *b = (const unsigned char *)&in->sin_addr;
	char s[sizeof("255.255.255.255:65535")], *p = s;
	size_t n;

	for (int i = 0; i < 4; i++) {
		p = put_dec(p, b[i]);
		*p++ = i < 3 ? '.' : ':';
	}
	p = put_dec(p, ntohs(in->sin_port));
	n = (size_t)(p - s);
	if (len) {
		size_t k = n < len ? n : len - 1;

		memcpy(buf, s, k);
		buf[k] = '\0';
	}
	return (int)n;
}

int ipp_sockaddr_str(const union ipp_sockaddr *a, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	switch (a->sa.sa_family) {
	case AF_INET:
		return inet4_str(&a->in, buf, len);
	case AF_INET6:
		inet_ntop(AF_INET6, &a->in6.sin6_addr, ip, sizeof(ip));
		return snprintf(buf, len, "[%s]:%u", ip, ntohs(a->in6.sin6_port));
	case AF_UNIX:
		return snprintf(buf, len, "%.*s", (int)sizeof(a->un.sun_path), a->un.sun_path);
	default:
		return snprintf(buf, len, "%s", "");
	}
}
