/*
 * The peer engine against itself: two engines wired back to back through
 * an in-memory link with virtual time, one as requester and one as
 * responder, for RC, UC and UD, with loss, reordering, duplication,
 * corruption and RNR provoked by injection rules.
 */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "peer.h"
#include "testutil.h"

#define MS 1000000ull
#define US 1000ull

struct frame {
	int to; /* 0: A, 1: B */
	uint64_t at;
	size_t len;
	uint8_t data[PEER_FRAME_MAX];
};

struct link {
	struct frame q[4096];
	unsigned n;
	uint64_t now;
	uint64_t latency;
	unsigned sent[2];
	bool drop_all[2]; /* link loss from A (0) or B (1) */
	struct peer *peer[2];
	uint8_t last_frame[2][PEER_FRAME_MAX];
	size_t last_len[2];
	struct peer_tx_info last_info[2];
};

struct side {
	struct link *l;
	int me;
};

static int link_send(void *ctx, const uint8_t *frame, size_t len, const struct peer_tx_info *info)
{
	struct side *s = ctx;
	struct link *l = s->l;
	l->sent[s->me]++;
	memcpy(l->last_frame[s->me], frame, len);
	l->last_len[s->me] = len;
	l->last_info[s->me] = *info;
	if (l->drop_all[s->me] || l->n == 4096)
		return 0;
	struct frame *f = &l->q[l->n++];
	f->to = !s->me;
	f->at = l->now + l->latency;
	f->len = len;
	memcpy(f->data, frame, len);
	return 0;
}

/* Delivers frames and runs timers until nothing is left to do or the
 * virtual clock passes limit. */
static void run(struct link *l, uint64_t limit)
{
	while (l->now <= limit) {
		uint64_t next = UINT64_MAX;
		for (unsigned i = 0; i < l->n; i++)
			if (l->q[i].at < next)
				next = l->q[i].at;
		for (int s = 0; s < 2; s++) {
			uint64_t d = peer_next_deadline(l->peer[s]);
			if (d < next)
				next = d;
		}
		if (next == UINT64_MAX || next > limit)
			break;
		if (next > l->now)
			l->now = next;
		for (unsigned i = 0; i < l->n;) {
			if (l->q[i].at <= l->now) {
				struct frame f = l->q[i];
				memmove(&l->q[i], &l->q[i + 1], (l->n - i - 1) * sizeof l->q[0]);
				l->n--;
				peer_rx(l->peer[f.to], f.data, f.len, l->now);
			} else {
				i++;
			}
		}
		peer_advance(l->peer[0], l->now);
		peer_advance(l->peer[1], l->now);
	}
	if (l->now < limit)
		l->now = limit;
}

static struct link L;
static struct side SA = { &L, 0 }, SB = { &L, 1 };

static void endpoint(struct roce_endpoint *ep, int from, uint32_t dest_qpn, int ipv)
{
	memset(ep, 0, sizeof *ep);
	ep->ip_version = ipv;
	uint8_t ma[6] = { 2, 0, 0, 0, 0, 0xA }, mb[6] = { 2, 0, 0, 0, 0, 0xB };
	memcpy(ep->src_mac, from ? mb : ma, 6);
	memcpy(ep->dst_mac, from ? ma : mb, 6);
	if (ipv == 4) {
		uint8_t a[4] = { 198, 18, 0, 1 }, b[4] = { 198, 18, 0, 2 };
		memcpy(ep->src_ip, from ? b : a, 4);
		memcpy(ep->dst_ip, from ? a : b, 4);
	} else {
		uint8_t a[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 }, b[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
		memcpy(ep->src_ip, from ? b : a, 16);
		memcpy(ep->dst_ip, from ? a : b, 16);
	}
	ep->hop_limit = 64;
	ep->udp_sport = from ? 0xC001 : 0xC002;
	ep->pkey = 0xFFFF;
	ep->dest_qpn = dest_qpn;
}

#define QA 0x000111
#define QB 0x000222

static void setup(enum roce_transport t, unsigned pmtu, int ipv)
{
	for (int s = 0; s < 2; s++)
		if (L.peer[s])
			peer_free(L.peer[s]);
	memset(&L, 0, sizeof L);
	L.latency = 10 * US;
	struct peer_io ia = { &SA, link_send, NULL }, ib = { &SB, link_send, NULL };
	L.peer[0] = peer_new(&ia);
	L.peer[1] = peer_new(&ib);
	struct peer_qp_cfg a = { t, QA, QB, 100, 5000, pmtu, 0x1111, 0x2222, { 0 }, 2 * MS, 3, 2, 14 };
	struct peer_qp_cfg b = { t, QB, QA, 5000, 100, pmtu, 0x2222, 0x1111, { 0 }, 2 * MS, 3, 2, 14 };
	endpoint(&a.ep, 0, QB, ipv);
	endpoint(&b.ep, 1, QA, ipv);
	CHECK(peer_qp_add(L.peer[0], &a) == 0, "add A");
	CHECK(peer_qp_add(L.peer[1], &b) == 0, "add B");
}

static void fill(uint8_t *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 7 + seed);
}

