/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fd identity record the BPF programs (fdid.bpf.c) write, its decoder,
 * and the contract of the programs' maps: both sides include this header.
 * Every kernel record starts with the header of krec.h; the call record
 * is in call-rec.h, the sched record in sched-rec.h. A record is the RAW
 * data of a PERF_COUNT_SW_BPF_OUTPUT sample, in the same per-CPU rings (and
 * the same sample layout: IDENTIFIER, TID, TIME, CPU, RAW) as the session's
 * tracepoint samples; the sample's id tells it apart.
 *
 * Layout rules, so that old readers survive new writers:
 *  - version changes only when a field changes meaning or place; fields are
 *    only ever added at the end of the fixed part (before path), with size
 *    telling how much of the record was written;
 *  - a record is variable-sized: size is the bytes written (the kernel pads
 *    the RAW data to 8 bytes, so the sample's raw size may be larger). An
 *    IO record is the first IPP_FDID_REC_IO_SIZE bytes only; a NEW or
 *    UPDATE record is IPP_FDID_REC_HDR_SIZE bytes plus path_len + 1 (the
 *    path's NUL), path_len 0 when there is no path;
 *  - little endian like the host (the rings never leave the machine
 *    untranslated: captures keep the host's byte order in their header).
 *
 * Values are the kernel's at the exit of the call, read from its own
 * structures through current->files->fdt->fd[fd]; see lib/bpf/README.md.
 */
#ifndef IPCPERF_FDID_REC_H
#define IPCPERF_FDID_REC_H

#include "krec.h"

/* Bytes of path[], its NUL included: paths longer keep their last 255 bytes. */
#define IPP_FDID_PATH_MAX 256

/* What the object is. */
enum ipp_fdid_kind {
	IPP_FDID_NOFILE = 0,	/* fd was not open when the program looked (closed by another thread) */
	IPP_FDID_FILE = 1,	/* regular file, directory, device, symlink (O_PATH): path */
	IPP_FDID_FIFO = 2,	/* named pipe: path, capacity */
	IPP_FDID_PIPE = 3,	/* anonymous pipe (pipefs): ino, capacity */
	IPP_FDID_SOCKET = 4,	/* socket: family, type, protocol, state, addresses, peer */
	IPP_FDID_ANON = 5,	/* anon_inode (eventfd, epoll, ...): path is its name, "[eventfd]" */
};

/* flags */
#define IPP_FDID_F_CLOEXEC	0x0001	/* fd is close-on-exec */
#define IPP_FDID_F_PATH_TRUNC	0x0002	/* path is its last bytes: the walk hit its bounds */
#define IPP_FDID_F_DELETED	0x0004	/* the file has no link left (/proc would say " (deleted)") */
#define IPP_FDID_F_PEER_PENDING	0x0008	/* unix: connected to a socket not yet accept()ed: peer_ino 0 */
#define IPP_FDID_F_UNREACHABLE	0x0010	/* the path is outside the task's root: relative to its mount */

struct ipp_fdid_rec {
	/* --- IO records end after ino (IPP_FDID_REC_IO_SIZE) */
	IPP_KREC_HDR(kind);	/* kind: enum ipp_fdid_kind; flags: IPP_FDID_F_*; pid: the caller's tgid */
	__s32 fd;
	__s32 nr;		/* syscall number of the call (this architecture's) */
	__s64 ret;		/* its return value */
	__u64 dev;		/* st_dev of the object, as stat(2) gives it */
	__u64 ino;		/* st_ino (pipe and socket inodes too) */
	/* --- NEW and UPDATE records go on */
	__u32 mode;		/* i_mode: S_IFMT type and permission bits */
	__u32 f_flags;		/* open flags of the file (O_ACCMODE, O_NONBLOCK, O_APPEND, ...) */
	__u64 peer_ino;		/* unix socket: inode of the peer socket; 0 none (see flags) */
	__u32 capacity;		/* pipe, FIFO: bytes it holds (F_GETPIPE_SZ); socket: sk_sndbuf */
	__u32 rcvbuf;		/* socket: sk_rcvbuf */
	__u16 family;		/* socket: AF_UNIX, AF_INET, AF_INET6, ... */
	__u16 type;		/* socket: SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET, ... */
	__u16 protocol;		/* socket: IPPROTO_TCP, IPPROTO_UDP, ... (sk_protocol) */
	__u16 state;		/* socket: TCP_* state (unix uses the same values) */
	__u16 sport;		/* inet: local port, host order (0: unbound) */
	__u16 dport;		/* inet: remote port, host order (0: unconnected) */
	__u32 rdev;		/* device files: st_rdev (what a tty is told by) */
	__u8 saddr[16];		/* inet: local address: AF_INET in the first 4 bytes, network order */
	__u8 daddr[16];		/* inet: remote address */
	__u16 path_len;		/* bytes in path before its NUL */
	__u16 pad1;
	__u32 pad2;
	/*
	 * FILE, FIFO: the absolute path as the kernel resolved it, from the
	 * fd's dentry up to the task's root across mounts (what
	 * /proc/PID/fd/N shows, without " (deleted)"); ANON: the dentry's
	 * name; empty otherwise.
	 */
	char path[IPP_FDID_PATH_MAX];
};

#define IPP_FDID_REC_IO_SIZE 48
#define IPP_FDID_REC_HDR_SIZE 128
_Static_assert(__builtin_offsetof(struct ipp_fdid_rec, mode) == IPP_FDID_REC_IO_SIZE,
	       "IO records are the fields before mode");
_Static_assert(__builtin_offsetof(struct ipp_fdid_rec, path) == IPP_FDID_REC_HDR_SIZE,
	       "the fixed part ends where path starts");

/* Syscall numbers the programs' by-number maps (want, fd_calls) hold: 0 to IPP_FDID_MAX_NR - 1. */
#define IPP_FDID_MAX_NR 1024
/* tgids the programs' target bitmap covers: PID_MAX_LIMIT on 64-bit (higher ones: the map only). */
#define IPP_FDID_TARGET_BITS (1u << 22)

/*
 * What the sys_exit program does for a call, by number (the fd_calls map,
 * which the loader fills with this architecture's numbers).
 */
enum ipp_fdid_call_kind {
	IPP_FDID_K_NONE = 0,
	IPP_FDID_K_RET,		/* the return value is a new fd: open, socket, accept, dup, eventfd2, ... */
	IPP_FDID_K_FCNTL,	/* fcntl: F_DUPFD and F_DUPFD_CLOEXEC return a new fd */
	IPP_FDID_K_PAIR1,	/* pipe, pipe2: the int[2] of argument 1 */
	IPP_FDID_K_PAIR4,	/* socketpair: the int[2] of argument 4 */
	IPP_FDID_K_CONNECT,	/* connect, bind: the fd of argument 1 has a peer, or an address, now (UPDATE) */
	IPP_FDID_K_RECVMSG,	/* recvmsg: the fds of its SCM_RIGHTS (and its IO record, if asked) */
	IPP_FDID_K_IO,		/* read, write, ...: the IO record of argument 1 (when asked) */
};

/* Counters the program keeps (a per-CPU array map, "stats"). */
enum ipp_fdid_stat {
	IPP_FDID_ST_EMITTED = 0,	/* records written into a ring */
	IPP_FDID_ST_OUT_FAIL,		/* records the ring had no room for (also counted as lost there) */
	IPP_FDID_ST_NOFILE,		/* fd not open at the program's look */
	IPP_FDID_ST_TRUNC,		/* paths cut at their bounds */
	IPP_FDID_ST_CHILDREN,		/* processes added by following forks */
	IPP_FDID_ST_TARGET_FULL,	/* children not added: the target map was full */
	IPP_FDID_ST_GONE,		/* targets removed at their exit */
	IPP_FDID_ST_CALLS,		/* call records written or tried (per CPU: what fired there) */
	IPP_FDID_ST_CALL_FAIL,		/* call records the ring had no room for */
	IPP_FDID_ST_CALLS_FULL,		/* sys_enters not kept: no memory for the thread's slot */
	IPP_FDID_ST_ENTERED,		/* sys_enters kept */
	IPP_FDID_ST_DONE,		/* ... whose exit was paired with them: the rest never ended */
	IPP_FDID_ST_SCHED_FULL,		/* switches and wakeups not counted: sched_tot was full */
	IPP_FDID_ST_SCHED_LOST,		/* exited threads' counts dropped: no room for their record, tid reused */
	IPP_FDID_ST_SUMS,		/* fd summary records written or tried */
	IPP_FDID_ST_SUM_FAIL,		/* fd summary records the ring had no room for: their calls lost */
	IPP_FDID_ST_SUM_FULL,		/* calls not added up (the agg map full): a call record each */
	IPP_FDID_NR_STATS,
};

#ifndef __bpf__
/* ---------------------------------------------------------------- userspace: lib/bpf/fdid-rec.c */
#include <stddef.h>
#include "fdid.h"

/*
 * Check the RAW data of one bpf-output sample (@size bytes, not aligned)
 * and copy the record into @out, zero-filled past its size, with the path
 * NUL-terminated. Pure. Returns 0, -ENOTSUP for another version, or -EPROTO
 * when @size or the record's own size is too small for its kind of record,
 * or when path_len does not fit.
 */
int ipp_fdid_rec__parse(const void *raw, size_t size, struct ipp_fdid_rec *out);

/*
 * Fill @out with what a NEW or UPDATE record says, in the form
 * lib/fd/procfd.c gives from /proc and sock_diag: kind, object ("pipe:[N]",
 * "socket:[N]", "/path" with " (deleted)", "anon_inode:[eventfd]"), ino,
 * dev, flags, and for sockets the family, type, protocol, state, local and
 * remote addresses, unix peer and buffer sizes (diag is true because the
 * kernel said so). A TCP/UDP socket's peer_ino stays 0: the other end is
 * found by its addresses. Returns 0, -ENOENT for a NOFILE record (the fd
 * was gone), or -EINVAL for an IO record.
 */
int ipp_fdid_rec__to_fdid(const struct ipp_fdid_rec *r, struct ipp_fdid *out);

#endif

#endif /* IPCPERF_FDID_REC_H */
