/*
 * Flow groups, as stat groups fds: the flows of one writer side, one reader
 * side, one kind and one endpoint, added up, so that a server's thousands of
 * connections are a few rows. A side is its traced processes, or, when
 * nobody traced wrote (or read), the process at the other end of the traced
 * side's socket or pipe, as the accounting names its fd's peer (/proc,
 * sock_diag), marked not traced. Used by flowout.c (the table, the JSON) and
 * topview.c (top's flow pane); calls only the public API.
 */
#ifndef IPCPERF_CLI_FLOWGROUP_H
#define IPCPERF_CLI_FLOWGROUP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <ipcperf/ipcperf.h>
#include "util.h"

/* The longest endpoint kept ("[ffff:...]:65535"). */
#define FLOWGROUP_EP_LEN 64

/* What the accounting knows of one traced socket or pipe end: its peer, its endpoint. */
struct flowpeer {
	uint64_t ino;			/* first: the key */
	pid_t pid;			/* the process at the other end, 0 if not known */
	char comm[CLI_COMM_LEN];
	char endpoint[FLOWGROUP_EP_LEN];	/* tcp/udp: the address of the lower port; else "" */
};

struct flowpeers {
	struct flowpeer *v;		/* by ino */
	size_t n, cap;
};

/* The fds of @st's processes that are pipes or sockets, by inode. @return 0 or -ENOMEM. */
int flowpeers_load(struct flowpeers *p, struct ipcperf_stats *st);
void flowpeers_free(struct flowpeers *p);
/*
 * What is known of the traced end of @f: the reading end's when nobody
 * traced wrote into it, else the writing end's (the channel's, for a pipe).
 * NULL when none is known (@p NULL or empty too). A fold of flows with an
 * untraced side has no row left: its peer is the one the library named
 * (untraced_pid, untraced_comm) when it folded them, put into @fold.
 */
const struct flowpeer *flowpeers_of(const struct flowpeers *p, const struct ipcperf_flow *f,
				    struct flowpeer *fold);

/*
 * A flow copied out of a walk, whose data lives only for the call: f's
 * object, writers and readers point at the copy's own.
 */
struct flowcopy {
	struct ipcperf_flow f;
	char *object, *untraced_comm;
	pid_t *writers, *readers;
};

/*
 * @c a copy of @f: its object ("unknown" for none), untraced_comm and pid lists copied, its
 * endpoint and wire_hist NULL. @return 0 or -ENOMEM; what was copied is
 * freed with flowcopy_free() either way.
 */
int flowcopy_set(struct flowcopy *c, const struct ipcperf_flow *f);
void flowcopy_free(struct flowcopy *c);

/* The bytes a flow's row shows: read out; written in when nobody traced read it. */
uint64_t flowgroup_bytes(const struct ipcperf_flow *f);

/* Verdicts a group counts (enum ipcperf_verdict). */
#define FLOWGROUP_VERDICTS (IPCPERF_VERDICT_UNMEASURED + 1)

/* One group of flows, added up. */
struct flowgroup {
	char *key;		/* the sides, kind and endpoint; what makes it one group */
	/*
	 * The sums of its flows (bytes, calls, blocked and epoll times, refusals,
	 * unmatched bytes, full time); max_queued and stage: the largest and
	 * the smallest; first_ns, last_ns: the earliest and the latest;
	 * capacity: its flows' one, -1 when they differ; wire_ns from the
	 * merged wire times (wire_hist); verdict: its flows' one when they all
	 * have it, idle ones aside (mixed is false); idle when all are.
	 * object, writers, readers: its first flow's (c.f's, the copy's).
	 */
	struct flowcopy c;
	struct ipcperf_hist *wire;
	size_t flows;
	bool mixed;
	size_t verdicts[FLOWGROUP_VERDICTS];
	/* The untraced side's process (named from the traced side's fd): 0 if not known. */
	pid_t peer_pid;
	char peer_comm[CLI_COMM_LEN];
	char endpoint[FLOWGROUP_EP_LEN];
	size_t rank;		/* its first flow's place in the walk */
};

struct flowgroups {
	struct flowgroup *v;	/* by key while they are added; flowgroups_sort() orders them */
	size_t n, cap;
};

/*
 * Add @f (the @rank-th of the walk; its wire_hist lives only for the call)
 * into its group of @g, @peer the flowpeers_of() it. @return 0 or -ENOMEM.
 */
int flowgroups_add(struct flowgroups *g, const struct ipcperf_flow *f,
		   const struct flowpeer *peer, size_t rank);
/*
 * The groups' wire times (from their merged histograms), and the groups
 * along the chains (stage), then in the order their first flows came.
 */
void flowgroups_sort(struct flowgroups *g);
/*
 * The order flows and groups are shown in, for the comparators of qsort():
 * along the chains (stage), then in the order of the walk (@rank, a group's
 * first flow's).
 */
int flowgroup_cmp_stage(const struct ipcperf_flow *x, size_t x_rank, const struct ipcperf_flow *y,
			size_t y_rank);
void flowgroups_free(struct flowgroups *g);

#endif
