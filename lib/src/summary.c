/* A one-line description of a packet, shared by every front end. Every
 * packet a dissector shows gets one, so the common forms are put together
 * here without snprintf, with its result: the text cut to fit n bytes,
 * and the length it has uncut. */
#include <stdio.h>
#include <string.h>

#include "roce/aeth.h"
#include "roce/packet.h"
#include "hints.h"

/* The longest line: an unusual operation name (63), ": " and the AETH
 * syndrome (47), " QP=0x" and 6 digits, " PSN=" and " MSN=" with 8 each. */
enum { OPNAME_MAX = 63, SYNDROME_MAX = 47, SUMMARY_MAX = OPNAME_MAX + 2 + SYNDROME_MAX + 12 + 2 * 13 };

static char *put(char *at, const char *s, size_t len)
{
	memcpy(at, s, len);
	return at + len;
}

/* Written in place, from its last digit back: no copy, one short loop. */
static char *put_dec(char *at, uint32_t x)
{
	unsigned digits = 1;
	for (uint32_t rest = x; rest >= 10; rest /= 10)
		digits++;
	for (char *d = at + digits; d > at; x /= 10)
		*--d = (char)('0' + x % 10);
	return at + digits;
}

/* "%06x" of a 24-bit field. */
static char *put_hex6(char *at, uint32_t x)
{
	static const char digits[] = "0123456789abcdef";
	for (int i = 5; i >= 0; i--, x >>= 4)
		at[i] = digits[x & 0xF];
	return at + 6;
}

/* The operation's name when the opcode table's alone is not it: an opcode
 * without one, and RoCE v1, which says so first (on a dual-mode port both
 * kinds flow). Rare: out of line (hints.h). */
static ROCE_COLD const char *unusual_name(const struct roce_pkt *p, char *buf, size_t n)
{
	char name[32];
	const char *opname = p->op && p->op->name ? p->op->name : NULL;
	if (!opname) {
		snprintf(name, sizeof name, "opcode 0x%02x", p->opcode);
		opname = name;
	}
	snprintf(buf, n, "%s%s", p->rocev1 ? "RoCE v1 " : "", opname);
	return buf;
}

/* The line into out (SUMMARY_MAX bytes at least), without its NUL; its
 * length. Every part has a bound, so nothing is checked on the way. */
static size_t compose(const struct roce_pkt *p, const uint8_t *bth, char *out)
{
	char unusual[OPNAME_MAX + 1];
	const char *opname = p->op && p->op->name && !p->rocev1 ? p->op->name
				: unusual_name(p, unusual, sizeof unusual);
	size_t name_len = strlen(opname);
	char *at = put(out, opname, name_len < OPNAME_MAX ? name_len : OPNAME_MAX);
	const uint8_t *aeth = roce_pkt_hdr(p, ROCE_H_AETH);
	if (aeth) {
		char syn[SYNDROME_MAX + 1];
		roce_aeth_describe((uint8_t)roce_aeth_syndrome(aeth), syn, sizeof syn);
		at = put(at, ": ", 2);
		at = put(at, syn, strlen(syn));
	}
	at = put_hex6(put(at, " QP=0x", 6), roce_bth_destqp(bth));
	if (!(p->op && p->op->kind == ROCE_K_CNP && !aeth)) {
		at = put_dec(put(at, " PSN=", 5), roce_bth_psn(bth));
		if (aeth)
			at = put_dec(put(at, " MSN=", 5), roce_aeth_msn(aeth));
	}
	return (size_t)(at - out);
}

int roce_pkt_summary(const struct roce_pkt *p, char *buf, size_t n)
{
	const uint8_t *bth = roce_pkt_hdr(p, ROCE_H_BTH);
	if (!bth)
		return snprintf(buf, n, "no BTH");
	size_t len;
	if (n > SUMMARY_MAX) { /* the usual buffer: written in place */
		len = compose(p, bth, buf);
		buf[len] = '\0';
	} else {
		char line[SUMMARY_MAX];
		len = compose(p, bth, line);
		if (n) {
			size_t w = len < n ? len : n - 1;
			memcpy(buf, line, w);
			buf[w] = '\0';
		}
	}
	return (int)len;
}
