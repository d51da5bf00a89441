/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The calls added up in the kernel (agg_calls). The sums of each (tgid, fd,
 * nr) are kept in per-CPU maps and written out as summary records before
 * the record of the call that ends their fd, at an exec, or at a process's
 * exit. calls.bpf.c keeps the sums and flushes them at a close and an exec;
 * fdid.bpf.c flushes them at a process's exit. Both build on common.bpf.h.
 */
#ifndef IPP_AGG_BPF_H
#define IPP_AGG_BPF_H

#include "common.bpf.h"

/*
 * The sums of each (tgid, fd, nr), one copy per CPU. There are no atomics:
 * a program runs on one CPU at a time, and this kernel's voluntary
 * preemption does not preempt it. The value is the summary record itself,
 * so a flush fills in its header and writes it as it is. An entry is
 * allocated at its key's first call, without prealloc, since each takes
 * 2 KiB per CPU.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);	/* the loader sets it */
	__type(key, struct ipp_sum_key);
	__type(value, struct ipp_sum_rec);
} agg SEC(".maps");

/*
 * How many keys the agg map may hold: raised before a key is made and
 * lowered after one is deleted, so that it is never below the map's count.
 * A close flushes each call added up (up to 16), and most fds' sums are in
 * the fast slots: while it is 0, the flush skips the map's lookups, a
 * hashed lookup each (on nginx, two closes a request: 32 lookups).
 */
__u64 agg_keys;

/* A summary of zeros, which a new key starts from; it is never written. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ipp_sum_rec);
} agg_zero SEC(".maps");

#define AGG_MAX_CPUS 1024	/* the flush's bound; nr_cpus is the real one */

/*
 * Return lib/hist.c's bucket of @v: 32 exact buckets, then 32 per power of
 * two (hist_index() there). It is a global function so that it is verified
 * once, not once per path of its caller: inlined, its six branches
 * multiplied call_exit's paths by 64.
 */
__noinline __u32 sum_bucket(__u64 v)
{
	__u64 x = v;
	__u32 e = 0, shift;

	if (v < 32)
		return (__u32)v;
	if (x >> 32) { x >>= 32; e += 32; }
	if (x >> 16) { x >>= 16; e += 16; }
	if (x >> 8) { x >>= 8; e += 8; }
	if (x >> 4) { x >>= 4; e += 4; }
	if (x >> 2) { x >>= 2; e += 2; }
	if (x >> 1)
		e += 1;
	shift = e - 5;
	return (shift + 1) * 32 + (__u32)(v >> shift) - 32;
}

/*
 * The owner of each fast slot (sum-rec.h), the same on every CPU: the tag
 * of its key, or 0 when it is free. A key's first call claims a free slot of
 * its pair, and the flush of the key frees it. Each CPU's copy carries the
 * tag too: a copy whose tag is not its slot's key holds what an earlier key
 * left, and starts again from zero at its CPU's next call.
 */
__u64 agg_owner[IPP_SUM_FAST];
/*
 * When an fd was last ended (closed, or dup2'ed over) by a call of its
 * process, by a hash of (tgid, fd), using call_flush's clock. A call of
 * another thread on that fd that was under way meanwhile holds the file it
 * began with, which is no longer what the fd names. Such a call is not
 * added up under the fd's key, whose sums go to the fd's next incarnation,
 * but written as a call record, which the fd table charges to the
 * incarnation open at the call's start. Two fds that share a slot only send
 * a few more calls to records. close_range stamps range_end_ns, which
 * covers every fd.
 */
#define FD_ENDS 1024
__u64 fd_end_ns[FD_ENDS];
__u64 range_end_ns;

static __always_inline __u32 fd_end_slot(__u32 tgid, __s32 fd)
{
	return (__u32)((((__u64)tgid << 32 | (__u32)fd) * 0x9E3779B97F4A7C15ull) >> 56) &
	       (FD_ENDS - 1);
}

/*
 * Whether @fd of @tgid may have been ended since @start, so that a call begun
 * then used another file.
 */
static __always_inline bool fd_ended_since(__u32 tgid, __s32 fd, __u64 start)
{
	return fd_end_ns[fd_end_slot(tgid, fd)] >= start || range_end_ns >= start;
}

/*
 * The number of fast slots, a power of two from 2 to IPP_SUM_FAST, which the
 * loader sets by the CPUs.
 */
