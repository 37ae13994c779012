/* AETH syndrome encodings (rocev2-rules.md §4). */
#include "roce/aeth.h"

#include <stdio.h>
#include <string.h>

int roce_aeth_credits(unsigned code)
{
	static const uint16_t credits[31] = {
		0,   1,   2,   3,    4,    6,    8,    12,   16,   24,    32,    48,    64,    96,    128,  192,
		256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768,
	};
	return code < 31 ? credits[code] : -1;
}

uint32_t roce_rnr_timer_usec(unsigned code)
{
	static const uint32_t usec[32] = {
		655360, 10,    20,    30,    40,    60,     80,     120,    160,    240,   320,
		480,    640,   960,   1280,  1920,  2560,   3840,   5120,   7680,   10240, 15360,
		20480,  30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
	};
	return usec[code & 31];
}

uint64_t roce_ack_timeout_nsec(unsigned n)
{
	if (n == 0 || n > 31)
		return 0;
	return 4096ull << n; /* 4.096 us = 4096 ns */
}

const char *roce_nak_name(unsigned code)
{
	switch (code) {
	case ROCE_NAK_PSN_SEQ_ERR: return "PSN Sequence Error";
	case ROCE_NAK_INVALID_REQUEST: return "Invalid Request";
	case ROCE_NAK_REMOTE_ACCESS: return "Remote Access Error";
	case ROCE_NAK_REMOTE_OP: return "Remote Operational Error";
	case ROCE_NAK_INVALID_RD_REQUEST: return "Invalid RD Request";
	default: return NULL;
	}
}

/* snprintf(buf, n, "%s", text), without printf. */
static int copy_text(char *buf, size_t n, const char *text)
{
	size_t len = strlen(text);
	if (n) {
		size_t w = len < n ? len : n - 1;
		memcpy(buf, text, w);
		buf[w] = '\0';
	}
	return (int)len;
}

int roce_aeth_describe(uint8_t syndrome, char *buf, size_t n)
{
	unsigned value = roce_syndrome_value(syndrome);
	if (syndrome & 0x80)
		return snprintf(buf, n, "reserved syndrome 0x%02x", syndrome);
	switch (roce_syndrome_type(syndrome)) {
	case ROCE_SYN_ACK:
		if (value == ROCE_AETH_ACK_UNLIMITED) /* most ACKs: a copy, no printf */
			return copy_text(buf, n, "ACK (no credit information)");
		return snprintf(buf, n, "ACK %d credit%s", roce_aeth_credits(value),
				roce_aeth_credits(value) == 1 ? "" : "s");
	case ROCE_SYN_RNR_NAK: {
		uint32_t us = roce_rnr_timer_usec(value);
		return snprintf(buf, n, "RNR NAK %u.%02u ms", us / 1000, (us % 1000) / 10);
	}
	case ROCE_SYN_NAK:
		if (roce_nak_name(value))
			return snprintf(buf, n, "NAK %s", roce_nak_name(value));
		break;
	case ROCE_SYN_RESERVED:
		break;
	}
	return snprintf(buf, n, "reserved syndrome 0x%02x", syndrome);
}
