/*
 * The soft DUT's receive path on frames from a hostile peer: validation,
 * the responder (RC/UC/UD: SEND, WRITE, READ, atomics, duplicates) and the
 * requester (ACKs, NAKs, READ responses, atomic ACKs), under every fault
 * profile, and on a dual-mode port RoCE v1 frames too. Each input gets a fresh detached device set up as a tester
 * would (see struct rig), then its frames, then the requester's timers.
 *
 * Checked beyond "no crash, no leak" (ASan watches every MR buffer's
 * edges):
 * - memory of another PD is never touched;
 * - a request whose RETH / AtomicETH range lies inside no MR of the QP's
 *   PD changes no MR byte (the DUT NAKs or drops, it never touches), and
 *   a READ of such a range gets no READ response (no data leaves); the
 *   range is the one the DUT reads (see dmalen_of);
 * - without a fault profile, every frame the DUT sends parses, is
 *   complete, carries a good ICRC and breaks no error-severity check.
 *
 * Input: two control bytes, then records.
 *   control  byte 0: the fault profile (0 and values past the last one:
 *            none); byte 1: bit 0 --rcm, bit 1 --rocev1 (a dual-mode
 *            port, whose RoCE v1 GID the last RC QP uses; otherwise it is
 *            a second RoCEv2 one)
 *   record   length (2 bytes, big-endian), keep byte, frame
 *            The harness recomputes the IPv4 header checksum and the ICRC
 *            (RoCE v1's over the GRH)
 *            of every frame (so that mutations reach the transport) unless
 *            keep bit 0 (the ICRC as given) or bit 1 (the checksum) is set.
 */
#include "../fuzz.h"

#include <string.h>

#include "agent.h"
#include "soft/soft.h"

enum { MR_RW, MR_RO, MR_SMALL, MR_OTHER, N_MR };
enum { QP_RC4, QP_UC4, QP_UD, QP_RC6, QP_RCV1, N_QP };

struct rig {
	struct soft_dev *dev;
	struct be_pd *pd, *pd2;
	struct be_cq *cq;
	struct be_mr *mr[N_MR];
	struct be_qp *qp[N_QP];
	uint8_t *snap[N_MR];
	bool tx_check;
	unsigned tx_frames;
	unsigned tx_read_responses;
};

#define PEER_QPN 0x100
#define UD_QKEY 0x11111111u

static const uint8_t dut_mac[6] = { 0x02, 0, 0, 0, 0, 1 }, peer_mac[6] = { 0x02, 0, 0, 0, 0, 2 };
static const uint8_t dut4[4] = { 198, 18, 0, 1 }, peer4[16] = { 198, 18, 0, 2 };
static const uint8_t dut6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t peer6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

/* bug-undefined-opcode-crash ends the process on purpose (the host went
 * down with rxe): under the fuzzer that is the profile working, not a
 * finding, so the harness runs it as no profile. */
static const struct soft_fault_info *fault_of(unsigned f)
{
	if (f == SOFT_FAULT_BUG_UNDEFINED_OPCODE_CRASH)
		return NULL;
	return f && f < SOFT_FAULT_COUNT ? soft_fault_info((enum soft_fault)f) : NULL;
}

static void ok(int rc, const struct be_error *err, const char *what)
{
	FUZZ_CHECK(rc == 0, "set-up: %s: %s", what, err->message);
}

static void tx_tap(void *ctx, const uint8_t *frame, size_t len)
{
	struct rig *r = ctx;
	r->tx_frames++;
	struct roce_pkt p;
	enum roce_code e = roce_parse_frame(&p, frame, len, len, ROCE_PARSE_ROCEV1);
	if (p.op && p.op->kind == ROCE_K_READ_RESP)
		r->tx_read_responses++;
	if (!r->tx_check)
		return;
	FUZZ_CHECK(e == ROCE_OK && p.complete, "the DUT sent a frame that does not parse: %d", e);
	struct roce_check_opts o = { ROCE_CHK_ICRC | ROCE_CHK_SENDER, 0 };
	struct roce_finding f[16];
	size_t n = roce_check(&p, &o, f, 16);
	for (size_t i = 0; i < n && i < 16; i++) {
		char text[256];
		roce_finding_format(&f[i], text, sizeof text);
		FUZZ_CHECK(roce_code_info(f[i].code)->severity != ROCE_SEV_ERROR, "the DUT sent a bad frame: %s", text);
	}
}

