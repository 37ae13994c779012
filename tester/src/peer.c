/* The stateful peer engine (see peer.h). */
#include "peer.h"

#include "bufpool.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

#define SLOTS 1024 /* per-QP timing slots, by PSN */

struct wqe {
	struct peer_wr wr;
	uint8_t *buf;       /* SEND/WRITE payload copy; READ destination */
	uint32_t first_psn; /* PSNs [first_psn, first_psn + npkts) */
	uint32_t npkts;
	uint32_t resp_next; /* READ: responses received so far (packets) */
};

struct saved_resp {
	bool used;
	enum roce_op_kind kind;
	uint32_t psn, npkts;
	uint64_t va;
	uint32_t rkey, len;
	uint64_t orig;
	uint32_t msn;
};

struct held {
	bool used;
	bool rx;
	uint32_t qpn;
	uint64_t release_ns; /* delay: when; 0 for reorder */
	unsigned remaining;  /* reorder: later packets still to overtake it */
	struct peer_tx_info info;
	/* Copies of the peer_tx_info texts: the engine's own word for the
	 * packet (ACK, retransmission ...) and an injection rule's label. */
	char why[48], rule[sizeof ((struct inj_rule *)0)->text];
	size_t len;
	uint8_t frame[PEER_FRAME_MAX];
};

struct qp {
	bool used;
	struct peer_qp_cfg cfg;
	bool auto_on, rnr_on, ack_on, error;
	long recv_avail;

	/* Requester. */
	uint32_t next_psn;
	struct wqe sq[PEER_SQ_DEPTH];
	unsigned sq_head, sq_n;
	unsigned retries_left, rnr_left;
	uint64_t deadline;
	uint64_t rnr_until;
	uint32_t rnr_psn;

	/* Responder. */
	uint32_t epsn, msn, last_rx_psn;
	bool nak_seq_sent;
	bool in_msg;
	enum roce_op_kind msg_kind;
	uint32_t msg_first_psn;
	uint8_t *rbuf;
	size_t rlen, rcap;
	struct peer_mr *wmr;
	uint64_t wva;
	uint32_t wlen, wdone;
	bool uc_dropping;
	struct saved_resp saved[PEER_SAVED_RESP];
	unsigned saved_next;

	/* Timing and observation. */
	uint64_t tx_time[SLOTS];
	uint32_t tx_psn[SLOTS];
	bool tx_seen[SLOTS];
	uint64_t rx_time[SLOTS];
	uint32_t rx_psn[SLOTS];
	bool rx_seen[SLOTS];
	bool sport_known;
	uint16_t sport;
};

struct peer {
	struct peer_io io;
	struct qp qps[PEER_MAX_QPS];
	struct peer_mr mrs[PEER_MAX_MRS];
	unsigned n_mrs;
	uint64_t next_addr;
	uint32_t next_rkey;
	struct peer_wc cq[PEER_CQ_DEPTH];
	unsigned cq_n;
	struct inj_set rules;
	struct inj_rounds tx_rounds, rx_rounds;
	struct held held[PEER_HELD_MAX];
	unsigned n_reorder_held[2]; /* held packets waiting to be overtaken, tx [0] and rx [1] */
	struct peer_timing *timings;
	size_t n_timings, cap_timings;
	struct peer_finding *findings;
	size_t n_findings, cap_findings;
	/* Past PEER_MAX_FINDINGS and PEER_MAX_TIMINGS a case's records are
	 * counted, not kept: a hostile DUT must not grow them without bound. */
	uint64_t findings_dropped, timings_dropped;
	/* Message and completion buffers: reused, so that a steady flow of
	 * packets allocates nothing. The last polled completion's data is
	 * given back at the next poll. */
	struct bufpool pool;
	void *polled;
	struct peer_stats stats;
	uint64_t now;
	uint8_t scratch[PEER_FRAME_MAX];
};

/* ---- Names ---- */

const char *peer_op_name(enum peer_op op)
{
	const char *n = ap_wc_opcode_name((enum ap_wc_opcode)op);
	return n ? n : "?";
}

/* ---- Memory helpers ---- */

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fputs("roce-tester: out of memory\n", stderr);
		abort();
	}
	return p;
}

