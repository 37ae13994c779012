/*
 * The peer engine's packets in and out. Every tester packet leaves
 * through emit() and every DUT packet enters through peer_rx, so that
 * the injection rules (drop, duplicate, delay, reorder, rewrite), round
 * counting and response timing apply to all of them in one place.
 */
#include "peer_engine.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

/* ---- Sending ---- */

static void send_now(struct peer *p, const uint8_t *frame, size_t len, const struct peer_tx_info *info)
{
	if (p->io.send(p->io.ctx, frame, len, info) == 0)
		p->stats.tx++;
}

static void process_rx(struct peer *p, const uint8_t *frame, size_t len, uint64_t ts, bool from_hold);

static struct held *hold(struct peer *p, bool rx, uint32_t qpn, const uint8_t *frame, size_t len,
			 const struct peer_tx_info *info)
{
	for (unsigned i = 0; i < PEER_HELD_MAX; i++) {
		struct held *h = &p->held[i];
		if (h->used)
			continue;
		memset(h, 0, offsetof(struct held, frame));
		h->used = true;
		h->rx = rx;
		h->qpn = qpn;
		h->len = len;
		memcpy(h->frame, frame, len);
		if (info) {
			h->info = *info;
			text_copy(h->why, sizeof h->why, info->why);
			text_copy(h->rule, sizeof h->rule, info->rule);
			h->info.why = h->why;
			h->info.rule = h->rule;
		}
		return h;
	}
	return NULL;
}

void peer_release_held(struct peer *p, struct held *h)
{
	h->used = false;
	if (h->rx)
		process_rx(p, h->frame, h->len, p->now, true);
	else
		send_now(p, h->frame, h->len, &h->info);
}

/* A packet went by in this direction: held packets waiting to be
 * overtaken count it. */
static void reorder_tick(struct peer *p, bool rx)
{
	if (!p->n_reorder_held[rx])
		return; /* the common case: nothing held back to reorder */
	for (unsigned i = 0; i < PEER_HELD_MAX; i++) {
		struct held *h = &p->held[i];
		if (h->used && h->rx == rx && !h->release_ns && h->remaining && --h->remaining == 0) {
			p->n_reorder_held[rx]--;
			peer_release_held(p, h);
		}
	}
}

static void note(struct peer *p, const struct peer_tx_info *info, const char *what)
{
	if (p->io.note)
		p->io.note(p->io.ctx, info, what);
}

/* Every tester packet goes out through here: round counting, tx rules,
 * timing. */
static void emit(struct peer *p, struct qp *q, uint8_t *frame, size_t len, const char *why)
{
	struct roce_pkt pk;
	roce_parse_frame(&pk, frame, len, len, ROCE_PARSE_ANY_PORT | ROCE_PARSE_ROCEV1);
	const uint8_t *bth = roce_pkt_hdr(&pk, ROCE_H_BTH);
	struct peer_tx_info info = { q->cfg.qpn, bth ? roce_bth_psn(bth) : 0, bth ? (uint8_t)roce_bth_opcode(bth) : 0, 0, why, NULL };
	info.round = inj_round_next(&p->tx_rounds, info.qpn, info.psn, info.opcode);
	struct inj_pkt ip = { false, info.qpn, info.opcode, info.psn, info.round };
	struct inj_rule *r = inj_match(&p->rules, &ip);
	if (bth && (roce_opcode(info.opcode)->flags & ROCE_OPF_REQUEST)) {
		q->tx_time[info.psn % SLOTS] = p->now;
		q->tx_psn[info.psn % SLOTS] = info.psn;
		q->tx_seen[info.psn % SLOTS] = true;
	}
	if (!r) {
		send_now(p, frame, len, &info);
		reorder_tick(p, false);
		return;
	}
	info.rule = r->text;
	char err[128];
	switch (r->action) {
	case INJ_DROP:
		p->stats.dropped_by_rule++;
		note(p, &info, "dropped by rule");
		return;
	case INJ_DUPLICATE:
		send_now(p, frame, len, &info);
		send_now(p, frame, len, &info);
		reorder_tick(p, false);
		return;
	case INJ_DELAY: {
		struct held *h = hold(p, false, q->cfg.qpn, frame, len, &info);
		if (h)
			h->release_ns = p->now + (r->delay_ns ? r->delay_ns : 1);
		note(p, &info, "delayed by rule");
		return;
	}
	case INJ_REORDER: {
		struct held *h = hold(p, false, q->cfg.qpn, frame, len, &info);
		if (h && (h->remaining = r->reorder_n))
			p->n_reorder_held[0]++;
		note(p, &info, "held back by rule");
		return;
	}
	case INJ_CORRUPT_ICRC:
	case INJ_ECN_CE:
	case INJ_SET: {
		long n = inj_modify(r, frame, len, PEER_FRAME_MAX, err, sizeof err);
		if (n < 0) {
			note(p, &info, err);
			n = (long)len;
		}
		send_now(p, frame, (size_t)n, &info);
		reorder_tick(p, false);
		return;
	}
	}
}

