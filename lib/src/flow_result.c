/*
 * What the flow analysis writes into a packet's result: a finding raised,
 * and, once the packet is judged, the values its named fields carry, in
 * the generic form too (roce_flow_result.value).
 */
#include "flow_internal.h"

/* Raising a finding is the rare case: out of line (hints.h). */
ROCE_COLD void flow_add(struct roce_flow_result *r, enum roce_code c, uint32_t off, uint32_t len, uint64_t observed,
			uint64_t expected)
{
	if (r->n_findings < ROCE_FLOW_MAX_FINDINGS)
		r->findings[r->n_findings++] = (struct roce_finding){ c, off, len, observed, expected };
}

/* The values the result carries in named fields, and the flags its class
 * means, in the generic form too. */
void flow_publish(struct roce_flow_result *r)
{
	static const uint32_t class_flag[] = {
		[ROCE_FLOW_GAP] = ROCE_FLOW_F(PSN_GAP),
		[ROCE_FLOW_RETRANSMISSION] = ROCE_FLOW_F(RETRANSMISSION),
		[ROCE_FLOW_OUT_OF_ORDER] = ROCE_FLOW_F(OUT_OF_ORDER),
		[ROCE_FLOW_RESPONSE] = 0,
	};
	r->flags |= class_flag[r->cls];
	if (r->cls != ROCE_FLOW_RESPONSE && r->cls != ROCE_FLOW_FIRST && r->cls != ROCE_FLOW_UNTRACKED)
		flow_set(r, ROCE_FLOW_V_EXPECTED_PSN, r->expected_psn);
	if (r->src_qpn)
		flow_set(r, ROCE_FLOW_V_SRC_QPN, r->src_qpn);
	if (r->pmtu)
		flow_set(r, ROCE_FLOW_V_PMTU, r->pmtu);
	if (r->request_frame) {
		flow_set(r, ROCE_FLOW_V_REQUEST_FRAME, r->request_frame);
		flow_set(r, ROCE_FLOW_V_RESPONSE_TIME, r->response_ns);
	}
	if (r->read_index)
		flow_set(r, ROCE_FLOW_V_READ_INDEX, r->read_index);
	if (r->read_count)
		flow_set(r, ROCE_FLOW_V_READ_COUNT, r->read_count);
	if (r->retransmit_of)
		flow_set(r, ROCE_FLOW_V_RETRANSMIT_OF, r->retransmit_of);
	if (r->nak_frame) {
		flow_set(r, ROCE_FLOW_V_NAK_FRAME, r->nak_frame);
		flow_set(r, ROCE_FLOW_V_NAK_TO_RESEND, r->nak_to_resend_ns);
		flow_set(r, ROCE_FLOW_V_NEW_AFTER_NAK, r->new_after_nak);
	}
}
