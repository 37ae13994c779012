/* Sample conversations (conversations.h). */
#include "conversations.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "conv_build.h"

#define QP1 1
#define GSI_QKEY 0x80010000u

void conv_init(struct conv *c, sample_emit_fn emit, void *ctx, int ipv)
{
	memset(c, 0, sizeof *c);
	c->emit = emit;
	c->ctx = ctx;
	c->ipv = ipv;
	c->sport_a = 0xC0DE;
	c->sport_b = 0xD00D;
	c->qp_a = SAMPLE_QP_A;
	c->qp_b = SAMPLE_QP_B;
	c->ip_id = 1;
	sample_fill_pattern(c->payload, sizeof c->payload);
}

static void swap(uint8_t *a, uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t t = a[i];
		a[i] = b[i];
		b[i] = t;
	}
}

/* A packet of `opcode` from A (or B) to the other host, to destqp, psn. */
void conv_start(struct conv *c, struct roce_desc *d, bool from_a, uint8_t opcode, uint32_t destqp,
		  uint32_t psn, size_t plen)
{
	sample_desc(d, opcode, c->ipv, c->payload, plen);
	bool request = roce_opcode(opcode)->flags & ROCE_OPF_REQUEST;
	/* sample_desc sends requests from A and responses from B. */
	if (request != from_a) {
		swap(d->eth_dst, d->eth_src, 6);
		if (c->ipv == 6)
			swap(d->ip + 8, d->ip + 24, 16);
		else
			swap(d->ip + 12, d->ip + 16, 4);
	}
	roce_udp_set_sport(d->udp, from_a ? c->sport_a : c->sport_b);
	uint8_t ecn = from_a ? c->ecn_a : c->ecn_b;
	if (ecn && c->ipv == 6)
		roce_ipv6_set_ecn(d->ip, ecn);
	else if (ecn)
		roce_ipv4_set_ecn(d->ip, ecn);
	roce_bth_set_destqp(d->bth, destqp);
	roce_bth_set_psn(d->bth, psn);
	if (roce_desc_xhdrs(d) & ROCE_XHDR_BIT(ROCE_H_RETH))
		roce_reth_set_dmalen(roce_desc_hdr(d, ROCE_H_RETH), (uint32_t)plen);
}

uint8_t *conv_hdr(struct roce_desc *d, enum roce_hdr h)
{
	return roce_desc_hdr(d, h);
}

void conv_send(struct conv *c, struct roce_desc *d, uint64_t gap_us, enum roce_code expect,
		       const char *what)
{
	/* Every transmission gets its own IPv4 identification: a resend
	 * differs from the original there, a duplicate made by the network
	 * does not (see conv_duplicate()). */
	if (c->ipv == 4)
		roce_ipv4_set_id(d->ip, c->ip_id++);
	if (c->rocev1)
		sample_to_rocev1(d);
	long n = roce_build_frame(d, c->last, sizeof c->last);
	if (n <= 0)
		return;
	c->last_len = (size_t)n;
	c->t_us += gap_us;
	c->emit(c->ctx, c->last, (size_t)n, c->t_us, expect, what);
}

/* The last frame again, byte for byte: a copy the network made. */
void conv_duplicate(struct conv *c, uint64_t gap_us, enum roce_code expect, const char *what)
{
	c->t_us += gap_us;
	c->emit(c->ctx, c->last, c->last_len, c->t_us, expect, what);
}

/* Requests A -> B go to QP B; responses B -> A to QP A; and the reverse. */
void conv_req(struct conv *c, bool from_a, uint8_t opcode, uint32_t psn, size_t plen,
		enum roce_code expect, const char *what)
{
	struct roce_desc d;
	conv_start(c, &d, from_a, opcode, from_a ? c->qp_b : c->qp_a, psn, plen);
	conv_send(c, &d, 5, expect, what);
}

/* A request from A to QP destqp. */
void conv_req_to(struct conv *c, uint32_t destqp, uint8_t opcode, uint32_t psn, size_t plen,
		   const char *what)
{
	struct roce_desc d;
	conv_start(c, &d, true, opcode, destqp, psn, plen);
	conv_send(c, &d, 5, ROCE_OK, what);
}

void conv_ack(struct conv *c, bool from_b, uint8_t opcode, uint32_t psn, uint8_t syndrome, uint32_t msn,
		size_t plen, enum roce_code expect, const char *what)
{
	struct roce_desc d;
	conv_start(c, &d, !from_b, opcode, from_b ? c->qp_a : c->qp_b, psn, plen);
	if (roce_desc_xhdrs(&d) & ROCE_XHDR_BIT(ROCE_H_AETH)) {
		roce_aeth_set_syndrome(conv_hdr(&d, ROCE_H_AETH), syndrome);
		roce_aeth_set_msn(conv_hdr(&d, ROCE_H_AETH), msn);
	}
	conv_send(c, &d, 8, expect, what);
}

void conv_read_req(struct conv *c, uint32_t psn, uint32_t len, enum roce_code expect, const char *what)
{
	struct roce_desc d;
	conv_start(c, &d, true, ROCE_OP_RC_READ_REQUEST, c->qp_b, psn, 0);
	roce_reth_set_dmalen(conv_hdr(&d, ROCE_H_RETH), len);
	conv_send(c, &d, 5, expect, what);
}

/* A MAD on QP1 from A (or B): UD SEND Only with the GSI Q_Key. */
void conv_mad(struct conv *c, bool from_a, const uint8_t *m, const char *what)
{
	struct roce_desc d;
	memcpy(c->payload + 4096, m, ROCE_MAD_LEN);
	sample_desc(&d, ROCE_MAD_OPCODE, c->ipv, c->payload + 4096, ROCE_MAD_LEN);
	if (!from_a) {
		swap(d.eth_dst, d.eth_src, 6);
		if (c->ipv == 6)
			swap(d.ip + 8, d.ip + 24, 16);
		else
			swap(d.ip + 12, d.ip + 16, 4);
	}
	roce_udp_set_sport(d.udp, from_a ? 0xAAAA : 0xBBBB);
	roce_bth_set_destqp(d.bth, QP1);
	roce_bth_set_psn(d.bth, 0);
	roce_deth_set_qkey(conv_hdr(&d, ROCE_H_DETH), GSI_QKEY);
	roce_deth_set_srcqp(conv_hdr(&d, ROCE_H_DETH), QP1);
	conv_send(c, &d, 50, ROCE_OK, what);
	sample_fill_pattern(c->payload, sizeof c->payload);
}

