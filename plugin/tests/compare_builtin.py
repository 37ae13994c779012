#!/usr/bin/env python3
"""Field-by-field agreement between the rocev2 plugin and Wireshark's
built-in InfiniBand dissector on the conforming captures: every field both
decode (BTH, RDETH, DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt,
IETH, the ICRC bytes) must hold the same value in every frame.

Frames whose opcode the built-in decodes differently on purpose are left
out, with the reason: 0x40-0x5F (RD), which it decodes as a vendor DCT
extension. CNP and XRC extended headers it does not decode at all, so
there is nothing to compare there beyond the BTH.

The upper-layer protocols' fields that both hand-offs reach (the NVMe-oF
RDMA CM private data of REQ, REP and REJ) must match too, in both
directions: a frame where one shows such a field and the other does not
fails. Both run two passes there: on its first pass the built-in replaces
a REQ's source address with its LID before the ULP looks, so it decodes a
REQ's private data only when it sees the frame again.

usage: compare_builtin.py TSHARK-WRAPPER PLUGIN-DIR CAPTURE...
"""
import os
import subprocess
import sys

PAIRS = [
    ("rocev2.bth.opcode", "infiniband.bth.opcode"),
    ("rocev2.bth.se", "infiniband.bth.se"),
    ("rocev2.bth.m", "infiniband.bth.m"),
    ("rocev2.bth.padcnt", "infiniband.bth.padcnt"),
    ("rocev2.bth.tver", "infiniband.bth.tver"),
    ("rocev2.bth.pkey", "infiniband.bth.p_key"),
    ("rocev2.bth.destqp", "infiniband.bth.destqp"),
    ("rocev2.bth.ackreq", "infiniband.bth.a"),
    ("rocev2.bth.resv7", "infiniband.bth.reserved7"),
    ("rocev2.bth.psn", "infiniband.bth.psn"),
    ("rocev2.rdeth.eecnxt", "infiniband.rdeth.eecnxt"),
    ("rocev2.deth.qkey", "infiniband.deth.q_key"),
    ("rocev2.deth.srcqp", "infiniband.deth.srcqp"),
    ("rocev2.reth.va", "infiniband.reth.va"),
    ("rocev2.reth.rkey", "infiniband.reth.r_key"),
    ("rocev2.reth.dmalen", "infiniband.reth.dmalen"),
    ("rocev2.atomiceth.swapdt", "infiniband.atomiceth.swapdt"),
    ("rocev2.atomiceth.cmpdt", "infiniband.atomiceth.cmpdt"),
    ("rocev2.aeth.syndrome", "infiniband.aeth.syndrome"),
    ("rocev2.aeth.msn", "infiniband.aeth.msn"),
    ("rocev2.atomicacketh.orig", "infiniband.atomicacketh.origremdt"),
    ("rocev2.immdt.imm", "infiniband.immdt"),
    ("rocev2.ieth.rkey", "infiniband.ieth"),
    ("rocev2.icrc", "infiniband.invariant.crc"),
]

# ULP fields, the same on both sides.
ULP = [
    "nvme-rdma.cm.req.recfmt", "nvme-rdma.cm.req.qid", "nvme-rdma.cm.req.hrqsize",
    "nvme-rdma.cm.req.hsqsize", "nvme-rdma.cm.req.cntlid", "nvme-rdma.cm.req.reserved",
    "nvme-rdma.cm.rsp.recfmt", "nvme-rdma.cm.rsp.crqsize", "nvme-rdma.cm.rsp.reserved",
    "nvme-rdma.cm.rej.recfmt", "nvme-rdma.cm.rej.status",
]


def values(wrapper, plugins, pcap, fields, opts, occurrence="f"):
    cmd = [wrapper, plugins, "-n", "-r", pcap] + opts + ["-T", "fields", "-E", "separator=\t",
                                                          "-E", "occurrence=" + occurrence,
                                                          "-e", "frame.number"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rows = {}
    for line in out.splitlines():
        cols = line.split("\t")
        cols += [""] * (len(fields) + 1 - len(cols))
        rows[int(cols[0])] = dict(zip(fields, cols[1:]))
    return rows


def number(v):
    """A field value as tshark -T fields prints it: decimal, 0x-hex, a
    boolean, or bytes as plain hex digits."""
    v = v.strip()
    if v in ("True", "False"):
        return int(v == "True")
    try:
        return int(v, 0)
    except ValueError:
        return int(v.replace(":", ""), 16)


def main():
    wrapper, plugins = sys.argv[1:3]
    ours_f = [a for a, _ in PAIRS]
    theirs_f = [b for _, b in PAIRS]
    compared = skipped = 0
    per_field = {a: 0 for a in ours_f}
    failures = []
    for pcap in sys.argv[3:]:
        ours = values(wrapper, plugins, pcap, ours_f, ["-o", "rocev2.analysis:FALSE"])
        theirs = values(wrapper, "none", pcap, theirs_f, [])
        for frame, o in sorted(ours.items()):
            t = theirs.get(frame, {})
            op = number(o["rocev2.bth.opcode"]) if o["rocev2.bth.opcode"] else None
            if op is not None and 0x40 <= op <= 0x5F:
                skipped += 1
                continue
            for a, b in PAIRS:
                if not o.get(a) or not t.get(b):
                    continue
                compared += 1
                per_field[a] += 1
                if number(o[a]) != number(t[b]):
                    failures.append(f"{os.path.basename(pcap)} frame {frame}: {a}={o[a]} but {b}={t[b]}")
    ulp_compared = {f: 0 for f in ULP}
    for pcap in sys.argv[3:]:
        ours = values(wrapper, plugins, pcap, ULP, ["-2"], "a")
        theirs = values(wrapper, "none", pcap, ULP, ["-2"], "a")
        for frame in sorted(set(ours) | set(theirs)):
            o, t = ours.get(frame, {}), theirs.get(frame, {})
            for f in ULP:
                a, b = o.get(f, ""), t.get(f, "")
                if not a and not b:
                    continue
                compared += 1
                ulp_compared[f] += 1
                if a != b:
                    failures.append(f"{os.path.basename(pcap)} frame {frame}: {f} is '{a}' with rocev2 "
                                    f"but '{b}' with the built-in")
    print(f"compared {compared} field values in {len(sys.argv) - 3} captures "
          f"({skipped} RD frames left out: the built-in decodes 0x40-0x5F as DCT)")
    for a, n in list(per_field.items()) + list(ulp_compared.items()):
        print(f"  {a:28s} {n:5d} values")
    for f in failures[:50]:
        print("FAIL " + f)
    # RDETH comes only with RD opcodes, which the built-in decodes as DCT.
    missing = [a for a, n in per_field.items() if n == 0 and a != "rocev2.rdeth.eecnxt"]
    missing += [f for f, n in ulp_compared.items() if n == 0]
    for a in missing:
        print(f"FAIL {a}: never compared (neither capture has it decoded by both)")
    print(f"{compared - len(failures)} passed, {len(failures) + len(missing)} failed")
    return 1 if failures or missing or compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
