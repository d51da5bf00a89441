#!/usr/bin/env bash
# ipcperf trace against strace, on programs whose calls do not depend on
# timing (ls /, the demo workload ipcwork pipe with its thread and
# grandchild, flowwork unix-rr over a unix socketpair): with the same
# -e trace=SET, both print the same calls with the same results, strace's
# errno names and their meaning ("-1 ENOENT (No such file or directory)")
# included. Compared per program as sorted (name, result) lines, since the
# two interleave processes differently; addresses and pids are masked.
# Then -e trace= usage errors: one line, exit 2.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

need_exe "$IPCPERF"
need_exe "$IPCWORK"
FLOWWORK=$top_builddir/tests/flowwork
need_exe "$FLOWWORK"
make_tmpdir

# Usage errors first: they need no root.
for e in trace=nosuchcall trace= trace=read,,write trace=%bogus signal=SIGINT; do
	run "$IPCPERF" trace -q -e "$e" -- true
	expect_status 2 "trace -e $e"
	[ "$(wc -l <"$T/err")" -eq 1 ] || { show; fail "trace -e $e: not one line on stderr"; }
done

skip_unless_root "ipcperf trace and strace side by side"
command -v strace >/dev/null || fail "strace is not installed (scripts/install-deps installs it)"

# name result [ERRNO (meaning)] per call, sorted; "ADDR" for addresses, "PID" for pids.
calls() {
	perl -ne 'next if /^(\d+ +)?(---|\+\+\+)/;
		s/^(\d+\/\d+ |\[pid +\d+\] )//;
		next unless /^(\w+)\(/; my $n = $1;
		/.* = (0x[0-9a-f]+|-?\d+|\?)( (E[A-Z0-9]+ \([^)]*\)))?/ or next;
		my $r = $1;
		$r = "ADDR" if $r =~ /^0x/ || $r > 65536;
		$r = "PID" if $n =~ /^(clone|clone3|fork|vfork|wait4|waitid|set_tid_address|gettid|getpid)$/ && $r > 0;
		print "$n $r", ($3 ? " $3" : ""), "\n"' "$@" | sort
}

set_fd=openat,close,read,write,pipe2,dup2,dup3,fcntl,socketpair,sendto,recvfrom,sendmsg,recvmsg
set_fd=$set_fd,clone,clone3,wait4,mmap,munmap,newfstatat,getdents64,access
n=0
compare() {
	local set=$1 what
	shift
	what="$* [-e trace=$set]"
	rm -rf "$T/s" && mkdir "$T/s"
	strace -ff -qq -e trace="$set" -o "$T/s/s" "$@" >/dev/null 2>&1 || fail "strace $what"
	"$IPCPERF" trace -q -e trace="$set" -o "$T/i" -- "$@" >/dev/null 2>"$T/err" ||
		{ cat "$T/err" >&2; fail "ipcperf trace $what"; }
	calls "$T"/s/s.* >"$T/s.calls"
	calls "$T/i" >"$T/i.calls"
	[ -s "$T/s.calls" ] || fail "strace printed no call for $what"
	diff -u "$T/s.calls" "$T/i.calls" >"$T/diff" ||
		{ head -n 40 "$T/diff" >&2; fail "ipcperf trace and strace differ on $what"; }
	n=$((n + $(wc -l <"$T/i.calls")))
}
compare "$set_fd" ls /
compare "$set_fd" "$IPCWORK" pipe
compare "$set_fd" "$FLOWWORK" unix-rr
compare '%network' "$FLOWWORK" unix-rr
# All but some: what the command runs before its exec (execve) and the calls
# that never return (exit_group) are not traced by ipcperf, so left out here.
compare '!read,write,execve,exit_group' "$FLOWWORK" unix-rr
# The meaning of an errno, as strace prints it, on a call that fails for sure.
"$IPCPERF" trace -q -e trace=openat -o "$T/i" -- ls /nonexistent-ipcperf-test >/dev/null 2>&1
grep -q 'openat(.*) = -1 ENOENT (No such file or directory) <' "$T/i" ||
	{ cat "$T/i" >&2; fail "trace: no '= -1 ENOENT (No such file or directory)'"; }
echo "test-trace-strace: $n calls, the same as strace's"
