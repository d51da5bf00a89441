/* The per-syscall summary of `ipcperf stat --syscalls`: rows, merging, sorting, rendering. */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "syscalls-out.h"
#include "util.h"

static const struct {
	const char *key;
	enum sc_sort sort;
} sort_keys[] = {
	{ "time", SC_SORT_TIME },
	{ "calls", SC_SORT_CALLS },
	{ "errors", SC_SORT_ERRORS },
	{ "name", SC_SORT_NAME },
	{ "avg", SC_SORT_AVG },
	{ "max", SC_SORT_MAX },
	{ "min", SC_SORT_MIN },
	{ "p99", SC_SORT_P99 },
	/* strace -S's spellings */
	{ "time-total", SC_SORT_TIME },
	{ "total-time", SC_SORT_TIME },
	{ "count", SC_SORT_CALLS },
	{ "error", SC_SORT_ERRORS },
	{ "syscall", SC_SORT_NAME },
	{ "avg-time", SC_SORT_AVG },
	{ "time-avg", SC_SORT_AVG },
	{ "max-time", SC_SORT_MAX },
	{ "time-max", SC_SORT_MAX },
	{ "longest", SC_SORT_MAX },
	{ "min-time", SC_SORT_MIN },
	{ "time-min", SC_SORT_MIN },
	{ "shortest", SC_SORT_MIN },
};

int sc_sort_parse(const char *s, enum sc_sort *out)
{
	for (size_t i = 0; i < sizeof(sort_keys) / sizeof(sort_keys[0]); i++) {
		if (!strcmp(s, sort_keys[i].key)) {
			*out = sort_keys[i].sort;
			return 0;
		}
	}
	return -1;
}

/* ------------------------------------------------------------------ rows */

static int rows_grow(struct sc_rows *r)
{
	return cli_grow((void **)&r->v, &r->cap, r->n + 1, sizeof(*r->v));
}

int sc_rows_add(struct sc_rows *r, const struct ipcperf_syscall_row *row)
{
	struct sc_row *d;

	if (rows_grow(r) < 0)
		return -ENOMEM;
	d = &r->v[r->n];
	memset(d, 0, sizeof(*d));
	d->name = strdup(row->name ? row->name : "?");
	if (!d->name)
		return -ENOMEM;
	if (row->nr_errnos) {
		d->errnos = calloc(row->nr_errnos, sizeof(*d->errnos));
		if (!d->errnos) {
			free(d->name);
			return -ENOMEM;
		}
		for (size_t i = 0; i < row->nr_errnos; i++) {
			d->errnos[i].err = row->errnos[i].err;
			d->errnos[i].count = row->errnos[i].count;
		}
		d->nr_errnos = d->cap_errnos = row->nr_errnos;
	}
	d->tid = row->tid;
	d->calls = row->calls;
	d->errors = row->errors;
	d->time_ns = row->time_ns;
	d->lat_ns = row->lat_ns;
	d->merged = 1;
	d->exact = true;
	r->n++;
	if (r->hists && row->hist &&
	    (!(d->hist = ipcperf_hist__new()) || ipcperf_hist__merge(d->hist, row->hist) < 0))
		return -ENOMEM;	/* the row is in: sc_rows_free() frees it */
	return 0;
}

/* Add @count failures with @err to @row's list, which stays ascending. */
static int errno_add(struct sc_row *row, int err, uint64_t count)
{
	size_t i = 0;
	struct sc_errno *e;

	while (i < row->nr_errnos && row->errnos[i].err < err)
		i++;
	if (i < row->nr_errnos && row->errnos[i].err == err) {
		row->errnos[i].count += count;
		return 0;
	}
	if (cli_grow((void **)&row->errnos, &row->cap_errnos, row->nr_errnos + 1, sizeof(*e)) < 0)
		return -ENOMEM;
	e = cli_insert_at(row->errnos, row->nr_errnos++, sizeof(*e), i);
	e->err = err;
	e->count = count;
	return 0;
}

/*
 * The percentiles of the union, from the rows' histograms merged into @d's;
 * a row without one leaves an upper bound: the largest of the rows'.
 */
