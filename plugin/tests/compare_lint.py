#!/usr/bin/env python3
"""The plugin and `roce-tester lint` judge the same packets the same way:
both take their findings from libroce (stateless checks, ICRC, per-QP
analysis), so over every capture they must raise the same findings on the
same frames: the same code, rule, severity and text (the text as far as
Wireshark keeps it: an expert message holds at most 239 characters).

RoCE v1 frames (Ethertype 0x8915) are the plugin's too, and lint judges
them by default: they are compared like RoCEv2 frames. Every frame the
plugin decodes with a BTH, of either version, must carry an ICRC status.

Frames Wireshark never hands to RoCEv2 (a broken Ethernet, VLAN or IP
layer, an IP fragment) may still be judged by lint, which parses
the frame itself; there lint may only report those lower layers' parse
errors. And a datagram to UDP 4791 from a port below it that another
dissector owns is RoCEv2 to the plugin only when its BTH parses and its
ICRC verifies (plugin/port.c); lint, which owns no port, judges it anyway:
there lint must report the bad ICRC or the parse error that made the
plugin decline it.

The captures given after --rd-as-dc (also given before it or not) are
compared a third time with the RD-range opcodes taken as NVIDIA DC on
both sides: -o rocev2.rd_range:dc and lint --rd-as-dc.

usage: compare_lint.py TSHARK-WRAPPER PLUGIN-DIR ROCE-TESTER CAPTURE.pcap... [--rd-as-dc CAPTURE.pcap...]
       compare_lint.py --selftest TSHARK-WRAPPER PLUGIN-DIR ROCE-TESTER CAPTURE.pcap
  --selftest: alters lint's findings in each way that must be caught (a
  code, a rule, a severity, a text, a finding too many, one missing), adds
  a finding to the plugin's and takes a frame's ICRC status away, and
  fails unless the comparison catches every one.
"""
import collections
import subprocess
import sys
import xml.etree.ElementTree as ET

# Wireshark's expert severities, as lint names them.
SEVERITY = {0x00800000: "error", 0x00600000: "warning", 0x00400000: "note", 0x00200000: "info"}
LABEL_MAX = 239
# Parse errors of the layers below UDP port 4791: frames Wireshark stops
# before RoCEv2 (check_expect.py's list).
LOWER = {
    "E_TRUNC_ETH", "E_TRUNC_VLAN", "E_VLAN_DEPTH", "E_ROCEV1", "E_ETHERTYPE", "E_TRUNC_IP",
    "E_IP_VERSION", "E_IPV4_IHL", "E_IPV4_TOTLEN_SHORT", "E_IPV4_MF", "E_IPV4_FRAGOFF",
    "E_IPV4_PROTO", "E_IPV6_PAYLEN_SHORT", "E_CAPTURE_CUT",
}
# Settings that change the judgement, run on every capture: the defaults,
# and a known path MTU with the capture taken at the sender.
SETTINGS = [
    ("defaults", [], []),
    ("pmtu 1024, sender", ["-o", "rocev2.pmtu:1024", "-o", "rocev2.sender:TRUE"], ["--pmtu", "1024", "--sender"]),
]
# For the captures after --rd-as-dc: the RD range as NVIDIA DC.
RD_AS_DC = ("RD range as DC", ["-o", "rocev2.rd_range:dc"], ["--rd-as-dc"])


def plugin_findings(wrapper, plugins, pcap, opts):
    """frame -> list of (code, rule, severity, text), and the frames decoded as RoCEv2
    (those declined from a low port, those with a BTH but no ICRC status)."""
    cmd = [wrapper, plugins, "-n", "-r", pcap, "-T", "pdml"] + opts
    out = subprocess.run(cmd, check=True, capture_output=True).stdout
    found = collections.defaultdict(list)
    decoded = set()
    declined = set()  # to 4791 from a lower port another dissector took
    no_icrc = set()
    for packet in ET.fromstring(out).iter("packet"):
        frame = None
        ports = {}
        names = {f.get("name") for f in packet.iter("field")}
        if "rocev2.bth" in names and "rocev2.icrc.status" not in names:
            no_icrc.add(next(int(f.get("show")) for f in packet.iter("field") if f.get("name") == "num"))
        for proto in packet.iter("proto"):
            if proto.get("name") == "geninfo":
                for f in proto.iter("field"):
                    if f.get("name") == "num":
                        frame = int(f.get("show"))
            if proto.get("name") == "udp":
                for f in proto.iter("field"):
                    if f.get("name") in ("udp.srcport", "udp.dstport"):
                        ports[f.get("name")] = int(f.get("show"))
            if proto.get("name") == "rocev2":
                decoded.add(frame)
        if frame not in decoded and ports.get("udp.dstport") == 4791 and ports.get("udp.srcport", 65535) < 4791:
            declined.add(frame)
        for rule in packet.iter("field"):
            if rule.get("name") != "rocev2.rule":
                continue
            code = sev = text = None
            for f in rule.iter("field"):
                name = f.get("name")
                if name == "rocev2.finding":
                    code = f.get("show")
                elif name == "_ws.expert.severity":
                    sev = SEVERITY.get(int(f.get("show")), f.get("show"))
                elif name == "_ws.expert.message":
                    text = f.get("show")
            found[frame].append((code, rule.get("show"), sev, text))
    return found, (decoded, declined, no_icrc)


def lint_findings(tester, pcap, opts):
    """The TSV lint prints: frame -> list of (code, rule, severity, text)."""
    out = subprocess.run([tester, "lint", "--tsv"] + opts + [pcap], capture_output=True, text=True)
    if out.returncode not in (0, 1):
        raise RuntimeError(f"roce-tester lint {pcap}: exit {out.returncode}: {out.stderr}")
    return parse_tsv(out.stdout)


