/* The Prometheus / OpenMetrics exposition of ipcperf stat's running totals (metrics.h). */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "metrics.h"
#include "userfile.h"

/*
 * Histogram bounds, 1-2-5 from 1 us to 10 s, with their le labels as the
 * Go clients write them in each format (OpenMetrics wants a ".0" on whole
 * numbers). The library's buckets are 1/32 to 1/64 wide, so a count at a
 * bound may place a call within 1/64 of it on the wrong side (HELP says so).
 */
static const struct {
	uint64_t ns;
	const char *text, *om;
} bounds[] = {
	{ 1000, "1e-06", "1e-06" }, { 2000, "2e-06", "2e-06" }, { 5000, "5e-06", "5e-06" },
	{ 10000, "1e-05", "1e-05" }, { 20000, "2e-05", "2e-05" }, { 50000, "5e-05", "5e-05" },
	{ 100000, "0.0001", "0.0001" }, { 200000, "0.0002", "0.0002" },
	{ 500000, "0.0005", "0.0005" }, { 1000000, "0.001", "0.001" },
	{ 2000000, "0.002", "0.002" }, { 5000000, "0.005", "0.005" },
	{ 10000000, "0.01", "0.01" }, { 20000000, "0.02", "0.02" }, { 50000000, "0.05", "0.05" },
	{ 100000000, "0.1", "0.1" }, { 200000000, "0.2", "0.2" }, { 500000000, "0.5", "0.5" },
	{ 1000000000, "1", "1.0" }, { 2000000000, "2", "2.0" }, { 5000000000, "5", "5.0" },
	{ 10000000000, "10", "10.0" },
};
#define NR_BOUNDS (sizeof(bounds) / sizeof(bounds[0]))

const char *metrics_content_type(enum metrics_format fmt)
{
	return fmt == METRICS_OPENMETRICS ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
					  : "text/plain; version=0.0.4; charset=utf-8";
}

/* ------------------------------------------------------------------ strings */

struct sbuf {
	char *p;
	size_t len, cap;
	bool oom;
};

static void sb_putn(struct sbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

/* Length of the valid UTF-8 sequence at @s (1 to 4), or 0 when its first byte starts none. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;	/* also stops at the terminating NUL */
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, and past U+10FFFF. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || (cp >= 0xd800 && cp <= 0xdfff) ||
	    cp > 0x10ffff)
		return 0;
	return n;
}

/*
 * Append name="value" (after a comma unless first), escaped as both formats
 * want: backslash, double quote and newline. Label values must be UTF-8, and
 * comm and paths are any bytes: a byte that is not UTF-8 becomes U+FFFD.
 */
static void sb_label(struct sbuf *b, const char *name, const char *value)
{
	const unsigned char *s = (const unsigned char *)(value ? value : "");

	if (b->len)
		sb_putn(b, ",", 1);
	sb_puts(b, name);
	sb_putn(b, "=\"", 2);
	while (*s) {
		size_t n = utf8_len(s);

		if (*s == '\\')
			sb_putn(b, "\\\\", 2);
		else if (*s == '"')
			sb_putn(b, "\\\"", 2);
		else if (*s == '\n')
			sb_putn(b, "\\n", 2);
		else if (n)
			sb_putn(b, (const char *)s, n);
		else
			sb_puts(b, "\xef\xbf\xbd");
		s += n ? n : 1;
	}
	sb_putn(b, "\"", 1);
}

static void sb_pid(struct sbuf *b, pid_t pid)
{
	char num[16];

	snprintf(num, sizeof(num), "%d", (int)pid);
	sb_label(b, "pid", num);
}

/* ------------------------------------------------------------------ aggregation */

/*
 * Rows of one kind of series, by their labels: rows of several processes
 * with the same labels (same comm and object: no pid label) are merged, so
 * that every series is unique. How each value merges: its op.
 */
enum { OP_SUM, OP_MAX, OP_OR };

