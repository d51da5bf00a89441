/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Wait attribution for event loops (waits.h). */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include "flows/waits.h"

struct fdset {
	int *v;			/* ascending */
	size_t n, cap;
};

/* One epoll fd of a process: the fds it watches. */
struct epset {
	pid_t pid;
	int epfd;
	bool known;		/* made while traced: its fds are those epoll_ctl added */
	struct fdset fds;
};

/* A process's fds whose last write was refused (EAGAIN): they wait for room. */
struct refused {
	pid_t pid;
	struct fdset fds;
};

/*
 * A thread's last wait that returned ready fds, and the fds served since.
 * Its time asleep is one stretch: split in @ready equal shares (the number
 * the wait returned), one for each of the first @ready fds served.
 */
struct twait {
	pid_t tid, pid;
	bool active;
	int epfd;
	uint64_t start_ns, blocked_ns;
	uint64_t ready, given;	/* fds the wait said were ready; shares given */
	struct fdset served;
};

struct ipp_waits {
	struct epset *sets;
	size_t nr_sets, cap_sets;
	struct twait *threads;	/* ascending by tid */
	size_t nr_threads, cap_threads;
	struct refused *refused;
	size_t nr_refused, cap_refused;
};

struct ipp_waits *ipp_waits__new(void)
{
	return ipp_new(sizeof(struct ipp_waits));
}

void ipp_waits__delete(struct ipp_waits *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->nr_sets; i++)
		free(w->sets[i].fds.v);
	for (size_t i = 0; i < w->nr_threads; i++)
		free(w->threads[i].served.v);
	for (size_t i = 0; i < w->nr_refused; i++)
		free(w->refused[i].fds.v);
	free(w->refused);
	free(w->sets);
	free(w->threads);
	free(w);
}

/* ------------------------------------------------------------------ fd sets */

static size_t fdset_at(const struct fdset *s, int fd)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->v[mid] < fd)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool fdset_has(const struct fdset *s, int fd)
{
	size_t i = fdset_at(s, fd);

	return i < s->n && s->v[i] == fd;
}

static void fdset_add(struct fdset *s, int fd)
{
	size_t i = fdset_at(s, fd);
	int *slot;

	if (i < s->n && s->v[i] == fd)
		return;
	slot = ipp_insert_at((void **)&s->v, &s->n, &s->cap, i, sizeof(*slot));
	if (slot)
		*slot = fd;
}

static void fdset_del(struct fdset *s, int fd)
{
	size_t i = fdset_at(s, fd);

	if (i >= s->n || s->v[i] != fd)
		return;
	memmove(&s->v[i], &s->v[i + 1], (s->n - i - 1) * sizeof(*s->v));
	s->n--;
}

/* ------------------------------------------------------------------ lookups */

static struct epset *get_set(struct ipp_waits *w, pid_t pid, int epfd, bool create)
{
	struct epset *e;

	for (size_t i = 0; i < w->nr_sets; i++)
		if (w->sets[i].pid == pid && w->sets[i].epfd == epfd)
			return &w->sets[i];
	if (!create ||
	    ipp_grow((void **)&w->sets, &w->cap_sets, w->nr_sets + 1, sizeof(*w->sets)) < 0)
		return NULL;
	e = &w->sets[w->nr_sets++];
	*e = (struct epset){ .pid = pid, .epfd = epfd };
	return e;
}

static void drop_set(struct ipp_waits *w, struct epset *e)
{
	free(e->fds.v);
	*e = w->sets[--w->nr_sets];
}

static struct fdset *refused_of(struct ipp_waits *w, pid_t pid, bool create)
{
	struct refused *r;

	for (size_t i = 0; i < w->nr_refused; i++)
		if (w->refused[i].pid == pid)
			return &w->refused[i].fds;
	if (!create || ipp_grow((void **)&w->refused, &w->cap_refused, w->nr_refused + 1,
				sizeof(*w->refused)) < 0)
		return NULL;
	r = &w->refused[w->nr_refused++];
	*r = (struct refused){ .pid = pid };
	return &r->fds;
}

static int cmp_twait(const void *key, const void *elem)
{
	pid_t a = *(const pid_t *)key, b = ((const struct twait *)elem)->tid;

	return (a > b) - (a < b);
}

static struct twait *get_thread(struct ipp_waits *w, pid_t tid, bool create)
{
	struct twait *t;
	size_t lo;

	if (ipp_bsearch_at(&tid, w->threads, w->nr_threads, sizeof(*w->threads), cmp_twait, &lo))
		return &w->threads[lo];
	if (!create)
		return NULL;
	t = ipp_insert_at((void **)&w->threads, &w->nr_threads, &w->cap_threads, lo, sizeof(*t));
	if (t)
		*t = (struct twait){ .tid = tid };
	return t;
}

/* ------------------------------------------------------------------ feeding */

static bool is_epoll_create(const struct ipcperf_syscall *ev)
{
	return ev->cls == IPCPERF_SC_FD_NEW && !strncmp(ev->name, "epoll_create", 12);
}

