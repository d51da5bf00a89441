#!/usr/bin/env bash
# `ipcperf list` and `ipcperf check`. As root: the syscall tracepoints are
# supported, the hardware counters are what perf itself finds (not supported
# in a VM without a PMU), check passes. As an unprivileged user: check fails
# and names the fix (the perf_event_paranoid sysctl, CAP_PERFMON).
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

need_exe "$IPCPERF"
make_tmpdir

# Usage errors need no privileges.
run "$IPCPERF" list --no-such-option
expect_status 2 "ipcperf list --no-such-option"
run "$IPCPERF" check -m 3
expect_status 2 "ipcperf check -m 3 (not a power of two)"
grep -q 'power of two' "$T/err" || { show; fail "check -m 3: the error does not say 'power of two'"; }
run "$IPCPERF" check extra-argument
expect_status 2 "ipcperf check extra-argument"
run "$IPCPERF" list --help
expect_status 0 "ipcperf list --help"
run "$IPCPERF" check --help
expect_status 0 "ipcperf check --help"

skip_unless_root "ipcperf list and check"

# ------------------------------------------------------------ list, as root
run "$IPCPERF" list
expect_status 0 "ipcperf list"
cp "$T/out" "$T/list"
# NAME GROUP STATUS, one line per event, then "# N events: ...".
grep -Eq '^syscalls:sys_enter_write +syscalls +supported$' "$T/list" ||
	{ show; fail "list: syscalls:sys_enter_write is not 'supported'"; }
grep -Eq '^sched:sched_switch +sched +supported$' "$T/list" ||
	{ show; fail "list: sched:sched_switch is not 'supported'"; }
bad=$(grep -v '^#' "$T/list" |
	grep -Ev '^[a-z_:0-9-]+ +[a-z_]+ +(supported|not supported \(E[A-Z0-9]+: .+\)|permission denied \(E[A-Z0-9]+: .+\))$')
[ -z "$bad" ] || { show; fail "list: lines not of the form NAME GROUP STATUS: $bad"; }
total=$(grep -vc '^#' "$T/list")
# Counters by perf's names, as perf list and perf stat -e spell them.
for name in task-clock page-faults context-switches cpu-migrations cycles instructions \
	cache-references cache-misses; do
	grep -Eq "^$name +(software|hardware) " "$T/list" || { show; fail "list: no counter named $name"; }
done
tail -n 2 "$T/list" | head -n 1 |
	grep -Eq "^# $total events: [0-9]+ supported, [0-9]+ not supported, 0 permission denied$" ||
	{ show; fail "list: the line before the last does not count the $total events (or root was denied some)"; }
# The last line: where fd identities come from. Root on a build with BPF
# (this kernel has BTF) gets the kernel's records; a build without, /proc.
if [ "${IPCPERF_BUILT_BPF:-}" = yes ]; then
	want_fdid='^# fd identity: bpf: the BPF program loads'
else
	want_fdid='^# fd identity: proc: fds are named from /proc: this libipcperf was built without BPF'
fi
tail -n 1 "$T/list" | grep -Eq "$want_fdid" ||
	{ show; fail "list: the last line is not '$want_fdid'"; }

# Hardware counters: list must agree with what perf stat finds here.
if perf stat -e instructions true >"$T/perf" 2>&1; then
	if grep -q '<not supported>' "$T/perf"; then
		want='not supported'
	elif grep -Eq '^ *[0-9][0-9,.]* +instructions' "$T/perf"; then
		want='supported'
	else
		want=
	fi
else
	want=
fi
if [ -n "$want" ]; then
	got=$(sed -n 's/^instructions  *hardware  *\([a-z ]*\).*/\1/p' "$T/list" | sed 's/ *$//')
	[ "$got" = "$want" ] ||
		{ cat "$T/perf" >&2; show; fail "list: instructions is '$got', but perf stat finds it '$want'"; }
	got=$(sed -n 's/^cycles  *hardware  *\([a-z ]*\).*/\1/p' "$T/list" | sed 's/ *$//')
	[ "$got" = "$want" ] || { show; fail "list: cycles is '$got', expected '$want' like instructions"; }
else
	echo "test-list-check: perf stat -e instructions does not run here; not comparing hardware counters" >&2
fi

