#!/usr/bin/env bash
# The ipcperf command line: version, help, usage errors, and (as root) `trace`
# of the bundled workload, whose output must show exactly its known I/O.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

need_exe "$IPCPERF"
make_tmpdir

# --version: "ipcperf X.Y.Z", the version configure was given.
version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$top_builddir/config.h")
[ -n "$version" ] || fail "no PACKAGE_VERSION in $top_builddir/config.h"
run "$IPCPERF" --version
expect_status 0 "ipcperf --version"
[ "$(cat "$T/out")" = "ipcperf $version" ] || { show; fail "ipcperf --version: expected 'ipcperf $version'"; }

# --help: exit 0, and it names the trace subcommand.
run "$IPCPERF" --help
expect_status 0 "ipcperf --help"
grep -qw trace "$T/out" || { show; fail "ipcperf --help does not mention 'trace'"; }

# An unknown subcommand: exit 2, one line on stderr, nothing on stdout.
run "$IPCPERF" no-such-command
expect_status 2 "ipcperf no-such-command"
[ "$(grep -c '' "$T/err")" -eq 1 ] || { show; fail "ipcperf no-such-command: expected a one-line error on stderr"; }
[ ! -s "$T/out" ] || { show; fail "ipcperf no-such-command: printed on stdout"; }

# --scope: an unknown one, and cpu for a capture, are usage errors, said in one line.
for args in "stat --scope bogus -- true" "record -o $T/c.data --scope cpu -- true" \
	    "stat --record $T/c.data --scope cpu -- true"; do
	# shellcheck disable=SC2086
	run "$IPCPERF" $args
	expect_status 2 "ipcperf $args"
	[ "$(grep -c '' "$T/err")" -eq 1 ] || { show; fail "ipcperf $args: expected a one-line error"; }
	grep -q -- "scope" "$T/err" || { show; fail "ipcperf $args: the error does not name the scope"; }
	[ ! -e "$T/c.data" ] || fail "ipcperf $args: created the capture"
done

# ------------------------------------------------------------ as root
skip_unless_root "ipcperf trace"
need_exe "$IPCWORK"

# The workload's exit status comes back as ipcperf's.
run "$IPCPERF" trace -- "$IPCWORK" pipe --exit 5
expect_status 5 "ipcperf trace -- ipcwork pipe --exit 5"

# PID/TID NAME(FD, COUNT) = RET <SECONDS>
num='[0-9]+'
secs='<[0-9]+\.[0-9]{6}>'
grep -E "^$num/$num write\(11, $num\) = $num $secs\$" "$T/out" >"$T/writes"
grep -E "read\(10, 1000\) = " "$T/out" >"$T/reads"

# 18 writes into the pipe: W 10 (5500 bytes), its thread T 5 (1500), its child G 3 (2100).
n=$(wc -l <"$T/writes")
[ "$n" -eq 18 ] || { show; fail "trace: $n lines of write(11, ...), expected 18"; }
sum=$(awk '{ s += $5 } END { print s + 0 }' "$T/writes")
[ "$sum" -eq 9100 ] || { show; fail "trace: writes on fd 11 return $sum bytes in all, expected 9100"; }
per_thread=$(awk '{ n[$1]++; b[$1] += $5 } END { for (t in n) print n[t] ":" b[t] }' "$T/writes" |
	sort -n | tr '\n' ' ')
[ "$per_thread" = "3:2100 5:1500 10:5500 " ] ||
	{ show; fail "trace: writes per thread (ops:bytes) are '$per_thread', expected '3:2100 5:1500 10:5500'"; }

# 11 reads by R: 9 x 1000, 100, and 0 at EOF.
n=$(wc -l <"$T/reads")
[ "$n" -eq 11 ] || { show; fail "trace: $n lines of read(10, 1000), expected 11"; }
sum=$(awk '{ s += $5 } END { print s + 0 }' "$T/reads")
[ "$sum" -eq 9100 ] || { show; fail "trace: reads on fd 10 return $sum bytes in all, expected 9100"; }

# A SIGINT stops the capture and reaches the command too, unless it has
# exited already; either way ipcperf exits with the command's status. Here
# the command ignores SIGINT, sends it to ipcperf and exits 3 at once: by the
# time the capture has stopped it has exited, and asking whether it still
# runs must not reap it behind the library's back (which made ipcperf exit 0).
run "$IPCPERF" stat -q -o /dev/null -- sh -c 'trap "" INT; kill -INT $PPID; exit 3'
expect_status 3 "ipcperf stat -- (a command that sends ipcperf SIGINT, then exits 3)"

# -d ends the capture before the command ends: the report comes out, then
# ipcperf waits for the command and exits with its status.
run "$IPCPERF" stat -q -d 0.2 -- sh -c 'sleep 1; exit 4'
expect_status 4 "ipcperf stat -d 0.2 -- (a command that outlives the capture)"
grep -q '^ipcperf stat: command' "$T/out" || { show; fail "stat -d: no report on stdout"; }
grep -q 'waiting for the command to exit' "$T/err" ||
	{ show; fail "stat -d: no note that it waits for the command"; }

# A kernel thread makes no system calls: -p on one says so, and no call is
# made up for it from its /proc/PID/syscall (which reads "0 0x0 ...").
kthread=
for st in /proc/[0-9]*/stat; do
	# flags, the 9th field, counted after the comm; PF_KTHREAD is 0x00200000
	flags=$(sed 's/.*) //' "$st" 2>/dev/null | awk '{ print $7 }')
	[ -n "$flags" ] && [ $((flags & 0x00200000)) -ne 0 ] || continue
	kthread=$(basename "$(dirname "$st")")
	break
done
[ -n "$kthread" ] || fail "no kernel thread visible in /proc (a PID namespace?): cannot check stat -p on one"
run "$IPCPERF" stat -d 0.3 --json -o "$T/k.json" -p "$kthread"
expect_status 0 "ipcperf stat -p $kthread (a kernel thread)"
grep -q "pid $kthread is a kernel thread" "$T/err" || { show; fail "stat -p $kthread: no note that it is a kernel thread"; }
unpaired=$(jq .unpaired_syscalls "$T/k.json")
[ "$unpaired" = 0 ] || { show; fail "stat -p $kthread: $unpaired unpaired syscalls, expected 0"; }

exit 0
