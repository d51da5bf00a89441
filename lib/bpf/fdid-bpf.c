/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The loader of the BPF programs; fdid-bpf.h describes it. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "internal.h"
#include "syscalls.h"
#include "fdid-bpf.h"
#include "syscalls.h"
#include "fdid-bpf-int.h"

#define DEFAULT_MAX_TARGETS 8192
/* How many threads (of the targets or of the machine) sched_tot can count at once. */
#define SCHED_THREADS 16384
#define SCHED_THREADS_ALL 65536

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level != LIBBPF_DEBUG)
		ipp_vprint(IPCPERF_DEBUG, fmt, ap);
	return 0;
}

/* libbpf has one print hook per process, so it is set once, whichever thread opens the programs. */
static pthread_once_t print_once = PTHREAD_ONCE_INIT;

static void set_print(void)
{
	libbpf_set_print(libbpf_print);
}

static int sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu, int group,
			       unsigned long flags)
{
	return (int)syscall(__NR_perf_event_open, a, pid, cpu, group, flags);
}

/* Return program @p's job, which its name tells (progs.bpf.c). */
static enum job job_of(const struct bpf_program *p)
{
	const char *name = bpf_program__name(p);

	if (!strncmp(name, "args_", 5))
		return JOB_ARGS;
	if (!strncmp(name, "sched_", 6))
		return JOB_SCHED;
	if (!strncmp(name, "call_", 5))
		return JOB_CALLS;
	return JOB_FDID;
}

/* Whether program @p is to be loaded, by what was asked for its job, then for itself. */
static bool wanted_prog(struct ipp_bpf *b, struct bpf_program *p)
{
	const struct progs_bpf *k = b->skel;
	const char *name = bpf_program__name(p);
	enum job j = job_of(p);

	if ((j == JOB_ARGS && !b->want_args) || (j == JOB_SCHED && !b->counts_sched) ||
	    (j == JOB_CALLS && !b->pairs))
		return false;
	/* Only call_exit goes there, and only for the sums' flushes. */
	if (!strcmp(name, "call_flush"))
		return b->aggs;
	/* Load one of the two, depending on whether the caller may read every task's memory. */
	if (!strcmp(name, "args_enter") || !strcmp(name, "args_enter_r"))
		return k->rodata->restricted == !strcmp(name, "args_enter_r");
	if (!strcmp(name, "on_fork") || !strcmp(name, "on_exit"))
		return (k->rodata->follow_forks && !k->rodata->trace_all) || k->rodata->task_records;
	return true;
}

/* Set syscall @nr in @map, one of the program's by-number maps (want, fd_calls), to @v. */
static int set_nr_to(struct bpf_map *map, int nr, uint8_t v)
{
	uint32_t key = (uint32_t)nr;

	if (nr < 0 || nr >= IPP_FDID_MAX_NR)
		return -EINVAL;
	if (bpf_map__update_elem(map, &key, sizeof(key), &v, sizeof(v), BPF_ANY) < 0)
		return -errno;
	return 0;
}

struct fd_call {
	int nr;
	uint8_t kind;
};

#define FD_CALL(name, k) { __NR_##name, IPP_FDID_K_##k }

/* The calls that make fds (this architecture's numbers), and what sys_exit reads of each. */
static const struct fd_call fd_calls[] = {
	FD_CALL(openat, RET), FD_CALL(openat2, RET), FD_CALL(socket, RET), FD_CALL(accept, RET),
	FD_CALL(accept4, RET), FD_CALL(dup, RET), FD_CALL(dup3, RET), FD_CALL(eventfd2, RET),
	FD_CALL(epoll_create1, RET), FD_CALL(timerfd_create, RET), FD_CALL(inotify_init1, RET),
	FD_CALL(memfd_create, RET), FD_CALL(pidfd_open, RET), FD_CALL(fcntl, FCNTL),
	FD_CALL(pipe2, PAIR1), FD_CALL(socketpair, PAIR4), FD_CALL(connect, CONNECT),
	FD_CALL(bind, CONNECT),
	FD_CALL(recvmsg, RECVMSG),
#ifdef __NR_open
	FD_CALL(open, RET), FD_CALL(creat, RET), FD_CALL(dup2, RET), FD_CALL(pipe, PAIR1),
	FD_CALL(eventfd, RET), FD_CALL(epoll_create, RET), FD_CALL(inotify_init, RET),
#endif
};

