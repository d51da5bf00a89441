/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The /proc resolver of fd identity, reading ahead of the merge (procres.h). */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "fd/procfd.h"
#include "fd/procres.h"
#include "fd/resolve.h"
#include "syscalls.h"

/* Answers kept per fd: a few incarnations' worth, the oldest dropped first. */
#define ANS_MAX 4
/* Connects under way (enter seen, exit not yet), by thread. */
#define CONNECTS_MAX 64
/* How long one netlink dump of the sockets serves lookups. */
#define SOCKDB_FRESH_NS (100ull * 1000 * 1000)

/* What was read ahead for one fd of one process. */
struct fdans {
	uint64_t closed_ns;	/* the latest close of the fd seen (its enter) */
	struct ipp_ident *v;	/* ANS_MAX, oldest first; NULL until the first answer */
	unsigned int n;
};

struct ipp_procres {
	struct ipp_resolver base;	/* its face to the fd table (resolve.h) */
	int refs;
	struct ipp_idmap fds;	/* key_of(pid, fd) -> struct fdans */
	struct ipp_sockdb *sockdb;
	uint64_t sockdb_ns;
	/*
	 * A connect's enter and exit can be taken in either order (one ring
	 * per CPU, and the thread may move while it waits): whichever comes
	 * first waits here for the other.
	 */
	struct connecting {
		pid_t tid, pid;
		int fd;			/* the enter came: its fd; else -1 */
		bool exited;		/* the exit came: its result and time */
		int64_t ret;
		uint64_t exit_ns, enter_ns;
	} conn[CONNECTS_MAX];
	size_t nr_conn;
	uint64_t reads_ahead;
};

static const struct ipp_resolver_ops proc_ops;

struct ipp_procres *ipp_procres__new(void)
{
	struct ipp_procres *r = calloc(1, sizeof(*r));

	if (r) {
		r->base.ops = &proc_ops;
		r->refs = 1;
	}
	return r;
}

struct ipp_procres *ipp_procres__get(struct ipp_procres *r)
{
	if (r)
		r->refs++;
	return r;
}

static void fdans_free(void *ctx, void *val)
{
	struct fdans *a = val;

	(void)ctx;
	free(a->v);
	free(a);
}

void ipp_procres__put(struct ipp_procres *r)
{
	if (!r || --r->refs > 0)
		return;
	ipp_idmap__each(&r->fds, fdans_free, NULL);
	ipp_idmap__fini(&r->fds);
	ipp_sockdb__delete(r->sockdb);
	free(r);
}

uint64_t ipp_procres__reads_ahead(const struct ipp_procres *r)
{
	return r ? r->reads_ahead : 0;
}

/* ------------------------------------------------------------------ reading /proc */

/*
 * @s appended at *@at (< @cap) of @buf (@cap bytes, zeroed past *@at), cut as
 * snprintf() would cut it. Without snprintf(): each fd made names its object
 * and addresses.
 */
static void put_str(char *buf, size_t cap, size_t *at, const char *s)
{
	size_t n = strlen(s);

	if (n > cap - 1 - *at)
		n = cap - 1 - *at;
	memcpy(buf + *at, s, n);
	*at += n;
}

