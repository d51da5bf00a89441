/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The session engine end to end, through the public API only: real
 * tracepoints on real processes (tests/ipcwork, whose I/O is known exactly),
 * asserting exact numbers. Needs root; check-live.c decides whether to run.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1	/* pipe2 */
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ipcperf/ipcperf.h>

#include "check-helpers.h"
#include "suites.h"

#ifndef IPCWORK_PATH
#error "IPCWORK_PATH must name the built tests/ipcwork"
#endif

/* The pipe workload's fds (see tests/ipcwork.c). */
enum { DATA_RD = 10, DATA_WR = 11, GO_RD = 12 };

/* How long a workload may take before the test gives up rather than hangs. */
#define RUN_DEADLINE_NS (30ull * 1000000000ull)

/* ------------------------------------------------------------------ */
/* Collecting what the handlers see                                    */
/* ------------------------------------------------------------------ */

struct sc_rec {
	uint64_t start_ns, end_ns;
	pid_t pid, tid;
	enum ipcperf_sc_class cls;
	int fd;
	uint64_t count;
	int64_t ret;
	bool has_name;
	char name[32];
};

struct task_rec {
	enum ipcperf_task_kind kind;
	pid_t pid, tid, child_tid;
};

struct collect {
	struct sc_rec *sc;
	size_t nr_sc, cap_sc;
	struct task_rec *task;
	size_t nr_task, cap_task;
	/* Handler invocations, by kind. */
	unsigned long syscall_calls, switch_calls, wakeup_calls, task_calls, lost_calls;
	uint64_t lost_records;
};

static void *grow(void *arr, size_t *cap, size_t elem)
{
	size_t ncap = *cap ? *cap * 2 : 256;
	void *p = realloc(arr, ncap * elem);

	ck_assert_msg(p != NULL, "out of memory");
	*cap = ncap;
	return p;
}

static void on_syscall(void *ctx, const struct ipcperf_syscall *ev)
{
	struct collect *c = ctx;
	struct sc_rec *r;

	c->syscall_calls++;
	if (c->nr_sc == c->cap_sc)
		c->sc = grow(c->sc, &c->cap_sc, sizeof(*c->sc));
	r = &c->sc[c->nr_sc++];
	*r = (struct sc_rec){
		.start_ns = ev->start_ns, .end_ns = ev->end_ns,
		.pid = ev->pid, .tid = ev->tid, .cls = ev->cls, .fd = ev->fd,
		.count = ev->count, .ret = ev->ret, .has_name = ev->name != NULL,
	};
	if (ev->name)
		snprintf(r->name, sizeof(r->name), "%s", ev->name);
}

static void on_switch(void *ctx, const struct ipcperf_switch *ev)
{
	(void)ev;
	((struct collect *)ctx)->switch_calls++;
}

static void on_wakeup(void *ctx, const struct ipcperf_wakeup *ev)
{
	(void)ev;
	((struct collect *)ctx)->wakeup_calls++;
}

static void on_task(void *ctx, const struct ipcperf_task *ev)
{
	struct collect *c = ctx;

	c->task_calls++;
	if (c->nr_task == c->cap_task)
		c->task = grow(c->task, &c->cap_task, sizeof(*c->task));
	c->task[c->nr_task++] = (struct task_rec){
		.kind = ev->kind, .pid = ev->pid, .tid = ev->tid, .child_tid = ev->child_tid,
	};
}

static void on_lost(void *ctx, const struct ipcperf_lost *ev)
{
	struct collect *c = ctx;

	c->lost_calls++;
	c->lost_records += ev->lost;
}

static unsigned long handler_calls(const struct collect *c)
{
	return c->syscall_calls + c->switch_calls + c->wakeup_calls + c->task_calls + c->lost_calls;
}

static void collect_free(struct collect *c)
{
	free(c->sc);
	free(c->task);
	memset(c, 0, sizeof(*c));
}

static void add_handlers(struct ipcperf_session *s, struct collect *c)
{
	struct ipcperf_handlers h = {
		.sz = sizeof(h),
		.ctx = c,
		.syscall = on_syscall,
		.sched_switch = on_switch,
		.wakeup = on_wakeup,
		.task = on_task,
		.lost = on_lost,
	};

	ck_assert_int_eq(ipcperf_session__add_handlers(s, &h), 0);
}

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static int print_stderr(enum ipcperf_print_level level, const char *fmt, va_list ap)
{
	static const char *const names[] = { "warning", "info", "debug" };

	if (level == IPCPERF_DEBUG && !getenv("IPCPERF_TEST_DEBUG"))
		return 0;
	fprintf(stderr, "libipcperf %s: ", (unsigned int)level < 3 ? names[level] : "?");
	return vfprintf(stderr, fmt, ap);
}

static void setup(void)
{
	ipcperf_set_print(print_stderr);
}

/* Drive @s with ipcperf_session__poll() until every target exited. */
static unsigned long drive_with_poll(struct ipcperf_session *s)
{
	uint64_t deadline = mono_ns() + RUN_DEADLINE_NS;
	unsigned long delivered = 0;

	while (!ipcperf_session__done(s)) {
		int n = ipcperf_session__poll(s, 100);

		if (n == -EINTR)
			continue;
		ck_assert_int_ge(n, 0);
		delivered += (unsigned long)n;
		ck_assert_msg(mono_ns() < deadline, "session not done after %llu s",
			      RUN_DEADLINE_NS / 1000000000ull);
	}
	return delivered;
}

/* The same with the caller's own poll() on ipcperf_session__fd(). */
static unsigned long drive_with_own_poll(struct ipcperf_session *s)
{
	uint64_t deadline = mono_ns() + RUN_DEADLINE_NS;
	unsigned long delivered = 0, readable = 0;
	int fd = ipcperf_session__fd(s);

	ck_assert_int_ge(fd, 0);
	while (!ipcperf_session__done(s)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int n = poll(&pfd, 1, 100);

		if (n < 0) {
			ck_assert_int_eq(errno, EINTR);
			continue;
		}
		if (n > 0)
			readable++;
		n = ipcperf_session__consume(s);
		ck_assert_int_ge(n, 0);
		delivered += (unsigned long)n;
		ck_assert_msg(mono_ns() < deadline, "session not done after %llu s",
			      RUN_DEADLINE_NS / 1000000000ull);
	}
	/* At the very least the targets' hang-up must have made it readable. */
	ck_assert_uint_ge(readable, 1);
	return delivered;
}

