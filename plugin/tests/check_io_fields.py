#!/usr/bin/env python3
"""Every field of the plugin's flow analysis can be plotted by the I/O
Graph, checked through tshark's -z io,stat (the same calculations: COUNT,
SUM, MIN, MAX, AVG, LOAD of a field):

- each measured value (a number or a time) takes MAX() and AVG(), and
  gives a value above zero on at least one sample capture;
- each flag (FT_NONE) and each link to a frame (FT_FRAMENUM) takes
  COUNT() (an average of frame numbers means nothing), and counts at
  least one packet on a sample capture;
- a field of any other type fails: the I/O Graph could not plot it;
- every example of docs/plugin.md's I/O Graph table (its calculation, its
  field, its capture) gives a value above zero.

tshark reads each capture in two passes (-2), as Wireshark does: a value
known only after later packets (the rate after a CNP) is then there.

usage: check_io_fields.py TSHARK-WRAPPER PLUGIN-DIR CAPTURES-DIR PLUGIN-DOC
"""
import glob
import os
import re
import subprocess
import sys

NUMBERS = {"FT_UINT8", "FT_UINT16", "FT_UINT24", "FT_UINT32", "FT_UINT64", "FT_INT8", "FT_INT16",
           "FT_INT24", "FT_INT32", "FT_INT64", "FT_FLOAT", "FT_DOUBLE", "FT_RELATIVE_TIME"}
COUNTED = {"FT_NONE", "FT_FRAMENUM"}
# The analysis' fields: its subtree, and the request/response links.
ANALYSIS = re.compile(r"^rocev2\.(analysis(\..+)?|request_in|response_in|response_time)$")
# A row of the doc's table: | `AVG(rocev2.analysis.bytes_in_flight)` | `flows-rc.pcap` | ...
DOC_ROW = re.compile(r"^\|\s*`(COUNT|SUM|MIN|MAX|AVG|LOAD)\(([\w.]+)\)`\s*\|\s*`([\w.-]+\.pcap)`\s*\|")


def tshark(wrapper, plugins, *args):
    r = subprocess.run([wrapper, plugins, *args], capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout, r.stderr


def io_stat(wrapper, plugins, capture, exprs):
    """The values of the expressions (calc, field) over the whole capture
    (one interval), as floats; or raises with tshark's complaint."""
    z = "io,stat,0," + ",".join(f"{c}({f}){f}" for c, f in exprs)
    rc, out, err = tshark(wrapper, plugins, "-r", capture, "-2", "-q", "-z", z)
    if rc != 0:
        raise RuntimeError(f"tshark -z {z[:80]}... on {capture}: exit {rc}: {err.strip()[-400:]}")
    for line in out.splitlines():
        if re.match(r"^\|\s*0(\.0+)? <> ", line):
            cells = [c.strip() for c in line.strip().strip("|").split("|")][1:]
            cells = [c for c in cells if c != ""]
            if len(cells) != len(exprs):
                raise RuntimeError(f"io,stat on {capture}: {len(cells)} values for {len(exprs)} columns: {line}")
            return [float(c) for c in cells]
    raise RuntimeError(f"io,stat on {capture}: no interval row in:\n{out[-2000:]}{err[-400:]}")


def main():
    wrapper, plugins, captures, doc = sys.argv[1:5]
    rc, out, err = tshark(wrapper, plugins, "-G", "fields")
    if rc != 0:
        print(f"FAIL: tshark -G fields: {err.strip()}")
        return 1
    fields = {}
    for line in out.splitlines():
        cols = line.split("\t")
        if len(cols) >= 4 and cols[0] == "F" and ANALYSIS.match(cols[2]):
            fields[cols[2]] = cols[3]
    failures = []
    if len(fields) < 40:
        failures.append(f"only {len(fields)} analysis fields registered: is the plugin loaded?")
    exprs = []
    for name, ftype in sorted(fields.items()):
        if name == "rocev2.analysis":
            continue  # the subtree itself
        if ftype in NUMBERS:
            exprs.append(("MAX", name))
        elif ftype in COUNTED:
            exprs.append(("COUNT", name))
        else:
            failures.append(f"{name} is {ftype}: the I/O Graph cannot plot it")
    samples = sorted(glob.glob(os.path.join(captures, "flows-*.pcap")) +
                     glob.glob(os.path.join(captures, "rxe-*.pcap")) +
                     [os.path.join(captures, "cnp.pcap")])
    best = {e: (0.0, None) for e in exprs}
    for cap in samples:
        try:
            values = io_stat(wrapper, plugins, cap, exprs)
        except RuntimeError as e:
            failures.append(str(e))
            continue
        for e, v in zip(exprs, values):
            if v > best[e][0]:
                best[e] = (v, os.path.basename(cap))
    # The averages of the measured values are taken too (the I/O Graph's
    # AVG(Y)), on the capture where each is largest.
    by_cap = {}
    for (calc, name), (v, cap) in best.items():
        if calc == "MAX" and cap:
            by_cap.setdefault(cap, []).append(("AVG", name))
    for cap, avg_exprs in sorted(by_cap.items()):
        try:
            for e, v in zip(avg_exprs, io_stat(wrapper, plugins, os.path.join(captures, cap), avg_exprs)):
                if v <= 0:
                    failures.append(f"AVG({e[1]}) is {v} on {cap}, where MAX() is above zero")
        except RuntimeError as e:
            failures.append(str(e))
    plotted = 0
    for (calc, name), (v, cap) in sorted(best.items(), key=lambda x: x[0][1]):
        if cap is None:
            failures.append(f"{calc}({name}) is zero on every sample capture: nothing to plot")
        else:
            plotted += 1
            print(f"ok  {calc}({name}) = {v:g} on {cap}")
    # The doc's examples.
    rows = []
    with open(doc, encoding="utf-8") as f:
        for line in f:
            m = DOC_ROW.match(line)
            if m:
                rows.append(m.groups())
    if len(rows) < 5:
        failures.append(f"{doc}: {len(rows)} I/O Graph examples found, expected at least 5")
    for calc, name, cap in rows:
        if name not in fields:
            failures.append(f"{doc}: {calc}({name}): no such analysis field")
            continue
        try:
            (v,) = io_stat(wrapper, plugins, os.path.join(captures, cap), [(calc, name)])
        except RuntimeError as e:
            failures.append(f"{doc}: {e}")
            continue
        if v <= 0:
            failures.append(f"{doc}: {calc}({name}) on {cap} is {v}, not above zero")
        else:
            print(f"ok  doc example {calc}({name}) on {cap} = {v:g}")
    for f in failures:
        print("FAIL:", f)
    print(f"{plotted} fields plotted, {len(rows)} doc examples, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
