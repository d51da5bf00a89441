/*
 * The text renderer of ipcperf stat: it writes a snapshot as the text
 * tables. statout-json.c writes JSON and statout-csv.c CSV.
 */
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

/* The cells of one side (read or write), headings or values: ops, bytes, then those @k shows. */
static void side_cells(FILE *f, const struct fdcols *k, const char *ops, const char *bytes,
		       const char *rate, const char *avg, const char *p99)
{
	fprintf(f, " %8s %10s", ops, bytes);
	if (k->rate)
		fprintf(f, " %9s", rate);
	if (k->avg)
		fprintf(f, " %8s", avg);
	if (k->p99)
		fprintf(f, " %8s", p99);
}

static void text_side(FILE *f, const struct ipcperf_io *io, uint64_t dur_ns,
		      const struct fdcols *k)
{
	char o[24], b[24], r[32], a[32], p[32];

	if (!io->ops) {
		side_cells(f, k, "0", "0", "-", "-", "-");
		return;
	}
	snprintf(o, sizeof(o), "%" PRIu64, io->ops);
	snprintf(b, sizeof(b), "%" PRIu64, io->bytes);
	snprintf(r, sizeof(r), "%.2f", mb_per_s(io->bytes, dur_ns));
	side_cells(f, k, o, b, dur_ns ? r : "-", fmt_ns(a, sizeof(a), io->lat_ns.avg),
		   fmt_ns(p, sizeof(p), io->lat_ns.p99));
}

/* Return the width of the columns of one side (read or write), its leading space included. */
static int side_width(const struct fdcols *k)
{
	return 1 + 8 + 1 + 10 + (k->rate ? 10 : 0) + (k->avg ? 9 : 0) + (k->p99 ? 9 : 0);
}

/*
 * Return the width of the whole row: fd, kind, object, both sides, errors, and
 * the longest detail.
 */
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

/* Write a title such as "------ read ------" over @w columns, with the word in the middle. */
static void side_title(FILE *f, const char *word, int w)
{
	int dashes = w - (int)strlen(word) - 2, left = dashes / 2;

	for (int i = 0; i < left; i++)
		fputc('-', f);
	fprintf(f, " %s ", word);
	for (int i = 0; i < dashes - left; i++)
		fputc('-', f);
}

/* Write the heading "ipcperf stat: WHAT, N s", folded on a narrow terminal (a long command). */
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
		side_cells(f, k, "ops", "bytes", "MB/s", "avg", "p99");
		if (!side)
			fputc(' ', f);
	}
	fprintf(f, " %7s%s\n", "errors", k->detail ? "  detail" : "");
}

/* Format the metric as the text table shows it, such as "    #    0.300 CPUs utilized". */
static void text_ratio(char *buf, size_t len, const struct cnt_set *set,
		       enum ipcperf_counter id, uint64_t elapsed_ns)
{
	struct statout_metric m;

	if (!statout_cnt_metric(&m, set, id, elapsed_ns))
		return;
	snprintf(buf, len, "    # %8.*f %s%s", m.prec, m.value,
		 id == IPCPERF_CNT_CACHE_MISSES ? "% " : "", m.unit);
}

