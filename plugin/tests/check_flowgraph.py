#!/usr/bin/env python3
"""The RoCEv2 ladder of the Flow Graph as tshark prints it
(-z flow,rocev2,standard and -z flow,rocev2,network), checked line by
line against what others say of the same frames:

- Wireshark's built-in InfiniBand dissector (tshark without the plugin)
  gives each frame's IP source and destination, opcode, destination QP,
  PSN and AETH syndrome: the ladder has one arrow per frame with a BTH, in
  frame order, at the frame's time, from its source's column to its
  destination's; its label starts "PSN <psn>" (a CNP's is "CNP"), an
  acknowledgement's label names its ACK, RNR NAK or NAK and its comment
  the NAK's code; the comment ends with the summary line (after the notes
  and "; "), which starts with the opcode's name and holds the frame's QP
  and PSN;
- `roce-tester lint --tsv` (libroce's judgement) gives each frame's
  findings: an arrow says "Retransmission" exactly on the frames lint
  finds a retransmission on (timeout, go-back-N, RNR retry), "PSN gap" and
  "Out of order" on the frames of those findings, and "<severity> <rule>"
  for each warning and error lint finds there, and no rule lint does not;
- the opcode names are libroce's (the plugin's rocev2.bth.opcode values),
  the NAK codes' names those of the IBTA's AETH (C9-156).

usage: check_flowgraph.py TSHARK-WRAPPER PLUGIN-DIR ROCE-TESTER CAPTURE...
"""
import re
import subprocess
import sys

NAK_CODES = {0: "PSN Sequence Error", 1: "Invalid Request", 2: "Remote Access Error",
             3: "Remote Operational Error", 4: "Invalid RD Request"}
OPERATION_ACK, OPCODE_CNP = 0x11, 0x81  # Acknowledge: bits 4:0 of the opcode, in any transport
RETRANSMISSION_CODES = {"F_RETRANSMISSION", "F_GBN_RETRANSMISSION"}
NOTE_OF_CODE = {"F_PSN_GAP": "PSN gap", "F_OUT_OF_ORDER": "Out of order"}


RD = 2  # opcode bits 7:5


def short_name(name):
    """An opcode's name without its transport ("RC SEND Only": "SEND Only")."""
    return name.split(" ", 1)[1] if " " in name else name


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout, r.stderr


def builtin_frames(wrapper, capture):
    """frame -> dict, for every frame the built-in decodes a BTH in."""
    fields = ["frame.number", "frame.time_relative", "ip.src", "ipv6.src", "ip.dst", "ipv6.dst",
              "infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn",
              "infiniband.aeth.syndrome", "infiniband.grh.sgid", "infiniband.grh.dgid"]
    cmd = [wrapper, "none", "-r", capture, "-T", "fields", "-E", "occurrence=f"]
    for f in fields:
        cmd += ["-e", f]
    rc, out, err = run(cmd)
    if rc != 0:
        raise RuntimeError(f"built-in decode of {capture}: {err.strip()}")
    frames = {}
    for line in out.splitlines():
        c = line.split("\t")
        if len(c) < len(fields) or not c[6]:
            continue
        rocev1 = not (c[2] or c[3]) and bool(c[10])  # a GRH, no IP header
        frames[int(c[0])] = {
            "time": float(c[1]), "src": c[2] or c[3] or c[10], "dst": c[4] or c[5] or c[11],
            "rocev1": rocev1, "opcode": int(c[6], 0),
            "destqp": int(c[7], 0), "psn": int(c[8]), "syndrome": int(c[9], 0) if c[9] else None,
        }
    return frames


def lint_findings(tester, capture):
    """frame -> [(code, rule, severity)]"""
    rc, out, err = run([tester, "lint", "--tsv", capture])
    if rc not in (0, 1):
        raise RuntimeError(f"lint {capture}: exit {rc}: {err.strip()}")
    found = {}
    for line in out.splitlines():
        c = line.split("\t")
        if len(c) >= 4 and c[0].isdigit():
            found.setdefault(int(c[0]), []).append((c[1], c[2], c[3]))
    return found


