/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/flows/: IPC flows. Each read matched to the writes it drained
 * (flows.c), closed channels' flows folded into their group's
 * (flowfold.c), the flows read out with their verdicts (flows-read.c), each
 * flow's place along its chain and the bottlenecks (chains.c), and an
 * event loop's waits put on the fds that became ready (waits.c). This folder may call stats/ (the fd table of a stats object),
 * fd/ (what the fds are, once settled), session/ (the session it attaches
 * to) and the ground floor (lib/).
 *
 * The flows object (struct ipcperf_flows) is public and opaque: the rest of
 * the library does not call into this folder. This header holds its
 * insides, shared by flows.c (calls matched, flows kept) and flows-read.c
 * (the flows read out, with their verdicts).
 */
#ifndef IPCPERF_FLOWS_H
#define IPCPERF_FLOWS_H

#include "internal.h"
#include "fd/fdtable.h"
#include "hist.h"
#include "flows/waits.h"
#include "flows/flowtap.h"

/*
 * The key of a flow read from a socket whose peer is not known: the
 * reader's inode with this bit, apart from the flows keyed by a writing
 * end (the kernel numbers socket inodes with 32 bits: get_next_ino()).
 */
#define UNPEERED (1ull << 63)

struct seg {
	uint64_t start, end;	/* of the call that wrote (or read, for debts) */
	pid_t pid, tid;
	uint64_t left;		/* bytes not matched yet */
};

struct fifo {
	struct seg *v;
	size_t head, len, cap;
};

struct pidset {
	pid_t *v;
	size_t n, cap;
};

/* A flow's successful writes, or its successful reads: how many, their bytes, their span. */
struct moved {
	uint64_t calls, bytes;
	uint64_t first, last;
};

struct flow {
	uint64_t ino, reader_ino;
	char object[128];
	enum ipcperf_fd_kind kind;
	bool datagram;
	struct pidset writers, readers;
	struct moved written, read;
	uint64_t unmatched, matches;
	/*
	 * The wire times: dense while the flow moves bytes, packed once it
	 * has been still for a while (cool()): a server's flows, two per
	 * connection, are kept to the report (a dense histogram is ~7.7 KB).
	 * Both NULL while empty.
	 */
	struct ipp_hist *wire;
	struct ipp_hist_packed *wire_packed;
	int64_t capacity;
	bool cap_default;
	uint64_t queued, max_queued;
	uint64_t full_since, full_ns;
	uint64_t full_end;	/* when it last stopped being full */
	uint64_t wblocked, rblocked;
	uint64_t wagain, ragain;	/* refused with EAGAIN: full, empty */
	uint64_t wwait, rwait, wwaits, rwaits;	/* epoll waits that ended ready for it */
	uint64_t first, last;
	bool active;		/* a call since it was made or since ipcperf_flows__reset() */
	/* A traced process wrote into it, read from it: ever, not reset with the pidsets. */
	bool traced_w, traced_r;
	struct fifo segs;	/* written, not yet read */
	struct fifo debts;	/* read before their write was seen */
	/* tcp, udp: the address of the lower port of its ends' ("" else), as the groups key it */
	char endpoint[64];
	/*
	 * A fold (flowfold.c): the closed flows of one group added up, how
	 * many, and their verdicts one by one; 0 for a channel's own flow.
	 */
	uint64_t folded;
	uint64_t verdicts[IPCPERF_VERDICT_UNMEASURED + 1];
	/*
	 * A fold whose flows had a side no traced process was on: the process
	 * at that side (0: not known), as the row of their traced end named
	 * it (ipp_peers__of_inos()). Part of the fold's key.
	 */
	pid_t untraced_pid;
	char untraced_comm[IPP_COMM_MAX];
	/*
	 * A channel's flow: the inodes it pinned in the stats (its writing
	 * end's, its reading end's), whose rows name its untraced side.
	 */
	uint64_t pinned[2];
};

/* What the waits said of a queued call: the wait it was served after. */
struct served {
	bool waited;
	struct ipp_waited w;
};

struct ipcperf_flows {
	struct ipcperf_stats *st;
	struct ipp_settleq pend;	/* calls whose fd is not settled yet */
	struct served *served;		/* one for each call in pend, in its order */
	size_t served_head, served_cap;
	struct ipp_waits *waits;
	struct take { struct seg w; uint64_t bytes; } *takes;	/* one read's matches */
	size_t cap_takes;
	struct flow **flows;	/* sorted by ino */
	size_t nr, cap;
	size_t made;		/* flows made: every COOL_EVERY of them, cool() */
	uint64_t now;		/* the latest call's end */
	struct flow **warm;	/* the flows whose wire histogram is dense: what cool() visits */
	size_t nr_warm, cap_warm;
	void (*match_cb)(void *ctx, const struct ipcperf_flow_match *m);
	void *match_ctx;
	struct ipp_flowtap tap;		/* the request paths' (flows/flowtap.h) */
	struct flow **folds;	/* the groups' folds (flowfold.c), by key */
	size_t nr_folds, cap_folds;
	size_t fold_at;		/* flows kept past which a fold pass runs */
	uint64_t folded;	/* flows folded since the last reset */
};

/*
 * One call whose fd is settled (ipp_settled_fn of the settle queue): its
 * bytes matched, its flow's figures updated. @ctx is the flows object.
 */
void ipp_flows__process(void *ctx, const struct ipcperf_syscall *ev, const struct ipp_ident *ch);

/*
 * Flows kept before the first fold pass (ipp_flows__fold()): a run of up
 * to some two thousand connections keeps each one's flows to the report.
 */
#define IPP_FLOWS_FOLD_MIN 4096

/* A flow's own memory, freed (flows.c). */
void ipp_flows__free_flow(struct flow *f);
/* The inodes @f pinned in the stats (flow_pin() of flows.c) unpinned: it goes. */
void ipp_flows__unpin(struct ipcperf_flows *fl, struct flow *f);

/* The verdict of @f by the rule of flows-read.c, its wire times' median from @scratch if packed. */
enum ipcperf_verdict ipp_flows__verdict(const struct flow *f, struct ipp_hist *scratch);

/*
 * The closed channels' flows folded into their groups (flowfold.c), when
 * more than fold_at flows are kept: a channel both of whose ends no fd
 * holds, no call waits for and nothing is queued in. Their sums go into
 * the fold of their group (writers, readers, kind, datagram, endpoint);
 * the flows are freed. A flow with a side without a call in the interval
 * folds with that side's process in its key: the peer the row of its
 * traced end names (one walk of the stats' rows a pass, which the pins of
 * its inodes kept from folding).
 */
void ipp_flows__fold(struct ipcperf_flows *fl);
/* The folds freed (at a reset: their sums were the interval's). */
void ipp_flows__drop_folds(struct ipcperf_flows *fl);

#endif /* IPCPERF_FLOWS_H */
