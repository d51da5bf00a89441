/*
 * Running a program from a libcheck test: stdout and stderr captured in
 * unlinked files, stdin from a pipe or /dev/null, its own process group so
 * that a hung run is killed whole after RUN_DEADLINE_S and fails the test.
 * Shared by the suites that drive the ipcperf CLI (check-stat, check-syscalls,
 * check-flowlive).
 */
#ifndef IPCPERF_TESTS_RUNCMD_H
#define IPCPERF_TESTS_RUNCMD_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define RUN_DEADLINE_S 45

struct child {
	pid_t pid;
	int out_fd, err_fd;	/* unlinked temporary files holding its stdout / stderr */
	int in_fd;		/* write end of its stdin pipe, or -1 (stdin is /dev/null) */
	const char *what;	/* for messages */
};

struct result {
	int status;		/* wait status */
	char *out, *err;	/* NUL-terminated, malloc'ed */
	size_t out_len, err_len;
};

/* An unlinked temporary file, open for reading and writing. */
int cmd_tmp_fd(void);
/* All of file @fd, NUL-terminated, malloc'ed; its length in *@len if @len. */
char *cmd_slurp(int fd, size_t *len);
/* Start @argv (execvp; in @envp unless NULL); stdin from a pipe (@with_stdin) or /dev/null. */
void cmd_spawn(struct child *c, char *const argv[], bool with_stdin, char *const envp[]);
/* Wait for @c (killing its group after RUN_DEADLINE_S) and collect its output. */
void cmd_finish(struct child *c, struct result *r);
void cmd_run_env(char *const argv[], char *const envp[], struct result *r);
void cmd_run(char *const argv[], struct result *r);
void cmd_result_free(struct result *r);
bool cmd_exited_with(const struct result *r, int code);
/*
 * The environment of the command @argv, which runs `env -0` under ipcperf
 * (the variables NUL-separated on its stdout): NULL-terminated, malloc'ed,
 * its strings in one malloc'ed block put in *@strings. Free both.
 */
char **cmd_env_of(char *const argv[], char **strings);
/*
 * The table `strace -f -c` writes for the command @cmd run in the
 * environment the command @env_argv prints (as cmd_env_of() reads it):
 * malloc'ed. @what names the command in a failure.
 */
char *cmd_strace_c(char *const env_argv[], const char *const cmd[], const char *what);
/*
 * Waits until @pid is inside one of the @nr_nrs system calls @nrs (from
 * /proc/PID/syscall), with first argument @arg0 unless it is -1; fails
 * after RUN_DEADLINE_S. @what names the process in a failure.
 */
void cmd_wait_in_syscall(pid_t pid, const long *nrs, size_t nr_nrs, long arg0, const char *what);
/*
 * Waits until ipcperf @pid blocks in a poll-family call: then its capture
 * loop runs, so its signal handlers are in place and its events are enabled.
 */
void cmd_wait_polling(pid_t pid);
/* "exit 3", "killed by signal 15": static storage. */
const char *cmd_status_str(int status);
#endif
