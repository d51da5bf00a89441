#!/usr/bin/env bash
# ipcperf report on the captures of tests/perfdata-corpus (most made by
# `replay-perfdata --generate`): no root, no kernel, a few seconds.
#  - every bad-* capture: exit 1, nothing on stdout, and on stderr exactly one
#    line that is not a warning, "ipcperf: FILE: offset 0x...: what is wrong";
#  - for the hand-made corruptions of issue #11 below, that line exactly (a
#    sample whose cpu is 0x7f000000 used to end the report with exit 1 and not
#    a word);
#  - every ok-* and partial-* capture: exit 0, and whatever is on stderr says
#    "warning:";
#  - perf record -z's captures (made of the synthetic records): the same
#    report as the uncompressed capture of those records, and for each way
#    their compressed records can be wrong, its one line (a report used to
#    give "(no activity)" and exit 0 for any of them);
#  - records of types no report reads are counted in a warning, never
#    passed over without a word;
#  - the lost-events warning of a report names the ring size the capture was
#    recorded with ("1 page per CPU"), in the stat and the flows view, and no
#    size at all for a capture that does not record it (never the 512 pages
#    of this run's default);
#  - several -i: --view stat and syscalls, --dot: one usage line naming what
#    to do; the flows view (the default then) and the paths view of captures
#    that share no connection: one error line, exit 1.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

CORPUS=$top_srcdir/tests/perfdata-corpus
need_exe "$IPCPERF"
make_tmpdir

# report FILE [ARGS]: ipcperf report -i FILE, bounded in time.
report() {
	local f=$1
	shift
	run timeout 60 "$IPCPERF" report -i "$f" "$@"
}

# A file that is not there: its name and why, no offset (there is no file to
# have one).
report "$T/missing.data"
expect_status 1 "report -i (a missing file)"
[ "$(cat "$T/err")" = "ipcperf: cannot open $T/missing.data: No such file or directory" ] ||
	{ show; fail "report -i of a missing file: not 'cannot open FILE: No such file or directory'"; }

