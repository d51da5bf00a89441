/*
 * Small primitives of the CLI: the clock, growing arrays, sorted lookups, and
 * the sizes and intervals used in more than one place. (The library has its
 * own; the CLI takes nothing from it but the public API.)
 */
#ifndef IPCPERF_CLI_UTIL_H
#define IPCPERF_CLI_UTIL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CLI_NS_PER_SEC 1000000000ull
#define CLI_NS_PER_MS 1000000ull
#define CLI_MS_PER_SEC 1000u

/* How often the live status line is rewritten. */
#define CLI_STATUS_MS 1000u

/* A thread's name as the kernel keeps it (TASK_COMM_LEN): 15 bytes and the NUL. */
#define CLI_COMM_LEN 16
/* A decimal number of any integer type, with its sign and NUL. */
#define CLI_INT_LEN 24
/* A number with its unit for a column (fmt_ns(), fmt_bytes(), an errno name). */
#define CLI_NUM_LEN 32
/* "/proc/PID/..." */
#define CLI_PROC_PATH_LEN 64
/* The targets in words, for a report's heading (cli_describe_targets()). */
#define CLI_WHAT_LEN 160
/* What to do about lost events (cli_warn_lost()). */
#define CLI_HINT_LEN 96

/* CLOCK_MONOTONIC, the clock of the library's timestamps. */
uint64_t cli_now_ns(void);
uint64_t cli_now_ms(void);

/*
 * Make room for @need elements of @elem bytes in the array *@v, which has
 * room for *@cap: the room doubles (from 16), so that appending one at a time
 * costs amortized O(1). *@v and *@cap are left as they were on failure.
 * @return 0, or -ENOMEM.
 */
int cli_grow(void **v, size_t *cap, size_t need, size_t elem);
/* The same, the room from @first (> 0) when there is none yet. */
int cli_grow_from(size_t first, void **v, size_t *cap, size_t need, size_t elem);

/*
 * Binary search of @key in @base (@n elements of @size bytes, sorted as
 * @cmp says: < 0 when the key comes before the element).
 * @return true when found; *@at is its index, or where it would be inserted.
 */
bool cli_bsearch(const void *key, const void *base, size_t n, size_t size,
		 int (*cmp)(const void *key, const void *elem), size_t *at);
/* A cli_bsearch() comparator: a pid_t key against an element that starts with a pid_t. */
int cli_cmp_pid_key(const void *key, const void *elem);

/* -1, 0 or 1 as @a is below, equal to or above @b: one key of a comparator's chain. */
static inline int cli_cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}
static inline int cli_cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

/*
 * Insert one element of @size bytes at @at into @base, which holds @n and
 * has room for one more: the elements from @at on move up by one.
 * @return the new slot (zeroed).
 */
void *cli_insert_at(void *base, size_t n, size_t size, size_t at);

/*
 * @s as a number, the one reading of every number an option takes: decimal
 * digits, and with @frac a '.' between digits ("2.5"); no blank, sign,
 * exponent, other base or "inf". @return 0 with the value in *@v, or -1 when
 * @s is no such number or is over @max.
 */
int cli_parse_number(const char *s, bool frac, double max, double *v);

#endif
