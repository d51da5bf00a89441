#!/usr/bin/env bash
# The bash completion (contrib/bash-completion/ipcperf): subcommands, their
# options (all those each subcommand's --help lists), option values, pids for
# -p, and commands after "--". Needs no root.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

completion=$top_srcdir/contrib/bash-completion/ipcperf
[ -f "$completion" ] || fail "no $completion"
need_exe "$IPCPERF"
make_tmpdir
bash -n "$completion" || fail "$completion: bash syntax error"

# complete WORD...: what the completion offers when the cursor is at the end of
# the last WORD (give '' to complete an empty word), one per line, sorted.
# The program is "ipcperf" (not on PATH: only the file's own lists) unless
# PROG is set.
complete_words() {
	PROG=${PROG:-ipcperf} bash -c '
		source "$1" || exit 1
		shift
		COMP_WORDS=("$PROG" "$@")
		COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
		COMP_LINE="${COMP_WORDS[*]}"
		COMP_POINT=${#COMP_LINE}
		_ipcperf ipcperf "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		[ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}"' complete-test "$completion" "$@" 2>"$T/err" | sort
}

# expect_words WORDS... :: EXPECTED...: the offer is exactly EXPECTED.
expect_words() {
	local -a words=() want=()
	while [ "$1" != :: ]; do words+=("$1"); shift; done
	shift
	want=("$@")
	got=$(complete_words "${words[@]}" | tr '\n' ' ')
	exp=
	[ ${#want[@]} -eq 0 ] || exp=$(printf '%s\n' "${want[@]}" | sort | tr '\n' ' ')
	[ "$got" = "$exp" ] || fail "ipcperf ${words[*]}<TAB>: offered '$got', expected '$exp'"
}

# expect_has WORDS... :: ONE...: the offer includes each ONE.
expect_has() {
	local -a words=()
	while [ "$1" != :: ]; do words+=("$1"); shift; done
	shift
	complete_words "${words[@]}" >"$T/offer"
	for w in "$@"; do
		grep -qxF -- "$w" "$T/offer" ||
			fail "ipcperf ${words[*]}<TAB>: '$w' not offered (offered: $(head -c 300 "$T/offer" | tr '\n' ' '))"
	done
}

# It registers itself for ipcperf.
bash -c 'source "$1" && complete -p ipcperf' x "$completion" | grep -q -- '-F _ipcperf' ||
	fail "sourcing $completion does not register a completion for ipcperf"

# Subcommands and global options.
expect_words st :: stat
expect_words stat --j :: --json
expect_words tr :: trace
expect_words '' :: check flows list paths record report stat top trace
expect_words report --view '' :: flows paths stat syscalls
expect_words --h :: --help
expect_words stat --js :: --json
expect_words check --m :: --mmap-pages
expect_words list --j :: --json

# Option values.
expect_words stat --sort '' :: bytes ops time
expect_words stat --sort = b :: bytes
expect_words stat --sort = '' :: bytes ops time
expect_words check -m 25 :: 256
expect_words stat -S e :: errors
expect_words stat -e task-clock,ca :: task-clock,cache-misses task-clock,cache-references
expect_words stat --event c :: context-switches cpu-migrations cycles cache-misses cache-references
expect_words stat --listen '' ::
expect_words stat --summary-sort-by = n :: name
expect_has trace -p '' :: "$$" 1
expect_has trace -p 1, :: "1,$$"
expect_has stat --tid '' :: "$$"
mkdir "$T/dir" && : >"$T/dir/out.json"
expect_words flows -o "$T/dir/ou" :: "$T/dir/out.json"
# A number is expected: nothing is offered.
expect_words stat -d '' ::

# After "--": a command.
expect_has stat -- ech :: echo
expect_has trace -a -v -- '' :: ls

# The lists of the file are those of the option table: its generated part is
# what the program prints (make update-completion writes it there) ...
generated=$(sed -n '/^# BEGIN generated/,/^# END generated/p' "$completion")
[ -n "$generated" ] || fail "$completion has no generated part (# BEGIN generated ... # END generated)"
"$IPCPERF" --bash-completion >"$T/generated" || fail "ipcperf --bash-completion failed"
[ "$generated" = "$(cat "$T/generated")" ] || {
	diff -u <(printf '%s\n' "$generated") "$T/generated" | head -n 40 >&2
	fail "the generated part of $completion is not what 'ipcperf --bash-completion' prints: run 'make update-completion'"
}
# ... and for each subcommand the file alone (no program to ask) offers
# exactly the options of the table.
for sub in $("$IPCPERF" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][-a-z]*\) .*/\1/p'); do
	"$IPCPERF" --list-options "$sub" | sort >"$T/table" || fail "ipcperf --list-options $sub failed"
	[ -s "$T/table" ] || fail "ipcperf --list-options $sub: no options"
	complete_words "$sub" - >"$T/offer"
	diff -u "$T/table" "$T/offer" >"$T/diff" || {
		cat "$T/diff" >&2
		fail "ipcperf $sub -<TAB> does not offer exactly the options of the table (- missing, + extra)"
	}
done

# Every option of every subcommand the program lists, from its own --help,
# is offered (the file's lists must follow the CLI; a subcommand the file
# does not know is read from --help at completion time).
subs=$("$IPCPERF" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][-a-z]*\) .*/\1/p')
[ -n "$subs" ] || fail "ipcperf --help lists no subcommands"
for sub in $subs; do
	PROG=$IPCPERF expect_has "${sub:0:2}" :: "$sub"
	opts=$("$IPCPERF" "$sub" --help | grep -oE '^ +(-[[:alnum:]], )?--?[[:alnum:]][-[:alnum:]]*' |
		tr -d ',' | tr ' ' '\n' | grep -v '^$' | grep -vx -- '--')
	[ -n "$opts" ] || fail "ipcperf $sub --help lists no options"
	PROG=$IPCPERF complete_words "$sub" - >"$T/offer"
	missing=$(printf '%s\n' "$opts" | grep -vxF -f "$T/offer" | tr '\n' ' ')
	[ -z "$missing" ] ||
		fail "the completion does not offer these options of 'ipcperf $sub': $missing(update $completion)"
done

exit 0
