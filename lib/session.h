/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * session.c's private side: what a consumer attached to a session (the stats
 * object, account.c) learns of it.
 */
#ifndef IPCPERF_SESSION_H
#define IPCPERF_SESSION_H

#include "internal.h"

struct ipp_identlog;

/*
 * The session's identity log: recording (@replay false) or replaying (true);
 * NULL when the session neither records nor replays one.
 */
struct ipp_identlog *ipp_session_identlog(const struct ipcperf_session *s, bool *replay);

/* The processes a session targets (pids, the command, tgids of tids); session-owned. */
const pid_t *ipp_session_target_pids(const struct ipcperf_session *s, size_t *nr);

/* The kernel may describe the fds the targets make (ipcperf_handlers.fd_open). */
bool ipp_session_kernel_fdid(const struct ipcperf_session *s);

/* The session replays a capture (ipcperf_session__open_file): no /proc, no kernel. */
bool ipp_session_is_replay(const struct ipcperf_session *s);

/* Call @fn(@ctx) once the session's events are on (now, if they are). @return 0, -ENOMEM. */
int ipp_session_on_start(struct ipcperf_session *s, void (*fn)(void *ctx), void *ctx);

#endif /* IPCPERF_SESSION_H */
