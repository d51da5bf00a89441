/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `ipcperf flows` end to end: the CLI traces tests/flowwork scenarios (their
 * I/O is documented exactly at the top of tests/flowwork.c), and the JSON it
 * prints (doc/json.md, "flows") is parsed with json-c and checked against those
 * exact numbers: bytes per flow, the kind, and which processes write and
 * read (flowwork -v says on stderr which pid played which role). The
 * verdicts of the backpressure and starved scenarios, built with a 10x margin
 * between the two sides. The --dot output must render with `dot -Tsvg`
 * without a word on stderr; the --trace-out file must be JSON in which every
 * flow start ("ph":"s") has exactly one flow end ("ph":"f") with its id.
 *
 * Needs root; check-live.c decides whether to run. No assertion depends on
 * wall time: a run that hangs is killed after FLOW_DEADLINE_S and reported.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <ctype.h>
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
#include "suites.h"

#ifndef IPCPERF_PATH
#error "IPCPERF_PATH must name the built cli/ipcperf"
#endif
#ifndef FLOWWORK_PATH
#error "FLOWWORK_PATH must name the built tests/flowwork"
#endif

/* A run that takes longer than this is a hang: kill it and fail. */
#define FLOW_DEADLINE_S 50

/* ------------------------------------------------------------------ */
/* Running programs                                                    */
/* ------------------------------------------------------------------ */

struct proc {
	pid_t pid;
	int out_fd, err_fd;	/* unlinked temporary files (out_fd: or a pipe, with out_pipe) */
	int in_fd;		/* write end of its stdin pipe, or -1 */
	const char *what;
};

struct output {
	int status;
	char *out, *err;	/* NUL-terminated, malloc'ed */
	size_t out_len, err_len;
};

static int temp_file(void)
{
	char path[] = "/tmp/check-flowlive.XXXXXX";
	int fd = mkstemp(path);

	ck_assert_msg(fd >= 0, "mkstemp: %s", strerror(errno));
	unlink(path);
	return fd;
}

/* A temporary file that stays on disk (for --dot / --trace-out); @path gets its name. */
static void temp_path(char *path, size_t len, const char *suffix)
{
	char tmpl[] = "/tmp/check-flowlive.XXXXXX";
	int fd = mkstemp(tmpl);

	ck_assert_msg(fd >= 0, "mkstemp: %s", strerror(errno));
	close(fd);
	unlink(tmpl);
	snprintf(path, len, "%s%s", tmpl, suffix);
}

static char *read_fd_all(int fd, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);

	ck_assert_ptr_nonnull(buf);
	if (lseek(fd, 0, SEEK_SET) < 0 && errno != ESPIPE)
		ck_abort_msg("lseek: %s", strerror(errno));
	for (;;) {
		ssize_t k;

		if (n + 1 >= cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
		k = read(fd, buf + n, cap - n - 1);
		if (k < 0 && errno == EINTR)
			continue;
		ck_assert_msg(k >= 0, "reading captured output: %s", strerror(errno));
		if (k == 0)
			break;
		n += (size_t)k;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

static char *read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *s;

	ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
	s = read_fd_all(fd, len);
	close(fd);
	return s;
}

/*
 * Start @argv with stdout and stderr in temporary files (stdout in a pipe
 * with @out_pipe), stdin from a pipe (@with_stdin) or /dev/null, in its own
 * process group so that a hung run can be killed with all it started.
 */
static void start(struct proc *p, char *const argv[], bool with_stdin, bool out_pipe)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 };

	p->what = argv[0];
	p->err_fd = temp_file();
	if (out_pipe)
		ck_assert_msg(pipe2(out, O_CLOEXEC) == 0, "pipe2: %s", strerror(errno));
	else
		p->out_fd = temp_file();
	if (with_stdin)
		ck_assert_msg(pipe2(in, O_CLOEXEC) == 0, "pipe2: %s", strerror(errno));
	fflush(NULL);
	p->pid = fork();
	ck_assert_msg(p->pid >= 0, "fork: %s", strerror(errno));
	if (p->pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		setpgid(0, 0);
		if (dup2(with_stdin ? in[0] : null, 0) < 0 ||
		    dup2(out_pipe ? out[1] : p->out_fd, 1) < 0 || dup2(p->err_fd, 2) < 0)
			_exit(126);
		/* Only 0, 1, 2 go to the program: no fd of ours may be a channel of its flows. */
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
		execvp(argv[0], argv);
		dprintf(2, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	p->in_fd = -1;
	if (with_stdin) {
		close(in[0]);
		p->in_fd = in[1];
	}
	if (out_pipe) {
		close(out[1]);
		p->out_fd = out[0];
	}
}

/* Wait for @p (killing its process group if it hangs) and collect its output. */
static void finish(struct proc *p, struct output *o)
{
	struct timespec tick = { .tv_sec = 0, .tv_nsec = 10 * 1000 * 1000 };
	long ticks = 0;
	pid_t w;

	if (p->in_fd >= 0) {
		close(p->in_fd);
		p->in_fd = -1;
	}
	while ((w = waitpid(p->pid, &o->status, WNOHANG)) == 0) {
		if (++ticks > FLOW_DEADLINE_S * 100L) {
			kill(-p->pid, SIGKILL);
			kill(p->pid, SIGKILL);
			waitpid(p->pid, &o->status, 0);
			o->err = read_fd_all(p->err_fd, &o->err_len);
			ck_abort_msg("%s did not finish within %d s; stderr:\n%.2000s", p->what,
				     FLOW_DEADLINE_S, o->err);
		}
		nanosleep(&tick, NULL);
	}
	ck_assert_msg(w == p->pid, "waitpid(%s): %s", p->what, strerror(errno));
	o->out = read_fd_all(p->out_fd, &o->out_len);
	o->err = read_fd_all(p->err_fd, &o->err_len);
	close(p->out_fd);
	close(p->err_fd);
}

static void output_free(struct output *o)
{
	free(o->out);
	free(o->err);
}

static const char *status_str(int status)
{
	static char buf[64];

	if (WIFEXITED(status))
		snprintf(buf, sizeof(buf), "exit %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, sizeof(buf), "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, sizeof(buf), "wait status 0x%x", (unsigned int)status);
	return buf;
}

static void run(char *const argv[], struct output *o)
{
	struct proc p;

	start(&p, argv, false, false);
	finish(&p, o);
}

/* ------------------------------------------------------------------ */
/* What flowwork -v said                                               */
/* ------------------------------------------------------------------ */

/* The pid of the process that printed "flowwork: role=@role pid=N" in @err; aborts if none. */
static pid_t role_pid(const char *err, const char *role)
{
	char key[64];
	const char *p;
	int pid;

	snprintf(key, sizeof(key), "flowwork: role=%s pid=", role);
	p = strstr(err, key);
	ck_assert_msg(p != NULL, "flowwork -v did not name its %s; stderr:\n%.2000s", role, err);
	ck_assert_msg(sscanf(p + strlen(key), "%d", &pid) == 1 && pid > 0,
		      "bad role line for %s in:\n%.2000s", role, err);
	ck_assert_msg(!strstr(p + 1, key), "two processes claim role %s:\n%.2000s", role, err);
	return pid;
}

static long pipe_capacity(const char *err)
{
	const char *p = strstr(err, "flowwork: pipe-capacity=");
	long cap;

	ck_assert_msg(p != NULL, "flowwork -v did not print the pipe capacity:\n%.2000s", err);
	ck_assert(sscanf(p + strlen("flowwork: pipe-capacity="), "%ld", &cap) == 1 && cap > 0);
	return cap;
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */
/* ------------------------------------------------------------------ */

/* Member @key of @o, of any type (jget() when the type is fixed). */
static json_object *jmember(json_object *o, const char *key)
{
	json_object *v = NULL;

	ck_assert_msg(json_object_object_get_ex(o, key, &v) && v,
		      "no \"%s\" in %s", key, json_object_to_json_string(o));
	return v;
}

/* The pids of array @key of flow @f (writers, readers): must be exactly { @pid }. */
static void assert_only_pid(json_object *f, const char *key, pid_t pid, const char *role)
{
	json_object *a = jmember(f, key);

	ck_assert_msg(json_object_is_type(a, json_type_array), "\"%s\" is not an array", key);
	ck_assert_msg(json_object_array_length(a) == 1 &&
			      json_object_get_int64(json_object_array_get_idx(a, 0)) == pid,
		      "flow %s: %s = %s, want [%d] (the %s)", jstr(f, "object"), key,
		      json_object_to_json_string(a), (int)pid, role);
}

/* An optional extra field, when the output has it, must equal @want. */
static void assert_extra(json_object *f, const char *key, int64_t want)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(f, key, &v) || !v)
		return;
	ck_assert_msg(json_object_get_int64(v) == want, "flow %s: %s = %" PRId64 ", want %" PRId64
		      "; the flow:\n%s", jstr(f, "object"), key, json_object_get_int64(v), want,
		      json_object_to_json_string_ext(f, JSON_C_TO_STRING_PRETTY));
}

