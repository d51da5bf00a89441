/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a stat front-end asks of a session besides the totals: the events
 * its accounting needs, and intervals (the counts, counters and losses of
 * each stretch between two ticks, which add up to the totals).
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

int ipcperf_stats__events(const struct ipcperf_stats_events_opts *opts)
{
	bool every, rec, flows, running;
	unsigned int ev;

	if (opts && (opts->sz < sizeof(size_t) || !ipp_opts_valid(opts, opts->sz, sizeof(*opts))))
		return -EINVAL;
	every = IPP_OPTS_HAS(opts, every_syscall) && opts->every_syscall;
	rec = IPP_OPTS_HAS(opts, recording) && opts->recording;
	flows = IPP_OPTS_HAS(opts, flows) && opts->flows;
	running = IPP_OPTS_HAS(opts, running_view) && opts->running_view;
	/*
	 * The I/O and fd calls through raw_syscalls and a kernel filter: half
	 * the cost of their own tracepoints here. A capture keeps the
	 * per-syscall tracepoints, which perf script decodes with their
	 * argument names. Every syscall: still classified, so the fd table
	 * stays.
	 */
	ev = every ? IPCPERF_EV_ALL_SYSCALLS :
		IPCPERF_EV_IO | IPCPERF_EV_FDS | (rec ? 0 : IPCPERF_EV_RAW_FILTER);
	/* Switch records (blocked time) only for flows' verdicts: four more
	 * records per blocking round trip. */
	ev |= IPCPERF_EV_SCHED | IPCPERF_EV_TASK | (flows ? IPCPERF_EV_BLOCKED : 0);
	/* An event loop's epoll calls: where flows put the waits of non-blocking ends. */
	if (flows || rec)
		ev |= IPCPERF_EV_WAITS;
	/*
	 * Totals at the end only: each thread's switches and wakeups counted
	 * in the kernel, in place of one sample each. A view while the run
	 * goes needs the samples.
	 */
	if (!running)
		ev |= IPCPERF_EV_SCHED_TOTALS;
	return (int)ev;
}

/* ------------------------------------------------------------------ intervals */

/* Counter values of one source (a target process, or pid 0: all targets). */
struct cnt_set {
	bool valid;
	struct ipcperf_counter_value v[IPCPERF_CNT__MAX];
};

struct cnt_src {
	pid_t pid;
	struct cnt_set cur, prev, delta;
};

struct ipcperf_interval {
	struct ipcperf_session *s;
	struct ipcperf_stats *st;
	struct cnt_src *src;		/* [0]: pid 0, then the opts' pids */
	size_t nr_src;
	bool closed;			/* between __close() and __next() */
	uint64_t last_ns;		/* the end of the interval before (0: none yet) */
	uint64_t prev_lost, prev_unpaired, prev_records;
	uint64_t lost, unpaired, records, end_ns;	/* of the closed interval */
};

static int interval_fill(struct ipcperf_interval *iv, struct ipcperf_session *s,
			 const struct ipcperf_interval_opts *opts)
{
	bool per_thread = IPP_OPTS_HAS(opts, per_thread) && opts->per_thread;
	size_t nr = IPP_OPTS_HAS(opts, nr_pids) && IPP_OPTS_HAS(opts, pids) && opts->pids ?
		    opts->nr_pids : 0;
	IPCPERF_OPTS(ipcperf_stats_opts, so, .per_thread = per_thread,
		     .fold_exited = IPP_OPTS_HAS(opts, fold_exited) && opts->fold_exited,
		     .fold_conns = IPP_OPTS_HAS(opts, fold_conns) && opts->fold_conns);
	int err;

	iv->s = s;
	iv->nr_src = nr + 1;
	iv->src = calloc(iv->nr_src, sizeof(*iv->src));
	iv->st = ipcperf_stats__new(&so);
	if (!iv->src || !iv->st)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++)
		iv->src[i + 1].pid = opts->pids[i];
	err = ipcperf_stats__attach(iv->st, s);
	return err < 0 ? err : 0;
}

struct ipcperf_interval *ipcperf_interval__new(struct ipcperf_session *s,
					       const struct ipcperf_interval_opts *opts)
{
	struct ipcperf_interval *iv;
	int err;

	iv = ipp_new_checked(s && ipp_opts_valid(opts, opts ? opts->sz : 0, sizeof(*opts)),
			     sizeof(*iv));
	if (!iv)
		return NULL;
	err = interval_fill(iv, s, opts);
	if (err < 0) {
		ipcperf_interval__delete(iv);
		return ipp_null_errno(-err);
	}
	return iv;
}

