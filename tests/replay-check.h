/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A capture through a replay session, as `ipcperf report` runs it, checked
 * against the rule report relies on (tests/replay-check.c). Shared by
 * tests/replay-perfdata.c and the libFuzzer target tests/fuzz-replay.c.
 */
#ifndef IPCPERF_TESTS_REPLAY_CHECK_H
#define IPCPERF_TESTS_REPLAY_CHECK_H
#include <stddef.h>

/*
 * Replay @path: ipcperf_session__open_file(), a stats object and a flows
 * object attached, consume until done, stop. The rule: it fails with exactly
 * one line through the print function, "PATH: offset 0x<hex>: <what>", and
 * a later consume gives the same error without a word; or it succeeds and
 * prints nothing but warnings. @expect: 1 it must succeed, -1 it must fail,
 * 0 either.
 * @return NULL when all held; else what did not, in @why.
 */
const char *pd_replay_check(const char *path, int expect, char *why, size_t whylen);
#endif
