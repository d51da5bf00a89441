#!/bin/sh
# No file of the CLI is over 800 lines: a longer one holds several jobs that
# want files of their own (CONTRIBUTING.md, "The CLI, folder by folder").
# Needs no root.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

max=800
files=$(find "$top_srcdir/cli" -name '*.[ch]' | sort)
[ -n "$files" ] || fail "no sources under $top_srcdir/cli"
# shellcheck disable=SC2086
over=$(wc -l $files | awk -v max=$max '$2 != "total" && $1 > max { printf "%s (%d lines) ", $2, $1 }')
[ -z "$over" ] || fail "files over $max lines: $over"
echo "test-file-length: $(echo "$files" | wc -l) files in cli/, none over $max lines"
exit 0
