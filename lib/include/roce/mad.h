/*
 * Management datagrams on QP1 (a UD SEND to QP1 carries a MAD), the
 * Communication Manager messages, and the IP CM private data: layouts
 * generated from mad.def in the style of hdr.h, and the few facts a
 * decoder needs (which attribute is which message, where an IP CM REQ
 * keeps its addresses, how an IB MTU code maps to bytes).
 */
#ifndef ROCE_MAD_H
#define ROCE_MAD_H

#include <stdbool.h>
#include <stdint.h>

#include "roce/hdr.h"
#include "roce/packet.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ROCE_MAD_LEN 256       /* a MAD: 24-byte header and 232 bytes of data */
#define ROCE_MAD_HDR_LEN 24
#define ROCE_MAD_BASE_VERSION 1
/* The management classes (IBA Table 110, MAD Management Classes): X(SYM,
 * value, "name"). CM is the one RoCE's connection management uses. */
#define ROCE_MAD_CLASSES(X)                                              \
	X(SUBN_LID_ROUTED, 0x01, "Subnet Management (LID routed)")       \
	X(SUBN_ADM, 0x03, "Subnet Administration")                       \
	X(PERF_MGT, 0x04, "Performance Management")                      \
	X(BM, 0x05, "Baseboard Management")                              \
	X(DEVICE_MGT, 0x06, "Device Management")                         \
	X(CM, 0x07, "Communication Management")                          \
	X(SNMP, 0x08, "SNMP Tunneling")                                  \
	X(SUBN_DIRECTED_ROUTE, 0x81, "Subnet Management (directed route)")
enum roce_mad_class {
#define ROCE_MAD_CLASS_ENUM(SYM, value, name) ROCE_MAD_CLASS_##SYM = (value),
	ROCE_MAD_CLASSES(ROCE_MAD_CLASS_ENUM)
#undef ROCE_MAD_CLASS_ENUM
};
#define ROCE_MAD_CM_CLASS_VERSION 2
#define ROCE_MAD_METHOD_SEND 0x03
#define ROCE_GSI_QKEY 0x80010000u /* the well-known Q_Key of QP1 */
#define ROCE_QP1 1
#define ROCE_MAD_OPCODE ROCE_OP_UD_SEND_ONLY /* what carries a MAD to QP1 */

enum roce_mad_hdr {
#define ROCE_MAD_HDR(ID, abbrev, name, size) ROCE_MH_##ID,
#define ROCE_MAD_FIELD(...)
#define ROCE_MAD_BYTES(...)
#include "roce/mad.def"
#undef ROCE_MAD_HDR
#undef ROCE_MAD_FIELD
#undef ROCE_MAD_BYTES
	ROCE_MH_COUNT
};

enum roce_mad_field {
#define ROCE_MAD_HDR(...)
#define ROCE_MAD_FIELD(H, h, name, label, off, width, mask, disp) ROCE_MF_##H##_##name,
#define ROCE_MAD_BYTES(H, h, name, label, off, width, disp) ROCE_MF_##H##_##name,
#include "roce/mad.def"
#undef ROCE_MAD_HDR
#undef ROCE_MAD_FIELD
#undef ROCE_MAD_BYTES
	ROCE_MF_COUNT
};

struct roce_mad_hdr_info {
	const char *abbrev; /* "req" */
	const char *name;   /* "CM REQ (Request for Communication)" */
	uint16_t size;
};

struct roce_mad_field_info {
	enum roce_mad_hdr hdr;
	const char *abbrev;
	const char *label;
	uint16_t offset;
	uint8_t width;
	uint64_t mask; /* 0 for byte fields */
	enum roce_display display;
};

const struct roce_mad_hdr_info *roce_mad_hdr_info(enum roce_mad_hdr h);
const struct roce_mad_field_info *roce_mad_field_info(enum roce_mad_field f);
void roce_mad_hdr_fields(enum roce_mad_hdr h, enum roce_mad_field *first, unsigned *count);
/* A field by "abbrev.name" ("req.primary_local_lid", "mad.attr_id",
 * "apr.status"); ROCE_MF_COUNT when unknown. */
enum roce_mad_field roce_mad_field_by_name(const char *name);
/* Where a layout starts in a MAD: 0 for the MAD header, 24 for a CM
 * message, the REQ's private data for the IP CM header. */
unsigned roce_mad_hdr_base(enum roce_mad_hdr h);
/* A numeric field's value in a whole MAD (mad: ROCE_MAD_LEN bytes), and
 * setting it; false for byte fields. */
bool roce_mad_get(const uint8_t *mad, enum roce_mad_field f, uint64_t *v);
bool roce_mad_put(uint8_t *mad, enum roce_mad_field f, uint64_t v);

#define ROCE_MAD_HDR(...)
#define ROCE_MAD_FIELD(H, h, name, label, off, width, mask, disp)                              \
	static inline uint64_t roce_##h##_##name(const uint8_t *hdr)                             \
	{                                                                                        \
		return (roce_be_load(hdr + (off), (width)) & (uint64_t)(mask)) >>                \
		       __builtin_ctzll((uint64_t)(mask));                                        \
	}                                                                                        \
	static inline void roce_##h##_set_##name(uint8_t *hdr, uint64_t v)                      \
	{                                                                                        \
		uint64_t m = (uint64_t)(mask);                                                   \
		uint64_t w = roce_be_load(hdr + (off), (width));                                 \
		roce_be_store(hdr + (off), (width), (w & ~m) | ((v << __builtin_ctzll(m)) & m)); \
	}
