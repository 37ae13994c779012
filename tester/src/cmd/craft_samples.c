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
				d.vlan_tci[0] = roce_vlan_tci(3, 100); /* PCP 3, VID 100 */
			} else {
				d.n_vlan = 2;
				d.vlan_tpid[0] = ROCE_ETHERTYPE_QINQ;
				d.vlan_tci[0] = 200;
				d.vlan_tpid[1] = ROCE_ETHERTYPE_VLAN;
				d.vlan_tci[1] = roce_vlan_tci(3, 100);
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
 * parses them with ROCE_PARSE_ROCEV1 (roce-tester lint, by default), the
 * plugin takes Ethertype 0x8915 (and gives it back to Wireshark's
 * InfiniBand dissector with its take_rocev1 preference off). */
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
				uint8_t *gids[2] = { roce_grh_sgid_ptr(d.ip), roce_grh_dgid_ptr(d.ip) };
				for (int g = 0; g < 2; g++) {
					const uint8_t ip[4] = { 198, 18, 0, gids[g][15] };
					roce_gid_from_ip(4, ip, gids[g]);
				}
				d.n_vlan = 1;
				d.vlan_tpid[0] = ROCE_ETHERTYPE_VLAN;
				d.vlan_tci[0] = roce_vlan_tci(3, 100);
			}
			sample_to_rocev1(&d);
			size_t n = build(&d, frame);
			cap_frame_with(&c, frame, n, n, ROCE_OK, "rocev1", "RoCE v1 %s, %zu payload bytes, %s", oi->name,
				       plen, ipv == 4 ? "GIDs of IPv4 addresses, 802.1Q VID 100 PCP 3" : "GIDs of IPv6 addresses");
		}
	}
	for (int v1 = 1; v1 >= 0; v1--) {
		struct roce_desc d;
		sample_desc(&d, ROCE_OP_RC_SEND_ONLY, 6, payload, 32);
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
			sample_desc(&d, ROCE_OP_CNP, ipv, NULL, 0);
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
				sample_desc(&d, ROCE_OP_RC_SEND_ONLY, ipv, payload, 5); /* RC SEND Only, pad 3 */
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
		sample_desc(&d, ROCE_OP_RC_SEND_ONLY, ipv, payload, 5);
		d.ovr |= ROCE_OVR_ICRC;
		d.icrc = 0x0BADC0DE;
		size_t n = build(&d, frame);
		cap_frame(&c, frame, n, n, ROCE_C_ICRC, "IPv%d ICRC: corrupted, no known mistake", ipv);
	}
	/* Mistakes made together, each named in the diagnosis. */
	static const struct {
		int ipv;
		const char *mistakes, *what;
	} combos[] = {
		{ 4, "ipv4-tos-unmasked+ipv4-ttl-unmasked+ipv4-csum-unmasked",
		  "every IPv4 variant field left unmasked, UDP and BTH masked" },
		{ 4, "nothing-masked+byte-order", "nothing masked, and most-significant byte first" },
		{ 4, "no-prefix+not-inverted", "no prefix and no final inversion" },
		{ 4, "pad-omitted+bth4-unmasked+byte-order", "the pad left out, BTH byte 4 unmasked, byte order swapped" },
		{ 6, "ipv6-tc-unmasked+ipv6-fl-unmasked+ipv6-hl-unmasked",
		  "every IPv6 variant field left unmasked, UDP and BTH masked" },
		{ 6, "nothing-masked+byte-order", "nothing masked, and most-significant byte first" },
		{ 6, "no-prefix+not-inverted", "no prefix and no final inversion" },
		{ 6, "udp-csum-unmasked+ipv6-fl-unmasked+not-inverted", "UDP checksum and Flow Label unmasked, not inverted" },
	};
	for (size_t i = 0; i < sizeof combos / sizeof combos[0]; i++) {
		struct roce_desc d;
		sample_desc(&d, ROCE_OP_RC_SEND_ONLY, combos[i].ipv, payload, 5);
		roce_bth_set_becn(d.bth, 1);
		roce_udp_set_csum(d.udp, 0x1234);
		size_t n = build(&d, frame);
		struct roce_pkt p;
		uint32_t set = 0, v = 0;
		roce_parse_frame(&p, frame, n, n, 0);
		if (roce_icrc_mistakes_parse(combos[i].mistakes, &set) != 0 || roce_icrc_mistaken_set(&p, set, &v) != 0)
			die("ICRC mistakes %s", combos[i].mistakes);
		roce_le32_store(frame + p.icrc_off, v);
		cap_frame(&c, frame, n, n, ROCE_C_ICRC, "IPv%d ICRC: %s (%s)", combos[i].ipv, combos[i].what,
			  combos[i].mistakes);
	}
	cap_close(&c);
}

