#!/bin/sh
# tests/check-unit, started as a script: see tests/check-live.sh.
# Under the sanitizers (IPCPERF_SANITIZED=1, scripts/run-tests stage 2) the
# unit tests run in one process, as they do under valgrind (CK_FORK=no):
# LeakSanitizer's check at the exit of each forked test took ~0.28 s here
# (the child's copy-on-write of the allocator's pages as it marks them),
# 77 of the runner's 99 s. Leaks are still reported at the end of the run,
# each with the stack that allocated it, and fail it.
if [ "${IPCPERF_SANITIZED:-}" = 1 ] && [ -z "${CK_FORK:-}" ]; then
	CK_FORK=no
	export CK_FORK
fi
. "${top_srcdir:-.}/tests/check-live.sh"
