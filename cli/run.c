/*
 * The capture of every subcommand: a session for the targets, the loop that
 * reads it until they exit, -d expires or a signal arrives, the command of
 * "-- CMD" waited for, and the exit code that follows from all that.
 */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "cli.h"
#include "output.h"
#include "util.h"

/*
 * How long to wait for the rings' watermark before reading them anyway.
 * Short, because what an fd is can only be read from /proc while its
 * process lives, and events reach us only when the rings are read; a pass
 * over idle rings costs microseconds.
 */
#define POLL_MS 25

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/*
 * SIGINT, SIGTERM and SIGHUP stop the capture, which is then reported; so
 * does SIGPIPE, once what reads our output is gone (its write fails with
 * EPIPE, and ipcperf ends as SIGPIPE would have ended it, exit 141); and so
 * does every other signal whose default action ends a process (SIGQUIT,
 * SIGUSR1, SIGALRM, the real-time signals...): uncaught, it would end us
 * with nothing written and the command left running. Caught, not ignored:
 * a command we start must not inherit SIG_IGN across exec.
 */
static void catch_stop_signals(void)
{
	static const int sigs[] = {
		SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM,
		SIGPROF, SIGIO, SIGXCPU, SIGXFSZ,
#ifdef SIGPWR
		SIGPWR,
#endif
#ifdef SIGSTKFLT
		SIGSTKFLT,
#endif
	};
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	/* Those below SIGRTMIN are the C library's own. */
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaction(sig, &sa, NULL);
}

/*
 * The signal a stop signal sends on to the command: SIGINT, SIGTERM and
 * SIGHUP themselves (as perf does); any other was meant for us (SIGPIPE:
 * our reader is gone; SIGUSR1 may mean "print your progress" to the
 * command), and the command gets SIGTERM.
 */
static int command_signal(int sig)
{
	return sig == SIGINT || sig == SIGHUP ? sig : SIGTERM;
}

/* ------------------------------------------------------------------ ending everything we started */

/* The command of "-- CMD" while it is not reaped (0: none), for the crash and exit paths. */
static volatile sig_atomic_t cmd_pid;
/* The command's session, once it exited (-1: ask the command while it runs). */
static volatile sig_atomic_t cmd_sid = -1;

/*
 * The session of the command's tree. A process that left it (setsid(), as
 * a daemon does) is no longer the command's: never ended by us, never
 * waited for. -1 when there is no command. Session 0 is one like any
 * other: the kernel's, which everything under an init that never called
 * setsid() is in (a CI runner's tree, a usermode helper's).
 */
static pid_t command_session(void)
{
	pid_t sid = (pid_t)cmd_sid;

	if (sid < 0 && cmd_pid > 0)
		sid = getsid((pid_t)cmd_pid);
	return sid >= 0 ? sid : -1;
}

/* The command's session, kept before it is reaped (a zombie still has one). */
static void keep_session(pid_t child)
{
	pid_t sid;

	if (cmd_sid < 0 && child > 0 && (sid = getsid(child)) >= 0)
		cmd_sid = sid;
}

/* Children of ours alive, by whether they are of the command's session. */
struct children {
	unsigned int in;	/* in its session (all of them when it has none) */
	unsigned int out;	/* in sessions of their own */
};

/*
 * Each child of ours (not @except) alive, the zombies reaped: the command's
 * orphans come to us, the subreaper. Those in the command's session get
 * @sig (0: none). Async-signal-safe (open, read, kill, waitpid, getsid).
 */
static struct children scan_children(int sig, pid_t except)
{
	char path[64] = "/proc/self/task/", buf[4096];
	struct children c = { 0 };
	size_t n = strlen(path);
	pid_t self = getpid(), sid = command_session(), p = 0;
	ssize_t len;
	int fd;