/* Writes the ICRC the bytes of a frame deserve, whatever they hold. */
static void seal(uint8_t *frame, size_t n)
{
	struct roce_pkt p;
	roce_parse_frame(&p, frame, n, n, 0);
	enum roce_hdr ip = p.ip_version == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4;
	if (!p.icrc_found || !roce_pkt_has(&p, ip))
		die("no ICRC to seal");
	roce_le32_store(frame + p.icrc_off, roce_icrc(frame + p.hdr_off[ip], p.icrc_off - p.hdr_off[ip]));
}

/* Packets whose headers after the BTH cannot be parsed, yet whose ICRC can
 * be checked: a good one says the sender built them so, a bad one that
 * they were damaged on the way. */
static void gen_malformed_icrc(const char *dir)
{
	struct capture c;
	uint8_t payload[SAMPLE_FRAME_MAX], frame[SAMPLE_FRAME_MAX];
	sample_fill_pattern(payload, sizeof payload);
	cap_open(&c, dir, "malformed-icrc");
	for (int ipv = 4; ipv <= 6; ipv += 2) {
		for (int good = 1; good >= 0; good--) {
			/* RC SEND Only with no payload and a pad count of 3. */
			struct roce_desc d;
			sample_desc(&d, ROCE_OP_RC_SEND_ONLY, ipv, payload, 0);
			size_t n = build(&d, frame);
			struct roce_pkt p;
			roce_parse_frame(&p, frame, n, n, 0);
			roce_bth_set_padcnt(frame + p.hdr_off[ROCE_H_BTH], 3);
			if (good)
				seal(frame, n);
			cap_frame(&c, frame, n, n, ROCE_E_PADCNT, "IPv%d SEND Only, no payload, pad count 3: %s", ipv,
				  good ? "ICRC good (the sender built it so)" : "ICRC bad (damaged on the way)");
			/* RC SEND Only of 4 bytes whose opcode became RDMA WRITE Only,
			 * whose RETH the datagram cannot hold. */
			sample_desc(&d, ROCE_OP_RC_SEND_ONLY, ipv, payload, 4);
			n = build(&d, frame);
			roce_parse_frame(&p, frame, n, n, 0);
			roce_bth_set_opcode(frame + p.hdr_off[ROCE_H_BTH], ROCE_OP_RC_WRITE_ONLY);
			if (good)
				seal(frame, n);
			cap_frame(&c, frame, n, n, ROCE_E_TRUNC_XHDR, "IPv%d RDMA WRITE Only with no room for its RETH: %s",
				  ipv, good ? "ICRC good (the sender built it so)" : "ICRC bad (damaged on the way)");
		}
		/* Opcodes with no known headers: the ICRC still covers them. */
		static const uint8_t opcodes[] = { 0x1E, 0xF0 };
		for (size_t i = 0; i < sizeof opcodes; i++) {
			struct roce_desc d;
			sample_desc(&d, ROCE_OP_RC_SEND_ONLY, ipv, payload, 8);
			size_t n = build(&d, frame);
			struct roce_pkt p;
			roce_parse_frame(&p, frame, n, n, 0);
			roce_bth_set_opcode(frame + p.hdr_off[ROCE_H_BTH], opcodes[i]);
			seal(frame, n);
			cap_frame(&c, frame, n, n, i ? ROCE_E_OPCODE_VENDOR : ROCE_E_OPCODE_UNDEFINED,
				  "IPv%d opcode 0x%02x, ICRC good", ipv, opcodes[i]);
		}
	}
	cap_close(&c);
}

/* A plain UDP datagram over IPv4 from 198.18.0.1 to 198.18.0.2: the other
 * protocols' own traffic, on the ports RoCEv2 packets may come from. */
