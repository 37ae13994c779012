/*
 * Message reassembly: the packets of a multi-packet SEND or RDMA WRITE
 * message (First, Middle..., Last) put together per QP by PSN with
 * Wireshark's reassembly API, every packet linked to its message.
 */
#ifndef ROCEV2_REASSEMBLY_H
#define ROCEV2_REASSEMBLY_H

#include "rocev2.h"

void rocev2_register_reassembly(int proto, module_t *module);

/* Whether t is a packet of a message of several packets that reassembly
 * handles (a SEND or RDMA WRITE First, Middle or Last of RC, UC or XRC)
 * with the preference on. */
bool rocev2_msg_part(const struct roce_pkt *t);

/* A packet's place in its message, kept in its per-packet record
 * (analysis.h): set on the first pass. */
struct rocev2_msg_part {
	struct msg *m;  /* NULL: not a packet of a message */
	uint32_t index; /* from the First's PSN */
	bool added;     /* its bytes went to the reassembly table */
};

/* The whole message, at the packet that completed it. */
struct rocev2_msg_view {
	bool held;           /* every call: the packet's message keeps its bytes for the ULPs */
	tvbuff_t *data;      /* the reassembled payload */
	uint8_t only_opcode; /* the Only opcode a one-packet message would have had */
	uint32_t first_psn;
	bool has_reth;       /* the First's RETH (WRITE) */
	uint64_t va;
	uint32_t rkey, dmalen;
};

/* Places packet t (payload: its payload without the pad) in its message on
 * the first pass, and shows, on every pass, where the message is
 * reassembled, its packets (at the packet that completed it) and a hole.
 * ulps: a ULP reads this QP's messages, so a new SEND message's bytes are
 * kept for it (whole->held) and it gets the whole message, not the packets.
 * Returns true and fills *whole at the packet that completed such a
 * message. */
bool rocev2_reassemble(tvbuff_t *payload, packet_info *pinfo, proto_tree *tree, const struct roce_pkt *t,
		       bool ulps, struct rocev2_msg_part *part, struct rocev2_msg_view *whole);

#endif