struct agg_row {
	char *key;		/* the labels, rendered */
	uint64_t *v;
};

struct agg {
	size_t nv;
	const unsigned char *ops;	/* nv of them; NULL: all OP_SUM */
	struct agg_row *rows;
	size_t n, cap;
	bool oom;
};

/* A new row for the labels in @key (taken over, even on failure); NULL when out of memory. */
static uint64_t *agg_add(struct agg *a, struct sbuf *key)
{
	struct agg_row *r;

	if (key->oom || a->oom) {
		free(key->p);
		*key = (struct sbuf){ 0 };
		a->oom = true;
		return NULL;
	}
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;

		r = realloc(a->rows, cap * sizeof(*r));
		if (!r)
			goto oom;
		a->rows = r;
		a->cap = cap;
	}
	r = &a->rows[a->n];
	r->v = calloc(a->nv, sizeof(*r->v));
	if (!r->v)
		goto oom;
	r->key = key->p ? key->p : strdup("");
	*key = (struct sbuf){ 0 };
	if (!r->key) {
		free(r->v);
		goto oom;
	}
	a->n++;
	return r->v;
oom:
	free(key->p);
	*key = (struct sbuf){ 0 };
	a->oom = true;
	return NULL;
}

static int cmp_row(const void *x, const void *y)
{
	return strcmp(((const struct agg_row *)x)->key, ((const struct agg_row *)y)->key);
}

/* Sort by labels and merge the rows that have the same. */
static void agg_finish(struct agg *a)
{
	size_t k = 0;

	if (a->n > 1)
		qsort(a->rows, a->n, sizeof(*a->rows), cmp_row);
	for (size_t i = 0; i < a->n; i++) {
		struct agg_row *r = &a->rows[i];

		if (k && !strcmp(a->rows[k - 1].key, r->key)) {
			uint64_t *d = a->rows[k - 1].v;

			for (size_t j = 0; j < a->nv; j++) {
				switch (a->ops ? a->ops[j] : OP_SUM) {
				case OP_MAX:
					if (r->v[j] > d[j])
						d[j] = r->v[j];
					break;
				case OP_OR:
					d[j] |= r->v[j];
					break;
				default:
					d[j] += r->v[j];
					break;
				}
			}
			free(r->key);
			free(r->v);
			continue;
		}
		a->rows[k++] = *r;
	}
	a->n = k;
}

static void agg_free(struct agg *a)
{
	for (size_t i = 0; i < a->n; i++) {
		free(a->rows[i].key);
		free(a->rows[i].v);
	}
	free(a->rows);
	a->rows = NULL;
	a->n = a->cap = 0;
}

/* ------------------------------------------------------------------ writing */

struct out {
	FILE *f;
	enum metrics_format fmt;
};

/*
 * The metadata of family @name (@type: counter, gauge, histogram, info).
 * OpenMetrics names a counter family without its _total and an info
 * family without its _info, and has UNIT lines; the text format names the
 * family as its samples are named and knows no info type (a gauge of 1).
 */
