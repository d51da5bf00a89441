#!/usr/bin/env bash
# stat --listen 0 -q: the kernel picks the port, and the line that says it
# is still on standard error under -q (nothing else says the port); the URL
# it names answers with the metrics, and -q keeps the live status line out.
# Needs root.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

need_exe "$IPCPERF"
skip_unless_root "a live stat serving its metrics"
command -v curl >/dev/null || fail "curl is not installed (scripts/install-deps installs it)"
make_tmpdir
ipp=
trap 'kill $ipp 2>/dev/null; rm -rf "$T"' EXIT

"$IPCPERF" stat -q --scope task --listen 0 -o "$T/report" -- sleep 30 2>"$T/err" &
ipp=$!
for _ in $(seq 300); do grep -q 'serving metrics at' "$T/err" && break; sleep 0.1; done
url=$(sed -n 's|^ipcperf: serving metrics at \(http://127\.0\.0\.1:[1-9][0-9]*/metrics\)$|\1|p' "$T/err")
[ -n "$url" ] || { cat "$T/err" >&2; fail "stat --listen 0 -q did not say its port"; }
curl -sf --max-time 10 "$url" >"$T/metrics" || fail "nothing served at $url"
grep -q '^ipcperf_' "$T/metrics" || { head "$T/metrics" >&2; fail "no ipcperf_ metric at $url"; }
kill -INT $ipp
wait $ipp
ipp=
[ "$(grep -vc 'serving metrics at' "$T/err")" = 0 ] || { cat "$T/err" >&2; fail "-q let more than the port's line out"; }
exit 0
