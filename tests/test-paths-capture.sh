#!/usr/bin/env bash
# Request paths of a capture (ipcperf record, then ipcperf paths -i FILE),
# on tests/pathwork: clients, a proxy that spins X ms a request and a
# backend that sleeps Y ms. For a thread-per-connection proxy on unix
# sockets and an epoll proxy on TCP:
#  - paths -i: the N requests, one shape "client -> proxy -> backend", none
#    unattributed, no event lost, and the self medians of the proxy and the
#    backend within 10% (or 0.2 ms) of those the processes measured of
#    themselves while they were recorded;
#  - paths -i twice, and report --view paths: the same document, byte for
#    byte (--requests: every request, its hops, their times);
#  - the same answer as live: paths --record F gives its report live and
#    writes F; paths -i F then gives that report again, request by request,
#    to the nanosecond (only the command's exit status is not in a capture).
# Then the text report of a capture; a capture cut short: one line naming
# the offset, exit 1, no report; a capture whose recorder did not finish:
# a warning that it is partial, exit 0, and its requests, each one of the
# whole capture's; targets or --record with -i: a usage error.
# Needs root and jq.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/paths-lib.sh"
paths_setup "recording a client, a proxy and a backend"

N=40
X=1
Y=3
TRUTH=$T/truth

# check MODE TRANSPORT: record, then the paths of the capture.
check() {
	MODE="$1/$2"
	local F=$T/$1-$2.data J=$T/$1-$2.json
	run timeout 120 "$IPCPERF" record -q -o "$F" -- "$PATHWORK" -m "$1" -t "$2" -n $N -c 2 -x $X -y $Y
	expect_status 0 "$MODE: ipcperf record"
	cp "$T/out" "$T/truth"
	grep -qx "requests $N" "$T/truth" || { show; fail "$MODE: pathwork did not serve $N requests"; }
	run "$IPCPERF" paths --json -i "$F" -o "$J"
	expect_status 0 "$MODE: paths -i"
	[ -s "$T/err" ] && { show; fail "$MODE: paths -i said something on stderr"; }
	[ "$(jq .lost_events "$J")" = 0 ] || fail "$MODE: events were lost: $(jq .lost_events "$J")"
	[ "$(jq .requests "$J")" = $N ] || fail "$MODE: $(jq .requests "$J") requests, want $N"
	[ "$(jq '.unattributed | add' "$J")" = 0 ] ||
		fail "$MODE: requests not attributed: $(jq -c .unattributed "$J")"
	[ "$(jq -c '[.shapes[] | [.shape, .count]]' "$J")" = "[[\"client -> proxy -> backend\",$N]]" ] ||
		fail "$MODE: shapes $(jq -c '[.shapes[] | [.shape, .count]]' "$J")"
	hops_are "$J" "[[\"proxy\",-1,\"$2\"],[\"backend\",0,\"$2\"]]"
	near "$MODE: the proxy's self p50" "$(jq '.shapes[0].hops[0].self_ns.p50' "$J")" \
		"$(truth proxy)"
	near "$MODE: the backend's self p50" "$(jq '.shapes[0].hops[1].self_ns.p50' "$J")" \
		"$(truth backend)"

	# the same document each time, and from report --view paths
	run "$IPCPERF" paths --json --requests -i "$F" -o "$T/r1.json"
	expect_status 0 "$MODE: paths -i --requests"
	run "$IPCPERF" paths --json --requests -i "$F" -o "$T/r2.json"
	expect_status 0 "$MODE: paths -i --requests, again"
	cmp -s "$T/r1.json" "$T/r2.json" || fail "$MODE: two reads of one capture differ"
	[ "$(jq '.request_list | length' "$T/r1.json")" = $N ] || fail "$MODE: not $N requests listed"
	run "$IPCPERF" report -i "$F" --view paths --json --requests -o "$T/r3.json"
	expect_status 0 "$MODE: report --view paths"
	cmp -s "$T/r1.json" "$T/r3.json" || fail "$MODE: report --view paths differs from paths -i"
	echo "test-paths-capture: $MODE: $N requests, proxy self p50" \
		"$(jq '.shapes[0].hops[0].self_ns.p50' "$J") ns (truth $(truth proxy)), backend" \
		"$(jq '.shapes[0].hops[1].self_ns.p50' "$J") ns (truth $(truth backend))"
}

