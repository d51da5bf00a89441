/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Delivery of the merged records (pipeline.h). Once they are old enough to
 * be in order, they are checked against the targets, decoded, paired and
 * dispatched to the handlers: calls, scheduling, tasks, signals, the
 * kernel's fd records, sums and arguments.
 */
#include "config.h"
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include "pipeline/decode.h"
#include "bpf/fdid-rec.h"
#include "bpf/call-rec.h"
#include "bpf/sched-rec.h"
#include "bpf/sum-rec.h"
#include "bpf/task-rec.h"
#include "pipeline/callmem.h"
#include "fd/fdtable.h"
#include "pipeline/follow.h"
#include "pipeline/merge.h"
#include "pipeline/pair.h"
#include "pipeline/pipeline.h"
#include "fd/procres.h"
#include "fd/resolve-kernel.h"
#include "pipeline/pipeline-int.h"

/* Hand a paired call to the syscall handlers. */
static void emit_syscall(struct ipp_pipeline *s, const struct ipp_scdesc *desc,
			 struct ipcperf_syscall *sc)
{
	if (desc && desc->fd_op == IPP_FDOP_FCNTL &&
	    (sc->args[1] == F_DUPFD || sc->args[1] == F_DUPFD_CLOEXEC))
		sc->cls = IPCPERF_SC_FD_NEW;
	s->syscalls++;
	EMIT(s, syscall, sc);
}

/*
 * Whether @tid is a target thread; every thread is when nobody follows them
 * (per task, -a, a capture).
 */
static bool is_target(const struct ipp_pipeline *s, pid_t tid)
{
	return tid > 0 && (!s->follow || ipp_follow__has(s->follow, tid));
}

static void sched_take(struct ipp_pipeline *s, uint64_t time, pid_t pid, pid_t tid,
		       enum ipp_run_state st, pid_t waker)
{
	struct ipp_sched_ev ev = { .time = time, .pid = pid, .tid = tid, .state = st, .waker = waker,
				   .complete = s->sched_complete };

	s->sched_fn(s->sched_ctx, &ev);
}

/*
 * Hand a switch or wakeup @rec to the sched taker, for the target threads
 * it concerns. @prev_pid is the process of the record's task (a switch's
 * prev, a wakeup's waker) when that task is a target's, else 0.
 */
static void sched_to_taker(struct ipp_pipeline *s, uint64_t time, const struct ipp_rec *rec,
			   pid_t prev_pid)
{
	if (!s->sched_fn)
		return;
	if (rec->kind == IPP_REC_SWITCH) {
		if (prev_pid > 0 && rec->sw.prev_tid > 0)
			sched_take(s, time, prev_pid, rec->sw.prev_tid,
				   (rec->sw.prev_state & 0xff) == 0 ? IPP_RUN_RUNQ : IPP_RUN_BLOCKED, 0);
		if (is_target(s, rec->sw.next_tid))
			sched_take(s, time, 0, rec->sw.next_tid, IPP_RUN_ON, 0);
	} else if (rec->kind == IPP_REC_WAKEUP && is_target(s, rec->wake.tid)) {
		sched_take(s, time, 0, rec->wake.tid, IPP_RUN_WOKEN, 0);
	}
}

/*
 * Hand the sched taker a target's switch-in or wakeup found in the record of
 * another task, such as the idle task's or an interrupt's.
 */
static void sched_of_other(struct ipp_pipeline *s, const struct ipp_mrec *r)
{
	struct ipp_rec rec;

	if (s->sched_fn && ipp_decoder__decode(s->dec, r->data, r->size, &rec) == 0)
		sched_to_taker(s, r->time, &rec, 0);
}

void ipp_pipeline__take_sched(struct ipp_pipeline *p, ipp_sched_fn fn, void *ctx)
{
	p->sched_fn = fn;
	p->sched_ctx = ctx;
}

bool ipp_pipeline__wants_sched(const struct ipp_pipeline *p)
{
	return p->sched_fn != NULL;
}

