/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fdwork: a process tree of short-lived processes, each of whose fds lives
 * within its process's life, and which writes down what every fd is, for
 * tests/test-fdid.sh.
 *
 *   fdwork TRUTH
 *
 * Nothing is printed on stdout or stderr when all goes well (exit 0). A call
 * that fails or returns what it should not is said on stderr and that
 * process exits 3; the root then exits 3 too, and writes no TRUTH.
 *
 * The root (R) forks one child per case below, one case after the other.
 * Children do not exec: everything they do is in this file. A child opens
 * its fds, moves known bytes through them, closes them or hands them on, and
 * exits. In the cases marked "-> peer", once its part is done the child
 * forks a peer and exits at once, without waiting for it: the peer goes on
 * with the fds it inherited (R is a subreaper, PR_SET_CHILD_SUBREAPER, so it
 * reaps the peer too). No process waits for another to start.
 *
 * Each process's life, from fork's return in it to just before _exit, is
 * taken with CLOCK_MONOTONIC (the vDSO: no system call); with the time from
 * before the fork that made it to R's waitpid that reaped it, it is kept in
 * memory shared with R (MAP_SHARED | MAP_ANONYMOUS: no fd, no I/O). A
 * process's fds live within its life. The children keep to system calls and
 * plain stores: what they learnt (fd numbers, st_ino, addresses, counts) is
 * stored raw, and R formats it once they are gone (snprintf and realpath in
 * a child would cost it more page faults than all its I/O).
 *
 * How long that is depends on the machine. On the 2-CPU VM this was written
 * on (a page fault there costs tens of microseconds), traced by ipcperf:
 * the children without a peer and the peers live 0.2 to 0.9 ms; the
 * children that fork a peer 1 to 3 ms, most of it in fork() itself (0.1 to
 * 2 ms there, more in task scope, where the kernel copies ipcperf's
 * inherited perf events into the child). All far below the 25 ms between
 * two reads of the rings, which is what naming fds from /proc needs. D is
 * best on a tmpfs: on a disk filesystem creating a file takes hundreds of
 * microseconds.
 *
 * Every byte count is distinct per fd (1001, 1002, ...), so that each row of
 * ipcperf's report is told apart by its counts alone, and every read returns
 * its whole count in one call (MSG_WAITALL, or the bytes are in the channel
 * before the read, one write each), so that the number of calls is exact:
 *
 *   file        a file in a temporary directory D: write 1001 bytes, pread64
 *               them back
 *   reuse       a file dup2'ed onto fd 50, written (1002) and closed; a file
 *               dup2'ed onto fd 51, written (1004) and left open; then a
 *               pipe, its write end dup2'ed onto fd 50 (free again), its read
 *               end onto fd 51 (dup2 closes the file there); 1003 bytes
 *               written on fd 50 -> peer: reads them on fd 51. Two rows for
 *               fd 50 in the child (a file, then a pipe), one for its fd 51
 *               (the file), the peer's fd 51 (the pipe, inherited)
 *   stream      socketpair(AF_UNIX, SOCK_STREAM): 1005 bytes one way (write,
 *               read), 1006 back (send, recv)
 *   seqpacket   socketpair(AF_UNIX, SOCK_SEQPACKET): 1007 (write) and 1008
 *               (sendmsg) bytes sent on one end -> peer: receives them on the
 *               other (read, recvmsg), message by message
 *   listener    a unix stream socket bound in D, listen, connect, accept4;
 *               1009 bytes written by the client -> peer: reads them on the
 *               accepted socket, answers 1010, reads them on the client
 *   tcp         a TCP listener on 127.0.0.1 port 0, connect, accept; 1011
 *               bytes written by the client -> peer: receives them on the
 *               accepted socket, answers 1012, receives them on the client
 *   scm         a socketpair and a pipe; a file opened in D, sent with the
 *               pipe's write end in one SCM_RIGHTS message of 15 bytes, then
 *               both closed -> peer: receives the two fds (recvmsg), writes
 *               1013 bytes to the file and reads them back, writes 1014 bytes
 *               through the pipe end it received and reads them out of the
 *               read end it inherited
 *   vec         writev of 1016 bytes (3 buffers) to /dev/null, then readv of
 *               1017 (2 buffers) from /dev/zero, which gets the same fd
 *   anon        fds of no path: an eventfd (eventfd2: 8 bytes written, 8
 *               read), then a memfd_create file on the same fd (1018
 *               written, pread64 back); their objects as /proc names them
 *               while they are open (readlink of /proc/self/fd/N: the
 *               kernel's d_path), "anon_inode:[eventfd]", "/memfd:fdwork
 *               (deleted)"
 *
 * TRUTH, written by R once every process is reaped, in one write: one line
 * per row ipcperf must report for the workload, fields separated by a
 * single tab,
 *
 *   pid fd kind object detail read_ops read_bytes write_ops write_bytes
 *
 * (detail may be empty: two tabs in a row), for the fds with I/O of every
 * child and peer, and R's row for TRUTH itself (one write: its byte count is
 * TRUTH's size, this line included). Rows are computed from the kernel's
 * answers to questions other than ipcperf's: fstat's st_ino for pipe:[N] and
 * socket:[N], realpath() for files, getsockname and getpeername for the TCP
 * detail ("LOCAL -> REMOTE"), and for the unix detail ("peer socket:[N]")
 * the st_ino of the other end, which the process holds. No field is left
 * out. Rows left out: the dynamic loader's in R (its reads of the libraries
 * before main), which depend on the machine; the test checks them on their
 * own.
 *
 * Then lines starting with '#', which are not rows:
 *   # life PID ROLE LIVED_NS FORK_TO_REAP_NS
 *   # root PID
 * one life line per child and peer: LIVED_NS its own measure of its life,
 * FORK_TO_REAP_NS from before its fork to R's waitpid (an upper bound: the
 * fork, the wait for a CPU, the exit and R's wakeup included).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What a process learnt about one of its fds, raw; R formats it. */
