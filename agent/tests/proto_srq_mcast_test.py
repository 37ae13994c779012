#!/usr/bin/python3
"""Protocol tests of SRQs, asynchronous events and multicast for roce-agent
(docs/agent-protocol.md) against the soft DUT: capabilities, every new
method's parameter checks, SRQ bookkeeping (a QP holds its SRQ, an SRQ in
use cannot go, PDs last), events routed to the session owning their
object and nobody else, the per-session bound with its count of lost
events, a bounded wait, multicast attach/detach and CM join bookkeeping
and cleanup. The frames (SRQ takes, limit events, delivery, IGMP/MLD
reports) are dutpeer's scenarios srq-* mcast-* cm-join. Every wait is
bounded. Environment: scripts/netns-pair's.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from proto_test import Conn, check, counters, failures  # noqa: E402

import proto_test  # noqa: E402


def rc_qp(c, pd, cq, **extra):
    return c.ok("create_qp", pd=pd, send_cq=cq, recv_cq=cq, type="RC", **extra)["qp"]


def ud_rts(c, pd, cq, qkey=0x11111111):
    q = c.ok("create_qp", pd=pd, send_cq=cq, recv_cq=cq, type="UD")["qp"]
    c.ok("modify_qp", qp=q, state="INIT", port=1, pkey_index=0, qkey=qkey)
    c.ok("modify_qp", qp=q, state="RTR")
    c.ok("modify_qp", qp=q, state="RTS", sq_psn=1)
    return q


def test_capabilities():
    c = Conn()
    caps = c.ok("query_device")["capabilities"]
    for cap in ("SRQ", "MCAST", "CM_MCAST", "ASYNC_EVENTS"):
        check(cap in caps, "the soft DUT lists %s: %s" % (cap, caps))
    c.close()


def test_srq():
    c = Conn()
    pd = c.ok("alloc_pd")["pd"]
    cq = c.ok("create_cq", cqe=64)["cq"]
    mr = c.ok("reg_mr", pd=pd, length=8192, access=["LOCAL_WRITE"])["mr"]
    c.err("create_srq", "bad_request", "params.pd")
    c.err("create_srq", "no_such_handle", "params.pd", pd=cq)
    c.err("create_srq", "bad_request", "params.max_wr", pd=pd, max_wr=0)
    c.err("create_srq", "bad_request", "params.max_wr", pd=pd, max_wr=(1 << 20) + 1)
    c.err("create_srq", "bad_request", "params.max_sge", pd=pd, max_sge=0)
    c.err("create_srq", "bad_request", "params.limit", pd=pd, max_wr=8, limit=9)
    c.err("create_srq", "bad_request", "max_wr", pd=pd, max_wr=100000)  # the device's own bound
    srq = c.ok("create_srq", pd=pd, max_wr=8, max_sge=2, limit=3)["srq"]
    r = c.ok("query_srq", srq=srq)
    check(r == {"max_wr": 8, "max_sge": 2, "limit": 3}, "query_srq: %s" % r)
    c.err("modify_srq", "bad_request", "params.limit", srq=srq)
    c.err("modify_srq", "bad_request", "limit", srq=srq, limit=9)
    c.err("modify_srq", "no_such_handle", "params.srq", srq=pd, limit=1)
    c.ok("modify_srq", srq=srq, limit=0)
    check(c.ok("query_srq", srq=srq)["limit"] == 0, "modify_srq limit 0 disarms")
    c.err("post_srq_recv", "bad_request", "params.wr_id", srq=srq)
    c.err("post_srq_recv", "bad_request", "params.sge[0]", srq=srq, wr_id=1, sge=[{"mr": mr, "offset": 8000, "length": 200}])
    c.err("post_srq_recv", "bad_request", "max_sge", srq=srq, wr_id=1,
          sge=[{"mr": mr, "offset": 0, "length": 8}] * 3)
    for i in range(8):
        c.ok("post_srq_recv", srq=srq, wr_id=i, sge=[{"mr": mr, "offset": i * 1024, "length": 1024}])
    c.err("post_srq_recv", "resource_limit", "full", srq=srq, wr_id=9, sge=[])
    c.err("create_qp", "no_such_handle", "params.srq", pd=pd, send_cq=cq, recv_cq=cq, type="RC", srq=pd)
    c.err("create_qp", "bad_request", "params.srq", pd=pd, send_cq=cq, recv_cq=cq, type="RC", srq="one")
    q1 = rc_qp(c, pd, cq, srq=srq)
    q2 = c.ok("create_qp", pd=pd, send_cq=cq, recv_cq=cq, type="UD", srq=srq, max_recv_wr=0)["qp"]
    c.ok("modify_qp", qp=q1, state="INIT", port=1, pkey_index=0, access=["LOCAL_WRITE"])
    c.err("post_recv", "invalid_state", "post_srq_recv", qp=q1, wr_id=1)
    c.err("destroy_srq", "invalid_state", "2 QPs", srq=srq)
    c.err("dealloc_pd", "invalid_state", "SRQs", pd=pd)
    c.ok("destroy_qp", qp=q1)
    c.err("destroy_srq", "invalid_state", "1 QPs", srq=srq)
    c.ok("destroy_qp", qp=q2)
    c.ok("destroy_srq", srq=srq)
    c.err("query_srq", "no_such_handle", "params.srq", srq=srq)
    # Another session cannot name it.
    srq = c.ok("create_srq", pd=pd)["srq"]
    o = Conn()
    opd = o.ok("alloc_pd")["pd"]
    ocq = o.ok("create_cq", cqe=4)["cq"]
    o.err("create_qp", "no_such_handle", "params.srq", pd=opd, send_cq=ocq, recv_cq=ocq, type="RC", srq=srq)
    o.err("destroy_srq", "no_such_handle", "params.srq", srq=srq)
    o.close()
    # Cleanup on close: the QP before its SRQ, the SRQ before its PD.
    rc_qp(c, pd, cq, srq=srq)
    c.close()
    w = Conn()
    for _ in range(50):
        cnt = counters(w)
        if cnt["objects_srq"] == 0 and cnt["objects_qp"] == 0 and cnt["objects_pd"] == 0:
            break
        time.sleep(0.05)
    check(cnt["objects_srq"] == 0 and cnt["objects_qp"] == 0 and cnt["objects_pd"] == 0,
          "a closed session's QP, SRQ and PD are gone: %s" % {k: v for k, v in cnt.items() if k.startswith("objects")})
    w.close()


def events(c, **params):
    r = c.ok("get_async_event", **params)
    return r.get("events", []), r.get("lost")


def test_events():
    a, b = Conn(), Conn()
    a.err("get_async_event", "bad_request", "params.max", max=0)
    a.err("get_async_event", "bad_request", "params.max", max=1025)
    a.err("get_async_event", "bad_request", "params.timeout_ms", timeout_ms=60001)
    a.err("get_async_event", "bad_request", "params.timeout_ms", timeout_ms="soon")
    ev, lost = events(a)
    check(ev == [] and lost == 0, "no events at first: %s %s" % (ev, lost))
    objs = {}
    for name, c in (("a", a), ("b", b)):
        pd = c.ok("alloc_pd")["pd"]
        cq = c.ok("create_cq", cqe=16)["cq"]
        srq = c.ok("create_srq", pd=pd)["srq"]
        objs[name] = (pd, cq, srq, rc_qp(c, pd, cq, srq=srq))
    qa = objs["a"][3]
    # A QP of an SRQ entering ERR: Last WQE Reached, for its session only.
    a.ok("modify_qp", qp=qa, state="ERR")
    ev, _ = events(a, timeout_ms=1000)
    check(ev == [{"type": "QP_LAST_WQE_REACHED", "qp": qa}], "session a's event: %s" % ev)
    ev, _ = events(b)
    check(ev == [], "session b sees none of a's events: %s" % ev)
    # The bounded wait: nothing comes, the reply comes at the deadline.
    t0 = time.monotonic()
    ev, _ = events(b, timeout_ms=300)
    dt = time.monotonic() - t0
    check(ev == [] and 0.25 <= dt < 5, "an empty wait of 300 ms took %.3f s: %s" % (dt, ev))
    # Oldest first, at most max at a time.
    qb = objs["b"][3]
    for _ in range(3):
        b.ok("modify_qp", qp=qb, state="ERR")
        b.ok("modify_qp", qp=qb, state="RESET")
    ev, _ = events(b, max=2)
    check(ev == [{"type": "QP_LAST_WQE_REACHED", "qp": qb}] * 2, "max 2: %s" % ev)
    ev, _ = events(b, max=16)
    check(len(ev) == 1, "the third event after the first two: %s" % ev)
    # A session's queue holds 1024: the oldest go, and are counted. The
    # device's own queue is drained whenever a session begins.
    cycles = 1100
    for i in range(cycles):
        a.ok("modify_qp", qp=qa, state="RESET")
        a.ok("modify_qp", qp=qa, state="ERR")
        if i % 200 == 199:
            Conn().close()
    ev, lost = events(a, max=1024)
    check(len(ev) == 1024 and lost == cycles - 1024, "a full queue: %d events, %s lost" % (len(ev), lost))
    ev, lost = events(a, max=1024)
    check(ev == [] and lost == 0, "after the full read: %d events, %s lost" % (len(ev), lost))
    # Events of a destroyed object are not reported to anyone.
    a.ok("modify_qp", qp=qa, state="RESET")
    a.ok("modify_qp", qp=qa, state="ERR")
    a.ok("destroy_qp", qp=qa)
    ev, _ = events(a)
    check(ev == [{"type": "QP_LAST_WQE_REACHED", "qp": qa}], "an event raised before its QP went stays: %s" % ev)
    a.close()
    b.close()


def test_mcast():
    c = Conn()
    pd = c.ok("alloc_pd")["pd"]
    cq = c.ok("create_cq", cqe=16)["cq"]
    ud = ud_rts(c, pd, cq)
    rc = rc_qp(c, pd, cq)
    g4, g6 = "239.255.18.40", "ff15::db8:40"
    c.err("attach_mcast", "bad_request", "params.gid", qp=ud)
    c.err("attach_mcast", "bad_request", "params.gid", qp=ud, gid="not-an-address")
    # A GID that is no group reaches the device, which refuses it.
    c.err("attach_mcast", "bad_request", "not a multicast group", qp=ud, gid="198.18.0.9")
    c.err("attach_mcast", "bad_request", "not a multicast group", qp=ud, gid="2001:db8::9")
    c.err("attach_mcast", "bad_request", "params.lid", qp=ud, gid=g4, lid=65536)
    c.err("attach_mcast", "bad_request", "only UD", qp=rc, gid=g4)
    c.err("attach_mcast", "no_such_handle", "params.qp", qp=pd, gid=g4)
    c.err("detach_mcast", "invalid_state", "not a member", qp=ud, gid=g4)
    before = counters(c)["mcast_attached"]
    c.ok("attach_mcast", qp=ud, gid=g4)
    c.ok("attach_mcast", qp=ud, gid="::ffff:239.255.18.41")
    c.ok("attach_mcast", qp=ud, gid=g6, lid=7)
    # Attached again: the device sees the verb, the QP stays one member.
    c.ok("attach_mcast", qp=ud, gid="::ffff:" + g4)
    check(counters(c)["mcast_attached"] == before + 3, "three attachments counted")
    c.ok("detach_mcast", qp=ud, gid="::ffff:" + g4)  # the same group, mapped
    c.err("detach_mcast", "invalid_state", "not a member", qp=ud, gid=g4)
    # The CM's join: UD in RTS, a multicast address, the QP's Q_Key.
    c.err("cm_join", "bad_request", "params.group", qp=ud)
    c.err("cm_join", "bad_request", "not a multicast group", qp=ud, group="198.18.0.1")
    c.err("cm_join", "bad_request", "only UD", qp=rc, group=g4)
    idle = c.ok("create_qp", pd=pd, send_cq=cq, recv_cq=cq, type="UD")["qp"]
    c.err("cm_join", "invalid_state", "RTS", qp=idle, group=g4)
    r = c.ok("cm_join", qp=ud, group=g4)
    check(r == {"mgid": "::ffff:" + g4, "qkey": 0x11111111}, "cm_join result: %s" % r)
    c.err("cm_join", "invalid_state", "already a member", qp=ud, group=g4)
    c.err("attach_mcast", "invalid_state", "already a member", qp=ud, gid=g4)
    c.err("detach_mcast", "invalid_state", "cm_leave", qp=ud, gid=g4)
    c.err("cm_leave", "invalid_state", "detach_mcast", qp=ud, group=g6)
    c.ok("cm_leave", qp=ud, group=g4)
    c.err("cm_leave", "invalid_state", "not a member", qp=ud, group=g4)
    c.ok("cm_join", qp=ud, group=g4)
    # destroy_qp leaves and detaches first; a closed session's QPs too.
    c.ok("destroy_qp", qp=ud)
    check(counters(c)["mcast_attached"] == before, "destroy_qp detached everything: %s" % counters(c)["mcast_attached"])
    ud = ud_rts(c, pd, cq)
    c.ok("attach_mcast", qp=ud, gid=g6)
    c.ok("cm_join", qp=ud, group=g4)
    c.close()
    w = Conn()
    for _ in range(50):
        if counters(w)["mcast_attached"] == before:
            break
        time.sleep(0.05)
    check(counters(w)["mcast_attached"] == before, "a closed session's attachments are gone")
    w.close()


def main():
    tests = [test_capabilities, test_srq, test_events, test_mcast]
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
