#!/usr/bin/env bash
# A server and its client traced together (-p PID -- CMD), at full speed,
# with the default ring size: tests/servework's epoll server on a unix
# socket is started first and traced with -p; its client (50 connections,
# one request in flight on each, ~40k requests/s here, non-blocking I/O on
# epoll) is the command, for 10 s.
#  - stat --json: no event lost; the run ends when the client exits (not
#    the server); the client's unix fds wrote and read exactly the bytes it
#    printed, and the server's read and wrote exactly those;
#  - flows --json: no event lost; one flow each way per connection (100),
#    every byte matched, client -> server and server -> client totals equal
#    to the client's counts, between exactly those two pids; the waits
#    each process's one thread spent in epoll_wait, as its flows carry them
#    (read_wait_ns where it reads, write_wait_ns where it writes), add up to
#    no more than the run (each wait was put on every fd it readied in full:
#    ~310 s of waits in the 10 s run);
#  - record, then report --json: the same bytes on both sides; report
#    --view flows in text: the flows wait on each other (consumer-starved),
#    and the bottleneck line says no process is one because each waits on
#    the other (it said that no flow was held back or starved).
# With the old fixed ring of 512 pages, flows lost ~12,000 events here.
# Needs root and jq.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

SERVEWORK=$top_builddir/tests/servework
need_exe "$SERVEWORK"
live_setup "tracing a server and its client" jq
servework_up

# client_counts: R OUT IN from the client's line in $T/out.
client_counts() {
	read -r _ R _ OUT _ IN < <(grep '^requests ' "$T/out") ||
		{ show; fail "$1: the client printed no counts"; }
	[ "$OUT" -eq $((R * 64)) ] && [ "$IN" -eq $((R * 256)) ] && [ "$R" -gt 1000 ] ||
		{ show; fail "$1: the client's counts do not add up: $R requests, $OUT out, $IN in"; }
}

# unix_bytes JSON PID SIDE: the bytes PID's unix fds moved that way.
unix_bytes() {
	jq --argjson p "$2" "[.processes[] | select(.pid == \$p) | .fds[] |
		select(.kind == \"unix\") | .$3.bytes] | add // 0" "$1"
}

# check_sides WHAT JSON CLIENT_PID: both sides' bytes exact.
check_sides() {
	local got
	for want in "$SP read $OUT" "$SP write $IN" "$3 write $OUT" "$3 read $IN"; do
		set -- "$1" "$2" "$3" $want
		got=$(unix_bytes "$2" "$4" "$5")
		[ "$got" = "$6" ] || { show; fail "$1: pid $4's unix $5 bytes are $got, want $6"; }
	done
}

# The sanitized ipcperf of scripts/run-tests' ASan stage (IPCPERF_SANITIZED)
# reads its rings 2-3x slower: there the client runs 4 connections for 2 s,
# a burst the default rings hold, with every check below the same; the full
# speed (50 connections, 10 s) is the plain build's.
if [ -n "${IPCPERF_SANITIZED:-}" ]; then conns=4 secs=2; else conns=50 secs=10; fi

# --- stat
start=$(date +%s.%N)
run timeout 60 "$IPCPERF" stat --json -o "$T/stat.json" -p "$SP" -- \
	"$SERVEWORK" client "$SOCK" "$conns" 1 "$secs"
end=$(date +%s.%N)
[ "$status" -eq 0 ] || { show; fail "stat -p SERVER -- CLIENT exited $status"; }
kill -0 "$SP" 2>/dev/null || fail "stat: the server is gone: $(cat "$T/server.err")"
awk -v s="$start" -v e="$end" 'BEGIN { exit !(e - s < 30) }' ||
	fail "stat: the run took $(awk -v s="$start" -v e="$end" 'BEGIN { print e - s }') s: it did not end with the client"
client_counts stat
[ "$(jq .lost_events "$T/stat.json")" = 0 ] || { show; fail "stat lost $(jq .lost_events "$T/stat.json") events"; }
CP=$(jq --argjson s "$SP" '[.processes[] | select(.pid != $s and .comm == "servework") | .pid][0]' "$T/stat.json")
[ "$CP" != null ] || fail "stat: no row for the client"
jq -e --argjson s "$SP" '[.processes[].pid] | index($s) != null' "$T/stat.json" >/dev/null ||
	fail "stat: no row for the server"
check_sides stat "$T/stat.json" "$CP"

# --- flows
run timeout 60 "$IPCPERF" flows --json -o "$T/flows.json" -p "$SP" -- \
	"$SERVEWORK" client "$SOCK" "$conns" 1 "$secs"
[ "$status" -eq 0 ] || { show; fail "flows -p SERVER -- CLIENT exited $status"; }
client_counts flows
F=$T/flows.json
[ "$(jq .lost_events "$F")" = 0 ] || { show; fail "flows lost $(jq .lost_events "$F") events"; }
CP=$(jq --argjson s "$SP" '[.flows[].writers[] | select(. != $s)][0]' "$F")
[ "$(jq '.flows | length' "$F")" = $((2 * conns)) ] ||
	fail "flows: $(jq '.flows | length' "$F") flows, want $((2 * conns))"
[ "$(jq '[.flows[] | .unmatched_bytes] | add' "$F")" = 0 ] || fail "flows: unmatched bytes"
to_server=$(jq --argjson s "$SP" --argjson c "$CP" '[.flows[] | select(.writers == [$c] and
	.readers == [$s]) | .bytes] | add' "$F")
