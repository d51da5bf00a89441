#!/usr/bin/env bash
# flows -I: the phases of a two-phase program. flowwork twophase pushes
# 229376 bytes through a pipe whose reader is slow (backpressure), then
# 1400 bytes into a reader that waits for each (consumer-starved): one
# flow, balanced over the whole run. Every 300 ms an interval gives the
# flows that moved in it with that interval's bytes, waits and verdict: a
# backpressure interval comes, later a consumer-starved one; the intervals'
# bytes, writes and blocked times add up exactly to the whole run's, which
# follows as the table of old. The same in text and in --json ("intervals").
# Then 8,000 connections, whose closed flows fold: the intervals add up still.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

FLOWWORK=$top_builddir/tests/flowwork
need_exe "$FLOWWORK"
live_setup "flows -I on a live command" jq

# The bytes the workload moved, as it says them: "flowwork: twophase bytes=N ...".
workload_bytes() {
	sed -n 's/^flowwork: twophase bytes=\([0-9]*\) .*/\1/p' "$T/err"
}

run timeout 60 "$IPCPERF" flows -I 300 --json -o "$T/f.json" -- "$FLOWWORK" twophase -v
expect_status 0 "flows -I 300 --json -- flowwork twophase"
total=$(workload_bytes)
[ "$total" = 230776 ] || { show; fail "flowwork twophase said ${total:-nothing}, expected bytes=230776"; }
j=$T/f.json
n=$(jq '.intervals | length' "$j")
[ "$n" -ge 4 ] || { jq -c '.intervals' "$j" >&2; fail "$n intervals in a run of ~2 s at -I 300, expected >= 4"; }
[ "$(jq '[.flows[] | select(.bytes > 0)] | length' "$j")" -eq 1 ] ||
	{ jq -c '.flows' "$j" >&2; fail "the whole run: not one flow with bytes"; }
[ "$(jq '.flows[0].bytes' "$j")" -eq "$total" ] ||
	{ jq -c '.flows' "$j" >&2; fail "the whole run's flow has not the workload's $total bytes"; }
# Numbered from 1, each ending after the one before; their lengths add up to the run's.
jq -e '[.intervals[].interval] == [range(1; (.intervals | length) + 1)]' "$j" >/dev/null ||
	fail "the intervals are not numbered 1..$n"
jq -e '[.intervals[].time_ns] as $t | [range(1; $t | length) | $t[.] > $t[. - 1]] | all' "$j" \
	>/dev/null || fail "the intervals' ends do not increase"
jq -e '([.intervals[].duration_ns] | add) == .duration_ns' "$j" >/dev/null ||
	fail "the intervals' lengths do not add up to the run's duration_ns"
# Exact sums: bytes, writes, blocked times; each group the sum of its flows.
for k in bytes writes bytes_written writer_blocked_ns reader_blocked_ns; do
	whole=$(jq ".flows[0].$k" "$j")
	sum=$(jq "[.intervals[].flows[].$k] | add" "$j")
	[ "$sum" = "$whole" ] ||
		{ jq -c ".intervals[] | [.interval, [.flows[].$k]]" "$j" >&2
		  fail "the intervals' $k add up to $sum, the whole run's is $whole"; }
	gsum=$(jq "[.intervals[].flow_groups[].$k] | add" "$j")
	[ "$gsum" = "$sum" ] ||
		fail "the intervals' groups' $k add up to $gsum, their flows' to $sum"
done
[ "$(jq '.flows[0].writes' "$j")" -eq 70 ] || fail "the whole run: not the 56 + 14 writes"
# The phases: backpressure in an interval, consumer-starved only in later ones.
verdicts=$(jq -r '.intervals[] | [.interval, (.flows | map(.verdict) | join(","))] | @tsv' "$j")
bp=$(awk -F'\t' '$2 == "backpressure" { print $1; exit }' <<<"$verdicts")
lastbp=$(awk -F'\t' '$2 == "backpressure" { l = $1 } END { print l }' <<<"$verdicts")
cs=$(awk -F'\t' '$2 == "consumer-starved" { print $1; exit }' <<<"$verdicts")
[ -n "$bp" ] && [ -n "$cs" ] && [ "$lastbp" -lt "$cs" ] ||
	{ printf '%s\n' "$verdicts" >&2
	  fail "expected backpressure intervals, then consumer-starved ones (first $bp, last ${lastbp:-none}, starved from ${cs:-none})"; }
