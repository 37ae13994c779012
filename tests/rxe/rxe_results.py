#!/usr/bin/python3
"""Keeps docs/rxe-results.md true to what the suite finds against Linux
Soft-RoCE, on each kernel it records.

The document holds three generated blocks:

  <!-- rxe-kernels:begin --> ... <!-- rxe-kernels:end -->
      one row per kernel: its column name (6.1), the Debian suite its
      package comes from (bookworm), the kernel release (6.1.0-57-amd64)
      and the package.
  <!-- rxe-summary:begin --> ... <!-- rxe-summary:end -->
      per kernel, the counts of a full run and how long it took (the
      suite, and the VM's boot before it).
  <!-- rxe-results:begin --> ... <!-- rxe-results:end -->
      one row per case: its ID, one verdict cell per kernel, and, for every
      verdict other than pass, the explanation. A cell is one verdict when
      every IP version the case ran over gave it (pass, fail, informative,
      n/a, error), "IPv4 V, IPv6 W" otherwise, and "-" when the case did
      not run on that kernel.

  rxe_results.py kernels DOC.md
      Prints "COLUMN SUITE RELEASE" per kernel (for tests/rxe/run_kernels.sh).
  rxe_results.py check RESULTS.json DOC.md --kernel RELEASE [--all CASES-DIR]
      Every case run in RESULTS.json has a row whose cell for the kernel
      matches; every row that is not a pass explains itself. With --all,
      the run also covered every case file under CASES-DIR and every row
      the kernel's column has, and the kernel's summary row matches.
  rxe_results.py update RESULTS.json DOC.md --kernel RELEASE --suite SUITE
                 --package PACKAGE [--boot-seconds S]
      Rewrites the kernel's column (added if new) and summary row from a
      full run, keeping the explanations, and marks rows that need one.
"""
import json
import os
import re
import sys

K_BEGIN, K_END = "<!-- rxe-kernels:begin -->", "<!-- rxe-kernels:end -->"
S_BEGIN, S_END = "<!-- rxe-summary:begin -->", "<!-- rxe-summary:end -->"
T_BEGIN, T_END = "<!-- rxe-results:begin -->", "<!-- rxe-results:end -->"
SHORT = {"pass": "pass", "fail": "fail", "informative": "informative", "not_applicable": "n/a", "error": "error"}
LONG = {v: k for k, v in SHORT.items()}
TODO = "TO EXPLAIN"


def die(msg):
    sys.exit("rxe-results: " + msg)


def block(text, begin, end, path):
    if begin not in text or end not in text:
        die("%s: no %s ... %s block" % (path, begin, end))
    head, rest = text.split(begin, 1)
    body, tail = rest.split(end, 1)
    return head, body, tail


def table_rows(body):
    """The cells of a Markdown table's rows, header and rule left out."""
    rows = []
    for line in body.strip().splitlines():
        line = line.strip()
        if not line.startswith("|") or re.match(r"^\|[-| ]+\|$", line):
            continue
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows[1:]  # the header


def column_of(release):
    """The column name of a kernel release: 6.12.117+deb13-amd64 -> 6.12."""
    m = re.match(r"(\d+)\.(\d+)", release)
    if not m:
        die("'%s' is not a kernel release" % release)
    return "%s.%s" % m.groups()


class Doc:
    def __init__(self, path):
        self.path = path
        self.text = open(path).read()
        # Kernels: column, suite, release, package.
        _, kb, _ = block(self.text, K_BEGIN, K_END, path)
        self.kernels = []
        for cells in table_rows(kb):
            if len(cells) != 4:
                die("%s: a kernel row has %d cells, expected 4: %s" % (path, len(cells), cells))
            self.kernels.append({"column": cells[0], "suite": cells[1].strip("`"), "release": cells[2].strip("`"),
                                 "package": cells[3].strip("`")})
        self.columns = [k["column"] for k in self.kernels]
        # Summary: column -> the row's cells.
        _, sb, _ = block(self.text, S_BEGIN, S_END, path)
        self.summary = {cells[0]: cells for cells in table_rows(sb)}
        # Cases: id -> ({column: {ipv: verdict} or None}, why).
        _, tb, _ = block(self.text, T_BEGIN, T_END, path)
        self.rows = {}
        for cells in table_rows(tb):
            if len(cells) != len(self.columns) + 2:
                die("%s: table row has %d cells, expected %d (case, %s, why): %s" %
                    (path, len(cells), len(self.columns) + 2, ", ".join(self.columns), cells))
            cid = cells[0].strip("`")
            if cid in self.rows:
                die("%s: %s has two rows" % (path, cid))
            self.rows[cid] = ({col: parse_cell(path, cid, cell) for col, cell in zip(self.columns, cells[1:-1])},
                              cells[-1])

    def kernel(self, release):
        for k in self.kernels:
            if k["release"] == release:
                return k
        return None

    def write(self):
        lines = ["| Kernel | Debian suite | Release | Package |", "|---|---|---|---|"]
        for k in self.kernels:
            lines.append("| %s | %s | `%s` | `%s` |" % (k["column"], k["suite"], k["release"], k["package"]))
        text = replace_block(self.text, K_BEGIN, K_END, lines)
        lines = ["| Kernel | Case runs | Pass | Informative | Fail | Not applicable | Error | Full run |",
                 "|---|---|---|---|---|---|---|---|"]
        for col in self.columns:
            if col in self.summary:
                lines.append("| " + " | ".join(self.summary[col]) + " |")
        text = replace_block(text, S_BEGIN, S_END, lines)
        lines = ["| Case | " + " | ".join(self.columns) + " | Why |", "|---|" + "---|" * len(self.columns) + "---|"]
        for cid in sorted(self.rows):
            cells, why = self.rows[cid]
            lines.append("| `%s` | %s | %s |" % (cid, " | ".join(format_cell(cells.get(c)) for c in self.columns), why))
        text = replace_block(text, T_BEGIN, T_END, lines)
        with open(self.path, "w") as f:
            f.write(text)


