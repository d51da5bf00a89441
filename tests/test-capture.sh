#!/usr/bin/env bash
# Captures through the CLI: ipcperf record, stat --record, and report.
#  - one pass of `stat --json --record FILE -- ipcwork pipe --hold 100` prints
#    the live report and writes the capture (mode 0600); `report -i FILE
#    --json` gives the same JSON document, field by field (only exit_status,
#    the command's status, is not in a capture), with the fd objects the live
#    run resolved; perf script and perf report read the capture cleanly;
#  - `ipcperf record` captures give the stat, syscalls and flows views; its
#    calls come from raw_syscalls (perf evlist), perf script shows the 18
#    writes to fd 11, and report gives live stat's fd rows, exactly;
#  - a `perf record` capture of ipcwork gives the exact per-fd ops and bytes
#    (18 writes, 9100 bytes on fd 11; 11 reads, 9100 bytes on fd 10) and says
#    what it cannot give without ipcperf's section;
#  - a record of iowork close-range: close_range ends its fds, the writes
#    of each fd number go to the file of their time;
#  - a capture cut at 75% or at 64 bytes: exit 1, one error line with the
#    offset; a killed recorder's capture reports with a "partial" warning;
#  - rings of one page lose events (50000 getpid calls): the warning of
#    stat -m 1 says "now 1 page per CPU", and report's of a record -m 1
#    capture "this capture: 1 page per CPU" (not its own default of 512);
#  - without -o, record writes ipcperf.data and keeps the last as .old;
#    without -i, report reads it.
# Needs root (tracepoints), jq and perf; skips (77) otherwise, fails under CI=true.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

PD_RECORD=$top_builddir/tests/pd-record
SCWORK=$top_builddir/tests/scwork

skip_unless_root "recording captures"
need_exe "$IPCPERF"
need_exe "$IPCWORK"
need_exe "$PD_RECORD"
need_exe "$SCWORK"
for tool in jq perf; do
	if ! command -v $tool >/dev/null 2>&1; then
		[ "${CI:-}" = true ] && fail "CI=true but $tool is not installed"
		skip "$tool is not installed"
	fi
done
make_tmpdir

# fd_sum JSON FD SIDE FIELD: FIELD of SIDE summed over every process's rows of FD.
fd_sum() {
	jq "[.processes[].fds[]? | select(.fd == $2) | .$3.$4] | add // 0" "$1"
}

# ------------------------------------------------------------ one pass: live and capture
run "$IPCPERF" stat -q --json --record "$T/cap.data" -- "$IPCWORK" pipe --hold 100
expect_status 0 "stat --json --record -- ipcwork pipe --hold 100"
cp "$T/out" "$T/live.json"
[ "$(stat -c %a "$T/cap.data")" = 600 ] || fail "the capture's mode is $(stat -c %a "$T/cap.data"), not 600"
jq -e . "$T/live.json" >/dev/null || { show; fail "stat --json is not JSON"; }
[ "$(fd_sum "$T/live.json" 11 write ops)" -eq 18 ] || { show; fail "live: not 18 writes on fd 11"; }
[ "$(fd_sum "$T/live.json" 11 write bytes)" -eq 9100 ] || { show; fail "live: not 9100 bytes on fd 11"; }

run "$IPCPERF" report -i "$T/cap.data" --json
expect_status 0 "report -i (stat --record capture) --json"
[ -s "$T/err" ] && { show; fail "report of a complete ipcperf capture printed on stderr"; }
cp "$T/out" "$T/report.json"
# Field by field: the same document but for the command's exit status.
jq -S 'del(.exit_status)' "$T/live.json" >"$T/live.norm"
jq -S 'del(.exit_status)' "$T/report.json" >"$T/report.norm"
if ! diff -u "$T/live.norm" "$T/report.norm" >"$T/diff"; then
	head -n 60 "$T/diff" >&2
	fail "report --json differs from the live stat --json of the same pass"
fi
# The identities came from the capture (a replay never reads /proc): the pipe is named.
jq -e '[.processes[].fds[]? | select(.fd == 11) | .kind] | all(. == "pipe")' "$T/report.json" \
	>/dev/null || fail "report: fd 11 is not known as a pipe"

# The CSV view and the text view of the same capture.
run "$IPCPERF" report -i "$T/cap.data" -x ,
expect_status 0 "report -x ,"
grep -q '^fd,' "$T/out" || { show; fail "report -x ,: no fd rows"; }
run "$IPCPERF" report -i "$T/cap.data" -o "$T/report.txt"
expect_status 0 "report -o FILE"
grep -q "^ipcperf stat: capture $T/cap.data" "$T/report.txt" || fail "report -o: no text header"