void ipp_pipeline__sched_complete(struct ipp_pipeline *p, bool complete)
{
	p->sched_complete = complete;
}

/* Dispatch a tracepoint sample. Returns 1 when an event went to the handlers, else 0. */
static int dispatch_sample(struct ipp_pipeline *s, const struct ipp_mrec *r)
{
	struct ipp_rec rec;
	struct ipcperf_syscall sc;

	if (ipp_decoder__decode(s->dec, r->data, r->size, &rec) < 0)
		return 0;
	switch (rec.kind) {
	case IPP_REC_SYS_ENTER:
		ipp_pairer__enter(s->pairer, r->time, r->pid, r->tid, rec.enter.sc, rec.enter.nr,
				  rec.enter.args, rec.enter.nr_args);
		return 0;
	case IPP_REC_SYS_EXIT:
		if (!ipp_pairer__exit(s->pairer, r->time, r->pid, r->tid, r->cpu, rec.exit.nr,
				      rec.exit.ret, &sc))
			return 0;
		emit_syscall(s, rec.exit.sc, &sc);
		break;
	case IPP_REC_SWITCH: {
		struct ipcperf_switch ev = {
			.time_ns = r->time, .pid = r->pid, .tid = rec.sw.prev_tid, .cpu = r->cpu,
			/* 0 (R) or the preempted marker above the state bits (R+): runnable */
			.preempted = (rec.sw.prev_state & 0xff) == 0,
			.prev_state = rec.sw.prev_state, .next_tid = rec.sw.next_tid,
		};
		memcpy(ev.prev_comm, rec.sw.prev_comm, sizeof(ev.prev_comm));
		memcpy(ev.next_comm, rec.sw.next_comm, sizeof(ev.next_comm));
		EMIT(s, sched_switch, &ev);
		sched_to_taker(s, r->time, &rec, r->pid);
		break;
	}
	case IPP_REC_WAKEUP: {
		struct ipcperf_wakeup ev = {
			.time_ns = r->time, .waker_pid = r->pid, .waker_tid = r->tid,
			.tid = rec.wake.tid, .target_cpu = rec.wake.target_cpu,
		};
		memcpy(ev.comm, rec.wake.comm, sizeof(ev.comm));
		EMIT(s, wakeup, &ev);
		sched_to_taker(s, r->time, &rec, r->pid);
		break;
	}
	case IPP_REC_WAKING:
		/* This is for the sched taker only: who woke whom, as the wakeup began. */
		if (s->sched_fn && rec.wake.tid > 0)
			sched_take(s, r->time, r->pid, rec.wake.tid, IPP_RUN_WAKING, r->tid);
		return 0;
	case IPP_REC_FORK: {
		struct ipcperf_task ev = {
			.kind = IPCPERF_TASK_FORK, .time_ns = r->time, .pid = r->pid,
			.tid = rec.fork.parent_tid, .child_tid = rec.fork.child_tid,
			.comm = rec.fork.child_comm,
		};
		EMIT(s, task, &ev);
		break;
	}
	case IPP_REC_EXEC: {
		struct ipcperf_task ev = {
			.kind = IPCPERF_TASK_EXEC, .time_ns = r->time, .pid = r->pid,
			.tid = rec.exec.tid, .filename = rec.exec.filename,
		};
		EMIT(s, task, &ev);
		break;
	}
	case IPP_REC_EXIT: {
		struct ipcperf_task ev = {
			.kind = IPCPERF_TASK_EXIT, .time_ns = r->time, .pid = r->pid,
			.tid = rec.pexit.tid, .comm = rec.pexit.comm, .exit_status = -1,
		};
		ipp_pairer__thread_exit(s->pairer, rec.pexit.tid);
		EMIT(s, task, &ev);
		break;
	}
	default:
		return 0;
	}
	return 1;
}

/*
 * Dispatch a call the kernel paired (struct ipp_call_rec). It goes through
 * the pairer as its two samples would have, so that calls under way at the
 * start (seeded from /proc), orphan exits and unpaired halves are counted
 * alike; the time switched out comes with it. Returns 1 when an event went
 * to the handlers, else 0.
 */
