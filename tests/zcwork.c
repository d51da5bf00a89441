/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * zcwork: zero-copy moves and io_uring requests whose every byte is known,
 * for the tests of `ipcperf stat` and `ipcperf flows` (tests/test-zerocopy.sh).
 *
 *   zcwork moves DIR [-v]
 *   zcwork uring N [-v]
 *
 * As in iowork, the fds data moves through sit on fixed numbers (20..29),
 * each call's result is checked (anything unexpected exits 3 with a
 * message), nothing is printed on stdout unless -v, and a read never races
 * a write: everything runs in one process, each read after the data is in.
 *
 * moves DIR	One process. F = DIR/zcwork-f.PID on fd 20, G = DIR/zcwork-g.PID
 *		on fd 23 (both removed at the end); pipe A: read end fd 21,
 *		write end fd 22; pipe B: read end fd 27, write end fd 28; a
 *		loopback TCP connection: listener fd 24, client fd 25, server
 *		end fd 26. In this order:
 *		  write(20, 4096) x 3                       = 4096 each (F: 12288 bytes)
 *		  sendfile(25, 20, &0, 12288)               = 12288  file -> socket
 *		  recvfrom(26, 12288, MSG_WAITALL)          = 12288
 *		  sendfile(22, 20, &0, 4096)                = 4096   file -> pipe
 *		  read(21, 4096)                            = 4096
 *		  splice(20, &4096, 22, NULL, 4096)         = 4096   file -> pipe
 *		  splice(21, NULL, 25, NULL, 4096)          = 4096   pipe -> socket
 *		  recvfrom(26, 4096, MSG_WAITALL)           = 4096
 *		  write(22, 100)                            = 100
 *		  tee(21, 28, 100)                          = 100    pipe A -> pipe B (A keeps them)
 *		  read(21, 4096)                            = 100
 *		  read(27, 4096)                            = 100
 *		  vmsplice(22, 1 iovec of 200)              = 200    into pipe A
 *		  vmsplice(21, 1 iovec of 200)              = 200    out of pipe A
 *		  copy_file_range(20, &0, 23, &0, 12288)    = 12288  file -> file
 *		  splice(20, NULL, 25, NULL, 10)            EINVAL   (no pipe on either end)
 *		So (zero-copy part in brackets: ops/bytes):
 *		  fd 20 F:            write 3 ops 12288; read 5 ops 32768, 1 error [5/32768]
 *		  fd 23 G:            write 1 op 12288 [1/12288]
 *		  fd 22 pipe:[A]:     write 4 ops 8492 [3/8392]
 *		  fd 21 pipe:[A]:     read 5 ops 8592 [3/4396] (tee's 100 read, left in A)
 *		  fd 28 pipe:[B]:     write 1 op 100 [1/100]
 *		  fd 27 pipe:[B]:     read 1 op 100
 *		  fd 25 socket tcp:   write 3 ops 16384, 1 error [3/16384]
 *		  fd 26 socket tcp:   read 2 ops 16384
 *		and the flows: pipe A 8492 bytes in and out (tee takes none out),
 *		pipe B 100, the connection 25 -> 26 16384; nothing unmatched.
 *
 * uring N	One process. /dev/null on fd 21, an io_uring of 4 entries (raw
 *		io_uring_setup, no liburing); N (1..100000) IORING_OP_WRITE
 *		requests of 10 bytes to fd 21, submitted 3 at a time (the last
 *		batch the rest) with io_uring_enter(to_submit, min_complete =
 *		the batch, IORING_ENTER_GETEVENTS); each completion must be 10.
 *		  io_uring requests submitted: N (io_uring_enter returned N in all)
 *		  fd 21 /dev/null: no read or write call (the ring did them)
 *		Exits 77 when the kernel refuses io_uring (ENOSYS, EPERM:
 *		kernel.io_uring_disabled), saying so.
 *
 * Exit status: 0 when every call did what is written above; 3 otherwise
 * (with a message); 2 for a usage error; 77 io_uring refused (uring).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1	/* splice, tee, vmsplice, copy_file_range */
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "work-common.h"

enum { EXIT_USAGE = 2, EXIT_SKIP = 77 };

static bool verbose;
static char buf[16384];

/* A call's result must be @want (>= 0), or a failure with @err when @want is -1. */
static void expect(ssize_t n, ssize_t want, int err, const char *what)
{
	if (want < 0 && (n >= 0 || errno != err))
		die("%s returned %zd (%s), expected failure with %s", what, n,
		    n < 0 ? strerrorname_np(errno) : "ok", strerrorname_np(err));
	if (want >= 0 && n != want)
		die("%s returned %zd (%s), expected %zd", what, n,
		    n < 0 ? strerror(errno) : "short", want);
	if (verbose)
		printf("%s = %zd\n", what, n);
}

static void pipe_at(int rd, int wr)
{
	int p[2];

	if (pipe2(p, 0) < 0)
		die("pipe2: %s", strerror(errno));
	/* the new fds are below 20 (the targets are free): no dup2 clobbers the other */
	if (p[0] >= 20 || p[1] >= 20)
		die("pipe2 gave fds %d, %d: expected them below 20", p[0], p[1]);
	move_fd(p[0], rd);
	move_fd(p[1], wr);
}

static void file_at(char *path, size_t len, const char *dir, const char *name, int target)
{
	int fd;

	snprintf(path, len, "%s/zcwork-%s.%d", dir, name, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		die("open %s: %s", path, strerror(errno));
	move_fd(fd, target);
}

static void tcp_at(int lfd, int cfd, int sfd)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		die("socket: %s", strerror(errno));
	move_fd(fd, lfd);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(lfd, 1) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&a, &alen) < 0)
		die("listen on 127.0.0.1: %s", strerror(errno));
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
		die("socket: %s", strerror(errno));
	move_fd(fd, cfd);
	if (connect(cfd, (struct sockaddr *)&a, sizeof(a)) < 0)
		die("connect: %s", strerror(errno));
	if ((fd = accept(lfd, NULL, NULL)) < 0)
		die("accept: %s", strerror(errno));
	move_fd(fd, sfd);
}

