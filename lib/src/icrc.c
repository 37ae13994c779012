/*
 * The RoCEv2 ICRC, and the diagnosis of wrong ones.
 *
 * One routine computes the CRC under a "recipe": which variant fields are
 * masked, whether the 0xFF prefix is there. The standard ICRC is the recipe
 * with everything masked; the known implementation mistakes are the other
 * recipes, so the diagnosis reuses exactly the code that computes the ICRC.
 */
#include "roce/icrc.h"

#include <stdbool.h>
#include <string.h>

#include "roce/crc32.h"
#include "roce/packet.h"

/* Variant fields the ICRC masks to ones (A17.3.3 and IBA §7.8.1). */
#define M_IPV4_TOS 0x01u
#define M_IPV4_TTL 0x02u
#define M_IPV4_CSUM 0x04u
#define M_IPV6_TC 0x08u
#define M_IPV6_FL 0x10u
#define M_IPV6_HL 0x20u
#define M_UDP_CSUM 0x40u
#define M_BTH4 0x80u
#define M_ALL 0xFFu

/* crc32 of the 8-byte 0xFF prefix that stands in for the masked LRH: the
 * register after it is 0xDEBB20E3, i.e. this zlib-style value. */
#define PREFIX_CRC 0x2144DF1Cu

/* The standard recipe's masks for the usual headers, IPv4 without options
 * and IPv6, so that the ICRC of such a packet builds nothing. */
_Alignas(64) static const uint8_t ipv4_all_masks[64] = {
	[1] = 0xFF,                                /* ToS */
	[8] = 0xFF,                                /* TTL */
	[10] = 0xFF, [11] = 0xFF,                  /* header checksum */
	[ROCE_IPV4_LEN + 6] = 0xFF,                /* UDP checksum */
	[ROCE_IPV4_LEN + 7] = 0xFF,
	[ROCE_IPV4_LEN + ROCE_UDP_LEN + 4] = 0xFF, /* BTH byte 4 */
};
/* RoCE v1 (A16, IBA §7.8.1): the GRH's traffic class, flow label and hop
 * limit, and BTH byte 4 right after it (no UDP header). */
_Alignas(64) static const uint8_t grh_all_masks[64] = {
	[0] = 0x0F, [1] = 0xFF,                    /* traffic class, flow label */
	[2] = 0xFF, [3] = 0xFF,
	[7] = 0xFF,                                /* hop limit */
	[ROCE_GRH_LEN + 4] = 0xFF,                 /* BTH byte 4 */
};
_Alignas(64) static const uint8_t ipv6_all_masks[64] = {
	[0] = 0x0F, [1] = 0xFF,                    /* traffic class, flow label */
	[2] = 0xFF, [3] = 0xFF,
	[7] = 0xFF,                                /* hop limit */
	[ROCE_IPV6_LEN + 6] = 0xFF,                /* UDP checksum */
	[ROCE_IPV6_LEN + 7] = 0xFF,
	[ROCE_IPV6_LEN + ROCE_UDP_LEN + 4] = 0xFF, /* BTH byte 4 */
};

static size_t ip_header_len(const uint8_t *l3, size_t len)
{
	if (len == 0)
		return 0;
	if ((l3[0] >> 4) == 6)
		return ROCE_IPV6_LEN;
	size_t ihl = l3[0] & 0x0F;
	return (ihl < 5 ? 5 : ihl) * 4;
}

/* Other recipes (diagnosis) and IPv4 options: rare, so the mask is built
 * here.  The masked bytes end with BTH byte 4, before byte 80 (IHL 15); the
 * second 64 bytes of the mask serve the split below.  Not inlined, so that
 * its stack frame stays off the path of the common packets. */
