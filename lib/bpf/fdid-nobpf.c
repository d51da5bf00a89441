/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The loader of fdid-bpf.h in a build without BPF (configure found no clang
 * for -target bpf, bpftool, libbpf or kernel BTF): nothing can be loaded,
 * and sessions keep to /proc.
 */
#include "config.h"
#include <errno.h>
#include <string.h>
#include <linux/perf_event.h>
#include "internal.h"
#include "fdid-bpf.h"

struct ipp_bpf *ipp_bpf__new(const struct ipp_bpf_opts *opts)
{
	return ipp_null_errno(ENOTSUP);
}

void ipp_bpf__delete(struct ipp_bpf *b)
{
}

int ipp_bpf__add_target(struct ipp_bpf *b, pid_t tgid)
{
	return -ENOTSUP;
}

int ipp_bpf__add_command(struct ipp_bpf *b, pid_t tgid)
{
	return -ENOTSUP;
}

bool ipp_bpf__pairs(const struct ipp_bpf *b)
{
	return false;
}

int ipp_bpf__want_syscall(struct ipp_bpf *b, int nr)
{
	return -ENOTSUP;
}

void ipp_bpf__stop_calls(struct ipp_bpf *b)
{
}

int ipp_bpf__calls_under_way(const struct ipp_bpf *b, uint64_t *n)
{
	*n = 0;
	return -ENOTSUP;
}

int ipp_bpf__stat_on_cpu(const struct ipp_bpf *b, enum ipp_fdid_stat which, int cpu,
			 uint64_t *out)
{
	return -ENOTSUP;
}

int ipp_bpf__remove_target(struct ipp_bpf *b, pid_t tgid)
{
	return -ENOTSUP;
}

void ipp_bpf__output_attr(struct perf_event_attr *a, clockid_t clockid)
{
	memset(a, 0, sizeof(*a));
}

int ipp_bpf__set_output(struct ipp_bpf *b, int cpu, int ring_fd, clockid_t clockid)
{
	return -ENOTSUP;
}

const uint64_t *ipp_bpf__ids(const struct ipp_bpf *b, size_t *nr)
{
	*nr = 0;
	return NULL;
}

int ipp_bpf__enable(struct ipp_bpf *b)
{
	return -ENOTSUP;
}

int ipp_bpf__stats(const struct ipp_bpf *b, uint64_t out[IPP_FDID_NR_STATS])
{
	return -ENOTSUP;
}

int ipp_bpf__for_each_prog(const struct ipp_bpf *b,
			   int (*cb)(void *ctx, const char *name, uint64_t runs, uint64_t ns),
			   void *ctx)
{
	return -ENOTSUP;
}

uint64_t ipp_bpf__missed(const struct ipp_bpf *b)
{
	return 0;
}

size_t ipp_bpf__nr_programs(const struct ipp_bpf *b)
{
	return 0;
}

int ipp_bpf__seed_thread(struct ipp_bpf *b, pid_t tid, pid_t tgid, pid_t root,
			 const char *comm, const struct ipp_task_acct *base)
{
	return -ENOTSUP;
}

bool ipp_bpf__counts_sched(const struct ipp_bpf *b)
{
	return false;
}

bool ipp_bpf__task_records(const struct ipp_bpf *b)
{
	return false;
}

int ipp_bpf__for_each_sched(const struct ipp_bpf *b,
			    int (*cb)(void *ctx, uint32_t tid, const struct ipp_sched_slot *t),
			    void *ctx)
{
	return -ENOTSUP;
}

bool ipp_bpf__sums(const struct ipp_bpf *b)
{
	return false;
}

int ipp_bpf__for_each_sum(const struct ipp_bpf *b, ipp_bpf_sum_fn cb, void *ctx)
{
	return -ENOTSUP;
}

int ipp_bpf__settle_sums(struct ipp_bpf *b)
{
	return 0;
}
