/*
 * ipcperf top's rows, taken in interval by interval, with the fds grouped
 * again at each; topframe.c draws them.
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "flowgroup.h"
#include "output.h"
#include "topview.h"

/* ------------------------------------------------------------------ the rows */

static int cmp_proc_key(const void *key, const void *elem)
{
	pid_t a = *(const pid_t *)key, b = ((const struct top_proc *)elem)->pid;

	return a < b ? -1 : a > b;
}

/* Return the process @pid, inserted in pid order if new, or NULL when out of memory. */
static struct top_proc *proc_of(struct topview *tv, pid_t pid)
{
	struct top_proc *p;
	size_t at;

	if (cli_bsearch(&pid, tv->procs, tv->nr_procs, sizeof(*tv->procs), cmp_proc_key, &at))
		return &tv->procs[at];
	if (cli_grow((void **)&tv->procs, &tv->cap_procs, tv->nr_procs + 1, sizeof(*p)) < 0) {
		tv->oom = true;
		return NULL;
	}
	p = cli_insert_at(tv->procs, tv->nr_procs++, sizeof(*p), at);
	p->pid = pid;
	return p;
}

struct fd_key {
	pid_t pid;
	int fd;
	const char *object;
};

static int cmp_fd_key(const void *key, const void *elem)
{
	const struct fd_key *k = key;
	const struct top_fd *f = elem;

	if (k->pid != f->pid)
		return k->pid < f->pid ? -1 : 1;
	if (k->fd != f->fd)
		return k->fd < f->fd ? -1 : 1;
	return strcmp(k->object, f->object);
}

static struct top_fd *fd_of(struct topview *tv, const struct ipcperf_fd_row *row)
{
	struct fd_key k = { row->pid, row->fd, row->object ? row->object : "unknown" };
	struct top_fd *f;
	size_t at;

	if (cli_bsearch(&k, tv->fds.v, tv->fds.nr, sizeof(*tv->fds.v), cmp_fd_key, &at))
		return &tv->fds.v[at];
	if (cli_grow((void **)&tv->fds.v, &tv->fds.cap, tv->fds.nr + 1, sizeof(*f)) < 0) {
		tv->oom = true;
		return NULL;
	}
	f = cli_insert_at(tv->fds.v, tv->fds.nr++, sizeof(*f), at);
	*f = (struct top_fd){ .pid = row->pid, .fd = row->fd, .kind = row->kind,
			      .object = strdup(k.object), .shown = strdup(""), .endpoint = strdup("") };
	if (!f->object || !f->shown || !f->endpoint) {
		tv->oom = true;
		free(f->object);
		free(f->shown);
		free(f->endpoint);
		memmove(f, f + 1, (--tv->fds.nr - at) * sizeof(*f));
		return NULL;
	}
	return f;
}

/* Set *@s to a copy of @now if it changed. Returns 0, or -ENOMEM with *@s left as it was. */
static int set_str(char **s, const char *now)
{
	char *c;

	if (!strcmp(*s, now))
		return 0;
	if (!(c = strdup(now)))
		return -ENOMEM;
	free(*s);
	*s = c;
	return 0;
}

/*
 * Update what fd @f is from what @row says now, since a connection's
 * addresses, peer and origin may be learnt after its first calls.
 */
static int fd_known(struct top_fd *f, const struct ipcperf_fd_row *row)
{
	f->role = row->group_role;
	f->peer_pid = row->peer_pid;
	snprintf(f->peer_comm, sizeof(f->peer_comm), "%s", row->peer_comm ? row->peer_comm : "");
	if (set_str(&f->shown, row->detail && *row->detail ? row->detail : f->object) < 0 ||
	    set_str(&f->endpoint, row->group_endpoint ? row->group_endpoint : "") < 0)
		return -ENOMEM;
	return 0;
}

static int on_proc(void *ctx, const struct ipcperf_proc_row *row)
{
	struct topview *tv = ctx;
	struct top_proc *p = proc_of(tv, row->pid);

	if (!p)
		return -ENOMEM;
	if (row->comm && *row->comm)
		snprintf(p->comm, sizeof(p->comm), "%s", row->comm);
	p->exited = row->exited;
	p->cs = row->voluntary_cs + row->involuntary_cs;
	p->total_cs += p->cs;
	return 0;
}