# perf reads the capture without a word on stderr.
run perf script -i "$T/cap.data"
expect_status 0 "perf script -i (stat --record capture)"
[ -s "$T/err" ] && { show; fail "perf script printed on stderr"; }
grep -q 'syscalls:sys_enter_write: fd: 0x0000000b' "$T/out" || { show; fail "perf script: no write to fd 11"; }
run perf report -i "$T/cap.data" --stdio
expect_status 0 "perf report -i (stat --record capture) --stdio"
[ -s "$T/err" ] && { show; fail "perf report printed on stderr"; }

# ------------------------------------------------------------ ipcperf record
run "$IPCPERF" record -o "$T/rec.data" -s -- "$IPCWORK" pipe
expect_status 0 "record -o -s -- ipcwork pipe"
grep -q "wrote $T/rec.data: [1-9][0-9]* records" "$T/err" || { show; fail "record: no summary"; }
for view in stat syscalls flows; do
	run "$IPCPERF" report -i "$T/rec.data" --view $view --json
	expect_status 0 "report --view $view --json"
	jq -e . "$T/out" >/dev/null || { show; fail "report --view $view --json is not JSON"; }
done
run "$IPCPERF" report -i "$T/rec.data" --view syscalls --json
jq -e '[.processes[].syscalls[]? | select(.name == "pipe2")] | length > 0' "$T/out" >/dev/null ||
	{ show; fail "report --view syscalls of record -s: no pipe2"; }
run "$IPCPERF" report -i "$T/rec.data" --view flows --dot "$T/g.dot"
expect_status 0 "report --view flows --dot"
grep -q '^digraph' "$T/g.dot" || fail "report --dot: no graph"
# -d ends the capture while the command runs: with --keep-running the
# capture is written and said, then record waits for the command and exits
# with its status.
run "$IPCPERF" record -o "$T/d.data" -d 0.2 --keep-running -- sh -c 'sleep 1; exit 4'
expect_status 4 "record -d 0.2 --keep-running -- (a command that outlives the capture)"
grep -q "^ipcperf: wrote $T/d.data: " "$T/err" || { show; fail "record -d: no summary line"; }
grep -q 'waiting for the command to exit' "$T/err" ||
	{ show; fail "record -d: no note that it waits for the command"; }
run "$IPCPERF" report -i "$T/d.data"
expect_status 0 "report -i (a capture that -d ended)"
run "$IPCPERF" report -i "$T/rec.data" --dot "$T/g.dot"
expect_status 2 "report --dot without --view flows"

# ------------------------------------------------------------ record: raw_syscalls, the live numbers
# The calls come from raw_syscalls with an id filter (2 tracepoints, not an
# enter/exit pair per call, whose closes took 3 s): perf reads them, and the
# report gives what live stat gives of the same workload, fd by fd.
fd_rows='[.processes[] | {comm, fds: [.fds[]? | {fd, kind, r: .read.ops, rb: .read.bytes,
	w: .write.ops, wb: .write.bytes}]}] | sort_by(.comm, .fds)'
run "$IPCPERF" stat -q --json -- "$IPCWORK" pipe
expect_status 0 "stat --json -- ipcwork pipe"
jq -S "$fd_rows" "$T/out" >"$T/live-rows"
run "$IPCPERF" record -q -o "$T/raw.data" -- "$IPCWORK" pipe
expect_status 0 "record -q -- ipcwork pipe"
run perf evlist -i "$T/raw.data"
expect_status 0 "perf evlist -i (record capture)"
grep -qx 'raw_syscalls:sys_enter' "$T/out" && grep -qx 'raw_syscalls:sys_exit' "$T/out" ||
	{ show; fail "record: no raw_syscalls events in the capture"; }
grep -q '^syscalls:' "$T/out" && { show; fail "record: per-syscall tracepoints in the capture"; }
run perf script -i "$T/raw.data"
expect_status 0 "perf script -i (record capture)"
[ -s "$T/err" ] && { show; fail "perf script (record capture) printed on stderr"; }
if [ "$(uname -m)" = x86_64 ]; then	# write is call 1 there
	n=$(grep -c 'raw_syscalls:sys_enter: NR 1 (b,' "$T/out")
	[ "$n" -eq 18 ] || { show; fail "perf script (record capture): $n writes to fd 11, not 18"; }
