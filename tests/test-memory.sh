#!/usr/bin/env bash
# A tracer left running keeps bounded memory (doc/accuracy.md, "Memory"):
# the closed fds' incarnations are folded into their rows and freed.
# bench/open-loop opens and closes one file N times; ipcperf stat traces it
# with its default options, once with N = 100,000 and once with N = 1,000,000.
#  - the peak anonymous RSS of ipcperf (RssAnon, sampled every 5 ms: its
#    own memory, not the pages of the kernel's rings, which it touches the
#    further into them the further behind it is) after 1M open/close is
#    within 10 MB of the peak after 100k (before the fold: 51 MB and 427 MB);
#  - both runs lose nothing; the N + 1 incarnations of the file's fd make
#    one row, no fd is unknown, and openat and close are counted exactly.
# Short-lived processes: `stat -- sh -c 'for ...; do /bin/true; done'` with
# 500 and 3,000 of them: an exited process keeps its rows, not its fds'
# state nor dense histograms; the peak anonymous RSS after 3,000 is within 25 MB of
# the peak after 500 (10 KB a process; before: 48 KB a process, +120 MB).
# A connection per request: `stat -- connwork tcp N` (a client and a server,
# both traced, N connections one after the other) with N = 1,000 and
# 10,000: the text report's closed connections fold into their groups;
# the peak anonymous RSS after 10,000 is within 6 MB of the peak after 1,000 (before:
# +13 MB), and each side's group is exact ("10000 conns", the bytes). Under
# flows --json, 6,000 and 60,000 connections: the closed ones' flows fold
# into their groups, the peak anonymous RSS after 60,000 is within 10 MB of
# the peak after 6,000 (before: 40 MB and 224 MB), the groups exact. The
# same bounds hold under -I with --json (stat: 3,000 and 30,000; flows:
# 6,000 and 60,000), and the intervals add up to the totals.
# Needs root, jq and a C compiler ($CC) for bench/open-loop.c.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

live_setup "tracing open-loop" jq
# Its peaks and its million calls a second are moved by any test beside it:
# it runs near the end of the suite (Makefile.am) and waits for the others,
# but the saturation test, which waits for it in turn.
run_alone 'test-signals-all'
# Under AddressSanitizer freed memory waits in a quarantine (256 MB): that
# would be the sanitizer's growth, not ipcperf's (asan_setup turns it off).
# Even without it, the sanitizer's allocator keeps what each size class ever
# held and adds its shadow: with the same ipcperf, 10,000 connections peaked
# 0.5 to 8.6 MB above 1,000 under ASan, and 0.1 MB below them with the C
# library's allocator. The peak-RSS bounds are ipcperf's own: they are held
# where it runs on the C library's allocator (scripts/run-tests stage 1);
# under ASan the same runs are made and checked for exactness, and their
# peaks printed.
asan_setup
# Under ASan ipcperf reads more slowly than open-loop makes a million calls
# on a CPU of its own (700,000 records lost, run alone): there the runs share
# one CPU, so that the workload waits while the reader reads, and the counts
# can be checked exactly.
pin=
$asan && pin="taskset -c $(taskset -pc $$ | sed 's/.*: //; s/[,-].*//')"

# again LARGE SMALL LIMIT-KB RUN: LARGE is more than LIMIT-KB above SMALL in
# run RUN of 3, and another run is left: a peak is a moment, and one of the
# suite's other tests beside this one can keep ipcperf behind its target for
# that moment (its merge and rings then hold more), as it can make a live
# capture lose records; so the pair of runs is made again, as the live tests
# make a run again that lost events. The bound is the same for each run.
again() {
	[ "$1" -gt $(($2 + $3)) ] && [ "$4" -lt 3 ] && ! $asan || return 1
	echo "peak anonymous RSS $1 KiB against $2 (run $4 of 3, more than $3 KiB apart): made again"
}

# within LARGE SMALL LIMIT-KB WHAT: LARGE is at most LIMIT-KB above SMALL,
# or the test fails with WHAT (printed only under ASan).
within() {
	[ "$1" -le $(($2 + $3)) ] && return 0
	$asan && { echo "ASan's allocator: $4 (not held under ASan)"; return 0; }
	fail "$4"
}
CC=${CC:-cc}
"$CC" -O2 -o "$T/open-loop" "$top_srcdir/bench/open-loop.c" ||
	fail "$CC cannot build bench/open-loop.c"
