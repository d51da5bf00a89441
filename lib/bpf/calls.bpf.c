/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Calls paired in the kernel. call_enter, on sys_enter, keeps each wanted
 * call's start and arguments in its CPU's slot (common.bpf.h, cpu_calls).
 * call_switch moves the slot into the thread's task storage when the thread
 * leaves the CPU inside the call, and adds up the time switched out.
 * call_exit, reached by exit_fd's tail call (fdid.bpf.c, the exit_next
 * program array), writes the call record after the call's fd records, from
 * whichever slot holds the call. call_exec starts a command's pairing at
 * its exec. With agg_calls, call_exit adds the hot calls up per fd in place
 * of their records (agg.bpf.h) and writes an fd's sums before the record of
 * the call that ends it. These programs are loaded only when the calls are
 * paired. See lib/bpf/README.md.
 */
#include "common.bpf.h"
#include "agg.bpf.h"

/*
 * Runs at the sys_enter of any call on the machine. For a wanted call of a
 * target, keep its arguments and start in the thread's slot. It uses the
 * raw tracepoint, which builds no record for anyone: the cheapest hook
 * there is.
 */
SEC("tp_btf/sys_enter")
int BPF_PROG(call_enter, struct pt_regs *regs, long id)
{
	struct ipp_call_slot *c;
	struct cpu_call *p;
	__u64 pid_tgid;
	__u32 tgid, zero = 0;
	__u64 gone;
	bool target;

	/*
	 * Every other process's calls leave here, having touched one page of
	 * ipcperf's data (its word of target_bits): each page a program touches
	 * costs a TLB miss on a machine that flushes the TLB at every kernel
	 * entry.
	 */
	pid_tgid = bpf_get_current_pid_tgid();
	target = maybe_target(pid_tgid >> 32);
	if (count_sched && (id == nr_exit || id == nr_exit_group) && !sched_stopped)
		sched_end_call();
	if (!target || !nr_set(&want, id) || calls_stopped)
		return 0;
	p = bpf_map_lookup_elem(&cpu_calls, &zero);
	if (!p)
		return 0;
	/* The memo spares the targets map a lookup per call (cpu_calls). */
	tgid = pid_tgid >> 32;
	gone = targets_gone;	/* read once: the memo is of the count it was checked under */
	if (p->memo_tgid != tgid || p->memo_gone != gone) {
		if (!is_call_target(tgid))
			return 0;
		p->memo_tgid = tgid;
		p->memo_gone = gone;
	}
	c = &p->c;
	/*
	 * A slot still in a call means that call's exit was never seen; it
	 * counts as entered, not done.
	 */
	count(IPP_FDID_ST_ENTERED);
	c->start = bpf_ktime_get_ns();
	c->nr = (__s32)id;
	c->pid = pid_tgid >> 32;
	c->switches = 0;
	c->off_ns = 0;
	c->blocked_ns = 0;
	c->off_cpu = 0;
	sys_args(c->args, regs);
	c->in_call = 1;
	return 0;
}

/* Return argument @n (1 or 2) of the call, read from the typed registers with plain loads. */
static __always_inline long reg_arg(struct pt_regs *regs, int n)
{
#if defined(__TARGET_ARCH_x86)
	return n == 1 ? (long)regs->di : (long)regs->si;
#elif defined(__TARGET_ARCH_arm64)
	return n == 1 ? (long)regs->orig_x0 : (long)regs->regs[1];
#else
	return -1;
#endif
}

/*
 * Return the slot of the current thread's call (@tgid is its process): the
 * CPU's slot when the thread entered the call on this CPU and has not left
 * it since, else the one in its task storage (call_switch moved it there),
 * else NULL. A CPU's slot in a call is the running thread's, since
 * call_switch moves it at any switch. The slot is matched by process, not
 * by thread, because an exec by a thread that is not the leader takes the
 * leader's tid inside the call.
 */
static __always_inline struct ipp_call_slot *call_slot(__u32 tgid)
{
	__u32 zero = 0;
	struct cpu_call *p = bpf_map_lookup_elem(&cpu_calls, &zero);

	if (p && p->c.in_call && p->c.pid == tgid)
		return &p->c;
	return bpf_task_storage_get(&calls, bpf_get_current_task_btf(), 0, 0);
}

