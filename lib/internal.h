/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private interfaces between libipcperf's modules. Internal non-static names
 * carry the ipp_ prefix; nothing here is exported from the shared library.
 *
 * The data path, a module a box (headers of their own in brackets):
 *
 *  targets.c      formats.c [formats.h]
 *  (pids, tids,   (tracepoints, dummies,
 *   a command)     attrs, filters)
 *        \           /
 *      rings.c ----------------.        perfdata.c [perfdata.h]  record.c [record.h]
 *      (live source: libperf   |        (perf.data reader/writer; (the capture's
 *       evlists, per-CPU rings)|         ipcperf's sample layout)  ipcperf section)
 *                              |                 \              /
 *                              |              replay.c (capture source)
 *                              v                 |
 *       source.h ----> pipeline.c [pipeline.h] <-'
 *                      merge.c -> follow.c -> decode.c -> pair.c -> handlers
 *                      (by time)  (CPU scope:  (formats,   (enter +
 *                                  whose?)      typed)      exit)
 *                              |
 *       session.c (the public session over a source and the pipeline)
 *                              |
 *       handlers: account.c (per-fd, per-process, per-syscall counts)
 *                   `- fdtable.c [fdtable.h] (what each fd is, by incarnation)
 *                        `- procfd.c, sockdiag.c [procfd.h] (/proc, sock_diag)
 *                 flows.c (writes matched to reads: wire time, verdicts)
 *       beside it: counters.c (perf counters), hist.c [hist.h] (latencies),
 *                  syscalls.c (the syscall table), machine.c (what this machine
 *                  offers), api.c (version, print function), util.c.
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

/* ---------------------------------------------------------------- syscalls.c */
/* What a call does to the fd table (fdtable.c acts on it). */
enum ipp_fd_op {
	IPP_FDOP_NONE = 0,
	IPP_FDOP_NEW,		/* ret is a new fd of a new object: open, openat, socket, accept */
	IPP_FDOP_DUP,		/* ret is a copy of the fd argument: dup */
	IPP_FDOP_DUP2,		/* args[1] becomes a copy of args[0]: dup2, dup3 */
	IPP_FDOP_PAIR,		/* two new fds written to user memory: pipe, pipe2, socketpair */
	IPP_FDOP_CLOSE,
	IPP_FDOP_CONNECT,	/* the socket's peer is known from now on */
	IPP_FDOP_FCNTL,		/* by command: F_DUPFD* is a dup, F_SETFD sets close-on-exec */
};

/* A syscall the session traces through its own sys_enter_/sys_exit_ pair. */
struct ipp_scdesc {
	const char *name;		/* "write"; tracepoints sys_enter_<name>/sys_exit_<name> */
	int nr;				/* this architecture's number, -1 if it has none */
	enum ipcperf_sc_class cls;
	signed char fd_arg;		/* index of the fd argument, -1 if none */
	signed char count_arg;		/* index of the requested count, -1 if none */
	bool ret_is_msgs;		/* ret counts messages (sendmmsg/recvmmsg) */
	unsigned int set;		/* IPCPERF_EV_IO or IPCPERF_EV_FDS */
	enum ipp_fd_op fd_op;
	/*
	 * Whether a new fd closes at exec: the argument holding the flags and
	 * the flag that says so (O_CLOEXEC, SOCK_CLOEXEC); flags_arg -1: the
	 * call gives a new fd that stays open across exec (accept, dup, dup2),
	 * -2: it cannot be told.
	 */
	signed char flags_arg;
	unsigned int cloexec_flag;
};
/* flags_arg of a call whose new fd never closes at exec, and of one that cannot say. */
#define IPP_CLOEXEC_NEVER (-1)
#define IPP_CLOEXEC_UNKNOWN (-2)
extern const struct ipp_scdesc ipp_syscalls[];
extern const size_t ipp_nr_syscalls;
const struct ipp_scdesc *ipp_scdesc_by_name(const char *name);
const struct ipp_scdesc *ipp_scdesc_by_nr(int nr);
/* Generated at build time from <sys/syscall.h> (syscall-names.c). */
extern const int ipp_syscall_max;
extern const char *const ipp_syscall_names[];
/* Name of any syscall number: from the generated table, else "syscall_N"; static storage. */
const char *ipp_syscall_name_any(int nr);

/* ---------------------------------------------------------------- decode.c */
/*
 * Decodes tracepoint raw data (PERF_SAMPLE_RAW) into typed records. Formats
 * are given as text (tracefs "format" files), field offsets are resolved once,
 * and records are dispatched by common_type through a table. Pure: no I/O.
 */
enum ipp_rec_kind {
	IPP_REC_NONE = 0,	/* not a tracepoint this decoder knows */
	IPP_REC_SYS_ENTER,
	IPP_REC_SYS_EXIT,
	IPP_REC_SWITCH,
	IPP_REC_WAKEUP,
	IPP_REC_FORK,
	IPP_REC_EXEC,
	IPP_REC_EXIT,
};

struct ipp_rec {
	enum ipp_rec_kind kind;
	union {
		struct {
			int nr;
			const struct ipp_scdesc *sc;
			uint64_t args[6];
			unsigned int nr_args;
		} enter;
		struct {
			int nr;
			const struct ipp_scdesc *sc;
			int64_t ret;
		} exit;
		struct {
			char prev_comm[16];
			pid_t prev_tid;
			long prev_state;
			char next_comm[16];
			pid_t next_tid;
		} sw;
		struct {
			char comm[16];
			pid_t tid;
			int target_cpu;
		} wake;
		struct {
			pid_t parent_tid;
			pid_t child_tid;
			char child_comm[16];
		} fork;
		struct {
			pid_t tid;
			pid_t old_tid;
			char filename[256];
		} exec;
		struct {
			pid_t tid;
			char comm[16];
		} pexit;	/* sched_process_exit */
	};
};

struct ipp_decoder;

/* @return a decoder, freed with ipp_decoder__delete(); NULL with errno. */
struct ipp_decoder *ipp_decoder__new(void);
void ipp_decoder__delete(struct ipp_decoder *d);

/*
 * Parse the format text of tracepoint @system:@name and learn to decode it.
 * Known tracepoints: syscalls:sys_enter_X / sys_exit_X for X in ipp_syscalls,
 * sched:sched_switch, sched_wakeup, sched_process_fork/exec/exit.
 * @return the tracepoint id (>= 0); -EINVAL for unparsable text or an event
 *   this decoder does not know; -EPROTO when a field it needs is missing.
 */
int ipp_decoder__add_format(struct ipp_decoder *d, const char *system, const char *name,
			    const char *format, size_t len);

/*
 * Decode the raw bytes of one sample. @raw need not be aligned.
 * @return 0 with @out filled; -ENOENT for an id the decoder does not know
 *   (out->kind = IPP_REC_NONE); -EPROTO when @size is too small for the
 *   fields or a dynamic string points outside the record.
 */
int ipp_decoder__decode(const struct ipp_decoder *d, const void *raw, size_t size,
			struct ipp_rec *out);

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

/* ---------------------------------------------------------------- pair.c */
/*
 * Pairs sys_enter/sys_exit per thread into completed syscalls, and accounts
 * the time a thread spends switched out inside a call. Pure: no I/O.
 * Feed it records in timestamp order.
 */
struct ipp_pairer;
struct ipp_pairer *ipp_pairer__new(void);
void ipp_pairer__delete(struct ipp_pairer *p);

void ipp_pairer__enter(struct ipp_pairer *p, uint64_t time, pid_t pid, pid_t tid,
		       const struct ipp_scdesc *sc, int nr, const uint64_t *args,
		       unsigned int nr_args);
/*
 * The thread is inside syscall @nr (as /proc said when the capture started):
 * its exit will complete a call flagged started_before_capture.
 */
void ipp_pairer__seed(struct ipp_pairer *p, uint64_t time, pid_t pid, pid_t tid,
		      const struct ipp_scdesc *sc, int nr, const uint64_t *args,
		      unsigned int nr_args);
/*
 * @return true with @out filled when this exit completes a call of the same
 *   nr on the same thread; false (counted as unpaired exit) otherwise.
 */
bool ipp_pairer__exit(struct ipp_pairer *p, uint64_t time, pid_t pid, pid_t tid, int cpu,
		      int nr, int64_t ret, struct ipcperf_syscall *out);
/*
 * The thread left the CPU (@out true; @preempted: still runnable) or came
 * back (@out false).
 */
void ipp_pairer__switch(struct ipp_pairer *p, uint64_t time, pid_t tid, bool out,
			bool preempted);
/* The thread exited: a call still open on it is unpaired. */
void ipp_pairer__thread_exit(struct ipp_pairer *p, pid_t tid);
/* End of capture: every open call is unpaired. */
void ipp_pairer__flush(struct ipp_pairer *p);
/* Enters whose exit will not come, counted elsewhere (the kernel's paired calls). */
void ipp_pairer__add_unpaired_enter(struct ipp_pairer *p, uint64_t n);
uint64_t ipp_pairer__unpaired_enter(const struct ipp_pairer *p);
uint64_t ipp_pairer__unpaired_exit(const struct ipp_pairer *p);

/* ---------------------------------------------------------------- follow.c */
/*
 * The target tasks of a CPU-scope session, kept up to date from fork, exec
 * and exit records in timestamp order: whose records to keep.
 */
struct ipp_follow;
struct ipp_follow *ipp_follow__new(void);
void ipp_follow__delete(struct ipp_follow *f);
/* @return 0 or -ENOMEM; adding a tid already there is a no-op. */
int ipp_follow__add(struct ipp_follow *f, pid_t tid, pid_t tgid);
bool ipp_follow__has(const struct ipp_follow *f, pid_t tid);
/* The command @pid becomes a target at its exec (not before). */
void ipp_follow__expect_exec(struct ipp_follow *f, pid_t pid);
/* A target's child (process or thread) is a target. */
int ipp_follow__fork(struct ipp_follow *f, pid_t parent_tid, pid_t child_tid, pid_t child_tgid);
/* Process @tgid exec'd in thread @tid (which now has the tgid as its tid). */
int ipp_follow__exec(struct ipp_follow *f, pid_t tgid, pid_t tid);
void ipp_follow__exit(struct ipp_follow *f, pid_t tid);
/*
 * Process start times (clock ticks since boot, /proc/PID/stat) after
 * @start_ticks are the capture's own: resolve() may take such a process
 * for a target's child. 0 (a command's session): every process is.
 */
void ipp_follow__set_start(struct ipp_follow *f, uint64_t start_ticks);
/*
 * Compare the targets with /proc at @now (CLOCK_MONOTONIC ns): a task that
 * /proc no longer has, or whose process is a zombie, is marked gone at @now
 * but stays a target until ipp_follow__expire() passes @now, so that the
 * records it made before are still kept. With @deep (side-band records were
 * lost), threads and child processes of targets that the set lacks are
 * added. With @cmd_exec_done, the command is taken as exec'd.
 * @return how many tasks were marked or added, or -ENOMEM.
 */
int ipp_follow__check(struct ipp_follow *f, uint64_t now, bool deep, bool cmd_exec_done);
/* Drop the tasks marked gone at or before @horizon. @return how many. */
int ipp_follow__expire(struct ipp_follow *f, uint64_t horizon);
enum ipp_follow_whose {
	IPP_FOLLOW_OTHER = 0,	/* not a target's: its records are foreign */
	IPP_FOLLOW_TARGET = 1,	/* a target's (it is one now) */
	IPP_FOLLOW_UNKNOWN = 2,	/* gone before /proc could say: its records may be a target's */
};
/*
 * Whose task @tid, not in the set, is, from /proc (after lost side-band
 * records, when its fork may be among them): a thread of a target process,
 * or a process made during the capture with a target among its parents, is
 * added. Answers are remembered. @return enum ipp_follow_whose, or -ENOMEM.
 */
int ipp_follow__resolve(struct ipp_follow *f, pid_t tid, bool cmd_exec_done);
/* No target left, and no command waiting for its exec. */
bool ipp_follow__done(const struct ipp_follow *f);
size_t ipp_follow__count(const struct ipp_follow *f);

/* ---------------------------------------------------------------- hist.c */
struct ipp_hist;
/* A histogram as the public API hands it out (struct ipcperf_hist is opaque). */
const struct ipcperf_hist *ipp_as_hist(const struct ipp_hist *h);

/* ---------------------------------------------------------------- account.c */
/* The fd table (fdtable.h) a stats object keeps: flows read what fds are from it. */
struct ipp_fdtab *ipp_stats_fdtab(struct ipcperf_stats *st);

/* ---------------------------------------------------------------- record.c */
/*
 * Captures: the recorder writes a session's records through lib/perfdata.c
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
