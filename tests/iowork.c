/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * iowork: workloads whose I/O is known exactly, for the tests of `ipcperf stat`
 * (tests/check-stat.c) and the benchmark.
 *
 *   iowork SCENARIO [ARG] [-v]
 *
 * Each scenario puts the fds it moves data through on fixed numbers (20..29,
 * by dup2), so that a test can name them, and checks the result of every call:
 * anything unexpected exits 3 with a message on stderr. Nothing is printed on
 * stdout unless -v. A reader never races a writer: it reads only after the
 * writer has exited (waitpid) or once the data is known to be all there, so
 * each read returns a known number of bytes.
 *
 * Below, "fd N: R reads/B bytes, W writes/B bytes" lists the calls on fd N made
 * by the scenario itself (the dynamic loader's calls on low fds come on top).
 * Failed calls are listed as errors; they move no bytes. Row = (process, fd,
 * object): an fd that is reused for another object gets a second row.
 *
 * pipe-chunks	P (parent) makes a pipe, read end fd 20, write end fd 21, and
 *		forks W. W writes 8 x 4096 = 32768 bytes to fd 21 and exits.
 *		P closes fd 21, waits for W, then reads fd 20 with 3000-byte
 *		reads: 32768 = 10 x 3000 + 2768, so 10 reads of 3000, 1 of 2768,
 *		1 of 0 (EOF). (32768 bytes fit in a 64 KiB pipe: no write blocks.)
 *		  W fd 21 pipe:[A]: write 8 ops, 32768 bytes
 *		  P fd 20 pipe:[A]: read 12 ops, 32768 bytes
 *
 * unix-msg	socketpair(AF_UNIX, SOCK_SEQPACKET): P keeps fd 22, child C
 *		gets fd 23. C sends 5 messages with sendmsg, each an iovec of
 *		100 + 28 bytes (128), and exits. P closes fd 23, waits for C,
 *		then calls recvmsg into a 512-byte buffer: a seqpacket socket
 *		returns one message per call, so 5 x 128, then 0 (peer gone).
 *		  C fd 23 socket:[X] (unix): write 5 ops, 640 bytes
 *		  P fd 22 socket:[Y] (unix): read 6 ops, 640 bytes
 *
 * tcp		P (server) listens on 127.0.0.1, ephemeral port, fd 24, and
 *		forks C (client), which closes fd 24, connects from fd 25 and
 *		sends 3 x 1000 bytes (send, send, sendto: all the sendto
 *		syscall), then shutdown(SHUT_WR). P accepts on fd 26 and polls
 *		(untraced) for POLLRDHUP, so all 3000 bytes are queued before it
 *		reads: recv(1500) = 1500, 1500, then 0 (recvfrom syscall). P
 *		then write()s 200 bytes and closes fd 26; C read()s with a
 *		4096-byte buffer: 200, then 0 at EOF. P waits for C.
 *		  C fd 25 socket:[X] (tcp): write 3 ops, 3000 bytes; read 2 ops, 200 bytes
 *		  P fd 26 socket:[Y] (tcp): read 3 ops, 3000 bytes; write 1 op, 200 bytes
 *		  P fd 24 socket:[L] (tcp, listening): no reads or writes
 *
 * vec		One process, a pipe: read end fd 20, write end fd 21. 4 x writev
 *		of 3 iovecs (10 + 20 + 30 = 60) to fd 21; close fd 21; readv of
 *		2 iovecs of 40 bytes from fd 20: 80, 80, 80, then 0 (EOF).
 *		  fd 21 pipe:[A]: write 4 ops, 240 bytes
 *		  fd 20 pipe:[A]: read 4 ops, 240 bytes
 *
 * reuse	One process. A pipe with its write end on fd 20 and its read end
 *		on fd 21: write 100 bytes to fd 20, close fd 20, read fd 21
 *		(4096-byte buffer) = 100. Then /dev/null is opened and dup2()ed
 *		onto fd 20 (then free): write 50 bytes. Then /dev/zero is opened
 *		and dup2()ed onto fd 20 while /dev/null is still there (dup2
 *		closes it): read 30 bytes. So fd 20 has three rows.
 *		  fd 20 pipe:[A]:    write 1 op, 100 bytes
 *		  fd 20 /dev/null:   write 1 op, 50 bytes
 *		  fd 20 /dev/zero:   read 1 op, 30 bytes
 *		  fd 21 pipe:[A]:    read 1 op, 100 bytes
 *
 * threads	One process, /dev/null on fd 21, 4 threads (started together
 *		at a barrier) each writing 25 x 40 bytes to it.
 *		  fd 21 /dev/null: write 100 ops, 4000 bytes (process total)
 *
 * fork-late	P opens /dev/null on fd 22, writes 10 bytes, sleeps 200 ms,
 *		then forks C, which writes 5 x 20 bytes to fd 22 and exits; P
 *		waits for C.
 *		  P fd 22 /dev/null: write 1 op, 10 bytes
 *		  C fd 22 /dev/null: write 5 ops, 100 bytes
 *
 * errors	One process, SIGPIPE ignored. A pipe, read end fd 20, write end
 *		fd 21; fd 20 is closed, then 3 x write(fd 21, 10 bytes) fail with
 *		EPIPE. 2 x write(fd 99, 10 bytes) and 1 x read(fd 98, 10 bytes)
 *		fail with EBADF (never opened).
 *		  fd 21 pipe:[A]: write 3 ops, 0 bytes, 3 errors
 *		  fd 99:          write 2 ops, 0 bytes, 2 errors
 *		  fd 98:          read 1 op, 0 bytes, 1 error
 *		  (an op is a completed call, failed or not)
 *
 * pingpong [N]	P and child C, N (default 100000) round trips of 1 byte:
 *		P writes fd 21 -> C reads fd 20, C writes fd 23 -> P reads
 *		fd 22. Then P closes fd 21, C reads 0 (EOF) and exits; P waits.
 *		  P fd 21: write N ops, N bytes    P fd 22: read N ops, N bytes
 *		  C fd 20: read N+1 ops, N bytes   C fd 23: write N ops, N bytes
 *
 * wait-go	One process that sets up every kind of fd, then blocks in one
 *		read(0, 1) until a byte arrives on stdin (a tracer attaching
 *		with -p meanwhile finds all these fds open), then moves data:
 *		  fd 24 /dev/null: write 7 x 30 bytes
 *		  pipe, read end fd 20, write end fd 21: write 50, read(4096) = 50
 *		  socketpair(AF_UNIX, SOCK_STREAM) fds 22/23: write 60 to fd 23,
 *		    read(fd 22, 4096) = 60 (one write is one skb: read whole)
 *		  loopback TCP: listener fd 25, client fd 26 connected to the
 *		    server end fd 27: write 70 to fd 26, read(fd 27, 4096) = 70
 *		    (one segment; the read blocks until it is in)
 *		So, all in one process:
 *		  fd 24 /dev/null:        write 7 ops, 210 bytes
 *		  fd 21 pipe:[A]:        write 1 op, 50 bytes
 *		  fd 20 pipe:[A]:        read 1 op, 50 bytes
 *		  fd 23 socket:[U] unix: write 1 op, 60 bytes
 *		  fd 22 socket:[V] unix: read 1 op, 60 bytes
 *		  fd 26 socket:[S] tcp:  write 1 op, 70 bytes
 *		  fd 27 socket:[T] tcp:  read 1 op, 70 bytes
 *		  fd 0: read 1 op, 1 byte (in flight when a tracer attaches)
 *
 * late-connect	One process. A TCP listener on 127.0.0.1, fd 24, and a client
 *		socket, fd 25, made 300 ms before it connects; then accept
 *		(fd 26), write 80 bytes to fd 25, read(fd 26, 4096) = 80, and
 *		fds 25 and 26 are closed at once. fd 25 lives long enough for
 *		a tracer that reads /proc to name it; its connection does not.
 *		  fd 25 socket:[S] tcp: write 1 op, 80 bytes
 *		  fd 26 socket:[T] tcp: read 1 op, 80 bytes (lives microseconds)
 *
 * tcp-hold [N]	One process. A TCP listener on 127.0.0.1 (fd L, as socket() gives
 *		it), then N (default 20) connections one after the other: a
 *		client socket (fd C) connects, the server end is accepted (fd S),
 *		write(C, 1 byte), read(S, 4096) = 1, both are held open for
 *		IOWORK_HOLD_MS ms (default 30), then closed. fd numbers are reused
 *		by each connection; each end of each connection is a row. Each
 *		connection is listed on stderr (stdout may be a tracer's) as
 *		"iowork: hold: client fd C A -> B, server fd S B -> A".
 *		  fd C socket:[Xi] tcp: write 1 op, 1 byte      (N rows)
 *		  fd S socket:[Yi] tcp: read 1 op, 1 byte       (N rows)
 *		  fd L socket:[L] tcp (listening): no reads or writes
 *
 * syscalls	A mix of the syscalls ipcperf traces, to compare with strace -c.
 *		P, none blocking, in this order (fd 20 /dev/zero, fd 21
 *		/dev/null, fds 24/25 a unix datagram socketpair):
 *		  write(21, 1 byte)        x 1000 = 1    read(20, 1 byte)    x 500 = 1
 *		  close(-1)                x 50 EBADF    write(99)           x 4 EBADF
 *		  pwrite64(21, 8, off 0)   x 100 = 8     pread64(20, 8, 0)   x 100 = 8
 *		  writev(21, 3 iovecs)     x 20 = 60     readv(20, 2 iovecs) x 20 = 80
 *		  sendto(24, 16) + recvfrom(25, 64)      x 30 (alternating) = 16
 *		  sendmsg(24, 2 iovecs 24) + recvmsg(25) x 20 (alternating) = 24
 *		  dup(21) + close          x 10
 *		  dup2(21, 26)             x 10 (9 replace 26), close(26)
 *		  dup3(21, 27, O_CLOEXEC)  x 5, close(27)
 *		  fcntl(21, F_DUPFD, 40) + close x 5, fcntl(21, F_GETFL) x 5
 *		  pipe2 + 2 x close        x 5
 *		  socket(AF_UNIX, SOCK_STREAM) + connect to a missing path
 *		    (ENOENT) + accept (EINVAL: not listening) + close  x 3
 *		  openat("/nonexistent/...") x 7 ENOENT
 *		then forks C: write(21, 2 bytes) x 100, read(20, 4) x 10, exit;
 *		P waits, then closes 20, 21, 24, 25.
 *
 *
 * The sum-* scenarios are for the calls the kernel adds up per (process,
 * fd, syscall) (lib/bpf/README.md): an fd number whose incarnations the
 * same syscall uses one after the other, ended by each way an fd ends.
 * "fd 20 by open" means fds 3..19 are made busy first (dup of fd 0) so that
 * open() itself returns 20: no dup2 ends anything there.
 * sum-reuse	fd 20 by open /dev/null: write 5 x 10; close; fd 20 by open
 *		/dev/zero (O_WRONLY): write 3 x 7; close.
 *		  fd 20 /dev/null: write 5 ops, 50 bytes
 *		  fd 20 /dev/zero: write 3 ops, 21 bytes
 * sum-dup2	/dev/null on fd 20: write 4 x 8; a pipe, read end fd 21, write
 *		end fd 22; dup2(22, 20) while /dev/null is there; write 2 x 9
 *		to fd 20; read(21, 4096) = 18.
 *		  fd 20 /dev/null: write 4 ops, 32 bytes
 *		  fd 20 pipe:[A]:  write 2 ops, 18 bytes
 *		  fd 21 pipe:[A]:  read 1 op, 18 bytes
 * sum-close-range  fd 20 by open /dev/null: write 6 x 3; close_range(20,
 *		20, 0); fd 20 by open /dev/zero: write 2 x 4; close.
 *		  fd 20 /dev/null: write 6 ops, 18 bytes
 *		  fd 20 /dev/zero: write 2 ops, 8 bytes
 * sum-exec	fd 20 by open /dev/null with O_CLOEXEC (3..19 close-on-exec
 *		too): write 5 x 2; exec of iowork sum-exec-2 (the same
 *		process), which makes 3..19 busy again and opens /dev/zero
 *		(O_WRONLY): fd 20 again: write 3 x 4; close.
 *		  fd 20 /dev/null: write 5 ops, 10 bytes
 *		  fd 20 /dev/zero: write 3 ops, 12 bytes
 * sum-exit	P forks C; C puts /dev/null on fd 20, writes 7 x 3 and exits
 *		without closing it; P waits, then puts /dev/zero (O_WRONLY) on
 *		fd 20 and writes 1 x 5.
 *		  C fd 20 /dev/null: write 7 ops, 21 bytes
 *		  P fd 20 /dev/zero: write 1 op, 5 bytes
 * sum-eagain	A pipe, read end fd 20 (O_NONBLOCK), write end fd 21: 4 x
 *		read(20, 10) fail with EAGAIN; write(21, 10); read(20, 4096) = 10.
 *		  fd 20 pipe:[A]: read 5 ops, 10 bytes, 4 errors (EAGAIN)
 *		  fd 21 pipe:[A]: write 1 op, 10 bytes
 * race-close [N]  A read under way while another thread ends its fd: the
 *		call goes on with the object it began with, whatever the fd
 *		number names by its end. N (default 100) rounds, fds 3..19 busy:
 *		a pipe, read end fd 20, write end fd 21; thread R blocks in
 *		read(20, 4096); once R sleeps in it (/proc/self/task/R/stat and
 *		syscall say so), P closes fd 20, opens this program's own file
 *		(argv[0], O_RDONLY), which takes fd 20, and writes 77 bytes to
 *		fd 21: R's read returns them, from the pipe. P then closes fds
 *		20 and 21 (the file, the pipe) for the next round.
 *		  fd 20 pipe:[Ai]:   read 1 op, 77 bytes     (N rows)
 *		  fd 21 pipe:[Ai]:   write 1 op, 77 bytes    (N rows)
 *		  fd 20 the file:    no reads or writes      (N rows)
 *		(/proc's files, read on fd 22 while R goes to sleep, on top)
 *		With IOWORK_HOLD_MS set, P waits that long once R sleeps and
 *		again once fd 20 is the file, so that a tracer reading /proc
 *		can name both.
 * race-dup2 [N]  The same, but P opens the file (fd 22) and dup2()s it onto
 *		fd 20 while R sleeps in its read, then closes fd 22: the same
 *		rows.
 * sum-many	More fds than the kernel's fast sums have slots (IPP_SUM_FAST in
 *		lib/bpf/sum-rec.h, 128): /dev/null (O_WRONLY) dup2()ed onto
 *		fds 100..399 (free then), fd 100+i written (i % 5) + 1 times
 *		with (i % 3) + 1 bytes, round by round over all of them; the
 *		even ones closed; the odd ones written once more with 1 byte;
 *		then /dev/zero (O_WRONLY) dup2()ed onto the even ones (free
 *		again), each written 2 x 4; nothing closed after that.
 *		  fd 100+i, i odd:  /dev/null: write (i%5)+2 ops, ((i%5)+1)*((i%3)+1)+1 bytes
 *		  fd 100+i, i even: /dev/null: write (i%5)+1 ops, ((i%5)+1)*((i%3)+1) bytes
 *		                    /dev/zero: write 2 ops, 8 bytes
 * close-range  What a child does before exec, then fds on the same
 *		numbers: fds 3..19 busy; /dev/null on fd 20 (open): write 2 x
 *		5; a pipe (pipe2 gives fds 21, 22): write 7 to 22, read them
 *		from 21; /dev/zero (O_WRONLY) on fd 23: write 1 x 3.
 *		close_range(20, ~0U, 0). write(23, 4) fails with EBADF: no file
 *		there any more. A pipe again: pipe2 gives fds 20, 21 (no call
 *		ends anything on them): write 11 to 21, read them from 20;
 *		/dev/zero (O_WRONLY) on fd 22 by open: write 1 x 6.
 *		close_range(20, ~0U, 0) again.
 *		  fd 20 /dev/null: write 2 ops, 10 bytes
 *		  fd 21 pipe:[A]:  read 1 op, 7 bytes
 *		  fd 22 pipe:[A]:  write 1 op, 7 bytes
 *		  fd 23 /dev/zero: write 1 op, 3 bytes
 *		  fd 23 unknown:   write 1 op, 0 bytes, 1 error (EBADF)
 *		  fd 20 pipe:[B]:  read 1 op, 11 bytes
 *		  fd 21 pipe:[B]:  write 1 op, 11 bytes
 *		  fd 22 /dev/zero: write 1 op, 6 bytes
 * close-range-exec  fds 3..19 busy, close-on-exec; /dev/null on fd 20 and
 *		/dev/zero (O_WRONLY) on fd 21, neither close-on-exec: write 1
 *		x 3 to 20; close_range(20, 20, CLOSE_RANGE_CLOEXEC); write 1 x
 *		3 to 20 (still open); exec of iowork close-range-exec-2 (the
 *		same process): write(20, 4) fails with EBADF (the exec closed
 *		it); write 1 x 5 to 21 (it survived); close 21.
 *		  fd 20 /dev/null: write 2 ops, 6 bytes
 *		  fd 20 unknown:   write 1 op, 0 bytes, 1 error (EBADF)
 *		  fd 21 /dev/zero: write 1 op, 5 bytes
 * Exit status: 0 when every call did what is written above; 3 otherwise
 * (with a message); 2 for a usage error.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1	/* pipe2, dup3, POLLRDHUP */
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "work-common.h"

enum { EXIT_USAGE = 2 };


/*
 * Check the result of a data call: exactly @want bytes (>= 0), or failure with
 * errno @want_err when @want is -1. EINTR is not retried: no scenario installs
 * a signal handler, so it cannot happen, and a retry would add a call.
 */
static void expect_ret(ssize_t n, ssize_t want, int want_err, const char *what, int fd)
{
	if (want < 0) {
		if (n >= 0)
			die("%s on fd %d returned %zd, expected failure with %s", what, fd, n,
			    strerrorname_np(want_err));
		if (errno != want_err)
			die("%s on fd %d failed with %s, expected %s", what, fd,
			    strerrorname_np(errno), strerrorname_np(want_err));
		return;
	}
	if (n < 0)
		die("%s on fd %d: %s (expected %zd bytes)", what, fd, strerror(errno), want);
	if (n != want)
		die("%s on fd %d returned %zd, expected %zd", what, fd, n, want);
}

static char buf_zero[4096];

/*
 * Map buf_zero's pages before any call: a write to /dev/null never reads
 * its buffer, and a tracer that reads it at the call's entry (ipcperf's
 * BPF, which may not fault) would find no page there, where strace, which
 * reads it afterwards through the kernel, does.
 */
static void map_buf_zero(void)
{
	for (size_t i = 0; i < sizeof(buf_zero); i += 512)
		((volatile char *)buf_zero)[i] = 0;
	((volatile char *)buf_zero)[sizeof(buf_zero) - 1] = 0;
}

/* One write() of @len bytes that must return @want (-1: fail with @err). */
static void do_write(int fd, size_t len, ssize_t want, int err)
{
	expect_ret(write(fd, buf_zero, len), want, err, "write", fd);
}

/* One read() of up to @len bytes that must return @want (-1: fail with @err). */
static void do_read(int fd, size_t len, ssize_t want, int err)
{
	static char sink[4096];

	if (len > sizeof(sink))
		die("read of %zu bytes: buffer too small", len);
	expect_ret(read(fd, sink, len), want, err, "read", fd);
}

/*
 * Two fds from pipe2/socketpair onto @a and @b. The fds returned may be
 * anywhere, even on @a or @b, so lift them above the targets first: then no
 * dup2() can clobber the other one.
 */
static void pair_at(int fds[2], int a, int b)
{
	int hi[2];

	for (int i = 0; i < 2; i++) {
		hi[i] = fcntl(fds[i], F_DUPFD, 64);
		if (hi[i] < 0)
			die("fcntl(F_DUPFD): %s", strerror(errno));
		xclose(fds[i]);
	}
	move_fd(hi[0], a);
	move_fd(hi[1], b);
}

static void pipe_at(int rd, int wr)
{
	int p[2];

	if (pipe2(p, 0) < 0)
		die("pipe2: %s", strerror(errno));
	pair_at(p, rd, wr);
}

static void open_at(const char *path, int flags, int target)
{
	int fd = open(path, flags);

	if (fd < 0)
		die("open %s: %s", path, strerror(errno));
	if (fd > target)
		die("open %s gave fd %d, above %d", path, fd, target);
	move_fd(fd, target);
}


/* ------------------------------------------------------------ pipe-chunks */

static int run_pipe_chunks(void)
{
	pid_t w;

	pipe_at(20, 21);
	w = xfork("W");
	if (w == 0) {
		xclose(20);
		for (int i = 0; i < 8; i++)
			do_write(21, 4096, 4096, 0);
		note("wrote 8 x 4096 bytes to fd 21");
		_exit(0);
	}
	xclose(21);
	reap(w, "child");
	for (int i = 0; i < 10; i++)
		do_read(20, 3000, 3000, 0);
	do_read(20, 3000, 2768, 0);
	do_read(20, 3000, 0, 0);
	note("read 10 x 3000 + 2768 + EOF from fd 20");
	xclose(20);
	return 0;
}

/* ------------------------------------------------------------ unix-msg */

static int run_unix_msg(void)
{
	int sv[2];
	pid_t c;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) < 0)
		die("socketpair: %s", strerror(errno));
	pair_at(sv, 22, 23);
	c = xfork("C");
	if (c == 0) {
		xclose(22);
		for (int i = 0; i < 5; i++) {
			struct iovec iov[2] = {
				{ .iov_base = buf_zero, .iov_len = 100 },
				{ .iov_base = buf_zero + 100, .iov_len = 28 },
			};
			struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

			expect_ret(sendmsg(23, &mh, 0), 128, 0, "sendmsg", 23);
		}
		note("sent 5 messages of 100 + 28 bytes on fd 23");
		_exit(0);
	}
	xclose(23);
	reap(c, "child");
	for (int i = 0; i < 6; i++) {
		char buf[512];
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

		expect_ret(recvmsg(22, &mh, 0), i < 5 ? 128 : 0, 0, "recvmsg", 22);
		if (mh.msg_flags & MSG_TRUNC)
			die("recvmsg on fd 22: message truncated");
	}
	note("received 5 x 128 bytes + EOF on fd 22");
	xclose(22);
	return 0;
}

