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
#include <stdio.h>
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

/* The datagram the ICRC covers, if the packet holds it: from the IP header
 * (or GRH) to the ICRC field, the last 4 bytes of the UDP payload, even
 * when a header after the BTH could not be parsed. */
static bool icrc_span(const struct roce_pkt *p, const uint8_t **l3, size_t *len)
{
	enum roce_hdr ip = p->rocev1 ? ROCE_H_GRH : p->ip_version == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4;
	if (!p->icrc_found || !roce_pkt_has(p, ip))
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

/* ---- Mistakes, alone or together ---- */

#define B(m) ROCE_ICRC_BIT(ROCE_ICRC_MISTAKE_##m)
#define FIELDS_V4 (B(IPV4_TOS_UNMASKED) | B(IPV4_TTL_UNMASKED) | B(IPV4_CSUM_UNMASKED))
#define FIELDS_V6 (B(IPV6_TC_UNMASKED) | B(IPV6_FL_UNMASKED) | B(IPV6_HL_UNMASKED))
/* The mistakes about masks, each one field left as it is. */
#define MASK_MISTAKES (FIELDS_V4 | FIELDS_V6 | B(UDP_CSUM_UNMASKED) | B(BTH4_UNMASKED))

/* Where the mistakes can occur: the packet's own fields and pad. */
struct icrc_subject {
	const uint8_t *l3;
	size_t len;
	size_t bth_off, payload_off; /* from l3 */
	unsigned pad_len;
	bool v6, grh;
};

static uint32_t applicable(const struct icrc_subject *s)
{
	uint32_t a = B(BTH4_UNMASKED) | B(BYTE_ORDER) | B(NOT_INVERTED) | B(NO_PREFIX);
	if (s->payload_off)
		a |= B(HEADERS_TWICE);
	if (s->pad_len)
		a |= B(PAD_OMITTED);
	a |= s->v6 ? FIELDS_V6 : FIELDS_V4;
	if (!s->grh) /* a GRH has no UDP header; its fields are the IPv6 ones */
		a |= B(UDP_CSUM_UNMASKED) | B(NOTHING_MASKED);
	return a;
}

/* The masks (M_*) a set of mistakes leaves applied. */
static unsigned masks_left(uint32_t set)
{
	static const struct {
		uint32_t mistake;
		unsigned mask;
	} field[] = {
		{ B(IPV4_TOS_UNMASKED), M_IPV4_TOS }, { B(IPV4_TTL_UNMASKED), M_IPV4_TTL },
		{ B(IPV4_CSUM_UNMASKED), M_IPV4_CSUM }, { B(IPV6_TC_UNMASKED), M_IPV6_TC },
		{ B(IPV6_FL_UNMASKED), M_IPV6_FL }, { B(IPV6_HL_UNMASKED), M_IPV6_HL },
		{ B(UDP_CSUM_UNMASKED), M_UDP_CSUM }, { B(BTH4_UNMASKED), M_BTH4 },
	};
	if (set & B(NOTHING_MASKED))
		set |= FIELDS_V4 | FIELDS_V6 | B(UDP_CSUM_UNMASKED);
	unsigned masks = M_ALL;
	for (size_t i = 0; i < sizeof field / sizeof field[0]; i++)
		if (set & field[i].mistake)
			masks &= ~field[i].mask;
	return masks;
}

/* The CRC before the last two mistakes, which only transform the result. */
static uint32_t mistaken_crc(const struct icrc_subject *s, uint32_t set)
{
	size_t len = (set & B(PAD_OMITTED)) ? s->len - s->pad_len : s->len;
	if (!(set & B(HEADERS_TWICE)))
		return icrc_recipe(s->l3, len, masks_left(set), !(set & B(NO_PREFIX)), s->grh);
	/* The headers as the ICRC masks them, then everything from the BTH on
	 * as it is on the wire, taken for payload. */
	uint32_t crc = icrc_recipe(s->l3, s->payload_off, masks_left(set), !(set & B(NO_PREFIX)), s->grh);
	return roce_crc32(crc, s->l3 + s->bth_off, len - s->bth_off);
}

static uint32_t finish(uint32_t crc, uint32_t set)
{
	if (set & B(NOT_INVERTED))
		crc = ~crc;
	if (set & B(BYTE_ORDER))
		crc = __builtin_bswap32(crc);
	return crc;
}

static bool subject_of(const struct roce_pkt *p, struct icrc_subject *s)
{
	if (!icrc_span(p, &s->l3, &s->len))
		return false;
	s->pad_len = p->err == ROCE_OK ? p->pad_len : 0;
	/* Where the headers end is known only for a packet parsed whole. */
	const uint8_t *bth = roce_pkt_hdr(p, ROCE_H_BTH);
	s->bth_off = bth ? (size_t)(bth - s->l3) : 0;
	s->payload_off = bth && p->err == ROCE_OK && p->payload_off > (size_t)(bth - p->buf) ?
				 p->payload_off - (size_t)(s->l3 - p->buf) :
				 0;
	s->v6 = p->ip_version == 6 || p->rocev1;
	s->grh = p->rocev1;
	return true;
}

int roce_icrc_mistaken_set(const struct roce_pkt *p, uint32_t mistakes, uint32_t *value)
{
	struct icrc_subject s;
	if (!subject_of(p, &s) || (mistakes & ~applicable(&s)) || (mistakes & B(NONE)))
		return -1;
	*value = finish(mistaken_crc(&s, mistakes), mistakes);
	return 0;
}

int roce_icrc_mistaken(const struct roce_pkt *p, enum roce_icrc_mistake m, uint32_t *value)
{
	if (m <= ROCE_ICRC_MISTAKE_NONE || m >= ROCE_ICRC_MISTAKE_COUNT)
		return -1;
	return roce_icrc_mistaken_set(p, ROCE_ICRC_BIT(m), value);
}

static unsigned popcount(uint32_t v)
{
	return (unsigned)__builtin_popcount(v);
}

struct roce_icrc_diagnosis roce_icrc_diagnose(const struct roce_pkt *p)
{
	struct roce_icrc_diagnosis d = { 0, 0 };
	struct icrc_subject s;
	if (!subject_of(p, &s))
		return d;
	uint32_t wire = roce_le32_load(p->buf + p->icrc_off);
	uint32_t app = applicable(&s);
	/* The mistakes that change the bytes the CRC runs over, one CRC per
	 * combination of them; NOTHING_MASKED is their union, not a mistake
	 * of its own here. The last two only transform the result. */
	uint32_t crc_atoms = app & (MASK_MISTAKES | B(PAD_OMITTED) | B(NO_PREFIX) | B(HEADERS_TWICE));
	uint32_t post_atoms = app & (B(NOT_INVERTED) | B(BYTE_ORDER));
	uint32_t good = finish(mistaken_crc(&s, 0), 0);
	unsigned best = 33;
	/* Every subset of crc_atoms (submask enumeration), then of post_atoms. */
	uint32_t sub = crc_atoms;
	for (;;) {
		uint32_t crc = mistaken_crc(&s, sub);
		uint32_t post = post_atoms;
		for (;;) {
			uint32_t set = sub | post;
			if (set && finish(crc, set) == wire && wire != good) {
				unsigned n = popcount(set);
				if (n < best || (n == best && set < d.mistakes)) {
					if (n < best)
						d.alternatives = 0;
					else
						d.alternatives++;
					best = n;
					d.mistakes = set;
				} else if (n == best) {
					d.alternatives++;
				}
			}
			if (!post)
				break;
			post = (post - 1) & post_atoms;
		}
		if (!sub)
			break;
		sub = (sub - 1) & crc_atoms;
	}
	/* Every IP and UDP field left as it is: one mistake, not four. */
	uint32_t all_fields = (s.v6 ? FIELDS_V6 : FIELDS_V4) | B(UDP_CSUM_UNMASKED);
	if (!s.grh && (d.mistakes & all_fields) == all_fields)
		d.mistakes = (d.mistakes & ~all_fields) | B(NOTHING_MASKED);
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
	case ROCE_ICRC_MISTAKE_HEADERS_TWICE:
		return "the headers were covered again after the BTH as payload";
	case ROCE_ICRC_MISTAKE_COUNT: break;
	}
	return "?";
}

