/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/fd/: what each fd is. The fd table (fdtable.c, fdtable-calls.c),
 * what an fd is reported as once settled (fdtable-report.c) and the calls
 * waiting for it (settleq.c); the resolvers it asks (resolve.h): /proc
 * (procres.c over procfd.c and sockdb.c), a capture's log (resolve-log.c
 * over identlog.c, the identity log a capture keeps), and the kernel's
 * records (resolve-kernel.c, kwords.c); each call with its fds, for trace
 * (callfds.c); and what /proc says of tasks (proctask.c), which the sources
 * and the pipeline ask too. This folder may call bpf/ (the records' types
 * and decoders) and the ground floor (lib/).
 *
 * fd identity: what each fd of each traced process refers to, at every
 * moment of the capture (accuracy rule 2 of doc/accuracy.md).
 *
 * Each fd of a process goes through incarnations: one starts when an
 * fd-creating call returns it, when dup2 replaces it, when a fork copies
 * the table, or when an fd never seen before is used; one ends at close,
 * dup2 over it, exec (close-on-exec), or the table's end. What an
 * incarnation refers to comes from a resolver:
 *  - the caller (ipcperf_stats__set_fd_identity()): exact;
 *  - the incarnation it was duplicated from (dup, dup2, fork): a copy;
 *  - /proc (procres.c, through resolve.h): read ahead of the merge, or
 *    when the incarnation is first seen, for fds that existed before the
 *    capture or were made by a call whose result the records do not carry;
 *  - a capture's identity log (resolve-log.c): the /proc answers the
 *    recording session got, in the order it asked, replayed instead of /proc.
 * A /proc answer read at time T describes the incarnation open at T. The
 * events reach us late, so the incarnation looked up (the answer's
 * authority) may turn out to have ended before T: then the answer was
 * about a later object, and the authority and every copy made of it are
 * reported as unknown. Until the events reach T, the answer is not settled.
 *
 * Driven by the syscall table's fd_op (syscalls.c), not by names. Pure: the
 * table reads nothing itself; it asks its resolver (resolve.h).
 */
#ifndef IPCPERF_FDTABLE_H
#define IPCPERF_FDTABLE_H

#include "internal.h"

enum ipp_ident_state {
	IPP_ID_NONE,	/* not looked up yet */
	IPP_ID_PROC,	/* from /proc at res_ns: valid unless the incarnation ended before */
	IPP_ID_FINAL,	/* exact (given by the caller, or copied from an exact one) */
	IPP_ID_UNKNOWN,
};

/*
 * Which end of a connection a socket is, as the call that made it showed:
 * what groups.c groups inet connections by before their port numbers.
 */
enum ipp_origin {
	IPP_ORIGIN_UNSEEN = 0,	/* no accept or connect seen: made before the capture, passed in */
	IPP_ORIGIN_ACCEPTED,	/* accept or accept4 returned it: its listener's end */
	IPP_ORIGIN_CONNECTED,	/* connect was called on it: the end that connected */
};

/* What an incarnation refers to. */
struct ipp_ident {
	enum ipp_ident_state state;
	enum ipcperf_fd_kind kind;
	uint64_t res_ns;	/* IPP_ID_PROC: when /proc was read */
	uint64_t ino, peer_ino;	/* pipes and sockets; 0 otherwise */
	int sock_type;		/* SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET; 0 for pipes */
	int64_t capacity;	/* bytes the channel holds; -1 unknown */
	bool cap_default;	/* capacity is the system default, not measured */
	int cloexec;		/* the fd closes at exec: 1, 0, or -1 unknown */
	signed char accmode;	/* (open flags & O_ACCMODE) + 1; 0 unknown (vmsplice's way) */
	signed char origin;	/* enum ipp_origin: kept by copies (dup, fork), not by a new answer */
	size_t auth;		/* IPP_ID_PROC: the incarnation /proc described (index) */
	uint64_t read_ns;	/* when /proc was read for it, named or not; 0 never */
	int read_err;		/* IPP_ID_UNKNOWN: why the read failed (-ENOENT, -ESRCH...) */
	bool partial;		/* a TCP/UDP socket sock_diag did not find: no addresses */
	char object[IPP_OBJECT_MAX];
	char detail[IPP_DETAIL_MAX];	/* "addr:port -> addr:port", "peer socket:[N]" */
};

