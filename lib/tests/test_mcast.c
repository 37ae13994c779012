/*
 * UD multicast: the group of a packet, the MAC it maps to (worked out by
 * hand from RFC 1112 §6.4 and RFC 2464 §7), and the stateless checks on
 * good and bad frames of both IP versions, untagged and behind VLAN tags,
 * parsed from Ethernet and from the IP header. The ICRC is the same for
 * multicast: a good one passes.
 */
#include <string.h>

#include "samples.h"
#include "testutil.h"

static const uint8_t group4[4] = { 239, 255, 18, 1 };
static const uint8_t group6[16] = { 0xff, 0x15, [12] = 0x0d, [13] = 0xb8, [15] = 1 };

static void mac_of(int ipv, const uint8_t *ip, const char *want)
{
	uint8_t mac[6];
	char text[18];
	roce_mcast_mac(ipv, ip, mac);
	roce_mac_format(mac, text, sizeof text);
	CHECK(!strcmp(text, want), "mapped MAC %s, want %s", text, want);
}

static void addressing(void)
{
	mac_of(4, group4, "01:00:5e:7f:12:01");
	/* The 24th bit from the right is dropped: 224.128.1.2 and 224.0.1.2
	 * share a MAC. */
	mac_of(4, (const uint8_t[]){ 224, 128, 1, 2 }, "01:00:5e:00:01:02");
	mac_of(4, (const uint8_t[]){ 239, 255, 255, 250 }, "01:00:5e:7f:ff:fa");
	mac_of(6, group6, "33:33:0d:b8:00:01");
	mac_of(6, (const uint8_t[16]){ 0xff, 0x02, [15] = 0x16 }, "33:33:00:00:00:16");

	CHECK(roce_ip_is_multicast(4, (const uint8_t[]){ 224, 0, 0, 1 }), "224.0.0.1");
	CHECK(roce_ip_is_multicast(4, (const uint8_t[]){ 239, 255, 255, 255 }), "239.255.255.255");
	CHECK(!roce_ip_is_multicast(4, (const uint8_t[]){ 223, 255, 255, 255 }), "223.255.255.255");
	CHECK(!roce_ip_is_multicast(4, (const uint8_t[]){ 240, 0, 0, 1 }), "240.0.0.1");
	CHECK(!roce_ip_is_multicast(4, (const uint8_t[]){ 198, 18, 0, 1 }), "198.18.0.1");
	CHECK(roce_ip_is_multicast(6, group6), "ff15::db8:1");
	CHECK(!roce_ip_is_multicast(6, (const uint8_t[16]){ 0xfe, 0x80, [15] = 1 }), "fe80::1");

	struct roce_mcast_group g;
	char text[64];
	CHECK(roce_mcast_group_from_ip(4, group4, &g), "IPv4 group");
	roce_mcast_group_format(&g, text, sizeof text);
	CHECK(!strcmp(text, "239.255.18.1"), "group %s", text);
	roce_gid_format(g.gid, text, sizeof text);
	CHECK(!strcmp(text, "::ffff:239.255.18.1"), "group GID %s", text);
	CHECK(roce_gid_is_multicast(g.gid), "the IPv4-mapped GID of a group is multicast");
	CHECK(roce_mcast_group_from_ip(6, group6, &g), "IPv6 group");
	roce_mcast_group_format(&g, text, sizeof text);
	CHECK(!strcmp(text, "ff15::db8:1"), "group %s", text);
	CHECK(roce_gid_is_multicast(g.gid), "an IPv6 group's GID");
	uint8_t gid[16];
	roce_gid_from_ip(4, (const uint8_t[]){ 198, 18, 0, 1 }, gid);
	CHECK(!roce_gid_is_multicast(gid), "a unicast GID");
	CHECK(!roce_mcast_group_from_ip(4, (const uint8_t[]){ 198, 18, 0, 1 }, &g), "a unicast address is no group");
}

/* A datagram of the opcode to the group of IP version ipv (or to the
 * sample's unicast peer), with n_vlan tags. */
struct variant {
	const char *what;
	uint8_t opcode;
	bool to_group;
	uint32_t destqp;
	bool wrong_mac;
	enum roce_code want[3]; /* the findings of warning level and above, ROCE_OK-terminated */
};

