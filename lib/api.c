/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Diagnostics go to the caller's print function; the library never prints itself. */
#include "config.h"
#include <stdarg.h>
#include <string.h>
#include "internal.h"
#include "print.h"

static ipcperf_print_fn_t print_fn;
static __thread ipp_print_keep_fn keep_fn;
static __thread void *keep_ctx;

void ipp_print_keep(ipp_print_keep_fn fn, void *ctx)
{
	keep_fn = fn;
	keep_ctx = ctx;
}

ipcperf_print_fn_t ipcperf_set_print(ipcperf_print_fn_t fn)
{
	ipcperf_print_fn_t old = print_fn;
	print_fn = fn;
	return old;
}

void ipp_vprint(enum ipcperf_print_level level, const char *fmt, va_list ap)
{
	if (keep_fn)
		keep_fn(keep_ctx, level, fmt, ap);
	else if (print_fn)
		print_fn(level, fmt, ap);
}

void ipp_print(enum ipcperf_print_level level, const char *fmt, ...)
{
	va_list ap;

	if (!print_fn && !keep_fn)
		return;
	va_start(ap, fmt);
	ipp_vprint(level, fmt, ap);
	va_end(ap);
}

const char *ipcperf_version(void)
{
	return PACKAGE_VERSION;
}

bool ipp_opts_valid(const void *opts, size_t user_sz, size_t known_sz)
{
	const unsigned char *p = opts;

	if (!opts)
		return true;
	if (user_sz < sizeof(size_t))
		return false;
	/* A newer caller's struct is fine as long as the fields we don't know are zero. */
	for (size_t i = known_sz; i < user_sz; i++)
		if (p[i])
			return false;
	return true;
}