/* ------------------------------------------------------------ tcp */

static int run_tcp(void)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t alen = sizeof(addr);
	struct pollfd pfd = { .fd = 26, .events = POLLRDHUP };
	int fd;
	pid_t c;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	move_fd(fd, 24);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(24, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		die("bind 127.0.0.1:0: %s", strerror(errno));
	if (listen(24, 1) < 0)
		die("listen: %s", strerror(errno));
	if (getsockname(24, (struct sockaddr *)&addr, &alen) < 0)
		die("getsockname: %s", strerror(errno));

	c = xfork("C");
	if (c == 0) {
		xclose(24);
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			die("socket: %s", strerror(errno));
		move_fd(fd, 25);
		if (connect(25, (struct sockaddr *)&addr, sizeof(addr)) < 0)
			die("connect 127.0.0.1:%u: %s", ntohs(addr.sin_port), strerror(errno));
		expect_ret(send(25, buf_zero, 1000, 0), 1000, 0, "send", 25);
		expect_ret(send(25, buf_zero, 1000, 0), 1000, 0, "send", 25);
		expect_ret(sendto(25, buf_zero, 1000, 0, NULL, 0), 1000, 0, "sendto", 25);
		if (shutdown(25, SHUT_WR) < 0)
			die("shutdown: %s", strerror(errno));
		/* One 200-byte segment arrives whole; then the server's FIN. */
		do_read(25, 4096, 200, 0);
		do_read(25, 4096, 0, 0);
		note("sent 3 x 1000, received 200 + EOF on fd 25");
		xclose(25);
		_exit(0);
	}

	fd = accept(24, NULL, NULL);
	if (fd < 0)
		die("accept: %s", strerror(errno));
	move_fd(fd, 26);
	/* POLLRDHUP: the client's FIN is in, so are the 3000 bytes before it. */
	do {
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
	} while (!(pfd.revents & (POLLRDHUP | POLLHUP | POLLERR)));
	if (pfd.revents & POLLERR)
		die("poll on fd 26: POLLERR");
	for (int i = 0; i < 3; i++) {
		char buf[1500];

		expect_ret(recv(26, buf, sizeof(buf), 0), i < 2 ? 1500 : 0, 0, "recv", 26);
	}
	do_write(26, 200, 200, 0);
	xclose(26);
	reap(c, "child");
	note("received 1500 + 1500 + EOF, sent 200 on fd 26");
	xclose(24);
	return 0;
}