check thread unix
check epoll tcp

# Live and from the capture written meanwhile: the same report, request by request.
run timeout 120 "$IPCPERF" paths -q --json --requests --record "$T/live.data" -o "$T/live.json" -- \
	"$PATHWORK" -m epoll -t unix -n $N -c 2 -x $X -y $Y
expect_status 0 "paths --record"
[ "$(jq .requests "$T/live.json")" = $N ] || fail "paths --record: $(jq .requests "$T/live.json") requests live"
run "$IPCPERF" paths --json --requests -i "$T/live.data" -o "$T/again.json"
expect_status 0 "paths -i of paths --record's capture"
[ "$(jq -S 'del(.exit_status)' "$T/live.json")" = "$(jq -S . "$T/again.json")" ] || {
	diff <(jq -S 'del(.exit_status)' "$T/live.json") <(jq -S . "$T/again.json") | head -n 20 >&2
	fail "the capture's paths differ from those given live"
}
echo "test-paths-capture: live and from its capture: the same $N requests"

# The text report of a capture names it.
F=$T/thread-unix.data
run "$IPCPERF" paths -i "$F"
expect_status 0 "paths -i, text"
head -n 1 "$T/out" | grep -qF "Request paths of capture $F: $N requests in 1 shape" ||
	{ show; fail "the text report does not name its capture"; }
grep -q "^client -> proxy -> backend: $N requests\$" "$T/out" || { show; fail "the text report has no block"; }

# Cut short: one line with the offset, exit 1, no report.
read -r off size < <(od -A n -t u8 -j 40 -N 16 "$F")
head -c $((off + size - 10)) "$F" >"$T/cut.data"
run "$IPCPERF" paths --json -i "$T/cut.data"
expect_status 1 "paths -i of a capture cut short"
[ "$(grep -c '' "$T/err")" = 1 ] && grep -q "cut.data: offset 0x[0-9a-f]*: .*(truncated file)\$" "$T/err" ||
	{ show; fail "a capture cut short: not one line naming the offset"; }
[ -s "$T/out" ] && { show; fail "a capture cut short: a report was printed"; }

# The recorder did not finish (the header's data size is 0) and its last record is cut:
# partial, and said so; each request it gives is one of the whole capture's, to the ns.
head -c $((off + size * 7 / 10)) "$F" >"$T/part.data"
printf '\0\0\0\0\0\0\0\0' | dd of="$T/part.data" bs=1 seek=48 conv=notrunc 2>/dev/null
run "$IPCPERF" paths --json --requests -i "$T/part.data"
expect_status 0 "paths -i of a partial capture"
grep -q '^ipcperf: warning: .*part.data: partial capture: ' "$T/err" ||
	{ show; fail "a partial capture: no warning that it is partial"; }
got=$(jq .requests "$T/out")
[ "$got" -gt 0 ] && [ "$got" -lt $N ] || { show; fail "a partial capture: $got requests"; }
run "$IPCPERF" paths --json --requests -i "$F" -o "$T/whole.json"
expect_status 0 "paths -i of the whole capture"
extra=$(comm -23 <(jq -c '.request_list[]' "$T/out" | sort) <(jq -c '.request_list[]' "$T/whole.json" | sort) |
	grep -c '')
[ "$extra" = 0 ] || fail "a partial capture: $extra requests that the whole capture does not have"
echo "test-paths-capture: a partial capture: $got of the $N requests, each as in the whole one"

# A capture's targets are its recording's.
run "$IPCPERF" paths -i "$F" -p 1
expect_status 2 "paths -i with -p"
[ "$(grep -c '' "$T/err")" = 1 ] && grep -q '^ipcperf: -i reads a capture' "$T/err" ||
	{ show; fail "paths -i with -p: not the one line"; }
run "$IPCPERF" paths -i "$F" --record "$T/again.data"
expect_status 2 "paths -i with --record"
[ "$(grep -c '' "$T/err")" = 1 ] && grep -q '^ipcperf: -i reads a capture and --record' "$T/err" ||
	{ show; fail "paths -i with --record: not the one line"; }
run "$IPCPERF" report -i "$F" --view paths --requests
expect_status 2 "report --view paths --requests without --json"
