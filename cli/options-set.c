/*
 * The setters of the option table (options.h): each converts an option's
 * value, says a bad one in one line naming the option as given, and stores
 * it in a field of the one type it declares (its _stores() macro).
 */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmds.h"
#include "httpd.h"
#include "util.h"

/* The longest -d, in seconds: a year. */
#define DURATION_MAX (365.0 * 24 * 3600)

const char *cli_opt_name(const struct cli_option *o, char *buf, size_t len)
{
	if (o->letter)
		snprintf(buf, len, "-%c", o->letter);
	else
		snprintf(buf, len, "--%s", o->name);
	return buf;
}

int cli_opt_flag(const struct cli_option *o, const char *arg, void *dst)
{
	*(bool *)dst = true;
	return 0;
}

int cli_opt_string(const struct cli_option *o, const char *arg, void *dst)
{
	*(const char **)dst = arg;
	return 0;
}

int cli_opt_uint(const struct cli_option *o, const char *arg, void *dst)
{
	char name[32];
	double v;

	if (cli_parse_number(arg, false, (double)o->max, &v) < 0 || v < (double)o->min) {
		cli_err("invalid value '%s' for %s: give a number from %lu to %lu, in digits only", arg,
			cli_opt_name(o, name, sizeof(name)), o->min, o->max);
		return -1;
	}
	*(unsigned int *)dst = (unsigned int)v;
	return 0;
}

int cli_opt_enum(const struct cli_option *o, const char *arg, void *dst)
{
	char name[32], words[128];
	size_t n = 0;

	for (const struct cli_word *w = o->values; w->word; w++) {
		if (!strcmp(arg, w->word)) {
			*(int *)dst = w->value;
			return 0;
		}
	}
	/* "give a, b or c" */
	for (const struct cli_word *w = o->values; w->word && n < sizeof(words); w++)
		n += (size_t)snprintf(words + n, sizeof(words) - n, "%s%s",
				      w == o->values ? "" : w[1].word ? ", " : " or ", w->word);
	cli_err("invalid value '%s' for %s: give %s", arg, cli_opt_name(o, name, sizeof(name)),
		words);
	return -1;
}

/*
 * Each item of the comma-separated list @arg to @item, until one fails; an
 * empty item ("1,,2", "1,") is a usage error. @return 0, or -1.
 */
static int each_item(const char *arg, int (*item)(const struct cli_option *o, const char *tok,
						 void *dst), const struct cli_option *o, void *dst)
{
	char *copy = strdup(arg), *tok = copy, *comma;
	char name[32];
	int ret = copy ? 0 : -1;

	for (; tok && !ret; tok = comma ? comma + 1 : NULL) {
		if ((comma = strchr(tok, ',')))
			*comma = '\0';
		if (!*tok) {
			cli_err("invalid list '%s' for %s: an empty item; give items separated by "
				"single commas", arg, cli_opt_name(o, name, sizeof(name)));
			ret = -1;
		} else {
			ret = item(o, tok, dst);
		}
	}
	free(copy);
	return ret;
}

/* An id of -p or -t: a positive number; a usage error names the bad item. */
static int add_id(const struct cli_option *o, const char *tok, void *dst)
{
	struct cli_ids *ids = dst;
	char name[32];
	double v;

	if (cli_parse_number(tok, false, INT_MAX, &v) < 0 || v < 1) {
		cli_opt_name(o, name, sizeof(name));
		cli_err("invalid id '%s' in %s: give positive numbers in digits, e.g. %s 1234,5678", tok,
			name, name);
		return -1;
	}
	/* A repeated id is the same target: once, or every per-target cost is paid again. */
	for (size_t i = 0; i < ids->n; i++)
		if (ids->v[i] == (pid_t)v)
			return 0;
	if (cli_grow((void **)&ids->v, &ids->cap, ids->n + 1, sizeof(*ids->v)) < 0)
		return -1;
	ids->v[ids->n++] = (pid_t)v;
	return 0;
}

/*
 * @arg with each run of blanks made one comma, and blanks at either end or
 * beside a comma dropped: "1 2", " 1", "1, 2" read as perf reads them, so
 * that -p "$(pidof nginx)" works. NULL (errno set) if out of memory.
 */
static char *blanks_to_commas(const char *arg)
{
	char *out = malloc(strlen(arg) + 1), *w = out;
	bool blank = false;

	if (!out)
		return NULL;
	for (const char *r = arg; *r; r++) {
		if (isspace((unsigned char)*r)) {
			blank = true;
			continue;
		}
		if (blank && w > out && w[-1] != ',' && *r != ',')
			*w++ = ',';
		blank = false;
		*w++ = *r;
	}
	*w = '\0';
	return out;
}

/* -p, -t: "1,2,3" (or "1 2 3", as pidof prints them) into a list of ids. */
int cli_opt_ids(const struct cli_option *o, const char *arg, void *dst)
{
	char name[32], *ids = blanks_to_commas(arg);
	int ret;

	if (!ids) {
		cli_err("cannot read %s: %s", arg, strerror(errno));
		return -1;
	}
	if (!*ids) {
		cli_opt_name(o, name, sizeof(name));
		cli_err("%s needs at least one id, e.g. %s 1234", name, name);
		free(ids);
		return -1;
	}
	ret = each_item(ids, add_id, o, dst);
	free(ids);
	return ret;
}