/* ------------------------------------------------------------ vec */

static int run_vec(void)
{
	char a[40], b[40];

	pipe_at(20, 21);
	for (int i = 0; i < 4; i++) {
		struct iovec iov[3] = {
			{ .iov_base = buf_zero, .iov_len = 10 },
			{ .iov_base = buf_zero + 10, .iov_len = 20 },
			{ .iov_base = buf_zero + 30, .iov_len = 30 },
		};

		expect_ret(writev(21, iov, 3), 60, 0, "writev", 21);
	}
	xclose(21);
	for (int i = 0; i < 4; i++) {
		struct iovec iov[2] = {
			{ .iov_base = a, .iov_len = sizeof(a) },
			{ .iov_base = b, .iov_len = sizeof(b) },
		};

		expect_ret(readv(20, iov, 2), i < 3 ? 80 : 0, 0, "readv", 20);
	}
	note("writev 4 x 60 on fd 21, readv 3 x 80 + EOF on fd 20");
	xclose(20);
	return 0;
}

/* ------------------------------------------------------------ reuse */

static int run_reuse(void)
{
	int fd;

	pipe_at(21, 20);
	do_write(20, 100, 100, 0);
	xclose(20);
	do_read(21, 4096, 100, 0);

	open_at("/dev/null", O_WRONLY, 20);
	do_write(20, 50, 50, 0);

	/* dup2 onto an open fd closes what was there: /dev/null's row ends here. */
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0)
		die("open /dev/zero: %s", strerror(errno));
	move_fd(fd, 20);
	do_read(20, 30, 30, 0);
	note("fd 20: pipe 100 written, /dev/null 50 written, /dev/zero 30 read");
	xclose(20);
	xclose(21);
	return 0;
}

