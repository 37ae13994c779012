/*
 * The runner's connection manager steps: CM MADs to and from QP1 (the
 * tester is the active side), and the DUT's listen.
 */
#include "runner_ctx.h"

/* ---- The connection manager: CM MADs to and from QP1 ---- */

/* A CM message as the tester's active side sends it by default: REQ as
 * rdma_cm sends one (IP CM private data, Annex A11), RTU, LAP with the
 * connection's own path as the alternate, DREQ, REJ, MRA, DREP. Port LIDs
 * are reserved on RoCE (A17.7) and left 0. */
static void cm_default(struct run_ctx *x, struct case_qp *q, uint16_t attr, uint8_t *mad)
{
	struct runner *r = x->r;
	roce_cm_mad_init(mad, attr, 0); /* the transaction ID is set below */
	/* A new transaction for REQ, LAP and DREQ; the others answer or
	 * finish one (the RTU the REQ's). */
	uint64_t tid = (uint64_t)q->cm_local_id << 32 | q->cm_transactions;
	if (attr == ROCE_CM_REQ || attr == ROCE_CM_LAP || attr == ROCE_CM_DREQ)
		tid = (uint64_t)q->cm_local_id << 32 | ++q->cm_transactions;
	if (attr == ROCE_CM_RTU)
		tid = q->cm_req_tid;
	roce_mad_set_tid(mad, tid);
	uint8_t *m = mad + ROCE_MAD_HDR_LEN;
	const uint8_t *mine = q->ipv == 6 ? r->io.ip6 : r->io.ip4, *dut = r->fam[q->fi].ip;
	uint8_t my_gid[16], dut_gid[16];
	roce_gid_from_ip(q->ipv, mine, my_gid);
	roce_gid_from_ip(q->ipv, dut, dut_gid);
	uint64_t guid = roce_guid_from_mac(r->io.mac);
	switch (attr) {
	case ROCE_CM_REQ: {
		q->cm_req_tid = tid;
		roce_req_set_local_comm_id(m, q->cm_local_id);
		roce_req_set_service_id(m, q->cm_service_id);
		roce_req_set_local_ca_guid(m, guid);
		roce_req_set_local_qpn(m, q->tester_qpn);
		roce_req_set_resp_resources(m, 4);
		roce_req_set_initiator_depth(m, 4);
		roce_req_set_remote_cm_timeout(m, 20);
		roce_req_set_transport(m, 0); /* RC */
		roce_req_set_e2e_flow(m, 1);
		roce_req_set_start_psn(m, q->dut_psn); /* what the tester expects the DUT to send from */
		roce_req_set_local_cm_timeout(m, 20);
		roce_req_set_retry_count(m, 7);
		roce_req_set_pkey(m, 0xFFFF);
		roce_req_set_path_mtu(m, roce_mtu_enum(q->pmtu));
		roce_req_set_rnr_retry(m, 7);
		roce_req_set_max_cm_retries(m, 15);
		memcpy(roce_req_primary_local_gid(m), my_gid, 16);
		memcpy(roce_req_primary_remote_gid(m), dut_gid, 16);
		roce_req_set_primary_rate(m, 3); /* 10 Gb/s */
		roce_req_set_primary_hop_limit(m, 64);
		roce_req_set_primary_sl(m, q->sl); /* the path's SL: the priority on a VLAN (A17.4) */
		roce_req_set_primary_ack_timeout(m, 14);
		uint8_t *ip = mad + ROCE_CM_REQ_PRIVATE_OFF;
		roce_ipcm_set_sport(ip, 0xC000 | (q->tester_qpn & 0x3FFF));
		roce_ipcm_set_addrs(ip, q->ipv, mine, dut);
		break;
	}
	case ROCE_CM_LAP:
		roce_lap_set_local_comm_id(m, q->cm_local_id);
		roce_lap_set_remote_comm_id(m, q->cm_remote_id);
		roce_lap_set_remote_qpn(m, q->dut_qpn);
		roce_lap_set_remote_cm_timeout(m, 20);
		memcpy(roce_lap_alt_local_gid(m), my_gid, 16);
		memcpy(roce_lap_alt_remote_gid(m), dut_gid, 16);
		roce_lap_set_alt_hop_limit(m, 64);
		roce_lap_set_alt_sl(m, q->sl);
		roce_lap_set_alt_rate(m, 3);
		roce_lap_set_alt_ack_timeout(m, 14);
		break;
	case ROCE_CM_DREQ:
		roce_dreq_set_remote_qpn(m, q->dut_qpn);
		/* the IDs are where every other message has them */
		__attribute__((fallthrough));
	default:
		/* local_comm_id at 0 and remote_comm_id at 4 (IBA 12.6) */
		roce_rtu_set_local_comm_id(m, q->cm_local_id);
		roce_rtu_set_remote_comm_id(m, q->cm_remote_id);
		if (attr == ROCE_CM_REJ)
			roce_rej_set_reason(m, 28); /* consumer reject */
		break;
	}
}

