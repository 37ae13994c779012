/*
 * RoCE v1 (IBA Annex A16, A17.8): Ethertype 0x8915, a GRH, the IBA
 * transport, the ICRC. Parsing only with ROCE_PARSE_ROCEV1; building,
 * rebuilding byte for byte; the ICRC against an independent computation
 * (zlib over the masked bytes, as rocev2-rules.md §2.6 does for RoCEv2),
 * its invariance under the variant fields and its sensitivity to the
 * others; the malformations; and the endpoint's v1 packets.
 */
#include <string.h>
#include <zlib.h>

#include "samples.h"
#include "testutil.h"

static uint8_t payload[4096];

/* The v1 ICRC the slow way: 8 bytes of 0xFF for the LRH, the GRH with its
 * traffic class, flow label and hop limit set to ones, BTH byte 4 set to
 * ones, the rest as it is; zlib's CRC-32. */
static uint32_t icrc_by_hand(const uint8_t *grh, size_t len)
{
	uint8_t copy[9216];
	memset(copy, 0xFF, 8);
	memcpy(copy + 8, grh, len);
	uint8_t *g = copy + 8;
	g[0] |= 0x0F;
	g[1] = g[2] = g[3] = 0xFF;
	g[7] = 0xFF;
	g[ROCE_GRH_LEN + 4] = 0xFF;
	return (uint32_t)crc32(0, copy, (uInt)(len + 8));
}

static long build_v1(uint8_t opcode, size_t plen, uint8_t *out, size_t cap, struct roce_desc *dd)
{
	struct roce_desc d;
	sample_desc(&d, opcode, 6, payload, sample_payload_len(opcode, 1024, plen));
	sample_to_rocev1(&d);
	if (dd)
		*dd = d;
	return roce_build_frame(&d, out, cap);
}

static void test_every_opcode(void)
{
	uint8_t f[SAMPLE_FRAME_MAX], g[SAMPLE_FRAME_MAX];
	unsigned n_ops = 0;
	for (unsigned op = 0; op < 256; op++) {
		if (!roce_opcode_defined((uint8_t)op))
			continue;
		for (size_t plen = 0; plen < 4; plen++) {
			long n = build_v1((uint8_t)op, 13 + plen, f, sizeof f, NULL);
			CHECK(n > 0, "opcode 0x%02x: build failed", op);
			if (n <= 0)
				continue;
			CHECK(roce_be_load(f + 12, 2) == ROCE_ETHERTYPE_ROCEV1, "opcode 0x%02x: Ethertype", op);
			struct roce_pkt p;
			CHECK(roce_parse_frame(&p, f, (size_t)n, (size_t)n, 0) == ROCE_E_ROCEV1,
			      "opcode 0x%02x: without ROCE_PARSE_ROCEV1 a v1 frame is E_ROCEV1", op);
			enum roce_code e = roce_parse_frame(&p, f, (size_t)n, (size_t)n, ROCE_PARSE_ROCEV1);
			CHECK(e == ROCE_OK, "opcode 0x%02x: parse error %s", op, roce_code_info(e)->name);
			if (e != ROCE_OK)
				continue;
			CHECK(p.rocev1 && p.ip_version == 0 && p.complete, "opcode 0x%02x: v1, no IP", op);
			CHECK(roce_pkt_has(&p, ROCE_H_GRH) && p.hdr_off[ROCE_H_GRH] == ROCE_ETH_LEN,
			      "opcode 0x%02x: GRH after Ethernet", op);
			CHECK(!roce_pkt_has(&p, ROCE_H_UDP) && !roce_pkt_has(&p, ROCE_H_IPV6),
			      "opcode 0x%02x: no UDP, no IPv6", op);
			CHECK(p.hdr_off[ROCE_H_BTH] == ROCE_ETH_LEN + ROCE_GRH_LEN, "opcode 0x%02x: BTH after the GRH", op);
			const uint8_t *grh = roce_pkt_hdr(&p, ROCE_H_GRH);
			CHECK(roce_grh_paylen(grh) == (size_t)n - ROCE_ETH_LEN - ROCE_GRH_LEN,
			      "opcode 0x%02x: PayLen %u counts BTH..ICRC", op, roce_grh_paylen(grh));
			CHECK(roce_grh_nxthdr(grh) == 0x1B && roce_grh_ipver(grh) == 6, "opcode 0x%02x: GRH IPVer, NxtHdr", op);
			uint32_t wire, computed;
			CHECK(roce_icrc_check(&p, &wire, &computed) == ROCE_ICRC_GOOD, "opcode 0x%02x: ICRC", op);
			CHECK(wire == icrc_by_hand(grh, p.icrc_off - ROCE_ETH_LEN),
			      "opcode 0x%02x: ICRC %08x, by hand %08x", op, wire, icrc_by_hand(grh, p.icrc_off - ROCE_ETH_LEN));
			struct roce_finding fi[16];
			struct roce_check_opts o = { ROCE_CHK_ICRC, 0 };
			size_t nf = roce_check(&p, &o, fi, 16);
			for (size_t k = 0; k < nf && k < 16; k++)
				CHECK(roce_code_info(fi[k].code)->severity < ROCE_SEV_WARN, "opcode 0x%02x: finding %s", op,
				      roce_code_info(fi[k].code)->name);
			/* Rebuilt byte for byte. */
			struct roce_desc d2;
			CHECK(roce_desc_from_pkt(&d2, &p) == 0 && d2.rocev1, "opcode 0x%02x: description", op);
			long n2 = roce_build_frame(&d2, g, sizeof g);
			CHECK(n2 == n && !memcmp(f, g, (size_t)n), "opcode 0x%02x: rebuilt differently", op);
		}
		n_ops++;
	}
	CHECK(n_ops > 80, "every defined opcode (%u)", n_ops);
}