/* lost_events of the document being checked, for the messages. */
static int64_t run_lost;

/* Check the header of the document and return its "flows" array. */
static json_object *flows_of(json_object *doc)
{
	json_object *fl = jmember(doc, "flows");

	ck_assert_int_eq(jint(doc, "schema"), 1);
	ck_assert_str_eq(jstr(doc, "tool"), "ipcperf");
	run_lost = jint(doc, "lost_events");
	ck_assert_msg(json_object_is_type(fl, json_type_array), "\"flows\" is not an array");
	return fl;
}

/*
 * With records lost, counts are lower bounds and no exact check could hold;
 * checked last, so that a loss report does not hide what the flows say.
 */
static void assert_no_loss(json_object *doc)
{
	ck_assert_msg(jint(doc, "lost_events") == 0,
		      "lost_events = %" PRId64 ": the exact checks above hold, so if nothing "
		      "was really lost, the loss count is wrong", jint(doc, "lost_events"));
}

/* The flows of kind @kind, at most @max of them into @out; @return how many there are. */
static size_t flows_of_kind(json_object *flows, const char *kind, json_object **out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < json_object_array_length(flows); i++) {
		json_object *f = json_object_array_get_idx(flows, i);

		if (strcmp(jstr(f, "kind"), kind))
			continue;
		if (n < max)
			out[n] = f;
		n++;
	}
	return n;
}

/* The one flow of kind @kind whose first writer is @writer. */
static json_object *flow_written_by(json_object *flows, const char *kind, pid_t writer)
{
	json_object *found = NULL;

	for (size_t i = 0; i < json_object_array_length(flows); i++) {
		json_object *f = json_object_array_get_idx(flows, i);
		json_object *w = jmember(f, "writers");

		if (strcmp(jstr(f, "kind"), kind) || json_object_array_length(w) < 1)
			continue;
		for (size_t k = 0; k < json_object_array_length(w); k++)
			if (json_object_get_int64(json_object_array_get_idx(w, k)) == writer) {
				ck_assert_msg(!found, "two %s flows written by %d:\n%s", kind,
					      (int)writer, json_object_to_json_string(flows));
				found = f;
			}
	}
	ck_assert_msg(found != NULL, "no %s flow written by pid %d in:\n%s", kind, (int)writer,
		      json_object_to_json_string_ext(flows, JSON_C_TO_STRING_PRETTY));
	return found;
}

/* The one flow of kind @kind in @flows: there must be exactly one. */
static json_object *only_flow(json_object *flows, const char *kind)
{
	json_object *f = NULL;

	ck_assert_msg(flows_of_kind(flows, kind, &f, 1) == 1, "want one %s flow:\n%s", kind,
		      json_object_to_json_string_ext(flows, JSON_C_TO_STRING_PRETTY));
	return f;
}

/* Flow @f is written by @w (the @w_role) alone and read by @r (the @r_role) alone. */
static void assert_ends(json_object *f, pid_t w, const char *w_role, pid_t r, const char *r_role)
{
	assert_only_pid(f, "writers", w, w_role);
	assert_only_pid(f, "readers", r, r_role);
}

/* The end of a run's checks: nothing lost; the document and the output freed. */
static void finish_doc(json_object *doc, struct output *o)
{
	assert_no_loss(doc);
	json_object_put(doc);
	output_free(o);
}

/* Exact bytes of a flow; on a mismatch, the whole flow and the stderr of the run. */
static void assert_bytes(json_object *f, int64_t want, const struct output *o)
{
	int64_t got = jint(f, "bytes");

	ck_assert_msg(got == want, "flow %s: bytes = %" PRId64 ", want %" PRId64
		      " exactly (lost_events %" PRId64 "); the flow:\n%s\nstderr:\n%.1500s",
		      jstr(f, "object"), got, want, run_lost,
		      json_object_to_json_string_ext(f, JSON_C_TO_STRING_PRETTY), o->err);
	assert_extra(f, "bytes_written", want);
	assert_extra(f, "unmatched_bytes", 0);
}

/* A number member of @f, integer or not; 0 when the output lacks it. */
static double jnum(json_object *f, const char *key)
{
	json_object *v = NULL;

	return json_object_object_get_ex(f, key, &v) && v ? json_object_get_double(v) : 0;
}

/*
 * The verdict printed must follow the documented rule applied to the printed
 * times, and the queue residence (doc/accuracy.md, "Verdicts").
 */
