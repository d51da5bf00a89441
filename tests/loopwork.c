/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * loopwork: an event-loop server and its client over TCP loopback, in one
 * process and in a fixed order, for tests/test-trace-strace.sh (the calls of
 * an nginx-like server drawn beside strace -f -yy's).
 *
 *   loopwork
 *
 * A non-blocking listener on 127.0.0.1 (SO_REUSEADDR, port 0) watched by
 * epoll; a client connects, waits for POLLOUT with poll and reads SO_ERROR;
 * the server takes the connection with accept4(SOCK_NONBLOCK|SOCK_CLOEXEC)
 * (a second accept4 fails, EAGAIN), sets TCP_NODELAY, and watches it (EPOLL_CTL_ADD, MOD, DEL; EPOLLIN,
 * EPOLLOUT, EPOLLRDHUP, EPOLLET). The client sends a request in two
 * pieces with writev; the server reads it with readv (then EAGAIN), answers
 * with writev in three pieces (the last from a file mapped beforehand, its
 * page not yet in when the call begins); the client polls and reads it with readv,
 * then closes; the server sees the end (readv returns 0). Raw system
 * calls through libc, no stdio until an error: the same calls on every
 * run. A call that fails is said on stderr, exit 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define REQ1 "GET / HTTP/1.0\r\n"
#define REQ2 "Host: localhost\r\nUser-Agent: loopwork\r\n\r\n"
#define REP1 "HTTP/1.0 200 OK\r\n"
#define REP2 "Content-Length: 6\r\n\r\n"
#define REP3 "hello\n"

static int fail(const char *what)
{
	perror(what);
	return 1;
}

/* The listener on 127.0.0.1, its port in @sa. */
static int listener(struct sockaddr_in *sa)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int one = 1, l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0)
		return -1;
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	/* the room of any address, the length of this one: [128 => 16] */
	if (bind(l, (struct sockaddr *)sa, sizeof(*sa)) < 0 || listen(l, 8) < 0 ||
	    getsockname(l, (struct sockaddr *)&ss, &len) < 0 || len != sizeof(*sa))
		return -1;
	memcpy(sa, &ss, sizeof(*sa));
	return l;
}

/* The client's connection: connected, writable, no error pending. */
static int client(const struct sockaddr_in *sa)
{
	struct pollfd p;
	int err = -1, c = socket(AF_INET, SOCK_STREAM, 0);
	socklen_t len = sizeof(err);

	if (c < 0 || connect(c, (const struct sockaddr *)sa, sizeof(*sa)) < 0)
		return -1;
	p = (struct pollfd){ .fd = c, .events = POLLOUT | POLLIN };
	if (poll(&p, 1, 1000) != 1 || getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err)
		return -1;
	return c;
}

/*
 * REP3 in a file of the working directory, mapped and never touched here:
 * the page is not in the process's page tables when writev begins (the
 * call faults it in). NULL on failure.
 */
static const char *untouched(void)
{
	int fd = open("loopwork.tmp", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	void *p;

	if (fd < 0 || write(fd, REP3, strlen(REP3)) != (ssize_t)strlen(REP3))
		return NULL;
	p = mmap(NULL, strlen(REP3), PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED || close(fd) < 0 || unlink("loopwork.tmp") < 0)
		return NULL;
	return p;
}

/* Wait for one event on @ep: its events, 0 on none. */
static unsigned int wait_one(int ep, int fd)
{
	struct epoll_event ev[4];

	if (epoll_wait(ep, ev, 4, 1000) != 1 || ev[0].data.u64 != (uint64_t)fd)
		return 0;
	return ev[0].events;
}

/*
 * All eight bytes of the event's data are the fd: set as .data.fd, clang
 * left the other four as the stack held them, and the traces that
 * tests/test-trace-strace.sh compares printed them (u64=25769803782).
 */
static int watch(int ep, int op, int fd, unsigned int events)
{
	struct epoll_event ev = { .events = events, .data.u64 = (uint64_t)fd };

	return epoll_ctl(ep, op, fd, &ev);
}

/* The server's side of the exchange on @s, the client's on @c. */
static int exchange(int ep, int s, int c)
{
	char a[8], b[128], d[64];
	struct iovec req[2] = { { REQ1, strlen(REQ1) }, { REQ2, strlen(REQ2) } };
	const char *rep3 = untouched();
	struct iovec rep[3] = { { REP1, strlen(REP1) }, { REP2, strlen(REP2) },
				{ (void *)rep3, strlen(REP3) } };
	struct iovec in[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	struct iovec back[1] = { { d, sizeof(d) } };
	struct pollfd p = { .fd = c, .events = POLLIN };
	size_t nreq = strlen(REQ1) + strlen(REQ2), nrep = strlen(REP1) + strlen(REP2) + strlen(REP3);

	if (!rep3)
		return fail("the reply's file");
	if (poll(&p, 1, 0) != 0)
		return fail("poll before the reply");
	if (writev(c, req, 2) != (ssize_t)nreq)
		return fail("writev of the request");
	if (wait_one(ep, s) != EPOLLIN || readv(s, in, 2) != (ssize_t)nreq)
		return fail("readv of the request");
	if (readv(s, in, 2) != -1 || errno != EAGAIN)
		return fail("readv after the request");
	if (watch(ep, EPOLL_CTL_MOD, s, EPOLLOUT | EPOLLET) < 0 || wait_one(ep, s) != EPOLLOUT)
		return fail("EPOLLOUT");
	if (writev(s, rep, 3) != (ssize_t)nrep)
		return fail("writev of the reply");
	if (poll(&p, 1, 1000) != 1 || readv(c, back, 1) != (ssize_t)nrep)
		return fail("readv of the reply");
	if (watch(ep, EPOLL_CTL_MOD, s, EPOLLIN | EPOLLRDHUP | EPOLLET) < 0 || close(c) < 0)
		return fail("close of the client");
	if (wait_one(ep, s) != (EPOLLIN | EPOLLRDHUP) || readv(s, in, 2) != 0)
		return fail("the end of the request");
	return 0;
}

int main(void)
{
	struct sockaddr_in sa, peer;
	socklen_t len = sizeof(peer);
	int l, c, s, ep, one = 1;

	if ((l = listener(&sa)) < 0)
		return fail("listener");
	if ((c = client(&sa)) < 0)
		return fail("client");
	if ((ep = epoll_create1(EPOLL_CLOEXEC)) < 0 || watch(ep, EPOLL_CTL_ADD, l, EPOLLIN) < 0 ||
	    wait_one(ep, l) != EPOLLIN)
		return fail("epoll of the listener");
	s = accept4(l, (struct sockaddr *)&peer, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (s < 0 || setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		return fail("accept4");
	len = sizeof(peer) + 4;
	if (accept4(l, (struct sockaddr *)&peer, &len, SOCK_NONBLOCK | SOCK_CLOEXEC) != -1 ||
	    errno != EAGAIN)
		return fail("accept4 of no connection");
	if (watch(ep, EPOLL_CTL_ADD, s, EPOLLIN | EPOLLET) < 0 || epoll_ctl(ep, EPOLL_CTL_DEL, l, NULL) < 0)
		return fail("epoll_ctl");
	if (exchange(ep, s, c))
		return 1;
	if (epoll_ctl(ep, EPOLL_CTL_DEL, s, NULL) < 0 || close(s) || close(ep) || close(l))
		return fail("close");
	return 0;
}