__attribute__((noinline)) static uint32_t icrc_any_recipe(const uint8_t *l3, size_t len,
							  unsigned masks, uint32_t init, bool grh)
{
	uint8_t mask[128] = { 0 };
	/* A GRH is laid out as an IPv6 header, without a UDP header after it. */
	const bool v6 = grh || (len && (l3[0] >> 4) == 6);
	const size_t hl = grh ? ROCE_GRH_LEN : ip_header_len(l3, len);
	const size_t bth4 = hl + (grh ? 0 : ROCE_UDP_LEN) + 4;
	if (v6) {
		if (masks & M_IPV6_TC) {
			mask[0] |= 0x0F;
			mask[1] |= 0xF0;
		}
		if (masks & M_IPV6_FL) {
			mask[1] |= 0x0F;
			mask[2] = 0xFF;
			mask[3] = 0xFF;
		}
		if (masks & M_IPV6_HL)
			mask[7] = 0xFF;
	} else {
		if (masks & M_IPV4_TOS)
			mask[1] = 0xFF;
		if (masks & M_IPV4_TTL)
			mask[8] = 0xFF;
		if (masks & M_IPV4_CSUM) {
			mask[10] = 0xFF;
			mask[11] = 0xFF;
		}
	}
	if ((masks & M_UDP_CSUM) && !grh) {
		mask[hl + 6] = 0xFF;
		mask[hl + 7] = 0xFF;
	}
	if (masks & M_BTH4)
		mask[bth4] = 0xFF;

	if (bth4 < 64)
		return roce_crc32_or64(init, l3, len, mask);
	/* IPv4 with IHL >= 13: the mask reaches past 64 bytes, so two calls. */
	size_t n = len < 64 ? len : 64;
	return roce_crc32_or64(roce_crc32_or64(init, l3, n, mask), l3 + n, len - n, mask + 64);
}

static uint32_t icrc_recipe(const uint8_t *l3, size_t len, unsigned masks, bool prefix, bool grh)
{
	const uint32_t init = prefix ? PREFIX_CRC : 0;
	if (masks == M_ALL && len) {
		if (grh)
			return roce_crc32_or64(init, l3, len, grh_all_masks);
		if (l3[0] == 0x45) /* IPv4, IHL 5 */
			return roce_crc32_or64(init, l3, len, ipv4_all_masks);
		if ((l3[0] >> 4) == 6)
			return roce_crc32_or64(init, l3, len, ipv6_all_masks);
	}
	return icrc_any_recipe(l3, len, masks, init, grh);
}

uint32_t roce_icrc(const uint8_t *l3, size_t len)
{
	return icrc_recipe(l3, len, M_ALL, true, false);
}

uint32_t roce_icrc_v1(const uint8_t *grh, size_t len)
{
	return icrc_recipe(grh, len, M_ALL, true, true);
}

/* The datagram the ICRC covers, if the packet allows checking it. */
static bool icrc_span(const struct roce_pkt *p, const uint8_t **l3, size_t *len)
{
	enum roce_hdr ip = p->rocev1 ? ROCE_H_GRH : p->ip_version == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4;
	if (p->err != ROCE_OK || !p->complete || !roce_pkt_has(p, ip))
		return false;
	*l3 = p->buf + p->hdr_off[ip];
	*len = p->icrc_off - p->hdr_off[ip];
	return true;
}

enum roce_icrc_status roce_icrc_check(const struct roce_pkt *p, uint32_t *wire, uint32_t *computed)
{
	const uint8_t *l3;
	size_t len;
	if (!icrc_span(p, &l3, &len))
		return ROCE_ICRC_UNVERIFIED;
	uint32_t w = roce_le32_load(p->buf + p->icrc_off);
	uint32_t c = p->rocev1 ? roce_icrc_v1(l3, len) : roce_icrc(l3, len);
	if (wire)
		*wire = w;
	if (computed)
		*computed = c;
	return w == c ? ROCE_ICRC_GOOD : ROCE_ICRC_BAD;
}

/* What an implementation making mistake m writes (as a CRC value stored
 * little-endian); sets *applies to false when m cannot happen here. */
