/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The args job, loaded for ipcperf trace only, reads the user memory a
 * call's arguments point to, at the call, as strace shows it. At
 * sys_enter, args_enter reads into the thread's slot what the call's spec
 * (arg_specs, by number, set by the loader) says is there before the call:
 * paths, strings, buffers to be written, argv. At sys_exit, args_exit adds
 * what the call wrote (buffers read, struct stat, sockaddrs) and writes the
 * arg record (args-rec.h). The job attaches before the fd job, so on
 * sys_exit its record comes before the call's fd records and call record,
 * in the same ring. exit and exit_group never return, so their record is
 * written at sys_enter. When a thread is switched out inside a call
 * (blocked, or preempted), args_switch writes the call's record a first
 * time, flagged ENTERED, with what was read at sys_enter: the call is under
 * way and its exit comes later. At signal_deliver, args_signal writes the
 * signal record (args-rec.h) of a signal a target thread takes. Nothing of
 * calls.bpf.c is touched: these are programs of their own on the same
 * hooks. See lib/bpf/README.md.
 */
#include "common.bpf.h"
#include "args-rec.h"

/*
 * The numbers of this architecture's execve and execveat, set by the loader (a
 * command's calls start there).
 */
const volatile long nr_execve = -1;
const volatile long nr_execveat = -1;

/* What to read of each call, by number; the loader fills it, and an empty spec reads nothing. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, IPP_FDID_MAX_NR);
	__type(key, __u32);
	__type(value, struct ipp_arg_spec);
} arg_specs SEC(".maps");

/*
 * A target thread's call under way, with its record being made. The spill
 * after the record is room for what a masked length lets the verifier
 * think a read may reach; the reads themselves stop at each slot's end.
 */
struct arg_slot {
	struct ipp_args_rec rec;
	__u8 spill[1024];
	__u8 in_call;
	__u8 has_items;		/* its spec reads memory: a record at its exit */
	__u8 told_entered;	/* its ENTERED record is written */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct arg_slot);
} arg_slots SEC(".maps");

#define NPTR_MAX 4096		/* envp entries counted at most */
#define DIRENTS_MAX 4096	/* dirents counted at most */
#define STRV_MAX 16		/* argv strings read at most */

/* Return @len clamped to a slot, and masked too for the verifier's sake. */
static __always_inline __u32 cap_len(__u64 len)
{
	__u32 l = len > IPP_ARGS_CAP ? IPP_ARGS_CAP : (__u32)len;

	asm volatile("" : "+r"(l));
	return l & 0x1ff;
}

struct count_ctx {
	__u64 base;	/* user address */
	__u64 end;	/* DIRENTS: base + ret */
	__u32 n;
	__u32 done;
};

static long count_ptr(__u64 i, struct count_ctx *c)
{
	__u64 p = 0;

	if (bpf_probe_read_user(&p, sizeof(p), (void *)(c->base + i * 8)) < 0 || !p) {
		c->done = 1;
		return 1;
	}
	c->n++;
	return 0;
}

static long count_dirent(__u64 i, struct count_ctx *c)
{
	__u16 reclen = 0;

	if (c->base >= c->end ||
	    bpf_probe_read_user(&reclen, sizeof(reclen), (void *)(c->base + 16)) < 0 || !reclen) {
		c->done = 1;
		return 1;
	}
	c->n++;
	c->base += reclen;
	return 0;
}

/* Read argv into @dst: the strings one after the other, NUL-separated, as many as fit. */
static __always_inline void read_strv(__u8 *dst, struct ipp_arg_item *it, __u64 base)
{
	__u32 off = 0;

	for (int i = 0; i < STRV_MAX; i++) {
		__u64 p = 0;
		__u32 room;
		long n;

		if (bpf_probe_read_user(&p, sizeof(p), (void *)(base + i * 8)) < 0) {
			it->flags |= IPP_ARG_F_FAULT;
			break;
		}
		if (!p)
			break;
		if (off >= IPP_ARGS_CAP) {
			it->flags |= IPP_ARG_F_TRUNC;
			break;
		}
		room = IPP_ARGS_CAP - off;
		asm volatile("" : "+r"(room));	/* the mask below, kept for the verifier */
		n = bpf_probe_read_user_str(dst + (off & 0xff), room & 0x1ff, (void *)p);
		if (n <= 0) {
			it->flags |= IPP_ARG_F_FAULT;
			break;
		}
		it->count++;
		off += (__u32)n;
	}
	if (it->count == STRV_MAX)
		it->flags |= IPP_ARG_F_MORE;
	it->len = off > IPP_ARGS_CAP ? IPP_ARGS_CAP : off;
}

