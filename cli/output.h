/* Output helpers of the CLI: a small JSON writer, CSV fields, number formats, the status line. */
#ifndef IPCPERF_CLI_OUTPUT_H
#define IPCPERF_CLI_OUTPUT_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * JSON writer: values are written as they come, with commas and (when
 * pretty) indentation handled here. Keys are given with each value inside
 * an object and must be NULL inside an array or at the top.
 */
#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	bool pretty;			/* newlines and indentation; else one line */
	int depth;
	bool has_items[JSON_MAX_DEPTH];	/* the open container already holds a value */
};

void json_init(struct json *j, FILE *f, bool pretty);
/*
 * A writer of values that go inside a container @depth levels deep of
 * another writer's document (written apart, spliced in with json_splice()).
 */
void json_init_inside(struct json *j, FILE *f, bool pretty, int depth);
/* The @len bytes of @text, values a json_init_inside() writer made at @j's depth. */
void json_splice(struct json *j, const char *text, size_t len);
void json_object_begin(struct json *j, const char *key);
void json_object_end(struct json *j);
void json_array_begin(struct json *j, const char *key);
void json_array_end(struct json *j);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, int64_t v);
void json_str(struct json *j, const char *key, const char *s);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);
/* A number with @decimals digits after the point (C locale: the CLI sets none). */
void json_fixed(struct json *j, const char *key, double v, int decimals);
/* Finish a top-level value: a newline (one JSON text per line with !pretty). */
void json_end_document(struct json *j);

/* One number of an object: its key and its value (json_u64_rows()). */
struct json_u64_row {
	const char *key;
	uint64_t v;
};
#define JSON_NROWS(rows) (sizeof(rows) / sizeof((rows)[0]))
/* The @n numbers of @rows, each "key": value, in their order. */
void json_u64_rows(struct json *j, const struct json_u64_row *rows, size_t n);

/* A latency distribution as schema 1 has it: {"min", "avg", "p50", "p99", "max"}. */
struct ipcperf_lat;
void json_lat(struct json *j, const char *key, const struct ipcperf_lat *l);
/* "key": { "min", "p50", "p99", "max" } */
void json_spread(struct json *j, const char *key, uint64_t min, uint64_t p50, uint64_t p99,
		 uint64_t max);

/* What every report says of its capture. */
struct cli_summary {
	uint64_t duration_ns;
	uint64_t lost;			/* lost events */
	uint64_t unpaired;		/* syscalls without their enter or exit */
	uint64_t records;
	unsigned int fd_identity;	/* enum ipcperf_fdid_source, 0: not said */
	unsigned int syscall_records;	/* enum ipcperf_sc_records, 0: not said */
	unsigned int sched_records;	/* enum ipcperf_sched_records, 0: not said */
	const int *exit_status;		/* the wait status of the command, once it exited */
};
/* The summary of a run from its session's statistics. */
struct ipcperf_session_stats;
void cli_summary_of(struct cli_summary *sum, const struct ipcperf_session_stats *st,
		    const int *exit_status);

/* Open the object of a schema 1 document: "schema", "tool", "version". */
void json_doc_begin(struct json *j);
/*
 * Its "duration_ns", "lost_events", "unpaired_syscalls", "records", and
 * "exit_status" or "exit_signal" when the command exited.
 */
void json_doc_summary(struct json *j, const struct cli_summary *sum);

/*
 * Write @s as a JSON string literal: quotes, backslash and control bytes are
 * escaped, valid UTF-8 passes through, and every byte that is not part of a
 * valid UTF-8 sequence becomes \u00XX (so the output is always valid JSON).
 */
void json_write_string(FILE *f, const char *s);

/*
 * Names from outside (paths, comms, argv, socket names) in a human output:
 * every byte that could drive a terminal (the C0 controls, DEL, the C1
 * controls, a byte that is not UTF-8) is written as a C escape, \n \t
 * \r \f \v by name and the others in octal (\33, \7, \302\233), and a
 * backslash as \\, so that a file named to set a terminal's title or clear
 * its screen shows as its name and does nothing. @how: CLI_ESC_* bits;
 * @also: more characters to escape (in octal), or NULL.
 */
#define CLI_ESC_ASCII	0x1u	/* every byte past ASCII escaped too (as strace in the C locale) */
#define CLI_ESC_QUOTED	0x2u	/* " escaped too: the text is written between quotes */
#define CLI_ESC_LAYOUT	0x4u	/* \n, \t and \ kept: a message's own lines */
/* The most bytes @n bytes take escaped, with the NUL. */
#define CLI_ESC_LEN(n)	(4 * (n) + 1)
void cli_put_escaped(FILE *f, const char *s, size_t len, unsigned int how, const char *also);
/* @s as a name into @buf of @size, cut before an escape that does not fit; @return @buf. */
const char *cli_esc(char *buf, size_t size, const char *s);
/*
 * How stat's and top's tables name a group of connections of role @role
 * (enum ipcperf_fd_group_role), given its endpoint and peer as shown:
 * "ENDPOINT <- PEER" served, "-> ENDPOINT PEER" made, else "unix peer PEER".
 */
void cli_group_name(char *buf, size_t len, int role, const char *endpoint, const char *peer);

/*
 * One CSV field: quoted (with "" for ") when it holds @sep, a quote or a
 * newline; its other control bytes, DEL, C1 controls and bytes that are not
 * UTF-8 escaped as cli_put_escaped() does with CLI_ESC_LAYOUT.
 */
void csv_field(FILE *f, const char *s, const char *sep);

/* "850ns", "12.3us", "4.56ms", "1.23s": at most 7 characters. */
const char *fmt_ns(char *buf, size_t len, uint64_t ns);
/* "512 B", "12.3 kB", "1.23 MB", "4.56 GB": decimal units, at most 9 characters. */
const char *fmt_bytes(char *buf, size_t len, uint64_t bytes);

/*
 * Live status line on stderr (only when enabled: stderr is a terminal and
 * not quiet). Anything else written to stderr or to a terminal stdout must
 * call cli_status_clear() first.
 */
void cli_status_enable(bool on);

/*
 * The columns the text tables may take on @f: its terminal's width
 * (TIOCGWINSZ, else $COLUMNS, else 80), or 0 for no limit when @f is not a
 * terminal or --wide was given (cli_set_wide()).
 */
int cli_term_width(FILE *f);
void cli_set_wide(bool wide);
/* The fd behind the report's own stream (a cookie stream has none), for cli_term_width(). */
void cli_set_term_fd(int fd);
/*
 * @text and a newline on @f, folded at spaces into lines of at most @width
 * columns (0: not folded), the lines after the first indented by @indent.
 */
void cli_put_folded(FILE *f, const char *text, int width, const char *indent);
__attribute__((format(printf, 1, 2))) void cli_status_show(const char *fmt, ...);
void cli_status_clear(void);

#endif
