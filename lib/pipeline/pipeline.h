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
 * The pipeline both sources of records feed (rings.c live, replay.c from a
 * capture): each record, its sample fields parsed once, goes into the merge
 * (merge.c, by timestamp); records old enough to be in order come out to be
 * followed (follow.c: whose are they, CPU scope only), decoded (decode.c),
 * paired (pair.c) and handed to the registered handlers. It also keeps the
 * counts every output must show: records, losses per CPU, syscalls.
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

/* The merge's types of the BPF programs' records: enum ipp_mrec_type (merge.h). */

/* @return a pipeline (to be freed with ipp_pipeline__delete()); NULL with errno ENOMEM. */
struct ipp_pipeline *ipp_pipeline__new(void);
/* Accepts NULL. */
void ipp_pipeline__delete(struct ipp_pipeline *p);
/* The decoder the sources load their tracepoint formats into; the pipeline's. */
struct ipp_decoder *ipp_pipeline__decoder(struct ipp_pipeline *p);
/* The records of process @self (<= 0: none) are dropped, unless @include_self. */
void ipp_pipeline__set_self(struct ipp_pipeline *p, pid_t self, bool include_self);
/*
 * The calls the kernel added up (sum-rec.h), each summary handed to @fn
 * with @ctx (the stats' own entry: no public handler has them). @ok says
 * whether @ctx can take them now (asked at the session's start). A second
 * taker makes nobody take them.
 */
struct ipp_sum_rec;
typedef void (*ipp_sum_fn)(void *ctx, const struct ipp_sum_rec *r);
void ipp_pipeline__take_sums(struct ipp_pipeline *p, ipp_sum_fn fn, bool (*ok)(void *ctx),
			     void *ctx);
/* Whether the calls may be added up: one taker, who can, and no other syscall handler. */
bool ipp_pipeline__takes_sums(const struct ipp_pipeline *p);
/* A summary to its taker (the merge's, or one read from the map at the end). @return 1 if taken. */
int ipp_pipeline__sum(struct ipp_pipeline *p, const struct ipp_sum_rec *r);

/*
 * The scheduling of the targets' threads, for the request paths (the
 * public handlers never see these): each sched_switch and sched_wakeup
 * that puts a target thread on a CPU, off it (blocked or still runnable),
 * or wakes it, whoever's record it is. Once taken, a live session opens
 * sched_switch and sched_wakeup with the records of the idle task too
 * (ipp_pipeline__wants_sched()): a thread switched in from idle, or woken
 * in an interrupt, is seen. @complete: every such change of the targets'
 * threads comes (CPU-wide records with idle's); false (per-task records,
 * a capture) when a switch-in from another process cannot be seen.
 */
/*
 * WOKEN: a sched_wakeup (runnable, if it was asleep); WAKING: a target
 * thread (@waker) starts waking @tid (sched_waking, in the waker's context
 * always: no change of state yet); the others: a switch.
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
/* The live source opened the sched tracepoints CPU-wide with the idle task's records. */
void ipp_pipeline__sched_complete(struct ipp_pipeline *p, bool complete);

/* Register handlers (copied). @return 0, -EINVAL (bad sz), -ENOMEM. */
int ipp_pipeline__add_handlers(struct ipp_pipeline *p, const struct ipcperf_handlers *h);
/* Room for the per-CPU counts of CPUs 0..@n-1. @return 0 or -ENOMEM. */
int ipp_pipeline__cpus(struct ipp_pipeline *p, size_t n);
/* Samples with one of these @ids (bpf-output events) are fd identity records. @return 0, -ENOMEM. */
int ipp_pipeline__fdid_ids(struct ipp_pipeline *p, const uint64_t *ids, size_t n);
/*
 * Show @pr (a reference is taken) each syscall record as it is taken, so
 * that it reads /proc before the merge hands the record out. Live only.
 * @return the resolver in use (the first one set stays), or NULL.
 */