fi
# A process that ran before the capture has its name in it, as perf record
# writes it: perf script names its records (not ":PID").
sh -c 'while :; do echo x >/dev/null; sleep 0.02; done' &
loop=$!
run "$IPCPERF" record -q -o "$T/pre.data" -p "$loop" -d 0.3
kill "$loop"
expect_status 0 "record -p (a process started before)"
run perf script -i "$T/pre.data"
expect_status 0 "perf script -i (record -p capture)"
grep -Eq "^ +sh +$loop +\[" "$T/out" || { show; fail "perf script: the records of $loop are not named sh"; }
grep -q ":$loop " "$T/out" && { show; fail "perf script: records of $loop without its name"; }
run "$IPCPERF" report -i "$T/raw.data" --json
expect_status 0 "report -i (record capture) --json"
[ "$(fd_sum "$T/out" 11 write ops)" -eq 18 ] || { show; fail "record: not 18 writes on fd 11"; }
[ "$(fd_sum "$T/out" 11 write bytes)" -eq 9100 ] || { show; fail "record: not 9100 bytes on fd 11"; }
[ "$(fd_sum "$T/out" 10 read ops)" -eq 11 ] || { show; fail "record: not 11 reads on fd 10"; }
jq -S "$fd_rows" "$T/out" >"$T/rec-rows"
diff -u "$T/live-rows" "$T/rec-rows" >"$T/diff" || { cat "$T/diff" >&2; fail "record: fds differ from live stat"; }

# ------------------------------------------------------------ record: close_range
# The capture holds close_range (iowork close-range: fds 20 to 23 closed by
# it, 20 to 22 given out again by pipe2 and open, a write to the closed fd
# 23): report ends the fds of its range there, as live stat does, and the
# bytes and errors of each fd number stay with the file of their time.
IOWORK=$top_builddir/tests/iowork
need_exe "$IOWORK"
run "$IPCPERF" record -q -o "$T/cr.data" -- "$IOWORK" close-range
expect_status 0 "record -q -- iowork close-range"
run "$IPCPERF" report -i "$T/cr.data" --json
expect_status 0 "report -i (close-range capture) --json"
got=$(jq -c '[.processes[] | select(.comm == "iowork") | .fds[] | select(.fd >= 20 and .fd <= 23)
	| select(.write.ops > 0) | [.fd, .write.ops, .write.bytes, .write.errors]] | sort' "$T/out")
want='[[20,2,10,0],[21,1,11,0],[22,1,6,0],[22,1,7,0],[23,1,0,1],[23,1,3,0]]'
[ "$got" = "$want" ] || { show; fail "report of close-range: writes by fd $got, not $want"; }

# ------------------------------------------------------------ lost events: the ring size
# A record a call (the calls' samples, not their sums in the kernel, whose
# records a page now holds): 100,000 samples overflow a ring of 1 page.
run timeout 120 "$IPCPERF" stat -m 1 -s --syscall-samples -- "$SCWORK" loop 50000
expect_status 0 "stat -m 1 -s --syscall-samples -- scwork loop 50000"
grep -Eq '^ipcperf: warning: [0-9]+ events lost: .*; raise the ring size with -m \(now 1 page per CPU\)$' \
	"$T/err" || { show; fail "stat -m 1: the lost-events hint does not say 1 page"; }
run timeout 120 "$IPCPERF" record -m 1 -s -o "$T/m1.data" -- "$SCWORK" loop 50000
expect_status 0 "record -m 1 -s -- scwork loop 50000"
run "$IPCPERF" report -i "$T/m1.data"
expect_status 0 "report of a record -m 1 capture"
grep -Eq '^ipcperf: warning: [0-9]+ events lost: .*; record with a larger -m \(this capture: 1 page per CPU\)$' \
	"$T/err" || { show; fail "report of a -m 1 capture: the hint does not give its 1 page"; }
rm -f "$T/m1.data"

# ------------------------------------------------------------ perf's capture
run perf record -q -o "$T/perf.data" -e syscalls:sys_enter_write -e syscalls:sys_exit_write \
	-e syscalls:sys_enter_read -e syscalls:sys_exit_read -- "$IPCWORK" pipe
expect_status 0 "perf record -- ipcwork pipe"
run "$IPCPERF" report -i "$T/perf.data" --json
expect_status 0 "report -i (perf record capture)"
grep -q 'no ipcperf section.*fd objects and kinds are unknown' "$T/err" ||
	{ show; fail "report of a perf capture: no word on what it cannot give"; }
