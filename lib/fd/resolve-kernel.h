/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel-records source of fd identity (resolve.h): what the BPF
 * program says a new fd is, at the exit of the call that made it, or what
 * a connected socket is connected to now (fdid-rec.h records, turned into
 * ipcperf_fd_open events by the pipeline). Exact, whatever the fd's life.
 *
 * Its words come with the events, not on request: the probe that writes
 * them may run just before or just after the call's exit tracepoint, so a
 * word is paired here with the exit of the same call on the same thread
 * (ipp_kwords), and a TCP/UDP or unix stream socket's peer is found among
 * the table's open incarnations (ipp_kernel_link_peer()).
 */
#ifndef IPCPERF_RESOLVE_KERNEL_H
#define IPCPERF_RESOLVE_KERNEL_H

#include "fd/fdtable.h"

/*
 * A kernel record (@raw, @size bytes of a bpf-output sample taken at
 * @time) as an fd_open event into @ev; its strings point into @buf.
 * @return 0, or -EINVAL when it is no fd identity record (an I/O note, a
 *   call or a sched record, or garbage).
 */
int ipp_kernel_fd_open(const void *raw, size_t size, uint64_t time, struct ipcperf_fd_open *ev,
		       struct ipp_ident *buf);

/* What the kernel said (@ev): exact, or unknown for an fd gone before it could be looked at. */
void ipp_ident_of_open(struct ipp_ident *id, const struct ipcperf_fd_open *ev);

/*
 * What @in (an incarnation of @incs, @n of them) says of its peer, and
 * back: the open incarnation whose addresses are @in's mirrored (inet), or
 * the other end of a connected unix stream socket.
 */
void ipp_kernel_link_peer(struct ipp_inc *incs, size_t n, struct ipp_inc *in);

/* The kernel's words waiting for their call's exit, and each thread's last exit. */
struct ipp_kwords;

/* @return an empty set, freed with ipp_kwords__delete(); NULL (ENOMEM). */
struct ipp_kwords *ipp_kwords__new(void);
void ipp_kwords__delete(struct ipp_kwords *k);

/*
 * A word on a new fd (@ev, not an update). When it follows its call's exit
 * (the thread's last exit is that call, and took no word before it):
 * @return true with *@pid and *@end_ns of that exit. Else it is held for
 * the exit to come, and false.
 */
bool ipp_kwords__word(struct ipp_kwords *k, const struct ipcperf_fd_open *ev, pid_t *pid,
		      uint64_t *end_ns);
/*
 * Call @ev exited: each word held for it (at most IPP_MAX_CALL_FDS) to
 * @apply; the words of another call of that thread (whose exit never
 * came) are dropped. With @track, the exit becomes the thread's last.
 * @return how many words were applied.
 */
size_t ipp_kwords__exit(struct ipp_kwords *k, const struct ipcperf_syscall *ev, bool track,
			void (*apply)(void *ctx, int fd, const struct ipp_ident *id), void *ctx);
/* Thread @tid exited: its last exit, and any word held for a call it never ended, go. */
void ipp_kwords__gone(struct ipp_kwords *k, pid_t tid);

#endif /* IPCPERF_RESOLVE_KERNEL_H */
