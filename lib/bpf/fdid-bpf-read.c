/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the BPF programs counted, read back from their maps (fdid-bpf.h):
 * scheduling totals, the calls the kernel added up, the calls under way,
 * the programs' own counters, runs, misses and load statistics.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "internal.h"
#include "fdid-bpf-int.h"

bool ipp_bpf__counts_sched(const struct ipp_bpf *b)
{
	return b->counts_sched;
}

bool ipp_bpf__task_records(const struct ipp_bpf *b)
{
	return b->skel->rodata->task_records;
}

int ipp_bpf__for_each_sched(const struct ipp_bpf *b,
			    int (*cb)(void *ctx, uint32_t tid, const struct ipp_sched_slot *t),
			    void *ctx)
{
	const struct bpf_map *m = b->skel->maps.sched_tot;
	uint32_t key, next;
	struct ipp_sched_slot t;
	int err, ret;

	if (!b->counts_sched)
		return 0;
	for (err = bpf_map__get_next_key(m, NULL, &next, sizeof(next)); err == 0;
	     err = bpf_map__get_next_key(m, &key, &next, sizeof(next))) {
		key = next;
		if (bpf_map__lookup_elem(m, &key, sizeof(key), &t, sizeof(t), 0) < 0)
			continue;	/* gone since */
		if ((ret = cb(ctx, key, &t)) != 0)
			return ret;
	}
	return err == -ENOENT ? 0 : err;
}

/* Hand @v, CPU @cpu's copy of the sums of (@tgid, @fd, @nr), to @cb when it has calls. */
static int cpu_sum(struct ipp_sum_rec *v, uint32_t tgid, int32_t fd, int32_t nr, int cpu,
		   ipp_bpf_sum_fn cb, void *ctx)
{
	if (!v->ops)
		return 0;
	v->version = IPP_FDID_REC_VERSION;
	v->size = sizeof(*v);
	v->what = IPP_FDID_SUM;
	v->pid = (int32_t)tgid;
	v->fd = fd;
	v->nr = nr;
	v->cpu = (uint32_t)cpu;
	return cb(ctx, v);
}

/* Hand each per-CPU copy of one key's sums that has calls to @cb. */
static int each_cpu_sum(const struct ipp_bpf *b, const struct ipp_sum_key *k,
			struct ipp_sum_rec *v, ipp_bpf_sum_fn cb, void *ctx)
{
	int ret = 0;

	if (bpf_map__lookup_elem(b->skel->maps.agg, k, sizeof(*k), v,
				 sizeof(*v) * (size_t)b->nr_cpus, 0) < 0)
		return 0;	/* flushed since */
	for (int c = 0; c < b->nr_cpus && !ret; c++)
		ret = cpu_sum(&v[c], k->tgid, k->fd, k->nr, c, cb, ctx);
	return ret;
}

/* Hand each CPU's copy of the fast slots' sums (sum-rec.h) that has calls to @cb. */
static int each_fast_sum(const struct ipp_bpf *b, ipp_bpf_sum_fn cb, void *ctx)
{
	struct ipp_sum_slot *s = calloc((size_t)b->nr_cpus, sizeof(*s));
	int ret = 0;

	if (!s)
		return -ENOMEM;
	for (uint32_t i = 0; i < bpf_map__max_entries(b->skel->maps.agg_fast) && !ret; i++) {
		if (bpf_map__lookup_elem(b->skel->maps.agg_fast, &i, sizeof(i), s,
					 sizeof(*s) * (size_t)b->nr_cpus, 0) < 0) {
			ret = -errno;
			break;
		}
		for (int c = 0; c < b->nr_cpus && !ret; c++)
			if (s[c].tag)
				ret = cpu_sum(&s[c].v, IPP_SUM_TAG_TGID(s[c].tag),
					      IPP_SUM_TAG_FD(s[c].tag), IPP_SUM_TAG_NR(s[c].tag),
					      c, cb, ctx);
	}
	free(s);
	return ret;
}

