#!/usr/bin/env python3
"""Checks the field values listed in fields.tsv, as tshark -T fields prints
them in 4.0. In a release that prints booleans as words (wsrelease.py), an
expected 1 or 0 of a boolean field is read as True or False.

A capture named NAME.pcap@PREF:VALUE is read with -o rocev2.PREF:VALUE
(dc.pcap@rd_range:dc: the RD-range opcodes taken as NVIDIA DC).

usage: check_fields.py TSHARK-WRAPPER PLUGIN-DIR CAPTURES-DIR FIELDS.TSV
"""
import collections
import os
import subprocess
import sys

import wsrelease

BOOL_WORDS = {"1": "True", "0": "False"}


def boolean_fields(wrapper, plugins):
    out = subprocess.run([wrapper, plugins, "-G", "fields"], check=True, capture_output=True,
                         text=True).stdout
    return {c[2] for c in (line.split("\t") for line in out.splitlines())
            if len(c) > 3 and c[0] == "F" and c[3] == "FT_BOOLEAN"}


def main():
    wrapper, plugins, captures, table = sys.argv[1:5]
    wanted = collections.defaultdict(list)
    with open(table) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cap, frame, field, op, value = line.rstrip("\n").split("\t")
            wanted[cap].append((int(frame), field, op, value))
    release = wsrelease.Release(wrapper)
    if release.has("bool-words"):
        booleans = boolean_fields(wrapper, plugins)
        words = 0
        for rows in wanted.values():
            for i, (frame, field, op, value) in enumerate(rows):
                if field in booleans and op == "=" and value in BOOL_WORDS:
                    rows[i] = (frame, field, op, BOOL_WORDS[value])
                    words += 1
        release.say("bool-words", f"{words} expected values of boolean fields read as True/False")
    failures = []
    checked = 0
    for cap, rows in sorted(wanted.items()):
        fields = sorted({r[1] for r in rows})
        name, *prefs = cap.split("@")
        opts = ["-2"] if cap.startswith("flows-") else ["-o", "rocev2.analysis:FALSE"]
        for pref in prefs:
            opts += ["-o", "rocev2." + pref]
        cmd = [wrapper, plugins, "-n", "-r", os.path.join(captures, name)] + opts + \
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
            ok = v == value if op == "=" else value not in v if op == "!" else value in v
            if not ok:
                failures.append(f"{cap} frame {frame}: {field} is '{v}', expected {op} '{value}'")
    for f in failures:
        print("FAIL " + f)
    print(f"{checked - len(failures)} passed, {len(failures)} failed")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
