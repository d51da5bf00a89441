/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The machine check (ipcperf check): who we are, tracefs, perf_event_paranoid,
 * the mlock limit for the rings, the events, fd identity, and a test capture
 * of /bin/true, each an item with its status and the command that fixes it.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "internal.h"
#include "print.h"
#include "source/targets.h"

/* Capability bits (linux/capability.h of old systems may lack CAP_PERFMON). */
enum { CAPB_DAC_READ_SEARCH = 2, CAPB_IPC_LOCK = 14, CAPB_SYS_ADMIN = 21, CAPB_PERFMON = 38 };

/* How long the test capture of /bin/true may take, and how often it is read. */
#define CAPTURE_TIMEOUT_MS 5000
#define CAPTURE_POLL_MS 100
/* A fix: one command line. */
#define FIX_LEN 1536
/* An item's detail: one line. */
#define CHECK_LINE_LEN 1024

struct check {
	int (*cb)(void *ctx, const struct ipcperf_check_item *item);
	void *ctx;
	int stop;			/* what cb returned, when not 0: no more items */
	bool capture;			/* end with the test capture */
	unsigned int problems;
	bool fatal;			/* a problem that stops any capture */

	/* Who we are. */
	uid_t euid;
	char who[64];			/* "root" or "nobody (uid 65534)" */
	uint64_t capeff;
	bool caps_known;
	char exe[256];			/* this binary, for setcap fixes */
	char tracefs_dir[256];		/* where tracefs is mounted, when it is */
	bool tracefs_denied;		/* mounted, but this user may not read it */

	/* What the system says. */
	int paranoid;			/* valid when have_paranoid */
	bool have_paranoid;
	unsigned int ring_pages;
	char mlock_fix[FIX_LEN];		/* set when the ring size is over the mlock limit */

	/* From ipcperf_list_events(). */
	unsigned int tp_total, tp_ok, tp_denied, tp_missing;
	unsigned int sw_total, sw_ok;
	unsigned int hw_total, hw_ok;
	int tp_err;			/* errno of the first tracepoint not OK */
	char tp_first_missing[3][64];
	int cycles_status, cycles_err;	/* -1: not reported */
	bool essentials_ok[4];		/* sys_enter_write, sys_exit_write, sched_switch, sched_process_exit */
};

static const char *const essentials[] = {
	"syscalls:sys_enter_write", "syscalls:sys_exit_write",
	"sched:sched_switch", "sched:sched_process_exit",
};

/* One item to the caller (unless it stopped): @fix NULL when OK. */
static void emit(struct check *c, const char *name, enum ipcperf_check_status status,
		 const char *fix, const char *fmt, va_list ap)
{
	char detail[CHECK_LINE_LEN];
	struct ipcperf_check_item it = { .name = name, .status = status, .detail = detail,
					 .fix = fix };

	vsnprintf(detail, sizeof(detail), fmt, ap);
	if (status != IPCPERF_CHECK_OK) {
		c->problems++;
		c->fatal |= status == IPCPERF_CHECK_FATAL;
	}
	if (!c->stop)
		c->stop = c->cb(c->ctx, &it);
}

__attribute__((format(printf, 3, 4)))
static void ok(struct check *c, const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(c, name, IPCPERF_CHECK_OK, NULL, fmt, ap);
	va_end(ap);
}

/* A problem; @fatal when no capture can work until it is fixed. */
__attribute__((format(printf, 5, 6)))
static void problem(struct check *c, const char *name, bool fatal, const char *fix,
		    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(c, name, fatal ? IPCPERF_CHECK_FATAL : IPCPERF_CHECK_PROBLEM, fix, fmt, ap);
	va_end(ap);
}

static const char *errno_name(int err)
{
	const char *name = err ? strerrorname_np(err) : NULL;

	return name ? name : "error";
}

/*
 * A binary with capabilities shows whoever runs it every process's calls
 * (ipcperf(1), PERMISSIONS): for the users of one group only, as the
 * manual asks. Its arguments: the binary twice, the capabilities, the binary.
 */
#define GROUP_SETCAP "sudo chgrp GROUP %s && sudo chmod 0750 %s && sudo setcap %s+ep %s, " \
	"with the users who may see every process's calls in GROUP"

