/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the per-CPU structures take on N CPUs, and the rings' share of the budget (percpu.h). Pure. */
#include "config.h"
#include "bpf/sum-rec.h"
#include "source/formats.h"
#include "source/percpu.h"

static uint64_t cpus_of(long ncpus)
{
	return ncpus > 0 ? (uint64_t)ncpus : 1;
}

/*
 * Return the bytes of the sums' fast slots and the other per-CPU arrays,
 * allocated when the programs load.
 */
static uint64_t bpf_bytes(long ncpus)
{
	return cpus_of(ncpus) * (IPP_PERCPU_BPF_SMALL +
				 (uint64_t)ipp_sum_rec__fast_slots(ncpus) * sizeof(struct ipp_sum_slot));
}

/*
 * Return the bytes of the sums' map with every key it may take, each key
 * holding a record per CPU.
 */
static uint64_t agg_bytes(long ncpus)
{
	return (uint64_t)ipp_sum_rec__agg_keys(ncpus) *
	       (cpus_of(ncpus) * sizeof(struct ipp_sum_rec) + IPP_SUM_KEY_BYTES);
}

/* Return the resident bytes of libperf's structures for the two rings of each CPU. */
static uint64_t user_bytes(long ncpus)
{
	return cpus_of(ncpus) * 2 * IPP_PERCPU_MMAP_RESIDENT;
}

uint64_t ipp_percpu__others(long ncpus)
{
	return bpf_bytes(ncpus) + agg_bytes(ncpus) + user_bytes(ncpus);
}

unsigned long long ipp_percpu__rings_kb(long ncpus)
{
	uint64_t others = ipp_percpu__others(ncpus) + IPP_PERCPU_MARGIN_BYTES;
	uint64_t left;

	if (cpus_of(ncpus) <= IPP_PERCPU_SMALL_CPUS)
		return ~0ull;	/* the largest default rings: percpu.h */
	left = others < IPP_PERCPU_BUDGET_BYTES ? IPP_PERCPU_BUDGET_BYTES - others : 0;
	return left / 1024 < IPP_PERCPU_RINGS_MAX_KB ? left / 1024 : IPP_PERCPU_RINGS_MAX_KB;
}

void ipp_percpu__plan(struct ipp_percpu_plan *p, long ncpus, unsigned int ring_pages,
		      unsigned long long page_kb, unsigned int events, unsigned int tracepoints)
{
	uint64_t n = cpus_of(ncpus), pages;

	*p = (struct ipp_percpu_plan){ .ncpus = (long)n, .ring_pages = ring_pages };
	p->sideband_pages = ipp_sideband_pages(ring_pages);
	p->fast_slots = ipp_sum_rec__fast_slots(ncpus);
	p->agg_keys = ipp_sum_rec__agg_keys(ncpus);
	p->events = (unsigned int)(n * events);
	pages = n * (ring_pages + 1ull + p->sideband_pages + 1ull);
	p->ring_bytes = pages * page_kb * 1024;
	p->bpf_bytes = bpf_bytes(ncpus);
	p->agg_bytes = agg_bytes(ncpus);
	p->user_bytes = user_bytes(ncpus);
	p->user_vm_bytes = n * 2 * IPP_PERCPU_MMAP_STRUCT;
	p->total_bytes = p->ring_bytes + p->bpf_bytes + p->agg_bytes + p->user_bytes;
	if (tracepoints > events)
		tracepoints = events;
	p->start_ns = IPP_START_FIXED_NS + pages * IPP_START_PAGE_NS +
		      n * (2 * IPP_START_MMAP_NS + tracepoints * (uint64_t)IPP_START_TP_OPEN_NS +
			   (events - tracepoints) * (uint64_t)IPP_START_OPEN_NS);
}
