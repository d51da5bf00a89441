/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which tasks are targets, followed from the side-band records of CPU-wide
 * events (IPCPERF_SCOPE_CPU): the rings then carry every task's records,
 * and this set, updated in timestamp order, says whose to keep. A task
 * becomes a target when a target forks it (threads too), when it execs in a
 * target process, or when it is the command whose exec we wait for; it stops
 * being one at its exit. Per-task events follow exactly these tasks: an
 * event is inherited at fork and goes with the task's perf context at exit.
 *
 * An open-addressing hash of tid -> tgid with tombstones; the table doubles
 * when three quarters full (tombstones included), so lookups stay short.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"

#define EMPTY 0
#define GONE (-1)

struct slot {
	pid_t tid;	/* EMPTY, GONE, or a tid */
	pid_t tgid;
};

struct ipp_follow {
	struct slot *v;
	size_t cap, used, live;	/* used: live + tombstones */
	pid_t pending_exec;	/* the command: a target from its exec on */
};

static size_t hash(pid_t tid, size_t cap)
{
	return ((uint32_t)tid * 2654435761u) & (cap - 1);
}

struct ipp_follow *ipp_follow__new(void)
{
	struct ipp_follow *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->cap = 64;
	f->v = calloc(f->cap, sizeof(*f->v));
	if (!f->v) {
		free(f);
		return NULL;
	}
	return f;
}

void ipp_follow__delete(struct ipp_follow *f)
{
	if (!f)
		return;
	free(f->v);
	free(f);
}

static struct slot *find(const struct ipp_follow *f, pid_t tid)
{
	for (size_t i = hash(tid, f->cap), n = 0; n < f->cap; i = (i + 1) & (f->cap - 1), n++) {
		if (f->v[i].tid == tid)
			return &f->v[i];
		if (f->v[i].tid == EMPTY)
			return NULL;
	}
	return NULL;
}

static int grow(struct ipp_follow *f)
{
	size_t cap = f->live * 4 >= f->cap ? f->cap * 2 : f->cap;	/* else: only sweep tombstones */
	struct slot *old = f->v, *nv = calloc(cap, sizeof(*nv));
	size_t oldcap = f->cap;

	if (!nv)
		return -ENOMEM;
	f->v = nv;
	f->cap = cap;
	f->used = f->live = 0;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].tid > 0)
			ipp_follow__add(f, old[i].tid, old[i].tgid);
	free(old);
	return 0;
}

int ipp_follow__add(struct ipp_follow *f, pid_t tid, pid_t tgid)
{
	size_t i;

	if (tid <= 0)
		return -EINVAL;
	if (find(f, tid))
		return 0;
	if ((f->used + 1) * 4 > f->cap * 3) {
		int err = grow(f);

		if (err)
			return err;
	}
	for (i = hash(tid, f->cap); f->v[i].tid > 0; i = (i + 1) & (f->cap - 1))
		;
	if (f->v[i].tid == EMPTY)
		f->used++;
	f->v[i].tid = tid;
	f->v[i].tgid = tgid > 0 ? tgid : tid;
	f->live++;
	return 0;
}

bool ipp_follow__has(const struct ipp_follow *f, pid_t tid)
{
	return tid > 0 && find(f, tid) != NULL;
}

void ipp_follow__expect_exec(struct ipp_follow *f, pid_t pid)
{
	f->pending_exec = pid;
}

int ipp_follow__fork(struct ipp_follow *f, pid_t parent_tid, pid_t child_tid, pid_t child_tgid)
{
	return ipp_follow__has(f, parent_tid) ? ipp_follow__add(f, child_tid, child_tgid) : 0;
}

/*
 * After an exec the process has one thread, the one that exec'd, with the
 * process's pid as its tid: the others exited before (their records came
 * first), but a thread other than the leader that execs changes its tid
 * without an exit record for the old one.
 */
int ipp_follow__exec(struct ipp_follow *f, pid_t tgid, pid_t tid)
{
	bool ours = false;

	if (f->pending_exec > 0 && f->pending_exec == tgid) {
		f->pending_exec = 0;
		return ipp_follow__add(f, tid, tgid);
	}
	for (size_t i = 0; i < f->cap; i++)
		if (f->v[i].tid > 0 && f->v[i].tgid == tgid) {
			f->v[i].tid = GONE;
			f->live--;
			ours = true;
		}
	return ours ? ipp_follow__add(f, tid, tgid) : 0;
}

void ipp_follow__exit(struct ipp_follow *f, pid_t tid)
{
	struct slot *s = tid > 0 ? find(f, tid) : NULL;

	/* The command died before its exec: nothing more will come. */
	if (f->pending_exec > 0 && f->pending_exec == tid)
		f->pending_exec = 0;
	if (!s)
		return;
	s->tid = GONE;
	f->live--;
}

/*
 * Has the task exited? Gone from /proc, or a zombie: the command is our
 * child and stays one until the session reaps it, after done() (which
 * would never come if its exit record was lost).
 */
static bool task_exited(pid_t tgid, pid_t tid)
{
	char path[64], buf[512];
	const char *paren;
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)tgid, (int)tid);
	fp = fopen(path, "re");
	if (!fp)
		return errno == ENOENT || errno == ESRCH;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	/* "tid (comm) S ...": comm may hold anything, ")" too; the state follows the last. */
	paren = strrchr(buf, ')');
	if (!paren)
		return n == 0;	/* read as the task went */
	return paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X' || paren[2] == 'x');
}

int ipp_follow__prune(struct ipp_follow *f, bool cmd_exec_done)
{
	int n = 0;

	for (size_t i = 0; i < f->cap; i++) {
		if (f->v[i].tid <= 0)
			continue;
		if (task_exited(f->v[i].tgid, f->v[i].tid)) {
			f->v[i].tid = GONE;
			f->live--;
			n++;
		}
	}
	if (f->pending_exec > 0 && cmd_exec_done) {
		pid_t pid = f->pending_exec;

		f->pending_exec = 0;
		if (ipp_follow__add(f, pid, pid) == 0)
			n++;
	}
	return n;
}

bool ipp_follow__done(const struct ipp_follow *f)
{
	return f->live == 0 && f->pending_exec <= 0;
}

size_t ipp_follow__count(const struct ipp_follow *f)
{
	return f->live;
}