/*
 * Whether scratch holds fds of this recvmsg, that is whether it received
 * some; their records wait for its exit.
 */
static __always_inline bool received_fds(void)
{
	__u32 zero = 0;
	struct scratch *s = bpf_map_lookup_elem(&scratch, &zero);

	return !s || s->nfds;
}

/*
 * Mark slot @c (which may be NULL) done with call @nr. Returns whether it
 * held that call, whose enter was then seen, and counts it done. A slot in
 * another call is left too, since that call's exit never came.
 */
static __always_inline bool call_done(struct ipp_call_slot *c, long nr)
{
	bool held = c && c->in_call && c->nr == nr;

	if (held)
		count(IPP_FDID_ST_DONE);
	if (c)
		c->in_call = 0;
	return held;
}

/*
 * Add up the call of slot @c when it is one to add up. Returns true when added;
 * it then gets no call record.
 */
static __always_inline bool added_up(struct ipp_call_slot *c, __u8 w, long nr, long ret,
				     __u64 pid_tgid, __u64 now)
{
	if ((w != WANT_SUM && w != WANT_SUM_NOFDS && w != WANT_SUM_ANY) || !c || !c->in_call ||
	    c->nr != nr || (ret < 0 && ret != -EAGAIN) || (w == WANT_SUM_NOFDS && received_fds()) ||
	    (w != WANT_SUM_ANY && fd_ended_since(pid_tgid >> 32, (__s32)c->args[0], c->start)) ||
	    !agg_add(c, nr, ret, pid_tgid, now, w == WANT_SUM_ANY ? -1 : (__s32)c->args[0]))
		return false;
	return call_done(c, nr);
}

/*
 * Before the record of a call that ends fds (WANT_FLUSH_*), write their
 * sums, and note the time they ended (@now, the call's exit) for the calls
 * under way on them in other threads (fd_ended_since()). There is one call
 * site for each flush, since each is verified once per site.
 */
static __always_inline void flush_before(void *ctx, struct pt_regs *regs, __u8 w, long ret,
					 __u32 tgid, __u64 now)
{
	long a1 = reg_arg(regs, 1), a2 = reg_arg(regs, 2);
	bool one = w == WANT_FLUSH_FD1 || (w == WANT_FLUSH_FD2 && ret >= 0 && a1 != a2);
	__s32 fd = (__s32)(w == WANT_FLUSH_FD1 ? a1 : a2);

	if (one) {
		fd_end_ns[fd_end_slot(tgid, fd)] = now;	/* before the flush: fd_ended_since() */
		agg_flush_fd(ctx, tgid, fd);
	} else if ((w == WANT_FLUSH_RANGE || w == WANT_FLUSH_ONLY_RANGE) && ret == 0) {
		a1 = (__u32)a1;
		a2 = (__u32)a2;
		range_end_ns = now;
		agg_flush_range(ctx, tgid, (__s32)a1, a2 > 0x7fffffff ? 0x7fffffff : (__s32)a2);
	}
}

/*
 * Write the call record of call @nr of @pid_tgid, which returned @ret at
 * @now, from slot @c, in place of the two samples; the slot is then done
 * with the call. When @c is NULL, or a slot in another call, the call's
 * enter was not seen.
 */
static __always_inline void call_record(void *ctx, struct ipp_call_slot *c, long nr, long ret,
					__u64 pid_tgid, __u64 now)
{
	struct ipp_call_rec r;

	__builtin_memset(&r, 0, sizeof(r));
	krec_hdr(&r, IPP_FDID_CALL, sizeof(r), pid_tgid >> 32, (__u32)pid_tgid);
	r.nr = (__s32)nr;
	r.ret = ret;
	r.end_ns = now;
	if (call_done(c, nr) && c) {
		r.start_ns = c->start;
		r.args[0] = c->args[0];
		r.args[1] = c->args[1];
		r.args[2] = c->args[2];
		r.args[3] = c->args[3];
		r.args[4] = c->args[4];
		r.args[5] = c->args[5];
		if (pair_switches) {
			r.flags |= IPP_CALL_F_SWITCHES;
			r.switches = c->switches;
			r.off_cpu_ns = c->off_ns;
			r.blocked_ns = c->blocked_ns;
		}
	} else {
		r.flags |= IPP_CALL_F_NO_ENTER;
	}
	count(IPP_FDID_ST_CALLS);
	if (bpf_perf_event_output(ctx, &fdid_out, BPF_F_CURRENT_CPU, &r, sizeof(r)) < 0)
		count(IPP_FDID_ST_CALL_FAIL);
}

