#!/usr/bin/env bash
# Every public header compiles on its own, first in its translation unit, as
# strict C (C99 and C11, -pedantic) and as C++11, with gcc and (if present)
# clang; it survives being included twice; and under C++ its functions keep C
# linkage. Only -I include/: no config.h, no _GNU_SOURCE, nothing else first.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

make_tmpdir
inc=$top_srcdir/include
headers=$(cd "$inc" && find ipcperf -name '*.h' | sort)
[ -n "$headers" ] || fail "no headers under $inc/ipcperf"

# -Wundef: an #if on an undefined macro; -Wstrict-prototypes / -Wold-style-definition:
# "f()" where "f(void)" is meant, which C++ and C read differently.
cwarn="-Wall -Wextra -Werror -pedantic -Wundef -Wshadow -Wstrict-prototypes
	-Wmissing-prototypes -Wredundant-decls -Wcast-qual -Wpointer-arith"
cxxwarn="-Wall -Wextra -Werror -pedantic -Wundef -Wshadow -Wold-style-cast
	-Wredundant-decls -Wcast-qual"

compilers_c="gcc"
compilers_cxx="g++"
command -v clang >/dev/null && compilers_c="$compilers_c clang"
command -v clang++ >/dev/null && compilers_cxx="$compilers_cxx clang++"
command -v g++ >/dev/null || fail "g++ is not installed (apt-get install g++): cannot check the headers as C++"

n=0
for h in $headers; do
	# On its own, twice (the include guard), plus a use of each kind of
	# declaration so that unused-but-broken declarations still get checked.
	printf '#include <%s>\n#include <%s>\nint ipcperf_header_test(void);\nint ipcperf_header_test(void) { return 0; }\n' \
		"$h" "$h" >"$T/t.c"
	for cc in $compilers_c; do
		for std in c99 c11; do
			# shellcheck disable=SC2086
			$cc -std=$std $cwarn -I"$inc" -c "$T/t.c" -o "$T/t.o" 2>"$T/err" ||
				{ cat "$T/err" >&2; fail "$h does not compile on its own as $std with $cc"; }
			n=$((n + 1))
		done
	done
	cp "$T/t.c" "$T/t.cc"
	for cxx in $compilers_cxx; do
		# shellcheck disable=SC2086
		$cxx -std=c++11 $cxxwarn -x c++ -I"$inc" -c "$T/t.cc" -o "$T/t.o" 2>"$T/err" ||
			{ cat "$T/err" >&2; fail "$h does not compile on its own as C++11 with $cxx"; }
		n=$((n + 1))
	done
done

# The umbrella header's API from C: the options macro as users write it.
cat >"$T/use.c" <<'EOF'
#include <ipcperf/ipcperf.h>
int use(void);
int use(void)
{
	IPCPERF_OPTS(ipcperf_session_opts, o, .ring_pages = 8);
	IPCPERF_OPTS(ipcperf_stats_opts, so, .no_proc = true);

	return (int)(o.sz + so.sz);
}
EOF
for cc in $compilers_c; do
	# shellcheck disable=SC2086
	$cc -std=c99 $cwarn -I"$inc" -c "$T/use.c" -o "$T/use.o" 2>"$T/err" ||
		{ cat "$T/err" >&2; fail "IPCPERF_OPTS() does not compile as C99 with $cc"; }
done

# C++: the functions have C linkage (extern "C"), so a C++ program links
# against the C library: the symbols it needs are not mangled.
cat >"$T/use.cc" <<'EOF'
#include <ipcperf/ipcperf.h>
const char *use_version();
const char *use_version()
{
	struct ipcperf_session_opts o = ipcperf_session_opts();
	o.sz = sizeof(o);
	struct ipcperf_session *s = ipcperf_session__new(&o);
	ipcperf_session__delete(s);
	return ipcperf_version();
}
EOF
# shellcheck disable=SC2086
g++ -std=c++11 $cxxwarn -I"$inc" -c "$T/use.cc" -o "$T/use.o" 2>"$T/err" ||
	{ cat "$T/err" >&2; fail "a C++11 use of the API does not compile"; }
undef=$(nm -u "$T/use.o" | awk '{ print $2 }' | grep ipcperf_ | sort | tr '\n' ' ')
[ "$undef" = "ipcperf_session__delete ipcperf_session__new ipcperf_version " ] ||
	fail "from C++ the API's symbols are '$undef', expected unmangled C names"

echo "test-headers: $(echo "$headers" | wc -l) header(s), $n compilations"
exit 0
