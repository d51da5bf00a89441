/*
 * Unit tests of follow.c: which tasks a CPU-scope session keeps records of,
 * as fork, exec and exit records arrive; the table under many tasks and
 * tombstones; the checks against /proc, with real processes, for when
 * those records were lost.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>
#include <check.h>

#include "internal.h"
#include "suites.h"
#include "pipeline/follow.h"

static struct ipp_follow *new_follow(void)
{
	struct ipp_follow *f = ipp_follow__new();

	ck_assert_ptr_nonnull(f);
	return f;
}

/* @tid is the one target left: once it exits, @f is done (and deleted). */
static void last_target_exits(struct ipp_follow *f, pid_t tid)
{
	ck_assert(ipp_follow__has(f, tid));
	ck_assert_uint_eq(ipp_follow__count(f), 1);
	ipp_follow__exit(f, tid);
	ck_assert(ipp_follow__done(f));
	ipp_follow__delete(f);
}

START_TEST(test_pids_and_their_children)
{
	struct ipp_follow *f = new_follow();

	ck_assert(ipp_follow__done(f));
	ck_assert_int_eq(ipp_follow__add(f, 100, 100), 0);
	ck_assert_int_eq(ipp_follow__add(f, 101, 100), 0);
	ck_assert_int_eq(ipp_follow__add(f, 101, 100), 0);	/* twice: once */
	ck_assert_uint_eq(ipp_follow__count(f), 2);
	ck_assert(ipp_follow__has(f, 100));
	ck_assert(!ipp_follow__has(f, 102));
	ck_assert(!ipp_follow__has(f, 0));
	ck_assert(!ipp_follow__has(f, -1));
	ck_assert_int_eq(ipp_follow__add(f, 0, 0), -EINVAL);

	/* A thread and a process forked by targets are targets; others' children are not. */
	ck_assert_int_eq(ipp_follow__fork(f, 101, 102, 100), 0);
	ck_assert_int_eq(ipp_follow__fork(f, 100, 200, 200), 0);
	ck_assert_int_eq(ipp_follow__fork(f, 300, 301, 301), 0);
	ck_assert(ipp_follow__has(f, 102));
	ck_assert(ipp_follow__has(f, 200));
	ck_assert(!ipp_follow__has(f, 301));
	/* A grandchild too. */
	ck_assert_int_eq(ipp_follow__fork(f, 200, 201, 201), 0);
	ck_assert(ipp_follow__has(f, 201));
	ck_assert_uint_eq(ipp_follow__count(f), 5);

	/* Exits, in any order; a non-target's exit changes nothing. */
	ipp_follow__exit(f, 301);
	ipp_follow__exit(f, 100);
	ck_assert(!ipp_follow__has(f, 100));
	ck_assert(ipp_follow__has(f, 101));
	ipp_follow__exit(f, 101);
	ipp_follow__exit(f, 102);
	ipp_follow__exit(f, 200);
	ck_assert(!ipp_follow__done(f));
	ipp_follow__exit(f, 201);
	ipp_follow__exit(f, 201);
	ck_assert(ipp_follow__done(f));
	ck_assert_uint_eq(ipp_follow__count(f), 0);
	/* A tid reused by an unrelated task later is not a target. */
	ck_assert(!ipp_follow__has(f, 100));
	ipp_follow__delete(f);
}
END_TEST

START_TEST(test_command_from_its_exec)
{
	struct ipp_follow *f = new_follow();

	ipp_follow__expect_exec(f, 500);
	ck_assert(!ipp_follow__done(f));
	/* Before its exec, the command's own calls are not the command's. */
	ck_assert(!ipp_follow__has(f, 500));
	ck_assert_int_eq(ipp_follow__fork(f, 500, 501, 501), 0);
	ck_assert(!ipp_follow__has(f, 501));
	/* Another process's exec does not start it. */
	ck_assert_int_eq(ipp_follow__exec(f, 499, 499), 0);
	ck_assert(!ipp_follow__has(f, 499));
	ck_assert_int_eq(ipp_follow__exec(f, 500, 500), 0);
	last_target_exits(f, 500);
}
END_TEST

