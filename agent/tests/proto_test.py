#!/usr/bin/python3
"""Protocol tests for roce-agent (docs/agent-protocol.md, version 2).

Runs against a live agent (ROCE_AGENT, ROCE_TOKEN_FILE from
scripts/netns-pair): authentication, malformed, oversized and hostile
requests, parameter checking, per-session handles, dependency order,
limits, cleanup on disconnect. Every wait is bounded.
"""
import base64
import hashlib
import json
import os
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "protocol"))
import agent_auth  # noqa: E402

HOST, PORT = os.environ["ROCE_AGENT"].rsplit(":", 1)
PORT = int(PORT)
TOKEN = open(os.environ["ROCE_TOKEN_FILE"]).read().strip()
failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("  FAIL:", what, file=sys.stderr)


class Conn:
    def __init__(self, hello=True):
        self.s = socket.create_connection((HOST, PORT), timeout=10)
        self.f = self.s.makefile("rb")
        self.n = 0
        if hello:
            try:
                self.info = agent_auth.handshake(self.call, TOKEN)
            except agent_auth.AuthError as e:
                raise AssertionError(e.reply or str(e))

    def send_raw(self, data):
        self.s.sendall(data)

    def recv(self):
        line = self.f.readline()
        if not line:
            return None
        return json.loads(line)

    def call(self, method, **params):
        self.n += 1
        self.send_raw((json.dumps({"id": self.n, "method": method, "params": params}) + "\n").encode())
        r = self.recv()
        assert r is not None, "connection closed on %s" % method
        assert r.get("id") == self.n, r
        return r

    def ok(self, method, **params):
        r = self.call(method, **params)
        check("result" in r, "%s %s should succeed: %s" % (method, params, r.get("error")))
        return r.get("result", {})

    def err(self, method, code, member=None, **params):
        r = self.call(method, **params)
        e = r.get("error") or {}
        check(e.get("code") == code, "%s %s: expected %s, got %s" % (method, params, code, r))
        if member:
            check(member in e.get("message", ""), "%s: message should name %s: %s" % (method, member, e))
        return e

    def closed(self, wait=3.0):
        """Whether the agent closes the connection within wait seconds. A
        close with our unread bytes still in its socket is a reset (RFC 2525
        2.17), so a reset counts as closed."""
        self.s.settimeout(wait)
        try:
            return self.f.readline() == b""
        except ConnectionResetError:
            return True
        except socket.timeout:
            return False

    def close(self):
        self.f.close()  # the file holds the socket open too
        self.s.close()


def counters(c):
    return c.ok("read_counters")["counters"]


def test_auth():
    c = Conn(hello=False)
    c.err("query_device", "unauthenticated")
    c.err("alloc_pd", "unauthenticated")
    c.err("authenticate", "unauthenticated", "hello first", nonce=agent_auth.b64(bytes(32)), proof=agent_auth.b64(bytes(32)))
    c.err("hello", "version_mismatch", "params.version", version=1, token=TOKEN)
    c.err("hello", "version_mismatch", "params.version", version=3)
    c.err("hello", "bad_request", "params.version")
    r = c.ok("hello", version=2)
    check(sorted(r) == ["nonce", "version"] and r["version"] == 2 and len(agent_auth.unb64(r["nonce"])) == 32,
          "hello gives the version and a nonce, nothing else: %s" % r)
    na = agent_auth.unb64(r["nonce"])
    nc = bytes(range(32))
    good = agent_auth.b64(agent_auth.proof("tester", TOKEN, na, nc))
    c.err("authenticate", "bad_request", "params.nonce", proof=good)
    c.err("authenticate", "bad_request", "params.proof", nonce=agent_auth.b64(nc))
    c.err("authenticate", "bad_request", "params.nonce", nonce=agent_auth.b64(nc[:31]), proof=good)
    c.err("authenticate", "bad_request", "params.nonce", nonce=agent_auth.b64(na), proof=good)
    c.err("authenticate", "bad_request", "params.proof", nonce=agent_auth.b64(nc), proof=good[:-1])
    c.err("authenticate", "bad_request", "params.proof", nonce=agent_auth.b64(nc), proof=good[:-2] + "B=")
    # Format errors cost nothing; three wrong proofs close the connection.
    for token in ("wrong", TOKEN + "x", ""):
        bad = agent_auth.b64(agent_auth.proof("tester", token, na, nc))
        c.err("authenticate", "unauthenticated", nonce=agent_auth.b64(nc), proof=bad)
    check(c.closed(), "three failed authentications close the connection")
    c = Conn(hello=False)
    na = agent_auth.hello(c.call)
    r = agent_auth.authenticate(c.call, TOKEN, na)
    check(r.get("version") == 2 and r.get("backend") == "soft" and "fault" in r, "authenticate result: %s" % r)
    # A second hello changes nothing; a second authenticate is refused.
    check(c.ok("hello", version=2)["nonce"] == agent_auth.b64(na), "hello again: the same session nonce")
    c.err("authenticate", "invalid_state", "already", nonce=agent_auth.b64(nc),
          proof=agent_auth.b64(agent_auth.proof("tester", TOKEN, na, nc)))
    c.ok("query_device")
    c.close()


