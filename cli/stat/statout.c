/* The renderers of ipcperf stat: a snapshot as the text tables, JSON (schema 1) or CSV. */
#include "config.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "flowout.h"
#include "output.h"
#include "statout.h"

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


/* ------------------------------------------------------------------ text */

static double mb_per_s(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes / ((double)ns / 1e9) / 1e6 : 0.0;
}

/* Which columns of the fd table are shown, and how wide the object is (fit_fds()). */
struct fdcols {
	bool rate, avg, p99, detail;
	int ow;
};

static void text_side(FILE *f, const struct ipcperf_io *io, uint64_t dur_ns,
		      const struct fdcols *k)
{
	char a[32], p[32];

	if (!io->ops) {
		fprintf(f, " %8s %10s", "0", "0");
		if (k->rate)
			fprintf(f, " %9s", "-");
		if (k->avg)
			fprintf(f, " %8s", "-");
		if (k->p99)
			fprintf(f, " %8s", "-");
		return;
	}
	fprintf(f, " %8" PRIu64 " %10" PRIu64, io->ops, io->bytes);
	if (k->rate && dur_ns)
		fprintf(f, " %9.2f", mb_per_s(io->bytes, dur_ns));
	else if (k->rate)
		fprintf(f, " %9s", "-");
	if (k->avg)
		fprintf(f, " %8s", fmt_ns(a, sizeof(a), io->lat_ns.avg));
	if (k->p99)
		fprintf(f, " %8s", fmt_ns(p, sizeof(p), io->lat_ns.p99));
}

/* Columns of one side (read or write), its leading space included. */
static int side_width(const struct fdcols *k)
{
	return 1 + 8 + 1 + 10 + (k->rate ? 10 : 0) + (k->avg ? 9 : 0) + (k->p99 ? 9 : 0);
}

/* The whole row: fd, kind, object, both sides, errors, and the longest detail. */
static int fds_width(const struct fdcols *k, int detail_w)
{
	return 2 + 5 + 1 + 7 + 1 + k->ow + 1 + side_width(k) + 1 + side_width(k) + 1 + 7 +
	       (k->detail && detail_w ? 2 + detail_w : 0);
}

/*
 * On a terminal narrower than the table, columns go in this order until it
 * fits (ipcperf-stat(1)): the detail, MB/s, avg, p99; then the object is cut
 * (to 12 at the least).
 */
static void fit_fds(struct fdcols *k, int detail_w, int term)
{
	bool *drop[] = { &k->detail, &k->rate, &k->avg, &k->p99 };
	int over;

	for (size_t i = 0; term > 0 && fds_width(k, detail_w) > term && i < 4; i++)
		*drop[i] = false;
	over = term > 0 ? fds_width(k, detail_w) - term : 0;
	if (over > 0 && k->ow > 12)
		k->ow = k->ow - over > 12 ? k->ow - over : 12;
}

/* "------ read ------" over @w columns, the word in the middle. */
static void side_title(FILE *f, const char *word, int w)
{
	int dashes = w - (int)strlen(word) - 2, left = dashes / 2;

	for (int i = 0; i < left; i++)
		fputc('-', f);
	fprintf(f, " %s ", word);
	for (int i = 0; i < dashes - left; i++)
		fputc('-', f);
}

/* "ipcperf stat: WHAT, N s", folded on a narrow terminal (a long command). */
static void text_heading(FILE *f, const char *what, uint64_t duration_ns)
{
	char head[CLI_WHAT_LEN + 64];

	snprintf(head, sizeof(head), "ipcperf stat: %s, %.3f s", what, duration_ns / 1e9);
	cli_put_folded(f, head, cli_term_width(f), "  ");
}

static void text_fds_head(FILE *f, const struct fdcols *k)
{
	fprintf(f, "  %5s %-7s %-*s  ", "", "", k->ow, "");
	side_title(f, "read", side_width(k) - 1);
	fputs("  ", f);
	side_title(f, "write", side_width(k) - 1);
	fputc('\n', f);
	fprintf(f, "  %5s %-7s %-*s ", "fd", "kind", k->ow, "object");
	for (int side = 0; side < 2; side++) {
		fprintf(f, " %8s %10s", "ops", "bytes");
		if (k->rate)
			fprintf(f, " %9s", "MB/s");
		if (k->avg)
			fprintf(f, " %8s", "avg");
		if (k->p99)
			fprintf(f, " %8s", "p99");
		if (!side)
			fputc(' ', f);
	}
	fprintf(f, " %7s%s\n", "errors", k->detail ? "  detail" : "");
}

