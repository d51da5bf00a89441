/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `ipcperf stat --syscalls` end to end (the strace -c view): the CLI runs
 * tests/scwork, whose system calls are listed exactly at the top of
 * tests/scwork.c, and its output is checked against that table:
 *
 *  - JSON (parsed with json-c): the worker process's rows are exactly the
 *    table (calls, errors, errnos), with sane latencies;
 *  - the same program under `strace -f -c`: equal calls and errors for every
 *    syscall both report;
 *  - two scwork under one shell: one exact table per worker process, and
 *    --total's rows are the sums of the processes' rows;
 *  - --per-thread: each worker thread's rows are exact;
 *  - text: -S orders, --errno breakdown, --total's single table; CSV rows;
 *  - -I: the intervals' rows add up to the totals.
 *
 * Needs root; check-live.c decides whether to run. No assertion depends on
 * timing; a run that hangs is killed after RUN_DEADLINE_S and fails.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "jsoncheck.h"
#include "runcmd.h"
#include "check-helpers.h"
#include "suites.h"

#ifndef IPCPERF_PATH
#error "IPCPERF_PATH must name the built cli/ipcperf"
#endif
#if !defined(SCWORK_PATH) && !defined(IOWORK_PATH)
#error "SCWORK_PATH, or IOWORK_PATH (tests/scwork is built next to tests/iowork), must be defined"
#endif

Suite *syscalls_suite(void);

/* ------------------------------------------------------------------ */
/* What scwork's counted section does (the table in tests/scwork.c)    */
/* ------------------------------------------------------------------ */

struct want_errno {
	const char *name;
	int64_t count;
};

struct want {
	const char *name;
	int64_t calls, errors;
	struct want_errno errnos[2];
};

static const struct want counted[] = {
	{ "getpid", 1000, 0, { { NULL, 0 } } },
	{ "write", 500, 0, { { NULL, 0 } } },
	{ "read", 300, 0, { { NULL, 0 } } },
	{ "close", 242, 200, { { "EBADF", 200 } } },
	{ "openat", 102, 100, { { "ENOENT", 100 } } },
	{ "sched_yield", 50, 0, { { NULL, 0 } } },
	{ "dup", 20, 0, { { NULL, 0 } } },
	{ "fcntl", 12, 5, { { "EBADF", 3 }, { "EINVAL", 2 } } },
	{ "pipe2", 10, 0, { { NULL, 0 } } },
	{ "nanosleep", 10, 0, { { NULL, 0 } } },
	{ "kill", 9, 4, { { "ESRCH", 4 } } },
};
#define COUNTED_CALLS 2255
#define COUNTED_ERRORS 309

/* In each thread of `scwork threads N`, on top of the counted section. */
static const struct want thread_extra[] = {
	{ "prctl", 1, 0, { { NULL, 0 } } },
	{ "gettid", 1, 0, { { NULL, 0 } } },
};

static const struct want *counted_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(counted); i++)
		if (!strcmp(counted[i].name, name))
			return &counted[i];
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Running programs                                                    */
/* ------------------------------------------------------------------ */

/* The built tests/scwork: SCWORK_PATH, or next to IOWORK_PATH. */
static const char *scwork_path(void)
{
#ifdef SCWORK_PATH
	return SCWORK_PATH;
#else
	static char path[4096];

	if (!path[0]) {
		const char *io = IOWORK_PATH, *slash = strrchr(io, '/');
		int dir = slash ? (int)(slash - io + 1) : 0;

		snprintf(path, sizeof(path), "%.*sscwork", dir, io);
	}
	return path;
#endif
}


/*
 * `ipcperf stat ARGS... -- CMD...` (argv NULL-terminated, two lists), which
 * must exit 0. Also fails on lost events: counts would be lower bounds.
 */
static void run_stat(const char *const *args, const char *const *cmd, struct result *r)
{
	char *argv[40];
	size_t n = 0;
	char desc[512] = "";

	argv[n++] = IPCPERF_PATH;
	argv[n++] = "stat";
	argv[n++] = "-q";
	/*
	 * Every syscall makes two records; scwork makes thousands in a few ms,
	 * and with two of them busy on a 2-CPU machine the reader gets little
	 * CPU: rings of 4 MiB per CPU keep the counts exact.
	 */
	argv[n++] = "-m";
	argv[n++] = "1024";
	for (; *args; args++)
		argv[n++] = (char *)*args;
	argv[n++] = "--";
	for (; *cmd; cmd++)
		argv[n++] = (char *)*cmd;
	argv[n] = NULL;
	ck_assert(n < ARRAY_SIZE(argv));
	for (size_t i = 1; i < n; i++) {
		size_t l = strlen(desc);

		snprintf(desc + l, sizeof(desc) - l, "%s%s", i > 1 ? " " : "", argv[i]);
	}
	/*
	 * With events lost the counts are lower bounds (ipcperf says so) and
	 * exact numbers cannot be asserted: run again, at most twice, and say
	 * so on stderr (a loss that keeps coming back fails).
	 */
	for (int attempt = 1;; attempt++) {
		cmd_run(argv, r);
		ck_assert_msg(cmd_exited_with(r, 0), "ipcperf %s: %s, expected exit 0; stderr:\n%.2000s",
			      desc, cmd_status_str(r->status), r->err);
		if (!strstr(r->err, "events lost"))
			break;
		ck_assert_msg(attempt < 3, "ipcperf %s lost events in 3 runs out of 3:\n%.2000s",
			      desc, r->err);
		fprintf(stderr, "check-syscalls: note: ipcperf %s lost events (attempt %d): "
			"running it again\n", desc, attempt);
		cmd_result_free(r);
	}
}

