/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Targets (targets.c): the threads of existing processes and what /proc
 * says of them; a command started corked (cmd.c); the ring size a session
 * takes (rings-targets.c).
 */
#ifndef IPCPERF_TARGETS_H
#define IPCPERF_TARGETS_H

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

/*
 * The ring size a session takes when it is given none (ring_pages 0): the
 * largest power of two up to IPP_RING_PAGES_MAX_DEFAULT pages per CPU
 * whose rings (data and side-band, per online CPU) this process may lock
 * (perf_event_mlock_kb per CPU plus RLIMIT_MEMLOCK; anything with
 * CAP_IPC_LOCK, root's, or perf_event_paranoid -1) and the per-CPU budget
 * leaves the rings on that many CPUs (ipp_percpu__rings_kb(): 40 MiB in
 * all up to 2 CPUs, less on many). At least 1.
 */
#define IPP_RING_PAGES_MAX_DEFAULT 8192u	/* 32 MiB of 4 KiB pages */
unsigned int ipp_default_ring_pages(void);
/* The same for a lock budget of @budget_kb KiB, @ncpus CPUs, pages of @page_kb KiB. */
unsigned int ipp_ring_pages_fit(unsigned long long budget_kb, long ncpus, unsigned long long page_kb);

/* A command forked and held before exec until released. */
struct ipp_cmd {
	pid_t pid;
	int go_fd;	/* parent writes here to release the child */
	int err_fd;	/* child reports exec's errno here; EOF means exec happened */
	bool started;
	bool reaped;
	int status;
};
int ipp_cmd__fork(struct ipp_cmd *c, char *const *argv);
/* Release the child; @return 0 once it exec'd, -errno of a failed exec. */
int ipp_cmd__release(struct ipp_cmd *c);
/* Kill (if never started) and reap. */
void ipp_cmd__abort(struct ipp_cmd *c);
int ipp_cmd__wait(struct ipp_cmd *c, int *status);

#endif /* IPCPERF_TARGETS_H */