# The backpressure interval's waits are the writers', the starved one's the readers'.
jq -e --argjson b "$bp" --argjson c "$cs" '
	(.intervals[$b - 1].flows[0] | .writer_blocked_ns > 2 * .reader_blocked_ns) and
	(.intervals[$c - 1].flows[0] | .reader_blocked_ns > 2 * .writer_blocked_ns)' "$j" >/dev/null ||
	fail "interval $bp or $cs: its blocked times do not give its verdict"

# The text: each interval's heading and table as it ends, then the whole run's.
run timeout 60 "$IPCPERF" flows -I 300 -- "$FLOWWORK" twophase -v
expect_status 0 "flows -I 300 -- flowwork twophase"
total=$(workload_bytes)
[ "$total" = 230776 ] || { show; fail "flowwork twophase said ${total:-nothing}, expected bytes=230776"; }
sed '/^ipcperf flows: /,$d' "$T/out" >"$T/ivs"
sed -n '/^ipcperf flows: /,$p' "$T/out" >"$T/whole"
heads=$(grep -c '^--- [0-9.]* s: interval of [0-9.]* s ---$' "$T/ivs")
[ "$heads" -ge 4 ] || { show; fail "$heads interval headings, expected >= 4"; }
# A row: "PID comm -> PID comm pipe:[N] pipe BYTES ..."
sum=$(awk '$3 == "->" && $6 ~ /^pipe:/ { s += $8 } END { print s + 0 }' "$T/ivs")
[ "$sum" -eq "$total" ] || { show; fail "the intervals' rows add up to $sum bytes, expected $total"; }
whole=$(awk '$3 == "->" && $6 ~ /^pipe:/ { print $8 }' "$T/whole")
[ "$whole" = "$total" ] || { show; fail "the whole run's table: '$whole' bytes, expected $total"; }
grep -q '^bottleneck: ' "$T/whole" || { show; fail "the whole run's table is not the table of old"; }
grep -q '^bottleneck: \|^verdict: ' "$T/ivs" && { show; fail "an interval with the whole run's notes"; }
first_bp=$(grep -n 'backpressure$' "$T/ivs" | head -n 1 | cut -d: -f1)
last_bp=$(grep -n 'backpressure$' "$T/ivs" | tail -n 1 | cut -d: -f1)
first_cs=$(grep -n 'consumer-starved$' "$T/ivs" | head -n 1 | cut -d: -f1)
[ -n "$first_bp" ] && [ -n "$first_cs" ] && [ "$last_bp" -lt "$first_cs" ] ||
	{ show; fail "the text: not backpressure rows, then consumer-starved ones"; }
echo "test-flows-interval: $n intervals, backpressure in $bp, consumer-starved from $cs; $total bytes in all, as the whole run"

# Closed channels fold (accuracy.md, "Memory"): connwork tcp 8000, 16,000
# flows, folded past 4,096 in the whole run's flows object and in the
# intervals' one. The intervals still add up: their calls, bytes and
# matches, folds included, are the whole run's, to the call; so are their
# groups' (100 and 200 bytes a connection). The runs share one CPU, so
# that the workload waits while ipcperf reads (tests/test-memory.sh).
need_exe "$CONNWORK"
pin="taskset -c $(taskset -pc $$ | sed 's/.*: //; s/[,-].*//')"
C=8000
run timeout 120 $pin "$IPCPERF" flows -I 200 --json -o "$T/c.json" -- "$CONNWORK" tcp $C --out "$T/c.info"
expect_status 0 "flows -I 200 --json -- connwork tcp $C"
[ "$(jq .lost_events "$T/c.json")" = 0 ] || fail "connwork tcp $C: events lost"
got=$(jq -r '[(.folded_flows > 0), ([.intervals[].folded_flows] | add > 0)] +
	([.flows, [.intervals[].flows[]], [.intervals[].flow_groups[]]] | map(
	  [([.[].writes] | add), ([.[].reads] | add), ([.[].bytes] | add), ([.[].matches] | add)]))
	| flatten | map(tostring) | join(" ")' "$T/c.json")
want="true true $((2 * C)) $((2 * C)) $((300 * C)) $((2 * C))"
want="$want $((2 * C)) $((2 * C)) $((300 * C)) $((2 * C)) $((2 * C)) $((2 * C)) $((300 * C)) $((2 * C))"
[ "$got" = "$want" ] || fail "connwork tcp $C, folded: '$got', not '$want' (folds; whole run, intervals, their groups: writes reads bytes matches)"
echo "test-flows-interval: $C connections, $(jq .folded_flows "$T/c.json") flows folded, the intervals add up"
