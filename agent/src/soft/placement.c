/*
 * FLUSH and ATOMIC WRITE (IBTA 1.5 memory placement extensions, Annex
 * A19; notes §7.5), responder and requester.
 *
 * What the responder answers, as rxe does (rxe_resp.c process_flush,
 * atomic_write_reply, acknowledge -> send_read_response_ack): an RDMA
 * READ Response Only with no payload and an AETH ACK, for both. Their
 * errors (rxe check_qp_attr_access, check_rkey, rxe_mr_do_atomic_write):
 * a QP without the rights the request needs: NAK Invalid Request; an
 * rkey without them, or a range outside it: NAK Remote Access Error; an
 * unaligned ATOMIC WRITE, one that is not 8 bytes (oA19-28) or a FETH
 * with an undefined placement type or level: NAK Invalid Request. A
 * duplicate is answered again without being executed again (oA19-14,
 * oA19-15 at rxe's replay in process_flush; atomic_write_reply likewise).
 * A FLUSH of the whole region (selectivity level 1) is held to the
 * region's key and rights, not to the RETH's range.
 *
 * The rights: FLUSH needs FLUSH_GLOBAL and/or FLUSH_PERSISTENT, as its
 * placement type asks, on the QP and on the rkey (rxe too). ATOMIC WRITE
 * needs REMOTE_WRITE, on the QP and on the rkey, as rxe asks
 * (check_op_valid, check_rkey) and rdma-core's own tests register it
 * (tests/test_qpex.py); REMOTE_ATOMIC gives no right to it.
 *
 * The soft DUT places every WRITE at once, so a FLUSH finds earlier writes
 * placed; the flush-early profile takes back the last WRITE's bytes when a
 * FLUSH comes and places them only after the answer: at the QP's next
 * request, or as soon as the agent looks at the region (a device whose
 * late placement no read through the agent, made after the answer, can
 * catch).
 */
#include "soft.h"

#include <string.h>

/* The last WRITE packet's placement (kept only under flush-early). */
struct soft_held_write {
	struct be_mr *mr; /* holds a reference */
	uint64_t at;
	size_t len;
	bool taken_back; /* a FLUSH came: the old bytes are back in place */
	uint8_t *old, *new_bytes;
};

static void held_free(struct be_qp *qp, bool place)
{
	struct soft_held_write *h = qp->resp.held;
	if (!h)
		return;
	if (place && h->taken_back && h->mr->valid)
		memcpy(h->mr->buf + h->at, h->new_bytes, h->len);
	soft_mr_unref(h->mr);
	g_free(h->old);
	g_free(h->new_bytes);
	g_free(h);
	qp->resp.held = NULL;
}

void soft_placement_write(struct be_qp *qp, struct be_mr *mr, uint64_t at, const uint8_t *src, size_t len)
{
	held_free(qp, true);
	if (SOFT_FAULT_ON(qp->dev, FLUSH_EARLY)) {
		struct soft_held_write *h = g_new0(struct soft_held_write, 1);
		h->mr = mr;
		mr->refs++;
		h->at = at;
		h->len = len;
		h->old = g_memdup2(mr->buf + at, len);
		h->new_bytes = g_memdup2(src, len);
		qp->resp.held = h;
	}
	memcpy(mr->buf + at, src, len);
	if (len >= 128 && SOFT_FAULT_ON(qp->dev, LEAK_WRITE_STALE_TAIL))
		memset(mr->buf + at + len - 8, 0xA5, 8); /* the staging buffer's stale bytes */
}

void soft_placement_settle(struct be_qp *qp, const struct soft_rx *rx)
{
	if (rx && rx->op->kind == ROCE_K_FLUSH)
		return;
	held_free(qp, true);
}

void soft_placement_host_access(struct be_mr *mr)
{
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, mr->dev->qps);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		struct be_qp *qp = v;
		if (qp->resp.held && qp->resp.held->mr == mr)
			held_free(qp, true);
	}
}

