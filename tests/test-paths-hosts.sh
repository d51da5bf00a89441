#!/usr/bin/env bash
# Captures of several hosts (ipcperf paths -i A -i B).
#  - A capture says its host (record --host NAME, else the hostname) and its
#    clock reference (CLOCK_MONOTONIC and CLOCK_REALTIME read together at
#    the start and the stop): paths -i gives both (text heading, JSON
#    "hosts"); a capture written before they were recorded (the entries
#    made unknown ones) still gives its requests, its host from perf's
#    hostname header and no clock. Bad --host: usage errors.
#  - Two hosts: two network namespaces joined by a veth pair; a client and
#    a proxy (tests/pathwork) in one, its backend in the other, each
#    namespace recorded by its own ipcperf record --host. paths -i A -i B:
#    every request one path of 3 processes (client@front -> proxy@front ->
#    backend@back), none unattributed, the 2 TCP connections between the
#    hosts joined; the hosts' clocks (one kernel's: the true offset is 0)
#    found 0 within their stated uncertainty; the proxy's and the
#    backend's self medians within 10% (or 0.2 ms) of what they measured;
#    each request's hops add up to its end-to-end time.
#  - One capture's clock shifted by 50 ms (its recorded wall clock: more
#    than the 20 ms the paths wait for late calls): the offset found is
#    50 ms within its uncertainty, and every request's hop times are those
#    of the unshifted join, to the nanosecond.
#  - One capture's clock drifting: the wall clock read at its stop 3 ms
#    later than its start's says (1 s or so apart). No one offset fits the
#    exchanges then: the join finds the drift the references gave (within
#    what its uncertainty allows over the requests' span), says it in JSON
#    and text, and every request's times are those of the undrifted join
#    within the uncertainty.
#  - --perfetto of the join, read by tests/perfetto-check.py (as
#    tests/test-paths-out.sh): the proxy and the backend N server slices
#    each, every arrow bound; the processes named proxy@front,
#    client@front and backend@back.
#  - --otlp of the join, read by the protobufjs schema of opentelemetry-proto
#    (tests/otlp-check.js, as tests/test-paths-out.sh): N traces, each the
#    chain client -> proxy -> backend across the hosts, within the run's
#    wall clock; each resource has its host.name (front, front, back).
#  - report -i A -i B (its flows view, the default with several -i): each
#    connection between the hosts one flow a direction, proxy@front ->
#    backend@back and back, whose bytes are exactly what each host's own
#    report says its end wrote and the other's read (and the workload's
#    N x 100 up, N x 200 back); wire times ordered, +- the clock's
#    uncertainty; the hosts' own flows without those halves, their
#    processes named with their host; --view stat of two: a usage error.
#  - Captures that share no connection: one error line, exit 1 (paths and
#    report's flows view); so do
#    captures whose connections one of them joined already open (the
#    backend recorded with -p once the proxy's 2 connections are up):
#    their start not captured, counted (2), never matched by a guess.
# Needs root, jq, ip (iproute2), node and npm (the schema: scripts/install-deps
# puts it in tests/npm; else npm installs it into the build tree).
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/paths-lib.sh"
paths_setup "recording a client, a proxy and a backend"
CLOCKED="python3 $top_srcdir/tests/capture-clock.py"

N=20

# --- one capture: its host and its clock reference
F=$T/one.data
run timeout 120 "$IPCPERF" record -q --host web-1 -o "$F" -- "$PATHWORK" -t tcp -n $N -c 1 -x 1 -y 2
expect_status 0 "record --host web-1"
run "$IPCPERF" paths -j -i "$F" -o "$T/one.json"
expect_status 0 "paths -i of a capture with its host"
[ "$(jq -c '[.hosts[] | .name]' "$T/one.json")" = '["web-1"]' ] ||
	fail "hosts: $(jq -c .hosts "$T/one.json"), want web-1"
[ "$(jq .requests "$T/one.json")" = $N ] || fail "$(jq .requests "$T/one.json") requests, want $N"
# read together: the wall clock less the monotonic one is the same at the
# start and at the stop (within 1 ms), and the stop is after the start
read -r ms rs me re < <(grep -o '"[a-z]*_st[a-z]*_ns": [0-9]*' "$T/one.json" | awk '{ print $2 }' |
	tr '\n' ' ')
[ -n "${re:-}" ] || fail "no clock reference: $(jq -c .hosts "$T/one.json")"
[ "$me" -gt "$ms" ] || fail "clock: the stop $me is not after the start $ms"
d=$(( (re - me) - (rs - ms) ))
[ "${d#-}" -le 1000000 ] || fail "clock: real - mono moved by $d ns between the start and the stop"

