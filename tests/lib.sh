# Helpers for the tests/*.sh scripts: source it, do not run it. POSIX sh.
#
# make check exports top_builddir and top_srcdir; run by hand from an in-tree
# build they default to the directory above this script's caller.

: "${top_srcdir:=$(dirname "$0")/..}"
: "${top_builddir:=$top_srcdir}"

# shellcheck disable=SC2034 # used by the scripts that source this
IPCPERF=$top_builddir/cli/ipcperf
# shellcheck disable=SC2034
IPCWORK=$top_builddir/tests/ipcwork
# shellcheck disable=SC2034
CONNWORK=$top_builddir/tests/connwork

# fail MESSAGE...: the test failed.
fail() {
	printf 'FAIL: %s: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

# skip MESSAGE...: the test cannot run here (automake's SKIP).
skip() {
	printf 'SKIP: %s: %s\n' "${0##*/}" "$*" >&2
	exit 77
}

# skip_unless_root WHAT: skip what follows unless root; under CI=true a skip
# would hide a check that never ran, so it is a failure there.
skip_unless_root() {
	[ "$(id -u)" -eq 0 ] && return 0
	[ "${CI:-}" = true ] && fail "CI=true but not root: cannot check $*"
	skip "needs root: $*"
}

# wait_file PATH: PATH exists within 20 s, or fail (a workload writes it when ready).
wait_file() {
	for _ in $(seq 400); do
		[ -e "$1" ] && return 0
		sleep 0.05
	done
	fail "$1 never came"
}

# wait_live ERR: an ipcperf started in the background says in its stderr
# file ERR that it is live (attached) within 20 s, or fail.
wait_live() {
	for _ in $(seq 400); do
		grep -qs ': live, ' "$1" && return 0
		sleep 0.05
	done
	fail "ipcperf never said it was live: $(cat "$1")"
}

# need_exe PATH: PATH must be a built executable.
need_exe() {
	[ -x "$1" ] || fail "$1 is not built (run make first)"
}

# make_tmpdir: a scratch directory in $T, removed on exit.
make_tmpdir() {
	T=$(mktemp -d "${TMPDIR:-/tmp}/ipcperf-test.XXXXXX") || fail "mktemp failed"
	trap 'rm -rf "$T"' EXIT
}

# run CMD ARGS...: run CMD with its stdout in $T/out and stderr in $T/err,
# its exit status in $status. Needs make_tmpdir.
run() {
	status=0
	"$@" >"$T/out" 2>"$T/err" || status=$?
}

# show: what the last run printed, for a failure message.
show() {
	printf '%s\n' '--- stdout:' >&2
	head -n 40 "$T/out" >&2
	printf '%s\n' '--- stderr:' >&2
	head -n 40 "$T/err" >&2
}

# expect_status N WHAT: the last run exited N.
expect_status() {
	[ "$status" -eq "$1" ] && return 0
	show
	fail "$2: exit status $status, expected $1"
}

# run_alone [PATTERN]: wait, up to 10 minutes, until the test harness runs no
# other test beside this one (test-driver processes but our parent), those
# whose command line matches PATTERN (grep -E) aside: for a test whose
# figures another test's load would move (a peak of memory, a capture at a
# million calls a second), or whose load would move theirs. Run alone, or
# by hand, there is nothing to wait for.
run_alone() {
	local others i
	for i in $(seq 6000); do
		# the drivers themselves ("SHELL .../build-aux/test-driver --test-name
		# T ..."), not make's recipe shells that start them
		others=$(pgrep -af 'build-aux/test-driver' |
			awk -v me="$PPID" '$1 != me && $3 ~ /build-aux\/test-driver$/' |
			{ if [ -n "${1:-}" ]; then grep -Ev -- "$1"; else cat; fi; })
		[ -z "$others" ] && return 0
		sleep 0.1
	done
}

# not_here WHAT: what a test needs (the kernel's fd identity, a tool) is not
# here: a skip, but a failure under CI=true on a build with BPF.
not_here() {
	[ "${CI:-}" = true ] && [ "${IPCPERF_BUILT_BPF:-}" = yes ] &&
		fail "CI=true on a build with BPF, but $*"
	skip "$*"
}

# need_bpf_fdid: ipcperf names fds from the kernel (BPF) on this machine, as
# `ipcperf list` says, or not_here. Needs make_tmpdir.
need_bpf_fdid() {
	run timeout 60 "$IPCPERF" list
	expect_status 0 "ipcperf list"
	case $(tail -n 1 "$T/out") in
	"# fd identity: bpf"*) ;;
	*) not_here "ipcperf list ends with '$(tail -n 1 "$T/out")', not '# fd identity: bpf'" ;;
	esac
}

