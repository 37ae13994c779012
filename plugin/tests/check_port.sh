#!/bin/sh
# UDP 4791 belongs to the plugin; its preference gives the port back to the
# built-in InfiniBand dissector; Decode As puts RoCEv2 on another port.
# Ethertype 0x8915 (RoCE v1) likewise: the plugin's, given back by
# take_rocev1 or by Decode As; no other dissector table entry differs.
# usage: check_port.sh TSHARK-WRAPPER PLUGIN-DIR CAPTURES-DIR
set -eu
tshark=$1 dir=$2 caps=$3
fail=0 passed=0
check() { # what, expected protocol list, plugin dir (or none), tshark args...
  what=$1 want=$2 plugins=$3
  shift 3
  err=$(mktemp)
  got=$("$tshark" "$plugins" -n "$@" -T fields -e frame.protocols 2>"$err" | head -1)
  if [ -s "$err" ]; then # e.g. a Decode As matching two dissectors
    echo "FAIL: $what: tshark said: $(head -3 "$err")"; fail=1
  elif [ "$got" = "$want" ]; then
    passed=$((passed + 1))
  else
    echo "FAIL: $what: frame.protocols '$got', expected '$want'"; fail=1
  fi
  rm -f "$err"
}
check "4791 taken over" eth:ethertype:ip:udp:rocev2 "$dir" -r "$caps/cnp.pcap"
check "4791 given back" eth:ethertype:ip:udp:infiniband "$dir" -r "$caps/cnp.pcap" -o rocev2.take_port:FALSE
check "no plugin" eth:ethertype:ip:udp:infiniband none -r "$caps/cnp.pcap"
# violations.pcap frame 31 is a conforming packet sent to UDP 4792.
check "4792 undecoded" eth:ethertype:ip:udp:data "$dir" -r "$caps/violations.pcap" -Y frame.number==31
check "Decode As 4792" eth:ethertype:ip:udp:rocev2 "$dir" -r "$caps/violations.pcap" -Y frame.number==31 \
  -d udp.port==4792,rocev2
# RoCEv2 from a low source port another protocol owns (low-ports.pcap):
# RoCEv2 when its BTH parses and its ICRC verifies, as Decode As would
# make it; that protocol's own traffic stays that protocol's.
lp=$caps/low-ports.pcap
check "RoCEv2 from port 53" eth:ethertype:ip:udp:rocev2 "$dir" -r "$lp" -Y frame.number==1
check "RoCEv2 from port 69" eth:ethertype:ip:udp:rocev2 "$dir" -r "$lp" -Y frame.number==2
check "RoCEv2 over IPv6 from port 53" eth:ethertype:ipv6:udp:rocev2 "$dir" -r "$lp" -Y frame.number==9
check "a bad ICRC from port 53 stays DNS's" eth:ethertype:ip:udp:dns "$dir" -r "$lp" -Y frame.number==11
check "DNS to port 53" eth:ethertype:ip:udp:dns "$dir" -r "$lp" -Y frame.number==13
check "DNS from source port 4791" eth:ethertype:ip:udp:dns "$dir" -r "$lp" -Y frame.number==15
check "TFTP to port 69" eth:ethertype:ip:udp:tftp "$dir" -r "$lp" -Y frame.number==16
check "port given back: port 53 is DNS again" eth:ethertype:ip:udp:dns "$dir" -r "$lp" -Y frame.number==1 \
  -o rocev2.take_port:FALSE
check "no plugin: DNS" eth:ethertype:ip:udp:dns none -r "$lp" -Y frame.number==1
check "the user's Decode As of 4791 stays" eth:ethertype:ip:udp:data "$dir" -r "$caps/cnp.pcap" -d udp.port==4791,data
# RoCE v1 (rocev1.pcap frame 2: untagged, Ethertype 0x8915).
v1=$caps/rocev1.pcap
check "0x8915 taken over" eth:ethertype:rocev2 "$dir" -r "$v1" -Y frame.number==2
check "0x8915 given back" eth:ethertype:infiniband:data "$dir" -r "$v1" -Y frame.number==2 -o rocev2.take_rocev1:FALSE
check "no plugin: RoCE v1 is InfiniBand's" eth:ethertype:infiniband:data none -r "$v1" -Y frame.number==2
check "Decode As of 0x8915 to InfiniBand" eth:ethertype:infiniband:data "$dir" -r "$v1" -Y frame.number==2 \
  -d ethertype==0x8915,infiniband
check "the user's Decode As of 0x8915 stays" eth:ethertype:data "$dir" -r "$v1" -Y frame.number==2 \
  -d ethertype==0x8915,data
# Decode As to RoCEv2 takes the frames with take_rocev1 off too (tshark
# applies -d before -o, whatever their order), and to InfiniBand gives
# them back either way.
check "Decode As of 0x8915 to RoCEv2, take_rocev1 off" eth:ethertype:rocev2 "$dir" -r "$v1" -Y frame.number==2 \
  -o rocev2.take_rocev1:FALSE -d ethertype==0x8915,rocev2
check "Decode As of 0x8915 to RoCEv2 before take_rocev1 off" eth:ethertype:rocev2 "$dir" -r "$v1" \
  -Y frame.number==2 -d ethertype==0x8915,rocev2 -o rocev2.take_rocev1:FALSE
check "Decode As of 0x8915 to RoCEv2, take_rocev1 on" eth:ethertype:rocev2 "$dir" -r "$v1" -Y frame.number==2 \
  -d ethertype==0x8915,rocev2
check "Decode As of 0x8915 to InfiniBand, take_rocev1 off" eth:ethertype:infiniband:data "$dir" -r "$v1" \
  -Y frame.number==2 -o rocev2.take_rocev1:FALSE -d ethertype==0x8915,infiniband
# Every dissector table entry but Ethertype 0x8915 and UDP 4791 is the
# same with and without the plugin.
tables=$(mktemp -d)
"$tshark" "$dir" -G decodes 2>/dev/null | sort >"$tables/with"
"$tshark" none -G decodes 2>/dev/null | sort >"$tables/without"
differ=$(comm -23 "$tables/with" "$tables/without" | tr '\t' ' ' | tr '\n' ';')
[ -s "$tables/without" ] || differ="(no table entries listed)"
rm -rf "$tables"
# 0x8915 is held by the helper protocol rocev1 (plugin/ethertype.c).
if [ "$differ" = "ethertype 35093 rocev1;udp.port 4791 rocev2;" ]; then
  passed=$((passed + 1))
else
  echo "FAIL: the plugin's dissector table entries differ from the built-in's in more than 0x8915 and 4791: $differ"
  fail=1
fi
# Other dissectors' preferences are not changed (the zero UDP checksum one
# aside, which the rocev2.ipv6_zero_udp_checksum preference names).
with=$("$tshark" "$dir" -G currentprefs 2>/dev/null | grep -v '^#' | grep -v '^rocev2\.' | grep -v '^udp.ignore_ipv6_zero_checksum' | sort)
without=$("$tshark" none -G currentprefs 2>/dev/null | grep -v '^#' | grep -v '^udp.ignore_ipv6_zero_checksum' | sort)
if [ "$with" = "$without" ]; then
  passed=$((passed + 1))
else
  echo "FAIL: the plugin changes other dissectors' preferences: with it '$with', without '$without'"; fail=1
fi
echo "$passed passed, $fail failed"
exit $fail
