/*
 * servework: an event-loop server and its client over a unix stream
 * socket, both on epoll with non-blocking I/O, whose every byte is known.
 *
 *   servework server PATH
 *       listens on PATH; answers each 64-byte request on a connection with
 *       a 256-byte reply, at once, until SIGTERM or SIGINT; then prints
 *       "conns C in BYTES out BYTES" and exits 0.
 *   servework client PATH CONNS DEPTH SECS
 *       opens CONNS connections to PATH and keeps DEPTH (1 to 8) requests
 *       in flight on each, at full speed, for SECS seconds; then reads the replies still
 *       due, closes, and prints "requests R out BYTES in BYTES" (out =
 *       64 R, in = 256 R) and exits 0.
 * Exit status 1 on any failure, with a line on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define REQ 64
#define REPLY 256
#define DEPTH 8
#define MAX_CONNS 256

struct conn {
	int fd;
	size_t got;		/* bytes of the request (server) or reply (client) under way */
	size_t owed;		/* server: reply bytes not yet written; client: request bytes */
	unsigned int due;	/* client: replies still to come */
};

static volatile sig_atomic_t stop;
static unsigned long long bytes_in, bytes_out;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static int die(const char *what)
{
	fprintf(stderr, "servework: %s: %s\n", what, strerror(errno));
	return 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int unix_addr(const char *path, struct sockaddr_un *a)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(a->sun_path, path);
	return 0;
}

static int watch(int ep, struct conn *c, uint32_t events, int op)
{
	struct epoll_event ev = { .events = events, .data.ptr = c };

	return epoll_ctl(ep, op, c->fd, &ev);
}

/* ------------------------------------------------------------------ server */

/* Write what @c is owed; wait for writability when the socket is full. @return -1 on error. */
static int serve_write(int ep, struct conn *c)
{
	static const char reply[REPLY * DEPTH];

	while (c->owed) {
		size_t n = c->owed < sizeof(reply) ? c->owed : sizeof(reply);
		ssize_t w = write(c->fd, reply, n);

		if (w < 0)
			return errno == EAGAIN ? watch(ep, c, EPOLLIN | EPOLLOUT, EPOLL_CTL_MOD) : -1;
		bytes_out += (unsigned long long)w;
		c->owed -= (size_t)w;
	}
	return watch(ep, c, EPOLLIN, EPOLL_CTL_MOD);
}

/* Read the requests that came; owe a reply for each whole one. @return 1 at EOF, -1 on error. */
static int serve_read(struct conn *c)
{
	char buf[REQ * DEPTH];

	for (;;) {
		ssize_t r = read(c->fd, buf, sizeof(buf));

		if (r == 0)
			return 1;
		if (r < 0)
			return errno == EAGAIN ? 0 : -1;
		bytes_in += (unsigned long long)r;
		c->got += (size_t)r;
		c->owed += c->got / REQ * REPLY;
		c->got %= REQ;
	}
}

static int serve_accept(int ep, int lfd, unsigned int *conns)
{
	int fd;

	while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		struct conn *c = calloc(1, sizeof(*c));

		if (!c)
			return -1;
		c->fd = fd;
		(*conns)++;
		if (watch(ep, c, EPOLLIN, EPOLL_CTL_ADD) < 0)
			return -1;
	}
	return errno == EAGAIN ? 0 : -1;
}

static int serve_conn(int ep, struct conn *c)
{
	int r = serve_read(c);

	if (r < 0 || serve_write(ep, c) < 0)
		return -1;
	if (r == 1) {
		epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
		free(c);
	}
	return 0;
}

