#!/usr/bin/env python3
"""The per-QP statistics through tshark: the per-QP summary (-z rocev2,qp)
line for line as `roce-tester lint --qp` prints it from the same libroce
code, on every flow capture; and known numbers for the sample
conversations in it, in Service Response Time (-z rocev2,srt) and in the
RoCEv2 tab of Conversations (-z conv,rocev2), UD multicast senders to
their group included, and a capture of RoCE v1 and RoCEv2 connections
between the same addresses and QP numbers: two QP pairs, each marked with
its version (/v1 in the summary, "RoCE v1" or "RoCEv2" in each Service
Response Time row, its own table in Conversations and Endpoints: the
RoCE v1 rows, by GIDs, in "RoCE v1" (-z conv,rocev1, -z endpoints,rocev1),
the RoCEv2 ones alone in "RoCEv2"; a capture without RoCE v1 has no row
in the RoCE v1 tables).

usage: check_qpstats.py TSHARK-WRAPPER PLUGIN-DIR ROCE-TESTER CAPTURES-DIR
"""
import os
import re
import subprocess
import sys

# capture: the per-QP rows (the numbers of the hand-built conversations in
# testsupport/, worked out from their frames).
SUMMARY = {
    "flows-rc.pcap": [
        "198.18.0.1 0x000456 198.18.0.2 0x000123 37 10214 0.022731 4 1 1 1 0 0 0.000008/0.000041/0.000508",
    ],
    "flows-congestion.pcap": [
        # 17 WRITEs of 1074 bytes, 2 CNPs of 74, 3 ACKs of 62; 110 us to 1174 us;
        # ACK RTTs 18, 8 and 8 us.
        "198.18.0.1 0x000456 198.18.0.2 0x000123 22 18592 0.001064 0 0 0 0 2 4 0.000008/0.000011/0.000018",
    ],
    # testsupport/rocev1.c: the same exchange over each version, packet for
    # packet (RoCEv2's 5 us after RoCE v1's), the wrong ICRCs to a UD QP
    # (not a QP pair): 12 frames each; the retry after the RNR NAK a
    # retransmission; ACK RTTs 13 us (v1) and 16 us (v2).
    "flows-rocev1-mixed.pcap": [
        "2001:db8::1/v1 0x000456 2001:db8::2/v1 0x000123 12 3844 0.001649 1 0 0 1 0 0 0.000013/0.000013/0.000013",
        "2001:db8::1 0x000456 2001:db8::2 0x000123 12 3940 0.001652 1 0 0 1 0 0 0.000016/0.000016/0.000016",
    ],
}
# capture: operation: (calls, min, max)
SRT = {
    "flows-rc.pcap": {"RDMA READ": (1, "0.000008", "0.000008"),
                      "Atomic": (2, "0.000008", "0.000008"),
                      "SEND/WRITE": (10, "0.000008", "0.000508")},
    "flows-congestion.pcap": {"SEND/WRITE": (3, "0.000008", "0.000018")},
    # 4 FLUSHes and an ATOMIC WRITE, each answered 8 us later by a
    # zero-length READ Response Only (as rxe answers them).
    "flows-placement.pcap": {"FLUSH": (4, "0.000008", "0.000008"),
                             "ATOMIC WRITE": (1, "0.000008", "0.000008")},
    # A row per operation and version.
    "flows-rocev1-mixed.pcap": {"RoCEv2 RDMA READ": (1, "0.000016", "0.000016"),
                                "RoCEv2 SEND/WRITE": (3, "0.000016", "0.000016"),
                                "RoCE v1 RDMA READ": (1, "0.000013", "0.000013"),
                                "RoCE v1 SEND/WRITE": (3, "0.000013", "0.000013")},
}
# Conversations of both versions, a table each: capture: table: (title,
# rows (A, B, frames B->A, frames A->B, total)).
MIXED_CONV = {
    "flows-rocev1-mixed.pcap": {
        "rocev1": ("RoCE v1 Conversations", [("GID: 2001:db8::1", "GID: 2001:db8::2", 7, 5, 12)]),
        "rocev2": ("RoCEv2 Conversations", [("2001:db8::1", "2001:db8::2", 7, 5, 12)]),
    },
    # No RoCE v1 frame: an empty RoCE v1 table.
    "flows-rc.pcap": {"rocev1": ("RoCE v1 Conversations", [])},
}
# Endpoints of both versions: capture: table: (title, rows (address,
# packets, tx packets, rx packets)).
MIXED_ENDPOINTS = {
    "flows-rocev1-mixed.pcap": {
        "rocev1": ("RoCE v1 Endpoints", [("GID: 2001:db8::1", 12, 5, 7), ("GID: 2001:db8::2", 12, 7, 5)]),
        "rocev2": ("RoCEv2 Endpoints", [("2001:db8::1", 12, 5, 7), ("2001:db8::2", 12, 7, 5)]),
    },
}
# capture: (frames B->A, frames A->B, total frames)
CONV = {
    "flows-rc.pcap": (17, 20, 37),
    "flows-congestion.pcap": (5, 17, 22),
}

