/*
 * Parser robustness and errors: every truncation of every sample frame,
 * captured or on the wire, and many randomly mutated frames, parse without
 * reading out of bounds (run under AddressSanitizer) and with consistent
 * offsets; specific malformations give their specific errors.
 */
#include <stdlib.h>
#include <string.h>

#include "samples.h"
#include "testutil.h"

/* Offsets of a successful parse stay inside the frame and add up. */
static void check_invariants(const struct roce_pkt *p, const char *what)
{
	if (p->err != ROCE_OK)
		return;
	for (unsigned h = 0; h < ROCE_H_COUNT; h++)
		if (roce_pkt_has(p, (enum roce_hdr)h))
			CHECK(p->hdr_off[h] + roce_hdr_info((enum roce_hdr)h)->size <= p->caplen,
			      "%s: header %s beyond the capture", what, roce_hdr_info((enum roce_hdr)h)->abbrev);
	CHECK(p->payload_off + p->payload_len + p->pad_len + ROCE_ICRC_LEN == p->icrc_off + ROCE_ICRC_LEN,
	      "%s: payload/pad/ICRC do not add up", what);
	CHECK(p->icrc_off + ROCE_ICRC_LEN <= p->wirelen, "%s: ICRC beyond the frame", what);
	if (roce_pkt_has(p, ROCE_H_UDP))
		CHECK(p->hdr_off[ROCE_H_UDP] + ROCE_UDP_LEN + p->tp_len == p->icrc_off + ROCE_ICRC_LEN,
		      "%s: UDP length does not end at the ICRC", what);
	CHECK(p->complete == (p->icrc_off + ROCE_ICRC_LEN <= p->caplen), "%s: complete flag", what);
}

/* Parses a copy exactly n bytes long, so ASan sees any read past it. */
static enum roce_code parse_exact(const uint8_t *frame, size_t n, size_t wirelen, struct roce_pkt *p,
				  uint8_t **copy)
{
	*copy = malloc(n ? n : 1);
	memcpy(*copy, frame, n);
	return roce_parse_frame(p, *copy, n, wirelen, 0);
}

static void truncations(const uint8_t *frame, size_t n, const char *what)
{
	for (size_t cut = 0; cut < n; cut++) {
		struct roce_pkt p;
		uint8_t *copy;
		/* Cut by the capture: the frame itself is whole. */
		enum roce_code e = parse_exact(frame, cut, n, &p, &copy);
		CHECK(e == ROCE_OK || e == ROCE_E_CAPTURE_CUT, "%s cut at %zu: %s", what, cut,
		      roce_code_info(e)->name);
		if (e == ROCE_OK)
			CHECK(!p.complete && roce_icrc_check(&p, NULL, NULL) == ROCE_ICRC_UNVERIFIED,
			      "%s cut at %zu: ICRC verifiable", what, cut);
		check_invariants(&p, what);
		free(copy);
		/* Truncated on the wire: always malformed. */
		e = parse_exact(frame, cut, cut, &p, &copy);
		CHECK(e != ROCE_OK && e != ROCE_E_CAPTURE_CUT, "%s truncated to %zu: %s", what, cut,
		      roce_code_info(e)->name);
		free(copy);
	}
}

int main(void)
{
	uint8_t payload[SAMPLE_FRAME_MAX], frame[SAMPLE_FRAME_MAX];
	sample_fill_pattern(payload, sizeof payload);
	unsigned long long seed = 42;

	for (unsigned op = 0; op < 256; op++) {
		const struct roce_opcode_info *oi = roce_opcode((uint8_t)op);
		if (!oi->name)
			continue;
		for (int ipv = 4; ipv <= 6; ipv += 2) {
			struct roce_desc d;
			sample_desc(&d, (uint8_t)op, ipv, payload, sample_payload_len((uint8_t)op, 0, 5));
			if (op & 1) {
				d.n_vlan = 1;
				d.vlan_tpid[0] = ROCE_ETHERTYPE_VLAN;
			}
			long n = roce_build_frame(&d, frame, sizeof frame);
			truncations(frame, (size_t)n, oi->name);

			/* Random mutations: 1 to 4 bytes each. */
			for (int r = 0; r < 300; r++) {
				uint8_t *copy = malloc((size_t)n);
				memcpy(copy, frame, (size_t)n);
				int k = 1 + (int)(test_rand(&seed) % 4);
				for (int j = 0; j < k; j++) {
					size_t at = test_rand(&seed) % (size_t)n;
					/* Bias towards the headers, where the structure is. */
					if (j == 0)
						at %= (size_t)n < 90 ? (size_t)n : 90;
					copy[at] = (uint8_t)test_rand(&seed);
				}
				struct roce_pkt p;
				roce_parse_frame(&p, copy, (size_t)n, (size_t)n, test_rand(&seed) & 1);
				check_invariants(&p, "mutated");
				struct roce_finding f[64];
				struct roce_check_opts o = { ROCE_CHK_ICRC | ROCE_CHK_SENDER, 1024 };
				roce_check(&p, &o, f, 64);
				roce_icrc_diagnose(&p);
				free(copy);
			}

			/* The transport-only and IP-only entry points on the same bytes. */
			struct roce_pkt p;
			roce_parse_frame(&p, frame, (size_t)n, (size_t)n, 0);
			uint32_t l3 = p.hdr_off[ipv == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4];
			struct roce_pkt q;
			CHECK(roce_parse_ip(&q, frame + l3, (size_t)n - l3, (size_t)n - l3, 0) == ROCE_OK,
			      "%s: bare IP parse", oi->name);
			CHECK(roce_icrc_check(&q, NULL, NULL) == ROCE_ICRC_GOOD, "%s: bare IP ICRC", oi->name);
			uint32_t bth = p.hdr_off[ROCE_H_BTH];
			CHECK(roce_parse_bth(&q, frame + bth, (size_t)n - bth, (size_t)n - bth, 0) == ROCE_OK,
			      "%s: transport parse", oi->name);
			CHECK(q.payload_len == p.payload_len && q.opcode == op, "%s: transport fields", oi->name);
			CHECK(roce_icrc_check(&q, NULL, NULL) == ROCE_ICRC_UNVERIFIED,
			      "%s: ICRC without IP must be unverified", oi->name);
		}
	}

	/* Specific errors carry the offending values. */
	for (size_t i = 0; i < sample_violation_count; i++) {
		const struct sample_violation *v = &sample_violations[i];
		if (!roce_code_is_parse_error(v->code))
			continue;
		size_t wirelen, n = sample_violation_frame(v, frame, &wirelen);
		struct roce_pkt p;
		enum roce_code e = roce_parse_frame(&p, frame, n, wirelen, v->parse_flags);
		CHECK(e == v->code, "%s: got %s", roce_code_info(v->code)->name, roce_code_info(e)->name);
		char msg[256];
		roce_pkt_strerror(&p, msg, sizeof msg);
		CHECK(msg[0] != '\0', "%s: empty message", roce_code_info(v->code)->name);
		CHECK(p.err_off <= wirelen, "%s: error offset %u", roce_code_info(v->code)->name, p.err_off);
	}
	return test_result("test_parse");
}
