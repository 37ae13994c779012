#!/usr/bin/env python3
"""Field-by-field agreement between the rocev2 plugin and Wireshark's
built-in InfiniBand dissector on the conforming captures: every field both
decode (BTH, RDETH, DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt,
IETH, the ICRC bytes) must hold the same value in every frame.

Frames whose opcode the built-in decodes differently on purpose are left
out, with the reason: 0x40-0x5F (RD), which it decodes as NVIDIA's
Dynamically Connected transport (DC) in every release the plugin is tested
in, with no preference to say otherwise. The captures given after
--rd-as-dc hold DC: there the plugin takes the RD range as DC too
(-o rocev2.rd_range:dc) and every frame is compared, the headers after
DC's DCETH included (the built-in passes over the DCETH's 8 bytes without
showing them, so the DC access key itself has nothing to be compared with).
CNP and XRC extended headers it does not decode at all, so
there is nothing to compare there beyond the BTH.

The upper-layer protocols' fields are compared too, two passes (-2) on both
sides, over every field of the NVMe-oF protocols (nvme-rdma and nvme)
in each frame:
- the RDMA CM private data of REQ, REP and REJ (nvme-rdma.cm.*) both ways:
  a frame where one shows such a field and the other does not fails. On
  its first pass the built-in replaces a REQ's source address with its LID
  before the ULP looks, so it decodes a REQ's private data only when it
  sees the frame again;
- every other NVMe-oF field the built-in shows in a frame (command
  capsules, completions, and the data transfers by RDMA WRITE, RDMA READ
  request and READ response: the queue ID, the transfer notes and their
  links) must be shown by the plugin in that frame with the same value.
  One difference is allowed: where the built-in says a transfer has "no
  Command Match", the plugin may have matched it (the same field, with the
  links to the command), and where it shows a completion as "Dissection
  unsupported" (no command), the plugin may have decoded it. The built-in never finds the host's QP in an
  rdma_cm connection over RoCEv2, so it cannot see the host's commands; the
  plugin can, and shows more, which is reported, not compared.
A list of NVMe-oF fields must each be compared at least once, so that the
comparison cannot pass by having nothing to compare.

What the built-in does differently in the release at hand (wsrelease.py)
is said and handled for that release only:
- from 4.4 it decodes FLUSH and ATOMIC WRITE: their RETH and ICRC must then
  be compared, and the FETH too; as its split of the FETH into fields
  differs from IBTA 1.5 (and libroce), the FETH is compared as the 32-bit
  word the fields make up, and the frames where the split shows are
  counted;
- from 4.6 it can reassemble an RC SEND message for a ULP that asks: the
  per-packet ULP comparison holds only where it did not, so a frame it
  reassembled fails (none in the samples: their ULPs never ask).
The plugin reassembles every SEND of several packets in every release and
offers the whole message to the ULPs at the frame that completed it
(docs/plugin.md, Message reassembly): a ULP that claimed such a message
would show its fields there, not per packet; in the samples none does
(their SENDs of several packets carry no ULP), so the comparison holds.

RoCE v1 (Ethertype 0x8915): the captures given after --rocev1 hold RoCE
v1 frames (and RoCEv2 ones beside them). The plugin takes 0x8915 by
default, so the built-in's side runs with the plugin loaded and its
take_rocev1 and take_port preferences off, which must hand every frame
back to the built-in (a frame the built-in does not decode then fails);
every GRH field (IP Version, Traffic Class, Flow Label, Payload Length,
Next Header, Hop Limit, the GIDs) is compared as well as every IB header
behind it, and each must have been compared at least once.

usage: compare_builtin.py TSHARK-WRAPPER PLUGIN-DIR CAPTURE... [--rd-as-dc DC-CAPTURE...]
                          [--rocev1 ROCEV1-CAPTURE...]
"""
import collections
import ipaddress
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import wsrelease

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