/* The pids scwork printed on stderr as "scwork: worker PID" (or "scwork: thread TID NAME"). */
static size_t scwork_ids(const char *err, const char *what, pid_t *ids, char names[][16], size_t max)
{
	char prefix[32];
	size_t n = 0, pl;
	const char *p = err;

	snprintf(prefix, sizeof(prefix), "scwork: %s ", what);
	pl = strlen(prefix);
	while (p && *p) {
		if (!strncmp(p, prefix, pl) && n < max) {
			char name[16] = "";
			int id = 0;

			if (sscanf(p + pl, "%d %15s", &id, name) >= 1 && id > 0) {
				ids[n] = id;
				if (names)
					snprintf(names[n], 16, "%s", name);
				n++;
			}
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */
/* ------------------------------------------------------------------ */

/* Not strict: any text json-c takes as one value (what this suite has always checked). */
static json_object *parse_json_text(const char *text, const char *what)
{
	json_tokener *tok = json_tokener_new();
	json_object *o;

	ck_assert_msg(tok != NULL, "out of memory");
	o = json_tokener_parse_ex(tok, text, (int)strlen(text));
	ck_assert_msg(o != NULL, "%s: not JSON (%s):\n%.1000s", what,
		      json_tokener_error_desc(json_tokener_get_error(tok)), text);
	json_tokener_free(tok);
	return o;
}

/* Shape and sanity of one syscall entry (every entry of every output). */
static void check_entry(json_object *sc, const char *where)
{
	const char *name = jstr(sc, "name");
	int64_t calls = jnat(sc, "calls"), errors = jnat(sc, "errors"), t = jnat(sc, "time_ns");
	int64_t mn = jnat(sc, "min_ns"), mx = jnat(sc, "max_ns"), p99 = jnat(sc, "p99_ns");
	json_object *errnos = jget(sc, "errnos", json_type_object);
	int64_t sum = 0;

	ck_assert_msg(*name, "%s: empty syscall name", where);
	ck_assert_msg(calls > 0, "%s %s: a row without calls", where, name);
	ck_assert_msg(errors <= calls, "%s %s: %" PRId64 " errors > %" PRId64 " calls", where, name,
		      errors, calls);
	ck_assert_msg(mn <= p99 && p99 <= mx, "%s %s: min %" PRId64 " p99 %" PRId64 " max %" PRId64,
		      where, name, mn, p99, mx);
	ck_assert_msg(mn * calls <= t && t <= mx * calls, "%s %s: time %" PRId64 " ns outside "
		      "calls x [min, max] = %" PRId64 " x [%" PRId64 ", %" PRId64 "]", where, name,
		      t, calls, mn, mx);
	json_object_object_foreach(errnos, ename, ecount) {
		ck_assert_msg(json_object_is_type(ecount, json_type_int), "%s %s: errnos.%s not a number",
			      where, name, ename);
		ck_assert_msg(ename[0] == 'E' || !strncmp(ename, "errno_", 6),
			      "%s %s: errno name \"%s\"", where, name, ename);
		sum += json_object_get_int64(ecount);
	}
	ck_assert_msg(sum == errors, "%s %s: errnos add up to %" PRId64 ", errors %" PRId64, where,
		      name, sum, errors);
}

/* The entry @name in @scs (of thread @tid, or any when tid < 0), or NULL. */
static json_object *find_entry(json_object *scs, const char *name, pid_t tid)
{
	json_object *found = NULL;

	for (size_t i = 0; i < json_object_array_length(scs); i++) {
		json_object *sc = json_object_array_get_idx(scs, i);

		if (strcmp(jstr(sc, "name"), name) || (tid >= 0 && jint(sc, "tid") != tid))
			continue;
		ck_assert_msg(!found, "syscall %s listed twice%s", name, tid >= 0 ? " for a thread" : "");
		found = sc;
	}
	return found;
}

/* Whether entry @sc has exactly the calls, errors and errnos of @w; else say why in @msg. */
static void expect_entry(json_object *sc, const struct want *w, const char *where, char *msg,
			 size_t len)
{
	json_object *errnos, *v;
	size_t nr_want = 0;

	if (!sc) {
		msg_add(msg, len, "  %s: no %s row (want %" PRId64 " calls)\n", where, w->name,
			w->calls);
		return;
	}
	check_entry(sc, where);
	if (jint(sc, "calls") != w->calls || jint(sc, "errors") != w->errors)
		msg_add(msg, len, "  %s %s: %" PRId64 " calls %" PRId64 " errors, want %" PRId64
			" and %" PRId64 "\n", where, w->name, jint(sc, "calls"), jint(sc, "errors"),
			w->calls, w->errors);
	errnos = jget(sc, "errnos", json_type_object);
	for (size_t i = 0; i < ARRAY_SIZE(w->errnos) && w->errnos[i].name; i++, nr_want++) {
		if (!json_object_object_get_ex(errnos, w->errnos[i].name, &v) ||
		    json_object_get_int64(v) != w->errnos[i].count)
			msg_add(msg, len, "  %s %s: errnos %s, want %s %" PRId64 "\n", where, w->name,
				json_object_to_json_string(errnos), w->errnos[i].name,
				w->errnos[i].count);
	}
	if ((size_t)json_object_object_length(errnos) != nr_want)
		msg_add(msg, len, "  %s %s: errnos %s, want %zu kinds\n", where, w->name,
			json_object_to_json_string(errnos), nr_want);
}

/*
 * The worker process @pid's rows must be exactly scwork's table: every
 * counted syscall with its exact counts, and nothing else (the worker makes
 * no other call).
 */
static void expect_worker(json_object *doc, pid_t pid)
{
	json_object *proc = jproc(doc, pid);
	json_object *scs = jget(proc, "syscalls", json_type_array);
	char where[64], msg[4096] = "";
	int64_t calls = 0, errors = 0;

	snprintf(where, sizeof(where), "worker %d", (int)pid);
	ck_assert_msg(!strcmp(jstr(proc, "comm"), "scwork"), "%s: comm \"%s\"", where,
		      jstr(proc, "comm"));
	for (size_t i = 0; i < ARRAY_SIZE(counted); i++)
		expect_entry(find_entry(scs, counted[i].name, -1), &counted[i], where, msg,
			     sizeof(msg));
	for (size_t i = 0; i < json_object_array_length(scs); i++) {
		json_object *sc = json_object_array_get_idx(scs, i);

		calls += jint(sc, "calls");
		errors += jint(sc, "errors");
		if (!counted_find(jstr(sc, "name")))
			msg_add(msg, sizeof(msg), "  %s: unexpected row %s (%" PRId64 " calls)\n",
				where, jstr(sc, "name"), jint(sc, "calls"));
	}
	ck_assert_msg(!msg[0], "the worker's syscalls are not scwork's table:\n%s", msg);
	ck_assert_int_eq(calls, COUNTED_CALLS);
	ck_assert_int_eq(errors, COUNTED_ERRORS);
}

/* ------------------------------------------------------------------ */
/* Text output                                                         */
/* ------------------------------------------------------------------ */

struct trow {
	char name[40];
	double pct, secs, avg, min, p99, max;
	int64_t calls, errors;
};

struct ttable {
	struct trow rows[128];
	size_t n;
	struct trow total;
	struct {
		char sc[40], err[32];
		int64_t count;
	} errnos[64];
	size_t nr_errnos;
	bool has_errno_section;
};

static size_t split(char *line, char **tok, size_t max)
{
	size_t n = 0;
	char *save = NULL;

	for (char *w = strtok_r(line, " \t", &save); w && n < max; w = strtok_r(NULL, " \t", &save))
		tok[n++] = w;
	return n;
}

static bool parse_num(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return !errno && end != s && !*end;
}

static bool parse_i64(const char *s, int64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	return !errno && end != s && !*end;
}

/*
 * A row of the table: "% time, seconds, usecs/call, min, p99, max, calls,
 * [errors], syscall" (errors blank when 0, as strace; p99 "-" in the total).
 */
static void parse_trow(char *line, struct trow *r)
{
	char copy[512], *tok[16];
	size_t n;
	double *num[] = { &r->pct, &r->secs, &r->avg, &r->min, &r->p99, &r->max };

	snprintf(copy, sizeof(copy), "%s", line);
	n = split(copy, tok, ARRAY_SIZE(tok));
	ck_assert_msg(n == 8 || n == 9, "table row with %zu cells: %s", n, line);
	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < 6; i++)
		ck_assert_msg(parse_num(tok[i], num[i]) || (i == 4 && !strcmp(tok[i], "-")),
			      "cell %zu is not a number: %s", i, line);
	ck_assert_msg(parse_i64(tok[6], &r->calls), "calls not a number: %s", line);
	if (n == 9)
		ck_assert_msg(parse_i64(tok[7], &r->errors) && r->errors > 0,
			      "errors not a positive number: %s", line);
	snprintf(r->name, sizeof(r->name), "%s", tok[n - 1]);
}

/*
 * The first syscall table after the line starting with @marker in @text,
 * with its errno breakdown if one follows.
 */
static void parse_table(const char *text, const char *marker, struct ttable *t)
{
	const char *p = text;
	size_t ml = strlen(marker);
	enum { SEEK_MARK, SEEK_HEAD, RULE1, ROWS, AFTER, ERRNOS } st = SEEK_MARK;

	memset(t, 0, sizeof(*t));
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char line[512], copy[512], *tok[16];
		size_t n;

		snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1), p);
		p = e ? e + 1 : p + len;
		snprintf(copy, sizeof(copy), "%s", line);
		n = split(copy, tok, ARRAY_SIZE(tok));
		switch (st) {
		case SEEK_MARK:
			if (!strncmp(line, marker, ml))
				st = SEEK_HEAD;
			break;
		case SEEK_HEAD:
			if (n >= 2 && !strcmp(tok[0], "%") && !strcmp(tok[1], "time")) {
				ck_assert_msg(!strcmp(tok[n - 1], "syscall") && n == 10,
					      "table header: %s", line);
				st = RULE1;
			}
			break;
		case RULE1:
			ck_assert_msg(n > 0 && tok[0][0] == '-', "no rule under the header: %s", line);
			st = ROWS;
			break;
		case ROWS:
			if (n > 0 && tok[0][0] == '-') {
				st = AFTER;
				break;
			}
			ck_assert_msg(t->n < ARRAY_SIZE(t->rows), "too many rows");
			parse_trow(line, &t->rows[t->n++]);
			break;
		case AFTER:
			if (!t->total.name[0]) {
				parse_trow(line, &t->total);
				ck_assert_msg(!strcmp(t->total.name, "total"), "no total row: %s", line);
				break;
			}
			if (n >= 3 && !strcmp(tok[0], "errors") && !strcmp(tok[1], "by") &&
			    !strcmp(tok[2], "errno:")) {
				t->has_errno_section = true;
				st = ERRNOS;
				break;
			}
			return;
		case ERRNOS:
			if (n >= 3 && !strcmp(tok[0], "syscall") && !strcmp(tok[1], "errno"))
				break;	/* its header */
			if (strncmp(line, "    ", 4) || n < 3)
				return;
			ck_assert_msg(t->nr_errnos < ARRAY_SIZE(t->errnos), "too many errno lines");
			snprintf(t->errnos[t->nr_errnos].sc, sizeof(t->errnos[0].sc), "%s", tok[0]);
			snprintf(t->errnos[t->nr_errnos].err, sizeof(t->errnos[0].err), "%s", tok[1]);
			ck_assert_msg(parse_i64(tok[2], &t->errnos[t->nr_errnos].count),
				      "errno count: %s", line);
			t->nr_errnos++;
			break;
		}
	}
	ck_assert_msg(st >= AFTER && t->total.name[0], "no complete syscall table after \"%s\" in:\n%.3000s",
		      marker, text);
}

