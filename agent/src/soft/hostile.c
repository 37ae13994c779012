/*
 * The soft DUT's hostile modes (--hostile, hostile.def): a device that
 * misbehaves wholesale, for roce-tester's robustness tests. Unlike a fault
 * profile, which changes one thing about the packets the device sends,
 * these withhold everything, add floods and storms, or add garbage. Every
 * hostile frame counts against a budget (--hostile-count), so that a test
 * stays bounded; the garbage comes from a seeded generator, so that a run
 * can be repeated.
 */
#include "soft.h"

#include <stdio.h>
#include <string.h>

#include "text.h"

/* How many copies of an ACK the dup-ack-storm mode sends in all. */
#define STORM_COPIES 200
/* Flood frames sent per turn of the main loop: the agent's protocol and
 * the device's receive path run between turns. */
#define FLOOD_BURST 64

bool soft_hostile_open(struct soft_dev *dev, char *err, size_t errlen)
{
	struct soft_hostile *h = &dev->hostile;
	const char *name = dev->opts.hostile;
	if (!name || !*name || !strcmp(name, "none"))
		return true;
	enum agent_hostile m = agent_hostile_by_name(name);
	const struct agent_hostile_info *i = agent_hostile_info(m);
	if (!i) {
		text_printf(err, errlen, "unknown hostile mode '%s' (roce-agent --list-hostile)", name);
		return false;
	}
	if (i->layer != AGENT_HOSTILE_DEVICE)
		return true; /* the agent's own business */
	h->mode = m;
	h->budget = dev->opts.hostile_count ? dev->opts.hostile_count : AGENT_HOSTILE_DEFAULT_COUNT;
	h->rng = g_rand_new_with_seed(0x486f7374);
	for (size_t k = 0; k < sizeof h->payload; k++)
		h->payload[k] = (uint8_t)(k * 13 + 7);
	g_message("soft: hostile mode %s (at most %llu hostile frames)", i->name, (unsigned long long)h->budget);
	return true;
}

void soft_hostile_close(struct soft_dev *dev)
{
	struct soft_hostile *h = &dev->hostile;
	if (h->flood_source)
		g_source_remove(h->flood_source);
	h->flood_source = 0;
	if (h->rng)
		g_rand_free(h->rng);
	h->rng = NULL;
}

bool soft_hostile_may_send(struct soft_dev *dev)
{
	if (dev->hostile.mode != AGENT_HOSTILE_SILENT)
		return true;
	dev->cnt.hostile_frames++;
	return false;
}

/* Sends bytes [0, len) of a built frame, within the budget. */
static void send_bytes(struct soft_dev *dev, const uint8_t *frame, size_t len, const uint8_t *dst)
{
	struct soft_hostile *h = &dev->hostile;
	if (!h->budget)
		return;
	h->budget--;
	if (soft_send_frame(dev, frame, len, dst))
		dev->cnt.hostile_frames++;
}

static void send_desc(struct soft_dev *dev, const struct roce_desc *d)
{
	struct soft_hostile *h = &dev->hostile;
	long n = roce_build_frame(d, h->buf, sizeof h->buf);
	if (n > 0)
		send_bytes(dev, h->buf, (size_t)n, d->eth_dst);
}

static uint32_t rnd(struct soft_dev *dev, uint32_t below)
{
	return (uint32_t)g_rand_int_range(dev->hostile.rng, 0, (gint32)below);
}

static void random_bytes(struct soft_dev *dev, uint8_t *b, size_t n)
{
	for (size_t k = 0; k < n; k++)
		b[k] = (uint8_t)rnd(dev, 256);
}

/* Random bytes as the UDP payload of a datagram to the peer's port 4791,
 * from no bytes to a thousand. */
