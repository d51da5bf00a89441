/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * stormwork: a process that saturates the machine with system calls, for
 * tests/test-signals-all.sh (how soon ipcperf acts on a stop signal then).
 *
 *   stormwork T PIDFILE
 *
 * T threads (1..10000), each making one-byte writes to /dev/null for as
 * long as the process lives, all from the same moment, once every one is
 * made; then the process writes its pid into PIDFILE and waits to be ended
 * (SIGTERM, default action).
 * Exits 2 on bad arguments, 3 when a thread or a write fails.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Small stacks: thousands of threads fit in a small VM. */
#define STACK_BYTES (64 * 1024)

static int null_fd;
/* The threads start together, once all are made: making them is not slowed by the storm. */
static pthread_barrier_t all_made;

static void *storm(void *arg)
{
	char c = 0;

	(void)arg;
	pthread_barrier_wait(&all_made);
	for (;;)
		if (write(null_fd, &c, 1) != 1)
			_exit(3);
	return NULL;
}

/* Write our pid into @path, whole, then rename it in place: never half a pid. */
static int say_pid(const char *path)
{
	char tmp[4096];
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -1;
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	fprintf(f, "%d\n", (int)getpid());
	if (fclose(f) != 0)
		return -1;
	return rename(tmp, path);
}

int main(int argc, char **argv)
{
	pthread_attr_t attr;
	long n;

	if (argc != 3 || (n = strtol(argv[1], NULL, 10)) < 1 || n > 10000) {
		fprintf(stderr, "usage: stormwork T PIDFILE (T threads, 1..10000)\n");
		return 2;
	}
	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null_fd < 0 || pthread_barrier_init(&all_made, NULL, (unsigned int)n + 1) != 0 ||
	    pthread_attr_init(&attr) != 0 ||
	    pthread_attr_setstacksize(&attr, STACK_BYTES) != 0) {
		perror("stormwork");
		return 3;
	}
	for (long i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, &attr, storm, NULL) != 0) {
			fprintf(stderr, "stormwork: cannot start thread %ld\n", i + 1);
			return 3;
		}
	}
	pthread_barrier_wait(&all_made);
	if (say_pid(argv[2]) < 0) {
		perror(argv[2]);
		return 3;
	}
	for (;;)
		pause();
}
