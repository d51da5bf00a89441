/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sigwork: signals whose every line is known, for
 * tests/test-trace-strace.sh (ipcperf trace beside strace -f -yy).
 *
 *   sigwork
 *
 * The parent handles SIGCHLD and keeps it blocked but for one
 * rt_sigprocmask after each child is waited for, so that each SIGCHLD is
 * delivered there and nowhere else. Its children, one after the other:
 *  1. stops itself (SIGSTOP); once the parent has seen it stopped
 *     (wait4 with WUNTRACED), it is killed with SIGKILL;
 *  2. makes itself not dumpable (no core file, wherever cores go) and
 *     writes to address 0: SIGSEGV;
 *  3. sends itself SIGTERM, which it does not handle.
 * Raw system calls through libc, no stdio: the same calls on every run.
 * Exits 0 when each child ended as said, 1 otherwise.
 */
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_child(int sig)
{
	(void)sig;
}

static void chld_mask(int how)
{
	sigset_t m;

	sigemptyset(&m);
	sigaddset(&m, SIGCHLD);
	sigprocmask(how, &m, NULL);
}

/* Child 1: stopped, then killed. @return 0 when it was. */
static int stopped_then_killed(void)
{
	pid_t c = fork();
	int st;

	if (c < 0)
		return 1;
	if (c == 0) {
		kill(getpid(), SIGSTOP);
		_exit(3);
	}
	if (waitpid(c, &st, WUNTRACED) != c || !WIFSTOPPED(st))
		return 1;
	kill(c, SIGKILL);
	return waitpid(c, &st, 0) != c || !WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL;
}

/* Child 2: a write to address 0. */
static void segv_child(void)
{
	prctl(PR_SET_DUMPABLE, 0);
	*(volatile int *)0 = 1;
	_exit(3);
}

/* Child 3: SIGTERM to itself, with no handler. */
static void term_child(void)
{
	kill(getpid(), SIGTERM);
	_exit(3);
}

/* A child running @fn, waited for: @return 0 when signal @sig killed it. */
static int killed_by(void (*fn)(void), int sig)
{
	pid_t c = fork();
	int st;

	if (c < 0)
		return 1;
	if (c == 0)
		fn();
	return waitpid(c, &st, 0) != c || !WIFSIGNALED(st) || WTERMSIG(st) != sig;
}

int main(void)
{
	struct sigaction sa;
	int bad = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_child;
	sigaction(SIGCHLD, &sa, NULL);
	chld_mask(SIG_BLOCK);
	bad |= stopped_then_killed();
	chld_mask(SIG_UNBLOCK);
	chld_mask(SIG_BLOCK);
	bad |= killed_by(segv_child, SIGSEGV);
	chld_mask(SIG_UNBLOCK);
	chld_mask(SIG_BLOCK);
	bad |= killed_by(term_child, SIGTERM);
	chld_mask(SIG_UNBLOCK);
	return bad;
}
