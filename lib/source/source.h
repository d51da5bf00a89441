/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where a session's records come from: the live rings of the kernel
 * (rings.c) or a capture (replay.c). session.c drives either through these
 * operations, which both have; what only one of them does (the live one's
 * capture, tap, poll fd, wait and command; a replay's partial file) it
 * calls directly, by name. Both feed the session's pipeline (pipeline.h).
 */
#ifndef IPCPERF_SOURCE_H
#define IPCPERF_SOURCE_H

#include "pipeline/pipeline.h"

struct ipp_identlog;
struct ipp_procres;

/* What a consumer attaching to a session is handed (session.h), as its source describes it. */
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

struct ipp_source;

struct ipp_source_ops {
	/* Open what is needed, start delivering. @return 0 or -errno (explained). */
	int (*start)(struct ipp_source *src);
	/* Read what there is, deliver what is in order. @return events delivered, or -errno. */
	int (*consume)(struct ipp_source *src);
	/* Nothing more will come. */
	bool (*done)(const struct ipp_source *src);
	/* Read and deliver everything left. @return events delivered, or -errno. */
	int (*stop)(struct ipp_source *src);
	/* The source's part of ipcperf_session__stats(). */
	void (*stats)(const struct ipp_source *src, bool stopped, struct ipcperf_session_stats *v);
	int (*read_counters)(const struct ipp_source *src, pid_t pid,
			     struct ipcperf_counter_value *vals);
	/* The command started (live) or recorded (replay), or -1. */
	pid_t (*child_pid)(const struct ipp_source *src);
	int (*for_each_event)(const struct ipp_source *src,
			      int (*cb)(void *ctx, const struct ipcperf_event_desc *d), void *ctx);
	/*
	 * What a consumer attaching now is handed (session.h): the targets,
	 * whether the kernel describes fds, the identity log.
	 */
	void (*describe)(const struct ipp_source *src, struct ipp_attach *at);
	/* The host and the clock reference (ipcperf_session__capture_info()), all of @out. */
	void (*info)(const struct ipp_source *src, struct ipcperf_capture_info *out);
	void (*destroy)(struct ipp_source *src);
	bool replay;	/* records come from a capture: no /proc, no kernel */
};

/* Every source starts with this: its operations and the pipeline it feeds. */
struct ipp_source {
	const struct ipp_source_ops *ops;
	struct ipp_pipeline *pl;
};

/*
 * The live source of ipcperf_session__new(): validates @opts, resolves the
 * targets, loads the formats into @pl's decoder, forks a command.
 * @return it; NULL with errno (explained through the print function).
 */
struct ipp_source *ipp_rings__new(const struct ipcperf_session_opts *opts,
				  struct ipp_pipeline *pl);
/*
 * Live only: write a capture of everything read into @path, or into @fd
 * when >= 0 (named @path in messages): ipcperf_session__record(), _record_fd().
 */
int ipp_rings__record(struct ipp_source *src, const char *path, int fd);
/* Live only: the host the capture names (a name checked by the session). */
void ipp_rings__set_host(struct ipp_source *src, const char *name);
/* Live only: every ring record, before any ordering, to @tap. */
void ipp_rings__set_tap(struct ipp_source *src, void (*tap)(void *ctx, const void *rec,
							     size_t size), void *ctx);
/* Live only: wait up to @timeout_ms for something to read. @return 0, -EINTR, -errno. */
int ipp_rings__wait(struct ipp_source *src, int timeout_ms);
/* Live only: the fd to poll, or -EINVAL. */
int ipp_rings__fd(const struct ipp_source *src);
/* Live only: wait for the command (ipcperf_session__wait_child()). @return 0, -ECHILD, -errno. */
int ipp_rings__wait_child(struct ipp_source *src, int *status);
extern const struct ipp_source_ops ipp_rings_ops;

/* The capture source, ipp_replay__new(): replay.h. */

#endif /* IPCPERF_SOURCE_H */
