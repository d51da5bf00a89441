#!/bin/sh
# Signals, -d and the command of -- CMD (issue 19): the end of -d ends the
# command (SIGTERM) unless --keep-running; SIGINT, SIGTERM and SIGHUP stop
# the capture, which is reported at once, and end the command; a reader of
# the output that goes away (SIGPIPE) ends the command, then ipcperf (141);
# SIGKILL of ipcperf while the command is still corked leaves no command;
# a shell's background jobs end with it; a crash of ipcperf (SIGSEGV...)
# ends the command and its tree first;
# -d holds under a target making system calls as fast as it can. Real
# processes: each command writes its pid into a file, and what is left of
# them is killed on the way out. Needs root.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "${top_srcdir:-$(dirname "$0")/..}/tests/signals-lib.sh"

skip_unless_root "signals and -d on live captures"
need_exe "$IPCPERF"
make_tmpdir
trap 'for f in "$T"/*.pid "$T"/*.bg "$T"/*.fg; do [ -s "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null; done; rm -rf "$T"' EXIT

# ------------------------------------------------------------ -d ends the command
# The command's clock starts with the capture (it is held until then).
run timeout 20 "$IPCPERF" stat -d 1 -o "$T/d.out" -- \
	sh -c "echo \$\$ > $T/d.pid; date +%s%N > $T/d.live; exec sleep 30"
end=$(now_ms)
expect_status 0 "stat -d 1 -- sleep 30 (ended by -d)"
took=$((end - $(cat "$T/d.live") / 1000000))
# -d 1, the drain (0.2 s at most), the report, and the teardown of the
# capture (closing the BPF programs' links takes up to 1 s on a busy VM).
[ "$took" -le 2800 ] || fail "stat -d 1 -- sleep 30: ended ${took} ms after the capture went live"
grep -q "^ipcperf stat: command 'sh -c " "$T/d.out" || { show; fail "stat -d 1: no report"; }
gone "$(cat "$T/d.pid")" || fail "stat -d 1: the command (sleep 30) still runs"
grep -q 'waiting for the command' "$T/err" && fail "stat -d 1: waited for the command"

# record too: the capture is written, the command ended.
run timeout 20 "$IPCPERF" record -o "$T/d.data" -d 0.5 -- sh -c "echo \$\$ > $T/r.pid; exec sleep 30"
expect_status 0 "record -d 0.5 -- sleep 30"
gone "$(cat "$T/r.pid")" || fail "record -d 0.5: the command still runs"
run "$IPCPERF" report -i "$T/d.data"
expect_status 0 "report -i (a capture whose command -d ended)"

# A command that ignores SIGTERM gets SIGKILL 0.5 s later.
run timeout 20 "$IPCPERF" stat -q -d 0.5 -o /dev/null -- \
	sh -c "trap '' TERM; echo \$\$ > $T/i.pid; while :; do sleep 0.1; done"
expect_status 0 "stat -d 0.5 -- (a command that ignores SIGTERM)"
gone "$(cat "$T/i.pid")" || fail "stat -d 0.5: a command ignoring SIGTERM still runs"

# --keep-running: report, then wait for the command; a SIGINT ends the wait and the command.
"$IPCPERF" stat -q -d 0.3 --keep-running -o "$T/k.out" -- sh -c "$(loop_cmd k)" 2>"$T/k.err" &
ipid=$!
within 15000 grep -qs 'waiting for the command' "$T/k.err" || fail "--keep-running: no wait"
alive "$(cat "$T/k.pid")" || fail "--keep-running: the command was ended"
grep -q "^ipcperf stat: command" "$T/k.out" || fail "--keep-running: no report before the wait"
kill -INT "$ipid"
within 1000 gone "$(cat "$T/k.pid")" || fail "--keep-running: SIGINT left the command running"
status=0
wait "$ipid" || status=$?
expect_status 130 "stat --keep-running, SIGINT while waiting for the command"

# ------------------------------------------------------------ stop signals
# SIGNAL SUBCOMMAND NAME: the command ended and the output written within
# 1 s of the signal, ipcperf out with 128 + the signal (the command's death
# by it).
stop_by() {
	sig=$1 sub=$2 name=$3
	rm -f "$T/$name.out"
	timeout 30 "$IPCPERF" "$sub" -o "$T/$name.out" -- sh -c "$(loop_cmd "$name")" \
		>/dev/null 2>"$T/$name.err" &
	ipid=$!
	within 15000 has_pid "$T/$name.pid" || fail "$sub: the command never started"
	sleep 1
	kill "-$sig" "$ipid"
	within 1000 gone "$(cat "$T/$name.pid")" || fail "$sub, SIG$sig: the command still runs 1 s later"
	within 1000 test -s "$T/$name.out" || fail "$sub, SIG$sig: no output 1 s later"
	# Then the kernel takes down the events, one close at a time (seconds in task scope).
	within 10000 gone "$ipid" || fail "$sub, SIG$sig: ipcperf still runs 10 s later"
	status=0
	wait "$ipid" || status=$?
	case $sig in INT) want=130 ;; HUP) want=129 ;; TERM) want=143 ;; esac
	[ "$status" -eq "$want" ] || { cat "$T/$name.err" >&2; fail "$sub, SIG$sig: exit $status, expected $want"; }
}
stop_by INT stat sint
stop_by TERM stat sterm
stop_by HUP stat shup
stop_by HUP flows fhup
stop_by HUP trace thup
grep -q "^ipcperf stat: command 'sh -c " "$T/shup.out" || fail "stat, SIGHUP: no report"
stop_by HUP record rhup
run "$IPCPERF" report -i "$T/rhup.out"
expect_status 0 "report -i (a capture SIGHUP ended)"
grep -q "^ipcperf stat: capture $T/rhup.out, " "$T/out" || { show; fail "report -i (after SIGHUP): no report"; }
grep -q "^pid $(cat "$T/rhup.pid") sh" "$T/out" || { show; fail "report -i (after SIGHUP): not the command's"; }

