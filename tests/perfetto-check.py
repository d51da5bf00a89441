#!/usr/bin/env python3
"""An independent reader of `ipcperf paths --perfetto` (Chrome trace-event JSON).

    perfetto-check.py FILE N

Checks what ui.perfetto.dev and chrome://tracing need of each event: the
fields its phase requires (M: name, pid, tid and args.name; X: name, ts, dur,
pid, tid; s and f: id, cat, name, pid, tid, ts, and "bp": "e" on f); that the
complete slices of one track nest (none overlaps another without holding it);
that every flow start has one finish of the same id, cat and name, each at a
time inside a slice of its track; that every track and process is named; and
that each serving process has N server slices. Prints "perfetto-check: ok
..." or one line of what is wrong, exit 1.
"""
import collections
import json
import sys


def fail(msg):
    print("perfetto-check: " + msg)
    sys.exit(1)


def need(ev, keys):
    for k in keys:
        if k not in ev:
            fail("a %s event without %s: %s" % (ev.get("ph"), k, json.dumps(ev)))


def main():
    path, n = sys.argv[1], int(sys.argv[2])
    with open(path) as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    slices = collections.defaultdict(list)
    flows = collections.defaultdict(lambda: {"s": [], "f": []})
    procs, threads = set(), set()
    servers = collections.Counter()
    for ev in events:
        ph = ev.get("ph")
        if ph == "M":
            need(ev, ["name", "pid", "tid", "args"])
            if not isinstance(ev["args"].get("name"), str):
                fail("metadata without a name: " + json.dumps(ev))
            (procs if ev["name"] == "process_name" else threads).add(
                ev["pid"] if ev["name"] == "process_name" else (ev["pid"], ev["tid"]))
        elif ph == "X":
            need(ev, ["name", "ts", "dur", "pid", "tid", "cat"])
            if ev["dur"] < 0:
                fail("a slice of negative duration: " + json.dumps(ev))
            slices[(ev["pid"], ev["tid"])].append((ev["ts"], ev["ts"] + ev["dur"], ev))
            if ev["cat"] == "server":
                servers[ev["pid"]] += 1
        elif ph in ("s", "f"):
            need(ev, ["id", "cat", "name", "pid", "tid", "ts"])
            if ph == "f" and ev.get("bp") != "e":
                fail("a flow finish not bound to its enclosing slice: " + json.dumps(ev))
            flows[(ev["id"], ev["cat"], ev["name"])][ph].append(ev)
        else:
            fail("an event of unknown phase: " + json.dumps(ev))
    for track, lst in slices.items():
        if track[0] not in procs or track not in threads:
            fail("track %s has no process_name or thread_name" % (track,))
        lst.sort(key=lambda x: (x[0], -x[1]))
        stack = []
        for start, end, ev in lst:
            while stack and stack[-1] <= start:
                stack.pop()
            if stack and stack[-1] < end:
                fail("slices overlap on track %s without nesting: %s" % (track, json.dumps(ev)))
            stack.append(end)
    for key, sf in flows.items():
        if len(sf["s"]) != 1 or len(sf["f"]) != 1:
            fail("flow %s: %d starts, %d finishes" % (key, len(sf["s"]), len(sf["f"])))
        for ev in sf["s"] + sf["f"]:
            if not any(a <= ev["ts"] <= b for a, b, _ in slices[(ev["pid"], ev["tid"])]):
                fail("a flow event outside every slice of its track: " + json.dumps(ev))
    nr_slices = sum(len(v) for v in slices.values())
    if len(servers) != 2 or any(c != n for c in servers.values()):
        fail("server slices per process %s, want %d in each of 2" % (dict(servers), n))
    if len(flows) != nr_slices:
        fail("%d flows for %d slices: want one a message, two a hop" % (len(flows), nr_slices))
    print("perfetto-check: ok: %d slices on %d tracks, %d flows, %s server slices" %
          (nr_slices, len(slices), len(flows), dict(servers)))


main()
