/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Targets: a command started corked, that is held before its exec (cmd.c),
 * and the ring size a session takes (rings-targets.c). The threads of
 * existing processes and what /proc says of them are in fd/proctask.h.
 */
#ifndef IPCPERF_TARGETS_H
#define IPCPERF_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "fd/proctask.h"

/*
 * The ring size a session takes when it is given none (ring_pages 0): the
 * largest power of two up to IPP_RING_PAGES_MAX_DEFAULT pages per CPU
 * whose rings (data and side-band, per online CPU) this process may lock
 * (perf_event_mlock_kb per CPU plus RLIMIT_MEMLOCK; anything with
 * CAP_IPC_LOCK, root's, or perf_event_paranoid -1) and the per-CPU budget
 * leaves the rings on that many CPUs (ipp_percpu__rings_kb(): no cap on
 * 1 or 2 CPUs, then 40 MiB in all, less on many). At least 1.
 */
#define IPP_RING_PAGES_MAX_DEFAULT 8192u	/* 32 MiB of 4 KiB pages */
unsigned int ipp_default_ring_pages(void);
/* The same, computed for a lock budget of @budget_kb KiB, @ncpus CPUs and pages of @page_kb KiB. */
unsigned int ipp_ring_pages_fit(unsigned long long budget_kb, long ncpus, unsigned long long page_kb);

/* A command forked and held before exec until released. */
struct ipp_cmd {
	pid_t pid;
	int go_fd;	/* parent writes here to release the child */
	int err_fd;	/* child reports exec's errno here; EOF means exec happened */
	bool started;
	bool reaped;
	int status;
};
int ipp_cmd__fork(struct ipp_cmd *c, char *const *argv);
/* Release the child. Returns 0 once it has exec'd, or the -errno of a failed exec. */
int ipp_cmd__release(struct ipp_cmd *c);
/* Kill the child if it was never released, and reap it. */
void ipp_cmd__abort(struct ipp_cmd *c);
int ipp_cmd__wait(struct ipp_cmd *c, int *status);

#endif /* IPCPERF_TARGETS_H */
