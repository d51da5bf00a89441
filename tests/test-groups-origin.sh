#!/bin/sh
# Connections grouped by the call that made them, not by their port numbers
# (issue 38, item 1), on real processes with exact bytes. A server listens
# on a port the kernel picks (bind to port 0: one in
# net.ipv4.ip_local_port_range, as gRPC's 50051 is), so both ports of
# every connection are ephemeral and the port rule can tell no side:
#  - -p SERVER -- CLIENT (tests/connwork listen N, connect PORT N): the
#    server's N accepted connections are one group "127.0.0.1:PORT <-
#    connwork[CLIENT]", the client's N connected ones one group "->
#    127.0.0.1:PORT connwork[SERVER]", exact, none "by_ports"; the table
#    has those two rows, not 2N, and no note.
#  - -p SERVER alone, K connections accepted (and made) before the attach
#    and N after: the N are one group under the listener's address, exact;
#    the K, whose accept the capture did not see, fall back to the port
#    rule: each its own row (both ports ephemeral), "by_ports": 1, and the
#    table says so in a note.
# Before, every connection was a row of its own: 6,000 rows for 3000 a side.
# Needs root, BPF fd identity (the connections close in microseconds) and jq.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "${top_srcdir:-$(dirname "$0")/..}/tests/groups-lib.sh"

N=3000
K=3


bpf_setup "$CONNWORK" jq

SP=
CP=
trap 'kill $SP $CP 2>/dev/null; rm -rf "$T"' EXIT

# The rings sized so that 3000 connections lose nothing.
STAT="timeout 120 $IPCPERF stat -m 8192"

# start_server NAME [--early K --go GO]: tests/connwork listen in the
# background; SP its pid, PORT its port (in the ephemeral range).
start_server() {
	name=$1
	shift
	"$CONNWORK" listen $N --out "$T/$name.srv" "$@" 2>"$T/$name.srv.err" &
	SP=$!
	wait_file "$T/$name.srv"
	PORT=$(awk '$1 == "port" { print $2 }' "$T/$name.srv")
	# (not read: dash reads a byte at a time, and /proc/sys answers the first only)
	lo=$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range)
	hi=$(awk '{ print $2 }' /proc/sys/net/ipv4/ip_local_port_range)
	[ "$PORT" -ge "$lo" ] && [ "$PORT" -le "$hi" ] ||
		fail "the server's port $PORT is not in the ephemeral range $lo-$hi"
}

# end_server: the server exited 0.
end_server() {
	wait "$SP" || fail "the server exited $?: $(cat "$T"/*.srv.err)"
	SP=
}

# group FILE PID GROUPED: PID's groups so grouped, with what is checked of them.
group() {
	jqv "$1" "[.processes[] | select(.pid == $2) | .groups[] | select(.grouped == \"$3\")
		| {endpoint, conns, by_ports, peer_pid, rb: .read.bytes, wb: .write.bytes, wo: .write.ops}]"
}

# ---------------------------------------------------------------- both sides
start_server both
run $STAT -q -j -o "$T/both.json" -p "$SP" -- "$CONNWORK" connect "$PORT" $N --out "$T/both.cli"
expect_status 0 "stat -j -p SERVER -- connwork connect $PORT $N"
end_server
CP=$(awk '$1 == "client" { print $2 }' "$T/both.cli")
srv=$(awk '$1 == "server" { print $2 }' "$T/both.srv")
[ "$(jqv "$T/both.json" .lost_events)" = 0 ] || fail "both: $(jqv "$T/both.json" .lost_events) events lost: nothing can be exact"
got=$(group "$T/both.json" "$srv" served)
want="[{\"endpoint\":\"127.0.0.1:$PORT\",\"conns\":$N,\"by_ports\":0,\"peer_pid\":$CP,\"rb\":$((100 * N)),\"wb\":$((200 * N)),\"wo\":$N}]"
[ "$got" = "$want" ] || fail "both: the server's groups '$got', expected '$want'"
got=$(group "$T/both.json" "$CP" client)
want="[{\"endpoint\":\"127.0.0.1:$PORT\",\"conns\":$N,\"by_ports\":0,\"peer_pid\":$srv,\"rb\":$((200 * N)),\"wb\":$((100 * N)),\"wo\":$N}]"
[ "$got" = "$want" ] || fail "both: the client's groups '$got', expected '$want'"
# (the listener is one, "127.0.0.1:PORT -> 0.0.0.0:0": no remote port)
got=$(jqv "$T/both.json" '[.processes[].groups[] | select(.kind == "tcp" and .grouped == "fd" and (.detail | test(" -> .*:[1-9][0-9]*$")))] | length')
[ "$got" = 0 ] || fail "both: $got tcp connections left as rows of their own"
CP=

