#!/bin/sh
# The end of ipcperf does not wait for the kernel to release its tracepoint
# events (cli/release.c). stat --record opens a sys_enter/sys_exit pair per
# traced call, and the kernel waits for an RCU grace period as it releases
# each tracepoint, one after the other (seconds here). ipcperf exits with its
# report out and its capture complete; whoever reads its output sees the end
# then, not when the events are released: a child it leaves in its session
# holds them (it is seen releasing them, in its exit, after ipcperf's), and
# is gone once they are released.
# Real processes and tracepoints. Needs root.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

skip_unless_root "the release of a capture's tracepoint events"
need_exe "$IPCPERF"
make_tmpdir

# state PID: the one-letter state of PID ('' once it is reaped).
state() { sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null; }
# holders SID: the processes of session SID that have not exited.
holders() {
	for h in $(pgrep -s "$1"); do
		case $(state "$h") in '' | Z) ;; *) echo "$h" ;; esac
	done
}

# The report read through a pipe, as a script would: $(...) ends at the end
# of file. setsid: ipcperf leads a session that the child it leaves stays in.
out=$(setsid -w sh -c 'echo $$ >"$1/sid"; exec "$2" stat -q --record "$1/s.data" -- true 2>"$1/err"' \
	sh "$T" "$IPCPERF") || { cat "$T/err" >&2; fail "stat --record -- true failed"; }
left=$(holders "$(cat "$T/sid")")
case $out in
*"command 'true'"*) ;;
*) printf '%s\n' "$out" >&2; fail "stat --record: no report on stdout" ;;
esac
[ -n "$left" ] ||
	fail "stat --record: its output ended only once its events were released (no child holds them)"
# The capture is complete: its report says what the command did.
run "$IPCPERF" report -i "$T/s.data"
expect_status 0 "report of the capture"
grep -q ' true (exited)' "$T/out" || { show; fail "report: not the capture of 'true'"; }

# The child goes once the kernel has released the events.
sid=$(cat "$T/sid")
for i in $(seq 600); do
	[ -z "$(holders "$sid")" ] && break
	sleep 0.1
done
[ -z "$(holders "$sid")" ] || fail "the child left by ipcperf still runs 60 s later"
echo "test-release: ipcperf's output ended before the release of its events (held by $left), which ended"
