/*
 * Parsing: walk an Ethernet frame (or a bare IP datagram, or a UDP payload)
 * to the BTH, the extended headers, the payload, the pad and the ICRC,
 * recording every offset. Never reads outside the given buffer, never
 * allocates.
 */
#ifndef ROCE_PACKET_H
#define ROCE_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce/check.h"
#include "roce/hdr.h"
#include "roce/opcode.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ROCE_UDP_PORT 4791
#define ROCE_IP_PROTO_UDP 17 /* IPv4 Protocol, IPv6 Next Header */
#define ROCE_ICRC_LEN 4
#define ROCE_ETH_LEN 14
#define ROCE_VLAN_LEN 4
#define ROCE_MAX_VLANS 2
#define ROCE_ETHERTYPE_IPV4 0x0800
#define ROCE_ETHERTYPE_IPV6 0x86DD
#define ROCE_ETHERTYPE_ROCEV1 0x8915
#define ROCE_ETHERTYPE_VLAN 0x8100
#define ROCE_ETHERTYPE_QINQ 0x88A8
#define ROCE_ETHERTYPE_ARP 0x0806 /* for neighbour resolution */

#define ROCE_PARSE_ANY_PORT 0x1u /* accept any UDP destination port (Decode As) */
/* Parse RoCE v1 (Ethertype 0x8915: GRH, BTH, ...) instead of reporting
 * E_ROCEV1: for dual-mode ports (A17.8). */
#define ROCE_PARSE_ROCEV1 0x2u
/* Take the RD opcodes (0x40-0x5F) as NVIDIA's Dynamically Connected
 * transport (dcopcodes.def: the DCETH after the BTH, DC Connect) instead
 * of RD. A capture says nothing of which one it holds; the user chooses. */
#define ROCE_PARSE_RD_AS_DC 0x8u
/* Decide per packet: one of the RD range that, taken as RD, looks like DC
 * (roce_pkt_looks_like_dc: an RDETH reserved byte set, and a clean parse
 * as DC) is taken as DC; any other stays RD. No NIC shipped RD, and DC's
 * access key in RD's reserved byte is what a real DC capture shows. A DC
 * packet whose key begins with a zero byte reads as RD (a conforming one,
 * so no finding): ROCE_PARSE_RD_AS_DC is the sure choice for a DC capture.
 * Ignored with ROCE_PARSE_RD_AS_DC. */
#define ROCE_PARSE_RD_AUTO 0x10u
#define ROCE_GRH_NXTHDR_IBA 0x1B /* GRH Next Header: the IBA transport (BTH) follows */

struct roce_pkt {
	const uint8_t *buf; /* what was parsed; offsets below are into it */
	uint32_t caplen;    /* bytes present in buf */
	uint32_t wirelen;   /* bytes of the frame on the wire */

	/* First error met, where, and its values; ROCE_OK when the walk
	 * reached the ICRC. */
	enum roce_code err;
	uint32_t err_off;
	uint64_t err_observed, err_expected;

	uint32_t hdrs;                  /* bit (1 << roce_hdr) per header found */
	uint32_t hdr_off[ROCE_H_COUNT]; /* offset of each header found */

	bool has_eth;
	unsigned n_vlan;
	uint32_t vlan_off[ROCE_MAX_VLANS]; /* offset of each tag's TPID */
	uint16_t ethertype;                /* the one announcing IP (or RoCE v1) */

	uint8_t ip_version;   /* 4 or 6, once the IP header is found; 0 for RoCE v1 */
	bool rocev1;          /* a RoCE v1 frame: a GRH, no IP or UDP (ROCE_PARSE_ROCEV1) */
	bool rd_as_dc;        /* the RD range was taken as NVIDIA DC (ROCE_PARSE_RD_AS_DC, or
			       * ROCE_PARSE_RD_AUTO for this packet) */
	uint32_t ip_hdr_len;  /* IPv4: IHL * 4; IPv6 and the GRH: 40 */
	uint32_t l3_len;      /* IP datagram (GRH and what follows) length per its header */

	uint32_t tp_len; /* BTH through ICRC: the UDP payload length */
	uint8_t opcode;
	const struct roce_opcode_info *op; /* NULL until the BTH is read */
	uint32_t payload_off, payload_len; /* payload without pad */
	uint8_t pad_len;
	uint32_t icrc_off;
	bool complete; /* walked to the ICRC, and every byte of it is in buf */
	/* The BTH was found and every byte from it to the end of the UDP
	 * payload (the ICRC field, its last 4 bytes, at icrc_off) is in buf:
	 * the ICRC can be checked even when a later header could not be
	 * parsed (E_PADCNT, E_TRUNC_XHDR, an undefined opcode). */
	bool icrc_found;
};

