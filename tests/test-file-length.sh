#!/bin/sh
# No source file of the library or the CLI is over 800 lines (issue #39): a
# longer one holds several jobs, each of which wants a file of its own named
# for it (CONTRIBUTING.md: the library's folders, "The CLI, folder by
# folder"). Counted as wc -l counts them, over every .c and .h below lib/
# (lib/bpf/ included) and cli/. Needs no root.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

max=800
for dir in lib cli; do
	files=$(cd "$top_srcdir" && find $dir -name '*.[ch]' | sort)
	n=$(echo "$files" | wc -l)
	[ "$n" -gt 20 ] || fail "found only $n source files under $top_srcdir/$dir"
	# shellcheck disable=SC2086
	over=$(cd "$top_srcdir" && wc -l $files |
		awk -v max="$max" '$2 != "total" && $1 > max { print $1 " " $2 }')
	[ -z "$over" ] || fail "files over $max lines (lines, file): $(echo "$over" | tr '\n' ';')"
	echo "test-file-length: $n files in $dir/, none over $max lines"
done
exit 0