static const uint8_t ip4_a[4] = { 198, 18, 0, 1 }, ip4_b[4] = { 198, 18, 0, 2 };
static const uint8_t ip6_a[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t ip6_b[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

/* The IP CM private data of an rdma_cm REQ (Annex A11). */
void conv_ip_cm_private(struct conv *c, uint8_t *priv)
{
	roce_ipcm_set_major(priv, 0);
	roce_ipcm_set_minor(priv, 0);
	roce_ipcm_set_sport(priv, 0xC0DE);
	roce_ipcm_set_addrs(priv, c->ipv, c->ipv == 6 ? ip6_a : ip4_a, c->ipv == 6 ? ip6_b : ip4_b);
}

/* An rdma_cm REQ from QP qpn of A for a Service ID, whose Starting PSN
 * psn is the one A receives first; ulp_private (may be NULL) is the
 * consumer's private data after the IP CM header. */
static void cm_request(struct conv *c, uint32_t comm_id, uint64_t tid, uint32_t qpn, uint32_t psn,
		       uint64_t service_id, const uint8_t *ulp_private, size_t ulp_len, const char *what)
{
	uint8_t m[ROCE_MAD_LEN];
	uint8_t *x = m + ROCE_MAD_HDR_LEN;
	roce_cm_mad_init(m, ROCE_CM_REQ, tid);
	roce_req_set_local_comm_id(x, comm_id);
	roce_req_set_service_id(x, service_id);
	roce_req_set_local_ca_guid(x, 0x0002c90300a0b0c1ull);
	roce_req_set_local_qpn(x, qpn);
	roce_req_set_resp_resources(x, 16);
	roce_req_set_initiator_depth(x, 16);
	roce_req_set_remote_cm_timeout(x, 20);
	roce_req_set_transport(x, 0); /* RC */
	roce_req_set_start_psn(x, psn); /* what A receives first: B sends from it (IBA 12.7, Linux's CM) */
	roce_req_set_local_cm_timeout(x, 20);
	roce_req_set_retry_count(x, 7);
	roce_req_set_pkey(x, 0xFFFF);
	roce_req_set_path_mtu(x, 3); /* 1024 */
	roce_req_set_rnr_retry(x, 7);
	roce_req_set_max_cm_retries(x, 15);
	roce_req_set_primary_local_lid(x, 0xFFFF);
	roce_req_set_primary_remote_lid(x, 0xFFFF);
	conv_ip_cm_private(c, roce_req_private_data(x));
	if (ulp_private)
		memcpy(roce_req_private_data(x) + 36, ulp_private, ulp_len);
	conv_mad(c, true, m, what);
}

/* rdma_cm connection set-up for a Service ID: REQ, REP, RTU; req_private
 * and rep_private (may be NULL) are the consumer's private data. */
void conv_cm_connect_to(struct conv *c, uint32_t psn_a, uint32_t psn_b, uint64_t service_id,
			  const uint8_t *req_private, size_t req_len, const uint8_t *rep_private,
			  size_t rep_len)
{
	uint8_t m[ROCE_MAD_LEN];
	uint8_t *x = m + ROCE_MAD_HDR_LEN;
	cm_request(c, 0x11223344, 0x0000000100000001ull, SAMPLE_QP_A, psn_b, service_id, req_private,
		   req_len, "CM REQ from QP A, starting PSN, path MTU 1024, IP CM private data");

	roce_cm_mad_init(m, ROCE_CM_REP, 0x0000000100000001ull);
	roce_rep_set_local_comm_id(x, 0x55667788);
	roce_rep_set_remote_comm_id(x, 0x11223344);
	roce_rep_set_local_qpn(x, SAMPLE_QP_B);
	roce_rep_set_start_psn(x, psn_a); /* what B receives first */
	roce_rep_set_resp_resources(x, 16);
	roce_rep_set_initiator_depth(x, 16);
	roce_rep_set_target_ack_delay(x, 15);
	roce_rep_set_rnr_retry(x, 7);
	roce_rep_set_local_ca_guid(x, 0x0002c90300a0b0c2ull);
	if (rep_private)
		memcpy(roce_rep_private_data(x), rep_private, rep_len);
	conv_mad(c, false, m, "CM REP from QP B");

	roce_cm_mad_init(m, ROCE_CM_RTU, 0x0000000100000001ull);
	roce_rtu_set_local_comm_id(x, 0x11223344);
	roce_rtu_set_remote_comm_id(x, 0x55667788);
	conv_mad(c, true, m, "CM RTU");
}

void conv_cm_connect(struct conv *c, uint32_t psn_a, uint32_t psn_b)
{
	conv_cm_connect_to(c, psn_a, psn_b, 0x0000000001064853ull, NULL, 0, NULL, 0); /* IP CM, TCP port 18515 */
}

void conv_cm_disconnect(struct conv *c)
{
	uint8_t m[ROCE_MAD_LEN];
	uint8_t *x = m + ROCE_MAD_HDR_LEN;
	roce_cm_mad_init(m, ROCE_CM_DREQ, 0x0000000100000002ull);
	roce_dreq_set_local_comm_id(x, 0x11223344);
	roce_dreq_set_remote_comm_id(x, 0x55667788);
	roce_dreq_set_remote_qpn(x, SAMPLE_QP_B);
	conv_mad(c, true, m, "CM DREQ");
	roce_cm_mad_init(m, ROCE_CM_DREP, 0x0000000100000002ull);
	roce_drep_set_local_comm_id(x, 0x55667788);
	roce_drep_set_remote_comm_id(x, 0x11223344);
	conv_mad(c, false, m, "CM DREP");
}

/* An RPC-over-RDMA (RFC 8166) RDMA_MSG carrying an NFSv3 NULL call. */
size_t conv_rpc_over_rdma(uint8_t *b)
{
	static const uint32_t words[] = {
		0x00000001, 1, 32, 0,        /* xid, version 1, credits, RDMA_MSG */
		0, 0, 0,                     /* no read, write or reply chunks */
		0x00000001, 0, 2, 100003, 3, /* RPC: xid, CALL, RPC v2, NFS v3 */
		0, 0, 0, 0, 0,               /* NULL procedure, AUTH_NONE cred + verf */
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		roce_be_store(b + 4 * i, 4, words[i]);
	return sizeof words;
}

void sample_conv_rc(sample_emit_fn emit, void *ctx)
{
	struct conv c;
	conv_init(&c, emit, ctx, 4);
	conv_cm_connect(&c, 1000, 5000);
	uint32_t msn = 0;

	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 1000, 100, ROCE_OK, "SEND Only");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 1000, SYN_ACK, ++msn, 0, ROCE_OK, "ACK");
	conv_req(&c, true, ROCE_OP_RC_SEND_FIRST, 1001, PMTU, ROCE_OK, "SEND First of 2548 bytes");
	conv_req(&c, true, ROCE_OP_RC_SEND_MIDDLE, 1002, PMTU, ROCE_OK, "SEND Middle");
	conv_req(&c, true, ROCE_OP_RC_SEND_LAST, 1003, 500, ROCE_OK, "SEND Last");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 1003, SYN_ACK, ++msn, 0, ROCE_OK, "ACK for the whole message");
	struct roce_desc d;
	conv_start(&c, &d, true, ROCE_OP_RC_WRITE_FIRST, SAMPLE_QP_B, 1004, PMTU);
	roce_reth_set_dmalen(conv_hdr(&d, ROCE_H_RETH), 2 * PMTU);
	conv_send(&c, &d, 5, ROCE_OK, "RDMA WRITE First of 2048 bytes");
	conv_req(&c, true, ROCE_OP_RC_WRITE_LAST, 1005, PMTU, ROCE_OK, "RDMA WRITE Last");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 1005, SYN_ACK, ++msn, 0, ROCE_OK, "ACK");
	conv_req(&c, true, ROCE_OP_RC_WRITE_ONLY_WITH_IMM, 1006, 64, ROCE_OK, "RDMA WRITE Only with Immediate");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 1006, SYN_ACK, ++msn, 0, ROCE_OK, "ACK");
	conv_read_req(&c, 1007, 2500, ROCE_OK, "RDMA READ Request of 2500 bytes");
	conv_ack(&c, true, ROCE_OP_RC_READ_RESPONSE_FIRST, 1007, SYN_ACK, ++msn, PMTU, ROCE_OK, "READ Response First (1/3)");
	conv_ack(&c, true, ROCE_OP_RC_READ_RESPONSE_MIDDLE, 1008, SYN_ACK, msn, PMTU, ROCE_OK, "READ Response Middle (2/3)");
	conv_ack(&c, true, ROCE_OP_RC_READ_RESPONSE_LAST, 1009, SYN_ACK, msn, 452, ROCE_OK, "READ Response Last (3/3)");
	conv_req(&c, true, ROCE_OP_RC_CMP_SWAP, 1010, 0, ROCE_OK, "CmpSwap");
	conv_ack(&c, true, ROCE_OP_RC_ATOMIC_ACK, 1010, SYN_ACK, ++msn, 0, ROCE_OK, "Atomic ACK");
	conv_req(&c, true, ROCE_OP_RC_FETCH_ADD, 1011, 0, ROCE_OK, "FetchAdd");
	conv_ack(&c, true, ROCE_OP_RC_ATOMIC_ACK, 1011, SYN_ACK, ++msn, 0, ROCE_OK, "Atomic ACK");

	/* B sends to A on the same connection, from its own starting PSN. */
	conv_req(&c, false, ROCE_OP_RC_SEND_ONLY, 5000, 40, ROCE_OK, "SEND Only from B");
	conv_ack(&c, false, ROCE_OP_RC_ACK, 5000, SYN_ACK, 1, 0, ROCE_OK, "ACK from A");

	/* RNR: no receive WQE; the requester waits 1.28 ms and retries. */
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 1012, 64, ROCE_OK, "SEND Only");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 1012, SYN_RNR_1_28_MS, msn, 0, ROCE_F_RNR_EXPLAINED, "RNR NAK, 1.28 ms");
	c.t_us += 2000;
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 1012, 64, ROCE_F_RETRANSMISSION, "SEND Only retried after 2 ms");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 1012, SYN_ACK, ++msn, 0, ROCE_OK, "ACK");

	/* A loss before the capture point, the NAK, and go-back-N. */
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 1013, 64, ROCE_OK, "SEND Only");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 1015, 64, ROCE_F_PSN_GAP, "SEND Only: PSN 1014 was lost before the capture point");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 1014, SYN_NAK_SEQ, ++msn, 0, ROCE_F_SEQ_NAK_EXPLAINED, "NAK PSN Sequence Error: expected 1014");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 1014, 64, ROCE_F_GBN_RETRANSMISSION, "SEND Only resent from 1014");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 1015, 64, ROCE_F_GBN_RETRANSMISSION, "SEND Only 1015 resent");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 1015, SYN_ACK, msn += 2, 0, ROCE_OK, "ACK");

	/* A lost ACK: the requester times out and resends; B acknowledges again. */
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 1016, 64, ROCE_OK, "SEND Only");
	c.t_us += 500;
	conv_ack(&c, true, ROCE_OP_RC_ACK, 1016, SYN_ACK, ++msn, 0, ROCE_OK, "ACK (lost after the capture point)");
	c.t_us += 20000;
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 1016, 64, ROCE_F_RETRANSMISSION, "SEND Only resent after the ACK timeout");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 1016, SYN_ACK, msn, 0, ROCE_F_DUP_ACK, "ACK again for the duplicate");

	/* An upper-layer protocol: RPC-over-RDMA. */
	uint8_t *rpc = c.payload + 6000;
	size_t n = conv_rpc_over_rdma(rpc);
	conv_start(&c, &d, true, ROCE_OP_RC_SEND_ONLY, SAMPLE_QP_B, 1017, n);
	d.payload = rpc;
	conv_send(&c, &d, 5, ROCE_OK, "SEND Only: RPC-over-RDMA call (NFSv3 NULL)");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 1017, SYN_ACK, ++msn, 0, ROCE_OK, "ACK");
	conv_cm_disconnect(&c);
}