static const struct trow *trow_find(const struct ttable *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->rows[i].name, name))
			return &t->rows[i];
	return NULL;
}

/* The text table of worker @pid must hold exactly scwork's rows and totals. */
static void expect_worker_text(const struct ttable *t, pid_t pid)
{
	ck_assert_msg(t->n == ARRAY_SIZE(counted), "worker %d: %zu rows, want %zu", (int)pid, t->n,
		      ARRAY_SIZE(counted));
	for (size_t i = 0; i < ARRAY_SIZE(counted); i++) {
		const struct trow *r = trow_find(t, counted[i].name);

		ck_assert_msg(r, "worker %d: no %s row", (int)pid, counted[i].name);
		ck_assert_msg(r->calls == counted[i].calls && r->errors == counted[i].errors,
			      "worker %d %s: %" PRId64 " calls %" PRId64 " errors, want %" PRId64
			      " and %" PRId64, (int)pid, r->name, r->calls, r->errors,
			      counted[i].calls, counted[i].errors);
	}
	ck_assert_int_eq(t->total.calls, COUNTED_CALLS);
	ck_assert_int_eq(t->total.errors, COUNTED_ERRORS);
	ck_assert_msg(t->total.pct > 99.99 && t->total.pct < 100.01, "total %% %.2f", t->total.pct);
}

/* ------------------------------------------------------------------ */
/* The tests                                                           */
/* ------------------------------------------------------------------ */

/* `scwork [ARG...]`, NULL-terminated (static storage). */
static const char *const *scwork_cmd_with(const char *a1, const char *a2)
{
	static const char *cmd[4];

	cmd[0] = scwork_path();
	cmd[1] = a1;
	cmd[2] = a1 ? a2 : NULL;
	cmd[3] = NULL;
	return cmd;
}

#define scwork_cmd scwork_cmd_with(NULL, NULL)

static pid_t one_worker(const struct result *r)
{
	pid_t pid;

	ck_assert_msg(scwork_ids(r->err, "worker", &pid, NULL, 1) == 1,
		      "scwork did not name its worker; stderr:\n%.2000s", r->err);
	return pid;
}

START_TEST(test_exact_json)
{
	static const char *const args[] = { "--syscalls", "--json", NULL };
	struct result r;
	json_object *doc, *procs, *parent = NULL, *scs;
	pid_t worker;

	run_stat(args, scwork_cmd, &r);
	worker = one_worker(&r);
	doc = parse_json_text(r.out, "stat --syscalls --json");
	ck_assert_int_eq(jint(doc, "lost_events"), 0);
	/* scwork catches no signal and waits for its worker: every call completes. */
	ck_assert_int_eq(jint(doc, "unpaired_syscalls"), 0);
	ck_assert_msg(!json_object_object_get_ex(doc, "syscalls_total", NULL),
		      "syscalls_total without --total");
	expect_worker(doc, worker);

	/* The parent: what the loader and libc's startup do, and then exactly clone, wait4. */
	procs = jget(doc, "processes", json_type_array);
	ck_assert_int_eq(json_object_array_length(procs), 2);
	for (size_t i = 0; i < 2; i++)
		if (jint(json_object_array_get_idx(procs, i), "pid") != worker)
			parent = json_object_array_get_idx(procs, i);
	ck_assert(parent != NULL);
	scs = jget(parent, "syscalls", json_type_array);
	ck_assert_msg(find_entry(scs, "clone", -1) && jint(find_entry(scs, "clone", -1), "calls") == 1,
		      "parent: clone not counted once");
	ck_assert_msg(find_entry(scs, "wait4", -1) && jint(find_entry(scs, "wait4", -1), "calls") == 1,
		      "parent: wait4 not counted once");
	ck_assert_msg(!find_entry(scs, "getpid", -1), "parent: getpid counted");
	ck_assert_msg(!find_entry(scs, "exit_group", -1), "exit_group counted: it never returns");
	for (size_t i = 0; i < json_object_array_length(scs); i++)
		check_entry(json_object_array_get_idx(scs, i), "parent");
	json_object_put(doc);
	cmd_result_free(&r);
}
END_TEST

