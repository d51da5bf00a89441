/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The calls' user memory (ipcperf_session_opts.call_memory). Each thread's
 * arg record (lib/bpf/args-rec.h) is kept from its arrival until its call
 * record, which comes after it in the same ring, claims it.
 */
#ifndef IPCPERF_CALLMEM_H
#define IPCPERF_CALLMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <ipcperf/ipcperf.h>
#include "bpf/args-rec.h"

struct ipp_callmem_slot {
	pid_t tid;		/* 0: free */
	struct ipp_args_rec rec;
};

struct ipp_callmem {
	struct ipp_callmem_slot *v;
	size_t n;
};

void ipp_callmem__fini(struct ipp_callmem *m);

/*
 * Keep the arg record in @raw, @size bytes, for its thread's call. A
 * thread's latest record replaces any earlier one, whose call never came.
 * Returns the record, valid until the next call, when nothing will claim
 * it: the record of a call that does not return (IPP_ARGS_F_NORETURN), or
 * of a call already under way (IPP_ARGS_F_ENTERED: its own record comes at
 * its exit). Returns NULL otherwise. Sets @err to -EPROTO when @raw is not
 * an arg record, to -ENOMEM when out of memory, and to 0 otherwise.
 */
const struct ipp_args_rec *ipp_callmem__take(struct ipp_callmem *m, const void *raw, size_t size,
					     int *err);

/*
 * Return the arg record of thread @tid's call @nr, or NULL, and free the
 * thread's slot either way. The record stays valid until the next take.
 */
const struct ipp_args_rec *ipp_callmem__claim(struct ipp_callmem *m, pid_t tid, int nr);

/* Drop the record of thread @tid, which has gone, if it has one. */
void ipp_callmem__forget(struct ipp_callmem *m, pid_t tid);

/*
 * Store the pieces of @r in @out (at most IPP_ARGS_ITEMS) in the form the
 * public API hands them out. Returns how many there are.
 */
unsigned int ipp_callmem__pieces(const struct ipp_args_rec *r,
				 struct ipcperf_call_mem out[IPP_ARGS_ITEMS]);

#endif /* IPCPERF_CALLMEM_H */
