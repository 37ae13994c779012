#!/bin/sh
# Statistics through tshark -z rocev2,tree: packets per RoCE version, per
# opcode and per QP, findings per rule, with the counts the sample
# conversations imply.
# usage: check_stats.sh TSHARK-WRAPPER PLUGIN-DIR CAPTURES-DIR
set -eu
tshark=$1 dir=$2 caps=$3
fail=0 passed=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
expect() { # capture, item, count
  "$tshark" "$dir" -n -r "$caps/$1" -q -z rocev2,tree >"$out"
  got=$(awk -v item="$2" '{ line = $0; sub(/^ +/, "", line) }
        index(line, item) == 1 { rest = substr(line, length(item) + 1); split(rest, a, " "); print a[1]; exit }' "$out")
  if [ "$got" = "$3" ]; then
    passed=$((passed + 1))
  else
    echo "FAIL: $1: '$2' counts '$got', expected $3"; cat "$out"; fail=1
  fi
}
expect flows-rc.pcap "Packets by opcode" 42
expect flows-rc.pcap "RC SEND Only" 11
expect flows-rc.pcap "RC Acknowledge" 12
expect flows-rc.pcap "UD SEND Only" 5
expect flows-rc.pcap "RC RDMA READ Response First" 1
expect flows-rc.pcap "QP 0x000001" 5
expect flows-rc.pcap "QP 0x000123" 20
expect flows-rc.pcap "QP 0x000456" 17
expect flows-rc.pcap "IBA9.7-GBN" 2
expect flows-rc.pcap "IBA9.7-REQ-PSN" 1
expect flows-errors.pcap "IBA9.7-READ-RESP" 3
expect flows-errors.pcap "IBA9.7-OPSEQ" 2
expect flows-errors.pcap "A17.3.2-SPORT" 1
expect flows-errors.pcap "IBA9.7-GBN" 9
expect flows-lossy.pcap "IBA9.7-GBN" 9
expect malformed-icrc.pcap "CA17-22" 4
expect violations.pcap "CA17-7" 2
expect bad-icrc.pcap "CA17-22" 52
expect opcodes-ipv4.pcap "Packets by opcode" 218
expect opcodes-ipv4.pcap "version 2 (RoCEv2)" 218
# The mixed capture: 12 RC frames of each version, then 10 wrong ICRCs over
# RoCE v1 and 12 over RoCEv2 (the UDP checksum and whole-IP-layer mistakes
# are RoCEv2's); the RoCE v1 ones under A16-ROCEV1, the others CA17-22;
# the retry after the RNR NAK, a retransmission, in each version.
expect flows-rocev1-mixed.pcap "Packets by RoCE version" 46
expect flows-rocev1-mixed.pcap "version 1 (RoCE v1)" 22
expect flows-rocev1-mixed.pcap "version 2 (RoCEv2)" 24
expect flows-rocev1-mixed.pcap "A16-ROCEV1" 10
expect flows-rocev1-mixed.pcap "CA17-22" 12
expect flows-rocev1-mixed.pcap "IBA9.7-TIMEOUT" 2
echo "$passed passed, $fail failed"
exit $fail
