/*
 * NVIDIA's Dynamically Connected transport on the RD opcodes
 * (dcopcodes.def, ROCE_PARSE_RD_AS_DC): the DC rows against the RD rows
 * they follow, a DC frame's bytes where the DC layout puts them, parsed
 * both ways (as RD it breaks the RDETH's reserved byte and looks like DC;
 * as DC it is clean), its ICRC the same either way, rebuilt byte for byte,
 * what does not look like DC, and the per-packet choice (ROCE_PARSE_RD_AUTO).
 */
#include <string.h>

#include "samples.h"
#include "testutil.h"

#define KEY 0xd0c0a0b0c0ffee42ull

static uint8_t payload[4096];

static void test_table(void)
{
	unsigned rows = 0;
	for (unsigned op = 0; op < 256; op++) {
		const struct roce_opcode_info *dc = roce_opcode_dc((uint8_t)op, false);
		const struct roce_opcode_info *rd = roce_opcode((uint8_t)op);
		if (!roce_opcode_in_rd_range((uint8_t)op)) {
			CHECK(dc == rd, "opcode 0x%02x outside the RD range is the same as roce_opcode()", op);
			continue;
		}
		if (op > ROCE_OP_DC_CONNECT) {
			CHECK(!dc->name, "opcode 0x%02x is no DC opcode", op);
			continue;
		}
		rows++;
		CHECK(dc->name && !strncmp(dc->name, "DC ", 3) && dc->transport == ROCE_T_DC,
		      "opcode 0x%02x: a DC row", op);
		CHECK(roce_xhdr_offset(dc->xhdrs, ROCE_H_DCETH) == 0, "opcode 0x%02x: the DCETH right after the BTH", op);
		if (op == ROCE_OP_DC_CONNECT) {
			CHECK(dc->kind == ROCE_K_DC_CONNECT && dc->xhdr_len == ROCE_DCETH_LEN + ROCE_DCCETH_LEN,
			      "DC Connect: DCETH and DCCETH");
			CHECK(!roce_opcode_dc((uint8_t)op, true)->name, "0x55 with SE set is no DC opcode");
		} else if (op == ROCE_OP_DC_ACK) {
			CHECK(dc->xhdrs == (ROCE_XHDR_BIT(ROCE_H_DCETH) | ROCE_XHDR_BIT(ROCE_H_AETH)),
			      "DC Acknowledge: DCETH and AETH only");
		} else {
			CHECK(dc->xhdrs == (rd->xhdrs | ROCE_XHDR_BIT(ROCE_H_DCETH)) &&
				      dc->xhdr_len == rd->xhdr_len + ROCE_DCETH_LEN && dc->kind == rd->kind &&
				      dc->position == rd->position && dc->flags == rd->flags &&
				      !strcmp(dc->name + 3, rd->name + 3),
			      "opcode 0x%02x: the RD row (%s) with the DCETH in front", op, rd->name);
		}
	}
	CHECK(rows == 22, "22 DC opcodes, 0x40-0x55 (got %u)", rows);
	CHECK(!strcmp(roce_transport_name(ROCE_T_DC), "DC"), "the transport's name");
}

/* A DC SEND Only (or op) of 24 bytes from sample_desc's values, key KEY. */
static size_t build_dc(uint8_t op, uint64_t key, uint8_t *out)
{
	struct roce_desc d;
	const struct roce_opcode_info *dc = roce_opcode_dc(op, false);
	sample_desc(&d, op, 4, payload, (dc->flags & ROCE_OPF_PAYLOAD) ? 24 : 0);
	d.ovr |= ROCE_OVR_XHDRS;
	d.xhdrs = dc->xhdrs;
	roce_dc_set_key(roce_desc_hdr(&d, ROCE_H_DCETH), key);
	long n = roce_build_frame(&d, out, SAMPLE_FRAME_MAX);
	CHECK(n > 0, "DC opcode 0x%02x builds", op);
	return n > 0 ? (size_t)n : 0;
}

