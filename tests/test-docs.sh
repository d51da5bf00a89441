#!/usr/bin/env bash
# doc/json.md documents every member ipcperf's JSON has: every key of real
# stat --json (with --flows, --syscalls, --per-thread, --total, -I) and flows
# --json (and -I) documents is named in it; and no help text points at a document
# the project does not have.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

need_exe "$IPCPERF"
need_exe "$IPCWORK"
make_tmpdir
doc=$top_srcdir/doc/json.md
[ -f "$doc" ] || fail "no $doc"

for cmd in stat trace flows top record report list check; do
	"$IPCPERF" "$cmd" --help >"$T/help" 2>&1
	grep -q "DESIGN" "$T/help" && fail "ipcperf $cmd --help names DESIGN.md, which is not in the project"
	for d in $(grep -o 'doc/[a-z-]*\.md' "$T/help"); do
		[ -f "$top_srcdir/$d" ] || fail "ipcperf $cmd --help names $d, which does not exist"
	done
done

skip_unless_root "real JSON documents"
command -v jq >/dev/null || fail "jq is not installed (scripts/install-deps installs it)"
run "$IPCPERF" stat --json --flows --syscalls --per-thread -o "$T/a.json" -- "$IPCWORK" pipe --hold 100
expect_status 0 "stat --json --flows --syscalls --per-thread"
run "$IPCPERF" stat --json --syscalls --total -I 50 -o "$T/b.json" -- "$IPCWORK" pipe --hold 100
expect_status 0 "stat --json --syscalls --total -I 50"
run "$IPCPERF" flows --json -o "$T/c.json" -- "$IPCWORK" pipe --hold 100
expect_status 0 "flows --json"
run "$IPCPERF" flows --json -I 50 -o "$T/d.json" -- "$IPCWORK" pipe --hold 100
expect_status 0 "flows --json -I 50"
jq -e '.intervals[0].flows' "$T/d.json" >/dev/null || fail "flows --json -I 50: no intervals"
# Every object key, except the errno names (keys of "errnos") and the counters' names (listed once).
jq -r '[paths(type != "array") | map(select(type == "string"))] | .[] |
	select(.[-2] != "errnos") | .[-1]' "$T/a.json" "$T/b.json" "$T/c.json" "$T/d.json" |
	sort -u >"$T/keys"
[ -s "$T/keys" ] || fail "no keys found in the documents"
missing=
while read -r k; do
	grep -q "\"$k\"\|\`$k\`" "$doc" || missing="$missing $k"
done <"$T/keys"
[ -z "$missing" ] || fail "doc/json.md does not document:$missing"
echo "test-docs: $(wc -l <"$T/keys") JSON keys, all in doc/json.md"