START_TEST(test_command_dies_before_exec)
{
	struct ipp_follow *f = new_follow();

	ipp_follow__expect_exec(f, 600);
	ipp_follow__exit(f, 600);
	ck_assert(ipp_follow__done(f));
	/* A later exec of that pid (reused) is nobody's. */
	ck_assert_int_eq(ipp_follow__exec(f, 600, 600), 0);
	ck_assert(!ipp_follow__has(f, 600));
	ipp_follow__delete(f);
}
END_TEST

/*
 * A thread that execs kills the others and takes its process's pid as tid:
 * the leader's exit record comes first, none for the thread's old tid.
 */
START_TEST(test_exec_in_a_thread)
{
	struct ipp_follow *f = new_follow();

	ck_assert_int_eq(ipp_follow__add(f, 700, 700), 0);
	ck_assert_int_eq(ipp_follow__fork(f, 700, 702, 700), 0);
	ck_assert_int_eq(ipp_follow__fork(f, 700, 703, 700), 0);
	ipp_follow__exit(f, 703);	/* killed by the exec */
	ipp_follow__exit(f, 700);	/* the leader, too */
	ck_assert_int_eq(ipp_follow__exec(f, 700, 700), 0);
	ck_assert(!ipp_follow__has(f, 702));
	last_target_exits(f, 700);
}
END_TEST

/* Many tasks come and go: the table grows and sweeps its tombstones, lookups stay right. */
START_TEST(test_many_tasks)
{
	struct ipp_follow *f = new_follow();

	ck_assert_int_eq(ipp_follow__add(f, 1, 1), 0);
	for (pid_t t = 2; t < 20000; t++) {
		ck_assert_int_eq(ipp_follow__fork(f, t - 1, t, t), 0);
		if (t % 3 == 0)
			ipp_follow__exit(f, t - 1);
	}
	for (pid_t t = 1; t < 20000; t++)
		ck_assert_msg(ipp_follow__has(f, t) == !((t + 1) % 3 == 0 && t + 1 < 20000),
			      "tid %d", (int)t);
	ck_assert_uint_eq(ipp_follow__count(f), 19999 - 6666);
	/* Short-lived tasks one after the other: tombstones, not growth without end. */
	for (pid_t t = 30000; t < 230000; t++) {
		ck_assert_int_eq(ipp_follow__fork(f, 1, t, t), 0);
		ipp_follow__exit(f, t);
	}
	ck_assert_uint_eq(ipp_follow__count(f), 19999 - 6666);
	ck_assert(ipp_follow__has(f, 19999));
	ck_assert(!ipp_follow__has(f, 229999));
	ipp_follow__delete(f);
}
END_TEST

/* A pid no task has now. */
static pid_t unused_pid(void)
{
	pid_t p = 4000000;

	while (p > 1 && kill(p, 0) == 0)
		p--;
	return p;
}

/* A child that exits at once and is not reaped: a zombie until reap(). */
static pid_t zombie(void)
{
	pid_t pid = fork();
	char path[64], buf[256];

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(0);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	/* Until its state is Z. */
	for (int i = 0; i < 2000; i++) {
		FILE *f = fopen(path, "re");
		char *p = NULL;

		if (f && fgets(buf, sizeof(buf), f))
			p = strrchr(buf, ')');
		if (f)
			fclose(f);
		if (p && p[2] == 'Z')
			return pid;
		usleep(1000);
	}
	ck_abort_msg("child %d never became a zombie", (int)pid);
	return -1;
}

static void reap(pid_t pid)
{
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
}

/*
 * Exit records lost: a zombie, and a task /proc no longer has, are gone from
 * the check on, but stay targets until the records before it are delivered.
 */