# Patterns select events.
run "$IPCPERF" list 'syscalls:sys_*_write' hardware
expect_status 0 "ipcperf list PATTERN..."
n=$(grep -vc '^#' "$T/out")
[ "$n" -eq 6 ] || { show; fail "list 'syscalls:sys_*_write' hardware: $n events, expected 6"; }
run "$IPCPERF" list 'no-such-event*'
expect_status 1 "ipcperf list with a pattern that matches nothing"

# JSON: one document, the same events and statuses.
run "$IPCPERF" list --json
expect_status 0 "ipcperf list --json"
if command -v jq >/dev/null; then
	jq -e . "$T/out" >/dev/null || { show; fail "list --json is not valid JSON"; }
	[ "$(jq -r .schema "$T/out")" = 1 ] || fail "list --json: schema is not 1"
	[ "$(jq '.events | length' "$T/out")" = "$total" ] ||
		fail "list --json: $(jq '.events | length' "$T/out") events, the text has $total"
	[ "$(jq -r '.events[] | select(.name == "syscalls:sys_enter_write") | .status' "$T/out")" = supported ] ||
		fail "list --json: syscalls:sys_enter_write is not supported"
	[ "$(jq '.supported + .not_supported + .denied' "$T/out")" = "$total" ] ||
		fail "list --json: the counts do not add up to $total"
	src=bpf; [ "${IPCPERF_BUILT_BPF:-}" = yes ] || src=proc
	[ "$(jq -r .fd_identity.source "$T/out")" = "$src" ] ||
		fail "list --json: fd_identity.source is not $src"
	[ -n "$(jq -r '.fd_identity.why // empty' "$T/out")" ] || fail "list --json: no fd_identity.why"
	jq -r '.events[] | "\(.name) \(.status)"' "$T/out" >"$T/json-status"
	sed -E 's/^([^ ]+) +[^ ]+ +(supported|not supported|permission denied).*/\1 \2/' "$T/list" |
		grep -v '^#' >"$T/text-status"
	cmp -s "$T/json-status" "$T/text-status" ||
		{ diff "$T/text-status" "$T/json-status" >&2; fail "list --json and list disagree"; }
else
	echo "test-list-check: no jq; list --json only checked to start with '{'" >&2
	head -c 1 "$T/out" | grep -q '{' || fail "list --json does not print a JSON object"
fi

# ------------------------------------------------------------ check, as root
# Every line is OK or PROBLEM with a fix.
check_lines() {
	bad=$(grep -Ev '^(OK  |PROBLEM .* — fix: .+)' "$T/out")
	[ -z "$bad" ] || { show; fail "$1: lines neither 'OK  ...' nor 'PROBLEM ... — fix: ...': $bad"; }
}
run "$IPCPERF" check
expect_status 0 "ipcperf check as root"
check_lines "check as root"
grep -q '^OK .*test capture' "$T/out" || { show; fail "check as root: no successful test capture"; }
grep -q "^OK .*libperf [0-9]" "$T/out" || { show; fail "check: no libperf version"; }
grep -q '^OK .*tracefs' "$T/out" || { show; fail "check: no OK line about tracefs"; }
grep -q '^OK .*perf_event_paranoid' "$T/out" || { show; fail "check as root: perf_event_paranoid is not OK"; }
grep -Eq '^OK .*ring buffers: -m [0-9]+ ' "$T/out" || { show; fail "check: no line on the ring size"; }
# The PMU line agrees with list.
if grep -Eq '^cycles +hardware +supported$' "$T/list"; then
	grep -q '^OK .*hardware PMU present' "$T/out" || { show; fail "check: list has cycles, check no PMU"; }
else
	grep -q '^PROBLEM .*cycles' "$T/out" || { show; fail "check: list has no cycles, check says nothing"; }
fi
if [ "${IPCPERF_BUILT_BPF:-}" = yes ]; then
	grep -q '^OK .*fd identity: bpf' "$T/out" || { show; fail "check as root: fd identity is not OK (bpf)"; }
else
	grep -q '^PROBLEM .*fd identity: proc (ENOTSUP).*fix: install clang, bpftool and libbpf-dev' "$T/out" ||
		{ show; fail "check as root, built without BPF: no PROBLEM line on fd identity with the fix"; }
fi

