#!/usr/bin/env bash
# ipcperf installed with file capabilities, run by a user without them
# (nobody), as `ipcperf check` and the manual suggest for other users:
#  - setcap cap_perfmon,cap_bpf,cap_dac_read_search+ep: CAP_DAC_READ_SEARCH
#    is for tracefs; the files the user names (-i, -o, --record, --dot,
#    --openmetrics) are opened with the user's own rights, so a mode-0600
#    capture of root's and a root-only directory are refused, in one line,
#    while the user's own files work;
#  - setcap cap_perfmon,cap_bpf with tracefs unreadable: every command says
#    that tracefs denied the read, naming the file and the fix, not
#    kernel.perf_event_paranoid (which CAP_PERFMON lifts).
# Installed setuid root instead, the same. Needs root (setcap, a user to
# switch to); tracefs's mode is restored on exit.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

skip_unless_root "setcap and running as another user"
need_exe "$IPCPERF"
# Not a libtool wrapper: the build links cli/ipcperf with the library's
# archive (Makefile.am), and a binary with file capabilities runs in secure
# mode, where the loader ignores LD_LIBRARY_PATH.
[ "$(head -c 4 "$IPCPERF" | od -An -c | tr -d ' ')" = '177ELF' ] ||
	fail "$IPCPERF is not an ELF binary (a libtool wrapper?): cannot give it capabilities"
for tool in setcap getcap setpriv; do
	command -v "$tool" >/dev/null ||
		fail "$tool is not installed (Debian: apt-get install libcap2-bin util-linux)"
done
getent passwd nobody >/dev/null || fail "no user nobody to run as"
NOBODY_GID=$(id -g nobody) || fail "no group of nobody"

make_tmpdir
TRACEFS=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
TRACEFS_MODE=
restore() {
	[ -n "$TRACEFS_MODE" ] && chmod "$TRACEFS_MODE" "$TRACEFS"
	rm -rf "$T"
}
trap restore EXIT

# $T is root's (0700): nobody may pass through it, nothing more.
chmod 0711 "$T" || fail "chmod $T"
mkdir -m 0755 "$T/bin" && cp "$IPCPERF" "$T/bin/ipcperf" && chmod 0755 "$T/bin/ipcperf" ||
	fail "cannot copy $IPCPERF"
cp -p "$T/bin/ipcperf" "$T/bin/ipcperf-notracefs" || fail "cannot copy $IPCPERF"
BIN=$T/bin/ipcperf
setcap cap_perfmon,cap_bpf,cap_dac_read_search+ep "$BIN" ||
	fail "setcap on $BIN failed (a filesystem without extended attributes?)"
setcap cap_perfmon,cap_bpf+ep "$T/bin/ipcperf-notracefs" || fail "setcap failed"

as_nobody() {
	(cd "$T/bin" && setpriv --reuid=nobody --regid="$NOBODY_GID" --clear-groups "$@")
}

# One line on stderr, naming $1 (a fixed string), and nothing on stdout.
expect_refusal() {
	local what=$1 needle=$2
	expect_status 1 "$what"
	[ ! -s "$T/out" ] || { show; fail "$what: printed something on stdout"; }
	[ "$(grep -c '' "$T/err")" -eq 1 ] || { show; fail "$what: not a one-line message"; }
	grep -qF -- "$needle" "$T/err" || { show; fail "$what: the message does not say '$needle'"; }
}

# ------------------------------------------------------------ the files
# Root's: a real capture (0600) and a world-writable file, in a directory
# only root may enter. The user's: a directory of nobody's own, and a copy of
# the capture it may read.
mkdir -m 0700 "$T/root" || fail "mkdir"
run "$IPCPERF" record -o "$T/root/secret.data" -- /bin/true
expect_status 0 "record as root"
[ "$(stat -c %a "$T/root/secret.data")" = 600 ] || fail "the capture is not mode 0600"
printf 'untouched\n' >"$T/root/w" && chmod 0666 "$T/root/w" || fail "cannot write $T/root/w"
mkdir -m 0755 "$T/pub" && mkdir -m 0755 "$T/nb" && chown nobody "$T/nb" || fail "mkdir"
cp "$T/root/secret.data" "$T/pub/pub.data" && chmod 0644 "$T/pub/pub.data" || fail "cp"

# The capabilities are in force: nobody's ipcperf may open tracepoints...
run as_nobody "$BIN" check
grep -q "^OK .*running as nobody (uid [0-9]*) with CAP_PERFMON" "$T/out" ||
	{ show; fail "the copy with file capabilities runs without CAP_PERFMON (a nosuid mount?)"; }
grep -q '^OK      tracefs mounted at .* and readable' "$T/out" ||
	{ show; fail "CAP_DAC_READ_SEARCH does not read tracefs"; }
# ...and what it may read as nobody works.
run as_nobody "$BIN" report -i "$T/pub/pub.data"
expect_status 0 "report -i of a capture nobody may read"
grep -q '^pid [0-9]* true' "$T/out" || { show; fail "report -i: no process true"; }

# ------------------------------------------------------------ refused
run as_nobody "$BIN" report -i "$T/root/secret.data"
expect_refusal "report -i of root's 0600 capture" "cannot open $T/root/secret.data: Permission denied"
run as_nobody "$BIN" report -i /etc/shadow
expect_refusal "report -i /etc/shadow" "cannot open /etc/shadow: Permission denied"

