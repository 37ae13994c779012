/*
 * The ICRC test vectors V1-V4 decode and verify; flipping any byte the ICRC
 * covers breaks it; changing any masked field does not.
 */
#include <string.h>

#include "samples.h"
#include "testutil.h"

/* Is byte i of the datagram (starting at the IP header) masked out? */
static bool masked(const struct roce_pkt *p, uint32_t i, uint8_t *mask)
{
	uint32_t l3 = p->hdr_off[p->ip_version == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4];
	uint32_t udp = p->hdr_off[ROCE_H_UDP] - l3, bth = p->hdr_off[ROCE_H_BTH] - l3;
	*mask = 0xFF;
	if (p->ip_version == 4 && (i == 1 || i == 8 || i == 10 || i == 11))
		return true;
	if (p->ip_version == 6) {
		if (i == 0) {
			*mask = 0x0F; /* traffic class high nibble; the version stays */
			return true;
		}
		if (i == 1 || i == 2 || i == 3 || i == 7)
			return true;
	}
	return i == udp + 6 || i == udp + 7 || i == bth + 4;
}

int main(void)
{
	for (size_t v = 0; v < sample_vector_count; v++) {
		const struct sample_vector *sv = &sample_vectors[v];
		uint8_t frame[512];
		size_t n = sample_unhex(sv->hex, frame, sizeof frame);
		CHECK(n > 0, "%s: bad hex", sv->name);

		struct roce_pkt p;
		enum roce_code err = roce_parse_frame(&p, frame, n, n, 0);
		CHECK(err == ROCE_OK, "%s: parse error %s", sv->name, roce_code_info(err)->name);
		uint32_t wire = 0, computed = 0;
		CHECK(roce_icrc_check(&p, &wire, &computed) == ROCE_ICRC_GOOD,
		      "%s: ICRC wire %08x computed %08x", sv->name, wire, computed);
		CHECK(__builtin_bswap32(wire) == sv->icrc_wire, "%s: wire ICRC %08x", sv->name, wire);

		struct roce_finding f[16];
		struct roce_check_opts o = { ROCE_CHK_ICRC, 0 };
		size_t nf = roce_check(&p, &o, f, 16);
		for (size_t i = 0; i < nf && i < 16; i++)
			CHECK(roce_code_info(f[i].code)->severity < ROCE_SEV_WARN,
			      "%s: unexpected finding %s", sv->name, roce_code_info(f[i].code)->name);

		/* Every byte of the datagram before the ICRC. */
		uint32_t l3 = p.hdr_off[p.ip_version == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4];
		for (uint32_t i = 0; l3 + i < p.icrc_off; i++) {
			uint8_t mask;
			uint8_t saved = frame[l3 + i];
			bool is_masked = masked(&p, i, &mask);
			/* Flip every bit the ICRC covers, or every masked bit. */
			frame[l3 + i] ^= is_masked ? mask : 0xFF;
			if (is_masked && mask != 0xFF) {
				/* Partly masked: the uncovered bits were flipped above;
				 * flipping the covered ones must still break it. */
				uint32_t c1 = roce_icrc(frame + l3, p.icrc_off - l3);
				CHECK(c1 == wire, "%s: masked bits of byte %u changed the ICRC", sv->name, i);
				frame[l3 + i] = saved ^ (uint8_t)~mask;
				uint32_t c2 = roce_icrc(frame + l3, p.icrc_off - l3);
				CHECK(c2 != wire, "%s: covered bits of byte %u did not change the ICRC", sv->name, i);
			} else {
				uint32_t c = roce_icrc(frame + l3, p.icrc_off - l3);
				if (is_masked)
					CHECK(c == wire, "%s: masked byte %u changed the ICRC", sv->name, i);
				else
					CHECK(c != wire, "%s: flipping byte %u kept the ICRC", sv->name, i);
			}
			frame[l3 + i] = saved;
		}
		CHECK(roce_icrc(frame + l3, p.icrc_off - l3) == wire, "%s: not restored", sv->name);
	}
	return test_result("test_vectors");
}