static void get_stats(const struct ipcperf_session *s, struct ipcperf_session_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->sz = sizeof(*st);
	ck_assert_int_eq(ipcperf_session__stats(s, st), 0);
}

/* Stop, check what stop and the counters say against what the handlers saw. */
static void stop_and_check(struct ipcperf_session *s, const struct collect *c,
			   unsigned long delivered, struct ipcperf_session_stats *st)
{
	int n = ipcperf_session__stop(s);

	ck_assert_int_ge(n, 0);
	delivered += (unsigned long)n;
	/* Idempotent: nothing is left to deliver. */
	ck_assert_int_eq(ipcperf_session__stop(s), 0);

	get_stats(s, st);
	ck_assert_uint_eq(c->syscall_calls, st->syscalls);
	/*
	 * poll/consume/stop return the "events delivered". Whether a sys_enter
	 * that only waits for its exit counts is the library's choice; what it
	 * cannot do is report fewer than the handlers were given.
	 */
	ck_assert_uint_ge(delivered, handler_calls(c));
	ck_assert_uint_ne(st->stop_ns, 0);
	ck_assert_uint_ge(st->stop_ns, st->start_ns);
}

/*
 * Whether every record reached the library. Per task the rings hold the
 * targets' records alone, which the default rings hold many times over
 * however late the test reads them: nothing may be lost, whatever the load.
 * CPU-wide they hold every process's records on each CPU, and a machine
 * loaded enough (the suite's own parallel jobs) fills them before the test
 * reads them: loss is possible there, and then it is reported.
 */
static bool nothing_lost(const struct collect *c, const struct ipcperf_session_stats *st)
{
	if (st->scope != IPCPERF_SCOPE_CPU || !st->lost) {
		ck_assert_uint_eq(st->lost, 0);
		ck_assert_uint_eq(c->lost_calls, 0);
		return true;
	}
	ck_assert_uint_le(c->lost_records, st->lost);
	return false;
}

/*
 * The @made calls of class @cls on @fd (-1: any) when @lost records were
 * lost: none delivered that was not made, none missing but for the lost.
 */
static void check_calls_lost(const struct collect *c, enum ipcperf_sc_class cls, int fd,
			     uint64_t made, uint64_t lost)
{
	uint64_t seen = 0;

	for (size_t i = 0; i < c->nr_sc; i++)
		seen += c->sc[i].cls == cls && (fd < 0 || c->sc[i].fd == fd);
	ck_assert_msg(seen <= made && seen + lost >= made,
		      "%llu calls of class %d on fd %d delivered, %llu made, %llu records lost",
		      (unsigned long long)seen, (int)cls, fd, (unsigned long long)made,
		      (unsigned long long)lost);
}

/* What holds for every syscall event, whatever the workload. */
static void check_every_syscall(const struct collect *c)
{
	for (size_t i = 0; i < c->nr_sc; i++) {
		const struct sc_rec *r = &c->sc[i];

		ck_assert_msg(r->has_name, "syscall event %zu (tid %d) has no name", i, (int)r->tid);
		ck_assert_uint_ge(r->end_ns, r->start_ns);
		ck_assert_int_gt(r->pid, 0);
		ck_assert_int_gt(r->tid, 0);
	}
}

/* Per-thread totals of the calls of class @cls on @fd (-1: any fd) in @pid (0: any). */
struct per_tid {
	pid_t pid, tid;
	int fd;			/* the fd of the first call */
	bool one_fd;		/* every call was on that fd */
	unsigned int ops;
	int64_t bytes;
};

static size_t group_by_tid(const struct collect *c, enum ipcperf_sc_class cls, int fd,
			   pid_t pid, struct per_tid *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nr_sc; i++) {
		const struct sc_rec *r = &c->sc[i];
		size_t j;

		if (r->cls != cls || (fd >= 0 && r->fd != fd) || (pid && r->pid != pid))
			continue;
		for (j = 0; j < n && out[j].tid != r->tid; j++)
			;
		if (j == n) {
			ck_assert_msg(n < max, "more than %zu threads do class %d on fd %d", max,
				      (int)cls, fd);
			out[n++] = (struct per_tid){ .pid = r->pid, .tid = r->tid, .fd = r->fd,
						     .one_fd = true };
		}
		ck_assert_int_eq(out[j].pid, r->pid);
		out[j].one_fd &= out[j].fd == r->fd;
		out[j].ops++;
		out[j].bytes += r->ret;
	}
	/* Sort by ops, so that the callers can name them. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && out[j - 1].ops > out[j].ops; j--) {
			struct per_tid t = out[j];

			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return n;
}

/* The FORK event of @child_tid (@who names it), which process @parent made. */
static const struct task_rec *expect_fork(const struct collect *c, pid_t child_tid, pid_t parent,
					  const char *who)
{
	const struct task_rec *f = NULL;

	for (size_t i = 0; i < c->nr_task && !f; i++)
		if (c->task[i].kind == IPCPERF_TASK_FORK && c->task[i].child_tid == child_tid)
			f = &c->task[i];
	ck_assert_msg(f != NULL, "no FORK event for %s (tid %d)", who, (int)child_tid);
	ck_assert_int_eq(f->pid, parent);
	return f;
}

/* ------------------------------------------------------------------ */
/* The pipe workload: P0 -> R, W -> T, G                               */
/* ------------------------------------------------------------------ */

