#!/bin/sh
# roce-tester craft, lint and rules from the command line: the outputs and
# exit codes users script against.
# usage: tester_cli.sh ROCE-TESTER CAPTURES-DIR
set -u
t=$1
caps=$2
. "$(dirname "$0")/lib/check.sh"

expect "lint conforming samples, packet by packet (catalogues of unrelated packets)" 0 "$t" lint -q --no-flow "$caps/opcodes-ipv4.pcap" "$caps/opcodes-ipv6.pcap" "$caps/vlan.pcap" "$caps/cnp.pcap" "$caps/vectors.pcap"
contains "all frames counted" "617 frames: 617 RoCE (v1 and v2)"

expect "lint judges RoCE v1 frames by default" 0 "$t" lint -q --no-flow "$caps/rocev1.pcap"
contains "v1 frames counted" "126 frames: 126 RoCE (v1 and v2)"
expect "lint --rocev1 (the default, kept for old scripts)" 0 "$t" lint -q --no-flow --rocev1 "$caps/rocev1.pcap"
contains "v1 frames counted with --rocev1" "126 frames: 126 RoCE (v1 and v2)"
expect "lint --no-rocev1 leaves RoCE v1 out" 0 "$t" lint -q --no-rocev1 "$caps/rocev1.pcap"
contains "v1 frames skipped" "126 frames: 1 RoCEv2, 125 other"

# NVIDIA DC on the RD opcodes: decided per packet by default (auto), as
# the plugin does: the sample's 22 well-formed DC frames are DC without a
# finding; RD with --rd-range rd, with a hint; DC with --rd-range dc
# (--rd-as-dc).
expect "lint a DC capture (the default: auto)" 1 "$t" lint --no-flow "$caps/dc.pcap"
contains "DC opcodes named" "frame 1: DC Connect QP=0x000123 PSN=42"
contains "DC frames read as DC: only the sample's own violations" "25 frames: 25 RoCE (v1 and v2), 0 other; 3 with findings, 2 errors"
contains "the DC frame with a reserved byte set does not read as DC" "frame 23: RD SEND Only QP=0x000123 PSN=42"
lacks "no hint by default" "looks like NVIDIA DC"
expect "lint a DC capture as RD" 1 "$t" lint --no-flow --rd-range rd "$caps/dc.pcap"
contains "as RD, the DC key's first byte is the RDETH's reserved byte" "warning IBA9.3-RESV: RDETH reserved byte is 0xd0, not 0"
contains "the hint names the option" "looks like NVIDIA DC, not RD: run with --rd-range auto or dc"
contains "the hint counted (every DC frame but the two whose DC reading breaks too)" "23 RD frames look like NVIDIA DC"
expect "lint --rd-range dc" 1 "$t" lint --no-flow --rd-range dc "$caps/dc.pcap"
contains "DC opcodes named" "frame 1: DC Connect QP=0x000123 PSN=42"
contains "only the sample's own violations" "25 frames: 25 RoCE (v1 and v2), 0 other; 3 with findings, 2 errors"
contains "0x55 with SE set is no DC opcode" "IBA9.2-OPCODE"
lacks "no hint with --rd-range dc" "looks like NVIDIA DC"
expect "lint --rd-as-dc (kept for old scripts)" 1 "$t" lint -q --no-flow --rd-as-dc "$caps/dc.pcap"
contains "the same as --rd-range dc" "IBA9.2-OPCODE"
expect "a bad --rd-range" 2 "$t" lint --rd-range sometimes "$caps/dc.pcap"
contains "says what it takes" "--rd-range sometimes: not one of auto, rd, dc"
expect "RD frames that do not look like DC stay RD by default" 0 "$t" lint --no-flow "$caps/opcodes-ipv4.pcap"
contains "an RD packet read as RD" ": RD SEND Only QP="

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

