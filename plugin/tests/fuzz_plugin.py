#!/usr/bin/env python3
"""Fuzzes the rocev2 plugin the way Wireshark fuzzes its dissectors:
mutated copies of every sample capture (editcap -E) are read by tshark
with full trees and hex dumps (tshark -nVxr), and the run fails on

- tshark exiting non-zero, dying on a signal or running too long (a crash,
  an AddressSanitizer or UndefinedBehaviorSanitizer report in the sanitizer
  build, an abort from WIRESHARK_ABORT_ON_DISSECTOR_BUG or the strict wmem
  allocator, a hang);
- anything tshark writes to stderr;
- a "Dissector bug" anywhere in the output;
- a "[Malformed Packet: RoCEv2]" item: the plugin reports every
  malformation as an expert info and must never throw;
- a run that cannot have judged anything: tshark showing fewer or more
  frames than the file holds (capinfos), no frame dissected by the plugin
  (not loaded?) in a mutated copy of a sample whose unmutated frames it
  dissects, or editcap leaving the file unchanged.

A run that aborted on a failed dissector assertion is read again with
dissector bugs not fatal; when the plugin comes out of that clean and every
bug is another protocol's in a frame the plugin never dissected, it is
Wireshark's own bug (Wireshark 4.0's RPCoRDMA under its InfiniBand
dissector, on rocev1.pcap's RoCE v1 frames with -2): counted and shown, not
a failure.

The samples are first read unmutated, all in one file, and judged the same
way; that run says which samples hold frames for the plugin (rocev1.pcap's
RoCE v1 frames are Wireshark's InfiniBand dissector's, but are fuzzed too:
a mutation may hand them to the plugin).

WIRESHARK_ABORT_ON_DISSECTOR_BUG=1 and WIRESHARK_DEBUG_WMEM_OVERRIDE=strict
are set here for every tshark run, whatever the caller's environment.

Malformed items of other protocols are only counted: those in frames that
never reached the plugin (a mutated Ethernet, IP or UDP header), and those
in frames the plugin dissected: of upper-layer protocols, raised where a
ULP heuristic the payload was offered to shows its own subdissector's
exception (the InfiniBand "ethertype" heuristic taking a payload that
starts with a known EtherType and two zero bytes, as under the built-in
dissector), or of an Ethernet trailer's heuristics on the bytes past a
mutated IP length; the first few of the latter are printed.

Every run is seeded: the file mutated, the error probability, the seed,
the change offset and the tshark options are printed for each failure,
with the editcap and tshark commands that reproduce it, and the mutated
capture is copied to the --keep directory. Captures kept that way go into
REGRESS-DIR (with a line in its regressions.tsv naming their tshark
options) and are replayed first on every run.

usage: fuzz_plugin.py WRAPPER PLUGIN-DIR CAPTURES-DIR REGRESS-DIR
           [--passes N] [--repeat K] [--max-frames F] [--seed S] [--keep DIR]
           [--time-limit SECS] [--json FILE] [--peer-builtin] [-q]

  --passes N        rounds over every capture (default 2)
  --repeat K        each sample is repeated K times (mergecap -a) before it
                    is mutated, so that one tshark start reads K copies
                    (default 20)
  --max-frames F    ... but fewer copies of a large sample, so that its
                    file holds at most F frames (at least one copy;
                    default 2000): the recorded captures of hundreds of
                    frames need no 20 copies to meet every variant
  --seed S          base seed; run r of pass p uses S*100000 + p*1000 + r
  --time-limit SECS start no new run after this long (benchmarks)
  --json FILE       write the counts as JSON
  --peer-builtin    also read every mutated file without the plugin (the
                    built-in InfiniBand dissector), timed, for the benchmark;
                    its findings are counted, not judged
  -q                print the summary and failures only
"""
import csv
import filecmp
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

FLOW_GRAPH = "flow,rocev2,standard"
# An arrow of the ladder tshark prints for -z flow,...: "(49374)  ------------------>  (4791)".
ARROW_RE = re.compile(r"-{10,}>|<-{10,}")
BTH_LINE = "    Base Transport Header"
# The ladder's first two lines name its nodes (even ones, then odd ones).
LADDER_HEAD_RE = re.compile(r"^(Conv\.\| Time    |\|Time     )\|")
# Wireshark keeps 40 nodes (MAX_NUM_NODES); tshark's text ladder then draws
# an arrow to a node past them beyond its line, which GLib reports (as it
# does for the built-in's own -z flow,any on the same file: Wireshark's,
# not the plugin's, after every frame was dissected).
LADDER_NODES_MAX = 40
LADDER_OVERFLOW_RE = re.compile(
    r"^.*\[GLib CRITICAL\] -- g_string_erase: assertion 'pos_unsigned \+ len_unsigned <= string->len' failed\n?",
    re.M)

