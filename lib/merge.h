/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * merge.c: the records of several rings in timestamp order. Records are
 * copied in; ipp_merge__pop() hands out the oldest one not newer than a
 * horizon. Equal timestamps come out in push order. Pure: no I/O.
 */
#ifndef IPCPERF_MERGE_H
#define IPCPERF_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ipp_mrec {
	uint64_t time;
	uint64_t seq;		/* push order, breaks ties */
	uint32_t size;		/* bytes in data[] */
	uint32_t type;		/* PERF_RECORD_* */
	pid_t pid, tid;
	int cpu;
	uint32_t misc;		/* perf_event_header.misc */
	bool pooled;		/* a block of the merge's free list, not a malloc() of its own */
	unsigned char data[];	/* RAW bytes of a sample; body of other records */
};

struct ipp_merge;
struct ipp_merge *ipp_merge__new(void);
void ipp_merge__delete(struct ipp_merge *m);
/* Copy a record in. @return 0 or -ENOMEM. */
int ipp_merge__push(struct ipp_merge *m, uint64_t time, uint32_t type, uint32_t misc,
		    pid_t pid, pid_t tid, int cpu, const void *data, uint32_t size);
/*
 * The oldest record with time <= @horizon, or NULL. The record belongs to the
 * merge and stays valid until the next push or pop.
 */
const struct ipp_mrec *ipp_merge__pop(struct ipp_merge *m, uint64_t horizon);
size_t ipp_merge__len(const struct ipp_merge *m);

#endif /* IPCPERF_MERGE_H */
