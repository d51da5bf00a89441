#!/bin/sh
# No source file of the library is over 800 lines (issue #39): a longer one
# holds several jobs, each of which wants a file of its own named for it.
# Counted as wc -l counts them, over every .c and .h below lib/ (lib/bpf/
# included). cli/ joins this check once its files are split. Needs no root.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

max=800
files=$(cd "$top_srcdir" && find lib -name '*.[ch]' | sort)
n=$(echo "$files" | wc -l)
[ "$n" -gt 50 ] || fail "found only $n source files under $top_srcdir/lib"
over=$(cd "$top_srcdir" && wc -l $files | awk -v max="$max" '$2 != "total" && $1 > max { print $1 " " $2 }')
[ -z "$over" ] || fail "files over $max lines (lines, file): $(echo "$over" | tr '\n' ';')"
echo "test-file-length: $n files in lib/, none over $max lines"
