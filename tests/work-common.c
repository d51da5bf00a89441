/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the test workloads share: tests/work-common.h. */
#include "work-common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char *work_prog = "work";
const char *work_role = "main";
bool work_verbose;

void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s[%d]: ", work_prog, work_role, (int)getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	_exit(WORK_EXIT_BROKEN);
}

void note(const char *fmt, ...)
{
	va_list ap;

	if (!work_verbose)
		return;
	printf("%s: %s[%d]: ", work_prog, work_role, (int)getpid());
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

pid_t xfork(const char *child_role)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0 && child_role)
		work_role = child_role;
	return pid;
}

void reap(pid_t pid, const char *what)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid(%s %d): %s", what, (int)pid, strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die("%s %d failed (wait status 0x%x)", what, (int)pid, (unsigned int)status);
}

void xclose(int fd)
{
	/* Linux closes the fd even when close() fails with EINTR: never retry. */
	if (close(fd) < 0 && errno != EINTR)
		die("close(%d): %s", fd, strerror(errno));
}

void move_fd(int fd, int target)
{
	if (fd == target)
		return;
	if (dup2(fd, target) < 0)
		die("dup2(%d, %d): %s", fd, target, strerror(errno));
	xclose(fd);
}