struct ipp_procres;
struct ipp_procres *ipp_pipeline__read_ahead(struct ipp_pipeline *p, struct ipp_procres *pr);
/* No sample is an fd identity record any more (the BPF object is gone). */
void ipp_pipeline__clear_fdid_ids(struct ipp_pipeline *p);
/* Tracepoint @id is a syscall one: its samples are counted by CPU (ipp_pipeline__on_cpu()). */
int ipp_pipeline__syscall_tp(struct ipp_pipeline *p, int id);
bool ipp_pipeline__is_syscall_tp(const struct ipp_pipeline *p, int id);

/*
 * CPU scope: only the records of @f's targets are kept (NULL: every
 * record). @f stays the caller's: set NULL before it is deleted.
 */
void ipp_pipeline__follow(struct ipp_pipeline *p, struct ipp_follow *f);
/* The command was released: its exec makes it a target (ipp_follow__resolve()). */
void ipp_pipeline__cmd_released(struct ipp_pipeline *p);
/* Side-band records were lost: whose an unknown task is, /proc says. */
bool ipp_pipeline__sideband_lost(const struct ipp_pipeline *p);

/*
 * One record, of a ring or of a capture: @type and @misc of its header, @s
 * its sample fields (pid, tid, time and cpu; a sample's raw data), @body the
 * record after its header (the kernel's part: LOST, FORK, EXIT, COMM), of
 * @body_len bytes; @sideband: it came from a side-band ring. Records of
 * types the pipeline has no use for are counted and left out.
 * @return 0, or -ENOMEM (the record is counted as lost).
 */
int ipp_pipeline__take(struct ipp_pipeline *p, uint32_t type, uint16_t misc,
		       const struct ipp_pd_sample *s, const void *body, size_t body_len,
		       bool sideband);
/* A record read that no place in time can be given: counted among the records, left out. */
void ipp_pipeline__skip(struct ipp_pipeline *p);
/* Thread @tid is inside call @nr as the capture starts at @time (ipp_pairer__seed()). */
void ipp_pipeline__seed_call(struct ipp_pipeline *p, uint64_t time, pid_t pid, pid_t tid,
			     const struct ipp_scdesc *sc, int nr, const uint64_t *args,
			     unsigned int nr_args);
/* Hand the handlers every record up to @horizon, in time order. @return events delivered. */
int ipp_pipeline__deliver(struct ipp_pipeline *p, uint64_t horizon);
/* @n records lost on @cpu that no LOST record reported: counted, and told the handlers. */
void ipp_pipeline__lost(struct ipp_pipeline *p, int cpu, uint64_t n);
/* A thread's scheduling totals to the sched_totals handlers. */
void ipp_pipeline__sched_totals(struct ipp_pipeline *p, const struct ipcperf_sched_totals *ev);
/* Add what the kernel accounted to one thread of target @root. @return 0 or -ENOMEM. */
int ipp_pipeline__acct_add(struct ipp_pipeline *p, pid_t root, const struct ipp_task_acct *a);
/* The sums of target @root (0: of every target) into @out. @return the targets summed. */
size_t ipp_pipeline__acct_sum(const struct ipp_pipeline *p, pid_t root, struct ipp_acct_sum *out);
/* @n calls under way at the end, whose exits will not come: unpaired enters. */
void ipp_pipeline__unpaired_enters(struct ipp_pipeline *p, uint64_t n);
/* The end: calls still open are unpaired. */
void ipp_pipeline__flush(struct ipp_pipeline *p);
/*
 * The syscall samples taken on @cpu and the records lost there, into
 * *@samples and *@lost. @return false (both 0) for a CPU without counts.
 */
bool ipp_pipeline__on_cpu(const struct ipp_pipeline *p, int cpu, uint64_t *samples,
			  uint64_t *lost);
/*
 * The pipeline's part of ipcperf_session__stats() into @v: records, lost
 * (unattributed records included), unattributed, unpaired enters and
 * exits, syscalls, foreign.
 */
void ipp_pipeline__stats(const struct ipp_pipeline *p, struct ipcperf_session_stats *v);

#endif /* IPCPERF_PIPELINE_H */