static void check_pipe_run(const struct collect *c, pid_t p0)
{
	struct per_tid wr[8], rd[8], go[8];
	const struct per_tid *w, *t, *g, *r;
	const struct task_rec *f;
	unsigned int n1000 = 0, n100 = 0, n0 = 0;
	size_t n;

	check_every_syscall(c);

	/* Writers on fd 11, sorted by ops: G (3 x 700), T (5 x 300), W (100..1000). */
	n = group_by_tid(c, IPCPERF_SC_WRITE, DATA_WR, 0, wr, 8);
	ck_assert_uint_eq(n, 3);
	g = &wr[0];
	t = &wr[1];
	w = &wr[2];
	ck_assert_uint_eq(w->ops, 10);
	ck_assert_int_eq(w->bytes, 5500);
	ck_assert_uint_eq(t->ops, 5);
	ck_assert_int_eq(t->bytes, 1500);
	ck_assert_uint_eq(g->ops, 3);
	ck_assert_int_eq(g->bytes, 2100);

	/* W is a process of its own, forked by P0; T is its thread; G its child. */
	ck_assert_int_ne(w->pid, p0);
	ck_assert_int_eq(w->tid, w->pid);
	ck_assert_int_eq(t->pid, w->pid);
	ck_assert_int_ne(t->tid, w->tid);
	ck_assert_int_ne(g->pid, w->pid);
	ck_assert_int_ne(g->pid, p0);
	ck_assert_int_eq(g->tid, g->pid);

	expect_fork(c, g->tid, w->pid, "G");
	f = expect_fork(c, t->tid, w->pid, "thread T");
	ck_assert_int_eq(f->tid, w->tid);
	expect_fork(c, w->tid, p0, "W");

	/* The one reader R: 9 x 1000, 100, 0 (EOF), each asking for 1000. */
	n = group_by_tid(c, IPCPERF_SC_READ, DATA_RD, 0, rd, 8);
	ck_assert_uint_eq(n, 1);
	r = &rd[0];
	ck_assert_uint_eq(r->ops, 11);
	ck_assert_int_eq(r->bytes, 9100);
	ck_assert_int_eq(r->tid, r->pid);
	ck_assert_int_ne(r->pid, p0);
	ck_assert_int_ne(r->pid, w->pid);
	ck_assert_int_ne(r->pid, g->pid);
	expect_fork(c, r->tid, p0, "R");

	/* Its go byte, read before any data. */
	n = group_by_tid(c, IPCPERF_SC_READ, GO_RD, 0, go, 8);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(go[0].tid, r->tid);
	ck_assert_uint_eq(go[0].ops, 1);
	ck_assert_int_eq(go[0].bytes, 1);

	for (size_t i = 0; i < c->nr_sc; i++) {
		const struct sc_rec *e = &c->sc[i];

		if (e->cls == IPCPERF_SC_WRITE && e->fd == DATA_WR) {
			ck_assert_str_eq(e->name, "write");
			ck_assert_int_eq(e->ret, (int64_t)e->count);
		} else if (e->cls == IPCPERF_SC_READ && e->fd == DATA_RD) {
			ck_assert_str_eq(e->name, "read");
			ck_assert_uint_eq(e->count, 1000);
			if (e->ret == 1000)
				n1000++;
			else if (e->ret == 100)
				n100++;
			else if (e->ret == 0)
				n0++;
			else
				ck_abort_msg("read(%d, 1000) returned %lld", DATA_RD, (long long)e->ret);
		} else if (e->cls == IPCPERF_SC_READ && e->fd == GO_RD) {
			ck_assert_str_eq(e->name, "read");
			ck_assert_uint_eq(e->count, 1);
			ck_assert_int_eq(e->ret, 1);
		}
	}
	ck_assert_uint_eq(n1000, 9);
	ck_assert_uint_eq(n100, 1);
	ck_assert_uint_eq(n0, 1);

	/* The buffers W writes are 100, 200, ... 1000, in this order. */
	for (size_t i = 0, k = 0; i < c->nr_sc; i++) {
		const struct sc_rec *e = &c->sc[i];

		if (e->cls == IPCPERF_SC_WRITE && e->fd == DATA_WR && e->tid == w->tid) {
			k++;
			ck_assert_uint_eq(e->count, 100 * k);
		}
	}
}

/* The scopes a loop test runs in, by its index. */
static const unsigned int scopes[] = { IPCPERF_SCOPE_TASK, IPCPERF_SCOPE_CPU };

/*
 * Another process writing to a pipe and reading it back while a session
 * runs: the same calls as the targets', none of which may reach the
 * handlers. Stopped by stop_noise().
 */
static pid_t start_noise(void)
{
	int fds[2];
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char b[64] = { 0 };

		for (;;) {
			if (write(fds[1], b, sizeof(b)) != (ssize_t)sizeof(b) ||
			    read(fds[0], b, sizeof(b)) != (ssize_t)sizeof(b))
				_exit(1);
			usleep(100);
		}
	}
	close(fds[0]);
	close(fds[1]);
	return pid;
}

static void stop_noise(pid_t pid)
{
	int status;

	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
}

/* No event of @noise reached the handlers; in CPU scope its records were read and dropped. */
static void check_no_noise(const struct collect *c, const struct ipcperf_session_stats *st,
			   unsigned int scope, pid_t noise)
{
	for (size_t i = 0; i < c->nr_sc; i++)
		ck_assert_msg(c->sc[i].pid != noise, "a syscall of pid %d, not a target, was delivered",
			      (int)noise);
	ck_assert_uint_eq(st->scope, scope);
	if (scope == IPCPERF_SCOPE_CPU)
		ck_assert_uint_gt(st->foreign, 0);
	else
		ck_assert_uint_eq(st->foreign, 0);
}