/* ---------------------------------------------------------- vs strace -c */

/*
 * `strace -c` prints (with -w or not, any column set):
 *   % time     seconds  usecs/call     calls    errors syscall
 *   ------ ----------- ----------- --------- --------- ----------------
 *    39.27    0.002760           2      1104         4 write
 *    26.41    0.001856           3       511           read
 *   ------ ----------- ----------- --------- --------- ----------------
 *   100.00    0.007028           3      2141        68 total
 * The header names the columns ("% time" is one). Cells are right-aligned
 * under their header and "errors" is blank when 0, so a row's cells are
 * matched to columns by where they end, not by counting words.
 */
static void parse_strace_c(const char *text, struct sc_counts *t)
{
	const char *p = text;
	size_t calls_end = 0, errors_end = 0, name_start = 0;
	bool header = false, rows = false;

	while (*p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char line[512];

		snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1), p);
		p = e ? e + 1 : p + len;
		len = strlen(line);
		if (!header) {
			char *c = strstr(line, " calls"), *er = strstr(line, " errors"),
			     *sy = strstr(line, " syscall");

			if (!c || !er || !sy || !strstr(line, "% time"))
				continue;	/* e.g. "strace: Process N attached" */
			calls_end = (size_t)(c - line) + 6;
			errors_end = (size_t)(er - line) + 7;
			name_start = (size_t)(sy - line) + 1;
			ck_assert_msg(calls_end < errors_end && errors_end < name_start,
				      "strace -c header not understood: %s", line);
			header = true;
			continue;
		}
		if (line[0] == '-' || (line[0] == ' ' && line[strspn(line, " ")] == '-')) {
			rows = !rows;	/* the rules around the rows */
			if (!rows)
				break;
			continue;
		}
		if (!rows || !len)
			continue;
		{
			char name[40], cell[32];
			int64_t calls, errors = 0;
			size_t s;
			struct sc_count *c;

			ck_assert_msg(len > name_start, "strace -c row too short: %s", line);
			ck_assert_msg(sscanf(line + name_start, "%39s", name) == 1, "strace -c row: %s", line);
			/* calls: the word ending at calls_end */
			for (s = calls_end; s > 0 && line[s - 1] != ' '; s--)
				;
			snprintf(cell, sizeof(cell), "%.*s", (int)(calls_end - s), line + s);
			ck_assert_msg(parse_i64(cell, &calls), "strace -c: calls of %s: '%s' in %s", name,
				      cell, line);
			for (s = errors_end; s > calls_end && line[s - 1] != ' '; s--)
				;
			snprintf(cell, sizeof(cell), "%.*s", (int)(errors_end - s), line + s);
			if (cell[0])
				ck_assert_msg(parse_i64(cell, &errors), "strace -c: errors of %s: '%s'",
					      name, cell);
			c = sc_counts_get(t, name);
			c->calls += calls;
			c->errors += errors;
		}
	}
	ck_assert_msg(header && t->n > 0, "no strace -c table in:\n%.1000s", text);
}

START_TEST(test_strace_agrees)
{
	static const char *const args[] = { "--syscalls", "--json", NULL };
	const char *const cmd[] = { scwork_path(), NULL };
	/*
	 * The environment ipcperf gives the command it runs: in the build tree
	 * ipcperf is a libtool wrapper that sets LD_LIBRARY_PATH, which changes
	 * the dynamic loader's calls. strace runs scwork in the same one.
	 */
	char *env_argv[] = { IPCPERF_PATH, "stat", "-q", "-o", "/dev/null", "--", "env", "-0", NULL };
	struct sc_counts st = { .n = 0 }, ip = { .n = 0 };
	struct result r;
	json_object *doc;
	char *text;
	char msg[4096] = "";
	size_t both = 0;

	text = cmd_strace_c(env_argv, cmd, "scwork");
	parse_strace_c(text, &st);
	free(text);

	run_stat(args, scwork_cmd, &r);
	doc = parse_json_text(r.out, "stat --syscalls --json");
	cmd_result_free(&r);
	jsum_syscalls(doc, &ip);
	json_object_put(doc);

	/* Equal calls and errors for every syscall both report. */
	for (size_t i = 0; i < ip.n; i++) {
		const struct sc_count *s = sc_counts_find(&st, ip.v[i].name);

		if (!s) {
			/* strace sees every call: one it lacks was never made. */
			msg_add(msg, sizeof(msg), "  %s: ipcperf %" PRId64 " calls, strace none\n",
				ip.v[i].name, ip.v[i].calls);
			continue;
		}
		both++;
		if (s->calls != ip.v[i].calls || s->errors != ip.v[i].errors)
			msg_add(msg, sizeof(msg), "  %s: ipcperf %" PRId64 " calls %" PRId64
				" errors, strace %" PRId64 " calls %" PRId64 " errors\n", ip.v[i].name,
				ip.v[i].calls, ip.v[i].errors, s->calls, s->errors);
	}
	/*
	 * And nothing but the first execve may be missing from ipcperf: its
	 * events are enabled during that exec (enable_on_exec), so it sees
	 * the exit without the enter and, by design, counts no call.
	 */
	for (size_t i = 0; i < st.n; i++)
		if (!sc_counts_find(&ip, st.v[i].name) && strcmp(st.v[i].name, "execve"))
			msg_add(msg, sizeof(msg), "  %s: strace %" PRId64 " calls, ipcperf none\n",
				st.v[i].name, st.v[i].calls);
	for (size_t i = 0; i < ARRAY_SIZE(counted); i++)
		ck_assert_msg(sc_counts_find(&st, counted[i].name) && sc_counts_find(&ip, counted[i].name),
			      "%s is not in both tables", counted[i].name);
	ck_assert_msg(!msg[0], "ipcperf stat --syscalls and strace -f -c disagree:\n%s", msg);
	ck_assert_msg(both >= ARRAY_SIZE(counted) + 2, "only %zu syscalls compared", both);
}
END_TEST

/* ---------------------------------------------------------- several processes */

/* sh -c 'scwork & scwork; wait': two scwork at once, each with its worker. */
static const char *const *two_cmd_get(void)
{
	static char script[8300];
	static const char *cmd[] = { "sh", "-c", script, NULL };

	snprintf(script, sizeof(script), "'%s' & '%s'; wait", scwork_path(), scwork_path());
	return cmd;
}

#define two_cmd two_cmd_get()