/* The CM MAD a packet carries (a UD SEND to QP1 of the CM class), or NULL. */
const uint8_t *cm_mad(const struct roce_pkt *pk)
{
	if (pk->err != ROCE_OK || !roce_pkt_is_mad(pk) || pk->payload_len < ROCE_MAD_LEN)
		return NULL;
	const uint8_t *mad = pk->buf + pk->payload_off;
	return roce_mad_mgmt_class(mad) == ROCE_MAD_CLASS_CM ? mad : NULL;
}

/* The case QP a CM MAD from the DUT belongs to: the one whose local
 * communication ID it names as remote, else the QP that last sent one.
 * What the DUT tells of itself is learnt here: its communication ID, and
 * from a REP the PSN it expects the tester to send from. */
struct case_qp *cm_qp_of(struct run_ctx *x, const uint8_t *data, size_t len)
{
	struct roce_pkt pk;
	roce_parse_frame(&pk, data, len, len, 0);
	const uint8_t *mad = cm_mad(&pk);
	if (!mad)
		return NULL;
	uint16_t attr = (uint16_t)roce_mad_attr_id(mad);
	const uint8_t *m = mad + ROCE_MAD_HDR_LEN;
	if (attr < ROCE_CM_REQ || attr > ROCE_CM_APR || attr == ROCE_CM_SIDR_REQ || attr == ROCE_CM_SIDR_REP)
		return x->last_cm_qp;
	uint32_t remote = (uint32_t)roce_rtu_remote_comm_id(m);
	struct case_qp *q = NULL;
	for (unsigned i = 0; i < x->n_qps && !q; i++)
		if (x->qps[i].cm_local_id == remote)
			q = &x->qps[i];
	if (!q)
		return x->last_cm_qp;
	uint32_t local = (uint32_t)roce_rtu_local_comm_id(m);
	if (local)
		q->cm_remote_id = local;
	if (attr == ROCE_CM_REP) {
		/* A Starting PSN is the one its sender's receive queue
		 * expects (IBA 12.7; Linux's CM): the tester sends from it. */
		q->tester_psn = (uint32_t)roce_rep_start_psn(m);
		peer_qp_set_next_psn(x->r->peer, q->tester_qpn, q->tester_psn);
		sym_set(x, q->name, "peer_psn", q->tester_psn);
	}
	return q;
}

void step_dut_listen(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_qp *q = find_qp(x, s->qp);
	uint64_t port;
	if (!param_u64(x, &s->a.dut_listen.port, &port, o))
		return;
	if (!port || port > 65535) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "port=%llu: expected 1..65535", (unsigned long long)port);
		return;
	}
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "qp", q->dut_qp);
	json_object_set_int_member(p, "port", (gint64)port);
	if (!call(x, o, AP_M_cm_listen, p, &res))
		return;
	json_object_unref(res);
	/* The service ID follows from the port (A11); the agent's echo of it
	 * is informational. */
	q->cm_service_id = roce_cm_ip_service_id((uint16_t)port);
	sym_set(x, s->qp, "service_id", q->cm_service_id);
	g_string_printf(o->detail, "the DUT accepts a connection to service ID 0x%016llx (TCP port %llu) on QP %s (0x%06x)",
	     (unsigned long long)q->cm_service_id, (unsigned long long)port, q->name, q->dut_qpn);
}

