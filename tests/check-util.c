/* lib/util.c: the primitives every module uses. */
#include <check.h>
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "internal.h"
#include "source/targets.h"
#include "source/percpu.h"
#include "../cli/util.h"
#include "suites.h"

/* A ring that wrapped, grown when full: the same elements, oldest first, from 0. */
START_TEST(test_ring_reserve_unwraps)
{
	int *v = NULL;
	size_t cap = 0, head = 0, len = 0, next = 0;

	ck_assert_int_eq(ipp_ring_reserve((void **)&v, &cap, &head, len, sizeof(*v), 4), 0);
	ck_assert_uint_eq(cap, 4);
	/* 4 in, 3 out, 3 in: the ring is full and wraps (head 3) */
	for (int i = 0; i < 4; i++)
		v[(head + len++) % cap] = (int)next++;
	head = 3;
	len = 1;
	for (int i = 0; i < 3; i++)
		v[(head + len++) % cap] = (int)next++;
	ck_assert_uint_eq(len, cap);
	ck_assert_int_eq(ipp_ring_reserve((void **)&v, &cap, &head, len, sizeof(*v), 4), 0);
	ck_assert_uint_eq(cap, 8);
	ck_assert_uint_eq(head, 0);
	for (size_t i = 0; i < len; i++)
		ck_assert_int_eq(v[i], (int)(3 + i));
	/* not full: nothing moves */
	ck_assert_int_eq(ipp_ring_reserve((void **)&v, &cap, &head, len, sizeof(*v), 4), 0);
	ck_assert_uint_eq(cap, 8);
	free(v);
}
END_TEST

/* Too large to allocate: -ENOMEM, the ring as it was. */
START_TEST(test_ring_reserve_too_large)
{
	char *v = malloc(2);
	size_t cap = 2, head = 1, len = 2;

	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(ipp_ring_reserve((void **)&v, &cap, &head, len, SIZE_MAX / 2, 4), -ENOMEM);
	ck_assert_uint_eq(cap, 2);
	ck_assert_uint_eq(head, 1);
	free(v);
}
END_TEST

/* Gaps opened in a sorted array: the elements after each move up, in order. */
START_TEST(test_insert_at)
{
	static const struct { size_t at; int val; } ins[] = {
		{ 0, 20 }, { 1, 40 }, { 0, 10 }, { 2, 30 }, { 4, 50 },
	};
	int *v = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < IPP_ARRAY_SIZE(ins); i++) {
		int *gap = ipp_insert_at((void **)&v, &n, &cap, ins[i].at, sizeof(*v));

		ck_assert_ptr_eq(gap, &v[ins[i].at]);
		*gap = ins[i].val;
		ck_assert_uint_eq(n, i + 1);
	}
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(v[i], 10 * (int)(i + 1));
	ck_assert_uint_eq(cap, IPP_GROW_MIN);
	free(v);
}
END_TEST

/* Too large to allocate: NULL, the array as it was. */
START_TEST(test_insert_at_too_large)
{
	char *v = malloc(2);
	size_t n = 2, cap = 2;

	ck_assert_ptr_nonnull(v);
	v[0] = 'a';
	v[1] = 'b';
	ck_assert_ptr_null(ipp_insert_at((void **)&v, &n, &cap, 1, SIZE_MAX / 2));
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(cap, 2);
	ck_assert_int_eq(v[0], 'a');
	ck_assert_int_eq(v[1], 'b');
	free(v);
}
END_TEST

struct keyed {
	int key;
	int val;
};

static int cmp_keyed(const void *key, const void *elem)
{
	int a = *(const int *)key, b = ((const struct keyed *)elem)->key;

	return (a > b) - (a < b);
}

static int cmp_keyed_ptr(const void *key, const void *elem)
{
	return cmp_keyed(key, *(const struct keyed *const *)elem);
}

