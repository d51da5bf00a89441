#!/usr/bin/env bash
# ipcperf trace against strace.
#
# 1. Line by line, as strace -f -yy draws them, on eight programs run under
#    both tools: ls of a directory the test makes, a TCP client (connects to
#    a local listener, writes, reads: tests/tcpclient), a pipeline
#    (sh -c 'echo ... | cat'), a shell blocked in wait4 while its child
#    sleeps and prints (its wait4 drawn "<unfinished ...>", then
#    "<... wait4 resumed>" after the child's lines), tests/dgramwork (unix
#    datagram and seqpacket sockets, which strace -yy names "UNIX:[N->M]"),
#    tests/loopwork (an epoll server and its client over TCP loopback:
#    accept4, epoll_*, poll, readv, writev, getsockopt, setsockopt),
#    tests/iowork close-range (close_range, then fds on the numbers it
#    freed; and close-range-exec's CLOSE_RANGE_CLOEXEC, its line alone)
#    and tests/sigwork (a
#    parent that handles SIGCHLD; children stopped and killed, killed by
#    SIGSEGV and by SIGTERM). Each task's lines, in its own order, must be
#    equal (strace -ff writes one file per task, each call whole; ipcperf's
#    are split by its "[pid N] " prefix, its halves joined), signal lines
#    ("--- SIG ... ---", "--- stopped by ..."), rt_sigreturn's mask and
#    "+++ killed by ... +++" included, after
#    tests/trace-norm.pl normalises only what differs from run to run
#    (addresses, pids, inodes, the local port, getrandom's bytes, CPU
#    ticks). The pipeline's SIGCHLDs come where timing puts them, and as
#    many as the shell's children exits were not merged into one: they
#    are left out of its comparison (trace-norm.pl --async), and checked
#    apart. The one-task programs are also compared as printed whole (no
#    prefix, the return value in column 40).
# 2. With the same -e trace=SET, on programs whose calls do not depend on
#    timing (ls /, the demo workload ipcwork pipe with its thread and
#    grandchild, flowwork unix-rr over a unix socketpair), both print the
#    same calls with the same results, strace's errno names and their
#    meaning ("-1 ENOENT (No such file or directory)") included. Compared
#    per program as sorted (name, result) lines; addresses and pids masked.
# 3. -e trace=, -s and --timestamps usage errors: one line, exit 2.
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
for o in "-s 257" "-s x" "-s -1" "--timestamps=ms"; do
	# shellcheck disable=SC2086 # the option and its value, split
	run "$IPCPERF" trace -q $o -- true
	expect_status 2 "trace $o"
	[ "$(wc -l <"$T/err")" -eq 1 ] || { show; fail "trace $o: not one line on stderr"; }
done

skip_unless_root "ipcperf trace and strace side by side"
command -v strace >/dev/null || fail "strace is not installed (scripts/install-deps installs it)"

NORM=$(realpath "${top_srcdir:-$(dirname "$0")/..}/tests/trace-norm.pl")
TCPCLIENT=$(realpath "$top_builddir/tests/tcpclient")
need_exe "$TCPCLIENT"
SIGWORK=$(realpath "$top_builddir/tests/sigwork")
need_exe "$SIGWORK"
DGRAMWORK=$(realpath "$top_builddir/tests/dgramwork")
need_exe "$DGRAMWORK"
LOOPWORK=$(realpath "$top_builddir/tests/loopwork")
need_exe "$LOOPWORK"
IOWORK=$(realpath "$top_builddir/tests/iowork")
need_exe "$IOWORK"
IPCPERF_ABS=$(realpath "$IPCPERF")
command -v perl >/dev/null || fail "perl is not installed"

