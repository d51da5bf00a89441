/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which tasks are targets, followed from the side-band records of CPU-wide
 * events (IPCPERF_SCOPE_CPU): the rings then carry every task's records,
 * and this set, updated in timestamp order, says whose to keep. A task
 * becomes a target when a target forks it (threads too), when it execs in a
 * target process, or when it is the command whose exec the session waits
 * for; it stops being one at its exit. Per-task events follow exactly these
 * tasks: an event is inherited at fork and goes with the task's perf
 * context at exit.
 *
 * The records that say so can be lost. Nothing here may then hang or drop a
 * target's records unseen: ipp_follow__check() compares the set with /proc
 * (a zombie counts as gone, and so does what /proc no longer has), and after
 * lost side-band records ipp_follow__resolve() asks /proc whose an unknown
 * task is, remembering the answer.
 *
 * Both sets are open-addressing hashes of tid with tombstones; a table
 * doubles when three quarters full (tombstones included), so lookups stay
 * short.
 */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"
#include "pipeline/follow.h"
#include "fd/proctask.h"

#define EMPTY 0
#define GONE (-1)
/*
 * How far up the parents resolve() looks for a target before it decides a
 * process is not a target's.
 */
#define MAX_ANCESTRY 64

struct slot {
	pid_t tid;		/* EMPTY, GONE, or a tid */
	pid_t val;		/* targets: the tgid; others: enum ipp_follow_whose */
	uint64_t gone_at;	/* targets: when /proc showed it gone (0: not seen gone) */
};

struct tidtab {
	struct slot *v;
	size_t cap, used, live;	/* used: live + tombstones */
};

struct ipp_follow {
	struct tidtab targets;
	struct tidtab others;	/* tasks resolve() found not to be targets' */
	pid_t pending_exec;	/* the command: a target from its exec on */
	uint64_t start_ticks;	/* process start times (clock ticks since boot) after the capture's */
};

static size_t hash(pid_t tid, size_t cap)
{
	return ((uint32_t)tid * 2654435761u) & (cap - 1);
}

static int tab_init(struct tidtab *t)
{
	t->cap = 64;
	t->used = t->live = 0;
	t->v = calloc(t->cap, sizeof(*t->v));
	return t->v ? 0 : -ENOMEM;
}

static struct slot *tab_find(const struct tidtab *t, pid_t tid)
{
	for (size_t i = hash(tid, t->cap), n = 0; n < t->cap; i = (i + 1) & (t->cap - 1), n++) {
		if (t->v[i].tid == tid)
			return &t->v[i];
		if (t->v[i].tid == EMPTY)
			return NULL;
	}
	return NULL;
}

static int tab_put(struct tidtab *t, pid_t tid, pid_t val);

static int tab_grow(struct tidtab *t)
{
	size_t cap = t->live * 4 >= t->cap ? t->cap * 2 : t->cap;	/* else: only sweep tombstones */
	struct slot *old = t->v, *nv = calloc(cap, sizeof(*nv));
	size_t oldcap = t->cap;

	if (!nv)
		return -ENOMEM;
	t->v = nv;
	t->cap = cap;
	t->used = t->live = 0;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].tid > 0) {
			tab_put(t, old[i].tid, old[i].val);
			tab_find(t, old[i].tid)->gone_at = old[i].gone_at;
		}
	free(old);
	return 0;
}

/* Add @tid with @val; nothing happens when it is there already. Returns 0 or -ENOMEM. */
static int tab_put(struct tidtab *t, pid_t tid, pid_t val)
{
	size_t i;

	if (tab_find(t, tid))
		return 0;
	if ((t->used + 1) * 4 > t->cap * 3) {
		int err = tab_grow(t);

		if (err)
			return err;
	}
	for (i = hash(tid, t->cap); t->v[i].tid > 0; i = (i + 1) & (t->cap - 1))
		;
	if (t->v[i].tid == EMPTY)
		t->used++;
	t->v[i] = (struct slot){ .tid = tid, .val = val };
	t->live++;
	return 0;
}

static void tab_drop(struct tidtab *t, struct slot *s)
{
	s->tid = GONE;
	s->gone_at = 0;
	t->live--;
}

