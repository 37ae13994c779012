#!/bin/sh
# UDP 4791 belongs to the plugin; its preference gives the port back to the
# built-in InfiniBand dissector; Decode As puts RoCEv2 on another port.
# usage: check_port.sh TSHARK-WRAPPER PLUGIN-DIR CAPTURES-DIR
set -eu
tshark=$1 dir=$2 caps=$3
fail=0 passed=0
check() { # what, expected protocol list, plugin dir (or none), tshark args...
  what=$1 want=$2 plugins=$3
  shift 3
  got=$("$tshark" "$plugins" -n "$@" -T fields -e frame.protocols | head -1)
  if [ "$got" = "$want" ]; then
    passed=$((passed + 1))
  else
    echo "FAIL: $what: frame.protocols '$got', expected '$want'"; fail=1
  fi
}
check "4791 taken over" eth:ethertype:ip:udp:rocev2 "$dir" -r "$caps/cnp.pcap"
check "4791 given back" eth:ethertype:ip:udp:infiniband "$dir" -r "$caps/cnp.pcap" -o rocev2.take_port:FALSE
check "no plugin" eth:ethertype:ip:udp:infiniband none -r "$caps/cnp.pcap"
# violations.pcap frame 31 is a conforming packet sent to UDP 4792.
check "4792 undecoded" eth:ethertype:ip:udp:data "$dir" -r "$caps/violations.pcap" -Y frame.number==31
check "Decode As 4792" eth:ethertype:ip:udp:rocev2 "$dir" -r "$caps/violations.pcap" -Y frame.number==31 \
  -d udp.port==4792,rocev2
echo "$passed passed, $fail failed"
exit $fail