/* Keys asked for in any order: each made once, zeroed, and kept in order; a lookup makes none. */
START_TEST(test_sorted_get)
{
	static const int keys[] = { 30, 10, 50, 10, 20, 50, 40 };
	struct keyed *v = NULL, *e;
	size_t n = 0, cap = 0;
	int missing = 35;
	bool made;

	for (size_t i = 0; i < IPP_ARRAY_SIZE(keys); i++) {
		size_t had = n;

		e = ipp_sorted_get((void **)&v, &n, &cap, sizeof(*v), &keys[i], cmp_keyed, true, &made);
		ck_assert_ptr_nonnull(e);
		ck_assert(made == (n == had + 1));
		if (made) {
			ck_assert_int_eq(e->val, 0);
			e->key = keys[i];
		}
		e->val++;
	}
	ck_assert_uint_eq(n, 5);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(v[i].key, 10 * (int)(i + 1));
		ck_assert_int_eq(v[i].val, v[i].key == 10 || v[i].key == 50 ? 2 : 1);
	}
	ck_assert_ptr_null(ipp_sorted_get((void **)&v, &n, &cap, sizeof(*v), &missing, cmp_keyed,
					  false, &made));
	ck_assert(!made);
	ck_assert_uint_eq(n, 5);
	free(v);
}
END_TEST

/* The same over an array of pointers: the objects made once each, zeroed, the pointers in order. */
START_TEST(test_sorted_get_new)
{
	static const int keys[] = { 3, 1, 2, 3, 1 };
	struct keyed **v = NULL, *e, *first = NULL;
	size_t n = 0, cap = 0;
	bool made;

	for (size_t i = 0; i < IPP_ARRAY_SIZE(keys); i++) {
		e = ipp_sorted_get_new((void **)&v, &n, &cap, sizeof(*e), &keys[i], cmp_keyed_ptr,
				       true, &made);
		ck_assert_ptr_nonnull(e);
		ck_assert(made == (i < 3));
		if (made)
			e->key = keys[i];
		if (i == 0)
			first = e;
		e->val++;
	}
	ck_assert_uint_eq(n, 3);
	ck_assert_ptr_eq(v[2], first);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(v[i]->key, (int)i + 1);
		ck_assert_int_eq(v[i]->val, i == 1 ? 1 : 2);
		free(v[i]);
	}
	free(v);
}
END_TEST

/* An element taken out from the start, the middle, the end: the rest stay in order. */
START_TEST(test_remove_at)
{
	int v[] = { 10, 20, 30, 40, 50 };
	size_t n = IPP_ARRAY_SIZE(v);

	ipp_remove_at(v, &n, 2, sizeof(*v));
	ipp_remove_at(v, &n, 0, sizeof(*v));
	ipp_remove_at(v, &n, n - 1, sizeof(*v));
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(v[0], 20);
	ck_assert_int_eq(v[1], 40);
}
END_TEST

/*
 * The map against a plain array, over 200,000 random puts, deletes and
 * gets of 3,000 keys (its table grows to 8,192 slots: long runs of probes,
 * and deletions inside them), then emptied.
 */
START_TEST(test_idmap)
{
	enum { KEYS = 3000 };
	static uintptr_t ref[KEYS + 1];
	struct ipp_idmap m = { 0 };
	size_t n = 0;

	srandom(41);
	for (int op = 0; op < 200000; op++) {
		uint64_t key = 1 + (uint64_t)random() % KEYS;

		if (random() % 3) {
			n += !ref[key];
			ref[key] = (uintptr_t)op + 1;
			ck_assert_int_eq(ipp_idmap__put(&m, key, (void *)ref[key]), 0);
		} else {
			n -= !!ref[key];
			ref[key] = 0;
			ipp_idmap__del(&m, key);
		}
		key = 1 + (uint64_t)random() % KEYS;
		ck_assert_ptr_eq(ipp_idmap__get(&m, key), (void *)ref[key]);
		ck_assert_uint_eq(m.n, n);
	}
	for (uint64_t key = 1; key <= KEYS; key++) {
		ck_assert_ptr_eq(ipp_idmap__get(&m, key), (void *)ref[key]);
		ipp_idmap__del(&m, key);
	}
	ck_assert_uint_eq(m.n, 0);
	ipp_idmap__fini(&m);
}
END_TEST

