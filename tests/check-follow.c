/*
 * Unit tests of follow.c: which tasks a CPU-scope session keeps records of,
 * as fork, exec and exit records arrive; the table under many tasks and
 * tombstones; the check against /proc after lost records.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <check.h>

#include "internal.h"
#include "suites.h"

static struct ipp_follow *new_follow(void)
{
	struct ipp_follow *f = ipp_follow__new();

	ck_assert_ptr_nonnull(f);
	return f;
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
	ck_assert(ipp_follow__has(f, 500));
	ck_assert_uint_eq(ipp_follow__count(f), 1);
	ipp_follow__exit(f, 500);
	ck_assert(ipp_follow__done(f));
	ipp_follow__delete(f);
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
	ck_assert(ipp_follow__has(f, 700));
	ck_assert(!ipp_follow__has(f, 702));
	ck_assert_uint_eq(ipp_follow__count(f), 1);
	ipp_follow__exit(f, 700);
	ck_assert(ipp_follow__done(f));
	ipp_follow__delete(f);
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

/* After lost records: tasks /proc no longer has go, the started command comes in. */
START_TEST(test_prune)
{
	struct ipp_follow *f = new_follow();
	pid_t me = getpid(), gone = 4000000;

	while (gone > 1 && access("/proc/self", F_OK) == 0 && kill(gone, 0) == 0)
		gone--;
	ck_assert_int_eq(ipp_follow__add(f, me, me), 0);
	ck_assert_int_eq(ipp_follow__add(f, gone, gone), 0);
	ipp_follow__expect_exec(f, 800);
	ck_assert_int_eq(ipp_follow__prune(f, false), 1);
	ck_assert(ipp_follow__has(f, me));
	ck_assert(!ipp_follow__has(f, gone));
	ck_assert(!ipp_follow__has(f, 800));
	ck_assert_int_eq(ipp_follow__prune(f, true), 1);
	ck_assert(ipp_follow__has(f, 800));
	ck_assert(!ipp_follow__done(f));
	ipp_follow__delete(f);
}
END_TEST

/*
 * A target whose exit record was lost and that is a zombie (the command,
 * which the session reaps only once done() says so) is gone too: else
 * done() never comes and the session never ends.
 */
START_TEST(test_prune_zombie)
{
	struct ipp_follow *f = new_follow();
	siginfo_t si = { 0 };
	pid_t child = fork();

	ck_assert_int_ge(child, 0);
	if (child == 0)
		_exit(0);
	/* Exited, not reaped (WNOWAIT): a zombie. */
	ck_assert_int_eq(waitid(P_PID, (id_t)child, &si, WEXITED | WNOWAIT), 0);
	ck_assert_int_eq(ipp_follow__add(f, child, child), 0);
	ck_assert(!ipp_follow__done(f));
	ck_assert_int_eq(ipp_follow__prune(f, false), 1);
	ck_assert(!ipp_follow__has(f, child));
	ck_assert(ipp_follow__done(f));
	ck_assert_int_eq(waitpid(child, NULL, 0), child);
	ipp_follow__delete(f);
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
	tcase_add_test(tc, test_prune);
	tcase_add_test(tc, test_prune_zombie);
	suite_add_tcase(s, tc);
	return s;
}