bool soft_placement_supported(const struct soft_dev *dev)
{
	return !SOFT_FAULT_ON(dev, PLACEMENT_UNSUPPORTED_ACKED);
}

/* flush-global-refused: a device without persistent memory (allowed: it
 * refuses FLUSH_PERSISTENT regions, as rxe on ordinary memory) that also
 * refuses the FLUSH of global visibility it could execute. */
static bool no_pmem_refusing_global(const struct soft_dev *dev)
{
	return SOFT_FAULT_ON(dev, FLUSH_GLOBAL_REFUSED);
}

bool soft_placement_region_ok(const struct soft_dev *dev, unsigned access)
{
	return !(access & BE_ACCESS_FLUSH_PERSISTENT) || !no_pmem_refusing_global(dev);
}

/* The answer to a FLUSH or ATOMIC WRITE, new or duplicate. */
static void answer(struct be_qp *qp, const struct soft_rx *rx, unsigned placement_type)
{
	if ((placement_type & BE_FLUSH_PERSISTENT) && SOFT_FAULT_ON(qp->dev, FLUSH_IGNORED_TYPE))
		soft_resp_ack(qp, rx, rx->psn);
	else
		soft_resp_read_response(qp, rx, NULL, 0, rx->psn);
}

static void executed(struct be_qp *qp, const struct soft_rx *rx, unsigned placement_type)
{
	struct soft_res *r = soft_resp_res_new(qp);
	r->atomic = true;
	r->placement = (uint8_t)rx->op->kind;
	r->psn = r->last_psn = rx->psn;
	r->orig = placement_type;
	qp->resp.msn++;
	qp->resp.epsn = roce_psn_add(rx->psn, 1);
	answer(qp, rx, placement_type);
}

static void flush(struct be_qp *qp, const struct soft_rx *rx)
{
	struct soft_dev *dev = qp->dev;
	const uint8_t *feth = roce_pkt_hdr(rx->p, ROCE_H_FETH), *reth = roce_pkt_hdr(rx->p, ROCE_H_RETH);
	unsigned plt = roce_feth_plt(feth), sel = roce_feth_sel(feth);
	if (SOFT_FAULT_ON(dev, FLUSH_RESERVED_ACCEPTED)) {
		/* rxe's reading: only the two defined type bits count, and any
		 * level but the range is the whole region. */
		plt &= BE_FLUSH_GLOBAL | BE_FLUSH_PERSISTENT;
		sel = sel == BE_FLUSH_RANGE ? BE_FLUSH_RANGE : BE_FLUSH_REGION;
	} else if (plt == 0 || (plt & ~(BE_FLUSH_GLOBAL | BE_FLUSH_PERSISTENT)) || sel > BE_FLUSH_REGION) {
		soft_resp_fatal(qp, rx, ROCE_NAK_INVALID_REQUEST);
		return;
	}
	unsigned right = ((plt & BE_FLUSH_GLOBAL) ? BE_ACCESS_FLUSH_GLOBAL : 0) |
			 ((plt & BE_FLUSH_PERSISTENT) ? BE_ACCESS_FLUSH_PERSISTENT : 0);
	if (SOFT_FAULT_ON(dev, FLUSH_NO_RIGHTS))
		right = 0;
	if ((qp->attr.access & right) != right) {
		soft_resp_fatal(qp, rx, ROCE_NAK_INVALID_REQUEST);
		return;
	}
	if (SOFT_FAULT_ON(dev, FLUSH_REFUSED) || no_pmem_refusing_global(dev)) {
		soft_resp_fatal(qp, rx, ROCE_NAK_INVALID_REQUEST);
		return;
	}
	uint64_t va = roce_reth_va(reth);
	uint32_t rkey = roce_reth_rkey(reth), len = roce_reth_dmalen(reth);
	struct soft_rkey k;
	bool ok;
	if (sel == BE_FLUSH_RANGE || SOFT_FAULT_ON(dev, FLUSH_REGION_RANGE_CHECKED)) {
		ok = soft_resp_remote_mr(qp, rkey, &va, len, right) != NULL;
	} else { /* the whole region: the RETH's range is not looked at */
		ok = soft_rkey_resolve(qp, rkey, &k) && (k.access & right) == right;
	}
	if (!ok) {
		soft_resp_fatal(qp, rx, ROCE_NAK_REMOTE_ACCESS);
		return;
	}
	/* Every earlier WRITE is placed in memory already: nothing to wait
	 * for (under flush-early the last one is taken back until after the
	 * answer). */
	struct soft_held_write *h = qp->resp.held;
	if (h && !h->taken_back) {
		memcpy(h->mr->buf + h->at, h->old, h->len);
		h->taken_back = true;
	}
	dev->cnt.flushes++;
	executed(qp, rx, plt);
}

