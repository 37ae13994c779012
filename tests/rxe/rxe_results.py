#!/usr/bin/python3
"""Keeps docs/rxe-results.md true to what the suite finds against Linux
Soft-RoCE.

The document's table (between <!-- rxe-results:begin --> and
<!-- rxe-results:end -->) has one row per case: its ID, its verdict over
IPv4 and over IPv6, and, for every verdict other than pass, the
explanation (a deviation of rxe, with its section, or why the case does
not apply).

  rxe_results.py check RESULTS.json DOC.md [--all CASES-DIR]
      Every case run in RESULTS.json has a row whose verdicts match; every
      row that is not a pass explains itself. With --all, the run also
      covered every case file under CASES-DIR and every row of the table.
  rxe_results.py update RESULTS.json DOC.md
      Rewrites the table's verdicts from a full run, keeping the
      explanations, and marks rows that need one.
"""
import json
import os
import re
import sys

BEGIN, END = "<!-- rxe-results:begin -->", "<!-- rxe-results:end -->"
HEADER = ["| Case | IPv4 | IPv6 | Why |", "|---|---|---|---|"]
SHORT = {"pass": "pass", "fail": "fail", "informative": "informative", "not_applicable": "n/a", "error": "error"}
LONG = {v: k for k, v in SHORT.items()}
TODO = "TO EXPLAIN"


def read_doc(path):
    text = open(path).read()
    if BEGIN not in text or END not in text:
        sys.exit("%s: no %s ... %s table" % (path, BEGIN, END))
    head, rest = text.split(BEGIN, 1)
    table, tail = rest.split(END, 1)
    rows = {}
    for n, line in enumerate(table.strip().splitlines()):
        line = line.strip()
        if not line.startswith("|") or line in HEADER:
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) != 4:
            sys.exit("%s: table row %d has %d cells, expected 4: %s" % (path, n, len(cells), line))
        cid = cells[0].strip("`")
        verdicts = {}
        for ipv, cell in ((4, cells[1]), (6, cells[2])):
            if cell == "-":
                continue
            if cell not in LONG:
                sys.exit("%s: %s: '%s' is not a verdict (%s)" % (path, cid, cell, ", ".join(LONG)))
            verdicts[ipv] = LONG[cell]
        if cid in rows:
            sys.exit("%s: %s has two rows" % (path, cid))
        rows[cid] = (verdicts, cells[3])
    return head, rows, tail


def run_verdicts(results):
    r = json.load(open(results))
    got = {}
    for c in r["cases"]:
        got.setdefault(c["id"], {})[c["ip_version"]] = (c["verdict"], c["reason"], c["file"])
    return got


def case_ids(cases_dir):
    ids = {}
    for root, _, files in os.walk(cases_dir):
        for f in files:
            if f.endswith(".case"):
                for line in open(os.path.join(root, f)):
                    m = re.match(r"\s*case\s+(\S+)", line)
                    if m:
                        ids[m.group(1)] = os.path.join(root, f)
                        break
    return ids


def check(results, doc, all_dir):
    _, rows, _ = read_doc(doc)
    got = run_verdicts(results)
    problems = []
    for cid, by_ip in sorted(got.items()):
        if cid not in rows:
            problems.append("%s ran but has no row in %s" % (cid, doc))
            continue
        want = rows[cid][0]
        for ipv, (verdict, reason, _) in sorted(by_ip.items()):
            if want.get(ipv) != verdict:
                problems.append("%s IPv%d: %s against rxe, the document says %s (%s)" %
                                (cid, ipv, verdict, want.get(ipv, "nothing"), reason[:300]))
    for cid, (verdicts, why) in rows.items():
        if any(v != "pass" for v in verdicts.values()) and (not why or TODO in why):
            problems.append("%s: %s without an explanation" % (cid, "/".join(sorted(set(verdicts.values())))))
    if all_dir:
        for cid, path in sorted(case_ids(all_dir).items()):
            if cid not in got:
                problems.append("%s (%s) is in the suite but not in the run" % (cid, path))
        for cid, (verdicts, _) in rows.items():
            if cid not in got:
                problems.append("%s has a row but did not run" % cid)
                continue
            for ipv in sorted(set(verdicts) - set(got[cid])):
                problems.append("%s: the document gives IPv%d a verdict but it did not run over IPv%d" % (cid, ipv, ipv))
    for p in problems:
        print("rxe-results: FAIL: " + p)
    n = sum(len(v) for v in got.values())
    if not problems:
        print("rxe-results: ok: %d case runs (%d cases) match %s" % (n, len(got), doc))
    return 1 if problems else 0


def update(results, doc):
    head, rows, tail = read_doc(doc)
    got = run_verdicts(results)
    lines = list(HEADER)
    todo = 0
    for cid in sorted(got):
        cells = []
        for ipv in (4, 6):
            v = got[cid].get(ipv)
            cells.append(SHORT[v[0]] if v else "-")
        why = rows.get(cid, ({}, ""))[1]
        if any(c not in ("pass", "-") for c in cells) and not why:
            why = TODO
            todo += 1
        if all(c in ("pass", "-") for c in cells):
            why = ""
        lines.append("| `%s` | %s | %s | %s |" % (cid, cells[0], cells[1], why))
    with open(doc, "w") as f:
        f.write(head + BEGIN + "\n" + "\n".join(lines) + "\n" + END + tail)
    print("rxe-results: %s: %d rows, %d to explain" % (doc, len(lines) - 2, todo))
    return 0


def main():
    a = sys.argv[1:]
    if len(a) >= 3 and a[0] == "check":
        all_dir = a[a.index("--all") + 1] if "--all" in a else None
        return check(a[1], a[2], all_dir)
    if len(a) == 3 and a[0] == "update":
        return update(a[1], a[2])
    print(__doc__)
    return 2


sys.exit(main())
