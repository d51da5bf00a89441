/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target for a replay session: the input is a whole capture, put
 * in a memfd and replayed as `ipcperf report` does (tests/replay-check.c:
 * ipcperf_session__open_file, the stats and flows accounting attached,
 * consume until done). Besides crashes, leaks and undefined behaviour, it
 * stops at any input that breaks report's rule: a failure said in exactly
 * one line "FILE: offset 0x...: ...", a success that says nothing but
 * warnings.
 *
 * Build (clang): make fuzz-replay CC=clang, from the whole library's sources.
 * tests/fuzz-perfdata.c fuzzes the reader alone, much faster.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1	/* memfd_create */
#endif
#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "replay-check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";	/* as in fuzz-perfdata.c */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-replay", MFD_CLOEXEC);
	char path[64], why[600];
	const char *bad;

	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		bad = pd_replay_check(path, 0, why, sizeof(why));
		if (bad) {
			fprintf(stderr, "fuzz-replay: %s\n", bad);
			__builtin_trap();
		}
	}
	close(fd);
	return 0;
}