static void garbage_random(struct soft_dev *dev, const struct roce_desc *d)
{
	struct soft_hostile *h = &dev->hostile;
	uint8_t junk[1024];
	size_t len = rnd(dev, sizeof junk);
	random_bytes(dev, junk, len);
	struct roce_desc t = *d;
	/* The builder writes a BTH, the payload and an ICRC: all of them
	 * random, with no extended headers and no pad. */
	memcpy(t.bth, junk, len < ROCE_BTH_LEN ? len : ROCE_BTH_LEN);
	t.ovr = ROCE_OVR_XHDRS | ROCE_OVR_PADCNT | ROCE_OVR_PAD_LEN | ROCE_OVR_ICRC;
	t.xhdrs = 0;
	t.pad_len = 0;
	t.icrc = (uint32_t)rnd(dev, 1u << 31) << 1;
	size_t tail = ROCE_BTH_LEN + ROCE_ICRC_LEN;
	t.payload = len > tail ? junk + ROCE_BTH_LEN : NULL;
	t.payload_len = len > tail ? len - tail : 0;
	if (len < tail) {
		/* Shorter than a BTH and an ICRC: the lengths say so and the
		 * frame is cut after them. */
		roce_desc_set(&t, ROCE_F_UDP_len, ROCE_UDP_LEN + len);
		if (t.ip_version == 4)
			roce_desc_set(&t, ROCE_F_IPV4_totlen, ROCE_IPV4_LEN + ROCE_UDP_LEN + len);
		else
			roce_desc_set(&t, ROCE_F_IPV6_paylen, ROCE_UDP_LEN + len);
	}
	long n = roce_build_frame(&t, h->buf, sizeof h->buf);
	if (n <= 0)
		return;
	if (len < tail) {
		n -= (long)(tail - len);
		memcpy(h->buf + n - len, junk, len);
	}
	send_bytes(dev, h->buf, (size_t)n, d->eth_dst);
}

/* The packet with one to four random bytes of its transport headers or
 * payload changed: with the ICRC recomputed (so that it passes the ICRC
 * check and reaches the peer's transport) or left wrong. */
static void garbage_mangled(struct soft_dev *dev, const struct roce_desc *d, bool good_icrc)
{
	struct roce_desc t = *d;
	uint8_t body[4096];
	size_t plen = d->payload_len <= sizeof body ? d->payload_len : sizeof body;
	if (plen)
		memcpy(body, d->payload, plen);
	t.payload = plen ? body : NULL;
	t.payload_len = plen;
	uint16_t xh = roce_desc_xhdrs(&t);
	size_t xlen = roce_xhdr_set_len(xh);
	unsigned changes = 1 + rnd(dev, 4);
	for (unsigned c = 0; c < changes; c++) {
		size_t at = rnd(dev, (uint32_t)(ROCE_BTH_LEN + xlen + plen));
		uint8_t v = (uint8_t)(1 + rnd(dev, 255)); /* never a no-op */
		if (at < ROCE_BTH_LEN) {
			t.bth[at] ^= v;
		} else if (at < ROCE_BTH_LEN + xlen) {
			/* The byte at that offset of the extended headers. */
			size_t off = at - ROCE_BTH_LEN;
			for (unsigned hh = ROCE_H_FIRST_XHDR; hh < ROCE_H_FIRST_XHDR + ROCE_XHDR_COUNT; hh++) {
				int o = roce_xhdr_offset(xh, (enum roce_hdr)hh);
				unsigned hl = roce_hdr_info((enum roce_hdr)hh)->size;
				if (o >= 0 && off >= (size_t)o && off < (size_t)o + hl) {
					t.xhdr[hh - ROCE_H_FIRST_XHDR][off - (size_t)o] ^= v;
					break;
				}
			}
		} else {
			body[at - ROCE_BTH_LEN - xlen] ^= v;
		}
	}
	/* Keep the extended headers the original had, whatever the opcode
	 * became: the bytes are mangled, not the layout. */
	t.ovr |= ROCE_OVR_XHDRS | ROCE_OVR_PADCNT;
	t.xhdrs = xh;
	if (!good_icrc) {
		t.ovr |= ROCE_OVR_ICRC;
		t.icrc = (uint32_t)rnd(dev, 1u << 31) * 2 + 1;
	}
	send_desc(dev, &t);
}

/* The DUT QP that sent d (RC or UC): the one connected to d's DestQP. */
static struct be_qp *sender_qp(struct soft_dev *dev, const struct roce_desc *d)
{
	uint32_t dest = roce_bth_destqp(d->bth);
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, dev->qps);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		struct be_qp *qp = v;
		if (!qp->destroyed && (qp->type == BE_QPT_RC || qp->type == BE_QPT_UC) && qp->attr.dest_qpn == dest)
			return qp;
	}
	return NULL;
}

/* One request of a flood or a stale burst, then the next PSN. */
static void send_next_flood(struct soft_dev *dev)
{
	struct roce_desc *t = &dev->hostile.flood;
	uint32_t psn = (uint32_t)roce_desc_get(t, ROCE_F_BTH_psn);
	send_desc(dev, t);
	roce_desc_set(t, ROCE_F_BTH_psn, (psn + 1) & ROCE_PSN_MASK);
}

