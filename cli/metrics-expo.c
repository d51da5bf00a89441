/* The exposition formats of the metrics (metrics-expo.h). */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "metrics-expo.h"
#include "util.h"

/* In the order of their bounds. */
const struct expo_bound expo_bounds[] = {
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
_Static_assert(sizeof(expo_bounds) / sizeof(expo_bounds[0]) == EXPO_NR_BOUNDS,
	       "EXPO_NR_BOUNDS (metrics-expo.h) is the number of bounds");

/* ------------------------------------------------------------------ strings */

void expo_putn(struct expo_buf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (cli_grow_from(64, (void **)&b->p, &b->cap, b->len + n + 1, 1) < 0) {
		b->oom = true;
		return;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void expo_puts(struct expo_buf *b, const char *s)
{
	expo_putn(b, s, strlen(s));
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

void expo_label(struct expo_buf *b, const char *name, const char *value)
{
	const unsigned char *s = (const unsigned char *)(value ? value : "");

	if (b->len)
		expo_putn(b, ",", 1);
	expo_puts(b, name);
	expo_putn(b, "=\"", 2);
	while (*s) {
		size_t n = utf8_len(s);

		if (*s == '\\')
			expo_putn(b, "\\\\", 2);
		else if (*s == '"')
			expo_putn(b, "\\\"", 2);
		else if (*s == '\n')
			expo_putn(b, "\\n", 2);
		else if (n)
			expo_putn(b, (const char *)s, n);
		else
			expo_puts(b, "\xef\xbf\xbd");
		s += n ? n : 1;
	}
	expo_putn(b, "\"", 1);
}

void expo_pid(struct expo_buf *b, pid_t pid)
{
	char num[16];

	snprintf(num, sizeof(num), "%d", (int)pid);
	expo_label(b, "pid", num);
}

/* ------------------------------------------------------------------ aggregation */



uint64_t *expo_agg_add(struct expo_agg *a, struct expo_buf *key)
{
	struct expo_row *r;

	if (key->oom || a->oom) {
		free(key->p);
		*key = (struct expo_buf){ 0 };
		a->oom = true;
		return NULL;
	}
	if (cli_grow((void **)&a->rows, &a->cap, a->n + 1, sizeof(*a->rows)) < 0)
		goto oom;
	r = &a->rows[a->n];
	r->v = calloc(a->nv, sizeof(*r->v));
	if (!r->v)
		goto oom;
	r->key = key->p ? key->p : strdup("");
	*key = (struct expo_buf){ 0 };
	if (!r->key) {
		free(r->v);
		goto oom;
	}
	a->n++;
	return r->v;
oom:
	free(key->p);
	*key = (struct expo_buf){ 0 };
	a->oom = true;
	return NULL;
}

static int cmp_row(const void *x, const void *y)
{
	return strcmp(((const struct expo_row *)x)->key, ((const struct expo_row *)y)->key);
}

void expo_agg_finish(struct expo_agg *a)
{
	size_t k = 0;

	if (a->n > 1)
		qsort(a->rows, a->n, sizeof(*a->rows), cmp_row);
	for (size_t i = 0; i < a->n; i++) {
		struct expo_row *r = &a->rows[i];

		if (k && !strcmp(a->rows[k - 1].key, r->key)) {
			uint64_t *d = a->rows[k - 1].v;

			for (size_t j = 0; j < a->nv; j++) {
				switch (a->ops ? a->ops[j] : EXPO_SUM) {
				case EXPO_MAX:
					if (r->v[j] > d[j])
						d[j] = r->v[j];
					break;
				case EXPO_OR:
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

void expo_agg_free(struct expo_agg *a)
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

void expo_meta(const struct expo_out *o, const char *name, const char *type, const char *unit,
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

void expo_sample(const struct expo_out *o, const char *name, const char *suffix, const char *key,
		 const char *extra, const char *value)
{
	bool k = key && *key, e = extra && *extra;

	fprintf(o->f, "%s%s%s%s%s%s%s %s\n", name, suffix, k || e ? "{" : "", k ? key : "",
		k && e ? "," : "", e ? extra : "", k || e ? "}" : "", value);
}

const char *expo_u64(char *buf, size_t len, uint64_t v)
{
	snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

const char *expo_secs(char *buf, size_t len, uint64_t ns)
{
	int n = snprintf(buf, len, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);

	while (n > 0 && (size_t)n < len && buf[n - 1] == '0' && buf[n - 2] != '.')
		buf[--n] = '\0';
	return buf;
}

void expo_counter_family(const struct expo_out *o, const struct expo_agg *a, size_t idx, const char *name,
			 const char *unit, const char *help, bool in_secs)
{
	char val[48];

	if (!a->n)
		return;
	expo_meta(o, name, "counter", unit, help);
	for (size_t i = 0; i < a->n; i++)
		expo_sample(o, name, "_total", a->rows[i].key, NULL,
			    in_secs ? expo_secs(val, sizeof(val), a->rows[i].v[idx])
			    : expo_u64(val, sizeof(val), a->rows[i].v[idx]));
}

void expo_histogram_family(const struct expo_out *o, const struct expo_agg *a, size_t idx,
			   const char *name, const char *help)
{
	char val[48], le[32];

	if (!a->n)
		return;
	expo_meta(o, name, "histogram", "seconds", help);
	for (size_t i = 0; i < a->n; i++) {
		const uint64_t *v = &a->rows[i].v[idx];

		for (size_t b = 0; b < EXPO_NR_BOUNDS; b++) {
			snprintf(le, sizeof(le), "le=\"%s\"",
				 o->fmt == METRICS_OPENMETRICS ? expo_bounds[b].om : expo_bounds[b].text);
			expo_sample(o, name, "_bucket", a->rows[i].key, le, expo_u64(val, sizeof(val), v[2 + b]));
		}
		expo_sample(o, name, "_bucket", a->rows[i].key, "le=\"+Inf\"", expo_u64(val, sizeof(val), v[0]));
		expo_sample(o, name, "_count", a->rows[i].key, NULL, expo_u64(val, sizeof(val), v[0]));
		expo_sample(o, name, "_sum", a->rows[i].key, NULL, expo_secs(val, sizeof(val), v[1]));
	}
}

int expo_hist_values(const struct ipcperf_hist *h, uint64_t *v)
{
	uint64_t ns[EXPO_NR_BOUNDS];

	for (size_t b = 0; b < EXPO_NR_BOUNDS; b++)
		ns[b] = expo_bounds[b].ns;
	v[0] = ipcperf_hist__count(h);
	v[1] = ipcperf_hist__sum(h);
	return h ? ipcperf_hist__count_le(h, ns, EXPO_NR_BOUNDS, v + 2) : 0;
}