static void test_frame(void)
{
	uint8_t f[SAMPLE_FRAME_MAX];
	size_t n = build_dc(ROCE_OP_DC_SEND_ONLY, KEY, f);
	const size_t bth = ROCE_ETH_LEN + ROCE_IPV4_LEN + ROCE_UDP_LEN;
	/* By hand: the key big-endian right after the BTH, the RDETH (reserved
	 * byte 0, sample_desc's EE context 0x000042) after it, then the DETH. */
	static const uint8_t key[8] = { 0xd0, 0xc0, 0xa0, 0xb0, 0xc0, 0xff, 0xee, 0x42 };
	static const uint8_t rdeth[4] = { 0x00, 0x00, 0x00, 0x42 };
	CHECK(n == bth + ROCE_BTH_LEN + 8 + 4 + 8 + 24 + ROCE_ICRC_LEN, "DC SEND Only of 24 bytes: %zu bytes", n);
	CHECK(!memcmp(f + bth + ROCE_BTH_LEN, key, 8) && !memcmp(f + bth + ROCE_BTH_LEN + 8, rdeth, 4),
	      "the DCETH and the RDETH where the DC layout puts them");

	struct roce_pkt dc, rd;
	CHECK(roce_parse_frame(&dc, f, n, n, ROCE_PARSE_RD_AS_DC) == ROCE_OK && dc.rd_as_dc &&
		      dc.op->transport == ROCE_T_DC && roce_dc_key(roce_pkt_hdr(&dc, ROCE_H_DCETH)) == KEY &&
		      dc.hdr_off[ROCE_H_RDETH] == bth + ROCE_BTH_LEN + 8 && dc.payload_len == 24,
	      "taken as DC: the key, the RDETH after it, 24 bytes of payload");
	struct roce_finding fi[8];
	struct roce_check_opts o = { ROCE_CHK_ICRC, 0 };
	CHECK(roce_check(&dc, &o, fi, 8) == 0, "taken as DC: no finding");
	CHECK(!roce_pkt_looks_like_dc(&dc), "a packet taken as DC is not said to look like DC");

	CHECK(roce_parse_frame(&rd, f, n, n, 0) == ROCE_OK && !rd.rd_as_dc && rd.op == roce_opcode(0x44),
	      "taken as RD: RD SEND Only");
	size_t k = roce_check(&rd, &o, fi, 8);
	bool resv = false;
	for (size_t i = 0; i < k && i < 8; i++)
		resv |= fi[i].code == ROCE_C_RDETH_RESV && fi[i].observed == 0xd0;
	CHECK(resv, "taken as RD: the RDETH reserved byte is the key's first, 0xd0");
	CHECK(roce_pkt_looks_like_dc(&rd), "taken as RD, it looks like DC");
	uint32_t c1, c2;
	CHECK(roce_icrc_check(&dc, NULL, &c1) == ROCE_ICRC_GOOD && roce_icrc_check(&rd, NULL, &c2) == ROCE_ICRC_GOOD &&
		      c1 == c2,
	      "the ICRC is the same, and good, either way");

	struct roce_desc back;
	uint8_t g[SAMPLE_FRAME_MAX];
	CHECK(roce_desc_from_pkt(&back, &dc) == 0 && (size_t)roce_build_frame(&back, g, sizeof g) == n &&
		      !memcmp(f, g, n),
	      "a DC packet rebuilt byte for byte");

	/* Every DC opcode: clean as DC, and looks like DC as RD. */
	for (unsigned op = ROCE_OP_DC_SEND_FIRST; op <= ROCE_OP_DC_CONNECT; op++) {
		n = build_dc((uint8_t)op, KEY, f);
		CHECK(roce_parse_frame(&dc, f, n, n, ROCE_PARSE_RD_AS_DC) == ROCE_OK, "opcode 0x%02x parses as DC", op);
		roce_parse_frame(&rd, f, n, n, 0);
		CHECK(roce_pkt_looks_like_dc(&rd), "opcode 0x%02x taken as RD looks like DC", op);
	}
}

