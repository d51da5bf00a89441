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
/* Record that fd @fd of @pid is @o from now on; a copy of @o is kept. */
void tracefds_set(struct tracefds *t, pid_t pid, int fd, const struct ipcperf_fd_object *o);
/* Forget fd @fd of @pid, which is closed; with @fd -1, forget every fd of @pid, which exited. */
void tracefds_drop(struct tracefds *t, pid_t pid, int fd);
/* Return what fd @fd of @pid is, as last said, or NULL when unknown. */
const struct ipcperf_fd_object *tracefds_get(const struct tracefds *t, pid_t pid, int fd);
/*
 * Give a new process @child the fds of @parent, as fork copies them,
 * except those its own calls described already, which came before the
 * fork's return.
 */
void tracefds_fork(struct tracefds *t, pid_t parent, pid_t child);
/* Record what the call @ev with @fds said of its process's fds. */
void tracefds_take(struct tracefds *t, const struct ipcperf_syscall *ev,
		   const struct ipcperf_call_fds *fds);

#endif