# side_by_side NAME CMD...: CMD under strace -ff -yy and under ipcperf trace,
# in $T (the working directory of both), its stdout and stderr into the same
# files each time (so that fds 1 and 2 name the same paths); each task's
# lines equal once normalised ($NORM_OPTS: trace-norm.pl's options). With a
# single task, the lines as printed too.
lines=0
side_by_side() {
	local name=$1 tasks
	local -a norm
	read -r -a norm <<<"${NORM_OPTS:-}"
	shift
	rm -rf "$T/$name" && mkdir "$T/$name"
	(cd "$T" && strace -q -ff -yy -o "$T/$name/s" "$@" >"$T/out.$name" 2>"$T/err.$name") ||
		fail "strace -ff -yy $* failed"
	(cd "$T" && "$IPCPERF_ABS" trace -q -o "$T/$name/i" -- "$@" >"$T/out.$name" 2>"$T/err.$name") ||
		{ cat "$T/err.$name" >&2; fail "ipcperf trace -- $* failed"; }
	perl "$NORM" "${norm[@]}" strace "$T/$name"/s.* >"$T/$name/s.n" ||
		fail "trace-norm.pl on strace's $name"
	perl "$NORM" "${norm[@]}" ipcperf "$T/$name/i" >"$T/$name/i.n" ||
		fail "trace-norm.pl on ipcperf's $name"
	[ "$(wc -l <"$T/$name/s.n")" -gt 20 ] || fail "strace printed almost nothing for $name"
	diff -u "$T/$name/s.n" "$T/$name/i.n" >"$T/$name/diff" ||
		{ head -n 60 "$T/$name/diff" >&2; fail "$name: ipcperf trace draws lines strace -f -yy does not"; }
	lines=$((lines + $(wc -l <"$T/$name/i.n")))
	tasks=$(ls "$T/$name"/s.* | wc -l)
	[ "$tasks" -gt 1 ] && return
	# one task: no "[pid N] " on any line, the return in strace's column
	grep -q '^\[pid ' "$T/$name/i" && fail "$name: a [pid N] prefix with a single task"
	(cd "$T" && strace -q -f -yy "$@" >"$T/out.$name" 2>"$T/err.$name") || fail "strace -f -yy $* failed"
	cp "$T/err.$name" "$T/$name/s.raw"
	perl "$NORM" ipcperf "$T/$name/s.raw" >"$T/$name/s.rn"
	perl "$NORM" ipcperf "$T/$name/i" >"$T/$name/i.rn"
	diff -u "$T/$name/s.rn" "$T/$name/i.rn" >"$T/$name/diff" ||
		{ head -n 40 "$T/$name/diff" >&2; fail "$name: the lines as printed differ from strace -f -yy's"; }
}

# has_lines NAME LINE...: each LINE is a whole line of ipcperf's trace of
# NAME as side_by_side normalized it ($T/NAME/i.n), or fail.
has_lines() {
	local name=$1 l
	shift
	for l in "$@"; do
		grep -qxF "$l" "$T/$name/i.n" || { cat "$T/$name/i.n" >&2; fail "$name: no line '$l'"; }
	done
}

mkdir "$T/dir" && touch "$T/dir/a" "$T/dir/b b" "$T/dir/c"
side_by_side ls ls "$T/dir"
# a listener that answers each of the two clients (strace's, ipcperf's), untraced
python3 -c '
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen()
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
for _ in range(2):
    c, _ = s.accept()
    c.recv(64)
    c.sendall(b"pong\n")
    c.recv(64)
    c.close()
' "$T/port.tmp" &
listener=$!
for _ in $(seq 50); do [ -s "$T/port.tmp" ] && break; sleep 0.1; done
[ -s "$T/port.tmp" ] || { kill "$listener"; fail "the listener did not start"; }
side_by_side tcp "$TCPCLIENT" "$(cat "$T/port.tmp")"
wait "$listener" || fail "the listener did not serve both clients"
grep -q '^T0 connect(3<TCP:\[INO\]>, {sa_family=AF_INET, sin_port=htons([0-9]*), sin_addr=inet_addr("127.0.0.1")}, 16) = 0$' "$T/tcp/i.n" ||
	{ cat "$T/tcp/i.n" >&2; fail "tcp: no connect line as strace -yy draws it"; }