static uint32_t mistaken(const uint8_t *l3, size_t len, unsigned pad_len, bool v6, bool grh,
			 enum roce_icrc_mistake m, bool *applies)
{
	*applies = true;
	/* A GRH's variant fields are the IPv6 header's; it has no UDP header. */
	uint32_t good = grh ? roce_icrc_v1(l3, len) : roce_icrc(l3, len);
	switch (m) {
	case ROCE_ICRC_MISTAKE_PAD_OMITTED:
		*applies = pad_len > 0;
		return icrc_recipe(l3, len - pad_len, M_ALL, true, grh);
	case ROCE_ICRC_MISTAKE_BTH4_UNMASKED:
		return icrc_recipe(l3, len, M_ALL & ~M_BTH4, true, grh);
	case ROCE_ICRC_MISTAKE_IPV4_TOS_UNMASKED:
		*applies = !v6;
		return icrc_recipe(l3, len, M_ALL & ~M_IPV4_TOS, true, grh);
	case ROCE_ICRC_MISTAKE_IPV4_TTL_UNMASKED:
		*applies = !v6;
		return icrc_recipe(l3, len, M_ALL & ~M_IPV4_TTL, true, grh);
	case ROCE_ICRC_MISTAKE_IPV4_CSUM_UNMASKED:
		*applies = !v6;
		return icrc_recipe(l3, len, M_ALL & ~M_IPV4_CSUM, true, grh);
	case ROCE_ICRC_MISTAKE_IPV6_TC_UNMASKED:
		*applies = v6;
		return icrc_recipe(l3, len, M_ALL & ~M_IPV6_TC, true, grh);
	case ROCE_ICRC_MISTAKE_IPV6_FL_UNMASKED:
		*applies = v6;
		return icrc_recipe(l3, len, M_ALL & ~M_IPV6_FL, true, grh);
	case ROCE_ICRC_MISTAKE_IPV6_HL_UNMASKED:
		*applies = v6;
		return icrc_recipe(l3, len, M_ALL & ~M_IPV6_HL, true, grh);
	case ROCE_ICRC_MISTAKE_UDP_CSUM_UNMASKED:
		*applies = !grh;
		return icrc_recipe(l3, len, M_ALL & ~M_UDP_CSUM, true, grh);
	case ROCE_ICRC_MISTAKE_NOTHING_MASKED:
		*applies = !grh; /* IP and UDP fields: a GRH's are the IPv6 ones */
		return icrc_recipe(l3, len, M_BTH4, true, grh);
	case ROCE_ICRC_MISTAKE_NOT_INVERTED:
		return ~good;
	case ROCE_ICRC_MISTAKE_NO_PREFIX:
		return icrc_recipe(l3, len, M_ALL, false, grh);
	case ROCE_ICRC_MISTAKE_BYTE_ORDER:
		return __builtin_bswap32(good);
	case ROCE_ICRC_MISTAKE_NONE:
	case ROCE_ICRC_MISTAKE_COUNT:
		break;
	}
	return good;
}

int roce_icrc_mistaken(const struct roce_pkt *p, enum roce_icrc_mistake m, uint32_t *value)
{
	const uint8_t *l3;
	size_t len;
	bool applies;
	if (!icrc_span(p, &l3, &len))
		return -1;
	*value = mistaken(l3, len, p->pad_len, p->ip_version == 6 || p->rocev1, p->rocev1, m, &applies);
	return applies ? 0 : -1;
}

struct roce_icrc_diagnosis roce_icrc_diagnose(const struct roce_pkt *p)
{
	struct roce_icrc_diagnosis d = { ROCE_ICRC_MISTAKE_NONE, 0 };
	const uint8_t *l3;
	size_t len;
	if (!icrc_span(p, &l3, &len))
		return d;
	uint32_t wire = roce_le32_load(p->buf + p->icrc_off);
	uint32_t good = p->rocev1 ? roce_icrc_v1(l3, len) : roce_icrc(l3, len);
	bool v6 = p->ip_version == 6 || p->rocev1;

	/* Single mistakes first, then each together with a byte swap (except
	 * the swap itself); enum order breaks ties, most common first. */
	for (int swapped = 0; swapped < 2; swapped++) {
		for (int m = ROCE_ICRC_MISTAKE_NONE + 1; m < ROCE_ICRC_MISTAKE_COUNT; m++) {
			if (swapped && m == ROCE_ICRC_MISTAKE_BYTE_ORDER)
				continue;
			bool applies;
			uint32_t v = mistaken(l3, len, p->pad_len, v6, p->rocev1, (enum roce_icrc_mistake)m, &applies);
			if (swapped)
				v = __builtin_bswap32(v);
			if (applies && v == wire && v != good) {
				d.mistake = (enum roce_icrc_mistake)m;
				d.byte_order_too = swapped;
				return d;
			}
		}
	}
	return d;
}

