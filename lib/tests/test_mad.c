/*
 * MAD and CM layouts (mad.def): every field lies inside its header, fields
 * of one header do not overlap unless they share a word under disjoint
 * masks, accessors round-trip, CM attributes map to their layouts, and the
 * REQ carries its private data where Annex A11 puts the IP CM header.
 * roce_check flags the REJ reasons and the APR status that name a port LID
 * (CA17-35, CA17-37) and nothing else in a CM MAD.
 */
#include <string.h>

#include "samples.h"
#include "testutil.h"

/* The CM finding roce_check raises on a MAD to QP1 whose capture holds
 * caplen bytes of the frame (0: all of it); ROCE_OK when none. */
static enum roce_code cm_finding(const uint8_t *mad, size_t caplen)
{
	uint8_t frame[SAMPLE_FRAME_MAX];
	struct roce_desc d;
	sample_desc(&d, ROCE_OP_UD_SEND_ONLY, 4, mad, ROCE_MAD_LEN);
	roce_bth_set_destqp(d.bth, ROCE_QP1);
	long len = roce_build_frame(&d, frame, sizeof frame);
	struct roce_pkt p;
	roce_parse_frame(&p, frame, caplen ? caplen : (size_t)len, (size_t)len, 0);
	struct roce_finding f[8];
	size_t n = roce_check(&p, NULL, f, 8);
	for (size_t i = 0; i < n && i < 8; i++)
		if (f[i].code == ROCE_C_CM_REJ_LID || f[i].code == ROCE_C_CM_APR_LID)
			return f[i].code;
	return ROCE_OK;
}

static void cm_lid_checks(void)
{
	uint8_t m[ROCE_MAD_LEN] = { 1, ROCE_MAD_CLASS_CM, ROCE_MAD_CM_CLASS_VERSION, ROCE_MAD_METHOD_SEND };
	uint8_t *x = m + ROCE_MAD_HDR_LEN;
	roce_mad_set_attr_id(m, ROCE_CM_REJ);
	roce_rej_set_reason(x, ROCE_CM_REJ_INVALID_LID);
	CHECK(cm_finding(m, 0) == ROCE_C_CM_REJ_LID, "REJ reason 13 is CA17-35");
	roce_rej_set_reason(x, ROCE_CM_REJ_INVALID_ALT_LID);
	CHECK(cm_finding(m, 0) == ROCE_C_CM_REJ_LID, "REJ reason 19 is CA17-35");
	/* Ethernet 14, IPv4 20, UDP 8, BTH 12, DETH 8: the MAD at 62, the
	 * reason at 62 + 24 + 10. A capture cut inside it reads nothing. */
	CHECK(cm_finding(m, 62 + 24 + 12) == ROCE_C_CM_REJ_LID, "a capture holding the reason is judged");
	CHECK(cm_finding(m, 62 + 24 + 11) == ROCE_OK, "a cut REJ reason is not read");
	roce_rej_set_reason(x, ROCE_CM_REJ_INVALID_SERVICE_ID);
	CHECK(cm_finding(m, 0) == ROCE_OK, "REJ reason 8 is fine");
	roce_mad_set_attr_id(m, ROCE_CM_APR);
	roce_apr_set_status(x, ROCE_CM_APR_INVALID_LID);
	CHECK(cm_finding(m, 0) == ROCE_C_CM_APR_LID, "APR status 7 is CA17-37");
	roce_apr_set_status(x, ROCE_CM_APR_UNSUPPORTED);
	CHECK(cm_finding(m, 0) == ROCE_OK, "APR status 2 is fine");
	roce_apr_set_status(x, ROCE_CM_APR_INVALID_LID);
	roce_mad_set_attr_id(m, ROCE_CM_REP);
	CHECK(cm_finding(m, 0) == ROCE_OK, "byte 9 of a REP is not an APR status");
	roce_mad_set_attr_id(m, ROCE_CM_APR);
	roce_mad_set_mgmt_class(m, 0x04); /* PerfMgt */
	CHECK(cm_finding(m, 0) == ROCE_OK, "only the CM class is judged");
}

/* The class names, against IBA Table 110's numbers. */
static void class_names(void)
{
	CHECK(ROCE_MAD_CLASS_CM == 0x07, "CM is class 7");
	CHECK(roce_mad_class_name(0x07) && !strcmp(roce_mad_class_name(0x07), "Communication Management"), "class 7");
	CHECK(roce_mad_class_name(0x81) && !strcmp(roce_mad_class_name(0x81), "Subnet Management (directed route)"),
	      "class 0x81");
	CHECK(roce_mad_class_name(0x04) && !strcmp(roce_mad_class_name(0x04), "Performance Management"), "class 4");
	CHECK(roce_mad_class_name(0x02) == NULL && roce_mad_class_name(0xFF) == NULL, "no name for unknown classes");
}

