# Sourced, after tests/lib.sh, by the tests of ipcperf paths that run
# tests/pathwork (clients, a proxy, a backend; it prints the medians its
# processes measured of themselves).

PATHWORK=$top_builddir/tests/pathwork

# pathwork_setup WHY: root, ipcperf, pathwork and jq are here; $T is made.
pathwork_setup() {
	skip_unless_root "$1"
	need_exe "$IPCPERF"
	need_exe "$PATHWORK"
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
# ROLE's process measured, as pathwork printed it in $TRUTH ($T/out unless set).
truth() {
	local v
	v=$(awk -v r="$1" -v w="${2:-self}" '$1 == r && $2 == w { print $4 }' "${TRUTH:-$T/out}")
	[ -n "$v" ] || { show; fail "$MODE: pathwork printed no ${2:-self} median for the $1"; }
	echo "$v"
}
