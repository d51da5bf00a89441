/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Messages of the library kept by the library itself, on one thread, for a
 * while (the machine check's test capture quotes them): they go to @fn
 * instead of the caller's print function. Per thread, so nothing is swapped
 * under another thread's feet, unlike replacing the process-wide function.
 */
#ifndef IPCPERF_PRINT_H
#define IPCPERF_PRINT_H
#include <stdarg.h>
#include <ipcperf/ipcperf.h>

typedef void (*ipp_print_keep_fn)(void *ctx, enum ipcperf_print_level level, const char *fmt,
				  va_list ap);

/* From now on this thread's messages go to @fn (NULL: to the print function again). */
void ipp_print_keep(ipp_print_keep_fn fn, void *ctx);

#endif
