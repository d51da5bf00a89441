/*
 * Tests of fd identity (lib/fd/procfd.c, lib/fd/sockdb.c) on the test's own process and on forked
 * children: /proc and sock_diag, no root needed (one case also runs as root
 * to check EACCES after dropping to nobody).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <net/if.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <check.h>

#include "fd/procfd.h"
#include "check-helpers.h"
#include "suites.h"


static uint64_t ino_of(int fd)
{
	struct stat st;
	ck_assert_int_eq(fstat(fd, &st), 0);
	return st.st_ino;
}

static void resolve_ok(pid_t pid, int fd, struct ipp_fdid *id)
{
	int r = ipp_procfd_resolve(pid, fd, NULL, id);
	ck_assert_msg(r == 0, "resolve(%d, %d) = %d (%s)", (int)pid, fd, r, strerror(-r));
}

static void assert_socket_object(const struct ipp_fdid *id, int fd)
{
	char want[64];
	snprintf(want, sizeof(want), "socket:[%llu]", (unsigned long long)ino_of(fd));
	ck_assert_str_eq(id->object, want);
	ck_assert_uint_eq(id->ino, ino_of(fd));
}

/*
 * pidfd_open/pidfd_getfd may be missing: kernel < 5.6, or valgrind that does
 * not know them. The documented answer is then -ENOSYS.
 */
static bool have_pidfd(void)
{
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	int r = ipp_pipe_capacity_via_pidfd(getpid(), p[0]);
	close(p[0]);
	close(p[1]);
	ck_assert(r > 0 || r == -ENOSYS);
	return r > 0;
}

/* A temporary directory, removed (with what the test left in it) at the end. */
static char tmpdir[64];

static void make_tmpdir(void)
{
	char tmpl[] = "/tmp/check-fdid-XXXXXX", *real;
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	/* /proc shows resolved paths: compare against the real one. */
	real = realpath(tmpl, NULL);
	ck_assert_ptr_nonnull(real);
	ck_assert_uint_lt(strlen(real), sizeof(tmpdir));
	snprintf(tmpdir, sizeof(tmpdir), "%s", real);
	free(real);
}