/* What perf stat writes after a count: a value and its unit ("CPUs utilized", "K/sec"). */
struct cnt_metric {
	double value;
	char unit[24];
	int prec;	/* decimals, as perf stat prints them */
};

/* A rate as perf stat gives it: 12.345 "K/sec". */
static void rate_metric(struct cnt_metric *m, double per_sec)
{
	static const char *const unit[] = { "", "K", "M", "G" };
	int u = 0;

	while (per_sec >= 1000 && u < 3) {
		per_sec /= 1000;
		u++;
	}
	m->value = per_sec;
	snprintf(m->unit, sizeof(m->unit), "%s/sec", unit[u]);
}

/* @a / @b into @m as @unit, when @b's counter counted and is not 0. */
static bool ratio_metric(struct cnt_metric *m, double a, const struct ipcperf_counter_value *b,
			 double scale, const char *unit, int prec)
{
	if (b->status != IPCPERF_CNT_OK || !b->value)
		return false;
	m->value = scale * a / (double)b->value;
	m->prec = prec;
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	return true;
}

/*
 * The metric perf stat gives a counter: CPUs utilized for task-clock (of
 * @elapsed_ns, the time the counts cover), GHz for cycles (of task-clock),
 * insn per cycle, the share of cache misses, a rate for the others.
 * @return false when there is none (nothing to divide by).
 */
static bool cnt_metric(struct cnt_metric *m, const struct cnt_set *set, enum ipcperf_counter id,
		       uint64_t elapsed_ns)
{
	double v = (double)set->v[id].value;

	m->prec = 3;
	switch (id) {
	case IPCPERF_CNT_TASK_CLOCK:
		if (!elapsed_ns)
			return false;
		m->value = v / (double)elapsed_ns;
		snprintf(m->unit, sizeof(m->unit), "CPUs utilized");
		return true;
	case IPCPERF_CNT_CYCLES:
		return ratio_metric(m, v, &set->v[IPCPERF_CNT_TASK_CLOCK], 1, "GHz", 3);
	case IPCPERF_CNT_INSTRUCTIONS:
		return ratio_metric(m, v, &set->v[IPCPERF_CNT_CYCLES], 1, "insn per cycle", 2);
	case IPCPERF_CNT_CACHE_MISSES:
		return ratio_metric(m, v, &set->v[IPCPERF_CNT_CACHE_REFERENCES], 100,
				    "of all cache refs", 3);
	default:
		if (!elapsed_ns)
			return false;
		rate_metric(m, v / ((double)elapsed_ns / 1e9));
		return true;
	}
}

/* The metric as the text table shows it: "    #    0.300 CPUs utilized". */
static void text_ratio(char *buf, size_t len, const struct cnt_set *set,
		       enum ipcperf_counter id, uint64_t elapsed_ns)
{
	struct cnt_metric m;

	if (!cnt_metric(&m, set, id, elapsed_ns))
		return;
	snprintf(buf, len, "    # %8.*f %s%s", m.prec, m.value,
		 id == IPCPERF_CNT_CACHE_MISSES ? "% " : "", m.unit);
}