/* The read and write calls whose IO record is asked for (io_records). */
static const int io_calls[] = {
	__NR_read, __NR_write, __NR_readv, __NR_writev, __NR_pread64, __NR_pwrite64,
	__NR_preadv, __NR_pwritev, __NR_recvfrom, __NR_sendto, __NR_sendmsg,
};

static int set_fd_calls(struct ipp_bpf *b)
{
	struct bpf_map *m = b->skel->maps.fd_calls;
	int err = 0;

	for (size_t i = 0; !err && i < sizeof(fd_calls) / sizeof(fd_calls[0]); i++)
		err = set_nr_to(m, fd_calls[i].nr, fd_calls[i].kind);
	for (size_t i = 0; !err && b->skel->rodata->io_records &&
			   i < sizeof(io_calls) / sizeof(io_calls[0]); i++)
		err = set_nr_to(m, io_calls[i], IPP_FDID_K_IO);
	return err;
}

struct specs_ctx {
	struct bpf_map *map;
	int err;
};

/* Return syscall @name's number on this architecture, or -1. */
static int nr_of(const char *name)
{
	for (int nr = 0; nr <= ipp_syscall_max; nr++)
		if (ipp_syscall_names[nr] && !strcmp(ipp_syscall_names[nr], name))
			return nr;
	return -1;
}

static void set_one_spec(void *ctx, const char *name, const struct ipp_arg_spec *spec)
{
	struct specs_ctx *c = ctx;
	uint32_t key;
	int nr = nr_of(name);

	if (nr < 0 || nr >= IPP_FDID_MAX_NR || c->err)
		return;	/* not a call of this architecture */
	key = (uint32_t)nr;
	if (bpf_map__update_elem(c->map, &key, sizeof(key), spec, sizeof(*spec), BPF_ANY) < 0)
		c->err = -errno;
}

/*
 * Fill arg_specs with what the args job reads of each call (args-rec.c), by
 * this architecture's numbers.
 */
static int set_arg_specs(struct ipp_bpf *b)
{
	struct specs_ctx c = { .map = b->skel->maps.arg_specs };

	if (!b->want_args)
		return 0;
	ipp_args_for_each_spec(set_one_spec, &c);
	return c.err;
}

/*
 * With trace_all, set every bit of the target bitmap: every tgid may be a
 * target, and maybe_target() looks only at its bit.
 */
static void set_all_bits(struct ipp_bpf *b)
{
	if (b->skel->rodata->trace_all && b->skel->bss)
		memset(b->skel->bss->target_bits, 0xff, sizeof(b->skel->bss->target_bits));
}

/* Put program @p into slot @key of exit_next. */
static int set_next(struct ipp_bpf *b, uint32_t key, const struct bpf_program *p)
{
	int fd = bpf_program__fd(p);

	if (bpf_map__update_elem(b->skel->maps.exit_next, &key, sizeof(key), &fd, sizeof(fd),
				 BPF_ANY) < 0)
		return -errno;
	return 0;
}

/*
 * Chain the tail calls (common.bpf.h, exit_next): exit_gate calls exit_fd,
 * and when the calls are paired exit_fd calls call_exit and call_flush.
 */
static int set_exit_next(struct ipp_bpf *b)
{
	int err = set_next(b, 0, b->skel->progs.exit_fd);

	if (!err && b->pairs)
		err = set_next(b, 1, b->skel->progs.call_exit);
	if (!err && b->pairs && bpf_program__autoload(b->skel->progs.call_flush))
		err = set_next(b, 2, b->skel->progs.call_flush);
	return err;
}

