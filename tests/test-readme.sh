#!/usr/bin/env bash
# The README's two commands (build and run the demo; run the test suite) work
# in either order on the same tree, and the suite starts on a tree that was
# configured in place: run for real in a scratch copy of the source tree.
# The first command is run as written but for two things: the dependencies
# are taken as installed (scripts/install-deps is CI's own first step), and
# make builds only what the demo runs. Of the suite, what decides whether it
# can start on the tree: its configure step (scripts/run-tests
# --configure-only). The configure runs share a cache (CONFIG_SITE), which
# changes how long they take, not what they decide.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

make_tmpdir
readme=$top_srcdir/README.md
[ -f "$readme" ] || fail "no $readme"

# The first two ```sh blocks of the README, one line each.
blocks=$(awk '/^```sh$/ { on = 1; next } /^```$/ { on = 0 } on' "$readme")
first=$(sed -n 1p <<<"$blocks")
second=$(sed -n 2p <<<"$blocks")
[ "$second" = "scripts/run-tests" ] || fail "the README's second command is '$second', not scripts/run-tests"
case $first in
scripts/install-deps\ \&\&\ *) ;;
*) fail "the README's first command does not start with scripts/install-deps: $first" ;;
esac
demo=${first#scripts/install-deps && }
grep -qF 'make -j"$(nproc)"' <<<"$demo" || fail "the README's first command has no make -j\"\$(nproc)\": $first"
demo=${demo/make -j\"\$(nproc)\"/make -j\"\$(nproc)\" cli/ipcperf tests/ipcwork}

skip_unless_root "the README's demo run"

src=$T/src
mkdir -p "$src"
if [ -d "$top_srcdir/.git" ] && command -v git >/dev/null; then
	(cd "$top_srcdir" && git ls-files --cached --others --exclude-standard -z |
		xargs -0 cp --parents -t "$src") || fail "cannot copy the source tree"
else
	cp -a "$top_srcdir/." "$src" || fail "cannot copy the source tree"
fi
chmod -R u+w "$src"
echo "cache_file=$T/config.cache" >"$T/site"
export CONFIG_SITE=$T/site
# The compiler run-tests configures with, for every configure here (a cache holds one).
export CC=gcc
unset CFLAGS CPPFLAGS LDFLAGS

# step WHAT CMD...: run CMD in the copy; a failure shows its output's end.
step() {
	local what=$1
	shift
	(cd "$src" && "$@") >"$T/step.log" 2>&1 || { tail -n 30 "$T/step.log" >&2; fail "$what"; }
}

# A tree configured in place (how the README once built): the suite starts all the same.
step "autoreconf" autoreconf -fi
step "./configure in place" ./configure -q
step "scripts/run-tests cannot start on a tree configured in place" scripts/run-tests --configure-only
# Then the README's commands on that tree: the demo after the suite, and the suite after the demo.
step "the README's first command failed after scripts/run-tests" bash -c "$demo"
grep -q 'pid .* ipcwork' "$T/step.log" || { tail -n 30 "$T/step.log" >&2; fail "the demo printed no ipcwork process"; }
step "scripts/run-tests cannot start after the README's first command" scripts/run-tests --configure-only
echo "test-readme: the README's commands work in either order"
