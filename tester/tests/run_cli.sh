#!/bin/sh
# roce-tester run without a DUT: help, listing, parsing, filters, the
# located parse errors, and the usage errors users script against.
# usage: run_cli.sh ROCE-TESTER CASES-DIR
set -u
t=$1
cases=$2
. "$(dirname "$0")/../../tests/lib/check.sh"

expect "help" 0 "$t" run --help
contains "help names the exit codes" "130 interrupted"
expect "check the suite" 0 "$t" run --check "$cases"
contains "check counts" "case(s) parsed without errors"
expect "list" 0 "$t" run --list "$cases"
contains "list shows an ID" "RC-RESP-PSN-SEQERR-001"
expect "filter by ID glob" 0 "$t" run --list --filter 'ENCAP-*' "$cases"
contains "filter keeps" "ENCAP-TVER-DROP-001"
lacks "filter drops" "RC-REQ-GBN-001"
expect "filter by rule" 0 "$t" run --list --filter IBA9.7-GBN "$cases"
contains "rule filter keeps" "RC-REQ-GBN-001"
lacks "rule filter drops" "UD-SEND-001"
expect "mutants" 0 "$t" run --list-mutants "$cases"
contains "mutant line" "go-back-0"

printf 'case BAD-1\ntitle "t"\nrules CA17-24\n\ndut qp q\nexpect q RDMA_READ_REQUEST psn=$q.nope\n' >"$tmp/bad.case"
expect "broken case: exit 2" 2 "$t" run --check "$tmp/bad.case"
contains "located error" "bad.case:6:32: q has no member 'nope'; expected one of"
printf 'case DUP\ntitle "t"\nrules CA17-24\nwait 1ms\n' >"$tmp/a.case"
cp "$tmp/a.case" "$tmp/b.case"
expect "duplicate IDs: exit 2" 2 "$t" run --check "$tmp/a.case" "$tmp/b.case"
contains "duplicate ID message" "case ID DUP is already used by"
expect "no cases" 2 "$t" run
expect "missing file" 2 "$t" run --check "$tmp/none.case"
contains "names the missing file" "none.case"
expect "needs iface and agent" 2 "$t" run "$tmp/a.case"
contains "says what is missing" "--iface and --agent are required"
expect "bad --ip" 2 "$t" run --ip 5 "$tmp/a.case"
expect "bad --vlan" 2 "$t" run --vlan 5000 "$tmp/a.case"
expect "bad interface" 2 "$t" run --iface nosuchif0 --agent 127.0.0.1:1 --report-dir "$tmp/r" "$tmp/a.case"
contains "names the interface" "nosuchif0"

# roce-tester coverage: generated from the parsed cases.
mkdir -p "$tmp/cov/sub"
printf 'case COV-A\ntitle "a"\nrules CA17-4 ipv4, CA17-13 ipv6, CA17-24\nmutants wrong-dscp\ndut qp q\ninject q SEND_ONLY\n' >"$tmp/cov/a.case"
printf 'case COV-B\ntitle "b"\nrules CA17-24\nip 6\ndut mr m\ndut qp q\ndut post_send q SEND m\n' >"$tmp/cov/sub/b.case"
printf 'case COV-C\ntitle "c"\nrules CA17-30\ndut port -> link_layer=ETHERNET\n' >"$tmp/cov/c.case"
expect "coverage help" 0 "$t" coverage --help
expect "coverage without cases" 2 "$t" coverage
expect "coverage" 0 "$t" coverage "$tmp/cov"
contains "coverage: a rule with both cases, IP versions and roles" "| CA17-24 | Packets that break the IP, UDP or ICRC rules are silently dropped | [COV-A]($tmp/cov/a.case), [COV-B]($tmp/cov/sub/b.case) | 4, 6 | responder, requester |"
contains "coverage: a rule judged on IPv4 only" "| CA17-4 | IPv4 DSCP comes from the address vector's Traffic Class | [COV-A]($tmp/cov/a.case) | 4 | responder |"
contains "coverage: IPv6 only, as requester" "| [COV-B]($tmp/cov/sub/b.case) | CA17-24 | 6 | requester | **none** |"
contains "coverage: uncovered rules flagged" "| CA17-1 | A RoCEv2 port supports both IPv4 and IPv6 encapsulation | **no case** | - | - |"
contains "coverage: a rule judged through the verbs alone" "| CA17-30 | The verbs follow the annex's amendments | [COV-C]($tmp/cov/c.case) | 4, 6 | device |"
contains "coverage: every rule testable" "| Not testable | 0 |"
contains "coverage: counts" "| ... tested by at least one case | 4 |"
printf '# why\nCA17-1: not yet\n' >"$tmp/why.txt"
expect "coverage with reasons" 0 "$t" coverage --uncovered "$tmp/why.txt" "$tmp/cov"
contains "coverage: the reason of an uncovered rule" "- **CA17-1** (A17.3.1; notes §1.1): A RoCEv2 port supports both IPv4 and IPv6 encapsulation. *not yet*"
contains "coverage: no reason recorded" "- **CA17-2** (A17.3 Figure 5; notes §1.1): Packet layout is Ethernet, IP, UDP, BTH, extension headers, payload, ICRC. *No reason recorded.*"
printf 'CA17-24: covered after all\n' >"$tmp/why.txt"
expect "coverage: a reason for a covered rule is an error" 2 "$t" coverage --uncovered "$tmp/why.txt" "$tmp/cov"
contains "coverage: says the rule has a case" "CA17-24 has a case now"
printf 'CA17-99: no such rule\nnonsense\n' >"$tmp/why.txt"
expect "coverage: a bad reasons file" 2 "$t" coverage --uncovered "$tmp/why.txt" "$tmp/cov"
contains "coverage: unknown rule located" "why.txt:1: 'CA17-99' is not in the rule catalogue"
contains "coverage: malformed line located" "why.txt:2: expected 'RULE-ID: why no case tests it'"
cp "$tmp/bad.case" "$tmp/cov/"
expect "coverage of a broken case: exit 2" 2 "$t" coverage "$tmp/cov"
contains "coverage names the broken file" "bad.case:6:32:"

[ $fails = 0 ] && echo "run_cli: all passed"
exit $fails