/* sgid: the source GID's index (0 IPv4, 1 IPv6, 2 IPv4 as RoCE v1). */
static void rts(struct rig *r, struct be_qp *qp, enum be_qp_type t, unsigned sgid, uint32_t dest)
{
	struct be_error err = { 0 };
	struct be_qp_attr a = { .mask = BE_QPA_STATE | BE_QPA_PORT | BE_QPA_PKEY_INDEX, .state = BE_QPS_INIT, .port = 1 };
	if (t == BE_QPT_UD) {
		a.mask |= BE_QPA_QKEY;
		a.qkey = UD_QKEY;
	} else {
		a.mask |= BE_QPA_ACCESS;
		a.access = BE_ACCESS_REMOTE_WRITE | BE_ACCESS_REMOTE_READ | BE_ACCESS_REMOTE_ATOMIC;
	}
	ok(soft_ops.modify_qp(qp, &a, &err), &err, "INIT");
	memset(&a, 0, sizeof a);
	a.mask = BE_QPA_STATE;
	a.state = BE_QPS_RTR;
	if (t != BE_QPT_UD) {
		a.mask |= BE_QPA_AV | BE_QPA_PATH_MTU | BE_QPA_DEST_QPN | BE_QPA_RQ_PSN;
		a.path_mtu = 1024;
		a.dest_qpn = dest;
		a.rq_psn = 0;
		a.av.hop_limit = 64;
		a.av.port = 1;
		a.av.sgid_index = sgid;
		if (sgid != 1) {
			roce_gid_from_ip(4, peer4, a.av.dgid);
		} else {
			memcpy(a.av.dgid, peer6, 16);
		}
	}
	if (t == BE_QPT_RC) {
		a.mask |= BE_QPA_MAX_DEST_RD_ATOMIC | BE_QPA_MIN_RNR_TIMER;
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = 1;
	}
	ok(soft_ops.modify_qp(qp, &a, &err), &err, "RTR");
	memset(&a, 0, sizeof a);
	a.mask = BE_QPA_STATE | BE_QPA_SQ_PSN;
	a.state = BE_QPS_RTS;
	if (t == BE_QPT_RC) {
		a.mask |= BE_QPA_TIMEOUT | BE_QPA_RETRY_CNT | BE_QPA_RNR_RETRY | BE_QPA_MAX_RD_ATOMIC;
		a.timeout = 14;
		a.retry_cnt = 3;
		a.rnr_retry = 3;
		a.max_rd_atomic = 4;
	}
	ok(soft_ops.modify_qp(qp, &a, &err), &err, "RTS");
	(void)r;
}

static void recv_wqe(struct be_qp *qp, struct be_mr *mr, uint64_t off, uint32_t len, uint64_t id)
{
	struct be_sge sge = { mr, off, len };
	struct be_recv_wr wr = { .wr_id = id, .sge = &sge, .num_sge = 1 };
	struct be_error err = { 0 };
	ok(soft_ops.post_recv(qp, &wr, &err), &err, "post_recv");
}

