/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What /proc says of processes and threads (proctask.c): their threads,
 * tgids, names, states, task accounting, and whether the caller may read
 * them. Below the sources and the pipeline, which all ask it.
 */
#ifndef IPCPERF_PROCTASK_H
#define IPCPERF_PROCTASK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * The fields of a /proc stat line @buf after the comm (which may hold
 * spaces and parentheses): from the state on. @return NULL: not a stat line.
 */
const char *ipp_stat_after_comm(const char *buf);
/* Every thread of process @pid from /proc. @return count (>0) or -errno (-ESRCH). */
int ipp_list_threads(pid_t pid, pid_t **tids);
/* Every process of /proc into *@pids (to free). @return their number, or -errno. */
int ipp_list_processes(pid_t **pids);
/* tgid of thread @tid from /proc, or -errno. */
pid_t ipp_tgid_of(pid_t tid);
struct ipp_task_acct;
/*
 * What the kernel has accounted to thread @tid of @pid so far, from /proc
 * (schedstat, stat, status, and sched where the kernel has it: without it
 * migrations stay as @out had them). @return 0, -ESRCH (gone), -errno.
 */
int ipp_task_acct_read(pid_t pid, pid_t tid, struct ipp_task_acct *out);
/* Thread @tid of @pid's name from /proc into @buf ("" when gone). */
void ipp_task_comm(pid_t pid, pid_t tid, char *buf, size_t len);
/* @tid is a kernel thread (it makes no system calls). */
bool ipp_is_kernel_thread(pid_t tid);
/*
 * Every one of the @n threads @tids of @pid has exited (a zombie, or dead),
 * as a process whose parent has not reaped it yet: nothing left to trace.
 */
bool ipp_all_exited(pid_t pid, const pid_t *tids, int n);
/*
 * The caller has not root's rights (its real uid is not 0, whatever its
 * effective ids and capabilities, which a setcap or setuid binary has):
 * it may see the memory of the processes it may read only.
 */
bool ipp_caller_restricted(void);
/*
 * Whether the caller may read process @pid's memory, by the kernel's own
 * test (PTRACE_MODE_READ) with the caller's real uid and gid and no
 * capability. @return 0 yes, -EACCES or -EPERM no, -ESRCH gone, -errno.
 */
int ipp_may_read_process(pid_t pid);

#endif /* IPCPERF_PROCTASK_H */
