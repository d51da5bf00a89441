/* ipcperf stat: per-fd throughput and latency, scheduling and counters: table, JSON or CSV. */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cmds.h"
#include "output.h"
#include "flowout.h"
#include "syscalls-out.h"
#include "util.h"

enum format { FMT_TEXT, FMT_JSON, FMT_CSV };

/* The counters in the order of the JSON schema, with their names there and in text. */
static const struct {
	enum ipcperf_counter id;
	const char *json;
	const char *text;
} cnt_info[] = {
	{ IPCPERF_CNT_CYCLES, "cycles", "cycles" },
	{ IPCPERF_CNT_INSTRUCTIONS, "instructions", "instructions" },
	{ IPCPERF_CNT_CACHE_REFERENCES, "cache_references", "cache-references" },
	{ IPCPERF_CNT_CACHE_MISSES, "cache_misses", "cache-misses" },
	{ IPCPERF_CNT_PAGE_FAULTS, "page_faults", "page-faults" },
	{ IPCPERF_CNT_TASK_CLOCK, "task_clock_ns", "task-clock" },
	/* Not in schema 1's list: added, as the schema allows. */
	{ IPCPERF_CNT_CONTEXT_SWITCHES, "context_switches", "context-switches" },
	{ IPCPERF_CNT_CPU_MIGRATIONS, "cpu_migrations", "cpu-migrations" },
};
#define NR_CNT_INFO (sizeof(cnt_info) / sizeof(cnt_info[0]))
/* perf stat's order for the text table: indexes into cnt_info. */
static const unsigned int cnt_text_order[] = { 5, 6, 7, 4, 0, 1, 2, 3 };

/* Counter values of one source: a target process with its children, or all targets. */
struct cnt_set {
	bool valid;
	struct ipcperf_counter_value v[IPCPERF_CNT__MAX];
};

struct fd_snap {
	int fd;
	char *object, *detail;
	enum ipcperf_fd_kind kind;
	struct ipcperf_io read, write;
};

struct proc_snap {
	pid_t pid;
	char *comm;
	uint64_t voluntary, involuntary, wakeups, migrations, syscalls, threads;
	bool exited;
	struct fd_snap *fds;
	size_t nr_fds, cap_fds, fds_omitted;
	struct sc_rows scs;		/* per syscall (per thread with --per-thread), sorted by -S */
	const struct cnt_set *cnt;	/* its counters (a target: with its children), or NULL */
};

/* What one output (an interval, or the totals) shows. */
struct snap {
	struct proc_snap *procs;	/* ordered by pid */
	size_t nr_procs, cap_procs;
	bool is_interval;		/* deltas of one -I interval */
	uint64_t time_ns;		/* from the start to the end of what this covers */
	uint64_t duration_ns;		/* length of what this covers */
	uint64_t lost, unpaired, records;
	const struct cnt_set *all;	/* over all targets (or the system), or NULL */
	struct sc_rows total_scs;	/* --total: every process's rows merged by name */
	bool oom;
};

/* A target process whose counters are read on their own. */
struct cnt_target {
	pid_t pid;
	char comm[CLI_COMM_LEN];	/* in case it never shows up in the accounting */
	struct cnt_set cur;		/* last read */
	struct cnt_set prev, delta;	/* -I: the read before, and the difference */
};

/* A run of stat: its options, its accounting and its output. */
struct stat_cmd {
	const struct stat_opts *o;
	enum format fmt;
	bool final_print;		/* printing the totals: flows go with them */
	struct ipcperf_flows *flows;
	FILE *out;			/* output.f */
	struct cli_out output;
	char what[CLI_WHAT_LEN];			/* the targets, for the text header */

	struct ipcperf_stats *total, *delta;
	struct cnt_target *cnt_targets;
	size_t nr_cnt_targets;
	struct cnt_set all_prev, all_cur, all_delta;	/* pid 0: all targets */

	/* --per-thread: the last name of each thread seen (sorted by tid). */
	struct tcomm {
		pid_t tid;
		char comm[CLI_COMM_LEN];
	} *tcomms;
	size_t nr_tcomms, cap_tcomms;

	/* -I bookkeeping: what the previous interval ended at. */
	uint64_t last_ns, prev_lost, prev_unpaired, prev_records;
	bool csv_header_done;
};

/* ------------------------------------------------------------------ thread names */

/* A pid_t key against an element that starts with one (tcomm, proc_snap). */
static int cmp_pid_key(const void *key, const void *elem)
{
	pid_t a = *(const pid_t *)key, b = *(const pid_t *)elem;

	return a < b ? -1 : a > b;
}

static void tcomm_set(struct stat_cmd *c, pid_t tid, const char *comm)
{
	struct tcomm *tc;
	size_t i;

	if (!comm || !*comm)
		return;
	if (cli_bsearch(&tid, c->tcomms, c->nr_tcomms, sizeof(*c->tcomms), cmp_pid_key, &i)) {
		tc = &c->tcomms[i];
	} else {
		if (cli_grow((void **)&c->tcomms, &c->cap_tcomms, c->nr_tcomms + 1,
			     sizeof(*c->tcomms)) < 0)
			return;	/* the table falls back to the process's name */
		tc = cli_insert_at(c->tcomms, c->nr_tcomms++, sizeof(*tc), i);
		tc->tid = tid;
	}
	snprintf(tc->comm, sizeof(tc->comm), "%s", comm);
}

static const char *tcomm_get(const struct stat_cmd *c, pid_t tid)
{
	size_t i;

	if (cli_bsearch(&tid, c->tcomms, c->nr_tcomms, sizeof(*c->tcomms), cmp_pid_key, &i))
		return c->tcomms[i].comm;
	return NULL;
}

/* A thread's name changes at exec and with prctl(PR_SET_NAME): its last switch-out has the latest. */
static void tcomm_on_switch(void *ctx, const struct ipcperf_switch *ev)
{
	tcomm_set(ctx, ev->tid, ev->prev_comm);
}

static void tcomm_on_task(void *ctx, const struct ipcperf_task *ev)
{
	tcomm_set(ctx, ev->kind == IPCPERF_TASK_FORK ? ev->child_tid : ev->tid, ev->comm);
}

