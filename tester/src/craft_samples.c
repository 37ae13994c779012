/*
 * `roce-tester craft --samples DIR`: writes the sample captures of captures/
 * and, next to each, a .expect file that says what every frame should
 * decode to. Deterministic: the same build writes the same bytes, which a
 * test checks.
 */
#include <errno.h>
#include <glib.h>
#include <pcap/pcap.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "conversations.h"
#include "samples.h"

#define EPOCH 1767225600u /* 2026-01-01T00:00:00Z */

struct capture {
	pcap_t *pcap;
	pcap_dumper_t *dump;
	FILE *expect;
	const char *name;
	unsigned frames;
};

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("roce-tester craft: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void cap_open(struct capture *c, const char *dir, const char *name)
{
	c->name = name;
	c->frames = 0;
	c->pcap = pcap_open_dead(DLT_EN10MB, 65535);
	if (!c->pcap)
		die("pcap_open_dead failed");
	gchar *path = g_strdup_printf("%s/%s.pcap", dir, name);
	c->dump = pcap_dump_open(c->pcap, path);
	if (!c->dump)
		die("%s: %s", path, pcap_geterr(c->pcap));
	g_free(path);
	path = g_strdup_printf("%s/%s.expect", dir, name);
	c->expect = fopen(path, "w");
	if (!c->expect)
		die("%s: %s", path, strerror(errno));
	g_free(path);
	fprintf(c->expect,
		"# Expected decode of %s.pcap, written by roce-tester craft --samples.\n"
		"# frame<TAB>code<TAB>rule<TAB>context<TAB>description\n"
		"# code/rule: the finding libroce must raise, or - for a conforming frame\n"
		"# context: what the check needs to know: pmtu=N (path MTU), sender (the\n"
		"#   packet is as its source sent it), anyport (decoded on a port other\n"
		"#   than 4791), flow (the per-QP analysis of the whole capture, in\n"
		"#   order: roce/flow.h), or - for nothing\n",
		name);
}

static void cap_close(struct capture *c)
{
	if (pcap_dump_flush(c->dump) != 0)
		die("%s: write failed", c->name);
	pcap_dump_close(c->dump);
	pcap_close(c->pcap);
	if (fclose(c->expect) != 0)
		die("%s.expect: write failed", c->name);
}

/* Writes one frame, of which caplen bytes are captured, and its expectation. */
static void cap_frame_ctx(struct capture *c, const uint8_t *frame, size_t caplen, size_t wirelen,
			  enum roce_code code, const char *context, const char *fmt, va_list ap)
{
	struct pcap_pkthdr h;
	unsigned n = c->frames++;
	h.ts.tv_sec = EPOCH + n / 1000;
	h.ts.tv_usec = (n % 1000) * 1000;
	h.caplen = (bpf_u_int32)caplen;
	h.len = (bpf_u_int32)wirelen;
	pcap_dump((u_char *)c->dump, &h, frame);

	const struct roce_rule_info *r = roce_rule(roce_code_info(code)->rule);
	fprintf(c->expect, "%u\t%s\t%s\t%s\t", n + 1, code == ROCE_OK ? "-" : roce_code_info(code)->name,
		code == ROCE_OK ? "-" : (r ? r->id : "-"), context);
	vfprintf(c->expect, fmt, ap);
	fputc('\n', c->expect);
}

static void cap_frame(struct capture *c, const uint8_t *frame, size_t caplen, size_t wirelen,
		      enum roce_code code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cap_frame_ctx(c, frame, caplen, wirelen, code, "-", fmt, ap);
	va_end(ap);
}

static void cap_frame_with(struct capture *c, const uint8_t *frame, size_t caplen, size_t wirelen,
			   enum roce_code code, const char *context, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cap_frame_ctx(c, frame, caplen, wirelen, code, context, fmt, ap);
	va_end(ap);
}

static size_t build(struct roce_desc *d, uint8_t *out)
{
	long n = roce_build_frame(d, out, SAMPLE_FRAME_MAX);
	if (n <= 0)
		die("cannot build opcode 0x%02x", (unsigned)roce_bth_opcode(d->bth));
	return (size_t)n;
}

/* Every defined opcode; every pad count for opcodes whose last packet
 * carries a free-length payload. */
static void gen_opcodes(const char *dir, int ipv)
{
	struct capture c;
	uint8_t payload[SAMPLE_FRAME_MAX], frame[SAMPLE_FRAME_MAX];
	sample_fill_pattern(payload, sizeof payload);
	cap_open(&c, dir, ipv == 4 ? "opcodes-ipv4" : "opcodes-ipv6");
	for (unsigned op = 0; op < 256; op++) {
		const struct roce_opcode_info *oi = roce_opcode((uint8_t)op);
		if (!oi->name)
			continue;
		bool free_len = (oi->flags & ROCE_OPF_PAYLOAD) && !oi->fixed_payload &&
				(oi->position == ROCE_POS_LAST || oi->position == ROCE_POS_ONLY);
		for (size_t want = 4; want < (free_len ? 8u : 5u); want++) {
			size_t plen = sample_payload_len((uint8_t)op, 0, want);
			struct roce_desc d;
			sample_desc(&d, (uint8_t)op, ipv, payload, plen);
			size_t n = build(&d, frame);
			cap_frame(&c, frame, n, n, ROCE_OK, "%s, %zu payload bytes, pad %u", oi->name, plen,
				  (unsigned)(-plen & 3));
		}
	}
	cap_close(&c);
}

/* 802.1Q and 802.1ad tags on every opcode, both IP versions. */
static void gen_vlan(const char *dir)
{
	struct capture c;
	uint8_t payload[SAMPLE_FRAME_MAX], frame[SAMPLE_FRAME_MAX];
	sample_fill_pattern(payload, sizeof payload);
	cap_open(&c, dir, "vlan");
	for (unsigned op = 0; op < 256; op++) {
		const struct roce_opcode_info *oi = roce_opcode((uint8_t)op);
		if (!oi->name)
			continue;
		for (int ipv = 4; ipv <= 6; ipv += 2) {
			struct roce_desc d;
			size_t plen = sample_payload_len((uint8_t)op, 0, 13);
			sample_desc(&d, (uint8_t)op, ipv, payload, plen);
			if (ipv == 4) {
				d.n_vlan = 1;
				d.vlan_tpid[0] = ROCE_ETHERTYPE_VLAN;
				d.vlan_tci[0] = 3u << 13 | 100; /* PCP 3, VID 100 */
			} else {
				d.n_vlan = 2;
				d.vlan_tpid[0] = ROCE_ETHERTYPE_QINQ;
				d.vlan_tci[0] = 200;
				d.vlan_tpid[1] = ROCE_ETHERTYPE_VLAN;
				d.vlan_tci[1] = 3u << 13 | 100;
			}
			size_t n = build(&d, frame);
			cap_frame(&c, frame, n, n, ROCE_OK, "%s over IPv%d, %s", oi->name, ipv,
				  ipv == 4 ? "802.1Q VID 100 PCP 3" : "802.1ad VID 200 + 802.1Q VID 100");
		}
	}
	cap_close(&c);
}

/* RoCE v1 (A16, for dual-mode ports, A17.8): every RC, UC, UD and XRC
 * opcode (RD has no RoCE implementation; the CNP is RoCEv2's), with the GIDs of IPv6 addresses and of IPv4 ones (::ffff:a.b.c.d),
 * one frame of each kind 802.1Q-tagged; and one SEND both ways, as RoCE v1
 * and as RoCEv2, as a dual-mode port sends them. Context "rocev1": libroce
 * parses them with ROCE_PARSE_ROCEV1 (roce-tester lint --rocev1);
 * Wireshark's own InfiniBand dissector decodes Ethertype 0x8915. */
static void gen_rocev1(const char *dir)
{
	struct capture c;
	uint8_t payload[SAMPLE_FRAME_MAX], frame[SAMPLE_FRAME_MAX];
	sample_fill_pattern(payload, sizeof payload);
	cap_open(&c, dir, "rocev1");
	for (unsigned op = 0; op < 256; op++) {
		const struct roce_opcode_info *oi = roce_opcode((uint8_t)op);
		if (!oi->name || oi->kind == ROCE_K_CNP || oi->transport == ROCE_T_RD)
			continue;
		for (int ipv = 4; ipv <= 6; ipv += 2) {
			size_t plen = sample_payload_len((uint8_t)op, 0, ipv == 4 ? 13 : 16);
			struct roce_desc d;
			sample_desc(&d, (uint8_t)op, 6, payload, plen);
			if (ipv == 4) {
				/* The GIDs of 198.18.0.1 and .2. */
				for (int g = 0; g < 2; g++) {
					uint8_t *gid = d.ip + 8 + 16 * g;
					uint8_t last = gid[15];
					memset(gid, 0, 16);
					gid[10] = gid[11] = 0xFF;
					gid[12] = 198;
					gid[13] = 18;
					gid[15] = last;
				}
				d.n_vlan = 1;
				d.vlan_tpid[0] = ROCE_ETHERTYPE_VLAN;
				d.vlan_tci[0] = 3u << 13 | 100;
			}
			sample_to_rocev1(&d);
			size_t n = build(&d, frame);
			cap_frame_with(&c, frame, n, n, ROCE_OK, "rocev1", "RoCE v1 %s, %zu payload bytes, %s", oi->name,
				       plen, ipv == 4 ? "GIDs of IPv4 addresses, 802.1Q VID 100 PCP 3" : "GIDs of IPv6 addresses");
		}
	}
	for (int v1 = 1; v1 >= 0; v1--) {
		struct roce_desc d;
		sample_desc(&d, 0x04, 6, payload, 32);
		if (v1)
			sample_to_rocev1(&d);
		size_t n = build(&d, frame);
		cap_frame_with(&c, frame, n, n, ROCE_OK, v1 ? "rocev1" : "-", "dual-mode port: RC SEND Only as %s",
			       v1 ? "RoCE v1" : "RoCEv2 over IPv6, the same GIDs");
	}
	cap_close(&c);
}

static void gen_cnp(const char *dir)
{
	struct capture c;
	uint8_t frame[SAMPLE_FRAME_MAX];
	cap_open(&c, dir, "cnp");
	for (int ipv = 4; ipv <= 6; ipv += 2) {
		for (int becn = 0; becn < 2; becn++) {
			struct roce_desc d;
			sample_desc(&d, ROCE_OPCODE_CNP, ipv, NULL, 0);
			roce_bth_set_becn(d.bth, (unsigned)becn);
			if (ipv == 4)
				roce_ipv4_set_dscp(d.ip, 48);
			else
				roce_ipv6_set_dscp(d.ip, 48);
			size_t n = build(&d, frame);
			cap_frame(&c, frame, n, n, ROCE_OK, "CNP over IPv%d, BECN %d, DSCP 48", ipv, becn);
		}
	}
	size_t n = sample_unhex(sample_vectors[1].hex, frame, sizeof frame);
	cap_frame(&c, frame, n, n, ROCE_OK, "%s", sample_vectors[1].name);
	cap_close(&c);
}

static void gen_vectors(const char *dir)
{
	struct capture c;
	uint8_t frame[SAMPLE_FRAME_MAX];
	cap_open(&c, dir, "vectors");
	for (size_t i = 0; i < sample_vector_count; i++) {
		size_t n = sample_unhex(sample_vectors[i].hex, frame, sizeof frame);
		cap_frame(&c, frame, n, n, ROCE_OK, "%s", sample_vectors[i].name);
	}
	cap_close(&c);
}

/* Wrong ICRCs: one per known implementation mistake (alone and with the
 * byte order also swapped), and one that no mistake explains. */
static void gen_bad_icrc(const char *dir)
{
	struct capture c;
	uint8_t payload[SAMPLE_FRAME_MAX], frame[SAMPLE_FRAME_MAX];
	sample_fill_pattern(payload, sizeof payload);
	cap_open(&c, dir, "bad-icrc");
	for (int ipv = 4; ipv <= 6; ipv += 2) {
		for (int swap = 0; swap < 2; swap++) {
			for (int m = ROCE_ICRC_MISTAKE_NONE + 1; m < ROCE_ICRC_MISTAKE_COUNT; m++) {
				if (swap && m == ROCE_ICRC_MISTAKE_BYTE_ORDER)
					continue;
				struct roce_desc d;
				sample_desc(&d, 0x04, ipv, payload, 5); /* RC SEND Only, pad 3 */
				roce_bth_set_becn(d.bth, 1);
				roce_udp_set_csum(d.udp, 0x1234);
				size_t n = build(&d, frame);
				struct roce_pkt p;
				uint32_t v;
				roce_parse_frame(&p, frame, n, n, 0);
				if (roce_icrc_mistaken(&p, (enum roce_icrc_mistake)m, &v) != 0)
					continue;
				roce_le32_store(frame + p.icrc_off, swap ? __builtin_bswap32(v) : v);
				cap_frame(&c, frame, n, n, ROCE_C_ICRC, "IPv%d ICRC: %s%s", ipv,
					  roce_icrc_mistake_text((enum roce_icrc_mistake)m),
					  swap ? ", and the byte order swapped" : "");
			}
		}
		struct roce_desc d;
		sample_desc(&d, 0x04, ipv, payload, 5);
		d.ovr |= ROCE_OVR_ICRC;
		d.icrc = 0x0BADC0DE;
		size_t n = build(&d, frame);
		cap_frame(&c, frame, n, n, ROCE_C_ICRC, "IPv%d ICRC: corrupted, no known mistake", ipv);
	}
	cap_close(&c);
}

/* Frames cut short by the capture's snapshot length: the ICRC cannot be
 * verified, and a cut inside the headers is reported as such. */
static void gen_truncated(const char *dir)
{
	static const size_t cuts[] = { 20, 40, 54, 60, 100, 500, 1000, 1074 };
	struct capture c;
	uint8_t payload[SAMPLE_FRAME_MAX], frame[SAMPLE_FRAME_MAX];
	sample_fill_pattern(payload, sizeof payload);
	cap_open(&c, dir, "truncated");
	for (int ipv = 4; ipv <= 6; ipv += 2) {
		struct roce_desc d;
		sample_desc(&d, 0x0A, ipv, payload, 1024); /* RC RDMA WRITE Only */
		size_t n = build(&d, frame);
		for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
			struct roce_pkt p;
			roce_parse_frame(&p, frame, cuts[i], n, 0);
			cap_frame(&c, frame, cuts[i], n, p.err, "IPv%d RDMA WRITE Only of %zu bytes, %zu captured",
				  ipv, n, cuts[i]);
		}
	}
	cap_close(&c);
}