static int post(int side, const struct peer_wr *wr)
{
	char err[128];
	int r = peer_post(L.peer[side], side ? QB : QA, wr, L.now, err, sizeof err);
	if (r)
		fprintf(stderr, "post: %s\n", err);
	return r;
}

static bool poll_one(int side, struct peer_wc *wc)
{
	return peer_poll(L.peer[side], side ? QB : QA, wc);
}

static void add_rule(int side, bool rx, int opcode, long psn, int round, unsigned count, enum inj_action a)
{
	struct inj_rule r = { 0 };
	r.rx = rx;
	r.qpn = side ? QB : QA;
	r.opcode = opcode;
	r.has_psn = psn >= 0;
	r.psn = psn >= 0 ? (uint32_t)psn : 0;
	r.round = round;
	r.count = count;
	r.action = a;
	r.delay_ns = 3 * MS;
	r.reorder_n = 1;
	snprintf(r.text, sizeof r.text, "test rule");
	CHECK(inj_add(peer_rules(L.peer[side]), &r) == 0, "rule added");
}

static void test_send(int ipv)
{
	setup(ROCE_T_RC, 1024, ipv);
	uint8_t data[3000];
	fill(data, sizeof data, 1);
	struct peer_wr wr = { .wr_id = 7, .op = PEER_OP_SEND, .data = data, .len = sizeof data, .has_imm = true, .imm = 0xabcd };
	CHECK(post(0, &wr) == 0, "post send");
	run(&L, 50 * MS);
	struct peer_wc wc;
	CHECK(poll_one(0, &wc) && wc.wr_id == 7 && wc.status == AP_WC_SUCCESS, "send completes at A (ipv%d)", ipv);
	CHECK(poll_one(1, &wc) && wc.op == PEER_OP_RECV && wc.byte_len == 3000 && wc.has_imm && wc.imm == 0xabcd &&
		      !memcmp(wc.data, data, 3000), "B received the 3000 bytes and the immediate (ipv%d)", ipv);
	CHECK(L.sent[0] == 3, "3 packets for 3000 bytes at PMTU 1024, got %u", L.sent[0]);
	CHECK(peer_stats(L.peer[1])->acks_sent == 1, "one ACK (AckReq only on the last packet)");
	CHECK(peer_qp_next_psn(L.peer[0], QA) == 103, "PSN advanced by 3");
	CHECK(peer_qp_epsn(L.peer[1], QB) == 103, "responder expects 103");
	CHECK(peer_qp_msn(L.peer[1], QB) == 1, "MSN 1");
	const struct peer_timing *t;
	size_t nt = peer_timings(L.peer[0], &t);
	CHECK(nt == 1 && !strcmp(t[0].what, "response") && t[0].delta_ns == 2 * L.latency,
	      "the ACK is timed: %zu records, delta %llu", nt, nt ? (unsigned long long)t[0].delta_ns : 0ull);
}

