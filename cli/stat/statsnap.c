/*
 * stat's snapshots: the accounting read into rows, the counters and their
 * deltas, and thread names.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "statsnap.h"

/* ------------------------------------------------------------------ thread names */

/* Compare a pid_t key with an element that starts with one (thread_name, proc_snap). */
static int cmp_pid_key(const void *key, const void *elem)
{
	pid_t a = *(const pid_t *)key, b = *(const pid_t *)elem;

	return a < b ? -1 : a > b;
}

static void thread_names_set(struct thread_names *tn, pid_t tid, const char *comm)
{
	struct thread_name *t;
	size_t i;

	if (!comm || !*comm)
		return;
	if (cli_bsearch(&tid, tn->v, tn->n, sizeof(*tn->v), cmp_pid_key, &i)) {
		t = &tn->v[i];
	} else {
		if (cli_grow((void **)&tn->v, &tn->cap, tn->n + 1, sizeof(*tn->v)) < 0)
			return;	/* the table falls back to the process's name */
		t = cli_insert_at(tn->v, tn->n++, sizeof(*t), i);
		t->tid = tid;
	}
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
}

const char *thread_names_get(const struct thread_names *tn, pid_t tid)
{
	size_t i;

	if (cli_bsearch(&tid, tn->v, tn->n, sizeof(*tn->v), cmp_pid_key, &i))
		return tn->v[i].comm;
	return NULL;
}

/*
 * A thread's name changes at exec and with prctl(PR_SET_NAME), so its last
 * switch-out has the latest.
 */
static void names_on_switch(void *ctx, const struct ipcperf_switch *ev)
{
	thread_names_set(ctx, ev->tid, ev->prev_comm);
}

/*
 * Keep a thread's name as the kernel had it at its exit or when first counted,
 * but not over a newer one.
 */
static void names_on_totals(void *ctx, const struct ipcperf_sched_totals *ev)
{
	if (!thread_names_get(ctx, ev->tid))
		thread_names_set(ctx, ev->tid, ev->comm);
}

static void names_on_task(void *ctx, const struct ipcperf_task *ev)
{
	thread_names_set(ctx, ev->kind == IPCPERF_TASK_FORK ? ev->child_tid : ev->tid, ev->comm);
}

void thread_names_handlers(struct thread_names *tn, struct ipcperf_handlers *h)
{
	*h = (struct ipcperf_handlers){ .sz = sizeof(*h), .ctx = tn, .sched_switch = names_on_switch,
					.task = names_on_task, .sched_totals = names_on_totals };
}

void thread_names_free(struct thread_names *tn)
{
	free(tn->v);
	*tn = (struct thread_names){ 0 };
}

/* ------------------------------------------------------------------ snapshots */

static void fd_snap_free(struct fd_snap *f)
{
	free(f->object);
	free(f->detail);
	free(f->peer_comm);
	free(f->endpoint);
}

/* The @n rows of @v (a process's fds or its groups), and @v. */
static void fd_snaps_free(struct fd_snap *v, size_t n)
{
	for (size_t k = 0; k < n; k++)
		fd_snap_free(&v[k]);
	free(v);
}

static void proc_snap_free(struct proc_snap *p)
{
	fd_snaps_free(p->fds, p->nr_fds);
	fd_snaps_free(p->groups, p->nr_groups);
	sc_rows_free(&p->scs);
	free(p->comm);
}

void snap_free(struct snap *sn)
{
	for (size_t i = 0; i < sn->nr_procs; i++)
		proc_snap_free(&sn->procs[i]);
	free(sn->procs);
	sn->procs = NULL;
	sn->nr_procs = sn->cap_procs = 0;
	sc_rows_free(&sn->total_scs);
}

/* Return the process @pid of @sn, inserted in pid order if new, or NULL when out of memory. */
static struct proc_snap *snap_proc(struct snap *sn, pid_t pid)
{
	size_t n = sn->nr_procs, at;
	struct proc_snap *p;