def test_malformed():
    c = Conn()
    for raw, what in [
        (b"not json\n", "not JSON"),
        (b"[1,2,3]\n", "an array"),
        (b'{"method":"query_port"}\n', "no id"),
        (b'{"id":"7","method":"query_port"}\n', "string id"),
        (b'{"id":1}\n', "no method"),
        (b'{"id":1,"method":7}\n', "numeric method"),
        (b'{"id":1,"method":"query_port","params":[1]}\n', "params not an object"),
        (b'{"id":1,"method":"query_port","params":{}\xff\xfe}\n', "invalid UTF-8"),
        (b'{"id":1,"method":"query_port"' + b"\x00" * 10 + b"}\n", "NUL bytes"),
        (b"[" * 100000 + b"]" * 100000 + b"\n", "100000 nested arrays"),
        (b'{"id":1,"method":"x","params":' + b'{"a":' * 5000 + b"1" + b"}" * 5000 + b"}\n", "deep objects"),
    ]:
        c.send_raw(raw)
        r = c.recv()
        check(r is not None and r.get("error", {}).get("code") == "bad_request", "%s: got %s" % (what, r))
    c.err("no_such_method", "unknown_method")
    # The connection survived all of that.
    c.ok("query_port")
    # An oversized message is refused and the connection closed.
    c.send_raw(b'{"id":1,"method":"query_port","pad":"' + b"x" * (1 << 20) + b'"}\n')
    r = c.recv()
    check(r is not None and r.get("error", {}).get("code") == "too_large", "oversized: %s" % r)
    check(c.closed(), "an oversized message closes the connection")
    # A message just under the limit is fine.
    c = Conn()
    head = b'{"id":5,"method":"query_port","params":{},"pad":"'
    tail = b'"}'
    c.send_raw(head + b"y" * ((1 << 20) - len(head) - len(tail)) + tail + b"\n")
    r = c.recv()
    check(r is not None and "result" in r, "a message of exactly 1 MiB is accepted: %s" % (r and r.get("error")))
    # Several requests in one write are answered in order.
    c.send_raw(b'{"id":11,"method":"query_port"}\n{"id":12,"method":"list_gids"}\r\n\n{"id":13,"method":"query_device"}\n')
    ids = [c.recv()["id"] for _ in range(3)]
    check(ids == [11, 12, 13], "pipelined requests answered in order: %s" % ids)
    c.close()


