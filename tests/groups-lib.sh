# Sourced, after tests/lib.sh, by the tests of connections grouped by their
# accept or connect (test-groups.sh, test-groups-origin.sh), on tests/connwork.

# tcp_table WHAT FILE PORT SERVER CLIENT: stat's text table in FILE, of $N
# connections between connwork's server (pid SERVER) on 127.0.0.1:PORT and
# its client (pid CLIENT), lost no event, has at most 60 lines and a row for
# each side's $N connections, with their exact bytes (100 a connection from
# the client, 200 from the server).
tcp_table() {
	local lines
	grep -q '^lost events: 0,' "$2" || fail "$1: events lost in the table's run: $(tail -n 1 "$2")"
	lines=$(wc -l <"$2")
	[ "$lines" -le 60 ] || { head -n 80 "$2" >&2; fail "$1: the table has $lines lines for $N connections a side, expected at most 60"; }
	grep -Eq "^ +\* tcp +127\.0\.0\.1:$3 <- connwork\[$5\] +$N +$((100 * N)) .* $N +$((200 * N)) .*  $N conns$" "$2" ||
		{ cat "$2" >&2; fail "$1: no server row '127.0.0.1:$3 <- connwork[$5]' of $N conns with the exact bytes"; }
	grep -Eq "^ +\* tcp +-> 127\.0\.0\.1:$3 connwork\[$4\] +$N +$((200 * N)) .* $N +$((100 * N)) .*  $N conns$" "$2" ||
		{ cat "$2" >&2; fail "$1: no client row '-> 127.0.0.1:$3 connwork[$4]' of $N conns with the exact bytes"; }
}