/* Copy each program's verifier statistics into its part of b->logs. */
static int keep_logs(struct ipp_bpf *b)
{
	struct bpf_program *p;
	size_t i = 0;

	b->logs = calloc(b->nr_progs ? b->nr_progs : 1, LOG_SIZE);
	if (!b->logs)
		return -ENOMEM;
	bpf_object__for_each_program(p, b->skel->obj) {
		if (!bpf_program__autoload(p))
			continue;
		bpf_program__set_log_level(p, 4);
		bpf_program__set_log_buf(p, b->logs + i++ * LOG_SIZE, LOG_SIZE);
	}
	return 0;
}

/* Set the programs' settings from what was asked. */
static void set_rodata(struct ipp_bpf *b, const struct ipp_bpf_opts *opts)
{
	struct progs_bpf__rodata *r = b->skel->rodata;

	r->trace_all = IPP_OPTS_HAS(opts, all_tasks) && opts->all_tasks;
	r->follow_forks = !(IPP_OPTS_HAS(opts, user_follow) && opts->user_follow);
	r->io_records = IPP_OPTS_HAS(opts, io_records) && opts->io_records;
	r->page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	b->pairs = IPP_OPTS_HAS(opts, pair_calls) && opts->pair_calls && r->can_pair;
	r->pair_calls = b->pairs;
	r->pair_switches = b->pairs && IPP_OPTS_HAS(opts, pair_switches) && opts->pair_switches;
	if (IPP_OPTS_HAS(opts, exclude_tgid) && opts->exclude_tgid > 0)
		r->exclude_tgid = (uint32_t)opts->exclude_tgid;
	b->counts_sched = IPP_OPTS_HAS(opts, count_sched) && opts->count_sched && b->pairs;
	r->count_sched = b->counts_sched;
	r->task_records = b->pairs && IPP_OPTS_HAS(opts, task_records) && opts->task_records;
	r->nr_exit = SYS_exit;
	r->nr_exit_group = SYS_exit_group;
	r->nr_rt_sigreturn = SYS_rt_sigreturn;
	r->nr_execve = SYS_execve;
	r->nr_execveat = SYS_execveat;
	/* The kernel flushes the sums at the targets' exits: not with all tasks or IO records. */
	b->aggs = b->pairs && IPP_OPTS_HAS(opts, agg_calls) && opts->agg_calls && !r->trace_all &&
		  r->follow_forks && !r->io_records;
	r->agg_calls = b->aggs;
	r->nr_cpus = (uint32_t)b->nr_cpus;
	r->fast_slots = ipp_sum_rec__fast_slots(b->nr_cpus);
	b->want_args = b->pairs && IPP_OPTS_HAS(opts, call_args) && opts->call_args;
	r->restricted = IPP_OPTS_HAS(opts, restricted) && opts->restricted;
	r->caller_uid = (uint32_t)getuid();
	r->caller_gid = (uint32_t)getgid();
}

/* Set the maps' sizes from what was asked; the args job's maps are made only for that job. */
static void set_map_sizes(struct ipp_bpf *b, const struct ipp_bpf_opts *opts)
{
	struct progs_bpf *k = b->skel;

	if (IPP_OPTS_HAS(opts, max_targets) && opts->max_targets)
		bpf_map__set_max_entries(k->maps.targets, opts->max_targets);
	else
		bpf_map__set_max_entries(k->maps.targets, DEFAULT_MAX_TARGETS);
	bpf_map__set_max_entries(k->maps.fdid_out, (uint32_t)b->nr_cpus);
	/* The threads counted at once, of the targets or of the machine. */
	bpf_map__set_max_entries(k->maps.sched_tot,
				 !b->counts_sched ? 1 :
				 b->skel->rodata->trace_all ? SCHED_THREADS_ALL : SCHED_THREADS);
	/* Allocated as keys come (no prealloc), so this is only the bound, by CPUs (sum-rec.h). */
	bpf_map__set_max_entries(k->maps.agg, b->aggs ? ipp_sum_rec__agg_keys(b->nr_cpus) : 1);
	bpf_map__set_max_entries(k->maps.agg_fast, b->aggs ? k->rodata->fast_slots : 1);
	bpf_map__set_autocreate(k->maps.arg_specs, b->want_args);
	bpf_map__set_autocreate(k->maps.arg_slots, b->want_args);
}