static int dispatch_call(struct ipp_pipeline *s, const struct ipp_mrec *r)
{
	struct ipp_call_rec rec;
	const struct ipp_scdesc *desc;
	struct ipcperf_syscall sc;
	struct ipcperf_call_mem mem[IPP_ARGS_ITEMS];
	const struct ipp_args_rec *ar;
	uint64_t args[6];

	if (ipp_call_rec__parse(r->data, r->size, &rec) < 0)
		return 0;
	desc = ipp_scdesc_by_nr(rec.nr);
	ar = ipp_callmem__claim(&s->mem, rec.tid, rec.nr);
	/*
	 * For a command's exec, the entry (made before the calls were paired)
	 * comes from the arg record.
	 */
	if ((rec.flags & IPP_CALL_F_NO_ENTER) && ar && ar->start_ns) {
		rec.flags &= ~IPP_CALL_F_NO_ENTER;
		rec.start_ns = ar->start_ns;
		memcpy(rec.args, ar->args, sizeof(rec.args));
	}
	for (int i = 0; i < 6; i++)
		args[i] = rec.args[i];
	if (!(rec.flags & IPP_CALL_F_NO_ENTER))
		ipp_pairer__enter(s->pairer, rec.start_ns, rec.pid, rec.tid, desc, rec.nr, args, 6);
	/*
	 * The end is the record's own time, not rec.end_ns: the merge orders by
	 * it, and a call on another CPU may take its end_ns between this one's
	 * and this one's output; the handlers get the calls in end_ns order.
	 */
	if (!ipp_pairer__exit(s->pairer, r->time, rec.pid, rec.tid, r->cpu, rec.nr, rec.ret, &sc))
		return 0;
	if (rec.flags & IPP_CALL_F_SWITCHES) {
		sc.switches = rec.switches;
		sc.off_cpu_ns = rec.off_cpu_ns;
		sc.blocked_ns = rec.blocked_ns;
	}
	if (ar) {
		sc.nr_mem = ipp_callmem__pieces(ar, mem);
		sc.mem = sc.nr_mem ? mem : NULL;
	}
	emit_syscall(s, desc, &sc);
	return 1;
}

void ipp_pipeline__take_sums(struct ipp_pipeline *p, ipp_sum_fn fn, bool (*ok)(void *ctx),
			     void *ctx)
{
	if (p->sum_fn)
		p->sum_many = true;
	p->sum_fn = fn;
	p->sum_ok = ok;
	p->sum_ctx = ctx;
}

bool ipp_pipeline__takes_sums(const struct ipp_pipeline *p)
{
	if (!p->sum_fn || p->sum_many || !p->sum_ok(p->sum_ctx))
		return false;
	/* The calls go to nobody else, because no other syscall handler would see them. */
	for (size_t i = 0; i < p->nr_handlers; i++)
		if (p->handlers[i].syscall && p->handlers[i].ctx != p->sum_ctx)
			return false;
	return true;
}

int ipp_pipeline__sum(struct ipp_pipeline *p, const struct ipp_sum_rec *r)
{
	if (!p->sum_fn)
		return 0;
	p->syscalls += r->ops;
	p->sum_fn(p->sum_ctx, r);
	return 1;
}

/*
 * Deliver one fd's calls that the kernel added up (struct ipp_sum_rec). Returns
 * 1 when delivered, else 0.
 */
static int dispatch_sum(struct ipp_pipeline *s, const struct ipp_mrec *r)
{
	struct ipp_sum_rec rec;

	if (ipp_sum_rec__parse(r->data, r->size, &rec) < 0)
		return 0;
	return ipp_pipeline__sum(s, &rec);
}

/*
 * Handle a call's user memory (struct ipp_args_rec). It is kept for its
 * call record, which comes next for its thread. For exit and exit_group,
 * which never return, it stands for the call itself and is handed on now.
 * For a call its thread was switched out in, it is the call under way and
 * goes to call_entered (ret 0, end_ns the switch). Returns 1 when an event
 * went to the handlers, else 0.
 */
