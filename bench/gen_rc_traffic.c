/*
 * Writes a pcap of conforming bulk RC traffic for the plugin benchmark:
 * WRITE and SEND messages of 1..4 packets with their ACKs, and READs
 * answered in segments, over several QPs (sample_conv_bulk).
 *
 *   gen_rc_traffic OUT.pcap FRAMES [QPS [SHAPE]]
 *
 * SHAPE (sample_conv_bulk_shape): mixed (the default), ipv6, read-heavy
 * (READs of 1..16 packets, a WRITE in 8) or ack-heavy (one-packet SENDs and
 * WRITEs, each ACKed: half the frames are ACKs), rocev1 (the mix as RoCE v1)
 * or v1-v2-mix (the mix, every other connection RoCE v1, the others RoCE v2
 * over IPv6).
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conversations.h"

struct out {
	pcap_dumper_t *dump;
	unsigned long n;
};

static void emit(void *ctx, const uint8_t *frame, size_t len, uint64_t t_us, enum roce_code expect,
		 const char *what)
{
	struct out *o = ctx;
	(void)expect;
	(void)what;
	struct pcap_pkthdr h;
	h.ts.tv_sec = (time_t)(1767225600u + t_us / 1000000u);
	h.ts.tv_usec = (suseconds_t)(t_us % 1000000u);
	h.caplen = h.len = (bpf_u_int32)len;
	pcap_dump((u_char *)o->dump, &h, frame);
	o->n++;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s OUT.pcap FRAMES [QPS [SHAPE]]\n", argv[0]);
		return 2;
	}
	unsigned long frames = strtoul(argv[2], NULL, 10);
	unsigned qps = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 16;
	pcap_t *p = pcap_open_dead(DLT_EN10MB, 65535);
	struct out o = { pcap_dump_open(p, argv[1]), 0 };
	if (!o.dump) {
		fprintf(stderr, "%s: %s\n", argv[1], pcap_geterr(p));
		return 1;
	}
	struct sample_bulk_shape shape = { qps, 4, SAMPLE_BULK_MIX, 0 };
	const char *name = argc > 4 ? argv[4] : "mixed";
	if (!strcmp(name, "ipv6"))
		shape.ipv = 6;
	else if (!strcmp(name, "read-heavy"))
		shape.mix = SAMPLE_BULK_READ_HEAVY;
	else if (!strcmp(name, "ack-heavy"))
		shape.mix = SAMPLE_BULK_ACK_HEAVY;
	else if (!strcmp(name, "rocev1"))
		shape.rocev1 = 1;
	else if (!strcmp(name, "v1-v2-mix"))
		shape.rocev1 = 2;
	else if (strcmp(name, "mixed")) {
		fprintf(stderr, "%s: unknown shape '%s' (mixed, ipv6, read-heavy, ack-heavy, rocev1, v1-v2-mix)\n",
			argv[0], name);
		return 2;
	}
	sample_conv_bulk_shape(emit, &o, frames, &shape);
	pcap_dump_close(o.dump);
	pcap_close(p);
	printf("%s: %lu frames\n", argv[1], o.n);
	return 0;
}
