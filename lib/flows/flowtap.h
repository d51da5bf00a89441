/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The flows' tap: what flows.c hands on, as it settles them, of the calls
 * that moved bytes on a channel and of the matches it makes (a write's
 * bytes taken by a read), for the request paths (lib/paths/). The tap is
 * called from inside flows.c: it may not call back into the flows.
 */
#ifndef IPCPERF_PATHS_FLOWTAP_H
#define IPCPERF_PATHS_FLOWTAP_H

#include <stdbool.h>
#include <stdint.h>
#include "internal.h"

struct ipp_ident;

struct ipp_flowtap {
	void *ctx;
	/*
	 * A settled call that succeeded (@ev->ret >= 0: 0 is a read's end of
	 * file) on a pipe or socket @ch, into the flow keyed @key (the writing
	 * end's inode, or the reading end's with bit 63 when its peer is not
	 * known): before the matches it makes. @writing: bytes into the channel.
	 */
	void (*call)(void *ctx, const struct ipcperf_syscall *ev, const struct ipp_ident *ch,
		     uint64_t key, bool writing);
	/* A match in the flow keyed @key: the matches of a flow come in the order of its bytes. */
	void (*match)(void *ctx, uint64_t key, const struct ipcperf_flow_match *m);
};

/* Tap @fl (NULL @t: untap). The flows keep a copy of *@t. */
void ipp_flows__tap(struct ipcperf_flows *fl, const struct ipp_flowtap *t);
/* The stats object @fl was made over. */
struct ipcperf_stats *ipp_flows__stats(struct ipcperf_flows *fl);

#endif /* IPCPERF_PATHS_FLOWTAP_H */