static int dispatch_args(struct ipp_pipeline *s, const struct ipp_mrec *r)
{
	struct ipcperf_call_mem mem[IPP_ARGS_ITEMS];
	const struct ipp_args_rec *ar;
	struct ipcperf_syscall sc;
	uint64_t args[6];
	bool entered;
	int err;

	ar = ipp_callmem__take(&s->mem, r->data, r->size, &err);
	if (err == -ENOMEM)
		ipp_pipeline__lost_to_memory(s, r->cpu);
	if (!ar)
		return 0;
	entered = ar->flags & IPP_ARGS_F_ENTERED;
	for (int i = 0; i < 6; i++)
		args[i] = ar->args[i];
	/*
	 * The pairer makes the event by entering and leaving at once, leaving
	 * its slot as it was.
	 */
	ipp_pairer__enter(s->pairer, ar->start_ns, ar->pid, ar->tid, ipp_scdesc_by_nr(ar->nr), ar->nr,
			  args, 6);
	if (!ipp_pairer__exit(s->pairer, entered ? r->time : ar->start_ns, ar->pid, ar->tid, r->cpu,
			      ar->nr, 0, &sc))
		return 0;
	sc.never_returns = !entered;
	sc.nr_mem = ipp_callmem__pieces(ar, mem);
	sc.mem = sc.nr_mem ? mem : NULL;
	if (entered) {
		EMIT(s, call_entered, &sc);
		return 1;
	}
	s->syscalls++;
	EMIT(s, syscall, &sc);
	return 1;
}

void ipp_pipeline__sched_totals(struct ipp_pipeline *s, const struct ipcperf_sched_totals *ev)
{
	EMIT(s, sched_totals, ev);
}

int ipp_pipeline__acct_add(struct ipp_pipeline *p, pid_t root, const struct ipp_task_acct *a)
{
	return ipp_taskacct__add(&p->acct, root, a);
}

size_t ipp_pipeline__acct_sum(const struct ipp_pipeline *p, pid_t root, struct ipp_acct_sum *out)
{
	return ipp_taskacct__sum(&p->acct, root, out);
}

/*
 * A target's fork, exec or exit from the kernel, in place of its
 * sched_process_* sample: the same event to the task handlers.
 */
static void deliver_task(struct ipp_pipeline *s, const struct ipp_mrec *r,
			 const struct ipp_task_rec *rec)
{
	struct ipcperf_task ev = {
		.kind = (enum ipcperf_task_kind)rec->kind, .time_ns = r->time, .pid = rec->pid,
		.tid = rec->tid, .exit_status = -1,
	};

	switch (rec->kind) {
	case IPP_TASK_REC_FORK:
		ev.child_tid = rec->child_tid;
		ev.comm = rec->comm;
		break;
	case IPP_TASK_REC_EXEC:
		ev.filename = rec->filename;
		ev.left_view = rec->flags & IPP_TASK_REC_F_LEFT;
		if (ev.left_view)	/* its exec never returns in sight: not unfinished */
			ipp_pairer__thread_exit(s->pairer, rec->tid);
		break;
	default:
		ev.comm = rec->comm;
		if (rec->flags & IPP_TASK_REC_F_CODE)
			ev.exit_status = rec->exit_code;
		ipp_pairer__thread_exit(s->pairer, rec->tid);
		break;
	}
	EMIT(s, task, &ev);
}

/* A signal delivered to a target thread, to the signal handlers. */
static void deliver_signal(struct ipp_pipeline *s, const struct ipp_mrec *r,
			   const struct ipp_sig_rec *rec)
{
	struct ipcperf_signal ev;

	memset(&ev, 0, sizeof(ev));
	ev.time_ns = r->time;
	ev.pid = rec->pid;
	ev.tid = rec->tid;
	ev.signo = rec->signo;
	ev.action = (enum ipcperf_signal_action)rec->action;
	_Static_assert(sizeof(ev.info) == sizeof(siginfo_t) && sizeof(ev.info) >= IPP_SIG_INFO,
		       "a siginfo_t, which holds the kernel's");
	memcpy(ev.info, rec->info, IPP_SIG_INFO);
	EMIT(s, signal, &ev);
}

