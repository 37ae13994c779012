/*
 * Event injection: rules that act on the tester's own packets (tx) or on
 * the DUT's packets before the tester's engine sees them (rx). A rule
 * matches on QP, PSN, opcode, retransmission round and occurrence, and
 * drops, duplicates, delays, reorders, corrupts the ICRC of, CE-marks, or
 * rewrites a header field of the packets it matches.
 */
#ifndef ROCE_TESTER_INJECT_H
#define ROCE_TESTER_INJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce/roce.h"

enum inj_action {
	INJ_DROP,
	INJ_DUPLICATE,
	INJ_DELAY,
	INJ_REORDER,
	INJ_CORRUPT_ICRC,
	INJ_ECN_CE,
	INJ_SET,
};

struct inj_rule {
	bool rx;           /* DUT's packets (rx) or the tester's (tx) */
	bool any_qp;
	uint32_t qpn;      /* the tester's QPN the packet belongs to */
	int opcode;        /* -1: any */
	bool has_psn;
	uint32_t psn;
	int round;         /* -1: any; 0 first transmission, 1 first retransmission ... */
	unsigned nth;      /* 0: every match; n: only the n-th match */
	unsigned count;    /* 0: unlimited; n: fire at most n times */
	enum inj_action action;
	uint64_t delay_ns;
	unsigned reorder_n;
	enum roce_field field; /* INJ_SET */
	uint64_t value;
	/* The rule as written, for packet notes ("line 12: on rx q ...");
	 * a label, cut visibly past this length: the step's record in the
	 * results holds the whole statement. */
	char text[160];
	/* State. */
	unsigned matched, fired;
};

#define INJ_MAX_RULES 64

struct inj_set {
	struct inj_rule rules[INJ_MAX_RULES];
	unsigned n;
};

/* What a packet is, for matching. */
struct inj_pkt {
	bool rx;
	uint32_t qpn; /* the tester's QPN it belongs to */
	uint8_t opcode;
	uint32_t psn;
	unsigned round;
};

int inj_add(struct inj_set *s, const struct inj_rule *r);
void inj_clear(struct inj_set *s);

/* The first rule that fires on this packet (counting the match for every
 * rule that matches), or NULL. */
struct inj_rule *inj_match(struct inj_set *s, const struct inj_pkt *p);

/* Applies a modifying action (corrupt ICRC, ECN CE, set field) to a frame
 * in place; returns the new length, or -1 with a reason in err when the
 * frame cannot take it (not RoCEv2, field absent). */
long inj_modify(const struct inj_rule *r, uint8_t *frame, size_t len, size_t cap, char *err, size_t errlen);

const char *inj_action_name(enum inj_action a);

/* Round tracking: how many times a (QP, PSN, opcode) was seen before. A
 * small direct-mapped table; a collision forgets the older entry. */
#define INJ_ROUND_SLOTS 4096
struct inj_rounds {
	struct {
		uint32_t qpn, psn;
		uint8_t opcode;
		bool used;
		uint16_t count;
	} slot[INJ_ROUND_SLOTS];
};

unsigned inj_round_next(struct inj_rounds *t, uint32_t qpn, uint32_t psn, uint8_t opcode);

#endif