run as_nobody "$BIN" report -i "$T/pub/pub.data" -o "$T/root/w"
expect_refusal "report -o into a root-only directory" "cannot write the output to $T/root/w: Permission denied"
run as_nobody "$BIN" report -i "$T/pub/pub.data" --view flows --dot "$T/root/w"
expect_refusal "report --dot into a root-only directory" "cannot write the graph to $T/root/w: Permission denied"
run as_nobody "$BIN" report -i "$T/pub/pub.data" --view flows --trace-out "$T/root/w"
expect_refusal "report --trace-out into a root-only directory" "cannot write the timeline to $T/root/w: Permission denied"
run as_nobody "$BIN" stat -o /dev/null --record "$T/root/w" -- /bin/true
expect_refusal "stat --record into a root-only directory" "cannot write the capture to $T/root/w: Permission denied"
run as_nobody "$BIN" record -o "$T/root/w" -- /bin/true
expect_refusal "record -o into a root-only directory" "cannot write the capture to $T/root/w: Permission denied"
[ "$(cat "$T/root/w")" = untouched ] || fail "a refused output still wrote $T/root/w"
[ "$(stat -c '%a %U' "$T/root/w")" = "666 root" ] || fail "a refused output changed $T/root/w"
run as_nobody "$BIN" stat -o /dev/null --openmetrics "$T/root/m.prom" -- /bin/true
expect_refusal "stat --openmetrics into a root-only directory" "cannot write the metrics to $T/root/m.prom: Permission denied"
left=$(ls -A "$T/root" | tr '\n' ' ')
[ "$left" = "secret.data w " ] || fail "files left in $T/root: $left"

# ------------------------------------------------------------ the user's own files
run as_nobody "$BIN" record -o "$T/nb/c.data" -- /bin/true
expect_status 0 "record -o into nobody's directory"
[ "$(stat -c '%a %U' "$T/nb/c.data")" = "600 nobody" ] ||
	fail "record -o: $(stat -c '%a %U' "$T/nb/c.data"), expected 600 nobody"
run as_nobody "$BIN" report -i "$T/nb/c.data" -o "$T/nb/report" --view flows --dot "$T/nb/dot"
expect_status 0 "report of nobody's capture into nobody's directory"
[ "$(stat -c %U "$T/nb/report") $(stat -c %U "$T/nb/dot")" = "nobody nobody" ] ||
	fail "the outputs are not nobody's"
grep -q '^digraph' "$T/nb/dot" || fail "--dot wrote no graph"
run as_nobody "$BIN" stat -o /dev/null --openmetrics "$T/nb/m.prom" -- /bin/true
expect_status 0 "stat --openmetrics into nobody's directory"
[ "$(stat -c %U "$T/nb/m.prom")" = nobody ] || fail "--openmetrics: the file is not nobody's"
grep -q '^# EOF' "$T/nb/m.prom" || fail "--openmetrics: no '# EOF' in the file"

# ------------------------------------------------------------ setuid root
# The same files with the same refusals, by the filesystem ids of the user.
cp -p "$IPCPERF" "$T/bin/ipcperf-suid" && chmod 4755 "$T/bin/ipcperf-suid" || fail "cp, chmod"
run as_nobody "$T/bin/ipcperf-suid" report -i "$T/root/secret.data"
expect_refusal "setuid: report -i of root's 0600 capture" "cannot open $T/root/secret.data: Permission denied"
run as_nobody "$T/bin/ipcperf-suid" report -i "$T/pub/pub.data" -o "$T/root/w"
expect_refusal "setuid: report -o into a root-only directory" "cannot write the output to $T/root/w: Permission denied"
run as_nobody "$T/bin/ipcperf-suid" record -o "$T/nb/s.data" -- /bin/true
expect_status 0 "setuid: record -o into nobody's directory"
[ "$(stat -c '%a %U %G' "$T/nb/s.data")" = "600 nobody $(id -gn nobody)" ] ||
	fail "setuid: record -o: $(stat -c '%a %U %G' "$T/nb/s.data"), expected the user's file"

# ------------------------------------------------------------ tracefs unreadable
# Without CAP_DAC_READ_SEARCH, tracefs of mode 0700 (the kernel's default)
# is root's only: CAP_PERFMON opens the tracepoints but does not read their
# formats. The cause is said, not kernel.perf_event_paranoid.
[ -n "$TRACEFS" ] || fail "tracefs is not mounted"
TRACEFS_MODE=$(stat -c %a "$TRACEFS") || fail "stat $TRACEFS"
chmod 0700 "$TRACEFS" || fail "chmod 0700 $TRACEFS"
for cmd in stat trace; do
	run as_nobody "$T/bin/ipcperf-notracefs" $cmd -- /bin/true
	expect_refusal "$cmd with tracefs unreadable" \
		"reading tracepoint formats: permission denied on $TRACEFS/events/"
	grep -qF "tracefs ($TRACEFS, mode 0700, owner uid 0 gid 0) is not readable by uid $(id -u nobody)" "$T/err" ||
		{ show; fail "$cmd: the message does not say tracefs's mode"; }
	grep -qF "sudo mount -o remount,gid=GROUP,mode=0750 $TRACEFS" "$T/err" ||
		{ show; fail "$cmd: the message does not give the fix"; }
	! grep -q perf_event_paranoid "$T/err" ||
		{ show; fail "$cmd: tracefs denied the read, yet the message blames perf_event_paranoid"; }
done
# check says the same, and keeps cap_dac_read_search to tracefs.
run as_nobody "$T/bin/ipcperf-notracefs" check
grep -q "^PROBLEM tracefs is mounted at $TRACEFS but nobody (uid [0-9]*) may not read it (EACCES on $TRACEFS/events/sched/sched_switch/format) .* fix: sudo mount -o remount,gid=GROUP,mode=0750 $TRACEFS, with the user in GROUP" "$T/out" ||
	{ show; fail "check: no tracefs PROBLEM with its fix"; }
! grep -q "^PROBLEM kernel.perf_event_paranoid" "$T/out" ||
	{ show; fail "check blames perf_event_paranoid, though the binary has CAP_PERFMON"; }
exit 0
