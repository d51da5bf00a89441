/*
 * Unit tests of pair.c: sys_enter/sys_exit paired per thread into completed
 * syscalls, unpaired records counted, time switched out inside a call.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <check.h>

#include "internal.h"
#include "suites.h"
#include "syscalls.h"
#include "pipeline/pair.h"

static const struct ipp_scdesc *sc(const char *name)
{
	const struct ipp_scdesc *d = ipp_scdesc_by_name(name);

	ck_assert_ptr_nonnull(d);
	return d;
}

static void enter(struct ipp_pairer *p, uint64_t t, pid_t pid, pid_t tid, const char *name,
		  const uint64_t *args, unsigned int nr_args)
{
	const struct ipp_scdesc *d = sc(name);

	ipp_pairer__enter(p, t, pid, tid, d, d->nr, args, nr_args);
}

static bool leave(struct ipp_pairer *p, uint64_t t, pid_t pid, pid_t tid, int cpu,
		  const char *name, int64_t ret, struct ipcperf_syscall *out)
{
	memset(out, 0xa5, sizeof(*out));
	return ipp_pairer__exit(p, t, pid, tid, cpu, sc(name)->nr, ret, out);
}

static struct ipp_pairer *new_pairer(void)
{
	struct ipp_pairer *p = ipp_pairer__new();

	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(ipp_pairer__unpaired_enter(p), 0);
	ck_assert_uint_eq(ipp_pairer__unpaired_exit(p), 0);
	return p;
}

/* @p counted @enters enters and @exits exits left without their other side; deleted. */
static void delete_pairer_after(struct ipp_pairer *p, uint64_t enters, uint64_t exits)
{
	ck_assert_uint_eq(ipp_pairer__unpaired_enter(p), enters);
	ck_assert_uint_eq(ipp_pairer__unpaired_exit(p), exits);
	ipp_pairer__delete(p);
}

/* The descriptors these tests rely on. */
START_TEST(test_descriptors)
{
	const struct ipp_scdesc *w = sc("write"), *r = sc("read"), *m = sc("sendmmsg"),
				*c = sc("close");

	ck_assert_int_eq(w->nr, __NR_write);
	ck_assert_int_eq(w->cls, IPCPERF_SC_WRITE);
	ck_assert_int_eq(w->fd_arg, 0);
	ck_assert_int_eq(w->count_arg, 2);
	ck_assert_int_eq(r->nr, __NR_read);
	ck_assert_int_eq(r->cls, IPCPERF_SC_READ);
	ck_assert_int_eq(m->nr, __NR_sendmmsg);
	ck_assert(m->ret_is_msgs);
	ck_assert_int_eq(m->count_arg, 2);	/* vlen */
	ck_assert_int_eq(c->cls, IPCPERF_SC_FD_CLOSE);
	ck_assert_int_eq(c->count_arg, -1);
	ck_assert_ptr_eq(ipp_scdesc_by_nr(__NR_write), w);
	ck_assert_ptr_null(ipp_scdesc_by_name("frobnicate"));
}
END_TEST

