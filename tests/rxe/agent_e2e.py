#!/usr/bin/python3
"""End to end against Linux Soft-RoCE: roce-agent (ibverbs backend) in the rxe
VM, driven over its protocol from the harness's namespace, and RoCEv2 packets
crafted by libroce (roce-tester craft) exchanged with rxe on the tap device
(pcap_exchange, which decodes rxe's answers with libroce).

    agent_e2e.py --tester ROCE-TESTER --exchange PCAP-EXCHANGE

Run by scripts/rxe-vm/run-with-rxe, which exports ROCE_RXE_*. The namespace
plays the remote QP (QPN 0xabc). rxe as responder: SEND into a posted
receive, RDMA WRITE, RDMA READ, compare-and-swap, an out-of-sequence PSN
(NAK), a bad ICRC (dropped). rxe as requester: SEND and RDMA READ answered by
crafted packets. An RC SEND over IPv6; UD both ways. Every frame rxe sends
must carry a good ICRC and pass
`roce-tester lint`. Prints one line per check; exit 1 if any failed.
"""
import argparse
import base64
import json
import os
import socket
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "protocol"))
import agent_auth  # noqa: E402

TESTER_QPN = 0xABC
failures = 0


def check(cond, text):
    global failures
    print(("ok: " if cond else "FAIL: ") + text, flush=True)
    if not cond:
        failures += 1
    return cond


class Agent:
    """A roce-agent connection: one JSON request per line, one reply each."""

    def __init__(self, hostport):
        host, port = hostport.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=30)
        self.file = self.sock.makefile("rwb")
        self.next_id = 1

    def call(self, method, **params):
        req = {"id": self.next_id, "method": method, "params": params}
        self.next_id += 1
        self.file.write(json.dumps(req).encode() + b"\n")
        self.file.flush()
        line = self.file.readline()
        if not line:
            raise RuntimeError(f"{method}: the agent closed the connection")
        reply = json.loads(line)
        if reply.get("id") != req["id"]:
            raise RuntimeError(f"{method}: reply id {reply.get('id')} for request {req['id']}")
        return reply

    def ok(self, method, **params):
        reply = self.call(method, **params)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']['code']}: {reply['error']['message']}")
        return reply["result"]


class Wire:
    """Crafts frames with roce-tester and exchanges them with rxe."""

    def __init__(self, tester, exchange, tmp):
        self.tester, self.exchange, self.tmp = tester, exchange, tmp
        self.n = 0
        self.iface = os.environ["ROCE_RXE_IFACE"]
        self.macs = ["--src-mac", os.environ["ROCE_RXE_LOCAL_MAC"],
                     "--dst-mac", os.environ["ROCE_RXE_GUEST_MAC"]]

    def craft(self, opcode, payload=b"", ip=4, **fields):
        self.n += 1
        out = os.path.join(self.tmp, f"sent-{self.n}.pcap")
        # Addresses always given: craft's defaults follow the opcode's role
        # (a responder's packet goes from .2 to .1), and here we send them all.
        v = "IPV6" if ip == 6 else "IPV4"
        cmd = [self.tester, "craft", "--opcode", opcode, "-o", out, "--ip", str(ip),
               "--src", os.environ[f"ROCE_RXE_LOCAL_{v}"], "--dst", os.environ[f"ROCE_RXE_GUEST_{v}"]]
        if payload:
            cmd += ["--payload", payload.hex()]
        for name, value in fields.items():
            if name == "icrc_mistake":
                cmd += ["--icrc-mistake", value]
            else:
                cmd += ["--set", f"{name.replace('__', '.')}={value}"]
        subprocess.run(cmd, check=True, capture_output=True, timeout=30)
        return out

    def start(self, sends=(), expect=1, timeout_ms=5000, settle_ms=300):
        """Starts capturing (and sending); returns the running exchange."""
        self.n += 1
        capture = os.path.join(self.tmp, f"received-{self.n}.pcap")
        cmd = [self.exchange, "--iface", self.iface, *self.macs, "--expect", str(expect),
               "--timeout-ms", str(timeout_ms), "--settle-ms", str(settle_ms), "--write", capture]
        for s in sends:
            cmd += ["--send", s]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = proc.stdout.readline()
        if not first.startswith("capturing on"):
            proc.wait(timeout=10)
            raise RuntimeError(f"pcap_exchange did not start: {first}{proc.stderr.read()}")
        return proc, capture

    def finish(self, started):
        proc, capture = started
        out, err = proc.communicate(timeout=120)
        frames = parse_frames(out)
        if proc.returncode == 2:
            raise RuntimeError(f"pcap_exchange: {err.strip()}")
        if frames:
            lint = subprocess.run([self.tester, "lint", capture], capture_output=True, text=True,
                                  timeout=60)
            check(lint.returncode == 0, f"roce-tester lint passes what rxe sent ({capture})"
                  + ("" if lint.returncode == 0 else "\n" + lint.stdout + lint.stderr))
        for f in frames:
            check(f["icrc"] == "good", f"ICRC of rxe's '{f['summary']}' is good")
        if out.strip() and proc.returncode != 0:
            print("  | " + out.strip().replace("\n", "\n  | "))
        return frames, proc.returncode

    def exchange_frames(self, sends, expect=1, **kw):
        return self.finish(self.start(sends, expect, **kw))


