#!/bin/sh
# top's fd pane groups the connections of a process to one endpoint as stat
# does (issue 38, item 5), on real processes with exact bytes
# (tests/connwork tcp|unix N --hold: a server S reads 100 bytes and writes
# 200 on each of N connections, its client M the reverse and keeps them
# open until told), frame by frame with top -b -d 0.1: the connections are
# made once top drew a frame, and closed (M exits) a few frames after, so
# that their calls, closes and exits are spread over the frames:
#  - tcp: the last frame's fd pane has one row for S's N accepted
#    connections, "127.0.0.1:PORT <- connwork[M], N conns", and one for
#    M's, "-> 127.0.0.1:PORT connwork[S], N conns", each 300 N bytes since
#    the start, the sum of the frames; S's row is all of S's calls (its OPS
#    and BYTES are S's process row's); 2 socket rows, not 2N;
#  - unix: the same as "unix peer connwork[M], N conns";
#  - --per-fd: the pane a row per connection again, N of S's, 300 bytes each.
# Before, the pane was a row per fd: 2N rows a frame.
# Needs root, BPF fd identity (the connections close in microseconds).
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

N=1000

skip_unless_root "top of live processes"
bpf_setup "$CONNWORK"

# The rings sized so that 1000 connections lose nothing.
TOP="timeout 120 $IPCPERF top -b -d 0.1 -m 8192"
cpid=
trap '[ -n "$cpid" ] && kill $cpid 2>/dev/null; rm -rf "$T"' EXIT

# wait_for WHAT TEST...: until TEST holds (20 s at most).
wait_for() {
	what=$1
	shift
	for _ in $(seq 400); do
		"$@" && return 0
		sleep 0.05
	done
	fail "$what never came"
}

# held KIND [OPTION]: top -b [OPTION] -- connwork KIND N --hold into
# $T/out: the connections made once top drew a frame, closed 0.5 s after
# the last one answered; $T/KIND.info says the pids.
held() {
	rm -f "$T/$1.info"*
	$TOP ${2:-} -- "$CONNWORK" "$1" $N --out "$T/$1.info" --hold >"$T/out" 2>"$T/err" &
	cpid=$!
	wait_for "$1: connwork's server" test -s "$T/$1.info.pid"
	wait_for "$1: top's first frame" grep -q '^ipcperf top: ' "$T/out"
	touch "$T/$1.info.go"
	wait_for "$1: connwork's answers" test -s "$T/$1.info"
	sleep 0.5
	touch "$T/$1.info.release"
	wait $cpid || { cat "$T/err" >&2; fail "top -b ${2:-} -- connwork $1 $N --hold exited $?"; }
	cpid=
}

# last_pane OUT: the fd pane of the last frame of OUT, into $T/pane.
last_pane() {
	awk '/^ +PID +FD KIND / { n = 0; delete pane; on = 1; next } on && !NF { on = 0 }
		on { pane[++n] = $0 } END { for (i = 1; i <= n; i++) print pane[i] }' "$1" >"$T/pane"
}

# frames OUT WHAT: OUT has 4 frames or more (one before the connections, a
# few with them held), none with lost records.
frames() {
	f=$(grep -c '^ipcperf top: ' "$1")
	[ "$f" -ge 4 ] || { cat "$1" >&2; fail "$2: $f frames, expected 4 or more (-d 0.1)"; }
	lost=$(awk '/ records, [0-9]+ lost$/ { n += $(NF - 1) } END { print n + 0 }' "$1")
	[ "$lost" -eq 0 ] || fail "$2: $lost records lost: nothing can be exact"
}

# two_groups KIND: the run of KIND in $T/out has its frames (frames), and
# the fd pane of the last one ($T/pane) two socket rows: a group each side.
# (The files a sanitized build's runtime reads are rows of their own: only
# the sockets are counted.)
two_groups() {
	local rows
	frames "$T/out" "$1"
	last_pane "$T/out"
	rows=$(grep -Ec '^ +[0-9]+ +[0-9*]+ (tcp|unix) ' "$T/pane")
	[ "$rows" -eq 2 ] || { cat "$T/pane" >&2; fail "$1: the last frame's fd pane has $rows socket rows for $N connections a side, expected 2"; }
}

# row WHAT REGEX: a row of the pane matches REGEX.
row() {
	grep -Eq "$2" "$T/pane" || { cat "$T/pane" >&2; fail "$1: no row /$2/"; }
}

# ---------------------------------------------------------------- tcp
held tcp
srv=$(info "$T/tcp.info" server)
cli=$(info "$T/tcp.info" client)
port=$(info "$T/tcp.info" port)
[ -n "$srv" ] && [ -n "$cli" ] && [ -n "$port" ] || fail "connwork wrote no pids and port"
two_groups tcp
row "tcp: the server's group" "^ +$srv +\* tcp .* $((300 * N))  127\.0\.0\.1:$port <- connwork\[$cli\], $N conns$"
row "tcp: the client's group" "^ +$cli +\* tcp .* $((300 * N))  -> 127\.0\.0\.1:$port connwork\[$srv\], $N conns$"
# The server's calls are all on its connections: its group is its process row.
group=$(sed -En "s/^ +$srv +\* tcp .* ([0-9]+) +([0-9]+)  127\.0\.0\.1:.*/\1 \2/p" "$T/pane")
proc=$(awk -v p="$srv" '/^ +PID COMM / { on = 1; next } on && !NF { on = 0 }
	on && $1 == p { r = $(NF - 1) " " $NF } END { print r }' "$T/out")
[ "$group" = "$proc" ] || fail "tcp: the server's group has OPS BYTES '$group', its process '$proc'"

# ---------------------------------------------------------------- unix
held unix
srv=$(info "$T/unix.info" server)
cli=$(info "$T/unix.info" client)
two_groups unix
row "unix: the server's group" "^ +$srv +\* unix .* $((300 * N))  unix peer connwork\[$cli\], $N conns$"
row "unix: the client's group" "^ +$cli +\* unix .* $((300 * N))  unix peer connwork\[$srv\], $N conns$"

# ---------------------------------------------------------------- --per-fd
held tcp --per-fd
srv=$(info "$T/tcp.info" server)
port=$(info "$T/tcp.info" port)
frames "$T/out" --per-fd
grep -q '^ipcperf top: .*, a row per fd$' "$T/out" || fail "--per-fd: the heading does not say 'a row per fd'"
last_pane "$T/out"
rows=$(grep -Ec "^ +$srv +[0-9]+ tcp .* 300  127\.0\.0\.1:$port -> 127\.0\.0\.1:[0-9]+$" "$T/pane")
[ "$rows" -eq $N ] || fail "--per-fd: $rows rows of the server's connections of 300 bytes, expected $N"
echo "test-top-groups: $N connections a side are one row each way (tcp, unix), exact over the frames; --per-fd a row each"