struct raw_row {
	int fd;
	char kind;			/* 'f' file, 'p' pipe, 'u' unix, 't' tcp, 'o' other,
					   'm' a file whose object is as /proc names it */
	const char *file;		/* 'f': a name in D, or an absolute path */
	char object[64];		/* 'o', 'm': what /proc/self/fd/N links to */
	unsigned long long ino;		/* 'p', 'u', 't': st_ino */
	unsigned long long peer_ino;	/* 'u': st_ino of the other end */
	struct sockaddr_in local, remote;	/* 't' */
	long rops, rbytes, wops, wbytes;
};

#define MAX_ROWS 6

/* One process, in the shared memory. */
struct proc_slot {
	pid_t pid;
	const char *role;
	uint64_t fork_ns, start_ns, end_ns, reap_ns;
	int nrows;
	struct raw_row row[MAX_ROWS];
};

#define MAX_SLOTS 24

struct shared {
	int next;			/* slots taken, by any process of the tree */
	struct proc_slot slot[MAX_SLOTS];
};

static struct shared *shm;
static char dir[PATH_MAX];		/* D */
static char buf[4096];			/* what is written: a known pattern */
static char in[4096];			/* what is read */

static void die(const char *fmt, ...)
{
	va_list ap;
	int e = errno;

	fprintf(stderr, "fdwork[%d]: ", (int)getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (e)
		fprintf(stderr, ": %s", strerror(e));
	fputc('\n', stderr);
	_exit(3);
}

/* @cond must hold, or this process says what it was doing and exits 3. */
#define CHECK(cond, ...)                 \
	do {                             \
		if (!(cond))             \
			die(__VA_ARGS__); \
	} while (0)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------ in the children */

static struct raw_row *add_row(struct proc_slot *s, int fd, char kind)
{
	struct raw_row *r;

	CHECK(s->nrows < MAX_ROWS, "%s: too many rows", s->role);
	r = &s->row[s->nrows++];
	r->fd = fd;
	r->kind = kind;
	return r;
}

static void io(struct raw_row *r, long rops, long rbytes, long wops, long wbytes)
{
	r->rops = rops;
	r->rbytes = rbytes;
	r->wops = wops;
	r->wbytes = wbytes;
}

static void file_row(struct proc_slot *s, int fd, const char *file, long rops, long rbytes,
		     long wops, long wbytes)
{
	struct raw_row *r = add_row(s, fd, 'f');

	r->file = file;
	io(r, rops, rbytes, wops, wbytes);
}

static unsigned long long ino_of(int fd)
{
	struct stat st;

	CHECK(fstat(fd, &st) == 0, "fstat %d", fd);
	return (unsigned long long)st.st_ino;
}

/* A pipe or socket row: ino (and the peer's) learnt before, maybe by the parent. */
static void ino_row(struct proc_slot *s, int fd, char kind, unsigned long long ino,
		    unsigned long long peer_ino, long rops, long rbytes, long wops, long wbytes)
{
	struct raw_row *r = add_row(s, fd, kind);

	r->ino = ino;
	r->peer_ino = peer_ino;
	io(r, rops, rbytes, wops, wbytes);
}

static void tcp_addrs(int fd, struct sockaddr_in *local, struct sockaddr_in *remote)
{
	socklen_t ll = sizeof(*local), rl = sizeof(*remote);

	CHECK(getsockname(fd, (struct sockaddr *)local, &ll) == 0 &&
		      getpeername(fd, (struct sockaddr *)remote, &rl) == 0,
	      "getsockname/getpeername %d", fd);
}

static void in_dir(char *out, const char *name)
{
	CHECK((size_t)snprintf(out, PATH_MAX, "%s/%s", dir, name) < PATH_MAX, "path too long");
}

static void xwrite(int fd, size_t n)
{
	ssize_t got = write(fd, buf, n);

	CHECK(got == (ssize_t)n, "write fd %d, %zu bytes: %zd", fd, n, got);
}

/* One read of @n bytes that must return them all, and what was written. */
static void xread(int fd, size_t n)
{
	ssize_t got = read(fd, in, n);

	CHECK(got == (ssize_t)n && !memcmp(in, buf, n), "read fd %d, %zu bytes: %zd", fd, n, got);
}

static void xpread(int fd, size_t n)
{
	ssize_t got = pread(fd, in, n, 0);

	CHECK(got == (ssize_t)n && !memcmp(in, buf, n), "pread fd %d, %zu bytes: %zd", fd, n, got);
}

static void xsend(int fd, size_t n)
{
	ssize_t got = send(fd, buf, n, 0);

	CHECK(got == (ssize_t)n, "send fd %d, %zu bytes: %zd", fd, n, got);
}

static void xrecv(int fd, size_t n)
{
	ssize_t got = recv(fd, in, n, MSG_WAITALL);

	CHECK(got == (ssize_t)n && !memcmp(in, buf, n), "recv fd %d, %zu bytes: %zd", fd, n, got);
}

static void xclose(int fd)
{
	CHECK(close(fd) == 0, "close %d", fd);
}

static void xdup2(int from, int to)
{
	CHECK(dup2(from, to) == to, "dup2 %d %d", from, to);
}

static int xopen(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0600);

	CHECK(fd >= 0, "open %s", path);
	return fd;
}

