#!/usr/bin/env bash
# The outputs of ipcperf paths for other tools, each read by a reader that is
# not ours, on tests/pathwork (C clients -> proxy -> backend, N requests):
#  - --otlp FILE: decoded and verified with the protobufjs schema of
#    opentelemetry-proto shipped in npm's @opentelemetry/otlp-transformer
#    0.52.1 (tests/otlp-check.js): N traces exactly, 3 resources (client,
#    proxy, backend) with service.name and process.pid, each trace the chain
#    client(CLIENT) -> proxy(SERVER) -> proxy(CLIENT) -> backend(SERVER) by
#    its parent links, the attributes there, every time within the run's
#    wall clock;
#  - --otlp-endpoint URL: a receiver (python3 http.server) gets one POST of
#    application/json on the URL's path, equal byte for byte to the FILE;
#    an unreachable collector, or one that answers 500, is one line naming
#    the URL and the error, exit 1, and the files are still written;
#  - --perfetto FILE: read with python3's json (tests/perfetto-check.py):
#    each event has its phase's fields, slices nest per track (an event loop
#    serving two requests at once gets a second track of its thread), each
#    flow start has one finish, inside slices, and N server slices in each
#    serving process.
# Over a thread per connection on unix sockets and an epoll loop on TCP.
# Needs root, node, npm (the schema: scripts/install-deps puts it in
# tests/npm; else npm installs it into the build tree) and python3.
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/paths-lib.sh"
paths_setup "tracing a client, a proxy and a backend"
command -v python3 >/dev/null || fail "python3 is missing"
otlp_schema

N=30

# A collector: saves each POST's body into $T/post.N and its path and
# Content-Type into $T/posts; answers 200, or 500 on /fail. Its port in $T/port.
cat >"$T/recv.py" <<'PY'
import http.server, sys
d = sys.argv[1]
n = 0
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        global n
        body = self.rfile.read(int(self.headers["Content-Length"]))
        n += 1
        open("%s/post.%d" % (d, n), "wb").write(body)
        open(d + "/posts", "a").write("%s %s\n" % (self.path, self.headers["Content-Type"]))
        self.send_response(500 if self.path == "/fail" else 200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
open(d + "/port.tmp", "w").write(str(s.server_address[1]))
__import__("os").rename(d + "/port.tmp", d + "/port")
s.serve_forever()
PY
python3 "$T/recv.py" "$T" &
RECV=$!
trap 'kill $RECV 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.1; done
[ -s "$T/port" ] || fail "the receiver did not start"
URL=http://127.0.0.1:$(cat "$T/port")/v1/traces

now_ns() { date +%s%N; }

# check MODE TRANSPORT: one run with every output, each read.
check() {
	local t0 t1 transport=$2
	MODE="$1/$2"
	rm -f "$T"/post.* "$T/posts"
	t0=$(now_ns)
	run timeout 120 "$IPCPERF" paths -q -o "$T/paths.txt" --otlp "$T/otlp.json" \
		--otlp-endpoint "$URL" --perfetto "$T/perfetto.json" -- \
		"$PATHWORK" -m "$1" -t "$2" -n $N -c 2 -x 1 -y 2
	t1=$(now_ns)
	expect_status 0 "$MODE: ipcperf paths"
	grep -q "^client -> proxy -> backend: $N requests$" "$T/paths.txt" ||
		{ cat "$T/paths.txt" >&2; fail "$MODE: not $N requests of the one shape"; }
	node "$top_srcdir/tests/otlp-check.js" "$T/otlp.json" $N "$2" "$t0" "$t1" >"$T/check" 2>&1 ||
		fail "$MODE: --otlp: $(cat "$T/check")"
	cat "$T/check"
	[ "$(cat "$T/posts" 2>/dev/null)" = "/v1/traces application/json" ] ||
		fail "$MODE: the collector got: $(cat "$T/posts" 2>/dev/null)"
	set -- "$T"/post.*
	[ $# = 1 ] || fail "$MODE: $# POSTs, want 1"
	cmp -s "$1" "$T/otlp.json" || fail "$MODE: the POST's body differs from --otlp's file"
	node "$top_srcdir/tests/otlp-check.js" "$1" $N "$transport" "$t0" "$t1" >"$T/check" 2>&1 ||
		fail "$MODE: --otlp-endpoint: $(cat "$T/check")"
	python3 "$top_srcdir/tests/perfetto-check.py" "$T/perfetto.json" $N >"$T/check" 2>&1 ||
		fail "$MODE: --perfetto: $(cat "$T/check")"
	cat "$T/check"
}

check thread unix
check epoll tcp

# fails URL WHAT: a POST that fails is one line naming URL, exit 1; the files are written.
fails() {
	rm -f "$T/otlp.json" "$T/perfetto.json"
	run timeout 120 "$IPCPERF" paths -q -o "$T/paths.txt" --otlp "$T/otlp.json" \
		--otlp-endpoint "$1" --perfetto "$T/perfetto.json" -- "$PATHWORK" -n 4 -c 1 -x 0.2 -y 0.2
	expect_status 1 "$2"
	[ "$(wc -l <"$T/err")" = 1 ] && grep -qF "cannot POST the traces to $1: $3" "$T/err" ||
		{ show; fail "$2: not the one line that names $1 and '$3'"; }
	node "$top_srcdir/tests/otlp-check.js" "$T/otlp.json" 4 unix 0 99999999999999999999 >"$T/check" 2>&1 ||
		fail "$2: --otlp: $(cat "$T/check")"
	python3 "$top_srcdir/tests/perfetto-check.py" "$T/perfetto.json" 4 >"$T/check" 2>&1 ||
		fail "$2: --perfetto: $(cat "$T/check")"
	echo "test-paths-out: $2: $(cat "$T/err")"
}

fails http://127.0.0.1:1/v1/traces "a collector not listening" "Failed to connect"
fails "http://127.0.0.1:$(cat "$T/port")/fail" "a collector that answers 500" \
	"the collector answered HTTP 500"

# A URL that is not http(s): a usage error, before any run.
run "$IPCPERF" paths --otlp-endpoint 127.0.0.1:4318 -- true
expect_status 2 "--otlp-endpoint without http://"
grep -q "invalid URL '127.0.0.1:4318' for --otlp-endpoint" "$T/err" || { show; fail "the URL's error"; }