/* A thread's counts at its exit, to the sched_totals handlers; its task accounting kept. */
static void deliver_sched(struct ipp_pipeline *s, const struct ipp_mrec *r,
			  const struct ipp_sched_rec *rec)
{
	struct ipcperf_sched_totals ev = {
		.time_ns = r->time, .pid = rec->pid, .tid = rec->tid, .exited = true,
		.voluntary = rec->voluntary, .involuntary = rec->involuntary,
		.wakeups = rec->wakeups, .migrations = rec->migrations,
	};

	memcpy(ev.comm, rec->comm, sizeof(ev.comm));
	if (ipp_pipeline__acct_add(s, rec->root, &rec->acct) < 0)
		ipp_pipeline__lost_to_memory(s, r->cpu);
	ipp_pipeline__sched_totals(s, &ev);
}

/*
 * Deliver a record of a task's life from the kernel: its fork, exec or exit
 * (IPP_MREC_KTASK, struct ipp_task_rec), a signal delivered to it
 * (IPP_MREC_KSIG, struct ipp_sig_rec) or its counts at its exit
 * (IPP_MREC_KSCHED, struct ipp_sched_rec). A record that does not parse is
 * dropped. Returns 1 when delivered, else 0.
 */
static int dispatch_life(struct ipp_pipeline *s, const struct ipp_mrec *r)
{
	union {
		struct ipp_task_rec task;
		struct ipp_sig_rec sig;
		struct ipp_sched_rec sched;
	} rec;
	int err = r->type == IPP_MREC_KTASK ? ipp_task_rec__parse(r->data, r->size, &rec.task) :
		  r->type == IPP_MREC_KSIG ? ipp_sig_rec__parse(r->data, r->size, &rec.sig) :
		  ipp_sched_rec__parse(r->data, r->size, &rec.sched);

	if (err < 0)
		return 0;
	if (r->type == IPP_MREC_KTASK)
		deliver_task(s, r, &rec.task);
	else if (r->type == IPP_MREC_KSIG)
		deliver_signal(s, r, &rec.sig);
	else
		deliver_sched(s, r, &rec.sched);
	return 1;
}

/*
 * Hand a record of the kernel's fd identity (fdid-rec.h) to the fd_open
 * handlers: what a new fd is, or what a connected one is connected to now.
 * Returns 1 when an event went to the handlers, else 0.
 */
static int dispatch_fdid(struct ipp_pipeline *s, const struct ipp_mrec *r)
{
	struct ipcperf_fd_open ev;
	struct ipp_ident id;

	if (ipp_kernel_fd_open(r->data, r->size, r->time, &ev, &id) < 0)
		return 0;
	EMIT(s, fd_open, &ev);
	return 1;
}

/* Update the targets of a CPU-scope session from a fork, exit or exec record of any task. */
static void follow_record(struct ipp_pipeline *s, const struct ipp_mrec *r)
{
	uint32_t v[4];

	memcpy(v, r->data, r->size < sizeof(v) ? r->size : sizeof(v));
	switch (r->type) {
	case PERF_RECORD_FORK:	/* pid, ppid, tid, ptid */
		if (ipp_follow__fork(s->follow, (pid_t)v[3], (pid_t)v[2], (pid_t)v[0]) < 0)
			ipp_warn("out of memory following the targets: a new task is not traced\n");
		break;
	case PERF_RECORD_EXIT:
		ipp_follow__exit(s->follow, (pid_t)v[2]);
		break;
	default:		/* COMM with the exec flag: pid, tid */
		if (ipp_follow__exec(s->follow, (pid_t)v[0], (pid_t)v[1]) < 0)
			ipp_warn("out of memory following the targets: an exec'd task is not traced\n");
		break;
	}
}