static int on_fd(void *ctx, const struct ipcperf_fd_row *row)
{
	struct topview *tv = ctx;
	struct top_fd *f = fd_of(tv, row);
	struct top_proc *p = f ? proc_of(tv, row->pid) : NULL;

	if (!p || fd_known(f, row) < 0) {
		tv->oom = true;
		return -ENOMEM;
	}
	f->now = (struct top_io){
		.ops = row->read.ops + row->write.ops,
		.bytes = row->read.bytes + row->write.bytes,
		.time_ns = row->read.time_ns + row->write.time_ns,
	};
	f->total_ops += f->now.ops;
	f->total_bytes += f->now.bytes;
	p->now.ops += f->now.ops;
	p->now.bytes += f->now.bytes;
	p->now.time_ns += f->now.time_ns;
	p->rd += row->read.bytes;
	p->wr += row->write.bytes;
	p->total_ops += f->now.ops;
	p->total_bytes += f->now.bytes;
	return 0;
}

/* ------------------------------------------------------------------ the groups */

const void **topview_sorted(const void *base, size_t n, size_t size,
			   int (*cmp)(const void *, const void *, void *), void *arg)
{
	const void **v = n ? malloc(n * sizeof(*v)) : NULL;

	for (size_t i = 0; v && i < n; i++)
		v[i] = (const char *)base + i * size;
	if (v)
		qsort_r(v, n, sizeof(*v), cmp, arg);
	return v;
}

/* Return the name of the group of fd @f: its object when not grouped, else the group's endpoint. */
static const char *group_name(const struct top_fd *f)
{
	return f->role == IPCPERF_GROUP_ONE ? f->object : f->endpoint;
}

/*
 * Compare the fds @a and @b in the order of their groups: by pid, role and
 * kind, then an fd not grouped by its fd and object, and a group by its
 * endpoint (a unix group, which has no endpoint, by its peer); with @peer,
 * by their peers last.
 */
static int cmp_group(const struct top_fd *a, const struct top_fd *b, bool peer)
{
	int c;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->role != b->role)
		return a->role < b->role ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->role == IPCPERF_GROUP_ONE && a->fd != b->fd)
		return a->fd < b->fd ? -1 : 1;
	if ((c = strcmp(group_name(a), group_name(b))))
		return c;
	if ((peer || a->role == IPCPERF_GROUP_UNIX) && a->peer_pid != b->peer_pid)
		return a->peer_pid < b->peer_pid ? -1 : 1;
	return 0;
}

static int cmp_group_r(const void *a, const void *b, void *arg)
{
	(void)arg;
	return cmp_group(*(const struct top_fd *const *)a, *(const struct top_fd *const *)b, true);
}

/* Add a group of fd @f alone at the end of the groups; returns it, or NULL when out of memory. */
static struct top_fd *group_new(struct topview *tv, const struct top_fd *f)
{
	struct top_rows *g = &tv->groups;
	struct top_fd *r;

	if (cli_grow((void **)&g->v, &g->cap, g->nr + 1, sizeof(*r)) < 0)
		return NULL;
	r = &g->v[g->nr];
	*r = *f;
	r->object = strdup(group_name(f));
	r->shown = strdup(f->shown);
	r->endpoint = NULL;
	r->conns = 1;
	r->peers = f->peer_pid != 0;
	if (!r->object || !r->shown) {
		free(r->object);
		free(r->shown);
		return NULL;
	}
	g->nr++;
	return r;
}

/*
 * Add fd @f to its group @g. @peer is set when @f has a peer that @g did
 * not have yet; the fds come in the order of their peers, the unknown one
 * (0) first, which is not counted.
 */
static void group_add(struct top_fd *g, const struct top_fd *f, bool peer)
{
	g->now.ops += f->now.ops;
	g->now.bytes += f->now.bytes;
	g->now.time_ns += f->now.time_ns;
	g->total_ops += f->total_ops;
	g->total_bytes += f->total_bytes;
	if (f->fd < g->fd)
		g->fd = f->fd;
	g->conns++;
	if (!peer || !f->peer_pid)
		return;
	if (!g->peers++) {
		g->peer_pid = f->peer_pid;
		memcpy(g->peer_comm, f->peer_comm, sizeof(g->peer_comm));
	}
}

