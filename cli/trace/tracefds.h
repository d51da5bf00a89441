/*
 * What each traced process's fds are, as the calls trace prints said it
 * (tracefds.c): so that an fd given to a call the library knows no fd
 * argument of (mmap, newfstatat, ioctl) is named too, as strace -yy does.
 */
#ifndef IPCPERF_CLI_TRACEFDS_H
#define IPCPERF_CLI_TRACEFDS_H

#include <stddef.h>
#include <sys/types.h>
#include <ipcperf/ipcperf.h>

struct tracefd {
	pid_t pid;
	int fd;
	struct ipcperf_fd_object o;	/* its strings owned here */
};

struct tracefds {
	struct tracefd *v;
	size_t n, cap;
};

void tracefds_fini(struct tracefds *t);
/* What fd @fd of @pid is from now on (a copy of @o). */
void tracefds_set(struct tracefds *t, pid_t pid, int fd, const struct ipcperf_fd_object *o);
/* Fd @fd of @pid is closed; @fd -1: every fd of @pid (it exited). */
void tracefds_drop(struct tracefds *t, pid_t pid, int fd);
/* What fd @fd of @pid is, as last said; NULL when unknown. */
const struct ipcperf_fd_object *tracefds_get(const struct tracefds *t, pid_t pid, int fd);
/*
 * A new process @child: its fds are @parent's, as fork copies them, but
 * for those its own calls said already (they came before the fork's return).
 */
void tracefds_fork(struct tracefds *t, pid_t parent, pid_t child);
/* What the call @ev with @fds said of its process's fds. */
void tracefds_take(struct tracefds *t, const struct ipcperf_syscall *ev,
		   const struct ipcperf_call_fds *fds);

#endif
