#!/usr/bin/env python3
"""Statistics > Conversations' "Apply as Filter" on the plugin's rows.

tshark has no way to print the filter a Conversations row makes, so
conv_filter_probe.c, preloaded into tshark, asks Wireshark's own
get_conversation_filter() for each row of -z conv,rocev2 and of -z
conv,rocev1 (the RoCEv2 and the RoCE v1 tab; A<->B, A->B and A<-B, as the
GUI's menu does). Each filter must be one tshark takes and
select exactly the row's frames: A<->B as many frames as the row counts,
A->B and A<-B between them the same frames. Both with two passes (-2),
as the GUI sees a file: the analysis has paired every QP it can.

  check_conv_filters.py TSHARK-WRAPPER PLUGIN-DIR PROBE [--gid] CAPTURE...

Every row of the RoCEv2 table must be an IP one and every row of the RoCE
v1 table a GID one (its filter names the GIDs, rocev2.grh.*).
--gid: the captures after it must show a row in each table; before it,
the RoCE v1 table must be empty.
"""
import os
import shutil
import subprocess
import sys
import tempfile


def tshark(wrapper, plugins, args, preload=None):
    env = dict(os.environ)
    if preload:
        env["ROCEV2_TSHARK_PRELOAD"] = ":".join(x for x in (env.get("ROCEV2_TSHARK_PRELOAD"), preload) if x)
    p = subprocess.run([wrapper, plugins, "-n"] + args, capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr


def check_table(wrapper, plugins, probe, cap, name, table, kind, failures):
    """Applies each row's filters of table (conv,TABLE); returns its rows (-1: tshark failed)."""
    rc, out, err = tshark(wrapper, plugins, ["-2", "-r", cap, "-q", "-z", "conv," + table], probe)
    rows = [l.split("\t") for l in out.splitlines() if l.startswith("conv-filter\t")]
    if rc or err.strip():
        failures.append("%s: tshark -z conv,%s with the probe: exit %d, %s" % (name, table, rc, err.strip()[:300]))
        return -1
    for _, a, b, pa, pb, _type, frames, both, a_to_b, b_to_a in rows:
        what = "%s: conv,%s row %s:%s <-> %s:%s (%s frames)" % (name, table, a, pa, b, pb, frames)
        if "4294967295" in (pa, pb):
            failures.append("%s: an unknown QP shown as a number" % what)
        got = "gid" if "rocev2.grh.gid==" in both else "ip"
        if got != kind:
            failures.append("%s: a %s row, expected %s only (filter %s)" % (what, got, kind, both))
        counts = []
        for f in (both, a_to_b, b_to_a):
            rc, out, err = tshark(wrapper, plugins, ["-2", "-r", cap, "-Y", f, "-T", "fields", "-e", "frame.number"])
            if rc or err.strip():
                failures.append("%s: filter '%s' not taken: %s" % (what, f, err.strip()[:300]))
                counts.append(None)
                continue
            counts.append(set(out.split()))
        if None in counts:
            continue
        if len(counts[0]) != int(frames):
            failures.append("%s: '%s' selects %d frames" % (what, both, len(counts[0])))
        if counts[1] | counts[2] != counts[0] or counts[1] & counts[2]:
            failures.append("%s: A->B (%d frames) and A<-B (%d) are not A<->B's %d" %
                            (what, len(counts[1]), len(counts[2]), len(counts[0])))
    return len(rows)


def main():
    wrapper, plugins, probe = sys.argv[1:4]
    failures, checked = [], 0
    tmp = None
    if not os.environ.get("ROCEV2_TSHARK_ROOT"):
        # tshark runs as nobody: the probe goes where nobody reads it.
        tmp = tempfile.mkdtemp(prefix="rocev2-probe.")
        os.chmod(tmp, 0o755)
        shutil.copy(probe, tmp)
        probe = os.path.join(tmp, os.path.basename(probe))
        os.chmod(probe, 0o755)
    want_gid = False
    try:
        for cap in sys.argv[4:]:
            if cap == "--gid":
                want_gid = True
                continue
            name = os.path.basename(cap)
            n_rows = {}
            for table, kind in (("rocev2", "ip"), ("rocev1", "gid")):
                n_rows[table] = check_table(wrapper, plugins, probe, cap, name, table, kind, failures)
                checked += 3 * max(n_rows[table], 0)
            if n_rows["rocev2"] == 0:
                failures.append("%s: no RoCEv2 Conversations row (is the probe preloaded?)" % name)
            if want_gid != (n_rows["rocev1"] > 0):
                failures.append("%s: %d RoCE v1 rows, expected %s" % (name, n_rows["rocev1"], "some" if want_gid else "none"))
            print("%s: %d RoCEv2 rows, %d RoCE v1 rows" % (name, n_rows["rocev2"], n_rows["rocev1"]))
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL: " + f)
    print("check_conv_filters: %d filters applied, %d failures" % (checked, len(failures)))
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
