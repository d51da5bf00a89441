/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/bpf/: the BPF programs, their loader and their records' decoders
 * (README.md). This folder may call the ground floor (lib/) only; its
 * records fill the ground floor's struct ipp_fdid (fdid.h).
 *
 * This is the loader of the BPF programs of progs.bpf.c: fd identity,
 * calls paired in the kernel, scheduling totals, and arguments. It loads
 * the programs asked for, keeps their target map, opens one bpf-output
 * event per CPU and points each into the caller's ring of that CPU, and
 * attaches the programs to their tracepoints. The records the programs
 * write are struct ipp_fdid_rec (fdid-rec.h) and the other kinds of
 * krec.h, in the RAW data of samples whose id is one of ipp_bpf__ids().
 *
 * It is internal to libipcperf (ipp_bpf_ prefix): the live source (rings.c)
 * drives it, and so does tests/bpf-proto.c. Without BPF at build time,
 * fdid-nobpf.c stands in and ipp_bpf__new() fails with ENOTSUP. The order
 * of use is:
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
	/* Make every task on the machine a target (system-wide sessions). */
	bool all_tasks;
	/*
	 * Do not follow forks in the kernel: the caller adds children itself
	 * (ipp_bpf__add_target() on PERF_RECORD_FORK). Records a child makes
	 * before that are not written.
	 */
	bool user_follow;
	/*
	 * Also write an IO record (the fd and its inode) at the exit of every
	 * read/write-family call.
	 */
	bool io_records;
	/* The most targets at once (default 8192). */
	unsigned int max_targets;
	/*
	 * Pair the calls set with ipp_bpf__want_syscall() in the kernel: at
	 * each one's exit, write a call record (struct ipp_call_rec) in place
	 * of the sys_enter and sys_exit samples, which the session then need
	 * not open. ipp_bpf__pairs() says whether this build and architecture
	 * can.
	 */
	bool pair_calls;
	/*
	 * With pair_calls, also measure the time each call spent switched out
	 * (a sched_switch program).
	 */
	bool pair_switches;
	/*
	 * With all_tasks, a process whose calls are not paired (the tracer's
	 * own), or 0 for none.
	 */
	pid_t exclude_tgid;
	/*
	 * Count each target thread's sched_switch and sched_wakeup in the
	 * kernel, in place of the samples of those tracepoints (exclude_tgid
	 * applies too). Each thread gets one sched record (struct
	 * ipp_sched_rec) at its exit; the threads still alive are read with
	 * ipp_bpf__for_each_sched().
	 */
	bool count_sched;
	/* Keep each program's verifier statistics (ipp_bpf__for_each_load()). */
	bool load_stats;
	/*
	 * With pair_calls, add the read/write family's calls up in the kernel
	 * per (tgid, fd, nr), in place of a call record each (sum-rec.h). A
	 * call that ends an fd first writes the fd's sums as a summary record;
	 * the rest is read at the end with ipp_bpf__for_each_sum(). This does
	 * not work with all_tasks, user_follow or io_records; ipp_bpf__sums()
	 * says whether it is on.
	 */
	bool agg_calls;
	/*
	 * With pair_calls, write a task record (struct ipp_task_rec) at each
	 * fork, exec and exit of a target, in place of the sched_process_fork/
	 * exec/exit samples, which the session then need not open.
	 */
	bool task_records;
	/*
	 * With pair_calls, load the args programs too. They write an arg
	 * record (struct ipp_args_rec) before the call record of each call
	 * that args-rec.c has a spec for, and one at the sys_enter of exit and
	 * exit_group.
	 */
	bool call_args;
	/*
	 * Set when the caller does not have root's rights. The programs then
	 * read a task's user memory (call_args) only when the kernel would let
	 * the caller, by its real uid and gid, read that task's memory
	 * (PTRACE_MODE_READ). A target that executes a program the caller may
	 * not read (set-user-ID, ...) stops being a target, and its exec's task
	 * record is flagged LEFT.
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
 * Returns a loader, to be freed with ipp_bpf__delete(), or NULL with errno
 * set: EPERM without CAP_BPF/CAP_PERFMON (use /proc then), ENOENT when
 * there is no kernel BTF or tracefs is not found, EINVAL for bad opts or
 * when the verifier refused (ipp_debug() has its log), or ENOMEM.
 */
