/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Loss under load, end to end through the public API: a workload whose
 * calls are known exactly (tests/scwork writes: threads that come and go,
 * each making one-byte writes to /dev/null) is traced while another process
 * floods the same tracepoints, with the default rings and with rings of one
 * page. Records are lost, the
 * side-band ones (forks, exits) among them. Whatever is lost:
 *  - the session ends, in bounded time (a test fails rather than hangs);
 *  - nothing goes missing uncounted: writes delivered + records lost is at
 *    least the writes made;
 *  - no call of the other process is delivered;
 * in both scopes, for a command and for a process attached with -p.
 * Needs root; check-live.c decides whether to run.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ipcperf/ipcperf.h>

#include "check-helpers.h"
#include "suites.h"

#ifndef SCWORK_PATH
#error "SCWORK_PATH must name the built tests/scwork"
#endif

#define THREADS 200
#define EACH 100
#define MADE ((uint64_t)THREADS * EACH)
/* A run takes well under a second; a session that has not ended by then hangs. */
#define DEADLINE_NS (20ull * 1000000000ull)
#define ROUNDS 3

/* The default rings (moderate loss), and rings of one page (the side-band ones overflow too). */
static const unsigned int ring_pages[] = { 0, 1 };

static const unsigned int scopes[] = { IPCPERF_SCOPE_CPU, IPCPERF_SCOPE_TASK };
/* Loop index @i: a scope and a ring size. */
#define SCOPE(i) scopes[(i) % 2]
#define PAGES(i) ring_pages[(i) / 2]

struct tally {
	pid_t pid;		/* the workload */
	pid_t noise;		/* the other process */
	uint64_t writes;	/* the workload's one-byte writes delivered */
	uint64_t noise_calls;	/* calls of the other process delivered: must stay 0 */
	uint64_t lost_told;	/* what the lost handler was told */
};

static void on_syscall(void *ctx, const struct ipcperf_syscall *ev)
{
	struct tally *t = ctx;

	if (ev->pid == t->noise)
		t->noise_calls++;
	if (ev->pid == t->pid && ev->cls == IPCPERF_SC_WRITE && ev->ret == 1 && ev->count == 1)
		t->writes++;
}

static void on_lost(void *ctx, const struct ipcperf_lost *ev)
{
	((struct tally *)ctx)->lost_told += ev->lost;
}

/* What dd bs=1 does: one-byte writes as fast as it can, on the tracepoints the session opens. */
static pid_t start_flood(void)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		for (;;)
			if (syscall(SYS_write, fd, "x", 1) != 1)
				_exit(1);
	}
	return pid;
}

static void stop_child(pid_t pid, int sig)
{
	int status;

	if (sig)
		kill(pid, sig);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	if (!sig)
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "scwork failed (wait status 0x%x)", (unsigned int)status);
}

/* Drive @s until done, within the deadline; then stop. */
static void drive(struct ipcperf_session *s)
{
	uint64_t deadline = mono_ns() + DEADLINE_NS;

	while (!ipcperf_session__done(s)) {
		int n = ipcperf_session__poll(s, 100);

		ck_assert_msg(n >= 0 || n == -EINTR, "poll: %s", strerror(-n));
		ck_assert_msg(mono_ns() < deadline,
			      "the session did not end %llu s after its targets could have: a hang",
			      DEADLINE_NS / 1000000000ull);
	}
	ck_assert_int_ge(ipcperf_session__stop(s), 0);
}

static void check_tally(const struct ipcperf_session *s, const struct tally *t, unsigned int scope)
{
	IPCPERF_OPTS(ipcperf_session_stats, st);

	ck_assert_int_eq(ipcperf_session__stats(s, &st), 0);
	ck_assert_uint_eq(st.scope, scope);
	ck_assert_uint_eq(t->noise_calls, 0);
	ck_assert_uint_le(t->writes, MADE);
	ck_assert_msg(t->writes + st.lost >= MADE,
		      "%llu writes made, %llu delivered and %llu records lost (%llu unattributed): "
		      "a loss went uncounted", (unsigned long long)MADE,
		      (unsigned long long)t->writes, (unsigned long long)st.lost,
		      (unsigned long long)st.unattributed);
	/* What the handlers were told adds up to what the stats say. */
	ck_assert_uint_eq(t->lost_told, st.lost);
	ck_assert_uint_le(st.unattributed, st.lost);
	if (getenv("IPCPERF_TEST_DEBUG"))
		fprintf(stderr, "scope %u: %llu of %llu writes, %llu lost, %llu unattributed\n",
			scope, (unsigned long long)t->writes, (unsigned long long)MADE,
			(unsigned long long)st.lost, (unsigned long long)st.unattributed);
}

