/*
 * Transport arithmetic shared by everything that plays a RoCEv2 endpoint
 * (the tester's peer, the software DUT) or judges one (the flow analysis):
 * 24-bit PSN arithmetic, message segmentation, opcode choice by role and
 * position, path MTU encodings, and the addressing of a connection from
 * which every packet of a QP is built.
 */
#ifndef ROCE_TRANSPORT_H
#define ROCE_TRANSPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "roce/gid.h"
#include "roce/build.h"
#include "roce/opcode.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ROCE_PSN_MASK 0xFFFFFFu
#define ROCE_PSN_HALF 0x800000 /* 2^23: the duplicate window */

static inline uint32_t roce_psn_add(uint32_t psn, int32_t n)
{
	return (uint32_t)((int64_t)psn + n) & ROCE_PSN_MASK;
}

/* Signed distance a - b in 24-bit serial arithmetic, in [-2^23, 2^23). */
static inline int32_t roce_psn_diff(uint32_t a, uint32_t b)
{
	uint32_t d = (a - b) & ROCE_PSN_MASK;
	return d >= ROCE_PSN_HALF ? (int32_t)d - (int32_t)(ROCE_PSN_MASK + 1) : (int32_t)d;
}

/* How an RC responder classifies a request PSN against its expected PSN. */
enum roce_psn_class {
	ROCE_PSN_EXPECTED,  /* execute */
	ROCE_PSN_DUPLICATE, /* behind, within 2^23: re-ACK, replay */
	ROCE_PSN_AHEAD,     /* ahead: NAK PSN Sequence Error */
};

static inline enum roce_psn_class roce_psn_classify(uint32_t psn, uint32_t epsn)
{
	int32_t d = roce_psn_diff(psn, epsn);
	return d == 0 ? ROCE_PSN_EXPECTED : d < 0 ? ROCE_PSN_DUPLICATE : ROCE_PSN_AHEAD;
}

/* Path MTU: IB enum (1 = 256 .. 5 = 4096) to bytes, 0 if invalid, and back. */
unsigned roce_mtu_bytes(unsigned ib_mtu);
unsigned roce_mtu_enum(unsigned bytes);

/* Packets a message of len bytes takes at this path MTU: at least 1 (a
 * zero-length message is one Only packet). Also the number of READ response
 * packets, and so the PSNs a READ request reserves. */
static inline uint32_t roce_packets_for(uint64_t len, unsigned pmtu)
{
	return len == 0 ? 1 : (uint32_t)((len + pmtu - 1) / pmtu);
}

/* Position of packet i (0-based) of a message of n packets. */
static inline enum roce_position roce_position_of(uint32_t i, uint32_t n)
{
	if (n <= 1)
		return ROCE_POS_ONLY;
	return i == 0 ? ROCE_POS_FIRST : i + 1 == n ? ROCE_POS_LAST : ROCE_POS_MIDDLE;
}

/* The opcode of this transport, kind and position whose flags, masked by
 * flag_mask, equal flags (e.g. ROCE_OPF_IMM for "with Immediate"), found in
 * the opcode table; -1 when there is none (e.g. a READ on UC). */
int roce_opcode_find(enum roce_transport t, enum roce_op_kind kind, enum roce_position pos,
		     unsigned flag_mask, unsigned flags);

/*
 * The addressing of one direction of a connection: everything that is the
 * same in every packet a QP sends to its peer. roce_endpoint_desc() starts a
 * packet description from it.
 */
struct roce_endpoint {
	int ip_version; /* 4 or 6: the IP version of the GIDs */
	/* RoCE v1 (A17.8, a GID of type RoCE v1): a GRH carries the GIDs
	 * (IPv4 ones in the mapped form), the traffic class, flow label and
	 * hop limit; there is no UDP header (udp_sport unused). */
	bool rocev1;
	uint8_t src_mac[6], dst_mac[6];
	unsigned n_vlan;  /* 0..ROCE_MAX_VLANS */
	uint16_t vlan_tci[ROCE_MAX_VLANS];
	uint8_t src_ip[16], dst_ip[16]; /* IPv4 in the first 4 bytes */
	uint8_t traffic_class;          /* DSCP << 2 | ECN */
	uint32_t flow_label;            /* IPv6 */
	uint8_t hop_limit;              /* TTL / hop limit */
	uint16_t udp_sport;
	uint16_t pkey;
	uint32_t dest_qpn;
};

/* A conforming description of a packet with this opcode and PSN from the
 * endpoint; the extended headers are zeroed, the payload empty. */
void roce_endpoint_desc(const struct roce_endpoint *ep, struct roce_desc *d, uint8_t opcode,
			uint32_t psn);

#ifdef __cplusplus
}
#endif

#endif