static void setup(struct rig *r, unsigned fault, bool rcm, bool rocev1)
{
	memset(r, 0, sizeof *r);
	struct backend_options o = { .rcm = rcm, .rocev1 = rocev1 };
	const struct soft_fault_info *fi = fault_of(fault);
	o.fault = fi ? fi->name : NULL;
	char msg[256];
	r->dev = soft_dev_new(&o, msg, sizeof msg);
	FUZZ_CHECK(r->dev, "soft_dev_new: %s", msg);
	struct soft_dev *dev = r->dev;
	memcpy(dev->mac, dut_mac, 6);
	roce_gid_from_ip(4, dut4, dev->gids[0].gid);
	dev->gids[0].ip_version = 4;
	memcpy(dev->gids[1].gid, dut6, 16);
	dev->gids[1].ip_version = 6;
	dev->n_gids = 2;
	/* A dual-mode port lists each address again as a RoCE v1 GID. */
	for (unsigned i = 0; rocev1 && i < 2; i++) {
		dev->gids[dev->n_gids] = dev->gids[i];
		dev->gids[dev->n_gids++].rocev1 = true;
	}
	soft_neigh_learn(dev, 4, peer4, peer_mac);
	soft_neigh_learn(dev, 6, peer6, peer_mac);
	dev->tx_tap = tx_tap;
	dev->tx_tap_ctx = r;
	r->tx_check = !fi;

	struct be_error err = { 0 };
	ok(soft_ops.alloc_pd(&dev->base, &r->pd, &err), &err, "pd");
	ok(soft_ops.alloc_pd(&dev->base, &r->pd2, &err), &err, "pd2");
	ok(soft_ops.create_cq(&dev->base, 256, &r->cq, &err), &err, "cq");
	const unsigned all = BE_ACCESS_LOCAL_WRITE | BE_ACCESS_REMOTE_WRITE | BE_ACCESS_REMOTE_READ |
			     BE_ACCESS_REMOTE_ATOMIC;
	ok(soft_ops.reg_mr(r->pd, 4096, all, 0x11, &r->mr[MR_RW], &err), &err, "mr rw");
	ok(soft_ops.reg_mr(r->pd, 4096, BE_ACCESS_LOCAL_WRITE | BE_ACCESS_REMOTE_READ, 0x22, &r->mr[MR_RO], &err),
	   &err, "mr ro");
	ok(soft_ops.reg_mr(r->pd, 64, all, 0x33, &r->mr[MR_SMALL], &err), &err, "mr small");
	ok(soft_ops.reg_mr(r->pd2, 4096, all, 0x44, &r->mr[MR_OTHER], &err), &err, "mr other");

	static const enum be_qp_type types[N_QP] = { BE_QPT_RC, BE_QPT_UC, BE_QPT_UD, BE_QPT_RC, BE_QPT_RC };
	for (int i = 0; i < N_QP; i++) {
		struct be_qp_init init = { .type = types[i], .send_cq = r->cq, .recv_cq = r->cq,
					   .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 4,
					   .max_recv_sge = 4 };
		uint32_t qpn;
		ok(soft_ops.create_qp(r->pd, &init, &r->qp[i], &qpn, &err), &err, "create_qp");
		rts(r, r->qp[i], types[i], i == QP_RC6 ? 1 : i == QP_RCV1 && rocev1 ? 2 : 0, PEER_QPN + (uint32_t)i);
	}
	for (int k = 0; k < 4; k++)
		recv_wqe(r->qp[QP_RC4], r->mr[MR_RW], (uint64_t)k * 1024, 1024, 100 + (uint64_t)k);
	recv_wqe(r->qp[QP_UC4], r->mr[MR_RW], 0, 2048, 200);
	recv_wqe(r->qp[QP_UC4], r->mr[MR_RW], 2048, 2048, 201);
	recv_wqe(r->qp[QP_UD], r->mr[MR_RW], 0, 4096, 300);
	recv_wqe(r->qp[QP_UD], r->mr[MR_SMALL], 0, 64, 301);
	recv_wqe(r->qp[QP_RC6], r->mr[MR_SMALL], 0, 64, 400);
	recv_wqe(r->qp[QP_RCV1], r->mr[MR_RW], 0, 4096, 500);

	/* Outstanding requests of the RC QP, so that responses have something
	 * to answer: SEND (PSN 0), READ 64 bytes (PSN 1), Fetch&Add (PSN 2). */
	struct be_sge s_send = { r->mr[MR_RO], 0, 16 }, s_read = { r->mr[MR_RW], 3000, 64 },
		      s_atom = { r->mr[MR_SMALL], 56, 8 };
	struct be_send_wr w1 = { .wr_id = 1, .opcode = BE_WR_SEND, .sge = &s_send, .num_sge = 1, .signaled = true };
	struct be_send_wr w2 = { .wr_id = 2, .opcode = BE_WR_RDMA_READ, .sge = &s_read, .num_sge = 1,
				 .signaled = true, .remote_addr = 0x7000, .rkey = 0x99 };
	struct be_send_wr w3 = { .wr_id = 3, .opcode = BE_WR_ATOMIC_FETCH_AND_ADD, .sge = &s_atom, .num_sge = 1,
				 .signaled = true, .remote_addr = 0x8000, .rkey = 0x99, .compare_add = 5 };
	ok(soft_ops.post_send(r->qp[QP_RC4], &w1, &err), &err, "send");
	ok(soft_ops.post_send(r->qp[QP_RC4], &w2, &err), &err, "read");
	ok(soft_ops.post_send(r->qp[QP_RC4], &w3, &err), &err, "atomic");
}

