/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/stats/: the counts a stat shows. Per fd, per process and per syscall,
 * each row's peer, the rows grouped by peer and endpoint, the closed
 * connections folded into their groups, the exited processes folded into a
 * row per comm, and a stat's intervals. This folder may call fd/ (the fd
 * table it feeds, and who holds an inode: fd/holders.c reads /proc for the
 * peers), session/ (the session it attaches to), bpf/ (the kernel's sums)
 * and the ground floor (lib/).
 *
 * Its files are layers: each calls only the files listed before it, and
 * hands data up through return values and callbacks (the fd table calls
 * the sweep's retire() back). Bottom up (tests/test-stats-layers.sh reads
 * the list between its two lines of dashes):
 * ----
 *   tables:     procs.c      processes and their syscall rows
 *   rows:       rows.c       the incarnations sorted into rows; their sums
 *   groups:     peers.c      who is at the other end of a row
 *               groups.c     how rows group; the group walk
 *   readout:    readout.c    a row per fd, process, syscall to the caller
 *   retention:  folds.c      the folded rows of closed incarnations
 *               connfold.c   closed connections folded into their groups
 *               exitfold.c   exited processes folded into a row per comm
 *               retain.c     the sweep: what bounds the memory
 *   intake:     intake.c     the stats fed with events
 *   attach:     attach.c     fed by a session
 *   the object: stats.c      made, reset, freed: every layer's parts
 *   interval:   interval.c   a stat's intervals
 * ----
 * The stats object (struct ipcperf_stats) is shared by its files; flows.c
 * reads what the fds are from its fd table.
 */
#ifndef IPCPERF_ACCOUNT_H
#define IPCPERF_ACCOUNT_H

#include "internal.h"
#include "fd/callfds.h"
#include "fd/fdtable.h"
#include "hist.h"

/*
 * Its histogram is made at its first timed call: a process that opens and
 * closes fds at full speed makes an incarnation per open, and most of them
 * are never read or written (a histogram is 4 KiB).
 */
struct side {
	uint64_t ops, bytes, errors, time_ns, msgs;
	uint64_t mv_ops, mv_bytes;	/* the part zero-copy moves made (IPCPERF_SC_MOVE) */
	uint64_t again;		/* refused with EAGAIN: also in errors */
	struct ipp_hist *hist;
};

/* Add @src's counts into @dst's; the histograms are the caller's. */
static inline void ipp_side_add(struct side *dst, const struct side *src)
{
	dst->ops += src->ops;
	dst->bytes += src->bytes;
	dst->errors += src->errors;
	dst->time_ns += src->time_ns;
	dst->msgs += src->msgs;
	dst->mv_ops += src->mv_ops;
	dst->mv_bytes += src->mv_bytes;
	dst->again += src->again;
}

/* The counts of one incarnation of an fd (the fd table's index). */
struct inccount {
	uint64_t first_ns, last_ns;
	struct side rd, wr;
};

/*
 * An identity that folded rows share: thousands of exited processes' rows
 * are the same /dev/null or libc (folds.c). Freed with its last row.
 */
struct sharedid {
	size_t refs;
	struct ipp_ident id;	/* what is reported: the times and authority of a /proc answer zeroed */
};

/*
 * The counts of closed incarnations folded into their row (pid, fd,
 * object): what a retired incarnation (ipp_fdtab__sweep()) leaves.
 */
struct foldrow {
	pid_t pid;
	int fd;
	const struct ipp_ident *id;	/* valid: exact, or a /proc answer that held (shared) */
	struct inccount c;	/* its histograms NULL unless packing them had no memory */
	struct ipp_hist_packed *packed[2];	/* the read and write latencies, packed */
};

/*
 * Closed connections folded into their group (ipcperf_stats_opts.fold_conns,
 * connfold.c): what a group of retired rows leaves, with the key the group
 * walk (groups.c) would give each of them.
 */
struct connfold {
	pid_t pid, peer;	/* peer 0: not known */
	int role, fd;		/* enum ipcperf_fd_group_role; the lowest fd of its rows */
	uint64_t conns;		/* rows folded */
	uint64_t by_ports;	/* of them, those grouped by their ports (ipp_group__by_ports()) */
	char endpoint[IPP_OBJECT_MAX];
	char peer_comm[IPP_COMM_MAX];
	/* kind, and object and detail of its first row; state IPP_ID_UNKNOWN: no walk takes it as a holder */
	struct ipp_ident id;
	struct inccount c;	/* its histograms NULL */
	struct ipp_hist_packed *packed[2];
};

struct scstat {
	pid_t tid;		/* 0 unless per_thread */
	int nr;
	const char *name;
	uint64_t calls, errors, time_ns;
	struct ipcperf_errno_count *errnos;	/* ascending by err */
	size_t nr_errnos;
	/*
	 * The latencies: dense from the first timed call while the process
	 * lives, packed once it has exited (a command of thousands of short
	 * processes keeps each one's rows until the report: a dense histogram
	 * is ~7.7 KB). Both NULL while empty.
	 */
	struct ipp_hist *hist;
	struct ipp_hist_packed *packed;
};

struct proc {
	pid_t pid;
	char comm[IPP_COMM_MAX];
	uint64_t vol, invol, wakeups, migrations, syscalls, threads;
	uint64_t uring_ops;	/* io_uring requests submitted: their bytes are not seen */
	uint64_t left_ns;	/* when it left what the caller may see (ipcperf_task.left_view), or 0 */
	bool exited;
	uint64_t exit_ns;	/* its main thread's exit (0: none seen) */
	uint64_t folded;	/* a row of exited processes (fold_exited): how many */
	bool seen;		/* had an event of its own (not only created by fork) */
	uint64_t seen_ns;	/* the time of the first */
	struct scstat **sc;	/* sorted by (tid, nr) */
	size_t nr_sc, cap_sc;
};

struct thread {
	pid_t tid, pid;
	int last_cpu;
};

/* Direct-mapped caches of the last procs and threads looked up, by id modulo this. */
#define LOOKUP_CACHE 16

struct ipcperf_stats {
	bool no_proc;
	bool per_thread;
	struct proc **procs;
	size_t nr_procs, cap_procs;
	struct proc *proc_cache[LOOKUP_CACHE];		/* cleared of a thread's entry freed at its exit */
	struct thread *thread_cache[LOOKUP_CACHE];	/* cleared when threads[] moves */
	struct ipp_fdtab *fdt;	/* what each fd is */
	struct ipp_peercache *peercache;	/* peers.c: the peers /proc was asked about */
	struct inccount *counts;	/* by incarnation */
	size_t nr_counts, cap_counts;
	struct foldrow *folds;	/* in the order they were made */
	size_t nr_folds, cap_folds;
	size_t *fold_idx;	/* hash of (pid, fd, object): fold index + 1, 0 free */
	struct sharedid **ids;	/* the folds' identities, a hash: NULL free, at most half full */
	size_t nr_ids, cap_ids;	/* cap_ids: a power of two */
	size_t cap_fold_idx;	/* a power of two, at least twice nr_folds */
	size_t sweep_at;	/* closed incarnations that make the next sweep */
	uint64_t swept_ns;	/* the events' time at the last sweep */
	bool fold_conns;	/* closed connections' rows fold into their groups */
	struct connfold *cfolds;
	size_t nr_cfolds, cap_cfolds;
	size_t compact_at;	/* folds that make the next ipp_stats__compact() */
	/*
	 * The inodes lib/flows still names a flow's untraced side from
	 * (connfold.c): inode -> how many flows pin it, as a pointer-sized count.
	 */
	struct ipp_idmap pins;
	/* fold_exited: exited processes folded into a row per comm (exitfold.c), pid -(index + 1) */
	bool fold_exited;
	struct proc **exited;
	size_t nr_exited, cap_exited;
	struct thread *threads;
	size_t nr_threads, cap_threads;
	/*
	 * Dense histograms of retired incarnations, emptied, for the next
	 * ones (procs.c): a connection per request makes and drops two a
	 * connection, and a new one is 7.7 KB to allocate and zero.
	 */
	struct ipp_hist **spare;
	size_t nr_spare;
	/* ipcperf_stats__on_call(): calls wait here until their fd is settled. */
	void (*call_cb)(void *ctx, const struct ipcperf_syscall *ev,
			const struct ipcperf_fd_object *fd);
	void *call_ctx;
	struct ipp_settleq calls;
	/*
	 * ipcperf_stats__on_every_call(): every call, until its fds are
	 * settled; __on_every_signal(), __on_every_exit(): in their place
	 * among them. The callbacks are the queue's.
	 */
	struct ipp_callfds every;
	/* ipcperf_stats__attach(): the targets whose fds are read at the session's start */
	bool scan_on_start;
	const pid_t *scan_pids;		/* the session's */
	size_t nr_scan_pids;
	/*
	 * The command the session started, and its first exec: the fds it had
	 * until then, closed by that exec, were the tracer's, not the command's.
	 */
	pid_t cmd_pid;
	uint64_t cmd_exec_ns;
};

/* ------------------------------------------------------------ tables: procs.c */

/* The process @pid's counts; made (zeroed) when @create. NULL: none, or no memory. */
struct proc *ipp_stats__proc(struct ipcperf_stats *st, pid_t pid, bool create);
/*
 * Thread @tid exited: the entry its clone made under its id, as it could
 * have been a process, goes unless it had events of its own (it never
 * does: its calls carry its process's pid).
 */
void ipp_stats__drop_unseen(struct ipcperf_stats *st, pid_t tid);
/* The row of (@tid, @nr) of @p, made when new (@name NULL: the syscall's own); NULL: no memory. */
struct scstat *ipp_proc__sc(struct proc *p, pid_t tid, int nr, const char *name);
/* @n more calls of @sc failed with @err. */
void ipp_proc__sc_errnos(struct scstat *sc, int err, uint64_t n);
/* Free @obj (a struct proc) and its rows; void *, so that ipp_delete_ptrs() takes it. */
void ipp_proc__free(void *obj);
/* Spare histograms kept at most (what the incarnations held at once, at most this many). */
#define IPP_SPARE_HISTS 256
/* An empty dense histogram for a side: a spare one, or made. NULL: no memory. */
struct ipp_hist *ipp_stats__hist(struct ipcperf_stats *st);
/* @h (NULL: none), made by ipp_stats__hist(), given back: kept as a spare, or freed. */
void ipp_stats__hist_done(struct ipcperf_stats *st, struct ipp_hist *h);
/* The spares freed (ipcperf_stats__delete()). */
void ipp_stats__free_spares(struct ipcperf_stats *st);
/* Its counts, its syscall rows' counts and latencies, zeroed. */
void ipp_proc__reset(struct proc *p);

/* --------------------------------------------------------- retention: folds.c */

/*
 * The folded row of (@pid, @fd, @id's object and kind), made when new (the
 * folds are in the order they were made, so an index stays valid; the
 * array may move). NULL: no memory.
 */
struct foldrow *ipp_stats__fold_row(struct ipcperf_stats *st, pid_t pid, int fd,
				    const struct ipp_ident *id);
/* Keep the folds whose @keep is true, the others' memory freed; the hash rebuilt. */
void ipp_stats__keep_folds(struct ipcperf_stats *st, const bool *keep);
/* The shared identities freed (ipcperf_stats__delete()). */
void ipp_stats__free_ids(struct ipcperf_stats *st);
/*
 * A fold's counts and latencies (@c, its histograms packed in @packed, or
 * dense where packing had no memory) added into @dc and @dp, packed.
 * @scratch: a dense histogram to do it in. @return 0, or -ENOMEM (then the
 * latencies miss some calls; the counts do not).
 */
int ipp_fold__add(struct inccount *dc, struct ipp_hist_packed *dp[2], const struct inccount *c,
		  struct ipp_hist_packed *const packed[2], struct ipp_hist *scratch);

/* ------------------------------------------------------ retention: connfold.c */

/*
 * fold_conns: the folded rows of closed connections (those that group,
 * groups.c) into their groups, unless a traced process holds their other
 * end in an fd not folded yet (the group walk would name it from that fd).
 */
void ipp_stats__compact(struct ipcperf_stats *st);

/*
 * A flow of lib/flows names its untraced side from the row of its traced
 * end's inode (the peer the row names): while @ino is pinned, a closed
 * connection's row of that inode does not fold into its group (its peer
 * stays there to name). Pins count: each ipp_stats__pin() (0, or -ENOMEM:
 * not pinned) is undone by one ipp_stats__unpin(). Inode 0 is never pinned.
 */
int ipp_stats__pin(struct ipcperf_stats *st, uint64_t ino);
void ipp_stats__unpin(struct ipcperf_stats *st, uint64_t ino);
bool ipp_stats__pinned(const struct ipcperf_stats *st, uint64_t ino);
/* Folds that make the first compaction; then twice those left after it, plus as many. */
#define IPP_COMPACT_FIRST 1024

/* ------------------------------------------------------ retention: exitfold.c */

/*
 * fold_exited: the exited processes whose report is settled (no
 * incarnation left in the fd table, a second of events past the exit)
 * folded into the rows of their comms, and freed.
 */
void ipp_stats__fold_exited(struct ipcperf_stats *st);
/* How long after its exit, in the events' time, a process may fold (the kernel's sums come first). */
#define IPP_EXIT_SETTLE_NS 1000000000ull

/* -------------------------------------------------------- retention: retain.c */

/*
 * Fold the closed incarnations whose report is settled into their rows,
 * or drop them when no row would show them, and free them; then compact
 * and fold the exited processes, as the options ask. Done when enough have
 * closed since the last time (intake.c).
 */
void ipp_stats__sweep(struct ipcperf_stats *st);

/* ------------------------------------------------------------ intake: intake.c */

/*
 * The calls the kernel added up on one fd (a summary, lib/bpf/sum-rec.h)
 * into @ctx, a stats object: the N calls it stands for, to the incarnation
 * of the fd current now (or the last, ended since the calls: exit, exec),
 * the syscall's row, the process. The session's sum taker (pipeline.h).
 */
struct ipp_sum_rec;
void ipp_stats__add_sum(void *ctx, const struct ipp_sum_rec *r);
/* Whether the stats @ctx can take sums now: no per-thread rows, no per-call callback. */
bool ipp_stats__takes_sums(void *ctx);

/* ------------------------------------------------------------ attach: attach.c */

/*
 * The table asks /proc what its fds are: through @shared (the session's
 * resolver reading ahead of the merge) when given, else its own; recording,
 * each answer also goes to the capture's @log.
 */
struct ipp_procres;
struct ipp_identlog;
void ipp_stats__proc_resolver(struct ipcperf_stats *st, struct ipp_procres *shared,
			      struct ipp_identlog *log);

/* ------------------------------------------------------------ the object: stats.c */

/* The fd table (fdtable.h) a stats object keeps: flows read what fds are from it. */
struct ipp_fdtab *ipp_stats__fdtab(struct ipcperf_stats *st);

#endif /* IPCPERF_ACCOUNT_H */