/* ------------------------------------------------------------ threads */

enum { NR_THREADS = 4, THREAD_WRITES = 25, THREAD_LEN = 40 };

static pthread_barrier_t barrier;

static void *thread_main(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&barrier);
	for (int i = 0; i < THREAD_WRITES; i++)
		do_write(21, THREAD_LEN, THREAD_LEN, 0);
	return NULL;
}

static int run_threads(void)
{
	pthread_t t[NR_THREADS];
	int err;

	open_at("/dev/null", O_WRONLY, 21);
	err = pthread_barrier_init(&barrier, NULL, NR_THREADS);
	if (err)
		die("pthread_barrier_init: %s", strerror(err));
	for (int i = 0; i < NR_THREADS; i++) {
		err = pthread_create(&t[i], NULL, thread_main, NULL);
		if (err)
			die("pthread_create: %s", strerror(err));
	}
	for (int i = 0; i < NR_THREADS; i++) {
		err = pthread_join(t[i], NULL);
		if (err)
			die("pthread_join: %s", strerror(err));
	}
	note("%d threads wrote %d x %d bytes each to fd 21", NR_THREADS, THREAD_WRITES,
	     THREAD_LEN);
	xclose(21);
	return 0;
}

/* ------------------------------------------------------------ fork-late */

static int run_fork_late(void)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 200 * 1000 * 1000 };
	pid_t c;

	open_at("/dev/null", O_WRONLY, 22);
	do_write(22, 10, 10, 0);
	while (nanosleep(&ts, &ts) < 0)
		if (errno != EINTR)
			die("nanosleep: %s", strerror(errno));
	c = xfork("C");
	if (c == 0) {
		for (int i = 0; i < 5; i++)
			do_write(22, 20, 20, 0);
		note("wrote 5 x 20 bytes to fd 22");
		_exit(0);
	}
	reap(c, "child");
	note("wrote 10 bytes to fd 22, child %d 5 x 20", (int)c);
	xclose(22);
	return 0;
}

