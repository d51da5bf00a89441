/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pipeline's insides, shared by its two files: pipeline.c (the object,
 * the records taken into the merge, the counts) and pipeline-deliver.c
 * (the merged records dispatched to the handlers). The rest of the library
 * goes through pipeline.h.
 */
#ifndef IPCPERF_PIPELINE_INT_H
#define IPCPERF_PIPELINE_INT_H

#include "pipeline/callmem.h"
#include "pipeline/pipeline.h"

struct ipp_pipeline {
	struct ipp_decoder *dec;
	struct ipp_merge *merge;
	struct ipp_pairer *pairer;
	/*
	 * In CPU scope, the live source's set of tasks whose records are kept;
	 * NULL keeps every record.
	 */
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
	/* Reads /proc ahead of the merge as records are taken (procres.h); may be NULL. */
	struct ipp_procres *procres;
	/* Who takes the calls the kernel added up (ipp_pipeline__take_sums()); NULL when nobody. */
	ipp_sum_fn sum_fn;
	bool (*sum_ok)(void *ctx);
	void *sum_ctx;
	bool sum_many;			/* a second taker asked: nobody takes them */
	/* The arg records waiting for their calls (ipcperf_session_opts.call_memory). */
	struct ipp_callmem mem;
	/* Who takes the targets' scheduling (ipp_pipeline__take_sched()); NULL when nobody. */
	ipp_sched_fn sched_fn;
	void *sched_ctx;
	bool sched_complete;
};

/* Hand @ev to the @member handler of each handler set of pipeline @s. */
#define EMIT(s, member, ev)                                             \
	do {                                                            \
		for (size_t i_ = 0; i_ < (s)->nr_handlers; i_++)        \
			if ((s)->handlers[i_].member)                   \
				(s)->handlers[i_].member((s)->handlers[i_].ctx, (ev)); \
	} while (0)


/* Count a record dropped on @cpu for want of memory as lost. Returns -ENOMEM. */
int ipp_pipeline__lost_to_memory(struct ipp_pipeline *p, int cpu);

#endif /* IPCPERF_PIPELINE_INT_H */
