/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fd-logger: per-fd throughput of some processes, one line per fd every
 * second, from libipcperf's accounting.
 *
 *   fd-logger [-i MS] [-d SECS] -p PID[,PID...]
 *   fd-logger [-i MS] [-d SECS] -- CMD [ARGS]
 *
 * Every interval (-i, default 1000 ms) it prints a line for each fd that
 * moved data during that interval:
 *
 *   1.000 pid=1234 fd=11 kind=pipe read_ops=0 read_bytes=0 write_ops=10 write_bytes=5500 \
 *         read_Bps=0 write_Bps=5500 obj=pipe:[56789]
 *
 * and when the targets are gone (or after -d SECS, or on Ctrl-C) one "total"
 * line per fd with the sums over the whole run, then "lost=N". The object is
 * the last field because a path may hold spaces.
 *
 * How it uses the library: an ipcperf_stats object attached to the session
 * keeps the per-(pid, fd, object) counts; every interval the example walks
 * the rows with ipcperf_stats__for_each_fd() (a callback per row), adds them
 * to its own running totals, and zeroes the stats with ipcperf_stats__reset().
 * A "lost" handler reports records the kernel had to drop.
 *
 * Build: cc fd-logger.c $(pkg-config --cflags --libs libipcperf)
 * Needs root (or CAP_PERFMON): see 'ipcperf check'.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <ipcperf/ipcperf.h>

/* Running totals per (pid, fd, object): the example's own table. */
struct total {
	pid_t pid;
	int fd;
	char *object;
	enum ipcperf_fd_kind kind;
	uint64_t read_ops, read_bytes, write_ops, write_bytes;
};