/* The moves between the file and the socket, then through pipe A. */
static void moves_file(void)
{
	off_t off = 0;
	loff_t loff = 4096;

	for (int i = 0; i < 3; i++)
		expect(write(20, buf, 4096), 4096, 0, "write(20, 4096)");
	expect(sendfile(25, 20, &off, 12288), 12288, 0, "sendfile(25, 20, 12288)");
	expect(recv(26, buf, 12288, MSG_WAITALL), 12288, 0, "recv(26, 12288)");
	off = 0;
	expect(sendfile(22, 20, &off, 4096), 4096, 0, "sendfile(22, 20, 4096)");
	expect(read(21, buf, 4096), 4096, 0, "read(21, 4096)");
	expect(splice(20, &loff, 22, NULL, 4096, 0), 4096, 0, "splice(20, 22, 4096)");
	expect(splice(21, NULL, 25, NULL, 4096, 0), 4096, 0, "splice(21, 25, 4096)");
	expect(recv(26, buf, 4096, MSG_WAITALL), 4096, 0, "recv(26, 4096)");
}

/* tee, vmsplice both ways, copy_file_range, and a move that fails. */
static void moves_pipes(void)
{
	struct iovec iov = { .iov_base = buf, .iov_len = 200 };
	loff_t in = 0, out = 0;

	expect(write(22, buf, 100), 100, 0, "write(22, 100)");
	expect(tee(21, 28, 100, 0), 100, 0, "tee(21, 28, 100)");
	expect(read(21, buf, 4096), 100, 0, "read(21, 4096)");
	expect(read(27, buf, 4096), 100, 0, "read(27, 4096)");
	expect(vmsplice(22, &iov, 1, 0), 200, 0, "vmsplice(22, 200)");
	iov.iov_len = 200;
	expect(vmsplice(21, &iov, 1, 0), 200, 0, "vmsplice(21, 200)");
	expect(copy_file_range(20, &in, 23, &out, 12288, 0), 12288, 0,
	       "copy_file_range(20, 23, 12288)");
	expect(splice(20, NULL, 25, NULL, 10, 0), -1, EINVAL, "splice(20, 25, 10)");
}