def replace_block(text, begin, end, lines):
    head, rest = text.split(begin, 1)
    return head + begin + "\n" + "\n".join(lines) + "\n" + end + rest.split(end, 1)[1]


def parse_cell(path, cid, cell):
    """None (did not run), {None: v} (every IP version ran gave v) or
    {4: v, 6: w}."""
    if cell == "-":
        return None
    if cell in LONG:
        return {None: LONG[cell]}
    out = {}
    for part in cell.split(","):
        m = re.match(r"^\s*IPv([46]) (\S+)\s*$", part)
        if not m or m.group(2) not in LONG:
            die("%s: %s: '%s' is not a verdict (%s, or 'IPv4 V, IPv6 W')" % (path, cid, cell, ", ".join(LONG)))
        out[int(m.group(1))] = LONG[m.group(2)]
    return out


def format_cell(by_ip):
    if not by_ip:
        return "-"
    if None in by_ip:
        return SHORT[by_ip[None]]
    verdicts = set(by_ip.values())
    if len(verdicts) == 1:
        return SHORT[verdicts.pop()]
    return ", ".join("IPv%d %s" % (ipv, SHORT[by_ip[ipv]]) for ipv in sorted(by_ip))


def cell_says(cell, ipv):
    if cell is None:
        return None
    return cell.get(None, cell.get(ipv))


def run_verdicts(results):
    r = json.load(open(results))
    got = {}
    for c in r["cases"]:
        got.setdefault(c["id"], {})[c["ip_version"]] = (c["verdict"], c["reason"], c["file"])
    return got, r