START_TEST(test_two_processes_total)
{
	static const char *const args[] = { "--syscalls", "--total", "--json", NULL };
	struct result r;
	json_object *doc, *procs, *total;
	pid_t workers[4];
	struct sc_counts sum = { .n = 0 };
	char msg[4096] = "";

	run_stat(args, two_cmd, &r);
	ck_assert_msg(scwork_ids(r.err, "worker", workers, NULL, 4) == 2,
		      "two scwork should name two workers; stderr:\n%.2000s", r.err);
	doc = parse_json_text(r.out, "stat --syscalls --total --json");
	cmd_result_free(&r);

	/* Per process by default: each worker has its own exact table. */
	ck_assert_int_ne(workers[0], workers[1]);
	expect_worker(doc, workers[0]);
	expect_worker(doc, workers[1]);

	/* --total: the rows of all processes, merged by name: exact sums and extremes. */
	procs = jget(doc, "processes", json_type_array);
	ck_assert_msg(json_object_array_length(procs) >= 5, "sh, 2 scwork, 2 workers: %zu processes",
		      json_object_array_length(procs));
	total = jget(doc, "syscalls_total", json_type_array);
	for (size_t i = 0; i < json_object_array_length(total); i++)
		check_entry(json_object_array_get_idx(total, i), "syscalls_total");
	for (size_t i = 0; i < json_object_array_length(procs); i++) {
		json_object *scs = jget(json_object_array_get_idx(procs, i), "syscalls",
					json_type_array);

		for (size_t k = 0; k < json_object_array_length(scs); k++) {
			json_object *sc = json_object_array_get_idx(scs, k);
			const char *name = jstr(sc, "name");
			struct sc_count *c = sc_counts_get(&sum, name);
			json_object *t = find_entry(total, name, -1);

			c->calls += jint(sc, "calls");
			c->errors += jint(sc, "errors");
			if (!c->p99_hi || jint(sc, "p99_ns") < c->p99_lo)
				c->p99_lo = jint(sc, "p99_ns");
			if (jint(sc, "p99_ns") > c->p99_hi)
				c->p99_hi = jint(sc, "p99_ns");
			ck_assert_msg(t != NULL, "%s of pid %" PRId64 " is not in syscalls_total", name,
				      jint(json_object_array_get_idx(procs, i), "pid"));
			ck_assert_msg(jint(t, "min_ns") <= jint(sc, "min_ns") &&
				      jint(t, "max_ns") >= jint(sc, "max_ns"),
				      "syscalls_total %s: min/max do not bound a process's", name);
		}
	}
	ck_assert_int_eq(sum.n, json_object_array_length(total));
	for (size_t i = 0; i < sum.n; i++) {
		json_object *t = find_entry(total, sum.v[i].name, -1);

		/*
		 * The p99 of a union lies between the smallest and the largest
		 * of the parts' p99s (each part's share of calls at or below a
		 * value averages to the union's); 1/64 for the buckets' middles.
		 */
		ck_assert_msg(jint(t, "p99_ns") >= sum.v[i].p99_lo - sum.v[i].p99_lo / 64 &&
			      jint(t, "p99_ns") <= sum.v[i].p99_hi + sum.v[i].p99_hi / 64,
			      "syscalls_total %s: p99 %" PRId64 " outside the processes' %" PRId64
			      "..%" PRId64, sum.v[i].name, jint(t, "p99_ns"), sum.v[i].p99_lo,
			      sum.v[i].p99_hi);

		if (jint(t, "calls") != sum.v[i].calls || jint(t, "errors") != sum.v[i].errors)
			msg_add(msg, sizeof(msg), "  %s: total %" PRId64 " calls %" PRId64
				" errors, processes %" PRId64 " and %" PRId64 "\n", sum.v[i].name,
				jint(t, "calls"), jint(t, "errors"), sum.v[i].calls, sum.v[i].errors);
	}
	ck_assert_msg(!msg[0], "syscalls_total is not the sum of the processes' rows:\n%s", msg);
	/* Both workers' counted calls are in it; getpid and kill only they make. */
	for (size_t i = 0; i < ARRAY_SIZE(counted); i++) {
		json_object *t = find_entry(total, counted[i].name, -1);

		ck_assert_msg(jint(t, "calls") >= 2 * counted[i].calls &&
			      jint(t, "errors") >= 2 * counted[i].errors, "syscalls_total %s too low",
			      counted[i].name);
		ck_assert_msg(!json_object_get_boolean(jget(t, "p99_upper_bound", json_type_boolean)),
			      "%s merged from several processes: p99 is of the merged histograms, "
			      "not flagged as a bound", counted[i].name);
	}
	/* Only the workers call kill: exact. */
	ck_assert_int_eq(jint(find_entry(total, "kill", -1), "calls"), 18);
	ck_assert_int_eq(jint(jget(find_entry(total, "kill", -1), "errnos", json_type_object),
			      "ESRCH"), 8);
	json_object_put(doc);
}
END_TEST

/* The nanosleep row of the process in @procs whose row has @calls calls; NULL if none. */
static json_object *naps_row(json_object *procs, int64_t calls)
{
	for (size_t i = 0; i < json_object_array_length(procs); i++) {
		json_object *scs, *sc;

		if (!json_object_object_get_ex(json_object_array_get_idx(procs, i), "syscalls", &scs))
			continue;
		sc = find_entry(scs, "nanosleep", -1);
		if (sc && jint(sc, "calls") == calls)
			return sc;
	}
	return NULL;
}

/*
 * --total's p99 is that of all the calls together: 5 naps of 50 ms in one
 * process, 995 of 0 us in another. The 990th of the 1000 is one of the short
 * ones; the largest of the two processes' p99s (what an upper-bound merge
 * gives) is a 50 ms one.
 */
START_TEST(test_total_exact_p99)
{
	static const char *const args[] = { "--total", "--json", NULL };
	static char script[8300];
	static const char *cmd[] = { "sh", "-c", script, NULL };
	struct result r;
	json_object *doc, *procs, *slow, *fast, *t;

	snprintf(script, sizeof(script), "'%s' naps 5 50000 & '%s' naps 995 0; wait",
		 scwork_path(), scwork_path());
	run_stat(args, cmd, &r);
	doc = parse_json_text(r.out, "stat --total --json");
	cmd_result_free(&r);
	procs = jget(doc, "processes", json_type_array);
	slow = naps_row(procs, 5);
	fast = naps_row(procs, 995);
	ck_assert_msg(slow && fast, "no nanosleep rows of 5 and 995 calls");
	ck_assert_msg(jint(slow, "min_ns") >= 50000000, "a 50 ms nap took %" PRId64 " ns",
		      jint(slow, "min_ns"));
	t = find_entry(jget(doc, "syscalls_total", json_type_array), "nanosleep", -1);
	ck_assert_msg(t != NULL, "no nanosleep in syscalls_total");
	ck_assert_int_eq(jint(t, "calls"), 1000);
	ck_assert_int_eq(jint(t, "min_ns"), jint(fast, "min_ns"));
	ck_assert_int_eq(jint(t, "max_ns"), jint(slow, "max_ns"));
	/* The union's p99 is a short nap: in the fast process's range (within the
	 * histogram's 1/64), below any slow one. */
	ck_assert_msg(jint(t, "p99_ns") >= jint(fast, "min_ns") - jint(fast, "min_ns") / 64 &&
		      jint(t, "p99_ns") <= jint(fast, "max_ns") + jint(fast, "max_ns") / 64 &&
		      jint(t, "p99_ns") < jint(slow, "min_ns"),
		      "--total nanosleep p99 %" PRId64 " ns: not among the 995 short naps (%" PRId64
		      "..%" PRId64 " ns; the slow ones from %" PRId64 " ns)", jint(t, "p99_ns"),
		      jint(fast, "min_ns"), jint(fast, "max_ns"), jint(slow, "min_ns"));
	ck_assert(!json_object_get_boolean(jget(t, "p99_upper_bound", json_type_boolean)));
	json_object_put(doc);
}
END_TEST