static void text_counters(FILE *f, const struct cnt_set *set, const char *title,
			  uint64_t elapsed_ns)
{
	size_t asked = 0;

	for (size_t k = 0; k < NR_CNT_INFO; k++)
		asked += set->v[cnt_info[k].id].status != IPCPERF_CNT_NOT_REQUESTED;
	if (!asked)
		return;	/* --no-counters */
	fprintf(f, "  %s:\n", title);
	for (size_t k = 0; k < NR_CNT_INFO; k++) {
		unsigned int i = cnt_text_order[k];
		const struct ipcperf_counter_value *v = &set->v[cnt_info[i].id];
		char num[48], ratio[64] = "";

		switch (v->status) {
		case IPCPERF_CNT_NOT_REQUESTED:
			continue;	/* left out by -e */
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
		text_ratio(ratio, sizeof(ratio), set, cnt_info[i].id, elapsed_ns);
		fprintf(f, ratio[0] ? "  %25s %-18s%s" : "  %25s %s%s", num, cnt_info[i].text, ratio);
		if (v->enabled_ns && v->running_ns < v->enabled_ns)
			fprintf(f, "    (%.2f%%)", 100.0 * v->running_ns / v->enabled_ns);
		fputc('\n', f);
	}
}

/* The most a row's object or detail shows. */
#define ROW_TEXT_LEN 320

/* "comm[pid]" of a row's peer, "?" when unknown. */
static void peer_name(char *buf, size_t len, const struct fd_snap *fd)
{
	char comm[CLI_ESC_LEN(CLI_COMM_LEN)];

	if (fd->peer_pid)
		snprintf(buf, len, "%s[%d]", cli_esc(comm, sizeof(comm), fd->peer_comm),
			 (int)fd->peer_pid);
	else
		snprintf(buf, len, "?");
}

/*
 * What the table shows of row @fd: its object and detail, with its peer; a
 * group of several connections as "ENDPOINT <- peer[pid]" (served),
 * "-> ENDPOINT peer[pid]" (made), "peer[pid]" (unix), and "N conns".
 */
static void row_text(const struct fd_snap *fd, char *obj, size_t olen, char *det, size_t dlen)
{
	char peer[CLI_ESC_LEN(CLI_COMM_LEN) + 16], buf[ROW_TEXT_LEN];
	uint64_t again = fd->read.again + fd->write.again;
	const char *e;
	int n;

	/* Refusals of a non-blocking fd are no errors: said first in the detail. */
	if (again) {
		n = snprintf(det, dlen, "%" PRIu64 " would-block%s", again,
			     fd->conns > 1 || *fd->detail || fd->peer_pid ? ", " : "");
		if (n > 0 && (size_t)n < dlen) {
			det += n;
			dlen -= (size_t)n;
		}
	}
	peer_name(peer, sizeof(peer), fd);
	if (fd->conns > 1) {
		e = cli_esc(buf, sizeof(buf), fd->endpoint);
		if (fd->role == IPCPERF_GROUP_SERVED)
			snprintf(obj, olen, "%s <- %s", e, peer);
		else if (fd->role == IPCPERF_GROUP_CLIENT)
			snprintf(obj, olen, "-> %s %s", e, peer);
		else
			snprintf(obj, olen, "unix peer %s", peer);
		snprintf(det, dlen, "%" PRIu64 " conns", fd->conns);
		return;
	}
	cli_esc(obj, olen, fd->object);
	e = cli_esc(buf, sizeof(buf), fd->detail);
	if (!fd->peer_pid)
		snprintf(det, dlen, "%s", e);
	else if (!strncmp(fd->detail, "peer ", 5))
		snprintf(det, dlen, "%s %s", e, peer);
	else
		snprintf(det, dlen, "%s%speer %s", e, *e ? ", " : "", peer);
}

static void text_fds(struct statout *c, const struct snap *sn, const struct proc_snap *p)
{
	FILE *f = c->f;
	struct fdcols k = { .rate = true, .avg = true, .p99 = true, .detail = true, .ow = 6 };
	size_t shown = 0, hidden = 0;
	uint64_t by_ports = 0;
	int detail_w = 0;
	const struct fd_snap *rows = c->o->per_fd ? p->fds : p->groups;
	size_t nr = c->o->per_fd ? p->nr_fds : p->nr_groups;
	size_t omitted = c->o->per_fd ? p->fds_omitted : p->groups_omitted;

	for (size_t i = 0; i < nr; i++) {
		char o[ROW_TEXT_LEN], dt[ROW_TEXT_LEN];
		int l, d;

		if (!fd_active(&rows[i]) && !c->o->verbose)
			continue;
		row_text(&rows[i], o, sizeof(o), dt, sizeof(dt));
		l = (int)strlen(o);
		d = (int)strlen(dt);
		shown++;
		by_ports += rows[i].by_ports;
		if (l > k.ow)
			k.ow = l > 40 ? 40 : l;
		if (d > detail_w)
			detail_w = d;
	}
	hidden = nr - shown;
	fit_fds(&k, detail_w, cli_term_width(f));
	if (shown)
		text_fds_head(f, &k);
	for (size_t i = 0; i < nr; i++) {
		const struct fd_snap *fd = &rows[i];
		char o[ROW_TEXT_LEN], dt[ROW_TEXT_LEN], fdn[CLI_INT_LEN];
		const char *obj = o;
		char cut[48];

		if (!fd_active(fd) && !c->o->verbose)
			continue;
		row_text(fd, o, sizeof(o), dt, sizeof(dt));
		if ((int)strlen(obj) > k.ow) {
			/* A long path: keep its end, which tells most. */
			snprintf(cut, sizeof(cut), "...%s", obj + strlen(obj) - (size_t)(k.ow - 3));
			obj = cut;
		}
		/* A group of connections has no one fd. */
		snprintf(fdn, sizeof(fdn), fd->conns > 1 ? "*" : "%d", fd->fd);
		fprintf(f, "  %5s %-7s %-*s ", fdn, ipcperf_fd_kind_name(fd->kind), k.ow, obj);
		text_side(f, &fd->read, sn->duration_ns, &k);
		fputc(' ', f);
		text_side(f, &fd->write, sn->duration_ns, &k);
		fprintf(f, " %7" PRIu64 "%s%s\n", fd->read.errors + fd->write.errors,
			k.detail && *dt ? "  " : "", k.detail ? dt : "");
	}
	if (by_ports)
		fprintf(f, "  (%" PRIu64 " connection%s made before the capture (no accept or connect "
			"seen): grouped by port, net.ipv4.ip_local_port_range)\n", by_ports,
			by_ports == 1 ? "" : "s");
	if (omitted)
		fprintf(f, "  (%zu more fd row%s left out by --top)\n", omitted,
			omitted == 1 ? "" : "s");
	if (hidden)
		fprintf(f, "  (%zu fd%s without I/O not shown: -v shows them)\n", hidden,
			hidden == 1 ? "" : "s");
}

/*
 * One line: the fds (the rows the table shows: a group of connections as
 * its table row) whose bytes zero-copy calls moved, and how many;
 * io_uring's blind spot.
 */
/* When @p left what the user may see (proc_snap.left_ns), from the session's start. */
static uint64_t left_after_ns(const struct snap *sn, const struct proc_snap *p)
{
	return p->left_ns > sn->start_ns ? p->left_ns - sn->start_ns : 0;
}

static void text_moved(FILE *f, const struct proc_snap *p, bool per_fd)
{
	const struct fd_snap *rows = per_fd ? p->fds : p->groups;
	size_t nr = per_fd ? p->nr_fds : p->nr_groups;
	bool any = false;

	for (size_t i = 0; i < nr; i++) {
		const struct fd_snap *fd = &rows[i];
		const struct ipcperf_moved *mv[2] = { &fd->read_moved, &fd->write_moved };
		char o[ROW_TEXT_LEN], dt[ROW_TEXT_LEN], which[2 * ROW_TEXT_LEN + 8];

		if (fd->conns > 1) {
			row_text(fd, o, sizeof(o), dt, sizeof(dt));
			snprintf(which, sizeof(which), "%s (%s)", o, dt);
		} else {
			snprintf(which, sizeof(which), "fd %d", fd->fd);
		}
		for (int s = 0; s < 2; s++) {
			if (!mv[s]->ops)
				continue;
			fprintf(f, "%s %s %s %" PRIu64 " B in %" PRIu64 " call%s",
				any ? ";" : "  zero-copy (sendfile, splice, ...):", which,
				s ? "written" : "read", mv[s]->bytes, mv[s]->ops,
				mv[s]->ops == 1 ? "" : "s");
			any = true;
		}
	}
	if (any)
		fputc('\n', f);
	if (p->uring_unaccounted)
		fprintf(f, "  io_uring ops not accounted: %" PRIu64 "\n", p->uring_unaccounted);
}

/* The syscall table of a process, or with --per-thread one table per thread. */
static void text_syscalls(struct statout *c, const struct proc_snap *p)
{
	FILE *f = c->f;
	size_t i = 0;
	char comm[CLI_ESC_LEN(CLI_COMM_LEN)];

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
		tc = thread_names_get(c->names, p->scs.v[i].tid);
		fprintf(f, "%s  syscalls of %d/%d %s\n", i ? "\n" : "", (int)p->pid,
			(int)p->scs.v[i].tid, cli_esc(comm, sizeof(comm), tc ? tc : p->comm));
		sc_text_table(f, "  ", &p->scs.v[i], k - i, c->o->sc_errnos);
		i = k;
	}
}

