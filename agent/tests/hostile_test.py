#!/usr/bin/python3
"""roce-agent under hostile clients (issue 8), beyond proto_test.py.

Runs against a live agent started by scripts/netns-pair with
--hello-timeout 2 (ROCE_AGENT, ROCE_TOKEN_FILE, ROCE_AGENT_PID): wrong and
strange tokens, connections that never speak or trickle one byte at a time
(they must not hold the 16 session slots past the hello deadline), a client
that sends byte by byte and must be served, hundreds of connect/disconnect
cycles (no fd or memory growth, every object destroyed), requests naming
objects of other sessions or of the wrong type, offsets and lengths that
overflow, and malformed JSON. The agent runs under ASan/LSan in the
sanitizer build; netns-pair fails the run on any report or unclean exit.
Every wait and loop is bounded.
"""
import base64
import json
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "protocol"))
import agent_auth  # noqa: E402

HOST, PORT = os.environ["ROCE_AGENT"].rsplit(":", 1)
PORT = int(PORT)
TOKEN = open(os.environ["ROCE_TOKEN_FILE"]).read().strip()
AGENT_PID = int(os.environ["ROCE_AGENT_PID"])
HELLO_TIMEOUT = float(os.environ.get("HELLO_TIMEOUT", "2"))
failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("  FAIL:", what, file=sys.stderr)


def connect(timeout=10):
    s = socket.create_connection((HOST, PORT), timeout=timeout)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


class Conn:
    def __init__(self, hello=True):
        self.s = connect()
        self.f = self.s.makefile("rb")
        self.n = 0
        if hello:
            try:
                agent_auth.handshake(self.call, TOKEN)
            except agent_auth.AuthError as e:
                raise AssertionError(e.reply or str(e))

    def send_raw(self, data):
        self.s.sendall(data)

    def recv(self):
        line = self.f.readline()
        return json.loads(line) if line else None

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

    def err(self, method, code, **params):
        r = self.call(method, **params)
        e = r.get("error") or {}
        check(e.get("code") == code, "%s %s: expected %s, got %s" % (method, params, code, r))
        return e

    def closed(self, wait=3.0):
        """Whether the agent closes the connection within wait seconds. A
        close with our unread bytes still in its socket is a reset (RFC 2525
        2.17), so a reset counts as closed."""
        self.s.settimeout(wait)
        try:
            while True:
                line = self.f.readline()
                if line == b"":
                    return True
        except ConnectionResetError:
            return True
        except socket.timeout:
            return False

    def close(self):
        self.f.close()
        self.s.close()


def agent_fds():
    return len(os.listdir("/proc/%d/fd" % AGENT_PID))


def agent_rss_kb():
    with open("/proc/%d/status" % AGENT_PID) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def agent_has_asan():
    with open("/proc/%d/maps" % AGENT_PID) as f:
        if "libasan" in f.read():
            return True
    with open("/proc/%d/exe" % AGENT_PID, "rb") as f:
        return b"__asan_init" in f.read()


def objects_zero(c):
    for _ in range(60):
        cnt = c.ok("read_counters")["counters"]
        if all(cnt.get("objects_" + k, 0) == 0 for k in ("pd", "cq", "mr", "qp", "ah")):
            return True
        time.sleep(0.05)
    return False


def wait_accepting(deadline_s):
    """Until a new connection gets a hello through (bounded)."""
    end = time.time() + deadline_s
    while time.time() < end:
        try:
            c = Conn()
            return c
        except (AssertionError, OSError, json.JSONDecodeError):
            time.sleep(0.1)
    return None


