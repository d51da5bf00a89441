#!/usr/bin/env bash
# Every file ipcperf writes, and every write that fails (issue #11, items 3, 4):
#  - a symbolic link at the path of an output (trace, stat, flows and report
#    -o; stat --record; record -o; flows and report --dot and --trace-out) is
#    refused: exit 1, one line on stderr naming the file and saying it is a
#    symbolic link, nothing on stdout; the link's target, a file of another
#    user's (mode 0644), keeps its content, mode and owner; the target of a
#    dangling link is not created;
#  - what still works: a symlink in a directory of the path, "-o -",
#    "-o /dev/stdout" and "-o /dev/fd/N" (the descriptors ipcperf was given),
#    an existing file (replaced); a run that never starts removes the files
#    flows made for --dot and --trace-out, but not a device given there;
#  - a write that fails, on every output (-o /dev/full, standard output
#    redirected to /dev/full, --dot, --trace-out, the capture of record -o and
#    stat --record, files on a tmpfs with no space left, or little left for a
#    capture that fills it mid-run): exit 1 and
#    "ipcperf: cannot write WHAT to FILE: No space left on device"; record
#    then does not say "wrote FILE"; under -- CMD, a command that failed keeps
#    its own status.
# Every ipcperf run is bounded by timeout(1): a hang fails the test instead of
# stalling make check.
# Needs root (tracepoints; a tmpfs mounted in a mount namespace of its own);
# skips (77) otherwise, fails under CI=true.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

skip_unless_root "output files and write errors"
need_exe "$IPCPERF"
need_exe "$IPCWORK"
for tool in timeout unshare; do
	command -v $tool >/dev/null 2>&1 || fail "$tool (coreutils, util-linux) is not installed"
done
make_tmpdir

# The longest any one run may take; ipcperf runs here take a second or two.
TMO=30
# Per task: the records of the targets only, so that the rest of a loaded
# machine cannot overflow the rings (and hold up the end of a run).
TASK=--scope=task

ENOSPC='No space left on device'

# trun [-s FILE] CMD ARGS...: run, with stdout into FILE if given, bounded by TMO seconds.
trun() {
	local o=$T/out

	if [ "$1" = -s ]; then
		o=$2
		shift 2
	fi
	: >"$T/out"
	status=0
	timeout -k 5 "$TMO" "$@" >"$o" 2>"$T/err" || status=$?
	if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
		show
		fail "still running after $TMO s, killed: $*"
	fi
}

# expect_line TEXT WHAT: stderr has the line TEXT (prefixed "ipcperf: ").
expect_line() {
	grep -qxF -- "ipcperf: $1" "$T/err" && return 0
	show
	fail "$2: no line 'ipcperf: $1' on stderr"
}

# ------------------------------------------------------------ a capture for the report cases
trun "$IPCPERF" record -q -o "$T/cap.data" -- "$IPCWORK" pipe
expect_status 0 "record -o FILE -- ipcwork pipe"

# ------------------------------------------------------------ symbolic links
# plant: $T/link, a link that user 65534 made to $T/victim, a file of theirs.
plant() {
	rm -f "$T/link" "$T/victim" "$T/absent"
	printf 'not ipcperf output\n' >"$T/victim"
	chmod 0644 "$T/victim"
	chown 65534:65534 "$T/victim"
	ln -s "$T/victim" "$T/link"
	chown -h 65534:65534 "$T/link"
}
# dangle: $T/link, a link of user 65534 to $T/absent, which does not exist.
dangle() {
	rm -f "$T/link" "$T/victim" "$T/absent"
	ln -s "$T/absent" "$T/link"
	chown -h 65534:65534 "$T/link"
}
# expect_refused WHAT: exit 1, one line on stderr that names the link, stdout empty.
expect_refused() {
	expect_status 1 "$1"
	if [ "$(grep -c '' "$T/err")" -ne 1 ] || ! grep -qF "$T/link" "$T/err" ||
	   ! grep -q 'symbolic link' "$T/err"; then
		show
		fail "$1: expected one line on stderr naming $T/link as a symbolic link"
	fi
	[ -s "$T/out" ] && { show; fail "$1: printed on stdout"; }
	[ -L "$T/link" ] || fail "$1: the link was removed or replaced"
}

L=$T/link
for args in "trace $TASK -o $L -- /bin/true" \
	    "stat $TASK -o $L -- /bin/true" \
	    "flows $TASK -o $L -- /bin/true" \
	    "stat $TASK --record $L -- /bin/true" \
	    "record -o $L -- /bin/true" \
	    "flows $TASK --dot $L -- /bin/true" \
	    "flows $TASK --trace-out $L -- /bin/true" \
	    "report -i $T/cap.data -o $L" \
	    "report -i $T/cap.data --view flows --dot $L" \
	    "report -i $T/cap.data --view flows --trace-out $L"; do
	plant
	# shellcheck disable=SC2086
	trun "$IPCPERF" $args
	expect_refused "ipcperf $args (a link to another's file)"
	[ "$(cat "$T/victim")" = 'not ipcperf output' ] ||
		fail "ipcperf $args: wrote through the link into its target"
	[ "$(stat -c %a:%u:%g "$T/victim")" = 644:65534:65534 ] ||
		fail "ipcperf $args: the link's target is now $(stat -c %a:%u:%g "$T/victim"), not 644:65534:65534"

	dangle
	# shellcheck disable=SC2086
	trun "$IPCPERF" $args
	expect_refused "ipcperf $args (a dangling link)"
	[ -e "$T/absent" ] && fail "ipcperf $args: created the target of a dangling link"