static void test_zero_length(void)
{
	/* Zero-length SEND, WRITE and READ: no payload, no buffer behind it
	 * (the sanitizer build checks nothing is copied from NULL). */
	setup(ROCE_T_RC, 1024, 4);
	const struct peer_mr *m = peer_mr_add(L.peer[1], 64, PEER_ACC_WRITE | PEER_ACC_READ, 0x5a);
	struct peer_wr s = { .wr_id = 1, .op = PEER_OP_SEND };
	struct peer_wr w = { .wr_id = 2, .op = PEER_OP_WRITE, .remote = m->addr, .rkey = m->rkey };
	struct peer_wr r = { .wr_id = 3, .op = PEER_OP_READ, .remote = m->addr, .rkey = m->rkey };
	CHECK(post(0, &s) == 0 && post(0, &w) == 0 && post(0, &r) == 0, "post zero-length SEND, WRITE, READ");
	run(&L, 50 * MS);
	struct peer_wc wc;
	for (uint64_t id = 1; id <= 3; id++)
		CHECK(poll_one(0, &wc) && wc.wr_id == id && wc.status == AP_WC_SUCCESS && wc.byte_len == 0,
		      "zero-length request %llu completes", (unsigned long long)id);
	CHECK(poll_one(1, &wc) && wc.op == PEER_OP_RECV && wc.byte_len == 0, "B received an empty SEND");
	CHECK(L.sent[0] == 3, "one packet each, got %u", L.sent[0]);
}

static void test_write_read_atomics(void)
{
	setup(ROCE_T_RC, 256, 4);
	const struct peer_mr *m = peer_mr_add(L.peer[1], 8192, PEER_ACC_WRITE | PEER_ACC_READ | PEER_ACC_ATOMIC, 0);
	CHECK(m != NULL, "MR");
	uint8_t data[1000];
	fill(data, sizeof data, 3);
	struct peer_wr w = { .wr_id = 1, .op = PEER_OP_WRITE, .data = data, .len = sizeof data, .remote = m->addr + 100, .rkey = m->rkey };
	CHECK(post(0, &w) == 0, "post write");
	struct peer_wr r = { .wr_id = 2, .op = PEER_OP_READ, .len = 1000, .remote = m->addr + 100, .rkey = m->rkey };
	CHECK(post(0, &r) == 0, "post read");
	CHECK(peer_qp_next_psn(L.peer[0], QA) == 100 + 4 + 4, "READ reserves one PSN per response packet");
	memset(m->buf + 4096, 0, 8);
	m->buf[4096] = 5;
	struct peer_wr fa = { .wr_id = 3, .op = PEER_OP_FETCH_ADD, .remote = m->addr + 4096, .rkey = m->rkey, .swap_add = 10 };
	struct peer_wr cs = { .wr_id = 4, .op = PEER_OP_CMP_SWAP, .remote = m->addr + 4096, .rkey = m->rkey, .compare = 15, .swap_add = 99 };
	CHECK(post(0, &fa) == 0 && post(0, &cs) == 0, "post atomics");
	run(&L, 50 * MS);
	struct peer_wc wc;
	CHECK(poll_one(0, &wc) && wc.wr_id == 1 && wc.status == AP_WC_SUCCESS, "write done");
	CHECK(!memcmp(m->buf + 100, data, 1000), "write landed");
	CHECK(poll_one(0, &wc) && wc.wr_id == 2 && wc.status == AP_WC_SUCCESS && wc.data && !memcmp(wc.data, data, 1000),
	      "read returned the data");
	CHECK(poll_one(0, &wc) && wc.wr_id == 3 && wc.value == 5, "fetch&add returned 5, got %llu", (unsigned long long)wc.value);
	CHECK(poll_one(0, &wc) && wc.wr_id == 4 && wc.value == 15, "cmp&swap saw 15");
	CHECK(m->buf[4096] == 99 && m->buf[4097] == 0, "cmp&swap swapped in 99");
	CHECK(peer_qp_msn(L.peer[1], QB) == 4, "MSN counts 4 messages, got %u", peer_qp_msn(L.peer[1], QB));
	const struct peer_finding *f;
	CHECK(peer_findings(L.peer[0], &f) == 0, "no findings on a conforming responder");
}

