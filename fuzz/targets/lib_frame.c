/*
 * libroce on untrusted bytes: the parser (frame, bare IP datagram, bare
 * transport), the stateless checks with every option, the ICRC check and
 * diagnosis, the one-line summary, and description-from-packet plus
 * rebuild. Beyond "no crash", it checks what the API promises:
 *
 * - every header the parser reports lies inside the captured bytes, and a
 *   complete parse accounts for every byte from the BTH to the ICRC;
 * - roce_check reports the parse error first, counts the same with or
 *   without room for findings, and locates findings inside the frame;
 * - the ICRC is verifiable exactly when the parse is complete with an IP
 *   header, and a diagnosed mistake reproduces the wire value;
 * - a complete conforming parse rebuilds byte for byte, and the rebuilt
 *   frame parses the same.
 *
 * Input: one control byte, then the bytes.
 *   bits 0-1  entry: 0 and 3 roce_parse_frame, 1 roce_parse_ip, 2 roce_parse_bth
 *   bit 2     ROCE_PARSE_ANY_PORT
 *   bit 3     cut the capture: the next byte is how many bytes the
 *             capture lost (caplen = size - cut, wirelen = size)
 *   bit 4     ROCE_PARSE_RD_AUTO (the RD opcodes as DC where they look like it)
 *   bit 5     ROCE_PARSE_RD_AS_DC (the RD opcodes as NVIDIA DC)
 */
#include "../fuzz.h"

#include <string.h>

#include "roce/roce.h"

enum entry { E_FRAME, E_IP, E_BTH };

static const unsigned pmtus[] = { 0, 256, 1024, 4096 };

static void check_offsets(const struct roce_pkt *p)
{
	for (unsigned h = 0; h < ROCE_H_COUNT; h++) {
		if (!roce_pkt_has(p, (enum roce_hdr)h))
			continue;
		uint64_t size = roce_hdr_info((enum roce_hdr)h)->size;
		if (h == ROCE_H_IPV4)
			size = p->ip_hdr_len;
		FUZZ_CHECK((uint64_t)p->hdr_off[h] + size <= p->caplen,
			   "header %s at %u (+%llu) past caplen %u", roce_hdr_info((enum roce_hdr)h)->abbrev,
			   p->hdr_off[h], (unsigned long long)size, p->caplen);
	}
	if (p->err != ROCE_OK) {
		FUZZ_CHECK(roce_code_is_parse_error(p->err), "err %d is not a parse error", p->err);
		FUZZ_CHECK(!p->complete, "complete with an error");
		return;
	}
	FUZZ_CHECK(p->op && p->op->name, "OK without a defined opcode");
	FUZZ_CHECK(roce_pkt_has(p, ROCE_H_BTH), "OK without a BTH");
	uint32_t bth = p->hdr_off[ROCE_H_BTH];
	FUZZ_CHECK(p->payload_off == bth + ROCE_BTH_LEN + p->op->xhdr_len, "payload offset %u",
		   p->payload_off);
	FUZZ_CHECK((uint64_t)p->payload_off + p->payload_len + p->pad_len == p->icrc_off,
		   "payload %u+%u pad %u icrc at %u", p->payload_off, p->payload_len, p->pad_len, p->icrc_off);
	FUZZ_CHECK(p->icrc_off + ROCE_ICRC_LEN == bth + p->tp_len, "ICRC does not end the transport");
	FUZZ_CHECK((uint64_t)p->icrc_off + ROCE_ICRC_LEN <= p->wirelen, "ICRC past the frame");
	FUZZ_CHECK(p->complete == ((uint64_t)p->icrc_off + ROCE_ICRC_LEN <= p->caplen),
		   "complete=%d but ICRC ends at %u of %u captured", p->complete,
		   p->icrc_off + ROCE_ICRC_LEN, p->caplen);
	FUZZ_CHECK(p->pad_len == roce_bth_padcnt(roce_pkt_hdr(p, ROCE_H_BTH)), "pad count");
}

