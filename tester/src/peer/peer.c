/* The stateful peer engine (see peer.h): set-up, tables, completions,
 * records and timers. */
#include "peer_engine.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

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

void peer_finding(struct peer *p, struct qp *q, enum roce_rule rule, uint32_t psn, bool error,
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
	memset(p->srqs, 0, sizeof p->srqs);
	memset(p->attach, 0, sizeof p->attach);
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

int peer_qp_add(struct peer *p, const struct peer_qp_cfg *cfg)
{
	if (peer_find_qp(p, cfg->qpn) || !cfg->pmtu)
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
bool peer_qp_exists(struct peer *p, uint32_t qpn) { return peer_find_qp(p, qpn) != NULL; }
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

struct peer_mr *peer_mr_check(struct peer *p, uint32_t rkey, uint64_t va, uint64_t len, unsigned access)
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

/* ---- Time ---- */

void peer_advance(struct peer *p, uint64_t now_ns)
{
	if (now_ns > p->now)
		p->now = now_ns;
	for (unsigned i = 0; i < PEER_HELD_MAX; i++) {
		struct held *h = &p->held[i];
		if (h->used && h->release_ns && h->release_ns <= p->now)
			peer_release_held(p, h);
	}
	for (unsigned i = 0; i < PEER_MAX_QPS; i++) {
		struct qp *q = &p->qps[i];
		if (!q->used || !q->auto_on || q->error)
			continue;
		if (q->rnr_until && q->rnr_until <= p->now) {
			q->rnr_until = 0;
			p->stats.retransmissions++;
			peer_transmit_from(p, q, q->rnr_psn, "retransmission (after RNR wait)");
		}
		if (q->deadline && q->deadline <= p->now && q->sq_n) {
			struct wqe *w = peer_wqe_at(q, 0);
			peer_retry_or_fail(p, q, roce_psn_add(w->first_psn, (int32_t)w->resp_next), "retransmission (ACK timeout)");
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
