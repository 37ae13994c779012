/* dc.c: the RD opcodes as RD or as NVIDIA's Dynamically Connected transport. */
#ifndef ROCEV2_DC_H
#define ROCEV2_DC_H

#include "rocev2.h"

/* Registers the "RD-range opcodes" preference (rocev2.rd_range) in m, the
 * DC fields and the expert info of a frame that looks like DC. */
void rocev2_register_dc(int proto, module_t *m);
/* The preference as libroce's parse flags: ROCE_PARSE_RD_AUTO (auto, the
 * default), ROCE_PARSE_RD_AS_DC (dc) or 0 (rd). */
unsigned rocev2_dc_parse_flags(void);
/* Under rt: a DC packet's DCT number and Connect flag; for a packet taken
 * as RD that looks like DC, the expert info naming the preference. t's
 * offsets are shifted by shift in tvb. On every pass (expert info). */
void rocev2_dc_tree(proto_tree *rt, packet_info *pinfo, tvbuff_t *tvb, const struct roce_pkt *t, int shift);

#endif
