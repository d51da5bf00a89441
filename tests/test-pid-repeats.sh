#!/usr/bin/env bash
# A pid given 10,000 times (-p P,P,P,...) is one target, traced once: a
# workload that writes exactly 64 x 4096 bytes to /dev/null on fd 20 once a
# go file exists is reported once with those numbers by stat per task (10,000
# sets of its events ran out of fds), whose header names the pid once, by
# stat -I (10,000 sets of counters) and by top -b -n 2; -t of its one thread
# 10,000 times is one thread. Needs root.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

live_setup "stat and top of a live process" python3 jq
work=
ipp=
trap 'kill $work $ipp 2>/dev/null; rm -rf "$T"' EXIT

cat >"$T/work.py" <<'EOF'
import os, sys, time
os.dup2(os.open("/dev/null", os.O_WRONLY), 20)
go = sys.argv[1]
while True:
    while not os.path.exists(go):
        time.sleep(0.02)
    os.unlink(go)
    for i in range(64):
        os.write(20, b"x" * 4096)
EOF
py=$(python3 -c 'import sys; print(sys.executable)')
"$py" -S "$T/work.py" "$T/go" &
work=$!
list() { # list ID: ID 10,000 times, comma-separated
	python3 -c 'import sys; print(",".join([sys.argv[1]] * 10000))' "$1"
}
pids=$(list "$work")

# wait_for FILE TEXT: up to 60 s for TEXT in FILE.
wait_for() {
	for _ in $(seq 600); do grep -q "$2" "$1" && return 0; sleep 0.1; done
	cat "$1" >&2
	fail "no '$2' in ${1##*/} after 60 s"
}

# go_once ERR: once the capture whose stderr is ERR is live, one round of writes.
go_once() {
	wait_for "$1" 'live,'
	touch "$T/go"
	for _ in $(seq 300); do [ -e "$T/go" ] || return 0; sleep 0.1; done
	fail "the workload did not take the go file"
}

# fd 20's write row of the JSON document in $T/out: "ops bytes", once per row.
fd20() {
	jq -r '.processes[] | .fds[] | select(.fd == 20) | "\(.write.ops) \(.write.bytes)"' "$T/out"
}

# stat: counted once, and the header names the pid once.
timeout 120 "$IPCPERF" stat --scope task --json -d 4 -o "$T/out" -p "$pids" 2>"$T/err" &
ipp=$!
go_once "$T/err"
wait $ipp || { cat "$T/err" >&2; fail "stat -p of one pid 10,000 times failed"; }
ipp=
[ "$(jq '.processes | length' "$T/out")" = 1 ] || fail "stat: not one process: $(jq -c '[.processes[].pid]' "$T/out")"
[ "$(fd20)" = "64 262144" ] || fail "stat: fd 20's writes are '$(fd20)', expected '64 262144'"
grep -q "live, pid $work (until" "$T/err" || { head -c 300 "$T/err" >&2; fail "stat's header does not name pid $work once"; }

# stat -I: one set of counters, so it starts and ends with the same totals.
timeout 120 "$IPCPERF" stat --scope task --json -I 1000 -d 4 -o "$T/out" -p "$pids" 2>"$T/err" &
ipp=$!
go_once "$T/err"
wait $ipp || { tail -c 300 "$T/err" >&2; fail "stat -I -p of one pid 10,000 times failed"; }
ipp=
sed -n '$p' "$T/out" >"$T/last"
mv "$T/last" "$T/out"
[ "$(fd20)" = "64 262144" ] || fail "stat -I: fd 20's writes are '$(fd20)', expected '64 262144'"

# top -b: two frames and the last one, in which the workload is one row.
timeout 120 "$IPCPERF" top -b -n 2 -d 3 --scope task -p "$pids" >"$T/out" 2>"$T/err" &
ipp=$!
for _ in $(seq 600); do grep -q '^ipcperf top: ' "$T/out" && break; sleep 0.1; done
touch "$T/go"
wait $ipp || { tail -c 300 "$T/err" >&2; fail "top -b -p of one pid 10,000 times did not end (or failed)"; }
ipp=
grep -q "^ipcperf top: pid $work, " "$T/out" || { head -c 300 "$T/out" >&2; fail "top's header does not name pid $work once"; }
frames=$(grep -c '^ipcperf top: ' "$T/out")
awk -v p="$work" '$1 == p && $2 == "20" && $3 == "file"' "$T/out" >"$T/rows"
[ "$(wc -l <"$T/rows")" -le "$frames" ] || { cat "$T/out" >&2; fail "top shows fd 20 of pid $work more than once a frame"; }
[ "$(tail -n 1 "$T/rows" | awk '{ print $(NF - 2), $(NF - 1) }')" = "64 262144" ] ||
	{ cat "$T/out" >&2; fail "top's last frame: fd 20 of pid $work is not 64 writes of 262144 bytes"; }

# -t: the one thread 10,000 times.
run timeout 120 "$IPCPERF" stat --scope task --json -d 1 -o "$T/out" -t "$(list "$work")"
expect_status 0 "stat -t of one tid 10,000 times"
[ "$(jq '.processes | length' "$T/out")" = 1 ] || fail "stat -t: not one process"
exit 0