const volatile __u32 fast_slots = IPP_SUM_FAST;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);	/* the loader sets it: fast_slots with the sums */
	__type(key, __u32);
	__type(value, struct ipp_sum_slot);
} agg_fast SEC(".maps");

/* Return @k's tag (sum-rec.h), or 0 when it cannot have one. */
static __always_inline __u64 sum_tag(const struct ipp_sum_key *k)
{
	if (!k->tgid || k->tgid >= (1u << 22) || k->nr < 0 || k->nr >= 1024)
		return 0;
	return IPP_SUM_TAG(k->tgid, k->fd, k->nr);
}

/* Return the first slot of @tag's pair, an even index. */
static __always_inline __u32 fast_pair(__u64 tag)
{
	return (__u32)((tag * 0x9E3779B97F4A7C15ull) >> 40) & (fast_slots - 2) & (IPP_SUM_FAST - 2);
}

/*
 * Return the slot of @tag's pair that the tag owns or now claims, or
 * IPP_SUM_FAST when both belong to another key. Like sum_bucket(), it is a
 * global function, so that its paths are verified once, not once per path
 * of its callers.
 */
__noinline __u32 fast_slot(__u64 tag)
{
	__u32 i = fast_pair(tag);
	__u64 own;

	if (agg_owner[i] == tag)
		return i;
	if (agg_owner[i + 1] == tag)
		return i + 1;
	/*
	 * Another CPU may claim the same slot for the same key meanwhile; the
	 * slot is then this key's all the same.
	 */
	own = __sync_val_compare_and_swap(&agg_owner[i], 0, tag);
	if (!own || own == tag)
		return i;
	own = __sync_val_compare_and_swap(&agg_owner[i + 1], 0, tag);
	if (!own || own == tag)
		return i + 1;
	return IPP_SUM_FAST;
}

/* Return the current CPU's sums of @k in its fast slot, or NULL when it has none. */
static __always_inline struct ipp_sum_rec *fast_sums(const struct ipp_sum_key *k)
{
	__u64 tag = sum_tag(k);
	__u32 i, zero = 0;
	struct ipp_sum_slot *s;
	struct ipp_sum_rec *z;

	if (!tag || (i = fast_slot(tag)) >= IPP_SUM_FAST)
		return NULL;
	s = bpf_map_lookup_elem(&agg_fast, &i);
	if (!s)
		return NULL;
	if (s->tag != tag) {
		z = bpf_map_lookup_elem(&agg_zero, &zero);
		if (!z || bpf_probe_read_kernel(&s->v, sizeof(s->v), z) < 0)
			return NULL;
		s->tag = tag;
	}
	return &s->v;
}

/* Return the current CPU's sums of @k, made when there are none, or NULL when the map is full. */
static __always_inline struct ipp_sum_rec *sum_of(struct ipp_sum_key *k)
{
	struct ipp_sum_rec *v = fast_sums(k), *z;
	__u32 zero = 0;

	if (v)
		return v;
	v = bpf_map_lookup_elem(&agg, k);
	if (v)
		return v;
	z = bpf_map_lookup_elem(&agg_zero, &zero);
	if (!z)
		return NULL;
	/* An EEXIST failure means another CPU made it meanwhile. */
	__sync_fetch_and_add(&agg_keys, 1);
	if (bpf_map_update_elem(&agg, k, z, BPF_NOEXIST))
		__sync_fetch_and_add(&agg_keys, -1);
	return bpf_map_lookup_elem(&agg, k);
}

/*
 * Add to @v a call of thread @tid that began at @start, ended at @now and
 * returned @ret. It is a global function so that it is verified once;
 * otherwise each sums map that sum_of() may return from made a path of its
 * own through the caller. Returns 1 when the call was added, or 0 when its
 * duration's bucket is outside the sums' window or @v is NULL.
 */
__noinline int sum_add(struct ipp_sum_rec *v, __u64 start, __u64 now, long ret, __u32 tid)
{
	__u64 d = now > start ? now - start : 0;
	__u32 b = sum_bucket(d), rel;

	if (!v)
		return 0;
	if (!v->ops) {
		v->base = b / 32 > IPP_SUM_BELOW ? (b / 32 - IPP_SUM_BELOW) * 32 : 0;
		v->min_ns = d;
		v->first_ns = start;
	}
	if (b < v->base || b - v->base >= IPP_SUM_BUCKETS)
		return 0;
	rel = b - v->base;
	v->hist[rel & (IPP_SUM_BUCKETS - 1)]++;
	v->ops++;
	if (ret < 0)
		v->eagain++;
	else
		v->bytes += ret;
	v->time_ns += d;
	if (d < v->min_ns)
		v->min_ns = d;
	if (d > v->max_ns)
		v->max_ns = d;
	v->last_ns = now;
	v->tid = tid;
	return 1;
}

