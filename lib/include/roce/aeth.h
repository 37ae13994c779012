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

/* NAK codes (syndrome 0x60 | code). */
enum roce_nak_code {
	ROCE_NAK_PSN_SEQ_ERR = 0,
	ROCE_NAK_INVALID_REQUEST = 1,
	ROCE_NAK_REMOTE_ACCESS = 2,
	ROCE_NAK_REMOTE_OP = 3,
	ROCE_NAK_INVALID_RD_REQUEST = 4,
};

#define ROCE_AETH_ACK_UNLIMITED 0x1F /* ACK, "no credit information" */

static inline enum roce_syndrome_type roce_syndrome_type(uint8_t syndrome)
{
	return (enum roce_syndrome_type)((syndrome >> 5) & 3);
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
