/*
 * MAD and CM layouts (mad.def): every field lies inside its header, fields
 * of one header do not overlap unless they share a word under disjoint
 * masks, accessors round-trip, CM attributes map to their layouts, and the
 * REQ carries its private data where Annex A11 puts the IP CM header.
 */
#include <string.h>

#include "samples.h"
#include "testutil.h"

int main(void)
{
	for (int h = 0; h < ROCE_MH_COUNT; h++) {
		const struct roce_mad_hdr_info *hi = roce_mad_hdr_info((enum roce_mad_hdr)h);
		enum roce_mad_field f0;
		unsigned n;
		roce_mad_hdr_fields((enum roce_mad_hdr)h, &f0, &n);
		CHECK(n > 0, "%s has no fields", hi->name);
		for (unsigned i = 0; i < n; i++) {
			const struct roce_mad_field_info *a = roce_mad_field_info((enum roce_mad_field)(f0 + i));
			CHECK(a->offset + a->width <= hi->size, "%s.%s ends at %u, past %u", hi->abbrev, a->abbrev,
			      a->offset + a->width, hi->size);
			CHECK(a->mask == 0 || a->width <= 8, "%s.%s: numeric field wider than 8", hi->abbrev, a->abbrev);
			for (unsigned j = i + 1; j < n; j++) {
				const struct roce_mad_field_info *b = roce_mad_field_info((enum roce_mad_field)(f0 + j));
				bool overlap = a->offset < b->offset + b->width && b->offset < a->offset + a->width;
				bool shared = a->offset == b->offset && a->width == b->width && a->mask && b->mask &&
					      !(a->mask & b->mask);
				CHECK(!overlap || shared, "%s.%s overlaps %s", hi->abbrev, a->abbrev, b->abbrev);
			}
		}
	}

	uint8_t m[ROCE_MAD_LEN] = { 0 };
	roce_req_set_local_qpn(m, 0xABCDEF);
	roce_req_set_resp_resources(m, 0x12);
	roce_req_set_start_psn(m, 0x654321);
	roce_req_set_retry_count(m, 7);
	roce_req_set_path_mtu(m, 3);
	CHECK(roce_req_local_qpn(m) == 0xABCDEF && roce_req_resp_resources(m) == 0x12, "REQ QPN word");
	CHECK(roce_req_start_psn(m) == 0x654321 && roce_req_retry_count(m) == 7, "REQ PSN word");
	CHECK(m[32] == 0xAB && m[35] == 0x12 && m[44] == 0x65 && (m[47] & 7) == 7, "REQ byte layout");
	CHECK(roce_ib_mtu_bytes((unsigned)roce_req_path_mtu(m)) == 1024, "MTU code 3 is 1024");
	CHECK(roce_req_private_data(m) == m + 140, "REQ private data at 140");
	CHECK(ROCE_CM_REQ_PRIVATE_OFF == 24 + 140, "REQ private data offset in the MAD");
	CHECK(roce_cm_msg(ROCE_CM_REP) == ROCE_MH_CM_REP && roce_cm_msg(0x99) == ROCE_MH_COUNT, "attr map");
	CHECK(!strcmp(roce_cm_msg_name(ROCE_CM_SIDR_REQ), "SIDR REQ"), "names");
	CHECK(roce_cm_service_is_ip(0x0000000001064853ull) && !roce_cm_service_is_ip(0x1000000000000001ull),
	      "IP CM service IDs");

	/* A UD SEND to QP1 carries a MAD; to another QP it does not. */
	uint8_t frame[SAMPLE_FRAME_MAX], mad[ROCE_MAD_LEN] = { 1, ROCE_MAD_CLASS_CM, 2 };
	struct roce_desc d;
	sample_desc(&d, 0x64, 4, mad, sizeof mad);
	roce_bth_set_destqp(d.bth, ROCE_QP1);
	long len = roce_build_frame(&d, frame, sizeof frame);
	struct roce_pkt p;
	roce_parse_frame(&p, frame, (size_t)len, (size_t)len, 0);
	CHECK(roce_pkt_is_mad(&p), "UD SEND to QP1 is a MAD");
	roce_bth_set_destqp(d.bth, 0x123);
	len = roce_build_frame(&d, frame, sizeof frame);
	roce_parse_frame(&p, frame, (size_t)len, (size_t)len, 0);
	CHECK(!roce_pkt_is_mad(&p), "UD SEND to another QP is not");
	return test_result("test_mad");
}
