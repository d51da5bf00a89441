/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Who is at the other end of each fd row (groups.h): the peers the fd table
 * knows, and those one scan of /proc (fd/holders.c) finds for the rest,
 * remembered in the stats object's peer cache.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stats/groups.h"
#include "fd/procfd.h"
#include "fd/holders.h"

/* ------------------------------------------------------------------ peers */

/* An inode held by a process (the fd table's incarnations). */
struct inoref {
	uint64_t ino;
	pid_t pid;
	bool io;
	bool held;	/* an incarnation, not a fold */
};

/* An inet socket by its addresses ("L -> R"), to find its mirror. */
struct addrref {
	const char *detail;
	struct inoref ref;
};

/*
 * An inet socket's peer found by its addresses in a sock_diag dump (the
 * peer end no traced process holds): the peer's own "L -> R", its inode (0:
 * not found, not looked for again).
 */
struct mirrorent {
	char detail[IPP_DETAIL_MAX];
	uint64_t ino;
};

struct ipp_peercache {
	struct ipp_holders *v;	/* what /proc said of each inode, sorted by ino */
	size_t n, cap;
	uint64_t scans;
	struct mirrorent *mv;	/* sorted by detail */
	size_t mn, mcap;
};

struct ipp_peers {
	struct ipcperf_stats *st;
	struct inoref *inos;
	size_t nr_inos;
	struct addrref *addrs;
	size_t nr_addrs;
};

void ipp_peers__free_cache(struct ipp_peercache *c)
{
	if (c) {
		free(c->v);
		free(c->mv);
	}
	free(c);
}

static int cmp_inoref(const void *a, const void *b)
{
	const struct inoref *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int cmp_addrref(const void *a, const void *b)
{
	const struct addrref *x = a, *y = b;
	int c = strcmp(x->detail, y->detail);

	return c ? c : (x->ref.pid > y->ref.pid) - (x->ref.pid < y->ref.pid);
}

/* The inode whose holders are the peers of @id: the peer socket's, or a pipe's own. */
static uint64_t peer_key(const struct ipp_ident *id)
{
	if (id->kind == IPCPERF_FD_PIPE)
		return id->ino;
	if (id->kind == IPCPERF_FD_UNIX || ipp_is_inet(id->kind))
		return id->peer_ino;
	return 0;
}

static void index_rows(struct ipp_peers *pe, const struct ipp_rowref *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct ipp_ident *id = v[i].id;
		struct inoref ref = { id->ino, v[i].pid, ipp_rows__ref_has_io(&v[i]),
				      v[i].inc != SIZE_MAX };

		if (id->state == IPP_ID_UNKNOWN)
			continue;
		if (id->ino)
			pe->inos[pe->nr_inos++] = ref;
		if (ipp_is_inet(id->kind) && strstr(id->detail, " -> "))
			pe->addrs[pe->nr_addrs++] = (struct addrref){ id->detail, ref };
	}
	if (pe->nr_inos > 1)
		qsort(pe->inos, pe->nr_inos, sizeof(*pe->inos), cmp_inoref);
	if (pe->nr_addrs > 1)
		qsort(pe->addrs, pe->nr_addrs, sizeof(*pe->addrs), cmp_addrref);
}

