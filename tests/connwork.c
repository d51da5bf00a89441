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
 *   connwork listen N --out FILE [--early K --go GO]
 *	A server alone, on a port the kernel picks (bind to port 0: one in
 *	net.ipv4.ip_local_port_range): it listens on 127.0.0.1:PORT, writes
 *	"server PID\nport PORT\n" to FILE (whole, by a rename), serves N
 *	connections as tcp's S does and exits 0. With --early, it first
 *	accepts K connections and keeps them, creates FILE.held, waits until
 *	the file GO exists, and serves those K (in accept order) before the N.
 *
 *   connwork connect PORT N --out FILE [--early K --go GO]
 *	Its client: writes "client PID\n" to FILE, then makes N connections
 *	to 127.0.0.1:PORT as tcp's M does and exits 0. With --early, it first
 *	makes K connections, waits until GO exists, and asks on each of them
 *	(in order) before the N.
 *   connwork tcp|unix N --out FILE --hold
 *	For a server traced alone (-p S): M writes "server PID\n" to
 *	FILE.pid once S is forked and connects only when FILE.go exists;
 *	it keeps each connection open (N <= 5000: its fds, the limit on open
 *	files raised to fit) until FILE is written and FILE.release exists,
 *	so that its sockets can still be found at the end of a capture.
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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "work-common.h"

enum { EXIT_USAGE = 2, ASK = 100, ANSWER = 200 };

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

/* A TCP socket, and addr 127.0.0.1:@port. */
static int loopback_socket(uint16_t port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		die("socket: %s", strerror(errno));
	addr.in.sin_family = AF_INET;
	addr.in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	addr.in.sin_port = htons(port);
	addr_len = sizeof(addr.in);
	return fd;
}

static int listen_tcp(void)
{
	int fd = loopback_socket(0);

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

/* Until the file @path exists (a minute at most). */
static void wait_for(const char *path)
{
	for (int i = 0; access(path, F_OK) < 0; i++) {
		if (i == 6000)
			die("%s never came", path);
		usleep(10000);
	}
}

static int listen_any(void)
{
	int fd = loopback_socket(0);

	if (bind(fd, &addr.sa, addr_len) < 0 || listen(fd, 128) < 0 ||
	    getsockname(fd, &addr.sa, &addr_len) < 0)
		die("bind 127.0.0.1:0, listen: %s", strerror(errno));
	return fd;
}

/* One exchange on each of @fds (@n of them), the server's side or the client's, then closed. */
static void exchange(const int *fds, long n, bool server)
{
	for (long i = 0; i < n; i++) {
		if (server) {
			read_exactly(fds[i], ASK);
			write_all(fds[i], ANSWER);
		} else {
			write_all(fds[i], ASK);
			read_exactly(fds[i], ANSWER);
		}
		close(fds[i]);
	}
}

static void ask(long n, bool hold)
{
	for (long i = 0; i < n; i++) {
		int c = socket(family, SOCK_STREAM, 0);

		if (c < 0 || connect(c, &addr.sa, addr_len) < 0)
			die("connect: %s", strerror(errno));
		write_all(c, ASK);
		read_exactly(c, ANSWER);
		if (!hold)
			close(c);
	}
}

/* The limit on open files raised to hold @n connections (beyond the soft limit: root's right). */
static void fds_for(long n)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		die("getrlimit: %s", strerror(errno));
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur >= (rlim_t)n + 64)
		return;
	rl.rlim_cur = (rlim_t)n + 64;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < rl.rlim_cur)
		rl.rlim_max = rl.rlim_cur;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		die("%ld connections held need %ld open files: setrlimit: %s", n, n + 64,
		    strerror(errno));
}

/* With --hold: "server PID" into FILE.pid, then FILE.go awaited. */
static void hold_start(const char *out, pid_t srv)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s.pid", out);
	f = fopen(path, "w");
	if (!f || fprintf(f, "server %d\n", (int)srv) < 0 || fclose(f))
		die("%s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "%s.go", out);
	wait_for(path);
}

static void usage(const char *what)
{
	fprintf(stderr, "connwork: %s\nusage: connwork tcp|unix N --out FILE [--hold]\n"
		"       connwork listen N --out FILE [--early K --go GO]\n"
		"       connwork connect PORT N --out FILE [--early K --go GO]\n", what);
	exit(EXIT_USAGE);
}