done

# What the rule leaves alone: links before the last component of the path,
# "-" and /dev/stdout (standard output), /dev/fd/N (an fd ipcperf was given:
# written where it is, not reopened), and an existing file, replaced.
mkdir "$T/d"
ln -s "$T/d" "$T/dirlink"
trun "$IPCPERF" stat "$TASK" -q -o "$T/dirlink/stat.txt" -- /bin/true
expect_status 0 "stat -o DIRLINK/FILE"
grep -q '^ipcperf stat: ' "$T/d/stat.txt" || fail "stat -o DIRLINK/FILE: no report in the file"
for o in - /dev/stdout; do
	trun "$IPCPERF" stat "$TASK" -q -o $o -- /bin/true
	expect_status 0 "stat -o $o"
	grep -q '^ipcperf stat: ' "$T/out" || { show; fail "stat -o $o: no report on stdout"; }
done
printf 'kept\n' >"$T/fd3"
trun "$IPCPERF" stat "$TASK" -q -o /dev/fd/3 -- /bin/true 3>>"$T/fd3"
expect_status 0 "stat -o /dev/fd/3"
[ "$(head -n 1 "$T/fd3")" = kept ] || fail "stat -o /dev/fd/3: reopened and truncated the file"
grep -q '^ipcperf stat: ' "$T/fd3" || fail "stat -o /dev/fd/3: no report written to fd 3"
trun "$IPCPERF" stat "$TASK" -q -o /dev/fd/77 -- /bin/true
expect_status 1 "stat -o /dev/fd/77 (not open)"
expect_line "cannot write the output to /dev/fd/77: Bad file descriptor" "stat -o /dev/fd/77"
printf 'old\n' >"$T/old.txt"
trun "$IPCPERF" stat "$TASK" -q -o "$T/old.txt" -- /bin/true
expect_status 0 "stat -o EXISTING"
grep -q '^old$' "$T/old.txt" && fail "stat -o EXISTING: the file was not replaced"

# A run that never starts (no such process): flows removes the files it
# made for --dot and --trace-out, and nothing else (a device stays).
nopid=4000000
while kill -0 "$nopid" 2>/dev/null; do nopid=$((nopid - 1)); done
mknod "$T/null" c 1 3
trun "$IPCPERF" flows "$TASK" --dot "$T/null" --trace-out "$T/never.json" -p "$nopid"
expect_status 1 "flows --dot DEVICE --trace-out FILE -p (no such process)"
[ -c "$T/null" ] || fail "flows -p (no such process): removed the device given to --dot"
[ -e "$T/never.json" ] && fail "flows -p (no such process): left the --trace-out file"

# ------------------------------------------------------------ write errors: /dev/full
# As -o, and as standard output; on a command that succeeds: exit 1.
for cmd in trace stat; do
	trun "$IPCPERF" $cmd "$TASK" -q -o /dev/full -- "$IPCWORK" pipe
	expect_status 1 "$cmd -o /dev/full"
	expect_line "cannot write the output to /dev/full: $ENOSPC" "$cmd -o /dev/full"

	trun -s /dev/full "$IPCPERF" $cmd "$TASK" -q -- "$IPCWORK" pipe
	expect_status 1 "$cmd > /dev/full"
	expect_line "cannot write the output to standard output: $ENOSPC" "$cmd > /dev/full"
done
# A command that failed keeps its status, and the output's loss is still said.
trun "$IPCPERF" trace "$TASK" -q -o /dev/full -- "$IPCWORK" pipe --exit 3
expect_status 3 "trace -o /dev/full -- ipcwork pipe --exit 3"
expect_line "cannot write the output to /dev/full: $ENOSPC" "trace -o /dev/full -- (exit 3)"

# The capture: record says that it could not write it, not that it did.
trun "$IPCPERF" record -o /dev/full -- "$IPCWORK" pipe
expect_status 1 "record -o /dev/full"
expect_line "cannot write the capture to /dev/full: $ENOSPC" "record -o /dev/full"
grep -q 'wrote' "$T/err" && { show; fail "record -o /dev/full: says it wrote the capture"; }
trun "$IPCPERF" record -o /dev/full -- "$IPCWORK" pipe --exit 3
expect_status 3 "record -o /dev/full -- ipcwork pipe --exit 3"
grep -q 'wrote' "$T/err" && { show; fail "record -o /dev/full -- (exit 3): says it wrote the capture"; }
# record writes nothing on standard output: a full one is no error.
trun -s /dev/full "$IPCPERF" record -o "$T/r.data" -- "$IPCWORK" pipe
expect_status 0 "record -o FILE > /dev/full"
grep -qE "^ipcperf: wrote $T/r.data: [1-9][0-9]* records, " "$T/err" ||
	{ show; fail "record -o FILE > /dev/full: no 'wrote FILE: N records' line"; }
