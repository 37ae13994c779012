#!/usr/bin/env python3
"""Judges captures of healthy lossy traffic between two rxe hosts (made by
scripts/rxe-vm/lossy-captures) with the plugin, through tshark, and with
`roce-tester lint`, and holds them to the target of issue 13: conforming
traffic under loss, reordering and duplication raises no error-level
finding, and a warning only for what the capture itself shows.

What the capture can show depends on the impairment in front of the
capture point (netem on the guests' egress): lost packets leave PSN gaps
(F_PSN_GAP), and a PSN lost there and resent later, or overtaken by
reordering, arrives after later ones (F_OUT_OF_ORDER). Duplication alone
shows neither. Notes and infos (retransmissions, NAKs explained, duplicate
ACKs and READ responses) are measurements and always allowed.

Each capture must also show the impairment at work (a retransmission, a
NAK, a duplicate), or it proves nothing; and every frame must be decoded
by the plugin.

usage: lossy_check.py TSHARK-WRAPPER PLUGIN-DIR ROCE-TESTER CAPTURE-DIR [NAME...]
CAPTURE-DIR holds index.tsv and the captures it lists; NAMEs pick some.
Exit status: 0 when every capture meets the target, 1 otherwise.
"""
import collections
import csv
import os
import re
import subprocess
import sys

SEV_ERROR, SEV_WARN = 0x00800000, 0x00600000
SHOWN_BY_CAPTURE = {"F_PSN_GAP", "F_OUT_OF_ORDER"}
# What a loss or reordering before the capture point explains as well as a
# fault would: libroce warns with both readings (codes.def, the _SEEN twins).
BEFORE_CAPTURE = {"F_GBN_SKIPPED_SEEN", "F_GBN_NEW_IN_RESEND_SEEN"}
ALLOWED_WARNINGS = {
    "loss": SHOWN_BY_CAPTURE | BEFORE_CAPTURE,
    "reorder": SHOWN_BY_CAPTURE | BEFORE_CAPTURE,
    "mixed": SHOWN_BY_CAPTURE | BEFORE_CAPTURE,
    "duplicate": set(),
}
# Findings that show loss, reordering or duplication being recovered from.
RECOVERY = {"F_RETRANSMISSION", "F_GBN_RETRANSMISSION", "F_SEQ_NAK_EXPLAINED", "F_DUP_ACK",
            "F_DUP_READ_RESP"}
FIELDS = ["frame.number", "frame.protocols", "rocev2.finding", "_ws.expert.severity",
          "_ws.expert.message"]


