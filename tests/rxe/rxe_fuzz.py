#!/usr/bin/python3
"""Judges a `roce-tester fuzz` run against rxe (the test rxe_fuzz).

  rxe_fuzz.py check RESULTS.json SERIAL.log FUZZ.md RXE-RESULTS.md --kernel COLUMN [--guest-died]
      Every finding of the run must be one docs/fuzz.md records as known on
      that kernel (its block "rxe-fuzz-known": kernels, kind, rule, and the
      deviation of docs/rxe-results.md that explains it); one that is not
      is printed with its case file and fails the check. The guest's whole
      kernel log (run-with-rxe --kernel-log, in SERIAL.log) must hold no
      warning, BUG, oops, stall, general protection fault, KASAN or UBSAN
      report that the block does not record (a row whose rule is "kernel
      log: TEXT", TEXT in the line): each such line is a hang/crash finding
      of its own. Without the whole log (the guest stopped before it
      printed it) the console is judged. --guest-died: the guest did not
      stop cleanly after the run, a finding unless a known kernel report
      explains it. A hang in a batch whose console showed a known crash of
      the kernel (BUG, oops, panic) follows from that crash and counts
      under it. Prints one line per finding and a summary line.
  rxe_fuzz.py known FUZZ.md RXE-RESULTS.md
      Checks the block alone: each row names a deviation that
      docs/rxe-results.md has a section for, and that section names the
      row's rule.
"""
import json
import re
import sys

BEGIN, END = "<!-- rxe-fuzz-known:begin -->", "<!-- rxe-fuzz-known:end -->"
KINDS = ("leak", "acceptance", "hang", "corruption")
# What a kernel log line must not say after a fuzzing run. "WARNING:"
# with its colon: the kernel's WARN() prints "WARNING: CPU: ..."; "BUG:"
# covers "BUG: unable to handle", "BUG: soft lockup", "BUG: KASAN".
# Not "Call Trace": it follows one of these, which names the place.
KERNEL_MARKS = ("WARNING:", "BUG:", "Oops", "general protection", "stall", "hung_task", "blocked for more than",
                "KASAN", "UBSAN", "Kernel panic")
# The console lines that say the kernel itself went down.
CRASH_MARKS = ("BUG:", "Oops", "general protection", "Kernel panic")
# A row whose rule is "kernel log: TEXT" stands for a kernel log line that
# holds TEXT (a function's name: line numbers differ between kernels),
# seen by the fuzzer on the console (a hang finding without a rule) or in
# the whole log afterwards.
KLOG = "kernel log: "
# A row whose rule is "device: TEXT" stands for a finding of the whole
# device without a rule (the agent stopped answering) whose text holds TEXT.
DEVICE = "device: "


def die(msg):
    sys.exit("rxe_fuzz: " + msg)


def known_rows(fuzz_md, results_md):
    """[(kernels, kinds, rule, deviation)] from the block, each checked."""
    text = open(fuzz_md).read()
    if BEGIN not in text or END not in text:
        die("%s: no %s ... %s block" % (fuzz_md, BEGIN, END))
    body = text.split(BEGIN, 1)[1].split(END, 1)[0]
    devs = {}
    doc = open(results_md).read()
    for m in re.finditer(r"^### ([A-Z0-9-]+): .*?$(.*?)(?=^### |^## |\Z)", doc, re.M | re.S):
        devs[m.group(1)] = re.sub(r"\s+", " ", m.group(2))
    rows = []
    lines = [ln.strip() for ln in body.strip().splitlines() if ln.strip().startswith("|")]
    for n, line in enumerate(lines[2:], 1):  # the header and its rule
        cells = [c.strip().strip("`") for c in line.strip("|").split("|")]
        if len(cells) < 5:
            die("%s: row %d of the known-findings block has %d cells, not 5 (kernels, kind, rule, deviation, why)"
                % (fuzz_md, n, len(cells)))
        kernels = {k.strip() for k in cells[0].split(",")}
        kinds = {k.strip() for k in cells[1].split(",")}
        rule, dev = cells[2], cells[3]
        bad = kinds - set(KINDS)
        if bad:
            die("%s: row %d: kind %s is none of %s" % (fuzz_md, n, ", ".join(sorted(bad)), ", ".join(KINDS)))
        if dev not in devs:
            die("%s: row %d names %s, which %s has no section for" % (fuzz_md, n, dev, results_md))
        if rule.startswith(KLOG) and kinds != {"hang"}:
            die("%s: row %d: a kernel log finding is of kind hang" % (fuzz_md, n))
        if rule.startswith(DEVICE) and kinds != {"hang"}:
            die("%s: row %d: a finding of the whole device is of kind hang" % (fuzz_md, n))
        if rule.removeprefix(KLOG).removeprefix(DEVICE) not in devs[dev]:
            die("%s: row %d: the section %s of %s does not name the rule %s" % (fuzz_md, n, dev, results_md, rule))
        rows.append((kernels, kinds, rule, dev))
    if not rows:
        die("%s: the known-findings block has no row" % fuzz_md)
    return rows