def parse_tsv(text):
    found = collections.defaultdict(list)
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        frame, code, rule, sev, msg = line.split("\t", 4)
        found[int(frame)].append((code, rule, sev, msg))
    return found


def clip(f):
    code, rule, sev, text = f
    return (code, rule, sev, (text or "")[:LABEL_MAX])


def compare(name, plugin, frames, lint):
    """Disagreements, one line each."""
    decoded, declined, no_icrc = frames
    bad = []
    for frame in sorted(set(plugin) | set(lint) | decoded):
        p = sorted(clip(f) for f in plugin.get(frame, []))
        l = sorted(clip(f) for f in lint.get(frame, []))
        if frame not in decoded:
            if p:
                bad.append(f"{name} frame {frame}: plugin findings on a frame it did not decode: {p}")
            if frame in declined:
                if not any(f[0] == "C_ICRC" or f[0].startswith("E_") for f in l):
                    bad.append(f"{name} frame {frame}: declined by the plugin from a low source port, "
                               f"yet lint finds no bad ICRC or parse error: {l}")
                continue
            odd = [f for f in l if f[0] not in LOWER]
            if odd:
                bad.append(f"{name} frame {frame}: not RoCEv2 to Wireshark, yet lint judges it: {odd}")
            continue
        for f in p:
            if f not in l:
                bad.append(f"{name} frame {frame}: only the plugin: {f}")
        for f in l:
            if f not in p:
                bad.append(f"{name} frame {frame}: only lint: {f}")
        if not bad and collections.Counter(p) != collections.Counter(l):
            bad.append(f"{name} frame {frame}: a finding repeated on one side only: plugin {p}, lint {l}")
    bad += [f"{name} frame {frame}: decoded with a BTH but no ICRC status" for frame in sorted(no_icrc & decoded)]
    return bad


def selftest(wrapper, plugins, tester, pcap):
    plugin, decoded = plugin_findings(wrapper, plugins, pcap, [])
    lint = lint_findings(tester, pcap, [])
    base = compare(pcap, plugin, decoded, lint)
    if base:
        print("the unaltered comparison already fails:\n  " + "\n  ".join(base))
        return 1
    frame = next(f for f in sorted(lint) if lint[f] and f in decoded[0])
    first = lint[frame][0]
    drifts = {
        "code": (first[0] + "_X",) + first[1:],
        "rule": (first[0], first[1] + "X") + first[2:],
        "severity": first[:2] + ("info" if first[2] != "info" else "note",) + first[3:],
        "text": first[:3] + (first[3][:-1] + "?",),
    }
    caught = 0
    for what, changed in drifts.items():
        altered = collections.defaultdict(list, {k: list(v) for k, v in lint.items()})
        altered[frame][0] = changed
        caught += bool(compare(pcap, plugin, decoded, altered))
        print(f"lint drift in the {what} of frame {frame}: {'caught' if compare(pcap, plugin, decoded, altered) else 'MISSED'}")
    extra = collections.defaultdict(list, {k: list(v) for k, v in lint.items()})
    extra[frame].append(first)
    missing = collections.defaultdict(list, {k: list(v) for k, v in lint.items()})
    missing[frame] = missing[frame][1:]
    plugin_extra = collections.defaultdict(list, {k: list(v) for k, v in plugin.items()})
    plugin_extra[frame].append(("F_PSN_GAP", "IBA9.7-REQ-PSN", "warn", "x"))
    for what, (p, l) in {"a finding too many in lint": (plugin, extra), "a finding missing in lint": (plugin, missing),
                         "a finding too many in the plugin": (plugin_extra, lint)}.items():
        hit = bool(compare(pcap, p, decoded, l))
        caught += hit
        print(f"{what}: {'caught' if hit else 'MISSED'}")
    no_status = (decoded[0], decoded[1], decoded[2] | {frame})
    hit = bool(compare(pcap, plugin, no_status, lint))
    caught += hit
    print(f"a frame without an ICRC status: {'caught' if hit else 'MISSED'}")
    print(f"{caught} of 8 drifts caught")
    return 0 if caught == 8 else 1


def main():
    args = sys.argv[1:]
    if args and args[0] == "--selftest":
        return selftest(*args[1:5])
    wrapper, plugins, tester = args[:3]
    rest = args[3:]
    split = rest.index("--rd-as-dc") if "--rd-as-dc" in rest else len(rest)
    dc = rest[split + 1:]
    captures = list(dict.fromkeys(rest[:split] + dc))
    failures = []
    frames = findings = dc_frames = 0
    per_capture = []
    for pcap in captures:
        for label, ws_opts, lint_opts in SETTINGS + ([RD_AS_DC] if pcap in dc else []):
            plugin, decoded = plugin_findings(wrapper, plugins, pcap, ws_opts)
            lint = lint_findings(tester, pcap, lint_opts)
            name = f"{pcap.rsplit('/', 1)[-1]} ({label})"
            bad = compare(name, plugin, decoded, lint)
            failures += bad
            n = sum(len(v) for k, v in lint.items() if k in decoded[0])
            frames += len(decoded[0])
            findings += n
            dc_frames += len(decoded[0]) if label == RD_AS_DC[0] else 0
            per_capture.append(f"  {name}: {len(decoded[0])} frames decoded, {n} findings, "
                               f"{'agree' if not bad else f'{len(bad)} disagreements'}")
    print("\n".join(per_capture))
    for f in failures[:200]:
        print("FAIL " + f)
    print(f"{frames} frames and {findings} findings compared; {len(failures)} disagreements")
    if dc and dc_frames == 0:
        print("FAIL no frame compared with the RD range taken as DC")
        return 1
    return 1 if failures or frames == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
