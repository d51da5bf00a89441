/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The loader's insides (fdid-bpf.h), shared by its two files: fdid-bpf.c
 * loads the programs, tells them what to watch and attaches them, and
 * fdid-bpf-read.c reads back what they counted. It is built only with BPF,
 * since it includes the skeleton.
 */
#ifndef IPCPERF_FDID_BPF_INT_H
#define IPCPERF_FDID_BPF_INT_H

#include "fdid-bpf.h"
#include "progs.skel.h"

struct output {
	int cpu;
	int fd;
	uint64_t id;
};

/*
 * The jobs, in the order their programs attach (see ipp_bpf__enable()). A
 * program's job is the prefix of its name (progs.bpf.c).
 */
enum job { JOB_ARGS, JOB_FDID, JOB_SCHED, JOB_CALLS, NR_JOBS };

struct ipp_bpf {
	struct progs_bpf *skel;		/* the object: every job's programs, those asked for loaded */
	uint64_t load_ns;		/* what its load took */
	bool enabled;
	struct output *outs;
	size_t nr_outs;
	uint64_t *ids;
	struct bpf_link **links;	/* the programs, each on its BTF tracepoint */
	size_t nr_links;
	size_t nr_progs;
	int nr_cpus;
	bool pairs;
	bool aggs;		/* the hot calls added up in the kernel (opts.agg_calls) */
	uint8_t want[IPP_FDID_MAX_NR];	/* what want says of each call (enum ipp_sum_want) */
	bool counts_sched;
	bool load_stats;
	bool want_args;		/* the args job (call_args), when the calls are paired */
	char *logs;		/* load_stats: each program's verifier log, LOG_SIZE bytes */
};

/* A verifier log at level 4 (BPF_LOG_STATS) holds only its statistics, 3 lines. */
#define LOG_SIZE 512

#endif /* IPCPERF_FDID_BPF_INT_H */