/*
 * Add call @nr of the thread in @pid_tgid (slot @c gives its start), which
 * returned @ret at @now, to the sums of @fd (-1 for a call on no fd).
 * Returns false when it was not added, because there was no room or its
 * duration's bucket is outside the sums' window; a call record is written
 * then.
 */
static __always_inline bool agg_add(struct ipp_call_slot *c, long nr, long ret, __u64 pid_tgid,
				    __u64 now, __s32 fd)
{
	struct ipp_sum_key k = { .tgid = pid_tgid >> 32, .fd = fd, .nr = (__s32)nr };
	struct ipp_sum_rec *v = sum_of(&k);

	if (!v) {
		count(IPP_FDID_ST_SUM_FULL);
		return false;
	}
	return sum_add(v, c->start, now, ret, (__u32)pid_tgid);
}

/*
 * The summary record as written: a CPU's scratch, where the buckets of a
 * summary are copied from its least call's to its largest's only. The rest
 * of the window is empty, and a short connection's calls fill a few dozen
 * of its 512 buckets: the whole record was 2 KiB a call and fd, which the
 * ring and the reader paid for every connection.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ipp_sum_rec);
} agg_out SEC(".maps");

/*
 * Write @v, CPU @cpu's sums of @k, as a summary record when it has any
 * calls: its buckets from its min's to its max's (base then names the
 * first of them), which hold every call added up.
 */
static __always_inline void emit_sum(void *ctx, struct ipp_sum_rec *v, const struct ipp_sum_key *k,
				     __u32 cpu)
{
	__u32 zero = 0, lo, hi;
	__u64 bytes, size;
	struct ipp_sum_rec *o;

	if (!v->ops)
		return;
	o = bpf_map_lookup_elem(&agg_out, &zero);
	if (!o) {
		count(IPP_FDID_ST_SUM_FAIL);
		return;
	}
	lo = sum_bucket(v->min_ns) - v->base;
	hi = sum_bucket(v->max_ns) - v->base;
	if (lo > hi || hi >= IPP_SUM_BUCKETS) {
		lo = 0;
		hi = IPP_SUM_BUCKETS - 1;
	}
	/* lo <= hi < IPP_SUM_BUCKETS: the masks change nothing but tell the verifier */
	bytes = (((__u64)(hi - lo) & (IPP_SUM_BUCKETS - 1)) + 1) * sizeof(v->hist[0]);
	lo &= IPP_SUM_BUCKETS - 1;
	__builtin_memcpy(o, v, __builtin_offsetof(struct ipp_sum_rec, hist));
	if (bpf_probe_read_kernel(o->hist, bytes, &v->hist[lo]) < 0)
		return;
	size = __builtin_offsetof(struct ipp_sum_rec, hist) + bytes;
	o->version = IPP_FDID_REC_VERSION;
	o->size = size;
	o->what = IPP_FDID_SUM;
	o->pid = (__s32)k->tgid;
	o->fd = k->fd;
	o->nr = k->nr;
	o->cpu = cpu;
	o->base = v->base + lo;
	count(IPP_FDID_ST_SUMS);
	if (bpf_perf_event_output(ctx, &fdid_out, BPF_F_CURRENT_CPU, o, size) < 0)
		count(IPP_FDID_ST_SUM_FAIL);
}

struct agg_flush {
	void *ctx;
	struct ipp_sum_key k;
	__u32 slot;	/* the fast slot being flushed */
	__u64 tag;	/* its tag */
};

/* Write CPU @cpu's sums of f->k in the agg map. */
static long flush_cpu(__u32 cpu, struct agg_flush *f)
{
	struct ipp_sum_rec *v = bpf_map_lookup_percpu_elem(&agg, &f->k, cpu);

	if (v)
		emit_sum(f->ctx, v, &f->k, cpu);
	return 0;
}

/* Write CPU @cpu's copy of fast slot f->slot when it is f->tag's, and let it go. */
static long flush_fast_cpu(__u32 cpu, struct agg_flush *f)
{
	struct ipp_sum_slot *s = bpf_map_lookup_percpu_elem(&agg_fast, &f->slot, cpu);

	if (!s || s->tag != f->tag)
		return 0;
	emit_sum(f->ctx, &s->v, &f->k, cpu);
	s->tag = 0;
	return 0;
}

