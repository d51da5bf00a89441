/*
 * The end of a session without the kernel's wait in our way.
 *
 * Closing the last perf event of a tracepoint waits for RCU grace periods,
 * about 28 ms on the machine this was measured on, one tracepoint after the
 * other (the kernel serializes them): record's 7 tracepoints took 0.2 s
 * after its output was out, before the shell had its prompt back.
 *
 * So before the session is deleted, a child that shares our memory (no
 * copy of it, no copy-on-write for us) takes its own reference to each of
 * our perf events and closes every other fd it got (our stdio above all:
 * whoever reads our output sees its end when we exit). Our closes then only
 * drop a reference. The child waits for the end of file on a pipe only we
 * write, which comes when we have exited, and exits in turn: the kernel
 * releases the events then, in the child. Nothing is lost: the output and
 * the capture are complete and closed before this. The child lives about
 * as long as the closes took us before, outside anyone's wait.
 */
#include "config.h"
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "cli.h"
#include "util.h"

#define HOLDER_STACK (64 * 1024)

/*
 * What the child reads: set before it starts, never changed after, never
 * freed (it reads them while we exit).
 */
static struct {
	int *close;		/* the fds the child closes: all but the perf events */
	size_t nr_close, cap_close;
	int wait_fd;		/* the read end of the pipe we hold open until we exit */
} holder;

static char *holder_stack;

/*
 * The child: raw system calls only, and no libc state touched, since it
 * shares our memory while we go on and exit. It starts with every signal
 * blocked: our handlers were copied, and must not run here on our memory (a
 * Ctrl-C to the process group, say). SIGKILL still ends it, and the
 * release then happens in its exit all the same.
 */
static int hold(void *arg)
{
	static char c;	/* not on the stack: no frame of a sanitizer's, nothing of our thread's */

	(void)arg;
	for (size_t i = 0; i < holder.nr_close; i++)
		syscall(SYS_close, holder.close[i]);
	while (syscall(SYS_read, holder.wait_fd, &c, 1) > 0)
		;
	syscall(SYS_exit, 0);
	return 0;
}

static bool is_perf_event(int dirfd, const char *name)
{
	static const char want[] = "anon_inode:[perf_event]";
	char link[sizeof(want) + 1];
	ssize_t n = readlinkat(dirfd, name, link, sizeof(link));

	return n == (ssize_t)sizeof(want) - 1 && memcmp(link, want, (size_t)n) == 0;
}

/*
 * The fds the child is to close: all but the perf events and the
 * directory's own, closed (its number free for the pipe) by the time the
 * child starts. @return the number of perf events, or -1 when /proc cannot say.
 */
static long list_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	long events = 0;

	if (!d)
		return -1;
	holder.nr_close = 0;
	while ((e = readdir(d))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);

		if (e->d_name[0] == '.' || *end || fd < 0 || fd == dirfd(d))
			continue;
		if (is_perf_event(dirfd(d), e->d_name)) {
			events++;
			continue;
		}
		if (cli_grow((void **)&holder.close, &holder.cap_close, holder.nr_close + 1,
			     sizeof(*holder.close)) < 0) {
			events = -1;
			break;
		}
		holder.close[holder.nr_close++] = (int)fd;
	}
	closedir(d);
	return events;
}

/* Start the child that holds our perf events past our exit; false if there is none. */
static bool hand_over(void)
{
	sigset_t all, was;
	int p[2];
	pid_t pid;

	if (list_fds() <= 0 || pipe2(p, O_CLOEXEC) < 0)
		return false;
	if (cli_grow((void **)&holder.close, &holder.cap_close, holder.nr_close + 1,
		     sizeof(*holder.close)) < 0 ||
	    (!holder_stack && !(holder_stack = malloc(HOLDER_STACK))))
		goto fail;
	holder.close[holder.nr_close++] = p[1];
	holder.wait_fd = p[0];
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &was);
	pid = clone(hold, holder_stack + HOLDER_STACK, CLONE_VM | SIGCHLD, NULL);
	sigprocmask(SIG_SETMASK, &was, NULL);
	if (pid < 0)
		goto fail;
	close(p[0]);
	/* p[1] stays open until we exit: its end of file releases the child. */
	return true;
fail:
	close(p[0]);
	close(p[1]);
	return false;
}

void cli_session_release(struct ipcperf_session *s)
{
	if (s)
		hand_over();
	ipcperf_session__delete(s);
}
