/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Scheduling totals counted in the kernel: each target thread's switches,
 * wakeups and migrations (sched_tot), written as one sched record at its
 * exit. These programs are loaded only when the totals are counted. See
 * lib/bpf/README.md.
 */
#include "common.bpf.h"

#define TASK_RTLOCK_WAIT 0x1000
#define TASK_REPORT 0x7f
#define TASK_DEAD 0x0080


/*
 * Write thread @tid's counts (struct ipp_sched_rec). Returns 0, or < 0 when the
 * ring had no room.
 */
static __always_inline long emit_sched(void *ctx, __u32 tid, const struct ipp_sched_slot *t)
{
	struct ipp_sched_rec r;

	__builtin_memset(&r, 0, sizeof(r));
	krec_hdr(&r, IPP_FDID_SCHED, sizeof(r), t->pid, (__s32)tid);
	r.voluntary = t->voluntary;
	r.involuntary = t->involuntary;
	r.wakeups = t->wakeups;
	r.migrations = t->migrations;
	__builtin_memcpy(r.comm, t->comm, sizeof(r.comm));
	r.root = t->root;
	r.acct.runtime_ns = t->last.runtime_ns - t->base.runtime_ns;
	r.acct.faults = t->last.faults - t->base.faults;
	r.acct.switches = t->last.switches - t->base.switches;
	r.acct.migrations = t->last.migrations - t->base.migrations;
	return bpf_perf_event_output(ctx, &fdid_out, BPF_F_CURRENT_CPU, &r, sizeof(r));
}

/*
 * Make @p's entry, counted from now on for target @root: the kernel's
 * accounting so far is its base, or 0 for a task being born. Returns the
 * entry, or NULL when the map is full.
 */
static __always_inline struct ipp_sched_slot *new_slot(struct task_struct *p, __u32 tid,
						       __s32 root, bool born)
{
	struct ipp_sched_slot init = { .last_cpu = -1, .root = root };

	init.pid = (__s32)BPF_CORE_READ(p, tgid);
	BPF_CORE_READ_STR_INTO(&init.comm, p, comm);
	if (!born)
		read_acct(p, &init.base);
	init.last = init.base;
	if (bpf_map_update_elem(&sched_tot, &tid, &init, BPF_NOEXIST) < 0 &&
	    !bpf_map_lookup_elem(&sched_tot, &tid)) {
		count(IPP_FDID_ST_SCHED_FULL);
		return NULL;
	}
	return bpf_map_lookup_elem(&sched_tot, &tid);
}

/*
 * Return task @p's entry in sched_tot, made when it has none and is a
 * target (one that userspace did not seed, born before the counting
 * began). An entry left by an exited thread whose record found no room is
 * written out again first, since its tid is another thread's now.
 */
static __always_inline struct ipp_sched_slot *sched_slot(void *ctx, struct task_struct *p)
{
	__u32 tid = p->pid, tgid;
	struct ipp_sched_slot *t = bpf_map_lookup_elem(&sched_tot, &tid);

	if (t && !t->exited)
		return t;
	if (t) {
		if (emit_sched(ctx, tid, t) < 0)
			count(IPP_FDID_ST_SCHED_LOST);
		bpf_map_delete_elem(&sched_tot, &tid);
	}
	tgid = p->tgid;
	if (!is_call_target(tgid))
		return NULL;
	return new_slot(p, tid, (__s32)tgid, false);
}

