#!/usr/bin/python3
"""Each fault profile of the soft DUT acts where fault.def says it does:
TX profiles only in the transmit rewrite (fault_tx.c), RX profiles only in
the receive filter (fault_rx.c), DECIDE profiles at exactly one decision
point of the protocol code. So the protocol code stays the conforming
device's, and a profile is found by reading one place.

usage: fault_hooks.py AGENT-SRC-DIR
"""
import os
import re
import sys

src = os.path.join(sys.argv[1], "soft")
rows = re.findall(r'^SOFT_FAULT\((\w+), "([^"]+)", "[^"]*", (\w+),', open(os.path.join(src, "fault.def")).read(), re.M)
code = {}
for f in sorted(os.listdir(src)):
    if f.endswith((".c", ".h")):
        # Comments do not count.
        text = re.sub(r"/\*.*?\*/", "", open(os.path.join(src, f)).read(), flags=re.S)
        code[f] = text

home = {"TX": "fault_tx.c", "RX": "fault_rx.c", "COUNT": "fault_count.c"}
problems = []
for sym, name, hook in rows:
    pat = re.compile(r"SOFT_FAULT_ON\([^,()]*(?:\([^()]*\))?[^,()]*,\s*%s\)|\bSOFT_FAULT_%s\b" % (sym, sym))
    places = {f: len(pat.findall(t)) for f, t in code.items()}
    places = {f: n for f, n in places.items() if n}
    if hook in home:
        stray = [f for f in places if f != home[hook]]
        if stray or not places.get(home[hook]):
            problems.append("%s (%s): named in %s, expected only in %s" % (name, hook, sorted(places) or "no file", home[hook]))
    elif hook == "DECIDE":
        total = sum(places.values())
        if total != 1 or any(f.startswith("fault_") for f in places):
            problems.append("%s (DECIDE): named %d times (%s), expected at one decision point" % (name, total, sorted(places)))
    else:
        problems.append("%s: unknown hook %s" % (name, hook))

counts = {h: sum(1 for r in rows if r[2] == h) for h in ("TX", "RX", "DECIDE", "COUNT")}
for p in problems:
    print("FAIL: " + p)
print("%d profiles: %d transmit rewrites, %d receive filters, %d decision points, %d counter reads; %d misplaced" %
      (len(rows), counts["TX"], counts["RX"], counts["DECIDE"], counts["COUNT"], len(problems)))
sys.exit(1 if problems or len(rows) < 90 else 0)