/*
 * Place a CPU-scope record of a task that is not a target as far as the
 * side-band records tell. It is another task's (foreign) unless side-band
 * records were lost, in which case /proc says whose it is. A record nobody
 * can place any more is counted with the lost ones, since it may have been
 * a target's. Returns true when the record is a target's after all.
 */
static bool untracked_task(struct ipp_pipeline *s, const struct ipp_mrec *r)
{
	int whose = IPP_FOLLOW_OTHER;

	if (s->sideband_lost)
		whose = ipp_follow__resolve(s->follow, r->tid, s->cmd_exec_done);
	if (whose == IPP_FOLLOW_TARGET)
		return true;
	if (whose == IPP_FOLLOW_OTHER)
		s->foreign++;
	else
		s->unattributed++;
	return false;
}

/* Tell the lost handlers of the records untracked_task() could not place. */
static int report_unattributed(struct ipp_pipeline *s)
{
	struct ipcperf_lost ev = { .cpu = -1, .lost = s->unattributed - s->unattr_told };

	if (!ev.lost)
		return 0;
	s->unattr_told = s->unattributed;
	ev.total = s->lost + s->unattributed;
	EMIT(s, lost, &ev);
	return 1;
}

/*
 * Whether @r is the exec of a target that left what the caller may see
 * (flag LEFT). The kernel writes it for targets only, and a command's comes
 * before any side-band record of its exec, which the kernel drops with its
 * events.
 */
static bool left_view(const struct ipp_mrec *r)
{
	struct ipp_task_rec rec;

	return r->type == IPP_MREC_KTASK && ipp_task_rec__parse(r->data, r->size, &rec) == 0 &&
	       rec.kind == IPP_TASK_REC_EXEC && (rec.flags & IPP_TASK_REC_F_LEFT);
}

int ipp_pipeline__deliver(struct ipp_pipeline *s, uint64_t horizon)
{
	const struct ipp_mrec *r;
	int n = 0;

	while ((r = ipp_merge__pop(s->merge, horizon)) != NULL) {
		switch (r->type) {
		case PERF_RECORD_SAMPLE:
			if (s->follow && !ipp_follow__has(s->follow, r->tid) && !untracked_task(s, r)) {
				sched_of_other(s, r);
				break;
			}
			n += dispatch_sample(s, r);
			break;
		case IPP_MREC_KSCHED:
			/* A thread's counts come at its last switch, after its exit record. */
			n += dispatch_life(s, r);
			break;
		case IPP_MREC_KSUM:
			n += dispatch_sum(s, r);
			break;
		case IPP_MREC_SELF_SCHED:
			sched_of_other(s, r);
			break;
		case IPP_MREC_KCALL:
		case IPP_MREC_KFD:
		case IPP_MREC_KTASK:
		case IPP_MREC_KARGS:
		case IPP_MREC_KSIG:
			if (s->follow && !ipp_follow__has(s->follow, r->tid) && !left_view(r) &&
			    !untracked_task(s, r))
				break;
			n += r->type == IPP_MREC_KCALL ? dispatch_call(s, r) :
			     r->type == IPP_MREC_KARGS ? dispatch_args(s, r) :
			     r->type == IPP_MREC_KFD ? dispatch_fdid(s, r) : dispatch_life(s, r);
			break;
		case PERF_RECORD_FORK:
		case PERF_RECORD_EXIT:
		case PERF_RECORD_COMM:
			follow_record(s, r);
			break;
		case PERF_RECORD_SWITCH:
			if (s->follow && !ipp_follow__has(s->follow, r->tid) && !untracked_task(s, r))
				break;
			ipp_pairer__switch(s->pairer, r->time, r->tid,
					   r->misc & PERF_RECORD_MISC_SWITCH_OUT,
					   r->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
			break;
		case PERF_RECORD_LOST: {
			struct ipcperf_lost ev = { .cpu = r->cpu, .total = s->lost + s->unattributed };

			memcpy(&ev.lost, r->data, sizeof(ev.lost));
			EMIT(s, lost, &ev);
			n++;
			break;
		}
		default:
			break;
		}
	}
	if (s->follow)
		n += report_unattributed(s);
	return n;
}