static void assert_verdict(json_object *f, const char *want)
{
	int64_t w = jint(f, "writer_blocked_ns"), r = jint(f, "reader_blocked_ns");
	bool none = !jint(f, "bytes") && !jint(f, "bytes_written");
	const char *rule = none ? "idle"
			   : w > 2 * r && w >= 1000000 ? "backpressure"
			   : r > 2 * w && r >= 1000000 ? "consumer-starved"
			   : jnum(f, "queue_residence") > 2 ? "backpressure" : "balanced";

	ck_assert_msg(!strcmp(jstr(f, "verdict"), rule),
		      "flow %s: verdict %s, but the rule gives %s for writers %" PRId64
		      " ns / readers %" PRId64 " ns blocked", jstr(f, "object"),
		      jstr(f, "verdict"), rule, w, r);
	if (want)
		ck_assert_msg(!strcmp(jstr(f, "verdict"), want),
			      "flow %s: verdict %s, want %s; the flow:\n%s", jstr(f, "object"),
			      jstr(f, "verdict"), want,
			      json_object_to_json_string_ext(f, JSON_C_TO_STRING_PRETTY));
}

/* Every pid given is listed in "processes" with comm @comm (when there is such an array). */
static void assert_comm(json_object *doc, pid_t pid, const char *comm)
{
	json_object *procs = NULL;

	if (!json_object_object_get_ex(doc, "processes", &procs) || !procs)
		return;
	for (size_t i = 0; i < json_object_array_length(procs); i++) {
		json_object *p = json_object_array_get_idx(procs, i);

		if (jint(p, "pid") == pid) {
			ck_assert_msg(!strcmp(jstr(p, "comm"), comm), "pid %d: comm %s, want %s",
				      (int)pid, jstr(p, "comm"), comm);
			return;
		}
	}
	ck_abort_msg("pid %d is not among the processes: %s", (int)pid,
		     json_object_to_json_string(procs));
}

static void assert_wire_positive(json_object *f)
{
	json_object *w = jmember(f, "wire_ns");
	int64_t min = jint(w, "min"), p50 = jint(w, "p50"), p99 = jint(w, "p99"),
		max = jint(w, "max");

	ck_assert_msg(p50 > 0, "flow %s: wire p50 = 0: %s", jstr(f, "object"),
		      json_object_to_json_string(w));
	ck_assert_msg(min <= p50 && p50 <= p99 && p99 <= max, "flow %s: wire_ns out of order: %s",
		      jstr(f, "object"), json_object_to_json_string(w));
}

/* ------------------------------------------------------------------ */
/* DOT and trace files                                                 */
/* ------------------------------------------------------------------ */

static void check_dot(const char *path)
{
	char *argv[] = { "dot", "-Tsvg", (char *)path, "-o", "/dev/null", NULL };
	struct output o;

	run(argv, &o);
	ck_assert_msg(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0,
		      "dot -Tsvg %s: %s; stderr:\n%.2000s", path, status_str(o.status), o.err);
	ck_assert_msg(o.err_len == 0, "dot -Tsvg %s said:\n%.2000s", path, o.err);
	output_free(&o);
}

/* Numbers of a Chrome trace: slices, flow starts (each with one end), counters. */
struct trace_counts {
	size_t slices, starts, counters;
};

static uint64_t event_id(json_object *e)
{
	json_object *id = jmember(e, "id");

	/* The format allows the id as a number or a string. */
	if (json_object_is_type(id, json_type_string))
		return strtoull(json_object_get_string(id), NULL, 0);
	return (uint64_t)json_object_get_int64(id);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void check_trace(const char *path, struct trace_counts *tc)
{
	size_t len, nr_s = 0, nr_f = 0;
	char *text = read_file(path, &len);
	json_object *doc = parse_json(text, len, "--trace-out file");
	json_object *ev = json_object_is_type(doc, json_type_array) ? doc
			  : jmember(doc, "traceEvents");
	size_t n = json_object_array_length(ev);
	uint64_t *s = calloc(n + 1, sizeof(*s)), *f = calloc(n + 1, sizeof(*f));

	ck_assert_msg(json_object_is_type(ev, json_type_array), "traceEvents is not an array");
	ck_assert(s && f);
	memset(tc, 0, sizeof(*tc));
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(ev, i);
		const char *ph = jstr(e, "ph");

		if (!strcmp(ph, "X")) {
			tc->slices++;
			ck_assert_msg(jint(e, "pid") > 0 && jint(e, "tid") > 0,
				      "slice without its thread: %s", json_object_to_json_string(e));
			jmember(e, "ts");
			jmember(e, "dur");
		} else if (!strcmp(ph, "s")) {
			s[nr_s++] = event_id(e);
		} else if (!strcmp(ph, "f")) {
			f[nr_f++] = event_id(e);
		} else if (!strcmp(ph, "C")) {
			tc->counters++;
		}
	}
	qsort(s, nr_s, sizeof(*s), cmp_u64);
	qsort(f, nr_f, sizeof(*f), cmp_u64);
	for (size_t i = 1; i < nr_s; i++)
		ck_assert_msg(s[i] != s[i - 1], "flow start id %" PRIu64 " used twice", s[i]);
	for (size_t i = 1; i < nr_f; i++)
		ck_assert_msg(f[i] != f[i - 1], "flow end id %" PRIu64 " used twice", f[i]);
	/* Both sorted and without repeats: equal exactly when they pair one to one. */
	for (size_t i = 0; i < nr_s && i < nr_f; i++)
		ck_assert_msg(s[i] == f[i], "flow id %" PRIu64 " has a %s without its %s",
			      s[i] < f[i] ? s[i] : f[i], s[i] < f[i] ? "start" : "end",
			      s[i] < f[i] ? "end" : "start");
	ck_assert_msg(nr_s == nr_f, "%zu flow starts, %zu flow ends", nr_s, nr_f);
	tc->starts = nr_s;
	free(s);
	free(f);
	json_object_put(doc);
	free(text);
}

/* Sum of an optional per-flow count over all flows (0 if the output lacks it). */
static int64_t sum_extra(json_object *flows, const char *key)
{
	int64_t sum = 0;

	for (size_t i = 0; i < json_object_array_length(flows); i++) {
		json_object *v = NULL;

		if (json_object_object_get_ex(json_object_array_get_idx(flows, i), key, &v) && v)
			sum += json_object_get_int64(v);
	}
	return sum;
}

/* ------------------------------------------------------------------ */
/* Runs                                                                */
/* ------------------------------------------------------------------ */

/*
 * `ipcperf flows --json [--dot D] [--trace-out T] -- CMD...`, which must exit
 * 0 (the command's status) and print one JSON document.
 */
static json_object *flows_run(char *const cmd[], const char *dot, const char *trace,
			      struct output *o)
{
	char *argv[32];
	size_t n = 0;

	argv[n++] = IPCPERF_PATH;
	argv[n++] = "flows";
	argv[n++] = "--json";
	if (dot) {
		argv[n++] = "--dot";
		argv[n++] = (char *)dot;
	}
	if (trace) {
		argv[n++] = "--trace-out";
		argv[n++] = (char *)trace;
	}
	argv[n++] = "--";
	for (size_t i = 0; cmd[i]; i++) {
		ck_assert(n < sizeof(argv) / sizeof(argv[0]) - 1);
		argv[n++] = cmd[i];
	}
	argv[n] = NULL;
	run(argv, o);
	ck_assert_msg(WIFEXITED(o->status) && WEXITSTATUS(o->status) == 0,
		      "ipcperf flows -- %s %s: %s, expected exit 0; stderr:\n%.2000s", cmd[0],
		      cmd[1] ? cmd[1] : "", status_str(o->status), o->err);
	return parse_json(o->out, o->out_len, "ipcperf flows --json");
}

