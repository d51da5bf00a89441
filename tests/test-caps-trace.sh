#!/usr/bin/env bash
# What a user without root's rights sees of other users' processes through
# ipcperf installed with file capabilities (setcap cap_perfmon,cap_bpf,
# cap_dac_read_search+ep, mode 0755), run as nobody:
#  - trace -p of root's process: refused, in one line, nothing on stdout;
#  - trace -a: root's calls, without their memory (no buffer read, no
#    argv), while nobody's own process's buffers are shown;
#  - a child that executes a set-user-ID program: nothing of it after the
#    exec, its parent still traced with its buffers, and one line saying
#    which pid left what nobody may see, and when;
#  - a set-user-ID command: trace says it in that line, stat in its process
#    row and in the JSON (left_after_ns);
#  - check's fix for the capabilities puts the binary in a group, mode 0750.
# trace -p is refused the same way by a copy installed setuid root.
# Needs root (setcap, a user to switch to, root's processes), the BPF build
# (the calls' memory is read in the kernel) and jq.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

skip_unless_root "setcap and running as another user"
need_exe "$IPCPERF"
[ "${IPCPERF_BUILT_BPF:-yes}" = yes ] || skip "built without BPF: trace reads no memory"
[ "$(head -c 4 "$IPCPERF" | od -An -c | tr -d ' ')" = '177ELF' ] ||
	fail "$IPCPERF is not an ELF binary (a libtool wrapper?): cannot give it capabilities"
for tool in setcap setpriv jq; do
	command -v "$tool" >/dev/null || fail "$tool is not installed (Debian: libcap2-bin util-linux jq)"
done
getent passwd nobody >/dev/null || fail "no user nobody to run as"
NOBODY_UID=$(id -u nobody) && NOBODY_GID=$(id -g nobody) || fail "no uid or group of nobody"

make_tmpdir
PIDS=
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

chmod 0711 "$T" || fail "chmod $T"
mkdir -m 0755 "$T/bin" "$T/nb" && mkdir -m 0700 "$T/root" && chown nobody "$T/nb" || fail "mkdir"
BIN=$T/bin/ipcperf
cp "$IPCPERF" "$BIN" && chmod 0755 "$BIN" || fail "cannot copy $IPCPERF"
setcap cap_perfmon,cap_bpf,cap_dac_read_search+ep "$BIN" ||
	fail "setcap on $BIN failed (a filesystem without extended attributes?)"
cp /bin/echo "$T/bin/suid-echo" && chmod 4755 "$T/bin/suid-echo" || fail "cannot make a setuid echo"

as_nobody() {
	(cd "$T/nb" && setpriv --reuid=nobody --regid="$NOBODY_GID" --clear-groups "$@")
}

# Root's: a secret only root may read, read again and again, and a command
# line with a password. Nobody's: a file of its own, read the same way.
printf 'secret-root-data\n' >"$T/root/secret.txt" && chmod 0600 "$T/root/secret.txt" || fail "secret"
printf 'nobody-own-data\n' >"$T/nb/own.txt" && chown nobody "$T/nb/own.txt" || fail "own file"
sh -c 'while :; do head -c 64 "$1" >/dev/null; /bin/true --password=hunter2; sleep 0.1; done' \
	sh "$T/root/secret.txt" &
ROOT_PID=$!
# not as_nobody, whose subshell would be root's process
setpriv --reuid=nobody --regid="$NOBODY_GID" --clear-groups \
	sh -c 'while :; do head -c 64 "$1" >/dev/null; sleep 0.1; done' sh "$T/nb/own.txt" &
OWN_PID=$!
PIDS="$ROOT_PID $OWN_PID"
sleep 0.3

# ------------------------------------------------------------ trace -p of root's
run as_nobody "$BIN" trace -s 64 -p "$ROOT_PID" -d 2
expect_status 1 "trace -p of root's process as nobody"
[ ! -s "$T/out" ] || { show; fail "trace -p of root's process: printed the trace"; }
[ "$(grep -c '' "$T/err")" -eq 1 ] || { show; fail "trace -p of root's process: not a one-line refusal"; }
grep -qF "ipcperf: pid $ROOT_PID is not yours to read: uid $NOBODY_UID may not read its memory (its owner is uid 0)" "$T/err" ||
	{ show; fail "trace -p of root's process: the refusal does not say whose process it is"; }
# installed setuid root instead: the same, by the user's real ids
cp -p "$IPCPERF" "$T/bin/ipcperf-suid" && chmod 4755 "$T/bin/ipcperf-suid" || fail "cp, chmod"
run as_nobody "$T/bin/ipcperf-suid" trace -s 64 -p "$ROOT_PID" -d 2
expect_status 1 "setuid: trace -p of root's process as nobody"
[ ! -s "$T/out" ] && [ "$(grep -c '' "$T/err")" -eq 1 ] &&
	grep -qF "ipcperf: pid $ROOT_PID is not yours to read: uid $NOBODY_UID may not" "$T/err" ||
	{ show; fail "setuid: trace -p of root's process: not refused in one line"; }
# nobody's own process: traced with its buffers
run as_nobody "$BIN" trace -s 64 -e trace=read -p "$OWN_PID" -d 1
expect_status 0 "trace -p of nobody's own process"
grep -qE '^(\[pid +[0-9]+\] )?read\([0-9]+</.*/own\.txt>, "nobody-own-data\\n", [0-9]+\) = 16$' "$T/out" ||
	{ show; fail "trace -p of nobody's own process: its read's buffer is not shown"; }

