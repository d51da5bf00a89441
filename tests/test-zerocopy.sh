#!/usr/bin/env bash
# Zero-copy moves and io_uring, end to end. tests/zcwork is the subject (its
# header lists every call and every figure below):
#  - `stat --json -- zcwork moves`: the rows of fds 20..28 exactly (kind,
#    ops, bytes, errors and the zero-copy part of each side): sendfile,
#    splice, tee, vmsplice both ways and copy_file_range count as a read of
#    their source and a write of their destination, a failed move as an
#    error on both; fds 21/22 and 27/28 name one pipe each, fd 20 the file;
#  - `flows --json`: pipe A (filled by sendfile, splice, write and
#    vmsplice, drained by read, splice and vmsplice; tee takes nothing out),
#    pipe B (filled by tee) and the TCP connection (written by sendfile and
#    splice) each matched to the byte, nothing unmatched;
#  - `stat -x ,`: the zero-copy columns of fd 20's and fd 25's rows;
#  - the same two from a capture: `record`, then `report --json` and
#    `report --view flows --json`;
#  - `trace`: sendfile named with both fds' objects, as strace -yy names them;
#  - `stat --json -- zcwork uring 7`: "io_uring_unaccounted": 7 (three
#    io_uring_enter calls submitted 3, 3 and 1), and no write counted on the
#    ring's fd 21 (/dev/null).
# Needs root, a build whose BPF program loads here (the fds live a few
# milliseconds: /proc cannot name them) and jq; skips (77) otherwise, but
# fails under CI=true on a build with BPF (IPCPERF_BUILT_BPF=yes).
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

ZCWORK=$top_builddir/tests/zcwork


bpf_setup "$ZCWORK" jq

# fd kind, then ops bytes errors zero_copy_ops zero_copy_bytes of read, then of write
want_rows='20 file 5 32768 1 5 32768 3 12288 0 0 0
21 pipe 5 8592 0 3 4396 0 0 0 0 0
22 pipe 0 0 0 0 0 4 8492 0 3 8392
23 file 0 0 0 0 0 1 12288 0 1 12288
24 tcp 0 0 0 0 0 0 0 0 0 0
25 tcp 0 0 0 0 0 3 16384 1 3 16384
26 tcp 2 16384 0 0 0 0 0 0 0 0
27 pipe 1 100 0 0 0 0 0 0 0 0
28 pipe 0 0 0 0 0 1 100 0 1 100'
# kind bytes_written bytes unmatched_bytes writes reads, of every flow
want_flows='pipe 100 100 0 1 1
pipe 8492 8492 0 4 4
tcp 16384 16384 0 2 2'