int peer_inject(struct peer *p, uint32_t qpn, const uint8_t *frame, size_t len, uint64_t now_ns, const char *why)
{
	QP_OR_RETURN(-1);
	if (len > PEER_FRAME_MAX)
		return -1;
	p->now = now_ns;
	uint8_t *copy = p->scratch;
	memcpy(copy, frame, len);
	uint64_t before = p->stats.tx;
	emit(p, q, copy, len, why);
	(void)before;
	return 0;
}

void peer_build_send(struct peer *p, struct qp *q, struct roce_desc *d, const char *why)
{
	long n = roce_build_frame(d, p->scratch, sizeof p->scratch);
	if (n < 0) {
		struct peer_tx_info info = { q->cfg.qpn, roce_bth_psn(d->bth), (uint8_t)roce_bth_opcode(d->bth), 0, why, NULL };
		note(p, &info, "could not build the packet");
		return;
	}
	emit(p, q, p->scratch, (size_t)n, why);
}

void peer_send_aeth(struct peer *p, struct qp *q, uint32_t psn, uint8_t syndrome, const char *why)
{
	struct roce_desc d;
	roce_endpoint_desc(&q->cfg.ep, &d, (uint8_t)roce_opcode_find(q->cfg.type, ROCE_K_ACK, ROCE_POS_ONLY, 0, 0), psn);
	uint8_t *aeth = roce_desc_hdr(&d, ROCE_H_AETH);
	roce_aeth_set_syndrome(aeth, syndrome);
	roce_aeth_set_msn(aeth, q->msn);
	peer_build_send(p, q, &d, why);
	if (roce_syndrome_type(syndrome) == ROCE_SYN_ACK)
		p->stats.acks_sent++;
	else if (roce_syndrome_type(syndrome) == ROCE_SYN_RNR_NAK)
		p->stats.rnr_naks_sent++;
	else
		p->stats.naks_sent++;
}

/* ---- Receiving ---- */

/* The response time of a request, or the time since a retransmitted
 * request was first seen. */
static void timing(struct peer *p, struct qp *q, uint32_t psn, uint8_t opcode, uint64_t ts, uint64_t delta,
		   const char *what)
{
	if (p->n_timings == PEER_MAX_TIMINGS) {
		p->timings_dropped++;
		return;
	}
	if (p->n_timings == p->cap_timings) {
		p->cap_timings = p->cap_timings ? 2 * p->cap_timings : 256;
		struct peer_timing *t = realloc(p->timings, p->cap_timings * sizeof *t);
		if (!t)
			abort();
		p->timings = t;
	}
	p->timings[p->n_timings++] = (struct peer_timing){ q->cfg.qpn, psn, opcode, ts, delta, what };
}


static void observe(struct peer *p, struct qp *q, const struct roce_pkt *pk, uint64_t ts)
{
	const uint8_t *bth = roce_pkt_hdr(pk, ROCE_H_BTH);
	uint32_t psn = roce_bth_psn(bth);
	unsigned slot = psn % SLOTS;
	if (pk->op->flags & ROCE_OPF_RESPONSE) {
		if (q->tx_seen[slot] && q->tx_psn[slot] == psn && ts >= q->tx_time[slot])
			timing(p, q, psn, pk->opcode, ts, ts - q->tx_time[slot], "response");
	} else if (pk->op->flags & ROCE_OPF_REQUEST) {
		if (q->rx_seen[slot] && q->rx_psn[slot] == psn && ts >= q->rx_time[slot])
			timing(p, q, psn, pk->opcode, ts, ts - q->rx_time[slot], "retransmission");
		q->rx_seen[slot] = true;
		q->rx_psn[slot] = psn;
		q->rx_time[slot] = ts;
	} else {
		timing(p, q, psn, pk->opcode, ts, 0, "other");
	}
	if (q->cfg.type != ROCE_T_UD && !pk->rocev1) { /* RoCE v1 has no UDP header */
		uint16_t sport = (uint16_t)roce_udp_sport(roce_pkt_hdr(pk, ROCE_H_UDP));
		if (q->sport_known && sport != q->sport && pk->opcode != ROCE_OP_CNP)
			peer_finding(p, q, ROCE_RULE_A17_SPORT, psn, false,
				"UDP source port changed from %u to %u within the connection", q->sport, sport);
		if (pk->opcode != ROCE_OP_CNP) {
			q->sport_known = true;
			q->sport = sport;
		}
	}
}

