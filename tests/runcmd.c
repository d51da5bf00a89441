/* Running a program from a libcheck test: see runcmd.h. */
#include "config.h"
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "runcmd.h"

int cmd_tmp_fd(void)
{
	char path[] = "/tmp/ipcperf-test.XXXXXX";
	int fd = mkstemp(path);

	ck_assert_msg(fd >= 0, "mkstemp: %s", strerror(errno));
	unlink(path);
	return fd;
}

char *cmd_slurp(int fd, size_t *len)
{
	struct stat st;
	char *buf;
	size_t got = 0;

	ck_assert_msg(fstat(fd, &st) == 0, "fstat: %s", strerror(errno));
	buf = malloc((size_t)st.st_size + 1);
	ck_assert_msg(buf != NULL, "out of memory");
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, buf + got, (size_t)st.st_size - got, (off_t)got);

		ck_assert_msg(n > 0, "reading captured output: %s", n < 0 ? strerror(errno) : "EOF");
		got += (size_t)n;
	}
	buf[got] = '\0';
	if (len)
		*len = got;
	return buf;
}

/*
 * Start @argv (execvp) with stdout and stderr captured in files and stdin
 * from a pipe (@with_stdin) or /dev/null, in environment @envp (NULL: ours).
 * The child gets its own process group, so a hung run can be killed with
 * everything it started.
 */
