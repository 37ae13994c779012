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
#endif