# ------------------------------------------------------------ a shell's background jobs
# SIGTERM to ipcperf while its command, a shell, waits with a job in the
# background: the shell ends, and neither sleep survives it (they are
# ipcperf's once the shell is gone, and it ends them too).
tree_cmd() { echo "echo \$\$ > $T/$1.pid; sleep 1000 & echo \$! > $T/$1.bg; sleep 1000 & echo \$! > $T/$1.fg; wait"; }
# Not under timeout, which signals its whole process group: ipcperf alone gets it.
"$IPCPERF" stat -q -o /dev/null -- sh -c "$(tree_cmd g)" 2>"$T/g.err" &
ipid=$!
echo "$ipid" >"$T/ig.pid"
within 15000 has_pid "$T/g.fg" || fail "stat -- sh -c 'sleep & sleep': the command never started"
kill -TERM "$ipid"
for f in g.pid g.bg g.fg; do
	within 2000 gone "$(cat "$T/$f")" || fail "SIGTERM of ipcperf: $f ($(cat "$T/$f")) of the shell still runs 2 s later"
done
wait "$ipid" 2>/dev/null

# ------------------------------------------------------------ a crash of ipcperf
# A crash (SIGSEGV, SIGABRT, SIGBUS) ends the command and its tree first,
# then ipcperf as the signal would (128 + the signal).
for sig in SEGV:11 ABRT:6 BUS:7; do
	num=${sig#*:} sig=${sig%:*}
	# Not under timeout either (the trap kills what is left).
	"$IPCPERF" stat -q -o /dev/null -- sh -c "$(tree_cmd "c$sig")" 2>/dev/null &
	ipid=$!
	echo "$ipid" >"$T/i$sig.pid"
	within 15000 has_pid "$T/c$sig.fg" || fail "SIG$sig: the command never started"
	kill "-$sig" "$ipid"
	for f in pid bg fg; do
		within 2000 gone "$(cat "$T/c$sig.$f")" || fail "SIG$sig of ipcperf: the command's $f still runs 2 s later"
	done
	status=0
	wait "$ipid" || status=$?
	want=$((128 + num))
	[ "$status" -eq "$want" ] || fail "SIG$sig of ipcperf: exit $status, expected $want"
done

# ------------------------------------------------------------ a reader that goes away
{
	timeout 30 "$IPCPERF" trace -- sh -c "echo \$\$ > $T/p.pid; while :; do : </dev/null; done" \
		2>"$T/p.err"
	echo $? >"$T/p.rc"
} | head -n 1 >"$T/p.out"
[ "$(cat "$T/p.rc")" -eq 141 ] || { cat "$T/p.err" >&2; fail "trace | head -1: exit $(cat "$T/p.rc"), expected 141"; }
gone "$(cat "$T/p.pid")" || fail "trace | head -1: the command still runs"
grep -q 'Broken pipe' "$T/p.err" && fail "trace | head -1: a message about the pipe"
[ -s "$T/p.out" ] || fail "trace | head -1: no line"

# ------------------------------------------------------------ SIGKILL while corked
# The command is forked at once and held until the capture is live (the BPF
# programs take a while to load): SIGKILL then must leave no command.
"$IPCPERF" stat -o /dev/null -- sh -c "echo ran > $T/c.ran; exec sleep 30" 2>/dev/null &
ipid=$!
# (A /proc file has no size: test -s cannot tell.)
has_children() { [ -n "$(cat "/proc/$1/task/$1/children" 2>/dev/null)" ]; }
within 5000 has_children "$ipid" || fail "SIGKILL corked: no command forked"
cpid=$(cat "/proc/$ipid/task/$ipid/children")
echo "$cpid" >"$T/c.pid"
[ -e "$T/c.ran" ] && skip "the capture went live before SIGKILL: cannot catch the command corked"
kill -KILL "$ipid"
wait "$ipid" 2>/dev/null
for c in $cpid; do
	within 1000 gone "$c" || fail "SIGKILL of ipcperf while corked: command $c still runs"
done
[ -e "$T/c.ran" ] && fail "SIGKILL of ipcperf while corked: the command ran"

# ------------------------------------------------------------ -d under load
# Targets opening and closing an fd as fast as they can, more of them than
# CPUs, the whole system traced: the capture ends within -d + 1 s of going
# live (its duration_ns), not once the rings run dry (8 s for -d 3 here).
for n in 1 2 3; do
	sh -c "echo \$\$ > $T/l$n.pid; exec sh -c 'while :; do : </dev/null; done'" &
done
for n in 1 2 3; do
	within 2000 has_pid "$T/l$n.pid" || fail "the load did not start"
done
run timeout 90 "$IPCPERF" stat -q -a -d 2 --json -o "$T/l.json"
expect_status 0 "stat -a -d 2 (under load)"
dur=$(sed -n 's/.*"duration_ns": *\([0-9]*\).*/\1/p' "$T/l.json" | head -n 1)
[ -n "$dur" ] || { show; fail "stat -a -d 2 --json: no duration_ns"; }
[ "$dur" -le 3000000000 ] || fail "stat -a -d 2 under load: the capture lasted $dur ns"
for n in 1 2 3; do kill "$(cat "$T/l$n.pid")"; done
echo "test-signals: -d, SIGINT/SIGTERM/SIGHUP/SIGPIPE and SIGKILL corked end the command; -d 2 under load: $dur ns"
