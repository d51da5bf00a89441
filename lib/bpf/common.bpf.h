/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the programs of the jobs (fdid.bpf.c, sched.bpf.c, calls.bpf.c,
 * args.bpf.c) share: the loader's settings (.rodata), the .bss
 * (target_bits, the stop flags), the maps and the helpers. The four files
 * make one object (progs.bpf.c), so that a load parses the kernel's BTF
 * once, and the loader loads from it the programs each session asks for.
 * See lib/bpf/README.md.
 */
#ifndef IPP_COMMON_BPF_H
#define IPP_COMMON_BPF_H
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_endian.h>
#include "fdid-rec.h"
#include "call-rec.h"
#include "sched-rec.h"
#include "sum-rec.h"
#include "task-rec.h"

/*
 * The kernel loads programs that use bpf_probe_read_kernel() and
 * bpf_perf_event_output() only under a GPL-compatible license string; this
 * file is LGPL-2.1-or-later, which may be used under the GPL (LGPL 2.1,
 * section 3).
 */
char LICENSE[] SEC("license") = "GPL";

/* Set by the loader before loading. */
const volatile bool trace_all = false;	/* every task is a target: no map lookup */
const volatile bool follow_forks = true;	/* a target's new process is a target */
const volatile bool io_records = false;	/* recvmsg also writes its IO record */
const volatile __u32 page_size = 4096;
/* Pair each wanted call in the kernel and write one call record at its exit. */
const volatile bool pair_calls = false;
/* With pair_calls, also measure the time each call spent switched out (sched_switch). */
const volatile bool pair_switches = false;
/* Count each target thread's switches and wakeups in the kernel (sched_tot). */
const volatile bool count_sched = false;
const volatile __u32 exclude_tgid = 0;	/* with trace_all: the tracer's own calls are not paired */
/*
 * Write a task record at each fork, exec and exit of a target; with pair_calls,
 * calls_stopped ends them.
 */
const volatile bool task_records = false;
/*
 * Set by the loader once every program is attached. Before that, the exit
 * programs may run while call_enter is not attached yet, and a call that
 * ends then is taken as begun before the start, not as under way at it.
 */
volatile bool calls_started = false;
/* Set by the loader at the end of a session to stop writing call records. */
volatile bool calls_stopped = false;
/*
 * Set at the same time to stop counting switches and wakeups, so that userspace
 * can read sched_tot.
 */
volatile bool sched_stopped = false;
/*
 * How many targets left the targets map, taken out by the programs or the
 * loader; the memo in cpu_calls ages with it.
 */
volatile __u64 targets_gone;
/*
 * The numbers of this architecture's exit and exit_group, set by the loader; a
 * counter stops at them.
 */
const volatile long nr_exit = -1;
const volatile long nr_exit_group = -1;
/*
 * The number of rt_sigreturn, set by the loader. Its exit comes with no
 * number (-1), because it restores the registers.
 */
const volatile long nr_rt_sigreturn = -1;
/*
 * Add up the calls want marks WANT_SUM in the kernel (agg), per (tgid, fd,
 * nr), in place of a call record each; the fd-ending calls flush them.
 */
const volatile bool agg_calls = false;
/*
 * The numbers of the calls that are added up, in .bss; the loader sets them
 * with want, and a close flushes each of them for its fd.
 */
volatile __s32 agg_nrs[IPP_SUM_MAX_NRS];
volatile __u32 n_agg_nrs;
/* The number of CPUs whose per-CPU sums a flush reads; the loader sets it. */
const volatile __u32 nr_cpus = 1;
#if defined(__TARGET_ARCH_x86) || defined(__TARGET_ARCH_arm64)
const volatile bool can_pair = true;	/* the loader reads it: the call programs know the registers */
#else
const volatile bool can_pair = false;
#endif

/*
 * Set by the loader, with the caller's real ids, for a caller without
 * root's rights. A task's user memory is then read only when the kernel
 * would let the caller read it (caller_may_read()). Root's sessions leave
 * it false, and the verifier drops every test of it.
 */
const volatile bool restricted = false;
const volatile __u32 caller_uid = 0;
const volatile __u32 caller_gid = 0;

#define S_IFMT 00170000
#define S_IFSOCK 0140000
#define S_IFIFO 0010000
#define PIPEFS_MAGIC 0x50495045
#define AF_UNIX 1
#define AF_INET 2
#define AF_INET6 10
#define F_DUPFD 0
#define F_DUPFD_CLOEXEC 1030
#define SOL_SOCKET 1
#define SCM_RIGHTS 1
#define EINPROGRESS 115
#define EAGAIN 11

