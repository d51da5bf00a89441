#!/usr/bin/env bash
# Captures of several hosts (ipcperf paths -i A -i B).
#  - A capture says its host (record --host NAME, else the hostname) and its
#    clock reference (CLOCK_MONOTONIC and CLOCK_REALTIME read together at
#    the start and the stop): paths -i gives both (text heading, JSON
#    "hosts"); a capture written before they were recorded (the entries
#    made unknown ones) still gives its requests, its host from perf's
#    hostname header and no clock. Bad --host: usage errors.
# Needs root and jq.
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
echo "ok"