void cmd_spawn(struct child *c, char *const argv[], bool with_stdin, char *const envp[])
{
	int in[2] = { -1, -1 };

	c->what = argv[0];
	c->out_fd = cmd_tmp_fd();
	c->err_fd = cmd_tmp_fd();
	if (with_stdin)
		ck_assert_msg(pipe2(in, O_CLOEXEC) == 0, "pipe2: %s", strerror(errno));
	fflush(NULL);
	c->pid = fork();
	ck_assert_msg(c->pid >= 0, "fork: %s", strerror(errno));
	if (c->pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		setpgid(0, 0);
		if (dup2(with_stdin ? in[0] : null, 0) < 0 || dup2(c->out_fd, 1) < 0 ||
		    dup2(c->err_fd, 2) < 0)
			_exit(126);
		/* Only 0, 1, 2 go to the program: nothing else of ours may leak. */
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
		if (envp)
			execvpe(argv[0], argv, envp);
		else
			execvp(argv[0], argv);
		dprintf(2, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	c->in_fd = -1;
	if (with_stdin) {
		close(in[0]);
		c->in_fd = in[1];
	}
}

/* Wait for @c (killing its process group if it hangs) and collect its output. */
void cmd_finish(struct child *c, struct result *r)
{
	struct timespec tick = { .tv_sec = 0, .tv_nsec = 10 * 1000 * 1000 };
	long ticks = 0;
	pid_t w;

	if (c->in_fd >= 0) {
		close(c->in_fd);
		c->in_fd = -1;
	}
	while ((w = waitpid(c->pid, &r->status, WNOHANG)) == 0) {
		if (++ticks > RUN_DEADLINE_S * 100L) {
			kill(-c->pid, SIGKILL);
			kill(c->pid, SIGKILL);
			waitpid(c->pid, &r->status, 0);
			r->out = cmd_slurp(c->out_fd, &r->out_len);
			r->err = cmd_slurp(c->err_fd, &r->err_len);
			ck_abort_msg("%s did not finish within %d s; stderr:\n%.2000s", c->what,
				     RUN_DEADLINE_S, r->err);
		}
		nanosleep(&tick, NULL);
	}
	ck_assert_msg(w == c->pid, "waitpid(%s): %s", c->what, strerror(errno));
	r->out = cmd_slurp(c->out_fd, &r->out_len);
	r->err = cmd_slurp(c->err_fd, &r->err_len);
	close(c->out_fd);
	close(c->err_fd);
}

void cmd_run_env(char *const argv[], char *const envp[], struct result *r)
{
	struct child c;

	cmd_spawn(&c, argv, false, envp);
	cmd_finish(&c, r);
}

void cmd_run(char *const argv[], struct result *r)
{
	cmd_run_env(argv, NULL, r);
}

void cmd_result_free(struct result *r)
{
	free(r->out);
	free(r->err);
}

bool cmd_exited_with(const struct result *r, int code)
{
	return WIFEXITED(r->status) && WEXITSTATUS(r->status) == code;
}

const char *cmd_status_str(int status)
{
	static char buf[64];

	if (WIFEXITED(status))
		snprintf(buf, sizeof(buf), "exit %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, sizeof(buf), "killed by signal %d (%s)", WTERMSIG(status),
			 sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?");
	else
		snprintf(buf, sizeof(buf), "wait status 0x%x", (unsigned int)status);
	return buf;
}

char **cmd_env_of(char *const argv[], char **strings)
{
	struct result r;
	char **envp;
	size_t n = 0, k = 0;

	cmd_run(argv, &r);
	ck_assert_msg(cmd_exited_with(&r, 0), "ipcperf stat -- env -0: %s; stderr:\n%.2000s",
		      cmd_status_str(r.status), r.err);
	for (size_t i = 0; i < r.out_len; i++)
		n += r.out[i] == '\0';
	envp = calloc(n + 1, sizeof(*envp));
	ck_assert_msg(envp != NULL, "out of memory");
	for (size_t i = 0; i < r.out_len && k < n; i += strlen(r.out + i) + 1)
		envp[k++] = r.out + i;
	*strings = r.out;
	free(r.err);
	return envp;
}

char *cmd_strace_c(char *const env_argv[], const char *const cmd[], const char *what)
{
	char table[] = "/tmp/check-live-strace.XXXXXX";
	int fd = mkstemp(table);
	char *argv[32] = { "strace", "-f", "-c", "-o", table };
	size_t n = 5;
	char *text, *env_strings, **envp;
	struct result r;

	ck_assert_msg(fd >= 0, "mkstemp: %s", strerror(errno));
	for (size_t i = 0; cmd[i]; i++) {
		ck_assert_msg(n + 1 < sizeof(argv) / sizeof(argv[0]), "%s: too many arguments", what);
		argv[n++] = (char *)cmd[i];
	}
	argv[n] = NULL;
	envp = cmd_env_of(env_argv, &env_strings);
	cmd_run_env(argv, envp, &r);
	free(envp);
	free(env_strings);
	ck_assert_msg(cmd_exited_with(&r, 0), "strace -f -c %s: %s (is strace installed?); "
		      "stderr:\n%.2000s", what, cmd_status_str(r.status), r.err);
	cmd_result_free(&r);
	text = cmd_slurp(fd, NULL);
	close(fd);
	unlink(table);
	return text;
}

void cmd_wait_in_syscall(pid_t pid, const long *nrs, size_t nr_nrs, long arg0, const char *what)
{
	struct timespec tick = { .tv_sec = 0, .tv_nsec = 5 * 1000 * 1000 };
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	for (long i = 0; i < RUN_DEADLINE_S * 200L; i++) {
		char buf[256] = "";
		FILE *f = fopen(path, "re");
		long nr;
		unsigned long a0;
		int got;

		ck_assert_msg(f != NULL, "%s: %s (%s exited early?)", path, strerror(errno), what);
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
		got = sscanf(buf, "%ld %lx", &nr, &a0);
		for (size_t k = 0; got >= 1 && k < nr_nrs; k++)
			if (nr == nrs[k] && (arg0 < 0 || (got == 2 && a0 == (unsigned long)arg0)))
				return;
		nanosleep(&tick, NULL);
	}
	ck_abort_msg("%s (pid %d) never got to the expected system call", what, (int)pid);
}

void cmd_wait_polling(pid_t pid)
{
	static const long polls[] = {
#ifdef SYS_poll
		SYS_poll,
#endif
#ifdef SYS_epoll_wait
		SYS_epoll_wait,
#endif
#ifdef SYS_select
		SYS_select,
#endif
#ifdef SYS_epoll_pwait2
		SYS_epoll_pwait2,
#endif
		SYS_ppoll, SYS_epoll_pwait, SYS_pselect6,
	};

	cmd_wait_in_syscall(pid, polls, sizeof(polls) / sizeof(polls[0]), -1, "ipcperf");
}
