#!/usr/bin/python3
"""scripts/lib/test-summary.py, which ./scripts/test ends with: the ten
slowest tests in order, every skip listed with its reason (a test CTest
skipped, a "SKIP: " line of a passing test, none from a failing one), and
--strict failing on each skip ROCE_ALLOW_SKIP does not name, by test or by
TEST:WORD. JUnit files as CTest writes them, made up here."""
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
tool = os.path.join(here, "..", "scripts", "lib", "test-summary.py")
fails = 0

JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="(empty)" tests="5" failures="1" disabled="0" skipped="1" hostname="" time="0">
  <testcase name="slow_one" classname="slow_one" time="42.5" status="run"><system-out>ok
</system-out></testcase>
  <testcase name="fast_one" classname="fast_one" time="0.1" status="run"><system-out></system-out></testcase>
  <testcase name="plugin_ws4.2_root" classname="plugin_ws4.2_root" time="1.2" status="notrun">
    <skipped message="SKIP_RETURN_CODE=77"/>
    <system-out>SKIP: Wireshark 4.2 (noble): the archive cannot be reached
</system-out></testcase>
  <testcase name="rxe_suite" classname="rxe_suite" time="30.0" status="run"><system-out>rxe_suite: 6.1 (bookworm, 6.1.0-57-amd64)
rxe_suite: SKIP: 7.2 (sid, 7.2.13+deb14-amd64): no sid kernel in /cache
a line that mentions SKIP: in the middle is no skip
rxe_suite: 1 kernel(s) ran, 0 failed, 1 skipped
</system-out></testcase>
  <testcase name="broken" classname="broken" time="3.0" status="fail"><failure message="Failed"/>
    <system-out>thing: SKIP: a failing test's skip line is its failure's business
</system-out></testcase>
</testsuite>
"""


def check(ok, what, out=""):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        print("  | " + out.replace("\n", "\n  | "))
    fails += not ok


def run(junit, *args, allow=None):
    env = dict(os.environ)
    env.pop("ROCE_ALLOW_SKIP", None)
    if allow is not None:
        env["ROCE_ALLOW_SKIP"] = allow
    p = subprocess.run([sys.executable, tool] + list(args) + ["build=" + junit], capture_output=True, text=True,
                       env=env)
    return p.returncode, p.stdout + p.stderr


def main():
    with tempfile.TemporaryDirectory() as d:
        junit = os.path.join(d, "build.xml")
        with open(junit, "w") as f:
            f.write(JUNIT)
        rc, out = run(junit)
        slow = [l.split()[2] for l in out.splitlines() if l.strip().endswith("(build)") and " s  " in l]
        check(slow[:3] == ["slow_one", "rxe_suite", "broken"], "the slowest first", out)
        check(rc == 0 and "== skips: 2" in out, "two skips, listed without --strict", out)
        check("== rxe_suite: 1 kernel(s) ran, 0 failed, 1 skipped (build)" in out, "rxe_suite's count of kernels", out)
        check("plugin_ws4.2_root (build): Wireshark 4.2 (noble): the archive cannot be reached" in out,
              "a skipped test with its reason", out)
        check("rxe_suite (part) (build): 7.2 (sid, 7.2.13+deb14-amd64): no sid kernel in /cache" in out,
              "a passing test's skip line", out)
        check("in the middle" not in out and "failure's business" not in out,
              "no skip read from the middle of a line or from a failing test", out)
        rc, out = run(junit, "--strict")
        check(rc == 1 and out.count("[NOT ALLOWED]") == 2 and "2 skip(s)" in out, "--strict fails on both", out)
        rc, out = run(junit, "--strict", allow="plugin_ws4.2_root rxe_suite:7.2")
        check(rc == 0 and out.count("[allowed]") == 2, "both named: by test, and by TEST:WORD", out)
        rc, out = run(junit, "--strict", allow="plugin_ws4.2_root,rxe_suite:sid")
        check(rc == 0, "TEST:WORD by another word of what was skipped, commas as separators", out)
        rc, out = run(junit, "--strict", allow="plugin_ws4.2_root rxe_suite:6.1 slow_one")
        check(rc == 1 and out.count("[NOT ALLOWED]") == 1 and "rxe_suite (part)" in out,
              "a word the skip does not name allows nothing", out)
        rc, out = run(os.path.join(d, "missing.xml"), "--strict")
        check(rc == 0 and "== skips: 0" in out, "a stage that wrote no results (it did not run) adds nothing", out)
        bad = os.path.join(d, "bad.xml")
        with open(bad, "w") as f:
            f.write("<testsuite>")
        rc, out = run(bad)
        check(rc == 2 and "bad.xml" in out, "a broken file is an error that names it", out)
    print("test_summary_check: %d failed" % fails)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