static void run_pipe(bool own_loop, unsigned int scope)
{
	char *argv[] = { IPCWORK_PATH, "pipe", "--exit", "7", NULL };
	IPCPERF_OPTS(ipcperf_session_opts, opts, .argv = argv, .scope = scope);
	pid_t noise = start_noise();
	struct ipcperf_session_stats st;
	struct ipcperf_session *s;
	struct collect c = { 0 };
	unsigned long delivered;
	int status = -1;
	pid_t p0;

	s = ipcperf_session__new(&opts);
	ck_assert_msg(s != NULL, "ipcperf_session__new: %s", strerror(errno));
	add_handlers(s, &c);
	p0 = ipcperf_session__child_pid(s);
	ck_assert_int_gt(p0, 0);
	ck_assert_int_eq(ipcperf_session__fd(s), -EINVAL);

	ck_assert_int_eq(ipcperf_session__start(s), 0);
	ck_assert_int_eq(ipcperf_session__add_handlers(s, &(struct ipcperf_handlers){
		.sz = sizeof(struct ipcperf_handlers) }), -EBUSY);
	ck_assert_int_eq(ipcperf_session__start(s), -EBUSY);

	delivered = own_loop ? drive_with_own_poll(s) : drive_with_poll(s);
	stop_and_check(s, &c, delivered, &st);
	stop_noise(noise);
	ck_assert_uint_eq(st.unpaired_enter, 0);
	ck_assert_uint_eq(st.unpaired_exit, 0);
	check_no_noise(&c, &st, scope, noise);

	ck_assert_int_eq(ipcperf_session__wait_child(s, &status), 0);
	ck_assert_msg(WIFEXITED(status), "ipcwork did not exit (wait status 0x%x)",
		      (unsigned int)status);
	ck_assert_int_eq(WEXITSTATUS(status), 7);

	if (nothing_lost(&c, &st)) {
		check_pipe_run(&c, p0);
	} else {
		check_every_syscall(&c);
		check_calls_lost(&c, IPCPERF_SC_WRITE, DATA_WR, 10 + 5 + 3, st.lost);
		check_calls_lost(&c, IPCPERF_SC_READ, DATA_RD, 9 + 1 + 1, st.lost);
		check_calls_lost(&c, IPCPERF_SC_READ, GO_RD, 1, st.lost);
	}
	/* Events come in timestamp order. */
	for (size_t i = 1; i < c.nr_sc; i++)
		ck_assert_uint_ge(c.sc[i].end_ns, c.sc[i - 1].end_ns);

	ipcperf_session__delete(s);
	collect_free(&c);
}

START_TEST(test_pipe_command)
{
	run_pipe(false, scopes[_i]);
}
END_TEST

START_TEST(test_pipe_own_poll)
{
	run_pipe(true, scopes[_i]);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Forks, execs and exits                                              */
/* ------------------------------------------------------------------ */

struct tasks_seen {
	unsigned int forks, execs, exits, other_comm;
	pid_t fork_parent[8], fork_child[8], exit_tid[8];
	char exec_file[256];
	pid_t exec_pid;
};

static void tasks_on_task(void *ctx, const struct ipcperf_task *ev)
{
	struct tasks_seen *t = ctx;

	switch (ev->kind) {
	case IPCPERF_TASK_FORK:
		if (t->forks < 8) {
			t->fork_parent[t->forks] = ev->pid;
			t->fork_child[t->forks] = ev->child_tid;
		}
		t->forks++;
		break;
	case IPCPERF_TASK_EXEC:
		t->execs++;
		t->exec_pid = ev->pid;
		snprintf(t->exec_file, sizeof(t->exec_file), "%s", ev->filename ? ev->filename : "");
		break;
	case IPCPERF_TASK_EXIT:
		if (t->exits < 8)
			t->exit_tid[t->exits] = ev->tid;
		t->exits++;
		t->other_comm += !ev->comm || strcmp(ev->comm, "ipcwork") != 0;
		break;
	}
}

/* The tracepoints sched_process_fork/exec/exit among the events @s opened. */
static int count_task_tps(void *ctx, const struct ipcperf_event_desc *d)
{
	if (!strcmp(d->system, "sched") && !strncmp(d->name, "sched_process_", 14))
		++*(unsigned int *)ctx;
	return 0;
}

static bool forked(const struct tasks_seen *t, pid_t parent, pid_t child)
{
	for (unsigned int i = 0; i < t->forks && i < 8; i++)
		if (t->fork_parent[i] == parent && t->fork_child[i] == child)
			return true;
	return false;
}

/*
 * Where the kernel pairs the calls, the forks, execs and exits come from its
 * task records, and none of the sched_process_* tracepoints is opened
 * (closing each waits for an RCU grace period: tens of ms at every exit);
 * elsewhere from those tracepoints. The events are the same either way:
 * ipcwork pipe (P0 forks W and R; W starts thread T and forks G) makes 4
 * forks, 1 exec (the command's) and 5 exits, each named ipcwork.
 */
START_TEST(test_task_events)
{
	char *argv[] = { IPCWORK_PATH, "pipe", NULL };
	IPCPERF_OPTS(ipcperf_session_opts, opts, .argv = argv, .scope = scopes[_i]);
	struct ipcperf_session_stats st;
	struct tasks_seen t = { 0 };
	struct collect c = { 0 };
	struct ipcperf_session *s = ipcperf_session__new(&opts);
	unsigned int task_tps = 0;
	int status = -1;
	pid_t p0;

	ck_assert_msg(s != NULL, "ipcperf_session__new: %s", strerror(errno));
	add_handlers(s, &c);
	ck_assert_int_eq(ipcperf_session__add_handlers(s, &(struct ipcperf_handlers){
		.sz = sizeof(struct ipcperf_handlers), .ctx = &t, .task = tasks_on_task }), 0);
	p0 = ipcperf_session__child_pid(s);
	ck_assert_int_eq(ipcperf_session__start(s), 0);
	ck_assert_int_eq(ipcperf_session__for_each_event(s, count_task_tps, &task_tps), 0);
	get_stats(s, &st);
	if (st.syscall_records == IPCPERF_SC_RECORDS_KERNEL)
		ck_assert_uint_eq(task_tps, 0);
	else
		ck_assert_uint_eq(task_tps, 3);
	stop_and_check(s, &c, drive_with_poll(s), &st);
	ck_assert_int_eq(ipcperf_session__wait_child(s, &status), 0);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (nothing_lost(&c, &st)) {
		ck_assert_uint_eq(t.execs, 1);
		ck_assert_int_eq(t.exec_pid, p0);
		ck_assert_str_eq(t.exec_file, IPCWORK_PATH);
		ck_assert_uint_eq(t.forks, 4);
		ck_assert_uint_eq(t.exits, 5);
		ck_assert_uint_eq(t.other_comm, 0);
		ck_assert(forked(&t, p0, t.fork_child[0]) && forked(&t, p0, t.fork_child[1]));
		for (unsigned int i = 2; i < 4; i++)
			ck_assert_msg(t.fork_parent[i] == t.fork_child[0] ||
				      t.fork_parent[i] == t.fork_child[1],
				      "fork %u: parent %d is neither child of %d", i,
				      (int)t.fork_parent[i], (int)p0);
		ck_assert_int_eq(t.exit_tid[t.exits - 1], p0);
	}
	ipcperf_session__delete(s);
	collect_free(&c);
}
END_TEST

/* ------------------------------------------------------------------ */
/* An existing multi-threaded process                                  */
/* ------------------------------------------------------------------ */

/* Read one line from @fd (up to 10 s) into @buf. */
static void read_line(int fd, char *buf, size_t size)
{
	size_t len = 0;

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		ck_assert_msg(poll(&pfd, 1, 10000) == 1, "no line from ipcwork in 10 s");
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		ck_assert_msg(n > 0, "ipcwork closed its stdout before a full line");
		len += (size_t)n;
		buf[len] = '\0';
		if (memchr(buf, '\n', len))
			return;
		ck_assert_msg(len < size - 1, "line from ipcwork too long: %s", buf);
	}
}