/*
 * The capabilities of a binary for other users, each for one thing:
 * CAP_PERFMON opens tracepoints and counters (of any process: CPU-wide),
 * CAP_BPF (with CAP_PERFMON) loads the fd identity program. Neither reads
 * tracefs, root's only by default: see tracefs_fix().
 */
static void setcap_fix(const struct check *c, const char *caps, char *buf, size_t len)
{
	snprintf(buf, len, "run as root (sudo ipcperf ...), or: " GROUP_SETCAP, c->exe, c->exe, caps,
		 c->exe);
}

/*
 * Read access to tracefs for a user: a group (the mount applies it to every
 * file), else CAP_DAC_READ_SEARCH, which reads any file: ipcperf then opens
 * the files a user names with that user's own rights (cli/userfile.c).
 */
static void tracefs_fix(const struct check *c, char *buf, size_t len)
{
	snprintf(buf, len, "sudo mount -o remount,gid=GROUP,mode=0750 %s, with the user in GROUP "
		 "(or run as root, or: " GROUP_SETCAP "; CAP_DAC_READ_SEARCH is for tracefs only)",
		 c->tracefs_dir[0] ? c->tracefs_dir : "/sys/kernel/tracing", c->exe, c->exe,
		 "cap_perfmon,cap_bpf,cap_dac_read_search", c->exe);
}

/* The fix for tracepoints denied: tracefs's when that is what denied them. */
static void denied_fix(const struct check *c, char *buf, size_t len)
{
	if (c->tracefs_denied)
		tracefs_fix(c, buf, len);
	else
		setcap_fix(c, "cap_perfmon,cap_bpf", buf, len);
}

static bool has_cap(const struct check *c, int bit)
{
	if (!c->caps_known)
		return c->euid == 0;
	return (c->capeff >> bit) & 1;
}

static bool perfmon_capable(const struct check *c)
{
	return has_cap(c, CAPB_PERFMON) || has_cap(c, CAPB_SYS_ADMIN);
}

/* Effective capabilities: /proc/self/status, else capget(2). */
static void read_caps(struct check *c)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];

	if (f) {
		while (fgets(line, sizeof(line), f)) {
			if (!strncmp(line, "CapEff:", 7)) {
				c->capeff = strtoull(line + 7, NULL, 16);
				c->caps_known = true;
				break;
			}
		}
		fclose(f);
	}
	if (!c->caps_known) {
		struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
		struct __user_cap_data_struct data[2];

		memset(data, 0, sizeof(data));
		if (syscall(SYS_capget, &hdr, data) == 0) {
			c->capeff = (uint64_t)data[1].effective << 32 | data[0].effective;
			c->caps_known = true;
		}
	}
}

static void read_identity(struct check *c)
{
	struct passwd *pw;
	ssize_t n;

	c->euid = geteuid();
	pw = getpwuid(c->euid);
	if (c->euid == 0)
		snprintf(c->who, sizeof(c->who), "root");
	else if (pw)
		snprintf(c->who, sizeof(c->who), "%s (uid %u)", pw->pw_name, (unsigned int)c->euid);
	else
		snprintf(c->who, sizeof(c->who), "uid %u", (unsigned int)c->euid);
	read_caps(c);
	n = readlink("/proc/self/exe", c->exe, sizeof(c->exe) - 1);
	if (n > 0)
		c->exe[n] = '\0';
	else
		snprintf(c->exe, sizeof(c->exe), "$(command -v ipcperf)");
}

/* An integer from a /proc/sys file; false if it cannot be read. */
static bool read_sysctl(const char *path, long long *v)
{
	FILE *f = fopen(path, "re");
	bool ok = false;

	if (f) {
		ok = fscanf(f, "%lld", v) == 1;
		fclose(f);
	}
	return ok;
}

/* Is filesystem @type known to the kernel (/proc/filesystems)? */
static bool fs_known(const char *type)
{
	FILE *f = fopen("/proc/filesystems", "re");
	char line[128];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *name = strrchr(line, '\t');

		name = name ? name + 1 : line;
		name[strcspn(name, "\n")] = '\0';
		found = !strcmp(name, type);
	}
	fclose(f);
	return found;
}

