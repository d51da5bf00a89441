/* ipcperf top's frames: its rows, sorted by a key and drawn to fit a screen. */
#include "config.h"
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "output.h"
#include "topview.h"

/* The longest line drawn before it is cut. */
#define LINE_LEN 1024

const char *topview_key_name(enum top_key key)
{
	static const char *const names[TOP_KEY__MAX] = {
		[TOP_KEY_BYTES] = "bytes", [TOP_KEY_OPS] = "ops", [TOP_KEY_TIME] = "time",
		[TOP_KEY_SWITCHES] = "switches",
	};

	return key < TOP_KEY__MAX ? names[key] : "bytes";
}

/* Where a frame is drawn, and how much of it is left. */
struct frame {
	FILE *f;
	int width;		/* 0: lines never cut */
	int left;		/* lines left; < 0: no limit */
	bool screen;
};

__attribute__((format(printf, 2, 3))) static void line(struct frame *fr, const char *fmt, ...)
{
	char buf[LINE_LEN];
	va_list ap;

	if (!fr->left)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (fr->width > 0 && (int)strlen(buf) > fr->width)
		buf[fr->width] = '\0';
	fprintf(fr->f, "%s%s\n", buf, fr->screen ? "\033[K" : "");
	if (fr->left > 0)
		fr->left--;
}

/* Format a count per second of the last interval in at most 7 columns, such as "40.1k". */
static const char *rate(char *buf, size_t len, uint64_t n, uint64_t ns)
{
	static const char *const unit[] = { "", "k", "M", "G" };
	double v = ns ? (double)n * 1e9 / (double)ns : 0.0;
	int u = 0;

	while (v >= 999.95 && u < 3) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, "%.1f%s", v, unit[u]);
	return buf;
}

/* Format the bytes per second of the last interval, such as "12.3 MB". */
static const char *byte_rate(char *buf, size_t len, uint64_t n, uint64_t ns)
{
	return fmt_bytes(buf, len, ns ? (uint64_t)((double)n * 1e9 / (double)ns + 0.5) : 0);
}

/* Return the share of the interval spent in the calls, in percent (over 100 with threads). */
static double busy_pct(uint64_t time_ns, uint64_t ns)
{
	return ns ? (double)time_ns * 100.0 / (double)ns : 0.0;
}

/* What processes and fds are ordered by: the key, largest first, then pid and fd. */
struct sort_key {
	uint64_t now, total;	/* the key's value in the last interval, and since the start */
	pid_t pid;
	int fd;			/* a process: 0 */
};

static int cmp_sort_keys(struct sort_key x, struct sort_key y)
{
	if (x.now != y.now)
		return x.now > y.now ? -1 : 1;
	if (x.total != y.total)
		return x.total > y.total ? -1 : 1;
	if (x.pid != y.pid)
		return x.pid < y.pid ? -1 : 1;
	return x.fd < y.fd ? -1 : x.fd > y.fd;
}

static struct sort_key proc_key(const struct top_proc *p, enum top_key k)
{
	switch (k) {
	case TOP_KEY_OPS:
		return (struct sort_key){ p->now.ops, p->total_ops, p->pid, 0 };
	case TOP_KEY_TIME:
		return (struct sort_key){ p->now.time_ns, p->total_bytes, p->pid, 0 };
	case TOP_KEY_SWITCHES:
		return (struct sort_key){ p->cs, p->total_cs, p->pid, 0 };
	case TOP_KEY_BYTES:
	default:
		return (struct sort_key){ p->now.bytes, p->total_bytes, p->pid, 0 };
	}
}

/*
 * Order processes largest first by the key in the last interval, then since the
 * start, then by pid.
 */
static int cmp_procs(const void *a, const void *b, void *arg)
{
	enum top_key k = *(const enum top_key *)arg;

	return cmp_sort_keys(proc_key(*(const struct top_proc *const *)a, k),
			     proc_key(*(const struct top_proc *const *)b, k));
}

/*
 * An fd's values for key @k. An fd has no switches of its own, so for
 * that key its calls count.
 */
static struct sort_key fd_key(const struct top_fd *f, enum top_key k)
{
	switch (k) {
	case TOP_KEY_OPS:
	case TOP_KEY_SWITCHES:
		return (struct sort_key){ f->now.ops, f->total_ops, f->pid, f->fd };
	case TOP_KEY_TIME:
		return (struct sort_key){ f->now.time_ns, f->total_bytes, f->pid, f->fd };
	case TOP_KEY_BYTES:
	default:
		return (struct sort_key){ f->now.bytes, f->total_bytes, f->pid, f->fd };
	}
}

/* The same for fds, then by fd. */
static int cmp_fds(const void *a, const void *b, void *arg)
{
	enum top_key k = *(const enum top_key *)arg;

	return cmp_sort_keys(fd_key(*(const struct top_fd *const *)a, k),
			     fd_key(*(const struct top_fd *const *)b, k));
}