# paths --record --host: the same
run timeout 120 "$IPCPERF" paths -q -o /dev/null --record "$T/p.data" --host web-2 -- \
	"$PATHWORK" -t tcp -n 4 -c 1 -x 0.2 -y 0.2
expect_status 0 "paths --record --host web-2"
run "$IPCPERF" paths -j -i "$T/p.data" -o "$T/p.json"
expect_status 0 "paths -i of paths --record --host"
[ "$(jq -c '[.hosts[] | .name, (.clock | type)]' "$T/p.json")" = '["web-2","object"]' ] ||
	fail "paths --record --host: hosts $(jq -c .hosts "$T/p.json")"

# the traces of a capture are on its recorded wall clock: a day later, shifted by a day
DAY=86400000000000
cp "$F" "$T/day.data"
$CLOCKED shift "$T/day.data" $DAY || fail "cannot shift the clock"
for c in one day; do
	run "$IPCPERF" paths -q -o /dev/null --otlp "$T/$c.otlp" -i "$T/$c.data"
	expect_status 0 "paths --otlp -i $c.data"
done
# the first span's start, exact (jq's numbers are doubles)
first() { grep -o '"startTimeUnixNano":"[0-9]*"' "$1" | tr -dc '0-9\n' | sort -n | head -n 1; }
d=$(( $(first "$T/day.otlp") - $(first "$T/one.otlp") ))
[ "$d" = $DAY ] || fail "the traces of a capture shifted a day moved by $d ns"

# --- a capture without them: as before
cp "$F" "$T/old.data"
$CLOCKED strip "$T/old.data" || fail "cannot make the old capture"
run "$IPCPERF" paths -j -i "$T/old.data" -o "$T/old.json"
expect_status 0 "paths -i of a capture without host and clock"
[ "$(jq -c '.hosts' "$T/old.json")" = "[{\"name\":\"$(uname -n)\",\"clock\":null}]" ] ||
	fail "old capture: hosts $(jq -c .hosts "$T/old.json")"
[ "$(jq .requests "$T/old.json")" = $N ] || fail "old capture: $(jq .requests "$T/old.json") requests"
run "$IPCPERF" report -i "$T/old.data"
expect_status 0 "report -i of a capture without host and clock"

