/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private interfaces between libipcperf's modules. Internal non-static names
 * carry the ipp_ prefix; nothing here is exported from the shared library.
 *
 * The data path, a module a box (headers of their own in brackets):
 *
 *  targets.c [targets.h]     formats.c [formats.h]
 *  (options checked, pids,   (tracepoints, dummies,
 *   tids, a command)          attrs, filters)
 *        \                    /
 *      plan.c [plan.h] (what loads, pairs, counts, opens: chosen once)
 *        |
 *      rings.c [rings.h] (the live source's operations)
 *        |- rings-open.c (events, libperf evlists, per-CPU rings, BPF)
 *        `- rings-read.c (bounded passes over the rings, the stop's drain)
 *        |
 *        |        perfdata.h (the format)   record.c [record.h] (ipcperf's section)
 *        |        pd-writer.c [pd-writer.h]
 *        |        pd-reader.c -> pd-records.c -> pd-sample.c, pd-sections.c
 *        |        [pd-reader.h, pd-reader-int.h; pd-file.h shared with the writer]
 *        |                 \              /
 *        |              replay.c [replay.h] (capture source)
 *        v                 |
 *       source.h ----> pipeline.c [pipeline.h] <-'
 *                      merge.c -> follow.c -> decode.c -> pair.c -> handlers
 *                      (by time)  [follow.h]   [decode.h]  [pair.h]
 *                                 (CPU scope:  (formats,   (enter +
 *                                  whose?)      typed)      exit)
 *                              |
 *       session.c (the public session over a source and the pipeline)
 *                              |
 *       handlers: account.c (per-fd, per-process, per-syscall counts)
 *                   `- fdtable.c [fdtable.h] (what each fd is, by incarnation),
 *                      fdreport.c (what it is reported as, once settled)
 *                        `- its resolver [resolve.h]: procres.c [procres.h] (/proc,
 *                           read ahead of the merge) over procfd.c, sockdiag.c
 *                           [procfd.h] (/proc, sock_diag), or resolve-log.c (a
 *                           capture's log); resolve-kernel.c [resolve-kernel.h]
 *                           (the kernel's records, paired with their calls)
 *                 callfds.c [callfds.h] (each call with its fds, for trace)
 *                 flows.c (writes matched to reads: wire time, verdicts)
 *       beside it: counters.c [counters.h] (perf counters), taskacct.c
 *                  [taskacct.h] (software counters from the kernel's task
 *                  accounting), hist.c [hist.h] (latencies), syscalls.c
 *                  [syscalls.h] (the syscall table), machine.c (what this
 *                  machine offers), api.c (version, print function), util.c.
 *
 * What is left here: util.c's and api.c's helpers, which every module
 * uses; merge.c, the identity log (record.c) and the calls between the
 * stats, the session and the fd table, which the fd identity's own headers
 * (a resolver interface) are still to take over.
 */
#ifndef IPCPERF_INTERNAL_H
#define IPCPERF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ipcperf/ipcperf.h"

#define IPP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---------------------------------------------------------------- util.c */
#define IPP_NS_PER_SEC 1000000000ull
#define IPP_NS_PER_MS 1000000ull
/* A syscall's return value is an error when it is -1..-IPP_MAX_ERRNO (larger negatives are values). */
#define IPP_MAX_ERRNO 4095
/* Sizes of the names the modules pass around, with their NUL. */
#define IPP_COMM_MAX 16		/* a task's comm (TASK_COMM_LEN) */
#define IPP_OBJECT_MAX 128	/* an fd's object: "pipe:[N]", "socket:[N]", "/path" */
#define IPP_ADDR_MAX 64		/* a socket address as text: "[v6]:port", "/path", "@name" */
#define IPP_DETAIL_MAX (2 * IPP_ADDR_MAX + 8)	/* "ADDR -> ADDR", "peer socket:[N]" */
/* What a new pipe holds, when its own size cannot be read: 16 pages of 4 KiB (pipe(7)). */
#define IPP_PIPE_DEFAULT_SIZE (16 * 4096)

/* Entries a growing array starts with. */
#define IPP_GROW_MIN 16
/*
 * Make room in *@v (of *@cap elements of @elem bytes) for @need elements,
 * doubling. @return 0, or -ENOMEM with *@v and *@cap unchanged.
 */
int ipp_grow(void **v, size_t *cap, size_t need, size_t elem);
/*
 * Room for one more element in a ring (*@v of *@cap elements of @elem
 * bytes, the oldest at *@head, @len in use): when it is full, an array twice
 * as large (@first when empty) holds them unwrapped, oldest first, from
 * *@head = 0. @return 0, or -ENOMEM with the ring unchanged.
 */
int ipp_ring_reserve(void **v, size_t *cap, size_t *head, size_t len, size_t elem, size_t first);
/*
 * Binary search of @key in @base (@n sorted elements of @size bytes).
 * @return true with *@at its index; false with *@at where it would go.
 * Inline, so that a lookup on a hot path gets its comparison inlined too.
 */
static inline bool ipp_bsearch_at(const void *key, const void *base, size_t n, size_t size,
				  int (*cmp)(const void *key, const void *elem), size_t *at)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp(key, (const char *)base + mid * size);

		if (!c) {
			*at = mid;
			return true;
		}
		if (c > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return false;
}
/* CLOCK_MONOTONIC now, in ns. */
uint64_t ipp_now_ns(void);
/* The integer a file (a sysctl under /proc/sys) starts with. @return 0, -errno, -EINVAL. */
int ipp_read_int(const char *path, int *val);

/* True when the caller's opts struct is large enough to hold @field. */
#define IPP_OPTS_HAS(opts, field) \
	((opts) && (opts)->sz >= offsetof(__typeof__(*(opts)), field) + sizeof((opts)->field))
/* opts->sz is sane: at least the sz member, and no larger than we know unless the tail is zero. */
bool ipp_opts_valid(const void *opts, size_t user_sz, size_t known_sz);

/* ---------------------------------------------------------------- api.c */
#include <stdarg.h>
void ipp_vprint(enum ipcperf_print_level level, const char *fmt, va_list ap);
__attribute__((format(printf, 2, 3)))
void ipp_print(enum ipcperf_print_level level, const char *fmt, ...);
#define ipp_warn(...) ipp_print(IPCPERF_WARN, __VA_ARGS__)
#define ipp_info(...) ipp_print(IPCPERF_INFO, __VA_ARGS__)
#define ipp_debug(...) ipp_print(IPCPERF_DEBUG, __VA_ARGS__)

/* ---------------------------------------------------------------- merge.c */
/*
 * Orders records from several rings by timestamp. Records are copied in;
 * ipp_merge__pop() hands out the oldest one not newer than a horizon.
 * Equal timestamps come out in push order. Pure: no I/O.
 */
struct ipp_mrec {
	uint64_t time;
	uint64_t seq;		/* push order, breaks ties */
	uint32_t size;		/* bytes in data[] */
	uint32_t type;		/* PERF_RECORD_* */
	pid_t pid, tid;
	int cpu;
	uint32_t misc;		/* perf_event_header.misc */
	bool pooled;		/* a block of the merge's free list, not a malloc() of its own */
	unsigned char data[];	/* RAW bytes of a sample; body of other records */
};

struct ipp_merge;
struct ipp_merge *ipp_merge__new(void);
void ipp_merge__delete(struct ipp_merge *m);
/* Copy a record in. @return 0 or -ENOMEM. */
int ipp_merge__push(struct ipp_merge *m, uint64_t time, uint32_t type, uint32_t misc,
		    pid_t pid, pid_t tid, int cpu, const void *data, uint32_t size);
/*
 * The oldest record with time <= @horizon, or NULL. The record belongs to the
 * merge and stays valid until the next push or pop.
 */
const struct ipp_mrec *ipp_merge__pop(struct ipp_merge *m, uint64_t horizon);
size_t ipp_merge__len(const struct ipp_merge *m);


/* ---------------------------------------------------------------- account.c */
/* The fd table (fdtable.h) a stats object keeps: flows read what fds are from it. */
struct ipp_fdtab *ipp_stats_fdtab(struct ipcperf_stats *st);

/* ---------------------------------------------------------------- record.c */
/*
 * Captures: the recorder writes a session's records through the pd writer (pd-writer.c)
 * and keeps, in the ipcperf feature section, what a replay needs to give the
 * live run's numbers: the session's own counts, the counter values, and every
 * fd identity the stats module read from /proc (the identity log). A replay
 * takes the identities back from the log instead of /proc, in the order they
 * were asked for: the questions are the same because the events are.
 */
enum ipp_idq {
	IPP_IDQ_RESOLVE = 1,	/* resolve(): one fd, looked up alone */
	IPP_IDQ_SCAN = 2,	/* one fd of a scan of a process's fds (attach, exec) */
	IPP_IDQ_SCAN_END = 4,	/* end of that scan (fd -1) */
	IPP_IDQ_COMM = 8,	/* a process's name from /proc (object holds it; fd -1) */
};

/* One answer from /proc, as the stats module used it (fixed layout: stored as is). */
struct ipp_ident_ans {
	uint32_t what;		/* enum ipp_idq */
	int32_t pid, fd;
	int32_t ok;		/* 1: resolved; 0: could not be (unknown) */
	uint64_t res_ns;	/* when /proc was read (CLOCK_MONOTONIC) */
	uint32_t kind;		/* enum ipcperf_fd_kind */
	int32_t sock_type;
	uint64_t ino, peer_ino;
	int64_t capacity;
	int32_t cap_default, cloexec;
	char object[IPP_OBJECT_MAX];
	char detail[IPP_DETAIL_MAX];
};

struct ipp_identlog;
struct ipp_identlog *ipp_identlog__new(void);
void ipp_identlog__delete(struct ipp_identlog *l);
/* Append (recording). @return 0 or -ENOMEM (the log then stays short: answers go unknown). */
int ipp_identlog__add(struct ipp_identlog *l, const struct ipp_ident_ans *a);
/*
 * Replay: the first answer not yet taken whose what is in @what_mask, for
 * @pid and (unless @fd is -1) @fd. @return 0 with @out; -ENOENT.
 */
int ipp_identlog__take(struct ipp_identlog *l, unsigned int what_mask, pid_t pid, int fd,
		       struct ipp_ident_ans *out);

/* Replay: the first answer not yet taken whose what is in @what_mask, any pid. */
int ipp_identlog__take_any(struct ipp_identlog *l, unsigned int what_mask,
			   struct ipp_ident_ans *out);

/*
 * The session's identity log: recording (@replay false) or replaying (true);
 * NULL when the session neither records nor replays one.
 */
struct ipp_identlog *ipp_session_identlog(const struct ipcperf_session *s, bool *replay);

/*
 * Have @pr read /proc ahead of the merge as the session's records are
 * taken (procres.h); the first resolver set stays. Live sessions not
 * started yet only. @return the resolver in use, or NULL (none).
 */
struct ipp_procres;
struct ipp_procres *ipp_session_read_ahead(struct ipcperf_session *s, struct ipp_procres *pr);

/* ---------------------------------------------------------------- session.c */
/* The processes a session targets (pids, the command, tgids of tids); session-owned. */
const pid_t *ipp_session_target_pids(const struct ipcperf_session *s, size_t *nr);

/* The kernel may describe the fds the targets make (ipcperf_handlers.fd_open). */
bool ipp_session_kernel_fdid(const struct ipcperf_session *s);

/* The session replays a capture (ipcperf_session__open_file): no /proc, no kernel. */
bool ipp_session_is_replay(const struct ipcperf_session *s);

/* Call @fn(@ctx) once the session's events are on (now, if they are). @return 0, -ENOMEM. */
int ipp_session_on_start(struct ipcperf_session *s, void (*fn)(void *ctx), void *ctx);


#endif /* IPCPERF_INTERNAL_H */
