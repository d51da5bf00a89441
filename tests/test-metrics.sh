#!/usr/bin/env bash
# ipcperf stat's metrics on the demo workload's exact I/O (9100 bytes
# through a pipe, 1 go byte through another): --openmetrics FILE passes
# `promtool check metrics` and holds the exact byte counts; with -I the file
# is replaced whole at every interval (a reader never sees part of one, the
# totals only grow, no temporary file stays); --listen answers a request
# during the run and says a port in use or a bad address in one line; -e
# chooses the counters by perf's names. The captures trace per task
# (--scope task): on a loaded machine the records of everyone else would
# fill the rings, and the numbers checked here are the workload's. Needs
# root; promtool from Debian's prometheus package (scripts/install-deps).
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

need_exe "$IPCPERF"
need_exe "$IPCWORK"
make_tmpdir

# Usage errors need no root: exit 2 and one line that says what to give.
run "$IPCPERF" stat --listen :9633 -- true
expect_status 2 "stat --listen :9633"
grep -q "invalid address ':9633' for --listen" "$T/err" || { show; fail "--listen :9633: no clear error"; }
run "$IPCPERF" stat --listen-linger 5 -- true
expect_status 2 "stat --listen-linger without --listen"
run "$IPCPERF" stat -e task-clock,bogus -- true
expect_status 2 "stat -e bogus"
grep -q "unknown event 'bogus' for -e: give some of task-clock,page-faults,context-switches,cpu-migrations,cycles,instructions,cache-references,cache-misses" "$T/err" ||
	{ show; fail "stat -e bogus: the valid names are not listed"; }
run "$IPCPERF" stat -e task-clock --no-counters -- true
expect_status 2 "stat -e task-clock --no-counters"
grep -q -- "-e chooses counters and --no-counters opens none: give one of them" "$T/err" ||
	{ show; fail "stat -e with --no-counters: no clear error"; }

skip_unless_root "metrics of real runs"
command -v promtool >/dev/null || fail "promtool is not installed (Debian's prometheus package: scripts/install-deps)"

# sum_of FILE SELECTOR: the sum of the samples whose line starts with SELECTOR.
sum_of() {
	awk -v sel="$2" 'index($0, sel) == 1 { s += $NF; n++ } END { if (n) printf "%d\n", s; else print "none" }' "$1"
}

# The totals, a series per fd and flow (--metrics-per-fd): exact, and what promtool accepts.
run "$IPCPERF" stat --scope task --flows --metrics-per-fd --openmetrics "$T/m.prom" -o "$T/report" -- "$IPCWORK" pipe --hold 100
expect_status 0 "stat --openmetrics"
promtool check metrics <"$T/m.prom" >"$T/lint" 2>&1 || { cat "$T/lint" >&2; fail "promtool check metrics rejects the file"; }
[ "$(tail -n 1 "$T/m.prom")" = "# EOF" ] || fail "the file does not end with '# EOF'"
got=$(grep '^ipcperf_fd_bytes_total{comm="ipcwork",kind="pipe",' "$T/m.prom" | grep 'direction="write"' | awk '{ print $NF }' | sort -n | tr '\n' ' ')
[ "$got" = "1 9100 " ] || { cat "$T/m.prom" >&2; fail "written into pipes: '$got', expected the go byte and 9100"; }
got=$(grep '^ipcperf_fd_bytes_total{comm="ipcwork",kind="pipe",' "$T/m.prom" | grep 'direction="read"' | awk '{ print $NF }' | sort -n | tr '\n' ' ')
[ "$got" = "1 9100 " ] || fail "read from pipes: '$got', expected 1 and 9100"
# 10 + 5 + 3 writes of the data, and the go byte: 19 write ops; the histogram counts them all.
[ "$(sum_of "$T/m.prom" 'ipcperf_fd_latency_seconds_count{comm="ipcwork",kind="pipe",')" -ge 30 ] ||
	fail "the latency histograms count fewer calls than the workload made"
