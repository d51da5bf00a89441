#!/bin/sh
# flows keeps a server's connections readable, and a server traced alone
# shows what it did (issue 38, items 5 and 6), on real processes with exact
# bytes (tests/connwork: 100 bytes in, 200 out on each connection):
#  - connwork tcp 1000, both sides traced: the table is a row each way
#    ("C connwork -> S connwork", "1000 conns 127.0.0.1:PORT", the exact
#    bytes), --per-flow the 2,000 rows of one flow each, --json both: the
#    2,000 "flows" and two "flow_groups" whose bytes, calls and wire
#    min/max are those of their flows, added up; top's flow pane the same
#    two rows, named by comm[pid].
#  - connwork unix 300 --hold, the server alone traced (-p): each direction
#    of its connections is there with its exact bytes (what it read, what
#    it wrote), the client named from the fd's peer and marked not traced,
#    and no verdict: "unmeasured", never "balanced" from one side.
#  - the same over tcp: the direction towards the server, whose client end
#    no traced process holds, is there too, and the client is named (its
#    socket found by its addresses with sock_diag, its holder in /proc).
# Needs root, BPF fd identity (the connections close in microseconds) and jq.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

N=1000
H=300


skip_unless_root "flows of live processes"
bpf_setup "$CONNWORK" jq

FLOWS="timeout 120 $IPCPERF flows -q -m 8192"

# each_way WHAT FILE ROW: FILE has the row that `ROW WRITER READER BYTES`
# matches (grep -E) for each way of connwork's $N connections: $cli's 100
# bytes a connection to $srv, and $srv's 200 to $cli.
each_way() {
	local re
	for re in "$($3 "$cli" "$srv" $((100 * N)))" "$($3 "$srv" "$cli" $((200 * N)))"; do
		grep -Eq "$re" "$2" || { cat "$2" >&2; fail "$1: no row /$re/"; }
	done
}
# table_row W R BYTES: flows' row of the group W -> R (on 127.0.0.1:$port).
table_row() {
	echo "^$1 connwork +-> +$2 connwork +$N conns 127\.0\.0\.1:$port +tcp +$3 "
}
# pane_row W R BYTES: the row of top's flow pane of the group W -> R.
pane_row() {
	echo "^ *[^ ]+ [^ ]+ +$3 tcp +connwork\[$1\] -> connwork\[$2\] +$N conns$"
}

# ---------------------------------------------------------------- item 5: groups
run $FLOWS -o "$T/g.txt" -- "$CONNWORK" tcp $N --out "$T/g.info"
expect_status 0 "flows -- connwork tcp $N"
srv=$(info "$T/g.info" server)
cli=$(info "$T/g.info" client)
port=$(info "$T/g.info" port)
[ -n "$srv" ] && [ -n "$cli" ] && [ -n "$port" ] || fail "connwork wrote no pids and port"
grep -q '^lost events: 0,' "$T/g.txt" || fail "groups: events lost: $(tail -n 1 "$T/g.txt")"
lines=$(wc -l <"$T/g.txt")
[ "$lines" -le 20 ] || { head -n 30 "$T/g.txt" >&2; fail "groups: the table has $lines lines for $N connections, expected at most 20"; }
rows=$(grep -c ' -> ' "$T/g.txt")
[ "$rows" -eq 2 ] || { cat "$T/g.txt" >&2; fail "groups: $rows rows, expected 2 (one each way)"; }
each_way groups "$T/g.txt" table_row

run $FLOWS --per-flow -o "$T/p.txt" -- "$CONNWORK" tcp $N --out "$T/p.info"
expect_status 0 "flows --per-flow -- connwork tcp $N"
grep -q '^lost events: 0,' "$T/p.txt" || fail "--per-flow: events lost"
rows=$(grep -Ec '^[0-9]+ connwork +-> +[0-9]+ connwork +socket:\[[0-9]+\] +tcp +(100|200) ' "$T/p.txt")
[ "$rows" -eq $((2 * N)) ] || fail "--per-flow: $rows rows of one connection each way, expected $((2 * N))"