/* Where tracefs is mounted: a tracefs mount, else debugfs/tracing. */
static bool find_tracefs(char *dir, size_t len)
{
	FILE *f = fopen("/proc/mounts", "re");
	char dev[256], mnt[256], type[64], rest[512];
	bool found = false;
	char debugfs[256] = "";

	if (!f)
		return false;
	while (fscanf(f, "%255s %255s %63s %511[^\n]", dev, mnt, type, rest) == 4) {
		if (!strcmp(type, "tracefs") && (!found || !strcmp(mnt, "/sys/kernel/tracing"))) {
			snprintf(dir, len, "%s", mnt);
			found = true;
		} else if (!strcmp(type, "debugfs") && !debugfs[0]) {
			snprintf(debugfs, sizeof(debugfs), "%s", mnt);
		}
	}
	fclose(f);
	if (!found && debugfs[0]) {
		struct stat st;
		char path[300];

		snprintf(path, sizeof(path), "%s/tracing/events", debugfs);
		if (stat(path, &st) == 0) {
			snprintf(dir, len, "%.240s/tracing", debugfs);
			found = true;
		}
	}
	return found;
}

static void check_tracefs(struct check *c)
{
	char dir[256], path[400];
	int fd, err;

	if (!find_tracefs(dir, sizeof(dir))) {
		if (!fs_known("tracefs") && !fs_known("debugfs")) {
			problem(c, "tracefs", true, "boot a kernel built with CONFIG_FTRACE=y and "
				"CONFIG_FTRACE_SYSCALLS=y (see: grep FTRACE /boot/config-$(uname -r))",
				"this kernel has no tracefs: no tracepoint can be read");
		} else if (c->euid == 0 && has_cap(c, CAPB_SYS_ADMIN)) {
			ok(c, "tracefs", "tracefs is not mounted; ipcperf mounts it at /sys/kernel/tracing when it "
			   "starts (as root)");
		} else {
			problem(c, "tracefs", true, "sudo mount -t tracefs nodev /sys/kernel/tracing",
				"tracefs is not mounted, and %s may not mount it", c->who);
		}
		return;
	}
	/* A format file is what a session reads first: can we? */
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/format", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(c->tracefs_dir, sizeof(c->tracefs_dir), "%s", dir);
	if (fd >= 0) {
		close(fd);
		ok(c, "tracefs", "tracefs mounted at %s and readable", dir);
		return;
	}
	err = errno;
	if (err == EACCES || err == EPERM) {
		char fix[FIX_LEN];

		c->tracefs_denied = true;
		tracefs_fix(c, fix, sizeof(fix));
		problem(c, "tracefs", true, fix, "tracefs is mounted at %s but %s may not read it (%s on %s)",
			dir, c->who, errno_name(err), path);
	} else {
		problem(c, "tracefs", true, "boot a kernel built with CONFIG_FTRACE=y (see: grep FTRACE "
			"/boot/config-$(uname -r))",
			"tracefs is mounted at %s but has no sched tracepoints (%s: %s)",
			dir, path, errno_name(err));
	}
}

static void check_paranoid(struct check *c)
{
	long long p;
	char fix[FIX_LEN];

	if (!read_sysctl("/proc/sys/kernel/perf_event_paranoid", &p)) {
		problem(c, "perf_event_paranoid", true, "boot a kernel built with CONFIG_PERF_EVENTS=y",
			"no /proc/sys/kernel/perf_event_paranoid: this kernel has no perf events");
		return;
	}
	c->paranoid = (int)p;
	c->have_paranoid = true;
	if (perfmon_capable(c)) {
		ok(c, "perf_event_paranoid", "kernel.perf_event_paranoid = %d; it does not apply: running as %s with %s",
		   c->paranoid, c->who, has_cap(c, CAPB_PERFMON) ? "CAP_PERFMON" : "CAP_SYS_ADMIN");
		return;
	}
	if (c->paranoid <= -1) {
		ok(c, "perf_event_paranoid", "kernel.perf_event_paranoid = %d: %s may trace without CAP_PERFMON",
		   c->paranoid, c->who);
		return;
	}
	snprintf(fix, sizeof(fix), "sudo sysctl -w kernel.perf_event_paranoid=-1 (or run as root, or "
		 "give the binary CAP_PERFMON: " GROUP_SETCAP ")", c->exe, c->exe, "cap_perfmon,cap_bpf",
		 c->exe);
	if (c->paranoid >= 2)
		problem(c, "perf_event_paranoid", true, fix, "kernel.perf_event_paranoid = %d and %s lacks CAP_PERFMON: "
			"it may not open kernel tracepoints%s", c->paranoid, c->who,
			c->paranoid >= 3 ? " nor any perf event" : "");
	else
		problem(c, "perf_event_paranoid", true, fix, "kernel.perf_event_paranoid = %d and %s lacks CAP_PERFMON: "
			"the raw data of sched tracepoints needs -1%s", c->paranoid, c->who,
			c->paranoid > 0 ? ", tracing -a needs 0 or less" : "");
}