#define ROCE_MAD_BYTES(H, h, name, label, off, width, disp)                                    \
	static inline uint8_t *roce_##h##_##name(uint8_t *hdr) { return hdr + (off); }
#include "roce/mad.def"
#undef ROCE_MAD_HDR
#undef ROCE_MAD_FIELD
#undef ROCE_MAD_BYTES

/* CM attribute IDs (IBA §12.6). */
enum roce_cm_attr {
	ROCE_CM_REQ = 0x0010,
	ROCE_CM_MRA = 0x0011,
	ROCE_CM_REJ = 0x0012,
	ROCE_CM_REP = 0x0013,
	ROCE_CM_RTU = 0x0014,
	ROCE_CM_DREQ = 0x0015,
	ROCE_CM_DREP = 0x0016,
	ROCE_CM_SIDR_REQ = 0x0017,
	ROCE_CM_SIDR_REP = 0x0018,
	ROCE_CM_LAP = 0x0019,
	ROCE_CM_APR = 0x001A,
};

/* Starts a CM message in a MAD (ROCE_MAD_LEN bytes): everything zeroed,
 * then the header: base version 1, class CM version 2, method Send, the
 * transaction ID and the attribute (ROCE_CM_REQ, ...). Returns the
 * message, ROCE_MAD_HDR_LEN bytes in. */
uint8_t *roce_cm_mad_init(uint8_t *mad, uint16_t attr_id, uint64_t tid);

/* The addresses of an IP CM REQ's private data (Annex A11): its IP version,
 * and the source and destination (4 or 16 bytes); an IPv4 address sits in
 * the last 4 bytes of its field, the rest zero. */
void roce_ipcm_set_addrs(uint8_t *ipcm, int ip_version, const uint8_t *src, const uint8_t *dst);

struct roce_endpoint;
struct roce_desc;
/* A MAD to QP1 from an endpoint: UD SEND Only with the GSI Q_Key and
 * source QP 1, carrying mad (ROCE_MAD_LEN bytes, not copied). */
void roce_gsi_desc(const struct roce_endpoint *ep, struct roce_desc *d, uint32_t psn, const uint8_t *mad);

/* Does this packet carry a MAD: a UD SEND to QP1 with at least a MAD header? */
bool roce_pkt_is_mad(const struct roce_pkt *p);
/* The layout of a CM message by attribute ID; ROCE_MH_COUNT when unknown. */
enum roce_mad_hdr roce_cm_msg(uint16_t attr_id);
/* "REQ", "REP", ...; NULL when unknown. */
const char *roce_cm_msg_name(uint16_t attr_id);
/* A management class's name ("Communication Management"), NULL if the
 * table does not know it. */
const char *roce_mad_class_name(unsigned mgmt_class);
/* Service IDs of the RDMA IP CM Service (Annex A11): 0x0000000001PPNNNN,
 * PP the IP protocol, NNNN the port. */
static inline bool roce_cm_service_is_ip(uint64_t sid)
{
	return (sid >> 24) == 0x01;
}
/* The REJ reasons and APR statuses that name a port LID, which a RoCE
 * CM must never use (A17.7: CA17-35, CA17-37), and the ones a passive
 * side uses for the common refusals. */
enum roce_cm_rej_reason {
	ROCE_CM_REJ_NO_QP = 1,
	ROCE_CM_REJ_NO_RESOURCES = 3,
	ROCE_CM_REJ_INVALID_COMM_ID = 6,
	ROCE_CM_REJ_INVALID_SERVICE_ID = 8,
	ROCE_CM_REJ_INVALID_TRANSPORT = 9,
	ROCE_CM_REJ_INVALID_GID = 12,
	ROCE_CM_REJ_INVALID_LID = 13,
	ROCE_CM_REJ_INVALID_ALT_LID = 19,
};
enum roce_cm_apr_status {
	ROCE_CM_APR_SUCCESS = 0,
	ROCE_CM_APR_INVALID_COMM_ID = 1,
	ROCE_CM_APR_UNSUPPORTED = 2,
	ROCE_CM_APR_REJECTED = 3,
	ROCE_CM_APR_INVALID_LID = 7,
	ROCE_CM_APR_INVALID_GID = 8,
};
/* Which message a REJ or MRA names (Message Rejected / Message MRAed). */
enum roce_cm_msg_ref { ROCE_CM_REF_REQ = 0, ROCE_CM_REF_REP = 1, ROCE_CM_REF_OTHER = 2 };
/* The IP CM service ID of a port for TCP's port space (Annex A11), as
 * rdma_cm's RDMA_PS_TCP listeners use. */
static inline uint64_t roce_cm_ip_service_id(uint16_t port)
{
	return 0x0000000001060000ull | port;
}
/* Path MTU code of a CM REQ (1..5) in bytes; 0 for other codes. */
unsigned roce_ib_mtu_bytes(unsigned code);
/* Offset of a REQ's private data from the start of the MAD. */
#define ROCE_CM_REQ_PRIVATE_OFF (ROCE_MAD_HDR_LEN + 140)

#ifdef __cplusplus
}
#endif

#endif