static void check_findings(const struct roce_pkt *p)
{
	for (unsigned v = 0; v < 16; v++) {
		struct roce_check_opts o = {
			.flags = ((v & 1) ? ROCE_CHK_ICRC : 0) | ((v & 2) ? ROCE_CHK_SENDER : 0) |
				 ROCE_CHK_NOTES,
			.pmtu = pmtus[v >> 2],
		};
		struct roce_finding f[64];
		size_t n = roce_check(p, &o, f, 64);
		size_t n0 = roce_check(p, &o, NULL, 0);
		FUZZ_CHECK(n == n0, "%zu findings with room, %zu without", n, n0);
		if (p->err != ROCE_OK)
			FUZZ_CHECK(n >= 1 && f[0].code == p->err, "the parse error is not the first finding");
		for (size_t i = 0; i < n && i < 64; i++) {
			FUZZ_CHECK(f[i].code > ROCE_OK && f[i].code < ROCE_CODE_COUNT && f[i].code != ROCE_E_END_,
				   "finding %zu has code %d", i, f[i].code);
			if (f[i].len)
				FUZZ_CHECK((uint64_t)f[i].off + f[i].len <= p->wirelen,
					   "finding %s at %u+%u past the frame (%u)",
					   roce_code_info(f[i].code)->name, f[i].off, f[i].len, p->wirelen);
			char text[512], tiny[8];
			int a = roce_finding_format(&f[i], text, sizeof text);
			int b = roce_finding_format(&f[i], tiny, sizeof tiny);
			FUZZ_CHECK(a > 0 && a == b && (size_t)a < sizeof text && strlen(text) == (size_t)a,
				   "finding text %d/%d", a, b);
			FUZZ_CHECK(strlen(tiny) == (size_t)(a < 7 ? a : 7), "truncated finding text");
		}
	}
}

static void check_icrc(const struct roce_pkt *p)
{
	uint32_t wire = 0, computed = 0;
	enum roce_icrc_status st = roce_icrc_check(p, &wire, &computed);
	/* Checked whenever the BTH and the 4 bytes at the end of the UDP
	 * payload are there, even after a later header failed to parse. */
	bool verifiable = p->icrc_found && roce_pkt_has(p, ROCE_H_BTH) &&
			  (roce_pkt_has(p, ROCE_H_IPV4) || roce_pkt_has(p, ROCE_H_IPV6) || roce_pkt_has(p, ROCE_H_GRH));
	FUZZ_CHECK((st != ROCE_ICRC_UNVERIFIED) == verifiable, "ICRC status %d, verifiable %d", st,
		   verifiable);
	if (st == ROCE_ICRC_GOOD)
		FUZZ_CHECK(wire == computed, "good ICRC with different values");
	struct roce_icrc_diagnosis d = roce_icrc_diagnose(p);
	if (st != ROCE_ICRC_BAD) {
		FUZZ_CHECK(d.mistakes == 0, "a diagnosis for an ICRC that is not bad");
	} else if (d.mistakes) {
		uint32_t v;
		char names[256];
		roce_icrc_mistakes_format(d.mistakes, names, sizeof names);
		FUZZ_CHECK(roce_icrc_mistaken_set(p, d.mistakes, &v) == 0, "diagnosed mistakes %s do not apply", names);
		FUZZ_CHECK(v == wire, "mistakes %s give %08x, the wire has %08x", names, v, wire);
	}
	char text[512];
	FUZZ_CHECK(roce_icrc_diagnosis_format(&d, text, sizeof text) > 0, "diagnosis in words");
	for (int m = 0; m <= ROCE_ICRC_MISTAKE_COUNT; m++) {
		uint32_t v;
		int rc = roce_icrc_mistaken(p, (enum roce_icrc_mistake)m, &v);
		if (!verifiable)
			FUZZ_CHECK(rc == -1, "a mistaken ICRC for an unverifiable packet");
	}
}

