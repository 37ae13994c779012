/*
 * Building blocks of the sample conversations (conversations.c and its
 * siblings): a connection between host A and host B, and helpers that emit
 * one packet of it each. Internal to testsupport.
 */
#ifndef ROCE_CONV_BUILD_H
#define ROCE_CONV_BUILD_H

#include <stdbool.h>

#include "conversations.h"

#define PMTU 1024
#define SYN_ACK roce_syndrome_ack(ROCE_AETH_ACK_UNLIMITED)
#define SYN_NAK_SEQ roce_syndrome_nak(ROCE_NAK_PSN_SEQ_ERR)
#define SYN_RNR_1_28_MS roce_syndrome_rnr(14)

struct conv {
	sample_emit_fn emit;
	void *ctx;
	int ipv;
	uint64_t t_us;
	uint8_t payload[SAMPLE_FRAME_MAX];
	uint16_t sport_a, sport_b;
	uint32_t qp_a, qp_b;  /* the connection's QPs at A and B */
	uint16_t ip_id;       /* the next IPv4 identification, as Linux numbers them */
	uint8_t ecn_a, ecn_b; /* the ECN bits of what A (B) sends: 0, 1 or 2 as sent, 3 marked CE on the way */
	bool rocev1;          /* sent as RoCE v1 (ipv 6: the GIDs of the IPv6 addresses) */
	uint8_t last[SAMPLE_FRAME_MAX]; /* the last frame sent, for duplicates */
	size_t last_len;
};

void conv_init(struct conv *c, sample_emit_fn emit, void *ctx, int ipv);
/* A packet of `opcode` from A (or B) to the other host, to destqp, psn. */
void conv_start(struct conv *c, struct roce_desc *d, bool from_a, uint8_t opcode, uint32_t destqp,
		uint32_t psn, size_t plen);
uint8_t *conv_hdr(struct roce_desc *d, enum roce_hdr h);
/* Builds and emits the packet gap_us after the previous one. */
void conv_send(struct conv *c, struct roce_desc *d, uint64_t gap_us, enum roce_code expect, const char *what);
/* The last frame again, byte for byte: a copy the network made. */
void conv_duplicate(struct conv *c, uint64_t gap_us, enum roce_code expect, const char *what);
/* Requests A -> B go to QP B; responses B -> A to QP A; and the reverse. */
void conv_req(struct conv *c, bool from_a, uint8_t opcode, uint32_t psn, size_t plen, enum roce_code expect,
	      const char *what);
void conv_req_to(struct conv *c, uint32_t destqp, uint8_t opcode, uint32_t psn, size_t plen, const char *what);
void conv_ack(struct conv *c, bool from_b, uint8_t opcode, uint32_t psn, uint8_t syndrome, uint32_t msn,
	      size_t plen, enum roce_code expect, const char *what);
void conv_read_req(struct conv *c, uint32_t psn, uint32_t len, enum roce_code expect, const char *what);
void conv_mad(struct conv *c, bool from_a, const uint8_t *m, const char *what);
void conv_ip_cm_private(struct conv *c, uint8_t *priv);
void conv_cm_connect_to(struct conv *c, uint32_t psn_a, uint32_t psn_b, uint64_t service_id,
			const uint8_t *req_private, size_t req_len, const uint8_t *rep_private, size_t rep_len);
void conv_cm_connect(struct conv *c, uint32_t psn_a, uint32_t psn_b);
void conv_cm_disconnect(struct conv *c);
/* An RPC-over-RDMA (RFC 8166) RDMA_MSG carrying an NFSv3 NULL call. */
size_t conv_rpc_over_rdma(uint8_t *b);

#endif
