/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Wait attribution for event loops (flows): which fds each epoll fd of a
 * process watches (epoll_create*, epoll_ctl, close), which fds had their
 * last write refused, and for each thread the last wait (epoll, poll,
 * select) that returned ready fds. A read the thread then makes on a
 * watched fd, or a write on one whose last write was refused or whose
 * channel was full during the wait (flows knows the fill), the first call
 * on that fd since the wait, is the fd that became ready: it gets a share
 * of the wait's time asleep. A wait that returned N ready fds is split in N
 * equal shares, one for each of the first N fds so served (a refused call
 * found its fd not ready: no share), so a thread's shares never add up to
 * more than its time asleep.
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

/* The wait a read or write was served after. */
struct ipp_waited {
	uint64_t start_ns;		/* the wait's start */
	uint64_t blocked_ns;		/* this fd's share of its time asleep */
	bool refused;			/* a write: the last write on its fd was refused (EAGAIN) */
};

/*
 * A read or write, in its thread's order (every one: a refused write is
 * remembered). @return true, with the wait in *@out, when it is the first
 * call on its fd since the thread's last wait returned ready fds, that
 * wait's set watches the fd (poll, select, and an epoll set made before the
 * capture, whose fds are unknown, watch any), @ev was not refused (EAGAIN)
 * and the wait has a share left for it. A reader waited for bytes; a
 * writer for room when its last write was refused (@out->refused) or, the
 * caller judges, when the channel was full during the wait.
 */
bool ipp_waits__served(struct ipp_waits *w, const struct ipcperf_syscall *ev,
		       struct ipp_waited *out);

#endif /* IPCPERF_WAITS_H */