def summary_row(col, got, results, boot=None):
    runs = [v for by_ip in got.values() for v in by_ip.values()]
    n = {k: sum(1 for v in runs if v[0] == k) for k in SHORT}
    failing = sum(1 for by_ip in got.values() if any(v[0] == "fail" for v in by_ip.values()))
    seconds = results["run"]["duration_ns"] / 1e9
    took = "%d min %02d s" % (int(seconds) // 60, int(seconds) % 60)
    if boot is not None:
        took += " (+ %.0f s boot)" % boot
    return [col, "%d (%d cases)" % (len(runs), len(got)), str(n["pass"]), str(n["informative"]),
            "%d (%d cases)" % (n["fail"], failing), str(n["not_applicable"]), str(n["error"]), took]


def case_ids(cases_dir):
    ids = {}
    for root, _, files in os.walk(cases_dir):
        for f in files:
            if f.endswith(".case"):
                for line in open(os.path.join(root, f)):
                    m = re.match(r"\s*case\s+(\S+)", line)
                    if m:
                        ids[m.group(1)] = os.path.join(root, f)
                        break
    return ids


def check(results, path, release, all_dir):
    doc = Doc(path)
    k = doc.kernel(release)
    if not k:
        # The archive moved on to a newer build of the same kernel line (the
        # recorded one can no longer be had): judge it by that line's column,
        # and say so; verdicts that moved fail below, as any would.
        k = next((x for x in doc.kernels if x["column"] == column_of(release)), None)
        if k:
            print("rxe-results: note: ran Linux %s; %s records %s for %s: judged against that column"
                  % (release, path, k["release"], k["column"]))
    if not k:
        print("rxe-results: FAIL: %s has no column for kernel %s (it records %s): run scripts/rxe-vm/suite-results "
              "--update --kernel-suite SUITE" % (path, release, ", ".join(x["release"] for x in doc.kernels) or "none"))
        return 1
    col = k["column"]
    got, r = run_verdicts(results)
    problems = []
    for cid, by_ip in sorted(got.items()):
        if cid not in doc.rows:
            problems.append("%s ran but has no row in %s" % (cid, path))
            continue
        cell = doc.rows[cid][0][col]
        for ipv, (verdict, reason, _) in sorted(by_ip.items()):
            want = cell_says(cell, ipv)
            if want != verdict:
                problems.append("%s IPv%d: %s against rxe %s, the document says %s (%s)" %
                                (cid, ipv, verdict, col, want or "nothing", reason[:300]))
    for cid, (cells, why) in doc.rows.items():
        bad = sorted({v for cell in cells.values() if cell for v in cell.values() if v != "pass"})
        if bad and (not why or TODO in why):
            problems.append("%s: %s without an explanation" % (cid, "/".join(bad)))
    if all_dir:
        for cid, p in sorted(case_ids(all_dir).items()):
            if cid not in got:
                problems.append("%s (%s) is in the suite but not in the run" % (cid, p))
        for cid, (cells, _) in doc.rows.items():
            cell = cells[col]
            if cell and cid not in got:
                problems.append("%s has a verdict on %s but did not run" % (cid, col))
            elif cell and None not in cell:
                for ipv in sorted(set(cell) - set(got[cid])):
                    problems.append("%s: the document gives IPv%d a verdict on %s but it did not run over IPv%d" %
                                    (cid, ipv, col, ipv))
        want = summary_row(col, got, r)[:-1]
        have = doc.summary.get(col, [])[:-1]
        if have != want:
            problems.append("the summary of %s says %s; the run: %s" % (col, " | ".join(have) or "nothing",
                                                                       " | ".join(want)))
    for p in problems:
        print("rxe-results: FAIL: " + p)
    n = sum(len(v) for v in got.values())
    if not problems:
        print("rxe-results: ok: %d case runs (%d cases) on %s (%s) match %s" % (n, len(got), col, release, path))
    return 1 if problems else 0


def update(results, path, release, suite, package, boot):
    doc = Doc(path)
    got, r = run_verdicts(results)
    k = doc.kernel(release)
    col = column_of(release)
    if not k:
        # A new kernel, or a newer release of a column's kernel: the column
        # is the kernel's major.minor.
        old = [x for x in doc.kernels if x["column"] == col]
        if old:
            old[0].update(suite=suite, release=release, package=package)
        else:
            doc.kernels.append({"column": col, "suite": suite, "release": release, "package": package})
            doc.kernels.sort(key=lambda x: tuple(int(n) for n in x["column"].split(".")))
            doc.columns = [x["column"] for x in doc.kernels]
            for cells, _ in doc.rows.values():
                cells.setdefault(col, None)
    else:
        k.update(suite=suite, package=package)
    todo = 0
    for cid in set(doc.rows) | set(got):
        cells, why = doc.rows.get(cid, ({c: None for c in doc.columns}, ""))
        by_ip = got.get(cid)
        cells[col] = {ipv: v[0] for ipv, v in by_ip.items()} if by_ip else None
        if all(not c or set(c.values()) == {"pass"} for c in cells.values()):
            why = ""
        elif not why:
            why = TODO
            todo += 1
        doc.rows[cid] = (cells, why)
    # Rows of cases gone from every kernel are dropped.
    doc.rows = {cid: v for cid, v in doc.rows.items() if any(v[0].values())}
    doc.summary[col] = summary_row(col, got, r, boot)
    doc.write()
    print("rxe-results: %s: column %s (%s) from %d case runs, %d rows to explain" %
          (path, col, release, sum(len(v) for v in got.values()), todo))
    return 0


def kernels(path):
    for k in Doc(path).kernels:
        print("%s %s %s" % (k["column"], k["suite"], k["release"]))
    return 0


def main():
    a = sys.argv[1:]

    def opt(name, default=None):
        return a[a.index(name) + 1] if name in a and a.index(name) + 1 < len(a) else default

    if len(a) == 2 and a[0] == "kernels":
        return kernels(a[1])
    if len(a) >= 5 and a[0] == "check" and opt("--kernel"):
        return check(a[1], a[2], opt("--kernel"), opt("--all"))
    if len(a) >= 3 and a[0] == "update" and opt("--kernel") and opt("--suite") and opt("--package"):
        boot = opt("--boot-seconds")
        return update(a[1], a[2], opt("--kernel"), opt("--suite"), opt("--package"), float(boot) if boot else None)
    print(__doc__)
    return 2


if __name__ == "__main__":  # also imported by findings.py
    sys.exit(main())