got=$(grep '^ipcperf_flow_bytes_total{kind="pipe",' "$T/m.prom" | awk '{ print $NF }' | sort -n | tr '\n' ' ')
[ "$got" = "1 9100 " ] || fail "flow bytes: '$got', expected 1 and 9100"
grep -q '^ipcperf_flow_verdict{.*verdict="balanced"} [01]$' "$T/m.prom" || fail "no verdict series"
[ "$(grep -c '^ipcperf_flow_verdict{' "$T/m.prom")" -eq 8 ] || fail "not four verdict series per flow (backpressure, consumer-starved, balanced, idle)"
grep -q '^ipcperf_perf_task_clock_seconds_total{comm="ipcwork"} [0-9.]*$' "$T/m.prom" || fail "no task-clock of the command"
grep -q '^ipcperf_lost_events_total 0$' "$T/m.prom" || echo "test-metrics: events were lost on this loaded machine" >&2
# A counter the machine lacks is absent, never 0.
if grep -q '<not supported>.*cycles' "$T/report"; then
	! grep -q '^ipcperf_perf_cycles_total' "$T/m.prom" || fail "cycles is not supported here, yet has a series"
fi
ls -A "$T" | grep -q '^\.m\.prom\.' && fail "a temporary file was left beside the metrics"

# By default no object label: the two pipes of ipcwork (the go byte and the
# data) are one series per direction, their sums; the flows likewise.
run "$IPCPERF" stat --scope task --flows --openmetrics "$T/d.prom" -o /dev/null -- "$IPCWORK" pipe --hold 100
expect_status 0 "stat --openmetrics (default labels)"
promtool check metrics <"$T/d.prom" >"$T/lint" 2>&1 || { cat "$T/lint" >&2; fail "promtool check metrics rejects the default file"; }
grep -q 'object=' "$T/d.prom" && { cat "$T/d.prom" >&2; fail "an object label without --metrics-per-fd"; }
got=$(grep '^ipcperf_fd_bytes_total{comm="ipcwork",kind="pipe",direction="write"}' "$T/d.prom" | awk '{ print $NF }' | tr '\n' ' ')
[ "$got" = "9101 " ] || { cat "$T/d.prom" >&2; fail "written into pipes (default labels): '$got', expected one series of 9101"; }
got=$(grep '^ipcperf_fd_bytes_total{comm="ipcwork",kind="pipe",direction="read"}' "$T/d.prom" | awk '{ print $NF }' | tr '\n' ' ')
[ "$got" = "9101 " ] || fail "read from pipes (default labels): '$got', expected one series of 9101"
got=$(grep '^ipcperf_flow_bytes_total{kind="pipe",' "$T/d.prom" | awk '{ print $NF }' | tr '\n' ' ')
[ "$got" = "9101 " ] || fail "flow bytes (default labels): '$got', expected one series of 9101"

# -I: the file is replaced every interval; every version a reader opens is whole.
"$IPCPERF" stat --scope task -I 20 --metrics-per-fd --openmetrics "$T/i.prom" -o /dev/null -- "$IPCWORK" pipe --hold 1200 2>"$T/err" &
pid=$!
inodes=
reads=0
last=0
while kill -0 "$pid" 2>/dev/null; do
	cp "$T/i.prom" "$T/snap" 2>/dev/null || continue
	# A new file each time: its inode (a freed one may come back) and when it was made.
	inodes="$inodes $(stat -c %i@%Z.%z "$T/i.prom" 2>/dev/null | tr -d ' ')"
	reads=$((reads + 1))
	[ "$(head -n 1 "$T/snap")" = "# HELP ipcperf_info The ipcperf that measured." ] &&
		[ "$(tail -n 1 "$T/snap")" = "# EOF" ] || { kill "$pid"; cat "$T/snap" >&2; fail "read a partial file"; }
	now=$(sum_of "$T/snap" 'ipcperf_fd_bytes_total{comm="ipcwork"')
	[ "$now" = none ] && now=0
	[ "$now" -ge "$last" ] || { kill "$pid"; fail "the bytes went down from $last to $now: not running totals"; }
	last=$now
	sleep 0.005
done
wait "$pid" || { cat "$T/err" >&2; fail "stat -I 20 --openmetrics failed"; }
distinct=$(echo "$inodes" | tr ' ' '\n' | sort -u | grep -c .)
# Every read found another file: one per -I interval.
[ "$distinct" -ge 3 ] || fail "the file was replaced $distinct times in $reads reads, expected one per interval"
promtool check metrics <"$T/i.prom" >"$T/lint" 2>&1 || { cat "$T/lint" >&2; fail "promtool rejects the -I file"; }
got=$(grep '^ipcperf_fd_bytes_total{comm="ipcwork",kind="pipe",' "$T/i.prom" | grep 'direction="write"' | awk '{ print $NF }' | sort -n | tr '\n' ' ')
[ "$got" = "1 9100 " ] || fail "-I: the last file holds '$got', not the totals 1 and 9100"
ls -A "$T" | grep -q '^\.i\.prom\.' && fail "-I: a temporary file was left"

