/*
 * Wireshark fields derived from libroce's header descriptors (fields.def)
 * and opcode table: no header layout is written down in the plugin. Each
 * libroce header from the GRH (RoCE v1's) on becomes "rocev2.<hdr>" with a subtree,
 * and each of its fields "rocev2.<hdr>.<field>".
 */
#include "rocev2.h"

#include <epan/tfs.h>

static int hf_hdr[ROCE_H_COUNT];
static int ett_hdr[ROCE_H_COUNT];
static int hf_field[ROCE_F_COUNT];
static header_field_info *hfi_hdr[ROCE_H_COUNT];
static header_field_info *hfi_field[ROCE_F_COUNT];

int rocev2_hf(enum roce_field f)
{
	return (unsigned)f < ROCE_F_COUNT ? hf_field[f] : -1;
}

/* "ACK (no credit information)", "NAK PSN Sequence Error", ... */
static void format_syndrome(char *buf, uint32_t syndrome)
{
	char text[64];
	roce_aeth_describe((uint8_t)syndrome, text, sizeof text);
	snprintf(buf, ITEM_LABEL_LENGTH, "%s (0x%02x)", text, syndrome);
}

static const value_string *opcode_names(void)
{
	unsigned n = 0;
	for (unsigned op = 0; op < 256; op++)
		n += roce_opcode_defined((uint8_t)op);
	value_string *vs = g_new0(value_string, n + 1);
	n = 0;
	for (unsigned op = 0; op < 256; op++) {
		if (roce_opcode_defined((uint8_t)op))
			vs[n++] = (value_string){ op, roce_opcode((uint8_t)op)->name };
	}
	return vs;
}

static enum ftenum uint_type(unsigned width)
{
	switch (width) {
	case 1: return FT_UINT8;
	case 2: return FT_UINT16;
	case 3: return FT_UINT24;
	case 4: return FT_UINT32;
	default: return FT_UINT64;
	}
}

static void describe_field(hf_register_info *r, int *id, const struct roce_field_info *fi,
			   const value_string *opnames)
{
	const struct roce_hdr_info *hi = roce_hdr_info(fi->hdr);
	uint64_t full = fi->width >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * fi->width)) - 1;
	header_field_info h = { 0 };
	h.name = fi->label;
	h.abbrev = g_strdup_printf(ROCEV2_FILTER ".%s.%s", hi->abbrev, fi->abbrev);
	h.bitmask = fi->mask == full ? 0 : fi->mask;
	h.blurb = g_strdup_printf("%s: %s", hi->name, fi->label);
	switch (fi->display) {
	case ROCE_DISP_FLAG:
		h.type = FT_BOOLEAN;
		h.display = 8 * fi->width;
		h.strings = &tfs_set_notset;
		break;
	case ROCE_DISP_IPV4:
		h.type = FT_IPv4;
		h.display = BASE_NONE;
		break;
	case ROCE_DISP_IPV6:
		h.type = FT_IPv6;
		h.display = BASE_NONE;
		break;
	case ROCE_DISP_BYTES:
		h.type = FT_BYTES;
		h.display = BASE_NONE;
		break;
	case ROCE_DISP_HEX:
	case ROCE_DISP_DEC:
		h.type = uint_type(fi->width);
		h.display = fi->display == ROCE_DISP_HEX ? BASE_HEX : BASE_DEC;
		break;
	}
	if (fi->hdr == ROCE_H_BTH && !strcmp(fi->abbrev, "opcode")) {
		h.display = BASE_HEX;
		h.strings = VALS(opnames);
	} else if (fi->hdr == ROCE_H_AETH && !strcmp(fi->abbrev, "syndrome")) {
		h.display = BASE_CUSTOM;
		h.strings = CF_FUNC(format_syndrome);
	}
	r->p_id = id;
	r->hfinfo = h;
	HFILL_INIT(*r);
}

void rocev2_register_header_fields(int proto)
{
	const value_string *opnames = opcode_names();
	unsigned nhdr = ROCE_H_COUNT - ROCE_H_GRH;
	enum roce_field first_field, last_first;
	unsigned count;
	roce_hdr_fields(ROCE_H_GRH, &first_field, &count);
	roce_hdr_fields(ROCE_H_COUNT - 1, &last_first, &count);
	unsigned nfield = (unsigned)(last_first + count - first_field);

	hf_register_info *hf = g_new0(hf_register_info, nhdr + nfield);
	int **ett = g_new0(int *, nhdr);
	unsigned k = 0;
	for (unsigned h = ROCE_H_GRH; h < ROCE_H_COUNT; h++) {
		const struct roce_hdr_info *hi = roce_hdr_info((enum roce_hdr)h);
		header_field_info hh = { 0 };
		hh.name = hi->name;
		hh.abbrev = g_strdup_printf(ROCEV2_FILTER ".%s", hi->abbrev);
		hh.type = FT_NONE;
		hh.display = BASE_NONE;
		hf[k].p_id = &hf_hdr[h];
		hf[k].hfinfo = hh;
		HFILL_INIT(hf[k]);
		k++;
		ett_hdr[h] = -1;
		ett[h - ROCE_H_GRH] = &ett_hdr[h];

		enum roce_field f0;
		unsigned n;
		roce_hdr_fields((enum roce_hdr)h, &f0, &n);
		for (unsigned i = 0; i < n; i++) {
			enum roce_field f = (enum roce_field)(f0 + i);
			hf_field[f] = -1;
			describe_field(&hf[k++], &hf_field[f], roce_field_info(f), opnames);
		}
	}
	proto_register_field_array(proto, hf, (int)k);
	proto_register_subtree_array(ett, (int)nhdr);
	for (unsigned h = ROCE_H_GRH; h < ROCE_H_COUNT; h++)
		hfi_hdr[h] = proto_registrar_get_nth((guint)hf_hdr[h]);
	for (unsigned f = first_field; f < first_field + nfield; f++)
		hfi_field[f] = proto_registrar_get_nth((guint)hf_field[f]);
}

proto_item *rocev2_add_header(proto_tree *tree, tvbuff_t *tvb, int off, enum roce_hdr h)
{
	const struct roce_hdr_info *hi = roce_hdr_info(h);
	if (!tree)
		return NULL;
	/* In a tree that only serves a filter, only the fields it names. */
	proto_item *ti = NULL;
	proto_tree *sub = tree;
	if (rocev2_item_kept(tree, hfi_hdr[h])) {
		ti = proto_tree_add_item(tree, hf_hdr[h], tvb, off, hi->size, ENC_NA);
		sub = proto_item_add_subtree(ti, ett_hdr[h]);
	}
	enum roce_field f0;
	unsigned n;
	roce_hdr_fields(h, &f0, &n);
	for (unsigned i = 0; i < n; i++) {
		if (!rocev2_item_kept(sub, hfi_field[f0 + i]))
			continue;
		const struct roce_field_info *fi = roce_field_info((enum roce_field)(f0 + i));
		bool bytes = fi->display == ROCE_DISP_BYTES || fi->display == ROCE_DISP_IPV4 ||
			     fi->display == ROCE_DISP_IPV6;
		proto_tree_add_item(sub, hf_field[f0 + i], tvb, off + fi->offset, fi->width,
				    bytes ? ENC_NA : ENC_BIG_ENDIAN);
	}
	return ti;
}
