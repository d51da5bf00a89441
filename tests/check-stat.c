/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `ipcperf stat` end to end: the CLI runs tests/iowork scenarios (whose I/O is
 * documented exactly at the top of tests/iowork.c), and the JSON it prints is
 * parsed with json-c and checked against those exact numbers: per process,
 * per fd, per object; ops, bytes and errors of each side. Also: the syscall
 * counts against `strace -f -c`, interval deltas against the totals, bad
 * targets, exit statuses, signals. Needs root; check-live.c decides whether
 * to run.
 *
 * No assertion depends on timing: a run that hangs is killed after
 * RUN_DEADLINE_S and reported as such.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "jsoncheck.h"
#include "runcmd.h"
#include "check-helpers.h"
#include "suites.h"

#ifndef IPCPERF_PATH
#error "IPCPERF_PATH must name the built cli/ipcperf"
#endif
#ifndef IOWORK_PATH
#error "IOWORK_PATH must name the built tests/iowork"
#endif

Suite *stat_suite(void);

/* A run that takes longer than this is a hang: kill it and fail. */

/* ------------------------------------------------------------------ */
/* Running programs                                                    */
/* ------------------------------------------------------------------ */


/* Number of lines in @s, counting a last line without its newline. */
static size_t lines_in(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += s[i] == '\n';
	if (len && s[len - 1] != '\n')
		n++;
	return n;
}

/* `ipcperf stat --json -- iowork SCENARIO [ARG]`, which must exit 0. */
/* The scenarios run in each scope (loop tests: _i); the other tests in the default one. */
static const char *const scopes[] = { "--scope=cpu", "--scope=task" };
#define NR_SCOPES ((int)(sizeof(scopes) / sizeof(scopes[0])))
static const char *scope_opt = "--scope=auto";

static void stat_iowork(const char *scenario, const char *arg, struct result *r)
{
	char *argv[] = { IPCPERF_PATH, "stat", "--json", (char *)scope_opt, "--", IOWORK_PATH,
			 (char *)scenario, (char *)arg, NULL };

	cmd_run(argv, r);
	ck_assert_msg(cmd_exited_with(r, 0), "ipcperf stat -- iowork %s: %s, expected exit 0; "
		      "stderr:\n%.2000s", scenario, cmd_status_str(r->status), r->err);
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */
/* ------------------------------------------------------------------ */

/* An integer >= 0 or null (not supported); @is_null tells which. */
static int64_t jnat_or_null(json_object *o, const char *key, bool *is_null)
{
	json_object *v;

	ck_assert_msg(json_object_object_get_ex(o, key, &v), "missing \"%s\" in %.300s", key,
		      json_object_to_json_string(o));
	*is_null = v == NULL;
	if (!v)
		return 0;
	ck_assert_msg(json_object_is_type(v, json_type_int), "\"%s\" is %s, expected integer or null",
		      key, json_type_to_name(json_object_get_type(v)));
	ck_assert_msg(json_object_get_int64(v) >= 0, "\"%s\" is negative", key);
	return json_object_get_int64(v);
}

static bool is_kind(const char *k)
{
	static const char *const kinds[] = {
		"pipe", "unix", "tcp", "udp", "file", "tty", "other", "unknown",
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(k, kinds[i]))
			return true;
	return false;
}

/* "PREFIX[digits]": pipe:[123], socket:[456]. */
static bool is_inode_name(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(s, prefix, n) || s[n] != '[' || !isdigit((unsigned char)s[n + 1]))
		return false;
	s += n + 1;
	while (isdigit((unsigned char)*s))
		s++;
	return !strcmp(s, "]");
}

/* One side (read or write) of an fd row: every field of the contract, consistent. */
static void check_side(json_object *side, const char *where)
{
	json_object *lat = jget(side, "lat_ns", json_type_object);
	int64_t ops = jnat(side, "ops"), errors = jnat(side, "errors");
	int64_t time_ns = jnat(side, "time_ns");
	int64_t min = jnat(lat, "min"), avg = jnat(lat, "avg"), p50 = jnat(lat, "p50");
	int64_t p99 = jnat(lat, "p99"), max = jnat(lat, "max");

	jnat(side, "bytes");
	ck_assert_msg(errors <= ops, "%s: %" PRId64 " errors > %" PRId64 " ops", where, errors, ops);
	if (ops == 0) {
		ck_assert_msg(time_ns == 0 && max == 0, "%s: no ops but time %" PRId64 " max %" PRId64,
			      where, time_ns, max);
		return;
	}
	ck_assert_msg(min <= avg && avg <= max && min <= p50 && p50 <= p99 && p99 <= max,
		      "%s: latencies out of order: min %" PRId64 " avg %" PRId64 " p50 %" PRId64
		      " p99 %" PRId64 " max %" PRId64, where, min, avg, p50, p99, max);
	ck_assert_msg(time_ns >= min * ops && time_ns <= max * ops,
		      "%s: time_ns %" PRId64 " is not within ops x [min, max] = %" PRId64
		      " x [%" PRId64 ", %" PRId64 "]", where, time_ns, ops, min, max);
}

/*
 * The document-level contract of schema 1. @unpaired: the exact
 * unpaired_syscalls expected, or -1 for any. @what names the run.
 */
static void check_header(json_object *doc, int64_t unpaired, const char *what)
{
	json_object *procs = jget(doc, "processes", json_type_array);
	json_object *flows;

	ck_assert_msg(jint(doc, "schema") == 1, "%s: schema is %" PRId64 ", expected 1", what,
		      jint(doc, "schema"));
	ck_assert_str_eq(jstr(doc, "tool"), "ipcperf");
	ck_assert_msg(strlen(jstr(doc, "version")) > 0, "empty version");
	jnat(doc, "duration_ns");
	ck_assert_msg(jint(doc, "lost_events") == 0, "%s: lost_events is %" PRId64 ", expected 0",
		      what, jint(doc, "lost_events"));
	if (unpaired >= 0)
		ck_assert_msg(jint(doc, "unpaired_syscalls") == unpaired,
			      "%s: unpaired_syscalls is %" PRId64 ", expected %" PRId64, what,
			      jint(doc, "unpaired_syscalls"), unpaired);
	else
		jnat(doc, "unpaired_syscalls");
	if (json_object_object_get_ex(doc, "flows", &flows))
		ck_assert_msg(json_object_is_type(flows, json_type_array), "\"flows\" is not an array");

	for (size_t i = 0; i < json_object_array_length(procs); i++) {
		json_object *p = json_object_array_get_idx(procs, i);
		json_object *cs = jget(p, "context_switches", json_type_object);
		json_object *cnt = jget(p, "counters", json_type_object);
		json_object *fds = jget(p, "fds", json_type_array);
		json_object *scs = jget(p, "syscalls", json_type_array);
		static const char *const counters[] = {
			"cycles", "instructions", "cache_references", "cache_misses",
			"page_faults", "task_clock_ns",
		};
		bool null;

		ck_assert_msg(jint(p, "pid") > 0, "pid %" PRId64, jint(p, "pid"));
		jstr(p, "comm");
		jnat(cs, "voluntary");
		jnat(cs, "involuntary");
		jnat_or_null(p, "cpu_migrations", &null);
		for (size_t k = 0; k < sizeof(counters) / sizeof(counters[0]); k++)
			jnat_or_null(cnt, counters[k], &null);
		for (size_t k = 0; k < json_object_array_length(fds); k++) {
			json_object *row = json_object_array_get_idx(fds, k);
			char where[96];

			snprintf(where, sizeof(where), "pid %" PRId64 " fd %" PRId64 " (%s)",
				 jint(p, "pid"), jint(row, "fd"), jstr(row, "object"));
			ck_assert_msg(jint(row, "fd") >= 0, "%s: negative fd", where);
			ck_assert_msg(is_kind(jstr(row, "kind")), "%s: kind \"%s\" is not in the contract",
				      where, jstr(row, "kind"));
			check_side(jget(row, "read", json_type_object), where);
			check_side(jget(row, "write", json_type_object), where);
		}
		for (size_t k = 0; k < json_object_array_length(scs); k++) {
			json_object *sc = json_object_array_get_idx(scs, k);

			ck_assert_msg(strlen(jstr(sc, "name")) > 0, "empty syscall name");
			ck_assert_msg(jnat(sc, "errors") <= jnat(sc, "calls"), "%s: errors > calls",
				      jstr(sc, "name"));
			jnat(sc, "time_ns");
		}
	}
}

/* ------------------------------------------------------------------ */
/* Expected rows, and telling the workload's processes apart           */
/* ------------------------------------------------------------------ */

struct io {
	int64_t ops, bytes, errors;
};

struct want_row {
	int fd;
	const char *kind;	/* exact kind, or NULL: any */
	const char *object;	/* "pipe:[*]", "socket:[*]", an exact string, or NULL: any */
	struct io rd, wr;
};

struct want_proc {
	const char *role;
	const struct want_row *rows;
	size_t nr_rows;
};

#define WANT(role, rows) { role, rows, sizeof(rows) / sizeof(rows[0]) }

/* The fds the scenarios name (tests/iowork.c); the loader's low fds are not asserted. */
static bool watched_fd(int64_t fd)
{
	return (fd >= 20 && fd <= 29) || fd == 98 || fd == 99;
}

static struct io side_io(json_object *row, const char *side)
{
	json_object *s = jget(row, side, json_type_object);

	return (struct io){ jint(s, "ops"), jint(s, "bytes"), jint(s, "errors") };
}

static bool io_eq(struct io a, struct io b)
{
	return a.ops == b.ops && a.bytes == b.bytes && a.errors == b.errors;
}

static bool active(json_object *row)
{
	struct io r = side_io(row, "read"), w = side_io(row, "write");

	return r.ops || r.bytes || r.errors || w.ops || w.bytes || w.errors;
}

