/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The system calls a session traces, and what each one does to fds and data. */
#include "config.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include "internal.h"
#include "syscalls.h"

#define NR(name) __NR_##name
#define IO IPCPERF_EV_IO
#define FDS IPCPERF_EV_FDS
#define WAITS IPCPERF_EV_WAITS
#define NEVER IPP_CLOEXEC_NEVER
#define NOFLAG IPP_CLOEXEC_UNKNOWN

/* name, nr, class, fd arg, count arg, ret counts messages, event set */
#define SC(n, cls, fd, cnt, msgs, set) \
	{ #n, NR(n), IPCPERF_SC_##cls, fd, cnt, msgs, set, IPP_FDOP_NONE, NOFLAG, 0, -1, NULL }
/* An fd call: what it does to the fd table, and where it says close-on-exec. */
#define FDC(n, cls, fd, op, flags_arg, cloexec) \
	{ #n, NR(n), IPCPERF_SC_##cls, fd, -1, false, FDS, IPP_FDOP_##op, flags_arg, cloexec, -1, NULL }
/*
 * A zero-copy move: bytes from the fd of argument @in into that of @out
 * (-1: one fd, which way by its open mode), counted from the return value.
 */
#define MV(n, tpname, in, out, cnt) \
	{ #n, NR(n), IPCPERF_SC_MOVE, in, cnt, false, IO, IPP_FDOP_NONE, NOFLAG, 0, out, tpname }

const struct ipp_scdesc ipp_syscalls[] = {
	SC(read, READ, 0, 2, false, IO),
	SC(write, WRITE, 0, 2, false, IO),
	SC(readv, READ, 0, 2, false, IO),
	SC(writev, WRITE, 0, 2, false, IO),
	SC(pread64, READ, 0, 2, false, IO),
	SC(pwrite64, WRITE, 0, 2, false, IO),
	SC(preadv, READ, 0, 2, false, IO),
	SC(pwritev, WRITE, 0, 2, false, IO),
	SC(sendto, WRITE, 0, 2, false, IO),
	SC(recvfrom, READ, 0, 2, false, IO),
	SC(sendmsg, WRITE, 0, -1, false, IO),
	SC(recvmsg, READ, 0, -1, false, IO),
	SC(sendmmsg, WRITE, 0, 2, true, IO),
	SC(recvmmsg, READ, 0, 2, true, IO),
	/* sendfile(out, in, off, count): on 64-bit its tracepoints say sendfile64 */
	MV(sendfile, "sendfile64", 1, 0, 3),
	MV(splice, NULL, 0, 2, 4),		/* splice(in, off_in, out, off_out, len, flags) */
	MV(tee, NULL, 0, 1, 2),			/* tee(in, out, len, flags) */
	MV(copy_file_range, NULL, 0, 2, 4),	/* copy_file_range(in, off_in, out, off_out, len, flags) */
	/* vmsplice(fd, iov, nr_segs, flags): into a pipe's write end, out of its read end */
	MV(vmsplice, NULL, 0, -1, 2),
	/* its requests' bytes are not seen: its return value counts them as not accounted */
	SC(io_uring_enter, OTHER, 0, 1, false, IO),
	FDC(close, FD_CLOSE, 0, CLOSE, NOFLAG, 0),
#ifdef __NR_close_range
	/* close_range(first, last, flags): no one fd (its fd is -1), a range */
	FDC(close_range, FD_CLOSE, -1, CLOSE_RANGE, NOFLAG, 0),
#endif
	FDC(dup, FD_NEW, 0, DUP, NEVER, 0),
#ifdef __NR_dup2
	FDC(dup2, FD_DUP2, 0, DUP2, NEVER, 0),
#endif
	FDC(dup3, FD_DUP2, 0, DUP2, 2, O_CLOEXEC),
	/* fcntl: F_DUPFD returns a new fd; the session tells the commands apart. */
	FDC(fcntl, FD_OTHER, 0, FCNTL, NOFLAG, 0),
#ifdef __NR_pipe
	FDC(pipe, FD_PAIR, -1, PAIR, NEVER, 0),
#endif
	FDC(pipe2, FD_PAIR, -1, PAIR, 1, O_CLOEXEC),
	FDC(socketpair, FD_PAIR, -1, PAIR, 1, SOCK_CLOEXEC),
	FDC(socket, FD_NEW, -1, NEW, 1, SOCK_CLOEXEC),
	FDC(accept, FD_NEW, 0, NEW, NEVER, 0),
	FDC(accept4, FD_NEW, 0, NEW, 3, SOCK_CLOEXEC),
	FDC(connect, FD_OTHER, 0, CONNECT, NOFLAG, 0),
	/* bind: the socket has its address now (a port of its own, for port 0) */
	FDC(bind, FD_OTHER, 0, CONNECT, NOFLAG, 0),
#ifdef __NR_open
	FDC(open, FD_NEW, -1, NEW, 1, O_CLOEXEC),
#endif
	FDC(openat, FD_NEW, -1, NEW, 2, O_CLOEXEC),
	/* its flags are in struct open_how: the kernel's record says close-on-exec */
	FDC(openat2, FD_NEW, -1, NEW, NOFLAG, 0),
#ifdef __NR_creat
	FDC(creat, FD_NEW, -1, NEW, NEVER, 0),
#endif
	/* fds of objects with no path: anon_inode:[eventfd], ... and memfd's files */
	FDC(eventfd2, FD_NEW, -1, NEW, 1, EFD_CLOEXEC),
#ifdef __NR_eventfd
	FDC(eventfd, FD_NEW, -1, NEW, NEVER, 0),
#endif
	FDC(epoll_create1, FD_NEW, -1, NEW, 0, EPOLL_CLOEXEC),
#ifdef __NR_epoll_create
	FDC(epoll_create, FD_NEW, -1, NEW, NEVER, 0),
#endif
	FDC(timerfd_create, FD_NEW, -1, NEW, 1, TFD_CLOEXEC),
	FDC(inotify_init1, FD_NEW, -1, NEW, 0, IN_CLOEXEC),
#ifdef __NR_inotify_init
	FDC(inotify_init, FD_NEW, -1, NEW, NEVER, 0),
#endif
	FDC(memfd_create, FD_NEW, -1, NEW, 1, MFD_CLOEXEC),
	/* always close-on-exec: the kernel's record says so */
	FDC(pidfd_open, FD_NEW, -1, NEW, NOFLAG, 0),
	/*
	 * An event loop's calls (flows): the fds each epoll fd watches, and
	 * the waits. poll and select take no fd argument (their sets are in
	 * user memory).
	 */
	SC(epoll_ctl, OTHER, 0, -1, false, WAITS),
#ifdef __NR_epoll_wait
	SC(epoll_wait, WAIT, 0, -1, false, WAITS),
#endif
	SC(epoll_pwait, WAIT, 0, -1, false, WAITS),
#ifdef __NR_epoll_pwait2
	SC(epoll_pwait2, WAIT, 0, -1, false, WAITS),
#endif
#ifdef __NR_poll
	SC(poll, WAIT, -1, -1, false, WAITS),
#endif
	SC(ppoll, WAIT, -1, -1, false, WAITS),
#ifdef __NR_select
	SC(select, WAIT, -1, -1, false, WAITS),
#endif
	SC(pselect6, WAIT, -1, -1, false, WAITS),
};
const size_t ipp_nr_syscalls = IPP_ARRAY_SIZE(ipp_syscalls);

const struct ipp_scdesc *ipp_scdesc_by_name(const char *name)
{
	for (size_t i = 0; i < ipp_nr_syscalls; i++)
		if (strcmp(ipp_syscalls[i].name, name) == 0 ||
		    (ipp_syscalls[i].tp && strcmp(ipp_syscalls[i].tp, name) == 0))
			return &ipp_syscalls[i];
	return NULL;
}

const char *ipp_scdesc_tp(const struct ipp_scdesc *sc)
{
	return sc->tp ? sc->tp : sc->name;
}

/* By number: built once, as every decoded raw_syscalls record looks its call up. */
static const struct ipp_scdesc **by_nr;
static size_t nr_by_nr;
static pthread_once_t by_nr_once = PTHREAD_ONCE_INIT;

static void build_by_nr(void)
{
	size_t n = 0;

	for (size_t i = 0; i < ipp_nr_syscalls; i++)
		if (ipp_syscalls[i].nr >= 0 && (size_t)ipp_syscalls[i].nr >= n)
			n = (size_t)ipp_syscalls[i].nr + 1;
	by_nr = calloc(n ? n : 1, sizeof(*by_nr));
	if (!by_nr)
		return;	/* out of memory: the slow way below */
	for (size_t i = 0; i < ipp_nr_syscalls; i++)
		if (ipp_syscalls[i].nr >= 0)
			by_nr[ipp_syscalls[i].nr] = &ipp_syscalls[i];
	nr_by_nr = n;
}

const struct ipp_scdesc *ipp_scdesc_by_nr(int nr)
{
	pthread_once(&by_nr_once, build_by_nr);
	if (by_nr)
		return nr >= 0 && (size_t)nr < nr_by_nr ? by_nr[nr] : NULL;
	for (size_t i = 0; i < ipp_nr_syscalls; i++)
		if (ipp_syscalls[i].nr == nr)
			return &ipp_syscalls[i];
	return NULL;
}

const char *ipp_syscall_name_any(int nr)
{
	/* Numbers newer than the headers we were built with; the kernel stops well below this. */
	static char other[4096][16];

	if (nr >= 0 && nr <= ipp_syscall_max)
		return ipp_syscall_names[nr];
	if (nr < 0 || nr >= (int)IPP_ARRAY_SIZE(other))
		return "syscall_unknown";
	if (!other[nr][0])
		snprintf(other[nr], sizeof(other[nr]), "syscall_%d", nr);
	return other[nr];
}

const char *ipcperf_syscall_name(int nr)
{
	if (nr < 0 || nr > ipp_syscall_max)
		return NULL;
	return ipp_syscall_names[nr];
}