bool ipp_waits__follows(const struct ipcperf_syscall *ev)
{
	return ev->cls == IPCPERF_SC_WAIT || ev->cls == IPCPERF_SC_FD_CLOSE ||
	       (ev->name && (is_epoll_create(ev) || !strcmp(ev->name, "epoll_ctl")));
}

static void on_ctl(struct ipp_waits *w, const struct ipcperf_syscall *ev)
{
	/* epoll_ctl(epfd, op, fd, event): what it did, when it did it */
	struct epset *e;

	if (ev->ret < 0 || ev->nr_args < 3)
		return;
	e = get_set(w, ev->pid, (int)ev->args[0], true);
	if (!e)
		return;
	if (ev->args[1] == EPOLL_CTL_DEL)
		fdset_del(&e->fds, (int)ev->args[2]);
	else
		fdset_add(&e->fds, (int)ev->args[2]);
}

/* A close: an epoll fd's set goes; a watched fd leaves the sets of its process. */
static void on_close(struct ipp_waits *w, const struct ipcperf_syscall *ev)
{
	struct fdset *r = refused_of(w, ev->pid, false);

	if (r)
		fdset_del(r, ev->fd);
	for (size_t i = 0; i < w->nr_sets; i++) {
		struct epset *e = &w->sets[i];

		if (e->pid != ev->pid)
			continue;
		if (e->epfd == ev->fd) {
			drop_set(w, e);
			i--;
		} else {
			fdset_del(&e->fds, ev->fd);
		}
	}
}

static void on_wait(struct ipp_waits *w, const struct ipcperf_syscall *ev)
{
	struct twait *t = get_thread(w, ev->tid, ev->ret > 0);

	if (!t)
		return;
	/* A timeout or an error: nothing became ready. */
	t->active = ev->ret > 0;
	t->pid = ev->pid;
	t->epfd = ev->fd;
	t->start_ns = ev->start_ns;
	t->blocked_ns = ev->blocked_ns;
	t->ready = ev->ret > 0 ? (uint64_t)ev->ret : 0;
	t->given = 0;
	t->served.n = 0;
}

void ipp_waits__call(struct ipp_waits *w, const struct ipcperf_syscall *ev)
{
	struct epset *e;

	if (!w)
		return;
	if (ev->cls == IPCPERF_SC_WAIT) {
		on_wait(w, ev);
	} else if (ev->cls == IPCPERF_SC_FD_CLOSE) {
		if (ev->fd >= 0 && ev->ret != -EBADF)
			on_close(w, ev);
	} else if (is_epoll_create(ev)) {
		if (ev->ret < 0)
			return;
		/* a new epoll fd watches nothing yet; an old one of that number is gone */
		e = get_set(w, ev->pid, (int)ev->ret, true);
		if (!e)
			return;
		e->known = true;
		e->fds.n = 0;
	} else {
		on_ctl(w, ev);
	}
}

/* The next share of @t's time asleep: q or q + 1 ns, all @t->ready of them adding up to it. */
static uint64_t next_share(struct twait *t)
{
	uint64_t q = t->blocked_ns / t->ready, r = t->blocked_ns % t->ready;

	return q + (t->given++ < r ? 1 : 0);
}

/*
 * Whether the read or write @ev is the first on its fd since its thread's
 * wait, which watched it, and one of the fds that wait readied.
 */
static bool served(struct ipp_waits *w, const struct ipcperf_syscall *ev, bool room,
		   struct ipp_waited *out)
{
	struct twait *t = get_thread(w, ev->tid, false);
	struct epset *e;

	if (!t || !t->active || t->pid != ev->pid || fdset_has(&t->served, ev->fd))
		return false;
	e = t->epfd >= 0 ? get_set(w, t->pid, t->epfd, false) : NULL;
	/* poll, select, a set made before the capture (never created): any fd */
	if (e && e->known && !fdset_has(&e->fds, ev->fd))
		return false;
	/* the thread did something with the fd: a later call is not this wait's */
	fdset_add(&t->served, ev->fd);
	/* refused: this fd was not ready; or all the fds the wait readied were served */
	if (ev->ret == -EAGAIN || t->given >= t->ready)
		return false;
	out->start_ns = t->start_ns;
	out->blocked_ns = next_share(t);
	/* a writer surely waited for room when it was refused; else flows judges by the fill */
	out->refused = ev->cls == IPCPERF_SC_WRITE && room;
	return true;
}

bool ipp_waits__served(struct ipp_waits *w, const struct ipcperf_syscall *ev,
		       struct ipp_waited *out)
{
	struct fdset *r;
	bool room, yes;

	if (!w || ev->fd < 0)
		return false;
	r = refused_of(w, ev->pid, ev->cls == IPCPERF_SC_WRITE && ev->ret == -EAGAIN);
	room = r && fdset_has(r, ev->fd);
	yes = served(w, ev, room, out);
	if (r && ev->cls == IPCPERF_SC_WRITE && ev->ret == -EAGAIN)
		fdset_add(r, ev->fd);
	else if (r && ev->cls == IPCPERF_SC_WRITE)
		fdset_del(r, ev->fd);
	return yes;
}
