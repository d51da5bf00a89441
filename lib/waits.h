/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Wait attribution for event loops (flows): which fds each epoll fd of a
 * process watches (epoll_create*, epoll_ctl, close), which fds had their
 * last write refused, and for each thread the last wait (epoll, poll,
 * select) that returned ready fds. A read the thread then makes on a
 * watched fd, or a write on one whose last write was refused, the first
 * call on that fd since the wait, is the fd that became ready: the wait's
 * time asleep is put on it.
 */
#ifndef IPCPERF_WAITS_H
#define IPCPERF_WAITS_H

#include <stdbool.h>
#include <stdint.h>
#include "internal.h"

struct ipp_waits;

struct ipp_waits *ipp_waits__new(void);
void ipp_waits__delete(struct ipp_waits *w);

/* Whether @ev is a call the waits follow (epoll_create*, epoll_ctl, a wait, close). */
bool ipp_waits__follows(const struct ipcperf_syscall *ev);

/* Feed a call ipp_waits__follows() took, in the order its thread made it. */
void ipp_waits__call(struct ipp_waits *w, const struct ipcperf_syscall *ev);

/*
 * A read or write, in its thread's order (every one: a refused write is
 * remembered). @return true, with the wait's time asleep in *@blocked_ns,
 * when it is the first call on its fd since the thread's last wait returned
 * ready fds, that wait's set watches the fd (poll, select, and an epoll set
 * made before the capture, whose fds are unknown, watch any), and, for a
 * write, the last write on the fd before it was refused (EAGAIN): a writer
 * waits for room only then.
 */
bool ipp_waits__served(struct ipp_waits *w, const struct ipcperf_syscall *ev,
		       uint64_t *blocked_ns);

#endif /* IPCPERF_WAITS_H */