static int lat_percentiles(struct sc_row *d, const struct sc_row *s)
{
	struct ipcperf_lat l;

	d->exact = (d->exact || !d->merged) && s->exact && s->hist;
	if (!d->exact) {
		d->lat_ns.p50 = d->lat_ns.p50 > s->lat_ns.p50 ? d->lat_ns.p50 : s->lat_ns.p50;
		d->lat_ns.p99 = d->lat_ns.p99 > s->lat_ns.p99 ? d->lat_ns.p99 : s->lat_ns.p99;
		return 0;
	}
	if (!d->hist && !(d->hist = ipcperf_hist__new()))
		return -ENOMEM;
	if (ipcperf_hist__merge(d->hist, s->hist) < 0 || ipcperf_hist__lat(d->hist, &l) < 0)
		return -EINVAL;
	d->lat_ns.p50 = l.p50;
	d->lat_ns.p99 = l.p99;
	return 0;
}

static int lat_merge(struct sc_row *d, const struct sc_row *s)
{
	struct ipcperf_lat *a = &d->lat_ns;
	const struct ipcperf_lat *b = &s->lat_ns;

	if (!d->calls) {
		*a = *b;
	} else if (s->calls) {
		if (b->min < a->min)
			a->min = b->min;
		if (b->max > a->max)
			a->max = b->max;
	}
	return lat_percentiles(d, s);
}

int sc_rows_merge(struct sc_rows *dst, const struct sc_rows *src)
{
	for (size_t i = 0; i < src->n; i++) {
		const struct sc_row *s = &src->v[i];
		struct sc_row *d = NULL;

		for (size_t k = 0; k < dst->n && !d; k++)
			if (!strcmp(dst->v[k].name, s->name))
				d = &dst->v[k];
		if (!d) {
			if (rows_grow(dst) < 0)
				return -ENOMEM;
			d = &dst->v[dst->n];
			memset(d, 0, sizeof(*d));
			d->name = strdup(s->name);
			if (!d->name)
				return -ENOMEM;
			dst->n++;
		}
		if (lat_merge(d, s) < 0)
			return -ENOMEM;
		d->calls += s->calls;
		d->errors += s->errors;
		d->time_ns += s->time_ns;
		d->lat_ns.avg = d->calls ? d->time_ns / d->calls : 0;
		d->merged += s->merged ? s->merged : 1;
		for (size_t k = 0; k < s->nr_errnos; k++)
			if (errno_add(d, s->errnos[k].err, s->errnos[k].count) < 0)
				return -ENOMEM;
	}
	return 0;
}

static uint64_t row_key(const struct sc_row *r, enum sc_sort k)
{
	switch (k) {
	case SC_SORT_CALLS:
		return r->calls;
	case SC_SORT_ERRORS:
		return r->errors;
	case SC_SORT_AVG:
		return r->calls ? r->time_ns / r->calls : 0;
	case SC_SORT_MAX:
		return r->lat_ns.max;
	case SC_SORT_MIN:
		return r->lat_ns.min;
	case SC_SORT_P99:
		return r->lat_ns.p99;
	case SC_SORT_TIME:
	case SC_SORT_NAME:
	default:
		return r->time_ns;
	}
}

static int cmp_row(const void *a, const void *b, void *arg)
{
	const struct sc_row *x = a, *y = b;
	enum sc_sort k = *(const enum sc_sort *)arg;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (k != SC_SORT_NAME) {
		uint64_t kx = row_key(x, k), ky = row_key(y, k);

		if (kx != ky)
			return kx > ky ? -1 : 1;	/* largest first */
	}
	return strcmp(x->name, y->name);
}

void sc_rows_sort(struct sc_rows *r, enum sc_sort key)
{
	if (r->n > 1)
		qsort_r(r->v, r->n, sizeof(*r->v), cmp_row, &key);
}

void sc_rows_drop_hists(struct sc_rows *r)
{
	for (size_t i = 0; i < r->n; i++) {
		ipcperf_hist__delete(r->v[i].hist);
		r->v[i].hist = NULL;
	}
}

void sc_rows_free(struct sc_rows *r)
{
	sc_rows_drop_hists(r);
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].name);
		free(r->v[i].errnos);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}