/* ------------------------------------------------------------ errors */

static int run_errors(void)
{
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		die("signal(SIGPIPE): %s", strerror(errno));
	pipe_at(20, 21);
	xclose(20);
	for (int i = 0; i < 3; i++)
		do_write(21, 10, -1, EPIPE);
	for (int i = 0; i < 2; i++)
		do_write(99, 10, -1, EBADF);
	do_read(98, 10, -1, EBADF);
	note("3 x EPIPE on fd 21, 2 x EBADF on fd 99, 1 x EBADF on fd 98");
	xclose(21);
	return 0;
}

/* ------------------------------------------------------------ pingpong */

static int run_pingpong(long n)
{
	pid_t c;

	pipe_at(20, 21);	/* P -> C */
	pipe_at(22, 23);	/* C -> P */
	c = xfork("C");
	if (c == 0) {
		xclose(21);
		xclose(22);
		for (long i = 0; i < n; i++) {
			do_read(20, 1, 1, 0);
			do_write(23, 1, 1, 0);
		}
		do_read(20, 1, 0, 0);
		note("%ld round trips answered", n);
		_exit(0);
	}
	xclose(20);
	xclose(23);
	for (long i = 0; i < n; i++) {
		do_write(21, 1, 1, 0);
		do_read(22, 1, 1, 0);
	}
	xclose(21);
	reap(c, "child");
	note("%ld round trips", n);
	xclose(22);
	return 0;
}

/* ------------------------------------------------------------ wait-go */

/* A loopback TCP connection: listener on @lfd, client end @cfd, server end @sfd. */
/* A TCP listener on 127.0.0.1, an ephemeral port, on fd @lfd; its address in @addr. */
static void tcp_listen_at(int lfd, struct sockaddr_in *addr, socklen_t *alen)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		die("socket: %s", strerror(errno));
	move_fd(fd, lfd);
	addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(lfd, (struct sockaddr *)addr, sizeof(*addr)) < 0)
		die("bind 127.0.0.1:0: %s", strerror(errno));
	if (listen(lfd, 1) < 0)
		die("listen: %s", strerror(errno));
	if (getsockname(lfd, (struct sockaddr *)addr, alen) < 0)
		die("getsockname: %s", strerror(errno));
}