static void test_loss_gbn(void)
{
	setup(ROCE_T_RC, 1024, 4);
	uint8_t data[4096];
	fill(data, sizeof data, 5);
	add_rule(0, false, -1, 101, 0, 0, INJ_DROP); /* the 2nd packet, first transmission only */
	struct peer_wr wr = { .wr_id = 1, .op = PEER_OP_SEND, .data = data, .len = sizeof data };
	post(0, &wr);
	run(&L, 100 * MS);
	struct peer_wc wc;
	CHECK(poll_one(0, &wc) && wc.status == AP_WC_SUCCESS, "completes after go-back-N");
	CHECK(poll_one(1, &wc) && wc.byte_len == 4096 && !memcmp(wc.data, data, 4096), "data intact");
	CHECK(peer_stats(L.peer[1])->naks_sent == 1, "one NAK PSN sequence error, got %llu",
	      (unsigned long long)peer_stats(L.peer[1])->naks_sent);
	/* 4 + 3 retransmitted (101, 102, 103), of which 101 was dropped once. */
	CHECK(L.sent[0] == 6, "packets on the wire from A: %u", L.sent[0]);
	CHECK(peer_stats(L.peer[0])->dropped_by_rule == 1, "the rule fired once");
}

static void test_round_targeting(void)
{
	/* Drop only the second retransmission of PSN 100: it takes a third. */
	setup(ROCE_T_RC, 1024, 4);
	uint8_t data[16] = { 1 };
	add_rule(0, false, -1, 100, 0, 0, INJ_DROP);
	add_rule(0, false, -1, 100, 1, 0, INJ_DROP);
	add_rule(0, false, -1, 100, 2, 0, INJ_DROP);
	struct peer_wr wr = { .wr_id = 1, .op = PEER_OP_SEND, .data = data, .len = sizeof data };
	post(0, &wr);
	run(&L, 100 * MS);
	struct peer_wc wc;
	CHECK(poll_one(0, &wc) && wc.status == AP_WC_SUCCESS, "succeeds on the 4th transmission");
	CHECK(peer_stats(L.peer[0])->dropped_by_rule == 3, "3 dropped");
	CHECK(L.now >= 6 * MS, "three timeouts passed");
	const struct peer_timing *t;
	size_t nt = peer_timings(L.peer[1], &t);
	CHECK(nt == 0, "B saw only one transmission: no retransmission timing");
}

static void test_timeout_lost_ack(void)
{
	setup(ROCE_T_RC, 1024, 6);
	uint8_t data[100] = { 9 };
	add_rule(1, false, ROCE_OP_RC_ACK, -1, -1, 1, INJ_DROP); /* B's first ACK */
	struct peer_wr wr = { .wr_id = 1, .op = PEER_OP_SEND, .data = data, .len = sizeof data };
	post(0, &wr);
	run(&L, 100 * MS);
	struct peer_wc wc;
	CHECK(poll_one(0, &wc) && wc.status == AP_WC_SUCCESS, "completes after a timeout");
	CHECK(poll_one(1, &wc) && !poll_one(1, &wc), "delivered exactly once");
	CHECK(peer_stats(L.peer[0])->retransmissions == 1, "one retransmission");
	const struct peer_timing *t;
	size_t nt = peer_timings(L.peer[1], &t);
	CHECK(nt == 1 && !strcmp(t[0].what, "retransmission") && t[0].delta_ns >= 2 * MS && t[0].delta_ns < 3 * MS,
	      "B timed the retransmission at the ACK timeout");
}

static void test_retry_exhausted(void)
{
	setup(ROCE_T_RC, 1024, 4);
	uint8_t data[8] = { 0 };
	L.drop_all[0] = true;
	struct peer_wr wr = { .wr_id = 1, .op = PEER_OP_SEND, .data = data, .len = sizeof data };
	struct peer_wr wr2 = { .wr_id = 2, .op = PEER_OP_SEND, .data = data, .len = sizeof data };
	post(0, &wr);
	post(0, &wr2);
	run(&L, 100 * MS);
	struct peer_wc wc;
	CHECK(poll_one(0, &wc) && wc.wr_id == 1 && wc.status == AP_WC_RETRY_EXC_ERR, "retry exceeded");
	CHECK(poll_one(0, &wc) && wc.wr_id == 2 && wc.status == AP_WC_WR_FLUSH_ERR, "the next is flushed");
	CHECK(L.sent[0] == 2 * 4, "1 + retry_cnt (3) transmissions of 2 packets: %u", L.sent[0]);
	CHECK(peer_qp_in_error(L.peer[0], QA), "QP in error");
}

