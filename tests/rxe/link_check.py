#!/usr/bin/python3
"""The harness's link, checked from its namespace: the guest answers ICMP
echo on its IPv4 and IPv6 addresses over the tap device (what every rxe test
then relies on). Run by run-with-rxe, which exports the addresses.
Bounded: 5 tries of 1 s per address."""
import os
import socket
import struct
import sys
import time


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return ~s & 0xFFFF


def echo(addr, v6):
    family = socket.AF_INET6 if v6 else socket.AF_INET
    proto = socket.IPPROTO_ICMPV6 if v6 else socket.IPPROTO_ICMP
    req_type, rep_type = (128, 129) if v6 else (8, 0)
    ident = os.getpid() & 0xFFFF
    with socket.socket(family, socket.SOCK_RAW, proto) as s:
        s.settimeout(1.0)
        for seq in range(1, 6):
            payload = b"roce-rxe-link-check"
            hdr = struct.pack("!BBHHH", req_type, 0, 0, ident, seq)
            # The kernel fills in the ICMPv6 checksum (it needs the pseudo-header).
            csum = 0 if v6 else checksum(hdr + payload)
            s.sendto(struct.pack("!BBHHH", req_type, 0, csum, ident, seq) + payload, (addr, 0))
            end = time.monotonic() + 1.0
            while time.monotonic() < end:
                try:
                    data, _ = s.recvfrom(2048)
                except socket.timeout:
                    break
                icmp = data if v6 else data[(data[0] & 0x0F) * 4:]
                t, _, _, rid, rseq = struct.unpack("!BBHHH", icmp[:8])
                if t == rep_type and rid == ident and rseq == seq:
                    return seq
    return 0


def main():
    ok = True
    for var, v6 in (("ROCE_RXE_GUEST_IPV4", False), ("ROCE_RXE_GUEST_IPV6", True)):
        addr = os.environ.get(var)
        if not addr:
            print(f"link_check: {var} is not set (run under scripts/rxe-vm/run-with-rxe)")
            return 2
        seq = echo(addr, v6)
        print(f"{'ok' if seq else 'FAIL'}: {addr} {'answers' if seq else 'does not answer'} ICMP echo"
              + (f" (try {seq})" if seq else " in 5 tries"))
        ok = ok and bool(seq)
    print(f"link_check: the guest is at {os.environ['ROCE_RXE_GUEST_IPV4']} behind "
          f"{os.environ.get('ROCE_RXE_IFACE')} in {os.environ.get('ROCE_RXE_NETNS')}; "
          f"boot took {os.environ.get('ROCE_RXE_BOOT_SECONDS')} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