static void print_text(struct statout *c, const struct snap *sn)
{
	FILE *f = c->f;
	bool any_cnt = false;
	size_t shown = 0;
	char comm[CLI_ESC_LEN(CLI_COMM_LEN)];

	if (sn->is_interval)
		fprintf(f, "--- %.3f s: interval of %.3f s ---\n", sn->time_ns / 1e9,
			sn->duration_ns / 1e9);
	else if (c->o->interval_ms)
		fprintf(f, "--- total: %s, %.3f s ---\n", c->what, sn->duration_ns / 1e9);
	else
		text_heading(f, c->what, sn->duration_ns);

	for (size_t i = 0; i < sn->nr_procs; i++) {
		const struct proc_snap *p = &sn->procs[i];

		if (!c->o->verbose && !proc_active(p) && !p->cnt && !p->left_ns)
			continue;
		shown++;
		if (p->folded)
			fprintf(f, "\n%s: %" PRIu64 " exited process%s folded\n",
				cli_esc(comm, sizeof(comm), p->comm), p->folded,
				p->folded == 1 ? "" : "es");
		else
			fprintf(f, "\npid %d %s%s\n", (int)p->pid, cli_esc(comm, sizeof(comm), p->comm),
				p->exited ? " (exited)" : "");
		if (p->left_ns)
			fprintf(f, "  left what uid %u may see at %.3f s: it executed a set-user-ID, "
				"set-group-ID or file-capability program; nothing of it after\n",
				(unsigned int)getuid(), left_after_ns(sn, p) / 1e9);
		if (!c->o->no_fds)
			text_fds(c, sn, p);
		text_moved(f, p, c->o->per_fd);
		fprintf(f, "  context switches: %" PRIu64 " voluntary, %" PRIu64 " involuntary;"
			" wakeups: %" PRIu64 "; cpu migrations: %" PRIu64 "\n", p->voluntary,
			p->involuntary, p->wakeups, p->migrations);
		if (c->o->syscalls && !c->o->sc_total)
			text_syscalls(c, p);
		if (p->cnt) {
			any_cnt = true;
			text_counters(f, p->cnt, "counters (this process and its children)",
				      sn->duration_ns);
		}
	}
	if (!shown)
		fprintf(f, "\n(no activity)\n");
	if (c->o->syscalls && c->o->sc_total) {
		size_t n = 0;

		for (size_t i = 0; i < sn->nr_procs; i++)
			n += sn->procs[i].scs.n > 0;
		fprintf(f, "\nsyscalls of all %zu process%s together\n", n, n == 1 ? "" : "es");
		if (sn->total_scs.n)
			sc_text_table(f, "  ", sn->total_scs.v, sn->total_scs.n, c->o->sc_errnos);
		else
			fprintf(f, "  (no syscalls)\n");
	}
	if (!any_cnt && sn->all && sn->all->valid) {
		fputc('\n', f);
		text_counters(f, sn->all, c->o->t.system_wide ? "counters (whole system)"
						       : "counters (all targets)", sn->duration_ns);
	}
	/* as perf stat ends */
	fprintf(f, "\n  %17.9f seconds time elapsed\n", sn->duration_ns / 1e9);
	if (sn->has_times)
		fprintf(f, "\n  %17.9f seconds user\n  %17.9f seconds sys\n", sn->user_ns / 1e9,
			sn->sys_ns / 1e9);
	fprintf(f, "\nlost events: %" PRIu64 ", unpaired syscalls: %" PRIu64 "\n", sn->lost,
		sn->unpaired);
	if (sn->is_interval)
		fputc('\n', f);
}