void ipp_ident_of_fdid(struct ipp_ident *id, const struct ipp_fdid *f, uint64_t when)
{
	size_t at = 0;

	memset(id, 0, sizeof(*id));
	id->state = IPP_ID_PROC;
	id->res_ns = when;
	id->read_ns = when;
	id->kind = f->kind;
	id->ino = (f->kind == IPCPERF_FD_PIPE || f->family) ? f->ino : 0;
	id->peer_ino = f->peer_ino;
	id->sock_type = f->type;
	id->capacity = f->sndbuf ? (int64_t)f->sndbuf : -1;
	id->cloexec = f->flags < 0 ? -1 : !!(f->flags & O_CLOEXEC);
	id->accmode = f->flags < 0 ? 0 : (signed char)((f->flags & O_ACCMODE) + 1);
	put_str(id->object, sizeof(id->object), &at, f->object);
	if (f->kind == IPCPERF_FD_TCP || f->kind == IPCPERF_FD_UDP) {
		char l[IPP_ADDR_MAX] = "", r[IPP_ADDR_MAX] = "";

		ipp_sockaddr_str(&f->local, l, sizeof(l));
		ipp_sockaddr_str(&f->remote, r, sizeof(r));
		/* No addresses: no detail (not " -> "), the object names it. */
		at = 0;
		if (*l || *r) {
			put_str(id->detail, sizeof(id->detail), &at, l);
			put_str(id->detail, sizeof(id->detail), &at, " -> ");
			put_str(id->detail, sizeof(id->detail), &at, r);
		}
		id->partial = !f->diag;
	} else if (f->kind == IPCPERF_FD_UNIX && f->peer_ino) {
		snprintf(id->detail, sizeof(id->detail), "peer socket:[%llu]",
			 (unsigned long long)f->peer_ino);
	}
}


static struct ipp_sockdb *fresh_sockdb(struct ipp_procres *r)
{
	uint64_t now = ipp_now_ns();

	if (!r->sockdb)
		r->sockdb = ipp_sockdb__new();
	/* A dump that failed (it can, under load) leaves the old table, and its time. */
	if (r->sockdb && now - r->sockdb_ns > SOCKDB_FRESH_NS && ipp_sockdb__refresh(r->sockdb) >= 0)
		r->sockdb_ns = now;
	return r->sockdb;
}

/*
 * The socket table for a socket being resolved: asked for only once the fd
 * is held and is a socket (pipes and files need none), so that the dump,
 * which takes milliseconds, cannot outlast the fd.
 */
static const struct ipp_sockdb *sockdb_for_held(void *ctx)
{
	return fresh_sockdb(ctx);
}

void ipp_procres__stale_sockets(struct ipp_procres *r)
{
	r->sockdb_ns = 0;
}

/*
 * A pipe's capacity from F_GETPIPE_SZ on a duplicate of the target's fd
 * (pidfd_getfd); without one, the kernel's default, said so.
 */
static void set_pipe_capacity(struct ipp_ident *id, pid_t pid, int fd)
{
	int cap = ipp_pipe_capacity_via_pidfd(pid, fd);

	id->cap_default = cap <= 0;
	id->capacity = cap > 0 ? cap : IPP_PIPE_DEFAULT_SIZE;
}

/* An inet socket the socket table lacks: not in the kernel's tables, or newer than the dump. */
static bool inet_undiagnosed(const struct ipp_fdid *f)
{
	return (f->kind == IPCPERF_FD_TCP || f->kind == IPCPERF_FD_UDP) && !f->diag;
}

int ipp_procres__read(struct ipp_procres *r, pid_t pid, int fd, struct ipp_ident *id)
{
	uint64_t when = ipp_now_ns();
	struct ipp_fdid f;
	int err = ipp_procfd_resolve_held(pid, fd, sockdb_for_held, r, &f);

	/*
	 * A table dumped before this read cannot tell whether the socket is in
	 * no kernel table (never bound nor connected) or newer than the dump:
	 * dump again. (A socket an old record makes us read may be one made
	 * since, with the same number.)
	 */
	if (err == 0 && inet_undiagnosed(&f) && r->sockdb_ns < when) {
		r->sockdb_ns = 0;
		err = ipp_procfd_resolve_held(pid, fd, sockdb_for_held, r, &f);
	}

	if (err == 0) {
		ipp_ident_of_fdid(id, &f, when);
		if (f.kind == IPCPERF_FD_PIPE)
			set_pipe_capacity(id, pid, fd);
	} else {
		memset(id, 0, sizeof(*id));
		id->state = IPP_ID_UNKNOWN;
		id->capacity = -1;
		id->cloexec = -1;
		id->read_err = err;
	}
	id->read_ns = when;
	return err;
}