/* ------------------------------------------------------------------ processes */

typedef void case_fn(struct proc_slot *s, void *arg);

/* Fork a process that runs @fn(@arg) and exits. The caller does not wait. */
static void spawn(const char *role, case_fn *fn, void *arg)
{
	int i = __atomic_fetch_add(&shm->next, 1, __ATOMIC_SEQ_CST);
	struct proc_slot *s;
	pid_t pid;

	CHECK(i < MAX_SLOTS, "too many processes");
	s = &shm->slot[i];
	s->role = role;
	s->fork_ns = now_ns();
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		s->start_ns = now_ns();
		s->pid = getpid();
		fn(s, arg);
		s->end_ns = now_ns();
		_exit(0);
	}
}

/* ------------------------------------------------------------------ the cases */

static void case_file(struct proc_slot *s, void *arg)
{
	char path[PATH_MAX];
	int fd;

	in_dir(path, "file");
	fd = xopen(path, O_RDWR | O_CREAT | O_TRUNC);
	xwrite(fd, 1001);
	xpread(fd, 1001);
	xclose(fd);
	file_row(s, fd, "file", 1, 1001, 1, 1001);
}

static unsigned long long reuse_ino;

static void reuse_peer(struct proc_slot *s, void *arg)
{
	xread(51, 1003);
	ino_row(s, 51, 'p', reuse_ino, 0, 1, 1003, 0, 0);
}

