/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The live source's options are checked here (the ring size among them)
 * and its targets resolved: the pids and tids given, their threads, and
 * whether the caller may read their memory.
 */
#include "config.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"
#include "source/targets.h"
#include "source/rings.h"
#include "source/formats.h"
#include "source/percpu.h"

/* ------------------------------------------------------------------ options */

static bool is_pow2(unsigned int v)
{
	return v && !(v & (v - 1));
}

/*
 * Return the number in a one-line file such as those of /proc/sys, or @dflt
 * when it cannot be read.
 */
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

/*
 * Whether the kernel puts no limit on locked ring memory: CAP_IPC_LOCK is
 * in the effective set, or perf_event_paranoid is -1.
 */
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
 * Return the KiB of rings this process may lock: perf_event_mlock_kb per
 * online CPU plus RLIMIT_MEMLOCK (how the kernel charges them, as check.c
 * explains), or ULLONG_MAX when nothing limits it.
 */
static unsigned long long ring_lock_budget_kb(long ncpus)
{
	struct rlimit rl;
	long long mlock_kb = read_ll("/proc/sys/kernel/perf_event_mlock_kb", 516);

	if (ring_lock_unlimited() || getrlimit(RLIMIT_MEMLOCK, &rl) < 0 ||
	    rl.rlim_cur == RLIM_INFINITY)
		return ~0ull;
	if (mlock_kb < 0)
		mlock_kb = 0;
	return (unsigned long long)mlock_kb * (unsigned long long)ncpus + rl.rlim_cur / 1024;
}

unsigned int ipp_ring_pages_fit(unsigned long long budget_kb, long ncpus, unsigned long long page_kb)
{
	unsigned int fit = 1;

	if (ncpus < 1)
		ncpus = 1;
	/* Cap it at what the per-CPU budget leaves the rings on this many CPUs (percpu.h). */
	if (budget_kb > ipp_percpu__rings_kb(ncpus))
		budget_kb = ipp_percpu__rings_kb(ncpus);
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
	/*
	 * pids or tids may come with argv: a server is then traced from now,
	 * and its client, the command, from its exec.
	 */
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

/*
 * Store the threads of pid or tid @id in *@t; a tid is its own only thread
 * and *@t stays NULL. Returns how many threads, or -errno.
 */
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
 * Store every thread of the pids and the tids in *@out and, when @owners is
 * not NULL, the tgid of each in *@owners. /proc is read once per pid or tid.
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

/* Return the uid owning process @pid (its /proc directory's owner, as ps shows it), or -1. */
static long owner_of(pid_t pid)
{
	char path[32];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return stat(path, &st) ? -1 : (long)st.st_uid;
}

/*
 * Check that a caller without root's rights may read the memory of target
 * @pid, which trace shows for the calls. The kernel must let that user read
 * the process; otherwise one line explains the refusal. Returns 0 or -errno.
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

/*
 * Resolve the target processes of the pids and tids. A wrong pid is the
 * likeliest mistake, so it is checked and reported first.
 */
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