for check in "11 write ops 18" "11 write bytes 9100" "10 read ops 11" "10 read bytes 9100"; do
	set -- $check
	got=$(fd_sum "$T/out" "$1" "$2" "$3")
	[ "$got" -eq "$4" ] || { show; fail "perf capture: fd $1 $2 $3 is $got, expected $4"; }
done

# ------------------------------------------------------------ damaged captures
size=$(stat -c %s "$T/cap.data")
head -c $((size * 3 / 4)) "$T/cap.data" >"$T/cut.data"
head -c 64 "$T/cap.data" >"$T/cut64.data"
for cut in cut cut64; do
	run "$IPCPERF" report -i "$T/$cut.data" --json
	expect_status 1 "report of $cut.data"
	[ "$(grep -c '' "$T/err")" -eq 1 ] || { show; fail "$cut.data: expected one error line"; }
	grep -q "$cut.data: offset 0x[0-9a-f]*: " "$T/err" || { show; fail "$cut.data: no offset"; }
	[ -s "$T/out" ] && { show; fail "$cut.data: a report was printed"; }
done

# A recorder that never finishes its file (tests/pd-record -k) ...
run "$PD_RECORD" -k -o "$T/killed.data" -- "$IPCWORK" pipe
expect_status 0 "pd-record -k"
run "$IPCPERF" report -i "$T/killed.data" --json
expect_status 0 "report of a killed recorder's capture"
grep -q 'partial' "$T/err" || { show; fail "killed capture: no partial warning"; }
[ "$(fd_sum "$T/out" 11 write bytes)" -eq 9100 ] || { show; fail "killed capture: wrong bytes"; }
# ... and ipcperf record itself, killed with SIGKILL once it has written something.
"$IPCPERF" record -q -o "$T/kill9.data" -- "$IPCWORK" pipe --hold 1500 >/dev/null 2>&1 &
rec=$!
for _ in $(seq 50); do
	[ -s "$T/kill9.data" ] && break
	sleep 0.1
done
kill -9 $rec
wait $rec 2>/dev/null
sleep 1.6	# the workload, orphaned, finishes
run "$IPCPERF" report -i "$T/kill9.data"
expect_status 0 "report of a SIGKILLed recorder's capture"
grep -q 'partial capture' "$T/err" || { show; fail "SIGKILLed capture: no partial warning"; }

# Without -o and -i, as perf: record writes ipcperf.data, the last one kept
# as ipcperf.data.old, and report reads ipcperf.data.
ipcperf=$(realpath "$IPCPERF") ipcwork=$(realpath "$IPCWORK")
mkdir "$T/cwd"
(cd "$T/cwd" && "$ipcperf" record -q -- "$ipcwork" pipe) >/dev/null 2>&1 ||
	fail "record without -o"
first=$(stat -c %i "$T/cwd/ipcperf.data")
(cd "$T/cwd" && "$ipcperf" record -q -- "$ipcwork" pipe --hold 10) >/dev/null 2>&1 ||
	fail "record without -o, a second time"
[ "$(stat -c %i "$T/cwd/ipcperf.data.old")" = "$first" ] ||
	fail "the first ipcperf.data is not ipcperf.data.old after the second record"
[ "$(stat -c %a "$T/cwd/ipcperf.data")" = 600 ] || fail "ipcperf.data is not mode 0600"
(cd "$T/cwd" && "$ipcperf" report --json) >"$T/out" 2>"$T/err" || { show; fail "report without -i"; }
[ "$(fd_sum "$T/out" 11 write bytes)" -eq 9100 ] || { show; fail "report without -i: wrong bytes"; }
rm "$T/cwd"/ipcperf.data*
status=0
(cd "$T/cwd" && "$ipcperf" report) >"$T/out" 2>"$T/err" || status=$?
expect_status 2 "report without -i and without ipcperf.data"
grep -q 'give the capture with -i FILE (there is no ipcperf.data here' "$T/err" ||
	{ show; fail "report without a capture: not the one-line hint"; }
# The default file is never followed through a link, nor is the link moved.
ln -s "$T/elsewhere" "$T/cwd/ipcperf.data"
status=0
(cd "$T/cwd" && "$ipcperf" record -q -- true) >"$T/out" 2>"$T/err" || status=$?
expect_status 1 "record onto a symbolic link ipcperf.data"
[ -L "$T/cwd/ipcperf.data" ] && [ ! -e "$T/elsewhere" ] && [ ! -e "$T/cwd/ipcperf.data.old" ] ||
	fail "record followed or moved the link ipcperf.data"
exit 0