def test_params():
    c = Conn()
    pd = c.ok("alloc_pd")["pd"]
    c.err("create_cq", "bad_request", "params.cqe")
    c.err("create_cq", "bad_request", "params.cqe", cqe="many")
    c.err("create_cq", "bad_request", "params.cqe", cqe=-1)
    c.err("create_cq", "bad_request", "params.cqe", cqe=1.5)
    c.err("create_cq", "bad_request", "params.cqe", cqe=0)
    cq = c.ok("create_cq", cqe=64)["cq"]
    c.err("reg_mr", "bad_request", "params.length", pd=pd, length=(64 << 20) + 1)
    c.err("reg_mr", "bad_request", "params.access", pd=pd, length=4096, access=["REMOTE_EVERYTHING"])
    c.err("reg_mr", "bad_request", "params.access", pd=pd, length=4096, access="LOCAL_WRITE")
    c.err("reg_mr", "bad_request", "params.fill", pd=pd, length=4096, fill=256)
    mr = c.ok("reg_mr", pd=pd, length=4096, access=["LOCAL_WRITE", "REMOTE_WRITE"], fill=0xAB)
    check(mr["length"] == 4096 and mr["rkey"] > 0 and mr["addr"] > 0, "reg_mr result %s" % mr)
    m = mr["mr"]
    data = base64.b64decode(c.ok("read_mr", mr=m, offset=4090, length=6)["data"])
    check(data == b"\xab" * 6, "fill byte: %r" % data)
    c.ok("write_mr", mr=m, offset=4094, data=base64.b64encode(b"hi").decode())
    check(base64.b64decode(c.ok("read_mr", mr=m, offset=4094, length=2)["data"]) == b"hi", "write_mr then read_mr")
    c.err("write_mr", "bad_request", "params.offset", mr=m, offset=4095, data=base64.b64encode(b"hi").decode())
    c.err("write_mr", "bad_request", "params.offset", mr=m, offset=2**64 - 1, data="aGk=")
    c.err("write_mr", "bad_request", "params.data", mr=m, offset=0, data="not base64!")
    c.err("write_mr", "bad_request", "params.data", mr=m, offset=0, data="aGk")
    # digest_mr: the SHA-256 of the bytes read_mr would give, whole or in part.
    whole = base64.b64decode(c.ok("read_mr", mr=m, offset=0, length=4096)["data"])
    check(c.ok("digest_mr", mr=m)["sha256"] == hashlib.sha256(whole).hexdigest(), "digest_mr of the whole MR")
    check(c.ok("digest_mr", mr=m, offset=4094, length=2)["sha256"] == hashlib.sha256(b"hi").hexdigest(),
          "digest_mr of a range")
    check(c.ok("digest_mr", mr=m, offset=4096)["sha256"] == hashlib.sha256(b"").hexdigest(), "digest_mr of nothing")
    c.err("digest_mr", "bad_request", "params.length", mr=m, offset=4000, length=97)
    c.err("digest_mr", "no_such_handle", "params.mr", mr=pd)
    c.err("read_mr", "bad_request", "params.length", mr=m, offset=4000, length=97)
    c.err("read_mr", "bad_request", "params.offset", mr=m, offset="0x", length=1)
    c.err("read_mr", "bad_request", "params.offset", mr=m, offset="18446744073709551616", length=1)
    c.err("read_mr", "no_such_handle", "params.mr", mr=999, offset=0, length=1)
    c.err("read_mr", "no_such_handle", "params.mr", mr=pd, offset=0, length=1)  # a PD is not an MR
    c.err("create_qp", "bad_request", "params.type", pd=pd, send_cq=cq, recv_cq=cq, type="XRC")
    c.err("create_qp", "no_such_handle", "params.send_cq", pd=pd, send_cq=77, recv_cq=cq, type="RC")
    qp = c.ok("create_qp", pd=pd, send_cq=cq, recv_cq=cq, type="RC")
    check(qp["qpn"] > 1, "QPN %s" % qp)
    q = qp["qp"]
    c.err("modify_qp", "bad_request", "params", qp=q)
    c.err("modify_qp", "bad_request", "params.state", qp=q, state="READY")
    c.err("modify_qp", "invalid_state", None, qp=q, state="RTS")
    c.err("modify_qp", "bad_request", "access", qp=q, state="INIT", port=1, pkey_index=0)
    c.err("modify_qp", "bad_request", "params.hop_limit", qp=q, hop_limit=64)
    c.err("modify_qp", "bad_request", "params.retry_cnt", qp=q, retry_cnt=8)
    c.err("post_send", "invalid_state", None, qp=q, wr_id=1, opcode="SEND")
    c.err("post_recv", "invalid_state", None, qp=q, wr_id=1)
    # cm_listen: the connection manager's passive side, on a QP in RESET.
    c.err("cm_listen", "bad_request", "params.port", qp=q)
    c.err("cm_listen", "bad_request", "params.port", qp=q, port=0)
    c.err("cm_listen", "bad_request", "params.port", qp=q, port=65536)
    c.err("cm_listen", "no_such_handle", "params.qp", qp=999, port=18515)
    lq = c.ok("create_qp", pd=pd, send_cq=cq, recv_cq=cq, type="RC")["qp"]
    r = c.ok("cm_listen", qp=lq, port=18515)
    check(int(r["service_id"]) == 0x0000000001064853, "cm_listen: service_id %s" % r)
    c.err("cm_listen", "invalid_state", "has a listener already", qp=q, port=18515)
    c.err("cm_listen", "invalid_state", None, qp=lq, port=18516)
    ud = c.ok("create_qp", pd=pd, send_cq=cq, recv_cq=cq, type="UD")["qp"]
    c.err("cm_listen", "bad_request", "RC", qp=ud, port=18517)
    c.ok("destroy_qp", qp=ud)
    c.ok("destroy_qp", qp=lq)
    c.ok("modify_qp", qp=q, state="INIT", port=1, pkey_index=0, access=["REMOTE_WRITE"])
    c.err("cm_listen", "invalid_state", "RESET", qp=q, port=18515)
    c.err("post_recv", "bad_request", "params.sge[0]", qp=q, wr_id=1, sge=[{"mr": m, "offset": 4000, "length": 200}])
    c.err("post_recv", "bad_request", "params.sge[1].length", qp=q, wr_id=1,
          sge=[{"mr": m, "offset": 0, "length": 1}, {"mr": m, "offset": 0, "length": -1}])
    c.err("post_recv", "bad_request", "params.sge", qp=q, wr_id=1, sge={"mr": m})
    c.err("post_recv", "bad_request", "params.wr_id", qp=q, sge=[])
    c.ok("post_recv", qp=q, wr_id="0xffffffffffffffff", sge=[{"mr": m, "offset": 0, "length": 4096}])
    c.err("modify_qp", "bad_request", "dgid", qp=q, state="RTR", path_mtu=1024, dest_qpn=5, rq_psn=0,
          max_dest_rd_atomic=1, min_rnr_timer=1)
    c.err("modify_qp", "bad_request", "params.dgid", qp=q, state="RTR", dgid="nowhere")
    c.err("modify_qp", "bad_request", "path_mtu", qp=q, state="RTR", path_mtu=1000, dest_qpn=5, rq_psn=0,
          dgid="::ffff:198.18.0.2", max_dest_rd_atomic=1, min_rnr_timer=1)
    # The QP's port belongs to RESET -> INIT: verbs refuse it in INIT -> RTR, and so does the soft DUT.
    c.err("modify_qp", "bad_request", "INIT -> RTR on a RC QP does not take port", qp=q, state="RTR",
          path_mtu=1024, dest_qpn=5, rq_psn=0, dgid="198.18.0.2", max_dest_rd_atomic=1, min_rnr_timer=1, port=1)
    c.err("modify_qp", "bad_request", "does not take timeout", qp=q, state="RTR", path_mtu=1024, dest_qpn=5,
          rq_psn=0, dgid="198.18.0.2", max_dest_rd_atomic=1, min_rnr_timer=1, timeout=14)
    c.ok("modify_qp", qp=q, state="RTR", path_mtu=1024, dest_qpn=5, rq_psn=0, dgid="198.18.0.2",
         max_dest_rd_atomic=1, min_rnr_timer=1)
    st = c.ok("query_qp", qp=q)
    check(st.get("state") == "RTR" and st.get("dgid") == "::ffff:198.18.0.2" and st.get("dest_qpn") == 5,
          "query_qp: %s" % st)
    c.err("poll_cq", "bad_request", "params.timeout_ms", cq=cq, timeout_ms=60001)
    c.err("poll_cq", "bad_request", "params.max", cq=cq, max=0)
    t = time.time()
    r = c.ok("poll_cq", cq=cq, timeout_ms=200)
    dt = time.time() - t
    check(r.get("completions") == [] and 0.15 < dt < 2, "an empty poll_cq waits its timeout (%.3f s)" % dt)
    c.ok("modify_qp", qp=q, state="ERR")
    r = c.ok("poll_cq", cq=cq, timeout_ms=1000)
    comps = r.get("completions", [])
    check(len(comps) == 1 and comps[0]["status"] == "WR_FLUSH_ERR" and int(comps[0]["wr_id"]) == 2**64 - 1
          and comps[0]["qp"] == q, "a flushed receive: %s" % comps)
    # Dependency order.
    c.err("dealloc_pd", "invalid_state", "params.pd", pd=pd)
    c.err("destroy_cq", "invalid_state", "params.cq", cq=cq)
    c.ok("destroy_qp", qp=q)
    c.err("destroy_qp", "no_such_handle", "params.qp", qp=q)
    c.ok("destroy_cq", cq=cq)
    c.ok("dereg_mr", mr=m)
    c.ok("dealloc_pd", pd=pd)
    c.err("dealloc_pd", "no_such_handle", "params.pd", pd=pd)
    c.close()


