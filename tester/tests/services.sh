#!/bin/sh
# The case language's memory windows, SEND with Invalidate, FLUSH and
# ATOMIC WRITE end to end against the soft DUT (tests/services/): every
# case passes against the fault-free DUT (the one for a DUT without FLUSH
# is not applicable there), and each soft-DUT fault profile of those rules
# makes the cases that test its rule fail, so that each statement can see
# what it is for.
# usage: services.sh NETNS-PAIR ROCE-AGENT ROCE-TESTER SERVICES-DIR
set -u
netns=$1 agent=$2 t=$3 dir=$4
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { # report-dir fault-or-empty cases...
  rd=$1 fault=$2
  shift 2
  if [ -n "$fault" ]; then
    set -- --agent-arg --fault --agent-arg "$fault" -- "$@"
  else
    set -- -- "$@"
  fi
  "$netns" --agent "$agent" --mtu 9000 --timeout 120 "$@" >"$out/$rd.log" 2>&1
}
runtester='"$0" run --iface "$ROCE_IF_TESTER" --agent "$ROCE_AGENT" --token-file "$ROCE_TOKEN_FILE" --report-dir "$1" "$2"'
run plain "" sh -c "$runtester" "$t" "$out/plain" "$dir"
rc=$?
[ $rc -eq 77 ] && { tail -1 "$out/plain.log"; exit 77; }
# fault profile, the rule it breaks, then the cases that must fail it (a
# rule marked /informative is a should: the cases report it, informative).
while read -r fault rule cases; do
  [ -z "$fault" ] && continue
  for c in $cases; do
    rd="$fault=$(printf %s "$rule" | tr / +)=$c"
    run "$rd" "$fault" sh -c "$runtester" "$t" "$out/$rd" "$dir/$c.case"
  done
done <<'FAULTS'
mw-unbound-accepted IBA10.6.7-MW-INVALID mw1
mw-invalidated-accepted IBA10.6.7-MW-INVALID mw2 localinv
send-inv-wrong-key IBA10.6.7-SEND-INV mw2
send-inv-wc-no-flag IBA10.6.7-SEND-INV-WC mw2
mw-rebind-allowed IBA10.6.7-MW-REBIND mw2
mw-rebind-flushed IBA10.6.7-MW-REBIND mw2
mw-type1-any-pd IBA10.6.7-MW-TYPE1-PD mw-pd
mw-zero-based-as-va IBA10.6.7-MW-ZERO-BASED mw-pd
mw-bind-foreign-pd IBA10.6.7-BIND-PD mw-pd
mw-type2-any-qp IBA10.6.7-MW-TYPE2-QP mw-more
mw-region-bounds IBA10.6.7-MW-BOUNDS mw-more
flush-refused IBA1.5-FLUSH-RESP placement-inj
atomic-write-torn IBA1.5-ATOMIC-WRITE placement-inj placement-dut
atomic-write-unaligned IBA1.5-ATOMIC-WRITE placement-inj
flush-no-rights IBA1.5-FLUSH-ACCESS placement-more
flush-early IBA1.5-FLUSH-ORDER placement-more
atomic-write-no-rights IBA1.5-ATOMIC-WRITE-ACCESS placement-more
placement-unsupported-acked IBA1.5-PLACEMENT-UNSUPPORTED/informative unsupported
FAULTS
/usr/bin/python3 - "$out" "$dir" <<'PY'
import glob, json, os, sys
out, d = sys.argv[1], sys.argv[2]
fails = 0
def check(cond, what):
    global fails
    print(("ok: " if cond else "FAIL: ") + what)
    fails += not cond
def results(rd):
    p = os.path.join(out, rd, "results.json")
    if not os.path.exists(p):
        print(open(os.path.join(out, rd + ".log")).read()[-2000:])
        return []
    return json.load(open(p))["cases"]
plain = results("plain")
ids = set()
for c in plain:
    ids.add(c["id"])
    want = "not_applicable" if c["id"] == "SVC-PL-004" else "pass"
    check(c["verdict"] == want, "%s IPv%d: %s (%s)" % (c["id"], c["ip_version"], c["verdict"], c.get("reason", "")))
check(len(ids) == len(glob.glob(os.path.join(d, "*.case"))), "every case ran (%d)" % len(ids))
for rd in sorted(os.listdir(out)):
    if rd == "plain" or not os.path.isdir(os.path.join(out, rd)):
        continue
    fault, rule, case = rd.split("=")
    rule, _, informative = rule.partition("+")
    rs = results(rd)
    if informative:
        ok = rs and all(c["verdict"] == "informative" and any(f["rule"] == rule for f in c["findings"]) for c in rs)
    else:
        ok = rs and all(c["verdict"] == "fail" and rule in c["failed_rules"] for c in rs)
    check(ok, "%s %s %s in %s: %s" % (fault, "is reported under" if informative else "fails", rule, case,
                                     ", ".join("%s IPv%d %s %s" % (c["id"], c["ip_version"], c["verdict"], c["failed_rules"])
                                               for c in rs) or "no results"))
sys.exit(1 if fails else 0)
PY
