# Sourced, after tests/lib.sh, by the tests of ipcperf paths on workloads
# that print the medians their processes measured of themselves (the
# truth): tests/pathwork (clients, a proxy, a backend) and tests/pipework
# (the stages of a pipeline).

PATHWORK=$top_builddir/tests/pathwork
PIPEWORK=$top_builddir/tests/pipework

# paths_setup WHY [WORKLOAD]: root, ipcperf, the workload (pathwork unless
# named) and jq are here; $T is made.
paths_setup() {
	skip_unless_root "$1"
	need_exe "$IPCPERF"
	need_exe "${2:-$PATHWORK}"
	command -v jq >/dev/null || fail "jq is missing (scripts/install-deps installs it)"
	make_tmpdir
}

# near WHAT GOT WANT: GOT (ns) within 10% of WANT, or 0.2 ms.
near() {
	local diff=$(($2 - $3)) tol=$(($3 / 10))
	[ "$tol" -ge 200000 ] || tol=200000
	[ "${diff#-}" -le "$tol" ] || { show; fail "$1: $2 ns, want $3 ns (within $tol ns)"; }
}

# truth ROLE [WHAT]: the median of its own time (or of WHAT: cpu) that the
# ROLE's process measured, as the workload printed it in $TRUTH ($T/out
# unless set).
truth() {
	local v
	v=$(awk -v r="$1" -v w="${2:-self}" '$1 == r && $2 == w { print $4 }' "${TRUTH:-$T/out}")
	[ -n "$v" ] || { show; fail "${MODE:-}${MODE:+: }the workload printed no ${2:-self} median for $1"; }
	echo "$v"
}
