/*
 * The opcode table: for every BTH opcode, what it is and which headers it
 * carries. The parser, the builder, the checks and the plugin all read it;
 * nothing else in the project knows which headers an opcode has.
 */
#ifndef ROCE_OPCODE_H
#define ROCE_OPCODE_H

#include <stdbool.h>
#include <stdint.h>

#include "roce/hdr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* BTH opcode bits 7:5. */
enum roce_transport {
	ROCE_T_RC = 0,
	ROCE_T_UC = 1,
	ROCE_T_RD = 2,
	ROCE_T_UD = 3,
	ROCE_T_CNP = 4,
	ROCE_T_XRC = 5,
	ROCE_T_RESERVED = 6,
	ROCE_T_VENDOR = 7,
	/* Not a value of bits 7:5: NVIDIA's Dynamically Connected transport,
	 * which uses RD's bits (dcopcodes.def, ROCE_PARSE_RD_AS_DC). */
	ROCE_T_DC = 8,
};

enum roce_op_kind {
	ROCE_K_NONE = 0, /* undefined opcode */
	ROCE_K_SEND,
	ROCE_K_WRITE,
	ROCE_K_READ_REQ,
	ROCE_K_READ_RESP,
	ROCE_K_ACK,
	ROCE_K_ATOMIC_ACK,
	ROCE_K_CMP_SWAP,
	ROCE_K_FETCH_ADD,
	ROCE_K_RESYNC,
	ROCE_K_FLUSH,
	ROCE_K_ATOMIC_WRITE,
	ROCE_K_CNP,
	ROCE_K_DC_CONNECT, /* NVIDIA DC's Connect (dcopcodes.def) */
};

/* Position of a packet within its message. */
enum roce_position {
	ROCE_POS_NONE = 0,
	ROCE_POS_FIRST,
	ROCE_POS_MIDDLE,
	ROCE_POS_LAST,
	ROCE_POS_ONLY,
};

/* Every defined opcode by name, from opcodes.def: ROCE_OP_RC_SEND_FIRST,
 * ROCE_OP_UD_SEND_ONLY, ROCE_OP_RC_ACK, ROCE_OP_CNP (A17 Figure 6), ... */
enum roce_opcode_id {
#define ROCE_OPCODE(ID, code, ...) ROCE_OP_##ID = (code),
#include "roce/opcodes.def"
#undef ROCE_OPCODE
};

/* The opcodes of NVIDIA DC by name, from dcopcodes.def: ROCE_OP_DC_SEND_FIRST
 * (0x40, the code of RD SEND First), ..., ROCE_OP_DC_CONNECT (0x55). */
enum roce_dc_opcode_id {
#define ROCE_DC_OPCODE(ID, code, ...) ROCE_OP_DC_##ID = (code),
#include "roce/dcopcodes.def"
#undef ROCE_DC_OPCODE
};

#define ROCE_OPF_REQUEST 0x01u  /* sent by a requester */
#define ROCE_OPF_RESPONSE 0x02u /* sent by a responder */
#define ROCE_OPF_PAYLOAD 0x04u  /* may carry payload */
#define ROCE_OPF_IMM 0x08u      /* carries immediate data */
#define ROCE_OPF_INV 0x10u      /* carries an rkey to invalidate */

struct roce_opcode_info {
	const char *name; /* "RC SEND First"; NULL for an undefined opcode */
	enum roce_transport transport;
	enum roce_op_kind kind;
	enum roce_position position;
	uint8_t flags;     /* ROCE_OPF_* */
	uint16_t xhdrs;    /* ROCE_XHDR_BIT() set of extended headers, wire order */
	uint8_t xhdr_len;  /* their total size in bytes */
	/* Fixed payload size when the opcode defines one (ATOMIC WRITE: 8),
	 * otherwise 0. */
	uint8_t fixed_payload;
};

/* Never NULL; ->name is NULL when the opcode is not defined. */
const struct roce_opcode_info *roce_opcode(uint8_t opcode);

/* What an opcode is when the RD range is taken as NVIDIA DC
 * (dcopcodes.def): for 0x40-0x5F the DC row (->name NULL when DC has no
 * such opcode; 0x55 is DC Connect only with the BTH's SE bit clear), for
 * every other opcode the same as roce_opcode(). Never NULL. */
const struct roce_opcode_info *roce_opcode_dc(uint8_t opcode, bool se);

static inline bool roce_opcode_in_rd_range(uint8_t opcode)
{
	return (opcode >> 5) == ROCE_T_RD;
}

static inline bool roce_opcode_defined(uint8_t opcode)
{
	return roce_opcode(opcode)->name != NULL;
}

static inline enum roce_transport roce_opcode_transport(uint8_t opcode)
{
	return (enum roce_transport)(opcode >> 5);
}

/* The opcode of the same operation (bits 4:0) in transport t. */
static inline uint8_t roce_opcode_with_transport(uint8_t opcode, enum roce_transport t)
{
	return (uint8_t)((unsigned)t << 5 | (opcode & 0x1Fu));
}

/* Looks an opcode up by name, ignoring case and treating spaces, '-' and
 * '_' alike ("RC SEND Only", "rc-send-only"), or as a number ("0x04", "4").
 * Returns -1 when nothing matches. */
int roce_opcode_by_name(const char *name);

const char *roce_transport_name(enum roce_transport t);
const char *roce_op_kind_name(enum roce_op_kind k);
const char *roce_position_name(enum roce_position p);

/* Offset of extended header h from the end of the BTH for this opcode's
 * header set, or -1 when the set does not contain h. */
int roce_xhdr_offset(uint16_t xhdrs, enum roce_hdr h);
/* Total size of a set of extended headers. */
unsigned roce_xhdr_set_len(uint16_t xhdrs);

#ifdef __cplusplus
}
#endif

#endif