/* A key's value, or a new zeroed one put there: made once a key, over the table's growth. */
START_TEST(test_idmap_get_new)
{
	static const unsigned char zero[24];
	struct ipp_idmap m = { 0 };
	void *made[200];
	int kept = 5;

	ck_assert_int_eq(ipp_idmap__put(&m, 1000, &kept), 0);
	ck_assert_ptr_eq(ipp_idmap__get_new(&m, 1000, sizeof(zero)), &kept);
	for (uint64_t key = 1; key <= 200; key++) {
		made[key - 1] = ipp_idmap__get_new(&m, key, sizeof(zero));
		ck_assert_ptr_nonnull(made[key - 1]);
		ck_assert_mem_eq(made[key - 1], zero, sizeof(zero));
		memset(made[key - 1], 0xab, sizeof(zero));
	}
	ck_assert_uint_eq(m.n, 201);
	for (uint64_t key = 1; key <= 200; key++) {
		ck_assert_ptr_eq(ipp_idmap__get_new(&m, key, sizeof(zero)), made[key - 1]);
		ck_assert_ptr_eq(ipp_idmap__get(&m, key), made[key - 1]);
		free(made[key - 1]);
	}
	ck_assert_uint_eq(m.n, 201);
	ck_assert_ptr_eq(ipp_idmap__get(&m, 1000), &kept);
	ipp_idmap__fini(&m);
}
END_TEST

/* Made zeroed; too large to allocate: NULL with ENOMEM (half the address
 * space: valgrind counts a size with the top bit set as an error of its own). */
START_TEST(test_new)
{
	static const unsigned char zero[64];
	unsigned char *obj = ipp_new(sizeof(zero));

	ck_assert_ptr_nonnull(obj);
	ck_assert_mem_eq(obj, zero, sizeof(zero));
	free(obj);
	errno = 0;
	ck_assert_ptr_null(ipp_new(SIZE_MAX / 2));
	ck_assert_int_eq(errno, ENOMEM);
}
END_TEST

/* Made only from good arguments, zeroed; from bad ones, NULL with EINVAL. */
START_TEST(test_new_checked)
{
	static const unsigned char zero[64];
	unsigned char *obj;

	errno = 0;
	ck_assert_ptr_null(ipp_new_checked(false, sizeof(zero)));
	ck_assert_int_eq(errno, EINVAL);
	obj = ipp_new_checked(true, sizeof(zero));
	ck_assert_ptr_nonnull(obj);
	ck_assert_mem_eq(obj, zero, sizeof(zero));
	free(obj);
}
END_TEST

/*
 * Every pointer given is freed, a NULL among them too: the bytes in use fall
 * back below what either block holds. Blocks too large for glibc's per-thread
 * cache, which would count them as in use; an allocator that does not count
 * (AddressSanitizer's) leaves the check to its leak report at exit.
 */
START_TEST(test_free_all)
{
	size_t before = mallinfo2().uordblks;
	char *a = malloc(4096), *b = malloc(8192);
	bool counted = mallinfo2().uordblks >= before + 4096 + 8192;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ipp_free_all(a, NULL, b);
	if (counted)
		ck_assert_uint_lt(mallinfo2().uordblks, before + 4096);
}
END_TEST

/* A half-made object freed (the bytes in use fall back, where counted); NULL with ENOMEM. */
START_TEST(test_new_failed)
{
	size_t before = mallinfo2().uordblks;
	char *obj = malloc(8192);
	bool counted = mallinfo2().uordblks >= before + 8192;

	ck_assert_ptr_nonnull(obj);
	errno = 0;
	ck_assert_ptr_null(ipp_new_failed(obj));
	ck_assert_int_eq(errno, ENOMEM);
	if (counted)
		ck_assert_uint_lt(mallinfo2().uordblks, before + 8192);
}
END_TEST

static int deleted[4];
static size_t nr_deleted;

static void delete_int(void *obj)
{
	int *v = obj;

	ck_assert_uint_lt(nr_deleted, IPP_ARRAY_SIZE(deleted));
	deleted[nr_deleted++] = *v;
	free(v);
}

/* Each object deleted once, first to last, then the array freed; none in NULL. */
START_TEST(test_delete_ptrs)
{
	int **v = calloc(3, sizeof(*v));

	ck_assert_ptr_nonnull(v);
	for (int i = 0; i < 3; i++) {
		v[i] = malloc(sizeof(**v));
		ck_assert_ptr_nonnull(v[i]);
		*v[i] = 10 + i;
	}
	nr_deleted = 0;
	ipp_delete_ptrs(v, 3, delete_int);
	ck_assert_uint_eq(nr_deleted, 3);
	ck_assert_int_eq(deleted[0], 10);
	ck_assert_int_eq(deleted[1], 11);
	ck_assert_int_eq(deleted[2], 12);
	ipp_delete_ptrs(NULL, 0, delete_int);
	ck_assert_uint_eq(nr_deleted, 3);
}
END_TEST