static void le_store(uint8_t *p, unsigned n, uint64_t v)
{
	for (unsigned i = 0; i < n; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

/* An NVMe-oF command capsule (64-byte SQE, little-endian) whose data moves
 * by RDMA (a keyed SGL data block descriptor: address, length, key). */
static void nvme_sqe(uint8_t *sqe, uint8_t opc, uint16_t cid, uint64_t addr, uint32_t len, uint32_t key,
		     uint64_t slba, uint16_t nlb0)
{
	memset(sqe, 0, 64);
	sqe[0] = opc;
	sqe[1] = 0x40;                /* PSDT: SGL */
	le_store(sqe + 2, 2, cid);
	le_store(sqe + 4, 4, 1);      /* namespace 1 */
	le_store(sqe + 24, 8, addr);
	le_store(sqe + 32, 3, len);
	le_store(sqe + 35, 4, key);
	sqe[39] = 0x40;               /* keyed data block */
	le_store(sqe + 40, 8, slba);
	le_store(sqe + 48, 2, nlb0);  /* number of blocks, zero-based */
}

/* Its completion (16-byte CQE) for command cid. */
static void nvme_cqe(uint8_t *cqe, uint16_t sq_head, uint16_t cid)
{
	memset(cqe, 0, 16);
	le_store(cqe + 8, 2, sq_head);
	le_store(cqe + 10, 2, 1);     /* SQ ID */
	le_store(cqe + 12, 2, cid);
}

/* An RC packet that carries bytes of its own (a capsule) instead of the
 * pattern. */
static void send_bytes(struct conv *c, bool from_a, uint32_t psn, const uint8_t *bytes, size_t n,
		       const char *what)
{
	struct roce_desc d;
	conv_start(c, &d, from_a, ROCE_OP_RC_SEND_ONLY, from_a ? SAMPLE_QP_B : SAMPLE_QP_A, psn, n);
	d.payload = bytes;
	conv_send(c, &d, from_a ? 20 : 5, ROCE_OK, what);
}

/* An RC packet with a RETH naming the host's buffer (va, key, dmalen). */
static void with_reth(struct conv *c, bool from_a, uint8_t opcode, uint32_t psn, size_t plen, uint64_t va,
		      uint32_t key, uint32_t dmalen, const char *what)
{
	struct roce_desc d;
	conv_start(c, &d, from_a, opcode, from_a ? SAMPLE_QP_B : SAMPLE_QP_A, psn, plen);
	roce_reth_set_va(conv_hdr(&d, ROCE_H_RETH), va);
	roce_reth_set_rkey(conv_hdr(&d, ROCE_H_RETH), key);
	roce_reth_set_dmalen(conv_hdr(&d, ROCE_H_RETH), dmalen);
	conv_send(c, &d, 10, ROCE_OK, what);
}

void sample_conv_nvme(sample_emit_fn emit, void *ctx)
{
	struct conv c;
	conv_init(&c, emit, ctx, 4);
	/* NVMe-oF RDMA CM private data (little-endian): the request's RECFMT 0,
	 * QID 1, HRQSIZE 32, HSQSIZE 31; the accept's RECFMT 0, CRQSIZE 32. */
	const uint64_t nvme_sid = 0x0000000001061144ull; /* IP CM, TCP port 4420 */
	uint8_t priv[32] = { 0 }, accept[32] = { 0 };
	le_store(priv + 2, 2, 1);
	le_store(priv + 4, 2, 32);
	le_store(priv + 6, 2, 31);
	le_store(accept + 2, 2, 32);
	conv_cm_connect_to(&c, 1000, 5000, nvme_sid, priv, sizeof priv, accept, sizeof accept);

	/* Host (A) -> target (B): a Read command capsule for one 512-byte
	 * block; the target RDMA WRITEs the data into the host's buffer, then
	 * sends the completion. */
	uint8_t *sqe = c.payload + 6000, *cqe = c.payload + 7000;
	const uint64_t buf1 = 0x00007F0000100000ull, buf2 = 0x00007F0000200000ull, buf3 = 0x00007F0000300000ull;
	nvme_sqe(sqe, 0x02, 0x0007, buf1, 512, 0x00001234, 0x10, 0);
	send_bytes(&c, true, 1000, sqe, 64, "SEND Only: NVMe-oF Read command capsule (1 block)");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 1000, SYN_ACK, 1, 0, ROCE_OK, "ACK");
	with_reth(&c, false, ROCE_OP_RC_WRITE_ONLY, 5000, 512, buf1, 0x00001234, 512, "RDMA WRITE Only: the 512 bytes read");
	nvme_cqe(cqe, 1, 0x0007);
	send_bytes(&c, false, 5001, cqe, 16, "SEND Only: NVMe-oF completion");
	conv_ack(&c, false, ROCE_OP_RC_ACK, 5001, SYN_ACK, 2, 0, ROCE_OK, "ACK from the host");

	/* A Read of 6 blocks (3072 bytes): the data comes by a 3-packet RDMA
	 * WRITE (path MTU 1024). */
	nvme_sqe(sqe, 0x02, 0x0008, buf2, 3072, 0x00001235, 0x20, 5);
	send_bytes(&c, true, 1001, sqe, 64, "SEND Only: NVMe-oF Read command capsule (6 blocks)");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 1001, SYN_ACK, 2, 0, ROCE_OK, "ACK");
	with_reth(&c, false, ROCE_OP_RC_WRITE_FIRST, 5002, PMTU, buf2, 0x00001235, 3072, "RDMA WRITE First of the 3072 bytes read");
	conv_req(&c, false, ROCE_OP_RC_WRITE_MIDDLE, 5003, PMTU, ROCE_OK, "RDMA WRITE Middle");
	conv_req(&c, false, ROCE_OP_RC_WRITE_LAST, 5004, PMTU, ROCE_OK, "RDMA WRITE Last");
	nvme_cqe(cqe, 2, 0x0008);
	send_bytes(&c, false, 5005, cqe, 16, "SEND Only: NVMe-oF completion of the 6-block Read");
	conv_ack(&c, false, ROCE_OP_RC_ACK, 5005, SYN_ACK, 4, 0, ROCE_OK, "ACK from the host");

	/* A Write of 6 blocks: the target fetches the data by RDMA READ from
	 * the host's buffer (3 response packets), then completes. */
	nvme_sqe(sqe, 0x01, 0x0009, buf3, 3072, 0x00001236, 0x30, 5);
	send_bytes(&c, true, 1002, sqe, 64, "SEND Only: NVMe-oF Write command capsule (6 blocks)");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 1002, SYN_ACK, 3, 0, ROCE_OK, "ACK");
	with_reth(&c, false, ROCE_OP_RC_READ_REQUEST, 5006, 0, buf3, 0x00001236, 3072,
		  "RDMA READ Request of the 3072 bytes to write");
	conv_ack(&c, false, ROCE_OP_RC_READ_RESPONSE_FIRST, 5006, SYN_ACK, 5, PMTU, ROCE_OK, "READ Response First (1/3)");
	conv_ack(&c, false, ROCE_OP_RC_READ_RESPONSE_MIDDLE, 5007, SYN_ACK, 5, PMTU, ROCE_OK, "READ Response Middle (2/3)");
	conv_ack(&c, false, ROCE_OP_RC_READ_RESPONSE_LAST, 5008, SYN_ACK, 5, PMTU, ROCE_OK, "READ Response Last (3/3)");
	nvme_cqe(cqe, 3, 0x0009);
	send_bytes(&c, false, 5009, cqe, 16, "SEND Only: NVMe-oF completion of the Write");
	conv_ack(&c, false, ROCE_OP_RC_ACK, 5009, SYN_ACK, 6, 0, ROCE_OK, "ACK from the host");
	conv_cm_disconnect(&c);

	/* A second queue the target refuses: a REQ for QID 2 with an HRQSIZE
	 * it cannot take, rejected by the consumer (reason 28) with the
	 * NVMe-oF RDMA reject private data: RECFMT 0, STS 5 (invalid HRQSIZE). */
	le_store(priv + 2, 2, 2);
	le_store(priv + 4, 2, 4096);
	cm_request(&c, 0x1122334a, 0x0000000100000003ull, SAMPLE_QP_A + 1, 2000, nvme_sid, priv,
		   sizeof priv, "CM REQ for a second queue, HRQSIZE 4096");
	uint8_t m[ROCE_MAD_LEN];
	uint8_t *x = m + ROCE_MAD_HDR_LEN;
	roce_cm_mad_init(m, ROCE_CM_REJ, 0x0000000100000003ull);
	roce_rej_set_local_comm_id(x, 0x5566778a);
	roce_rej_set_remote_comm_id(x, 0x1122334a);
	roce_rej_set_message_rejected(x, 0); /* the REQ */
	roce_rej_set_reason(x, 28);          /* consumer reject */
	le_store(roce_rej_private_data(x) + 2, 2, 5);
	conv_mad(&c, false, m, "CM REJ by the consumer: NVMe-oF invalid HRQSIZE");
}

