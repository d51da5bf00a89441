/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's words on the fds a call made, held until that call's exit
 * (resolve-kernel.h): applied at the exit of the same call on the same
 * thread, dropped at any other.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fd/resolve-kernel.h"

struct ipp_kwords {
	/*
	 * What the kernel said the fds a call made are, in the moment before
	 * that call's exit arrives: applied at the exit of the same call on
	 * the same thread, dropped at any other.
	 */
	struct pending_fd {
		pid_t pid, tid;
		int fd, nr;
		int64_t ret;
		struct ipp_ident id;
	} *pend;
	size_t nr_pend, cap_pend;
	/*
	 * The last exit of each thread, for the kernel's words that come after
	 * their call's exit (the order of the tracepoints' probes decides):
	 * sorted by tid.
	 */
	struct lastexit {
		pid_t tid, pid;
		int nr;
		int64_t ret;
		uint64_t end_ns;
		enum { LE_OPEN, LE_EARLY, LE_LATE } state;
	} *lex;
	size_t nr_lex, cap_lex;
};

struct ipp_kwords *ipp_kwords__new(void)
{
	return ipp_new(sizeof(struct ipp_kwords));
}

void ipp_kwords__delete(struct ipp_kwords *k)
{
	if (k)
		ipp_free_all(k->pend, k->lex, k);
}

static int cmp_lastexit(const void *key, const void *elem)
{
	pid_t a = *(const pid_t *)key, b = ((const struct lastexit *)elem)->tid;

	return (a > b) - (a < b);
}

/* The last exit of thread @tid, made if @create; NULL if none (or out of memory). */
static struct lastexit *last_exit(struct ipp_kwords *k, pid_t tid, bool create)
{
	bool made;
	struct lastexit *e = ipp_sorted_get((void **)&k->lex, &k->nr_lex, &k->cap_lex, sizeof(*e),
					    &tid, cmp_lastexit, create, &made);

	if (made)
		e->tid = tid;
	return e;
}

bool ipp_kwords__word(struct ipp_kwords *k, const struct ipcperf_fd_open *ev, pid_t *pid,
		      uint64_t *end_ns)
{
	/*
	 * After its call's exit: the thread's last exit is that call, unless
	 * that exit already took words that came before it (then these are
	 * the next call's, which has not exited yet).
	 */
	struct lastexit *l = last_exit(k, ev->tid, false);

	if (l && l->state != LE_EARLY && l->nr == ev->nr && l->ret == ev->ret &&
	    l->pid == ev->pid) {
		l->state = LE_LATE;
		*pid = l->pid;
		*end_ns = l->end_ns;
		return true;
	}
	if (ipp_grow((void **)&k->pend, &k->cap_pend, k->nr_pend + 1, sizeof(*k->pend)) < 0)
		return false;	/* out of memory: the fd is resolved from /proc as without the kernel's word */
	k->pend[k->nr_pend] = (struct pending_fd){ .pid = ev->pid, .tid = ev->tid, .fd = ev->fd,
						   .nr = ev->nr, .ret = ev->ret };
	ipp_ident_of_open(&k->pend[k->nr_pend].id, ev);
	k->nr_pend++;
	return false;
}

size_t ipp_kwords__exit(struct ipp_kwords *k, const struct ipcperf_syscall *ev, bool track,
			void (*apply)(void *ctx, int fd, const struct ipp_ident *id), void *ctx)
{
	size_t n = 0, kept = 0;

	for (size_t i = 0; i < k->nr_pend; i++) {
		struct pending_fd *pf = &k->pend[i];

		if (pf->tid != ev->tid) {
			k->pend[kept++] = *pf;
			continue;
		}
		if (pf->nr != ev->nr || pf->ret != ev->ret || pf->pid != ev->pid || n == IPP_MAX_CALL_FDS)
			continue;
		apply(ctx, pf->fd, &pf->id);
		n++;
	}
	k->nr_pend = kept;
	if (track) {
		struct lastexit *l = last_exit(k, ev->tid, true);

		if (l)
			*l = (struct lastexit){ .tid = ev->tid, .pid = ev->pid, .nr = ev->nr,
						.ret = ev->ret, .end_ns = ev->end_ns,
						.state = n ? LE_EARLY : LE_OPEN };
	}
	return n;
}

void ipp_kwords__gone(struct ipp_kwords *k, pid_t tid)
{
	size_t at, kept = 0;

	if (ipp_bsearch_at(&tid, k->lex, k->nr_lex, sizeof(*k->lex), cmp_lastexit, &at))
		ipp_remove_at(k->lex, &k->nr_lex, at, sizeof(*k->lex));
	for (size_t i = 0; i < k->nr_pend; i++)
		if (k->pend[i].tid != tid)
			k->pend[kept++] = k->pend[i];
	k->nr_pend = kept;
}
