/*
 * The opcode table, from opcodes.def (IBA Vol 1 §9.2 Table 35, Annex A17
 * Figure 6, and the IBTA 1.5 FLUSH / ATOMIC WRITE additions).
 */
#include "roce/opcode.h"

#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>

#define XH(h) ROCE_XHDR_BIT(ROCE_H_##h)

/* Total size of a header set, as a constant expression for the table. */
#define XLEN(s)                                                                           \
	((((s) & XH(DCETH)) ? ROCE_DCETH_LEN : 0) + (((s) & XH(DCCETH)) ? ROCE_DCCETH_LEN : 0) + \
	 (((s) & XH(RDETH)) ? ROCE_RDETH_LEN : 0) + (((s) & XH(DETH)) ? ROCE_DETH_LEN : 0) + \
	 (((s) & XH(XRCETH)) ? ROCE_XRCETH_LEN : 0) + (((s) & XH(FETH)) ? ROCE_FETH_LEN : 0) + \
	 (((s) & XH(RETH)) ? ROCE_RETH_LEN : 0) +                                             \
	 (((s) & XH(ATOMICETH)) ? ROCE_ATOMICETH_LEN : 0) +                                   \
	 (((s) & XH(AETH)) ? ROCE_AETH_LEN : 0) +                                             \
	 (((s) & XH(ATOMICACKETH)) ? ROCE_ATOMICACKETH_LEN : 0) +                             \
	 (((s) & XH(IMMDT)) ? ROCE_IMMDT_LEN : 0) + (((s) & XH(IETH)) ? ROCE_IETH_LEN : 0) +  \
	 (((s) & XH(CNPPAD)) ? ROCE_CNPPAD_LEN : 0))

#define REQ ROCE_OPF_REQUEST
#define RSP ROCE_OPF_RESPONSE
#define PAY ROCE_OPF_PAYLOAD
#define IMM ROCE_OPF_IMM
#define INV ROCE_OPF_INV

static const struct roce_opcode_info opcode_table[256] = {
#define ROCE_OPCODE(ID, code, T, kind, pos, flags, hdrs, label, fixed)                             \
	[code] = { label, ROCE_T_##T, ROCE_K_##kind, ROCE_POS_##pos, (flags), (uint16_t)(hdrs), \
		   (uint8_t)XLEN(hdrs), (fixed) },
#include "roce/opcodes.def"
#undef ROCE_OPCODE
};

const struct roce_opcode_info *roce_opcode(uint8_t opcode)
{
	return &opcode_table[opcode];
}

/* The RD range as NVIDIA DC, indexed by opcode - 0x40. */
static const struct roce_opcode_info dc_table[32] = {
#define ROCE_DC_OPCODE(ID, code, kind, pos, flags, hdrs, label)                                   \
	[(code) - 0x40] = { label, ROCE_T_DC, ROCE_K_##kind, ROCE_POS_##pos, (flags), (uint16_t)(hdrs), \
			    (uint8_t)XLEN(hdrs), 0 },
#include "roce/dcopcodes.def"
#undef ROCE_DC_OPCODE
};

const struct roce_opcode_info *roce_opcode_dc(uint8_t opcode, bool se)
{
	static const struct roce_opcode_info none; /* not a DC opcode */
	if (!roce_opcode_in_rd_range(opcode))
		return roce_opcode(opcode);
	if (opcode == ROCE_OP_DC_CONNECT && se)
		return &none;
	return &dc_table[opcode - 0x40];
}

const char *roce_transport_name(enum roce_transport t)
{
	static const char *const names[] = { "RC", "UC", "RD", "UD", "CNP", "XRC", "reserved", "vendor", "DC" };
	return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

const char *roce_op_kind_name(enum roce_op_kind k)
{
	static const char *const names[] = {
		[ROCE_K_NONE] = "undefined",	 [ROCE_K_SEND] = "SEND",
		[ROCE_K_WRITE] = "RDMA WRITE",	 [ROCE_K_READ_REQ] = "RDMA READ Request",
		[ROCE_K_READ_RESP] = "RDMA READ Response", [ROCE_K_ACK] = "Acknowledge",
		[ROCE_K_ATOMIC_ACK] = "Atomic Acknowledge", [ROCE_K_CMP_SWAP] = "CmpSwap",
		[ROCE_K_FETCH_ADD] = "FetchAdd", [ROCE_K_RESYNC] = "RESYNC",
		[ROCE_K_FLUSH] = "FLUSH",	 [ROCE_K_ATOMIC_WRITE] = "ATOMIC WRITE",
		[ROCE_K_CNP] = "CNP",		 [ROCE_K_DC_CONNECT] = "DC Connect",
	};
	return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

const char *roce_position_name(enum roce_position p)
{
	static const char *const names[] = { "none", "First", "Middle", "Last", "Only" };
	return (unsigned)p < 5 ? names[p] : "?";
}

unsigned roce_xhdr_set_len(uint16_t xhdrs)
{
	unsigned len = 0;
	for (unsigned h = ROCE_H_FIRST_XHDR; h < ROCE_H_COUNT; h++)
		if (xhdrs & ROCE_XHDR_BIT(h))
			len += roce_hdr_info((enum roce_hdr)h)->size;
	return len;
}

int roce_xhdr_offset(uint16_t xhdrs, enum roce_hdr h)
{
	if (h < ROCE_H_FIRST_XHDR || h >= ROCE_H_COUNT || !(xhdrs & ROCE_XHDR_BIT(h)))
		return -1;
	/* Headers before h in wire order are exactly the lower bits. */
	return (int)roce_xhdr_set_len(xhdrs & (uint16_t)(ROCE_XHDR_BIT(h) - 1));
}

/* Next significant character of an opcode name: lower case, with the
 * separators ' ', '-' and '_' folded into one. */
static int name_char(const char **p)
{
	int c = (unsigned char)**p;
	if (!c)
		return 0;
	(*p)++;
	if (c == ' ' || c == '-' || c == '_') {
		while (**p == ' ' || **p == '-' || **p == '_')
			(*p)++;
		return ' ';
	}
	return tolower(c);
}

int roce_opcode_by_name(const char *name)
{
	if (isdigit((unsigned char)name[0])) {
		char *end;
		unsigned long v = strtoul(name, &end, 0);
		return *end || v > 255 ? -1 : (int)v;
	}
	for (unsigned op = 0; op < 256; op++) {
		const char *a = opcode_table[op].name, *b = name;
		if (!a)
			continue;
		int ca, cb;
		do {
			ca = name_char(&a);
			cb = name_char(&b);
		} while (ca && ca == cb);
		if (!ca && !cb)
			return (int)op;
	}
	return -1;
}