/* FILE of --out written whole: a reader polling for it never sees it half written. */
static void write_info(const char *path, const char *text)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) || rename(tmp, path) < 0)
		die("%s: %s", path, strerror(errno));
}

/* The K connections of --early (accepted from @lfd, or made), then the file GO awaited. */
static int *early_fds(int lfd, long k, const char *held, const char *go)
{
	int *fds = calloc((size_t)k + 1, sizeof(*fds));

	if (!fds)
		die("out of memory");
	for (long i = 0; i < k; i++) {
		fds[i] = lfd >= 0 ? accept(lfd, NULL, NULL) : socket(AF_INET, SOCK_STREAM, 0);
		if (fds[i] < 0 || (lfd < 0 && connect(fds[i], &addr.sa, addr_len) < 0))
			die("early connection %ld: %s", i, strerror(errno));
	}
	if (held)
		write_info(held, "");
	wait_for(go);
	return fds;
}

/* The options after --out FILE of listen and connect. */
struct apart_opts {
	long early;
	const char *go;
};

static void apart_opts(int argc, char **argv, int i, struct apart_opts *o)
{
	for (; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--early"))
			o->early = strtol(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--go"))
			o->go = argv[i + 1];
		else
			usage("wrong arguments");
	}
	if (i != argc || (o->early && !o->go) || (!o->early && o->go))
		usage("wrong arguments: --early K and --go GO go together");
	if (o->early < 0 || o->early > 1000)
		usage("K: 1..1000");
}

/* listen and connect: argv[i...] is N --out FILE [--early K --go GO]. */
static int apart(int argc, char **argv, int i)
{
	bool server = !strcmp(argv[1], "listen");
	long n = strtol(argv[i], NULL, 10);
	struct apart_opts o = { 0 };
	char text[128], held[4096];
	int lfd = -1, *fds = NULL;

	if (argc < i + 3 || strcmp(argv[i + 1], "--out"))
		usage("wrong arguments");
	apart_opts(argc, argv, i + 3, &o);
	if (n < 1 || n > 100000)
		usage("N: 1..100000");
	family = AF_INET;
	if (server) {
		lfd = listen_any();
		snprintf(text, sizeof(text), "server %d\nport %d\n", (int)getpid(),
			 ntohs(addr.in.sin_port));
	} else {
		addr.in.sin_family = AF_INET;
		addr.in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		addr.in.sin_port = htons((uint16_t)strtol(argv[2], NULL, 10));
		addr_len = sizeof(addr.in);
		snprintf(text, sizeof(text), "client %d\n", (int)getpid());
	}
	write_info(argv[i + 2], text);
	snprintf(held, sizeof(held), "%s.held", argv[i + 2]);
	if (o.early)
		fds = early_fds(lfd, o.early, server ? held : NULL, o.go);
	exchange(fds, o.early, server);
	free(fds);
	if (server)
		serve(lfd, n);
	ask(n, false);
	return 0;
}

int main(int argc, char **argv)
{
	char sock[4096];
	long n;
	int lfd = -1, st;
	bool hold;
	pid_t srv;
	FILE *f;

	work_prog = "connwork";
	if (argc > 2 && !strcmp(argv[1], "listen"))
		return apart(argc, argv, 2);
	if (argc > 3 && !strcmp(argv[1], "connect"))
		return apart(argc, argv, 3);
	if ((argc != 5 && argc != 6) || strcmp(argv[3], "--out") ||
	    (argc == 6 && strcmp(argv[5], "--hold")))
		usage("wrong arguments");
	hold = argc == 6;
	n = strtol(argv[2], NULL, 10);
	if (n < 1 || n > (hold ? 5000 : 100000))
		usage("N: 1..100000 (1..5000 with --hold)");
	if (hold)
		fds_for(n);
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
	if (hold)
		hold_start(argv[4], srv);
	ask(n, hold);
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
	if (fclose(f))
		return WORK_EXIT_BROKEN;
	if (hold) {
		snprintf(sock, sizeof(sock), "%s.release", argv[4]);
		wait_for(sock);
	}
	return 0;
}
