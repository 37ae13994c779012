/* The rocev2 tap and its statistics tree (Statistics menu, tshark -z rocev2,tree). */
#ifndef ROCEV2_STATS_H
#define ROCEV2_STATS_H

#include "analysis.h"

#define ROCEV2_TAP_MAX_RULES 48

/* What the tap hands its listeners for each packet. */
struct rocev2_tap_record {
	bool has_bth;
	uint8_t opcode;
	uint32_t destqp;
	unsigned n_rules;
	const char *rules[ROCEV2_TAP_MAX_RULES]; /* rule IDs, one per finding of NOTE severity or above */
};

int rocev2_register_tap(void);
void rocev2_register_stats(void);
const struct rocev2_tap_record *rocev2_tap_record(packet_info *pinfo, const struct roce_pkt *t,
						  const struct roce_finding *f, size_t n,
						  const struct rocev2_packet *rp);
#endif
