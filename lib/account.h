/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * account.c's private side: what the other consumers (flows.c) share with
 * a stats object.
 */
#ifndef IPCPERF_ACCOUNT_H
#define IPCPERF_ACCOUNT_H

#include "internal.h"

struct ipp_fdtab;

/* The fd table (fdtable.h) a stats object keeps: flows read what fds are from it. */
struct ipp_fdtab *ipp_stats_fdtab(struct ipcperf_stats *st);

#endif /* IPCPERF_ACCOUNT_H */
