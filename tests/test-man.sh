#!/usr/bin/env bash
# The manual pages (doc/*.1, doc/*.3) render without a single warning, and
# they cannot drift from what they describe:
#  - every subcommand of `ipcperf --help` has doc/ipcperf-CMD.1, named in
#    ipcperf(1);
#  - every option of `ipcperf CMD --help` is in doc/ipcperf-CMD.1 (as
#    "-x, --long" when it has both forms), and every option that page lists
#    under OPTIONS still exists;
#  - every IPCPERF_API function of include/ipcperf/ipcperf.h is in the
#    SYNOPSIS of a doc/libipcperf*.3 page with the header's exact prototype;
#    every public struct, enum, constant, typedef and macro of the header is
#    named in some doc/libipcperf*.3 page;
#  - the complete example program of libipcperf(3) compiles against the
#    header.
# Needs man (man-db) or groff, and the built cli/ipcperf; no root.
set -u
set -o pipefail
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

export LC_ALL=C.UTF-8
doc=$top_srcdir/doc
header=$top_srcdir/include/ipcperf/ipcperf.h
errors=0

# problem MESSAGE...: note a failure and go on, so that one run lists them all.
problem() {
	printf 'FAIL: %s: %s\n' "${0##*/}" "$*" >&2
	errors=$((errors + 1))
}

have_man=false
have_groff=false
command -v man >/dev/null 2>&1 && have_man=true
command -v groff >/dev/null 2>&1 && have_groff=true
if ! $have_man && ! $have_groff; then
	fail "neither man (man-db) nor groff is installed, so the manual pages cannot" \
	     "be checked: install man-db or groff-base (Debian: apt-get install man-db)"
fi
need_exe "$IPCPERF"
make_tmpdir