void sample_conv_errors(sample_emit_fn emit, void *ctx)
{
	struct conv c;
	conv_init(&c, emit, ctx, 6);
	uint32_t msn = 0;
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 10, 16, ROCE_OK, "SEND Only");
	c.sport_a = 0xBEEF;
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 11, 16, ROCE_F_SPORT_CHANGED, "SEND Only from another UDP source port");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 12, 16, ROCE_OK, "SEND Only");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 14, 16, ROCE_F_PSN_GAP, "SEND Only skipping PSN 13");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 13, 16, ROCE_F_OUT_OF_ORDER, "SEND Only 13, late");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 14, SYN_ACK, msn += 5, 0, ROCE_OK, "ACK");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 15, 16, ROCE_OK, "SEND Only");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 17, 16, ROCE_F_PSN_GAP, "SEND Only skipping PSN 16");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 16, SYN_NAK_SEQ, ++msn, 0, ROCE_F_SEQ_NAK_EXPLAINED, "NAK PSN Sequence Error: expected 16");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 18, 16, ROCE_OK, "SEND Only 18: new, it crossed the NAK in flight");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 17, 16, ROCE_F_GBN_RETRANSMISSION,
	    "SEND Only 17 resent before 16: judged when the go-back ends");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 18, 16, ROCE_F_GBN_RETRANSMISSION, "SEND Only 18 resent");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 19, 16, ROCE_F_GBN_SKIPPED_SEEN,
	    "SEND Only 19, new: the go-back left out 16; on this lossy path its resend may have been lost before the capture point");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 30, SYN_NAK_SEQ, msn, 0, ROCE_F_SEQ_NAK_AHEAD, "NAK for PSN 30, never sent");
	conv_req(&c, true, ROCE_OP_RC_SEND_MIDDLE, 20, PMTU, ROCE_F_OPSEQ_CONTINUE, "SEND Middle with no First");
	conv_req(&c, true, ROCE_OP_RC_SEND_LAST, 21, 16, ROCE_OK, "SEND Last");
	conv_req(&c, true, ROCE_OP_RC_SEND_FIRST, 22, PMTU, ROCE_OK, "SEND First");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 23, 16, ROCE_F_OPSEQ_UNFINISHED, "SEND Only inside the unfinished message");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 23, SYN_ACK, ++msn, 0, ROCE_OK, "ACK");
	conv_read_req(&c, 24, 3000, ROCE_OK, "RDMA READ Request of 3000 bytes");
	conv_ack(&c, true, ROCE_OP_RC_READ_RESPONSE_FIRST, 24, SYN_ACK, ++msn, PMTU, ROCE_OK, "READ Response First (1/3)");
	conv_ack(&c, true, ROCE_OP_RC_READ_RESPONSE_LAST, 25, SYN_ACK, msn, PMTU, ROCE_F_READ_RESP_POSITION, "READ Response Last as packet 2 of 3");
	conv_ack(&c, true, ROCE_OP_RC_READ_RESPONSE_LAST, 26, SYN_ACK, msn, 952, ROCE_OK, "READ Response Last (3/3)");
	conv_ack(&c, true, ROCE_OP_RC_READ_RESPONSE_LAST, 26, SYN_ACK, msn, 952, ROCE_F_DUP_READ_RESP, "READ Response Last sent again");
	conv_ack(&c, true, ROCE_OP_RC_READ_RESPONSE_LAST, 27, SYN_ACK, msn, 4, ROCE_F_READ_RESP_EXTRA, "READ Response beyond the 3 packets");
	conv_read_req(&c, 27, 2000, ROCE_OK, "RDMA READ Request of 2000 bytes");
	conv_ack(&c, true, ROCE_OP_RC_READ_RESPONSE_FIRST, 27, SYN_ACK, ++msn, PMTU, ROCE_OK, "READ Response First (1/2)");
	conv_ack(&c, true, ROCE_OP_RC_READ_RESPONSE_LAST, 28, SYN_ACK, msn, 900, ROCE_F_READ_RESP_LEN, "READ Response Last of 900 bytes, not 976");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 29, 16, ROCE_OK, "SEND Only");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 29, SYN_RNR_1_28_MS, msn, 0, ROCE_F_RNR_EXPLAINED, "RNR NAK, 1.28 ms");
	c.t_us += 100;
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 29, 16, ROCE_F_RNR_EARLY_SEEN,
	    "SEND Only retried after 0.1 ms, byte for byte the first (IPv6): a retry too early, or a duplicate");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 29, SYN_ACK, ++msn, 0, ROCE_OK, "ACK");

	/* IPv4, on a path that shows no loss, reordering or duplication before
	 * the capture point, where every resend has its own IPv4 ID: what no
	 * position of the capture point explains. */
	uint64_t t = c.t_us;
	conv_init(&c, emit, ctx, 4);
	c.t_us = t;
	msn = 0;
	for (uint32_t psn = 100; psn <= 103; psn++)
		conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, psn, 16, ROCE_OK, "SEND Only");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 101, SYN_NAK_SEQ, ++msn, 0, ROCE_F_SEQ_NAK_EXPLAINED,
	    "NAK PSN Sequence Error: expected 101 (lost after the capture point)");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 104, 16, ROCE_OK, "SEND Only 104: new, it crossed the NAK in flight");
	for (uint32_t psn = 102; psn <= 104; psn++)
		conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, psn, 16, ROCE_F_GBN_RETRANSMISSION,
		    "go-back resend, from 102: the NAKed 101 left out");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 105, 16, ROCE_F_GBN_SKIPPED,
	    "SEND Only 105, new: the go-back from 102 to 104 skipped 101");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 105, SYN_ACK, msn += 5, 0, ROCE_OK, "ACK");
	for (uint32_t psn = 106; psn <= 108; psn++)
		conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, psn, 16, ROCE_OK, "SEND Only");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 106, SYN_NAK_SEQ, msn, 0, ROCE_F_SEQ_NAK_EXPLAINED, "NAK PSN Sequence Error: expected 106");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 106, 16, ROCE_F_GBN_RETRANSMISSION, "SEND Only 106 resent");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 109, 16, ROCE_F_GBN_NEW_IN_RESEND, "SEND Only 109, new, before 107 and 108 were resent");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 109, SYN_ACK, msn += 4, 0, ROCE_OK, "ACK");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 110, 16, ROCE_OK, "SEND Only");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 110, SYN_RNR_1_28_MS, msn, 0, ROCE_F_RNR_EXPLAINED, "RNR NAK, 1.28 ms");
	c.t_us += 100;
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 110, 16, ROCE_F_RNR_EARLY, "SEND Only retried after 0.1 ms (its own IPv4 ID)");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 110, SYN_ACK, ++msn, 0, ROCE_OK, "ACK");
	/* The path MTU learnt from a First judges the next payloads. */
	conv_req(&c, true, ROCE_OP_RC_SEND_FIRST, 111, PMTU, ROCE_OK, "SEND First: the path MTU is 1024");
	conv_req(&c, true, ROCE_OP_RC_SEND_LAST, 112, 16, ROCE_OK, "SEND Last");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 113, 1500, ROCE_C_PAYLOAD_OVER_PMTU,
	    "SEND Only of 1500 bytes, more than the path MTU learnt from the First");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 113, SYN_ACK, msn += 3, 0, ROCE_OK, "ACK");
	/* A NAK ahead of the only packet seen on a QP: the others may have
	 * passed before the capture began. */
	c.qp_a = SAMPLE_QP_A + 1;
	c.qp_b = SAMPLE_QP_B + 1;
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 500, 16, ROCE_OK, "SEND Only on another QP");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 510, SYN_NAK_SEQ, 1, 0, ROCE_F_SEQ_NAK_AHEAD_SEEN,
	    "NAK for PSN 510, beyond the one packet seen: maybe sent before the capture began");
}