struct scan_ctx {
	pid_t pid;
	uint64_t when;
	bool pipe_cap;
	int (*cb)(void *ctx, int fd, const struct ipp_ident *id);
	void *ctx;
};

static int scan_one(void *ctx, int fd, const struct ipp_fdid *f)
{
	struct scan_ctx *sc = ctx;
	struct ipp_ident id;

	ipp_ident_of_fdid(&id, f, sc->when);
	id.read_ns = sc->when;
	if (f->kind == IPCPERF_FD_PIPE && sc->pipe_cap)
		set_pipe_capacity(&id, sc->pid, fd);
	return sc->cb(sc->ctx, fd, &id);
}

/*
 * The sockets of the network namespace of @pid when it is not ours (a
 * container's), which our table lacks; NULL when it is ours or cannot be read.
 */
static struct ipp_sockdb *netns_sockdb(pid_t pid)
{
	int nsfd = ipp_procfd_other_netns(pid);
	struct ipp_sockdb *db = nsfd >= 0 ? ipp_sockdb__new() : NULL;

	if (db && ipp_sockdb__refresh_in(db, nsfd) < 0) {
		ipp_sockdb__delete(db);
		db = NULL;
	}
	if (nsfd >= 0)
		close(nsfd);
	return db;
}

int ipp_procres__scan(struct ipp_procres *r, pid_t pid, bool pipe_cap,
		      int (*cb)(void *ctx, int fd, const struct ipp_ident *id), void *ctx)
{
	struct scan_ctx sc = { .pid = pid, .when = ipp_now_ns(), .pipe_cap = pipe_cap, .cb = cb,
			       .ctx = ctx };
	struct ipp_sockdb *ns = netns_sockdb(pid);
	int ret = ipp_procfd_scan(pid, ns ? ns : fresh_sockdb(r), scan_one, &sc);

	ipp_sockdb__delete(ns);
	return ret;
}

/* ------------------------------------------------------------------ answers by fd */

static uint64_t key_of(pid_t pid, int fd)
{
	/* fd + 1: the map takes no key 0 */
	return (uint64_t)(uint32_t)pid << 32 | (uint32_t)(fd + 1);
}

/* The answers of @fd of @pid; made if @create. NULL: none (or out of memory). */
static struct fdans *fdans_of(struct ipp_procres *r, pid_t pid, int fd, bool create)
{
	uint64_t key = key_of(pid, fd);

	return create ? ipp_idmap__get_new(&r->fds, key, sizeof(struct fdans)) :
			ipp_idmap__get(&r->fds, key);
}

/* The time an answer was read, whether or not it named the fd. */
static uint64_t ans_time(const struct ipp_ident *id)
{
	return id->read_ns;
}

/* Read @fd of @pid now and keep the answer. */
static void read_ahead(struct ipp_procres *r, pid_t pid, int fd)
{
	struct fdans *a = fd >= 0 ? fdans_of(r, pid, fd, true) : NULL;

	if (!a)
		return;
	if (!a->v && !(a->v = calloc(ANS_MAX, sizeof(*a->v))))
		return;
	if (a->n == ANS_MAX) {
		memmove(&a->v[0], &a->v[1], (ANS_MAX - 1) * sizeof(*a->v));
		a->n--;
	}
	ipp_procres__read(r, pid, fd, &a->v[a->n++]);
	r->reads_ahead++;
}

/* The first call seen on @fd since its last close: read it, unless read since. */
static void first_use(struct ipp_procres *r, pid_t pid, int fd)
{
	struct fdans *a = fdans_of(r, pid, fd, false);

	if (fd < 0 || (a && a->n && ans_time(&a->v[a->n - 1]) > a->closed_ns))
		return;
	read_ahead(r, pid, fd);
}

