#!/usr/bin/env bash
# `make install DESTDIR=...`, then build examples/ against that install through
# pkg-config alone (no -I or -L into the source or build tree), and (as root)
# run them on the bundled workload, whose I/O is known exactly.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

top_srcdir=$(cd "$top_srcdir" && pwd) || fail "no top_srcdir"
top_builddir=$(cd "$top_builddir" && pwd) || fail "no top_builddir"
IPCWORK=$top_builddir/tests/ipcwork
need_exe "$IPCWORK"
command -v pkg-config >/dev/null || fail "pkg-config is not installed: apt-get install pkg-config"
make_tmpdir
dest=$T/dest

# ------------------------------------------------------------ install
# An enclosing `make check` must not hand its jobserver or flags to this make.
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
	make -C "$top_builddir" install DESTDIR="$dest" >"$T/install.log" 2>&1; then
	tail -n 30 "$T/install.log" >&2
	fail "make install DESTDIR=$dest failed"
fi

# Exactly one of each, all under DESTDIR.
find_one() {
	local what=$1 found n
	shift
	found=$(find "$dest" "$@" -print)
	n=$(printf '%s' "$found" | grep -c '')
	[ "$n" -eq 1 ] || fail "install: expected one $what under DESTDIR, found $n: ${found:-none}"
	printf '%s\n' "$found"
}
pc=$(find_one libipcperf.pc -name libipcperf.pc) || exit 1
header=$(find_one ipcperf/ipcperf.h -path '*/include/ipcperf/ipcperf.h') || exit 1
so=$(find_one libipcperf.so -name libipcperf.so) || exit 1
find_one 'ipcperf binary' -path '*/bin/ipcperf' >/dev/null || exit 1
find_one 'bash completion' -path '*/bash-completion/completions/ipcperf' >/dev/null || exit 1
libdir=$(dirname "$so")
[ -L "$so" ] || fail "install: $so should be a symlink to the versioned library"

# ------------------------------------------------------------ pkg-config
# The .pc says prefix=/usr/local (or whatever configure got); the sysroot puts
# every -I and -L it yields under DESTDIR.
PKG_CONFIG_PATH="$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export PKG_CONFIG_PATH
export PKG_CONFIG_SYSROOT_DIR=$dest
unset CPATH C_INCLUDE_PATH LIBRARY_PATH
pcdir=$(pkg-config --variable=pcfiledir libipcperf) || fail "pkg-config does not find libipcperf"
[ "$pcdir" = "$(dirname "$pc")" ] || fail "pkg-config found libipcperf in $pcdir, not in DESTDIR"
version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$top_builddir/config.h")
[ "$(pkg-config --modversion libipcperf)" = "$version" ] ||
	fail "pkg-config --modversion libipcperf: '$(pkg-config --modversion libipcperf)', expected '$version'"
flags=$(pkg-config --cflags --libs libipcperf) || fail "pkg-config --cflags --libs libipcperf failed"
case " $flags " in
*" -I$(dirname "$(dirname "$header")") "*) ;;
*) fail "pkg-config --cflags does not point at the installed header directory: $flags" ;;
esac
case " $flags " in
*" -L$libdir "*) ;;
*) fail "pkg-config --libs does not point at the installed library: $flags" ;;
esac

