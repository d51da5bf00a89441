/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where the fd table (fdtable.c) asks what an fd is: a resolver. The table
 * is pure; each source of answers is one implementation:
 *  - /proc (procres.c: ipp_procres__resolver()), read now or ahead of the
 *    merge;
 *  - a capture's identity log (resolve-log.c): replayed in the order the
 *    recording asked, or recorded as another resolver answers;
 *  - the kernel's records (resolve-kernel.c) are not asked: they come with
 *    the events (ipp_fdtab__fd_open()), and that file turns them into
 *    identities and pairs them with the calls they describe.
 * A resolver is refcounted through its put operation; the table holds one
 * reference.
 */
#ifndef IPCPERF_RESOLVE_H
#define IPCPERF_RESOLVE_H

#include "fd/fdtable.h"

struct ipp_resolver;

/* One fd of a scan: @id lives only for the call. Non-zero stops the scan. */
typedef int (*ipp_ident_cb)(void *ctx, int fd, const struct ipp_ident *id);

struct ipp_resolver_ops {
	/*
	 * What @fd of @pid is, for an incarnation that began no earlier than
	 * @floor_ns: IPP_ID_PROC with res_ns, or IPP_ID_UNKNOWN with read_ns
	 * and read_err (fdtable.h).
	 */
	void (*resolve)(struct ipp_resolver *r, pid_t pid, int fd, uint64_t floor_ns,
			struct ipp_ident *id);
	/* Every fd @pid has now, each to @cb (@pipe_cap: with a pipe's capacity). */
	void (*scan)(struct ipp_resolver *r, pid_t pid, bool pipe_cap, ipp_ident_cb cb, void *ctx);
	/* @pid's name into @buf. @return 0, or -errno (-ENOENT: none) */
	int (*comm)(struct ipp_resolver *r, pid_t pid, char *buf, size_t len);
	/*
	 * The next process the source itself names (a capture's log: its
	 * targets, in order), its name in @buf ("" if it had none).
	 * @return 0, or -ENOENT when there is no more (or the source names none).
	 */
	int (*next_proc)(struct ipp_resolver *r, pid_t *pid, char *buf, size_t len);
	/* A socket connected: the socket tables held are older than it. */
	void (*connected)(struct ipp_resolver *r);
	/* Drop a reference. */
	void (*put)(struct ipp_resolver *r);
};

/* Every resolver starts with this. */
struct ipp_resolver {
	const struct ipp_resolver_ops *ops;
};

/* Accepts NULL. */
static inline void ipp_resolver__put(struct ipp_resolver *r)
{
	if (r)
		r->ops->put(r);
}

/*
 * resolve-log.c. Replay: answers from @log, in the order the recording
 * asked (@log stays the caller's). Record: @inner's answers, each added
 * to @log as it is given (a reference to @inner is taken over).
 * @return a resolver with one reference; NULL (ENOMEM: @inner is put).
 */
struct ipp_identlog;
struct ipp_resolver *ipp_resolve_log__replay(struct ipp_identlog *log);
struct ipp_resolver *ipp_resolve_log__record(struct ipp_identlog *log, struct ipp_resolver *inner);

#endif /* IPCPERF_RESOLVE_H */
