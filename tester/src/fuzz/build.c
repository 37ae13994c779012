/*
 * A step as frames: each packet built by libroce from the tester QP's
 * addressing (the same a case file's QP has), its symbolic fields
 * resolved for that QP, then its ICRC spoilt or the frame cut where the
 * step says so. No header layout is known here: fields are set by name
 * through roce_desc_set, the ICRC found by the parser.
 */
#include "fz.h"

#include <string.h>

#include "text.h"

uint64_t fz_set_value(const struct fz *z, const struct fz_qp *q, const struct fz_set *s)
{
	const struct fz_region *r = s->region >= 0 && (unsigned)s->region < z->n_reg ? &z->reg[s->region] : NULL;
	switch ((enum fz_val)s->kind) {
	case FZ_V_ADDR:
		return (r ? r->addr : 0) + s->v;
	case FZ_V_RKEY:
		return (r ? r->rkey : 0) ^ s->v;
	case FZ_V_QKEY:
		return q->qkey ^ s->v;
	case FZ_V_SRQN:
		return z->xsrqn + s->v;
	case FZ_V_TQPN:
		return q->tqpn + s->v;
	case FZ_V_LIT:
	default:
		return s->v;
	}
}

bool fz_pkt_field(const struct fz_pkt *p, enum roce_field f, const struct fz_set **out)
{
	for (unsigned i = p->nset; i-- > 0;) {
		if (p->set[i].field == f) {
			if (out)
				*out = &p->set[i];
			return true;
		}
	}
	return false;
}

void fz_pkt_unset(struct fz_pkt *p, unsigned i)
{
	if (i >= p->nset)
		return;
	memmove(p->set + i, p->set + i + 1, (p->nset - i - 1) * sizeof *p->set);
	p->nset--;
}

static uint64_t field_or(const struct fz *z, const struct fz_qp *q, const struct fz_pkt *p, enum roce_field f, uint64_t def)
{
	const struct fz_set *s;
	return fz_pkt_field(p, f, &s) ? fz_set_value(z, q, s) : def;
}

uint32_t fz_pkt_span(const struct fz *z, const struct fz_qp *q, const struct fz_pkt *p)
{
	const struct roce_opcode_info *oi = roce_opcode(p->opcode);
	if (!oi->name || oi->kind != ROCE_K_READ_REQ)
		return 1;
	uint64_t len = field_or(z, q, p, ROCE_F_RETH_dmalen, 0);
	uint32_t n = roce_packets_for(len, q->pmtu);
	return n > (1u << 20) ? 1u << 20 : n;
}

bool fz_pkt_imm(const struct fz *z, const struct fz_qp *q, const struct fz_pkt *p, uint32_t *imm)
{
	const struct roce_opcode_info *oi = roce_opcode(p->opcode);
	if (!oi->name || !(oi->flags & ROCE_OPF_IMM))
		return false;
	*imm = (uint32_t)field_or(z, q, p, ROCE_F_IMMDT_imm, 0);
	return true;
}