def test_tokens():
    """Wrong tokens: each proof made with one is refused alike, and the
    session stays unauthenticated."""
    for token in [TOKEN[:-1] + ("0" if TOKEN[-1] != "0" else "1"),  # same length, one digit off
                  TOKEN.upper() if TOKEN.upper() != TOKEN else TOKEN + "A",
                  " " + TOKEN, "x" * 200000]:
        c = Conn(hello=False)
        na = agent_auth.hello(c.call)
        try:
            agent_auth.authenticate(c.call, token, na)
            check(False, "a proof with a wrong token (%r...) is accepted" % token[:8])
        except agent_auth.AuthError as e:
            check((e.reply or {}).get("error", {}).get("code") == "unauthenticated", "wrong token: %s" % e)
        c.err("alloc_pd", "unauthenticated")
        c.close()
    # A NUL would cut a string short where it is used as a C string: such a
    # string is refused before anything looks at it.
    nonce = agent_auth.b64(bytes(range(32)))
    for bad in [nonce + r"\u0000junk", r"\u0000" + nonce]:
        c = Conn(hello=False)
        c.ok("hello", version=2)
        c.send_raw(b'{"id":2,"method":"authenticate","params":{"nonce":"%s","proof":"%s"}}\n'
                   % (bad.encode(), nonce.encode()))
        r = c.recv() or {}
        check(r.get("error", {}).get("code") == "bad_request" and "NUL" in r["error"].get("message", ""),
              "nonce %r: %s" % (bad[-12:], r))
        c.err("alloc_pd", "unauthenticated")
        c.close()
    for value in [12345, None, [nonce], {"t": nonce}, True, "x" * 200000]:
        c = Conn(hello=False)
        c.ok("hello", version=2)
        c.err("authenticate", "bad_request", nonce=nonce, proof=value)
        c.err("authenticate", "bad_request", nonce=value, proof=nonce)
        c.close()
    # authenticate twice: the second, wrong, does not undo the first.
    c = Conn()
    c.err("authenticate", "invalid_state", nonce=nonce, proof=nonce)
    c.ok("query_port")
    c.close()


def test_half_open_and_slowloris():
    """Connections that never send, or trickle bytes, lose their slot at the
    hello deadline; the tester gets in afterwards."""
    idle = [connect() for _ in range(14)]
    trickle = connect()
    partial = connect()
    partial.sendall(b'{"id":1,"method":"hello","params":{"vers')
    extra = connect()
    line = extra.makefile("rb").readline()
    r = json.loads(line) if line else {}
    check(r.get("error", {}).get("code") == "resource_limit", "17th connection refused while 16 are idle: %s" % r)
    extra.close()
    t0 = time.time()
    hello = b'{"id":1,"method":"hello","params":{"version":2}}\n'
    hello += b'{"id":2,"method":"authenticate","params":{"nonce":"%s","proof":"%s"}}\n' % (
        agent_auth.b64(bytes(32)).encode(), agent_auth.b64(bytes(32)).encode())
    sent = 0
    # One byte every 100 ms: never finishes before the deadline.
    while time.time() - t0 < HELLO_TIMEOUT + 3 and sent < len(hello) - 1:
        try:
            trickle.sendall(hello[sent:sent + 1])
        except OSError:
            break
        sent += 1
        time.sleep(0.1)
    for name, s in [("idle", idle[0]), ("trickle", trickle), ("partial", partial)]:
        s.settimeout(HELLO_TIMEOUT + 5)
        f = s.makefile("rb")
        try:
            line = f.readline()
            r = json.loads(line) if line else {}
            rest = f.readline()
        except (socket.timeout, ConnectionResetError, json.JSONDecodeError) as e:
            r, rest = {"exception": repr(e)}, b"?"
        e = r.get("error", {})
        check(e.get("code") == "unauthenticated" and "hello" in e.get("message", ""),
              "%s connection told why it is closed: %s" % (name, r))
        check(rest == b"", "%s connection closed after the deadline" % name)
    dt = time.time() - t0
    check(dt < HELLO_TIMEOUT + 4, "the deadline is kept (%.1f s)" % dt)
    c = wait_accepting(5)
    check(c is not None, "after the deadline a new connection is served")
    for s in idle + [trickle, partial]:
        s.close()
    if c:
        c.close()


def test_byte_at_a_time():
    """A slow but honest client is served, whatever the split."""
    s = connect()
    f = s.makefile("rb")
    s.settimeout(10)

    def dribble(msgs):
        data = b"".join((json.dumps(m) + "\r\n").encode() for m in msgs)
        for i in range(len(data)):
            s.sendall(data[i:i + 1])
            if i % 8 == 0:
                time.sleep(0.001)
        replies = []
        for _ in msgs:
            line = f.readline()
            replies.append(json.loads(line) if line else {})
        return replies

    na = agent_auth.unb64(dribble([{"id": 1, "method": "hello", "params": {"version": 2}}])[0]
                          .get("result", {}).get("nonce", ""))
    nc = bytes(range(32, 64))
    msgs = [{"id": 2, "method": "authenticate",
             "params": {"nonce": agent_auth.b64(nc),
                        "proof": agent_auth.b64(agent_auth.proof("tester", TOKEN, na, nc))}},
            {"id": 3, "method": "query_port", "params": {"port": 1}},
            {"id": 4, "method": "alloc_pd"},
            {"id": 5, "method": "list_gids"}]
    ids = [(r.get("id"), "result" in r) for r in dribble(msgs)]
    check(ids == [(2, True), (3, True), (4, True), (5, True)], "byte-at-a-time requests answered: %s" % ids)
    f.close()
    s.close()