/* ------------------------------------------------------------------ the CLI's numbers */

/* What every numeric option of the CLI reads: decimal digits, a fraction only if asked. */
START_TEST(test_parse_number)
{
	static const char *const bad[] = {
		"", " 5", "5 ", "\t5", "+5", "-5", "0x10", "010x", "1e3", "1E3", "inf", "nan",
		"5.", ".5", "1.2.3", "1,5", "5\n", "99999999999999999999",
	};
	double v = -1;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(cli_parse_number(bad[i], true, 1e9, &v) < 0, "'%s' read as %g", bad[i],
			      v);
		ck_assert_msg(cli_parse_number(bad[i], false, 1e9, &v) < 0, "'%s' read as %g",
			      bad[i], v);
	}
	ck_assert_int_eq(cli_parse_number("2.5", false, 10, &v), -1);	/* no fraction asked */
	ck_assert_int_eq(cli_parse_number("11", false, 10, &v), -1);	/* over the max */
	ck_assert_int_eq(cli_parse_number("10.5", true, 10, &v), -1);
	ck_assert_int_eq(cli_parse_number("10", false, 10, &v), 0);
	ck_assert(v == 10);
	ck_assert_int_eq(cli_parse_number("0", false, 10, &v), 0);
	ck_assert(v == 0);
	ck_assert_int_eq(cli_parse_number("007", false, 10, &v), 0);
	ck_assert(v == 7);
	ck_assert_int_eq(cli_parse_number("2.5", true, 10, &v), 0);
	ck_assert(v == 2.5);
	ck_assert_int_eq(cli_parse_number("2147483647", false, 2147483647.0, &v), 0);
	ck_assert(v == 2147483647.0);
	ck_assert_int_eq(cli_parse_number("2147483648", false, 2147483647.0, &v), -1);
}
END_TEST

/* ------------------------------------------------------------------ the default ring */

/*
 * ring_pages 0: the most pages per CPU (data + side-band rings, one page
 * more each) that the lock budget holds, a power of two, up to 8192.
 */
START_TEST(test_ring_pages_fit)
{
	/* Debian's non-root default here: 516 KiB x 2 CPUs + RLIMIT_MEMLOCK 8 MiB. */
	ck_assert_uint_eq(ipp_ring_pages_fit(516 * 2 + 8192, 2, 4), 512);
	/* 1024 pages need (1025 + 129) x 4 KiB x 2 = 9232 KiB: 8 KiB short. */
	ck_assert_uint_eq(ipp_ring_pages_fit(9231, 2, 4), 512);
	ck_assert_uint_eq(ipp_ring_pages_fit(9232, 2, 4), 1024);
	/*
	 * Root: 8192 pages on a host of 1 or 2 CPUs (IPP_PERCPU_SMALL_CPUS);
	 * beyond, what the per-CPU budget leaves the rings (percpu.h), 40 MiB
	 * in all up to 128 CPUs, fewer pages the more CPUs.
	 */
	ck_assert_uint_eq(ipp_ring_pages_fit(~0ull, 1, 4), 8192);
	ck_assert_uint_eq(ipp_ring_pages_fit(~0ull, 2, 4), 8192);
	ck_assert_uint_eq(ipp_ring_pages_fit(~0ull, 3, 4), 2048);
	ck_assert_uint_eq(ipp_ring_pages_fit(~0ull, 7, 4), 1024);
	ck_assert_uint_eq(ipp_ring_pages_fit(~0ull, 8, 4), 1024);
	ck_assert_uint_eq(ipp_ring_pages_fit(~0ull, 64, 4), 128);
	ck_assert_uint_eq(ipp_ring_pages_fit(~0ull, 256, 4), 32);
	ck_assert_uint_eq(ipp_ring_pages_fit(~0ull, 1024, 4), 2);
	/* Nothing fits: one page, and opening says what to raise. */
	ck_assert_uint_eq(ipp_ring_pages_fit(0, 2, 4), 1);
	ck_assert_uint_eq(ipp_ring_pages_fit(8, 0, 4), 1);
}
END_TEST

