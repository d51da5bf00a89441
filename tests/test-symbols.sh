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
# The CLI links the library's archive (no wrapper script in the build tree),
# where the internal symbols are at hand too: it may take only public ones.
archive=$top_builddir/lib/.libs/libipcperf.a
[ -f "$archive" ] || { echo "test-symbols: no built $archive" >&2; exit 1; }
defined=$(nm --defined-only "$archive" 2>/dev/null | awk 'NF == 3 && $2 ~ /[TDBR]/ { print $3 }' | sort -u)
cli_objs=$(find "$top_builddir/cli" -name "*.o" 2>/dev/null)
[ -n "$cli_objs" ] || { echo "test-symbols: no CLI objects under $top_builddir/cli" >&2; exit 1; }
# shellcheck disable=SC2086
used=$(nm -u $cli_objs | awk '{ print $NF }' | sort -u | comm -12 - <(echo "$defined"))
private=$(comm -23 <(echo "$used") <(echo "$mapped"))
if [ -n "$private" ]; then
    echo "test-symbols: the CLI uses library symbols that are not public:" >&2
    echo "$private" >&2
    exit 1
fi
echo "test-symbols: $(echo "$exported" | wc -l) symbols exported, all in the map and the header;" \
     "the CLI uses $(echo "$used" | wc -l) of them and nothing else"
