#!/usr/bin/env bash
# The outputs the README shows are what ipcperf prints: scripts/readme-examples
# runs their commands with this build and compares, numbers, pids and
# verdicts masked (a README behind the code's format fails here).
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

need_exe "$IPCPERF"
need_exe "$IPCWORK"
skip_unless_root "the README's example commands"
builddir=$(cd "$top_builddir" && pwd)
"$top_srcdir/scripts/readme-examples" --check "$builddir" || fail "the README's examples are behind"
