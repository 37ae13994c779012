#!/bin/sh
# roce-tester fuzz against the soft DUT, each run in namespaces of its own
# (scripts/netns-pair) and bounded in time:
#  - the clean soft DUT: a short seeded run prints the one summary line,
#    finds nothing and exits 0;
#  - the same seed again generates the same requests, batch by batch
#    (--log-requests), however far each run got;
#  - the soft DUT with a fault profile (atomic-write-len-unchecked: wrong
#    acceptance; leak-read-past-end, leak-write-stale-tail: a leak;
#    wedge-bad-icrc, wedge-reserved-opcode: a hang): the
#    fuzzer finds it under the profile's rule (the probe's C9-105 for the
#    hang), exits 1, writes the finding in results.json and as a case file,
#    which `roce-tester run` fails against that DUT and passes against the
#    clean one;
#  - a bug only the DUT's console shows (warn-write-zero-dmalen): found
#    through --console-log, reduced with the console as the oracle.
# usage: fuzz.sh NETNS-PAIR ROCE-TESTER ROCE-AGENT
set -u
netns=$1 tester=$2 agent=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }

# fuzz OUT [AGENT-ARGS...] -- [FUZZ-ARGS...]: exit status in $rc, output in OUT.log
fuzz() {
  out=$1
  shift
  set -- "$@"
  aa=""
  while [ "$1" != -- ]; do aa="$aa --agent-arg $1"; shift; done
  shift
  # shellcheck disable=SC2086
  "$netns" --mtu 9000 --agent "$agent" $aa --timeout 200 -- sh -c 'exec "$0" fuzz --iface "$ROCE_IF_TESTER" \
    --agent "$ROCE_AGENT" --token-file "$ROCE_TOKEN_FILE" "$@"' "$tester" -o "$out" "$@" >"$out.log" 2>&1
  rc=$?
}
# run CASE [AGENT-ARGS...]: roce-tester run of one case file; exit status in
# $rc, output in $work/run-$p.log ($p: the profile being checked, so that
# profiles checked at once keep their files apart)
run() {
  case_file=$1
  shift
  aa=""
  for a in "$@"; do aa="$aa --agent-arg $a"; done
  # shellcheck disable=SC2086
  "$netns" --mtu 9000 --agent "$agent" $aa --timeout 120 -- sh -c 'exec "$0" run --iface "$ROCE_IF_TESTER" \
    --agent "$ROCE_AGENT" --token-file "$ROCE_TOKEN_FILE" "$@"' "$tester" --report-dir "$work/run-$p" "$case_file" \
    >"$work/run-$p.log" 2>&1
  rc=$?
}
field() { # results.json python-expression
  /usr/bin/python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
f = r["fuzz"]
print(eval(sys.argv[2]))' "$1" "$2"
}

# 1. The clean soft DUT.
fuzz "$work/clean" -- --seed 7 --duration 15 --log-requests "$work/clean.req"
[ $rc -eq 77 ] && { cat "$work/clean.log"; exit 77; }
line=$(grep '^fuzz: [0-9]* requests in' "$work/clean.log")
if [ $rc -eq 0 ] && echo "$line" | grep -Eq '^fuzz: [0-9]+ requests in [0-9.]+ s \([0-9]+/s\), 0 findings$'; then
  ok "clean soft DUT, seed 7, 15 s: $line"
else
  bad "clean soft DUT: exit $rc, '$line'"
  cat "$work/clean.log"
fi
[ "$(grep -c '^fuzz: [0-9]* requests in' "$work/clean.log")" = 1 ] && ok "one summary line" || bad "not one summary line"
n=$(field "$work/clean/results.json" 'f["requests"] > 500 and len(f["findings"]) == 0 and f["seed"] == "0x7"')
[ "$n" = True ] && ok "results.json: its fuzz record ($(field "$work/clean/results.json" 'f["requests_per_s"]') requests/s)" \
  || bad "results.json fuzz record: $n"
# What replays did not confirm is no finding, but against the clean DUT it
# is the model taking an answer or a placement for the wrong request (a
# late answer, an earlier batch's frame): a few at most, whatever the load.
u=$(field "$work/clean/results.json" 'len(f.get("unconfirmed") or [])')
[ "$u" -le 3 ] && ok "clean soft DUT: $u unconfirmed observation(s)" \
  || { bad "clean soft DUT: $u unconfirmed observations"; field "$work/clean/results.json" '"\n".join(f["unconfirmed"])'; }