# UD multicast: one row per sender (and QP pair) to the group, its frames
# all one way: (A, B, frames B->A, frames A->B, total), in any order.
# multicast-*.pcap (tester/src/cmd/craft_samples.c): 198.18.0.1's SENDs to the
# group (frames 1, 2 and 5, the last with a wrong MAC), 198.18.0.3's
# (frames 3 and 4, one tagged), and a row for the datagram with the
# unicast DestQP (6); the RC SEND to the group (7), whose sending QP the
# analysis never learns, is in no row (an unknown QP, not a number; the
# per-QP summary lists it under "?"), and the UD SEND to 0xFFFFFF at a
# unicast address (8) names no group: no row.
MCAST_CONV = {
    "multicast-ipv4.pcap": sorted([("198.18.0.1", "239.255.18.1", 0, 3, 3),
                                   ("198.18.0.3", "239.255.18.1", 0, 2, 2),
                                   ("198.18.0.1", "239.255.18.1", 0, 1, 1)]),
    "multicast-ipv6.pcap": sorted([("2001:db8::1", "ff15::db8:1", 0, 3, 3),
                                   ("2001:db8::3", "ff15::db8:1", 0, 2, 2),
                                   ("2001:db8::1", "ff15::db8:1", 0, 1, 1)]),
    # Recorded from rxe (captures/README.md): rxe's two SENDs to each group
    # (MCAST-TX-001), the tester's one to the IPv4 group (MCAST-JOIN-001),
    # and beside them the RC pairs of the SRQ cases, one row per QP pair.
    "rxe-multicast-srq.pcap": sorted([("198.18.0.2", "239.255.18.1", 0, 2, 2),
                                      ("2001:db8::2", "ff15::db8:1", 0, 2, 2),
                                      ("198.18.0.1", "239.255.18.1", 0, 1, 1),
                                      ("198.18.0.2", "198.18.0.1", 1, 1, 2),
                                      ("198.18.0.2", "198.18.0.1", 3, 3, 6),
                                      ("2001:db8::2", "2001:db8::1", 1, 1, 2),
                                      ("2001:db8::2", "2001:db8::1", 3, 3, 6),
                                      ("198.18.0.1", "198.18.0.2", 2, 2, 4),
                                      ("2001:db8::1", "2001:db8::2", 2, 2, 4)]),
}


def tshark(wrapper, plugins, cap, *z):
    cmd = [wrapper, plugins, "-n", "-2", "-q", "-r", cap]
    for a in z:
        cmd += ["-z", a]
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def rows(text):
    """The data rows of the per-QP table, whitespace normalised."""
    out, inside = [], False
    for line in text.splitlines():
        if line.startswith("A ") and "QP A" in line:
            inside = True
            continue
        if inside:
            if not line.strip() or line.startswith("==="):
                inside = False
                continue
            out.append(" ".join(line.split()))
    return out


