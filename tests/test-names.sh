#!/bin/sh
# A name finds its file (issue #39): every function of the library named
# ipp_X__VERB or ipcperf_X__VERB, the functions of object X, is defined in a
# file that bears X's name. Needs no root.
#
# The rule, exactly. The definitions are those scripts/func-lengths finds in
# lib/ (every .c and .h below it, lib/bpf/ included). For a definition named
# ipp_X__Y or ipcperf_X__Y (X up to the first "__", Y not empty), let OBJ be
# X with each "_" written "-", and PATH the file's path below lib/ with its
# extensions dropped (lib/fd/fdtable-report.c: "fd/fdtable-report"). It is in
# its place when
#  1. PATH contains OBJ, in a folder's name or the file's: ipp_fdtab__ in
#     fd/fdtable-report.c, ipcperf_stats__ in stats/groups.c; or
#  2. OBJ starts with the file's own name: an object named for its file with
#     a suffix, ipp_decoder__ in pipeline/decode.c, ipp_pairer__ in pair.c;
# or when the pair (OBJ, PATH) is one of the exceptions below. And the
# object's functions all have the "__": a function named ipp_X_Y (ipcperf_X_Y)
# while ipp_X__... (ipcperf_X__...) functions exist is one of X's written
# without it (ipp_stats_fdtab for ipp_stats__fdtab).
#
# The exceptions, each with its reason:
#  - pd-reader in capture/pd-records, pd-sample: the perf.data reader is one
#    object over the capture/pd-*.c files (open, records, sample fields,
#    feature sections, unpacking), each named for its part.
#  - sig-rec in bpf/args-rec: the signal record comes from args.bpf.c with
#    the arg record, and is declared beside it in args-rec.h.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

exceptions='
pd-reader capture/pd-records
pd-reader capture/pd-sample
sig-rec bpf/args-rec
'

# top_srcdir may be relative (../.. in make distcheck): made absolute before the cd
src=$(cd "$top_srcdir" && pwd) || fail "no source tree at $top_srcdir"
cd "$src/lib" || fail "no lib/ under $src"
defs=$("$src/scripts/func-lengths" $(find . -name '*.[ch]' | sort)) ||
	fail "scripts/func-lengths failed"
n=$(printf '%s\n' "$defs" | grep -cE ' (ipp|ipcperf)_[a-z0-9_]+__[a-z0-9_]')
[ "$n" -gt 300 ] || fail "scripts/func-lengths found only $n object functions in lib/: it misreads them"

bad=$(printf '%s\n' "$defs" | awk -v exc="$exceptions" '
	BEGIN {
		m = split(exc, e, "\n")
		for (i = 1; i <= m; i++)
			if (e[i] != "")
				allowed[e[i]] = 1
	}
	{
		name = $3
		if (name !~ /^(ipp|ipcperf)_[a-z0-9_]+__[a-z0-9_]/)
			next
		obj = name
		sub(/^(ipp|ipcperf)_/, "", obj)
		sub(/__.*/, "", obj)
		gsub(/_/, "-", obj)
		loc = $2
		sub(/^\.\//, "", loc)
		path = loc
		sub(/:[0-9]+$/, "", path)
		sub(/\..*$/, "", path)
		base = path
		sub(/.*\//, "", base)
		if (index(path, obj) || index(obj, base) == 1 || ((obj " " path) in allowed))
			next
		print "lib/" loc " " name " (object " obj ")"
	}')
objs=$(printf '%s\n' "$defs" | awk '$3 ~ /^(ipp|ipcperf)_[a-z0-9_]+__/ { o = $3; sub(/__.*/, "", o); print o }' |
	sort -u)
unscored=$(printf '%s\n' "$defs" | awk -v objs="$objs" '
	BEGIN { m = split(objs, o, "\n") }
	$3 ~ /^(ipp|ipcperf)_/ && $3 !~ /__/ {
		for (i = 1; i <= m; i++)
			if (o[i] != "" && index($3, o[i] "_") == 1)
				print "lib/" substr($2, 3) " " $3 " (object " o[i] ")"
	}')
[ -z "$unscored" ] ||
	echo "object functions without the __ of their object's: $(echo "$unscored" | tr '\n' ';')" >&2
[ -z "$bad" ] ||
	echo "functions away from the file of their object's name: $(echo "$bad" | tr '\n' ';')" >&2
[ -z "$unscored$bad" ] || fail "names that do not find their files (above)"
echo "test-names: $n object functions in lib/, each in the file of its name"