static void text_counters(FILE *f, const struct cnt_set *set, const char *title,
			  uint64_t elapsed_ns)
{
	size_t asked = 0;

	for (size_t k = 0; k < STATOUT_NR_CNT; k++)
		asked += set->v[statout_cnt_info[k].id].status != IPCPERF_CNT_NOT_REQUESTED;
	if (!asked)
		return;	/* --no-counters */
	fprintf(f, "  %s:\n", title);
	for (size_t k = 0; k < STATOUT_NR_CNT; k++) {
		unsigned int i = statout_cnt_text_order[k];
		const struct ipcperf_counter_value *v = &set->v[statout_cnt_info[i].id];
		char num[48], ratio[64] = "";

		switch (v->status) {
		case IPCPERF_CNT_NOT_REQUESTED:
			continue;	/* left out by -e */
		case IPCPERF_CNT_NOT_SUPPORTED:
			fprintf(f, "  %20s      %s\n", "<not supported>", statout_cnt_info[i].text);
			continue;
		case IPCPERF_CNT_NOT_COUNTED:
			fprintf(f, "  %20s      %s\n", "<not counted>", statout_cnt_info[i].text);
			continue;
		default:
			break;
		}
		if (statout_cnt_info[i].id == IPCPERF_CNT_TASK_CLOCK)
			snprintf(num, sizeof(num), "%.3f msec", v->value / 1e6);
		else
			snprintf(num, sizeof(num), "%" PRIu64 "     ", v->value);
		text_ratio(ratio, sizeof(ratio), set, statout_cnt_info[i].id, elapsed_ns);
		fprintf(f, ratio[0] ? "  %25s %-18s%s" : "  %25s %s%s", num, statout_cnt_info[i].text, ratio);
		if (v->enabled_ns && v->running_ns < v->enabled_ns)
			fprintf(f, "    (%.2f%%)", 100.0 * v->running_ns / v->enabled_ns);
		fputc('\n', f);
	}
}

/* The most a row's object or detail shows. */
#define ROW_TEXT_LEN 320

/* Write "comm[pid]" of a row's peer, or "?" when unknown. */
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
 * Write what the table shows of row @fd: its object and detail, with its
 * peer. A group of several connections shows as "ENDPOINT <- peer[pid]"
 * (served), "-> ENDPOINT peer[pid]" (made), or "peer[pid]" (unix), with
 * "N conns".
 */
static void row_text(const struct fd_snap *fd, char *obj, size_t olen, char *det, size_t dlen)
{
	char peer[CLI_ESC_LEN(CLI_COMM_LEN) + 16], buf[ROW_TEXT_LEN];
	uint64_t again = fd->read.again + fd->write.again;
	const char *e;
	int n;

	/* Refusals of a non-blocking fd are not errors; they are put first in the detail. */
	if (again) {
		n = snprintf(det, dlen, "%" PRIu64 " would-block%s", again,
			     fd->conns > 1 || *fd->detail || fd->peer_pid ? ", " : "");
		if (n > 0 && (size_t)n < dlen) {
			det += n;
			dlen -= (size_t)n;
		}
	}
	peer_name(peer, sizeof(peer), fd);
	if (fd->conns > 1 || fd->folded) {
		cli_group_name(obj, olen, fd->role, cli_esc(buf, sizeof(buf), fd->endpoint), peer);
		snprintf(det, dlen, "%" PRIu64 " conns%s", fd->conns, fd->folded ? " closed, folded" : "");
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
		/* A group of connections has no single fd. */
		snprintf(fdn, sizeof(fdn), fd->conns > 1 || fd->folded ? "*" : "%d", fd->fd);
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
 * Write one line naming the fds whose bytes zero-copy calls moved, and how
 * many, since they are io_uring's blind spot. The fds are named as the
 * table's rows show them, so a group of connections appears as its row.
 */
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

/* Write the syscall table of a process, or with --per-thread one table per thread. */
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
				(unsigned int)getuid(), snap_left_after_ns(sn, p) / 1e9);
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
	/* End as perf stat does. */
	fprintf(f, "\n  %17.9f seconds time elapsed\n", sn->duration_ns / 1e9);
	if (sn->has_times)
		fprintf(f, "\n  %17.9f seconds user\n  %17.9f seconds sys\n", sn->user_ns / 1e9,
			sn->sys_ns / 1e9);
	fprintf(f, "\nlost events: %" PRIu64 ", unpaired syscalls: %" PRIu64 "\n", sn->lost,
		sn->unpaired);
	if (sn->is_interval)
		fputc('\n', f);
}

void statout_print(struct statout *c, const struct snap *sn)
{
	switch (c->fmt) {
	case FMT_JSON:
		statout_json(c, sn);
		break;
	case FMT_CSV:
		statout_csv(c, sn);
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

