#!/bin/sh
# The permissions docs/real-hardware.md claims, checked as an unprivileged
# user (nobody) inside namespaces created for the test (run inside
# scripts/netns-pair without its agent): roce-tester and the soft-DUT agent
# each need CAP_NET_RAW and nothing else. Without it they stop with an error
# that says so; with it as a file capability (setcap) or as an ambient
# capability (what systemd's AmbientCapabilities= gives) a case passes.
# CAP_NET_ADMIN alone is not enough.
# usage: capabilities.sh ROCE-TESTER ROCE-AGENT CASE
set -u
tester=$1 agent=$2 case=$3
IP=/usr/sbin/ip
[ -x "$IP" ] || IP=$(command -v ip)
for tool in setcap getcap setpriv; do
  command -v $tool >/dev/null || { echo "capabilities: SKIP: $tool is not installed"; exit 77; }
done
nobody=$(id -u nobody) nogroup=$(id -g nobody)
# A directory nobody can reach, on a file system that keeps file capabilities.
work=$(mktemp -d /tmp/roce-caps.XXXXXX)
apid=
cleanup() {
  [ -n "$apid" ] && kill "$apid" 2>/dev/null && wait "$apid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"
fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }
cp "$tester" "$work/roce-tester"
cp "$agent" "$work/roce-agent"
cp "$case" "$work/case.case"
head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$work/token"
chown nobody "$work/token"
chmod 600 "$work/token"
chmod 755 "$work/roce-tester" "$work/roce-agent"
chmod 644 "$work/case.case"
if ! setcap cap_net_raw+ep "$work/roce-tester" 2>"$work/err"; then
  echo "capabilities: SKIP: this file system keeps no file capabilities: $(cat "$work/err")"
  exit 77
fi
setcap -r "$work/roce-tester"
as_nobody() { setpriv --reuid="$nobody" --regid="$nogroup" --clear-groups "$@"; }
port=7473

start_agent() { # how: file|none|ambient
  rm -f "$work/agent.log"
  case $1 in
    file) setcap cap_net_raw+ep "$work/roce-agent"; set -- --inh-caps=-all ;;
    none) setcap -r "$work/roce-agent" 2>/dev/null; set -- --inh-caps=-all ;;
    ambient) setcap -r "$work/roce-agent" 2>/dev/null; set -- --inh-caps=+net_raw --ambient-caps=+net_raw ;;
  esac
  "$IP" netns exec "$ROCE_NS_DUT" sh -c "cd /; exec \"\$@\"" sh \
    setpriv --reuid="$nobody" --regid="$nogroup" --clear-groups "$@" "$work/roce-agent" \
    --listen "$ROCE_DUT_IP4:$port" --token-file "$work/token" --backend soft --iface "$ROCE_IF_DUT" \
    >"$work/agent.log" 2>&1 &
  apid=$!
  for _ in $(seq 100); do
    grep -q "listening on" "$work/agent.log" 2>/dev/null && return 0
    kill -0 "$apid" 2>/dev/null || { wait "$apid"; apid=; return 1; }
    sleep 0.05
  done
  return 1
}
stop_agent() {
  [ -n "$apid" ] && kill "$apid" 2>/dev/null && wait "$apid" 2>/dev/null
  apid=
}
tester_run() { # report-dir, setpriv capability options...
  out=$1
  shift
  mkdir -p "$work/$out"
  chown nobody "$work/$out"
  (cd / && as_nobody "$@" "$work/roce-tester" run --iface "$ROCE_IF_TESTER" --agent "$ROCE_DUT_IP4:$port" \
    --token-file "$work/token" --report-dir "$work/$out" --ip 4 -q "$work/case.case") >"$work/$out.log" 2>&1
}

# The agent.
if start_agent none; then
  bad "the agent started as nobody without CAP_NET_RAW"
  stop_agent
else
  grep -q "needs CAP_NET_RAW" "$work/agent.log" && ok "agent without CAP_NET_RAW: refuses, saying it needs CAP_NET_RAW" \
    || { bad "agent without capabilities: unclear error"; cat "$work/agent.log"; }
fi
start_agent file && ok "agent as nobody with the file capability cap_net_raw+ep" \
  || { bad "agent with cap_net_raw+ep did not start"; cat "$work/agent.log"; }

# The tester against it.
tester_run none --inh-caps=-all
rc=$?
[ $rc -eq 2 ] && grep -q "needs CAP_NET_RAW" "$work/none.log" \
  && ok "tester without capabilities: exit 2, says it needs CAP_NET_RAW" || { bad "tester without caps: exit $rc"; cat "$work/none.log"; }
setcap cap_net_admin+ep "$work/roce-tester"
tester_run admin --inh-caps=-all
rc=$?
[ $rc -eq 2 ] && ok "CAP_NET_ADMIN alone is not enough (exit 2)" || { bad "tester with cap_net_admin only: exit $rc"; cat "$work/admin.log"; }
setcap cap_net_raw+ep "$work/roce-tester"
getcap "$work/roce-tester" | grep -q "cap_net_raw=ep" || bad "getcap shows no cap_net_raw"
tester_run file --inh-caps=-all
rc=$?
[ $rc -eq 0 ] && ok "tester as nobody with cap_net_raw+ep: the case passes" || { bad "tester with cap_net_raw+ep: exit $rc"; cat "$work/file.log"; }
owner=$(stat -c %U "$work/file/results.json" 2>/dev/null)
[ "$owner" = nobody ] && [ -s "$work/file/report.html" ] && ok "reports written by nobody" || bad "reports owned by '$owner'"
stop_agent

# Ambient capabilities, as systemd's AmbientCapabilities=CAP_NET_RAW sets them, on plain binaries.
start_agent ambient && ok "agent as nobody with the ambient capability CAP_NET_RAW" \
  || { bad "agent with ambient CAP_NET_RAW did not start"; cat "$work/agent.log"; }
setcap -r "$work/roce-tester"
tester_run ambient --inh-caps=+net_raw --ambient-caps=+net_raw
rc=$?
[ $rc -eq 0 ] && ok "tester as nobody with the ambient capability CAP_NET_RAW: the case passes" \
  || { bad "tester with ambient CAP_NET_RAW: exit $rc"; cat "$work/ambient.log"; }
stop_agent
[ $fails -eq 0 ] && echo "capabilities: all passed"
exit $fails
