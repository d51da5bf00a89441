/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/bpf/: the BPF programs, their loader and their records' decoders
 * (README.md). This folder may call the ground floor (lib/) only; its
 * records' types name fd/procfd.h's limits.
 *
 * Loader of the BPF programs (progs.bpf.c: fd identity, calls paired,
 * scheduling totals, arguments): loads those asked for, keeps their
 * target map, opens one bpf-output event per CPU and points each into the
 * caller's ring of that CPU, and attaches the programs to their
 * tracepoints. The records it makes are struct ipp_fdid_rec
 * (fdid-rec.h), the RAW data of samples whose id is one of ipp_bpf__ids().
 *
 * Internal to libipcperf (ipp_bpf_ prefix): the live source (rings.c)
 * drives it, and tests/bpf-proto.c. Without BPF at build time,
 * fdid-nobpf.c stands in: ipp_bpf__new() fails with ENOTSUP. Order of use:
 *
 *   b = ipp_bpf__new(&opts)          load and verify (EPERM: no privilege)
 *   ipp_bpf__add_target(b, pid) ...  who to describe (unless opts.all_tasks)
 *   ipp_bpf__set_output(b, cpu, fd)  for every CPU of the rings
 *   ipp_bpf__ids(b, ...)             to tell its samples from the others
 *   ipp_bpf__enable(b)               attach: records flow from here on
 *   ... read the rings ...
 *   ipp_bpf__delete(b)               detach, close, free
 *
 * Needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN) to load tracing
 * programs and open CPU-wide events, a kernel with BTF
 * (/sys/kernel/btf/vmlinux) and bpf_loop() (5.17). Without them
 * ipp_bpf__new() fails and the caller keeps to /proc.
 */
#ifndef IPCPERF_FDID_BPF_H
#define IPCPERF_FDID_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "fdid-rec.h"
#include "call-rec.h"
#include "sched-rec.h"
#include "sum-rec.h"
#include "args-rec.h"

struct ipp_bpf_opts {
	size_t sz;		/* sizeof(struct ipp_bpf_opts) */
	/* Every task on the machine is a target (system-wide sessions). */
	bool all_tasks;
	/*
	 * Do not follow forks in the kernel: the caller adds children itself
	 * (ipp_bpf__add_target() on PERF_RECORD_FORK). Records a child makes
	 * before that are not written.
	 */
	bool user_follow;
	/* Also an IO record (fd and its inode) at the exit of every read/write-family call. */
	bool io_records;
	/* Most targets at once (default 8192). */
	unsigned int max_targets;
	/*
	 * Pair the calls set with ipp_bpf__want_syscall() in the kernel: at
	 * each one's exit a call record (struct ipp_call_rec) in place of the
	 * sys_enter and sys_exit samples, which the session then need not
	 * open. ipp_bpf__pairs() says whether this build and architecture can.
	 */
	bool pair_calls;
	/* ... with the time each call spent switched out (a sched_switch program). */
	bool pair_switches;
	/* With all_tasks: a process whose calls are not paired (the tracer's own), 0 none. */
	pid_t exclude_tgid;
	/*
	 * Count each target thread's sched_switch and sched_wakeup in the
	 * kernel: one sched record (struct ipp_sched_rec) at its exit, and
	 * the threads still alive read with ipp_bpf__for_each_sched(), in
	 * place of the samples of those tracepoints (with exclude_tgid too).
	 */
	bool count_sched;
	/* Keep each program's verifier statistics (ipp_bpf__for_each_load()). */
	bool load_stats;
	/*
	 * With pair_calls: add the read/write family's calls up in the kernel,
	 * per (tgid, fd, nr), in place of a call record each (sum-rec.h); the
	 * calls that end an fd write its sums first (a summary record), the
	 * rest is read at the end with ipp_bpf__for_each_sum(). Not with
	 * all_tasks, user_follow or io_records; ipp_bpf__sums() says.
	 */
	bool agg_calls;
	/*
	 * With pair_calls: a task record (struct ipp_task_rec) at each fork,
	 * exec and exit of a target, in place of the sched_process_fork/exec/
	 * exit samples, which the session then need not open.
	 */
	bool task_records;
	/*
	 * With pair_calls: the args programs too, an arg record (struct
	 * ipp_args_rec) before each call record of a call args-rec.c has a
	 * spec for, and one at the sys_enter of exit and exit_group.
	 */
	bool call_args;
	/*
	 * The caller has not root's rights: the programs read a task's user
	 * memory (call_args) only when the kernel would let the caller, by its
	 * real uid and gid, read that task's (PTRACE_MODE_READ), and a target
	 * that executes a program the caller may not read (set-user-ID, ...)
	 * stops being one, its exec's task record flagged LEFT.
	 */
	bool restricted;
};
#define IPP_BPF_OPTS(NAME, ...) \
	struct ipp_bpf_opts NAME = { .sz = sizeof(struct ipp_bpf_opts), __VA_ARGS__ }

