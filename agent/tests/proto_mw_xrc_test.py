#!/usr/bin/python3
"""Protocol tests of memory windows, XRC, FLUSH and ATOMIC WRITE for
roce-agent (docs/agent-protocol.md) against the soft DUT: capabilities,
every new method's and post_send member's parameter checks (each error
names the member), the bookkeeping (a window keeps its PD, a bound window
keeps its MR registered, an XRC domain in use cannot go, XRC SRQs and
QPs hold their domain and CQ) and cleanup of a closed session. What the
device does on the wire is dutpeer's (scenarios mw-*, xrc-*, flush*,
atomic-write, placement-caps, req-placement). Every wait is bounded.
Environment: scripts/netns-pair's.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from proto_test import Conn, check, counters, failures  # noqa: E402

import proto_test  # noqa: E402

ALL = ["LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC"]


def rc_rts(c, pd, cq):
    """An RC QP in RTS towards a made-up peer (nothing is sent to it)."""
    q = c.ok("create_qp", pd=pd, send_cq=cq, recv_cq=cq, type="RC")["qp"]
    c.ok("modify_qp", qp=q, state="INIT", port=1, pkey_index=0, access=ALL)
    c.ok("modify_qp", qp=q, state="RTR", path_mtu=1024, dest_qpn=0x123, rq_psn=1, dgid="198.18.0.99",
         max_dest_rd_atomic=1, min_rnr_timer=12)
    c.ok("modify_qp", qp=q, state="RTS", sq_psn=1, timeout=14, retry_cnt=1, rnr_retry=1, max_rd_atomic=1)
    return q


def test_capabilities():
    c = Conn()
    caps = c.ok("query_device")["capabilities"]
    for cap in ("MW1", "MW2", "XRC", "FLUSH", "ATOMIC_WRITE"):
        check(cap in caps, "the soft DUT lists %s: %s" % (cap, caps))
    c.close()


def test_mw():
    c = Conn()
    pd = c.ok("alloc_pd")["pd"]
    cq = c.ok("create_cq", cqe=64)["cq"]
    mr = c.ok("reg_mr", pd=pd, length=8192, access=["LOCAL_WRITE", "REMOTE_WRITE", "MW_BIND"])
    c.err("alloc_mw", "bad_request", "params.pd", type=1)
    c.err("alloc_mw", "bad_request", "params.type", pd=pd)
    c.err("alloc_mw", "bad_request", "params.type", pd=pd, type=3)
    c.err("alloc_mw", "no_such_handle", "params.pd", pd=cq, type=1)
    w1 = c.ok("alloc_mw", pd=pd, type=1)
    w2 = c.ok("alloc_mw", pd=pd, type=2)
    check(w1["rkey"] >> 8 != w2["rkey"] >> 8, "two windows, two indices: %s %s" % (w1, w2))
    c.err("dealloc_pd", "invalid_state", "params.pd", pd=pd)
    q = rc_rts(c, pd, cq)
    bind = dict(qp=q, mw=w1["mw"], mr=mr["mr"], offset=0, length=4096, access=["REMOTE_WRITE"], wr_id=1)
    c.err("bind_mw", "bad_request", "params.length", **{k: v for k, v in bind.items() if k != "length"})
    # A range past the MR is the device's to refuse (its completion); one
    # that runs past 2^64 is no range at all.
    c.err("bind_mw", "bad_request", "params.length", **dict(bind, offset="0xFFFFFFFFFFFFFFFF", length=2))
    c.err("bind_mw", "bad_request", "params.zero_based", **dict(bind, zero_based=1))
    c.err("bind_mw", "bad_request", "params.access", **dict(bind, access=["LOCAL_WRITE"]))
    c.err("bind_mw", "bad_request", "params.mr", **{k: v for k, v in bind.items() if k != "mr"})
    c.err("bind_mw", "bad_request", "post_send's BIND_MW", **dict(bind, mw=w2["mw"]))
    c.err("bind_mw", "no_such_handle", "params.mw", **dict(bind, mw=pd))
    r = c.ok("bind_mw", **bind)
    check(r["rkey"] >> 8 == w1["rkey"] >> 8 and r["rkey"] != w1["rkey"], "bind_mw's new rkey: %s" % r)
    wc = c.ok("poll_cq", cq=cq, timeout_ms=1000)["completions"]
    check(len(wc) == 1 and wc[0]["opcode"] == "BIND_MW" and wc[0]["status"] == "SUCCESS" and wc[0]["wr_id"] == 1,
          "the bind's completion: %s" % wc)
    # A bound window keeps its MR registered (EBUSY on a real device).
    c.err("dereg_mr", "invalid_state", "windows", mr=mr["mr"])
    # The BIND_MW work request: type 2 only, its members, none on other opcodes.
    wr = dict(qp=q, wr_id=2, opcode="BIND_MW", mw=w2["mw"], mr=mr["mr"], offset=0, length=64, access=["REMOTE_READ"],
              rkey=(w2["rkey"] & ~0xFF) | ((w2["rkey"] + 1) & 0xFF))
    c.err("post_send", "bad_request", "bind_mw", **dict(wr, mw=w1["mw"]))
    c.err("post_send", "bad_request", "params.rkey", **{k: v for k, v in wr.items() if k != "rkey"})
    c.err("post_send", "bad_request", "params.length", **dict(wr, length=0))
    c.err("post_send", "bad_request", "params.mw", **dict(wr, opcode="SEND", sge=[]))
    c.err("post_send", "bad_request", "params.value", qp=q, wr_id=3, opcode="SEND", sge=[], value=1)
    c.ok("post_send", **wr)
    wc = c.ok("poll_cq", cq=cq, timeout_ms=1000)["completions"]
    check(len(wc) == 1 and wc[0]["opcode"] == "BIND_MW" and wc[0]["status"] == "SUCCESS", "BIND_MW completion: %s" % wc)
    c.ok("post_send", qp=q, wr_id=4, opcode="LOCAL_INV", invalidate_rkey=wr["rkey"])
    wc = c.ok("poll_cq", cq=cq, timeout_ms=1000)["completions"]
    check(len(wc) == 1 and wc[0]["opcode"] == "LOCAL_INV" and wc[0]["status"] == "SUCCESS", "LOCAL_INV completion: %s" % wc)
    # Unbound (a zero-length bind), the type 1 window frees its MR.
    c.ok("bind_mw", qp=q, mw=w1["mw"], length=0, wr_id=5)
    c.ok("poll_cq", cq=cq, timeout_ms=1000)
    cnt = counters(c)
    check(cnt["objects_mw"] >= 2 and cnt["mw_binds"] >= 3, "window counters: %s %s" % (cnt["objects_mw"], cnt["mw_binds"]))
    c.ok("dereg_mr", mr=mr["mr"])
    c.ok("dealloc_mw", mw=w1["mw"])
    c.err("dealloc_mw", "no_such_handle", "params.mw", mw=w1["mw"])
    # A type 2 window goes invalid with the QP that bound it: its MR is free.
    mr2 = c.ok("reg_mr", pd=pd, length=4096, access=["LOCAL_WRITE", "MW_BIND"])["mr"]
    q2 = rc_rts(c, pd, cq)
    w3 = c.ok("alloc_mw", pd=pd, type=2)
    c.ok("post_send", qp=q2, wr_id=6, opcode="BIND_MW", mw=w3["mw"], mr=mr2, length=64, access=["REMOTE_READ"],
         rkey=(w3["rkey"] & ~0xFF) | ((w3["rkey"] + 1) & 0xFF))
    wc = c.ok("poll_cq", cq=cq, timeout_ms=1000)["completions"]
    check(len(wc) == 1 and wc[0]["status"] == "SUCCESS", "BIND_MW on a second QP: %s" % wc)
    c.err("dereg_mr", "invalid_state", "windows", mr=mr2)
    c.ok("destroy_qp", qp=q2)
    c.ok("dereg_mr", mr=mr2)
    c.close()


def test_mw_refused_binds():
    """A bind the device refuses completes with MW_BIND_ERR, its own error,
    and the requests after it are flushed; the soft DUT refuses a range
    past the MR, a region of another PD, a zero-based type 1 window."""
    c = Conn()
    pd = c.ok("alloc_pd")["pd"]
    pd2 = c.ok("alloc_pd")["pd"]
    cq = c.ok("create_cq", cqe=64)["cq"]
    mr = c.ok("reg_mr", pd=pd, length=4096, access=["LOCAL_WRITE", "REMOTE_WRITE", "MW_BIND"])["mr"]
    mr2 = c.ok("reg_mr", pd=pd2, length=4096, access=["LOCAL_WRITE", "REMOTE_WRITE", "MW_BIND"])["mr"]
    w = c.ok("alloc_mw", pd=pd, type=1)["mw"]
    for what, extra in (("past the MR", dict(mr=mr, offset=4000, length=512)),
                        ("another PD's MR", dict(mr=mr2, offset=0, length=512)),
                        ("zero-based type 1", dict(mr=mr, offset=0, length=512, zero_based=True))):
        q = rc_rts(c, pd, cq)
        c.ok("bind_mw", qp=q, mw=w, access=["REMOTE_WRITE"], wr_id=7, **extra)
        c.ok("post_send", qp=q, wr_id=8, opcode="SEND", sge=[])
        wc = c.ok("poll_cq", cq=cq, max=4, timeout_ms=1000)["completions"]
        check([(x["wr_id"], x["status"]) for x in wc] == [(7, "MW_BIND_ERR"), (8, "WR_FLUSH_ERR")],
              "a bind %s: MW_BIND_ERR, then the SEND flushed: %s" % (what, wc))
        c.ok("destroy_qp", qp=q)
    c.ok("dealloc_mw", mw=w)
    c.close()


def test_placement_params():
    c = Conn()
    pd = c.ok("alloc_pd")["pd"]
    cq = c.ok("create_cq", cqe=64)["cq"]
    q = rc_rts(c, pd, cq)
    fl = dict(qp=q, wr_id=1, opcode="FLUSH", remote_addr=0x1000, rkey=5, length=64, placement=["GLOBAL"], level="RANGE")
    c.err("post_send", "bad_request", "params.placement", **{k: v for k, v in fl.items() if k != "placement"})
    c.err("post_send", "bad_request", "params.placement", **dict(fl, placement=[]))
    c.err("post_send", "bad_request", "params.placement[1]", **dict(fl, placement=["GLOBAL", "VISIBLE"]))
    c.err("post_send", "bad_request", "params.level", **dict(fl, level="PAGE"))
    c.err("post_send", "bad_request", "params.level", **{k: v for k, v in fl.items() if k != "level"})
    c.err("post_send", "bad_request", "params.value", **dict(fl, value=7))
    mr = c.ok("reg_mr", pd=pd, length=64, access=["LOCAL_WRITE"])["mr"]
    c.err("post_send", "bad_request", "SGEs", **dict(fl, sge=[{"mr": mr, "offset": 0, "length": 8}]))
    c.ok("post_send", **fl)
    aw = dict(qp=q, wr_id=2, opcode="ATOMIC_WRITE", remote_addr=0x1000, rkey=5, value=0x0102030405060708)
    c.err("post_send", "bad_request", "params.value", **{k: v for k, v in aw.items() if k != "value"})
    c.err("post_send", "bad_request", "params.level", **dict(aw, level="RANGE"))
    c.err("post_send", "bad_request", "params.remote_srqn", **dict(aw, remote_srqn=5))
    c.close()


def test_xrc():
    c = Conn()
    pd = c.ok("alloc_pd")["pd"]
    cq = c.ok("create_cq", cqe=64)["cq"]
    x = c.ok("alloc_xrcd")["xrcd"]
    c.err("dealloc_xrcd", "bad_request", "params.xrcd")
    c.err("dealloc_xrcd", "no_such_handle", "params.xrcd", xrcd=pd)
    c.err("create_srq", "bad_request", "params.cq", pd=pd, xrcd=x)
    c.err("create_srq", "bad_request", "params.cq", pd=pd, cq=cq)
    c.err("create_srq", "no_such_handle", "params.xrcd", pd=pd, xrcd=cq, cq=cq)
    s1 = c.ok("create_srq", pd=pd, xrcd=x, cq=cq, max_wr=4)
    s2 = c.ok("create_srq", pd=pd, xrcd=x, cq=cq, max_wr=4)
    check(0 < s1["srqn"] <= 0xFFFFFF and s1["srqn"] != s2["srqn"], "XRC SRQ numbers: %s %s" % (s1, s2))
    check(c.ok("query_srq", srq=s1["srq"]).get("srqn") == s1["srqn"], "query_srq names the srqn")
    plain = c.ok("create_srq", pd=pd)
    check("srqn" not in plain and "srqn" not in c.ok("query_srq", srq=plain["srq"]), "a plain SRQ has no srqn")
    c.err("create_qp", "bad_request", "params.xrcd", pd=pd, type="XRC_RECV")
    c.err("create_qp", "bad_request", "params.send_cq", pd=pd, type="XRC_RECV", xrcd=x, send_cq=cq)
    c.err("create_qp", "bad_request", "params.xrcd", pd=pd, type="RC", send_cq=cq, recv_cq=cq, xrcd=x)
    c.err("create_qp", "bad_request", "params.send_cq", pd=pd, type="XRC_SEND")
    c.err("create_qp", "bad_request", "params.srq", pd=pd, type="RC", send_cq=cq, recv_cq=cq, srq=s1["srq"])
    c.err("create_qp", "bad_request", "params.type", pd=pd, type="XRC", send_cq=cq, recv_cq=cq)
    tgt = c.ok("create_qp", pd=pd, type="XRC_RECV", xrcd=x)["qp"]
    ini = c.ok("create_qp", pd=pd, type="XRC_SEND", send_cq=cq)["qp"]
    c.err("dealloc_xrcd", "invalid_state", "params.xrcd", xrcd=x)
    c.err("destroy_cq", "invalid_state", "params.cq", cq=cq)
    c.err("post_send", "bad_request", "params.remote_srqn", qp=ini, wr_id=1, opcode="SEND", sge=[], remote_srqn=1 << 24)
    c.ok("destroy_qp", qp=tgt)
    c.ok("destroy_srq", srq=s1["srq"])
    c.ok("destroy_srq", srq=s2["srq"])
    c.ok("dealloc_xrcd", xrcd=x)
    # A closed session's windows, domains and XRC SRQs go with it.
    x2 = c.ok("alloc_xrcd")["xrcd"]
    c.ok("create_srq", pd=pd, xrcd=x2, cq=cq)
    c.ok("create_qp", pd=pd, type="XRC_RECV", xrcd=x2)
    mr = c.ok("reg_mr", pd=pd, length=4096, access=["LOCAL_WRITE", "MW_BIND"])["mr"]
    w = c.ok("alloc_mw", pd=pd, type=1)["mw"]
    check(w > 0 and mr > 0, "handles of the session to be closed")
    c.close()
    watcher = Conn()
    for _ in range(50):
        cnt = counters(watcher)
        if cnt["objects_xrcd"] == 0 and cnt["objects_mw"] == 0 and cnt["objects_srq"] == 0:
            break
        time.sleep(0.05)
    check(cnt["objects_xrcd"] == 0 and cnt["objects_mw"] == 0 and cnt["objects_srq"] == 0,
          "a closed session's domains, windows and SRQs are gone: %s %s %s" %
          (cnt["objects_xrcd"], cnt["objects_mw"], cnt["objects_srq"]))
    watcher.close()


def main():
    tests = [test_capabilities, test_mw, test_mw_refused_binds, test_placement_params, test_xrc]
    for t in tests:
        before = len(failures)
        try:
            t()
        except Exception as e:  # a crash of the test is a failure, not an abort
            failures.append("%s raised %r" % (t.__name__, e))
            print("  FAIL: %s raised %r" % (t.__name__, e), file=sys.stderr)
        print("%s %s" % ("pass" if len(failures) == before else "FAIL", t.__name__))
    print("%d checks, %d failed" % (proto_test.checks, len(failures)))
    return 1 if failures or proto_test.checks == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