static gboolean flood_tick(gpointer data)
{
	struct soft_dev *dev = data;
	struct soft_hostile *h = &dev->hostile;
	struct be_qp *qp = soft_qp_lookup(dev, h->flood_qpn);
	if (!qp || qp->destroyed || !h->budget) {
		g_message("soft: hostile flood over (%llu hostile frames sent)",
			  (unsigned long long)dev->cnt.hostile_frames);
		h->flood_source = 0;
		return G_SOURCE_REMOVE;
	}
	for (int i = 0; i < FLOOD_BURST && h->budget; i++)
		send_next_flood(dev);
	return G_SOURCE_CONTINUE;
}

/* Makes h->flood the first of the SEND Only requests a flood or a stale
 * burst sends on behalf of the QP that sent d; false when none did. */
static bool flood_template(struct soft_dev *dev, const struct roce_desc *d)
{
	struct soft_hostile *h = &dev->hostile;
	struct be_qp *qp = sender_qp(dev, d);
	if (!qp)
		return false;
	h->flood_started = true;
	h->flood_qpn = qp->qpn;
	struct roce_desc *t = &h->flood;
	*t = *d;
	t->ovr = 0;
	unsigned len = qp->attr.path_mtu && qp->attr.path_mtu < 1024 ? qp->attr.path_mtu : 1024;
	t->payload = h->payload;
	t->payload_len = len;
	roce_desc_set(t, ROCE_F_BTH_opcode, qp->type == BE_QPT_UC ? ROCE_OP_UC_SEND_ONLY : ROCE_OP_RC_SEND_ONLY);
	roce_desc_set(t, ROCE_F_BTH_se, 0);
	roce_desc_set(t, ROCE_F_BTH_ackreq, 0);
	roce_desc_set(t, ROCE_F_BTH_psn, qp->req.next_psn);
	g_message("soft: hostile %s of QP 0x%06x's peer (QP 0x%06x) from PSN %u",
		  h->mode == AGENT_HOSTILE_STALE ? "stale burst armed" : "flood", qp->qpn, qp->attr.dest_qpn,
		  qp->req.next_psn);
	return true;
}

static void flood_start(struct soft_dev *dev, const struct roce_desc *d)
{
	if (flood_template(dev, d))
		dev->hostile.flood_source = g_idle_add(flood_tick, dev);
}

void soft_hostile_before_create_qp(struct soft_dev *dev)
{
	struct soft_hostile *h = &dev->hostile;
	if (h->mode != AGENT_HOSTILE_STALE || !h->flood_started || h->stale_sent)
		return;
	struct be_qp *qp = soft_qp_lookup(dev, h->flood_qpn);
	if (qp && !qp->destroyed)
		return;
	/* The whole budget at once, before the new QP exists: the frames
	 * are on the wire before the answer to create_qp is. */
	h->stale_sent = true;
	while (h->budget)
		send_next_flood(dev);
	g_message("soft: hostile stale burst for destroyed QP 0x%06x sent (%llu hostile frames)", h->flood_qpn,
		  (unsigned long long)dev->cnt.hostile_frames);
}

void soft_hostile_after_tx(struct soft_dev *dev, const struct roce_desc *d)
{
	struct soft_hostile *h = &dev->hostile;
	uint8_t opcode = roce_bth_opcode(d->bth);
	const struct roce_opcode_info *oi = roce_opcode(opcode);
	switch (h->mode) {
	case AGENT_HOSTILE_DUP_ACK_STORM:
		if (oi->kind == ROCE_K_ACK &&
		    roce_syndrome_type(roce_aeth_syndrome(d->xhdr[ROCE_H_AETH - ROCE_H_FIRST_XHDR])) == ROCE_SYN_ACK)
			for (int i = 1; i < STORM_COPIES; i++)
				send_desc(dev, d);
		break;
	case AGENT_HOSTILE_UNKNOWN_QP:
		if (oi->flags & ROCE_OPF_RESPONSE) {
			struct roce_desc t = *d;
			roce_desc_set(&t, ROCE_F_BTH_destqp, roce_bth_destqp(d->bth) ^ 0x800000);
			send_desc(dev, &t);
		}
		break;
	case AGENT_HOSTILE_GARBAGE:
		garbage_random(dev, d);
		garbage_mangled(dev, d, true);
		garbage_mangled(dev, d, false);
		break;
	case AGENT_HOSTILE_FLOOD:
		if (!h->flood_started && (opcode >> 5) <= ROCE_T_UC)
			flood_start(dev, d);
		break;
	case AGENT_HOSTILE_STALE:
		if (!h->flood_started && (opcode >> 5) <= ROCE_T_UC)
			flood_template(dev, d);
		break;
	default:
		break;
	}
}
