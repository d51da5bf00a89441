/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A command started corked: forked, held before exec until released (targets.h). */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "internal.h"
#include "source/targets.h"

/*
 * The child blocks on go_fd before exec so that events can be opened on its
 * pid with enable_on_exec: counting starts exactly at exec, and nothing of
 * the command's run is missed. err_fd is close-on-exec: EOF there means the
 * exec happened; four bytes are the errno of a failed exec.
 */
int ipp_cmd__fork(struct ipp_cmd *c, char *const *argv)
{
	int go[2], err[2];

	memset(c, 0, sizeof(*c));
	c->pid = -1;
	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) < 0) {
		int e = -errno;
		close(go[0]);
		close(go[1]);
		return e;
	}
	c->pid = fork();
	if (c->pid < 0) {
		int e = -errno;
		close(go[0]); close(go[1]); close(err[0]); close(err[1]);
		return e;
	}
	if (c->pid == 0) {
		char b = 0;
		int e;

		close(go[1]);
		close(err[0]);
		while (read(go[0], &b, 1) < 0 && errno == EINTR)
			;
		close(go[0]);
		if (b != 'g')
			_exit(127);	/* the parent gave up: never run the command */
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	c->go_fd = go[1];
	c->err_fd = err[0];
	return 0;
}

int ipp_cmd__release(struct ipp_cmd *c)
{
	char b = 'g';
	int e = 0;
	ssize_t n;

	if (write(c->go_fd, &b, 1) != 1)
		return -errno;
	close(c->go_fd);
	c->go_fd = -1;
	c->started = true;
	do
		n = read(c->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	if (n == sizeof(e)) {
		waitpid(c->pid, &c->status, 0);
		c->reaped = true;
		return -(e ? e : ENOEXEC);
	}
	return 0;
}

void ipp_cmd__abort(struct ipp_cmd *c)
{
	if (c->pid <= 0)
		return;
	if (!c->started) {
		/* Closing go_fd without a 'g' makes the child exit without exec. */
		if (c->go_fd >= 0)
			close(c->go_fd);
		if (c->err_fd >= 0)
			close(c->err_fd);
		c->go_fd = c->err_fd = -1;
		if (!c->reaped && waitpid(c->pid, &c->status, 0) == c->pid)
			c->reaped = true;
		return;
	}
	if (!c->reaped && waitpid(c->pid, &c->status, WNOHANG) == c->pid)
		c->reaped = true;
}

int ipp_cmd__wait(struct ipp_cmd *c, int *status)
{
	if (c->pid <= 0)
		return -ECHILD;
	if (!c->reaped) {
		pid_t r;

		do
			r = waitpid(c->pid, &c->status, 0);
		while (r < 0 && errno == EINTR);
		if (r < 0)
			return -errno;
		c->reaped = true;
	}
	if (status)
		*status = c->status;
	return 0;
}