int cli_opt_duration(const struct cli_option *o, const char *arg, void *dst)
{
	double v;

	if (cli_parse_number(arg, true, DURATION_MAX, &v) < 0 || !(v > 0)) {
		cli_err("invalid duration '%s' for -d: give seconds in digits, > 0 and at most %.0f "
			"(a year), e.g. -d 2.5", arg, DURATION_MAX);
		return -1;
	}
	*(double *)dst = v;
	return 0;
}

int cli_opt_pages(const struct cli_option *o, const char *arg, void *dst)
{
	unsigned long v;
	double d;

	v = cli_parse_number(arg, false, (double)o->max, &d) < 0 ? 0 : (unsigned long)d;
	if (!v || (v & (v - 1))) {
		cli_err("invalid ring size '%s' for -m: give a power of two from 1 to %lu pages, in digits",
			arg, o->max);
		return -1;
	}
	*(unsigned int *)dst = (unsigned int)v;
	return 0;
}

/* A string that may not be empty: "-x needs a separator, e.g. -x ,". */
static int set_nonempty(const struct cli_option *o, const char *arg, void *dst, const char *what,
			const char *example)
{
	char name[32];

	if (!*arg) {
		cli_opt_name(o, name, sizeof(name));
		cli_err("%s needs %s, e.g. %s %s", name, what, name, example);
		return -1;
	}
	return cli_opt_string(o, arg, dst);
}

int cli_opt_separator(const struct cli_option *o, const char *arg, void *dst)
{
	return set_nonempty(o, arg, dst, "a separator", ",");
}

int cli_opt_sc_sort(const struct cli_option *o, const char *arg, void *dst)
{
	if (sc_sort_parse(arg, dst) < 0) {
		cli_err("invalid value '%s' for -S: give " SC_SORT_KEYS, arg);
		return -1;
	}
	return 0;
}

/* A counter of -e, by perf's name; a usage error lists the valid names. */
static int add_event(const struct cli_option *o, const char *tok, void *dst)
{
	char names[256];
	size_t n = 0;

	for (int i = 0; i < IPCPERF_CNT__MAX; i++) {
		if (!strcmp(tok, ipcperf_counter_perf_name(i))) {
			*(unsigned int *)dst |= IPCPERF_CNT_BIT(i);
			return 0;
		}
	}
	for (int k = 0; k < IPCPERF_CNT__MAX; k++)
		n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", k ? "," : "",
				      ipcperf_counter_perf_name(k));
	cli_err("unknown event '%s' for -e: give some of %s", tok, names);
	return -1;
}

/* -e a,b,...: perf's names of counters into a mask. */
int cli_opt_events(const struct cli_option *o, const char *arg, void *dst)
{
	if (each_item(arg, add_event, o, dst) < 0)
		return -1;
	if (!*(unsigned int *)dst) {
		cli_err("-e needs at least one event, e.g. -e task-clock,page-faults");
		return -1;
	}
	return 0;
}

int cli_opt_trace_sel(const struct cli_option *o, const char *arg, void *dst)
{
	(void)o;
	return tracesel_parse(dst, arg);
}

/* A FILE: "" names none, a usage error as any other (not a file that cannot be opened). */
int cli_opt_path(const struct cli_option *o, const char *arg, void *dst)
{
	static const char *const examples[][2] = {
		{ "input", "capture.data" }, { "record", "capture.data" }, { "dot", "flows.dot" },
		{ "trace-out", "trace.json" }, { "openmetrics", "ipcperf.prom" },
		{ "otlp", "traces.json" }, { "perfetto", "paths.json" },
	};
	const char *example = "out.txt";

	for (size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); i++)
		if (!strcmp(o->name, examples[i][0]))
			example = examples[i][1];
	return set_nonempty(o, arg, dst, "a file", example);
}

int cli_opt_listen(const struct cli_option *o, const char *arg, void *dst)
{
	struct stat_listen *l = dst;

	if (httpd_parse_addr(arg, &l->addr, &l->len) < 0)
		return -1;
	l->on = true;
	return 0;
}

int cli_opt_input_add(const struct cli_option *o, const char *arg, void *dst)
{
	struct cli_inputs *in = dst;

	if (in->n >= CLI_INPUTS_MAX) {
		cli_err("more than %d captures for -i: join at most %d hosts", CLI_INPUTS_MAX,
			CLI_INPUTS_MAX);
		return -1;
	}
	if (cli_opt_path(o, arg, &in->v[in->n]) < 0)
		return -1;
	in->n++;
	return 0;
}

int cli_opt_host(const struct cli_option *o, const char *arg, void *dst)
{
	char name[32];
	size_t n = strlen(arg);
	bool ok = n && n < IPCPERF_HOST_MAX;

	for (size_t i = 0; ok && i < n; i++)
		ok = (unsigned char)arg[i] > ' ' && arg[i] != 0x7f;
	if (!ok) {
		cli_err("invalid host name '%s' for %s: give 1 to %d characters, no space (as "
			"web-1)", arg, cli_opt_name(o, name, sizeof(name)), IPCPERF_HOST_MAX - 1);
		return -1;
	}
	return cli_opt_string(o, arg, dst);
}

int cli_opt_url(const struct cli_option *o, const char *arg, void *dst)
{
	char name[32];

	if (strncmp(arg, "http://", 7) && strncmp(arg, "https://", 8)) {
		cli_err("invalid URL '%s' for %s: give http://HOST:PORT/PATH, as "
			"http://127.0.0.1:4318/v1/traces", arg, cli_opt_name(o, name, sizeof(name)));
		return -1;
	}
	return cli_opt_string(o, arg, dst);
}
