/*
 * ICRC diagnosis against an independent oracle: this test computes what a
 * buggy implementation would send with zlib's crc32 over a copy it masks
 * itself (method (a) of rocev2-rules.md §2.6), for every combination of the
 * known mistakes that can occur on an IPv4 and an IPv6 packet, writes it
 * into the frame, and expects libroce to name exactly that combination
 * (every IP and UDP field left unmasked is named as one mistake), and
 * roce_icrc_mistaken_set to build the same value. tests/tools/icrc_combos.py
 * does the same from Python through roce-tester lint.
 */
#include <string.h>
#include <zlib.h>

#include "samples.h"
#include "testutil.h"

#define B(m) ROCE_ICRC_BIT(ROCE_ICRC_MISTAKE_##m)

/* hdrs: the length of the IP, UDP and transport headers, where the payload
 * starts (HEADERS_TWICE covers them masked, then the BTH on as payload). */
static uint32_t oracle_icrc(const uint8_t *l3, size_t len, unsigned pad, size_t hdrs, uint32_t set)
{
	uint8_t buf[SAMPLE_FRAME_MAX];
	memcpy(buf, l3, len);
	bool v6 = (l3[0] >> 4) == 6;
	size_t hl = v6 ? 40 : (size_t)(l3[0] & 15) * 4;
	/* The standard masks, except those the implementation forgot. */
	if (v6) {
		if (!(set & B(IPV6_TC_UNMASKED))) { buf[0] |= 0x0F; buf[1] |= 0xF0; }
		if (!(set & B(IPV6_FL_UNMASKED))) { buf[1] |= 0x0F; buf[2] = buf[3] = 0xFF; }
		if (!(set & B(IPV6_HL_UNMASKED))) buf[7] = 0xFF;
	} else {
		if (!(set & B(IPV4_TOS_UNMASKED))) buf[1] = 0xFF;
		if (!(set & B(IPV4_TTL_UNMASKED))) buf[8] = 0xFF;
		if (!(set & B(IPV4_CSUM_UNMASKED))) buf[10] = buf[11] = 0xFF;
	}
	if (!(set & B(UDP_CSUM_UNMASKED))) buf[hl + 6] = buf[hl + 7] = 0xFF;
	if (!(set & B(BTH4_UNMASKED))) buf[hl + 12] = 0xFF;
	static const uint8_t ff[8] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };
	uLong c = crc32(0, Z_NULL, 0);
	if (!(set & B(NO_PREFIX)))
		c = crc32(c, ff, 8);
	size_t end = (set & B(PAD_OMITTED)) ? len - pad : len;
	if (set & B(HEADERS_TWICE)) {
		c = crc32(c, buf, (uInt)hdrs);
		c = crc32(c, l3 + hl + 8, (uInt)(end - hl - 8));
	} else {
		c = crc32(c, buf, (uInt)end);
	}
	uint32_t v = (uint32_t)c;
	if (set & B(NOT_INVERTED))
		v = ~v;
	if (set & B(BYTE_ORDER))
		v = __builtin_bswap32(v);
	return v;
}

static void names(uint32_t set, char *buf, size_t n)
{
	roce_icrc_mistakes_format(set, buf, n);
}