static void test_rnr(void)
{
	setup(ROCE_T_RC, 1024, 4);
	uint8_t data[8] = { 0 };
	peer_qp_set_rnr(L.peer[1], QB, true);
	peer_qp_set_rnr_timer(L.peer[1], QB, 14); /* 1.28 ms */
	struct peer_wr wr = { .wr_id = 1, .op = PEER_OP_SEND, .data = data, .len = sizeof data };
	post(0, &wr);
	run(&L, 2 * MS);
	CHECK(peer_stats(L.peer[1])->rnr_naks_sent >= 1, "RNR NAK sent");
	peer_qp_set_rnr(L.peer[1], QB, false);
	run(&L, 20 * MS);
	struct peer_wc wc;
	CHECK(poll_one(0, &wc) && wc.status == AP_WC_SUCCESS, "succeeds once receives are posted");

	setup(ROCE_T_RC, 1024, 4);
	peer_qp_set_recv(L.peer[1], QB, 0);
	post(0, &wr);
	run(&L, 100 * MS);
	CHECK(poll_one(0, &wc) && wc.status == AP_WC_RNR_RETRY_EXC_ERR, "RNR retries (2) run out, got %s",
	      ap_wc_status_name(wc.status));
	CHECK(peer_stats(L.peer[1])->rnr_naks_sent == 3, "1 + rnr_retry RNR NAKs, got %llu",
	      (unsigned long long)peer_stats(L.peer[1])->rnr_naks_sent);
}

static void test_access_error(void)
{
	setup(ROCE_T_RC, 1024, 4);
	const struct peer_mr *m = peer_mr_add(L.peer[1], 4096, PEER_ACC_READ, 0);
	uint8_t data[64] = { 0 };
	struct peer_wr w = { .wr_id = 1, .op = PEER_OP_WRITE, .data = data, .len = 64, .remote = m->addr, .rkey = m->rkey };
	post(0, &w);
	run(&L, 20 * MS);
	struct peer_wc wc;
	CHECK(poll_one(0, &wc) && wc.status == AP_WC_REM_ACCESS_ERR, "write to a read-only MR: remote access error");
	CHECK(peer_qp_in_error(L.peer[1], QB) && peer_qp_in_error(L.peer[0], QA), "both QPs in error");

	setup(ROCE_T_RC, 1024, 4);
	m = peer_mr_add(L.peer[1], 4096, PEER_ACC_ATOMIC, 0);
	struct peer_wr fa = { .wr_id = 1, .op = PEER_OP_FETCH_ADD, .remote = m->addr + 4, .rkey = m->rkey, .swap_add = 1 };
	post(0, &fa);
	run(&L, 20 * MS);
	CHECK(poll_one(0, &wc) && wc.status == AP_WC_REM_INV_REQ_ERR, "misaligned atomic: invalid request");
}

static void test_duplicate_and_reorder(void)
{
	setup(ROCE_T_RC, 1024, 4);
	uint8_t data[2048];
	fill(data, sizeof data, 8);
	add_rule(0, false, -1, 100, 0, 1, INJ_DUPLICATE);
	struct peer_wr wr = { .wr_id = 1, .op = PEER_OP_SEND, .data = data, .len = 1024 };
	post(0, &wr);
	run(&L, 20 * MS);
	struct peer_wc wc;
	CHECK(poll_one(1, &wc) && !poll_one(1, &wc), "a duplicate is delivered once");
	CHECK(peer_stats(L.peer[1])->acks_sent == 2, "and ACKed twice (C9-105)");

	setup(ROCE_T_RC, 1024, 4);
	add_rule(0, false, -1, 100, 0, 1, INJ_REORDER);
	wr.len = 2048;
	post(0, &wr);
	run(&L, 50 * MS);
	CHECK(poll_one(0, &wc) && wc.status == AP_WC_SUCCESS, "reordered message still completes");
	CHECK(poll_one(1, &wc) && wc.byte_len == 2048 && !memcmp(wc.data, data, 2048), "intact");
	CHECK(peer_stats(L.peer[1])->naks_sent == 1, "the overtaking packet drew a NAK");

	setup(ROCE_T_RC, 1024, 4);
	add_rule(0, false, -1, 100, 0, 1, INJ_DELAY);
	wr.len = 100;
	post(0, &wr);
	run(&L, 1 * MS);
	CHECK(!poll_one(1, &wc), "delayed: not yet");
	run(&L, 10 * MS);
	CHECK(poll_one(1, &wc), "delivered after the delay");
}

