#!/usr/bin/env bash
# The calls between the library's folders go one way, down (lib/internal.h,
# CONTRIBUTING.md "The library, folder by folder"): the folders stand on
# floors, written once in lib/internal.h's "floors:" line, bottom up, the
# ground floor (the files of lib/ itself) first. A file may call its own
# folder and the folders on the floors below it, never a folder on its
# floor's level or above: so no two folders call each other, directly or
# round a longer circle. Read from the objects of the build (nm): who
# defines and who uses each symbol. Needs no root.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

[ -n "${LIB_OBJS:-}" ] || fail "LIB_OBJS is not set: run it through make check"
floors=$(sed -n 's/^ \*  *floors: *//p' "$top_srcdir/lib/internal.h")
[ -n "$floors" ] || fail "lib/internal.h has no \"floors:\" line: the floors, bottom up"
make_tmpdir
# A libtool object (.lo) names the object it stands for; nm reads that.
for lo in $LIB_OBJS; do
	f="$top_builddir/$lo"
	[ -f "$f" ] || fail "$lo is not built (run make first)"
	o=$(sed -n "s/^pic_object='\(.*\)'$/\1/p" "$f")
	[ "${o:-none}" != none ] || o=$(sed -n "s/^non_pic_object='\(.*\)'$/\1/p" "$f")
	[ -f "$(dirname "$f")/$o" ] || fail "$lo names no object nm can read ($o)"
	nm "$(dirname "$f")/$o" | awk -v o="$lo" '$1 == "U" { print "U", o, $2 }
		NF == 3 && $2 ~ /[TDRB]/ { print "D", o, $3 }'
done >"$T/syms"

perl - "$floors" "$T/syms" >"$T/out" <<'EOT'
use strict;
my @floors = split ' ', shift;
my %rank;
@rank{@floors} = 0 .. $#floors;
my (%def, %uses, %calls, @bad);
while (<>) {
	my ($k, $o, $s) = split;
	if ($k eq 'D') { $def{$s} = $o } else { push @{$uses{$o}}, $s }
}
# lib/fd/libipcperf_internal_la-procfd.lo: the folder "fd", the file "lib/fd/procfd.c".
sub folder { $_[0] =~ m{^lib/([^/]+)/} ? $1 : 'ground' }
sub label { $_[0] eq 'ground' ? 'the ground floor (lib/)' : "$_[0]/" }
sub name { my $n = $_[0]; $n =~ s{(^|/)libipcperf_internal_la-}{$1}; $n =~ s{\.lo$}{.c}; $n }
my %seen;
for my $o (sort keys %uses) {
	my $f = folder($o);
	push @bad, sprintf "%s: lib/%s/ is on no floor of lib/internal.h's \"floors:\" line",
		name($o), $f unless defined $rank{$f} || $seen{$f}++;
	for my $s (@{$uses{$o}}) {
		my $d = $def{$s};
		next if !defined $d;
		my $g = folder($d);
		next if $f eq $g;
		$calls{"$f $g"}++;
		next if !defined $rank{$f} || !defined $rank{$g} || $rank{$g} < $rank{$f};
		push @bad, sprintf "%s calls %s of %s: %s may not call %s, %s", name($o), $s,
			name($d), label($f), label($g), $rank{$g} == $rank{$f} ? "on its own floor" : "above it";
	}
}
my $n = 0;
$n += $_ for values %calls;
printf "calls %d folders %d\n", $n, scalar keys %{{ map { (split)[0] => 1 } keys %calls }};
print "$_\n" for @bad;
EOT
[ $? -eq 0 ] || fail "perl could not read the symbols"
read -r _ calls _ nfolders < <(grep '^calls ' "$T/out")
[ "${calls:-0}" -gt 200 ] && [ "${nfolders:-0}" -ge 8 ] ||
	fail "only ${calls:-0} calls between ${nfolders:-0} folders of the library: nm misread the objects"
if grep -v '^calls ' "$T/out" >"$T/bad"; then
	cat "$T/bad" >&2
	fail "$(wc -l <"$T/bad") call(s) against the library's floors ($floors)"
fi
echo "test-lib-layers: $(echo "$LIB_OBJS" | wc -w) objects, $calls calls between $nfolders folders, all down the floors: $floors"
exit 0