struct ipp_follow *ipp_follow__new(void)
{
	struct ipp_follow *f = ipp_new(sizeof(*f));

	if (!f)
		return NULL;
	if (tab_init(&f->targets) || tab_init(&f->others)) {
		ipp_follow__delete(f);
		return NULL;
	}
	return f;
}

void ipp_follow__delete(struct ipp_follow *f)
{
	if (f)
		ipp_free_all(f->targets.v, f->others.v, f);
}

int ipp_follow__add(struct ipp_follow *f, pid_t tid, pid_t tgid)
{
	if (tid <= 0)
		return -EINVAL;
	return tab_put(&f->targets, tid, tgid > 0 ? tgid : tid);
}

bool ipp_follow__has(const struct ipp_follow *f, pid_t tid)
{
	return tid > 0 && tab_find(&f->targets, tid) != NULL;
}

void ipp_follow__expect_exec(struct ipp_follow *f, pid_t pid)
{
	f->pending_exec = pid;
}

void ipp_follow__set_start(struct ipp_follow *f, uint64_t start_ticks)
{
	f->start_ticks = start_ticks;
}

int ipp_follow__fork(struct ipp_follow *f, pid_t parent_tid, pid_t child_tid, pid_t child_tgid)
{
	return ipp_follow__has(f, parent_tid) ? ipp_follow__add(f, child_tid, child_tgid) : 0;
}

/*
 * After an exec the process has one thread, the one that exec'd, with the
 * process's pid as its tid. The others exited before, and their records
 * came first, but a thread other than the leader that execs changes its
 * tid without an exit record for the old one. So when the process is a
 * target, all its threads are dropped and @tid alone is added back.
 */
int ipp_follow__exec(struct ipp_follow *f, pid_t tgid, pid_t tid)
{
	struct tidtab *t = &f->targets;
	bool ours = false;

	if (f->pending_exec > 0 && f->pending_exec == tgid) {
		f->pending_exec = 0;
		return ipp_follow__add(f, tid, tgid);
	}
	for (size_t i = 0; i < t->cap; i++)
		if (t->v[i].tid > 0 && t->v[i].val == tgid) {
			tab_drop(t, &t->v[i]);
			ours = true;
		}
	return ours ? ipp_follow__add(f, tid, tgid) : 0;
}

void ipp_follow__exit(struct ipp_follow *f, pid_t tid)
{
	struct slot *s = tid > 0 ? tab_find(&f->targets, tid) : NULL;

	/* The command died before its exec: nothing more will come. */
	if (f->pending_exec > 0 && f->pending_exec == tid)
		f->pending_exec = 0;
	if (s)
		tab_drop(&f->targets, s);
}

/* ------------------------------------------------------------------ /proc */

/* What /proc/PID/stat says of a task: its state letter, parent and start time. */
struct procstat {
	char state;
	pid_t ppid;
	uint64_t start_ticks;
};

static int read_stat(const char *path, struct procstat *ps)
{
	char buf[1024];
	const char *p;
	unsigned long long start = 0;
	int ppid = 0;
	ssize_t n;
	FILE *fp = fopen(path, "re");

	if (!fp)
		return -errno;
	n = (ssize_t)fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	/* The comm may hold spaces and parentheses: the fields start after the last ')'. */
	p = ipp_stat_after_comm(buf);
	if (!p || sscanf(p, "%c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
			 "%*d %*d %*d %*d %llu", &ps->state, &ppid, &start) != 3)
		return -EPROTO;
	ps->ppid = (pid_t)ppid;
	ps->start_ticks = start;
	return 0;
}

static int stat_of(pid_t pid, struct procstat *ps)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	return read_stat(path, ps);
}

/* Whether /proc no longer has process @tgid, or every thread of it has exited (a zombie). */
static bool process_gone(pid_t tgid)
{
	struct procstat ps;
	int err = stat_of(tgid, &ps);

	if (err)
		return err == -ENOENT || err == -ESRCH;
	return ps.state == 'Z' || ps.state == 'X';
}

/* Growable list of pids. */
struct pidlist {
	pid_t *v;
	size_t n, cap;
};

static int pl_push(struct pidlist *l, pid_t p)
{
	if (ipp_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)) < 0)
		return -ENOMEM;
	l->v[l->n++] = p;
	return 0;
}