static bool object_matches(const char *obj, const char *want)
{
	if (!want)
		return true;
	if (!strcmp(want, "pipe:[*]"))
		return is_inode_name(obj, "pipe:");
	if (!strcmp(want, "socket:[*]"))
		return is_inode_name(obj, "socket:");
	return !strcmp(obj, want);
}

static bool is_unknown(json_object *row)
{
	return !strcmp(jstr(row, "kind"), "unknown") && !strcmp(jstr(row, "object"), "unknown");
}

/*
 * @allow_unknown: the row may also say "unknown" for both kind and object.
 * Under `-- CMD` an fd is identified by reading /proc when its events are
 * consumed, which can be after the process closed it or exited (these
 * workloads last milliseconds): doc/accuracy.md rule 2 then wants
 * "unknown", never a guess. So there, what is asserted is "right, or
 * unknown"; an fd open at the attach (-p) must be right.
 */
static bool row_matches(json_object *row, const struct want_row *w, bool allow_unknown)
{
	bool ident = (!w->kind || !strcmp(jstr(row, "kind"), w->kind)) &&
		     object_matches(jstr(row, "object"), w->object);

	return jint(row, "fd") == w->fd && (ident || (allow_unknown && is_unknown(row))) &&
	       io_eq(side_io(row, "read"), w->rd) && io_eq(side_io(row, "write"), w->wr);
}

static void describe_rows(json_object *proc, char *buf, size_t len)
{
	json_object *fds = jget(proc, "fds", json_type_array);

	msg_add(buf, len, "  pid %" PRId64 " (%s):", jint(proc, "pid"), jstr(proc, "comm"));
	for (size_t i = 0; i < json_object_array_length(fds); i++) {
		json_object *row = json_object_array_get_idx(fds, i);
		struct io r = side_io(row, "read"), w = side_io(row, "write");

		if (!watched_fd(jint(row, "fd")))
			continue;
		msg_add(buf, len, " [fd %" PRId64 " %s %s r %" PRId64 "/%" PRId64 "/%" PRId64
			" w %" PRId64 "/%" PRId64 "/%" PRId64 "]", jint(row, "fd"),
			jstr(row, "object"), jstr(row, "kind"), r.ops, r.bytes, r.errors, w.ops,
			w.bytes, w.errors);
	}
	msg_add(buf, len, "\n");
}

static void describe_want(const struct want_proc *w, char *buf, size_t len)
{
	msg_add(buf, len, "  %s:", w->role);
	for (size_t i = 0; i < w->nr_rows; i++) {
		const struct want_row *r = &w->rows[i];

		msg_add(buf, len, " [fd %d %s %s r %" PRId64 "/%" PRId64 "/%" PRId64
			" w %" PRId64 "/%" PRId64 "/%" PRId64 "]", r->fd,
			r->object ? r->object : "*", r->kind ? r->kind : "*", r->rd.ops,
			r->rd.bytes, r->rd.errors, r->wr.ops, r->wr.bytes, r->wr.errors);
	}
	msg_add(buf, len, "\n");
}

enum { MAX_WANT_ROWS = 8 };

/* A process of the document and, for each expected row, the row that matched it. */
struct match {
	json_object *proc;
	json_object *rows[MAX_WANT_ROWS];
};

/*
 * Does @proc have exactly the rows of @w among its active rows on watched
 * fds (each expected row matched by a distinct row, none left over)? The
 * rows that matched go to @m.
 */
static bool proc_matches(json_object *proc, const struct want_proc *w, bool allow_unknown,
			 struct match *m)
{
	json_object *fds = jget(proc, "fds", json_type_array);
	size_t n = json_object_array_length(fds), nr_active = 0;
	bool used[256] = { false };

	ck_assert_msg(n <= sizeof(used), "too many fd rows (%zu)", n);
	ck_assert_msg(w->nr_rows <= MAX_WANT_ROWS, "too many expected rows");
	for (size_t i = 0; i < n; i++) {
		json_object *row = json_object_array_get_idx(fds, i);

		nr_active += watched_fd(jint(row, "fd")) && active(row);
	}
	if (nr_active != w->nr_rows)
		return false;
	/* Expected rows of one fd differ in their counts, so first fit is the only fit. */
	for (size_t k = 0; k < w->nr_rows; k++) {
		size_t i;

		for (i = 0; i < n; i++)
			if (!used[i] && row_matches(json_object_array_get_idx(fds, i), &w->rows[k],
						    allow_unknown))
				break;
		if (i == n)
			return false;
		used[i] = true;
		m->rows[k] = json_object_array_get_idx(fds, i);
	}
	m->proc = proc;
	return true;
}

/* The processes of the document whose comm is @comm. */
static size_t procs_named(json_object *doc, const char *comm, json_object **out, size_t max)
{
	json_object *procs = jget(doc, "processes", json_type_array);
	size_t n = 0;

	for (size_t i = 0; i < json_object_array_length(procs); i++) {
		json_object *p = json_object_array_get_idx(procs, i);

		if (strcmp(jstr(p, "comm"), comm))
			continue;
		ck_assert_msg(n < max, "more than %zu processes named %s", max, comm);
		out[n++] = p;
	}
	return n;
}

/*
 * The scenario ran exactly @nr processes named iowork, and each role in
 * @want is exactly one of them, with exactly its rows. @found[i] receives
 * the process of want[i] and its rows. Rows left "unknown" (when allowed)
 * are noted on stderr, so that a run shows how much was identified.
 */
static void match_roles(json_object *doc, const char *scenario, const struct want_proc *want,
			size_t nr, bool allow_unknown, struct match *found)
{
	json_object *procs[16];
	size_t n = procs_named(doc, "iowork", procs, 16), rows = 0, unknown = 0;
	char msg[4096] = "";

	for (size_t i = 0; i < n; i++)
		describe_rows(procs[i], msg, sizeof(msg));
	ck_assert_msg(n == nr, "%s: %zu processes named iowork, expected %zu; rows on fds 20-29, "
		      "98, 99 (ops/bytes/errors):\n%s", scenario, n, nr, msg);
	for (size_t k = 0; k < nr; k++) {
		size_t hits = 0;
		char wmsg[1024] = "";

		for (size_t i = 0; i < n; i++) {
			struct match m;

			if (proc_matches(procs[i], &want[k], allow_unknown, &m)) {
				found[k] = m;
				hits++;
			}
		}
		describe_want(&want[k], wmsg, sizeof(wmsg));
		ck_assert_msg(hits == 1, "%s: %zu processes have exactly the rows of %s, expected 1.\n"
			      "expected (ops/bytes/errors)%s:\n%sgot:\n%s", scenario, hits,
			      want[k].role, allow_unknown ? ", or kind and object unknown" : "",
			      wmsg, msg);
		for (size_t j = 0; j < k; j++)
			ck_assert_msg(found[j].proc != found[k].proc,
				      "%s: one process matches both %s and %s", scenario, want[j].role,
				      want[k].role);
		for (size_t r = 0; r < want[k].nr_rows; r++) {
			rows++;
			unknown += is_unknown(found[k].rows[r]) && want[k].rows[r].object &&
				   strcmp(want[k].rows[r].object, "unknown");
		}
	}
	if (unknown)
		fprintf(stderr, "check-stat: note: %s: %zu of %zu fd rows were not identified "
			"(\"unknown\")\n", scenario, unknown, rows);
}

/*
 * Two rows that must name the same object (@same) or two different ones;
 * nothing to compare when either was not identified.
 */
static void check_objects(json_object *a, json_object *b, bool same, const char *what)
{
	const char *x = jstr(a, "object"), *y = jstr(b, "object");

	if (is_unknown(a) || is_unknown(b))
		return;
	if (same)
		ck_assert_msg(!strcmp(x, y), "%s: \"%s\" and \"%s\", expected one object", what, x, y);
	else
		ck_assert_msg(strcmp(x, y), "%s: both \"%s\", expected two objects", what, x);
}

/* calls and errors of syscall @name in @proc (0, 0 if not listed). */
static struct io proc_syscall(json_object *proc, const char *name)
{
	json_object *scs = jget(proc, "syscalls", json_type_array);
	struct io r = { 0, 0, 0 };
	size_t seen = 0;

	for (size_t i = 0; i < json_object_array_length(scs); i++) {
		json_object *sc = json_object_array_get_idx(scs, i);

		if (strcmp(jstr(sc, "name"), name))
			continue;
		r.ops = jint(sc, "calls");
		r.errors = jint(sc, "errors");
		seen++;
	}
	ck_assert_msg(seen <= 1, "pid %" PRId64 ": syscall %s listed %zu times", jint(proc, "pid"),
		      name, seen);
	return r;
}

/*
 * Whether the rings are CPU-wide (root's default scope is cpu): their loss
 * is reported, as check-engine's nothing_lost() allows, and the run is made
 * again (LOSSY_RUNS, suites.h).
 */
static bool rings_cpu_wide(void)
{
	return strcmp(scope_opt, "--scope=task") != 0;
}

/*
 * The summary of @run_once(@ctx), made again while it lost events, up to
 * LOSSY_RUNS runs, when the rings are CPU-wide (@cpu_wide: every process's
 * records are in them, the machine's load too); @what names the run in the
 * note on stderr. @return the last summary, whatever it lost.
 */
static json_object *until_whole(json_object *(*run_once)(void *ctx), void *ctx, bool cpu_wide,
				const char *what)
{
	for (int run = 1;; run++) {
		json_object *doc = run_once(ctx);

		if (run == LOSSY_RUNS || !cpu_wide || jint(doc, "lost_events") == 0)
			return doc;
		fprintf(stderr, "%s: %" PRId64 " events lost CPU-wide to the machine's load; "
			"run %d of %d\n", what, jint(doc, "lost_events"), run + 1, LOSSY_RUNS);
		json_object_put(doc);
	}
}

struct scenario_run {
	const char *scenario, *arg;
};