static void case_reuse(struct proc_slot *s, void *arg)
{
	char path[PATH_MAX];
	int fd, p[2];

	/* fd 50: a file, written, closed. */
	in_dir(path, "reuse50");
	fd = xopen(path, O_WRONLY | O_CREAT | O_TRUNC);
	CHECK(fd < 50, "open gave fd %d", fd);
	xdup2(fd, 50);
	xclose(fd);
	xwrite(50, 1002);
	xclose(50);
	file_row(s, 50, "reuse50", 0, 0, 1, 1002);
	/* fd 51: a file, written, left open for dup2 to close. */
	in_dir(path, "reuse51");
	fd = xopen(path, O_WRONLY | O_CREAT | O_TRUNC);
	xdup2(fd, 51);
	xclose(fd);
	xwrite(51, 1004);
	file_row(s, 51, "reuse51", 0, 0, 1, 1004);
	/* The pipe, onto 50 and 51. */
	CHECK(pipe(p) == 0, "pipe");
	CHECK(p[0] < 50 && p[1] < 50, "pipe gave fds %d %d", p[0], p[1]);
	xdup2(p[1], 50);
	xdup2(p[0], 51);
	xclose(p[0]);
	xclose(p[1]);
	xwrite(50, 1003);
	reuse_ino = ino_of(50);
	CHECK(ino_of(51) == reuse_ino, "fd 51 is not the pipe");
	ino_row(s, 50, 'p', reuse_ino, 0, 0, 0, 1, 1003);
	spawn("reuse-peer", reuse_peer, NULL);
}

static void case_stream(struct proc_slot *s, void *arg)
{
	unsigned long long i0, i1;
	int sv[2];

	CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0, "socketpair stream");
	xwrite(sv[0], 1005);
	xread(sv[1], 1005);
	xsend(sv[1], 1006);
	xrecv(sv[0], 1006);
	i0 = ino_of(sv[0]);
	i1 = ino_of(sv[1]);
	xclose(sv[0]);
	xclose(sv[1]);
	ino_row(s, sv[0], 'u', i0, i1, 1, 1006, 1, 1005);
	ino_row(s, sv[1], 'u', i1, i0, 1, 1005, 1, 1006);
}

/* A pair of fds and their inodes, for a peer. */
static struct {
	int fd[2];
	unsigned long long ino[2];
} pair;

static void seqpacket_peer(struct proc_slot *s, void *arg)
{
	struct iovec iov = { .iov_base = in, .iov_len = 2000 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t got;

	/* Message by message: a read of 2000 bytes gets one message. */
	got = read(pair.fd[0], in, 2000);
	CHECK(got == 1007, "read seqpacket: %zd", got);
	got = recvmsg(pair.fd[0], &m, 0);
	CHECK(got == 1008, "recvmsg seqpacket: %zd", got);
	ino_row(s, pair.fd[0], 'u', pair.ino[0], pair.ino[1], 2, 2015, 0, 0);
}

static void case_seqpacket(struct proc_slot *s, void *arg)
{
	struct iovec iov = { .iov_base = buf, .iov_len = 1008 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t got;

	CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair.fd) == 0,
	      "socketpair seqpacket");
	xwrite(pair.fd[1], 1007);
	got = sendmsg(pair.fd[1], &m, 0);
	CHECK(got == 1008, "sendmsg seqpacket: %zd", got);
	pair.ino[0] = ino_of(pair.fd[0]);
	pair.ino[1] = ino_of(pair.fd[1]);
	ino_row(s, pair.fd[1], 'u', pair.ino[1], pair.ino[0], 0, 0, 2, 2015);
	spawn("seqpacket-peer", seqpacket_peer, NULL);
}

