/*
 * ICRC diagnosis against an independent oracle: this test computes what each
 * buggy implementation would send with zlib's crc32 over a copy it masks
 * itself (method (a) of rocev2-rules.md §2.6), writes it into the frame, and
 * expects libroce to name the mistake.
 */
#include <string.h>
#include <zlib.h>

#include "samples.h"
#include "testutil.h"

struct oracle {
	bool prefix, invert, swap, pad;
	bool tos, ttl, csum4, tc, fl, hl, udp, bth4; /* masks applied */
};

static uint32_t oracle_icrc(const uint8_t *l3, size_t len, unsigned pad, struct oracle o)
{
	uint8_t buf[SAMPLE_FRAME_MAX];
	memcpy(buf, l3, len);
	bool v6 = (l3[0] >> 4) == 6;
	size_t hl = v6 ? 40 : (size_t)(l3[0] & 15) * 4;
	if (v6) {
		if (o.tc) { buf[0] |= 0x0F; buf[1] |= 0xF0; }
		if (o.fl) { buf[1] |= 0x0F; buf[2] = buf[3] = 0xFF; }
		if (o.hl) buf[7] = 0xFF;
	} else {
		if (o.tos) buf[1] = 0xFF;
		if (o.ttl) buf[8] = 0xFF;
		if (o.csum4) buf[10] = buf[11] = 0xFF;
	}
	if (o.udp) buf[hl + 6] = buf[hl + 7] = 0xFF;
	if (o.bth4) buf[hl + 12] = 0xFF;
	static const uint8_t ff[8] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };
	uLong c = crc32(0, Z_NULL, 0);
	if (o.prefix)
		c = crc32(c, ff, 8);
	c = crc32(c, buf, (uInt)(o.pad ? len : len - pad));
	uint32_t v = (uint32_t)c;
	if (o.invert == false)
		v = ~v;
	if (o.swap)
		v = __builtin_bswap32(v);
	return v;
}

int main(void)
{
	const struct oracle good = { true, true, false, true, true, true, true, true, true, true, true, true };
	struct {
		enum roce_icrc_mistake m;
		struct oracle o;
		int v; /* 4, 6 or 0 for both */
	} cases[] = {
		{ ROCE_ICRC_MISTAKE_PAD_OMITTED, good, 0 },
		{ ROCE_ICRC_MISTAKE_BTH4_UNMASKED, good, 0 },
		{ ROCE_ICRC_MISTAKE_IPV4_TOS_UNMASKED, good, 4 },
		{ ROCE_ICRC_MISTAKE_IPV4_TTL_UNMASKED, good, 4 },
		{ ROCE_ICRC_MISTAKE_IPV4_CSUM_UNMASKED, good, 4 },
		{ ROCE_ICRC_MISTAKE_IPV6_TC_UNMASKED, good, 6 },
		{ ROCE_ICRC_MISTAKE_IPV6_FL_UNMASKED, good, 6 },
		{ ROCE_ICRC_MISTAKE_IPV6_HL_UNMASKED, good, 6 },
		{ ROCE_ICRC_MISTAKE_UDP_CSUM_UNMASKED, good, 0 },
		{ ROCE_ICRC_MISTAKE_NOTHING_MASKED, good, 0 },
		{ ROCE_ICRC_MISTAKE_BYTE_ORDER, good, 0 },
		{ ROCE_ICRC_MISTAKE_NOT_INVERTED, good, 0 },
		{ ROCE_ICRC_MISTAKE_NO_PREFIX, good, 0 },
	};
	cases[0].o.pad = false;
	cases[1].o.bth4 = false;
	cases[2].o.tos = false;
	cases[3].o.ttl = false;
	cases[4].o.csum4 = false;
	cases[5].o.tc = false;
	cases[6].o.fl = false;
	cases[7].o.hl = false;
	cases[8].o.udp = false;
	cases[9].o.tos = cases[9].o.ttl = cases[9].o.csum4 = cases[9].o.tc = cases[9].o.fl =
		cases[9].o.hl = cases[9].o.udp = false;
	cases[10].o.swap = true;
	cases[11].o.invert = false;
	cases[12].o.prefix = false;

	uint8_t payload[64], frame[512];
	sample_fill_pattern(payload, sizeof payload);
	for (int ipv = 4; ipv <= 6; ipv += 2) {
		for (int swap = 0; swap < 2; swap++) {
			for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
				if ((cases[i].v && cases[i].v != ipv) || (swap && cases[i].o.swap))
					continue;
				struct roce_desc d;
				sample_desc(&d, ROCE_OP_RC_SEND_ONLY, ipv, payload, 5); /* pad 3 */
				roce_bth_set_fecn(d.bth, 1);
				roce_udp_set_csum(d.udp, 0x4321);
				long n = roce_build_frame(&d, frame, sizeof frame);
				struct roce_pkt p;
				roce_parse_frame(&p, frame, (size_t)n, (size_t)n, 0);
				uint32_t l3 = p.hdr_off[ipv == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4];
				uint32_t gold = oracle_icrc(frame + l3, p.icrc_off - l3, p.pad_len, good);
				CHECK(gold == roce_le32_load(frame + p.icrc_off), "IPv%d: oracle disagrees with libroce", ipv);

				struct oracle o = cases[i].o;
				o.swap ^= swap;
				uint32_t bad = oracle_icrc(frame + l3, p.icrc_off - l3, p.pad_len, o);
				roce_le32_store(frame + p.icrc_off, bad);
				CHECK(roce_icrc_check(&p, NULL, NULL) == ROCE_ICRC_BAD, "IPv%d %s: not bad", ipv,
				      roce_icrc_mistake_text(cases[i].m));
				struct roce_icrc_diagnosis dg = roce_icrc_diagnose(&p);
				CHECK(dg.mistake == cases[i].m && dg.byte_order_too == swap,
				      "IPv%d %s%s: diagnosed '%s'%s", ipv, roce_icrc_mistake_text(cases[i].m),
				      swap ? " (swapped)" : "", roce_icrc_mistake_text(dg.mistake),
				      dg.byte_order_too ? " (swapped)" : "");
				uint32_t again;
				if (!swap && roce_icrc_mistaken(&p, cases[i].m, &again) == 0)
					CHECK(again == bad, "IPv%d %s: roce_icrc_mistaken disagrees", ipv,
					      roce_icrc_mistake_text(cases[i].m));
			}
		}
		/* A random corruption matches no mistake. */
		struct roce_desc d;
		sample_desc(&d, ROCE_OP_RC_SEND_ONLY, ipv, payload, 5);
		d.ovr |= ROCE_OVR_ICRC;
		d.icrc = 0x0BADC0DE;
		long n = roce_build_frame(&d, frame, sizeof frame);
		struct roce_pkt p;
		roce_parse_frame(&p, frame, (size_t)n, (size_t)n, 0);
		CHECK(roce_icrc_diagnose(&p).mistake == ROCE_ICRC_MISTAKE_NONE, "IPv%d: random ICRC diagnosed", ipv);
	}
	return test_result("test_icrc_diag");
}
