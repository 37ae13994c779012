#!/bin/sh
# fuzz_plugin.py's judgement against a fake tshark that prints what a
# crash, a sanitizer report, a dissector bug, a hang, a malformed item, a
# plugin that is not loaded or output cut short looks like: each must fail
# the run, naming why; the malformed items of other protocols must not, nor
# a sample with no frame for the plugin (as rocev1.pcap), nor an abort on
# Wireshark's own dissector bug in a frame the plugin never dissected.
# The fake also fails every run made without WIRESHARK_ABORT_ON_DISSECTOR_BUG=1
# and the strict wmem allocator, which the fuzzer is started without.
#   fuzz_selftest.sh FUZZ_PLUGIN.PY CAPTURES-DIR
set -u
fuzz=$1 captures=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/caps" "$work/caps2" "$work/regress"
cp "$captures/cnp.pcap" "$work/caps/"
# caps2: a second sample with no frame for the plugin, as rocev1.pcap is.
cp "$captures/cnp.pcap" "$work/caps2/cnp.pcap"
cp "$captures/cnp.pcap" "$work/caps2/v1.pcap"
cp "$captures/cnp.pcap" "$work/regress/known.pcap"
printf '# file\toptions\twhat\nknown.pcap\t-2\tthe selftest'"'"'s regression\n' >"$work/regress/regressions.tsv"
cat >"$work/tshark" <<'FAKE'
#!/bin/sh
# Called as the wrapper: tshark PLUGIN-DIR -nVxr FILE [options]
file=$3
n=$(capinfos -M -c -T -r "$file" | cut -f2)
if [ "${ROCEV2_FUZZ_RERUN:-}" = 1 ]; then  # the fuzzer's second reading, bugs not fatal
  [ -z "${WIRESHARK_ABORT_ON_DISSECTOR_BUG+set}" ] || echo 'fake tshark: dissector bugs still abort in a rerun' >&2
else
  [ "${WIRESHARK_ABORT_ON_DISSECTOR_BUG:-}" = 1 ] || echo 'fake tshark: dissector bugs do not abort' >&2
fi
[ "${WIRESHARK_DEBUG_WMEM_OVERRIDE:-}" = strict ] || echo 'fake tshark: wmem is not strict' >&2
frame() { printf 'Frame %s: 74 bytes on wire\nEthernet II\n    Destination: 02:00:00:00:00:01\nUser Datagram Protocol\n' "$1"; }
roce() { printf 'RDMA over Converged Ethernet v2, RC SEND Only QP=0x000123 PSN=1\n    Base Transport Header\n'; }
mode=$FAKE_MODE
case "$mode" in bug-in-regression) [ "${file##*/}" = known.pcap ] && mode=bug || mode=clean ;; esac
# ws-bug*: Wireshark's own dissector bug in frame 2 of the mutated files,
# which rocev2 did not dissect (ws-bug) or did (ws-bug-in-ours).
case "$mode:${file##*/}" in ws-bug*:*-E*) ;; ws-bug*) mode=clean ;; esac
[ "$mode" = short ] && n=$((n - 1))
# no-ladder: v1.pcap's frames are the plugin's, and the ladder asked for
# with them (its second variant) is never printed.
# v1.pcap's frames are not the plugin's: frames 6-10 of the baseline (cnp.pcap
# then v1.pcap) and every frame of its mutated copies.
not_ours() {
  [ "$mode" = v1-sample ] || return 1
  case "${file##*/}" in baseline.pcapng) [ "$1" -gt 5 ] ;; v1-*) true ;; *) false ;; esac
}
i=1
while [ $i -le "$n" ]; do
  frame $i
  if [ $i -eq 2 ] && [ "$mode" = ulp-malformed ]; then
    echo '[Malformed Packet: UDP]'
  elif [ $i -eq 2 ] && [ "$mode" = ws-bug ]; then
    :
  elif [ "$mode" != no-plugin ] && ! not_ours $i; then
    roce
  fi
  if [ $i -eq 2 ]; then
    case "$mode" in ws-bug*)
      if [ "${ROCEV2_FUZZ_RERUN:-}" = 1 ]; then
        echo '[Dissector bug, protocol RPCoRDMA: ./epan/tvbuff.c:748: failed assertion "tvb && tvb->initialized"]'
        echo '** (tshark) [Epan WARNING] -- Dissector bug, protocol RPCoRDMA, in packet 2: ./epan/tvbuff.c:748: failed assertion "tvb && tvb->initialized"' >&2
      else
        echo './epan/tvbuff.c:748: failed assertion "tvb && tvb->initialized"' >&2
        kill -ABRT $$
      fi ;;
    esac
  fi
  if [ $i -eq 1 ]; then
    case "$mode" in
    roce-malformed) echo '[Malformed Packet: RoCEv2]' ;;
    ulp-malformed) echo '[Malformed Packet: IDP]' ;;
    bug) echo '    [Dissector bug, protocol RoCEv2: proto.c:1234: failed assertion]' ;;
    sanitizer) echo 'packet-rocev2.c:100:5: runtime error: shift exponent 32 is too large' >&2 ;;
    abort) kill -ABRT $$ ;;
    exit) exit 2 ;;
    hang) sleep 30 ;;
    esac
  fi
  i=$((i + 1))