static void meta(const struct out *o, const char *name, const char *type, const char *unit,
		 const char *help)
{
	if (o->fmt == METRICS_OPENMETRICS) {
		fprintf(o->f, "# TYPE %s %s\n", name, type);
		if (unit)
			fprintf(o->f, "# UNIT %s %s\n", name, unit);
		fprintf(o->f, "# HELP %s %s\n", name, help);
		return;
	}
	if (!strcmp(type, "info")) {
		fprintf(o->f, "# HELP %s_info %s\n# TYPE %s_info gauge\n", name, help, name);
		return;
	}
	if (!strcmp(type, "counter")) {
		fprintf(o->f, "# HELP %s_total %s\n# TYPE %s_total counter\n", name, help, name);
		return;
	}
	fprintf(o->f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One sample: NAME SUFFIX{KEY,EXTRA} VALUE. */
static void sample(const struct out *o, const char *name, const char *suffix, const char *key,
		   const char *extra, const char *value)
{
	bool k = key && *key, e = extra && *extra;

	fprintf(o->f, "%s%s%s%s%s%s%s %s\n", name, suffix, k || e ? "{" : "", k ? key : "",
		k && e ? "," : "", e ? extra : "", k || e ? "}" : "", value);
}

static const char *u64s(char *buf, size_t len, uint64_t v)
{
	snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

/* ns as seconds, exactly: "0.001234567", "2.5", "0.0". */
static const char *secs(char *buf, size_t len, uint64_t ns)
{
	int n = snprintf(buf, len, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);

	while (n > 0 && (size_t)n < len && buf[n - 1] == '0' && buf[n - 2] != '.')
		buf[--n] = '\0';
	return buf;
}

/* A counter family from value @idx of every row of @a (values in ns when @in_secs). */
static void counter_family(const struct out *o, const struct agg *a, size_t idx, const char *name,
			   const char *unit, const char *help, bool in_secs)
{
	char val[48];

	if (!a->n)
		return;
	meta(o, name, "counter", unit, help);
	for (size_t i = 0; i < a->n; i++)
		sample(o, name, "_total", a->rows[i].key, NULL,
		       in_secs ? secs(val, sizeof(val), a->rows[i].v[idx])
			       : u64s(val, sizeof(val), a->rows[i].v[idx]));
}

/*
 * A histogram family: each row's values from @idx on are its count, its sum
 * (ns) and its cumulative counts at the bounds.
 */
static void histogram_family(const struct out *o, const struct agg *a, size_t idx,
			     const char *name, const char *help)
{
	char val[48], le[32];

	if (!a->n)
		return;
	meta(o, name, "histogram", "seconds", help);
	for (size_t i = 0; i < a->n; i++) {
		const uint64_t *v = &a->rows[i].v[idx];

		for (size_t b = 0; b < NR_BOUNDS; b++) {
			snprintf(le, sizeof(le), "le=\"%s\"",
				 o->fmt == METRICS_OPENMETRICS ? bounds[b].om : bounds[b].text);
			sample(o, name, "_bucket", a->rows[i].key, le, u64s(val, sizeof(val), v[2 + b]));
		}
		sample(o, name, "_bucket", a->rows[i].key, "le=\"+Inf\"", u64s(val, sizeof(val), v[0]));
		sample(o, name, "_count", a->rows[i].key, NULL, u64s(val, sizeof(val), v[0]));
		sample(o, name, "_sum", a->rows[i].key, NULL, secs(val, sizeof(val), v[1]));
	}
}

/* Count, sum and the counts at the bounds of @h into @v (2 + NR_BOUNDS values). */
static int hist_values(const struct ipcperf_hist *h, uint64_t *v)
{
	uint64_t ns[NR_BOUNDS];

	for (size_t b = 0; b < NR_BOUNDS; b++)
		ns[b] = bounds[b].ns;
	v[0] = ipcperf_hist__count(h);
	v[1] = ipcperf_hist__sum(h);
	return h ? ipcperf_hist__count_le(h, ns, NR_BOUNDS, v + 2) : 0;
}

/* ------------------------------------------------------------------ the rows */

/* The processes' names, by pid (for_each_proc gives them in pid order). */
struct comms {
	struct pcomm {
		pid_t pid;
		char *comm;
	} *v;
	size_t n, cap;
	bool oom;
};

static const char *comm_of(const struct comms *c, pid_t pid)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c->v[mid].pid == pid)
			return c->v[mid].comm;
		if (c->v[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return "";
}

enum { P_VOL, P_INVOL, P_WAKEUPS, P_MIGRATIONS, NR_P };
enum { F_OPS, F_BYTES, F_ERRORS, F_AGAIN, F_LAT, NR_F = F_LAT + 2 + NR_BOUNDS };
enum {
	W_BYTES, W_WRITTEN, W_WIRE, W_MAXQ = W_WIRE + 2 + NR_BOUNDS, W_CAP, W_WBLOCKED, W_RBLOCKED,
	W_VERDICT, NR_W
};
/* Counters: the values, then which of them are valid (a mask). */
enum { C_OK = IPCPERF_CNT__MAX, NR_C };

struct walk {
	const struct metrics_src *src;
	struct comms comms;
	struct agg procs, fds, flows, cnt;
	int err;
};

static int on_proc(void *ctx, const struct ipcperf_proc_row *row)
{
	struct walk *w = ctx;
	struct sbuf key = { 0 };
	uint64_t *v;

	if (w->comms.n == w->comms.cap) {
		size_t cap = w->comms.cap ? w->comms.cap * 2 : 16;
		struct pcomm *p = realloc(w->comms.v, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		w->comms.v = p;
		w->comms.cap = cap;
	}
	w->comms.v[w->comms.n].pid = row->pid;
	w->comms.v[w->comms.n].comm = strdup(row->comm ? row->comm : "");
	if (!w->comms.v[w->comms.n].comm)
		return -ENOMEM;
	w->comms.n++;

	sb_label(&key, "comm", row->comm);
	if (w->src->pid_label)
		sb_pid(&key, row->pid);
	v = agg_add(&w->procs, &key);
	if (!v)
		return -ENOMEM;
	v[P_VOL] = row->voluntary_cs;
	v[P_INVOL] = row->involuntary_cs;
	v[P_WAKEUPS] = row->wakeups;
	v[P_MIGRATIONS] = row->migrations;
	return 0;
}

static int fd_side(struct walk *w, const struct ipcperf_fd_row *row, const char *dir,
		   const struct ipcperf_io *io, const struct ipcperf_hist *h)
{
	struct sbuf key = { 0 };
	uint64_t *v;

	if (!io->ops)
		return 0;	/* this side was never used: no series */
	sb_label(&key, "comm", comm_of(&w->comms, row->pid));
	if (w->src->pid_label)
		sb_pid(&key, row->pid);
	sb_label(&key, "kind", ipcperf_fd_kind_name(row->kind));
	if (w->src->object_label)
		sb_label(&key, "object", row->object ? row->object : "unknown");
	sb_label(&key, "direction", dir);
	v = agg_add(&w->fds, &key);
	if (!v)
		return -ENOMEM;
	v[F_OPS] = io->ops;
	v[F_BYTES] = io->bytes;
	v[F_ERRORS] = io->errors;
	v[F_AGAIN] = io->again;
	return hist_values(h, &v[F_LAT]);
}

static int on_fd(void *ctx, const struct ipcperf_fd_row *row)
{
	struct walk *w = ctx;
	int err = fd_side(w, row, "read", &row->read, row->read_hist);

	return err ? err : fd_side(w, row, "write", &row->write, row->write_hist);
}

/* The distinct names of @pids, sorted, joined by commas. */
static void sb_comms(struct sbuf *b, const char *label, const struct comms *c, const pid_t *pids,
		     size_t n)
{
	const char **names = n ? calloc(n, sizeof(*names)) : NULL;
	struct sbuf list = { 0 };
	size_t k = 0;

	if (n && !names) {
		b->oom = true;
		return;
	}
	for (size_t i = 0; i < n; i++)
		names[i] = comm_of(c, pids[i]);
	for (size_t i = 1; i < n; i++)	/* a handful: insertion sort */
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			const char *t = names[j];

			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		if (i && !strcmp(names[i], names[i - 1]))
			continue;
		if (k++)
			sb_putn(&list, ",", 1);
		sb_puts(&list, names[i]);
	}
	if (list.oom)
		b->oom = true;
	sb_label(b, label, list.p ? list.p : "");
	free(list.p);
	free(names);
}

/*
 * A verdict's rank among merged flows (the largest wins): unmeasured (0: no
 * verdict gauge is 1) yields to any other, idle to any measured one.
 */
static uint64_t verdict_rank(enum ipcperf_verdict v)
{
	if (v == IPCPERF_VERDICT_UNMEASURED)
		return 0;
	return v == IPCPERF_VERDICT_IDLE ? 1 : (uint64_t)v + 2;
}

static int on_flow(void *ctx, const struct ipcperf_flow *f)
{
	struct walk *w = ctx;
	struct sbuf key = { 0 };
	uint64_t *v;

	sb_label(&key, "kind", ipcperf_fd_kind_name(f->kind));
	if (w->src->object_label)
		sb_label(&key, "object", f->object);
	sb_comms(&key, "writer_comm", &w->comms, f->writers, f->nr_writers);
	sb_comms(&key, "reader_comm", &w->comms, f->readers, f->nr_readers);
	v = agg_add(&w->flows, &key);
	if (!v)
		return -ENOMEM;
	v[W_BYTES] = f->bytes_read;
	v[W_WRITTEN] = f->bytes_written;
	v[W_MAXQ] = f->max_queued;
	v[W_CAP] = f->capacity >= 0 ? (uint64_t)f->capacity + 1 : 0;	/* 0: unknown */
	v[W_WBLOCKED] = f->writer_blocked_ns;
	v[W_RBLOCKED] = f->reader_blocked_ns;
	v[W_VERDICT] = verdict_rank(f->verdict);
	return hist_values(f->wire_hist, &v[W_WIRE]);
}

static int add_counters(struct walk *w)
{
	for (size_t i = 0; i < w->src->nr_cnt; i++) {
		const struct metrics_counters *mc = &w->src->cnt[i];
		struct sbuf key = { 0 };
		uint64_t *v;

		if (mc->comm) {
			sb_label(&key, "comm", mc->comm);
			if (w->src->pid_label)
				sb_pid(&key, mc->pid);
		}
		v = agg_add(&w->cnt, &key);
		if (!v)
			return -ENOMEM;
		for (int k = 0; k < IPCPERF_CNT__MAX; k++)
			if (mc->v[k].status == IPCPERF_CNT_OK) {
				v[k] = mc->v[k].value;
				v[C_OK] |= IPCPERF_CNT_BIT(k);
			}
	}
	return 0;
}

/* ------------------------------------------------------------------ families */

static void write_fds(const struct out *o, const struct agg *a)
{
	counter_family(o, a, F_OPS, "ipcperf_fd_ops", NULL,
		       "Read- and write-family calls completed on an fd object, failed ones included.",
		       false);
	counter_family(o, a, F_BYTES, "ipcperf_fd_bytes", "bytes",
		       "Bytes moved through an fd object: the sum of the calls' positive return values.",
		       false);
	counter_family(o, a, F_ERRORS, "ipcperf_fd_errors", NULL,
		       "Calls on an fd object that failed (they move nothing), EAGAIN left out.",
		       false);
	counter_family(o, a, F_AGAIN, "ipcperf_fd_would_block", NULL,
		       "Calls on a non-blocking fd object refused with EAGAIN: it was empty (read) "
		       "or full (write).", false);
	histogram_family(o, a, F_LAT, "ipcperf_fd_latency_seconds",
			 "Time inside the read- and write-family calls on an fd object (calls "
			 "under way at the start left out); a call within 1/64 of a bucket "
			 "bound may be counted on the other side of it.");
}

static void write_procs(const struct out *o, const struct agg *a)
{
	char val[32];

	if (!a->n)
		return;
	meta(o, "ipcperf_process_context_switches", "counter", NULL,
	     "Context switches of the processes' threads: voluntary (blocked) or involuntary "
	     "(preempted), from sched_switch.");
	for (size_t i = 0; i < a->n; i++) {
		sample(o, "ipcperf_process_context_switches", "_total", a->rows[i].key,
		       "type=\"voluntary\"", u64s(val, sizeof(val), a->rows[i].v[P_VOL]));
		sample(o, "ipcperf_process_context_switches", "_total", a->rows[i].key,
		       "type=\"involuntary\"", u64s(val, sizeof(val), a->rows[i].v[P_INVOL]));
	}
	counter_family(o, a, P_WAKEUPS, "ipcperf_process_wakeups", NULL,
		       "Times the processes' threads were woken (sched_wakeup).", false);
	counter_family(o, a, P_MIGRATIONS, "ipcperf_process_cpu_migrations", NULL,
		       "Consecutive switch-outs of a thread of the processes on different CPUs.",
		       false);
}

static const struct {
	enum ipcperf_counter id;
	const char *name, *unit, *help;
} cnt_families[] = {
	{ IPCPERF_CNT_TASK_CLOCK, "ipcperf_perf_task_clock_seconds", "seconds",
	  "perf's task-clock: time on CPU of a target process and the children it reaped." },
	{ IPCPERF_CNT_PAGE_FAULTS, "ipcperf_perf_page_faults", NULL,
	  "perf's page-faults of a target process and the children it reaped." },
	{ IPCPERF_CNT_CONTEXT_SWITCHES, "ipcperf_perf_context_switches", NULL,
	  "perf's context-switches of a target process and the children it reaped." },
	{ IPCPERF_CNT_CPU_MIGRATIONS, "ipcperf_perf_cpu_migrations", NULL,
	  "perf's cpu-migrations of a target process and the children it reaped." },
	{ IPCPERF_CNT_CYCLES, "ipcperf_perf_cycles", NULL,
	  "perf's cycles of a target process and the children it reaped (scaled when multiplexed)." },
	{ IPCPERF_CNT_INSTRUCTIONS, "ipcperf_perf_instructions", NULL,
	  "perf's instructions of a target process and the children it reaped (scaled when "
	  "multiplexed)." },
	{ IPCPERF_CNT_CACHE_REFERENCES, "ipcperf_perf_cache_references", NULL,
	  "perf's cache-references of a target process and the children it reaped (scaled when "
	  "multiplexed)." },
	{ IPCPERF_CNT_CACHE_MISSES, "ipcperf_perf_cache_misses", NULL,
	  "perf's cache-misses of a target process and the children it reaped (scaled when "
	  "multiplexed)." },
};

/* A counter the machine lacks (or -e left out, or that never ran) has no series at all. */
static void write_counters(const struct out *o, const struct agg *a)
{
	char val[48];

	for (size_t k = 0; k < sizeof(cnt_families) / sizeof(cnt_families[0]); k++) {
		enum ipcperf_counter id = cnt_families[k].id;
		bool any = false;

		for (size_t i = 0; i < a->n; i++)
			any |= (a->rows[i].v[C_OK] & IPCPERF_CNT_BIT(id)) != 0;
		if (!any)
			continue;
		meta(o, cnt_families[k].name, "counter", cnt_families[k].unit, cnt_families[k].help);
		for (size_t i = 0; i < a->n; i++) {
			const uint64_t *v = a->rows[i].v;

			if (!(v[C_OK] & IPCPERF_CNT_BIT(id)))
				continue;
			sample(o, cnt_families[k].name, "_total", a->rows[i].key, NULL,
			       id == IPCPERF_CNT_TASK_CLOCK ? secs(val, sizeof(val), v[id])
							    : u64s(val, sizeof(val), v[id]));
		}
	}
}

static void write_flows(const struct out *o, const struct agg *a)
{
	static const enum ipcperf_verdict verdicts[] = {
		IPCPERF_VERDICT_BACKPRESSURE, IPCPERF_VERDICT_CONSUMER_STARVED, IPCPERF_VERDICT_BALANCED,
		IPCPERF_VERDICT_IDLE,
	};
	char val[48], extra[64];
	bool any_cap = false;

	if (!a->n)
		return;
	counter_family(o, a, W_BYTES, "ipcperf_flow_bytes", "bytes",
		       "Bytes read out of a channel (pipe, or socket end to its peer).", false);
	counter_family(o, a, W_WRITTEN, "ipcperf_flow_written_bytes", "bytes",
		       "Bytes written into a channel.", false);
	histogram_family(o, a, W_WIRE, "ipcperf_flow_wire_seconds",
			 "Time from a write's start to the end of a read that took its bytes, per "
			 "(write, read) match; a match within 1/64 of a bucket bound may be counted "
			 "on the other side of it.");
	meta(o, "ipcperf_flow_max_queued_bytes", "gauge", "bytes",
	     "Most bytes in a channel at once (written, not yet read).");
	for (size_t i = 0; i < a->n; i++) {
		sample(o, "ipcperf_flow_max_queued_bytes", "", a->rows[i].key, NULL,
		       u64s(val, sizeof(val), a->rows[i].v[W_MAXQ]));
		any_cap |= a->rows[i].v[W_CAP] != 0;
	}
	if (any_cap) {
		meta(o, "ipcperf_flow_capacity_bytes", "gauge", "bytes",
		     "Bytes a channel holds (pipe size, socket buffer), where known.");
		for (size_t i = 0; i < a->n; i++)
			if (a->rows[i].v[W_CAP])
				sample(o, "ipcperf_flow_capacity_bytes", "", a->rows[i].key, NULL,
				       u64s(val, sizeof(val), a->rows[i].v[W_CAP] - 1));
	}
	meta(o, "ipcperf_flow_blocked_seconds", "counter", "seconds",
	     "Time the writers (side=writer) or readers (side=reader) of a channel slept inside "
	     "their calls on it: a sleeping write waits for room, a sleeping read for data.");
	for (size_t i = 0; i < a->n; i++) {
		sample(o, "ipcperf_flow_blocked_seconds", "_total", a->rows[i].key,
		       "side=\"writer\"", secs(val, sizeof(val), a->rows[i].v[W_WBLOCKED]));
		sample(o, "ipcperf_flow_blocked_seconds", "_total", a->rows[i].key,
		       "side=\"reader\"", secs(val, sizeof(val), a->rows[i].v[W_RBLOCKED]));
	}
	meta(o, "ipcperf_flow_verdict", "gauge", NULL,
	     "Who holds a channel back, so far: 1 for its verdict, 0 for the others "
	     "(backpressure: writers wait on a full channel; consumer-starved: readers wait on an "
	     "empty one; balanced; idle: no byte went through).");
	for (size_t i = 0; i < a->n; i++)
		for (size_t k = 0; k < sizeof(verdicts) / sizeof(verdicts[0]); k++) {
			snprintf(extra, sizeof(extra), "verdict=\"%s\"", ipcperf_verdict_name(verdicts[k]));
			sample(o, "ipcperf_flow_verdict", "", a->rows[i].key, extra,
			       a->rows[i].v[W_VERDICT] == verdict_rank(verdicts[k]) ? "1" : "0");
		}
}

int metrics_write(FILE *f, const struct metrics_src *src, enum metrics_format fmt)
{
	static const unsigned char flow_ops[NR_W] = {
		[W_MAXQ] = OP_MAX, [W_CAP] = OP_MAX, [W_VERDICT] = OP_MAX,
	};
	static const unsigned char cnt_ops[NR_C] = { [C_OK] = OP_OR };
	struct walk w = {
		.src = src,
		.procs = { .nv = NR_P }, .fds = { .nv = NR_F },
		.flows = { .nv = NR_W, .ops = flow_ops }, .cnt = { .nv = NR_C, .ops = cnt_ops },
	};
	const struct out o = { .f = f, .fmt = fmt };
	struct sbuf ver = { 0 };
	char val[32];
	int err;

	/* The processes first: the fd rows and the flows take their names. */
	err = ipcperf_stats__for_each_proc(src->stats, on_proc, &w);
	if (!err)
		err = ipcperf_stats__for_each_fd(src->stats, on_fd, &w);
	if (!err && src->flows)
		err = (src->final ? ipcperf_flows__for_each : ipcperf_flows__for_each_settled)(
			src->flows, on_flow, &w);
	if (!err)
		err = add_counters(&w);
	sb_label(&ver, "version", ipcperf_version());
	if (!err && (w.procs.oom || w.fds.oom || w.flows.oom || w.cnt.oom || ver.oom))
		err = -ENOMEM;
	if (err)
		goto out;
	agg_finish(&w.procs);
	agg_finish(&w.fds);
	agg_finish(&w.flows);
	agg_finish(&w.cnt);

	meta(&o, "ipcperf", "info", NULL, "The ipcperf that measured.");
	sample(&o, "ipcperf_info", "", ver.p, NULL, "1");
	meta(&o, "ipcperf_lost_events", "counter", NULL,
	     "Records lost (the kernel's ring overflowed, or a task could not be placed): when "
	     "not 0, every other count is a lower bound.");
	sample(&o, "ipcperf_lost_events", "_total", NULL, NULL,
	       u64s(val, sizeof(val), src->lost_events));
	meta(&o, "ipcperf_unpaired_syscalls", "counter", NULL,
	     "System calls seen only entering or only leaving: left out of the latencies.");
	sample(&o, "ipcperf_unpaired_syscalls", "_total", NULL, NULL,
	       u64s(val, sizeof(val), src->unpaired_syscalls));
	write_fds(&o, &w.fds);
	write_procs(&o, &w.procs);
	write_counters(&o, &w.cnt);
	write_flows(&o, &w.flows);
	fputs("# EOF\n", f);
out:
	free(ver.p);
	for (size_t i = 0; i < w.comms.n; i++)
		free(w.comms.v[i].comm);
	free(w.comms.v);
	agg_free(&w.procs);
	agg_free(&w.fds);
	agg_free(&w.flows);
	agg_free(&w.cnt);
	return err < 0 ? err : err ? -EIO : 0;
}

/* ------------------------------------------------------------------ the file */

/* The mode open(2) with 0666 would give a new file: read once, as umask(2) can only be swapped. */
static mode_t new_file_mode(void)
{
	static mode_t mode = (mode_t)-1;

	if (mode == (mode_t)-1) {
		mode_t mask = umask(022);

		umask(mask);
		mode = 0666 & ~mask;
	}
	return mode;
}

static int write_file(const char *path, const struct metrics_src *src)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	char *tmp;
	FILE *f;
	int fd, err = 0;

	struct stat st;

	if (!*path || (slash && !slash[1]))
		return -EISDIR;
	/* Replaced by rename(2), so never followed; still, only a file is ours to replace. */
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return S_ISLNK(st.st_mode) ? -ELOOP : S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	tmp = malloc(strlen(path) + 9);
	if (!tmp)
		return -ENOMEM;
	sprintf(tmp, "%.*s.%s.XXXXXX", (int)dirlen, path, path + dirlen);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		free(tmp);
		return err;
	}
	if (fchmod(fd, new_file_mode()) < 0 || !(f = fdopen(fd, "w"))) {
		err = -errno;
		close(fd);
		goto fail;
	}
	err = metrics_write(f, src, METRICS_TEXT);
	if (fflush(f) != 0 || ferror(f))
		err = err ? err : -(errno ? errno : EIO);
	if (fclose(f) != 0 && !err)
		err = -(errno ? errno : EIO);
	if (err)
		goto fail;
	if (rename(tmp, path) < 0) {
		err = -errno;
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	unlink(tmp);
	free(tmp);
	return err;
}

int metrics_write_file(const char *path, const struct metrics_src *src)
{
	struct cli_user_rights r;
	int err;

	/* The file, its temporary and the rename: all with the rights of the user who named it. */
	if (cli_user_rights_enter(&r) < 0)
		return -errno;
	err = write_file(path, src);
	cli_user_rights_leave(&r);
	return err;
}