# ------------------------------------------------------------ trace -a
run as_nobody "$BIN" trace -s 64 -e trace=read,execve -a -d 3
expect_status 0 "trace -a as nobody"
# root's reads are traced, without their buffers
grep -qE "^(\[pid +[0-9]+\] )?read\([0-9]+<$T/root/secret\.txt>, 0x[0-9a-f]+, [0-9]+\) = 17$" "$T/out" ||
	{ show; fail "trace -a: no read of root's secret, with its buffer's address only"; }
! grep -q 'secret-root-data' "$T/out" || { grep -m3 secret-root-data "$T/out" >&2; fail "trace -a: nobody sees root's buffer"; }
! grep -q 'hunter2' "$T/out" || { grep -m3 hunter2 "$T/out" >&2; fail "trace -a: nobody sees the argv of root's process"; }
grep -qE '^(\[pid +[0-9]+\] )?read\([0-9]+</.*/own\.txt>, "nobody-own-data\\n", [0-9]+\) = 16$' "$T/out" ||
	{ show; fail "trace -a: nobody's own process's buffer is not shown"; }

# ------------------------------------------------------------ a set-user-ID child
run as_nobody "$BIN" trace -s 64 -o "$T/nb/child.txt" -- \
	sh -c '"$0" suid-marker >/dev/null; echo done-nobody >/dev/null' "$T/bin/suid-echo"
expect_status 0 "trace of a command whose child runs a set-user-ID program"
cp "$T/nb/child.txt" "$T/out"
grep -qE '^(\[pid +[0-9]+\] )?write\(1</dev/null.*>, "done-nobody\\n", 12\) = 12$' "$T/out" ||
	{ show; fail "the parent's write is not traced with its buffer"; }
! grep -q 'write(.*suid-marker' "$T/out" || { show; fail "the set-user-ID child's write is traced"; }
[ "$(grep -c '' "$T/err")" -eq 1 ] || { show; fail "set-user-ID child: not one line on stderr"; }
grep -qE "^ipcperf: pid [0-9]+ \(suid-echo\) left what uid $NOBODY_UID may see at [0-9]+\.[0-9]{3} s: it executed a set-user-ID, set-group-ID or file-capability program; not traced from there on$" "$T/err" ||
	{ show; fail "set-user-ID child: the line that says it left is missing"; }

# ------------------------------------------------------------ a set-user-ID command
run as_nobody "$BIN" trace -o /dev/null -- "$T/bin/suid-echo" hello
expect_status 0 "trace of a set-user-ID command"
[ "$(cat "$T/out")" = hello ] || { show; fail "the command's output"; }
grep -qE "^ipcperf: pid [0-9]+ \(suid-echo\) left what uid $NOBODY_UID may see at [0-9]+\.[0-9]{3} s: " "$T/err" ||
	{ show; fail "trace of a set-user-ID command: no line saying it left"; }

run as_nobody "$BIN" stat -o "$T/nb/stat.txt" -- "$T/bin/suid-echo" hello
expect_status 0 "stat of a set-user-ID command"
cp "$T/nb/stat.txt" "$T/out"
grep -qE '^pid [0-9]+ suid-echo' "$T/out" || { show; fail "stat: the process is not named suid-echo"; }
grep -qE "^  left what uid $NOBODY_UID may see at [0-9]+\.[0-9]{3} s: it executed a set-user-ID, set-group-ID or file-capability program; nothing of it after$" "$T/out" ||
	{ show; fail "stat: no line saying the process left"; }

run as_nobody "$BIN" stat -j -o "$T/nb/stat.json" -- "$T/bin/suid-echo" hello
expect_status 0 "stat -j of a set-user-ID command"
left=$(jq -r '[.processes[] | select(.comm == "suid-echo") | .left_after_ns] | length' "$T/nb/stat.json") ||
	fail "stat -j: not JSON"
[ "$left" = 1 ] || { cat "$T/nb/stat.json" >&2; fail "stat -j: no process suid-echo"; }
jq -e '.processes[] | select(.comm == "suid-echo") | .left_after_ns > 0 and .left_after_ns <= $d' \
	--argjson d "$(jq .duration_ns "$T/nb/stat.json")" "$T/nb/stat.json" >/dev/null ||
	{ cat "$T/nb/stat.json" >&2; fail "stat -j: left_after_ns is not within the run"; }

# ------------------------------------------------------------ check's fix
cp -p "$IPCPERF" "$T/bin/ipcperf-nocaps" && chmod 0755 "$T/bin/ipcperf-nocaps" || fail "cp"
run as_nobody "$T/bin/ipcperf-nocaps" check
grep -qF "sudo chgrp GROUP $T/bin/ipcperf-nocaps && sudo chmod 0750 $T/bin/ipcperf-nocaps && sudo setcap cap_perfmon,cap_bpf" "$T/out" ||
	{ show; fail "check: the setcap fix does not give the binary a group and mode 0750"; }
! grep -qE 'or: sudo setcap|CAP_PERFMON: sudo setcap' "$T/out" ||
	{ show; fail "check: a setcap fix without the group"; }
exit 0