START_TEST(test_enter_exit)
{
	struct ipp_pairer *p = new_pairer();
	const uint64_t args[3] = { 4, 0x00007ffd00001000ull, 8192 };
	struct ipcperf_syscall ev;

	enter(p, 1000, 50, 51, "write", args, 3);
	ck_assert(leave(p, 1750, 50, 51, 2, "write", 8192, &ev));
	ck_assert_uint_eq(ev.start_ns, 1000);
	ck_assert_uint_eq(ev.end_ns, 1750);
	ck_assert_int_eq(ev.pid, 50);
	ck_assert_int_eq(ev.tid, 51);
	ck_assert_int_eq(ev.cpu, 2);
	ck_assert_int_eq(ev.nr, __NR_write);
	ck_assert_str_eq(ev.name, "write");
	ck_assert_int_eq(ev.cls, IPCPERF_SC_WRITE);
	ck_assert_int_eq(ev.fd, 4);
	ck_assert_uint_eq(ev.count, 8192);
	ck_assert_int_eq(ev.ret, 8192);
	ck_assert_uint_eq(ev.nr_args, 3);
	ck_assert_uint_eq(ev.args[0], 4);
	ck_assert_uint_eq(ev.args[1], 0x00007ffd00001000ull);
	ck_assert_uint_eq(ev.args[2], 8192);
	ck_assert(!ev.ret_is_msgs);
	ck_assert_uint_eq(ev.switches, 0);
	ck_assert_uint_eq(ev.off_cpu_ns, 0);
	ck_assert_uint_eq(ipp_pairer__unpaired_enter(p), 0);
	ck_assert_uint_eq(ipp_pairer__unpaired_exit(p), 0);

	/* the call is closed: a second exit has nothing to pair with */
	ck_assert(!leave(p, 1800, 50, 51, 2, "write", 0, &ev));
	ck_assert_uint_eq(ipp_pairer__unpaired_exit(p), 1);
	ipp_pairer__delete(p);
	ipp_pairer__delete(NULL);
}
END_TEST

/* fd and count come from the descriptor's argument indexes, or -1 / 0. */
START_TEST(test_fd_and_count)
{
	struct ipp_pairer *p = new_pairer();
	const uint64_t mm[4] = { 6, 0x7000, 32, 0 };
	const uint64_t cl[1] = { 9 };
	const uint64_t err[3] = { 3, 0x1000, 100 };
	struct ipcperf_syscall ev;

	enter(p, 10, 7, 7, "sendmmsg", mm, 4);
	ck_assert(leave(p, 20, 7, 7, 0, "sendmmsg", 17, &ev));
	ck_assert_str_eq(ev.name, "sendmmsg");
	ck_assert_int_eq(ev.cls, IPCPERF_SC_WRITE);
	ck_assert_int_eq(ev.fd, 6);
	ck_assert_uint_eq(ev.count, 32);
	ck_assert_int_eq(ev.ret, 17);
	ck_assert(ev.ret_is_msgs);
	ck_assert_uint_eq(ev.nr_args, 4);
	ck_assert_uint_eq(ev.args[3], 0);

	enter(p, 30, 7, 7, "close", cl, 1);
	ck_assert(leave(p, 31, 7, 7, 1, "close", 0, &ev));
	ck_assert_str_eq(ev.name, "close");
	ck_assert_int_eq(ev.cls, IPCPERF_SC_FD_CLOSE);
	ck_assert_int_eq(ev.fd, 9);
	ck_assert_uint_eq(ev.count, 0);
	ck_assert_int_eq(ev.ret, 0);
	ck_assert_uint_eq(ev.nr_args, 1);
	ck_assert_uint_eq(ev.args[0], 9);

	/* a failed call is still a completed call */
	enter(p, 40, 7, 7, "read", err, 3);
	ck_assert(leave(p, 41, 7, 7, 1, "read", -9 /* -EBADF */, &ev));
	ck_assert_str_eq(ev.name, "read");
	ck_assert_int_eq(ev.cls, IPCPERF_SC_READ);
	ck_assert_int_eq(ev.fd, 3);
	ck_assert_uint_eq(ev.count, 100);
	ck_assert_int_eq(ev.ret, -9);

	/* a call without an fd argument */
	if (ipp_scdesc_by_name("pipe2")) {
		const uint64_t pa[2] = { 0x7ffc0000, 0 };

		enter(p, 50, 7, 7, "pipe2", pa, 2);
		ck_assert(leave(p, 52, 7, 7, 1, "pipe2", 0, &ev));
		ck_assert_int_eq(ev.cls, IPCPERF_SC_FD_PAIR);
		ck_assert_int_eq(ev.fd, -1);
		ck_assert_uint_eq(ev.count, 0);
	}
	delete_pairer_after(p, 0, 0);
}
END_TEST

