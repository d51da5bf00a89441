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
#include <linux/capability.h>
#include <sys/fsuid.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "internal.h"
#include "source/targets.h"
#include "source/rings.h"
#include "bpf/sched-rec.h"
#include "source/formats.h"

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

/* ------------------------------------------------------------------ options */

static bool is_pow2(unsigned int v)
{
	return v && !(v & (v - 1));
}

/* A number read from a one-line file (/proc/sys), or @dflt. */
static long long read_ll(const char *path, long long dflt)
{
	FILE *f = fopen(path, "re");
	long long v;

	if (!f)
		return dflt;
	if (fscanf(f, "%lld", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

/* CAP_IPC_LOCK in the effective set, or perf_event_paranoid -1: the kernel does not limit. */
static bool ring_lock_unlimited(void)
{
	char line[128];
	unsigned long long eff;
	bool cap = false;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			cap = eff & (1ull << 14);	/* CAP_IPC_LOCK */
	if (f)
		fclose(f);
	return cap || read_ll("/proc/sys/kernel/perf_event_paranoid", 2) <= -1;
}

/*
 * KiB of rings this process may lock: perf_event_mlock_kb per online CPU
 * plus RLIMIT_MEMLOCK (the kernel's charge, as check.c explains), or the
 * budget IPP_RING_BUDGET_KB when nothing limits it.
 */
static unsigned long long ring_lock_budget_kb(long ncpus)
{
	struct rlimit rl;
	long long mlock_kb = read_ll("/proc/sys/kernel/perf_event_mlock_kb", 516);

	if (ring_lock_unlimited() || getrlimit(RLIMIT_MEMLOCK, &rl) < 0 ||
	    rl.rlim_cur == RLIM_INFINITY)
		return IPP_RING_BUDGET_KB;
	if (mlock_kb < 0)
		mlock_kb = 0;
	return (unsigned long long)mlock_kb * (unsigned long long)ncpus + rl.rlim_cur / 1024;
}

unsigned int ipp_ring_pages_fit(unsigned long long budget_kb, long ncpus, unsigned long long page_kb)
{
	unsigned int fit = 1;

	if (ncpus < 1)
		ncpus = 1;
	if (budget_kb > IPP_RING_BUDGET_KB)
		budget_kb = IPP_RING_BUDGET_KB;
	/* Each CPU maps a ring and a side-band ring, each one page more than its data. */
	for (unsigned int p = 1; p <= IPP_RING_PAGES_MAX_DEFAULT; p <<= 1)
		if ((p + 1ull + ipp_sideband_pages(p) + 1ull) * page_kb * (unsigned long long)ncpus <=
		    budget_kb)
			fit = p;
	return fit;
}

unsigned int ipp_default_ring_pages(void)
{
	long page = sysconf(_SC_PAGESIZE), ncpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (ncpus < 1)
		ncpus = 1;
	return ipp_ring_pages_fit(ring_lock_budget_kb(ncpus), ncpus,
				  page >= 1024 ? (unsigned long long)page / 1024 : 4);
}

static int check_pids(const pid_t *v, size_t n, const char *what)
{
	if (n && !v) {
		ipp_info("invalid options: nr_%s is %zu but %s is NULL\n", what, n, what);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++)
		if (v[i] <= 0) {
			ipp_info("invalid options: %s[%zu] is %d; a pid must be > 0\n", what, i,
				 (int)v[i]);
			return -EINVAL;
		}
	return 0;
}

static int check_targets_given(const struct ipcperf_session_opts *o)
{
	/* pids/tids and argv together: a server traced from now, its client from its exec */
	int kinds = ((o->nr_pids || o->nr_tids) || o->argv) + !!o->system_wide;

	if (kinds != 1) {
		ipp_info("invalid options: %s\n", kinds ? "give only one kind of target "
			 "(pids/tids and argv, or system_wide)" :
			 "no target (give pids, tids, argv or system_wide)");
		return -EINVAL;
	}
	if (o->argv && !o->argv[0]) {
		ipp_info("invalid options: argv is empty\n");
		return -EINVAL;
	}
	return 0;
}

int ipp_rings__validate(const struct ipcperf_session_opts *o, struct ipcperf_session_opts *out)
{
	int err;

	memset(out, 0, sizeof(*out));
	if (!o) {
		ipp_info("invalid options: no target (give pids, tids, argv or system_wide)\n");
		return -EINVAL;
	}
	if (o->sz < offsetof(struct ipcperf_session_opts, nr_pids) + sizeof(o->nr_pids) ||
	    !ipp_opts_valid(o, o->sz, sizeof(*o))) {
		ipp_info("invalid options: sz is %zu; set it with IPCPERF_OPTS()\n", o->sz);
		return -EINVAL;
	}
	memcpy(out, o, o->sz < sizeof(*out) ? o->sz : sizeof(*out));
	out->sz = sizeof(*out);
	if ((err = check_pids(out->pids, out->nr_pids, "pids")) ||
	    (err = check_pids(out->tids, out->nr_tids, "tids")) ||
	    (err = check_targets_given(out)))
		return err;
	if (!out->ring_pages)
		out->ring_pages = ipp_default_ring_pages();
	if (!is_pow2(out->ring_pages) || out->ring_pages > MAX_RING_PAGES) {
		ipp_info("invalid options: ring_pages is %u; it must be a power of two "
			 "from 1 to %u\n", out->ring_pages, MAX_RING_PAGES);
		return -EINVAL;
	}
	if (out->scope > IPCPERF_SCOPE_CPU) {
		ipp_info("invalid options: scope is %u; use IPCPERF_SCOPE_AUTO, _TASK or _CPU\n",
			 out->scope);
		return -EINVAL;
	}
	if (!out->events)
		out->events = IPCPERF_EV_DEFAULT;
	if (out->counter_mask & ~(IPCPERF_CNT_BIT(IPCPERF_CNT__MAX) - 1)) {
		ipp_info("invalid options: unknown bits 0x%x in counter_mask\n",
			 out->counter_mask & ~(IPCPERF_CNT_BIT(IPCPERF_CNT__MAX) - 1));
		return -EINVAL;
	}
	if (out->events & ~(unsigned int)IPCPERF_EV__ALL) {
		ipp_info("invalid options: unknown bits 0x%x in events\n",
			 out->events & ~(unsigned int)IPCPERF_EV__ALL);
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------------ targets */

/* The threads of pid or tid @id, into *@t (NULL for a tid: itself). @return how many, or -errno. */
static int threads_of(pid_t id, bool is_pid, pid_t **t)
{
	int k;

	*t = NULL;
	if (is_pid) {
		k = ipp_list_threads(id, t);
		if (k == -ESRCH)
			ipp_info("no such process: %d\n", (int)id);
	} else {
		k = kill(id, 0) < 0 && errno == ESRCH ? -ESRCH : 1;
		if (k == -ESRCH)
			ipp_info("no such thread: %d\n", (int)id);
	}
	if (k > 0 && ipp_all_exited(id, *t, k)) {
		ipp_info("%s %d is a zombie (exited, not reaped): nothing to trace\n",
			 is_pid ? "pid" : "tid", (int)id);
		free(*t);
		*t = NULL;
		k = -ESRCH;
	}
	return k;
}

/*
 * Every thread of the pids and the tids: @out, and with @owners the tgid of
 * each, read once per pid or tid given.
 */
int ipp_rings__collect_threads(const struct ipp_rings *s, pid_t **out, pid_t **owners, int *nr)
{
	pid_t *all = NULL, *own = NULL;
	size_t n = 0, cap_all = 0, cap_own = 0;
	int err = 0;

	for (size_t i = 0; !err && i < s->nr_pids + s->nr_tids; i++) {
		bool is_pid = i < s->nr_pids;
		pid_t id = is_pid ? s->pids[i] : s->tids[i - s->nr_pids], tgid = 0, *t;
		int k = threads_of(id, is_pid, &t);

		if (k < 0) {
			err = k;
			break;
		}
		if (ipp_grow((void **)&all, &cap_all, n + (size_t)k, sizeof(*all)) < 0 ||
		    (owners && ipp_grow((void **)&own, &cap_own, n + (size_t)k, sizeof(*own)) < 0)) {
			free(t);
			err = -ENOMEM;
			break;
		}
		if (owners)
			tgid = ipp_tgid_of(id);
		for (int m = 0; m < k; m++) {
			all[n + m] = t ? t[m] : id;
			if (owners)
				own[n + m] = tgid > 0 ? tgid : all[n + m];
		}
		n += (size_t)k;
		free(t);
	}
	if (err) {
		free(all);
		free(own);
		return err;
	}
	*out = all;
	if (owners)
		*owners = own;
	*nr = (int)n;
	return 0;
}

static void add_target(struct ipp_rings *s, pid_t pid)
{
	for (size_t i = 0; i < s->nr_targets; i++)
		if (s->targets[i] == pid)
			return;
	s->targets[s->nr_targets++] = pid;
}

pid_t *ipp_rings__copy_pids(const pid_t *v, size_t n, size_t *nr)
{
	pid_t *c = n ? malloc(n * sizeof(*c)) : NULL;
	size_t k = 0;

	/* A repeated id is one target: each repeat would read /proc and open events again. */
	for (size_t i = 0; c && i < n; i++) {
		size_t j = 0;

		while (j < k && c[j] != v[i])
			j++;
		if (j == k)
			c[k++] = v[i];
	}
	*nr = c ? k : 0;
	return c;
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

/* The owner of process @pid (its /proc directory's, as ps shows it), or -1. */
static long owner_of(pid_t pid)
{
	char path[32];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return stat(path, &st) ? -1 : (long)st.st_uid;
}

/*
 * The calls' memory (trace) of target @pid for a caller without root's
 * rights: only of a process the kernel lets that user read, else refused,
 * in one line. @return 0 or -errno.
 */
static int check_readable(pid_t pid)
{
	int err = ipp_may_read_process(pid);

	if (err == -EACCES || err == -EPERM)
		ipp_info("pid %d is not yours to read: uid %u may not read its memory (its "
			 "owner is uid %ld), which trace shows; trace it as root or as its owner\n",
			 (int)pid, (unsigned int)getuid(), owner_of(pid));
	else if (err == -ESRCH)
		ipp_info("no such process: %d\n", (int)pid);
	else if (err < 0)
		ipp_info("cannot tell whether uid %u may read pid %d: %s\n", (unsigned int)getuid(),
			 (int)pid, strerror(-err));
	return err;
}

/* The target processes of pids and tids; a wrong pid is the likeliest mistake: said first. */
int ipp_rings__resolve_targets(struct ipp_rings *s)
{
	pid_t *t;
	int n, err = ipp_rings__collect_threads(s, &t, NULL, &n);

	if (err)
		return err;
	free(t);
	s->targets = calloc(s->nr_pids + s->nr_tids, sizeof(pid_t));
	if (!s->targets)
		return -ENOMEM;
	for (size_t i = 0; i < s->nr_pids + s->nr_tids; i++) {
		pid_t id = i < s->nr_pids ? s->pids[i] : s->tids[i - s->nr_pids];

		if (ipp_is_kernel_thread(id))
			ipp_warn("%s %d is a kernel thread: kernel threads make no system "
				 "calls, so only its scheduling and counters can be seen\n",
				 i < s->nr_pids ? "pid" : "tid", (int)id);
	}
	for (size_t i = 0; i < s->nr_pids; i++)
		add_target(s, s->pids[i]);
	for (size_t i = 0; i < s->nr_tids; i++) {
		pid_t tgid = ipp_tgid_of(s->tids[i]);

		add_target(s, tgid > 0 ? tgid : s->tids[i]);
	}
	for (size_t i = 0; s->call_memory && ipp_caller_restricted() && i < s->nr_targets; i++)
		if ((err = check_readable(s->targets[i])) < 0)
			return err;
	return 0;
}
