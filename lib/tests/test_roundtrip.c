/*
 * build -> parse -> build gives identical bytes: every opcode of every
 * transport, IPv4 and IPv6, with no, one and two VLAN tags, every payload
 * length from 0 to 4096 (so every pad count), and random values in every
 * header field the parser does not need.
 */
#include <stdlib.h>
#include <string.h>

#include "samples.h"
#include "testutil.h"

static uint8_t payload[4096 + 16];
static uint8_t frame1[SAMPLE_FRAME_MAX], frame2[SAMPLE_FRAME_MAX];

static void add_vlans(struct roce_desc *d, unsigned n)
{
	d->n_vlan = n;
	if (n >= 1) {
		d->vlan_tpid[0] = n == 2 ? ROCE_ETHERTYPE_QINQ : ROCE_ETHERTYPE_VLAN;
		d->vlan_tci[0] = 0xA123;
	}
	if (n == 2) {
		d->vlan_tpid[1] = ROCE_ETHERTYPE_VLAN;
		d->vlan_tci[1] = 0x2064;
	}
}

/* One round trip; returns false (after reporting) on a mismatch. */
static bool round_trip(struct roce_desc *d, const char *what, size_t len)
{
	long n1 = roce_build_frame(d, frame1, sizeof frame1);
	if (n1 <= 0) {
		CHECK(0, "%s len %zu: build failed (%ld)", what, len, n1);
		return false;
	}
	struct roce_pkt p;
	enum roce_code err = roce_parse_frame(&p, frame1, (size_t)n1, (size_t)n1, 0);
	if (err != ROCE_OK) {
		CHECK(0, "%s len %zu: parse error %s", what, len, roce_code_info(err)->name);
		return false;
	}
	if (p.payload_len != len || p.pad_len != (unsigned)(-len & 3)) {
		CHECK(0, "%s len %zu: parsed payload %u pad %u", what, len, p.payload_len, p.pad_len);
		return false;
	}
	struct roce_desc d2;
	if (roce_desc_from_pkt(&d2, &p) != 0 || d2.ovr != 0) {
		CHECK(0, "%s len %zu: description of a conforming packet has overrides %#x", what, len,
		      d2.ovr);
		return false;
	}
	long n2 = roce_build_frame(&d2, frame2, sizeof frame2);
	if (n2 != n1 || memcmp(frame1, frame2, (size_t)n1)) {
		CHECK(0, "%s len %zu: rebuilt frame differs", what, len);
		return false;
	}
	test_checks++;
	return true;
}

/* Random values for every field the parser does not depend on. */
static void randomise(struct roce_desc *d, unsigned long long *seed)
{
	static const enum roce_field keep[] = {
		ROCE_F_IPV4_version, ROCE_F_IPV4_ihl, ROCE_F_IPV4_totlen, ROCE_F_IPV4_mf,
		ROCE_F_IPV4_fragoff, ROCE_F_IPV4_proto, ROCE_F_IPV4_csum, ROCE_F_IPV6_version,
		ROCE_F_IPV6_paylen, ROCE_F_IPV6_nexthdr, ROCE_F_UDP_dport, ROCE_F_UDP_len,
		ROCE_F_BTH_opcode, ROCE_F_BTH_padcnt,
	};
	for (unsigned f = 0; f < ROCE_F_COUNT; f++) {
		const struct roce_field_info *fi = roce_field_info((enum roce_field)f);
		bool skip = !fi->mask || (fi->flags & ROCE_FF_VIEW);
		for (size_t k = 0; k < sizeof keep / sizeof keep[0]; k++)
			skip |= keep[k] == (enum roce_field)f;
		uint8_t *h = roce_desc_hdr(d, fi->hdr);
		if (!skip && h)
			roce_field_set(h, (enum roce_field)f, test_rand(seed));
	}
	uint8_t *ip = d->ip;
	for (int i = 0; i < 32; i++)
		ip[d->ip_version == 6 ? 8 + i : 12 + (i % 8)] = (uint8_t)test_rand(seed);
	for (int i = 0; i < 12; i++)
		(i < 6 ? d->eth_dst : d->eth_src)[i % 6] = (uint8_t)test_rand(seed);
}

