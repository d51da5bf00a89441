#!/usr/bin/env bash
# ipcperf flows -p of a busy server whose clients are not traced (issue 41:
# a soak of half an hour must keep a flat RSS). tests/connwork's server
# (`connwork listen N`) is traced alone; its client (`connwork connect`)
# runs apart, untraced: N connections one after another, 100 bytes to the
# server and 200 back on each.
#  - 6,000 and 60,000 connections, `flows -I 200 --json`: a closed
#    connection's two flows fold into their groups though their client
#    side made no traced call (its process, named from the row of the
#    server's end, is part of the group), and the fd rows fold into theirs;
#    the peak anonymous RSS after 60,000 is within 10 MB of the peak after
#    6,000 (before: 122 MB and 263 MB, 218,061 events lost), nothing is
#    lost, and the server's flows are exact: N connections each way, 100
#    bytes a connection read (unmatched: no traced write put them in) and
#    200 written, all in the groups of the server's address, whose
#    untraced side is the client's process or, where its socket was gone
#    before anyone could look, not known; the text report (60,000, no -I)
#    the same.
#  - `connwork tcp 3000 --hold`, its server alone traced: the client keeps
#    its ends open, so that each one's process can be found. 6,000 flows:
#    more than 4,096, so the closed ones fold; every flow, folded or not,
#    names the client as its untraced side, and each way is one group of
#    3,000 connections with exact bytes, in the JSON and in the text.
# Needs root, BPF fd identity (the connections close in microseconds) and jq.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

MAXRSS=$top_builddir/tests/maxrss
need_exe "$MAXRSS"
skip_unless_root "flows of live processes"
bpf_setup "$CONNWORK" jq
# Its peaks are moved by any test beside it (test-memory.sh says why).
run_alone 'test-signals-all'
# Under AddressSanitizer the peaks are the sanitizer allocator's (it keeps
# what each size class ever held, and its shadow): as in test-memory.sh,
# the bound is held where ipcperf runs on the C library's allocator, and
# under ASan the runs are made and checked for exactness, their peaks
# printed.
asan_setup
# The tracer and the workload share one CPU, so that the workload waits
# while the tracer reads (test-memory.sh: 60,000 connections lose records
# on a loaded machine otherwise).
pin="taskset -c $(taskset -pc $$ | sed 's/.*: //; s/[,-].*//')"

# soak N RUN OPTION...: flows -p of `connwork listen N` with OPTION..., its
# client apart; the output in $T/s-N.out, the peak anonymous RSS (KiB) on
# stdout, the pids and port in $T/srv-N, $T/cli-N. A run that lost events
# returns 2 while RUN is below 3 (made again).
soak() {
	local n=$1 r=$2 spid fpid kb port
	shift 2
	rm -f "$T/srv-$n" "$T/cli-$n" "$T/f-$n.err" "$T/s-$n.out"
	$pin "$CONNWORK" listen "$n" --out "$T/srv-$n" 2>"$T/srv-$n.err" &
	spid=$!
	filled "$T/srv-$n" || fail "connwork listen wrote no port: $(cat "$T/srv-$n.err")"
	port=$(info "$T/srv-$n" port)
	$pin "$MAXRSS" "$IPCPERF" flows -m 8192 "$@" -o "$T/s-$n.out" \
		-p "$(info "$T/srv-$n" server)" 2>"$T/f-$n.err" &
	fpid=$!
	wait_live "$T/f-$n.err"
	$pin "$CONNWORK" connect "$port" "$n" --out "$T/cli-$n" 2>"$T/cli-$n.err" ||
		fail "connwork connect failed: $(cat "$T/cli-$n.err")"
	wait $spid || fail "connwork listen failed: $(cat "$T/srv-$n.err")"
	wait $fpid || fail "flows -p of connwork listen $n ended with $?: $(cat "$T/f-$n.err")"
	kb=$(sed -n 's/^maxanon \([0-9]*\)$/\1/p' "$T/f-$n.err")
	[ -n "$kb" ] || fail "flows -p of $n connections: no peak anonymous RSS"
	if grep -q 'events lost' "$T/f-$n.err"; then
		[ "$r" -lt 3 ] || fail "flows -p of $n connections: events were lost"
		echo "flows -p of $n connections: events lost (run $r of 3): made again" >&2
		return 2
	fi
	echo "$kb"
}

