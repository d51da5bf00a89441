#!/bin/sh
# The fd-identity BPF prototype on this kernel (lib/bpf/README.md):
#  - facts: the kernel behaviours the design rests on;
#  - demo, CPU scope and task scope, fds followed into short-lived children
#    in the kernel: every fd the workload made is described exactly
#    (0 unknown, 0 wrong, 0 extra), each record in its ring just before its
#    call's sys_exit sample;
#  - load: one BPF object per job, each loaded only when its job is asked
#    for, with exactly its programs: fdid (exit_fd, on_fork, on_exit)
#    always, sched (4 programs) with --sched, calls (call_enter, call_exit,
#    call_exec) with --pair.
# Needs root (CAP_BPF, CAP_PERFMON): skips (77) otherwise, fails under CI=true.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

PROTO=$top_builddir/tests/bpf-proto
need_exe "$PROTO"
skip_unless_root "loading BPF programs"
make_tmpdir

run "$PROTO" facts
[ "$status" -eq 77 ] && { [ "${CI:-}" = true ] && { show; fail "BPF cannot be loaded under CI"; }; skip "BPF cannot be loaded here"; }
[ "$status" -eq 0 ] || { show; fail "bpf-proto facts: a kernel behaviour the design needs is not there"; }
grep -q '^FAIL' "$T/out" && { show; fail "bpf-proto facts printed a FAIL"; }

for scope in cpu task; do
	for extra in "" --io; do
		run "$PROTO" demo --scope "$scope" --rounds 3 -q $extra
		[ "$status" -eq 0 ] || { show; fail "demo --scope $scope $extra: exit $status"; }
		grep -q ' 0 unknown, 0 wrong, 0 extra$' "$T/out" ||
			{ show; fail "demo --scope $scope $extra: not every fd described exactly"; }
	done
done

# load_objects ARGS -- EXPECTED: the "object NAME N programs" lines of bpf-proto load ARGS
load_objects() {
	args=
	while [ "$1" != -- ]; do args="$args $1"; shift; done
	shift
	# shellcheck disable=SC2086
	run "$PROTO" load $args
	[ "$status" -eq 0 ] || { show; fail "load$args: exit $status"; }
	got=$(sed -n 's/^object \([a-z]*\) *\([0-9]*\) programs, load .* ms$/\1 \2/p' "$T/out" | tr '\n' ' ')
	[ "$got" = "$*" ] || { show; fail "load$args: objects '$got', expected '$*'"; }
}
load_objects -- "fdid 4 "
load_objects --pair -- "fdid 4 calls 3 "
load_objects --pair --sched -- "fdid 4 sched 4 calls 3 "
load_objects --pair --sched --all -- "fdid 2 sched 4 calls 3 "
progs=$(sed -n 's/^load \([a-z_]*\) .* insns, .*/\1/p' "$T/out" | tr '\n' ' ')
[ "$progs" = "exit_gate exit_fd sched_count sched_woken sched_born sched_exec_start call_enter call_exit call_exec " ] ||
	{ show; fail "load --pair --sched --all: programs '$progs'"; }
exit 0