def session(deadline_s=5.0):
    """A session during connection churn: the agent may not yet have seen
    the end of connections the client already closed, and refuses a 17th
    session meanwhile ('resource_limit ... try again later'); a client tries
    again, within a bound."""
    end = time.time() + deadline_s
    while True:
        try:
            return Conn()
        except AssertionError as e:
            refused = isinstance(e.args[0], dict) and (e.args[0].get("error") or {}).get("code") == "resource_limit"
            if not refused or time.time() >= end:
                raise
            time.sleep(0.02)


def test_many_connections():
    watcher = Conn()
    fds0 = agent_fds()
    rss = []
    payload = base64.b64encode(b"\xaa" * 4096).decode()
    for i in range(400):
        kind = i % 5
        try:
            if kind == 0:  # connect and go
                connect().close()
            elif kind == 1:  # a session with objects, dropped without bye
                c = session()
                pd = c.ok("alloc_pd")["pd"]
                cq = c.ok("create_cq", cqe=8)["cq"]
                mr = c.ok("reg_mr", pd=pd, length=65536, access=["LOCAL_WRITE"])["mr"]
                c.ok("write_mr", mr=mr, offset=0, data=payload)
                c.ok("create_qp", pd=pd, send_cq=cq, recv_cq=cq, type=("RC", "UC", "UD")[i % 3])
                c.close()
            elif kind == 2:  # half a request, then gone
                s = connect()
                s.sendall(b'{"id":1,"method":"hello","params":{"ver')
                s.close()
            elif kind == 3:  # reset instead of a close
                c = session()
                c.ok("alloc_pd")
                c.s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                c.close()
            else:  # a pipelined burst, then close without reading
                s = connect()
                s.sendall(b"".join((json.dumps({"id": k, "method": "hello" if k == 0 else "list_gids",
                                                "params": {"version": 2}}) + "\n").encode()
                                   for k in range(50)))
                s.close()
        except OSError as e:
            check(False, "cycle %d (kind %d): %r" % (i, kind, e))
            break
        if i in (100, 399):
            objects_zero(watcher)
            rss.append(agent_rss_kb())
    check(objects_zero(watcher), "every cycle's objects destroyed")
    fds1 = agent_fds()
    for _ in range(40):  # closes are queued on the main loop
        if fds1 <= fds0:
            break
        time.sleep(0.05)
        fds1 = agent_fds()
    print("  400 connect/disconnect cycles: agent descriptors %d -> %d, RSS %s kB" % (fds0, fds1, rss))
    check(fds1 <= fds0, "no descriptor kept: %d before, %d after 400 cycles" % (fds0, fds1))
    # Under AddressSanitizer freed memory sits in quarantine (up to 256 MiB),
    # so RSS says nothing there; LeakSanitizer at the agent's exit does.
    if not agent_has_asan():
        check(len(rss) == 2 and rss[1] - rss[0] < 16 * 1024,
              "memory does not grow with connections: %s kB" % rss)
    # 16 busy sessions at once, the 17th refused, then all gone and back.
    conns = [watcher] + [Conn() for _ in range(15)]
    for c in conns:
        c.ok("alloc_pd")
    extra = connect()
    line = extra.makefile("rb").readline()
    check(line and json.loads(line).get("error", {}).get("code") == "resource_limit", "17th refused: %r" % line)
    extra.close()
    for c in conns:
        c.close()
    c = wait_accepting(5)
    check(c is not None and objects_zero(c), "served again after 16 sessions closed")
    if c:
        c.close()


