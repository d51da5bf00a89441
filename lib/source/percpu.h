/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a session's per-CPU structures take on a machine of N CPUs
 * (percpu.c), and the budget they are sized to: the rings, the BPF maps
 * with a value per CPU, libperf's structure of each ring, the perf events
 * opened on each CPU and the time a start spends on them. The default ring
 * size (rings-targets.c) and the sums' map sizes (bpf/sum-rec.h) come from
 * here, so that a unit test checks the budget for any number of CPUs
 * without those CPUs. doc/scaling.md has the table and the figures.
 */
#ifndef IPCPERF_PERCPU_H
#define IPCPERF_PERCPU_H

#include <stdint.h>
#include "internal.h"

/* All per-CPU structures together, each at its bound, with default options. */
#define IPP_PERCPU_BUDGET_BYTES (64ull << 20)
/* What the budget keeps back, so that a plan stays under it, not at it. */
#define IPP_PERCPU_MARGIN_BYTES (1ull << 20)
/*
 * The rings of all CPUs together at most, by default, whatever may be
 * locked, on a host of more than IPP_PERCPU_SMALL_CPUS CPUs: 2048 data
 * pages (8 MiB) per CPU on 3 or 4 CPUs, fewer on more.
 */
#define IPP_PERCPU_RINGS_MAX_KB (40ull * 1024)
/*
 * A host of at most this many CPUs keeps rings of 8192 pages a CPU, over
 * the budget (88 MiB in all on 2 CPUs): the budget is for the hosts where
 * the rings multiply. On this 2-CPU VM, 4096 pages lost events in 2 runs
 * of 7 of tests/test-server.sh's flows (50 connections at full speed);
 * 8192 lost none.
 */
#define IPP_PERCPU_SMALL_CPUS 2
/* The start-up time a session may take on any number of CPUs. */
#define IPP_PERCPU_START_BUDGET_NS (500 * IPP_NS_PER_MS)

/*
 * The BPF maps with a value per CPU besides the sums, per CPU: cpu_calls
 * (120 bytes), scratch (1168), stats (136), oncpu (16), agg_out (2144: a
 * summary record as written), the hash maps' spare elements and lock
 * counts (~400), rounded up.
 */
#define IPP_PERCPU_BPF_SMALL 4096u
/*
 * libperf's struct perf_mmap, one per ring (two rings per CPU): a 64 KiB
 * copy buffer for records that wrap around the ring's end, and a few
 * fields. Allocated zeroed, so only the pages written are resident: those
 * of its fields and of the records copied, counted as two pages.
 */
#define IPP_PERCPU_MMAP_STRUCT (65536u + 256u)
#define IPP_PERCPU_MMAP_RESIDENT 8192u

/*
 * The start-up model, per piece, from bench/percpu-cost on this 2-CPU VM
 * (medians, rounded up): opening a software event, opening a tracepoint's,
 * mapping a ring (besides its pages), allocating a ring page; and what a
 * start costs whatever the CPUs (the BPF programs' load: the 2-CPU start to
 * "live" less its per-CPU share).
 */
#define IPP_START_OPEN_NS 5000u
#define IPP_START_TP_OPEN_NS 25000u
#define IPP_START_MMAP_NS 5000u
#define IPP_START_PAGE_NS 2500u
#define IPP_START_FIXED_NS (250 * IPP_NS_PER_MS)

/* The perf events a default session opens on each CPU: the sample ring's, the side-band's, BPF's output. */
#define IPP_PERCPU_EVENTS 3u

struct ipp_percpu_plan {
	long ncpus;
	unsigned int ring_pages;	/* data pages of each CPU's sample ring */
	unsigned int sideband_pages;	/* ... of its side-band ring */
	unsigned int fast_slots;	/* the sums' fast slots (bpf/sum-rec.h) */
	unsigned int agg_keys;		/* the sums' map's keys at most */
	unsigned int events;		/* perf events opened, all CPUs */
	uint64_t ring_bytes;		/* both rings of every CPU, a header page each */
	uint64_t bpf_bytes;		/* the per-CPU arrays, allocated at the load */
	uint64_t agg_bytes;		/* the sums' map with all its keys */
	uint64_t user_bytes;		/* libperf's ring structures, resident */
	uint64_t user_vm_bytes;		/* ... their address space */
	uint64_t total_bytes;		/* rings, BPF, sums and user, each at its bound */
	uint64_t start_ns;		/* the start-up model */
};

/*
 * Return the bytes that the per-CPU structures other than the rings take at
 * most on @ncpus CPUs. Pure.
 */
uint64_t ipp_percpu__others(long ncpus);
/*
 * Return the KiB that the rings of @ncpus CPUs take at most by default:
 * what IPP_PERCPU_BUDGET_BYTES leaves after the other structures and the
 * margin, but no more than IPP_PERCPU_RINGS_MAX_KB. Pure.
 */
unsigned long long ipp_percpu__rings_kb(long ncpus);
/*
 * Fill @p with the plan for @ncpus CPUs whose rings have @ring_pages data
 * pages of @page_kb KiB, with @events perf events opened on each CPU, of
 * which @tracepoints are tracepoints and the rest software events. Pure.
 */
void ipp_percpu__plan(struct ipp_percpu_plan *p, long ncpus, unsigned int ring_pages,
		      unsigned long long page_kb, unsigned int events, unsigned int tracepoints);

#endif /* IPCPERF_PERCPU_H */