/* Keep @now for call_flush in the CPU's slot. Returns whether call_flush can go on from here. */
static __always_inline bool keep_exit_now(__u64 now)
{
	__u32 zero = 0;
	struct cpu_call *p = bpf_map_lookup_elem(&cpu_calls, &zero);

	if (!p)
		return false;
	p->exit_now = now;
	return true;
}

/*
 * At sys_exit, write the call record in place of the two samples. It is
 * not attached itself: exit_fd tail-calls it. The record of a call whose
 * enter was not seen (under way when the session began, or the child's
 * return from fork) says so, and the session pairs it as it would the
 * samples.
 * With agg_calls, the calls marked WANT_SUM are added up instead, and the
 * calls that end fds go on to call_flush, which writes those fds' sums
 * first.
 */
SEC("tp_btf/sys_exit")
int BPF_PROG(call_exit, struct pt_regs *regs, long ret)
{
	long nr = exit_nr(regs);
	struct ipp_call_slot *c = NULL;
	__u64 pid_tgid, now;
	__u8 w;

	/* rt_sigreturn restored registers that say "no call", so it is the call the slot is in. */
	if (nr == -1 && nr_rt_sigreturn >= 0 && nr_set(&want, nr_rt_sigreturn)) {
		c = call_slot(bpf_get_current_pid_tgid() >> 32);
		if (c && c->in_call && c->nr == nr_rt_sigreturn)
			nr = nr_rt_sigreturn;
	}
	w = nr_value(&want, nr);
	if (!w || calls_stopped)
		return 0;
	pid_tgid = bpf_get_current_pid_tgid();
	if (!maybe_target(pid_tgid >> 32))
		return 0;
	if (!c)
		c = call_slot(pid_tgid >> 32);
	if (!c && !is_call_target(pid_tgid >> 32))
		return 0;
	if (!calls_started) {
		call_done(c, nr);	/* before the session: no record, its enter (if seen) done */
		return 0;
	}
	now = bpf_ktime_get_ns();
	if (agg_calls) {
		if (added_up(c, w, nr, ret, pid_tgid, now))
			return 0;
		if (w >= WANT_FLUSH_FD1 && w <= WANT_FLUSH_ONLY_RANGE && keep_exit_now(now))
			bpf_tail_call(ctx, &exit_next, EXIT_NEXT_FLUSH);
		/* Reached only when call_flush could not be: write the record without the sums. */
		if (w == WANT_FLUSH_ONLY_RANGE) {
			call_done(c, nr);	/* no record: not a call the session traces */
			return 0;
		}
	}
	call_record(ctx, c, nr, ret, pid_tgid, now);
	return 0;
}

/*
 * For a call that ends fds while the calls are added up, write those fds'
 * sums, then its call record (none for WANT_FLUSH_ONLY_RANGE). It is
 * reached by call_exit's tail call, with call_exit's clock in the CPU's
 * slot. It is a program of its own so that the flushes' loops are verified
 * here once, not once per path of call_exit (that saved a tenth of its
 * verification, 2026-12-07).
 */
SEC("tp_btf/sys_exit")
int BPF_PROG(call_flush, struct pt_regs *regs, long ret)
{
	long nr = exit_nr(regs);
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct ipp_call_slot *c = call_slot(pid_tgid >> 32);
	__u32 zero = 0;
	struct cpu_call *p = bpf_map_lookup_elem(&cpu_calls, &zero);
	__u8 w = nr_value(&want, nr);
	__u64 now;

	if (!p)
		return 0;
	now = p->exit_now;
	flush_before(ctx, regs, w, ret, pid_tgid >> 32, now);
	if (w == WANT_FLUSH_ONLY_RANGE)
		call_done(c, nr);
	else
		call_record(ctx, c, nr, ret, pid_tgid, now);
	return 0;
}