/* `ipcperf stat --json SCOPE -- iowork SCENARIO [ARG]` once: its summary. */
static json_object *scenario_once(void *ctx)
{
	const struct scenario_run *sr = ctx;
	struct result r;
	json_object *doc;

	stat_iowork(sr->scenario, sr->arg, &r);
	doc = parse_json(r.out, r.out_len, sr->scenario);
	cmd_result_free(&r);
	return doc;
}

/* The summary of a scenario (until_whole()), its header checked. */
static json_object *stat_doc(const char *scenario, const char *arg)
{
	struct scenario_run sr = { scenario, arg };
	char what[128];
	json_object *doc;

	snprintf(what, sizeof(what), "%s %s", scenario, scope_opt);
	doc = until_whole(scenario_once, &sr, rings_cpu_wide(), what);
	/* Traced from exec to exit, and nothing traced is in flight at either end. */
	check_header(doc, 0, scenario);
	return doc;
}

/*
 * Run SCENARIO under `ipcperf stat --json`, check the document and the
 * roles; @found receives the processes and rows. Returns the document (put it).
 */
static json_object *stat_scenario(const char *scenario, const char *arg,
				  const struct want_proc *want, size_t nr, struct match *found)
{
	json_object *doc = stat_doc(scenario, arg);

	match_roles(doc, scenario, want, nr, true, found);
	return doc;
}

/* ------------------------------------------------------------------ */
/* Scenarios (numbers: tests/iowork.c)                                 */
/* ------------------------------------------------------------------ */

#define NONE { 0, 0, 0 }

START_TEST(test_pipe_chunks)
{
	scope_opt = scopes[_i];
	static const struct want_row w[] = {
		{ 21, "pipe", "pipe:[*]", NONE, { 8, 32768, 0 } },
	};
	static const struct want_row p[] = {
		/* 10 x 3000 + 2768 + 0 (EOF) */
		{ 20, "pipe", "pipe:[*]", { 12, 32768, 0 }, NONE },
	};
	static const struct want_proc want[] = { WANT("writer W", w), WANT("reader P", p) };
	struct match found[2];
	json_object *doc = stat_scenario("pipe-chunks", NULL, want, 2, found);

	check_objects(found[0].rows[0], found[1].rows[0], true, "the two ends of the pipe");
	json_object_put(doc);
}
END_TEST

START_TEST(test_unix_msg)
{
	scope_opt = scopes[_i];
	static const struct want_row c[] = {
		{ 23, "unix", "socket:[*]", NONE, { 5, 640, 0 } },
	};
	static const struct want_row p[] = {
		/* one 128-byte message per recvmsg, then 0 */
		{ 22, "unix", "socket:[*]", { 6, 640, 0 }, NONE },
	};
	static const struct want_proc want[] = { WANT("sender C", c), WANT("receiver P", p) };
	struct match found[2];
	json_object *doc = stat_scenario("unix-msg", NULL, want, 2, found);

	/* Two ends of a socketpair: two sockets. */
	check_objects(found[0].rows[0], found[1].rows[0], false, "the two ends of the socketpair");
	json_object_put(doc);
}
END_TEST

START_TEST(test_tcp)
{
	scope_opt = scopes[_i];
	static const struct want_row c[] = {
		{ 25, "tcp", "socket:[*]", { 2, 200, 0 }, { 3, 3000, 0 } },
	};
	static const struct want_row p[] = {
		{ 26, "tcp", "socket:[*]", { 3, 3000, 0 }, { 1, 200, 0 } },
	};
	static const struct want_proc want[] = { WANT("client C", c), WANT("server P", p) };
	struct match found[2];
	json_object *doc = stat_scenario("tcp", NULL, want, 2, found);

	check_objects(found[0].rows[0], found[1].rows[0], false, "client and server sockets");
	json_object_put(doc);
}
END_TEST

/*
 * Without BPF, from /proc: a socket open 300 ms before it connects is named,
 * though it is closed long before its connect is read (the look again at the
 * connect finds nothing: what was read before still names it).
 */
START_TEST(test_late_connect_proc)
{
	static const struct want_row p[] = {
		{ 25, "tcp", "socket:[*]", NONE, { 1, 80, 0 } },
		{ 26, "tcp", "socket:[*]", { 1, 80, 0 }, NONE },
	};
	static const struct want_proc want[] = { WANT("P", p) };
	struct match found[1];
	json_object *doc;

	scope_opt = "--no-bpf";
	doc = stat_scenario("late-connect", NULL, want, 1, found);
	ck_assert_str_eq(jstr(doc, "fd_identity"), "proc");
	ck_assert_msg(!is_unknown(found[0].rows[0]),
		      "late-connect --no-bpf: fd 25, open 300 ms before its connect, is unknown");
	ck_assert_str_eq(jstr(found[0].rows[0], "kind"), "tcp");
	json_object_put(doc);
}
END_TEST

/*
 * iowork tcp-hold under --no-bpf (fd identity from /proc), each connection
 * held @hold_ms ms: @n connections, 2 x @n rows. Whatever the load, every
 * row that is named is named exactly (kind, object, the endpoints iowork
 * listed), and every row that is not says its fd closed before ipcperf's
 * /proc read, as the close's record and the read's time tell. A client
 * socket read at its socket() but closed before its connect was read is
 * named without addresses, and says that. --scope=task: the load's own
 * calls (yes writes) fill no ring, so no record is lost.
 * @return the number of rows named with their addresses.
 */
#define HOLD_MAX 20
#define CLOSED_BEFORE_READ "identity unknown: closed-before-read"
#define ADDRESSES_CLOSED "addresses unknown: closed-before-read"

struct hold_conn {
	int cfd, sfd;
	char cdetail[160], sdetail[160];
	bool cseen, sseen;
};

/* The connections iowork tcp-hold -v listed on stderr. */
static size_t hold_conns(const char *err, struct hold_conn *v, size_t max)
{
	size_t n = 0;

	for (const char *l = err; l && *l && n < max; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char ca[64], cb[64], sa[64], sb[64];
		struct hold_conn *c = &v[n];

		if (sscanf(l, "iowork: hold: client fd %d %63s -> %63[^,], server fd %d %63s -> %63s",
			   &c->cfd, ca, cb, &c->sfd, sa, sb) != 6)
			continue;
		snprintf(c->cdetail, sizeof(c->cdetail), "%s -> %s", ca, cb);
		snprintf(c->sdetail, sizeof(c->sdetail), "%s -> %s", sa, sb);
		c->cseen = c->sseen = false;
		n++;
	}
	return n;
}

/* Row @row (one write on a client fd, or one read on a server fd): named right, or closed before the read. */
static bool hold_row(json_object *row, struct hold_conn *v, size_t n, char *msg, size_t len)
{
	struct io rd = side_io(row, "read"), wr = side_io(row, "write");
	bool client = wr.ops == 1 && wr.bytes == 1 && rd.ops == 0;
	const char *detail = jstr(row, "detail");
	int fd = (int)jint(row, "fd");

	if (is_unknown(row)) {
		if (strcmp(detail, CLOSED_BEFORE_READ))
			msg_add(msg, len, "  fd %d unknown, detail '%s', expected '%s'\n", fd, detail,
				CLOSED_BEFORE_READ);
		return false;
	}
	if (strcmp(jstr(row, "kind"), "tcp") || !object_matches(jstr(row, "object"), "socket:[*]")) {
		msg_add(msg, len, "  fd %d named %s %s, expected tcp socket:[N]\n", fd,
			jstr(row, "kind"), jstr(row, "object"));
		return false;
	}
	/* Named at its socket(), closed before its connect was read: the addresses say so. */
	if (!strcmp(detail, ADDRESSES_CLOSED)) {
		if (!client)
			msg_add(msg, len, "  fd %d (server end): '%s', but it made no connect\n", fd,
				detail);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		bool *seen = client ? &v[i].cseen : &v[i].sseen;

		if ((client ? v[i].cfd : v[i].sfd) == fd && !*seen &&
		    !strcmp(client ? v[i].cdetail : v[i].sdetail, detail)) {
			*seen = true;
			return true;
		}
	}
	msg_add(msg, len, "  fd %d (%s end) named with endpoints '%s', which no connection had\n", fd,
		client ? "client" : "server", detail);
	return false;
}

static size_t run_hold(int n, int hold_ms)
{
	char nbuf[16], msbuf[16], msg[4096] = "";
	char *argv[] = { IPCPERF_PATH, "stat", "--json", "--no-bpf", "--scope=task", "--",
			 IOWORK_PATH, "tcp-hold",
			 nbuf, NULL };
	struct hold_conn conns[HOLD_MAX];
	json_object *doc, *fds;
	size_t nconn, rows = 0, named = 0;
	struct result r;

	ck_assert_int_le(n, HOLD_MAX);
	snprintf(nbuf, sizeof(nbuf), "%d", n);
	snprintf(msbuf, sizeof(msbuf), "%d", hold_ms);
	setenv("IOWORK_HOLD_MS", msbuf, 1);
	cmd_run(argv, &r);
	unsetenv("IOWORK_HOLD_MS");
	ck_assert_msg(cmd_exited_with(&r, 0), "stat --no-bpf -- iowork tcp-hold %d: %s; stderr:\n%.2000s",
		      n, cmd_status_str(r.status), r.err);
	nconn = hold_conns(r.err, conns, HOLD_MAX);
	ck_assert_msg(nconn == (size_t)n, "iowork listed %zu connections, expected %d:\n%.2000s",
		      nconn, n, r.err);
	doc = parse_json(r.out, r.out_len, "stat --no-bpf -- iowork tcp-hold");
	ck_assert_str_eq(jstr(doc, "fd_identity"), "proc");
	check_header(doc, 0, "stat --no-bpf -- iowork tcp-hold");
	ck_assert_int_eq(json_object_array_length(jget(doc, "processes", json_type_array)), 1);
	fds = jget(json_object_array_get_idx(jget(doc, "processes", json_type_array), 0), "fds",
		   json_type_array);
	for (size_t i = 0; i < json_object_array_length(fds); i++) {
		json_object *row = json_object_array_get_idx(fds, i);
		struct io rd = side_io(row, "read"), wr = side_io(row, "write");

		/* the connections' rows: one 1-byte write (client) or read (server) */
		if (rd.ops + wr.ops != 1 || rd.bytes + wr.bytes != 1 || rd.errors + wr.errors)
			continue;
		rows++;
		named += hold_row(row, conns, nconn, msg, sizeof(msg));
	}
	ck_assert_msg(rows == 2 * (size_t)n, "%zu connection rows, expected %d", rows, 2 * n);
	ck_assert_msg(!msg[0], "tcp-hold %d x %d ms, %zu of %zu rows named:\n%s", n, hold_ms,
		      named, rows, msg);
	json_object_put(doc);
	cmd_result_free(&r);
	return named;
}