	/* Rows come in pid order, so the last one is the usual hit. */
	if (n && sn->procs[n - 1].pid == pid)
		return &sn->procs[n - 1];
	if (cli_bsearch(&pid, sn->procs, n, sizeof(*sn->procs), cmp_pid_key, &at))
		return &sn->procs[at];
	if (cli_grow((void **)&sn->procs, &sn->cap_procs, n + 1, sizeof(*sn->procs)) < 0) {
		sn->oom = true;
		return NULL;
	}
	p = cli_insert_at(sn->procs, sn->nr_procs++, sizeof(*p), at);
	p->pid = pid;
	return p;
}

static char *xstrdup_or(const char *s, const char *dflt, struct snap *sn)
{
	char *c = strdup(s ? s : dflt);

	if (!c)
		sn->oom = true;
	return c;
}

static int on_proc_row(void *ctx, const struct ipcperf_proc_row *row)
{
	struct snap *sn = ctx;
	struct proc_snap *p = snap_proc(sn, row->pid);

	if (!p)
		return -ENOMEM;
	free(p->comm);
	p->comm = xstrdup_or(row->comm, "", sn);
	p->voluntary = row->voluntary_cs;
	p->involuntary = row->involuntary_cs;
	p->wakeups = row->wakeups;
	p->migrations = row->migrations;
	p->syscalls = row->syscalls;
	p->threads = row->threads;
	p->uring_unaccounted = row->uring_unaccounted;
	p->left_ns = row->left_ns;
	p->exited = row->exited;
	p->folded = row->folded;
	return 0;
}

/*
 * A new row, zeroed, at the end of process @pid's fd rows (@group: its
 * groups); NULL when out of memory (sn->oom). The arrays start from 4:
 * thousands of exited processes have a few rows each.
 */
static struct fd_snap *snap_fd_add(struct snap *sn, pid_t pid, bool group)
{
	struct proc_snap *p = snap_proc(sn, pid);
	struct fd_snap **v;
	size_t *n;

	if (!p)
		return NULL;
	v = group ? &p->groups : &p->fds;
	n = group ? &p->nr_groups : &p->nr_fds;
	if (cli_grow_from(4, (void **)v, group ? &p->cap_groups : &p->cap_fds, *n + 1,
			  sizeof(**v)) < 0) {
		sn->oom = true;
		return NULL;
	}
	memset(&(*v)[*n], 0, sizeof(**v));
	return &(*v)[(*n)++];
}

/*
 * Group @g into @sn: of its process's groups (@group), else its fds (a
 * fold of closed connections when @folded).
 */
static int snap_fd_put(struct snap *sn, const struct ipcperf_fd_group *g, bool group, bool folded)
{
	struct fd_snap *f = snap_fd_add(sn, g->pid, group);

	if (!f)
		return -ENOMEM;
	*f = (struct fd_snap){
		.fd = g->fd, .kind = g->kind, .read = g->read, .write = g->write,
		.peer_pid = g->peer_pid, .conns = g->conns, .role = g->role, .by_ports = g->by_ports,
		.read_moved = g->read_moved, .write_moved = g->write_moved, .folded = folded,
	};
	f->object = xstrdup_or(g->object, "", sn);
	f->detail = xstrdup_or(g->detail, "", sn);
	f->peer_comm = xstrdup_or(g->peer_comm, "", sn);
	f->endpoint = xstrdup_or(g->endpoint, "", sn);
	return 0;
}

/*
 * An fd row: a group of its one connection, named by its object; or a
 * fold of closed connections (ipcperf_stats__for_each_fd_fold()), named
 * as its group.
 */
