#!/usr/bin/python3
"""The mutation check: every case of the suite names, in its 'mutants'
header, soft-DUT fault profiles under which it must fail, and fails under
each of them; or, for a profile marked 'informative' (the fault breaks a
rule that does not bind the DUT in the role the case tests it in), ends
informative: the case still sees the fault and reports it, not judged.

The cases are batched by profile: one network-namespace pair and one soft
DUT agent with that fault runs every case naming it (over the IP versions
of each case's 'ip' header), and several batches run side by side, each in
its own namespaces. Cases that need something of the set-up are batched
apart: RCM (the agent gets --rcm-args), ROCEV1 (the agent is dual-mode,
--rocev1) and VLAN (the pair and the tester run over VLAN 100, PCP 5).
A case with no mutant, an unknown profile, or a (case, profile) pair whose
case does not end in 'fail' (or 'informative', as marked) on some IP
version fails the test.

usage: mutation.py NETNS-PAIR ROCE-AGENT ROCE-TESTER CASES-DIR [--jobs N]
       [--mtu N] [--rcm-args FILE] [--only PROFILE,...]
"""
import argparse
import concurrent.futures
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

SKIP = 77
# What a case's 'requires' may ask of the set-up, besides the DUT itself.
SETUP_FEATURES = ("RCM", "ROCEV1", "VLAN")
VLAN_ID, VLAN_PCP = 100, 5


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("netns")
    ap.add_argument("agent")
    ap.add_argument("tester")
    ap.add_argument("cases")
    ap.add_argument("--jobs", type=int, default=3, help="batches run side by side")
    ap.add_argument("--mtu", type=int, default=9000, help="veth MTU (9000: every PMTU up to 4096)")
    ap.add_argument("--rcm-args", help="agent arguments (one per line) for cases that require RCM")
    ap.add_argument("--only", help="comma-separated profiles to check (default: all named)")
    a = ap.parse_args()

    listing = subprocess.run([a.tester, "run", "--list-mutants", a.cases], capture_output=True, text=True)
    if listing.returncode != 0:
        print("mutation: FAIL: the cases do not parse:\n" + listing.stderr)
        return 1
    faults = set(l.split()[0] for l in subprocess.run([a.agent, "--list-faults"], capture_output=True,
                                                        text=True, check=True).stdout.splitlines() if l.strip())
    rcm_args = []
    if a.rcm_args:
        rcm_args = [l.strip() for l in open(a.rcm_args) if l.strip() and not l.startswith("#")]

    problems = []
    pairs = {}  # (fault, features) -> {file: id}
    named = set()
    for line in listing.stdout.splitlines():
        path, cid, fault, caps, want = line.split("\t")
        named.add(os.path.normpath(path))
        if fault not in faults:
            problems.append("%s (%s): mutant '%s' is not a fault profile of roce-agent --list-faults" % (cid, path, fault))
            continue
        if a.only and fault not in a.only.split(","):
            continue
        features = tuple(f for f in SETUP_FEATURES if f in caps.split(","))
        pairs.setdefault((fault, features), {})[path] = (cid, want)
    for root, _, files in os.walk(a.cases):
        for f in sorted(files):
            p = os.path.normpath(os.path.join(root, f))
            if f.endswith(".case") and p not in named:
                problems.append("%s: the case names no mutant (a 'mutants' header with the fault profiles it catches)" % p)

    work = sorted(pairs.items())
    n_pairs = sum(len(v) for _, v in work)
    print("mutation: %d case x profile pairs in %d batches, %d at a time (those with RCM one by one)" %
          (n_pairs, len(work), a.jobs))
    sys.stdout.flush()
    t0 = time.monotonic()
    results = []
    with tempfile.TemporaryDirectory(prefix="roce-mutation.") as tmp:
        # Batches side by side; the congestion-management ones, which
        # measure rates and timers, afterwards and one at a time, so that
        # the others' load does not pass for the DUT's behaviour.
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
            futs = [pool.submit(run_batch, a, rcm_args, tmp, i, fault, features, files)
                    for i, ((fault, features), files) in enumerate(work) if "RCM" not in features]
            for f in futs:
                results.append(f.result())
        for i, ((fault, features), files) in enumerate(work):
            if "RCM" in features:
                results.append(run_batch(a, rcm_args, tmp, i, fault, features, files))
    skipped = [r for r in results if r["skip"]]
    if skipped and len(skipped) == len(results):
        print(skipped[0]["log"].strip().splitlines()[-1] if skipped[0]["log"].strip() else "mutation: SKIP")
        return SKIP
    caught = 0
    for r in results:
        for path, (cid, want) in sorted(r["files"].items()):
            runs = r["verdicts"].get(cid, [])
            text = ", ".join("IPv%d %s" % (ipv, v) for ipv, v, _ in runs) or "no result"
            # An informative mutant must be seen (informative) and never
            # judged a failure: its rule does not bind the DUT's role.
            if want == "informative":
                caught_it = any(v == "informative" for _, v, _ in runs) and not any(v == "fail" for _, v, _ in runs)
            else:
                caught_it = any(v == "fail" for _, v, _ in runs)
            if caught_it:
                caught += 1
                print("ok: %s %s under --fault %s (%s)" % (cid, "fails" if want == "fail" else "reports it, informative",
                                                         r["fault"], text))
            else:
                why = "; ".join("IPv%d: %s" % (ipv, reason) for ipv, v, reason in runs if reason)
                problems.append("%s (%s) does not %s under --fault %s: %s%s" % (
                    cid, path, "fail" if want == "fail" else "end informative", r["fault"], text,
                    " (" + why + ")" if why else ""))
                if not runs:
                    problems.append("  batch log of --fault %s:\n%s" % (r["fault"], indent(r["log"])))
    dt = time.monotonic() - t0
    for p in problems:
        print("FAIL: " + p)
    print("mutation: %d of %d mutants caught in %.0f s%s" % (caught, n_pairs, dt,
                                                            "" if not problems else "; %d problem(s)" % len(problems)))
    return 1 if problems else 0