# check_stat FILE WHAT: zcwork's rows in the stat JSON FILE are the truth.
check_stat() {
	local got p
	p='.processes[] | select(.comm == "zcwork")'
	got=$(jq -r "$p"' | .fds[] | select(.fd >= 20 and .fd <= 28) |
		[.fd, .kind, (.read, .write | .ops, .bytes, .errors, .zero_copy_ops,
		 .zero_copy_bytes)] | map(tostring) | join(" ")' "$1" | sort -n) ||
		fail "$2: not the JSON expected"
	[ "$got" = "$want_rows" ] ||
		fail "$2: rows of fds 20..28:"$'\n'"$got"$'\n'"expected:"$'\n'"$want_rows"
	# the two ends of each pipe are one object; fd 20 is the file
	[ "$(jq -r "$p"' | [.fds[] | select(.fd == 21 or .fd == 22) | .object] | unique |
		length' "$1")" = 1 ] || fail "$2: fds 21 and 22 are not one pipe"
	[ "$(jq -r "$p"' | [.fds[] | select(.fd == 27 or .fd == 28) | .object] | unique |
		length' "$1")" = 1 ] || fail "$2: fds 27 and 28 are not one pipe"
	jq -r "$p"' | .fds[] | select(.fd == 20) | .object' "$1" |
		grep -q "^$T/zcwork-f\.[0-9]*\$" || fail "$2: fd 20 does not name the file"
	# the groups carry the moves of their rows: zcwork's reads moved 37164
	# bytes in 8 calls (fds 20, 21), its writes 37164 in 8 (fds 22, 23, 25, 28)
	got=$(jq -r "$p"' | [.groups[] | .read, .write] |
		[(map(.zero_copy_ops) | add), (map(.zero_copy_bytes) | add)] |
		map(tostring) | join(" ")' "$1")
	[ "$got" = "16 74328" ] || fail "$2: the groups' zero-copy sums are $got, not 16 74328"
	[ "$(jq -r '.lost_events' "$1")" = 0 ] || fail "$2: events were lost"
}

# check_flows FILE WHAT: the flows JSON FILE has the three flows, to the byte.
check_flows() {
	local got
	got=$(jq -r '.flows[] | [.kind, .bytes_written, .bytes, .unmatched_bytes, .writes,
		.reads] | map(tostring) | join(" ")' "$1" | sort) || fail "$2: not the JSON expected"
	[ "$got" = "$want_flows" ] ||
		fail "$2: flows:"$'\n'"$got"$'\n'"expected:"$'\n'"$want_flows"
}

run timeout 60 "$IPCPERF" stat --json -o "$T/stat.json" -- "$ZCWORK" moves "$T"
expect_status 0 "stat -- zcwork moves"
check_stat "$T/stat.json" "stat live"

run timeout 60 "$IPCPERF" stat -x , -o "$T/stat.csv" -- "$ZCWORK" moves "$T"
expect_status 0 "stat -x , -- zcwork moves"
# the zero-copy columns come before the last one (again)
got=$(awk -F, '$1 == "fd" && $3 == "zcwork" && ($4 == 20 || $4 == 25) {
	print $4, $7, $8, $9, $10, $(NF - 2), $(NF - 1) }' "$T/stat.csv")
want='20 read 5 32768 1 5 32768
20 write 3 12288 0 0 0
25 read 0 0 0 0 0
25 write 3 16384 1 3 16384'
[ "$got" = "$want" ] || fail "stat -x: fds 20 and 25:"$'\n'"$got"$'\n'"expected:"$'\n'"$want"

run timeout 60 "$IPCPERF" flows --json -o "$T/flows.json" -- "$ZCWORK" moves "$T"
expect_status 0 "flows -- zcwork moves"
check_flows "$T/flows.json" "flows live"

run timeout 60 "$IPCPERF" record -o "$T/zc.data" -- "$ZCWORK" moves "$T"
expect_status 0 "record -- zcwork moves"
run timeout 60 "$IPCPERF" report -i "$T/zc.data" --json -o "$T/rstat.json"
expect_status 0 "report"
check_stat "$T/rstat.json" "report (stat)"
run timeout 60 "$IPCPERF" report -i "$T/zc.data" --view flows --json -o "$T/rflows.json"
expect_status 0 "report --view flows"
check_flows "$T/rflows.json" "report (flows)"

run timeout 60 "$IPCPERF" trace -o "$T/trace.txt" -- "$ZCWORK" moves "$T"
expect_status 0 "trace -- zcwork moves"
grep -Eq "^([0-9]+ +)?sendfile\(25<TCP:\[127\.0\.0\.1:[0-9]+->127\.0\.0\.1:[0-9]+\]>, 20<$T/zcwork-f\.[0-9]+>, 0x[0-9a-f]+, 12288\) = 12288\$" \
	"$T/trace.txt" || { cat "$T/trace.txt" >&2; fail "trace: sendfile without both fds named"; }

run timeout 60 "$IPCPERF" stat --json -o "$T/uring.json" -- "$ZCWORK" uring 7
[ "$status" -eq 77 ] && not_here "$(cat "$T/err")"
expect_status 0 "stat -- zcwork uring 7"
got=$(jq -r '.processes[] | select(.comm == "zcwork") | [.io_uring_unaccounted,
	([.fds[] | select(.fd == 21) | .write.ops] | add)] | map(tostring) | join(" ")' \
	"$T/uring.json")
[ "$got" = "7 0" ] || fail "uring: io_uring_unaccounted and fd 21's writes are '$got', expected '7 0'"
exit 0