START_TEST(test_check_gone)
{
	struct ipp_follow *f = new_follow();
	pid_t me = getpid(), gone = unused_pid(), z = zombie();

	ck_assert_int_eq(ipp_follow__add(f, me, me), 0);
	ck_assert_int_eq(ipp_follow__add(f, gone, gone), 0);
	ck_assert_int_eq(ipp_follow__add(f, z, z), 0);
	ck_assert_int_eq(ipp_follow__check(f, 1000, false, false), 2);
	ck_assert(ipp_follow__has(f, gone));
	ck_assert(ipp_follow__has(f, z));
	/* Marked once: a later check finds nothing new. */
	ck_assert_int_eq(ipp_follow__check(f, 2000, false, false), 0);
	ck_assert_int_eq(ipp_follow__expire(f, 999), 0);
	ck_assert_uint_eq(ipp_follow__count(f), 3);
	ck_assert_int_eq(ipp_follow__expire(f, 1000), 2);
	ck_assert(!ipp_follow__has(f, gone));
	ck_assert(!ipp_follow__has(f, z));
	ck_assert(ipp_follow__has(f, me));
	ipp_follow__exit(f, me);
	ck_assert(ipp_follow__done(f));
	reap(z);
	ipp_follow__delete(f);
}
END_TEST

/* The command's exec record lost: once it is known to have exec'd, it is a target. */
START_TEST(test_check_command)
{
	struct ipp_follow *f = new_follow();
	pid_t me = getpid();

	ipp_follow__expect_exec(f, me);
	ck_assert_int_eq(ipp_follow__check(f, 10, false, false), 0);
	ck_assert(!ipp_follow__has(f, me));
	ck_assert(!ipp_follow__done(f));
	ck_assert_int_eq(ipp_follow__check(f, 20, false, true), 1);
	ck_assert(ipp_follow__has(f, me));
	ipp_follow__delete(f);
}
END_TEST

