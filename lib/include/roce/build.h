/*
 * Building: turn a packet description into a frame (or a bare IP datagram),
 * filling in the lengths, the IPv4 header checksum, the pad and the ICRC.
 *
 * A description holds each header as its wire image, so every field, the
 * reserved ones included, is set with the accessors of roce/hdr.h or by
 * name. Computed fields are filled in by the builder unless the matching
 * ROCE_OVR_* bit says to take the image's value as it stands: that is how
 * the tester builds wrong packets on purpose.
 */
#ifndef ROCE_BUILD_H
#define ROCE_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "roce/hdr.h"
#include "roce/packet.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Computed fields that can be overridden. */
#define ROCE_OVR_ETHERTYPE 0x001u /* d->ethertype instead of the IP version's */
#define ROCE_OVR_IPV4_IHL 0x002u  /* ipv4.ihl as set */
#define ROCE_OVR_IP_LEN 0x004u    /* ipv4.totlen / ipv6.paylen / grh.paylen as set */
#define ROCE_OVR_IP_CSUM 0x008u   /* ipv4.csum as set */
#define ROCE_OVR_UDP_LEN 0x010u   /* udp.len as set */
#define ROCE_OVR_PADCNT 0x020u    /* bth.padcnt as set */
#define ROCE_OVR_PAD_LEN 0x040u   /* append d->pad_len pad bytes, not the count the payload needs */
#define ROCE_OVR_ICRC 0x080u      /* write d->icrc */
#define ROCE_OVR_XHDRS 0x100u     /* emit d->xhdrs, not the opcode's header set */

#define ROCE_XHDR_MAX 32 /* room for the largest extended header */

struct roce_desc {
	/* Link layer (roce_build_frame only). */
	uint8_t eth_dst[6], eth_src[6];
	unsigned n_vlan;
	uint16_t vlan_tpid[ROCE_MAX_VLANS]; /* ROCE_ETHERTYPE_VLAN or _QINQ */
	uint16_t vlan_tci[ROCE_MAX_VLANS];  /* PCP 3 bits, DEI 1, VID 12 */
	uint16_t ethertype;                 /* with ROCE_OVR_ETHERTYPE */

	uint8_t ip_version; /* 4 or 6; 6 (the GRH's layout) for RoCE v1 */
	/* RoCE v1 (A16): Ethertype 0x8915 and the GRH (ip[] holds it) right
	 * before the BTH: no IP, no UDP. */
	bool rocev1;
	uint8_t ip[ROCE_IPV6_LEN];
	/* IPv4 options, or raw bytes placed after the IPv6 header (extension
	 * headers for negative tests; set ipv6.nexthdr to match). */
	uint8_t ip_opts[40];
	unsigned ip_opts_len;

	uint8_t udp[ROCE_UDP_LEN];
	uint8_t bth[ROCE_BTH_LEN];
	uint8_t xhdr[ROCE_XHDR_COUNT][ROCE_XHDR_MAX]; /* by (h - ROCE_H_FIRST_XHDR) */
	uint16_t xhdrs;                                /* with ROCE_OVR_XHDRS */

	const uint8_t *payload; /* may be NULL when payload_len is 0 */
	size_t payload_len;
	uint8_t pad[3];   /* pad byte values (normally zero) */
	unsigned pad_len; /* with ROCE_OVR_PAD_LEN */
	uint32_t icrc;    /* with ROCE_OVR_ICRC */

	unsigned ovr; /* ROCE_OVR_* */
};

/* Defaults for a conforming packet: IHL 5, DF, TTL/hop limit 64, UDP to
 * 4791 from 0xC000, P_Key 0xFFFF, everything else zero. */
void roce_desc_init(struct roce_desc *d, uint8_t opcode, int ip_version);
/* The same for RoCE v1: a GRH with IPVer 6, Next Header 0x1B, hop limit
 * 64, no IP or UDP header. */
void roce_desc_init_v1(struct roce_desc *d, uint8_t opcode);

/* The image of header h inside d (IPv4/IPv6/GRH share d->ip); NULL for
 * a header d does not carry. */
uint8_t *roce_desc_hdr(struct roce_desc *d, enum roce_hdr h);

/* Sets a field in its image. Setting a computed field (a length, the IPv4
 * checksum or IHL, the pad count) also sets its ROCE_OVR_* bit, so the value
 * sticks. Returns -1 for a field of a header d does not carry
 * (e.g. an IPv6 field on an IPv4 description). */
int roce_desc_set(struct roce_desc *d, enum roce_field f, uint64_t value);
uint64_t roce_desc_get(const struct roce_desc *d, enum roce_field f);

/* The extended header set roce_build emits for d. */
uint16_t roce_desc_xhdrs(const struct roce_desc *d);

/* Build into out (capacity cap). Return the length, or -1 if cap is too
 * small, or -2 if d is inconsistent (IP version not 4/6, too many VLANs,
 * options not a multiple of 4 for IPv4). */
long roce_build_frame(const struct roce_desc *d, uint8_t *out, size_t cap);
/* From the IP header (RoCE v1: the GRH) to the ICRC. */
long roce_build_ip(const struct roce_desc *d, uint8_t *out, size_t cap);

/* The description that rebuilds a parsed packet byte for byte: images
 * copied, payload pointing into p->buf, and override bits set only where the
 * packet's computed fields differ from what the builder would compute.
 * Requires p->err == ROCE_OK and p->complete. Returns 0, or -1 otherwise. */
int roce_desc_from_pkt(struct roce_desc *d, const struct roce_pkt *p);

#ifdef __cplusplus
}
#endif

#endif
