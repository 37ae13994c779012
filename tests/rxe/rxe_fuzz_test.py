#!/usr/bin/python3
"""rxe_fuzz.py's judgement catches what it must (no VM): a finding the
known-findings block of docs/fuzz.md does not record, a known one on a
kernel the row does not name, a kernel log line nobody recorded, a guest
that died unexplained, a row naming a deviation docs/rxe-results.md lacks
or a rule its section does not name; and it passes a run whose findings
and kernel reports are all recorded.

  rxe_fuzz_test.py SOURCE-DIR
"""
import json
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
src = sys.argv[1]
FUZZ_MD = os.path.join(src, "docs", "fuzz.md")
RESULTS_MD = os.path.join(src, "docs", "rxe-results.md")
failures = 0


def run(*args):
    p = subprocess.run([sys.executable, os.path.join(here, "rxe_fuzz.py")] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def expect(name, want_ok, args, must_say=None):
    global failures
    rc, out = run(*args)
    ok = (rc == 0) == want_ok and (must_say is None or must_say in out)
    print("%s: %s" % ("ok" if ok else "FAIL", name))
    if not ok:
        failures += 1
        print("  exit %d, wanted %s%s; output:\n%s" % (rc, "0" if want_ok else "non-zero",
                                                     ", saying '%s'" % must_say if must_say else "", out))


def finding(kind, rule, summary, case="cases/x.case"):
    return {"kind": kind, "rule": rule, "summary": summary, "evidence": "", "case_file": case}


def results(d, findings):
    path = os.path.join(d, "results-%d.json" % len(os.listdir(d)))
    json.dump({"fuzz": {"requests": 100, "elapsed_ns": 30e9, "requests_per_s": 3, "findings": findings,
                        "unconfirmed": []}}, open(path, "w"))
    return path


def serial(d, log, whole=True):
    path = os.path.join(d, "serial-%d.log" % len(os.listdir(d)))
    with open(path, "w") as f:
        f.write("[    1.0] booting\r\n")
        if whole:
            f.write("rxe-vm: KERNEL-LOG BEGIN\n" + log + "rxe-vm: KERNEL-LOG END\n")
        else:
            f.write(log)
    return path


with tempfile.TemporaryDirectory() as d:
    clean = serial(d, "[    2.0] rdma_rxe: loaded\n")
    warn = "[   9.4] WARNING: CPU: 0 PID: 12 at drivers/infiniband/sw/rxe/rxe_mr.c:395 rxe_mr_copy+0x28e/0x300\n"
    leak = finding("leak", "IBA10.6.7-MW-BOUNDS", "a READ the responder must refuse (outside window w1)")

    expect("the block itself holds", True, ["known", FUZZ_MD, RESULTS_MD])
    expect("no finding, a clean log: pass", True,
           ["check", results(d, []), clean, FUZZ_MD, RESULTS_MD, "--kernel", "6.12"])
    expect("a recorded finding on its kernel: pass", True,
           ["check", results(d, [leak]), clean, FUZZ_MD, RESULTS_MD, "--kernel", "7.2"], "known, R12")
    expect("a finding nobody recorded: fail, with its case file", False,
           ["check", results(d, [finding("corruption", "IBA9.7-ACCESS", "bytes changed", "cases/c.case")]), clean,
            FUZZ_MD, RESULTS_MD, "--kernel", "6.12"], "case file cases/c.case")
    expect("a recorded kind under another kind: fail", False,
           ["check", results(d, [finding("corruption", "IBA10.6.7-MW-BOUNDS", "x")]), clean, FUZZ_MD, RESULTS_MD,
            "--kernel", "6.12"])
    expect("a kernel the row does not name: fail", False,
           ["check", results(d, []), serial(d, warn), FUZZ_MD, RESULTS_MD, "--kernel", "6.1"], "UNEXPECTED hang kernel log")
    expect("a recorded kernel warning on its kernel: pass", True,
           ["check", results(d, [finding("hang", None, 'the DUT\'s kernel logged "%s"' % warn.strip())]),
            serial(d, warn), FUZZ_MD, RESULTS_MD, "--kernel", "6.12"])
    for line in ("[  3.1] BUG: KASAN: slab-out-of-bounds in rxe_icrc_hdr\n",
                 "[  3.1] rcu: INFO: rcu_preempt self-detected stall on CPU\n",
                 "[  3.1] general protection fault, probably for non-canonical address\n",
                 "[  3.1] INFO: task kworker:1 blocked for more than 120 seconds.\n"):
        expect("an unrecorded kernel report fails: " + line.split("] ", 1)[1].strip()[:40], False,
               ["check", results(d, []), serial(d, line), FUZZ_MD, RESULTS_MD, "--kernel", "6.12"])
    expect("a console line of the fuzzer without a record: fail", False,
           ["check", results(d, [finding("hang", None, 'the DUT\'s kernel logged "[1.0] Oops: 0000"')]), clean,
            FUZZ_MD, RESULTS_MD, "--kernel", "6.12"])
    expect("a guest that died, no kernel report: fail", False,
           ["check", results(d, []), serial(d, "[ 2.0] nothing\n", whole=False), FUZZ_MD, RESULTS_MD,
            "--kernel", "6.1", "--guest-died"], "did not stop cleanly")
    oops = "[ 17.0] BUG: kernel NULL pointer dereference, address: 0000000000000104\n[ 17.1] Oops: 0000 [#1]\n" \
           "[ 17.2] Kernel panic - not syncing: Fatal exception in interrupt\n"
    expect("a guest that died of a recorded oops (console judged): pass", True,
           ["check", results(d, [finding("hang", None, "the DUT's agent stopped answering: digest_mr")]),
            serial(d, oops, whole=False), FUZZ_MD, RESULTS_MD, "--kernel", "6.1", "--guest-died"], "the console judged")
    crash = [dict(finding("hang", None, 'the DUT\'s kernel logged "[ 17.0] BUG: kernel NULL pointer dereference"'),
                  batch=18),
             dict(finding("hang", "IBA9.7-ACKREQ", "the DUT stopped answering a known-good exchange on the control QP"),
                  batch=18)]
    expect("a control QP lost in the batch of a recorded kernel crash: pass", True,
           ["check", results(d, crash), serial(d, oops, whole=False), FUZZ_MD, RESULTS_MD, "--kernel", "6.1",
            "--guest-died"], "follows the kernel crash of batch 18")
    crash[1]["batch"] = 17
    expect("a control QP lost in a batch before the crash: fail", False,
           ["check", results(d, crash), serial(d, oops, whole=False), FUZZ_MD, RESULTS_MD, "--kernel", "6.1",
            "--guest-died"], "UNEXPECTED hang IBA9.7-ACKREQ")
    expect("no results: fail", False,
           ["check", os.path.join(d, "none.json"), clean, FUZZ_MD, RESULTS_MD, "--kernel", "6.12"])

    # The block's rows are checked against rxe-results.md.
    text = open(FUZZ_MD).read()
    for name, bad in (("a deviation rxe-results.md lacks", text.replace("| R12 |", "| R99 |", 1)),
                      ("a rule its section does not name", text.replace("| IBA10.6.7-MW-BOUNDS |", "| IBA9.7-ACCESS |", 1)),
                      ("a kernel log row of another kind", text.replace("| hang | kernel log: rxe_mr_copy |",
                                                                     "| leak | kernel log: rxe_mr_copy |", 1)),
                      ("no block", text.replace("<!-- rxe-fuzz-known:begin -->", "", 1))):
        if bad == text:
            print("FAIL: %s: docs/fuzz.md no longer has what this test changes" % name)
            failures += 1
            continue
        p = os.path.join(d, "fuzz-%d.md" % len(os.listdir(d)))
        open(p, "w").write(bad)
        expect("the block names " + name + ": fail", False, ["known", p, RESULTS_MD])

print("rxe_fuzz_test: %d check(s) failed" % failures)
sys.exit(1 if failures else 0)
