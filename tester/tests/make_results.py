#!/usr/bin/python3
"""Writes synthetic roce-tester results files for the report tests: every
verdict, hostile text in every field a report shows, a case long enough for
the ladder to leave packets out, an expectation that never saw its packet,
events, warnings, members a newer tester might add, and an interrupted run
with no case at all. Consistent with docs/results-schema.md (frame numbers
unique and cited frames present).

usage: make_results.py hostile|empty|variant|fixed DIR
  variant: the hostile run with RC-X-001 [IPv4] passing, RC-X-003 [IPv6]
  failing, UD-NEW-001 added and RC-X-002 removed (for --compare);
  fixed: the hostile run with its two failing cases passing.
"""
import json
import os
import sys

HOSTILE = "<script>alert('x')</script> & \"quotes\" ]]> \x01\x1b[31m \u00e9\u4e2d\U0001F600 -->"
T0 = 1767225600000000000  # 2026-01-01T00:00:00Z

frame = [0]


def pkt(idx, step, tx, summary, ts, note=None, annotation=None, qp="q"):
    frame[0] += 1
    p = {"index": idx, "frame": frame[0], "ts_ns": ts, "direction": "tx" if tx else "rx", "step": step,
         "length": 66, "qp": qp, "summary": summary}
    if note:
        p["note"] = note
    if annotation:
        p["annotation"] = annotation
    return p


def step(index, line, kind, text, status, t, **kw):
    s = {"index": index, "line": line, "kind": kind, "text": text, "status": status, "started_ns": t,
         "duration_ns": 50000, "packets": [], "frames": [], "agent_calls": []}
    s.update(kw)
    return s


def case(cid, ipv, verdict, rules, start, steps, packets, reason="", failed_step=None, failed_rules=(),
         evidence=(), findings=(), events=(), file=None, title=None):
    return {"id": cid, "title": title or ("Title of %s %s" % (cid, HOSTILE)), "file": file or "cases/rc/%s.case" % cid.lower(),
            "ip_version": ipv, "rules": list(rules), "requires": ["RC"], "started_ns": start, "verdict": verdict,
            "reason": reason, "duration_ns": 3000000, "failed_step": failed_step, "failed_rules": list(failed_rules),
            "evidence": list(evidence), "findings": list(findings), "steps": steps, "events": list(events),
            "packets": packets, "timings": [{"qp": "q", "psn": 5, "opcode": "RC Acknowledge", "what": "response",
                                             "rx_ns": start + 2000000, "delta_ns": 52000}],
            "engine": {"tx": 1, "rx": 1, "retransmissions": 0, "acks_sent": 0, "naks_sent": 0, "rnr_naks_sent": 0,
                       "dropped_by_rule": 0},
            "symbols": {"q.qpn": 32, "m.addr": "0xffffffffffff0000"},
            "future_member": {"ignored": True}}


def passing(cid, ipv, start, rules=("IBA9.7-PSN-SEQERR",)):
    steps = [step(1, 9, "dut qp", "dut qp q type=RC", "ok", start, detail="RC QP q: DUT QPN 0x000020",
                  agent_calls=[{"method": "create_qp", "request": "{\"id\":5,\"method\":\"create_qp\"}",
                                "reply": "{\"id\":5,\"result\":{\"qp\":4}}", "latency_ns": 30000}]),
             step(2, 10, "inject", "inject q SEND_ONLY psn=$q.peer_psn len=8", "ok", start + 100000),
             step(3, 11, "expect", "expect q ACK aeth=ACK psn=$q.peer_psn within 100ms", "ok", start + 200000)]
    p0 = pkt(0, 2, True, "RC SEND Only QP=0x000020 PSN=5", start + 150000, note="injected")
    p1 = pkt(1, 3, False, "RC Acknowledge: ACK QP=0x00c14e PSN=5 MSN=1", start + 250000,
             annotation="matched step 3 (line 11) after 0.100 ms")
    steps[1]["packets"], steps[1]["frames"] = [0], [p0["frame"]]
    steps[2]["packets"], steps[2]["frames"] = [1], [p1["frame"]]
    return case(cid, ipv, "pass", rules, start, steps, [p0, p1])