static void check_text(const struct roce_pkt *p)
{
	char big[256], tiny[5];
	int a = roce_pkt_summary(p, big, sizeof big);
	int b = roce_pkt_summary(p, tiny, sizeof tiny);
	FUZZ_CHECK(a > 0 && a == b && (size_t)a < sizeof big && strlen(big) == (size_t)a, "summary %d/%d", a, b);
	a = roce_pkt_strerror(p, big, sizeof big);
	FUZZ_CHECK(a >= 0 && (size_t)a < sizeof big && strlen(big) == (size_t)a, "strerror %d", a);
	FUZZ_CHECK((a == 0) == (p->err == ROCE_OK), "strerror empty iff no error");
}

static enum roce_code parse(struct roce_pkt *p, enum entry e, const uint8_t *buf, size_t caplen,
			    size_t wirelen, unsigned flags)
{
	switch (e) {
	case E_IP: return roce_parse_ip(p, buf, caplen, wirelen, flags);
	case E_BTH: return roce_parse_bth(p, buf, caplen, wirelen, flags);
	default: return roce_parse_frame(p, buf, caplen, wirelen, flags);
	}
}

/* A complete conforming parse rebuilds byte for byte. */
static void check_rebuild(const struct roce_pkt *p, enum entry e, unsigned flags)
{
	struct roce_desc d;
	int rc = roce_desc_from_pkt(&d, p);
	bool has_ip = roce_pkt_has(p, ROCE_H_IPV4) || roce_pkt_has(p, ROCE_H_IPV6);
	if (p->err != ROCE_OK || !p->complete || !has_ip) {
		FUZZ_CHECK(rc == -1, "a description from an incomplete or failed parse");
		return;
	}
	FUZZ_CHECK(rc == 0, "no description from a complete parse");
	static uint8_t out[ROCE_ETH_LEN + ROCE_MAX_VLANS * ROCE_VLAN_LEN + 0x10000 + 64];
	long n = e == E_IP ? roce_build_ip(&d, out, sizeof out) : roce_build_frame(&d, out, sizeof out);
	enum roce_hdr iph = p->ip_version == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4;
	long want = (long)p->hdr_off[iph] + (long)p->l3_len;
	FUZZ_CHECK(n == want, "rebuilt %ld bytes, the packet has %ld", n, want);
	FUZZ_CHECK(memcmp(out, p->buf, (size_t)n) == 0, "the rebuilt frame differs from the input");
	/* A build that is too small for its buffer fails cleanly. */
	long small = e == E_IP ? roce_build_ip(&d, out, (size_t)n - 1) : roce_build_frame(&d, out, (size_t)n - 1);
	FUZZ_CHECK(small == -1, "building into %ld bytes returned %ld", n - 1, small);

	struct roce_pkt q;
	long m = e == E_IP ? roce_build_ip(&d, out, sizeof out) : roce_build_frame(&d, out, sizeof out);
	FUZZ_CHECK(m == n, "a second build differs in length");
	FUZZ_CHECK(parse(&q, e, out, (size_t)n, (size_t)n, flags) == ROCE_OK && q.complete,
		   "the rebuilt frame does not parse: %d", q.err);
	FUZZ_CHECK(q.hdrs == p->hdrs && q.payload_len == p->payload_len && q.opcode == p->opcode,
		   "the rebuilt frame parses differently");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned ctl = data[0];
	data++, size--;
	size_t cut = 0;
	if (ctl & 8) {
		if (size < 1)
			return 0;
		cut = data[0];
		data++, size--;
		if (cut > size)
			cut = size;
	}
	enum entry e = (ctl & 3) == 1 ? E_IP : (ctl & 3) == 2 ? E_BTH : E_FRAME;
	unsigned flags = ((ctl & 4) ? ROCE_PARSE_ANY_PORT : 0) | ((ctl & 0x10) ? ROCE_PARSE_RD_AUTO : 0) |
			 ((ctl & 0x20) ? ROCE_PARSE_RD_AS_DC : 0);
	size_t caplen = size - cut;
	/* Only the captured bytes exist: a read past them is an ASan report. */
	uint8_t *buf = malloc(caplen ? caplen : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, caplen);

	struct roce_pkt p;
	enum roce_code rc = parse(&p, e, buf, caplen, size, flags);
	FUZZ_CHECK(rc == p.err, "returned %d, recorded %d", rc, p.err);
	FUZZ_CHECK(p.caplen == caplen && p.wirelen == size, "lengths %u/%u", p.caplen, p.wirelen);
	struct roce_pkt again;
	parse(&again, e, buf, caplen, size, flags);
	FUZZ_CHECK(memcmp(&again, &p, sizeof p) == 0, "two parses of the same bytes differ");

	check_offsets(&p);
	check_findings(&p);
	check_icrc(&p);
	check_text(&p);
	check_rebuild(&p, e, flags);
	/* The DC hint: only for a packet taken as RD, with an RDETH whose
	 * reserved byte is set. */
	if (roce_pkt_looks_like_dc(&p))
		FUZZ_CHECK(!p.rd_as_dc && roce_pkt_has(&p, ROCE_H_RDETH) &&
				   roce_rdeth_resv(roce_pkt_hdr(&p, ROCE_H_RDETH)),
			   "looks like DC without an RD RDETH's reserved byte set");
	/* Decided per packet, nothing is left that looks like DC. */
	if (flags & ROCE_PARSE_RD_AUTO)
		FUZZ_CHECK(!roce_pkt_looks_like_dc(&p), "auto left a packet that looks like DC as RD");
	free(buf);
	return 0;
}

