/*
 * The opcode table (IBA Vol 1 §9.2 Table 35, Annex A17 Figure 6, and the
 * IBTA 1.5 FLUSH / ATOMIC WRITE additions). Each transport gets the rows
 * it defines; the per-transport extra headers (RD's RDETH+DETH, UD's DETH,
 * XRC's XRCETH on requests) are added here and nowhere else.
 */
#include "roce/opcode.h"

#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>

#define XH(h) ROCE_XHDR_BIT(ROCE_H_##h)

/* Total size of a header set, as a constant expression for the table. */
#define XLEN(s)                                                                           \
	((((s) & XH(RDETH)) ? ROCE_RDETH_LEN : 0) + (((s) & XH(DETH)) ? ROCE_DETH_LEN : 0) + \
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

#define OP(code, T, kind, pos, flags, hdrs, label, fixed)                                  \
	[code] = { label, ROCE_T_##T, ROCE_K_##kind, ROCE_POS_##pos, (flags), (uint16_t)(hdrs), \
		   (uint8_t)XLEN(hdrs), (fixed) }

/* SEND and RDMA WRITE: every connected transport. rq = the transport's
 * request headers. */
#define SEND_WRITE_OPS(T, base, rq)                                                                    \
	OP(base + 0x00, T, SEND, FIRST, REQ | PAY, rq, #T " SEND First", 0),                           \
	OP(base + 0x01, T, SEND, MIDDLE, REQ | PAY, rq, #T " SEND Middle", 0),                         \
	OP(base + 0x02, T, SEND, LAST, REQ | PAY, rq, #T " SEND Last", 0),                             \
	OP(base + 0x03, T, SEND, LAST, REQ | PAY | IMM, (rq) | XH(IMMDT),                              \
	   #T " SEND Last with Immediate", 0),                                                         \
	OP(base + 0x04, T, SEND, ONLY, REQ | PAY, rq, #T " SEND Only", 0),                             \
	OP(base + 0x05, T, SEND, ONLY, REQ | PAY | IMM, (rq) | XH(IMMDT),                              \
	   #T " SEND Only with Immediate", 0),                                                         \
	OP(base + 0x06, T, WRITE, FIRST, REQ | PAY, (rq) | XH(RETH), #T " RDMA WRITE First", 0),       \
	OP(base + 0x07, T, WRITE, MIDDLE, REQ | PAY, rq, #T " RDMA WRITE Middle", 0),                  \
	OP(base + 0x08, T, WRITE, LAST, REQ | PAY, rq, #T " RDMA WRITE Last", 0),                      \
	OP(base + 0x09, T, WRITE, LAST, REQ | PAY | IMM, (rq) | XH(IMMDT),                             \
	   #T " RDMA WRITE Last with Immediate", 0),                                                   \
	OP(base + 0x0A, T, WRITE, ONLY, REQ | PAY, (rq) | XH(RETH), #T " RDMA WRITE Only", 0),         \
	OP(base + 0x0B, T, WRITE, ONLY, REQ | PAY | IMM, (rq) | XH(RETH) | XH(IMMDT),                  \
	   #T " RDMA WRITE Only with Immediate", 0)

/* READ, ACK and atomics: the reliable transports. rs = response headers. */
#define RELIABLE_OPS(T, base, rq, rs)                                                                  \
	OP(base + 0x0C, T, READ_REQ, ONLY, REQ, (rq) | XH(RETH), #T " RDMA READ Request", 0),          \
	OP(base + 0x0D, T, READ_RESP, FIRST, RSP | PAY, (rs) | XH(AETH),                               \
	   #T " RDMA READ Response First", 0),                                                         \
	OP(base + 0x0E, T, READ_RESP, MIDDLE, RSP | PAY, rs, #T " RDMA READ Response Middle", 0),      \
	OP(base + 0x0F, T, READ_RESP, LAST, RSP | PAY, (rs) | XH(AETH),                                \
	   #T " RDMA READ Response Last", 0),                                                          \
	OP(base + 0x10, T, READ_RESP, ONLY, RSP | PAY, (rs) | XH(AETH),                                \
	   #T " RDMA READ Response Only", 0),                                                          \
	OP(base + 0x11, T, ACK, ONLY, RSP, (rs) | XH(AETH), #T " Acknowledge", 0),                     \
	OP(base + 0x12, T, ATOMIC_ACK, ONLY, RSP, (rs) | XH(AETH) | XH(ATOMICACKETH),                  \
	   #T " Atomic Acknowledge", 0),                                                               \
	OP(base + 0x13, T, CMP_SWAP, ONLY, REQ, (rq) | XH(ATOMICETH), #T " CmpSwap", 0),               \
	OP(base + 0x14, T, FETCH_ADD, ONLY, REQ, (rq) | XH(ATOMICETH), #T " FetchAdd", 0)

#define SEND_INV_OPS(T, base, rq)                                                                      \
	OP(base + 0x16, T, SEND, LAST, REQ | PAY | INV, (rq) | XH(IETH),                               \
	   #T " SEND Last with Invalidate", 0),                                                        \
	OP(base + 0x17, T, SEND, ONLY, REQ | PAY | INV, (rq) | XH(IETH),                               \
	   #T " SEND Only with Invalidate", 0)

#define FLUSH_OP(T, base, rq) \
	OP(base + 0x1C, T, FLUSH, ONLY, REQ, (rq) | XH(FETH) | XH(RETH), #T " FLUSH", 0)

#define RD_RQ (XH(RDETH) | XH(DETH))
#define RD_RS XH(RDETH)

static const struct roce_opcode_info opcode_table[256] = {
	SEND_WRITE_OPS(RC, 0x00, 0),
	RELIABLE_OPS(RC, 0x00, 0, 0),
	SEND_INV_OPS(RC, 0x00, 0),
	FLUSH_OP(RC, 0x00, 0),
	OP(0x1D, RC, ATOMIC_WRITE, ONLY, REQ | PAY, XH(RETH), "RC ATOMIC WRITE", 8),

	SEND_WRITE_OPS(UC, 0x20, 0),

	SEND_WRITE_OPS(RD, 0x40, RD_RQ),
	RELIABLE_OPS(RD, 0x40, RD_RQ, RD_RS),
	OP(0x55, RD, RESYNC, ONLY, REQ, RD_RQ, "RD RESYNC", 0),
	FLUSH_OP(RD, 0x40, RD_RQ),

	OP(0x64, UD, SEND, ONLY, REQ | PAY, XH(DETH), "UD SEND Only", 0),
	OP(0x65, UD, SEND, ONLY, REQ | PAY | IMM, XH(DETH) | XH(IMMDT), "UD SEND Only with Immediate",
	   0),

	OP(ROCE_OPCODE_CNP, CNP, CNP, ONLY, 0, XH(CNPPAD), "CNP", 0),

	SEND_WRITE_OPS(XRC, 0xA0, XH(XRCETH)),
	RELIABLE_OPS(XRC, 0xA0, XH(XRCETH), 0),
	SEND_INV_OPS(XRC, 0xA0, XH(XRCETH)),
};

const struct roce_opcode_info *roce_opcode(uint8_t opcode)
{
	return &opcode_table[opcode];
}

const char *roce_transport_name(enum roce_transport t)
{
	static const char *const names[] = { "RC", "UC", "RD", "UD", "CNP", "XRC", "reserved", "vendor" };
	return (unsigned)t < 8 ? names[t] : "?";
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
		[ROCE_K_CNP] = "CNP",
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