/* A connection: the client's fd, the accepted fd; inodes, TCP addresses. */
static struct {
	int c, a;
	unsigned long long ci, ai;
	struct sockaddr_in cl, cr, al, ar;
} conn;

static void listener_peer(struct proc_slot *s, void *arg)
{
	xread(conn.a, 1009);
	xwrite(conn.a, 1010);
	xread(conn.c, 1010);
	ino_row(s, conn.a, 'u', conn.ai, conn.ci, 1, 1009, 1, 1010);
	ino_row(s, conn.c, 'u', conn.ci, conn.ai, 1, 1010, 0, 0);
}

static void case_listener(struct proc_slot *s, void *arg)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int l;

	CHECK((size_t)snprintf(a.sun_path, sizeof(a.sun_path), "%s/sock", dir) < sizeof(a.sun_path),
	      "socket path too long");
	l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(l >= 0 && bind(l, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(l, 4) == 0,
	      "unix listener");
	conn.c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(conn.c >= 0 && connect(conn.c, (struct sockaddr *)&a, sizeof(a)) == 0, "unix connect");
	conn.a = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	CHECK(conn.a >= 0, "accept4");
	CHECK(unlink(a.sun_path) == 0, "unlink %s", a.sun_path);
	xwrite(conn.c, 1009);
	conn.ci = ino_of(conn.c);
	conn.ai = ino_of(conn.a);
	ino_row(s, conn.c, 'u', conn.ci, conn.ai, 0, 0, 1, 1009);
	spawn("listener-peer", listener_peer, NULL);
}

static void tcp_row(struct proc_slot *s, int fd, unsigned long long ino, const struct sockaddr_in *l,
		    const struct sockaddr_in *r, long rops, long rbytes, long wops, long wbytes)
{
	struct raw_row *row = add_row(s, fd, 't');

	row->ino = ino;
	row->local = *l;
	row->remote = *r;
	io(row, rops, rbytes, wops, wbytes);
}

static void tcp_peer(struct proc_slot *s, void *arg)
{
	xrecv(conn.a, 1011);
	xwrite(conn.a, 1012);
	xrecv(conn.c, 1012);
	tcp_row(s, conn.a, conn.ai, &conn.al, &conn.ar, 1, 1011, 1, 1012);
	tcp_row(s, conn.c, conn.ci, &conn.cl, &conn.cr, 1, 1012, 0, 0);
}

static void case_tcp(struct proc_slot *s, void *arg)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int l;

	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(l >= 0 && bind(l, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(l, 4) == 0 &&
		      getsockname(l, (struct sockaddr *)&a, &al) == 0,
	      "tcp listener");
	conn.c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(conn.c >= 0 && connect(conn.c, (struct sockaddr *)&a, sizeof(a)) == 0, "tcp connect");
	conn.a = accept(l, NULL, NULL);
	CHECK(conn.a >= 0, "accept");
	xwrite(conn.c, 1011);
	conn.ci = ino_of(conn.c);
	conn.ai = ino_of(conn.a);
	tcp_addrs(conn.c, &conn.cl, &conn.cr);
	tcp_addrs(conn.a, &conn.al, &conn.ar);
	tcp_row(s, conn.c, conn.ci, &conn.cl, &conn.cr, 0, 0, 1, 1011);
	spawn("tcp-peer", tcp_peer, NULL);
}

/* The scm case: the socketpair, the pipe, their inodes. */
static struct {
	int u[2], p[2];
	unsigned long long ui[2], pi;
} scm;

