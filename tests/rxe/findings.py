#!/usr/bin/python3
"""Keeps docs/findings.md true to docs/rxe-results.md.

docs/rxe-results.md names every deviation of Linux Soft-RoCE the suite
found in a section "### ID: title" under "## The deviations" (R1, I1, and
any ID a later change adds), whose fields say which cases show it
("*Case*:"/"*Cases*:") and which rules it breaks ("*Rule*:"/"*Rules*:").
Its per-case table gives each case's verdict per kernel.

docs/findings.md holds, between <!-- findings:begin --> and
<!-- findings:end -->, a summary table with one row "| [ID](#anchor) | what |
rules (role) |" per deviation, naming rules of the deviation, then one
section "### ID: title" per deviation, each with
  - a table "| Case | <kernel columns> |" with one row per case of the
    deviation and its verdicts, cell for cell those of rxe-results.md;
  - a bullet "- **Rules**:" naming each rule the deviation breaks as
    `RULE-ID` followed by " (ROLE, STRENGTH" where ROLE is a role the
    catalogue (lib/include/roce/rules.def) binds the rule to and STRENGTH
    its strength there;
  - every conformance-cases/... path it gives exists.
Everything outside that block (other sections) is not checked here, but
for the benchmark of real bugs ("## Real bugs: the benchmark"), when a
SOURCE-DIR is given: its table has one row "| B<n> | ... | Case, profile
| Caught |" per fix; a row caught ("yes", or "informative" for a should)
names its cases and profiles in backticks, each case a file of
conformance-cases whose 'mutants' header names each profile (marked
'informative' exactly when the row is), each profile one of
agent/src/soft/fault.def; a row caught "no" names none; and the line
"**N of M caught (P %)** (B.., ...)" counts the caught rows over all
rows, lists exactly the caught ones, and rounds the percentage down.

  findings.py check RXE-RESULTS.md FINDINGS.md RULES.def [SOURCE-DIR]
      exit 0 when they agree, 1 listing every disagreement.

What the check cannot know (the source lines, the upstream text) is
written by hand; what it can compare, it does, so that a deviation added,
removed or re-judged in rxe-results.md fails it until findings.md follows.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rxe_results  # noqa: E402  (the per-case table and kernel columns)

F_BEGIN, F_END = "<!-- findings:begin -->", "<!-- findings:end -->"
ID_HEAD = re.compile(r"^### ([RI][A-Za-z0-9-]*): (.+)$", re.M)
FIELD = re.compile(r"\*([A-Z][A-Za-z ,()]*?)\*:")
CASE_ID = re.compile(r"`([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*-\d{3})`")
ROLES = {"SENDER": "sender", "RECEIVER": "receiver", "REQUESTER": "requester", "RESPONDER": "responder",
         "CM_ROLE": "CM", "DEVICE": "device"}


def catalogue(path):
    """Rule ID -> (set of roles, strength), from rules.def."""
    rules = {}
    text = open(path).read()
    for m in re.finditer(r'^ROCE_RULE\(\s*\w+,\s*"([^"]+)",\s*\w+,\s*[\w |]+,\s*([\w |]+),\s*(\w+),', text, re.M):
        rules[m.group(1)] = ({ROLES[b.strip()] for b in m.group(2).split("|")}, m.group(3).lower())
    return rules


def rule_ids(text, known):
    """The catalogue's rule IDs in text, ranges such as CA17-36..38 expanded,
    leaving out one the text says is not broken ("Not RULE")."""
    found = []
    text = re.sub(r"\s+", " ", text)
    for m in re.finditer(r"\b([A-Z][A-Za-z0-9.]*-[A-Z0-9-]*?)(\d+)\.\.(\d+)\b", text):
        for n in range(int(m.group(2)), int(m.group(3)) + 1):
            rid = "%s%d" % (m.group(1), n)
            if rid in known and rid not in found:
                found.append(rid)
    for rid in sorted(known, key=len, reverse=True):
        # "Not IBA10.6.7-SEND-INV, the responder's rule": named to say it holds.
        for m in re.finditer(r"(?<![\w.-])(?<!Not )(?<!not )" + re.escape(rid) + r"(?![\w-])", text):
            if rid not in found:
                found.append(rid)
    return found


def fields(body):
    """A deviation section's fields: name -> text up to the next field."""
    out = {}
    marks = list(FIELD.finditer(body))
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(body)
        out.setdefault(m.group(1).strip(), body[m.end():end])
    return out


def sections(text):
    """(id, title, body) of each '### ID: title' section of text."""
    heads = list(ID_HEAD.finditer(text))
    out = []
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        body = text[m.end():end]
        body = re.split(r"^## ", body, maxsplit=1, flags=re.M)[0]
        out.append((m.group(1), m.group(2).strip(), body))
    return out