/* The 8 bytes an ATOMIC WRITE places: its payload. Under
 * atomic-write-len-unchecked, as Linux rxe did before 2026, the 8 bytes
 * from the payload's start whatever its length: past a shorter payload,
 * the pad, the ICRC and what the receive buffer held before (here a
 * stale pattern), bytes the request never carried. */
static void atomic_write_value(const struct soft_rx *rx, uint8_t value[8])
{
	memset(value, 0xA5, 8);
	size_t off = (size_t)(rx->payload - rx->p->buf);
	size_t have = off < rx->p->caplen ? rx->p->caplen - off : 0;
	memcpy(value, rx->payload, have < 8 ? have : 8);
}

static void atomic_write(struct be_qp *qp, const struct soft_rx *rx)
{
	struct soft_dev *dev = qp->dev;
	const uint8_t *reth = roce_pkt_hdr(rx->p, ROCE_H_RETH);
	uint64_t va = roce_reth_va(reth);
	uint32_t dmalen = roce_reth_dmalen(reth);
	/* The right: REMOTE_WRITE (rxe), or under atomic-write-needs-atomic
	 * the soft DUT's old reading, REMOTE_ATOMIC. */
	unsigned right = SOFT_FAULT_ON(dev, ATOMIC_WRITE_NEEDS_ATOMIC) ? BE_ACCESS_REMOTE_ATOMIC : BE_ACCESS_REMOTE_WRITE;
	if (SOFT_FAULT_ON(dev, ATOMIC_WRITE_NO_RIGHTS))
		right = 0;
	bool qp_right = (qp->attr.access & right) == right;
	bool aligned = va % 8 == 0 || SOFT_FAULT_ON(dev, ATOMIC_WRITE_UNALIGNED);
	bool eight = dmalen == 8 && rx->payload_len == 8;
	if (SOFT_FAULT_ON(dev, ATOMIC_WRITE_LEN_UNCHECKED))
		eight = dmalen == rx->payload_len && dmalen <= qp->attr.path_mtu;
	if (!soft_resp_rd_atomic_allowed(qp) || !qp_right || !aligned || !eight) {
		soft_resp_fatal(qp, rx, ROCE_NAK_INVALID_REQUEST);
		return;
	}
	struct be_mr *mr = soft_resp_remote_mr(qp, roce_reth_rkey(reth), &va, dmalen < 8 ? 8 : dmalen, right);
	if (!mr) {
		soft_resp_fatal(qp, rx, ROCE_NAK_REMOTE_ACCESS);
		return;
	}
	/* The 8 bytes as the wire carries them, in one step (the torn
	 * profile places only the first 4). */
	uint8_t value[8];
	atomic_write_value(rx, value);
	memcpy(mr->buf + (va - mr->addr), value, SOFT_FAULT_ON(dev, ATOMIC_WRITE_TORN) ? 4 : 8);
	dev->cnt.atomic_writes++;
	executed(qp, rx, 0);
}

void soft_placement_rx(struct be_qp *qp, const struct soft_rx *rx)
{
	if (!soft_placement_supported(qp->dev)) {
		/* The profile's device: it claims neither, yet acknowledges both. */
		qp->resp.msn++;
		qp->resp.epsn = roce_psn_add(rx->psn, 1);
		soft_resp_ack(qp, rx, rx->psn);
		return;
	}
	if (qp->resp.open != SOFT_MSG_NONE) {
		soft_resp_fatal(qp, rx, ROCE_NAK_INVALID_REQUEST);
		return;
	}
	if (rx->op->kind == ROCE_K_FLUSH)
		flush(qp, rx);
	else
		atomic_write(qp, rx);
}