to_client=$(jq --argjson s "$SP" --argjson c "$CP" '[.flows[] | select(.writers == [$s] and
	.readers == [$c]) | .bytes] | add' "$F")
[ "$to_server" = "$OUT" ] || fail "flows: client -> server $to_server bytes, want $OUT"
[ "$to_client" = "$IN" ] || fail "flows: server -> client $to_client bytes, want $IN"
# waits_of PID: the epoll waits of PID's flows, ns.
waits_of() {
	jq --argjson p "$1" '[.flows[] | select(.readers == [$p]) | .read_wait_ns] +
		[.flows[] | select(.writers == [$p]) | .write_wait_ns] | add' "$F"
}
D=$(jq .duration_ns "$F")
for P in "$SP" "$CP"; do
	W=$(waits_of "$P")
	[ "$W" -gt 0 ] && [ "$W" -le "$D" ] ||
		fail "flows: pid $P's epoll waits add up to $W ns in a run of $D ns (one thread)"
done

# --- record, report
run timeout 60 "$IPCPERF" record -o "$T/cap.data" -p "$SP" -- "$SERVEWORK" client "$SOCK" 4 1 2
[ "$status" -eq 0 ] || { show; fail "record -p SERVER -- CLIENT exited $status"; }
client_counts record
"$IPCPERF" report --json -i "$T/cap.data" -o "$T/report.json" 2>"$T/err" ||
	{ show; fail "report of the capture failed"; }
[ "$(jq .lost_events "$T/report.json")" = 0 ] || fail "record lost events"
CP=$(jq --argjson s "$SP" '[.processes[] | select(.pid != $s and .comm == "servework") | .pid][0]' \
	"$T/report.json")
check_sides report "$T/report.json" "$CP"
# Its flows in text: requests and answers, each side waiting on the other.
# No bottleneck, and the line says why, not that nothing waits.
"$IPCPERF" report --view flows -i "$T/cap.data" -o "$T/report.txt" 2>"$T/err" ||
	{ show; fail "report --view flows of the capture failed"; }
waiting=$(grep -cE ' (backpressure|consumer-starved)$' "$T/report.txt")
[ "$waiting" -gt 0 ] || { cat "$T/report.txt" >&2; fail "report --view flows: no flow waits"; }
grep -qx "bottleneck: none ($waiting flows held back or starved, each by a process that waits on another flow itself: a cycle, as requests and their answers)" "$T/report.txt" ||
	{ cat "$T/report.txt" >&2; fail "report --view flows: the bottleneck line is not the cycle's"; }

kill "$SP"
wait "$SP" || fail "the server failed: $(cat "$T/server.err")"
exit 0
