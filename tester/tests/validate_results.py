#!/usr/bin/python3
"""Validates results files against docs/results.schema.json (JSON Schema
2020-12, Debian's python3-jsonschema) and checks what a schema cannot say:
the summary counts agree with the records, case records are unique by ID
and IP version, rule records unique by ID, and every frame a record cites
belongs to a packet of that case.

usage: validate_results.py SCHEMA RESULTS.json...
"""
import json
import sys

try:
    from jsonschema import Draft202012Validator
except ImportError:
    print("validate_results: SKIP: python3-jsonschema is not installed")
    sys.exit(77)


def series_problems(i, c):
    """What the schema cannot say of a case's series: bins that fit their
    span, latency samples that match the requests acknowledged, counts that
    cover their lists, and checks whose value is the symbol's."""
    out = []
    se = c.get("series")
    if se is None:
        return out
    where = "cases[%d] (%s) series" % (i, c["id"])
    for k, l in enumerate(se["load"]):
        nb = (l["to_ns"] - l["from_ns"]) // l["bin_ns"] + 1
        arrays = [l["sent_bytes"], l["sent_requests"], l["acked_requests"], l["acked_bytes"]] + \
            [l["latency_ns"][p] for p in ("p50", "p99", "max")]
        if any(len(a) != nb for a in arrays):
            out.append("%s.load[%d]: %d bins over its span, arrays of %s" % (where, k, nb, [len(a) for a in arrays]))
        if sum(l["acked_requests"]) != l["latency_percentiles"]["samples"]:
            out.append("%s.load[%d]: %d requests acknowledged, %d latency samples" %
                       (where, k, sum(l["acked_requests"]), l["latency_percentiles"]["samples"]))
    cg = se.get("congestion")
    if cg:
        if cg["cnp_count"] < len(cg["cnp"]) or cg["ce_count"] < len(cg["ce"]):
            out.append("%s.congestion: counts below the lengths of their lists" % where)
        if len(cg["cnp_causes"]) > sum(m["from"] == "dut" for m in cg["cnp"]) and len(cg["cnp"]) == cg["cnp_count"]:
            out.append("%s.congestion: more causes than CNPs of the DUT" % where)
    for k, ck in enumerate(se["checks"]):
        v = c["symbols"].get(ck["symbol"])
        if v is not None and int(str(v), 0) != ck["value"]:
            out.append("%s.checks[%d]: value %d, symbol %s is %s" % (where, k, ck["value"], ck["symbol"], v))
    return out


def main():
    schema = json.load(open(sys.argv[1]))
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    bad = 0
    for path in sys.argv[2:]:
        r = json.load(open(path))
        errors = sorted(validator.iter_errors(r), key=lambda e: list(e.absolute_path))
        for e in errors[:20]:
            print("validate_results: FAIL: %s: %s: %s" % (path, "/".join(str(p) for p in e.absolute_path) or "(top)",
                                                         e.message[:300]))
        problems = []
        if not errors:
            s = r["summary"]
            if s["cases"] != len(r["cases"]):
                problems.append("summary.cases %d, %d records" % (s["cases"], len(r["cases"])))
            for v in ("pass", "informative", "fail", "not_applicable", "error"):
                n = sum(c["verdict"] == v for c in r["cases"])
                if s[v] != n:
                    problems.append("summary.%s %d, the records say %d" % (v, s[v], n))
            rv = {}
            for x in r["rules"]:
                rv[x["verdict"]] = rv.get(x["verdict"], 0) + 1
            if rv != s["rules"]:
                problems.append("summary.rules %s, the records say %s" % (s["rules"], rv))
            keys = [(c["id"], c["ip_version"]) for c in r["cases"]]
            if len(set(keys)) != len(keys):
                problems.append("case records repeat an ID and IP version")
            if len({x["id"] for x in r["rules"]}) != len(r["rules"]):
                problems.append("rule records repeat an ID")
            for i, c in enumerate(r["cases"]):
                own = {p["frame"] for p in c["packets"] if p["frame"]}
                cited = [f for e in c["evidence"] for f in e["frames"] if f] + \
                        [f for st in c["steps"] for f in st["frames"] if f] + \
                        [f["frame"] for f in c["findings"] if f.get("frame")]
                stray = [f for f in cited if f not in own]
                if stray:
                    problems.append("cases[%d] (%s) cites frames %s that are not its packets" % (i, c["id"], stray[:5]))
                problems += series_problems(i, c)
        for p in problems:
            print("validate_results: FAIL: %s: %s" % (path, p))
        if errors or problems:
            bad += 1
        else:
            print("validate_results: ok: %s (%d case records, %d rule records)" % (path, len(r["cases"]), len(r["rules"])))
    return 1 if bad else 0


sys.exit(main())