def deviations(doc, known):
    """rxe-results.md's deviations: id -> {title, cases, rules}."""
    if "\n## The deviations" not in doc.text:
        rxe_results.die("%s: no '## The deviations' section" % doc.path)
    part = doc.text.split("\n## The deviations", 1)[1]
    part = re.split(r"^## ", part.split("\n", 1)[1], maxsplit=1, flags=re.M)[0]
    out = {}
    for did, title, body in sections(part):
        f = fields(body)
        cases_text = f.get("Case", "") + f.get("Cases", "")
        rules_text = f.get("Rule", "") + f.get("Rules", "")
        out[did] = {"title": title, "cases": list(dict.fromkeys(CASE_ID.findall(cases_text))),
                    "rules": rule_ids(rules_text, known)}
    return out


def summary(path):
    """findings.md's summary rows: id -> the row's text."""
    text = open(path).read()
    _, body, _ = rxe_results.block(text, F_BEGIN, F_END, path)
    head = ID_HEAD.search(body)
    out = {}
    for line in body[:head.start() if head else len(body)].splitlines():
        m = re.match(r"^\| \[([RI][A-Za-z0-9-]*)\]\(#[^)]*\) \|", line.strip())
        if m:
            out[m.group(1)] = line
    return out


def findings(path):
    """findings.md's entries: id -> {title, header, rows {case: cells}, rules_line, paths}."""
    text = open(path).read()
    _, body, _ = rxe_results.block(text, F_BEGIN, F_END, path)
    out = {}
    for did, title, sec in sections(body):
        entry = {"title": title, "header": None, "rows": {}, "rules_line": None,
                 "paths": re.findall(r"conformance-cases/[\w./-]+\.case", sec)}
        in_rules = False
        for raw in sec.splitlines():
            line = raw.strip()
            if in_rules and raw.startswith(" ") and line:
                entry["rules_line"] += " " + line  # the bullet goes on
                continue
            in_rules = False
            if line.startswith("| Case |"):
                entry["header"] = [c.strip() for c in line.strip("|").split("|")][1:]
            elif line.startswith("| `"):
                cells = [c.strip() for c in line.strip("|").split("|")]
                entry["rows"][cells[0].strip("`")] = cells[1:]
            elif line.startswith("- **Rules**:"):
                entry["rules_line"] = line
                in_rules = True
        if did in out:
            rxe_results.die("%s: %s has two sections" % (path, did))
        out[did] = entry
    return out


BENCH_HEAD = "## Real bugs: the benchmark"
BENCH_ROW = re.compile(r"^\| (B\d+) \|(.*)\|\s*$", re.M)
RECALL = re.compile(r"\*\*(\d+) of (\d+) caught \((\d+) %\)\*\* \(([^)]*)\)")
PROFILE = re.compile(r"`([a-z][a-z0-9]*(?:-[a-z0-9]+)+)`")


def case_mutants(source_dir):
    """conformance-cases' case ID -> {profile: 'informative' or 'fail'}."""
    out = {}
    for root, _, files in os.walk(os.path.join(source_dir, "conformance-cases")):
        for f in files:
            if not f.endswith(".case"):
                continue
            cid, muts = None, {}
            for line in open(os.path.join(root, f)):
                words = line.split()
                if words[:1] == ["case"] and len(words) > 1:
                    cid = words[1]
                elif words[:1] == ["mutants"]:
                    for item in line.split(None, 1)[1].split(","):
                        parts = item.split()
                        if parts:
                            muts[parts[0]] = "informative" if parts[1:] == ["informative"] else "fail"
            if cid:
                out[cid] = muts
    return out


