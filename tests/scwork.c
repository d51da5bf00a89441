/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * scwork: a process whose system calls are known exactly, for the tests of
 * `ipcperf stat --syscalls` (tests/check-syscalls.c) and the benchmark.
 *
 *   scwork            the counted section, once, in a worker process
 *   scwork threads N  the counted section in each of N threads (1..16) of
 *                     one process
 *   scwork loop N     N x getpid in this process, nothing else counted (benchmark)
 *   scwork writes T N [go]
 *                     T threads (1..1000) of this process, created one after
 *                     the other, each making N one-byte writes to /dev/null
 *                     (T x N in all, each returning 1); with "go", only once a
 *                     byte arrives on stdin (so that a tracer can attach first)
 *   scwork naps N US  N x nanosleep of US microseconds (0..1000000) in this
 *                     process: a known latency distribution, for --total's
 *                     merged percentiles
 *
 * The dynamic loader and libc's startup make system calls of their own
 * (openat, read, close, mmap, ...) whose number depends on the machine, so
 * the counted section runs where nothing else does:
 *
 *  - default: in a worker process made with a raw clone(SIGCHLD) (libc's
 *    fork() runs atfork handlers and may make calls of its own in the child).
 *    Its first traced event is its return from clone (not a call: a tracer
 *    pairs no enter with it), its last is exit_group (never returns: not
 *    counted by strace -c nor by ipcperf). So the worker's syscall table is
 *    exactly the table below. The parent waits for it (wait4) and then
 *    prints "scwork: worker PID" on stderr.
 *  - threads N: each thread first sets its name to "scwork-tK" (prctl
 *    PR_SET_NAME) and reads its tid (gettid), then runs the counted section;
 *    so each thread's table is the table below plus prctl 1 and gettid 1
 *    (thread start and exit add calls glibc makes there, e.g. rseq,
 *    set_robust_list, madvise: none of the names below). After joining,
 *    the main thread prints "scwork: thread TID scwork-tK" for each.
 *
 * Every call in the counted section goes through syscall(SYS_x), so libc adds
 * none and caches none; each result is checked, and anything unexpected exits
 * 3 with a message (after the counted section, so that the counts stay exact
 * when all went well).
 *
 * The counted section, in this order:
 *
 *   openat(AT_FDCWD, "/dev/null", O_WRONLY|O_CLOEXEC)   1            -> N
 *   openat(AT_FDCWD, "/dev/zero", O_RDONLY|O_CLOEXEC)   1            -> Z
 *   getpid()                                            1000
 *   write(N, "x", 1)                                    500          = 1
 *   read(Z, buf, 1)                                     300          = 1
 *   close(-1)                                           200          EBADF
 *   openat(AT_FDCWD, "/nonexistent-scwork/missing", 0)  100          ENOENT
 *   sched_yield()                                       50
 *   nanosleep({0, 0}, NULL)                             10
 *   dup(N), then close() of the copy                    20 + 20
 *   pipe2(fds, O_CLOEXEC), then close() of both ends    10 + 20
 *   kill(pid, 0) (pid from the first getpid)            5
 *   kill(0x3fffffff, 0) (above any pid_max)             4            ESRCH
 *   fcntl(N, F_GETFL)                                   7
 *   fcntl(-1, F_GETFL)                                  3            EBADF
 *   fcntl(N, 0x7fff) (no such command)                  2            EINVAL
 *   close(Z), close(N)                                  2
 *
 * So, per syscall (the table the tests assert):
 *
 *   syscall       calls  errors  errnos
 *   getpid         1000       0
 *   write           500       0
 *   read            300       0
 *   close           242     200  EBADF 200
 *   openat          102     100  ENOENT 100
 *   sched_yield      50       0
 *   dup              20       0
 *   fcntl            12       5  EBADF 3, EINVAL 2
 *   pipe2            10       0
 *   nanosleep        10       0
 *   kill              9       4  ESRCH 4
 *   total          2255     309
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 16

/* The first unexpected result of the counted section, reported after it. */
struct fault {
	const char *what;
	long ret;
	int err;
};

static void expect(struct fault *f, const char *what, long ret, long want, int want_err)
{
	int err = ret < 0 ? errno : 0;

	if (f->what)
		return;
	if (want_err ? (ret != -1 || err != want_err) : ret != want) {
		f->what = what;
		f->ret = ret;
		f->err = err;
	}
}

static void expect_ok(struct fault *f, const char *what, long ret)
{
	if (!f->what && ret < 0) {
		f->what = what;
		f->ret = ret;
		f->err = errno;
	}
}

