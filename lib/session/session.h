/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/session/: the public session (session.c), a source of records
 * (source/) feeding one pipeline (pipeline/). This folder may call
 * source/, pipeline/, fd/ (the /proc resolver it shares) and the ground
 * floor (lib/); the handlers (stats/, flows/, paths/) attach to it, and
 * lib/machine/ opens one.
 *
 * This is session.c's private side: how a consumer (the stats object,
 * account.c) attaches to a session. What the consumer receives then
 * (struct ipp_attach, filled in by the session's source: source.h) is
 * everything it needs of the session; it never calls back into it.
 */
#ifndef IPCPERF_SESSION_H
#define IPCPERF_SESSION_H

#include "internal.h"
#include "pipeline/pipeline.h"
#include "source/source.h"

/*
 * Register @h (as ipcperf_session__add_handlers() does) and describe the
 * session in *@at. When @on_start is not NULL, it is called with @h->ctx
 * once the session's events are on, or at once if they already are.
 * Returns 0, -EINVAL, -EBUSY when the session has started, or -ENOMEM.
 */
int ipp_session__attach(struct ipcperf_session *s, const struct ipcperf_handlers *h,
			void (*on_start)(void *ctx), struct ipp_attach *at);
/*
 * Make @fn take the calls the kernel added up (pipeline.h), provided @ok
 * says at the start that @ctx can take them. This is the stats' entry;
 * call it before the start.
 */
void ipp_session__take_sums(struct ipcperf_session *s, ipp_sum_fn fn, bool (*ok)(void *ctx),
			    void *ctx);
/*
 * Make @fn take the targets' scheduling (pipeline.h); this is the paths' entry.
 * Call it before the start.
 */
void ipp_session__take_sched(struct ipcperf_session *s, ipp_sched_fn fn, void *ctx);

#endif /* IPCPERF_SESSION_H */
