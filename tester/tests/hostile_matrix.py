#!/usr/bin/env python3
"""The hostile-DUT matrix: roce-tester against a DUT and an agent that
misbehave on purpose (roce-agent --hostile, docs/agent.md), one cell per
behaviour. Runs inside scripts/netns-pair (the tester namespace, no harness
agent): each cell starts its own agent in the DUT namespace, runs the cases
of tester/tests/cases/hostile/, stops the agent, and checks that

- the run ends within its deadlines (an upper bound on wall time per cell,
  and for the flood, that a 2 s wait took at most 2.5 s);
- the verdicts say what happened: the expected verdict per case (never a
  pass where the hostile behaviour struck), and the reason, evidence or
  findings name the behaviour (a regular expression per cell) and, for
  failures, the rules expected;
- the exit status is the one the verdicts call for (a leak found by
  LeakSanitizer in the ASan build changes it, a crash too);
- results.json and the capture are valid and agree (check_results.py:
  the schema of docs/results-schema.md, every frame cited is in the
  capture and tshark reads it; validate_results.py: the JSON Schema
  docs/results.schema.json and the cross-record checks), and so is every
  other report the run wrote (XML parses, HTML is well formed);
- neither roce-tester nor the agent logged a sanitizer report, and the agent
  exits 0 when stopped (LeakSanitizer finds nothing at its exit);
- with the flood (normal build only: ASan's quarantine inflates memory),
  roce-tester's peak RSS stays under 512 MiB.

usage: hostile_matrix.py ROCE-TESTER ROCE-AGENT CASES-DIR CHECK-RESULTS [--sanitized] [--keep] [CELL...]

--sanitized: the binaries are the ASan/UBSan build; --keep: leave the
work directory (reports, captures, logs) in place; CELL: run only these.
"""
import html.parser
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

AGENT_TIMEOUT_MS = 2000
RECORD_FRAMES = 5000
STALE_FRAMES = 8000
LATE_RECORDED = 256  # MAX_LATE_RECORDED, tester/src/runner/runner_ctx.h
PORT = 7473
SANITIZER = re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: \w+Sanitizer")

# name, agent arguments, case files (in CASES-DIR), expected verdicts,
# expected exit status, wall-time bound (s), what the reasons/evidence/
# findings must say, rules failed_rules must hold (of the first case).
EXCHANGE = ["b-exchange.case"]
CELLS = [
    ("baseline", [], EXCHANGE, ["pass", "pass"], 0, 10, None, []),
    ("silent", ["--hostile", "silent"], EXCHANGE, ["fail", "fail"], 1, 10,
     r"nothing from the DUT for QP q", ["IBA9.7-ACKREQ"]),
    ("flood", ["--hostile", "flood", "--hostile-count", "3000000"], ["a-flood-window.case"] + EXCHANGE,
     ["fail", "pass", "pass"], 1, 20,
     r"request messages on QP q, more than the 0 work requests.*a flood: \d+ of them were counted but not recorded",
     ["CA17-25"]),
    # An earlier case's traffic arriving in the next: more frames for its
    # destroyed QP than a case records must not take the room of the
    # next case's own packets (the ACK its first 'expect' waits for).
    ("stale", ["--hostile", "stale", "--hostile-count", str(STALE_FRAMES)], EXCHANGE, ["pass", "pass"], 0, 20,
     None, []),
    ("garbage", ["--hostile", "garbage"], EXCHANGE, ["fail", "fail"], 1, 10,
     r"is not defined for RoCEv2|BTH TVer is \d+, not 0", ["CA17-22"]),
    ("bad-icrc", ["--fault", "bad-icrc"], EXCHANGE, ["fail", "fail"], 1, 10,
     r"ICRC is [0-9a-f]{8} on the wire; it should be", ["CA17-22"]),
    ("dup-ack-storm", ["--hostile", "dup-ack-storm"], EXCHANGE, ["fail", "fail"], 1, 10,
     r"the DUT sent 200 Acknowledge packets on QP q, more than the 1 request packets", ["CA17-25"]),
    ("unknown-qp", ["--hostile", "unknown-qp"], EXCHANGE, ["fail", "fail"], 1, 10,
     r"to QP 0x[0-9a-f]{6}, which is no QP of the tester's", ["CA17-25"]),
    ("agent-hang", ["--hostile", "agent-hang"], EXCHANGE, ["error", "error"], 3, 2 * AGENT_TIMEOUT_MS / 1000 + 10,
     r"did not answer poll_cq within %d ms" % AGENT_TIMEOUT_MS, []),
    ("agent-disconnect", ["--hostile", "agent-disconnect"], EXCHANGE, ["error", "error"], 3, 10,
     r"agent [^ ]+ closed the connection", []),
    # An agent that cannot snapshot counters: a note per case, no error.
    ("agent-refuse", ["--hostile", "agent-refuse", "--hostile-at", "snapshot_counters"], EXCHANGE, ["pass", "pass"], 0,
     10, None, []),
]


