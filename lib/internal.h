/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private interfaces between libipcperf's modules. Internal non-static names
 * carry the ipp_ prefix; nothing here is exported from the shared library.
 *
 * The library is a folder a job; each folder's main header (named below)
 * opens with what the folder does and which folders it may call. The
 * folders stand on floors: a file calls its own folder and the floors
 * below it, never one beside or above it (tests/test-lib-layers.sh reads
 * the objects and this line, the floors bottom up):
 *
 *   floors: ground bpf fd capture pipeline source session stats flows paths machine
 *
 * Top down; records go up from the sources through the pipeline to the
 * handlers, which attach to the session:
 *
 *  machine/ [machine.c, check.c]: what this machine offers and the machine
 *     check's items; services over the whole library, which open counters
 *     and a session as any caller would.
 *  paths/ [paths.h]: request paths, over flows/.
 *  flows/ [flows.h]: flows.c flowfold.c (closed flows folded) flows-read.c
 *     chains.c waits.c.
 *  stats/ [account.h]: in layers, bottom up (tests/test-stats-layers.sh):
 *     procs.c rows.c, peers.c groups.c, readout.c, folds.c connfold.c
 *     exitfold.c retain.c, intake.c, attach.c, stats.c, interval.c.
 *        (the handlers attach to the session: ipcperf_session__add_handlers)
 *  session/ [session.h]: session.c, the public session over a source and
 *     the pipeline.
 *  source/ [rings.h, source.h]: where records come from: live (targets
 *     resolved: rings-targets.c, cmd.c; formats.c evset.c plan.c; rings*.c
 *     counters.c) or from a capture (replay.c); both feed the pipeline.
 *  pipeline/ [pipeline.h]: merge.c -> follow.c -> decode.c -> pair.c ->
 *     the handlers; callmem.c (call memory), taskacct.c (task accounting).
 *  capture/ [perfdata.h]: perfdata.c, pd-writer.c, pd-reader.c and the
 *     pd-*.c beside it, record.c (the recorder), rec-data.c (ipcperf's
 *     section).
 *  fd/ [fdtable.h]: what each fd is: fdtable.c fdtable-calls.c settleq.c
 *     fdtable-report.c callfds.c; the resolvers [resolve.h]: procres.c
 *     over procfd.c sockdb.c sockdb-ask.c nl.c, holders.c (who holds an
 *     inode), resolve-log.c over identlog.c (the identity log a capture
 *     keeps), resolve-kernel.c kwords.c; and what /proc says of tasks
 *     (proctask.c).
 *  bpf/ [fdid-bpf.h]: the BPF programs, their loader (driven by source/)
 *     and their records' decoders (used by fd/, pipeline/ and stats/).
 *  The ground floor, here in lib/: util.c, api.c (version, print function;
 *     print.h: a thread's own hook), hist.c [hist.h] (latencies),
 *     syscalls.c [syscalls.h] (the syscall table), fdid.h (what an fd
 *     refers to: fd/ and bpf/ fill it); they call no folder.
 *
 * What is left here: util.c's and api.c's helpers, which every module
 * uses. Each object's interface is in its own header; each .c includes
 * those it uses.
 */
#ifndef IPCPERF_INTERNAL_H
#define IPCPERF_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "ipcperf/ipcperf.h"

#define IPP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---------------------------------------------------------------- util.c */
#define IPP_NS_PER_SEC 1000000000ull
#define IPP_NS_PER_MS 1000000ull
/* A syscall's return value is an error when it is -1..-IPP_MAX_ERRNO (larger negatives are values). */
#define IPP_MAX_ERRNO 4095
/* Sizes of the names the modules pass around, with their NUL. */
#define IPP_COMM_MAX IPCPERF_COMM_LEN	/* a task's comm (TASK_COMM_LEN) */
#define IPP_OBJECT_MAX 128	/* an fd's object: "pipe:[N]", "socket:[N]", "/path" */
#define IPP_ADDR_MAX 64		/* a socket address as text: "[v6]:port", "/path", "@name" */
#define IPP_DETAIL_MAX (2 * IPP_ADDR_MAX + 8)	/* "ADDR -> ADDR", "peer socket:[N]" */
/* What a new pipe holds, when its own size cannot be read: 16 pages of 4 KiB (pipe(7)). */
#define IPP_PIPE_DEFAULT_SIZE (16 * 4096)

/* Entries a growing array starts with. */
#define IPP_GROW_MIN 16
/*
 * Make room in *@v (of *@cap elements of @elem bytes) for @need elements,
 * doubling. @return 0, or -ENOMEM with *@v and *@cap unchanged.
 */
int ipp_grow(void **v, size_t *cap, size_t need, size_t elem);
/*
 * Open a gap at index @at (<= *@n) of *@v (*@n elements of @elem bytes, room
 * for *@cap), growing it as ipp_grow() does: the elements from @at move up
 * one and *@n counts one more. For sorted arrays, with @at from
 * ipp_bsearch_at(). @return the gap, whose bytes the caller sets; NULL
 * (no memory) with the array unchanged.
 */
void *ipp_insert_at(void **v, size_t *n, size_t *cap, size_t at, size_t elem);
/*
 * A new object of @size bytes, zeroed, its pointer put at @at of the array
 * of pointers *@v as ipp_insert_at() puts an element. @return it (owned by
 * the array's owner, freed with free()); NULL (no memory), nothing changed.
 */
void *ipp_insert_new(void **v, size_t *n, size_t *cap, size_t at, size_t size);
/* A new object of @size bytes, zeroed. @return it (free with free()), or NULL with errno ENOMEM. */
void *ipp_new(size_t size);
/*
 * A new object of @size bytes, zeroed, when the arguments it is made from
 * are good (@args_ok). @return it (free with free()), or NULL with errno
 * EINVAL (bad arguments: nothing allocated) or ENOMEM.
 */
void *ipp_new_checked(bool args_ok, size_t size);
/*
 * Room for one more element in a ring (*@v of *@cap elements of @elem
 * bytes, the oldest at *@head, @len in use): when it is full, an array twice
 * as large (@first when empty) holds them unwrapped, oldest first, from
 * *@head = 0. @return 0, or -ENOMEM with the ring unchanged.
 */
int ipp_ring_reserve(void **v, size_t *cap, size_t *head, size_t len, size_t elem, size_t first);
/* Take the element at @at out of @v (*@n elements of @elem bytes): those after it move down. */
void ipp_remove_at(void *v, size_t *n, size_t at, size_t elem);
/*
 * Binary search of @key in @base (@n sorted elements of @size bytes).
 * @return true with *@at its index; false with *@at where it would go.
 * Inline, so that a lookup on a hot path gets its comparison inlined too.
 */
static inline bool ipp_bsearch_at(const void *key, const void *base, size_t n, size_t size,
				  int (*cmp)(const void *key, const void *elem), size_t *at)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp(key, (const char *)base + mid * size);

		if (!c) {
			*at = mid;
			return true;
		}
		if (c > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return false;
}
/*
 * The element of the sorted array *@v (*@n elements of @elem bytes, room for
 * *@cap) that @cmp finds equal to @key, as ipp_bsearch_at() finds it. When
 * there is none and @create, a new one, zeroed, put where it sorts as
 * ipp_insert_at() puts it, with *@made set: the caller gives it its key.
 * @return the element; NULL when there is none (or no memory).
 */
static inline void *ipp_sorted_get(void **v, size_t *n, size_t *cap, size_t elem, const void *key,
				   int (*cmp)(const void *key, const void *elem), bool create,
				   bool *made)
{
	size_t at;
	void *e;

	*made = false;
	if (ipp_bsearch_at(key, *v, *n, elem, cmp, &at))
		return (char *)*v + at * elem;
	if (!create || !(e = ipp_insert_at(v, n, cap, at, elem)))
		return NULL;
	memset(e, 0, elem);
	*made = true;
	return e;
}
/*
 * ipp_sorted_get() over a sorted array of pointers (@cmp's @elem points to
 * one): the object whose pointer matches @key. A new one is made of @size
 * bytes, zeroed. @return the object (owned by the array's owner, freed with
 * free()); NULL when there is none (or no memory: the elements as they were).
 */
static inline void *ipp_sorted_get_new(void **v, size_t *n, size_t *cap, size_t size,
				       const void *key,
				       int (*cmp)(const void *key, const void *elem), bool create,
				       bool *made)
{
	void **slot = ipp_sorted_get(v, n, cap, sizeof(*slot), key, cmp, create, made);

	if (!slot)
		return NULL;
	if (*made && !(*slot = calloc(1, size))) {
		ipp_remove_at(*v, n, (size_t)(slot - (void **)*v), sizeof(*slot));
		*made = false;
		return NULL;
	}
	return *slot;
}
/* free() each of the @n pointers of @v, in order; NULL ones as free() takes them. */
void ipp_free_each(void *const *v, size_t n);
/*
 * free() each pointer given, in order (a destructor's members, then the
 * object itself, last). The list is counted here, so it cannot go wrong.
 */
#define ipp_free_all(...) \
	ipp_free_each((void *const[]){ __VA_ARGS__ }, IPP_ARRAY_SIZE(((void *const[]){ __VA_ARGS__ })))
/*
 * Delete each object of @v, an array of @n pointers to them (NULL too: @v
 * of @n = 0), with @del, first to last; then free() @v itself.
 */
void ipp_delete_ptrs(void *v, size_t n, void (*del)(void *obj));
/*
 * A constructor that ran out of memory half way: free @obj, its object
 * (only that). @return NULL with errno ENOMEM, for the constructor to return.
 */
void *ipp_new_failed(void *obj);
/* A constructor's failure: @return NULL, with errno @err (a positive code). */
static inline void *ipp_null_errno(int err)
{
	errno = err;
	return NULL;
}
/* ---------------------------------------------------------------- idmap.c */
/*
 * A map of 64-bit keys (inodes, tids, ids; never 0) to pointers (never
 * NULL: a NULL value reads as absent), open addressing.
 */
struct ipp_idmap {
	struct ipp_idslot { uint64_t key; void *val; } *v;	/* key 0: free */
	size_t cap, n;
};
void *ipp_idmap__get(const struct ipp_idmap *m, uint64_t key);
/* @return 0; -ENOMEM. @key must not be 0. */
int ipp_idmap__put(struct ipp_idmap *m, uint64_t key, void *val);
/*
 * The value of @key (not 0), or when it has none a new one of @size bytes,
 * zeroed, put there (the map's owner frees it with free()). NULL: no memory.
 */
void *ipp_idmap__get_new(struct ipp_idmap *m, uint64_t key, size_t size);
void ipp_idmap__del(struct ipp_idmap *m, uint64_t key);
void ipp_idmap__fini(struct ipp_idmap *m);
/* Each value, in no order; @fn must not change the map. */
void ipp_idmap__each(const struct ipp_idmap *m, void (*fn)(void *ctx, void *val), void *ctx);

/* CLOCK_MONOTONIC now, in ns. */
uint64_t ipp_now_ns(void);
/*
 * Read CLOCK_MONOTONIC and CLOCK_REALTIME together, in ns: the wall clock is
 * read between two monotonic reads, whose midpoint goes into @mono.
 */
void ipp_clock_pair(uint64_t *mono, uint64_t *real);
/* The integer a file (a sysctl under /proc/sys) starts with. @return 0, -errno, -EINVAL. */
int ipp_read_int(const char *path, int *val);

/* True when the caller's opts struct is large enough to hold @field. */
#define IPP_OPTS_HAS(opts, field) \
	((opts) && (opts)->sz >= offsetof(__typeof__(*(opts)), field) + sizeof((opts)->field))
/* opts->sz is sane: at least the sz member, and no larger than we know unless the tail is zero. */
bool ipp_opts_valid(const void *opts, size_t user_sz, size_t known_sz);

/*
 * Define the public function NAME(TYPE *o, cb, void *ctx) that sets one of
 * the object's callbacks: it stores @cb in o->CB and @ctx in o->CTX and
 * returns 0, or -EINVAL when @o is NULL. The type of @cb is the field's,
 * which the public header's declaration of NAME must match.
 */
#define IPP_DEFINE_CB_SETTER(name, type, cb, ctx)					\
	int name(type *o, __typeof__(((type *)0)->cb) cb_, void *ctx_)			\
	{										\
		if (!o)									\
			return -EINVAL;							\
		o->cb = cb_;								\
		o->ctx = ctx_;								\
		return 0;								\
	}

/* ---------------------------------------------------------------- api.c */
#include <stdarg.h>
void ipp_vprint(enum ipcperf_print_level level, const char *fmt, va_list ap);
__attribute__((format(printf, 2, 3)))
void ipp_print(enum ipcperf_print_level level, const char *fmt, ...);
#define ipp_warn(...) ipp_print(IPCPERF_WARN, __VA_ARGS__)
#define ipp_info(...) ipp_print(IPCPERF_INFO, __VA_ARGS__)
#define ipp_debug(...) ipp_print(IPCPERF_DEBUG, __VA_ARGS__)

#endif /* IPCPERF_INTERNAL_H */