MAXRSS=$top_builddir/tests/maxrss
need_exe "$MAXRSS"

# peak_run WHAT CMD...: run CMD (ipcperf under maxrss), which must exit 0;
# its peak anonymous RSS in KiB in $kb.
peak_run() {
	local what=$1
	shift
	run "$@"
	expect_status 0 "$what"
	kb=$(sed -n 's/^maxanon \([0-9]*\)$/\1/p' "$T/err")
	[ -n "$kb" ] || { show; fail "$what: no peak anonymous RSS"; }
}

# lost_again WHAT JSON RUN: the run of JSON lost no event; one that did is
# made again (returns 2) while RUN is below 3, and fails at the third.
lost_again() {
	[ "$(jq -r .lost_events "$2")" = 0 ] && return 0
	[ "$3" -lt 3 ] || fail "$1: events were lost"
	echo "$1: events lost (run $3 of 3): made again" >&2
	return 2
}

# rss N [RUN]: ipcperf stat of open-loop N; its peak anonymous RSS in KiB on
# stdout. A run that lost events (the suite's load, the sanitized build's
# pace) says so and returns 2 while RUN is below 3: the pair is made again.
rss() {
	local kb
	peak_run "stat -- open-loop $1" $pin "$MAXRSS" "$IPCPERF" stat -q -j -o "$T/stat-$1.json" -- \
		"$T/open-loop" "$1"
	lost_again "open-loop $1" "$T/stat-$1.json" "${2:-3}" || return 2
	# fd 3: ld.so.cache, then libc, then the file N + 1 times (one untimed
	# open first): one row for the file, whatever N; no fd unknown
	got=$(jq -r --arg f "$T/open-loop" '.processes[] | select(.comm == "open-loop") |
		[([.fds[] | select(.fd == 3 and .object == $f)] | length),
		 ([.fds[] | select(.object == "unknown")] | length),
		 (.syscalls[] | select(.name == "openat" or .name == "close") |
		  "\(.name)=\(.calls)")] | map(tostring) | join(" ")' "$T/stat-$1.json")
	[ "$got" = "1 0 openat=$(($1 + 3)) close=$(($1 + 3))" ] ||
		fail "open-loop $1: '$got', not '1 0 openat=$(($1 + 3)) close=$(($1 + 3))'"
	echo "$kb"
}

# peaks FN FEW MANY LIMIT-KB: the peaks of FN FEW and FN MANY in $few and
# $many; FN returns 2 for a run that is made again (events lost), and the
# pair is made again as again() says.
peaks() {
	local run r
	for run in 1 2 3; do
		r=0
		few=$($1 "$2" $run) && many=$($1 "$3" $run) || r=$?
		[ $r -eq 2 ] && continue
		[ $r -eq 0 ] || exit 1
		again "$many" "$few" "$4" $run || break
	done
}

peaks rss 100000 1000000 10240
within "$many" "$few" 10240 \
	"peak anonymous RSS $many KiB after 1M open/close, $few KiB after 100k: more than 10 MB apart"
echo "peak anonymous RSS: $few KiB after 100k open/close, $many KiB after 1M"

# peak N CMD...: ipcperf stat's peak anonymous RSS (KiB) tracing CMD, the text report in $T/peak-N.txt
peak() {
	local n=$1 kb
	shift
	peak_run "stat -- $*" $pin "$MAXRSS" "$IPCPERF" stat -q -o "$T/peak-$n.txt" -- "$@"
	grep -q '^lost events: 0,' "$T/peak-$n.txt" || fail "stat -- $*: events were lost"
	echo "$kb"
}

# Each process holds a copy of the fds it inherits (the test harness's and
# make's jobserver pipes among them: from 3 to 9 here), and so does its row:
# the loops run with 0, 1 and 2 only, so that the bound is ipcperf's, the
# same wherever the suite runs.
loop='for fd in /proc/self/fd/*; do fd=${fd##*/}
	[ "$fd" -gt 2 ] && eval "exec $fd>&-"; done 2>/dev/null
	for i in $(seq "$0"); do /bin/true; done'
for run in 1 2 3; do
	few=$(peak p500 bash -c "$loop" 500) || exit 1
	many=$(peak p3000 bash -c "$loop" 3000) || exit 1
	again "$many" "$few" 25600 $run || break
done
within "$many" "$few" 25600 \
	"peak anonymous RSS $many KiB after 3,000 processes, $few KiB after 500: more than 25 MB apart"
echo "peak anonymous RSS: $few KiB after 500 processes, $many KiB after 3,000"

need_exe "$top_builddir/tests/connwork"
for run in 1 2 3; do
	few=$(peak c1000 "$top_builddir/tests/connwork" tcp 1000 --out "$T/c1000.out") || exit 1
	many=$(peak c10000 "$top_builddir/tests/connwork" tcp 10000 --out "$T/c10000.out") || exit 1
	again "$many" "$few" 6144 $run || break
done
within "$many" "$few" 6144 \
	"peak anonymous RSS $many KiB after 10,000 connections, $few KiB after 1,000: more than 6 MB apart"
# each side's connections: one group, exact (the client reads 200 a connection, the server 100)
for want in "-> 127.0.0.1:[0-9]* connwork\[[0-9]*\] *10000 *2000000 .* 10000 *1000000 .* 10000 conns" \
	    "127.0.0.1:[0-9]* <- connwork\[[0-9]*\] *10000 *1000000 .* 10000 *2000000 .* 10000 conns"; do
	grep -q -- "$want" "$T/peak-c10000.txt" ||
		{ cat "$T/peak-c10000.txt" >&2; fail "10,000 connections: no row '$want'"; }
done
echo "peak anonymous RSS: $few KiB after 1,000 connections, $many KiB after 10,000"

# stat -I --json of the same, 3,000 and 30,000 connections: under -I (and
# --listen, --openmetrics) the closed connections' rows fold too, a row a
# group ("fd": -1, "folded_conns"), in the totals and in each interval.
# The peak anonymous RSS after 30,000 is within 6 MB of the peak after
# 3,000 (before: 29 MB and 136 MB, every row kept in the totals and in the
# intervals' accounting); the totals are exact (each side's connections,
# rows and folded, and their bytes); the intervals add up to the totals,
# per process, call for call and byte for byte.
ipeak() {
	local kb
	peak_run "stat -I -- connwork tcp $1" $pin "$MAXRSS" "$IPCPERF" stat -q -I 100 --json \
		-o "$T/istat-$1.json" -- "$top_builddir/tests/connwork" tcp "$1" --out "$T/i$1.out"
	jq -s '.[-1]' "$T/istat-$1.json" > "$T/istat-$1.total.json" || fail "stat -I --json: not JSON"
	lost_again "stat -I -- connwork tcp $1" "$T/istat-$1.total.json" "${2:-3}" || return 2
	echo "$kb"
}
# iexact N: the totals and the intervals of stat -I of connwork tcp N, to the byte
iexact() {
	local got want
	got=$(jq -r '[.processes[] | select(.comm == "connwork") |
		[.fds[] | select(.kind == "tcp" and .read.ops + .write.ops > 0)] |
		"\(map(.folded_conns // 1) | add)/\(map(.read.bytes) | add)/\(map(.write.bytes) | add)/\(map(select(.folded_conns)) | length)"]
		| sort | join(" ")' "$T/istat-$1.total.json")
	want="$1/$((100 * $1))/$((200 * $1))/1 $1/$((200 * $1))/$((100 * $1))/1"
	[ "$got" = "$want" ] || fail "stat -I of $1 connections: '$got', not '$want' (connections/read/written/folds)"
	got=$(jq -s -r 'def sums: [.processes[] | select(.comm == "connwork") | .pid as $p |
			.fds[] | select(.kind == "tcp") | [$p, .read.ops, .read.bytes, .write.ops, .write.bytes]]
			| group_by(.[0]) | map([.[0][0], (transpose[1:][] | add)]);
		if (.[:-1] | map(sums[]) | group_by(.[0]) | map([.[0][0], (transpose[1:][] | add)])) ==
		   (.[-1] | sums) then "equal" else "differ" end' "$T/istat-$1.json")
	[ "$got" = equal ] || fail "stat -I of $1 connections: the intervals do not add up to the totals"
}
peaks ipeak 3000 30000 6144
within "$many" "$few" 6144 \
	"stat -I: peak anonymous RSS $many KiB after 30,000 connections, $few KiB after 3,000: more than 6 MB apart"
iexact 3000
iexact 30000
echo "stat -I peak anonymous RSS: $few KiB after 3,000 connections, $many KiB after 30,000"

# flows --json of the same, 6,000 and 60,000 connections: a closed
# connection's two flows fold into their groups once more than 4,096 flows
# are kept (doc/accuracy.md, "Memory"), and its fd rows into theirs; the peak
# anonymous RSS after 60,000 is within 10 MB of the peak after 6,000 (before
# the fold: 40 MB and 224 MB, ~3.6 KB a connection), nothing is lost, and
# the groups are exact: the flows listed and folded are two a connection,
# the bytes 100 a connection one way and 200 the other.
# Its client and server make 60,000 connections as fast as a CPU of their
# own lets them (7,000 a second here, 14 records each): on a loaded machine
# ipcperf, with a share of the other CPU, falls behind and loses records.
# The runs share one CPU, so that the workload waits while ipcperf reads
# (0 lost; unpinned, under a load of 10: 400,000 lost, and 0 when alone).
fpin="taskset -c $(taskset -pc $$ | sed 's/.*: //; s/[,-].*//')"
# fpeak N [RUN]: the peak anonymous RSS (KiB) of flows --json of connwork tcp N;
# a run that lost events returns 2 while RUN is below 3 (made again).
# $fargs: more options (-I).
fargs=
fpeak() {
	local kb
	peak_run "flows $fargs -- connwork tcp $1" $fpin "$MAXRSS" "$IPCPERF" flows -q $fargs --json \
		-o "$T/flows-$1.json" -- "$top_builddir/tests/connwork" tcp "$1" --out "$T/f$1.out"
	lost_again "flows -- connwork tcp $1" "$T/flows-$1.json" "${2:-3}" || return 2
	echo "$kb"
}
# fexact N: the flows and groups of connwork tcp N, to the byte (the two
# groups by their bytes: a request and its answer make a cycle, whose
# stages do not order them)
fexact() {
	local port got want
	port=$(awk '$1 == "port" { print $2 }' "$T/f$1.out")
	got=$(jq -r '[.lost_events, ([.flows[] | if .folded > 0 then .folded else 1 end] | add),
		([.flows[].bytes] | add), ([.flows[].unmatched_bytes] | add), (.folded_flows > 0),
		(.flow_groups | sort_by(.bytes)[] |
		 "\(.endpoint) \(.flows) \(.bytes) \(.writes) \(.reads) \(.matches)")]
		| map(tostring) | join(" ")' "$T/flows-$1.json")
	want="0 $((2 * $1)) $((300 * $1)) 0 true 127.0.0.1:$port $1 $((100 * $1)) $1 $1 $1"
	want="$want 127.0.0.1:$port $1 $((200 * $1)) $1 $1 $1"
	[ "$got" = "$want" ] || fail "flows of $1 connections: '$got', not '$want'"
}
peaks fpeak 6000 60000 10240
within "$many" "$few" 10240 \
	"flows: peak anonymous RSS $many KiB after 60,000 connections, $few KiB after 6,000: more than 10 MB apart"
fexact 6000
fexact 60000
echo "flows peak anonymous RSS: $few KiB after 6,000 connections, $many KiB after 60,000"

# flows -I --json, the same: the intervals' objects wait for the document in
# a temporary file, not in memory (before: 51 MB after 6,000 connections and
# 164 MB after 60,000, every interval's flows kept as text); the peaks
# within 10 MB, the whole run exact as above, and the intervals' groups add
# up to the run's, byte for byte.
fargs="-I 100"
peaks fpeak 6000 60000 10240
within "$many" "$few" 10240 \
	"flows -I: peak anonymous RSS $many KiB after 60,000 connections, $few KiB after 6,000: more than 10 MB apart"
for n in 6000 60000; do
	fexact $n
	got=$(jq -r 'def s: [.flow_groups[] | [.bytes, .writes, .reads, .matches]] | transpose | map(add);
		[(.intervals | length > 1), (s == ([.intervals[] | s] | transpose | map(add)))]
		| map(tostring) | join(" ")' "$T/flows-$n.json")
	[ "$got" = "true true" ] || fail "flows -I of $n connections: the intervals do not add up ('$got')"
done
echo "flows -I peak anonymous RSS: $few KiB after 6,000 connections, $many KiB after 60,000"