/*
 * Connections held 30 ms: each row is named exactly or closed before the
 * read (how many of each depends on the load; that each is one of the two
 * does not).
 */
START_TEST(test_hold_short_proc)
{
	run_hold(HOLD_MAX, 30);
}
END_TEST

/* Connections held 300 ms: /proc is read while every one is open, so all are named. */
START_TEST(test_hold_long_proc)
{
	size_t named = run_hold(5, 300);

	ck_assert_msg(named == 10, "tcp-hold 5 x 300 ms: %zu of 10 rows named", named);
}
END_TEST

START_TEST(test_vec)
{
	scope_opt = scopes[_i];
	static const struct want_row p[] = {
		{ 21, "pipe", "pipe:[*]", NONE, { 4, 240, 0 } },
		{ 20, "pipe", "pipe:[*]", { 4, 240, 0 }, NONE },
	};
	static const struct want_proc want[] = { WANT("P", p) };
	struct match found[1];
	json_object *doc = stat_scenario("vec", NULL, want, 1, found);

	check_objects(found[0].rows[0], found[0].rows[1], true, "the two ends of the pipe");
	json_object_put(doc);
}
END_TEST

START_TEST(test_reuse)
{
	scope_opt = scopes[_i];
	static const struct want_row p[] = {
		{ 20, "pipe", "pipe:[*]", NONE, { 1, 100, 0 } },
		{ 20, "file", "/dev/null", NONE, { 1, 50, 0 } },
		{ 20, "file", "/dev/zero", { 1, 30, 0 }, NONE },
		{ 21, "pipe", "pipe:[*]", { 1, 100, 0 }, NONE },
	};
	static const struct want_proc want[] = { WANT("P", p) };
	struct match found[1];
	json_object *doc = stat_scenario("reuse", NULL, want, 1, found);

	check_objects(found[0].rows[0], found[0].rows[3], true, "the two ends of the pipe");
	json_object_put(doc);
}
END_TEST

START_TEST(test_threads)
{
	scope_opt = scopes[_i];
	static const struct want_row p[] = {
		/* 4 threads x 25 x 40 bytes, one process row */
		{ 21, "file", "/dev/null", NONE, { 100, 4000, 0 } },
	};
	static const struct want_proc want[] = { WANT("P", p) };
	struct match found[1];

	json_object_put(stat_scenario("threads", NULL, want, 1, found));
}
END_TEST

START_TEST(test_fork_late)
{
	scope_opt = scopes[_i];
	static const struct want_row p[] = {
		{ 22, "file", "/dev/null", NONE, { 1, 10, 0 } },
	};
	static const struct want_row c[] = {
		{ 22, "file", "/dev/null", NONE, { 5, 100, 0 } },
	};
	static const struct want_proc want[] = { WANT("parent P", p), WANT("late child C", c) };
	struct match found[2];

	json_object_put(stat_scenario("fork-late", NULL, want, 2, found));
}
END_TEST

/*
 * The calls the kernel adds up per (process, fd, syscall) (lib/bpf/README.md):
 * each way an fd's incarnation ends, the same syscall on the same fd number
 * before and after, and each incarnation exact. The same numbers as the
 * per-call path gives (--syscall-samples, --no-bpf), which runs them too.
 */
static const char *const sum_opts[] = { "--scope=cpu", "--scope=task", "--syscall-samples",
					"--no-bpf" };
#define NR_SUM_OPTS ((int)(sizeof(sum_opts) / sizeof(sum_opts[0])))

/*
 * The scenarios of one process, P, whose fd rows say it all, each run under
 * every sum_opts. close-range-exec: close_range with CLOSE_RANGE_CLOEXEC
 * closes nothing until the exec; then its fd is gone, the others go on.
 */
static const struct rows_case {
	const char *scenario;
	struct want_row rows[3];	/* up to the first with fd 0 */
} rows_cases[] = {
	{ "sum-reuse", {
		{ 20, "file", "/dev/null", NONE, { 5, 50, 0 } },
		{ 20, "file", "/dev/zero", NONE, { 3, 21, 0 } },
	} },
	{ "sum-dup2", {
		{ 20, "file", "/dev/null", NONE, { 4, 32, 0 } },
		{ 20, "pipe", "pipe:[*]", NONE, { 2, 18, 0 } },
		{ 21, "pipe", "pipe:[*]", { 1, 18, 0 }, NONE },
	} },
	{ "sum-close-range", {
		{ 20, "file", "/dev/null", NONE, { 6, 18, 0 } },
		{ 20, "file", "/dev/zero", NONE, { 2, 8, 0 } },
	} },
	{ "close-range-exec", {
		{ 20, "file", "/dev/null", NONE, { 2, 6, 0 } },
		{ 20, "unknown", "unknown", NONE, { 1, 0, 1 } },
		{ 21, "file", "/dev/zero", NONE, { 1, 5, 0 } },
	} },
	{ "sum-exec", {
		{ 20, "file", "/dev/null", NONE, { 5, 10, 0 } },
		{ 20, "file", "/dev/zero", NONE, { 3, 12, 0 } },
	} },
};

/* Case _i / NR_SUM_OPTS of rows_cases under option _i % NR_SUM_OPTS. */
START_TEST(test_sum_rows)
{
	const struct rows_case *c = &rows_cases[_i / NR_SUM_OPTS];
	struct want_proc want = { "P", c->rows, 0 };
	struct match found[1];

	scope_opt = sum_opts[_i % NR_SUM_OPTS];
	while (want.nr_rows < ARRAY_SIZE(c->rows) && c->rows[want.nr_rows].fd)
		want.nr_rows++;
	json_object_put(stat_scenario(c->scenario, NULL, &want, 1, found));
}
END_TEST

/*
 * fds closed by close_range, then their numbers given out again by calls
 * that end nothing (pipe2) or used with no file there: the old rows end
 * at the close_range, the new ones are their own, and a write to a closed
 * fd is no file's (tests/iowork.c, close-range).
 */
START_TEST(test_close_range_reuse)
{
	scope_opt = sum_opts[_i];
	static const struct want_row p[] = {
		{ 20, "file", "/dev/null", NONE, { 2, 10, 0 } },
		{ 21, "pipe", "pipe:[*]", { 1, 7, 0 }, NONE },
		{ 22, "pipe", "pipe:[*]", NONE, { 1, 7, 0 } },
		{ 23, "file", "/dev/zero", NONE, { 1, 3, 0 } },
		{ 23, "unknown", "unknown", NONE, { 1, 0, 1 } },
		{ 20, "pipe", "pipe:[*]", { 1, 11, 0 }, NONE },
		{ 21, "pipe", "pipe:[*]", NONE, { 1, 11, 0 } },
		{ 22, "file", "/dev/zero", NONE, { 1, 6, 0 } },
	};
	static const struct want_proc want[] = { WANT("P", p) };
	struct match found[1];
	json_object *doc = stat_scenario("close-range", NULL, want, 1, found);

	check_objects(found[0].rows[1], found[0].rows[2], true, "the first pipe's ends");
	check_objects(found[0].rows[5], found[0].rows[6], true, "the second pipe's ends");
	check_objects(found[0].rows[1], found[0].rows[5], false, "the two pipes");
	json_object_put(doc);
}
END_TEST

START_TEST(test_sum_exit)
{
	scope_opt = sum_opts[_i];
	static const struct want_row p[] = {
		{ 20, "file", "/dev/zero", NONE, { 1, 5, 0 } },
	};
	static const struct want_row c[] = {
		{ 20, "file", "/dev/null", NONE, { 7, 21, 0 } },
	};
	static const struct want_proc want[] = { WANT("P", p), WANT("C", c) };
	struct match found[2];

	json_object_put(stat_scenario("sum-exit", NULL, want, 2, found));
}
END_TEST

START_TEST(test_sum_eagain)
{
	scope_opt = sum_opts[_i];
	static const struct want_row p[] = {
		{ 20, "pipe", "pipe:[*]", { 5, 10, 0 }, NONE },
		{ 21, "pipe", "pipe:[*]", NONE, { 1, 10, 0 } },
	};
	static const struct want_proc want[] = { WANT("P", p) };
	struct match found[1];
	json_object *doc = stat_scenario("sum-eagain", NULL, want, 1, found);
	struct io rd = proc_syscall(found[0].proc, "read");

	/* the loader's reads succeed: the 4 EAGAIN are all the read errors */
	ck_assert_msg(rd.errors == 4, "read errors: %" PRId64 ", expected 4 (EAGAIN)", rd.errors);
	/* and the fd's side counts them as refusals, not errors, the kernel's sums as a record per call */
	ck_assert_int_eq(jint(jget(found[0].rows[0], "read", json_type_object), "again"), 4);
	ck_assert_int_eq(jint(jget(found[0].rows[1], "write", json_type_object), "again"), 0);
	json_object_put(doc);
}
END_TEST

