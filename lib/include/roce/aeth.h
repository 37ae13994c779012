/*
 * The AETH syndrome (IBA §9.3.5): ACK with a credit count, RNR NAK with a
 * timer code, or NAK with a reason; and the timer encodings that go with
 * the reliable transport.
 */
#ifndef ROCE_AETH_H
#define ROCE_AETH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum roce_syndrome_type {
	ROCE_SYN_ACK = 0,
	ROCE_SYN_RNR_NAK = 1,
	ROCE_SYN_RESERVED = 2,
	ROCE_SYN_NAK = 3,
};

/* NAK codes (the value of a NAK syndrome). */
enum roce_nak_code {
	ROCE_NAK_PSN_SEQ_ERR = 0,
	ROCE_NAK_INVALID_REQUEST = 1,
	ROCE_NAK_REMOTE_ACCESS = 2,
	ROCE_NAK_REMOTE_OP = 3,
	ROCE_NAK_INVALID_RD_REQUEST = 4,
};

#define ROCE_AETH_ACK_UNLIMITED 0x1F /* ACK, "no credit information" */

/* The syndrome byte: bit 7 reserved, bits 6:5 the type, bits 4:0 its
 * value (a credit code, an RNR timer code or a NAK code). */
static inline enum roce_syndrome_type roce_syndrome_type(uint8_t syndrome)
{
	return (enum roce_syndrome_type)((syndrome >> 5) & 3);
}

/* The bits that say the type, with the reserved bit: a syndrome matches a
 * type t when (s & ROCE_SYNDROME_TYPE_MASK) == roce_syndrome(t, 0). */
#define ROCE_SYNDROME_TYPE_MASK 0xE0u

static inline unsigned roce_syndrome_value(uint8_t syndrome)
{
	return syndrome & 0x1Fu;
}

static inline uint8_t roce_syndrome(enum roce_syndrome_type type, unsigned value)
{
	return (uint8_t)((((unsigned)type & 3u) << 5) | (value & 0x1Fu));
}

/* ACK with a credit code (ROCE_AETH_ACK_UNLIMITED: no credit information). */
static inline uint8_t roce_syndrome_ack(unsigned credit_code)
{
	return roce_syndrome(ROCE_SYN_ACK, credit_code);
}

/* RNR NAK with a timer code (roce_rnr_timer_usec). */
static inline uint8_t roce_syndrome_rnr(unsigned timer_code)
{
	return roce_syndrome(ROCE_SYN_RNR_NAK, timer_code);
}

static inline uint8_t roce_syndrome_nak(enum roce_nak_code code)
{
	return roce_syndrome(ROCE_SYN_NAK, (unsigned)code);
}

/* Credits for an ACK credit code 0..30; -1 for 31 (no credit information). */
int roce_aeth_credits(unsigned code);
/* RNR NAK timer code 0..31 in microseconds (code 0 is the longest). */
uint32_t roce_rnr_timer_usec(unsigned code);
/* Local ACK timeout exponent 1..31 in nanoseconds (4.096 us * 2^n); 0 when
 * n is 0, which means no timeout. */
uint64_t roce_ack_timeout_nsec(unsigned n);
/* NAK reason as words ("PSN Sequence Error"); NULL for reserved codes. */
const char *roce_nak_name(unsigned code);

/* The syndrome in words, as the Info column shows it: "ACK (no credit
 * information)", "ACK 64 credits", "RNR NAK 1.28 ms", "NAK PSN Sequence
 * Error", "reserved syndrome 0x45". Returns what snprintf returns. */
int roce_aeth_describe(uint8_t syndrome, char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif
