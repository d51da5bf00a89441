/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * connwork: many connections whose bytes are known exactly, for the tests
 * of ipcperf stat's groups and peers (tests/test-groups.sh).
 *
 *   connwork tcp N --out FILE
 *	The main process M listens on 127.0.0.1:PORT, a port below the
 *	ephemeral range (from 20000 on, the first free one), and forks a
 *	server S, which accepts N connections one after another: on each it
 *	reads exactly 100 bytes, writes 200 bytes and closes it. M then
 *	connects N times from ephemeral ports: on each it writes 100 bytes,
 *	reads exactly 200 and closes it. So S reads 100 N bytes and writes
 *	200 N, M the reverse, over N connections each; M waits for S, writes
 *	"server PID\nclient PID\nport PORT\n" to FILE and exits 0.
 *
 *   connwork unix N --out FILE
 *	The same over a unix stream socket bound to FILE.sock (removed at
 *	the end), with "path FILE.sock" as the last line.
 *
 * Reads loop until they have their bytes (a stream may cut them);
 * anything unexpected exits 3 with a message on stderr.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

enum { EXIT_BROKEN = 3, EXIT_USAGE = 2, ASK = 100, ANSWER = 200 };

__attribute__((format(printf, 1, 2), noreturn))
static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "connwork[%d]: ", (int)getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_BROKEN);
}

static union {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_un un;
} addr;
static socklen_t addr_len;
static int family;

static void read_exactly(int fd, size_t n)
{
	char buf[ANSWER];

	while (n) {
		ssize_t r = read(fd, buf, n);

		if (r <= 0)
			die("read: %s", r ? strerror(errno) : "end of file");
		n -= (size_t)r;
	}
}

static void write_all(int fd, size_t n)
{
	char buf[ANSWER];

	memset(buf, 'c', sizeof(buf));
	if (write(fd, buf, n) != (ssize_t)n)
		die("write: %s", strerror(errno));
}

static int listen_tcp(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		die("socket: %s", strerror(errno));
	addr.in.sin_family = AF_INET;
	addr.in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	addr_len = sizeof(addr.in);
	for (int port = 20000; port < 32000; port++) {
		addr.in.sin_port = htons((uint16_t)port);
		if (bind(fd, &addr.sa, addr_len) == 0)
			return fd;
		if (errno != EADDRINUSE)
			break;
	}
	die("bind 127.0.0.1: %s", strerror(errno));
}

static int listen_unix(const char *path)
{
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	if (fd < 0)
		die("socket: %s", strerror(errno));
	addr.un.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(addr.un.sun_path))
		die("path too long: %s", path);
	strcpy(addr.un.sun_path, path);
	addr_len = sizeof(addr.un);
	unlink(path);
	if (bind(fd, &addr.sa, addr_len) < 0)
		die("bind %s: %s", path, strerror(errno));
	return fd;
}

static void serve(int lfd, long n)
{
	for (long i = 0; i < n; i++) {
		int c = accept(lfd, NULL, NULL);

		if (c < 0)
			die("accept: %s", strerror(errno));
		read_exactly(c, ASK);
		write_all(c, ANSWER);
		close(c);
	}
	exit(0);
}

static void ask(long n)
{
	for (long i = 0; i < n; i++) {
		int c = socket(family, SOCK_STREAM, 0);

		if (c < 0 || connect(c, &addr.sa, addr_len) < 0)
			die("connect: %s", strerror(errno));
		write_all(c, ASK);
		read_exactly(c, ANSWER);
		close(c);
	}
}

static void usage(const char *what)
{
	fprintf(stderr, "connwork: %s\nusage: connwork tcp|unix N --out FILE\n", what);
	exit(EXIT_USAGE);
}

int main(int argc, char **argv)
{
	char sock[4096];
	long n;
	int lfd, st;
	pid_t srv;
	FILE *f;

	if (argc != 5 || strcmp(argv[3], "--out"))
		usage("wrong arguments");
	n = strtol(argv[2], NULL, 10);
	if (n < 1 || n > 100000)
		usage("N: 1..100000");
	snprintf(sock, sizeof(sock), "%s.sock", argv[4]);
	if (!strcmp(argv[1], "tcp"))
		family = AF_INET, lfd = listen_tcp();
	else if (!strcmp(argv[1], "unix"))
		family = AF_UNIX, lfd = listen_unix(sock);
	else
		usage("tcp or unix");
	if (listen(lfd, 128) < 0)
		die("listen: %s", strerror(errno));
	srv = fork();
	if (srv < 0)
		die("fork: %s", strerror(errno));
	if (!srv)
		serve(lfd, n);
	close(lfd);
	ask(n);
	if (waitpid(srv, &st, 0) != srv || !WIFEXITED(st) || WEXITSTATUS(st))
		die("the server failed");
	f = fopen(argv[4], "w");
	if (!f)
		die("%s: %s", argv[4], strerror(errno));
	fprintf(f, "server %d\nclient %d\n", (int)srv, (int)getpid());
	if (family == AF_INET)
		fprintf(f, "port %d\n", ntohs(addr.in.sin_port));
	else
		fprintf(f, "path %s\n", sock), unlink(sock);
	return fclose(f) ? EXIT_BROKEN : 0;
}
