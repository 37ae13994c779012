#!/usr/bin/python3
"""Independent cross-check: recompute the ICRC of every frame in a pcap with
scapy's RoCE layer (scapy.contrib.roce, an implementation nobody here wrote)
and compare it with the ICRC libroce put on the wire.

usage: scapy_icrc.py FRAMES.pcap MIN_FRAMES
"""
import logging
import sys

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.all import rdpcap  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402

path, minimum = sys.argv[1], int(sys.argv[2])
frames = rdpcap(path)
checked = mismatched = 0
for n, pkt in enumerate(frames, 1):
    if BTH not in pkt:
        print(f"frame {n}: scapy did not decode a BTH")
        mismatched += 1
        continue
    wire = bytes(pkt)[-4:]
    ours = pkt[BTH].compute_icrc(None)
    checked += 1
    if ours != wire:
        mismatched += 1
        print(f"frame {n}: opcode {pkt[BTH].opcode:#04x} wire {wire.hex()} scapy {ours.hex()}")

print(f"{checked} frames checked against scapy, {mismatched} mismatched")
sys.exit(0 if mismatched == 0 and checked >= minimum else 1)
