/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/session/: the public session (session.c), a source of records
 * (source/) feeding one pipeline (pipeline/). This folder may call
 * source/, pipeline/, fd/ (the /proc resolver it shares) and the ground
 * floor (lib/); the handlers (stats/, flows/, paths/) attach to it, and
 * lib/machine/ opens one.
 *
 * session.c's private side: how a consumer (the stats object, account.c)
 * attaches to a session. What it is handed then (struct ipp_attach, which
 * the session's source describes: source.h) is everything it needs of the
 * session; it never calls back into it.
 */
#ifndef IPCPERF_SESSION_H
#define IPCPERF_SESSION_H

#include "internal.h"
#include "pipeline/pipeline.h"
#include "source/source.h"

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