int main(void)
{
	class_names();
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
	/* LAP and APR (IBA 12.8): the alternate port LIDs at 20 and 22, the
	 * GIDs after them; the APR status in byte 9. */
	memset(m, 0, sizeof m);
	roce_lap_set_alt_local_lid(m, 0xBEEF);
	roce_lap_set_alt_remote_lid(m, 0x1234);
	roce_lap_set_remote_qpn(m, 0x00ABCD);
	roce_lap_set_alt_flow_label(m, 0xFFFFF);
	roce_lap_set_alt_tclass(m, 0x5A);
	CHECK(m[20] == 0xBE && m[21] == 0xEF && m[22] == 0x12 && m[23] == 0x34, "LAP LIDs at 20 and 22");
	CHECK(m[13] == 0xAB && m[14] == 0xCD && m[56] == 0xFF && (m[58] & 0xF0) == 0xF0 && m[59] == 0x5A,
	      "LAP QPN, flow label and traffic class");
	CHECK(roce_lap_alt_local_gid(m) == m + 24 && roce_lap_private_data(m) == m + 64, "LAP GIDs, private data");
	memset(m, 0, sizeof m);
	roce_apr_set_status(m, 7);
	CHECK(m[9] == 7 && roce_apr_status(m) == 7 && roce_apr_private_data(m) == m + 84, "APR status in byte 9");
	CHECK(roce_cm_msg(ROCE_CM_LAP) == ROCE_MH_CM_LAP && roce_cm_msg(ROCE_CM_APR) == ROCE_MH_CM_APR &&
	      !strcmp(roce_cm_msg_name(ROCE_CM_APR), "APR"), "LAP and APR attributes");
	enum roce_mad_field lid = roce_mad_field_by_name("lap.alt_remote_lid");
	uint64_t got = 0;
	CHECK(lid != ROCE_MF_COUNT && roce_mad_field_by_name("lap.nope") == ROCE_MF_COUNT &&
	      roce_mad_field_by_name("alt_remote_lid") == ROCE_MF_COUNT, "fields by name");
	memset(m, 0, sizeof m);
	CHECK(roce_mad_put(m, lid, 0xCAFE) && m[24 + 22] == 0xCA && roce_mad_get(m, lid, &got) && got == 0xCAFE,
	      "a CM field sits after the MAD header");
	CHECK(roce_mad_put(m, roce_mad_field_by_name("mad.attr_id"), ROCE_CM_LAP) && m[16] == 0 && m[17] == 0x19,
	      "MAD header fields from 0");
	CHECK(roce_mad_put(m, roce_mad_field_by_name("ipcm.sport"), 0x1234) && m[ROCE_CM_REQ_PRIVATE_OFF + 2] == 0x12,
	      "IP CM fields in the REQ's private data");
	CHECK(!roce_mad_get(m, roce_mad_field_by_name("lap.alt_local_gid"), &got), "byte fields are not numbers");
	CHECK(roce_cm_ip_service_id(18515) == 0x0000000001064853ull, "the TCP port space's service ID");
	CHECK(roce_cm_service_is_ip(0x0000000001064853ull) && !roce_cm_service_is_ip(0x1000000000000001ull),
	      "IP CM service IDs");

	/* A UD SEND to QP1 carries a MAD; to another QP it does not. */
	uint8_t frame[SAMPLE_FRAME_MAX], mad[ROCE_MAD_LEN] = { 1, ROCE_MAD_CLASS_CM, 2 };
	struct roce_desc d;
	sample_desc(&d, ROCE_OP_UD_SEND_ONLY, 4, mad, sizeof mad);
	roce_bth_set_destqp(d.bth, ROCE_QP1);
	long len = roce_build_frame(&d, frame, sizeof frame);
	struct roce_pkt p;
	roce_parse_frame(&p, frame, (size_t)len, (size_t)len, 0);
	CHECK(roce_pkt_is_mad(&p), "UD SEND to QP1 is a MAD");
	roce_bth_set_destqp(d.bth, 0x123);
	len = roce_build_frame(&d, frame, sizeof frame);
	roce_parse_frame(&p, frame, (size_t)len, (size_t)len, 0);
	CHECK(!roce_pkt_is_mad(&p), "UD SEND to another QP is not");
	cm_lid_checks();
	return test_result("test_mad");
}
