#!/usr/bin/env bash
# The values of options: every number is read by one parser (decimal digits,
# a fraction only where the option takes one, within the option's range),
# lists have no empty item, a file name is not empty. Anything else is a usage
# error: exit 2, one line on stderr naming the option, nothing on stdout, and
# no capture. As root: -p of a zombie is refused as -p of a pid that does not
# exist is (exit 1, one line), not traced as a process with nothing to show.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

need_exe "$IPCPERF"
make_tmpdir

# refused WORD ARGS...: `ipcperf ARGS` is a usage error said in one line
# holding WORD (the option's name).
refused() {
	local word=$1
	shift
	run "$IPCPERF" "$@"
	expect_status 2 "ipcperf $*"
	[ "$(grep -c '' "$T/err")" -eq 1 ] || { show; fail "ipcperf $*: expected a one-line error"; }
	grep -q -- "$word" "$T/err" || { show; fail "ipcperf $*: the error does not name $word"; }
	[ ! -s "$T/out" ] || { show; fail "ipcperf $*: printed on stdout"; }
}

# Numbers: a blank, a sign, another base, an exponent, infinity, out of range.
for d in ' 5' '5 ' 0x10 1e300 inf nan +1 -1 0 0.0 .5 5. 1,5 31536001 99999999999999999999; do
	refused -d stat -q -d "$d" -- true
done
for n in ' 5' '5 ' 0x10 1e3 +5 -5 0 2147483648 2.5 ''; do
	refused --top stat -q --top "$n" -- true
done
# top: -d is the delay between frames (at least 0.1 s), -s a key, -n a count.
for d in ' 1' 0 0.05 -1 1e1 inf; do
	refused -d top -b -d "$d" -- true
done
for k in '' bytes, x B switch; do
	refused -s top -b -s "$k" -- true
done
for n in 0 -1 1.5 ' 2' 2147483648; do
	refused -n top -b -n "$n" -- true
done
refused "not a terminal" top -- true
refused "-a traces every process" top -b -a -- true
for n in ' 50' 50. 1e2 0x10 9 3600001; do
	refused -I stat -q -I "$n" -- true
done
for n in ' 8' 8. 0x8 +8 3 131072; do
	refused -m stat -q -m "$n" -- true
	refused -m check -m "$n"
done
for n in ' 3' 3.5 1e1 -1 86401; do
	refused --listen-linger stat -q --listen 0 --listen-linger "$n" -- true
done
for p in ' 9633' 0x10 9633.0 +9633 65536 127.0.0.1:1e3; do
	refused --listen stat -q --listen "$p" -- true
done

# Lists of ids and of counters: an empty item, a bad id.
# Blanks separate ids as commas do (below, as root); an empty item is still one.
for ids in 1,,2 1, ,1 , '' ' ' 1,' ,2' 0 +1 0x1 1e3 2147483648; do
	refused -p stat -q -p "$ids"
	refused -t trace -q -t "$ids"
done
refused -e stat -q -e task-clock,,page-faults -- true

# A file name that is empty names no file: a usage error, as for any option.
refused -o stat -q -o '' -- true
refused -o record -q -o '' -- true
refused -o report -i "$T/none" -o ''
refused -i report -i ''
refused --openmetrics stat -q --openmetrics '' -- true
refused --record stat -q --record '' -- true
refused --dot flows -q --dot '' -- true
refused --trace-out flows -q --trace-out '' -- true

# The valid forms of the same options still parse: `check` takes -m and runs
# without root; the others stop at the missing target, after their options.
run "$IPCPERF" check -m 8
[ "$status" -ne 2 ] || { show; fail "ipcperf check -m 8: a usage error"; }
for args in "-d 5" "-d 0.25" "-d 31536000" "-I 10" "--top 1" "--top 2147483647" "-m 1" \
	    "-m 65536" "--listen 0 --listen-linger 0" "--listen 127.0.0.1:9633" "-e task-clock,page-faults"; do
	# shellcheck disable=SC2086 # one word per option and value
	run "$IPCPERF" stat -q $args
	expect_status 2 "ipcperf stat $args (no target)"
	grep -q 'no target' "$T/err" || { show; fail "ipcperf stat $args: refused an option, not the missing target"; }
done