run $FLOWS -j -o "$T/g.json" -- "$CONNWORK" tcp $N --out "$T/j.info"
expect_status 0 "flows -j -- connwork tcp $N"
srv=$(info "$T/j.info" server)
cli=$(info "$T/j.info" client)
port=$(info "$T/j.info" port)
[ "$(jqv "$T/g.json" .lost_events)" = 0 ] || fail "json: events lost: nothing can be exact"
[ "$(jqv "$T/g.json" '.flows | length')" = $((2 * N)) ] || fail "json: $(jqv "$T/g.json" '.flows | length') flows, expected $((2 * N))"
got=$(jqv "$T/g.json" '[.flow_groups[] | {writers, readers, untraced, kind, endpoint, flows, bytes, bytes_written, writes, reads, matches}]')
want="[{\"writers\":[$cli],\"readers\":[$srv],\"untraced\":null,\"kind\":\"tcp\",\"endpoint\":\"127.0.0.1:$port\",\"flows\":$N,\"bytes\":$((100 * N)),\"bytes_written\":$((100 * N)),\"writes\":$N,\"reads\":$N,\"matches\":$N},"
want="$want{\"writers\":[$srv],\"readers\":[$cli],\"untraced\":null,\"kind\":\"tcp\",\"endpoint\":\"127.0.0.1:$port\",\"flows\":$N,\"bytes\":$((200 * N)),\"bytes_written\":$((200 * N)),\"writes\":$N,\"reads\":$N,\"matches\":$N}]"
[ "$got" = "$want" ] || fail "json: flow_groups '$got', expected '$want'"
# Each group is its flows added up; its wire times are their merged distribution.
sums='[.flow_groups[] as $g | [.flows[] | select(.writers == $g.writers and .readers == $g.readers)]
	| {n: length, b: (map(.bytes) | add), w: (map(.bytes_written) | add), m: (map(.matches) | add),
	   rb: (map(.reader_blocked_ns) | add), min: (map(.wire_ns.min) | min), max: (map(.wire_ns.max) | max)}
	| select(. != {n: $g.flows, b: $g.bytes, w: $g.bytes_written, m: $g.matches, rb: $g.reader_blocked_ns,
		       min: $g.wire_ns.min, max: $g.wire_ns.max})]'
[ "$(jqv "$T/g.json" "$sums")" = "[]" ] || fail "json: the groups are not their flows added up: $(jqv "$T/g.json" "$sums")"
bad=$(jqv "$T/g.json" '[.flow_groups[] | select(.wire_ns.p50 < .wire_ns.min or .wire_ns.p99 < .wire_ns.p50 or .wire_ns.max < .wire_ns.p99)]')
[ "$bad" = "[]" ] || fail "json: wire times out of order: $bad"

# top's flow pane: the same groups, named by comm[pid].
run timeout 120 "$IPCPERF" top -b -d 0.3 -- "$CONNWORK" tcp $N --out "$T/top.info"
expect_status 0 "top -b -- connwork tcp $N"
srv=$(info "$T/top.info" server)
cli=$(info "$T/top.info" client)
awk '/WRITERS -> READERS/ { n = 0; delete pane; on = 1; next } on && NF { pane[++n] = $0 }
	END { for (i = 1; i <= n; i++) print pane[i] }' "$T/out" >"$T/pane"
rows=$(grep -c '' "$T/pane")
[ "$rows" -eq 2 ] || { cat "$T/pane" >&2; fail "top: the last frame's flow pane has $rows rows, expected 2"; }
each_way top "$T/pane" pane_row