static void fd_free(struct top_fd *f)
{
	free(f->object);
	free(f->shown);
	free(f->endpoint);
}

static void rows_clear(struct top_rows *rows)
{
	for (size_t i = 0; i < rows->nr; i++)
		fd_free(&rows->v[i]);
	rows->nr = 0;
}

/*
 * Make the groups again from the fds, each group's totals being the sums of
 * its fds', so that they are exact however an fd moved from one group to
 * another. Returns 0 or -ENOMEM.
 */
static int regroup(struct topview *tv)
{
	const struct top_fd **v = (const struct top_fd **)topview_sorted(
		tv->fds.v, tv->fds.nr, sizeof(*tv->fds.v), cmp_group_r, NULL);
	struct top_fd *g = NULL;

	rows_clear(&tv->groups);
	if (!v && tv->fds.nr)
		return -ENOMEM;
	for (size_t i = 0; i < tv->fds.nr; i++) {
		if (g && !cmp_group(v[i - 1], v[i], false))
			group_add(g, v[i], cmp_group(v[i - 1], v[i], true) != 0);
		else if (!(g = group_new(tv, v[i])))
			break;
	}
	free(v);
	return g || !tv->fds.nr ? 0 : -ENOMEM;
}

/*
 * Write a flow's side as comm[pid] each, at most a few, such as
 * "sh[12], cat[13]", or "(not traced)" when nobody traced did it.
 */
static size_t side_who(struct topview *tv, char *buf, size_t len, const pid_t *v, size_t n)
{
	char comm[CLI_ESC_LEN(CLI_COMM_LEN)];
	size_t off = 0;
	size_t at;

	if (!n)
		return (size_t)snprintf(buf, len, "(not traced)");
	for (size_t i = 0; i < n && i < 3 && off < len; i++) {
		bool known = cli_bsearch(&v[i], tv->procs, tv->nr_procs, sizeof(*tv->procs),
					 cmp_proc_key, &at) && tv->procs[at].comm[0];

		off += (size_t)snprintf(buf + off, len - off, "%s%s[%d]", i ? ", " : "",
					known ? cli_esc(comm, sizeof(comm), tv->procs[at].comm) : "?",
					(int)v[i]);
	}
	if (n > 3 && off < len)
		off += (size_t)snprintf(buf + off, len - off, " (+%zu)", n - 3);
	return off < len ? off : len - 1;
}

/*
 * Return as a new string the sides of @fl, such as "sh[12] -> wc[14]";
 * with the flow's kind, this is the key of its group.
 */
static char *flow_who(struct topview *tv, const struct ipcperf_flow *fl)
{
	char buf[256];
	size_t n = side_who(tv, buf, sizeof(buf), fl->writers, fl->nr_writers);

	n += (size_t)snprintf(buf + n, sizeof(buf) - n, " -> ");
	if (n < sizeof(buf))
		side_who(tv, buf + n, sizeof(buf) - n, fl->readers, fl->nr_readers);
	return strdup(buf);
}

static struct top_flow *flow_of(struct topview *tv, const struct ipcperf_flow *fl, char *who)
{
	struct top_flow *f;

	for (size_t i = 0; i < tv->nr_flows; i++)
		if (tv->flows[i].kind == fl->kind && !strcmp(tv->flows[i].who, who)) {
			free(who);
			return &tv->flows[i];
		}
	if (cli_grow((void **)&tv->flows, &tv->cap_flows, tv->nr_flows + 1, sizeof(*f)) < 0) {
		free(who);
		return NULL;
	}
	f = &tv->flows[tv->nr_flows];
	*f = (struct top_flow){ .object = strdup(fl->object), .who = who, .kind = fl->kind };
	if (!f->object) {
		free(who);
		return NULL;
	}
	tv->nr_flows++;
	return f;
}