def parse_ladder(text):
    """[(time, src, dst, label, comment)] from tshark's flow dump."""
    lines = text.splitlines()
    # "Conv.| Time |" when the arrows belong to several QP pairs, else "|Time |"
    heads = [i for i, l in enumerate(lines) if re.match(r"^(Conv\.)?\|\s*Time\s*\|", l)]
    if len(heads) != 1:
        raise RuntimeError(f"{len(heads)} ladder headings in the output")
    h = heads[0]
    # The addresses, alternately on two heading lines; a node's column
    # starts at the '|' before its address (a RoCE v1 node's is its GID:
    # "GID: 2001:db8::1").
    nodes = []
    for l in lines[h:h + 2]:
        for m in re.finditer(r"\| (GID: )?([0-9A-Fa-f.:]+[0-9A-Fa-f])\s", l + " "):
            nodes.append((m.start(), (m.group(1) or "") + m.group(2)))
    nodes.sort()
    if not nodes:
        raise RuntimeError("no addresses in the ladder's heading")

    def node_at(col):
        best = None
        for start, addr in nodes:
            if start <= col:
                best = addr
        return best

    arrows = []
    i = h + 2
    while i < len(lines):
        l = lines[i]
        m = re.match(r"^(\d+\s*)?\|\s*([0-9.]+)\s*\|", l)
        if not m:
            i += 1
            continue
        body = l[m.end():]
        cells = body.split("|")
        comment = cells[-1].strip()
        label = " ".join(c.strip() for c in cells[:-1] if c.strip())
        arrow = lines[i + 1] if i + 1 < len(lines) else ""
        a = re.search(r"\(\d*\)\s*(<?-+>?)\s*\(\d*\)", arrow)
        if not a:
            raise RuntimeError(f"no arrow under: {l}")
        left, right = node_at(a.start()), node_at(a.end() - 1)
        src, dst = (left, right) if a.group(1).endswith(">") else (right, left)
        arrows.append((float(m.group(2)), src, dst, label, comment))
        i += 2
    return arrows


def opcode_names(wrapper, plugins):
    rc, out, err = run([wrapper, plugins, "-G", "values"])
    names = {}
    for line in out.splitlines():
        c = line.split("\t")
        if len(c) == 4 and c[0] == "V" and c[1] == "rocev2.bth.opcode":
            names[int(c[2], 0)] = c[3]
    if len(names) < 50:
        raise RuntimeError(f"only {len(names)} opcode names from the plugin: {err.strip()}")
    return names