# ---------------------------------------------------------------- item 6: one traced side
# hold KIND OUT [OPTION]: connwork KIND H --hold, its server alone traced
# (-p), the flows into OUT; $srv and $cli its pids. The client keeps its
# ends open until the report is out: its sockets can be found then.
hold() {
	rm -f "$T/h.info"*
	"$CONNWORK" "$1" $H --out "$T/h.info" --hold 2>"$T/h.cerr" &
	cpid=$!
	filled "$T/h.info.pid"
	srv=$(info "$T/h.info.pid" server)
	[ -n "$srv" ] || { kill $cpid; fail "$1 --hold: no server pid"; }
	run $FLOWS ${3:-} -o "$2" -p "$srv" -- \
		sh -c "touch $T/h.info.go; while [ ! -s $T/h.info ]; do sleep 0.02; done"
	touch "$T/h.info.release"
	wait $cpid || fail "connwork $1 --hold failed: $(cat "$T/h.cerr")"
	expect_status 0 "flows -p SERVER (connwork $1 --hold)"
	cli=$(info "$T/h.info" client)
}

# one_sided FILE WHAT NAMED: the JSON FILE has each direction of the H
# connections once, with the server's exact bytes, no verdict, and (NAMED
# yes) the client named as the untraced side of every one.
one_sided() {
	[ "$(jqv "$1" .lost_events)" = 0 ] || fail "$2: events lost: nothing can be exact"
	got=$(jqv "$1" "[.flows[] | select(.readers == [$srv] and .writers == [])] | [length, (map(.bytes) | add), (map(.reads) | add)]")
	[ "$got" = "[$H,$((100 * H)),$H]" ] || fail "$2: client -> server flows [count,bytes,reads] $got, expected [$H,$((100 * H)),$H]"
	got=$(jqv "$1" "[.flows[] | select(.writers == [$srv] and .readers == [])] | [length, (map(.bytes_written) | add), (map(.writes) | add)]")
	[ "$got" = "[$H,$((200 * H)),$H]" ] || fail "$2: server -> client flows [count,bytes_written,writes] $got, expected [$H,$((200 * H)),$H]"
	got=$(jqv "$1" '[.flows[] | .verdict] | unique')
	[ "$got" = '["unmeasured"]' ] || fail "$2: verdicts $got of flows with one side traced, expected [\"unmeasured\"]"
	got=$(jqv "$1" '[.flow_groups[] | {untraced, flows, bytes, bytes_written, verdict}]')
	want="[{\"untraced\":\"writer\",\"flows\":$H,\"bytes\":$((100 * H)),\"bytes_written\":0,\"verdict\":\"unmeasured\"},"
	want="$want{\"untraced\":\"reader\",\"flows\":$H,\"bytes\":0,\"bytes_written\":$((200 * H)),\"verdict\":\"unmeasured\"}]"
	[ "$got" = "$want" ] || fail "$2: flow_groups '$got', expected '$want'"
	[ "$3" = yes ] || return 0
	got=$(jqv "$1" '[.flows[] | [.peer_pid, .peer_comm]] | unique')
	[ "$got" = "[[$cli,\"connwork\"]]" ] || fail "$2: the untraced sides named $got, expected [[$cli,\"connwork\"]]"
}

hold unix "$T/u.json" -j
one_sided "$T/u.json" "unix -p SERVER" yes
hold unix "$T/u.txt"
grep -Eq "^$cli connwork \(not traced\) +-> +$srv connwork +$H conns +unix +$((100 * H)) .* unmeasured( |$)" "$T/u.txt" ||
	{ cat "$T/u.txt" >&2; fail "unix -p SERVER: no row '$cli connwork (not traced) -> $srv connwork  $H conns  unix  $((100 * H)) ... unmeasured'"; }
grep -Eq "^$srv connwork +-> +$cli connwork \(not traced\) +$H conns +unix +$((200 * H)) .* unmeasured( |$)" "$T/u.txt" ||
	{ cat "$T/u.txt" >&2; fail "unix -p SERVER: no row '$srv connwork -> $cli connwork (not traced)  $H conns  unix  $((200 * H)) ... unmeasured'"; }
grep ' -> ' "$T/u.txt" | grep -Eq ' (balanced|backpressure|consumer-starved|idle)( |$)' &&
	{ cat "$T/u.txt" >&2; fail "unix -p SERVER: a verdict from one side"; }

hold tcp "$T/t.json" -j
one_sided "$T/t.json" "tcp -p SERVER" yes

echo "test-flowgroups: $N tcp connections in one row each way, exact; a server traced alone: both directions, exact, unmeasured"