static void closed(struct ipp_procres *r, pid_t pid, int fd, uint64_t time)
{
	struct fdans *a = fdans_of(r, pid, fd, false);

	if (a && time > a->closed_ns)
		a->closed_ns = time;
}

/* The connect of thread @tid waiting for its other half, made if @create. */
static struct connecting *connect_of(struct ipp_procres *r, pid_t tid, bool create)
{
	size_t i;

	for (i = 0; i < r->nr_conn && r->conn[i].tid != tid; i++)
		;
	if (i < r->nr_conn)
		return &r->conn[i];
	if (!create)
		return NULL;
	if (r->nr_conn == CONNECTS_MAX)
		i = (size_t)tid % CONNECTS_MAX;	/* a half whose other never came: overwrite */
	else
		r->nr_conn++;
	r->conn[i] = (struct connecting){ .tid = tid, .fd = -1 };
	return &r->conn[i];
}

/* Both halves of the connect @c came: read the socket if it connected. */
static void connect_done(struct ipp_procres *r, struct connecting *c)
{
	if (c->exit_ns >= c->enter_ns && (c->ret == 0 || c->ret == -EINPROGRESS))
		read_ahead(r, c->pid, c->fd);
	*c = r->conn[--r->nr_conn];
}

static void connect_enter(struct ipp_procres *r, pid_t pid, pid_t tid, int fd, uint64_t time)
{
	struct connecting *c = connect_of(r, tid, true);

	if (c->exited && c->exit_ns < time)
		*c = (struct connecting){ .tid = tid, .fd = -1 };	/* an older call's exit */
	c->pid = pid;
	c->fd = fd;
	c->enter_ns = time;
	if (c->exited)
		connect_done(r, c);
}

static void connect_exit(struct ipp_procres *r, pid_t tid, int64_t ret, uint64_t time)
{
	struct connecting *c = connect_of(r, tid, true);

	c->exited = true;
	c->ret = ret;
	c->exit_ns = time;
	if (c->fd >= 0)
		connect_done(r, c);
}

/* ------------------------------------------------------------------ records */

static bool io_call(const struct ipp_scdesc *sc)
{
	return sc->cls == IPCPERF_SC_READ || sc->cls == IPCPERF_SC_WRITE ||
	       sc->cls == IPCPERF_SC_MOVE;
}

static int fd_arg(const struct ipp_scdesc *sc, const uint64_t *args, unsigned int nr_args)
{
	if (sc->fd_arg < 0 || (unsigned int)sc->fd_arg >= nr_args)
		return -1;
	return (int)(int64_t)args[(int)sc->fd_arg];
}

void ipp_procres__on_enter(struct ipp_procres *r, const struct ipp_scdesc *sc, pid_t pid,
			   pid_t tid, const uint64_t *args, unsigned int nr_args, uint64_t time)
{
	int fd;

	if (!r || !sc)
		return;
	fd = fd_arg(sc, args, nr_args);
	if (io_call(sc)) {
		first_use(r, pid, fd);
		/* a move's destination too */
		if (sc->out_arg >= 0 && (unsigned int)sc->out_arg < nr_args)
			first_use(r, pid, (int)(int64_t)args[(int)sc->out_arg]);
	}
	else if (sc->fd_op == IPP_FDOP_CLOSE && fd >= 0)
		closed(r, pid, fd, time);
	else if (sc->fd_op == IPP_FDOP_CONNECT && fd >= 0)
		connect_enter(r, pid, tid, fd, time);
}

void ipp_procres__on_exit(struct ipp_procres *r, const struct ipp_scdesc *sc, pid_t pid,
			  pid_t tid, int64_t ret, uint64_t time)
{
	if (!r || !sc)
		return;
	if ((sc->fd_op == IPP_FDOP_NEW || sc->fd_op == IPP_FDOP_DUP) && ret >= 0)
		read_ahead(r, pid, (int)ret);
	else if (sc->fd_op == IPP_FDOP_CONNECT)
		connect_exit(r, tid, ret, time);
}