# bpf_setup WORKLOAD [TOOL...]: ipcperf and WORKLOAD are built, or fail; we
# are root, each TOOL is installed and ipcperf names fds from the kernel
# here (need_bpf_fdid), or not_here. Makes $T.
bpf_setup() {
	local t
	need_exe "$IPCPERF"
	need_exe "$1"
	shift
	[ "$(id -u)" -eq 0 ] || not_here "not root: the BPF fd identity needs root"
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || not_here "$t is not installed"
	done
	make_tmpdir
	need_bpf_fdid
}

# jqv FILE EXPR: the value of EXPR in FILE, compact; nothing where jq fails.
jqv() {
	jq -c "$2" "$1" 2>/dev/null
}

# need_tools TOOL...: each TOOL is installed, or fail.
need_tools() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null || fail "$t is not installed (scripts/install-deps installs it)"
	done
}

# live_setup WHY [TOOL...]: root (skip_unless_root WHY), ipcperf built and
# each TOOL installed, or fail; makes $T. For a test that traces live
# processes; its workloads' need_exe come first.
live_setup() {
	skip_unless_root "$1"
	shift
	need_exe "$IPCPERF"
	need_tools "$@"
	make_tmpdir
}

# servework_up: tests/servework's server (built: need_exe first) listens
# on $SOCK in $T, its pid in SP, ended at exit with $T; or fail.
servework_up() {
	SOCK=$T/serve.sock
	"$SERVEWORK" server "$SOCK" >"$T/server.out" 2>"$T/server.err" &
	SP=$!
	trap 'kill "$SP" 2>/dev/null; rm -rf "$T"' EXIT
	for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.05; done
	[ -S "$SOCK" ] || fail "the server did not listen on $SOCK: $(cat "$T/server.err")"
}

# need_perf: perf (linux-perf) is installed; a skip without it, but a
# failure under CI=true.
need_perf() {
	command -v perf >/dev/null 2>&1 && return 0
	[ "${CI:-}" = true ] && fail "CI=true but perf (linux-perf) is not installed"
	skip "perf (linux-perf) is not installed"
}

# asan_setup: for a test of memory peaks, $asan says whether ipcperf is built
# with AddressSanitizer, whose quarantine of freed memory (256 MB) is turned
# off: it would be the sanitizer's growth, not ipcperf's.
asan_setup() {
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0
	asan=false
	nm "$IPCPERF" 2>/dev/null | grep -q ' __asan_init' && asan=true
}

# layer_edges MIN AGAINST: the verdict of a test of layers, whose script
# wrote in $T/out "edges N" (the calls between files) and a line each for
# the calls that break the layers: more than MIN calls (fewer: nm misread
# the objects), and none against AGAINST, or fail. Sets $edges.
layer_edges() {
	edges=$(sed -n 's/^edges //p' "$T/out")
	[ "${edges:-0}" -gt "$1" ] || fail "only ${edges:-0} calls between the files: nm misread the objects"
	if grep -v '^edges ' "$T/out" >"$T/bad"; then
		cat "$T/bad" >&2
		fail "$(wc -l <"$T/bad") call(s) against $2"
	fi
}

# info FILE KEY: the value a workload wrote for KEY in FILE (its "KEY VALUE" lines).
info() {
	awk -v k="$2" '$1 == k { print $2 }' "$1"
}

# filled FILE: FILE is not empty within 10 s (polled), or return 1.
filled() {
	for _ in $(seq 200); do
		[ -s "$1" ] && return 0
		sleep 0.05
	done
	return 1
}
