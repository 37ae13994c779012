/*
 * The runner's wire: the peer engine's callbacks, and the pump that
 * keeps frames moving (received, recorded, answered) while the runner
 * waits for a deadline or for the agent.
 */
#include "runner_ctx.h"

/* ---- The wire: engine callbacks and the pump ---- */

int on_engine_send(void *ctx, const uint8_t *frame, size_t len, const struct peer_tx_info *info)
{
	struct runner *r = ctx;
	char err[256];
	/* Stamped before the send (on a veth the frame reaches the DUT, and
	 * may be answered, before the send call returns), or by the adapter. */
	uint64_t ts = rawio_now();
	enum rawio_clock clock;
	int rc = rawio_send_ts(&r->io, frame, len, &ts, &clock, err, sizeof err);
	/* The liveness probe's packets are none of the case's (runner_alive.c). */
	if (r->rc && !(r->rc->probe_qpn && info->qpn == r->rc->probe_qpn)) {
		char note[512]; /* the engine's word, a rule's label (160) and a send error (256) */
		outf(note, sizeof note, "%s%s%s%s", info->why ? info->why : "", info->round ? " (round " : "",
		     "", "");
		if (info->round)
			appendf(note, sizeof note, "%u)", info->round);
		if (info->rule)
			appendf(note, sizeof note, " [rule: %s]", info->rule);
		if (rc != 0)
			appendf(note, sizeof note, " [send failed: %s]", err);
		record_pkt(r->rc, frame, len, ts, true, info->qpn, note);
		struct case_qp *q = qp_by_tester_qpn(r->rc, info->qpn);
		const struct roce_opcode_info *oi = roce_opcode(info->opcode);
		if (q && oi && (oi->flags & ROCE_OPF_REQUEST))
			q->tx_requests++;
	}
	return rc;
}

void on_engine_note(void *ctx, const struct peer_tx_info *info, const char *what)
{
	struct runner *r = ctx;
	if (r->rc)
		event(r->rc, "QP 0x%06x PSN %u opcode 0x%02x (%s): %s%s%s", info->qpn, info->psn, info->opcode,
		      info->why ? info->why : "", what, info->rule ? " by rule: " : "", info->rule ? info->rule : "");
}

static void on_frame(void *ctx, const uint8_t *data, size_t caplen, size_t len, uint64_t ts)
{
	struct runner *r = ctx;
	(void)len;
	uint32_t qpn = peer_rx(r->peer, data, caplen, ts);
	if (!r->rc)
		return;
	struct run_ctx *x = r->rc;
	/* The liveness probe's answers: the DUT is there; not the case's. */
	if (x->probe_qpn && qpn == x->probe_qpn) {
		x->probe_answers++;
		return;
	}
	if (!x->rx_frames++)
		x->rx_first_ns = ts;
	x->rx_last_ns = ts;
	x->rx_bytes += caplen;
	struct case_qp *cmq = qpn ? NULL : cm_qp_of(x, data, caplen);
	if (cmq)
		qpn = cmq->tester_qpn;
	struct case_qp *q = qpn ? qp_by_tester_qpn(x, qpn) : NULL;
	if (!q && is_late_frame(x, data, caplen) && x->late_frames++ >= MAX_LATE_RECORDED) {
		x->rx_unrecorded++;
		x->rx_unrecorded_bytes += caplen;
		return;
	}
	/* IGMP and MLD: the DUT's host, not its RoCE traffic. Kept only in
	 * a case with groups, for expect join; elsewhere (the host's own
	 * joins as its addresses come up) they are no packet of the case. */
	bool membership = mcast_membership_frame(data, caplen);
	if (membership && !x->c->n_groups)
		return;
	/* A datagram to a group of the case is its sender's traffic (the
	 * DUT QP that sent it), whichever tester QPs take it. */
	int group = mcast_group_index(x, data, caplen);
	struct case_qp *sender = group >= 0 ? mcast_sender(x, data, caplen) : NULL;
	if (sender)
		q = sender;
	long idx = record_pkt(x, data, caplen, ts, false, qpn, NULL);
	if (idx >= 0 && group >= 0)
		x->pkts[idx].group = (unsigned)group + 1;
	if (membership)
		return; /* recorded for expect join, never judged */
	if (q) {
		if (!cmq) /* a CM MAD on QP1 is not the QP's own traffic */
			account_dut_packet(q, data, caplen);
		if (idx >= 0)
			check_dut_packet(x, idx, q);
	} else if (idx >= 0 && !is_neighbour_frame(data, caplen) && from_dut(r, data, caplen)) {
		check_stray_packet(x, idx);
	}
}

/* Moves the wire until deadline, or until fd is readable (fd >= 0), or
 * until frames arrived (stop_on_rx). */
void pump_until(struct runner *r, int fd, uint64_t deadline, bool stop_on_rx)
{
	char err[256];
	for (;;) {
		uint64_t now = rawio_now();
		peer_advance(r->peer, now);
		if (now >= deadline || interrupted(r))
			return;
		uint64_t until = deadline;
		uint64_t t = peer_next_deadline(r->peer);
		if (t < until)
			until = t;
		if (until <= now)
			continue;
		struct pollfd pf[2] = { { r->io.fd, POLLIN, 0 }, { fd, POLLIN, 0 } };
		/* Under a millisecond (paced injection, short timers) poll
		 * without sleeping: poll's timeout counts whole ms. */
		uint64_t ms = until - now < NS_PER_MS ? 0 : (until - now) / NS_PER_MS;
		if (ms > 100)
			ms = 100;
		int n = poll(pf, fd >= 0 ? 2 : 1, (int)ms);
		if (n < 0 && errno != EINTR)
			return;
		if (n > 0 && (pf[0].revents & POLLIN) && rawio_wait(&r->io, 0, on_frame, r, err, sizeof err) > 0 &&
		    stop_on_rx)
			return;
		if (fd >= 0 && pf[1].revents)
			return;
	}
}

void agent_pump(void *ctx, int fd, uint64_t deadline)
{
	pump_until(ctx, fd, deadline, false);
}
