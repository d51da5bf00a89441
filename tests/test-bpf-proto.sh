#!/bin/sh
# The fd-identity BPF prototype on this kernel (lib/bpf/README.md):
#  - facts: the kernel behaviours the design rests on;
#  - demo, CPU scope and task scope, fds followed into short-lived children
#    in the kernel: every fd the workload made is described exactly
#    (0 unknown, 0 wrong, 0 extra), each record in its ring just before its
#    call's sys_exit sample.
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
exit 0