def parse_frames(text):
    frames = []
    for line in text.splitlines():
        if line.startswith("frame "):
            frames.append({"summary": line.split(": ", 1)[1]})
        elif frames and line.startswith("  icrc="):
            frames[-1]["icrc"] = line.split()[0].split("=", 1)[1]
        elif frames and line.startswith("  ") and "=" in line:
            for kv in line.split():
                k, v = kv.split("=", 1)
                frames[-1][k] = int(v)
    return frames


def opcode_name(frame):
    return frame.get("summary", "").split(" QP=")[0]


def ipv6_and_ud(agent, wire, pd, cq, mr, gids):
    """An RC SEND over IPv6, and UD both ways over IPv4."""
    guest4 = os.environ["ROCE_RXE_GUEST_IPV4"]
    guest6 = os.environ["ROCE_RXE_GUEST_IPV6"]
    idx6 = [g["index"] for g in gids
            if g["type"] == "RoCEv2" and socket.inet_pton(socket.AF_INET6, g["gid"])
            == socket.inet_pton(socket.AF_INET6, guest6)]
    idx4 = [g["index"] for g in gids if g["type"] == "RoCEv2" and g["gid"] == f"::ffff:{guest4}"]
    if not check(len(idx6) == 1, f"list_gids: RoCEv2 GID {guest6} at index {idx6}"):
        return
    qp = agent.ok("create_qp", pd=pd, type="RC", send_cq=cq, recv_cq=cq)
    agent.ok("modify_qp", qp=qp["qp"], state="INIT", port=1, pkey_index=0, access=["LOCAL_WRITE"])
    agent.ok("modify_qp", qp=qp["qp"], state="RTR", dgid=os.environ["ROCE_RXE_LOCAL_IPV6"],
             sgid_index=idx6[0], path_mtu=1024, dest_qpn=TESTER_QPN, rq_psn=300,
             max_dest_rd_atomic=1, min_rnr_timer=12)
    agent.ok("modify_qp", qp=qp["qp"], state="RTS", sq_psn=900, timeout=18, retry_cnt=7,
             rnr_retry=7, max_rd_atomic=1)
    agent.ok("post_recv", qp=qp["qp"], wr_id=30, sge=[{"mr": mr["mr"], "offset": 3072, "length": 512}])
    frames, st = wire.exchange_frames([wire.craft("RC SEND Only", b"over IPv6", ip=6,
                                                  bth__destqp=qp["qpn"], bth__psn=300, bth__ackreq=1)])
    check(st == 0 and frames and opcode_name(frames[0]).startswith("RC Acknowledge: ACK")
          and frames[0].get("bth.psn") == 300 and "ipv6.hoplimit" in frames[0],
          f"IPv6 SEND PSN 300 -> {frames and frames[0]['summary']} (over IPv6)")
    wc = agent.ok("poll_cq", cq=cq, timeout_ms=3000)["completions"]
    check(len(wc) == 1 and wc[0]["wr_id"] == 30 and wc[0]["byte_len"] == 9,
          f"poll_cq: the IPv6 SEND completed a receive: {wc}")
    agent.ok("destroy_qp", qp=qp["qp"])

    qkey, peer_qpn = 0x11111111, 0xDEF
    ud = agent.ok("create_qp", pd=pd, type="UD", send_cq=cq, recv_cq=cq)
    agent.ok("modify_qp", qp=ud["qp"], state="INIT", port=1, pkey_index=0, qkey=qkey)
    agent.ok("modify_qp", qp=ud["qp"], state="RTR")
    agent.ok("modify_qp", qp=ud["qp"], state="RTS", sq_psn=0)
    agent.ok("post_recv", qp=ud["qp"], wr_id=40, sge=[{"mr": mr["mr"], "offset": 5000, "length": 512}])
    msg = b"a datagram for rxe"
    frames, st = wire.exchange_frames([wire.craft("UD SEND Only", msg, bth__destqp=ud["qpn"],
                                                  bth__psn=7, deth__qkey=qkey, deth__srcqp=peer_qpn)],
                                      expect=0, settle_ms=300)
    check(st == 0, "UD SEND: no answer on the wire (UD has none)")
    wc = agent.ok("poll_cq", cq=cq, timeout_ms=3000)["completions"]
    check(len(wc) == 1 and wc[0]["wr_id"] == 40 and wc[0]["status"] == "SUCCESS"
          and wc[0]["src_qp"] == peer_qpn and "GRH" in wc[0]["wc_flags"]
          and wc[0]["byte_len"] == 40 + len(msg),
          f"poll_cq: the UD SEND arrived with the GRH, from QP {peer_qpn:#x}: {wc}")
    data = base64.b64decode(agent.ok("read_mr", mr=mr["mr"], offset=5040, length=len(msg))["data"])
    check(data == msg, "read_mr: the datagram follows the 40-byte GRH")
    ah = agent.ok("create_ah", pd=pd, dgid=os.environ["ROCE_RXE_LOCAL_IPV4"], sgid_index=idx4[0])
    started = wire.start(expect=1, settle_ms=0)
    agent.ok("post_send", qp=ud["qp"], wr_id=41, opcode="SEND", ah=ah["ah"], remote_qpn=peer_qpn,
             remote_qkey=qkey, sge=[{"mr": mr["mr"], "offset": 5040, "length": len(msg)}])
    frames, st = wire.finish(started)
    f = frames[0] if frames else {}
    check(st == 0 and opcode_name(f) == "UD SEND Only" and f.get("bth.destqp") == peer_qpn
          and f.get("deth.qkey") == qkey and f.get("deth.srcqp") == ud["qpn"],
          f"post_send UD SEND -> {f.get('summary')} (Q_Key {f.get('deth.qkey', 0):#x}, "
          f"source QP {f.get('deth.srcqp', 0):#x})")
    wc = agent.ok("poll_cq", cq=cq, timeout_ms=3000)["completions"]
    check(len(wc) == 1 and wc[0]["wr_id"] == 41 and wc[0]["status"] == "SUCCESS",
          f"poll_cq: the UD SEND completed: {wc}")
    agent.ok("destroy_ah", ah=ah["ah"])
    agent.ok("destroy_qp", qp=ud["qp"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tester", required=True)
    ap.add_argument("--exchange", required=True)
    args = ap.parse_args()
    for var in ("ROCE_RXE_AGENT", "ROCE_RXE_TOKEN_FILE", "ROCE_RXE_IFACE"):
        if not os.environ.get(var):
            print(f"agent_e2e: {var} is not set (run under run-with-rxe with --agent)")
            return 2
    with open(os.environ["ROCE_RXE_TOKEN_FILE"]) as f:
        token = f.read().strip()
    guest4 = os.environ["ROCE_RXE_GUEST_IPV4"]
    local4 = os.environ["ROCE_RXE_LOCAL_IPV4"]

    agent = Agent(os.environ["ROCE_RXE_AGENT"])
    r = agent.call("query_device")
    check(r.get("error", {}).get("code") == "unauthenticated", "a request before hello is refused")
    hello = agent_auth.handshake(agent.call, token)
    check(hello["backend"] == "ibverbs" and hello["device"] == "rxe0",
          f"hello: backend {hello['backend']}, device {hello['device']}")
    dev = agent.ok("query_device")
    check({"RC", "UC", "UD", "ATOMIC", "IPV4", "IPV6"} <= set(dev["capabilities"]),
          f"query_device: {dev['name']} capabilities {dev['capabilities']}")
    port = agent.ok("query_port", port=1)
    check(port["state"] == "ACTIVE" and port["netdev"] == "eth0",
          f"query_port: {port['state']} on {port['netdev']}, active_mtu {port['active_mtu']}")
    gids = agent.ok("list_gids", port=1)["gids"]
    sgid = [g["index"] for g in gids if g["type"] == "RoCEv2" and g["gid"] == f"::ffff:{guest4}"]
    check(len(sgid) == 1, f"list_gids: RoCEv2 GID ::ffff:{guest4} at index {sgid}")
    if not sgid:
        return 1
    sgid = sgid[0]

    pd = agent.ok("alloc_pd")["pd"]
    cq = agent.ok("create_cq", cqe=64)["cq"]
    mr = agent.ok("reg_mr", pd=pd, length=8192,
                  access=["LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC"])
    qp = agent.ok("create_qp", pd=pd, type="RC", send_cq=cq, recv_cq=cq)
    qpn = qp["qpn"]
    r = agent.call("modify_qp", qp=qp["qp"], state="INIT")
    check(r.get("error", {}).get("code") == "bad_request" and "access" in r["error"]["message"],
          f"RESET->INIT without attributes: {r.get('error')}")
    agent.ok("modify_qp", qp=qp["qp"], state="INIT", port=1, pkey_index=0,
             access=["LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC"])
    agent.ok("modify_qp", qp=qp["qp"], state="RTR", dgid=f"::ffff:{local4}", sgid_index=sgid,
             hop_limit=64, path_mtu=1024, dest_qpn=TESTER_QPN, rq_psn=100, max_dest_rd_atomic=4,
             min_rnr_timer=12)
    # A long ACK timeout (4.096 us * 2^18, about 1 s): the namespace answers rxe's
    # requests by hand.
    agent.ok("modify_qp", qp=qp["qp"], state="RTS", sq_psn=500, timeout=18, retry_cnt=7,
             rnr_retry=7, max_rd_atomic=4)
    q = agent.ok("query_qp", qp=qp["qp"])
    check(q["state"] == "RTS" and q["dest_qpn"] == TESTER_QPN and q["rq_psn"] == 100
          and q["sq_psn"] == 500 and q["path_mtu"] == 1024,
          f"query_qp: {q['state']}, dest_qpn {q['dest_qpn']:#x}, psn {q['sq_psn']}/{q['rq_psn']}")
    for wr_id in (1, 2):
        agent.ok("post_recv", qp=qp["qp"], wr_id=wr_id,
                 sge=[{"mr": mr["mr"], "offset": 1024 * wr_id, "length": 1024}])
    before = agent.ok("read_counters", port=1)["counters"]

    with tempfile.TemporaryDirectory() as tmp:
        wire = Wire(args.tester, args.exchange, tmp)

        # SEND from the namespace lands in the posted receive; rxe ACKs it.
        msg = b"hello from the namespace"
        frames, st = wire.exchange_frames([wire.craft("RC SEND Only", msg, bth__destqp=qpn,
                                                      bth__psn=100, bth__ackreq=1)])
        ack = frames[0] if frames else {}
        check(st == 0 and opcode_name(ack).startswith("RC Acknowledge: ACK"),
              f"SEND PSN 100 -> {ack.get('summary')}")
        check(ack.get("bth.destqp") == TESTER_QPN and ack.get("bth.psn") == 100
              and ack.get("aeth.msn") == 1, "the ACK names our QP, PSN 100, MSN 1")
        wc = agent.ok("poll_cq", cq=cq, timeout_ms=3000)["completions"]
        check(len(wc) == 1 and wc[0]["status"] == "SUCCESS" and wc[0]["opcode"] == "RECV"
              and wc[0]["wr_id"] == 1 and wc[0]["byte_len"] == len(msg),
              f"poll_cq: the receive completed: {wc}")
        data = base64.b64decode(agent.ok("read_mr", mr=mr["mr"], offset=1024,
                                         length=len(msg))["data"])
        check(data == msg, f"read_mr: the SEND's payload is in the buffer ({data!r})")

        # RDMA WRITE into the MR.
        blob = bytes(range(64))
        frames, st = wire.exchange_frames([wire.craft(
            "RC RDMA WRITE Only", blob, bth__destqp=qpn, bth__psn=101, bth__ackreq=1,
            reth__va=mr["addr"] + 4096, reth__rkey=mr["rkey"], reth__dmalen=len(blob))])
        check(st == 0 and frames and opcode_name(frames[0]).startswith("RC Acknowledge: ACK")
              and frames[0].get("bth.psn") == 101, f"WRITE PSN 101 -> {frames and frames[0]['summary']}")
        data = base64.b64decode(agent.ok("read_mr", mr=mr["mr"], offset=4096, length=64)["data"])
        check(data == blob, "read_mr: the WRITE's data is in place")

        # RDMA READ back what was written.
        frames, st = wire.exchange_frames([wire.craft(
            "RC RDMA READ Request", bth__destqp=qpn, bth__psn=102,
            reth__va=mr["addr"] + 4096, reth__rkey=mr["rkey"], reth__dmalen=32)])
        check(st == 0 and frames and opcode_name(frames[0]).startswith("RC RDMA READ Response Only")
              and frames[0].get("bth.psn") == 102,
              f"READ PSN 102 (32 bytes) -> {frames and frames[0]['summary']}")

        # Compare-and-swap on a word of the MR.
        agent.ok("write_mr", mr=mr["mr"], offset=6000,
                 data=base64.b64encode((7).to_bytes(8, "little")).decode())
        frames, st = wire.exchange_frames([wire.craft(
            "RC CmpSwap", bth__destqp=qpn, bth__psn=103, bth__ackreq=1,
            atomiceth__va=mr["addr"] + 6000, atomiceth__rkey=mr["rkey"],
            atomiceth__cmpdt=7, atomiceth__swapdt=99)])
        check(st == 0 and frames and opcode_name(frames[0]).startswith("RC Atomic Acknowledge")
              and frames[0].get("atomicacketh.orig") == 7,
              f"CmpSwap PSN 103 -> {frames and frames[0]['summary']}, original "
              f"{frames and frames[0].get('atomicacketh.orig')}")
        data = base64.b64decode(agent.ok("read_mr", mr=mr["mr"], offset=6000, length=8)["data"])
        check(int.from_bytes(data, "little") == 99, "read_mr: the word was swapped")

        # A PSN from the future: NAK PSN Sequence Error naming the expected PSN.
        frames, st = wire.exchange_frames([wire.craft("RC SEND Only", b"early", bth__destqp=qpn,
                                                      bth__psn=110, bth__ackreq=1)])
        check(st == 0 and frames and "NAK PSN Sequence Error" in frames[0]["summary"]
              and frames[0].get("bth.psn") == 104,
              f"SEND PSN 110 (104 expected) -> {frames and frames[0]['summary']}")

        # A bad ICRC: rxe drops the packet, says nothing, and takes it when good.
        frames, st = wire.exchange_frames([wire.craft(
            "RC SEND Only", b"bad crc", bth__destqp=qpn, bth__psn=104, bth__ackreq=1,
            icrc_mistake="not-inverted")], expect=0, settle_ms=1000)
        check(st == 0 and not frames, "a SEND with a bad ICRC gets no answer")
        frames, st = wire.exchange_frames([wire.craft("RC SEND Only", b"good crc", bth__destqp=qpn,
                                                      bth__psn=104, bth__ackreq=1)])
        check(st == 0 and frames and opcode_name(frames[0]).startswith("RC Acknowledge: ACK")
              and frames[0].get("bth.psn") == 104, "the same SEND with a good ICRC is ACKed")
        wc = agent.ok("poll_cq", cq=cq, timeout_ms=3000)["completions"]
        check(len(wc) == 1 and wc[0]["wr_id"] == 2 and wc[0]["byte_len"] == 8,
              f"poll_cq: only the good SEND completed a receive: {wc}")

        # rxe as requester: its SEND, acknowledged by a crafted ACK.
        agent.ok("write_mr", mr=mr["mr"], offset=0, data=base64.b64encode(b"ping from rxe").decode())
        started = wire.start(expect=1, settle_ms=0)
        agent.ok("post_send", qp=qp["qp"], wr_id=10, opcode="SEND",
                 sge=[{"mr": mr["mr"], "offset": 0, "length": 13}])
        frames, st = wire.finish(started)
        f = frames[0] if frames else {}
        check(st == 0 and opcode_name(f) == "RC SEND Only" and f.get("bth.psn") == 500
              and f.get("bth.destqp") == TESTER_QPN and f.get("bth.ackreq") == 1,
              f"post_send SEND -> {f.get('summary')} (AckReq {f.get('bth.ackreq')})")
        frames, st = wire.exchange_frames([wire.craft(
            "RC Acknowledge", bth__destqp=qpn, bth__psn=500, aeth__syndrome=0x1F, aeth__msn=1)],
            expect=0, settle_ms=300)
        check(st == 0, "after our ACK rxe does not retransmit")
        wc = agent.ok("poll_cq", cq=cq, timeout_ms=3000)["completions"]
        check(len(wc) == 1 and wc[0]["wr_id"] == 10 and wc[0]["status"] == "SUCCESS"
              and wc[0]["opcode"] == "SEND", f"poll_cq: the SEND completed: {wc}")

        # rxe as requester: an RDMA READ, answered by a crafted READ response.
        started = wire.start(expect=1, settle_ms=0)
        agent.ok("post_send", qp=qp["qp"], wr_id=11, opcode="RDMA_READ", remote_addr=0x10000,
                 rkey=0x1234, sge=[{"mr": mr["mr"], "offset": 7000, "length": 16}])
        frames, st = wire.finish(started)
        f = frames[0] if frames else {}
        check(st == 0 and opcode_name(f) == "RC RDMA READ Request" and f.get("bth.psn") == 501
              and f.get("reth.va") == 0x10000 and f.get("reth.rkey") == 0x1234
              and f.get("reth.dmalen") == 16, f"post_send RDMA_READ -> {f.get('summary')}")
        reply = b"0123456789abcdef"
        frames, st = wire.exchange_frames([wire.craft(
            "RC RDMA READ Response Only", reply, bth__destqp=qpn, bth__psn=501,
            aeth__syndrome=0x1F, aeth__msn=2)], expect=0, settle_ms=300)
        wc = agent.ok("poll_cq", cq=cq, timeout_ms=3000)["completions"]
        check(len(wc) == 1 and wc[0]["wr_id"] == 11 and wc[0]["status"] == "SUCCESS"
              and wc[0]["opcode"] == "RDMA_READ", f"poll_cq: the READ completed: {wc}")
        data = base64.b64decode(agent.ok("read_mr", mr=mr["mr"], offset=7000, length=16)["data"])
        check(data == reply, "read_mr: the READ response's data is in place")

        ipv6_and_ud(agent, wire, pd, cq, mr, gids)

    after = agent.ok("read_counters", port=1)["counters"]
    check(after.get("rcvd_pkts", 0) > before.get("rcvd_pkts", 0)
          and after.get("sent_pkts", 0) > before.get("sent_pkts", 0)
          and after.get("out_of_seq_request", 0) > before.get("out_of_seq_request", 0),
          "read_counters: rcvd_pkts, sent_pkts, out_of_seq_request went up ("
          + ", ".join(f"{k} {before.get(k)}->{after.get(k)}"
                      for k in ("rcvd_pkts", "sent_pkts", "out_of_seq_request")) + ")")
    agent.ok("bye")
    print(f"agent_e2e: {'all passed' if not failures else f'{failures} failed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