static int on_fd_row(void *ctx, const struct ipcperf_fd_row *row)
{
	const char *object = row->object ? row->object : "unknown";
	const struct ipcperf_fd_group g = {
		.pid = row->pid, .fd = row->fd, .kind = row->kind, .object = object,
		.detail = row->detail, .read = row->read, .write = row->write,
		.peer_pid = row->peer_pid, .peer_comm = row->peer_comm,
		.conns = row->folded ? row->folded : 1,
		.role = row->folded ? row->group_role : IPCPERF_GROUP_ONE,
		.endpoint = row->folded ? row->group_endpoint : object,
		.read_moved = row->read_moved, .write_moved = row->write_moved,
	};

	return snap_fd_put(ctx, &g, false, row->folded != 0);
}

static int on_group(void *ctx, const struct ipcperf_fd_group *g)
{
	return snap_fd_put(ctx, g, true, false);
}

static int on_syscall_row(void *ctx, const struct ipcperf_syscall_row *row)
{
	struct snap *sn = ctx;
	struct proc_snap *p = snap_proc(sn, row->pid);

	if (p)
		p->scs.hists = sn->total_scs.hists;	/* --total merges them */
	if (!p || sc_rows_add(&p->scs, row) < 0) {
		sn->oom = true;
		return -ENOMEM;
	}
	return 0;
}

static bool io_active(const struct ipcperf_io *io)
{
	return io->ops || io->errors || io->msgs;
}

bool fd_active(const struct fd_snap *f)
{
	return io_active(&f->read) || io_active(&f->write);
}

bool proc_active(const struct proc_snap *p)
{
	for (size_t i = 0; i < p->nr_fds; i++)
		if (fd_active(&p->fds[i]))
			return true;
	/* The rows of closed connections may be only in their groups (fold_conns). */
	for (size_t i = 0; i < p->nr_groups; i++)
		if (fd_active(&p->groups[i]))
			return true;
	return p->syscalls || p->voluntary || p->involuntary || p->wakeups || p->migrations;
}

static uint64_t fd_key(const struct fd_snap *f, enum stat_sort k)
{
	switch (k) {
	case SORT_OPS:
		return f->read.ops + f->write.ops;
	case SORT_TIME:
		return f->read.time_ns + f->write.time_ns;
	case SORT_BYTES:
	default:
		return f->read.bytes + f->write.bytes;
	}
}

static int cmp_fd(const void *a, const void *b, void *arg)
{
	const struct fd_snap *x = a, *y = b;
	enum stat_sort k = *(const enum stat_sort *)arg;
	uint64_t kx = fd_key(x, k), ky = fd_key(y, k);

	if (kx != ky)
		return kx > ky ? -1 : 1;	/* descending */
	return x->fd < y->fd ? -1 : x->fd > y->fd;
}

/* Attach the counters of the target processes to their rows (made if new). */
static int snap_counters(struct snap *sn, const struct cnt_target *cts, size_t nr, bool interval)
{
	for (size_t i = 0; i < nr; i++) {
		const struct cnt_target *ct = &cts[i];
		const struct cnt_set *set = interval ? &ct->delta : &ct->cur;
		struct proc_snap *p;

		if (!set->valid)
			continue;
		p = snap_proc(sn, ct->pid);
		if (!p || (!p->comm && !(p->comm = strdup(ct->comm))))
			return -ENOMEM;
		p->cnt = set;
	}
	return 0;
}

/* Drop the rows of @v that did nothing. */
static void drop_idle(struct fd_snap *v, size_t *n)
{
	size_t k = 0;

	for (size_t j = 0; j < *n; j++) {
		if (fd_active(&v[j]))
			v[k++] = v[j];
		else
			fd_snap_free(&v[j]);
	}
	*n = k;
}

static void drop_idle_fds(struct proc_snap *p)
{
	drop_idle(p->fds, &p->nr_fds);
	drop_idle(p->groups, &p->nr_groups);
}

/* Sort the rows @v as -S says and keep --top of them, counting the others in *@omitted. */
static void arrange_rows(struct fd_snap *v, size_t *n, size_t *omitted, const struct stat_opts *o)
{
	enum stat_sort sort = o->sort;

	if (*n > 1)	/* qsort_r's array may not be NULL, even when empty */
		qsort_r(v, *n, sizeof(*v), cmp_fd, &sort);
	if (o->top && *n > o->top) {
		for (size_t j = o->top; j < *n; j++)
			fd_snap_free(&v[j]);
		*omitted = *n - o->top;
		*n = o->top;
	}
}