	for (size_t k = 1000000000; k; k /= 10)
		if ((size_t)self >= k || k == 1)
			path[n++] = (char)('0' + (size_t)self / k % 10);
	memcpy(path + n, "/children", sizeof("/children"));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return c;
	len = read(fd, buf, sizeof(buf));
	close(fd);
	for (ssize_t i = 0; i < len; i++) {
		if (buf[i] >= '0' && buf[i] <= '9') {
			p = p * 10 + (buf[i] - '0');
			continue;
		}
		if (p > 0 && p != except && waitpid(p, NULL, WNOHANG) == 0) {
			if (sid >= 0 && getsid(p) != sid) {
				c.out++;
			} else {
				c.in++;
				if (sig)
					kill(p, sig);
			}
		}
		p = 0;
	}
	return c;
}

/*
 * Has the command not exited yet? Asked with WNOWAIT: the library reaps it
 * (ipcperf_session__wait_child()), and a command reaped here would leave it
 * nothing to wait for, and us without the command's status.
 */
static bool child_running(pid_t child)
{
	siginfo_t si = { 0 };

	return waitid(P_PID, (id_t)child, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == 0;
}

/*
 * Is the command over while what it left behind goes on? It exited, and so
 * did every process it left in its session (a shell's background jobs, ours
 * once it is gone), but some that left the session (daemons) still run and
 * keep the capture open: the run ends here. With none of those, the rings
 * hang up and the run ends once every record is read, as it always did.
 */
static bool command_over(pid_t child)
{
	struct children c;

	if (child_running(child))
		return false;
	keep_session(child);
	c = scan_children(0, child);
	return !c.in && c.out;
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * End what is left of the command's tree but @except (the command, reaped
 * by the library): SIGTERM, SIGKILL to what outlives CLI_GRACE_MS, until no
 * child of ours in the command's session is left (an orphan's own children
 * come to us in turn). Those that left it are not ours to end.
 */
static void end_orphans(pid_t except)
{
	for (int ms = 0; ms < 4 * CLI_GRACE_MS; ms += 10) {
		if (!scan_children(ms < CLI_GRACE_MS ? SIGTERM : SIGKILL, except).in)
			return;
		nap_ms(10);
	}
}

/* A crash or an exit() while the command runs: the command and its tree end first. */
static void end_all(void)
{
	pid_t child = (pid_t)cmd_pid;

	if (child <= 0)
		return;
	keep_session(child);
	cmd_pid = 0;
	kill(child, SIGTERM);
	end_orphans(0);
}

/* What a crash must put back before we end (async-signal-safe; NULL: nothing). */
static void (*crash_restore)(void);

static void on_crash(int sig)
{
	if (crash_restore)
		crash_restore();
	end_all();
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * A crash of ours ends the command, then us as the signal would have. Its
 * own children are ours once it is gone (we are their subreaper), so they
 * end too.
 */
static void catch_crash_signals(void (*restore)(void))
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGTRAP, SIGSYS };
	struct sigaction sa = { .sa_handler = on_crash, .sa_flags = SA_NODEFER | SA_RESETHAND };
	static bool registered;

	crash_restore = restore;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	if (!registered)
		registered = atexit(end_all) == 0;
}

/* Each event takes an fd per CPU per thread: use the hard limit we are allowed. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* ------------------------------------------------------------------ the session */

/*
 * The session of @t (a replay of t->input, or live), with the capture, the
 * handlers and the setup of @run, not started. NULL (said) when it cannot
 * be had: *@end then says how the run ended.
 */
static struct ipcperf_session *session_open(const struct cli_target *t, const struct cli_run *run,
					    enum cli_end *end)
{
	IPCPERF_OPTS(ipcperf_session_opts, o,
		.pids = t->pids.v, .nr_pids = t->pids.n,
		.tids = t->tids.v, .nr_tids = t->tids.n,
		.system_wide = t->system_wide,
		.argv = t->argv,
		.ring_pages = t->ring_pages,
		.events = run->events,
		.counters = run->counters,
		.counter_mask = run->counter_mask,
		.scope = t->scope,
		.no_bpf = t->no_bpf,
		.syscall_samples = t->syscall_samples,
		.call_memory = run->call_memory,
	);
	struct ipcperf_session *s;
	int err;