static size_t build(const struct variant *v, int ipv, unsigned n_vlan, uint8_t *frame)
{
	uint8_t payload[64];
	sample_fill_pattern(payload, sizeof payload);
	struct roce_desc d;
	sample_desc(&d, v->opcode, ipv, payload, sample_payload_len(v->opcode, 0, 20));
	if (v->to_group) {
		if (ipv == 4)
			memcpy(roce_ipv4_dst_ptr(d.ip), group4, 4);
		else
			memcpy(roce_ipv6_dst_ptr(d.ip), group6, 16);
		roce_mcast_mac(ipv, ipv == 4 ? group4 : group6, d.eth_dst);
	}
	if (v->wrong_mac)
		d.eth_dst[4] ^= 0x01;
	roce_bth_set_destqp(d.bth, v->destqp);
	for (unsigned i = 0; i < n_vlan; i++) {
		d.vlan_tpid[i] = n_vlan == 2 && i == 0 ? ROCE_ETHERTYPE_QINQ : ROCE_ETHERTYPE_VLAN;
		d.vlan_tci[i] = roce_vlan_tci(3, 100 + i);
	}
	d.n_vlan = n_vlan;
	long n = roce_build_frame(&d, frame, SAMPLE_FRAME_MAX);
	return n > 0 ? (size_t)n : 0;
}

/* The variants name the IPv4 MAC finding; IPv6 has its own. */
static enum roce_code for_version(enum roce_code c, int ipv)
{
	return c == ROCE_C_MCAST_MAC4 && ipv == 6 ? ROCE_C_MCAST_MAC6 : c;
}

static void judge(const struct variant *v, int ipv, unsigned n_vlan, bool from_ip)
{
	uint8_t frame[SAMPLE_FRAME_MAX];
	size_t n = build(v, ipv, n_vlan, frame);
	CHECK(n > 0, "%s: build failed", v->what);
	struct roce_pkt p;
	if (from_ip) {
		size_t ip = ROCE_ETH_LEN + n_vlan * ROCE_VLAN_LEN;
		roce_parse_ip(&p, frame + ip, n - ip, n - ip, 0);
	} else {
		roce_parse_frame(&p, frame, n, n, 0);
	}
	CHECK(p.err == ROCE_OK, "%s IPv%d: parse error %s", v->what, ipv, roce_code_info(p.err)->name);
	CHECK(roce_icrc_check(&p, NULL, NULL) == ROCE_ICRC_GOOD, "%s IPv%d: ICRC not good", v->what, ipv);

	struct roce_check_opts o = { ROCE_CHK_ICRC | ROCE_CHK_NOTES, 0 };
	struct roce_finding f[16];
	size_t nf = roce_check(&p, &o, f, 16);
	bool seen[ROCE_CODE_COUNT] = { false };
	for (size_t i = 0; i < nf && i < 16; i++) {
		if (roce_code_info(f[i].code)->severity < ROCE_SEV_WARN)
			continue;
		bool wanted = false;
		for (size_t k = 0; k < 3 && v->want[k] != ROCE_OK; k++)
			wanted |= for_version(v->want[k], ipv) == f[i].code;
		/* Parsed from IP, the frame's MAC is out of view. */
		CHECK(wanted && !(from_ip && (f[i].code == ROCE_C_MCAST_MAC4 || f[i].code == ROCE_C_MCAST_MAC6)),
		      "%s IPv%d, %u tags%s: unexpected %s", v->what, ipv, n_vlan, from_ip ? ", from IP" : "",
		      roce_code_info(f[i].code)->name);
		seen[f[i].code] = true;
	}
	for (size_t k = 0; k < 3 && v->want[k] != ROCE_OK; k++) {
		enum roce_code c = for_version(v->want[k], ipv);
		if (from_ip && (c == ROCE_C_MCAST_MAC4 || c == ROCE_C_MCAST_MAC6))
			continue;
		CHECK(seen[c], "%s IPv%d, %u tags%s: %s not raised", v->what, ipv, n_vlan, from_ip ? ", from IP" : "",
		      roce_code_info(c)->name);
	}

	struct roce_mcast_group g;
	bool grp = roce_pkt_mcast_group(&p, &g);
	CHECK(grp == v->to_group, "%s: group %d", v->what, grp);
	if (grp) {
		enum roce_mcast_mac_status st = roce_pkt_mcast_mac_status(&p, &g);
		enum roce_mcast_mac_status want = from_ip ? ROCE_MCAST_MAC_UNKNOWN
					       : v->wrong_mac ? ROCE_MCAST_MAC_WRONG : ROCE_MCAST_MAC_OK;
		CHECK(st == want, "%s IPv%d: MAC status %d, want %d", v->what, ipv, st, want);
	}
}

