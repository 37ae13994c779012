/* PSN arithmetic across the 2^24 wrap, segmentation, opcode choice, MTU
 * encodings, and packets built from an endpoint. */
#include <string.h>

#include "roce/roce.h"
#include "testutil.h"

int main(void)
{
	CHECK(roce_psn_add(0xFFFFFF, 1) == 0 && roce_psn_add(0, -1) == 0xFFFFFF, "psn add wraps");
	CHECK(roce_psn_add(5, 0x1000000) == 5, "psn add is modulo 2^24");
	CHECK(roce_psn_diff(2, 0xFFFFFE) == 4 && roce_psn_diff(0xFFFFFE, 2) == -4, "diff across the wrap");
	CHECK(roce_psn_diff(0x800000, 0) == -0x800000 && roce_psn_diff(0x7FFFFF, 0) == 0x7FFFFF,
	      "half-window boundary");
	CHECK(roce_psn_classify(10, 10) == ROCE_PSN_EXPECTED, "expected");
	CHECK(roce_psn_classify(9, 10) == ROCE_PSN_DUPLICATE, "duplicate");
	CHECK(roce_psn_classify(0xFFFFFF, 0) == ROCE_PSN_DUPLICATE, "duplicate across the wrap");
	CHECK(roce_psn_classify(1, 0xFFFFFF) == ROCE_PSN_AHEAD, "ahead across the wrap");

	CHECK(roce_packets_for(0, 1024) == 1 && roce_packets_for(1, 1024) == 1, "short messages");
	CHECK(roce_packets_for(1024, 1024) == 1 && roce_packets_for(1025, 1024) == 2, "boundaries");
	CHECK(roce_packets_for(1u << 31, 256) == 1u << 23, "large");
	CHECK(roce_position_of(0, 1) == ROCE_POS_ONLY && roce_position_of(0, 3) == ROCE_POS_FIRST &&
	      roce_position_of(1, 3) == ROCE_POS_MIDDLE && roce_position_of(2, 3) == ROCE_POS_LAST,
	      "positions");

	for (unsigned e = 1; e <= 5; e++)
		CHECK(roce_mtu_enum(roce_mtu_bytes(e)) == e, "mtu %u", e);
	CHECK(roce_mtu_bytes(3) == 1024 && roce_mtu_bytes(0) == 0 && roce_mtu_enum(1500) == 0, "mtu values");

	CHECK(roce_opcode_find(ROCE_T_RC, ROCE_K_SEND, ROCE_POS_LAST, ROCE_OPF_IMM | ROCE_OPF_INV, ROCE_OPF_IMM) == 0x03,
	      "RC SEND Last with Immediate");
	CHECK(roce_opcode_find(ROCE_T_RC, ROCE_K_SEND, ROCE_POS_ONLY, ROCE_OPF_IMM | ROCE_OPF_INV, ROCE_OPF_INV) == 0x17,
	      "RC SEND Only with Invalidate");
	CHECK(roce_opcode_find(ROCE_T_UC, ROCE_K_WRITE, ROCE_POS_FIRST, ROCE_OPF_IMM, 0) == 0x26, "UC WRITE First");
	CHECK(roce_opcode_find(ROCE_T_UC, ROCE_K_READ_REQ, ROCE_POS_ONLY, 0, 0) == -1, "no READ on UC");
	CHECK(roce_opcode_find(ROCE_T_XRC, ROCE_K_READ_RESP, ROCE_POS_MIDDLE, 0, 0) == 0xAE, "XRC READ Response Middle");
	CHECK(roce_opcode_find(ROCE_T_UD, ROCE_K_SEND, ROCE_POS_ONLY, ROCE_OPF_IMM, 0) == 0x64, "UD SEND Only");

	struct roce_endpoint ep;
	memset(&ep, 0, sizeof ep);
	ep.ip_version = 6;
	ep.src_ip[0] = 0x20;
	ep.src_ip[1] = 0x01;
	ep.dst_ip[0] = 0x20;
	ep.dst_ip[15] = 2;
	ep.traffic_class = 26 << 2;
	ep.hop_limit = 64;
	ep.udp_sport = 0xC123;
	ep.pkey = 0xFFFF;
	ep.dest_qpn = 0x11;
	ep.n_vlan = 1;
	ep.vlan_tci[0] = 0x6064;
	struct roce_desc d;
	roce_endpoint_desc(&ep, &d, 0x04, 0xFFFFFF);
	uint8_t payload[3] = { 1, 2, 3 }, frame[256];
	d.payload = payload;
	d.payload_len = 3;
	long n = roce_build_frame(&d, frame, sizeof frame);
	struct roce_pkt p;
	CHECK(n > 0 && roce_parse_frame(&p, frame, (size_t)n, (size_t)n, 0) == ROCE_OK, "endpoint packet parses");
	struct roce_finding f[8];
	struct roce_check_opts o = { ROCE_CHK_ICRC | ROCE_CHK_SENDER, 1024 };
	CHECK(roce_check(&p, &o, f, 8) == 0, "endpoint packet conforms");
	CHECK(roce_bth_psn(roce_pkt_hdr(&p, ROCE_H_BTH)) == 0xFFFFFF && roce_bth_destqp(roce_pkt_hdr(&p, ROCE_H_BTH)) == 0x11 &&
	      roce_udp_sport(roce_pkt_hdr(&p, ROCE_H_UDP)) == 0xC123 && p.n_vlan == 1 && p.pad_len == 1,
	      "endpoint fields");
	return test_result("test_transport");
}