/* What the ICRC covers and what it does not. */
static void test_icrc_coverage(void)
{
	uint8_t f[SAMPLE_FRAME_MAX];
	struct roce_desc d;
	long n = build_v1(0x04, 13, f, sizeof f, &d);
	uint32_t base = roce_le32_load(f + n - 4);
	static const struct {
		const char *field;
		uint64_t value;
		bool covered;
	} changes[] = {
		{ "grh.tclass", 0xB9, false },    { "grh.flowlabel", 0xABCDE, false },
		{ "grh.hoplmt", 1, false },       { "bth.fecn", 1, false },
		{ "bth.becn", 1, false },         { "bth.resv6", 0x2A, false },
		{ "bth.psn", 77, true },          { "bth.destqp", 0x456, true },
		{ "bth.pkey", 0x8001, true },     { "grh.nxthdr", 0x1B, true },
	};
	for (size_t i = 0; i < sizeof changes / sizeof changes[0]; i++) {
		struct roce_desc e = d;
		CHECK(roce_desc_set(&e, roce_field_by_name(changes[i].field), changes[i].value) == 0, "%s settable",
		      changes[i].field);
		uint8_t g[SAMPLE_FRAME_MAX];
		long m = roce_build_frame(&e, g, sizeof g);
		uint32_t v = roce_le32_load(g + m - 4);
		if (!strcmp(changes[i].field, "grh.nxthdr"))
			CHECK(v == base, "setting NxtHdr to its own value changes nothing");
		else
			CHECK((v != base) == changes[i].covered, "%s is %s by the ICRC", changes[i].field,
			      changes[i].covered ? "covered" : "masked");
	}
	/* The GIDs are covered. */
	struct roce_desc e = d;
	e.ip[8 + 15] ^= 1;
	uint8_t g[SAMPLE_FRAME_MAX];
	long m = roce_build_frame(&e, g, sizeof g);
	CHECK(roce_le32_load(g + m - 4) != base, "the SGID is covered");
	/* The same transport over RoCEv2 IPv6 has another ICRC (the UDP
	 * header is covered there). */
	struct roce_desc v2;
	sample_desc(&v2, ROCE_OP_RC_SEND_ONLY, 6, payload, 13);
	m = roce_build_frame(&v2, g, sizeof g);
	CHECK(roce_le32_load(g + m - 4) != base, "the RoCEv2 ICRC of the same packet differs");
}