/* Read @len bytes at @ptr into @dst, and record what was read in @it. */
static __always_inline void read_bytes(__u8 *dst, struct ipp_arg_item *it, __u64 ptr, __u64 len)
{
	__u32 l = cap_len(len);

	it->count = len > 0xffffffffull ? 0xffffffffu : (__u32)len;
	if (len > IPP_ARGS_CAP)
		it->flags |= IPP_ARG_F_TRUNC;
	if (l && bpf_probe_read_user(dst, l, (void *)ptr) < 0) {
		it->flags |= IPP_ARG_F_FAULT;
		l = 0;
	}
	it->len = (__u16)l;
}

/*
 * Read item @i of @sl by spec item @s: the buffer of iovec s->sub of the
 * array that argument s->arg points to (args[s->lenarg] entries). With
 * @enter (an IN item, at the entry or read again at the exit) all of its
 * iov_len is read; otherwise (an OUT item, at the exit) what the entries
 * before it left it of @ret. The item's count is its index. It is a global
 * function so that it is verified once, not at each item.
 */
__noinline int read_iovb(struct arg_slot *sl, const struct ipp_arg_spec_item *s, __u32 i,
			 __u32 enter, long ret)
{
	__u64 v[2] = {}, left = enter ? 0 : (__u64)ret, ptr, n;
	struct ipp_arg_item *it;
	__u32 j;

	if (!sl || !s)
		return 0;
	i &= IPP_ARGS_ITEMS - 1;
	it = &sl->rec.items[i];
	ptr = sl->rec.args[s->arg & 7];
	n = sl->rec.args[s->lenarg & 7];
	j = s->sub;
	if (j >= n || j >= IPP_ARGS_IOV_MAX) {
		it->kind = IPP_ARG_NONE;
		return 0;
	}
	for (__u32 k = 0; !enter && k < j && k < 3; k++) {
		if (bpf_probe_read_user(v, sizeof(v), (void *)(ptr + k * 16)) < 0)
			break;
		left = left > v[1] ? left - v[1] : 0;
	}
	if (bpf_probe_read_user(v, sizeof(v), (void *)(ptr + j * 16)) < 0) {
		it->flags |= IPP_ARG_F_FAULT;
		return 0;
	}
	read_bytes(sl->rec.data[i], it, v[0], enter || v[1] < left ? v[1] : left);
	it->count = j;
	return 0;
}

/* Return the length that an IN or OUT item of spec @s reads. */
static __always_inline __u64 spec_len(const struct ipp_args_rec *r,
				      const struct ipp_arg_spec_item *s, long ret)
{
	__u64 n;

	if (s->lenarg == IPP_ARGS_NO_LEN)
		return s->size;
	if (s->lenarg == IPP_ARGS_LEN_RET)
		n = (__u64)ret;
	else if (s->lenarg < 6)
		n = r->args[s->lenarg & 7];
	else
		return 0;
	return n * (s->size ? s->size : 1);
}

/*
 * Return where rt_sigreturn, entered with the user stack pointer @usp,
 * finds the mask to restore: in the signal frame its handler returned from.
 * On x86-64 the frame starts under the return address the handler's ret
 * popped.
 */
static __always_inline __u64 sigmask_at(__u64 usp)
{
#if defined(__TARGET_ARCH_x86)
	usp -= 8;
#endif
	return usp ? usp + __builtin_offsetof(struct rt_sigframe, uc.uc_sigmask) : 0;
}

