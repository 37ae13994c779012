/*
 * RoCEv2 congestion management (A17.9.3, rocev2-rules.md §6), with --rcm:
 * the notification point sends a CNP (Figure 6) for a valid CE-marked
 * packet, at most one per QP per interval; the reaction point paces each
 * QP at the line rate, cuts its rate on each CNP and recovers it over
 * time (a DCQCN-like rule: cut by alpha/2, then halve the distance to the
 * target every recovery period, with additive increase after five
 * rounds).
 */
#include "soft.h"

#include <string.h>

#define CC_G (1.0 / 16)            /* alpha gain */
#define CC_MIN_RATE (1e6 / 8)     /* 1 Mb/s in bytes per second */
#define CC_AI_RATE (5e6 / 8)      /* additive increase, 5 Mb/s */
#define CC_BURST_US 2000           /* credit a paced QP may accumulate */

static double line_rate(const struct soft_dev *dev)
{
	return dev->opts.rcm_line_rate_mbps * 1e6 / 8;
}

void soft_cc_on_ce(struct be_qp *qp, const struct soft_rx *rx)
{
	struct soft_dev *dev = qp->dev;
	if (!dev->opts.rcm)
		return;
	int64_t now = soft_now_us();
	/* The interval is per QP; the broken device keeps one for all. */
	bool global = SOFT_FAULT_ON(dev, CNP_PACING_GLOBAL);
	bool *sent = global ? &dev->cnp_sent : &qp->cc.cnp_sent;
	int64_t *last = global ? &dev->last_cnp_us : &qp->cc.last_cnp_us;
	if (*sent && now - *last < (int64_t)dev->opts.cnp_interval_us && !SOFT_FAULT_ON(dev, CNP_NO_PACING)) {
		dev->cnt.cnp_coalesced++;
		return;
	}
	*sent = true;
	*last = now;

	/* To the CE packet's source, for the QP that sent it. */
	struct roce_endpoint ep;
	memset(&ep, 0, sizeof ep);
	ep.ip_version = rx->ip_version;
	size_t n = rx->ip_version == 4 ? 4 : 16;
	memcpy(ep.src_ip, rx->dst_ip, n);
	memcpy(ep.dst_ip, rx->src_ip, n);
	memcpy(ep.src_mac, dev->mac, 6);
	memcpy(ep.dst_mac, rx->src_mac, 6);
	ep.traffic_class = 48 << 2; /* DSCP 48, Not-ECT: a CNP is not itself marked */
	ep.hop_limit = 64;
	ep.udp_sport = qp->udp_sport ? qp->udp_sport : 0xC000;
	ep.pkey = (uint16_t)roce_bth_pkey(rx->bth);
	/* The QP's priority (a UD QP has no address vector: priority 0). */
	soft_vlan_tag(dev, qp->type == BE_QPT_UD ? 0 : qp->attr.av.sl, &ep);
	if (qp->type == BE_QPT_UD)
		ep.dest_qpn = roce_deth_srcqp(roce_pkt_hdr(rx->p, ROCE_H_DETH));
	else
		ep.dest_qpn = qp->attr.dest_qpn;
	struct roce_desc d;
	roce_endpoint_desc(&ep, &d, ROCE_OP_CNP, 0);
	soft_xmit(dev, &d);
}

void soft_cc_on_cnp(struct be_qp *qp)
{
	struct soft_dev *dev = qp->dev;
	if (!dev->opts.rcm)
		return;
	if (qp->cc.rate <= 0) {
		qp->cc.rate = line_rate(dev);
		qp->cc.alpha = 1.0;
	}
	qp->cc.target = qp->cc.rate;
	qp->cc.alpha = (1 - CC_G) * qp->cc.alpha + CC_G;
	qp->cc.rate *= 1 - qp->cc.alpha / 2;
	if (qp->cc.rate < CC_MIN_RATE)
		qp->cc.rate = CC_MIN_RATE;
	qp->cc.recover_round = 0;
	qp->cc.recover_us = soft_now_us() + dev->opts.rcm_recovery_us;
	dev->cnt.rate_cuts++;
}

/* The rate a QP sends at: its congestion-managed rate after a CNP, the
 * line rate before any (or once recovered), unpaced without --rcm. */
static double send_rate(const struct be_qp *qp)
{
	if (qp->cc.rate > 0)
		return qp->cc.rate;
	return qp->dev->opts.rcm ? line_rate(qp->dev) : 0;
}

bool soft_cc_may_send(struct be_qp *qp, size_t len, int64_t now)
{
	double rate = send_rate(qp);
	if (rate <= 0) {
		qp->cc.next_tx_us = 0;
		return true;
	}
	if (qp->cc.next_tx_us > now)
		return false;
	int64_t start = qp->cc.next_tx_us;
	if (start < now - CC_BURST_US)
		start = now - CC_BURST_US;
	int64_t cost = (int64_t)(len * 1e6 / rate);
	qp->cc.next_tx_us = start + (cost ? cost : 1);
	return true;
}

void soft_cc_timers(struct be_qp *qp, int64_t now)
{
	struct soft_dev *dev = qp->dev;
	if (!qp->cc.recover_us || now < qp->cc.recover_us)
		return;
	if (SOFT_FAULT_ON(dev, NO_RATE_RECOVERY)) {
		qp->cc.recover_us = 0;
		return;
	}
	qp->cc.alpha *= 1 - CC_G;
	if (++qp->cc.recover_round > 5)
		qp->cc.target += CC_AI_RATE;
	if (qp->cc.target > line_rate(dev))
		qp->cc.target = line_rate(dev);
	qp->cc.rate = (qp->cc.rate + qp->cc.target) / 2;
	dev->cnt.rate_increases++;
	if (qp->cc.rate >= line_rate(dev) * 0.999) {
		qp->cc.rate = 0; /* back to the line rate */
		qp->cc.recover_us = 0;
	} else {
		qp->cc.recover_us = now + dev->opts.rcm_recovery_us;
	}
}

int64_t soft_cc_next_deadline(const struct be_qp *qp)
{
	int64_t a = qp->cc.recover_us;
	int64_t b = send_rate(qp) > 0 && qp->sq_next < qp->sq_count ? qp->cc.next_tx_us : 0;
	if (!a)
		return b;
	if (!b)
		return a;
	return a < b ? a : b;
}
