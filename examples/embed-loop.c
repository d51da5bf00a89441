/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * embed-loop: a libipcperf session inside a program's own poll() loop.
 *
 *   embed-loop [-i MS] -p PID[,PID...]
 *   embed-loop [-i MS] -- CMD [ARGS]
 *
 * One poll() waits on three file descriptors:
 *   - the session's (ipcperf_session__fd()): readable when a ring holds data
 *     or a target hung up; the loop then calls ipcperf_session__consume();
 *   - a timerfd firing every MS milliseconds (default 1000): a status line;
 *   - standard input: a line "s" (or an empty line) prints a status line at
 *     once, "q" stops. End of input just stops watching stdin.
 * The library never blocks or sleeps here: the program owns the loop.
 *
 * The program's own handlers count the events by kind. At the end it prints
 *
 *   summary syscalls=N reads=N read_bytes=N writes=N write_bytes=N
 *           switches=N wakeups=N forks=N execs=N exits=N lost=N
 *
 * (one line), where bytes are what the calls returned, and exits with the
 * command's status under -- CMD.
 *
 * Build: cc embed-loop.c $(pkg-config --cflags --libs libipcperf)
 * Needs root (or CAP_PERFMON): see 'ipcperf check'.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>
#include <ipcperf/ipcperf.h>

struct counts {
	uint64_t syscalls, reads, read_bytes, writes, write_bytes;
	uint64_t switches, wakeups, forks, execs, exits, lost;
};

static void on_syscall(void *ctx, const struct ipcperf_syscall *ev)
{
	struct counts *c = ctx;

	c->syscalls++;
	if (ev->ret < 0 || ev->ret_is_msgs)
		return;		/* failed calls move no bytes; mmsg calls count messages */
	if (ev->cls == IPCPERF_SC_READ) {
		c->reads++;
		c->read_bytes += (uint64_t)ev->ret;
	} else if (ev->cls == IPCPERF_SC_WRITE) {
		c->writes++;
		c->write_bytes += (uint64_t)ev->ret;
	}
}

static void on_switch(void *ctx, const struct ipcperf_switch *ev)
{
	(void)ev;
	((struct counts *)ctx)->switches++;
}

static void on_wakeup(void *ctx, const struct ipcperf_wakeup *ev)
{
	(void)ev;
	((struct counts *)ctx)->wakeups++;
}

static void on_task(void *ctx, const struct ipcperf_task *ev)
{
	struct counts *c = ctx;

	switch (ev->kind) {
	case IPCPERF_TASK_FORK: c->forks++; break;
	case IPCPERF_TASK_EXEC: c->execs++; break;
	case IPCPERF_TASK_EXIT: c->exits++; break;
	}
}

static void on_lost(void *ctx, const struct ipcperf_lost *ev)
{
	((struct counts *)ctx)->lost = ev->total;
}

static int print_to_stderr(enum ipcperf_print_level level, const char *fmt, va_list ap)
{
	if (level == IPCPERF_DEBUG)
		return 0;
	fputs(level == IPCPERF_WARN ? "embed-loop: libipcperf warning: " : "embed-loop: ", stderr);
	return vfprintf(stderr, fmt, ap);
}

static void print_counts(const char *label, const struct counts *c)
{
	printf("%s syscalls=%" PRIu64 " reads=%" PRIu64 " read_bytes=%" PRIu64 " writes=%" PRIu64
	       " write_bytes=%" PRIu64 " switches=%" PRIu64 " wakeups=%" PRIu64 " forks=%" PRIu64
	       " execs=%" PRIu64 " exits=%" PRIu64 " lost=%" PRIu64 "\n",
	       label, c->syscalls, c->reads, c->read_bytes, c->writes, c->write_bytes, c->switches,
	       c->wakeups, c->forks, c->execs, c->exits, c->lost);
	fflush(stdout);
}

/* Handle what arrived on stdin; false when the loop should stop ("q"). */
static bool handle_stdin(int fd, bool *open_, const struct counts *c)
{
	char buf[256];
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n <= 0) {
		if (n < 0 && errno == EINTR)
			return true;
		*open_ = false;		/* EOF or error: stop watching it */
		return true;
	}
	/* Commands are one letter per line; anything else prints a status line. */
	for (ssize_t i = 0; i < n; i++) {
		if (buf[i] == 'q')
			return false;
		if (buf[i] == '\n')
			print_counts("status", c);
	}
	return true;
}

static bool parse_pids(const char *arg, pid_t **pids, size_t *nr)
{
	const char *p = arg;

	while (*p) {
		char *end;
		long v;
		pid_t *np;

		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || end == p || v <= 0 || v > INT_MAX || (*end && *end != ','))
			return false;
		np = realloc(*pids, (*nr + 1) * sizeof(**pids));
		if (!np)
			return false;
		*pids = np;
		(*pids)[(*nr)++] = (pid_t)v;
		p = *end ? end + 1 : end;
	}
	return *nr > 0;
}

