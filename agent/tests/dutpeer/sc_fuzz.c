/*
 * Random packets that pass the ICRC and reach the transport.
 */
#include "dutpeer.h"

/* Thousands of random requests and responses that pass the ICRC and reach
 * the transport: the DUT must stay up, and a fresh QP must still work. */
bool sc_fuzz(void)
{
	struct dq q;
	if (!dut_qp(&q, (struct dq_opts){ .timeout = 8, .retry_cnt = 7, .rnr_retry = 7 }))
		return false;
	/* Something outstanding, so that responses meet requester state. */
	REQUIRE(post_send(&q, "RDMA_READ", 1, 0, 3000, "\"remote_addr\":65536,\"rkey\":42"), "post_send");
	REQUIRE(post_send(&q, "SEND", 2, 0, 2000, NULL), "post_send");
	unsigned long long seed = 0x5EED0F00ull + P.ipv;
	uint8_t payload[PMTU + 64];
	for (int i = 0; i < 4000; i++) {
		unsigned long long r = seed ^= seed << 13, r2;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		r2 = seed;
		uint8_t op = (uint8_t)(r % 3 == 0 ? (r >> 8) & 0xFF : (r >> 8) % (ROCE_OP_RC_SEND_ONLY_WITH_INV + 1)); /* mostly RC */
		if (!roce_opcode(op)->name)
			continue;
		struct roce_desc d;
		desc(&q, &d, "RC SEND Only", q.epsn);
		roce_bth_set_opcode(d.bth, op);
		uint32_t psn = (r2 & 1) ? q.epsn + (uint32_t)((r2 >> 1) % 8) - 3 : q.dut_psn + (uint32_t)((r2 >> 1) % 8);
		roce_bth_set_psn(d.bth, psn & ROCE_PSN_MASK);
		roce_bth_set_ackreq(d.bth, (r2 >> 5) & 1);
		if (((r2 >> 9) & 31) == 0)
			roce_bth_set_destqp(d.bth, (uint32_t)(r2 >> 20) & 0xFFFFFF);
		for (unsigned h = 0; h < ROCE_XHDR_COUNT; h++)
			for (unsigned b = 0; b < ROCE_XHDR_MAX; b++) {
				seed ^= seed << 13;
				seed ^= seed >> 7;
				seed ^= seed << 17;
				d.xhdr[h][b] = (uint8_t)seed;
			}
		/* Keep some VAs and keys real, so execution paths run. */
		if ((r2 >> 14) & 1) {
			uint8_t *reth = roce_desc_hdr(&d, ROCE_H_RETH);
			roce_reth_set_va(reth, q.addr + ((r2 >> 16) % 70000));
			roce_reth_set_rkey(reth, q.rkey);
			roce_reth_set_dmalen(reth, (r2 >> 32) % 5000);
			uint8_t *a = roce_desc_hdr(&d, ROCE_H_ATOMICETH);
			roce_atomiceth_set_va(a, q.addr + ((r2 >> 16) % 70000));
			roce_atomiceth_set_rkey(a, q.rkey);
			uint8_t *aeth = roce_desc_hdr(&d, ROCE_H_AETH);
			roce_aeth_set_syndrome(aeth, (r2 >> 40) & 1 ? roce_syndrome_ack(ROCE_AETH_ACK_UNLIMITED) : (uint8_t)(r2 >> 41));
		}
		size_t len = (size_t)((r2 >> 48) % (PMTU + 40));
		for (size_t k = 0; k < len; k++)
			payload[k] = (uint8_t)(k ^ r2);
		d.payload = payload;
		d.payload_len = len;
		tx(&d);
		if (i % 64 == 0) {
			struct got g;
			while (rx(0, 0, &g))
				;
		}
	}
	sleep_ms(100);
	REQUIRE(session_start() && call("query_device", "{}"), "the agent stopped answering after the fuzzing");
	return sc_send_only();
}