START_TEST(test_two_threads_interleaved)
{
	struct ipp_pairer *p = new_pairer();
	const uint64_t wa[3] = { 1, 0xa, 10 }, ra[3] = { 0, 0xb, 20 };
	struct ipcperf_syscall ev;

	enter(p, 100, 10, 11, "write", wa, 3);
	enter(p, 110, 10, 12, "read", ra, 3);
	ck_assert(leave(p, 130, 10, 12, 1, "read", 20, &ev));
	ck_assert_int_eq(ev.tid, 12);
	ck_assert_str_eq(ev.name, "read");
	ck_assert_uint_eq(ev.start_ns, 110);
	ck_assert_uint_eq(ev.end_ns, 130);
	ck_assert_int_eq(ev.fd, 0);
	ck_assert_uint_eq(ev.count, 20);
	ck_assert_int_eq(ev.ret, 20);
	ck_assert_int_eq(ev.cpu, 1);
	ck_assert(leave(p, 150, 10, 11, 0, "write", 10, &ev));
	ck_assert_int_eq(ev.tid, 11);
	ck_assert_str_eq(ev.name, "write");
	ck_assert_uint_eq(ev.start_ns, 100);
	ck_assert_uint_eq(ev.end_ns, 150);
	ck_assert_int_eq(ev.fd, 1);
	ck_assert_uint_eq(ev.count, 10);
	ck_assert_int_eq(ev.ret, 10);
	ck_assert_int_eq(ev.cpu, 0);
	delete_pairer_after(p, 0, 0);
}
END_TEST

START_TEST(test_exit_without_enter)
{
	struct ipp_pairer *p = new_pairer();
	struct ipcperf_syscall ev;

	ck_assert(!leave(p, 100, 1, 1, 0, "read", 5, &ev));
	delete_pairer_after(p, 0, 1);
}
END_TEST

/* The exit of the first enter was lost: the first is unpaired, the second pairs. */
START_TEST(test_enter_enter)
{
	struct ipp_pairer *p = new_pairer();
	const uint64_t a1[3] = { 3, 0x1, 1 }, a2[3] = { 4, 0x2, 2 };
	struct ipcperf_syscall ev;

	enter(p, 100, 1, 1, "read", a1, 3);
	enter(p, 200, 1, 1, "read", a2, 3);
	ck_assert_uint_eq(ipp_pairer__unpaired_enter(p), 1);
	ck_assert(leave(p, 250, 1, 1, 0, "read", 2, &ev));
	ck_assert_uint_eq(ev.start_ns, 200);
	ck_assert_uint_eq(ev.end_ns, 250);
	ck_assert_int_eq(ev.fd, 4);
	ck_assert_uint_eq(ev.count, 2);
	ck_assert_uint_eq(ev.args[1], 0x2);
	delete_pairer_after(p, 1, 0);
}
END_TEST

/* An exit of another syscall than the one open: both sides are unpaired, once. */
START_TEST(test_exit_other_nr)
{
	struct ipp_pairer *p = new_pairer();
	const uint64_t a[3] = { 3, 0x1, 1 };
	struct ipcperf_syscall ev;

	enter(p, 100, 1, 1, "read", a, 3);
	ck_assert(!leave(p, 150, 1, 1, 0, "write", 1, &ev));
	ck_assert_uint_eq(ipp_pairer__unpaired_enter(p), 1);
	ck_assert_uint_eq(ipp_pairer__unpaired_exit(p), 1);
	/* the read is gone: its late exit is unpaired, and flush finds nothing */
	ck_assert(!leave(p, 160, 1, 1, 0, "read", 1, &ev));
	ck_assert_uint_eq(ipp_pairer__unpaired_exit(p), 2);
	ipp_pairer__flush(p);
	ck_assert_uint_eq(ipp_pairer__unpaired_enter(p), 1);
	ipp_pairer__delete(p);
}
END_TEST