/* ------------------------------------------------------------------ JSON */

static void json_io(struct json *j, const char *key, const struct ipcperf_io *io,
		    const struct ipcperf_moved *mv)
{
	json_object_begin(j, key);
	json_u64(j, "ops", io->ops);
	json_u64(j, "bytes", io->bytes);
	json_u64(j, "errors", io->errors);
	json_u64(j, "time_ns", io->time_ns);
	json_lat(j, "lat_ns", &io->lat_ns);
	json_u64(j, "msgs", io->msgs);
	json_u64(j, "zero_copy_ops", mv->ops);
	json_u64(j, "zero_copy_bytes", mv->bytes);
	json_u64(j, "again", io->again);
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
					      : v->status == IPCPERF_CNT_NOT_REQUESTED ? "not requested"
					      : "not counted");
	}
	json_object_end(j);
}

/* The process at the other end: its pid and name, null when not known. */
static void json_peer(struct json *j, const struct fd_snap *fd)
{
	if (fd->peer_pid) {
		json_i64(j, "peer_pid", fd->peer_pid);
		json_str(j, "peer_comm", fd->peer_comm);
	} else {
		json_null(j, "peer_pid");
		json_null(j, "peer_comm");
	}
}

static void json_fd(struct json *j, const struct fd_snap *fd)
{
	json_object_begin(j, NULL);
	json_i64(j, "fd", fd->fd);
	json_str(j, "object", fd->object);
	json_str(j, "kind", ipcperf_fd_kind_name(fd->kind));
	json_str(j, "detail", fd->detail);
	json_io(j, "read", &fd->read, &fd->read_moved);
	json_io(j, "write", &fd->write, &fd->write_moved);
	json_peer(j, fd);
	json_object_end(j);
}