def check_capture(wrapper, plugins, tester, capture, names, mode):
    failures = []
    frames = builtin_frames(wrapper, capture)
    findings = lint_findings(tester, capture)
    rc, out, err = run([wrapper, plugins, "-r", capture, "-q", "-z", f"flow,rocev2,{mode}"])
    if rc != 0:
        return [f"{capture} ({mode}): tshark exit {rc}: {err.strip()}"], 0
    arrows = parse_ladder(out)
    order = sorted(frames)
    if len(arrows) != len(order):
        failures.append(f"{capture} ({mode}): {len(arrows)} arrows for {len(order)} frames with a BTH")
    for num, (time, src, dst, label, comment) in zip(order, arrows):
        fr = frames[num]
        where = f"{capture} frame {num} ({mode})"
        summary = comment.rsplit("; ", 1)[-1]
        notes = comment[:-len(summary)]

        def want(ok, what):
            if not ok:
                failures.append(f"{where}: {what}: label '{label}', comment '{comment}'")
        want(abs(time - fr["time"]) < 1e-6, f"time {time} where the frame's is {fr['time']}")
        gid = "GID: " if fr["rocev1"] else ""  # RoCE v1's nodes are its GIDs
        want((src, dst) == (gid + fr["src"], gid + fr["dst"]),
             f"arrow {src} -> {dst}, the frame goes {gid}{fr['src']} -> {gid}{fr['dst']}")
        want(summary.startswith("RoCE v1 ") == fr["rocev1"],
             "the summary " + ("does not say" if fr["rocev1"] else "says") + " RoCE v1")
        summary = summary[len("RoCE v1 "):] if fr["rocev1"] else summary
        want(f"QP=0x{fr['destqp']:06x}" in summary, f"no QP=0x{fr['destqp']:06x} in the summary")
        if fr["opcode"] == OPCODE_CNP:
            want(label == "CNP", "a CNP's label is not 'CNP'")
            want(summary.startswith("CNP QP="), "a CNP's comment does not end with its summary")
            continue
        want(label.startswith(f"PSN {fr['psn']} "), f"label does not start with PSN {fr['psn']}")
        want(f"PSN={fr['psn']}" in summary, f"no PSN={fr['psn']} in the summary")
        name = names.get(fr["opcode"], "")
        want(summary.startswith(name), f"the summary does not start with the opcode's name '{name}'")
        op = label.split(" ", 2)[2] if label.count(" ") >= 2 else ""
        syn = fr["syndrome"]
        is_ack = fr["opcode"] & 0x1F == OPERATION_ACK and fr["opcode"] < 0xC0
        if is_ack and (syn is None or fr["opcode"] >> 5 == RD):
            # an AETH the built-in does not show (XRC's), or reads as a
            # vendor's header (it decodes the RD range as DCT)
            want(re.match(r"^(ACK|RNR NAK|NAK)\b", op), "an acknowledgement's label does not say ACK or NAK")
        elif is_ack:
            kind = syn >> 5 & 3
            if kind == 0:
                want(op.startswith("ACK"), "an ACK's label does not say ACK")
            elif kind == 1:
                want(op.startswith("RNR NAK"), "an RNR NAK's label does not say RNR NAK")
            elif kind == 3:
                want(op.startswith("NAK"), "a NAK's label does not say NAK")
                code = NAK_CODES.get(syn & 0x1F)
                want(code is None or f"NAK {code}" in summary, f"comment does not name the NAK code '{code}'")
        else:
            want(op and short_name(name).startswith(op), f"label's operation '{op}' is not (a start of) '{name}'")
        # libroce's judgement of the frame
        codes = {c for c, _, _ in findings.get(num, [])}
        want(("Retransmission" in notes) == bool(codes & RETRANSMISSION_CODES),
             f"'Retransmission' in the notes {'without' if 'Retransmission' in notes else 'despite'}"
             f" lint's {sorted(codes & RETRANSMISSION_CODES) or 'no retransmission'}")
        for code, note in NOTE_OF_CODE.items():
            want((note in notes) == (code in codes), f"'{note}' and lint's {code} disagree")
        marks = set(re.findall(r"\b(warning|error) ([A-Za-z0-9.\-]+)", notes))
        lint_marks = {(sev, rule) for _, rule, sev in findings.get(num, []) if sev in ("warning", "error")}
        want(marks == lint_marks, f"rules {sorted(marks)} where lint finds {sorted(lint_marks)}")
    return failures, len(arrows)


def main():
    wrapper, plugins, tester = sys.argv[1:4]
    captures = sys.argv[4:]
    failures = []
    try:
        names = opcode_names(wrapper, plugins)
    except RuntimeError as e:
        print("FAIL:", e)
        return 1
    total = 0
    for cap in captures:
        for mode in ("standard", "network"):
            try:
                f, n = check_capture(wrapper, plugins, tester, cap, names, mode)
            except RuntimeError as e:
                f, n = [f"{cap} ({mode}): {e}"], 0
            failures += f
            total += n
            print(f"{'ok  ' if not f else 'FAIL'} {cap} ({mode}): {n} arrows, {len(f)} failures")
    for f in failures[:60]:
        print("FAIL:", f)
    if len(failures) > 60:
        print(f"... and {len(failures) - 60} more")
    if total == 0:
        print("FAIL: no arrow checked")
        return 1
    print(f"{total} arrows checked, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
