/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The stats read out (account.h): a row per fd held (its incarnations of
 * the same object merged), per process, per (process, syscall).
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stats/account.h"
#include "stats/groups.h"

static void lat_of(const struct ipp_hist *h, struct ipcperf_lat *l)
{
	l->min = ipp_hist_min(h);
	l->avg = ipp_hist_avg(h);
	l->p50 = ipp_hist_percentile(h, 50);
	l->p99 = ipp_hist_percentile(h, 99);
	l->max = ipp_hist_max(h);
}

static int cmp_rowref(const void *a, const void *b)
{
	const struct ipp_rowref *x = a, *y = b;
	int c;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->fd != y->fd)
		return x->fd < y->fd ? -1 : 1;
	c = strcmp(x->id->object, y->id->object);
	if (c)
		return c;
	/* the rows of folded exited processes: one a kind, object "" */
	if (x->id->kind != y->id->kind)
		return x->id->kind < y->id->kind ? -1 : 1;
	/* Two unknown incarnations are two rows: never merged on a guess. */
	return (x->inc > y->inc) - (x->inc < y->inc);
}

bool ipp_rows__same(const struct ipp_rowref *a, const struct ipp_rowref *b)
{
	return a->pid == b->pid && a->fd == b->fd &&
	       a->id->state != IPP_ID_UNKNOWN && b->id->state != IPP_ID_UNKNOWN &&
	       a->id->kind == b->id->kind && strcmp(a->id->object, b->id->object) == 0;
}

/* Add @src into @dst, whose histogram is the caller's. */
static void add_side(struct side *dst, const struct side *src)
{
	ipp_side_add(dst, src);
	if (src->hist)
		ipp_hist_merge(dst->hist, src->hist);
}

static void io_of(const struct side *sd, struct ipcperf_io *io)
{
	io->ops = sd->ops;
	io->bytes = sd->bytes;
	io->errors = sd->errors;
	io->time_ns = sd->time_ns;
	io->msgs = sd->msgs;
	io->again = sd->again;
	lat_of(sd->hist, &io->lat_ns);
}

int ipp_rowsum__init(struct ipp_rowsum *s)
{
	memset(s, 0, sizeof(*s));
	s->rd.hist = malloc(sizeof(*s->rd.hist));
	s->wr.hist = malloc(sizeof(*s->wr.hist));
	if (!s->rd.hist || !s->wr.hist) {
		ipp_rowsum__fini(s);
		return -ENOMEM;
	}
	ipp_rowsum__reset(s);
	return 0;
}

void ipp_rowsum__fini(struct ipp_rowsum *s)
{
	free(s->rd.hist);
	free(s->wr.hist);
	memset(s, 0, sizeof(*s));
}

void ipp_rowsum__reset(struct ipp_rowsum *s)
{
	struct ipp_hist *r = s->rd.hist, *w = s->wr.hist;

	*s = (struct ipp_rowsum){ .rd.hist = r, .wr.hist = w };
	ipp_hist_init(r);
	ipp_hist_init(w);
}

/* The counts of @r: none yet when it was only held, never read or written. */
void ipp_rowsum__add(struct ipp_rowsum *s, const struct ipp_rowref *r)
{
	static const struct inccount zero;
	const struct inccount *c = r->c ? r->c : &zero;

	add_side(&s->rd, &c->rd);
	add_side(&s->wr, &c->wr);
	if (r->packed[0])
		ipp_hist_merge_packed(s->rd.hist, r->packed[0]);
	if (r->packed[1])
		ipp_hist_merge_packed(s->wr.hist, r->packed[1]);
	if (c->first_ns && (!s->first_ns || c->first_ns < s->first_ns))
		s->first_ns = c->first_ns;
	if (c->last_ns > s->last_ns)
		s->last_ns = c->last_ns;
}

void ipp_rowsum__io(const struct ipp_rowsum *s, struct ipcperf_io *rd, struct ipcperf_io *wr)
{
	io_of(&s->rd, rd);
	io_of(&s->wr, wr);
}