# RoCE v1's GRH (libroce's fields.def and the built-in's names).
GRH_PAIRS = [
    ("rocev2.grh.ipver", "infiniband.grh.ipver"),
    ("rocev2.grh.tclass", "infiniband.grh.tclass"),
    ("rocev2.grh.flowlabel", "infiniband.grh.flowlabel"),
    ("rocev2.grh.paylen", "infiniband.grh.paylen"),
    ("rocev2.grh.nxthdr", "infiniband.grh.nxthdr"),
    ("rocev2.grh.hoplmt", "infiniband.grh.hoplmt"),
    ("rocev2.grh.sgid", "infiniband.grh.sgid"),
    ("rocev2.grh.dgid", "infiniband.grh.dgid"),
]
# The built-in's side of a RoCE v1 capture: the plugin loaded, 0x8915 and
# UDP 4791 given back.
GIVE_BACK = ["-o", "rocev2.take_rocev1:FALSE", "-o", "rocev2.take_port:FALSE"]

# NVMe-oF RDMA CM private data fields: the same on both sides, both ways.
CM = [
    "nvme-rdma.cm.req.recfmt", "nvme-rdma.cm.req.qid", "nvme-rdma.cm.req.hrqsize",
    "nvme-rdma.cm.req.hsqsize", "nvme-rdma.cm.req.cntlid", "nvme-rdma.cm.req.reserved",
    "nvme-rdma.cm.rsp.recfmt", "nvme-rdma.cm.rsp.crqsize", "nvme-rdma.cm.rsp.reserved",
    "nvme-rdma.cm.rej.recfmt", "nvme-rdma.cm.rej.status",
]
# Fields of the data transfers that the comparison must reach: the queue
# ID under each WRITE, READ request and completion, the WRITE notes.
MUST = CM + ["nvme-rdma.cmd.qid", "nvme-rdma.write_to_host_req", "nvme-rdma.read_to_host_req"]
ULP_PROTOS = ("nvme-rdma", "nvme")
# How the built-in labels a transfer or completion it could not tie to a
# command: "no Command Match", or the completion's bytes as "Dissection
# unsupported".
UNMATCHED = ("no Command Match", "Dissection unsupported")


