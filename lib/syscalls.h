/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * syscalls.c: the syscalls the session traces, and the name of any number.
 */
#ifndef IPCPERF_SYSCALLS_H
#define IPCPERF_SYSCALLS_H

#include "internal.h"

/* What a call does to the fd table (fdtable.c acts on it). */
enum ipp_fd_op {
	IPP_FDOP_NONE = 0,
	IPP_FDOP_NEW,		/* ret is a new fd of a new object: open, openat, socket, accept */
	IPP_FDOP_DUP,		/* ret is a copy of the fd argument: dup */
	IPP_FDOP_DUP2,		/* args[1] becomes a copy of args[0]: dup2, dup3 */
	IPP_FDOP_PAIR,		/* two new fds written to user memory: pipe, pipe2, socketpair */
	IPP_FDOP_CLOSE,
	IPP_FDOP_CONNECT,	/* the socket's peer is known from now on */
	IPP_FDOP_FCNTL,		/* by command: F_DUPFD* is a dup, F_SETFD sets close-on-exec */
	IPP_FDOP_CLOSE_RANGE,	/* the fds args[0] to args[1] end, or get close-on-exec */
};

/* A syscall the session traces through its own sys_enter_/sys_exit_ pair. */
struct ipp_scdesc {
	const char *name;		/* "write"; tracepoints sys_enter_<name>/sys_exit_<name> */
	int nr;				/* this architecture's number, -1 if it has none */
	enum ipcperf_sc_class cls;
	signed char fd_arg;		/* index of the fd argument, -1 if none */
	signed char count_arg;		/* index of the requested count, -1 if none */
	bool ret_is_msgs;		/* ret counts messages (sendmmsg/recvmmsg) */
	unsigned int set;		/* IPCPERF_EV_IO or IPCPERF_EV_FDS */
	enum ipp_fd_op fd_op;
	/*
	 * Whether a new fd closes at exec: the argument holding the flags and
	 * the flag that says so (O_CLOEXEC, SOCK_CLOEXEC); flags_arg -1: the
	 * call gives a new fd that stays open across exec (accept, dup, dup2),
	 * -2: it cannot be told.
	 */
	signed char flags_arg;
	unsigned int cloexec_flag;
	/* IPCPERF_SC_MOVE: the argument of the fd the bytes go into (fd_arg: they come from); -1 */
	signed char out_arg;
	/* its tracepoints' name when not the call's (sendfile: sys_enter_sendfile64); NULL */
	const char *tp;
};
/* flags_arg of a call whose new fd never closes at exec, and of one that cannot say. */
#define IPP_CLOEXEC_NEVER (-1)
#define IPP_CLOEXEC_UNKNOWN (-2)
extern const struct ipp_scdesc ipp_syscalls[];
extern const size_t ipp_nr_syscalls;
/* By the call's name or its tracepoints' (ipp_scdesc_tp()). */
const struct ipp_scdesc *ipp_scdesc_by_name(const char *name);
/* The name in its tracepoints: sys_enter_<this>, sys_exit_<this>. */
const char *ipp_scdesc_tp(const struct ipp_scdesc *sc);
const struct ipp_scdesc *ipp_scdesc_by_nr(int nr);
/* Generated at build time from <sys/syscall.h> (syscall-names.c). */
extern const int ipp_syscall_max;
extern const char *const ipp_syscall_names[];
/* Name of any syscall number: from the generated table, else "syscall_N"; static storage. */
const char *ipp_syscall_name_any(int nr);

#endif /* IPCPERF_SYSCALLS_H */