static bool pl_has(const struct pidlist *l, pid_t p)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] == p)
			return true;
	return false;
}

/* List the distinct processes of the targets into @out. Returns 0 or -ENOMEM. */
static int target_processes(const struct ipp_follow *f, struct pidlist *out)
{
	const struct tidtab *t = &f->targets;

	for (size_t i = 0; i < t->cap; i++)
		if (t->v[i].tid > 0 && !pl_has(out, t->v[i].val) && pl_push(out, t->v[i].val) < 0)
			return -ENOMEM;
	return 0;
}

static bool is_target_process(const struct ipp_follow *f, pid_t tgid)
{
	const struct tidtab *t = &f->targets;

	if (ipp_follow__has(f, tgid))
		return true;
	for (size_t i = 0; i < t->cap; i++)
		if (t->v[i].tid > 0 && t->v[i].val == tgid)
			return true;
	return false;
}

/* Add every thread of @tgid to the targets. Returns how many were new, or -errno. */
static int adopt_process(struct ipp_follow *f, pid_t tgid)
{
	pid_t *tids = NULL;
	int n = ipp_list_threads(tgid, &tids), added = 0;

	for (int i = 0; i < n; i++) {
		if (ipp_follow__has(f, tids[i]))
			continue;
		if (ipp_follow__add(f, tids[i], tgid) < 0) {
			free(tids);
			return -ENOMEM;
		}
		added++;
	}
	free(tids);
	return n < 0 ? n : added;
}

/* Add to @out the children that /proc lists for each thread of @tgid. */
static void children_of(pid_t tgid, struct pidlist *out)
{
	pid_t *tids = NULL;
	int n = ipp_list_threads(tgid, &tids);

	for (int i = 0; i < n; i++) {
		char path[96];
		FILE *fp;
		int c;

		snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)tgid, (int)tids[i]);
		fp = fopen(path, "re");
		if (!fp)
			continue;
		while (fscanf(fp, "%d", &c) == 1)
			if (c > 0 && !pl_has(out, c))
				pl_push(out, c);
		fclose(fp);
	}
	free(tids);
}

/* Whether process @pid started after the capture did, so that a target may have made it. */
static bool started_after_capture(const struct ipp_follow *f, pid_t pid)
{
	struct procstat ps;

	return stat_of(pid, &ps) == 0 && ps.start_ticks > f->start_ticks;
}

/*
 * Add the threads and child processes of targets that the set lacks, because
 * their records were lost.
 */
static int rescan(struct ipp_follow *f)
{
	struct pidlist procs = { 0 }, kids = { 0 };
	int added = 0, err = target_processes(f, &procs);

	for (size_t i = 0; !err && i < procs.n; i++) {
		int k = adopt_process(f, procs.v[i]);

		if (k > 0)
			added += k;
		children_of(procs.v[i], &kids);
		/* A new child's own children are looked at as it joins the list. */
		for (size_t j = 0; j < kids.n; j++) {
			pid_t c = kids.v[j];

			if (pl_has(&procs, c) || !started_after_capture(f, c))
				continue;
			if ((err = pl_push(&procs, c)) < 0)
				break;
		}
		kids.n = 0;
	}
	free(procs.v);
	free(kids.v);
	return err ? err : added;
}

int ipp_follow__check(struct ipp_follow *f, uint64_t now, bool deep, bool cmd_exec_done)
{
	struct tidtab *t = &f->targets;
	struct pidlist procs = { 0 }, live = { 0 };
	int n = 0;

	if (f->pending_exec > 0 && cmd_exec_done) {
		pid_t pid = f->pending_exec;

		f->pending_exec = 0;
		if (ipp_follow__add(f, pid, pid) == 0)
			n++;
	}
	if (deep) {
		int k = rescan(f);

		if (k > 0)
			n += k;
	}
	if (target_processes(f, &procs) < 0) {
		free(procs.v);
		return -ENOMEM;
	}
	for (size_t p = 0; p < procs.n; p++) {
		pid_t tgid = procs.v[p];
		pid_t *tids = NULL;
		int k = 0;
		bool whole = process_gone(tgid);

		live.n = 0;
		if (!whole) {
			/* A thread that exited is no longer in task/ (only a leader lingers). */
			k = ipp_list_threads(tgid, &tids);
			whole = k == -ESRCH;
			for (int i = 0; i < k; i++)
				pl_push(&live, tids[i]);
			free(tids);
			if (k < 0 && !whole)
				continue;	/* cannot tell now */
		}
		for (size_t i = 0; i < t->cap; i++) {
			struct slot *s = &t->v[i];

			if (s->tid <= 0 || s->val != tgid || s->gone_at)
				continue;
			if (whole || !pl_has(&live, s->tid)) {
				s->gone_at = now ? now : 1;
				n++;
			}
		}
	}
	free(procs.v);
	free(live.v);
	return n;
}

