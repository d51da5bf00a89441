/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/pipeline/: the path every record takes, whichever source it comes
 * from: merged by time (merge.c), followed (follow.c), decoded (decode.c),
 * its enter and exit paired (pair.c), its arguments' memory joined to its
 * call (callmem.c), taken in and handed to the handlers (pipeline.c,
 * pipeline-deliver.c); the task accounting kept for the counters
 * (taskacct.c). This folder may call capture/ (the sample fields' type,
 * perfdata.h), fd/ (procres.c, read ahead of the merge; the kernel's fd
 * records; follow.c asks proctask.c about threads), bpf/ (the records'
 * decoders) and the ground floor (lib/). The sources (source/) feed it; the
 * session (session/) holds it.
 *
 * Both sources of records feed the pipeline: rings.c live, replay.c from a
 * capture. Each record, its sample fields parsed once, goes into the merge
 * (merge.c), which orders records by timestamp. Records old enough to be in
 * order come out and are checked against the targets (follow.c, CPU scope
 * only), decoded (decode.c), paired (pair.c) and handed to the registered
 * handlers. The pipeline also keeps the counts every output must show:
 * records, losses per CPU, syscalls.
 */
#ifndef IPCPERF_PIPELINE_H
#define IPCPERF_PIPELINE_H

#include "internal.h"
#include "capture/perfdata.h"
#include "pipeline/taskacct.h"

struct ipp_pipeline;
struct ipp_decoder;
struct ipp_follow;
struct ipp_scdesc;
struct ipp_task_acct;

/* The merge's types for the BPF programs' records are enum ipp_mrec_type (merge.h). */

/* Return a new pipeline, to be freed with ipp_pipeline__delete(), or NULL with errno ENOMEM. */
struct ipp_pipeline *ipp_pipeline__new(void);
/* Free @p; it may be NULL. */
void ipp_pipeline__delete(struct ipp_pipeline *p);
/* Return the pipeline's decoder, which the sources load their tracepoint formats into. */
struct ipp_decoder *ipp_pipeline__decoder(struct ipp_pipeline *p);
/* Drop the records of process @self (none when @self <= 0), unless @include_self. */
void ipp_pipeline__set_self(struct ipp_pipeline *p, pid_t self, bool include_self);
/*
 * Hand each summary of the calls the kernel added up (sum-rec.h) to @fn
 * with @ctx. This is the stats' own entry: no public handler gets them.
 * @ok says whether @ctx can take them now; it is asked at the session's
 * start. When a second taker registers, nobody takes them.
 */
struct ipp_sum_rec;
typedef void (*ipp_sum_fn)(void *ctx, const struct ipp_sum_rec *r);
void ipp_pipeline__take_sums(struct ipp_pipeline *p, ipp_sum_fn fn, bool (*ok)(void *ctx),
			     void *ctx);
/*
 * Whether the calls may be added up: there is one taker, it can take them, and
 * no other syscall handler exists.
 */
bool ipp_pipeline__takes_sums(const struct ipp_pipeline *p);
/*
 * Hand a summary, from the merge or read from the map at the end, to its
 * taker. Returns 1 when it was taken, else 0.
 */
int ipp_pipeline__sum(struct ipp_pipeline *p, const struct ipp_sum_rec *r);

/*
 * The scheduling of the targets' threads, for the request paths; the
 * public handlers never see these. The taker gets each sched_switch and
 * sched_wakeup that puts a target thread on a CPU, takes it off (blocked or
 * still runnable), or wakes it, whichever task's record it is. Once there
 * is a taker, a live session opens sched_switch and sched_wakeup with the
 * records of the idle task too (ipp_pipeline__wants_sched()), so that a
 * thread switched in from idle, or woken in an interrupt, is seen.
 * @complete is true when every such change of the targets' threads comes
 * (CPU-wide records that include idle's), and false (per-task records, a
 * capture) when a switch-in from another process cannot be seen.
 */
/*
 * WOKEN is a sched_wakeup: the thread is runnable, if it was asleep.
 * WAKING means a target thread (@waker) starts waking @tid (sched_waking,
 * always in the waker's context); the state does not change yet. The
 * others are switches.
 */
enum ipp_run_state { IPP_RUN_ON, IPP_RUN_RUNQ, IPP_RUN_BLOCKED, IPP_RUN_WOKEN, IPP_RUN_WAKING };
struct ipp_sched_ev {
	uint64_t time;
	pid_t pid, tid;		/* pid: its process when known (a switch out, a waker), else 0 */
	pid_t waker;		/* WAKING: the waker's tid */
	enum ipp_run_state state;
	bool complete;
};
typedef void (*ipp_sched_fn)(void *ctx, const struct ipp_sched_ev *ev);
void ipp_pipeline__take_sched(struct ipp_pipeline *p, ipp_sched_fn fn, void *ctx);
bool ipp_pipeline__wants_sched(const struct ipp_pipeline *p);
/* Set when the live source opened the sched tracepoints CPU-wide with the idle task's records. */
void ipp_pipeline__sched_complete(struct ipp_pipeline *p, bool complete);