def plugin_findings(wrapper, plugins, pcap):
    """Per frame: (decoded, [(code or None, severity, message)])."""
    cmd = [wrapper, plugins, "-n", "-r", pcap, "-T", "fields", "-E", "separator=\t",
           "-E", "occurrence=a", "-E", "aggregator=\x1f"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    frames = {}
    for line in out.splitlines():
        cols = line.split("\t") + [""] * len(FIELDS)
        codes = [c for c in cols[2].split("\x1f") if c]
        sevs = [int(s, 0) for s in cols[3].split("\x1f") if s]
        msgs = [m for m in cols[4].split("\x1f") if m]
        # Each libroce finding adds its code and its expert info, in order;
        # an expert info from another protocol leaves a code-less entry.
        if len(codes) != len(sevs):
            codes = [None] * len(sevs)
        frames[int(cols[0])] = ("rocev2" in cols[1].split(":"), list(zip(codes, sevs, msgs)))
    return frames


def lint_findings(tester, pcap):
    """lint's findings: [(frame, code, severity name, message)], and its error total."""
    r = subprocess.run([tester, "lint", "--tsv", pcap], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        raise RuntimeError(f"roce-tester lint {pcap}: exit {r.returncode}: {r.stderr.strip()}")
    found = []
    for line in r.stdout.splitlines():
        cols = line.split("\t")
        if len(cols) == 5 and cols[0].isdigit():
            found.append((int(cols[0]), cols[1], cols[3], cols[4]))
    m = re.search(r"with findings, (\d+) errors", r.stdout + r.stderr)
    if not m:
        raise RuntimeError(f"roce-tester lint {pcap}: no summary line")
    return found, int(m.group(1))


def netem_drops(log):
    """netem's drops per guest before and after the capture point, from the
    run's log (tc -s qdisc: the netem on eth0 first, then the one on the ifb)."""
    drops = {}
    if not os.path.exists(log):
        return drops
    seen = collections.defaultdict(list)
    current = None
    with open(log) as f:
        for line in f:
            m = re.match(r"([ab])\| qdisc (\w+) ", line)
            if m:
                current = m.group(1) if m.group(2) == "netem" else None
                continue
            m = re.match(r"([ab])\|  Sent .*\(dropped (\d+)", line)
            if m and current == m.group(1):
                seen[current].append(int(m.group(2)))
                current = None
    for g, v in seen.items():
        if len(v) >= 2:
            drops[g] = (v[0], v[1])
    return drops


def main():
    if len(sys.argv) < 5:
        print(__doc__)
        return 2
    wrapper, plugins, tester, folder = sys.argv[1:5]
    only = set(sys.argv[5:])
    with open(os.path.join(folder, "index.tsv")) as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t") if not only or r["name"] in only]
    if not rows:
        print(f"no captures to check in {folder}")
        return 1
    failures = []
    totals = collections.Counter()
    for row in rows:
        name, impairment = row["name"], row["impairment"]
        pcap = os.path.join(folder, name + ".pcap")
        where = f"{name}"
        if re.search(r"[1-9-]", row["perftest"]):
            failures.append(f"{where}: perftest did not complete (client/server exit {row['perftest']})")
        frames = plugin_findings(wrapper, plugins, pcap)
        lint, lint_errors = lint_findings(tester, pcap)
        allowed = ALLOWED_WARNINGS[impairment]
        per_code = collections.Counter()
        errors, bad_warnings, undecoded = [], [], []
        for n, (decoded, found) in sorted(frames.items()):
            if not decoded:
                undecoded.append(n)
            for code, sev, msg in found:
                per_code[code or "(other)"] += 1
                if sev >= SEV_ERROR:
                    errors.append(f"frame {n}: {code}: {msg}")
                elif sev >= SEV_WARN and code not in allowed:
                    bad_warnings.append(f"frame {n}: {code}: {msg}")
        # lint shares the plugin's judgement: its warnings are held to the
        # same list of what the capture explains.
        lint_warn = [x for x in lint if x[2] == "warning"]
        lint_bad = [x for x in lint_warn if x[1] not in allowed]
        warnings = sum(c for k, c in per_code.items() if k in SHOWN_BY_CAPTURE | BEFORE_CAPTURE)
        recovery = sum(c for k, c in per_code.items() if k in RECOVERY)
        drops = netem_drops(os.path.join(folder, name + ".log"))
        drop_text = " ".join(f"{g} {b}/{a}" for g, (b, a) in sorted(drops.items())) or "?"
        print(f"{name}: {len(frames)} frames (netem drops before/after the capture point: {drop_text})")
        print(f"  plugin: {len(errors)} errors, {warnings + len(bad_warnings)} warnings, "
              f"findings {dict(sorted(per_code.items()))}")
        print(f"  lint: {lint_errors} errors, {len(lint_warn)} warnings ({len(lint_bad)} unexplained), "
              f"{len(lint)} findings")
        for e in errors:
            print(f"  ERROR {e}")
        for w in bad_warnings:
            print(f"  WARNING not explained by the capture ({impairment}): {w}")
        for fr, code, sev, msg in lint:
            if sev == "error" or (sev == "warning" and code not in allowed):
                print(f"  lint {sev} frame {fr}: {code}: {msg}")
        if errors:
            failures.append(f"{where}: {len(errors)} error-level findings from the plugin")
        if bad_warnings:
            failures.append(f"{where}: {len(bad_warnings)} warnings the capture does not explain")
        if lint_errors or lint_bad:
            failures.append(f"{where}: lint reports {lint_errors} errors and {len(lint_bad)} "
                            "warnings the capture does not explain")
        plugin_warn = collections.Counter(c for f in frames.values() for c, s, _ in f[1]
                                          if c and SEV_WARN <= s < SEV_ERROR)
        lint_warn_codes = collections.Counter(x[1] for x in lint_warn)
        if plugin_warn != lint_warn_codes:
            failures.append(f"{where}: plugin and lint disagree on warnings: "
                            f"{dict(plugin_warn)} against {dict(lint_warn_codes)}")
        if undecoded:
            failures.append(f"{where}: {len(undecoded)} frames not decoded as RoCEv2 (first: {undecoded[0]})")
        if not frames:
            failures.append(f"{where}: an empty capture")
        elif recovery == 0:
            failures.append(f"{where}: no retransmission, NAK or duplicate seen: the impairment did not show")
        totals["captures"] += 1
        totals["frames"] += len(frames)
        totals["errors"] += len(errors)
        totals["lint errors"] += lint_errors
    print(f"{totals['captures']} captures, {totals['frames']} frames: {totals['errors']} plugin errors, "
          f"{totals['lint errors']} lint errors")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