# Mutation variants, cycled over the runs: error probability, change
# offset (bytes at the start of each frame left alone: 42 keeps most of
# an Ethernet/IPv4/UDP header, so that more frames reach the plugin) and
# tshark options (two-pass analysis, the statistics tap, the Flow Graph's
# ladder, preferences).
VARIANTS = [
    (0.02, 0, []),  # Wireshark's fuzz-test.sh default
    (0.05, 42, ["-2", "-z", FLOW_GRAPH]),  # plugin/flowgraph.c, on the second pass
    (0.01, 0, ["-z", "rocev2,tree", "-o", "rocev2.pmtu:1024"]),
    (0.1, 42, ["-o", "rocev2.sender:TRUE", "-o", "rocev2.rd_range:dc"]),  # RD opcodes as NVIDIA DC
    (0.003, 0, ["-2", "-o", "rocev2.pmtu:256"]),
    (0.02, 42, ["-o", "rocev2.check_icrc:FALSE", "-o", "rocev2.analysis:FALSE"]),
    (0.2, 54, ["-z", "rocev2,tree"]),
]
RUN_TIMEOUT = int(os.environ.get("ROCEV2_FUZZ_RUN_TIMEOUT", "300"))

FRAME_RE = re.compile(r"^Frame (\d+): ")
MALFORMED_RE = re.compile(r"^\[Malformed Packet: ?([^\]]*)\]")
ROCE_TOP = "RDMA over Converged Ethernet v2"
OURS = "RoCEv2"
BUILTIN_TOP = "InfiniBand"


def die(msg):
    print("fuzz_plugin: " + msg, file=sys.stderr)
    sys.exit(2)


class Outcome:
    def __init__(self, expected=None, need_roce=True, ladder=False):
        self.expected = expected   # frames in the file (capinfos), None: not checked
        self.need_roce = need_roce  # some frame must reach the plugin
        self.ladder = ladder       # the Flow Graph was asked for: its arrows must be printed
        self.bth = 0               # frames of the plugin's with a BTH (each one an arrow)
        self.arrows = 0
        self.ladder_nodes = 0
        self.ladder_overflows = 0  # Wireshark's complaints about a ladder of too many nodes
        self.frames = 0
        self.roce = 0
        self.roce_frames = set()   # frame numbers the plugin dissected
        self.malformed_ours = []   # (frame, line)
        self.malformed_ulp = []    # (frame, line): another protocol's, in a frame rocev2 dissected
        self.malformed_other = 0
        self.bugs = []             # (frame, line)
        self.bugs_in_ours = False  # a dissector bug in a frame rocev2 dissected
        self.status = 0
        self.stderr = ""
        self.seconds = 0.0
        self.timed_out = False

    def failed(self):
        return bool(self.status or self.stderr.strip() or self.bugs or self.malformed_ours or self.timed_out
                    or self.unjudged())

    def unjudged(self):
        """Why the output cannot vouch for the file, or None."""
        if self.expected is not None and self.frames != self.expected:
            return "tshark showed %d frames of the %d in the file" % (self.frames, self.expected)
        if self.roce == 0 and self.need_roce:
            return "no frame was dissected by rocev2 (is the plugin loaded?)"
        if self.ladder and self.bth and not self.arrows:
            return "-z %s printed no arrow for the %d frames with a BTH" % (FLOW_GRAPH, self.bth)
        return None

    def why(self):
        out = []
        if self.timed_out:
            out.append("tshark ran longer than %d s (a hang?)" % RUN_TIMEOUT)
        if self.status < 0:
            out.append("tshark died on signal %d" % -self.status)
        elif self.status > 128:
            out.append("tshark died on signal %d (exit %d)" % (self.status - 128, self.status))
        elif self.status:
            out.append("tshark exited %d" % self.status)
        if self.unjudged() and not self.timed_out and not self.status:
            out.append(self.unjudged())
        for frame, line in self.bugs[:5]:
            out.append("frame %s: %s" % (frame, line.strip()))
        for frame, line in self.malformed_ours[:5]:
            out.append("frame %s: %s" % (frame, line.strip()))
        if self.stderr.strip():
            out.append("stderr:\n" + first_report(self.stderr))
        return out