static void test_not_dc(void)
{
	uint8_t f[SAMPLE_FRAME_MAX];
	struct roce_pkt p;
	struct roce_desc d;
	sample_desc(&d, ROCE_OP_RD_SEND_ONLY, 4, payload, 24);
	long n = roce_build_frame(&d, f, sizeof f);
	roce_parse_frame(&p, f, (size_t)n, (size_t)n, 0);
	CHECK(!roce_pkt_looks_like_dc(&p), "a clean RD SEND does not look like DC");
	/* One RD frame cannot be told from DC by itself: an RD SEND with its
	 * RDETH's reserved byte set parses as DC too (its RDETH and Q_Key make
	 * the DCETH), so it looks like DC: the hint is a hint. */
	roce_rdeth_set_resv(roce_desc_hdr(&d, ROCE_H_RDETH), 0x80);
	n = roce_build_frame(&d, f, sizeof f);
	roce_parse_frame(&p, f, (size_t)n, (size_t)n, 0);
	CHECK(roce_pkt_looks_like_dc(&p), "an RD SEND with a reserved RDETH byte set parses as DC too");
	/* ... unless DC's reading breaks a reserved byte as well: its RDETH
	 * is then the RD DETH's second half. */
	roce_deth_set_resv(roce_desc_hdr(&d, ROCE_H_DETH), 0x01);
	n = roce_build_frame(&d, f, sizeof f);
	roce_parse_frame(&p, f, (size_t)n, (size_t)n, 0);
	CHECK(!roce_pkt_looks_like_dc(&p), "taken as DC its RDETH's reserved byte is set too: not DC");
	/* ... or is too short for DC's headers: an RD Acknowledge. */
	sample_desc(&d, ROCE_OP_RD_ACK, 4, payload, 0);
	roce_rdeth_set_resv(roce_desc_hdr(&d, ROCE_H_RDETH), 0x80);
	n = roce_build_frame(&d, f, sizeof f);
	roce_parse_frame(&p, f, (size_t)n, (size_t)n, 0);
	CHECK(!roce_pkt_looks_like_dc(&p), "an RD Acknowledge with a reserved byte set is too short for DC");
	/* A key whose first byte is 0 leaves the RD reading clean: no hint. */
	size_t m = build_dc(ROCE_OP_DC_SEND_ONLY, 0x00c0a0b0c0ffee42ull, f);
	roce_parse_frame(&p, f, m, m, 0);
	CHECK(!roce_pkt_looks_like_dc(&p), "a DC key starting with 0 gives no hint");
	/* Not in the RD range. */
	sample_desc(&d, ROCE_OP_RC_SEND_ONLY, 4, payload, 24);
	n = roce_build_frame(&d, f, sizeof f);
	CHECK(roce_parse_frame(&p, f, (size_t)n, (size_t)n, ROCE_PARSE_RD_AS_DC) == ROCE_OK &&
		      p.op == roce_opcode(ROCE_OP_RC_SEND_ONLY) && !roce_pkt_looks_like_dc(&p),
	      "an RC SEND is the same with the RD range taken as DC");
	/* 0x55 with SE set: undefined as DC. */
	m = build_dc(ROCE_OP_DC_CONNECT, KEY, f);
	roce_bth_set_se(f + ROCE_ETH_LEN + ROCE_IPV4_LEN + ROCE_UDP_LEN, 1);
	CHECK(roce_parse_frame(&p, f, m, m, ROCE_PARSE_RD_AS_DC) == ROCE_E_OPCODE_UNDEFINED,
	      "0x55 with SE set is undefined as DC");
}

/* Findings of the reserved bytes' rule (IBA9.3-RESV) on p. */
static size_t resv_findings(const struct roce_pkt *p)
{
	struct roce_finding fi[16];
	struct roce_check_opts o = { ROCE_CHK_ICRC, 0 };
	size_t n = roce_check(p, &o, fi, 16), k = 0;
	for (size_t i = 0; i < n && i < 16; i++)
		k += roce_code_info(fi[i].code)->rule == ROCE_RULE_IBA_XHDR_RESV;
	return k;
}