/* The message that passes the two fds: 15 bytes and room for the fds. */
struct scm_msg {
	struct iovec iov;
	struct msghdr m;
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(2 * sizeof(int))];
	} ctl;
};

static void scm_msg_init(struct scm_msg *x, char *data)
{
	x->iov = (struct iovec){ .iov_base = data, .iov_len = 15 };
	x->m = (struct msghdr){ .msg_iov = &x->iov, .msg_iovlen = 1,
				.msg_control = x->ctl.space, .msg_controllen = sizeof(x->ctl.space) };
}

static void scm_peer(struct proc_slot *s, void *arg)
{
	struct scm_msg x;
	struct cmsghdr *c;
	ssize_t got;
	int fds[2];

	scm_msg_init(&x, in);
	got = recvmsg(scm.u[0], &x.m, MSG_CMSG_CLOEXEC);
	CHECK(got == 15 && !memcmp(in, buf, 15), "recvmsg SCM_RIGHTS: %zd", got);
	c = CMSG_FIRSTHDR(&x.m);
	errno = 0;
	CHECK(c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		      c->cmsg_len == CMSG_LEN(sizeof(fds)) && !(x.m.msg_flags & MSG_CTRUNC),
	      "recvmsg: not 2 fds");
	memcpy(fds, CMSG_DATA(c), sizeof(fds));
	ino_row(s, scm.u[0], 'u', scm.ui[0], scm.ui[1], 1, 15, 0, 0);
	/* The file. */
	xwrite(fds[0], 1013);
	xpread(fds[0], 1013);
	file_row(s, fds[0], "passed", 1, 1013, 1, 1013);
	/* The pipe: in by the end received, out of the end inherited. */
	xwrite(fds[1], 1014);
	xread(scm.p[0], 1014);
	ino_row(s, fds[1], 'p', scm.pi, 0, 0, 0, 1, 1014);
	ino_row(s, scm.p[0], 'p', scm.pi, 0, 1, 1014, 0, 0);
}

static void case_scm(struct proc_slot *s, void *arg)
{
	char path[PATH_MAX];
	struct scm_msg x;
	struct cmsghdr *c;
	ssize_t got;
	int fds[2];

	CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, scm.u) == 0 &&
		      pipe2(scm.p, O_CLOEXEC) == 0,
	      "socketpair/pipe");
	in_dir(path, "passed");
	fds[0] = xopen(path, O_RDWR | O_CREAT | O_TRUNC);
	fds[1] = scm.p[1];
	scm_msg_init(&x, buf);
	c = CMSG_FIRSTHDR(&x.m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(c), fds, sizeof(fds));
	got = sendmsg(scm.u[1], &x.m, 0);
	CHECK(got == 15, "sendmsg SCM_RIGHTS: %zd", got);
	/* In flight only now: the peer gets them from the socket. */
	xclose(fds[0]);
	xclose(fds[1]);
	scm.ui[0] = ino_of(scm.u[0]);
	scm.ui[1] = ino_of(scm.u[1]);
	scm.pi = ino_of(scm.p[0]);
	ino_row(s, scm.u[1], 'u', scm.ui[1], scm.ui[0], 0, 0, 1, 15);
	spawn("scm-peer", scm_peer, NULL);
}

static void case_vec(struct proc_slot *s, void *arg)
{
	struct iovec w[3] = { { buf, 300 }, { buf + 300, 316 }, { buf + 616, 400 } };
	struct iovec r[2] = { { in, 500 }, { in + 500, 517 } };
	ssize_t got;
	int fd;

	fd = xopen("/dev/null", O_WRONLY);
	got = writev(fd, w, 3);
	CHECK(got == 1016, "writev /dev/null: %zd", got);
	xclose(fd);
	file_row(s, fd, "/dev/null", 0, 0, 1, 1016);
	fd = xopen("/dev/zero", O_RDONLY);
	got = readv(fd, r, 2);
	CHECK(got == 1017, "readv /dev/zero: %zd", got);
	xclose(fd);
	file_row(s, fd, "/dev/zero", 1, 1017, 0, 0);
}

