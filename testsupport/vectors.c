/* ICRC test vectors (../shared/spec/rocev2-rules.md §2.5). */
#include <ctype.h>

#include "samples.h"

const struct sample_vector sample_vectors[] = {
	/* V1: UC SEND Only, IPv4, PadCnt 2, MigReq set, non-zero UDP checksum
	 * (scapy's RoCE unit test). */
	{ "V1 UC SEND Only IPv4",
	  "248a07a8fa22248a07a8fa22080045010040047840004011b4d5c0a80007c0a80007"
	  "c00012b7002caca22460ffff000000d300cf17104630818be28935d90e9a95505401"
	  "be885e50000078f353f3",
	  0x78f353f3 },
	/* V2: a CNP captured on a ConnectX-4 Lx (published in scapy's RoCE
	 * tests); BECN set, so it verifies only with BTH byte 4 masked. */
	{ "V2 CNP from ConnectX-4 Lx",
	  "e41d2dab2bc27cfe90643b32080045c2003c718c4000401191610a0011010a00"
	  "1201000012b700280000" "8100ffff400001180000000000000000"
	  "000000000000000000000000" "82fd002a",
	  0x82fd002a },
	/* V3: derived, IPv6 RC SEND Only, PadCnt 3, AckReq. */
	{ "V3 RC SEND Only IPv6",
	  "02000000000202000000000186dd668123450020114020010db8000000000000000000000001"
	  "20010db8000000000000000000000002c0de12b7002000000430ffff000001238000002a"
	  "68656c6c6f000000194e42e4",
	  0x194e42e4 },
	/* V4: derived, IPv4 RC Acknowledge, syndrome 0x1F, MSN 5. */
	{ "V4 RC Acknowledge IPv4",
	  "02000000000102000000000208004502003012344000401114850a0000020a000001"
	  "c0de12b7001c00001100ffff000000110000002a1f000005ba46690a",
	  0xba46690a },
};

const size_t sample_vector_count = sizeof sample_vectors / sizeof sample_vectors[0];

static int nibble(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

size_t sample_unhex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;
	int hi = -1;
	for (; *hex; hex++) {
		if (isspace((unsigned char)*hex))
			continue;
		int v = nibble((unsigned char)*hex);
		if (v < 0)
			return 0;
		if (hi < 0) {
			hi = v;
			continue;
		}
		if (n == cap)
			return 0;
		out[n++] = (uint8_t)(hi << 4 | v);
		hi = -1;
	}
	return hi < 0 ? n : 0;
}
