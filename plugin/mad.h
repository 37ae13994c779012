/* MADs on QP1: the MAD header and the CM messages, from libroce's mad.def. */
#ifndef ROCEV2_MAD_H
#define ROCEV2_MAD_H

#include "analysis.h"

void rocev2_register_mad(int proto);
/* Finds the ULP dissectors for CM private data (at hand-off time). */
void rocev2_handoff_mad(void);
static inline bool rocev2_is_mad(const struct roce_pkt *t)
{
	return roce_pkt_is_mad(t);
}
/* Decodes the MAD in tvb (the packet's payload); returns false when it is
 * not one this plugin knows, so that the caller shows the bytes. On the
 * first pass, REQ/REP pairs tell the per-QP analysis what they set up, and
 * record the connection for the ULP dissectors, which get the CM messages'
 * private data. */
bool rocev2_dissect_mad(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			const struct roce_pkt *t, struct rocev2_packet *rp);
/* The peer of QP dst_qpn at this packet's destination, as the CM exchange
 * recorded it in the InfiniBand conversations (what the built-in dissector
 * takes as the source "port"), or 0 when the capture does not say. */
uint32_t rocev2_ib_peer_qpn(packet_info *pinfo, uint32_t dst_qpn);
#endif
