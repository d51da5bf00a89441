/* Output helpers of the CLI: JSON writer, CSV fields, number formats, status line. */
#include "config.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <ipcperf/ipcperf.h>
#include "output.h"

/* ------------------------------------------------------------------ JSON */

void json_init(struct json *j, FILE *f, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->pretty = pretty;
}

void json_init_inside(struct json *j, FILE *f, bool pretty, int depth)
{
	json_init(j, f, pretty);
	j->depth = depth > 0 && depth < JSON_MAX_DEPTH ? depth : 0;
}

void json_splice(struct json *j, const char *text, size_t len)
{
	if (!len)
		return;
	fwrite(text, 1, len, j->f);
	j->has_items[j->depth] = true;
}

/* Length of the valid UTF-8 sequence at @p, or 0 if the byte there does not start one. */
static size_t utf8_seq_len(const unsigned char *p)
{
	uint32_t cp;
	size_t n;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2;
		cp = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		cp = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		cp = p[0] & 0x07;
	} else {
		return 0;	/* continuation byte, overlong lead (c0, c1), or > U+10FFFF */
	}
	/* A NUL terminator is not a continuation byte, so this never reads past it. */
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if (n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)))
		return 0;	/* overlong, or a UTF-16 surrogate */
	if (n == 4 && (cp < 0x10000 || cp > 0x10ffff))
		return 0;
	return n;
}

void json_write_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	fputc('"', f);
	while (*p) {
		size_t n;

		switch (*p) {
		case '"':  fputs("\\\"", f); p++; continue;
		case '\\': fputs("\\\\", f); p++; continue;
		case '\b': fputs("\\b", f); p++; continue;
		case '\f': fputs("\\f", f); p++; continue;
		case '\n': fputs("\\n", f); p++; continue;
		case '\r': fputs("\\r", f); p++; continue;
		case '\t': fputs("\\t", f); p++; continue;
		default:
			break;
		}
		if (*p < 0x20 || *p == 0x7f) {
			fprintf(f, "\\u%04x", *p++);
			continue;
		}
		n = utf8_seq_len(p);
		if (!n) {
			/* Not UTF-8 (a path or comm is just bytes): keep the byte as U+00XX. */
			fprintf(f, "\\u%04x", *p++);
			continue;
		}
		fwrite(p, 1, n, f);
		p += n;
	}
	fputc('"', f);
}

