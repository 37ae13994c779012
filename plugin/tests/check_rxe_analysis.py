#!/usr/bin/env python3
"""The analysis flags and times on the lossy captures recorded between two
Linux rxe hosts (captures/rxe-*.pcap), through tshark:
- the PSN gaps and late packets are the frames their reviewed .expect
  files list (F_PSN_GAP, F_OUT_OF_ORDER), frame for frame;
- healthy traffic from an implementation nobody here wrote shows no ghost
  ACK and no RNR NAK;
- every NAK PSN Sequence Error has its generation latency, from an
  earlier out-of-sequence packet; every first resend after it its
  NAK-to-resend time; every timeout resend its RTO from an earlier frame;
  every time is between 0 and 1 s;
- the counts of every flag and time, as measured and reviewed when the
  fields were added (docs/plugin.md), so that a change in the judgement
  shows here.

usage: check_rxe_analysis.py TSHARK-WRAPPER PLUGIN-DIR CAPTURES-DIR
"""
import os
import subprocess
import sys

FLAGS = ["retransmission", "spurious_retransmission", "out_of_order", "psn_gap", "duplicate", "ghost_ack",
         "go_back_n", "seq_nak", "rnr_nak", "rnr_retry", "duplicate_read_response", "crossed_nak"]
TIMES = ["nak_latency", "nak_to_resend", "rto", "ack_rtt", "read_response_time", "atomic_response_time"]
LINKS = {"nak_latency": "nak_oos_frame", "nak_to_resend": "nak_frame", "rto": "rto_frame", "ack_rtt": "acks_frame"}

# capture: flag or time -> frames that have it
COUNTS = {
    "rxe-ipv4-atomic-loss.pcap": dict(retransmission=71, spurious_retransmission=12, psn_gap=1, go_back_n=59,
                                      seq_nak=2, crossed_nak=33, nak_latency=2, nak_to_resend=2, rto=12,
                                      ack_rtt=92, atomic_response_time=92),
    "rxe-ipv4-read-mixed.pcap": dict(retransmission=46, spurious_retransmission=8, out_of_order=1, go_back_n=46,
                                     seq_nak=5, duplicate_read_response=15, crossed_nak=7, nak_latency=5,
                                     nak_to_resend=3, ack_rtt=11, read_response_time=11),
    "rxe-ipv4-read-loss.pcap": dict(retransmission=28, spurious_retransmission=26, rto=28, ack_rtt=24,
                                    read_response_time=24),
    "rxe-ipv4-send-reorder.pcap": dict(retransmission=128, spurious_retransmission=4, go_back_n=128, seq_nak=2,
                                       nak_latency=2, nak_to_resend=1, ack_rtt=3),
    "rxe-ipv6-atomic-mixed.pcap": dict(retransmission=190, spurious_retransmission=26, out_of_order=8, psn_gap=1,
                                       duplicate=189, go_back_n=138, seq_nak=6, nak_latency=6, nak_to_resend=4,
                                       ack_rtt=80, atomic_response_time=80),
    "rxe-ipv6-send-loss.pcap": dict(retransmission=299, spurious_retransmission=99, psn_gap=3, duplicate=391,
                                    go_back_n=299, seq_nak=4, crossed_nak=33, nak_latency=4, nak_to_resend=4,
                                    ack_rtt=30),
}


def expected_frames(expect, code):
    with open(expect) as f:
        return {int(c[0]) for c in (line.split("\t") for line in f if not line.startswith("#"))
                if len(c) > 1 and c[1] == code}


def main():
    wrapper, plugins, captures = sys.argv[1:4]
    fields = [f"rocev2.analysis.{n}" for n in FLAGS + TIMES + sorted(set(LINKS.values()))]
    failures, checked = [], 0
    for cap, counts in sorted(COUNTS.items()):
        path = os.path.join(captures, cap)
        cmd = [wrapper, plugins, "-n", "-2", "-r", path, "-T", "fields", "-E", "separator=;", "-e", "frame.number"]
        for fl in fields:
            cmd += ["-e", fl]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        has = {n: set() for n in FLAGS + TIMES}
        for line in out.splitlines():
            cols = line.split(";")
            frame, row = int(cols[0]), dict(zip([f.split(".", 2)[2] for f in fields], cols[1:]))
            for n in FLAGS + TIMES:
                if row.get(n):
                    has[n].add(frame)
            for t, link in LINKS.items():
                if not row.get(t):
                    continue
                checked += 1
                v, earlier = float(row[t]), row.get(link, "")
                if not 0 <= v < 1 or not earlier or int(earlier) >= frame:
                    failures.append(f"{cap} frame {frame}: {t} {v} from frame '{earlier}'")
        expect = path[:-5] + ".expect"
        for flag, code in (("psn_gap", "F_PSN_GAP"), ("out_of_order", "F_OUT_OF_ORDER")):
            checked += 1
            want = expected_frames(expect, code)
            if has[flag] != want:
                failures.append(f"{cap}: {flag} in frames {sorted(has[flag])}, the .expect lists {sorted(want)}")
        for n in FLAGS + TIMES:
            checked += 1
            if len(has[n]) != counts.get(n, 0):
                failures.append(f"{cap}: {n} on {len(has[n])} frames, expected {counts.get(n, 0)}")
        checked += 1
        if not has["seq_nak"] <= has["nak_latency"]:
            failures.append(f"{cap}: NAKs without a generation latency: {sorted(has['seq_nak'] - has['nak_latency'])}")
    for f in failures:
        print("FAIL " + f)
    print(f"{checked - len(failures)} passed, {len(failures)} failed")
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
