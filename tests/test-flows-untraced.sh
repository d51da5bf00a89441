#!/usr/bin/env bash
# ipcperf flows -p of a server whose client is not traced (issue 41: an
# hour of a busy server): tests/servework's epoll server traced alone, its
# client apart, at full speed on 4 kept-alive connections for 2 s, then
# for 10 s. The client's writes and reads are never seen, so the server's
# writes wait for reads and its reads for writes that never come: the
# flows keep no more of them than UNSEEN_KEEP (512) entries a side
# (lib/flows/flows.c), and the peak anonymous RSS of the 10 s run is within
# 10 MB of the 2 s run's (before: about 145 bytes a request, without end).
# The bytes stay exact: the server's flows wrote 256 bytes a request and
# read 64 bytes a request that no traced write explains (unmatched), as
# the client counted them, with no event lost.
# Needs root and jq.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
SERVEWORK=$top_builddir/tests/servework
MAXRSS=$top_builddir/tests/maxrss
need_exe "$SERVEWORK"
need_exe "$MAXRSS"
live_setup "tracing a server with -p" jq
servework_up

# The sanitized ipcperf of scripts/run-tests' second stage reads several
# times slower: there the client yields the CPUs to the server and to it
# (nice 19), so that the rate is one it can follow without losing events.
# Its allocator also keeps what is freed in a quarantine of up to 256 MB,
# which grows with what a run frees, not with what it keeps: there it is
# made 1 MB, so that the peak RSS of the two runs still tells the bound.
CLIENT_NICE=0
if [ -n "${IPCPERF_SANITIZED:-}" ]; then
	CLIENT_NICE=19
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1"
fi

# soak SECS: flows -p of the server while the client runs SECS seconds;
# sets kb (peak anonymous RSS, KiB) and R (the client's requests).
soak() {
	local mpid
	"$MAXRSS" "$IPCPERF" flows --json -o "$T/f-$1.json" -p "$SP" 2>"$T/f-$1.err" &
	mpid=$!
	wait_live "$T/f-$1.err"
	nice -n $CLIENT_NICE "$SERVEWORK" client "$SOCK" 4 1 "$1" >"$T/c-$1.out" 2>&1 ||
		fail "the client failed: $(cat "$T/c-$1.out")"
	read -r _ R _ OUT _ IN <"$T/c-$1.out"
	kill -INT "$(pgrep -P "$mpid")"
	wait "$mpid" || fail "flows -p of $1 s ended with $?: $(cat "$T/f-$1.err")"
	kb=$(sed -n 's/^maxanon \([0-9]*\)$/\1/p' "$T/f-$1.err")
	[ -n "$kb" ] || fail "flows -p of $1 s: no peak anonymous RSS"
	[ "$(jq .lost_events "$T/f-$1.json")" = 0 ] || fail "flows -p of $1 s: events were lost"
	[ "$OUT" = $((R * 64)) ] && [ "$IN" = $((R * 256)) ] && [ "$R" -gt 1000 ] ||
		fail "the client's counts do not add up: $(cat "$T/c-$1.out")"
	got=$(jq -c --argjson s "$SP" '[([.flows[] | select(.writers == [$s]) | .bytes_written] | add),
		([.flows[] | select(.readers == [$s]) | .unmatched_bytes] | add)]' "$T/f-$1.json")
	[ "$got" = "[$IN,$OUT]" ] ||
		fail "flows -p of $1 s: the server wrote and read $got, the client counted [$IN,$OUT]"
}
soak 2
few=$kb
R_FEW=$R
soak 10
many=$kb
[ "$R" -gt $((R_FEW * 3)) ] || fail "10 s made $R requests, 2 s $R_FEW: not enough more to tell"
[ $((many - few)) -le 10240 ] ||
	fail "flows -p: peak anonymous RSS $many KiB after $R requests, $few KiB after $R_FEW: more than 10 MB apart"
echo "test-flows-untraced: peak anonymous RSS $few KiB after $R_FEW requests, $many KiB after $R"