static void gen_violations(const char *dir)
{
	struct capture c;
	uint8_t frame[SAMPLE_FRAME_MAX];
	cap_open(&c, dir, "violations");
	for (size_t i = 0; i < sample_violation_count; i++) {
		const struct sample_violation *v = &sample_violations[i];
		size_t wirelen, n = sample_violation_frame(v, frame, &wirelen);
		if (!n)
			die("cannot build violation %s", roce_code_info(v->code)->name);
		char ctx[64];
		int k = 0;
		if (v->pmtu)
			k += snprintf(ctx + k, sizeof ctx - (size_t)k, "pmtu=%u,", v->pmtu);
		if (v->check_flags & ROCE_CHK_SENDER)
			k += snprintf(ctx + k, sizeof ctx - (size_t)k, "sender,");
		if (v->parse_flags & ROCE_PARSE_ANY_PORT)
			k += snprintf(ctx + k, sizeof ctx - (size_t)k, "anyport,");
		if (k)
			ctx[k - 1] = '\0';
		cap_frame_with(&c, frame, n, wirelen, v->code, k ? ctx : "-", "%s", v->what);
	}
	cap_close(&c);
}

/* Conversations: frames carry their own times, and every expectation needs
 * the per-QP analysis (context "flow"). */
static void emit_conv(void *ctx, const uint8_t *frame, size_t len, uint64_t t_us, enum roce_code expect,
		      const char *what)
{
	struct capture *c = ctx;
	struct pcap_pkthdr h;
	unsigned n = c->frames++;
	h.ts.tv_sec = (time_t)(EPOCH + t_us / 1000000u);
	h.ts.tv_usec = (suseconds_t)(t_us % 1000000u);
	h.caplen = (bpf_u_int32)len;
	h.len = (bpf_u_int32)len;
	pcap_dump((u_char *)c->dump, &h, frame);
	const struct roce_rule_info *r = roce_rule(roce_code_info(expect)->rule);
	fprintf(c->expect, "%u\t%s\t%s\tflow\t%s\n", n + 1,
		expect == ROCE_OK ? "-" : roce_code_info(expect)->name,
		expect == ROCE_OK ? "-" : (r ? r->id : "-"), what);
}

static void gen_conversation(const char *dir, const char *name,
			     void (*gen)(sample_emit_fn emit, void *ctx))
{
	struct capture c;
	cap_open(&c, dir, name);
	gen(emit_conv, &c);
	cap_close(&c);
}

int craft_samples(const char *dir)
{
	gen_opcodes(dir, 4);
	gen_opcodes(dir, 6);
	gen_vlan(dir);
	gen_rocev1(dir);
	gen_cnp(dir);
	gen_vectors(dir);
	gen_bad_icrc(dir);
	gen_truncated(dir);
	gen_violations(dir);
	gen_conversation(dir, "flows-rc", sample_conv_rc);
	gen_conversation(dir, "flows-nvme", sample_conv_nvme);
	gen_conversation(dir, "flows-errors", sample_conv_errors);
	gen_conversation(dir, "flows-uc-ud-xrc", sample_conv_uc_ud_xrc);
	return 0;
}