def test_sessions():
    a = Conn()
    b = Conn()
    pa = a.ok("alloc_pd")["pd"]
    ma = a.ok("reg_mr", pd=pa, length=64, access=["LOCAL_WRITE"])["mr"]
    a.ok("write_mr", mr=ma, offset=0, data=base64.b64encode(b"A" * 64).decode())
    # b cannot see a's handles, even with the same numbers.
    b.err("read_mr", "no_such_handle", "params.mr", mr=ma, offset=0, length=64)
    b.err("dealloc_pd", "no_such_handle", "params.pd", pd=pa)
    b.err("reg_mr", "no_such_handle", "params.pd", pd=pa, length=64)
    pb = b.ok("alloc_pd")["pd"]
    cqb = b.ok("create_cq", cqe=4)["cq"]
    qb = b.ok("create_qp", pd=pb, send_cq=cqb, recv_cq=cqb, type="UD")["qp"]
    b.ok("modify_qp", qp=qb, state="INIT", port=1, pkey_index=0, qkey=1)
    b.err("post_recv", "no_such_handle", "params.sge[0].mr", qp=qb, wr_id=1, sge=[{"mr": ma, "offset": 0, "length": 8}])
    # a's memory is untouched.
    check(base64.b64decode(a.ok("read_mr", mr=ma, offset=0, length=64)["data"]) == b"A" * 64, "a's MR intact")
    # While a waits in poll_cq, b is served.
    cqa = a.ok("create_cq", cqe=4)["cq"]
    a.n += 1
    a.send_raw((json.dumps({"id": a.n, "method": "poll_cq", "params": {"cq": cqa, "timeout_ms": 1500}}) + "\n").encode())
    t = time.time()
    b.ok("query_port")
    check(time.time() - t < 0.5, "a poll_cq in one session does not block another")
    r = a.recv()
    check(r and r.get("result", {}).get("completions") == [], "poll_cq timed out empty: %s" % r)
    a.close()
    b.ok("bye")
    check(b.closed(), "bye closes the connection")


