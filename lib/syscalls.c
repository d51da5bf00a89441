/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The system calls a session traces, and what each one does to fds and data. */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include "internal.h"

#define NR(name) __NR_##name
#define IO IPCPERF_EV_IO
#define FDS IPCPERF_EV_FDS

/* name, nr, class, fd arg, count arg, ret counts messages, event set */
#define SC(n, cls, fd, cnt, msgs, set) { #n, NR(n), IPCPERF_SC_##cls, fd, cnt, msgs, set }

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
	SC(close, FD_CLOSE, 0, -1, false, FDS),
	SC(dup, FD_NEW, 0, -1, false, FDS),
#ifdef __NR_dup2
	SC(dup2, FD_DUP2, 0, -1, false, FDS),
#endif
	SC(dup3, FD_DUP2, 0, -1, false, FDS),
	/* fcntl: F_DUPFD returns a new fd; the session tells the commands apart. */
	SC(fcntl, FD_OTHER, 0, -1, false, FDS),
#ifdef __NR_pipe
	SC(pipe, FD_PAIR, -1, -1, false, FDS),
#endif
	SC(pipe2, FD_PAIR, -1, -1, false, FDS),
	SC(socketpair, FD_PAIR, -1, -1, false, FDS),
	SC(socket, FD_NEW, -1, -1, false, FDS),
	SC(accept, FD_NEW, 0, -1, false, FDS),
	SC(accept4, FD_NEW, 0, -1, false, FDS),
	SC(connect, FD_OTHER, 0, -1, false, FDS),
#ifdef __NR_open
	SC(open, FD_NEW, -1, -1, false, FDS),
#endif
	SC(openat, FD_NEW, -1, -1, false, FDS),
};
const size_t ipp_nr_syscalls = IPP_ARRAY_SIZE(ipp_syscalls);

const struct ipp_scdesc *ipp_scdesc_by_name(const char *name)
{
	for (size_t i = 0; i < ipp_nr_syscalls; i++)
		if (strcmp(ipp_syscalls[i].name, name) == 0)
			return &ipp_syscalls[i];
	return NULL;
}

const struct ipp_scdesc *ipp_scdesc_by_nr(int nr)
{
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
