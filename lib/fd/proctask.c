/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Targets: the threads of existing processes and what /proc says of them,
 * and whether the caller may read a process's memory.
 */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "internal.h"
#include "fd/proctask.h"
#include "bpf/sched-rec.h"

/* The numeric entries of directory @path into *@ids (to free). @return their number, or -errno. */
static int list_ids(const char *path, pid_t **ids)
{
	struct dirent *de;
	pid_t *v = NULL;
	size_t n = 0, cap = 0;
	DIR *dir = opendir(path);

	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		char *end;
		long id = strtol(de->d_name, &end, 10);

		if (*end || id <= 0)
			continue;
		if (ipp_grow((void **)&v, &cap, n + 1, sizeof(*v)) < 0) {
			free(v);
			closedir(dir);
			return -ENOMEM;
		}
		v[n++] = (pid_t)id;
	}
	closedir(dir);
	*ids = v;
	return (int)n;
}

int ipp_list_threads(pid_t pid, pid_t **tids)
{
	char path[64];
	int n;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	n = list_ids(path, tids);
	if (n == -ENOENT)
		return -ESRCH;
	if (n == 0) {
		free(*tids);
		return -ESRCH;	/* a zombie has no threads left to trace */
	}
	return n;
}

int ipp_list_processes(pid_t **pids)
{
	return list_ids("/proc", pids);
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

const char *ipp_stat_after_comm(const char *buf)
{
	const char *p = strrchr(buf, ')');

	return p && p[1] == ' ' ? p + 2 : NULL;
}

int ipp_task_acct_read(pid_t pid, pid_t tid, struct ipp_task_acct *out)
{
	static const char *const csw[] = { "voluntary_ctxt_switches", "nonvoluntary_ctxt_switches" };
	static const char *const migr[] = { "se.nr_migrations" };
	unsigned long long minflt, majflt;
	char buf[1024];
	const char *f;
	uint64_t v;
	int err;

	/* schedstat: the runtime in ns, exact (the running slice too) */
	if ((err = task_file(pid, tid, "schedstat", buf, sizeof(buf))) < 0)
		return err;
	out->runtime_ns = strtoull(buf, NULL, 10);
	/* stat: minflt is field 10, majflt 12; the comm before may hold anything but ')' last */
	if ((err = task_file(pid, tid, "stat", buf, sizeof(buf))) < 0)
		return err;
	f = ipp_stat_after_comm(buf);
	if (!f || sscanf(f, "%*c %*d %*d %*d %*d %*d %*u %llu %*u %llu", &minflt, &majflt) != 2)
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
	char path[64], buf[512];
	const char *p;
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
	p = ipp_stat_after_comm(buf);
	if (!p || sscanf(p, "%*c %*d %*d %*d %*d %*d %u", &flags) != 1)
		return false;
	return flags & 0x00200000;	/* PF_KTHREAD */
}

/* The state of thread @tid of @pid: 'R', 'S', 'Z'...; 0 when it cannot be read. */
static char task_state(pid_t pid, pid_t tid)
{
	char buf[1024];
	const char *p;

	if (task_file(pid, tid, "stat", buf, sizeof(buf)) < 0)
		return 0;
	p = ipp_stat_after_comm(buf);
	return p ? p[0] : 0;
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

bool ipp_caller_restricted(void)
{
	return getuid() != 0;
}

/* This thread's capabilities: @set into @h's, or (@set NULL) read into @out. */
static int caps_of_thread(struct __user_cap_data_struct *out, const struct __user_cap_data_struct *set)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };

	if (set)
		return syscall(SYS_capset, &h, set) ? -errno : 0;
	return syscall(SYS_capget, &h, out) ? -errno : 0;
}

/*
 * /proc/PID/environ opens only for a reader the kernel lets read the
 * process's memory (PTRACE_MODE_READ_FSCREDS): opened with the real ids as
 * this thread's filesystem ids and no capability in force, it is the
 * kernel's test for the user who runs ipcperf. Filesystem ids and
 * capabilities are the thread's own: put back after.
 */
int ipp_may_read_process(pid_t pid)
{
	struct __user_cap_data_struct saved[2], none[2];
	char path[64];
	int fd, err, fsuid, fsgid;

	if ((err = caps_of_thread(saved, NULL)) < 0)
		return err;
	memcpy(none, saved, sizeof(none));
	none[0].effective = none[1].effective = 0;
	if ((err = caps_of_thread(NULL, none)) < 0)
		return err;
	fsgid = setfsgid(getgid());
	fsuid = setfsuid(getuid());
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	err = fd < 0 ? (errno == ENOENT ? -ESRCH : -errno) : 0;
	setfsuid((uid_t)fsuid);
	setfsgid((gid_t)fsgid);
	caps_of_thread(NULL, saved);
	if (fd >= 0)
		close(fd);
	return err;
}