/* ------------------------------------------------------------------ the per-CPU budget */

#define MIB (1ull << 20)

/*
 * The default plan on @ncpus CPUs as root (nothing limits locking: the
 * largest rings), 4 KiB pages, with @tracepoints tracepoints per CPU
 * besides the default session's three events.
 */
static void default_plan(struct ipp_percpu_plan *p, long ncpus, unsigned int tracepoints)
{
	unsigned int pages = ipp_ring_pages_fit(~0ull, ncpus, 4);

	ipp_percpu__plan(p, ncpus, pages, 4, IPP_PERCPU_EVENTS + tracepoints, tracepoints);
	printf("percpu: %4ld CPUs: -m %u (+%u), fast %u, agg keys %u: rings %.1f + bpf %.1f + "
	       "sums %.1f + user %.1f = %.1f MiB (user address space %.1f MiB); %u events, "
	       "start %.0f ms\n", ncpus, p->ring_pages, p->sideband_pages, p->fast_slots,
	       p->agg_keys, (double)p->ring_bytes / MIB, (double)p->bpf_bytes / MIB,
	       (double)p->agg_bytes / MIB, (double)p->user_bytes / MIB,
	       (double)p->total_bytes / MIB, (double)p->user_vm_bytes / MIB, p->events,
	       (double)p->start_ns / 1e6);
}

/*
 * Issue 41, item 5: every per-CPU structure, at its bound, under 64 MiB
 * together, and the start under 0.5 s, on 2 to 1024 CPUs with default
 * options; without BPF (a tracepoint per CPU each of stat's 7 events) up
 * to 256 CPUs.
 */
START_TEST(test_percpu_budget)
{
	static const long cpus[] = { 1, 2, 64, 256, 1024 };
	struct ipp_percpu_plan p;

	for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
		default_plan(&p, cpus[i], 0);
		if (cpus[i] <= IPP_PERCPU_SMALL_CPUS) {
			/* a small host keeps the largest default rings (percpu.h) */
			ck_assert_uint_eq(p.ring_pages, IPP_RING_PAGES_MAX_DEFAULT);
			ck_assert_uint_lt(p.total_bytes, 96 * MIB);
		} else {
			ck_assert_uint_lt(p.total_bytes, 64 * MIB);
		}
		ck_assert_uint_lt(p.start_ns, 500 * IPP_NS_PER_MS);
		ck_assert_uint_ge(p.ring_pages, 1);
		ck_assert_uint_ge(p.agg_keys, 1);
		default_plan(&p, cpus[i], 7);
		if (cpus[i] <= 256)
			ck_assert_uint_lt(p.start_ns, 500 * IPP_NS_PER_MS);
	}
}
END_TEST

Suite *util_suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("ring");

	tcase_add_test(tc, test_ring_reserve_unwraps);
	tcase_add_test(tc, test_ring_reserve_too_large);
	suite_add_tcase(s, tc);
	tc = tcase_create("insert");
	tcase_add_test(tc, test_insert_at);
	tcase_add_test(tc, test_insert_at_too_large);
	tcase_add_test(tc, test_sorted_get);
	tcase_add_test(tc, test_sorted_get_new);
	tcase_add_test(tc, test_remove_at);
	tcase_add_test(tc, test_new);
	tcase_add_test(tc, test_new_checked);
	tcase_add_test(tc, test_free_all);
	tcase_add_test(tc, test_delete_ptrs);
	tcase_add_test(tc, test_new_failed);
	suite_add_tcase(s, tc);
	tc = tcase_create("number");
	tcase_add_test(tc, test_parse_number);
	tcase_add_test(tc, test_idmap);
	tcase_add_test(tc, test_idmap_get_new);
	suite_add_tcase(s, tc);
	tc = tcase_create("ring_default");
	tcase_add_test(tc, test_ring_pages_fit);
	suite_add_tcase(s, tc);
	tc = tcase_create("percpu_budget");
	tcase_add_test(tc, test_percpu_budget);
	suite_add_tcase(s, tc);
	return s;
}
