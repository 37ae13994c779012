#!/bin/sh
# The plugin really loads into tshark (run unprivileged), registers the
# rocev2 protocol, and has a field for every libroce field from RoCE v1's
# GRH on (the list roce-catalogue prints from the same descriptors; the IP
# and UDP layers are Wireshark's own), plus the version, ICRC, rule and
# analysis fields.
# usage: check_loaded.sh TSHARK-WRAPPER PLUGIN-DIR ROCE-CATALOGUE
set -eu
tshark=$1 dir=$2 catalogue=$3
fail=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

if [ -n "${ROCEV2_TSHARK_PRELOAD:-}" ]; then
  # Debian's tshark deadlocks at exit after -G plugins when the ASan
  # runtime is preloaded (with or without this plugin); the fields below
  # exist only if the plugin loaded.
  echo "sanitizer build: -G plugins skipped (tshark hangs at exit under a preloaded ASan)"
else
  "$tshark" "$dir" -G plugins >"$out"
  if grep -q '^rocev2\.so' "$out"; then
    echo "loaded: $(grep '^rocev2\.so' "$out" | tr -s '\t' ' ')"
  else
    echo "FAIL: tshark -G plugins does not list rocev2.so"; cat "$out"; fail=1
  fi
fi
"$tshark" "$dir" -G protocols | grep -q "	rocev2$" || { echo "FAIL: no protocol rocev2"; fail=1; }

"$tshark" "$dir" -G fields | awk -F'\t' '$1 == "F" { print $3 }' >"$out"
n=0
for f in $("$catalogue" fields | grep -Ev '^(ipv4|ipv6|udp)\.'); do
  n=$((n + 1))
  # the CNP's reserved bytes are the "cnp" header in filters
  grep -qx "rocev2.$f" "$out" || { echo "FAIL: no field rocev2.$f"; fail=1; }
done
for f in rocev2.version rocev2.icrc rocev2.icrc.status rocev2.icrc.computed rocev2.icrc.diagnosis rocev2.rule \
         rocev2.finding rocev2.payload rocev2.pad rocev2.request_in rocev2.response_in \
         rocev2.response_time rocev2.mad.attr_id rocev2.cm.req.local_qpn rocev2.cm.rep.start_psn \
         rocev2.ipcm.src rocev2.analysis.expected_psn; do
  n=$((n + 1))
  grep -qx "$f" "$out" || { echo "FAIL: no field $f"; fail=1; }
done
echo "$n fields checked"
[ $n -gt 50 ] || { echo "FAIL: too few fields checked ($n)"; fail=1; }
if [ $fail = 0 ]; then echo "$n passed, 0 failed"; fi
exit $fail