/* Switched out at 150..400 and 500..550 inside a call 100..600. */
START_TEST(test_off_cpu)
{
	struct ipp_pairer *p = new_pairer();
	const uint64_t a[3] = { 3, 0x1, 4096 };
	struct ipcperf_syscall ev;

	enter(p, 100, 1, 2, "read", a, 3);
	ipp_pairer__switch(p, 150, 2, true, false);
	ipp_pairer__switch(p, 400, 2, false, false);
	ipp_pairer__switch(p, 500, 2, true, true);	/* preempted */
	ipp_pairer__switch(p, 550, 2, false, false);
	ck_assert(leave(p, 600, 1, 2, 3, "read", 4096, &ev));
	ck_assert_uint_eq(ev.start_ns, 100);
	ck_assert_uint_eq(ev.end_ns, 600);
	ck_assert_uint_eq(ev.switches, 2);
	ck_assert_uint_eq(ev.off_cpu_ns, 300);
	/* 150..400 asleep, 500..550 preempted: only the first is blocked time. */
	ck_assert_uint_eq(ev.blocked_ns, 250);
	ipp_pairer__delete(p);
}
END_TEST

/* Switches of another thread, or outside any call, are not counted in a call. */
START_TEST(test_switch_outside_call)
{
	struct ipp_pairer *p = new_pairer();
	const uint64_t a[3] = { 3, 0x1, 1 };
	struct ipcperf_syscall ev;

	/* before any call, and on a thread the pairer never saw */
	ipp_pairer__switch(p, 10, 2, true, false);
	ipp_pairer__switch(p, 50, 2, false, false);
	ipp_pairer__switch(p, 60, 99, true, false);
	enter(p, 100, 1, 2, "read", a, 3);
	ipp_pairer__switch(p, 120, 3, true, false);	/* another thread */
	ipp_pairer__switch(p, 180, 3, false, false);
	ck_assert(leave(p, 200, 1, 2, 0, "read", 1, &ev));
	ck_assert_uint_eq(ev.switches, 0);
	ck_assert_uint_eq(ev.off_cpu_ns, 0);

	/* between two calls */
	ipp_pairer__switch(p, 300, 2, true, false);
	ipp_pairer__switch(p, 700, 2, false, false);
	enter(p, 800, 1, 2, "read", a, 3);
	ck_assert(leave(p, 900, 1, 2, 0, "read", 1, &ev));
	ck_assert_uint_eq(ev.switches, 0);
	ck_assert_uint_eq(ev.off_cpu_ns, 0);

	/* a call with switches, then one without: nothing carried over */
	enter(p, 1000, 1, 2, "read", a, 3);
	ipp_pairer__switch(p, 1010, 2, true, false);
	ipp_pairer__switch(p, 1090, 2, false, false);
	ck_assert(leave(p, 1100, 1, 2, 0, "read", 1, &ev));
	ck_assert_uint_eq(ev.switches, 1);
	ck_assert_uint_eq(ev.off_cpu_ns, 80);
	enter(p, 1200, 1, 2, "read", a, 3);
	ck_assert(leave(p, 1300, 1, 2, 0, "read", 1, &ev));
	ck_assert_uint_eq(ev.switches, 0);
	ck_assert_uint_eq(ev.off_cpu_ns, 0);
	delete_pairer_after(p, 0, 0);
}
END_TEST

