/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * exitwork: many short-lived processes whose bytes are known exactly, for
 * the test of ipcperf stat's folding of exited processes (tests/test-exitfold.sh).
 *
 *   exitwork N FILE [RATE]
 *	The main process M closes every fd above 2 (what the caller left
 *	open is not the children's), makes a pipe, then forks N children one
 *	after another, at most RATE a second when given (no exec: a fork is
 *	cheap, so thousands take seconds). Each
 *	child opens FILE, reads exactly 100 bytes from it, closes it, writes
 *	those 100 bytes into the pipe and exits; M reads them out (100 bytes,
 *	however the pipe cuts them) and waits for the child. So the children
 *	read 100 N bytes from FILE and write 100 N into the pipe, which M
 *	reads; M exits 0.
 *
 * Anything unexpected exits 3 with a message on stderr.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { EXIT_BROKEN = 3, EXIT_USAGE = 2, CHUNK = 100 };

__attribute__((noreturn)) static void broken(const char *what)
{
	fprintf(stderr, "exitwork: %s\n", what);
	exit(EXIT_BROKEN);
}

/* The child: FILE's first 100 bytes into the pipe's write end @w. */
__attribute__((noreturn)) static void child(const char *file, int w)
{
	char buf[CHUNK];
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, buf, CHUNK) != CHUNK || close(fd) < 0 ||
	    write(w, buf, CHUNK) != CHUNK)
		_exit(EXIT_BROKEN);
	_exit(0);
}

/* Exactly @n bytes from @fd. */
static void read_all(int fd, size_t n)
{
	char buf[CHUNK];

	while (n) {
		ssize_t r = read(fd, buf, n < sizeof(buf) ? n : sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			broken("the pipe ended early");
		n -= (size_t)r;
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Child @i of @rate a second starts no earlier than @i / @rate seconds after @t0. */
static void pace(uint64_t t0, long i, long rate)
{
	uint64_t due = t0 + (uint64_t)i * 1000000000ull / (uint64_t)rate, now = now_ns();
	struct timespec ts;

	if (now >= due)
		return;
	ts.tv_sec = (time_t)((due - now) / 1000000000ull);
	ts.tv_nsec = (long)((due - now) % 1000000000ull);
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	int p[2], st;
	long n, rate = 0;
	uint64_t t0;

	if ((argc != 3 && argc != 4) || (n = strtol(argv[1], NULL, 10)) <= 0 ||
	    (argc == 4 && (rate = strtol(argv[3], NULL, 10)) <= 0)) {
		fprintf(stderr, "usage: exitwork N FILE [RATE]\n");
		return EXIT_USAGE;
	}
	if (close_range(3, ~0U, 0) < 0 || pipe(p) < 0)
		broken("close_range or pipe failed");
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		pid_t pid;

		if (rate)
			pace(t0, i, rate);
		pid = fork();

		if (pid < 0)
			broken("fork failed");
		if (pid == 0)
			child(argv[2], p[1]);
		read_all(p[0], CHUNK);
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			broken("a child failed");
	}
	return 0;
}