void ipp_rowsum__moved(const struct ipp_rowsum *s, struct ipcperf_moved *rd,
		       struct ipcperf_moved *wr)
{
	*rd = (struct ipcperf_moved){ .ops = s->rd.mv_ops, .bytes = s->rd.mv_bytes };
	*wr = (struct ipcperf_moved){ .ops = s->wr.mv_ops, .bytes = s->wr.mv_bytes };
}

/*
 * Not an fd @p held: one of the command's process that its first exec
 * closed (the tracer's, before the command), or one that ended before the
 * pid did anything of its own (the copy a thread's clone made, under the
 * thread's id, of a table it shares; the fds of an earlier holder of the pid).
 */
static bool not_held(const struct ipcperf_stats *st, const struct proc *p,
		     const struct ipp_inc *in)
{
	if (in->open)
		return false;
	return (st->cmd_exec_ns && in->pid == st->cmd_pid && in->end_ns <= st->cmd_exec_ns) ||
	       in->end_ns < p->seen_ns;
}

bool ipp_rows__has_io(const struct ipcperf_stats *st, size_t inc)
{
	return inc < st->nr_counts && (st->counts[inc].rd.ops || st->counts[inc].wr.ops);
}

bool ipp_rowref__has_io(const struct ipp_rowref *r)
{
	return r->c && (r->c->rd.ops || r->c->wr.ops);
}

/*
 * The incarnations to report, sorted into rows: every fd a process we saw
 * held during the capture, with I/O or without (a thread's copy of its
 * parent's table at clone is never used: its pid is never seen).
 */
struct ipp_rowref *ipp_rows__held(struct ipcperf_stats *st, size_t *nr)
{
	size_t n = ipp_fdtab__count(st->fdt), k = 0;
	struct ipp_rowref *v = malloc((n + st->nr_folds ? n + st->nr_folds : 1) * sizeof(*v));

	*nr = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const struct ipp_inc *in = ipp_fdtab__inc(st->fdt, i);
		const struct proc *p = in ? ipp_stats__proc(st, in->pid, false) : NULL;

		if (!p || !p->seen || (not_held(st, p, in) && !ipp_rows__has_io(st, i)))
			continue;
		v[k++] = (struct ipp_rowref){ .inc = i, .pid = in->pid, .fd = in->fd,
					      .id = ipp_fdtab__reported(st->fdt, i),
					      .c = i < st->nr_counts ? &st->counts[i] : NULL };
	}
	for (size_t i = 0; i < st->nr_folds; i++) {
		const struct foldrow *f = &st->folds[i];

		v[k++] = (struct ipp_rowref){ .inc = SIZE_MAX, .pid = f->pid, .fd = f->fd,
					      .id = f->id, .c = &f->c,
					      .packed = { f->packed[0], f->packed[1] } };
	}
	if (k > 1)
		qsort(v, k, sizeof(*v), cmp_rowref);
	*nr = k;
	return v;
}

/* ------------------------------------------------------------------ folding */

static size_t fold_hash(pid_t pid, int fd, const char *object)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	h = (h ^ (uint32_t)pid) * 1099511628211ull;
	h = (h ^ (uint32_t)fd) * 1099511628211ull;
	for (const char *c = object; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	return (size_t)h;
}

/* Index fold @i in the hash (slots hold index + 1, 0 free; at most half full). */
static void fold_index(struct ipcperf_stats *st, size_t i)
{
	const struct foldrow *f = &st->folds[i];
	size_t h = fold_hash(f->pid, f->fd, f->id->object) & (st->cap_fold_idx - 1);

	while (st->fold_idx[h])
		h = (h + 1) & (st->cap_fold_idx - 1);
	st->fold_idx[h] = i + 1;
}

