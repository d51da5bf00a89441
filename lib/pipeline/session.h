/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * session.c's private side: what a consumer (the stats object, account.c)
 * is handed when it attaches to a session. It gets everything it needs of
 * the session then, and never calls back into it.
 */
#ifndef IPCPERF_SESSION_H
#define IPCPERF_SESSION_H

#include "internal.h"
#include "pipeline/pipeline.h"

struct ipp_identlog;
struct ipp_procres;

struct ipp_attach {
	/*
	 * The processes targeted: pids, the tgids of tids, the command. The
	 * session's, valid as long as it is; none for a replay or -a.
	 */
	const pid_t *pids;
	size_t nr_pids;
	pid_t cmd_pid;		/* the command the session started (or recorded); 0: none */
	bool replay;		/* records come from a capture: no /proc, no kernel */
	bool kernel_fdid;	/* the kernel may describe the fds calls make (fd_open) */
	/*
	 * The identity log recorded into (@log_replay false) or replayed from
	 * (true); NULL when the session neither records nor replays one.
	 */
	struct ipp_identlog *log;
	bool log_replay;
	/*
	 * Live, not started, and without the kernel's words on fds: the /proc
	 * resolver that reads ahead of the merge as the session's records are
	 * taken, one for all its consumers (the session's: take a reference
	 * with ipp_procres__get()); NULL otherwise.
	 */
	struct ipp_procres *procres;
};

/*
 * Register @h (as ipcperf_session__add_handlers() does) and describe the
 * session into *@at. @on_start (when not NULL) is called with @h->ctx once
 * the session's events are on; at once if they already are.
 * @return 0, -EINVAL, -EBUSY (started), -ENOMEM.
 */
int ipp_session__attach(struct ipcperf_session *s, const struct ipcperf_handlers *h,
			void (*on_start)(void *ctx), struct ipp_attach *at);
/*
 * @fn takes the calls the kernel added up (pipeline.h), when @ok says
 * @ctx can at the start: the stats' entry. Before the start.
 */
void ipp_session__take_sums(struct ipcperf_session *s, ipp_sum_fn fn, bool (*ok)(void *ctx),
			    void *ctx);
/* @fn takes the targets' scheduling (pipeline.h: the paths' entry). Before the start. */
void ipp_session__take_sched(struct ipcperf_session *s, ipp_sched_fn fn, void *ctx);

#endif /* IPCPERF_SESSION_H */