long fz_build(const struct fz *z, const struct fz_qp *q, const struct fz_step *s, unsigned i, uint32_t psn,
	      uint8_t *frame, size_t cap)
{
	const struct fz_pkt *k = &s->pkt[i];
	const struct roce_opcode_info *oi = roce_opcode(k->opcode);
	struct roce_desc d;
	roce_endpoint_desc(&q->ep, &d, k->opcode, psn);
	/* What a well-formed packet of the QP carries, before the step's own
	 * fields: AckReq on an RC message's last packet, the DETH's Q_Key
	 * and source QP, the XRCETH's SRQ, an ACK syndrome. */
	bool last = oi->position == ROCE_POS_LAST || oi->position == ROCE_POS_ONLY;
	if ((oi->flags & ROCE_OPF_REQUEST) && (oi->transport == ROCE_T_RC || oi->transport == ROCE_T_XRC) && last)
		roce_bth_set_ackreq(d.bth, 1);
	uint8_t *h;
	if ((oi->xhdrs & ROCE_XHDR_BIT(ROCE_H_DETH)) && (h = roce_desc_hdr(&d, ROCE_H_DETH))) {
		roce_deth_set_qkey(h, q->qkey);
		roce_deth_set_srcqp(h, q->tqpn);
	}
	if ((oi->xhdrs & ROCE_XHDR_BIT(ROCE_H_XRCETH)) && (h = roce_desc_hdr(&d, ROCE_H_XRCETH)))
		roce_xrceth_set_srqn(h, z->xsrqn);
	if ((oi->xhdrs & ROCE_XHDR_BIT(ROCE_H_AETH)) && (h = roce_desc_hdr(&d, ROCE_H_AETH)))
		roce_aeth_set_syndrome(h, ROCE_AETH_ACK_UNLIMITED);
	uint8_t payload[PEER_FRAME_MAX];
	uint32_t len = k->len > sizeof payload ? (uint32_t)sizeof payload : k->len;
	for (uint32_t j = 0; j < len; j++)
		payload[j] = fz_payload_byte(k->fill, j);
	d.payload = payload;
	d.payload_len = len;
	for (unsigned j = 0; j < k->nset; j++) {
		enum roce_field f = (enum roce_field)k->set[j].field;
		const struct roce_field_info *fi = roce_field_info(f);
		if (!fi)
			continue;
		uint64_t v = fz_set_value(z, q, &k->set[j]);
		/* A field of a header the packet does not carry is left out. */
		roce_desc_set(&d, f, fi->mask ? v & (fi->mask >> fi->shift) : v);
	}
	long n = roce_build_frame(&d, frame, cap);
	if (n < 0)
		return -1;
	if (k->icrc != FZ_ICRC_GOOD) {
		struct roce_pkt p;
		roce_parse_frame(&p, frame, (size_t)n, (size_t)n, ROCE_PARSE_ANY_PORT);
		if (p.icrc_found) {
			for (unsigned b = 0; b < ROCE_ICRC_LEN; b++)
				frame[p.icrc_off + b] = k->icrc == FZ_ICRC_ZERO ? 0 : frame[p.icrc_off + b] ^ 0xFF;
		}
	}
	/* Cut short: its last cut bytes never leave (an Ethernet header stays). */
	if (k->cut)
		n = k->cut + ROCE_ETH_LEN < n ? n - k->cut : ROCE_ETH_LEN;
	return n;
}

static const char *region_name(const struct fz *z, int r)
{
	return r >= 0 && (unsigned)r < z->n_reg ? z->reg[r].name : "?";
}

void fz_step_text(const struct fz *z, const struct fz_step *s, GString *out)
{
	for (unsigned i = 0; i < s->npkt; i++) {
		const struct fz_pkt *k = &s->pkt[i];
		const struct roce_opcode_info *oi = roce_opcode(k->opcode);
		if (i)
			g_string_append(out, "; ");
		if (oi->name)
			g_string_append(out, oi->name);
		else
			g_string_append_printf(out, "opcode 0x%02x", k->opcode);
		g_string_append_printf(out, " psn%+d", k->psn);
		for (unsigned j = 0; j < k->nset; j++) {
			const struct fz_set *st = &k->set[j];
			const struct roce_field_info *fi = roce_field_info((enum roce_field)st->field);
			const struct roce_hdr_info *hi = fi ? roce_hdr_info(fi->hdr) : NULL;
			g_string_append_printf(out, " %s.%s=", hi ? hi->abbrev : "?", fi ? fi->abbrev : "?");
			switch ((enum fz_val)st->kind) {
			case FZ_V_ADDR:
				g_string_append_printf(out, "%s%+lld", region_name(z, st->region), (long long)st->v);
				break;
			case FZ_V_RKEY:
				g_string_append_printf(out, "%s.rkey", region_name(z, st->region));
				if (st->v)
					g_string_append_printf(out, "^0x%llx", (unsigned long long)st->v);
				break;
			case FZ_V_QKEY:
				g_string_append_printf(out, "qkey^0x%llx", (unsigned long long)st->v);
				break;
			case FZ_V_SRQN:
				g_string_append_printf(out, "srqn%+lld", (long long)st->v);
				break;
			case FZ_V_TQPN:
				g_string_append_printf(out, "tester_qpn%+lld", (long long)st->v);
				break;
			default:
				g_string_append_printf(out, "0x%llx", (unsigned long long)st->v);
			}
		}
		g_string_append_printf(out, " len=%u", k->len);
		if (k->icrc == FZ_ICRC_BAD)
			g_string_append(out, " icrc=bad");
		else if (k->icrc == FZ_ICRC_ZERO)
			g_string_append(out, " icrc=0");
		if (k->cut)
			g_string_append_printf(out, " short by %u bytes", k->cut);
	}
}
