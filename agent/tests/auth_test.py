#!/usr/bin/python3
"""roce-agent's authentication (docs/agent-protocol.md, "Authentication";
issue 36), against a live agent (ROCE_AGENT, ROCE_TOKEN_FILE from
scripts/netns-pair) and the agent binary itself:

- versions: a version 1 tester (which sends its token) and a version 3 one
  are refused with a message naming both versions, before anything else;
- hello tells an unauthenticated client the version and a nonce, nothing
  more; every connection's nonce is new and its bits look random;
- a wrong token learns nothing that helps to guess: a proof made with a
  token one character off, with another token, or random bytes all get
  the same error, word for word, in the same time (medians of 40 tries
  each, printed), and no reply to a client that has not proven itself
  carries a proof of the agent's; the third wrong proof closes the
  connection whichever it was, and two wrong ones do not stop the right
  one;
- the agent refuses to start with a token an offline search could find
  (empty, a word, too few hex digits, too few different characters, a
  repeated string) and warns when the token file is world-readable.

usage: auth_test.py ROCE-AGENT
"""
import json
import os
import re
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "protocol"))
import agent_auth  # noqa: E402

HOST, PORT = os.environ["ROCE_AGENT"].rsplit(":", 1)
PORT = int(PORT)
TOKEN = open(os.environ["ROCE_TOKEN_FILE"]).read().strip()
PROOF_TEXT = re.compile(r"[A-Za-z0-9+/]{43}=")
failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    print(("ok: " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


class Conn:
    def __init__(self):
        self.s = socket.create_connection((HOST, PORT), timeout=10)
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.f = self.s.makefile("rb")
        self.n = 0

    def call(self, method, **params):
        self.n += 1
        self.s.sendall((json.dumps({"id": self.n, "method": method, "params": params}) + "\n").encode())
        line = self.f.readline()
        assert line, "connection closed on %s" % method
        return json.loads(line)

    def timed(self, method, **params):
        t0 = time.perf_counter()
        r = self.call(method, **params)
        return r, time.perf_counter() - t0

    def closed(self, wait=3.0):
        self.s.settimeout(wait)
        try:
            return self.f.readline() == b""
        except ConnectionResetError:
            return True
        except socket.timeout:
            return False

    def close(self):
        self.f.close()
        self.s.close()


def near_miss(token):
    """The token with its last character changed."""
    return token[:-1] + ("0" if token[-1] != "0" else "1")


def test_versions():
    c = Conn()
    r = c.call("hello", version=1, token=TOKEN)
    e = r.get("error", {})
    check(e.get("code") == "version_mismatch" and re.search(r"version 2, not 1\b", e.get("message", "")),
          "a version 1 tester is told both versions: %s" % e)
    r = c.call("hello", version=3)
    e = r.get("error", {})
    check(e.get("code") == "version_mismatch" and re.search(r"version 2, not 3\b", e.get("message", "")),
          "a version 3 tester is told both versions: %s" % e)
    r = c.call("query_device")
    check(r.get("error", {}).get("code") == "unauthenticated", "and gets no further: %s" % r.get("error"))
    c.close()


def test_nonces():
    nonces, members = [], set()
    for _ in range(64):
        c = Conn()
        r = c.call("hello", version=2).get("result", {})
        members.add(tuple(sorted(r)))
        nonces.append(agent_auth.unb64(r["nonce"]))
        c.close()
    check(members == {("nonce", "version")}, "hello tells the version and a nonce, nothing else: %s" % members)
    ones = sum(bin(b).count("1") for n in nonces for b in n)
    bits = 8 * sum(len(n) for n in nonces)
    check(len(set(nonces)) == len(nonces) and all(len(n) == 32 for n in nonces),
          "64 connections, 64 different nonces of 32 bytes")
    check(0.45 < ones / bits < 0.55, "their bits are balanced: %d of %d set" % (ones, bits))


def test_no_oracle():
    """Wrong proofs of three kinds, rotated over the three tries of each
    connection: the same reply and the same time for each kind."""
    kinds = ["near", "far", "random"]
    times = {k: [] for k in kinds}
    errors = {k: set() for k in kinds}
    thirds = set()
    leaked = []
    for i in range(40):
        c = Conn()
        na = agent_auth.unb64(c.call("hello", version=2)["result"]["nonce"])
        for attempt in range(3):
            kind = kinds[(i + attempt) % 3]
            nc = secrets.token_bytes(32)
            if kind == "random":
                proof = secrets.token_bytes(32)
            else:
                token = near_miss(TOKEN) if kind == "near" else secrets.token_hex(16)
                proof = agent_auth.proof("tester", token, na, nc)
            r, dt = c.timed("authenticate", nonce=agent_auth.b64(nc), proof=agent_auth.b64(proof))
            e = r.get("error", {})
            if set(r) != {"id", "error"} or set(e) != {"code", "message"} or PROOF_TEXT.search(e["message"]):
                leaked.append(json.dumps(r))
            if attempt < 2:
                errors[kind].add((e.get("code"), e.get("message")))
                times[kind].append(dt)
            else:
                thirds.add((e.get("code"), e.get("message")))
        if not c.closed():
            leaked.append("connection %d stayed open after three wrong proofs" % i)
        c.close()
    every = set().union(*errors.values())
    check(len(every) == 1 and next(iter(every))[0] == "unauthenticated",
          "one error for every wrong proof, word for word: %s" % every)
    check(len(thirds) == 1 and next(iter(thirds))[1].endswith("closing the connection"),
          "the third wrong proof, whichever kind, closes the connection: %s" % thirds)
    check(not leaked, "120 wrong proofs: each reply the error alone, no proof in it, the connection closed at the "
          "third: %s" % leaked[:1])
    med = {k: statistics.median(v) for k, v in times.items()}
    spread = max(med.values()) - min(med.values())
    bound = max(100e-6, 0.25 * min(med.values()))
    check(spread < bound, "the reply takes as long for each kind: medians %s µs, spread %.1f µs (bound %.1f)"
          % ({k: round(v * 1e6, 1) for k, v in med.items()}, spread * 1e6, bound * 1e6))


def test_after_failures():
    c = Conn()
    na = agent_auth.unb64(c.call("hello", version=2)["result"]["nonce"])
    for _ in range(2):
        nc = secrets.token_bytes(32)
        c.call("authenticate", nonce=agent_auth.b64(nc),
               proof=agent_auth.b64(agent_auth.proof("tester", near_miss(TOKEN), na, nc)))
    try:
        info = agent_auth.authenticate(c.call, TOKEN, na)
        check(info.get("backend") == "soft", "two wrong proofs do not stop the right one")
    except agent_auth.AuthError as e:
        check(False, "two wrong proofs do not stop the right one: %s" % e)
    check("result" in c.call("query_port"), "and the session is served")
    c.close()


def test_weak_tokens(agent):
    work = tempfile.mkdtemp(prefix="roce-auth-tokens.")
    cases = [
        ("an empty file", "", "empty"),
        ("a word", "secret", "too weak"),
        ("20 hex digits (80 bits)", secrets.token_hex(10), "too weak: 20 hex digits carry at most 80 bits"),
        ("31 hex digits", secrets.token_hex(16)[:31], "too weak"),
        ("a long password of few letters", "ab" * 10 + "ba" * 10 + "abc" * 4, "only 3 different"),
        ("a repeated string", "0123456789abcdef" * 2, "repeated"),
        ("5000 random characters", secrets.token_hex(2500), "longer than"),
    ]
    for what, token, expect in cases:
        path = os.path.join(work, "token")
        with open(path, "w") as f:
            f.write(token + "\n")
        os.chmod(path, 0o600)
        p = subprocess.run([agent, "--listen", "127.0.0.1:1", "--token-file", path], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=30)
        err = p.stderr.decode(errors="replace")
        check(p.returncode == 1 and expect in err and "--token-file" in err,
              "the agent refuses %s: exit %d, %s" % (what, p.returncode, err.strip()[:160]))
    # A strong token passes the check (the agent then stops at the soft
    # backend, given no interface), with a warning when anyone may read it.
    with open(path, "w") as f:
        f.write(secrets.token_hex(16) + "\n")
    for mode, warned in ((0o600, False), (0o644, True)):
        os.chmod(path, mode)
        p = subprocess.run([agent, "--listen", "127.0.0.1:1", "--token-file", path, "--backend", "soft"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
        err = p.stderr.decode(errors="replace")
        check(p.returncode == 1 and "needs --iface" in err and "too weak" not in err and "not random" not in err
              and ("readable by everyone" in err) == warned,
              "32 random hex digits pass (mode %o%s): %s" % (mode, ", a warning" if warned else "",
                                                           err.strip()[:200]))
    os.remove(path)
    os.rmdir(work)


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    for t in (test_versions, test_nonces, test_no_oracle, test_after_failures):
        t()
    test_weak_tokens(sys.argv[1])
    print("%d checks, %d failed" % (checks, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