/*
 * Load the object with the programs asked for, and time it. One load means
 * one parse of the kernel's BTF (progs.bpf.c); exit_fd's verification
 * takes most of the time.
 */
static int load_progs(struct ipp_bpf *b)
{
	struct bpf_program *p;
	uint64_t t0 = ipp_now_ns();
	int err;

	bpf_object__for_each_program(p, b->skel->obj) {
		bool load = wanted_prog(b, p);

		bpf_program__set_autoload(p, load);
		b->nr_progs += load;
	}
	if (b->load_stats && (err = keep_logs(b)) < 0)
		return err;
	err = progs_bpf__load(b->skel);
	if (err)
		return err;
	b->load_ns = ipp_now_ns() - t0;
	return 0;
}

static void load_failed(int err)
{
	if (err == -EPERM || err == -EACCES)
		ipp_info("cannot load the fd identity BPF program (%s): needs CAP_BPF and "
			 "CAP_PERFMON; fd identity from /proc\n", strerror(-err));
	else
		ipp_info("cannot load the fd identity BPF program: %s; fd identity from /proc\n",
			 strerror(-err));
}

struct ipp_bpf *ipp_bpf__new(const struct ipp_bpf_opts *opts)
{
	struct ipp_bpf *b;
	int err;

	if (!ipp_opts_valid(opts, opts ? opts->sz : 0, sizeof(*opts))) {
		return ipp_null_errno(EINVAL);
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		ipp_info("no kernel BTF (/sys/kernel/btf/vmlinux): fd identity from /proc\n");
		return ipp_null_errno(ENOENT);
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->nr_cpus = libbpf_num_possible_cpus();
	pthread_once(&print_once, set_print);
	b->skel = progs_bpf__open();
	if (!b->skel || b->nr_cpus <= 0) {
		err = b->skel ? b->nr_cpus : -errno;
		goto fail;
	}
	set_rodata(b, opts);
	set_map_sizes(b, opts);
	b->load_stats = IPP_OPTS_HAS(opts, load_stats) && opts->load_stats;
	err = load_progs(b);
	if (err) {
		load_failed(err);
		goto fail;
	}
	set_all_bits(b);
	err = set_fd_calls(b);
	if (!err)
		err = set_exit_next(b);
	if (!err)
		err = set_arg_specs(b);
	if (err)
		goto fail;
	b->outs = calloc((size_t)b->nr_cpus, sizeof(*b->outs));
	b->ids = calloc((size_t)b->nr_cpus, sizeof(*b->ids));
	b->links = calloc(b->nr_progs, sizeof(*b->links));
	if (!b->outs || !b->ids || !b->links) {
		err = -ENOMEM;
		goto fail;
	}
	return b;
fail:
	ipp_bpf__delete(b);
	return ipp_null_errno(-err);
}

void ipp_bpf__delete(struct ipp_bpf *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->nr_links; i++)
		bpf_link__destroy(b->links[i]);
	for (size_t i = 0; i < b->nr_outs; i++)
		close(b->outs[i].fd);
	progs_bpf__destroy(b->skel);
	ipp_free_all(b->outs, b->ids, b->links, b->logs, b);
}

/* Set or clear @tgid's bit in the target bitmap (maybe_target()) in the mmapped .bss. */
static void mark_target(struct ipp_bpf *b, pid_t tgid, bool on)
{
	uint64_t bit = 1ull << ((uint32_t)tgid % 64);

	if ((uint32_t)tgid >= IPP_FDID_TARGET_BITS || !b->skel->bss || b->skel->rodata->trace_all)
		return;	/* with trace_all every bit is set (set_all_bits()) */
	if (on)
		__atomic_fetch_or(&b->skel->bss->target_bits[(uint32_t)tgid / 64], bit, __ATOMIC_SEQ_CST);
	else
		__atomic_fetch_and(&b->skel->bss->target_bits[(uint32_t)tgid / 64], ~bit,
				   __ATOMIC_SEQ_CST);
}

