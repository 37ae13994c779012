"""The Wireshark release behind a test's tshark, and what differs between
the releases the plugin's tests run in (4.0, 4.2, 4.4, 4.6), in one place.

A difference applies from the release that brought it on. A test that meets
one says so, with the reason, and handles it for those releases only; no
check is loosened for every release.
"""
import re
import subprocess

# name: (first release, what differs)
DIFFERENCES = {
    "bool-words": (
        (4, 2),
        "tshark -T fields prints boolean fields as True/False (4.0 printed 1/0)"),
    "flush-atomic-write": (
        (4, 4),
        "the built-in InfiniBand dissector decodes the IBTA 1.5 opcodes FLUSH (FETH, RETH) "
        "and ATOMIC WRITE (RETH, 8-byte payload); 4.0 and 4.2 decode only their BTH"),
    "feth-split": (
        (4, 4),
        "the built-in splits the FETH into 27 reserved bits, Selectivity Level in bits 4:3 "
        "and Placement Type in bits 2:0; IBTA 1.5 and Linux rxe (and libroce) have 26 "
        "reserved bits, Selectivity Level in bits 5:4 and Placement Type in bits 3:0"),
    "rc-send-reassembly": (
        (4, 6),
        "the built-in reassembles the packets of an RC SEND message when a ULP dissector "
        "asks for it (infinibandinfo.do_rc_send_reassembling)"),
}


class Release:
    """The release of the tshark that WRAPPER runs (tshark.sh, maybe in
    another release's root)."""

    def __init__(self, wrapper):
        out = subprocess.run([wrapper, "none", "--version"], check=True, capture_output=True,
                             text=True).stdout
        m = re.search(r"(\d+)\.(\d+)\.(\d+)", out)
        if not m:
            raise SystemExit(f"cannot tell the Wireshark release from: {out[:200]!r}")
        self.version = tuple(int(x) for x in m.groups())
        self.name = ".".join(map(str, self.version))

    def has(self, difference):
        return self.version[:2] >= DIFFERENCES[difference][0]

    def say(self, difference, consequence):
        since = ".".join(map(str, DIFFERENCES[difference][0]))
        print(f"Wireshark {self.name} (since {since}): {DIFFERENCES[difference][1]}: {consequence}")