/* Add up the fds of @p before --top cuts them, for stat -I's compact lines and for top. */
static void proc_sum_fds(struct proc_snap *p)
{
	for (size_t j = 0; j < p->nr_fds; j++) {
		p->read_ops += p->fds[j].read.ops;
		p->read_bytes += p->fds[j].read.bytes;
		p->write_ops += p->fds[j].write.ops;
		p->write_bytes += p->fds[j].write.bytes;
	}
}

/* Sort the rows of @p, merge its syscalls into --total's, and keep --top of its fds. */
static int proc_arrange(struct snap *sn, struct proc_snap *p, const struct stat_opts *o)
{
	proc_sum_fds(p);
	arrange_rows(p->fds, &p->nr_fds, &p->fds_omitted, o);
	arrange_rows(p->groups, &p->nr_groups, &p->groups_omitted, o);
	sc_rows_sort(&p->scs, o->sc_sort);
	if (o->sc_total && sc_rows_merge(&sn->total_scs, &p->scs) < 0)
		return -ENOMEM;
	sc_rows_drop_hists(&p->scs);
	if (!p->comm && !(p->comm = strdup("")))
		return -ENOMEM;
	return 0;
}

/* Drop the processes that did nothing and have no counters of their own. */
static void drop_idle_procs(struct snap *sn)
{
	size_t k = 0;

	for (size_t i = 0; i < sn->nr_procs; i++) {
		struct proc_snap *p = &sn->procs[i];

		if (proc_active(p) || p->cnt)
			sn->procs[k++] = *p;
		else
			proc_snap_free(p);
	}
	sn->nr_procs = k;
}

uint64_t snap_left_after_ns(const struct snap *sn, const struct proc_snap *p)
{
	return p->left_ns > sn->start_ns ? p->left_ns - sn->start_ns : 0;
}

bool snap_rows_by_group(const struct stat_opts *o)
{
	return !o->json && !o->sep && !o->per_fd && !o->interval_ms && !o->om_path &&
	       !o->listen.on;
}

int snap_take(struct snap *sn, struct ipcperf_stats *st, const struct stat_opts *o,
	      const struct cnt_target *cts, size_t nr, bool interval)
{
	int err;

	sn->total_scs.hists = o->sc_total;
	if ((err = ipcperf_stats__for_each_proc(st, on_proc_row, sn)) < 0 ||
	    (!snap_rows_by_group(o) && (err = ipcperf_stats__for_each_fd(st, on_fd_row, sn)) < 0) ||
	    (!snap_rows_by_group(o) && (err = ipcperf_stats__for_each_fd_fold(st, on_fd_row, sn)) < 0) ||
	    (err = ipcperf_stats__for_each_fd_group(st, on_group, sn)) < 0 ||
	    (err = ipcperf_stats__for_each_syscall(st, on_syscall_row, sn)) < 0 ||
	    (err = sn->oom ? -ENOMEM : 0) < 0 ||
	    (err = snap_counters(sn, cts, nr, interval)) < 0)
		goto fail;
	for (size_t i = 0; i < sn->nr_procs; i++) {
		if (interval)
			drop_idle_fds(&sn->procs[i]);
		if ((err = proc_arrange(sn, &sn->procs[i], o)) < 0)
			goto fail;
	}
	if (interval)
		drop_idle_procs(sn);
	sc_rows_sort(&sn->total_scs, o->sc_sort);
	return 0;
fail:
	cli_err("cannot collect the statistics: %s", strerror(-err));
	return -1;
}

/* ------------------------------------------------------------------ counters */

void cnt_read(struct ipcperf_session *s, pid_t pid, struct cnt_set *set)
{
	set->valid = ipcperf_session__read_counters(s, pid, set->v) == 0;
}
