/* The rocev2 tap and its statistics tree (Statistics menu, tshark -z rocev2,tree). */
#ifndef ROCEV2_STATS_H
#define ROCEV2_STATS_H

#include "analysis.h"

#define ROCEV2_TAP_MAX_RULES 48

/* What the tap hands its listeners for each packet. */
struct rocev2_tap_record {
	bool has_bth;
	bool rocev1; /* a RoCE v1 frame (Ethertype 0x8915) */
	uint8_t opcode;
	uint32_t destqp;
	unsigned n_rules;
	const char *rules[ROCEV2_TAP_MAX_RULES]; /* rule IDs, one per finding of NOTE severity or above */
	/* A datagram to a multicast group: its sender's QP (DETH Source QP). */
	bool mcast;
	uint32_t mcast_src_qpn;
	/* The flow analysis' view, when the packet was analysed in a QP. */
	const struct roce_flow_dir *dir;
	struct roce_flow_sample sample;
	/* A response's service response time: the request it answers. */
	int srt_proc;           /* ROCEV2_SRT_*, or -1 */
	uint64_t srt_ns;
};

/* The Service Response Time procedures. */
enum {
	ROCEV2_SRT_READ, ROCEV2_SRT_ATOMIC, ROCEV2_SRT_SEND_WRITE, ROCEV2_SRT_FLUSH, ROCEV2_SRT_ATOMIC_WRITE,
	ROCEV2_SRT_COUNT
};

int rocev2_register_tap(void);
/* The rocev1 tap: the records of RoCE v1 frames alone (also on rocev2's). */
int rocev1_register_tap(void);
void rocev2_register_stats(void);
/* qpstats.c: Conversations and Endpoints (one row per QP pair), Service
 * Response Time, and the per-QP summary (-z rocev2,qp). */
void rocev2_register_qp_stats(int proto, int proto_v1);
const struct rocev2_tap_record *rocev2_tap_record(packet_info *pinfo, const struct roce_pkt *t,
						  const struct roce_finding *f, size_t n,
						  const struct rocev2_packet *rp);
#endif