void peer_rx_qp(struct peer *p, struct qp *q, const struct roce_pkt *pk, uint64_t ts, bool from_hold)
{
	if (!from_hold)
		observe(p, q, pk, ts);
	if (!q->auto_on || pk->opcode == ROCE_OP_CNP)
		return;
	if (pk->op->transport != q->cfg.type)
		return; /* a conforming receiver drops a transport mismatch */
	if (pk->op->flags & ROCE_OPF_RESPONSE) {
		if (!q->error)
			peer_handle_response(p, q, pk);
		return;
	}
	if (q->error)
		return;
	if (q->cfg.type == ROCE_T_UD)
		peer_handle_ud(p, q, pk);
	else if (q->cfg.type == ROCE_T_UC)
		peer_handle_uc(p, q, pk);
	else
		peer_handle_rc_request(p, q, pk);
}

/* The tester QPs a DUT packet is for: its DestQP's, or every one attached
 * to the group a datagram to DestQP 0xFFFFFF is sent to. */
static unsigned rx_qps(struct peer *p, const struct roce_pkt *pk, struct qp **out)
{
	uint32_t qpn = roce_bth_destqp(roce_pkt_hdr(pk, ROCE_H_BTH));
	if (qpn == ROCE_MCAST_QPN)
		return peer_mcast_members(p, pk, out, PEER_MAX_QPS);
	out[0] = peer_find_qp(p, qpn);
	return out[0] != NULL;
}

static void process_rx(struct peer *p, const uint8_t *frame, size_t len, uint64_t ts, bool from_hold)
{
	struct roce_pkt pk;
	if (roce_parse_frame(&pk, frame, len, len, ROCE_PARSE_ROCEV1) != ROCE_OK || !pk.complete)
		return;
	struct qp *qs[PEER_MAX_QPS];
	unsigned n = rx_qps(p, &pk, qs);
	/* Like any conforming receiver, the engine drops what fails the ICRC. */
	if (!n || roce_icrc_check(&pk, NULL, NULL) != ROCE_ICRC_GOOD)
		return;
	for (unsigned i = 0; i < n; i++)
		peer_rx_qp(p, qs[i], &pk, ts, from_hold);
}

uint32_t peer_rx(struct peer *p, const uint8_t *frame, size_t len, uint64_t ts_ns)
{
	if (ts_ns > p->now)
		p->now = ts_ns;
	struct roce_pkt pk;
	if (roce_parse_frame(&pk, frame, len, len, ROCE_PARSE_ROCEV1) != ROCE_OK || !pk.complete)
		return 0;
	const uint8_t *bth = roce_pkt_hdr(&pk, ROCE_H_BTH);
	/* A datagram to a group counts as its first attached QP's (the
	 * injection rules match it there, the caller files it there). */
	struct qp *qs[PEER_MAX_QPS];
	if (!rx_qps(p, &pk, qs))
		return 0;
	uint32_t qpn = qs[0]->cfg.qpn;
	p->stats.rx++;
	struct inj_pkt ip = { true, qpn, pk.opcode, roce_bth_psn(bth), 0 };
	ip.round = inj_round_next(&p->rx_rounds, qpn, ip.psn, ip.opcode);
	struct inj_rule *r = inj_match(&p->rules, &ip);
	if (!r) {
		process_rx(p, frame, len, ts_ns, false);
		reorder_tick(p, true);
		return qpn;
	}
	struct peer_tx_info info = { qpn, ip.psn, ip.opcode, ip.round, "DUT packet", r->text };
	char err[128];
	switch (r->action) {
	case INJ_DROP:
		p->stats.dropped_by_rule++;
		note(p, &info, "ignored by rule (as if lost)");
		break;
	case INJ_DUPLICATE:
		process_rx(p, frame, len, ts_ns, false);
		process_rx(p, frame, len, ts_ns, true);
		reorder_tick(p, true);
		note(p, &info, "processed twice by rule");
		break;
	case INJ_DELAY: {
		struct held *h = hold(p, true, qpn, frame, len, &info);
		if (h)
			h->release_ns = ts_ns + (r->delay_ns ? r->delay_ns : 1);
		note(p, &info, "processing delayed by rule");
		break;
	}
	case INJ_REORDER: {
		struct held *h = hold(p, true, qpn, frame, len, &info);
		if (h && (h->remaining = r->reorder_n))
			p->n_reorder_held[1]++;
		note(p, &info, "processing held back by rule");
		break;
	}
	default: {
		uint8_t copy[PEER_FRAME_MAX];
		memcpy(copy, frame, len);
		long n = inj_modify(r, copy, len, sizeof copy, err, sizeof err);
		if (n < 0)
			note(p, &info, err);
		else
			note(p, &info, "modified by rule before processing");
		process_rx(p, copy, n < 0 ? len : (size_t)n, ts_ns, false);
		reorder_tick(p, true);
		break;
	}
	}
	return qpn;
}
