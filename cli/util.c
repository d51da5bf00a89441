/* Small primitives of the CLI: the clock, growing arrays, sorted lookups. */
#include "config.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "util.h"

#define GROW_FIRST 16

uint64_t cli_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * CLI_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

uint64_t cli_now_ms(void)
{
	return cli_now_ns() / CLI_NS_PER_MS;
}

int cli_grow(void **v, size_t *cap, size_t need, size_t elem)
{
	return cli_grow_from(GROW_FIRST, v, cap, need, elem);
}

int cli_grow_from(size_t first, void **v, size_t *cap, size_t need, size_t elem)
{
	size_t room = *cap ? *cap : first;
	void *nv;

	if (need <= *cap)
		return 0;
	for (; room < need; room *= 2)
		if (room > SIZE_MAX / 2 / elem)
			return -ENOMEM;
	nv = realloc(*v, room * elem);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = room;
	return 0;
}

bool cli_bsearch(const void *key, const void *base, size_t n, size_t size,
		 int (*cmp)(const void *key, const void *elem), size_t *at)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp(key, (const char *)base + mid * size);

		if (c == 0) {
			*at = mid;
			return true;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	*at = lo;
	return false;
}

int cli_cmp_pid_key(const void *key, const void *elem)
{
	pid_t a = *(const pid_t *)key, b = *(const pid_t *)elem;

	return a < b ? -1 : a > b;
}

void *cli_insert_at(void *base, size_t n, size_t size, size_t at)
{
	char *slot = (char *)base + at * size;

	memmove(slot + size, slot, (n - at) * size);
	memset(slot, 0, size);
	return slot;
}

int cli_parse_number(const char *s, bool frac, double max, double *v)
{
	static const char digits[] = "0123456789";
	size_t n = strspn(s, digits);

	if (frac && n && s[n] == '.' && isdigit((unsigned char)s[n + 1]))
		n += 1 + strspn(s + n + 1, digits);
	if (!n || s[n])
		return -1;
	errno = 0;
	*v = strtod(s, NULL);
	return errno || !(*v <= max) ? -1 : 0;
}
