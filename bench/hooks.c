/*
 * hooks: attaches bench/hooks.bpf.c's two empty programs (the BPF floor of
 * bench/overhead) for as long as a command runs, or until told to stop.
 *
 * usage: hooks OBJECT [CMD [ARG...]]
 *
 * Loads OBJECT (hooks.bpf.o) and attaches its programs, then says
 * "hooks: live" on stderr. With CMD, runs it and exits with its exit status
 * once it is done; without, holds until SIGINT or SIGTERM and exits 0.
 * Exits 1 when the object cannot be loaded or attached (needs root), or CMD
 * cannot be run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/libbpf.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Run @argv to its end. @return its exit status as a shell gives it, 1 if it could not run. */
static int run(char **argv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		perror("hooks: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "hooks: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct bpf_object *obj;
	struct bpf_program *p;
	int ret = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: hooks OBJECT [CMD [ARG...]]\n");
		return 2;
	}
	/* a handler, not the disposition inherited: a shell's background job ignores SIGINT */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "hooks: cannot load %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(p, obj) {
		if (!bpf_program__attach(p)) {
			fprintf(stderr, "hooks: cannot attach %s: %s\n", bpf_program__name(p),
				strerror(errno));
			return 1;
		}
	}
	fprintf(stderr, "hooks: live\n");
	if (argc > 2)
		ret = run(argv + 2);
	else
		while (!stop)
			pause();
	bpf_object__close(obj);	/* the links too: detached */
	return ret;
}
