#!/usr/bin/env bash
# The files of lib/stats/ are layers, bottom up, in the order the header
# comment of lib/stats/account.h lists them (between its two lines of
# dashes): a file calls only the files listed before it, never one above
# it, so no two call each other. Every file of the folder is listed, and
# none of them reads a directory: who holds an inode is asked of /proc
# through lib/fd/holders.c, beside the other /proc reader (procres.c). Read
# from the objects of the build (nm): who defines and who uses each symbol.
# Needs no root.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

[ -n "${LIB_OBJS:-}" ] || fail "LIB_OBJS is not set: run it through make check"
hdr="$top_srcdir/lib/stats/account.h"
order=$(sed -n '/^ \* ----$/,/^ \* ----$/p' "$hdr" | grep -o '[a-z0-9_-]*\.c' | sed 's/\.c$//')
[ "$(echo "$order" | wc -w)" -ge 5 ] || fail "no layer list of files between ' * ----' lines in $hdr"
make_tmpdir
# libtool: lib/stats/libipcperf_internal_la-NAME.lo, its object NAME.o beside it or in .libs/.
for lo in $LIB_OBJS; do
	case $lo in lib/stats/*) ;; *) continue ;; esac
	name=${lo##*/}
	name=${name#*_la-}
	name=${name%.lo}
	name=${name%.o}
	o="$top_builddir/${lo%.lo}.o"
	[ -f "$o" ] || o="$top_builddir/$(dirname "$lo")/.libs/$(basename "${lo%.lo}").o"
	[ -f "$o" ] || fail "$lo is not built (run make first)"
	echo "$order" | grep -qx "$name" || fail "lib/stats/$name.c is not in the layer list of $hdr"
	nm "$o" | awk -v o="$name" '$1 == "U" { print "U", o, $2 }
		NF == 3 && $2 ~ /[TDRB]/ { print "D", o, $3 }'
done >"$T/syms"
for f in $order; do
	grep -q "^D $f " "$T/syms" || fail "lib/stats/$f.c, in the layer list of $hdr, is not built"
done

echo "$order" | perl -e '
use strict;
my ($list, $syms) = @ARGV;
my (%rank, %def, @uses, %edge, @bad);
open my $l, "<", $list or die;
my $i = 0;
while (<$l>) { chomp; $rank{$_} = $i++ if length }
open my $s, "<", $syms or die;
while (<$s>) {
	my ($k, $o, $sym) = split;
	if ($k eq "D") { $def{$sym} = $o } else { push @uses, [$o, $sym] }
}
for my $u (@uses) {
	my ($o, $sym) = @$u;
	push @bad, "lib/stats/$o.c calls $sym: it reads a directory (ask lib/fd/holders.c)"
		if $sym =~ /^(opendir|fdopendir|readdir|readdir64|scandir|scandir64)$/;
	my $d = $def{$sym};
	next if !defined $d || $d eq $o;
	$edge{"$o $d"} = 1;
	push @bad, "lib/stats/$o.c calls $sym of lib/stats/$d.c, a layer above it"
		if $rank{$d} > $rank{$o};
}
print "edges ", scalar(keys %edge), "\n";
print "$_\n" for @bad;
' /dev/stdin "$T/syms" >"$T/out" || fail "perl could not read the symbols"
layer_edges 10 "the layers of lib/stats/"
echo "test-stats-layers: $(echo "$order" | wc -w) files in layers, $edges calls between them, all downward"
exit 0
