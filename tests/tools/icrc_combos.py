#!/usr/bin/python3
"""Independent oracle for the ICRC diagnosis: every combination of the known
implementation mistakes, over IPv4 and IPv6.

This script builds its own RoCEv2 packets (RC SEND Only, 5 bytes of payload
and 3 of pad, every variant field different from all ones), computes with
Python's zlib the ICRC an implementation making each combination of mistakes
would send (its own masking, prefix, inversion and byte order; the correct
IPv4 ICRC is also checked against scapy's RoCE layer, which does not do
IPv6), writes them to a pcap and
runs `roce-tester lint` on it. libroce must find each ICRC bad and name
exactly that combination (all the IP and UDP fields left unmasked named as
"no IP or UDP field was masked"); a corruption no combination explains must
be said to be unexplained.

usage: icrc_combos.py ROCE-TESTER SCRATCH-DIR
"""
import itertools
import os
import struct
import subprocess
import sys
import zlib

# The atoms of a combination, by their names in roce-tester craft --fields.
V4 = ["ipv4-tos-unmasked", "ipv4-ttl-unmasked", "ipv4-csum-unmasked", "udp-csum-unmasked", "bth4-unmasked",
      "pad-omitted", "no-prefix", "not-inverted", "byte-order", "headers-twice"]
V6 = ["ipv6-tc-unmasked", "ipv6-fl-unmasked", "ipv6-hl-unmasked", "udp-csum-unmasked", "bth4-unmasked",
      "pad-omitted", "no-prefix", "not-inverted", "byte-order", "headers-twice"]
FIELDS = {4: {"ipv4-tos-unmasked", "ipv4-ttl-unmasked", "ipv4-csum-unmasked", "udp-csum-unmasked"},
          6: {"ipv6-tc-unmasked", "ipv6-fl-unmasked", "ipv6-hl-unmasked", "udp-csum-unmasked"}}
PAD = 3


def ipv4_checksum(h):
    s = sum(struct.unpack("!10H", h))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def packet(ipv):
    """Ethernet frame without its ICRC, and the offset of the IP header."""
    bth = struct.pack("!BBHI", 0x04, 0x40 | (PAD << 4), 0xFFFF, 0x000123)  # SE 0, M 1, pad 3, TVer 0
    bth = bth[:4] + bytes([0x80]) + bth[5:]  # byte 4: FECN set, so masking it matters
    bth += struct.pack("!I", (1 << 31) | 42)  # AckReq, PSN 42
    payload = bytes(range(1, 6)) + bytes(PAD)
    udp_len = 8 + len(bth) + len(payload) + 4
    udp = struct.pack("!HHHH", 0xC0DE, 4791, udp_len, 0x4321)  # a checksum, so masking it matters
    if ipv == 4:
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 26 << 2, 20 + udp_len, 0x1234, 0x4000, 64, 17, 0,
                         bytes([198, 18, 0, 1]), bytes([198, 18, 0, 2]))
        ip = ip[:10] + struct.pack("!H", ipv4_checksum(ip)) + ip[12:]
        ethertype = 0x0800
    else:
        first = (6 << 28) | ((26 << 2) << 20) | 0x12345
        ip = struct.pack("!IHBB16s16s", first, udp_len, 17, 64, bytes.fromhex("20010db8" + "0" * 23 + "1"),
                         bytes.fromhex("20010db8" + "0" * 23 + "2"))
        ethertype = 0x86DD
    eth = bytes.fromhex("020000000002" "020000000001") + struct.pack("!H", ethertype)
    return eth + ip + udp + bth + payload, len(eth)