struct ipp_bpf;

/*
 * Load and verify the programs; nothing is attached yet. Programs of
 * syscalls this kernel has no tracepoint for (open and creat on arm64) are
 * left out. libbpf's messages go to ipp_debug().
 * @return a loader, freed with ipp_bpf__delete(); NULL with errno: EPERM
 *   (no CAP_BPF/CAP_PERFMON: use /proc), ENOENT (no kernel BTF, or tracefs
 *   not found), EINVAL (bad opts, or the verifier refused: ipp_debug() has
 *   its log), ENOMEM.
 */
struct ipp_bpf *ipp_bpf__new(const struct ipp_bpf_opts *opts);

/* Detaches, closes every fd it opened, frees. Accepts NULL. */
void ipp_bpf__delete(struct ipp_bpf *b);

/* Records of process @tgid (all its threads) from now on. @return 0, -ENOSPC (map full), -errno. */
int ipp_bpf__add_target(struct ipp_bpf *b, pid_t tgid);
/*
 * A command started corked, pid @tgid: a target whose calls are paired
 * only from its exec on (its fd records are written from now on).
 * @return as ipp_bpf__add_target().
 */
int ipp_bpf__add_command(struct ipp_bpf *b, pid_t tgid);
/* @return 0, or -ENOENT when it was not a target. */
int ipp_bpf__remove_target(struct ipp_bpf *b, pid_t tgid);

/*
 * Open the bpf-output event of CPU @cpu (CPU-wide, sample_type
 * IDENTIFIER|TID|TIME|CPU|RAW, sample_id_all, clock @clockid) and point it
 * into the ring of @ring_fd: any perf event fd whose ring is that CPU's
 * (the ring's owner or an event set to output into it), opened with the
 * same @clockid on the same CPU (the kernel refuses other CPUs and clocks:
 * -EINVAL). Call it for every CPU a target may run on before
 * ipp_bpf__enable(); a CPU without one drops its records (counted in
 * IPP_FDID_ST_OUT_FAIL).
 * @return 0 or -errno (-EBUSY once enabled).
 */
int ipp_bpf__set_output(struct ipp_bpf *b, int cpu, int ring_fd, clockid_t clockid);

struct perf_event_attr;
/* The attributes of the bpf-output events ipp_bpf__set_output() opens (for a capture's header). */
void ipp_bpf__output_attr(struct perf_event_attr *a, clockid_t clockid);

/*
 * The kernel ids (PERF_EVENT_IOC_ID, the sample's IDENTIFIER) of the
 * bpf-output events opened so far; the array belongs to @b.
 */
const uint64_t *ipp_bpf__ids(const struct ipp_bpf *b, size_t *nr);

/*
 * Enable the bpf-output events and attach every program (a disabled
 * per-task perf event of this process on each tracepoint, whose
 * PERF_EVENT_IOC_SET_BPF makes the program run on every hit of the
 * tracepoint on the machine; fork/exit through BTF tracepoints).
 * @return 0 or -errno (the programs attached before a failure are detached).
 */
int ipp_bpf__enable(struct ipp_bpf *b);

/* Whether @b pairs calls in the kernel (asked for, and this architecture's registers known). */
bool ipp_bpf__pairs(const struct ipp_bpf *b);

/* Pair syscall number @nr (before ipp_bpf__enable()). @return 0, -EINVAL (out of range), -errno. */
int ipp_bpf__want_syscall(struct ipp_bpf *b, int nr);

/*
 * No call or sched records from now on (the end of a session): calls under
 * way stay in their map, the threads' counts in theirs.
 */
void ipp_bpf__stop_calls(struct ipp_bpf *b);

/*
 * Count thread @tid of process @tgid from now on for target @root, with
 * @base what the kernel had accounted to it (read from /proc), before
 * ipp_bpf__enable(): the threads of a running target, which no fork or exec
 * would give an entry from their start. @return 0, -EEXIST, -errno.
 */
