/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The task record of the BPF programs (on_fork and on_exit in fdid.bpf.c,
 * call_exec in calls.bpf.c): a target's fork, exec or exit, with what the
 * sched_process_fork/exec/exit tracepoints give, in their place when the
 * calls are paired in the kernel (their perf events are then not opened:
 * closing each costs an RCU grace period). Its decoder is task-rec.c. Both
 * sides include it.
 */
#ifndef IPCPERF_TASK_REC_H
#define IPCPERF_TASK_REC_H

#include "krec.h"

/* The record's sub byte: what happened (the values of enum ipcperf_task_kind). */
enum ipp_task_rec_kind {
	IPP_TASK_REC_FORK = 0,	/* tid made child_tid (a thread or a process); comm: the child's */
	IPP_TASK_REC_EXEC = 1,	/* tid executed filename */
	IPP_TASK_REC_EXIT = 2,	/* tid exited; comm: its */
};

#define IPP_TASK_REC_FILENAME 256	/* as the decoder keeps the tracepoint's (decode.h) */

/* flags */
#define IPP_TASK_REC_F_CODE 0x1	/* EXIT: exit_code is the thread's (records before it: 0, unknown) */
/*
 * EXEC, restricted sessions only (common.bpf.h): the program it executed
 * left the task one the caller may not read (set-user-ID, set-group-ID,
 * file capabilities): it is no target from here on, its last record.
 */
#define IPP_TASK_REC_F_LEFT 0x2

/*
 * pid and tid: the thread it happened in (of a fork, the parent; of an
 * exec, the thread that now has the process's tid). Fixed size.
 */
struct ipp_task_rec {
	IPP_KREC_HDR(kind);	/* what: IPP_FDID_TASK; kind: enum ipp_task_rec_kind; flags IPP_TASK_REC_F_* */
	__s32 child_tid;	/* FORK */
	__s32 exit_code;	/* EXIT, with IPP_TASK_REC_F_CODE: the kernel's, a wait(2) status */
	char comm[16];		/* FORK: the child's; EXIT: the thread's; EXEC: empty */
	char filename[IPP_TASK_REC_FILENAME];	/* EXEC, NUL-terminated */
};
#define IPP_TASK_REC_SIZE 296
_Static_assert(sizeof(struct ipp_task_rec) == IPP_TASK_REC_SIZE, "the task record's size");

#ifndef __bpf__
/* ---------------------------------------------------------------- userspace: lib/bpf/task-rec.c */
#include <stddef.h>

/*
 * Check the RAW data of one bpf-output sample that holds a task record
 * (IPP_FDID_TASK) and copy it into @out, comm and filename NUL-terminated.
 * Pure. Returns 0, -ENOTSUP for another version, or -EPROTO when it is not
 * a task record, is too short or gives an unknown kind.
 */
int ipp_task_rec__parse(const void *raw, size_t size, struct ipp_task_rec *out);

#endif

#endif /* IPCPERF_TASK_REC_H */