/* The profiles that execute a duplicate again: a FLUSH counts as a new
 * message again (its MSN), an ATOMIC WRITE places its bytes again over
 * what the memory holds since. */
static void reexecute(struct be_qp *qp, const struct soft_rx *rx)
{
	if (rx->op->kind == ROCE_K_FLUSH) {
		qp->resp.msn++;
		return;
	}
	const uint8_t *reth = roce_pkt_hdr(rx->p, ROCE_H_RETH);
	uint64_t va = roce_reth_va(reth);
	struct be_mr *mr = rx->payload_len == 8 ? soft_resp_remote_mr(qp, roce_reth_rkey(reth), &va, 8, 0) : NULL;
	if (mr)
		memcpy(mr->buf + (va - mr->addr), rx->payload, 8);
}

void soft_placement_duplicate(struct be_qp *qp, const struct soft_rx *rx)
{
	struct soft_res *r = soft_resp_res_find(qp, rx->psn, true);
	if (!r || r->psn != rx->psn || r->placement != rx->op->kind) {
		qp->dev->cnt.resp_dup_dropped++;
		return;
	}
	if ((rx->op->kind == ROCE_K_FLUSH && SOFT_FAULT_ON(qp->dev, FLUSH_DUP_REEXECUTED)) ||
	    (rx->op->kind == ROCE_K_ATOMIC_WRITE && SOFT_FAULT_ON(qp->dev, ATOMIC_WRITE_DUP_REEXECUTED)))
		reexecute(qp, rx);
	answer(qp, rx, (unsigned)r->orig);
}

/* ---- Requester ---- */

bool soft_placement_wr(enum be_wr_opcode op)
{
	return op == BE_WR_FLUSH || op == BE_WR_ATOMIC_WRITE;
}

void soft_placement_build(struct be_qp *qp, const struct be_send_wr *wr, struct roce_desc *d)
{
	uint8_t *reth = roce_desc_hdr(d, ROCE_H_RETH);
	roce_reth_set_va(reth, wr->remote_addr);
	roce_reth_set_rkey(reth, wr->rkey);
	if (wr->opcode == BE_WR_FLUSH) {
		roce_reth_set_dmalen(reth, wr->flush_length);
		uint8_t *feth = roce_desc_hdr(d, ROCE_H_FETH);
		roce_feth_set_plt(feth, wr->flush_type);
		roce_feth_set_sel(feth, wr->flush_level);
		return;
	}
	roce_reth_set_dmalen(reth, 8);
	uint8_t *v = qp->dev->payload;
	for (int i = 0; i < 8; i++)
		v[i] = (uint8_t)(wr->atomic_value >> (56 - 8 * i));
	d->payload = v;
	d->payload_len = 8;
}

bool soft_placement_response_ok(const struct be_qp *qp, const struct soft_rx *rx)
{
	(void)qp;
	const uint8_t *aeth = roce_pkt_hdr(rx->p, ROCE_H_AETH);
	return rx->op->kind == ROCE_K_READ_RESP && rx->op->position == ROCE_POS_ONLY && rx->payload_len == 0 &&
	       aeth && roce_aeth_type(aeth) == ROCE_SYN_ACK;
}

enum be_wc_opcode soft_placement_wc_opcode(const struct be_qp *qp, enum be_wr_opcode op)
{
	if (op == BE_WR_ATOMIC_WRITE)
		return BE_WC_ATOMIC_WRITE;
	/* The broken device takes the READ Response Only that answers its
	 * FLUSH for a READ's. */
	return SOFT_FAULT_ON(qp->dev, FLUSH_WC_READ) ? BE_WC_RDMA_READ : BE_WC_FLUSH;
}
