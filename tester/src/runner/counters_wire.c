/* What the tester saw on the wire in a case, for the DUT's counters
 * (counter_wire_tally, see counters.h). */
#include "counters.h"

#include <stdlib.h>
#include <string.h>

#include "roce/aeth.h"
#include "roce/icrc.h"
#include "roce/mcast.h"
#include "roce/packet.h"
#include "roce/transport.h"

/* Per QP of the case: what the DUT's requester last sent and whether the
 * tester RNR-NAKed it since; the newest PSN its responder answered. */
struct wire_qp {
	uint32_t tester_qpn;
	bool have_req, rnr_since;
	uint32_t last_req_psn;
	bool have_answer;
	uint32_t answered_psn;
};

static struct wire_qp *qp_of(struct wire_qp *qps, unsigned n, uint32_t tester_qpn)
{
	for (unsigned i = 0; i < n; i++)
		if (qps[i].tester_qpn == tester_qpn)
			return &qps[i];
	return NULL;
}

static const uint8_t *l3_of(const struct roce_pkt *pk)
{
	return roce_pkt_hdr(pk, pk->ip_version == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4);
}

/* A bad ICRC and nothing else wrong, to the DUT's own address: a packet
 * the DUT must drop for its ICRC alone (CA17-24). */
static bool bad_icrc_only(const struct roce_pkt *pk, const uint8_t *dut_ip4, const uint8_t *dut_ip6)
{
	if (pk->err != ROCE_OK || !pk->complete || pk->rocev1)
		return false;
	const uint8_t *l3 = l3_of(pk);
	const uint8_t *dut = pk->ip_version == 6 ? dut_ip6 : dut_ip4;
	if (!l3 || !dut || memcmp(pk->ip_version == 6 ? roce_ipv6_dst(l3) : roce_ipv4_dst(l3), dut,
				  pk->ip_version == 6 ? 16 : 4))
		return false;
	struct roce_finding f[16];
	struct roce_check_opts co = { ROCE_CHK_ICRC, 0 };
	size_t nf = roce_check(pk, &co, f, 16);
	if (nf > 16)
		return false;
	for (size_t i = 0; i < nf; i++) {
		const struct roce_code_info *ci = roce_code_info(f[i].code);
		if (f[i].code != ROCE_C_ICRC && ci && ci->severity == ROCE_SEV_ERROR)
			return false;
	}
	return true;
}

static void tally_tx(struct counter_wire *w, const struct roce_pkt *pk, const uint8_t *dut_ip4, const uint8_t *dut_ip6)
{
	if (roce_icrc_check(pk, NULL, NULL) == ROCE_ICRC_BAD) {
		w->bad_icrc_to_dut++;
		if (bad_icrc_only(pk, dut_ip4, dut_ip6))
			w->bad_icrc_only++;
		return; /* nothing else of it counts at the DUT */
	}
	const uint8_t *l3 = pk->rocev1 ? NULL : l3_of(pk);
	if (l3 && (pk->ip_version == 6 ? roce_ipv6_ecn(l3) : roce_ipv4_ecn(l3)) == 3)
		w->ce_to_dut++;
	if (pk->op->kind == ROCE_K_CNP) {
		w->cnps_to_dut++;
	} else if (pk->op->kind == ROCE_K_ACK && roce_pkt_has(pk, ROCE_H_AETH)) {
		const uint8_t *aeth = roce_pkt_hdr(pk, ROCE_H_AETH);
		unsigned type = roce_aeth_type(aeth);
		if (type == ROCE_SYN_RNR_NAK)
			w->rnr_naks_to_dut++;
		else if (type == ROCE_SYN_NAK && roce_aeth_value(aeth) == ROCE_NAK_PSN_SEQ_ERR)
			w->seq_naks_to_dut++;
	}
}

/* A response that answers, again, a request the DUT answered before: a
 * duplicate it recognised. A READ's replay counts once, by its first
 * packet. */
static bool repeats_answer(struct wire_qp *q, const struct roce_pkt *pk, uint32_t psn)
{
	enum roce_op_kind k = pk->op->kind;
	bool answer = k == ROCE_K_ATOMIC_ACK ||
		      (k == ROCE_K_READ_RESP && (pk->op->position == ROCE_POS_FIRST || pk->op->position == ROCE_POS_ONLY)) ||
		      (k == ROCE_K_ACK && roce_pkt_has(pk, ROCE_H_AETH) &&
		       roce_aeth_type(roce_pkt_hdr(pk, ROCE_H_AETH)) == ROCE_SYN_ACK);
	if (k == ROCE_K_READ_RESP || answer) {
		bool again = answer && q->have_answer && roce_psn_diff(psn, q->answered_psn) <= 0;
		if (!q->have_answer || roce_psn_diff(psn, q->answered_psn) > 0) {
			q->answered_psn = psn;
			q->have_answer = true;
		}
		return again;
	}
	return false;
}

