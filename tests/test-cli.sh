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
run "$IPCPERF" trace -T -- "$IPCWORK" pipe --exit 5
expect_status 5 "ipcperf trace -- ipcwork pipe --exit 5"
# A call another task's line came into is drawn in halves, as strace -f
# draws it: "[pid N] read(10<...>,  <unfinished ...>", later "[pid N] <...
# read resumed>"...", 1000) = 1000 <T>". Each task's halves joined in place
# of its first half, so that the lines below are the calls whole.
perl -ne '
	my ($p, $l) = /^(\[pid +(\d+)\] )?(.*)$/s ? ($1 // "", $3) : ("", $_);
	my ($tid) = $p =~ /(\d+)/; $tid //= 0;
	if (exists $held{$tid} && $l =~ /^<\.\.\. \w+ resumed>(.*)$/s) {
		$out[$held{$tid}] .= $1; delete $held{$tid}; next;
	}
	if ($l =~ /^(.*) <unfinished \.\.\.>$/s) { push @out, "$p$1"; $held{$tid} = $#out; next; }
	push @out, $_;
	END { $out[$_] .= "\n" for values %held; print for @out }' "$T/out" >"$T/joined" || fail "cannot join the halves of trace's calls"
mv "$T/out" "$T/raw"
mv "$T/joined" "$T/out"

# [pid  TID] NAME(FD<OBJECT>, ARGS) = RET <SECONDS> (-T): what each fd is, as
# strace -f -yy prints it; "[pid N] " once more than one task is alive. With BPF every fd is named at its call; from /proc (a build
# without BPF) an fd whose process is gone before /proc is read is a bare number.
num='[0-9]+'
secs='<[0-9]+\.[0-9]{6}>'
pfx="^(\\[pid +$num\\] )?"
if [ "${IPCPERF_BUILT_BPF:-no}" = yes ]; then
	# The first pipe of ipcwork: pipe2 makes it, fcntl and dup2 move it onto 10 and 11.
	line=$(grep -m1 -E "${pfx}pipe2\(\[3<pipe:\[$num\]>, 4<pipe:\[$num\]>\], 0\) += 0 $secs\$" "$T/out") ||
		{ show; fail "trace: no line 'pipe2([3<pipe:[N]>, 4<pipe:[N]>], 0) = 0'"; }
	ino=$(sed -E 's/.*\[3<pipe:\[([0-9]+)\]>, 4<pipe:\[([0-9]+)\]>.*/\1 \2/' <<<"$line")
	[ "${ino% *}" = "${ino#* }" ] || { show; fail "trace: the two ends of one pipe2 name two pipes: $line"; }
	ino=${ino% *}
	pipe="<pipe:\[$ino\]>"
	grep -qE "${pfx}fcntl\(3$pipe, F_DUPFD, 64\) += 64$pipe $secs\$" "$T/out" ||
		{ show; fail "trace: no 'fcntl(3<pipe:[$ino]>, F_DUPFD, 64) = 64<pipe:[$ino]>'"; }
	grep -qE "${pfx}dup2\(64$pipe, 10\) += 10$pipe $secs\$" "$T/out" ||
		{ show; fail "trace: no 'dup2(64<pipe:[$ino]>, 10) = 10<pipe:[$ino]>'"; }
	# The loader's libc: openat with its path and flags, the fd named by what it opened.
	grep -qE "${pfx}openat\(AT_FDCWD<$PWD>, \"/[^\"]*/libc\.so\.6\", O_RDONLY\|O_CLOEXEC\) = 3</[^>]*/libc\.so\.6> $secs\$" "$T/out" ||
		{ show; fail "trace: no 'openat(AT_FDCWD<CWD>, \"/.../libc.so.6\", O_RDONLY|O_CLOEXEC) = 3<.../libc.so.6>'"; }
	grep -qE "${pfx}close\(3</[^>]*/libc\.so\.6>\) += 0 $secs\$" "$T/out" ||
		{ show; fail "trace: no 'close(3<.../libc.so.6>) = 0'"; }
else
	pipe='(<pipe:\[[0-9]+\]>)?'
fi
grep -E "${pfx}write\(11$pipe, (\"[^\"]*\"(\.\.\.)?|0x[0-9a-f]+), $num\) += $num $secs\$" "$T/out" >"$T/writes"
grep -E "read\(10$pipe, (\"[^\"]*\"(\.\.\.)?|0x[0-9a-f]+), 1000\) += " "$T/out" >"$T/reads"
# the return value of each line, and its tid ("[pid  TID] ")
rets() { sed -E 's/.* = ([0-9]+) <.*/\1/' "$1"; }

# 18 writes into the pipe: W 10 (5500 bytes), its thread T 5 (1500), its child G 3 (2100).
n=$(wc -l <"$T/writes")
[ "$n" -eq 18 ] || { show; fail "trace: $n lines of write(11, ...), expected 18"; }
sum=$(rets "$T/writes" | awk '{ s += $1 } END { print s + 0 }')
[ "$sum" -eq 9100 ] || { show; fail "trace: writes on fd 11 return $sum bytes in all, expected 9100"; }
per_thread=$(sed -E 's/^\[pid +([0-9]+)\] .* = ([0-9]+) <.*/\1 \2/' "$T/writes" |
	awk '{ n[$1]++; b[$1] += $2 } END { for (t in n) print n[t] ":" b[t] }' | sort -n | tr '\n' ' ')
[ "$per_thread" = "3:2100 5:1500 10:5500 " ] ||
	{ show; fail "trace: writes per thread (ops:bytes) are '$per_thread', expected '3:2100 5:1500 10:5500'"; }

# exit_group never returns: "= ?" and, as strace -T, no time after it.
grep -qE "${pfx}exit_group\(5\) += \?$" "$T/raw" ||
	{ show; fail "trace -T: no line 'exit_group(5) = ?' ending there"; }

# 11 reads by R: 9 x 1000, 100, and 0 at EOF.
n=$(wc -l <"$T/reads")
[ "$n" -eq 11 ] || { show; fail "trace: $n lines of read(10, 1000), expected 11"; }
sum=$(rets "$T/reads" | awk '{ s += $1 } END { print s + 0 }')
[ "$sum" -eq 9100 ] || { show; fail "trace: reads on fd 10 return $sum bytes in all, expected 9100"; }

# Every syscall in trace (by default, and under both long names of record's
# and stat's -s), record and stat alike.
for name in --syscalls --all-syscalls; do
	run "$IPCPERF" trace "$name" -- "$IPCWORK" pipe
	expect_status 0 "ipcperf trace $name"
	grep -qE "${pfx}(brk|mmap)\(" "$T/out" || { show; fail "trace $name: no brk or mmap line"; }
	run "$IPCPERF" stat -q --json "$name" -- "$IPCWORK" pipe
	expect_status 0 "ipcperf stat $name"
	grep -q '"name": *"mmap"' "$T/out" || { show; fail "stat $name: no mmap row"; }
done

# A file the command creates and writes: the flags and mode of its open, the
# path on every call that uses the fd, through the dup2 onto stdout.
if [ "${IPCPERF_BUILT_BPF:-no}" = yes ]; then
	run "$IPCPERF" trace -T -- sh -c "echo hi > $T/made"
	expect_status 0 "ipcperf trace -- sh -c 'echo hi > FILE'"
	grep -qE "${pfx}openat\(AT_FDCWD<$PWD>, \"$T/made\", O_WRONLY\|O_CREAT\|O_TRUNC, 0666\) = 3<$T/made> $secs\$" "$T/out" ||
		{ show; fail "trace: no 'openat(AT_FDCWD<CWD>, \"$T/made\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3<$T/made>'"; }
	grep -qE "${pfx}dup2\(3<$T/made>, 1(<.*>)?\) += 1<$T/made> $secs\$" "$T/out" ||
		{ show; fail "trace: no 'dup2(3<$T/made>, 1) = 1<$T/made>'"; }
	grep -qE "${pfx}write\(1<$T/made>, \"hi\\\\n\", 3\) += 3 $secs\$" "$T/out" ||
		{ show; fail "trace: no 'write(1<$T/made>, \"hi\\n\", 3) = 3'"; }
	# --no-bpf: the same run from /proc, which this sh outlives: no pipe2 fds, fds bare or named.
	run "$IPCPERF" trace -T --no-bpf -- "$IPCWORK" pipe
	expect_status 0 "ipcperf trace --no-bpf -- ipcwork pipe"
	grep -qE "${pfx}pipe2\(0x[0-9a-f]+, 0\) += 0 $secs\$" "$T/out" ||
		{ show; fail "trace --no-bpf: pipe2's fds are not said (the kernel's records are off)"; }
fi

# A SIGINT stops the capture and reaches the command too, unless it has
# exited already; either way ipcperf exits with the command's status. Here
# the command ignores SIGINT, sends it to ipcperf and exits 3 at once: by the
# time the capture has stopped it has exited, and asking whether it still
# runs must not reap it behind the library's back (which made ipcperf exit 0).
run "$IPCPERF" stat -q -o /dev/null -- sh -c 'trap "" INT; kill -INT $PPID; exit 3'
expect_status 3 "ipcperf stat -- (a command that sends ipcperf SIGINT, then exits 3)"

# -d ends the capture before the command ends: with --keep-running the
# report comes out, then ipcperf waits for the command and exits with its
# status (without, -d ends the command: tests/test-signals.sh).
run "$IPCPERF" stat -q -d 0.2 --keep-running -- sh -c 'sleep 1; exit 4'
expect_status 4 "ipcperf stat -d 0.2 --keep-running -- (a command that outlives the capture)"
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

# -p with -- CMD: the -p process gets counters of its own, as the help says
# ("with -p under each PID"), beside the command's. Its context switches: at
# least the 10 sleeps it makes while traced.
sh -c 'while :; do echo x >/dev/null; sleep 0.05; done' &
loop=$!
run "$IPCPERF" stat -q -j -p "$loop" -- "$IPCWORK" pipe --hold 600
kill "$loop"
expect_status 0 "stat -p PID -- ipcwork"
jq -e --argjson p "$loop" '.processes[] | select(.pid == $p) | .counters.task_clock_ns > 0 and
	.counters.context_switches >= 10' "$T/out" >/dev/null ||
	{ show; fail "stat -p $loop -- ipcwork: no counters for the -p process"; }
jq -e 'any(.processes[]; .comm == "ipcwork" and .counters.task_clock_ns > 0)' "$T/out" >/dev/null ||
	{ show; fail "stat -p $loop -- ipcwork: no counters for the command"; }

# Attached to a busy process (a ping-pong over a socket pair, a call every
# few microseconds): a call can be under way at the start only in a thread
# that was inside it then, one per thread, and one at the end. The kernel's
# exit programs attach before its enter program; the calls that ended in
# between are not the capture's (they were 10 to 12,000 "under way").
"$top_builddir/tests/iowork" pingpong 2000000000 >/dev/null 2>&1 &
pp=$!
sleep 0.2
for i in 1 2 3; do
	run "$IPCPERF" stat -q -j -p "$pp" -d 0.2
	expect_status 0 "stat -p (a busy ping-pong), run $i"
	u=$(jq .unpaired_syscalls "$T/out")
	[ "$u" -le 2 ] || { kill "$pp"; show; fail "stat -p of a one-thread ping-pong: $u unpaired calls, at most 2 can be"; }
done
kill "$pp"

exit 0
