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

# hops_are FILE WANT: the first shape's hops in the paths JSON FILE, a
# [comm, parent, kind] each (jq -c), are WANT, or fail (prefixed with
# "$MODE: " where MODE is set).
hops_are() {
	local got
	got=$(jq -c '[.shapes[0].hops[] | [.comm, .parent, .kind]]' "$1")
	[ "$got" = "$2" ] || fail "${MODE:-}${MODE:+: }hops $got"
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

# otlp_schema: node and npm's OpenTelemetry OTLP schema (for
# tests/otlp-check.js) are here, where install-deps put the schema, else
# installed now into the build tree; OTLP_NODE_MODULES says where.
otlp_schema() {
	local schema=@opentelemetry/otlp-transformer/build/src/generated/root.js
	command -v node >/dev/null || not_here "node is missing (scripts/install-deps installs it)"
	OTLP_NODE_MODULES=$top_srcdir/tests/npm/node_modules
	if [ ! -f "$OTLP_NODE_MODULES/$schema" ]; then
		OTLP_NODE_MODULES=$top_builddir/tests/npm/node_modules
		if [ ! -f "$OTLP_NODE_MODULES/$schema" ]; then
			mkdir -p "$top_builddir/tests/npm" &&
				cp "$top_srcdir/tests/npm/package.json" "$top_srcdir/tests/npm/package-lock.json" \
					"$top_builddir/tests/npm/" &&
				chmod u+w "$top_builddir"/tests/npm/package*.json &&
				(cd "$top_builddir/tests/npm" && npm ci --no-audit --no-fund >"$T/npm.log" 2>&1) ||
				{ cat "$T/npm.log" >&2; not_here "npm could not install the OTLP schema"; }
		fi
	fi
	export OTLP_NODE_MODULES
}