struct ipp_bpf *ipp_bpf__new(const struct ipp_bpf_opts *opts);

/* Detach the programs, close every fd the loader opened, and free @b, which may be NULL. */
void ipp_bpf__delete(struct ipp_bpf *b);

/*
 * Write records for process @tgid (all its threads) from now on. Returns
 * 0, -ENOSPC when the target map is full, or -errno.
 */
int ipp_bpf__add_target(struct ipp_bpf *b, pid_t tgid);
/*
 * Add a command started corked, pid @tgid, as a target whose calls are
 * paired only from its exec on; its fd records are written from now on.
 * Returns as ipp_bpf__add_target() does.
 */
int ipp_bpf__add_command(struct ipp_bpf *b, pid_t tgid);
/* Stop writing records for process @tgid. Returns 0, or -ENOENT when it was not a target. */
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
 * Returns 0 or -errno (-EBUSY once enabled).
 */
int ipp_bpf__set_output(struct ipp_bpf *b, int cpu, int ring_fd, clockid_t clockid);

struct perf_event_attr;
/*
 * Fill @a with the attributes of the bpf-output events ipp_bpf__set_output()
 * opens, for a capture's header.
 */
void ipp_bpf__output_attr(struct perf_event_attr *a, clockid_t clockid);

/*
 * Return the kernel ids (PERF_EVENT_IOC_ID, the sample's IDENTIFIER) of
 * the bpf-output events opened so far, and their number in *@nr. The array
 * belongs to @b.
 */
const uint64_t *ipp_bpf__ids(const struct ipp_bpf *b, size_t *nr);

/*
 * Enable the bpf-output events and attach every program (a disabled
 * per-task perf event of this process on each tracepoint, whose
 * PERF_EVENT_IOC_SET_BPF makes the program run on every hit of the
 * tracepoint on the machine; fork/exit through BTF tracepoints).
 * Returns 0 or -errno; after a failure the programs attached so far are
 * detached.
 */
int ipp_bpf__enable(struct ipp_bpf *b);

/*
 * Whether @b pairs calls in the kernel: it was asked to, and this
 * architecture's registers are known.
 */
bool ipp_bpf__pairs(const struct ipp_bpf *b);

/*
 * Pair syscall number @nr; call it before ipp_bpf__enable(). Returns 0,
 * -EINVAL when @nr is out of range, or -errno.
 */
int ipp_bpf__want_syscall(struct ipp_bpf *b, int nr);

/*
 * Write no call or sched records from now on, at the end of a session.
 * Calls under way stay in their map, and the threads' counts in theirs.
 */
void ipp_bpf__stop_calls(struct ipp_bpf *b);

/*
 * Count thread @tid of process @tgid from now on for target @root, with
 * @base what the kernel had accounted to it (read from /proc). Call it
 * before ipp_bpf__enable() for the threads of a running target, which no
 * fork or exec would give an entry from their start. Returns 0, -EEXIST or
 * -errno.
 */
int ipp_bpf__seed_thread(struct ipp_bpf *b, pid_t tid, pid_t tgid, pid_t root,
			 const char *comm, const struct ipp_task_acct *base);

/* Whether @b counts the threads' switches and wakeups (opts.count_sched). */
bool ipp_bpf__counts_sched(const struct ipp_bpf *b);
/* Whether @b writes the targets' task records (opts.task_records, with the calls paired). */
bool ipp_bpf__task_records(const struct ipp_bpf *b);

