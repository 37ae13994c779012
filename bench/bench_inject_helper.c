/*
 * The two ends of bench_tester_inject (the driver script runs them in the
 * two namespaces of scripts/netns-pair):
 *
 *   roce-bench-inject send IF N    inject N RC SEND packets the way the
 *                                  runner does: built by libroce, through
 *                                  the peer engine's injection rules, out
 *                                  through libpcap. Prints the send rate.
 *   roce-bench-inject pcap FILE N  write the same N frames to FILE (for
 *                                  scapy's sendp to send).
 *   roce-bench-inject check IF N   receive through the tester's BPF filter
 *                                  and check every frame (parse, ICRC,
 *                                  every stateless rule) until N valid
 *                                  frames or 2 s of silence. Prints what
 *                                  arrived, what was valid, and the rate.
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer.h"
#include "rawio.h"
#include "roce/roce.h"

#define PAYLOAD 64

static void endpoint(struct roce_endpoint *ep)
{
	memset(ep, 0, sizeof *ep);
	ep->ip_version = 4;
	static const uint8_t src[6] = { 2, 0, 0, 0, 0, 1 }, dst[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	memcpy(ep->src_mac, src, 6);
	memcpy(ep->dst_mac, dst, 6);
	static const uint8_t a[4] = { 198, 18, 0, 2 }, b[4] = { 198, 18, 0, 1 };
	memcpy(ep->src_ip, a, 4);
	memcpy(ep->dst_ip, b, 4);
	ep->hop_limit = 64;
	ep->udp_sport = 0xC123;
	ep->pkey = 0xFFFF;
	ep->dest_qpn = 0x000123;
}

static long build(uint32_t psn, uint8_t *frame, size_t cap)
{
	static uint8_t payload[PAYLOAD];
	struct roce_endpoint ep;
	struct roce_desc d;
	endpoint(&ep);
	roce_endpoint_desc(&ep, &d, ROCE_OP_RC_SEND_ONLY, psn);
	roce_bth_set_ackreq(d.bth, 1);
	payload[0] = (uint8_t)psn;
	d.payload = payload;
	d.payload_len = sizeof payload;
	return roce_build_frame(&d, frame, cap);
}

struct sender {
	struct rawio io;
	unsigned long errors;
};

static int on_send(void *ctx, const uint8_t *frame, size_t len, const struct peer_tx_info *info)
{
	struct sender *s = ctx;
	char err[256];
	(void)info;
	if (rawio_send(&s->io, frame, len, err, sizeof err) != 0) {
		s->errors++;
		return -1;
	}
	return 0;
}

static int cmd_send(const char *ifname, unsigned long n)
{
	struct sender s = { 0 };
	char err[256];
	if (rawio_open(&s.io, ifname, -1, RAWIO_TS_HOST, err, sizeof err) != 0) {
		fprintf(stderr, "send: %s\n", err);
		return 1;
	}
	struct peer_io pio = { &s, on_send, NULL };
	struct peer *p = peer_new(&pio);
	struct peer_qp_cfg cfg = { 0 };
	cfg.type = ROCE_T_RC;
	cfg.qpn = 0x000777;
	cfg.remote_qpn = 0x000123;
	cfg.pmtu = 1024;
	endpoint(&cfg.ep);
	peer_qp_add(p, &cfg);
	/* A rule that never fires: every packet is matched against it, as
	 * in a case with injection rules. */
	struct inj_rule r = { .rx = false, .qpn = 0x000777, .opcode = ROCE_OP_RC_ACK, .round = -1, .action = INJ_DROP };
	inj_add(peer_rules(p), &r);
	uint8_t frame[256];
	uint64_t t0 = rawio_now();
	for (unsigned long i = 0; i < n; i++) {
		long len = build((uint32_t)i & ROCE_PSN_MASK, frame, sizeof frame);
		peer_inject(p, 0x000777, frame, (size_t)len, 0, "bench");
	}
	uint64_t t1 = rawio_now();
	double secs = (double)(t1 - t0) / 1e9;
	printf("sent=%lu errors=%lu seconds=%.6f pps=%.0f\n", n - s.errors, s.errors, secs, (double)(n - s.errors) / secs);
	peer_free(p);
	rawio_close(&s.io);
	return 0;
}

