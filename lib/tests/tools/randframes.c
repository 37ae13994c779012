/*
 * roce-randframes: writes N random but well-formed RoCEv2 frames (random
 * opcode, header field values, payload length and bytes) to a pcap, for
 * cross-checking libroce against independent implementations.
 *
 *     roce-randframes OUT.pcap COUNT SEED [4|6]
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>

#include "samples.h"

static unsigned long long next(unsigned long long *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

int main(int argc, char **argv)
{
	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: roce-randframes OUT.pcap COUNT SEED [4|6]\n");
		return 2;
	}
	long count = strtol(argv[2], NULL, 10);
	unsigned long long seed = strtoull(argv[3], NULL, 0) | 1;
	int ipv = argc == 5 ? atoi(argv[4]) : 4;
	pcap_t *pd = pcap_open_dead(DLT_EN10MB, 65535);
	pcap_dumper_t *dump = pd ? pcap_dump_open(pd, argv[1]) : NULL;
	if (!dump) {
		fprintf(stderr, "roce-randframes: %s: %s\n", argv[1], pd ? pcap_geterr(pd) : "pcap_open_dead failed");
		return 1;
	}

	uint8_t payload[4096], frame[SAMPLE_FRAME_MAX];
	for (long i = 0; i < count;) {
		uint8_t op = (uint8_t)next(&seed);
		if (!roce_opcode(op)->name)
			continue;
		size_t len = next(&seed) % 1025;
		for (size_t k = 0; k < len; k++)
			payload[k] = (uint8_t)next(&seed);
		struct roce_desc d;
		sample_desc(&d, op, ipv, payload, len);
		/* Random values in the fields the ICRC masks or covers. */
		uint8_t *bth = d.bth;
		roce_bth_set_fecn(bth, next(&seed) & 1);
		roce_bth_set_becn(bth, next(&seed) & 1);
		roce_bth_set_resv6(bth, next(&seed));
		roce_bth_set_psn(bth, next(&seed));
		roce_bth_set_destqp(bth, next(&seed));
		roce_bth_set_pkey(bth, next(&seed));
		roce_bth_set_se(bth, next(&seed) & 1);
		roce_udp_set_sport(d.udp, next(&seed));
		roce_udp_set_csum(d.udp, next(&seed));
		if (ipv == 4) {
			roce_ipv4_set_tos(d.ip, next(&seed));
			roce_ipv4_set_ttl(d.ip, next(&seed));
			roce_ipv4_set_id(d.ip, next(&seed));
		} else {
			roce_ipv6_set_tc(d.ip, next(&seed));
			roce_ipv6_set_flowlabel(d.ip, next(&seed));
			roce_ipv6_set_hoplimit(d.ip, next(&seed));
		}
		for (int k = 0; k < 8; k++)
			d.ip[(ipv == 4 ? 12 : 8) + k] = (uint8_t)next(&seed);
		long n = roce_build_frame(&d, frame, sizeof frame);
		if (n <= 0)
			continue;
		struct pcap_pkthdr h = { { 1767225600 + i, 0 }, (bpf_u_int32)n, (bpf_u_int32)n };
		pcap_dump((u_char *)dump, &h, frame);
		i++;
	}
	pcap_dump_close(dump);
	pcap_close(pd);
	return 0;
}