/* Read item @i at sys_enter (@enter, with @usp the user stack pointer) or at sys_exit. */
static __always_inline void read_item(struct arg_slot *sl, const struct ipp_arg_spec *sp, int i,
				      bool enter, long ret, __u64 usp)
{
	const struct ipp_arg_spec_item *s = &sp->item[i];
	struct ipp_arg_item *it = &sl->rec.items[i];
	bool at_enter = s->kind == IPP_ARG_STR || s->kind == IPP_ARG_IN ||
			s->kind == IPP_ARG_STRV || s->kind == IPP_ARG_NPTR ||
			s->kind == IPP_ARG_SIGMASK || s->kind == IPP_ARG_IOV_IN ||
			s->kind == IPP_ARG_IOVB_IN;
	__u64 ptr = s->kind == IPP_ARG_SIGMASK ? sigmask_at(usp) : sl->rec.args[s->arg & 7];
	struct count_ctx c = { .base = ptr };

	/*
	 * A string or buffer whose page was not in at sys_enter (the program
	 * cannot fault it in) is read again at sys_exit: the call has faulted
	 * it in by then, and its pointer is still the caller's.
	 */
	bool again = !enter && at_enter && (it->flags & IPP_ARG_F_FAULT) &&
		     (s->kind == IPP_ARG_STR || s->kind == IPP_ARG_IN || s->kind == IPP_ARG_IOV_IN ||
		      s->kind == IPP_ARG_IOVB_IN) &&
		     sl->rec.nr != nr_execve && sl->rec.nr != nr_execveat;	/* a new image */

	if (s->kind == IPP_ARG_NONE || s->arg > 5 || (at_enter != enter && !again) || !ptr)
		return;
	if (again)
		it->flags = 0;
	if (!enter && ret < 0 && !again && s->kind != IPP_ARG_IOV_OUT)
		return;
	it->arg = s->arg;
	it->kind = s->kind;
	switch (s->kind) {
	case IPP_ARG_STR: {
		long n = bpf_probe_read_user_str(sl->rec.data[i], IPP_ARGS_CAP, (void *)ptr);

		if (n <= 0) {
			it->flags |= IPP_ARG_F_FAULT;
			break;
		}
		if (n == IPP_ARGS_CAP)
			it->flags |= IPP_ARG_F_TRUNC;
		it->len = (__u16)(n - 1);
		break;
	}
	case IPP_ARG_IN:
	case IPP_ARG_OUT:
	case IPP_ARG_SIGMASK:
		read_bytes(sl->rec.data[i], it, ptr, spec_len(&sl->rec, s, ret));
		break;
	case IPP_ARG_ADDR_OUT: {
		__u64 lp = sl->rec.args[s->lenarg & 7];
		__u32 alen = 0;

		if (s->lenarg > 5 || !lp || bpf_probe_read_user(&alen, sizeof(alen), (void *)lp) < 0) {
			it->kind = IPP_ARG_NONE;
			break;
		}
		read_bytes(sl->rec.data[i], it, ptr, alen);
		break;
	}
	case IPP_ARG_IOV_IN:
	case IPP_ARG_IOV_OUT: {
		__u64 n = sl->rec.args[s->lenarg & 7];

		read_bytes(sl->rec.data[i], it, ptr, n * 16);
		it->count = n > 0xffffffffull ? 0xffffffffu : (__u32)n;
		break;
	}
	case IPP_ARG_IOVB_IN:
	case IPP_ARG_IOVB_OUT:
		read_iovb(sl, s, i, s->kind == IPP_ARG_IOVB_IN, ret);
		break;
	case IPP_ARG_STRV:
		read_strv(sl->rec.data[i], it, ptr);
		break;
	case IPP_ARG_NPTR:
		bpf_loop(NPTR_MAX, count_ptr, &c, 0);
		it->count = c.n;
		it->flags |= c.done ? 0 : IPP_ARG_F_MORE;
		break;
	case IPP_ARG_DIRENTS:
		c.end = ptr + (__u64)ret;
		bpf_loop(DIRENTS_MAX, count_dirent, &c, 0);
		it->count = c.n;
		it->flags |= c.done ? 0 : IPP_ARG_F_MORE;
		break;
	}
}

static __always_inline void read_items(struct arg_slot *sl, const struct ipp_arg_spec *sp,
				       bool enter, long ret, __u64 usp)
{
	read_item(sl, sp, 0, enter, ret, usp);
	read_item(sl, sp, 1, enter, ret, usp);
	read_item(sl, sp, 2, enter, ret, usp);
	read_item(sl, sp, 3, enter, ret, usp);
}

/* Write the slot's record: its items up to the last one read. */
static __always_inline void emit(void *ctx, struct arg_slot *sl)
{
	__u32 n = 0, size;

	for (int i = 0; i < IPP_ARGS_ITEMS; i++)
		if (sl->rec.items[i].kind != IPP_ARG_NONE)
			n = i + 1;
	sl->rec.nr_items = (__u8)n;
	size = IPP_ARGS_REC_HEAD + (n & 7) * IPP_ARGS_CAP;
	sl->rec.size = (__u16)size;
	if (size > IPP_ARGS_REC_SIZE)
		return;
	bpf_perf_event_output(ctx, &fdid_out, BPF_F_CURRENT_CPU, &sl->rec, size);
}

