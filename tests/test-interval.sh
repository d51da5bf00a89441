#!/usr/bin/env bash
# stat -I's compact text: a header line, then one line per process and
# interval whose counts are the exact deltas: for each process, the sums of
# its lines (ops, bytes read, bytes written, context switches) are the
# totals of the full report that follows; the producer of flowwork
# backpressure, whose I/O is known, sums to its 64 writes of 4096 bytes.
# --interval-full gives the full tables of each interval again.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

need_exe "$IPCPERF"
FLOWWORK=$top_builddir/tests/flowwork
need_exe "$FLOWWORK"
skip_unless_root "stat -I on a live command"
make_tmpdir

run timeout 60 "$IPCPERF" stat -I 200 -- "$FLOWWORK" backpressure
expect_status 0 "stat -I 200 -- flowwork backpressure"

# The interval lines: up to the totals' heading.
sed '/^--- total/,$d' "$T/out" >"$T/lines"
head -n 1 "$T/lines" | grep -q '^# *time  process  *ops  *read B  *write B  *cs  *MB/s  busiest fd$' ||
	{ show; fail "the compact lines do not start with their header"; }
[ "$(grep -c '^#' "$T/lines")" -eq 1 ] || { show; fail "the header is repeated within 25 lines"; }
grep -q '^--- total' "$T/out" || { show; fail "no totals after the intervals"; }
grep -q -- '--- .* interval of' "$T/out" && { show; fail "the full tables of an interval without --interval-full"; }

# Per pid: lines, distinct times, sums of ops, read B, write B, cs.
awk '!/^#/ { split($2, a, /[][]/); p = a[2]; n[p]++; if (!seen[p, $1]++) t[p]++
	     o[p] += $3; i[p] += $4; w[p] += $5; c[p] += $6 }
     END { for (p in n) print p, n[p], t[p], o[p], i[p], w[p], c[p] }' "$T/lines" | sort >"$T/sums"
# Per pid in the totals: the fd rows' read ops/bytes ($4 $5), write ops/bytes ($9 $10), switches.
sed -n '/^--- total/,$p' "$T/out" | awk '
	/^pid / { p = $2 }
	p && $1 ~ /^[0-9]+$/ && NF >= 14 { o[p] += $4 + $9; i[p] += $5; w[p] += $10 }
	/^  context switches:/ { c[p] = $3 + $5 }
	END { for (p in c) if (o[p] + i[p] + w[p] + c[p]) print p, o[p] + 0, i[p] + 0, w[p] + 0, c[p] }' |
	sort >"$T/totals"
[ "$(wc -l <"$T/sums")" -eq 2 ] || { cat "$T/sums" >&2; show; fail "expected the lines of 2 processes"; }
while read -r pid lines times ops in out cs; do
	[ "$lines" -eq "$times" ] || fail "pid $pid: $lines lines in $times intervals, expected one each"
	grep -qx "$pid $ops $in $out $cs" "$T/totals" ||
		{ cat "$T/sums" "$T/totals" >&2; fail "pid $pid: the lines sum to $ops ops, $in B read, $out B written, $cs switches: not the totals"; }
done <"$T/sums"
# The producer: 64 writes of 4096 bytes, spread over several intervals (the consumer takes ~1.3 s).
producer=$(awk '$6 == 262144' "$T/sums")
[ -n "$producer" ] || { cat "$T/sums" >&2; fail "no process wrote 262144 bytes in the lines"; }
set -- $producer
[ "$4" -eq 64 ] && [ "$5" -eq 0 ] || fail "producer: $4 ops, $5 B read; expected 64 and 0"
consumer_lines=$(awk -v p="$1" '$1 != p { print $2 }' "$T/sums")
[ "$consumer_lines" -ge 5 ] || { cat "$T/lines" >&2; fail "the consumer in $consumer_lines intervals, expected >= 5"; }

# Many lines: the header again before every 25th line (as perf stat -I repeats its own).
run timeout 60 "$IPCPERF" stat -I 40 -- "$FLOWWORK" backpressure
expect_status 0 "stat -I 40 -- flowwork backpressure"
sed '/^--- total/,$d' "$T/out" >"$T/lines"
n=$(grep -vc '^#' "$T/lines")
h=$(grep -c '^#' "$T/lines")
[ "$n" -gt 25 ] && [ "$h" -eq $(((n + 24) / 25)) ] ||
	{ show; fail "-I 40: $h headers for $n lines, expected one before every 25th"; }
awk '/^#/ { if (NR > 1 && (NR - 1 - h) % 25) bad = 1; h++ } END { exit bad }' "$T/lines" ||
	{ show; fail "-I 40: a header not before the 25th line after the last"; }

run timeout 60 "$IPCPERF" stat -I 200 --interval-full -- "$FLOWWORK" backpressure
expect_status 0 "stat -I 200 --interval-full"
grep -q -- '^--- .* interval of' "$T/out" && ! grep -q '^# *time  process' "$T/out" ||
	{ show; fail "--interval-full: not the full tables"; }
echo "test-interval: one line per process and interval, summing to the totals; --interval-full as before"