static void json_indent(struct json *j)
{
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Separator, indentation and key before a value. */
static void json_value_start(struct json *j, const char *key)
{
	if (j->depth > 0) {
		if (j->has_items[j->depth])
			fputc(',', j->f);
		j->has_items[j->depth] = true;
		if (j->pretty)
			json_indent(j);
	}
	if (key) {
		json_write_string(j->f, key);
		fputs(j->pretty ? ": " : ":", j->f);
	}
}

static void json_open(struct json *j, const char *key, char c)
{
	json_value_start(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->has_items[j->depth] = false;
}

static void json_close(struct json *j, char c)
{
	bool had = j->has_items[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (j->pretty && had)
		json_indent(j);
	fputc(c, j->f);
}

void json_object_begin(struct json *j, const char *key) { json_open(j, key, '{'); }
void json_object_end(struct json *j) { json_close(j, '}'); }
void json_array_begin(struct json *j, const char *key) { json_open(j, key, '['); }
void json_array_end(struct json *j) { json_close(j, ']'); }

void json_u64(struct json *j, const char *key, uint64_t v)
{
	json_value_start(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void json_i64(struct json *j, const char *key, int64_t v)
{
	json_value_start(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void json_fixed(struct json *j, const char *key, double v, int decimals)
{
	json_value_start(j, key);
	fprintf(j->f, "%.*f", decimals, v);
}

void json_str(struct json *j, const char *key, const char *s)
{
	json_value_start(j, key);
	json_write_string(j->f, s);
}

void json_bool(struct json *j, const char *key, bool v)
{
	json_value_start(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	json_value_start(j, key);
	fputs("null", j->f);
}

void json_end_document(struct json *j)
{
	fputc('\n', j->f);
	j->depth = 0;
	j->has_items[0] = false;
}

void json_u64_rows(struct json *j, const struct json_u64_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_u64(j, rows[i].key, rows[i].v);
}

void json_spread(struct json *j, const char *key, uint64_t min, uint64_t p50, uint64_t p99,
		 uint64_t max)
{
	const struct json_u64_row rows[] = {
		{ "min", min }, { "p50", p50 }, { "p99", p99 }, { "max", max },
	};

	json_object_begin(j, key);
	json_u64_rows(j, rows, JSON_NROWS(rows));
	json_object_end(j);
}

void json_lat(struct json *j, const char *key, const struct ipcperf_lat *l)
{
	const struct json_u64_row rows[] = {
		{ "min", l->min }, { "avg", l->avg }, { "p50", l->p50 }, { "p99", l->p99 }, { "max", l->max },
	};

	json_object_begin(j, key);
	json_u64_rows(j, rows, JSON_NROWS(rows));
	json_object_end(j);
}

void cli_summary_of(struct cli_summary *sum, const struct ipcperf_session_stats *st,
		    const int *exit_status)
{
	*sum = (struct cli_summary){
		.duration_ns = st->stop_ns > st->start_ns ? st->stop_ns - st->start_ns : 0,
		.lost = st->lost,
		.unpaired = st->unpaired_enter + st->unpaired_exit,
		.records = st->records,
		.fd_identity = st->fd_identity,
		.syscall_records = st->syscall_records,
		.sched_records = st->sched_records,
		.exit_status = exit_status,
	};
}

void json_doc_begin(struct json *j)
{
	json_object_begin(j, NULL);
	json_u64(j, "schema", 1);
	json_str(j, "tool", "ipcperf");
	json_str(j, "version", ipcperf_version());
}

void json_doc_summary(struct json *j, const struct cli_summary *sum)
{
	json_u64(j, "duration_ns", sum->duration_ns);
	json_u64(j, "lost_events", sum->lost);
	json_u64(j, "unpaired_syscalls", sum->unpaired);
	json_u64(j, "records", sum->records);
	if (sum->fd_identity)
		json_str(j, "fd_identity", sum->fd_identity == IPCPERF_FDID_BPF ? "bpf" : "proc");
	if (sum->syscall_records)
		json_str(j, "syscall_records",
			 sum->syscall_records == IPCPERF_SC_RECORDS_KERNEL ? "kernel" : "samples");
	if (sum->sched_records)
		json_str(j, "sched_records",
			 sum->sched_records == IPCPERF_SCHED_RECORDS_TOTALS ? "totals" : "events");
	if (!sum->exit_status)
		return;
	if (WIFSIGNALED(*sum->exit_status))
		json_u64(j, "exit_signal", (uint64_t)WTERMSIG(*sum->exit_status));
	else if (WIFEXITED(*sum->exit_status))
		json_u64(j, "exit_status", (uint64_t)WEXITSTATUS(*sum->exit_status));
}

/* ------------------------------------------------------------------ names */

/*
 * The escape of the text at @p (of @left bytes) into @out (at least 5
 * bytes): "" when it needs none. @return the bytes of @p it stands for.
 */
static size_t esc_next(const unsigned char *p, size_t left, unsigned int how, const char *also,
		       char *out)
{
	static const char named[] = "\f\n\r\t\v", name[] = "fnrtv";
	const char *e = *p ? strchr(named, *p) : NULL;
	bool layout = how & CLI_ESC_LAYOUT;
	size_t n = 1;

	out[0] = '\0';
	if (*p >= 0x80 && !(how & CLI_ESC_ASCII) && left >= 2) {
		/* NUL-terminated or not, a sequence never reads past @left. */
		unsigned char seq[5] = { 0 };

		memcpy(seq, p, left < 4 ? left : 4);
		n = utf8_seq_len(seq);
		/* U+0080..U+009F are the C1 controls: a terminal may act on them */
		if (n > 1 && !(n == 2 && p[0] == 0xc2 && p[1] < 0xa0))
			return n;
		n = 1;
	}
	if (layout && (*p == '\n' || *p == '\t'))
		return n;
	if ((*p == '\\' && !layout) || (*p == '"' && (how & CLI_ESC_QUOTED)))
		snprintf(out, 5, "\\%c", *p);
	else if (e)
		snprintf(out, 5, "\\%c", name[e - named]);
	else if (*p < 0x20 || *p >= 0x7f || (*p && also && strchr(also, *p)))
		/* all three digits when a digit follows, or it would read as part of them */
		snprintf(out, 5, left > 1 && p[1] >= '0' && p[1] <= '7' ? "\\%03o" : "\\%o", *p);
	return n;
}

void cli_put_escaped(FILE *f, const char *s, size_t len, unsigned int how, const char *also)
{
	const unsigned char *p = (const unsigned char *)s;
	char e[5];

	for (size_t i = 0; i < len;) {
		size_t n = esc_next(p + i, len - i, how, also, e);

		if (e[0])
			fputs(e, f);
		else
			fwrite(p + i, 1, n, f);
		i += n;
	}
}

/* cli_esc() with @how. */
static const char *esc_into(char *buf, size_t size, const char *s, unsigned int how)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t len = strlen((const char *)p), at = 0;
	char e[5];

	if (!size)
		return buf;
	for (size_t i = 0; i < len;) {
		size_t n = esc_next(p + i, len - i, how, NULL, e), w = e[0] ? strlen(e) : n;

		if (at + w >= size)
			break;
		memcpy(buf + at, e[0] ? e : (const char *)p + i, w);
		at += w;
		i += n;
	}
	buf[at] = '\0';
	return buf;
}

const char *cli_esc(char *buf, size_t size, const char *s)
{
	return esc_into(buf, size, s, 0);
}

void cli_group_name(char *buf, size_t len, int role, const char *endpoint, const char *peer)
{
	if (role == IPCPERF_GROUP_SERVED)
		snprintf(buf, len, "%s <- %s", endpoint, peer);
	else if (role == IPCPERF_GROUP_CLIENT)
		snprintf(buf, len, "-> %s %s", endpoint, peer);
	else
		snprintf(buf, len, "unix peer %s", peer);
}

/* ------------------------------------------------------------------ CSV */

/* Whether @s has a byte that is not printable ASCII, nor a newline or a tab. */
static bool csv_needs_escape(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p >= 0x7f)
			return true;
	return false;
}

void csv_field(FILE *f, const char *s, const char *sep)
{
	char *esc = NULL;

	if (!s)
		s = "";
	/* a path or a comm printed on a terminal: its control bytes as escapes, not obeyed */
	if (csv_needs_escape(s)) {
		size_t size = CLI_ESC_LEN(strlen(s));

		esc = malloc(size);
		s = esc ? esc_into(esc, size, s, CLI_ESC_LAYOUT) : "?";
	}
	if (!strpbrk(s, "\"\r\n") && !(*sep && strstr(s, sep))) {
		fputs(s, f);
	} else {
		fputc('"', f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	}
	free(esc);
}

/* ------------------------------------------------------------------ numbers */

/* A step of a scale: values below @below are divided by @div and printed with @decimals. */
struct unit_step {
	uint64_t below;			/* UINT64_MAX: the last step, for all the rest */
	double div;
	int decimals;			/* 0: the value as it is, an integer */
	const char *unit;
};

static const char *fmt_scaled(char *buf, size_t len, uint64_t v, const struct unit_step *step)
{
	while (v >= step->below && step->below != UINT64_MAX)
		step++;
	if (!step->decimals)
		snprintf(buf, len, "%" PRIu64 "%s", v, step->unit);
	else
		snprintf(buf, len, "%.*f%s", step->decimals, v / step->div, step->unit);
	return buf;
}

const char *fmt_ns(char *buf, size_t len, uint64_t ns)
{
	/* Each bound below the value that would round up to "1000.0" of its unit. */
	static const struct unit_step steps[] = {
		{ 1000, 1, 0, "ns" },
		{ 999950, 1e3, 1, "us" },
		{ 999995000, 1e6, 2, "ms" },
		{ UINT64_MAX, 1e9, 2, "s" },
	};

	return fmt_scaled(buf, len, ns, steps);
}

const char *fmt_bytes(char *buf, size_t len, uint64_t bytes)
{
	static const struct unit_step steps[] = {
		{ 1000, 1, 0, " B" },
		{ 999500, 1e3, 1, " kB" },
		{ 999995000, 1e6, 2, " MB" },
		{ UINT64_MAX, 1e9, 2, " GB" },
	};

	return fmt_scaled(buf, len, bytes, steps);
}

/* ------------------------------------------------------------------ status line */

static bool status_on;
static bool status_shown;

void cli_status_enable(bool on)
{
	status_on = on;
}

void cli_status_show(const char *fmt, ...)
{
	va_list ap;

	if (!status_on)
		return;
	/* \r then erase to the end of the line: the line is rewritten in place. */
	fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
	status_shown = true;
}

void cli_status_clear(void)
{
	if (!status_shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	status_shown = false;
}

static bool wide_tables;
static int report_fd = -1;

void cli_set_wide(bool wide)
{
	wide_tables = wide;
}

void cli_set_term_fd(int fd)
{
	report_fd = fd;
}

int cli_term_width(FILE *f)
{
	struct winsize ws;
	const char *cols;
	int fd = fileno(f) >= 0 ? fileno(f) : report_fd;

	if (wide_tables || fd < 0 || !isatty(fd))
		return 0;
	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	cols = getenv("COLUMNS");
	if (cols && atoi(cols) > 0)
		return atoi(cols);
	return 80;
}

void cli_put_folded(FILE *f, const char *text, int width, const char *indent)
{
	int col = 0, ind = (int)strlen(indent);

	while (*text) {
		const char *sp = strchr(text, ' ');
		int word = sp ? (int)(sp - text) : (int)strlen(text);

		if (width > 0 && col > ind && col + 1 + word > width) {
			fprintf(f, "\n%s", indent);
			col = ind;
		} else if (col) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", word, text);
		col += word;
		text += word;
		while (*text == ' ')
			text++;
	}
	fputc('\n', f);
}
