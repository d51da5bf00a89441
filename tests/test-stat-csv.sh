#!/usr/bin/env bash
# stat -x writes its counter rows as perf stat -x does (issue #23, item 2):
# after "counter,PID,COMM", perf's seven fields value, unit, event, run time,
# running %, metric value, metric unit, with perf's formats:
#  - the same workload under `perf stat -x ,` and `ipcperf stat -x ,`: every
#    counter both print has the same unit, the same event name, the same
#    metric unit (CPUs utilized, K/sec, ...) and values of the same form
#    (task-clock in msec with 2 decimals, counts as integers); a counter the
#    machine lacks reads "<not supported>,,EVENT,0,100.00,," in both;
#  - the metric is the value over the run's duration (the summary row) as
#    perf computes it, to the decimals printed;
#  - with -x ';' every field of those rows is separated by ';';
#  - the header names the fields and says schema 2.
# Needs root and perf (Debian linux-perf); fails under CI=true otherwise.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

skip_unless_root "stat -x against perf stat -x"
need_exe "$IPCPERF"
need_exe "$IPCWORK"
need_perf
make_tmpdir
TMO=60
W="$IPCWORK pipe"

run timeout $TMO perf stat -x , -o "$T/perf" -- $W
expect_status 0 "perf stat -x , -- $W"
run timeout $TMO "$IPCPERF" stat -q --scope=task -x , -- $W
expect_status 0 "ipcperf stat -x , -- $W"
cp "$T/out" "$T/ipc"

grep -qx '#counter,pid,comm,value,unit,event,run_ns,running_pct,metric_value,metric_unit' \
	"$T/ipc" || { show; fail "no counter header with perf's fields"; }
grep -q '^# ipcperf .* stat, schema 2:' "$T/ipc" || { show; fail "the header does not say schema 2"; }

# perf's lines: value,unit,event,run,pct,metric,munit (perf may add more fields: cut at 7).
grep -v '^#' "$T/perf" | grep -v '^$' | cut -d, -f1-7 >"$T/perf7"
# ipcperf's counter rows of the command's process: drop "counter,PID,COMM".
grep '^counter,' "$T/ipc" | cut -d, -f4- >"$T/ipc7"
[ -s "$T/ipc7" ] || { show; fail "no counter rows"; }

# form VALUE: the shape of a value, as perf prints it.
form() {
	case $1 in
	'<not supported>' | '<not counted>') printf '%s' "$1" ;;
	*[!0-9.]* | '') printf 'other:%s' "$1" ;;
	*.??) printf 'decimal2' ;;
	*.*) printf 'decimal' ;;
	*) printf 'integer' ;;
	esac
}

compared=0
while IFS=, read -r val unit ev run pct mv mu; do
	line=$(grep -m1 "^[^,]*,[^,]*,$ev," "$T/perf7") || continue
	IFS=, read -r pval punit _ prun ppct pmv pmu <<<"$line"
	compared=$((compared + 1))
	[ "$unit" = "$punit" ] || fail "$ev: unit '$unit', perf's '$punit'"
	[ "$(form "$val")" = "$(form "$pval")" ] ||
		fail "$ev: value '$val' is not of the form of perf's '$pval'"
	# a rate's prefix (K/sec, M/sec) follows its size, which differs run to run
	[ "${mu#[KMG]}" = "${pmu#[KMG]}" ] || fail "$ev: metric unit '$mu', perf's '$pmu'"
	case $val in
	'<'*)
		[ "$val,$unit,$ev,$run,$pct,$mv,$mu" = "$line" ] ||
			fail "$ev: '$val,$unit,$ev,$run,$pct,$mv,$mu', perf: '$line'"
		;;
	*)
		case $run in '' | *[!0-9]*) fail "$ev: run time '$run' is not ns" ;; esac
		case $pct in *.??) ;; *) fail "$ev: running % '$pct' (perf: '$ppct')" ;; esac
		[ "$(form "$mv")" = "$(form "$pmv")" ] ||
			fail "$ev: metric '$mv' is not of the form of perf's '$pmv'"
		[ -n "$prun" ] || fail "perf gave no run time for $ev"
		;;
	esac
done <"$T/ipc7"
[ "$compared" -ge 4 ] || { cat "$T/perf7" "$T/ipc7" >&2; fail "only $compared counters compared with perf's"; }

# The metrics: value over the run's duration, as perf computes them.
dur=$(awk -F, '$1 == "summary" { print $2 }' "$T/ipc")
[ -n "$dur" ] || { show; fail "no summary row"; }
awk -F, -v dur="$dur" '
	$1 != "counter" || $4 ~ /^</ { next }
	$6 == "task-clock" { want = $4 * 1e6 / dur; tol = 0.0005 + 0.005e6 / dur }
	$6 != "task-clock" && $10 ~ /\/sec$/ {
		want = $4 / (dur / 1e9)
		if ($10 == "K/sec") want /= 1e3
		if ($10 == "M/sec") want /= 1e6
		if ($10 == "G/sec") want /= 1e9
		tol = 0.0005 + want * 1e-9
	}
	$6 != "task-clock" && $10 !~ /\/sec$/ { next }
	{
		d = $9 - want; if (d < 0) d = -d
		if (d > tol) { printf "%s: metric %s, expected %.6f\n", $6, $9, want; bad = 1 }
		n++
	}
	END { exit bad || n < 3 }' "$T/ipc" || fail "the metrics are not the values over the duration"

# Another separator: every field of the counter rows.
run timeout $TMO "$IPCPERF" stat -q --scope=task -x ';' -- $W
expect_status 0 "ipcperf stat -x ';'"
awk -F';' '$1 == "counter" && NF != 10 { print; bad = 1 } $1 == "counter" { n++ }
	END { exit bad || !n }' "$T/out" || { show; fail "-x ';': counter rows without 10 fields"; }
echo "PASS: ${0##*/}: $compared counters as perf stat -x writes them"
