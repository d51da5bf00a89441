/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * chains.c: the flows' processes as a graph (writer -> reader): where each
 * flow sits along its chain, and which processes the chains wait on.
 *
 * A flow's stage is its writers' depth: 0 for a process that reads no
 * traced flow, else one more than the deepest writer feeding it (a cycle,
 * such as a client and a server talking both ways, is cut at its smallest
 * pid). A process is a bottleneck when a flow into it is held back
 * (backpressure: its writer waits on it) or a flow out of it starves
 * (consumer-starved: its reader waits on it), and it is not itself waiting:
 * no flow into it starves and no flow out of it is held back. Only a
 * clear verdict holds back or starves; a marginal one (near its line)
 * still counts as its process waiting, so that a flow that flips from one
 * run to the next names nobody.
 *
 * Pure: no I/O; it allocates only for the call.
 */
#ifndef IPCPERF_CHAINS_H
#define IPCPERF_CHAINS_H

#include "internal.h"

/* What the chains need of one flow. */
struct ipp_chain_flow {
	const pid_t *writers, *readers;	/* ascending */
	size_t nr_writers, nr_readers;
	enum ipcperf_verdict verdict;
	/* near its line: the verdict it points to (ipcperf_flow.marginal); BALANCED: clear */
	enum ipcperf_verdict marginal;
	uint64_t writer_blocked_ns, reader_blocked_ns;
	bool by_queue;			/* the verdict from the queue residence */
	uint64_t wire_p50;		/* the median wire time, the bytes' wait then */
};

/* The stage of each of the @n flows of @v into @stage. @return 0 or -ENOMEM. */
int ipp_chains__stages(const struct ipp_chain_flow *v, size_t n, unsigned *stage);

/*
 * Call @cb for each bottleneck of the @n flows of @v, by stage (of the
 * process: its depth), then pid; stop at the first non-zero return and return it.
 * @return 0, what @cb returned, or -ENOMEM.
 */
int ipp_chains__bottlenecks(const struct ipp_chain_flow *v, size_t n,
			    int (*cb)(void *ctx, const struct ipcperf_bottleneck *b), void *ctx);

#endif