static size_t udp_frame(uint8_t *f, uint16_t sport, uint16_t dport, const uint8_t *payload, size_t len)
{
	/* libroce builds the Ethernet, IPv4 and UDP headers of a conforming
	 * RoCEv2 frame; the datagram then carries `payload` instead of a BTH. */
	struct roce_desc d;
	sample_desc(&d, ROCE_OP_RC_SEND_ONLY, 4, NULL, 0);
	long n = roce_build_frame(&d, f, SAMPLE_FRAME_MAX);
	struct roce_pkt p;
	if (n <= 0 || roce_parse_frame(&p, f, (size_t)n, (size_t)n, 0) != ROCE_OK)
		return 0;
	uint8_t *ip = f + p.hdr_off[ROCE_H_IPV4], *udp = f + p.hdr_off[ROCE_H_UDP];
	size_t udp_len = ROCE_UDP_LEN + len, ip_len = (size_t)(udp - ip) + udp_len;
	roce_ipv4_set_totlen(ip, (uint16_t)ip_len);
	roce_ipv4_set_csum(ip, 0);
	roce_ipv4_set_csum(ip, roce_ipv4_checksum(ip, ROCE_IPV4_LEN));
	roce_udp_set_sport(udp, sport);
	roce_udp_set_dport(udp, dport);
	roce_udp_set_len(udp, (uint16_t)udp_len);
	roce_udp_set_csum(udp, 0);
	memcpy(udp + ROCE_UDP_LEN, payload, len);
	return (size_t)(udp - f) + udp_len;
}

/* RoCEv2 from small UDP source ports that other protocols own (some NICs
 * send from the QP number, or another small port): RoCEv2 whenever the
 * BTH parses and the ICRC verifies; the other protocols' own traffic, and
 * a datagram to 4791 with a bad ICRC, decode as before. */
