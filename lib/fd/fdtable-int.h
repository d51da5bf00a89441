/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fd table's insides, shared by its two files: fdtable.c (the table,
 * its incarnations and lookups, retiring) and fdtable-calls.c (what each
 * event does to it). Nothing else includes this: the rest of the library
 * goes through fdtable.h. The helpers carry the ipp_fdt_ prefix.
 */
#ifndef IPCPERF_FDTABLE_INT_H
#define IPCPERF_FDTABLE_INT_H

#include "fd/fdtable.h"

struct fdslot {
	int fd;
	size_t inc;		/* index into t->incs */
};

/* The open incarnations of one process, unsorted. */
struct fdproc {
	pid_t pid;
	struct fdslot *fds;
	size_t nr_fds, cap_fds;
	/*
	 * When each fd number was last closed (whatever it was), and when the
	 * process began (fork) or exec'd: a /proc answer read before these
	 * cannot describe an fd first seen after them.
	 */
	struct fdclosed {
		int fd;
		uint64_t ns;
	} *closed;
	size_t nr_closed, cap_closed;
	uint64_t base_ns;
	/*
	 * The ranges close_range() closed, and when: the numbers in them
	 * closed that the table never held (close_range_call()).
	 */
	struct fdrange {
		unsigned int lo, hi;
		uint64_t ns;
	} *ranges;
	size_t nr_ranges, cap_ranges;
};

struct ipp_fdtab {
	struct fdproc **procs;	/* sorted by pid */
	size_t nr_procs, cap_procs;
	struct fdproc *last;	/* the last looked up */
	struct ipp_inc *incs;
	size_t nr_incs, cap_incs;
	size_t *closed;		/* closed incarnations not retired yet */
	size_t nr_closed, cap_closed;
	size_t *free_incs;	/* retired slots, taken again by new incarnations */
	size_t nr_free, cap_free;
	/* Who says what an fd is (resolve.h: /proc, a capture's log); NULL: nobody. */
	struct ipp_resolver *res;
	uint64_t now_ns;	/* latest event time delivered */
	struct ipp_kwords *kw;	/* the kernel's words waiting for their exits (resolve-kernel.h) */
	bool kernel_words;	/* the kernel describes fds (ipp_fdtab__expect_kernel) */
	/* The fds the kernel described before the exit of the last call fed. */
	int early[IPP_MAX_CALL_FDS];
	size_t nr_early;
	/*
	 * The incarnations retired last, as they were reported: a call under
	 * way on one when it closed (in another thread) ends after the close,
	 * maybe after the sweep that retired it (ipp_fdt_inc_at()).
	 */
	struct retired {
		pid_t pid;
		int fd;
		uint64_t start_ns, end_ns;
		struct ipp_ident id;
	} *recent;		/* RECENT of them, allocated at the first retirement */
	size_t recent_at;	/* where the next one goes */
};

/* The order of t->procs, by pid (@key a pid_t, @elem a struct fdproc *). */
static inline int ipp_fdt_cmp_pid(const void *key, const void *elem)
{
	pid_t pid = *(const pid_t *)key, other = (*(struct fdproc *const *)elem)->pid;

	return (pid > other) - (pid < other);
}

/* Process @pid's entry, made when @create. NULL: none, or no memory. */
struct fdproc *ipp_fdt_get_proc(struct ipp_fdtab *t, pid_t pid, bool create);
/*
 * Free @obj (a struct fdproc) and what it holds (its fds' incarnations are
 * the table's); void *, so that ipp_delete_ptrs() takes it.
 */
void ipp_fdt_free_proc(void *obj);
/* The slot of open @fd of @p, or NULL. */
struct fdslot *ipp_fdt_find_slot(struct fdproc *p, int fd);
/*
 * Ask the resolver what the fd is, for an incarnation that began no earlier
 * than @floor_ns. The answer is checked against the incarnation's end later.
 */
void ipp_fdt_resolve(struct ipp_fdtab *t, struct ipp_inc *in, uint64_t floor_ns);
/* Start an incarnation of @fd of @p at @start. NULL: no memory. */
struct ipp_inc *ipp_fdt_new_inc(struct ipp_fdtab *t, struct fdproc *p, int fd, uint64_t start);
/* @fd of @p was closed (or replaced) by @when, whether or not the table knew it. */
void ipp_fdt_note_closed(struct fdproc *p, int fd, uint64_t when);
/* End the open incarnation of @fd of @p at @when. */
void ipp_fdt_end_inc(struct ipp_fdtab *t, struct fdproc *p, int fd, uint64_t when);
/* Whether the open incarnation of @fd of @p began after @ns. */
bool ipp_fdt_began_after(const struct ipp_fdtab *t, struct fdproc *p, int fd, uint64_t ns);
/* The open incarnation of @fd, starting one if there is none. */
struct ipp_inc *ipp_fdt_cur_inc(struct ipp_fdtab *t, struct fdproc *p, int fd, bool do_resolve);
/* The incarnation a call on @fd that started at @start was on (fdtable.c says how). */
struct ipp_inc *ipp_fdt_inc_at(struct ipp_fdtab *t, struct fdproc *p, int fd, uint64_t start);
/* Start an incarnation of @fd that refers to what @from refers to (dup, dup2, fork). */
void ipp_fdt_dup_inc(struct ipp_fdtab *t, struct fdproc *p, int fd, const struct ipp_ident *from,
		     uint64_t when, int cloexec);
/* @fd of @p becomes a copy of @from_fd of @p. */
void ipp_fdt_dup_fd(struct ipp_fdtab *t, struct fdproc *p, int from_fd, int fd, uint64_t when,
		    int cloexec);
/* Look the open incarnation of @fd up again (what it is connected to changed at @when). */
void ipp_fdt_relook(struct ipp_fdtab *t, struct fdproc *p, int fd, uint64_t when);
/* Set the close-on-exec state of the open incarnation of @fd. */
void ipp_fdt_set_cloexec(struct ipp_fdtab *t, struct fdproc *p, int fd, int cloexec);
/* Whether closed incarnation @i may be retired, reported as *@id from then on. */
bool ipp_fdt_retirable(const struct ipp_fdtab *t, size_t i, const struct ipp_ident **id);

#endif /* IPCPERF_FDTABLE_INT_H */
