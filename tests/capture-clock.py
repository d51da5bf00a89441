#!/usr/bin/env python3
"""Edit the host and clock entries of ipcperf's section in a capture, in place.

  capture-clock.py shift FILE NS   the recorded wall clock NS ns later (NS may be
                                   negative): as if the host's clock were off by NS
  capture-clock.py shift-stop FILE NS
                                   the wall clock read at the stop alone NS ns later:
                                   as if the host's clock had gained NS over the capture
  capture-clock.py strip FILE      the host and clock entries made unknown ones,
                                   as a capture written before they were recorded

Layout: lib/capture/perfdata.h (the feature table after the data, a section
per feature bit set) and record.h (the section's entries).
"""
import struct
import sys

FEAT_IPCPERF = 200
T_HOST, T_CLOCK, T_UNKNOWN = 5, 6, 0x7fff0000


def section(buf):
    data_off, data_size = struct.unpack_from("<QQ", buf, 40)
    bits = struct.unpack_from("<4Q", buf, 72)
    if not bits[FEAT_IPCPERF // 64] >> (FEAT_IPCPERF % 64) & 1:
        sys.exit("no ipcperf section")
    below = sum(bin(bits[i // 64] >> (i % 64) & 1).count("1") for i in range(FEAT_IPCPERF))
    off, size = struct.unpack_from("<QQ", buf, data_off + data_size + 16 * below)
    # magic, layout, version, payload length, then the entries
    return off + 24, struct.unpack_from("<Q", buf, off + 16)[0]


def entries(buf):
    at, length = section(buf)
    end = at + length
    while at + 8 <= end:
        etype, elen = struct.unpack_from("<II", buf, at)
        yield at, etype, elen
        at += 8 + ((elen + 7) & ~7)


def main():
    op, path = sys.argv[1], sys.argv[2]
    buf = bytearray(open(path, "rb").read())
    done = 0
    for at, etype, elen in list(entries(buf)):
        if op in ("shift", "shift-stop") and etype == T_CLOCK:
            ms, rs, me, re_ = struct.unpack_from("<4Q", buf, at + 8)
            ns = int(sys.argv[3])
            start = 0 if op == "shift-stop" else ns
            struct.pack_into("<4Q", buf, at + 8, ms, rs + start, me, re_ + ns)
            done += 1
        elif op == "strip" and etype in (T_HOST, T_CLOCK):
            struct.pack_into("<I", buf, at, T_UNKNOWN)
            done += 1
    if not done:
        sys.exit("no entry to %s in %s" % (op, path))
    open(path, "wb").write(buf)


main()