static int server(const char *path)
{
	struct sockaddr_un a;
	struct conn lc = { 0 };
	unsigned int conns = 0;
	int ep = epoll_create1(EPOLL_CLOEXEC);

	lc.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (ep < 0 || lc.fd < 0 || unix_addr(path, &a) < 0)
		return die("socket");
	unlink(path);
	if (bind(lc.fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(lc.fd, MAX_CONNS) < 0 ||
	    watch(ep, &lc, EPOLLIN, EPOLL_CTL_ADD) < 0)
		return die(path);
	while (!stop) {
		struct epoll_event evs[64];
		int n = epoll_wait(ep, evs, 64, -1);

		if (n < 0 && errno != EINTR)
			return die("epoll_wait");
		for (int i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;

			if ((c == &lc ? serve_accept(ep, lc.fd, &conns) : serve_conn(ep, c)) < 0)
				return die("serve");
		}
	}
	unlink(path);
	printf("conns %u in %llu out %llu\n", conns, bytes_in, bytes_out);
	return fflush(stdout) ? 1 : 0;
}

/* ------------------------------------------------------------------ client */

/* Send the requests @c owes (the socket may take part of one). @return -1 on error. */
static int client_write(int ep, struct conn *c)
{
	static const char req[REQ * DEPTH];

	while (c->owed) {
		ssize_t w = write(c->fd, req + sizeof(req) - c->owed, c->owed);

		if (w < 0)
			return errno == EAGAIN ? watch(ep, c, EPOLLIN | EPOLLOUT, EPOLL_CTL_MOD) : -1;
		bytes_out += (unsigned long long)w;
		c->owed -= (size_t)w;
	}
	return watch(ep, c, EPOLLIN, EPOLL_CTL_MOD);
}

/* Take the replies that came; ask again for each while @more. @return -1 on error. */
static int client_read(struct conn *c, bool more, unsigned long long *requests)
{
	char buf[REPLY * DEPTH];

	for (;;) {
		ssize_t r = read(c->fd, buf, sizeof(buf));

		if (r == 0) {
			errno = ECONNRESET;
			return -1;
		}
		if (r < 0)
			return errno == EAGAIN ? 0 : -1;
		bytes_in += (unsigned long long)r;
		c->got += (size_t)r;
		for (; c->got >= REPLY; c->got -= REPLY) {
			c->due--;
			if (more) {
				c->due++;
				c->owed += REQ;
				(*requests)++;
			}
		}
	}
}

static int client_open(int ep, const char *path, struct conn *c, unsigned int depth,
		       unsigned long long *requests)
{
	struct sockaddr_un a;

	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || unix_addr(path, &a) < 0 ||
	    connect(c->fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return -1;
	if (fcntl(c->fd, F_SETFL, O_NONBLOCK) < 0 || watch(ep, c, EPOLLIN, EPOLL_CTL_ADD) < 0)
		return -1;
	c->due = depth;
	c->owed = REQ * depth;
	*requests += depth;
	return client_write(ep, c);
}

static int client(const char *path, int nconns, unsigned int depth, double secs)
{
	static struct conn cs[MAX_CONNS];
	unsigned long long requests = 0, due = 0;
	int ep = epoll_create1(EPOLL_CLOEXEC);
	double end;

	if (ep < 0)
		return die("epoll_create1");
	for (int i = 0; i < nconns; i++)
		if (client_open(ep, path, &cs[i], depth, &requests) < 0)
			return die(path);
	end = now_s() + secs;
	do {
		struct epoll_event evs[64];
		bool more = now_s() < end;
		int n = epoll_wait(ep, evs, 64, 100);

		if (n < 0 && errno != EINTR)
			return die("epoll_wait");
		for (int i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;

			if (client_read(c, more, &requests) < 0 || client_write(ep, c) < 0)
				return die("client");
		}
		due = 0;
		for (int i = 0; i < nconns; i++)
			due += cs[i].due;
	} while (now_s() < end || due);
	for (int i = 0; i < nconns; i++)
		close(cs[i].fd);
	printf("requests %llu out %llu in %llu\n", requests, bytes_out, bytes_in);
	return fflush(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_stop };

	if (argc == 3 && !strcmp(argv[1], "server")) {
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		return server(argv[2]);
	}
	if (argc == 6 && !strcmp(argv[1], "client")) {
		int n = atoi(argv[3]), depth = atoi(argv[4]);
		double secs = atof(argv[5]);

		if (n > 0 && n <= MAX_CONNS && depth > 0 && depth <= DEPTH && secs > 0)
			return client(argv[2], n, (unsigned int)depth, secs);
	}
	fprintf(stderr, "usage: servework server PATH | client PATH CONNS DEPTH SECS\n");
	return 1;
}
