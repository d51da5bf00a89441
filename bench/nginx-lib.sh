# bench/nginx-lib.sh: nginx, ab and a process's CPU for bench/overhead and
# bench/perconn (sourced by both; see bench/README.md).
#
# Debian's nginx, run as root with a configuration of its own in a directory
# of the caller's: one worker, not a daemon, its pid file and error log in
# that directory, no access log. The worker runs as nobody: a server that
# serves files needs every directory above them open to it (mode 755).

# ng_port: a random TCP port of 127.0.0.1 that nothing listens on.
ng_port() {
	local p
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		p=$((20000 + RANDOM % 10000))
		if ! command -v ss >/dev/null 2>&1 || ! ss -Hltn "sport = :$p" | grep -q .; then
			echo "$p"
			return 0
		fi
	done
	echo "$p"
}

# ng_conf DIR SERVER...: DIR/nginx.conf, a server block for each SERVER (the
# block's inside: "listen 127.0.0.1:PORT; ...").
ng_conf() {
	local d=$1 s t
	shift
	mkdir -p "$d/tmp" || return 1
	{
		printf '%s\n' "worker_processes 1;" "daemon off;" "pid $d/nginx.pid;" \
			"error_log $d/error.log;" "events { worker_connections 1024; }" "http {" \
			"	access_log off;"
		for t in client_body proxy fastcgi uwsgi scgi; do
			printf '\t%s_temp_path %s;\n' "$t" "$d/tmp"
		done
		for s in "$@"; do
			printf '\tserver { %s }\n' "$s"
		done
		echo "}"
	} >"$d/nginx.conf"
}

# ng_start DIR URL LENGTH: nginx -p DIR -c DIR/nginx.conf in the background;
# sets ng_pid (the master) and ng_worker once URL answers 200 with a body of
# LENGTH bytes. @return 1 (nginx stopped, ng_err why) when it does not within 5 s.
ng_start() {
	local d=$1 url=$2 len=$3
	ng_err= ng_worker= ab_err=
	nginx -e "$d/error.log" -p "$d" -c "$d/nginx.conf" 2>"$d/start.err" </dev/null &
	ng_pid=$!
	for _ in $(seq 100); do
		kill -0 "$ng_pid" 2>/dev/null || break
		ng_worker=$(pgrep -P "$ng_pid" | head -1)
		if [ -n "$ng_worker" ] && ab -q -n 1 "$url" >"$d/probe" 2>&1 && ab_check "$d/probe" 1 "$len"; then
			return 0
		fi
		sleep 0.05
	done
	ng_err="nginx did not answer${ab_err:+ as it should: $ab_err}: $(cat "$d/start.err" \
		"$d/error.log" 2>/dev/null | grep -v '^$' | head -2 | tr '\n' ' ')"
	ng_stop
	return 1
}

# ng_stop: ends the nginx of ng_start, if any.
ng_stop() {
	[ -n "${ng_pid:-}" ] || return 0
	kill -QUIT "$ng_pid" 2>/dev/null
	wait "$ng_pid" 2>/dev/null
	ng_pid= ng_worker=
}

# ab_check FILE N LENGTH: ab's output in FILE says N requests complete, none
# failed, none answered other than 2xx, each body LENGTH bytes (ab counts a 403
# as complete, not failed). Sets ab_ns (its "Time taken for tests") and
# ab_rps; @return 1 (ab_err why) when not.
ab_check() {
	local f=$1 n=$2 len=$3
	ab_ns= ab_rps= ab_err=
	if ! grep -q "^Complete requests: *$n\$" "$f" || ! grep -q '^Failed requests: *0$' "$f"; then
		ab_err="ab: $(grep -E '^(Complete|Failed) requests|^apr_|connect' "$f" | head -3 | tr -s ' \n' ' ')"
		return 1
	fi
	if grep -q '^Non-2xx responses' "$f" || ! grep -q "^Document Length: *$len bytes" "$f"; then
		ab_err="ab: not the $len-byte 200 answer: $(grep -E '^(Non-2xx|Document Length)' "$f" | tr -s ' \n' ' ')"
		return 1
	fi
	# to the ms: a request alone may take "0.000 seconds"
	ab_ns=$(awk '/^Time taken for tests:/ { printf "%.0f", $5 * 1e9 }' "$f")
	ab_rps=$(awk '/^Requests per second:/ { printf "%.0f", $4 }' "$f")
	[ -n "$ab_ns" ] || { ab_err="ab: no time taken"; return 1; }
}

# cpu_ticks PID: the process's own user + system time, in clock ticks.
cpu_ticks() {
	awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null
}
