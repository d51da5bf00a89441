/*
 * The heap while a session loads.
 *
 * Loading the BPF programs parses the kernel's BTF (libbpf reads
 * /sys/kernel/btf/vmlinux, ~5 MB, and copies it; once per object, and
 * there were three objects until 2026-12-06, one since): about 30 MB of
 * memory the process had never touched, freed at once. On a guest whose
 * page faults cost ~15 us (the 2-CPU VM of bench/overhead), those ~7,000
 * faults were half of `stat -- true`'s 170 ms. The C library gives each of
 * those buffers fresh pages (mmap) and takes them back (munmap).
 *
 * So while the session opens and starts, large blocks come from the heap,
 * which is kept (no trim) and one for all threads; its
 * first 30 MB are backed by transparent huge pages where the kernel offers
 * them (madvise mode: a fault per 2 MB). Once the session runs, the
 * thresholds are about what the C library's own would have grown to after
 * those blocks (it raises them as mmap'd blocks are freed), the unused heap
 * is given back, and later growth is in small pages again. A sanitizer's
 * allocator takes none of these settings, and the block would only cost
 * it its shadow, written at the malloc and again at the free (~1,800 page
 * faults, a tenth of a sanitized `stat -- true`'s): there this does
 * nothing.
 */
#include "config.h"
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "cli.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED_HEAP 1
#endif
#endif

#define HUGE_PAGE ((uintptr_t)2 << 20)
/* What the loads use at most at once, with room: the heap grown to it once. */
#define LOAD_HEAP ((size_t)32 << 20)
/* glibc's dynamic thresholds after a 5 MB mmap'd block is freed: that block's size, twice that. */
#define RUN_MMAP_THRESHOLD (4 << 20)
#define RUN_TRIM_THRESHOLD (8 << 20)

#ifndef SANITIZED_HEAP
static struct {
	void *start;
	size_t len;
} huge;
#endif

void cli_heap_load_begin(void)
{
#ifndef SANITIZED_HEAP
	uintptr_t p, start, end;
	void *block;

	mallopt(M_ARENA_MAX, 1);
	mallopt(M_MMAP_THRESHOLD, (int)LOAD_HEAP);
	mallopt(M_TRIM_THRESHOLD, (int)(2 * LOAD_HEAP));
	/* Grown, not touched: freed to the top of the heap, which stays. */
	block = malloc(LOAD_HEAP - HUGE_PAGE);
	if (!block)
		return;
	p = (uintptr_t)block;
	start = (p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	end = (p + LOAD_HEAP - HUGE_PAGE) & ~(HUGE_PAGE - 1);
	if (end > start && madvise((void *)start, end - start, MADV_HUGEPAGE) == 0) {
		huge.start = (void *)start;
		huge.len = end - start;
	}
	free(block);
#endif
}

void cli_heap_load_end(void)
{
#ifndef SANITIZED_HEAP
	mallopt(M_MMAP_THRESHOLD, RUN_MMAP_THRESHOLD);
	mallopt(M_TRIM_THRESHOLD, RUN_TRIM_THRESHOLD);
	if (huge.len)
		madvise(huge.start, huge.len, MADV_NOHUGEPAGE);
	malloc_trim(0);
#endif
}