/* snprintf onto what buf already holds (w bytes, or an error). */
static int append(char *buf, size_t n, int w, const char *a, const char *b)
{
	if (w < 0)
		return w;
	size_t k = (size_t)w < n ? (size_t)w : n;
	int x = snprintf(n ? buf + k : NULL, n - k, "%s%s", a, b);
	return x < 0 ? x : w + x;
}

int roce_icrc_diagnosis_format(const struct roce_icrc_diagnosis *d, char *buf, size_t n)
{
	if (!d->mistakes)
		return snprintf(buf, n, "no known implementation mistake, alone or combined, explains it");
	bool several = popcount(d->mistakes) > 1;
	int w = append(buf, n, 0, several ? "likely causes, all together: " : "likely cause: ", "");
	unsigned done = 0;
	for (int m = ROCE_ICRC_MISTAKE_NONE + 1; m < ROCE_ICRC_MISTAKE_COUNT; m++)
		if (d->mistakes & ROCE_ICRC_BIT(m))
			w = append(buf, n, w, done++ ? "; " : "", roce_icrc_mistake_text((enum roce_icrc_mistake)m));
	if (d->alternatives) {
		char more[64];
		snprintf(more, sizeof more, " (or %u other combination%s of as many)", d->alternatives,
			 d->alternatives == 1 ? "" : "s");
		w = append(buf, n, w, more, "");
	}
	return w;
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
	[ROCE_ICRC_MISTAKE_HEADERS_TWICE] = "headers-twice",
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

int roce_icrc_mistakes_format(uint32_t mistakes, char *buf, size_t n)
{
	if (!mistakes)
		return snprintf(buf, n, "none");
	int w = 0;
	for (int m = ROCE_ICRC_MISTAKE_NONE + 1; m < ROCE_ICRC_MISTAKE_COUNT; m++)
		if (mistakes & ROCE_ICRC_BIT(m))
			w = append(buf, n, w, w ? "+" : "", mistake_names[m]);
	return w;
}

int roce_icrc_mistakes_parse(const char *names, uint32_t *mistakes)
{
	*mistakes = 0;
	char word[32];
	for (const char *p = names;;) {
		size_t len = strcspn(p, "+,");
		if (len == 0 || len >= sizeof word)
			return -1;
		memcpy(word, p, len);
		word[len] = '\0';
		enum roce_icrc_mistake m = roce_icrc_mistake_by_name(word);
		if (m == ROCE_ICRC_MISTAKE_COUNT)
			return -1;
		if (m != ROCE_ICRC_MISTAKE_NONE)
			*mistakes |= ROCE_ICRC_BIT(m);
		if (!p[len])
			return 0;
		p += len + 1;
	}
}
