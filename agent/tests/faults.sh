#!/usr/bin/env bash
# Every fault profile of the soft DUT breaks exactly the rule it claims.
# The conformance cases that name a profile as a mutant show it failing
# (tester_mutation runs them; a mutant marked informative is reported,
# not failed); the two profiles no case can report (a "should" and an
# informative rule) are detected by dutpeer's smoke scenarios. Here, each profile in a fresh agent and fresh namespaces:
# - a profile dutpeer detects: its detecting scenarios fail, its sanity
#   scenario passes;
# - any other: it is named by some case (else the test fails), and its
#   sanity scenario passes in the set-up those cases need (a VLAN, a
#   dual-mode port, congestion management). A profile that rewrites what
#   the DUT sends may leave format violations behind; no other may.
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
mapfile -t detected < <("$peer" --faults)
# The transmit rewrites, from the agent's own table.
mapfile -t rewrites < <("$agent" --list-faults --markdown | awk -F' *\\| *' '$4 == "transmit rewrite" { gsub(/`/, "", $2); print $2 }')
# path<TAB>case<TAB>profile<TAB>requires, one line per case and mutant
mutants=
if [ -n "$tester" ]; then
  mutants=$("$tester" run --list-mutants "$cases") || { echo "FAIL: the cases do not parse"; exit 1; }
fi
in_list() { printf '%s\n' "${@:2}" | grep -x -- "$1" >/dev/null; }
bad=()
for f in "${profiles[@]}"; do
  args=(--agent-arg --fault --agent-arg "$f")
  peer_args=(--fault "$f")
  fargs=$("$peer" --agent-args-for "$f")
  for a in $fargs; do args+=(--agent-arg "$a"); done
  if in_list "$f" "${detected[@]}"; then
    what=" (detected by dutpeer)"
  else
    rows=$(printf '%s\n' "$mutants" | awk -F'\t' -v f="$f" '$3 == f')
    if [ -z "$rows" ]; then
      echo "FAIL $f: no conformance case names this profile as a mutant, and dutpeer does not detect it"
      bad+=("$f")
      continue
    fi
    ids=$(printf '%s\n' "$rows" | cut -f2 | sort -u | paste -sd, -)
    caps=$(printf '%s\n' "$rows" | cut -f4 | tr ',' '\n' | sort -u)
    if printf '%s\n' "$caps" | grep -x ROCEV1 >/dev/null; then args+=(--agent-arg --rocev1); fi
    if printf '%s\n' "$caps" | grep -x VLAN >/dev/null; then args+=(--vlan 100); fi
    if printf '%s\n' "$caps" | grep -x RCM >/dev/null && [ -z "$fargs" ]; then
      for a in $("$peer" --rcm-agent-args); do args+=(--agent-arg "$a"); done
      peer_args+=(--rcm)
    fi
    if in_list "$f" "${rewrites[@]}"; then peer_args+=(--tolerate-format); fi
    what=" (detected by $ids in tester_mutation; the sanity scenario passes)"
  fi
  out=$("$netns" --timeout 120 --agent "$agent" "${args[@]}" -- "$peer" "${peer_args[@]}" 2>&1)
  rc=$?
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
