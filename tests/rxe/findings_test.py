#!/usr/bin/python3
"""docs/findings.md against docs/rxe-results.md (findings.py): the two
agree, and the check catches every way they can drift apart, shown on
copies changed one way each: a deviation without its section or summary
row (a new ID such as R15 included), a stale section, a verdict
changed in rxe-results.md, a case added to or dropped from a deviation, a
rule re-graded in the catalogue or named differently, a kernel column
added, a case file that does not exist; and the benchmark of real bugs:
a recall figure or percentage that the table does not give, a miss
marked caught, a profile the case's mutants header does not name, a
should counted as a failure.

usage: findings_test.py SOURCE-DIR
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
tool = os.path.join(here, "findings.py")
fails = 0


def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += not ok


def run(results, findings, rules, src):
    p = subprocess.run([sys.executable, tool, "check", results, findings, rules, src], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main():
    src = os.path.abspath(sys.argv[1])
    results = os.path.join(src, "docs", "rxe-results.md")
    findings = os.path.join(src, "docs", "findings.md")
    rules = os.path.join(src, "lib", "include", "roce", "rules.def")
    rc, out = run(results, findings, rules, src)
    print(out.strip())
    check(rc == 0, "docs/findings.md agrees with docs/rxe-results.md and the catalogue")

    tmp = tempfile.mkdtemp(prefix="findings-test-")
    try:
        base = {k: open(v).read() for k, v in (("r", results), ("f", findings), ("d", rules))}

        def variant(what, expect, r=None, f=None, d=None):
            paths = {}
            for k, text in (("r", r), ("f", f), ("d", d)):
                paths[k] = os.path.join(tmp, k)
                with open(paths[k], "w") as fh:
                    fh.write(base[k] if text is None else text)
            code, text = run(paths["r"], paths["f"], paths["d"], src)
            check(code == 1 and expect in text, "%s: caught (%s)" % (what, expect))
            if code != 1 or expect not in text:
                print(text)

        # A new deviation in rxe-results.md, with the placeholder ID another
        # change would give it: findings.md must get a section and a row.
        new = ("### RNEW-ZZ-9: a new deviation\n\n*Case*: `MW-BOUNDS-001`. *Rule*: IBA10.6.7-MW-BOUNDS "
               "(binds the responder, must).\n\n")
        r_new = base["r"].replace("### I1:", new + "### I1:", 1)
        variant("a new deviation RNEW-ZZ-9", "RNEW-ZZ-9 (a new deviation) has no section", r=r_new)
        variant("a new deviation RNEW-ZZ-9, summary", "RNEW-ZZ-9 has no row in the summary table", r=r_new)
        # Its section removed from findings.md.
        f_no_r1 = re.sub(r"### R1: .*?(?=### R2: )", "", base["f"], flags=re.S)
        variant("R1's section missing", "R1 (ghost ACKs complete work requests) has no section", f=f_no_r1)
        # A section for a deviation rxe-results.md no longer has.
        r_no_i3 = re.sub(r"### I3: .*?(?=\n## )", "", base["r"], flags=re.S)
        variant("I3 removed from rxe-results.md", "I3 is in", r=r_no_i3)
        # A verdict that changed in rxe-results.md's table.
        r_verdict = base["r"].replace("| `MW-BOUNDS-001` | fail | fail | fail |", "| `MW-BOUNDS-001` | fail | pass | pass |")
        check(r_verdict != base["r"], "the variant changes MW-BOUNDS-001's row")
        variant("a verdict changed", "case MW-BOUNDS-001 is fail | fail | fail in findings.md, fail | pass | pass",
                r=r_verdict)
        # A case added to a deviation in rxe-results.md.
        r_case = base["r"].replace("*Case*: `MW-BOUNDS-001`", "*Cases*: `MW-BOUNDS-001`, `MW-INVALID-001`", 1)
        variant("a case added to R12", "case MW-INVALID-001 (pass | pass | pass) is not in its table", r=r_case)
        # A case in findings.md that the deviation does not name.
        f_case = base["f"].replace("| `MW-BOUNDS-001` | fail | fail | fail |",
                                   "| `MW-BOUNDS-001` | fail | fail | fail |\n| `MW-INVALID-001` | pass | pass | pass |")
        variant("an extra case in R12", "case MW-INVALID-001 is in findings.md, not among", f=f_case)
        # A rule re-graded in the catalogue (a must that becomes a should).
        d_grade = re.sub(r'("IBA9.7-GHOST-ACK", ERROR, DUT, REQUESTER, )MUST', r"\1SHOULD", base["d"])
        check(d_grade != base["d"], "the variant re-grades IBA9.7-GHOST-ACK")
        variant("a rule re-graded", "IBA9.7-GHOST-ACK is said to bind the requester, must; the catalogue: requester, "
                "should", d=d_grade)
        # A rule that rxe-results.md names differently.
        r_rule = base["r"].replace("IBA9.7-GHOST-ACK (binds the requester, must)",
                                   "IBA9.7-COMPLETION (binds the requester, must)", 1)
        variant("a rule renamed", "R1: rules ['IBA9.7-GHOST-ACK'] in findings.md, ['IBA9.7-COMPLETION']", r=r_rule)
        # A kernel column added to rxe-results.md.
        r_kernel = base["r"].replace(
            "| 7.2 | sid |", "| 7.3 | sid2 | `7.3.0-1-amd64` | `linux-image-7.3.0-1-amd64-7.3-1` |\n| 7.2 | sid |", 1)
        r_kernel = re.sub(r"^(\| `[A-Z0-9-]+` \| [^|]+ \| [^|]+ \| [^|]+ \|)", r"\1 - |", r_kernel, flags=re.M)
        r_kernel = r_kernel.replace("| Case | 6.1 | 6.12 | 7.2 | Why |\n|---|---|---|---|---|",
                                    "| Case | 7.3 | 6.1 | 6.12 | 7.2 | Why |\n|---|---|---|---|---|---|")
        variant("a kernel column added", "the case table's kernel columns are ['6.1', '6.12', '7.2']", r=r_kernel)
        # A case file the command names that does not exist.
        f_path = base["f"].replace("conformance-cases/rc-requester/ghost-ack.case",
                                   "conformance-cases/rc-requester/no-such.case", 1)
        variant("a case file that does not exist", "conformance-cases/rc-requester/no-such.case does not exist", f=f_path)
        # The benchmark of real bugs: its recall line recounted from the
        # table, and each caught row's case naming its profile.
        f_recall = base["f"].replace("**14 of 20 caught (70 %)**", "**15 of 20 caught (75 %)**", 1)
        check(f_recall != base["f"], "the variant changes the recall line")
        variant("the recall raised by hand", "the recall says 15 of 20 caught; the table has 14 of 20", f=f_recall)
        f_pct = base["f"].replace("**14 of 20 caught (70 %)**", "**14 of 20 caught (90 %)**", 1)
        variant("the percentage raised by hand", "the recall says 90 %; the table gives 70 %", f=f_pct)
        f_row = re.sub(r"^(\| B15 \|.*\| )no \|$", r"\1yes |", base["f"], count=1, flags=re.M)
        check(f_row != base["f"], "the variant marks B15 caught")
        variant("a miss marked caught without a case", "benchmark B15: caught, but names no case and profile", f=f_row)
        f_prof = base["f"].replace("`UD-OVERSIZE-SURVIVE-001`; `bug-ud-oversize-error`",
                                   "`UD-OVERSIZE-SURVIVE-001`; `bug-pad-overrun-halt`", 1)
        check(f_prof != base["f"], "the variant names another profile for B2")
        variant("a profile the case does not name", "UD-OVERSIZE-SURVIVE-001's mutants header does not name "
                "bug-pad-overrun-halt", f=f_prof)
        f_inf = re.sub(r"^(\| B14 \|.*\| )informative \|$", r"\1yes |", base["f"], count=1, flags=re.M)
        check(f_inf != base["f"], "the variant marks B14 a failure")
        variant("a should counted as a failure", "UC-ACKREQ-001's mutants header does not name bug-ackreq-unreliable",
                f=f_inf)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if fails:
        print("findings_test: %d check(s) failed" % fails)
        return 1
    print("findings_test: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