def wait_objects_zero(c):
    for _ in range(50):
        cnt = counters(c)
        if all(cnt.get("objects_" + k, 0) == 0 for k in ("pd", "cq", "mr", "qp", "ah")):
            return True
        time.sleep(0.05)
    return False


def test_cleanup_and_limits():
    watcher = Conn()
    check(wait_objects_zero(watcher), "no objects before the test: %s" % counters(watcher))
    c = Conn()
    pd = c.ok("alloc_pd")["pd"]
    cq = c.ok("create_cq", cqe=16)["cq"]
    for _ in range(3):
        c.ok("reg_mr", pd=pd, length=1 << 20, access=["LOCAL_WRITE"])
    for t in ("RC", "UC", "UD"):
        c.ok("create_qp", pd=pd, send_cq=cq, recv_cq=cq, type=t)
    c.ok("create_ah", pd=pd, dgid="2001:db8::2", sgid_index=1)
    cnt = counters(c)
    check(cnt["objects_qp"] == 3 and cnt["objects_mr"] == 3 and cnt["objects_ah"] == 1, "objects: %s" % cnt)
    c.close()  # no bye: the connection just drops
    check(wait_objects_zero(watcher), "a dropped session's objects are destroyed: %s" % counters(watcher))

    # Registered memory per session: 256 MiB.
    c = Conn()
    pd = c.ok("alloc_pd")["pd"]
    for _ in range(4):
        c.ok("reg_mr", pd=pd, length=64 << 20)
    c.err("reg_mr", "resource_limit", "params.length", pd=pd, length=1)
    c.close()
    check(wait_objects_zero(watcher), "MRs freed: %s" % counters(watcher))

    # Handles per session: 4096.
    c = Conn()
    batch = b"".join((json.dumps({"id": i, "method": "alloc_pd"}) + "\n").encode() for i in range(4097))
    c.send_raw(batch)
    replies = [c.recv() for _ in range(4097)]
    ok = sum(1 for r in replies if r and "result" in r)
    last = replies[-1] or {}
    check(ok == 4096 and last.get("error", {}).get("code") == "resource_limit",
          "4096 handles then resource_limit: %d ok, last %s" % (ok, last))
    c.close()
    check(wait_objects_zero(watcher), "PDs freed: %s" % counters(watcher))

    # Sessions: 16 at once; the 17th is refused.
    conns = [watcher] + [Conn(hello=False) for _ in range(15)]
    extra = socket.create_connection((HOST, PORT), timeout=5)
    line = extra.makefile("rb").readline()
    r = json.loads(line) if line else {}
    check(r.get("error", {}).get("code") == "resource_limit", "the 17th session is refused: %s" % r)
    extra.close()
    for k in conns[1:]:
        k.close()
    time.sleep(0.2)
    c = Conn()
    c.ok("query_port")
    c.close()
    watcher.close()