start_server text
run $STAT -q -o "$T/both.txt" -p "$SP" -- "$CONNWORK" connect "$PORT" $N --out "$T/text.cli"
expect_status 0 "stat -p SERVER -- connwork connect $PORT $N"
end_server
CP=$(awk '$1 == "client" { print $2 }' "$T/text.cli")
srv=$(awk '$1 == "server" { print $2 }' "$T/text.srv")
tcp_table both "$T/both.txt" "$PORT" "$srv" "$CP"
grep -q 'made before the capture' "$T/both.txt" && fail "both: a note of connections made before the capture, and there were none"
CP=

# ---------------------------------------------------------------- the server alone
# alone NAME STAT-OPTIONS...: the server traced alone, K connections made
# before the attach: they wait for the file GO, made once stat is live.
alone() {
	name=$1
	shift
	start_server "$name" --early $K --go "$T/$name.go"
	"$CONNWORK" connect "$PORT" $N --out "$T/$name.cli" --early $K --go "$T/$name.go" 2>"$T/$name.cli.err" &
	CP=$!
	wait_file "$T/$name.srv.held"
	$STAT "$@" -p "$SP" >"$T/$name.out" 2>"$T/$name.err" &
	stat_pid=$!
	wait_live "$T/$name.err"
	: >"$T/$name.go"
	wait "$stat_pid" || fail "$name: stat -p SERVER exited $?: $(cat "$T/$name.err")"
	end_server
	wait "$CP" || fail "$name: the client exited $?: $(cat "$T/$name.cli.err")"
	CP=
}

alone alone-json -j -o "$T/alone.json"
srv=$(awk '$1 == "server" { print $2 }' "$T/alone-json.srv")
[ "$(jqv "$T/alone.json" .lost_events)" = 0 ] || fail "alone: $(jqv "$T/alone.json" .lost_events) events lost: nothing can be exact"
got=$(group "$T/alone.json" "$srv" served | jq -c 'map(del(.peer_pid))')
want="[{\"endpoint\":\"127.0.0.1:$PORT\",\"conns\":$N,\"by_ports\":0,\"rb\":$((100 * N)),\"wb\":$((200 * N)),\"wo\":$N}]"
[ "$got" = "$want" ] || fail "alone: the server's groups '$got', expected '$want'"
# The K made before the attach: rows of their own, grouped by their ports, each exact.
got=$(jqv "$T/alone.json" "[.processes[] | select(.pid == $srv) | .groups[]
	| select(.kind == \"tcp\" and (.detail | startswith(\"127.0.0.1:$PORT -> 127.0.0.1:\")))
	| {grouped, conns, by_ports, rb: .read.bytes, wb: .write.bytes}] | group_by(.) | map([.[0], length])")
want="[[{\"grouped\":\"fd\",\"conns\":1,\"by_ports\":1,\"rb\":100,\"wb\":200},$K]]"
[ "$got" = "$want" ] || fail "alone: the connections made before the attach are '$got', expected '$want'"

alone alone-text -o "$T/alone.txt"
grep -Eq "^ +\* tcp +127\.0\.0\.1:$PORT <- [^ ]+ +$N +$((100 * N)) .* $N +$((200 * N)) .*  $N conns$" "$T/alone.txt" ||
	{ cat "$T/alone.txt" >&2; fail "alone: no server row '127.0.0.1:$PORT <- ...' of $N conns with the exact bytes"; }
rows=$(grep -Ec "^ +[0-9]+ tcp +socket:\[[0-9]+\] +1 +100 .* 1 +200 .* 127\.0\.0\.1:$PORT -> 127\.0\.0\.1:[0-9]+" "$T/alone.txt")
[ "$rows" = $K ] || { cat "$T/alone.txt" >&2; fail "alone: $rows rows of the connections made before the attach, expected $K"; }
grep -q "^  ($K connections made before the capture (no accept or connect seen): grouped by port, net.ipv4.ip_local_port_range)$" "$T/alone.txt" ||
	{ cat "$T/alone.txt" >&2; fail "alone: no note that $K connections were grouped by port"; }

echo "test-groups-origin: $N connections to an ephemeral port in one group a side, exact; $K made before the attach grouped by port, said"