static int run_moves(const char *dir)
{
	char f[4096], g[4096];

	pipe_at(21, 22);
	pipe_at(27, 28);
	file_at(f, sizeof(f), dir, "f", 20);
	file_at(g, sizeof(g), dir, "g", 23);
	tcp_at(24, 25, 26);
	moves_file();
	moves_pipes();
	unlink(f);
	unlink(g);
	return 0;
}

/* ------------------------------------------------------------ io_uring */

struct ring {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static void ring_setup(struct ring *r)
{
	struct io_uring_params p;
	size_t sq_len, cq_len;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	r->fd = (int)syscall(__NR_io_uring_setup, 4, &p);
	if (r->fd < 0 && (errno == ENOSYS || errno == EPERM)) {
		fprintf(stderr, "zcwork: the kernel refuses io_uring (%s): "
			"see sysctl kernel.io_uring_disabled\n", strerrorname_np(errno));
		exit(EXIT_SKIP);
	}
	if (r->fd < 0)
		die("io_uring_setup: %s", strerror(errno));
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
		       MAP_SHARED, r->fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		die("mmap of the ring: %s", strerror(errno));
	r->sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned int *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)(sq + p.sq_off.array);
	r->cq_head = (unsigned int *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned int *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
}

/* @n writes of 10 bytes to fd 21, submitted and waited for in one io_uring_enter. */
static void ring_batch(struct ring *r, unsigned int n)
{
	unsigned int tail = *r->sq_tail, head;

	for (unsigned int i = 0; i < n; i++, tail++) {
		unsigned int k = tail & *r->sq_mask;
		struct io_uring_sqe *e = &r->sqes[k];

		memset(e, 0, sizeof(*e));
		e->opcode = IORING_OP_WRITE;
		e->fd = 21;
		e->addr = (unsigned long)buf;
		e->len = 10;
		e->off = 0;
		r->sq_array[k] = k;
	}
	__atomic_store_n(r->sq_tail, tail, __ATOMIC_RELEASE);
	expect(syscall(__NR_io_uring_enter, r->fd, n, n, IORING_ENTER_GETEVENTS, NULL, 0), n, 0,
	       "io_uring_enter");
	head = *r->cq_head;
	while (head != __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE)) {
		if (r->cqes[head & *r->cq_mask].res != 10)
			die("an io_uring write returned %d, expected 10",
			    r->cqes[head & *r->cq_mask].res);
		head++;
		n--;
	}
	__atomic_store_n(r->cq_head, head, __ATOMIC_RELEASE);
	if (n)
		die("%u io_uring completions missing", n);
}

static int run_uring(long n)
{
	struct ring r;
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		die("open /dev/null: %s", strerror(errno));
	move_fd(fd, 21);
	ring_setup(&r);
	for (long done = 0; done < n; done += 3)
		ring_batch(&r, n - done < 3 ? (unsigned int)(n - done) : 3);
	close(r.fd);
	return 0;
}

__attribute__((noreturn))
static void usage(const char *what, const char *arg)
{
	fprintf(stderr, "zcwork: %s '%s'\nusage: zcwork moves DIR [-v]\n"
		"       zcwork uring N [-v]\n", what, arg);
	exit(EXIT_USAGE);
}

int main(int argc, char **argv)
{
	char *end;
	long n;

	work_prog = "zcwork";
	if (argc < 3)
		usage("missing", argc < 2 ? "SCENARIO" : "argument");
	if (argc > 4 || (argc == 4 && strcmp(argv[3], "-v")))
		usage("unknown argument", argv[argc - 1]);
	verbose = argc == 4;
	if (!strcmp(argv[1], "moves"))
		return run_moves(argv[2]);
	if (strcmp(argv[1], "uring"))
		usage("unknown scenario", argv[1]);
	errno = 0;
	n = strtol(argv[2], &end, 10);
	if (errno || end == argv[2] || *end || n < 1 || n > 100000)
		usage("bad count (1..100000)", argv[2]);
	return run_uring(n);
}