/* Two threads blocked at once: each call gets only its own thread's time. */
START_TEST(test_off_cpu_two_threads)
{
	struct ipp_pairer *p = new_pairer();
	const uint64_t a[3] = { 3, 0x1, 1 };
	struct ipcperf_syscall ev;

	enter(p, 100, 1, 11, "read", a, 3);
	enter(p, 110, 1, 12, "write", a, 3);
	ipp_pairer__switch(p, 120, 11, true, false);
	ipp_pairer__switch(p, 130, 12, true, false);
	ipp_pairer__switch(p, 170, 12, false, false);
	ipp_pairer__switch(p, 220, 11, false, false);
	ck_assert(leave(p, 230, 1, 12, 0, "write", 1, &ev));
	ck_assert_int_eq(ev.tid, 12);
	ck_assert_uint_eq(ev.switches, 1);
	ck_assert_uint_eq(ev.off_cpu_ns, 40);
	ck_assert(leave(p, 240, 1, 11, 0, "read", 1, &ev));
	ck_assert_int_eq(ev.tid, 11);
	ck_assert_uint_eq(ev.switches, 1);
	ck_assert_uint_eq(ev.off_cpu_ns, 100);
	ipp_pairer__delete(p);
}
END_TEST

START_TEST(test_thread_exit)
{
	struct ipp_pairer *p = new_pairer();
	const uint64_t a[3] = { 3, 0x1, 1 };
	struct ipcperf_syscall ev;

	/* no open call: nothing to count */
	ipp_pairer__thread_exit(p, 5);
	ck_assert_uint_eq(ipp_pairer__unpaired_enter(p), 0);

	enter(p, 100, 5, 5, "read", a, 3);
	enter(p, 100, 5, 6, "read", a, 3);
	ipp_pairer__thread_exit(p, 5);
	ck_assert_uint_eq(ipp_pairer__unpaired_enter(p), 1);
	/* the other thread's call is untouched */
	ck_assert(leave(p, 200, 5, 6, 0, "read", 1, &ev));
	ck_assert_int_eq(ev.tid, 6);
	/* the dead thread's call is gone */
	ck_assert(!leave(p, 200, 5, 5, 0, "read", 1, &ev));
	ck_assert_uint_eq(ipp_pairer__unpaired_exit(p), 1);
	ipp_pairer__flush(p);
	ck_assert_uint_eq(ipp_pairer__unpaired_enter(p), 1);
	ipp_pairer__delete(p);
}
END_TEST

START_TEST(test_flush)
{
	struct ipp_pairer *p = new_pairer();
	const uint64_t a[3] = { 3, 0x1, 1 };
	struct ipcperf_syscall ev;

	for (pid_t tid = 1; tid <= 5; tid++)
		enter(p, 100 + (uint64_t)tid, 1, tid, "write", a, 3);
	ck_assert(leave(p, 200, 1, 3, 0, "write", 1, &ev));
	ipp_pairer__flush(p);
	ck_assert_uint_eq(ipp_pairer__unpaired_enter(p), 4);
	ck_assert_uint_eq(ipp_pairer__unpaired_exit(p), 0);
	/* nothing is open any more */
	ipp_pairer__flush(p);
	ck_assert_uint_eq(ipp_pairer__unpaired_enter(p), 4);
	ck_assert(!leave(p, 300, 1, 1, 0, "write", 1, &ev));
	ck_assert_uint_eq(ipp_pairer__unpaired_exit(p), 1);
	/* and the pairer still works */
	enter(p, 400, 1, 1, "write", a, 3);
	ck_assert(leave(p, 410, 1, 1, 0, "write", 1, &ev));
	ck_assert_uint_eq(ev.start_ns, 400);
	ipp_pairer__delete(p);
}
END_TEST

