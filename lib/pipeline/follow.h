/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * follow.c: the target tasks of a CPU-scope session.
 */
#ifndef IPCPERF_FOLLOW_H
#define IPCPERF_FOLLOW_H

#include "internal.h"

/*
 * The target tasks of a CPU-scope session, kept up to date from fork, exec
 * and exit records in timestamp order: whose records to keep.
 */
struct ipp_follow;
struct ipp_follow *ipp_follow__new(void);
void ipp_follow__delete(struct ipp_follow *f);
/* @return 0 or -ENOMEM; adding a tid already there is a no-op. */
int ipp_follow__add(struct ipp_follow *f, pid_t tid, pid_t tgid);
bool ipp_follow__has(const struct ipp_follow *f, pid_t tid);
/* The command @pid becomes a target at its exec (not before). */
void ipp_follow__expect_exec(struct ipp_follow *f, pid_t pid);
/* A target's child (process or thread) is a target. */
int ipp_follow__fork(struct ipp_follow *f, pid_t parent_tid, pid_t child_tid, pid_t child_tgid);
/* Process @tgid exec'd in thread @tid (which now has the tgid as its tid). */
int ipp_follow__exec(struct ipp_follow *f, pid_t tgid, pid_t tid);
void ipp_follow__exit(struct ipp_follow *f, pid_t tid);
/*
 * Process start times (clock ticks since boot, /proc/PID/stat) after
 * @start_ticks are the capture's own: resolve() may take such a process
 * for a target's child. 0 (a command's session): every process is.
 */
void ipp_follow__set_start(struct ipp_follow *f, uint64_t start_ticks);
/*
 * Compare the targets with /proc at @now (CLOCK_MONOTONIC ns): a task that
 * /proc no longer has, or whose process is a zombie, is marked gone at @now
 * but stays a target until ipp_follow__expire() passes @now, so that the
 * records it made before are still kept. With @deep (side-band records were
 * lost), threads and child processes of targets that the set lacks are
 * added. With @cmd_exec_done, the command is taken as exec'd.
 * @return how many tasks were marked or added, or -ENOMEM.
 */
int ipp_follow__check(struct ipp_follow *f, uint64_t now, bool deep, bool cmd_exec_done);
/* Drop the tasks marked gone at or before @horizon. @return how many. */
int ipp_follow__expire(struct ipp_follow *f, uint64_t horizon);
enum ipp_follow_whose {
	IPP_FOLLOW_OTHER = 0,	/* not a target's: its records are foreign */
	IPP_FOLLOW_TARGET = 1,	/* a target's (it is one now) */
	IPP_FOLLOW_UNKNOWN = 2,	/* gone before /proc could say: its records may be a target's */
};
/*
 * Whose task @tid, not in the set, is, from /proc (after lost side-band
 * records, when its fork may be among them): a thread of a target process,
 * or a process made during the capture with a target among its parents, is
 * added. Answers are remembered. @return enum ipp_follow_whose, or -ENOMEM.
 */
int ipp_follow__resolve(struct ipp_follow *f, pid_t tid, bool cmd_exec_done);
/* No target left, and no command waiting for its exec. */
bool ipp_follow__done(const struct ipp_follow *f);
size_t ipp_follow__count(const struct ipp_follow *f);

#endif /* IPCPERF_FOLLOW_H */
