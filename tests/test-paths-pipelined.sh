#!/usr/bin/env bash
# Pipelined requests followed as request paths (ipcperf paths), on
# tests/pathwork -P: each of 2 clients writes P requests back to back (a
# write call each) before it reads their P answers; the proxy (a thread per
# connection, or an epoll loop) spins X ms on each and passes it to a
# backend that sleeps Y ms. The requests of a client's turn pair with the
# proxy's answers first in, first out, by byte ranges:
#  - every request is one path: "requests" is N exactly (not N / P: one
#    exchange per turn), all of one shape, none left unattributed, no event
#    lost;
#  - the medians of the proxy's and the backend's own time are within 10%
#    (or 0.2 ms) of the medians the processes measured of themselves;
#  - each request's hops add up to its end-to-end time, to the nanosecond;
#    its request bytes are one request's (100), its response one answer's
#    (200).
# Needs root and jq.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

PATHWORK=$top_builddir/tests/pathwork
skip_unless_root "tracing a pipelining client, a proxy and a backend"
need_exe "$IPCPERF"
need_exe "$PATHWORK"
command -v jq >/dev/null || fail "jq is missing (scripts/install-deps installs it)"
make_tmpdir

N=64
P=4
X=1
Y=2

# near WHAT GOT WANT: GOT (ns) within 10% of WANT, or 0.2 ms.
near() {
	local diff=$(($2 - $3)) tol=$(($3 / 10))
	[ "$tol" -ge 200000 ] || tol=200000
	[ "${diff#-}" -le "$tol" ] || { show; fail "$1: $2 ns, want $3 ns (within $tol ns)"; }
}

# truth ROLE: the median its process measured of itself.
truth() {
	local v
	v=$(awk -v r="$1" '$1 == r && $2 == "self" { print $4 }' "$T/out")
	[ -n "$v" ] || { show; fail "$MODE: pathwork printed no median for the $1"; }
	echo "$v"
}

# check MODE TRANSPORT
check() {
	MODE="$1/$2 -P $P"
	local J=$T/paths.json
	run timeout 120 "$IPCPERF" paths --json --requests -q -o "$J" -- \
		"$PATHWORK" -m "$1" -t "$2" -n $N -c 2 -x $X -y $Y -P $P
	expect_status 0 "$MODE: ipcperf paths"
	grep -qx "requests $N" "$T/out" || { show; fail "$MODE: pathwork did not serve $N requests"; }
	[ "$(jq .lost_events "$J")" = 0 ] || fail "$MODE: events were lost: $(jq .lost_events "$J")"
	[ "$(jq .requests "$J")" = $N ] || fail "$MODE: $(jq .requests "$J") requests, want $N" \
		"(unattributed $(jq -c .unattributed "$J"))"
	[ "$(jq '.unattributed | add' "$J")" = 0 ] ||
		fail "$MODE: requests not attributed: $(jq -c .unattributed "$J")"
	[ "$(jq '.shapes | length' "$J")" = 1 ] || fail "$MODE: shapes $(jq -c '[.shapes[].shape]' "$J")"
	[ "$(jq -r '.shapes[0].shape' "$J")" = "client -> proxy -> backend" ] ||
		fail "$MODE: shape '$(jq -r '.shapes[0].shape' "$J")'"
	near "$MODE: the proxy's self p50" "$(jq '.shapes[0].hops[0].self_ns.p50' "$J")" "$(truth proxy)"
	near "$MODE: the backend's self p50" "$(jq '.shapes[0].hops[1].self_ns.p50' "$J")" "$(truth backend)"
	bad=$(jq '[.request_list[] | select(([.hops[] | .request_ns + .self_ns + .response_ns] | add)
		!= .end_to_end_ns)] | length' "$J")
	[ "$bad" = 0 ] || fail "$MODE: $bad requests whose hops do not add up to their end-to-end time"
	bad=$(jq '[.request_list[].hops[0] | select(.request_bytes != 100 or .response_bytes != 200)]
		| length' "$J")
	[ "$bad" = 0 ] || fail "$MODE: $bad requests whose bytes are not one request's and one answer's"
	echo "test-paths-pipelined: $MODE: $N requests, proxy self p50" \
		"$(jq '.shapes[0].hops[0].self_ns.p50' "$J") ns (truth $(truth proxy)), backend" \
		"$(jq '.shapes[0].hops[1].self_ns.p50' "$J") ns (truth $(truth backend))"
}

# The epoll proxy reads a client's pipelined requests ahead (its fd stays
# readable) and passes each on before the answers of the ones before come
# back: the backend's connection is pipelined too, as answers come back.
# Over unix sockets: on loopback TCP a write can return long after its
# reader has the bytes on a loaded machine, and the proxy's answer (its
# span's end) with it, while the ones after it wait in the channel.
check epoll unix
check thread tcp