#define PATH_STEPS 40		/* dentries and mount crossings walked at most */
#define SCM_MAX_CMSGS 4		/* control messages looked at in one recvmsg */
#define SCM_MAX_FDS 16		/* fds taken from them */
#define FDS_SLOTS 64		/* scratch.fds: room for any index & FDS_MASK plus SCM_MAX_FDS */
#define FDS_MASK 31

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);	/* the loader may change it */
	__type(key, __u32);		/* tgid */
	__type(value, __u32);		/* 0 */
} targets SEC(".maps");

/*
 * The values of the targets map: 0 for a target, and TARGET_AT_EXEC for a
 * command not yet exec'd, whose calls are not paired until it execs (as its
 * tracepoint events switch on at exec). The fd-creating programs look only
 * at whether a tgid is present.
 */
#define TARGET_AT_EXEC 1

/*
 * One bit per tgid that may be in targets (maybe_target()); the loader also
 * sets bits, through the mmap.
 */
__u64 target_bits[IPP_FDID_TARGET_BITS / 64];

/*
 * The syscalls to pair, by number, as the loader set them (enum
 * ipp_sum_want). A call that is added up has no call record; the fd-ending
 * calls flush the sums of the fds they end before their own record.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, IPP_FDID_MAX_NR);
	__type(key, __u32);
	__type(value, __u8);
} want SEC(".maps");

/*
 * What the sys_exit program does for each call, by number (enum
 * ipp_fdid_call_kind), as the loader set it. One BTF tracepoint program
 * serves every call, with no perf event per tracepoint: closing each took
 * the kernel 30-70 ms, because a perf tracepoint's last user waits for an
 * RCU-tasks grace period.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, IPP_FDID_MAX_NR);
	__type(key, __u32);
	__type(value, __u8);
} fd_calls SEC(".maps");

/*
 * What runs at a call's exit, by tail calls (the loader fills the slots):
 * exit_gate, the one program attached to sys_exit, goes on to exit_fd
 * (EXIT_NEXT_FD) for a process that may be a target, and exit_fd, when the
 * calls are paired, to call_exit (EXIT_NEXT_CALL), which goes on to
 * call_flush (EXIT_NEXT_FLUSH) for a call that ends fds when the calls are
 * added up. So every call of the machine runs one small program at its
 * exit, and a call's fd records come before its call record.
 */
#define EXIT_NEXT_FD 0
#define EXIT_NEXT_CALL 1
#define EXIT_NEXT_FLUSH 2
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 3);
	__type(key, __u32);
	__type(value, __u32);
} exit_next SEC(".maps");

/*
 * A target thread's call slot when it is switched out inside a call
 * (call_switch moves it here from its CPU's, cpu_calls below), in its
 * task_struct (task-local storage: a pointer away, where a hash map by tid
 * costs a locked update and delete per call). Made at the thread's first
 * such switch, freed with the task.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ipp_call_slot);	/* fdid-rec.h */
} calls SEC(".maps");

/*
 * The call under way on each CPU: the slot of the thread that entered it on
 * this CPU and has not left the CPU since (c.pid is its process). call_enter
 * writes it, call_exit reads it, and call_switch moves it into the thread's
 * task storage (calls) when the thread leaves the CPU inside the call. A
 * call that ends on the CPU it began on, as most do, touches no task
 * storage, which would cost two lookups, about 140 ns a call on this VM.
 * Beside it is a memo of the last tgid found to be a call target on this CPU
 * (memo_tgid), valid while no target has left since (memo_gone ==
 * targets_gone). It only remembers positive answers, as a task's slot did
 * before.
 */
struct cpu_call {
	struct ipp_call_slot c;
	__u32 memo_tgid;
	__u32 pad;
	__u64 memo_gone;
	__u64 exit_now;		/* call_exit's clock, for call_flush (its tail call) */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cpu_call);
} cpu_calls SEC(".maps");

/* One bpf-output event per CPU, by CPU number; the loader fills it. */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} fdid_out SEC(".maps");

struct scratch {
	struct ipp_fdid_rec rec;
	/* The path is built backwards, ending at PATH_END. */
	char buf[2 * IPP_FDID_PATH_MAX];
	int fds[FDS_SLOTS];	/* the fds a call made (fd_exit()), SCM_RIGHTS's at most SCM_MAX_FDS */
	/*
	 * How fd_exit() emits them. This is kept here, not on its stack, so
	 * that the verifier sees one state at its bpf_loop(), whichever call
	 * it was.
	 */
	__u32 nfds;
	int what;	/* of each fd ... */
	int io_first;	/* ... but the first, an IO record */
};
#define PATH_END IPP_FDID_PATH_MAX

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, IPP_FDID_NR_STATS);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/*
 * Each CPU's scheduler clock (its run queue's) less the BPF clock, taken at
 * a switch, where the kernel has just brought the run queue's clock up to
 * date. Added to the BPF clock, it gives the scheduler's clock now, as
 * closely as the two clocks agree.
 */