/* ROCE_PARSE_RD_AUTO, the plugin's and lint's default: per packet, DC when
 * the RD reading looks like DC, RD otherwise; every entry point alike. */
static void test_auto(void)
{
	uint8_t f[SAMPLE_FRAME_MAX];
	struct roce_pkt p;
	struct roce_finding fi[8];
	struct roce_check_opts o = { ROCE_CHK_ICRC, 0 };
	const size_t ip = ROCE_ETH_LEN, bth = ROCE_ETH_LEN + ROCE_IPV4_LEN + ROCE_UDP_LEN;
	/* A real DC capture's key (its first byte 0x11, a ConnectX's). */
	for (unsigned op = ROCE_OP_DC_SEND_FIRST; op <= ROCE_OP_DC_CONNECT; op++) {
		size_t n = build_dc((uint8_t)op, 0x1122334455667788ull, f);
		CHECK(roce_parse_frame(&p, f, n, n, ROCE_PARSE_RD_AUTO) == ROCE_OK && p.rd_as_dc &&
			      p.op->transport == ROCE_T_DC && !resv_findings(&p),
		      "auto: DC opcode 0x%02x taken as DC, no IBA9.3-RESV finding", op);
		roce_parse_frame(&p, f, n, n, 0);
		CHECK(resv_findings(&p), "as RD (rd_range rd): 0x%02x breaks IBA9.3-RESV", op);
		CHECK(roce_parse_ip(&p, f + ip, n - ip, n - ip, ROCE_PARSE_RD_AUTO) == ROCE_OK && p.rd_as_dc,
		      "auto, from the IP header: 0x%02x taken as DC", op);
		CHECK(roce_parse_bth(&p, f + bth, n - bth, n - bth, ROCE_PARSE_RD_AUTO) == ROCE_OK && p.rd_as_dc,
		      "auto, from the BTH: 0x%02x taken as DC", op);
		CHECK(roce_parse_frame(&p, f, n, n, ROCE_PARSE_RD_AUTO | ROCE_PARSE_RD_AS_DC) == ROCE_OK && p.rd_as_dc,
		      "auto with RD_AS_DC: DC");
	}
	/* RD that does not look like DC stays RD. */
	struct roce_desc d;
	sample_desc(&d, ROCE_OP_RD_SEND_ONLY, 4, payload, 24);
	long n = roce_build_frame(&d, f, sizeof f);
	CHECK(roce_parse_frame(&p, f, (size_t)n, (size_t)n, ROCE_PARSE_RD_AUTO) == ROCE_OK && !p.rd_as_dc &&
		      p.op == roce_opcode(ROCE_OP_RD_SEND_ONLY) && roce_check(&p, &o, fi, 8) == 0,
	      "auto: a clean RD SEND stays RD");
	/* A key starting with 0: RD's reading is clean, so it stays RD,
	 * without a finding (the documented limit of auto). */
	size_t m = build_dc(ROCE_OP_DC_SEND_ONLY, 0x00c0a0b0c0ffee42ull, f);
	CHECK(roce_parse_frame(&p, f, m, m, ROCE_PARSE_RD_AUTO) == ROCE_OK && !p.rd_as_dc && roce_check(&p, &o, fi, 8) == 0,
	      "auto: a DC key starting with 0 reads as a conforming RD packet");
	/* 0x55 with SE set is no DC opcode: RD RESYNC, with its warning. */
	m = build_dc(ROCE_OP_DC_CONNECT, KEY, f);
	roce_bth_set_se(f + bth, 1);
	CHECK(roce_parse_frame(&p, f, m, m, ROCE_PARSE_RD_AUTO) == ROCE_OK && !p.rd_as_dc,
	      "auto: 0x55 with SE set stays RD");
}

int main(void)
{
	sample_fill_pattern(payload, sizeof payload);
	test_table();
	test_frame();
	test_not_dc();
	test_auto();
	return test_result("test_dc");
}