shopt -s nullglob
pages=("$doc"/*.1 "$doc"/*.3)
shopt -u nullglob
[ ${#pages[@]} -gt 0 ] || fail "no manual pages in $doc"

# ------------------------------------------------------------ rendering

# render PAGE: the page as plain text, 80 columns, into $T/text; its
# warnings (anything on stderr) into $T/warn.
render() {
	: >"$T/warn"
	if $have_man; then
		MANWIDTH=80 man --warnings -E UTF-8 -l "$1" >"$T/text" 2>>"$T/warn" ||
			echo "man exited with status $?" >>"$T/warn"
	fi
	if $have_groff; then
		groff -man -ww -z "$1" 2>>"$T/warn" ||
			echo "groff exited with status $?" >>"$T/warn"
		$have_man || groff -man -Tutf8 -P-cbou -rLL=78n "$1" >"$T/text" 2>>"$T/warn"
	fi
}

for page in "${pages[@]}"; do
	name=${page##*/}
	render "$page"
	if [ -s "$T/warn" ]; then
		problem "$name: rendering warned:"
		sed 's/^/    /' "$T/warn" >&2
	fi
	# Examples and structures are set without filling: keep them on the terminal.
	while IFS= read -r line; do
		[ ${#line} -le 80 ] || problem "$name: a rendered line is ${#line} columns wide (max 80): $line"
	done < <(sed 's/.\x08//g' "$T/text")
done

# plain PAGE: the roff source with the escapes that hide option names undone
# (\- \% \& and font changes), for grepping.
plain() {
	sed -e 's/\\f[BIRP]//g' -e 's/\\f(..//g' -e 's/\\f\[[^]]*\]//g' \
	    -e 's/\\%//g' -e 's/\\&//g' -e 's/\\-/-/g' "$1"
}

# ------------------------------------------------------------ the CLI

subs=$("$IPCPERF" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][-a-z]*\) .*/\1/p')
[ -n "$subs" ] || fail "ipcperf --help lists no subcommands"
# ascii PAGE: the page rendered as plain ASCII text in long lines, for grepping
# what a reader sees ("-p, --pid PID" however the roff source spells it).
ascii() {
	if $have_groff; then
		groff -man -Tascii -P-cbou -rLL=200n "$1" 2>/dev/null
	else
		MANWIDTH=200 man -E ascii -l "$1" 2>/dev/null
	fi | sed 's/.\x08//g'
}

if [ -f "$doc/ipcperf.1" ]; then
	ascii "$doc/ipcperf.1" >"$T/main.txt"
else
	problem "no doc/ipcperf.1"
	: >"$T/main.txt"
fi
nr_opts=0
for sub in $subs; do
	page=$doc/ipcperf-$sub.1
	if [ ! -f "$page" ]; then
		problem "ipcperf $sub has no manual page doc/ipcperf-$sub.1"
		continue
	fi
	grep -qE "(^|[^-[:alnum:]])ipcperf-$sub([^-[:alnum:]]|\$)" "$T/main.txt" ||
		problem "doc/ipcperf.1 does not mention ipcperf-$sub(1)"
	"$IPCPERF" "$sub" --help >"$T/help" 2>&1 || problem "ipcperf $sub --help failed"
	plain "$page" >"$T/plain"
	ascii "$page" >"$T/text"
	# The option lines of the help ("  -x, --long ARG  text", "      --long, --alias"):
	# the part before the description, and in it each --long name ...
	grep -E '^ +-' "$T/help" | sed -E -e 's/^ +//' -e 's/  .*//' >"$T/optlines"
	grep -oE -- '--[[:alnum:]][-[:alnum:]]*' "$T/optlines" | sort -u >"$T/opts"
	# ... and each "-x, --long" pair.
	grep -oE -- '^-[[:alnum:]], --[[:alnum:]][-[:alnum:]]*' "$T/optlines" >"$T/pairs"
	[ -s "$T/opts" ] || problem "ipcperf $sub --help lists no options"
	while IFS= read -r long; do
		nr_opts=$((nr_opts + 1))
		grep -qE -- "(^|[^-[:alnum:]])$long([^-[:alnum:]]|\$)" "$T/text" ||
			problem "ipcperf $sub: option $long (in --help) is not in doc/ipcperf-$sub.1"
	done <"$T/opts"
	while IFS= read -r pair; do
		grep -qF -- "$pair" "$T/text" ||
			problem "ipcperf $sub: doc/ipcperf-$sub.1 does not give \"$pair\" as --help does"
	done <"$T/pairs"
	# The other way: options the page lists (tags under OPTIONS) must still exist.
	awk '/^\.SH/ { in_opts = ($2 == "OPTIONS") } in_opts && tag { print } { tag = /^\.TP/ }' \
		"$T/plain" | grep -oE -- '--[[:alnum:]][-[:alnum:]]*' | sort -u |
	while IFS= read -r long; do
		grep -qxF -- "$long" "$T/opts" ||
			echo "$long"
	done >"$T/gone"
	while IFS= read -r long; do
		problem "ipcperf $sub: doc/ipcperf-$sub.1 lists $long, which --help does not have"
	done <"$T/gone"
done

# ------------------------------------------------------------ the library

shopt -s nullglob
libpages=("$doc"/libipcperf*.3)
shopt -u nullglob
[ ${#libpages[@]} -gt 0 ] || fail "no doc/libipcperf*.3 pages"

# The SYNOPSIS sections of all library pages, as rendered, without any blank.
for page in "${libpages[@]}"; do
	ascii "$page"
done >"$T/libtext"
awk '/^[A-Z]/ { syn = ($0 == "SYNOPSIS"); next } syn' "$T/libtext" | tr -d ' \t\n' >"$T/synopses"
cat "${libpages[@]}" >"$T/libsrc"
plain "$T/libsrc" >"$T/libplain"

# Every declaration of the header on one line, comments removed.
sed -zE 's#/\*([^*]|\*+[^*/])*\*+/##g' "$header" | tr '\n\t' '  ' | sed 's/;/;\n/g' |
	grep 'IPCPERF_API ' | sed -e 's/.*IPCPERF_API //' -e 's/  */ /g' >"$T/protos"
[ -s "$T/protos" ] || fail "no IPCPERF_API declaration found in $header"
nr_funcs=0
while IFS= read -r proto; do
	fn=$(printf '%s\n' "$proto" | grep -oE '[a-z_0-9]+\(' | head -n 1 | tr -d '(')
	[ -n "$fn" ] || { problem "cannot read the declaration: $proto"; continue; }
	nr_funcs=$((nr_funcs + 1))
	if ! grep -qw -- "$fn" "$T/libplain"; then
		problem "$fn (include/ipcperf/ipcperf.h) is documented in no doc/libipcperf*.3 page"
		continue
	fi
	flat=$(printf '%s' "$proto" | tr -d ' ')
	grep -qF -- "$flat" "$T/synopses" ||
		problem "$fn: no SYNOPSIS of doc/libipcperf*.3 has the header's prototype: $proto"
done <"$T/protos"

# Types, constants and macros: named somewhere in the library pages.
{
	grep -oE '^(struct|enum) ipcperf_[a-z_0-9]+ \{' "$header" | sed 's/ {$//'
	grep -oE '^\s*IPCPERF_[A-Z_0-9]+' "$header" | tr -d ' \t' | grep -vxE 'IPCPERF_API|IPCPERF_IPCPERF_H'
	grep -oE 'typedef [^;]*\(\*ipcperf_[a-z_0-9]+\)' "$header" | grep -oE 'ipcperf_[a-z_0-9]+'
	grep -oE '^#define IPCPERF_[A-Z_0-9]+\(' "$header" | sed -e 's/^#define //' -e 's/($//'
} | sort -u | while IFS= read -r what; do
	grep -qwF -- "$what" "$T/libplain" || echo "$what"
done >"$T/undoc"
while IFS= read -r what; do
	problem "$what (include/ipcperf/ipcperf.h) is named in no doc/libipcperf*.3 page"
done <"$T/undoc"

# The complete example of libipcperf(3): the .EX block after the marker comment.
awk '/^\.\\" The test tests\/test-man.sh compiles/ { m = 1 } m && /^\.EE/ { exit } m && ex { print } m && /^\.EX/ { ex = 1 }' \
	"$doc/libipcperf.3" |
	sed -e 's/\\e/\\/g' -e 's/\\-/-/g' -e 's/\\&//g' -e "s/\\\\(aq/'/g" -e 's/\\(dq/"/g' \
	>"$T/example.c"
if [ ! -s "$T/example.c" ]; then
	problem "doc/libipcperf.3: no example program after the test-man.sh marker"
else
	cc=${CC:-cc}
	if ! command -v "${cc%% *}" >/dev/null 2>&1; then
		problem "no C compiler ($cc) to compile the example of doc/libipcperf.3"
	elif ! $cc -std=gnu11 -Wall -Wextra -Werror -fsyntax-only -I"$top_srcdir/include" \
		"$T/example.c" 2>"$T/cc"; then
		problem "the example program of doc/libipcperf.3 does not compile:"
		sed 's/^/    /' "$T/cc" >&2
	fi
fi

[ "$errors" -eq 0 ] || fail "$errors problem(s) in the manual pages"
echo "test-man: ${#pages[@]} pages render without warnings; $nr_opts options of $(echo "$subs" | wc -w) subcommands and $nr_funcs functions documented"