/*
 * Count a target thread's switch out as the session's sched_switch samples
 * would: whether it was preempted (runnable, the tracepoint's R or R+) or
 * blocked, and whether it ran on another CPU than at its last switch-out.
 * Its last switch, into TASK_DEAD, is not counted, since no sample event
 * sees it (the thread's events are gone by then); instead its counts go
 * into one record and its entry is deleted. When the ring has no room the
 * entry stays, marked, to be read at the end.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(sched_count, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct ipp_sched_slot *t;
	bool runnable = preempt;
	__u32 tid;
	__s32 cpu;

	/*
	 * Every switch of the machine comes here, and one that involves no
	 * target leaves after a look at target_bits. A thread's last switch
	 * (into TASK_DEAD) always goes on, because its process may have left
	 * the targets at its exit just before, and this switch writes its
	 * record. Without follow_forks a counted child may not have its bit
	 * yet, so every switch goes on.
	 */
	if (maybe_target(next->tgid) || !follow_forks)
		oncpu_mark(next);
	if (sched_stopped || (!(prev_state & TASK_DEAD) && !maybe_target(prev->tgid) && follow_forks) ||
	    !(t = sched_slot(ctx, prev)))
		return 0;
	read_acct(prev, &t->last);
	if (prev_state & TASK_DEAD) {
		if (t->ended)
			t->last = t->end;	/* as a counter stopped at its exit call */
		else
			t->last.switches--;	/* this one, as a counter does not see it either */
		BPF_CORE_READ_STR_INTO(&t->comm, prev, comm);	/* its name now */
		tid = prev->pid;
		if (emit_sched(ctx, tid, t) < 0)
			t->exited = 1;
		else
			bpf_map_delete_elem(&sched_tot, &tid);
		return 0;
	}
	if (t->ended)
		return 0;	/* on its way out since its exit call: as its counters */
	if (!preempt && !(prev_state & (TASK_REPORT | TASK_RTLOCK_WAIT)))
		runnable = !(prev->exit_state & TASK_REPORT);
	if (runnable)
		t->involuntary++;
	else
		t->voluntary++;
	cpu = (__s32)bpf_get_smp_processor_id();
	if (t->last_cpu >= 0 && t->last_cpu != cpu)
		t->migrations++;
	t->last_cpu = cpu;
	return 0;
}

/* Count a wakeup of a target thread; the thread woken is counted, and the waker may be anybody. */
SEC("tp_btf/sched_wakeup")
int BPF_PROG(sched_woken, struct task_struct *p)
{
	struct ipp_sched_slot *t;

	/*
	 * Every wakeup of the machine comes here; one of no target leaves after
	 * a look at target_bits.
	 */
	if ((maybe_target(p->tgid) || !follow_forks) && !sched_stopped && (t = sched_slot(ctx, p)) && !t->ended)
		t->wakeups++;
	return 0;
}

/*
 * Count a counted thread's new thread or process from its first
 * instruction, for the same target, as a counter is inherited at fork.
 */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(sched_born, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptid = BPF_CORE_READ(parent, pid), ptgid;
	struct ipp_sched_slot *pt = bpf_map_lookup_elem(&sched_tot, &ptid);
	__s32 root;

	if (sched_stopped)
		return 0;
	if (pt && !pt->exited) {
		root = pt->root;
	} else {
		ptgid = BPF_CORE_READ(parent, tgid);
		if (!is_call_target(ptgid))
			return 0;
		root = (__s32)ptgid;
	}
	new_slot(child, BPF_CORE_READ(child, pid), root, true);
	return 0;
}

/*
 * A command's exec renames it just after the kernel enables the counters
 * opened on it (perf_event_exec(), then __set_task_comm() in
 * begin_new_exec()). Its counting starts here, as the counters' does, with
 * its runtime as it is now rather than as the kernel last updated it, at
 * its switch-in.
 */
SEC("tp_btf/task_rename")
int BPF_PROG(sched_exec_start, struct task_struct *task, const char *comm)
{
	__u32 tgid = BPF_CORE_READ(task, tgid), tid = BPF_CORE_READ(task, pid);
	__u32 *v = bpf_map_lookup_elem(&targets, &tgid);
	struct ipp_sched_slot *t;

	if (!v || *v != TARGET_AT_EXEC || sched_stopped ||
	    task != bpf_get_current_task_btf() || bpf_map_lookup_elem(&sched_tot, &tid))
		return 0;
	t = new_slot(task, tid, (__s32)tgid, false);
	if (t) {
		read_acct_now(task, &t->base);
		t->last = t->base;
	}
	return 0;
}