static struct ipcperf_session *new_session(const struct ipcperf_session_opts *o, struct tally *t)
{
	IPCPERF_OPTS(ipcperf_handlers, h, .ctx = t, .syscall = on_syscall, .lost = on_lost);
	struct ipcperf_session *s = ipcperf_session__new(o);

	ck_assert_msg(s != NULL, "ipcperf_session__new: %s", strerror(errno));
	ck_assert_int_eq(ipcperf_session__add_handlers(s, &h), 0);
	return s;
}

/* stat's events. */
#define EVENTS (IPCPERF_EV_IO | IPCPERF_EV_FDS | IPCPERF_EV_RAW_FILTER | IPCPERF_EV_SCHED | \
		IPCPERF_EV_TASK)

START_TEST(test_command_under_flood)
{
	char *argv[] = { SCWORK_PATH, "writes", "200", "100", NULL };
	unsigned int scope = SCOPE(_i);

	for (int round = 0; round < ROUNDS; round++) {
		IPCPERF_OPTS(ipcperf_session_opts, o, .argv = argv, .ring_pages = PAGES(_i),
			     .events = EVENTS, .scope = scope);
		struct tally t = { .noise = start_flood() };
		struct ipcperf_session *s = new_session(&o, &t);
		int status = -1;

		t.pid = ipcperf_session__child_pid(s);
		ck_assert_int_eq(ipcperf_session__start(s), 0);
		drive(s);
		stop_child(t.noise, SIGKILL);
		ck_assert_int_eq(ipcperf_session__wait_child(s, &status), 0);
		ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		check_tally(s, &t, scope);
		ipcperf_session__delete(s);
	}
}
END_TEST

START_TEST(test_pid_under_flood)
{
	unsigned int scope = SCOPE(_i);

	for (int round = 0; round < ROUNDS; round++) {
		struct tally t = { .noise = start_flood() };
		struct ipcperf_session *s;
		int go[2];

		ck_assert_int_eq(pipe2(go, O_CLOEXEC), 0);
		t.pid = fork();
		ck_assert_int_ge(t.pid, 0);
		if (t.pid == 0) {
			dup2(go[0], 0);
			execl(SCWORK_PATH, SCWORK_PATH, "writes", "200", "100", "go", (char *)NULL);
			_exit(127);
		}
		close(go[0]);
		{
			IPCPERF_OPTS(ipcperf_session_opts, o, .pids = &t.pid, .nr_pids = 1,
				     .ring_pages = PAGES(_i), .events = EVENTS, .scope = scope);
			/* Attach only once it has exec'd: its one thread is then waiting for go. */
			for (int i = 0; i < 1000; i++) {
				char exe[64], link[256];
				ssize_t n;

				snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)t.pid);
				n = readlink(exe, link, sizeof(link) - 1);
				if (n > 0 && (link[n] = '\0', strstr(link, "scwork")))
					break;
				usleep(1000);
			}
			s = new_session(&o, &t);
		}
		ck_assert_int_eq(ipcperf_session__start(s), 0);
		ck_assert_int_eq(write(go[1], "g", 1), 1);
		close(go[1]);
		drive(s);
		stop_child(t.pid, 0);
		stop_child(t.noise, SIGKILL);
		check_tally(s, &t, scope);
		ipcperf_session__delete(s);
	}
}
END_TEST

Suite *loss_suite(void)
{
	Suite *s = suite_create("loss");
	TCase *tc = tcase_create("flood");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_command_under_flood, 0, 4);
	tcase_add_loop_test(tc, test_pid_under_flood, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}
