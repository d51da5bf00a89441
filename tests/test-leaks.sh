#!/usr/bin/env bash
# A build with LeakSanitizer (scripts/run-tests stage 2, clang -fsanitize=address):
# ipcperf ends every run having freed what it allocated, libperf's cpu and
# thread maps included (libperf 6.1 keeps a reference to them in each evsel,
# which the library must give back itself). Leak detection on, with only
# tests/lsan.supp, whose every entry is a library's own leak, not ours. A
# leak makes LeakSanitizer exit 23 and print "detected memory leaks".
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

need_exe "$IPCPERF"
need_exe "$IPCWORK"
make_tmpdir
nm "$IPCPERF" 2>/dev/null | grep -q ' __lsan_' ||
	skip "ipcperf is built without LeakSanitizer (scripts/run-tests checks its ASan build)"
skip_unless_root "ipcperf stat, trace, flows and record under LeakSanitizer"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export LSAN_OPTIONS="suppressions=$top_srcdir/tests/lsan.supp:print_suppressions=0"

# leak_free WHAT ARGS...: `ipcperf ARGS` exits 0 and LeakSanitizer found nothing.
leak_free() {
	local what=$1
	shift
	run "$IPCPERF" "$@"
	grep -q 'LeakSanitizer' "$T/err" && { show; fail "$what: LeakSanitizer found a leak"; }
	expect_status 0 "$what"
}

for scope in cpu task; do
	leak_free "stat --scope $scope -- ipcwork pipe" stat -q --scope "$scope" -o /dev/null -- "$IPCWORK" pipe
done
leak_free "trace -- ipcwork pipe" trace -q -o /dev/null -- "$IPCWORK" pipe
leak_free "flows -- ipcwork pipe" flows -q -o /dev/null -- "$IPCWORK" pipe
leak_free "record -- ipcwork pipe" record -q -o "$T/c.data" -- "$IPCWORK" pipe
leak_free "report" report -i "$T/c.data" -o /dev/null
leak_free "stat -p PID -d 0.2" stat -q -o /dev/null -d 0.2 -p $$
exit 0