static void finding(struct peer *p, struct qp *q, enum roce_rule rule, uint32_t psn, bool error,
		    const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void finding(struct peer *p, struct qp *q, enum roce_rule rule, uint32_t psn, bool error,
		    const char *fmt, ...)
{
	if (p->n_findings == PEER_MAX_FINDINGS) {
		p->findings_dropped++;
		/* The last slot says how many more there were, and an error
		 * among them is not lost. */
		struct peer_finding *f = &p->findings[PEER_MAX_FINDINGS - 1];
		f->error = f->error || error;
		text_printf(f->text, sizeof f->text, "%llu more findings of the engine, not listed",
			    (unsigned long long)p->findings_dropped + 1);
		f->rule = error ? rule : f->rule;
		return;
	}
	if (p->n_findings == p->cap_findings) {
		p->cap_findings = p->cap_findings ? 2 * p->cap_findings : 32;
		struct peer_finding *f = realloc(p->findings, p->cap_findings * sizeof *f);
		if (!f)
			abort();
		p->findings = f;
	}
	struct peer_finding *f = &p->findings[p->n_findings++];
	f->rule = rule;
	f->qpn = q->cfg.qpn;
	f->psn = psn;
	f->ts_ns = p->now;
	f->error = error;
	va_list ap;
	va_start(ap, fmt);
	text_vprintf(f->text, sizeof f->text, fmt, ap);
	va_end(ap);
}

static void timing(struct peer *p, struct qp *q, uint32_t psn, uint8_t opcode, uint64_t ts, uint64_t delta,
		   const char *what)
{
	if (p->n_timings == PEER_MAX_TIMINGS) {
		p->timings_dropped++;
		return;
	}
	if (p->n_timings == p->cap_timings) {
		p->cap_timings = p->cap_timings ? 2 * p->cap_timings : 256;
		struct peer_timing *t = realloc(p->timings, p->cap_timings * sizeof *t);
		if (!t)
			abort();
		p->timings = t;
	}
	p->timings[p->n_timings++] = (struct peer_timing){ q->cfg.qpn, psn, opcode, ts, delta, what };
}

/* ---- Set-up ---- */

struct peer *peer_new(const struct peer_io *io)
{
	struct peer *p = calloc(1, sizeof *p);
	if (!p)
		abort();
	/* The records get their whole room now: growing them later would
	 * allocate on the per-packet path. */
	p->cap_timings = PEER_MAX_TIMINGS;
	p->cap_findings = PEER_MAX_FINDINGS;
	p->timings = malloc(p->cap_timings * sizeof *p->timings);
	p->findings = malloc(p->cap_findings * sizeof *p->findings);
	if (!p->timings || !p->findings)
		abort();
	p->io = *io;
	peer_reset(p);
	return p;
}

static void free_qp(struct peer *p, struct qp *q)
{
	for (unsigned i = 0; i < q->sq_n; i++)
		bufpool_put(&p->pool, q->sq[(q->sq_head + i) % PEER_SQ_DEPTH].buf);
	free(q->rbuf);
	memset(q, 0, sizeof *q);
}

void peer_reset(struct peer *p)
{
	for (unsigned i = 0; i < PEER_MAX_QPS; i++)
		free_qp(p, &p->qps[i]);
	for (unsigned i = 0; i < p->n_mrs; i++)
		free(p->mrs[i].buf);
	bufpool_put(&p->pool, p->polled);
	p->polled = NULL;
	p->n_mrs = 0;
	for (unsigned i = 0; i < p->cq_n; i++)
		bufpool_put(&p->pool, p->cq[i].data);
	p->cq_n = 0;
	p->findings_dropped = 0;
	p->timings_dropped = 0;
	inj_clear(&p->rules);
	memset(&p->tx_rounds, 0, sizeof p->tx_rounds);
	memset(&p->rx_rounds, 0, sizeof p->rx_rounds);
	for (unsigned i = 0; i < PEER_HELD_MAX; i++)
		p->held[i].used = false;
	p->n_reorder_held[0] = p->n_reorder_held[1] = 0;
	p->n_timings = 0;
	p->n_findings = 0;
	memset(&p->stats, 0, sizeof p->stats);
	/* Addresses and keys look like a real device's, and differ per case
	 * so that a stale reference fails visibly. */
	p->next_addr = 0x7f5a00000000ull + ((uint64_t)(rand() & 0xFFF) << 24);
	p->next_rkey = 0x1000u + (uint32_t)(rand() & 0xFFFF) * 0x100u;
}

void peer_free(struct peer *p)
{
	if (!p)
		return;
	peer_reset(p);
	bufpool_clear(&p->pool);
	free(p->timings);
	free(p->findings);
	free(p);
}

static struct qp *find_qp(struct peer *p, uint32_t qpn)
{
	for (unsigned i = 0; i < PEER_MAX_QPS; i++)
		if (p->qps[i].used && p->qps[i].cfg.qpn == qpn)
			return &p->qps[i];
	return NULL;
}

int peer_qp_add(struct peer *p, const struct peer_qp_cfg *cfg)
{
	if (find_qp(p, cfg->qpn) || !cfg->pmtu)
		return -1;
	for (unsigned i = 0; i < PEER_MAX_QPS; i++) {
		struct qp *q = &p->qps[i];
		if (q->used)
			continue;
		memset(q, 0, sizeof *q);
		q->used = true;
		q->cfg = *cfg;
		q->cfg.ep.dest_qpn = cfg->remote_qpn;
		q->auto_on = q->ack_on = true;
		q->recv_avail = -1;
		q->next_psn = cfg->sq_psn & ROCE_PSN_MASK;
		q->epsn = cfg->rq_psn & ROCE_PSN_MASK;
		q->last_rx_psn = roce_psn_add(q->epsn, -1);
		q->retries_left = cfg->retry_cnt;
		q->rnr_left = cfg->rnr_retry;
		return 0;
	}
	return -1;
}

#define QP_OR_RETURN(v)                                   \
	struct qp *q = find_qp(p, qpn);                   \
	if (!q)                                           \
		return v

void peer_qp_set_auto(struct peer *p, uint32_t qpn, bool on) { QP_OR_RETURN(); q->auto_on = on; }
void peer_qp_set_rnr(struct peer *p, uint32_t qpn, bool on) { QP_OR_RETURN(); q->rnr_on = on; }
void peer_qp_set_ack(struct peer *p, uint32_t qpn, bool on) { QP_OR_RETURN(); q->ack_on = on; }
void peer_qp_set_rnr_timer(struct peer *p, uint32_t qpn, unsigned code) { QP_OR_RETURN(); q->cfg.rnr_timer = code & 31; }
void peer_qp_set_recv(struct peer *p, uint32_t qpn, long count) { QP_OR_RETURN(); q->recv_avail = count; }
uint32_t peer_qp_next_psn(struct peer *p, uint32_t qpn) { QP_OR_RETURN(0); return q->next_psn; }
void peer_qp_set_next_psn(struct peer *p, uint32_t qpn, uint32_t psn) { QP_OR_RETURN(); q->next_psn = psn & ROCE_PSN_MASK; }
uint32_t peer_qp_epsn(struct peer *p, uint32_t qpn) { QP_OR_RETURN(0); return q->epsn; }
uint32_t peer_qp_last_rx_psn(struct peer *p, uint32_t qpn) { QP_OR_RETURN(0); return q->last_rx_psn; }
uint32_t peer_qp_msn(struct peer *p, uint32_t qpn) { QP_OR_RETURN(0); return q->msn; }
bool peer_qp_exists(struct peer *p, uint32_t qpn) { return find_qp(p, qpn) != NULL; }
bool peer_qp_in_error(struct peer *p, uint32_t qpn) { QP_OR_RETURN(false); return q->error; }

const struct peer_mr *peer_mr_add(struct peer *p, size_t len, unsigned access, uint8_t fill)
{
	if (p->n_mrs == PEER_MAX_MRS || len > (64u << 20))
		return NULL;
	struct peer_mr *m = &p->mrs[p->n_mrs++];
	m->buf = xmalloc(len);
	memset(m->buf, fill, len);
	m->len = len;
	m->access = access;
	m->addr = p->next_addr;
	m->rkey = p->next_rkey;
	p->next_addr += (len + 0xFFFFu) & ~(uint64_t)0xFFFF;
	p->next_rkey += 0x100;
	return m;
}

static struct peer_mr *mr_check(struct peer *p, uint32_t rkey, uint64_t va, uint64_t len, unsigned access)
{
	for (unsigned i = 0; i < p->n_mrs; i++) {
		struct peer_mr *m = &p->mrs[i];
		if (m->rkey != rkey)
			continue;
		if (!(m->access & access))
			return NULL;
		if (va < m->addr || len > m->len || va - m->addr > m->len - len)
			return NULL;
		return m;
	}
	return NULL;
}

struct inj_set *peer_rules(struct peer *p)
{
	return &p->rules;
}

size_t peer_timings(struct peer *p, const struct peer_timing **out)
{
	*out = p->timings;
	return p->n_timings;
}

void peer_records_dropped(struct peer *p, uint64_t *findings, uint64_t *timings)
{
	*findings = p->findings_dropped;
	*timings = p->timings_dropped;
}

size_t peer_findings(struct peer *p, const struct peer_finding **out)
{
	*out = p->findings;
	return p->n_findings;
}

const struct peer_stats *peer_stats(struct peer *p)
{
	return &p->stats;
}

/* ---- Completions ---- */

/* A completion owns its data (wc->data) until it is polled; then the
 * engine keeps it until the next reset. */
static void complete(struct peer *p, struct qp *q, const struct peer_wc *wc)
{
	if (p->cq_n == PEER_CQ_DEPTH) {
		/* The oldest completion gives way, with its data: a case reads
		 * its own, and a DUT that floods the tester with SENDs must not
		 * make it keep every one. */
		bufpool_put(&p->pool, p->cq[0].data);
		memmove(p->cq, p->cq + 1, (PEER_CQ_DEPTH - 1) * sizeof *p->cq);
		p->cq_n--;
	}
	p->cq[p->cq_n] = *wc;
	p->cq[p->cq_n].qpn = q->cfg.qpn;
	p->cq[p->cq_n].ts_ns = p->now;
	p->cq_n++;
}

bool peer_poll(struct peer *p, uint32_t qpn, struct peer_wc *wc)
{
	for (unsigned i = 0; i < p->cq_n; i++) {
		if (p->cq[i].qpn != qpn)
			continue;
		*wc = p->cq[i];
		bufpool_put(&p->pool, p->polled);
		p->polled = wc->data;
		memmove(p->cq + i, p->cq + i + 1, (p->cq_n - i - 1) * sizeof *p->cq);
		p->cq_n--;
		return true;
	}
	return false;
}

/* ---- Sending ---- */

static void send_now(struct peer *p, const uint8_t *frame, size_t len, const struct peer_tx_info *info)
{
	if (p->io.send(p->io.ctx, frame, len, info) == 0)
		p->stats.tx++;
}

static void process_rx(struct peer *p, const uint8_t *frame, size_t len, uint64_t ts, bool from_hold);

static struct held *hold(struct peer *p, bool rx, uint32_t qpn, const uint8_t *frame, size_t len,
			 const struct peer_tx_info *info)
{
	for (unsigned i = 0; i < PEER_HELD_MAX; i++) {
		struct held *h = &p->held[i];
		if (h->used)
			continue;
		memset(h, 0, offsetof(struct held, frame));
		h->used = true;
		h->rx = rx;
		h->qpn = qpn;
		h->len = len;
		memcpy(h->frame, frame, len);
		if (info) {
			h->info = *info;
			text_copy(h->why, sizeof h->why, info->why);
			text_copy(h->rule, sizeof h->rule, info->rule);
			h->info.why = h->why;
			h->info.rule = h->rule;
		}
		return h;
	}
	return NULL;
}

static void release_held(struct peer *p, struct held *h)
{
	h->used = false;
	if (h->rx)
		process_rx(p, h->frame, h->len, p->now, true);
	else
		send_now(p, h->frame, h->len, &h->info);
}

/* A packet went by in this direction: held packets waiting to be
 * overtaken count it. */
static void reorder_tick(struct peer *p, bool rx)
{
	if (!p->n_reorder_held[rx])
		return; /* the common case: nothing held back to reorder */
	for (unsigned i = 0; i < PEER_HELD_MAX; i++) {
		struct held *h = &p->held[i];
		if (h->used && h->rx == rx && !h->release_ns && h->remaining && --h->remaining == 0) {
			p->n_reorder_held[rx]--;
			release_held(p, h);
		}
	}
}

static void note(struct peer *p, const struct peer_tx_info *info, const char *what)
{
	if (p->io.note)
		p->io.note(p->io.ctx, info, what);
}

/* Every tester packet goes out through here: round counting, tx rules,
 * timing. */
static void emit(struct peer *p, struct qp *q, uint8_t *frame, size_t len, const char *why)
{
	struct roce_pkt pk;
	roce_parse_frame(&pk, frame, len, len, ROCE_PARSE_ANY_PORT | ROCE_PARSE_ROCEV1);
	const uint8_t *bth = roce_pkt_hdr(&pk, ROCE_H_BTH);
	struct peer_tx_info info = { q->cfg.qpn, bth ? roce_bth_psn(bth) : 0, bth ? (uint8_t)roce_bth_opcode(bth) : 0, 0, why, NULL };
	info.round = inj_round_next(&p->tx_rounds, info.qpn, info.psn, info.opcode);
	struct inj_pkt ip = { false, info.qpn, info.opcode, info.psn, info.round };
	struct inj_rule *r = inj_match(&p->rules, &ip);
	if (bth && (roce_opcode(info.opcode)->flags & ROCE_OPF_REQUEST)) {
		q->tx_time[info.psn % SLOTS] = p->now;
		q->tx_psn[info.psn % SLOTS] = info.psn;
		q->tx_seen[info.psn % SLOTS] = true;
	}
	if (!r) {
		send_now(p, frame, len, &info);
		reorder_tick(p, false);
		return;
	}
	info.rule = r->text;
	char err[128];
	switch (r->action) {
	case INJ_DROP:
		p->stats.dropped_by_rule++;
		note(p, &info, "dropped by rule");
		return;
	case INJ_DUPLICATE:
		send_now(p, frame, len, &info);
		send_now(p, frame, len, &info);
		reorder_tick(p, false);
		return;
	case INJ_DELAY: {
		struct held *h = hold(p, false, q->cfg.qpn, frame, len, &info);
		if (h)
			h->release_ns = p->now + (r->delay_ns ? r->delay_ns : 1);
		note(p, &info, "delayed by rule");
		return;
	}
	case INJ_REORDER: {
		struct held *h = hold(p, false, q->cfg.qpn, frame, len, &info);
		if (h && (h->remaining = r->reorder_n))
			p->n_reorder_held[0]++;
		note(p, &info, "held back by rule");
		return;
	}
	case INJ_CORRUPT_ICRC:
	case INJ_ECN_CE:
	case INJ_SET: {
		long n = inj_modify(r, frame, len, PEER_FRAME_MAX, err, sizeof err);
		if (n < 0) {
			note(p, &info, err);
			n = (long)len;
		}
		send_now(p, frame, (size_t)n, &info);
		reorder_tick(p, false);
		return;
	}
	}
}

int peer_inject(struct peer *p, uint32_t qpn, const uint8_t *frame, size_t len, uint64_t now_ns, const char *why)
{
	QP_OR_RETURN(-1);
	if (len > PEER_FRAME_MAX)
		return -1;
	p->now = now_ns;
	uint8_t *copy = p->scratch;
	memcpy(copy, frame, len);
	uint64_t before = p->stats.tx;
	emit(p, q, copy, len, why);
	(void)before;
	return 0;
}

static void build_send(struct peer *p, struct qp *q, struct roce_desc *d, const char *why)
{
	long n = roce_build_frame(d, p->scratch, sizeof p->scratch);
	if (n < 0) {
		struct peer_tx_info info = { q->cfg.qpn, roce_bth_psn(d->bth), (uint8_t)roce_bth_opcode(d->bth), 0, why, NULL };
		note(p, &info, "could not build the packet");
		return;
	}
	emit(p, q, p->scratch, (size_t)n, why);
}

static void send_aeth(struct peer *p, struct qp *q, uint32_t psn, uint8_t syndrome, const char *why)
{
	struct roce_desc d;
	roce_endpoint_desc(&q->cfg.ep, &d, (uint8_t)roce_opcode_find(q->cfg.type, ROCE_K_ACK, ROCE_POS_ONLY, 0, 0), psn);
	uint8_t *aeth = roce_desc_hdr(&d, ROCE_H_AETH);
	roce_aeth_set_syndrome(aeth, syndrome);
	roce_aeth_set_msn(aeth, q->msn);
	build_send(p, q, &d, why);
	if (roce_syndrome_type(syndrome) == ROCE_SYN_ACK)
		p->stats.acks_sent++;
	else if (roce_syndrome_type(syndrome) == ROCE_SYN_RNR_NAK)
		p->stats.rnr_naks_sent++;
	else
		p->stats.naks_sent++;
}

/* ---- Requester ---- */

static struct wqe *wqe_at(struct qp *q, unsigned i)
{
	return &q->sq[(q->sq_head + i) % PEER_SQ_DEPTH];
}

static uint32_t wqe_last_psn(const struct wqe *w)
{
	return roce_psn_add(w->first_psn, (int32_t)w->npkts - 1);
}

static bool psn_in(uint32_t psn, uint32_t first, uint32_t n)
{
	int32_t d = roce_psn_diff(psn, first);
	return d >= 0 && (uint32_t)d < n;
}

static void build_request(struct peer *p, struct qp *q, struct wqe *w, uint32_t i, const char *why)
{
	struct roce_desc d;
	const struct peer_wr *wr = &w->wr;
	uint32_t psn = roce_psn_add(w->first_psn, (int32_t)i);
	enum roce_transport t = q->cfg.type;
	int op;
	if (wr->op == PEER_OP_READ) {
		op = roce_opcode_find(t, ROCE_K_READ_REQ, ROCE_POS_ONLY, 0, 0);
	} else if (wr->op == PEER_OP_CMP_SWAP || wr->op == PEER_OP_FETCH_ADD) {
		op = roce_opcode_find(t, wr->op == PEER_OP_CMP_SWAP ? ROCE_K_CMP_SWAP : ROCE_K_FETCH_ADD,
				      ROCE_POS_ONLY, 0, 0);
	} else {
		enum roce_position pos = roce_position_of(i, w->npkts);
		bool last = pos == ROCE_POS_LAST || pos == ROCE_POS_ONLY;
		unsigned flags = 0;
		if (last && wr->has_imm)
			flags |= ROCE_OPF_IMM;
		if (last && wr->has_inv && wr->op == PEER_OP_SEND)
			flags |= ROCE_OPF_INV;
		op = roce_opcode_find(t, wr->op == PEER_OP_SEND ? ROCE_K_SEND : ROCE_K_WRITE, pos,
				      ROCE_OPF_IMM | ROCE_OPF_INV, flags);
	}
	if (op < 0)
		return;
	roce_endpoint_desc(&q->cfg.ep, &d, (uint8_t)op, psn);
	const struct roce_opcode_info *oi = roce_opcode((uint8_t)op);
	bool last = oi->position == ROCE_POS_LAST || oi->position == ROCE_POS_ONLY;
	if (t == ROCE_T_RC && last)
		roce_bth_set_ackreq(d.bth, 1);
	if (last && wr->solicited && (wr->op == PEER_OP_SEND || wr->has_imm))
		roce_bth_set_se(d.bth, 1);
	uint8_t *h;
	if ((h = roce_desc_hdr(&d, ROCE_H_DETH)) && (oi->xhdrs & ROCE_XHDR_BIT(ROCE_H_DETH))) {
		roce_deth_set_qkey(h, q->cfg.remote_qkey);
		roce_deth_set_srcqp(h, q->cfg.qpn);
	}
	if (oi->xhdrs & ROCE_XHDR_BIT(ROCE_H_RETH)) {
		h = roce_desc_hdr(&d, ROCE_H_RETH);
		uint64_t off = wr->op == PEER_OP_READ ? (uint64_t)i * q->cfg.pmtu : 0;
		roce_reth_set_va(h, wr->remote + off);
		roce_reth_set_rkey(h, wr->rkey);
		roce_reth_set_dmalen(h, wr->len - (uint32_t)off);
	}
	if (oi->xhdrs & ROCE_XHDR_BIT(ROCE_H_ATOMICETH)) {
		h = roce_desc_hdr(&d, ROCE_H_ATOMICETH);
		roce_atomiceth_set_va(h, wr->remote);
		roce_atomiceth_set_rkey(h, wr->rkey);
		roce_atomiceth_set_swapdt(h, wr->swap_add);
		roce_atomiceth_set_cmpdt(h, wr->compare);
	}
	if (oi->xhdrs & ROCE_XHDR_BIT(ROCE_H_IMMDT))
		roce_immdt_set_imm(roce_desc_hdr(&d, ROCE_H_IMMDT), wr->imm);
	if (oi->xhdrs & ROCE_XHDR_BIT(ROCE_H_IETH))
		roce_ieth_set_rkey(roce_desc_hdr(&d, ROCE_H_IETH), wr->inv_rkey);
	if (wr->op == PEER_OP_SEND || wr->op == PEER_OP_WRITE) {
		uint64_t off = (uint64_t)i * q->cfg.pmtu;
		d.payload = w->buf + off;
		d.payload_len = wr->len - off < q->cfg.pmtu ? wr->len - off : q->cfg.pmtu;
	}
	build_send(p, q, &d, why);
}

/* Go-back-N: (re)send every packet from psn on. */
static void transmit_from(struct peer *p, struct qp *q, uint32_t from, const char *why)
{
	for (unsigned k = 0; k < q->sq_n; k++) {
		struct wqe *w = wqe_at(q, k);
		if (w->wr.op == PEER_OP_READ) {
			/* One READ request covers the responses still missing. */
			uint32_t next = roce_psn_add(w->first_psn, (int32_t)w->resp_next);
			if (psn_in(from, w->first_psn, w->npkts) || roce_psn_diff(w->first_psn, from) >= 0) {
				uint32_t i = psn_in(from, w->first_psn, w->npkts) && roce_psn_diff(from, next) > 0
						     ? (uint32_t)roce_psn_diff(from, w->first_psn) : w->resp_next;
				build_request(p, q, w, i, why);
			}
			continue;
		}
		for (uint32_t i = 0; i < w->npkts; i++) {
			uint32_t psn = roce_psn_add(w->first_psn, (int32_t)i);
			if (roce_psn_diff(psn, from) >= 0)
				build_request(p, q, w, i, why);
		}
	}
	if (q->cfg.type == ROCE_T_RC && q->sq_n && q->cfg.ack_timeout_ns)
		q->deadline = p->now + q->cfg.ack_timeout_ns;
}

int peer_post(struct peer *p, uint32_t qpn, const struct peer_wr *wr, uint64_t now_ns, char *err, size_t errlen)
{
	struct qp *q = find_qp(p, qpn);
	p->now = now_ns;
	if (!q) {
		text_printf(err, errlen, "no tester QP 0x%06x", qpn);
		return -1;
	}
	if (q->error) {
		text_printf(err, errlen, "tester QP 0x%06x is in the error state", qpn);
		return -1;
	}
	if (q->sq_n == PEER_SQ_DEPTH) {
		text_printf(err, errlen, "tester QP 0x%06x has %u requests outstanding", qpn, PEER_SQ_DEPTH);
		return -1;
	}
	bool reliable = q->cfg.type == ROCE_T_RC;
	if (!reliable && wr->op != PEER_OP_SEND && !(q->cfg.type == ROCE_T_UC && wr->op == PEER_OP_WRITE)) {
		text_printf(err, errlen, "%s QPs cannot %s", roce_transport_name(q->cfg.type), peer_op_name(wr->op));
		return -1;
	}
	if (q->cfg.type == ROCE_T_UD && wr->len > q->cfg.pmtu) {
		text_printf(err, errlen, "a UD message of %u bytes exceeds the path MTU %u", wr->len, q->cfg.pmtu);
		return -1;
	}
	struct wqe *w = wqe_at(q, q->sq_n);
	memset(w, 0, sizeof *w);
	w->wr = *wr;
	w->first_psn = q->next_psn;
	if (wr->op == PEER_OP_CMP_SWAP || wr->op == PEER_OP_FETCH_ADD) {
		w->npkts = 1;
		w->wr.len = 8;
	} else {
		w->npkts = roce_packets_for(wr->len, q->cfg.pmtu);
	}
	w->buf = bufpool_get(&p->pool, wr->len);
	if ((wr->op == PEER_OP_SEND || wr->op == PEER_OP_WRITE) && wr->len)
		memcpy(w->buf, wr->data, wr->len);
	else
		memset(w->buf, 0, wr->len);
	w->wr.data = NULL;
	q->next_psn = roce_psn_add(q->next_psn, (int32_t)w->npkts);
	q->sq_n++;
	uint32_t first = w->first_psn;
	transmit_from(p, q, first, "request");
	if (!reliable) {
		/* Unreliable: complete as soon as it is on the wire. */
		struct peer_wc wc = { .wr_id = wr->wr_id, .status = AP_WC_SUCCESS, .op = wr->op, .byte_len = wr->len };
		complete(p, q, &wc);
		bufpool_put(&p->pool, w->buf);
		q->sq_head = (q->sq_head + 1) % PEER_SQ_DEPTH;
		q->sq_n--;
	}
	return 0;
}

static void pop_wqe(struct peer *p, struct qp *q, enum ap_wc_status st, uint64_t value)
{
	struct wqe *w = wqe_at(q, 0);
	struct peer_wc wc = { .wr_id = w->wr.wr_id, .status = st, .op = w->wr.op, .value = value };
	if (st == AP_WC_SUCCESS) {
		wc.byte_len = w->wr.len;
		if (w->wr.op == PEER_OP_READ) {
			wc.data = w->buf;
			w->buf = NULL;
		}
	}
	complete(p, q, &wc);
	bufpool_put(&p->pool, w->buf);
	q->sq_head = (q->sq_head + 1) % PEER_SQ_DEPTH;
	q->sq_n--;
}

static void fail_all(struct peer *p, struct qp *q, enum ap_wc_status first)
{
	if (q->sq_n)
		pop_wqe(p, q, first, 0);
	while (q->sq_n)
		pop_wqe(p, q, AP_WC_WR_FLUSH_ERR, 0);
	q->error = true;
	q->deadline = 0;
	q->rnr_until = 0;
}

static void progress(struct peer *p, struct qp *q)
{
	q->retries_left = q->cfg.retry_cnt;
	q->rnr_left = q->cfg.rnr_retry;
	q->deadline = q->sq_n && q->cfg.ack_timeout_ns ? p->now + q->cfg.ack_timeout_ns : 0;
}

/* An acknowledgement up to and including psn. Returns false when it
 * implies that responses to a READ or atomic were lost (and retransmits). */
static bool ack_upto(struct peer *p, struct qp *q, uint32_t psn)
{
	bool any = false;
	while (q->sq_n) {
		struct wqe *w = wqe_at(q, 0);
		bool resp_op = w->wr.op == PEER_OP_READ || w->wr.op == PEER_OP_CMP_SWAP || w->wr.op == PEER_OP_FETCH_ADD;
		if (roce_psn_diff(psn, wqe_last_psn(w)) < 0)
			break;
		if (resp_op) {
			/* Implied NAK: a later PSN is acknowledged while this
			 * one's responses never came. */
			finding(p, q, ROCE_RULE_IBA_IMPLIED_NAK, psn, false,
				"ACK for PSN %u while the responses of %s at PSN %u are missing: retrying it",
				psn, peer_op_name(w->wr.op), w->first_psn);
			if (any)
				progress(p, q);
			transmit_from(p, q, roce_psn_add(w->first_psn, (int32_t)w->resp_next), "retransmission (implied NAK)");
			p->stats.retransmissions++;
			return false;
		}
		pop_wqe(p, q, AP_WC_SUCCESS, 0);
		any = true;
	}
	if (any)
		progress(p, q);
	return true;
}

static void retry_or_fail(struct peer *p, struct qp *q, uint32_t from, const char *why)
{
	if (q->retries_left == 0) {
		fail_all(p, q, AP_WC_RETRY_EXC_ERR);
		return;
	}
	q->retries_left--;
	p->stats.retransmissions++;
	transmit_from(p, q, from, why);
}

static bool outstanding_window(struct qp *q, uint32_t psn)
{
	if (!q->sq_n)
		return false;
	uint32_t una = wqe_at(q, 0)->first_psn;
	/* From one before the oldest unacknowledged PSN (a re-ACK of what
	 * was already acknowledged) to the last PSN sent. */
	return roce_psn_diff(psn, roce_psn_add(una, -1)) >= 0 && roce_psn_diff(psn, roce_psn_add(q->next_psn, -1)) <= 0;
}

static void handle_response(struct peer *p, struct qp *q, const struct roce_pkt *pk)
{
	const uint8_t *bth = roce_pkt_hdr(pk, ROCE_H_BTH);
	uint32_t psn = roce_bth_psn(bth);
	const struct roce_opcode_info *oi = pk->op;
	const uint8_t *aeth = roce_pkt_hdr(pk, ROCE_H_AETH);
	if (!q->sq_n)
		return; /* the answer to a scripted injection: not the engine's business */
	if (!outstanding_window(q, psn)) {
		finding(p, q, ROCE_RULE_IBA_GHOST, psn, false,
			"%s for PSN %u outside the outstanding window: ignored", oi->name, psn);
		return;
	}
	/* Find the request this answers, completing what it implies. */
	if (oi->kind == ROCE_K_ACK) {
		uint8_t syn = roce_aeth_syndrome(aeth);
		switch (roce_syndrome_type(syn)) {
		case ROCE_SYN_ACK:
			ack_upto(p, q, psn);
			return;
		case ROCE_SYN_RNR_NAK:
			if (!ack_upto(p, q, roce_psn_add(psn, -1)))
				return;
			if (q->cfg.rnr_retry != 7) {
				if (q->rnr_left == 0) {
					fail_all(p, q, AP_WC_RNR_RETRY_EXC_ERR);
					return;
				}
				q->rnr_left--;
			}
			q->rnr_until = p->now + (uint64_t)roce_rnr_timer_usec(roce_syndrome_value(syn)) * 1000u;
			q->rnr_psn = psn;
			q->deadline = 0;
			return;
		case ROCE_SYN_NAK: {
			if (!ack_upto(p, q, roce_psn_add(psn, -1)))
				return;
			unsigned code = roce_syndrome_value(syn);
			if (code == ROCE_NAK_PSN_SEQ_ERR) {
				retry_or_fail(p, q, psn, "retransmission (NAK PSN sequence error)");
				return;
			}
			enum ap_wc_status st = code == ROCE_NAK_INVALID_REQUEST ? AP_WC_REM_INV_REQ_ERR
					       : code == ROCE_NAK_REMOTE_ACCESS ? AP_WC_REM_ACCESS_ERR
					       : code == ROCE_NAK_REMOTE_OP ? AP_WC_REM_OP_ERR
					       : code == ROCE_NAK_INVALID_RD_REQUEST ? AP_WC_REM_INV_RD_REQ_ERR
					       : AP_WC_BAD_RESP_ERR;
			fail_all(p, q, st);
			return;
		}
		default:
			fail_all(p, q, AP_WC_BAD_RESP_ERR);
			return;
		}
	}
	/* READ responses and atomic ACKs belong to the oldest request
	 * that expects them; everything before it is implicitly ACKed. */
	while (q->sq_n && !psn_in(psn, wqe_at(q, 0)->first_psn, wqe_at(q, 0)->npkts)) {
		struct wqe *w = wqe_at(q, 0);
		if (w->wr.op == PEER_OP_SEND || w->wr.op == PEER_OP_WRITE) {
			pop_wqe(p, q, AP_WC_SUCCESS, 0);
			continue;
		}
		ack_upto(p, q, psn); /* implied NAK on the earlier READ/atomic */
		return;
	}
	if (!q->sq_n)
		return;
	struct wqe *w = wqe_at(q, 0);
	if (oi->kind == ROCE_K_ATOMIC_ACK) {
		if (w->wr.op != PEER_OP_CMP_SWAP && w->wr.op != PEER_OP_FETCH_ADD) {
			finding(p, q, ROCE_RULE_IBA_RESP_CHECK, psn, true, "Atomic ACK for PSN %u, which is a %s",
				psn, peer_op_name(w->wr.op));
			fail_all(p, q, AP_WC_BAD_RESP_ERR);
			return;
		}
		uint64_t orig = roce_atomicacketh_orig(roce_pkt_hdr(pk, ROCE_H_ATOMICACKETH));
		pop_wqe(p, q, AP_WC_SUCCESS, orig);
		progress(p, q);
		return;
	}
	if (oi->kind != ROCE_K_READ_RESP || w->wr.op != PEER_OP_READ) {
		finding(p, q, ROCE_RULE_IBA_RESP_CHECK, psn, true, "%s for PSN %u, which belongs to a %s",
			oi->name, psn, peer_op_name(w->wr.op));
		fail_all(p, q, AP_WC_BAD_RESP_ERR);
		return;
	}
	uint32_t expected = roce_psn_add(w->first_psn, (int32_t)w->resp_next);
	int32_t d = roce_psn_diff(psn, expected);
	if (d < 0)
		return; /* a duplicate response */
	if (d > 0) {
		finding(p, q, ROCE_RULE_IBA_IMPLIED_NAK, psn, false,
			"READ response PSN %u arrived while %u was expected: retrying from %u", psn, expected, expected);
		retry_or_fail(p, q, expected, "retransmission (READ responses missing)");
		return;
	}
	/* Its opcode and length for its place in the READ are judged by
	 * libroce's flow analysis over the case's packets (flowcheck.h), as
	 * the plugin and lint judge them; the engine takes the data. */
	uint32_t off = w->resp_next * q->cfg.pmtu;
	uint32_t want_len = w->wr.len - off < q->cfg.pmtu ? w->wr.len - off : q->cfg.pmtu;
	uint32_t n = pk->payload_len < want_len ? pk->payload_len : want_len;
	memcpy(w->buf + off, pk->buf + pk->payload_off, n);
	w->resp_next++;
	q->deadline = p->now + q->cfg.ack_timeout_ns;
	q->retries_left = q->cfg.retry_cnt;
	if (w->resp_next >= w->npkts) {
		pop_wqe(p, q, AP_WC_SUCCESS, 0);
		progress(p, q);
	}
}

/* ---- Responder ---- */

static void save_resp(struct qp *q, enum roce_op_kind kind, uint32_t psn, uint32_t npkts, uint64_t va,
		      uint32_t rkey, uint32_t len, uint64_t orig)
{
	struct saved_resp *s = &q->saved[q->saved_next++ % PEER_SAVED_RESP];
	*s = (struct saved_resp){ true, kind, psn, npkts, va, rkey, len, orig, q->msn };
}

static void send_read_responses(struct peer *p, struct qp *q, uint32_t psn, uint64_t va, uint32_t len,
				const struct peer_mr *m, uint32_t msn, const char *why)
{
	uint32_t n = roce_packets_for(len, q->cfg.pmtu);
	for (uint32_t i = 0; i < n; i++) {
		enum roce_position pos = roce_position_of(i, n);
		struct roce_desc d;
		roce_endpoint_desc(&q->cfg.ep, &d, (uint8_t)roce_opcode_find(q->cfg.type, ROCE_K_READ_RESP, pos, 0, 0),
				   roce_psn_add(psn, (int32_t)i));
		uint8_t *aeth = roce_desc_hdr(&d, ROCE_H_AETH);
		roce_aeth_set_syndrome(aeth, ROCE_AETH_ACK_UNLIMITED);
		roce_aeth_set_msn(aeth, msn);
		uint32_t off = i * q->cfg.pmtu;
		d.payload_len = len - off < q->cfg.pmtu ? len - off : q->cfg.pmtu;
		d.payload = m ? m->buf + (va - m->addr) + off : NULL;
		if (!m)
			d.payload_len = 0;
		build_send(p, q, &d, why);
	}
}

static void send_atomic_ack(struct peer *p, struct qp *q, uint32_t psn, uint64_t orig, uint32_t msn, const char *why)
{
	struct roce_desc d;
	roce_endpoint_desc(&q->cfg.ep, &d, (uint8_t)roce_opcode_find(q->cfg.type, ROCE_K_ATOMIC_ACK, ROCE_POS_ONLY, 0, 0), psn);
	roce_aeth_set_syndrome(roce_desc_hdr(&d, ROCE_H_AETH), ROCE_AETH_ACK_UNLIMITED);
	roce_aeth_set_msn(roce_desc_hdr(&d, ROCE_H_AETH), msn);
	roce_atomicacketh_set_orig(roce_desc_hdr(&d, ROCE_H_ATOMICACKETH), orig);
	build_send(p, q, &d, why);
}

static void nak(struct peer *p, struct qp *q, uint32_t psn, unsigned code, const char *why, bool fatal)
{
	send_aeth(p, q, psn, roce_syndrome_nak((enum roce_nak_code)code), why);
	if (fatal) {
		q->error = true;
		q->in_msg = false;
	}
}

static bool take_recv(struct qp *q)
{
	if (q->rnr_on || q->recv_avail == 0)
		return false;
	if (q->recv_avail > 0)
		q->recv_avail--;
	return true;
}

static void msg_append(struct qp *q, const uint8_t *data, size_t n)
{
	if (!n)
		return; /* a zero-length message: there may be no buffer yet */
	if (q->rlen + n > q->rcap) {
		size_t cap = q->rcap ? q->rcap : 4096;
		while (cap < q->rlen + n)
			cap *= 2;
		uint8_t *b = realloc(q->rbuf, cap);
		if (!b)
			abort();
		q->rbuf = b;
		q->rcap = cap;
	}
	memcpy(q->rbuf + q->rlen, data, n);
	q->rlen += n;
}

static void deliver_recv(struct peer *p, struct qp *q, const struct roce_pkt *pk, enum peer_op op)
{
	struct peer_wc wc = { .status = AP_WC_SUCCESS, .op = op, .byte_len = (uint32_t)q->rlen };
	const uint8_t *imm = roce_pkt_hdr(pk, ROCE_H_IMMDT);
	if (imm) {
		wc.has_imm = true;
		wc.imm = roce_immdt_imm(imm);
	}
	const uint8_t *deth = roce_pkt_hdr(pk, ROCE_H_DETH);
	if (deth)
		wc.src_qp = roce_deth_srcqp(deth);
	if (op == PEER_OP_RECV) {
		wc.data = bufpool_get(&p->pool, q->rlen);
		if (q->rlen)
			memcpy(wc.data, q->rbuf, q->rlen);
	}
	complete(p, q, &wc);
	q->rlen = 0;
}

static void handle_ud(struct peer *p, struct qp *q, const struct roce_pkt *pk)
{
	const uint8_t *deth = roce_pkt_hdr(pk, ROCE_H_DETH);
	if (!deth || pk->op->kind != ROCE_K_SEND)
		return;
	if (roce_deth_qkey(deth) != q->cfg.qkey) {
		finding(p, q, ROCE_RULE_IBA_QKEY, roce_bth_psn(roce_pkt_hdr(pk, ROCE_H_BTH)), true,
			"UD packet with Q_Key 0x%08x; the tester QP's Q_Key is 0x%08x: dropped",
			roce_deth_qkey(deth), q->cfg.qkey);
		return;
	}
	if (!take_recv(q))
		return; /* UD has no RNR: the message is lost */
	q->rlen = 0;
	msg_append(q, pk->buf + pk->payload_off, pk->payload_len);
	deliver_recv(p, q, pk, PEER_OP_RECV);
}

/* Processes one in-sequence SEND or WRITE packet. Returns false when it
 * was refused (RNR, access, sequence) and must not advance the PSN. */
static bool exec_send_write(struct peer *p, struct qp *q, const struct roce_pkt *pk, uint32_t psn, bool reliable)
{
	const struct roce_opcode_info *oi = pk->op;
	bool first = oi->position == ROCE_POS_FIRST || oi->position == ROCE_POS_ONLY;
	bool last = oi->position == ROCE_POS_LAST || oi->position == ROCE_POS_ONLY;
	if (first == q->in_msg || (q->in_msg && q->msg_kind != oi->kind)) {
		if (!reliable) {
			q->in_msg = false;
			q->uc_dropping = !first;
			if (!first)
				return false;
		} else {
			nak(p, q, psn, ROCE_NAK_INVALID_REQUEST, "NAK Invalid Request (opcode sequence)", true);
			return false;
		}
	}
	const uint8_t *payload = pk->buf + pk->payload_off;
	if (oi->kind == ROCE_K_SEND) {
		if (first) {
			if (!take_recv(q)) {
				if (reliable)
					send_aeth(p, q, psn, roce_syndrome_rnr(q->cfg.rnr_timer), "RNR NAK");
				return false;
			}
			q->rlen = 0;
			q->in_msg = true;
			q->msg_kind = ROCE_K_SEND;
			q->msg_first_psn = psn;
		}
		msg_append(q, payload, pk->payload_len);
		if (last) {
			q->in_msg = false;
			deliver_recv(p, q, pk, PEER_OP_RECV);
		}
		return true;
	}
	/* RDMA WRITE. */
	if (first) {
		const uint8_t *reth = roce_pkt_hdr(pk, ROCE_H_RETH);
		uint64_t va = roce_reth_va(reth);
		uint32_t len = roce_reth_dmalen(reth);
		struct peer_mr *m = len ? mr_check(p, roce_reth_rkey(reth), va, len, PEER_ACC_WRITE) : NULL;
		if (len && !m) {
			if (reliable)
				nak(p, q, psn, ROCE_NAK_REMOTE_ACCESS, "NAK Remote Access Error", true);
			else
				q->uc_dropping = true;
			return false;
		}
		q->wmr = m;
		q->wva = va;
		q->wlen = len;
		q->wdone = 0;
		q->in_msg = true;
		q->msg_kind = ROCE_K_WRITE;
	}
	if ((uint64_t)q->wdone + pk->payload_len > q->wlen) {
		if (reliable)
			nak(p, q, psn, ROCE_NAK_INVALID_REQUEST, "NAK Invalid Request (WRITE longer than its DMA length)", true);
		q->in_msg = false;
		return false;
	}
	if (pk->payload_len && q->wmr)
		memcpy(q->wmr->buf + (q->wva - q->wmr->addr) + q->wdone, payload, pk->payload_len);
	q->wdone += pk->payload_len;
	if (last) {
		q->in_msg = false;
		if (q->wdone != q->wlen && reliable) {
			nak(p, q, psn, ROCE_NAK_INVALID_REQUEST, "NAK Invalid Request (WRITE shorter than its DMA length)", true);
			return false;
		}
		if (roce_pkt_has(pk, ROCE_H_IMMDT)) {
			if (!take_recv(q)) {
				if (reliable)
					send_aeth(p, q, psn, roce_syndrome_rnr(q->cfg.rnr_timer), "RNR NAK");
				return false;
			}
			q->rlen = 0;
			struct peer_wc wc = { .status = AP_WC_SUCCESS, .op = PEER_OP_RECV_WRITE_IMM, .byte_len = q->wdone,
					      .has_imm = true, .imm = roce_immdt_imm(roce_pkt_hdr(pk, ROCE_H_IMMDT)) };
			complete(p, q, &wc);
		}
	}
	return true;
}

static void handle_uc(struct peer *p, struct qp *q, const struct roce_pkt *pk)
{
	uint32_t psn = roce_bth_psn(roce_pkt_hdr(pk, ROCE_H_BTH));
	const struct roce_opcode_info *oi = pk->op;
	bool first = oi->position == ROCE_POS_FIRST || oi->position == ROCE_POS_ONLY;
	if (psn != q->epsn) {
		/* A gap: drop the partial message; resume at the next First/Only. */
		q->in_msg = false;
		q->uc_dropping = true;
	}
	q->epsn = roce_psn_add(psn, 1);
	if (q->uc_dropping && !first)
		return;
	q->uc_dropping = false;
	if (!exec_send_write(p, q, pk, psn, false))
		q->in_msg = false;
}

static void handle_rc_request(struct peer *p, struct qp *q, const struct roce_pkt *pk)
{
	const uint8_t *bth = roce_pkt_hdr(pk, ROCE_H_BTH);
	uint32_t psn = roce_bth_psn(bth);
	const struct roce_opcode_info *oi = pk->op;
	bool last = oi->position == ROCE_POS_LAST || oi->position == ROCE_POS_ONLY;
	if (last && !roce_bth_ackreq(bth) && (oi->kind == ROCE_K_SEND || oi->kind == ROCE_K_WRITE))
		finding(p, q, ROCE_RULE_IBA_REQ_ACKREQ, psn, true,
			"%s at PSN %u ends a message without AckReq", oi->name, psn);
	switch (roce_psn_classify(psn, q->epsn)) {
	case ROCE_PSN_AHEAD:
		if (!q->nak_seq_sent) {
			q->nak_seq_sent = true;
			nak(p, q, q->epsn, ROCE_NAK_PSN_SEQ_ERR, "NAK PSN Sequence Error", false);
		}
		return;
	case ROCE_PSN_DUPLICATE:
		for (unsigned i = 0; i < PEER_SAVED_RESP; i++) {
			struct saved_resp *s = &q->saved[i];
			if (!s->used || !psn_in(psn, s->psn, s->npkts) || s->kind != oi->kind)
				continue;
			if (s->kind == ROCE_K_READ_REQ) {
				const uint8_t *reth = roce_pkt_hdr(pk, ROCE_H_RETH);
				uint32_t skip = (uint32_t)roce_psn_diff(psn, s->psn) * q->cfg.pmtu;
				uint64_t va = roce_reth_va(reth);
				uint32_t len = roce_reth_dmalen(reth);
				struct peer_mr *m = len ? mr_check(p, s->rkey, va, len, PEER_ACC_READ) : NULL;
				if (va != s->va + skip || len != s->len - skip) {
					finding(p, q, ROCE_RULE_IBA_DUP_READ, psn, false,
						"duplicate READ at PSN %u asks for VA 0x%llx length %u; the original covered VA 0x%llx length %u from PSN %u",
						psn, (unsigned long long)va, len, (unsigned long long)s->va, s->len, s->psn);
				}
				send_read_responses(p, q, psn, va, len, m, s->msn, "READ response (replay)");
			} else {
				send_atomic_ack(p, q, psn, s->orig, s->msn, "Atomic ACK (replay)");
			}
			return;
		}
		if (oi->kind == ROCE_K_SEND || oi->kind == ROCE_K_WRITE)
			send_aeth(p, q, roce_psn_add(q->epsn, -1), ROCE_AETH_ACK_UNLIMITED, "ACK (duplicate)");
		return;
	case ROCE_PSN_EXPECTED:
		break;
	}
	q->nak_seq_sent = false;
	q->last_rx_psn = psn;
	if (oi->kind == ROCE_K_SEND || oi->kind == ROCE_K_WRITE) {
		if (!exec_send_write(p, q, pk, psn, true))
			return;
		q->epsn = roce_psn_add(psn, 1);
		if (last)
			q->msn = (q->msn + 1) & ROCE_PSN_MASK;
		if (roce_bth_ackreq(bth) && q->ack_on)
			send_aeth(p, q, psn, ROCE_AETH_ACK_UNLIMITED, "ACK");
		return;
	}
	if (q->in_msg) {
		nak(p, q, psn, ROCE_NAK_INVALID_REQUEST, "NAK Invalid Request (opcode sequence)", true);
		return;
	}
	if (oi->kind == ROCE_K_READ_REQ) {
		const uint8_t *reth = roce_pkt_hdr(pk, ROCE_H_RETH);
		uint64_t va = roce_reth_va(reth);
		uint32_t len = roce_reth_dmalen(reth), rkey = roce_reth_rkey(reth);
		struct peer_mr *m = len ? mr_check(p, rkey, va, len, PEER_ACC_READ) : NULL;
		if (len && !m) {
			nak(p, q, psn, ROCE_NAK_REMOTE_ACCESS, "NAK Remote Access Error", true);
			return;
		}
		uint32_t n = roce_packets_for(len, q->cfg.pmtu);
		q->msn = (q->msn + 1) & ROCE_PSN_MASK;
		save_resp(q, ROCE_K_READ_REQ, psn, n, va, rkey, len, 0);
		q->epsn = roce_psn_add(psn, (int32_t)n);
		send_read_responses(p, q, psn, va, len, m, q->msn, "READ response");
		return;
	}
	if (oi->kind == ROCE_K_CMP_SWAP || oi->kind == ROCE_K_FETCH_ADD) {
		const uint8_t *a = roce_pkt_hdr(pk, ROCE_H_ATOMICETH);
		uint64_t va = roce_atomiceth_va(a);
		if (va & 7) {
			nak(p, q, psn, ROCE_NAK_INVALID_REQUEST, "NAK Invalid Request (atomic VA not 8-byte aligned)", true);
			return;
		}
		struct peer_mr *m = mr_check(p, roce_atomiceth_rkey(a), va, 8, PEER_ACC_ATOMIC);
		if (!m) {
			nak(p, q, psn, ROCE_NAK_REMOTE_ACCESS, "NAK Remote Access Error", true);
			return;
		}
		/* Tester memory holds 64-bit values little-endian, as an x86
		 * host's would. */
		uint8_t *cell = m->buf + (va - m->addr);
		uint64_t orig = 0;
		for (int i = 7; i >= 0; i--)
			orig = orig << 8 | cell[i];
		uint64_t v = orig;
		if (oi->kind == ROCE_K_FETCH_ADD)
			v = orig + roce_atomiceth_swapdt(a);
		else if (orig == roce_atomiceth_cmpdt(a))
			v = roce_atomiceth_swapdt(a);
		for (int i = 0; i < 8; i++)
			cell[i] = (uint8_t)(v >> (8 * i));
		q->msn = (q->msn + 1) & ROCE_PSN_MASK;
		save_resp(q, oi->kind, psn, 1, va, roce_atomiceth_rkey(a), 8, orig);
		q->epsn = roce_psn_add(psn, 1);
		send_atomic_ack(p, q, psn, orig, q->msn, "Atomic ACK");
		return;
	}
	/* Anything else a requester may not send. */
	nak(p, q, psn, ROCE_NAK_INVALID_REQUEST, "NAK Invalid Request (unsupported opcode)", true);
}

/* ---- Receiving ---- */

static void observe(struct peer *p, struct qp *q, const struct roce_pkt *pk, uint64_t ts)
{
	const uint8_t *bth = roce_pkt_hdr(pk, ROCE_H_BTH);
	uint32_t psn = roce_bth_psn(bth);
	unsigned slot = psn % SLOTS;
	if (pk->op->flags & ROCE_OPF_RESPONSE) {
		if (q->tx_seen[slot] && q->tx_psn[slot] == psn && ts >= q->tx_time[slot])
			timing(p, q, psn, pk->opcode, ts, ts - q->tx_time[slot], "response");
	} else if (pk->op->flags & ROCE_OPF_REQUEST) {
		if (q->rx_seen[slot] && q->rx_psn[slot] == psn && ts >= q->rx_time[slot])
			timing(p, q, psn, pk->opcode, ts, ts - q->rx_time[slot], "retransmission");
		q->rx_seen[slot] = true;
		q->rx_psn[slot] = psn;
		q->rx_time[slot] = ts;
	} else {
		timing(p, q, psn, pk->opcode, ts, 0, "other");
	}
	if (q->cfg.type != ROCE_T_UD && !pk->rocev1) { /* RoCE v1 has no UDP header */
		uint16_t sport = (uint16_t)roce_udp_sport(roce_pkt_hdr(pk, ROCE_H_UDP));
		if (q->sport_known && sport != q->sport && pk->opcode != ROCE_OP_CNP)
			finding(p, q, ROCE_RULE_A17_SPORT, psn, false,
				"UDP source port changed from %u to %u within the connection", q->sport, sport);
		if (pk->opcode != ROCE_OP_CNP) {
			q->sport_known = true;
			q->sport = sport;
		}
	}
}

static void process_rx(struct peer *p, const uint8_t *frame, size_t len, uint64_t ts, bool from_hold)
{
	struct roce_pkt pk;
	if (roce_parse_frame(&pk, frame, len, len, ROCE_PARSE_ROCEV1) != ROCE_OK || !pk.complete)
		return;
	const uint8_t *bth = roce_pkt_hdr(&pk, ROCE_H_BTH);
	struct qp *q = find_qp(p, roce_bth_destqp(bth));
	if (!q)
		return;
	/* Like any conforming receiver, the engine drops what fails the ICRC. */
	if (roce_icrc_check(&pk, NULL, NULL) != ROCE_ICRC_GOOD)
		return;
	if (!from_hold)
		observe(p, q, &pk, ts);
	if (!q->auto_on || pk.opcode == ROCE_OP_CNP)
		return;
	if (pk.op->transport != q->cfg.type)
		return; /* a conforming receiver drops a transport mismatch */
	if (pk.op->flags & ROCE_OPF_RESPONSE) {
		if (!q->error)
			handle_response(p, q, &pk);
		return;
	}
	if (q->error)
		return;
	if (q->cfg.type == ROCE_T_UD)
		handle_ud(p, q, &pk);
	else if (q->cfg.type == ROCE_T_UC)
		handle_uc(p, q, &pk);
	else
		handle_rc_request(p, q, &pk);
}

uint32_t peer_rx(struct peer *p, const uint8_t *frame, size_t len, uint64_t ts_ns)
{
	if (ts_ns > p->now)
		p->now = ts_ns;
	struct roce_pkt pk;
	if (roce_parse_frame(&pk, frame, len, len, ROCE_PARSE_ROCEV1) != ROCE_OK || !pk.complete)
		return 0;
	const uint8_t *bth = roce_pkt_hdr(&pk, ROCE_H_BTH);
	uint32_t qpn = roce_bth_destqp(bth);
	if (!find_qp(p, qpn))
		return 0;
	p->stats.rx++;
	struct inj_pkt ip = { true, qpn, pk.opcode, roce_bth_psn(bth), 0 };
	ip.round = inj_round_next(&p->rx_rounds, qpn, ip.psn, ip.opcode);
	struct inj_rule *r = inj_match(&p->rules, &ip);
	if (!r) {
		process_rx(p, frame, len, ts_ns, false);
		reorder_tick(p, true);
		return qpn;
	}
	struct peer_tx_info info = { qpn, ip.psn, ip.opcode, ip.round, "DUT packet", r->text };
	char err[128];
	switch (r->action) {
	case INJ_DROP:
		p->stats.dropped_by_rule++;
		note(p, &info, "ignored by rule (as if lost)");
		break;
	case INJ_DUPLICATE:
		process_rx(p, frame, len, ts_ns, false);
		process_rx(p, frame, len, ts_ns, true);
		reorder_tick(p, true);
		note(p, &info, "processed twice by rule");
		break;
	case INJ_DELAY: {
		struct held *h = hold(p, true, qpn, frame, len, &info);
		if (h)
			h->release_ns = ts_ns + (r->delay_ns ? r->delay_ns : 1);
		note(p, &info, "processing delayed by rule");
		break;
	}
	case INJ_REORDER: {
		struct held *h = hold(p, true, qpn, frame, len, &info);
		if (h && (h->remaining = r->reorder_n))
			p->n_reorder_held[1]++;
		note(p, &info, "processing held back by rule");
		break;
	}
	default: {
		uint8_t copy[PEER_FRAME_MAX];
		memcpy(copy, frame, len);
		long n = inj_modify(r, copy, len, sizeof copy, err, sizeof err);
		if (n < 0)
			note(p, &info, err);
		else
			note(p, &info, "modified by rule before processing");
		process_rx(p, copy, n < 0 ? len : (size_t)n, ts_ns, false);
		reorder_tick(p, true);
		break;
	}
	}
	return qpn;
}

/* ---- Time ---- */

void peer_advance(struct peer *p, uint64_t now_ns)
{
	if (now_ns > p->now)
		p->now = now_ns;
	for (unsigned i = 0; i < PEER_HELD_MAX; i++) {
		struct held *h = &p->held[i];
		if (h->used && h->release_ns && h->release_ns <= p->now)
			release_held(p, h);
	}
	for (unsigned i = 0; i < PEER_MAX_QPS; i++) {
		struct qp *q = &p->qps[i];
		if (!q->used || !q->auto_on || q->error)
			continue;
		if (q->rnr_until && q->rnr_until <= p->now) {
			q->rnr_until = 0;
			p->stats.retransmissions++;
			transmit_from(p, q, q->rnr_psn, "retransmission (after RNR wait)");
		}
		if (q->deadline && q->deadline <= p->now && q->sq_n) {
			struct wqe *w = wqe_at(q, 0);
			retry_or_fail(p, q, roce_psn_add(w->first_psn, (int32_t)w->resp_next), "retransmission (ACK timeout)");
		}
	}
}

uint64_t peer_next_deadline(struct peer *p)
{
	uint64_t t = UINT64_MAX;
	for (unsigned i = 0; i < PEER_HELD_MAX; i++)
		if (p->held[i].used && p->held[i].release_ns && p->held[i].release_ns < t)
			t = p->held[i].release_ns;
	for (unsigned i = 0; i < PEER_MAX_QPS; i++) {
		struct qp *q = &p->qps[i];
		if (!q->used || !q->auto_on || q->error)
			continue;
		if (q->rnr_until && q->rnr_until < t)
			t = q->rnr_until;
		if (q->deadline && q->sq_n && q->deadline < t)
			t = q->deadline;
	}
	return t;
}