static void tcp_pair_at(int lfd, int cfd, int sfd)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t alen = sizeof(addr);
	int fd;

	tcp_listen_at(lfd, &addr, &alen);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	move_fd(fd, cfd);
	/* The backlog takes the connection: connect returns before accept. */
	if (connect(cfd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		die("connect 127.0.0.1:%u: %s", ntohs(addr.sin_port), strerror(errno));
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		die("accept: %s", strerror(errno));
	move_fd(fd, sfd);
}

static int run_wait_go(void)
{
	int sv[2];

	open_at("/dev/null", O_WRONLY, 24);
	pipe_at(20, 21);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		die("socketpair: %s", strerror(errno));
	pair_at(sv, 22, 23);
	tcp_pair_at(25, 26, 27);

	do_read(STDIN_FILENO, 1, 1, 0);

	for (int i = 0; i < 7; i++)
		do_write(24, 30, 30, 0);
	do_write(21, 50, 50, 0);
	do_read(20, 4096, 50, 0);
	do_write(23, 60, 60, 0);
	do_read(22, 4096, 60, 0);
	do_write(26, 70, 70, 0);
	do_read(27, 4096, 70, 0);
	note("after go: 7 x 30 to /dev/null, 50 through a pipe, 60 through unix, 70 through tcp");
	for (int fd = 20; fd <= 27; fd++)
		xclose(fd);
	return 0;
}

static int run_late_connect(void)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 300 * 1000 * 1000 };
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t alen = sizeof(addr);
	int fd;

	tcp_listen_at(24, &addr, &alen);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	move_fd(fd, 25);
	while (nanosleep(&ts, &ts) < 0)
		if (errno != EINTR)
			die("nanosleep: %s", strerror(errno));
	if (connect(25, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		die("connect 127.0.0.1:%u: %s", ntohs(addr.sin_port), strerror(errno));
	fd = accept(24, NULL, NULL);
	if (fd < 0)
		die("accept: %s", strerror(errno));
	move_fd(fd, 26);
	do_write(25, 80, 80, 0);
	do_read(26, 4096, 80, 0);
	xclose(25);
	xclose(26);
	xclose(24);
	note("80 bytes from fd 25, connected after 300 ms, to fd 26");
	return 0;
}

/* ------------------------------------------------------------ syscalls */

static int run_syscalls(void)
{
	static const char missing[] = "/nonexistent/iowork.sock";
	int sv[2], p[2];
	pid_t c;

	open_at("/dev/zero", O_RDONLY, 20);
	open_at("/dev/null", O_WRONLY, 21);
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)
		die("socketpair: %s", strerror(errno));
	pair_at(sv, 24, 25);

	for (int i = 0; i < 1000; i++)
		do_write(21, 1, 1, 0);
	for (int i = 0; i < 500; i++)
		do_read(20, 1, 1, 0);
	for (int i = 0; i < 50; i++)
		expect_ret(close(-1), -1, EBADF, "close", -1);
	for (int i = 0; i < 4; i++)
		do_write(99, 1, -1, EBADF);
	for (int i = 0; i < 100; i++)
		expect_ret(pwrite(21, buf_zero, 8, 0), 8, 0, "pwrite", 21);
	for (int i = 0; i < 100; i++) {
		char b[8];

		expect_ret(pread(20, b, 8, 0), 8, 0, "pread", 20);
	}
	for (int i = 0; i < 20; i++) {
		struct iovec iov[3] = {
			{ .iov_base = buf_zero, .iov_len = 10 },
			{ .iov_base = buf_zero, .iov_len = 20 },
			{ .iov_base = buf_zero, .iov_len = 30 },
		};

		expect_ret(writev(21, iov, 3), 60, 0, "writev", 21);
	}
	for (int i = 0; i < 20; i++) {
		char a[40], b[40];
		struct iovec iov[2] = {
			{ .iov_base = a, .iov_len = sizeof(a) },
			{ .iov_base = b, .iov_len = sizeof(b) },
		};

		expect_ret(readv(20, iov, 2), 80, 0, "readv", 20);
	}
	for (int i = 0; i < 30; i++) {
		char b[64];

		expect_ret(sendto(24, buf_zero, 16, 0, NULL, 0), 16, 0, "sendto", 24);
		expect_ret(recvfrom(25, b, sizeof(b), 0, NULL, NULL), 16, 0, "recvfrom", 25);
	}
	for (int i = 0; i < 20; i++) {
		char b[64];
		struct iovec out[2] = {
			{ .iov_base = buf_zero, .iov_len = 8 },
			{ .iov_base = buf_zero, .iov_len = 16 },
		};
		struct iovec in = { .iov_base = b, .iov_len = sizeof(b) };
		struct msghdr mo = { .msg_iov = out, .msg_iovlen = 2 };
		struct msghdr mi = { .msg_iov = &in, .msg_iovlen = 1 };

		expect_ret(sendmsg(24, &mo, 0), 24, 0, "sendmsg", 24);
		expect_ret(recvmsg(25, &mi, 0), 24, 0, "recvmsg", 25);
	}
	for (int i = 0; i < 10; i++) {
		int fd = dup(21);

		if (fd < 0)
			die("dup(21): %s", strerror(errno));
		xclose(fd);
	}
	for (int i = 0; i < 10; i++)
		if (dup2(21, 26) != 26)
			die("dup2(21, 26): %s", strerror(errno));
	xclose(26);
	for (int i = 0; i < 5; i++)
		if (dup3(21, 27, O_CLOEXEC) != 27)
			die("dup3(21, 27): %s", strerror(errno));
	xclose(27);
	for (int i = 0; i < 5; i++) {
		int fd = fcntl(21, F_DUPFD, 40);

		if (fd < 40)
			die("fcntl(21, F_DUPFD, 40) = %d: %s", fd, strerror(errno));
		xclose(fd);
	}
	for (int i = 0; i < 5; i++)
		if (fcntl(21, F_GETFL) < 0)
			die("fcntl(21, F_GETFL): %s", strerror(errno));
	for (int i = 0; i < 5; i++) {
		if (pipe2(p, O_CLOEXEC) < 0)
			die("pipe2: %s", strerror(errno));
		xclose(p[0]);
		xclose(p[1]);
	}
	for (int i = 0; i < 3; i++) {
		struct sockaddr_un sun = { .sun_family = AF_UNIX };
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);

		if (fd < 0)
			die("socket: %s", strerror(errno));
		memcpy(sun.sun_path, missing, sizeof(missing));
		expect_ret(connect(fd, (struct sockaddr *)&sun, sizeof(sun)), -1, ENOENT,
			   "connect", fd);
		expect_ret(accept(fd, NULL, NULL), -1, EINVAL, "accept", fd);
		xclose(fd);
	}
	for (int i = 0; i < 7; i++)
		expect_ret(open("/nonexistent/iowork", O_RDONLY), -1, ENOENT, "open", -1);

	c = xfork("C");
	if (c == 0) {
		for (int i = 0; i < 100; i++)
			do_write(21, 2, 2, 0);
		for (int i = 0; i < 10; i++)
			do_read(20, 4, 4, 0);
		_exit(0);
	}
	reap(c, "child");
	note("syscall mix done");
	xclose(20);
	xclose(21);
	xclose(24);
	xclose(25);
	return 0;
}

/* ------------------------------------------------------------ tcp-hold */

/* "127.0.0.1:80" of @a into @buf. */
static void addr_str(const struct sockaddr_in *a, char *buf, size_t len)
{
	char ip[INET_ADDRSTRLEN] = "?";

	inet_ntop(AF_INET, &a->sin_addr, ip, sizeof(ip));
	snprintf(buf, len, "%s:%u", ip, ntohs(a->sin_port));
}

/* The milliseconds of IOWORK_HOLD_MS, default 30. */
static long hold_ms(void)
{
	const char *v = getenv("IOWORK_HOLD_MS");
	char *end;
	long ms;

	if (!v || !*v)
		return 30;
	errno = 0;
	ms = strtol(v, &end, 10);
	if (errno || *end || ms < 0 || ms > 600000)
		die("IOWORK_HOLD_MS: bad number of milliseconds '%s'", v);
	return ms;
}

/* One connection to @addr, held @ms ms: client and server ends listed with -v. */
static void hold_one(int lfd, const struct sockaddr_in *addr, long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
	struct sockaddr_in la = { 0 }, ra = { 0 };
	socklen_t alen = sizeof(la);
	char l[64], r[64];
	int c, s;

	c = socket(AF_INET, SOCK_STREAM, 0);
	if (c < 0)
		die("socket: %s", strerror(errno));
	if (connect(c, (const struct sockaddr *)addr, sizeof(*addr)) < 0)
		die("connect 127.0.0.1:%u: %s", ntohs(addr->sin_port), strerror(errno));
	s = accept(lfd, NULL, NULL);
	if (s < 0)
		die("accept: %s", strerror(errno));
	do_write(c, 1, 1, 0);
	do_read(s, 4096, 1, 0);
	if (getsockname(c, (struct sockaddr *)&la, &alen) < 0 ||
	    getpeername(c, (struct sockaddr *)&ra, &(socklen_t){ sizeof(ra) }) < 0)
		die("getsockname/getpeername: %s", strerror(errno));
	addr_str(&la, l, sizeof(l));
	addr_str(&ra, r, sizeof(r));
	fprintf(stderr, "iowork: hold: client fd %d %s -> %s, server fd %d %s -> %s\n",
		c, l, r, s, r, l);
	while (nanosleep(&ts, &ts) < 0)
		if (errno != EINTR)
			die("nanosleep: %s", strerror(errno));
	xclose(c);
	xclose(s);
}

static int run_tcp_hold(long n)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t alen = sizeof(addr);
	long ms = hold_ms();
	int lfd = socket(AF_INET, SOCK_STREAM, 0);

	if (lfd < 0)
		die("socket: %s", strerror(errno));
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(lfd, 4) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&addr, &alen) < 0)
		die("listen on 127.0.0.1:0: %s", strerror(errno));
	for (long i = 0; i < n; i++)
		hold_one(lfd, &addr, ms);
	xclose(lfd);
	note("%ld connections held %ld ms each", n, ms);
	return 0;
}