struct oncpu {
	__u64 clock_off;	/* rq->clock - bpf_ktime_get_ns(), modulo 2^64 */
	__u64 at_ns;		/* when taken; 0: not yet on this CPU */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct oncpu);
} oncpu SEC(".maps");

/*
 * Two ways to read a field of a task or run queue. The typed pointers' own
 * loads cost no helper call, which matters for the programs run at every
 * switch. Probe reads (BPF_CORE_READ) spare the verifier a walk of
 * task_struct's BTF per field (about 1 ms each here), which suits the rare
 * paths (an exit call, an exec).
 */
#define LOAD_READ(p, f) ((p)->f)

/*
 * Read the clocks of a task's run queue, @rq_of_task, with @rd (LOAD_READ
 * or BPF_CORE_READ). The run queue is reached through the task's fair-class
 * queue, since the kernel need not name per-CPU data to BPF. Evaluates to
 * false where there is none.
 */
#define RQ_CLOCKS(rd, rq_of_task, clk, clk_task)                              \
	({                                                                    \
		struct rq *rq_ = bpf_core_field_exists(struct cfs_rq, rq) ?   \
				 (rq_of_task) : NULL;                         \
		if (rq_) {                                                    \
			*(clk) = rd(rq_, clock);                              \
			*(clk_task) = rd(rq_, clock_task);                    \
		}                                                             \
		rq_ != NULL;                                                  \
	})

/*
 * Fill the header a record starts with (struct ipp_krec_hdr, krec.h): a
 * record of kind @what, @size bytes, of thread @tid of process @pid.
 */
static __always_inline void krec_hdr(void *rec, __u8 what, __u16 size, __s32 pid, __s32 tid)
{
	struct ipp_krec_hdr *h = rec;

	h->version = IPP_FDID_REC_VERSION;
	h->size = size;
	h->what = what;
	h->pid = pid;
	h->tid = tid;
}

/*
 * A syscall's six arguments into @args, from its registers at sys_enter. A
 * BTF tracepoint's typed pointers are read with plain loads, without a
 * helper call.
 */
static __always_inline void sys_args(__u64 *args, const struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	args[0] = regs->di;
	args[1] = regs->si;
	args[2] = regs->dx;
	args[3] = regs->r10;
	args[4] = regs->r8;
	args[5] = regs->r9;
#elif defined(__TARGET_ARCH_arm64)
	args[0] = regs->orig_x0;
	args[1] = regs->regs[1];
	args[2] = regs->regs[2];
	args[3] = regs->regs[3];
	args[4] = regs->regs[4];
	args[5] = regs->regs[5];
#endif
}

static __always_inline bool rq_clocks(struct task_struct *p, __u64 *clock, __u64 *clock_task)
{
	return RQ_CLOCKS(LOAD_READ, p->se.cfs_rq->rq, clock, clock_task);
}

/* At a switch to @next on this CPU, note the offset of the CPU's scheduler clock. */
static __always_inline void oncpu_mark(struct task_struct *next)
{
	__u32 zero = 0;
	struct oncpu *o = bpf_map_lookup_elem(&oncpu, &zero);
	__u64 clock, clock_task;

	if (!o || !rq_clocks(next, &clock, &clock_task))
		return;
	o->at_ns = bpf_ktime_get_ns();
	o->clock_off = clock - o->at_ns;
}

/*
 * Each target thread's switches and wakeups, by tid (struct ipp_sched_slot).
 * A hash map, not task-local storage: userspace reads the threads still
 * alive at the end. A thread's entry goes at its exit, with its record.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);	/* the loader sets it */
	__type(key, __u32);		/* tid */
	__type(value, struct ipp_sched_slot);
} sched_tot SEC(".maps");

/* Read with @rd into @a what the kernel accounted to @p so far (the software counters' sources). */
#define READ_ACCT(rd, p, a)                                                   \
	do {                                                                  \
		(a)->runtime_ns = rd(p, se.sum_exec_runtime);                 \
		(a)->faults = rd(p, min_flt) + rd(p, maj_flt);                \
		(a)->switches = rd(p, nvcsw) + rd(p, nivcsw);                 \
		(a)->migrations = rd(p, se.nr_migrations);                    \
	} while (0)

