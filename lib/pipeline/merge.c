/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Timestamp merge of the per-CPU rings: a binary min-heap keyed by
 * (time, seq) over copied records. One thread's sys_enter and sys_exit can
 * sit in different rings when it migrates inside a call; only after this
 * merge can they be paired.
 *
 * Most records arrive in time order already (a capture's rounds, a ring
 * drained on its own): those go to a FIFO that stays sorted, at O(1) a
 * record; only one older than the FIFO's newest goes to the heap. pop()
 * takes the older of the two heads, so the order is the heap's alone would
 * give: by (time, seq), equal times in push order. The FIFO is a ring of
 * fixed-size slots that hold the record itself (no block to take and give
 * back); a record too large for a slot goes to the heap, which is correct
 * for any record.
 */
#include "config.h"
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "pipeline/merge.h"
#include "bpf/call-rec.h"
#include "bpf/sum-rec.h"

/*
 * Records are small (tracepoint raw data is tens of bytes) and come and go
 * by the million: they live in fixed-size blocks recycled through a free
 * list. The kernel's fd summaries (one per syscall of each fd that closes:
 * several per connection of a busy server) carry only their calls'
 * buckets, about 100 bytes for a call or two, up to 2 KiB: one that large
 * takes a big block just its size, from a free list of its own, which
 * keeps at most BIG_KEEP (what a backlog took is given back once it is
 * read); any other record larger than a block gets a malloc() of its own.
 */
#define BLOCK_SIZE 256
#define BIG_BLOCK_SIZE 2304	/* a summary, 2144 bytes, and the record's header */
#define BIG_KEEP 512
/*
 * A FIFO slot: the record header and this much data: raw syscall data (<= 64
 * bytes) and the kernel's call records (bpf/call-rec.h, with the 4 bytes of
 * their RAW size), which stand for both samples of each call when calls are
 * paired in the kernel. At 128 bytes the call records did not fit, and
 * every one went through the heap.
 */
#define SLOT_SIZE 160
#define SLOT_DATA (SLOT_SIZE - offsetof(struct ipp_mrec, data))
_Static_assert(SLOT_DATA >= IPP_CALL_REC_SIZE + 4, "a call record fits a FIFO slot");
_Static_assert(SLOT_SIZE % 16 == 0, "slots keep records aligned");

/*
 * A heap entry: the record's sort key beside it, so that a sift compares
 * in the heap's own array and touches no record (a heap of the kernel's
 * 2 KiB fd summaries would take a cache miss at each step).
 */
struct hent {
	uint64_t time, seq;
	struct ipp_mrec *r;
};

struct ipp_merge {
	struct hent *heap;
	size_t len, cap;
	unsigned char *fifo;	/* ring of SLOT_SIZE slots, records in (time, seq) order */
	size_t head, fifo_len, fifo_cap;	/* fifo_cap: 0 or a power of two */
	uint64_t fifo_newest;	/* time of its newest record, when fifo_len */
	uint64_t seq;
	struct ipp_mrec *last;	/* handed out by pop; freed at the next call */
	void *free_blocks;	/* singly linked through each block's first bytes */
	void *free_big;		/* the same, of BIG_BLOCK_SIZE blocks */
	size_t nr_free_big;
};
_Static_assert(sizeof(struct ipp_mrec) + IPP_SUM_REC_SIZE <= BIG_BLOCK_SIZE, "a summary's block");

/* A record of @need bytes in a big block: one only a little larger than a block wastes none. */
static bool is_big(size_t need)
{
	return need > BIG_BLOCK_SIZE - BLOCK_SIZE && need <= BIG_BLOCK_SIZE;
}

/* The free list of the blocks a record of @need bytes takes. */
static void **free_list(struct ipp_merge *m, size_t need)
{
	return need <= BLOCK_SIZE ? &m->free_blocks : &m->free_big;
}

static void *take_block(struct ipp_merge *m, size_t need, bool *pooled)
{
	void **list = free_list(m, need);
	void *b;

	*pooled = need <= BLOCK_SIZE || is_big(need);
	if (!*pooled)
		return malloc(need);
	b = *list;
	if (b) {
		memcpy(list, b, sizeof(void *));
		m->nr_free_big -= list == &m->free_big;
		return b;
	}
	return malloc(need <= BLOCK_SIZE ? BLOCK_SIZE : BIG_BLOCK_SIZE);
}

static void give_back(struct ipp_merge *m, struct ipp_mrec *r)
{
	if (!r)
		return;
	if (!r->pooled) {
		free(r);
		return;
	}
	void **list = free_list(m, sizeof(*r) + r->size);

	if (list == &m->free_big && m->nr_free_big >= BIG_KEEP) {
		free(r);
		return;
	}
	m->nr_free_big += list == &m->free_big;
	memcpy(r, list, sizeof(void *));
	*list = r;
}

struct ipp_merge *ipp_merge__new(void)
{
	return calloc(1, sizeof(struct ipp_merge));
}

static void free_all(void **list)
{
	while (*list) {
		void *b = *list;

		memcpy(list, b, sizeof(void *));
		free(b);
	}
}

void ipp_merge__delete(struct ipp_merge *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->len; i++)
		give_back(m, m->heap[i].r);
	give_back(m, m->last);
	free_all(&m->free_blocks);
	free_all(&m->free_big);
	free(m->heap);
	free(m->fifo);
	free(m);
}