/* Room in the hash for one more fold. @return 0 or -ENOMEM. */
static int fold_room(struct ipcperf_stats *st)
{
	size_t cap = st->cap_fold_idx ? st->cap_fold_idx : 64;
	size_t *idx;

	if (2 * (st->nr_folds + 1) <= st->cap_fold_idx)
		return 0;
	while (2 * (st->nr_folds + 1) > cap)
		cap *= 2;
	idx = calloc(cap, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	free(st->fold_idx);
	st->fold_idx = idx;
	st->cap_fold_idx = cap;
	for (size_t i = 0; i < st->nr_folds; i++)
		fold_index(st, i);
	return 0;
}

/* @id as it is reported, with what only its check needed zeroed (padding too: compared whole). */
static void reported_id(struct ipp_ident *out, const struct ipp_ident *id)
{
	memset(out, 0, sizeof(*out));
	out->state = id->state;
	out->kind = id->kind;
	out->ino = id->ino;
	out->peer_ino = id->peer_ino;
	out->sock_type = id->sock_type;
	out->capacity = id->capacity;
	out->cap_default = id->cap_default;
	out->cloexec = id->cloexec;
	out->accmode = id->accmode;
	out->origin = id->origin;
	out->read_err = id->read_err;
	out->partial = id->partial;
	snprintf(out->object, sizeof(out->object), "%s", id->object);
	snprintf(out->detail, sizeof(out->detail), "%s", id->detail);
}

static size_t id_hash(const struct ipp_ident *id)
{
	const unsigned char *b = (const unsigned char *)id;
	uint64_t h = 1469598103934665603ull;	/* FNV-1a over the whole struct */

	for (size_t i = 0; i < sizeof(*id); i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return (size_t)h;
}

/* The slot of @id (reported_id()) in the hash: its entry, or the free slot where it goes. */
static struct sharedid **id_slot(const struct ipcperf_stats *st, const struct ipp_ident *id)
{
	size_t h = id_hash(id) & (st->cap_ids - 1);

	while (st->ids[h] && memcmp(&st->ids[h]->id, id, sizeof(*id)))
		h = (h + 1) & (st->cap_ids - 1);
	return &st->ids[h];
}

/* Room in the hash of shared identities for one more. @return 0 or -ENOMEM. */
static int id_room(struct ipcperf_stats *st)
{
	size_t cap = st->cap_ids ? st->cap_ids * 2 : 64, old = st->cap_ids;
	struct sharedid **v, **prev = st->ids;

	if (2 * (st->nr_ids + 1) <= st->cap_ids)
		return 0;
	v = calloc(cap, sizeof(*v));
	if (!v)
		return -ENOMEM;
	st->ids = v;
	st->cap_ids = cap;
	for (size_t i = 0; i < old; i++)
		if (prev[i])
			*id_slot(st, &prev[i]->id) = prev[i];
	free(prev);
	return 0;
}

/* @id shared by one more row. NULL: no memory. */
static const struct ipp_ident *share_id(struct ipcperf_stats *st, const struct ipp_ident *id)
{
	struct ipp_ident key;
	struct sharedid **slot;

	if (id_room(st) < 0)
		return NULL;
	reported_id(&key, id);
	slot = id_slot(st, &key);
	if (!*slot) {
		*slot = malloc(sizeof(**slot));
		if (!*slot)
			return NULL;
		(*slot)->refs = 0;
		(*slot)->id = key;
		st->nr_ids++;
	}
	(*slot)->refs++;
	return &(*slot)->id;
}

/* One row less shares @id: freed with its last; the hash rebuilt around the hole. */
static void unshare_id(struct ipcperf_stats *st, const struct ipp_ident *id)
{
	struct sharedid **slot = id_slot(st, id), *gone = *slot;
	size_t h;

	if (!gone || --gone->refs)
		return;
	*slot = NULL;
	st->nr_ids--;
	free(gone);
	/* open addressing: the entries after the hole move back where a lookup finds them */
	for (h = ((size_t)(slot - st->ids) + 1) & (st->cap_ids - 1); st->ids[h];
	     h = (h + 1) & (st->cap_ids - 1)) {
		struct sharedid *e = st->ids[h];

		st->ids[h] = NULL;
		*id_slot(st, &e->id) = e;
	}
}

void ipp_stats__free_ids(struct ipcperf_stats *st)
{
	for (size_t i = 0; i < st->cap_ids; i++)
		free(st->ids[i]);
	free(st->ids);
	st->ids = NULL;
	st->nr_ids = st->cap_ids = 0;
}

struct foldrow *ipp_stats__fold_row(struct ipcperf_stats *st, pid_t pid, int fd,
				    const struct ipp_ident *id)
{
	const struct ipp_ident *shared;
	size_t h;

	if (fold_room(st) < 0)
		return NULL;
	h = fold_hash(pid, fd, id->object) & (st->cap_fold_idx - 1);
	for (; st->fold_idx[h]; h = (h + 1) & (st->cap_fold_idx - 1)) {
		struct foldrow *f = &st->folds[st->fold_idx[h] - 1];

		if (f->pid == pid && f->fd == fd && f->id->kind == id->kind &&
		    strcmp(f->id->object, id->object) == 0)
			return f;
	}
	if (ipp_grow((void **)&st->folds, &st->cap_folds, st->nr_folds + 1, sizeof(*st->folds)) < 0 ||
	    !(shared = share_id(st, id)))
		return NULL;
	st->folds[st->nr_folds] = (struct foldrow){ .pid = pid, .fd = fd, .id = shared };
	st->fold_idx[h] = ++st->nr_folds;
	return &st->folds[st->nr_folds - 1];
}

/* @src's counts into @dst; its histogram taken over or merged and freed. */
static void fold_side(struct side *dst, struct ipp_hist_packed **ph, struct side *src)
{
	ipp_side_add(dst, src);
	if (!src->hist)
		return;
	/* The row's histogram is packed (*@ph), or dense (dst->hist) if packing had no memory. */
	if (*ph) {
		ipp_hist_merge_packed(src->hist, *ph);
		free(*ph);
		*ph = NULL;
	}
	if (dst->hist) {
		ipp_hist_merge(dst->hist, src->hist);
		free(src->hist);
	} else if (src->hist->count && !(*ph = ipp_hist_pack(src->hist))) {
		dst->hist = src->hist;
	} else {
		free(src->hist);
	}
	src->hist = NULL;
}

static void fold_counts(struct foldrow *f, struct inccount *src)
{
	struct inccount *dst = &f->c;

	if (src->first_ns && (!dst->first_ns || src->first_ns < dst->first_ns))
		dst->first_ns = src->first_ns;
	if (src->last_ns > dst->last_ns)
		dst->last_ns = src->last_ns;
	fold_side(&dst->rd, &f->packed[0], &src->rd);
	fold_side(&dst->wr, &f->packed[1], &src->wr);
}

/* Incarnation @inc retires: its counts into its row, or gone if no row would show it. */
static void retire(void *ctx, size_t inc, const struct ipp_inc *in, const struct ipp_ident *id)
{
	struct ipcperf_stats *st = ctx;
	struct inccount *c = inc < st->nr_counts ? &st->counts[inc] : NULL;
	const struct proc *p = ipp_stats__proc(st, in->pid, false);
	struct foldrow *f;

	if ((!p || !p->seen || not_held(st, p, in)) && !ipp_rows__has_io(st, inc))
		f = NULL;
	else
		f = ipp_stats__fold_row(st, in->pid, in->fd, id);
	if (f && c)
		fold_counts(f, c);
	if (c) {
		free(c->rd.hist);
		free(c->wr.hist);
		memset(c, 0, sizeof(*c));
	}
}

void ipp_stats__sweep(struct ipcperf_stats *st)
{
	ipp_fdtab__sweep(st->fdt, retire, st);
	st->sweep_at = 2 * ipp_fdtab__nr_closed(st->fdt) + 256;
	st->swept_ns = ipp_fdtab__now(st->fdt);
	if (st->fold_conns && st->nr_folds >= st->compact_at)
		ipp_stats__compact(st);
	if (st->fold_exited)
		ipp_stats__fold_exited(st);
}

void ipp_stats__keep_folds(struct ipcperf_stats *st, const bool *keep)
{
	size_t k = 0;

	for (size_t i = 0; i < st->nr_folds; i++) {
		struct foldrow *f = &st->folds[i];

		if (keep[i]) {
			st->folds[k++] = *f;
			continue;
		}
		free(f->c.rd.hist);
		free(f->c.wr.hist);
		free(f->packed[0]);
		free(f->packed[1]);
		unshare_id(st, f->id);
	}
	st->nr_folds = k;
	if (st->fold_idx)
		memset(st->fold_idx, 0, st->cap_fold_idx * sizeof(*st->fold_idx));
	for (size_t i = 0; i < k; i++)
		fold_index(st, i);
}

/* Hand @cb the row of @v[@i] and the incarnations after it that are the same row. */
static int emit_row(const struct ipcperf_stats *st, const struct ipp_rowref *v, size_t n,
		    size_t *i, struct ipp_rowsum *sum, struct ipp_peers *pe,
		    const struct ipp_ports *pp,
		    int (*cb)(void *ctx, const struct ipcperf_fd_row *row), void *ctx)
{
	const struct ipp_ident *id = v[*i].id;
	char endpoint[IPP_OBJECT_MAX];
	struct ipcperf_fd_row row = {
		.pid = v[*i].pid, .fd = v[*i].fd, .object = id->object,
		.kind = id->kind, .detail = id->detail, .ino = id->ino,
		.peer_ino = id->peer_ino, .group_endpoint = endpoint,
	};
	size_t j;

	ipp_rowsum__reset(sum);
	for (j = *i; j < n && (j == *i || ipp_rows__same(&v[*i], &v[j])); j++)
		ipp_rowsum__add(sum, &v[j]);
	row.peer_pid = ipp_peers__of(pe, &v[*i], &row.peer_comm);
	/* As ipcperf_stats__for_each_fd_group() keys the row: by its first incarnation. */
	row.group_role = (enum ipcperf_fd_group_role)ipp_group__key(&v[*i], pp, endpoint);
	*i = j;
	IPP_ROWSUM_OUT(sum, &row);
	return cb(ctx, &row);
}

int ipcperf_stats__for_each_fd(struct ipcperf_stats *st,
			       int (*cb)(void *ctx, const struct ipcperf_fd_row *row), void *ctx)
{
	size_t n;
	struct ipp_rowref *v;
	struct ipp_rowsum sum;
	struct ipp_peers *pe = NULL;
	struct ipp_ports pp;
	int ret = 0;

	if (!st || !cb)
		return -EINVAL;
	if (!ipp_fdtab__count(st->fdt) && !st->nr_folds)
		return 0;
	ipp_ports__read(&pp, !st->no_proc);
	v = ipp_rows__held(st, &n);
	if (!v || ipp_rowsum__init(&sum) < 0) {
		free(v);
		return -ENOMEM;
	}
	pe = ipp_peers__new(st, v, n);
	if (!pe)
		ret = -ENOMEM;
	for (size_t i = 0; i < n && !ret;)
		ret = emit_row(st, v, n, &i, &sum, pe, &pp, cb, ctx);
	ipp_peers__delete(pe);
	ipp_rowsum__fini(&sum);
	free(v);
	return ret;
}

/*
 * The process of rank @i in pid order: the rows of folded exited
 * processes first (pids -nr_exited to -1), then the others.
 */
static const struct proc *proc_at(const struct ipcperf_stats *st, size_t i)
{
	return i < st->nr_exited ? st->exited[st->nr_exited - 1 - i] : st->procs[i - st->nr_exited];
}

int ipcperf_stats__for_each_proc(struct ipcperf_stats *st,
				 int (*cb)(void *ctx, const struct ipcperf_proc_row *row), void *ctx)
{
	if (!st || !cb)
		return -EINVAL;
	for (size_t i = 0; i < st->nr_exited + st->nr_procs; i++) {
		const struct proc *p = proc_at(st, i);
		struct ipcperf_proc_row row = {
			.pid = p->pid, .comm = p->comm, .voluntary_cs = p->vol,
			.involuntary_cs = p->invol, .wakeups = p->wakeups,
			.migrations = p->migrations, .syscalls = p->syscalls,
			.threads = p->threads, .exited = p->exited,
			.uring_unaccounted = p->uring_ops, .left_ns = p->left_ns,
			.folded = p->folded,
		};
		int ret;

		if (!p->seen)
			continue;
		ret = cb(ctx, &row);
		if (ret)
			return ret;
	}
	return 0;
}

static int cmp_sc_name(const void *a, const void *b)
{
	const struct scstat *x = *(const struct scstat *const *)a;
	const struct scstat *y = *(const struct scstat *const *)b;
	int c;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	c = strcmp(x->name, y->name);
	return c ? c : (x->nr > y->nr) - (x->nr < y->nr);
}

/*
 * @sc's latencies as a dense histogram: its own, or its packed one (an
 * exited process's) unpacked into @scratch, or @scratch empty.
 */
static const struct ipp_hist *sc_dense(const struct scstat *sc, struct ipp_hist *scratch)
{
	if (sc->hist)
		return sc->hist;
	ipp_hist_init(scratch);
	if (sc->packed)
		ipp_hist_merge_packed(scratch, sc->packed);
	return scratch;
}

/* The syscall rows of @p, by (tid, name), to @cb; @scratch for packed histograms. */
static int proc_syscalls(const struct proc *p, struct ipp_hist *scratch,
			 int (*cb)(void *ctx, const struct ipcperf_syscall_row *row), void *ctx)
{
	const struct scstat **v = malloc(p->nr_sc * sizeof(*v));
	int ret = 0;

	if (!v)
		return -ENOMEM;
	for (size_t k = 0; k < p->nr_sc; k++)
		v[k] = p->sc[k];
	qsort(v, p->nr_sc, sizeof(*v), cmp_sc_name);
	for (size_t k = 0; k < p->nr_sc && !ret; k++) {
		const struct ipp_hist *h = sc_dense(v[k], scratch);
		struct ipcperf_syscall_row row = {
			.pid = p->pid, .name = v[k]->name, .calls = v[k]->calls,
			.errors = v[k]->errors, .time_ns = v[k]->time_ns, .nr = v[k]->nr,
			.tid = v[k]->tid, .errnos = v[k]->errnos,
			.nr_errnos = v[k]->nr_errnos, .hist = ipp_as_hist(h),
		};

		if (!v[k]->calls)
			continue;
		lat_of(h, &row.lat_ns);
		ret = cb(ctx, &row);
	}
	free(v);
	return ret;
}

int ipcperf_stats__for_each_syscall(struct ipcperf_stats *st,
				    int (*cb)(void *ctx, const struct ipcperf_syscall_row *row),
				    void *ctx)
{
	struct ipp_hist *scratch;
	int ret = 0;

	if (!st || !cb)
		return -EINVAL;
	scratch = malloc(sizeof(*scratch));
	if (!scratch)
		return -ENOMEM;
	for (size_t i = 0; i < st->nr_exited + st->nr_procs && !ret; i++)
		if (proc_at(st, i)->nr_sc)
			ret = proc_syscalls(proc_at(st, i), scratch, cb, ctx);
	free(scratch);
	return ret;
}

int ipcperf_stats__proc_comm(struct ipcperf_stats *st, pid_t pid, char *buf, size_t len)
{
	struct proc *p;

	if (!st || !buf || !len)
		return -EINVAL;
	p = ipp_stats__proc(st, pid, false);
	if (!p || !p->comm[0])
		return -ENOENT;
	snprintf(buf, len, "%s", p->comm);
	return 0;
}
