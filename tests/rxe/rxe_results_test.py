#!/usr/bin/python3
"""rxe_results.py catches every way docs/rxe-results.md can go stale: a
verdict that changed, a case without a row, a failure without an
explanation, a row or a case file that a full run did not cover; and its
update keeps explanations and marks what needs one. No VM needed."""
import json
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
tool = os.path.join(here, "rxe_results.py")
fails = 0


def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += not ok


def run(*args):
    p = subprocess.run([sys.executable, tool] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


DOC = """# rxe
<!-- rxe-summary:begin -->
Of 5 case runs (3 cases; a few run over one IP version only): 2 pass, 0 informative, 2 fail (1 cases), 1 not applicable, 0 error.
<!-- rxe-summary:end -->
<!-- rxe-results:begin -->
| Case | IPv4 | IPv6 | Why |
|---|---|---|---|
| `A-001` | pass | pass |  |
| `B-001` | fail | fail | R1: a deviation |
| `C-001` | n/a | - | no RCM |
<!-- rxe-results:end -->
tail text
"""


def results(rows):
    return {"cases": [{"id": i, "ip_version": v, "verdict": vd, "reason": "why", "file": i.lower() + ".case"}
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
    rc, out = run("check", res, doc, "--all", cases)
    check(rc == 0 and "5 case runs (3 cases) match" in out, "a full run that matches: %s" % out.strip())
    setup(good[:2])
    rc, out = run("check", res, doc)
    check(rc == 0, "a subset that matches: %s" % out.strip())
    rc, out = run("check", res, doc, "--all", cases)
    check(rc == 1 and "B-001 (" in out and "is in the suite but not in the run" in out and "did not run" in out,
          "a subset is not a full run: %s" % out.strip())
    setup(good, DOC.replace("2 pass", "3 pass"))
    rc, out = run("check", res, doc, "--all", cases)
    check(rc == 1 and "the summary says" in out, "stale summary counts: %s" % out.strip())
    setup([x for x in good if x[:2] != ("A-001", 6)])
    rc, out = run("check", res, doc, "--all", cases)
    check(rc == 1 and "A-001: the document gives IPv6 a verdict but it did not run over IPv6" in out,
          "a full run without an IP version the document has: %s" % out.strip())
    setup([("A-001", 4, "fail")])
    rc, out = run("check", res, doc)
    check(rc == 1 and "A-001 IPv4: fail against rxe, the document says pass" in out, "a changed verdict: %s" % out.strip())
    setup([("D-001", 4, "pass")])
    rc, out = run("check", res, doc)
    check(rc == 1 and "D-001 ran but has no row" in out, "a case without a row: %s" % out.strip())
    setup(good, DOC.replace("R1: a deviation", ""))
    rc, out = run("check", res, doc)
    check(rc == 1 and "B-001: fail without an explanation" in out, "a failure without an explanation: %s" % out.strip())
    setup(good, DOC.replace("| `A-001` | pass | pass |", "| `A-001` | passed | pass |"))
    rc, out = run("check", res, doc)
    check(rc != 0 and "'passed' is not a verdict" in out, "a malformed verdict: %s" % out.strip())

    # update: verdicts from the run, explanations kept, new failures marked.
    setup(good + [("E-001", 4, "fail"), ("E-001", 6, "pass")])
    rc, out = run("update", res, doc)
    text = open(doc).read()
    check(rc == 0 and "| `B-001` | fail | fail | R1: a deviation |" in text and
          "| `E-001` | fail | pass | TO EXPLAIN |" in text and text.endswith("tail text\n") and "1 to explain" in out
          and "Of 7 case runs (4 cases; a few run over one IP version only): 3 pass, 0 informative, 3 fail (2 cases)" in text,
          "update keeps explanations and marks new failures: %s" % out.strip())
    rc, out = run("check", res, doc)
    check(rc == 1 and "E-001: fail/pass without an explanation" in out, "a marked row fails the check until explained")

sys.exit(1 if fails else 0)