# --- usage errors
run "$IPCPERF" record --host "a b" -o "$T/x.data" -- true
expect_status 2 "record --host 'a b'"
grep -q "invalid host name 'a b' for --host" "$T/err" || { show; fail "--host 'a b': no reason"; }
run "$IPCPERF" record --host "$(printf '%065d' 0)" -o "$T/x.data" -- true
expect_status 2 "record --host of 65 characters"
run "$IPCPERF" paths --host web-1 -- true
expect_status 2 "paths --host without --record"
grep -q "add --record FILE" "$T/err" || { show; fail "paths --host: no fix"; }
# --- two hosts: network namespaces joined by a veth pair
command -v ip >/dev/null || fail "ip is not installed (scripts/install-deps installs iproute2)"
NA=ipcperf-front-$$
NB=ipcperf-back-$$
VA=ipf$$
VB=ipb$$
RB=
cleanup() {
	[ -n "$RB" ] && kill "$RB" 2>/dev/null
	ip netns del "$NA" 2>/dev/null
	ip netns del "$NB" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
ip netns add "$NA" && ip netns add "$NB" || fail "cannot make the network namespaces"
ip link add "$VA" type veth peer name "$VB" || fail "cannot make the veth pair"
ip link set "$VA" netns "$NA" && ip link set "$VB" netns "$NB" &&
	ip -n "$NA" addr add 192.0.2.1/24 dev "$VA" && ip -n "$NB" addr add 192.0.2.2/24 dev "$VB" &&
	ip -n "$NA" link set lo up && ip -n "$NB" link set lo up &&
	ip -n "$NA" link set "$VA" up && ip -n "$NB" link set "$VB" up ||
	fail "cannot set up the veth pair"

# backend_port OUT WHAT: the backend started in the background (WHAT, for
# the message) wrote its pid and port to OUT within 30 s: BPID and PORT
# from there, or fail.
backend_port() {
	for _ in $(seq 300); do
		[ -s "$1" ] && break
		sleep 0.1
	done
	read -r _ BPID PORT <"$1" || fail "$2 did not start: $(cat "$T/back.err")"
}

N=40
X=1
Y=3
T0=$(date +%s%N)
ip netns exec "$NB" "$IPCPERF" record -q --host back -o "$T/b.data" -- \
	"$PATHWORK" -t tcp -B -A 192.0.2.2 -y $Y >"$T/back.out" 2>"$T/back.err" &
RB=$!
backend_port "$T/back.out" "the backend"
run timeout 120 ip netns exec "$NA" "$IPCPERF" record -q --host front -o "$T/a.data" -- \
	"$PATHWORK" -t tcp -b "192.0.2.2:$PORT" -n $N -c 2 -x $X -y $Y
expect_status 0 "record --host front"
cp "$T/out" "$T/truth"
kill -TERM "$BPID"
wait "$RB" || fail "the backend's recording failed: $(cat "$T/back.err")"
RB=
T1=$(date +%s%N)
cat "$T/back.out" >>"$T/truth"
TRUTH=$T/truth
grep -qx "requests $N" "$TRUTH" || fail "pathwork did not serve $N requests"

# join JSON A B: paths -i A -i B --json --requests into JSON
join() {
	run "$IPCPERF" paths --json --requests -i "$2" -i "$3" -o "$1"
	expect_status 0 "paths -i $2 -i $3"
	[ -s "$T/err" ] && { show; fail "paths -i $2 -i $3 said something on stderr"; }
	[ "$(jq .requests "$1")" = $N ] ||
		fail "$(jq .requests "$1") requests, want $N; $(jq -c '{lost_events, unattributed,
			tcp_between_hosts, hosts: [.hosts[] | {name, offset_ns, uncertainty_ns}]}' "$1")"
	[ "$(jq '.unattributed | add' "$1")" = 0 ] ||
		fail "requests not attributed: $(jq -c .unattributed "$1")"
	[ "$(jq -c .tcp_between_hosts "$1")" = '{"joined":2,"unseen_start":0,"no_peer":0}' ] ||
		fail "TCP between the hosts: $(jq -c .tcp_between_hosts "$1")"
	[ "$(jq -c '[.shapes[] | [.shape, .count]]' "$1")" = \
		"[[\"client@front -> proxy@front -> backend@back\",$N]]" ] ||
		fail "shapes $(jq -c '[.shapes[] | [.shape, .count]]' "$1")"
	# each request: 3 processes, the backend across the hosts
	[ "$(jq -c '[.request_list[] | [.host, (.hops[] | .comm, .host, .caller_host)]] | unique' \
		"$1")" = '[["front","proxy","front","front","backend","back","front"]]' ] ||
		fail "requests' hops: $(jq -c '[.request_list[] | [.host, (.hops[] | .comm, .host)]] |
			unique' "$1")"
	[ "$(jq '[.request_list[] | select(([.hops[] | .request_ns + .self_ns + .response_ns] |
		add) != .end_to_end_ns)] | length' "$1")" = 0 ] ||
		fail "requests whose hops do not add up to their end-to-end time"
}
join "$T/j.json" "$T/a.data" "$T/b.data"
read -r OFF U < <(jq -r '.hosts[1] | "\(.offset_ns) \(.uncertainty_ns)"' "$T/j.json")
[ "${OFF#-}" -le "$U" ] || fail "one kernel's clocks: offset $OFF ns found, +-$U ns"
[ "$U" -gt 0 ] && [ "$U" -lt 5000000 ] || fail "uncertainty $U ns"
MODE="joined"
near "the proxy's self p50" "$(jq '.shapes[0].hops[0].self_ns.p50' "$T/j.json")" "$(truth proxy)"
near "the backend's self p50" "$(jq '.shapes[0].hops[1].self_ns.p50' "$T/j.json")" \
	"$(truth backend)"
run "$IPCPERF" paths -i "$T/a.data" -i "$T/b.data"
expect_status 0 "paths -i A -i B, text"
grep -q "^       back (.*b.data): its clock [-+].* +-.* against front's$" "$T/out" ||
	{ show; fail "the text does not give the offset"; }
grep -q "^    backend@back (tcp) " "$T/out" || { show; fail "the text has no backend@back hop"; }

# --- report's flows of the join: each connection between the hosts one flow a direction
# the truth, per connection end: each host's own report, where the other end is not traced
for h in a b; do
	run "$IPCPERF" report --view flows --json -i "$T/$h.data" -o "$T/$h.flows.json"
	expect_status 0 "report --view flows -i $h.data"