def icrc(frame, l3, ipv, mistakes):
    """What an implementation making these mistakes writes (the 4 wire bytes)."""
    b = bytearray(frame[l3:])
    if ipv == 4:
        hl = 20
        if "ipv4-tos-unmasked" not in mistakes:
            b[1] = 0xFF
        if "ipv4-ttl-unmasked" not in mistakes:
            b[8] = 0xFF
        if "ipv4-csum-unmasked" not in mistakes:
            b[10:12] = b"\xff\xff"
    else:
        hl = 40
        if "ipv6-tc-unmasked" not in mistakes:
            b[0] |= 0x0F
            b[1] |= 0xF0
        if "ipv6-fl-unmasked" not in mistakes:
            b[1] |= 0x0F
            b[2:4] = b"\xff\xff"
        if "ipv6-hl-unmasked" not in mistakes:
            b[7] = 0xFF
    if "udp-csum-unmasked" not in mistakes:
        b[hl + 6:hl + 8] = b"\xff\xff"
    if "bth4-unmasked" not in mistakes:
        b[hl + 8 + 4] = 0xFF
    if "pad-omitted" in mistakes:
        b = b[:-PAD]
    if "headers-twice" in mistakes:
        # The headers masked, then everything from the BTH on, unmasked, as
        # if it were payload (a payload offset of 0).
        raw = frame[l3:][:len(b)]
        b = b[:hl + 8 + 12] + raw[hl + 8:]
    data = bytes(b) if "no-prefix" in mistakes else b"\xff" * 8 + bytes(b)
    crc = zlib.crc32(data) & 0xFFFFFFFF
    if "not-inverted" in mistakes:
        crc ^= 0xFFFFFFFF
    wire = struct.pack("<I", crc)
    return wire[::-1] if "byte-order" in mistakes else wire


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000 + i, 0, len(fr), len(fr)))
            f.write(fr)


def scapy_agrees(frame):
    try:
        import logging
        logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
        from scapy.all import Ether
        from scapy.contrib.roce import BTH
    except ImportError:
        return None
    pkt = Ether(frame)
    if pkt.type != 0x0800:
        return None  # scapy's RoCE layer computes the ICRC over IPv4 only
    return bytes(pkt[BTH].compute_icrc(None)) == frame[-4:]


def main():
    tester, scratch = sys.argv[1:3]
    fields = subprocess.run([tester, "craft", "--fields"], check=True, capture_output=True, text=True).stdout
    text_to_name = {}
    listing = fields.split("ICRC mistakes", 1)[1].splitlines()[1:]
    for line in listing:
        parts = line.split(None, 1)
        if len(parts) == 2:
            text_to_name[parts[1].strip()] = parts[0]
    frames, expected = [], []
    scapy_checked = False
    for ipv, atoms in ((4, V4), (6, V6)):
        base, l3 = packet(ipv)
        good = base + icrc(base, l3, ipv, set())
        agree = scapy_agrees(good)
        if agree is False:
            print(f"IPv{ipv}: scapy computes another ICRC for the correct packet")
            return 1
        scapy_checked |= agree is True
        for k in range(1, len(atoms) + 1):
            for combo in itertools.combinations(atoms, k):
                frames.append(base + icrc(base, l3, ipv, set(combo)))
                want = set(combo)
                if FIELDS[ipv] <= want:
                    want = (want - FIELDS[ipv]) | {"nothing-masked"}
                expected.append((ipv, frozenset(want), "+".join(combo)))
        frames.append(base + b"\xde\xc0\xad\x0b")
        expected.append((ipv, None, "a corruption"))
    path = os.path.join(scratch, "icrc-combos.pcap")
    write_pcap(path, frames)
    out = subprocess.run([tester, "lint", "--tsv", "--no-flow", path], capture_output=True, text=True)
    diag = {}
    for line in out.stdout.splitlines():
        if line.startswith("#"):
            continue
        frame, code, _rule, _sev, msg = line.split("\t", 4)
        if code == "C_ICRC":
            diag[int(frame)] = msg
    failures = 0
    for n, (ipv, want, what) in enumerate(expected, 1):
        msg = diag.get(n)
        if msg is None:
            print(f"frame {n}: IPv{ipv} {what}: no bad ICRC found")
            failures += 1
            continue
        if want is None:
            if "no known implementation mistake, alone or combined, explains it" not in msg:
                print(f"frame {n}: IPv{ipv} {what}: explained anyway: {msg}")
                failures += 1
            continue
        cause = msg.split("(likely cause: ", 1)[-1] if "(likely cause: " in msg else \
            msg.split("(likely causes, all together: ", 1)[-1]
        cause = cause.rsplit(")", 1)[0]
        try:
            got = frozenset(text_to_name[t] for t in cause.split("; "))
        except KeyError:
            got = None
        if got != want:
            print(f"frame {n}: IPv{ipv} {what}: expected {sorted(want)}, libroce said: {msg}")
            failures += 1
    print(f"{len(expected)} ICRCs (every combination of the known mistakes over IPv4 and IPv6, and two "
          f"corruptions) computed with zlib{' (the correct IPv4 one checked with scapy too)' if scapy_checked else ''}; "
          f"{failures} misdiagnosed")
    return 1 if failures or len(expected) != 2 * 1024 else 0


if __name__ == "__main__":
    sys.exit(main())