/* The counted section: exactly the calls of the table above, nothing else. */
static void counted(struct fault *f)
{
	char buf[1];
	int fds[2];
	long null, zero, pid, r;
	struct timespec zero_ts = { 0, 0 };

	null = syscall(SYS_openat, AT_FDCWD, "/dev/null", O_WRONLY | O_CLOEXEC);
	expect_ok(f, "openat /dev/null", null);
	zero = syscall(SYS_openat, AT_FDCWD, "/dev/zero", O_RDONLY | O_CLOEXEC);
	expect_ok(f, "openat /dev/zero", zero);
	pid = syscall(SYS_getpid);
	for (int i = 1; i < 1000; i++)
		expect(f, "getpid", syscall(SYS_getpid), pid, 0);
	for (int i = 0; i < 500; i++)
		expect(f, "write", syscall(SYS_write, null, "x", 1), 1, 0);
	for (int i = 0; i < 300; i++)
		expect(f, "read", syscall(SYS_read, zero, buf, 1), 1, 0);
	for (int i = 0; i < 200; i++)
		expect(f, "close(-1)", syscall(SYS_close, -1), 0, EBADF);
	for (int i = 0; i < 100; i++)
		expect(f, "openat missing", syscall(SYS_openat, AT_FDCWD,
						    "/nonexistent-scwork/missing", O_RDONLY),
		       0, ENOENT);
	for (int i = 0; i < 50; i++)
		expect(f, "sched_yield", syscall(SYS_sched_yield), 0, 0);
	for (int i = 0; i < 10; i++)
		expect(f, "nanosleep", syscall(SYS_nanosleep, &zero_ts, NULL), 0, 0);
	for (int i = 0; i < 20; i++) {
		r = syscall(SYS_dup, null);
		expect_ok(f, "dup", r);
		expect(f, "close dup", syscall(SYS_close, r), 0, 0);
	}
	for (int i = 0; i < 10; i++) {
		fds[0] = fds[1] = -1;
		expect(f, "pipe2", syscall(SYS_pipe2, fds, O_CLOEXEC), 0, 0);
		expect(f, "close pipe", syscall(SYS_close, fds[0]), 0, 0);
		expect(f, "close pipe", syscall(SYS_close, fds[1]), 0, 0);
	}
	for (int i = 0; i < 5; i++)
		expect(f, "kill self", syscall(SYS_kill, pid, 0), 0, 0);
	for (int i = 0; i < 4; i++)
		expect(f, "kill none", syscall(SYS_kill, 0x3fffffff, 0), 0, ESRCH);
	for (int i = 0; i < 7; i++)
		expect_ok(f, "fcntl F_GETFL", syscall(SYS_fcntl, null, F_GETFL));
	for (int i = 0; i < 3; i++)
		expect(f, "fcntl(-1)", syscall(SYS_fcntl, -1, F_GETFL), 0, EBADF);
	for (int i = 0; i < 2; i++)
		expect(f, "fcntl bad cmd", syscall(SYS_fcntl, null, 0x7fff), 0, EINVAL);
	expect(f, "close zero", syscall(SYS_close, zero), 0, 0);
	expect(f, "close null", syscall(SYS_close, null), 0, 0);
}

static int report(const struct fault *f, const char *who)
{
	if (!f->what)
		return 0;
	fprintf(stderr, "scwork: %s: %s returned %ld (%s)\n", who, f->what, f->ret,
		f->err ? strerror(f->err) : "no error");
	return 3;
}

static int run_worker(void)
{
	long pid;
	int status;

	fflush(NULL);
	/* fork() without libc: no atfork handlers, no calls in the child but ours. */
	pid = syscall(SYS_clone, (unsigned long)SIGCHLD, 0ul, 0ul, 0ul, 0ul);
	if (pid < 0) {
		fprintf(stderr, "scwork: clone: %s\n", strerror(errno));
		return 3;
	}
	if (pid == 0) {
		struct fault f = { 0 };

		counted(&f);
		if (f.what)
			_exit(report(&f, "worker"));
		syscall(SYS_exit_group, 0);
		_exit(0);	/* not reached */
	}
	if (waitpid((pid_t)pid, &status, 0) != (pid_t)pid) {
		fprintf(stderr, "scwork: waitpid: %s\n", strerror(errno));
		return 3;
	}
	fprintf(stderr, "scwork: worker %ld\n", pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "scwork: the worker failed (wait status 0x%x)\n", status);
		return 3;
	}
	return 0;
}