done
# [writer ino, reader ino, bytes] of the joined flows, and of one side's halves
joined='[.joined_flows[] | [.writer.ino, .reader.ino, .bytes]] | sort'
wrote='[.flows[] | select(.kind == "tcp" and .readers == []) | [.ino, .bytes_written]] | sort'
took='[.flows[] | select(.kind == "tcp" and .writers == []) | [.reader_ino, .bytes]] | sort'
run "$IPCPERF" report --json -i "$T/a.data" -i "$T/b.data" -o "$T/rf.json"
expect_status 0 "report --json -i a.data -i b.data (the flows view: the default with two -i)"
[ -s "$T/err" ] && { show; fail "report -i A -i B said something on stderr"; }
[ "$(jq -c '[.joined_flows[] | .name] | sort' "$T/rf.json")" = \
	'["backend@back -> proxy@front","backend@back -> proxy@front","proxy@front -> backend@back","proxy@front -> backend@back"]' ] ||
	fail "report's joined flows: $(jq -c '[.joined_flows[] | .name]' "$T/rf.json")"
[ "$(jq -c .tcp_between_hosts "$T/rf.json")" = '{"joined":2,"unseen_start":0,"no_peer":0}' ] ||
	fail "report's TCP between the hosts: $(jq -c .tcp_between_hosts "$T/rf.json")"
# the bytes: exactly what the writing host wrote and the reading host read
for d in "front a b" "back b a"; do
	set -- $d
	got=$(jq -c "[.joined_flows[] | select(.writer.host == \"$1\") | [.writer.ino, .bytes]] | sort" \
		"$T/rf.json")
	want=$(jq -c "$wrote" "$T/$2.flows.json")
	[ "$got" = "$want" ] && [ "$got" != "[]" ] ||
		fail "joined flows from $1: [ino, bytes] $got, what $1 wrote: $want"
	got=$(jq -c "[.joined_flows[] | select(.writer.host == \"$1\") | [.reader.ino, .bytes]] | sort" \
		"$T/rf.json")
	want=$(jq -c "$took" "$T/$3.flows.json")
	[ "$got" = "$want" ] || fail "joined flows from $1: [ino, bytes] $got, what the other read: $want"
done
# and the workload's figures (tests/pathwork): N requests of 100 bytes up, N answers of 200 back
[ "$(jq '[.joined_flows[] | select(.writer.host == "front") | .bytes] | add' "$T/rf.json")" = \
	$((N * 100)) ] && [ "$(jq '[.joined_flows[] | select(.writer.host == "back") | .bytes] |
	add' "$T/rf.json")" = $((N * 200)) ] || fail "joined bytes: $(jq -c "$joined" "$T/rf.json")"
# wire times: ordered, none negative, +- the back's clock's uncertainty
[ "$(jq '[.joined_flows[] | select(.wire_ns.min < 0 or .wire_ns.min > .wire_ns.p50 or
	.wire_ns.p50 > .wire_ns.p99 or .wire_ns.p99 > .wire_ns.max or .matches < 1)] |
	length' "$T/rf.json")" = 0 ] ||
	fail "joined wire times: $(jq -c '[.joined_flows[] | .wire_ns]' "$T/rf.json")"
RU=$(jq '.hosts[1].uncertainty_ns' "$T/rf.json")
[ "$RU" -gt 0 ] && [ "$(jq "[.joined_flows[] | select(.uncertainty_ns != $RU)] | length" \
	"$T/rf.json")" = 0 ] || fail "joined flows' uncertainty: $(jq -c '[.joined_flows[] |
	.uncertainty_ns]' "$T/rf.json"), the back's clock's $RU"
# each host's own flows: the halves of the joined connections are not there again
[ "$(jq -c '[.hosts[] | [.name, ([.flows[] | select(.writers == [] or .readers == [])] |
	length)]]' "$T/rf.json")" = '[["front",0],["back",0]]' ] ||
	fail "report's hosts still have the joined halves: $(jq -c '[.hosts[] | .flows]' "$T/rf.json")"
[ "$(jq '.hosts[0].flows | length' "$T/rf.json")" = 4 ] ||
	fail "front's own flows (client <-> proxy, 2 connections): $(jq '.hosts[0].flows | length' "$T/rf.json")"
