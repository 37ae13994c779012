/*
 * Retransmissions against the first transmission of their PSN
 * (IBA9.7-RETX-SAME, flow_internal.h).
 *
 * A requester that retries (after a NAK PSN Sequence Error, a local ACK
 * timeout, an RNR NAK) resends the packets it sent before: from inside a
 * multi-packet message the resend at the retry's PSN is the Middle (or
 * Last) it was, with the same payload length and headers, not a First or
 * Only that starts the message again. Each direction remembers, per
 * request PSN in its window, the first transmission seen: its frame,
 * opcode, payload length and a digest of its extension headers. A
 * retransmission that differs is raised at that packet, naming the frame
 * of the first transmission and what it had.
 *
 * The capture point explains no difference: loss, reordering and
 * duplication before it do not change a packet, whose ICRC covers all of
 * this. When the first transmission was lost before the capture point, the
 * first copy seen is remembered instead, and the later ones are compared
 * with it. A resend that changed the newest PSN's opcode also gives the
 * message state new PSNs are judged against. The ring has the size of the direction's history of PSNs
 * (flow_window.c), so it holds the PSNs that history holds and grows with
 * it: bounded per direction, allocated only for a direction that sends
 * requests.
 */
#include <string.h>

#include "flow_internal.h"
#include "hints.h"
#include "roce/crc32.h"

#define LEN_KNOWN 1u  /* the packet parsed whole: its payload length is the wire's */
#define XHDR_KNOWN 2u /* its extension headers are all in the capture */

struct retx_slot {
	uint32_t psn_plus1; /* 0: empty */
	uint32_t frame;     /* the first transmission seen */
	uint32_t xhdr_sum;  /* CRC-32 of its extension headers (BTH to payload) */
	uint16_t payload_len;
	uint8_t opcode;
	uint8_t known;      /* LEN_KNOWN | XHDR_KNOWN */
};
_Static_assert(sizeof(struct retx_slot) == 16, "a retransmission slot takes 16 bytes");

/* The ring at the size of q's history, moving what it holds when the
 * history grew; NULL when out of memory. */
static struct retx_slot *ring(const struct roce_flow_env *env, struct direction *q)
{
	unsigned n = q->w.hist;
	if (q->retx && q->retx_size == n)
		return q->retx;
	struct retx_slot *to = flow_ring_new(env, q, KIND_RETX, n, sizeof *to);
	if (!to)
		return q->retx; /* the old one goes on serving, at its size */
	for (unsigned i = 0; q->retx && i < q->retx_size; i++) {
		const struct retx_slot *s = &q->retx[i];
		if (s->psn_plus1)
			to[(s->psn_plus1 - 1) % n] = *s;
	}
	if (q->retx)
		flow_ring_release(env, q->retx, q->retx_size * sizeof *to);
	q->retx = to;
	q->retx_size = n;
	return to;
}

static struct retx_slot describe(const struct roce_flow_input *in, uint32_t psn)
{
	const struct roce_pkt *p = in->pkt;
	struct retx_slot s = { .psn_plus1 = psn + 1, .frame = in->frame, .opcode = p->opcode };
	if (p->err == ROCE_OK) {
		s.known |= LEN_KNOWN;
		s.payload_len = (uint16_t)(p->payload_len > UINT16_MAX ? UINT16_MAX : p->payload_len);
	}
	uint32_t from = p->hdr_off[ROCE_H_BTH] + ROCE_BTH_LEN;
	if (p->err == ROCE_OK && p->payload_off >= from && p->payload_off <= p->caplen) {
		s.known |= XHDR_KNOWN;
		s.xhdr_sum = roce_crc32(0, p->buf + from, p->payload_off - from);
	}
	return s;
}

/* Raising a finding is the rare case: out of line (hints.h). */
static ROCE_COLD void changed(const struct retx_slot *first, const struct retx_slot *now,
			      const struct roce_flow_input *in, struct roce_flow_result *r)
{
	const struct roce_pkt *p = in->pkt;
	uint32_t bth = p->hdr_off[ROCE_H_BTH], xhdrs = bth + ROCE_BTH_LEN;
	struct roce_finding f[2];
	unsigned n = 0;
	if (now->opcode != first->opcode)
		f[n++] = (struct roce_finding){ ROCE_F_RETX_OPCODE, bth, 1, first->frame, first->opcode };
	if (first->known & now->known & LEN_KNOWN && now->payload_len != first->payload_len)
		f[n++] = (struct roce_finding){ ROCE_F_RETX_LEN, p->payload_off, p->payload_len, first->frame,
						first->payload_len };
	/* Another opcode has other headers anyway: compared under the same one. */
	if (!n && first->known & now->known & XHDR_KNOWN && now->xhdr_sum != first->xhdr_sum)
		f[n++] = (struct roce_finding){ ROCE_F_RETX_XHDR, xhdrs, p->payload_off - xhdrs, first->frame, 0 };
	for (unsigned i = 0; i < n && r->n_findings < ROCE_FLOW_MAX_FINDINGS; i++)
		r->findings[r->n_findings++] = f[i];
}

/* The requester goes on from what it resent, not from what it first sent:
 * a resend of the newest PSN with another opcode gives the message state
 * that new PSNs are judged against (flow.c, check_message_order), so that
 * the change is counted once, at the resend, and not again as a message
 * out of order at the first new PSN (IBA9.7-OPSEQ). */
static void follow_resend(struct direction *q, const struct roce_pkt *p)
{
	enum roce_position pos = p->op->position;
	bool open = (p->op->kind == ROCE_K_SEND || p->op->kind == ROCE_K_WRITE) &&
		    (pos == ROCE_POS_FIRST || pos == ROCE_POS_MIDDLE);
	q->msg = open ? MSG_IN : MSG_OUT;
}

void flow_retx_request(const struct roce_flow_env *env, struct direction *q, const struct roce_flow_input *in,
		       uint32_t psn, struct roce_flow_result *r)
{
	struct retx_slot *slots = ring(env, q);
	if (!slots)
		return;
	struct retx_slot *s = &slots[psn % q->retx_size];
	struct retx_slot now = describe(in, psn);
	if (s->psn_plus1 != psn + 1 || r->cls != ROCE_FLOW_RETRANSMISSION) {
		*s = now; /* a PSN new to the window: its first transmission */
		return;
	}
	/* A packet of another transport to the same QP (a UC SEND to an RC
	 * QP) resends nothing of this one: its receiver drops it
	 * (IBA9.6-QPTYPE). */
	if (roce_opcode(now.opcode)->transport != roce_opcode(s->opcode)->transport)
		return;
	if (now.opcode != s->opcode || now.payload_len != s->payload_len || now.xhdr_sum != s->xhdr_sum)
		changed(s, &now, in, r);
	if (now.opcode != s->opcode && psn == ((q->next_psn - 1) & ROCE_PSN_MASK) && q->msg != MSG_UNKNOWN)
		follow_resend(q, in->pkt);
}
