/*
 * The two ends of bench_tester_inject (the driver script runs them in the
 * two namespaces of scripts/netns-pair):
 *
 *   roce-bench-inject send IF N PATH   inject N RC SEND packets the way
 *                                      the runner does: built by libroce,
 *                                      through the peer engine's injection
 *                                      rules, out through rawio's PATH
 *                                      (ring, blocks: queued and sent in
 *                                      batches by sendmmsg; pcap:
 *                                      pcap_inject).
 *                                      Prints the send rate and when the
 *                                      first frame went (start_ns).
 *   roce-bench-inject pcap FILE N      write the same N frames to FILE (for
 *                                      scapy's sendp to send).
 *   roce-bench-inject check IF N PATH  receive through the tester's BPF
 *                                      filter on rawio's PATH and check
 *                                      every frame (parse, ICRC, every
 *                                      stateless rule) until N valid frames
 *                                      or 2 s of silence. Prints what
 *                                      arrived, what was valid, the kernel's
 *                                      drops, and when the last frame was
 *                                      checked (done_ns).
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
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

static uint64_t realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CPU time this process used (user and system: the kernel's work on
 * its behalf, softirqs run at its send calls included). */
static double cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec / 1e6;
}

static int path_arg(const char *name, enum rawio_path *p)
{
	int v = rawio_path_by_name(name);
	if (v < 0) {
		fprintf(stderr, "roce-bench-inject: %s: expected ring, blocks, pcap or auto\n", name);
		return -1;
	}
	*p = (enum rawio_path)v;
	return 0;
}

/* Frames queued between two sendmmsg batches. */
#define SEND_BATCH 128

static int on_send(void *ctx, const uint8_t *frame, size_t len, const struct peer_tx_info *info)
{
	struct sender *s = ctx;
	char err[256];
	(void)info;
	if (rawio_queue(&s->io, frame, len, err, sizeof err) != 0) {
		s->errors++;
		return -1;
	}
	return 0;
}

static int cmd_send(const char *ifname, unsigned long n, enum rawio_path path)
{
	struct sender s = { 0 };
	char err[256];
	if (rawio_open_path(&s.io, ifname, -1, RAWIO_TS_HOST, path, err, sizeof err) != 0) {
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
	double cpu0 = cpu_seconds();
	uint64_t t0 = realtime_ns();
	for (unsigned long i = 0; i < n; i++) {
		long len = build((uint32_t)i & ROCE_PSN_MASK, frame, sizeof frame);
		peer_inject(p, 0x000777, frame, (size_t)len, 0, "bench");
		if ((i + 1) % SEND_BATCH == 0 && rawio_flush(&s.io, err, sizeof err) != 0)
			fprintf(stderr, "send: %s\n", err);
	}
	if (rawio_flush(&s.io, err, sizeof err) != 0)
		fprintf(stderr, "send: %s\n", err);
	uint64_t t1 = realtime_ns();
	double secs = (double)(t1 - t0) / 1e9;
	s.errors += s.io.tx_errors;
	double cpu = cpu_seconds() - cpu0;
	printf("path=%s sent=%llu errors=%lu start_ns=%llu seconds=%.6f pps=%.0f cpu_us_per_frame=%.3f\n",
	       rawio_path_name(s.io.path), (unsigned long long)s.io.tx_frames, s.errors, (unsigned long long)t0, secs,
	       (double)s.io.tx_frames / secs, n ? cpu * 1e6 / (double)n : 0.0);
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

static int cmd_check(const char *ifname, unsigned long n, enum rawio_path path)
{
	struct rawio io;
	char err[256];
	if (rawio_open_path(&io, ifname, -1, RAWIO_TS_HOST, path, err, sizeof err) != 0) {
		fprintf(stderr, "check: %s\n", err);
		return 1;
	}
	printf("ready (%s; %s)\n", io.path_note, io.stack_bypass_note);
	fflush(stdout);
	struct checker c = { 0 };
	double cpu0 = 0;
	uint64_t idle_until = rawio_now() + 20000000000ull; /* the sender has 20 s to start */
	while (c.valid < n) {
		uint64_t before = c.frames;
		if (rawio_wait(&io, idle_until, on_frame, &c, err, sizeof err) < 0) {
			fprintf(stderr, "check: %s\n", err);
			break;
		}
		if (c.frames != before) {
			if (!before)
				cpu0 = cpu_seconds(); /* from the first frame on: not the wait for the sender */
			idle_until = rawio_now() + 2000000000ull;
		}
		else if (rawio_now() >= idle_until)
			break;
	}
	uint64_t done = realtime_ns();
	double cpu = cpu_seconds() - cpu0;
	double secs = c.valid > 1 ? (double)(c.last - c.first) / 1e9 : 0;
	printf("path=%s frames=%lu valid=%lu invalid=%lu kernel_drops=%llu done_ns=%llu seconds=%.6f pps=%.0f "
	       "cpu_us_per_frame=%.3f\n",
	       rawio_path_name(io.path), c.frames, c.valid, c.invalid, (unsigned long long)rawio_drops(&io),
	       (unsigned long long)done, secs, secs > 0 ? (double)(c.valid - 1) / secs : 0.0,
	       c.frames ? cpu * 1e6 / (double)c.frames : 0.0);
	rawio_close(&io);
	return 0;
}

int main(int argc, char **argv)
{
	const char *usage = "usage: roce-bench-inject send|check IF N ring|blocks|pcap|auto | pcap FILE N\n";
	if (argc < 4) {
		fputs(usage, stderr);
		return 2;
	}
	unsigned long n = strtoul(argv[3], NULL, 10);
	enum rawio_path path = RAWIO_PATH_AUTO;
	if (argc == 5 && path_arg(argv[4], &path) != 0)
		return 2;
	if (!strcmp(argv[1], "send"))
		return cmd_send(argv[2], n, path);
	if (!strcmp(argv[1], "check"))
		return cmd_check(argv[2], n, path);
	if (!strcmp(argv[1], "pcap"))
		return cmd_pcap(argv[2], n);
	fputs(usage, stderr);
	return 2;
}