run "$IPCPERF" report --view flows -i "$T/a.data" -i "$T/b.data"
expect_status 0 "report --view flows -i A -i B, text"
b='[0-9]+ backend@back'
p='[0-9]+ proxy@front'
w='[0-9.]+[mun]?s \+-[0-9.]+[mun]?s'
[ "$(grep -cE "^$p +-> +$b +192\.0\.2\.1:[0-9]+ -> 192\.0\.2\.2:$PORT +[0-9]+ +$w +$w\$" \
	"$T/out")" = 2 ] &&
	[ "$(grep -cE "^$b +-> +$p +192\.0\.2\.2:$PORT -> 192\.0\.2\.1:[0-9]+ +[0-9]+ +$w +$w\$" \
	"$T/out")" = 2 ] ||
	{ show; fail "the text has not the 2 joined flows each way with their wire times +-"; }
grep -q "^[0-9]* proxy@front *-> *[0-9]* client@front " "$T/out" ||
	{ show; fail "the text does not name the front's processes with their host"; }
grep -q "^TCP connections between the hosts: 2 joined, 0 not" "$T/out" ||
	{ show; fail "the text does not count the joined connections"; }
# views that cannot join: one line, usage
run "$IPCPERF" report --view stat -i "$T/a.data" -i "$T/b.data"
expect_status 2 "report --view stat of two captures"
[ "$(wc -l <"$T/err")" = 1 ] && grep -q "use --view flows or --view paths" "$T/err" ||
	{ show; fail "report --view stat of two captures: not one line saying what to use"; }

# --- one clock shifted: found, and corrected
SHIFT=50000000
cp "$T/b.data" "$T/bs.data"
$CLOCKED shift "$T/bs.data" $SHIFT || fail "cannot shift the clock"
join "$T/js.json" "$T/a.data" "$T/bs.data"
read -r OFFS US < <(jq -r '.hosts[1] | "\(.offset_ns) \(.uncertainty_ns)"' "$T/js.json")
d=$((OFFS - SHIFT))
[ "${d#-}" -le "$US" ] || fail "shifted by $SHIFT ns: offset $OFFS ns found, +-$US ns"
hops='[.request_list[] | [.start_ns, .end_ns, (.hops[] | .request_ns, .self_ns, .response_ns)]]'
[ "$(jq -c "$hops" "$T/js.json")" = "$(jq -c "$hops" "$T/j.json")" ] ||
	fail "the shifted join's hop times differ from the unshifted one's"