const char *roce_icrc_mistake_text(enum roce_icrc_mistake m)
{
	switch (m) {
	case ROCE_ICRC_MISTAKE_NONE: return "no known implementation mistake explains it";
	case ROCE_ICRC_MISTAKE_PAD_OMITTED: return "the pad bytes were left out of the ICRC";
	case ROCE_ICRC_MISTAKE_BTH4_UNMASKED: return "BTH byte 4 (FECN, BECN, reserved) was not masked";
	case ROCE_ICRC_MISTAKE_IPV4_TOS_UNMASKED: return "the IPv4 ToS byte was not masked";
	case ROCE_ICRC_MISTAKE_IPV4_TTL_UNMASKED: return "the IPv4 TTL was not masked";
	case ROCE_ICRC_MISTAKE_IPV4_CSUM_UNMASKED: return "the IPv4 header checksum was not masked";
	case ROCE_ICRC_MISTAKE_IPV6_TC_UNMASKED: return "the IPv6 Traffic Class was not masked";
	case ROCE_ICRC_MISTAKE_IPV6_FL_UNMASKED: return "the IPv6 Flow Label was not masked";
	case ROCE_ICRC_MISTAKE_IPV6_HL_UNMASKED: return "the IPv6 Hop Limit was not masked";
	case ROCE_ICRC_MISTAKE_UDP_CSUM_UNMASKED: return "the UDP checksum was not masked";
	case ROCE_ICRC_MISTAKE_NOTHING_MASKED: return "no IP or UDP field was masked";
	case ROCE_ICRC_MISTAKE_BYTE_ORDER: return "the ICRC was written most-significant byte first";
	case ROCE_ICRC_MISTAKE_NOT_INVERTED: return "the final inversion of the CRC was left out";
	case ROCE_ICRC_MISTAKE_NO_PREFIX: return "the 8 bytes of 0xFF before the IP header were left out";
	case ROCE_ICRC_MISTAKE_COUNT: break;
	}
	return "?";
}

static const char *const mistake_names[ROCE_ICRC_MISTAKE_COUNT] = {
	[ROCE_ICRC_MISTAKE_NONE] = "none",
	[ROCE_ICRC_MISTAKE_PAD_OMITTED] = "pad-omitted",
	[ROCE_ICRC_MISTAKE_BTH4_UNMASKED] = "bth4-unmasked",
	[ROCE_ICRC_MISTAKE_IPV4_TOS_UNMASKED] = "ipv4-tos-unmasked",
	[ROCE_ICRC_MISTAKE_IPV4_TTL_UNMASKED] = "ipv4-ttl-unmasked",
	[ROCE_ICRC_MISTAKE_IPV4_CSUM_UNMASKED] = "ipv4-csum-unmasked",
	[ROCE_ICRC_MISTAKE_IPV6_TC_UNMASKED] = "ipv6-tc-unmasked",
	[ROCE_ICRC_MISTAKE_IPV6_FL_UNMASKED] = "ipv6-fl-unmasked",
	[ROCE_ICRC_MISTAKE_IPV6_HL_UNMASKED] = "ipv6-hl-unmasked",
	[ROCE_ICRC_MISTAKE_UDP_CSUM_UNMASKED] = "udp-csum-unmasked",
	[ROCE_ICRC_MISTAKE_NOTHING_MASKED] = "nothing-masked",
	[ROCE_ICRC_MISTAKE_BYTE_ORDER] = "byte-order",
	[ROCE_ICRC_MISTAKE_NOT_INVERTED] = "not-inverted",
	[ROCE_ICRC_MISTAKE_NO_PREFIX] = "no-prefix",
};

const char *roce_icrc_mistake_name(enum roce_icrc_mistake m)
{
	return (unsigned)m < ROCE_ICRC_MISTAKE_COUNT ? mistake_names[m] : "?";
}

enum roce_icrc_mistake roce_icrc_mistake_by_name(const char *name)
{
	for (unsigned m = 0; m < ROCE_ICRC_MISTAKE_COUNT; m++)
		if (!strcmp(mistake_names[m], name))
			return (enum roce_icrc_mistake)m;
	return ROCE_ICRC_MISTAKE_COUNT;
}