# exact_json N: the server's flows of $T/s-N.out (JSON), to the byte, and its groups.
exact_json() {
	local n=$1 srv cli port got want
	srv=$(info "$T/srv-$n" server)
	cli=$(info "$T/cli-$n" client)
	port=$(info "$T/srv-$n" port)
	got=$(jq -c --argjson s "$srv" '
		def conns: map(if .folded > 0 then .folded else 1 end) | add;
		[.lost_events, (.folded_flows > 0),
		 ([.flows[] | select(.readers == [$s] and .writers == [])] |
		  [conns, (map(.bytes) | add), (map(.unmatched_bytes) | add)]),
		 ([.flows[] | select(.writers == [$s] and .readers == [])] |
		  [conns, (map(.bytes_written) | add)]),
		 ([.flows[] | select(.writers != [$s] and .readers != [$s])] | length)]' "$T/s-$n.out")
	want="[0,true,[$n,$((100 * n)),$((100 * n))],[$n,$((200 * n))],0]"
	[ "$got" = "$want" ] || fail "flows -p of $n connections: [lost, folded, [conns, bytes, unmatched] in, [conns, bytes] out, others] $got, expected $want"
	# the groups: each way, by its untraced side (the client, or not known)
	got=$(jq -c '[.flow_groups[] | .untraced] | unique' "$T/s-$n.out")
	[ "$got" = '["reader","writer"]' ] || fail "flows -p of $n connections: groups untraced at $got"
	got=$(jq -c --arg ep "127.0.0.1:$port" '
		[.flow_groups[] | select(.endpoint != $ep or .verdict != "unmeasured")] | length' "$T/s-$n.out")
	[ "$got" = 0 ] || fail "flows -p of $n connections: $got groups not of 127.0.0.1:$port, or measured"
	got=$(jq -c --argjson c "$cli" '[.flow_groups[] | [.peer_pid, .peer_comm] |
		select(. != [$c, "connwork"] and . != [null, null])]' "$T/s-$n.out")
	[ "$got" = '[]' ] || fail "flows -p of $n connections: untraced sides $got, not connwork[$cli]"
	got=$(jq -c '[.flow_groups[] | [.untraced, .peer_pid]] | (length == (unique | length))' "$T/s-$n.out")
	[ "$got" = true ] || fail "flows -p of $n connections: two groups of one untraced side"
	got=$(jq -c '[(.flow_groups | map(select(.untraced == "writer")) |
		[(map(.flows) | add), (map(.bytes) | add), (map(.reads) | add)]),
		(.flow_groups | map(select(.untraced == "reader")) |
		[(map(.flows) | add), (map(.bytes_written) | add), (map(.writes) | add)])]' "$T/s-$n.out")
	want="[[$n,$((100 * n)),$n],[$n,$((200 * n)),$n]]"
	[ "$got" = "$want" ] || fail "flows -p of $n connections: the groups [flows, bytes, calls] each way $got, expected $want"
}

# exact_text N: the text report $T/s-N.out, its rows each way added up
# (conns, bytes): the client named, or not known.
exact_text() {
	local n=$1 srv cli port got
	srv=$(info "$T/srv-$n" server)
	cli=$(info "$T/cli-$n" client)
	port=$(info "$T/srv-$n" port)
	grep -q '^lost events: 0,' "$T/s-$n.out" || fail "flows -p of $n connections (text): events lost"
	got=$(awk -v s="$srv" -v c="$cli" -v ep="127.0.0.1:$port" '
		/ -> / && / conns / {
			side = $0; sub(/ +-> .*/, "", side)
			if (side != "(not traced)" && side != c " connwork (not traced)" &&
			    side != s " connwork") { bad++; next }
			for (i = 1; i < NF; i++)
				if ($(i + 1) == "conns") { k = $i; e = $(i + 2); b = $(i + 4) }
			if (e != ep) { bad++; next }
			if (side == s " connwork") { oc += k; ob += b } else { ic += k; ib += b }
		}
		END { printf "%d %d %d %d %d\n", ic, ib, oc, ob, bad }' "$T/s-$n.out")
	[ "$got" = "$n $((100 * n)) $n $((200 * n)) 0" ] ||
		{ cat "$T/s-$n.out" >&2; fail "flows -p of $n connections (text): in conns, bytes, out conns, bytes, bad rows '$got', expected '$n $((100 * n)) $n $((200 * n)) 0'"; }
}

# peaks FEW MANY: the peaks of soak FEW and soak MANY (-I 200 --json) in $few and $many.
peaks() {
	local run r
	for run in 1 2 3; do
		r=0
		few=$(soak "$1" $run -I 200 --json) && many=$(soak "$2" $run -I 200 --json) || r=$?
		[ $r -eq 2 ] && continue
		[ $r -eq 0 ] || exit 1
		[ "$many" -gt $((few + 10240)) ] && [ $run -lt 3 ] && ! $asan || break
		echo "peak anonymous RSS $many KiB against $few (run $run of 3): made again"
	done
}
peaks 6000 60000
if [ "$many" -gt $((few + 10240)) ]; then
	what="flows -p: peak anonymous RSS $many KiB after 60,000 connections, $few KiB after 6,000: more than 10 MB apart"
	$asan || fail "$what"
	echo "ASan's allocator: $what (not held under ASan)"
fi
exact_json 6000
exact_json 60000
echo "flows -p peak anonymous RSS: $few KiB after 6,000 connections, $many KiB after 60,000"
for run in 1 2 3; do
	soak 60000 $run >/dev/null && break
done
exact_text 60000

# ------------------------------------------------------------ the client named
H=3000
# hold OUT [OPTION]: connwork tcp $H --hold, its server alone traced (-p),
# the flows into OUT; $srv, $cli and $port its pids and port.
hold() {
	local cpid
	rm -f "$T/h.info"*
	"$CONNWORK" tcp $H --out "$T/h.info" --hold 2>"$T/h.cerr" &
	cpid=$!
	filled "$T/h.info.pid" || fail "tcp --hold: no server pid: $(cat "$T/h.cerr")"
	srv=$(info "$T/h.info.pid" server)
	run timeout 300 "$IPCPERF" flows -q -m 8192 ${2:-} -o "$1" -p "$srv" -- \
		sh -c "touch $T/h.info.go; while [ ! -s $T/h.info ]; do sleep 0.02; done"
	touch "$T/h.info.release"
	wait $cpid || fail "connwork tcp --hold failed: $(cat "$T/h.cerr")"
	expect_status 0 "flows -p SERVER (connwork tcp $H --hold)"
	cli=$(info "$T/h.info" client)
	port=$(info "$T/h.info" port)
}

hold "$T/h.json" -j
[ "$(jqv "$T/h.json" .lost_events)" = 0 ] || fail "tcp --hold: events lost: nothing can be exact"
got=$(jqv "$T/h.json" '[(.folded_flows > 0), ([.flows[] | [.peer_pid, .peer_comm]] | unique)]')
[ "$got" = "[true,[[$cli,\"connwork\"]]]" ] ||
	fail "tcp --hold: [folded, the untraced sides named] $got, expected [true,[[$cli,\"connwork\"]]]"
got=$(jqv "$T/h.json" '[.flow_groups[] | {untraced, peer_pid, flows, bytes, bytes_written, endpoint}]')
want="[{\"untraced\":\"writer\",\"peer_pid\":$cli,\"flows\":$H,\"bytes\":$((100 * H)),\"bytes_written\":0,\"endpoint\":\"127.0.0.1:$port\"},"
want="$want{\"untraced\":\"reader\",\"peer_pid\":$cli,\"flows\":$H,\"bytes\":0,\"bytes_written\":$((200 * H)),\"endpoint\":\"127.0.0.1:$port\"}]"
[ "$got" = "$want" ] || fail "tcp --hold: flow_groups '$got', expected '$want'"
hold "$T/h.txt"
grep -Eq "^$cli connwork \(not traced\) +-> +$srv connwork +$H conns 127\.0\.0\.1:$port +tcp +$((100 * H)) .* unmeasured( |$)" "$T/h.txt" ||
	{ cat "$T/h.txt" >&2; fail "tcp --hold: no row '$cli connwork (not traced) -> $srv connwork  $H conns 127.0.0.1:$port  tcp  $((100 * H)) ... unmeasured'"; }
grep -Eq "^$srv connwork +-> +$cli connwork \(not traced\) +$H conns 127\.0\.0\.1:$port +tcp +$((200 * H)) .* unmeasured( |$)" "$T/h.txt" ||
	{ cat "$T/h.txt" >&2; fail "tcp --hold: no row '$srv connwork -> $cli connwork (not traced)  $H conns 127.0.0.1:$port  tcp  $((200 * H)) ... unmeasured'"; }
[ "$(grep -c ' -> ' "$T/h.txt")" = 2 ] || { cat "$T/h.txt" >&2; fail "tcp --hold: more than the two rows"; }

echo "test-flows-untraced-memory: peak anonymous RSS $few KiB after 6,000 connections, $many KiB after 60,000; exact; $H held connections named through their folds"
