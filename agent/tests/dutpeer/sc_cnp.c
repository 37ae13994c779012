/*
 * Congestion management (the agent runs with --rcm): CNPs within the
 * pacing interval.
 */
#include "dutpeer.h"

static void tx_ce_send(struct dq *q, uint32_t psn)
{
	struct roce_desc d;
	desc(q, &d, "RC SEND Only", psn);
	roce_bth_set_ackreq(d.bth, 1);
	roce_bth_set_pkey(d.bth, 0xFFFF);
	if (d.ip_version == 6)
		roce_ipv6_set_ecn(d.ip, 3);
	else
		roce_ipv4_set_ecn(d.ip, 3);
	d.payload = pattern(22);
	d.payload_len = 16;
	tx(&d);
}

bool sc_cnp_pacing(void)
{
	/* The agent runs with --cnp-interval-us 200000: one CNP per 200 ms. */
	struct dq q;
	if (!dut_qp(&q, (struct dq_opts){ 0 }))
		return false;
	int cnps = 0;
	struct got g;
	for (int i = 0; i < 3; i++)
		tx_ce_send(&q, q.epsn + (uint32_t)i);
	while (rx(q.my_qpn, 100, &g))
		cnps += g.op->kind == ROCE_K_CNP;
	REQUIRE(cnps == 1, "%d CNPs for three CE packets within the interval, expected 1", cnps);
	return true;
}
