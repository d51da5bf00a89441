/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * envwork: a small program for tests/test-env.sh. It prints its environment,
 * one variable a line, in the order it got it, then opens and stats a few
 * files, so that a tracer's count of its openat and newfstatat calls (the
 * loader's among them) can be set against strace's.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

int main(void)
{
	static const char *const paths[] = { "/dev/null", "/etc/passwd", "/nonexistent-envwork" };
	struct stat st;

	for (char **e = environ; *e; e++)
		printf("%s\n", *e);
	fflush(stdout);
	for (unsigned int i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		int fd = open(paths[i], O_RDONLY | O_CLOEXEC);

		fstatat(AT_FDCWD, paths[i], &st, 0);
		if (fd >= 0)
			close(fd);
	}
	return 0;
}