void ipp_procres__on_call(struct ipp_procres *r, const struct ipp_scdesc *sc, pid_t pid,
			  pid_t tid, const uint64_t *args, unsigned int nr_args, int64_t ret,
			  uint64_t start_ns, uint64_t end_ns)
{
	int fd;

	if (!r || !sc)
		return;
	fd = fd_arg(sc, args, nr_args);
	if (sc->fd_op == IPP_FDOP_CONNECT) {
		if (fd >= 0 && (ret == 0 || ret == -EINPROGRESS))
			read_ahead(r, pid, fd);
		return;
	}
	ipp_procres__on_enter(r, sc, pid, tid, args, nr_args, start_ns);
	ipp_procres__on_exit(r, sc, pid, tid, ret, end_ns);
}

/* ------------------------------------------------------------------ taking answers */

/* Drop the answers read before @floor_ns. */
static void drop_older(struct fdans *a, uint64_t floor_ns)
{
	unsigned int k = 0;

	while (k < a->n && ans_time(&a->v[k]) < floor_ns)
		k++;
	memmove(&a->v[0], &a->v[k], (a->n - k) * sizeof(*a->v));
	a->n -= k;
}

int ipp_procres__take(struct ipp_procres *r, pid_t pid, int fd, uint64_t floor_ns,
		      struct ipp_ident *id)
{
	struct fdans *a = r ? fdans_of(r, pid, fd, false) : NULL;

	if (!a)
		return -ENOENT;
	drop_older(a, floor_ns);
	/* A socket read with a table older than it has no addresses: a later read may have them. */
	for (int partial = 0; partial <= 1; partial++) {
		for (unsigned int k = 0; k < a->n; k++) {
			if (a->v[k].state == IPP_ID_PROC && a->v[k].partial == partial) {
				*id = a->v[k];
				return 0;
			}
		}
	}
	if (!a->n)
		return -ENOENT;
	*id = a->v[a->n - 1];
	return 0;
}

/* ------------------------------------------------------------------ the resolver */

/* The earliest answer read ahead since @floor_ns; else /proc now. */
static void proc_resolve(struct ipp_resolver *base, pid_t pid, int fd, uint64_t floor_ns,
			 struct ipp_ident *id)
{
	struct ipp_procres *r = (struct ipp_procres *)base;

	if (ipp_procres__take(r, pid, fd, floor_ns, id) < 0 || id->state != IPP_ID_PROC)
		ipp_procres__read(r, pid, fd, id);
}

static void proc_scan(struct ipp_resolver *base, pid_t pid, bool pipe_cap, ipp_ident_cb cb,
		      void *ctx)
{
	ipp_procres__scan((struct ipp_procres *)base, pid, pipe_cap, cb, ctx);
}

static int proc_comm(struct ipp_resolver *base, pid_t pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;
	int err = 0;

	(void)base;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		err = -ENODATA;
	else
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return err;
}

static int proc_next_proc(struct ipp_resolver *base, pid_t *pid, char *buf, size_t len)
{
	(void)base;
	(void)pid;
	(void)buf;
	(void)len;
	return -ENOENT;	/* /proc names the processes it is asked about, no others */
}

static void proc_connected(struct ipp_resolver *base)
{
	ipp_procres__stale_sockets((struct ipp_procres *)base);
}

static void proc_put(struct ipp_resolver *base)
{
	ipp_procres__put((struct ipp_procres *)base);
}

static const struct ipp_resolver_ops proc_ops = {
	.resolve = proc_resolve, .scan = proc_scan, .comm = proc_comm,
	.next_proc = proc_next_proc, .connected = proc_connected, .put = proc_put,
};

struct ipp_resolver *ipp_procres__resolver(struct ipp_procres *r)
{
	return r ? &ipp_procres__get(r)->base : NULL;
}
