/*
 * The arguments of a call as strace -yy prints them (traceargs.c): strings
 * and buffers from the call's memory (ipcperf_syscall.mem) escaped as
 * strace escapes them, flags by name, common structs, fds with what they
 * are; the return value likewise.
 */
#ifndef IPCPERF_CLI_TRACEARGS_H
#define IPCPERF_CLI_TRACEARGS_H

#include <stdbool.h>
#include <stdio.h>
#include <ipcperf/ipcperf.h>

/* What the line of one call is printed with. */
struct traceargs {
	FILE *f;
	const struct ipcperf_syscall *ev;
	const struct ipcperf_call_fds *fds;
	unsigned int strsize;		/* -s */
	const char *cwd;		/* the process's working directory (AT_FDCWD<...>), or NULL */
	/* Return what fd @fd of the caller is when the call does not say, or NULL when unknown. */
	const struct ipcperf_fd_object *(*fd_object)(void *ctx, pid_t pid, int fd);
	void *ctx;
	/*
	 * When not NULL, traceargs_call() stores here the position in @f
	 * (ftell()) where what strace prints at the call's exit begins: the
	 * first argument the call writes (read's buffer, wait4's status), else
	 * its closing parenthesis. What comes before it is what strace -f
	 * prints at the entry, "read(3</dev/tty>, " before " <unfinished ...>".
	 */
	long *split;
};

/* Print NAME(ARGS): the call's name, its arguments and the closing parenthesis. */
void traceargs_call(const struct traceargs *a);

/*
 * Print what follows " = ": the return value as strace prints it, such as
 * "-1 ENOENT (No such ...)". It is in traceargs-ret.c.
 */
void traceargs_ret(const struct traceargs *a);

/*
 * Return the piece of the call's memory that argument @arg points to, of @kind
 * (any when 0), or NULL.
 */
const struct ipcperf_call_mem *traceargs_mem(const struct ipcperf_syscall *ev, unsigned int arg,
					     unsigned int kind);
/* Return the object of new fd @fd if the call's fds @fds have it; @fds may be NULL. */
const struct ipcperf_fd_object *traceargs_made(const struct ipcperf_call_fds *fds, int fd);

/*
 * Write the symbolic form of open flags, such as "O_WRONLY|O_CREAT|O_CLOEXEC",
 * into @buf and return it.
 */
const char *traceout_open_flags(char *buf, size_t len, uint64_t flags);

/* Print an fd and what it is, as strace -yy does: 3</etc/hosts>, 4<TCP:[1.2.3.4:5->6.7.8.9:10]>. */
void traceargs_fd(FILE *f, int fd, const struct ipcperf_fd_object *o);

#endif
