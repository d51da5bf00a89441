#!/bin/sh
# top -p of a process in another network namespace (a container's server),
# whose sockets were open before the attach (issue 38, item 12c: "top shows
# an empty object for fds that were open at the attach"). Our sock_diag
# does not see that namespace: the sockets are asked of themselves (a copy
# of the fd) and of their namespace's sock_diag. A python3 process in a
# namespace of its own (unshare -n) holds a TCP connection to itself, a
# unix stream socketpair and a connected UDP pair, made before the attach;
# once top is on it moves exact bytes on each, 10 rounds, and exits:
#  - each TCP end is a row "127.0.0.1:A -> 127.0.0.1:B", the two mirrored,
#    2000 bytes each (10 x 70 one way, 10 x 130 the other);
#  - the unix pair is a group "unix peer python3[PID], 2 conns" of 1600
#    bytes (its peers known);
#  - each UDP end has its addresses, 200 bytes;
#  - the TCP ends are each other's peers: a flow python3 -> python3;
#  - no row with a blank endpoint (" -> " alone, or "->" at an end).
# Before, each TCP and UDP row read " -> " and the unix ends were rows of
# their own with no peer.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

need_exe "$IPCPERF"
skip_unless_root "top of a process in another network namespace"
command -v python3 >/dev/null || fail "python3 is not installed"
command -v unshare >/dev/null || fail "unshare is not installed (util-linux)"
command -v ip >/dev/null || fail "ip is not installed (scripts/install-deps installs iproute2)"
make_tmpdir
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$T"' EXIT

cat >"$T/work.py" <<'EOF'
import os, socket, sys, time
out, go = sys.argv[1], sys.argv[2]
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(1)
c = socket.create_connection(srv.getsockname())
s, _ = srv.accept()
a, b = socket.socketpair()
u1 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u1.bind(("127.0.0.1", 0))
u2 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u2.connect(u1.getsockname())
def take(sock, n):
    got = 0
    while got < n:
        got += len(sock.recv(n - got))
with open(out + ".tmp", "w") as f:
    f.write("%d %d %d\n" % (os.getpid(), c.fileno(), s.fileno()))
os.rename(out + ".tmp", out)
while not os.path.exists(go):
    time.sleep(0.02)
for i in range(10):
    c.sendall(b"c" * 70); take(s, 70)
    s.sendall(b"s" * 130); take(c, 130)
    a.sendall(b"a" * 50); take(b, 50)
    b.sendall(b"b" * 30); take(a, 30)
    u2.send(b"u" * 20); u1.recv(20)
EOF
unshare -n sh -c "ip link set lo up && exec python3 -S '$T/work.py' '$T/pids' '$T/go'" &
pid=$!
for _ in $(seq 200); do [ -s "$T/pids" ] && break; sleep 0.05; done
[ -s "$T/pids" ] || fail "the workload in its own network namespace did not start"
read -r wpid cfd sfd <"$T/pids"
[ "$wpid" = "$pid" ] || fail "the workload is pid $wpid, not $pid"
[ "$(readlink /proc/$pid/ns/net)" != "$(readlink /proc/self/ns/net)" ] ||
	fail "the workload is in our network namespace"

# top until the workload exits; go once its first frame is out (the attach done).
timeout 60 "$IPCPERF" top -b -d 0.3 -p "$pid" >"$T/out" 2>"$T/err" &
top=$!
for _ in $(seq 300); do grep -q '^ipcperf top: ' "$T/out" && break; sleep 0.05; done
touch "$T/go"
wait "$pid" || fail "the workload failed"
pid=
wait "$top" || { cat "$T/err" >&2; fail "top -b -p exited $?"; }

awk '/^ +PID +FD KIND / { n = 0; delete pane; on = 1; next } on && !NF { on = 0 }
	on { pane[++n] = $0 } END { for (i = 1; i <= n; i++) print pane[i] }' "$T/out" >"$T/pane"
row() {
	grep -Eq "$2" "$T/pane" || { cat "$T/out" >&2; fail "$1: no row /$2/ in the last frame"; }
}
row "TCP client end" "^ +$wpid +$cfd tcp .* 2000  127\.0\.0\.1:[0-9]+ -> 127\.0\.0\.1:[0-9]+$"
row "TCP server end" "^ +$wpid +$sfd tcp .* 2000  127\.0\.0\.1:[0-9]+ -> 127\.0\.0\.1:[0-9]+$"
c=$(sed -En "s/^ +$wpid +$cfd tcp .*  (.*) -> (.*)$/\\1 \\2/p" "$T/pane")
s=$(sed -En "s/^ +$wpid +$sfd tcp .*  (.*) -> (.*)$/\\2 \\1/p" "$T/pane")
[ "$c" = "$s" ] || fail "the TCP ends are not mirrored: '$c', '$s'"
row "unix pair" "^ +$wpid +\\* unix .* 1600  unix peer python3[^ ]*\\[$wpid\\], 2 conns$"
[ "$(grep -Ec "^ +$wpid +[0-9]+ udp .* 200  127\.0\.0\.1:[0-9]+ -> (127\.0\.0\.1:[1-9][0-9]*|0\.0\.0\.0:0)$" "$T/pane")" -eq 2 ] ||
	{ cat "$T/out" >&2; fail "not 2 UDP rows of 200 bytes with their addresses"; }
# The TCP ends are known as each other's peer: one flow group, both ways.
grep -Eq "^ *[^ ]+ [^ ]+ +2000 tcp +python3[^ ]*\[$wpid\] -> python3[^ ]*\[$wpid\] +2 conns$" "$T/out" ||
	{ cat "$T/out" >&2; fail "no flow row '2000 tcp python3[$wpid] -> python3[$wpid] 2 conns'"; }
if grep -Eq '(  -> | ->$)' "$T/out"; then
	cat "$T/out" >&2
	fail "a row with a blank endpoint"
fi
echo "test-top-netns: sockets open before the attach in another network namespace named by their addresses and peers, exact"
