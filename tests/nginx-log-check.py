#!/usr/bin/env python3
"""ipcperf paths' requests against nginx's own access log.

    nginx-log-check.py PATHS.json ACCESS.log N

PATHS.json: `ipcperf paths --json --requests` of ab -> nginx -> backend;
ACCESS.log: nginx's log with the format '$pid $msec $request_time
$upstream_response_time'. A worker writes a request's line when it has sent
the answer, so its lines come in the order its requests ended: each worker's
requests (by the end of the nginx hop) are matched to its lines in order.
For each request it compares, in ms:
  - the nginx hop's span (from the end of its read of the request to the end
    of its write of the answer) with $request_time;
  - nginx's call to the backend (from the start of its write of the request
    to the end of its read of the answer: the backend hop's request, self
    and response time) with $upstream_response_time.
nginx reads its clock when a wait returns and logs in ms, each end cut to the
ms: a difference under 1 ms is the log's resolution. More is a worker's
turn that ran late after its wait (several requests served in one turn, or a
loaded machine: the log then gives some requests a $request_time shorter than
their $upstream_response_time), or a request taken for another: at least 95%
of the requests must be within 1 ms, on both counts. The backend's sleeps
differ from request to request (1 to 5 ms), so requests taken for others
would differ by more.
Prints one line per count, "nginx-log-check: ok ..." or what is wrong; exit 1.
"""
import json
import sys


def fail(msg):
    print("nginx-log-check: " + msg)
    sys.exit(1)


def summary(name, diffs):
    a = sorted(abs(d) for d in diffs)
    within = sum(1 for d in a if d < 1.0)
    print("nginx-log-check: %s: %d requests, |diff| p50 %.3f ms, p99 %.3f ms, max %.3f ms; "
          "%d within 1 ms" % (name, len(a), a[len(a) // 2], a[min(len(a) - 1, len(a) * 99 // 100)],
                              a[-1], within))
    return within * 100 >= 95 * len(a)


def main():
    doc = json.load(open(sys.argv[1]))
    want = int(sys.argv[3])
    lines = {}
    for line in open(sys.argv[2]):
        f = line.split()
        lines.setdefault(int(f[0]), []).append(f)
    reqs = {}
    for r in doc["request_list"]:
        reqs.setdefault(r["hops"][0]["pid"], []).append(r)
    if sum(map(len, lines.values())) != want or len(doc["request_list"]) != want:
        fail("%d log lines, %d requests, want %d" %
             (sum(map(len, lines.values())), len(doc["request_list"]), want))
    span, call = [], []
    for pid, rs in reqs.items():
        if len(rs) != len(lines.get(pid, [])):
            fail("nginx %d: %d requests, %d log lines" % (pid, len(rs), len(lines.get(pid, []))))
        rs.sort(key=lambda r: r["hops"][0]["end_ns"])
        for r, f in zip(rs, lines[pid]):
            h, up = r["hops"][0], [x for x in r["hops"] if x["parent"] == 0]
            if len(up) != 1 or "," in f[3] or f[3] == "-":
                fail("a request of nginx %d: %d calls, the log says '%s'" % (pid, len(up), f[3]))
            span.append((h["end_ns"] - h["start_ns"]) / 1e6 - float(f[2]) * 1000)
            call.append((up[0]["call_end_ns"] - up[0]["call_start_ns"]) / 1e6 - float(f[3]) * 1000)
    print("nginx-log-check: requests per worker: %s" %
          " ".join("%d" % len(rs) for _, rs in sorted(reqs.items())))
    ok = summary("nginx span - $request_time", span)
    ok = summary("upstream call - $upstream_response_time", call) and ok
    if not ok:
        fail("fewer than 95% of the requests within 1 ms of the log")
    print("nginx-log-check: ok")


if __name__ == "__main__":
    main()
