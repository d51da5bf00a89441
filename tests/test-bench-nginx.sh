#!/usr/bin/env bash
# bench/overhead's nginx row (issues 40 and 41): ab -c 20 against an nginx
# worker proxying over TCP to a server block of its own, the worker
# untraced, under ipcperf stat, flows and paths -p, and under the BPF floor.
# One round of 2000 requests: every row has its times; each ipcperf row saw
# the connections from ab (paths: the 2000 requests it read from ab, not traced, exactly; stat and
# flows: 2000 to 2019 connections, as ab makes a few more that carry no
# request: up to 18 more seen with -c 20), says its lost events and its CPU per connection; the three
# verdicts give their figures. Then
# bench/nginx-lib.sh, which bench/perconn shares: an nginx whose worker
# (nobody) cannot read the file it serves answers 403, and ab counts those
# as complete: ng_start must refuse it, and bench/perconn's nginx row must
# serve its file. Needs root, nginx, ab, jq, clang and libbpf-dev
# (scripts/install-deps installs them).
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

skip_unless_root "bench/overhead's nginx row traces an nginx worker"
need_exe "$IPCPERF"
for exe in nginx ab jq clang; do
	command -v $exe >/dev/null || fail "$exe is missing (scripts/install-deps installs it)"
done
. "$top_srcdir/bench/nginx-lib.sh"
make_tmpdir
trap 'ng_stop; rm -rf "$T"' EXIT
N=2000

run timeout 600 "$top_srcdir/bench/overhead" --workload nginx --rounds 1 --nginx-n $N \
	--ipcperf "$IPCPERF" --builddir "$T/bin"
expect_status 0 "bench/overhead --workload nginx"

# row LABEL: the table's figures after LABEL, "" when there is no such row.
row() {
	awk -v l="$1" 'index($0, l " ") == 1 && $0 !~ /^round/ { print substr($0, length(l) + 1); exit }' "$T/out"
}
num='^[0-9]+(\.[0-9]+)?$'
for label in "untraced" "ipcperf stat -p WORKER" "ipcperf flows -p WORKER" \
	"ipcperf paths -p WORKER" "BPF floor: 2 empty programs"; do
	r=$(row "$label")
	[ -n "$r" ] || { show; fail "no row '$label'"; }
	# min ms, med ms, med /s, min x, med x, lost, conns, us min, us med
	read -r t_min t_med rps _ x_med lost conns us_min us_med <<<"$r"
	[[ $t_min =~ $num && $t_med =~ $num && $rps =~ $num && $x_med =~ ^[0-9.]+x$ ]] ||
		{ show; fail "'$label': not a time: $r"; }
	case $label in ipcperf*) ;; *) continue ;; esac
	# ab makes from N to N + 19 connections (a few more, with no request):
	# paths counts the requests it read from ab (not traced), exactly N
	case $label in
	*paths*) lo=100.0 hi=100.0 ;;
	*) lo=100.0 hi=$(awk -v n=$N 'BEGIN { printf "%.1f", 100 * (n + 19) / n }') ;;
	esac
	awk -v c="${conns%\%}" -v lo=$lo -v hi=$hi 'BEGIN { exit !(c >= lo && c <= hi) }' ||
		{ show; fail "'$label' saw $conns of the $N connections (from $lo% to $hi% expected)"; }
	[[ $lost =~ ^[0-9]+$ && $us_min =~ $num && $us_med =~ $num ]] ||
		{ show; fail "'$label': lost or CPU per connection missing: $r"; }
done
for v in "issue 41 (nginx): ipcperf stat -p WORKER" "issue 41 (nginx): ipcperf flows -p WORKER" \
	"issue 40 (nginx): ipcperf paths -p WORKER"; do
	re=${v//(/\\(}
	grep -Eq "^verdict: ${re//)/\\)}: [0-9.]+x untraced \(medians\), [0-9.]+ us CPU per connection, lost [0-9]+: (PASS|FAIL|NOT SHOWN)" "$T/out" ||
		{ show; fail "no verdict '$v' with its figures"; }
done
grep '^verdict' "$T/out" | sed 's/^/test-bench-nginx: /'

# A worker that cannot enter the directory of the file answers 403.
mkdir -p "$T/ng/html"
echo hello >"$T/ng/html/f"
chmod 700 "$T/ng"
port=$(ng_port)
ng_conf "$T/ng" "listen 127.0.0.1:$port; root $T/ng/html;"
if ng_start "$T/ng" "http://127.0.0.1:$port/f" 6; then
	ng_stop
	fail "ng_start took a worker that cannot read its file for a server"
fi
case $ng_err in *"Non-2xx"*) ;; *) fail "ng_start: not the 403 said: $ng_err" ;; esac
chmod 755 "$T" "$T/ng"
ng_start "$T/ng" "http://127.0.0.1:$port/f" 6 || fail "ng_start: $ng_err"
# ab gives its time to the ms: a request alone often takes "0.000 seconds"
ab -q -n 1 "http://127.0.0.1:$port/f" >"$T/ab1" 2>&1
ab_check "$T/ab1" 1 6 || fail "ab_check refused one request: $ab_err"
ng_stop

run timeout 300 "$top_srcdir/bench/perconn" --rows nginx --rounds 1 --conns 1000 --ipcperf "$IPCPERF"
expect_status 0 "bench/perconn --rows nginx"
grep -Eq '^  round 1: untraced [0-9]+/s \| ipcperf stat [0-9]+/s [0-9.]+ us/conn$' "$T/out" ||
	{ show; fail "bench/perconn: no round of its nginx row"; }
echo "test-bench-nginx: bench/perconn: $(grep '^  round 1' "$T/out" | sed 's/^ *//')"
