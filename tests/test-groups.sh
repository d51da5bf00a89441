#!/bin/sh
# Thousands of connections stay readable, and the process at the other end
# is named (issue 22, items 3 and 6), on real processes with exact bytes:
#  - tests/connwork tcp 3000: a server accepts 3000 loopback connections
#    from a client (100 bytes in, 200 out on each). stat groups each side's
#    connections into one row: the server's "127.0.0.1:PORT <- connwork[C]"
#    and the client's "-> 127.0.0.1:PORT connwork[S]", 3000 conns each, with
#    the exact bytes; the table stays a few dozen lines (6,000 rows with
#    --per-fd); every fd row names its peer; the groups add up to the rows;
#    the metrics (--flows too) stay under 300 series with no object label,
#    their sums exact.
#  - tests/connwork unix 3000: the same over a unix stream socket.
#  - tests/ipcwork pipe: the reader's pipe names the writer as its peer.
#  - a pipe whose other end only an untraced process holds: named from /proc.
# Needs root, BPF fd identity (the connections close in microseconds) and jq.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "${top_srcdir:-$(dirname "$0")/..}/tests/groups-lib.sh"

N=3000


need_exe "$IPCWORK"
bpf_setup "$CONNWORK" jq

# The rings sized so that 3000 connections (36,000 records in half a second) lose nothing.
STAT="timeout 120 $IPCPERF stat -q -m 8192"

# ---------------------------------------------------------------- tcp
run $STAT --flows -j -o "$T/tcp.json" --openmetrics "$T/tcp.prom" -- "$CONNWORK" tcp $N --out "$T/tcp.info"
expect_status 0 "stat -j --openmetrics -- connwork tcp $N"
srv=$(awk '$1 == "server" { print $2 }' "$T/tcp.info")
cli=$(awk '$1 == "client" { print $2 }' "$T/tcp.info")
port=$(awk '$1 == "port" { print $2 }' "$T/tcp.info")
[ -n "$srv" ] && [ -n "$cli" ] && [ -n "$port" ] || fail "connwork wrote no pids and port: $(cat "$T/tcp.info")"
[ "$(jqv "$T/tcp.json" .lost_events)" = 0 ] || fail "tcp: $(jqv "$T/tcp.json" .lost_events) events lost: nothing can be exact"

# check_groups FILE PID GROUPED ENDPOINT PEER IN OUT: the one group of
# PID's connections, exact.
check_groups() {
	got=$(jqv "$1" "[.processes[] | select(.pid == $2) | .groups[] | select(.grouped == \"$3\")
		| {endpoint, conns, peer_pid, peer_comm, rb: .read.bytes, wb: .write.bytes, wo: .write.ops}]")
	want="[{\"endpoint\":\"$4\",\"conns\":$N,\"peer_pid\":$5,\"peer_comm\":\"connwork\",\"rb\":$6,\"wb\":$7,\"wo\":$N}]"
	[ "$got" = "$want" ] || fail "$1: pid $2: groups '$got', expected '$want'"
}
check_groups "$T/tcp.json" "$srv" served "127.0.0.1:$port" "$cli" $((100 * N)) $((200 * N))
check_groups "$T/tcp.json" "$cli" client "127.0.0.1:$port" "$srv" $((200 * N)) $((100 * N))