const char *sc_errno_name(int err, char *buf, size_t len)
{
	const char *n = NULL;

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
	if (err > 0)
		n = strerrorname_np(err);
#endif
	if (n)
		return n;
	/*
	 * raw_syscalls:sys_exit fires before signal delivery, so it sees the
	 * kernel's restart requests (as strace does) that programs never see.
	 */
	switch (err) {
	case 512: return "ERESTARTSYS";
	case 513: return "ERESTARTNOINTR";
	case 514: return "ERESTARTNOHAND";
	case 515: return "ENOIOCTLCMD";
	case 516: return "ERESTART_RESTARTBLOCK";
	default: break;
	}
	snprintf(buf, len, "errno_%d", err);
	return buf;
}

static const char *errno_desc(int err)
{
	switch (err) {
	case 512: case 513: case 514: case 516:
		return "to be restarted";
	default:
		return err > 0 && err < 512 ? strerror(err) : "";
	}
}

char *sc_errnos_str(const struct sc_row *row)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; i < row->nr_errnos; i++) {
		char nb[CLI_NUM_LEN];

		fprintf(f, "%s%s=%" PRIu64, i ? ";" : "",
			sc_errno_name(row->errnos[i].err, nb, sizeof(nb)), row->errnos[i].count);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ------------------------------------------------------------------ text */

static void usec_cell(FILE *f, int width, uint64_t ns)
{
	fprintf(f, " %*.2f", width, ns / 1e3);
}

/* Errors by errno, most frequent first. */
static int cmp_errno_count(const void *a, const void *b)
{
	const struct sc_errno *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return (x->err > y->err) - (x->err < y->err);
}

static void text_errnos(FILE *f, const char *indent, const struct sc_row *rows, size_t n)
{
	bool any = false;

	for (size_t i = 0; i < n; i++)
		any |= rows[i].nr_errnos > 0;
	if (!any) {
		fprintf(f, "%serrors by errno: none\n", indent);
		return;
	}
	fprintf(f, "%serrors by errno:\n", indent);
	fprintf(f, "%s  %-20s %-16s %10s  %s\n", indent, "syscall", "errno", "errors", "");
	for (size_t i = 0; i < n; i++) {
		const struct sc_row *r = &rows[i];
		struct sc_errno *v;

		if (!r->nr_errnos)
			continue;
		v = malloc(r->nr_errnos * sizeof(*v));
		if (v) {
			memcpy(v, r->errnos, r->nr_errnos * sizeof(*v));
			qsort(v, r->nr_errnos, sizeof(*v), cmp_errno_count);
		}
		for (size_t k = 0; k < r->nr_errnos; k++) {
			const struct sc_errno *e = v ? &v[k] : &r->errnos[k];
			char nb[CLI_NUM_LEN];

			fprintf(f, "%s  %-20s %-16s %10" PRIu64 "  %s\n", indent, r->name,
				sc_errno_name(e->err, nb, sizeof(nb)), e->count, errno_desc(e->err));
		}
		free(v);
	}
}

/* Which latency columns the table shows (fit_syscalls()). */
struct sccols {
	bool min, p99, max;
	int name_w;	/* the rule over the names: strace's 16, the longest name when fitted */
};

/*
 * Leave columns out until the table fits @width (0: no limit): min, then
 * max, then p99, down to strace -c's columns.
 */
static void fit_syscalls(struct sccols *k, const char *indent, const struct sc_row *rows,
			 size_t n, int width)
{
	int name_w = 7;	/* "syscall" */
	int w;

	for (size_t i = 0; i < n; i++)
		if ((int)strlen(rows[i].name) > name_w)
			name_w = (int)strlen(rows[i].name);
	if (width > 0 && name_w < 16)
		k->name_w = name_w;
	w = (int)strlen(indent) + 6 + 12 + 12 + 10 + 10 + 1 + name_w + 33;
	if (width <= 0 || w <= width)
		return;
	k->min = false;
	if ((w -= 11) <= width)
		return;
	k->max = false;
	if ((w -= 11) <= width)
		return;
	k->p99 = false;
}

/* The rule under the heading and over the total. */
static void sc_rule(FILE *f, const char *indent, const struct sccols *k)
{
	fprintf(f, "%s------ ----------- -----------", indent);
	for (int i = 0; i < k->min + k->p99 + k->max; i++)
		fprintf(f, " ----------");
	fprintf(f, " --------- --------- %.*s\n", k->name_w, "----------------");
}

static void sc_text_head(FILE *f, const char *indent, const struct sccols *k)
{
	fprintf(f, "%s%-6s %11s %11s", indent, "% time", "seconds", "usecs/call");
	if (k->min)
		fprintf(f, " %10s", "min(us)");
	if (k->p99)
		fprintf(f, " %10s", "p99(us)");
	if (k->max)
		fprintf(f, " %10s", "max(us)");
	fprintf(f, " %9s %9s %s\n", "calls", "errors", "syscall");
	sc_rule(f, indent, k);
}

/* Row @r: its share of @all the time, seconds, latencies, calls, errors; @p99: it has one. */
static void sc_text_row(FILE *f, const char *indent, const struct sccols *k, uint64_t all,
			const struct sc_row *r, bool p99)
{
	fprintf(f, "%s%6.2f %11.6f", indent, all ? 100.0 * r->time_ns / all : 0.0, r->time_ns / 1e9);
	usec_cell(f, 11, r->calls ? r->time_ns / r->calls : 0);
	if (k->min)
		usec_cell(f, 10, r->lat_ns.min);
	if (k->p99 && p99)
		usec_cell(f, 10, r->lat_ns.p99);
	else if (k->p99)
		fprintf(f, " %10s", "-");
	if (k->max)
		usec_cell(f, 10, r->lat_ns.max);
	fprintf(f, " %9" PRIu64, r->calls);
	if (r->errors)
		fprintf(f, " %9" PRIu64, r->errors);
	else
		fprintf(f, " %9s", "");
	fprintf(f, " %s\n", r->name);
}

void sc_text_table(FILE *f, const char *indent, const struct sc_row *rows, size_t n, bool errnos)
{
	char total[] = "total";
	struct sc_row tot = { .name = total, .lat_ns.min = UINT64_MAX };
	struct sccols k = { true, true, true, 16 };

	for (size_t i = 0; i < n; i++) {
		tot.time_ns += rows[i].time_ns;
		tot.calls += rows[i].calls;
		tot.errors += rows[i].errors;
		if (rows[i].calls && rows[i].lat_ns.min < tot.lat_ns.min)
			tot.lat_ns.min = rows[i].lat_ns.min;
		if (rows[i].lat_ns.max > tot.lat_ns.max)
			tot.lat_ns.max = rows[i].lat_ns.max;
	}
	if (!tot.calls)
		tot.lat_ns.min = 0;
	fit_syscalls(&k, indent, rows, n, cli_term_width(f));
	sc_text_head(f, indent, &k);
	for (size_t i = 0; i < n; i++)
		sc_text_row(f, indent, &k, tot.time_ns, &rows[i], true);
	sc_rule(f, indent, &k);
	/* A p99 over all syscalls cannot be had from the rows: "-". */
	sc_text_row(f, indent, &k, tot.time_ns, &tot, false);
	if (errnos)
		text_errnos(f, indent, rows, n);
}

/* ------------------------------------------------------------------ JSON */

void sc_json_rows(struct json *j, const char *key, const struct sc_row *rows, size_t n,
		  bool with_tid, bool merged_info)
{
	json_array_begin(j, key);
	for (size_t i = 0; i < n; i++) {
		const struct sc_row *r = &rows[i];

		json_object_begin(j, NULL);
		json_str(j, "name", r->name);
		if (with_tid)
			json_i64(j, "tid", r->tid);
		json_u64(j, "calls", r->calls);
		json_u64(j, "errors", r->errors);
		json_u64(j, "time_ns", r->time_ns);
		json_u64(j, "min_ns", r->lat_ns.min);
		json_u64(j, "avg_ns", r->calls ? r->time_ns / r->calls : 0);
		json_u64(j, "p99_ns", r->lat_ns.p99);
		json_u64(j, "max_ns", r->lat_ns.max);
		if (merged_info)
			json_bool(j, "p99_upper_bound", r->merged > 1 && !r->exact);
		json_lat(j, "lat_ns", &r->lat_ns);
		json_object_begin(j, "errnos");
		for (size_t k = 0; k < r->nr_errnos; k++) {
			char nb[CLI_NUM_LEN];

			json_u64(j, sc_errno_name(r->errnos[k].err, nb, sizeof(nb)),
				 r->errnos[k].count);
		}
		json_object_end(j);
		json_object_end(j);
	}
	json_array_end(j);
}