/* Register a copy of handlers @h. Returns 0, -EINVAL for a bad sz, or -ENOMEM. */
int ipp_pipeline__add_handlers(struct ipp_pipeline *p, const struct ipcperf_handlers *h);
/* Make room for the per-CPU counts of CPUs 0..@n-1. Returns 0 or -ENOMEM. */
int ipp_pipeline__cpus(struct ipp_pipeline *p, size_t n);
/*
 * Treat samples with one of these @ids (of bpf-output events) as fd
 * identity records. Returns 0 or -ENOMEM.
 */
int ipp_pipeline__fdid_ids(struct ipp_pipeline *p, const uint64_t *ids, size_t n);
/*
 * Show @pr each syscall record as it is taken, so that it reads /proc
 * before the merge hands the record out; a reference to @pr is taken. Live
 * only. Returns the resolver in use (the first one set stays), or NULL.
 */
struct ipp_procres;
struct ipp_procres *ipp_pipeline__read_ahead(struct ipp_pipeline *p, struct ipp_procres *pr);
/* Stop treating any sample as an fd identity record, because the BPF object is gone. */
void ipp_pipeline__clear_fdid_ids(struct ipp_pipeline *p);
/*
 * Mark tracepoint @id as a syscall one, whose samples are counted by CPU
 * (ipp_pipeline__on_cpu()).
 */
int ipp_pipeline__syscall_tp(struct ipp_pipeline *p, int id);
bool ipp_pipeline__is_syscall_tp(const struct ipp_pipeline *p, int id);

/*
 * In CPU scope, keep only the records of @f's targets; NULL keeps every
 * record. @f stays the caller's, who must set NULL here before deleting it.
 */
void ipp_pipeline__follow(struct ipp_pipeline *p, struct ipp_follow *f);
/* Note that the command was released, so its exec makes it a target (ipp_follow__resolve()). */
void ipp_pipeline__cmd_released(struct ipp_pipeline *p);
/* Whether side-band records were lost, so that /proc must say whose an unknown task is. */
bool ipp_pipeline__sideband_lost(const struct ipp_pipeline *p);

/*
 * Take one record, from a ring or from a capture. @type and @misc come from
 * its header; @s holds its sample fields (pid, tid, time and CPU, and a
 * sample's raw data); @body is the record after its header (the kernel's
 * part: LOST, FORK, EXIT, COMM), of @body_len bytes; @sideband is set when
 * it came from a side-band ring. Records of types the pipeline has no use
 * for are counted and left out. Returns 0, or -ENOMEM, in which case the
 * record is counted as lost.
 */
int ipp_pipeline__take(struct ipp_pipeline *p, uint32_t type, uint16_t misc,
		       const struct ipp_pd_sample *s, const void *body, size_t body_len,
		       bool sideband);
/* Count a record that cannot be placed in time among the records, and leave it out. */
void ipp_pipeline__skip(struct ipp_pipeline *p);
/* Note that thread @tid is inside call @nr as the capture starts at @time (ipp_pairer__seed()). */
void ipp_pipeline__seed_call(struct ipp_pipeline *p, uint64_t time, pid_t pid, pid_t tid,
			     const struct ipp_scdesc *sc, int nr, const uint64_t *args,
			     unsigned int nr_args);
/* Hand the handlers every record up to @horizon, in time order. Returns the events delivered. */
int ipp_pipeline__deliver(struct ipp_pipeline *p, uint64_t horizon);
/* Count @n records lost on @cpu that no LOST record reported, and tell the handlers. */
void ipp_pipeline__lost(struct ipp_pipeline *p, int cpu, uint64_t n);
/* Hand a thread's scheduling totals to the sched_totals handlers. */
void ipp_pipeline__sched_totals(struct ipp_pipeline *p, const struct ipcperf_sched_totals *ev);
/* Add what the kernel accounted to one thread of target @root. Returns 0 or -ENOMEM. */
int ipp_pipeline__acct_add(struct ipp_pipeline *p, pid_t root, const struct ipp_task_acct *a);
/* Store the sums of target @root (of every target when 0) in @out. Returns the targets summed. */
size_t ipp_pipeline__acct_sum(const struct ipp_pipeline *p, pid_t root, struct ipp_acct_sum *out);
/* Count @n calls still under way at the end, whose exits will not come, as unpaired enters. */
void ipp_pipeline__unpaired_enters(struct ipp_pipeline *p, uint64_t n);
/* At the end, count the calls still open as unpaired. */
void ipp_pipeline__flush(struct ipp_pipeline *p);
/*
 * Store the syscall samples taken on @cpu in *@samples and the records lost
 * there in *@lost. Returns false, with both 0, for a CPU without counts.
 */
bool ipp_pipeline__on_cpu(const struct ipp_pipeline *p, int cpu, uint64_t *samples,
			  uint64_t *lost);
/*
 * Fill in the pipeline's part of ipcperf_session__stats() in @v: records,
 * lost (unattributed records included), unattributed, unpaired enters and
 * exits, syscalls, foreign.
 */
void ipp_pipeline__stats(const struct ipp_pipeline *p, struct ipcperf_session_stats *v);

#endif /* IPCPERF_PIPELINE_H */
