/* RoCEv2 in Statistics > Flow Graph and `tshark -z flow,rocev2,...`. */
#ifndef ROCEV2_FLOWGRAPH_H
#define ROCEV2_FLOWGRAPH_H

#include "analysis.h"

/* Registers the "rocev2" flow type and the tap that feeds it. */
void rocev2_register_flow_graph(void);
/* Queues the packet's arrow (its PSN and operation as the label; the flow
 * analysis' notes, the rules its findings f[n] and the analysis' break,
 * and its summary line as the comment) when a Flow Graph listens; cheap
 * when none does. */
void rocev2_flow_graph_queue(packet_info *pinfo, const struct roce_pkt *t, const struct rocev2_packet *rp,
			     const char *summary, const struct roce_finding *f, size_t n);
#endif