static void gen_low_ports(const char *dir)
{
	struct capture c;
	uint8_t payload[SAMPLE_FRAME_MAX], frame[SAMPLE_FRAME_MAX];
	sample_fill_pattern(payload, sizeof payload);
	cap_open(&c, dir, "low-ports");
	static const struct {
		uint16_t port;
		int ipv;
		const char *owner;
	} low[] = {
		{ 53, 4, "DNS" },    { 69, 4, "TFTP" },    { 123, 4, "NTP" },  { 161, 4, "SNMP" },
		{ 2049, 4, "NFS" },  { 111, 4, "portmap" }, { 500, 4, "ISAKMP" }, { 0x123, 4, "the QP number" },
		{ 53, 6, "DNS" },    { 69, 6, "TFTP" },
	};
	for (size_t i = 0; i < sizeof low / sizeof low[0]; i++) {
		struct roce_desc d;
		sample_desc(&d, ROCE_OP_RC_SEND_ONLY, low[i].ipv, payload, 32);
		roce_udp_set_sport(d.udp, low[i].port);
		size_t n = build(&d, frame);
		cap_frame(&c, frame, n, n, ROCE_OK, "IPv%d RoCEv2 SEND Only from UDP source port %u (%s's)", low[i].ipv,
			  low[i].port, low[i].owner);
	}
	/* A bad ICRC from port 53 with no good packet before it: not RoCEv2
	 * to Wireshark (DNS keeps it); one from port 69 after the good one
	 * above: the same flow, RoCEv2, its ICRC judged. */
	struct roce_desc d;
	sample_desc(&d, ROCE_OP_RC_SEND_ONLY, 4, payload, 32);
	roce_udp_set_sport(d.udp, 53);
	static const uint8_t other_host[4] = { 198, 18, 0, 9 };
	memcpy(roce_ipv4_src_ptr(d.ip), other_host, sizeof other_host);
	d.ovr |= ROCE_OVR_ICRC;
	d.icrc = 0x0BADC0DE;
	size_t n = build(&d, frame);
	cap_frame_with(&c, frame, n, n, ROCE_OK, "proto=dns",
		       "IPv4 SEND Only from port 53 with a bad ICRC, from a host with no good one: DNS's");
	sample_desc(&d, ROCE_OP_RC_SEND_ONLY, 4, payload, 32);
	roce_udp_set_sport(d.udp, 69);
	roce_bth_set_psn(d.bth, 43);
	d.ovr |= ROCE_OVR_ICRC;
	d.icrc = 0x0BADC0DE;
	n = build(&d, frame);
	cap_frame(&c, frame, n, n, ROCE_C_ICRC, "IPv4 SEND Only from port 69 with a bad ICRC, in a flow already RoCEv2");

	/* The other protocols' own traffic. */
	static const uint8_t dns_query[] = { 0x12, 0x34, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
					     7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'o', 'r', 'g', 0,
					     0x00, 0x01, 0x00, 0x01 };
	uint8_t dns_reply[sizeof dns_query];
	memcpy(dns_reply, dns_query, sizeof dns_query);
	dns_reply[2] = 0x81;
	dns_reply[3] = 0x80;
	static const uint8_t tftp_rrq[] = { 0x00, 0x01, 'f', 'i', 'l', 'e', '.', 't', 'x', 't', 0,
					    'o', 'c', 't', 'e', 't', 0 };
	uint8_t ntp[48] = { 0x23 };
	n = udp_frame(frame, 40000, 53, dns_query, sizeof dns_query);
	cap_frame_with(&c, frame, n, n, ROCE_OK, "proto=dns", "DNS query to port 53");
	n = udp_frame(frame, 53, 40000, dns_reply, sizeof dns_reply);
	cap_frame_with(&c, frame, n, n, ROCE_OK, "proto=dns", "DNS reply from port 53");
	n = udp_frame(frame, ROCE_UDP_PORT, 53, dns_query, sizeof dns_query);
	cap_frame_with(&c, frame, n, n, ROCE_OK, "proto=dns", "DNS query from source port 4791 to port 53");
	n = udp_frame(frame, 40001, 69, tftp_rrq, sizeof tftp_rrq);
	cap_frame_with(&c, frame, n, n, ROCE_OK, "proto=tftp", "TFTP read request to port 69");
	n = udp_frame(frame, 40002, 123, ntp, sizeof ntp);
	cap_frame_with(&c, frame, n, n, ROCE_OK, "proto=ntp", "NTP client request to port 123");
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
		sample_desc(&d, ROCE_OP_RC_WRITE_ONLY, ipv, payload, 1024); /* RC RDMA WRITE Only */
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

/* UD multicast (notes §7.1): two senders' datagrams to a group
 * (239.255.18.1 or ff15::db8:1), framed to its mapped MAC with DestQP
 * 0xFFFFFF, one behind an 802.1Q tag; then one frame per rule broken: a
 * wrong MAC, a unicast DestQP to the group, an RC SEND to DestQP 0xFFFFFF
 * at the group (IBA9.2-DESTQP's alone: one finding for one deviation),
 * and a UD SEND to 0xFFFFFF at a unicast address, which names no group. */
struct mcast_frame {
	uint8_t opcode;
	bool from_c;           /* the second sender, 198.18.0.3 or 2001:db8::3 */
	bool to_group;         /* else to the sample's unicast peer */
	uint32_t destqp;
	bool unicast_mac;      /* framed to the peer's unicast MAC */
	bool vlan;
	enum roce_code code;
	const char *what;
};

static void gen_multicast(const char *dir, int ipv)
{
	static const uint8_t group4[4] = { 239, 255, 18, 1 };
	static const uint8_t group6[16] = { 0xff, 0x15, [12] = 0x0d, [13] = 0xb8, [15] = 1 };
	static const uint8_t mac_c[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x03 };
	static const struct mcast_frame frames[] = {
		{ ROCE_OP_UD_SEND_ONLY, false, true, ROCE_MCAST_QPN, false, false, ROCE_OK,
		  "UD SEND Only from QP 0x000321 to the group" },
		{ ROCE_OP_UD_SEND_ONLY_WITH_IMM, false, true, ROCE_MCAST_QPN, false, false, ROCE_OK,
		  "UD SEND Only with Immediate from QP 0x000321 to the group" },
		{ ROCE_OP_UD_SEND_ONLY, true, true, ROCE_MCAST_QPN, false, false, ROCE_OK,
		  "UD SEND Only from the second sender's QP 0x000654 to the group" },
		{ ROCE_OP_UD_SEND_ONLY, true, true, ROCE_MCAST_QPN, false, true, ROCE_OK,
		  "UD SEND Only from QP 0x000654 to the group, 802.1Q VID 100 PCP 3" },
		{ ROCE_OP_UD_SEND_ONLY, false, true, ROCE_MCAST_QPN, true, false, ROCE_C_MCAST_MAC4,
		  "UD SEND Only to the group framed to a unicast MAC" },
		{ ROCE_OP_UD_SEND_ONLY, false, true, 0x000123, false, false, ROCE_C_MCAST_QP,
		  "UD SEND Only to the group with the unicast DestQP 0x000123" },
		{ ROCE_OP_RC_SEND_ONLY, false, true, ROCE_MCAST_QPN, false, false, ROCE_C_DESTQP_MCAST,
		  "RC SEND Only to the group with DestQP 0xFFFFFF (IBA9.2-DESTQP alone: one finding, not C_MCAST_OPCODE too)" },
		{ ROCE_OP_UD_SEND_ONLY, false, false, ROCE_MCAST_QPN, false, false, ROCE_C_MCAST_UNICAST,
		  "UD SEND Only to DestQP 0xFFFFFF at a unicast address: it names no group" },
	};
	struct capture c;
	uint8_t payload[SAMPLE_FRAME_MAX], frame[SAMPLE_FRAME_MAX];
	sample_fill_pattern(payload, sizeof payload);
	cap_open(&c, dir, ipv == 4 ? "multicast-ipv4" : "multicast-ipv6");
	const uint8_t *group = ipv == 4 ? group4 : group6;
	uint32_t psn[2] = { 100, 900 };
	for (size_t i = 0; i < sizeof frames / sizeof frames[0]; i++) {
		const struct mcast_frame *m = &frames[i];
		struct roce_desc d;
		sample_desc(&d, m->opcode, ipv, payload, 64);
		if (m->from_c) {
			memcpy(d.eth_src, mac_c, 6);
			if (ipv == 4)
				roce_ipv4_src_ptr(d.ip)[3] = 3;
			else
				roce_ipv6_src_ptr(d.ip)[15] = 3;
		}
		if (m->to_group) {
			memcpy(ipv == 4 ? roce_ipv4_dst_ptr(d.ip) : roce_ipv6_dst_ptr(d.ip), group, ipv == 4 ? 4 : 16);
			if (!m->unicast_mac)
				roce_mcast_mac(ipv, group, d.eth_dst);
		}
		if (m->vlan) {
			d.n_vlan = 1;
			d.vlan_tpid[0] = ROCE_ETHERTYPE_VLAN;
			d.vlan_tci[0] = roce_vlan_tci(3, 100);
		}
		if (roce_desc_xhdrs(&d) & ROCE_XHDR_BIT(ROCE_H_DETH))
			roce_deth_set_srcqp(roce_desc_hdr(&d, ROCE_H_DETH), m->from_c ? 0x000654 : 0x000321);
		roce_bth_set_destqp(d.bth, m->destqp);
		roce_bth_set_psn(d.bth, psn[m->from_c]++);
		size_t n = build(&d, frame);
		enum roce_code code = m->code == ROCE_C_MCAST_MAC4 && ipv == 6 ? ROCE_C_MCAST_MAC6 : m->code;
		cap_frame(&c, frame, n, n, code, "IPv%d %s", ipv, m->what);
	}
	cap_close(&c);
}

/* NVIDIA DC on the RD opcodes (dcopcodes.def), judged with the RD range
 * taken as DC (context "dc"): DCI QP 0x000321 of 198.18.0.1 and DCT
 * 0x000123 of 198.18.0.2, DC access key 0xd0c0a0b0c0ffee42 in every
 * DCETH (responses too: what a real one carries there is not published).
 * A DC Connect, every DC opcode once, then one frame per judgement that
 * still applies: an RDETH reserved byte, a wrong ICRC, and 0x55 with SE
 * set, which is no DC opcode. */
#define DC_SAMPLE_KEY 0xd0c0a0b0c0ffee42ull

/* The DC packet of opcode op (its DC header set, sample_desc's values;
 * First and Middle packets of a path MTU of 256 bytes). */
static void dc_desc(struct roce_desc *d, uint8_t op, bool se, const uint8_t *payload)
{
	const struct roce_opcode_info *dc = roce_opcode_dc(op, false);
	bool pay = (dc->flags & ROCE_OPF_PAYLOAD) && dc->kind != ROCE_K_DC_CONNECT;
	sample_desc(d, op, 4, payload, pay ? sample_payload_len(op, 256, 24) : 0);
	roce_bth_set_se(d->bth, se);
	d->ovr |= ROCE_OVR_XHDRS;
	d->xhdrs = dc->xhdrs;
	roce_dc_set_key(roce_desc_hdr(d, ROCE_H_DCETH), DC_SAMPLE_KEY);
}

static void gen_dc(const char *dir)
{
	struct capture c;
	uint8_t payload[SAMPLE_FRAME_MAX], frame[SAMPLE_FRAME_MAX];
	sample_fill_pattern(payload, sizeof payload);
	cap_open(&c, dir, "dc");
	fputs("#   dc: the RD-range opcodes taken as NVIDIA DC (tshark -o rocev2.rd_range:dc,\n"
	      "#   roce-tester lint --rd-as-dc)\n",
	      c.expect);
	struct roce_desc d;
	dc_desc(&d, ROCE_OP_DC_CONNECT, false, payload);
	size_t n = build(&d, frame);
	cap_frame_with(&c, frame, n, n, ROCE_OK, "dc", "DC Connect (0x55, SE clear): DCETH and DCCETH");
	for (unsigned op = ROCE_OP_DC_SEND_FIRST; op < ROCE_OP_DC_CONNECT; op++) {
		dc_desc(&d, (uint8_t)op, false, payload);
		n = build(&d, frame);
		cap_frame_with(&c, frame, n, n, ROCE_OK, "dc", "%s", roce_opcode_dc((uint8_t)op, false)->name);
	}
	dc_desc(&d, ROCE_OP_DC_SEND_ONLY, false, payload);
	roce_rdeth_set_resv(roce_desc_hdr(&d, ROCE_H_RDETH), 0x01);
	n = build(&d, frame);
	cap_frame_with(&c, frame, n, n, ROCE_C_RDETH_RESV, "dc", "DC SEND Only with RDETH reserved byte 0x01");
	dc_desc(&d, ROCE_OP_DC_SEND_ONLY, false, payload);
	n = build(&d, frame);
	frame[n - 1] ^= 0xFF;
	cap_frame_with(&c, frame, n, n, ROCE_C_ICRC, "dc", "DC SEND Only with its ICRC's last byte flipped");
	dc_desc(&d, ROCE_OP_DC_CONNECT, true, payload);
	n = build(&d, frame);
	cap_frame_with(&c, frame, n, n, ROCE_E_OPCODE_UNDEFINED, "dc", "0x55 with SE set: no DC opcode");
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
	gen_malformed_icrc(dir);
	gen_low_ports(dir);
	gen_truncated(dir);
	gen_violations(dir);
	gen_multicast(dir, 4);
	gen_multicast(dir, 6);
	gen_dc(dir);
	gen_conversation(dir, "flows-rc", sample_conv_rc);
	gen_conversation(dir, "flows-nvme", sample_conv_nvme);
	gen_conversation(dir, "flows-errors", sample_conv_errors);
	gen_conversation(dir, "flows-lossy", sample_conv_lossy);
	gen_conversation(dir, "flows-messages", sample_conv_messages);
	gen_conversation(dir, "flows-uc-ud-xrc", sample_conv_uc_ud_xrc);
	gen_conversation(dir, "flows-congestion", sample_conv_congestion);
	gen_conversation(dir, "flows-srq-rnr", sample_conv_srq_rnr);
	gen_conversation(dir, "flows-mw", sample_conv_mw);
	gen_conversation(dir, "flows-xrc-srq", sample_conv_xrc_srqs);
	gen_conversation(dir, "flows-placement", sample_conv_placement);
	gen_conversation(dir, "flows-rocev1", sample_conv_rocev1);
	gen_conversation(dir, "flows-rocev1-mixed", sample_conv_rocev1_mixed);
	gen_conversation(dir, "flows-retry", sample_conv_retry);
	return 0;
}