def test_not_owned():
    a = Conn()
    b = Conn()
    for _ in range(20):  # a's handle numbers differ from any b will have
        a.ok("alloc_pd")
    pd = a.ok("alloc_pd")["pd"]
    cq = a.ok("create_cq", cqe=8)["cq"]
    mr = a.ok("reg_mr", pd=pd, length=64, access=["LOCAL_WRITE"], fill=0x41)["mr"]
    qp = a.ok("create_qp", pd=pd, send_cq=cq, recv_cq=cq, type="RC")["qp"]
    ah = a.ok("create_ah", pd=pd, dgid="198.18.0.2")["ah"]
    a.ok("modify_qp", qp=qp, state="INIT", port=1, pkey_index=0, access=[])
    # b names a's handles, in every position.
    sge = [{"mr": mr, "offset": 0, "length": 8}]
    for method, params in [
        ("dealloc_pd", {"pd": pd}), ("destroy_cq", {"cq": cq}), ("dereg_mr", {"mr": mr}),
        ("destroy_qp", {"qp": qp}), ("destroy_ah", {"ah": ah}), ("query_qp", {"qp": qp}),
        ("modify_qp", {"qp": qp, "state": "ERR"}), ("read_mr", {"mr": mr, "offset": 0, "length": 8}),
        ("write_mr", {"mr": mr, "offset": 0, "data": "AAAA"}), ("reg_mr", {"pd": pd, "length": 8}),
        ("poll_cq", {"cq": cq}),
        ("create_ah", {"pd": pd, "dgid": "198.18.0.2"}),
        ("post_recv", {"qp": qp, "wr_id": 1, "sge": sge}),
        ("post_send", {"qp": qp, "wr_id": 1, "opcode": "SEND", "sge": sge}),
        ("probe_raw_datagram_qp", {"pd": pd, "type": "RAW_IPV6"}),
    ]:
        b.err(method, "no_such_handle", **params)
    bpd = b.ok("alloc_pd")["pd"]
    bcq = b.ok("create_cq", cqe=8)["cq"]
    b.err("create_qp", "no_such_handle", pd=bpd, send_cq=cq, recv_cq=bcq, type="RC")
    b.err("create_qp", "no_such_handle", pd=bpd, send_cq=bcq, recv_cq=cq, type="RC")
    bqp = b.ok("create_qp", pd=bpd, send_cq=bcq, recv_cq=bcq, type="UD")["qp"]
    b.ok("modify_qp", qp=bqp, state="INIT", port=1, pkey_index=0, qkey=1)
    b.ok("modify_qp", qp=bqp, state="RTR")
    b.ok("modify_qp", qp=bqp, state="RTS", sq_psn=0)
    b.err("post_send", "no_such_handle", qp=bqp, ah=ah, wr_id=1, opcode="SEND", remote_qpn=5, remote_qkey=1)
    b.err("post_recv", "no_such_handle", qp=bqp, wr_id=1, sge=sge)
    # Wrong types and impossible ids, in b's own session.
    bmr = b.ok("reg_mr", pd=bpd, length=64)["mr"]
    for bad in [0, -1, 2**32, 2**32 + bpd, 2**63 - 1, 10**6]:
        b.err("dealloc_pd", "no_such_handle", pd=bad)
        b.err("read_mr", "no_such_handle", mr=bad, offset=0, length=1)
        e = b.call("post_recv", qp=bqp, wr_id=1, sge=[{"mr": bad, "offset": 0, "length": 1}]).get("error", {})
        check(e.get("code") in ("no_such_handle", "bad_request") and "sge[0].mr" in e.get("message", ""),
              "sge with MR %d: %s" % (bad, e))
    for bad in ["1", 1.0, None, [bpd], {"pd": bpd}, True]:
        b.err("dealloc_pd", "bad_request", pd=bad)
    b.err("dealloc_pd", "no_such_handle", pd=bmr)  # an MR is not a PD
    b.err("read_mr", "no_such_handle", mr=bpd, offset=0, length=1)
    b.err("destroy_qp", "no_such_handle", qp=bcq)
    b.err("post_send", "no_such_handle", qp=bqp, ah=bqp, wr_id=1, opcode="SEND", remote_qpn=5, remote_qkey=1)
    # A destroyed handle stays dead (ids are not reused).
    b.ok("dereg_mr", mr=bmr)
    b.err("read_mr", "no_such_handle", mr=bmr, offset=0, length=1)
    nmr = b.ok("reg_mr", pd=bpd, length=64)["mr"]
    check(nmr != bmr, "a new handle does not reuse a destroyed one's id")
    # a is intact.
    check(base64.b64decode(a.ok("read_mr", mr=mr, offset=0, length=64)["data"]) == b"\x41" * 64, "a's MR intact")
    check(a.ok("query_qp", qp=qp).get("state") == "INIT", "a's QP untouched")
    a.close()
    b.close()


