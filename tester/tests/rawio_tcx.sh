#!/usr/bin/env bash
# rawio's tc ingress program (tester/src/wire/rawio_tcx.c) on a real veth, run
# by scripts/netns-pair --in-host:
#   - with the tester's port open, IPv4 and IPv6 UDP datagrams to port 4791
#     reach its receive ring but never the local IP stack (the namespace's
#     UDP counters do not move for them), while UDP to another port still
#     does (and is counted as such);
#   - once the tester has closed the port, the program is gone: the same
#     datagrams reach the IP stack again (counted as to no port).
# Skips (77) where the kernel cannot attach it (before Linux 6.6), saying why.
#
#   rawio_tcx.sh ROCE-BENCH-INJECT
set -euo pipefail
helper=$1
IP=/usr/sbin/ip
[ -x "$IP" ] || IP=$(command -v ip)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "rawio_tcx: FAIL: $*" >&2; exit 1; }

# InDatagrams + NoPorts + InErrors: every UDP datagram the namespace's IP
# stack delivered, found without a socket, or dropped at one.
udp4() { "$IP" netns exec "$ROCE_NS_DUT" awk '/^Udp:/ { if (!h) { for (i = 2; i <= NF; i++) col[$i] = i; h = 1 } else print $col["InDatagrams"] + $col["NoPorts"] + $col["InErrors"] }' /proc/net/snmp; }
udp6() { "$IP" netns exec "$ROCE_NS_DUT" awk '$1 == "Udp6InDatagrams" || $1 == "Udp6NoPorts" || $1 == "Udp6InErrors" { s += $2 } END { print s }' /proc/net/snmp6; }

# Sends n4 IPv4 and n6 IPv6 datagrams to port 4791 and n_other IPv4 ones
# to port 4792, straight to the DUT side's MAC.
send() { # n4 n6 n_other
  "$IP" netns exec "$ROCE_NS_TESTER" /usr/bin/python3 -c '
import logging, sys
logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.all import Ether, IP, IPv6, UDP, Raw, sendp
n4, n6, n_other = map(int, sys.argv[1:4])
mac, iface = sys.argv[4], sys.argv[5]
pay = Raw(b"\x00" * 40)
f = [Ether(dst=mac) / IP(src="198.18.0.2", dst="198.18.0.1") / UDP(sport=49152, dport=4791) / pay] * n4
f += [Ether(dst=mac) / IPv6(src="2001:db8::2", dst="2001:db8::1") / UDP(sport=49152, dport=4791) / pay] * n6
f += [Ether(dst=mac) / IP(src="198.18.0.2", dst="198.18.0.1") / UDP(sport=49152, dport=4792) / pay] * n_other
sendp(f, iface=iface, verbose=False)
' "$1" "$2" "$3" "$ROCE_DUT_MAC" "$ROCE_IF_TESTER"
}

# The tester's port open on the DUT side: the checker of the bench, which
# opens it through rawio as roce-tester does, and stops 2 s after the
# last frame.
"$IP" netns exec "$ROCE_NS_DUT" "$helper" check "$ROCE_IF_DUT" 1000000 blocks >"$work/check" 2>&1 &
cpid=$!
for _ in $(seq 200); do grep -q '^ready' "$work/check" && break; sleep 0.05; done
ready=$(grep '^ready' "$work/check" || true)
[ -n "$ready" ] || { kill "$cpid" 2>/dev/null; cat "$work/check" >&2; fail "the checker did not open the port"; }
if ! grep -q 'dropped at tc ingress' <<<"$ready"; then
  kill "$cpid" 2>/dev/null || true
  wait "$cpid" 2>/dev/null || true
  echo "rawio_tcx: SKIP: the program is not attached here: $ready" >&2
  exit 77
fi
a4=$(udp4) a6=$(udp6)
send 200 100 10
wait "$cpid"
b4=$(udp4) b6=$(udp6)
frames=$(sed -n 's/.* frames=\([0-9]*\).*/\1/p' "$work/check" | tail -1)
# ARP and Neighbour Discovery pass the filter too: at least the 300.
[ "${frames:-0}" -ge 300 ] || fail "the port's ring received ${frames:-no} frames, expected the 300 to port 4791"
[ $((b4 - a4)) -eq 10 ] || fail "IPv4 UDP counters moved by $((b4 - a4)) with the port open, expected 10 (the datagrams to 4792 only)"
[ $((b6 - a6)) -eq 0 ] || fail "IPv6 UDP counters moved by $((b6 - a6)) with the port open, expected 0"
echo "ok: port open: $frames frames in the ring, the IP stack saw only the 10 datagrams to port 4792"

# The port closed (the checker has exited): nothing holds 4791 and the
# program is gone, so the stack finds no socket for each.
send 20 20 0
sleep 0.5
c4=$(udp4) c6=$(udp6)
[ $((c4 - b4)) -eq 20 ] || fail "IPv4 UDP counters moved by $((c4 - b4)) with the port closed, expected 20: is the program still attached?"
[ $((c6 - b6)) -eq 20 ] || fail "IPv6 UDP counters moved by $((c6 - b6)) with the port closed, expected 20: is the program still attached?"
echo "ok: port closed: the program is gone with it, the IP stack sees port 4791 again"
echo "rawio_tcx: all passed"
