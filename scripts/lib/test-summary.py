#!/usr/bin/python3
"""What ./scripts/test ran, from the JUnit files its ctest runs wrote.

  test-summary.py [--strict] STAGE=JUNIT.xml...

Prints how many kernels rxe_suite ran, the ten slowest tests of all the
runs, then every skip with its reason: a test CTest skipped (exit 77), and
a part of a passing test that said "SKIP: " on a line of its own
(rxe_suite's kernels, a release of Wireshark), so that no skip goes unseen.

--strict (./scripts/test --full): a skip fails the run unless
ROCE_ALLOW_SKIP names it. ROCE_ALLOW_SKIP is a list of names, separated by
spaces or commas: a test's name (plugin_ws4.2_root) allows that test's
skips, TEST:WORD (rxe_suite:6.1, rxe_suite:sid) only those of its skip
lines that name WORD before their reason's first colon.

Exit: 0, or 1 when --strict finds a skip nobody allowed, 2 on bad input.
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

# rxe_suite's last line: "rxe_suite: 3 kernel(s) ran, 0 failed, 0 skipped".
KERNELS_LINE = re.compile(r"^rxe_suite: \d+ kernel\(s\) ran, ")
# "SKIP: why" or "name: SKIP: why" at the start of a line.
SKIP_LINE = re.compile(r"^(?:[\w.+-]+: )?SKIP: (.*)$")


def skip_lines(out):
    return [m.group(1).strip() for m in map(SKIP_LINE.match, out.splitlines()) if m]


def read(stage, path):
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        print("test-summary: %s: %s" % (path, e), file=sys.stderr)
        sys.exit(2)
    for c in root.iter("testcase"):
        out = c.findtext("system-out") or ""
        status = c.get("status", "run")
        skipped = c.find("skipped") is not None or status in ("notrun", "disabled")
        yield {"stage": stage, "name": c.get("name"), "time": float(c.get("time") or 0),
               "skipped": skipped, "failed": c.find("failure") is not None, "out": out}


def allowed(allow, test, reason):
    # WORD names a skip line by a word of what it skipped: the part of its
    # reason before the first colon ("7.2 (sid, 7.2.13+deb14-amd64): ...").
    head = re.findall(r"[\w.+-]+", reason.split(":", 1)[0])
    for a in allow:
        name, _, word = a.partition(":")
        if name == test and (not word or word in head):
            return True
    return False


def main(argv):
    strict = "--strict" in argv
    runs = [a for a in argv if a != "--strict"]
    if not runs or any("=" not in r for r in runs):
        print("usage: test-summary.py [--strict] STAGE=JUNIT.xml...", file=sys.stderr)
        return 2
    tests = []
    for r in runs:
        stage, path = r.split("=", 1)
        if os.path.exists(path):
            tests.extend(read(stage, path))
    allow = [a for a in re.split(r"[\s,]+", os.environ.get("ROCE_ALLOW_SKIP", "")) if a]

    # What ran on real devices: rxe_suite's count of kernels, per stage.
    for t in tests:
        for line in t["out"].splitlines():
            if KERNELS_LINE.match(line):
                print("== %s (%s)" % (line.strip(), t["stage"]))

    print("== the ten slowest tests")
    for t in sorted(tests, key=lambda t: -t["time"])[:10]:
        print("   %7.1f s  %-34s (%s)" % (t["time"], t["name"], t["stage"]))

    skips = []
    for t in tests:
        lines = skip_lines(t["out"])
        if t["skipped"]:
            skips.append((t, lines[-1] if lines else "no reason given (the test printed no 'SKIP: ' line)", True))
        elif not t["failed"]:
            skips.extend((t, why, False) for why in lines)
    print("== skips: %d" % len(skips))
    refused = 0
    for t, why, whole in skips:
        ok = allowed(allow, t["name"], why)
        mark = "allowed" if ok else ("NOT ALLOWED" if strict else "")
        refused += strict and not ok
        print("   %s%s (%s): %s%s" % (t["name"], "" if whole else " (part)", t["stage"], why,
                                     "  [%s]" % mark if mark else ""))
    if refused:
        print("test-summary: %d skip(s) in the full tier that ROCE_ALLOW_SKIP does not name: a green full run "
              "means everything ran. Make it runnable, or name it (ROCE_ALLOW_SKIP='TEST' or 'TEST:WORD') "
              "where it truly cannot run." % refused)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