/* Write fast slot @i on every CPU and free it, when it is @tag's. */
static __always_inline void flush_slot(struct agg_flush *f, __u32 i, __u64 tag)
{
	if (i >= IPP_SUM_FAST || !tag || agg_owner[i] != tag)
		return;
	f->slot = i;
	f->tag = tag;
	bpf_loop(nr_cpus < AGG_MAX_CPUS ? nr_cpus : AGG_MAX_CPUS, flush_fast_cpu, f, 0);
	__sync_val_compare_and_swap(&agg_owner[i], tag, 0);
}

/*
 * Write every CPU's sums of @k in its fast slots into the current CPU's ring,
 * and free the slots.
 */
static __always_inline void flush_fast(void *ctx, const struct ipp_sum_key *k)
{
	struct agg_flush f = { .ctx = ctx, .k = *k };
	__u64 tag = sum_tag(k);
	__u32 i = fast_pair(tag);

	flush_slot(&f, i, tag);
	flush_slot(&f, i + 1, tag);
}

/* Write every CPU's sums of @k in agg into the current CPU's ring, and delete the key. */
static __always_inline void flush_hashed(void *ctx, const struct ipp_sum_key *k)
{
	struct agg_flush f = { .ctx = ctx, .k = *k };

	/* The key is either in the map (whichever CPUs have counts) or not at all. */
	if (!bpf_map_lookup_elem(&agg, &f.k))
		return;
	bpf_loop(nr_cpus < AGG_MAX_CPUS ? nr_cpus : AGG_MAX_CPUS, flush_cpu, &f, 0);
	if (!bpf_map_delete_elem(&agg, &f.k))
		__sync_fetch_and_add(&agg_keys, -1);
}

struct agg_fd {
	void *ctx;
	__u32 tgid;
	__s32 fd;
};

static long flush_nr(__u32 i, struct agg_fd *a)
{
	struct ipp_sum_key k = { .tgid = a->tgid, .fd = a->fd, .nr = agg_nrs[i & (IPP_SUM_MAX_NRS - 1)] };

	flush_fast(a->ctx, &k);
	if (agg_keys)
		flush_hashed(a->ctx, &k);
	return 0;
}

/* Write the sums of @fd of @tgid for each call added up (agg_nrs), before what ends that fd. */
static __always_inline void agg_flush_fd(void *ctx, __u32 tgid, __s32 fd)
{
	struct agg_fd a = { .ctx = ctx, .tgid = tgid, .fd = fd };

	bpf_loop(n_agg_nrs < IPP_SUM_MAX_NRS ? n_agg_nrs : IPP_SUM_MAX_NRS, flush_nr, &a, 0);
}

struct agg_range {
	void *ctx;
	__u32 tgid;
	__s32 lo, hi;
};

static long flush_each(struct bpf_map *map, struct ipp_sum_key *key, struct ipp_sum_rec *v,
		       struct agg_range *a)
{
	if (key->tgid == a->tgid && key->fd >= a->lo && key->fd <= a->hi)
		flush_hashed(a->ctx, key);
	return 0;
}

/* Flush fast slot @i's key when it is one of a->tgid's fds a->lo to a->hi. */
static long flush_owned(__u32 i, struct agg_range *a)
{
	__u64 tag = agg_owner[i & (IPP_SUM_FAST - 1)];
	struct ipp_sum_key k = { .tgid = IPP_SUM_TAG_TGID(tag), .fd = IPP_SUM_TAG_FD(tag),
				 .nr = IPP_SUM_TAG_NR(tag) };

	if (tag && k.tgid == a->tgid && k.fd >= a->lo && k.fd <= a->hi)
		flush_fast(a->ctx, &k);
	return 0;
}

/*
 * Write the sums of @tgid's fds @lo to @hi: for close_range and exec, any
 * of them may close, and at the process's exit all do. This walks the fast
 * slots and the whole map, which is affordable at calls rarer than those
 * added up.
 */
static __always_inline void agg_flush_range(void *ctx, __u32 tgid, __s32 lo, __s32 hi)
{
	struct agg_range a = { .ctx = ctx, .tgid = tgid, .lo = lo, .hi = hi };

	bpf_loop(fast_slots < IPP_SUM_FAST ? fast_slots : IPP_SUM_FAST, flush_owned, &a, 0);
	if (agg_keys)
		bpf_for_each_map_elem(&agg, flush_each, &a, 0);
}

#endif
