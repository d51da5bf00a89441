#!/usr/bin/env bash
# ipcperf top in a tmux pane, watching three processes whose I/O is known:
#  - EXACT waits for a go file, then writes 64 x 4096 bytes to /dev/null on
#    fd 20 and sleeps: its process and fd rows show 64 calls and 262144
#    bytes since the start, exactly;
#  - SMALL writes 4 x 10 bytes and BIG 1 x 100000 bytes to /dev/null every
#    10 ms: by bytes (the default) BIG comes first, by ops (key o) SMALL;
#  - the key f shows the fds a row each, and grouped again;
#  - a narrower terminal (SIGWINCH) gets lines that fit it;
#  - q, SIGINT (C-c), SIGTERM and SIGHUP end it with exit 0 and the terminal
#    put back: the shell's screen again, stty -a as before; so does the end
#    of the command of -- CMD (its status);
#  - not on a terminal: a usage error (exit 2), unless -b.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

live_setup "top on live processes" tmux python3
ipcperf=$(realpath "$IPCPERF")
sock=$T/tmux.sock
pids=
trap 'tmux -S "$sock" kill-server 2>/dev/null; for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT

# The workloads: python3 -S (no site: few files read), /dev/null on fd 20.
cat >"$T/work.py" <<'EOF'
import os, sys, time
fd = os.open("/dev/null", os.O_WRONLY)
os.dup2(fd, 20)
role, go = sys.argv[1], sys.argv[2]
if role == "exact":
    while not os.path.exists(go):
        time.sleep(0.05)
    for i in range(64):
        os.write(20, b"x" * 4096)
    time.sleep(120)
else:
    n, size = (4, 10) if role == "small" else (1, 100000)
    buf = b"y" * size
    end = time.monotonic() + 120
    while time.monotonic() < end:
        for i in range(n):
            os.write(20, buf)
        time.sleep(0.01)
EOF
py=$(python3 -c 'import sys; print(sys.executable)')
for role in exact small big; do
	"$py" -S "$T/work.py" $role "$T/go" &
	eval "$role=$!"
	pids="$pids $!"
done

# pane CMD: run CMD in a fresh 120x40 pane: stty -a before and after in
# $T/stty.1 and $T/stty.2, "MARK" before it and "rc=STATUS" after it.
pane() {
	tmux -S "$sock" kill-server 2>/dev/null
	rm -f "$sock" "$T/stty.1" "$T/stty.2"
	tmux -S "$sock" new-session -d -x 120 -y 40 \
		"stty -a >$T/stty.1; echo MARK; $*; echo rc=\$?; stty -a >$T/stty.2; sleep 120" ||
		fail "tmux cannot start a session"
}

screen() {
	tmux -S "$sock" capture-pane -p >"$T/screen" 2>/dev/null
}

# wait_for WHAT REGEX: until the screen has a line matching REGEX (15 s at most).
wait_for() {
	local i
	for i in $(seq 150); do
		screen
		grep -Eq "$2" "$T/screen" && return 0
		sleep 0.1
	done
	cat "$T/screen" >&2
	fail "top: no $1 on the screen (/$2/)"
}

# The line number of pid $1 in the process table of the screen (0: not there).
proc_line() {
	awk -v p="$1" '/^ +PID COMM / { t = 1; next } t && /^$/ { t = 0 }
		t && $1 == p { print NR; found = 1; exit } END { if (!found) print 0 }' "$T/screen"
}

# restored WHAT STATUS: top ended with STATUS and the terminal is as it was.
restored() {
	wait_for "exit status after $1" '^rc=[0-9]+$'
	grep -qx "rc=$2" "$T/screen" || { cat "$T/screen" >&2; fail "top after $1: not rc=$2"; }
	grep -qx MARK "$T/screen" && ! grep -q 'ipcperf top:' "$T/screen" ||
		{ cat "$T/screen" >&2; fail "top after $1: the shell's screen is not back"; }
	for i in $(seq 50); do [ -s "$T/stty.2" ] && break; sleep 0.1; done
	# The window's size is tmux's (the resize below changes it), not top's to put back.
	sed -i 's/rows [0-9]*; columns [0-9]*;//' "$T/stty.1" "$T/stty.2"
	cmp -s "$T/stty.1" "$T/stty.2" ||
		{ diff "$T/stty.1" "$T/stty.2" >&2; fail "top after $1: stty -a is not as before"; }
}

top="$ipcperf top -d 0.5 -p $exact,$small,$big"

