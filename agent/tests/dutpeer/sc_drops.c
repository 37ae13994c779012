/*
 * Silent drops: the bad packet gets nothing, a good one still works.
 */
#include "dutpeer.h"

#include <netinet/in.h>
#include <string.h>

typedef void (*breaker)(struct roce_desc *d, uint8_t *frame, long *len);

static bool drop_case(breaker br, const char *counter_name, struct dq_opts o)
{
	struct dq q;
	struct got g;
	if (!dut_qp(&q, o))
		return false;
	uint64_t before = counter_name ? counter(counter_name) : 0;
	struct roce_desc d;
	desc(&q, &d, "RC SEND Only", q.epsn);
	roce_bth_set_ackreq(d.bth, 1);
	d.payload = pattern(14);
	d.payload_len = 20;
	uint8_t frame[2048];
	long n = 0;
	br(&d, frame, &n);
	if (!n)
		n = build(&d, frame, sizeof frame);
	tx_raw(frame, (size_t)n);
	REQUIRE(nothing_for(q.my_qpn, 80), "the DUT answered a packet it must drop (%s)", g.op ? "" : "");
	REQUIRE(poll_cq(&q, 0, NULL) == 0, "the dropped packet completed a receive");
	if (counter_name)
		REQUIRE(counter(counter_name) > before, "counter %s did not rise", counter_name);
	if (o.state && strcmp(o.state, "RTS") != 0)
		return true;
	tx_req(&q, "RC SEND Only", q.epsn, pattern(14), 20, true);
	return expect_ack(&q, q.epsn, &g);
}

static void br_csum(struct roce_desc *d, uint8_t *f, long *n)
{
	*n = build(d, f, 2048);
	uint8_t *ip = f + ROCE_ETH_LEN;
	roce_ipv4_set_csum(ip, roce_ipv4_csum(ip) ^ 0x0101);
}

static void br_dstip(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)f;
	(void)n;
	uint8_t *dst = d->ip_version == 6 ? roce_ipv6_dst_ptr(d->ip) : roce_ipv4_dst_ptr(d->ip);
	dst[d->ip_version == 6 ? 15 : 3] = 9;
}

static void br_icrc(struct roce_desc *d, uint8_t *f, long *n)
{
	*n = build(d, f, 2048);
	f[*n - 1] ^= 0x40; /* the ICRC's last byte */
}

static void br_ihl(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)f;
	(void)n;
	memset(d->ip_opts, 1, 4); /* four NOP options */
	d->ip_opts_len = 4;
}

static void br_df(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)f;
	(void)n;
	roce_ipv4_set_df(d->ip, 0);
}

static void br_frag(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)f;
	(void)n;
	roce_ipv4_set_mf(d->ip, 1);
}

static void br_udplen(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)f;
	(void)n;
	/* 4 bytes short of the UDP header, BTH, 20 bytes of payload and ICRC */
	roce_desc_set(d, ROCE_F_UDP_len, ROCE_UDP_LEN + ROCE_BTH_LEN + 20 + ROCE_ICRC_LEN - 4);
}

static void br_version(struct roce_desc *d, uint8_t *f, long *n)
{
	*n = build(d, f, 2048);
	uint8_t *ip = f + ROCE_ETH_LEN;
	roce_ipv4_set_version(ip, d->ip_version == 4 ? 6 : 4); /* the nibble both headers start with */
	if (d->ip_version == 4) /* only the version is wrong */
		roce_ipv4_set_csum(ip, roce_ipv4_checksum(ip, ROCE_IPV4_LEN));
}

static void br_noqp(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)f;
	(void)n;
	roce_bth_set_destqp(d->bth, 0xABCDE);
}

static void br_qp0(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)f;
	(void)n;
	roce_bth_set_destqp(d->bth, 0);
}

static void br_tver(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)f;
	(void)n;
	roce_bth_set_tver(d->bth, 1);
}

static void br_pkey(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)f;
	(void)n;
	roce_bth_set_pkey(d->bth, 0x8001);
}