/*
 * Whether call @id of process @tgid is wanted: the process is a target
 * whose calls are traced, or it is a command and the call is its exec.
 */
static __always_inline bool wanted(__u32 tgid, long id)
{
	__u32 *v;

	if (trace_all)
		return !exclude_tgid || tgid != exclude_tgid;
	if (!maybe_target(tgid))
		return false;
	v = bpf_map_lookup_elem(&targets, &tgid);
	return v && (*v != TARGET_AT_EXEC || id == nr_execve || id == nr_execveat);
}

/*
 * At the sys_enter of a target's call, fill its slot and read what the spec
 * says is there before the call. @hide, a constant of each program, means
 * the caller is restricted: the memory of a task it may not read is left
 * unread. Root's program is the one without the test.
 */
static __always_inline int enter(void *ctx, struct pt_regs *regs, long id, bool hide)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	bool noreturn = id == nr_exit || id == nr_exit_group;
	const struct ipp_arg_spec *sp;
	struct arg_slot *sl;
	__u32 k = (__u32)id;

	if (id < 0 || id >= IPP_FDID_MAX_NR || !wanted(pid_tgid >> 32, id) || calls_stopped)
		return 0;
	/*
	 * Every call gets a slot, since a call the thread is switched out in is
	 * reported at the switch.
	 */
	sp = bpf_map_lookup_elem(&arg_specs, &k);
	if (!sp)
		return 0;
	sl = bpf_task_storage_get(&arg_slots, bpf_get_current_task_btf(), 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!sl)
		return 0;
	sl->has_items = sp->item[0].kind != IPP_ARG_NONE;
	sl->told_entered = 0;
	__builtin_memset(&sl->rec, 0, IPP_ARGS_REC_HEAD);
	sl->rec.version = IPP_FDID_REC_VERSION;
	sl->rec.what = IPP_FDID_ARGS;
	sl->rec.pid = pid_tgid >> 32;
	sl->rec.tid = (__u32)pid_tgid;
	sl->rec.nr = (__s32)id;
	sl->rec.start_ns = bpf_ktime_get_ns();
	sys_args(sl->rec.args, regs);
	/* For a task the caller may not read, keep the call without its memory. */
	if (hide && !caller_may_read(bpf_get_current_task_btf()))
		sl->has_items = 0;
	else
		read_items(sl, sp, true, 0, PT_REGS_SP_CORE(regs));
	sl->in_call = 1;
	if (noreturn) {
		sl->rec.flags = IPP_ARGS_F_NORETURN;
		sl->in_call = 0;
		emit(ctx, sl);
	}
	return 0;
}

/* The loader loads this one when the caller may read every task (root), else args_enter_r. */
SEC("tp_btf/sys_enter")
int BPF_PROG(args_enter, struct pt_regs *regs, long id)
{
	return enter(ctx, regs, id, false);
}

