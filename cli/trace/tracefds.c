/* What each traced process's fds are, as trace's calls said (tracefds.h). */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "tracefds.h"
#include "util.h"

static void clear(struct tracefd *e)
{
	free((char *)e->o.object);
	free((char *)e->o.detail);
}

void tracefds_fini(struct tracefds *t)
{
	for (size_t i = 0; i < t->n; i++)
		clear(&t->v[i]);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

static struct tracefd *find(const struct tracefds *t, pid_t pid, int fd)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].pid == pid && t->v[i].fd == fd)
			return &t->v[i];
	return NULL;
}

static struct tracefd *add(struct tracefds *t)
{
	if (cli_grow_from(64, (void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v)) < 0)
		return NULL;
	return &t->v[t->n++];
}

static void copy_to(struct tracefd *e, pid_t pid, int fd, const struct ipcperf_fd_object *o)
{
	e->pid = pid;
	e->fd = fd;
	e->o = *o;
	e->o.object = o->object ? strdup(o->object) : NULL;
	e->o.detail = o->detail ? strdup(o->detail) : NULL;
}

void tracefds_set(struct tracefds *t, pid_t pid, int fd, const struct ipcperf_fd_object *o)
{
	struct tracefd *e = find(t, pid, fd);

	if (!o || o->kind == IPCPERF_FD_UNKNOWN) {
		tracefds_drop(t, pid, fd);
		return;
	}
	if (e)
		clear(e);
	else if (!(e = add(t)))
		return;
	copy_to(e, pid, fd, o);
}

void tracefds_drop(struct tracefds *t, pid_t pid, int fd)
{
	for (size_t i = 0; i < t->n;) {
		if (t->v[i].pid == pid && (fd < 0 || t->v[i].fd == fd)) {
			clear(&t->v[i]);
			t->v[i] = t->v[--t->n];
		} else {
			i++;
		}
	}
}

const struct ipcperf_fd_object *tracefds_get(const struct tracefds *t, pid_t pid, int fd)
{
	const struct tracefd *e = find(t, pid, fd);

	return e ? &e->o : NULL;
}

void tracefds_fork(struct tracefds *t, pid_t parent, pid_t child)
{
	size_t n = t->n;

	/*
	 * The child runs on another CPU at once: its first calls may come
	 * before the parent's fork returns, and what they said stands.
	 */
	for (size_t i = 0; i < n; i++) {
		struct tracefd *e;

		if (t->v[i].pid != parent || find(t, child, t->v[i].fd) || !(e = add(t)))
			continue;
		copy_to(e, child, t->v[i].fd, &t->v[i].o);
	}
}

/*
 * Drop the fds closed by close_range(args[0], args[1], flags) = 0, unless it
 * only set close-on-exec (4).
 */
static void take_range(struct tracefds *t, const struct ipcperf_syscall *ev)
{
	uint32_t lo = (uint32_t)ev->args[0], hi = (uint32_t)ev->args[1];

	if (ev->ret != 0 || ev->nr_args < 3 || (ev->args[2] & 4))
		return;
	for (size_t i = 0; i < t->n;) {
		if (t->v[i].pid == ev->pid && (uint32_t)t->v[i].fd >= lo && (uint32_t)t->v[i].fd <= hi) {
			clear(&t->v[i]);
			t->v[i] = t->v[--t->n];
		} else {
			i++;
		}
	}
}

void tracefds_take(struct tracefds *t, const struct ipcperf_syscall *ev,
		   const struct ipcperf_call_fds *fds)
{
	if (ev->cls == IPCPERF_SC_FD_CLOSE && ev->fd < 0) {
		take_range(t, ev);
		return;
	}
	if (ev->ret < 0 || !fds)
		return;
	if (ev->cls == IPCPERF_SC_FD_CLOSE && ev->fd >= 0) {
		tracefds_drop(t, ev->pid, ev->fd);
		return;
	}
	/* Keep what the call said last; connect's is the socket connected. */
	if (ev->fd >= 0 && fds->fd && fds->fd->kind != IPCPERF_FD_UNKNOWN)
		tracefds_set(t, ev->pid, ev->fd, fds->fd);
	for (unsigned int i = 0; i < fds->nr_new; i++)
		tracefds_set(t, ev->pid, fds->new_fds[i], &fds->new_objects[i]);
}
