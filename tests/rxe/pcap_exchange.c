/*
 * pcap_exchange: injects frames on an interface and captures what comes
 * back, decoding each RoCEv2 reply with libroce. The wire half of the rxe
 * end-to-end test (frames crafted by `roce-tester craft`, sent to rxe over
 * the harness's tap device).
 *
 *   pcap_exchange --iface IF [--src-mac MAC] [--dst-mac MAC]
 *                 [--send FILE.pcap]... [--expect N] [--timeout-ms MS]
 *                 [--settle-ms MS] [--write OUT.pcap]
 *
 * Capture starts before the first frame is sent (a line "capturing on IF"
 * says so, for a caller that makes the device send) and sees only frames
 * that arrive on IF (not our own). It waits for N RoCEv2 frames, at most
 * the timeout, then listens --settle-ms more for frames that should not
 * come. For each RoCEv2 frame it prints a summary line, the ICRC status
 * and every header field as name=value, for scripts to assert on.
 * Exit status: 0 when exactly N frames came, 1 when fewer or more did,
 * 2 on errors.
 */
#include <errno.h>
#include <stdbool.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "roce/roce.h"

#define MAX_SEND_FILES 16

struct options {
	const char *iface;
	const char *send[MAX_SEND_FILES];
	unsigned n_send;
	unsigned expect;
	long timeout_ms, settle_ms;
	const char *write;
	unsigned char src_mac[6], dst_mac[6];
	int have_src, have_dst;
};

static int parse_mac(const char *s, unsigned char mac[6])
{
	unsigned v[6];
	char tail;
	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &tail) != 6)
		return -1;
	for (int i = 0; i < 6; i++) {
		if (v[i] > 0xff)
			return -1;
		mac[i] = (unsigned char)v[i];
	}
	return 0;
}

static void usage(void)
{
	fputs("usage: pcap_exchange --iface IF [--src-mac MAC] [--dst-mac MAC] [--send FILE.pcap]...\n"
	      "                     [--expect N] [--timeout-ms MS] [--settle-ms MS] [--write OUT.pcap]\n",
	      stderr);
}

static int parse_args(int argc, char **argv, struct options *o)
{
	memset(o, 0, sizeof *o);
	o->timeout_ms = 5000;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (i + 1 >= argc) {
			fprintf(stderr, "pcap_exchange: %s: missing value\n", a);
			return -1;
		}
		const char *v = argv[++i];
		char *end;
		if (!strcmp(a, "--iface")) {
			o->iface = v;
		} else if (!strcmp(a, "--send")) {
			if (o->n_send == MAX_SEND_FILES) {
				fprintf(stderr, "pcap_exchange: at most %d --send files\n", MAX_SEND_FILES);
				return -1;
			}
			o->send[o->n_send++] = v;
		} else if (!strcmp(a, "--expect")) {
			unsigned long n = strtoul(v, &end, 10);
			if (*end || n > 10000) {
				fprintf(stderr, "pcap_exchange: --expect %s: 0..10000\n", v);
				return -1;
			}
			o->expect = (unsigned)n;
		} else if (!strcmp(a, "--timeout-ms")) {
			long n = strtol(v, &end, 10);
			if (*end || n < 1 || n > 600000) {
				fprintf(stderr, "pcap_exchange: --timeout-ms %s: 1..600000\n", v);
				return -1;
			}
			o->timeout_ms = n;
		} else if (!strcmp(a, "--settle-ms")) {
			long n = strtol(v, &end, 10);
			if (*end || n < 0 || n > 600000) {
				fprintf(stderr, "pcap_exchange: --settle-ms %s: 0..600000\n", v);
				return -1;
			}
			o->settle_ms = n;
		} else if (!strcmp(a, "--write")) {
			o->write = v;
		} else if (!strcmp(a, "--src-mac") || !strcmp(a, "--dst-mac")) {
			int src = !strcmp(a, "--src-mac");
			if (parse_mac(v, src ? o->src_mac : o->dst_mac)) {
				fprintf(stderr, "pcap_exchange: %s %s: not a MAC address\n", a, v);
				return -1;
			}
			*(src ? &o->have_src : &o->have_dst) = 1;
		} else {
			fprintf(stderr, "pcap_exchange: unknown option %s\n", a);
			return -1;
		}
	}
	if (!o->iface) {
		usage();
		return -1;
	}
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Sends every frame of file on p, with the Ethernet addresses replaced as asked. */
static int send_file(pcap_t *p, const struct options *o, const char *file)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	pcap_t *in = pcap_open_offline(file, errbuf);
	if (!in) {
		fprintf(stderr, "pcap_exchange: %s: %s\n", file, errbuf);
		return -1;
	}
	if (pcap_datalink(in) != DLT_EN10MB) {
		fprintf(stderr, "pcap_exchange: %s: link type %s, not Ethernet\n", file,
			pcap_datalink_val_to_name(pcap_datalink(in)));
		pcap_close(in);
		return -1;
	}
	struct pcap_pkthdr *h;
	const u_char *data;
	int r, n = 0;
	while ((r = pcap_next_ex(in, &h, &data)) == 1) {
		n++;
		if (h->caplen != h->len || h->caplen < 14 || h->caplen > 65535) {
			fprintf(stderr, "pcap_exchange: %s: frame %d is cut or too short\n", file, n);
			pcap_close(in);
			return -1;
		}
		unsigned char frame[65535];
		memcpy(frame, data, h->caplen);
		if (o->have_dst)
			memcpy(frame, o->dst_mac, 6);
		if (o->have_src)
			memcpy(frame + 6, o->src_mac, 6);
		if (pcap_inject(p, frame, h->caplen) != (int)h->caplen) {
			fprintf(stderr, "pcap_exchange: sending frame %d of %s on %s: %s\n", n, file,
				o->iface, pcap_geterr(p));
			pcap_close(in);
			return -1;
		}
	}
	if (r == -1) {
		fprintf(stderr, "pcap_exchange: %s: %s\n", file, pcap_geterr(in));
		pcap_close(in);
		return -1;
	}
	pcap_close(in);
	return 0;
}