static void test_malformed(void)
{
	uint8_t f[SAMPLE_FRAME_MAX];
	struct roce_desc d;
	long n = build_v1(0x04, 16, f, sizeof f, &d);
	struct roce_pkt p;
	CHECK(roce_parse_frame(&p, f, 30, 30, ROCE_PARSE_ROCEV1) == ROCE_E_TRUNC_GRH, "cut inside the GRH");
	CHECK(roce_parse_frame(&p, f, 30, (size_t)n, ROCE_PARSE_ROCEV1) == ROCE_E_CAPTURE_CUT,
	      "a capture cut inside the GRH is not a malformation");
	struct roce_desc e = d;
	roce_desc_set(&e, ROCE_F_GRH_ipver, 4);
	n = roce_build_frame(&e, f, sizeof f);
	CHECK(roce_parse_frame(&p, f, (size_t)n, (size_t)n, ROCE_PARSE_ROCEV1) == ROCE_E_GRH_IPVER &&
		      p.err_observed == 4,
	      "IPVer 4");
	e = d;
	roce_desc_set(&e, ROCE_F_GRH_nxthdr, 17);
	n = roce_build_frame(&e, f, sizeof f);
	CHECK(roce_parse_frame(&p, f, (size_t)n, (size_t)n, ROCE_PARSE_ROCEV1) == ROCE_E_GRH_NXTHDR &&
		      p.err_observed == 17,
	      "Next Header 17");
	e = d;
	roce_desc_set(&e, ROCE_F_GRH_paylen, 2000);
	n = roce_build_frame(&e, f, sizeof f);
	CHECK(roce_parse_frame(&p, f, (size_t)n, (size_t)n, ROCE_PARSE_ROCEV1) == ROCE_E_GRH_PAYLEN_LONG &&
		      p.err_observed == 2000,
	      "PayLen 2000");
	/* Ethernet padding after a short packet is no part of it. */
	e = d;
	e.payload_len = 0;
	n = roce_build_frame(&e, f, sizeof f);
	memset(f + n, 0, 8);
	CHECK(roce_parse_frame(&p, f, (size_t)n + 8, (size_t)n + 8, ROCE_PARSE_ROCEV1) == ROCE_OK &&
		      roce_icrc_check(&p, NULL, NULL) == ROCE_ICRC_GOOD && p.payload_len == 0,
	      "trailing Ethernet padding ignored");
	/* A wrong ICRC is the v1 finding, and its mistakes are diagnosed. */
	e = d;
	e.payload_len = 13;
	n = roce_build_frame(&e, f, sizeof f);
	roce_parse_frame(&p, f, (size_t)n, (size_t)n, ROCE_PARSE_ROCEV1);
	uint32_t v;
	CHECK(roce_icrc_mistaken(&p, ROCE_ICRC_MISTAKE_PAD_OMITTED, &v) == 0, "pad-omitted ICRC");
	roce_le32_store(f + p.icrc_off, v);
	struct roce_finding fi[8];
	struct roce_check_opts o = { ROCE_CHK_ICRC, 0 };
	size_t nf = roce_check(&p, &o, fi, 8);
	CHECK(nf == 1 && fi[0].code == ROCE_C_ICRC_V1, "C_ICRC_V1 (%zu findings)", nf);
	CHECK(roce_icrc_diagnose(&p).mistakes == ROCE_ICRC_BIT(ROCE_ICRC_MISTAKE_PAD_OMITTED), "pad omitted, diagnosed");
	CHECK(roce_icrc_mistaken(&p, ROCE_ICRC_MISTAKE_UDP_CSUM_UNMASKED, &v) != 0, "no UDP header to mask");
	CHECK(roce_icrc_mistaken(&p, ROCE_ICRC_MISTAKE_IPV4_TTL_UNMASKED, &v) != 0, "no IPv4 header");
	/* The GRH's variant fields are the IPv6 header's: leaving one unmasked
	 * is a mistake that shows, and is diagnosed. */
	CHECK(roce_icrc_mistaken(&p, ROCE_ICRC_MISTAKE_IPV6_TC_UNMASKED, &v) == 0, "GRH traffic class unmasked");
	roce_le32_store(f + p.icrc_off, v);
	CHECK(roce_icrc_diagnose(&p).mistakes == ROCE_ICRC_BIT(ROCE_ICRC_MISTAKE_IPV6_TC_UNMASKED), "TC unmasked, diagnosed");
}

/* An endpoint of RoCE v1: the GIDs of IPv4 addresses in their mapped form. */
static void test_endpoint(void)
{
	struct roce_endpoint ep;
	memset(&ep, 0, sizeof ep);
	ep.ip_version = 4;
	ep.rocev1 = true;
	static const uint8_t a[4] = { 198, 18, 0, 2 }, b[4] = { 198, 18, 0, 1 };
	memcpy(ep.src_ip, a, 4);
	memcpy(ep.dst_ip, b, 4);
	ep.traffic_class = 0x68;
	ep.flow_label = 0x12345;
	ep.hop_limit = 9;
	ep.pkey = 0xFFFF;
	ep.dest_qpn = 0x11;
	ep.n_vlan = 1;
	ep.vlan_tci[0] = 5u << 13 | 100;
	struct roce_desc d;
	roce_endpoint_desc(&ep, &d, 0x04, 33);
	d.payload = payload;
	d.payload_len = 20;
	uint8_t f[SAMPLE_FRAME_MAX];
	long n = roce_build_frame(&d, f, sizeof f);
	struct roce_pkt p;
	CHECK(roce_parse_frame(&p, f, (size_t)n, (size_t)n, ROCE_PARSE_ROCEV1) == ROCE_OK && p.rocev1 && p.n_vlan == 1,
	      "tagged v1 frame");
	const uint8_t *grh = roce_pkt_hdr(&p, ROCE_H_GRH);
	static const uint8_t sgid[16] = { [10] = 0xFF, [11] = 0xFF, [12] = 198, [13] = 18, [14] = 0, [15] = 2 };
	CHECK(grh && !memcmp(roce_grh_sgid(grh), sgid, 16), "SGID ::ffff:198.18.0.2");
	CHECK(grh && roce_grh_dgid(grh)[15] == 1 && roce_grh_dgid(grh)[11] == 0xFF, "DGID ::ffff:198.18.0.1");
	CHECK(grh && roce_grh_tclass(grh) == 0x68 && roce_grh_flowlabel(grh) == 0x12345 && roce_grh_hoplmt(grh) == 9,
	      "traffic class, flow label, hop limit");
	char sum[128];
	roce_pkt_summary(&p, sum, sizeof sum);
	CHECK(!strncmp(sum, "RoCE v1 RC SEND Only", 20), "summary '%s'", sum);
}

int main(void)
{
	sample_fill_pattern(payload, sizeof payload);
	test_every_opcode();
	test_icrc_coverage();
	test_malformed();
	test_endpoint();
	return test_result("test_rocev1");
}