static int add_target(struct ipp_bpf *b, pid_t tgid, uint32_t val)
{
	uint32_t key = (uint32_t)tgid;

	if (tgid <= 0)
		return -EINVAL;
	/* Set the bit before the map entry, so that a tgid in the map always has its bit. */
	mark_target(b, tgid, true);
	if (bpf_map__update_elem(b->skel->maps.targets, &key, sizeof(key), &val, sizeof(val),
				 BPF_ANY) < 0)
		return errno == E2BIG ? -ENOSPC : -errno;
	return 0;
}

int ipp_bpf__add_target(struct ipp_bpf *b, pid_t tgid)
{
	return add_target(b, tgid, 0);
}

int ipp_bpf__add_command(struct ipp_bpf *b, pid_t tgid)
{
	return add_target(b, tgid, 1);	/* fdid.bpf.c: TARGET_AT_EXEC */
}

bool ipp_bpf__pairs(const struct ipp_bpf *b)
{
	return b->pairs;
}

#ifdef __NR_dup2
#define IS_DUP2(nr) ((nr) == __NR_dup2)
#define DUP2_WANTED(b) ((b)->want[__NR_dup2] != 0)
#else
#define IS_DUP2(nr) false
#define DUP2_WANTED(b) true
#endif

/* The calls that are added up: the read/write family on one fd (recvmsg unless it received fds). */
static const int sum_calls[] = {
	__NR_read, __NR_write, __NR_readv, __NR_writev, __NR_pread64, __NR_pwrite64,
	__NR_preadv, __NR_pwritev, __NR_preadv2, __NR_pwritev2, __NR_recvfrom, __NR_sendto,
	__NR_sendmsg, __NR_recvmsg,
};

/*
 * Whether call @nr, wanted by -s and not one of the table's (lib/syscalls.c
 * lists the I/O and fd calls), may be added up under no fd. It may not when
 * the session reads its record for more than its row: a new process, an
 * exec, the registers restored.
 */
static bool summable_other(int nr)
{
	static const int keep[] = {
		__NR_execve, __NR_execveat, __NR_clone, __NR_clone3, __NR_rt_sigreturn,
#ifdef __NR_fork
		__NR_fork,
#endif
#ifdef __NR_vfork
		__NR_vfork,
#endif
	};

	for (size_t i = 0; i < IPP_ARRAY_SIZE(keep); i++)
		if (nr == keep[i])
			return false;
	return true;
}

/* Return what the want map is to say of call @nr (enum ipp_sum_want). */
static uint8_t want_of(const struct ipp_bpf *b, int nr)
{
	if (!b->aggs)
		return WANT_CALL;
	for (size_t i = 0; i < IPP_ARRAY_SIZE(sum_calls); i++)
		if (nr == sum_calls[i])
			return nr == __NR_recvmsg ? WANT_SUM_NOFDS : WANT_SUM;
	if (nr == __NR_close)
		return WANT_FLUSH_FD1;
	if (nr == __NR_dup3 || IS_DUP2(nr))
		return WANT_FLUSH_FD2;
	if (nr == __NR_close_range)
		return WANT_FLUSH_RANGE;
	return ipp_scdesc_by_nr(nr) || !summable_other(nr) ? WANT_CALL : WANT_SUM_ANY;
}

static int set_want(struct ipp_bpf *b, int nr, uint8_t w)
{
	int err = set_nr_to(b->skel->maps.want, nr, w);

	if (err)
		return err;
	b->want[nr] = w;
	if ((w == WANT_SUM || w == WANT_SUM_NOFDS) && b->skel->bss->n_agg_nrs < IPP_SUM_MAX_NRS)
		b->skel->bss->agg_nrs[b->skel->bss->n_agg_nrs++] = nr;
	return 0;
}