/* Conforming peers on a lossy network, captured between them: loss,
 * reordering and duplication before and after the capture point. */
void sample_conv_lossy(sample_emit_fn emit, void *ctx)
{
	struct conv c;
	conv_init(&c, emit, ctx, 4);
	conv_cm_connect(&c, 2000, 7000);
	uint32_t msn = 0;

	/* The reported case: PSN 2001 lost after the capture point; the
	 * requester goes on with new PSNs until the NAK reaches it (they cross
	 * it in flight), then goes back from 2001. Measured, not judged. */
	for (uint32_t psn = 2000; psn <= 2003; psn++)
		conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, psn, 64, ROCE_OK, "SEND Only");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 2001, SYN_NAK_SEQ, ++msn, 0, ROCE_F_SEQ_NAK_EXPLAINED,
	    "NAK PSN Sequence Error: 2001 was lost after the capture point");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 2004, 64, ROCE_OK, "SEND Only 2004: sent before the NAK reached the requester");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 2005, 64, ROCE_OK, "SEND Only 2005: the same");
	c.t_us += 40;
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 2001, 64, ROCE_F_GBN_RETRANSMISSION,
	    "SEND Only 2001 resent, 55 us after the NAK; 2 new PSNs crossed it");
	for (uint32_t psn = 2002; psn <= 2005; psn++)
		conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, psn, 64, ROCE_F_GBN_RETRANSMISSION, "go-back resend");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 2005, SYN_ACK, msn += 4, 0, ROCE_OK, "ACK");

	/* Duplication before the capture point. */
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 2006, 64, ROCE_OK, "SEND Only");
	conv_duplicate(&c, 3, ROCE_F_RETRANSMISSION, "the same SEND Only, duplicated by the network");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 2006, SYN_ACK, ++msn, 0, ROCE_OK, "ACK");
	conv_duplicate(&c, 3, ROCE_F_DUP_ACK, "the same ACK, duplicated by the network");

	/* Reordering before the capture point. */
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 2007, 64, ROCE_OK, "SEND Only");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 2009, 64, ROCE_F_PSN_GAP, "SEND Only 2009: it overtook 2008");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 2008, 64, ROCE_F_OUT_OF_ORDER, "SEND Only 2008, overtaken");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 2009, SYN_ACK, msn += 3, 0, ROCE_OK, "ACK");

	/* Loss before the capture point, and the resend of the NAKed PSN lost
	 * there too; the requester times out and goes back again. */
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 2010, 64, ROCE_OK, "SEND Only");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 2012, 64, ROCE_F_PSN_GAP, "SEND Only 2012: 2011 lost before the capture point");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 2011, SYN_NAK_SEQ, ++msn, 0, ROCE_F_SEQ_NAK_EXPLAINED, "NAK PSN Sequence Error: expected 2011");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 2012, 64, ROCE_F_GBN_RETRANSMISSION,
	    "SEND Only 2012 resent: the resend of 2011 was lost before the capture point too");
	c.t_us += 20000;
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 2011, 64, ROCE_F_GBN_RETRANSMISSION, "SEND Only 2011 resent after the ACK timeout");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 2012, 64, ROCE_F_GBN_SKIPPED_SEEN,
	    "SEND Only 2012 resent again: the first resend of 2012 was no reordered part of this go-back");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 2012, SYN_ACK, msn += 2, 0, ROCE_OK, "ACK");

	/* READ replays: the last responses of a READ lost after the capture
	 * point; the requester asks again from the first missing PSN. Linux
	 * rxe answers with the original's Middle there, others with a new
	 * First: both conform (RC-RESP-DUP-READ-001). */
	conv_read_req(&c, 2013, 3000, ROCE_OK, "RDMA READ Request of 3000 bytes");
	conv_ack(&c, true, ROCE_OP_RC_READ_RESPONSE_FIRST, 2013, SYN_ACK, ++msn, PMTU, ROCE_OK, "READ Response First (1/3)");
	conv_ack(&c, true, ROCE_OP_RC_READ_RESPONSE_MIDDLE, 2014, SYN_ACK, msn, PMTU, ROCE_OK,
	    "READ Response Middle (2/3), lost after the capture point");
	c.t_us += 20000;
	conv_read_req(&c, 2014, 3000 - PMTU, ROCE_F_RETRANSMISSION, "RDMA READ Request asked again from PSN 2014 (1976 bytes)");
	conv_ack(&c, true, ROCE_OP_RC_READ_RESPONSE_MIDDLE, 2014, SYN_ACK, msn, PMTU, ROCE_F_READ_REPLAY_MIDDLE,
	    "READ Response Middle again: the replay keeps the original's opcode");
	conv_ack(&c, true, ROCE_OP_RC_READ_RESPONSE_LAST, 2015, SYN_ACK, msn, 3000 - 2 * PMTU, ROCE_OK, "READ Response Last");
	conv_read_req(&c, 2016, 2500, ROCE_OK, "RDMA READ Request of 2500 bytes");
	conv_ack(&c, true, ROCE_OP_RC_READ_RESPONSE_FIRST, 2016, SYN_ACK, ++msn, PMTU, ROCE_OK, "READ Response First (1/3)");
	c.t_us += 20000;
	conv_read_req(&c, 2017, 2500 - PMTU, ROCE_F_RETRANSMISSION, "RDMA READ Request asked again from PSN 2017 (1476 bytes)");
	conv_ack(&c, true, ROCE_OP_RC_READ_RESPONSE_FIRST, 2017, SYN_ACK, msn, PMTU, ROCE_OK, "READ Response First: the replay as a new request");
	conv_ack(&c, true, ROCE_OP_RC_READ_RESPONSE_LAST, 2018, SYN_ACK, msn, 2500 - 2 * PMTU, ROCE_OK, "READ Response Last");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 2019, 64, ROCE_OK, "SEND Only after the READs' PSNs");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 2019, SYN_ACK, ++msn, 0, ROCE_OK, "ACK");

	/* An RNR NAK, and a copy of the NAKed SEND that the network delayed:
	 * byte for byte the original, before the RNR timer ran out. */
	uint16_t id = c.ip_id;
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 2020, 64, ROCE_OK, "SEND Only");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 2020, SYN_RNR_1_28_MS, msn, 0, ROCE_F_RNR_EXPLAINED, "RNR NAK, 1.28 ms");
	c.t_us += 100;
	uint16_t next_id = c.ip_id;
	c.ip_id = id;
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 2020, 64, ROCE_F_RNR_EARLY_SEEN,
	    "SEND Only 2020 again after 0.1 ms, byte for byte: the network's duplicate");
	c.ip_id = next_id;
	c.t_us += 2000;
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 2020, 64, ROCE_F_RETRANSMISSION, "SEND Only 2020 retried after the RNR timer");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 2020, SYN_ACK, ++msn, 0, ROCE_OK, "ACK");
	conv_cm_disconnect(&c);
}

