#!/bin/sh
# top's fd pane groups the connections of a process to one endpoint as stat
# does (issue 38, item 5), on real processes with exact bytes
# (tests/connwork tcp|unix N: a server S reads 100 bytes and writes 200 on
# each of N connections, its client M the reverse), frame by frame with
# top -b -d 0.1 until the command ends:
#  - tcp: the last frame's fd pane has one row for S's N accepted
#    connections, "127.0.0.1:PORT <- connwork[M], N conns", and one for
#    M's, "-> 127.0.0.1:PORT connwork[S], N conns", each 300 N bytes since
#    the start, the sum of the frames; S's row is all of S's calls (its OPS
#    and BYTES are S's process row's); a handful of rows, not 2N;
#  - unix: the same as "unix peer connwork[M], N conns";
#  - --per-fd: the pane a row per connection again, N of S's, 300 bytes each.
# Before, the pane was a row per fd: 2N rows a frame.
# Needs root, BPF fd identity (the connections close in microseconds).
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

CONNWORK=$top_builddir/tests/connwork
N=3000

need_exe "$IPCPERF"
need_exe "$CONNWORK"
skip_unless_root "top of live processes"
make_tmpdir
need_bpf_fdid

# The rings sized so that 3000 connections lose nothing.
TOP="timeout 120 $IPCPERF top -b -d 0.1 -m 8192"

info() {
	awk -v k="$2" '$1 == k { print $2 }' "$1"
}

# last_pane OUT: the fd pane of the last frame of OUT, into $T/pane.
last_pane() {
	awk '/^ +PID +FD KIND / { n = 0; delete pane; on = 1; next } on && !NF { on = 0 }
		on { pane[++n] = $0 } END { for (i = 1; i <= n; i++) print pane[i] }' "$1" >"$T/pane"
}

# frames OUT WHAT: OUT has 2 frames or more, none with lost records.
frames() {
	f=$(grep -c '^ipcperf top: ' "$1")
	[ "$f" -ge 2 ] || { cat "$1" >&2; fail "$2: $f frames, expected 2 or more (-d 0.1)"; }
	lost=$(awk '/ records, [0-9]+ lost$/ { n += $(NF - 1) } END { print n + 0 }' "$1")
	[ "$lost" -eq 0 ] || fail "$2: $lost records lost: nothing can be exact"
}

# row WHAT REGEX: a row of the pane matches REGEX.
row() {
	grep -Eq "$2" "$T/pane" || { cat "$T/pane" >&2; fail "$1: no row /$2/"; }
}

# ---------------------------------------------------------------- tcp
run $TOP -- "$CONNWORK" tcp $N --out "$T/tcp.info"
expect_status 0 "top -b -- connwork tcp $N"
srv=$(info "$T/tcp.info" server)
cli=$(info "$T/tcp.info" client)
port=$(info "$T/tcp.info" port)
[ -n "$srv" ] && [ -n "$cli" ] && [ -n "$port" ] || fail "connwork wrote no pids and port"
frames "$T/out" tcp
last_pane "$T/out"
rows=$(grep -c '' "$T/pane")
[ "$rows" -le 8 ] || { cat "$T/pane" >&2; fail "tcp: the last frame's fd pane has $rows rows for $N connections a side, expected at most 8"; }
row "tcp: the server's group" "^ +$srv +\* tcp .* $((300 * N))  127\.0\.0\.1:$port <- connwork\[$cli\], $N conns$"
row "tcp: the client's group" "^ +$cli +\* tcp .* $((300 * N))  -> 127\.0\.0\.1:$port connwork\[$srv\], $N conns$"
[ "$(grep -c " tcp " "$T/pane")" -eq 2 ] || { cat "$T/pane" >&2; fail "tcp: not 2 tcp rows"; }
# The server's calls are all on its connections: its group is its process row.
group=$(sed -En "s/^ +$srv +\* tcp .* ([0-9]+) +([0-9]+)  127\.0\.0\.1:.*/\1 \2/p" "$T/pane")
proc=$(awk -v p="$srv" '/^ +PID COMM / { on = 1; next } on && !NF { on = 0 }
	on && $1 == p { r = $(NF - 1) " " $NF } END { print r }' "$T/out")
[ "$group" = "$proc" ] || fail "tcp: the server's group has OPS BYTES '$group', its process '$proc'"

# ---------------------------------------------------------------- unix
run $TOP -- "$CONNWORK" unix $N --out "$T/unix.info"
expect_status 0 "top -b -- connwork unix $N"
srv=$(info "$T/unix.info" server)
cli=$(info "$T/unix.info" client)
frames "$T/out" unix
last_pane "$T/out"
row "unix: the server's group" "^ +$srv +\* unix .* $((300 * N))  unix peer connwork\[$cli\], $N conns$"
row "unix: the client's group" "^ +$cli +\* unix .* $((300 * N))  unix peer connwork\[$srv\], $N conns$"

# ---------------------------------------------------------------- --per-fd
run $TOP --per-fd -- "$CONNWORK" tcp $N --out "$T/fd.info"
expect_status 0 "top -b --per-fd -- connwork tcp $N"
srv=$(info "$T/fd.info" server)
port=$(info "$T/fd.info" port)
frames "$T/out" --per-fd
grep -q '^ipcperf top: .*, a row per fd$' "$T/out" || fail "--per-fd: the heading does not say 'a row per fd'"
last_pane "$T/out"
rows=$(grep -Ec "^ +$srv +[0-9]+ tcp .* 300  127\.0\.0\.1:$port -> 127\.0\.0\.1:[0-9]+$" "$T/pane")
[ "$rows" -eq $N ] || fail "--per-fd: $rows rows of the server's connections of 300 bytes, expected $N"
echo "test-top-groups: $N connections a side are one row each way (tcp, unix), exact over the frames; --per-fd a row each"