START_TEST(test_two_processes_text)
{
	static const char *const per_proc[] = { "--syscalls", NULL };
	static const char *const tot[] = { "--total", NULL };
	struct result r;
	pid_t workers[4];
	struct ttable t;
	char marker[64];
	const char *s;
	size_t tables = 0;

	/* Per process: a table in each worker's section, exact. */
	run_stat(per_proc, two_cmd, &r);
	ck_assert_int_eq(scwork_ids(r.err, "worker", workers, NULL, 4), 2);
	for (int i = 0; i < 2; i++) {
		snprintf(marker, sizeof(marker), "pid %d scwork", (int)workers[i]);
		parse_table(r.out, marker, &t);
		expect_worker_text(&t, workers[i]);
	}
	cmd_result_free(&r);

	/* --total (implies --syscalls): a single table, after the processes. */
	run_stat(tot, two_cmd, &r);
	for (s = r.out; (s = strstr(s, "% time")); s++)
		tables++;
	ck_assert_msg(tables == 1, "--total printed %zu tables:\n%.3000s", tables, r.out);
	parse_table(r.out, "syscalls of all ", &t);
	ck_assert_msg(trow_find(&t, "getpid") && trow_find(&t, "getpid")->calls >= 2000,
		      "--total: getpid row");
	ck_assert_msg(trow_find(&t, "kill") && trow_find(&t, "kill")->calls == 18 &&
		      trow_find(&t, "kill")->errors == 8, "--total: kill row");
	ck_assert_msg(trow_find(&t, "close") && trow_find(&t, "close")->errors >= 400,
		      "--total: close row");
	cmd_result_free(&r);
}
END_TEST

/* ---------------------------------------------------------- per thread */

START_TEST(test_per_thread)
{
	static const char *const args[] = { "--per-thread", "--json", NULL };
	const char *const *cmd = scwork_cmd_with("threads", "3");
	static const char *const targs[] = { "--per-thread", "-S", "name", NULL };
	struct result r;
	json_object *doc, *proc = NULL, *procs, *scs;
	pid_t tids[8], pid;
	char names[8][16], msg[4096] = "", ppid[24];
	struct ttable t;

	run_stat(args, cmd, &r);
	ck_assert_int_eq(scwork_ids(r.err, "thread", tids, names, 8), 3);
	doc = parse_json_text(r.out, "stat --per-thread --json");
	cmd_result_free(&r);
	procs = jget(doc, "processes", json_type_array);
	ck_assert_int_eq(json_object_array_length(procs), 1);
	proc = json_object_array_get_idx(procs, 0);
	scs = jget(proc, "syscalls", json_type_array);
	for (size_t i = 0; i < json_object_array_length(scs); i++) {
		json_object *sc = json_object_array_get_idx(scs, i);

		check_entry(sc, "per-thread");
		ck_assert_msg(jint(sc, "tid") > 0, "per-thread row without a tid");
	}
	for (int i = 0; i < 3; i++) {
		char where[64];

		ck_assert_int_ne(tids[i], jint(proc, "pid"));
		snprintf(where, sizeof(where), "thread %d", (int)tids[i]);
		for (size_t k = 0; k < ARRAY_SIZE(counted); k++)
			expect_entry(find_entry(scs, counted[k].name, tids[i]), &counted[k], where, msg,
				     sizeof(msg));
		for (size_t k = 0; k < ARRAY_SIZE(thread_extra); k++)
			expect_entry(find_entry(scs, thread_extra[k].name, tids[i]), &thread_extra[k],
				     where, msg, sizeof(msg));
	}
	ck_assert_msg(!msg[0], "per-thread rows are not scwork's table:\n%s", msg);
	/* The main thread made no getpid (only the workers do). */
	pid = (pid_t)jint(proc, "pid");
	ck_assert_msg(!find_entry(scs, "getpid", pid), "getpid counted in the main thread");
	json_object_put(doc);

	/* Text: one table per thread, headed "PID/TID COMM" with the thread's own name. */
	run_stat(targs, cmd, &r);
	ck_assert_int_eq(scwork_ids(r.err, "thread", tids, names, 8), 3);
	{
		const char *h = strstr(r.out, "\npid ");

		ck_assert_msg(h != NULL, "no process section in:\n%.2000s", r.out);
		snprintf(ppid, sizeof(ppid), "%d/", atoi(h + 5));
	}
	for (int i = 0; i < 3; i++) {
		char marker[160], want[160];
		const char *h;

		/* "  syscalls of PID/TID NAME": scwork names the tid and the thread's name. */
		snprintf(want, sizeof(want), "/%d %s\n", (int)tids[i], names[i]);
		h = strstr(r.out, want);
		ck_assert_msg(h != NULL, "no table headed PID/%d %s in:\n%.3000s", (int)tids[i],
			      names[i], r.out);
		while (h > r.out && h[-1] != '\n')
			h--;
		snprintf(marker, sizeof(marker), "%.*s", (int)(strchr(h, '\n') - h), h);
		ck_assert_msg(!strncmp(marker, "  syscalls of ", 14), "heading: %s", marker);
		ck_assert_msg(strncmp(marker + 14, ppid, strlen(ppid)) == 0,
			      "heading %s is not under process %s", marker, ppid);
		parse_table(r.out, marker, &t);
		for (size_t k = 0; k < ARRAY_SIZE(counted); k++) {
			const struct trow *row = trow_find(&t, counted[k].name);

			ck_assert_msg(row && row->calls == counted[k].calls &&
				      row->errors == counted[k].errors, "%s: %s row", marker,
				      counted[k].name);
		}
		for (size_t k = 1; k < t.n; k++)
			ck_assert_msg(strcmp(t.rows[k - 1].name, t.rows[k].name) < 0,
				      "-S name: %s before %s", t.rows[k - 1].name, t.rows[k].name);
	}
	cmd_result_free(&r);
}
END_TEST

/* ---------------------------------------------------------- -S, --errno, CSV */

static double trow_key(const struct trow *r, const char *key)
{
	if (!strcmp(key, "calls"))
		return (double)r->calls;
	if (!strcmp(key, "errors"))
		return (double)r->errors;
	if (!strcmp(key, "avg"))
		return r->avg;
	if (!strcmp(key, "max"))
		return r->max;
	if (!strcmp(key, "min"))
		return r->min;
	if (!strcmp(key, "p99"))
		return r->p99;
	return r->secs;	/* time */
}

