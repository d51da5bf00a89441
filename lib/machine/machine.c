/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/machine/: services over the whole library, on its top floor: what
 * this machine offers (machine.c) and the machine check (check.c). They
 * open counters and a session as any caller would, and may call every
 * folder below; nothing in the library calls them.
 *
 * What this machine lets a session use: tracepoints and counters, tried for real.
 */
#include "config.h"
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <tracefs.h>
#include <unistd.h>
#include "internal.h"
#include "bpf/fdid-bpf.h"
#include "syscalls.h"

const char *ipcperf_libperf_version(void)
{
	return LIBPERF_VERSION_STRING;
}

static enum ipcperf_avail avail_of(int err)
{
	switch (err) {
	case 0: return IPCPERF_AVAIL_OK;
	case EACCES:
	case EPERM: return IPCPERF_AVAIL_DENIED;
	default: return IPCPERF_AVAIL_MISSING;
	}
}

/* Open the event on the calling thread and close it again: 0 or the errno. */
static int try_open(uint32_t type, uint64_t config)
{
	struct perf_event_attr a = { .type = type, .size = sizeof(a), .config = config,
				     .disabled = 1 };
	long fd = syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);

	if (fd < 0)
		return errno;
	close((int)fd);
	return 0;
}

static int tracepoint(const char *sys, const char *name,
		      int (*cb)(void *ctx, const struct ipcperf_event_info *ev), void *ctx)
{
	char full[96];
	struct ipcperf_event_info ev = { .group = sys };
	char *id = tracefs_event_file_read(NULL, sys, name, "id", NULL);
	int err = id ? 0 : (errno ? errno : ENOENT);

	if (id) {
		long long v = strtoll(id, NULL, 10);

		err = try_open(PERF_TYPE_TRACEPOINT, (uint64_t)v);
		free(id);
	}
	snprintf(full, sizeof(full), "%s:%s", sys, name);
	ev.name = full;
	ev.status = avail_of(err);
	ev.err = err;
	return cb(ctx, &ev);
}

int ipcperf_list_events(int (*cb)(void *ctx, const struct ipcperf_event_info *ev), void *ctx)
{
	static const char *const sched[] = { "sched_switch", "sched_wakeup", "sched_process_fork",
					     "sched_process_exec", "sched_process_exit" };
	static const struct { uint32_t type; uint64_t config; } cnt[IPCPERF_CNT__MAX] = {
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	};
	int ret;

	if (!cb)
		return -EINVAL;
	if (!tracefs_tracing_dir())
		ipp_info("tracefs is not mounted: mount -t tracefs nodev /sys/kernel/tracing\n");
	for (size_t i = 0; i < ipp_nr_syscalls; i++) {
		char name[48];

		if (ipp_syscalls[i].nr < 0)
			continue;
		snprintf(name, sizeof(name), "sys_enter_%s", ipp_scdesc_tp(&ipp_syscalls[i]));
		if ((ret = tracepoint("syscalls", name, cb, ctx)))
			return ret;
		snprintf(name, sizeof(name), "sys_exit_%s", ipp_scdesc_tp(&ipp_syscalls[i]));
		if ((ret = tracepoint("syscalls", name, cb, ctx)))
			return ret;
	}
	if ((ret = tracepoint("raw_syscalls", "sys_enter", cb, ctx)) ||
	    (ret = tracepoint("raw_syscalls", "sys_exit", cb, ctx)))
		return ret;
	for (size_t i = 0; i < IPP_ARRAY_SIZE(sched); i++)
		if ((ret = tracepoint("sched", sched[i], cb, ctx)))
			return ret;
	for (int i = 0; i < IPCPERF_CNT__MAX; i++) {
		int err = try_open(cnt[i].type, cnt[i].config);
		struct ipcperf_event_info ev = {
			.name = ipcperf_counter_perf_name(i), .status = avail_of(err), .err = err,
			.group = cnt[i].type == PERF_TYPE_HARDWARE ? "hardware" : "software",
		};

		if ((ret = cb(ctx, &ev)))
			return ret;
	}
	return 0;
}

enum ipcperf_fdid_source ipcperf_fd_identity_probe(char *why, size_t len)
{
	IPP_BPF_OPTS(o, .pair_calls = true, .count_sched = true);
	struct ipp_bpf *b = ipp_bpf__new(&o);
	const char *reason;
	bool pairs;
	int err;

	if (!b && errno != EPERM && errno != EACCES && errno != ENOENT && errno != ENOTSUP) {
		o.pair_calls = o.count_sched = false;	/* as a session does: the fd programs alone */
		b = ipp_bpf__new(&o);
	}
	if (b) {
		pairs = ipp_bpf__pairs(b);
		ipp_bpf__delete(b);
		if (why && len)
			snprintf(why, len, "the BPF program loads: fds are named from the kernel "
				 "at each call, exactly, whatever their life; %s",
				 pairs ? "live sessions have the kernel pair each call (one record "
					 "per call), and stat count each thread's switches and "
					 "wakeups there" :
					 "the calls come from their sys_enter and sys_exit samples");
		return IPCPERF_FDID_BPF;
	}
	switch ((err = errno)) {
	case ENOTSUP:
		reason = "this libipcperf was built without BPF (configure found no clang -target "
			 "bpf, bpftool, libbpf >= 1.1 or kernel BTF)";
		break;
	case EPERM:
	case EACCES:
		reason = "the BPF program needs CAP_BPF and CAP_PERFMON (or root)";
		break;
	case ENOENT:
		reason = "the kernel has no BTF (/sys/kernel/btf/vmlinux: CONFIG_DEBUG_INFO_BTF)";
		break;
	default:
		reason = "the kernel refused the BPF program";
		break;
	}
	if (why && len)
		snprintf(why, len, "fds are named from /proc: %s", reason);
	errno = err;
	return IPCPERF_FDID_PROC;
}
