/*
 * roce_pkt_summary against printf: the one-line description is put
 * together by hand for speed, so every opcode, with random QPs, PSNs, MSNs
 * and AETH syndromes, must give what snprintf gives with the documented
 * formats, cut the same way in buffers of every size.
 */
#include <stdlib.h>
#include <string.h>

#include "roce/roce.h"
#include "testutil.h"

/* The formats as printf writes them. */
static int reference(const struct roce_pkt *p, char *buf, size_t n)
{
	const uint8_t *bth = roce_pkt_hdr(p, ROCE_H_BTH);
	if (!bth)
		return snprintf(buf, n, "no BTH");
	char name[32];
	const char *opname = p->op && p->op->name ? p->op->name : NULL;
	if (!opname) {
		snprintf(name, sizeof name, "opcode 0x%02x", p->opcode);
		opname = name;
	}
	const uint8_t *aeth = roce_pkt_hdr(p, ROCE_H_AETH);
	if (aeth) {
		char syn[48];
		roce_aeth_describe((uint8_t)roce_aeth_syndrome(aeth), syn, sizeof syn);
		return snprintf(buf, n, "%s: %s QP=0x%06x PSN=%u MSN=%u", opname, syn, roce_bth_destqp(bth),
				roce_bth_psn(bth), roce_aeth_msn(aeth));
	}
	if (p->op && p->op->kind == ROCE_K_CNP)
		return snprintf(buf, n, "%s QP=0x%06x", opname, roce_bth_destqp(bth));
	return snprintf(buf, n, "%s QP=0x%06x PSN=%u", opname, roce_bth_destqp(bth), roce_bth_psn(bth));
}

static void compare(const struct roce_pkt *p, const char *what)
{
	static const size_t sizes[] = { 0, 1, 2, 7, 16, 24, 33, 48, 64, 160 };
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		char got[160], want[160];
		memset(got, 'x', sizeof got);
		memset(want, 'x', sizeof want);
		int g = roce_pkt_summary(p, got, sizes[i]);
		int w = reference(p, want, sizes[i]);
		CHECK(g == w && !memcmp(got, want, sizeof got), "%s, buffer of %zu: '%.*s' (%d), printf: '%.*s' (%d)",
		      what, sizes[i], (int)(sizes[i] ? sizes[i] : 1), got, g, (int)(sizes[i] ? sizes[i] : 1), want, w);
	}
}

int main(void)
{
	unsigned long long seed = 0x5EED5EEDull;
	for (unsigned opcode = 0; opcode < 256; opcode++) {
		for (unsigned round = 0; round < 64; round++) {
			uint8_t buf[256];
			for (size_t i = 0; i < sizeof buf; i++)
				buf[i] = (uint8_t)test_rand(&seed);
			buf[0] = (uint8_t)opcode;
			/* Round numbers too: zeros and the largest values. */
			if (round == 0)
				memset(buf + 1, 0, 15);
			else if (round == 1)
				memset(buf + 1, 0xFF, 15);
			buf[1] &= 0xCF; /* pad count 0, so any payload length parses */
			struct roce_pkt p;
			roce_parse_bth(&p, buf, sizeof buf, sizeof buf, ROCE_PARSE_ANY_PORT);
			char what[64];
			snprintf(what, sizeof what, "opcode 0x%02x, round %u", opcode, round);
			compare(&p, what);
		}
	}
	return test_result("test_summary");
}