def test_bounds():
    c = Conn()
    pd = c.ok("alloc_pd")["pd"]
    m = c.ok("reg_mr", pd=pd, length=4096, access=["LOCAL_WRITE"], fill=7)["mr"]
    cq = c.ok("create_cq", cqe=8)["cq"]
    qp = c.ok("create_qp", pd=pd, send_cq=cq, recv_cq=cq, type="RC")["qp"]
    c.ok("modify_qp", qp=qp, state="INIT", port=1, pkey_index=0, access=[])
    big = [2**64 - 1, 2**64 - 4096, 2**63, 2**32, 2**32 - 1, 4097]
    for off in big:
        c.err("read_mr", "bad_request", mr=m, offset=str(off), length=1)
        c.err("write_mr", "bad_request", mr=m, offset=str(off), data="AA==")
        c.err("post_recv", "bad_request", qp=qp, wr_id=1, sge=[{"mr": m, "offset": str(off), "length": 8}])
    # offset + length overflows 64 bits, or passes the end by one.
    c.err("read_mr", "bad_request", mr=m, offset=str(2**64 - 2), length=4)
    c.err("read_mr", "bad_request", mr=m, offset=4000, length=97)
    c.err("read_mr", "bad_request", mr=m, offset=0, length=4097)
    c.err("post_recv", "bad_request", qp=qp, wr_id=1, sge=[{"mr": m, "offset": str(2**64 - 8), "length": 16}])
    c.err("post_recv", "bad_request", qp=qp, wr_id=1, sge=[{"mr": m, "offset": 4095, "length": 2}])
    c.err("post_recv", "bad_request", qp=qp, wr_id=1, sge=[{"mr": m, "offset": 0, "length": 2**32}])
    c.err("write_mr", "bad_request", mr=m, offset=4095, data=base64.b64encode(b"ab").decode())
    # The exact edges are fine.
    c.ok("write_mr", mr=m, offset=4094, data=base64.b64encode(b"ab").decode())
    c.ok("read_mr", mr=m, offset=4096, length=0)
    c.ok("post_recv", qp=qp, wr_id=1, sge=[{"mr": m, "offset": 4088, "length": 8}])
    data = base64.b64decode(c.ok("read_mr", mr=m, offset=0, length=4096)["data"])
    check(data == b"\x07" * 4094 + b"ab", "only the bytes written changed")
    c.close()


def test_malformed():
    c = Conn()
    for raw in [b'{"id":1e400,"method":"query_port"}\n', b'{"id":99999999999999999999999,"method":"query_port"}\n',
                b'{"id":1,"method":"query_port","params":{"port":1e400}}\n',
                b'{"id":1,"method":"query_port","id":2}\n', b'{"id":1,"method":"x\\ud800"}\n',
                b'{"id":1,"method":"read_mr","params":{"mr":1,"offset":"0x","length":1}}\n',
                b'{"id":1,"method":"query_port","params":{' + b'"a":1,' * 20000 + b'"port":1}}\n',
                b'"' + b"[" * 200000 + b'"\n', b"\x00\n", b"\r\r\r\n", b"{}\n", b"null\n", b"\xef\xbb\xbf{}\n"]:
        c.send_raw(raw)
        r = c.recv()
        check(r is not None and ("error" in r or "result" in r), "%r...: got %s" % (raw[:40], r))
    c.send_raw(b"\n" * 10000 + b'{"id":77,"method":"query_port"}\n')
    r = c.recv()
    check(r is not None and r.get("id") == 77, "empty lines are skipped: %s" % r)
    c.ok("query_port")
    # Just over the limit without a newline, sent in pieces: too_large, closed.
    piece = b"x" * 65536
    try:
        for _ in range(17):
            c.send_raw(piece)
    except OSError:
        pass
    r = c.recv()
    check(r is not None and r.get("error", {}).get("code") == "too_large", "oversized in pieces: %s" % r)
    check(c.closed(), "the connection is closed after too_large")
    c.close()


def main():
    tests = [test_tokens, test_half_open_and_slowloris, test_byte_at_a_time, test_many_connections,
             test_not_owned, test_bounds, test_malformed]
    for t in tests:
        before = len(failures)
        t0 = time.time()
        try:
            t()
        except Exception as e:  # a crash of the test is a failure, not an abort
            failures.append("%s raised %r" % (t.__name__, e))
            print("  FAIL: %s raised %r" % (t.__name__, e), file=sys.stderr)
        print("%s %s (%.1f s)" % ("pass" if len(failures) == before else "FAIL", t.__name__, time.time() - t0))
    # The agent is still there and serving.
    try:
        c = Conn()
        check(objects_zero(c), "no object left at the end")
        c.close()
    except Exception as e:
        check(False, "the agent does not serve at the end: %r" % e)
    print("%d checks, %d failed" % (checks, len(failures)))
    return 1 if failures or checks == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