# Every row of a connection names the process at its other end (the
# listener, bound to the port, has no other end); so does each fold of
# closed connections, which --openmetrics makes (doc/json.md), for each
# connection it holds.
for p in "$srv:$cli" "$cli:$srv"; do
	got=$(jqv "$T/tcp.json" "[.processes[] | select(.pid == ${p%:*}) | .fds[]
		| select(.kind == \"tcp\" and ((.folded_conns // 0) > 0 or
			((.detail | test(\":$port\$|:$port \")) and (.detail | test(\" -> .\")))))
		| {peer_pid, n: (.folded_conns // 1)}] | group_by(.peer_pid)
		| map({(.[0].peer_pid | tostring): (map(.n) | add)}) | add")
	[ "$got" = "{\"${p#*:}\":$N}" ] || fail "tcp: the connection rows of ${p%:*} name peers $got, expected ${p#*:} on all $N"
done

# The groups add up to the rows, per process: ops, bytes, errors, both sides.
sums='[.processes[] | {pid, f: ([.fds[] | [.read.ops, .read.bytes, .read.errors, .write.ops, .write.bytes, .write.errors]] | transpose | map(add)),
	g: ([.groups[] | [.read.ops, .read.bytes, .read.errors, .write.ops, .write.bytes, .write.errors]] | transpose | map(add))} | select(.f != .g)]'
[ "$(jqv "$T/tcp.json" "$sums")" = "[]" ] || fail "tcp: the groups do not add up to the fd rows: $(jqv "$T/tcp.json" "$sums")"

# The metrics: bounded, no object, the exact sums (both processes are connwork).
series=$(grep -vc '^#' "$T/tcp.prom")
[ "$series" -le 300 ] || fail "tcp: $series series for $N connections, expected at most 300"
grep -q 'object=\|socket:\[' "$T/tcp.prom" && fail "tcp: a series names an object"
for d in read:$((300 * N)) write:$((300 * N)); do
	got=$(awk -v sel="ipcperf_fd_bytes_total{comm=\"connwork\",kind=\"tcp\",direction=\"${d%:*}\"}" \
		'index($0, sel) == 1 { print $NF }' "$T/tcp.prom")
	[ "$got" = "${d#*:}" ] || fail "tcp: ${d%:*} bytes in the metrics '$got', expected ${d#*:}"
done
got=$(awk 'index($0, "ipcperf_flow_bytes_total{kind=\"tcp\"") == 1 { s += $NF } END { print s }' "$T/tcp.prom")
[ "$got" = $((300 * N)) ] || fail "tcp: flow bytes in the metrics '$got', expected $((300 * N))"

# The table: a row for each side's connections; --per-fd gives today's rows.
run $STAT -o "$T/tcp.txt" -- "$CONNWORK" tcp $N --out "$T/tcp2.info"
expect_status 0 "stat -- connwork tcp $N"
srv=$(awk '$1 == "server" { print $2 }' "$T/tcp2.info")
cli=$(awk '$1 == "client" { print $2 }' "$T/tcp2.info")
port=$(awk '$1 == "port" { print $2 }' "$T/tcp2.info")
tcp_table tcp "$T/tcp.txt" "$port" "$srv" "$cli"
run $STAT --per-fd -o "$T/tcp-fd.txt" -- "$CONNWORK" tcp $N --out "$T/tcp3.info"
expect_status 0 "stat --per-fd -- connwork tcp $N"
rows=$(grep -c '^ *[0-9]* tcp .*127\.0\.0\.1:[0-9]* -> 127\.0\.0\.1:[0-9]*, peer connwork\[[0-9]*\]$' "$T/tcp-fd.txt")
[ "$rows" -eq $((2 * N)) ] || fail "tcp --per-fd: $rows connection rows naming their peer, expected $((2 * N))"

# ---------------------------------------------------------------- unix
run $STAT -j -o "$T/unix.json" -- "$CONNWORK" unix $N --out "$T/unix.info"
expect_status 0 "stat -j -- connwork unix $N"
srv=$(awk '$1 == "server" { print $2 }' "$T/unix.info")
cli=$(awk '$1 == "client" { print $2 }' "$T/unix.info")
[ "$(jqv "$T/unix.json" .lost_events)" = 0 ] || fail "unix: events lost: nothing can be exact"
check_groups "$T/unix.json" "$srv" unix "" "$cli" $((100 * N)) $((200 * N))
check_groups "$T/unix.json" "$cli" unix "" "$srv" $((200 * N)) $((100 * N))
[ "$(jqv "$T/unix.json" "$sums")" = "[]" ] || fail "unix: the groups do not add up to the fd rows"

# ---------------------------------------------------------------- pipes
# ipcwork pipe: R (reads fd 10) is fed by W (writes fd 11, its thread and child G too).
run $STAT -j -o "$T/pipe.json" -- "$IPCWORK" pipe
expect_status 0 "stat -j -- ipcwork pipe"
r=$(jqv "$T/pipe.json" '[.processes[] | select(any(.fds[]; .fd == 10 and .read.bytes == 9100)) | .pid] | .[0]')
w=$(jqv "$T/pipe.json" '[.processes[] | select(any(.fds[]; .fd == 11 and .write.bytes == 7000)) | .pid] | .[0]')
got=$(jqv "$T/pipe.json" "[.processes[] | select(.pid == $r) | .fds[] | select(.fd == 10) | {peer_pid, peer_comm}]")
[ "$got" = "[{\"peer_pid\":$w,\"peer_comm\":\"ipcwork\"}]" ] || fail "pipe: the reader's fd 10 names '$got', expected the writer $w"

# A pipe whose writer is not traced: its peer comes from /proc.
sh -c 'while :; do echo x; sleep 0.05; done | cat >/dev/null' &
shpid=$!
wpid=
catpid=
trap 'kill $shpid $wpid $catpid 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 50); do
	catpid=$(pgrep -P $shpid -x cat)
	wpid=$(pgrep -P $shpid -x sh)
	[ -n "$catpid" ] && [ -n "$wpid" ] && break
	sleep 0.1
done
[ -n "$catpid" ] && [ -n "$wpid" ] || fail "the shell pipeline did not start"
run $STAT -d 1 -j -o "$T/untraced.json" -p "$catpid"
kill "$shpid" "$wpid" "$catpid" 2>/dev/null
got=$(jqv "$T/untraced.json" "[.processes[] | select(.pid == $catpid) | .fds[] | select(.fd == 0) | {kind, peer_pid, peer_comm}]")
[ "$got" = "[{\"kind\":\"pipe\",\"peer_pid\":$wpid,\"peer_comm\":\"sh\"}]" ] ||
	fail "an untraced writer: cat's fd 0 names '$got', expected the shell $wpid (from /proc)"

# ---------------------------------------------------------------- unix, clients gone
# A unix server whose clients left before it accepted them (a health check
# that connects and closes): accept still returns connections, with no
# peer left to name. They are one group (unix, no peer), whose rows fold
# once closed, not a row of its own each that never folds.
python3 -c '
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(128)
open(sys.argv[1] + ".up", "w").close()
while not os.path.exists(sys.argv[1] + ".go"):
    time.sleep(0.02)
for i in range(int(sys.argv[2])):
    c, _ = s.accept()
    c.recv(16)
    c.close()
' "$T/gone.sock" 40 &
gpid=$!
for _ in $(seq 100); do [ -e "$T/gone.sock.up" ] && break; sleep 0.05; done
[ -e "$T/gone.sock.up" ] || fail "the unix server did not start"
timeout 120 $IPCPERF stat -m 8192 -j -o "$T/gone.json" -p $gpid 2>"$T/gone.err" &
stpid=$!
wait_live "$T/gone.err"
python3 -c '
import socket, sys
for i in range(int(sys.argv[2])):
    c = socket.socket(socket.AF_UNIX)
    c.connect(sys.argv[1])
    c.close()
' "$T/gone.sock" 40 || fail "the unix clients could not connect"
touch "$T/gone.sock.go"
wait $gpid || fail "the unix server failed"
wait $stpid || fail "stat -p of the unix server: $(cat "$T/gone.err")"
got=$(jqv "$T/gone.json" "[.processes[] | select(.pid == $gpid) | .groups[] | select(.kind == \"unix\")
	| {grouped, conns, peer_pid, ro: .read.ops}]")
[ "$got" = '[{"grouped":"fd","conns":1,"peer_pid":null,"ro":0},{"grouped":"unix","conns":40,"peer_pid":null,"ro":40}]' ] ||
	fail "unix clients gone before accept: groups '$got', expected the listener and one group of 40"

echo "test-groups: $N tcp and unix connections in one group a side, exact; peers named (traced, and from /proc)"
