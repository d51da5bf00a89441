#!/usr/bin/env bash
# A command run under ipcperf gets exactly the environment ipcperf was given
# (the ipcperf of the build tree is no wrapper script that sets
# LD_LIBRARY_PATH), so the loader makes the same calls as without a tracer:
# ipcperf stat --syscalls counts the same openat and newfstatat calls as
# strace -f -c.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

ENVWORK=$top_builddir/tests/envwork
need_exe "$IPCPERF"
need_exe "$ENVWORK"
make_tmpdir

# Not a script: a script would run the traced command through an interpreter with its own environment.
head -c 2 "$IPCPERF" | grep -q '#!' && fail "$IPCPERF is a script, not the program"

skip_unless_root "ipcperf stat on a command"
command -v strace >/dev/null || fail "strace is not installed (scripts/install-deps installs it)"
command -v jq >/dev/null || fail "jq is not installed (scripts/install-deps installs it)"

# The same environment, in the same order; nothing added, nothing taken away.
clean_env=(env -i "PATH=/usr/bin:/bin" "HOME=$T" "IPCPERF_TEST_VAR=a b=c")
# The sanitizer build's options (its suppressions) go to both runs alike.
for v in ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS; do
	[ -n "${!v:-}" ] && clean_env+=("$v=${!v}")
done
"${clean_env[@]}" "$ENVWORK" >"$T/direct" || fail "envwork failed on its own"
run "${clean_env[@]}" "$IPCPERF" stat -q -o "$T/stat.txt" -- "$ENVWORK"
expect_status 0 "ipcperf stat -- envwork"
cmp -s "$T/direct" "$T/out" || { diff "$T/direct" "$T/out" >&2; fail "the command's environment under ipcperf differs (diff above: direct, then under ipcperf)"; }

# Its openat and newfstatat calls, as strace -f -c counts them, and as ipcperf does.
strace -f -c -o "$T/strace" "$ENVWORK" >/dev/null || fail "strace -f -c envwork failed"
run "$IPCPERF" stat --syscalls --json -o "$T/stat.json" -- "$ENVWORK"
expect_status 0 "ipcperf stat --syscalls --json -- envwork"
for name in openat newfstatat; do
	want=$(awk -v n="$name" '$NF == n { print $4 }' "$T/strace")
	got=$(jq --arg n "$name" '[.processes[].syscalls[] | select(.name == $n) | .calls] | add // 0' "$T/stat.json")
	[ -n "$want" ] || { cat "$T/strace" >&2; fail "strace counted no $name calls"; }
	[ "$got" = "$want" ] || { cat "$T/strace" >&2; fail "$name: ipcperf counted $got calls, strace -f -c $want"; }
done
echo "test-env: the environment is the one given; openat and newfstatat as strace counts them"
