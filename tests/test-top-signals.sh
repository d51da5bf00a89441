#!/usr/bin/env bash
# ipcperf top on a terminal (a pty of script(1), whose log keeps every byte
# top wrote) ended by a signal that is not a stop key (issue 37): Ctrl-\
# (SIGQUIT), SIGUSR1, and a crash (SIGSEGV). Each way out leaves the other
# screen and shows the cursor again, puts the terminal's modes back (stty -a
# as before), and writes out what was said on stderr while the screen was
# up (-v: the library's lines at the start), after the screen is left.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "${top_srcdir:-$(dirname "$0")/..}/tests/signals-lib.sh"

live_setup "top on a live command" script
ipcperf=$(realpath "$IPCPERF")
trap 'for f in "$T"/*.pid; do [ -s "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null; done; rm -rf "$T"' EXIT

screen_up() { grep -q $'\033\\[?1049h' "$1"; }

# top_by SIGNAL STATUS: top of a command, ended by SIGNAL sent to ipcperf.
top_by() {
	local sig=$1 want=$2 log=$T/$1.log cpid ipid rest
	rm -f "$T/$sig.pid" "$T/stty.1" "$T/stty.2" "$T/rc"
	script -q -e -c "stty -a >$T/stty.1; $ipcperf top -v -d 0.5 -- sh -c 'echo \$\$ >$T/$sig.pid; \
while :; do sleep 0.1; done'; echo \$? >$T/rc; stty -a >$T/stty.2" "$log" </dev/null >/dev/null 2>&1 &
	echo $! >"$T/script.pid"
	within 30000 has_pid "$T/$sig.pid" || fail "top, SIG$sig: the command never started"
	within 10000 screen_up "$log" || fail "top, SIG$sig: the screen never came up"
	cpid=$(cat "$T/$sig.pid")
	ipid=$(ps -o ppid= -p "$cpid" | tr -d ' ')
	sleep 1
	kill -s "$sig" "$ipid"
	within 15000 has_pid "$T/stty.2" || fail "top, SIG$sig: not over 15 s later"
	wait "$(cat "$T/script.pid")" 2>/dev/null
	[ "$(cat "$T/rc")" -eq "$want" ] || fail "top, SIG$sig: exit $(cat "$T/rc"), expected $want"
	within 2000 gone "$cpid" || fail "top, SIG$sig: the command still runs"
	# What follows the last entry into the other screen: its leaving, the cursor, the lines held.
	rest=$(awk 'BEGIN { RS = "\033\\[\\?1049h" } { r = $0 } END { printf "%s", r }' "$log")
	case $rest in *$'\033[?1049l'*) ;; *) fail "top, SIG$sig: still in the other screen" ;; esac
	case $rest in *$'\033[?25h'*) ;; *) fail "top, SIG$sig: the cursor still hidden" ;; esac
	rest=${rest#*$'\033[?1049l'}
	case $rest in *"ipcperf: libperf: "*) ;;
	*) fail "top, SIG$sig: what was said on stderr while the screen was up is lost" ;; esac
	cmp -s "$T/stty.1" "$T/stty.2" ||
		{ diff "$T/stty.1" "$T/stty.2" >&2; fail "top, SIG$sig: stty -a is not as before"; }
}

top_by QUIT 131
top_by USR1 138
top_by SEGV 139
echo "test-top-signals: SIGQUIT, SIGUSR1 and SIGSEGV leave top's screen, cursor, modes and stderr as they were"
