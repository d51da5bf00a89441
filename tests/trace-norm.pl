#!/usr/bin/perl
# trace-norm.pl [--async SIG] [--ports] TOOL FILE...: the lines of one run of strace
# -ff (TOOL strace: FILE... are its per-task files PREFIX.TID) or of
# ipcperf trace (TOOL ipcperf: one FILE), per task, for
# tests/test-trace-strace.sh.
#
# Out: "T<n> LINE", the tasks numbered in the order they were made (the
# root first, then each task's children as its clones returned them,
# depth first), each task's lines in its own order. ipcperf's
# "[pid N] " is taken off and the return value put back in column 40 as
# strace -ff writes a task's file (without any prefix); an unprefixed
# line is the one task then alive's, as ipcperf prints them. A call drawn
# in two halves (strace -f's "NAME(ARGS <unfinished ...>", then the task's
# "<... NAME resumed>REST") is joined into its line, as strace -ff writes
# it whole.
#
# Normalised ONLY: what differs from run to run: addresses (0x...), the
# tids (and the pids that are them: set_tid_address, getpid, clone,
# wait4 return them, a siginfo's si_pid; getppid's is the tracer), inode
# numbers of pipes and sockets, the local port of a TCP connection,
# getrandom's bytes, a SIGCHLD's si_utime and si_stime (CPU ticks), and
# the padding before a return value in column 40 that their widths moved
# (pids wrap from 5 digits to 4 at pid_max 32768).
# With --ports (a program that listens on a port of its own): each port
# number but 0 on 127.0.0.1 and in htons() named P1, P2, ... in the order they
# come, so that one port keeps its name on each line it is on.
# With --async SIG (a signal whose place among a task's calls is timing's,
# such as the SIGCHLDs of a shell whose children run beside it): its
# "--- SIG ... ---" lines, and the rt_sigreturn after each (which returns
# what the call it came after returned), are left out; so is a call such a
# signal interrupted and the kernel restarts ("= ? ERESTART..."): whether a
# fork is caught by its sibling's SIGCHLD is timing's too.
use strict;
use warnings;

my ($async, $ports);
while (@ARGV && $ARGV[0] =~ /^--(async|ports)$/) {
	if (shift @ARGV eq '--async') {
		$async = shift @ARGV;
	} else {
		$ports = 1;
	}
}
my %port;	# --ports: port number -> P<n>, in the order they come

sub port_name {
	my ($p) = @_;
	$port{$p} = 'P' . (scalar(keys %port) + 1) unless exists $port{$p};
	return $port{$p};
}
my ($tool, @files) = @ARGV;
my %lines;	# tid -> [lines]

sub realign {
	my ($l) = @_;
	# "call(...)   = ret": the padding before " = " as for a line without a prefix
	return $l unless $l =~ /^(.*?\))( +)= (.*)$/s && $1 !~ /^\+\+\+/;
	my ($call, $ret) = ($1, $3);
	# the last ") = " of the line is the return's: take it greedily
	if ($l =~ /^(.*\)) +=( .*)$/) {
		($call, $ret) = ($1, substr($2, 1));
	}
	my $pad = length($call) < 39 ? 39 - length($call) + 1 : 1;
	return $call . (' ' x $pad) . '= ' . $ret;
}

