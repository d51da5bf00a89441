/* ipcperf top's rows: taken in interval by interval, sorted by a key, drawn to fit a screen. */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "flowgroup.h"
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

/* ------------------------------------------------------------------ the rows */

static int cmp_proc_key(const void *key, const void *elem)
{
	pid_t a = *(const pid_t *)key, b = ((const struct top_proc *)elem)->pid;

	return a < b ? -1 : a > b;
}

/* The process @pid, inserted in pid order if new; NULL when out of memory. */
static struct top_proc *proc_of(struct topview *tv, pid_t pid)
{
	struct top_proc *p;
	size_t at;

	if (cli_bsearch(&pid, tv->procs, tv->nr_procs, sizeof(*tv->procs), cmp_proc_key, &at))
		return &tv->procs[at];
	if (cli_grow((void **)&tv->procs, &tv->cap_procs, tv->nr_procs + 1, sizeof(*p)) < 0) {
		tv->oom = true;
		return NULL;
	}
	p = cli_insert_at(tv->procs, tv->nr_procs++, sizeof(*p), at);
	p->pid = pid;
	return p;
}

struct fd_key {
	pid_t pid;
	int fd;
	const char *object;
};

static int cmp_fd_key(const void *key, const void *elem)
{
	const struct fd_key *k = key;
	const struct top_fd *f = elem;

	if (k->pid != f->pid)
		return k->pid < f->pid ? -1 : 1;
	if (k->fd != f->fd)
		return k->fd < f->fd ? -1 : 1;
	return strcmp(k->object, f->object);
}

static struct top_fd *fd_of(struct topview *tv, const struct ipcperf_fd_row *row)
{
	struct fd_key k = { row->pid, row->fd, row->object ? row->object : "unknown" };
	struct top_fd *f;
	size_t at;

	if (cli_bsearch(&k, tv->fds.v, tv->fds.nr, sizeof(*tv->fds.v), cmp_fd_key, &at))
		return &tv->fds.v[at];
	if (cli_grow((void **)&tv->fds.v, &tv->fds.cap, tv->fds.nr + 1, sizeof(*f)) < 0) {
		tv->oom = true;
		return NULL;
	}
	f = cli_insert_at(tv->fds.v, tv->fds.nr++, sizeof(*f), at);
	*f = (struct top_fd){ .pid = row->pid, .fd = row->fd, .kind = row->kind,
			      .object = strdup(k.object), .shown = strdup(""), .endpoint = strdup("") };
	if (!f->object || !f->shown || !f->endpoint) {
		tv->oom = true;
		free(f->object);
		free(f->shown);
		free(f->endpoint);
		memmove(f, f + 1, (--tv->fds.nr - at) * sizeof(*f));
		return NULL;
	}
	return f;
}

/* *@s as @now, copied if it changed. @return 0, or -ENOMEM (*@s as it was). */
static int set_str(char **s, const char *now)
{
	char *c;

	if (!strcmp(*s, now))
		return 0;
	if (!(c = strdup(now)))
		return -ENOMEM;
	free(*s);
	*s = c;
	return 0;
}

/*
 * What fd @f is as @row says now: a connection's addresses, peer and origin
 * may be learnt after its first calls.
 */
static int fd_known(struct top_fd *f, const struct ipcperf_fd_row *row)
{
	f->role = row->group_role;
	f->peer_pid = row->peer_pid;
	snprintf(f->peer_comm, sizeof(f->peer_comm), "%s", row->peer_comm ? row->peer_comm : "");
	if (set_str(&f->shown, row->detail && *row->detail ? row->detail : f->object) < 0 ||
	    set_str(&f->endpoint, row->group_endpoint ? row->group_endpoint : "") < 0)
		return -ENOMEM;
	return 0;
}

static int on_proc(void *ctx, const struct ipcperf_proc_row *row)
{
	struct topview *tv = ctx;
	struct top_proc *p = proc_of(tv, row->pid);

	if (!p)
		return -ENOMEM;
	if (row->comm && *row->comm)
		snprintf(p->comm, sizeof(p->comm), "%s", row->comm);
	p->exited = row->exited;
	p->cs = row->voluntary_cs + row->involuntary_cs;
	p->total_cs += p->cs;
	return 0;
}

