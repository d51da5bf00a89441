#!/usr/bin/env bash
# Request paths with -p and -- CMD together: a backend started first, apart
# (tests/pathwork -B), traced from now with -p; the clients and the proxy
# run as the command (pathwork -b ADDR). Every request is one path of the
# shape "client -> proxy -> backend", its backend hop in the process given
# with -p, none unattributed, no event lost, and the backend's own time p50
# within 10% (or 0.2 ms) of the median it measured of itself.
# Then the backend alone traced (-p), its clients and proxy not: no path,
# and each of the N requests it read counted as from a client not traced
# (untraced_client), nothing else unattributed; the text says why.
# Needs root and jq.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/paths-lib.sh"
paths_setup "tracing a backend with -p and its clients as the command"

N=40
bpid=
ipid=
trap '[ -n "$bpid" ] && kill "$bpid" 2>/dev/null; [ -n "$ipid" ] && kill "$ipid" 2>/dev/null
	rm -rf "$T"' EXIT

# backend OUT: a pathwork backend apart, saying itself in OUT; its pid in bpid, address in baddr
backend() {
	"$PATHWORK" -B -t unix -y 3 >"$1" &
	runner=$!
	for _ in $(seq 100); do
		[ -s "$1" ] && break
		sleep 0.05
	done
	read -r word bpid baddr <"$1"
	[ "$word" = backend ] && [ -n "$baddr" ] || fail "pathwork -B did not say its backend"
}
backend "$T/backend.out"

J=$T/paths.json
run timeout 120 "$IPCPERF" paths --json --requests -q -o "$J" -p "$bpid" -- \
	"$PATHWORK" -t unix -b "$baddr" -n $N -c 2 -x 1 -y 3
expect_status 0 "paths -p BACKEND -- pathwork -b"
grep -qx "requests $N" "$T/out" || { show; fail "pathwork did not serve $N requests"; }
kill -TERM "$bpid"
wait "$runner" || fail "the backend apart failed"
bpid=
truth=$(awk '$1 == "backend" && $2 == "self" { print $4 }' "$T/backend.out")
[ -n "$truth" ] || fail "the backend printed no median of its own"

[ "$(jq .lost_events "$J")" = 0 ] || fail "events were lost: $(jq .lost_events "$J")"
[ "$(jq .requests "$J")" = $N ] || fail "$(jq .requests "$J") requests, want $N"
[ "$(jq '.unattributed | add' "$J")" = 0 ] || fail "requests not attributed: $(jq -c .unattributed "$J")"
[ "$(jq -c '[.shapes[] | [.shape, .count]]' "$J")" = "[[\"client -> proxy -> backend\",$N]]" ] ||
	fail "shapes $(jq -c '[.shapes[] | [.shape, .count]]' "$J")"
want=$(awk '{ print $2 }' "$T/backend.out" | head -n 1)
[ "$(jq -c '[.request_list[].hops[1].pid] | unique' "$J")" = "[$want]" ] ||
	fail "backend hops in $(jq -c '[.request_list[].hops[1].pid] | unique' "$J"), not in -p $want"
got=$(jq '.shapes[0].hops[1].self_ns.p50' "$J")
tol=$((truth / 10))
[ "$tol" -ge 200000 ] || tol=200000
diff=$((got - truth))
[ "${diff#-}" -le "$tol" ] || fail "the backend's self p50: $got ns, want $truth ns (within $tol ns)"

# --- the backend alone traced: its clients are not
backend "$T/backend2.out"
"$IPCPERF" paths --json -o "$T/alone.json" -p "$bpid" 2>"$T/alone.err" &
ipid=$!
wait_live "$T/alone.err"
"$PATHWORK" -t unix -b "$baddr" -n $N -c 2 -x 1 -y 3 >"$T/untraced.out" 2>&1 ||
	fail "the untraced clients failed: $(cat "$T/untraced.out")"
grep -qx "requests $N" "$T/untraced.out" || fail "the untraced clients did not make $N requests"
kill -INT "$ipid"
wait "$ipid" || fail "paths -p BACKEND ended with $?: $(cat "$T/alone.err")"
ipid=
kill -TERM "$bpid"
wait "$runner"
bpid=
[ "$(jq -c '[.requests, .unattributed.untraced_client, (.unattributed | add)]' "$T/alone.json")" = \
	"[0,$N,$N]" ] ||
	fail "the backend alone: $(jq -c '[.requests, .unattributed]' "$T/alone.json"), want 0 paths and $N requests from a client not traced"
echo "test-paths-targets: -p backend -- clients and proxy: $N requests, backend self p50 $got ns (truth $truth); the backend alone: $N requests from clients not traced"