int ipp_follow__expire(struct ipp_follow *f, uint64_t horizon)
{
	struct tidtab *t = &f->targets;
	int n = 0;

	for (size_t i = 0; i < t->cap; i++)
		if (t->v[i].tid > 0 && t->v[i].gone_at && t->v[i].gone_at <= horizon) {
			tab_drop(t, &t->v[i]);
			n++;
		}
	return n;
}

/* Whether a target is @p or among its parents, @p being a parent of the process asked about. */
static bool target_among_parents(struct ipp_follow *f, pid_t p)
{
	for (int depth = 0; depth < MAX_ANCESTRY && p > 1; depth++) {
		const struct slot *o = tab_find(&f->others, p);
		struct procstat up;

		if (is_target_process(f, p))
			return true;
		/* @p is known not to be a target's, so neither is anything it made later. */
		if (o && o->val == IPP_FOLLOW_OTHER)
			return false;
		if (stat_of(p, &up) < 0)
			return false;
		p = up.ppid;
	}
	return false;
}

static int remember(struct ipp_follow *f, pid_t tid, pid_t tgid, int whose)
{
	int err = tab_put(&f->others, tid, whose);

	if (!err && tgid > 0 && tgid != tid)
		err = tab_put(&f->others, tgid, whose);
	return err ? err : whose;
}

int ipp_follow__resolve(struct ipp_follow *f, pid_t tid, bool cmd_exec_done)
{
	const struct slot *known = tab_find(&f->others, tid);
	struct procstat ps;
	pid_t tgid;

	if (tid <= 0)
		return IPP_FOLLOW_OTHER;
	if (ipp_follow__has(f, tid))
		return IPP_FOLLOW_TARGET;
	if (known)
		return known->val;
	tgid = ipp_tgid_of(tid);
	if (tgid <= 0 || stat_of(tgid, &ps) < 0)
		/*
		 * It was gone before /proc could be asked: it may have been a
		 * target's, and nobody can say now.
		 */
		return remember(f, tid, 0, IPP_FOLLOW_UNKNOWN);
	if ((known = tab_find(&f->others, tgid)) != NULL)
		return remember(f, tid, 0, known->val);
	if (tgid == tid && tid == f->pending_exec && cmd_exec_done) {
		/* The command, whose exec record went missing. */
		f->pending_exec = 0;
		return ipp_follow__add(f, tid, tid) < 0 ? -ENOMEM : IPP_FOLLOW_TARGET;
	}
	if (is_target_process(f, tgid))
		return ipp_follow__add(f, tid, tgid) < 0 ? -ENOMEM : IPP_FOLLOW_TARGET;
	/* A process made during the capture is a target's if a target is among its parents. */
	if (ps.start_ticks > f->start_ticks && target_among_parents(f, ps.ppid)) {
		if (ipp_follow__add(f, tid, tgid) < 0 || adopt_process(f, tgid) == -ENOMEM)
			return -ENOMEM;
		return IPP_FOLLOW_TARGET;
	}
	/* Started in the clock tick the capture started in: before or after, nobody can say. */
	if (ps.start_ticks == f->start_ticks)
		return remember(f, tid, tgid, IPP_FOLLOW_UNKNOWN);
	return remember(f, tid, tgid, IPP_FOLLOW_OTHER);
}

bool ipp_follow__done(const struct ipp_follow *f)
{
	return f->targets.live == 0 && f->pending_exec <= 0;
}

size_t ipp_follow__count(const struct ipp_follow *f)
{
	return f->targets.live;
}