static void test_corrupt_and_set(void)
{
	setup(ROCE_T_RC, 1024, 4);
	uint8_t data[100] = { 1 };
	add_rule(0, false, -1, 100, 0, 1, INJ_CORRUPT_ICRC);
	struct peer_wr wr = { .wr_id = 1, .op = PEER_OP_SEND, .data = data, .len = 100 };
	post(0, &wr);
	run(&L, 1 * MS);
	struct roce_pkt p;
	roce_parse_frame(&p, L.last_frame[0], L.last_len[0], L.last_len[0], 0);
	CHECK(roce_icrc_check(&p, NULL, NULL) == ROCE_ICRC_BAD, "ICRC corrupted on the wire");
	CHECK(L.last_info[0].rule != NULL, "the frame names its rule");
	run(&L, 50 * MS);
	struct peer_wc wc;
	CHECK(poll_one(0, &wc) && wc.status == AP_WC_SUCCESS && peer_stats(L.peer[0])->retransmissions == 1,
	      "the receiver dropped it; a timeout retransmitted it");

	setup(ROCE_T_RC, 1024, 6);
	struct inj_rule r = { .rx = false, .qpn = QA, .opcode = -1, .round = -1, .action = INJ_SET,
			      .field = ROCE_F_BTH_tver, .value = 1, .count = 1 };
	inj_add(peer_rules(L.peer[0]), &r);
	struct inj_rule ce = { .rx = false, .qpn = QA, .opcode = -1, .round = -1, .action = INJ_ECN_CE, .nth = 2 };
	inj_add(peer_rules(L.peer[0]), &ce);
	post(0, &wr);
	run(&L, 1 * MS / 2);
	roce_parse_frame(&p, L.last_frame[0], L.last_len[0], L.last_len[0], 0);
	CHECK(roce_bth_tver(roce_pkt_hdr(&p, ROCE_H_BTH)) == 1 && roce_icrc_check(&p, NULL, NULL) == ROCE_ICRC_GOOD,
	      "TVer set with a valid ICRC");
	post(0, &wr);
	run(&L, 1 * MS / 2);
	roce_parse_frame(&p, L.last_frame[0], L.last_len[0], L.last_len[0], 0);
	CHECK(roce_ipv6_ecn(roce_pkt_hdr(&p, ROCE_H_IPV6)) == 3 && roce_icrc_check(&p, NULL, NULL) == ROCE_ICRC_GOOD,
	      "the 2nd packet is CE-marked, ICRC still good");
}

static void test_read_loss(void)
{
	setup(ROCE_T_RC, 512, 4);
	const struct peer_mr *m = peer_mr_add(L.peer[1], 4096, PEER_ACC_READ, 0);
	fill(m->buf, 4096, 2);
	/* Lose the 2nd READ response once: the requester re-reads from it. */
	add_rule(1, false, -1, 101, 0, 1, INJ_DROP);
	struct peer_wr r = { .wr_id = 1, .op = PEER_OP_READ, .len = 2000, .remote = m->addr, .rkey = m->rkey };
	post(0, &r);
	run(&L, 50 * MS);
	struct peer_wc wc;
	CHECK(poll_one(0, &wc) && wc.status == AP_WC_SUCCESS && !memcmp(wc.data, m->buf, 2000), "READ recovered");
	const struct peer_finding *f;
	size_t nf = peer_findings(L.peer[0], &f);
	CHECK(nf >= 1 && f[0].rule == ROCE_RULE_IBA_IMPLIED_NAK, "the gap was noticed as an implied NAK");
	CHECK(peer_findings(L.peer[1], &f) == 0 || f[0].rule == ROCE_RULE_IBA_DUP_READ, "B replayed from saved state");
}

