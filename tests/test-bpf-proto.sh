#!/bin/sh
# The fd-identity BPF prototype on this kernel (lib/bpf/README.md):
#  - facts: the kernel behaviours the design rests on;
#  - demo, CPU scope and task scope, fds followed into short-lived children
#    in the kernel: every fd the workload made is described exactly
#    (0 unknown, 0 wrong, 0 extra), each record in its ring just before its
#    call's sys_exit sample;
#  - load: of the one BPF object, exactly the programs of the jobs asked
#    for: the fd job's (exit_gate, exit_fd, on_fork, on_exit) always, the
#    calls job's (call_enter, call_exit, call_switch, call_exec) with --pair,
#    and call_flush with --sum too (the calls added up), the sched job's (4)
#    with --sched, the args job's (4) with --args.
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

# load_progs ARGS -- EXPECTED: the programs bpf-proto load ARGS loaded, by name
load_progs() {
	args=
	while [ "$1" != -- ]; do args="$args $1"; shift; done
	shift
	# shellcheck disable=SC2086
	run "$PROTO" load $args
	[ "$status" -eq 0 ] || { show; fail "load$args: exit $status"; }
	got=$(sed -n 's/^load \([a-z_]*\) .* insns, .*/\1/p' "$T/out" | LC_ALL=C sort | tr '\n' ' ')
	[ "$got" = "$* " ] || { show; fail "load$args: programs '$got', expected '$* '"; }
	n=$(sed -n 's/^object: \([0-9]*\) programs, load .* ms$/\1/p' "$T/out")
	[ "$n" = "$#" ] || { show; fail "load$args: the object says $n programs, expected $#"; }
}
fd_progs="exit_fd exit_gate on_exit on_fork"
call_progs="call_enter call_exec call_exit call_switch"
sched_progs="sched_born sched_count sched_exec_start sched_woken"
args_progs="args_enter args_exit args_signal args_switch"
# shellcheck disable=SC2086
{
load_progs -- $fd_progs
load_progs --pair -- $call_progs $fd_progs
load_progs --pair --sched -- $call_progs $fd_progs $sched_progs
load_progs --pair --sum -- call_enter call_exec call_exit call_flush call_switch $fd_progs
load_progs --pair --sched --sum -- call_enter call_exec call_exit call_flush call_switch $fd_progs $sched_progs
load_progs --pair --sched --all -- $call_progs exit_fd exit_gate $sched_progs
load_progs --pair --args -- $args_progs $call_progs $fd_progs
}
exit 0
