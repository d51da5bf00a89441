/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pipeline that both sources of records feed (pipeline.h): this file
 * takes the records into the merge and keeps the counts, and
 * pipeline-deliver.c hands the records on.
 */
#include "config.h"
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include "pipeline/decode.h"
#include "bpf/fdid-rec.h"
#include "bpf/call-rec.h"
#include "bpf/sched-rec.h"
#include "bpf/sum-rec.h"
#include "bpf/task-rec.h"
#include "pipeline/callmem.h"
#include "fd/fdtable.h"
#include "pipeline/follow.h"
#include "pipeline/merge.h"
#include "pipeline/pair.h"
#include "pipeline/pipeline.h"
#include "fd/procres.h"
#include "fd/resolve-kernel.h"
#include "pipeline/pipeline-int.h"

struct ipp_pipeline *ipp_pipeline__new(void)
{
	struct ipp_pipeline *p = ipp_new(sizeof(*p));

	if (!p)
		return NULL;
	p->self = -1;
	p->include_self = true;
	p->dec = ipp_decoder__new();
	p->merge = ipp_merge__new();
	p->pairer = ipp_pairer__new();
	if (!p->dec || !p->merge || !p->pairer) {
		ipp_pipeline__delete(p);
		return ipp_null_errno(ENOMEM);
	}
	return p;
}

void ipp_pipeline__delete(struct ipp_pipeline *p)
{
	if (!p)
		return;
	ipp_decoder__delete(p->dec);
	ipp_merge__delete(p->merge);
	ipp_pairer__delete(p->pairer);
	ipp_callmem__fini(&p->mem);
	ipp_procres__put(p->procres);
	ipp_free_all(p->handlers, p->lost_per_cpu, p->samples_per_cpu, p->sc_tp, p->fdid_ids,
		     p->acct.v, p);
}

struct ipp_decoder *ipp_pipeline__decoder(struct ipp_pipeline *p)
{
	return p->dec;
}

void ipp_pipeline__set_self(struct ipp_pipeline *p, pid_t self, bool include_self)
{
	p->self = self;
	p->include_self = include_self;
}

void ipp_pipeline__follow(struct ipp_pipeline *p, struct ipp_follow *f)
{
	p->follow = f;
}

void ipp_pipeline__cmd_released(struct ipp_pipeline *p)
{
	p->cmd_exec_done = true;
}

bool ipp_pipeline__sideband_lost(const struct ipp_pipeline *p)
{
	return p->sideband_lost;
}