static void tally_rx(struct counter_wire *w, struct wire_qp *q, const struct roce_pkt *pk)
{
	w->from_dut++;
	uint32_t psn = roce_bth_psn(roce_pkt_hdr(pk, ROCE_H_BTH));
	if (pk->op->kind == ROCE_K_CNP) {
		w->cnps_from_dut++;
		return;
	}
	if (pk->op->kind == ROCE_K_ACK && roce_pkt_has(pk, ROCE_H_AETH)) {
		const uint8_t *aeth = roce_pkt_hdr(pk, ROCE_H_AETH);
		unsigned type = roce_aeth_type(aeth);
		if (type == ROCE_SYN_RNR_NAK)
			w->rnr_naks_from_dut++;
		else if (type == ROCE_SYN_NAK && roce_aeth_value(aeth) == ROCE_NAK_PSN_SEQ_ERR)
			w->seq_naks_from_dut++;
	}
	if (pk->op->flags & ROCE_OPF_REQUEST) {
		/* An RC requester back to a PSN sent before: a go-back-N
		 * restart, unless an RNR NAK asked for the resend (counted
		 * apart by some devices). CM MADs (UD, QP1) have PSNs of their
		 * own. */
		if (pk->op->transport != ROCE_T_RC)
			return;
		if (q->have_req && roce_psn_diff(psn, q->last_req_psn) <= 0 && !q->rnr_since)
			w->rewinds++;
		q->have_req = true;
		q->last_req_psn = psn;
		q->rnr_since = false;
		return;
	}
	if (repeats_answer(q, pk, psn))
		w->repeated_answers++;
}

/* Time order: the runner records the tester's answer to a frame before
 * the frame itself (the engine answers as it takes the frame in). */
struct when {
	uint64_t ts_ns;
	size_t i;
};

static int by_time(const void *a, const void *b)
{
	const struct when *x = a, *y = b;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

void counter_wire_tally(const struct case_pkt *pkts, size_t n, const uint32_t *tester_qpns, unsigned n_qps,
			const uint8_t *dut_ip4, const uint8_t *dut_ip6, uint64_t until_ns, bool complete,
			struct counter_wire *w)
{
	memset(w, 0, sizeof *w);
	w->complete = complete;
	struct wire_qp *qps = g_new0(struct wire_qp, n_qps ? n_qps : 1);
	for (unsigned i = 0; i < n_qps; i++)
		qps[i].tester_qpn = tester_qpns[i];
	struct when *order = g_new(struct when, n ? n : 1);
	for (size_t i = 0; i < n; i++)
		order[i] = (struct when){ pkts[i].ts_ns, i };
	qsort(order, n, sizeof *order, by_time);
	for (size_t oi = 0; oi < n; oi++) {
		const struct case_pkt *p = &pkts[order[oi].i];
		struct roce_pkt pk;
		roce_parse_frame(&pk, p->data, p->len, p->len, ROCE_PARSE_ROCEV1);
		/* Every frame the tester sends is meant for the DUT as RoCE,
		 * malformed ones included (a device may count those it
		 * drops). */
		if (p->tx)
			w->to_dut++;
		if (!pk.op || !roce_pkt_has(&pk, ROCE_H_BTH))
			continue; /* not RoCE: ARP, Neighbour Discovery, a frame the parser cannot take */
		struct wire_qp *q = p->qpn ? qp_of(qps, n_qps, p->qpn) : NULL;
		struct roce_mcast_group g;
		if (!p->tx && p->ts_ns < until_ns && roce_pkt_mcast_group(&pk, &g))
			w->to_groups_from_dut++;
		if (p->tx) {
			tally_tx(w, &pk, dut_ip4, dut_ip6);
			/* The tester's RNR NAK to the DUT's requester. */
			if (q && pk.op->kind == ROCE_K_ACK && roce_pkt_has(&pk, ROCE_H_AETH) &&
			    roce_aeth_type(roce_pkt_hdr(&pk, ROCE_H_AETH)) == ROCE_SYN_RNR_NAK)
				q->rnr_since = true;
		} else if (q && p->ts_ns < until_ns) {
			tally_rx(w, q, &pk);
		}
	}
	g_free(qps);
	g_free(order);
}