/* A WRITE of several packets to QP B (or destqp): its First carries the
 * RETH for the message's total length. */
static void write_first(struct conv *c, uint32_t destqp, uint8_t opcode, uint32_t psn, uint32_t total,
			enum roce_code expect, const char *what)
{
	struct roce_desc d;
	conv_start(c, &d, true, opcode, destqp, psn, PMTU);
	roce_reth_set_dmalen(conv_hdr(&d, ROCE_H_RETH), total);
	conv_send(c, &d, 5, expect, what);
}

void sample_conv_messages(sample_emit_fn emit, void *ctx)
{
	struct conv c;
	conv_init(&c, emit, ctx, 4);
	conv_cm_connect(&c, 3000, 8000);
	uint32_t msn = 0;

	conv_req(&c, true, ROCE_OP_RC_SEND_FIRST, 3000, PMTU, ROCE_OK, "SEND First of 2348 bytes (message 1/3)");
	conv_req(&c, true, ROCE_OP_RC_SEND_MIDDLE, 3001, PMTU, ROCE_OK, "SEND Middle (2/3)");
	conv_req(&c, true, ROCE_OP_RC_SEND_LAST, 3002, 300, ROCE_OK, "SEND Last (3/3): the message is whole");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 3002, SYN_ACK, ++msn, 0, ROCE_OK, "ACK");
	write_first(&c, SAMPLE_QP_B, ROCE_OP_RC_WRITE_FIRST, 3003, 2 * PMTU + 200, ROCE_OK,
		    "RDMA WRITE First of 2248 bytes (1/3)");
	conv_req(&c, true, ROCE_OP_RC_WRITE_MIDDLE, 3004, PMTU, ROCE_OK, "RDMA WRITE Middle (2/3)");
	conv_req(&c, true, ROCE_OP_RC_WRITE_LAST, 3005, 200, ROCE_OK, "RDMA WRITE Last (3/3): the message is whole");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 3005, SYN_ACK, ++msn, 0, ROCE_OK, "ACK");

	/* The Middle lost before the capture point: the hole is filled by the
	 * go-back-N resend, which completes the message; the resent Last is a
	 * copy of a packet of a whole message. */
	conv_req(&c, true, ROCE_OP_RC_SEND_FIRST, 3006, PMTU, ROCE_OK, "SEND First (1/3)");
	conv_req(&c, true, ROCE_OP_RC_SEND_LAST, 3008, 100, ROCE_F_PSN_GAP,
	    "SEND Last (3/3): the Middle 3007 was lost before the capture point");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 3007, SYN_NAK_SEQ, ++msn, 0, ROCE_F_SEQ_NAK_EXPLAINED,
	    "NAK PSN Sequence Error: expected 3007");
	conv_req(&c, true, ROCE_OP_RC_SEND_MIDDLE, 3007, PMTU, ROCE_F_GBN_RETRANSMISSION,
	    "SEND Middle resent: the message is whole");
	conv_req(&c, true, ROCE_OP_RC_SEND_LAST, 3008, 100, ROCE_F_GBN_RETRANSMISSION, "SEND Last resent: a copy");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 3008, SYN_ACK, msn += 1, 0, ROCE_OK, "ACK");

	/* A lost ACK: the whole message is resent after the timeout. */
	write_first(&c, SAMPLE_QP_B, ROCE_OP_RC_WRITE_FIRST, 3009, PMTU + 64, ROCE_OK, "RDMA WRITE First (1/2)");
	conv_req(&c, true, ROCE_OP_RC_WRITE_LAST_WITH_IMM, 3010, 64, ROCE_OK,
	    "RDMA WRITE Last with Immediate (2/2): the message is whole");
	c.t_us += 20000;
	write_first(&c, SAMPLE_QP_B, ROCE_OP_RC_WRITE_FIRST, 3009, PMTU + 64, ROCE_F_RETRANSMISSION,
		    "RDMA WRITE First resent after the ACK timeout: a copy");
	conv_req(&c, true, ROCE_OP_RC_WRITE_LAST_WITH_IMM, 3010, 64, ROCE_F_RETRANSMISSION, "RDMA WRITE Last resent: a copy");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 3010, SYN_ACK, ++msn, 0, ROCE_OK, "ACK");

	/* RPC-over-RDMA: a call in a SEND Only makes the QP one a ULP reads;
	 * the next call, in a SEND of two packets, goes to it whole at its Last. */
	uint8_t *rpc = c.payload + 6000;
	size_t n = conv_rpc_over_rdma(rpc);
	struct roce_desc d;
	conv_start(&c, &d, true, ROCE_OP_RC_SEND_ONLY, SAMPLE_QP_B, 3011, n);
	d.payload = rpc;
	conv_send(&c, &d, 5, ROCE_OK, "SEND Only: RPC-over-RDMA call (NFSv3 NULL)");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 3011, SYN_ACK, ++msn, 0, ROCE_OK, "ACK");
	memset(rpc, 0, PMTU + 200);
	conv_rpc_over_rdma(rpc);
	roce_be_store(rpc, 4, 2);      /* RPC-over-RDMA xid */
	roce_be_store(rpc + 28, 4, 2); /* RPC xid */
	conv_start(&c, &d, true, ROCE_OP_RC_SEND_FIRST, SAMPLE_QP_B, 3012, PMTU);
	d.payload = rpc;
	conv_send(&c, &d, 5, ROCE_OK, "SEND First: RPC-over-RDMA call (NFSv3 NULL) of 1224 bytes");
	conv_start(&c, &d, true, ROCE_OP_RC_SEND_LAST, SAMPLE_QP_B, 3013, 200);
	d.payload = rpc + PMTU;
	conv_send(&c, &d, 5, ROCE_OK, "SEND Last: the RPC-over-RDMA call is whole");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 3013, SYN_ACK, ++msn, 0, ROCE_OK, "ACK");

	/* UC never resends: a Middle lost before the capture point leaves a
	 * hole in the message. */
	write_first(&c, 0x000300, ROCE_OP_UC_WRITE_FIRST, 400, 2 * PMTU + 100, ROCE_OK, "UC RDMA WRITE First (1/3)");
	conv_start(&c, &d, true, ROCE_OP_UC_WRITE_LAST, 0x000300, 402, 100);
	conv_send(&c, &d, 5, ROCE_F_PSN_GAP, "UC RDMA WRITE Last (3/3): the Middle 401 was lost before the capture point");
	conv_req_to(&c, 0x000300, ROCE_OP_UC_SEND_FIRST, 403, PMTU, "UC SEND First (1/2)");
	conv_req_to(&c, 0x000300, ROCE_OP_UC_SEND_LAST, 404, 10, "UC SEND Last (2/2): the message is whole");
	conv_cm_disconnect(&c);
}