def failing_with_frame(cid, ipv, start):
    steps = [step(1, 9, "dut qp", "dut qp q type=RC", "ok", start),
             step(2, 14, "inject", "inject q SEND_ONLY psn=$q.peer_psn+2 len=8 " + HOSTILE, "ok", start + 100000),
             step(3, 15, "expect", "expect q ACK aeth=NAK_SEQ psn=$q.peer_psn within 100ms", "fail", start + 200000,
                  expected="psn = 3 " + HOSTILE, observed="psn = 5 " + HOSTILE)]
    p0 = pkt(0, 2, True, "RC SEND Only QP=0x000020 PSN=5", start + 150000, note="injected " + HOSTILE)
    p1 = pkt(1, 3, False, "RC Acknowledge: NAK PSN Sequence Error QP=0x00c14e PSN=5 MSN=0", start + 250000,
             annotation="step 3 expected psn = 3; observed psn = 5")
    steps[1]["packets"], steps[1]["frames"] = [0], [p0["frame"]]
    steps[2]["packets"], steps[2]["frames"] = [1], [p1["frame"]]
    ev = {"rules": ["IBA9.7-PSN-SEQERR"], "step": 3, "line": 15, "statement": steps[2]["text"],
          "expected": steps[2]["expected"], "observed": steps[2]["observed"], "packets": [1], "frames": [p1["frame"]]}
    finding = {"rule": "CA17-9", "severity": "warning", "message": "TTL is 255 " + HOSTILE, "source": "packet check",
               "packet": 1, "frame": p1["frame"], "step": 3}
    return case(cid, ipv, "fail", ["IBA9.7-PSN-SEQERR"], start, steps, [p0, p1],
                reason="step 3 (line 15) expect ...: expected psn = 3; observed psn = 5 " + HOSTILE, failed_step=3,
                failed_rules=["IBA9.7-PSN-SEQERR"], evidence=[ev], findings=[finding])


def failing_without_frame(cid, ipv, start, npackets=0):
    """A missing NAK, after a long exchange (the ladder draws part of it)."""
    steps = [step(1, 9, "dut qp", "dut qp q type=RC", "ok", start),
             step(2, 12, "peer", "peer q send len=65536", "ok", start + 100000),
             step(3, 20, "expect", "expect q ACK aeth=NAK_SEQ within 100ms", "fail", start + 90000000,
                  expected="RC Acknowledge aeth=NAK_SEQ within 100 ms", observed="nothing within 100 ms")]
    packets = []
    for i in range(npackets):
        packets.append(pkt(i, 2, i % 2 == 0, "RC SEND Middle QP=0x000021 PSN=%d" % (100 + i), start + 100000 + 1000 * i,
                           note="request"))
    steps[1]["packets"] = list(range(npackets))
    steps[1]["frames"] = [p["frame"] for p in packets]
    ev = {"rules": ["IBA9.7-PSN-SEQERR", "IBA9.7-GBN"], "step": 3, "line": 20, "statement": steps[2]["text"],
          "expected": steps[2]["expected"], "observed": steps[2]["observed"], "packets": [], "frames": []}
    events = [{"ts_ns": start + 150000, "step": 2, "text": "QP 0x000021 PSN 101 opcode 0x07 (request): dropped by rule"}]
    return case(cid, ipv, "fail", ["IBA9.7-PSN-SEQERR", "IBA9.7-GBN"], start, steps, packets,
                reason="step 3 (line 20): expected RC Acknowledge aeth=NAK_SEQ within 100 ms; observed nothing",
                failed_step=3, failed_rules=["IBA9.7-PSN-SEQERR", "IBA9.7-GBN"], evidence=[ev], events=events)


def failing_long(cid, ipv, start, npackets=1200, bad=700):
    """A long exchange whose failure cites a frame in the middle: the ladder
    and the packet table both leave packets out, but never that frame."""
    steps = [step(1, 9, "dut qp", "dut qp q type=RC", "ok", start),
             step(2, 12, "peer", "peer q write remote=$m.addr rkey=$m.rkey len=1228800", "ok", start + 100000),
             step(3, 14, "expect", "expect q ACK aeth=ACK within 1s", "fail", start + 200000000,
                  expected="ICRC good", observed="ICRC 0xdeadbeef, expected 0x12345678")]
    packets = [pkt(i, 2 if i < bad else 3, i % 3 != 0, "RC RDMA WRITE Middle QP=0x000022 PSN=%d" % i,
                   start + 100000 + 500 * i, note="request") for i in range(npackets)]
    steps[1]["packets"] = list(range(bad))
    steps[1]["frames"] = [p["frame"] for p in packets[:bad]]
    steps[2]["packets"] = [bad]
    steps[2]["frames"] = [packets[bad]["frame"]]
    ev = {"rules": ["CA17-22"], "step": 3, "line": 14, "statement": steps[2]["text"], "expected": "ICRC good",
          "observed": steps[2]["observed"], "packets": [bad], "frames": [packets[bad]["frame"]]}
    finding = {"rule": "CA17-22", "severity": "error", "message": "ICRC is wrong", "source": "packet check",
               "packet": bad, "frame": packets[bad]["frame"], "step": 3}
    return case(cid, ipv, "fail", ["CA17-22"], start, steps, packets, reason="step 3: ICRC 0xdeadbeef", failed_step=3,
                failed_rules=["CA17-22"], evidence=[ev], findings=[finding])


