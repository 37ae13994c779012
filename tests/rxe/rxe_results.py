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
      It also checks the counts between <!-- rxe-summary:begin --> and
      <!-- rxe-summary:end -->.
  rxe_results.py update RESULTS.json DOC.md
      Rewrites the table's verdicts and the summary's counts from a full
      run, keeping the explanations, and marks rows that need one.
"""
import json
import os
import re
import sys

BEGIN, END = "<!-- rxe-results:begin -->", "<!-- rxe-results:end -->"
SUM_BEGIN, SUM_END = "<!-- rxe-summary:begin -->", "<!-- rxe-summary:end -->"
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


def summary(got):
    """The counts a full run gives, as the document's summary says them."""
    runs = [v for by_ip in got.values() for v in by_ip.values()]
    n = {k: sum(1 for v in runs if v[0] == k) for k in SHORT}
    failing = sum(1 for by_ip in got.values() if any(v[0] == "fail" for v in by_ip.values()))
    return ("Of %d case runs (%d cases; a few run over one IP version only): %d pass, %d informative, "
            "%d fail (%d cases), %d not applicable, %d error." %
            (len(runs), len(got), n["pass"], n["informative"], n["fail"], failing, n["not_applicable"], n["error"]))


def doc_summary(path):
    text = open(path).read()
    if SUM_BEGIN not in text or SUM_END not in text:
        return None
    return " ".join(text.split(SUM_BEGIN, 1)[1].split(SUM_END, 1)[0].split())


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
        want_sum = summary(got)
        if doc_summary(doc) != want_sum:
            problems.append("the summary says '%s'; the run: '%s'" % (doc_summary(doc), want_sum))
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
    text = head + BEGIN + "\n" + "\n".join(lines) + "\n" + END + tail
    if SUM_BEGIN in text and SUM_END in text:
        before, rest = text.split(SUM_BEGIN, 1)
        text = before + SUM_BEGIN + "\n" + summary(got) + "\n" + SUM_END + rest.split(SUM_END, 1)[1]
    with open(doc, "w") as f:
        f.write(text)
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