	*end = CLI_END_NOT_RUN;
	s = t->input ? cli_user_open_capture(t->input) : ipcperf_session__new(&o);
	if (!s) {
		/* The library explained why through the print function. */
		if (errno == EINVAL && !t->input)
			*end = CLI_END_REFUSED;
		return NULL;
	}
	/* Before setup: the accounting it attaches logs fd identities into the capture. */
	if (t->record && cli_user_record(s, t->record) < 0)
		goto fail;
	if (t->record && t->host && (err = ipcperf_session__set_host(s, t->host)) < 0) {
		cli_err("cannot name the host %s: %s", t->host, strerror(-err));
		goto fail;
	}
	if (run->handlers && (err = ipcperf_session__add_handlers(s, run->handlers)) < 0) {
		cli_err("cannot register handlers: %s", strerror(-err));
		goto fail;
	}
	if (run->setup && run->setup(run->ctx, s) < 0)
		goto fail;
	return s;
fail:
	ipcperf_session__delete(s);
	return NULL;
}

/* ------------------------------------------------------------------ the loop */

struct loop {
	struct ipcperf_session *s;
	const struct cli_run *run;
	uint64_t deadline;		/* cli_now_ms() when -d expires; 0: never */
	uint64_t next_tick, next_status;	/* 0: no such timer */
	pid_t cmd;			/* the command of -- CMD (0: none) */
	bool deadline_hit;
};

/*
 * A timer due at *@next (0: none) every @ms: true when it is due, and then
 * set to the next time; otherwise @timeout is shortened to end when it is due.
 */
static bool timer_due(uint64_t *next, unsigned int ms, uint64_t now, int *timeout)
{
	if (!*next)
		return false;
	if (now >= *next) {
		*next += ms;
		return true;
	}
	if (*next - now < (uint64_t)*timeout)
		*timeout = (int)(*next - now);
	return false;
}

/* "ipcperf stat: 12 s, 3456 events, 0 lost" */
static void show_progress(const char *name, struct ipcperf_session *s)
{
	struct ipcperf_session_stats st = { .sz = sizeof(st) };

	if (ipcperf_session__stats(s, &st) < 0)
		return;
	cli_status_show("%s: %.0f s, %" PRIu64 " events, %" PRIu64 " lost", name,
			(cli_now_ns() - st.start_ns) / 1e9, st.records, st.lost);
}

/*
 * Wait up to @timeout ms for the rings or for the fds of run->io_fds(),
 * serve those, then read the rings (a replay has no fd to wait on: poll()
 * skips a negative one).
 */