/* ------------------------------------------------------------------ */
/* Scenarios                                                           */
/* ------------------------------------------------------------------ */

/*
 * (a) fast producer, consumer 20 ms per read: backpressure, and the pipe is
 * full at the start (16 writes before the first read): max queued == capacity.
 */
/* ipcperf stat --flows: the same flow in stat's JSON "flows" array (doc/json.md). */
START_TEST(test_stat_flows)
{
	char *argv[] = { IPCPERF_PATH, "stat", "--flows", "--json", "--", FLOWWORK_PATH,
			 "backpressure", "-v", NULL };
	json_object *doc, *flows, *f;
	struct output o;
	pid_t prod, cons;
	long cap;

	run(argv, &o);
	ck_assert_msg(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0,
		      "ipcperf stat --flows: %s; stderr:\n%.2000s", status_str(o.status), o.err);
	doc = parse_json(o.out, o.out_len, "stat --flows --json");
	flows = flows_of(doc);
	prod = role_pid(o.err, "producer");
	cons = role_pid(o.err, "consumer");
	cap = pipe_capacity(o.err);
	f = only_flow(flows, "pipe");
	assert_ends(f, prod, "producer", cons, "consumer");
	assert_bytes(f, 262144, &o);
	ck_assert_msg(jint(f, "max_queued") == cap, "max_queued %" PRId64 ", capacity %ld",
		      jint(f, "max_queued"), cap);
	assert_verdict(f, "backpressure");
	/* stat's own sections are there too. */
	ck_assert_int_eq(json_object_get_int64(jmember(doc, "schema")), 1);
	ck_assert(json_object_is_type(jmember(doc, "processes"), json_type_array));
	finish_doc(doc, &o);
}
END_TEST

START_TEST(test_backpressure)
{
	char *cmd[] = { FLOWWORK_PATH, "backpressure", "-v", NULL };
	char dot[64], trace[64];
	struct trace_counts tc;
	json_object *doc, *flows, *f;
	struct output o;
	pid_t prod, cons;
	long cap;

	temp_path(dot, sizeof(dot), ".dot");
	temp_path(trace, sizeof(trace), ".json");
	doc = flows_run(cmd, dot, trace, &o);
	flows = flows_of(doc);
	prod = role_pid(o.err, "producer");
	cons = role_pid(o.err, "consumer");
	cap = pipe_capacity(o.err);
	f = only_flow(flows, "pipe");
	ck_assert_msg(!strncmp(jstr(f, "object"), "pipe:[", 6), "object %s", jstr(f, "object"));
	assert_ends(f, prod, "producer", cons, "consumer");
	assert_bytes(f, 262144, &o);
	assert_extra(f, "writes", 64);
	assert_extra(f, "reads", 64);
	ck_assert_msg(jint(f, "capacity") == cap, "capacity %" PRId64 ", F_GETPIPE_SZ said %ld",
		      jint(f, "capacity"), cap);
	ck_assert_msg(jint(f, "max_queued") == cap, "max_queued %" PRId64 ", capacity %ld",
		      jint(f, "max_queued"), cap);
	assert_verdict(f, "backpressure");
	assert_comm(doc, prod, "flowwork");
	assert_comm(doc, cons, "flowwork");

	check_dot(dot);
	check_trace(trace, &tc);
	/* A slice per call: at least the 64 writes and 64 reads of the flow. */
	ck_assert_uint_ge(tc.slices, 128);
	ck_assert_uint_ge(tc.slices, (uint64_t)(sum_extra(flows, "writes") +
						sum_extra(flows, "reads")));
	/* Each 4096-byte write is drained by (at least) one read: an arrow each. */
	ck_assert_uint_ge(tc.starts, 64);
	ck_assert_msg(tc.counters > 0, "no counter track of queued bytes");
	unlink(dot);
	unlink(trace);
	finish_doc(doc, &o);
}
END_TEST

/* (b) producer 50 ms per write, eager consumer: consumer-starved. */
START_TEST(test_starved)
{
	char *cmd[] = { FLOWWORK_PATH, "starved", "-v", NULL };
	json_object *doc, *flows, *f;
	struct output o;
	pid_t prod, cons;

	doc = flows_run(cmd, NULL, NULL, &o);
	flows = flows_of(doc);
	prod = role_pid(o.err, "producer");
	cons = role_pid(o.err, "consumer");
	f = only_flow(flows, "pipe");
	assert_ends(f, prod, "producer", cons, "consumer");
	assert_bytes(f, 6400, &o);
	assert_extra(f, "writes", 64);
	ck_assert_int_eq(jint(f, "capacity"), pipe_capacity(o.err));
	ck_assert_int_le(jint(f, "max_queued"), 6400);
	assert_verdict(f, "consumer-starved");
	/*
	 * The reader is asleep in read before each write: its read ends before
	 * the write returns, and the wire time, from the write's start, is
	 * still more than 0 for every match.
	 */
	ck_assert_msg(jint(jmember(f, "wire_ns"), "min") > 0, "wire_ns.min = 0: %s",
		      json_object_to_json_string(jmember(f, "wire_ns")));
	assert_wire_positive(f);
	finish_doc(doc, &o);
}
END_TEST

/*
 * (b1) a reader asleep in read before one big write: the reads that drain
 * its first bytes end before the write returns. Their wire time, from the
 * write's start, is more than 0: min > 0, not only p50.
 */
START_TEST(test_wire_blocked_reader)
{
	char *cmd[] = { FLOWWORK_PATH, "bigwrite", "-v", NULL };
	json_object *doc, *flows, *f;
	struct output o;

	doc = flows_run(cmd, NULL, NULL, &o);
	flows = flows_of(doc);
	f = only_flow(flows, "pipe");
	assert_ends(f, role_pid(o.err, "producer"), "producer", role_pid(o.err, "consumer"),
		    "consumer");
	assert_bytes(f, 262144, &o);
	assert_extra(f, "writes", 1);
	ck_assert_msg(jint(jmember(f, "wire_ns"), "min") > 0, "wire_ns.min = 0: %s",
		      json_object_to_json_string(jmember(f, "wire_ns")));
	assert_wire_positive(f);
	finish_doc(doc, &o);
}
END_TEST

/* (b2) a pipe no byte goes through, its reader asleep until EOF: idle, not starved. */
START_TEST(test_idle)
{
	char *cmd[] = { FLOWWORK_PATH, "idle", "-v", NULL };
	json_object *doc, *flows, *f;
	struct output o;
	pid_t cons;

	doc = flows_run(cmd, NULL, NULL, &o);
	flows = flows_of(doc);
	cons = role_pid(o.err, "consumer");
	f = only_flow(flows, "pipe");
	ck_assert_int_eq(json_object_array_length(jmember(f, "writers")), 0);
	assert_only_pid(f, "readers", cons, "consumer");
	assert_bytes(f, 0, &o);
	assert_extra(f, "writes", 0);
	assert_extra(f, "reads", 0);
	assert_extra(f, "matches", 0);
	ck_assert_int_ge(jint(f, "reader_blocked_ns"), 50 * 1000000);
	assert_verdict(f, "idle");
	finish_doc(doc, &o);
}
END_TEST