# 2. The same seed, the same requests (the batches both runs reached).
fuzz "$work/again" -- --seed 7 --duration 4 --no-replay --log-requests "$work/again.req"
b=$(tail -1 "$work/again.req" | awk '{print $2}')
if [ -n "$b" ] && [ "$b" -gt 1 ]; then
  grep -E "^batch ([0-9]+) " "$work/clean.req" | awk -v b="$b" '$2 < b' >"$work/a"
  awk -v b="$b" '$2 < b' "$work/again.req" >"$work/b"
  if [ -s "$work/a" ] && cmp -s "$work/a" "$work/b"; then
    ok "seed 7 twice: the same $(wc -l <"$work/a") requests in the first $((b - 1)) batches"
  else
    bad "seed 7 twice: the requests differ"
    diff "$work/a" "$work/b" | head -5
  fi
else
  bad "the second run logged no batch ($b)"
fi
fuzz "$work/other" -- --seed 8 --duration 2 --no-replay --log-requests "$work/other.req"
head -20 "$work/other.req" | cut -d: -f2- >"$work/o8"
head -20 "$work/clean.req" | cut -d: -f2- >"$work/o7"
cmp -s "$work/o7" "$work/o8" && bad "seeds 7 and 8 give the same requests" || ok "seed 8 gives other requests"

