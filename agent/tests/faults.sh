#!/usr/bin/env bash
# Every fault profile of the soft DUT breaks exactly the rule it claims:
# for each profile, run the scenarios that detect it (they must fail) and a
# sanity scenario (it must pass), each against a fresh agent in fresh
# namespaces. A profile with no detecting scenario is an error.
#   faults.sh NETNS_PAIR ROCE_AGENT DUTPEER [PROFILE...]
set -uo pipefail
netns=$1 agent=$2 peer=$3
shift 3
if [ $# -gt 0 ]; then
  profiles=("$@")
else
  mapfile -t profiles < <("$agent" --list-faults | awk '{print $1}')
fi
mapfile -t mapped < <("$peer" --faults)
bad=()
for f in "${profiles[@]}"; do
  # grep without -q reads all its input: with pipefail, grep -q leaving
  # early would fail the pipeline on printf's SIGPIPE now and then.
  if ! printf '%s\n' "${mapped[@]}" | grep -x -- "$f" >/dev/null; then
    echo "FAIL $f: no dutpeer scenario detects this profile"
    bad+=("$f")
    continue
  fi
  args=(--agent-arg --fault --agent-arg "$f")
  for a in $("$peer" --agent-args-for "$f"); do args+=(--agent-arg "$a"); done
  out=$("$netns" --timeout 120 --agent "$agent" "${args[@]}" -- "$peer" --fault "$f" 2>&1)
  rc=$?
  if [ $rc -eq 77 ]; then
    echo "$out" | tail -1
    exit 77
  fi
  if [ $rc -eq 0 ]; then
    echo "ok   $f"
  else
    echo "FAIL $f"
    echo "$out" | sed 's/^/     | /'
    bad+=("$f")
  fi
done
echo "${#profiles[@]} profiles, ${#bad[@]} not as claimed${bad[*]:+: ${bad[*]}}"
[ ${#bad[@]} -eq 0 ]