static void br_qptype(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)f;
	(void)n;
	roce_bth_set_opcode(d->bth, (uint8_t)roce_opcode_by_name("UC SEND Only"));
}

static void br_none(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)d;
	(void)f;
	(void)n;
}

static void br_srcip(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)f;
	(void)n;
	uint8_t *src = d->ip_version == 6 ? roce_ipv6_src_ptr(d->ip) : roce_ipv4_src_ptr(d->ip);
	src[d->ip_version == 6 ? 15 : 3] = 9;
}

static void br_iplen(struct roce_desc *d, uint8_t *f, long *n)
{
	*n = build(d, f, 2048);
	uint8_t *ip = f + ROCE_ETH_LEN;
	if (d->ip_version == 4) {
		roce_ipv4_set_totlen(ip, roce_ipv4_totlen(ip) + 4);
		roce_ipv4_set_csum(ip, roce_ipv4_checksum(ip, ROCE_IPV4_LEN));
	} else {
		roce_ipv6_set_paylen(ip, roce_ipv6_paylen(ip) + 4);
	}
	/* The ICRC as the sender computed it, over the bytes as sent. */
	roce_le32_store(f + *n - 4, roce_icrc(ip, (size_t)*n - ROCE_ETH_LEN - 4));
}

static void br_exthdr(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)f;
	(void)n;
	/* A Destination Options header (8 bytes: next 17, length 0, PadN). */
	static const uint8_t dopt[8] = { ROCE_IP_PROTO_UDP, 0, 1, 4, 0, 0, 0, 0 };
	memcpy(d->ip_opts, dopt, 8);
	d->ip_opts_len = 8;
	roce_ipv6_set_nexthdr(d->ip, IPPROTO_DSTOPTS);
}

/* Every silent drop of rocev2-rules.md §5.1 the soft DUT makes, each on
 * its own QP: the bad packet gets no answer and completes nothing, the
 * device counts it under its reason, and a good packet still works. */
bool sc_drops(void)
{
	static const struct {
		const char *what;
		breaker br;
		const char *counter; /* NULL: none of its own */
		int ipv;             /* 0: both */
		const char *state;   /* the QP's state, NULL: RTS */
	} drops[] = {
		{ "bad ICRC", br_icrc, "rx_drop_icrc", 0, NULL },
		{ "IPv4 options", br_ihl, "rx_drop_ip", 4, NULL },
		{ "IPv4 Don't Fragment clear", br_df, "rx_drop_ip", 4, NULL },
		{ "IPv4 fragment", br_frag, "rx_drop_ip", 4, NULL },
		{ "IPv4 header checksum", br_csum, "rx_drop_ip", 4, NULL },
		{ "IP length past the frame", br_iplen, "rx_drop_ip", 0, NULL },
		{ "IPv6 extension header", br_exthdr, NULL, 6, NULL },
		{ "UDP length", br_udplen, "rx_drop_ip", 0, NULL },
		{ "IP version against the Ethertype", br_version, "rx_drop_ip_version", 0, NULL },
		{ "DestQP 0", br_qp0, "rx_drop_qp0", 0, NULL },
		{ "DestQP of no QP", br_noqp, "rx_drop_no_qp", 0, NULL },
		{ "TVer 1", br_tver, "rx_drop_tver", 0, NULL },
		{ "P_Key", br_pkey, "pkey_violations", 0, NULL },
		{ "opcode of another transport", br_qptype, "rx_drop_qp_type", 0, NULL },
		{ "QP in INIT", br_none, "rx_drop_qp_state", 0, "INIT" },
		{ "source address", br_srcip, "rx_drop_addr", 0, NULL },
		{ "destination address", br_dstip, "rx_drop_gid", 0, NULL },
	};
	for (size_t i = 0; i < sizeof drops / sizeof drops[0]; i++) {
		if (drops[i].ipv && drops[i].ipv != P.ipv)
			continue;
		if (!drop_case(drops[i].br, drops[i].counter, (struct dq_opts){ .state = drops[i].state })) {
			fprintf(stderr, "    (drop: %s)\n", drops[i].what);
			return false;
		}
	}
	return true;
}