START_TEST(test_sort)
{
	static const char *const keys[] = { "time", "calls", "errors", "name", "avg", "max", "min",
					    "p99", NULL };

	for (const char *const *k = keys; *k; k++) {
		const char *args[] = { "-S", *k, NULL };
		struct result r;
		struct ttable t;
		char marker[64];
		pid_t worker;

		run_stat(args, scwork_cmd, &r);	/* -S implies --syscalls */
		worker = one_worker(&r);
		snprintf(marker, sizeof(marker), "pid %d scwork", (int)worker);
		parse_table(r.out, marker, &t);
		expect_worker_text(&t, worker);
		for (size_t i = 1; i < t.n; i++) {
			const struct trow *a = &t.rows[i - 1], *b = &t.rows[i];

			if (!strcmp(*k, "name")) {
				ck_assert_msg(strcmp(a->name, b->name) < 0, "-S name: %s before %s",
					      a->name, b->name);
				continue;
			}
			/* Largest first; the printed values are rounded, which keeps the order. */
			ck_assert_msg(trow_key(a, *k) >= trow_key(b, *k), "-S %s: %s (%g) before %s (%g)",
				      *k, a->name, trow_key(a, *k), b->name, trow_key(b, *k));
			if (trow_key(a, *k) == trow_key(b, *k) && !strcmp(*k, "calls"))
				ck_assert_msg(strcmp(a->name, b->name) < 0, "-S calls: ties by name");
		}
		if (!strcmp(*k, "calls"))
			ck_assert_str_eq(t.rows[0].name, "getpid");
		if (!strcmp(*k, "errors")) {
			ck_assert_str_eq(t.rows[0].name, "close");
			ck_assert_str_eq(t.rows[1].name, "openat");
			ck_assert_str_eq(t.rows[2].name, "fcntl");
			ck_assert_str_eq(t.rows[3].name, "kill");
		}
		ck_assert_msg(!t.has_errno_section, "errno breakdown without --errno");
		cmd_result_free(&r);
	}
}
END_TEST

START_TEST(test_sort_bad_key)
{
	char *argv[] = { IPCPERF_PATH, "stat", "-S", "bytes", "--", "true", NULL };
	struct result r;

	cmd_run(argv, &r);
	ck_assert_msg(cmd_exited_with(&r, 2), "-S bytes: %s, expected exit 2 (usage)",
		      cmd_status_str(r.status));
	ck_assert_msg(strstr(r.err, "-S") && strstr(r.err, "calls"),
		      "-S bytes: the message should list the keys:\n%s", r.err);
	ck_assert_msg(r.out_len == 0, "-S bytes printed on stdout");
	cmd_result_free(&r);
}
END_TEST

START_TEST(test_errno_summary)
{
	static const char *const args[] = { "--errno", NULL };
	static const struct {
		const char *sc, *err;
		int64_t count;
	} want[] = {
		{ "close", "EBADF", 200 },
		{ "openat", "ENOENT", 100 },
		{ "fcntl", "EBADF", 3 },
		{ "fcntl", "EINVAL", 2 },
		{ "kill", "ESRCH", 4 },
	};
	struct result r;
	struct ttable t;
	char marker[64];
	pid_t worker;

	run_stat(args, scwork_cmd, &r);
	worker = one_worker(&r);
	snprintf(marker, sizeof(marker), "pid %d scwork", (int)worker);
	parse_table(r.out, marker, &t);
	expect_worker_text(&t, worker);
	ck_assert_msg(t.has_errno_section, "--errno: no \"errors by errno:\" after the table:\n%.3000s",
		      r.out);
	ck_assert_msg(t.nr_errnos == ARRAY_SIZE(want), "--errno: %zu lines, want %zu:\n%.3000s",
		      t.nr_errnos, ARRAY_SIZE(want), r.out);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		bool found = false;

		for (size_t k = 0; k < t.nr_errnos; k++)
			if (!strcmp(t.errnos[k].sc, want[i].sc) && !strcmp(t.errnos[k].err, want[i].err)) {
				ck_assert_msg(t.errnos[k].count == want[i].count,
					      "--errno: %s %s %" PRId64 ", want %" PRId64, want[i].sc,
					      want[i].err, t.errnos[k].count, want[i].count);
				found = true;
			}
		ck_assert_msg(found, "--errno: no line for %s %s", want[i].sc, want[i].err);
	}
	/* Within a syscall, the most frequent errno first. */
	for (size_t k = 1; k < t.nr_errnos; k++)
		if (!strcmp(t.errnos[k].sc, "fcntl") && !strcmp(t.errnos[k - 1].sc, "fcntl"))
			ck_assert_msg(t.errnos[k - 1].count >= t.errnos[k].count,
				      "--errno: fcntl's errnos not most frequent first");
	cmd_result_free(&r);
}
END_TEST

/* The fields of a CSV line split on ',' (no field of these rows holds a comma or quote). */
static size_t csv_split(char *line, char **f, size_t max)
{
	size_t n = 0;

	f[n++] = line;
	for (char *p = line; *p && n < max; p++)
		if (*p == ',') {
			*p = '\0';
			f[n++] = p + 1;
		}
	return n;
}

START_TEST(test_csv)
{
	static const char *const args[] = { "-x", ",", "--total", NULL };
	struct result r;
	pid_t worker;
	char *save = NULL, *copy;
	int hdr_sc = -1, hdr_tot = -1;
	size_t sc_rows = 0, tot_rows = 0;
	bool fcntl_seen = false, close_total_seen = false;

	run_stat(args, scwork_cmd, &r);
	worker = one_worker(&r);
	copy = strdup(r.out);
	ck_assert(copy != NULL);
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[32];
		size_t n;

		if (!strncmp(line, "#syscall,", 9)) {
			n = csv_split(line, f, ARRAY_SIZE(f));
			ck_assert_msg(n == 13 && !strcmp(f[11], "errnos") && !strcmp(f[12], "tid") &&
				      !strcmp(f[4], "calls") && !strcmp(f[9], "lat_min_ns"),
				      "#syscall header changed: %zu fields", n);
			hdr_sc = 1;
			continue;
		}
		if (!strncmp(line, "#syscall_total,", 15)) {
			hdr_tot = 1;
			continue;
		}
		if (!strncmp(line, "syscall,", 8)) {
			const struct want *w;

			n = csv_split(line, f, ARRAY_SIZE(f));
			ck_assert_msg(n == 13, "syscall row with %zu fields", n);
			sc_rows++;
			if (atoi(f[1]) != worker)
				continue;
			w = counted_find(f[3]);
			ck_assert_msg(w != NULL, "worker: unexpected CSV row %s", f[3]);
			ck_assert_msg(atoll(f[4]) == w->calls && atoll(f[5]) == w->errors,
				      "CSV %s: %s calls %s errors", f[3], f[4], f[5]);
			ck_assert_msg(atoll(f[9]) <= atoll(f[8]) && atoll(f[8]) <= atoll(f[10]),
				      "CSV %s: min %s p99 %s max %s", f[3], f[9], f[8], f[10]);
			ck_assert_str_eq(f[12], "");	/* no tid without --per-thread */
			if (!strcmp(f[3], "fcntl")) {
				ck_assert_str_eq(f[11], "EBADF=3;EINVAL=2");
				fcntl_seen = true;
			} else if (!strcmp(f[3], "close")) {
				ck_assert_str_eq(f[11], "EBADF=200");
			} else if (!w->errors) {
				ck_assert_str_eq(f[11], "");
			}
			continue;
		}
		if (!strncmp(line, "syscall_total,", 14)) {
			n = csv_split(line, f, ARRAY_SIZE(f));
			ck_assert_msg(n == 11, "syscall_total row with %zu fields", n);
			tot_rows++;
			if (!strcmp(f[1], "close")) {
				/* the worker's 242, plus what the parent's loader closed */
				ck_assert_msg(atoll(f[2]) > 242 && atoll(f[3]) == 200,
					      "syscall_total close: %s calls %s errors", f[2], f[3]);
				ck_assert_str_eq(f[9], "EBADF=200");
				ck_assert_str_eq(f[10], "2");
				close_total_seen = true;
			}
		}
	}
	free(copy);
	ck_assert_msg(hdr_sc == 1 && hdr_tot == 1, "CSV headers missing:\n%.2000s", r.out);
	ck_assert_msg(sc_rows > ARRAY_SIZE(counted) && tot_rows >= ARRAY_SIZE(counted),
		      "CSV: %zu syscall rows, %zu total rows", sc_rows, tot_rows);
	ck_assert(fcntl_seen && close_total_seen);
	cmd_result_free(&r);
}
END_TEST