static void teardown(struct rig *r)
{
	struct be_error err = { 0 };
	for (int i = 0; i < N_QP; i++)
		ok(soft_ops.destroy_qp(r->qp[i], &err), &err, "destroy_qp");
	for (int i = 0; i < N_MR; i++) {
		ok(soft_ops.dereg_mr(r->mr[i], &err), &err, "dereg_mr");
		free(r->snap[i]);
	}
	ok(soft_ops.destroy_cq(r->cq, &err), &err, "destroy_cq");
	ok(soft_ops.dealloc_pd(r->pd, &err), &err, "pd");
	ok(soft_ops.dealloc_pd(r->pd2, &err), &err, "pd2");
	soft_backend_close(&r->dev->base);
}

/* The DMA Length the DUT acts on. dmalen-31bit misreads it on purpose,
 * as 31 bits (2^31 + n serves n bytes, 2^31 a READ of none): hold the DUT
 * to the range it reads, not the one on the wire, which no MR holds. */
static uint32_t dmalen_of(const struct rig *r, const uint8_t *reth)
{
	uint32_t len = roce_reth_dmalen(reth);
	return SOFT_FAULT_ON(r->dev, DMALEN_31BIT) ? len & 0x7FFFFFFFu : len;
}

/* Whether [va, va + len) lies inside an MR of pd (whatever its key). */
static bool inside_some_mr(const struct rig *r, uint64_t va, uint64_t len)
{
	for (int i = 0; i < N_MR; i++) {
		const struct be_mr *m = r->mr[i];
		if (m->pd == r->pd && va >= m->addr && len <= m->length && va - m->addr <= m->length - len)
			return true;
	}
	return false;
}

static void snapshot(struct rig *r)
{
	for (int i = 0; i < N_MR; i++) {
		if (!r->snap[i])
			r->snap[i] = malloc(r->mr[i]->length);
		memcpy(r->snap[i], r->mr[i]->buf, r->mr[i]->length);
	}
}

static bool unchanged(const struct rig *r, int i)
{
	return memcmp(r->snap[i], r->mr[i]->buf, r->mr[i]->length) == 0;
}

static void fix(uint8_t *f, size_t len, unsigned keep)
{
	struct roce_pkt p;
	roce_parse_frame(&p, f, len, len, ROCE_PARSE_ROCEV1);
	uint8_t *ip = (uint8_t *)roce_pkt_hdr(&p, ROCE_H_IPV4);
	if (!(keep & 2) && ip)
		roce_ipv4_set_csum(ip, roce_ipv4_checksum(ip, p.ip_hdr_len));
	if (!(keep & 1) && p.err == ROCE_OK && p.complete) {
		const uint8_t *l3 = p.buf + p.hdr_off[p.rocev1 ? ROCE_H_GRH : p.ip_version == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4];
		size_t n = (size_t)(f + p.icrc_off - l3);
		roce_le32_store(f + p.icrc_off, p.rocev1 ? roce_icrc_v1(l3, n) : roce_icrc(l3, n));
	}
}

