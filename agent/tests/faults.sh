#!/usr/bin/env bash
# Every fault profile of the soft DUT breaks exactly the rule it claims:
# for each profile, run the scenarios that detect it (they must fail) and a
# sanity scenario (it must pass), each against a fresh agent in fresh
# namespaces. A profile that no dutpeer scenario detects must be the
# mutant of conformance cases (tester_mutation shows that they fail under
# it, or, for a mutant marked informative, report it without failing); here
# its sanity scenario must still pass, in the set-up those cases
# need (a VLAN, a dual-mode port). A profile detected by neither is an
# error.
#   faults.sh NETNS_PAIR ROCE_AGENT DUTPEER [--cases ROCE_TESTER CASES_DIR] [PROFILE...]
set -uo pipefail
netns=$1 agent=$2 peer=$3
shift 3
tester= cases=
if [ "${1:-}" = --cases ]; then
  tester=$2 cases=$3
  shift 3
fi
if [ $# -gt 0 ]; then
  profiles=("$@")
else
  mapfile -t profiles < <("$agent" --list-faults | awk '{print $1}')
fi
mapfile -t mapped < <("$peer" --faults)
# path<TAB>case<TAB>profile<TAB>requires, one line per case and mutant
mutants=
if [ -n "$tester" ]; then
  mutants=$("$tester" run --list-mutants "$cases") || { echo "FAIL: the cases do not parse"; exit 1; }
fi
bad=()
for f in "${profiles[@]}"; do
  # grep without -q reads all its input: with pipefail, grep -q leaving
  # early would fail the pipeline on printf's SIGPIPE now and then.
  if printf '%s\n' "${mapped[@]}" | grep -x -- "$f" >/dev/null; then
    args=(--agent-arg --fault --agent-arg "$f")
    for a in $("$peer" --agent-args-for "$f"); do args+=(--agent-arg "$a"); done
    out=$("$netns" --timeout 120 --agent "$agent" "${args[@]}" -- "$peer" --fault "$f" 2>&1)
    rc=$?
    what=
  else
    rows=$(printf '%s\n' "$mutants" | awk -F'\t' -v f="$f" '$3 == f')
    if [ -z "$rows" ]; then
      echo "FAIL $f: no dutpeer scenario detects this profile, and no conformance case names it as a mutant"
      bad+=("$f")
      continue
    fi
    ids=$(printf '%s\n' "$rows" | cut -f2 | sort -u | paste -sd, -)
    caps=$(printf '%s\n' "$rows" | cut -f4 | tr ',' '\n' | sort -u)
    args=(--agent-arg --fault --agent-arg "$f")
    if printf '%s\n' "$caps" | grep -x ROCEV1 >/dev/null; then args+=(--agent-arg --rocev1); fi
    if printf '%s\n' "$caps" | grep -x VLAN >/dev/null; then args+=(--vlan 100); fi
    out=$("$netns" --timeout 120 --agent "$agent" "${args[@]}" -- "$peer" --only send-only 2>&1)
    rc=$?
    what=" (detected by $ids in tester_mutation; the sanity scenario passes)"
  fi
  if [ $rc -eq 77 ]; then
    echo "$out" | tail -1
    exit 77
  fi
  if [ $rc -eq 0 ]; then
    echo "ok   $f$what"
  else
    echo "FAIL $f"
    echo "$out" | sed 's/^/     | /'
    bad+=("$f")
  fi
done
echo "${#profiles[@]} profiles, ${#bad[@]} not as claimed${bad[*]:+: ${bad[*]}}"
[ ${#bad[@]} -eq 0 ]