trun "$IPCPERF" stat "$TASK" -q --record /dev/full -o "$T/stat.txt" -- "$IPCWORK" pipe
expect_status 1 "stat --record /dev/full"
expect_line "cannot write the capture to /dev/full: $ENOSPC" "stat --record /dev/full"
grep -q '^ipcperf stat: ' "$T/stat.txt" || fail "stat --record /dev/full: the live report is missing"

# flows: each of its three outputs says so, in one run; and report's.
trun "$IPCPERF" flows "$TASK" -q -o /dev/full --dot /dev/full --trace-out /dev/full -- "$IPCWORK" pipe
expect_status 1 "flows -o /dev/full --dot /dev/full --trace-out /dev/full"
for what in output graph timeline; do
	expect_line "cannot write the $what to /dev/full: $ENOSPC" "flows -o, --dot, --trace-out /dev/full"
done
trun -s /dev/full "$IPCPERF" flows "$TASK" -q -- "$IPCWORK" pipe
expect_status 1 "flows > /dev/full"
expect_line "cannot write the output to standard output: $ENOSPC" "flows > /dev/full"
trun "$IPCPERF" report -i "$T/cap.data" -o /dev/full
expect_status 1 "report -o /dev/full"
expect_line "cannot write the output to /dev/full: $ENOSPC" "report -o /dev/full"
trun -s /dev/full "$IPCPERF" report -i "$T/cap.data" --view flows
expect_status 1 "report --view flows > /dev/full"
expect_line "cannot write the output to standard output: $ENOSPC" "report --view flows > /dev/full"
trun -s /dev/full "$IPCPERF" --help
expect_status 1 "ipcperf --help > /dev/full"
expect_line "cannot write to standard output: $ENOSPC" "ipcperf --help > /dev/full"

# ------------------------------------------------------------ write errors: a full tmpfs
# FULL FREE_KIB CMD...: CMD with $T/full a 256 KiB tmpfs with FREE_KIB left,
# mounted in a mount namespace of CMD's own, so that it goes away with CMD
# however that ends (exit 99: the tmpfs could not be made).
mkdir "$T/full"
# shellcheck disable=SC2016 # the inner sh expands them
FULL=(unshare --mount --propagation private -- sh -c '
	mount -t tmpfs -o size=256k,mode=0700 ipcperf-test "$1" || exit 99
	head -c $(((256 - $2) * 1024)) /dev/zero >"$1/fill" || exit 99
	shift 2
	exec "$@"' sh "$T/full")
for cmd in trace stat; do
	trun "${FULL[@]}" 0 "$IPCPERF" $cmd "$TASK" -q -o "$T/full/$cmd.txt" -- "$IPCWORK" pipe
	[ "$status" -ne 99 ] || { show; fail "cannot mount a tmpfs on $T/full"; }
	expect_status 1 "$cmd -o FULL-TMPFS/FILE"
	expect_line "cannot write the output to $T/full/$cmd.txt: $ENOSPC" "$cmd -o FULL-TMPFS/FILE"
done
trun "${FULL[@]}" 0 "$IPCPERF" flows "$TASK" -q -o "$T/full/flows.txt" --dot "$T/full/flows.dot" \
	--trace-out "$T/full/flows.json" -- "$IPCWORK" pipe
expect_status 1 "flows -o, --dot, --trace-out FULL-TMPFS/FILE"
expect_line "cannot write the output to $T/full/flows.txt: $ENOSPC" "flows -o FULL-TMPFS/FILE"
expect_line "cannot write the graph to $T/full/flows.dot: $ENOSPC" "flows --dot FULL-TMPFS/FILE"
expect_line "cannot write the timeline to $T/full/flows.json: $ENOSPC" \
	"flows --trace-out FULL-TMPFS/FILE"
# 16 KiB left: the capture's header fits, the records (over 60 KiB) do not.
trun "${FULL[@]}" 16 "$IPCPERF" record -o "$T/full/r.data" -- "$IPCWORK" pipe
expect_status 1 "record -o TMPFS/FILE (16 KiB left)"
expect_line "cannot write the capture to $T/full/r.data: $ENOSPC" "record -o TMPFS/FILE (16 KiB left)"
grep -q 'wrote' "$T/err" && { show; fail "record -o TMPFS/FILE (16 KiB left): says it wrote the capture"; }
[ "$(grep -c 'cannot write' "$T/err")" -eq 1 ] ||
	{ show; fail "record -o TMPFS/FILE (16 KiB left): the failure is said more than once"; }

exit 0
