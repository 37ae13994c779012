#!/usr/bin/env python3
"""The agent's door seen from the wire and from the tester (issue 36).
Runs inside scripts/netns-pair --agent (the tester namespace: ROCE_AGENT,
ROCE_TOKEN_FILE, ROCE_IF_TESTER, ROCE_TESTER_IP4):

1. A real capture (a packet socket on the tester's veth) of roce-tester
   running one case against the agent holds the whole sessions, and no
   byte of the token in any form: as written, upper and lower case, hex
   and base64 of its text (at every alignment), the bytes its hex digits
   stand for (and their base64), any 12 characters of it or 6 of those
   bytes, and its SHA-256, SHA-1 and MD5 digests. Neither does anything
   roce-tester wrote (results, capture, reports). The search is shown to
   find a token where one is (a version 1 hello).
2. Each captured session's bytes from the tester, replayed to the agent,
   get one hello (a new nonce) and nothing else: authenticate is refused
   and every request after it is unauthenticated.
3. Fake agents on the tester's side of the link, each met by roce-tester
   with the right token, are refused before anything else is asked of
   them, each case an error saying why: one that does not know the token,
   one that replays the captured agent's replies (its nonce and proof),
   one that reflects the tester's proof as its own, one that answers
   without a proof, and one of protocol version 1 (the message names both
   versions).

usage: agent_auth.py ROCE-TESTER CASE-FILE [--keep]
"""
import base64
import glob
import hashlib
import json
import os
import re
import secrets
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "protocol"))
import agent_auth  # noqa: E402

failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    print(("ok: " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


# ---- A capture on the tester's interface ----

class Capture:
    """Every frame on the interface, both ways, until stop()."""

    def __init__(self, ifname):
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        self.sock.bind((ifname, 0))
        self.sock.settimeout(0.05)
        self.frames = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.done.is_set():
            try:
                self.frames.append((time.time(), self.sock.recv(262144)))
            except socket.timeout:
                pass

    def stop(self):
        time.sleep(0.3)  # the last FINs
        self.done.set()
        self.thread.join()
        self.sock.close()

    def write_pcap(self, path):
        with open(path, "wb") as f:
            f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
            for ts, data in self.frames:
                f.write(struct.pack("<IIII", int(ts), int((ts % 1) * 1e6), len(data), len(data)))
                f.write(data)


def tcp_segments(frames, port):
    """(connection, to_agent, seq, flags, payload) of each IPv4 TCP segment
    to or from the agent's port; connection is the tester's port."""
    for _, f in frames:
        off = 14
        etype = struct.unpack("!H", f[12:14])[0]
        if etype == 0x8100:
            etype, off = struct.unpack("!H", f[16:18])[0], 18
        if etype != 0x0800 or f[off + 9] != 6:
            continue
        ihl = (f[off] & 0xF) * 4
        total = struct.unpack("!H", f[off + 2:off + 4])[0]
        t = off + ihl
        sport, dport, seq = struct.unpack("!HHI", f[t:t + 8])
        doff = (f[t + 12] >> 4) * 4
        flags = f[t + 13]
        if port not in (sport, dport):
            continue
        to_agent = dport == port
        yield (sport if to_agent else dport), to_agent, seq, flags, f[t + doff:off + total]


def streams(frames, port):
    """{connection: {True: bytes to the agent, False: bytes from it}},
    reassembled by sequence number; a gap is an error."""
    isn, data = {}, {}
    for conn, to_agent, seq, flags, payload in tcp_segments(frames, port):
        key = (conn, to_agent)
        if flags & 0x02:  # SYN
            isn[key] = seq
        if payload:
            data.setdefault(key, {})[seq] = payload
    out = {}
    for (conn, to_agent), segs in data.items():
        if (conn, to_agent) not in isn:
            raise RuntimeError("connection %d: the capture missed its SYN" % conn)
        base = (isn[(conn, to_agent)] + 1) & 0xFFFFFFFF
        buf = bytearray()
        for seq in sorted(segs, key=lambda s: (s - base) & 0xFFFFFFFF):
            rel = (seq - base) & 0xFFFFFFFF
            if rel > len(buf):
                raise RuntimeError("connection %d: %d bytes missing from the capture" % (conn, rel - len(buf)))
            buf[rel:rel + len(segs[seq])] = segs[seq]
        out.setdefault(conn, {})[to_agent] = bytes(buf)
    return out


# ---- What the token looks like in any form ----

def b64_forms(data):
    """data's base64 (standard and URL-safe) wherever it starts in a
    stream: the groups that hold only its bytes, at each alignment."""
    forms = []
    for k in range(3):
        for enc in (base64.b64encode, base64.urlsafe_b64encode):
            e = enc(b"\0" * k + data)
            inner = e[4 if k else 0:len(e) - 4]
            if len(inner) >= 8:
                forms.append(inner)
    return forms


def token_forms(token):
    """(name, bytes) of every form of the token a search looks for."""
    t = token.encode()
    forms = [("the token", t), ("the token in upper case", t.upper()), ("the token in lower case", t.lower()),
             ("the hex of its text", t.hex().encode()), ("the HEX of its text", t.hex().upper().encode())]
    forms += [("the base64 of its text", f) for f in b64_forms(t)]
    forms += [("12 characters of it", t[i:i + 12]) for i in range(0, len(t) - 11)]
    if re.fullmatch(r"(?:[0-9a-fA-F]{2})+", token):
        raw = bytes.fromhex(token)
        forms += [("the bytes its hex digits stand for", raw)]
        forms += [("the base64 of those bytes", f) for f in b64_forms(raw)]
        forms += [("6 of those bytes", raw[i:i + 6]) for i in range(0, len(raw) - 5)]
    for name in ("sha256", "sha1", "md5"):
        d = hashlib.new(name, t).digest()
        forms += [("its %s" % name, d), ("its %s in hex" % name, d.hex().encode())]
        forms += [("its %s in base64" % name, f) for f in b64_forms(d)]
    return forms


def find_token(forms, blob):
    """The first form of the token in blob, or None."""
    for name, f in forms:
        if f in blob:
            return name
    return None


# ---- Fake agents ----

class FakeAgent:
    """Listens on the tester's side; answer(conn_state, request) gives each
    reply line (bytes) or None to close. Records what each connection
    asked (method names) and every byte it got."""

    def __init__(self, host, answer):
        self.answer = answer
        self.srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.srv.bind((host, 0))
        self.srv.listen(8)
        self.srv.settimeout(0.1)
        self.address = "%s:%d" % (host, self.srv.getsockname()[1])
        self.sessions = []  # per connection: list of method names
        self.received = bytearray()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.done.is_set():
            try:
                c, _ = self.srv.accept()
            except socket.timeout:
                continue
            self._serve(c)
        self.srv.close()

    def _serve(self, c):
        c.settimeout(5)
        f = c.makefile("rb")
        methods = []
        self.sessions.append(methods)
        state = {"n": 0}
        try:
            for line in f:
                self.received += line
                req = json.loads(line)
                methods.append(req.get("method"))
                reply = self.answer(state, req)
                state["n"] += 1
                if reply is None:
                    break
                c.sendall(reply + b"\n")
        except (OSError, ValueError):
            pass
        f.close()
        c.close()

    def stop(self):
        self.done.set()
        self.thread.join()


def reply(req, result=None, error=None):
    r = {"id": req.get("id")}
    if error:
        r["error"] = {"code": error[0], "message": error[1]}
    else:
        r["result"] = result
    return json.dumps(r).encode()


def describe():
    return {"version": 2, "agent": "roce-agent 0.1.0", "backend": "soft", "device": "roce-soft", "fault": None,
            "hostile": None, "host": "Linux"}


def fake_knows_other_token(state, req):
    """A v2 agent in every respect, but with a token of its own."""
    if req["method"] == "hello":
        state["na"] = secrets.token_bytes(32)
        return reply(req, {"version": 2, "nonce": agent_auth.b64(state["na"])})
    if req["method"] == "authenticate":
        nc = agent_auth.unb64(req["params"]["nonce"])
        mine = agent_auth.proof("agent", secrets.token_hex(16), state["na"], nc)
        return reply(req, dict(describe(), proof=agent_auth.b64(mine)))
    return reply(req, {})


def fake_reflects(state, req):
    """Gives the tester's own proof back as its own."""
    if req["method"] == "hello":
        return reply(req, {"version": 2, "nonce": agent_auth.b64(secrets.token_bytes(32))})
    if req["method"] == "authenticate":
        return reply(req, dict(describe(), proof=req["params"]["proof"]))
    return reply(req, {})


def fake_no_proof(state, req):
    if req["method"] == "hello":
        return reply(req, {"version": 2, "nonce": agent_auth.b64(secrets.token_bytes(32))})
    return reply(req, describe() if req["method"] == "authenticate" else {})


def fake_version1(state, req):
    """What a roce-agent of protocol version 1 answers a hello of another
    version (its methods_session.c)."""
    if req["method"] == "hello" and req.get("params", {}).get("version") != 1:
        return reply(req, error=("version_mismatch", "params.version: the agent speaks version 1, not %s"
                                 % req["params"].get("version")))
    return reply(req, error=("unauthenticated", "%s: say hello with the token first" % req["method"]))


def fake_replaying(recorded):
    """Answers the n-th request of each connection with the n-th line the
    real agent sent in the captured session."""
    def answer(state, req):
        n = state["n"]
        return recorded[n] if n < len(recorded) else reply(req, {})
    return answer


# ---- The run ----

def run_tester(tester, agent, token_file, out, case):
    p = subprocess.run([tester, "run", "-q", "--iface", os.environ["ROCE_IF_TESTER"], "--agent", agent,
                        "--token-file", token_file, "--agent-timeout", "3000", "--report-dir", out, case],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    results = None
    try:
        with open(os.path.join(out, "results.json")) as f:
            results = json.load(f)
    except (OSError, ValueError):
        pass
    return p.returncode, p.stdout.decode(errors="replace"), results


def replay(host, port, data):
    """data sent to the agent at once; its replies, one per line sent
    (fewer if it closes)."""
    s = socket.create_connection((host, port), timeout=5)
    s.sendall(data)
    f = s.makefile("rb")
    replies = []
    try:
        for _ in range(data.count(b"\n")):
            line = f.readline()
            if not line:
                break
            replies.append(json.loads(line))
    except (socket.timeout, ConnectionResetError):
        pass
    f.close()
    s.close()
    return replies


def main():
    args = [a for a in sys.argv[1:] if a != "--keep"]
    keep = "--keep" in sys.argv
    if len(args) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    tester, case = args
    host, port = os.environ["ROCE_AGENT"].rsplit(":", 1)
    port = int(port)
    token_file = os.environ["ROCE_TOKEN_FILE"]
    with open(token_file) as f:
        token = f.read().strip()
    forms = token_forms(token)
    work = tempfile.mkdtemp(prefix="roce-auth.")

    # The search finds the token where a version 1 tester put it.
    v1 = json.dumps({"id": 1, "method": "hello", "params": {"version": 1, "token": token}}).encode()
    check(find_token(forms, b"junk" + v1 + b"junk") == "the token", "the search finds the token in a version 1 hello")
    check(all(find_token([fm], b"\0" + fm[1] + b"\0") for fm in forms), "the search finds each of %d forms" % len(forms))

    # 1. A whole run, captured.
    cap = Capture(os.environ["ROCE_IF_TESTER"])
    rc, out, results = run_tester(tester, os.environ["ROCE_AGENT"], token_file, os.path.join(work, "run"), case)
    cap.stop()
    cap.write_pcap(os.path.join(work, "session.pcap"))
    check(rc == 0, "roce-tester against the agent: exit status %d (%s)" % (rc, out.strip().splitlines()[:1]))
    sessions = streams(cap.frames, port)
    check(len(sessions) >= 1, "the capture holds %d agent session(s), %d frames" % (len(sessions), len(cap.frames)))
    wire = b"".join(d for _, d in cap.frames)
    both = b"".join(s.get(True, b"") + s.get(False, b"") for s in sessions.values())
    check(b'"method":"authenticate"' in both and b'"proof"' in both,
          "the capture holds the handshakes (hello, authenticate, both proofs)")
    hit = find_token(forms, wire) or find_token(forms, both)
    check(hit is None, "no form of the token on the wire (%d bytes of frames searched): %s" % (len(wire), hit))
    for path in sorted(glob.glob(os.path.join(work, "run", "**"), recursive=True)):
        if os.path.isfile(path):
            with open(path, "rb") as f:
                hit = find_token(forms, f.read())
            check(hit is None, "nothing roce-tester wrote holds the token: %s: %s" % (os.path.basename(path), hit))

    # 2. Each captured session replayed to the agent.
    for conn, s in sorted(sessions.items()):
        sent = s.get(True, b"")
        lines = [json.loads(x) for x in sent.splitlines() if x.strip()]
        recorded = [json.loads(x) for x in s.get(False, b"").splitlines() if x.strip()]
        got = replay(host, port, sent)
        methods = [m.get("method") for m in lines]
        check(methods[:2] == ["hello", "authenticate"] and len(got) == len(lines),
              "session %d replayed: %d requests (%s...), %d replies" % (conn, len(lines), methods[:3], len(got)))
        if not got:
            continue
        new_nonce = got[0].get("result", {}).get("nonce")
        check(new_nonce and new_nonce != recorded[0].get("result", {}).get("nonce"),
              "session %d replayed: hello gives a new nonce" % conn)
        rest = got[1:]
        codes = [r.get("error", {}).get("code") for r in rest]
        check(rest and all(c == "unauthenticated" for c in codes) and not any("result" in r for r in rest),
              "session %d replayed: the recorded proof and every request after it refused: %s" % (conn, codes))

    # 3. Fake agents, each met with the right token.
    first = sessions[min(sessions)] if sessions else {}
    recorded_lines = first.get(False, b"").splitlines()[:2]
    fakes = [
        ("one that does not know the token", fake_knows_other_token, r"did not prove that it holds the token \(its proof does not match\)"),
        ("one replaying the captured agent's nonce and proof", fake_replaying(recorded_lines),
         r"did not prove that it holds the token \(its proof does not match\)"),
        ("one reflecting the tester's proof", fake_reflects, r"did not prove that it holds the token \(its proof does not match\)"),
        ("one answering without a proof", fake_no_proof, r"did not prove that it holds the token \(no proof in its answer\)"),
        ("one of protocol version 1", fake_version1,
         r"refused hello: version_mismatch: .*version 1, not 2 \(this tester speaks protocol version 2\)"),
    ]
    for i, (what, answer, expect) in enumerate(fakes):
        fake = FakeAgent(os.environ["ROCE_TESTER_IP4"], answer)
        rc, out, results = run_tester(tester, fake.address, token_file, os.path.join(work, "fake%d" % i), case)
        fake.stop()
        cases = (results or {}).get("cases", [])
        reasons = [c.get("reason", "") for c in cases]
        check(rc == 3 and cases and all(c.get("verdict") == "error" for c in cases),
              "a fake agent, %s: every case an error, exit status %d" % (what, rc))
        check(reasons and all(re.search(expect, r) for r in reasons),
              "a fake agent, %s: the reason says why: %s" % (what, reasons[:1]))
        allowed = ["hello"] if answer is fake_version1 else ["hello", "authenticate"]
        check(fake.sessions and all(m == allowed for m in fake.sessions),
              "a fake agent, %s: asked nothing but %s: %s" % (what, allowed, fake.sessions))
        check(find_token(forms, bytes(fake.received)) is None, "a fake agent, %s: got no form of the token" % what)

    print("%d checks, %d failed" % (checks, len(failures)))
    if keep or failures:
        print("work directory kept: %s" % work)
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