static int on_fd(void *ctx, const struct ipcperf_fd_row *row)
{
	struct topview *tv = ctx;
	struct top_fd *f = fd_of(tv, row);
	struct top_proc *p = f ? proc_of(tv, row->pid) : NULL;

	if (!p || fd_known(f, row) < 0) {
		tv->oom = true;
		return -ENOMEM;
	}
	f->now = (struct top_io){
		.ops = row->read.ops + row->write.ops,
		.bytes = row->read.bytes + row->write.bytes,
		.time_ns = row->read.time_ns + row->write.time_ns,
	};
	f->total_ops += f->now.ops;
	f->total_bytes += f->now.bytes;
	p->now.ops += f->now.ops;
	p->now.bytes += f->now.bytes;
	p->now.time_ns += f->now.time_ns;
	p->rd += row->read.bytes;
	p->wr += row->write.bytes;
	p->total_ops += f->now.ops;
	p->total_bytes += f->now.bytes;
	return 0;
}

/* ------------------------------------------------------------------ the groups */

static const void **sorted(const void *base, size_t n, size_t size,
			   int (*cmp)(const void *, const void *, void *), void *arg);

/* The name of the group of fd @f: an fd not grouped by its object, a group by its endpoint. */
static const char *group_name(const struct top_fd *f)
{
	return f->role == IPCPERF_GROUP_ONE ? f->object : f->endpoint;
}

/*
 * The fds @a and @b in the order of their groups: by pid, role, kind, then
 * an fd not grouped by its fd and object, a group by its endpoint (a unix
 * group by its peer, it has no endpoint); with @peer, by their peers last.
 */
static int cmp_group(const struct top_fd *a, const struct top_fd *b, bool peer)
{
	int c;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->role != b->role)
		return a->role < b->role ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->role == IPCPERF_GROUP_ONE && a->fd != b->fd)
		return a->fd < b->fd ? -1 : 1;
	if ((c = strcmp(group_name(a), group_name(b))))
		return c;
	if ((peer || a->role == IPCPERF_GROUP_UNIX) && a->peer_pid != b->peer_pid)
		return a->peer_pid < b->peer_pid ? -1 : 1;
	return 0;
}

static int cmp_group_r(const void *a, const void *b, void *arg)
{
	(void)arg;
	return cmp_group(*(const struct top_fd *const *)a, *(const struct top_fd *const *)b, true);
}

/* A group of fd @f alone, at the end of the groups; NULL when out of memory. */
static struct top_fd *group_new(struct topview *tv, const struct top_fd *f)
{
	struct top_rows *g = &tv->groups;
	struct top_fd *r;

	if (cli_grow((void **)&g->v, &g->cap, g->nr + 1, sizeof(*r)) < 0)
		return NULL;
	r = &g->v[g->nr];
	*r = *f;
	r->object = strdup(group_name(f));
	r->shown = strdup(f->shown);
	r->endpoint = NULL;
	r->conns = 1;
	r->peers = f->peer_pid != 0;
	if (!r->object || !r->shown) {
		free(r->object);
		free(r->shown);
		return NULL;
	}
	g->nr++;
	return r;
}

/*
 * Fd @f added to its group @g; @peer: a peer @g had not (the fds come in
 * the order of their peers: the unknown one, 0, first; it is not counted).
 */
static void group_add(struct top_fd *g, const struct top_fd *f, bool peer)
{
	g->now.ops += f->now.ops;
	g->now.bytes += f->now.bytes;
	g->now.time_ns += f->now.time_ns;
	g->total_ops += f->total_ops;
	g->total_bytes += f->total_bytes;
	if (f->fd < g->fd)
		g->fd = f->fd;
	g->conns++;
	if (!peer || !f->peer_pid)
		return;
	if (!g->peers++) {
		g->peer_pid = f->peer_pid;
		memcpy(g->peer_comm, f->peer_comm, sizeof(g->peer_comm));
	}
}

static void fd_free(struct top_fd *f)
{
	free(f->object);
	free(f->shown);
	free(f->endpoint);
}

static void rows_clear(struct top_rows *rows)
{
	for (size_t i = 0; i < rows->nr; i++)
		fd_free(&rows->v[i]);
	rows->nr = 0;
}

/*
 * The groups made again from the fds, their totals the sums of their fds'
 * (so exact however an fd moved from a group to another). @return 0, or -ENOMEM.
 */