struct thr {
	pthread_t th;
	int index;
	long tid;
	char name[16];
	struct fault f;
};

static void *thread_main(void *arg)
{
	struct thr *t = arg;

	expect(&t->f, "prctl PR_SET_NAME",
	       syscall(SYS_prctl, PR_SET_NAME, (unsigned long)t->name, 0ul, 0ul, 0ul), 0, 0);
	t->tid = syscall(SYS_gettid);
	counted(&t->f);
	return NULL;
}

static int run_threads(int n)
{
	struct thr t[MAX_THREADS];
	int ret = 0, err;

	memset(t, 0, sizeof(t));
	for (int i = 0; i < n; i++) {
		t[i].index = i;
		snprintf(t[i].name, sizeof(t[i].name), "scwork-t%d", i);
		err = pthread_create(&t[i].th, NULL, thread_main, &t[i]);
		if (err) {
			fprintf(stderr, "scwork: pthread_create: %s\n", strerror(err));
			for (int k = 0; k < i; k++)
				pthread_join(t[k].th, NULL);
			return 3;
		}
	}
	for (int i = 0; i < n; i++)
		pthread_join(t[i].th, NULL);
	for (int i = 0; i < n; i++) {
		fprintf(stderr, "scwork: thread %ld %s\n", t[i].tid, t[i].name);
		if (report(&t[i].f, t[i].name))
			ret = 3;
	}
	return ret;
}

/* writes: many short-lived threads, for the tests of loss under load (check-loss.c). */
static long writes_each;
static long devnull_fd;

static void *writer_main(void *arg)
{
	for (long i = 0; i < writes_each; i++)
		if (syscall(SYS_write, devnull_fd, "x", 1) != 1)
			return (void *)1;
	return arg;
}

static int run_writes(long nthreads, long each, bool wait_go)
{
	pthread_t *t = calloc((size_t)nthreads, sizeof(*t));
	int ret = 0;
	char go;

	devnull_fd = syscall(SYS_openat, AT_FDCWD, "/dev/null", O_WRONLY | O_CLOEXEC);
	if (!t || devnull_fd < 0) {
		fprintf(stderr, "scwork: %s\n", t ? "cannot open /dev/null" : "out of memory");
		return 3;
	}
	writes_each = each;
	if (wait_go && read(0, &go, 1) != 1) {
		fprintf(stderr, "scwork: no go byte on stdin\n");
		return 3;
	}
	for (long i = 0; i < nthreads; i++) {
		void *r;
		int err = pthread_create(&t[i], NULL, writer_main, NULL);

		if (err) {
			fprintf(stderr, "scwork: pthread_create: %s\n", strerror(err));
			return 3;
		}
		/* Joined at once: threads come and go, their tids are not reused meanwhile. */
		if (i % 8 == 7 || i == nthreads - 1)
			for (long k = i - i % 8; k <= i; k++)
				if (pthread_join(t[k], &r) == 0 && r)
					ret = 3;
	}
	free(t);
	return ret;
}

static int parse_count(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* @n nanosleeps of @us microseconds each, through syscall(): no libc retry. */
static int run_naps(long n, long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	for (long i = 0; i < n; i++)
		if (syscall(SYS_nanosleep, &ts, NULL) < 0)
			return 3;
	return 0;
}

int main(int argc, char **argv)
{
	long n, each;

	if (argc == 1)
		return run_worker();
	if (argc == 3 && !strcmp(argv[1], "threads") && parse_count(argv[2], 1, MAX_THREADS, &n) == 0)
		return run_threads((int)n);
	if (argc == 3 && !strcmp(argv[1], "loop") && parse_count(argv[2], 1, 1000000000L, &n) == 0) {
		for (long i = 0; i < n; i++)
			syscall(SYS_getpid);
		return 0;
	}
	if ((argc == 4 || (argc == 5 && !strcmp(argv[4], "go"))) && !strcmp(argv[1], "writes") &&
	    parse_count(argv[2], 1, 1000, &n) == 0 && parse_count(argv[3], 1, 100000000L, &each) == 0)
		return run_writes(n, each, argc == 5);
	if (argc == 4 && !strcmp(argv[1], "naps") && parse_count(argv[2], 1, 1000000L, &n) == 0 &&
	    parse_count(argv[3], 0, 1000000L, &each) == 0)
		return run_naps(n, each);
	fprintf(stderr, "usage: scwork [threads N | loop N | writes THREADS N [go] | naps N US]\n");
	return 2;
}