struct logger {
	struct total *totals;
	size_t nr_totals;
	double now_s;		/* time of the interval being printed, since start */
	double interval_s;
	uint64_t lost;
	int failed;		/* out of memory while keeping totals */
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static int print_to_stderr(enum ipcperf_print_level level, const char *fmt, va_list ap)
{
	if (level == IPCPERF_DEBUG)
		return 0;
	fputs(level == IPCPERF_WARN ? "fd-logger: libipcperf warning: " : "fd-logger: ", stderr);
	return vfprintf(stderr, fmt, ap);
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct total *find_total(struct logger *lg, const struct ipcperf_fd_row *row)
{
	struct total *t;

	for (size_t i = 0; i < lg->nr_totals; i++) {
		t = &lg->totals[i];
		if (t->pid == row->pid && t->fd == row->fd && !strcmp(t->object, row->object))
			return t;
	}
	t = realloc(lg->totals, (lg->nr_totals + 1) * sizeof(*t));
	if (!t)
		return NULL;
	lg->totals = t;
	t = &lg->totals[lg->nr_totals];
	memset(t, 0, sizeof(*t));
	t->object = strdup(row->object);	/* the row lives only during the callback */
	if (!t->object)
		return NULL;
	t->pid = row->pid;
	t->fd = row->fd;
	t->kind = row->kind;
	lg->nr_totals++;
	return t;
}

/* ipcperf_stats__for_each_fd() callback: one line per fd that moved data. */
static int on_fd_row(void *ctx, const struct ipcperf_fd_row *row)
{
	struct logger *lg = ctx;
	struct total *t;

	if (!row->read.ops && !row->write.ops)
		return 0;
	printf("%.3f pid=%d fd=%d kind=%s read_ops=%" PRIu64 " read_bytes=%" PRIu64
	       " write_ops=%" PRIu64 " write_bytes=%" PRIu64 " read_Bps=%.0f write_Bps=%.0f obj=%s\n",
	       lg->now_s, (int)row->pid, row->fd, ipcperf_fd_kind_name(row->kind),
	       row->read.ops, row->read.bytes, row->write.ops, row->write.bytes,
	       row->read.bytes / lg->interval_s, row->write.bytes / lg->interval_s, row->object);
	t = find_total(lg, row);
	if (!t) {
		lg->failed = ENOMEM;
		return -ENOMEM;
	}
	t->read_ops += row->read.ops;
	t->read_bytes += row->read.bytes;
	t->write_ops += row->write.ops;
	t->write_bytes += row->write.bytes;
	return 0;
}

/* Session handler: the kernel dropped records because a ring was full. */
static void on_lost(void *ctx, const struct ipcperf_lost *ev)
{
	struct logger *lg = ctx;

	lg->lost = ev->total;
	fprintf(stderr, "fd-logger: %" PRIu64 " records lost on CPU %d: counts are lower bounds\n",
		ev->lost, ev->cpu);
}

/* Print the interval that just ended and start a new one. */
static int flush_interval(struct logger *lg, struct ipcperf_stats *st, double now_s,
			  double interval_s)
{
	int err;

	lg->now_s = now_s;
	lg->interval_s = interval_s > 0.001 ? interval_s : 0.001;
	err = ipcperf_stats__for_each_fd(st, on_fd_row, lg);
	ipcperf_stats__reset(st);
	fflush(stdout);
	return err;
}

static void print_totals(const struct logger *lg)
{
	for (size_t i = 0; i < lg->nr_totals; i++) {
		const struct total *t = &lg->totals[i];

		printf("total pid=%d fd=%d kind=%s read_ops=%" PRIu64 " read_bytes=%" PRIu64
		       " write_ops=%" PRIu64 " write_bytes=%" PRIu64 " obj=%s\n",
		       (int)t->pid, t->fd, ipcperf_fd_kind_name(t->kind), t->read_ops, t->read_bytes,
		       t->write_ops, t->write_bytes, t->object);
	}
	printf("lost=%" PRIu64 "\n", lg->lost);
}

/* "1,2,3" into pids; false on a bad list. */
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

static void usage(FILE *f)
{
	fprintf(f, "usage: fd-logger [-i MS] [-d SECS] {-p PID[,PID...] | -- CMD [ARGS]}\n"
		   "Every MS milliseconds (default 1000), one line per fd that moved data;\n"
		   "at the end a 'total' line per fd and 'lost=N'.\n");
}

int main(int argc, char **argv)
{
	struct logger lg = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	pid_t *pids = NULL;
	size_t nr_pids = 0;
	long interval_ms = 1000;
	double duration = 0, start, last, deadline;
	struct ipcperf_session *s = NULL;
	struct ipcperf_stats *st = NULL;
	int opt, err, code = 1, status;

	while ((opt = getopt(argc, argv, "+p:i:d:h")) != -1) {
		switch (opt) {
		case 'p':
			if (!parse_pids(optarg, &pids, &nr_pids)) {
				fprintf(stderr, "fd-logger: bad pid list '%s'\n", optarg);
				return 2;
			}
			break;
		case 'i':
			interval_ms = strtol(optarg, NULL, 10);
			if (interval_ms < 10) {
				fprintf(stderr, "fd-logger: -i takes milliseconds >= 10\n");
				return 2;
			}
			break;
		case 'd':
			duration = strtod(optarg, NULL);
			if (!(duration > 0)) {
				fprintf(stderr, "fd-logger: -d takes seconds > 0\n");
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if ((nr_pids > 0) == (optind < argc)) {	/* exactly one kind of target */
		usage(stderr);
		free(pids);
		return 2;
	}
	ipcperf_set_print(print_to_stderr);

	{
		/* A command is started held before its exec until the session starts. */
		IPCPERF_OPTS(ipcperf_session_opts, o,
			.pids = pids, .nr_pids = nr_pids,
			.argv = nr_pids ? NULL : argv + optind,
			.events = IPCPERF_EV_DEFAULT);
		IPCPERF_OPTS(ipcperf_handlers, h, .ctx = &lg, .lost = on_lost);

		s = ipcperf_session__new(&o);
		if (!s)
			goto out;	/* the print function said why */
		st = ipcperf_stats__new(NULL);
		if (!st) {
			fprintf(stderr, "fd-logger: %s\n", strerror(errno));
			goto out;
		}
		/* Handlers and accounting are registered before start: after, -EBUSY. */
		err = ipcperf_session__add_handlers(s, &h);
		if (!err)
			err = ipcperf_stats__attach(st, s);
		if (err) {
			fprintf(stderr, "fd-logger: %s\n", strerror(-err));
			goto out;
		}
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (ipcperf_session__start(s) < 0)
		goto out;
	if (nr_pids)
		fprintf(stderr, "fd-logger: tracing %zu process%s\n", nr_pids, nr_pids > 1 ? "es" : "");
	else
		fprintf(stderr, "fd-logger: tracing %s (pid %d)\n", argv[optind],
			(int)ipcperf_session__child_pid(s));

	start = last = mono_s();
	deadline = duration > 0 ? start + duration : 0;
	while (!stop_requested && !ipcperf_session__done(s)) {
		double now = mono_s();

		if (deadline && now >= deadline)
			break;
		if (now - last >= interval_ms / 1000.0) {
			if (flush_interval(&lg, st, now - start, now - last) < 0)
				break;
			last = now;
		}
		/* Waits at most 100 ms, then hands the events that are in order to the stats. */
		err = ipcperf_session__poll(s, 100);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "fd-logger: %s\n", strerror(-err));
			break;
		}
	}
	/* Deliver everything still in the rings, then the last (partial) interval. */
	ipcperf_session__stop(s);
	flush_interval(&lg, st, mono_s() - start, mono_s() - last);
	print_totals(&lg);
	code = lg.failed ? 1 : 0;
	if (ipcperf_session__wait_child(s, &status) == 0)
		code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
out:
	/* The session goes first: the stats must not be fed after they are deleted. */
	ipcperf_session__delete(s);
	ipcperf_stats__delete(st);
	for (size_t i = 0; i < lg.nr_totals; i++)
		free(lg.totals[i].object);
	free(lg.totals);
	free(pids);
	return code;
}