static void fmt_kib(char *buf, size_t len, unsigned long long kib)
{
	if (kib == ULLONG_MAX)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%llu KiB", kib);
}

/*
 * The kernel charges each ring (pages + 1) pages to the user: up to
 * perf_event_mlock_kb per online CPU for free, the rest against
 * RLIMIT_MEMLOCK. CAP_IPC_LOCK or perf_event_paranoid = -1 lift the limit.
 */
static void check_mlock(struct check *c)
{
	long page = sysconf(_SC_PAGESIZE), ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long long page_kb = page > 0 ? (unsigned long long)page / 1024 : 4;
	unsigned long long need, limit, memlock_kb, mlock_kb;
	long long v;
	struct rlimit rl;
	char lim[32], rlim_s[32];
	char *fix = c->mlock_fix;
	size_t fix_len = sizeof(c->mlock_fix);

	if (ncpus < 1)
		ncpus = 1;
	need = (c->ring_pages + 1ull) * page_kb * (unsigned long long)ncpus;
	if (!read_sysctl("/proc/sys/kernel/perf_event_mlock_kb", &v) || v < 0)
		v = 516;
	mlock_kb = (unsigned long long)v;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		memlock_kb = ULLONG_MAX;
	else
		memlock_kb = (unsigned long long)rl.rlim_cur / 1024;
	limit = memlock_kb == ULLONG_MAX ? ULLONG_MAX : mlock_kb * (unsigned long long)ncpus + memlock_kb;
	fmt_kib(lim, sizeof(lim), limit);
	fmt_kib(rlim_s, sizeof(rlim_s), memlock_kb);

	if (has_cap(c, CAPB_IPC_LOCK) || (c->have_paranoid && c->paranoid <= -1)) {
		ok(c, "ring_buffers", "ring buffers: -m %u locks %llu KiB (%u+1 pages x %llu KiB x %ld CPUs); %s, so "
		   "the limit of %s (kernel.perf_event_mlock_kb %llu x %ld CPUs + RLIMIT_MEMLOCK %s) "
		   "does not apply", c->ring_pages, need, c->ring_pages, page_kb, ncpus,
		   has_cap(c, CAPB_IPC_LOCK) ?
			(c->euid == 0 ? "root has CAP_IPC_LOCK" : "this process has CAP_IPC_LOCK") :
			"kernel.perf_event_paranoid is -1",
		   lim, mlock_kb, ncpus, rlim_s);
		return;
	}
	if (need <= limit) {
		ok(c, "ring_buffers", "ring buffers: -m %u locks %llu KiB (%u+1 pages x %llu KiB x %ld CPUs), within "
		   "the limit of %s for %s (kernel.perf_event_mlock_kb %llu x %ld CPUs + "
		   "RLIMIT_MEMLOCK %s)", c->ring_pages, need, c->ring_pages, page_kb, ncpus, lim,
		   c->who, mlock_kb, ncpus, rlim_s);
		return;
	}
	{
		/* Smallest perf_event_mlock_kb that fits, and the largest ring that fits now. */
		unsigned long long want = (need - memlock_kb + (unsigned long long)ncpus - 1) /
					  (unsigned long long)ncpus;
		unsigned int fit = 0;

		for (unsigned int p = 1; p <= c->ring_pages; p <<= 1)
			if ((p + 1ull) * page_kb * (unsigned long long)ncpus <= limit)
				fit = p;
		if (fit)
			snprintf(fix, fix_len, "sudo sysctl -w kernel.perf_event_mlock_kb=%llu "
				 "(or a smaller ring: -m %u)", want, fit);
		else
			snprintf(fix, fix_len, "sudo sysctl -w kernel.perf_event_mlock_kb=%llu",
				 want);
	}
	problem(c, "ring_buffers", true, fix, "ring buffers: -m %u needs %llu KiB locked (%u+1 pages x %llu KiB x "
		"%ld CPUs), more than the %s %s may lock (kernel.perf_event_mlock_kb %llu x %ld "
		"CPUs + RLIMIT_MEMLOCK %s)", c->ring_pages, need, c->ring_pages, page_kb, ncpus,
		lim, c->who, mlock_kb, ncpus, rlim_s);
}