static const char *const group_roles[] = {
	[IPCPERF_GROUP_ONE] = "fd", [IPCPERF_GROUP_SERVED] = "served",
	[IPCPERF_GROUP_CLIENT] = "client", [IPCPERF_GROUP_UNIX] = "unix",
};

static void json_group(struct json *j, const struct fd_snap *g)
{
	json_object_begin(j, NULL);
	json_str(j, "kind", ipcperf_fd_kind_name(g->kind));
	json_str(j, "grouped", (size_t)g->role < sizeof(group_roles) / sizeof(group_roles[0]) &&
			       group_roles[g->role] ? group_roles[g->role] : "fd");
	json_str(j, "endpoint", g->endpoint);
	json_u64(j, "conns", g->conns);
	json_u64(j, "by_ports", g->by_ports);
	json_i64(j, "fd", g->fd);
	json_str(j, "object", g->object);
	json_str(j, "detail", g->detail);
	json_peer(j, g);
	json_io(j, "read", &g->read, &g->read_moved);
	json_io(j, "write", &g->write, &g->write_moved);
	json_object_end(j);
}

static void json_proc(struct statout *c, struct json *j, const struct snap *sn,
		      const struct proc_snap *p)
{
	json_object_begin(j, NULL);
	json_i64(j, "pid", p->pid);
	json_str(j, "comm", p->comm);
	json_bool(j, "exited", p->exited);
	if (p->folded)
		json_u64(j, "folded_processes", p->folded);
	json_u64(j, "threads", p->threads);
	json_object_begin(j, "context_switches");
	json_u64(j, "voluntary", p->voluntary);
	json_u64(j, "involuntary", p->involuntary);
	json_object_end(j);
	json_u64(j, "cpu_migrations", p->migrations);
	json_u64(j, "wakeups", p->wakeups);
	json_u64(j, "io_uring_unaccounted", p->uring_unaccounted);
	if (p->left_ns)
		json_u64(j, "left_after_ns", left_after_ns(sn, p));
	json_counters(j, "counters", p->cnt);
	if (p->cnt && p->cnt->valid)
		json_counter_status(j, "counters_status", p->cnt);
	json_array_begin(j, "fds");
	for (size_t k = 0; k < p->nr_fds; k++)
		json_fd(j, &p->fds[k]);
	json_array_end(j);
	if (p->fds_omitted)
		json_u64(j, "fds_omitted", p->fds_omitted);
	json_array_begin(j, "groups");
	for (size_t k = 0; k < p->nr_groups; k++)
		json_group(j, &p->groups[k]);
	json_array_end(j);
	if (p->groups_omitted)
		json_u64(j, "groups_omitted", p->groups_omitted);
	sc_json_rows(j, "syscalls", p->scs.v, p->scs.n, c->o->per_thread, false);
	json_object_end(j);
}

static void print_json(struct statout *c, const struct snap *sn)
{
	const struct cli_summary sum = {
		.duration_ns = sn->duration_ns, .lost = sn->lost, .unpaired = sn->unpaired,
		.records = sn->records, .fd_identity = sn->fd_identity,
		.syscall_records = sn->syscall_records,
		.sched_records = sn->sched_records,
		.exit_status = sn->exit_status,
	};
	struct json j;

	/* With -I, one document a line (NDJSON). */
	json_init(&j, c->f, !c->o->interval_ms);
	json_doc_begin(&j);
	if (c->o->interval_ms) {
		json_bool(&j, "interval", sn->is_interval);
		json_u64(&j, "time_ns", sn->time_ns);
	}
	json_doc_summary(&j, &sum);
	json_array_begin(&j, "processes");
	for (size_t i = 0; i < sn->nr_procs; i++)
		json_proc(c, &j, sn, &sn->procs[i]);
	json_array_end(&j);
	if (c->o->sc_total)
		sc_json_rows(&j, "syscalls_total", sn->total_scs.v, sn->total_scs.n, false, true);
	/* Over all targets (-a: the whole system); a process's own are under it. */
	json_counters(&j, "counters", sn->all);
	if (sn->all && sn->all->valid)
		json_counter_status(&j, "counters_status", sn->all);
	if (sn->flows) {
		flowout_json(&j, sn->flows);
	} else {
		/* The contract's key is always there; flows are computed with --flows. */
		json_array_begin(&j, "flows");
		json_array_end(&j);
	}
	json_object_end(&j);
	json_end_document(&j);
}

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