int main(void)
{
	static const uint32_t v4_atoms[] = { B(IPV4_TOS_UNMASKED), B(IPV4_TTL_UNMASKED), B(IPV4_CSUM_UNMASKED),
					     B(UDP_CSUM_UNMASKED), B(BTH4_UNMASKED), B(PAD_OMITTED),
					     B(NO_PREFIX), B(NOT_INVERTED), B(BYTE_ORDER), B(HEADERS_TWICE) };
	static const uint32_t v6_atoms[] = { B(IPV6_TC_UNMASKED), B(IPV6_FL_UNMASKED), B(IPV6_HL_UNMASKED),
					     B(UDP_CSUM_UNMASKED), B(BTH4_UNMASKED), B(PAD_OMITTED),
					     B(NO_PREFIX), B(NOT_INVERTED), B(BYTE_ORDER), B(HEADERS_TWICE) };
	uint8_t payload[64], frame[512];
	sample_fill_pattern(payload, sizeof payload);
	unsigned combos = 0;
	for (int ipv = 4; ipv <= 6; ipv += 2) {
		const uint32_t *atoms = ipv == 4 ? v4_atoms : v6_atoms;
		uint32_t all_fields = ipv == 4 ? B(IPV4_TOS_UNMASKED) | B(IPV4_TTL_UNMASKED) | B(IPV4_CSUM_UNMASKED)
					       : B(IPV6_TC_UNMASKED) | B(IPV6_FL_UNMASKED) | B(IPV6_HL_UNMASKED);
		all_fields |= B(UDP_CSUM_UNMASKED);
		struct roce_desc d;
		sample_desc(&d, ROCE_OP_RC_SEND_ONLY, ipv, payload, 5); /* RC SEND Only, pad 3 */
		/* Every variant field different from all ones, so that leaving it
		 * unmasked changes the ICRC. */
		roce_bth_set_fecn(d.bth, 1);
		roce_udp_set_csum(d.udp, 0x4321);
		if (ipv == 4) {
			roce_ipv4_set_dscp(d.ip, 26);
			roce_ipv4_set_ttl(d.ip, 64);
		} else {
			roce_ipv6_set_dscp(d.ip, 26);
			roce_ipv6_set_flowlabel(d.ip, 0x12345);
			roce_ipv6_set_hoplimit(d.ip, 64);
		}
		long n = roce_build_frame(&d, frame, sizeof frame);
		struct roce_pkt p;
		roce_parse_frame(&p, frame, (size_t)n, (size_t)n, 0);
		uint32_t l3 = p.hdr_off[ipv == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4];
		size_t len = p.icrc_off - l3;
		size_t hdrs = p.payload_off - l3;
		uint32_t gold = oracle_icrc(frame + l3, len, p.pad_len, hdrs, 0);
		CHECK(gold == roce_le32_load(frame + p.icrc_off), "IPv%d: oracle disagrees with libroce", ipv);

		for (uint32_t k = 1; k < 1u << 10; k++) {
			uint32_t set = 0;
			for (unsigned b = 0; b < 10; b++)
				if (k & (1u << b))
					set |= atoms[b];
			uint32_t bad = oracle_icrc(frame + l3, len, p.pad_len, hdrs, set);
			uint32_t built;
			char want[200], got[200];
			names(set, want, sizeof want);
			CHECK(roce_icrc_mistaken_set(&p, set, &built) == 0 && built == bad,
			      "IPv%d %s: roce_icrc_mistaken_set gives %08x, the oracle %08x", ipv, want, built, bad);
			roce_le32_store(frame + p.icrc_off, bad);
			CHECK(roce_icrc_check(&p, NULL, NULL) == ROCE_ICRC_BAD, "IPv%d %s: not bad", ipv, want);
			struct roce_icrc_diagnosis dg = roce_icrc_diagnose(&p);
			uint32_t expect = set;
			if ((set & all_fields) == all_fields)
				expect = (set & ~all_fields) | B(NOTHING_MASKED);
			names(expect, want, sizeof want);
			names(dg.mistakes, got, sizeof got);
			CHECK(dg.mistakes == expect && dg.alternatives == 0, "IPv%d: %s diagnosed as %s (%u alternatives)",
			      ipv, want, got, dg.alternatives);
			combos++;
			roce_le32_store(frame + p.icrc_off, gold);
		}
		/* A random corruption matches no combination. */
		roce_le32_store(frame + p.icrc_off, 0x0BADC0DE);
		struct roce_icrc_diagnosis none = roce_icrc_diagnose(&p);
		CHECK(none.mistakes == 0, "IPv%d: random ICRC diagnosed", ipv);
		char text[300];
		roce_icrc_diagnosis_format(&none, text, sizeof text);
		CHECK(strstr(text, "alone or combined"), "no explanation in words: %s", text);
		/* Mistakes that cannot occur on this packet are refused. */
		uint32_t v;
		CHECK(roce_icrc_mistaken_set(&p, ipv == 4 ? B(IPV6_FL_UNMASKED) : B(IPV4_TTL_UNMASKED), &v) != 0,
		      "IPv%d: the other version's field", ipv);
	}
	CHECK(combos == 2 * 1023, "%u combinations", combos);

	/* Names and words. */
	uint32_t set;
	CHECK(roce_icrc_mistakes_parse("ipv4-ttl-unmasked+byte-order", &set) == 0 &&
		      set == (B(IPV4_TTL_UNMASKED) | B(BYTE_ORDER)),
	      "parse names");
	CHECK(roce_icrc_mistakes_parse("pad-omitted,not-inverted", &set) == 0 &&
		      set == (B(PAD_OMITTED) | B(NOT_INVERTED)),
	      "parse names with commas");
	CHECK(roce_icrc_mistakes_parse("pad-omitted+bogus", &set) != 0, "unknown name refused");
	char text[300];
	struct roce_icrc_diagnosis two = { B(IPV4_TTL_UNMASKED) | B(BYTE_ORDER), 0 };
	roce_icrc_diagnosis_format(&two, text, sizeof text);
	CHECK(!strcmp(text, "likely causes, all together: the IPv4 TTL was not masked; the ICRC was written "
			    "most-significant byte first"),
	      "words: %s", text);
	return test_result("test_icrc_diag");
}