static int wait_io(struct loop *lp, int timeout)
{
	const struct cli_run *run = lp->run;
	struct pollfd fds[1 + CLI_RUN_IO_FDS];
	int sfd = ipcperf_session__fd(lp->s);
	unsigned int n = run->io_fds(run->ctx, fds + 1, CLI_RUN_IO_FDS);

	fds[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	/* Interrupted (SIGCHLD: the command exited), the fds have nothing to serve. */
	if (poll(fds, n + 1, sfd < 0 ? 0 : timeout) >= 0 && n)
		run->io_ready(run->ctx, fds + 1, n);
	/* Without waiting, which also takes the rings' hangups; after a signal too. */
	return ipcperf_session__poll(lp->s, 0);
}

/*
 * Read the session until the targets exit, the deadline passes or a stop
 * signal arrives, with the ticks and the status line on time.
 * @return 0, or the -errno of a failed read (said).
 */
static int loop_run(struct loop *lp, bool replay)
{
	const struct cli_run *run = lp->run;

	while (!stop_signal && !ipcperf_session__done(lp->s)) {
		uint64_t now = cli_now_ms();
		int timeout = POLL_MS, err;

		if (lp->deadline && now >= lp->deadline) {
			lp->deadline_hit = true;
			break;
		}
		if (lp->deadline && lp->deadline - now < (uint64_t)timeout)
			timeout = (int)(lp->deadline - now);
		if (lp->cmd > 0 && command_over(lp->cmd))
			break;
		if (run->stop && run->stop(run->ctx)) {
			lp->deadline_hit = true;
			break;
		}
		if (timer_due(&lp->next_tick, run->tick_ms, now, &timeout)) {
			ipcperf_session__consume(lp->s);
			run->tick(run->ctx, lp->s);
			continue;
		}
		if (timer_due(&lp->next_status, CLI_STATUS_MS, now, &timeout)) {
			show_progress(run->progress, lp->s);
			continue;
		}
		err = run->io_fds ? wait_io(lp, timeout) : ipcperf_session__poll(lp->s, timeout);
		if (err < 0 && err != -EINTR) {
			/* A capture's reader said what is wrong and where, in one line. */
			if (!replay)
				cli_err("reading events failed: %s", strerror(-err));
			return err;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ the command */

static void wait_command(struct cli_result *res)
{
	int err;

	keep_session((pid_t)cmd_pid);
	err = ipcperf_session__wait_child(res->session, &res->cmd_status);

	res->cmd = err == 0 ? CLI_CMD_EXITED : CLI_CMD_LOST;
	cmd_pid = 0;
	if (err < 0)
		cli_err("cannot wait for the command: %s", strerror(-err));
}

/* Did the command exit within @ms (or before)? It stays unreaped. */
static bool child_exits_within(pid_t child, unsigned int ms)
{
	uint64_t end = cli_now_ms() + ms;

	while (child_running(child)) {
		if (cli_now_ms() >= end)
			return false;
		poll(NULL, 0, 10);
	}
	return true;
}

/* When the command was sent the signal that ends it (0: not yet). */
static uint64_t cmd_signalled_ms;

/* Send the command what ends it on @sig (command_signal()), once. */
static void signal_command(pid_t child, int sig)
{
	if (cmd_signalled_ms || !child_running(child))
		return;
	kill(child, command_signal(sig));
	cmd_signalled_ms = cli_now_ms();
}

/*
 * End the command: its signal for @sig (if not sent yet), then SIGKILL if
 * it has not exited CLI_GRACE_MS after that; then reap it.
 */
static void end_command(struct cli_result *res, pid_t child, int sig)
{
	uint64_t waited;

	signal_command(child, sig);
	if (child_running(child)) {
		waited = cli_now_ms() - cmd_signalled_ms;
		if (waited >= CLI_GRACE_MS ||
		    !child_exits_within(child, CLI_GRACE_MS - (unsigned int)waited)) {
			kill(child, SIGKILL);
			res->cmd_killed = true;
		}
	}
	/* A shell's background jobs outlive it: ours now, and ended too. */
	end_orphans(child);
	wait_command(res);
}

/*
 * After the loop: where the command of "-- CMD" stands. ipcperf never ends
 * before a command it started: a stop signal reaches the command too (as
 * perf does), and so does the end of -d (SIGTERM, unless --keep-running)
 * or a failed read of the rings; each then has CLI_GRACE_MS before SIGKILL.
 */
static void settle_command(const struct cli_target *t, struct cli_result *res, bool deadline_hit,
			   bool failed)
{
	pid_t child = ipcperf_session__child_pid(res->session);

	if (child <= 0)
		return;
	if (stop_signal) {
		end_command(res, child, stop_signal);
		return;
	}
	if ((deadline_hit || failed) && child_running(child)) {
		/* -d ended the capture and the command goes on: report now and wait afterwards. */
		if (deadline_hit && t->keep_running) {
			res->cmd = CLI_CMD_RUNNING;
			return;
		}
		res->cmd_ended = true;
		end_command(res, child, SIGTERM);
		return;
	}
	wait_command(res);
}

void cli_wait_command(struct cli_result *res)
{
	pid_t child;

	if (res->cmd != CLI_CMD_RUNNING)
		return;
	fprintf(stderr, "%s: waiting for the command to exit\n", cli_prog);
	/* A stop signal ends the wait, and the command, at once. */
	child = ipcperf_session__child_pid(res->session);
	while (!stop_signal && child_running(child))
		poll(NULL, 0, 20);
	if (stop_signal)
		end_command(res, child, stop_signal);
	else
		wait_command(res);
}

/* ------------------------------------------------------------------ the run */

int cli_setup_stats(void *ctx, struct ipcperf_session *s)
{
	int err = ipcperf_stats__attach(ctx, s);

	if (err < 0)
		cli_err("cannot set up the accounting: %s", strerror(-err));
	return err;
}

/* The capture of running targets is live: said once, so that a user (or a script) may go on. */
static void say_live(const struct cli_target *t, const struct cli_run *run)
{
	char what[256];

	if (!run->live || t->argv || t->input)
		return;
	cli_describe_targets(t, what, sizeof(what));
	cli_status_clear();
	fprintf(stderr, "%s: live, %s (%s)\n", run->live, what,
		t->duration > 0 ? "until -d ends it" : "Ctrl-C ends it");
}

/*
 * Ahead of the targets, when we may (root, CAP_SYS_NICE): on a machine
 * they saturate (thousands of threads making calls) the reader would get
 * one share of the CPUs among thousands, its rings would overflow, and a
 * stop signal would wait seconds for it to run. This thread only: the
 * command, forked already, keeps the priority it was given.
 */
static void raise_priority(void)
{
	errno = 0;
	if (getpriority(PRIO_PROCESS, 0) > CLI_NICE || errno)
		setpriority(PRIO_PROCESS, 0, CLI_NICE);
}

/* Said once the run is over: daemons the command started run on, untraced. */
static void say_outlived(pid_t child)
{
	unsigned int n;

	if (child <= 0 || !(n = scan_children(0, child).out))
		return;
	cli_status_clear();
	fprintf(stderr, "%s: %u descendant%s of the command outlived it, in a session of %s own: "
		"left running, untraced from the end of the run\n", cli_prog, n, n == 1 ? "" : "s",
		n == 1 ? "its" : "their");
}

/* After the loop: the capture stopped and drained, the command settled. */
static void run_end(const struct cli_target *t, struct loop *lp, int err, struct cli_result *res)
{
	/* A stop signal ends the command first: one that saturates the machine ends sooner. */
	if (stop_signal && lp->cmd > 0)
		signal_command(lp->cmd, stop_signal);
	/* A capture that could not be written was said by the library, errno and all. */
	if (ipcperf_session__stop(lp->s) < 0 && t->record)
		res->capture_failed = true;
	res->session = lp->s;
	res->end = err < 0 ? CLI_END_FAILED : CLI_END_DONE;
	if (t->input && err < 0) {
		/* Nothing to report from a corrupt capture. */
		ipcperf_session__delete(lp->s);
		res->session = NULL;
	} else if (!t->input) {
		settle_command(t, res, lp->deadline_hit, err < 0);
		say_outlived(lp->cmd);
	}
}

static enum cli_end run_capture(const struct cli_target *t, const struct cli_run *run,
				struct cli_result *res)
{
	struct loop lp = { .run = run };
	uint64_t now;
	int err = 0;

	*res = (struct cli_result){ .end = CLI_END_NOT_RUN };
	raise_nofile();
	/* The command's orphans (a shell's background jobs) come to us, to be ended with it. */
	if (t->argv && !t->input)
		prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (!t->input)
		cli_heap_load_begin();
	lp.s = session_open(t, run, &res->end);
	if (lp.s) {
		cmd_pid = t->input ? 0 : ipcperf_session__child_pid(lp.s);
		lp.cmd = cmd_pid > 0 ? (pid_t)cmd_pid : 0;
		catch_stop_signals();
		catch_crash_signals(run->restore);
		if (!t->input)
			raise_priority();
		err = ipcperf_session__start(lp.s);
	}
	if (!t->input)
		cli_heap_load_end();
	if (!lp.s)
		return res->end;
	if (err < 0) {
		ipcperf_session__delete(lp.s);
		return res->end;
	}
	say_live(t, run);
	now = cli_now_ms();
	if (t->duration > 0 && !t->input)
		lp.deadline = now + (uint64_t)llround(t->duration * CLI_MS_PER_SEC);
	if (run->tick && run->tick_ms)
		lp.next_tick = now + run->tick_ms;
	if (run->progress)
		lp.next_status = now + CLI_STATUS_MS;
	err = loop_run(&lp, t->input);
	run_end(t, &lp, err, res);
	return res->end;
}

enum cli_end cli_run(const struct cli_target *t, const struct cli_run *run, struct cli_result *res)
{
	enum cli_end end;

	cli_status_enable(run->status);
	end = run_capture(t, run, res);
	cli_status_clear();
	cli_status_enable(false);
	return end;
}

/* End by @sig, as it would have ended us uncaught (128 + @sig if that returns). */
static int exit_by(int sig)
{
	struct rlimit no_core = { 0, 0 };
	sigset_t set;

	fflush(NULL);
	/* Not a crash of ours (SIGQUIT, a command's SIGSEGV): no core file of ipcperf. */
	setrlimit(RLIMIT_CORE, &no_core);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	return 128 + sig;
}

/* Exit like the command did: its code, or re-raise its signal. */
static int exit_like(int status)
{
	if (WIFSIGNALED(status))
		return exit_by(WTERMSIG(status));
	return WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_RUNTIME;
}

/* The command was ended by us, at the end of -d or a failed read: did our signal end it? */
static bool ended_by_us(const struct cli_result *res)
{
	return res->cmd_ended && WIFSIGNALED(res->cmd_status) &&
	       (WTERMSIG(res->cmd_status) == SIGTERM || WTERMSIG(res->cmd_status) == SIGKILL);
}

/* A stop signal we sent on as another (SIGTERM) ended the command. */
static bool ended_by_relay(const struct cli_result *res)
{
	return stop_signal && command_signal(stop_signal) != stop_signal &&
	       res->cmd == CLI_CMD_EXITED && WIFSIGNALED(res->cmd_status) &&
	       (WTERMSIG(res->cmd_status) == SIGTERM || WTERMSIG(res->cmd_status) == SIGKILL);
}

int cli_exit(const struct cli_result *res, bool failed)
{
	bool ok = !failed && !res->capture_failed;

	switch (res->end) {
	case CLI_END_NOT_RUN:
		return EXIT_RUNTIME;
	case CLI_END_REFUSED:
		return EXIT_USAGE;
	case CLI_END_DONE:
	case CLI_END_FAILED:
		break;
	}
	/*
	 * Our output's reader is gone, a command ignored the stop signal it was
	 * sent, or the command ended by the SIGTERM another signal of ours
	 * (SIGUSR1, SIGQUIT...) sent it on: we end by that signal.
	 */
	if (stop_signal == SIGPIPE || (stop_signal && res->cmd_killed) || ended_by_relay(res))
		return exit_by(stop_signal);
	switch (res->cmd) {
	case CLI_CMD_NONE:
		return ok && res->end == CLI_END_DONE ? EXIT_OK : EXIT_RUNTIME;
	case CLI_CMD_EXITED:
		/* A failure of ours fails a command that succeeded; one that failed says more. */
		if (!ok && WIFEXITED(res->cmd_status) && WEXITSTATUS(res->cmd_status) == 0)
			return EXIT_RUNTIME;
		/* Ended as -d asked: the run went as it should. */
		if (ended_by_us(res))
			return ok && res->end == CLI_END_DONE ? EXIT_OK : EXIT_RUNTIME;
		return exit_like(res->cmd_status);
	case CLI_CMD_RUNNING:	/* never waited for: cli_wait_command() was not called */
	case CLI_CMD_LOST:
		break;
	}
	return EXIT_RUNTIME;
}

int cli_finish(struct cli_result *res, bool failed, void (*free_ctx)(void *ctx), void *ctx)
{
	cli_wait_command(res);
	cli_session_release(res->session);
	free_ctx(ctx);
	return cli_exit(res, failed);
}
