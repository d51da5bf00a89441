#!/usr/bin/env bash
# Request paths end to end (ipcperf paths), on tests/pathwork: C clients
# send N requests to a proxy that spins X ms on each and passes it to a
# backend that sleeps Y ms; the proxy runs a thread per connection, one
# epoll loop, or a worker pool (a reader thread hands each request to a
# worker through a mutex and a condition variable: the wakeup carries it),
# over unix sockets or loopback TCP. For each of the six:
#  - every request is one path: "requests" is N exactly, all of one shape,
#    "client -> proxy -> backend", none left unattributed, no event lost;
#  - the medians of the proxy's and the backend's own time (self_ns) are
#    within 10% (or 0.2 ms) of the medians the two processes measured of
#    themselves (pathwork prints them: the truth, a sleep of Y ms takes
#    longer on a loaded machine), and near X and Y;
#  - with --requests, each request's hops' channel and self times add up
#    to its end-to-end time, to the nanosecond, and each hop is on the
#    transport asked for;
#  - each hop's self time is split, exactly (cpu + runq + blocked = self
#    in every request): the proxy's cpu p50 within 10% (or 0.2 ms) of the
#    CPU time its threads measured of themselves (CLOCK_THREAD_CPUTIME_ID),
#    the backend's blocked p50 within as much of its sleep, Y ms.
# Then the text report (its block, its last line, 100 columns), and a run
# cut by -d: the requests under way then (one per client at most) are
# counted without an answer, the others are paths.
# Needs root and jq.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/paths-lib.sh"
paths_setup "tracing a client, a proxy and a backend"

N=60
X=1
Y=3

# split_check MODE JSON: the self time split, exact per request, its medians near the truth.
split_check() {
	local bad
	bad=$(jq '[.request_list[].hops[] | select(.cpu_ns == null or
		.cpu_ns + .runq_ns + .blocked_ns != .self_ns)] | length' "$2")
	[ "$bad" = 0 ] || fail "$1: $bad hops whose cpu + runq + blocked is not their self time"
	near "$1: the proxy's cpu p50" "$(jq '.shapes[0].hops[0].cpu_ns.p50' "$2")" "$(truth proxy cpu)"
	near "$1: the backend's blocked p50" "$(jq '.shapes[0].hops[1].blocked_ns.p50' "$2")" \
		$((Y * 1000000))
	echo "test-paths: $1: proxy cpu p50 $(jq '.shapes[0].hops[0].cpu_ns.p50' "$2") ns" \
		"(truth $(truth proxy cpu)), runq p50 $(jq '.shapes[0].hops[0].runq_ns.p50' "$2");" \
		"backend blocked p50 $(jq '.shapes[0].hops[1].blocked_ns.p50' "$2") ns"
}