# stat --help: the common options first; the rest under "More options:".
run "$IPCPERF" stat --help
expect_status 0 "ipcperf stat --help"
common=$(sed '/^More options:$/,$d' "$T/out")
more=$(sed -n '/^More options:$/,$p' "$T/out")
[ -n "$more" ] || { show; fail "stat --help: no 'More options:' heading"; }
for o in '-p, --pid' '-d, --duration' '-I, --interval' '-j, --json' '-s, --syscalls' '-o, --output'; do
	grep -q -- "^  $o" <<<"$common" || { show; fail "stat --help: $o is not among the common options"; }
done
for o in --listen --scope --no-bpf --openmetrics --mmap-pages --record --interval-full; do
	grep -q -- "^ *\(-., \)\?$o" <<<"$more" || { show; fail "stat --help: $o is not under More options"; }
done
[ "$(grep -c '' <<<"$common")" -le 60 ] || { show; fail "stat --help: more than 60 lines before More options"; }

# ------------------------------------------------------------ as root
skip_unless_root "ipcperf stat -p (a zombie)"

# -p and -t take blanks between ids as perf does: -p "$(pidof nginx)".
sleep 30 &
s1=$!
sleep 30 &
s2=$!
trap 'kill "$s1" "$s2" 2>/dev/null; rm -rf "$T"' EXIT
for ids in "$s1 $s2" " $s1  $s2 " "$s1, $s2" "$(printf '%s\t%s\n' "$s1" "$s2")"; do
	run "$IPCPERF" stat -q -j -p "$ids" -d 0.2
	expect_status 0 "ipcperf stat -p '$ids'"
	[ "$(jq -c '[.processes[].pid] | sort' "$T/out")" = "[$s1,$s2]" ] ||
		{ show; fail "ipcperf stat -p '$ids': not the processes $s1 and $s2"; }
	run "$IPCPERF" stat -q -t "$ids" -d 0.2
	expect_status 0 "ipcperf stat -t '$ids'"
	grep -q "^ipcperf stat: tid $s1,$s2, " "$T/out" ||
		{ show; fail "ipcperf stat -t '$ids': not the threads $s1 and $s2"; }
done
kill "$s1" "$s2"

# strace's habits in trace: -f and -y/-yy (what trace does anyway), -T, and
# -tt/-ttt as --timestamps us/unix (while -t alone stays --tid).
run "$IPCPERF" trace -f -yy -tt -T -e trace=write -- sh -c 'echo hi'
expect_status 0 "ipcperf trace -f -yy -tt -T"
grep -Eq '^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} write\(1<[^>]*>, "hi\\n", 3\) = 3 <[0-9]+\.[0-9]{6}>$' "$T/out" ||
	{ show; fail "ipcperf trace -f -yy -tt -T: no write line as strace -f -yy -tt -T prints it"; }
run "$IPCPERF" trace -y -ttt -e trace=write -- sh -c 'echo hi'
expect_status 0 "ipcperf trace -y -ttt"
grep -Eq '^[0-9]{10}\.[0-9]{6} write\(1<[^>]*>, "hi\\n", 3\) = 3$' "$T/out" ||
	{ show; fail "ipcperf trace -y -ttt: no write line with seconds since 1970"; }

# A zombie: its parent (a shell that became sleep) never waits for it. The
# child outlives the shell's exec, which could otherwise reap it.
sh -c 'sleep 0.3 & echo $! >"$1"; exec sleep 60' sh "$T/zpid" &
parent=$!
trap 'kill "$parent" 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 200); do
	z=$(cat "$T/zpid" 2>/dev/null) && [ -n "$z" ] && [ "$(awk '{ print $3 }' "/proc/$z/stat" 2>/dev/null)" = Z ] && break
	sleep 0.05
done
[ "$(awk '{ print $3 }' "/proc/$z/stat")" = Z ] || fail "could not make a zombie (pid ${z:-?})"
for opt in -p -t; do
	run "$IPCPERF" stat -q $opt "$z"
	expect_status 1 "ipcperf stat $opt $z (a zombie)"
	[ "$(grep -c '' "$T/err")" -eq 1 ] || { show; fail "ipcperf stat $opt $z (a zombie): expected a one-line error"; }
	grep -q "$z is a zombie (exited, not reaped): nothing to trace" "$T/err" ||
		{ show; fail "ipcperf stat $opt $z: no word that it is a zombie"; }
	[ ! -s "$T/out" ] || { show; fail "ipcperf stat $opt $z (a zombie): printed a report"; }
done
exit 0
