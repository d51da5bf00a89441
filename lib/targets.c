/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Targets: threads of existing processes, and a command started corked. */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "internal.h"
#include "fdid-rec.h"

int ipp_list_threads(pid_t pid, pid_t **tids)
{
	char path[64];
	struct dirent *de;
	pid_t *v = NULL;
	size_t n = 0, cap = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((de = readdir(dir))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (*end || tid <= 0)
			continue;
		if (ipp_grow((void **)&v, &cap, n + 1, sizeof(*v)) < 0) {
			free(v);
			closedir(dir);
			return -ENOMEM;
		}
		v[n++] = (pid_t)tid;
	}
	closedir(dir);
	if (!n) {
		free(v);
		return -ESRCH;	/* a zombie has no threads left to trace */
	}
	*tids = v;
	return (int)n;
}

pid_t ipp_tgid_of(pid_t tid)
{
	char path[64], line[256];
	pid_t tgid = -ESRCH;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/* The first line of /proc/PID/task/TID/@name into @buf. @return 0 or -errno (-ESRCH: gone). */
static int task_file(pid_t pid, pid_t tid, const char *name, char *buf, size_t len)
{
	char path[96];
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)pid, (int)tid, name);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	if (!fgets(buf, (int)len, f))
		err = -EIO;
	fclose(f);
	return err;
}

/* The value of "@key ... : N" (or "@key: N") lines of /proc/PID/task/TID/@name, summed. */
static int task_keys(pid_t pid, pid_t tid, const char *name, const char *const *keys, size_t nr,
		     uint64_t *sum)
{
	char path[96], line[256];
	size_t found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)pid, (int)tid, name);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	*sum = 0;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		for (size_t i = 0; colon && i < nr; i++) {
			size_t kl = strlen(keys[i]);

			if (!strncmp(line, keys[i], kl) && strspn(line + kl, " \t") == (size_t)(colon - line) - kl) {
				*sum += strtoull(colon + 1, NULL, 10);
				found++;
			}
		}
	}
	fclose(f);
	return found == nr ? 0 : -ENODATA;
}

void ipp_task_comm(pid_t pid, pid_t tid, char *buf, size_t len)
{
	if (task_file(pid, tid, "comm", buf, len) < 0)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

int ipp_task_acct_read(pid_t pid, pid_t tid, struct ipp_task_acct *out)
{
	static const char *const csw[] = { "voluntary_ctxt_switches", "nonvoluntary_ctxt_switches" };
	static const char *const migr[] = { "se.nr_migrations" };
	unsigned long long minflt, majflt;
	char buf[1024], *p;
	uint64_t v;
	int err;

	/* schedstat: the runtime in ns, exact (the running slice too) */
	if ((err = task_file(pid, tid, "schedstat", buf, sizeof(buf))) < 0)
		return err;
	out->runtime_ns = strtoull(buf, NULL, 10);
	/* stat: minflt is field 10, majflt 12; the comm before may hold anything but ')' last */
	if ((err = task_file(pid, tid, "stat", buf, sizeof(buf))) < 0)
		return err;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %llu %*u %llu", &minflt, &majflt) != 2)
		return -EIO;
	out->faults = minflt + majflt;
	if ((err = task_keys(pid, tid, "status", csw, 2, &v)) < 0)
		return err;
	out->switches = v;
	if (task_keys(pid, tid, "sched", migr, 1, &v) == 0)
		out->migrations = v;
	return 0;
}

bool ipp_is_kernel_thread(pid_t tid)
{
	char path[64], buf[512], *p;
	unsigned int flags = 0;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* flags, the 9th field, after the comm (which may hold spaces and parentheses) */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %u", &flags) != 1)
		return false;
	return flags & 0x00200000;	/* PF_KTHREAD */
}

/* The state of thread @tid of @pid: 'R', 'S', 'Z'...; 0 when it cannot be read. */
static char task_state(pid_t pid, pid_t tid)
{
	char buf[1024], *p;

	if (task_file(pid, tid, "stat", buf, sizeof(buf)) < 0)
		return 0;
	/* after the comm, which may hold spaces and parentheses */
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

bool ipp_all_exited(pid_t pid, const pid_t *tids, int n)
{
	for (int i = 0; i < n; i++) {
		char st = task_state(pid, tids ? tids[i] : pid);

		if (st != 'Z' && st != 'X')
			return false;
	}
	return n > 0;
}

/*
 * The child blocks on go_fd before exec so that events can be opened on its
 * pid with enable_on_exec: counting starts exactly at exec, and nothing of
 * the command's run is missed. err_fd is close-on-exec: EOF there means the
 * exec happened; four bytes are the errno of a failed exec.
 */
int ipp_cmd__fork(struct ipp_cmd *c, char *const *argv)
{
	int go[2], err[2];

	memset(c, 0, sizeof(*c));
	c->pid = -1;
	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) < 0) {
		int e = -errno;
		close(go[0]);
		close(go[1]);
		return e;
	}
	c->pid = fork();
	if (c->pid < 0) {
		int e = -errno;
		close(go[0]); close(go[1]); close(err[0]); close(err[1]);
		return e;
	}
	if (c->pid == 0) {
		char b = 0;
		int e;

		close(go[1]);
		close(err[0]);
		while (read(go[0], &b, 1) < 0 && errno == EINTR)
			;
		close(go[0]);
		if (b != 'g')
			_exit(127);	/* the parent gave up: never run the command */
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	c->go_fd = go[1];
	c->err_fd = err[0];
	return 0;
}

int ipp_cmd__release(struct ipp_cmd *c)
{
	char b = 'g';
	int e = 0;
	ssize_t n;

	if (write(c->go_fd, &b, 1) != 1)
		return -errno;
	close(c->go_fd);
	c->go_fd = -1;
	c->started = true;
	do
		n = read(c->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	if (n == sizeof(e)) {
		waitpid(c->pid, &c->status, 0);
		c->reaped = true;
		return -(e ? e : ENOEXEC);
	}
	return 0;
}

void ipp_cmd__abort(struct ipp_cmd *c)
{
	if (c->pid <= 0)
		return;
	if (!c->started) {
		/* Closing go_fd without a 'g' makes the child exit without exec. */
		if (c->go_fd >= 0)
			close(c->go_fd);
		if (c->err_fd >= 0)
			close(c->err_fd);
		c->go_fd = c->err_fd = -1;
		if (!c->reaped && waitpid(c->pid, &c->status, 0) == c->pid)
			c->reaped = true;
		return;
	}
	if (!c->reaped && waitpid(c->pid, &c->status, WNOHANG) == c->pid)
		c->reaped = true;
}

int ipp_cmd__wait(struct ipp_cmd *c, int *status)
{
	if (c->pid <= 0)
		return -ECHILD;
	if (!c->reaped) {
		pid_t r;

		do
			r = waitpid(c->pid, &c->status, 0);
		while (r < 0 && errno == EINTR);
		if (r < 0)
			return -errno;
		c->reaped = true;
	}
	if (status)
		*status = c->status;
	return 0;
}
