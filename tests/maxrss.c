/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * maxrss: run a command and print its peak memory, for the memory tests
 * (tests/test-memory.sh, tests/test-exitfold.sh): "maxrss KIB" its peak
 * RSS as wait4() gives it, "maxanon KIB" the peak of its anonymous memory,
 * sampled every 5 ms, both on stderr; its exit status is the command's.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
/* The anonymous memory of @pid in KiB (RssAnon), -1 once it is gone. */
static long anon_kb(pid_t pid)
{
	char path[64], line[128];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "r")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "RssAnon: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}
/*
 * maxrss CMD ARGS: run CMD; print its peak RSS (wait4) and the peak of its
 * anonymous memory (sampled every 5 ms) in KiB; exit with its status.
 */
int main(int argc, char **argv)
{
	struct timespec tick = { 0, 5000000 };
	struct rusage ru;
	long anon = 0, kb;
	int st;
	pid_t pid;

	if (argc < 2 || (pid = fork()) < 0)
		return 125;
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	for (;;) {
		siginfo_t si = { 0 };

		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid)
			break;
		if ((kb = anon_kb(pid)) > anon)
			anon = kb;
		nanosleep(&tick, NULL);
	}
	if (wait4(pid, &st, 0, &ru) != pid)
		return 125;
	fprintf(stderr, "maxrss %ld\nmaxanon %ld\n", ru.ru_maxrss, anon);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 126;
}