def test_hostile_binary():
    c = Conn(hello=False)
    c.send_raw(bytes(range(256)) * 64 + b"\n")
    r = c.recv()
    check(r is not None and r["error"]["code"] == "bad_request", "binary junk: %s" % r)
    c.close()
    # A peer that sends half a message and vanishes.
    s = socket.create_connection((HOST, PORT), timeout=5)
    s.sendall(b'{"id":1,"method":"hel')
    s.close()
    # And one that never reads its replies.
    s = socket.create_connection((HOST, PORT), timeout=5)
    s.sendall((json.dumps({"id": 1, "method": "hello", "params": {"version": 2}}) + "\n").encode())
    req = (json.dumps({"id": 2, "method": "list_gids"}) + "\n").encode()
    s.settimeout(2)
    try:
        for _ in range(2000):
            s.sendall(req)
    except (socket.timeout, BrokenPipeError, ConnectionResetError):
        pass
    s.close()
    c = Conn()
    c.ok("query_device")
    c.close()


def test_snapshot_counters():
    """One snapshot holds every counter read_counters does, each the soft
    DUT counts with its meaning from lib's table; the meanings add up."""
    c = Conn()
    plain = counters(c)
    snap = c.ok("snapshot_counters", port=1)
    check(snap["driver"] == "soft", "snapshot driver: %r" % snap["driver"])
    # Past 2^53 a number goes as a string of digits, as everywhere in the protocol.
    check(int(snap["taken_ns"]) > 1600000000 * 10**9, "taken_ns: %r" % snap["taken_ns"])
    names = [e["name"] for e in snap["counters"]]
    check(set(names) == set(plain), "snapshot names differ from read_counters: %r" % (set(names) ^ set(plain)))
    by_name = {e["name"]: e for e in snap["counters"]}
    check(by_name["rx_drop_icrc"].get("meaning") == "bad_icrc_dropped" and by_name["rx_drop_icrc"].get("checked"),
          "rx_drop_icrc: %r" % by_name["rx_drop_icrc"])
    check(by_name["tx_cnp"].get("meaning") == "cnps_sent", "tx_cnp: %r" % by_name["tx_cnp"])
    check("meaning" not in by_name["objects_pd"], "objects_pd has no meaning: %r" % by_name["objects_pd"])
    m = snap["meanings"]
    check(m.get("duplicate_requests") == by_name["resp_duplicates"]["value"], "meanings sum: %r" % m)
    c.err("snapshot_counters", "bad_request", "params.port", port=256)
    c.err("snapshot_counters", "bad_request", None, port=2)
    c.close()