/* ------------------------------------------------------------------ snapshots */

static void fd_snap_free(struct fd_snap *f)
{
	free(f->object);
	free(f->detail);
}

static void proc_snap_free(struct proc_snap *p)
{
	for (size_t k = 0; k < p->nr_fds; k++)
		fd_snap_free(&p->fds[k]);
	sc_rows_free(&p->scs);
	free(p->fds);
	free(p->comm);
}

static void snap_free(struct snap *sn)
{
	for (size_t i = 0; i < sn->nr_procs; i++)
		proc_snap_free(&sn->procs[i]);
	free(sn->procs);
	sn->procs = NULL;
	sn->nr_procs = sn->cap_procs = 0;
	sc_rows_free(&sn->total_scs);
}

/* The process @pid of @sn, inserted in pid order if new; NULL when out of memory. */
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
	p->exited = row->exited;
	return 0;
}

static int on_fd_row(void *ctx, const struct ipcperf_fd_row *row)
{
	struct snap *sn = ctx;
	struct proc_snap *p = snap_proc(sn, row->pid);
	struct fd_snap *f;

	if (!p)
		return -ENOMEM;
	if (cli_grow((void **)&p->fds, &p->cap_fds, p->nr_fds + 1, sizeof(*p->fds)) < 0) {
		sn->oom = true;
		return -ENOMEM;
	}
	f = &p->fds[p->nr_fds++];
	memset(f, 0, sizeof(*f));
	f->fd = row->fd;
	f->object = xstrdup_or(row->object, "unknown", sn);
	f->detail = xstrdup_or(row->detail, "", sn);
	f->kind = row->kind;
	f->read = row->read;
	f->write = row->write;
	return 0;
}

