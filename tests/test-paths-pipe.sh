#!/usr/bin/env bash
# Request paths along a shell pipeline (ipcperf paths), on tests/pipework:
# `src N GAP | stageA X | stageB Y | sink` under sh -c, each started by a
# symbolic link of its name. src writes N records of 64 bytes (a write
# call each), each stage reads one record, spins its ms and writes it on.
#  - every record is one path: "requests" is N exactly, all of one shape,
#    "src -> stageA -> stageB -> sink", the hops chained (each one's parent
#    the one before), on pipes, none left unattributed, no event lost;
#  - the medians of the stages' own time (self_ns) are within 10% (or
#    0.2 ms) of the medians they measured of themselves, and near X and Y;
#    the sink's is 0 (nothing it does after the read marks an end);
#  - with --requests, each record's hops' channel and self times add up to
#    its end-to-end time (src's write start to sink's read end) to the
#    nanosecond; no hop has a response (a pipe is one way).
# The same with the pipeline's stdout and stderr piped to a process that is
# not traced (cat): the stages' last lines go out of sight, and no record
# is lost for it (the sink's last line does not merge them, the stages'
# lines do not split the last one).
# Then a stage that reads two records before it writes them as one (it
# merges) and one that writes each record as two halves (it splits): their
# records are counted with that reason, and no path is made of them.
# Needs root and jq.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/paths-lib.sh"
paths_setup "tracing the stages of a pipeline" "$PIPEWORK"

N=40
X=2
Y=1
for name in src stageA stageB sink merger splitter; do
	ln -s "$(cd "$(dirname "$PIPEWORK")" && pwd)/pipework" "$T/$name" || fail "symlink $name"
done

TRUTH=$T/err

J=$T/paths.json
run timeout 120 "$IPCPERF" paths --json --requests -q -o "$J" -- \
	sh -c "$T/src $N 4 | $T/stageA $X | $T/stageB $Y | $T/sink"
expect_status 0 "ipcperf paths on a pipeline"
grep -qx "records $N" "$T/out" || { show; fail "the sink did not read $N records"; }
[ "$(jq .lost_events "$J")" = 0 ] || fail "events were lost: $(jq .lost_events "$J")"
[ "$(jq .requests "$J")" = $N ] || fail "$(jq .requests "$J") paths, want $N"
[ "$(jq '.unattributed | add' "$J")" = 0 ] || fail "not attributed: $(jq -c .unattributed "$J")"
[ "$(jq -c '[.shapes[].shape]' "$J")" = '["src -> stageA -> stageB -> sink"]' ] ||
	fail "shapes $(jq -c '[.shapes[].shape]' "$J")"
hops_are "$J" '[["stageA",-1,"pipe"],["stageB",0,"pipe"],["sink",1,"pipe"]]'
near "stageA's self p50" "$(jq '.shapes[0].hops[0].self_ns.p50' "$J")" "$(truth stageA)"
near "stageB's self p50" "$(jq '.shapes[0].hops[1].self_ns.p50' "$J")" "$(truth stageB)"
near "stageA's self p50 against X" "$(jq '.shapes[0].hops[0].self_ns.p50' "$J")" $((X * 1000000))
near "stageB's self p50 against Y" "$(jq '.shapes[0].hops[1].self_ns.p50' "$J")" $((Y * 1000000))
[ "$(jq '.shapes[0].hops[2].self_ns.max' "$J")" = 0 ] || fail "the sink has an own time"
[ "$(jq '.request_list | length' "$J")" = $N ] || fail "$(jq '.request_list | length' "$J") paths listed"
bad=$(jq '[.request_list[] | select(([.hops[] | .request_ns + .self_ns + .response_ns] | add)
	!= .end_to_end_ns)] | length' "$J")
[ "$bad" = 0 ] || fail "$bad paths whose hops do not add up to their end-to-end time"
bad=$(jq '[.request_list[].hops[] | select(.response_ns != 0 or .response_bytes != 0 or
	.request_bytes != 64 or .pid <= 0 or .fd != 0 or .caller_fd != 1)] | length' "$J")
[ "$bad" = 0 ] || fail "$bad hops with a response, or not one 64-byte record from fd 1 to fd 0"
bad=$(jq '[.request_list[].hops[] | select(.cpu_ns == null or
	.cpu_ns + .runq_ns + .blocked_ns != .self_ns)] | length' "$J")
[ "$bad" = 0 ] || fail "$bad hops whose cpu + runq + blocked is not their self time"
echo "test-paths-pipe: $N paths, stageA self p50 $(jq '.shapes[0].hops[0].self_ns.p50' "$J") ns" \
	"(truth $(truth stageA)), stageB $(jq '.shapes[0].hops[1].self_ns.p50' "$J") ns" \
	"(truth $(truth stageB)), end to end p50 $(jq '.shapes[0].end_to_end_ns.p50' "$J") ns"

{ timeout 120 "$IPCPERF" paths --json -q -o "$J" -- \
	sh -c "$T/src $N 2 | $T/stageA 1 | $T/sink" 2>&1; echo "status $?"; } | cat >"$T/out"
grep -qx "status 0" "$T/out" || { cat "$T/out" >&2; fail "ipcperf paths with its output piped"; }
[ "$(jq .requests "$J")" = $N ] && [ "$(jq '.unattributed | add' "$J")" = 0 ] ||
	fail "output piped: $(jq .requests "$J") paths, not attributed $(jq -c .unattributed "$J")"
[ "$(jq -c '[.shapes[].shape]' "$J")" = '["src -> stageA -> sink"]' ] ||
	fail "output piped: shapes $(jq -c '[.shapes[].shape]' "$J")"
echo "test-paths-pipe: output piped: $N paths"

# odd ROLE UNATTRIBUTED: pipework's merging or splitting stage between src and sink.
odd() {
	run timeout 120 "$IPCPERF" paths --json -q -o "$J" -- \
		sh -c "$T/src $N 2 | $T/$1 | $T/sink"
	expect_status 0 "ipcperf paths on a pipeline through $1"
	[ "$(jq .lost_events "$J")" = 0 ] || fail "$1: events were lost"
	[ "$(jq .requests "$J")" = 0 ] || fail "$1: $(jq .requests "$J") paths, want none"
	[ "$(jq -c .unattributed "$J")" = "$2" ] || fail "$1: not attributed: $(jq -c .unattributed "$J")"
	echo "test-paths-pipe: through $1: $(jq -c .unattributed "$J")"
}
odd merger '{"no_response":0,"untraced_hop":0,"unread":0,"no_cause":0,"lost":0,"late":0,"pipelined":0,"merged":'$N',"split":0,"untraced_client":0}'
odd splitter '{"no_response":0,"untraced_hop":0,"unread":0,"no_cause":0,"lost":0,"late":0,"pipelined":0,"merged":0,"split":'$N',"untraced_client":0}'

# The text says why a pipeline through a merging stage has no paths.
run timeout 120 "$IPCPERF" paths -q -o "$T/merger.txt" -- sh -c "$T/src $N 2 | $T/merger | $T/sink"
expect_status 0 "ipcperf paths (text) on a pipeline through merger"
grep -qx "not attributed: $N (merged $N)" "$T/merger.txt" &&
	grep -q '^  (merged, split: a stage of a pipeline passed on what it read joined or cut$' "$T/merger.txt" ||
	{ cat "$T/merger.txt" >&2; fail "through merger, the text: no count of merged records and why"; }
