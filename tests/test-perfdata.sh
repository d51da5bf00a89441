#!/usr/bin/env bash
# Captures in the perf.data format, against perf itself (Debian linux-perf):
#  - a capture written through a session's tap and lib/pd-writer.c
#    (tests/pd-record) of `ipcwork pipe` is private (mode 0600), and
#    `perf script` and `perf report --stdio` read it with exit 0 and nothing on
#    stderr; perf script shows the workload's 18 writes to fd 11 (0xb);
#  - a capture `perf record -e syscalls:sys_enter_write -e
#    syscalls:sys_exit_write -- ipcwork pipe` made is read by our reader,
#    which finds both events with their ids and formats, and the decoder
#    sees the same 18 writes of 9100 bytes;
#  - a capture whose recorder "was killed" reads as partial, with every
#    record; a capture cut at 75% is one error naming the offset.
# Needs root (tracepoints) and perf; skips (77) otherwise, fails under CI=true.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

PD_RECORD=$top_builddir/tests/pd-record
REPLAY=$top_builddir/tests/replay-perfdata

skip_unless_root "recording perf.data captures"
need_exe "$PD_RECORD"
need_exe "$REPLAY"
need_exe "$IPCWORK"
if ! command -v perf >/dev/null 2>&1; then
	[ "${CI:-}" = true ] && fail "CI=true but perf (linux-perf) is not installed"
	skip "perf (linux-perf) is not installed"
fi
make_tmpdir

# The workload: W writes 10 + T 5 + G 3 buffers to fd 11, 9100 bytes in all;
# P0 writes the go byte to fd 13 (tests/ipcwork.c).
WRITES=18
BYTES=9100

# perf's stderr must hold nothing about the file: no error, no warning.
expect_quiet() {
	if [ -s "$T/err" ]; then
		show
		fail "$1 printed on stderr"
	fi
}

# ------------------------------------------------------------ our capture, read by perf
run "$PD_RECORD" -b "ipcperf test payload" -o "$T/ipc.data" -- "$IPCWORK" pipe
expect_status 0 "pd-record -- ipcwork pipe"
[ "$(stat -c %a "$T/ipc.data")" = 600 ] || fail "the capture's mode is $(stat -c %a "$T/ipc.data"), not 600"

run perf script -i "$T/ipc.data"
expect_status 0 "perf script -i (ipcperf capture)"
expect_quiet "perf script -i (ipcperf capture)"
n=$(grep -c 'syscalls:sys_enter_write: fd: 0x0000000b,' "$T/out")
[ "$n" -eq "$WRITES" ] || { show; fail "perf script: $n sys_enter_write of fd 0xb, expected $WRITES"; }
# Every write has its exit, the go byte's included.
n=$(grep -c 'syscalls:sys_exit_write:' "$T/out")
[ "$n" -eq $((WRITES + 1)) ] || { show; fail "perf script: $n sys_exit_write, expected $((WRITES + 1))"; }
# The bytes requested, from perf's own decoding of the raw data.
sum=0
for c in $(sed -n 's/.*syscalls:sys_enter_write: fd: 0x0000000b, .* count: 0x\([0-9a-f]*\)$/\1/p' "$T/out"); do
	sum=$((sum + 16#$c))
done
[ "$sum" -eq "$BYTES" ] || { show; fail "perf script: fd 0xb writes request $sum bytes, expected $BYTES"; }
# Process names come from the capture's COMM records.
grep -q '^ *ipcwork ' "$T/out" || { show; fail "perf script: no line names ipcwork"; }

run perf report -i "$T/ipc.data" --stdio
expect_status 0 "perf report -i (ipcperf capture) --stdio"
expect_quiet "perf report -i (ipcperf capture) --stdio"
grep -q "^# Samples: $((WRITES + 1))  of event 'syscalls:sys_enter_write'" "$T/out" ||
	{ show; fail "perf report: expected $((WRITES + 1)) sys_enter_write samples"; }

# The header: every feature perf knows prints, ipcperf's own is skipped without a word.
run perf report -i "$T/ipc.data" --header-only -I
expect_status 0 "perf report --header-only -I"
expect_quiet "perf report --header-only -I"
grep -q '^# event : name = syscalls:sys_enter_write' "$T/out" || { show; fail "header: no event description"; }
grep -qi 'unknown' "$T/out" && { show; fail "header: perf mentions something unknown"; }

# Our reader on our capture: the payload, the formats, the writes.
run "$REPLAY" --dump "$T/ipc.data"
expect_status 0 "replay-perfdata --dump (ipcperf capture)"
grep -qx 'partial no' "$T/out" || { show; fail "ipcperf capture read as partial"; }
grep -qx 'blob version 1: ipcperf test payload' "$T/out" || { show; fail "ipcperf section lost"; }
grep -qx 'format syscalls:sys_enter_write id [0-9]* decoded' "$T/out" || { show; fail "no sys_enter_write format"; }
grep -qx "writes fd 11: $WRITES, $BYTES bytes requested" "$T/out" || { show; fail "reader: wrong writes to fd 11"; }

# ------------------------------------------------------------ perf's capture, read by us
run perf record -q -o "$T/perf.data" -e syscalls:sys_enter_write -e syscalls:sys_exit_write -- "$IPCWORK" pipe
expect_status 0 "perf record -- ipcwork pipe"
run "$REPLAY" --dump "$T/perf.data"
expect_status 0 "replay-perfdata --dump (perf capture)"
for ev in sys_enter_write sys_exit_write; do
	grep -qx "event syscalls:$ev ids [1-9][0-9]* format yes" "$T/out" ||
		{ show; fail "perf capture: event syscalls:$ev without ids or format"; }
	grep -qx "format syscalls:$ev id [0-9]* decoded" "$T/out" ||
		{ show; fail "perf capture: format of syscalls:$ev not found or not decodable"; }
done
grep -qx 'records [0-9]* samples 38 unparsed 0' "$T/out" || { show; fail "perf capture: expected 38 samples, all parsed"; }
grep -qx "writes fd 11: $WRITES, $BYTES bytes requested" "$T/out" || { show; fail "perf capture: wrong writes to fd 11"; }

# ------------------------------------------------------------ damaged captures
run "$PD_RECORD" -k -o "$T/killed.data" -- "$IPCWORK" pipe
expect_status 0 "pd-record -k -- ipcwork pipe"
run "$REPLAY" --dump "$T/killed.data"
expect_status 0 "replay-perfdata --dump (killed capture)"
grep -qx 'partial yes' "$T/out" || { show; fail "killed capture not read as partial"; }
grep -qx "writes fd 11: $WRITES, $BYTES bytes requested" "$T/out" || { show; fail "killed capture: wrong writes"; }

size=$(stat -c %s "$T/ipc.data")
head -c $((size * 3 / 4)) "$T/ipc.data" >"$T/cut.data"
run "$REPLAY" --dump "$T/cut.data"
expect_status 1 "replay-perfdata --dump (cut at 75%)"
[ "$(grep -c '' "$T/err")" -eq 1 ] || { show; fail "cut capture: expected one error line"; }
grep -q ': offset 0x[0-9a-f]*: ' "$T/err" || { show; fail "cut capture: the error names no offset"; }
exit 0