/* ---------------------------------------------------------- intervals */

/* The key of a (process, syscall) row in the sums: "pid/name". */
static void row_key(char *key, size_t len, json_object *proc, json_object *sc)
{
	snprintf(key, len, "%" PRId64 "/%s", jint(proc, "pid"), jstr(sc, "name"));
}

/* An interval's row, checked, added to the sums in @ctx (a struct sc_counts). */
static void add_interval_row(void *ctx, json_object *proc, json_object *sc)
{
	char key[64];

	row_key(key, sizeof(key), proc, sc);
	struct sc_count *c = sc_counts_get(ctx, key);

	check_entry(sc, "interval");
	c->calls += jint(sc, "calls");
	c->errors += jint(sc, "errors");
}

/* The totals' rows against the intervals' sums: what differs goes to msg. */
struct totals_check {
	const struct sc_counts *sum;
	char *msg;
	size_t msg_size;
	size_t n;		/* rows seen */
};

static void check_total_row(void *ctx, json_object *proc, json_object *sc)
{
	struct totals_check *tc = ctx;
	char key[64];

	row_key(key, sizeof(key), proc, sc);
	const struct sc_count *c = sc_counts_find(tc->sum, key);

	tc->n++;
	if (!c || c->calls != jint(sc, "calls") || c->errors != jint(sc, "errors"))
		msg_add(tc->msg, tc->msg_size, "  %s: total %" PRId64 "/%" PRId64
			", intervals %" PRId64 "/%" PRId64 "\n", key,
			jint(sc, "calls"), jint(sc, "errors"),
			c ? c->calls : 0, c ? c->errors : 0);
}

START_TEST(test_interval_sums)
{
	static const char *const args[] = { "--syscalls", "--json", "-I", "10", NULL };
	struct result r;
	struct sc_counts sum = { .n = 0 };
	json_object *final = NULL;
	const char *p;
	size_t intervals = 0;
	pid_t worker;
	char msg[4096] = "";

	run_stat(args, scwork_cmd, &r);
	worker = one_worker(&r);
	/* One JSON document per line: intervals, then the totals ("interval": false). */
	for (p = r.out; *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char *line = strndup(p, len);
		json_object *doc;

		ck_assert(line != NULL);
		p = e ? e + 1 : p + len;
		doc = parse_json_text(line, "an -I line");
		free(line);
		if (!json_object_get_boolean(jget(doc, "interval", json_type_boolean))) {
			ck_assert_msg(!final, "two final documents");
			final = doc;
			continue;
		}
		intervals++;
		jeach_row(doc, "syscalls", add_interval_row, &sum);
		json_object_put(doc);
	}
	ck_assert_msg(final != NULL, "no totals after the intervals");
	ck_assert_msg(intervals >= 1, "no interval");
	expect_worker(final, worker);
	struct totals_check tc = { .sum = &sum, .msg = msg, .msg_size = sizeof(msg) };

	jeach_row(final, "syscalls", check_total_row, &tc);
	ck_assert_msg(tc.n == sum.n, "intervals have %zu (pid, syscall) rows, totals %zu", sum.n,
		      tc.n);
	ck_assert_msg(!msg[0], "intervals do not add up to the totals:\n%s", msg);
	json_object_put(final);
	cmd_result_free(&r);
}
END_TEST

/* ---------------------------------------------------------- signal handlers */

/*
 * A signal handler returns through rt_sigreturn, which strace -c counts. The
 * kernel's raw_syscalls:sys_exit of rt_sigreturn carries id -1 (the restored
 * registers say "no syscall", so that it is not restarted): it must still be
 * paired with its sys_enter, counted, and not called unpaired.
 */
START_TEST(test_sigreturn_counted)
{
	static const char *const args[] = { "--syscalls", "--json", NULL };
	static const char *const cmd[] = { "sh", "-c", "trap 'true' USR1; kill -USR1 $$; kill -USR1 $$; kill -USR1 $$", NULL };
	struct result r;
	json_object *doc, *procs, *sc = NULL;

	run_stat(args, cmd, &r);
	doc = parse_json_text(r.out, "stat --syscalls --json -- sh (signals)");
	cmd_result_free(&r);
	procs = jget(doc, "processes", json_type_array);
	for (size_t i = 0; i < json_object_array_length(procs); i++) {
		json_object *s = find_entry(jget(json_object_array_get_idx(procs, i), "syscalls",
						 json_type_array), "rt_sigreturn", -1);

		if (s)
			sc = s;
	}
	ck_assert_msg(sc != NULL && jint(sc, "calls") >= 3,
		      "3 signals handled: rt_sigreturn counted %" PRId64 " times, want >= 3",
		      sc ? jint(sc, "calls") : 0);
	ck_assert_int_eq(jint(doc, "unpaired_syscalls"), 0);
	json_object_put(doc);
}
END_TEST

Suite *syscalls_suite(void)
{
	Suite *s = suite_create("syscalls");
	TCase *tc = tcase_create("scwork");
	TCase *out = tcase_create("output");
	TCase *sig = tcase_create("signals");

	tcase_add_test(tc, test_exact_json);
	tcase_add_test(tc, test_strace_agrees);
	tcase_add_test(tc, test_two_processes_total);
	tcase_add_test(tc, test_total_exact_p99);
	tcase_add_test(tc, test_per_thread);
	tcase_add_test(tc, test_interval_sums);
	tcase_set_timeout(tc, 90);
	suite_add_tcase(s, tc);

	tcase_add_test(out, test_two_processes_text);
	tcase_add_test(out, test_sort);
	tcase_add_test(out, test_sort_bad_key);
	tcase_add_test(out, test_errno_summary);
	tcase_add_test(out, test_csv);
	tcase_set_timeout(out, 90);
	suite_add_tcase(s, out);

	tcase_add_test(sig, test_sigreturn_counted);
	tcase_set_timeout(sig, 60);
	suite_add_tcase(s, sig);
	return s;
}
