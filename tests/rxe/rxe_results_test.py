#!/usr/bin/python3
"""rxe_results.py catches every way docs/rxe-results.md can go stale, per
kernel: a verdict that changed, a case without a row, a failure without an
explanation, a row or a case file that a full run did not cover, a kernel
the document has no column for, a summary that no longer matches; its
update keeps explanations, adds a column for a new kernel and marks what
needs an explanation. No VM needed."""
import json
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
tool = os.path.join(here, "rxe_results.py")
fails = 0
K61, K612 = "6.1.0-57-amd64", "6.12.117+deb13-amd64"


def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += not ok


def run(*args):
    p = subprocess.run([sys.executable, tool] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


DOC = """# rxe
<!-- rxe-kernels:begin -->
| Kernel | Debian suite | Release | Package |
|---|---|---|---|
| 6.1 | bookworm | `6.1.0-57-amd64` | `linux-image-6.1.0-57-amd64-6.1.192-3` |
<!-- rxe-kernels:end -->
<!-- rxe-summary:begin -->
| Kernel | Case runs | Pass | Informative | Fail | Not applicable | Error | Full run |
|---|---|---|---|---|---|---|---|
| 6.1 | 5 (3 cases) | 2 | 0 | 2 (1 cases) | 1 | 0 | 0 min 49 s (+ 25 s boot) |
<!-- rxe-summary:end -->
<!-- rxe-results:begin -->
| Case | 6.1 | Why |
|---|---|---|
| `A-001` | pass | |
| `B-001` | fail | R1: a deviation |
| `C-001` | n/a | no RCM |
<!-- rxe-results:end -->
tail text
"""


def results(rows):
    return {"run": {"duration_ns": 49 * 10**9},
            "cases": [{"id": i, "ip_version": v, "verdict": vd, "reason": "why", "file": i.lower() + ".case"}
                      for i, v, vd in rows]}


with tempfile.TemporaryDirectory() as d:
    doc, res = os.path.join(d, "doc.md"), os.path.join(d, "results.json")
    cases = os.path.join(d, "cases")
    os.mkdir(cases)
    for i in ("A-001", "B-001", "C-001"):
        open(os.path.join(cases, i.lower() + ".case"), "w").write("case %s\n" % i)

    def setup(rows, doc_text=DOC):
        open(doc, "w").write(doc_text)
        json.dump(results(rows), open(res, "w"))

    good = [("A-001", 4, "pass"), ("A-001", 6, "pass"), ("B-001", 4, "fail"), ("B-001", 6, "fail"),
            ("C-001", 4, "not_applicable")]
    setup(good)
    rc, out = run("kernels", doc)
    check(rc == 0 and out.strip() == "6.1 bookworm 6.1.0-57-amd64", "the kernels the document records: %s" % out.strip())
    rc, out = run("check", res, doc, "--kernel", K61, "--all", cases)
    check(rc == 0 and "5 case runs (3 cases) on 6.1 (6.1.0-57-amd64) match" in out, "a full run that matches: %s" % out.strip())
    rc, out = run("check", res, doc, "--kernel", K612)
    check(rc == 1 and "has no column for kernel 6.12.117+deb13-amd64" in out, "a kernel without a column: %s" % out.strip())
    # A newer build of a recorded kernel line (the archive moved on) is
    # judged against that line's column, with a note; a verdict that moved
    # still fails.
    rc, out = run("check", res, doc, "--kernel", "6.1.0-58-amd64", "--all", cases)
    check(rc == 0 and "ran Linux 6.1.0-58-amd64" in out and "judged against that column" in out and
          "on 6.1 (6.1.0-58-amd64) match" in out, "a newer build of a recorded kernel: %s" % out.strip())
    setup([("A-001", 4, "fail")] + good[1:])
    rc, out = run("check", res, doc, "--kernel", "6.1.0-58-amd64")
    check(rc == 1 and "A-001 IPv4: fail against rxe 6.1, the document says pass" in out,
          "a newer build of a recorded kernel whose verdict moved: %s" % out.strip())
    setup(good)
    setup(good[:2])
    rc, out = run("check", res, doc, "--kernel", K61)
    check(rc == 0, "a subset that matches: %s" % out.strip())
    rc, out = run("check", res, doc, "--kernel", K61, "--all", cases)
    check(rc == 1 and "B-001 (" in out and "is in the suite but not in the run" in out and "did not run" in out,
          "a subset is not a full run: %s" % out.strip())
    setup(good, DOC.replace("| 2 | 0 | 2 (1 cases)", "| 3 | 0 | 2 (1 cases)"))
    rc, out = run("check", res, doc, "--kernel", K61, "--all", cases)
    check(rc == 1 and "the summary of 6.1 says" in out, "stale summary counts: %s" % out.strip())
    setup(good, DOC.replace("| `A-001` | pass |", "| `A-001` | IPv4 pass, IPv6 pass |"))
    json.dump(results([x for x in good if x[:2] != ("A-001", 6)]), open(res, "w"))
    rc, out = run("check", res, doc, "--kernel", K61, "--all", cases)
    check(rc == 1 and "A-001: the document gives IPv6 a verdict on 6.1 but it did not run over IPv6" in out,
          "a full run without an IP version the document has: %s" % out.strip())
    setup([("A-001", 4, "fail")])
    rc, out = run("check", res, doc, "--kernel", K61)
    check(rc == 1 and "A-001 IPv4: fail against rxe 6.1, the document says pass" in out, "a changed verdict: %s" % out.strip())
    setup([("A-001", 4, "pass"), ("A-001", 6, "fail")], DOC.replace("| `A-001` | pass |", "| `A-001` | IPv4 pass, IPv6 fail |"))
    rc, out = run("check", res, doc, "--kernel", K61)
    check(rc == 1 and "A-001: fail without an explanation" in out, "per-IP cells, and a failure without an explanation: %s" %
          out.strip())
    setup([("D-001", 4, "pass")])
    rc, out = run("check", res, doc, "--kernel", K61)
    check(rc == 1 and "D-001 ran but has no row" in out, "a case without a row: %s" % out.strip())
    setup(good, DOC.replace("R1: a deviation", ""))
    rc, out = run("check", res, doc, "--kernel", K61)
    check(rc == 1 and "B-001: fail without an explanation" in out, "a failure without an explanation: %s" % out.strip())
    setup(good, DOC.replace("| `A-001` | pass |", "| `A-001` | passed |"))
    rc, out = run("check", res, doc, "--kernel", K61)
    check(rc != 0 and "'passed' is not a verdict" in out, "a malformed verdict: %s" % out.strip())
    setup(good, DOC.replace("| `A-001` | pass | |", "| `A-001` | pass | pass | |"))
    rc, out = run("check", res, doc, "--kernel", K61)
    check(rc != 0 and "expected 3 (case, 6.1, why)" in out, "a row with a cell too many: %s" % out.strip())

    # update: a new kernel gets a column; verdicts from the run,
    # explanations kept, new failures marked; the summary row added.
    setup([("A-001", 4, "pass"), ("A-001", 6, "pass"), ("B-001", 4, "pass"), ("B-001", 6, "pass"),
           ("C-001", 4, "not_applicable"), ("E-001", 4, "fail"), ("E-001", 6, "pass")])
    rc, out = run("update", res, doc, "--kernel", K612, "--suite", "trixie", "--package", "linux-image-6.12",
                  "--boot-seconds", "30")
    text = open(doc).read()
    check(rc == 0 and "| 6.12 | trixie | `6.12.117+deb13-amd64` | `linux-image-6.12` |" in text and
          "| Case | 6.1 | 6.12 | Why |" in text and "| `B-001` | fail | pass | R1: a deviation |" in text and
          "| `E-001` | - | IPv4 fail, IPv6 pass | TO EXPLAIN |" in text and "| `A-001` | pass | pass |  |" in text and
          "| 6.12 | 7 (4 cases) | 5 | 0 | 1 (1 cases) | 1 | 0 | 0 min 49 s (+ 30 s boot) |" in text and
          text.endswith("tail text\n") and "1 rows to explain" in out,
          "update adds a column, keeps explanations, marks new failures: %s\n%s" % (out.strip(), text))
    rc, out = run("check", res, doc, "--kernel", K612)
    check(rc == 1 and "E-001: fail without an explanation" in out, "a marked row fails the check until explained")
    rc, out = run("check", res, doc, "--kernel", K61)
    check("B-001 IPv4: pass against rxe 6.1, the document says fail" in out, "the other column stays as it was: %s" %
          out.strip())
    # A newer release of a column's kernel replaces the column's release.
    rc, out = run("update", res, doc, "--kernel", "6.12.120+deb13-amd64", "--suite", "trixie", "--package", "p")
    text = open(doc).read()
    check(rc == 0 and "`6.12.120+deb13-amd64`" in text and "`6.12.117+deb13-amd64`" not in text,
          "a newer release takes its column over")

sys.exit(1 if fails else 0)