enum roce_code roce_parse_frame(struct roce_pkt *p, const uint8_t *buf, size_t caplen,
				size_t wirelen, unsigned flags);
enum roce_code roce_parse_ip(struct roce_pkt *p, const uint8_t *buf, size_t caplen,
			     size_t wirelen, unsigned flags);
/* buf starts at the BTH; len is the UDP payload length (BTH to end of
 * ICRC), of which caplen bytes are present. */
enum roce_code roce_parse_bth(struct roce_pkt *p, const uint8_t *buf, size_t caplen,
			      size_t len, unsigned flags);

static inline bool roce_pkt_has(const struct roce_pkt *p, enum roce_hdr h)
{
	return (p->hdrs >> h) & 1u;
}

/* Start of header h in the parsed buffer, or NULL when absent. */
static inline const uint8_t *roce_pkt_hdr(const struct roce_pkt *p, enum roce_hdr h)
{
	return roce_pkt_has(p, h) ? p->buf + p->hdr_off[h] : NULL;
}

/* An 802.1Q tag's TCI: priority (PCP) 3 bits, DEI 1, VLAN ID 12. */
static inline uint16_t roce_vlan_tci(unsigned pcp, unsigned vid)
{
	return (uint16_t)((pcp & 7u) << 13 | (vid & 0xFFFu));
}

static inline unsigned roce_vlan_pcp(uint16_t tci)
{
	return tci >> 13;
}

static inline unsigned roce_vlan_vid(uint16_t tci)
{
	return tci & 0xFFFu;
}

/* Where an Ethernet frame's (first) Ethertype or tag sits: after the
 * destination and source MACs. */
#define ROCE_ETH_TYPE_OFF 12
#define ROCE_ETH_SRC_OFF 6 /* the source MAC, after the destination's */

/* Inserts an outermost tag (tpid: ROCE_ETHERTYPE_VLAN or _QINQ) into the
 * frame of len bytes in a buffer of cap bytes. Returns the new length, or 0
 * when it does not fit or the frame has no Ethertype. */
size_t roce_frame_push_vlan(uint8_t *frame, size_t len, size_t cap, uint16_t tpid, uint16_t tci);
/* The same for a frame with ROCE_VLAN_LEN bytes of room in front of it (a
 * receive ring's reserve): the MACs move back, the rest stays. Returns the
 * frame's new start, ROCE_VLAN_LEN bytes before the old one. */
uint8_t *roce_frame_push_vlan_front(uint8_t *frame, uint16_t tpid, uint16_t tci);

/* The TCI of a parsed frame's innermost tag; 0 when it has none. */
static inline uint16_t roce_pkt_vlan_tci(const struct roce_pkt *p)
{
	return p->n_vlan ? (uint16_t)roce_be_load(p->buf + p->vlan_off[p->n_vlan - 1] + 2, 2) : 0;
}

/* The header checksum an IPv4 header of hl bytes should carry (RFC 1071),
 * whatever its checksum field holds now. */
uint16_t roce_ipv4_checksum(const uint8_t *ip, size_t hl);

/* One line saying what the packet is, as a packet list shows it:
 * "RC SEND Only QP=0x000123 PSN=42", "RC Acknowledge: NAK PSN Sequence
 * Error QP=0x000123 PSN=42 MSN=5". Needs the BTH (and the AETH if the
 * opcode has one) to have been parsed. Returns what snprintf returns. */
int roce_pkt_summary(const struct roce_pkt *p, char *buf, size_t n);

/* Whether a packet parsed with the RD range as RD looks like NVIDIA DC
 * instead: its RDETH's reserved byte is not zero (the first byte of DC's
 * access key sits there), and taken as DC the same transport parses, with
 * a zero reserved byte in its RDETH where the DC opcode has one. A hint,
 * not a proof: one RD frame with that byte set may parse as DC too. */
bool roce_pkt_looks_like_dc(const struct roce_pkt *p);

/* Writes the parse error as text ("" when there is none). */
int roce_pkt_strerror(const struct roce_pkt *p, char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif
