/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fd rows (rows.c) and what is built on them: who is at the other end
 * of each row (its peer process, peers.c), and the groups of rows that are
 * connections of one process to one endpoint with one peer (groups.c,
 * ipcperf_stats__for_each_fd_group()). The layers of account.h.
 */
#ifndef IPCPERF_GROUPS_H
#define IPCPERF_GROUPS_H

#include "stats/account.h"

/* Whether an fd of kind @k is an inet socket (TCP or UDP). */
static inline bool ipp_is_inet(enum ipcperf_fd_kind k)
{
	return k == IPCPERF_FD_TCP || k == IPCPERF_FD_UDP;
}

/* The latencies of @h (min, avg, p50, p99, max) into @l. */
static inline void ipp_lat_of(const struct ipp_hist *h, struct ipcperf_lat *l)
{
	l->min = ipp_hist_min(h);
	l->avg = ipp_hist_avg(h);
	l->p50 = ipp_hist_percentile(h, 50);
	l->p99 = ipp_hist_percentile(h, 99);
	l->max = ipp_hist_max(h);
}

/*
 * An incarnation held (its index), or the folded counts of retired ones
 * (inc SIZE_MAX, ipp_stats__sweep()), with the identity it is reported
 * under; or, in the group walk only, closed connections folded into their
 * group (cf, ipp_stats__compact()).
 */
struct ipp_rowref {
	size_t inc;
	pid_t pid;
	int fd;
	const struct ipp_ident *id;
	const struct inccount *c;	/* NULL: none yet */
	const struct ipp_hist_packed *packed[2];	/* a fold's read and write latencies */
	const struct connfold *cf;
};

/*
 * The incarnations to report, sorted into rows (pid, fd, object; the
 * incarnations of one row next to each other, ipp_rows__same()).
 * @return them (*@nr), freed with free(); NULL (ENOMEM).
 */
struct ipp_rowref *ipp_rows__held(struct ipcperf_stats *st, size_t *nr);
bool ipp_rows__same(const struct ipp_rowref *a, const struct ipp_rowref *b);
/* Whether incarnation @inc made any read or write call. */
bool ipp_rows__has_io(const struct ipcperf_stats *st, size_t inc);
/* Whether the incarnations of @r made any read or write call. */
bool ipp_rows__ref_has_io(const struct ipp_rowref *r);
/*
 * Whether incarnation @in was not an fd @p held: closed by the command's
 * first exec (the tracer's), or ended before its pid did anything of its own.
 */
bool ipp_rows__not_held(const struct ipcperf_stats *st, const struct proc *p,
			const struct ipp_inc *in);

/* The counts of some incarnations added up, with histograms of its own. */
struct ipp_rowsum {
	struct side rd, wr;
	uint64_t first_ns, last_ns;
};

/* @return 0 or -ENOMEM (then nothing to free). */
int ipp_rowsum__init(struct ipp_rowsum *s);
void ipp_rowsum__fini(struct ipp_rowsum *s);
void ipp_rowsum__reset(struct ipp_rowsum *s);
void ipp_rowsum__add(struct ipp_rowsum *s, const struct ipp_rowref *r);
void ipp_rowsum__io(const struct ipp_rowsum *s, struct ipcperf_io *rd, struct ipcperf_io *wr);
/* The zero-copy parts of the sum's read and write. */
void ipp_rowsum__moved(const struct ipp_rowsum *s, struct ipcperf_moved *rd,
		       struct ipcperf_moved *wr);
/*
 * The sum @s into @out, a struct ipcperf_fd_row or ipcperf_fd_group (the
 * fields of a sum have the same names in both): times, I/O, latencies
 * (valid while @s is), zero-copy parts.
 */
#define IPP_ROWSUM_OUT(s, out) do {						\
		(out)->first_ns = (s)->first_ns;				\
		(out)->last_ns = (s)->last_ns;					\
		ipp_rowsum__io((s), &(out)->read, &(out)->write);		\
		(out)->read_hist = ipp_as_hist((s)->rd.hist);			\
		(out)->write_hist = ipp_as_hist((s)->wr.hist);			\
		ipp_rowsum__moved((s), &(out)->read_moved, &(out)->write_moved); \
	} while (0)

/*
 * Who holds what, for one walk over the rows @v (peers.c): the peers the
 * fd table knows, and, unless @st reads no /proc, those /proc knows for the
 * rest (one scan of every process's fds, remembered in @st: an inode is
 * looked for once). @return it, freed with ipp_peers__delete(); NULL (ENOMEM).
 */
struct ipp_peers;
struct ipp_peers *ipp_peers__new(struct ipcperf_stats *st, const struct ipp_rowref *v, size_t n);
void ipp_peers__delete(struct ipp_peers *pe);
/* The peer process of row @r, 0 if unknown; *@comm its name ("" unknown), valid for the walk. */
pid_t ipp_peers__of(struct ipp_peers *pe, const struct ipp_rowref *r, const char **comm);

/* What lib/flows asks of an inode: the peer its row names (ipp_peers__of_inos()). */
struct ipp_inopeer {
	uint64_t ino;
	pid_t pid;			/* 0: not known */
	char comm[IPP_COMM_MAX];
};

/*
 * The peers of the rows of the inodes @q[i].ino (@n of them) filled in, as
 * ipcperf_stats__for_each_fd() names them: an inode's first row that names
 * one (pid 0 and "" when none does or no row holds it). One walk of the
 * rows, with at most one /proc scan (none if @st reads no /proc).
 * @return 0 or -ENOMEM (then all are left unknown).
 */
int ipp_peers__of_inos(struct ipcperf_stats *st, struct ipp_inopeer *q, size_t n);
/* The entry of @ino in @q (@n of them, sorted as ipp_peers__of_inos() leaves them); NULL: none. */
const struct ipp_inopeer *ipp_peers__find_ino(const struct ipp_inopeer *q, size_t n, uint64_t ino);

/*
 * Whether a traced process holds the other end of connection @r in an fd
 * not folded yet (an incarnation, open or about to retire).
 */
bool ipp_peers__held_peer(const struct ipp_peers *pe, const struct ipp_rowref *r);

/* What /proc said of the peers looked for (struct ipcperf_stats.peercache), freed. Accepts NULL. */
struct ipp_peercache;
void ipp_peers__free_cache(struct ipp_peercache *c);
/* What /proc said of the peer of @r, forgotten: no row will ask again. */
void ipp_peers__forget(struct ipp_peercache *c, const struct ipp_rowref *r);
/*
 * Forget what @c found by their addresses for the rows @v[i] that @taken[i]
 * (folded: their peers named), and the holders /proc named for those
 * mirrors: a server traced for hours would keep (and sort, at each fold)
 * an entry for every connection it ever closed. A row with those addresses
 * later (a port reused) is a new connection, asked again.
 */
void ipp_peers__forget_mirrors(struct ipp_peercache *c, const struct ipp_rowref *v, size_t n,
				   const bool *taken);

/* The ephemeral ports (net.ipv4.ip_local_port_range; the kernel's default when unread). */
struct ipp_ports {
	unsigned lo, hi;
};
void ipp_group__read_ports(struct ipp_ports *p, bool proc);
/*
 * How row @r groups (enum ipcperf_fd_group_role) and its endpoint into
 * @endpoint (IPP_OBJECT_MAX bytes; "" for IPCPERF_GROUP_ONE and unix): an
 * inet connection by the call that made it (accepted: served; connected:
 * client), else by its ports (@pp).
 */
int ipp_group__key(const struct ipp_rowref *r, const struct ipp_ports *pp, char *endpoint);
/*
 * Whether row @r is an inet connection whose accept or connect was not seen
 * (made before the capture, or passed in): ipp_group__key() grouped it by
 * its ports alone.
 */
bool ipp_group__by_ports(const struct ipp_rowref *r);

#endif /* IPCPERF_GROUPS_H */