grep -q '^T0 read(3<TCP:\[127.0.0.1:PORT->127.0.0.1:[0-9]*\]>, "pong\\n", 64) = 5$' "$T/tcp/i.n" ||
	{ cat "$T/tcp/i.n" >&2; fail "tcp: no read of \"pong\\n\" on the named socket"; }
NORM_OPTS="--async SIGCHLD" side_by_side pipeline sh -c 'echo hi there | cat'
grep -q '^T1 write(1<pipe:\[INO\]>, "hi there\\n", 9) *= 9$' "$T/pipeline/i.n" ||
	{ cat "$T/pipeline/i.n" >&2; fail "pipeline: no write of the echo into the pipe"; }
# the shell's SIGCHLDs, wherever they came: its handler ran, and returned
grep -Eq '^--- SIGCHLD \{si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=[0-9]+, si_uid=[0-9]+, si_status=0, si_utime=[0-9]+, si_stime=[0-9]+\} ---$' "$T/pipeline/i" &&
	grep -q '^rt_sigreturn({mask=\[\]}) *= ' "$T/pipeline/i" ||
	{ cat "$T/pipeline/i" >&2; fail "pipeline: no SIGCHLD of the shell's children, or no rt_sigreturn"; }
# A shell blocked in wait4 while its child (a subshell) sleeps, then prints:
# its wait4 is drawn in two halves, as strace -f draws it, "wait4(-1,
# <unfinished ...>" before the child's lines and "<... wait4 resumed>" after
# them; joined, each task's lines are strace -ff's (side_by_side).
NORM_OPTS="--async SIGCHLD" side_by_side blocked sh -c '(sleep 0.1; echo one; echo two); echo three'
u=$(grep -n -m1 '^\[pid *[0-9]*\] wait4(-1,  <unfinished \.\.\.>$' "$T/blocked/i") ||
	{ cat "$T/blocked/i" >&2; fail "blocked: no wait4 drawn <unfinished ...>"; }
p=$(sed 's/^[0-9]*:\[pid *\([0-9]*\)\].*/\1/' <<<"$u")
w=$(grep -n -m1 'write(1<[^>]*>, "one\\n", 4) *= 4$' "$T/blocked/i") ||
	{ cat "$T/blocked/i" >&2; fail "blocked: the child's write of \"one\" is not there"; }
r=$(grep -n -E "^(\[pid +$p\] )?<\.\.\. wait4 resumed>\[\{WIFEXITED\(s\) && WEXITSTATUS\(s\) == 0\}\], 0, NULL\) += [0-9]+$" "$T/blocked/i" | tail -n 1) ||
	{ cat "$T/blocked/i" >&2; fail "blocked: no \"<... wait4 resumed>\" of $p"; }
[ "${u%%:*}" -lt "${w%%:*}" ] && [ "${w%%:*}" -lt "${r%%:*}" ] ||
	{ cat "$T/blocked/i" >&2; fail "blocked: wait4 not drawn unfinished, then the child's lines, then resumed"; }
# Unix datagram and seqpacket sockets: "UNIX:[N->M]", the kernel's name for them.
side_by_side dgram "$DGRAMWORK"
grep -q '^T0 socketpair(AF_UNIX, SOCK_DGRAM, 0, \[3<UNIX:\[INO\]>, 4<UNIX:\[INO\]>\]) = 0$' "$T/dgram/i.n" &&
	grep -q '^T0 read(3<UNIX:\[INO\]>, "pong", 64) *= 4$' "$T/dgram/i.n" ||
	{ cat "$T/dgram/i.n" >&2; fail "dgram: the datagram socketpair not named UNIX:[N->M]"; }
