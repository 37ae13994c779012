/*
 * Stateless per-packet checks. Each looks at the fields of one packet,
 * using the opcode table for what the opcode allows, and reports findings
 * from codes.def. Stateful rules (PSN order, responses matching requests)
 * live with the plugin's and the tester's per-QP state.
 */
#include "roce/check.h"

#include <stdio.h>
#include <string.h>

#include "roce/icrc.h"
#include "roce/mad.h"
#include "roce/mcast.h"
#include "roce/packet.h"
#include "hints.h"

static const struct roce_code_info code_table[ROCE_CODE_COUNT] = {
	[ROCE_OK] = { "OK", ROCE_RULE_NONE, ROCE_SEV_INFO, "no error" },
/* A parse error is an error, except one that breaks no rule (a capture cut
 * short by its snapshot length), which is only informative. */
#define ROCE_ERR(SYM, rule, msg)                                                          \
	[ROCE_E_##SYM] = { "E_" #SYM, ROCE_RULE_##rule,                                   \
			   ROCE_RULE_##rule == ROCE_RULE_NONE ? ROCE_SEV_INFO : ROCE_SEV_ERROR, msg },
#define ROCE_CHK(SYM, rule, sev, msg) [ROCE_C_##SYM] = { "C_" #SYM, ROCE_RULE_##rule, ROCE_SEV_##sev, msg },
#define ROCE_FLOW(SYM, rule, sev, msg) [ROCE_F_##SYM] = { "F_" #SYM, ROCE_RULE_##rule, ROCE_SEV_##sev, msg },
#include "roce/codes.def"
#undef ROCE_ERR
#undef ROCE_CHK
#undef ROCE_FLOW
};

const struct roce_code_info *roce_code_info(enum roce_code c)
{
	if ((unsigned)c >= ROCE_CODE_COUNT || c == ROCE_E_END_)
		return &code_table[ROCE_OK];
	return &code_table[c];
}

int roce_finding_message(const struct roce_finding *f, char *buf, size_t n)
{
	return snprintf(buf, n, roce_code_info(f->code)->fmt, (unsigned long long)f->observed,
			(unsigned long long)f->expected);
}

unsigned roce_code_frame_args(enum roce_code c)
{
	static const char frame[] = "frame ";
	const char *fmt = roce_code_info(c)->fmt;
	unsigned mask = 0, arg = 0;
	for (const char *s = fmt; *s; s++) {
		if (*s != '%')
			continue;
		if (s[1] == '%') {
			s++;
			continue;
		}
		size_t before = (size_t)(s - fmt);
		if (before >= sizeof frame - 1 && !strncmp(s - (sizeof frame - 1), frame, sizeof frame - 1))
			mask |= 1u << arg;
		arg++;
	}
	return mask;
}

int roce_finding_message_frames(const struct roce_finding *f, roce_frame_map map, void *ctx, char *buf, size_t n)
{
	struct roce_finding said = *f;
	unsigned args = roce_code_frame_args(f->code);
	if (args & ROCE_ARG_OBSERVED)
		said.observed = map(ctx, f->observed);
	if (args & ROCE_ARG_EXPECTED)
		said.expected = map(ctx, f->expected);
	return roce_finding_message(&said, buf, n);
}

int roce_finding_format(const struct roce_finding *f, char *buf, size_t n)
{
	const struct roce_rule_info *r = roce_rule(roce_code_info(f->code)->rule);
	if (!r)
		return roce_finding_message(f, buf, n);
	int head = snprintf(buf, n, "%s: ", r->id);
	if (head < 0)
		return head;
	int body = roce_finding_message(f, (size_t)head < n ? buf + head : NULL,
					(size_t)head < n ? n - (size_t)head : 0);
	return body < 0 ? body : head + body;
}

struct sink {
	struct roce_finding *out;
	size_t max, n;
};

/* Raising a finding is the rare case: out of line (hints.h). */
static ROCE_COLD void add(struct sink *s, enum roce_code c, uint32_t off, uint32_t len, uint64_t observed,
		uint64_t expected)
{
	if (s->n < s->max)
		s->out[s->n] = (struct roce_finding){ c, off, len, observed, expected };
	s->n++;
}

static void check_ip(const struct roce_pkt *p, const struct roce_check_opts *o, struct sink *s)
{
	const uint8_t *ip = roce_pkt_hdr(p, ROCE_H_IPV4);
	uint32_t off;
	if (ip) {
		off = p->hdr_off[ROCE_H_IPV4];
		if (roce_ipv4_ihl(ip) != 5)
			add(s, ROCE_C_IPV4_IHL, off, 1, roce_ipv4_ihl(ip), 5);
		if (roce_ipv4_rf(ip))
			add(s, ROCE_C_IPV4_RF, off + 6, 1, roce_ipv4_flags(ip), 2);
		if (!roce_ipv4_df(ip))
			add(s, ROCE_C_IPV4_DF, off + 6, 1, roce_ipv4_flags(ip), 2);
		uint16_t want = roce_ipv4_checksum(ip, p->ip_hdr_len);
		if (roce_ipv4_csum(ip) != want)
			add(s, ROCE_C_IPV4_CSUM, off + 10, 2, roce_ipv4_csum(ip), want);
		if ((o->flags & ROCE_CHK_SENDER) && roce_ipv4_ecn(ip) == 3)
			add(s, ROCE_C_ECN_CE, off + 1, 1, 3, 0);
	}
	ip = roce_pkt_hdr(p, ROCE_H_IPV6);
	if (ip && (o->flags & ROCE_CHK_SENDER) && roce_ipv6_ecn(ip) == 3)
		add(s, ROCE_C_ECN_CE, p->hdr_off[ROCE_H_IPV6], 2, 3, 0);

	const uint8_t *udp = roce_pkt_hdr(p, ROCE_H_UDP);
	if (udp) {
		off = p->hdr_off[ROCE_H_UDP];
		if (roce_udp_dport(udp) != ROCE_UDP_PORT && p->err != ROCE_E_UDP_DPORT)
			add(s, ROCE_C_UDP_DPORT, off + 2, 2, roce_udp_dport(udp), ROCE_UDP_PORT);
		if (roce_udp_csum(udp))
			add(s, ROCE_C_UDP_CSUM, off + 6, 2, roce_udp_csum(udp), 0);
	}
}

static bool se_allowed(const struct roce_opcode_info *op)
{
	bool last = op->position == ROCE_POS_LAST || op->position == ROCE_POS_ONLY;
	return last && (op->kind == ROCE_K_SEND || (op->kind == ROCE_K_WRITE && (op->flags & ROCE_OPF_IMM)));
}

static void check_bth(const struct roce_pkt *p, struct sink *s)
{
	const uint8_t *bth = roce_pkt_hdr(p, ROCE_H_BTH);
	uint32_t off = p->hdr_off[ROCE_H_BTH];
	const struct roce_opcode_info *op = p->op;

	if (roce_bth_tver(bth))
		add(s, ROCE_C_BTH_TVER, off + 1, 1, roce_bth_tver(bth), 0);
	if (roce_bth_resv6(bth))
		add(s, ROCE_C_BTH_RESV6, off + 4, 1, roce_bth_resv6(bth), 0);
	if (roce_bth_resv7(bth))
		add(s, ROCE_C_BTH_RESV7, off + 8, 1, roce_bth_resv7(bth), 0);
	uint32_t qp = roce_bth_destqp(bth);
	if (qp == 0)
		add(s, ROCE_C_DESTQP_ZERO, off + 5, 3, 0, 0);
	if (qp == 0xFFFFFF && roce_opcode_transport(p->opcode) != ROCE_T_UD)
		add(s, ROCE_C_DESTQP_MCAST, off + 5, 3, qp, 0);
	if (!op || !op->name)
		return;

	if (op->kind == ROCE_K_CNP) {
		if (roce_bth_psn(bth))
			add(s, ROCE_C_CNP_PSN, off + 9, 3, roce_bth_psn(bth), 0);
		if (roce_bth_se(bth))
			add(s, ROCE_C_CNP_SE, off + 1, 1, 1, 0);
		if (roce_bth_m(bth))
			add(s, ROCE_C_CNP_M, off + 1, 1, 1, 0);
		if (roce_bth_ackreq(bth))
			add(s, ROCE_C_CNP_ACKREQ, off + 8, 1, 1, 0);
	} else if (roce_bth_se(bth) && !se_allowed(op)) {
		add(s, ROCE_C_BTH_SE, off + 1, 1, 1, 0);
	}
}

static bool is_ud_send(const struct roce_opcode_info *op)
{
	return op->transport == ROCE_T_UD && op->kind == ROCE_K_SEND;
}

/* UD multicast (notes §7.1). A packet to a group goes to the MAC the group
 * maps to (RFC 1112, RFC 2464), and is a UD SEND to DestQP 0xFFFFFF; a UD
 * SEND to 0xFFFFFF at a unicast address names no group (receivers such as
 * rxe look the group up by the destination IP), so it reaches no QP. An RC
 * or UC packet to 0xFFFFFF is IBA9.2-DESTQP's (check_bth) and only its, to
 * a group or not: one deviation, one finding. The source addresses are not
 * judged: no rule of the catalogue speaks of a multicast source. */
static void check_mcast(const struct roce_pkt *p, struct sink *s)
{
	const uint8_t *bth = roce_pkt_hdr(p, ROCE_H_BTH);
	const struct roce_opcode_info *op = p->op;
	if (!bth || !op || !op->name)
		return;
	uint32_t off = p->hdr_off[ROCE_H_BTH];
	uint32_t qp = roce_bth_destqp(bth);
	struct roce_mcast_group g;
	if (!roce_pkt_mcast_group(p, &g)) {
		if (qp == ROCE_MCAST_QPN && is_ud_send(op) &&
		    (roce_pkt_has(p, ROCE_H_IPV4) || roce_pkt_has(p, ROCE_H_IPV6)))
			add(s, ROCE_C_MCAST_UNICAST, off + 5, 3, qp, ROCE_MCAST_QPN);
		return;
	}
	if (roce_pkt_mcast_mac_status(p, &g) == ROCE_MCAST_MAC_WRONG)
		add(s, g.ip_version == 4 ? ROCE_C_MCAST_MAC4 : ROCE_C_MCAST_MAC6, 0, 6,
		    roce_mac_u64(roce_pkt_eth_dst(p)), roce_mac_u64(g.mac));
	if (!is_ud_send(op)) {
		if (qp != ROCE_MCAST_QPN) /* 0xFFFFFF: check_bth's C_DESTQP_MCAST */
			add(s, ROCE_C_MCAST_OPCODE, off, 1, p->opcode, 0);
	} else if (qp != ROCE_MCAST_QPN) {
		add(s, ROCE_C_MCAST_QP, off + 5, 3, qp, ROCE_MCAST_QPN);
	}
}

static void check_xhdrs(const struct roce_pkt *p, struct sink *s)
{
	const uint8_t *h;
	if ((h = roce_pkt_hdr(p, ROCE_H_RDETH)) && roce_rdeth_resv(h))
		add(s, ROCE_C_RDETH_RESV, p->hdr_off[ROCE_H_RDETH], 1, roce_rdeth_resv(h), 0);
	if ((h = roce_pkt_hdr(p, ROCE_H_DETH)) && roce_deth_resv(h))
		add(s, ROCE_C_DETH_RESV, p->hdr_off[ROCE_H_DETH] + 4, 1, roce_deth_resv(h), 0);
	if ((h = roce_pkt_hdr(p, ROCE_H_XRCETH)) && roce_xrceth_resv(h))
		add(s, ROCE_C_XRCETH_RESV, p->hdr_off[ROCE_H_XRCETH], 1, roce_xrceth_resv(h), 0);
	if ((h = roce_pkt_hdr(p, ROCE_H_FETH)) && roce_feth_resv(h))
		add(s, ROCE_C_FETH_RESV, p->hdr_off[ROCE_H_FETH], 4, roce_feth_resv(h), 0);
	if ((h = roce_pkt_hdr(p, ROCE_H_RETH)) && roce_reth_dmalen(h) > (1u << 31))
		add(s, ROCE_C_DMALEN, p->hdr_off[ROCE_H_RETH] + 12, 4, roce_reth_dmalen(h), 1u << 31);
	/* ATOMIC WRITE is exactly 8 bytes (oA19-28): its RETH says so too. */
	if ((h = roce_pkt_hdr(p, ROCE_H_RETH)) && p->op->kind == ROCE_K_ATOMIC_WRITE &&
	    roce_reth_dmalen(h) != p->op->fixed_payload)
		add(s, ROCE_C_ATOMIC_WRITE_DMALEN, p->hdr_off[ROCE_H_RETH] + 12, 4, roce_reth_dmalen(h),
		    p->op->fixed_payload);
	if ((h = roce_pkt_hdr(p, ROCE_H_ATOMICETH)) && (roce_atomiceth_va(h) & 7))
		add(s, ROCE_C_ATOMIC_ALIGN, p->hdr_off[ROCE_H_ATOMICETH], 8, roce_atomiceth_va(h), 0);
	if ((h = roce_pkt_hdr(p, ROCE_H_CNPPAD))) {
		for (unsigned i = 0; i < ROCE_CNPPAD_LEN; i++) {
			if (h[i]) {
				add(s, ROCE_C_CNP_RESV, p->hdr_off[ROCE_H_CNPPAD], ROCE_CNPPAD_LEN, 0, 0);
				break;
			}
		}
	}

	if ((h = roce_pkt_hdr(p, ROCE_H_AETH))) {
		uint32_t off = p->hdr_off[ROCE_H_AETH];
		unsigned syn = roce_aeth_syndrome(h), type = roce_aeth_type(h), code = roce_aeth_value(h);
		if (roce_aeth_resv(h))
			add(s, ROCE_C_AETH_RESV, off, 1, syn, 0);
		else if (type == 2)
			add(s, ROCE_C_AETH_TYPE, off, 1, syn, 0);
		else if (type == 3 && code > 4)
			add(s, ROCE_C_AETH_NAK_CODE, off, 1, syn, 0);
		else if (type == 3 && code == 4 && p->op->transport != ROCE_T_RD)
			add(s, ROCE_C_AETH_RD_NAK, off, 1, syn, 0);
		if (type != 0 && (p->op->kind == ROCE_K_READ_RESP || p->op->kind == ROCE_K_ATOMIC_ACK))
			add(s, ROCE_C_AETH_NOT_ACK, off, 1, syn, 0);
	}
}

/* A field of the MAD at p's payload, when the capture holds it;
 * *off and *len locate it in the parsed buffer. */
static bool cm_field(const struct roce_pkt *p, enum roce_mad_field f, uint64_t *v, uint32_t *off,
		     uint32_t *len)
{
	const struct roce_mad_field_info *fi = roce_mad_field_info(f);
	uint32_t end = roce_mad_hdr_base(fi->hdr) + fi->offset + fi->width;
	if (end > p->payload_len || (uint64_t)p->payload_off + end > p->caplen)
		return false;
	*off = p->payload_off + roce_mad_hdr_base(fi->hdr) + fi->offset;
	*len = fi->width;
	return roce_mad_get(p->buf + p->payload_off, f, v);
}

/* A CM MAD on QP1: RoCEv2 has no LIDs, so the REJ reasons and the APR
 * status that reject a port LID must never appear (A17.7). */
static void check_mad(const struct roce_pkt *p, struct sink *s)
{
	uint64_t cls, attr, v;
	uint32_t off, len;
	if (!roce_pkt_is_mad(p) || !cm_field(p, ROCE_MF_MAD_mgmt_class, &cls, &off, &len) ||
	    cls != ROCE_MAD_CLASS_CM || !cm_field(p, ROCE_MF_MAD_attr_id, &attr, &off, &len))
		return;
	if (attr == ROCE_CM_REJ && cm_field(p, ROCE_MF_CM_REJ_reason, &v, &off, &len) &&
	    (v == ROCE_CM_REJ_INVALID_LID || v == ROCE_CM_REJ_INVALID_ALT_LID))
		add(s, ROCE_C_CM_REJ_LID, off, len, v, 0);
	if (attr == ROCE_CM_APR && cm_field(p, ROCE_MF_CM_APR_status, &v, &off, &len) &&
	    v == ROCE_CM_APR_INVALID_LID)
		add(s, ROCE_C_CM_APR_LID, off, len, v, 0);
}

static bool is_pmtu(uint32_t n)
{
	return n == 256 || n == 512 || n == 1024 || n == 2048 || n == 4096;
}

/* An XRC READ response First or Middle an XRCETH makes 4 bytes longer
 * than the path MTU (pmtu, or any path MTU when 0). */
static bool xrc_read_resp_xrceth(const struct roce_pkt *p, unsigned pmtu)
{
	if (p->op->transport != ROCE_T_XRC || p->op->kind != ROCE_K_READ_RESP || p->payload_len < ROCE_XRCETH_LEN)
		return false;
	uint32_t rest = p->payload_len - ROCE_XRCETH_LEN;
	return pmtu ? rest == pmtu : is_pmtu(rest);
}

static void check_payload(const struct roce_pkt *p, const struct roce_check_opts *o, struct sink *s)
{
	const struct roce_opcode_info *op = p->op;
	uint32_t bth = p->hdr_off[ROCE_H_BTH];
	uint32_t data = p->payload_len + p->pad_len;

	if (!(op->flags & ROCE_OPF_PAYLOAD)) {
		if (op->transport == ROCE_T_XRC && (op->flags & ROCE_OPF_RESPONSE) && p->payload_len == ROCE_XRCETH_LEN)
			add(s, ROCE_C_XRC_RESP_XRCETH, p->payload_off, p->payload_len, p->payload_len, 0);
		else if (p->payload_len)
			add(s, op->kind == ROCE_K_FLUSH ? ROCE_C_FLUSH_PAYLOAD : ROCE_C_PAYLOAD_UNEXPECTED, p->payload_off,
			    p->payload_len, p->payload_len, 0);
		if (p->pad_len)
			add(s, ROCE_C_PAD_NO_PAYLOAD, bth + 1, 1, p->pad_len, 0);
		return;
	}
	bool first_or_middle = op->position == ROCE_POS_FIRST || op->position == ROCE_POS_MIDDLE;
	if (data % 4)
		add(s, ROCE_C_PAD_ALIGN, p->payload_off, data, data, 0);
	if (first_or_middle && p->pad_len)
		add(s, ROCE_C_PAD_NOT_LAST, bth + 1, 1, p->pad_len, 0);
	if (op->fixed_payload && p->payload_len != op->fixed_payload)
		add(s, ROCE_C_PAYLOAD_FIXED, p->payload_off, p->payload_len, p->payload_len,
		    op->fixed_payload);

	if (first_or_middle) {
		if (xrc_read_resp_xrceth(p, o->pmtu))
			add(s, ROCE_C_XRC_READ_RESP_XRCETH, p->payload_off, p->payload_len, p->payload_len,
			    p->payload_len - ROCE_XRCETH_LEN);
		else if (o->pmtu && p->payload_len != o->pmtu)
			add(s, ROCE_C_PAYLOAD_NOT_PMTU, p->payload_off, p->payload_len, p->payload_len,
			    o->pmtu);
		else if (!o->pmtu && !is_pmtu(p->payload_len))
			add(s, ROCE_C_PAYLOAD_BAD_MTU, p->payload_off, p->payload_len, p->payload_len, 0);
		return;
	}
	if (op->position == ROCE_POS_LAST && p->payload_len == 0)
		add(s, ROCE_C_LAST_EMPTY, bth, ROCE_BTH_LEN, 0, 0);
	uint32_t limit = o->pmtu ? o->pmtu : 4096;
	if (p->payload_len > limit)
		add(s, op->transport == ROCE_T_UD ? ROCE_C_UD_OVER_PMTU : ROCE_C_PAYLOAD_OVER_PMTU,
		    p->payload_off, p->payload_len, p->payload_len, limit);
}

size_t roce_check(const struct roce_pkt *p, const struct roce_check_opts *opts,
		  struct roce_finding *out, size_t max)
{
	static const struct roce_check_opts defaults = { 0, 0 };
	const struct roce_check_opts *o = opts ? opts : &defaults;
	struct sink s = { out, max, 0 };

	if (p->err != ROCE_OK)
		add(&s, p->err, p->err_off, 0, p->err_observed, p->err_expected);
	check_ip(p, o, &s);
	if (roce_pkt_has(p, ROCE_H_BTH)) {
		check_bth(p, &s);
		check_mcast(p, &s);
	}
	if (p->op && p->op->name)
		check_xhdrs(p, &s);
	if (p->err == ROCE_OK) {
		check_payload(p, o, &s);
		check_mad(p, &s);
	}
	/* The ICRC is checked whenever the packet holds it, even when a header
	 * after the BTH could not be parsed (roce_finding_context says then
	 * what a good or a bad one means). */
	uint32_t wire, computed;
	if ((o->flags & ROCE_CHK_ICRC) && roce_icrc_check(p, &wire, &computed) == ROCE_ICRC_BAD)
		add(&s, p->rocev1 ? ROCE_C_ICRC_V1 : ROCE_C_ICRC, p->icrc_off, ROCE_ICRC_LEN, __builtin_bswap32(wire),
		    __builtin_bswap32(computed));
	return s.n;
}

int roce_finding_context(const struct roce_pkt *p, const struct roce_finding *f, char *buf, size_t n)
{
	if (f->code == ROCE_C_ICRC || f->code == ROCE_C_ICRC_V1) {
		struct roce_icrc_diagnosis d = roce_icrc_diagnose(p);
		char text[640];
		roce_icrc_diagnosis_format(&d, text, sizeof text);
		return snprintf(buf, n, " (%s)", text);
	}
	struct roce_mcast_group g;
	if ((f->code == ROCE_C_MCAST_MAC4 || f->code == ROCE_C_MCAST_MAC6) && roce_pkt_mcast_group(p, &g) &&
	    roce_pkt_eth_dst(p)) {
		char group[48], want[18], have[18];
		roce_mcast_group_format(&g, group, sizeof group);
		roce_mac_format(g.mac, want, sizeof want);
		roce_mac_format(roce_pkt_eth_dst(p), have, sizeof have);
		return snprintf(buf, n, " (it goes to %s; the group %s maps to %s)", have, group, want);
	}
	if (roce_code_is_parse_error(f->code) && f->code == p->err) {
		switch (roce_icrc_check(p, NULL, NULL)) {
		case ROCE_ICRC_GOOD:
			return snprintf(buf, n, " (its ICRC is good: the sender built the packet this way)");
		case ROCE_ICRC_BAD:
			if (roce_icrc_diagnose(p).mistakes)
				return snprintf(buf, n, " (its ICRC is bad as a known implementation mistake makes it: "
							"the sender built the packet this way)");
			return snprintf(buf, n, " (its ICRC is bad: the packet was damaged on the way)");
		case ROCE_ICRC_UNVERIFIED:
			break;
		}
	}
	return snprintf(buf, n, "%s", "");
}