/* (c) unix socketpair request/response: one flow each way, with wire times. */
START_TEST(test_unix_rr)
{
	char *cmd[] = { FLOWWORK_PATH, "unix-rr", "-v", NULL };
	char dot[64], trace[64];
	json_object *doc, *flows, *up, *down, *all[4];
	struct trace_counts tc;
	struct output o;
	pid_t cli, srv;

	temp_path(dot, sizeof(dot), ".dot");
	temp_path(trace, sizeof(trace), ".json");
	doc = flows_run(cmd, dot, trace, &o);
	flows = flows_of(doc);
	cli = role_pid(o.err, "client");
	srv = role_pid(o.err, "server");
	ck_assert_msg(flows_of_kind(flows, "unix", all, 4) == 2, "want two unix flows:\n%s",
		      json_object_to_json_string_ext(flows, JSON_C_TO_STRING_PRETTY));
	up = flow_written_by(flows, "unix", cli);
	down = flow_written_by(flows, "unix", srv);
	ck_assert_msg(strcmp(jstr(up, "object"), jstr(down, "object")),
		      "both directions named %s", jstr(up, "object"));
	ck_assert(!strncmp(jstr(up, "object"), "socket:[", 8));
	ck_assert(!strncmp(jstr(down, "object"), "socket:[", 8));
	assert_ends(up, cli, "client", srv, "server");
	assert_ends(down, srv, "server", cli, "client");
	assert_bytes(up, 1280, &o);
	assert_bytes(down, 5120, &o);
	assert_extra(up, "writes", 20);
	assert_extra(down, "writes", 20);
	assert_wire_positive(up);
	assert_wire_positive(down);
	/* The two directions are the two ends of one socketpair. */
	{
		json_object *v = NULL;

		if (json_object_object_get_ex(up, "reader_ino", &v) && v) {
			ck_assert_int_eq(jint(up, "reader_ino"), jint(down, "ino"));
			ck_assert_int_eq(jint(down, "reader_ino"), jint(up, "ino"));
		}
	}

	check_dot(dot);
	check_trace(trace, &tc);
	/* 20 sends and >= 20 reads on each side */
	ck_assert_uint_ge(tc.slices, 80);
	/* every send is read: at least one arrow from each of the 40 */
	ck_assert_uint_ge(tc.starts, 40);
	unlink(dot);
	unlink(trace);
	finish_doc(doc, &o);
}
END_TEST

/* (d) loopback TCP: the data one way, the acks the other. */
START_TEST(test_tcp)
{
	char *cmd[] = { FLOWWORK_PATH, "tcp", "-v", NULL };
	json_object *doc, *flows, *up, *down, *all[4];
	struct output o;
	pid_t cli, srv;

	doc = flows_run(cmd, NULL, NULL, &o);
	flows = flows_of(doc);
	cli = role_pid(o.err, "client");
	srv = role_pid(o.err, "server");
	ck_assert_msg(flows_of_kind(flows, "tcp", all, 4) == 2, "want two tcp flows:\n%s",
		      json_object_to_json_string_ext(flows, JSON_C_TO_STRING_PRETTY));
	up = flow_written_by(flows, "tcp", cli);
	down = flow_written_by(flows, "tcp", srv);
	assert_ends(up, cli, "client", srv, "server");
	assert_ends(down, srv, "server", cli, "client");
	assert_bytes(up, 10000, &o);
	assert_bytes(down, 10, &o);
	assert_extra(up, "writes", 10);
	assert_extra(down, "writes", 10);
	finish_doc(doc, &o);
}
END_TEST

/*
 * Six pipes on the lowest fds (3..14), the numbers the program's dynamic
 * loader used for the libraries and its parent (ipcperf) for the pipes that
 * held it before exec: every pipe's flow must have exactly its own bytes.
 */
START_TEST(test_low_fds)
{
	char *cmd[] = { FLOWWORK_PATH, "pipes", "-v", NULL };
	json_object *doc, *flows, *all[16];
	struct output o;
	pid_t prod, cons;
	size_t n;

	doc = flows_run(cmd, NULL, NULL, &o);
	flows = flows_of(doc);
	prod = role_pid(o.err, "producer");
	cons = role_pid(o.err, "consumer");
	n = flows_of_kind(flows, "pipe", all, 16);
	for (int k = 0; k < 6; k++) {
		char key[64], object[64];
		const char *p;
		unsigned long long ino;
		json_object *f = NULL;

		snprintf(key, sizeof(key), "flowwork: pipe k=%d ino=", k);
		p = strstr(o.err, key);
		ck_assert_msg(p && sscanf(p + strlen(key), "%llu", &ino) == 1,
			      "flowwork -v did not name pipe %d:\n%.2000s", k, o.err);
		snprintf(object, sizeof(object), "pipe:[%llu]", ino);
		for (size_t i = 0; i < n && i < 16; i++)
			if (!strcmp(jstr(all[i], "object"), object))
				f = all[i];
		ck_assert_msg(f != NULL, "no flow for pipe %d, %s:\n%s", k, object,
			      json_object_to_json_string_ext(flows, JSON_C_TO_STRING_PRETTY));
		assert_ends(f, prod, "producer", cons, "consumer");
		assert_bytes(f, (k + 1) * 1000, &o);
		assert_extra(f, "writes", 1);
	}
	ck_assert_msg(n == 6, "%zu pipe flows, want the 6 pipes:\n%s", n,
		      json_object_to_json_string_ext(flows, JSON_C_TO_STRING_PRETTY));
	finish_doc(doc, &o);
}
END_TEST

/* (e) `sh -c 'producer | consumer'` under -- CMD: the flow between sh's two children. */
START_TEST(test_shell_pipeline)
{
	char *cmd[] = { "sh", "-c",
			"'" FLOWWORK_PATH "' producer 5000 -v | '" FLOWWORK_PATH "' consumer -v",
			NULL };
	json_object *doc, *flows, *f;
	struct output o;
	pid_t prod, cons;

	doc = flows_run(cmd, NULL, NULL, &o);
	flows = flows_of(doc);
	prod = role_pid(o.err, "producer");
	cons = role_pid(o.err, "consumer");
	ck_assert_int_ne(prod, cons);
	f = only_flow(flows, "pipe");
	assert_ends(f, prod, "producer", cons, "consumer");
	assert_bytes(f, 5000, &o);
	assert_comm(doc, prod, "flowwork");
	assert_comm(doc, cons, "flowwork");
	finish_doc(doc, &o);
}
END_TEST