# An event loop's calls (tests/loopwork: an epoll server and its client over
# TCP loopback): accept4's flags and lengths, epoll_create1, epoll_ctl and epoll_wait's
# events, poll's fds and revents, readv and writev's iovecs with their
# bytes (one of them in a page the call faults in), getsockopt and
# setsockopt's values, each fd named, the listener by its address.
NORM_OPTS="--ports" side_by_side loop "$LOOPWORK"
has_lines loop 'T0 setsockopt(3<TCP:[INO]>, SOL_SOCKET, SO_REUSEADDR, [1], 4) = 0' \
	'T0 listen(3<TCP:[127.0.0.1:P1]>, 8)        = 0' \
	'T0 getsockopt(4<TCP:[127.0.0.1:P2->127.0.0.1:P1]>, SOL_SOCKET, SO_ERROR, [0], [4]) = 0' \
	'T0 poll([{fd=4<TCP:[127.0.0.1:P2->127.0.0.1:P1]>, events=POLLIN|POLLOUT}], 1, 1000) = 1 ([{fd=4, revents=POLLOUT}])' \
	'T0 epoll_create1(EPOLL_CLOEXEC)            = 5<anon_inode:[eventpoll]>' \
	'T0 epoll_wait(5<anon_inode:[eventpoll]>, [{events=EPOLLIN, data={u32=3, u64=3}}], 4, 1000) = 1' \
	'T0 accept4(3<TCP:[127.0.0.1:P1]>, {sa_family=AF_INET, sin_port=htons(P2), sin_addr=inet_addr("127.0.0.1")}, [16], SOCK_CLOEXEC|SOCK_NONBLOCK) = 6<TCP:[127.0.0.1:P1->127.0.0.1:P2]>' \
	'T0 accept4(3<TCP:[127.0.0.1:P1]>, ADDR, [20], SOCK_CLOEXEC|SOCK_NONBLOCK) = -1 EAGAIN (Resource temporarily unavailable)' \
	'T0 getsockname(3<TCP:[127.0.0.1:P1]>, {sa_family=AF_INET, sin_port=htons(P1), sin_addr=inet_addr("127.0.0.1")}, [128 => 16]) = 0' \
	'T0 setsockopt(6<TCP:[127.0.0.1:P1->127.0.0.1:P2]>, SOL_TCP, TCP_NODELAY, [1], 4) = 0' \
	'T0 epoll_ctl(5<anon_inode:[eventpoll]>, EPOLL_CTL_MOD, 6<TCP:[127.0.0.1:P1->127.0.0.1:P2]>, {events=EPOLLIN|EPOLLRDHUP|EPOLLET, data={u32=6, u64=6}}) = 0' \
	'T0 writev(4<TCP:[127.0.0.1:P2->127.0.0.1:P1]>, [{iov_base="GET / HTTP/1.0\r\n", iov_len=16}, {iov_base="Host: localhost\r\nUser-Agent: loo"..., iov_len=41}], 2) = 57' \
	'T0 readv(6<TCP:[127.0.0.1:P1->127.0.0.1:P2]>, [{iov_base="GET / HT", iov_len=8}, {iov_base="TP/1.0\r\nHost: localhost\r\nUser-Ag"..., iov_len=128}], 2) = 57' \
	'T0 readv(6<TCP:[127.0.0.1:P1->127.0.0.1:P2]>, [{iov_base=ADDR, iov_len=8}, {iov_base=ADDR, iov_len=128}], 2) = -1 EAGAIN (Resource temporarily unavailable)' \
	'T0 poll([{fd=4<TCP:[127.0.0.1:P2->127.0.0.1:P1]>, events=POLLIN}], 1, 0) = 0 (Timeout)' \
	'T0 writev(6<TCP:[127.0.0.1:P1->127.0.0.1:P2]>, [{iov_base="HTTP/1.0 200 OK\r\n", iov_len=17}, {iov_base="Content-Length: 6\r\n\r\n", iov_len=21}, {iov_base="hello\n", iov_len=6}], 3) = 44'