/* The fds of @pid that are /dev/null, as a bitmap of fds < 64. */
static uint64_t devnull_fds(pid_t pid)
{
	char path[64], target[64];
	uint64_t set = 0;

	for (int fd = 0; fd < 64; fd++) {
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = '\0';
		if (!strcmp(target, "/dev/null"))
			set |= 1ull << fd;
	}
	return set;
}

static size_t list_tids(pid_t pid, pid_t *tids, size_t max)
{
	char path[64];
	struct dirent *d;
	size_t n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	ck_assert_msg(dir != NULL, "%s: %s", path, strerror(errno));
	while ((d = readdir(dir)) != NULL) {
		if (d->d_name[0] == '.')
			continue;
		ck_assert_uint_lt(n, max);
		tids[n++] = (pid_t)atoi(d->d_name);
	}
	closedir(dir);
	return n;
}

START_TEST(test_existing_threads)
{
	int in[2], out[2], status = -1;
	struct ipcperf_session_stats st;
	struct ipcperf_session *s;
	struct collect c = { 0 };
	struct per_tid wr[8];
	pid_t child, pid, tids[8];
	unsigned long delivered;
	char line[128];
	uint64_t devnull, used_fds = 0;
	size_t n, nr_tids;
	pid_t noise;

	ck_assert_int_eq(pipe2(in, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(out, O_CLOEXEC), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		if (dup2(in[0], STDIN_FILENO) < 0 || dup2(out[1], STDOUT_FILENO) < 0)
			_exit(126);
		execl(IPCWORK_PATH, IPCWORK_PATH, "threads", (char *)NULL);
		fprintf(stderr, "exec %s: %s\n", IPCWORK_PATH, strerror(errno));
		_exit(127);
	}
	close(in[0]);
	close(out[1]);

	read_line(out[0], line, sizeof(line));
	ck_assert_int_eq(sscanf(line, "ready %d", &pid), 1);
	ck_assert_int_eq(pid, child);
	nr_tids = list_tids(pid, tids, 8);
	ck_assert_uint_eq(nr_tids, 4);
	devnull = devnull_fds(pid);

	s = ipcperf_session__new(&(struct ipcperf_session_opts){
		.sz = sizeof(struct ipcperf_session_opts), .pids = &pid, .nr_pids = 1,
		.scope = scopes[_i] });
	ck_assert_msg(s != NULL, "ipcperf_session__new: %s", strerror(errno));
	add_handlers(s, &c);
	noise = start_noise();
	ck_assert_int_eq(ipcperf_session__child_pid(s), -1);
	ck_assert_int_eq(ipcperf_session__wait_child(s, &status), -ECHILD);
	ck_assert_int_eq(ipcperf_session__start(s), 0);

	ck_assert_int_eq(write(in[1], "g", 1), 1);
	close(in[1]);
	delivered = drive_with_poll(s);
	stop_and_check(s, &c, delivered, &st);
	stop_noise(noise);
	check_no_noise(&c, &st, scopes[_i], noise);

	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert_msg(WIFEXITED(status), "ipcwork did not exit (wait status 0x%x)",
		      (unsigned int)status);
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	close(out[0]);

	check_every_syscall(&c);
	if (!nothing_lost(&c, &st)) {
		check_calls_lost(&c, IPCPERF_SC_WRITE, -1, 2 + 4 + 6, st.lost);
		ipcperf_session__delete(s);
		collect_free(&c);
		return;
	}
	/* Sorted by ops: threads 0, 1, 2 wrote 2, 4 and 6 buffers of 64 bytes. */
	n = group_by_tid(&c, IPCPERF_SC_WRITE, -1, 0, wr, 8);
	ck_assert_uint_eq(n, 3);
	for (size_t i = 0; i < n; i++) {
		bool known = false;

		ck_assert_uint_eq(wr[i].ops, 2 * (i + 1));
		ck_assert_int_eq(wr[i].bytes, 128 * (int64_t)(i + 1));
		ck_assert_int_eq(wr[i].pid, pid);
		ck_assert_int_ne(wr[i].tid, pid);
		for (size_t k = 0; k < nr_tids; k++)
			known |= tids[k] == wr[i].tid;
		ck_assert_msg(known, "writer tid %d was not a thread of %d", (int)wr[i].tid, (int)pid);
		ck_assert_msg(wr[i].one_fd, "thread %d wrote to several fds", (int)wr[i].tid);
		ck_assert_msg(wr[i].fd >= 0 && wr[i].fd < 64 && ((devnull >> wr[i].fd) & 1),
			      "thread %d wrote to fd %d, not /dev/null", (int)wr[i].tid, wr[i].fd);
		ck_assert_msg(!((used_fds >> wr[i].fd) & 1), "two threads wrote to fd %d", wr[i].fd);
		used_fds |= 1ull << wr[i].fd;
	}
	for (size_t i = 0; i < c.nr_sc; i++) {
		if (c.sc[i].cls != IPCPERF_SC_WRITE)
			continue;
		ck_assert_str_eq(c.sc[i].name, "write");
		ck_assert_uint_eq(c.sc[i].count, 64);
		ck_assert_int_eq(c.sc[i].ret, 64);
	}

	ipcperf_session__delete(s);
	collect_free(&c);
}
END_TEST

/*
 * The command's exit is news the reader is woken for: once the command has
 * exited (seen here on a pidfd of our own), the session's fd is readable at
 * once, and one ipcperf_session__poll() that does not wait leaves the
 * session done. Before, in CPU scope (where done means the targets' exits
 * delivered), the fd waited for the 50 ms tick, and a read held back the
 * records of the last 20 ms (the merge's slack), the exit among them: not
 * done. In task scope the rings hang up at the exit.
 */
START_TEST(test_poll_at_exit)
{
	char *argv[] = { "/bin/true", NULL };
	IPCPERF_OPTS(ipcperf_session_opts, opts, .argv = argv, .scope = scopes[_i],
		     .events = IPCPERF_EV_IO | IPCPERF_EV_TASK);
	struct tasks_seen seen = { 0 };
	IPCPERF_OPTS(ipcperf_handlers, h, .ctx = &seen, .task = tasks_on_task);
	struct ipcperf_session *s = ipcperf_session__new(&opts);
	struct pollfd pfd = { .events = POLLIN };
	int n, status;

	ck_assert_msg(s != NULL, "ipcperf_session__new: %s", strerror(errno));
	ck_assert_int_eq(ipcperf_session__add_handlers(s, &h), 0);
	pfd.fd = (int)syscall(SYS_pidfd_open, ipcperf_session__child_pid(s), 0);
	ck_assert_int_ge(pfd.fd, 0);
	ck_assert_int_eq(ipcperf_session__start(s), 0);
	while ((n = poll(&pfd, 1, 10000)) < 0 && errno == EINTR)
		;
	ck_assert_int_eq(n, 1);
	close(pfd.fd);
	/* the session's fd is readable at once, and one read without waiting finds it done */
	pfd.fd = ipcperf_session__fd(s);
	ck_assert_int_ge(pfd.fd, 0);
	ck_assert_int_eq(poll(&pfd, 1, 0), 1);
	n = ipcperf_session__poll(s, 0);
	ck_assert_msg(n >= 0, "poll: %s", strerror(-n));
	ck_assert_msg(ipcperf_session__done(s), "the command exited, and one poll later the "
		      "session is not done (%u exits seen)", seen.exits);
	ck_assert_int_ge(ipcperf_session__stop(s), 0);
	ck_assert_uint_eq(seen.exits, 1);
	ck_assert_int_eq(ipcperf_session__wait_child(s, &status), 0);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ipcperf_session__delete(s);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Failures                                                            */
/* ------------------------------------------------------------------ */

START_TEST(test_exec_fails)
{
	char *argv[] = { "/nonexistent/ipcwork", NULL };
	IPCPERF_OPTS(ipcperf_session_opts, opts, .argv = argv);
	struct ipcperf_session *s;
	struct collect c = { 0 };
	pid_t child;
	int status;

	errno = 0;
	s = ipcperf_session__new(&opts);
	if (!s) {
		/* Finding out early is allowed; then it must say why. */
		ck_assert_int_eq(errno, ENOENT);
		return;
	}
	add_handlers(s, &c);
	child = ipcperf_session__child_pid(s);
	ck_assert_int_gt(child, 0);
	ck_assert_int_eq(ipcperf_session__start(s), -ENOENT);
	ipcperf_session__delete(s);

	ck_assert_uint_eq(c.syscall_calls, 0);
	/* A command that never started is reaped by the session, not left a zombie. */
	ck_assert_int_eq(waitpid(child, &status, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
	collect_free(&c);
}
END_TEST

START_TEST(test_pid_does_not_exist)
{
	struct ipcperf_session *s;
	pid_t pid = 4000000;

	while (pid > 1 && !(kill(pid, 0) < 0 && errno == ESRCH))
		pid--;
	ck_assert_int_gt(pid, 1);

	errno = 0;
	s = ipcperf_session__new(&(struct ipcperf_session_opts){
		.sz = sizeof(struct ipcperf_session_opts), .pids = &pid, .nr_pids = 1 });
	ck_assert_msg(s == NULL, "a session on pid %d, which does not exist", (int)pid);
	ck_assert_int_eq(errno, ESRCH);
}
END_TEST

/*
 * A pid given 10,000 times is one target: its events are opened once (10,000
 * sets per task were past the fd limit), and each of its 8 writes of 100
 * bytes to /dev/null is seen once.
 */
START_TEST(test_pid_repeated)
{
	enum { REPEATS = 10000, WRITES = 8 };
	pid_t *pids = malloc(REPEATS * sizeof(*pids)), child;
	struct ipcperf_session_stats st;
	struct collect c = { 0 };
	struct ipcperf_session *s;
	int go[2], null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	unsigned long delivered;
	size_t seen = 0;
	char b = 0;

	ck_assert(pids && null >= 0 && pipe2(go, O_CLOEXEC) == 0);
	if ((child = fork()) == 0) {
		char buf[100] = { 0 };

		if (read(go[0], &b, 1) != 1)
			_exit(1);
		for (int i = 0; i < WRITES; i++)
			if (write(null, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
				_exit(1);
		_exit(0);
	}
	ck_assert_int_gt(child, 0);
	for (int i = 0; i < REPEATS; i++)
		pids[i] = child;
	s = ipcperf_session__new(&(struct ipcperf_session_opts){
		.sz = sizeof(struct ipcperf_session_opts), .pids = pids, .nr_pids = REPEATS,
		.scope = scopes[_i], .events = IPCPERF_EV_IO });
	ck_assert_msg(s != NULL, "a session on one pid given %d times: %s", REPEATS, strerror(errno));
	add_handlers(s, &c);
	ck_assert_int_eq(ipcperf_session__start(s), 0);
	ck_assert_int_eq(write(go[1], &b, 1), 1);
	delivered = drive_with_poll(s);
	stop_and_check(s, &c, delivered, &st);
	for (size_t i = 0; i < c.nr_sc; i++)
		seen += c.sc[i].pid == child && c.sc[i].cls == IPCPERF_SC_WRITE &&
			c.sc[i].fd == null && c.sc[i].ret == 100;
	/* each once: never more, and fewer only for what CPU-wide rings lost */
	if (nothing_lost(&c, &st))
		ck_assert_uint_eq(seen, WRITES);
	else
		check_calls_lost(&c, IPCPERF_SC_WRITE, null, WRITES, st.lost);
	ipcperf_session__delete(s);
	ck_assert_int_eq(waitpid(child, NULL, 0), child);
	collect_free(&c);
	free(pids);
	close(null);
	close(go[0]);
	close(go[1]);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Where a capture goes                                                */
/* ------------------------------------------------------------------ */

/* What the print function was given, and how often it said "capture". */
static char printed[4096];
static unsigned int nr_capture_lines;

static int print_keep(enum ipcperf_print_level level, const char *fmt, va_list ap)
{
	size_t n = strlen(printed);
	int ret;

	if (level == IPCPERF_DEBUG)
		return 0;
	ret = vsnprintf(printed + n, sizeof(printed) - n, fmt, ap);
	if (strstr(printed + n, "capture"))
		nr_capture_lines++;
	return ret;
}

static void keep_print(void)
{
	printed[0] = '\0';
	nr_capture_lines = 0;
	ipcperf_set_print(print_keep);
}

/*
 * A link at the capture's path, to another's file or to nowhere: -ELOOP and
 * one line that says why, and the file the link names is neither written,
 * chmod'ed nor created.
 */
START_TEST(test_record_no_follow)
{
	static const char content[] = "not a capture\n";
	char dir[] = "/tmp/ipcperf-rec.XXXXXX", victim[64], link[64], absent[64], buf[64];
	char *argv[] = { "/bin/true", NULL };
	IPCPERF_OPTS(ipcperf_session_opts, opts, .argv = argv);
	struct stat st;
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	snprintf(absent, sizeof(absent), "%s/absent", dir);
	fd = open(victim, O_WRONLY | O_CREAT | O_EXCL, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fchmod(fd, 0644), 0);
	ck_assert_int_eq(write(fd, content, sizeof(content) - 1), (ssize_t)sizeof(content) - 1);
	close(fd);

	for (int dangling = 0; dangling < 2; dangling++) {
		struct ipcperf_session *s;

		ck_assert_int_eq(symlink(dangling ? absent : victim, link), 0);
		s = ipcperf_session__new(&opts);
		ck_assert_msg(s != NULL, "ipcperf_session__new: %s", strerror(errno));
		keep_print();
		ck_assert_int_eq(ipcperf_session__record(s, link), -ELOOP);
		setup();
		ck_assert_uint_eq(nr_capture_lines, 1);
		ck_assert_msg(strstr(printed, link) && strstr(printed, "symbolic link"),
			      "the print function was told: %s", printed);
		ipcperf_session__delete(s);
		ck_assert_int_eq(unlink(link), 0);
	}
	ck_assert_int_eq(stat(victim, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0644);
	ck_assert_int_eq(st.st_size, (off_t)sizeof(content) - 1);
	fd = open(victim, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, buf, sizeof(buf)), (ssize_t)sizeof(content) - 1);
	close(fd);
	ck_assert(memcmp(buf, content, sizeof(content) - 1) == 0);
	ck_assert_int_eq(lstat(absent, &st), -1);
	ck_assert_int_eq(errno, ENOENT);
	unlink(victim);
	rmdir(dir);
}
END_TEST

/* A capture that cannot be written: stop() says -ENOSPC, and the print function once why. */
START_TEST(test_record_write_fails)
{
	char *argv[] = { IPCWORK_PATH, "pipe", NULL };
	IPCPERF_OPTS(ipcperf_session_opts, opts, .argv = argv);
	struct ipcperf_session *s;
	int status = -1;

	s = ipcperf_session__new(&opts);
	ck_assert_msg(s != NULL, "ipcperf_session__new: %s", strerror(errno));
	keep_print();	/* a write may fail, and be said, during the run */
	ck_assert_int_eq(ipcperf_session__record(s, "/dev/full"), 0);
	ck_assert_int_eq(ipcperf_session__start(s), 0);
	drive_with_poll(s);
	ck_assert_int_eq(ipcperf_session__stop(s), -ENOSPC);
	ck_assert_int_eq(ipcperf_session__stop(s), 0);	/* idempotent: said once */
	setup();
	ck_assert_msg(nr_capture_lines == 1 &&
		      strstr(printed, "cannot write the capture to /dev/full: "
			     "No space left on device\n"),
		      "the print function was told (%u lines on the capture): %s",
		      nr_capture_lines, printed);
	ck_assert_int_eq(ipcperf_session__wait_child(s, &status), 0);
	ck_assert(WIFEXITED(status));
	ipcperf_session__delete(s);
}
END_TEST

static bool fd_is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

/*
 * ipcperf_session__record_fd(): the capture goes into the file the caller
 * opened (made 0600), which the session owns from the call on: closed at
 * delete, and at once when it is refused (-EBUSY, -ESPIPE, a replay).
 */
START_TEST(test_record_fd)
{
	char dir[] = "/tmp/ipcperf-recfd.XXXXXX", path[64];
	char *argv[] = { IPCWORK_PATH, "pipe", NULL };
	IPCPERF_OPTS(ipcperf_session_opts, opts, .argv = argv);
	struct ipcperf_session_stats st = { .sz = sizeof(st) }, live = { .sz = sizeof(live) };
	struct ipcperf_session *s, *r;
	struct stat sb;
	int fd, other, p[2], status = -1;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/cap.data", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fchmod(fd, 0644), 0);
	s = ipcperf_session__new(&opts);
	ck_assert_msg(s != NULL, "ipcperf_session__new: %s", strerror(errno));
	ck_assert_int_eq(ipcperf_session__record_fd(s, -1, path), -EBADF);
	ck_assert_int_eq(ipcperf_session__record_fd(s, fd, path), 0);
	ck_assert(fd_is_open(fd));
	ck_assert_int_eq(fstat(fd, &sb), 0);
	ck_assert_uint_eq(sb.st_mode & 07777, 0600);
	/* A second capture is refused, and its file closed. */
	other = open("/dev/null", O_WRONLY | O_CLOEXEC);
	ck_assert_int_ge(other, 0);
	ck_assert_int_eq(ipcperf_session__record_fd(s, other, "/dev/null"), -EBUSY);
	ck_assert(!fd_is_open(other));
	ck_assert_int_eq(ipcperf_session__start(s), 0);
	drive_with_poll(s);
	ck_assert_int_ge(ipcperf_session__stop(s), 0);
	ck_assert_int_eq(ipcperf_session__wait_child(s, &status), 0);
	ck_assert_int_eq(ipcperf_session__stats(s, &live), 0);
	ipcperf_session__delete(s);
	ck_assert(!fd_is_open(fd));

	/* It is the capture of the run: the same calls, replayed. */
	r = ipcperf_session__open_file(path, NULL);
	ck_assert_msg(r != NULL, "ipcperf_session__open_file: %s", strerror(errno));
	ck_assert_int_eq(ipcperf_session__start(r), 0);
	while (!ipcperf_session__done(r))
		ck_assert_int_ge(ipcperf_session__consume(r), 0);
	ck_assert_int_eq(ipcperf_session__stats(r, &st), 0);
	ck_assert_uint_gt(live.syscalls, 0);
	ck_assert_uint_eq(st.syscalls, live.syscalls);
	ipcperf_session__delete(r);

	/* Not seekable: -ESPIPE, said, and closed. */
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	s = ipcperf_session__new(&opts);
	ck_assert_msg(s != NULL, "ipcperf_session__new: %s", strerror(errno));
	keep_print();
	ck_assert_int_eq(ipcperf_session__record_fd(s, p[1], "the pipe"), -ESPIPE);
	setup();
	ck_assert_msg(strstr(printed, "cannot write the capture to the pipe: a capture must be a "
			     "seekable file"), "the print function was told: %s", printed);
	ck_assert(!fd_is_open(p[1]));
	ipcperf_session__delete(s);
	close(p[0]);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* The rows of one (pid, fd), for test_fd_changed_before_start. */
struct fd_seen {
	pid_t pid;
	int fd;
	char object[256];
	uint64_t ops, bytes;
	unsigned int rows;
};

static int seen_row(void *ctx, const struct ipcperf_fd_row *r)
{
	struct fd_seen *f = ctx;

	if (r->pid == f->pid && r->fd == f->fd) {
		snprintf(f->object, sizeof(f->object), "%s", r->object);
		f->ops = r->read.ops;
		f->bytes = r->read.bytes;
		f->rows++;
	}
	return 0;
}

/*
 * A process attached with -p changes an fd after the accounting is attached
 * and before the events are on (opening them takes a second when the BPF
 * program loads): fd 70, a pipe when attached, is /etc/hostname when read.
 * The row names what was read, never the pipe it had been.
 */
START_TEST(test_fd_changed_before_start)
{
	int ctl[2], ack[2], p[2];
	struct fd_seen f = { .fd = 70 };
	struct ipcperf_session *s;
	struct ipcperf_stats *st;
	uint64_t deadline;
	pid_t child;
	char c;

	ck_assert_int_eq(pipe(ctl), 0);
	ck_assert_int_eq(pipe(ack), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		char buf[256];
		int fd;

		if (pipe(p) < 0 || dup2(p[0], 70) < 0 || write(ack[1], "r", 1) != 1 ||
		    read(ctl[0], &c, 1) != 1)		/* 's': swap */
			_exit(1);
		fd = open("/etc/hostname", O_RDONLY);
		if (fd < 0 || dup2(fd, 70) < 0 || close(fd) < 0 || write(ack[1], "k", 1) != 1 ||
		    read(ctl[0], &c, 1) != 1)		/* 'g': read */
			_exit(1);
		if (read(70, buf, sizeof(buf)) < 0 || read(ctl[0], &c, 1) != 1)	/* 'q' */
			_exit(1);
		_exit(0);
	}
	f.pid = child;
	ck_assert_int_eq(read(ack[0], &c, 1), 1);
	s = ipcperf_session__new(&(struct ipcperf_session_opts){
		.sz = sizeof(struct ipcperf_session_opts), .pids = &child, .nr_pids = 1 });
	ck_assert_msg(s != NULL, "ipcperf_session__new: %s", strerror(errno));
	st = ipcperf_stats__new(NULL);
	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(ipcperf_stats__attach(st, s), 0);
	/* the change, after the attach, before the start */
	ck_assert_int_eq(write(ctl[1], "s", 1), 1);
	ck_assert_int_eq(read(ack[0], &c, 1), 1);
	ck_assert_int_eq(ipcperf_session__start(s), 0);
	ck_assert_int_eq(write(ctl[1], "g", 1), 1);
	/* the read is seen while the process lives */
	deadline = mono_ns() + 2000000000ull;
	while (mono_ns() < deadline) {
		ck_assert_int_ge(ipcperf_session__poll(s, 50), 0);
		f.rows = 0;
		ck_assert_int_eq(ipcperf_stats__for_each_fd(st, seen_row, &f), 0);
		if (f.rows && f.ops)
			break;
	}
	ck_assert_int_eq(write(ctl[1], "q", 1), 1);
	drive_with_poll(s);
	ck_assert_int_ge(ipcperf_session__stop(s), 0);
	f.rows = 0;
	ck_assert_int_eq(ipcperf_stats__for_each_fd(st, seen_row, &f), 0);
	ck_assert_uint_eq(f.rows, 1);
	ck_assert_str_eq(f.object, "/etc/hostname");
	ck_assert_uint_eq(f.ops, 1);
	ipcperf_stats__delete(st);
	ipcperf_session__delete(s);
	ck_assert_int_eq(waitpid(child, NULL, 0), child);
	close(ctl[0]);
	close(ctl[1]);
	close(ack[0]);
	close(ack[1]);
}
END_TEST

Suite *engine_suite(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("live");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_pipe_command, 0, (int)(sizeof(scopes) / sizeof(scopes[0])));
	tcase_add_loop_test(tc, test_pipe_own_poll, 0, (int)(sizeof(scopes) / sizeof(scopes[0])));
	tcase_add_loop_test(tc, test_existing_threads, 0, (int)(sizeof(scopes) / sizeof(scopes[0])));
	tcase_add_loop_test(tc, test_task_events, 0, (int)(sizeof(scopes) / sizeof(scopes[0])));
	tcase_add_loop_test(tc, test_poll_at_exit, 0, (int)(sizeof(scopes) / sizeof(scopes[0])));
	tcase_add_test(tc, test_exec_fails);
	tcase_add_test(tc, test_pid_does_not_exist);
	tcase_add_loop_test(tc, test_pid_repeated, 0, (int)(sizeof(scopes) / sizeof(scopes[0])));
	tcase_add_test(tc, test_record_no_follow);
	tcase_add_test(tc, test_record_write_fails);
	tcase_add_test(tc, test_record_fd);
	tcase_add_test(tc, test_fd_changed_before_start);
	suite_add_tcase(s, tc);
	return s;
}