def builtin_options(opts):
    """opts without the plugin's preferences and taps (each -o or -z with its
    argument), for a tshark without the plugin."""
    out, i = [], 0
    while i < len(opts):
        if opts[i] in ("-o", "-z"):
            i += 2
            continue
        out.append(opts[i])
        i += 1
    return out


def first_report(err):
    """The first sanitizer report (or the first 40 lines) of stderr."""
    lines = err.splitlines()
    for i, l in enumerate(lines):
        if "ERROR: AddressSanitizer" in l or "runtime error:" in l or "ERROR: LeakSanitizer" in l:
            return "\n".join("    " + x for x in lines[max(0, i - 2):i + 40])
    return "\n".join("    " + x for x in lines[:40])


def count_frames(path):
    """The number of frames in a capture file, from capinfos."""
    r = subprocess.run(["capinfos", "-M", "-c", "-T", "-r", path], capture_output=True, text=True)
    fields = r.stdout.strip().split("\t")
    if r.returncode or len(fields) != 2 or not fields[1].isdigit():
        die("capinfos cannot count the frames of %s: %s" % (path, (r.stderr or r.stdout).strip()))
    return int(fields[1])


def read_capture(wrapper, plugins, path, opts, top, expected=None, need_roce=True, abort=True):
    """Runs tshark -nVxr on path and judges its output as it streams.
    abort=False: dissector bugs are not fatal (ROCEV2_FUZZ_RERUN=1 says so
    to the selftest's fake tshark)."""
    o = Outcome(expected, need_roce, any(x == FLOW_GRAPH for x in opts))
    errf = tempfile.TemporaryFile(mode="w+")
    cmd = [wrapper, plugins, "-nVxr", path] + opts
    env = None
    if not abort:
        env = {k: v for k, v in os.environ.items() if k != "WIRESHARK_ABORT_ON_DISSECTOR_BUG"}
        env["ROCEV2_FUZZ_RERUN"] = "1"
    t0 = time.monotonic()
    # Its own process group, so that a hang is ended whole (the wrapper,
    # setpriv and tshark) and the read below sees the end of the output.
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errf, text=True, errors="replace",
                         start_new_session=True, env=env)

    def hung():
        o.timed_out = True
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    timer = threading.Timer(RUN_TIMEOUT, hung)
    timer.start()
    frame, in_ours, head = None, False, 0
    try:
        for line in p.stdout:
            if head or LADDER_HEAD_RE.match(line):
                cells = [c.strip() for c in line.split("|")]
                o.ladder_nodes += len([c for c in cells[2 if head else 1:] if c and c not in ("Conv.", "Time")])
                head = 0 if head else 1
                continue
            m = FRAME_RE.match(line)
            if m:
                frame, in_ours = m.group(1), False
                o.frames += 1
                continue
            if line.startswith(top):
                in_ours = True
                o.roce += 1
                o.roce_frames.add(int(frame) if frame else 0)
                continue
            if in_ours and line.startswith(BTH_LINE):
                o.bth += 1
            if ARROW_RE.search(line):
                o.arrows += 1
            if "issector bug" in line:
                o.bugs.append((frame, line))
                if in_ours:
                    o.bugs_in_ours = True
            m = MALFORMED_RE.match(line)
            if m:
                if m.group(1) == OURS:
                    o.malformed_ours.append((frame, line))
                elif in_ours:
                    o.malformed_ulp.append((frame, line))
                else:
                    o.malformed_other += 1
        o.status = p.wait()
    finally:
        timer.cancel()
        if p.poll() is None:
            hung()
            p.wait()
    o.seconds = time.monotonic() - t0
    errf.seek(0)
    o.stderr = errf.read()
    errf.close()
    if o.ladder and o.ladder_nodes >= LADDER_NODES_MAX:
        o.stderr, o.ladder_overflows = LADDER_OVERFLOW_RE.subn("", o.stderr)
    return o


STDERR_BUG_RE = re.compile(r"Dissector bug, protocol ([^,:\]]+), in packet (\d+)")
TREE_BUG_RE = re.compile(r"Dissector bug, protocol ([^,:\]]+)")
SANITIZER_RE = re.compile(r"Sanitizer|runtime error:")