/*
 * (e2) `producer | relay | consumer` with a relay >10x slower than either
 * side: the producer's flow is held back, the consumer's starves, and the
 * relay is the one bottleneck; its waits are the flows' blocked times. The
 * text report orders the rows along the chain and says so in one line.
 */
#define CHAIN_CMD "'" FLOWWORK_PATH "' producer 262144 -v | '" FLOWWORK_PATH "' relay -v | '" \
	FLOWWORK_PATH "' consumer -v"

/* The row of the text table written by @w and read by @r: where it starts in @out, or NULL. */
static const char *row_of(const char *out, pid_t w, pid_t r)
{
	char start[48], reader[48];

	snprintf(start, sizeof(start), "\n%d flowwork ", (int)w);
	snprintf(reader, sizeof(reader), "->  %d flowwork ", (int)r);
	for (const char *p = strstr(out, start); p; p = strstr(p + 1, start)) {
		const char *eol = strchr(p + 1, '\n'), *q = strstr(p + 1, reader);

		if (q && (!eol || q < eol))
			return p;
	}
	return NULL;
}

static void assert_chain_text(void)
{
	char *argv[] = { IPCPERF_PATH, "flows", "--", "sh", "-c", CHAIN_CMD, NULL };
	char want[128];
	struct output o;
	const char *a, *b, *neck;
	pid_t prod, relay, cons;

	run(argv, &o);
	ck_assert_msg(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0, "flows (text): %s",
		      status_str(o.status));
	prod = role_pid(o.err, "producer");
	relay = role_pid(o.err, "relay");
	cons = role_pid(o.err, "consumer");
	a = row_of(o.out, prod, relay);
	b = row_of(o.out, relay, cons);
	ck_assert_msg(a && b && a < b, "rows not along the chain (%d -> %d, then %d -> %d):\n%s",
		      (int)prod, (int)relay, (int)relay, (int)cons, o.out);
	snprintf(want, sizeof(want), "\nbottleneck: flowwork[%d]: flowwork[%d] waits ", (int)relay,
		 (int)prod);
	neck = strstr(o.out, want);
	ck_assert_msg(neck != NULL, "no line '%s' in:\n%s", want + 1, o.out);
	snprintf(want, sizeof(want), " to write into it, flowwork[%d] waits ", (int)cons);
	ck_assert_msg(strstr(neck, want) && strstr(neck, " to read from it\n"),
		      "the bottleneck line does not name the consumer:\n%s", o.out);
	ck_assert_msg(!strstr(neck + 1, "\nbottleneck:"), "more than one bottleneck:\n%s", o.out);
	output_free(&o);
}

START_TEST(test_bottleneck_chain)
{
	char *cmd[] = { "sh", "-c", CHAIN_CMD, NULL };
	json_object *doc, *flows, *necks, *in, *out, *b;
	struct output o;
	pid_t prod, relay, cons;

	doc = flows_run(cmd, NULL, NULL, &o);
	flows = flows_of(doc);
	prod = role_pid(o.err, "producer");
	relay = role_pid(o.err, "relay");
	cons = role_pid(o.err, "consumer");
	in = flow_written_by(flows, "pipe", prod);
	out = flow_written_by(flows, "pipe", relay);
	assert_only_pid(in, "readers", relay, "relay");
	assert_only_pid(out, "readers", cons, "consumer");
	assert_bytes(in, 262144, &o);
	assert_bytes(out, 262144, &o);
	assert_verdict(in, "backpressure");
	assert_verdict(out, "consumer-starved");
	ck_assert_int_eq(jint(in, "stage"), 0);
	ck_assert_int_eq(jint(out, "stage"), 1);
	necks = jmember(doc, "bottlenecks");
	ck_assert_msg(json_object_array_length(necks) == 1, "want one bottleneck: %s",
		      json_object_to_json_string(necks));
	b = json_object_array_get_idx(necks, 0);
	ck_assert_int_eq(jint(b, "pid"), relay);
	ck_assert_int_eq(jint(b, "waits_to_write"), prod);
	ck_assert_int_eq(jint(b, "waits_to_read"), cons);
	ck_assert_int_eq(jint(b, "write_wait_ns"), jint(in, "writer_blocked_ns"));
	ck_assert_int_eq(jint(b, "read_wait_ns"), jint(out, "reader_blocked_ns"));
	finish_doc(doc, &o);
	assert_chain_text();
}
END_TEST

/*
 * (e3) A slow reader behind a channel deeper than all its bytes (flowwork
 * deepqueue: 2 MiB into a unix socket with an 8 MiB send buffer, read 4 KiB
 * every 2 ms). Neither side sleeps in a call, the bytes wait in the channel
 * (the median ~0.5 s): backpressure from the queue residence, its figure in
 * the JSON and in the table, and the reader the bottleneck.
 */
START_TEST(test_deep_queue)
{
	char *cmd[] = { FLOWWORK_PATH, "deepqueue", "-v", NULL };
	char *text_argv[] = { IPCPERF_PATH, "flows", "--", FLOWWORK_PATH, "deepqueue", "-v", NULL };
	json_object *doc, *flows, *f, *necks;
	struct output o, t;
	pid_t prod, cons;
	char want[96];
	double q;

	doc = flows_run(cmd, NULL, NULL, &o);
	flows = flows_of(doc);
	prod = role_pid(o.err, "producer");
	cons = role_pid(o.err, "consumer");
	f = flow_written_by(flows, "unix", prod);
	assert_only_pid(f, "readers", cons, "consumer");
	assert_bytes(f, 2097152, &o);
	assert_extra(f, "writes", 32);
	assert_extra(f, "reads", 512);
	q = jnum(f, "queue_residence");
	/* 512 reads 2 ms apart: ~1.1 s; the median byte waits a good half of it, ~100 reads */
	ck_assert_msg(q > 20, "queue residence %.2f, want the bytes to wait for many reads: %s", q,
		      json_object_to_json_string_ext(f, JSON_C_TO_STRING_PRETTY));
	ck_assert_msg(jint(f, "read_pace_ns") >= 2000000, "read pace %" PRId64 " ns, the reader "
		      "sleeps 2 ms after each read", jint(f, "read_pace_ns"));
	ck_assert(json_object_get_boolean(jmember(f, "verdict_by_queue")));
	assert_verdict(f, "backpressure");
	necks = jmember(doc, "bottlenecks");
	ck_assert_msg(json_object_array_length(necks) == 1, "want one bottleneck: %s",
		      json_object_to_json_string(necks));
	ck_assert_int_eq(jint(json_object_array_get_idx(necks, 0), "pid"), cons);
	ck_assert_int_eq(jint(json_object_array_get_idx(necks, 0), "queue_wait_ns"),
			 jint(jmember(f, "wire_ns"), "p50"));
	finish_doc(doc, &o);

	run(text_argv, &t);
	ck_assert_msg(WIFEXITED(t.status) && WEXITSTATUS(t.status) == 0, "flows (text): %s",
		      status_str(t.status));
	ck_assert_msg(strstr(t.out, "  backpressure (queue: "), "no queue figure in:\n%s", t.out);
	snprintf(want, sizeof(want), "\nbottleneck: flowwork[%d]: the bytes of flowwork[%d] wait ",
		 (int)role_pid(t.err, "consumer"), (int)role_pid(t.err, "producer"));
	ck_assert_msg(strstr(t.out, want), "no line '%s' in:\n%s", want + 1, t.out);
	output_free(&t);
}
END_TEST

