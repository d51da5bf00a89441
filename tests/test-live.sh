#!/usr/bin/env bash
# Attached to a running process (-p), stat, trace, flows, paths and record say on
# stderr, once, that the capture is live, while it runs (issue 21): not
# with -q, not for a command of their own (-- CMD).
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

need_exe "$IPCPERF"
skip_unless_root "tracing a running process"
make_tmpdir

# The sanitized build of scripts/run-tests' second stage starts several times
# slower, and shares the CPUs with the first stage's tests: it gets longer.
limit_ms=1500 secs=2
[ -n "${IPCPERF_SANITIZED:-}" ] && limit_ms=5000 secs=6

sleep 60 &
target=$!
trap 'kill $target 2>/dev/null; rm -rf "$T"' EXIT

for cmd in stat trace flows paths record; do
	out=$T/$cmd.out
	[ $cmd = record ] && out=$T/c.data
	t0=${EPOCHREALTIME/./}
	"$IPCPERF" $cmd -p $target -d $secs -o "$out" >"$T/out" 2>"$T/err" &
	ip=$!
	# the line comes while the capture runs: long before -d ends it
	while ! grep -q ': live' "$T/err"; do
		t1=${EPOCHREALTIME/./}
		[ $(((t1 - t0) / 1000)) -lt $limit_ms ] || break
		sleep 0.001
	done
	t1=${EPOCHREALTIME/./}
	wait $ip
	status=$?
	expect_status 0 "ipcperf $cmd -p $target -d $secs"
	want="ipcperf $cmd: live, pid $target (until -d ends it)"
	[ "$(grep -c ': live' "$T/err")" -eq 1 ] && [ "$(grep ': live' "$T/err")" = "$want" ] ||
		{ show; fail "ipcperf $cmd -p: expected one line '$want' on stderr"; }
	grep -q ': live' "$T/err" && [ $(((t1 - t0) / 1000)) -lt $limit_ms ] ||
		{ show; fail "ipcperf $cmd -p: not live within $limit_ms ms ($(((t1 - t0) / 1000)) ms)"; }

	run "$IPCPERF" $cmd -q -p $target -d 0.3 -o "$out"
	expect_status 0 "ipcperf $cmd -q -p $target"
	! grep -q ': live' "$T/err" || { show; fail "ipcperf $cmd -q -p: said it is live"; }
	run "$IPCPERF" $cmd -o "$out" -- true
	expect_status 0 "ipcperf $cmd -- true"
	! grep -q ': live' "$T/err" || { show; fail "ipcperf $cmd -- true: said it is live"; }
done
exit 0
