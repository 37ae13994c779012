#!/usr/bin/env bash
# The pair's control channel (guest-run over each guest's second serial
# port), run by run-pair inside its namespace:
#   - a command runs in each guest and its output and status come back;
#   - a request whose line arrives cut short (bytes before it with no
#     newline) is not lost: guest-run sends it again after 20 s;
#   - a request that reaches the guest twice runs once, and the second
#     copy is acknowledged again.
# usage: run-pair -- pair_control.sh   (or directly with run-pair's environment)
set -u
gr=${ROCE_RXE_GUEST_RUN:?run under run-pair}
failed=0
fail() { echo "FAIL: $*"; failed=1; }
pass() { echo "ok: $*"; }

for g in a b; do
  out=$("$gr" "$g" "echo hello from $g; exit 3")
  st=$?
  if [ $st -eq 3 ] && [[ $out == "hello from $g" ]]; then pass "guest $g: output and exit status"; else fail "guest $g: status $st, output '$out'"; fi
done

# A line cut short: bytes with no newline, then a request. The guest reads
# one garbled line and ignores it; guest-run sends the request again.
ctl=${ROCE_RXE_A_CTL:?}
timeout 5 sh -c 'printf "xx" >"$1"' sh "$ctl/ctl.in"
t0=$(date +%s)
out=$("$gr" a 'echo recovered' 2>"$ctl/.resend.err")
st=$?
took=$(($(date +%s) - t0))
if [ $st -eq 0 ] && [ "$out" = recovered ] && grep -q "sending it again" "$ctl/.resend.err"; then
  pass "a request behind a line cut short was sent again and ran ($took s)"
else
  fail "after a line cut short: status $st, output '$out', guest-run said '$(cat "$ctl/.resend.err")'"
fi
rm -f "$ctl/.resend.err"

# The same request twice: it runs once, and each copy is acknowledged.
id=dup$$
echo 60 >"$ctl/req.$id" # what guest-run --start leaves for --wait
line="run $id 60 echo ran >>/tmp/dup.count; sleep 1; wc -l </tmp/dup.count"
timeout 5 sh -c 'printf "%s\n%s\n" "$2" "$2" >"$1"' sh "$ctl/ctl.in" "$line"
out=$("$gr" --wait "$id" a)
st=$?
acks=0
for _ in $(seq 100); do
  acks=$(tr -d '\r' <"$ctl/ctl.log" | grep -cx "rxe-vm: STARTED $id")
  [ "$acks" -lt 2 ] || break
  sleep 0.1
done
if [ $st -eq 0 ] && [ "$(echo "$out" | tr -d ' ')" = 1 ] && [ "$acks" -eq 2 ]; then
  pass "a request received twice ran once and was acknowledged twice"
else
  fail "a request received twice: status $st, count '$out', $acks acknowledgements"
fi
exit $failed
