/* ipcperf stat -x SEP: a snapshot as CSV rows, each kind of row headed once. */
#include "config.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "output.h"
#include "statout.h"

/* ------------------------------------------------------------------ CSV */

static void csv_time(struct statout *c, const struct snap *sn)
{
	if (!c->o->interval_ms)
		return;
	if (sn->is_interval)
		fprintf(c->f, "%.6f%s", sn->time_ns / 1e9, c->o->sep);
	else
		fprintf(c->f, "total%s", c->o->sep);
}

/* Write the fields of one row; a NULL ends the list. */
static void csv_row(struct statout *c, const struct snap *sn, ...)
{
	va_list ap;
	const char *s;
	bool first = true;

	csv_time(c, sn);
	va_start(ap, sn);
	while ((s = va_arg(ap, const char *))) {
		if (!first)
			fputs(c->o->sep, c->f);
		csv_field(c->f, s, c->o->sep);
		first = false;
	}
	va_end(ap);
	fputc('\n', c->f);
}

static void csv_header(struct statout *c)
{
	static const char *const rows[] = {
		("fd,pid,comm,fd,kind,object,side,ops,bytes,errors,time_ns,lat_min_ns,lat_avg_ns,"
		 "lat_p50_ns,lat_p99_ns,lat_max_ns,detail,zero_copy_ops,zero_copy_bytes,again"),
		"sched,pid,comm,voluntary_cs,involuntary_cs,wakeups,cpu_migrations",
		"counter,pid,comm,value,unit,event,run_ns,running_pct,metric_value,metric_unit",
		/*
		 * The fields after lat_p99_ns were added later, at the end, so
		 * old readers still work.
		 */
		("syscall,pid,comm,name,calls,errors,time_ns,lat_avg_ns,lat_p99_ns,lat_min_ns,"
		 "lat_max_ns,errnos,tid"),
		("syscall_total,name,calls,errors,time_ns,lat_avg_ns,lat_p99_ns,lat_min_ns,lat_max_ns,"
		 "errnos,merged_rows"),
		"summary,duration_ns,lost_events,unpaired_syscalls",
	};
	FILE *f = c->f;

	fprintf(f, "# ipcperf %s stat, schema 2: one header per kind of row, named by its first "
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

/*
 * Write a counter's value as perf stat -x does: task-clock in msec with 2
 * decimals, counts as integers, or <not supported> or <not counted>.
 */
static void csv_cnt_value(char *val, size_t len, const struct ipcperf_counter_value *v,
			  bool clock)
{
	if (v->status == IPCPERF_CNT_NOT_SUPPORTED)
		snprintf(val, len, "<not supported>");
	else if (v->status == IPCPERF_CNT_NOT_COUNTED)
		snprintf(val, len, "<not counted>");
	else if (clock)
		snprintf(val, len, "%.2f", v->value / 1e6);
	else
		snprintf(val, len, "%" PRIu64, v->value);
}

/* Write the counter rows: pid and comm, then perf stat -x's fields. */
static void csv_counters(struct statout *c, const struct snap *sn, pid_t pid, const char *comm,
			 const struct cnt_set *set)
{
	char ps[16], val[32], run[CLI_INT_LEN], pct[16], mv[32];

	snprintf(ps, sizeof(ps), "%d", (int)pid);
	for (size_t k = 0; k < STATOUT_NR_CNT; k++) {
		unsigned int i = statout_cnt_text_order[k];
		enum ipcperf_counter id = statout_cnt_info[i].id;
		const struct ipcperf_counter_value *v = &set->v[id];
		struct statout_metric m = { .unit = "" };
		bool ok = v->status == IPCPERF_CNT_OK;

		if (v->status == IPCPERF_CNT_NOT_REQUESTED)
			continue;	/* left out by -e */
		csv_cnt_value(val, sizeof(val), v, id == IPCPERF_CNT_TASK_CLOCK);
		U(run, ok ? v->running_ns : 0);
		snprintf(pct, sizeof(pct), "%.2f",
			 !ok ? (v->status == IPCPERF_CNT_NOT_SUPPORTED ? 100.0 : 0.0)
			     : v->enabled_ns ? 100.0 * v->running_ns / v->enabled_ns : 100.0);
		mv[0] = 0;
		if (ok && statout_cnt_metric(&m, set, id, sn->duration_ns))
			snprintf(mv, sizeof(mv), "%.*f", m.prec, m.value);
		csv_row(c, sn, "counter", ps, comm, val, id == IPCPERF_CNT_TASK_CLOCK ? "msec" : "",
			statout_cnt_info[i].text, run, pct, mv, m.unit, NULL);
	}
}

/* Write the two rows of an fd, one for each side. */
static void csv_fd(struct statout *c, const struct snap *sn, const struct proc_snap *p,
		   const char *ps, const struct fd_snap *fd)
{
	char fds[CLI_INT_LEN], folded[CLI_INT_LEN + 32];

	snprintf(fds, sizeof(fds), "%d", fd->fd);
	/* A fold of closed connections says how many it holds where a row has its detail. */
	snprintf(folded, sizeof(folded), "folded: %" PRIu64 " closed connections", fd->conns);
	for (int side = 0; side < 2; side++) {
		const struct ipcperf_io *io = side ? &fd->write : &fd->read;
		const struct ipcperf_moved *mv = side ? &fd->write_moved : &fd->read_moved;
		char zo[CLI_INT_LEN], zb[CLI_INT_LEN], o[CLI_INT_LEN], by[CLI_INT_LEN], er[CLI_INT_LEN], t[CLI_INT_LEN],
		     l1[CLI_INT_LEN], l2[CLI_INT_LEN], l3[CLI_INT_LEN], l4[CLI_INT_LEN],
		     l5[CLI_INT_LEN], ag[CLI_INT_LEN];

		csv_row(c, sn, "fd", ps, p->comm, fds, ipcperf_fd_kind_name(fd->kind), fd->object,
			side ? "write" : "read", U(o, io->ops), U(by, io->bytes), U(er, io->errors),
			U(t, io->time_ns), U(l1, io->lat_ns.min), U(l2, io->lat_ns.avg),
			U(l3, io->lat_ns.p50), U(l4, io->lat_ns.p99), U(l5, io->lat_ns.max),
			fd->folded ? folded : fd->detail, U(zo, mv->ops), U(zb, mv->bytes), U(ag, io->again), NULL);
	}
}

static void csv_syscall(struct statout *c, const struct snap *sn, const struct proc_snap *p,
			const char *ps, const struct sc_row *sc)
{
	char n[CLI_INT_LEN], er[CLI_INT_LEN], t[CLI_INT_LEN], av[CLI_INT_LEN], q[CLI_INT_LEN],
	     mn[CLI_INT_LEN], mx[CLI_INT_LEN], tid[CLI_INT_LEN] = "";
	char *errs = sc_errnos_str(sc);

	if (c->o->per_thread)
		snprintf(tid, sizeof(tid), "%d", (int)sc->tid);
	csv_row(c, sn, "syscall", ps, p->comm, sc->name, U(n, sc->calls), U(er, sc->errors),
		U(t, sc->time_ns), U(av, sc->lat_ns.avg), U(q, sc->lat_ns.p99),
		U(mn, sc->lat_ns.min), U(mx, sc->lat_ns.max), errs ? errs : "", tid, NULL);
	free(errs);
}

static void csv_syscall_total(struct statout *c, const struct snap *sn, const struct sc_row *sc)
{
	char n[CLI_INT_LEN], er[CLI_INT_LEN], t[CLI_INT_LEN], av[CLI_INT_LEN], q[CLI_INT_LEN],
	     mn[CLI_INT_LEN], mx[CLI_INT_LEN], m[CLI_INT_LEN];
	char *errs = sc_errnos_str(sc);

	csv_row(c, sn, "syscall_total", sc->name, U(n, sc->calls), U(er, sc->errors),
		U(t, sc->time_ns), U(av, sc->lat_ns.avg), U(q, sc->lat_ns.p99),
		U(mn, sc->lat_ns.min), U(mx, sc->lat_ns.max), errs ? errs : "", U(m, sc->merged),
		NULL);
	free(errs);
}

/* Write the rows of a process: its fds, its scheduling, its syscalls and its counters. */
static void csv_proc(struct statout *c, const struct snap *sn, const struct proc_snap *p)
{
	char ps[CLI_INT_LEN], a[CLI_INT_LEN], b[CLI_INT_LEN], d[CLI_INT_LEN], e[CLI_INT_LEN];

	snprintf(ps, sizeof(ps), "%d", (int)p->pid);
	for (size_t k = 0; k < p->nr_fds; k++)
		csv_fd(c, sn, p, ps, &p->fds[k]);
	csv_row(c, sn, "sched", ps, p->comm, U(a, p->voluntary), U(b, p->involuntary),
		U(d, p->wakeups), U(e, p->migrations), NULL);
	for (size_t k = 0; c->o->syscalls && k < p->scs.n; k++)
		csv_syscall(c, sn, p, ps, &p->scs.v[k]);
	if (p->cnt && p->cnt->valid)
		csv_counters(c, sn, p->pid, p->comm, p->cnt);
}

void statout_csv(struct statout *c, const struct snap *sn)
{
	char d[CLI_INT_LEN], l[CLI_INT_LEN], u[CLI_INT_LEN];
	bool any_cnt = false;

	if (!c->csv_header_done) {
		csv_header(c);
		c->csv_header_done = true;
	}
	for (size_t i = 0; i < sn->nr_procs; i++) {
		csv_proc(c, sn, &sn->procs[i]);
		any_cnt |= sn->procs[i].cnt && sn->procs[i].cnt->valid;
	}
	for (size_t k = 0; c->o->sc_total && k < sn->total_scs.n; k++)
		csv_syscall_total(c, sn, &sn->total_scs.v[k]);
	/* Without target processes of their own (-t, -a), write the sum under pid 0. */
	if (!any_cnt && sn->all && sn->all->valid)
		csv_counters(c, sn, 0, c->o->t.system_wide ? "system" : "all", sn->all);
	csv_row(c, sn, "summary", U(d, sn->duration_ns), U(l, sn->lost), U(u, sn->unpaired), NULL);
}