# check MODE TRANSPORT
check() {
	MODE="$1/$2"
	local J=$T/paths.json
	run timeout 120 "$IPCPERF" paths --json --requests -q -o "$J" -- \
		"$PATHWORK" -m "$1" -t "$2" -n $N -c 2 -x $X -y $Y
	expect_status 0 "$MODE: ipcperf paths"
	grep -qx "requests $N" "$T/out" || { show; fail "$MODE: pathwork did not serve $N requests"; }
	[ "$(jq .lost_events "$J")" = 0 ] || fail "$MODE: events were lost: $(jq .lost_events "$J")"
	[ "$(jq .requests "$J")" = $N ] || fail "$MODE: $(jq .requests "$J") requests, want $N"
	[ "$(jq '.unattributed | add' "$J")" = 0 ] ||
		fail "$MODE: requests not attributed: $(jq -c .unattributed "$J")"
	[ "$(jq '.shapes | length' "$J")" = 1 ] || fail "$MODE: shapes $(jq -c '[.shapes[].shape]' "$J")"
	[ "$(jq -r '.shapes[0].shape' "$J")" = "client -> proxy -> backend" ] ||
		fail "$MODE: shape '$(jq -r '.shapes[0].shape' "$J")'"
	[ "$(jq '.shapes[0].count' "$J")" = $N ] || fail "$MODE: count $(jq '.shapes[0].count' "$J")"
	hops_are "$J" "[[\"proxy\",-1,\"$2\"],[\"backend\",0,\"$2\"]]"
	near "$MODE: the proxy's self p50" "$(jq '.shapes[0].hops[0].self_ns.p50' "$J")" "$(truth proxy)"
	near "$MODE: the backend's self p50" "$(jq '.shapes[0].hops[1].self_ns.p50' "$J")" "$(truth backend)"
	near "$MODE: the proxy's self p50 against X" "$(jq '.shapes[0].hops[0].self_ns.p50' "$J")" $((X * 1000000))
	[ "$(jq '.request_list | length' "$J")" = $N ] || fail "$MODE: $(jq '.request_list | length' "$J") requests listed"
	bad=$(jq '[.request_list[] | select(([.hops[] | .request_ns + .self_ns + .response_ns] | add)
		!= .end_to_end_ns)] | length' "$J")
	[ "$bad" = 0 ] || fail "$MODE: $bad requests whose hops do not add up to their end-to-end time"
	bad=$(jq --arg k "$2" '[.request_list[].hops[] | select(.kind != $k or .pid <= 0 or .fd < 0)] | length' "$J")
	[ "$bad" = 0 ] || fail "$MODE: $bad hops without their pid, fd or kind $2"
	split_check "$MODE" "$J"
	echo "test-paths: $MODE: $N requests, proxy self p50 $(jq '.shapes[0].hops[0].self_ns.p50' "$J") ns" \
		"(truth $(truth proxy)), backend $(jq '.shapes[0].hops[1].self_ns.p50' "$J") ns (truth $(truth backend))"
}

check thread unix
check epoll unix
check thread tcp
check epoll tcp
check pool unix
check pool tcp

# The text report: a block for the shape, its hops, the line that says where the time goes.
run timeout 120 "$IPCPERF" paths -q -o "$T/paths.txt" -- "$PATHWORK" -n 20 -c 2 -x 1 -y 3
expect_status 0 "the text report"
grep -q '^client -> proxy -> backend: 20 requests$' "$T/paths.txt" ||
	{ cat "$T/paths.txt" >&2; fail "the text report has no block for the shape"; }
grep -q '^most time: backend.s own time' "$T/paths.txt" ||
	{ cat "$T/paths.txt" >&2; fail "the text report does not end with where the time goes"; }
awk 'length > 100 { exit 1 }' "$T/paths.txt" || fail "the text report is wider than 100 columns"

# Cut by -d with requests under way: at most one per client (2) is left
# without its answer, counted as such, never handed out half. The cut may
# come before the answer was written (no_response) or while its bytes were
# on their way to the client (unread); nothing else may be counted.
run timeout 120 "$IPCPERF" paths --json -q -d 0.4 -o "$T/cut.json" -- "$PATHWORK" -n 100000 -c 2 -x 0.2 -y 0.2
expect_status 0 "paths -d 0.4"
got=$(jq .requests "$T/cut.json")
nr=$(jq '.unattributed.no_response + .unattributed.unread' "$T/cut.json")
[ "$got" -gt 10 ] && [ "$nr" -le 2 ] && [ "$(jq '.unattributed | add' "$T/cut.json")" = "$nr" ] ||
	fail "paths -d 0.4: $got requests, unattributed $(jq -c .unattributed "$T/cut.json")"
[ "$(jq '[.shapes[] | select(.shape != "client -> proxy -> backend")] | length' "$T/cut.json")" = 0 ] ||
	fail "paths -d 0.4: shapes $(jq -c '[.shapes[].shape]' "$T/cut.json")"
echo "test-paths: cut by -d: $got requests, $nr without an answer"
