/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Every call, with what its fds are (ipcperf_stats__on_every_call()): the
 * fd it used, as it was at the call (close: what it closed), and the fds it
 * made. A call waits, in the order calls came, until all of that is
 * settled (fdtable.h): for a call the kernel may still describe, until the
 * thread's next call, or until the events are IPP_LATE_WORD_NS past its exit.
 * The signals and exits of the targets (ipcperf_stats__on_every_signal(),
 * __on_every_exit()) wait in the same queue, so that each comes in its place
 * among the calls.
 */
#ifndef IPCPERF_CALLFDS_H
#define IPCPERF_CALLFDS_H

#include <stdbool.h>
#include <stddef.h>
#include <ipcperf/ipcperf.h>
#include "fd/fdtable.h"

/* Most new fds of one call told (a recvmsg may carry more: the first ones). */
#define IPP_CALL_MADE 8

/* What an entry of the queue is. */
enum ipp_callfds_kind {
	IPP_CALLFDS_CALL = 0,		/* a call: ev */
	IPP_CALLFDS_SIGNAL,		/* a signal delivered: sig */
	IPP_CALLFDS_EXIT,		/* a thread's exit: task, its comm in comm */
	IPP_CALLFDS_ENTERED,		/* a call under way: ev, its fd and out_fd (arg_inc, out_inc) */
};

struct ipp_callfds_call {
	enum ipp_callfds_kind kind;
	struct ipcperf_syscall ev;
	long arg_inc;			/* the incarnation of ev.fd at the call; -1: none */
	long out_inc;			/* a move's: the incarnation of ev.out_fd; -1: none */
	unsigned int nr_made;
	int made_fd[IPP_CALL_MADE];
	long made_inc[IPP_CALL_MADE];
	bool await_words;		/* the kernel's words on its new fds may still come */
	void *mem;			/* ev.mem and its bytes, a copy owned here (one block) */
	struct ipcperf_signal sig;
	struct ipcperf_task task;
	char comm[IPCPERF_COMM_LEN];
};

typedef void (*ipp_callfds_fn)(void *ctx, const struct ipcperf_syscall *ev,
			       const struct ipcperf_call_fds *fds);

struct ipp_callfds {
	const struct ipp_fdtab *t;
	struct ipp_callfds_call *v;	/* a ring, oldest at head */
	size_t head, len, cap;
	/* where each kind goes, in order (NULL: that kind is not queued) */
	ipp_callfds_fn call_cb;
	void *call_ctx;
	void (*signal_cb)(void *ctx, const struct ipcperf_signal *ev);
	void *signal_ctx;
	void (*exit_cb)(void *ctx, const struct ipcperf_task *ev);
	void *exit_ctx;
	ipp_callfds_fn entered_cb;
	void *entered_ctx;
};

void ipp_callfds__init(struct ipp_callfds *q, const struct ipp_fdtab *t);
void ipp_callfds__fini(struct ipp_callfds *q);
/* Before the table takes @ev: what its fd is at the call. */
long ipp_callfds__arg_inc(struct ipp_fdtab *t, const struct ipcperf_syscall *ev);
/*
 * After the table took @ev (@data_inc: what ipp_fdtab__syscall() returned):
 * queue it with @arg_inc and the fds it made. @return 0 or -ENOMEM (dropped).
 */
int ipp_callfds__push(struct ipp_callfds *q, struct ipp_fdtab *t, const struct ipcperf_syscall *ev,
		      long arg_inc, long data_inc);
/* Queue signal @ev, or exit @ev, behind the calls before it (@q's signal_cb, exit_cb). @return 0, -ENOMEM. */
int ipp_callfds__push_signal(struct ipp_callfds *q, const struct ipcperf_signal *ev);
int ipp_callfds__push_exit(struct ipp_callfds *q, const struct ipcperf_task *ev);
/* Queue call @ev under way (@q's entered_cb), with what its fds are now in @t. @return 0, -ENOMEM. */
int ipp_callfds__push_entered(struct ipp_callfds *q, struct ipp_fdtab *t,
			      const struct ipcperf_syscall *ev);
/* The kernel's word on a new fd of the thread's last call, taken after its exit. */
void ipp_callfds__late_word(struct ipp_callfds *q, struct ipp_fdtab *t,
			    const struct ipcperf_fd_open *ev);
/* Hand the entries at the front that are settled to their callbacks, in order; @final: all of them. */
void ipp_callfds__drain(struct ipp_callfds *q, bool final);

#endif