static __always_inline void read_acct(struct task_struct *p, struct ipp_task_acct *a)
{
	READ_ACCT(LOAD_READ, p, a);
}

/*
 * Read into @a what the kernel accounted to @p, the current task, up to
 * now. Its runtime is brought up to date as the kernel does for a thread's
 * CPU clock: the task's sum, plus its run queue's task clock since the sum
 * was last updated, plus the time since that clock was. It is not the time
 * since the task's switch-in, which includes the interrupts and the time
 * the hypervisor took the CPU.
 */
static __always_inline void read_acct_now(struct task_struct *p, struct ipp_task_acct *a)
{
	__u32 zero = 0;
	struct oncpu *o = bpf_map_lookup_elem(&oncpu, &zero);
	__u64 clock, clock_task, start, now;

	READ_ACCT(BPF_CORE_READ, p, a);
	if (!RQ_CLOCKS(BPF_CORE_READ, BPF_CORE_READ(p, se.cfs_rq, rq), &clock, &clock_task))
		return;
	start = BPF_CORE_READ(p, se.exec_start);
	if (clock_task > start)
		a->runtime_ns += clock_task - start;
	if (!o || !o->at_ns)
		return;
	now = bpf_ktime_get_ns() + o->clock_off;
	if ((__s64)(now - clock) > 0)
		a->runtime_ns += now - clock;
}

/*
 * Called when a counted thread calls exit or exit_group. What the kernel
 * accounted to it until now becomes its end, since a counter stops at about
 * this point (before the exit frees its memory); its last switch writes it.
 */
static __always_inline void sched_end_call(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct ipp_sched_slot *t = bpf_map_lookup_elem(&sched_tot, &tid);

	if (!t || t->exited || t->ended)
		return;
	read_acct_now(task, &t->end);
	t->ended = 1;
}

static __always_inline void count(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &which);

	if (v)
		*v += 1;
}

/* Return the index of @tgid's word in target_bits (@tgid < IPP_FDID_TARGET_BITS). */
static __always_inline __u32 target_word(__u32 tgid)
{
	__u32 w = tgid / 64;

	/*
	 * An empty asm that clang may not fold away, so that the mask below
	 * stays as the verifier's bound.
	 */
	asm volatile("" : "+r"(w));
	return w & (IPP_FDID_TARGET_BITS / 64 - 1);
}

/*
 * Whether @tgid may be a target, by its bit in target_bits: a load and a
 * test, where the targets map costs a hashed lookup. Every syscall of the
 * machine asks, and an untraced process leaves here. A bit is set before
 * its tgid enters the targets map and cleared after it leaves, so a clear
 * bit means "not a target"; a set one is checked in the map. With trace_all
 * the loader sets every bit and nothing clears them. There is no look at
 * .rodata here: the verifier would keep its load (its branch joins a live
 * one), which costs a page more for every call of the machine.
 */
static __always_inline bool maybe_target(__u32 tgid)
{
	if (tgid >= IPP_FDID_TARGET_BITS)
		return true;
	return target_bits[target_word(tgid)] & (1ull << (tgid % 64));
}

static __always_inline void mark_target(__u32 tgid, bool on)
{
	if (tgid >= IPP_FDID_TARGET_BITS)
		return;
	if (on)
		__sync_fetch_and_or(&target_bits[target_word(tgid)], 1ull << (tgid % 64));
	else
		__sync_fetch_and_and(&target_bits[target_word(tgid)], ~(1ull << (tgid % 64)));
}

static __always_inline bool is_target(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (trace_all)
		return true;
	return maybe_target(tgid) && bpf_map_lookup_elem(&targets, &tgid);
}

/*
 * Write a task record (task-rec.h) of @kind for the thread @t of tgid @tgid
 * (for a fork, the parent; a target, or any task with trace_all), in place
 * of the sched_process_* sample. It goes into the CPU's ring and, like a
 * sample, is lost when the ring has no room (a LOST record says so).
 * @flags are IPP_TASK_REC_F_*.
 */
static __always_inline void task_record(void *ctx, __u8 kind, struct task_struct *t, __u32 tgid,
					 struct task_struct *child, const char *filename, __u8 flags)
{
	struct ipp_task_rec r = {
		.version = IPP_FDID_REC_VERSION, .size = sizeof(r), .what = IPP_FDID_TASK,
		.kind = kind, .flags = flags, .pid = (__s32)tgid, .tid = BPF_CORE_READ(t, pid),
	};