static int regroup(struct topview *tv)
{
	const struct top_fd **v = (const struct top_fd **)sorted(
		tv->fds.v, tv->fds.nr, sizeof(*tv->fds.v), cmp_group_r, NULL);
	struct top_fd *g = NULL;

	rows_clear(&tv->groups);
	if (!v && tv->fds.nr)
		return -ENOMEM;
	for (size_t i = 0; i < tv->fds.nr; i++) {
		if (g && !cmp_group(v[i - 1], v[i], false))
			group_add(g, v[i], cmp_group(v[i - 1], v[i], true) != 0);
		else if (!(g = group_new(tv, v[i])))
			break;
	}
	free(v);
	return g || !tv->fds.nr ? 0 : -ENOMEM;
}

/* "sh[12], cat[13]": a flow's side, comm[pid] each, at most a few; "(not traced)" when nobody traced did it. */
static size_t side_who(struct topview *tv, char *buf, size_t len, const pid_t *v, size_t n)
{
	char comm[CLI_ESC_LEN(CLI_COMM_LEN)];
	size_t off = 0;
	size_t at;

	if (!n)
		return (size_t)snprintf(buf, len, "(not traced)");
	for (size_t i = 0; i < n && i < 3 && off < len; i++) {
		bool known = cli_bsearch(&v[i], tv->procs, tv->nr_procs, sizeof(*tv->procs),
					 cmp_proc_key, &at) && tv->procs[at].comm[0];

		off += (size_t)snprintf(buf + off, len - off, "%s%s[%d]", i ? ", " : "",
					known ? cli_esc(comm, sizeof(comm), tv->procs[at].comm) : "?",
					(int)v[i]);
	}
	if (n > 3 && off < len)
		off += (size_t)snprintf(buf + off, len - off, " (+%zu)", n - 3);
	return off < len ? off : len - 1;
}

/* "sh[12] -> wc[14]": the sides of @fl, the key of its group with its kind. */
static char *flow_who(struct topview *tv, const struct ipcperf_flow *fl)
{
	char buf[256];
	size_t n = side_who(tv, buf, sizeof(buf), fl->writers, fl->nr_writers);

	n += (size_t)snprintf(buf + n, sizeof(buf) - n, " -> ");
	if (n < sizeof(buf))
		side_who(tv, buf + n, sizeof(buf) - n, fl->readers, fl->nr_readers);
	return strdup(buf);
}

static struct top_flow *flow_of(struct topview *tv, const struct ipcperf_flow *fl, char *who)
{
	struct top_flow *f;

	for (size_t i = 0; i < tv->nr_flows; i++)
		if (tv->flows[i].kind == fl->kind && !strcmp(tv->flows[i].who, who)) {
			free(who);
			return &tv->flows[i];
		}
	if (cli_grow((void **)&tv->flows, &tv->cap_flows, tv->nr_flows + 1, sizeof(*f)) < 0) {
		free(who);
		return NULL;
	}
	f = &tv->flows[tv->nr_flows];
	*f = (struct top_flow){ .object = strdup(fl->object), .who = who, .kind = fl->kind };
	if (!f->object) {
		free(who);
		return NULL;
	}
	tv->nr_flows++;
	return f;
}

static int on_flow(void *ctx, const struct ipcperf_flow *fl)
{
	struct topview *tv = ctx;
	char *who = flow_who(tv, fl);
	struct top_flow *f = who ? flow_of(tv, fl, who) : NULL;

	if (!f) {
		tv->oom = true;
		return -ENOMEM;
	}
	f->sum += flowgroup_bytes(fl);
	f->conns++;
	f->seen = true;
	return 0;
}

/* The groups' bytes of this walk against the last one's. */
static void flows_taken(struct topview *tv)
{
	for (size_t i = 0; i < tv->nr_flows; i++) {
		struct top_flow *f = &tv->flows[i];

		if (!f->seen)
			continue;
		f->delta = f->sum > f->bytes ? f->sum - f->bytes : 0;
		f->bytes = f->sum;
	}
}

/* The last interval's counts to zero, before the next is taken in. */
static void reset_now(struct topview *tv)
{
	for (size_t i = 0; i < tv->nr_procs; i++) {
		struct top_proc *p = &tv->procs[i];

		p->now = (struct top_io){ 0 };
		p->rd = p->wr = p->cs = 0;
	}
	for (size_t i = 0; i < tv->fds.nr; i++)
		tv->fds.v[i].now = (struct top_io){ 0 };
	for (size_t i = 0; i < tv->nr_flows; i++) {
		tv->flows[i].delta = tv->flows[i].sum = tv->flows[i].conns = 0;
		tv->flows[i].seen = false;
	}
}