/* ------------------------------------------------------------ calls added up */

/* fds 3..19 busy (a dup of fd 0 each where free, @flags O_CLOEXEC or 0): the next open() gives fd 20. */
static void busy_below_20_flags(int flags)
{
	for (int fd = 3; fd < 20; fd++)
		if (fcntl(fd, F_GETFD) < 0 && dup3(0, fd, flags) < 0)
			die("dup3(0, %d): %s", fd, strerror(errno));
}

static void busy_below_20(void)
{
	busy_below_20_flags(0);
}

/* open() that must give fd 20 (busy_below_20() first). */
static void open_20(const char *path, int flags)
{
	int fd = open(path, flags);

	if (fd != 20)
		die("open %s gave fd %d, not 20: %s", path, fd, strerror(errno));
}

static void writes(int fd, int n, size_t len)
{
	for (int i = 0; i < n; i++)
		do_write(fd, len, (ssize_t)len, 0);
}

static int run_sum_reuse(void)
{
	busy_below_20();
	open_20("/dev/null", O_WRONLY);
	writes(20, 5, 10);
	xclose(20);
	open_20("/dev/zero", O_WRONLY);
	writes(20, 3, 7);
	xclose(20);
	return 0;
}

static int run_sum_dup2(void)
{
	open_at("/dev/null", O_WRONLY, 20);
	writes(20, 4, 8);
	pipe_at(21, 22);
	if (dup2(22, 20) != 20)
		die("dup2(22, 20): %s", strerror(errno));
	writes(20, 2, 9);
	do_read(21, 4096, 18, 0);
	xclose(20);
	xclose(22);
	xclose(21);
	return 0;
}

static int run_sum_close_range(void)
{
	busy_below_20();
	open_20("/dev/null", O_WRONLY);
	writes(20, 6, 3);
	if (syscall(SYS_close_range, 20u, 20u, 0u) != 0)
		die("close_range(20, 20): %s", strerror(errno));
	open_20("/dev/zero", O_WRONLY);
	writes(20, 2, 4);
	xclose(20);
	return 0;
}

/* pipe2() that must give fds @rd and @wr. */
static void pipe_is(int rd, int wr)
{
	int p[2];

	if (pipe2(p, 0) < 0 || p[0] != rd || p[1] != wr)
		die("pipe2 gave fds %d, %d, not %d, %d: %s", p[0], p[1], rd, wr, strerror(errno));
}

static void close_from_20(void)
{
	if (syscall(SYS_close_range, 20u, ~0u, 0u) != 0)
		die("close_range(20, ~0U): %s", strerror(errno));
}

/*
 * A pipe on fds @rd and @rd + 1 moves @len bytes, /dev/zero opened on fd
 * @zfd takes a write of @zlen bytes, then close_range() closes them all.
 */
static void pipe_zero_closed(int rd, size_t len, int zfd, size_t zlen)
{
	pipe_is(rd, rd + 1);
	do_write(rd + 1, len, (ssize_t)len, 0);
	do_read(rd, 4096, (ssize_t)len, 0);
	if (open("/dev/zero", O_WRONLY) != zfd)
		die("open /dev/zero: not fd %d", zfd);
	writes(zfd, 1, zlen);
	close_from_20();
}

static int run_close_range(void)
{
	busy_below_20();
	open_20("/dev/null", O_WRONLY);
	writes(20, 2, 5);
	pipe_zero_closed(21, 7, 23, 3);
	do_write(23, 4, -1, EBADF);
	pipe_zero_closed(20, 11, 22, 6);
	return 0;
}

static const char *self_path;

static int run_sum_exec(void)
{
	/* closed by the exec too: the new image's loader takes fd 3, not 20 */
	busy_below_20_flags(O_CLOEXEC);
	open_20("/dev/null", O_WRONLY | O_CLOEXEC);
	writes(20, 5, 2);
	execl(self_path, self_path, "sum-exec-2", work_verbose ? "-v" : (char *)NULL, (char *)NULL);
	die("exec %s: %s", self_path, strerror(errno));
}

static int run_sum_exec_2(void)
{
	busy_below_20();
	open_20("/dev/zero", O_WRONLY);
	writes(20, 3, 4);
	xclose(20);
	return 0;
}

static int run_close_range_exec(void)
{
	busy_below_20_flags(O_CLOEXEC);
	open_20("/dev/null", O_WRONLY);
	if (open("/dev/zero", O_WRONLY) != 21)
		die("open /dev/zero: not fd 21");
	writes(20, 1, 3);
	if (syscall(SYS_close_range, 20u, 20u, 4u /* CLOSE_RANGE_CLOEXEC */) != 0)
		die("close_range(20, 20, CLOSE_RANGE_CLOEXEC): %s", strerror(errno));
	writes(20, 1, 3);
	execl(self_path, self_path, "close-range-exec-2", work_verbose ? "-v" : (char *)NULL,
	      (char *)NULL);
	die("exec %s: %s", self_path, strerror(errno));
}

static int run_close_range_exec_2(void)
{
	do_write(20, 4, -1, EBADF);
	writes(21, 1, 5);
	xclose(21);
	return 0;
}

static int run_sum_exit(void)
{
	pid_t c = xfork("C");

	if (c == 0) {
		open_at("/dev/null", O_WRONLY, 20);
		writes(20, 7, 3);
		_exit(0);
	}
	reap(c, "child");
	open_at("/dev/zero", O_WRONLY, 20);
	writes(20, 1, 5);
	return 0;
}

static int run_sum_eagain(void)
{
	pipe_at(20, 21);
	if (fcntl(20, F_SETFL, O_NONBLOCK) < 0)
		die("fcntl(20, O_NONBLOCK): %s", strerror(errno));
	for (int i = 0; i < 4; i++)
		do_read(20, 10, -1, EAGAIN);
	do_write(21, 10, 10, 0);
	do_read(20, 4096, 10, 0);
	xclose(20);
	xclose(21);
	return 0;
}

/* The fds of sum-many: 100 + 0 .. SUM_MANY - 1. */
#define SUM_MANY 300

static int run_sum_many(void)
{
	int null = open("/dev/null", O_WRONLY), zero;

	if (null < 0)
		die("open /dev/null: %s", strerror(errno));
	for (int i = 0; i < SUM_MANY; i++)
		if (dup2(null, 100 + i) != 100 + i)
			die("dup2(%d, %d): %s", null, 100 + i, strerror(errno));
	xclose(null);
	for (int r = 0; r < 5; r++)
		for (int i = 0; i < SUM_MANY; i++)
			if (r < i % 5 + 1)
				do_write(100 + i, (size_t)(i % 3 + 1), i % 3 + 1, 0);
	for (int i = 0; i < SUM_MANY; i += 2)
		xclose(100 + i);
	for (int i = 1; i < SUM_MANY; i += 2)
		do_write(100 + i, 1, 1, 0);
	zero = open("/dev/zero", O_WRONLY);
	if (zero < 0)
		die("open /dev/zero: %s", strerror(errno));
	for (int i = 0; i < SUM_MANY; i += 2) {
		if (dup2(zero, 100 + i) != 100 + i)
			die("dup2(%d, %d): %s", zero, 100 + i, strerror(errno));
		writes(100 + i, 2, 4);
	}
	xclose(zero);
	return 0;
}