def wireshark_bug_elsewhere(wrapper, plugins, path, opts, o):
    """tshark aborted on a failed dissector assertion: was it Wireshark's own
    bug in a frame the plugin never dissected (rocev1.pcap's frames go to
    the built-in InfiniBand dissector, and Wireshark 4.0's RPCoRDMA under
    it fails an assertion under two-pass analysis)? The file is read again
    with dissector bugs not fatal. If that run is clean for the plugin (it
    ends normally, shows every frame, no sanitizer report, nothing on
    stderr but dissector-bug warnings, no RoCEv2 malformed item) and every
    dissector bug names another protocol in a frame rocev2 did not
    dissect, the rerun's outcome is returned, else None: a failure."""
    aborted = o.status in (134, -signal.SIGABRT) and "failed assertion" in o.stderr
    if not aborted or SANITIZER_RE.search(o.stderr) or o.malformed_ours or o.bugs_in_ours or o.timed_out:
        return None
    r = read_capture(wrapper, plugins, path, opts, ROCE_TOP, o.expected, o.need_roce, abort=False)
    bugs = [(int(n), proto.strip()) for proto, n in STDERR_BUG_RE.findall(r.stderr)]
    for frame, line in r.bugs:
        m = TREE_BUG_RE.search(line)
        bugs.append((int(frame) if frame else 0, m.group(1).strip() if m else OURS))
    rest = [l for l in r.stderr.splitlines() if l.strip() and "Dissector bug, protocol" not in l]
    if r.status or rest or r.malformed_ours or r.timed_out or r.unjudged() or r.bugs_in_ours or not bugs:
        return None
    if any(proto == OURS or frame in r.roce_frames for frame, proto in bugs):
        return None
    r.foreign_bugs = sorted(set(bugs))
    r.bugs, r.stderr = [], ""  # vetted above: other protocols' bugs and their warnings
    return r


def load_regressions(regress_dir):
    """(capture path, tshark options, what it found) from regressions.tsv."""
    index = os.path.join(regress_dir, "regressions.tsv")
    out = []
    if not os.path.exists(index):
        return out
    with open(index) as f:
        for row in csv.reader(f, delimiter="\t"):
            if not row or row[0].startswith("#"):
                continue
            path = os.path.join(regress_dir, row[0])
            if not os.path.exists(path):
                die("%s names %s, which does not exist" % (index, path))
            opts = row[1].split() if len(row) > 1 else []
            out.append((path, opts, row[2] if len(row) > 2 else ""))
    return out