int main(int argc, char **argv)
{
	struct counts c = { 0 };
	pid_t *pids = NULL;
	size_t nr_pids = 0;
	long interval_ms = 1000;
	struct ipcperf_session *s = NULL;
	int opt, tfd = -1, code = 1, status, err;
	bool stdin_open = true, running = true;

	while ((opt = getopt(argc, argv, "+p:i:h")) != -1) {
		switch (opt) {
		case 'p':
			if (!parse_pids(optarg, &pids, &nr_pids)) {
				fprintf(stderr, "embed-loop: bad pid list '%s'\n", optarg);
				return 2;
			}
			break;
		case 'i':
			interval_ms = strtol(optarg, NULL, 10);
			if (interval_ms < 10) {
				fprintf(stderr, "embed-loop: -i takes milliseconds >= 10\n");
				return 2;
			}
			break;
		case 'h':
		default:
			fprintf(opt == 'h' ? stdout : stderr,
				"usage: embed-loop [-i MS] {-p PID[,PID...] | -- CMD [ARGS]}\n");
			free(pids);
			return opt == 'h' ? 0 : 2;
		}
	}
	if ((nr_pids > 0) == (optind < argc)) {	/* exactly one kind of target */
		fprintf(stderr, "usage: embed-loop [-i MS] {-p PID[,PID...] | -- CMD [ARGS]}\n");
		free(pids);
		return 2;
	}
	/* A reader that went away must not kill us mid-report. */
	signal(SIGPIPE, SIG_IGN);
	ipcperf_set_print(print_to_stderr);

	{
		IPCPERF_OPTS(ipcperf_session_opts, o,
			.pids = pids, .nr_pids = nr_pids,
			.argv = nr_pids ? NULL : argv + optind);
		IPCPERF_OPTS(ipcperf_handlers, h, .ctx = &c,
			.syscall = on_syscall, .sched_switch = on_switch, .wakeup = on_wakeup,
			.task = on_task, .lost = on_lost);
		struct itimerspec its = {
			.it_interval = { interval_ms / 1000, interval_ms % 1000 * 1000000 },
			.it_value = { interval_ms / 1000, interval_ms % 1000 * 1000000 },
		};

		s = ipcperf_session__new(&o);
		if (!s)
			goto out;
		err = ipcperf_session__add_handlers(s, &h);
		if (err) {
			fprintf(stderr, "embed-loop: %s\n", strerror(-err));
			goto out;
		}
		tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (tfd < 0 || timerfd_settime(tfd, 0, &its, NULL) < 0) {
			fprintf(stderr, "embed-loop: timerfd: %s\n", strerror(errno));
			goto out;
		}
	}
	if (ipcperf_session__start(s) < 0)
		goto out;
	fprintf(stderr, "embed-loop: tracing; 's' + Enter for a status line, 'q' + Enter to stop\n");

	while (running && !ipcperf_session__done(s)) {
		/* The session fd exists only once started. */
		struct pollfd pfd[3] = {
			{ .fd = ipcperf_session__fd(s), .events = POLLIN },
			{ .fd = tfd, .events = POLLIN },
			{ .fd = stdin_open ? STDIN_FILENO : -1, .events = POLLIN },
		};
		uint64_t ticks;

		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "embed-loop: poll: %s\n", strerror(errno));
			break;
		}
		if (pfd[0].revents) {
			err = ipcperf_session__consume(s);
			if (err < 0) {
				fprintf(stderr, "embed-loop: %s\n", strerror(-err));
				break;
			}
		}
		if (pfd[1].revents && read(tfd, &ticks, sizeof(ticks)) == sizeof(ticks)) {
			/*
			 * Events wait in the session until they are old enough to
			 * be in order: consume on the timer too, so that a quiet
			 * target's last events still arrive.
			 */
			ipcperf_session__consume(s);
			print_counts("status", &c);
		}
		if (pfd[2].revents)
			running = handle_stdin(STDIN_FILENO, &stdin_open, &c);
	}
	/* Disable, drain every ring and deliver what is left, in order. */
	ipcperf_session__stop(s);
	print_counts("summary", &c);
	code = 0;
	if (!running && ipcperf_session__child_pid(s) > 0)
		fprintf(stderr, "embed-loop: stopped; the command goes on as pid %d\n",
			(int)ipcperf_session__child_pid(s));
	else if (ipcperf_session__wait_child(s, &status) == 0)
		code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
out:
	if (tfd >= 0)
		close(tfd);
	ipcperf_session__delete(s);
	free(pids);
	return code;
}
