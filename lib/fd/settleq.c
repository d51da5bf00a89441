/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The calls waiting, in arrival order, until the fd table has settled
 * what their fd is (fdtable.h): what flows and the stats consume.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fd/fdtable.h"

void ipp_settleq__init(struct ipp_settleq *q, const struct ipp_fdtab *t)
{
	memset(q, 0, sizeof(*q));
	q->t = t;
}

void ipp_settleq__fini(struct ipp_settleq *q)
{
	free(q->v);
	memset(q, 0, sizeof(*q));
}

int ipp_settleq__push(struct ipp_settleq *q, const struct ipcperf_syscall *ev, long inc)
{
	if (ipp_ring_reserve((void **)&q->v, &q->cap, &q->head, q->len, sizeof(*q->v), 256) < 0)
		return -ENOMEM;
	q->v[(q->head + q->len) % q->cap] = (struct ipp_settle_call){ .ev = *ev, .inc = inc };
	q->len++;
	ipp_fdtab__pin(q->t, inc, 1);
	return 0;
}

void ipp_settleq__drain(struct ipp_settleq *q, bool final, ipp_settled_fn cb, void *ctx)
{
	while (q->len) {
		struct ipp_settle_call *c = &q->v[q->head];
		const struct ipp_ident *id;

		if (!ipp_fdtab__settled(q->t, c->inc, final, &id))
			break;
		q->head = (q->head + 1) % q->cap;
		q->len--;
		ipp_fdtab__pin(q->t, c->inc, -1);
		cb(ctx, &c->ev, id);
	}
}