static int on_event(void *ctx, const struct ipcperf_event_info *ev)
{
	struct check *c = ctx;
	bool good = ev->status == IPCPERF_AVAIL_OK;

	if (!strcmp(ev->group, "hardware")) {
		c->hw_total++;
		c->hw_ok += good;
		if (!strcmp(ev->name, ipcperf_counter_perf_name(IPCPERF_CNT_CYCLES))) {
			c->cycles_status = (int)ev->status;
			c->cycles_err = ev->err;
		}
		return 0;
	}
	if (!strcmp(ev->group, "software")) {
		c->sw_total++;
		c->sw_ok += good;
		return 0;
	}
	c->tp_total++;
	for (size_t i = 0; i < sizeof(essentials) / sizeof(essentials[0]); i++)
		if (good && !strcmp(ev->name, essentials[i]))
			c->essentials_ok[i] = true;
	if (good) {
		c->tp_ok++;
		return 0;
	}
	if (!c->tp_err)
		c->tp_err = ev->err;
	if (ev->status == IPCPERF_AVAIL_DENIED) {
		c->tp_denied++;
	} else {
		if (c->tp_missing < 3)
			snprintf(c->tp_first_missing[c->tp_missing], sizeof(c->tp_first_missing[0]),
				 "%s", ev->name);
		c->tp_missing++;
		ipp_info("check: %s: not supported (%s)\n", ev->name, errno_name(ev->err));
	}
	return 0;
}