int main(int argc, char **argv)
{
	/* --quick: a stride over the lengths, for sanitizer builds. */
	size_t step = argc > 1 && !strcmp(argv[1], "--quick") ? 7 : 1;
	sample_fill_pattern(payload, sizeof payload);
	unsigned long long seed = 0x5EED;
	unsigned opcodes = 0;

	for (unsigned op = 0; op < 256; op++) {
		const struct roce_opcode_info *oi = roce_opcode((uint8_t)op);
		if (!oi->name)
			continue;
		opcodes++;
		for (int ipv = 4; ipv <= 6; ipv += 2) {
			for (unsigned vlans = 0; vlans <= 2; vlans++) {
				char what[96];
				snprintf(what, sizeof what, "%s IPv%d %u VLAN", oi->name, ipv, vlans);
				for (size_t len = 0; len <= 4096; len += (len < 8 || len > 4088) ? 1 : step) {
					struct roce_desc d;
					sample_desc(&d, (uint8_t)op, ipv, payload, len);
					add_vlans(&d, vlans);
					if (!round_trip(&d, what, len))
						break;
				}
				for (int r = 0; r < 20; r++) {
					struct roce_desc d;
					size_t len = test_rand(&seed) % 1500;
					sample_desc(&d, (uint8_t)op, ipv, payload, len);
					add_vlans(&d, vlans);
					randomise(&d, &seed);
					if (!round_trip(&d, "random fields", len))
						break;
				}
			}
		}
	}
	CHECK(opcodes == 86, "%u opcodes defined, the spec table has 86", opcodes);

	/* A tag pushed into a built frame, by moving the payload forward or the
	 * MACs back into room in front, gives the frame built with that tag. */
	for (int ipv = 4; ipv <= 6; ipv += 2) {
		struct roce_desc d;
		sample_desc(&d, ROCE_OP_RC_SEND_ONLY, ipv, payload, 100);
		long n = roce_build_frame(&d, frame1 + ROCE_VLAN_LEN, sizeof frame1 - ROCE_VLAN_LEN);
		add_vlans(&d, 1);
		long tagged = roce_build_frame(&d, frame2, sizeof frame2);
		uint16_t tci = roce_be_load(frame2 + ROCE_ETH_TYPE_OFF + 2, 2);
		CHECK(n > 0 && tagged == n + ROCE_VLAN_LEN, "IPv%d: tagged frame %ld bytes", ipv, tagged);
		uint8_t *front = roce_frame_push_vlan_front(frame1 + ROCE_VLAN_LEN, ROCE_ETHERTYPE_VLAN, tci);
		CHECK(front == frame1 && !memcmp(front, frame2, (size_t)tagged), "IPv%d: tag pushed in front", ipv);
		static uint8_t moved[sizeof frame1];
		d.n_vlan = 0;
		long plain = roce_build_frame(&d, moved, sizeof moved);
		size_t pushed = roce_frame_push_vlan(moved, (size_t)plain, sizeof moved, ROCE_ETHERTYPE_VLAN, tci);
		CHECK(pushed == (size_t)tagged && !memcmp(moved, frame2, pushed), "IPv%d: tag pushed by moving the rest", ipv);
		CHECK(!roce_frame_push_vlan(moved, (size_t)plain, (size_t)plain + 3, ROCE_ETHERTYPE_VLAN, tci),
		      "IPv%d: no room for the tag", ipv);
	}

	/* Non-conforming packets round-trip too: overrides are recorded. */
	for (size_t i = 0; i < sample_violation_count; i++) {
		const struct sample_violation *v = &sample_violations[i];
		size_t wirelen, n = sample_violation_frame(v, frame1, &wirelen);
		struct roce_pkt p;
		if (!n || roce_parse_frame(&p, frame1, n, wirelen, v->parse_flags) != ROCE_OK ||
		    !p.complete)
			continue;
		struct roce_desc d;
		CHECK(roce_desc_from_pkt(&d, &p) == 0, "%s: no description", roce_code_info(v->code)->name);
		long n2 = roce_build_frame(&d, frame2, sizeof frame2);
		CHECK(n2 == (long)n && !memcmp(frame1, frame2, n), "%s: rebuilt frame differs",
		      roce_code_info(v->code)->name);
	}
	return test_result("test_roundtrip");
}