void ipcperf_interval__delete(struct ipcperf_interval *iv)
{
	if (!iv)
		return;
	ipcperf_stats__delete(iv->st);
	ipp_free_all(iv->src, iv);
}

/*
 * @d = @cur - @prev. The totals are the last read, so the sum of the deltas
 * telescopes to them exactly.
 */
static void cnt_delta(struct cnt_set *d, const struct cnt_set *cur, const struct cnt_set *prev)
{
	*d = *cur;
	if (!cur->valid || !prev->valid)
		return;
	for (int i = 0; i < IPCPERF_CNT__MAX; i++) {
		const struct ipcperf_counter_value *a = &cur->v[i], *b = &prev->v[i];

		if (a->status != IPCPERF_CNT_OK || b->status != IPCPERF_CNT_OK)
			continue;
		d->v[i].value = a->value >= b->value ? a->value - b->value : 0;
		d->v[i].enabled_ns = a->enabled_ns >= b->enabled_ns ? a->enabled_ns - b->enabled_ns : 0;
		d->v[i].running_ns = a->running_ns >= b->running_ns ? a->running_ns - b->running_ns : 0;
	}
}

/*
 * The next deltas start from @cur. A scaled (multiplexed) value can dip
 * between reads; the baseline keeps the highest value already reported so
 * that a dip and the rise after it are not counted twice.
 */
static void cnt_advance(struct cnt_set *prev, const struct cnt_set *cur)
{
	struct cnt_set old = *prev;

	*prev = *cur;
	if (!old.valid || !cur->valid)
		return;
	for (int i = 0; i < IPCPERF_CNT__MAX; i++)
		if (old.v[i].status == IPCPERF_CNT_OK && cur->v[i].status == IPCPERF_CNT_OK &&
		    old.v[i].value > cur->v[i].value)
			prev->v[i].value = old.v[i].value;
}

int ipcperf_interval__close(struct ipcperf_interval *iv, uint64_t end_ns,
			    struct ipcperf_interval_info *info)
{
	struct ipcperf_session_stats st = { .sz = sizeof(st) };
	uint64_t unpaired;

	if (!iv || (info && info->sz < sizeof(size_t)) || ipcperf_session__stats(iv->s, &st) < 0)
		return -EINVAL;
	if (!iv->last_ns)
		iv->last_ns = st.start_ns;
	if (end_ns < iv->last_ns)
		end_ns = iv->last_ns;
	unpaired = st.unpaired_enter + st.unpaired_exit;
	iv->lost = st.lost - iv->prev_lost;
	iv->unpaired = unpaired - iv->prev_unpaired;
	iv->records = st.records - iv->prev_records;
	iv->prev_lost = st.lost;
	iv->prev_unpaired = unpaired;
	iv->prev_records = st.records;
	for (size_t i = 0; i < iv->nr_src; i++) {
		struct cnt_src *c = &iv->src[i];

		c->cur.valid = ipcperf_session__read_counters(iv->s, c->pid, c->cur.v) == 0;
		cnt_delta(&c->delta, &c->cur, &c->prev);
	}
	if (info) {
		struct ipcperf_interval_info out = {
			.sz = info->sz, .start_ns = iv->last_ns, .end_ns = end_ns,
			.time_ns = end_ns - st.start_ns, .lost = iv->lost,
			.unpaired = iv->unpaired, .records = iv->records,
		};

		memcpy(info, &out, info->sz < sizeof(out) ? info->sz : sizeof(out));
	}
	iv->end_ns = end_ns;
	iv->closed = true;
	return 0;
}

struct ipcperf_stats *ipcperf_interval__stats(const struct ipcperf_interval *iv)
{
	return iv ? iv->st : NULL;
}

int ipcperf_interval__counters(const struct ipcperf_interval *iv, pid_t pid,
			       struct ipcperf_counter_value *vals)
{
	if (!iv || !vals)
		return -EINVAL;
	if (!iv->closed)
		return -EBUSY;
	for (size_t i = 0; i < iv->nr_src; i++) {
		if (iv->src[i].pid != pid)
			continue;
		if (!iv->src[i].delta.valid)
			return -ENODATA;
		memcpy(vals, iv->src[i].delta.v, sizeof(iv->src[i].delta.v));
		return 0;
	}
	return -ESRCH;
}

void ipcperf_interval__next(struct ipcperf_interval *iv)
{
	if (!iv || !iv->closed)
		return;
	for (size_t i = 0; i < iv->nr_src; i++)
		cnt_advance(&iv->src[i].prev, &iv->src[i].cur);
	ipcperf_stats__reset(iv->st);
	iv->last_ns = iv->end_ns;
	iv->closed = false;
}