/* Order flows by their bytes of the last interval, then since the start. */
static int cmp_flows(const void *a, const void *b)
{
	const struct top_flow *x = *(const struct top_flow *const *)a;
	const struct top_flow *y = *(const struct top_flow *const *)b;

	if (x->delta != y->delta)
		return x->delta > y->delta ? -1 : 1;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return strcmp(x->who, y->who);
}

/* Keep in @v, in order, the fds that made a call since the start, and return how many. */
static size_t fds_used(const struct top_fd **v, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (v[i]->total_ops)
			v[k++] = v[i];
	return k;
}

static int cmp_flows_r(const void *a, const void *b, void *arg)
{
	(void)arg;
	return cmp_flows(a, b);
}

/*
 * Share @avail lines among the sections: give one at a time to each that
 * has more, in turn, so that a long list leaves the others their share.
 */
static void share_rows(const size_t want[3], size_t give[3], size_t avail, bool unlimited)
{
	bool more = true;

	for (int i = 0; i < 3; i++)
		give[i] = unlimited ? want[i] : 0;
	while (!unlimited && avail && more) {
		more = false;
		for (int i = 0; i < 3 && avail; i++) {
			if (give[i] < want[i]) {
				give[i]++;
				avail--;
				more = true;
			}
		}
	}
}

/* The columns of the process table a narrow screen leaves out, in this order: IO%, CS/s. */
struct proc_cols {
	bool io, cs;
};

#define PROC_COLS_FULL 84

static struct proc_cols proc_cols(int width, enum top_key key)
{
	struct proc_cols k = { true, true };
	int w = PROC_COLS_FULL;

	if (width > 0 && w > width && key != TOP_KEY_TIME) {
		k.io = false;
		w -= 6;
	}
	if (width > 0 && w > width && key != TOP_KEY_SWITCHES)
		k.cs = false;
	return k;
}

static void draw_procs(struct topview *tv, struct frame *fr, const struct top_proc **v,
		       size_t n)
{
	struct proc_cols k = proc_cols(fr->width, tv->key);
	char io[32] = "", cs[32] = "", r1[16], r2[16], r3[16], r4[16];
	char comm[CLI_ESC_LEN(CLI_COMM_LEN)];

	if (k.io)
		snprintf(io, sizeof(io), " %5s", "IO%");
	if (k.cs)
		snprintf(cs, sizeof(cs), " %6s", "CS/s");
	line(fr, "%7s %-15s %7s %8s %8s%s%s %9s %11s", "PID", "COMM", "OPS/s", "READ/s", "WRITE/s",
	     io, cs, "OPS", "BYTES");
	for (size_t i = 0; i < n; i++) {
		const struct top_proc *p = v[i];

		if (k.io)
			snprintf(io, sizeof(io), " %5.1f", busy_pct(p->now.time_ns, tv->interval_ns));
		if (k.cs)
			snprintf(cs, sizeof(cs), " %6s", rate(r4, sizeof(r4), p->cs, tv->interval_ns));
		line(fr, "%7d %-15s %7s %8s %8s%s%s %9" PRIu64 " %11" PRIu64, (int)p->pid,
		     p->comm[0] ? cli_esc(comm, sizeof(comm), p->comm) : "?", rate(r1, sizeof(r1), p->now.ops, tv->interval_ns),
		     byte_rate(r2, sizeof(r2), p->rd, tv->interval_ns),
		     byte_rate(r3, sizeof(r3), p->wr, tv->interval_ns), io, cs,
		     p->total_ops, p->total_bytes);
	}
}

/* Format a group's peers: "redis-benchmark[42]", "3 peers", or "?" when none is known. */
static const char *peers_name(char *buf, size_t len, const struct top_fd *g)
{
	char comm[CLI_ESC_LEN(CLI_COMM_LEN)];

	if (g->peers > 1)
		snprintf(buf, len, "%u peers", g->peers);
	else if (g->peer_pid)
		snprintf(buf, len, "%s[%d]",
			 g->peer_comm[0] ? cli_esc(comm, sizeof(comm), g->peer_comm) : "?",
			 (int)g->peer_pid);
	else
		snprintf(buf, len, "?");
	return buf;
}

/*
 * Write the name of a group of connections @f as ipcperf stat names its
 * groups: "ENDPOINT <- peer[pid]" (accepted), "-> ENDPOINT peer[pid]"
 * (made), or "unix peer peer[pid]", with how many there are.
 */
static const char *group_text(char *buf, size_t len, const struct top_fd *f)
{
	char peer[CLI_ESC_LEN(CLI_COMM_LEN) + 32], e[CLI_ESC_LEN(128)];

	peers_name(peer, sizeof(peer), f);
	cli_group_name(buf, len, f->role, cli_esc(e, sizeof(e), f->object), peer);
	snprintf(buf + strlen(buf), len - strlen(buf), ", %" PRIu64 " conn%s", f->conns,
		 f->conns == 1 ? "" : "s");
	return buf;
}

