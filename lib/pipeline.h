/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
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
#include "perfdata.h"
#include "decode.h"
#include "follow.h"
#include "pair.h"
#include "taskacct.h"

struct ipp_pipeline {
	struct ipp_decoder *dec;
	struct ipp_merge *merge;
	struct ipp_pairer *pairer;
	/* CPU scope: whose records to keep (owned); NULL keeps every record. */
	struct ipp_follow *follow;
	bool cmd_exec_done;		/* the command exec'd: follow may take it as a target */
	bool sideband_lost;		/* side-band records were lost: /proc places unknown tasks */
	pid_t self;			/* the tracing process, whose records are dropped; <= 0: none */
	bool include_self;

	struct ipcperf_handlers *handlers;
	size_t nr_handlers;

	uint64_t records;		/* records taken */
	uint64_t lost;			/* records the kernel (or memory) lost */
	uint64_t syscalls;		/* completed calls delivered */
	uint64_t foreign;		/* records of other tasks, dropped */
	uint64_t unattributed;		/* records nobody could place (counted as lost too) */
	uint64_t unattr_told;		/* of them, those the lost handlers were told of */
	uint64_t *lost_per_cpu;
	uint64_t *samples_per_cpu;	/* samples of syscall tracepoints taken, by CPU */
	size_t nr_cpu_slots;
	bool *sc_tp;			/* by tracepoint id: a syscall tracepoint */
	size_t nr_sc_tp;
	uint64_t *fdid_ids;		/* ids of the bpf-output events: fd identity records */
	size_t nr_fdid_ids;
	/* What the kernel accounted to the counted threads, by target (sched records). */
	struct ipp_acct_sums acct;
	/* Reads /proc ahead of the merge, as records are taken (procres.h); NULL: none. */
	struct ipp_procres *procres;
};

/* The merge's type of an fd identity record (a bpf-output sample): above the kernel's. */
#define IPP_MREC_FDID 0x10001u

/* @return 0 or -ENOMEM (everything undone). */
int ipp_pipeline__init(struct ipp_pipeline *p);
void ipp_pipeline__fini(struct ipp_pipeline *p);
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
/* Tracepoint @id is a syscall one: its samples count towards samples_per_cpu. */
int ipp_pipeline__syscall_tp(struct ipp_pipeline *p, int id);

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
/* Hand the handlers every record up to @horizon, in time order. @return events delivered. */
int ipp_pipeline__deliver(struct ipp_pipeline *p, uint64_t horizon);
/* @n records lost on @cpu that no LOST record reported: counted, and told the handlers. */
void ipp_pipeline__lost(struct ipp_pipeline *p, int cpu, uint64_t n);
/* A thread's scheduling totals to the sched_totals handlers. */
void ipp_pipeline__sched_totals(struct ipp_pipeline *p, const struct ipcperf_sched_totals *ev);
/* Add what the kernel accounted to one thread of target @root. @return 0 or -ENOMEM. */
struct ipp_task_acct;
int ipp_pipeline__acct_add(struct ipp_pipeline *p, pid_t root, const struct ipp_task_acct *a);
/* The sums of target @root (0: of every target) into @out. @return the targets summed. */
size_t ipp_pipeline__acct_sum(const struct ipp_pipeline *p, pid_t root, struct ipp_acct_sum *out);
/* The end: calls still open are unpaired. */
void ipp_pipeline__flush(struct ipp_pipeline *p);

#endif /* IPCPERF_PIPELINE_H */
