#!/bin/sh
# roce-tester report without a DUT, on synthetic results (make_results.py):
# the JUnit file validates against junit.xsd with hostile text in every
# field, counts and failure types are right, the HTML escapes everything,
# rebuilding is byte-identical, broken input gets a located error (exit 2),
# and --compare finds regressions, fixes, new and removed cases with the
# documented exit status and colours only when asked.
# usage: report_cli.sh ROCE-TESTER TESTS-DIR
set -u
t=$1 dir=$2
. "$(dirname "$0")/../../tests/lib/check.sh"
py=/usr/bin/python3
for k in hostile empty variant fixed; do $py "$dir/make_results.py" $k "$tmp/$k" || exit 1; done
# The synthetic results follow the documented schema (else the tests below prove little).
$py "$dir/validate_results.py" "$dir/../../docs/results.schema.json" "$tmp"/*/results.json >"$tmp/out" 2>&1
case $? in
  0) ok "synthetic results validate against docs/results.schema.json" ;;
  77) cat "$tmp/out" ;;
  *) bad "synthetic results do not validate"; cat "$tmp/out" ;;
esac

expect "help" 0 "$t" report --help
contains "help gives the exit status" "Exit status"
expect "help through 'help report'" 0 "$t" help report
contains "same help" "--compare"

# Rebuilding: both files, valid, and identical when rebuilt.
expect "rebuild the hostile run" 0 "$t" report "$tmp/hostile"
contains "names the HTML" "$tmp/hostile/report.html"
expect "rebuild from the file itself into another directory" 0 "$t" report -q -o "$tmp/again" "$tmp/hostile/results.json"
cmp -s "$tmp/hostile/report.html" "$tmp/again/report.html" && cmp -s "$tmp/hostile/junit.xml" "$tmp/again/junit.xml" \
  && ok "rebuilding is byte-identical" || bad "rebuilt reports differ"
expect "the empty interrupted run" 0 "$t" report "$tmp/empty"
for k in hostile empty; do
  if xmllint --noout --schema "$dir/junit.xsd" "$tmp/$k/junit.xml" >"$tmp/out" 2>&1; then
    ok "$k junit.xml validates against junit.xsd"
  else
    bad "$k junit.xml does not validate"; sed 's/^/  | /' "$tmp/out"
  fi
done
$py - "$tmp/hostile" <<'PY' && ok "junit.xml: counts, failure types, evidence, skips and errors" || bad "junit.xml content"
import json, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
res = json.load(open(d + "/results.json"))
root = ET.parse(d + "/junit.xml").getroot()
cases = root.findall("testsuite/testcase")
assert len(cases) == len(res["cases"]) == int(root.get("tests")), "one testcase per case record"
v = {k: sum(c["verdict"] == k for c in res["cases"]) for k in ("fail", "error", "not_applicable")}
assert int(root.get("failures")) == v["fail"] and int(root.get("errors")) == v["error"] \
    and int(root.get("skipped")) == v["not_applicable"], root.attrib
for s in root.findall("testsuite"):
    tc = s.findall("testcase")
    assert int(s.get("tests")) == len(tc) and int(s.get("failures")) == len([c for c in tc if c.find("failure") is not None])
by_name = {c.get("name"): c for c in cases}
for c in res["cases"]:
    x = by_name["%s [IPv%d]" % (c["id"], c["ip_version"])]
    if c["verdict"] == "fail":
        f = x.find("failure")
        assert f.get("type") == " ".join(c["failed_rules"]), (f.get("type"), c["failed_rules"])
        assert all(r in f.get("message") for r in c["failed_rules"])
        for e in c["evidence"]:
            assert "expected: " in f.text and all(str(fr) in f.text for fr in e["frames"])
    elif c["verdict"] == "error":
        assert x.find("error") is not None and x.find("error").get("type") == "setup"
    elif c["verdict"] == "not_applicable":
        assert x.find("skipped").get("message") == c["reason"]
    else:
        assert x.find("failure") is None and x.find("error") is None and x.find("skipped") is None
    assert c["file"] in x.find("system-out").text
assert {s.get("name") for s in root.findall("testsuite")} == {"rc", "cases"}, "suites by directory"
# Hostile text survives, control characters do not (XML cannot hold them).
text = open(d + "/junit.xml", encoding="utf-8").read()
assert "<script>" not in text and "&lt;script&gt;" in text and "\x01" not in text and "\U0001F600" in text
PY
$py - "$tmp/hostile/report.html" <<'PY' && ok "report.html escapes hostile text" || bad "report.html escaping"
import sys
h = open(sys.argv[1], encoding="utf-8").read()
assert h.count("<script") == 1, "only the report's own script"
assert "alert('x')" not in h and "&lt;script&gt;alert(&#39;x&#39;)" in h
assert "\x01" not in h and "\x1b" not in h and "\U0001F600" in h
assert "]]>" not in h and "-->" not in h.replace("<!--", "")
PY
$py - "$tmp/hostile" <<'PY' && ok "issues: a warning once with its rule ID once; a provoked one only with its case" \
  || bad "issues and provoked findings"
import html, re, sys
d = sys.argv[1]
h = open(d + "/report.html", encoding="utf-8").read()
text = lambda s: html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", s)))
issues = h[h.index('<section id="issues">'):h.index('<section id="rules">')]
warn = text(issues[issues.index('id="issue-warnings"'):])
assert "TTL is 255" in warn, "the DUT's own warning is an issue"
assert "PROVOKED-WARNING" not in issues, "a provoked warning is not an issue"
note = issues[issues.index('id="provoked-note"'):]
assert "RC-X-003 [IPv4]" in text(note[:note.index("</p>")]), "the note names the case that holds it"
for rule in ("CA17-9", "IBA9.7-GBN"):
    assert not re.search(re.escape(rule) + r"\W+" + re.escape(rule), text(h)), "%s printed twice in a row" % rule
cases = h[h.index('<section id="cases">'):]
assert "PROVOKED-WARNING" in cases and "provoked on purpose: the answer step 3 expected" in text(cases), \
    "the provoked warning is in its case's findings, with why"
junit = open(d + "/junit.xml", encoding="utf-8").read()
assert not re.search(r"CA17-9: CA17-9|IBA9.7-GBN: IBA9.7-GBN", junit), "junit repeats a rule ID"
PY
grep -q 'id="no-issues"' "$tmp/empty/report.html" && grep -q "No case ran" "$tmp/empty/report.html" \
  && grep -q 'id="incomplete-warning"' "$tmp/empty/report.html" && ok "an empty interrupted run says so" \
  || bad "empty run report"

# Bad input: a located error and exit 2, and nothing half-written.
expect "no run" 2 "$t" report
expect "missing file" 2 "$t" report "$tmp/none"
contains "names the file" "$tmp/none: No such file or directory"
printf '{"schema": "roce-tester-results",\n "cases": [1,\n' >"$tmp/broken.json"
expect "truncated JSON" 2 "$t" report "$tmp/broken.json"
contains "says where" "broken.json:3"
echo '{"schema": "something-else", "schema_version": 1}' >"$tmp/other.json"
expect "another schema" 2 "$t" report "$tmp/other.json"
contains "names the schema" "schema is 'something-else'"
sed 's/"schema_version": 1/"schema_version": 9/' "$tmp/hostile/results.json" >"$tmp/newer.json"
expect "a newer schema version" 2 "$t" report "$tmp/newer.json"
contains "says why" "written by a newer roce-tester"
$py - "$tmp/hostile/results.json" "$tmp/noverdict.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
del r["cases"][2]["verdict"]
json.dump(r, open(sys.argv[2], "w"))
PY
expect "a case without a verdict" 2 "$t" report -o "$tmp/nv" "$tmp/noverdict.json"
contains "names the record and member" "cases[2]: member 'verdict' is missing"
[ ! -e "$tmp/nv/report.html" ] && ok "nothing written for bad input" || bad "a report was written from bad input"
expect "an unwritable output directory" 2 "$t" report -o /proc/roce-nowhere "$tmp/hostile"
contains "names it" "/proc/roce-nowhere"

# Comparing runs.
expect "same run: no regression" 0 "$t" report --compare "$tmp/hostile" "$tmp/hostile"
contains "zero regressions" "0 regression(s), 0 fix(es), 0 new, 0 removed"
expect "variant: a regression, exit 1" 1 "$t" report --compare --color never "$tmp/hostile" "$tmp/variant"
contains "the regression" "RC-X-003 [IPv6]                          pass -> fail"
contains "the fix" "RC-X-001 [IPv4]                          fail -> pass"
contains "the new case" "UD-NEW-001 [IPv4]"
contains "the removed case" "RC-X-002 [IPv4]"
contains "the summary" "1 regression(s), 1 fix(es), 1 new, 1 removed"
lacks "no colour when not a terminal" "$(printf '\033[')"
expect "reverse: the fix is now a regression" 1 "$t" report --compare "$tmp/variant" "$tmp/hostile"
contains "the reverse regression" "RC-X-001 [IPv4]                          pass -> fail"
expect "fixes only: exit 0" 0 "$t" report --compare "$tmp/hostile" "$tmp/fixed"
contains "two fixes" "0 regression(s), 2 fix(es)"
contains "rules fixed" "rules fixed (2): IBA9.7-PSN-SEQERR IBA9.7-GBN"
expect "from nothing: new cases, rules newly broken, exit 0" 0 "$t" report --compare "$tmp/empty" "$tmp/hostile"
contains "rules newly broken" "rules newly broken (3): IBA9.7-PSN-SEQERR IBA9.7-GBN CA17-22"
contains "ten new" "0 regression(s), 0 fix(es), 10 new"
expect "quiet compare" 1 "$t" report --compare -q "$tmp/hostile" "$tmp/variant"
[ "$(wc -l <"$tmp/out")" -eq 1 ] && ok "quiet prints one line" || bad "quiet printed $(wc -l <"$tmp/out") lines"
expect "verbose compare" 1 "$t" report --compare -v "$tmp/hostile" "$tmp/variant"
contains "verbose lists unchanged" "unchanged ("
expect "colour when asked" 1 "$t" report --compare --color always "$tmp/hostile" "$tmp/variant"
contains "red regressions" "$(printf '\033[1;31m')"
expect "compare -o: compare.html" 1 "$t" report --compare -o "$tmp/cmp" "$tmp/hostile" "$tmp/variant"
contains "names compare.html" "comparison: $tmp/cmp/compare.html"
$py - "$tmp/cmp/compare.html" <<'PY' && ok "compare.html: the rule changed and the values moved, charted and escaped" \
  || bad "compare.html"
import re, sys, xml.etree.ElementTree as ET
h = open(sys.argv[1]).read()
assert "<script>" not in h and "&lt;script&gt;" in h, "hostile text not escaped"
svgs = {m.group(1): ET.fromstring(m.group(2)) for m in
        re.finditer(r'<figure class="chart ([\w-]+)".*?(<svg class="chart".*?</svg>)', h, re.S)}
rows = lambda k: [t.text for t in svgs[k].iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "row"]
assert rows("compare-rules") == ["CA17-9"], rows("compare-rules")
moved = rows("compare-values")
assert len(moved) == 2 and all(r.startswith("RC-INFO-001 [IPv6] $") for r in moved), moved
assert "-50.0 %" in h and "+100.0 %" in h, "changes in percent"
PY
expect "compare -o: an unwritable directory" 2 "$t" report --compare -o /proc/roce-nowhere "$tmp/hostile" "$tmp/variant"
contains "names it" "/proc/roce-nowhere"
expect "bad --color" 2 "$t" report --compare --color sometimes "$tmp/hostile" "$tmp/variant"
expect "compare needs two runs" 2 "$t" report --compare "$tmp/hostile"
expect "compare with a broken run" 2 "$t" report --compare "$tmp/hostile" "$tmp/broken.json"
contains "names the broken one" "broken.json"

# Long text from a results file is kept whole, in the comparison and in the
# reports: a reason of 5000 characters, a case ID and a directory of 300.
$py - "$tmp/variant/results.json" "$tmp/long/results.json" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
c = next(c for c in r["cases"] if c["verdict"] == "fail")
c["reason"] = "step 3: " + "x" * 5000 + " END-OF-LONG-REASON"
c["id"] = "LONG-" + "I" * 300 + "-END"
c["file"] = "cases/" + "d" * 300 + "/long.case"
os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
json.dump(r, open(sys.argv[2], "w"))
PY
expect "compare with long text (a new case)" 0 "$t" report --compare "$tmp/hostile" "$tmp/long"
contains "the whole reason" "END-OF-LONG-REASON"
contains "the whole case ID" "-END [IPv"
expect "reports of long text" 0 "$t" report -q "$tmp/long"
grep -q "END-OF-LONG-REASON" "$tmp/long/junit.xml" && grep -q "I-END \[IPv" "$tmp/long/junit.xml" \
  && grep -q "roce\.d\{300\}\"" "$tmp/long/junit.xml" && grep -q "END-OF-LONG-REASON" "$tmp/long/report.html" \
  && ok "junit.xml and report.html hold the whole reason, ID and group" || bad "long text was cut in the reports"

[ $fails = 0 ] && echo "report_cli: all passed"
exit $fails
