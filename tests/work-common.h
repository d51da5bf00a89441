/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * work-common: what the test workloads (tests/ipcwork.c, iowork.c,
 * flowwork.c, connwork.c, zcwork.c) share: the message a failed check dies
 * with, the lines -v says, and a fork, a wait and fd moves that cannot
 * fail quietly.
 *
 * Every message starts "PROG: ROLE[PID]: ", PROG the workload's name
 * (work_prog) and ROLE the part its process plays (work_role), so that a
 * test can tell which process of a workload said what.
 */
#ifndef IPCPERF_TESTS_WORK_COMMON_H
#define IPCPERF_TESTS_WORK_COMMON_H

#include <stdbool.h>
#include <sys/types.h>

/* The exit status of a workload whose check failed. */
enum { WORK_EXIT_BROKEN = 3 };

extern const char *work_prog;
extern const char *work_role;
/* -v: note() says its lines. */
extern bool work_verbose;

/*
 * The message on stderr, then _exit(WORK_EXIT_BROKEN): a forked child must
 * neither flush its parent's stdio buffers nor run its atexit handlers.
 */
__attribute__((format(printf, 1, 2), noreturn)) void die(const char *fmt, ...);

/*
 * With work_verbose, the message on stdout, flushed at once: a buffer left
 * over would be written again by a fork.
 */
__attribute__((format(printf, 1, 2))) void note(const char *fmt, ...);

/* fork() with stdio flushed first; in the child, @child_role (unless NULL) is work_role. */
pid_t xfork(const char *child_role);

/* Wait for @pid, the child that plays @what, and require that it exited 0. */
void reap(pid_t pid, const char *what);

/* close(), which must not fail (EINTR aside: Linux has closed the fd then). */
void xclose(int fd);

/* Put @fd on @target, and close @fd (nothing when it is there already). */
void move_fd(int fd, int target);

#endif