# --- one clock drifting: its wall clock read at the stop DRIFT ns later than
# the one read at the start says, as if the host's clock had gained DRIFT ns
# over its capture. The clock references then put its events on the first
# host's clock with that drift; no one offset fits the bounds any more, and
# the join must find the drift back and take it off.
DRIFT=3000000
cp "$T/b.data" "$T/bd.data"
$CLOCKED shift-stop "$T/bd.data" $DRIFT || fail "cannot shift the clock's stop"
join "$T/jd.json" "$T/a.data" "$T/bd.data"
read -r PPB UD MS ME < <(jq -r '.hosts[1] | "\(.drift_ppb) \(.uncertainty_ns) \(.clock.mono_start_ns)
	\(.clock.mono_stop_ns)"' "$T/jd.json" | tr '\n' ' ')
[ "$PPB" != null ] || fail "a drifting clock: no drift found ($(jq -c .hosts[1] "$T/jd.json"))"
# the rate the references gave it (ppb), found back within what the
# uncertainty allows: two lines within +-UD of each other at both ends of
# the exchanges' span differ in rate by 2 UD / span at most (the requests'
# span is a little longer than the exchanges': 3 UD)
WANT=$((DRIFT * 1000000000 / (ME - MS)))
SPAN=$(jq '([.request_list[].end_ns] | max) - ([.request_list[].start_ns] | min)' "$T/jd.json")
TOL=$((3 * UD * 1000000000 / SPAN))
d=$((PPB - WANT))
[ "${d#-}" -le "$TOL" ] || fail "a clock drifting $WANT ppb: $PPB ppb found (+-$TOL)"
[ "$UD" -lt 1000000 ] || fail "a drifting clock: uncertainty $UD ns"
# every time of every request as in the join of the undrifted captures,
# within the two joins' uncertainties
paste <(jq -c "$hops | flatten | .[]" "$T/j.json") <(jq -c "$hops | flatten | .[]" "$T/jd.json") |
	awk -v u="$((UD + U))" '{ d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d }
		END { if (NR == 0 || m > u) { print "max difference " m " ns over " NR; exit 1 } }' \
	>"$T/diff" || fail "a drifting clock: the times differ from the undrifted join's: $(cat "$T/diff")"
run "$IPCPERF" paths -i "$T/a.data" -i "$T/bd.data"
expect_status 0 "paths -i A -i B of a drifting clock, text"
grep -q "^       back (.*bd.data): its clock [-+].* against front's at the middle of the exchanges, drifting [-+][0-9.]* ppm$" "$T/out" ||
	{ show; fail "the text does not give the drift"; }

# --- captures that share no connection
run "$IPCPERF" paths -i "$T/a.data" -i "$T/one.data"
expect_status 1 "paths of captures that share no connection"
[ "$(wc -l <"$T/err")" = 1 ] && grep -q "share no TCP connection" "$T/err" ||
	{ show; fail "captures that share no connection: not one line saying so"; }
run "$IPCPERF" report --view flows -i "$T/a.data" -i "$T/one.data"
expect_status 1 "report --view flows of captures that share no connection"
[ "$(wc -l <"$T/err")" = 1 ] && grep -q "share no TCP connection" "$T/err" && [ ! -s "$T/out" ] ||
	{ show; fail "report of captures that share no connection: not one line saying so"; }
# --- the backend recorded once its connections were open: their start not captured
ip netns exec "$NB" "$PATHWORK" -t tcp -B -A 192.0.2.2 -y $Y >"$T/back2.out" 2>"$T/back.err" &
RB=$!
backend_port "$T/back2.out" "the second backend"
# 2000 requests of 3 ms or more on 2 connections: 3 s at least
ip netns exec "$NA" "$IPCPERF" record -q --host front -o "$T/a2.data" -- \
	"$PATHWORK" -t tcp -b "192.0.2.2:$PORT" -n 2000 -c 2 -x 0 -y $Y >"$T/front2.out" 2>&1 &
RF=$!
for _ in $(seq 600); do
	[ "$(ip netns exec "$NB" ss -Htn state established "( sport = :$PORT )" | wc -l)" = 2 ] && break
	sleep 0.05
done
run timeout 60 ip netns exec "$NB" "$IPCPERF" record -q --host back -o "$T/b2.data" -d 1 -p "$BPID"
expect_status 0 "record -p of the backend"
wait "$RF" || fail "the front's recording failed: $(cat "$T/front2.out")"
kill -TERM "$BPID"
wait "$RB"
RB=
run "$IPCPERF" paths -i "$T/a2.data" -i "$T/b2.data"
expect_status 1 "paths of captures whose connections one joined already open"
want="share no TCP connection seen from both ends (2 with a start not captured, 0 ends"
[ "$(wc -l <"$T/err")" = 1 ] && grep -qF "$want" "$T/err" ||
	{ show; fail "connections whose start was not captured: not counted"; }
# --- the join's traces, each host's resources named by it
otlp_schema
run "$IPCPERF" paths -q -o /dev/null --otlp "$T/otlp.json" -i "$T/a.data" -i "$T/b.data"
expect_status 0 "paths --otlp of the join"
node "$top_srcdir/tests/otlp-check.js" "$T/otlp.json" $N tcp "$T0" "$T1" >"$T/check" 2>&1 ||
	fail "--otlp of the join: $(cat "$T/check")"
[ "$(jq -c '[.resourceSpans[].resource.attributes | from_entries | .["service.name"].stringValue,
	.["host.name"].stringValue]' "$T/otlp.json")" = '["client","front","proxy","front","backend","back"]' ] ||
	fail "--otlp of the join: resources $(jq -c '[.resourceSpans[].resource.attributes]' "$T/otlp.json")"
# --- the join's timeline: read by tests/perfetto-check.py, each process named with its host
run "$IPCPERF" paths -q -o /dev/null --perfetto "$T/timeline.json" -i "$T/a.data" -i "$T/b.data"
expect_status 0 "paths --perfetto of the join"
python3 "$top_srcdir/tests/perfetto-check.py" "$T/timeline.json" $N >"$T/check" 2>&1 ||
	fail "--perfetto of the join: $(cat "$T/check")"
[ "$(jq -c '[.traceEvents[] | select(.name == "process_name") | .args.name] | sort' \
	"$T/timeline.json")" = '["backend@back","client@front","proxy@front"]' ] ||
	fail "--perfetto of the join: processes $(jq -c '[.traceEvents[] |
		select(.name == "process_name") | [.pid, .args.name]]' "$T/timeline.json")"

echo "test-paths-hosts: $N requests across two hosts, each one path of 3 processes; offset $OFF +-$U ns; shifted by $SHIFT: $OFFS +-$US ns; drifting $WANT ppb: $PPB ppb +-$UD ns"
