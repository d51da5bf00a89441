#!/bin/sh
# What ipcperf itself does for each connection of a server it traces alone
# (issue 41, item 1): tests/connwork listen N, traced by -p, serves N
# connections from an untraced client (connwork connect), each closed at
# once. stat folds the closed connections into their group every thousand
# or so, and looks for the peer end of each by its addresses (the client
# holds it, untraced). That look-up is one question to the kernel's
# connection hash per connection: no dump of every TCP socket of the
# machine (each one a walk of the whole established hash, TIME_WAIT
# sockets included: milliseconds on a busy host), so the dumps stay at the
# few of the attach and the report whatever N is. Counted with strace on
# ipcperf's own sendto calls (sock_diag requests), and the group exact.
# Before, every fold of closed connections dumped TCP twice (IPv4, IPv6):
# N = 6000 made 14 of them (28 sock_diag requests in all).
# Needs root, BPF fd identity and strace.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

N=6000
# TCP dumps allowed in the whole run: a few at the attach and the report.
MAX_DUMPS=4

bpf_setup "$CONNWORK" strace

SP=
trap 'kill $SP 2>/dev/null; rm -rf "$T"' EXIT

"$CONNWORK" listen $N --out "$T/srv" 2>"$T/srv.err" &
SP=$!
wait_file "$T/srv"
PORT=$(awk '$1 == "port" { print $2 }' "$T/srv")

# Only sendto stops ipcperf (seccomp): the rest of its calls run as usual.
# LeakSanitizer cannot stop the threads of a process that strace traces: in
# the sanitized build this run checks no leaks (tests/test-leaks.sh does).
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace -f --seccomp-bpf -e trace=sendto -e signal=none -o "$T/strace" \
	timeout 120 "$IPCPERF" stat -m 8192 -o "$T/stat.txt" -p "$SP" 2>"$T/stat.err" &
stat_pid=$!
wait_live "$T/stat.err"
"$CONNWORK" connect "$PORT" $N --out "$T/cli" 2>"$T/cli.err" || fail "the client exited $?: $(cat "$T/cli.err")"
wait "$SP" || fail "the server exited $?: $(cat "$T/srv.err")"
SP=
wait "$stat_pid" || fail "stat -p SERVER exited $?: $(cat "$T/stat.err")"

# (the table: JSON keeps every connection a row, and folds none)
grep -q '^lost events: 0,' "$T/stat.txt" || fail "events lost: nothing can be exact: $(tail -n 1 "$T/stat.txt")"
grep -Eq "^ +\* tcp +127\.0\.0\.1:$PORT <- [^ ]+ +$N +$((100 * N)) .* $N +$((200 * N)) .*  $N conns$" "$T/stat.txt" ||
	{ cat "$T/stat.txt" >&2; fail "no server row '127.0.0.1:$PORT <- ...' of $N conns with the exact bytes"; }

asks=$(grep -c 'SOCK_DIAG_BY_FAMILY' "$T/strace")
dumps=$(grep 'NLM_F_DUMP' "$T/strace" | grep -c 'IPPROTO_TCP')
[ "$asks" -gt 0 ] || fail "strace saw no sock_diag request of ipcperf: $(head -c 300 "$T/strace")"
[ "$dumps" -le $MAX_DUMPS ] ||
	fail "$dumps dumps of every TCP socket for $N connections, expected at most $MAX_DUMPS (sends of sock_diag requests: $asks)"

echo "test-perconn: $N connections of a server traced alone: $dumps TCP dumps, $asks sends of sock_diag requests; the group exact"