# The per-QP analysis, as the plugin runs it (compare_lint.py holds them to
# the same findings frame by frame).
expect "lint conforming lossy traffic" 0 "$t" lint "$caps/flows-lossy.pcap"
contains "the NAK crossed in flight, measured" "resend for the NAK in frame 8, 0.000055 s after it; 2 new PSNs crossed the NAK"
contains "a READ replay from a Middle is informative" "info    IBA9.7-DUP-READ: READ response PSN 2014 replays the READ from inside its range"
contains "a missing resend on a lossy path is a warning" "warning IBA9.7-GBN: the requester resent PSN 2012 before PSN 2011"
contains "flow tags" "[Retransmission]"
expect "lint the flow errors" 1 "$t" lint "$caps/flows-errors.pcap"
contains "go-back past the NAKed PSN" "error   IBA9.7-GBN: the requester went back to PSN 102 after a NAK PSN Sequence Error for PSN 101"
contains "new PSNs inside the go-back" "error   IBA9.7-GBN: new PSN 109 while going back"
contains "path MTU learnt from a First" "error   IBA9.7-LEN: payload is 1500 bytes, more than the path MTU, 1024"
expect "lint without the analysis" 0 "$t" lint --no-flow "$caps/flows-errors.pcap"
lacks "no flow findings" "IBA9.7-GBN"
expect "lint --tsv" 1 "$t" lint --tsv "$caps/flows-errors.pcap"
contains "one finding a line" "$(printf '13\tF_GBN_SKIPPED_SEEN\tIBA9.7-GBN\twarning\tIBA9.7-GBN: the requester resent PSN 17 before PSN 16')"
expect "a NAK left open is listed after the frames" 0 "$t" lint "$caps/flows-rc.pcap"
lacks "no open NAK in flows-rc" "never answered"
expect "lint a malformed packet with a good ICRC" 1 "$t" lint "$caps/malformed-icrc.pcap"
contains "the sender built it" "pad count 3 exceeds the 0 bytes between the headers and the ICRC (its ICRC is good: the sender built the packet this way)"
contains "damaged on the way" "(its ICRC is bad: the packet was damaged on the way)"
expect "craft mistakes made together" 0 "$t" craft --icrc-mistake ipv4-ttl-unmasked+byte-order
contains "both named" "likely causes, all together: the IPv4 TTL was not masked; the ICRC was written most-significant byte first"

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

# The per-QP summary (libroce's, as tshark -z rocev2,qp prints it), with the
# numbers the congestion sample's frames give: 17 WRITEs of 1074 bytes, 2
# CNPs of 74, 3 ACKs of 62, from 110 us to 1174 us; ACK RTTs 18, 8, 8 us.
expect "lint --qp" 0 "$t" lint -q --qp "$caps/flows-congestion.pcap"
contains "the per-QP header" "QP A     B"
contains "one row per QP pair" "198.18.0.1                 0x000456 198.18.0.2                 0x000123       22      18592   0.001064     0     0     0     0     2     4  0.000008/0.000011/0.000018"
expect "lint --json" 0 "$t" lint -q --json "$caps/flows-congestion.pcap"
contains "JSON per QP pair" '"qp_a": "0x000456", "b": "198.18.0.2", "qp_b": "0x000123", "packets": 22, "bytes": 18592, "duration": 0.001064000'
contains "JSON congestion counts" '"cnps": 2, "ce_marked": 4, "ack_rtts": 3, "ack_rtt_min": 0.000008000, "ack_rtt_avg": 0.000011333, "ack_rtt_max": 0.000018000'
# RoCE v1 and RoCEv2 QPs with the same numbers between the same addresses
# (flows-rocev1-mixed.pcap): two pairs, the RoCE v1 one marked; 22 of its
# 46 frames are RoCE v1, other frames with --no-rocev1.
expect "lint --qp of a mixed capture" 1 "$t" lint -q --qp "$caps/flows-rocev1-mixed.pcap"
contains "the RoCE v1 pair, marked" "2001:db8::1/v1             0x000456 2001:db8::2/v1             0x000123       12       3844"
contains "the RoCEv2 pair" "2001:db8::1                0x000456 2001:db8::2                0x000123       12       3940"
contains "both versions counted" "46 frames: 46 RoCE (v1 and v2), 0 other; 26 with findings, 22 errors"
expect "lint --json of a mixed capture" 1 "$t" lint -q --json "$caps/flows-rocev1-mixed.pcap"
contains "JSON: the RoCE v1 pair" '"ack_rtt_max": 0.000013000, "version": 1}'
contains "JSON: the RoCEv2 pair" '"ack_rtt_max": 0.000016000, "version": 2}'
expect "lint --no-rocev1 of a mixed capture" 1 "$t" lint -q --no-rocev1 "$caps/flows-rocev1-mixed.pcap"
contains "RoCE v1 frames left out" "46 frames: 24 RoCEv2, 22 other"
if "$t" lint -q --json "$caps/flows-rc.pcap" "$caps/flows-congestion.pcap" 2>/dev/null |
   python3 -c 'import json, sys; d = json.JSONDecoder(); s = sys.stdin.read().strip(); n = 0
while s:
    o, i = d.raw_decode(s); s = s[i:].strip(); n += len(o["qp_pairs"])
sys.exit(n != 2)'; then
  echo "ok: lint --json is one JSON document per file"
else
  echo "FAIL: lint --json output does not parse as one JSON document per file"; fails=$((fails + 1))
fi

[ $fails = 0 ] && echo "tester_cli: all passed"
exit $fails