/* The loader loads this one instead when the caller is restricted (common.bpf.h). */
SEC("tp_btf/sys_enter")
int BPF_PROG(args_enter_r, struct pt_regs *regs, long id)
{
	return enter(ctx, regs, id, true);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(args_exit, struct pt_regs *regs, long ret)
{
	long nr = exit_nr(regs);
	struct arg_slot *sl;
	const struct ipp_arg_spec *sp;
	__u32 k;

	if (!maybe_target(bpf_get_current_pid_tgid() >> 32) || calls_stopped)
		return 0;
	sl = bpf_task_storage_get(&arg_slots, bpf_get_current_task_btf(), 0, 0);
	if (!sl || !sl->in_call)
		return 0;
	sl->in_call = 0;
	/*
	 * rt_sigreturn restored registers that say "no call" (-1), so it is the
	 * call the slot is in. A slot whose call is not the one exiting was not
	 * this call's.
	 */
	if (nr == -1 && sl->rec.nr == nr_rt_sigreturn)
		nr = nr_rt_sigreturn;
	/*
	 * has_items says whether the caller may read the task, as of the
	 * call's entry, so a call that changes that (a set-user-ID exec) has no
	 * item read at its exit.
	 */
	if (nr != sl->rec.nr || !sl->has_items)
		return 0;
	k = (__u32)nr;
	sp = bpf_map_lookup_elem(&arg_specs, &k);
	if (!sp)
		return 0;
	read_items(sl, sp, false, ret, 0);
	emit(ctx, sl);
	return 0;
}

/*
 * When a target thread is switched out inside a call (it blocks, or is
 * preempted) for the first time in that call, write its record as it
 * stands, flagged ENTERED, so that the call can be shown as under way
 * ("<unfinished ...>") while other threads' calls come. This runs at every
 * switch on the machine, so it checks the target bit first.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(args_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct arg_slot *sl;

	if (!maybe_target(prev->tgid) || calls_stopped)
		return 0;
	sl = bpf_task_storage_get(&arg_slots, prev, 0, 0);
	if (!sl || !sl->in_call || sl->told_entered)
		return 0;
	sl->told_entered = 1;
	sl->rec.flags = IPP_ARGS_F_ENTERED;
	emit(ctx, sl);
	sl->rec.flags = 0;
	return 0;
}

/* ---------------------------------------------------------------- signals */

#define SIGKILL 9
#define SIGQ_MAX 8	/* pending signals looked through for a fatal one's siginfo */

/* Copy the siginfo of signal @signo from the pending queue @q into @out, if it is queued there. */
static __always_inline bool find_queued(struct sigpending *q, int signo, void *out)
{
	__u64 head = (__u64)&q->list;
	struct list_head *pos = BPF_CORE_READ(q, list.next);

	for (int i = 0; i < SIGQ_MAX && pos && (__u64)pos != head; i++) {
		/* list is a sigqueue's first field, so the cast is safe. */
		struct sigqueue *e = (struct sigqueue *)pos;

		if (BPF_CORE_READ(e, info.si_signo) == signo)
			return !bpf_probe_read_kernel(out, IPP_SIG_INFO, &e->info);
		pos = BPF_CORE_READ(pos, next);
	}
	return false;
}

/*
 * For a thread killed with its whole process (signal_deliver says SIGKILL,
 * without siginfo), return which fatal signal did it and copy its siginfo
 * into @info, when that signal is still queued; otherwise return 0. A
 * signal whose default action kills, sent to a process with no handler for
 * it, is not taken off its queue but turned into a SIGKILL of every thread
 * (complete_signal()). There is nothing for a real SIGKILL, an exit_group
 * or exec of another thread, or the other threads of a core dump (the
 * thread that dumps took their signal off). A signal sent to the process is
 * reported in its leader only.
 */
static __always_inline int fatal_signal(struct task_struct *t, __u32 tid, __u32 tgid, void *info)
{
	int code = BPF_CORE_READ(t, signal, group_exit_code), sig = code & 0x7f;

	if (!sig || sig == SIGKILL)
		return 0;
	if (find_queued(&t->pending, sig, info))
		return sig;
	if (tid == tgid && find_queued(&t->signal->shared_pending, sig, info))
		return sig;
	return 0;
}

_Static_assert(sizeof(struct kernel_siginfo) == IPP_SIG_INFO, "the kernel's siginfo");

/*
 * Write the signal record of a signal a target thread takes, to run its
 * handler or its default action, or to be ignored. This runs for every
 * delivery on the machine, so it checks the target bit first.
 */
SEC("tp_btf/signal_deliver")
int BPF_PROG(args_signal, int sig, struct kernel_siginfo *info, struct k_sigaction *ka)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct ipp_sig_rec r;
	unsigned long h;

	if (!is_call_target(pid_tgid >> 32) || calls_stopped)
		return 0;
	__builtin_memset(&r, 0, sizeof(r));
	krec_hdr(&r, IPP_FDID_SIGNAL, sizeof(r), pid_tgid >> 32, (__u32)pid_tgid);
	if ((unsigned long)info <= 1) {	/* SEND_SIG_NOINFO, SEND_SIG_PRIV */
		sig = fatal_signal(bpf_get_current_task_btf(), r.tid, r.pid, r.info);
		if (!sig)
			return 0;
		r.action = IPP_SIG_DEFAULT;
	} else {
		if (bpf_probe_read_kernel(r.info, IPP_SIG_INFO, info))
			return 0;
		h = (unsigned long)BPF_CORE_READ(ka, sa.sa_handler);
		r.action = h == 0 ? IPP_SIG_DEFAULT : h == 1 ? IPP_SIG_IGNORE : IPP_SIG_HANDLER;
	}
	r.signo = sig;
	bpf_perf_event_output(ctx, &fdid_out, BPF_F_CURRENT_CPU, &r, sizeof(r));
	return 0;
}
