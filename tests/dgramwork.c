/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dgramwork: unix datagram and seqpacket sockets whose every call is known,
 * for tests/test-trace-strace.sh (ipcperf trace beside strace -f -yy, which
 * names them as the kernel does: "UNIX:[N->M]", where a stream socket is
 * "UNIX-STREAM:[N->M]").
 *
 *   dgramwork
 *
 * One process: a socketpair(AF_UNIX, SOCK_DGRAM) that sends "ping" one way
 * (sendto, no address) and "pong" the other (write), each read where it
 * lands (recvfrom, read); an unconnected socket(AF_UNIX, SOCK_DGRAM); a
 * socketpair(AF_UNIX, SOCK_SEQPACKET) with one message; each socket closed.
 * Raw system calls through libc, no stdio until an error: the same calls
 * on every run. A call that fails is said on stderr, exit 1.
 */
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

static int fail(const char *what)
{
	perror(what);
	return 1;
}

int main(void)
{
	int d[2], s[2], u;
	char buf[64];

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, d) < 0)
		return fail("socketpair dgram");
	if (sendto(d[0], "ping", 4, 0, NULL, 0) != 4 || recvfrom(d[1], buf, sizeof(buf), 0, NULL, NULL) != 4)
		return fail("ping");
	if (write(d[1], "pong", 4) != 4 || read(d[0], buf, sizeof(buf)) != 4)
		return fail("pong");
	u = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (u < 0)
		return fail("socket");
	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, s) < 0)
		return fail("socketpair seqpacket");
	if (write(s[0], "one message", 11) != 11 || read(s[1], buf, sizeof(buf)) != 11)
		return fail("seqpacket");
	if (close(d[0]) || close(d[1]) || close(u) || close(s[0]) || close(s[1]))
		return fail("close");
	return 0;
}
