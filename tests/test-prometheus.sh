#!/usr/bin/env bash
# A real Prometheus (Debian's package) scrapes `ipcperf stat --listen` of the
# demo workload, whose data pipe carries exactly 9100 bytes, and its query
# API must come to answer 9100. ipcperf listens on a port the kernel picks
# and, with --listen-linger, serves its final totals until one scrape has
# taken them; Prometheus gets its own config, storage in the scratch
# directory and a free loopback port, and is stopped here. Every wait is
# bounded (60 s in all for the answer), so the test fails rather than hangs.
# The capture traces per task (--scope task), so that a loaded machine's other
# records cannot crowd the workload's out of the rings. Needs root.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

need_exe "$IPCPERF"
need_exe "$IPCWORK"
skip_unless_root "a capture scraped by Prometheus"
for tool in prometheus curl jq; do
	command -v "$tool" >/dev/null || fail "$tool is not installed (scripts/install-deps installs it)"
done
make_tmpdir
prom_pid=
ipp_pid=
# stop PID: TERM, then KILL if it is still there after 10 s.
stop() {
	[ -n "$1" ] && kill -0 "$1" 2>/dev/null || return 0
	kill "$1" 2>/dev/null
	for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}
trap 'stop "$ipp_pid"; stop "$prom_pid"; rm -rf "$T"' EXIT
start=$(date +%s)

"$IPCPERF" stat --scope task --flows --metrics-per-fd --listen 127.0.0.1:0 --listen-linger 50 -o "$T/report" -- \
	"$IPCWORK" pipe --hold 100 2>"$T/ipcperf.err" &
ipp_pid=$!
for _ in $(seq 100); do grep -q 'serving metrics at' "$T/ipcperf.err" && break; sleep 0.1; done
target=$(sed -n 's|.*serving metrics at http://\([^/]*\)/metrics$|\1|p' "$T/ipcperf.err")
[ -n "$target" ] || { cat "$T/ipcperf.err" >&2; fail "ipcperf did not say where it serves"; }

cat >"$T/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: ipcperf
    scrape_timeout: 1s
    static_configs:
      - targets: ['$target']
EOF
# Prometheus on a loopback port nothing answers on (bash's /dev/tcp
# connects or fails at once), below the kernel's range of ports for
# connect() and port 0, from which the other tests' sockets take theirs. A
# port may still be taken between the look and prometheus' bind: then
# another, five times at most.
low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range)
[ "${low:-0}" -gt 12000 ] || low=32768
for try in 1 2 3 4 5; do
	for _ in $(seq 20); do
		port=$((10000 + RANDOM % (low - 10000)))
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break
	done
	prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/data" \
		--web.listen-address="127.0.0.1:$port" --log.level=warn >"$T/prometheus.log" 2>&1 &
	prom_pid=$!
	# Up (its readiness page answers), or gone.
	for _ in $(seq 100); do
		curl -s --max-time 1 -o /dev/null "http://127.0.0.1:$port/-/ready" && break
		kill -0 "$prom_pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$prom_pid" 2>/dev/null && break
	wait "$prom_pid"
	grep -q "address already in use" "$T/prometheus.log" && [ "$try" -lt 5 ] ||
		{ cat "$T/prometheus.log" >&2; fail "prometheus did not start"; }
done

# query EXPR: the value of the first series of EXPR now, or nothing. Series
# go stale at the first failed scrape after ipcperf is gone, so the queries
# look at the last minute (max_over_time), not at the last scrape only.
query() {
	curl -s --max-time 2 "http://127.0.0.1:$port/api/v1/query" --data-urlencode "query=$1" |
		jq -r '.data.result[0].value[1] // empty' 2>/dev/null
}

bytes=
flow=
while [ $(($(date +%s) - start)) -lt 60 ]; do
	kill -0 "$prom_pid" 2>/dev/null || { cat "$T/prometheus.log" >&2; fail "prometheus exited"; }
	bytes=$(query 'max(max_over_time(ipcperf_fd_bytes_total{kind="pipe",direction="write",job="ipcperf"}[1m]))')
	flow=$(query 'max(max_over_time(ipcperf_flow_bytes_total{kind="pipe",job="ipcperf"}[1m]))')
	[ "$bytes" = 9100 ] && [ "$flow" = 9100 ] && break
	sleep 0.5
done
if [ "$bytes" != 9100 ] || [ "$flow" != 9100 ]; then
	echo "--- ipcperf:" >&2
	cat "$T/ipcperf.err" >&2
	echo "--- prometheus:" >&2
	tail -n 20 "$T/prometheus.log" >&2
	curl -s --max-time 2 "http://127.0.0.1:$port/api/v1/targets" >&2
	fail "Prometheus has fd bytes '$bytes' and flow bytes '$flow' after 60 s, expected 9100"
fi
read_bytes=$(query 'max(max_over_time(ipcperf_fd_bytes_total{kind="pipe",direction="read",job="ipcperf"}[1m]))')
[ "$read_bytes" = 9100 ] || fail "Prometheus has $read_bytes bytes read from the pipe, expected 9100"
[ "$(query 'count(max_over_time(ipcperf_fd_latency_seconds_bucket{kind="pipe",direction="write",le="+Inf"}[1m]))')" = 2 ] ||
	fail "Prometheus has no latency histogram of the two pipes' writes"

# The scrape of the final totals let ipcperf go: it exits like the command.
for _ in $(seq 100); do kill -0 "$ipp_pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$ipp_pid" 2>/dev/null && fail "ipcperf still lingers after Prometheus scraped its final totals"
wait "$ipp_pid"
rc=$?
ipp_pid=
[ "$rc" -eq 0 ] || { cat "$T/ipcperf.err" >&2; fail "ipcperf exited $rc, expected the workload's 0"; }
grep -q 'serving the final totals' "$T/ipcperf.err" || fail "ipcperf did not say it lingers"
echo "test-prometheus: Prometheus saw the 9100 bytes in $(($(date +%s) - start)) s"
