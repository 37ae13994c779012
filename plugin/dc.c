/*
 * NVIDIA's Dynamically Connected transport (DC) uses the RD opcodes
 * (0x40-0x5F) with its own extended header. A capture cannot say which of
 * the two it holds, so a preference does: auto (the default: per packet,
 * DC when its RD reading looks like DC, libroce's ROCE_PARSE_RD_AUTO; no
 * NIC ever shipped RD, and DC's access key then sits in RD's reserved
 * byte), RD (IBA's Reliable Datagram) or DC (ROCE_PARSE_RD_AS_DC,
 * dcopcodes.def). Taken as RD, a frame that looks like DC (libroce's
 * roce_pkt_looks_like_dc) gets an expert info naming the preference next
 * to its RDETH warning.
 */
#include "dc.h"

enum { RD_RANGE_AUTO, RD_RANGE_RD, RD_RANGE_DC };

static const enum_val_t rd_range_vals[] = {
	{ "auto", "Auto (DC where a packet read as RD looks like DC)", RD_RANGE_AUTO },
	{ "rd", "RD (IBA Reliable Datagram)", RD_RANGE_RD },
	{ "dc", "DC (NVIDIA Dynamically Connected)", RD_RANGE_DC },
	{ NULL, NULL, 0 },
};

static int rd_range = RD_RANGE_AUTO;

static int hf_opcode = -1;
static int hf_dct = -1;
static int hf_connect = -1;
static expert_field ei_looks_like_dc = EI_INIT;

unsigned rocev2_dc_parse_flags(void)
{
	return rd_range == RD_RANGE_DC ? ROCE_PARSE_RD_AS_DC : rd_range == RD_RANGE_AUTO ? ROCE_PARSE_RD_AUTO : 0;
}

/* The DC opcodes' names, from libroce's DC rows (0x55 as DC Connect). */
static const value_string *dc_opcode_names(void)
{
	value_string *vs = g_new0(value_string, 33);
	unsigned n = 0;
	for (unsigned op = 0; op < 256; op++) {
		const struct roce_opcode_info *dc = roce_opcode_dc((uint8_t)op, false);
		if (dc->transport == ROCE_T_DC && dc->name)
			vs[n++] = (value_string){ op, dc->name };
	}
	return vs;
}

void rocev2_register_dc(int proto, module_t *m)
{
	static hf_register_info hf[] = {
		{ &hf_opcode, { "DC Opcode", ROCEV2_FILTER ".dc.opcode", FT_UINT8, BASE_HEX, NULL, 0,
				"The BTH opcode as NVIDIA DC's (the BTH's own field names RD's)", HFILL } },
		{ &hf_dct, { "DCT Number", ROCEV2_FILTER ".dc.dct", FT_UINT24, BASE_HEX, NULL, 0,
			     "The DC target a DC request goes to: its BTH Destination QP", HFILL } },
		{ &hf_connect, { "DC Connect", ROCEV2_FILTER ".dc.connect", FT_BOOLEAN, BASE_NONE, NULL, 0,
				 "A DC Connect packet (opcode 0x55 with SE clear): the DCETH, then the DCCETH",
				 HFILL } },
	};
	static ei_register_info ei[] = {
		{ &ei_looks_like_dc,
		  { ROCEV2_FILTER ".dc.looks_like_dc", PI_PROTOCOL, PI_NOTE,
		    "Looks like NVIDIA DC, not RD (RDETH reserved byte set, parses as DC): if the capture holds "
		    "DC, set Edit > Preferences > Protocols > RoCEv2 > RD-range opcodes to Auto or DC "
		    "(rocev2.rd_range:auto, the default, or rocev2.rd_range:dc)",
		    EXPFILL } },
	};
	hf[0].hfinfo.strings = VALS(dc_opcode_names());
	proto_register_field_array(proto, hf, array_length(hf));
	expert_register_field_array(expert_register_protocol(proto), ei, array_length(ei));
	prefs_register_enum_preference(m, "rd_range", "RD-range opcodes",
				       "What the opcodes 0x40-0x5F are: IBA's Reliable Datagram (RDETH, DETH, ...) "
				       "or NVIDIA's Dynamically Connected transport (an 8-byte DCETH with the DC "
				       "access key after the BTH, then RD's headers; DC Connect on 0x55), the "
				       "layout Wireshark's InfiniBand dissector decodes for this range. Auto decides "
				       "per packet: DC when, read as RD, its RDETH reserved byte is set and it "
				       "parses as DC with a clean RDETH (a DC key that begins with a zero byte "
				       "then reads as RD: choose DC for such a capture)",
				       &rd_range, rd_range_vals, false);
}

void rocev2_dc_tree(proto_tree *rt, packet_info *pinfo, tvbuff_t *tvb, const struct roce_pkt *t, int shift)
{
	const uint8_t *bth = roce_pkt_hdr(t, ROCE_H_BTH);
	if (!bth || !t->op)
		return;
	if (t->op->transport == ROCE_T_DC) {
		if (!rt)
			return;
		int off = (int)t->hdr_off[ROCE_H_BTH] - shift;
		const struct roce_field_info *qp = roce_field_info(ROCE_F_BTH_destqp);
		const struct roce_field_info *opc = roce_field_info(ROCE_F_BTH_opcode);
		proto_item_set_generated(proto_tree_add_uint(rt, hf_opcode, tvb, off + opc->offset, opc->width, t->opcode));
		if (t->op->flags & ROCE_OPF_REQUEST)
			proto_item_set_generated(proto_tree_add_uint(rt, hf_dct, tvb, off + qp->offset, qp->width,
								     (uint32_t)roce_bth_destqp(bth)));
		proto_item_set_generated(proto_tree_add_boolean(rt, hf_connect, tvb, off, 1,
								t->op->kind == ROCE_K_DC_CONNECT));
		return;
	}
	if (roce_pkt_looks_like_dc(t)) {
		int off = (int)t->hdr_off[ROCE_H_RDETH] - shift;
		proto_tree_add_expert(rt, pinfo, &ei_looks_like_dc, tvb, off, 1);
	}
}
