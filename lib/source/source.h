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

/*
 * What a consumer that attaches to a session receives (session.h); the
 * session's source fills it in.
 */
struct ipp_attach {
	/*
	 * The target processes: the pids given, the tgids of the tids given,
	 * and the command. The session owns the array, which stays valid as
	 * long as the session does. It is empty for a replay or for -a.
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
	 * The /proc resolver, set only for a live session that has not started
	 * and does not get fd descriptions from the kernel; NULL otherwise. It
	 * reads /proc ahead of the merge as the session's records are taken,
	 * and all the session's consumers share it. The session owns it: a
	 * consumer that keeps it takes a reference with ipp_procres__get().
	 */
	struct ipp_procres *procres;
};

struct ipp_source;

struct ipp_source_ops {
	/*
	 * Open what the source needs and start delivering records. Returns 0,
	 * or -errno after explaining the error through the print function.
	 */
	int (*start)(struct ipp_source *src);
	/*
	 * Read what is there and deliver what is in order. Returns the events
	 * delivered, or -errno.
	 */
	int (*consume)(struct ipp_source *src);
	/* Whether the source has nothing more to deliver. */
	bool (*done)(const struct ipp_source *src);
	/* Read and deliver everything left. Returns the events delivered, or -errno. */
	int (*stop)(struct ipp_source *src);
	/* Fill in the fields of ipcperf_session__stats() that the source knows. */
	void (*stats)(const struct ipp_source *src, bool stopped, struct ipcperf_session_stats *v);
	int (*read_counters)(const struct ipp_source *src, pid_t pid,
			     struct ipcperf_counter_value *vals);
	/* The pid of the command the session started (live) or recorded (replay), or -1. */
	pid_t (*child_pid)(const struct ipp_source *src);
	int (*for_each_event)(const struct ipp_source *src,
			      int (*cb)(void *ctx, const struct ipcperf_event_desc *d), void *ctx);
	/*
	 * Fill in what a consumer attaching now receives (session.h): the
	 * targets, whether the kernel describes fds, and the identity log.
	 */
	void (*describe)(const struct ipp_source *src, struct ipp_attach *at);
	/* Fill all of @out with the host and the clock reference (ipcperf_session__capture_info()). */
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
 * Create the live source of ipcperf_session__new(): validate @opts, resolve
 * the targets, load the formats into @pl's decoder and fork the command if
 * there is one. Returns the source, or NULL with errno set after explaining
 * the error through the print function.
 */
struct ipp_source *ipp_rings__new(const struct ipcperf_session_opts *opts,
				  struct ipp_pipeline *pl);
/*
 * Live only: write a capture of every record read into the file @path, or
 * into @fd when @fd >= 0 (messages then call it @path). This implements
 * ipcperf_session__record() and ipcperf_session__record_fd().
 */
int ipp_rings__record(struct ipp_source *src, const char *path, int fd);
/* Live only: name the host the capture says it was made on (a name the session checked). */
void ipp_rings__set_host(struct ipp_source *src, const char *name);
/* Live only: hand every ring record to @tap as it is read, before any ordering. */
void ipp_rings__set_tap(struct ipp_source *src, void (*tap)(void *ctx, const void *rec,
							     size_t size), void *ctx);
/* Live only: wait up to @timeout_ms for something to read. Returns 0, -EINTR or -errno. */
int ipp_rings__wait(struct ipp_source *src, int timeout_ms);
/* Live only: return the fd a caller polls, or -EINVAL. */
int ipp_rings__fd(const struct ipp_source *src);
/* Live only: wait for the command (ipcperf_session__wait_child()). Returns 0, -ECHILD or -errno. */
int ipp_rings__wait_child(struct ipp_source *src, int *status);
extern const struct ipp_source_ops ipp_rings_ops;

/* The source that replays a capture, ipp_replay__new(), is declared in replay.h. */

#endif /* IPCPERF_SOURCE_H */