def test_port_verbs():
    """What the verbs say of the port (CA17-26, 28, 30, 31): its link layer,
    the InfiniBand fields a RoCEv2 port ignores, its capability mask, each
    GID's type, and the raw datagram QP it refuses."""
    c = Conn()
    dev = c.ok("query_device")
    check(dev.get("max_raw_ipv6_qp") == 0 and dev.get("max_raw_ethy_qp") == 0, "query_device raw QPs: %s" % dev)
    p = c.ok("query_port", port=1)
    check(p.get("link_layer") == "ETHERNET" and p.get("netdev"), "query_port link layer: %s" % p)
    check(all(p.get(k) == 0 for k in ("lid", "lmc", "sm_lid", "sm_sl")) and p.get("max_vl_num") == 1,
          "query_port InfiniBand fields: %s" % p)
    flags = p.get("port_cap_flags")
    check(flags == ["CM_SUP", "IP_BASED_GIDS"], "query_port capability mask: %s" % flags)
    gids = c.ok("list_gids", port=1).get("gids", [])
    check(gids and all(g.get("type") == "RoCEv2" for g in gids) and [g["index"] for g in gids] == list(range(len(gids))),
          "list_gids: typed RoCEv2 entries %s" % gids)
    pd = c.ok("alloc_pd")["pd"]
    for t in ("RAW_IPV6", "RAW_ETHERTYPE"):
        r = c.ok("probe_raw_datagram_qp", pd=pd, type=t)
        check(r.get("created") is False and len(r.get("answers", [])) == 1 and "refused" in r["answers"][0],
              "probe_raw_datagram_qp %s: %s" % (t, r))
    c.err("probe_raw_datagram_qp", "bad_request", "params.type", pd=pd)
    c.err("probe_raw_datagram_qp", "bad_request", "params.type", pd=pd, type="RAW_PACKET")
    c.err("probe_raw_datagram_qp", "bad_request", "params.type", pd=pd, type=5)
    c.err("probe_raw_datagram_qp", "bad_request", "params.pd", type="RAW_IPV6")
    c.err("probe_raw_datagram_qp", "no_such_handle", "params.pd", pd=pd + 99, type="RAW_IPV6")
    # The probe leaves nothing behind: the PD goes at once.
    c.ok("dealloc_pd", pd=pd)
    c.close()


def main():
    tests = [test_auth, test_malformed, test_params, test_sessions, test_cleanup_and_limits, test_hostile_binary,
             test_snapshot_counters, test_port_verbs]
    for t in tests:
        before = len(failures)
        try:
            t()
        except Exception as e:  # a crash of the test is a failure, not an abort
            failures.append("%s raised %r" % (t.__name__, e))
            print("  FAIL: %s raised %r" % (t.__name__, e), file=sys.stderr)
        print("%s %s" % ("pass" if len(failures) == before else "FAIL", t.__name__))
    print("%d checks, %d failed" % (checks, len(failures)))
    return 1 if failures or checks == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