static void check_events(struct check *c)
{
	bool have_essentials = true;
	char fix[FIX_LEN];
	int err;

	c->cycles_status = -1;
	err = ipcperf_list_events(on_event, c);
	if (err < 0) {
		problem(c, "events", true, "run 'ipcperf check -v' for the library's explanation",
			"cannot try the events: %s", strerror(-err));
		return;
	}
	for (size_t i = 0; i < sizeof(essentials) / sizeof(essentials[0]); i++)
		have_essentials &= c->essentials_ok[i];

	/* Tracepoints: what a capture is made of. */
	denied_fix(c, fix, sizeof(fix));
	if (!c->tp_total) {
		problem(c, "tracepoints", true, "reinstall libipcperf", "the library offers no tracepoint");
	} else if (c->tp_denied) {
		problem(c, "tracepoints", c->tp_ok == 0, fix, "tracepoints: %u of %u may not be opened by %s (%s)",
			c->tp_denied, c->tp_total, c->who, errno_name(c->tp_err));
	} else if (!c->tp_ok) {
		problem(c, "tracepoints", true, "boot a kernel built with CONFIG_FTRACE_SYSCALLS=y (see: grep "
			"FTRACE_SYSCALLS /boot/config-$(uname -r))",
			"tracepoints: none of %u can be opened (%s)", c->tp_total,
			errno_name(c->tp_err));
	} else if (!have_essentials) {
		problem(c, "tracepoints", false, "boot a kernel built with CONFIG_FTRACE_SYSCALLS=y and "
			"CONFIG_SCHED_TRACER (see: grep -E 'FTRACE_SYSCALLS|SCHED_TRACER' "
			"/boot/config-$(uname -r))",
			"tracepoints: %u of %u can be opened, but not all of %s, %s, %s, %s",
			c->tp_ok, c->tp_total, essentials[0], essentials[1], essentials[2],
			essentials[3]);
	} else if (c->tp_missing) {
		ok(c, "tracepoints", "tracepoints: %u of %u can be opened; the %u this kernel lacks (%s%s%s%s%s) "
		   "are skipped", c->tp_ok, c->tp_total, c->tp_missing, c->tp_first_missing[0],
		   c->tp_missing > 1 ? ", " : "", c->tp_missing > 1 ? c->tp_first_missing[1] : "",
		   c->tp_missing > 2 ? ", " : "", c->tp_missing > 2 ? c->tp_first_missing[2] : "");
	} else {
		ok(c, "tracepoints", "tracepoints: %u of %u can be opened", c->tp_ok, c->tp_total);
	}

	/* Counters: they only add to stat's output; missing ones are reported, not guessed. */
	if (c->sw_ok == c->sw_total)
		ok(c, "software_counters", "software counters: %u of %u (task-clock, page-faults, "
		   "context-switches, cpu-migrations)", c->sw_ok, c->sw_total);
	else
		problem(c, "software_counters", false, "sudo sysctl -w kernel.perf_event_paranoid=1 (or run as root)",
			"software counters: only %u of %u can be opened by %s", c->sw_ok,
			c->sw_total, c->who);
	if (c->cycles_status == IPCPERF_AVAIL_OK)
		ok(c, "hardware_counters", "hardware PMU present: %u of %u hardware counters (cycles, instructions, "
		   "cache-references, cache-misses)", c->hw_ok, c->hw_total);
	else if (c->cycles_status == IPCPERF_AVAIL_DENIED)
		problem(c, "hardware_counters", false, "sudo sysctl -w kernel.perf_event_paranoid=1 (or run as root)",
			"hardware counters: %s may not open cycles (%s)", c->who,
			errno_name(c->cycles_err));
	else if (c->cycles_status == IPCPERF_AVAIL_MISSING)
		problem(c, "hardware_counters", false, "none inside this machine: on a VM, give the guest the host's PMU "
			"(e.g. qemu-system-x86_64 -cpu host,pmu=on); until then stat shows them as "
			"<not supported>",
			"no hardware PMU: cycles cannot be opened (%s), so cycles, instructions and "
			"cache counters are not supported; tracing is not affected",
			errno_name(c->cycles_err));
}

/* ------------------------------------------------------------------ test capture */

/* What the library said during the test capture, for the PROBLEM line. */
struct lib_msg {
	char s[512];
};

/* Keep the library's first explanation (this thread's messages, not DEBUG). */
static void keep_msg(void *ctx, enum ipcperf_print_level level, const char *fmt, va_list ap)
{
	char *msg = ((struct lib_msg *)ctx)->s;
	size_t len = sizeof(((struct lib_msg *)ctx)->s), n = strlen(msg);

	if (level == IPCPERF_DEBUG || n >= len - 1)
		return;
	if (n) {
		msg[n++] = ' ';
		msg[n] = '\0';
	}
	vsnprintf(msg + n, len - n, fmt, ap);
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = '\0';
}

static const char *find_true(void)
{
	static const char *const paths[] = { "/bin/true", "/usr/bin/true" };

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (access(paths[i], X_OK) == 0)
			return paths[i];
	return NULL;
}

/* The fix for a failed capture, from its errno and what the checks above found. */
static const char *capture_fix(struct check *c, int err, char *buf, size_t len)
{
	if (err == EPERM && c->mlock_fix[0])
		snprintf(buf, len, "%s", c->mlock_fix);
	else if (err == EACCES || err == EPERM)
		denied_fix(c, buf, len);
	else if (err == ENOENT)
		snprintf(buf, len, "sudo mount -t tracefs nodev /sys/kernel/tracing");
	else
		snprintf(buf, len, "run 'ipcperf trace -v -- true' for the details");
	return buf;
}

/*
 * Where fd identities come from here: a PROBLEM, not fatal, when only from
 * /proc (every fd still counted; short-lived ones may stay unknown).
 */