void sample_conv_uc_ud_xrc(sample_emit_fn emit, void *ctx)
{
	struct conv c;
	conv_init(&c, emit, ctx, 6);
	uint8_t m[ROCE_MAD_LEN];
	uint8_t *x = m + ROCE_MAD_HDR_LEN;
	roce_cm_mad_init(m, ROCE_CM_SIDR_REQ, 0x0000000200000001ull);
	roce_sidr_req_set_request_id(x, 0x01020304);
	roce_sidr_req_set_pkey(x, 0xFFFF);
	roce_sidr_req_set_service_id(x, 0x0000000001114853ull); /* IP CM, UDP port 18515 */
	conv_ip_cm_private(&c, roce_sidr_req_private_data(x));
	conv_mad(&c, true, m, "CM SIDR REQ with IP CM private data");
	roce_cm_mad_init(m, ROCE_CM_SIDR_REP, 0x0000000200000001ull);
	roce_sidr_rep_set_request_id(x, 0x01020304);
	roce_sidr_rep_set_qpn(x, 0x000777);
	roce_sidr_rep_set_service_id(x, 0x0000000001114853ull);
	roce_sidr_rep_set_qkey(x, 0x11111111);
	conv_mad(&c, false, m, "CM SIDR REP: QPN 0x000777");

	for (uint32_t i = 0; i < 3; i++) {
		struct roce_desc d;
		conv_start(&c, &d, true, ROCE_OP_UD_SEND_ONLY, 0x000777, 100 + i, 200 + i);
		roce_deth_set_srcqp(conv_hdr(&d, ROCE_H_DETH), 0x000888);
		conv_send(&c, &d, 5, ROCE_OK, "UD SEND Only to the resolved QP");
	}
	/* UC: a three-packet SEND and an RDMA WRITE Only to QP 0x000300; no ACKs. */
	conv_req_to(&c, 0x000300, ROCE_OP_UC_SEND_FIRST, 300, PMTU, "UC SEND First");
	conv_req_to(&c, 0x000300, ROCE_OP_UC_SEND_MIDDLE, 301, PMTU, "UC SEND Middle");
	conv_req_to(&c, 0x000300, ROCE_OP_UC_SEND_LAST, 302, 77, "UC SEND Last");
	conv_req_to(&c, 0x000300, ROCE_OP_UC_WRITE_ONLY, 303, 512, "UC RDMA WRITE Only");
	/* XRC: SEND Only to XRC target QP 0x000200 (SRQ 0x000077), its ACK to
	 * the initiator QP 0x000201, a READ and its response. */
	conv_req_to(&c, 0x000200, ROCE_OP_XRC_SEND_ONLY, 400, 48, "XRC SEND Only");
	struct roce_desc d;
	conv_start(&c, &d, false, ROCE_OP_XRC_ACK, 0x000201, 400, 0);
	roce_aeth_set_msn(conv_hdr(&d, ROCE_H_AETH), 1);
	conv_send(&c, &d, 8, ROCE_OK, "XRC ACK");
	conv_start(&c, &d, true, ROCE_OP_XRC_READ_REQUEST, 0x000200, 401, 0);
	roce_reth_set_dmalen(conv_hdr(&d, ROCE_H_RETH), 600);
	conv_send(&c, &d, 5, ROCE_OK, "XRC RDMA READ Request of 600 bytes");
	conv_start(&c, &d, false, ROCE_OP_XRC_READ_RESPONSE_ONLY, 0x000201, 401, 600);
	roce_aeth_set_msn(conv_hdr(&d, ROCE_H_AETH), 2);
	conv_send(&c, &d, 8, ROCE_OK, "XRC READ Response Only");
	/* A CNP from B about QP A's traffic, none of which was marked CE in
	 * the capture: noted (a mark after the capture point explains it). */
	conv_start(&c, &d, false, ROCE_OP_CNP, SAMPLE_QP_A, 0, 0);
	roce_bth_set_becn(d.bth, 1);
	conv_send(&c, &d, 5, ROCE_F_CNP_NO_CE, "CNP with no CE-marked packet of its flow in the capture");
}