# Renders, with exact totals.
pane "$top"
wait_for "heading" '^ipcperf top: pid .*, every 0\.5 s, by bytes'
wait_for "process table" '^ +PID COMM +OPS/s +READ/s +WRITE/s +IO% +CS/s +OPS +BYTES$'
wait_for "fd table" '^ +PID +FD KIND +OPS/s +BYTES/s +IO% +OPS +BYTES +OBJECT$'
# The first frame is drawn before the capture is live: go once rows come in.
wait_for "SMALL at its rate" "^ +$small python3[.0-9]* +[0-9.]+k? "
touch "$T/go"
wait_for "row of the fd EXACT wrote to" "^ +$exact +20 file .* 64 +262144  /dev/null$"
wait_for "row of the process EXACT" "^ +$exact python3[.0-9]* .* 64 +262144$"

# Sorts: by bytes BIG first, by ops SMALL first, by bytes again BIG.
wait_for "SMALL and BIG at their rates" "^ +$small python3[.0-9]* +[0-9.]+k? "
screen
b=$(proc_line "$big") s=$(proc_line "$small")
[ "$b" -gt 0 ] && [ "$s" -gt 0 ] && [ "$b" -lt "$s" ] ||
	{ cat "$T/screen" >&2; fail "by bytes: BIG (line $b) is not above SMALL (line $s)"; }
tmux -S "$sock" send-keys o
wait_for "heading by ops" ', by ops'
b=$(proc_line "$big") s=$(proc_line "$small")
[ "$s" -gt 0 ] && [ "$b" -gt "$s" ] ||
	{ cat "$T/screen" >&2; fail "by ops: SMALL (line $s) is not above BIG (line $b)"; }
tmux -S "$sock" send-keys b
wait_for "heading by bytes" ', by bytes'
b=$(proc_line "$big") s=$(proc_line "$small")
[ "$b" -gt 0 ] && [ "$b" -lt "$s" ] ||
	{ cat "$T/screen" >&2; fail "by bytes again: BIG (line $b) is not above SMALL (line $s)"; }

# f: the fd pane a row per fd, then grouped again; EXACT's fd a row in both.
tmux -S "$sock" send-keys f
wait_for "heading a row per fd" ', by bytes, a row per fd \(keys: '
wait_for "row of the fd EXACT wrote to, a row per fd" "^ +$exact +20 file .* 64 +262144  /dev/null$"
tmux -S "$sock" send-keys f
wait_for "heading grouped" ', by bytes \(keys: '
wait_for "row of the fd EXACT wrote to, grouped" "^ +$exact +20 file .* 64 +262144  /dev/null$"

# A narrower terminal: redrawn to fit it (IO% left out first).
tmux -S "$sock" resize-window -x 78 -y 30
wait_for "narrower table" '^ +PID COMM +OPS/s +READ/s +WRITE/s +CS/s +OPS'
longest=$(awk '{ sub(/ +$/, ""); if (length($0) > n) n = length($0) } END { print n + 0 }' "$T/screen")
[ "$longest" -le 78 ] || { cat "$T/screen" >&2; fail "at 78 columns, a line of $longest"; }

# q quits.
tmux -S "$sock" send-keys q
restored "q" 0

# C-c (SIGINT to the pane's foreground group: top).
pane "$top"
wait_for "heading" '^ipcperf top: '
tmux -S "$sock" send-keys C-c
restored "SIGINT" 0

# SIGTERM and SIGHUP from elsewhere.
for sig in TERM HUP; do
	rm -f "$T/top.pid"
	pane "sh -c 'echo \$\$ >$T/top.pid; exec $top'"
	wait_for "heading" '^ipcperf top: '
	kill -s $sig "$(cat "$T/top.pid")"
	restored "SIG$sig" 0
done

# The command of -- CMD ends: its status.
pane "$ipcperf top -d 0.5 -- sh -c 'sleep 1; exit 3'"
wait_for "heading" "^ipcperf top: command 'sh -c sleep 1; exit 3'"
restored "the command's end" 3

# Not on a terminal: a usage error in one line; -b prints frames.
run "$IPCPERF" top -p "$exact" </dev/null
expect_status 2 "top with stdin and stdout not a terminal"
[ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'not a terminal: give -b' "$T/err" ||
	{ show; fail "top not on a terminal: not the one-line error"; }
run "$IPCPERF" top -b -n 2 -d 0.2 -p "$small"
expect_status 0 "top -b -n 2"
[ "$(grep -c '^ipcperf top: ' "$T/out")" -eq 2 ] && grep -Eq "^ +$small +20 file " "$T/out" ||
	{ show; fail "top -b -n 2: not 2 frames with SMALL's fd"; }
echo "test-top: renders exact totals, sorts by b and o, f a row per fd and back, fits a resize, restores the terminal after q, SIGINT, SIGTERM, SIGHUP and the command's end"
