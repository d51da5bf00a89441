/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * follow.c keeps the set of target tasks of a CPU-scope session.
 */
#ifndef IPCPERF_FOLLOW_H
#define IPCPERF_FOLLOW_H

#include "internal.h"

/*
 * The target tasks of a CPU-scope session, whose records are kept. The set
 * is kept up to date from fork, exec and exit records in timestamp order.
 */
struct ipp_follow;
struct ipp_follow *ipp_follow__new(void);
void ipp_follow__delete(struct ipp_follow *f);
/*
 * Add thread @tid of process @tgid. Returns 0 or -ENOMEM; adding a tid already
 * there does nothing.
 */
int ipp_follow__add(struct ipp_follow *f, pid_t tid, pid_t tgid);
bool ipp_follow__has(const struct ipp_follow *f, pid_t tid);
/* Make the command @pid a target at its exec, not before. */
void ipp_follow__expect_exec(struct ipp_follow *f, pid_t pid);
/* Add the child (process or thread) if its parent is a target. */
int ipp_follow__fork(struct ipp_follow *f, pid_t parent_tid, pid_t child_tid, pid_t child_tgid);
/* Note that process @tgid exec'd in thread @tid, which now has the tgid as its tid. */
int ipp_follow__exec(struct ipp_follow *f, pid_t tgid, pid_t tid);
void ipp_follow__exit(struct ipp_follow *f, pid_t tid);
/*
 * Processes that started after @start_ticks (clock ticks since boot, as in
 * /proc/PID/stat) were started during the capture, so resolve() may take
 * such a process for a target's child. With 0, as in a command's session,
 * every process counts as started during the capture.
 */
void ipp_follow__set_start(struct ipp_follow *f, uint64_t start_ticks);
/*
 * Compare the targets with /proc at @now (CLOCK_MONOTONIC ns): a task that
 * /proc no longer has, or whose process is a zombie, is marked gone at @now
 * but stays a target until ipp_follow__expire() passes @now, so that the
 * records it made before are still kept. With @deep (side-band records were
 * lost), threads and child processes of targets that the set lacks are
 * added. With @cmd_exec_done, the command is taken as exec'd.
 * Returns how many tasks were marked or added, or -ENOMEM.
 */
int ipp_follow__check(struct ipp_follow *f, uint64_t now, bool deep, bool cmd_exec_done);
/* Drop the tasks marked gone at or before @horizon. Returns how many were dropped. */
int ipp_follow__expire(struct ipp_follow *f, uint64_t horizon);
enum ipp_follow_whose {
	IPP_FOLLOW_OTHER = 0,	/* not a target's: its records are foreign */
	IPP_FOLLOW_TARGET = 1,	/* a target's (it is one now) */
	IPP_FOLLOW_UNKNOWN = 2,	/* gone before /proc could say: its records may be a target's */
};
/*
 * Ask /proc whose task @tid is, when it is not in the set; this is for
 * after lost side-band records, when its fork may have been among them. A
 * thread of a target process, or a process started during the capture with
 * a target among its parents, is added. Answers are remembered. Returns an
 * enum ipp_follow_whose, or -ENOMEM.
 */
int ipp_follow__resolve(struct ipp_follow *f, pid_t tid, bool cmd_exec_done);
/* Whether no target is left and no command is waiting for its exec. */
bool ipp_follow__done(const struct ipp_follow *f);
size_t ipp_follow__count(const struct ipp_follow *f);

#endif /* IPCPERF_FOLLOW_H */
