/*
 * The RoCEv2 Invariant CRC (Annex A17.3.3 over IBA §7.8.1): a standard
 * CRC-32 over 8 bytes of 0xFF and the IP datagram with its variant fields
 * (IPv4 ToS, TTL, checksum; IPv6 traffic class, flow label, hop limit; UDP
 * checksum; BTH byte 4) set to ones, sent least-significant byte first.
 */
#ifndef ROCE_ICRC_H
#define ROCE_ICRC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct roce_pkt;

/* ICRC of the datagram starting at l3 (IPv4 or IPv6, told by the version
 * nibble), covering len bytes: everything before the ICRC field. The wire
 * bytes are the result stored little-endian. */
uint32_t roce_icrc(const uint8_t *l3, size_t len);

/* The ICRC of a RoCE v1 packet (IBA Annex A16, §7.8.1): the same CRC over
 * 8 bytes of 0xFF (the LRH, masked whole on a routed packet), the GRH with
 * its traffic class, flow label and hop limit set to ones, and the
 * transport with BTH byte 4 set to ones. grh points at the GRH; len covers
 * everything before the ICRC field. */
uint32_t roce_icrc_v1(const uint8_t *grh, size_t len);

enum roce_icrc_status {
	ROCE_ICRC_UNVERIFIED, /* cannot be checked: no IP header, cut capture, parse error */
	ROCE_ICRC_GOOD,
	ROCE_ICRC_BAD,
};

/* Checks a parsed packet's ICRC (RoCEv2, or RoCE v1 when p->rocev1).
 * wire and computed (optional) receive the values, as CRC values (not
 * byte-swapped). */
enum roce_icrc_status roce_icrc_check(const struct roce_pkt *p, uint32_t *wire, uint32_t *computed);

/* Known implementation mistakes that can explain a wrong ICRC. */
enum roce_icrc_mistake {
	ROCE_ICRC_MISTAKE_NONE = 0,
	ROCE_ICRC_MISTAKE_PAD_OMITTED,
	ROCE_ICRC_MISTAKE_BTH4_UNMASKED,
	ROCE_ICRC_MISTAKE_IPV4_TOS_UNMASKED,
	ROCE_ICRC_MISTAKE_IPV4_TTL_UNMASKED,
	ROCE_ICRC_MISTAKE_IPV4_CSUM_UNMASKED,
	ROCE_ICRC_MISTAKE_IPV6_TC_UNMASKED,
	ROCE_ICRC_MISTAKE_IPV6_FL_UNMASKED,
	ROCE_ICRC_MISTAKE_IPV6_HL_UNMASKED,
	ROCE_ICRC_MISTAKE_UDP_CSUM_UNMASKED,
	ROCE_ICRC_MISTAKE_NOTHING_MASKED, /* every IP and UDP variant field left unmasked */
	ROCE_ICRC_MISTAKE_BYTE_ORDER,
	ROCE_ICRC_MISTAKE_NOT_INVERTED,
	ROCE_ICRC_MISTAKE_NO_PREFIX,
	/* The transport headers covered twice: masked, then again unmasked as
	 * if they were payload (a payload offset of 0; rxe's own FLUSH from
	 * Linux 6.2, whose opcode row has none). */
	ROCE_ICRC_MISTAKE_HEADERS_TWICE,
	ROCE_ICRC_MISTAKE_COUNT
};

/* A set of mistakes made together: one bit per mistake. */
#define ROCE_ICRC_BIT(m) (1u << (m))

struct roce_icrc_diagnosis {
	/* The fewest known mistakes that, made together, produce the ICRC on
	 * the wire (ROCE_ICRC_BIT per mistake; NOTHING_MASKED stands for all
	 * the IP and UDP field mistakes at once); 0 when no combination does. */
	uint32_t mistakes;
	/* Other combinations of as many mistakes that produce it too (0: the
	 * diagnosis is unique). */
	unsigned alternatives;
};

/* Given a packet whose ICRC is bad, searches every combination of the
 * known mistakes that can occur on it (the variant fields of its IP
 * version, the UDP checksum and BTH byte 4 each masked or not, the pad
 * left out or not, the 0xFF prefix, the final inversion, the byte order)
 * for the smallest that produces the wire value. */
struct roce_icrc_diagnosis roce_icrc_diagnose(const struct roce_pkt *p);
/* "likely cause: the IPv4 TTL was not masked, and the ICRC was written
 * most-significant byte first", or that no known mistake, alone or
 * combined, explains it. Returns what snprintf returns. */
int roce_icrc_diagnosis_format(const struct roce_icrc_diagnosis *d, char *buf, size_t n);
const char *roce_icrc_mistake_text(enum roce_icrc_mistake m);
/* A short stable name ("pad-omitted"), and the reverse lookup
 * (ROCE_ICRC_MISTAKE_COUNT when unknown). */
const char *roce_icrc_mistake_name(enum roce_icrc_mistake m);
enum roce_icrc_mistake roce_icrc_mistake_by_name(const char *name);
/* The names of a set joined by '+' ("ipv4-ttl-unmasked+byte-order"), "none"
 * for the empty set; and the reverse (returns -1 on an unknown name). */
int roce_icrc_mistakes_format(uint32_t mistakes, char *buf, size_t n);
int roce_icrc_mistakes_parse(const char *names, uint32_t *mistakes);

/* The ICRC an implementation making every mistake of the set would send
 * for this packet (as a CRC value, stored little-endian on the wire): for
 * building packets that reproduce a vendor bug. Returns -1 when the
 * packet's ICRC cannot be computed or a mistake cannot occur (IPv6 fields
 * on IPv4, pad omitted with no pad). */
int roce_icrc_mistaken_set(const struct roce_pkt *p, uint32_t mistakes, uint32_t *value);
/* The same for one mistake. */
int roce_icrc_mistaken(const struct roce_pkt *p, enum roce_icrc_mistake m, uint32_t *value);

#ifdef __cplusplus
}
#endif

#endif
