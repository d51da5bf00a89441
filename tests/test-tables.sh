#!/usr/bin/env bash
# The text tables fit the terminal: in a tmux pane 80 columns wide, the
# stat and flows reports of the demo workloads have no line over 80 columns
# (columns left out in the documented order: stat's MB/s, flows' kind, max
# queued and MB/s before its wire times,
# the syscall table's min, max and p99),
# and the long notes are folded; with --wide, every column is there again
# and the lines run over. On a file nothing is fitted (the other tests).
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

need_exe "$IPCWORK"
FLOWWORK=$top_builddir/tests/flowwork
need_exe "$FLOWWORK"
live_setup "the tables on a terminal" tmux
ipcperf=$(realpath "$IPCPERF") ipcwork=$(realpath "$IPCWORK") flowwork=$(realpath "$FLOWWORK")
sock=$T/tmux.sock
trap 'tmux -S "$sock" kill-server 2>/dev/null; rm -rf "$T"' EXIT

# in_pane COLUMNS CMD...: run CMD in a fresh pane that wide; its screen, wrapped lines joined, in $T/screen.
in_pane() {
	local cols=$1 i
	shift
	tmux -S "$sock" kill-server 2>/dev/null
	rm -f "$sock"
	tmux -S "$sock" new-session -d -x "$cols" -y 120 \
		"$* ; echo __DONE__; sleep 60" || fail "tmux cannot start a session"
	for i in $(seq 300); do
		tmux -S "$sock" capture-pane -p -J -S - >"$T/screen" 2>/dev/null
		grep -q '^__DONE__' "$T/screen" && return 0
		sleep 0.1
	done
	cat "$T/screen" >&2
	fail "the command in the pane did not finish: $*"
}

longest() {
	# trailing blanks are what erased the status line, not text

	awk '{ sub(/ +$/, ""); if (length($0) > n) n = length($0) } END { print n + 0 }' "$T/screen"
}

in_pane 80 "$ipcperf" stat -- "$ipcwork" pipe
grep -q ' ops ' "$T/screen" || { cat "$T/screen" >&2; fail "stat at 80 columns: no table"; }
grep -q 'MB/s' "$T/screen" && { cat "$T/screen" >&2; fail "stat at 80 columns: MB/s not left out"; }
[ "$(longest)" -le 80 ] || { cat "$T/screen" >&2; fail "stat at 80 columns: a line of $(longest)"; }

in_pane 80 "$ipcperf" stat --wide -- "$ipcwork" pipe
grep -q 'MB/s' "$T/screen" && grep -q 'detail' "$T/screen" ||
	{ cat "$T/screen" >&2; fail "stat --wide: columns missing"; }
[ "$(longest)" -gt 80 ] || { cat "$T/screen" >&2; fail "stat --wide at 80 columns: nothing over 80"; }

# The syscall table of -s: min, then max, then p99 left out, down to strace -c's columns.
in_pane 80 "$ipcperf" stat -s -- "$ipcwork" pipe
grep -q '% time' "$T/screen" && grep -q 'usecs/call' "$T/screen" && grep -q ' total$' "$T/screen" ||
	{ cat "$T/screen" >&2; fail "stat -s at 80 columns: no syscall table"; }
grep -Eq 'min\(us\)|max\(us\)' "$T/screen" &&
	{ cat "$T/screen" >&2; fail "stat -s at 80 columns: min and max not left out"; }
grep -q 'p99(us)' "$T/screen" || { cat "$T/screen" >&2; fail "stat -s at 80 columns: p99 left out too"; }
[ "$(longest)" -le 80 ] || { cat "$T/screen" >&2; fail "stat -s at 80 columns: a line of $(longest)"; }
in_pane 70 "$ipcperf" stat -s --no-fds -- "$ipcwork" pipe
grep -q 'p99(us)' "$T/screen" && { cat "$T/screen" >&2; fail "stat -s at 70 columns: p99 not left out"; }
sc_longest=$(awk '/% time/ { on = 1 } on { sub(/ +$/, ""); if (length($0) > n) n = length($0) }
	/ total$/ { on = 0 } END { print n + 0 }' "$T/screen")
[ "$sc_longest" -le 70 ] || { cat "$T/screen" >&2; fail "stat -s at 70 columns: a syscall row of $sc_longest"; }
in_pane 96 "$ipcperf" stat -s --no-fds -- "$ipcwork" pipe
grep -q 'p99(us)' "$T/screen" && ! grep -q 'min(us)' "$T/screen" ||
	{ cat "$T/screen" >&2; fail "stat -s at 96 columns: not min alone left out"; }
[ "$(longest)" -le 96 ] || { cat "$T/screen" >&2; fail "stat -s at 96 columns: a line of $(longest)"; }
in_pane 80 "$ipcperf" stat -s --wide -- "$ipcwork" pipe
grep -q 'min(us)' "$T/screen" && grep -q 'max(us)' "$T/screen" && grep -q 'p99(us)' "$T/screen" ||
	{ cat "$T/screen" >&2; fail "stat -s --wide: latency columns missing"; }

in_pane 80 "$ipcperf" flows -- "$flowwork" backpressure
grep -q 'verdict' "$T/screen" && grep -q 'backpressure' "$T/screen" ||
	{ cat "$T/screen" >&2; fail "flows at 80 columns: no table"; }
# The wire times are the headline: the lesser columns go first.
grep -q 'wire p50' "$T/screen" && grep -q 'wire p99' "$T/screen" ||
	{ cat "$T/screen" >&2; fail "flows at 80 columns: wire p50 or p99 left out"; }
grep -Eq 'MB/s|max queued|kind' "$T/screen" &&
	{ cat "$T/screen" >&2; fail "flows at 80 columns: MB/s, max queued or kind kept before the wire times"; }
[ "$(longest)" -le 80 ] || { cat "$T/screen" >&2; fail "flows at 80 columns: a line of $(longest)"; }

# A wide terminal: nothing is left out.
in_pane 200 "$ipcperf" flows -- "$flowwork" backpressure
grep -q 'wire p50' "$T/screen" && grep -q 'MB/s' "$T/screen" ||
	{ cat "$T/screen" >&2; fail "flows at 200 columns: columns left out"; }
echo "test-tables: stat and flows fit 80 columns; --wide and a wide terminal show every column"