# The corrupt captures: one error line each, with the offset.
n=0
for f in "$CORPUS"/bad-*.data; do
	name=${f##*/}
	report "$f"
	expect_status 1 "report -i $name"
	[ -s "$T/out" ] && { show; fail "$name: a report was printed"; }
	grep -v '^ipcperf: warning: ' "$T/err" >"$T/errors"
	[ "$(grep -c '' "$T/errors")" -eq 1 ] || { show; fail "$name: expected one error line"; }
	line=$(cat "$T/errors")
	rest=${line#"ipcperf: $f: offset 0x"}
	[ "$rest" != "$line" ] && [[ $rest =~ ^[0-9a-f]+:\ [^\ ] ]] ||
		{ show; fail "$name: not 'ipcperf: FILE: offset 0x...: ...': $line"; }
	n=$((n + 1))
done
[ "$n" -ge 25 ] || fail "only $n bad-* captures in $CORPUS"

# The hand-made ones (replay-perfdata --generate), their whole line: the only
# one, as they are made from a capture that reports without a warning (but
# for the partial one, which says it is partial first).
expect_error() {
	local name=$1 lines=$2 want="ipcperf: $CORPUS/$1: $3"

	report "$CORPUS/$name"
	expect_status 1 "report -i $name"
	grep -v '^ipcperf: warning: ' "$T/err" >"$T/errors"
	[ "$(cat "$T/errors")" = "$want" ] || { show; fail "$name: expected '$want'"; }
	[ "$(grep -c '' "$T/err")" -eq "$lines" ] || { show; fail "$name: expected $lines lines"; }
}
expect_error bad-sample-cpu.data 1 \
	"offset 0xfd8: record type 9 (SAMPLE), size 88: cpu 2130706432, but the capture's header says 2 CPUs"
expect_error bad-sample-cpu-nrcpus.data 1 \
	"offset 0xfd8: record type 9 (SAMPLE), size 88: cpu 2, but the capture's header says 2 CPUs"
expect_error bad-lost-cpu.data 1 \
	"offset 0x1e08: record type 2 (LOST), size 56: cpu 2130706432, but the capture's header says 2 CPUs"
expect_error bad-attr-sample-type.data 1 \
	"offset 0xe98: record type 9 (SAMPLE), size 88: cpu 44, but the capture's header says 2 CPUs"
expect_error bad-partial-cpu.data 2 \
	"offset 0xe98: record type 9 (SAMPLE), size 88: cpu 2130706432 is beyond any machine's (at most 32768 CPUs)"
expect_error bad-sample-raw-size.data 1 \
	"offset 0xfd8: record type 9 (SAMPLE), size 88: too short for its raw data"
expect_error bad-record-trailer-short.data 1 \
	"offset 0x1350: record type 1 (MMAP), size 8: too short for its sample id trailer"
expect_error bad-nrcpus-avail.data 1 \
	"offset 0xbc0: nrcpus: 2130706432 CPUs available, more than any machine's (at most 32768)"
expect_error bad-nrcpus-online.data 1 \
	"offset 0xbc4: nrcpus: 3 CPUs online, more than the 2 available"
expect_error bad-hostname-at-0.data 1 \
	"offset 0x0: hostname: string of 1179796816 bytes runs past the section"
expect_error bad-system-name.data 1 \
	"offset 0x42a: tracing data: system name holds byte 0xa: not text"

# perf record -z: the records of ok-synthetic.data, compressed (tests/pd-zsynth.h).
report "$CORPUS/ok-synthetic.data"
sed 1d "$T/out" >"$T/plain"
report "$CORPUS/ok-zstd-synthetic.data"
expect_status 0 "report -i ok-zstd-synthetic.data"
sed 1d "$T/out" >"$T/unpacked"
grep -q '^     11 unknown unknown  *0  *0  .*  10  *3100 ' "$T/unpacked" ||
	{ show; fail "ok-zstd-synthetic.data: not pid 101's 10 writes of 3100 bytes to fd 11"; }
cmp -s "$T/plain" "$T/unpacked" ||
	{ diff "$T/plain" "$T/unpacked"; fail "ok-zstd-synthetic.data: not the report of ok-synthetic.data"; }
expect_error bad-zstd-magic.data 2 \
	"offset 0xe58: record type 81 (COMPRESSED): its zstd data cannot be decompressed: Unknown frame descriptor (corrupt capture)"
expect_error bad-zstd-cut.data 2 \
	"offset 0x11e9: record type 81 (COMPRESSED): the compressed records end 68 bytes into record type 9 (SAMPLE) of 88 bytes (truncated or corrupt compressed data)"
expect_error bad-zstd-twice.data 2 \
	"offset 0xe58: record type 81 (COMPRESSED): the records it holds are corrupt: record type 81 (COMPRESSED) of size 16 at byte 0 of the decompressed stream (compressed twice)"
expect_error bad-zstd-type.data 2 \
	"offset 0xe58: record type 81 (COMPRESSED), but the compressed feature says compression type 2: only zstd (1) is known"
expect_error bad-zstd-bomb.data 2 \
	"offset 0xe58: record type 81 (COMPRESSED) of 119 bytes decompresses to more than 65536 bytes, the size of a ring in its compressed feature (mmap_len): corrupt capture, or a decompression bomb"
report "$CORPUS/partial-zstd-killed.data"
expect_status 0 "report -i partial-zstd-killed.data"
grep -q '^ipcperf: warning: .*: offset 0x[0-9a-f]*: partial capture: the compressed records end 20 bytes into a record (of 72 bytes), which was skipped$' \
	"$T/err" || { show; fail "partial-zstd-killed.data: no warning of the record cut in the stream"; }

# Records no report reads: counted, and said.
report "$CORPUS/ok-unknown-types.data"
expect_status 0 "report -i ok-unknown-types.data"
for w in "3 records of type 30 (unknown) left out: ipcperf does not read them" \
	 "1 record of type 100 (unknown) left out: ipcperf does not read it"; do
	grep -qxF "ipcperf: warning: $CORPUS/ok-unknown-types.data: $w" "$T/err" ||
		{ show; fail "ok-unknown-types.data: no warning '$w'"; }
done

# The sound captures: warnings at most.
n=0
for f in "$CORPUS"/ok-*.data "$CORPUS"/partial-*.data; do
	name=${f##*/}
	report "$f"
	expect_status 0 "report -i $name"
	grep -v '^ipcperf: warning: ' "$T/err" >"$T/errors"
	[ -s "$T/errors" ] && { show; fail "$name: exit 0, but stderr holds more than warnings"; }
	n=$((n + 1))
done
[ "$n" -ge 6 ] || fail "only $n ok-* and partial-* captures in $CORPUS"

# Lost events: the capture's own ring size.
for view in stat flows; do
	report "$CORPUS/ok-ring-1-page.data" --view $view
	expect_status 0 "report --view $view (ok-ring-1-page.data)"
	grep -Eq '^ipcperf: warning: [0-9]+ events lost: .*; record with a larger -m \(this capture: 1 page per CPU\)$' \
		"$T/err" || { show; fail "--view $view: the hint does not give the capture's 1 page"; }
	report "$CORPUS/ok-ring-unknown.data" --view $view
	expect_status 0 "report --view $view (ok-ring-unknown.data)"
	grep -Eq '^ipcperf: warning: [0-9]+ events lost: .*; record with a larger -m$' "$T/err" ||
		{ show; fail "--view $view: a capture without its ring size: no hint, or one with a size"; }
done

# Several -i (the captures of several hosts): the views that cannot join
# them say which can, in one line, before reading anything (usage: 2); the
# flows view reads them all (the captures of one host share no connection
# seen from two: one line, 1).
ok=$CORPUS/ok-ring-1-page.data
for view in stat syscalls; do
	report "$ok" -i "$T/missing.data" --view $view
	expect_status 2 "report --view $view with two -i"
	[ "$(cat "$T/err")" = "ipcperf: the $view view reads one capture: to join the captures of several hosts use --view flows or --view paths" ] ||
		{ show; fail "report --view $view with two -i: not the one line naming the views that join"; }
done
report "$ok" -i "$ok" --dot "$T/g.dot"
expect_status 2 "report --dot with two -i"
[ "$(cat "$T/err")" = "ipcperf: --dot and --trace-out read one capture: give one -i" ] ||
	{ show; fail "report --dot with two -i: not one line saying so"; }
for view in "" "--view flows" "--view paths"; do
	report "$ok" -i "$ok" $view
	expect_status 1 "report ${view:-(no view)} of two captures of one host"
	[ ! -s "$T/out" ] && [ "$(grep -vc 'warning:' "$T/err")" = 1 ] &&
		grep -q "share no TCP connection" "$T/err" ||
		{ show; fail "report ${view:-(no view)} of two captures of one host: not one line"; }
done
exit 0