int ipp_pipeline__add_handlers(struct ipp_pipeline *p, const struct ipcperf_handlers *h)
{
	struct ipcperf_handlers *v;

	if (!h || h->sz < offsetof(struct ipcperf_handlers, ctx) + sizeof(h->ctx) ||
	    !ipp_opts_valid(h, h->sz, sizeof(*h)))
		return -EINVAL;
	v = realloc(p->handlers, (p->nr_handlers + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->handlers = v;
	memset(&v[p->nr_handlers], 0, sizeof(*v));
	memcpy(&v[p->nr_handlers], h, h->sz < sizeof(*h) ? h->sz : sizeof(*h));
	p->nr_handlers++;
	return 0;
}

/* Grow *@v from @old to @n u64 counts, the new ones zeroed. */
static int grow_counts(uint64_t **v, size_t old, size_t n)
{
	uint64_t *nv = realloc(*v, n * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	memset(nv + old, 0, (n - old) * sizeof(*nv));
	*v = nv;
	return 0;
}

int ipp_pipeline__cpus(struct ipp_pipeline *p, size_t n)
{
	if (n <= p->nr_cpu_slots)
		return 0;
	if (grow_counts(&p->lost_per_cpu, p->nr_cpu_slots, n) < 0 ||
	    grow_counts(&p->samples_per_cpu, p->nr_cpu_slots, n) < 0)
		return -ENOMEM;
	p->nr_cpu_slots = n;
	return 0;
}

int ipp_pipeline__fdid_ids(struct ipp_pipeline *p, const uint64_t *ids, size_t n)
{
	uint64_t *v = n ? realloc(p->fdid_ids, (p->nr_fdid_ids + n) * sizeof(*v)) : p->fdid_ids;

	if (n && !v)
		return -ENOMEM;
	if (n)
		memcpy(v + p->nr_fdid_ids, ids, n * sizeof(*v));
	p->fdid_ids = v;
	p->nr_fdid_ids += n;
	return 0;
}

void ipp_pipeline__clear_fdid_ids(struct ipp_pipeline *p)
{
	free(p->fdid_ids);
	p->fdid_ids = NULL;
	p->nr_fdid_ids = 0;
}

static bool is_fdid_sample(const struct ipp_pipeline *p, uint64_t id)
{
	for (size_t i = 0; i < p->nr_fdid_ids; i++)
		if (p->fdid_ids[i] == id)
			return true;
	return false;
}

int ipp_pipeline__syscall_tp(struct ipp_pipeline *p, int id)
{
	if (id < 0)
		return -EINVAL;
	if ((size_t)id >= p->nr_sc_tp) {
		bool *v = realloc(p->sc_tp, ((size_t)id + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + p->nr_sc_tp, 0, ((size_t)id + 1 - p->nr_sc_tp) * sizeof(*v));
		p->sc_tp = v;
		p->nr_sc_tp = (size_t)id + 1;
	}
	p->sc_tp[id] = true;
	return 0;
}

bool ipp_pipeline__is_syscall_tp(const struct ipp_pipeline *p, int id)
{
	return id >= 0 && (size_t)id < p->nr_sc_tp && p->sc_tp[id];
}

struct ipp_procres *ipp_pipeline__read_ahead(struct ipp_pipeline *p, struct ipp_procres *pr)
{
	if (!p->procres)
		p->procres = ipp_procres__get(pr);
	return p->procres;
}

/* Show the /proc resolver a syscall record as it is taken, ahead of the merge. */
static void read_ahead_sample(struct ipp_pipeline *p, const struct ipp_pd_sample *s)
{
	struct ipp_rec rec;

	/*
	 * In CPU scope, /proc is not read for another task's record (as far as
	 * the side-band records taken so far tell); a target not yet known is
	 * read for at the merge.
	 */
	if (p->follow && !ipp_follow__has(p->follow, (pid_t)s->tid))
		return;
	if (ipp_decoder__decode(p->dec, s->raw, s->raw_size, &rec) < 0)
		return;
	if (rec.kind == IPP_REC_SYS_ENTER)
		ipp_procres__on_enter(p->procres, rec.enter.sc, (pid_t)s->pid, (pid_t)s->tid,
				      rec.enter.args, rec.enter.nr_args, s->time);
	else if (rec.kind == IPP_REC_SYS_EXIT)
		ipp_procres__on_exit(p->procres, rec.exit.sc, (pid_t)s->pid, (pid_t)s->tid,
				     rec.exit.ret, s->time);
}

/* Show the /proc resolver a call the kernel paired, as it is taken. */
static void read_ahead_call(struct ipp_pipeline *p, const struct ipp_pd_sample *s)
{
	struct ipp_call_rec rec;
	uint64_t args[6];

	if ((p->follow && !ipp_follow__has(p->follow, (pid_t)s->tid)) ||
	    ipp_call_rec__parse(s->raw, s->raw_size, &rec) < 0)
		return;
	for (int i = 0; i < 6; i++)
		args[i] = rec.args[i];
	ipp_procres__on_call(p->procres, ipp_scdesc_by_nr(rec.nr), rec.pid, rec.tid, args, 6,
			     rec.ret, rec.start_ns, s->time);
}

static bool is_self(const struct ipp_pipeline *p, pid_t pid)
{
	return !p->include_self && p->self > 0 && pid == p->self;
}

/* Count a record that found no memory as lost. Returns -ENOMEM. */
int ipp_pipeline__lost_to_memory(struct ipp_pipeline *p, int cpu)
{
	p->lost++;
	if (cpu >= 0 && (size_t)cpu < p->nr_cpu_slots)
		p->lost_per_cpu[cpu]++;
	return -ENOMEM;
}

/*
 * Return the merge's type of a BPF record from its kind (krec.h); this is the
 * one place it is worked out.
 */
static uint32_t mrec_type_of_krec(const void *raw, size_t size)
{
	switch (ipp_krec__what(raw, size)) {
	case IPP_FDID_CALL:
		return IPP_MREC_KCALL;
	case IPP_FDID_SCHED:
		return IPP_MREC_KSCHED;
	case IPP_FDID_SUM:
		return IPP_MREC_KSUM;
	case IPP_FDID_TASK:
		return IPP_MREC_KTASK;
	case IPP_FDID_ARGS:
		return IPP_MREC_KARGS;
	case IPP_FDID_SIGNAL:
		return IPP_MREC_KSIG;
	default:
		return IPP_MREC_KFD;
	}
}

/*
 * Push into the merge a record of @type (@misc) from @s's task and CPU at its
 * time, with @size bytes at @data. @return 0, or what a record lost to
 * memory returns.
 */
static inline int push(struct ipp_pipeline *p, uint32_t type, uint16_t misc,
		       const struct ipp_pd_sample *s, const void *data, uint32_t size)
{
	if (ipp_merge__push(p->merge, &(struct ipp_mrec_in){
			.time = s->time, .type = type, .misc = misc, .pid = (pid_t)s->pid,
			.tid = (pid_t)s->tid, .cpu = (int)s->cpu, .data = data, .size = size }) < 0)
		return ipp_pipeline__lost_to_memory(p, (int)s->cpu);
	return 0;
}

/*
 * Drop a sample of the tracing process itself, except that a switch (from
 * the tracer to a target thread) or a wakeup goes on to the sched taker, in
 * its time order. Returns 0, or -ENOMEM when the merge had no memory for it.
 */
static int self_sched(struct ipp_pipeline *p, uint16_t misc, const struct ipp_pd_sample *s)
{
	struct ipp_rec rec;

	if (!p->sched_fn || ipp_decoder__decode(p->dec, s->raw, s->raw_size, &rec) < 0 ||
	    (rec.kind != IPP_REC_SWITCH && rec.kind != IPP_REC_WAKEUP))
		return 0;
	return push(p, IPP_MREC_SELF_SCHED, misc, s, s->raw, s->raw_size);
}

static int take_sample(struct ipp_pipeline *p, uint16_t misc, const struct ipp_pd_sample *s)
{
	int cpu = (int)s->cpu;
	uint16_t id;

	if (!s->raw || s->raw_size < 2)
		return 0;
	/* A record of the kernel's fd identity (fdid-rec.h), not a tracepoint sample. */
	if (p->nr_fdid_ids && is_fdid_sample(p, s->id)) {
		uint32_t kind = mrec_type_of_krec(s->raw, s->raw_size);

		/* A call record stands for a syscall sample, so it counts as one. */
		if (kind == IPP_MREC_KCALL && (size_t)cpu < p->nr_cpu_slots)
			p->samples_per_cpu[cpu]++;
		if (is_self(p, (pid_t)s->pid))
			return 0;
		if (p->procres && kind == IPP_MREC_KCALL)
			read_ahead_call(p, s);
		return push(p, kind, misc, s, s->raw, s->raw_size);
	}
	/* Every syscall sample counts, since what fired minus what arrived is unreported loss. */
	memcpy(&id, s->raw, sizeof(id));
	if (id < p->nr_sc_tp && p->sc_tp[id] && (size_t)cpu < p->nr_cpu_slots)
		p->samples_per_cpu[cpu]++;
	if (is_self(p, (pid_t)s->pid))
		return self_sched(p, misc, s);
	if (p->procres && id < p->nr_sc_tp && p->sc_tp[id])
		read_ahead_sample(p, s);
	return push(p, PERF_RECORD_SAMPLE, misc, s, s->raw, s->raw_size);
}

static int take_lost(struct ipp_pipeline *p, uint32_t type, const struct ipp_pd_sample *s,
		     const unsigned char *body, size_t len, bool sideband)
{
	/* A LOST record's body is id, lost; a LOST_SAMPLES record's is lost. */
	size_t at = type == PERF_RECORD_LOST ? 8 : 0;
	uint64_t n;

	if (len < at + sizeof(n))
		return 0;
	memcpy(&n, body + at, sizeof(n));
	p->lost += n;
	if ((size_t)s->cpu < p->nr_cpu_slots)
		p->lost_per_cpu[s->cpu] += n;
	/* Forks and exits may be among them, so from now on /proc says whose a task is. */
	if (sideband && !p->sideband_lost) {
		ipp_debug("side-band records lost: whose an unknown task is, /proc says from "
			  "now on\n");
		p->sideband_lost = true;
	}
	if (ipp_merge__push(p->merge, &(struct ipp_mrec_in){
			.time = s->time, .type = PERF_RECORD_LOST, .pid = (pid_t)s->pid,
			.tid = (pid_t)s->tid, .cpu = (int)s->cpu, .data = &n, .size = sizeof(n) }) < 0)
		return -ENOMEM;
	return 0;
}

void ipp_pipeline__skip(struct ipp_pipeline *p)
{
	p->records++;
}

void ipp_pipeline__seed_call(struct ipp_pipeline *p, uint64_t time, pid_t pid, pid_t tid,
			     const struct ipp_scdesc *sc, int nr, const uint64_t *args,
			     unsigned int nr_args)
{
	ipp_pairer__seed(p->pairer, time, pid, tid, sc, nr, args, nr_args);
}

int ipp_pipeline__take(struct ipp_pipeline *p, uint32_t type, uint16_t misc,
		       const struct ipp_pd_sample *s, const void *body, size_t body_len,
		       bool sideband)
{
	p->records++;
	switch (type) {
	case PERF_RECORD_SAMPLE:
		return take_sample(p, misc, s);
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		return take_lost(p, type, s, body, body_len, sideband);
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		if (is_self(p, (pid_t)s->pid))
			return 0;
		return push(p, PERF_RECORD_SWITCH, misc, s, NULL, 0);
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		/*
		 * The body is pid, ppid, tid, ptid; it says who the targets
		 * are, in time order with their records.
		 */
		if (!p->follow || body_len < 16)
			return 0;
		return push(p, type, 0, s, body, 16);
	case PERF_RECORD_COMM:
		/* The body is the pid and tid of an exec. */
		if (!p->follow || !(misc & PERF_RECORD_MISC_COMM_EXEC) || body_len < 8)
			return 0;
		return push(p, PERF_RECORD_COMM, 0, s, body, 8);
	default:
		return 0;
	}
}


void ipp_pipeline__lost(struct ipp_pipeline *s, int cpu, uint64_t n)
{
	struct ipcperf_lost ev = { .cpu = cpu, .lost = n };

	s->lost += n;
	if (cpu >= 0 && (size_t)cpu < s->nr_cpu_slots)
		s->lost_per_cpu[cpu] += n;
	ev.total = s->lost + s->unattributed;
	EMIT(s, lost, &ev);
}

void ipp_pipeline__flush(struct ipp_pipeline *p)
{
	ipp_pairer__flush(p->pairer);
}

void ipp_pipeline__unpaired_enters(struct ipp_pipeline *p, uint64_t n)
{
	ipp_pairer__add_unpaired_enter(p->pairer, n);
}

bool ipp_pipeline__on_cpu(const struct ipp_pipeline *p, int cpu, uint64_t *samples,
			  uint64_t *lost)
{
	*samples = *lost = 0;
	if (cpu < 0 || (size_t)cpu >= p->nr_cpu_slots)
		return false;
	*samples = p->samples_per_cpu[cpu];
	*lost = p->lost_per_cpu[cpu];
	return true;
}

void ipp_pipeline__stats(const struct ipp_pipeline *p, struct ipcperf_session_stats *v)
{
	v->records = p->records;
	v->lost = p->lost + p->unattributed;
	v->unattributed = p->unattributed;
	v->unpaired_enter = ipp_pairer__unpaired_enter(p->pairer);
	v->unpaired_exit = ipp_pairer__unpaired_exit(p->pairer);
	v->syscalls = p->syscalls;
	v->foreign = p->foreign;
}