/* A row named as /proc names the fd now (the kernel's d_path), for fds with no path of their own. */
static void proc_row(struct proc_slot *s, int fd, char kind, long rops, long rbytes, long wops,
		     long wbytes)
{
	struct raw_row *r = add_row(s, fd, kind);
	char link[32];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, r->object, sizeof(r->object) - 1);
	CHECK(n > 0 && (size_t)n < sizeof(r->object) - 1, "readlink %s", link);
	r->object[n] = '\0';
	io(r, rops, rbytes, wops, wbytes);
}

static void case_anon(struct proc_slot *s, void *arg)
{
	uint64_t v = 1;
	ssize_t got;
	int fd;

	fd = eventfd(0, EFD_CLOEXEC);
	CHECK(fd >= 0, "eventfd");
	CHECK(write(fd, &v, sizeof(v)) == sizeof(v), "write eventfd");
	CHECK(read(fd, &v, sizeof(v)) == sizeof(v), "read eventfd");
	proc_row(s, fd, 'o', 1, 8, 1, 8);
	xclose(fd);
	fd = memfd_create("fdwork", MFD_CLOEXEC);
	CHECK(fd >= 0, "memfd_create");
	xwrite(fd, 1018);
	got = pread(fd, in, 1018, 0);
	CHECK(got == 1018, "pread64 memfd: %zd", got);
	proc_row(s, fd, 'm', 1, 1018, 1, 1018);
	xclose(fd);
}

/* ------------------------------------------------------------------ the root */

static const struct {
	const char *role;
	case_fn *fn;
} cases[] = {
	{ "file", case_file },
	{ "reuse", case_reuse },
	{ "stream", case_stream },
	{ "seqpacket", case_seqpacket },
	{ "listener", case_listener },
	{ "tcp", case_tcp },
	{ "scm", case_scm },
	{ "vec", case_vec },
	{ "anon", case_anon },
};

/* Reap every process of the case: the child, and the peer it left to R. */
static void reap_all(void)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, 0)) > 0) {
		uint64_t t = now_ns();
		int i;

		for (i = 0; i < shm->next && shm->slot[i].pid != pid; i++)
			;
		errno = 0;
		CHECK(i < shm->next, "reaped pid %d, not one of ours", (int)pid);
		shm->slot[i].reap_ns = t;
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s (pid %d) failed: status 0x%x",
		      shm->slot[i].role, (int)pid, status);
	}
	CHECK(errno == ECHILD, "waitpid");
}

static size_t out_len;
static char out[MAX_SLOTS * MAX_ROWS * (PATH_MAX + 128)];

static void put(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out + out_len, sizeof(out) - out_len, fmt, ap);
	va_end(ap);
	CHECK(n >= 0 && (size_t)n < sizeof(out) - out_len, "TRUTH too long");
	out_len += (size_t)n;
}

static void put_addr(const struct sockaddr_in *a)
{
	char ip[INET_ADDRSTRLEN];

	CHECK(inet_ntop(AF_INET, &a->sin_addr, ip, sizeof(ip)), "inet_ntop");
	put("%s:%u", ip, (unsigned)ntohs(a->sin_port));
}