	if (!task_records || calls_stopped || (trace_all && tgid == exclude_tgid && exclude_tgid))
		return;
	if (!trace_all && !(maybe_target(tgid) && bpf_map_lookup_elem(&targets, &tgid)))
		return;
	if (child) {
		r.child_tid = BPF_CORE_READ(child, pid);
		bpf_probe_read_kernel_str(r.comm, sizeof(r.comm), child->comm);
	} else if (filename) {
		bpf_probe_read_kernel_str(r.filename, sizeof(r.filename), filename);
	} else {
		bpf_probe_read_kernel_str(r.comm, sizeof(r.comm), t->comm);
	}
	if (kind == IPP_TASK_REC_EXIT) {
		/* do_exit() set it before this tracepoint; it is the status wait(2) will report. */
		r.exit_code = BPF_CORE_READ(t, exit_code);
		r.flags |= IPP_TASK_REC_F_CODE;
	}
	bpf_perf_event_output(ctx, &fdid_out, BPF_F_CURRENT_CPU, &r, sizeof(r));
}

#define MMF_DUMPABLE_MASK 3	/* the low bits of mm->flags: get_dumpable() */
#define SUID_DUMP_USER 1

/*
 * Whether the restricted caller (with real ids caller_uid and caller_gid)
 * may read @t's memory, as ptrace_may_access(PTRACE_MODE_READ_REALCREDS)
 * would say for a caller without CAP_SYS_PTRACE. Every uid of @t (real,
 * effective, saved) must be the caller's, every gid its group, and @t must
 * be dumpable, which a set-user-ID or set-group-ID exec, or a program with
 * file capabilities, makes it not. mm->flags is an unsigned long, or from
 * 6.18 a bitmap whose first word it is, so it is read as a word either way.
 */
static __always_inline bool caller_may_read(struct task_struct *t)
{
	const struct cred *c = BPF_CORE_READ(t, cred);
	struct mm_struct *mm = BPF_CORE_READ(t, mm);
	unsigned long flags = 0;

	if (BPF_CORE_READ(c, uid.val) != caller_uid || BPF_CORE_READ(c, euid.val) != caller_uid ||
	    BPF_CORE_READ(c, suid.val) != caller_uid || BPF_CORE_READ(c, gid.val) != caller_gid ||
	    BPF_CORE_READ(c, egid.val) != caller_gid || BPF_CORE_READ(c, sgid.val) != caller_gid)
		return false;
	if (!mm)
		return true;	/* a kernel thread: no user memory */
	if (bpf_probe_read_kernel(&flags, sizeof(flags),
				  (void *)mm + bpf_core_field_offset(struct mm_struct, flags)))
		return false;
	return (flags & MMF_DUMPABLE_MASK) == SUID_DUMP_USER;
}

/*
 * Whether @tgid is a target whose calls are paired, which a command still
 * before its exec is not. Callers check calls_stopped.
 */
static __always_inline bool is_call_target(__u32 tgid)
{
	__u32 *v;

	if (trace_all)
		return tgid != exclude_tgid || !exclude_tgid;
	if (!maybe_target(tgid))
		return false;
	v = bpf_map_lookup_elem(&targets, &tgid);
	return v && *v != TARGET_AT_EXEC;
}

/* Return argument @n (1-based) of the current syscall, from the saved user registers. */
static __always_inline unsigned long sc_arg(int n)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());

	switch (n) {
	case 1: return PT_REGS_PARM1_CORE_SYSCALL(regs);
	case 2: return PT_REGS_PARM2_CORE_SYSCALL(regs);
	case 3: return PT_REGS_PARM3_CORE_SYSCALL(regs);
	default: return PT_REGS_PARM4_CORE_SYSCALL(regs);
	}
}

/* Return what @map, one of the by-number maps (want, fd_calls), says of syscall @nr, or 0. */
static __always_inline __u8 nr_value(void *map, long nr)
{
	__u32 k = (__u32)nr;
	__u8 *w;

	if (nr < 0 || nr >= IPP_FDID_MAX_NR)
		return 0;
	w = bpf_map_lookup_elem(map, &k);
	return w ? *w : 0;
}

/* Whether syscall @nr is set in @map. */
static __always_inline bool nr_set(void *map, long nr)
{
	return nr_value(map, nr) != 0;
}


/* Return the number of the exiting syscall from the registers, as the exit tracepoint gives it. */
static __always_inline long exit_nr(struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	return (long)regs->orig_ax;
#elif defined(__TARGET_ARCH_arm64)
	return (long)regs->syscallno;
#else
	return -1;
#endif
}

#endif