static int cmd_pcap(const char *path, unsigned long n)
{
	pcap_t *pd = pcap_open_dead(DLT_EN10MB, 65535);
	pcap_dumper_t *d = pcap_dump_open(pd, path);
	if (!d) {
		fprintf(stderr, "pcap: %s\n", pcap_geterr(pd));
		return 1;
	}
	uint8_t frame[256];
	for (unsigned long i = 0; i < n; i++) {
		long len = build((uint32_t)i & ROCE_PSN_MASK, frame, sizeof frame);
		struct pcap_pkthdr h = { { 0, 0 }, (bpf_u_int32)len, (bpf_u_int32)len };
		pcap_dump((u_char *)d, &h, frame);
	}
	pcap_dump_close(d);
	pcap_close(pd);
	return 0;
}

struct checker {
	unsigned long frames, valid, invalid;
	uint64_t first, last;
};

static void on_frame(void *ctx, const uint8_t *data, size_t caplen, size_t len, uint64_t ts)
{
	struct checker *c = ctx;
	struct roce_pkt p;
	c->frames++;
	if (roce_parse_frame(&p, data, caplen, len, 0) != ROCE_OK || !p.complete) {
		c->invalid++;
		return;
	}
	struct roce_check_opts o = { ROCE_CHK_ICRC | ROCE_CHK_SENDER, 1024 };
	struct roce_finding f[8];
	size_t nf = roce_check(&p, &o, f, 8);
	bool bad = false;
	for (size_t i = 0; i < nf && i < 8; i++)
		if (roce_code_info(f[i].code)->severity == ROCE_SEV_ERROR)
			bad = true;
	if (bad) {
		c->invalid++;
		return;
	}
	if (!c->valid)
		c->first = ts;
	c->last = ts;
	c->valid++;
}

static int cmd_check(const char *ifname, unsigned long n)
{
	struct rawio io;
	char err[256];
	if (rawio_open(&io, ifname, -1, RAWIO_TS_HOST, err, sizeof err) != 0) {
		fprintf(stderr, "check: %s\n", err);
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	struct checker c = { 0 };
	uint64_t idle_until = rawio_now() + 20000000000ull; /* the sender has 20 s to start */
	while (c.valid < n) {
		uint64_t before = c.frames;
		if (rawio_wait(&io, idle_until, on_frame, &c, err, sizeof err) < 0) {
			fprintf(stderr, "check: %s\n", err);
			break;
		}
		if (c.frames != before)
			idle_until = rawio_now() + 2000000000ull;
		else if (rawio_now() >= idle_until)
			break;
	}
	struct pcap_stat st = { 0 };
	pcap_stats(io.pc, &st);
	double secs = c.valid > 1 ? (double)(c.last - c.first) / 1e9 : 0;
	printf("frames=%lu valid=%lu invalid=%lu kernel_drops=%u seconds=%.6f pps=%.0f\n", c.frames, c.valid, c.invalid,
	       st.ps_drop, secs, secs > 0 ? (double)(c.valid - 1) / secs : 0.0);
	rawio_close(&io);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: roce-bench-inject send|check IF N | pcap FILE N\n");
		return 2;
	}
	unsigned long n = strtoul(argv[3], NULL, 10);
	if (!strcmp(argv[1], "send"))
		return cmd_send(argv[2], n);
	if (!strcmp(argv[1], "check"))
		return cmd_check(argv[2], n);
	if (!strcmp(argv[1], "pcap"))
		return cmd_pcap(argv[2], n);
	fprintf(stderr, "usage: roce-bench-inject send|check IF N | pcap FILE N\n");
	return 2;
}