side_by_side signals "$SIGWORK"
has_lines signals 'T1 --- SIGSTOP {si_signo=SIGSTOP, si_code=SI_USER, si_pid=T1, si_uid=0} ---' \
	'T1 --- stopped by SIGSTOP ---' 'T1 +++ killed by SIGKILL +++' \
	'T2 --- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL} ---' \
	'T2 +++ killed by SIGSEGV +++' \
	'T3 --- SIGTERM {si_signo=SIGTERM, si_code=SI_USER, si_pid=T3, si_uid=0} ---' \
	'T3 +++ killed by SIGTERM +++' \
	'T0 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_STOPPED, si_pid=T1, si_uid=0, si_status=SIGSTOP, si_utime=TICKS, si_stime=TICKS} ---' \
	'T0 rt_sigreturn({mask=[]})                 = 0'
# close_range, as strace draws it: its numbers unsigned, no fd names; the
# fds of its range no longer named after it (iowork close-range: a write to
# fd 23 it closed, then pipe2 given fds 20 and 21 again).
side_by_side closerange "$IOWORK" close-range
[ "$(grep -cxF 'T0 close_range(20, 4294967295, 0)          = 0' "$T/closerange/i.n")" -eq 2 ] &&
	grep -qxF 'T0 write(23, "\0\0\0\0", 4)                = -1 EBADF (Bad file descriptor)' \
		"$T/closerange/i.n" ||
	{ cat "$T/closerange/i.n" >&2; fail "closerange: not two close_range lines and the write to fd 23 unnamed"; }
# Its flags by name (iowork close-range-exec: CLOSE_RANGE_CLOEXEC).
(cd "$T" && strace -q -e trace=close_range -o "$T/cr.s" "$IOWORK" close-range-exec) ||
	fail "strace -e trace=close_range iowork close-range-exec failed"
(cd "$T" && "$IPCPERF_ABS" trace -q -e trace=close_range -o "$T/cr.i" -- "$IOWORK" close-range-exec) ||
	fail "ipcperf trace -e trace=close_range -- iowork close-range-exec failed"
diff -u "$T/cr.s" "$T/cr.i" >&2 || fail "close-range-exec: ipcperf trace draws close_range as strace does not"
grep -qx 'close_range(20, 20, CLOSE_RANGE_CLOEXEC) = 0' "$T/cr.i" ||
	{ cat "$T/cr.i" >&2; fail "close-range-exec: no close_range(20, 20, CLOSE_RANGE_CLOEXEC) line"; }
echo "test-trace-strace: $lines lines drawn as strace -f -yy draws them"

# name result [ERRNO (meaning)] per call, sorted; "ADDR" for addresses, "PID" for pids.
# A call drawn in halves counts once, by its second ("<... NAME resumed>").
calls() {
	perl -ne 'next if /^(\d+ +)?(---|\+\+\+)/;
		s/^(\d+\/\d+ |\[pid +\d+\] )//;
		next if / <unfinished \.\.\.>$/;
		next unless /^(\w+)\(/ || /^<\.\.\. (\w+) resumed>/; my $n = $1;
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
# All but some: the command's execve and the calls that never return are
# traced too now.
compare '!read,write' "$FLOWWORK" unix-rr
# The meaning of an errno, as strace prints it, on a call that fails for sure.
"$IPCPERF" trace -q -T -e trace=openat -o "$T/i" -- ls /nonexistent-ipcperf-test >/dev/null 2>&1
grep -q 'openat(.*) = -1 ENOENT (No such file or directory) <' "$T/i" ||
	{ cat "$T/i" >&2; fail "trace: no '= -1 ENOENT (No such file or directory)'"; }
echo "test-trace-strace: $n calls, the same as strace's"