/* The fds whose process goes (top_proc.gone), dropped. */
static void prune_fds(struct topview *tv)
{
	size_t k = 0, at;

	for (size_t i = 0; i < tv->fds.nr; i++) {
		struct top_fd *f = &tv->fds.v[i];

		if (cli_bsearch(&f->pid, tv->procs, tv->nr_procs, sizeof(*tv->procs), cmp_proc_key,
				&at) && tv->procs[at].gone)
			fd_free(f);
		else
			tv->fds.v[k++] = *f;
	}
	tv->fds.nr = k;
}

/* Processes that exited and stayed idle TOPVIEW_KEEP_FRAMES frames go, with their fds. */
static void prune(struct topview *tv)
{
	size_t k = 0;

	for (size_t i = 0; i < tv->nr_procs; i++) {
		struct top_proc *p = &tv->procs[i];

		p->idle = p->now.ops || p->cs ? 0 : p->idle + 1;
		p->gone = p->exited && p->idle >= TOPVIEW_KEEP_FRAMES;
	}
	prune_fds(tv);
	for (size_t i = 0; i < tv->nr_procs; i++)
		if (!tv->procs[i].gone)
			tv->procs[k++] = tv->procs[i];
	tv->nr_procs = k;
}

int topview_update(struct topview *tv, struct ipcperf_stats *st, struct ipcperf_flows *fl,
		   const struct ipcperf_interval_info *in)
{
	int err;

	reset_now(tv);
	tv->oom = false;
	if ((err = ipcperf_stats__for_each_proc(st, on_proc, tv)) < 0 ||
	    (err = ipcperf_stats__for_each_fd(st, on_fd, tv)) < 0 ||
	    (fl && (err = ipcperf_flows__for_each_settled(fl, on_flow, tv)) < 0))
		return err;
	if (tv->oom)
		return -ENOMEM;
	flows_taken(tv);
	prune(tv);
	if ((err = regroup(tv)) < 0)
		return err;
	tv->interval_ns = in->end_ns - in->start_ns;
	tv->time_ns = in->time_ns;
	tv->records = in->records;
	tv->lost = in->lost;
	tv->frames++;
	return 0;
}

static void rows_free(struct top_rows *rows)
{
	rows_clear(rows);
	free(rows->v);
	*rows = (struct top_rows){ 0 };
}

void topview_free(struct topview *tv)
{
	rows_free(&tv->fds);
	rows_free(&tv->groups);
	for (size_t i = 0; i < tv->nr_flows; i++) {
		free(tv->flows[i].object);
		free(tv->flows[i].who);
	}
	free(tv->procs);
	free(tv->flows);
	tv->procs = NULL;
	tv->flows = NULL;
	tv->nr_procs = tv->nr_flows = 0;
	tv->cap_procs = tv->cap_flows = 0;
}

/* ------------------------------------------------------------------ the frame */

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

/* A count per second of the last interval, in at most 7 columns: "40.1k". */
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

/* Bytes per second of the last interval: "12.3 MB". */
static const char *byte_rate(char *buf, size_t len, uint64_t n, uint64_t ns)
{
	return fmt_bytes(buf, len, ns ? (uint64_t)((double)n * 1e9 / (double)ns + 0.5) : 0);
}

/* The share of the interval spent in the calls, in percent (over 100 with threads). */
static double busy_pct(uint64_t time_ns, uint64_t ns)
{
	return ns ? (double)time_ns * 100.0 / (double)ns : 0.0;
}

static uint64_t proc_value(const struct top_proc *p, enum top_key k, bool total)
{
	switch (k) {
	case TOP_KEY_OPS:
		return total ? p->total_ops : p->now.ops;
	case TOP_KEY_TIME:
		return total ? p->total_bytes : p->now.time_ns;
	case TOP_KEY_SWITCHES:
		return total ? p->total_cs : p->cs;
	case TOP_KEY_BYTES:
	default:
		return total ? p->total_bytes : p->now.bytes;
	}
}

