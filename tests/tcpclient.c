/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tcpclient: a socket client whose every call is known, for
 * tests/test-trace-strace.sh (ipcperf trace beside strace -f -yy).
 *
 *   tcpclient PORT
 *
 * Connects to 127.0.0.1:PORT, writes "ping\n", reads what the server says
 * (one read of at most 64 bytes), shuts its side down, closes and exits 0.
 * Raw system calls through libc, no stdio until an error: the same calls
 * on every run. A call that fails is said on stderr, exit 1.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int fail(const char *what)
{
	perror(what);
	return 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	char buf[64];
	int fd;

	if (argc != 2)
		return fprintf(stderr, "usage: tcpclient PORT\n"), 2;
	a.sin_port = htons((unsigned short)atoi(argv[1]));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail("socket");
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return fail("connect");
	if (write(fd, "ping\n", 5) != 5)
		return fail("write");
	if (read(fd, buf, sizeof(buf)) <= 0)
		return fail("read");
	if (shutdown(fd, SHUT_WR) < 0)
		return fail("shutdown");
	if (close(fd) < 0)
		return fail("close");
	return 0;
}
