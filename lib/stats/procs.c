/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tables of the stats object (account.h), the bottom of lib/stats/:
 * its processes, kept sorted by pid, and each one's syscall rows, kept
 * sorted by (tid, nr); found, made, emptied and freed here.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "stats/account.h"
#include "syscalls.h"

static int cmp_proc(const void *key, const void *elem)
{
	pid_t a = *(const pid_t *)key, b = (*(struct proc *const *)elem)->pid;

	return (a > b) - (a < b);
}

/* procs is kept sorted by pid. */
struct proc *ipp_stats__proc(struct ipcperf_stats *st, pid_t pid, bool create)
{
	struct proc **c = &st->proc_cache[(unsigned int)pid % LOOKUP_CACHE];
	struct proc *p;
	bool made;

	if (*c && (*c)->pid == pid)
		return *c;
	p = ipp_sorted_get_new((void **)&st->procs, &st->nr_procs, &st->cap_procs, sizeof(*p), &pid,
			       cmp_proc, create, &made);
	if (!p)
		return NULL;
	if (made)
		p->pid = pid;
	return *c = p;
}

void ipp_stats__drop_unseen(struct ipcperf_stats *st, pid_t tid)
{
	struct proc **c = &st->proc_cache[(unsigned int)tid % LOOKUP_CACHE];
	size_t at;

	if (!ipp_bsearch_at(&tid, st->procs, st->nr_procs, sizeof(*st->procs), cmp_proc, &at) ||
	    st->procs[at]->seen)
		return;
	if (*c == st->procs[at])
		*c = NULL;
	ipp_proc__free(st->procs[at]);
	ipp_remove_at(st->procs, &st->nr_procs, at, sizeof(*st->procs));
}

/* A syscall table's key: (tid, nr). */
struct sckey {
	pid_t tid;
	int nr;
};

static int cmp_sc(const void *key, const void *elem)
{
	const struct sckey *k = key;
	const struct scstat *e = *(struct scstat *const *)elem;

	if (k->tid != e->tid)
		return k->tid < e->tid ? -1 : 1;
	return (k->nr > e->nr) - (k->nr < e->nr);
}

struct scstat *ipp_proc__sc(struct proc *p, pid_t tid, int nr, const char *name)
{
	struct sckey key = { tid, nr };
	bool made;
	struct scstat *sc = ipp_sorted_get_new((void **)&p->sc, &p->nr_sc, &p->cap_sc, sizeof(*sc),
					       &key, cmp_sc, true, &made);

	if (made) {
		sc->tid = tid;
		sc->nr = nr;
		sc->name = name ? name : ipp_syscall_name_any(nr);
	}
	return sc;
}

/* @n more calls of @sc failed with @err. */
void ipp_proc__sc_errnos(struct scstat *sc, int err, uint64_t n)
{
	size_t i;
	struct ipcperf_errno_count *v;

	for (i = 0; i < sc->nr_errnos && sc->errnos[i].err < err; i++)
		;
	if (i < sc->nr_errnos && sc->errnos[i].err == err) {
		sc->errnos[i].count += n;
		return;
	}
	v = realloc(sc->errnos, (sc->nr_errnos + 1) * sizeof(*v));
	if (!v)
		return;
	sc->errnos = v;
	memmove(&v[i + 1], &v[i], (sc->nr_errnos - i) * sizeof(*v));
	v[i] = (struct ipcperf_errno_count){ .err = err, .count = n };
	sc->nr_errnos++;
}

void ipp_proc__free(void *obj)
{
	struct proc *p = obj;

	for (size_t i = 0; i < p->nr_sc; i++) {
		free(p->sc[i]->errnos);
		free(p->sc[i]->hist);
		free(p->sc[i]->packed);
		free(p->sc[i]);
	}
	free(p->sc);
	free(p);
}

void ipp_proc__reset(struct proc *p)
{
	p->vol = p->invol = p->wakeups = p->migrations = p->syscalls = p->uring_ops = 0;
	p->folded = 0;
	for (size_t k = 0; k < p->nr_sc; k++) {
		struct scstat *sc = p->sc[k];

		sc->calls = sc->errors = sc->time_ns = 0;
		free(sc->errnos);
		sc->errnos = NULL;
		sc->nr_errnos = 0;
		free(sc->hist);
		free(sc->packed);
		sc->hist = NULL;
		sc->packed = NULL;
	}
}

struct ipp_hist *ipp_stats__hist(struct ipcperf_stats *st)
{
	struct ipp_hist *h;

	if (st->nr_spare)
		return st->spare[--st->nr_spare];
	h = malloc(sizeof(*h));
	if (h)
		ipp_hist_init(h);
	return h;
}

void ipp_stats__hist_done(struct ipcperf_stats *st, struct ipp_hist *h)
{
	if (!h)
		return;
	if (!st->spare)
		st->spare = malloc(IPP_SPARE_HISTS * sizeof(*st->spare));
	if (!st->spare || st->nr_spare == IPP_SPARE_HISTS) {
		free(h);
		return;
	}
	ipp_hist_clear(h);
	st->spare[st->nr_spare++] = h;
}

void ipp_stats__free_spares(struct ipcperf_stats *st)
{
	for (size_t i = 0; i < st->nr_spare; i++)
		free(st->spare[i]);
	free(st->spare);
	st->spare = NULL;
	st->nr_spare = 0;
}