/* The first entry of @pe->inos for @ino. */
static size_t first_ino(const struct ipp_peers *pe, uint64_t ino)
{
	size_t lo = 0, hi = pe->nr_inos;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (pe->inos[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * @r, one more holder in pid order of the inode asked about, unless only
 * incarnations count (@held_only) and it is not one. @return true when it
 * is the holder to name: it did I/O; else *@any keeps the first (the
 * lowest pid), named when none did.
 */
static bool holder_named(const struct inoref *r, bool held_only, pid_t *any)
{
	if (held_only && !r->held)
		return false;
	if (!*any)
		*any = r->pid;
	return r->io;
}

/*
 * Of the holders of @ino other than @not: one with I/O, else the lowest pid;
 * 0 none. With @held_only, only incarnations count.
 */
static pid_t traced_holder(const struct ipp_peers *pe, uint64_t ino, pid_t not, bool held_only)
{
	pid_t any = 0;

	for (size_t i = first_ino(pe, ino); i < pe->nr_inos && pe->inos[i].ino == ino; i++)
		if (pe->inos[i].pid != not && holder_named(&pe->inos[i], held_only, &any))
			return pe->inos[i].pid;
	return any;
}

/* "R -> L" of @id's "L -> R" into @want. @return false when @id has no such detail. */
static bool mirrored(const struct ipp_ident *id, char want[IPP_DETAIL_MAX])
{
	const char *arrow = strstr(id->detail, " -> ");

	if (!arrow || !arrow[4])
		return false;
	snprintf(want, IPP_DETAIL_MAX, "%s -> %.*s", arrow + 4, (int)(arrow - id->detail),
		 id->detail);
	return true;
}

/*
 * The holder of the inet socket whose addresses mirror @detail ("L -> R":
 * "R -> L"). With @held_only, only incarnations count.
 */
static pid_t mirror_holder(const struct ipp_peers *pe, const struct ipp_ident *id, bool held_only)
{
	char want[IPP_DETAIL_MAX];
	struct addrref key = { .detail = want };
	pid_t any = 0;
	size_t lo = 0, hi = pe->nr_addrs;

	if (!mirrored(id, want))
		return 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (cmp_addrref(&pe->addrs[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < pe->nr_addrs && !strcmp(pe->addrs[i].detail, want); i++) {
		const struct inoref *r = &pe->addrs[i].ref;

		/* its own socket is no mirror of it */
		if (!(id->ino && r->ino == id->ino) && holder_named(r, held_only, &any))
			return r->pid;
	}
	return any;
}

static struct ipp_holders *cache_find(const struct ipp_peercache *c, uint64_t ino);

void ipp_peers__forget(struct ipp_peercache *c, const struct ipp_rowref *r)
{
	struct ipp_holders *e = r->id->state != IPP_ID_UNKNOWN ? cache_find(c, peer_key(r->id)) : NULL;

	if (!e)
		return;
	memmove(e, e + 1, (size_t)(c->v + c->n - (e + 1)) * sizeof(*e));
	c->n--;
}

static const struct mirrorent *mirror_find(const struct ipp_peercache *c,
					   const struct ipp_ident *id);
static int cmp_u64(const void *a, const void *b);

/* Drop the entries of @c->v whose inodes are among @inos (sorted by cmp_u64, @k of them). */
static void drop_holders(struct ipp_peercache *c, const uint64_t *inos, size_t k)
{
	size_t j = 0;

	for (size_t i = 0; i < c->n; i++)
		if (!bsearch(&c->v[i].ino, inos, k, sizeof(*inos), cmp_u64))
			c->v[j++] = c->v[i];
	c->n = j;
}

void ipp_peers__forget_mirrors(struct ipp_peercache *c, const struct ipp_rowref *v, size_t n,
				   const bool *taken)
{
	bool *drop = c && c->mn ? calloc(c->mn, sizeof(*drop)) : NULL;
	uint64_t *inos = drop ? malloc((n ? n : 1) * sizeof(*inos)) : NULL;
	size_t k = 0, m = 0;

	for (size_t i = 0; inos && i < n; i++) {
		const struct mirrorent *e = taken[i] ? mirror_find(c, v[i].id) : NULL;

		if (e && !drop[e - c->mv] && e->ino)
			inos[m++] = e->ino;
		if (e)
			drop[e - c->mv] = true;
	}
	for (size_t j = 0; inos && j < c->mn; j++)
		if (!drop[j])
			c->mv[k++] = c->mv[j];
	if (inos) {
		c->mn = k;
		qsort(inos, m, sizeof(*inos), cmp_u64);
		drop_holders(c, inos, m);
	}
	free(inos);
	free(drop);
}

static struct ipp_holders *cache_find(const struct ipp_peercache *c, uint64_t ino)
{
	size_t lo = 0, hi = c ? c->n : 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c->v[mid].ino == ino)
			return &c->v[mid];
		if (c->v[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int cmp_mirror(const void *a, const void *b)
{
	return strcmp(((const struct mirrorent *)a)->detail, ((const struct mirrorent *)b)->detail);
}

/* The entry of @c for the peer of inet @id by its addresses, NULL when never looked for. */
static const struct mirrorent *mirror_find(const struct ipp_peercache *c,
					   const struct ipp_ident *id)
{
	struct mirrorent key;

	if (!c || !c->mn || !ipp_is_inet(id->kind) || id->peer_ino || !mirrored(id, key.detail))
		return NULL;
	return bsearch(&key, c->mv, c->mn, sizeof(*c->mv), cmp_mirror);
}

/* The peer of @r that the fd table knows, 0 if none. */
static pid_t known_peer(const struct ipp_peers *pe, const struct ipp_rowref *r)
{
	const struct ipp_ident *id = r->id;
	uint64_t key = peer_key(id);
	pid_t pid = 0;

	if (id->state == IPP_ID_UNKNOWN)
		return 0;
	if (key)
		pid = traced_holder(pe, key, id->kind == IPCPERF_FD_PIPE ? r->pid : 0, false);
	if (!pid && ipp_is_inet(id->kind))
		pid = mirror_holder(pe, id, false);
	return pid;
}

bool ipp_peers__held_peer(const struct ipp_peers *pe, const struct ipp_rowref *r)
{
	const struct ipp_ident *id = r->id;
	uint64_t key = peer_key(id);

	if (id->state == IPP_ID_UNKNOWN)
		return false;
	return (key && traced_holder(pe, key, id->kind == IPCPERF_FD_PIPE ? r->pid : 0, true)) ||
	       (ipp_is_inet(id->kind) && mirror_holder(pe, id, true));
}

/* ------------------------------------------------------------- asking /proc */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * Entries for the inodes @want (sorted, distinct, none in the cache yet),
 * their holders asked of /proc (fd/holders.c): each gets one, holders found
 * or not, so that it is never looked for again.
 */
static int proc_scan(struct ipp_peercache *c, const uint64_t *want, size_t n)
{
	if (ipp_grow((void **)&c->v, &c->cap, c->n + n, sizeof(*c->v)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		c->v[c->n + i] = (struct ipp_holders){ .ino = want[i] };
	c->scans++;
	ipp_holders__scan(c->v + c->n, n);
	c->n += n;
	/* Merge the new entries (sorted) into the old ones. */
	qsort(c->v, c->n, sizeof(*c->v), cmp_u64);
	return 0;
}

/* Drop the repeats of sorted @v. @return how many are left. */
static size_t distinct(uint64_t *v, size_t n)
{
	size_t j = 0;

	for (size_t i = 0; i < n; i++)
		if (!j || v[j - 1] != v[i])
			v[j++] = v[i];
	return j;
}

/* A TCP row whose peer end no traced process holds, not looked for by its addresses yet. */
static bool wants_mirror(const struct ipp_peers *pe, const struct ipp_rowref *r)
{
	const struct ipp_ident *id = r->id;

	return id->kind == IPCPERF_FD_TCP && id->state != IPP_ID_UNKNOWN && !id->peer_ino &&
	       strstr(id->detail, " -> ") && !known_peer(pe, r) &&
	       !mirror_find(pe->st->peercache, id);
}

/* @m entries of @c for @det, the peers' "L -> R", found at @inos (0: none). */
static int add_mirrors(struct ipp_peercache *c, char (*det)[IPP_DETAIL_MAX],
		       const uint64_t *inos, size_t m)
{
	if (ipp_grow((void **)&c->mv, &c->mcap, c->mn + m, sizeof(*c->mv)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < m; i++) {
		memcpy(c->mv[c->mn].detail, det[i], IPP_DETAIL_MAX);
		c->mv[c->mn++].ino = inos[i];
	}
	qsort(c->mv, c->mn, sizeof(*c->mv), cmp_mirror);
	return 0;
}

/*
 * The peer ends of TCP rows that no traced process holds: found by their
 * addresses (mirrored) in one sock_diag dump, remembered, and their inodes
 * put in @want (*@k so far) for the /proc scan to name their holders.
 */
static int ask_mirrors(struct ipp_peers *pe, const struct ipp_rowref *v, size_t n,
		       uint64_t *want, size_t *k)
{
	char (*det)[IPP_DETAIL_MAX] = malloc((n ? n : 1) * IPP_DETAIL_MAX);
	const char **dp = malloc((n ? n : 1) * sizeof(*dp));
	uint64_t *inos = malloc((n ? n : 1) * sizeof(*inos));
	struct ipp_sockdb *db = NULL;
	size_t m = 0;
	int err = det && dp && inos ? 0 : -ENOMEM;

	for (size_t i = 0; !err && i < n; i++)
		if (wants_mirror(pe, &v[i]) && mirrored(v[i].id, det[m]))
			dp[m] = det[m], m++;
	if (m && !err)
		err = ipp_sockdb__ask_addrs(IPCPERF_FD_TCP, dp, m, inos);
	if (m && !err)
		err = add_mirrors(pe->st->peercache, det, inos, m);
	for (size_t i = 0; m && !err && i < m; i++)
		if (inos[i] && !cache_find(pe->st->peercache, inos[i]))
			want[(*k)++] = inos[i];
	ipp_sockdb__delete(db);
	free(det);
	free(dp);
	free(inos);
	return err;
}

/* The inodes of rows whose peers the fd table does not know and /proc was never asked about. */
static int ask_proc(struct ipp_peers *pe, const struct ipp_rowref *v, size_t n)
{
	struct ipcperf_stats *st = pe->st;
	uint64_t *want = malloc((n ? n : 1) * sizeof(*want));
	size_t k = 0;
	int err = 0;

	if (!want)
		return -ENOMEM;
	if (!st->peercache && !(st->peercache = calloc(1, sizeof(*st->peercache)))) {
		free(want);
		return -ENOMEM;
	}
	/* a failed dump leaves those peers unknown, as /proc failing does */
	if (ask_mirrors(pe, v, n, want, &k) == -ENOMEM) {
		free(want);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t key = peer_key(v[i].id);

		if (key && v[i].id->state != IPP_ID_UNKNOWN && !known_peer(pe, &v[i]) &&
		    !cache_find(st->peercache, key))
			want[k++] = key;
	}
	if (k > 1)
		qsort(want, k, sizeof(*want), cmp_u64);
	k = distinct(want, k);
	if (k && !st->peercache && !(st->peercache = calloc(1, sizeof(*st->peercache))))
		err = -ENOMEM;
	if (k && !err)
		err = proc_scan(st->peercache, want, k);
	free(want);
	return err;
}

static struct ipp_peers *peers_new(struct ipcperf_stats *st, const struct ipp_rowref *v, size_t n,
				   bool scan)
{
	struct ipp_peers *pe = calloc(1, sizeof(*pe));

	if (!pe)
		return NULL;
	pe->st = st;
	pe->inos = malloc((n ? n : 1) * sizeof(*pe->inos));
	pe->addrs = malloc((n ? n : 1) * sizeof(*pe->addrs));
	if (!pe->inos || !pe->addrs) {
		ipp_peers__delete(pe);
		return NULL;
	}
	index_rows(pe, v, n);
	/* /proc failing leaves those peers unknown: not an error of the walk. */
	if (scan && !st->no_proc && ask_proc(pe, v, n) == -ENOMEM) {
		ipp_peers__delete(pe);
		return NULL;
	}
	return pe;
}

struct ipp_peers *ipp_peers__new(struct ipcperf_stats *st, const struct ipp_rowref *v, size_t n)
{
	return peers_new(st, v, n, true);
}

void ipp_peers__delete(struct ipp_peers *pe)
{
	if (!pe)
		return;
	ipp_free_all(pe->inos, pe->addrs, pe);
}

/* The inode whose holders /proc was asked about for @id: its peer key, or its mirror's. */
static uint64_t scan_key(const struct ipp_peers *pe, const struct ipp_ident *id)
{
	const struct mirrorent *m = peer_key(id) ? NULL : mirror_find(pe->st->peercache, id);

	return m ? m->ino : peer_key(id);
}

pid_t ipp_peers__of(struct ipp_peers *pe, const struct ipp_rowref *r, const char **comm)
{
	pid_t pid = pe ? known_peer(pe, r) : 0;
	const struct ipp_holders *e;
	const struct proc *p;

	*comm = "";
	if (pid) {
		p = ipp_stats__proc(pe->st, pid, false);
		*comm = p ? p->comm : "";
		return pid;
	}
	e = pe && r->id->state != IPP_ID_UNKNOWN ? cache_find(pe->st->peercache, scan_key(pe, r->id))
						 : NULL;
	if (!e)
		return 0;
	/* A pipe's other holders: not the row's own process. */
	for (int i = 0; i < 2; i++)
		if (e->pid[i] && (r->id->kind != IPCPERF_FD_PIPE || e->pid[i] != r->pid)) {
			*comm = e->comm[i];
			return e->pid[i];
		}
	return 0;
}

/* ------------------------------------------------------------------ one fd */

pid_t ipcperf_stats__fd_peer(struct ipcperf_stats *st, pid_t pid,
			     const struct ipcperf_fd_object *fd, bool may_scan, char *comm,
			     size_t len)
{
	struct ipp_ident id = { .state = IPP_ID_FINAL };
	struct ipp_rowref r = { .inc = SIZE_MAX, .pid = pid, .fd = -1, .id = &id };
	struct ipp_rowref *v;
	struct ipp_peers *pe;
	const char *name = "";
	size_t n;
	pid_t peer = 0;

	if (!st || !fd || (len && !comm))
		return -EINVAL;
	if (len)
		comm[0] = '\0';
	id.kind = fd->kind;
	id.ino = fd->ino;
	id.peer_ino = fd->peer_ino;
	snprintf(id.detail, sizeof(id.detail), "%s", fd->detail ? fd->detail : "");
	if (fd->kind == IPCPERF_FD_UNKNOWN || !(v = ipp_rows__held(st, &n)))
		return 0;
	pe = peers_new(st, v, n, may_scan);
	if (pe)
		peer = ipp_peers__of(pe, &r, &name);
	if (peer && len)
		snprintf(comm, len, "%s", name);
	ipp_peers__delete(pe);
	free(v);
	return peer;
}

/* ------------------------------------------------------------- by inode */

static int cmp_inopeer(const void *a, const void *b)
{
	uint64_t x = ((const struct ipp_inopeer *)a)->ino, y = ((const struct ipp_inopeer *)b)->ino;

	return (x > y) - (x < y);
}

const struct ipp_inopeer *ipp_peers__find_ino(const struct ipp_inopeer *q, size_t n, uint64_t ino)
{
	struct ipp_inopeer key = { .ino = ino };

	return n ? bsearch(&key, q, n, sizeof(*q), cmp_inopeer) : NULL;
}

/* @q (sorted by inode) given the peer of row @r, unless an earlier row of its inode named one. */
static void inopeer_set(struct ipp_peers *pe, const struct ipp_rowref *r, struct ipp_inopeer *q,
			size_t n)
{
	struct ipp_inopeer key = { .ino = r->id->ino }, *e;
	enum ipcperf_fd_kind k = r->id->kind;
	const char *comm;

	/* as the CLI reads the rows: the pipes' and sockets' (a file's inode is another's) */
	if (k != IPCPERF_FD_PIPE && k != IPCPERF_FD_UNIX && !ipp_is_inet(k))
		return;
	e = key.ino ? bsearch(&key, q, n, sizeof(*q), cmp_inopeer) : NULL;
	/* an inode asked twice: its copies follow it, named from the same rows */
	while (e && e > q && e[-1].ino == key.ino)
		e--;
	for (; e && e < q + n && e->ino == key.ino && !e->pid; e++) {
		e->pid = ipp_peers__of(pe, r, &comm);
		snprintf(e->comm, sizeof(e->comm), "%s", comm);
	}
}

/*
 * The peers of rows @v (@nr), /proc and sock_diag asked about the rows of
 * the inodes in @q (@n, sorted) only. Asked about every row, each pass of
 * the flows' folding looked at every row the stats hold (a string made and
 * compared for each inet socket): on nginx under ab, flows and paths -p
 * spent most of their CPU there.
 */
static struct ipp_peers *peers_of_asked(struct ipcperf_stats *st, const struct ipp_rowref *v,
					size_t nr, const struct ipp_inopeer *q, size_t n)
{
	struct ipp_peers *pe = peers_new(st, v, nr, false);
	struct ipp_rowref *sub;
	size_t k = 0;
	int err = 0;

	if (!pe || st->no_proc)
		return pe;
	sub = malloc((nr ? nr : 1) * sizeof(*sub));
	if (!sub) {
		ipp_peers__delete(pe);
		return NULL;
	}
	for (size_t i = 0; i < nr; i++)
		if (v[i].id->ino && ipp_peers__find_ino(q, n, v[i].id->ino))
			sub[k++] = v[i];
	/* /proc failing leaves those peers unknown: not an error of the walk. */
	if (k)
		err = ask_proc(pe, sub, k);
	free(sub);
	if (err == -ENOMEM) {
		ipp_peers__delete(pe);
		return NULL;
	}
	return pe;
}

int ipp_peers__of_inos(struct ipcperf_stats *st, struct ipp_inopeer *q, size_t n)
{
	struct ipp_rowref *v;
	struct ipp_peers *pe = NULL;
	bool ok;
	size_t nr;

	for (size_t i = 0; i < n; i++)
		q[i].pid = 0, q[i].comm[0] = '\0';
	if (!n)
		return 0;
	qsort(q, n, sizeof(*q), cmp_inopeer);
	v = ipp_rows__held(st, &nr);
	if (v)
		pe = peers_of_asked(st, v, nr, q, n);
	for (size_t i = 0; pe && i < nr; i++)
		if (!i || !ipp_rows__same(&v[i - 1], &v[i]))
			inopeer_set(pe, &v[i], q, n);
	ok = pe != NULL;
	ipp_peers__delete(pe);
	free(v);
	return ok ? 0 : -ENOMEM;
}
