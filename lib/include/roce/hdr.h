/*
 * Header layouts and field accessors, generated from fields.def.
 *
 * Every field gets a getter and a setter on a pointer to the start of its
 * header, in the style of the Linux rxe driver:
 *
 *     uint32_t psn = roce_bth_psn(bth);
 *     roce_bth_set_psn(bth, psn + 1);
 *
 * and a descriptor (roce_field_info) so that generic code (the builder's
 * "set any field", the Wireshark plugin's field list) can walk them by name.
 */
#ifndef ROCE_HDR_H
#define ROCE_HDR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Headers, in the order of fields.def. The extended transport headers
 * (DCETH .. CNPPAD) are listed in wire order. */
enum roce_hdr {
#define ROCE_HDR(ID, abbrev, name, size) ROCE_H_##ID,
#define ROCE_FIELD(...)
#define ROCE_BYTES(...)
#include "roce/fields.def"
#undef ROCE_HDR
#undef ROCE_FIELD
#undef ROCE_BYTES
	ROCE_H_COUNT
};

#define ROCE_H_FIRST_XHDR ROCE_H_DCETH
#define ROCE_XHDR_COUNT (ROCE_H_COUNT - ROCE_H_FIRST_XHDR)
/* Bit for an extended transport header in an opcode's header set. */
#define ROCE_XHDR_BIT(h) (1u << ((h) - ROCE_H_FIRST_XHDR))

/* Header sizes as compile-time constants: ROCE_BTH_LEN, ROCE_RETH_LEN, ... */
enum {
#define ROCE_HDR(ID, abbrev, name, size) ROCE_##ID##_LEN = (size),
#define ROCE_FIELD(...)
#define ROCE_BYTES(...)
#include "roce/fields.def"
#undef ROCE_HDR
#undef ROCE_FIELD
#undef ROCE_BYTES
};

enum roce_field {
#define ROCE_HDR(...)
#define ROCE_FIELD(H, h, name, label, off, width, mask, disp, flags) ROCE_F_##H##_##name,
#define ROCE_BYTES(H, h, name, label, off, width, disp) ROCE_F_##H##_##name,
#include "roce/fields.def"
#undef ROCE_HDR
#undef ROCE_FIELD
#undef ROCE_BYTES
	ROCE_F_COUNT
};

enum roce_display {
	ROCE_DISP_DEC,
	ROCE_DISP_HEX,
	ROCE_DISP_FLAG,
	ROCE_DISP_IPV4,
	ROCE_DISP_IPV6,
	ROCE_DISP_BYTES,
};

#define ROCE_FF_VIEW 1u /* overlays other fields; not needed to rebuild */

struct roce_hdr_info {
	const char *abbrev; /* "bth" */
	const char *name;   /* "Base Transport Header" */
	uint8_t size;
};

struct roce_field_info {
	enum roce_hdr hdr;
	const char *abbrev; /* "psn" */
	const char *label;  /* "Packet Sequence Number" */
	uint8_t offset;     /* within the header */
	uint8_t width;      /* bytes */
	uint64_t mask;      /* 0 for byte fields */
	uint8_t shift;      /* ctz(mask) */
	enum roce_display display;
	unsigned flags; /* ROCE_FF_* */
};

const struct roce_hdr_info *roce_hdr_info(enum roce_hdr h);
const struct roce_field_info *roce_field_info(enum roce_field f);

/* The fields of header h are the enum roce_field values first .. first+count-1. */
void roce_hdr_fields(enum roce_hdr h, enum roce_field *first, unsigned *count);

/* Finds a field by its dotted name ("bth.psn", "ipv4.ttl"); returns
 * ROCE_F_COUNT when there is no such field. */
enum roce_field roce_field_by_name(const char *name);

/* Generic access through the descriptor; hdr points at the field's header. */
uint64_t roce_field_get(const uint8_t *hdr, enum roce_field f);
void roce_field_set(uint8_t *hdr, enum roce_field f, uint64_t value);

/* ---- Big-endian helpers ---- */
static inline uint64_t roce_be_load(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v = (v << 8) | p[i];
	return v;
}

static inline void roce_be_store(uint8_t *p, unsigned n, uint64_t v)
{
	for (unsigned i = n; i-- > 0; v >>= 8)
		p[i] = (uint8_t)v;
}

static inline uint32_t roce_le32_load(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void roce_le32_store(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* ---- Per-field accessors ---- */
typedef uint32_t roce_uint_1;
typedef uint32_t roce_uint_2;
typedef uint32_t roce_uint_3;
typedef uint32_t roce_uint_4;
typedef uint64_t roce_uint_8;

#define ROCE_HDR(...)
#define ROCE_FIELD(H, h, name, label, off, width, mask, disp, flags)                        \
	static inline roce_uint_##width roce_##h##_##name(const uint8_t *hdr)               \
	{                                                                                    \
		return (roce_uint_##width)((roce_be_load(hdr + (off), (width)) & (uint64_t)(mask)) \
					   >> __builtin_ctzll((uint64_t)(mask)));              \
	}                                                                                    \
	static inline void roce_##h##_set_##name(uint8_t *hdr, uint64_t v)                  \
	{                                                                                    \
		uint64_t m = (uint64_t)(mask);                                               \
		uint64_t w = roce_be_load(hdr + (off), (width));                             \
		w = (w & ~m) | ((v << __builtin_ctzll(m)) & m);                              \
		roce_be_store(hdr + (off), (width), w);                                      \
	}
#define ROCE_BYTES(H, h, name, label, off, width, disp)                                     \
	static inline const uint8_t *roce_##h##_##name(const uint8_t *hdr)                  \
	{                                                                                    \
		return hdr + (off);                                                          \
	}                                                                                    \
	static inline uint8_t *roce_##h##_##name##_ptr(uint8_t *hdr)                        \
	{                                                                                    \
		return hdr + (off);                                                          \
	}
#include "roce/fields.def"
#undef ROCE_HDR
#undef ROCE_FIELD
#undef ROCE_BYTES

#ifdef __cplusplus
}
#endif

#endif
