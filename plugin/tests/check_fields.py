#!/usr/bin/env python3
"""Checks the field values listed in fields.tsv.

usage: check_fields.py TSHARK-WRAPPER PLUGIN-DIR CAPTURES-DIR FIELDS.TSV
"""
import collections
import os
import subprocess
import sys


def main():
    wrapper, plugins, captures, table = sys.argv[1:5]
    wanted = collections.defaultdict(list)
    with open(table) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cap, frame, field, op, value = line.rstrip("\n").split("\t")
            wanted[cap].append((int(frame), field, op, value))
    failures = []
    checked = 0
    for cap, rows in sorted(wanted.items()):
        fields = sorted({r[1] for r in rows})
        opts = ["-2"] if cap.startswith("flows-") else ["-o", "rocev2.analysis:FALSE"]
        cmd = [wrapper, plugins, "-n", "-r", os.path.join(captures, cap)] + opts + \
            ["-T", "fields", "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=,",
             "-e", "frame.number"]
        for fl in fields:
            cmd += ["-e", fl]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        got = {}
        for line in out.splitlines():
            cols = line.split("\t")
            cols += [""] * (len(fields) + 1 - len(cols))
            got[int(cols[0])] = dict(zip(fields, cols[1:]))
        for frame, field, op, value in rows:
            checked += 1
            v = got.get(frame, {}).get(field, "")
            ok = v == value if op == "=" else value in v
            if not ok:
                failures.append(f"{cap} frame {frame}: {field} is '{v}', expected {op} '{value}'")
    for f in failures:
        print("FAIL " + f)
    print(f"{checked - len(failures)} passed, {len(failures)} failed")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