int main(void)
{
	addressing();
	/* IPv4 and IPv6 both: the MAC finding of IPv6 is MCAST_MAC6 (judge). */
	static const struct variant variants[] = {
		{ "UD SEND to the group", ROCE_OP_UD_SEND_ONLY, true, ROCE_MCAST_QPN, false, { ROCE_OK, ROCE_OK, ROCE_OK } },
		{ "UD SEND with Immediate to the group", ROCE_OP_UD_SEND_ONLY_WITH_IMM, true, ROCE_MCAST_QPN, false, { ROCE_OK, ROCE_OK, ROCE_OK } },
		{ "UD SEND to a unicast QP", ROCE_OP_UD_SEND_ONLY, false, 0x000123, false, { ROCE_OK, ROCE_OK, ROCE_OK } },
		{ "UD SEND to the group, wrong MAC", ROCE_OP_UD_SEND_ONLY, true, ROCE_MCAST_QPN, true,
		  { ROCE_C_MCAST_MAC4, ROCE_OK, ROCE_OK } },
		{ "UD SEND to the group, unicast DestQP", ROCE_OP_UD_SEND_ONLY, true, 0x000123, false,
		  { ROCE_C_MCAST_QP, ROCE_OK, ROCE_OK } },
		{ "UD SEND to DestQP 0xFFFFFF at a unicast address", ROCE_OP_UD_SEND_ONLY, false, ROCE_MCAST_QPN, false,
		  { ROCE_C_MCAST_UNICAST, ROCE_OK, ROCE_OK } },
		{ "RC SEND to DestQP 0xFFFFFF at a unicast address", ROCE_OP_RC_SEND_ONLY, false, ROCE_MCAST_QPN, false,
		  { ROCE_C_DESTQP_MCAST, ROCE_OK, ROCE_OK } },
		/* One finding for one deviation: IBA9.2-DESTQP's, not the
		 * multicast rule's as well. */
		{ "RC SEND to the group, DestQP 0xFFFFFF", ROCE_OP_RC_SEND_ONLY, true, ROCE_MCAST_QPN, false,
		  { ROCE_C_DESTQP_MCAST, ROCE_OK, ROCE_OK } },
		{ "RC SEND to the group, a unicast DestQP", ROCE_OP_RC_SEND_ONLY, true, 0x000123, false,
		  { ROCE_C_MCAST_OPCODE, ROCE_OK, ROCE_OK } },
		{ "UC SEND to the group, wrong MAC", ROCE_OP_UC_SEND_ONLY, true, 0x000123, true,
		  { ROCE_C_MCAST_MAC4, ROCE_C_MCAST_OPCODE, ROCE_OK } },
		{ "CNP to the group", ROCE_OP_CNP, true, 0x000321, false, { ROCE_C_MCAST_OPCODE, ROCE_OK, ROCE_OK } },
	};
	for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++)
		for (int ipv = 4; ipv <= 6; ipv += 2)
			for (unsigned tags = 0; tags <= 2; tags++) {
				judge(&variants[i], ipv, tags, false);
				judge(&variants[i], ipv, tags, true);
			}

	/* The finding's context spells the MACs and the group out, and a bad
	 * ICRC is still bad at a group. */
	uint8_t frame[SAMPLE_FRAME_MAX];
	size_t n = build(&variants[3], 6, 1, frame);
	struct roce_pkt p;
	roce_parse_frame(&p, frame, n, n, 0);
	struct roce_finding f[8];
	struct roce_check_opts o = { ROCE_CHK_ICRC, 0 };
	size_t nf = roce_check(&p, &o, f, 8);
	CHECK(nf == 1 && f[0].code == ROCE_C_MCAST_MAC6, "IPv6 wrong MAC: %zu findings", nf);
	char msg[256], extra[256];
	roce_finding_format(&f[0], msg, sizeof msg);
	roce_finding_context(&p, &f[0], extra, sizeof extra);
	CHECK(!strcmp(msg, "RFC2464-7-MCAST-MAC: the Ethernet destination is not the MAC the IPv6 group maps to "
			   "(33:33 and its low 32 bits)"),
	      "message: %s", msg);
	CHECK(f[0].observed == 0x33330db80101ull && f[0].expected == 0x33330db80001ull, "values %llx %llx",
	      (unsigned long long)f[0].observed, (unsigned long long)f[0].expected);
	CHECK(!strcmp(extra, " (it goes to 33:33:0d:b8:01:01; the group ff15::db8:1 maps to 33:33:0d:b8:00:01)"),
	      "context: %s", extra);
	frame[n - 1] ^= 0xFF;
	roce_parse_frame(&p, frame, n, n, 0);
	CHECK(roce_icrc_check(&p, NULL, NULL) == ROCE_ICRC_BAD, "a damaged ICRC at a group is bad");
	return test_result("test_mcast");
}
