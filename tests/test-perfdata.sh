#!/usr/bin/env bash
# Captures in the perf.data format, against perf itself (Debian linux-perf):
#  - a capture written through a session's tap and lib/capture/pd-writer.c
#    (tests/pd-record) of `ipcwork pipe` is private (mode 0600), and
#    `perf script` and `perf report --stdio` read it with exit 0 and nothing on
#    stderr; perf script shows the workload's 18 writes to fd 11 (0xb);
#  - a capture `perf record -e syscalls:sys_enter_write -e
#    syscalls:sys_exit_write -- ipcwork pipe` made is read by our reader,
#    which finds both events with their ids and formats, and the decoder
#    sees the same 18 writes of 9100 bytes;
#  - a capture whose recorder "was killed" reads as partial, with every
#    record; a capture cut at 75% is one error naming the offset;
#  - the same workload recorded by perf record -z (its records zstd-compressed)
#    and without -z: ipcperf report gives both the same exact writes (it used
#    to give "(no activity)" and exit 0 for the -z capture); the -z capture
#    with its first compressed record's zstd data corrupted, or cut inside that
#    record, is one error line naming the record and exit 1.
# Needs root (tracepoints) and perf; skips (77) otherwise, fails under CI=true.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

PD_RECORD=$top_builddir/tests/pd-record
REPLAY=$top_builddir/tests/replay-perfdata

skip_unless_root "recording perf.data captures"
need_exe "$PD_RECORD"
need_exe "$REPLAY"
need_exe "$IPCWORK"
need_perf
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

# ------------------------------------------------------------ perf record -z, read by ipcperf report
EVENTS=syscalls:sys_enter_write,syscalls:sys_exit_write
run perf record -q -z -o "$T/z.data" -e "$EVENTS" -- "$IPCWORK" pipe
expect_status 0 "perf record -z -- ipcwork pipe"
run perf report -i "$T/z.data" --header-only
grep -q '^# compressed : Zstd' "$T/out" || { show; fail "perf record -z: the capture is not compressed"; }
run perf record -q -o "$T/plain.data" -e "$EVENTS" -- "$IPCWORK" pipe
expect_status 0 "perf record -- ipcwork pipe"

# fds FILE: each process's fds by their writes and reads, "fd ops bytes errors ops bytes", sorted.
fds() {
	run "$IPCPERF" report -i "$1" --json
	expect_status 0 "ipcperf report -i ${1##*/} --json"
	jq -r '.lost_events, (.processes[].fds[] |
		"\(.fd) \(.write.ops) \(.write.bytes) \(.write.errors) \(.read.ops) \(.read.bytes)")' \
		"$T/out" | sort
}
fds "$T/z.data" >"$T/z.fds"
fds "$T/plain.data" >"$T/plain.fds"
# W and T write 10 + 5 buffers to fd 11 in one process, G 3 in another; P0 the go byte to fd 13.
printf '%s\n' 0 "11 15 7000 0 0 0" "11 3 2100 0 0 0" "13 1 1 0 0 0" | sort >"$T/want.fds"
cmp -s "$T/want.fds" "$T/plain.fds" || { diff "$T/want.fds" "$T/plain.fds"; fail "report of perf record: not the workload's writes"; }
cmp -s "$T/want.fds" "$T/z.fds" || { diff "$T/want.fds" "$T/z.fds"; fail "report of perf record -z: not the workload's writes"; }

# The first compressed record of FILE: "offset size".
first_compressed() {
	perl -e 'open(my $f, "<:raw", $ARGV[0]) or die "$ARGV[0]: $!"; local $/; my $d = <$f>;
		my ($at, $size) = unpack("Q<Q<", substr($d, 40, 16)); my $end = $at + $size;
		while ($at + 8 <= $end) { my ($type, $misc, $len) = unpack("Vvv", substr($d, $at, 8));
			if ($type == 81) { print "$at $len\n"; exit 0 } last if $len < 8; $at += $len }
		exit 1' "$1"
}
read -r at len < <(first_compressed "$T/z.data") || fail "perf record -z: no COMPRESSED record in the capture"
hex=$(printf '%x' "$at")
cp "$T/z.data" "$T/zbad.data"
# Its zstd data: the frame's magic, 28 b5 2f fd, turned into 00 00 00 00.
printf '\0\0\0\0' | dd of="$T/zbad.data" bs=1 seek=$((at + 8)) conv=notrunc status=none
head -c $((at + len / 2)) "$T/z.data" >"$T/zcut.data"
for f in zbad zcut; do
	run "$IPCPERF" report -i "$T/$f.data"
	expect_status 1 "ipcperf report -i $f.data"
	[ -s "$T/out" ] && { show; fail "$f.data: a report was printed"; }
	grep -v '^ipcperf: warning: ' "$T/err" >"$T/errors"
	[ "$(grep -c '' "$T/errors")" -eq 1 ] || { show; fail "$f.data: expected one error line"; }
	grep -q "^ipcperf: $T/$f.data: offset 0x$hex: record type 81 (COMPRESSED)" "$T/errors" ||
		{ show; fail "$f.data: the error does not name the COMPRESSED record at 0x$hex"; }
done

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