/* One incarnation of an fd. */
struct ipp_inc {
	pid_t pid;
	int fd;
	bool open;
	uint64_t start_ns;	/* 0: open since before we looked */
	uint64_t end_ns;
	struct ipp_ident id;
	uint32_t pins;		/* calls queued for it (settleq, callfds): not retired before */
	bool was_auth;		/* a copy took its /proc answer: kept, its end is that copy's check */
	bool retired;		/* its slot is free (ipp_fdtab__sweep()) */
	bool by_task;		/* ended by an exec or a reused pid: a summary may still come */
};

struct ipp_fdtab;
struct ipp_fdid;
struct ipp_procres;

/* What /proc (or the kernel, through fdid-rec.c) said of an fd, as an identity read at @when. */
void ipp_ident_of_fdid(struct ipp_ident *id, const struct ipp_fdid *f, uint64_t when);

/*
 * @return an empty table, freed with ipp_fdtab__delete(), that resolves
 * nothing until it is given a resolver; NULL (ENOMEM).
 */
struct ipp_fdtab *ipp_fdtab__new(void);
void ipp_fdtab__delete(struct ipp_fdtab *t);

/*
 * Who the table asks what an fd is (resolve.h: /proc, a capture's log):
 * the reference @r is taken over, the last one put. NULL: nobody (fds then
 * are known only from the caller, the kernel and duplication).
 */
struct ipp_resolver;
void ipp_fdtab__set_resolver(struct ipp_fdtab *t, struct ipp_resolver *r);
bool ipp_fdtab__has_resolver(const struct ipp_fdtab *t);

/* Events, in timestamp order. */
/*
 * A completed call: what it did to the table. @return the incarnation of
 * the fd a read/write-family call used (index, >= 0; started now if the fd
 * was never seen, resolving it), or -1 for other calls (-ENOMEM).
 */
long ipp_fdtab__syscall(struct ipp_fdtab *t, const struct ipcperf_syscall *ev);
/*
 * The kernel will describe the fds calls make (ipp_fdtab__fd_open()): keep
 * what is needed to pair its words with the exits they follow.
 */
void ipp_fdtab__expect_kernel(struct ipp_fdtab *t);
/*
 * What the kernel said a new fd is (or, @ev->update, what an fd is
 * connected to now): it becomes exact at the exit of the call that made it,
 * whether that exit comes next on the thread or came just before.
 * @return true when it was taken for the thread's last exit (it came after).
 */
bool ipp_fdtab__fd_open(struct ipp_fdtab *t, const struct ipcperf_fd_open *ev);
/* Fork copies the table; exec ends the close-on-exec fds. */
void ipp_fdtab__task(struct ipp_fdtab *t, const struct ipcperf_task *ev);
/* The events have reached @ns (any event: settles /proc answers read before). */
void ipp_fdtab__clock(struct ipp_fdtab *t, uint64_t ns);

/*
 * The name of each process in @pids (@comm gets each name found) and, with
 * @fds, the fds it has now (ipp_fdtab__attach_fds()), from /proc.
 */
void ipp_fdtab__attach(struct ipp_fdtab *t, const pid_t *pids, size_t n,
		       void (*comm)(void *ctx, pid_t pid, const char *name), void *ctx, bool fds);
/*
 * The fds each process in @pids has now, from /proc. Read once the events
 * are on, no change to them between the reading and the events goes unseen
 * (the answers are held to the usual check).
 */
void ipp_fdtab__attach_fds(struct ipp_fdtab *t, const pid_t *pids, size_t n);
/* Replay: the same from the log alone, for whatever processes it names. */
void ipp_fdtab__attach_replay(struct ipp_fdtab *t,
			      void (*comm)(void *ctx, pid_t pid, const char *name), void *ctx);
/* What @fd of @pid refers to from now on (exact). @return 0, -EINVAL, -ENOMEM. */
int ipp_fdtab__set_identity(struct ipp_fdtab *t, pid_t pid, int fd,
			    const struct ipcperf_fd_identity *id);

/* Most new fds of one call the kernel's words describe (a recvmsg's SCM_RIGHTS). */
#define IPP_MAX_CALL_FDS 64
/* The fds the kernel described before the exit of the last call fed: how many, in *@fds. */
size_t ipp_fdtab__made_early(const struct ipp_fdtab *t, const int **fds);
/* Whether the kernel's words came (ipp_fdtab__fd_open(), ipp_fdtab__expect_kernel()). */
bool ipp_fdtab__kernel_words(const struct ipp_fdtab *t);
/*
 * The entry of @pid, an exited process with no fd open (its close times,
 * its start), freed: a later process of that pid starts afresh, as after a fork.
 */
void ipp_fdtab__forget(struct ipp_fdtab *t, pid_t pid);
/* The time of the latest event fed. */
uint64_t ipp_fdtab__now(const struct ipp_fdtab *t);