def main():
    args = sys.argv[1:]
    if len(args) < 4:
        die("usage: fuzz_plugin.py WRAPPER PLUGIN-DIR CAPTURES-DIR REGRESS-DIR [options]")
    wrapper, plugins, captures, regress = args[:4]
    passes, repeat, seed, keep, time_limit, json_out, peer, quiet = 2, 20, 1, None, None, None, False, False
    max_frames = 2000
    i = 4
    while i < len(args):
        a = args[i]
        if a == "--passes":
            passes = int(args[i + 1]); i += 2
        elif a == "--repeat":
            repeat = int(args[i + 1]); i += 2
        elif a == "--max-frames":
            max_frames = int(args[i + 1]); i += 2
        elif a == "--seed":
            seed = int(args[i + 1]); i += 2
        elif a == "--keep":
            keep = args[i + 1]; i += 2
        elif a == "--time-limit":
            time_limit = float(args[i + 1]); i += 2
        elif a == "--json":
            json_out = args[i + 1]; i += 2
        elif a == "--peer-builtin":
            peer = True; i += 1
        elif a == "-q":
            quiet = True; i += 1
        else:
            die("unknown option " + a)
    # Dissector bugs abort tshark; wmem's strict allocator catches misuse
    # of its memory. Here, so that no caller can run the fuzzer without them.
    os.environ["WIRESHARK_ABORT_ON_DISSECTOR_BUG"] = "1"
    os.environ["WIRESHARK_DEBUG_WMEM_OVERRIDE"] = "strict"
    for tool in ("editcap", "mergecap", "capinfos"):
        if not shutil.which(tool):
            die("%s is not installed (Debian: wireshark-common)" % tool)
    samples = sorted(os.path.join(captures, f) for f in os.listdir(captures)
                     if f.endswith((".pcap", ".pcapng")))
    if not samples:
        die("no captures in " + captures)

    work = tempfile.mkdtemp(prefix="rocev2-fuzz.")
    os.chmod(work, 0o755)  # tshark runs as nobody
    keep = os.path.abspath(keep or os.path.join(work, "failures"))
    stats = {"runs": 0, "frames": 0, "rocev2_frames": 0, "malformed_elsewhere": 0, "malformed_ulp": 0, "seconds": 0.0,
             "tshark_seconds": 0.0, "failures": 0, "regressions": 0,
             "builtin_seconds": 0.0, "builtin_frames": 0, "builtin_runs": 0, "builtin_failures": 0,
             "builtin_aborts": 0, "baseline_frames": 0, "wireshark_bugs": 0, "ladder_overflows": 0}
    failures = []
    ulp_examples = []
    t_start = time.monotonic()

    def judge(label, path, opts, o, reproduce, mutated=True):
        stats["ladder_overflows"] += o.ladder_overflows
        if o.failed():
            r = wireshark_bug_elsewhere(wrapper, plugins, path, opts, o)
            if r:
                stats["wireshark_bugs"] += 1
                if not quiet or stats["wireshark_bugs"] <= 3:
                    print("note: %s: tshark aborted on Wireshark's own dissector bug in frames rocev2 never "
                          "dissected (%s); read again with dissector bugs not fatal: clean for the plugin"
                          % (label, ", ".join("%s in frame %d" % (pr, f) for f, pr in r.foreign_bugs[:4])))
                    print("  reproduce: " + reproduce[-1])
                r.seconds += o.seconds
                o = r
        if mutated:  # the baseline's frames are judged, not counted
            stats["runs"] += 1
            stats["frames"] += o.frames
            stats["rocev2_frames"] += o.roce
            stats["tshark_seconds"] += o.seconds
        else:
            stats["baseline_frames"] += o.frames
        stats["malformed_elsewhere"] += o.malformed_other
        stats["malformed_ulp"] += len(o.malformed_ulp)
        for frame, line in o.malformed_ulp:
            if len(ulp_examples) < 3:
                ulp_examples.append("%s frame %s: %s" % (label, frame, line.strip()))
        if o.failed():
            stats["failures"] += 1
            os.makedirs(keep, exist_ok=True)
            kept = os.path.join(keep, os.path.basename(path))
            if os.path.abspath(kept) != os.path.abspath(path):
                shutil.copy(path, kept)
            failures.append(label)
            print("FAIL: %s: %d frames; kept as %s" % (label, o.frames, kept))
            for w in o.why():
                print("  " + w)
            for r in reproduce:
                print("  reproduce: " + r)
        elif not quiet:
            print("ok: %s: %d frames (%d RoCEv2), %.1f s" % (label, o.frames, o.roce, o.seconds))

    def builtin(path, opts):
        """The same file through the built-in dissector (no plugin), timed."""
        b = read_capture(wrapper, "none", path, builtin_options(opts), BUILTIN_TOP)
        stats["builtin_seconds"] += b.seconds
        stats["builtin_frames"] += b.frames
        stats["builtin_runs"] += 1
        if b.failed():
            stats["builtin_failures"] += 1
        if b.status or b.timed_out:
            stats["builtin_aborts"] += 1
        if b.failed() and not quiet:
            print("note: the built-in dissector on %s: %s" % (os.path.basename(path), "; ".join(b.why())[:300]))

    try:
        # The regression captures first: every input that ever failed.
        for path, opts, what in load_regressions(regress):
            stats["regressions"] += 1
            o = read_capture(wrapper, plugins, path, opts, ROCE_TOP, count_frames(path))
            judge("regression %s %s" % (os.path.basename(path), " ".join(opts)), path, opts, o,
                  ["%s %s -nVxr %s %s" % (wrapper, plugins, path, " ".join(opts))])
            if peer:
                builtin(path, opts)

        # Every sample once, unmutated, in one file: judged like the rest,
        # and which samples have frames for the plugin.
        base = os.path.join(work, "baseline.pcapng")
        subprocess.run(["mergecap", "-a", "-F", "pcapng", "-w", base] + samples, check=True)
        os.chmod(base, 0o644)
        counts = [count_frames(x) for x in samples]
        o = read_capture(wrapper, plugins, base, [], ROCE_TOP, sum(counts))
        judge("baseline: every sample unmutated", base, [], o,
              ["mergecap -a -F pcapng -w baseline.pcapng " + " ".join(samples),
               "%s %s -nVxr baseline.pcapng" % (wrapper, plugins)], mutated=False)
        has_roce, first = {}, 1
        for x, n in zip(samples, counts):
            has_roce[x] = any(f in o.roce_frames for f in range(first, first + n))
            first += n

        # K copies of each sample in one file (fewer of a large one), made once.
        repeated, frames_in, copies_of = {}, {}, {}
        for s, n in zip(samples, counts):
            copies = copies_of[s] = max(1, min(repeat, max_frames // max(n, 1)))
            rep = os.path.join(work, "rep-" + os.path.basename(s).rsplit(".", 1)[0] + ".pcapng")
            subprocess.run(["mergecap", "-a", "-F", "pcapng", "-w", rep] + [s] * copies, check=True)
            repeated[s] = rep
            frames_in[s] = count_frames(rep)
            if frames_in[s] != copies * n:
                die("mergecap -a of %d copies of %s holds %d frames" % (copies, s, frames_in[s]))

        stopped = False
        for p in range(1, passes + 1):
            for idx, s in enumerate(samples):
                if time_limit is not None and time.monotonic() - t_start > time_limit:
                    stopped = True
                    break
                # Each pass shifts the variants by one: N passes give every
                # sample N different variants (all of them from 7 passes on).
                prob, offset, opts = VARIANTS[(p - 1 + idx) % len(VARIANTS)]
                run_seed = seed * 100000 + p * 1000 + idx
                name = "%s-E%g-o%d-s%d.pcapng" % (os.path.basename(s).rsplit(".", 1)[0], prob, offset, run_seed)
                mutated = os.path.join(work, name)
                ed = ["editcap", "-E", str(prob), "--seed", str(run_seed), "-o", str(offset),
                      repeated[s], mutated]
                subprocess.run(ed, check=True, capture_output=True)
                os.chmod(mutated, 0o644)
                if filecmp.cmp(repeated[s], mutated, shallow=False):
                    die("editcap -E %g --seed %d left %s unchanged" % (prob, run_seed, repeated[s]))
                o = read_capture(wrapper, plugins, mutated, opts, ROCE_TOP, frames_in[s], has_roce[s])
                label = "pass %d %s x%d -E %g -o %d --seed %d %s" % (
                    p, os.path.basename(s), copies_of[s], prob, offset, run_seed, " ".join(opts))
                judge(label, mutated, opts, o, [
                    "mergecap -a -F pcapng -w rep.pcapng " + " ".join([s] * min(copies_of[s], 3)) +
                    (" ... (%d copies)" % copies_of[s] if copies_of[s] > 3 else ""),
                    " ".join(ed[:-2] + ["rep.pcapng", name]),
                    "%s %s -nVxr %s %s" % (wrapper, plugins, name, " ".join(opts))])
                if peer:
                    builtin(mutated, opts)
                os.unlink(mutated)
            if stopped:
                break
        stats["seconds"] = time.monotonic() - t_start
        rate = stats["frames"] / stats["tshark_seconds"] if stats["tshark_seconds"] else 0.0
        stats["frames_per_second"] = rate
        print("fuzz_plugin: %d unmutated frames (the baseline); %d tshark runs (%d regression captures), "
              "%d mutated frames, %d dissected by rocev2; "
              "malformed items of other protocols: %d before the plugin, %d in RoCEv2 frames; "
              "%.1f s in tshark, %.0f frames/s; %d complaints of GLib about ladders of %d nodes or more "
              "(Wireshark's text ladder); %d runs read again after Wireshark's own dissector bug "
              "in frames rocev2 never dissected; %d failures"
              % (stats["baseline_frames"], stats["runs"], stats["regressions"], stats["frames"], stats["rocev2_frames"],
                 stats["malformed_elsewhere"], stats["malformed_ulp"], stats["tshark_seconds"], rate,
                 stats["ladder_overflows"], LADDER_NODES_MAX, stats["wireshark_bugs"], stats["failures"]))
        for e in ulp_examples:
            print("  another protocol's malformed item in a RoCEv2 frame (not the plugin's): " + e)
        if failures:
            print("fuzz_plugin: failing captures kept in %s; add each to %s with a line in regressions.tsv"
                  % (keep, regress))
        if json_out:
            with open(json_out, "w") as f:
                json.dump(stats, f, indent=1)
    finally:
        # Only the failing captures outlive the run.
        if failures and os.path.dirname(os.path.abspath(keep)) == work:
            for f in os.listdir(work):
                if os.path.join(work, f) != os.path.abspath(keep):
                    os.unlink(os.path.join(work, f))
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


sys.exit(main())