def ulp_fields(wrapper, plugins, pcap):
    """frame -> multiset of (field, value) of every field of ULP_PROTOS,
    and the frames' 'no Command Match' fields, from a two-pass PDML."""
    cmd = [wrapper, plugins, "-n", "-2", "-r", pcap, "-T", "pdml"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    fields, unmatched = {}, {}
    for packet in ET.fromstring(out).iter("packet"):
        num = None
        have, um = collections.Counter(), set()
        for proto in packet.iter("proto"):
            if proto.get("name") == "frame":
                for f in proto.iter("field"):
                    if f.get("name") == "frame.number":
                        num = int(f.get("show"))
            if proto.get("name") not in ULP_PROTOS:
                continue
            for f in proto.iter("field"):
                name = f.get("name", "")
                if not name:
                    continue
                have[(name, f.get("show", ""))] += 1
                if any(text in f.get("showname", "") for text in UNMATCHED):
                    um.add(name)
        fields[num], unmatched[num] = have, um
    return fields, unmatched


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
    boolean, bytes as plain hex digits, or an IPv6 address (a GID)."""
    v = v.strip()
    if "::" in v or "." in v:
        return int(ipaddress.IPv6Address(v))
    if v in ("True", "False"):
        return int(v == "True")
    try:
        return int(v, 0)
    except ValueError:
        return int(v.replace(":", ""), 16)


# The FETH as (field, shift) pairs that make up its 32-bit word: libroce's
# split (IBTA 1.5, Linux rxe) and the built-in's (4.4 on).
FETH_OURS = [("rocev2.feth.resv", 6), ("rocev2.feth.sel", 4), ("rocev2.feth.plt", 0)]
FETH_THEIRS = [("infiniband.feth.reserved27", 5), ("infiniband.feth.sel", 3), ("infiniband.feth.plt", 0)]
FLUSH, ATOMIC_WRITE = 0x1C, 0x1D
RC_SEND_REASSEMBLY = ["infiniband.rc_send.reassembled_in", "infiniband.rc_send.fragment"]


class ReleaseChecks:
    """What the release at hand's built-in decodes beyond 4.0's: the extra
    fields to ask tshark for, their comparison, and what must have been
    compared by the end."""

    def __init__(self, release):
        self.release = release
        self.ours, self.theirs = [], []
        if release.has("flush-atomic-write"):
            self.ours += [f for f, _ in FETH_OURS]
            self.theirs += [f for f, _ in FETH_THEIRS]
        if release.has("rc-send-reassembly"):
            self.theirs += RC_SEND_REASSEMBLY
        self.feth = self.feth_split = self.new_reth = self.reassembled = 0

    def compare(self, name, frame, op, o, t, per_field, failures):
        """Called for every frame compared; returns the values compared."""
        n = 0
        if op is not None and op & 0x1F in (FLUSH, ATOMIC_WRITE) and o.get("rocev2.reth.va") \
                and t.get("infiniband.reth.va"):
            self.new_reth += 1
        if self.release.has("flush-atomic-write") and o.get("rocev2.feth.sel") and t.get("infiniband.feth.sel"):
            ours = sum(number(o[f]) << k for f, k in FETH_OURS)
            theirs = sum(number(t[f]) << k for f, k in FETH_THEIRS)
            n += 1
            self.feth += 1
            per_field["rocev2.feth (32-bit word)"] = self.feth
            if ours != theirs:
                failures.append(f"{name} frame {frame}: the FETH is 0x{ours:08x} to rocev2 "
                                f"but 0x{theirs:08x} to the built-in")
            if (o["rocev2.feth.sel"], o["rocev2.feth.plt"]) != (t["infiniband.feth.sel"], t["infiniband.feth.plt"]):
                self.feth_split += 1
        if any(t.get(f) for f in RC_SEND_REASSEMBLY):
            self.reassembled += 1
            failures.append(f"{name} frame {frame}: the built-in reassembled an RC SEND message here "
                            f"({', '.join(f + '=' + t[f] for f in RC_SEND_REASSEMBLY if t.get(f))}): "
                            f"its ULP fields are not per packet")
        return n

    def report(self):
        """Says what differs in this release; returns what was never compared."""
        missing = []
        if self.release.has("flush-atomic-write"):
            self.release.say("flush-atomic-write", f"the RETH of {self.new_reth} FLUSH and ATOMIC WRITE "
                             f"frames compared")
            self.release.say("feth-split", f"{self.feth} FETHs compared as 32-bit words, "
                             f"{self.feth_split} of them with fields that differ by the split")
            if self.new_reth == 0:
                missing.append("the RETH of FLUSH and ATOMIC WRITE")
            if self.feth == 0:
                missing.append("rocev2.feth (32-bit word)")
        if self.release.has("rc-send-reassembly"):
            self.release.say("rc-send-reassembly", f"{self.reassembled} frames of reassembled messages "
                             f"(the samples' ULPs never ask)")
        return missing


def main():
    wrapper, plugins = sys.argv[1:3]
    extra_checks = ReleaseChecks(wsrelease.Release(wrapper))
    groups = {"": [], "--rd-as-dc": [], "--rocev1": []}
    at = ""
    for a in sys.argv[3:]:
        if a in groups:
            at = a
        else:
            groups[at].append(a)
    captures, dc_captures, v1_captures = groups[""], groups["--rd-as-dc"], groups["--rocev1"]
    pairs = PAIRS + (GRH_PAIRS if v1_captures else [])
    ours_f = [a for a, _ in pairs] + extra_checks.ours
    theirs_f = [b for _, b in pairs] + extra_checks.theirs
    compared = skipped = dc_frames = 0
    per_field = {a: 0 for a, _ in pairs}
    failures = []
    for pcap in captures + dc_captures + v1_captures:
        dc = pcap in dc_captures
        v1 = pcap in v1_captures
        ours = values(wrapper, plugins, pcap, ours_f + ["rocev2.dc.key", "rocev2.version"],
                      ["-o", "rocev2.analysis:FALSE"] + (["-o", "rocev2.rd_range:dc"] if dc else []))
        theirs = values(wrapper, plugins, pcap, theirs_f, GIVE_BACK) if v1 else \
            values(wrapper, "none", pcap, theirs_f, [])
        for frame, o in sorted(ours.items()):
            t = theirs.get(frame, {})
            if v1 and o.get("rocev2.version") and not t.get("infiniband.bth.opcode"):
                failures.append(f"{os.path.basename(pcap)} frame {frame}: RoCE v{o['rocev2.version']} to the "
                                f"plugin, not given back to the built-in with {' '.join(GIVE_BACK)}")
            op = number(o["rocev2.bth.opcode"]) if o["rocev2.bth.opcode"] else None
            if op is not None and 0x40 <= op <= 0x5F:
                if not dc:
                    skipped += 1
                    continue
                dc_frames += bool(o.get("rocev2.dc.key"))
            for a, b in pairs:
                if not o.get(a) or not t.get(b):
                    continue
                compared += 1
                per_field[a] += 1
                if number(o[a]) != number(t[b]):
                    failures.append(f"{os.path.basename(pcap)} frame {frame}: {a}={o[a]} but {b}={t[b]}")
            compared += extra_checks.compare(os.path.basename(pcap), frame, op, o, t, per_field, failures)
    ulp_compared = collections.Counter()
    extra = 0
    for pcap in captures:
        ours, _ = ulp_fields(wrapper, plugins, pcap)
        theirs, unmatched = ulp_fields(wrapper, "none", pcap)
        name = os.path.basename(pcap)
        for frame in sorted(set(ours) | set(theirs)):
            o, t = ours.get(frame, collections.Counter()), theirs.get(frame, collections.Counter())
            left = o.copy()
            for (f, v), n in t.items():
                got = min(n, left[(f, v)])
                left[(f, v)] -= got
                if got < n and f in unmatched.get(frame, ()) and \
                        (sum(c for (g, _), c in left.items() if g == f) >= n - got or
                         f.endswith("unknown_data") and
                         any(c > 0 and g.startswith("nvme.") for (g, _), c in left.items())):
                    got = n  # the plugin matched (and decoded) what the built-in could not
                compared += n
                ulp_compared[f] += n
                if got < n:
                    failures.append(f"{name} frame {frame}: the built-in shows {f} = '{v}' "
                                    f"({n}x), rocev2 {n - got} time(s) fewer")
            # CM private data: both ways.
            for (f, v), n in left.items():
                if n > 0 and f in CM:
                    failures.append(f"{name} frame {frame}: {f} = '{v}' with rocev2 only")
            extra += sum(n for (f, v), n in left.items() if n > 0 and f not in CM)
    print(f"compared {compared} field values in {len(captures) + len(dc_captures) + len(v1_captures)} captures "
          f"({skipped} RD frames left out: the built-in decodes 0x40-0x5F as DC; "
          f"{dc_frames} DC frames compared with the RD range taken as DC)")
    for a, n in list(per_field.items()) + sorted(ulp_compared.items()):
        print(f"  {a:28s} {n:5d} values")
    print(f"  (and {extra} NVMe-oF field values that only rocev2 shows: commands the built-in "
          f"could not match)")
    for f in failures[:50]:
        print("FAIL " + f)
    # RDETH comes only with RD opcodes, which the built-in decodes as DC:
    # compared in DC captures only.
    missing = [a for a, n in per_field.items() if n == 0 and (dc_captures or a != "rocev2.rdeth.eecnxt")]
    if dc_captures and dc_frames == 0:
        missing.append("DC frames (none decoded with a DCETH)")
    missing += [f for f in MUST if ulp_compared[f] == 0]
    missing += extra_checks.report()
    for a in missing:
        print(f"FAIL {a}: never compared (neither capture has it decoded by both)")
    print(f"{compared - len(failures)} passed, {len(failures) + len(missing)} failed")
    return 1 if failures or missing or compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
