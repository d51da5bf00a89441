#!/usr/bin/env bash
# Names from outside are shown, never obeyed. A workload in a directory named
# with ESC [2J (clear the screen) and U+009B (CSI, a C1 control) writes then reads 4096 bytes of a file named
# ESC ]0;PWNED BEL ESC [2J x (set the terminal's title, clear the screen)
# and of one named "sep,x", names itself ESC ]0;PW BEL ESC [2J and a lone
# CSI byte (0x9b, not UTF-8) with prctl, and sends 1000 bytes over a unix socket and 500 over a
# pipe to a child. Under stat (text, -I, --per-thread, -x ,), flows, trace,
# top -b, record then report, and in the messages that name a path, no byte
# that drives a terminal reaches stdout or stderr: the outputs are UTF-8 with
# no control character but the newline and the tab (no C0, DEL nor C1), and
# the names show escaped: \33]0;PWNED\7\33[2Jx. Needs root.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

live_setup "captures of a live workload" python3
esc=$(printf '\033')
D="$T/esc${esc}[2J$(printf '\302\233')d"
file_esc='\33]0;PWNED\7\33[2Jx'
comm_esc='\33]0;PW\7\33[2J\233'
dir_esc='esc\33[2J\302\233d'

cat >"$T/work.py" <<'EOF'
import ctypes, os, socket, sys, time
d = sys.argv[1]
libc = ctypes.CDLL(None)
libc.prctl(15, b"\033]0;PW\007\033[2J\x9b", 0, 0, 0)
for name in ("\033]0;PWNED\007\033[2Jx", "sep,x"):
    fd = os.open(os.path.join(d, name), os.O_RDWR | os.O_CREAT, 0o600)
    os.write(fd, b"x" * 4096)
    os.lseek(fd, 0, 0)
    os.read(fd, 4096)
    os.close(fd)
a, b = socket.socketpair()
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    a.sendall(b"y" * 1000)
    os.write(w, b"z" * 500)
    os._exit(0)
got = 0
while got < 1000:
    got += len(b.recv(1000 - got))
os.read(r, 500)
os.waitpid(pid, 0)
time.sleep(0.2)
EOF
py=$(python3 -c 'import sys; print(sys.executable)')

# clean WHAT FILE: FILE is UTF-8 with no control character but \n and \t.
clean() {
	python3 - "$1" "$2" <<'EOF' || fail "$1: a byte that drives a terminal reached the output"
import sys
what, path = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
try:
    text = data.decode("utf-8")
except UnicodeDecodeError as e:
    sys.exit("%s: not UTF-8 at byte %d: %r" % (what, e.start, data[max(0, e.start - 40):e.start + 8]))
for i, c in enumerate(text):
    o = ord(c)
    if (o < 0x20 and c not in "\n\t") or 0x7f <= o <= 0x9f:
        sys.exit("%s: U+%04X at %d: %r" % (what, o, i, text[max(0, i - 40):i + 8]))
EOF
}

# has WHAT FILE TEXT: FILE holds TEXT (fixed string).
has() {
	grep -qaF -- "$3" "$2" && return 0
	head -c 3000 "$2" >&2
	fail "$1: no '$3'"
}

# capture WHAT ARGS...: ipcperf ARGS... on the workload in a fresh $D, both
# outputs checked clean; its stdout in $T/out, its stderr in $T/err.
capture() {
	local what=$1
	shift
	rm -rf "$D"
	mkdir "$D" || fail "cannot make $D"
	run timeout 120 "$IPCPERF" "$@" -- "$py" -S "$T/work.py" "$D"
	expect_status 0 "$what"
	clean "$what (stdout)" "$T/out"
	clean "$what (stderr)" "$T/err"
}

capture stat stat
has stat "$T/out" "command '$py -S $T/work.py $T/$dir_esc'"
has stat "$T/out" "\\302\\233d/$file_esc"	# the end of a path the table cuts
has stat "$T/out" " $comm_esc"
# the file's row: fd 3, 1 read of 4096 bytes, 1 write of 4096 bytes
row=$(grep -aF -- "/$file_esc " "$T/out" | awk '{ print $1, $2, $4, $5, $9, $10 }')
[ "$row" = "3 file 1 4096 1 4096" ] || { cat "$T/out" >&2; fail "stat: the file's row is '$row'"; }

capture "stat -I" stat -I 100
capture "stat --per-thread" stat --per-thread
has "stat --per-thread" "$T/out" "$comm_esc"

capture "stat -x ," stat -x ,
has "stat -x ," "$T/out" ",file,$T/$dir_esc/$file_esc,read,1,4096,"
has "stat -x ," "$T/out" ",file,\"$T/$dir_esc/sep,x\",write,1,4096,"
has "stat -x ," "$T/out" ",$comm_esc,"

capture flows flows
has flows "$T/out" "$comm_esc"
has flows "$T/out" "'$py -S $T/work.py $T/$dir_esc'"

capture trace trace
has trace "$T/out" "openat(AT_FDCWD<"
has trace "$T/out" "\"$T/$dir_esc/$file_esc\", O_RDWR|O_CREAT|O_CLOEXEC, 0600) = 3<$T/$dir_esc/$file_esc>"
has trace "$T/out" "write(3<$T/$dir_esc/$file_esc>, \"xxxx"

capture "top -b" top -b -n 2 -d 1
has "top -b" "$T/out" "/$file_esc"
has "top -b" "$T/out" "$T/$dir_esc"

cap="$T/cap${esc}[2J.data"
capture record record -o "$cap"
has record "$T/err" "wrote $T/cap\\33[2J.data: "
for view in stat syscalls flows; do
	for fmt in "" "-x ,"; do
		[ "$view" = flows ] && [ -n "$fmt" ] && continue
		# shellcheck disable=SC2086 # $fmt: no option or two words
		run "$IPCPERF" report --view $view $fmt -i "$cap"
		expect_status 0 "report --view $view $fmt"
		clean "report --view $view $fmt (stdout)" "$T/out"
		clean "report --view $view $fmt (stderr)" "$T/err"
	done
done
run "$IPCPERF" report -i "$cap"
has report "$T/out" "capture $T/cap\\33[2J.data"
has report "$T/out" "\\302\\233d/$file_esc"

# A message naming a path: the capture that is not there.
run "$IPCPERF" report -i "$D/no$esc]0;X${esc}\\"
expect_status 1 "report of a missing capture"
clean "report's error" "$T/err"
has "report's error" "$T/err" "$T/$dir_esc/no\\33]0;X\\33\\"
exit 0
