#!/usr/bin/env bash
# The shared library exports exactly the symbols its version script lists.
set -euo pipefail
: "${top_builddir:=.}" "${top_srcdir:=.}"
so=$(ls "$top_builddir"/lib/.libs/libipcperf.so.*.*.* 2>/dev/null | head -n 1)
[ -n "$so" ] || { echo "test-symbols: no built libipcperf.so under $top_builddir/lib/.libs" >&2; exit 1; }
exported=$(nm -D --defined-only "$so" | awk '$2 == "T" || $2 == "D" || $2 == "B" || $2 == "R" { print $3 }' | sed 's/@.*//' | sort -u)
mapped=$(sed -n '/global:/,/local:/p' "$top_srcdir/lib/libipcperf.map" | grep -E '^\s+[a-z_0-9]+;' | tr -d ' \t;' | sort -u)
if [ "$exported" != "$mapped" ]; then
    echo "test-symbols: exported symbols differ from lib/libipcperf.map:" >&2
    diff <(echo "$mapped") <(echo "$exported") >&2 || true
    exit 1
fi
# Every public declaration has an exported symbol and vice versa.
declared=$(grep -oE '^IPCPERF_API [^(]*[ *]([a-z_0-9]+)\(' "$top_srcdir/include/ipcperf/ipcperf.h" | grep -oE '[a-z_0-9]+\($' | tr -d '(' | sort -u)
if [ "$declared" != "$mapped" ]; then
    echo "test-symbols: IPCPERF_API declarations differ from lib/libipcperf.map:" >&2
    diff <(echo "$mapped") <(echo "$declared") >&2 || true
    exit 1
fi
echo "test-symbols: $(echo "$exported" | wc -l) symbols exported, all in the map and the header"