static void test_uc_ud(void)
{
	setup(ROCE_T_UC, 256, 4);
	uint8_t data[600];
	fill(data, sizeof data, 4);
	add_rule(0, false, -1, 101, 0, 1, INJ_DROP);
	struct peer_wr wr = { .wr_id = 1, .op = PEER_OP_SEND, .data = data, .len = 600 };
	post(0, &wr);
	wr.wr_id = 2;
	post(0, &wr);
	run(&L, 20 * MS);
	struct peer_wc wc;
	CHECK(poll_one(0, &wc) && poll_one(0, &wc), "UC completes on send");
	CHECK(poll_one(1, &wc) && wc.byte_len == 600 && !poll_one(1, &wc), "UC: the broken message is dropped, the next delivered");
	CHECK(peer_stats(L.peer[1])->acks_sent == 0 && peer_stats(L.peer[1])->naks_sent == 0, "UC never ACKs");

	setup(ROCE_T_UD, 1024, 6);
	wr.len = 200;
	post(0, &wr);
	char err[100];
	struct peer_wr big = { .op = PEER_OP_SEND, .data = data, .len = 2000 };
	CHECK(peer_post(L.peer[0], QA, &big, 0, err, sizeof err) != 0, "UD over the PMTU is refused");
	run(&L, 10 * MS);
	CHECK(poll_one(1, &wc) && wc.byte_len == 200 && wc.src_qp == QA, "UD delivered with the source QP");
}

/* The 802.1Q TCI of side i's last frame; 0 when it is untagged. */
static uint16_t vlan_tci_of(int i)
{
	struct roce_pkt p;
	roce_parse_frame(&p, L.last_frame[i], L.last_len[i], L.last_len[i], 0);
	return p.n_vlan == 1 ? roce_pkt_vlan_tci(&p) : 0;
}

static void test_vlan(void)
{
	setup(ROCE_T_RC, 1024, 4);
	/* Both directions tagged, as with --vlan 198:3. */
	struct peer_qp_cfg a = { ROCE_T_RC, QA + 1, QB + 1, 10, 20, 1024, 0, 0, { 0 }, 2 * MS, 3, 2, 14 };
	struct peer_qp_cfg b = { ROCE_T_RC, QB + 1, QA + 1, 20, 10, 1024, 0, 0, { 0 }, 2 * MS, 3, 2, 14 };
	endpoint(&a.ep, 0, QB + 1, 4);
	endpoint(&b.ep, 1, QA + 1, 4);
	a.ep.n_vlan = b.ep.n_vlan = 1;
	a.ep.vlan_tci[0] = b.ep.vlan_tci[0] = roce_vlan_tci(3, 198);
	CHECK(peer_qp_add(L.peer[0], &a) == 0 && peer_qp_add(L.peer[1], &b) == 0, "tagged QPs");
	uint8_t data[40] = { 7 };
	struct peer_wr wr = { .wr_id = 5, .op = PEER_OP_SEND, .data = data, .len = sizeof data };
	char err[100];
	CHECK(peer_post(L.peer[0], QA + 1, &wr, L.now, err, sizeof err) == 0, "post");
	CHECK(vlan_tci_of(0) == roce_vlan_tci(3, 198), "an 802.1Q tag with PCP 3, VID 198");
	run(&L, 10 * MS);
	struct peer_wc wc;
	CHECK(peer_poll(L.peer[0], QA + 1, &wc) && wc.status == AP_WC_SUCCESS, "tagged exchange completes");
	CHECK(vlan_tci_of(1) == roce_vlan_tci(3, 198), "the ACK is tagged too");
}

static void test_rules_match(void)
{
	struct inj_set s = { .n = 0 };
	struct inj_rule r = { .rx = true, .qpn = 5, .opcode = 4, .has_psn = true, .psn = 9, .round = -1, .nth = 2 };
	inj_add(&s, &r);
	struct inj_pkt p = { true, 5, 4, 9, 0 };
	CHECK(inj_match(&s, &p) == NULL, "nth=2: the first match does not fire");
	CHECK(inj_match(&s, &p) != NULL, "the second does");
	CHECK(inj_match(&s, &p) == NULL, "the third does not");
	p.rx = false;
	CHECK(inj_match(&s, &p) == NULL, "direction matters");
	struct inj_rounds *rt = calloc(1, sizeof *rt);
	CHECK(inj_round_next(rt, 1, 2, 3) == 0 && inj_round_next(rt, 1, 2, 3) == 1 && inj_round_next(rt, 1, 3, 3) == 0,
	      "rounds count per PSN");
	free(rt);
}

