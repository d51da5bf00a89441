/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/source/: where records come from (source.h): live, or from a capture
 * (replay.c). Live: a command started corked (cmd.c), the events chosen
 * with their formats and filters (formats.c, evset.c), what to load
 * decided once (plan.c), and the kernel's events, counters and rings
 * opened and read (rings.c, rings-targets.c, rings-open.c, rings-read.c,
 * counters.c). This folder may call pipeline/ (the records and follow set
 * it hands on), capture/ (the recorder a live session writes through, the
 * reader a replay reads with), fd/ (what /proc says of the targets,
 * proctask.c), bpf/ (the programs' loader) and the ground floor (lib/).
 *
 * The live source's private parts, shared by rings.c (the source's
 * operations, start and stop), rings-open.c (the events, maps, rings,
 * counters and BPF opened), rings-read.c (the rings read into the
 * pipeline, losses counted) and rings-targets.c (the options checked, the
 * targets resolved).
 */
#ifndef IPCPERF_RINGS_H
#define IPCPERF_RINGS_H

#include <perf/evlist.h>
#include <perf/mmap.h>
#include "bpf/fdid-bpf.h"
#include "source/counters.h"
#include "pipeline/follow.h"
#include "source/formats.h"
#include "source/plan.h"
#include "capture/record.h"
#include "source/source.h"
#include "source/targets.h"

#define MAX_RING_PAGES (1u << 16)
/*
 * Records are delivered only once they are this much older than the start
 * of the pass that read the rings: a record stamped earlier has surely been
 * committed to its ring by then (the gap between stamping and committing is
 * microseconds, but a VM's vCPU can be held up by its host for milliseconds).
 */
#define MERGE_SLACK_NS (20 * IPP_NS_PER_MS)
/* How often the fd of a CPU-scope session becomes readable without data. */
#define TICK_NS (50 * IPP_NS_PER_MS)
/* How often a CPU-scope session checks its targets against /proc. */
#define CHECK_NS IPP_NS_PER_SEC
/*
 * How long one pass over the rings (reading, and delivering what was read)
 * may take before it returns, leaving the rest for the next pass: a busy
 * target must not keep its tracer from its clock (-d) and its signals.
 */
#define PASS_NS (50 * IPP_NS_PER_MS)
/* Records taken from a ring before the next ring's turn and a look at the clock. */
#define RING_CHUNK 64
/* How long the stop may spend on what is left in the rings; the rest is counted lost. */
#define DRAIN_NS (400 * IPP_NS_PER_MS)
/* epoll events taken per call. */
#define EPOLL_BATCH 64


struct ipp_rings {
	struct ipp_source base;
	/* The targets. */
	pid_t *pids;
	size_t nr_pids;
	pid_t *tids;
	size_t nr_tids;
	bool system_wide;
	struct ipp_cmd cmd;
	bool has_cmd;
	pid_t *targets;		/* target processes: pids, tgids of tids, the command */
	size_t nr_targets;
	pid_t *owner;		/* tgid of each entry of the thread map */
	/* How the events are opened. */
	unsigned int ring_pages;
	bool want_counters;
	unsigned int counter_mask;	/* IPCPERF_CNT_BIT()s of the counters to open */
	unsigned int scope;	/* as asked (enum ipcperf_scope) */
	bool cpu_scope;		/* events CPU-wide, targets followed by @follow */
	pid_t self;		/* the tracing process */
	bool include_self;	/* its records are kept (ipcperf_session_opts) */
	struct ipp_open_mode mode;
	struct ipp_evset es;
	/* The libperf objects. */
	struct perf_evlist *evlist;	/* tracepoints and the switch event: the sample rings */
	struct perf_evlist *sb_evlist;	/* the side-band event and its rings */
	struct perf_cpu_map *cpus;
	struct perf_thread_map *threads;
	struct ipp_counters *counters;
	int *ring_fds;		/* by CPU index: an fd of that CPU's sample ring */
	/*
	 * The BPF programs that describe fds in the kernel (lib/bpf), or NULL
	 * when they could not be loaded or no_bpf was asked for.
	 */
	struct ipp_bpf *bpf;
	bool no_bpf;
	/* What the kernel was asked to do for the session, and what it did (plan.h). */
	struct ipp_plan plan;
	/* Whether the threads alive at the stop have been added to the sums of plan.task_acct. */
	bool acct_final;
	bool syscall_samples;	/* asked for the samples (ipcperf_session_opts) */
	bool call_memory;	/* the calls' user memory too (ipcperf_session_opts) */
	int epfd;
	int tick_fd;		/* CPU scope: makes epfd readable now and then (no ring hangs up) */
	int cmd_pidfd;		/* -- CMD: makes epfd readable when the command exits */
	size_t nr_live;		/* ring fds not hung up */
	/* Used in CPU scope only. */
	struct ipp_follow *follow;	/* the targets, which the pipeline reads */
	uint64_t check_ns;	/* when the targets were last checked against /proc */
	uint64_t delivered_ns;	/* every record stamped before it has been delivered (the last read) */
	bool cmd_exited;	/* the command exited (waitid), whatever the records say */
	/* The run. */
	uint64_t start_ns, stop_ns;
	uint64_t bpf_missed;	/* the BPF programs' skipped runs, read at the stop */
	void (*tap)(void *ctx, const void *rec, size_t size);
	void *tap_ctx;
	struct ipp_recorder *recorder;
	char host[IPCPERF_HOST_MAX];	/* ipcperf_session__set_host(); "" the hostname */
	struct ipp_rec_clock clk;	/* read at the start and the stop */
};

static inline struct ipp_rings *rings_of(struct ipp_source *src)
{
	return (struct ipp_rings *)src;
}

static inline const struct ipp_rings *crings_of(const struct ipp_source *src)
{
	return (const struct ipp_rings *)src;
}

/*
 * Whether the session has both targets running already (-p, -t) and a command,
 * each traced its own way.
 */
static inline bool ipp_rings__mixed(const struct ipp_rings *s)
{
	return s->has_cmd && (s->nr_pids || s->nr_tids);
}

/* rings-targets.c */
int ipp_rings__validate(const struct ipcperf_session_opts *o, struct ipcperf_session_opts *out);
int ipp_rings__collect_threads(const struct ipp_rings *s, pid_t **out, pid_t **owners, int *nr);
/*
 * Return a copy of the @n ids of @v with each id kept once, in their order,
 * and set *@nr to how many it holds (0 on failure).
 */
pid_t *ipp_rings__copy_pids(const pid_t *v, size_t n, size_t *nr);
int ipp_rings__resolve_targets(struct ipp_rings *s);

/* rings-open.c */
void ipp_rings__close_bpf(struct ipp_rings *s);
void ipp_rings__close_events(struct ipp_rings *s);
void ipp_rings__plan_in(const struct ipp_rings *s, struct ipp_plan_in *in);
int ipp_rings__open_events(struct ipp_rings *s);

/* rings-read.c */
int ipp_rings__read_rings(struct ipp_rings *s, uint64_t horizon, uint64_t until, bool *dry);
int ipp_rings__count_left(struct ipp_rings *s);
int ipp_rings__consume(struct ipp_source *src);
bool ipp_rings__done(const struct ipp_source *src);
int ipp_rings__count_unreported_loss(struct ipp_rings *s);

#endif /* IPCPERF_RINGS_H */