static void print_fields(const struct roce_pkt *pkt)
{
	for (int h = 0; h < ROCE_H_COUNT; h++) {
		const uint8_t *hdr = roce_pkt_hdr(pkt, (enum roce_hdr)h);
		if (!hdr)
			continue;
		enum roce_field first;
		unsigned count;
		roce_hdr_fields((enum roce_hdr)h, &first, &count);
		const struct roce_hdr_info *hi = roce_hdr_info((enum roce_hdr)h);
		printf("  ");
		for (unsigned i = 0; i < count; i++) {
			enum roce_field f = (enum roce_field)(first + i);
			const struct roce_field_info *fi = roce_field_info(f);
			if (fi->width > 8 || fi->display == ROCE_DISP_BYTES)
				continue; /* addresses: the summary says enough */
			printf("%s%s.%s=%llu", i ? " " : "", hi->abbrev, fi->abbrev,
			       (unsigned long long)roce_field_get(hdr, f));
		}
		printf("\n");
	}
}

/* Prints one captured frame; returns 1 if it is RoCEv2. */
static int report(const struct pcap_pkthdr *h, const u_char *data, unsigned index)
{
	struct roce_pkt pkt;
	enum roce_code rc = roce_parse_frame(&pkt, data, h->caplen, h->len, 0);
	if (!pkt.op) /* not RoCEv2 at all (ARP, ICMP, IPv6 ND...) */
		return 0;
	char line[256];
	roce_pkt_summary(&pkt, line, sizeof line);
	printf("frame %u: %s\n", index, line);
	if (rc != ROCE_OK) {
		char e[256];
		roce_pkt_strerror(&pkt, e, sizeof e);
		printf("  parse-error: %s\n", e);
	}
	uint32_t wire = 0, computed = 0;
	enum roce_icrc_status st = roce_icrc_check(&pkt, &wire, &computed);
	printf("  icrc=%s wire=0x%08x computed=0x%08x\n",
	       st == ROCE_ICRC_GOOD ? "good" : st == ROCE_ICRC_BAD ? "bad" : "unverified", wire,
	       computed);
	print_fields(&pkt);
	return 1;
}

int main(int argc, char **argv)
{
	struct options o;
	if (parse_args(argc, argv, &o))
		return 2;
	char errbuf[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_create(o.iface, errbuf);
	if (!p) {
		fprintf(stderr, "pcap_exchange: %s: %s\n", o.iface, errbuf);
		return 2;
	}
	pcap_set_snaplen(p, 65535);
	pcap_set_immediate_mode(p, 1);
	pcap_set_timeout(p, 10);
	int r = pcap_activate(p);
	if (r < 0) {
		fprintf(stderr, "pcap_exchange: %s: %s\n", o.iface, pcap_geterr(p));
		pcap_close(p);
		return 2;
	}
	if (pcap_setdirection(p, PCAP_D_IN) != 0) {
		fprintf(stderr, "pcap_exchange: %s: cannot capture only incoming frames: %s\n", o.iface,
			pcap_geterr(p));
		pcap_close(p);
		return 2;
	}
	if (pcap_setnonblock(p, 1, errbuf) != 0) {
		fprintf(stderr, "pcap_exchange: %s: %s\n", o.iface, errbuf);
		pcap_close(p);
		return 2;
	}
	pcap_dumper_t *out = NULL;
	if (o.write && !(out = pcap_dump_open(p, o.write))) {
		fprintf(stderr, "pcap_exchange: %s: %s\n", o.write, pcap_geterr(p));
		pcap_close(p);
		return 2;
	}

	printf("capturing on %s\n", o.iface);
	fflush(stdout);
	int status = 0;
	for (unsigned i = 0; i < o.n_send && status == 0; i++)
		if (send_file(p, &o, o.send[i]))
			status = 2;

	unsigned got = 0, index = 0;
	double deadline = now_ms() + (double)o.timeout_ms;
	bool settling = false;
	while (status == 0) {
		if (!settling && got >= o.expect) {
			/* All expected frames are in: listen a while for extra ones. */
			settling = true;
			deadline = now_ms() + (double)o.settle_ms;
		}
		if (now_ms() >= deadline)
			break;
		struct pcap_pkthdr *h;
		const u_char *data;
		r = pcap_next_ex(p, &h, &data);
		if (r == 0) {
			struct timespec ts = { 0, 2000000 };
			nanosleep(&ts, NULL);
			continue;
		}
		if (r < 0) {
			fprintf(stderr, "pcap_exchange: capturing on %s: %s\n", o.iface, pcap_geterr(p));
			status = 2;
			break;
		}
		index++;
		if (out)
			pcap_dump((u_char *)out, h, data);
		got += (unsigned)report(h, data, index);
	}
	if (out)
		pcap_dump_close(out);
	pcap_close(p);
	if (status == 0 && got < o.expect) {
		printf("timeout: %u of %u RoCEv2 frames in %ld ms\n", got, o.expect, o.timeout_ms);
		status = 1;
	} else if (status == 0 && got > o.expect) {
		printf("unexpected: %u RoCEv2 frames, %u expected\n", got, o.expect);
		status = 1;
	}
	return status;
}