/* inject QP REQ|RTU|LAP|...: a CM MAD from the tester's QP1 to the DUT's,
 * over the QP's IP version. */
void inject_cm_once(struct run_ctx *x, const struct cl_step *s, struct step_out *o, uint64_t *sent)
{
	struct case_qp *q = find_qp(x, s->qp);
	static uint8_t mad[ROCE_MAD_LEN];
	cm_default(x, q, s->cm_attr, mad);
	struct roce_endpoint ep;
	make_endpoint(x, q, 0, 0, 0, &ep);
	ep.dest_qpn = ROCE_QP1;
	struct roce_desc d;
	roce_gsi_desc(&ep, &d, x->gsi_psn, mad);
	x->gsi_psn = roce_psn_add(x->gsi_psn, 1);
	bool icrc_bad = false;
	for (unsigned i = 0; i < s->n_args; i++) {
		const struct cl_arg *a = &s->args[i];
		if (a->id == CL_K_repeat || a->id == CL_K_every)
			continue;
		if (a->id == CL_K_icrc && a->v.kind == CL_V_WORD && a->v.word_id >= CL_ICRC_MISTAKE) {
			o->st = S_ERROR;
			g_string_printf(o->detail, "%s:%u:%u: icrc=%s: a CM message takes icrc=bad or a number", x->c->path,
			     a->loc.line, a->loc.col, a->v.word);
			return;
		}
		if (a->id == CL_K_icrc && a->v.kind == CL_V_WORD) {
			icrc_bad = true;
			continue;
		}
		uint64_t v;
		if (a->v.kind != CL_V_EXPR || !eval(x, &a->v.expr, &v, o)) {
			if (o->st == S_OK) {
				o->st = S_ERROR;
				g_string_printf(o->detail, "%s:%u:%u: %s= takes a number in a CM message", x->c->path,
				     a->loc.line, a->loc.col, a->key);
			}
			return;
		}
		if (a->id == CL_K_icrc) {
			d.ovr |= ROCE_OVR_ICRC;
			d.icrc = (uint32_t)v;
			continue;
		}
		enum roce_mad_field mf = a->field.mad;
		if (mf != ROCE_MF_COUNT) {
			if (!roce_mad_put(mad, mf, v)) {
				o->st = S_ERROR;
				g_string_printf(o->detail, "%s:%u:%u: %s is a byte field; expected a numeric CM field",
				     x->c->path, a->loc.line, a->loc.col, a->key);
				return;
			}
			continue;
		}
		enum roce_field f = cl_field_in(&a->field, q->ipv, roce_desc_xhdrs(&d));
		const struct roce_field_info *fi = roce_field_info(f);
		if (!fi || roce_desc_set(&d, f, v & (fi->mask >> fi->shift)) != 0) {
			o->st = S_ERROR;
			g_string_printf(o->detail, "%s:%u:%u: %s is not a field of a CM MAD's packet (UD SEND Only to QP1) over IPv%d",
			     x->c->path, a->loc.line, a->loc.col, a->key, q->ipv);
			return;
		}
	}
	uint8_t frame[PEER_FRAME_MAX];
	long n = roce_build_frame(&d, frame, sizeof frame);
	if (n < 0) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "the CM MAD's packet cannot be built");
		return;
	}
	struct roce_pkt pk;
	roce_parse_frame(&pk, frame, (size_t)n, (size_t)n, ROCE_PARSE_ANY_PORT);
	if (icrc_bad && pk.complete)
		for (unsigned i = 0; i < ROCE_ICRC_LEN; i++)
			frame[pk.icrc_off + i] ^= 0xFF;
	x->last_cm_qp = q;
	if (!inject_frame(x, q, frame, (size_t)n, "CM", "the CM MAD", sent, o))
		return;
	g_string_printf(o->detail, "sent CM %s (communication ID 0x%08x, remote 0x%08x) to QP1 over IPv%d%s",
	     roce_cm_msg_name(s->cm_attr), q->cm_local_id, q->cm_remote_id, q->ipv, icrc_bad ? " with a corrupted ICRC" : "");
}