# A path that cannot be written fails before the command runs.
run "$IPCPERF" stat --openmetrics "$T/no/such/dir.prom" -- "$IPCWORK" pipe
expect_status 1 "stat --openmetrics into a missing directory"
grep -q "cannot write the metrics to $T/no/such/dir.prom: No such file or directory" "$T/err" || { show; fail "no clear error"; }
ln -s "$T/m.prom" "$T/link.prom"
run "$IPCPERF" stat --openmetrics "$T/link.prom" -- "$IPCWORK" pipe
expect_status 1 "stat --openmetrics onto a symbolic link"
grep -q "refusing to write the metrics to $T/link.prom: it is a symbolic link" "$T/err" || { show; fail "no clear error for a link"; }

# --listen: a request during the run (bash's /dev/tcp: no client needed), then a port in use.
"$IPCPERF" stat --scope task --listen 127.0.0.1:0 -o /dev/null -- sleep 30 2>"$T/listen.err" &
pid=$!
for _ in $(seq 100); do grep -q 'serving metrics at' "$T/listen.err" && break; sleep 0.1; done
addr=$(sed -n 's|.*serving metrics at http://\([^/]*\)/metrics$|\1|p' "$T/listen.err")
[ -n "$addr" ] || { kill "$pid"; cat "$T/listen.err" >&2; fail "--listen said no address"; }
exec 3<>"/dev/tcp/${addr%:*}/${addr##*:}" || { kill "$pid"; fail "cannot connect to $addr"; }
printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3
timeout 10 cat <&3 >"$T/scrape"
exec 3<&-
run "$IPCPERF" stat --listen "$addr" -- true
kill "$pid"
wait "$pid" 2>/dev/null
expect_status 1 "stat --listen on a port in use"
grep -q "cannot listen on $addr: Address already in use" "$T/err" || { show; fail "no clear error for a port in use"; }
head -n 1 "$T/scrape" | grep -q '^HTTP/1.1 200 OK' || { cat "$T/scrape" >&2; fail "GET /metrics: not 200"; }
grep -q '^Content-Type: text/plain; version=0.0.4' "$T/scrape" || fail "GET /metrics: not the text format"
sed '1,/^\r$/d' "$T/scrape" >"$T/body"
promtool check metrics <"$T/body" >"$T/lint" 2>&1 || { cat "$T/lint" >&2; fail "promtool rejects a scrape"; }

# -e: only the counters asked for; the others are not 'not supported'.
run "$IPCPERF" stat --scope task -e task-clock,page-faults -- "$IPCWORK" pipe
expect_status 0 "stat -e task-clock,page-faults"
grep -Eq ' task-clock +# +[0-9.]+ CPUs utilized$' "$T/out" &&
	grep -Eq ' page-faults +# +[0-9.]+ [KMG]?/sec$' "$T/out" || { show; fail "-e: chosen counters missing"; }
# As perf stat: CPUs utilized is task-clock over the time elapsed, a rate is
# the count over it, and the report ends with the time elapsed.
elapsed=$(sed -nE 's/^ +([0-9]+\.[0-9]{9}) seconds time elapsed$/\1/p' "$T/out")
[ -n "$elapsed" ] || { show; fail "no 'N seconds time elapsed' line"; }
awk -v el="$elapsed" '
	/ msec task-clock / { n++; want = $1 / 1000 / el; got = $(NF - 2)
		if (got < want - 0.0011 || got > want + 0.0011) bad = bad " task-clock " got " != " want }
	/ page-faults / { n++; want = $1 / el; got = $(NF - 1); u = $NF
		if (u == "K/sec") got *= 1e3; else if (u == "M/sec") got *= 1e6
		if (got < want * 0.999 - 0.001 || got > want * 1.001 + 0.001) bad = bad " page-faults " got " != " want }
	END { if (n < 2 || bad != "") { print "ratios:" bad " (lines " n ")"; exit 1 } }' "$T/out" ||
	{ show; fail "stat: a ratio is not the count over the time elapsed"; }