done
# The Flow Graph's ladder after the frames, when asked for (no-ladder: never),
# its nodes named on two lines; GLib's complaint about an arrow past the
# line, which tshark gives a ladder of 40 nodes (ladder-40) and which must
# fail one of 2 nodes (ladder-2).
case " $* " in *" flow,rocev2,standard "*)
  nodes=2
  [ "$mode" = ladder-40 ] && nodes=40
  printf 'Conv.| Time    '; i=0; while [ $i -lt $nodes ]; do printf '| 198.18.0.%d          ' $i; i=$((i + 2)); done
  printf '|\n     |         |                   '; i=1; while [ $i -lt $nodes ]; do printf '| 198.18.0.%d          ' $i; i=$((i + 2)); done
  printf '\n'
  [ "$mode" = no-ladder ] || printf '1    |0.000000 |         CNP       |\n     |         |(49374)  ------------------>  (4791)   |\n'
  case "$mode" in ladder-*)
    echo " ** (tshark:439) 18:48:51.490943 [GLib CRITICAL] -- g_string_erase: assertion 'pos_unsigned + len_unsigned <= string->len' failed" >&2 ;;
  esac ;;
esac
exit 0
FAKE
chmod +x "$work/tshark"
fails=0
check() { # mode, expected status, text the output must hold [, samples directory]
  out=$(env -u WIRESHARK_ABORT_ON_DISSECTOR_BUG -u WIRESHARK_DEBUG_WMEM_OVERRIDE FAKE_MODE=$1 \
        ROCEV2_FUZZ_RUN_TIMEOUT=2 "$fuzz" "$work/tshark" none "${4:-$work/caps}" "$work/regress" --passes 1 --repeat 2 \
        --keep "$work/kept" -q 2>&1)
  rc=$?
  if [ $rc -ne "$2" ] || ! printf '%s' "$out" | grep -q -- "$3"; then
    echo "FAIL: $1: status $rc (expected $2), output lacks '$3':"
    printf '%s\n' "$out"
    fails=$((fails + 1))
  else
    echo "ok: $1: status $rc, '$3'"
  fi
}
check clean 0 "5 unmutated frames (the baseline); 2 tshark runs (1 regression captures), 15 mutated frames, 15 dissected by rocev2.* 0 failures"
check ulp-malformed 0 "3 before the plugin, 3 in RoCEv2 frames"
check roce-malformed 1 "frame 1: \[Malformed Packet: RoCEv2\]"
check bug 1 "Dissector bug, protocol RoCEv2"
check bug-in-regression 1 "FAIL: regression known.pcap -2"
check sanitizer 1 "runtime error: shift exponent"
check abort 1 "died on signal 6"
check exit 1 "tshark exited 2"
check hang 1 "ran longer than 2 s"
check no-plugin 1 "no frame was dissected by rocev2"
check v1-sample 0 "10 unmutated frames (the baseline); 3 tshark runs (1 regression captures), 25 mutated frames, 15 dissected by rocev2.* 0 failures" "$work/caps2"
check no-ladder 1 "printed no arrow for the 10 frames with a BTH" "$work/caps2"
check ladder-40 0 "1 complaints of GLib about ladders of 40 nodes or more (Wireshark's text ladder);.* 0 failures" "$work/caps2"
check ladder-2 1 "g_string_erase" "$work/caps2"
check short 1 "tshark showed 9 frames of the 10 in the file"
check ws-bug 0 "1 runs read again after Wireshark's own dissector bug in frames rocev2 never dissected; 0 failures"
check ws-bug-in-ours 1 "failed assertion"
[ $fails -eq 0 ] && echo "fuzz_selftest: all passed"
exit $fails
