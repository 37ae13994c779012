#!/usr/bin/env python3
"""Checks every captures/*.expect file against what tshark with the rocev2
plugin reports, frame by frame:

- a conforming frame ('-') is decoded by rocev2 and raises no warning or
  error expert info from any protocol;
- a violating frame carries the expected libroce finding (rocev2.finding)
  and its rule ID (rocev2.rule), as an expert info; in a flow capture,
  with no other error-level finding (a warning such as a PSN gap must not
  come with a false error);
- frames that Wireshark never hands to a UDP port dissector (a broken
  Ethernet, VLAN or IP layer, IP fragments, ...) must not be decoded as
  RoCEv2 at all: they are listed, and roce-tester lint covers them.

Context: pmtu=N runs with -o rocev2.pmtu:N, sender with -o rocev2.sender:TRUE,
flow with the per-QP analysis on (it is off for the catalogue captures,
whose frames are unrelated to each other), anyport with Decode As for 4792,
dc with the RD-range opcodes taken as NVIDIA DC (-o rocev2.rd_range:dc).
A frame with context proto=NAME is another protocol's (low-ports.pcap: DNS,
TFTP, NTP on the small ports RoCEv2 packets may also come from): Wireshark
must decode it as NAME, and rocev2 must stay out of it.
A conforming RoCE v1 frame (context rocev1, Ethertype 0x8915) is the
plugin's by default: decoded by rocev2 as version 1 (rocev2.version), without
a warning; with the plugin's take_rocev1 preference off, Wireshark's own
InfiniBand dissector decodes it again, without a warning, and rocev2 stays
out of it. A frame whose description starts with "RoCE v1" or "RoCEv2"
(the mixed captures) must carry that version in rocev2.version.

usage: check_expect.py TSHARK-WRAPPER PLUGIN-DIR CAPTURES-DIR
"""
import collections
import glob
import os
import subprocess
import sys

SEV_WARN, SEV_ERROR = 0x00600000, 0x00800000
# Codes whose frames Wireshark's lower layers never pass to UDP port 4791.
UNREACHABLE = {
    "E_TRUNC_ETH", "E_TRUNC_VLAN", "E_ETHERTYPE", "E_TRUNC_IP",
    "E_IP_VERSION", "E_IPV4_IHL", "E_IPV4_TOTLEN_SHORT", "E_IPV4_MF",
    "E_IPV4_FRAGOFF", "E_IPV4_PROTO", "E_IPV6_PAYLEN_SHORT",
}
# Decoded through Decode As, a wrong port is the check finding, not the
# parse error: the same rule (CA17-20).
ALIASES = {"E_UDP_DPORT": "C_UDP_DPORT"}
FIELDS = ["frame.number", "rocev2.finding", "rocev2.rule", "_ws.expert.severity",
          "_ws.expert.message", "frame.protocols", "rocev2.version"]


