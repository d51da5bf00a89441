#!/bin/sh
# No function of the CLI is over 100 lines (issue #13): a longer one does
# several jobs that want names of their own. Counted by scripts/func-lengths,
# from the line of a definition's name to its closing brace. Needs no root.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

over=$("$top_srcdir/scripts/func-lengths" -n 100 "$top_srcdir"/cli/*.c "$top_srcdir"/cli/*/*.c) ||
	fail "functions over 100 lines (lines, where, name): $(echo "$over" | tr '\n' ';')"
count=$("$top_srcdir/scripts/func-lengths" "$top_srcdir"/cli/*.c "$top_srcdir"/cli/*/*.c | wc -l)
[ "$count" -gt 100 ] || fail "scripts/func-lengths found only $count functions in cli/: it misreads them"
echo "test-func-length: $count functions in cli/, none over 100 lines"
