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
 *   roce-bench-inject bare IF N        the bare sender, the link's own limit:
 *                                      the same N frames built once before
 *                                      the clock starts, then sent in the
 *                                      same batches (SEND_BATCH frames per
 *                                      sendmmsg, on an AF_PACKET socket with
 *                                      PACKET_QDISC_BYPASS, a full device
 *                                      queue retried as rawio does), straight
 *                                      from one cache-hot batch buffer: no
 *                                      rules, no building, no checks. Prints
 *                                      what send prints.
 *   roce-bench-inject count IF N       the reader that only counts: the
 *                                      same receive path as check (rawio's
 *                                      block ring behind the tester's BPF
 *                                      filter), each frame counted and
 *                                      nothing else. Prints what check does.
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
#define _GNU_SOURCE /* sendmmsg */
#include <errno.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <pcap/pcap.h>
#include <sched.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>
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

/* Room per prebuilt frame (an RC SEND Only with a 64-byte payload over
 * IPv4 is 122 bytes). */
#define BARE_SLOT 128u
/* A full device queue is retried for this long, as rawio does. */
#define BARE_BUSY_NS 20000000ull

static int bare_socket(const char *ifname)
{
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	int one = 1;
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_ifindex = (int)if_nametoindex(ifname) };
	if (fd < 0 || setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof one) != 0 ||
	    bind(fd, (struct sockaddr *)&sll, sizeof sll) != 0) {
		fprintf(stderr, "bare: %s: %s\n", ifname, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Sends msgs[0..n) whole: returns the frames the kernel refused. */
static unsigned long bare_batch(int fd, struct mmsghdr *msgs, unsigned n)
{
	unsigned done = 0;
	unsigned long refused = 0;
	uint64_t give_up = 0;
	while (done < n) {
		int k = sendmmsg(fd, msgs + done, n - done, 0);
		if (k > 0) {
			done += (unsigned)k;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno == ENOBUFS || errno == EAGAIN) {
			uint64_t now = realtime_ns();
			if (!give_up)
				give_up = now + BARE_BUSY_NS;
			if (now < give_up) {
				sched_yield();
				continue;
			}
		}
		refused++;
		done++;
		give_up = 0;
	}
	return refused;
}

static int cmd_bare(const char *ifname, unsigned long n)
{
	int fd = bare_socket(ifname);
	if (fd < 0)
		return 1;
	uint8_t *frames = malloc((n ? n : 1) * BARE_SLOT);
	size_t *lens = malloc((n ? n : 1) * sizeof *lens);
	/* Each batch is handed to the kernel from one small buffer that stays
	 * in cache: faster than from where the frames were built (64 MB for
	 * 500,000: the kernel's copies then miss the cache; measured, 1.1
	 * against 0.9 us of the sender's CPU per frame). */
	uint8_t *batch = malloc(SEND_BATCH * BARE_SLOT);
	struct mmsghdr msgs[SEND_BATCH];
	struct iovec iov[SEND_BATCH];
	memset(msgs, 0, sizeof msgs);
	if (!frames || !lens || !batch) {
		fprintf(stderr, "bare: out of memory for %lu frames\n", n);
		return 1;
	}
	for (unsigned long i = 0; i < n; i++) {
		long len = build((uint32_t)i & ROCE_PSN_MASK, frames + i * BARE_SLOT, BARE_SLOT);
		if (len < 0) {
			fprintf(stderr, "bare: frame %lu does not fit in %u bytes\n", i, BARE_SLOT);
			return 1;
		}
		lens[i] = (size_t)len;
	}
	for (unsigned k = 0; k < SEND_BATCH; k++) {
		msgs[k].msg_hdr.msg_iov = &iov[k];
		msgs[k].msg_hdr.msg_iovlen = 1;
	}
	unsigned long errors = 0;
	double cpu0 = cpu_seconds();
	uint64_t t0 = realtime_ns();
	for (unsigned long i = 0; i < n; i += SEND_BATCH) {
		unsigned m = (unsigned)(n - i < SEND_BATCH ? n - i : SEND_BATCH);
		memcpy(batch, frames + i * BARE_SLOT, (size_t)m * BARE_SLOT);
		for (unsigned k = 0; k < m; k++)
			iov[k] = (struct iovec){ batch + k * BARE_SLOT, lens[i + k] };
		errors += bare_batch(fd, msgs, m);
	}
	uint64_t t1 = realtime_ns();
	double secs = (double)(t1 - t0) / 1e9;
	double cpu = cpu_seconds() - cpu0;
	printf("path=bare sent=%lu errors=%lu start_ns=%llu seconds=%.6f pps=%.0f cpu_us_per_frame=%.3f\n", n - errors,
	       errors, (unsigned long long)t0, secs, (double)(n - errors) / secs, n ? cpu * 1e6 / (double)n : 0.0);
	close(fd);
	free(frames);
	free(lens);
	free(batch);
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

/* The reader that only counts: every frame the filter passes is taken
 * as valid. */
static void on_frame_count(void *ctx, const uint8_t *data, size_t caplen, size_t len, uint64_t ts)
{
	struct checker *c = ctx;
	(void)data, (void)caplen, (void)len;
	c->frames++;
	if (!c->valid)
		c->first = ts;
	c->last = ts;
	c->valid++;
}

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

static int cmd_check(const char *ifname, unsigned long n, enum rawio_path path, rawio_frame_fn fn)
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
		if (rawio_wait(&io, idle_until, fn, &c, err, sizeof err) < 0) {
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
	const char *usage =
		"usage: roce-bench-inject send|check IF N ring|blocks|pcap|auto | bare IF N | count IF N | pcap FILE N\n";
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
		return cmd_check(argv[2], n, path, on_frame);
	if (!strcmp(argv[1], "count"))
		return cmd_check(argv[2], n, RAWIO_PATH_BLOCKS, on_frame_count);
	if (!strcmp(argv[1], "bare"))
		return cmd_bare(argv[2], n);
	if (!strcmp(argv[1], "pcap"))
		return cmd_pcap(argv[2], n);
	fputs(usage, stderr);
	return 2;
}