/* ---- Seeds: every frame of the given classic pcap files ---- */

static uint32_t rd32(const uint8_t *b, bool swap)
{
	uint32_t v;
	memcpy(&v, b, 4);
	return swap ? __builtin_bswap32(v) : v;
}

int fuzz_make_seeds(const char *dir, int argc, char **argv)
{
	int written = 0;
	for (int i = 0; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			fprintf(stderr, "%s: cannot open\n", argv[i]);
			return -1;
		}
		uint8_t gh[24];
		if (fread(gh, 1, 24, f) != 24) {
			fclose(f);
			fprintf(stderr, "%s: not a pcap file\n", argv[i]);
			return -1;
		}
		uint32_t magic;
		memcpy(&magic, gh, 4);
		bool swap = magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u;
		if (!swap && magic != 0xa1b2c3d4u && magic != 0xa1b23c4du) {
			fclose(f);
			fprintf(stderr, "%s: not a classic pcap file\n", argv[i]);
			return -1;
		}
		const char *base = strrchr(argv[i], '/');
		base = base ? base + 1 : argv[i];
		uint8_t rh[16];
		static uint8_t frame[1 + 65536];
		for (unsigned k = 0; fread(rh, 1, 16, f) == 16; k++) {
			uint32_t incl = rd32(rh + 8, swap);
			if (incl > 65535 || fread(frame + 1, 1, incl, f) != incl)
				break;
			frame[0] = 0; /* roce_parse_frame, no flags, nothing cut */
			char name[256];
			snprintf(name, sizeof name, "%.200s-%04u", base, k);
			if (fuzz_write_seed(dir, name, frame, incl + 1) != 0) {
				fclose(f);
				return -1;
			}
			written++;
			if (!strcmp(base, "dc.pcap")) { /* NVIDIA DC: also taken as DC */
				frame[0] = 0x20;
				snprintf(name, sizeof name, "%.200s-%04u-rd-as-dc", base, k);
				if (fuzz_write_seed(dir, name, frame, incl + 1) != 0) {
					fclose(f);
					return -1;
				}
				written++;
			}
		}
		fclose(f);
	}
	return written;
}