def benchmark(findings_md, source_dir):
    """The benchmark's rows and recall line against the cases and profiles."""
    text = open(findings_md).read()
    problems = []
    if BENCH_HEAD not in text:
        return ["%s: no '%s' section" % (findings_md, BENCH_HEAD)]
    part = re.split(r"^## ", text.split(BENCH_HEAD, 1)[1], maxsplit=1, flags=re.M)[0]
    faults = set(re.findall(r'^SOFT_FAULT\(\w+, "([^"]+)"', open(
        os.path.join(source_dir, "agent", "src", "soft", "fault.def")).read(), re.M))
    mutants = case_mutants(source_dir)
    rows, caught = [], []
    for bid, rest in BENCH_ROW.findall(part):
        cells = [c.strip() for c in rest.split("|")]
        rows.append(bid)
        verdict, named = cells[-1], cells[-2]
        kind = verdict.split(";")[0].split()[0] if verdict else ""
        cases, profiles = CASE_ID.findall(named), PROFILE.findall(named)
        if kind not in ("yes", "informative", "no"):
            problems.append("benchmark %s: Caught is '%s', not yes, informative or no" % (bid, verdict))
            continue
        if kind == "no":
            if cases or profiles:
                problems.append("benchmark %s: not caught, yet it names %s" % (bid, ", ".join(cases + profiles)))
            continue
        caught.append(bid)
        if not cases or not profiles:
            problems.append("benchmark %s: caught, but names no case and profile" % bid)
        for p in profiles:
            if p not in faults:
                problems.append("benchmark %s: %s is no fault profile of fault.def" % (bid, p))
        for cid in cases:
            if cid not in mutants:
                problems.append("benchmark %s: case %s is no case of conformance-cases" % (bid, cid))
                continue
            want = "informative" if kind == "informative" else "fail"
            for p in profiles:
                if mutants[cid].get(p) != want:
                    problems.append("benchmark %s: %s's mutants header does not name %s%s" %
                                    (bid, cid, p, " informative" if want == "informative" else ""))
    m = RECALL.search(part)
    if not rows:
        problems.append("benchmark: no row")
    if not m:
        problems.append("benchmark: no recall line '**N of M caught (P %%)** (B.., ...)'")
    else:
        n, total, pct = int(m.group(1)), int(m.group(2)), int(m.group(3))
        listed = re.findall(r"B\d+", m.group(4))
        if (n, total) != (len(caught), len(rows)):
            problems.append("benchmark: the recall says %d of %d caught; the table has %d of %d" %
                            (n, total, len(caught), len(rows)))
        if rows and pct != 100 * len(caught) // len(rows):
            problems.append("benchmark: the recall says %d %%; the table gives %d %%" %
                            (pct, 100 * len(caught) // len(rows)))
        if listed != caught:
            problems.append("benchmark: the recall lists %s; the caught rows are %s" % (listed, caught))
    return problems


def check(results_md, findings_md, rules_def, source_dir):
    doc = rxe_results.Doc(results_md)
    known = catalogue(rules_def)
    devs = deviations(doc, known)
    have = findings(findings_md)
    problems = []
    say = problems.append
    for did, d in devs.items():
        e = have.get(did)
        if e is None:
            say("%s (%s) has no section in %s" % (did, d["title"], findings_md))
            continue
        if not d["cases"]:
            say("%s: rxe-results.md names no case (*Case*: `ID`)" % did)
        if not d["rules"]:
            say("%s: rxe-results.md names no rule of the catalogue in its *Rule* field" % did)
        if e["header"] != doc.columns:
            say("%s: the case table's kernel columns are %s, rxe-results.md's %s" % (did, e["header"], doc.columns))
        for cid in d["cases"]:
            if cid not in doc.rows:
                say("%s: case %s has no row in rxe-results.md's table" % (did, cid))
                continue
            want = [rxe_results.format_cell(doc.rows[cid][0].get(col)) for col in doc.columns]
            got = e["rows"].get(cid)
            if got is None:
                say("%s: case %s (%s) is not in its table" % (did, cid, " | ".join(want)))
            elif got != want:
                say("%s: case %s is %s in findings.md, %s in rxe-results.md" %
                    (did, cid, " | ".join(got), " | ".join(want)))
        for cid in e["rows"]:
            if cid not in d["cases"]:
                say("%s: case %s is in findings.md, not among rxe-results.md's cases of %s %s" %
                    (did, cid, did, d["cases"]))
        line = e["rules_line"] or ""
        named = re.findall(r"`([^`]+)` \(", line)  # `RULE` (role, strength ...
        if sorted(named) != sorted(d["rules"]):
            say("%s: rules %s in findings.md, %s in rxe-results.md" % (did, sorted(named), sorted(d["rules"])))
        for rid in named:
            if rid not in known:
                say("%s: %s is not in the catalogue" % (did, rid))
                continue
            roles, strength = known[rid]
            m = re.search(r"`%s` \(([^,)]+), (\w+)" % re.escape(rid), line)
            if not m:
                say("%s: %s is not followed by '(ROLE, STRENGTH' in its Rules line" % (did, rid))
            elif m.group(1) not in roles or m.group(2) != strength:
                say("%s: %s is said to bind the %s, %s; the catalogue: %s, %s" %
                    (did, rid, m.group(1), m.group(2), " or ".join(sorted(roles)), strength))
        for p in e["paths"]:
            if source_dir and not os.path.exists(os.path.join(source_dir, p)):
                say("%s: %s does not exist" % (did, p))
    for did in have:
        if did not in devs:
            say("%s is in %s but is no deviation of rxe-results.md (stale)" % (did, findings_md))
    rows = summary(findings_md)
    for did, d in devs.items():
        if did not in rows:
            say("%s has no row in the summary table of %s" % (did, findings_md))
            continue
        named = rule_ids(rows[did], known)
        if not named or not set(named) <= set(d["rules"]):
            say("%s: the summary row names rules %s; the deviation's are %s" % (did, named, d["rules"]))
    for did in rows:
        if did not in devs:
            say("%s has a summary row but is no deviation of rxe-results.md (stale)" % did)
    if source_dir:
        problems += benchmark(findings_md, source_dir)
    return problems, devs


def main(argv):
    if len(argv) < 5 or argv[1] != "check":
        print(__doc__)
        return 2
    source_dir = argv[5] if len(argv) > 5 else None
    problems, devs = check(argv[2], argv[3], argv[4], source_dir)
    for p in problems:
        print("findings: " + p)
    if problems:
        print("findings: %d disagreement(s) between %s and %s" % (len(problems), argv[3], argv[2]))
        return 1
    print("findings: %d deviations, each with its section, cases, verdicts and rules" % len(devs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