static void one_frame(struct rig *r, const uint8_t *frame, size_t len)
{
	/* The range the request names, when it names one. */
	struct roce_pkt p;
	bool outside = false, read = false;
	if (roce_parse_frame(&p, frame, len, len, ROCE_PARSE_ROCEV1) == ROCE_OK) {
		read = p.op->kind == ROCE_K_READ_REQ;
		const uint8_t *h;
		if ((h = roce_pkt_hdr(&p, ROCE_H_RETH)) && dmalen_of(r, h))
			outside = !inside_some_mr(r, roce_reth_va(h), dmalen_of(r, h));
		if ((h = roce_pkt_hdr(&p, ROCE_H_ATOMICETH)))
			outside = !inside_some_mr(r, roce_atomiceth_va(h), 8);
	}
	snapshot(r);
	unsigned responses = r->tx_read_responses;
	soft_rx_frame(r->dev, frame, len);
	FUZZ_CHECK(unchanged(r, MR_OTHER), "another PD's memory changed");
	/* Not even a duplicate may read outside: duplicates are served only
	 * inside the range of the READ they repeat. */
	if (outside && read)
		FUZZ_CHECK(r->tx_read_responses == responses, "a READ outside every MR was answered with data");
	if (outside)
		for (int i = 0; i < N_MR; i++)
			FUZZ_CHECK(unchanged(r, i), "a request outside every MR changed MR %d", i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	struct rig r;
	setup(&r, data[0], data[1] & 1, data[1] & 2);
	size_t off = 2;
	static uint8_t frame[sizeof r.dev->rxbuf];
	for (int n = 0; n < 64 && size - off >= 3; n++) {
		size_t len = (size_t)data[off] << 8 | data[off + 1];
		unsigned keep = data[off + 2];
		off += 3;
		if (len > size - off)
			len = size - off;
		if (len > sizeof frame)
			len = sizeof frame;
		/* An exact-size copy: a read past the frame is an ASan report. */
		uint8_t *f = malloc(len ? len : 1);
		memcpy(f, data + off, len);
		off += len;
		fix(f, len, keep);
		one_frame(&r, f, len);
		free(f);
	}
	/* The requester's timers, as if every deadline had passed. */
	for (int i = 0; i < N_QP; i++) {
		snapshot(&r);
		soft_req_timers(r.qp[i], INT64_MAX / 4);
		FUZZ_CHECK(unchanged(&r, MR_OTHER), "another PD's memory changed on a timer");
	}
	struct be_wc wc[64];
	unsigned n;
	struct be_error err = { 0 };
	unsigned completions = 0;
	while (soft_ops.poll_cq(r.cq, wc, 64, &n, &err) == 0 && n)
		completions += n;
	if (getenv("ROCE_FUZZ_VERBOSE")) {
		const struct soft_counters *c = &r.dev->cnt;
		fprintf(stderr, "soft_rx: %llu frames for the DUT, %llu valid, %u sent, %u completions; "
			"drops: icrc %llu ip %llu addr %llu state %llu; NAKs: seq %llu inv %llu access %llu\n",
			(unsigned long long)c->rx_frames, (unsigned long long)c->rx_packets, r.tx_frames,
			completions, (unsigned long long)c->rx_drop_icrc, (unsigned long long)c->rx_drop_ip,
			(unsigned long long)c->rx_drop_addr, (unsigned long long)c->rx_drop_qp_state,
			(unsigned long long)c->tx_nak_psn_seq, (unsigned long long)c->tx_nak_inv_req,
			(unsigned long long)c->tx_nak_rem_access);
	}
	teardown(&r);
	return 0;
}

/* ---- Seeds: requests and responses a peer sends, in and just outside
 * the MRs, built with libroce against the same set-up ---- */

struct seed {
	uint8_t buf[16384];
	size_t len;
};

#define SEED_RCM 1u
#define SEED_ROCEV1 2u

static void seed_start(struct seed *s, unsigned fault, unsigned flags)
{
	s->buf[0] = (uint8_t)fault;
	s->buf[1] = (uint8_t)flags;
	s->len = 2;
}

/* A frame from the peer to QP i of the rig, in the QP's protocol (proto
 * -1), as RoCEv2 (0) or as RoCE v1 (1). */
static void seed_frame_proto(struct seed *s, struct rig *r, int i, int proto, uint8_t opcode, uint32_t psn,
			     void (*edit)(struct roce_desc *, const struct rig *, const void *), const void *arg,
			     size_t payload_len)
{
	struct be_qp *qp = r->qp[i];
	struct roce_endpoint ep = qp->ep;
	if (i == QP_UD) {
		ep.ip_version = 4;
		memset(ep.src_ip, 0, 16);
		memset(ep.dst_ip, 0, 16);
		memcpy(ep.src_ip, dut4, 4);
		memcpy(ep.dst_ip, peer4, 4);
		ep.hop_limit = 64;
	}
	/* Swap the direction: the peer sends to the DUT. */
	struct roce_endpoint peer = ep;
	memcpy(peer.src_mac, peer_mac, 6);
	memcpy(peer.dst_mac, dut_mac, 6);
	memcpy(peer.src_ip, ep.dst_ip, 16);
	memcpy(peer.dst_ip, ep.src_ip, 16);
	peer.dest_qpn = qp->qpn;
	peer.traffic_class = 0;
	if (proto >= 0)
		peer.rocev1 = proto == 1;
	struct roce_desc d;
	roce_endpoint_desc(&peer, &d, opcode, psn);
	static uint8_t payload[4096];
	memset(payload, 0xA5, sizeof payload);
	d.payload = payload;
	d.payload_len = payload_len;
	if (i == QP_UD)
		roce_deth_set_qkey(roce_desc_hdr(&d, ROCE_H_DETH), UD_QKEY);
	if (edit)
		edit(&d, r, arg);
	long n = roce_build_frame(&d, s->buf + s->len + 3, sizeof s->buf - s->len - 3);
	FUZZ_CHECK(n > 0, "seed frame: %ld", n);
	s->buf[s->len] = (uint8_t)(n >> 8);
	s->buf[s->len + 1] = (uint8_t)n;
	s->buf[s->len + 2] = 0;
	s->len += 3 + (size_t)n;
}

static void seed_frame(struct seed *s, struct rig *r, int i, uint8_t opcode, uint32_t psn,
		       void (*edit)(struct roce_desc *, const struct rig *, const void *), const void *arg,
		       size_t payload_len)
{
	seed_frame_proto(s, r, i, -1, opcode, psn, edit, arg, payload_len);
}

struct range {
	int mr;
	int64_t off; /* from the MR's start; may be outside */
	uint32_t len;
};

static void set_reth(struct roce_desc *d, const struct rig *r, const void *arg)
{
	const struct range *g = arg;
	uint8_t *reth = roce_desc_hdr(d, ROCE_H_RETH);
	roce_reth_set_va(reth, r->mr[g->mr]->addr + (uint64_t)g->off);
	roce_reth_set_rkey(reth, r->mr[g->mr]->rkey);
	roce_reth_set_dmalen(reth, g->len);
}

static void set_atomic(struct roce_desc *d, const struct rig *r, const void *arg)
{
	const struct range *g = arg;
	uint8_t *a = roce_desc_hdr(d, ROCE_H_ATOMICETH);
	roce_atomiceth_set_va(a, r->mr[g->mr]->addr + (uint64_t)g->off);
	roce_atomiceth_set_rkey(a, r->mr[g->mr]->rkey);
	roce_atomiceth_set_swapdt(a, 7);
	roce_atomiceth_set_cmpdt(a, 0x1111111111111111ull);
}

static void set_ack(struct roce_desc *d, const struct rig *r, const void *arg)
{
	(void)r;
	roce_aeth_set_syndrome(roce_desc_hdr(d, ROCE_H_AETH), *(const uint8_t *)arg);
}

static int save(const char *dir, const char *name, struct seed *s, int *count)
{
	if (fuzz_write_seed(dir, name, s->buf, s->len) != 0)
		return -1;
	(*count)++;
	return 0;
}

int fuzz_make_seeds(const char *dir, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	struct rig r;
	setup(&r, 0, false, true);
	static struct seed s;
	int count = 0;
	const uint8_t ack = roce_syndrome_ack(ROCE_AETH_ACK_UNLIMITED), nak_seq = roce_syndrome_nak(ROCE_NAK_PSN_SEQ_ERR),
		      rnr = roce_syndrome_rnr(1);

	/* Requests to the RC responder, in and just outside the MRs. */
	struct {
		const char *name;
		uint8_t opcode;
		struct range g;
		size_t payload;
	} reqs[] = {
		{ "rc-write-only", ROCE_OP_RC_WRITE_ONLY, { MR_RW, 0, 64 }, 64 },
		{ "rc-write-end", ROCE_OP_RC_WRITE_ONLY, { MR_RW, 4096 - 64, 64 }, 64 },
		{ "rc-write-past-end", ROCE_OP_RC_WRITE_ONLY, { MR_RW, 4096 - 60, 64 }, 64 },
		{ "rc-write-before", ROCE_OP_RC_WRITE_ONLY, { MR_RW, -1, 16 }, 16 },
		{ "rc-write-ro", ROCE_OP_RC_WRITE_ONLY, { MR_RO, 0, 16 }, 16 },
		{ "rc-write-small-past", ROCE_OP_RC_WRITE_ONLY, { MR_SMALL, 32, 64 }, 64 },
		{ "rc-write-other-pd", ROCE_OP_RC_WRITE_ONLY, { MR_OTHER, 0, 16 }, 16 },
		{ "rc-write-imm", ROCE_OP_RC_WRITE_ONLY_WITH_IMM, { MR_RW, 128, 8 }, 8 },
		{ "rc-write-first", ROCE_OP_RC_WRITE_FIRST, { MR_RW, 0, 2048 }, 1024 },
		{ "rc-read", ROCE_OP_RC_READ_REQUEST, { MR_RO, 0, 2048 }, 0 },
		{ "rc-read-end", ROCE_OP_RC_READ_REQUEST, { MR_RO, 4095, 1 }, 0 },
		{ "rc-read-past-end", ROCE_OP_RC_READ_REQUEST, { MR_RO, 4095, 2 }, 0 },
		{ "rc-read-huge", ROCE_OP_RC_READ_REQUEST, { MR_RO, 0, 0x80000000u }, 0 },
		{ "rc-read-other-pd", ROCE_OP_RC_READ_REQUEST, { MR_OTHER, 0, 64 }, 0 },
	};
	for (size_t k = 0; k < G_N_ELEMENTS(reqs); k++) {
		seed_start(&s, 0, 0);
		seed_frame(&s, &r, QP_RC4, reqs[k].opcode, 0, set_reth, &reqs[k].g, reqs[k].payload);
		if (reqs[k].opcode == ROCE_OP_RC_WRITE_FIRST) { /* and the rest of the message */
			seed_frame(&s, &r, QP_RC4, ROCE_OP_RC_WRITE_LAST, 1, NULL, NULL, 1024);
			seed_frame(&s, &r, QP_RC4, ROCE_OP_RC_WRITE_LAST, 1, NULL, NULL, 1024); /* a duplicate */
		}
		seed_frame(&s, &r, QP_RC4, ROCE_OP_RC_WRITE_ONLY, 0, set_reth, &reqs[k].g, reqs[k].payload); /* PSN 0 again */
		if (save(dir, reqs[k].name, &s, &count))
			return -1;
	}
	struct {
		const char *name;
		uint8_t opcode;
		struct range g;
	} atom[] = {
		{ "rc-fetch-add", ROCE_OP_RC_FETCH_ADD, { MR_SMALL, 56, 8 } },
		{ "rc-fetch-add-past", ROCE_OP_RC_FETCH_ADD, { MR_SMALL, 64, 8 } },
		{ "rc-cmp-swap", ROCE_OP_RC_CMP_SWAP, { MR_RW, 0, 8 } },
		{ "rc-cmp-swap-unaligned", ROCE_OP_RC_CMP_SWAP, { MR_RW, 4, 8 } },
		{ "rc-cmp-swap-before", ROCE_OP_RC_CMP_SWAP, { MR_RW, -8, 8 } },
	};
	for (size_t k = 0; k < G_N_ELEMENTS(atom); k++) {
		seed_start(&s, 0, 0);
		seed_frame(&s, &r, QP_RC4, atom[k].opcode, 0, set_atomic, &atom[k].g, 0);
		seed_frame(&s, &r, QP_RC4, atom[k].opcode, 0, set_atomic, &atom[k].g, 0);
		if (save(dir, atom[k].name, &s, &count))
			return -1;
	}
	/* SENDs: RC over IPv4 and IPv6, UC, UD; too long for the WQE. */
	seed_start(&s, 0, 0);
	seed_frame(&s, &r, QP_RC4, ROCE_OP_RC_SEND_ONLY, 0, NULL, NULL, 100);
	seed_frame(&s, &r, QP_RC4, ROCE_OP_RC_SEND_FIRST, 1, NULL, NULL, 1024);
	seed_frame(&s, &r, QP_RC4, ROCE_OP_RC_SEND_LAST, 2, NULL, NULL, 1024);
	if (save(dir, "rc-send", &s, &count))
		return -1;
	seed_start(&s, 0, 0);
	seed_frame(&s, &r, QP_RC6, ROCE_OP_RC_SEND_ONLY, 0, NULL, NULL, 65);
	seed_frame(&s, &r, QP_RC6, ROCE_OP_RC_SEND_ONLY_WITH_IMM, 1, NULL, NULL, 4);
	if (save(dir, "rc6-send-too-long", &s, &count))
		return -1;
	seed_start(&s, 0, 0);
	struct range uc = { MR_RW, 1000, 3000 };
	seed_frame(&s, &r, QP_UC4, ROCE_OP_UC_WRITE_FIRST, 0, set_reth, &uc, 1024);
	seed_frame(&s, &r, QP_UC4, ROCE_OP_UC_WRITE_MIDDLE, 1, NULL, NULL, 1024);
	seed_frame(&s, &r, QP_UC4, ROCE_OP_UC_WRITE_LAST, 2, NULL, NULL, 952);
	seed_frame(&s, &r, QP_UC4, ROCE_OP_UC_SEND_ONLY, 3, NULL, NULL, 100);
	if (save(dir, "uc-write-send", &s, &count))
		return -1;
	seed_start(&s, 0, 0);
	seed_frame(&s, &r, QP_UD, ROCE_OP_UD_SEND_ONLY, 0, NULL, NULL, 24);
	seed_frame(&s, &r, QP_UD, ROCE_OP_UD_SEND_ONLY_WITH_IMM, 1, NULL, NULL, 1000);
	if (save(dir, "ud-send", &s, &count))
		return -1;

	/* Responses to the RC requester (SEND PSN 0, READ PSN 1, F&A PSN 2). */
	seed_start(&s, 0, 0);
	seed_frame(&s, &r, QP_RC4, ROCE_OP_RC_ACK, 0, set_ack, &ack, 0);
	seed_frame(&s, &r, QP_RC4, ROCE_OP_RC_READ_RESPONSE_ONLY, 1, NULL, NULL, 64);
	seed_frame(&s, &r, QP_RC4, ROCE_OP_RC_ATOMIC_ACK, 2, set_ack, &ack, 0);
	if (save(dir, "rc-responses", &s, &count))
		return -1;
	seed_start(&s, 0, 0);
	seed_frame(&s, &r, QP_RC4, ROCE_OP_RC_ACK, 0, set_ack, &nak_seq, 0);
	seed_frame(&s, &r, QP_RC4, ROCE_OP_RC_ACK, 0, set_ack, &rnr, 0);
	seed_frame(&s, &r, QP_RC4, ROCE_OP_RC_READ_RESPONSE_FIRST, 1, set_ack, &ack, 1024);
	seed_frame(&s, &r, QP_RC4, ROCE_OP_RC_ACK, 9, set_ack, &ack, 0);
	if (save(dir, "rc-naks", &s, &count))
		return -1;

	/* A dual-mode port: RoCE v1 requests and responses to the QP with the
	 * RoCE v1 GID, RoCEv2 ones to it and RoCE v1 ones to a RoCEv2 QP (both
	 * dropped), and both protocols to the UD QP. */
	seed_start(&s, 0, SEED_ROCEV1);
	struct range v1w = { MR_RW, 512, 256 };
	seed_frame(&s, &r, QP_RCV1, ROCE_OP_RC_SEND_ONLY, 0, NULL, NULL, 100);
	seed_frame(&s, &r, QP_RCV1, ROCE_OP_RC_WRITE_ONLY, 1, set_reth, &v1w, 256);
	seed_frame(&s, &r, QP_RCV1, ROCE_OP_RC_READ_REQUEST, 2, set_reth, &v1w, 0);
	seed_frame_proto(&s, &r, QP_RCV1, 0, ROCE_OP_RC_SEND_ONLY, 3, NULL, NULL, 16);
	seed_frame_proto(&s, &r, QP_RC4, 1, ROCE_OP_RC_SEND_ONLY, 0, NULL, NULL, 16);
	seed_frame_proto(&s, &r, QP_UD, 1, ROCE_OP_UD_SEND_ONLY, 0, NULL, NULL, 24);
	seed_frame_proto(&s, &r, QP_UD, 0, ROCE_OP_UD_SEND_ONLY, 1, NULL, NULL, 24);
	if (save(dir, "rocev1-dual-mode", &s, &count))
		return -1;
	seed_start(&s, SOFT_FAULT_ACCEPT_GID_TYPE_MISMATCH, SEED_ROCEV1); /* and with its fault profile */
	seed_frame(&s, &r, QP_RCV1, ROCE_OP_RC_WRITE_ONLY, 0, set_reth, &v1w, 256);
	seed_frame_proto(&s, &r, QP_RCV1, 0, ROCE_OP_RC_WRITE_ONLY, 1, set_reth, &v1w, 256);
	if (save(dir, "rocev1-fault", &s, &count))
		return -1;

	/* Some fault profiles, and a broken ICRC kept as it is. */
	for (unsigned f = 1; f < SOFT_FAULT_COUNT; f += 5) {
		seed_start(&s, f, 0);
		struct range g = { MR_RW, 4090, 8 };
		seed_frame(&s, &r, QP_RC4, ROCE_OP_RC_WRITE_ONLY, 0, set_reth, &g, 8);
		seed_frame(&s, &r, QP_RC4, ROCE_OP_RC_READ_REQUEST, 1, set_reth, &g, 0);
		char name[64];
		snprintf(name, sizeof name, "fault-%s", soft_fault_info((enum soft_fault)f)->name);
		if (save(dir, name, &s, &count))
			return -1;
	}
	seed_start(&s, 0, SEED_RCM);
	struct range g = { MR_RW, 0, 8 };
	seed_frame(&s, &r, QP_RC4, ROCE_OP_RC_WRITE_ONLY, 0, set_reth, &g, 8);
	s.buf[s.len - 1] ^= 0xFF; /* ICRC */
	s.buf[4] = 1;              /* ... kept */
	if (save(dir, "rcm-bad-icrc-kept", &s, &count))
		return -1;
	teardown(&r);
	return count;
}