/*
 * (f) A unix socketpair connected before the capture: flowwork sets it up,
 * both processes exist, then `ipcperf flows -p P,C` attaches and only then
 * does data move. The ends are known from the scan at the attach (with
 * their peers from sock_diag).
 */
START_TEST(test_preconnected)
{
	char *work_argv[] = { FLOWWORK_PATH, "preconnected", "-v", NULL };
	char pids[64], line[128];
	char *argv[] = { IPCPERF_PATH, "flows", "--json", "-p", pids, NULL };
	struct proc wk, ip;
	struct output ow, oi;
	json_object *doc, *flows, *f;
	size_t n = 0;
	int p, c;

	start(&wk, work_argv, true, true);
	/* "ready P C\n" */
	while (n < sizeof(line) - 1) {
		ssize_t k = read(wk.out_fd, line + n, 1);

		if (k < 0 && errno == EINTR)
			continue;
		ck_assert_msg(k == 1, "flowwork preconnected ended before saying ready");
		if (line[n] == '\n')
			break;
		n++;
	}
	line[n] = '\0';
	ck_assert_msg(sscanf(line, "ready %d %d", &p, &c) == 2, "bad ready line '%s'", line);
	snprintf(pids, sizeof(pids), "%d,%d", p, c);
	start(&ip, argv, false, false);
	cmd_wait_polling(ip.pid);
	ck_assert_int_eq(write(wk.in_fd, "g", 1), 1);
	finish(&wk, &ow);
	ck_assert_msg(WIFEXITED(ow.status) && WEXITSTATUS(ow.status) == 0,
		      "flowwork preconnected: %s; stderr:\n%s", status_str(ow.status), ow.err);
	/* ipcperf ends by itself once both targets are gone. */
	finish(&ip, &oi);
	ck_assert_msg(WIFEXITED(oi.status) && WEXITSTATUS(oi.status) == 0,
		      "ipcperf flows -p %s: %s; stderr:\n%.2000s", pids, status_str(oi.status),
		      oi.err);
	ck_assert_int_eq(role_pid(ow.err, "sender"), c);
	ck_assert_int_eq(role_pid(ow.err, "receiver"), p);
	doc = parse_json(oi.out, oi.out_len, "ipcperf flows --json -p");
	flows = flows_of(doc);
	f = only_flow(flows, "unix");
	assert_ends(f, c, "sender", p, "receiver");
	assert_bytes(f, 5000, &oi);
	assert_extra(f, "writes", 50);
	assert_no_loss(doc);
	json_object_put(doc);
	output_free(&ow);
	output_free(&oi);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Event loops: non-blocking ends waiting in epoll (flowwork ev*)       */
/* ------------------------------------------------------------------ */

static const char *const ev_chans[] = { "pipe", "unix", "tcp" };

/* What flowwork's @role said it got: "flowwork: again role=ROLE again=N waits=W". */
static void ev_said(const char *err, const char *role, int64_t *again, int64_t *waits)
{
	char key[64];
	const char *p;
	long a, w;

	snprintf(key, sizeof(key), "flowwork: again role=%s ", role);
	p = strstr(err, key);
	ck_assert_msg(p && sscanf(p + strlen(key), "again=%ld waits=%ld", &a, &w) == 2,
		      "flowwork -v did not say what the %s was refused:\n%.2000s", role, err);
	*again = a;
	*waits = w;
}

/*
 * The flow of an evflood (@flood) or evtrickle run over @kind, from @doc:
 * the bytes, every refusal and every wait exactly as the workload counted
 * them, and the verdict.
 */
static void check_ev_flow(json_object *doc, const struct output *work, const char *kind,
			  bool flood)
{
	json_object *flows = flows_of(doc), *f;
	pid_t prod = role_pid(work->err, "producer"), cons = role_pid(work->err, "consumer");
	int64_t pa, pw, ca, cw;

	ev_said(work->err, "producer", &pa, &pw);
	ev_said(work->err, "consumer", &ca, &cw);
	f = flow_written_by(flows, kind, prod);
	assert_only_pid(f, "readers", cons, "consumer");
	assert_bytes(f, flood ? 1048576 : 3200, work);
	ck_assert_int_eq(jint(f, "write_again"), pa);
	ck_assert_int_eq(jint(f, "read_again"), ca);
	ck_assert_int_eq(jint(f, "write_waits"), pw);
	ck_assert_int_eq(jint(f, "read_waits"), cw);
	if (flood) {
		/* refused, each refusal a wait for room; the consumer never found it empty */
		ck_assert_int_gt(pa, 0);
		ck_assert_int_eq(pw, pa);
		ck_assert_int_ge(jint(f, "write_wait_ns"), 1000000);
	} else {
		ck_assert_int_eq(pa, 0);
		ck_assert_int_eq(pw, 0);
		ck_assert_int_gt(ca, 0);
		ck_assert_int_ge(jint(f, "read_wait_ns"), 1000000);
	}
	ck_assert_msg(!strcmp(jstr(f, "verdict"), flood ? "backpressure" : "consumer-starved"),
		      "%s %s: verdict %s; the flow:\n%s", flood ? "evflood" : "evtrickle", kind,
		      jstr(f, "verdict"), json_object_to_json_string_ext(f, JSON_C_TO_STRING_PRETTY));
	assert_no_loss(doc);
}

static void ev_live_as(const char *scenario, const char *kind, bool flood)
{
	char *cmd[] = { FLOWWORK_PATH, (char *)scenario, (char *)kind, "-v", NULL };
	struct output o;
	json_object *doc = flows_run(cmd, NULL, NULL, &o);

	check_ev_flow(doc, &o, kind, flood);
	json_object_put(doc);
	output_free(&o);
}

static void ev_live(const char *kind, bool flood)
{
	ev_live_as(flood ? "evflood" : "evtrickle", kind, flood);
}

/* A non-blocking producer flooding an epoll consumer that reads slowly: backpressure. */
START_TEST(test_ev_flood)
{
	ev_live(ev_chans[_i], true);
}
END_TEST

/* An epoll consumer fed by a slow producer: consumer-starved. */
START_TEST(test_ev_trickle)
{
	ev_live(ev_chans[_i], false);
}
END_TEST

/* The same with poll() in place of epoll. */
START_TEST(test_poll_flood)
{
	ev_live_as("pollflood", ev_chans[_i], true);
}
END_TEST

START_TEST(test_poll_trickle)
{
	ev_live_as("polltrickle", ev_chans[_i], false);
}
END_TEST

/* `ipcperf record` of the run, then `report --view flows --json`: the same flow. */
static void ev_capture(const char *kind, bool flood)
{
	char data[64];
	char *rec[] = { IPCPERF_PATH, "record", "-q", "-o", data, "--", FLOWWORK_PATH,
			flood ? "evflood" : "evtrickle", (char *)kind, "-v", NULL };
	char *rep[] = { IPCPERF_PATH, "report", "-i", data, "--view", "flows", "--json", NULL };
	struct output orec, orep;
	json_object *doc;

	temp_path(data, sizeof(data), ".data");
	run(rec, &orec);
	ck_assert_msg(WIFEXITED(orec.status) && WEXITSTATUS(orec.status) == 0,
		      "ipcperf record: %s; stderr:\n%.2000s", status_str(orec.status), orec.err);
	run(rep, &orep);
	ck_assert_msg(WIFEXITED(orep.status) && WEXITSTATUS(orep.status) == 0,
		      "ipcperf report: %s; stderr:\n%.2000s", status_str(orep.status), orep.err);
	doc = parse_json(orep.out, orep.out_len, "ipcperf report --view flows --json");
	check_ev_flow(doc, &orec, kind, flood);
	unlink(data);
	json_object_put(doc);
	output_free(&orec);
	output_free(&orep);
}

START_TEST(test_ev_flood_capture)
{
	ev_capture(ev_chans[_i], true);
}
END_TEST

START_TEST(test_ev_trickle_capture)
{
	ev_capture(ev_chans[_i], false);
}
END_TEST

/* The fd row of @pid whose @side ("read", "write") made calls on a @kind, in stat's JSON. */
static json_object *ev_fd_row(json_object *doc, pid_t pid, const char *kind, const char *side)
{
	json_object *procs = jmember(doc, "processes"), *found = NULL;

	for (size_t i = 0; i < json_object_array_length(procs); i++) {
		json_object *p = json_object_array_get_idx(procs, i), *fds;

		if (jint(p, "pid") != pid)
			continue;
		fds = jmember(p, "fds");
		for (size_t k = 0; k < json_object_array_length(fds); k++) {
			json_object *fd = json_object_array_get_idx(fds, k);

			if (!strcmp(jstr(fd, "kind"), kind) && jint(jmember(fd, side), "ops") > 0) {
				ck_assert_msg(!found, "two %s rows of %d with %s calls", kind,
					      (int)pid, side);
				found = fd;
			}
		}
	}
	ck_assert_msg(found != NULL, "no %s row of %d with %s calls in:\n%.3000s", kind, (int)pid,
		      side, json_object_to_json_string(procs));
	return found;
}

/*
 * stat: the EAGAIN count of each fd side, exactly the workload's, from the
 * kernel's sums (the default) and from a record per call (--no-bpf).
 * Without BPF the rings are CPU-wide (root's default scope): a run that
 * lost records is made again (LOSSY_RUNS, suites.h). The kernel's sums
 * hold the targets' calls alone: there nothing may be lost.
 */
START_TEST(test_ev_stat_again)
{
	const char *kind = ev_chans[_i / 2 % 3];
	bool flood = _i % 2 == 0, no_bpf = _i >= 6;
	char *argv[10] = { IPCPERF_PATH, "stat", "--json" };
	size_t n = 3;
	struct output o;
	json_object *doc, *w, *r;
	pid_t prod, cons;
	int64_t pa, pw, ca, cw;

	if (no_bpf)
		argv[n++] = "--no-bpf";
	argv[n++] = "--";
	argv[n++] = FLOWWORK_PATH;
	argv[n++] = flood ? "evflood" : "evtrickle";
	argv[n++] = (char *)kind;
	argv[n++] = "-v";
	for (int run_nr = 1;; run_nr++) {
		run(argv, &o);
		ck_assert_msg(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0,
			      "ipcperf stat: %s; stderr:\n%.2000s", status_str(o.status), o.err);
		doc = parse_json(o.out, o.out_len, "ipcperf stat --json");
		if (!no_bpf || run_nr == LOSSY_RUNS || jint(doc, "lost_events") == 0)
			break;
		fprintf(stderr, "ev_stat_again %s %s --no-bpf: %" PRId64 " events lost CPU-wide "
			"to the machine's load; run %d of %d\n", flood ? "evflood" : "evtrickle",
			kind, jint(doc, "lost_events"), run_nr + 1, LOSSY_RUNS);
		json_object_put(doc);
		output_free(&o);
	}
	prod = role_pid(o.err, "producer");
	cons = role_pid(o.err, "consumer");
	ev_said(o.err, "producer", &pa, &pw);
	ev_said(o.err, "consumer", &ca, &cw);
	w = ev_fd_row(doc, prod, kind, "write");
	r = ev_fd_row(doc, cons, kind, "read");
	ck_assert_int_eq(jint(jmember(w, "write"), "again"), pa);
	ck_assert_int_eq(jint(jmember(w, "write"), "errors"), 0);	/* refusals are no errors */
	ck_assert_int_eq(jint(jmember(w, "write"), "bytes"), flood ? 1048576 : 3200);
	ck_assert_int_eq(jint(jmember(r, "read"), "again"), ca);
	ck_assert_int_eq(jint(jmember(r, "read"), "errors"), 0);
	ck_assert_int_eq(jint(jmember(r, "read"), "bytes"), flood ? 1048576 : 3200);
	ck_assert_int_gt(flood ? pa : ca, 0);
	ck_assert_int_eq(jint(doc, "lost_events"), 0);
	json_object_put(doc);
	output_free(&o);
}
END_TEST

Suite *flowlive_suite(void)
{
	Suite *s = suite_create("flowlive");
	TCase *tc = tcase_create("scenarios");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_backpressure);
	tcase_add_test(tc, test_stat_flows);
	tcase_add_test(tc, test_starved);
	tcase_add_test(tc, test_wire_blocked_reader);
	tcase_add_test(tc, test_idle);
	tcase_add_test(tc, test_unix_rr);
	tcase_add_test(tc, test_tcp);
	tcase_add_test(tc, test_low_fds);
	tcase_add_test(tc, test_shell_pipeline);
	tcase_add_test(tc, test_bottleneck_chain);
	tcase_add_test(tc, test_deep_queue);
	tcase_add_test(tc, test_preconnected);
	suite_add_tcase(s, tc);
	/* Event loops: each channel kind, live and from a capture; stat's EAGAIN counts. */
	tc = tcase_create("evloop");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_ev_flood, 0, 3);
	tcase_add_loop_test(tc, test_ev_trickle, 0, 3);
	tcase_add_loop_test(tc, test_poll_flood, 0, 3);
	tcase_add_loop_test(tc, test_poll_trickle, 0, 3);
	tcase_add_loop_test(tc, test_ev_flood_capture, 0, 3);
	tcase_add_loop_test(tc, test_ev_trickle_capture, 0, 3);
	tcase_add_loop_test(tc, test_ev_stat_again, 0, 12);
	suite_add_tcase(s, tc);
	return s;
}
