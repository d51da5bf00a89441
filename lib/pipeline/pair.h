/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pair.c pairs sys_enter and sys_exit into completed calls.
 */
#ifndef IPCPERF_PAIR_H
#define IPCPERF_PAIR_H

#include "internal.h"
#include "syscalls.h"

/*
 * Pairs sys_enter/sys_exit per thread into completed syscalls, and accounts
 * the time a thread spends switched out inside a call. Pure: no I/O.
 * Feed it records in timestamp order.
 */
struct ipp_pairer;
struct ipp_pairer *ipp_pairer__new(void);
void ipp_pairer__delete(struct ipp_pairer *p);

void ipp_pairer__enter(struct ipp_pairer *p, uint64_t time, pid_t pid, pid_t tid,
		       const struct ipp_scdesc *sc, int nr, const uint64_t *args,
		       unsigned int nr_args);
/*
 * Note that the thread is inside syscall @nr, as /proc said when the capture
 * started; its exit will complete a call flagged started_before_capture.
 */
void ipp_pairer__seed(struct ipp_pairer *p, uint64_t time, pid_t pid, pid_t tid,
		      const struct ipp_scdesc *sc, int nr, const uint64_t *args,
		      unsigned int nr_args);
/*
 * Returns true with @out filled when this exit completes a call of the same
 * nr on the same thread; otherwise returns false and counts an unpaired exit.
 */
bool ipp_pairer__exit(struct ipp_pairer *p, uint64_t time, pid_t pid, pid_t tid, int cpu,
		      int nr, int64_t ret, struct ipcperf_syscall *out);
/*
 * Note that the thread left the CPU (@out true; @preempted when it is still
 * runnable) or came back (@out false).
 */
void ipp_pairer__switch(struct ipp_pairer *p, uint64_t time, pid_t tid, bool out,
			bool preempted);
/* Note that the thread exited; a call still open on it becomes unpaired. */
void ipp_pairer__thread_exit(struct ipp_pairer *p, pid_t tid);
/* At the end of the capture, count every open call as unpaired. */
void ipp_pairer__flush(struct ipp_pairer *p);
/* Add @n enters whose exits will not come, counted elsewhere (the kernel's paired calls). */
void ipp_pairer__add_unpaired_enter(struct ipp_pairer *p, uint64_t n);
uint64_t ipp_pairer__unpaired_enter(const struct ipp_pairer *p);
uint64_t ipp_pairer__unpaired_exit(const struct ipp_pairer *p);

#endif /* IPCPERF_PAIR_H */