/*
 * More keys than the kernel's fast sums have slots (lib/bpf/sum-rec.h): the
 * rest go to the hash map; half the fds end and come back as another file
 * on the same numbers, whose sums start again from the slots the first
 * ones freed. Every row exact (tests/iowork.c, sum-many).
 */
#define SUM_MANY 300
START_TEST(test_sum_many)
{
	scope_opt = sum_opts[_i];
	json_object *doc = stat_doc("sum-many", NULL), *procs[2], *fds;
	size_t n = procs_named(doc, "iowork", procs, 2);
	int null_rows[SUM_MANY] = { 0 }, zero_rows[SUM_MANY] = { 0 };

	ck_assert_msg(n == 1, "sum-many: %zu processes named iowork, expected 1", n);
	fds = jget(procs[0], "fds", json_type_array);
	for (size_t k = 0; k < json_object_array_length(fds); k++) {
		json_object *row = json_object_array_get_idx(fds, k);
		int64_t fd = jint(row, "fd"), i = fd - 100;
		struct io rd = side_io(row, "read"), wr = side_io(row, "write");
		struct io want_null = { i % 5 + 1 + (i & 1), (i % 5 + 1) * (i % 3 + 1) + (i & 1), 0 };
		struct io want_zero = { 2, 8, 0 };
		bool unknown = is_unknown(row);
		const char *obj = jstr(row, "object");

		/* what the scenario's dup2 closed, inherited from whoever ran it */
		if (i < 0 || i >= SUM_MANY || (rd.ops == 0 && wr.ops == 0))
			continue;
		ck_assert_msg(io_eq(rd, (struct io){ 0, 0, 0 }), "sum-many %s: fd %" PRId64
			      " read %" PRId64 " ops, expected none", scope_opt, fd, rd.ops);
		if (i % 2 == 0 && io_eq(wr, want_zero) && (unknown || !strcmp(obj, "/dev/zero"))) {
			zero_rows[i]++;
			continue;
		}
		ck_assert_msg(io_eq(wr, want_null) && (unknown || !strcmp(obj, "/dev/null")),
			      "sum-many %s: fd %" PRId64 " %s: write %" PRId64 " ops, %" PRId64
			      " bytes, %" PRId64 " errors; expected /dev/null with %" PRId64
			      " ops, %" PRId64 " bytes, 0 errors", scope_opt, fd, obj, wr.ops,
			      wr.bytes, wr.errors, want_null.ops, want_null.bytes);
		null_rows[i]++;
	}
	for (int i = 0; i < SUM_MANY; i++)
		ck_assert_msg(null_rows[i] == 1 && zero_rows[i] == (i % 2 == 0),
			      "sum-many %s: fd %d has %d /dev/null and %d /dev/zero rows, expected "
			      "1 and %d", scope_opt, 100 + i, null_rows[i], zero_rows[i], i % 2 == 0);
	json_object_put(doc);
}
END_TEST

/*
 * The default live stat adds the calls up in the kernel where it can (-v
 * says so), and the same run with --syscall-samples, --per-thread or -I
 * does not: the tests above so check the kernel's sums, not only the
 * per-call path.
 */
START_TEST(test_sum_used)
{
	char *argv[] = { IPCPERF_PATH, "stat", "-v", "--json", NULL, "--", IOWORK_PATH,
			 "sum-reuse", NULL };
	static const char said[] = "read/write calls added up per fd there";
	static const char *const per_call[] = { "--syscall-samples", "--per-thread", "-I1000" };
	struct result r;

	argv[4] = "--scope=auto";
	cmd_run(argv, &r);
	ck_assert_msg(cmd_exited_with(&r, 0), "stat -v: %s", cmd_status_str(r.status));
	if (!strstr(r.err, "fd identity from the kernel")) {
		/* no BPF here (a build or a kernel without it): nothing is added up */
		cmd_result_free(&r);
		return;
	}
	ck_assert_msg(strstr(r.err, said), "stat -v does not say the calls were added up; "
		      "stderr:\n%.2000s", r.err);
	cmd_result_free(&r);
	/* those that need each call: the samples, per-thread rows, intervals */
	for (size_t i = 0; i < sizeof(per_call) / sizeof(per_call[0]); i++) {
		argv[4] = (char *)per_call[i];
		cmd_run(argv, &r);
		ck_assert_msg(cmd_exited_with(&r, 0), "stat -v %s: %s", per_call[i],
			      cmd_status_str(r.status));
		ck_assert_msg(!strstr(r.err, said), "stat %s added the calls up; stderr:\n%.2000s",
			      per_call[i], r.err);
		cmd_result_free(&r);
	}
}
END_TEST

START_TEST(test_errors)
{
	scope_opt = scopes[_i];
	static const struct want_row p[] = {
		{ 21, "pipe", "pipe:[*]", NONE, { 3, 0, 3 } },		/* EPIPE */
		/* Never opened: what they are is unknown, and must not be guessed. */
		{ 99, "unknown", "unknown", NONE, { 2, 0, 2 } },	/* EBADF */
		{ 98, "unknown", "unknown", { 1, 0, 1 }, NONE },	/* EBADF */
	};
	static const struct want_proc want[] = { WANT("P", p) };
	struct match found[1];
	json_object *doc = stat_scenario("errors", NULL, want, 1, found);
	struct io wr = proc_syscall(found[0].proc, "write"), rd = proc_syscall(found[0].proc, "read");

	/* The loader's reads succeed; the scenario's failures are all there is. */
	ck_assert_msg(wr.errors == 5, "write errors: %" PRId64 ", expected 5 (3 EPIPE + 2 EBADF)",
		      wr.errors);
	ck_assert_msg(wr.ops == 5, "write calls: %" PRId64 ", expected 5", wr.ops);
	ck_assert_msg(rd.errors == 1, "read errors: %" PRId64 ", expected 1 (EBADF)", rd.errors);
	json_object_put(doc);
}
END_TEST

START_TEST(test_pingpong)
{
	static const struct want_row p[] = {
		{ 21, "pipe", "pipe:[*]", NONE, { 2000, 2000, 0 } },
		{ 22, "pipe", "pipe:[*]", { 2000, 2000, 0 }, NONE },
	};
	static const struct want_row c[] = {
		{ 20, "pipe", "pipe:[*]", { 2001, 2000, 0 }, NONE },	/* + EOF */
		{ 23, "pipe", "pipe:[*]", NONE, { 2000, 2000, 0 } },
	};
	static const struct want_proc want[] = { WANT("P", p), WANT("C", c) };
	struct match found[2];
	json_object *doc = stat_scenario("pingpong", "2000", want, 2, found);

	check_objects(found[0].rows[0], found[1].rows[0], true, "the P -> C pipe's ends");
	check_objects(found[0].rows[1], found[1].rows[1], true, "the C -> P pipe's ends");
	check_objects(found[0].rows[0], found[0].rows[1], false, "the two pipes");
	json_object_put(doc);
}
END_TEST

/*
 * Counters of the command: software ones always exist, hardware ones are
 * null exactly when this machine cannot count cycles (no PMU in a VM).
 */
static bool machine_counts_cycles(void)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_HARDWARE, .size = sizeof(a),
		.config = PERF_COUNT_HW_CPU_CYCLES, .disabled = 1, .exclude_kernel = 1,
	};
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return true;
	}
	ck_assert_msg(errno == ENOENT || errno == EOPNOTSUPP || errno == ENODEV,
		      "perf_event_open(cycles) failed with %s: cannot tell whether there is a PMU",
		      strerrorname_np(errno));
	return false;
}

START_TEST(test_counters)
{
	static const struct want_row p[] = {
		{ 21, "pipe", "pipe:[*]", NONE, { 4, 240, 0 } },
		{ 20, "pipe", "pipe:[*]", { 4, 240, 0 }, NONE },
	};
	static const struct want_proc want[] = { WANT("P", p) };
	static const char *const hw[] = {
		"cycles", "instructions", "cache_references", "cache_misses",
	};
	struct match found[1];
	json_object *doc = stat_scenario("vec", NULL, want, 1, found);
	json_object *cnt = jget(found[0].proc, "counters", json_type_object);
	bool pmu = machine_counts_cycles(), null;

	ck_assert_msg(jnat_or_null(cnt, "task_clock_ns", &null) > 0 && !null,
		      "task_clock_ns of the command is %s, expected > 0",
		      null ? "null" : "0");
	ck_assert_msg(jnat_or_null(cnt, "page_faults", &null) > 0 && !null,
		      "page_faults of the command is %s, expected > 0 (it exec'd)",
		      null ? "null" : "0");
	for (size_t i = 0; i < sizeof(hw) / sizeof(hw[0]); i++) {
		jnat_or_null(cnt, hw[i], &null);
		ck_assert_msg(null == !pmu, "%s is %s on a machine that %s count cycles", hw[i],
			      null ? "null" : "a number", pmu ? "can" : "cannot");
	}
	json_object_put(doc);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Against strace -c                                                   */
/* ------------------------------------------------------------------ */

static bool parse_i64(const char *s, int64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	return !errno && end != s && !*end;
}

/*
 * strace -c's table:
 *   % time     seconds  usecs/call     calls    errors syscall
 *   ------ ----------- ----------- --------- --------- ----------------
 *    39.27    0.002760           2      1104         4 write
 *    26.41    0.001856           3       511           read
 *   ------ ----------- ----------- --------- --------- ----------------
 *   100.00    0.007028           3      2141        68 total
 * Columns are found by the header's names ("% time" is one column); the
 * errors cell is blank when there were none, so a row one cell short has
 * no errors. The "total" row and rules are skipped.
 */
static void parse_strace_c(const char *text, struct sc_counts *t)
{
	char *copy = strdup(text), *save = NULL, *line;
	int calls_col = -1, errors_col = -1, ncols = 0;
	bool header = false;

	ck_assert_msg(copy != NULL, "out of memory");
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *tok[16], *ts = NULL, *w;
		int n = 0;

		for (w = strtok_r(line, " \t", &ts); w && n < 16; w = strtok_r(NULL, " \t", &ts))
			tok[n++] = w;
		if (n == 0 || tok[0][0] == '-')
			continue;
		if (!header) {
			int col = 0;

			if (strcmp(tok[n - 1], "syscall"))
				continue;	/* e.g. a "strace: Process N attached" line */
			for (int i = 0; i < n - 1; i++, col++) {
				if (!strcmp(tok[i], "%") && i + 1 < n && !strcmp(tok[i + 1], "time"))
					i++;
				if (!strcmp(tok[i], "calls"))
					calls_col = col;
				else if (!strcmp(tok[i], "errors"))
					errors_col = col;
			}
			ncols = col;	/* numeric columns before "syscall" */
			ck_assert_msg(calls_col >= 0 && errors_col > calls_col && errors_col == ncols - 1,
				      "strace -c header not understood: %s", text);
			header = true;
			continue;
		}
		if (!strcmp(tok[n - 1], "total"))
			continue;
		{
			struct sc_count *c;
			int64_t calls, errors = 0;

			ck_assert_msg(n - 1 == ncols || n - 1 == ncols - 1,
				      "strace -c row with %d cells, expected %d or %d: %s", n - 1,
				      ncols, ncols - 1, tok[n - 1]);
			ck_assert_msg(parse_i64(tok[calls_col], &calls),
				      "strace -c: calls of %s is '%s'", tok[n - 1], tok[calls_col]);
			if (n - 1 == ncols)
				ck_assert_msg(parse_i64(tok[errors_col], &errors),
					      "strace -c: errors of %s is '%s'", tok[n - 1],
					      tok[errors_col]);
			c = sc_counts_get(t, tok[n - 1]);
			c->calls += calls;
			c->errors += errors;
		}
	}
	ck_assert_msg(header, "no strace -c table in:\n%.1000s", text);
	free(copy);
}