int ipp_bpf__want_syscall(struct ipp_bpf *b, int nr)
{
	if (!b->pairs)
		return -EINVAL;
	if (nr < 0 || nr >= IPP_FDID_MAX_NR)
		return -EINVAL;
	/* close_range was set to flush only; from now on it gets its record too. */
	if (b->want[nr] && !(nr == __NR_close_range && b->want[nr] == WANT_FLUSH_ONLY_RANGE))
		return 0;
	/* close_range flushes its fds' sums, with no record unless the session traces it too. */
	if (b->aggs && !b->want[__NR_close_range] && nr != __NR_close_range) {
		int err = set_want(b, __NR_close_range, WANT_FLUSH_ONLY_RANGE);

		if (err)
			return err;
	}
	return set_want(b, nr, want_of(b, nr));
}

bool ipp_bpf__sums(const struct ipp_bpf *b)
{
	return b->aggs;
}

static int check_sums(struct ipp_bpf *b);

int ipp_bpf__settle_sums(struct ipp_bpf *b)
{
	int err = check_sums(b);

	return err < 0 ? err : b->aggs;
}

/*
 * Once every call is set, keep the sums only when every fd-ending call is
 * paired too (close, dup2, dup3; exec and exit flush by themselves);
 * otherwise no call is added up.
 */
static int check_sums(struct ipp_bpf *b)
{
	int err = 0;

	if (!b->aggs || (b->want[__NR_close] && b->want[__NR_dup3] &&
			 DUP2_WANTED(b)))
		return 0;
	ipp_debug("the calls are not added up in the kernel: close, dup2 or dup3 not traced\n");
	b->aggs = false;
	for (int nr = 0; !err && nr < IPP_FDID_MAX_NR; nr++)
		if (b->want[nr] == WANT_SUM || b->want[nr] == WANT_SUM_NOFDS ||
		    b->want[nr] == WANT_SUM_ANY)
			err = set_want(b, nr, WANT_CALL);
	if (!err && b->want[__NR_close_range] == WANT_FLUSH_ONLY_RANGE)
		err = set_want(b, __NR_close_range, 0);
	b->skel->bss->n_agg_nrs = 0;
	return err;
}

void ipp_bpf__stop_calls(struct ipp_bpf *b)
{
	if (b->pairs && b->skel->bss)
		b->skel->bss->calls_stopped = true;
	if (b->counts_sched && b->skel->bss)
		b->skel->bss->sched_stopped = true;
}

int ipp_bpf__seed_thread(struct ipp_bpf *b, pid_t tid, pid_t tgid, pid_t root,
			 const char *comm, const struct ipp_task_acct *base)
{
	struct ipp_sched_slot t = { .pid = tgid, .last_cpu = -1, .root = root,
				    .base = *base, .last = *base };
	uint32_t key = (uint32_t)tid;

	snprintf(t.comm, sizeof(t.comm), "%s", comm);
	if (!b->counts_sched)
		return -EINVAL;
	if (bpf_map__update_elem(b->skel->maps.sched_tot, &key, sizeof(key), &t, sizeof(t),
				 BPF_NOEXIST) < 0)
		return -errno;
	return 0;
}

int ipp_bpf__remove_target(struct ipp_bpf *b, pid_t tgid)
{
	uint32_t key = (uint32_t)tgid;

	if (bpf_map__delete_elem(b->skel->maps.targets, &key, sizeof(key), 0) < 0)
		return -errno;
	mark_target(b, tgid, false);
	/* The programs' memo of call targets (common.bpf.h, cpu_calls) ages. */
	if (b->skel->bss)
		__atomic_fetch_add(&b->skel->bss->targets_gone, 1, __ATOMIC_SEQ_CST);
	return 0;
}

void ipp_bpf__output_attr(struct perf_event_attr *a, clockid_t clockid)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_BPF_OUTPUT;
	a->sample_period = 1;
	/* The session's sample layout plus an IP, for perf script (IPP_PD_BPF_SAMPLE_TYPE). */
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = clockid;
	a->disabled = 1;
	/* The ring's owner decides when to wake its reader. */
	a->watermark = 1;
	a->wakeup_watermark = 1u << 30;
}