def rules_records(cases):
    ids = ["CA17-1", "CA17-9", "IBA9.7-PSN-SEQERR", "IBA9.7-GBN", "CA17-22", "A17.9-NOWIRE"]
    out = []
    for rid in ids:
        refs = []
        verdict = "not_tested"
        for c in cases:
            role = "violated" if rid in c["failed_rules"] else "tested" if rid in c["rules"] else \
                "observed" if any(f["rule"] == rid for f in c["findings"]) else None
            if role:
                refs.append({"id": c["id"], "ip_version": c["ip_version"], "case_verdict": c["verdict"], "role": role})
        if any(r["role"] == "violated" for r in refs):
            verdict = "fail"
        elif any(r["role"] == "tested" and r["case_verdict"] == "pass" for r in refs):
            verdict = "pass"
        elif any(r["role"] == "observed" for r in refs):
            verdict = "informative"
        elif any(r["case_verdict"] == "error" for r in refs):
            verdict = "error"
        elif any(r["case_verdict"] == "not_applicable" for r in refs):
            verdict = "not_applicable"
        rec = {"id": rid, "title": "Rule %s %s" % (rid, HOSTILE), "severity": "error", "spec_ref": "A17 " + HOSTILE,
               "verdict": "not_testable" if rid == "A17.9-NOWIRE" else verdict, "cases": refs}
        if rid == "A17.9-NOWIRE":
            rec["not_testable_reason"] = "no wire image " + HOSTILE
        out.append(rec)
    return out


def results(cases, complete=True, setup=True):
    summary = {"cases": len(cases)}
    for v in ("pass", "informative", "fail", "not_applicable", "error"):
        summary[v] = sum(c["verdict"] == v for c in cases)
    rules = rules_records(cases)
    summary["rules"] = {}
    for r in rules:
        summary["rules"][r["verdict"]] = summary["rules"].get(r["verdict"], 0) + 1
    su = None
    if setup:
        su = {"interface": {"name": "veth-" + HOSTILE, "mac": "02:00:00:00:00:02", "ipv4": "198.18.0.2",
                            "ipv6": "2001:db8::2", "vlan": None, "timestamps": "host_hiprec (Host, high precision)",
                            "icmp_guard": "UDP port 4791 held by the tester", "frames_sent": 10, "frames_received": 9,
                            "send_errors": 0},
              "agent": {"address": "198.18.0.1:7471",
                        "hello": {"version": 1, "agent": "roce-agent 0.1.0", "backend": "ibverbs", "device": "mlx5_0",
                                  "fault": None}},
              "dut": {"device": {"name": "mlx5_0 " + HOSTILE, "vendor_id": 713, "fw_ver": "22.31.1014",
                                 "capabilities": ["RC", "UD", "IPV4", "IPV6"], "nested": {"x": 1}},
                      "port": {"state": "ACTIVE", "active_mtu": 4096},
                      "gids": [{"index": 0, "gid": "::ffff:198.18.0.1", "type": "RoCEv2"}],
                      "ipv4": {"usable": True, "gid": "::ffff:198.18.0.1", "sgid_index": 0, "mac": "02:00:00:00:00:01",
                               "resolved_by": "kernel neighbour table"},
                      "ipv6": {"usable": False, "why_not": "the DUT lists no RoCEv2 GID for IPv6 " + HOSTILE}}}
    return {"schema": "roce-tester-results", "schema_version": 1, "tool": {"name": "roce-tester", "version": "0.1.0"},
            "run": {"started": "2026-01-01T00:00:00.000Z", "finished": "2026-01-01T00:00:09.000Z" if complete else None,
                    "duration_ns": 9000000000, "complete": complete, "interrupted": not complete,
                    "command": ["run", "--iface", "veth0", "--report-dir", "out dir", HOSTILE], "capture": "capture.pcapng"},
            "setup": su, "summary": summary, "cases": cases, "rules": rules}