START_TEST(test_strace_agrees)
{
	/* Every call the syscalls scenario makes; each must be in both tables. */
	static const char *const names[] = {
		"read", "write", "readv", "writev", "pread64", "pwrite64", "sendto", "recvfrom",
		"sendmsg", "recvmsg", "close", "dup", "dup2", "dup3", "fcntl", "pipe2",
		"socketpair", "socket", "connect", "accept", "openat",
	};
	static const char *const cmd[] = { IOWORK_PATH, "syscalls", NULL };
	/*
	 * The environment ipcperf gives the command it runs (a libtool wrapper in
	 * the build tree adds LD_LIBRARY_PATH, which changes the dynamic loader's
	 * calls): the same program in the same environment makes the same calls,
	 * loader included.
	 */
	char *env_argv[] = { IPCPERF_PATH, "stat", "--json", "-o", "/dev/null", "--", "env", "-0",
			     NULL };
	struct sc_counts st = { .n = 0 }, ip = { .n = 0 };
	struct result r;
	json_object *doc;
	size_t compared = 0;
	char *text;
	char msg[4096] = "";

	text = cmd_strace_c(env_argv, cmd, "iowork syscalls");
	parse_strace_c(text, &st);
	free(text);

	stat_iowork("syscalls", NULL, &r);
	doc = parse_json(r.out, r.out_len, "syscalls");
	cmd_result_free(&r);
	check_header(doc, 0, "syscalls");
	jsum_syscalls(doc, &ip);

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		ck_assert_msg(sc_counts_find(&st, names[i]), "strace -c did not count %s", names[i]);
		ck_assert_msg(sc_counts_find(&ip, names[i]), "ipcperf stat did not count %s", names[i]);
	}
	for (size_t i = 0; i < ip.n; i++) {
		const struct sc_count *s = sc_counts_find(&st, ip.v[i].name);

		/* strace counts every syscall: one it lacks was never made. */
		ck_assert_msg(s != NULL, "ipcperf counts %" PRId64 " calls of %s, strace none",
			      ip.v[i].calls, ip.v[i].name);
		if (s->calls != ip.v[i].calls || s->errors != ip.v[i].errors)
			msg_add(msg, sizeof(msg), "  %s: ipcperf %" PRId64 " calls %" PRId64
				" errors, strace %" PRId64 " calls %" PRId64 " errors\n",
				ip.v[i].name, ip.v[i].calls, ip.v[i].errors, s->calls, s->errors);
		compared++;
	}
	ck_assert_msg(!msg[0], "ipcperf stat and strace -c disagree:\n%s", msg);
	ck_assert_msg(compared >= sizeof(names) / sizeof(names[0]), "only %zu names compared",
		      compared);
	json_object_put(doc);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Interval mode                                                       */
/* ------------------------------------------------------------------ */

/* Sums of one process's fd rows by (fd, object): read/write ops and bytes. */
struct fd_sum {
	int64_t pid, fd;
	char object[128];
	struct io rd, wr;
};

struct fd_sums {
	struct fd_sum v[256];
	size_t n;
};

static struct fd_sum *fd_sum_get(struct fd_sums *s, int64_t pid, int64_t fd, const char *object)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].pid == pid && s->v[i].fd == fd && !strcmp(s->v[i].object, object))
			return &s->v[i];
	ck_assert_msg(s->n < sizeof(s->v) / sizeof(s->v[0]), "too many fd rows");
	memset(&s->v[s->n], 0, sizeof(s->v[0]));
	s->v[s->n].pid = pid;
	s->v[s->n].fd = fd;
	snprintf(s->v[s->n].object, sizeof(s->v[0].object), "%s", object);
	return &s->v[s->n++];
}

static void add_io(struct io *dst, struct io src)
{
	dst->ops += src.ops;
	dst->bytes += src.bytes;
	dst->errors += src.errors;
}

/* A process's fd row added to the sums in @ctx (a struct fd_sums). */
static void add_fd_row(void *ctx, json_object *p, json_object *row)
{
	struct fd_sum *f = fd_sum_get(ctx, jint(p, "pid"), jint(row, "fd"), jstr(row, "object"));

	add_io(&f->rd, side_io(row, "read"));
	add_io(&f->wr, side_io(row, "write"));
}

static void sum_doc_fds(json_object *doc, struct fd_sums *s)
{
	jeach_row(doc, "fds", add_fd_row, s);
}

/*
 * With -I and --json, stdout is NDJSON (cli/stat/cmd-stat.c, its --help): one
 * schema-1 object per line, "interval": true on the lines holding the deltas
 * of one interval, then one line with "interval": false holding the totals.
 */
static bool is_final_line(json_object *o)
{
	return !json_object_get_boolean(jget(o, "interval", json_type_boolean));
}

START_TEST(test_interval_sums)
{
	/*
	 * 20000 round trips make ~300k records in a fraction of a second; on a
	 * shared 2-CPU machine the reader can be kept off the CPU long enough to
	 * overflow the default rings. What is tested here is that the interval
	 * deltas add up to the totals, exactly, so give the rings room (a run
	 * that still loses fails: lost_events must be 0).
	 */
	char *argv[] = { IPCPERF_PATH, "stat", "-m", "4096", "-I", "100", "--json", "--",
			 IOWORK_PATH, "pingpong", "20000", NULL };
	struct fd_sums deltas = { .n = 0 }, totals = { .n = 0 };
	struct result r;
	json_object *final = NULL;
	size_t intervals = 0, lineno = 0;
	char *save = NULL, *line;
	char msg[4096] = "";

	cmd_run(argv, &r);
	ck_assert_msg(cmd_exited_with(&r, 0), "ipcperf stat -I 100: %s; stderr:\n%.2000s",
		      cmd_status_str(r.status), r.err);
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char what[64];
		json_object *o;

		snprintf(what, sizeof(what), "-I output line %zu", ++lineno);
		o = parse_json(line, strlen(line), what);
		ck_assert_msg(final == NULL, "%s comes after the final totals", what);
		check_header(o, -1, what);
		if (is_final_line(o)) {
			final = o;
			continue;
		}
		intervals++;
		sum_doc_fds(o, &deltas);
		json_object_put(o);
	}
	cmd_result_free(&r);
	ck_assert_msg(final != NULL, "no final totals line in the -I output (%zu lines)", lineno);
	ck_assert_msg(intervals >= 1, "no interval lines before the totals");
	check_header(final, 0, "-I totals");
	sum_doc_fds(final, &totals);

	for (size_t i = 0; i < totals.n; i++) {
		const struct fd_sum *t = &totals.v[i];
		struct fd_sum *d = fd_sum_get(&deltas, t->pid, t->fd, t->object);

		if (!io_eq(d->rd, t->rd) || !io_eq(d->wr, t->wr))
			msg_add(msg, sizeof(msg), "  pid %" PRId64 " fd %" PRId64 " %s: deltas r %"
				PRId64 "/%" PRId64 " w %" PRId64 "/%" PRId64 ", totals r %" PRId64
				"/%" PRId64 " w %" PRId64 "/%" PRId64 "\n", t->pid, t->fd, t->object,
				d->rd.ops, d->rd.bytes, d->wr.ops, d->wr.bytes, t->rd.ops,
				t->rd.bytes, t->wr.ops, t->wr.bytes);
	}
	/* A row only in the deltas would be one the totals lost. */
	for (size_t i = 0; i < deltas.n; i++) {
		const struct fd_sum *d = &deltas.v[i];
		bool in_totals = false;

		for (size_t k = 0; k < totals.n; k++)
			in_totals |= totals.v[k].pid == d->pid && totals.v[k].fd == d->fd &&
				     !strcmp(totals.v[k].object, d->object);
		if (!in_totals)
			msg_add(msg, sizeof(msg), "  pid %" PRId64 " fd %" PRId64 " %s: in the deltas "
				"(r %" PRId64 " w %" PRId64 " ops) but not in the totals\n", d->pid,
				d->fd, d->object, d->rd.ops, d->wr.ops);
	}
	ck_assert_msg(!msg[0], "sum of %zu intervals != totals:\n%s", intervals, msg);

	/* And the totals are the workload's: 20000 round trips. */
	{
		static const struct want_row p[] = {
			{ 21, "pipe", "pipe:[*]", NONE, { 20000, 20000, 0 } },
			{ 22, "pipe", "pipe:[*]", { 20000, 20000, 0 }, NONE },
		};
		static const struct want_row c[] = {
			{ 20, "pipe", "pipe:[*]", { 20001, 20000, 0 }, NONE },
			{ 23, "pipe", "pipe:[*]", NONE, { 20000, 20000, 0 } },
		};
		static const struct want_proc want[] = { WANT("P", p), WANT("C", c) };
		struct match found[2];

		match_roles(final, "pingpong 20000 (-I totals)", want, 2, true, found);
	}
	json_object_put(final);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Targets, exit statuses, signals                                     */