int ipp_bpf__set_output(struct ipp_bpf *b, int cpu, int ring_fd, clockid_t clockid)
{
	struct perf_event_attr a;
	struct output *o;
	uint32_t key = (uint32_t)cpu;
	int fd, err;

	if (b->enabled)
		return -EBUSY;
	if (cpu < 0 || cpu >= b->nr_cpus || b->nr_outs >= (size_t)b->nr_cpus)
		return -EINVAL;
	ipp_bpf__output_attr(&a, clockid);
	fd = sys_perf_event_open(&a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	o = &b->outs[b->nr_outs];
	o->cpu = cpu;
	o->fd = fd;
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring_fd) < 0 ||
	    ioctl(fd, PERF_EVENT_IOC_ID, &o->id) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	if (bpf_map__update_elem(b->skel->maps.fdid_out, &key, sizeof(key), &fd, sizeof(fd),
				 BPF_ANY) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	b->ids[b->nr_outs++] = o->id;
	return 0;
}

const uint64_t *ipp_bpf__ids(const struct ipp_bpf *b, size_t *nr)
{
	*nr = b->nr_outs;
	return b->ids;
}

size_t ipp_bpf__nr_programs(const struct ipp_bpf *b)
{
	return b->nr_progs;
}

/* Attach program @p. Returns 0 or -errno. */
static int attach_one(struct ipp_bpf *b, struct bpf_program *p)
{
	struct bpf_link *l = bpf_program__attach(p);

	if (!l) {
		int err = -errno;

		ipp_info("cannot attach %s: %s\n", bpf_program__section_name(p), strerror(-err));
		return err;
	}
	b->links[b->nr_links++] = l;
	return 0;
}

/*
 * Attach job @j's loaded programs. For the calls job call_switch comes
 * first, so that a call entered once call_enter runs has its slot moved at
 * any switch (common.bpf.h, cpu_calls). Returns 0 or -errno.
 */
static int attach_progs(struct ipp_bpf *b, enum job j)
{
	struct bpf_program *p, *first = j == JOB_CALLS ? b->skel->progs.call_switch : NULL;
	int err = 0;

	if (first && bpf_program__autoload(first))
		err = attach_one(b, first);
	bpf_object__for_each_program(p, b->skel->obj) {
		/* exit_fd, call_exit and call_flush are reached by tail calls (set_exit_next()). */
		if (err || !bpf_program__autoload(p) || job_of(p) != j || p == first ||
		    p == b->skel->progs.exit_fd || p == b->skel->progs.call_exit ||
		    p == b->skel->progs.call_flush)
			continue;
		err = attach_one(b, p);
	}
	return err;
}

int ipp_bpf__enable(struct ipp_bpf *b)
{
	int err;

	if (b->enabled)
		return -EBUSY;
	if ((err = check_sums(b)) < 0)
		return err;
	for (size_t i = 0; i < b->nr_outs; i++)
		if (ioctl(b->outs[i].fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
			return -errno;
	/*
	 * Attach job by job (enum job). The args job comes first, because its
	 * record comes before the call's fd and call records. The calls job
	 * comes last, so that on sys_exit the fd records' probe runs before the
	 * call record's (a tracepoint's probes run in the order they were
	 * registered), and each fd record precedes its call.
	 */
	err = 0;
	for (int j = 0; !err && j < NR_JOBS; j++)
		err = attach_progs(b, (enum job)j);
	if (err) {
		for (size_t i = 0; i < b->nr_links; i++)
			bpf_link__destroy(b->links[i]);
		b->nr_links = 0;
		return err;
	}
	/*
	 * Calls count as started from now on. The exit chain (fdid job) was
	 * attached before call_enter (calls job), so a call that ended in
	 * between had no enter seen: it is taken as begun before the start, not
	 * as under way at it.
	 */
	if (b->pairs && b->skel->bss)
		__atomic_store_n(&b->skel->bss->calls_started, true, __ATOMIC_SEQ_CST);
	b->enabled = true;
	return 0;
}