/* Largest first by the key in the last interval, then since the start, then by pid. */
static int cmp_procs(const void *a, const void *b, void *arg)
{
	const struct top_proc *x = *(const struct top_proc *const *)a;
	const struct top_proc *y = *(const struct top_proc *const *)b;
	enum top_key k = *(const enum top_key *)arg;
	uint64_t vx = proc_value(x, k, false), vy = proc_value(y, k, false);

	if (vx == vy) {
		vx = proc_value(x, k, true);
		vy = proc_value(y, k, true);
	}
	if (vx != vy)
		return vx > vy ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* An fd has no switches of its own: by its calls then. */
static uint64_t fd_value(const struct top_fd *f, enum top_key k, bool total)
{
	switch (k) {
	case TOP_KEY_OPS:
	case TOP_KEY_SWITCHES:
		return total ? f->total_ops : f->now.ops;
	case TOP_KEY_TIME:
		return total ? f->total_bytes : f->now.time_ns;
	case TOP_KEY_BYTES:
	default:
		return total ? f->total_bytes : f->now.bytes;
	}
}

static int cmp_fds(const void *a, const void *b, void *arg)
{
	const struct top_fd *x = *(const struct top_fd *const *)a;
	const struct top_fd *y = *(const struct top_fd *const *)b;
	enum top_key k = *(const enum top_key *)arg;
	uint64_t vx = fd_value(x, k, false), vy = fd_value(y, k, false);

	if (vx == vy) {
		vx = fd_value(x, k, true);
		vy = fd_value(y, k, true);
	}
	if (vx != vy)
		return vx > vy ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->fd < y->fd ? -1 : x->fd > y->fd;
}

/* Flows by their bytes of the last interval, then since the start. */
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

/* Pointers to @n elements of @size bytes at @base, sorted; NULL when out of memory (or none). */
static const void **sorted(const void *base, size_t n, size_t size,
			   int (*cmp)(const void *, const void *, void *), void *arg)
{
	const void **v = n ? malloc(n * sizeof(*v)) : NULL;

	for (size_t i = 0; v && i < n; i++)
		v[i] = (const char *)base + i * size;
	if (v)
		qsort_r(v, n, sizeof(*v), cmp, arg);
	return v;
}

/* Keep in @v, in order, the fds that did a call since the start: @return how many. */
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
 * The rows each section gets of @avail lines: one at a time to each that has
 * more, in turn, so that a long list leaves the others their share.
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

/* A group's peers: "redis-benchmark[42]", "3 peers", or "?" when none is known. */
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
 * A group of connections @f as ipcperf stat names its groups: "ENDPOINT <-
 * peer[pid]" (accepted), "-> ENDPOINT peer[pid]" (made), "unix peer
 * peer[pid]", with how many.
 */
static const char *group_text(char *buf, size_t len, const struct top_fd *f)
{
	char peer[CLI_ESC_LEN(CLI_COMM_LEN) + 32], e[CLI_ESC_LEN(128)];

	peers_name(peer, sizeof(peer), f);
	cli_esc(e, sizeof(e), f->object);
	if (f->role == IPCPERF_GROUP_SERVED)
		snprintf(buf, len, "%s <- %s", e, peer);
	else if (f->role == IPCPERF_GROUP_CLIENT)
		snprintf(buf, len, "-> %s %s", e, peer);
	else
		snprintf(buf, len, "unix peer %s", peer);
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

		/* A group of several connections has no one fd. */
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
	const struct top_proc **pv = (const struct top_proc **)sorted(
		tv->procs, tv->nr_procs, sizeof(*tv->procs), cmp_procs, &key);
	const struct top_rows *rows = tv->per_fd ? &tv->fds : &tv->groups;
	const struct top_fd **fv = (const struct top_fd **)sorted(
		rows->v, rows->nr, sizeof(*rows->v), cmp_fds, &key);
	const struct top_flow **lv = (const struct top_flow **)sorted(
		tv->flows, tv->nr_flows, sizeof(*tv->flows), cmp_flows_r, NULL);
	size_t want[3] = { pv ? tv->nr_procs : 0, fv ? fds_used(fv, rows->nr) : 0,
			   lv ? tv->nr_flows : 0 };
	size_t give[3];

	if (screen)
		fputs("\033[H", f);
	draw_heading(tv, &fr);
	/* The heading's 2 lines, a blank line and a title before each table. */
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