/* ------------------------------------------------------------------ */

/* ------------------------------------------------------------------ */
/* Descriptors held without I/O (ipcperf-stat(1), --json)             */
/* ------------------------------------------------------------------ */

/* The one process of @doc named @comm. */
static json_object *proc_named(json_object *doc, const char *comm)
{
	json_object *found[2];

	ck_assert_msg(procs_named(doc, comm, found, 2) == 1, "want one %s process in %s", comm,
		      json_object_to_json_string(jget(doc, "processes", json_type_array)));
	return found[0];
}

/* The one row of @proc on @fd whose object is @object (or, NULL, whose kind is @kind). */
static json_object *held_row(json_object *proc, int64_t fd, const char *object, const char *kind)
{
	json_object *fds = jget(proc, "fds", json_type_array), *found = NULL;

	for (size_t i = 0; i < json_object_array_length(fds); i++) {
		json_object *row = json_object_array_get_idx(fds, i);

		if (jint(row, "fd") != fd || (object && strcmp(jstr(row, "object"), object)) ||
		    (kind && strcmp(jstr(row, "kind"), kind)))
			continue;
		ck_assert_msg(!found, "two rows of fd %" PRId64 " %s: %s", fd, object ? object : kind,
			      json_object_to_json_string(fds));
		found = row;
	}
	ck_assert_msg(found != NULL, "pid %" PRId64 ": no row of fd %" PRId64 " (%s) in %s",
		      jint(proc, "pid"), fd, object ? object : kind,
		      json_object_to_json_string_ext(fds, JSON_C_TO_STRING_PRETTY));
	return found;
}

/* @row did no I/O: zero calls, bytes and errors on both sides. */
static void assert_no_io(json_object *row)
{
	struct io r = side_io(row, "read"), w = side_io(row, "write");

	ck_assert_msg(!r.ops && !r.bytes && !r.errors && !w.ops && !w.bytes && !w.errors,
		      "fd %" PRId64 " %s: want no I/O: %s", jint(row, "fd"), jstr(row, "object"),
		      json_object_to_json_string(row));
}

/*
 * `sh -c 'exec 5</etc/passwd; exec 6>FILE; sleep 0.2'`: the shell holds 0
 * (/dev/null), 1 and 2 (cmd_run's files) from its start and 5 and 6 from
 * its redirections, and does no I/O on any of them: each is a row with
 * zero calls, named.
 */
START_TEST(test_fds_without_io)
{
	char path[] = "/tmp/ipcperf-held-XXXXXX", script[160];
	char *argv[] = { IPCPERF_PATH, "stat", "--json", "--", "sh", "-c", script, NULL };
	json_object *doc, *sh;
	struct result r;
	int tfd = mkstemp(path);

	ck_assert_int_ge(tfd, 0);
	close(tfd);
	snprintf(script, sizeof(script), "exec 5</etc/passwd; exec 6>%s; sleep 0.2", path);
	cmd_run(argv, &r);
	unlink(path);
	ck_assert_msg(cmd_exited_with(&r, 0), "ipcperf stat -- sh -c: %s; stderr:\n%.2000s",
		      cmd_status_str(r.status), r.err);
	doc = parse_json(r.out, r.out_len, "stat --json -- sh -c exec");
	sh = proc_named(doc, "sh");
	assert_no_io(held_row(sh, 0, "/dev/null", "file"));
	for (int fd = 1; fd <= 2; fd++) {
		json_object *row = held_row(sh, fd, NULL, "file");

		ck_assert_str_ne(jstr(row, "object"), "unknown");
		assert_no_io(row);
	}
	assert_no_io(held_row(sh, 5, "/etc/passwd", "file"));
	assert_no_io(held_row(sh, 6, path, "file"));
	json_object_put(doc);
	cmd_result_free(&r);
}
END_TEST

/*
 * A listening TCP socket and an epoll fd: flowwork tcp's server listens on
 * fd 3 and only accept()s on it (not a read), waits for the connection on
 * the epoll fd 4 (epoll_wait is not a read either); its data goes through
 * the accepted fd 5.
 */
START_TEST(test_listening_socket_without_io)
{
	char *argv[] = { IPCPERF_PATH, "stat", "--json", "--", FLOWWORK_PATH, "tcp", "-v", NULL };
	const char *at;
	json_object *doc, *srv, *lis, *acc;
	struct result r;
	int server = 0;

	cmd_run(argv, &r);
	ck_assert_msg(cmd_exited_with(&r, 0), "ipcperf stat -- flowwork tcp: %s; stderr:\n%.2000s",
		      cmd_status_str(r.status), r.err);
	at = strstr(r.err, "flowwork: role=server pid=");
	ck_assert_msg(at && sscanf(at, "flowwork: role=server pid=%d", &server) == 1,
		      "no server pid in:\n%.2000s", r.err);
	doc = parse_json(r.out, r.out_len, "stat --json -- flowwork tcp");
	srv = jproc(doc, server);
	lis = held_row(srv, 3, NULL, "tcp");
	ck_assert_msg(is_inode_name(jstr(lis, "object"), "socket:"), "listening socket: %s",
		      json_object_to_json_string(lis));
	assert_no_io(lis);
	assert_no_io(held_row(srv, 4, "anon_inode:[eventpoll]", NULL));
	acc = held_row(srv, 5, NULL, "tcp");
	ck_assert_int_eq(side_io(acc, "read").ops, 10);
	ck_assert_int_eq(side_io(acc, "write").ops, 10);
	ck_assert_str_ne(jstr(lis, "object"), jstr(acc, "object"));
	json_object_put(doc);
	cmd_result_free(&r);
}
END_TEST

static void expect_usage_error(const char *pid_arg)
{
	char *argv[] = { IPCPERF_PATH, "stat", "--json", "-p", (char *)pid_arg, NULL };
	struct result r;

	cmd_run(argv, &r);
	ck_assert_msg(cmd_exited_with(&r, 2), "stat -p '%s': %s, expected exit 2 (usage); stderr:\n%s",
		      pid_arg, cmd_status_str(r.status), r.err);
	ck_assert_msg(lines_in(r.err, r.err_len) == 1,
		      "stat -p '%s': %zu lines on stderr, expected exactly one:\n%s", pid_arg,
		      lines_in(r.err, r.err_len), r.err);
	ck_assert_msg(r.out_len == 0, "stat -p '%s' printed on stdout:\n%.500s", pid_arg, r.out);
	cmd_result_free(&r);
}

START_TEST(test_bad_pid_zero)
{
	expect_usage_error("0");
}
END_TEST

START_TEST(test_bad_pid_negative)
{
	expect_usage_error("-4");
}
END_TEST

START_TEST(test_bad_pid_garbage)
{
	expect_usage_error("12a");
}
END_TEST

START_TEST(test_pid_gone)
{
	char pidbuf[16];
	char *argv[] = { IPCPERF_PATH, "stat", "--json", "-p", pidbuf, NULL };
	struct result r;
	pid_t gone = fork();

	ck_assert_msg(gone >= 0, "fork: %s", strerror(errno));
	if (gone == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(gone, NULL, 0), gone);
	/* Reaped: the pid is free (and nothing took it since, or we say so). */
	ck_assert_msg(kill(gone, 0) < 0 && errno == ESRCH, "pid %d was reused already", (int)gone);
	snprintf(pidbuf, sizeof(pidbuf), "%d", (int)gone);

	cmd_run(argv, &r);
	ck_assert_msg(cmd_exited_with(&r, 1), "stat -p %s (no such process): %s, expected exit 1; "
		      "stderr:\n%s", pidbuf, cmd_status_str(r.status), r.err);
	ck_assert_msg(lines_in(r.err, r.err_len) == 1,
		      "stat -p %s (no such process): %zu lines on stderr, expected one:\n%s", pidbuf,
		      lines_in(r.err, r.err_len), r.err);
	ck_assert_msg(r.out_len == 0, "stat -p %s (no such process) printed a summary:\n%.500s",
		      pidbuf, r.out);
	cmd_result_free(&r);
}
END_TEST

/* The command's exit status comes back as ipcperf's, with the summary printed. */
static void expect_passthrough(char *const cmd[], int code)
{
	char *argv[16] = { IPCPERF_PATH, "stat", "--json", "--" };
	size_t n = 4;
	struct result r;

	for (size_t i = 0; cmd[i]; i++)
		argv[n++] = cmd[i];
	argv[n] = NULL;
	cmd_run(argv, &r);
	ck_assert_msg(cmd_exited_with(&r, code), "stat -- %s: %s, expected exit %d; stderr:\n%.2000s",
		      cmd[0], cmd_status_str(r.status), code, r.err);
	json_object_put(parse_json(r.out, r.out_len, "summary of a failing command"));
	cmd_result_free(&r);
}

START_TEST(test_exit_status_false)
{
	char *cmd[] = { "false", NULL };

	expect_passthrough(cmd, 1);
}
END_TEST

