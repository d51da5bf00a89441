#!/usr/bin/env bash
# The calls between the files of the CLI go one way (CONTRIBUTING.md, "The
# CLI, folder by folder"): no two files call each other, directly or round a
# longer circle; a file of a command's folder (cli/stat/, cli/trace/, ...)
# calls the shared files of cli/ and its own folder's, never another
# command's folder; a shared file calls no command's folder and nothing
# calls back into ipcperf.c, the dispatch, which calls every command. Read
# from the objects of the build (nm): who defines and who uses each symbol.
# Needs no root.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

[ -n "${CLI_OBJS:-}" ] || fail "CLI_OBJS is not set: run it through make check"
make_tmpdir
for o in $CLI_OBJS; do
	[ -f "$top_builddir/$o" ] || fail "$o is not built (run make first)"
	nm "$top_builddir/$o" | awk -v o="$o" '$1 == "U" { print "U", o, $2 }
		NF == 3 && $2 ~ /[TDRB]/ { print "D", o, $3 }'
done >"$T/syms"

perl - "$T/syms" >"$T/out" <<'EOT'
use strict;
my (%def, %uses, %edge, @bad);
while (<>) {
	my ($k, $o, $s) = split;
	if ($k eq 'D') { $def{$s} = $o } else { push @{$uses{$o}}, $s }
}
# cli/stat/ipcperf-cmd-stat.o: the folder "stat", the file "stat/cmd-stat".
sub folder { $_[0] =~ m{^cli/([^/]+)/} ? $1 : $_[0] =~ m{(^|[-/])ipcperf\.o$} ? 'dispatch' : 'shared' }
sub name { my $n = $_[0]; $n =~ s{^cli/}{}; $n =~ s{(^|/)ipcperf-}{$1}; $n =~ s{\.o$}{.c}; $n }
for my $o (sort keys %uses) {
	for my $s (@{$uses{$o}}) {
		my $d = $def{$s};
		next if !defined $d || $d eq $o;
		$edge{$o}{$d} = 1;
		my ($f, $g) = (folder($o), folder($d));
		next if $f eq $g || $g eq 'shared' || $f eq 'dispatch';
		push @bad, sprintf "%s calls %s of %s: %s", name($o), $s, name($d),
			$g eq 'dispatch' ? "a call back into the dispatch" :
			$f eq 'shared' ? "a shared file calls a command's folder" :
			"one command's folder calls another's";
	}
}
# A circle: a file reached again from itself.
my (%state, @path);
sub visit {
	my ($n) = @_;
	$state{$n} = 1;
	push @path, $n;
	for my $m (sort keys %{$edge{$n}}) {
		if (($state{$m} // 0) == 1) {
			my @c = @path;
			shift @c while $c[0] ne $m;
			push @bad, "a circle: " . join(' -> ', map { name($_) } @c, $m);
		} elsif (!$state{$m}) {
			visit($m);
		}
	}
	pop @path;
	$state{$n} = 2;
}
visit($_) for grep { !$state{$_} } sort keys %edge;
my $n = 0;
$n += keys %{$edge{$_}} for keys %edge;
print "edges $n\n";
print "$_\n" for @bad;
EOT
[ $? -eq 0 ] || fail "perl could not read the symbols"
layer_edges 50 "the direction of the CLI's layers"
echo "test-cli-layers: $(echo "$CLI_OBJS" | wc -w) objects, $edges calls between files, all one way"
exit 0
