# Sourced, after tests/lib.sh, by the tests of how a capture ends on a
# signal (test-signals.sh, test-signals-all.sh, test-top-signals.sh): their
# commands write their pids into files under $T, and the tests poll for what
# must follow within a time.

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# alive PID: PID runs (a zombie has exited).
alive() {
	[ -r "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}
gone() { ! alive "$1"; }

# within MS CMD...: CMD succeeds within MS milliseconds (polled).
within() {
	local end=$(($(now_ms) + $1))
	shift
	until "$@"; do
		[ "$(now_ms)" -lt "$end" ] || return 1
		sleep 0.02
	done
}

# has_pid FILE: the command wrote its pid there (it is released: the capture is live).
has_pid() { [ -s "$1" ]; }

# loop_cmd NAME: a command that runs until it is ended, its pid in $T/NAME.pid.
loop_cmd() { echo "echo \$\$ > $T/$1.pid; while :; do sleep 0.1; done"; }
