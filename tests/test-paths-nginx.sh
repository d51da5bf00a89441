#!/usr/bin/env bash
# Request paths on real software: Debian's nginx as a reverse proxy in front
# of a small python3 backend (tests/sleephttp.py: it sleeps 1 to 5 ms per
# request, in turn), ab as the client, every process traced by
# `ipcperf paths -p WORKERS,BACKEND -- ab ...`. Two set-ups:
#  - one worker, a connection to the backend per request: nginx starts a
#    non-blocking connect in the turn it reads a request, and writes the
#    request in a later turn, often that of another request;
#  - two workers, ab -k, and a pool of kept upstream connections (keepalive).
# For each: N requests, every one a path of the shape "ab -> nginx ->
# python3", none left unattributed, no event lost; and each request against
# nginx's own access log (tests/nginx-log-check.py): the nginx hop's span
# against $request_time, its call to the backend against
# $upstream_response_time, at least 95% within 1 ms (the log's resolution).
# Needs root, nginx, ab, python3, jq and ss (scripts/install-deps installs them).
set -u
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"

skip_unless_root "tracing nginx, its backend and ab"
need_exe "$IPCPERF"
for exe in nginx ab python3 jq ss; do
	command -v $exe >/dev/null || fail "$exe is missing (scripts/install-deps installs it)"
done
make_tmpdir
# nginx's workers run as nobody: they go through $T to their temporary files
chmod 755 "$T"
NGINX=
BACKEND=
stop() {
	[ -z "$NGINX" ] || { kill -QUIT "$NGINX" 2>/dev/null; wait "$NGINX" 2>/dev/null; }
	[ -z "$BACKEND" ] || { kill "$BACKEND" 2>/dev/null; wait "$BACKEND" 2>/dev/null; }
	NGINX= BACKEND=
}
trap 'stop; rm -rf "$T"' EXIT

N=300

# backend [keepalive]: start tests/sleephttp.py; its port in $BPORT.
backend() {
	rm -f "$T/backend.info"
	python3 "$top_srcdir/tests/sleephttp.py" "$T/backend.info" "$@" &
	BACKEND=$!
	filled "$T/backend.info"
	BPORT=$(info "$T/backend.info" port)
	[ -n "$BPORT" ] || fail "the backend did not start"
	[ "$(info "$T/backend.info" pid)" = "$BACKEND" ] || fail "the backend is not pid $BACKEND"
}

# conf WORKERS PORT UPSTREAM LOCATION: nginx's configuration, in $T.
conf() {
	cat >"$T/nginx.conf" <<-EOF
	worker_processes $1;
	daemon off;
	pid $T/nginx.pid;
	error_log $T/error.log;
	events { worker_connections 256; }
	http {
	    log_format paths '\$pid \$msec \$request_time \$upstream_response_time';
	    access_log $T/access.log paths;
	    client_body_temp_path $T/body; proxy_temp_path $T/proxy;
	    fastcgi_temp_path $T/fastcgi; uwsgi_temp_path $T/uwsgi; scgi_temp_path $T/scgi;
	    $3
	    server { listen 127.0.0.1:$2; location / { $4 } }
	}
	EOF
}

# proxy WORKERS UPSTREAM LOCATION: start nginx on a free port ($PORT), its
# workers in $WORKERS (comma separated).
proxy() {
	local try i
	for try in 1 2 3; do
		PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		conf "$1" "$PORT" "$2" "$3"
		rm -f "$T/access.log"
		nginx -e "$T/error.log" -p "$T" -c "$T/nginx.conf" &
		NGINX=$!
		for i in $(seq 100); do
			kill -0 "$NGINX" 2>/dev/null || break
			WORKERS=$(pgrep -d, -P "$NGINX")
			[ "$(echo "$WORKERS" | tr , '\n' | grep -c .)" = "$1" ] &&
				ss -Hltn "sport = :$PORT" | grep -q . && return 0
			sleep 0.1
		done
		kill -QUIT "$NGINX" 2>/dev/null
		wait "$NGINX" 2>/dev/null
		NGINX=
	done
	cat "$T/error.log" >&2
	fail "nginx did not start"
}

# check WHAT AB-ARGS...: trace ab's N requests through nginx to the backend.
check() {
	local what=$1 J=$T/paths.json
	shift
	run timeout 120 "$IPCPERF" paths --json --requests -q -o "$J" -p "$WORKERS,$BACKEND" -- \
		ab -q -n $N -c 4 "$@" "http://127.0.0.1:$PORT/"
	expect_status 0 "$what: ipcperf paths"
	grep -q "^Complete requests: *$N$" "$T/out" && grep -q "^Failed requests: *0$" "$T/out" ||
		{ show; fail "$what: ab did not complete $N requests"; }
	stop
	[ "$(jq .lost_events "$J")" = 0 ] || fail "$what: events were lost: $(jq .lost_events "$J")"
	[ "$(jq .requests "$J")" = $N ] ||
		fail "$what: $(jq .requests "$J") requests, want $N; unattributed $(jq -c .unattributed "$J")"
	[ "$(jq '.unattributed | add' "$J")" = 0 ] ||
		fail "$what: requests not attributed: $(jq -c .unattributed "$J")"
	[ "$(jq -c '[.shapes[] | [.shape, .count]]' "$J")" = "[[\"ab -> nginx -> python3\",$N]]" ] ||
		fail "$what: shapes $(jq -c '[.shapes[] | [.shape, .count]]' "$J")"
	python3 "$top_srcdir/tests/nginx-log-check.py" "$J" "$T/access.log" $N >"$T/check" 2>&1 ||
		{ cat "$T/check" >&2; fail "$what: ipcperf and nginx's log disagree"; }
	sed "s/^nginx-log-check: /test-paths-nginx: $what: /" "$T/check"
}

backend
proxy 1 "" "proxy_pass http://127.0.0.1:$BPORT;"
check "1 worker, a connection per request"

backend keepalive
proxy 2 "upstream backend { server 127.0.0.1:$BPORT; keepalive 8; }" \
	"proxy_pass http://backend; proxy_http_version 1.1; proxy_set_header Connection \"\";"
check "2 workers, kept connections" -k