static void *park(void *arg)
{
	int *fd = arg;
	char b;

	/* Until the test closes the pipe. */
	while (read(*fd, &b, 1) > 0)
		;
	return NULL;
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static pid_t thread_tid;

static void *note_tid(void *arg)
{
	thread_tid = gettid_();
	return park(arg);
}

/* A thread of ours parked on *@fd: once this returns, thread_tid is its tid. */
static void start_noted_thread(pthread_t *th, int *fd)
{
	thread_tid = 0;
	ck_assert_int_eq(pthread_create(th, NULL, note_tid, fd), 0);
	while (!__atomic_load_n(&thread_tid, __ATOMIC_SEQ_CST))
		usleep(1000);
}

/* A child process parked on the pipe @fds until the test closes its write end. */
static pid_t fork_parked(int fds[2])
{
	pid_t child = fork();

	ck_assert_int_ge(child, 0);
	if (child == 0) {
		close(fds[1]);
		park(&fds[0]);
		_exit(0);
	}
	return child;
}

/*
 * Fork records lost: a deep check finds the threads of a target process and
 * the processes a target made after the capture started.
 */
START_TEST(test_check_deep)
{
	struct ipp_follow *f = new_follow();
	pid_t me = getpid(), child;
	pthread_t th;
	int fds[2];

	ck_assert_int_eq(pipe(fds), 0);
	start_noted_thread(&th, &fds[0]);
	child = fork_parked(fds);
	/* Everything started before: a thread comes in, not the child process. */
	ipp_follow__set_start(f, UINT64_MAX);
	ck_assert_int_eq(ipp_follow__add(f, me, me), 0);
	ck_assert_int_eq(ipp_follow__check(f, 5, false, false), 0);
	ck_assert(!ipp_follow__has(f, thread_tid));
	ck_assert_int_ge(ipp_follow__check(f, 5, true, false), 1);
	ck_assert(ipp_follow__has(f, thread_tid));
	ck_assert(!ipp_follow__has(f, child));
	/* Made during the capture: the child is a target's. */
	ipp_follow__set_start(f, 0);
	ck_assert_int_ge(ipp_follow__check(f, 6, true, false), 1);
	ck_assert(ipp_follow__has(f, child));
	close(fds[1]);
	pthread_join(th, NULL);
	reap(child);
	close(fds[0]);
	ipp_follow__delete(f);
}
END_TEST

/* Records of a task not in the set, after lost side-band records: /proc says whose. */
START_TEST(test_resolve)
{
	struct ipp_follow *f = new_follow();
	pid_t me = getpid(), target, child, other, gone = unused_pid();
	int fds[2], up[2];
	pthread_t th;

	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(pipe(up), 0);
	/* target forks child; other is a sibling of target: not a target's. */
	target = fork();
	ck_assert_int_ge(target, 0);
	if (target == 0) {
		pid_t c;

		close(fds[1]);
		c = fork();
		if (c == 0) {
			park(&fds[0]);
			_exit(0);
		}
		if (write(up[1], &c, sizeof(c)) != sizeof(c))
			_exit(1);
		park(&fds[0]);
		waitpid(c, NULL, 0);
		_exit(0);
	}
	ck_assert_int_eq(read(up[0], &child, sizeof(child)), (ssize_t)sizeof(child));
	other = fork_parked(fds);
	start_noted_thread(&th, &fds[0]);

	ck_assert_int_eq(ipp_follow__add(f, target, target), 0);
	ck_assert_int_eq(ipp_follow__add(f, me, me), 0);
	ipp_follow__set_start(f, 0);
	ck_assert_int_eq(ipp_follow__resolve(f, target, false), IPP_FOLLOW_TARGET);
	/* A thread of a target process. */
	ck_assert_int_eq(ipp_follow__resolve(f, thread_tid, false), IPP_FOLLOW_TARGET);
	ck_assert(ipp_follow__has(f, thread_tid));
	/* A process with a target among its parents. */
	ck_assert_int_eq(ipp_follow__resolve(f, child, false), IPP_FOLLOW_TARGET);
	ck_assert(ipp_follow__has(f, child));
	ck_assert_int_eq(ipp_follow__resolve(f, gone, false), IPP_FOLLOW_UNKNOWN);
	/* pid 1's parents hold no target: another's, and remembered as such. */
	ck_assert_int_eq(ipp_follow__resolve(f, 1, false), IPP_FOLLOW_OTHER);
	ck_assert_int_eq(ipp_follow__resolve(f, 1, false), IPP_FOLLOW_OTHER);
	ck_assert(!ipp_follow__has(f, 1));
	/* other's parent is a target (this process): made during the capture, it is one too. */
	ck_assert_int_eq(ipp_follow__resolve(f, other, false), IPP_FOLLOW_TARGET);
	ipp_follow__delete(f);

	/* Started before the capture, with no target thread of its own: another's. */
	f = new_follow();
	ck_assert_int_eq(ipp_follow__add(f, me, me), 0);
	ipp_follow__set_start(f, UINT64_MAX - 1);
	ck_assert_int_eq(ipp_follow__resolve(f, other, false), IPP_FOLLOW_OTHER);
	ck_assert(!ipp_follow__has(f, other));
	/* The command whose exec record was lost. */
	ipp_follow__expect_exec(f, target);
	ck_assert_int_eq(ipp_follow__resolve(f, target, false), IPP_FOLLOW_OTHER);
	ipp_follow__delete(f);
	f = new_follow();
	ipp_follow__expect_exec(f, target);
	ck_assert_int_eq(ipp_follow__resolve(f, target, true), IPP_FOLLOW_TARGET);
	ck_assert(ipp_follow__has(f, target));
	ipp_follow__delete(f);

	close(fds[1]);
	pthread_join(th, NULL);
	reap(target);
	reap(other);
	close(fds[0]);
	close(up[0]);
	close(up[1]);
}
END_TEST

Suite *follow_suite(void)
{
	Suite *s = suite_create("follow");
	TCase *tc = tcase_create("targets");

	tcase_add_test(tc, test_pids_and_their_children);
	tcase_add_test(tc, test_command_from_its_exec);
	tcase_add_test(tc, test_command_dies_before_exec);
	tcase_add_test(tc, test_exec_in_a_thread);
	tcase_add_test(tc, test_many_tasks);
	tcase_add_test(tc, test_check_gone);
	tcase_add_test(tc, test_check_command);
	tcase_add_test(tc, test_check_deep);
	tcase_add_test(tc, test_resolve);
	suite_add_tcase(s, tc);
	return s;
}