static bool older(const struct ipp_mrec *a, const struct ipp_mrec *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static bool hent_older(const struct hent *a, const struct hent *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static inline struct ipp_mrec *fifo_slot(const struct ipp_merge *m, size_t i)
{
	return (struct ipp_mrec *)(m->fifo + ((m->head + i) & (m->fifo_cap - 1)) * SLOT_SIZE);
}

/* Make room for one more record in the FIFO, keeping its order. Returns 0 or -ENOMEM. */
static __attribute__((noinline)) int fifo_room(struct ipp_merge *m)
{
	size_t cap = m->fifo_cap ? m->fifo_cap * 2 : 64;
	unsigned char *q;

	if (m->fifo_len < m->fifo_cap)
		return 0;
	q = malloc(cap * SLOT_SIZE);
	if (!q)
		return -ENOMEM;
	for (size_t i = 0; i < m->fifo_len; i++)
		memcpy(q + i * SLOT_SIZE, fifo_slot(m, i), SLOT_SIZE);
	free(m->fifo);
	m->fifo = q;
	m->fifo_cap = cap;
	m->head = 0;
	return 0;
}

static int heap_room(struct ipp_merge *m)
{
	size_t cap = m->cap ? m->cap * 2 : 1024;
	struct hent *h;

	if (m->len < m->cap)
		return 0;
	h = realloc(m->heap, cap * sizeof(*h));
	if (!h)
		return -ENOMEM;
	m->heap = h;
	m->cap = cap;
	return 0;
}

/*
 * Copy a tracepoint's few dozen bytes as memcpy() would, without the call:
 * with loads and stores of 16 bytes that may overlap, never outside [src,
 * src + n).
 */
static inline void copy_small(unsigned char *dst, const unsigned char *src, size_t n)
{
	if (n >= 16 && n <= 64) {
		size_t i;

		for (i = 0; i + 16 < n; i += 16)
			memcpy(dst + i, src + i, 16);
		memcpy(dst + n - 16, src + n - 16, 16);
	} else if (n >= 8 && n < 16) {
		memcpy(dst, src, 8);
		memcpy(dst + n - 8, src + n - 8, 8);
	} else if (n) {
		memcpy(dst, src, n);
	}
}

/* Fill @r, a FIFO slot or a block, with record @in and the next seq. */
static inline void fill(struct ipp_merge *m, struct ipp_mrec *r, bool pooled,
			const struct ipp_mrec_in *in)
{
	r->pooled = pooled;
	r->time = in->time;
	r->seq = m->seq++;
	r->size = in->size;
	r->type = in->type;
	r->misc = in->misc;
	r->pid = in->pid;
	r->tid = in->tid;
	r->cpu = in->cpu;
	copy_small(r->data, in->data, in->size);
}

/* Push onto the heap a record older than the FIFO's newest, or too large for a slot. */
static __attribute__((noinline)) int push_heap(struct ipp_merge *m, const struct ipp_mrec_in *in)
{
	struct ipp_mrec *r;
	struct hent e;
	bool pooled;
	size_t i;

	if (heap_room(m))
		return -ENOMEM;
	r = take_block(m, sizeof(*r) + in->size, &pooled);
	if (!r)
		return -ENOMEM;
	fill(m, r, pooled, in);
	e = (struct hent){ .time = r->time, .seq = r->seq, .r = r };
	for (i = m->len++; i > 0; i = (i - 1) / 2) {
		size_t parent = (i - 1) / 2;
		if (!hent_older(&e, &m->heap[parent]))
			break;
		m->heap[i] = m->heap[parent];
	}
	m->heap[i] = e;
	return 0;
}

int ipp_merge__push(struct ipp_merge *m, const struct ipp_mrec_in *in)
{
	struct ipp_mrec *r;

	if (m->last) {
		give_back(m, m->last);
		m->last = NULL;
	}
	/* Not older than the FIFO's newest (its seq is larger): it keeps the FIFO sorted. */
	if (in->size > SLOT_DATA || (m->fifo_len && in->time < m->fifo_newest))
		return push_heap(m, in);
	if (m->fifo_len == m->fifo_cap && fifo_room(m))
		return -ENOMEM;
	r = fifo_slot(m, m->fifo_len);
	fill(m, r, false, in);
	m->fifo_len++;
	m->fifo_newest = in->time;
	return 0;
}

static __attribute__((noinline)) struct ipp_mrec *heap_pop(struct ipp_merge *m)
{
	struct ipp_mrec *top = m->heap[0].r;
	struct hent last;
	size_t i = 0;

	last = m->heap[--m->len];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= m->len)
			break;
		if (c + 1 < m->len && hent_older(&m->heap[c + 1], &m->heap[c]))
			c++;
		if (!hent_older(&m->heap[c], &last))
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	if (m->len)
		m->heap[i] = last;
	return top;
}

const struct ipp_mrec *ipp_merge__pop(struct ipp_merge *m, uint64_t horizon)
{
	struct ipp_mrec *top;

	if (m->last) {
		give_back(m, m->last);
		m->last = NULL;
	}
	if (m->fifo_len && (!m->len || older(fifo_slot(m, 0), m->heap[0].r))) {
		/* The slot stays as it is until a push reuses it. */
		top = fifo_slot(m, 0);
		if (top->time > horizon)
			return NULL;
		m->head = (m->head + 1) & (m->fifo_cap - 1);
		m->fifo_len--;
		return top;
	}
	if (!m->len || m->heap[0].time > horizon)
		return NULL;
	top = heap_pop(m);
	m->last = top;
	return top;
}

size_t ipp_merge__len(const struct ipp_merge *m)
{
	return m->len + m->fifo_len;
}
