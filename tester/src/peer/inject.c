/* Injection rules: matching and the actions that rewrite a frame. */
#include "inject.h"

#include <stdio.h>
#include <string.h>

#include "text.h"

int inj_add(struct inj_set *s, const struct inj_rule *r)
{
	if (s->n >= INJ_MAX_RULES)
		return -1;
	s->rules[s->n] = *r;
	s->rules[s->n].matched = s->rules[s->n].fired = 0;
	s->n++;
	return 0;
}

void inj_clear(struct inj_set *s)
{
	s->n = 0;
}

static bool matches(const struct inj_rule *r, const struct inj_pkt *p)
{
	if (r->rx != p->rx)
		return false;
	if (!r->any_qp && r->qpn != p->qpn)
		return false;
	if (r->opcode >= 0 && r->opcode != p->opcode)
		return false;
	if (r->has_psn && r->psn != p->psn)
		return false;
	if (r->round >= 0 && (unsigned)r->round != p->round)
		return false;
	return true;
}

struct inj_rule *inj_match(struct inj_set *s, const struct inj_pkt *p)
{
	struct inj_rule *hit = NULL;
	for (unsigned i = 0; i < s->n; i++) {
		struct inj_rule *r = &s->rules[i];
		if (!matches(r, p))
			continue;
		r->matched++;
		if (hit)
			continue;
		if (r->nth && r->matched != r->nth)
			continue;
		if (r->count && r->fired >= r->count)
			continue;
		r->fired++;
		hit = r;
	}
	return hit;
}

const char *inj_action_name(enum inj_action a)
{
	switch (a) {
	case INJ_DROP: return "drop";
	case INJ_DUPLICATE: return "duplicate";
	case INJ_DELAY: return "delay";
	case INJ_REORDER: return "reorder";
	case INJ_CORRUPT_ICRC: return "corrupt_icrc";
	case INJ_ECN_CE: return "ecn_ce";
	case INJ_SET: return "set";
	}
	return "?";
}

long inj_modify(const struct inj_rule *r, uint8_t *frame, size_t len, size_t cap, char *err, size_t errlen)
{
	struct roce_pkt p;
	if (roce_parse_frame(&p, frame, len, len, ROCE_PARSE_ANY_PORT | ROCE_PARSE_ROCEV1) != ROCE_OK || !p.complete) {
		text_printf(err, errlen, "the frame does not parse as RoCEv2");
		return -1;
	}
	if (r->action == INJ_CORRUPT_ICRC) {
		/* Every bit of the ICRC flipped: wrong whatever the mistake. */
		for (unsigned i = 0; i < ROCE_ICRC_LEN; i++)
			frame[p.icrc_off + i] ^= 0xFF;
		return (long)len;
	}
	struct roce_desc d;
	if (roce_desc_from_pkt(&d, &p) != 0) {
		text_printf(err, errlen, "the frame cannot be rebuilt");
		return -1;
	}
	/* The payload points into the frame we rebuild into: copy it out. */
	uint8_t payload[9216];
	if (d.payload_len > sizeof payload) {
		text_printf(err, errlen, "payload too large");
		return -1;
	}
	memcpy(payload, d.payload, d.payload_len);
	d.payload = payload;
	bool icrc_was_bad = roce_icrc_check(&p, NULL, NULL) == ROCE_ICRC_BAD;
	if (r->action == INJ_ECN_CE) {
		roce_desc_set(&d, p.ip_version == 6 ? ROCE_F_IPV6_ecn : ROCE_F_IPV4_ecn, 3);
	} else if (r->action == INJ_SET) {
		if (roce_desc_set(&d, r->field, r->value) != 0) {
			text_printf(err, errlen, "the packet has no %s.%s field",
				 roce_hdr_info(roce_field_info(r->field)->hdr)->abbrev,
				 roce_field_info(r->field)->abbrev);
			return -1;
		}
	} else {
		text_printf(err, errlen, "action %s does not modify frames", inj_action_name(r->action));
		return -1;
	}
	/* A set field is meant to arrive with a valid ICRC (so the DUT judges
	 * the field, not the CRC) unless the ICRC was already wrong. */
	if (!icrc_was_bad)
		d.ovr &= ~ROCE_OVR_ICRC;
	long n = roce_build_frame(&d, frame, cap);
	if (n < 0)
		text_printf(err, errlen, "the modified packet cannot be built");
	return n;
}

unsigned inj_round_next(struct inj_rounds *t, uint32_t qpn, uint32_t psn, uint8_t opcode)
{
	/* A QP's PSNs run in order: consecutive slots (the table is read
	 * where it was last written, in cache, and one QP's next 4,096 PSNs
	 * never collide with each other); QPs and opcodes spread the start. */
	unsigned h = (psn + qpn * 2654435761u + opcode * 40503u) % INJ_ROUND_SLOTS;
	if (!t->slot[h].used || t->slot[h].qpn != qpn || t->slot[h].psn != psn || t->slot[h].opcode != opcode) {
		t->slot[h].used = true;
		t->slot[h].qpn = qpn;
		t->slot[h].psn = psn;
		t->slot[h].opcode = opcode;
		t->slot[h].count = 0;
	}
	return t->slot[h].count < UINT16_MAX ? t->slot[h].count++ : UINT16_MAX;
}