/* ------------------------------------------------------------ race-close, race-dup2 */

enum { RACE_LEN = 77 };

static pthread_barrier_t race_go, race_done;
static pid_t race_tid;
static long race_rounds;

/* R: one read of fd 20 a round, between P's barriers. */
static void *race_reader(void *arg)
{
	(void)arg;
	/* P reads it after the first barrier */
	race_tid = (pid_t)syscall(SYS_gettid);
	for (long i = 0; i < race_rounds; i++) {
		pthread_barrier_wait(&race_go);
		do_read(20, 4096, RACE_LEN, 0);
		pthread_barrier_wait(&race_done);
	}
	return NULL;
}

/* The first @len - 1 bytes of /proc file @path into @buf; false if it cannot be read. */
static bool read_proc(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, len - 1);
	xclose(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

/* Whether thread @tid sleeps in read(@fd): past the fd's lookup, waiting for data. */
static bool asleep_in_read(pid_t tid, int fd)
{
	char path[64], line[512], *state;
	long nr = -1;
	unsigned long arg = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	if (!read_proc(path, line, sizeof(line)) || !(state = strrchr(line, ')')) ||
	    state[1] != ' ' || state[2] != 'S')
		return false;
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	return read_proc(path, line, sizeof(line)) && sscanf(line, "%ld 0x%lx", &nr, &arg) == 2 &&
	       nr == SYS_read && arg == (unsigned long)fd;
}

/* While R sleeps in its read of fd 20: fd 20 made this program's file (@dup2: by dup2). */
static void race_swap(bool by_dup2)
{
	int fd;

	if (!by_dup2) {
		xclose(20);
		open_20(self_path, O_RDONLY);
		return;
	}
	fd = open(self_path, O_RDONLY);
	if (fd < 0)
		die("open %s: %s", self_path, strerror(errno));
	if (dup2(fd, 20) != 20)
		die("dup2(%d, 20): %s", fd, strerror(errno));
	xclose(fd);
}

static int run_race(long n, bool by_dup2)
{
	const struct timespec poll_ts = { 0, 100000 };
	long ms = getenv("IOWORK_HOLD_MS") ? hold_ms() : 0;
	const struct timespec hold = { ms / 1000, (ms % 1000) * 1000000L };
	pthread_t r;
	int err;

	busy_below_20();
	race_rounds = n;
	if ((err = pthread_barrier_init(&race_go, NULL, 2)) ||
	    (err = pthread_barrier_init(&race_done, NULL, 2)) ||
	    (err = pthread_create(&r, NULL, race_reader, NULL)))
		die("pthread: %s", strerror(err));
	for (long i = 0; i < n; i++) {
		pipe_at(20, 21);
		pthread_barrier_wait(&race_go);
		while (!asleep_in_read(race_tid, 20))
			nanosleep(&poll_ts, NULL);
		nanosleep(&hold, NULL);
		race_swap(by_dup2);
		nanosleep(&hold, NULL);
		do_write(21, RACE_LEN, RACE_LEN, 0);
		pthread_barrier_wait(&race_done);
		xclose(20);
		xclose(21);
	}
	if ((err = pthread_join(r, NULL)))
		die("pthread_join: %s", strerror(err));
	note("%ld reads of %d bytes on fd 20 while it was %s", n, RACE_LEN,
	     by_dup2 ? "dup2'ed over" : "closed and opened again");
	return 0;
}

/* ------------------------------------------------------------ main */

static const struct {
	const char *name;
	int (*fn)(void);
} scenarios[] = {
	{ "pipe-chunks", run_pipe_chunks },
	{ "unix-msg", run_unix_msg },
	{ "tcp", run_tcp },
	{ "vec", run_vec },
	{ "reuse", run_reuse },
	{ "threads", run_threads },
	{ "fork-late", run_fork_late },
	{ "errors", run_errors },
	{ "wait-go", run_wait_go },
	{ "late-connect", run_late_connect },
	{ "syscalls", run_syscalls },
	{ "sum-reuse", run_sum_reuse },
	{ "sum-dup2", run_sum_dup2 },
	{ "sum-close-range", run_sum_close_range },
	{ "close-range", run_close_range },
	{ "close-range-exec", run_close_range_exec },
	{ "close-range-exec-2", run_close_range_exec_2 },
	{ "sum-exec", run_sum_exec },
	{ "sum-exec-2", run_sum_exec_2 },
	{ "sum-exit", run_sum_exit },
	{ "sum-eagain", run_sum_eagain },
	{ "sum-many", run_sum_many },
};

__attribute__((noreturn))
static void usage(const char *what, const char *arg)
{
	fprintf(stderr, "iowork: %s '%s'\nusage: iowork SCENARIO [-v]\n"
		"       iowork pingpong|tcp-hold|race-close|race-dup2 [N] [-v]\nscenarios:", what, arg);
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		fprintf(stderr, " %s", scenarios[i].name);
	fprintf(stderr, " pingpong tcp-hold race-close race-dup2\n");
	exit(EXIT_USAGE);
}

int main(int argc, char **argv)
{
	const char *cmd;
	bool counted, have_n = false;
	long n;

	work_prog = "iowork";
	work_role = "P";
	if (argc < 2)
		usage("missing", "SCENARIO");
	cmd = argv[1];
	self_path = argv[0];
	map_buf_zero();
	/* The scenarios that take a count, and their defaults. */
	counted = !strcmp(cmd, "pingpong") || !strcmp(cmd, "tcp-hold") ||
		  !strcmp(cmd, "race-close") || !strcmp(cmd, "race-dup2");
	n = !strcmp(cmd, "tcp-hold") ? 20 : !strncmp(cmd, "race-", 5) ? 100 : 100000;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-v")) {
			work_verbose = true;
		} else if (counted && !have_n) {
			char *end;

			errno = 0;
			n = strtol(argv[i], &end, 10);
			if (errno || end == argv[i] || *end || n < 1)
				usage("bad count", argv[i]);
			have_n = true;
		} else {
			usage("unknown argument", argv[i]);
		}
	}
	if (!strcmp(cmd, "pingpong"))
		return run_pingpong(n);
	if (!strcmp(cmd, "tcp-hold"))
		return run_tcp_hold(n);
	if (!strcmp(cmd, "race-close") || !strcmp(cmd, "race-dup2"))
		return run_race(n, !strcmp(cmd, "race-dup2"));
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		if (!strcmp(cmd, scenarios[i].name))
			return scenarios[i].fn();
	usage("unknown scenario", cmd);
}