def kernel_log(serial):
    """The lines of the guest's kernel log that report trouble, and
    whether that was the whole log (True) or, the guest having stopped
    before it printed it, the console (warnings and worse, as they came)."""
    text = open(serial, errors="replace").read().replace("\r", "")
    whole = "rxe-vm: KERNEL-LOG BEGIN" in text and "rxe-vm: KERNEL-LOG END" in text
    if whole:
        text = text.split("rxe-vm: KERNEL-LOG BEGIN", 1)[1].split("rxe-vm: KERNEL-LOG END", 1)[0]
    return [ln.strip() for ln in text.splitlines() if any(m in ln for m in KERNEL_MARKS)], whole


def check(results, serial, fuzz_md, results_md, column, guest_died):
    rows = known_rows(fuzz_md, results_md)
    try:
        fz = json.load(open(results))["fuzz"]
    except (OSError, ValueError, KeyError) as e:
        die("%s: no fuzzing results (%s)" % (results, e))
    bad = 0
    findings = fz.get("findings", [])
    # Batches in which the kernel itself went down (a known null
    # dereference, oops or panic on the console): the control QP's failed
    # exchange or the lost agent in that batch follow from the crash, and
    # count under it, not as hangs of their own.
    crashed = {f.get("batch") for f in findings
               if "kernel logged" in f["summary"] and any(m in f["summary"] for m in CRASH_MARKS) and
               any(column in r[0] and r[2].startswith(KLOG) and r[2].removeprefix(KLOG) in f["summary"] for r in rows)}
    for f in findings:
        if f["kind"] == "hang" and "kernel logged" not in f["summary"] and f.get("batch") in crashed:
            print("rxe_fuzz: %s: known, follows the kernel crash of batch %s: hang %s: %s (%s)"
                  % (column, f.get("batch"), f["rule"] or "-", f["summary"], f.get("case_file") or "(no case file)"))
            continue
        match = [r for r in rows if column in r[0] and f["kind"] in r[1] and
                 (f["rule"] == r[2] or (r[2].startswith(KLOG) and "kernel logged" in f["summary"] and
                                        r[2].removeprefix(KLOG) in f["summary"]) or
                  (r[2].startswith(DEVICE) and not f["rule"] and r[2].removeprefix(DEVICE) in f["summary"]))]
        where = f.get("case_file") or "(no case file)"
        if match:
            print("rxe_fuzz: %s: known, %s: %s %s: %s (%s)"
                  % (column, match[0][3], f["kind"], f["rule"], f["summary"], where))
        else:
            bad += 1
            print("rxe_fuzz: %s: UNEXPECTED %s %s: %s; %s; case file %s"
                  % (column, f["kind"], f["rule"], f["summary"], f.get("evidence", ""), where))
    lines, whole = kernel_log(serial)
    if not whole:
        print("rxe_fuzz: %s: no whole kernel log in %s (the agent did not stop): the console judged" % (column, serial))
    known_klog = 0
    for ln in lines:
        match = [r for r in rows if column in r[0] and r[2].startswith(KLOG) and r[2].removeprefix(KLOG) in ln]
        if match:
            known_klog += 1
            print("rxe_fuzz: %s: known, %s: hang %s: the guest's kernel logged \"%s\"" % (column, match[0][3], match[0][2], ln))
        else:
            bad += 1
            print("rxe_fuzz: %s: UNEXPECTED hang kernel log: the guest's kernel logged \"%s\"" % (column, ln))
    # A guest that did not stop cleanly (run-with-rxe failed after the
    # fuzzing) is a finding unless a known kernel report explains it.
    if guest_died and not known_klog:
        bad += 1
        print("rxe_fuzz: %s: UNEXPECTED hang: the guest did not stop cleanly after the run, and no known kernel"
              " report explains it (see %s)" % (column, serial))
    print("rxe_fuzz: %s: %d requests in %.1f s (%d/s), %d finding(s), %d unconfirmed, kernel log %s; %d unexpected"
          % (column, fz.get("requests", 0), fz.get("elapsed_ns", 0) / 1e9, fz.get("requests_per_s", 0),
             len(fz.get("findings", [])), len(fz.get("unconfirmed", [])),
             "clean" if not lines else "%d line(s)" % len(lines), bad))
    return 0 if bad == 0 else 1


def main(argv):
    died = "--guest-died" in argv
    argv = [a for a in argv if a != "--guest-died"]
    if len(argv) == 7 and argv[0] == "check" and argv[5] == "--kernel":
        return check(argv[1], argv[2], argv[3], argv[4], argv[6], died)
    if len(argv) == 3 and argv[0] == "known":
        print("rxe_fuzz: %d known row(s)" % len(known_rows(argv[1], argv[2])))
        return 0
    die("usage: see the comment at the top of %s" % __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
