/*
 * What ipcperf stat shows, taken out of the library's accounting. A
 * snapshot holds, per process, its fds, syscalls and counters, sorted and
 * cut as the options say; it covers either the totals or the deltas of one
 * -I interval, which the library's ipcperf_interval keeps. This header also
 * has the counters of the target processes and the names of the threads
 * for --per-thread. The renderers (statout.h) take a snapshot and write it.
 */
#ifndef IPCPERF_CLI_STATSNAP_H
#define IPCPERF_CLI_STATSNAP_H
#include <stdbool.h>
#include <stdint.h>
#include <ipcperf/ipcperf.h>
#include "cmds.h"
#include "syscalls-out.h"
#include "util.h"

/* ------------------------------------------------------------------ counters */

/* The counter values of one source: a target process with its children, or all targets. */
struct cnt_set {
	bool valid;
	struct ipcperf_counter_value v[IPCPERF_CNT__MAX];
};

/* A target process whose counters are read on their own. */
struct cnt_target {
	pid_t pid;
	char comm[CLI_COMM_LEN];	/* in case it never shows up in the accounting */
	struct cnt_set cur;		/* last read */
	struct cnt_set delta;		/* -I: over the last interval (ipcperf_interval__counters()) */
};

/* Read the counters of @pid (of all targets when 0) into @set. */
void cnt_read(struct ipcperf_session *s, pid_t pid, struct cnt_set *set);

/* ------------------------------------------------------------------ snapshots */

struct fd_snap {
	int fd;
	char *object, *detail;
	enum ipcperf_fd_kind kind;
	struct ipcperf_io read, write;
	pid_t peer_pid;			/* the process at the other end, 0 unknown */
	char *peer_comm;
	/* For a group (proc_snap.groups): its rows, how they were grouped, and its endpoint. */
	uint64_t conns;
	uint64_t by_ports;		/* of conns, those grouped by their ports (ipcperf_fd_group) */
	enum ipcperf_fd_group_role role;
	char *endpoint;
	struct ipcperf_moved read_moved, write_moved;	/* the zero-copy part of each */
	bool folded;			/* an fd row that holds conns closed connections */
};

struct proc_snap {
	pid_t pid;
	char *comm;
	uint64_t voluntary, involuntary, wakeups, migrations, syscalls, threads;
	uint64_t uring_unaccounted;	/* io_uring requests whose bytes no fd row has */
	uint64_t left_ns;		/* when it left what the user may see (CLOCK_MONOTONIC), or 0 */
	bool exited;
	uint64_t folded;		/* a row of exited processes of one comm: how many (pid < 0) */
	struct fd_snap *fds;
	size_t nr_fds, cap_fds, fds_omitted;
	/*
	 * The fd rows grouped (ipcperf_stats__for_each_fd_group()): object is
	 * what the table shows ("127.0.0.1:6379 <- comm[pid]" for a group of
	 * several connections), detail the row's detail with its peer.
	 */
	struct fd_snap *groups;
	size_t nr_groups, cap_groups, groups_omitted;
	struct sc_rows scs;		/* per syscall (per thread with --per-thread), sorted by -S */
	uint64_t read_ops, read_bytes, write_ops, write_bytes;	/* of all its fds, before --top */
	const struct cnt_set *cnt;	/* its counters (a target: with its children), or NULL */
};

/* What one output (an interval, or the totals) shows. */
struct snap {
	struct proc_snap *procs;	/* ordered by pid */
	size_t nr_procs, cap_procs;
	bool is_interval;		/* deltas of one -I interval */
	uint64_t time_ns;		/* from the start to the end of what this covers */
	uint64_t duration_ns;		/* length of what this covers */
	uint64_t start_ns;		/* the session's start (CLOCK_MONOTONIC) */
	uint64_t lost, unpaired, records;
	/* The command's CPU time, as perf stat ends with it (its rusage once reaped). */
	bool has_times;
	uint64_t user_ns, sys_ns;
	unsigned int fd_identity;	/* enum ipcperf_fdid_source, 0 unknown */
	unsigned int syscall_records;	/* enum ipcperf_sc_records, 0 unknown */
	unsigned int sched_records;	/* enum ipcperf_sched_records, 0 unknown */
	const struct cnt_set *all;	/* over all targets (or the system), or NULL */
	struct sc_rows total_scs;	/* --total: every process's rows merged by name */
	/* The totals only: the flows of --flows (and the accounting they read),
	 * and the command's wait status once it exited. */
	struct ipcperf_flows *flows;
	struct ipcperf_stats *flow_stats;
	const int *exit_status;
	bool oom;
};

/*
 * Whether every output of @o shows the fd rows by group only: the text
 * tables of the totals without --per-fd, and not -I, --listen or
 * --openmetrics, which add up the rows. The rows of closed connections then
 * fold into their groups as they pile up (a server traced for hours costs
 * its open fds and its groups, not a row per connection), and the report
 * takes no per-fd rows.
 */
bool snap_rows_by_group(const struct stat_opts *o);
/*
 * Read @st into @sn. Then attach the counters of the @nr target processes
 * @cts (their deltas for an @interval), drop what did nothing (for
 * intervals only, since the totals list every fd), sort the fd and syscall
 * rows and keep --top of the fds, as @o says. Returns 0, or -1 after
 * reporting the error.
 */
int snap_take(struct snap *sn, struct ipcperf_stats *st, const struct stat_opts *o,
	      const struct cnt_target *cts, size_t nr, bool interval);
void snap_free(struct snap *sn);

/*
 * Return when @p left what the user may see (proc_snap.left_ns), counted from
 * the session's start.
 */
uint64_t snap_left_after_ns(const struct snap *sn, const struct proc_snap *p);

bool fd_active(const struct fd_snap *f);
bool proc_active(const struct proc_snap *p);

/* ------------------------------------------------------------------ thread names */

/* The last name of each thread seen (--per-thread's headings), by tid. */
struct thread_names {
	struct thread_name {
		pid_t tid;
		char comm[CLI_COMM_LEN];
	} *v;
	size_t n, cap;
};

/* Fill @h with handlers that keep @tn up to date (sched_switch, task), to register on a session. */
void thread_names_handlers(struct thread_names *tn, struct ipcperf_handlers *h);
/* Return the name of @tid, or NULL when it was never seen. */
const char *thread_names_get(const struct thread_names *tn, pid_t tid);
void thread_names_free(struct thread_names *tn);

#endif