static int on_flow(void *ctx, const struct ipcperf_flow *fl)
{
	struct topview *tv = ctx;
	char *who = flow_who(tv, fl);
	struct top_flow *f = who ? flow_of(tv, fl, who) : NULL;

	if (!f) {
		tv->oom = true;
		return -ENOMEM;
	}
	f->sum += flowgroup_bytes(fl);
	f->conns += fl->folded ? fl->folded : 1;	/* a fold: that many closed channels */
	f->seen = true;
	return 0;
}

/* Compare the groups' bytes of this walk with the last one's. */
static void flows_taken(struct topview *tv)
{
	for (size_t i = 0; i < tv->nr_flows; i++) {
		struct top_flow *f = &tv->flows[i];

		if (!f->seen)
			continue;
		f->delta = f->sum > f->bytes ? f->sum - f->bytes : 0;
		f->bytes = f->sum;
	}
}

/* Reset the last interval's counts to zero before the next is taken in. */
static void reset_now(struct topview *tv)
{
	for (size_t i = 0; i < tv->nr_procs; i++) {
		struct top_proc *p = &tv->procs[i];

		p->now = (struct top_io){ 0 };
		p->rd = p->wr = p->cs = 0;
	}
	for (size_t i = 0; i < tv->fds.nr; i++)
		tv->fds.v[i].now = (struct top_io){ 0 };
	for (size_t i = 0; i < tv->nr_flows; i++) {
		tv->flows[i].delta = tv->flows[i].sum = tv->flows[i].conns = 0;
		tv->flows[i].seen = false;
	}
}

/* Drop the fds whose process goes (top_proc.gone). */
static void prune_fds(struct topview *tv)
{
	size_t k = 0, at;

	for (size_t i = 0; i < tv->fds.nr; i++) {
		struct top_fd *f = &tv->fds.v[i];

		if (cli_bsearch(&f->pid, tv->procs, tv->nr_procs, sizeof(*tv->procs), cmp_proc_key,
				&at) && tv->procs[at].gone)
			fd_free(f);
		else
			tv->fds.v[k++] = *f;
	}
	tv->fds.nr = k;
}

/* Drop the processes that exited and stayed idle for TOPVIEW_KEEP_FRAMES frames, with their fds. */
static void prune(struct topview *tv)
{
	size_t k = 0;

	for (size_t i = 0; i < tv->nr_procs; i++) {
		struct top_proc *p = &tv->procs[i];

		p->idle = p->now.ops || p->cs ? 0 : p->idle + 1;
		p->gone = p->exited && p->idle >= TOPVIEW_KEEP_FRAMES;
	}
	prune_fds(tv);
	for (size_t i = 0; i < tv->nr_procs; i++)
		if (!tv->procs[i].gone)
			tv->procs[k++] = tv->procs[i];
	tv->nr_procs = k;
}

int topview_update(struct topview *tv, struct ipcperf_stats *st, struct ipcperf_flows *fl,
		   const struct ipcperf_interval_info *in)
{
	int err;

	reset_now(tv);
	tv->oom = false;
	if ((err = ipcperf_stats__for_each_proc(st, on_proc, tv)) < 0 ||
	    (err = ipcperf_stats__for_each_fd(st, on_fd, tv)) < 0 ||
	    (fl && (err = ipcperf_flows__for_each_settled(fl, on_flow, tv)) < 0))
		return err;
	if (tv->oom)
		return -ENOMEM;
	flows_taken(tv);
	prune(tv);
	if ((err = regroup(tv)) < 0)
		return err;
	tv->interval_ns = in->end_ns - in->start_ns;
	tv->time_ns = in->time_ns;
	tv->records = in->records;
	tv->lost = in->lost;
	tv->frames++;
	return 0;
}

static void rows_free(struct top_rows *rows)
{
	rows_clear(rows);
	free(rows->v);
	*rows = (struct top_rows){ 0 };
}

void topview_free(struct topview *tv)
{
	rows_free(&tv->fds);
	rows_free(&tv->groups);
	for (size_t i = 0; i < tv->nr_flows; i++) {
		free(tv->flows[i].object);
		free(tv->flows[i].who);
	}
	free(tv->procs);
	free(tv->flows);
	tv->procs = NULL;
	tv->flows = NULL;
	tv->nr_procs = tv->nr_flows = 0;
	tv->cap_procs = tv->cap_flows = 0;
}