/*
 * A thread leaves its CPU inside the call it entered there: move its slot
 * from the CPU's into its task storage, where call_exit finds it on
 * whatever CPU the call ends. Returns the new slot, or NULL when there is
 * no room, which is counted unless the thread is exiting (its last call
 * never ends).
 */
static __always_inline struct ipp_call_slot *move_slot(struct cpu_call *p, struct task_struct *prev)
{
	struct ipp_call_slot *c = bpf_task_storage_get(&calls, prev, 0,
						       BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (c)
		__builtin_memcpy(c, &p->c, sizeof(*c));
	else if (!(prev->flags & 0x00000004 /* PF_EXITING */))
		count(IPP_FDID_ST_CALLS_FULL);
	p->c.in_call = 0;
	return c;
}

/*
 * At each switch, move the slot of a thread leaving its CPU inside a call
 * (move_slot()). With pair_switches, also count the time inside a call
 * spent switched out, as the session's switch records would give it: out
 * when the thread leaves the CPU, back when it returns, and whether it was
 * preempted (still runnable) or blocked.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(call_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u32 zero = 0;
	struct cpu_call *p = bpf_map_lookup_elem(&cpu_calls, &zero);
	struct ipp_call_slot *c = NULL;
	__u64 now = 0;

	if (p && p->c.in_call && p->c.pid == (__u32)prev->tgid)
		c = move_slot(p, prev);
	else if (pair_switches)
		c = bpf_task_storage_get(&calls, prev, 0, 0);
	if (!pair_switches)
		return 0;
	if (c && c->in_call) {
		now = bpf_ktime_get_ns();
		if (!c->off_cpu)
			c->switches++;
		c->off_cpu = 1;
		c->preempted = preempt || prev_state == 0;
		c->off_since = now;
	}
	c = bpf_task_storage_get(&calls, next, 0, 0);
	if (c && c->in_call && c->off_cpu) {
		__u64 from = c->off_since > c->start ? c->off_since : c->start, d;

		if (!now)
			now = bpf_ktime_get_ns();
		d = now > from ? now - from : 0;
		c->off_cpu = 0;
		c->off_ns += d;
		if (!c->preempted)
			c->blocked_ns += d;
	}
	return 0;
}

/*
 * A target executed a program the restricted caller may not read: write
 * its sums and its exec's record (flag LEFT), and stop treating it as a
 * target. The kernel has just ended its perf events (begin_new_exec()) for
 * the same reason; its children are not followed either.
 */
static __always_inline void leave(void *ctx, struct task_struct *p, __u32 tgid, __u32 at_exec,
			     const char *filename)
{
	struct ipp_call_slot *c = call_slot(tgid);

	/*
	 * No program will see its exec's exit, so mark the call done rather
	 * than leave it unfinished.
	 */
	if (c && c->in_call)
		call_done(c, c->nr);
	if (agg_calls && !calls_stopped && !at_exec)
		agg_flush_range(ctx, tgid, -1, 0x7fffffff);
	task_record(ctx, IPP_TASK_REC_EXEC, p, tgid, NULL, filename, IPP_TASK_REC_F_LEFT);
	if (bpf_map_delete_elem(&targets, &tgid) == 0) {
		mark_target(tgid, false);
		__sync_fetch_and_add(&targets_gone, 1);
	}
}

/*
 * At a target's exec, write its task record when the session takes them.
 * A command's calls are paired from here on, as its events switch on at
 * exec; the exec's own exit comes without its enter.
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(call_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = BPF_CORE_READ(p, tgid), zero = 0;
	__u32 *v = bpf_map_lookup_elem(&targets, &tgid);

	if (restricted && !trace_all && v && !caller_may_read(p)) {
		leave(ctx, p, tgid, *v == TARGET_AT_EXEC, BPF_CORE_READ(bprm, filename));
		return 0;
	}
	task_record(ctx, IPP_TASK_REC_EXEC, p, tgid, NULL, BPF_CORE_READ(bprm, filename), 0);
	if (v && *v == TARGET_AT_EXEC)
		bpf_map_update_elem(&targets, &tgid, &zero, BPF_EXIST);
	/*
	 * Its close-on-exec fds were closed just now, so flush every fd's sums
	 * before the exec's record.
	 */
	else if (v && agg_calls && !calls_stopped)
		agg_flush_range(ctx, tgid, 0, 0x7fffffff);
	return 0;
}