/* The incarnation of @fd of @pid open now (an index), or -ENOENT. */
long ipp_fdtab__inc_of(struct ipp_fdtab *t, pid_t pid, int fd);
/*
 * The incarnation of @fd of @pid a call that began at @start_ns used (an
 * index), as ipp_fdtab__syscall() took it: the open one unless it began
 * after @start_ns (0: the open one), else the one that ended while the
 * call ran; or -ENOENT.
 */
long ipp_fdtab__inc_at(struct ipp_fdtab *t, pid_t pid, int fd, uint64_t start_ns);
/*
 * The incarnation of @fd of @pid that calls added up from @first_ns to
 * @last_ns (a summary, delivered later) went to: the open one, unless it
 * began after @last_ns; else the last one, when it ended after @first_ns
 * (the summary comes after what ended it: an exec or exit read before it,
 * which keeps it a second before it retires; or, in another thread, a new
 * fd given the same number while the close that flushed the summary ran);
 * else one started as a read or write of an unknown fd would start it.
 * @return its index, or -ENOMEM.
 */
long ipp_fdtab__sum_inc(struct ipp_fdtab *t, pid_t pid, int fd, uint64_t first_ns,
			uint64_t last_ns);
/*
 * The incarnations held, by index: 0 to ipp_fdtab__count() - 1, NULL for a
 * free slot. An index is stable until ipp_fdtab__sweep() retires it (the
 * pointer is not, past the next event); a later incarnation may take it.
 */
size_t ipp_fdtab__count(const struct ipp_fdtab *t);
const struct ipp_inc *ipp_fdtab__inc(const struct ipp_fdtab *t, size_t inc);
/* A call queued for (+1) or handed out of a queue (-1) with incarnation @inc. */
void ipp_fdtab__pin(const struct ipp_fdtab *t, long inc, int delta);
/* Closed incarnations not yet retired. */
size_t ipp_fdtab__nr_closed(const struct ipp_fdtab *t);
/*
 * Retire the closed incarnations whose report cannot change any more: no
 * call queued for them, no copy checking its /proc answer against their
 * end, and their identity exact, or their own /proc answer, valid. @cb gets
 * each with the identity it is reported as (valid for the call), then its
 * slot is freed for a later incarnation. @return how many were retired.
 */
typedef void (*ipp_retire_fn)(void *ctx, size_t inc, const struct ipp_inc *in,
			      const struct ipp_ident *id);
size_t ipp_fdtab__sweep(struct ipp_fdtab *t, ipp_retire_fn cb, void *ctx);
/*
 * fdtable-report.c: what an incarnation is reported as; settleq.c: the calls
 * waiting for it. Both are built on the accessors above; the table never
 * calls into them.
 */
/*
 * What incarnation @inc is reported as: its identity if valid, else an
 * unknown one whose detail says why ("identity unknown: closed-before-read",
 * doc/accuracy.md).
 */
const struct ipp_ident *ipp_fdtab__reported(const struct ipp_fdtab *t, size_t inc);

/*
 * What incarnation @inc is, once that is settled: a /proc answer read at T
 * is settled when the events have reached T or its incarnation ended.
 * @final: the capture is over, nothing more will come.
 * @return 1 with *@out (valid until the next event) the settled identity,
 *   the unknown one included; 0 not settled yet.
 */
int ipp_fdtab__settled(const struct ipp_fdtab *t, long inc, bool final,
		       const struct ipp_ident **out);

/*
 * Calls waiting, in the order they came, until what their fd is has been
 * settled: what flows and ipcperf_stats__on_call() consume.
 */
struct ipp_settleq {
	const struct ipp_fdtab *t;
	struct ipp_settle_call {
		struct ipcperf_syscall ev;
		long inc;	/* the incarnation of ev.fd */
	} *v;
	size_t head, len, cap;
};

typedef void (*ipp_settled_fn)(void *ctx, const struct ipcperf_syscall *ev,
			       const struct ipp_ident *id);

void ipp_settleq__init(struct ipp_settleq *q, const struct ipp_fdtab *t);
void ipp_settleq__fini(struct ipp_settleq *q);
/* Queue @ev, whose fd is incarnation @inc. @return 0 or -ENOMEM (the call is dropped). */
int ipp_settleq__push(struct ipp_settleq *q, const struct ipcperf_syscall *ev, long inc);
/* Hand @cb the calls at the front whose fd is settled, in order; @final: all of them. */
void ipp_settleq__drain(struct ipp_settleq *q, bool final, ipp_settled_fn cb, void *ctx);

#endif /* IPCPERF_FDTABLE_H */
