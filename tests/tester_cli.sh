#!/bin/sh
# roce-tester craft, lint and rules from the command line: the outputs and
# exit codes users script against.
# usage: tester_cli.sh ROCE-TESTER CAPTURES-DIR
set -u
t=$1
caps=$2
. "$(dirname "$0")/lib/check.sh"

expect "lint conforming samples" 0 "$t" lint -q "$caps/opcodes-ipv4.pcap" "$caps/opcodes-ipv6.pcap" "$caps/vlan.pcap" "$caps/cnp.pcap" "$caps/vectors.pcap"
contains "all frames counted" "617 frames: 617 RoCEv2"

expect "lint RoCE v1 samples" 0 "$t" lint -q --rocev1 "$caps/rocev1.pcap"
contains "v1 frames counted" "126 frames: 126 RoCE (v1 and v2)"
expect "RoCE v1 is not RoCEv2 without --rocev1" 0 "$t" lint -q "$caps/rocev1.pcap"
contains "v1 frames skipped" "126 frames: 1 RoCEv2, 125 other"

expect "craft a TVer violation" 0 "$t" craft --opcode rc-send-only --set bth.tver=1 -o "$tmp/tver.pcap"
expect "lint finds it" 1 "$t" lint "$tmp/tver.pcap"
contains "names the rule" "IBA9.2-TVER: BTH TVer is 1, not 0"

expect "craft prints a conforming IPv6 READ" 0 "$t" craft --opcode 0x0c --ip 6 --dst 2001:db8::99
contains "summary line" "RC RDMA READ Request QP=0x000123 PSN=42"
contains "no findings" "no findings"

expect "craft with an ICRC mistake" 0 "$t" craft --payload-len 5 --icrc-mistake pad-omitted
contains "diagnosis" "likely cause: the pad bytes were left out of the ICRC"

expect "lint the violations capture" 1 "$t" lint --all --pmtu 1024 --sender --any-port "$caps/violations.pcap"
for rule in CA17-2 CA17-3 CA17-6 CA17-7 CA17-8 CA17-10 CA17-15 CA17-16 CA17-20 CA17-21 CA17-22 CA17-27 CA17-33 CA17-35 CA17-37 CA17-44 A17.3.1-ECN IBA9.2-TVER IBA9.7-LEN; do
  contains "violations: $rule" "$rule:"
done

expect "unknown field" 2 "$t" craft --set bth.nosuch=1
contains "unknown field message" "--set bth.nosuch=1: no such field"
expect "value too big" 2 "$t" craft --set bth.padcnt=4
contains "value too big message" "does not fit in the field"
expect "IPv6 field on IPv4" 2 "$t" craft --set ipv6.hoplimit=3
expect "unknown opcode" 2 "$t" craft --opcode rc-nothing
expect "missing file" 2 "$t" lint "$tmp/none.pcap"
contains "names the file" "none.pcap"
printf 'not a pcap' >"$tmp/junk.pcap"
expect "junk file" 2 "$t" lint "$tmp/junk.pcap"
expect "bad pmtu" 2 "$t" lint --pmtu 1500 "$caps/cnp.pcap"
expect "unknown command" 2 "$t" frobnicate
expect "help" 0 "$t" --help
expect "rules" 0 "$t" rules
contains "rules lists CA17-46" "CA17-46"

[ $fails = 0 ] && echo "tester_cli: all passed"
exit $fails