def tshark(wrapper, plugins, pcap, opts):
    cmd = [wrapper, plugins, "-n", "-r", pcap, "-d", "udp.port==4792,rocev2"] + opts + \
        ["-T", "fields", "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=|"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    frames = {}
    for line in out.splitlines():
        cols = line.split("\t")
        cols += [""] * (len(FIELDS) - len(cols))
        codes = [c for c in cols[1].split("|") if c]
        sevs = [int(x, 0) for x in cols[3].split("|") if x]
        frames[int(cols[0])] = {
            "findings": set(codes),
            # Each libroce finding adds its code and its expert info in
            # order: paired when no other protocol added an expert info.
            "errors": {c for c, v in zip(codes, sevs) if v >= SEV_ERROR} if len(codes) == len(sevs) else set(),
            "rules": set(filter(None, cols[2].split("|"))),
            "sev": [int(x, 0) for x in cols[3].split("|") if x],
            "msgs": [m for m in cols[4].split("|") if m],
            "protos": cols[5].split(":"),
            "version": cols[6],
        }
    return frames


def options(context):
    opts = []
    flow = False
    for c in context.split(","):
        if c.startswith("pmtu="):
            opts += ["-o", "rocev2.pmtu:" + c[5:]]
        elif c == "sender":
            opts += ["-o", "rocev2.sender:TRUE"]
        elif c == "flow":
            flow = True
        elif c == "dc":
            opts += ["-o", "rocev2.rd_range:dc"]
    if not flow:
        opts += ["-o", "rocev2.analysis:FALSE"]
    return opts


def main():
    wrapper, plugins, captures = sys.argv[1:4]
    failures = []
    checked = met = 0
    unreachable = []
    for expect in sorted(glob.glob(os.path.join(captures, "*.expect"))):
        pcap = expect[:-len(".expect")] + ".pcap"
        name = os.path.basename(pcap)
        rows = []
        with open(expect) as f:
            for line in f:
                if line.startswith("#") or not line.strip():
                    continue
                frame, code, rule, context, what = line.rstrip("\n").split("\t", 4)
                rows.append((int(frame), code, rule, context, what))
        by_context = collections.defaultdict(list)
        for r in rows:
            by_context[r[3]].append(r)
        for context, group in sorted(by_context.items()):
            frames = tshark(wrapper, plugins, pcap, options(context))
            if context == "rocev1":  # the built-in's, with the plugin's preference off
                builtin_frames = tshark(wrapper, plugins, pcap, options(context) + ["-o", "rocev2.take_rocev1:FALSE"])
            for frame, code, rule, context, what in group:
                checked += 1
                got = frames.get(frame)
                where = f"{name} frame {frame} ({what})"
                if got is None:
                    failures.append(f"{where}: tshark did not list the frame")
                    continue
                decoded = "rocev2" in got["protos"]
                if context.startswith("proto="):
                    other = context[len("proto="):]
                    if decoded or other not in got["protos"]:
                        failures.append(f"{where}: expected {other}, not RoCEv2: {':'.join(got['protos'])}")
                    else:
                        met += 1
                    continue
                for prefix, version in (("RoCE v1", "1"), ("RoCEv2", "2")):
                    if what.startswith(prefix) and decoded and got["version"] != version:
                        failures.append(f"{where}: rocev2.version is '{got['version']}', not {version}")
                if code == "-" and context == "rocev1":
                    bad = [m for s, m in zip(got["sev"], got["msgs"]) if s >= SEV_WARN]
                    builtin = builtin_frames[frame]
                    ib_bad = [m for s, m in zip(builtin["sev"], builtin["msgs"]) if s >= SEV_WARN]
                    if not decoded or got["version"] != "1":
                        failures.append(f"{where}: a RoCE v1 frame not decoded by rocev2 as version 1 "
                                        f"({':'.join(got['protos'])}, version '{got['version']}')")
                    elif bad:
                        failures.append(f"{where}: conforming RoCE v1 frame raised {bad}")
                    elif "rocev2" in builtin["protos"] or "infiniband" not in builtin["protos"]:
                        failures.append(f"{where}: with rocev2.take_rocev1 off, not InfiniBand's "
                                        f"({':'.join(builtin['protos'])})")
                    elif ib_bad:
                        failures.append(f"{where}: conforming RoCE v1 frame raised {ib_bad} in InfiniBand")
                    else:
                        met += 1
                    continue
                if code == "-":
                    bad = [m for s, m in zip(got["sev"], got["msgs"]) if s >= SEV_WARN]
                    if not decoded:
                        failures.append(f"{where}: not decoded as RoCEv2 ({':'.join(got['protos'])})")
                    elif bad:
                        failures.append(f"{where}: conforming frame raised {bad}")
                    else:
                        met += 1
                    continue
                if code == "E_ROCEV1":  # RoCE v1 where RoCEv2 was expected: the plugin's, as version 1
                    if not decoded or got["version"] != "1":
                        failures.append(f"{where}: Ethertype 0x8915 not decoded by rocev2 as RoCE v1 "
                                        f"({':'.join(got['protos'])}, version '{got['version']}')")
                    else:
                        met += 1
                    continue
                if code in UNREACHABLE or (code == "E_CAPTURE_CUT" and not decoded):
                    if decoded:
                        failures.append(f"{where}: expected Wireshark not to reach RoCEv2, but it did")
                    else:
                        unreachable.append(f"{where}: {code} ({':'.join(got['protos'])})")
                        met += 1
                    continue
                want = ALIASES.get(code, code)
                if want not in got["findings"] or (rule != "-" and rule not in got["rules"]):
                    failures.append(f"{where}: expected {code} ({rule}), got findings "
                                    f"{sorted(got['findings'])} rules {sorted(got['rules'])}")
                elif rule != "-" and not any(m.startswith(rule + ":") for m in got["msgs"]):
                    failures.append(f"{where}: no expert info names {rule}: {got['msgs']}")
                elif "flow" in context.split(",") and got["errors"] - {want}:
                    failures.append(f"{where}: expected {code}, and got the error-level findings "
                                    f"{sorted(got['errors'] - {want})} as well")
                else:
                    met += 1
    print(f"checked {checked} frames of {len(glob.glob(os.path.join(captures, '*.expect')))} captures; "
          f"{met} as expected")
    print(f"{len(unreachable)} frames never reach a UDP dissector in Wireshark (checked: not decoded as RoCEv2):")
    for u in unreachable:
        print("  " + u)
    for f in failures:
        print("FAIL " + f)
    print(f"{met} passed, {len(failures)} failed")
    return 1 if failures or met == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