int ipp_bpf__seed_thread(struct ipp_bpf *b, pid_t tid, pid_t tgid, pid_t root,
			 const char *comm, const struct ipp_task_acct *base);

/* Whether @b counts the threads' switches and wakeups (opts.count_sched). */
bool ipp_bpf__counts_sched(const struct ipp_bpf *b);
/* Whether @b writes the targets' task records (opts.task_records, with the calls paired). */
bool ipp_bpf__task_records(const struct ipp_bpf *b);

/*
 * Call @cb for each thread whose counts are still in the map: alive at the
 * end, or exited when its record found no room (exited set). After
 * ipp_bpf__stop_calls(). @return 0, the first non-zero return of @cb, or -errno.
 */
int ipp_bpf__for_each_sched(const struct ipp_bpf *b,
			    int (*cb)(void *ctx, uint32_t tid, const struct ipp_sched_slot *t),
			    void *ctx);

/* Whether @b adds the hot calls up (opts.agg_calls, and close, dup2, dup3 paired: else not, from ipp_bpf__enable()). */
bool ipp_bpf__sums(const struct ipp_bpf *b);
/*
 * Once every call is wanted (ipp_bpf__want_syscall()): whether the calls
 * are added up after all (close, dup2, dup3 paired too; else none is).
 * ipp_bpf__enable() settles it too. @return 1 yes, 0 no, -errno.
 */
int ipp_bpf__settle_sums(struct ipp_bpf *b);
typedef int (*ipp_bpf_sum_fn)(void *ctx, const struct ipp_sum_rec *r);
/*
 * Call @cb with each sum still in the map (one per key and CPU that has
 * calls), as a summary record would carry it. After ipp_bpf__stop_calls():
 * what no fd-ending call flushed. @return 0, the first non-zero return of
 * @cb, or -errno.
 */
int ipp_bpf__for_each_sum(const struct ipp_bpf *b, ipp_bpf_sum_fn cb, void *ctx);
/*
 * How many paired calls were entered and never ended (still under way at
 * the end of a session, or whose exit was not seen): sys_enter samples
 * without their exit, as the pairer counts them. @return 0 or -errno.
 */
int ipp_bpf__calls_under_way(const struct ipp_bpf *b, uint64_t *n);

/* The program's counter @which on CPU @cpu. @return 0 or -errno. */
int ipp_bpf__stat_on_cpu(const struct ipp_bpf *b, enum ipp_fdid_stat which, int cpu,
			 uint64_t *out);

/* Sum over CPUs of the program's counters (enum ipp_fdid_stat). @return 0 or -errno. */
int ipp_bpf__stats(const struct ipp_bpf *b, uint64_t out[IPP_FDID_NR_STATS]);

/*
 * Call @cb for each loaded program with the kernel's count of its runs and
 * the time they took (both 0 unless sysctl kernel.bpf_stats_enabled is 1).
 * @return 0, the first non-zero return of @cb, or -errno.
 */
int ipp_bpf__for_each_prog(const struct ipp_bpf *b,
			   int (*cb)(void *ctx, const char *name, uint64_t runs, uint64_t ns),
			   void *ctx);

/*
 * For each loaded program: its instructions, what the verifier processed
 * and the time it took (its log's "processed N insns", "verification time
 * N usec"), when the loader was asked for load_stats (else both 0).
 * @return 0, the first non-zero return of @cb, or -errno.
 */
int ipp_bpf__for_each_load(const struct ipp_bpf *b,
			   int (*cb)(void *ctx, const char *name, size_t insns,
				     unsigned long processed, unsigned long verify_us),
			   void *ctx);

/*
 * What the load of the object took (its maps, relocations and the
 * verification of the programs asked for, not the open), in ns.
 */
uint64_t ipp_bpf__load_ns(const struct ipp_bpf *b);

/*
 * Runs of the programs loaded that the kernel skipped because another run
 * of the same program was under way on that CPU (a wakeup in an interrupt
 * that came during one in a task), whoever they were for. 0 if unknown.
 */
uint64_t ipp_bpf__missed(const struct ipp_bpf *b);

/* Programs loaded (and attached by ipp_bpf__enable()). */
size_t ipp_bpf__nr_programs(const struct ipp_bpf *b);

#endif /* IPCPERF_FDID_BPF_H */
