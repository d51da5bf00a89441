#!/usr/bin/env bash
# The option table (cli/options.c) binds each row's setter to the type of
# the fields it stores to at compile time: a row that pairs a setter with a
# field of another type must not compile. The setters write through void *,
# so such a row would otherwise build and overwrite the fields beside its
# own. Compiled here with the build's compiler and flags: rows of our own
# with the table's macros, then the real table with one row's setter swapped.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

make_tmpdir
: "${CC:=gcc}"
# The flags of the build (Makefile.am passes them); by hand, those of a plain build.
: "${CLI_CFLAGS:=-DHAVE_CONFIG_H -I$top_srcdir/include -I$top_builddir -I$top_srcdir/cli -Wall -Wextra -Wno-unused-parameter -Werror}"

# compile FILE: 0 if FILE compiles with the build's flags; the compiler's
# messages in $T/err.
compile() {
	# shellcheck disable=SC2086
	$CC $CLI_CFLAGS -I"$top_srcdir/cli" -fsyntax-only "$1" 2>"$T/err"
}

# The real table: it compiles as it is, and not with json's setter swapped.
table=$top_srcdir/cli/options.c
compile "$table" || { cat "$T/err" >&2; fail "$table does not compile"; }
# swap NAME FROM TO: the table with the row of --NAME given the setter TO for FROM.
swap() {
	perl -0pe 's/(\{ \.name = "\Q'"$1"'\E".*?)\b\Q'"$2"'\E\b/$1'"$3"'/s' "$table" >"$T/options.c"
	! cmp -s "$table" "$T/options.c" || fail "no setter $2 in the row of --$1: update this test"
}
swap json cli_opt_flag cli_opt_uint
compile "$T/options.c" && fail "the table compiled with --json's setter storing an unsigned int into a bool"
grep -q "struct stat_opts.json is not of the type cli_opt_uint stores" "$T/err" ||
	{ cat "$T/err" >&2; fail "--json swapped: not the expected message"; }
swap duration cli_opt_duration cli_opt_uint
compile "$T/options.c" && fail "the table compiled with -d's setter storing an unsigned int into a double"
grep -q "struct stat_opts.t.duration is not of the type cli_opt_uint stores" "$T/err" ||
	{ cat "$T/err" >&2; fail "-d swapped: not the expected message"; }

# rows SETTER FIELD...: a table of one row, SETTER storing to these fields of
# struct stat_opts (FIELD) or another command's struct (CMD:FIELD).
rows() {
	local setter=$1 at="" f cmd
	shift
	for f in "$@"; do
		case $f in
		flows:*) cmd="CMD_FLOWS, struct flows_opts, ${f#flows:}" ;;
		report:*) cmd="CMD_REPORT, struct report_opts, ${f#report:}" ;;
		trace:*) cmd="CMD_TRACE, struct trace_opts, ${f#trace:}" ;;
		*) cmd="CMD_STAT, struct stat_opts, $f" ;;
		esac
		at="$at${at:+, }CLI_OPT_AT($cmd)"
	done
	cat >"$T/rows.c" <<EOT
#include "config.h"
#include "cmds.h"
const struct cli_option *test_rows(void);
static const struct cli_option rows[] = {
	{ .name = "row", CLI_OPT_STORE($setter, $at) },
};
const struct cli_option *test_rows(void)
{
	return rows;
}
EOT
}

# right SETTER FIELD...: the row compiles.
right() {
	rows "$@"
	compile "$T/rows.c" || { cat "$T/err" >&2; fail "a right row does not compile: $*"; }
}

# wrong SETTER WHAT FIELD...: the row does not compile, and the compiler
# says "WHAT is not of the type SETTER stores".
wrong() {
	local setter=$1 what=$2
	shift 2
	rows "$setter" "$@"
	compile "$T/rows.c" && fail "a row of $setter to $what compiled: the table does not check types"
	grep -q "$what is not of the type $setter stores" "$T/err" ||
		{ cat "$T/err" >&2; fail "$setter to $what: not the expected message"; }
}

# The harness itself: right rows of every kind of field compile.
right cli_opt_flag json
right cli_opt_flag json flows:json report:json trace:t.no_bpf
right cli_opt_uint top
right cli_opt_string sep
right cli_opt_enum sort
right cli_opt_enum report:view
right cli_opt_enum trace:stamps
right cli_opt_enum t.scope

wrong cli_opt_uint "struct stat_opts.json" json
wrong cli_opt_flag "struct stat_opts.top" top
wrong cli_opt_string "struct stat_opts.interval_ms" interval_ms
wrong cli_opt_enum "struct stat_opts.t.duration" t.duration
wrong cli_opt_uint "struct stat_opts.t.pids" t.pids
wrong cli_opt_flag "struct stat_opts.sep" sep
wrong cli_opt_enum "struct stat_opts.sep" sep
# Every field of a row is checked, not only its first.
wrong cli_opt_flag "struct report_opts.sep" json flows:json report:sep

echo "test-option-types: the table and 9 right rows compile, 2 wrong tables and 8 wrong rows do not"
exit 0