/* One row, formatted: while D and its files are still there (realpath). */
static void put_row(pid_t pid, const struct raw_row *r)
{
	static const char *const kinds[] = { ['f'] = "file", ['p'] = "pipe", ['u'] = "unix",
					     ['t'] = "tcp", ['o'] = "other", ['m'] = "file" };
	char path[PATH_MAX], rp[PATH_MAX];

	put("%d\t%d\t%s\t", (int)pid, r->fd, kinds[(unsigned char)r->kind]);
	switch (r->kind) {
	case 'f':
		if (r->file[0] == '/')
			snprintf(path, sizeof(path), "%s", r->file);
		else
			in_dir(path, r->file);
		CHECK(realpath(path, rp), "realpath %s", path);
		put("%s\t", rp);
		break;
	case 'p':
		put("pipe:[%llu]\t", r->ino);
		break;
	case 'o':
	case 'm':
		put("%s\t", r->object);
		break;
	case 'u':
		put("socket:[%llu]\tpeer socket:[%llu]", r->ino, r->peer_ino);
		break;
	case 't':
		put("socket:[%llu]\t", r->ino);
		put_addr(&r->local);
		put(" -> ");
		put_addr(&r->remote);
		break;
	}
	put("\t%ld\t%ld\t%ld\t%ld\n", r->rops, r->rbytes, r->wops, r->wbytes);
}

static void remove_dir(void)
{
	static const char *const files[] = { "file", "reuse50", "reuse51", "passed" };
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		in_dir(path, files[i]);
		CHECK(unlink(path) == 0, "unlink %s", path);
	}
	CHECK(rmdir(dir) == 0, "rmdir %s", dir);
}

static int digits(size_t n)
{
	int d = 1;

	for (; n >= 10; n /= 10)
		d++;
	return d;
}

/*
 * TRUTH, in one write: the rows, R's own row (whose byte count is the
 * file's size), then the comments.
 */
static void write_truth(const char *truth)
{
	static char notes[MAX_SLOTS * 128 + 64], self[PATH_MAX + 128];
	size_t nnotes = 0, rows, total;
	char rp[PATH_MAX];
	pid_t root = getpid();
	int fd, n, d;

	for (int i = 0; i < shm->next; i++) {
		const struct proc_slot *s = &shm->slot[i];

		errno = 0;
		CHECK(s->end_ns && s->reap_ns, "%s did not finish", s->role);
		for (int j = 0; j < s->nrows; j++)
			put_row(s->pid, &s->row[j]);
		nnotes += (size_t)snprintf(notes + nnotes, sizeof(notes) - nnotes,
					   "# life %d %s %llu %llu\n", (int)s->pid, s->role,
					   (unsigned long long)(s->end_ns - s->start_ns),
					   (unsigned long long)(s->reap_ns - s->fork_ns));
	}
	nnotes += (size_t)snprintf(notes + nnotes, sizeof(notes) - nnotes, "# root %d\n", (int)root);
	remove_dir();
	rows = out_len;
	fd = xopen(truth, O_WRONLY | O_CREAT | O_TRUNC);
	CHECK(realpath(truth, rp), "realpath %s", truth);
	n = snprintf(self, sizeof(self), "%d\t%d\tfile\t%s\t\t0\t0\t1\t", (int)root, fd, rp);
	for (d = 1; digits(rows + (size_t)n + (size_t)d + 1 + nnotes) != d; d++)
		;
	total = rows + (size_t)n + (size_t)d + 1 + nnotes;
	put("%s%zu\n%s", self, total, notes);
	CHECK(out_len == total, "TRUTH: %zu bytes, not %zu", out_len, total);
	CHECK(write(fd, out, total) == (ssize_t)total, "write %s", truth);
	xclose(fd);
}

int main(int argc, char **argv)
{
	const char *slash;

	if (argc != 2) {
		fprintf(stderr, "usage: fdwork TRUTH\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)('a' + i % 26);
	/* D: next to TRUTH. */
	slash = strrchr(argv[1], '/');
	if (slash)
		snprintf(dir, sizeof(dir), "%.*s/fdwork.XXXXXX", (int)(slash - argv[1]), argv[1]);
	else
		snprintf(dir, sizeof(dir), "fdwork.XXXXXX");
	CHECK(mkdtemp(dir), "mkdtemp %s", dir);
	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(shm != MAP_FAILED, "mmap");
	CHECK(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0, "PR_SET_CHILD_SUBREAPER");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		spawn(cases[i].role, cases[i].fn, NULL);
		reap_all();
	}
	write_truth(argv[1]);
	return 0;
}