def indent(text):
    return "\n".join("  | " + l for l in text.splitlines()[-40:])


def run_batch(a, rcm_args, tmp, i, fault, features, files):
    out = os.path.join(tmp, "b%03d" % i)
    os.mkdir(out)
    cmd = [a.netns, "--mtu", str(a.mtu), "--agent", a.agent, "--agent-arg", "--fault", "--agent-arg", fault]
    extra = []
    if "RCM" in features:
        extra += rcm_args
    if "ROCEV1" in features:
        extra += ["--rocev1"]
    for arg in extra:
        cmd += ["--agent-arg", arg]
    tester_args = []
    if "VLAN" in features:
        cmd += ["--vlan", str(VLAN_ID)]
        tester_args = ["--vlan", "%d:%d" % (VLAN_ID, VLAN_PCP)]
    # Each case bounds itself (its 'timeout', 60 s by default); the batch
    # is bounded in turn.
    cmd += ["--timeout", str(60 + 30 * len(files)), "--", "sh", "-c",
            'd=$1; shift; "$0" run --iface "$ROCE_IF_TESTER" --agent "$ROCE_AGENT" '
            '--token-file "$ROCE_TOKEN_FILE" --report-dir "$d" -q "$@"', a.tester, out] + tester_args + sorted(files)
    p = subprocess.run(cmd, capture_output=True, text=True)
    log = p.stdout + p.stderr
    verdicts = {}
    try:
        for c in json.load(open(os.path.join(out, "results.json")))["cases"]:
            verdicts.setdefault(c["id"], []).append((c["ip_version"], c["verdict"], c["reason"]))
    except (OSError, ValueError):
        pass
    setup = extra + (["VLAN %d" % VLAN_ID] if "VLAN" in features else [])
    return {"fault": fault + (" (with " + " ".join(shlex.quote(x) for x in setup) + ")" if setup else ""),
            "files": files, "verdicts": verdicts, "log": log, "skip": p.returncode == SKIP}


if __name__ == "__main__":
    sys.exit(main())