/*
 * Call @cb for each thread whose counts are still in the map: alive at the
 * end, or exited when its record found no room (exited set). Call it after
 * ipp_bpf__stop_calls(). Returns 0, the first non-zero return of @cb, or
 * -errno.
 */
int ipp_bpf__for_each_sched(const struct ipp_bpf *b,
			    int (*cb)(void *ctx, uint32_t tid, const struct ipp_sched_slot *t),
			    void *ctx);

/*
 * Whether @b adds the hot calls up: opts.agg_calls was asked for and close,
 * dup2 and dup3 are paired; otherwise ipp_bpf__enable() turns it off.
 */
bool ipp_bpf__sums(const struct ipp_bpf *b);
/*
 * Once every call is wanted (ipp_bpf__want_syscall()), settle whether the
 * calls are added up after all: only when close, dup2 and dup3 are paired
 * too, and otherwise none is. ipp_bpf__enable() settles it too. Returns 1
 * when they are added up, 0 when not, or -errno.
 */
int ipp_bpf__settle_sums(struct ipp_bpf *b);
typedef int (*ipp_bpf_sum_fn)(void *ctx, const struct ipp_sum_rec *r);
/*
 * Call @cb with each sum still in the map (one per key and CPU that has
 * calls), as a summary record would carry it. Call it after
 * ipp_bpf__stop_calls() to read what no fd-ending call flushed. Returns 0,
 * the first non-zero return of @cb, or -errno.
 */
int ipp_bpf__for_each_sum(const struct ipp_bpf *b, ipp_bpf_sum_fn cb, void *ctx);
/*
 * Store in *@n how many paired calls were entered and never ended (still
 * under way at the end of a session, or whose exit was not seen), as the
 * pairer counts sys_enter samples without their exit. Returns 0 or -errno.
 */
int ipp_bpf__calls_under_way(const struct ipp_bpf *b, uint64_t *n);

/* Store the programs' counter @which on CPU @cpu in *@out. Returns 0 or -errno. */
int ipp_bpf__stat_on_cpu(const struct ipp_bpf *b, enum ipp_fdid_stat which, int cpu,
			 uint64_t *out);

/*
 * Store in @out each of the programs' counters (enum ipp_fdid_stat), summed
 * over CPUs. Returns 0 or -errno.
 */
int ipp_bpf__stats(const struct ipp_bpf *b, uint64_t out[IPP_FDID_NR_STATS]);

/*
 * Call @cb for each loaded program with the kernel's count of its runs and
 * the time they took (both 0 unless sysctl kernel.bpf_stats_enabled is 1).
 * Returns 0, the first non-zero return of @cb, or -errno.
 */
int ipp_bpf__for_each_prog(const struct ipp_bpf *b,
			   int (*cb)(void *ctx, const char *name, uint64_t runs, uint64_t ns),
			   void *ctx);

/*
 * For each loaded program: its instructions, what the verifier processed
 * and the time it took (its log's "processed N insns", "verification time
 * N usec"), when the loader was asked for load_stats (else both are 0).
 * Returns 0, the first non-zero return of @cb, or -errno.
 */
int ipp_bpf__for_each_load(const struct ipp_bpf *b,
			   int (*cb)(void *ctx, const char *name, size_t insns,
				     unsigned long processed, unsigned long verify_us),
			   void *ctx);

/*
 * Return the ns the load of the object took: its maps, relocations and the
 * verification of the programs asked for, but not the open.
 */
uint64_t ipp_bpf__load_ns(const struct ipp_bpf *b);

/*
 * Return the runs of the loaded programs that the kernel skipped because
 * another run of the same program was under way on that CPU (a wakeup in an
 * interrupt that came during one in a task), whoever they were for, or 0
 * when unknown.
 */
uint64_t ipp_bpf__missed(const struct ipp_bpf *b);

/* Return the number of programs loaded (and attached by ipp_bpf__enable()). */
size_t ipp_bpf__nr_programs(const struct ipp_bpf *b);

#endif /* IPCPERF_FDID_BPF_H */