/* Many threads at once: the per-thread table grows, and removals keep lookups right. */
START_TEST(test_many_threads)
{
	enum { N = 10000 };
	struct ipp_pairer *p = new_pairer();
	struct ipcperf_syscall ev;
	uint64_t a[3] = { 0, 0, 0 };

	for (pid_t i = 0; i < N; i++) {
		pid_t tid = 1000 + i * 7;

		a[0] = (uint64_t)i;
		a[2] = (uint64_t)i * 3;
		enter(p, 1000 + (uint64_t)i, 1000, tid, i % 2 ? "read" : "write", a, 3);
	}
	/* every third thread dies mid-call */
	for (pid_t i = 0; i < N; i += 3)
		ipp_pairer__thread_exit(p, 1000 + i * 7);
	ck_assert_uint_eq(ipp_pairer__unpaired_enter(p), (N + 2) / 3);

	for (pid_t i = N - 1; i >= 0; i--) {
		pid_t tid = 1000 + i * 7;
		bool ok = leave(p, 100000 + (uint64_t)i, 1000, tid, i % 4, i % 2 ? "read" : "write",
				i, &ev);

		if (i % 3 == 0) {
			ck_assert(!ok);
			continue;
		}
		ck_assert(ok);
		ck_assert_int_eq(ev.tid, tid);
		ck_assert_uint_eq(ev.start_ns, 1000 + (uint64_t)i);
		ck_assert_uint_eq(ev.end_ns, 100000 + (uint64_t)i);
		ck_assert_int_eq(ev.fd, i);
		ck_assert_uint_eq(ev.count, (uint64_t)i * 3);
		ck_assert_int_eq(ev.ret, i);
		ck_assert_str_eq(ev.name, i % 2 ? "read" : "write");
	}
	ck_assert_uint_eq(ipp_pairer__unpaired_exit(p), (N + 2) / 3);
	ipp_pairer__flush(p);
	ck_assert_uint_eq(ipp_pairer__unpaired_enter(p), (N + 2) / 3);
	ipp_pairer__delete(p);
}
END_TEST

/*
 * tid 0 reaches the pairer: the idle task in sched_switch, and in
 * system-wide mode every task outside the tracer's pid namespace. It must
 * never pick up a call that another thread left behind.
 */
START_TEST(test_tid_zero)
{
	struct ipp_pairer *p = new_pairer();
	const uint64_t a[3] = { 3, 0x1, 1 };
	struct ipcperf_syscall ev;

	/* tid 256 hashes where a lookup of tid 0 starts */
	enter(p, 100, 256, 256, "write", a, 3);
	ipp_pairer__thread_exit(p, 256);
	ck_assert_uint_eq(ipp_pairer__unpaired_enter(p), 1);

	ipp_pairer__switch(p, 150, 0, true, false);
	ipp_pairer__switch(p, 160, 0, false, false);
	ipp_pairer__thread_exit(p, 0);
	ck_assert_uint_eq(ipp_pairer__unpaired_enter(p), 1);
	ck_assert(!leave(p, 200, 0, 0, 0, "write", 1, &ev));
	ck_assert_uint_eq(ipp_pairer__unpaired_exit(p), 1);

	/* the table still works */
	for (pid_t tid = 1; tid <= 1000; tid++)
		enter(p, 300, 1, tid, "write", a, 3);
	for (pid_t tid = 1; tid <= 1000; tid++) {
		ck_assert(leave(p, 400, 1, tid, 0, "write", 1, &ev));
		ck_assert_int_eq(ev.tid, tid);
	}
	delete_pairer_after(p, 1, 1);
}
END_TEST

Suite *pair_suite(void)
{
	Suite *s = suite_create("pair");
	TCase *tc;

	tc = tcase_create("pairing");
	tcase_add_test(tc, test_descriptors);
	tcase_add_test(tc, test_enter_exit);
	tcase_add_test(tc, test_fd_and_count);
	tcase_add_test(tc, test_two_threads_interleaved);
	tcase_add_test(tc, test_exit_without_enter);
	tcase_add_test(tc, test_enter_enter);
	tcase_add_test(tc, test_exit_other_nr);
	tcase_add_test(tc, test_thread_exit);
	tcase_add_test(tc, test_flush);
	tcase_add_test(tc, test_many_threads);
	tcase_add_test(tc, test_tid_zero);
	suite_add_tcase(s, tc);

	tc = tcase_create("off-cpu");
	tcase_add_test(tc, test_off_cpu);
	tcase_add_test(tc, test_switch_outside_call);
	tcase_add_test(tc, test_off_cpu_two_threads);
	suite_add_tcase(s, tc);
	return s;
}