static int on_syscall_row(void *ctx, const struct ipcperf_syscall_row *row)
{
	struct snap *sn = ctx;
	struct proc_snap *p = snap_proc(sn, row->pid);

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

static bool fd_active(const struct fd_snap *f)
{
	return io_active(&f->read) || io_active(&f->write);
}

static bool proc_active(const struct proc_snap *p)
{
	for (size_t i = 0; i < p->nr_fds; i++)
		if (fd_active(&p->fds[i]))
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

/*
 * Read @st into @sn, then: attach the counters of the target processes (their
 * deltas for an @interval), drop what did nothing (intervals only: the totals
 * list every fd), sort the fd rows and keep --top of them.
 */
static int snap_take(struct stat_cmd *c, struct snap *sn, struct ipcperf_stats *st, bool interval)
{
	bool skip_idle = interval;
	enum stat_sort sort = c->o->sort;

	int err;

	if ((err = ipcperf_stats__for_each_proc(st, on_proc_row, sn)) < 0 ||
	    (err = ipcperf_stats__for_each_fd(st, on_fd_row, sn)) < 0 ||
	    (err = ipcperf_stats__for_each_syscall(st, on_syscall_row, sn)) < 0 || sn->oom) {
		cli_err("cannot collect the statistics: %s", strerror(err < 0 ? -err : ENOMEM));
		return -1;
	}
	for (size_t i = 0; i < c->nr_cnt_targets; i++) {
		struct cnt_target *ct = &c->cnt_targets[i];
		const struct cnt_set *set = interval ? &ct->delta : &ct->cur;
		struct proc_snap *p;

		if (!set->valid)
			continue;
		p = snap_proc(sn, ct->pid);
		if (!p) {
			cli_err("cannot collect the statistics: %s", strerror(ENOMEM));
			return -1;
		}
		if (!p->comm && !(p->comm = strdup(ct->comm))) {
			cli_err("cannot collect the statistics: %s", strerror(ENOMEM));
			return -1;
		}
		p->cnt = set;
	}
	for (size_t i = 0; i < sn->nr_procs; i++) {
		struct proc_snap *p = &sn->procs[i];

		if (skip_idle) {
			size_t k = 0;

			for (size_t j = 0; j < p->nr_fds; j++) {
				if (fd_active(&p->fds[j]))
					p->fds[k++] = p->fds[j];
				else
					fd_snap_free(&p->fds[j]);
			}
			p->nr_fds = k;
		}
		if (p->nr_fds > 1)	/* qsort_r's array may not be NULL, even when empty */
			qsort_r(p->fds, p->nr_fds, sizeof(*p->fds), cmp_fd, &sort);
		sc_rows_sort(&p->scs, c->o->sc_sort);
		if (c->o->sc_total && sc_rows_merge(&sn->total_scs, &p->scs) < 0) {
			cli_err("cannot collect the statistics: %s", strerror(ENOMEM));
			return -1;
		}
		if (c->o->top && p->nr_fds > c->o->top) {
			for (size_t j = c->o->top; j < p->nr_fds; j++)
				fd_snap_free(&p->fds[j]);
			p->fds_omitted = p->nr_fds - c->o->top;
			p->nr_fds = c->o->top;
		}
		if (!p->comm && !(p->comm = strdup(""))) {
			cli_err("cannot collect the statistics: %s", strerror(ENOMEM));
			return -1;
		}
	}
	if (skip_idle) {
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
	sc_rows_sort(&sn->total_scs, c->o->sc_sort);
	return 0;
}

/* ------------------------------------------------------------------ counters */

static void cnt_read(struct ipcperf_session *s, pid_t pid, struct cnt_set *set)
{
	set->valid = ipcperf_session__read_counters(s, pid, set->v) == 0;
}

/*
 * @d = @cur - @prev for an interval. The totals are the last read, so the sum
 * of the deltas telescopes to them exactly.
 */
static void cnt_delta(struct cnt_set *d, const struct cnt_set *cur, const struct cnt_set *prev)
{
	*d = *cur;
	if (!cur->valid || !prev->valid)
		return;
	for (int i = 0; i < IPCPERF_CNT__MAX; i++) {
		const struct ipcperf_counter_value *a = &cur->v[i], *b = &prev->v[i];

		if (a->status != IPCPERF_CNT_OK || b->status != IPCPERF_CNT_OK)
			continue;
		d->v[i].value = a->value >= b->value ? a->value - b->value : 0;
		d->v[i].enabled_ns = a->enabled_ns >= b->enabled_ns ? a->enabled_ns - b->enabled_ns : 0;
		d->v[i].running_ns = a->running_ns >= b->running_ns ? a->running_ns - b->running_ns : 0;
	}
}

/*
 * After an interval: the next deltas start from @cur. A scaled (multiplexed)
 * value can dip between reads; the baseline keeps the highest value already
 * reported so that a dip and the rise after it are not counted twice.
 */
static void cnt_advance(struct cnt_set *prev, const struct cnt_set *cur)
{
	struct cnt_set old = *prev;

	*prev = *cur;
	if (!old.valid || !cur->valid)
		return;
	for (int i = 0; i < IPCPERF_CNT__MAX; i++)
		if (old.v[i].status == IPCPERF_CNT_OK && cur->v[i].status == IPCPERF_CNT_OK &&
		    old.v[i].value > cur->v[i].value)
			prev->v[i].value = old.v[i].value;
}

/* ------------------------------------------------------------------ text */

static double mb_per_s(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes / ((double)ns / 1e9) / 1e6 : 0.0;
}

static void text_side(FILE *f, const struct ipcperf_io *io, uint64_t dur_ns)
{
	char a[32], p[32];

	if (!io->ops) {
		fprintf(f, " %8s %10s %9s %8s %8s", "0", "0", "-", "-", "-");
		return;
	}
	fprintf(f, " %8" PRIu64 " %10" PRIu64, io->ops, io->bytes);
	if (dur_ns)
		fprintf(f, " %9.2f", mb_per_s(io->bytes, dur_ns));
	else
		fprintf(f, " %9s", "-");
	fprintf(f, " %8s %8s", fmt_ns(a, sizeof(a), io->lat_ns.avg),
		fmt_ns(p, sizeof(p), io->lat_ns.p99));
}

static void text_counters(FILE *f, const struct cnt_set *set, const char *title)
{
	const struct ipcperf_counter_value *cyc = &set->v[IPCPERF_CNT_CYCLES];
	const struct ipcperf_counter_value *ins = &set->v[IPCPERF_CNT_INSTRUCTIONS];

	fprintf(f, "  %s:\n", title);
	for (size_t k = 0; k < NR_CNT_INFO; k++) {
		unsigned int i = cnt_text_order[k];
		const struct ipcperf_counter_value *v = &set->v[cnt_info[i].id];
		char num[48];

		switch (v->status) {
		case IPCPERF_CNT_NOT_SUPPORTED:
			fprintf(f, "  %20s      %s\n", "<not supported>", cnt_info[i].text);
			continue;
		case IPCPERF_CNT_NOT_COUNTED:
			fprintf(f, "  %20s      %s\n", "<not counted>", cnt_info[i].text);
			continue;
		default:
			break;
		}
		if (cnt_info[i].id == IPCPERF_CNT_TASK_CLOCK)
			snprintf(num, sizeof(num), "%.3f msec", v->value / 1e6);
		else
			snprintf(num, sizeof(num), "%" PRIu64 "     ", v->value);
		fprintf(f, "  %25s %s", num, cnt_info[i].text);
		if (cnt_info[i].id == IPCPERF_CNT_INSTRUCTIONS && cyc->status == IPCPERF_CNT_OK &&
		    cyc->value)
			fprintf(f, "    # %.2f insn per cycle", (double)ins->value / cyc->value);
		if (v->enabled_ns && v->running_ns < v->enabled_ns)
			fprintf(f, "    (%.2f%%)", 100.0 * v->running_ns / v->enabled_ns);
		fputc('\n', f);
	}
}

static void text_fds(struct stat_cmd *c, const struct snap *sn, const struct proc_snap *p)
{
	FILE *f = c->out;
	int ow = 6;
	size_t shown = 0, hidden = 0;

	for (size_t i = 0; i < p->nr_fds; i++) {
		int l = (int)strlen(p->fds[i].object);

		if (!fd_active(&p->fds[i]) && !c->o->verbose)
			continue;
		shown++;
		if (l > ow)
			ow = l > 40 ? 40 : l;
	}
	hidden = p->nr_fds - shown;
	if (shown) {
		fprintf(f, "  %5s %-7s %-*s  %-47s  %-47s\n", "", "", ow, "",
			"-------------------- read ---------------------",
			"-------------------- write --------------------");
		fprintf(f, "  %5s %-7s %-*s  %8s %10s %9s %8s %8s  %8s %10s %9s %8s %8s %7s  %s\n",
			"fd", "kind", ow, "object", "ops", "bytes", "MB/s", "avg", "p99",
			"ops", "bytes", "MB/s", "avg", "p99", "errors", "detail");
	}
	for (size_t i = 0; i < p->nr_fds; i++) {
		const struct fd_snap *fd = &p->fds[i];
		const char *obj = fd->object;
		char cut[48];

		if (!fd_active(fd) && !c->o->verbose)
			continue;
		if ((int)strlen(obj) > ow) {
			/* A long path: keep its end, which tells most. */
			snprintf(cut, sizeof(cut), "...%s", obj + strlen(obj) - (size_t)(ow - 3));
			obj = cut;
		}
		fprintf(f, "  %5d %-7s %-*s ", fd->fd, ipcperf_fd_kind_name(fd->kind), ow, obj);
		text_side(f, &fd->read, sn->duration_ns);
		fputc(' ', f);
		text_side(f, &fd->write, sn->duration_ns);
		fprintf(f, " %7" PRIu64 "%s%s\n", fd->read.errors + fd->write.errors,
			*fd->detail ? "  " : "", fd->detail);
	}
	if (p->fds_omitted)
		fprintf(f, "  (%zu more fd row%s left out by --top)\n", p->fds_omitted,
			p->fds_omitted == 1 ? "" : "s");
	if (hidden)
		fprintf(f, "  (%zu fd%s without I/O not shown: -v shows them)\n", hidden,
			hidden == 1 ? "" : "s");
}

/* The syscall table of a process, or with --per-thread one table per thread. */
static void text_syscalls(struct stat_cmd *c, const struct proc_snap *p)
{
	FILE *f = c->out;
	size_t i = 0;

	if (!p->scs.n) {
		fprintf(f, "  (no syscalls)\n");
		return;
	}
	if (!c->o->per_thread) {
		sc_text_table(f, "  ", p->scs.v, p->scs.n, c->o->sc_errnos);
		return;
	}
	/* Rows are grouped by tid (sc_rows_sort). */
	while (i < p->scs.n) {
		size_t k = i;
		const char *tc;

		while (k < p->scs.n && p->scs.v[k].tid == p->scs.v[i].tid)
			k++;
		tc = tcomm_get(c, p->scs.v[i].tid);
		fprintf(f, "%s  syscalls of %d/%d %s\n", i ? "\n" : "", (int)p->pid,
			(int)p->scs.v[i].tid, tc ? tc : p->comm);
		sc_text_table(f, "  ", &p->scs.v[i], k - i, c->o->sc_errnos);
		i = k;
	}
}

static void print_text(struct stat_cmd *c, const struct snap *sn)
{
	FILE *f = c->out;
	bool any_cnt = false;
	size_t shown = 0;

	if (sn->is_interval)
		fprintf(f, "--- %.3f s: interval of %.3f s ---\n", sn->time_ns / 1e9,
			sn->duration_ns / 1e9);
	else if (c->o->interval_ms)
		fprintf(f, "--- total: %s, %.3f s ---\n", c->what, sn->duration_ns / 1e9);
	else
		fprintf(f, "ipcperf stat: %s, %.3f s\n", c->what, sn->duration_ns / 1e9);

	for (size_t i = 0; i < sn->nr_procs; i++) {
		const struct proc_snap *p = &sn->procs[i];

		if (!c->o->verbose && !proc_active(p) && !p->cnt)
			continue;
		shown++;
		fprintf(f, "\npid %d %s%s\n", (int)p->pid, p->comm, p->exited ? " (exited)" : "");
		text_fds(c, sn, p);
		fprintf(f, "  context switches: %" PRIu64 " voluntary, %" PRIu64 " involuntary;"
			" wakeups: %" PRIu64 "; cpu migrations: %" PRIu64 "\n", p->voluntary,
			p->involuntary, p->wakeups, p->migrations);
		if (c->o->syscalls && !c->o->sc_total)
			text_syscalls(c, p);
		if (p->cnt) {
			any_cnt = true;
			text_counters(f, p->cnt, "counters (this process and its children)");
		}
	}
	if (!shown)
		fprintf(f, "\n(no activity)\n");
	if (c->o->syscalls && c->o->sc_total) {
		size_t n = 0;

		for (size_t i = 0; i < sn->nr_procs; i++)
			n += sn->procs[i].scs.n > 0;
		fprintf(f, "\nsyscalls of all %zu process%s together (p99 of a syscall made by several: "
			"the largest of theirs, an upper bound)\n", n, n == 1 ? "" : "es");
		if (sn->total_scs.n)
			sc_text_table(f, "  ", sn->total_scs.v, sn->total_scs.n, c->o->sc_errnos);
		else
			fprintf(f, "  (no syscalls)\n");
	}
	if (!any_cnt && sn->all && sn->all->valid) {
		fputc('\n', f);
		text_counters(f, sn->all, c->o->t.system_wide ? "counters (whole system)"
						       : "counters (all targets)");
	}
	fprintf(f, "\nlost events: %" PRIu64 ", unpaired syscalls: %" PRIu64 "\n", sn->lost,
		sn->unpaired);
	if (sn->is_interval)
		fputc('\n', f);
}

/* ------------------------------------------------------------------ JSON */

static void json_lat(struct json *j, const char *key, const struct ipcperf_lat *l)
{
	json_object_begin(j, key);
	json_u64(j, "min", l->min);
	json_u64(j, "avg", l->avg);
	json_u64(j, "p50", l->p50);
	json_u64(j, "p99", l->p99);
	json_u64(j, "max", l->max);
	json_object_end(j);
}

static void json_io(struct json *j, const char *key, const struct ipcperf_io *io)
{
	json_object_begin(j, key);
	json_u64(j, "ops", io->ops);
	json_u64(j, "bytes", io->bytes);
	json_u64(j, "errors", io->errors);
	json_u64(j, "time_ns", io->time_ns);
	json_lat(j, "lat_ns", &io->lat_ns);
	json_u64(j, "msgs", io->msgs);
	json_object_end(j);
}

/* Counters as schema 1 has them: a number, or null when not supported, not counted, or none. */
static void json_counters(struct json *j, const char *key, const struct cnt_set *set)
{
	json_object_begin(j, key);
	for (size_t i = 0; i < NR_CNT_INFO; i++) {
		const struct ipcperf_counter_value *v = set && set->valid ? &set->v[cnt_info[i].id]
									   : NULL;

		if (v && v->status == IPCPERF_CNT_OK)
			json_u64(j, cnt_info[i].json, v->value);
		else
			json_null(j, cnt_info[i].json);
	}
	json_object_end(j);
}

/* Why a counter is null, for those who need to tell "not supported" from "not counted". */
static void json_counter_status(struct json *j, const char *key, const struct cnt_set *set)
{
	json_object_begin(j, key);
	for (size_t i = 0; i < NR_CNT_INFO; i++) {
		const struct ipcperf_counter_value *v = &set->v[cnt_info[i].id];

		json_str(j, cnt_info[i].json, v->status == IPCPERF_CNT_OK ? "ok"
					      : v->status == IPCPERF_CNT_NOT_SUPPORTED ? "not supported"
					      : "not counted");
	}
	json_object_end(j);
}

static void print_json(struct stat_cmd *c, const struct snap *sn, const int *exit_status)
{
	struct json j;

	json_init(&j, c->out, !c->o->interval_ms);
	json_object_begin(&j, NULL);
	json_u64(&j, "schema", 1);
	json_str(&j, "tool", "ipcperf");
	json_str(&j, "version", ipcperf_version());
	if (c->o->interval_ms) {
		json_bool(&j, "interval", sn->is_interval);
		json_u64(&j, "time_ns", sn->time_ns);
	}
	json_u64(&j, "duration_ns", sn->duration_ns);
	json_u64(&j, "lost_events", sn->lost);
	json_u64(&j, "unpaired_syscalls", sn->unpaired);
	json_u64(&j, "records", sn->records);
	if (exit_status) {
		if (WIFSIGNALED(*exit_status))
			json_u64(&j, "exit_signal", (uint64_t)WTERMSIG(*exit_status));
		else if (WIFEXITED(*exit_status))
			json_u64(&j, "exit_status", (uint64_t)WEXITSTATUS(*exit_status));
	}
	json_array_begin(&j, "processes");
	for (size_t i = 0; i < sn->nr_procs; i++) {
		const struct proc_snap *p = &sn->procs[i];

		json_object_begin(&j, NULL);
		json_i64(&j, "pid", p->pid);
		json_str(&j, "comm", p->comm);
		json_bool(&j, "exited", p->exited);
		json_u64(&j, "threads", p->threads);
		json_object_begin(&j, "context_switches");
		json_u64(&j, "voluntary", p->voluntary);
		json_u64(&j, "involuntary", p->involuntary);
		json_object_end(&j);
		json_u64(&j, "cpu_migrations", p->migrations);
		json_u64(&j, "wakeups", p->wakeups);
		json_counters(&j, "counters", p->cnt);
		if (p->cnt && p->cnt->valid)
			json_counter_status(&j, "counters_status", p->cnt);
		json_array_begin(&j, "fds");
		for (size_t k = 0; k < p->nr_fds; k++) {
			const struct fd_snap *fd = &p->fds[k];

			json_object_begin(&j, NULL);
			json_i64(&j, "fd", fd->fd);
			json_str(&j, "object", fd->object);
			json_str(&j, "kind", ipcperf_fd_kind_name(fd->kind));
			json_str(&j, "detail", fd->detail);
			json_io(&j, "read", &fd->read);
			json_io(&j, "write", &fd->write);
			json_object_end(&j);
		}
		json_array_end(&j);
		if (p->fds_omitted)
			json_u64(&j, "fds_omitted", p->fds_omitted);
		sc_json_rows(&j, "syscalls", p->scs.v, p->scs.n, c->o->per_thread, false);
		json_object_end(&j);
	}
	json_array_end(&j);
	if (c->o->sc_total)
		sc_json_rows(&j, "syscalls_total", sn->total_scs.v, sn->total_scs.n, false, true);
	/* Over all targets (-a: the whole system); a process's own are under it. */
	json_counters(&j, "counters", sn->all);
	if (sn->all && sn->all->valid)
		json_counter_status(&j, "counters_status", sn->all);
	if (c->flows && c->final_print) {
		flowout_json(&j, c->flows);
	} else {
		/* The contract's key is always there; flows are computed with --flows. */
		json_array_begin(&j, "flows");
		json_array_end(&j);
	}
	json_object_end(&j);
	json_end_document(&j);
}

/* ------------------------------------------------------------------ CSV */

static void csv_time(struct stat_cmd *c, const struct snap *sn)
{
	if (!c->o->interval_ms)
		return;
	if (sn->is_interval)
		fprintf(c->out, "%.6f%s", sn->time_ns / 1e9, c->o->sep);
	else
		fprintf(c->out, "total%s", c->o->sep);
}

/* Fields of one row; NULL ends the list. */
static void csv_row(struct stat_cmd *c, const struct snap *sn, ...)
{
	va_list ap;
	const char *s;
	bool first = true;

	csv_time(c, sn);
	va_start(ap, sn);
	while ((s = va_arg(ap, const char *))) {
		if (!first)
			fputs(c->o->sep, c->out);
		csv_field(c->out, s, c->o->sep);
		first = false;
	}
	va_end(ap);
	fputc('\n', c->out);
}

static void csv_header(struct stat_cmd *c)
{
	static const char *const rows[] = {
		("fd,pid,comm,fd,kind,object,side,ops,bytes,errors,time_ns,lat_min_ns,lat_avg_ns,"
		 "lat_p50_ns,lat_p99_ns,lat_max_ns,detail"),
		"sched,pid,comm,voluntary_cs,involuntary_cs,wakeups,cpu_migrations",
		"counter,pid,comm,value,unit,event,running_pct",
		/* Fields after lat_p99_ns were added later: appended, so old readers still work. */
		("syscall,pid,comm,name,calls,errors,time_ns,lat_avg_ns,lat_p99_ns,lat_min_ns,"
		 "lat_max_ns,errnos,tid"),
		("syscall_total,name,calls,errors,time_ns,lat_avg_ns,lat_p99_ns,lat_min_ns,lat_max_ns,"
		 "errnos,merged_rows"),
		"summary,duration_ns,lost_events,unpaired_syscalls",
	};
	FILE *f = c->out;

	fprintf(f, "# ipcperf %s stat, schema 1: one header per kind of row, named by its first "
		   "field%s\n", ipcperf_version(), c->o->interval_ms ? " after the time" : "");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *r = rows[i];

		if ((i == 3 && !c->o->syscalls) || (i == 4 && !c->o->sc_total))
			continue;
		fputc('#', f);
		if (c->o->interval_ms)
			fprintf(f, "time%s", c->o->sep);
		for (; *r; r++) {
			if (*r == ',')
				fputs(c->o->sep, f);
			else
				fputc(*r, f);
		}
		fputc('\n', f);
	}
}

#define U(buf, v) (snprintf(buf, sizeof(buf), "%" PRIu64, (uint64_t)(v)), buf)

static void csv_counters(struct stat_cmd *c, const struct snap *sn, pid_t pid, const char *comm,
			 const struct cnt_set *set)
{
	char ps[16], val[32], pct[16];

	snprintf(ps, sizeof(ps), "%d", (int)pid);
	for (size_t k = 0; k < NR_CNT_INFO; k++) {
		unsigned int i = cnt_text_order[k];
		const struct ipcperf_counter_value *v = &set->v[cnt_info[i].id];

		pct[0] = 0;
		if (v->status == IPCPERF_CNT_NOT_SUPPORTED) {
			snprintf(val, sizeof(val), "<not supported>");
		} else if (v->status == IPCPERF_CNT_NOT_COUNTED) {
			snprintf(val, sizeof(val), "<not counted>");
		} else {
			U(val, v->value);
			if (v->enabled_ns)
				snprintf(pct, sizeof(pct), "%.2f", 100.0 * v->running_ns / v->enabled_ns);
		}
		csv_row(c, sn, "counter", ps, comm, val,
			cnt_info[i].id == IPCPERF_CNT_TASK_CLOCK ? "ns" : "", cnt_info[i].json, pct,
			NULL);
	}
}

static void print_csv(struct stat_cmd *c, const struct snap *sn)
{
	bool any_cnt = false;

	if (!c->csv_header_done) {
		csv_header(c);
		c->csv_header_done = true;
	}
	for (size_t i = 0; i < sn->nr_procs; i++) {
		const struct proc_snap *p = &sn->procs[i];
		char ps[16], a[24], b[24], d[24], e[24];

		snprintf(ps, sizeof(ps), "%d", (int)p->pid);
		for (size_t k = 0; k < p->nr_fds; k++) {
			const struct fd_snap *fd = &p->fds[k];
			char fds[16];

			snprintf(fds, sizeof(fds), "%d", fd->fd);
			for (int side = 0; side < 2; side++) {
				const struct ipcperf_io *io = side ? &fd->write : &fd->read;
				char o[24], by[24], er[24], t[24], l1[24], l2[24], l3[24], l4[24], l5[24];

				csv_row(c, sn, "fd", ps, p->comm, fds, ipcperf_fd_kind_name(fd->kind),
					fd->object, side ? "write" : "read", U(o, io->ops),
					U(by, io->bytes), U(er, io->errors), U(t, io->time_ns),
					U(l1, io->lat_ns.min), U(l2, io->lat_ns.avg),
					U(l3, io->lat_ns.p50), U(l4, io->lat_ns.p99),
					U(l5, io->lat_ns.max), fd->detail, NULL);
			}
		}
		csv_row(c, sn, "sched", ps, p->comm, U(a, p->voluntary), U(b, p->involuntary),
			U(d, p->wakeups), U(e, p->migrations), NULL);
		if (c->o->syscalls) {
			for (size_t k = 0; k < p->scs.n; k++) {
				const struct sc_row *sc = &p->scs.v[k];
				char n[24], er[24], t[24], av[24], q[24], mn[24], mx[24], tid[16] = "";
				char *errs = sc_errnos_str(sc);

				if (c->o->per_thread)
					snprintf(tid, sizeof(tid), "%d", (int)sc->tid);
				csv_row(c, sn, "syscall", ps, p->comm, sc->name, U(n, sc->calls),
					U(er, sc->errors), U(t, sc->time_ns), U(av, sc->lat_ns.avg),
					U(q, sc->lat_ns.p99), U(mn, sc->lat_ns.min),
					U(mx, sc->lat_ns.max), errs ? errs : "", tid, NULL);
				free(errs);
			}
		}
		if (p->cnt && p->cnt->valid) {
			any_cnt = true;
			csv_counters(c, sn, p->pid, p->comm, p->cnt);
		}
	}
	for (size_t k = 0; c->o->sc_total && k < sn->total_scs.n; k++) {
		const struct sc_row *sc = &sn->total_scs.v[k];
		char n[24], er[24], t[24], av[24], q[24], mn[24], mx[24], m[24];
		char *errs = sc_errnos_str(sc);

		csv_row(c, sn, "syscall_total", sc->name, U(n, sc->calls), U(er, sc->errors),
			U(t, sc->time_ns), U(av, sc->lat_ns.avg), U(q, sc->lat_ns.p99),
			U(mn, sc->lat_ns.min), U(mx, sc->lat_ns.max), errs ? errs : "",
			U(m, sc->merged), NULL);
		free(errs);
	}
	/* No target process of its own (-t, -a): the sum, under pid 0. */
	if (!any_cnt && sn->all && sn->all->valid)
		csv_counters(c, sn, 0, c->o->t.system_wide ? "system" : "all", sn->all);
	{
		char d[24], l[24], u[24];

		csv_row(c, sn, "summary", U(d, sn->duration_ns), U(l, sn->lost), U(u, sn->unpaired),
			NULL);
	}
}

static void print_snap(struct stat_cmd *c, const struct snap *sn, const int *exit_status)
{
	switch (c->fmt) {
	case FMT_JSON:
		print_json(c, sn, exit_status);
		break;
	case FMT_CSV:
		print_csv(c, sn);
		break;
	default:
		print_text(c, sn);
		if (c->flows && c->final_print) {
			struct flowout fo;

			if (flowout_load(&fo, c->flows, c->total) == 0) {
				fprintf(c->out, "\nflows:\n");
				flowout_text(c->out, &fo, sn->duration_ns);
				flowout_free(&fo);
			}
		}
		break;
	}
	fflush(c->out);
}

/* ------------------------------------------------------------------ the run */

/* Print the deltas since the last interval (or the start) up to @end_ns, then reset them. */
static void emit_interval(struct stat_cmd *c, struct ipcperf_session *s, uint64_t end_ns)
{
	struct ipcperf_session_stats st = { .sz = sizeof(st) };
	struct snap sn = { .is_interval = true };
	uint64_t unpaired;

	if (ipcperf_session__stats(s, &st) < 0)
		return;
	if (!c->last_ns)
		c->last_ns = st.start_ns;
	if (end_ns < c->last_ns)
		end_ns = c->last_ns;
	unpaired = st.unpaired_enter + st.unpaired_exit;
	sn.time_ns = end_ns - st.start_ns;
	sn.duration_ns = end_ns - c->last_ns;
	sn.lost = st.lost - c->prev_lost;
	sn.unpaired = unpaired - c->prev_unpaired;
	sn.records = st.records - c->prev_records;

	for (size_t i = 0; i < c->nr_cnt_targets; i++) {
		struct cnt_target *ct = &c->cnt_targets[i];

		cnt_read(s, ct->pid, &ct->cur);
		cnt_delta(&ct->delta, &ct->cur, &ct->prev);
	}
	cnt_read(s, 0, &c->all_cur);
	cnt_delta(&c->all_delta, &c->all_cur, &c->all_prev);
	sn.all = &c->all_delta;

	cli_status_clear();
	if (snap_take(c, &sn, c->delta, true) == 0)
		print_snap(c, &sn, NULL);
	snap_free(&sn);

	for (size_t i = 0; i < c->nr_cnt_targets; i++)
		cnt_advance(&c->cnt_targets[i].prev, &c->cnt_targets[i].cur);
	cnt_advance(&c->all_prev, &c->all_cur);
	ipcperf_stats__reset(c->delta);
	c->last_ns = end_ns;
	c->prev_lost = st.lost;
	c->prev_unpaired = unpaired;
	c->prev_records = st.records;
}

static void stat_tick(void *ctx, struct ipcperf_session *s)
{
	emit_interval(ctx, s, cli_now_ns());
}

static void read_comm(pid_t pid, char *buf, size_t len)
{
	char path[CLI_PROC_PATH_LEN];
	FILE *f;

	buf[0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

static int stat_setup(void *ctx, struct ipcperf_session *s)
{
	struct stat_cmd *c = ctx;
	pid_t child = ipcperf_session__child_pid(s);
	int err;

	/* The flows after the totals they take fd identities from. */
	if ((err = ipcperf_stats__attach(c->total, s)) < 0 ||
	    (c->flows && (err = ipcperf_flows__attach(c->flows, s)) < 0) ||
	    (c->delta && (err = ipcperf_stats__attach(c->delta, s)) < 0)) {
		cli_err("cannot set up the accounting: %s", strerror(-err));
		return err;
	}
	/* Whose counters are read on their own: the command, or each -p process. */
	if (child > 0) {
		const char *b = c->o->t.argv ? strrchr(c->o->t.argv[0], '/') : NULL;
		const char *name = c->o->t.argv ? c->o->t.argv[0] : "";	/* a report: from the capture */

		c->cnt_targets = calloc(1, sizeof(*c->cnt_targets));
		if (!c->cnt_targets)
			goto oom;
		c->cnt_targets[0].pid = child;
		snprintf(c->cnt_targets[0].comm, sizeof(c->cnt_targets[0].comm), "%s",
			 b ? b + 1 : name);
		c->nr_cnt_targets = 1;
	} else if (c->o->t.pids.n) {
		c->cnt_targets = calloc(c->o->t.pids.n, sizeof(*c->cnt_targets));
		if (!c->cnt_targets)
			goto oom;
		for (size_t i = 0; i < c->o->t.pids.n; i++) {
			c->cnt_targets[i].pid = c->o->t.pids.v[i];
			read_comm(c->o->t.pids.v[i], c->cnt_targets[i].comm,
				  sizeof(c->cnt_targets[i].comm));
		}
		c->nr_cnt_targets = c->o->t.pids.n;
	}
	return 0;
oom:
	cli_err("cannot set up the accounting: %s", strerror(ENOMEM));
	return -ENOMEM;
}

void stat_opts_init(struct stat_opts *o)
{
	*o = (struct stat_opts){ .sort = SORT_BYTES, .sc_sort = SC_SORT_TIME };
}

int stat_check_format(bool json, const char *sep)
{
	if (json && sep) {
		cli_err("give either --json or -x, not both");
		return -1;
	}
	return 0;
}

enum cli_parsed stat_parse(int argc, char **argv, struct stat_opts *o)
{
	enum cli_parsed p;
	int first;

	stat_opts_init(o);
	p = cli_options_parse(CMD_STAT, argc, argv, o, &first);
	if (p == CLI_PARSED_RUN && (stat_check_format(o->json, o->sep) < 0 ||
				    cli_target_finish(&o->t, argc, argv, first) < 0))
		p = CLI_PARSED_USAGE;
	return p;
}

/* The accounting and the output, before the capture. @return 0, or -1 (said). */
static int stat_open(struct stat_cmd *c)
{
	const struct stat_opts *o = c->o;
	IPCPERF_OPTS(ipcperf_stats_opts, so, .per_thread = o->per_thread);

	c->total = ipcperf_stats__new(&so);
	if (c->total && o->interval_ms)
		c->delta = ipcperf_stats__new(&so);
	if (c->total && o->flows)
		c->flows = ipcperf_flows__new(c->total);
	if (!c->total || (o->interval_ms && !c->delta) || (o->flows && !c->flows)) {
		cli_err("cannot set up the accounting: %s", strerror(errno));
		return -1;
	}
	if (cli_open_output(&c->output, &o->t) < 0)
		return -1;
	c->out = c->output.f;
	return 0;
}

/* What a capture for @o is made of. */
static unsigned int stat_events(const struct stat_opts *o)
{
	/*
	 * -s: every syscall through raw_syscalls. The I/O and fd calls are
	 * still classified, so the fd table stays; sched and task events feed
	 * the context switches and processes. Without -s, the I/O and fd calls
	 * through raw_syscalls and a kernel filter: half the cost of their own
	 * tracepoints here. A capture keeps the per-syscall tracepoints, which
	 * perf script decodes with their argument names.
	 */
	unsigned int ev = o->syscalls ? IPCPERF_EV_ALL_SYSCALLS :
		IPCPERF_EV_IO | IPCPERF_EV_FDS | (o->t.record ? 0 : IPCPERF_EV_RAW_FILTER);

	/* Switch records (blocked time) only for --flows' verdicts: four more
	 * records per blocking round trip. */
	return ev | IPCPERF_EV_SCHED | IPCPERF_EV_TASK | (o->flows ? IPCPERF_EV_BLOCKED : 0);
}

/* The capture, with the live status line while it runs. */
static void stat_capture(struct stat_cmd *c, struct cli_result *res)
{
	const struct stat_opts *o = c->o;
	/* --per-thread: the threads' names, for the tables' headings. */
	IPCPERF_OPTS(ipcperf_handlers, names, .ctx = c, .sched_switch = tcomm_on_switch,
		     .task = tcomm_on_task);
	struct cli_run run = {
		.handlers = o->per_thread ? &names : NULL,
		.events = stat_events(o),
		.counters = true,
		.setup = stat_setup,
		.tick = o->interval_ms ? stat_tick : NULL,
		.ctx = c,
		.tick_ms = o->interval_ms,
		.progress = "ipcperf stat",
	};

	cli_status_enable(!o->quiet && isatty(STDERR_FILENO));
	cli_run(&o->t, &run, res);
	cli_status_clear();
	cli_status_enable(false);
}

/* What was lost or left unpaired, and with -v what was read, on stderr. */
static void say_losses(const struct stat_cmd *c, const struct ipcperf_session_stats *st)
{
	if (st->lost) {
		char hint[CLI_HINT_LEN];

		cli_lost_hint(hint, sizeof(hint), &c->o->t, st);
		cli_err("warning: %" PRIu64 " events lost: the counts are lower bounds; %s",
			st->lost, hint);
	}
	if (st->unpaired_enter || st->unpaired_exit)
		cli_err("warning: %" PRIu64 " syscalls unpaired (%" PRIu64 " already under way at "
			"the start, %" PRIu64 " unfinished at the end): left out of the latencies",
			st->unpaired_enter + st->unpaired_exit, st->unpaired_exit, st->unpaired_enter);
	if (c->o->verbose)
		fprintf(stderr, "%s: %" PRIu64 " records from %u rings, %" PRIu64 " syscalls, %u "
			"tracepoints missing in this kernel\n", cli_prog, st->records, st->rings,
			st->syscalls, st->skipped_events);
}

/* After the capture: the last interval, then the totals. @return 0, or -1 (said). */
static int stat_report(struct stat_cmd *c, const struct cli_result *res)
{
	struct ipcperf_session *s = res->session;
	struct ipcperf_session_stats st = { .sz = sizeof(st) };
	struct snap sn = { 0 };
	int ret = 0;

	if (ipcperf_session__stats(s, &st) < 0) {
		cli_err("cannot read the session's statistics");
		return -1;
	}
	if (c->o->interval_ms)	/* the last, partial interval: the deltas then add up to the totals */
		emit_interval(c, s, st.stop_ns ? st.stop_ns : cli_now_ns());

	for (size_t i = 0; i < c->nr_cnt_targets; i++)
		cnt_read(s, c->cnt_targets[i].pid, &c->cnt_targets[i].cur);
	cnt_read(s, 0, &c->all_cur);
	sn.all = &c->all_cur;
	sn.duration_ns = st.stop_ns > st.start_ns ? st.stop_ns - st.start_ns : 0;
	sn.time_ns = sn.duration_ns;
	sn.lost = st.lost;
	sn.unpaired = st.unpaired_enter + st.unpaired_exit;
	sn.records = st.records;
	if (snap_take(c, &sn, c->total, false) == 0) {
		c->final_print = true;
		print_snap(c, &sn, cli_cmd_status(res));
		say_losses(c, &st);
	} else {
		ret = -1;
	}
	snap_free(&sn);
	return ret;
}

int stat_run(const struct stat_opts *o)
{
	struct stat_cmd c = { .o = o };
	struct cli_result res = { .end = CLI_END_NOT_RUN };
	bool failed = false;

	c.fmt = o->json ? FMT_JSON : o->sep ? FMT_CSV : FMT_TEXT;
	cli_describe_targets(&o->t, c.what, sizeof(c.what));
	cli_setup_print(o->verbose);
	if (stat_open(&c) == 0) {
		stat_capture(&c, &res);
		if (res.session)
			failed = stat_report(&c, &res) < 0;
	}
	/* The report is out before a command that outlived the capture is waited for. */
	failed |= cli_out_close(&c.output) < 0;
	cli_wait_command(&res);
	/* The session first: it feeds the accounting; the flows use the totals. */
	ipcperf_session__delete(res.session);
	ipcperf_flows__delete(c.flows);
	ipcperf_stats__delete(c.delta);
	ipcperf_stats__delete(c.total);
	free(c.cnt_targets);
	free(c.tcomms);
	return cli_exit(&res, failed);
}

static int stat_main(int argc, char **argv)
{
	struct stat_opts o;
	enum cli_parsed p = stat_parse(argc, argv, &o);
	int code = p == CLI_PARSED_RUN ? stat_run(&o) : cli_parsed_exit(p);

	cli_target_free(&o.t);
	return code;
}

const struct cli_command cli_cmd_stat = {
	.name = "stat",
	.summary = "per-fd throughput and latency, scheduling and counters of the targets",
	.usage =
		"usage: ipcperf stat [OPTIONS] {-p PID | -t TID | -a | -- CMD [ARGS]}\n\n"
		"Count what the targets do, from the kernel side: per (process, fd, object) the\n"
		"read and write calls, bytes actually moved, errors, MB/s and latency (avg, p99);\n"
		"context switches, wakeups and cpu migrations per process; and the counters\n"
		"task-clock, page-faults, context-switches, cpu-migrations, cycles, instructions,\n"
		"cache-references and cache-misses (<not supported> where the machine lacks them,\n"
		"<not counted> when they never ran).\n\n"
		"Counters are kept per target process and include its children: with -- CMD they\n"
		"appear once, under the command's process; with -p under each PID; with -t and -a\n"
		"in one section for all targets (the whole system with -a).\n\n"
		"Options:\n",
	.epilog =
		"\n"
		"The last line of the text output gives the lost events and unpaired syscalls;\n"
		"when either is not zero a warning on stderr says so (with lost events the counts\n"
		"are lower bounds: raise -m). While it runs, a status line on stderr shows the\n"
		"elapsed time and events when stderr is a terminal (not with -q).\n\n"
		"Exit status: 0 done, 1 runtime error (e.g. no such process, permission denied,\n"
		"output not written), 2 usage error; with -- CMD, the command's own status (its\n"
		"signal is re-raised), or 1 if it succeeded but the output could not be written.\n",
	.main = stat_main,
};