if ($tool eq 'strace') {
	for my $f (@files) {
		my ($tid) = $f =~ /\.(\d+)$/ or die "$f: not PREFIX.TID\n";
		open my $in, '<', $f or die "$f: $!\n";
		chomp(my @l = <$in>);
		$lines{$tid} = \@l;
	}
} else {
	open my $in, '<', $files[0] or die "$files[0]: $!\n";
	my (%alive, @orphans, $root);
	while (my $l = <$in>) {
		chomp $l;
		my $tid;
		if ($l =~ s/^\[pid +(\d+)\] //) {
			$tid = $1;
			$l = realign($l);
		} else {
			my @a = keys %alive;
			$tid = @a == 1 ? $a[0] : $root;
		}
		if (!defined $tid) {
			push @orphans, $l;	# the first task's, before its tid is known
			# its tid is its set_tid_address's return (ld.so's, before any clone)
			next unless $l =~ /^set_tid_address\(.*\) += (\d+)$/;
			$root = $1;
			$alive{$root} = 1;
			push @{$lines{$root}}, @orphans;
			@orphans = ();
			next;
		}
		$alive{$tid} = 1;
		push @{$lines{$tid}}, $l;
		$alive{$1} = 1
			if $l =~ /^(?:(?:clone|clone3|fork|vfork)\(|<\.\.\. (?:clone|clone3|fork|vfork) resumed>).*\) += (\d+)$/;
		delete $alive{$tid} if $l =~ /^\+\+\+ /;
		$root //= $tid;
	}
	# no set_tid_address: the first task's lines go to the first tid seen
	unshift @{$lines{$root // 0}}, @orphans if @orphans;
}

# Each task's halves joined: the first ends " <unfinished ...>", the next
# line of the task says "<... NAME resumed>" and the rest (of a task that
# died in the call: " <unfinished ...>) = ?").
for my $t (keys %lines) {
	my (@out, $held);
	for my $l (@{$lines{$t}}) {
		if (defined $held && $l =~ /^<\.\.\. \w+ resumed>(.*)$/s) {
			push @out, realign($held . $1);
			undef $held;
			next;
		}
		push @out, $held if defined $held;
		undef $held;
		if ($l =~ /^(.*) <unfinished \.\.\.>$/s && $l !~ /^<\.\.\./) {
			$held = $1;
			next;
		}
		push @out, $l;
	}
	push @out, "$held <unfinished ...>" if defined $held;
	$lines{$t} = \@out;
}

# Tasks in the order they were made, not by tid (tids wrap at pid_max,
# and a long test run gets there): the root (the task no clone made), then
# each task's children in the order its clone, fork or vfork returned them.
my %made;
for my $t (keys %lines) {
	for my $l (@{$lines{$t}}) {
		push @{$made{$t}}, $1
			if $l =~ /^(?:clone|clone3|fork|vfork)\(.*\) += (\d+)\s*$/ && exists $lines{$1};
	}
}
my %child = map { $_ => 1 } map { @$_ } values %made;
my @tids;
my @todo = sort { $a <=> $b } grep { !$child{$_} } keys %lines;
while (@todo) {
	my $t = shift @todo;
	push @tids, $t;
	unshift @todo, @{$made{$t} // []};
}
my %name = map { $tids[$_] => "T$_" } 0 .. $#tids;
for my $tid (@tids) {
	my $in_async = 0;
	for my $l (@{$lines{$tid}}) {
		if ($async && $l =~ /^--- \Q$async\E /) {
			$in_async = 1;
			next;
		}
		if ($in_async && $l =~ /^rt_sigreturn\(/) {
			$in_async = 0;
			next;
		}
		next if $async && $l =~ /= \? ERESTART\w* \(/;
		# a line in column 40 stays there once its pids, addresses and inodes
		# are names (their widths are the run's); a line off it stays off
		my $aligned = realign($l) eq $l;
		$l =~ s/\b(\d+)\b/exists $name{$1} ? $name{$1} : $1/ge
			if $l =~ /^(set_tid_address|getpid|gettid|clone|clone3|fork|vfork|wait4|kill|tgkill)\(/;
		$l =~ s/\b(si_pid=)(\d+)/$1 . (exists $name{$2} ? $name{$2} : $2)/ge;
		$l =~ s/\b(si_[us]time=)\d+/${1}TICKS/g;
		$l =~ s/^(getppid\(\) += )\d+$/${1}PPID/;
		$l =~ s/0x[0-9a-f]+/ADDR/g;
		$l =~ s/((?:pipe|TCP|TCPv6|UDP|UNIX-STREAM|UNIX):\[)\d+(->\d+)?\]/$1INO]/g;
		if ($ports) {
			$l =~ s/(127\.0\.0\.1:|htons\()([1-9]\d*)/$1 . port_name($2)/ge;
		}
		$l =~ s/(TCP:\[127\.0\.0\.1:)\d+(->)/$1PORT$2/g;
		$l =~ s/^(getrandom\(")(?:\\x[0-9a-f]{2})+/$1BYTES/;
		$l = realign($l) if $aligned;
		print "$name{$tid} $l\n";
	}
}