static void draw_fds(struct topview *tv, struct frame *fr, const struct top_fd **v, size_t n)
{
	char r1[16], r2[16], fdn[CLI_INT_LEN], name[CLI_ESC_LEN(PATH_MAX) + 64];

	line(fr, "%7s %5s %-5s %7s %8s %5s %9s %11s  %s", "PID", "FD", "KIND", "OPS/s", "BYTES/s",
	     "IO%", "OPS", "BYTES", "OBJECT");
	for (size_t i = 0; i < n; i++) {
		const struct top_fd *f = v[i];

		bool group = !tv->per_fd && f->role != IPCPERF_GROUP_ONE;

		/* A group of several connections has no single fd. */
		if (group && f->conns != 1)
			snprintf(fdn, sizeof(fdn), "*");
		else
			snprintf(fdn, sizeof(fdn), "%d", f->fd);
		line(fr, "%7d %5s %-5s %7s %8s %5.1f %9" PRIu64 " %11" PRIu64 "  %s", (int)f->pid,
		     fdn, ipcperf_fd_kind_name(f->kind),
		     rate(r1, sizeof(r1), f->now.ops, tv->interval_ns),
		     byte_rate(r2, sizeof(r2), f->now.bytes, tv->interval_ns),
		     busy_pct(f->now.time_ns, tv->interval_ns), f->total_ops, f->total_bytes,
		     group ? group_text(name, sizeof(name), f) : cli_esc(name, sizeof(name), f->shown));
	}
}

static void draw_flows(struct topview *tv, struct frame *fr, const struct top_flow **v, size_t n)
{
	char r[16], name[CLI_ESC_LEN(PATH_MAX)];

	line(fr, "%8s %13s %-5s %-40s %s", "BYTES/s", "BYTES", "KIND", "WRITERS -> READERS",
	     "FLOWS");
	for (size_t i = 0; i < n; i++) {
		if (v[i]->conns > 1)
			snprintf(name, sizeof(name), "%" PRIu64 " %s", v[i]->conns,
				 v[i]->kind == IPCPERF_FD_PIPE ? "pipes" : "conns");
		else
			cli_esc(name, sizeof(name), v[i]->object);
		line(fr, "%8s %13" PRIu64 " %-5s %-40s %s",
		     byte_rate(r, sizeof(r), v[i]->delta, tv->interval_ns), v[i]->bytes,
		     ipcperf_fd_kind_name(v[i]->kind), v[i]->who, name);
	}
}

static void draw_heading(struct topview *tv, struct frame *fr)
{
	char groups[48] = "";

	if (!tv->per_fd)
		snprintf(groups, sizeof(groups), " in %zu groups", tv->groups.nr);
	line(fr, "ipcperf top: %s, %.1f s, every %.1f s, by %s%s%s", tv->what, tv->time_ns / 1e9,
	     tv->delay, topview_key_name(tv->key), tv->per_fd ? ", a row per fd" : "",
	     fr->screen ? " (keys: b bytes, o ops, t time, c switches, f per fd; q quits)" : "");
	line(fr, "%zu processes, %zu fds%s, %zu flows; last %.3f s: %" PRIu64 " records, %" PRIu64
	     " lost", tv->nr_procs, tv->fds.nr, groups, tv->nr_flows, tv->interval_ns / 1e9,
	     tv->records, tv->lost);
}

void topview_draw(struct topview *tv, FILE *f, int width, int height, bool screen)
{
	struct frame fr = { .f = f, .width = width, .left = height > 0 ? height - 1 : -1,
			    .screen = screen };
	enum top_key key = tv->key;
	const struct top_proc **pv = (const struct top_proc **)topview_sorted(
		tv->procs, tv->nr_procs, sizeof(*tv->procs), cmp_procs, &key);
	const struct top_rows *rows = tv->per_fd ? &tv->fds : &tv->groups;
	const struct top_fd **fv = (const struct top_fd **)topview_sorted(
		rows->v, rows->nr, sizeof(*rows->v), cmp_fds, &key);
	const struct top_flow **lv = (const struct top_flow **)topview_sorted(
		tv->flows, tv->nr_flows, sizeof(*tv->flows), cmp_flows_r, NULL);
	size_t want[3] = { pv ? tv->nr_procs : 0, fv ? fds_used(fv, rows->nr) : 0,
			   lv ? tv->nr_flows : 0 };
	size_t give[3];

	if (screen)
		fputs("\033[H", f);
	draw_heading(tv, &fr);
	/* Leave room for the heading's 2 lines, and a blank line and a title before each table. */
	share_rows(want, give, fr.left > 8 ? (size_t)fr.left - 8 : 0, fr.left < 0);
	line(&fr, "%s", "");
	draw_procs(tv, &fr, pv, give[0]);
	line(&fr, "%s", "");
	draw_fds(tv, &fr, fv, give[1]);
	line(&fr, "%s", "");
	draw_flows(tv, &fr, lv, give[2]);
	if (screen)
		fputs("\033[J", f);
	fflush(f);
	free(pv);
	free(fv);
	free(lv);
}
