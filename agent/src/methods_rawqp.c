/*
 * probe_raw_datagram_qp: whether the device creates one of IBA's raw
 * datagram QPs (Raw IPv6, Raw Ethertype), which a RoCEv2 port has none of
 * (Annex A17.4.5, CA17-28). The attempt is made and undone at once: the
 * session gets no handle, only what each layer asked answered. The
 * Ethernet RAW_PACKET QP some NICs offer is another service and is not
 * what is probed.
 */
#include "methods.h"

void method_probe_raw_datagram_qp(struct req *r)
{
	struct handle *pd = session_get(r, "pd", H_PD, true);
	if (!pd)
		return;
	int type = param_word(r, "type", true, ap_raw_qp_type_words, ap_raw_qp_type_by_name, -1);
	if (type < 0)
		return;
	if (!OPS(r)->probe_raw_datagram_qp) {
		req_fail(r, AE_UNSUPPORTED, "the %s backend cannot try a raw datagram QP", OPS(r)->name);
		return;
	}
	struct be_raw_probe probe = { 0 };
	struct be_error err = { 0 };
	if (OPS(r)->probe_raw_datagram_qp(pd->obj, (enum be_raw_qp_type)type, &probe, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	JsonBuilder *b = req_result(r);
	json_builder_set_member_name(b, "created");
	json_builder_add_boolean_value(b, probe.created);
	json_builder_set_member_name(b, "answers");
	json_builder_begin_array(b);
	for (unsigned i = 0; i < probe.n_answers && i < BE_RAW_MAX_ANSWERS; i++)
		json_builder_add_string_value(b, probe.answers[i]);
	json_builder_end_array(b);
}