# Root without CAP_BPF and CAP_SYS_ADMIN (taken out of the bounding set):
# tracing still works, fd identity falls back to /proc, and check says why
# and how to get it back; a capture says it once on stderr.
if [ "${IPCPERF_BUILT_BPF:-}" = yes ] && command -v setpriv >/dev/null; then
	run setpriv --bounding-set=-bpf,-sys_admin "$IPCPERF" check
	expect_status 0 "ipcperf check as root without CAP_BPF"
	check_lines "check without CAP_BPF"
	grep -q '^PROBLEM fd identity: proc (EPERM): .*CAP_BPF.*fix: .*setcap cap_bpf,cap_perfmon' "$T/out" ||
		{ show; fail "check without CAP_BPF: no PROBLEM line naming CAP_BPF with the setcap fix"; }
	run setpriv --bounding-set=-bpf,-sys_admin "$IPCPERF" list sched:sched_switch
	expect_status 0 "ipcperf list as root without CAP_BPF"
	tail -n 1 "$T/out" | grep -q '^# fd identity: proc: .*CAP_BPF' ||
		{ show; fail "list without CAP_BPF: the last line does not say proc and why"; }
	run setpriv --bounding-set=-bpf,-sys_admin "$IPCPERF" stat -q -- true
	expect_status 0 "ipcperf stat without CAP_BPF"
	[ "$(grep -c 'fd identity from /proc' "$T/err")" = 1 ] ||
		{ show; fail "stat without CAP_BPF: not one line on stderr saying fd identity is from /proc"; }
fi

run "$IPCPERF" check -m 16
expect_status 0 "ipcperf check -m 16 as root"
grep -q '^OK .*ring buffers: -m 16 ' "$T/out" || { show; fail "check -m 16: no line on the ring size"; }

# ------------------------------------------------------------ as an unprivileged user
# A copy of the binary where that user can reach it (the build tree may not be).
mkdir "$T/nobody" || fail "mkdir"
chmod 755 "$T" "$T/nobody" || fail "chmod"
if [ -x "$top_builddir/cli/.libs/ipcperf" ]; then
	cp "$top_builddir/cli/.libs/ipcperf" "$T/nobody/" || fail "cannot copy ipcperf"
	cp -P "$top_builddir"/lib/.libs/libipcperf.so* "$T/nobody/" || fail "cannot copy libipcperf"
else
	cp "$top_builddir/cli/ipcperf" "$T/nobody/" || fail "cannot copy ipcperf"
fi
as_nobody() {
	if command -v setpriv >/dev/null; then
		setpriv --reuid=65534 --regid=65534 --clear-groups env LD_LIBRARY_PATH="$T/nobody" "$@"
	else
		# "--": the options are the command's, not su's.
		su -s /bin/sh -c "LD_LIBRARY_PATH='$T/nobody' exec \"\$0\" \"\$@\"" -- nobody "$@"
	fi
}
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)

# What perf itself can do as that user decides what check must say.
if command -v perf >/dev/null && (cd / && as_nobody perf stat -e sched:sched_switch true) >/dev/null 2>&1; then
	echo "test-list-check: an unprivileged user can use tracepoints here (perf_event_paranoid=$paranoid): not checking the failure" >&2
	exit 0
fi
(cd / && as_nobody "$T/nobody/ipcperf" check) >"$T/out" 2>"$T/err"
status=$?
expect_status 1 "ipcperf check as nobody"
check_lines "check as nobody"
grep -q '^PROBLEM .*test capture' "$T/out" || { show; fail "check as nobody: the test capture did not fail"; }
if [ "$paranoid" -gt -1 ]; then
	grep -q '^PROBLEM .*kernel.perf_event_paranoid = '"$paranoid"'.*CAP_PERFMON.*fix: sudo sysctl -w kernel.perf_event_paranoid=-1' "$T/out" ||
		{ show; fail "check as nobody: no PROBLEM line naming the paranoid sysctl and CAP_PERFMON"; }
fi
grep -q 'setcap cap_perfmon' "$T/out" || { show; fail "check as nobody: the CAP_PERFMON fix (setcap) is not given"; }

# list as nobody: the tracepoints are denied, with the fix.
(cd / && as_nobody "$T/nobody/ipcperf" list) >"$T/out" 2>"$T/err"
status=$?
expect_status 0 "ipcperf list as nobody"
grep -Eq '^syscalls:sys_enter_write +syscalls +permission denied \(EACCES: .*cap_perfmon' "$T/out" ||
	{ show; fail "list as nobody: syscalls:sys_enter_write is not 'permission denied' with a fix"; }

exit 0