/* A DUT that floods the responder with SENDs: the CQ keeps the newest
 * completions, and those pushed out take their data with them (ASan and
 * LSan watch the ownership); the received data of what is polled is right. */
static void test_flood_bounded(void)
{
	setup(ROCE_T_RC, 1024, 4);
	uint8_t data[4000];
	unsigned total = 0;
	size_t heap0 = mallinfo2().uordblks;
	for (unsigned round = 0; round < 20; round++) {
		for (unsigned i = 0; i < 50; i++, total++) {
			fill(data, sizeof data, total);
			struct peer_wr wr = { .wr_id = total, .op = PEER_OP_SEND, .data = data, .len = sizeof data };
			CHECK(post(0, &wr) == 0, "post send %u", total);
		}
		run(&L, L.now + 10 * MS);
		struct peer_wc wc;
		while (poll_one(0, &wc))
			;
	}
	size_t grown = mallinfo2().uordblks - heap0;
#ifndef __SANITIZE_ADDRESS__ /* ASan's allocator does not report through mallinfo2 */
	CHECK(grown < (PEER_CQ_DEPTH + 64) * sizeof data, "the heap grew by %zu bytes for %u messages of %zu", grown, total,
	      sizeof data);
#else
	(void)grown;
#endif
	struct peer_wc wc;
	unsigned n = 0;
	uint64_t first = 0;
	bool data_ok = true;
	while (poll_one(1, &wc)) {
		if (!n)
			first = wc.wr_id;
		fill(data, sizeof data, total - PEER_CQ_DEPTH + n);
		data_ok = data_ok && wc.byte_len == sizeof data && !memcmp(wc.data, data, sizeof data);
		n++;
	}
	CHECK(n == PEER_CQ_DEPTH, "the responder keeps its %u newest completions of %u, got %u", PEER_CQ_DEPTH, total, n);
	CHECK(data_ok, "the completions kept hold the newest messages' data (first kept: %llu)", (unsigned long long)first);
}

/* A duplicate-ACK storm far outside the window: the engine's findings stop
 * at PEER_MAX_FINDINGS, the last one counting the rest. */
static void test_findings_bounded(void)
{
	setup(ROCE_T_RC, 1024, 4);
	L.drop_all[0] = true; /* A's request stays outstanding */
	uint8_t data[8] = { 0 };
	struct peer_wr wr = { .wr_id = 1, .op = PEER_OP_SEND, .data = data, .len = sizeof data };
	CHECK(post(0, &wr) == 0, "post send");
	struct roce_desc d;
	roce_desc_init(&d, ROCE_OP_RC_ACK, 4);
	uint8_t frame[256];
	roce_desc_set(&d, ROCE_F_BTH_destqp, QA);
	roce_desc_set(&d, ROCE_F_BTH_psn, 900000);
	long len = roce_build_frame(&d, frame, sizeof frame);
	CHECK(len > 0, "ghost ACK built");
	unsigned storm = PEER_MAX_FINDINGS + 500;
	for (unsigned i = 0; i < storm; i++)
		peer_rx(L.peer[0], frame, (size_t)len, L.now);
	const struct peer_finding *f;
	size_t nf = peer_findings(L.peer[0], &f);
	uint64_t fd, td;
	peer_records_dropped(L.peer[0], &fd, &td);
	CHECK(nf == PEER_MAX_FINDINGS && fd == storm - PEER_MAX_FINDINGS, "findings kept %zu, counted %llu", nf,
	      (unsigned long long)fd);
	CHECK(nf && strstr(f[nf - 1].text, "more findings"), "the last finding counts the rest: %s", nf ? f[nf - 1].text : "");
}

int main(void)
{
	srand(1);
	test_rules_match();
	test_zero_length();
	test_send(4);
	test_send(6);
	test_write_read_atomics();
	test_loss_gbn();
	test_round_targeting();
	test_timeout_lost_ack();
	test_retry_exhausted();
	test_rnr();
	test_access_error();
	test_duplicate_and_reorder();
	test_corrupt_and_set();
	test_read_loss();
	test_uc_ud();
	test_vlan();
	test_flood_bounded();
	test_findings_bounded();
	for (int s = 0; s < 2; s++)
		peer_free(L.peer[s]);
	return test_result("test_peer");
}