/* Fields of one row; NULL ends the list. */
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
		/* Fields after lat_p99_ns were added later: appended, so old readers still work. */
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
 * A counter's value as perf stat -x writes it: task-clock in msec with 2
 * decimals, counts as integers, <not supported> or <not counted>.
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

/* A counter row: pid and comm, then perf stat -x's fields. */
static void csv_counters(struct statout *c, const struct snap *sn, pid_t pid, const char *comm,
			 const struct cnt_set *set)
{
	char ps[16], val[32], run[CLI_INT_LEN], pct[16], mv[32];

	snprintf(ps, sizeof(ps), "%d", (int)pid);
	for (size_t k = 0; k < NR_CNT_INFO; k++) {
		unsigned int i = cnt_text_order[k];
		enum ipcperf_counter id = cnt_info[i].id;
		const struct ipcperf_counter_value *v = &set->v[id];
		struct cnt_metric m = { .unit = "" };
		bool ok = v->status == IPCPERF_CNT_OK;

		if (v->status == IPCPERF_CNT_NOT_REQUESTED)
			continue;	/* left out by -e */
		csv_cnt_value(val, sizeof(val), v, id == IPCPERF_CNT_TASK_CLOCK);
		U(run, ok ? v->running_ns : 0);
		snprintf(pct, sizeof(pct), "%.2f",
			 !ok ? (v->status == IPCPERF_CNT_NOT_SUPPORTED ? 100.0 : 0.0)
			     : v->enabled_ns ? 100.0 * v->running_ns / v->enabled_ns : 100.0);
		mv[0] = 0;
		if (ok && cnt_metric(&m, set, id, sn->duration_ns))
			snprintf(mv, sizeof(mv), "%.*f", m.prec, m.value);
		csv_row(c, sn, "counter", ps, comm, val, id == IPCPERF_CNT_TASK_CLOCK ? "msec" : "",
			cnt_info[i].text, run, pct, mv, m.unit, NULL);
	}
}

/* The two rows of an fd, a side each. */
static void csv_fd(struct statout *c, const struct snap *sn, const struct proc_snap *p,
		   const char *ps, const struct fd_snap *fd)
{
	char fds[CLI_INT_LEN];

	snprintf(fds, sizeof(fds), "%d", fd->fd);
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
			fd->detail, U(zo, mv->ops), U(zb, mv->bytes), U(ag, io->again), NULL);
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

/* The rows of a process: its fds, its scheduling, its syscalls, its counters. */
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

static void print_csv(struct statout *c, const struct snap *sn)
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
	/* No target process of its own (-t, -a): the sum, under pid 0. */
	if (!any_cnt && sn->all && sn->all->valid)
		csv_counters(c, sn, 0, c->o->t.system_wide ? "system" : "all", sn->all);
	csv_row(c, sn, "summary", U(d, sn->duration_ns), U(l, sn->lost), U(u, sn->unpaired), NULL);
}

void statout_print(struct statout *c, const struct snap *sn)
{
	switch (c->fmt) {
	case FMT_JSON:
		print_json(c, sn);
		break;
	case FMT_CSV:
		print_csv(c, sn);
		break;
	default:
		print_text(c, sn);
		if (sn->flows) {
			struct flowout fo;

			if (flowout_load(&fo, sn->flows, sn->flow_stats) == 0) {
				fo.per_flow = true;	/* stat's flows: a row each, as its --per-fd rows */
				fprintf(c->f, "\nflows:\n");
				flowout_text(c->f, &fo, sn->duration_ns);
				flowout_free(&fo);
			}
		}
		break;
	}
	fflush(c->f);
}

