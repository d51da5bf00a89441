/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The calls' user memory (ipcperf_session_opts.call_memory): each thread's
 * arg record (lib/bpf/args-rec.h), kept from its arrival until its call
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
 * Keep the arg record in @raw, @size bytes, for its thread's call (its
 * last one replaces any earlier it has, whose call never came).
 * @return the record when it is one nothing will claim (valid until the
 *   next call): of a call that does not return (IPP_ARGS_F_NORETURN), or of
 *   a call under way (IPP_ARGS_F_ENTERED: its own comes at its exit); NULL
 *   otherwise, or when it was not an arg record (@err -EPROTO) or out of
 *   memory (-ENOMEM). @err is 0 otherwise.
 */
const struct ipp_args_rec *ipp_callmem__take(struct ipp_callmem *m, const void *raw, size_t size,
					     int *err);

/* The arg record of thread @tid's call @nr, and its slot is free: valid until the next take. */
const struct ipp_args_rec *ipp_callmem__claim(struct ipp_callmem *m, pid_t tid, int nr);

/* Thread @tid has gone: its record, if any, is dropped. */
void ipp_callmem__forget(struct ipp_callmem *m, pid_t tid);

/* The pieces of @r as the public API hands them, into @out (IPP_ARGS_ITEMS). @return how many. */
unsigned int ipp_callmem__pieces(const struct ipp_args_rec *r,
				 struct ipcperf_call_mem out[IPP_ARGS_ITEMS]);

#endif /* IPCPERF_CALLMEM_H */