static void check_fd_identity(struct check *c)
{
	char why[256], fix[FIX_LEN];
	int err;

	if (ipcperf_fd_identity_probe(why, sizeof(why)) == IPCPERF_FDID_BPF) {
		ok(c, "fd_identity", "fd identity: bpf: %s", why);
		return;
	}
	err = errno;
	if (err == ENOTSUP)
		snprintf(fix, sizeof(fix), "install clang, bpftool and libbpf-dev and rebuild "
			 "(./configure --enable-bpf)");
	else if (err == EPERM || err == EACCES)
		setcap_fix(c, "cap_bpf,cap_perfmon", fix, sizeof(fix));
	else if (err == ENOENT)
		snprintf(fix, sizeof(fix), "boot a kernel built with CONFIG_DEBUG_INFO_BTF=y");
	else
		snprintf(fix, sizeof(fix), "run 'ipcperf check -v' for the kernel's reason");
	problem(c, "fd_identity", false, fix, "fd identity: proc (%s): %s", errno_name(err), why);
}

/* @return true when a capture of /bin/true worked. */
static bool check_capture(struct check *c)
{
	const char *path = find_true();
	char *argv[2];
	IPCPERF_OPTS(ipcperf_session_opts, o, .ring_pages = c->ring_pages, .argv = argv);
	struct ipcperf_session_stats st = { .sz = sizeof(st) };
	struct ipcperf_session *s;
	struct lib_msg said = { "" };
	const char *lib_msg = said.s;
	char fix[FIX_LEN];
	uint64_t deadline;
	int err, status;

	if (!path) {
		ok(c, "capture", "test capture skipped: no /bin/true to trace");
		return !c->fatal;
	}
	argv[0] = (char *)path;
	argv[1] = NULL;
	ipp_print_keep(keep_msg, &said);
	s = ipcperf_session__new(&o);
	err = s ? ipcperf_session__start(s) : -errno;
	if (err == 0) {
		deadline = ipp_now_ns() + CAPTURE_TIMEOUT_MS * IPP_NS_PER_MS;
		while (!ipcperf_session__done(s) && ipp_now_ns() < deadline) {
			int r = ipcperf_session__poll(s, CAPTURE_POLL_MS);

			if (r < 0 && r != -EINTR) {
				err = r;
				break;
			}
		}
		ipcperf_session__stop(s);
		ipcperf_session__wait_child(s, &status);
		ipcperf_session__stats(s, &st);
	}
	ipcperf_session__delete(s);
	ipp_print_keep(NULL, NULL);
	if (lib_msg[0])
		ipp_info("check: the library said: %s\n", lib_msg);
	if (err < 0) {
		problem(c, "capture", true, capture_fix(c, -err, fix, sizeof(fix)),
			"test capture of %s with -m %u failed (%s)%s%s", path, c->ring_pages,
			errno_name(-err), lib_msg[0] ? ": " : "", lib_msg);
		return false;
	}
	if (!st.syscalls) {
		problem(c, "capture", true, "run 'ipcperf trace -v -- true' for the details",
			"test capture of %s with -m %u saw no syscall", path, c->ring_pages);
		return false;
	}
	ok(c, "capture", "test capture of %s with -m %u: %" PRIu64 " syscalls traced, %" PRIu64 " lost",
	   path, c->ring_pages, st.syscalls, st.lost);
	return true;
}

int ipcperf_machine_check(const struct ipcperf_check_opts *opts,
			  int (*cb)(void *ctx, const struct ipcperf_check_item *item), void *ctx)
{
	struct check c = { .cb = cb, .ctx = ctx, .capture = true,
			   .ring_pages = ipp_default_ring_pages() };
	bool works;

	if (!cb || (opts && (opts->sz < sizeof(size_t) ||
			     !ipp_opts_valid(opts, opts->sz, sizeof(*opts)))))
		return -EINVAL;
	if (IPP_OPTS_HAS(opts, ring_pages) && opts->ring_pages)
		c.ring_pages = opts->ring_pages;
	if (IPP_OPTS_HAS(opts, no_capture) && opts->no_capture)
		c.capture = false;
	if (c.ring_pages & (c.ring_pages - 1))
		return -EINVAL;
	read_identity(&c);
	check_tracefs(&c);
	check_paranoid(&c);
	check_mlock(&c);
	check_events(&c);
	check_fd_identity(&c);
	ok(&c, "libperf", "libperf %s (libipcperf %s)", ipcperf_libperf_version(), ipcperf_version());
	works = c.capture ? check_capture(&c) : !c.fatal;
	if (c.stop)
		return c.stop;
	return works;
}