def main():
    wrapper, plugins, tester, captures = sys.argv[1:5]
    failures, checked = [], 0
    caps = sorted(f for f in os.listdir(captures)
                  if f.endswith(".pcap") and (f.startswith("flows-") or f.startswith("rxe-")))
    for cap in caps:
        path = os.path.join(captures, cap)
        ws = rows(tshark(wrapper, plugins, path, "rocev2,qp"))
        lint = rows(subprocess.run([tester, "lint", "-q", "--qp", path], capture_output=True,
                                   text=True).stdout)
        checked += 1
        if not ws or ws != lint:
            failures.append(f"{cap}: tshark -z rocev2,qp and lint --qp differ:\n  "
                            + "\n  ".join(ws) + "\n  vs\n  " + "\n  ".join(lint))
        if cap in SUMMARY:
            checked += 1
            if ws != SUMMARY[cap]:
                failures.append(f"{cap}: per-QP rows {ws}, expected {SUMMARY[cap]}")
    for cap, ops in SRT.items():
        out = tshark(wrapper, plugins, os.path.join(captures, cap), "rocev2,srt")
        for op, (calls, lo, hi) in ops.items():
            checked += 1
            m = re.search(re.escape(op) + r"[^\n]*?\)\s+(\d+)\s+([\d.]+)\s+([\d.]+)", out)
            got = (int(m.group(1)), m.group(2), m.group(3)) if m else None
            if got != (calls, lo, hi):
                failures.append(f"{cap}: SRT {op}: {got}, expected {(calls, lo, hi)}\n{out}")
    for cap, (ba, ab, total) in CONV.items():
        out = tshark(wrapper, plugins, os.path.join(captures, cap), "conv,rocev2")
        checked += 1
        m = re.search(r"<->\s+\S+\s+(\d+)\s+\d+ \S+\s+(\d+)\s+\d+ \S+\s+(\d+)", out)
        got = tuple(int(x) for x in m.groups()) if m else None
        if got != (ba, ab, total):
            failures.append(f"{cap}: conversation frames {got}, expected {(ba, ab, total)}\n{out}")
    for cap, want in MCAST_CONV.items():
        out = tshark(wrapper, plugins, os.path.join(captures, cap), "conv,rocev2")
        checked += 1
        got = sorted((a, b, int(ba), int(ab), int(t)) for a, b, ba, ab, t in re.findall(
            r"^(\S+)\s+<->\s+(\S+)\s+(\d+)\s+\d+ \S+\s+(\d+)\s+\d+ \S+\s+(\d+)", out, re.M))
        if got != want:
            failures.append(f"{cap}: multicast conversations {got}, expected {want}\n{out}")
    for cap, tables in MIXED_CONV.items():
        for table, (title, want) in tables.items():
            out = tshark(wrapper, plugins, os.path.join(captures, cap), "conv," + table)
            checked += 1
            got = sorted((a, b, int(ba), int(ab), int(t)) for a, b, ba, ab, t in re.findall(
                r"^((?:GID: )?\S+)\s+<->\s+((?:GID: )?\S+)\s+(\d+)\s+\d+ \S+\s+(\d+)\s+\d+ \S+\s+(\d+)", out, re.M))
            if got != sorted(want) or title not in out.splitlines():
                failures.append(f"{cap}: conv,{table}: '{title}' with {got}, expected {sorted(want)}\n{out}")
    for cap, tables in MIXED_ENDPOINTS.items():
        for table, (title, want) in tables.items():
            out = tshark(wrapper, plugins, os.path.join(captures, cap), "endpoints," + table)
            checked += 1
            got = sorted((a, int(n), int(tx), int(rx)) for a, n, tx, rx in re.findall(
                r"^((?:GID: )?[0-9a-f.:]+)\s+(\d+)\s+\d+\s+(\d+)\s+\d+\s+(\d+)\s+\d+\s*$", out, re.M))
            if got != sorted(want) or title not in out.splitlines():
                failures.append(f"{cap}: endpoints,{table}: '{title}' with {got}, expected {sorted(want)}\n{out}")
    for f in failures:
        print("FAIL " + f)
    print(f"{checked - len(failures)} passed, {len(failures)} failed")
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