grep -Eq 'cycles|instructions|cache-|<not' "$T/out" && { show; fail "-e: counters not chosen are shown"; }
# The command's user and system seconds, as perf stat ends: together, the CPU
# time the command itself measured (ipcwork spin), plus its start (< 60 ms).
run "$IPCPERF" stat -q --no-fds -- "$IPCWORK" spin 200 --out "$T/spin"
expect_status 0 "stat -- ipcwork spin 200"
read -r _ s0 s1 <"$T/spin" || fail "ipcwork spin wrote nothing"
u=$(sed -nE 's/^ +([0-9.]+) seconds user$/\1/p' "$T/out")
y=$(sed -nE 's/^ +([0-9.]+) seconds sys$/\1/p' "$T/out")
[ -n "$u" ] && [ -n "$y" ] || { show; fail "no 'seconds user' and 'seconds sys' lines"; }
awk -v u="$u" -v y="$y" -v s0="$s0" -v s1="$s1" 'BEGIN {
	spin = (s1 - s0) / 1e9; cpu = u + y
	exit !(cpu >= spin - 0.002 && cpu <= spin + 0.06) }' ||
	{ show; fail "user $u + sys $y s is not the command's own CPU time $(( (s1 - s0) / 1000 )) us"; }

# A shell that has reaped a busy child and then execs ipcperf passes that
# child's time on to it (getrusage's children survive exec): not the command's.
run sh -c '"$1" spin 300 --out "$2/spin0" && exec "$3" stat -q --no-fds -- true' sh \
	"$IPCWORK" "$T" "$IPCPERF"
expect_status 0 "sh -c 'ipcwork spin 300; exec ipcperf stat -- true'"
u=$(sed -nE 's/^ +([0-9.]+) seconds user$/\1/p' "$T/out")
y=$(sed -nE 's/^ +([0-9.]+) seconds sys$/\1/p' "$T/out")
[ -n "$u" ] && [ -n "$y" ] || { show; fail "exec'd: no 'seconds user' and 'seconds sys' lines"; }
awk -v u="$u" -v y="$y" 'BEGIN { exit !(u + y < 0.06) }' ||
	{ show; fail "exec'd after a 300 ms child: true took user $u + sys $y s"; }

# --no-fds: the same report without its fd tables.
run "$IPCPERF" stat --scope task --no-fds -- "$IPCWORK" pipe
expect_status 0 "stat --no-fds"
grep -q 'task-clock' "$T/out" && grep -q 'context switches:' "$T/out" ||
	{ show; fail "--no-fds: the counters or the scheduling are missing"; }
grep -Eq 'fd kind|pipe:\[|fds without I/O' "$T/out" && { show; fail "--no-fds: an fd table is shown"; }
run "$IPCPERF" stat --scope task --json -e cycles -- "$IPCWORK" pipe
expect_status 0 "stat --json -e cycles"
[ "$(jq -r '.processes[] | select(.counters_status) | .counters_status.task_clock_ns' "$T/out")" = "not requested" ] ||
	{ show; fail "--json -e cycles: task_clock_ns is not 'not requested'"; }
# --no-counters: none opened, none shown; JSON says each was not requested.
run "$IPCPERF" stat --no-counters -- "$IPCWORK" pipe
expect_status 0 "stat --no-counters"
grep -Eq 'counters|task-clock|page-faults|<not' "$T/out" && { show; fail "--no-counters: counters shown"; }
run "$IPCPERF" stat --json --no-counters -- "$IPCWORK" pipe
expect_status 0 "stat --json --no-counters"
[ "$(jq -r '[.counters_status[], (.processes[] | select(.counters_status) | .counters_status[])] |
	unique | join(",")' "$T/out")" = "not requested" ] ||
	{ show; fail "--json --no-counters: a counter's status is not 'not requested'"; }
[ "$(jq -r '[.counters[], .processes[].counters[]] | map(select(. != null)) | length' "$T/out")" = 0 ] ||
	{ show; fail "--json --no-counters: a counter has a value"; }
run "$IPCPERF" list software
grep -q '^task-clock  *software' "$T/out" && grep -q '^cpu-migrations  *software' "$T/out" ||
	{ show; fail "list does not name the counters as perf does"; }
echo "test-metrics: the file, -I rewrites ($distinct in $reads reads), a scrape, -e and --no-counters all right"