int ipp_bpf__for_each_sum(const struct ipp_bpf *b, ipp_bpf_sum_fn cb, void *ctx)
{
	const struct bpf_map *m = b->skel->maps.agg;
	struct ipp_sum_key key, next;
	struct ipp_sum_rec *v;
	int err, ret;

	if (!b->aggs)
		return 0;
	ret = each_fast_sum(b, cb, ctx);
	if (ret)
		return ret;
	v = calloc((size_t)b->nr_cpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (err = bpf_map__get_next_key(m, NULL, &next, sizeof(next)); err == 0 && !ret;
	     err = bpf_map__get_next_key(m, &key, &next, sizeof(next))) {
		key = next;
		ret = each_cpu_sum(b, &key, v, cb, ctx);
	}
	free(v);
	return ret ? ret : err == -ENOENT ? 0 : err;
}

int ipp_bpf__calls_under_way(const struct ipp_bpf *b, uint64_t *n)
{
	uint64_t st[IPP_FDID_NR_STATS];
	int err;

	*n = 0;
	if (!b->pairs)
		return 0;
	err = ipp_bpf__stats(b, st);
	if (err)
		return err;
	*n = st[IPP_FDID_ST_ENTERED] > st[IPP_FDID_ST_DONE] ?
		     st[IPP_FDID_ST_ENTERED] - st[IPP_FDID_ST_DONE] : 0;
	return 0;
}

/* Store counter @k of every CPU in @v (nr_cpus values). Returns 0 or -errno. */
static int stat_per_cpu(const struct ipp_bpf *b, uint32_t k, uint64_t *v)
{
	if (bpf_map__lookup_elem(b->skel->maps.stats, &k, sizeof(k), v,
				 sizeof(*v) * (size_t)b->nr_cpus, 0) < 0)
		return -errno;
	return 0;
}

int ipp_bpf__stat_on_cpu(const struct ipp_bpf *b, enum ipp_fdid_stat which, int cpu,
			 uint64_t *out)
{
	uint64_t *v;
	int err;

	if (cpu < 0 || cpu >= b->nr_cpus || which >= IPP_FDID_NR_STATS)
		return -EINVAL;
	v = calloc((size_t)b->nr_cpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	err = stat_per_cpu(b, (uint32_t)which, v);
	if (!err)
		*out = v[cpu];
	free(v);
	return err;
}

int ipp_bpf__stats(const struct ipp_bpf *b, uint64_t out[IPP_FDID_NR_STATS])
{
	uint64_t *v = calloc((size_t)b->nr_cpus, sizeof(*v));
	int err = v ? 0 : -ENOMEM;

	for (uint32_t k = 0; !err && k < IPP_FDID_NR_STATS; k++) {
		out[k] = 0;
		err = stat_per_cpu(b, k, v);
		for (int c = 0; !err && c < b->nr_cpus; c++)
			out[k] += v[c];
	}
	free(v);
	return err;
}

typedef int (*prog_info_fn)(void *ctx, const struct bpf_program *p, const struct bpf_prog_info *info);

/*
 * Call @cb with each loaded program's kernel info, in load order. Returns
 * 0, -errno, or the first non-zero return of @cb.
 */
static int each_prog_info(const struct ipp_bpf *b, prog_info_fn cb, void *ctx)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, b->skel->obj) {
		struct bpf_prog_info info;
		uint32_t len = sizeof(info);
		int ret;

		if (!bpf_program__autoload(p))
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len) < 0)
			return -errno;
		if ((ret = cb(ctx, p, &info)))
			return ret;
	}
	return 0;
}

struct prog_runs {
	int (*cb)(void *ctx, const char *name, uint64_t runs, uint64_t ns);
	void *ctx;
};

static int prog_runs(void *ctx, const struct bpf_program *p, const struct bpf_prog_info *info)
{
	const struct prog_runs *r = ctx;

	return r->cb(r->ctx, bpf_program__name(p), info->run_cnt, info->run_time_ns);
}

int ipp_bpf__for_each_prog(const struct ipp_bpf *b,
			   int (*cb)(void *ctx, const char *name, uint64_t runs, uint64_t ns),
			   void *ctx)
{
	struct prog_runs r = { .cb = cb, .ctx = ctx };

	return each_prog_info(b, prog_runs, &r);
}

static int add_misses(void *ctx, const struct bpf_program *p, const struct bpf_prog_info *info)
{
	(void)p;
	*(uint64_t *)ctx += info->recursion_misses;
	return 0;
}

uint64_t ipp_bpf__missed(const struct ipp_bpf *b)
{
	uint64_t n = 0;

	each_prog_info(b, add_misses, &n);
	return n;
}

/* Return the number after @key in verifier log @log, or 0 if there is none. */
static unsigned long log_number(const char *log, const char *key)
{
	const char *at = strstr(log, key);

	return at ? strtoul(at + strlen(key), NULL, 10) : 0;
}

int ipp_bpf__for_each_load(const struct ipp_bpf *b,
			   int (*cb)(void *ctx, const char *name, size_t insns,
				     unsigned long processed, unsigned long verify_us),
			   void *ctx)
{
	struct bpf_program *p;
	size_t i = 0;

	bpf_object__for_each_program(p, b->skel->obj) {
		const char *log;
		int ret;

		if (!bpf_program__autoload(p))
			continue;
		log = b->logs ? b->logs + i++ * LOG_SIZE : "";
		ret = cb(ctx, bpf_program__name(p), bpf_program__insn_cnt(p),
			 log_number(log, "processed "), log_number(log, "verification time "));
		if (ret)
			return ret;
	}
	return 0;
}

uint64_t ipp_bpf__load_ns(const struct ipp_bpf *b)
{
	return b->load_ns;
}