START_TEST(test_exit_status_7)
{
	char *cmd[] = { "sh", "-c", "exit 7", NULL };

	expect_passthrough(cmd, 7);
}
END_TEST

START_TEST(test_command_killed)
{
	char *argv[] = { IPCPERF_PATH, "stat", "--json", "--", "sh", "-c", "kill -TERM $$", NULL };
	struct result r;

	cmd_run(argv, &r);
	ck_assert_msg(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGTERM,
		      "stat -- sh -c 'kill -TERM $$': %s, expected death by SIGTERM; stderr:\n%.2000s",
		      cmd_status_str(r.status), r.err);
	/* The summary is printed before the signal is re-raised. */
	json_object_put(parse_json(r.out, r.out_len, "summary of a command killed by SIGTERM"));
	cmd_result_free(&r);
}
END_TEST

START_TEST(test_sigint_pid)
{
	char *sleep_argv[] = { "sleep", "30", NULL };
	char pidbuf[16];
	char *argv[] = { IPCPERF_PATH, "stat", "--json", "-p", pidbuf, NULL };
	struct child sl, ip;
	struct result r, rs;
	json_object *doc;
	bool alive;

	cmd_spawn(&sl, sleep_argv, false, NULL);
	snprintf(pidbuf, sizeof(pidbuf), "%d", (int)sl.pid);
	cmd_spawn(&ip, argv, false, NULL);
	cmd_wait_polling(ip.pid);
	ck_assert_int_eq(kill(ip.pid, SIGINT), 0);
	cmd_finish(&ip, &r);
	alive = kill(sl.pid, 0) == 0;
	kill(sl.pid, SIGKILL);
	cmd_finish(&sl, &rs);
	cmd_result_free(&rs);

	ck_assert_msg(cmd_exited_with(&r, 0), "stat -p %s, then SIGINT: %s, expected exit 0; "
		      "stderr:\n%.2000s", pidbuf, cmd_status_str(r.status), r.err);
	doc = parse_json(r.out, r.out_len, "summary after SIGINT");
	check_header(doc, -1, "stat -p, then SIGINT");
	ck_assert_msg(alive, "the traced process (sleep %s) did not survive ipcperf's SIGINT", pidbuf);
	json_object_put(doc);
	cmd_result_free(&r);
}
END_TEST

/*
 * The options test_pid_exits runs with (loop test: _i): the same rows with
 * every one; the summary of every syscall must not cost the fd table.
 */
static const char *const pid_variants[][2] = {
	{ NULL, NULL }, { "-s", NULL }, { "-s", "--scope=task" }, { "--no-bpf", NULL },
	{ "--no-bpf", "-s" },
};
#define NR_PID_VARIANTS ((int)(sizeof(pid_variants) / sizeof(pid_variants[0])))

struct pid_exits_run {
	const char *const *opt;	/* ipcperf's options */
	pid_t pid;		/* out: iowork's */
};

/*
 * One run of test_pid_exits (@ctx: struct pid_exits_run): iowork wait-go
 * attached to while its read(0) is under way, then let go; ipcperf must
 * end by itself once its only target is gone. @return the summary.
 */
static json_object *pid_exits_once(void *ctx)
{
	struct pid_exits_run *pr = ctx;
	const char *const *opt = pr->opt;
	static const long read_nr[] = { SYS_read };
	char *work_argv[] = { IOWORK_PATH, "wait-go", NULL };
	char pidbuf[16];
	char *argv[] = { IPCPERF_PATH, "stat", "--json", "-p", pidbuf, (char *)opt[0],
			 (char *)opt[1], NULL };
	struct child wk, ip;
	struct result r, rw;
	json_object *doc;

	cmd_spawn(&wk, work_argv, true, NULL);
	/* Set up and blocked in read(0): every fd is open before ipcperf looks. */
	cmd_wait_in_syscall(wk.pid, read_nr, 1, 0, "iowork wait-go");
	snprintf(pidbuf, sizeof(pidbuf), "%d", (int)wk.pid);
	cmd_spawn(&ip, argv, false, NULL);
	cmd_wait_polling(ip.pid);
	/* Only now: iowork's read(0) is in flight at the attach, then it works and exits. */
	ck_assert_int_eq(write(wk.in_fd, "g", 1), 1);
	cmd_finish(&wk, &rw);
	ck_assert_msg(cmd_exited_with(&rw, 0), "iowork wait-go: %s; stderr:\n%s", cmd_status_str(rw.status),
		      rw.err);
	cmd_result_free(&rw);
	/* ipcperf must end by itself now that its only target is gone. */
	cmd_finish(&ip, &r);
	ck_assert_msg(cmd_exited_with(&r, 0), "stat -p %s of a process that exits: %s, expected exit 0; "
		      "stderr:\n%.2000s", pidbuf, cmd_status_str(r.status), r.err);
	doc = parse_json(r.out, r.out_len, "summary after the target exited");
	cmd_result_free(&r);
	pr->pid = wk.pid;
	return doc;
}

START_TEST(test_pid_exits)
{
	const char *const *opt = pid_variants[_i];
	bool no_bpf = (opt[0] && !strcmp(opt[0], "--no-bpf")) ||
		      (opt[1] && !strcmp(opt[1], "--no-bpf"));
	bool task_scope = opt[1] && !strcmp(opt[1], "--scope=task");
	/* Every fd was open at the attach: known from the scan of /proc/PID/fd. */
	static const struct want_row p[] = {
		{ 24, "file", "/dev/null", NONE, { 7, 210, 0 } },
		{ 21, "pipe", "pipe:[*]", NONE, { 1, 50, 0 } },
		{ 20, "pipe", "pipe:[*]", { 1, 50, 0 }, NONE },
		{ 23, "unix", "socket:[*]", NONE, { 1, 60, 0 } },
		{ 22, "unix", "socket:[*]", { 1, 60, 0 }, NONE },
		{ 26, "tcp", "socket:[*]", NONE, { 1, 70, 0 } },
		{ 27, "tcp", "socket:[*]", { 1, 70, 0 }, NONE },
	};
	static const struct want_proc want[] = { WANT("P", p) };
	struct pid_exits_run pr = { .opt = opt };
	struct match found[1];
	json_object *doc = until_whole(pid_exits_once, &pr, !task_scope, "stat -p of wait-go");

	/* The read of stdin was under way at the attach: its exit has no enter. */
	check_header(doc, 1, "stat -p of wait-go");
	match_roles(doc, "wait-go (-p)", want, 1, false, found);
	ck_assert_msg(jint(found[0].proc, "pid") == pr.pid, "pid %" PRId64 ", expected %d",
		      jint(found[0].proc, "pid"), (int)pr.pid);
	check_objects(found[0].rows[1], found[0].rows[2], true, "the two ends of the pipe");
	check_objects(found[0].rows[3], found[0].rows[4], false, "the two ends of the socketpair");
	check_objects(found[0].rows[5], found[0].rows[6], false, "client and server sockets");
	if (no_bpf)
		ck_assert_str_eq(jstr(doc, "fd_identity"), "proc");
	json_object_put(doc);
}
END_TEST

Suite *stat_suite(void)
{
	Suite *s = suite_create("stat");
	TCase *tc = tcase_create("workloads");
	TCase *cli = tcase_create("cli");
	TCase *proc = tcase_create("proc");

	tcase_add_loop_test(tc, test_pipe_chunks, 0, NR_SCOPES);
	tcase_add_loop_test(tc, test_unix_msg, 0, NR_SCOPES);
	tcase_add_loop_test(tc, test_tcp, 0, NR_SCOPES);
	tcase_add_loop_test(tc, test_vec, 0, NR_SCOPES);
	tcase_add_loop_test(tc, test_reuse, 0, NR_SCOPES);
	tcase_add_loop_test(tc, test_threads, 0, NR_SCOPES);
	tcase_add_loop_test(tc, test_fork_late, 0, NR_SCOPES);
	tcase_add_loop_test(tc, test_errors, 0, NR_SCOPES);
	tcase_add_loop_test(tc, test_sum_rows, 0, (int)ARRAY_SIZE(rows_cases) * NR_SUM_OPTS);
	tcase_add_loop_test(tc, test_close_range_reuse, 0, NR_SUM_OPTS);
	tcase_add_loop_test(tc, test_sum_exit, 0, NR_SUM_OPTS);
	tcase_add_loop_test(tc, test_sum_eagain, 0, NR_SUM_OPTS);
	tcase_add_loop_test(tc, test_sum_many, 0, NR_SUM_OPTS);
	tcase_add_test(tc, test_sum_used);
	tcase_add_test(tc, test_pingpong);
	tcase_add_test(tc, test_counters);
	tcase_add_test(tc, test_strace_agrees);
	tcase_add_test(tc, test_interval_sums);
	tcase_add_test(tc, test_fds_without_io);
	tcase_add_test(tc, test_listening_socket_without_io);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	tcase_add_test(cli, test_bad_pid_zero);
	tcase_add_test(cli, test_bad_pid_negative);
	tcase_add_test(cli, test_bad_pid_garbage);
	tcase_add_test(cli, test_pid_gone);
	tcase_add_test(cli, test_exit_status_false);
	tcase_add_test(cli, test_exit_status_7);
	tcase_add_test(cli, test_command_killed);
	tcase_add_test(cli, test_sigint_pid);
	tcase_add_loop_test(cli, test_pid_exits, 0, NR_PID_VARIANTS);
	tcase_set_timeout(cli, 60);
	suite_add_tcase(s, cli);

	/* fd identity from /proc (--no-bpf) */
	tcase_add_test(proc, test_late_connect_proc);
	tcase_add_test(proc, test_hold_short_proc);
	tcase_add_test(proc, test_hold_long_proc);
	tcase_set_timeout(proc, 60);
	suite_add_tcase(s, proc);
	return s;
}
