#!/usr/bin/env bash
# scripts/netns-pair tears everything down (namespaces, the agent) when the
# command fails, and when the harness itself is interrupted; and it passes
# the command's status through.
#   harness_test.sh NETNS_PAIR ROCE_AGENT
set -uo pipefail
netns=$1 agent=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
gone() { # ns agent-pid
  if ip netns list | grep -qw "$1"; then echo "FAIL: namespace $1 left behind"; fail=1; fi
  if [ -n "$2" ] && kill -0 "$2" 2>/dev/null; then echo "FAIL: agent $2 still running"; fail=1; fi
}

# 1. A failing command: its status comes back, nothing is left.
"$netns" --agent "$agent" -- sh -c 'echo "$ROCE_NS_DUT $(pgrep -f -n -- "--iface $ROCE_IF_DUT")" > '"$work"'/info; ip -o link show "$ROCE_IF_TESTER" >/dev/null && exit 3'
rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -eq 3 ] || { echo "FAIL: status $rc, expected the command's 3"; fail=1; }
read -r ns pid < "$work/info"
gone "$ns" "$pid"

# 2. The harness is interrupted while the command runs.
"$netns" --agent "$agent" -- sh -c 'echo "$ROCE_NS_DUT $(pgrep -f -n -- "--iface $ROCE_IF_DUT")" > '"$work"'/info2; sleep 30' &
hp=$!
for _ in $(seq 100); do [ -s "$work/info2" ] && break; sleep 0.05; done
kill -TERM "$hp"
wait "$hp"
rc=$?
[ $rc -ne 0 ] || { echo "FAIL: an interrupted run reported success"; fail=1; }
read -r ns pid < "$work/info2"
sleep 0.2
gone "$ns" "$pid"

# 3. The namespaces have no route out.
"$netns" -- sh -c 'ip route get 192.0.2.1 >/dev/null 2>&1 && exit 1; ip -6 route get 2001:4860::1 >/dev/null 2>&1 && exit 1; exit 0' \
  || { echo "FAIL: the tester namespace has a route out"; fail=1; }

[ $fail -eq 0 ] && echo "netns-pair: clean teardown on failure and on interruption, no route out"
exit $fail