class Matrix:
    def __init__(self, tester, agent, cases, check, sanitized, keep):
        self.tester, self.agent, self.cases, self.check = tester, agent, cases, check
        self.sanitized = sanitized
        self.keep = keep
        self.work = tempfile.mkdtemp(prefix="roce-hostile.")
        self.token = os.path.join(self.work, "token")
        with open(self.token, "w") as f:
            f.write(os.urandom(16).hex())
        os.chmod(self.token, 0o600)
        self.failures = []
        self.env = dict(os.environ)
        if sanitized:
            # LeakSanitizer at every exit, said explicitly (it is ASan's
            # default on x86-64 Linux); its exit status 23 fails a cell.
            opts = self.env.get("ASAN_OPTIONS", "")
            self.env["ASAN_OPTIONS"] = (opts + ":" if opts else "") + "detect_leaks=1"
        for k in ("ROCE_NS_DUT", "ROCE_IF_DUT", "ROCE_IF_TESTER", "ROCE_DUT_IP4"):
            if k not in self.env:
                print("hostile_matrix: %s is not set: run me under scripts/netns-pair" % k)
                sys.exit(2)
        self.ip = shutil.which("ip") or "/usr/sbin/ip"

    def bad(self, cell, msg):
        print("FAIL: %s: %s" % (cell, msg))
        self.failures.append("%s: %s" % (cell, msg))

    def start_agent(self, cell, args):
        log = os.path.join(self.work, cell + ".agent.log")
        cmd = [self.ip, "netns", "exec", self.env["ROCE_NS_DUT"], self.agent,
               "--listen", "%s:%d" % (self.env["ROCE_DUT_IP4"], PORT), "--token-file", self.token,
               "--backend", "soft", "--iface", self.env["ROCE_IF_DUT"]] + args
        f = open(log, "w")
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, env=self.env)
        f.close()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with open(log) as g:
                if "listening on" in g.read():
                    return p, log
            if p.poll() is not None:
                break
            time.sleep(0.05)
        with open(log) as g:
            print(g.read())
        p.kill()
        p.wait()
        raise RuntimeError("%s: the agent did not start" % cell)

    def stop_agent(self, cell, p, log):
        p.send_signal(signal.SIGTERM)
        try:
            rc = p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            self.bad(cell, "the agent did not stop within 20 s of SIGTERM")
            return
        with open(log, errors="replace") as f:
            text = f.read()
        if rc != 0:
            self.bad(cell, "the agent exited %d on SIGTERM (a leak or a crash); its log:\n%s" % (rc, text[-3000:]))
        elif SANITIZER.search(text):
            self.bad(cell, "sanitizer report in the agent's log:\n%s" % text[-3000:])

    def run_tester(self, out, cases):
        log = out + ".log"
        cmd = [self.tester, "run", "--iface", self.env["ROCE_IF_TESTER"],
               "--agent", "%s:%d" % (self.env["ROCE_DUT_IP4"], PORT), "--token-file", self.token,
               "--report-dir", out, "--agent-timeout", str(AGENT_TIMEOUT_MS), "-q",
               # A record bound a flood passes even when a loaded host
               # slows the flooding agent (44,287 frames in one 2 s window
               # at load 14 fell short of the default 50,000).
               "--record-frames", str(RECORD_FRAMES)] + \
              [os.path.join(self.cases, c) for c in cases]
        t0 = time.monotonic()
        with open(log, "w") as f:
            p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, env=self.env)
            # Bounded from outside too: a hang is a failure, not a stuck test.
            deadline = t0 + 120
            while True:
                pid, status, ru = os.wait4(p.pid, os.WNOHANG)
                if pid:
                    break
                if time.monotonic() > deadline:
                    p.kill()
                    pid, status, ru = os.wait4(p.pid, 0)
                    break
                time.sleep(0.02)
        wall = time.monotonic() - t0
        rc = os.waitstatus_to_exitcode(status)
        with open(log, errors="replace") as f:
            text = f.read()
        return rc, wall, ru.ru_maxrss, text

    def check_reports(self, cell, out, want_verdicts):
        res = os.path.join(out, "results.json")
        cap = os.path.join(out, "capture.pcapng")
        r = subprocess.run([sys.executable, self.check, res, cap, "--complete", "--verdict", ",".join(want_verdicts)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            self.bad(cell, "results or capture invalid: %s%s" % (r.stdout, r.stderr))
        # And against the JSON Schema of docs/results.schema.json.
        here = os.path.dirname(os.path.abspath(__file__))
        schema = os.path.join(here, "..", "..", "docs", "results.schema.json")
        v = subprocess.run([sys.executable, os.path.join(here, "validate_results.py"), schema, res],
                           capture_output=True, text=True)
        if v.returncode != 0 or "validate_results: ok:" not in v.stdout:
            self.bad(cell, "validate_results.py (status %d): %s%s" % (v.returncode, v.stdout, v.stderr))
        # Whatever other reports the run wrote must be readable.
        for name in sorted(os.listdir(out)):
            path = os.path.join(out, name)
            if name.endswith(".xml"):
                try:
                    ET.parse(path)
                except ET.ParseError as e:
                    self.bad(cell, "%s does not parse: %s" % (name, e))
            elif name.endswith((".html", ".htm")):
                with open(path, errors="replace") as f:
                    body = f.read()
                if "</html>" not in body.lower():
                    self.bad(cell, "%s is not a whole HTML document" % name)
                html.parser.HTMLParser().feed(body)
        with open(res) as f:
            return json.load(f)

    def cell(self, name, args, cases, verdicts, status, bound, says, rules):
        out = os.path.join(self.work, name)
        failures_before = len(self.failures)
        agent, alog = self.start_agent(name, args)
        try:
            rc, wall, maxrss, text = self.run_tester(out, cases)
        finally:
            self.stop_agent(name, agent, alog)
        ok = True
        if rc != status:
            self.bad(name, "roce-tester exited %d, expected %d; its output:\n%s" % (rc, status, text[-3000:]))
            ok = False
        if SANITIZER.search(text):
            self.bad(name, "sanitizer report in roce-tester's output:\n%s" % text[-3000:])
            ok = False
        if wall > bound:
            self.bad(name, "the run took %.1f s, more than its bound of %.0f s" % (wall, bound))
            ok = False
        if not os.path.exists(os.path.join(out, "results.json")):
            self.bad(name, "no results.json; output:\n%s" % text[-2000:])
            return
        r = self.check_reports(name, out, verdicts)
        cs = r["cases"]
        got = [c["verdict"] for c in cs]
        if got != verdicts:
            self.bad(name, "verdicts %s, expected %s" % (got, verdicts))
            ok = False
        if says and cs:
            first = cs[0]
            told = json.dumps([first["reason"], first["evidence"], first["findings"]])
            text_all = first["reason"] + "\n" + "\n".join(
                [e.get("observed", "") for e in first["evidence"]] + [f["message"] for f in first["findings"]])
            if not re.search(says, text_all, re.S):
                self.bad(name, "nothing in the first case's reason, evidence or findings says /%s/: %s"
                         % (says, told[:1500]))
                ok = False
        if rules and cs:
            missing = [x for x in rules if x not in cs[0]["failed_rules"]]
            if missing:
                self.bad(name, "failed_rules %s lacks %s" % (cs[0]["failed_rules"], missing))
                ok = False
        if name == "flood" and cs:
            waits = [s for s in cs[0]["steps"] if s["kind"] == "wait"]
            if not waits or waits[0]["duration_ns"] > 2.5e9:
                self.bad(name, "the 2 s wait under the flood took %s s" %
                         (waits[0]["duration_ns"] / 1e9 if waits else "?"))
                ok = False
            if not self.sanitized and maxrss > 512 * 1024:
                self.bad(name, "roce-tester's peak RSS was %d MiB under the flood" % (maxrss // 1024))
                ok = False
        if name == "stale" and len(cs) == 2:
            rx = cs[1]["received"]
            # The burst reached the tester during the second case (a few
            # frames may be lost on the veth), more than a case records.
            if not (RECORD_FRAMES < rx["late"] <= STALE_FRAMES):
                self.bad(name, "the second case counted %d late frames, expected %d..%d" %
                         (rx["late"], RECORD_FRAMES + 1, STALE_FRAMES))
                ok = False
            if rx["not_recorded"] < rx["late"] - LATE_RECORDED:
                self.bad(name, "%d of %d late frames were recorded, more than %d" %
                         (rx["late"] - rx["not_recorded"], rx["late"], LATE_RECORDED))
                ok = False
        if name in ("baseline", "agent-refuse"):
            for c in cs:
                k = c.get("counters", {})
                if name == "baseline" and not (k.get("available") and k.get("ports")):
                    self.bad(name, "no counter deltas: %s" % json.dumps(k)[:300])
                    ok = False
                if name == "agent-refuse" and (k.get("available") or "gave no counter snapshot (unknown_method"
                                               not in k.get("note", "")):
                    self.bad(name, "counters without a snapshot: %s" % json.dumps(k)[:300])
                    ok = False
        summary = "; ".join("%s %s" % (c["verdict"], c["reason"][:140]) for c in cs)
        ok = ok and len(self.failures) == failures_before
        print("%s: %s: %.1f s (bound %.0f), exit %d, peak RSS %d MiB: %s" % (
            "ok" if ok else "FAIL", name, wall, bound, rc, maxrss // 1024, summary))

    def run(self, only):
        for c in CELLS:
            if only and c[0] not in only:
                continue
            try:
                self.cell(*c)
            except RuntimeError as e:
                self.bad(c[0], str(e))
        if self.failures:
            print("hostile_matrix: %d failures; work directory kept: %s" % (len(self.failures), self.work))
            return 1
        if self.keep:
            print("hostile_matrix: work directory kept: %s" % self.work)
        else:
            shutil.rmtree(self.work, ignore_errors=True)
        print("hostile_matrix: all %d cells passed" % (len(only) if only else len(CELLS)))
        return 0


def main():
    args = sys.argv[1:]
    sanitized = "--sanitized" in args
    keep = "--keep" in args
    args = [a for a in args if a not in ("--sanitized", "--keep")]
    if len(args) < 4:
        print(__doc__)
        return 2
    return Matrix(args[0], args[1], args[2], args[3], sanitized, keep).run(args[4:])


sys.exit(main())