static void remove_tmpdir(void)
{
	char cmd[sizeof(tmpdir) + 16];
	if (!tmpdir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
	tmpdir[0] = '\0';
}

START_TEST(test_kind_names)
{
	expect_fd_kind_names();

	union ipp_sockaddr a;
	char buf[64];
	memset(&a, 0, sizeof(a));
	ck_assert_int_eq(ipp_sockaddr_str(&a, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");
	a.in.sin_family = AF_INET;
	a.in.sin_port = htons(8080);
	a.in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ipp_sockaddr_str(&a, buf, sizeof(buf));
	ck_assert_str_eq(buf, "127.0.0.1:8080");
	memset(&a, 0, sizeof(a));
	a.in6.sin6_family = AF_INET6;
	a.in6.sin6_port = htons(53);
	a.in6.sin6_addr = in6addr_loopback;
	ipp_sockaddr_str(&a, buf, sizeof(buf));
	ck_assert_str_eq(buf, "[::1]:53");
}
END_TEST

/* The address of the lower port of an inet fd's addresses, either way round. */
START_TEST(test_inet_endpoint)
{
	char buf[64], small[8];

	ipcperf_inet_endpoint(buf, sizeof(buf), "127.0.0.1:5000 -> 127.0.0.1:40000");
	ck_assert_str_eq(buf, "127.0.0.1:5000");
	ipcperf_inet_endpoint(buf, sizeof(buf), "127.0.0.1:40000 -> 127.0.0.1:6379");
	ck_assert_str_eq(buf, "127.0.0.1:6379");
	ipcperf_inet_endpoint(buf, sizeof(buf), "[::1]:443 -> [::1]:51000");
	ck_assert_str_eq(buf, "[::1]:443");
	ipcperf_inet_endpoint(buf, sizeof(buf), "peer socket:[123]");
	ck_assert_str_eq(buf, "");
	ipcperf_inet_endpoint(buf, sizeof(buf), NULL);
	ck_assert_str_eq(buf, "");
	ipcperf_inet_endpoint(small, sizeof(small), "127.0.0.1:5000 -> 127.0.0.1:40000");
	ck_assert_str_eq(small, "127.0.0");
}
END_TEST

START_TEST(test_pipe)
{
	struct ipp_fdid r, w;
	char want[64];
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	resolve_ok(getpid(), p[0], &r);
	resolve_ok(getpid(), p[1], &w);
	snprintf(want, sizeof(want), "pipe:[%llu]", (unsigned long long)ino_of(p[0]));
	ck_assert_int_eq(r.kind, IPCPERF_FD_PIPE);
	ck_assert_int_eq(w.kind, IPCPERF_FD_PIPE);
	ck_assert_str_eq(r.object, want);
	ck_assert_str_eq(w.object, want);
	ck_assert_uint_eq(r.ino, ino_of(p[0]));
	ck_assert_uint_eq(w.ino, r.ino);
	ck_assert_int_eq(r.flags & O_ACCMODE, O_RDONLY);
	ck_assert_int_eq(w.flags & O_ACCMODE, O_WRONLY);
	ck_assert_int_eq(r.family, 0);
	ck_assert(!r.truncated);
	close(p[0]);
	close(p[1]);
}
END_TEST

/* /proc names our @fd @path, of @kind, with its inode and @flags under @mask: into *@id. */
static void expect_named_fd(int fd, const char *path, enum ipcperf_fd_kind kind, int mask,
			    int flags, struct ipp_fdid *id)
{
	resolve_ok(getpid(), fd, id);
	ck_assert_int_eq(id->kind, kind);
	ck_assert_str_eq(id->object, path);
	ck_assert_uint_eq(id->ino, ino_of(fd));
	ck_assert_int_eq(id->flags & mask, flags);
}

START_TEST(test_fifo)
{
	char path[PATH_MAX];
	struct ipp_fdid id;
	int fd;

	make_tmpdir();
	snprintf(path, sizeof(path), "%s/fifo", tmpdir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	fd = open(path, O_RDWR | O_NONBLOCK);	/* O_RDWR: no wait for a writer (Linux) */
	ck_assert_int_ge(fd, 0);
	expect_named_fd(fd, path, IPCPERF_FD_PIPE, O_ACCMODE | O_NONBLOCK, O_RDWR | O_NONBLOCK, &id);
	close(fd);
	remove_tmpdir();
}
END_TEST

static void check_unix_pair(int type)
{
	struct ipp_fdid a, b;
	int sp[2];

	ck_assert_int_eq(socketpair(AF_UNIX, type, 0, sp), 0);
	resolve_ok(getpid(), sp[0], &a);
	resolve_ok(getpid(), sp[1], &b);
	assert_socket_object(&a, sp[0]);
	assert_socket_object(&b, sp[1]);
	ck_assert_int_eq(a.kind, IPCPERF_FD_UNIX);
	ck_assert_int_eq(b.kind, IPCPERF_FD_UNIX);
	ck_assert_int_eq(a.family, AF_UNIX);
	ck_assert_int_eq(a.type, type);
	ck_assert_int_eq(b.type, type);
	ck_assert(a.diag && b.diag);
	ck_assert_uint_eq(a.peer_ino, b.ino);
	ck_assert_uint_eq(b.peer_ino, a.ino);
	ck_assert_int_eq(a.state, TCP_ESTABLISHED);
	ck_assert_uint_gt(a.rcvbuf, 0);
	ck_assert_uint_gt(a.sndbuf, 0);
	ck_assert(!a.loopback);
	close(sp[0]);
	close(sp[1]);
}

START_TEST(test_unix_socketpairs)
{
	check_unix_pair(SOCK_STREAM);
	check_unix_pair(SOCK_DGRAM);
	check_unix_pair(SOCK_SEQPACKET);
}
END_TEST

/* Bytes written and not read show in rqueue (stream: bytes queued). */
START_TEST(test_unix_queue)
{
	struct ipp_fdid id;
	int sp[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	ck_assert_int_eq(write(sp[0], "0123456789", 10), 10);
	resolve_ok(getpid(), sp[1], &id);
	ck_assert_uint_eq(id.rqueue, 10);
	close(sp[0]);
	close(sp[1]);
}
END_TEST

START_TEST(test_unix_named)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ipp_fdid l, c, s;
	int lfd, cfd, sfd;

	make_tmpdir();
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sock", tmpdir);
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_ge(lfd, 0);
	ck_assert_int_eq(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(lfd, 4), 0);
	cfd = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_eq(connect(cfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	sfd = accept(lfd, NULL, NULL);
	ck_assert_int_ge(sfd, 0);

	resolve_ok(getpid(), lfd, &l);
	resolve_ok(getpid(), cfd, &c);
	resolve_ok(getpid(), sfd, &s);
	ck_assert_int_eq(l.state, TCP_LISTEN);
	ck_assert_int_eq(l.local.sa.sa_family, AF_UNIX);
	ck_assert_str_eq(l.local.un.sun_path, sa.sun_path);
	ck_assert_int_eq(l.remote.sa.sa_family, AF_UNSPEC);
	ck_assert_uint_eq(l.peer_ino, 0);
	ck_assert_uint_eq(c.peer_ino, s.ino);
	ck_assert_uint_eq(s.peer_ino, c.ino);
	ck_assert_str_eq(c.local.un.sun_path, "");		/* unbound client */
	ck_assert_str_eq(c.remote.un.sun_path, sa.sun_path);	/* its peer's name */
	ck_assert_str_eq(s.local.un.sun_path, sa.sun_path);	/* accepted: the listener's */

	/* Abstract names are shown with '@'. */
	struct sockaddr_un ab = { .sun_family = AF_UNIX };
	char want[108];
	int afd = socket(AF_UNIX, SOCK_DGRAM, 0);
	int n = snprintf(ab.sun_path + 1, sizeof(ab.sun_path) - 1, "ipcperf-check-%d", (int)getpid());
	ck_assert_int_eq(bind(afd, (struct sockaddr *)&ab,
			      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n)), 0);
	struct ipp_fdid a;
	resolve_ok(getpid(), afd, &a);
	snprintf(want, sizeof(want), "@ipcperf-check-%d", (int)getpid());
	ck_assert_str_eq(a.local.un.sun_path, want);
	ck_assert_int_eq(a.type, SOCK_DGRAM);

	close(afd);
	close(sfd);
	close(cfd);
	close(lfd);
	remove_tmpdir();
}
END_TEST

static void assert_same_addr(const union ipp_sockaddr *got, const struct sockaddr_storage *want)
{
	ck_assert_int_eq(got->sa.sa_family, want->ss_family);
	if (want->ss_family == AF_INET) {
		const struct sockaddr_in *w = (const struct sockaddr_in *)want;
		ck_assert_uint_eq(ntohs(got->in.sin_port), ntohs(w->sin_port));
		ck_assert_uint_eq(got->in.sin_addr.s_addr, w->sin_addr.s_addr);
	} else {
		const struct sockaddr_in6 *w = (const struct sockaddr_in6 *)want;
		ck_assert_uint_eq(ntohs(got->in6.sin6_port), ntohs(w->sin6_port));
		ck_assert_mem_eq(&got->in6.sin6_addr, &w->sin6_addr, 16);
	}
}

static void assert_names(const struct ipp_fdid *id, int fd, bool connected)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&ss, &len), 0);
	assert_same_addr(&id->local, &ss);
	if (!connected)
		return;
	len = sizeof(ss);
	ck_assert_int_eq(getpeername(fd, (struct sockaddr *)&ss, &len), 0);
	assert_same_addr(&id->remote, &ss);
}

/* A listener, a client and the accepted connection on loopback address @addr. */
static bool check_tcp(int family, const char *addr)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t len;
	struct ipp_fdid l, c, s;
	int lfd, cfd, sfd;

	if (family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;
		in->sin_family = AF_INET;
		inet_pton(AF_INET, addr, &in->sin_addr);
		len = sizeof(*in);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
		in6->sin6_family = AF_INET6;
		inet_pton(AF_INET6, addr, &in6->sin6_addr);
		len = sizeof(*in6);
	}
	lfd = socket(family, SOCK_STREAM, 0);
	if (lfd < 0)
		return false;
	if (bind(lfd, (struct sockaddr *)&ss, len) < 0) {	/* no IPv6 here */
		close(lfd);
		return false;
	}
	ck_assert_int_eq(listen(lfd, 4), 0);
	ck_assert_int_eq(getsockname(lfd, (struct sockaddr *)&ss, &len), 0);
	cfd = socket(family, SOCK_STREAM, 0);
	ck_assert_int_eq(connect(cfd, (struct sockaddr *)&ss, len), 0);
	sfd = accept(lfd, NULL, NULL);
	ck_assert_int_ge(sfd, 0);

	resolve_ok(getpid(), lfd, &l);
	resolve_ok(getpid(), cfd, &c);
	resolve_ok(getpid(), sfd, &s);
	for (int i = 0; i < 3; i++) {
		const struct ipp_fdid *id = i == 0 ? &l : i == 1 ? &c : &s;
		ck_assert_int_eq(id->kind, IPCPERF_FD_TCP);
		ck_assert_int_eq(id->family, family);
		ck_assert_int_eq(id->type, SOCK_STREAM);
		ck_assert_int_eq(id->protocol, IPPROTO_TCP);
		ck_assert(id->diag);
		ck_assert(id->loopback);
		ck_assert_uint_gt(id->rcvbuf, 0);
		ck_assert_uint_gt(id->sndbuf, 0);
	}
	assert_socket_object(&l, lfd);
	assert_socket_object(&c, cfd);
	assert_socket_object(&s, sfd);
	ck_assert_int_eq(l.state, TCP_LISTEN);
	ck_assert_int_eq(c.state, TCP_ESTABLISHED);
	ck_assert_int_eq(s.state, TCP_ESTABLISHED);
	assert_names(&l, lfd, false);
	assert_names(&c, cfd, true);
	assert_names(&s, sfd, true);
	ck_assert_uint_eq(ntohs(l.remote.in.sin_port), 0);
	ck_assert_uint_eq(l.peer_ino, 0);
	ck_assert_uint_eq(c.peer_ino, s.ino);
	ck_assert_uint_eq(s.peer_ino, c.ino);

	close(sfd);
	close(cfd);
	close(lfd);
	return true;
}

START_TEST(test_tcp_loopback)
{
	ck_assert(check_tcp(AF_INET, "127.0.0.1"));
	/* IPv6 when this machine has it; the v4 case above is the requirement. */
	(void)check_tcp(AF_INET6, "::1");
}
END_TEST

START_TEST(test_udp)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	struct ipp_fdid r, s, u;
	int rfd, sfd, ufd;

	rfd = socket(AF_INET, SOCK_DGRAM, 0);
	ck_assert_int_eq(bind(rfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(getsockname(rfd, (struct sockaddr *)&sa, &len), 0);
	sfd = socket(AF_INET, SOCK_DGRAM, 0);
	ck_assert_int_eq(connect(sfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ufd = socket(AF_INET, SOCK_DGRAM, 0);	/* never bound: in no table */

	resolve_ok(getpid(), rfd, &r);
	resolve_ok(getpid(), sfd, &s);
	resolve_ok(getpid(), ufd, &u);
	ck_assert_int_eq(r.kind, IPCPERF_FD_UDP);
	ck_assert_int_eq(r.type, SOCK_DGRAM);
	ck_assert_int_eq(r.protocol, IPPROTO_UDP);
	ck_assert(r.diag);
	ck_assert(r.loopback);
	assert_names(&r, rfd, false);
	ck_assert_uint_eq(r.peer_ino, 0);	/* unconnected: any sender */
	ck_assert_int_eq(s.kind, IPCPERF_FD_UDP);
	assert_names(&s, sfd, true);
	ck_assert_uint_eq(s.peer_ino, r.ino);	/* delivers to the bound socket */
	/* The documented fallback: kind from the protocol name, nothing else. */
	ck_assert_int_eq(u.kind, IPCPERF_FD_UDP);
	ck_assert_int_eq(u.family, AF_INET);
	ck_assert_int_eq(u.type, SOCK_DGRAM);
	ck_assert(!u.diag);
	ck_assert_int_eq(u.local.sa.sa_family, AF_UNSPEC);
	assert_socket_object(&u, ufd);

	close(rfd);
	close(sfd);
	close(ufd);
}
END_TEST

START_TEST(test_files)
{
	char path[PATH_MAX];
	struct ipp_fdid id;
	int fd, nfd;

	make_tmpdir();
	snprintf(path, sizeof(path), "%s/file.txt", tmpdir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_APPEND, 0600);
	ck_assert_int_ge(fd, 0);
	expect_named_fd(fd, path, IPCPERF_FD_FILE, O_ACCMODE | O_APPEND, O_RDWR | O_APPEND, &id);
	ck_assert(!id.truncated);

	/* The kernel's own mark of an unlinked file stays in the name. */
	ck_assert_int_eq(unlink(path), 0);
	resolve_ok(getpid(), fd, &id);
	strcat(path, " (deleted)");
	ck_assert_str_eq(id.object, path);
	close(fd);

	nfd = open("/dev/null", O_WRONLY);
	resolve_ok(getpid(), nfd, &id);
	ck_assert_int_eq(id.kind, IPCPERF_FD_FILE);
	ck_assert_str_eq(id.object, "/dev/null");
	close(nfd);

	/* A path longer than object[]: "..." and the tail. */
	snprintf(path, sizeof(path), "%s/%0100d", tmpdir, 0);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	strcat(path, "/the-file-name");
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	resolve_ok(getpid(), fd, &id);
	ck_assert(id.truncated);
	ck_assert_uint_eq(strlen(id.object), sizeof(id.object) - 1);
	ck_assert_mem_eq(id.object, "...", 3);
	ck_assert_str_eq(id.object + 3, path + strlen(path) - (sizeof(id.object) - 4));
	close(fd);
	remove_tmpdir();
}
END_TEST

START_TEST(test_tty_and_other)
{
	struct ipp_fdid id;
	int m = posix_openpt(O_RDWR | O_NOCTTY);

	if (m >= 0 && grantpt(m) == 0 && unlockpt(m) == 0) {
		char *name = ptsname(m);
		int s = open(name, O_RDWR | O_NOCTTY);
		ck_assert_int_ge(s, 0);
		resolve_ok(getpid(), s, &id);
		ck_assert_int_eq(id.kind, IPCPERF_FD_TTY);
		ck_assert_str_eq(id.object, name);
		resolve_ok(getpid(), m, &id);
		ck_assert_int_eq(id.kind, IPCPERF_FD_TTY);	/* the master: /dev/ptmx */
		close(s);
	}
	if (m >= 0)
		close(m);

	int e = eventfd(0, 0);
	resolve_ok(getpid(), e, &id);
	ck_assert_int_eq(id.kind, IPCPERF_FD_OTHER);
	ck_assert_str_eq(id.object, "anon_inode:[eventfd]");
	close(e);

	int nl = socket(AF_NETLINK, SOCK_RAW, 0);	/* NETLINK_ROUTE */
	ck_assert_int_ge(nl, 0);
	resolve_ok(getpid(), nl, &id);
	ck_assert_int_eq(id.kind, IPCPERF_FD_OTHER);
	ck_assert_int_eq(id.family, AF_NETLINK);
	assert_socket_object(&id, nl);
	close(nl);
}
END_TEST

static pid_t unused_pid(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	long max = 0;
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%ld", &max), 1);
	fclose(f);
	return (pid_t)(max + 1);	/* above pid_max: never a process */
}

static int count_cb(void *ctx, int fd, const struct ipp_fdid *id)
{
	(void)fd;
	(void)id;
	(*(int *)ctx)++;
	return 0;
}

START_TEST(test_errors)
{
	struct ipp_fdid id;
	int p[2], n = 0;

	ck_assert_int_eq(pipe(p), 0);
	close(p[1]);
	ck_assert_int_eq(ipp_procfd_resolve(getpid(), p[1], NULL, &id), -ENOENT);
	ck_assert_int_eq(ipp_procfd_resolve(getpid(), 1 << 20, NULL, &id), -ENOENT);
	ck_assert_int_eq(ipp_procfd_resolve(getpid(), -1, NULL, &id), -EINVAL);
	ck_assert_int_eq(ipp_procfd_resolve(0, 0, NULL, &id), -EINVAL);
	ck_assert_int_eq(ipp_procfd_resolve(unused_pid(), 0, NULL, &id), -ESRCH);
	ck_assert_int_eq(ipp_procfd_scan(unused_pid(), NULL, count_cb, &n), -ESRCH);
	ck_assert_int_eq(n, 0);

	/* A child that exited: a zombie first, then reaped. */
	pid_t child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0)
		_exit(0);
	siginfo_t si;
	ck_assert_int_eq(waitid(P_PID, (id_t)child, &si, WEXITED | WNOWAIT), 0);
	ck_assert_int_eq(ipp_procfd_resolve(child, 0, NULL, &id), -ESRCH);
	ck_assert_int_eq(ipp_procfd_scan(child, NULL, count_cb, &n), -ESRCH);
	ck_assert_int_eq(waitpid(child, NULL, 0), child);
	ck_assert_int_eq(ipp_procfd_resolve(child, 0, NULL, &id), -ESRCH);
	if (have_pidfd())
		ck_assert_int_eq(ipp_pipe_capacity_via_pidfd(child, 0), -ESRCH);
	ck_assert_int_eq(n, 0);
	close(p[0]);
}
END_TEST

/* Another user's process: /proc says no. As root, drop to nobody first. */
START_TEST(test_eacces)
{
	struct ipp_fdid id;
	int n = 0;

	if (geteuid() != 0) {
		struct stat st;
		ck_assert_int_eq(stat("/proc/1", &st), 0);
		if (st.st_uid == geteuid())
			return;	/* we own pid 1 (a container): nothing to deny */
		ck_assert_int_eq(ipp_procfd_resolve(1, 0, NULL, &id), -EACCES);
		ck_assert_int_eq(ipp_procfd_scan(1, NULL, count_cb, &n), -EACCES);
		ck_assert_int_eq(n, 0);
		return;
	}

	pid_t parent = getpid(), child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		int r1 = ipp_procfd_resolve(parent, 0, NULL, &id);
		int r2 = ipp_procfd_scan(parent, NULL, count_cb, &n);
		int r3 = ipp_pipe_capacity_via_pidfd(parent, 0);
		_exit(r1 == -EACCES && r2 == -EACCES && n == 0 &&
		      (r3 == -EPERM || r3 == -ENOSYS) ? 0 : 1);
	}
	int status;
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
}
END_TEST

/* Everything a scan must find, and what resolve says of it. */
struct seen {
	int nr;
	bool found[1024];
	struct ipp_fdid id[1024];
};

static int seen_cb(void *ctx, int fd, const struct ipp_fdid *id)
{
	struct seen *s = ctx;
	s->nr++;
	if (fd >= 0 && fd < 1024) {
		ck_assert(!s->found[fd]);	/* once each */
		s->found[fd] = true;
		s->id[fd] = *id;
	}
	return 0;
}

/* Counts as count_cb() does, and stops the scan with 7. */
static int stop_cb(void *ctx, int fd, const struct ipp_fdid *id)
{
	count_cb(ctx, fd, id);
	return 7;
}

START_TEST(test_scan)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int fds[12], n = 0, p[2], us[2], ud[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, us), 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_DGRAM, 0, ud), 0);
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_eq(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(lfd, 4), 0);
	ck_assert_int_eq(getsockname(lfd, (struct sockaddr *)&sa, &len), 0);
	int cfd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_eq(connect(cfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	int sfd = accept(lfd, NULL, NULL);
	int udp = socket(AF_INET, SOCK_DGRAM, 0);
	int null = open("/dev/null", O_RDONLY);
	int ev = eventfd(0, 0);
	fds[n++] = p[0]; fds[n++] = p[1]; fds[n++] = us[0]; fds[n++] = us[1];
	fds[n++] = ud[0]; fds[n++] = ud[1]; fds[n++] = lfd; fds[n++] = cfd;
	fds[n++] = sfd; fds[n++] = udp; fds[n++] = null; fds[n++] = ev;

	struct seen *s = calloc(1, sizeof(*s));
	ck_assert_ptr_nonnull(s);
	int r = ipp_procfd_scan(getpid(), NULL, seen_cb, s);
	ck_assert_int_eq(r, s->nr);
	ck_assert_int_ge(r, n);
	for (int i = 0; i < n; i++) {
		struct ipp_fdid one;
		ck_assert_int_lt(fds[i], 1024);
		ck_assert_msg(s->found[fds[i]], "fd %d not found by the scan", fds[i]);
		resolve_ok(getpid(), fds[i], &one);
		ck_assert_int_eq(s->id[fds[i]].kind, one.kind);
		ck_assert_str_eq(s->id[fds[i]].object, one.object);
		ck_assert_uint_eq(s->id[fds[i]].peer_ino, one.peer_ino);
		ck_assert_int_eq(s->id[fds[i]].family, one.family);
		ck_assert_int_eq(s->id[fds[i]].type, one.type);
	}
	ck_assert_int_eq(s->id[p[0]].kind, IPCPERF_FD_PIPE);
	ck_assert_int_eq(s->id[us[0]].kind, IPCPERF_FD_UNIX);
	ck_assert_uint_eq(s->id[us[0]].peer_ino, s->id[us[1]].ino);
	ck_assert_uint_eq(s->id[ud[1]].peer_ino, s->id[ud[0]].ino);
	ck_assert_int_eq(s->id[cfd].kind, IPCPERF_FD_TCP);
	ck_assert_uint_eq(s->id[cfd].peer_ino, s->id[sfd].ino);
	ck_assert_int_eq(s->id[udp].kind, IPCPERF_FD_UDP);
	ck_assert_int_eq(s->id[null].kind, IPCPERF_FD_FILE);
	ck_assert_int_eq(s->id[ev].kind, IPCPERF_FD_OTHER);

	/* Every open fd is reported... */
	for (int fd = 0; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			ck_assert_msg(s->found[fd], "open fd %d not reported", fd);
	/* ... but not the scan's own /proc directory: the lowest free fd then. */
	int dirfd_then = dup(0);
	ck_assert_int_ge(dirfd_then, 0);
	close(dirfd_then);
	memset(s, 0, sizeof(*s));
	r = ipp_procfd_scan(getpid(), NULL, seen_cb, s);
	ck_assert_int_eq(r, s->nr);
	ck_assert(!s->found[dirfd_then]);

	/* A callback's non-zero return stops the scan and is returned. */
	int calls = 0;
	ck_assert_int_eq(ipp_procfd_scan(getpid(), NULL, stop_cb, &calls), 7);
	ck_assert_int_eq(calls, 1);
	ck_assert_int_eq(ipp_procfd_scan(getpid(), NULL, NULL, NULL), -EINVAL);

	free(s);
	for (int i = 0; i < n; i++)
		close(fds[i]);
}
END_TEST

START_TEST(test_sockdb)
{
	struct ipp_sockdb *db = ipp_sockdb__new();
	struct ipp_fdid a, b, viadb;
	int sp[2], p[2];

	ck_assert_ptr_nonnull(db);
	ck_assert_uint_eq(ipp_sockdb__count(db), 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(ipp_sockdb__lookup(db, ino_of(sp[0]), &a), -ENOENT);

	int n = ipp_sockdb__refresh(db);
	ck_assert_int_ge(n, 2);
	ck_assert_uint_eq(ipp_sockdb__count(db), (size_t)n);
	ck_assert_int_eq(ipp_sockdb__lookup(db, ino_of(sp[0]), &a), 0);
	ck_assert_int_eq(a.kind, IPCPERF_FD_UNIX);
	ck_assert_uint_eq(a.ino, ino_of(sp[0]));
	ck_assert_uint_eq(a.peer_ino, ino_of(sp[1]));
	assert_socket_object(&a, sp[0]);
	ck_assert_int_eq(ipp_sockdb__lookup(db, ino_of(p[0]), &b), -ENOENT);
	ck_assert_int_eq(ipp_sockdb__lookup(db, 0, &b), -ENOENT);

	/* resolve through the db = resolve alone. */
	ck_assert_int_eq(ipp_procfd_resolve(getpid(), sp[1], db, &viadb), 0);
	resolve_ok(getpid(), sp[1], &b);
	ck_assert_int_eq(viadb.kind, b.kind);
	ck_assert_uint_eq(viadb.peer_ino, b.peer_ino);
	ck_assert_int_eq(viadb.type, b.type);
	ck_assert_str_eq(viadb.object, b.object);

	/* A unix socket newer than the db is still described (one request by inode). */
	int sp2[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sp2), 0);
	ck_assert_int_eq(ipp_procfd_resolve(getpid(), sp2[0], db, &viadb), 0);
	ck_assert(viadb.diag);
	ck_assert_int_eq(viadb.type, SOCK_SEQPACKET);
	ck_assert_uint_eq(viadb.peer_ino, ino_of(sp2[1]));

	/* A TCP socket newer than the db: kind from its protocol name only. */
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int t = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_eq(bind(t, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(t, 1), 0);
	ck_assert_int_eq(ipp_procfd_resolve(getpid(), t, db, &viadb), 0);
	ck_assert_int_eq(viadb.kind, IPCPERF_FD_TCP);
	ck_assert(!viadb.diag);
	/* ... and fully after a refresh. */
	ck_assert_int_gt(ipp_sockdb__refresh(db), 0);	/* counts are system-wide: no more */
	ck_assert_int_eq(ipp_procfd_resolve(getpid(), t, db, &viadb), 0);
	ck_assert(viadb.diag);
	ck_assert_int_eq(viadb.state, TCP_LISTEN);
	assert_names(&viadb, t, false);

	ipp_sockdb__delete(db);
	ipp_sockdb__delete(NULL);
	close(t);
	close(sp[0]);
	close(sp[1]);
	close(sp2[0]);
	close(sp2[1]);
	close(p[0]);
	close(p[1]);
}
END_TEST

START_TEST(test_pipe_capacity)
{
	int p[2], sp[2];

	if (!have_pidfd())
		return;
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(ipp_pipe_capacity_via_pidfd(getpid(), p[0]), fcntl(p[0], F_GETPIPE_SZ));
	ck_assert_int_ge(fcntl(p[1], F_SETPIPE_SZ, 128 * 1024), 128 * 1024);
	ck_assert_int_eq(ipp_pipe_capacity_via_pidfd(getpid(), p[1]), fcntl(p[1], F_GETPIPE_SZ));
	ck_assert_int_eq(ipp_pipe_capacity_via_pidfd(getpid(), p[0]), 128 * 1024);

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	ck_assert_int_eq(ipp_pipe_capacity_via_pidfd(getpid(), sp[0]), -EINVAL);
	/* Not sp[0] once closed: pidfd_open would reuse that number. */
	int unused = 1000;
	while (fcntl(unused, F_GETFD) >= 0)
		unused++;
	ck_assert_int_eq(ipp_pipe_capacity_via_pidfd(getpid(), unused), -EBADF);
	close(sp[0]);
	ck_assert_int_eq(ipp_pipe_capacity_via_pidfd(unused_pid(), 0), -ESRCH);
	ck_assert_int_eq(ipp_pipe_capacity_via_pidfd(getpid(), -1), -EINVAL);
	close(sp[1]);
	close(p[0]);
	close(p[1]);
}
END_TEST

/* In a child: hands @len bytes of @msg to the parent on @report_fd, waits until it is done. */
__attribute__((noreturn))
static void report_and_wait(int report_fd, int go_fd, const void *msg, size_t len)
{
	char c;

	if (write(report_fd, msg, len) != (ssize_t)len)
		_exit(1);
	(void)!read(go_fd, &c, 1);	/* until the parent closes its end of go */
	_exit(0);
}

/*
 * Another process: a child makes a pipe of a known size and keeps one end of
 * a socketpair made before the fork; the parent looks at the child's fds.
 */
START_TEST(test_cross_process)
{
	int sp[2], report[2], go[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	ck_assert_int_eq(pipe(report), 0);
	ck_assert_int_eq(pipe(go), 0);
	pid_t child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		int cp[2], msg[2];

		close(sp[0]);
		close(report[0]);
		close(go[1]);
		if (pipe(cp) || fcntl(cp[0], F_SETPIPE_SZ, 32768) < 0)
			_exit(1);
		msg[0] = cp[0];
		msg[1] = sp[1];
		report_and_wait(report[1], go[0], msg, sizeof(msg));
	}
	int msg[2];
	close(sp[1]);
	close(report[1]);
	close(go[0]);
	ck_assert_int_eq(read(report[0], msg, sizeof(msg)), sizeof(msg));

	struct ipp_fdid mine, theirs, pipe_id;
	resolve_ok(getpid(), sp[0], &mine);
	resolve_ok(child, msg[1], &theirs);
	ck_assert_int_eq(theirs.kind, IPCPERF_FD_UNIX);
	ck_assert_uint_eq(mine.peer_ino, theirs.ino);
	ck_assert_uint_eq(theirs.peer_ino, mine.ino);

	resolve_ok(child, msg[0], &pipe_id);
	ck_assert_int_eq(pipe_id.kind, IPCPERF_FD_PIPE);
	ck_assert_int_eq(strncmp(pipe_id.object, "pipe:[", 6), 0);
	if (have_pidfd())
		ck_assert_int_eq(ipp_pipe_capacity_via_pidfd(child, msg[0]), 32768);

	struct seen *s = calloc(1, sizeof(*s));
	ck_assert_ptr_nonnull(s);
	ck_assert_int_gt(ipp_procfd_scan(child, NULL, seen_cb, s), 0);
	ck_assert(s->found[msg[0]] && s->found[msg[1]]);
	ck_assert_uint_eq(s->id[msg[0]].ino, pipe_id.ino);
	ck_assert_uint_eq(s->id[msg[1]].peer_ino, mine.ino);
	free(s);

	close(go[1]);	/* release the child */
	int status;
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(report[0]);
	close(sp[0]);
}
END_TEST

/* What test_other_netns asks of @child's sockets: @fd listener, client, server, unix pair. */
static void check_other_netns(pid_t child, const int fd[5], bool root)
{
	struct ipp_sockdb *db = ipp_sockdb__new();
	struct ipp_fdid c, s, u0, u1;
	struct seen *sc = calloc(1, sizeof(*sc));

	ck_assert_ptr_nonnull(db);
	ck_assert_ptr_nonnull(sc);
	ck_assert_int_ge(ipp_sockdb__refresh(db), 0);	/* ours: without the child's sockets */
	ck_assert_int_eq(ipp_procfd_resolve(child, fd[1], db, &c), 0);
	ck_assert_int_eq(ipp_procfd_resolve(child, fd[2], db, &s), 0);
	ck_assert_int_eq(c.kind, IPCPERF_FD_TCP);
	ck_assert(c.diag && s.diag && c.loopback);
	ck_assert_int_eq(c.state, TCP_ESTABLISHED);
	ck_assert_int_eq(c.local.sa.sa_family, AF_INET);
	ck_assert_mem_eq(&c.local.in, &s.remote.in, sizeof(c.local.in));
	ck_assert_mem_eq(&c.remote.in, &s.local.in, sizeof(c.remote.in));
	ck_assert_uint_ne(ntohs(c.remote.in.sin_port), 0);
	if (root) {
		ck_assert_int_eq(ipp_procfd_resolve(child, fd[3], db, &u0), 0);
		ck_assert_int_eq(ipp_procfd_resolve(child, fd[4], db, &u1), 0);
		ck_assert_uint_eq(u0.peer_ino, u1.ino);
		ck_assert_uint_eq(u1.peer_ino, u0.ino);
		/* The scan at an attach: the namespace's own table, inet peers linked. */
		int nsfd = ipp_procfd_other_netns(child);
		ck_assert_int_ge(nsfd, 0);
		ck_assert_int_ge(ipp_sockdb__refresh_in(db, nsfd), 3);
		close(nsfd);
		ck_assert_int_gt(ipp_procfd_scan(child, db, seen_cb, sc), 0);
		ck_assert_uint_eq(sc->id[fd[1]].peer_ino, s.ino);
		ck_assert_uint_eq(sc->id[fd[2]].peer_ino, c.ino);
		ck_assert_uint_eq(sc->id[fd[3]].peer_ino, u1.ino);
	}
	free(sc);
	ipp_sockdb__delete(db);
}

/* The child of test_other_netns: in a network namespace of its own, lo up. */
static int netns_child(bool as_root)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd;

	if (unshare(as_root ? CLONE_NEWNET : CLONE_NEWUSER | CLONE_NEWNET) < 0)
		return -1;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		return -1;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		return -1;
	close(fd);
	return 0;
}

/*
 * The sockets of a process in another network namespace, which our
 * sock_diag does not see: a TCP connection by its addresses (a copy of
 * the fd), a unix socketpair by its peers (its namespace's sock_diag:
 * root); a scan of the process (what the attach reads) names the TCP ends
 * as each other's peers too. Not root: in a user namespace of its own, the
 * addresses only, if this machine lets users make one.
 */
START_TEST(test_other_netns)
{
	bool root = geteuid() == 0;
	int report[2], go[2], msg[5];

	if (!have_pidfd())
		return;
	ck_assert_int_eq(pipe(report), 0);
	ck_assert_int_eq(pipe(go), 0);
	pid_t child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		struct sockaddr_in sa = { .sin_family = AF_INET,
					  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t len = sizeof(sa);
		int m[5] = { -1, -1, -1, -1, -1 }, sp[2];

		close(report[0]);
		close(go[1]);
		if (netns_child(root) == 0 && (m[0] = socket(AF_INET, SOCK_STREAM, 0)) >= 0 &&
		    bind(m[0], (struct sockaddr *)&sa, len) == 0 && listen(m[0], 1) == 0 &&
		    getsockname(m[0], (struct sockaddr *)&sa, &len) == 0 &&
		    (m[1] = socket(AF_INET, SOCK_STREAM, 0)) >= 0 &&
		    connect(m[1], (struct sockaddr *)&sa, len) == 0 &&
		    (m[2] = accept(m[0], NULL, NULL)) >= 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == 0) {
			m[3] = sp[0];
			m[4] = sp[1];
		}
		report_and_wait(report[1], go[0], m, sizeof(m));
	}
	close(report[1]);
	close(go[0]);
	ck_assert_int_eq(read(report[0], msg, sizeof(msg)), sizeof(msg));
	if (msg[4] >= 0)
		check_other_netns(child, msg, root);
	else
		ck_assert_msg(!root, "root could not make a network namespace");
	close(go[1]);
	int status;
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(report[0]);
}
END_TEST

Suite *procfd_suite(void)
{
	Suite *s = suite_create("procfd");
	TCase *tc = tcase_create("procfd");

	tcase_add_test(tc, test_kind_names);
	tcase_add_test(tc, test_inet_endpoint);
	tcase_add_test(tc, test_pipe);
	tcase_add_test(tc, test_fifo);
	tcase_add_test(tc, test_unix_socketpairs);
	tcase_add_test(tc, test_unix_queue);
	tcase_add_test(tc, test_unix_named);
	tcase_add_test(tc, test_tcp_loopback);
	tcase_add_test(tc, test_udp);
	tcase_add_test(tc, test_files);
	tcase_add_test(tc, test_tty_and_other);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_eacces);
	tcase_add_test(tc, test_scan);
	tcase_add_test(tc, test_sockdb);
	tcase_add_test(tc, test_pipe_capacity);
	tcase_add_test(tc, test_cross_process);
	tcase_add_test(tc, test_other_netns);
	suite_add_tcase(s, tc);
	return s;
}