# ------------------------------------------------------------ build the examples
# In a copy: the source tree may be read-only (distcheck). With the compiler
# the library was built with, and its sanitizers if any: a program that loads
# an ASan-built library must be built with ASan too. No -I or -L, though.
mkdir "$T/ex" || fail "mkdir"
cp "$top_srcdir"/examples/*.c "$top_srcdir/examples/Makefile" "$T/ex/" || fail "cannot copy examples/"
makevar() { sed -n "s/^$1 = //p" "$top_builddir/Makefile" | head -n 1; }
build_cc=$(makevar CC)
# shellcheck disable=SC2046
sanitize=$(printf '%s\n' $(makevar CFLAGS) $(makevar LDFLAGS) |
	grep -E '^-f(no-)?(sanitize|omit-frame-pointer)' | sort -u | tr '\n' ' ')
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
	make -C "$T/ex" CC="${build_cc:-cc}" CFLAGS="-O2 -g -Werror $sanitize" >"$T/build.log" 2>&1; then
	cat "$T/build.log" >&2
	fail "the examples do not build against the installed library"
fi
# Paths inside the DESTDIR are the install's (under make distcheck the
# prefix itself lies in the build tree): only the others count.
if sed "s|$T/dest[^ ]*||g" "$T/build.log" | grep -F -e "$top_srcdir/" -e "$top_builddir/" >&2; then
	fail "the examples' build used the source or build tree (above), not only the install"
fi
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for ex in fd-logger embed-loop; do
	[ -x "$T/ex/$ex" ] || fail "examples/Makefile did not build $ex"
	ldd "$T/ex/$ex" | grep -F "libipcperf.so" | grep -qF "$libdir/" ||
		{ ldd "$T/ex/$ex" >&2; fail "$ex does not load libipcperf from DESTDIR"; }
done

# ------------------------------------------------------------ run them, as root
skip_unless_root "running the examples"

# sum FIELD [FILTER...]: sum of FIELD=N over the lines of $T/out matching every FILTER word.
sum() {
	local field=$1
	shift
	awk -v field="$field" -v filters="$*" '
		BEGIN { nf = split(filters, want, " ") }
		{
			ok = 1
			for (i = 1; i <= nf; i++) {
				hit = 0
				for (k = 1; k <= NF; k++) if ($k == want[i]) hit = 1
				if (!hit) ok = 0
			}
			if (!ok) next
			for (k = 1; k <= NF; k++) if (index($k, field "=") == 1) s += substr($k, length(field) + 2)
		}
		END { print s + 0 }' "$T/out"
}

# expect WHAT GOT WANT
expect() {
	[ "$2" = "$3" ] && return 0
	show
	fail "$1: got '$2', expected '$3'"
}

# wait_for FILE PATTERN: until FILE holds a line matching PATTERN (10 s at most).
wait_for() {
	for _ in $(seq 100); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# fd-logger -- CMD: ipcwork pipe writes 9100 bytes into fd 11 (W and its
# thread T 15 writes, its child G 3) and R reads them from fd 10 in 11 reads.
run timeout 60 "$T/ex/fd-logger" -i 200 -- "$IPCWORK" pipe
expect_status 0 "fd-logger -- ipcwork pipe"
expect "fd-logger: write bytes on fd 11 (total lines)" "$(sum write_bytes total fd=11)" 9100
expect "fd-logger: writes on fd 11 (total lines)" "$(sum write_ops total fd=11)" 18
expect "fd-logger: read bytes on fd 10 (total lines)" "$(sum read_bytes total fd=10)" 9100
expect "fd-logger: reads on fd 10 (total lines)" "$(sum read_ops total fd=10)" 11
expect "fd-logger: write bytes on fd 11 (interval lines)" \
	"$(( $(sum write_bytes fd=11) - $(sum write_bytes total fd=11) ))" 9100
expect "fd-logger: processes that wrote fd 11" \
	"$(grep '^total .* fd=11 ' "$T/out" | grep -vc ' write_ops=0 ')" 2
grep -qx 'lost=0' "$T/out" || { show; fail "fd-logger: expected 'lost=0' as the last word"; }

# fd-logger -p PID: attach to ipcwork threads, whose 3 threads then write 2, 4
# and 6 buffers of 64 bytes to their own /dev/null fd, opened before we attach.
mkfifo "$T/go" || fail "mkfifo"
# start_threads: ipcwork threads in the background ($wpid), held until the
# go byte comes through the fifo $T/go (open on fd 7), what it says in
# $T/ready. The files a background job writes are emptied first: waiting
# for a line in them must not find the previous run's.
start_threads() {
	: >"$T/ready" || fail "cannot write $T"
	: >"$T/out"
	: >"$T/err"
	"$IPCWORK" threads <"$T/go" >"$T/ready" 2>&1 &
	wpid=$!
	exec 7>"$T/go"
	wait_for "$T/ready" '^ready' || { exec 7>&-; fail "ipcwork threads did not get ready"; }
}

# go_threads: the go byte to ipcwork threads, which must end well; the exit
# status of the example attached to it ($lpid) in $status.
go_threads() {
	printf g >&7
	exec 7>&-
	wait "$wpid" || fail "ipcwork threads failed: $(cat "$T/ready")"
	status=0
	wait "$lpid" || status=$?
	[ "$status" -eq 0 ] || echo "ipcwork threads (pid $wpid) said: $(cat "$T/ready")" >&2
}

start_threads
timeout 60 "$T/ex/fd-logger" -p "$wpid" >"$T/out" 2>"$T/err" &
lpid=$!
if ! wait_for "$T/err" 'tracing'; then
	exec 7>&-
	kill "$lpid" 2>/dev/null
	show
	fail "fd-logger -p did not start"
fi
go_threads
expect_status 0 "fd-logger -p PID (it ends when the process exits)"
expect "fd-logger -p: bytes per fd" \
	"$(grep '^total ' "$T/out" | grep -v ' write_ops=0 ' | grep -o 'write_bytes=[0-9]*' |
		cut -d= -f2 | sort -n | tr '\n' ' ')" "128 256 384 "
expect "fd-logger -p: objects of the fds written" \
	"$(grep '^total ' "$T/out" | grep -v ' write_ops=0 ' | grep -c ' obj=/dev/null$')" 3

# embed-loop -- CMD: the command's exit status comes back; counts by kind.
run timeout 60 "$T/ex/embed-loop" -i 50 -- "$IPCWORK" pipe --exit 4 </dev/null
expect_status 4 "embed-loop -- ipcwork pipe --exit 4"
grep '^summary ' "$T/out" >"$T/summary" || { show; fail "embed-loop: no summary line"; }
cp "$T/summary" "$T/out"
# 18 writes of 9100 bytes into the data pipe, and the go byte.
expect "embed-loop: writes" "$(sum writes)" 19
expect "embed-loop: bytes written" "$(sum write_bytes)" 9101
# R, W, thread T, G; one exec; P0, R, W, T and G exit. A sanitized ipcwork
# has one more task: LeakSanitizer's, cloned when P0 exits.
expect "embed-loop: execs" "$(sum execs)" 1
if [ -z "$sanitize" ]; then
	expect "embed-loop: forks" "$(sum forks)" 4
	expect "embed-loop: exits" "$(sum exits)" 5
else
	if [ "$(sum forks)" -lt 4 ] || [ "$(sum exits)" -lt 5 ]; then
		show
		fail "embed-loop: $(sum forks) forks and $(sum exits) exits, expected at least 4 and 5"
	fi
fi
expect "embed-loop: lost" "$(sum lost)" 0

# embed-loop -p PID, driven through its stdin: a status line on request.
start_threads
mkfifo "$T/cmd" || fail "mkfifo"
timeout 60 "$T/ex/embed-loop" -i 60000 -p "$wpid" <"$T/cmd" >"$T/out" 2>"$T/err" &
lpid=$!
exec 8>"$T/cmd"
if ! wait_for "$T/err" 'tracing'; then
	exec 7>&- 8>&-
	kill "$lpid" 2>/dev/null
	show
	fail "embed-loop -p did not start"
fi
printf 's\n' >&8
if ! wait_for "$T/out" '^status '; then
	exec 7>&- 8>&-
	show
	fail "embed-loop: no status line after 's' on its stdin"
fi
go_threads
exec 8>&-
expect_status 0 "embed-loop -p PID (it ends when the process exits)"
grep '^summary ' "$T/out" >"$T/summary" || { show; fail "embed-loop -p: no summary line"; }
cp "$T/summary" "$T/out"
expect "embed-loop -p: writes" "$(sum writes)" 12
expect "embed-loop -p: bytes written" "$(sum write_bytes)" 768
if [ -z "$sanitize" ]; then
	expect "embed-loop -p: exits (3 threads and the main one)" "$(sum exits)" 4
fi

exit 0