def hostile_series(slower=False):
    """A series (docs/results-schema.md) of every kind, hostile text in each
    of its strings: the charts must escape it. Slower: the measured rate
    halved and the timer doubled (the variant run: values that moved)."""
    rate = 450000 if slower else 900000
    chk = {"step": 4, "line": 12, "text": "check $r < 5 " + HOSTILE, "symbol": "r " + HOSTILE, "unit": "bytes/s",
           "value": 900000, "cmp": "<", "bound": 500000, "must": True, "holds": False, "otherwise": HOSTILE}
    tchk = dict(chk, symbol="w " + HOSTILE, unit="ns", value=25000000, cmp=">=", bound=19200000, holds=True)
    return {
        "measurements": [{"step": 3, "line": 11, "qp": "q " + HOSTILE, "text": "measure " + HOSTILE,
                          "rate_symbol": "r " + HOSTILE, "from_ns": 1000000, "to_ns": 51000000, "packets": 40,
                          "bytes": rate // 20, "rate": rate}],
        "checks": [chk],
        "timers": [{"step": 5, "line": 13, "qp": "q " + HOSTILE, "what": "retransmission", "psn": 7, "round": 1,
                    "symbol": "w " + HOSTILE, "value_ns": 50000000 if slower else 25000000, "window_min_ns": 0,
                    "window_max_ns": 290000000,
                    "checks": [tchk]}],
        "congestion": {"rate": [{"qp": "q " + HOSTILE, "from_ns": 1000000, "bin_ns": 1000000, "bytes": [1100, 2200, 0, 1100],
                                 "packets": [1, 2, 0, 1], "pace": [[2500000, 800000], [3500000, 400000]]}],
                       "cnp": [{"t_ns": 2100000, "from": "dut", "qp": "q " + HOSTILE}], "cnp_count": 1,
                       "ce": [{"t_ns": 1500000 + k * 1000, "from": "tester", "qp": "q " + HOSTILE} for k in range(6)],
                       "ce_count": 6,
                       "cnp_causes": [{"cnp_ns": 2100000, "qp": "q " + HOSTILE, "ce_packets": 6, "ce_first_ns": 1500000,
                                       "ce_last_ns": 1505000}]},
        "load": [{"step": 6, "qp": "q " + HOSTILE, "from_ns": 0, "to_ns": 2000000, "bin_ns": 1000000,
                  "sent_bytes": [1400, 1400, 0], "sent_requests": [10, 10, 0], "acked_requests": [8, 12, 0],
                  "acked_bytes": [1120, 1680, 0], "latency_ns": {"p50": [9000, 9500, None], "p99": [12000, 30000, None],
                                                                 "max": [12000, 31000, None]},
                  "latency_percentiles": {"samples": 20, "p50": 9400, "p90": 12000, "p99": 31000, "p999": 31000,
                                          "max": 31000}}],
    }


def hostile(variant=False, fixed=False):
    frame[0] = 0
    t = T0
    cs = []
    cs.append(passing("RC-X-001", 4, t) if variant or fixed else failing_with_frame("RC-X-001", 4, t))
    cs.append(passing("RC-X-001", 6, t + 10**9))
    if not variant:
        cs.append(passing("RC-X-002", 4, t + 2 * 10**9))
    c = passing("RC-X-003", 4, t + 3 * 10**9)
    # A warning the case provoked on purpose, its message in the older form
    # that began with the rule ID.
    c["findings"].append({"rule": "IBA9.7-GBN", "severity": "warning",
                          "message": "IBA9.7-GBN: PROVOKED-WARNING " + HOSTILE, "source": "packet check",
                          "packet": 1, "frame": c["packets"][1]["frame"], "step": 3,
                          "provoked": "the answer step 3 expected to the packet the case injected in step 2"})
    cs.append(c)
    cs.append(failing_without_frame("RC-X-003", 6, t + 4 * 10**9, npackets=400) if variant else
              passing("RC-X-003", 6, t + 4 * 10**9))
    cs.append(passing("RC-X-004", 4, t + 5 * 10**9, rules=("IBA9.7-PSN-SEQERR", "IBA9.7-GBN")) if fixed else
              failing_without_frame("RC-X-004", 4, t + 5 * 10**9, npackets=400))
    cs.append(failing_long("RC-X-005", 4, t + 5 * 10**9 + 5 * 10**8))
    info = passing("RC-INFO-001", 6, t + 5 * 10**9 + 7 * 10**8)
    info["verdict"] = "informative"
    info["reason"] = "the retransmission timeout adapts: " + HOSTILE
    info["findings"].append({"rule": "IBA9.7-GBN", "severity": "info", "message": info["reason"], "source": "case",
                             "step": 3, "line": 11})
    info["series"] = hostile_series(slower=variant)
    cs.append(info)
    na = case("UD-NA-001", 6, "not_applicable", ["CA17-1"], t + 6 * 10**9, [], [], reason="the DUT lacks IPV6",
              file="cases/ud-na-001.case")
    cs.append(na)
    err = case("ERR-001", 4, "error", ["CA17-22"], t + 7 * 10**9,
               [step(1, 3, "dut qp", "dut qp q", "error", t + 7 * 10**9, detail="agent failure: " + HOSTILE)], [],
               reason="step 1 (line 3) dut qp q: lost the agent " + HOSTILE, failed_step=1, file="top.case")
    cs.append(err)
    if variant:
        cs.append(passing("UD-NEW-001", 4, t + 8 * 10**9, rules=("CA17-22",)))
    return results(cs)


def main():
    kind, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    data = {"hostile": hostile, "variant": lambda: hostile(variant=True), "fixed": lambda: hostile(fixed=True),
            "empty": lambda: results([], complete=False, setup=False)}[kind]()
    with open(os.path.join(out, "results.json"), "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, indent=1)


main()
