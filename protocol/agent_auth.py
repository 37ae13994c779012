"""The agent protocol's authentication for the project's Python clients
(the tests): hello, authenticate, the agent's proof checked. Written from
docs/agent-protocol.md ("Authentication"), apart from the C of
agent_auth.c, so that each checks the other.

    from agent_auth import handshake
    info = handshake(call, token)   # call(method, **params) -> reply object
"""
import base64
import hashlib
import hmac
import secrets
import struct

VERSION = 2
NONCE_BYTES = 32
LABELS = {"agent": b"roce-agent agent proof\0", "tester": b"roce-agent tester proof\0"}


class AuthError(Exception):
    """The handshake failed: reply is the agent's reply that said so (or None)."""

    def __init__(self, what, reply=None):
        super().__init__(what)
        self.reply = reply


def proof(role, token, agent_nonce, tester_nonce, version=VERSION):
    """The proof of role ('agent' or 'tester') for these nonces."""
    key = token.encode() if isinstance(token, str) else token
    text = LABELS[role] + struct.pack(">I", version) + agent_nonce + tester_nonce
    return hmac.new(key, text, hashlib.sha256).digest()


def b64(data):
    return base64.b64encode(data).decode()


def unb64(text):
    return base64.b64decode(text, validate=True)


def hello(call):
    """hello: the agent's nonce (bytes); AuthError when refused."""
    r = call("hello", version=VERSION)
    if "result" not in r:
        raise AuthError("hello refused: %s" % r.get("error"), r)
    return unb64(r["result"]["nonce"])


def authenticate(call, token, agent_nonce, tester_nonce=None):
    """authenticate with a fresh nonce of the tester's (or the one given);
    returns the agent's result without its proof, once the proof matches."""
    nc = tester_nonce if tester_nonce is not None else secrets.token_bytes(NONCE_BYTES)
    r = call("authenticate", nonce=b64(nc), proof=b64(proof("tester", token, agent_nonce, nc)))
    if "result" not in r:
        raise AuthError("authenticate refused: %s" % r.get("error"), r)
    res = dict(r["result"])
    theirs = unb64(res.pop("proof", ""))
    if not hmac.compare_digest(theirs, proof("agent", token, agent_nonce, nc)):
        raise AuthError("the agent's proof does not match: not the agent with this token", r)
    return res


def handshake(call, token):
    """hello then authenticate; the agent's description (authenticate's
    result without its proof)."""
    return authenticate(call, token, hello(call))
