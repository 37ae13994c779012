/* A one-line description of a packet, shared by every front end. Every
 * packet a dissector shows gets one, so the common forms are put together
 * here without snprintf, with its result: the text cut to fit n bytes,
 * and the length it has uncut. */
#include <stdio.h>
#include <string.h>

#include "roce/aeth.h"
#include "roce/packet.h"
#include "hints.h"

struct line {
	char *buf;
	size_t n;
	size_t len; /* uncut */
};

static void put(struct line *l, const char *s, size_t len)
{
	if (l->len + 1 < l->n) {
		size_t room = l->n - 1 - l->len;
		memcpy(l->buf + l->len, s, len < room ? len : room);
	}
	l->len += len;
}

static void put_str(struct line *l, const char *s)
{
	put(l, s, strlen(s));
}

static void put_dec(struct line *l, uint32_t x)
{
	char d[10];
	size_t i = sizeof d;
	do {
		d[--i] = (char)('0' + x % 10);
		x /= 10;
	} while (x);
	put(l, d + i, sizeof d - i);
}

/* "%06x" of a 24-bit field. */
static void put_hex6(struct line *l, uint32_t x)
{
	static const char digits[] = "0123456789abcdef";
	char d[6];
	for (int i = 5; i >= 0; i--, x >>= 4)
		d[i] = digits[x & 0xF];
	put(l, d, sizeof d);
}

static int end(struct line *l)
{
	if (l->n)
		l->buf[l->len < l->n ? l->len : l->n - 1] = '\0';
	return (int)l->len;
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

int roce_pkt_summary(const struct roce_pkt *p, char *buf, size_t n)
{
	const uint8_t *bth = roce_pkt_hdr(p, ROCE_H_BTH);
	if (!bth)
		return snprintf(buf, n, "no BTH");
	char unusual[64];
	const char *opname = p->op && p->op->name && !p->rocev1 ? p->op->name
				: unusual_name(p, unusual, sizeof unusual);
	struct line l = { buf, n, 0 };
	put_str(&l, opname);
	const uint8_t *aeth = roce_pkt_hdr(p, ROCE_H_AETH);
	if (aeth) {
		char syn[48];
		roce_aeth_describe((uint8_t)roce_aeth_syndrome(aeth), syn, sizeof syn);
		put(&l, ": ", 2);
		put_str(&l, syn);
	}
	put(&l, " QP=0x", 6);
	put_hex6(&l, roce_bth_destqp(bth));
	if (p->op && p->op->kind == ROCE_K_CNP && !aeth)
		return end(&l);
	put(&l, " PSN=", 5);
	put_dec(&l, roce_bth_psn(bth));
	if (aeth) {
		put(&l, " MSN=", 5);
		put_dec(&l, roce_aeth_msn(aeth));
	}
	return end(&l);
}
