/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The perf.data reader's fuzz entry (tests/fuzz-perfdata.c), shared with tests/replay-perfdata.c. */
#ifndef IPCPERF_TESTS_FUZZ_PERFDATA_H
#define IPCPERF_TESTS_FUZZ_PERFDATA_H
#include <stddef.h>
#include <stdint.h>

/* Run one input (a whole perf.data file) through the reader and the decoder. @return 0. */
int pd_fuzz_one(const uint8_t *data, size_t size);

/* libFuzzer's entry point: pd_fuzz_one(). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
#endif