# 3. Fault profiles, each in a fresh soft DUT: the fuzzer finds it (the
# oracle and rule it names), exits 1, and its reduced case file fails
# under `roce-tester run` against that DUT and passes against the clean one.
# RULE may name alternatives, RULE=WHY|RULE=WHY: the rule is the one the
# request the finding shows breaks, and its summary says why (a READ past
# a window's bound breaks the window's rule, one past a region's end the
# region's).
profile() { # PROFILE SEED KIND RULE
  p=$1 seed=$2 kind=$3 rule=$4
  fuzz "$work/$p" --fault "$p" -- --seed "$seed" --duration 60 --max-findings 1 --reduce-time 30
  line=$(grep '^fuzz: [0-9]* requests in' "$work/$p.log")
  [ $rc -eq 1 ] && echo "$line" | grep -q ', 1 findings$' && ok "$p: exit 1, $line" \
    || { bad "$p: exit $rc, '$line'"; cat "$work/$p.log"; return; }
  got=$(field "$work/$p/results.json" 'f["findings"][0]["kind"] + " " + f["findings"][0]["rule"]')
  summary=$(field "$work/$p/results.json" 'f["findings"][0]["summary"]')
  matched=""
  rest=$rule
  while [ -n "$rest" ]; do
    alt=${rest%%|*}
    [ "$alt" = "$rest" ] && rest="" || rest=${rest#*|}
    r=${alt%%=*} why=""
    [ "$r" != "$alt" ] && why=${alt#*=}
    [ "$got" = "$kind $r" ] && { [ -z "$why" ] || echo "$summary" | grep -qF "$why"; } && matched=$r
  done
  [ -n "$matched" ] && ok "$p: the finding is $got: $summary" \
    || bad "$p: the finding is '$got' ($summary), expected '$kind $rule'"
  v=$(field "$work/$p/results.json" 'f["findings"][0].get("case_verdict", "-")')
  [ "$v" = fail ] && ok "$p: its case, run by fuzz itself: fail" || bad "$p: its case, run by fuzz itself: $v"
  case_file=$(ls "$work/$p"/cases/*.case 2>/dev/null | head -1)
  [ -n "$case_file" ] || { bad "$p: no case file"; return; }
  ok "$p: case file $(basename "$case_file"), $(grep -c '^inject' "$case_file") injected packet(s)"
  run "$case_file" --fault "$p"
  [ $rc -eq 1 ] && ok "$p: roce-tester run of it against that DUT fails (exit 1)" \
    || { bad "$p: roce-tester run against the faulty DUT: exit $rc"; cat "$work/run-$p.log"; }
  run "$case_file"
  [ $rc -eq 0 ] && ok "$p: roce-tester run of it against the clean soft DUT passes" \
    || { bad "$p: roce-tester run against the clean DUT: exit $rc"; cat "$work/run-$p.log"; cat "$case_file"; }
}
# Each profile with what the fuzzer must find under it.
check() { # PROFILE
  case $1 in
    # An ATOMIC WRITE of other than 8 bytes is executed.
    atomic-write-len-unchecked) profile "$1" 1 acceptance IBA1.5-ATOMIC-WRITE-LEN ;;
    # A READ running past a region's end is answered with the bytes beyond.
    leak-read-past-end) profile "$1" 1 leak 'IBA9.7-ACCESS=outside region|IBA10.6.7-MW-BOUNDS=outside window' ;;
    # A wrong ICRC stops its QP from answering anything more.
    wedge-bad-icrc) profile "$1" 1 hang C9-105 ;;
    # So does an opcode RoCEv2 does not define.
    wedge-reserved-opcode) profile "$1" 1 hang C9-105 ;;
    # A WRITE's last 8 bytes placed from a stale buffer: bytes not carried.
    leak-write-stale-tail) profile "$1" 1 leak CA17-25 ;;
  esac
}
# Two profiles at a time, each in its own namespaces and files (the test
# runs alone on a 2-core machine); each one's lines are printed in order.
both() { # PROFILE PROFILE
  for x in "$1" "$2"; do
    (fails=0; check "$x"; echo $fails >"$work/$x.fails") >"$work/$x.out" 2>&1 &
  done
  wait
  for x in "$1" "$2"; do
    cat "$work/$x.out"
    fails=$((fails + $(cat "$work/$x.fails" 2>/dev/null || echo 1)))
  done
}
both atomic-write-len-unchecked leak-read-past-end
both wedge-bad-icrc wedge-reserved-opcode
check leak-write-stale-tail

# 4. A bug the wire does not show, only the DUT's kernel console
# (warn-write-zero-dmalen: rxe 6.12's and 7.2's WARNING for F1): watched
# through --console-log (here the agent's standard error), the line is a
# finding; replays of each QP's requests with the console as the oracle
# find the QP and reduce it to the one WRITE of DMA length 0 that carries
# a payload, and running its case makes the DUT print the warning again.
p=warn-write-zero-dmalen
"$netns" --mtu 9000 --agent "$agent" --agent-arg --fault --agent-arg $p --timeout 200 -- sh -c 'exec "$0" fuzz \
  --iface "$ROCE_IF_TESTER" --agent "$ROCE_AGENT" --token-file "$ROCE_TOKEN_FILE" --console-log "$ROCE_AGENT_LOG" "$@"' \
  "$tester" -o "$work/$p" --seed 1 --duration 60 --max-findings 1 --reduce-time 30 >"$work/$p.log" 2>&1
rc=$?
line=$(grep '^fuzz: [0-9]* requests in' "$work/$p.log")
[ $rc -eq 1 ] && echo "$line" | grep -q ', 1 findings$' && ok "$p: exit 1, $line" || { bad "$p: exit $rc, '$line'"; cat "$work/$p.log"; }
summary=$(field "$work/$p/results.json" 'f["findings"][0]["kind"] + ": " + f["findings"][0]["summary"]')
case $summary in
  "hang: the DUT's kernel logged \""*"WARNING:"*"soft_mr_copy+0x"*) ok "$p: the finding is the console's line: $summary" ;;
  *) bad "$p: the finding is '$summary'" ;;
esac
case_file=$(ls "$work/$p"/cases/*.case 2>/dev/null | head -1)
if [ -n "$case_file" ] && grep -q '^# Reduced from [0-9]* to 1 request' "$case_file" &&
   [ "$(grep -c '^inject' "$case_file")" = 1 ] && grep -q '^inject q 0x0[6a] .*reth\.dmalen=0x0 len=[1-9]' "$case_file"; then
  ok "$p: reduced to one WRITE of DMA length 0 with a payload: $(grep '^inject' "$case_file")"
else
  bad "$p: the case file is not the one WRITE"
  cat "$case_file" "$work/$p.log"
fi
"$netns" --mtu 9000 --agent "$agent" --agent-arg --fault --agent-arg $p --keep-log "$work/$p.agent.log" --timeout 120 \
  -- sh -c 'exec "$0" run --iface "$ROCE_IF_TESTER" --agent "$ROCE_AGENT" --token-file "$ROCE_TOKEN_FILE" "$@"' \
  "$tester" --report-dir "$work/run-$p" "$case_file" >"$work/run-$p.log" 2>&1
w=$(grep -c 'WARNING: .*soft_mr_copy+0x' "$work/$p.agent.log" 2>/dev/null)
[ "${w:-0}" -ge 1 ] && ok "$p: its case, run, makes the DUT print the warning again ($w line(s))" \
  || { bad "$p: its case, run, left no warning in the agent's log"; cat "$work/run-$p.log"; }

[ $fails -eq 0 ] && echo "fuzz: all checks passed" || echo "fuzz: $fails check(s) failed"
[ $fails -eq 0 ]
