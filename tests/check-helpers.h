/*
 * What several libcheck suites share: the runners' loop, a flows fixture
 * built on stats, and assertions more than one module's tests make. Only
 * the public API is used here, so both runners (check-unit, linked with
 * the internal archive, and check-live, linked with the shared library)
 * can link it.
 */
#ifndef IPCPERF_TESTS_CHECK_HELPERS_H
#define IPCPERF_TESTS_CHECK_HELPERS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <check.h>

struct ipcperf_stats;
struct ipcperf_flows;

/* The number of elements of array @a. */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Nanoseconds in a millisecond: times in the hand-built calls. */
#define MS 1000000ull

/* CLOCK_MONOTONIC now, in ns. */
uint64_t mono_ns(void);

/* A function that builds one module's suite, as suites.h declares them. */
typedef Suite *(*suite_fn)(void);

/*
 * Runs the @n (at least one) suites @suites build, in that order, and returns the exit
 * status of a runner: EXIT_SUCCESS when no test failed.
 */
int run_suites(const suite_fn *suites, size_t n);

/*
 * A new test case @name of suite @s, each of its tests run between @setup
 * and @teardown (both NULL: no fixture), in a process of its own when
 * forking: what the suite functions made with tcase_create(),
 * tcase_add_checked_fixture() and suite_add_tcase().
 */
TCase *new_tcase(Suite *s, const char *name, SFun setup, SFun teardown);
/* Adds the @n @tests (the names START_TEST gave them) to @tc, in that order. */
void add_tests(TCase *tc, const TTest *const *tests, size_t n);

/*
 * New stats (without /proc look-ups when @no_proc) in *@st and flows on
 * them in *@fl, or the test fails. Undo with flows_fixture_delete().
 */
void flows_fixture_new(struct ipcperf_stats **st, struct ipcperf_flows **fl, bool no_proc);
/* Deletes what flows_fixture_new() built; sets both pointers to NULL. */
void flows_fixture_delete(struct ipcperf_stats **st, struct ipcperf_flows **fl);

/* Calls and errors by name (a syscall, or "pid/syscall"), as strace -c or ipcperf count them. */
struct sc_count {
	char name[40];
	int64_t calls, errors;
	int64_t p99_lo, p99_hi;	/* the smallest and largest p99 of the rows counted (p99_hi 0: none) */
};

struct sc_counts {
	struct sc_count v[256];
	size_t n;
};

/* The row of @name in @t, added (all zero) if none; fails the test when @t is full. */
struct sc_count *sc_counts_get(struct sc_counts *t, const char *name);
/* The row of @name in @t, or NULL. */
const struct sc_count *sc_counts_find(const struct sc_counts *t, const char *name);

/* Appends to the NUL-terminated message in @buf of @len bytes, cut at its end. */
__attribute__((format(printf, 3, 4)))
void msg_add(char *buf, size_t len, const char *fmt, ...);

/* ipcperf_fd_kind_name() names every kind, and an unknown one "unknown". */
void expect_fd_kind_names(void);

/* |est - exact| <= exact / 64: the documented percentile bound. */
#define ck_assert_within_64th(est, exact) do { \
	uint64_t e_ = (est), x_ = (exact); \
	uint64_t d_ = e_ > x_ ? e_ - x_ : x_ - e_; \
	ck_assert_msg(d_ <= x_ / 64, "estimate %llu is off from %llu by %llu > %llu", \
		      (unsigned long long)e_, (unsigned long long)x_, \
		      (unsigned long long)d_, (unsigned long long)(x_ / 64)); \
} while (0)
#endif
