/*
 * What a conforming DUT may do with each packet the fuzzer sends, and the
 * judgement of what it does: every DUT packet against libroce's stateless
 * checks and its flow analysis (the catalogue's checks judge every
 * response), answers a rule forbids (wrong acceptance), READ responses and
 * Atomic ACKs carrying bytes that are not the region's (leak), and the
 * model of the DUT's responder that the expectations rest on: its
 * expected PSN, whether that is certain, whether the QP is in Error.
 *
 * An expectation is only as strong as what is certain: a packet that
 * breaks an IP, UDP or ICRC rule must be dropped whatever state the QP is
 * in; an access the R_Key, the bounds or the rights refuse must never be
 * answered positively, when the packet carries the expected PSN and that
 * PSN is certain; everything else is judged only by the checks.
 */
#include "fz.h"

#include <string.h>

#include "text.h"

/* ---- Observations ---- */

struct fz_obs *fz_observe(struct fz *z, enum fz_kind k, enum roce_rule rule, int qp, uint32_t serial, const char *sig_fmt,
			  ...)
{
	z->st.by_kind[k]++;
	if (z->n_obs == FZ_MAX_OBS)
		return NULL;
	struct fz_obs *o = &z->obs[z->n_obs++];
	memset(o, 0, sizeof *o);
	o->kind = k;
	o->rule = rule;
	o->qp = qp;
	o->serial = serial;
	o->region = -1;
	char sig[80]; /* the caller's few words */
	va_list ap;
	va_start(ap, sig_fmt);
	text_vprintf(sig, sizeof sig, sig_fmt, ap);
	va_end(ap);
	const struct roce_rule_info *ri = roce_rule(rule);
	text_printf(o->sig, sizeof o->sig, "%s/%s/%s", fz_kind_name(k), ri ? ri->id : "-", sig);
	o->text = g_string_new(NULL);
	o->detail = g_string_new(NULL);
	return o;
}

const char *fz_kind_name(enum fz_kind k)
{
	static const char *const names[] = { "leak", "acceptance", "hang", "corruption" };
	return (unsigned)k < FZ_KIND_COUNT ? names[k] : "?";
}

const char *fz_qkind_name(enum fz_qkind k)
{
	static const char *const names[] = { "RC", "UC", "UD", "XRC" };
	return names[k];
}


/* ---- The flow analysis (roce/flow.h) over the batch's packets ---- */

struct fz_flow {
	struct roce_flow_table *table;
	struct roce_flow_env env;
	uint32_t frame;
};

static void *flow_record(void *table, const void *key, size_t klen, size_t size)
{
	return roce_flow_table_record(table, key, klen, size);
}

void fz_flow_free(struct fz *z)
{
	if (!z->flow)
		return;
	roce_flow_table_free(z->flow->table);
	g_free(z->flow);
	z->flow = NULL;
}

/* A fresh analysis for each batch: QPs are reset between batches, and a
 * reset QP is another connection. */
void fz_flow_reset(struct fz *z)
{
	fz_flow_free(z);
	struct fz_flow *f = g_new0(struct fz_flow, 1);
	f->table = roce_flow_table_new();
	f->env = (struct roce_flow_env){ .ctx = f->table, .record = flow_record };
	z->flow = f;
}

/* Feeds one frame; the DUT's findings of error severity come back. */
static unsigned flow_feed(struct fz *z, const struct roce_pkt *p, uint64_t ts, unsigned pmtu, struct roce_finding *out,
			  unsigned max)
{
	if (!z->flow)
		return 0;
	struct roce_flow_input in = { .frame = ++z->flow->frame, .ts_ns = ts, .pmtu = pmtu };
	if (!roce_flow_input_from(&in, p))
		return 0;
	struct roce_flow_result r;
	roce_flow_packet(&z->flow->env, &in, &r);
	unsigned n = 0;
	for (unsigned i = 0; i < r.n_findings && n < max; i++)
		out[n++] = r.findings[i];
	return n;
}

/* ---- Expectations ---- */

/* The rules of A17.3 whose breach makes a received packet a silent drop
 * (CA17-24): IP, UDP and the ICRC. */
static bool a17_3_rule(enum roce_rule r)
{
	switch (r) {
	case ROCE_RULE_CA17_3:
	case ROCE_RULE_CA17_6:
	case ROCE_RULE_CA17_7:
	case ROCE_RULE_CA17_8:
	case ROCE_RULE_CA17_10:
	case ROCE_RULE_CA17_15:
	case ROCE_RULE_CA17_16:
	case ROCE_RULE_CA17_21:
	case ROCE_RULE_CA17_22:
	case ROCE_RULE_CA17_27:
	case ROCE_RULE_RFC791_CSUM:
		return true;
	default:
		return false;
	}
}

static void forbid(struct fz_expect *e, unsigned what, enum roce_rule rule, const char *why)
{
	/* The first (packet-level) reason stands. */
	if (e->forbid & FZ_F_ANY)
		return;
	e->forbid |= what;
	e->rule = rule;
	text_copy(e->why, sizeof e->why, why);
}

/* The packet-level reasons a receiver must drop a packet, from the frame
 * as built (libroce's parse and checks of the tester's own frame). */
static void packet_level(const struct fz_qp *q, const struct roce_pkt *p, struct fz_expect *e)
{
	struct roce_finding f[16];
	struct roce_check_opts co = { ROCE_CHK_ICRC, q->pmtu };
	size_t nf = roce_check(p, &co, f, 16);
	for (size_t i = 0; i < nf && i < 16; i++) {
		const struct roce_code_info *ci = roce_code_info(f[i].code);
		if (!ci)
			continue;
		/* CA17-7 tells the sender what flags to send; a whole packet
		 * with DF clear or the reserved flag set is no fragment, and no
		 * rule binding a receiver has it dropped (RFC 791 has receivers
		 * ignore the reserved flag; docs/rxe-results.md R8). More
		 * Fragments is judged: a fragment is no RoCEv2 packet. */
		if (f[i].code == ROCE_C_IPV4_RF || f[i].code == ROCE_C_IPV4_DF)
			continue;
		if (a17_3_rule(ci->rule)) {
			char why[120];
			roce_finding_message(&f[i], why, sizeof why);
			forbid(e, FZ_F_ANY, ROCE_RULE_CA17_24, why);
			e->drop_only = true;
		} else if (ci->rule == ROCE_RULE_IBA_TVER) {
			forbid(e, FZ_F_ANY, ROCE_RULE_IBA_TVER, "BTH TVer is not 0");
			e->drop_only = true;
		} else if (f[i].code == ROCE_C_DESTQP_ZERO) {
			forbid(e, FZ_F_ANY, ROCE_RULE_CA17_33, "DestQP is 0");
			e->drop_only = true;
		}
	}
	if (p->err != ROCE_OK) {
		/* Cut short, an undefined opcode, headers the packet cannot
		 * hold: a conforming receiver takes nothing of it. */
		e->drop_only = true;
		return;
	}
	const uint8_t *bth = roce_pkt_hdr(p, ROCE_H_BTH);
	uint16_t pkey = (uint16_t)roce_bth_pkey(bth);
	if ((pkey & 0x7FFF) != 0x7FFF) {
		forbid(e, FZ_F_ANY, ROCE_RULE_A17_PKEY, "the P_Key is not the QP's");
		e->drop_only = true;
	}
	uint32_t destqp = roce_bth_destqp(bth);
	if (destqp != q->dut_qpn) {
		forbid(e, FZ_F_ANY, ROCE_RULE_IBA_QPN, "DestQP names another QP");
		e->drop_only = true;
	}
	if (p->op->transport != q->t && p->op->transport != ROCE_T_CNP) {
		forbid(e, FZ_F_ANY, ROCE_RULE_IBA_QPTYPE, "the opcode is another transport's");
		e->drop_only = true;
	}
	if (!(p->op->flags & ROCE_OPF_REQUEST))
		e->drop_only = true; /* a response the QP's requester never asked for */
	if (q->kind == FZ_Q_UD) {
		const uint8_t *deth = roce_pkt_hdr(p, ROCE_H_DETH);
		if (deth && roce_deth_qkey(deth) != q->qkey) {
			forbid(e, FZ_F_DELIVER, ROCE_RULE_IBA_QKEY, "the Q_Key is not the QP's");
			e->drop_only = true;
		}
	}
}

/* Logs the bytes an access at va may land on in the region its key
 * names (within that region's MR), for the memory oracles after the
 * batch; a refused access is logged too: its bytes must not land. */
static void place(struct fz *z, struct fz_qp *q, const struct fz_reach *rc, uint64_t va, uint64_t len, uint32_t fill,
		  bool any, bool none, bool allowed, enum roce_rule rule)
{
	if (rc->region < 0 || !len)
		return;
	const struct fz_region *r = &z->reg[rc->region];
	int mr = r->kind == FZ_RK_MW ? r->mw_mr : rc->region;
	if (mr < 0 || !z->reg[mr].shadow || mr == z->ctl_region)
		return;
	const struct fz_region *m = &z->reg[mr];
	uint64_t end = va + len < va ? UINT64_MAX : va + len;
	if (end <= m->addr || va >= m->addr + m->len)
		return;
	uint64_t s = va < m->addr ? m->addr : va;
	uint64_t e = end > m->addr + m->len ? m->addr + m->len : end;
	struct fz_place pl = { .mr = mr, .off = s - m->addr, .len = e - s, .fill = fill, .fill_off = s - va,
			       .any_value = any, .none = none, .allowed = allowed, .rule = rule, .qp = q->index,
			       .serial = q->fl.step.serial };
	fz_place_add(z, &pl);
}

/* One more WRITE that may be open on the QP (the oldest goes when
 * there are too many; the same one is kept once). */
static void open_add(struct fz_qp *q, const struct fz_open_write *w)
{
	for (unsigned i = 0; i < q->n_open; i++)
		if (q->open[i].region == w->region && q->open[i].va == w->va && q->open[i].done == w->done)
			return;
	if (q->n_open == FZ_MAX_OPEN) {
		memmove(q->open, q->open + 1, (FZ_MAX_OPEN - 1) * sizeof *q->open);
		q->n_open--;
	}
	q->open[q->n_open++] = *w;
}

/* Request-level expectations of a packet the responder may take as the
 * next in sequence (decisive: its PSN is the one the QP certainly
 * expects), and the placements it may make. */
static void request_level(struct fz *z, struct fz_qp *q, const struct roce_pkt *p, struct fz_expect *e, bool decisive,
			  uint32_t fill, bool dropped, bool any)
{
	/* A packet a conforming receiver drops places nothing, opens no
	 * message and is judged by its packet-level rule alone. */
	enum roce_rule drop_rule = e->rule;
	if (dropped)
		decisive = false;
	const struct roce_opcode_info *oi = p->op;
	const uint8_t *reth = roce_pkt_hdr(p, ROCE_H_RETH);
	const uint8_t *ath = roce_pkt_hdr(p, ROCE_H_ATOMICETH);
	bool single = oi->position == ROCE_POS_ONLY || oi->position == ROCE_POS_NONE;
	struct fz_reach rc;
	switch (oi->kind) {
	case ROCE_K_READ_REQ: {
		uint64_t va = roce_reth_va(reth), len = roce_reth_dmalen(reth);
		e->reads = true;
		e->va = va;
		e->rlen = (uint32_t)len;
		fz_reach(z, q, roce_reth_rkey(reth), va, len, FZ_RIGHT_READ, &e->reach);
		if (!decisive)
			return;
		if (len > 0x80000000ull)
			forbid(e, FZ_F_POSITIVE, ROCE_RULE_IBA_DMALEN, "the DMA length exceeds 2^31");
		else if (!e->reach.allowed)
			forbid(e, FZ_F_POSITIVE, e->reach.rule, e->reach.why);
		return;
	}
	case ROCE_K_WRITE: {
		if (!reth) {
			/* Middle or Last: the next bytes of each WRITE that may be
			 * open; taken for certain only as the certain next packet. */
			unsigned n = q->n_open;
			struct fz_open_write was[FZ_MAX_OPEN];
			memcpy(was, q->open, sizeof was);
			q->n_open = 0;
			for (unsigned c = 0; c < n; c++) {
				uint64_t at = was[c].va + was[c].done;
				fz_reach(z, q, z->reg[was[c].region].rkey, at, p->payload_len, FZ_RIGHT_WRITE, &rc);
				rc.region = was[c].region;
				place(z, q, &rc, at, p->payload_len, fill, any, false, rc.allowed && !dropped,
				      dropped ? drop_rule : rc.rule);
				if (dropped || !decisive)
					open_add(q, &was[c]);
				if (!dropped && oi->position != ROCE_POS_LAST) {
					struct fz_open_write w = was[c];
					w.done += p->payload_len;
					open_add(q, &w);
				}
			}
			return;
		}
		uint64_t va = roce_reth_va(reth), dmalen = roce_reth_dmalen(reth);
		fz_reach(z, q, roce_reth_rkey(reth), va, dmalen, FZ_RIGHT_WRITE, &rc);
		place(z, q, &rc, va, p->payload_len, fill, any, false, rc.allowed && !dropped, dropped ? drop_rule : rc.rule);
		if (dropped)
			return;
		/* A First or Only the DUT takes for certain ends what was open;
		 * one it may take as a duplicate (its PSN not certainly the
		 * expected one) leaves it open beside the new one. */
		if (decisive)
			q->n_open = 0;
		if (oi->position == ROCE_POS_FIRST && rc.region >= 0) {
			struct fz_open_write w = { rc.region, va, p->payload_len };
			open_add(q, &w);
		}
		if (!decisive || !single)
			return;
		if (dmalen > 0x80000000ull)
			forbid(e, FZ_F_POSITIVE, ROCE_RULE_IBA_DMALEN, "the DMA length exceeds 2^31");
		else if (dmalen != p->payload_len)
			forbid(e, FZ_F_POSITIVE, ROCE_RULE_IBA_LEN, "the payload is not as long as the DMA length");
		else if (p->payload_len > q->pmtu)
			forbid(e, FZ_F_POSITIVE, ROCE_RULE_IBA_LEN, "the payload is longer than the path MTU");
		else if (!rc.allowed)
			forbid(e, FZ_F_POSITIVE, rc.rule, rc.why);
		return;
	}
	case ROCE_K_SEND:
		if (decisive && single && p->payload_len > q->pmtu)
			forbid(e, FZ_F_POSITIVE, ROCE_RULE_IBA_LEN, "the payload is longer than the path MTU");
		return;
	case ROCE_K_CMP_SWAP:
	case ROCE_K_FETCH_ADD: {
		uint64_t va = roce_atomiceth_va(ath);
		e->reads = true;
		e->va = va;
		e->rlen = 8;
		fz_reach(z, q, roce_atomiceth_rkey(ath), va, 8, FZ_RIGHT_ATOMIC, &e->reach);
		place(z, q, &e->reach, va, 8, 0, true, false, e->reach.allowed && va % 8 == 0 && !dropped,
		      dropped ? drop_rule : e->reach.rule);
		if (!decisive || !(z->caps & AP_CAP_ATOMIC))
			return;
		if (va % 8)
			forbid(e, FZ_F_POSITIVE, ROCE_RULE_IBA_ATOMIC_ALIGN, "the atomic's VA is not 8-byte aligned");
		else if (!e->reach.allowed)
			forbid(e, FZ_F_POSITIVE, e->reach.rule, e->reach.why);
		return;
	}
	case ROCE_K_ATOMIC_WRITE: {
		uint64_t va = roce_reth_va(reth), dmalen = roce_reth_dmalen(reth);
		fz_reach(z, q, roce_reth_rkey(reth), va, 8, FZ_RIGHT_WRITE, &rc);
		bool eight = dmalen == 8 && p->payload_len == 8;
		/* It places 8 bytes; they are its own only when it carries 8. */
		enum roce_rule why = !eight ? ROCE_RULE_ATOMIC_WRITE_LEN : rc.rule;
		place(z, q, &rc, va, 8, fill, false, p->payload_len < 8, rc.allowed && eight && !dropped,
		      dropped ? drop_rule : why);
		if (!decisive || !(z->caps & AP_CAP_ATOMIC_WRITE))
			return;
		if (!eight) {
			forbid(e, FZ_F_POSITIVE, ROCE_RULE_ATOMIC_WRITE_LEN, "the ATOMIC WRITE does not carry exactly 8 bytes");
		} else if (!rc.allowed && rc.rights) {
			/* A region with remote atomics alone: a should (A19). */
			const struct fz_region *r = &z->reg[rc.region];
			if (!(r->access & AP_ACCESS_REMOTE_ATOMIC))
				forbid(e, FZ_F_POSITIVE, ROCE_RULE_ATOMIC_WRITE_ACCESS, rc.why);
		} else if (!rc.allowed) {
			forbid(e, FZ_F_POSITIVE, rc.rule, rc.why);
		}
		return;
	}
	default:
		return;
	}
}

void fz_expect(struct fz *z, struct fz_qp *q, unsigned i, const uint8_t *frame, size_t len)
{
	struct fz_flight *fl = &q->fl;
	struct fz_expect *e = &fl->ex[i];
	memset(e, 0, sizeof *e);
	e->rule = ROCE_RULE_NONE;
	struct roce_pkt p;
	roce_parse_frame(&p, frame, len, len, 0);
	packet_level(q, &p, e);
	if (p.err != ROCE_OK || !p.op || !p.op->name || !(p.op->flags & ROCE_OPF_REQUEST) || q->kind == FZ_Q_UD)
		return;
	bool dropped = (e->forbid & (FZ_F_ANY | FZ_F_DELIVER)) || e->drop_only;
	/* Judged as the next request only when its PSN is the one the QP
	 * certainly expects, on an RC or XRC QP that is not in Error; UC
	 * WRITEs only place bytes, unanswered. */
	bool decisive = (q->kind == FZ_Q_RC || q->kind == FZ_Q_XRC) && fl->epsn_sure && !q->dead &&
			roce_bth_psn(roce_pkt_hdr(&p, ROCE_H_BTH)) == q->epsn && i == 0;
	/* A pad count set by a mutation moves the payload's end: the bytes
	 * it takes in or leaves out are the pad's, not the pattern's, and
	 * where they land is judged, not their values. */
	bool any = p.payload_len != fl->step.pkt[i].len;
	request_level(z, q, &p, e, decisive, fl->step.pkt[i].fill, dropped, any);
}

/* ---- The DUT's packets ---- */

static void dut_checks(struct fz *z, struct fz_qp *q, const struct roce_pkt *p, uint64_t ts)
{
	struct roce_finding f[24];
	struct roce_check_opts co = { ROCE_CHK_ICRC | ROCE_CHK_SENDER, q ? q->pmtu : 0 };
	size_t nf = roce_check(p, &co, f, 16);
	if (nf > 16)
		nf = 16;
	if (q && p->err == ROCE_OK)
		nf += flow_feed(z, p, ts, q->pmtu, f + nf, 8);
	for (size_t i = 0; i < nf; i++) {
		const struct roce_code_info *ci = roce_code_info(f[i].code);
		const struct roce_rule_info *ri = ci ? roce_rule(ci->rule) : NULL;
		if (!ci || ci->severity != ROCE_SEV_ERROR || !ri ||
		    !roce_rule_binds(ri, ROCE_ROLE_SENDER | ROCE_ROLE_RESPONDER | ROCE_ROLE_RECEIVER))
			continue;
		struct fz_obs *o = fz_observe(z, FZ_ACCEPT, ci->rule, q ? q->index : -1, q && q->fl.active ? q->fl.step.serial : 0,
					      "%s", ci->name);
		if (!o)
			return;
		char msg[200], sum[160];
		roce_finding_message(&f[i], msg, sizeof msg);
		roce_pkt_summary(p, sum, sizeof sum);
		o->from_checks = true;
		g_string_printf(o->text, "the DUT sent a packet that breaks %s: %s", ri->id, msg);
		g_string_printf(o->detail, "%s", sum);
	}
}

static bool positive(const struct roce_pkt *p, uint8_t syndrome)
{
	switch (p->op->kind) {
	case ROCE_K_READ_RESP:
		return true;
	case ROCE_K_ACK:
	case ROCE_K_ATOMIC_ACK:
		return roce_syndrome_type(syndrome) == ROCE_SYN_ACK;
	default:
		return false;
	}
}

/* Whether psn is one the QP's last two steps may still be answered
 * with (their requests' PSNs, a READ's response PSNs, and the PSN a
 * duplicate's ACK carries). */
static bool late_psn(const struct fz_qp *q, uint32_t psn)
{
	for (unsigned s = 0; s < 2; s++)
		for (unsigned i = 0; i < q->n_late[s]; i++) {
			int32_t d = roce_psn_diff(psn, q->late[s][i].first);
			if (d >= 0 && (uint32_t)d < q->late[s][i].n)
				return true;
		}
	return false;
}

/* The PSNs the step just over may still be answered with; the step
 * before it keeps its own. Packets a conforming DUT drops unseen are
 * answered never. */
static void note_late(struct fz_qp *q)
{
	const struct fz_flight *fl = &q->fl;
	memcpy(q->late[1], q->late[0], sizeof q->late[0]);
	q->n_late[1] = q->n_late[0];
	unsigned n = 0;
	for (unsigned i = 0; i < fl->step.npkt; i++) {
		if (!fl->request[i] || fl->ex[i].drop_only)
			continue;
		q->late[0][n++] = (struct fz_psn_range){ fl->psn[i], fl->span[i] ? fl->span[i] : 1 };
	}
	/* A duplicate is acknowledged with the PSN before the expected one. */
	if (n)
		q->late[0][n++] = (struct fz_psn_range){ roce_psn_add(fl->base_psn, -1), 1 };
	q->n_late[0] = n;
}

static bool seq_nak(const struct roce_pkt *p, uint8_t syndrome)
{
	return p->op->kind == ROCE_K_ACK && roce_syndrome_type(syndrome) == ROCE_SYN_NAK &&
	       roce_syndrome_value(syndrome) == ROCE_NAK_PSN_SEQ_ERR;
}

/* The packet of the step a response answers, by its PSN; -1 when none
 * (or more than one could be, or an earlier step of the QP could). */
static int attribute(const struct fz_qp *q, const struct roce_pkt *p, uint32_t psn, uint8_t syndrome)
{
	const struct fz_flight *fl = &q->fl;
	int k = -1, n = 0;
	bool read_resp = p->op->kind == ROCE_K_READ_RESP;
	if (seq_nak(p, syndrome))
		return -1; /* it carries the PSN expected, not the one it answers */
	if (late_psn(q, psn))
		return -1; /* it may be a late answer to the step before */
	for (unsigned i = 0; i < fl->step.npkt; i++) {
		if (!fl->request[i])
			continue;
		int32_t d = roce_psn_diff(psn, fl->psn[i]);
		bool hit = read_resp ? fl->ex[i].reads && d >= 0 && (uint32_t)d < fl->span[i] : d == 0;
		if (hit) {
			k = (int)i;
			n++;
		}
	}
	if (n != 1)
		return -1;
	/* An ACK or NAK answering a duplicate earlier in the step carries the
	 * PSN of the last request the responder took, which may be this
	 * packet's: it cannot be told apart. */
	if (!read_resp) {
		for (unsigned j = 0; j < fl->step.npkt; j++) {
			if (j == (unsigned)k || !fl->request[j])
				continue;
			bool dup = !fl->epsn_sure || roce_psn_diff(fl->psn[j], fl->base_psn) < 0;
			if (dup && roce_psn_diff(psn, fl->psn[j]) > 0)
				return -1;
		}
	}
	return k;
}

/* Where bytes came from, for the evidence: another region's pattern. */
static void bytes_source(const struct fz *z, const uint8_t *b, size_t n, GString *out)
{
	if (n < 8)
		return;
	for (unsigned r = 0; r < z->n_reg; r++) {
		const struct fz_region *g = &z->reg[r];
		if (!g->shadow)
			continue;
		for (uint64_t off = 0; off + 8 <= g->len; off++) {
			if (memcmp(g->shadow + off, b, 8) == 0) {
				g_string_append_printf(out, "; they are the bytes at offset %llu of %s %s",
						       (unsigned long long)off, g->guard ? "guard region" : "region", g->name);
				return;
			}
		}
	}
}

static void hex_bytes(GString *out, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n && i < 32; i++)
		g_string_append_printf(out, "%02x", b[i]);
	if (n > 32)
		g_string_append(out, "...");
}

/* A READ response's bytes, against what the READ may return. */
static void read_leak(struct fz *z, struct fz_qp *q, int k, const struct roce_pkt *p, uint32_t psn)
{
	struct fz_flight *fl = &q->fl;
	const struct fz_expect *e = &fl->ex[k];
	const uint8_t *b = p->buf + p->payload_off;
	uint32_t n = p->payload_len;
	if (!n || fl->leak_seen)
		return;
	/* Offsets follow the answer's own segmentation when in order. */
	uint64_t off = psn == fl->rd_next[k] ? fl->rd_bytes[k] : (uint64_t)roce_psn_diff(psn, fl->psn[k]) * q->pmtu;
	fl->rd_next[k] = roce_psn_add(psn, 1);
	fl->rd_bytes[k] = off + n;
	enum roce_rule rule = ROCE_RULE_NONE;
	const char *what = NULL;
	uint32_t first = 0, bad = 0;
	char why[200];
	if (!e->reach.allowed) {
		/* A READ that must not be answered: every byte is one the
		 * rules do not allow it to carry. */
		if (!(fl->epsn_sure && roce_psn_diff(fl->psn[k], fl->base_psn) == 0))
			return; /* a duplicate's replay of an earlier READ */
		rule = e->reach.rule;
		bad = n;
		text_printf(why, sizeof why, "a READ the responder must refuse (%s) was answered with %u bytes", e->reach.why,
			    n);
		what = "refused";
	} else if (off + n > e->rlen) {
		rule = ROCE_RULE_IBA_READ_RESP;
		first = off < e->rlen ? (uint32_t)(e->rlen - off) : 0;
		bad = (uint32_t)(off + n - e->rlen) < n ? (uint32_t)(off + n - e->rlen) : n;
		text_printf(why, sizeof why, "READ responses carry %llu bytes past the READ's DMA length of %u",
			    (unsigned long long)(off + n - e->rlen), e->rlen);
		what = "past-length";
	} else {
		const struct fz_region *m = &z->reg[e->reach.mr];
		for (uint32_t j = 0; j < n; j++) {
			uint64_t at = e->reach.mr_off + off + j;
			if (at >= m->len || !m->shadow || (m->dirty && m->dirty[at]) || m->shadow[at] == b[j])
				continue;
			if (!bad)
				first = j;
			bad++;
		}
		if (!bad)
			return;
		rule = ROCE_RULE_CA17_25;
		text_printf(why, sizeof why, "a READ of region %s returned %u bytes the region does not hold, from byte %llu",
			    z->reg[e->reach.region].name, bad, (unsigned long long)(off + first));
		what = "wrong-bytes";
	}
	fl->leak_seen = true;
	struct fz_obs *o = fz_observe(z, FZ_LEAK, rule, q->index, fl->step.serial, "%s/%s", fz_qkind_name(q->kind), what);
	if (!o)
		return;
	o->pkt = (unsigned)k;
	o->forbid = e->reach.allowed ? 0 : FZ_F_POSITIVE;
	g_string_printf(o->text, "%s", why);
	g_string_printf(o->detail, "READ response PSN %u, bytes %llu..%llu: ", psn, (unsigned long long)(off + first),
			(unsigned long long)(off + n - 1));
	hex_bytes(o->detail, b + first, n - first);
	bytes_source(z, b + first, n - first, o->detail);
	o->region = e->reach.region;
}

/* An Atomic ACK's original value, against what the region held. */
static void atomic_leak(struct fz *z, struct fz_qp *q, int k, const struct roce_pkt *p)
{
	const struct fz_flight *fl = &q->fl;
	const struct fz_expect *e = &fl->ex[k];
	if (!e->reach.allowed || !fl->epsn_sure || roce_psn_diff(fl->psn[k], fl->base_psn) != 0)
		return;
	const struct fz_region *m = &z->reg[e->reach.mr];
	if (!m->shadow || e->reach.mr_off + 8 > m->len)
		return;
	for (unsigned j = 0; j < 8; j++)
		if (m->dirty && m->dirty[e->reach.mr_off + j])
			return;
	const uint8_t *ack = roce_pkt_hdr(p, ROCE_H_ATOMICACKETH);
	if (!ack)
		return;
	uint64_t orig = roce_atomicacketh_orig(ack), le = 0, be = 0;
	for (unsigned j = 0; j < 8; j++) {
		le |= (uint64_t)m->shadow[e->reach.mr_off + j] << (8 * j);
		be = be << 8 | m->shadow[e->reach.mr_off + j];
	}
	if (orig == le || orig == be)
		return;
	struct fz_obs *o = fz_observe(z, FZ_LEAK, ROCE_RULE_CA17_25, q->index, fl->step.serial, "atomic-orig");
	if (!o)
		return;
	o->pkt = (unsigned)k;
	g_string_printf(o->text, "an Atomic ACK returned 0x%016llx, which region %s does not hold at that address",
			(unsigned long long)orig, z->reg[e->reach.region].name);
	g_string_printf(o->detail, "the region held 0x%016llx (host order)", (unsigned long long)le);
	o->region = e->reach.region;
}

void fz_judge_frame(struct fz *z, struct fz_qp *q, const uint8_t *frame, size_t len, uint64_t ts)
{
	struct roce_pkt p;
	roce_parse_frame(&p, frame, len, len, 0);
	dut_checks(z, q, &p, ts);
	if (p.err != ROCE_OK || !p.op || !p.op->name)
		return;
	struct fz_flight *fl = &q->fl;
	if (q->kind == FZ_Q_UC) {
		struct fz_obs *o = fz_observe(z, FZ_ACCEPT, ROCE_RULE_IBA_UC_DROP, q->index, fl->active ? fl->step.serial : 0,
					      "uc-answer");
		if (o) {
			o->forbid = FZ_F_QUIET;
			g_string_printf(o->text, "a UC QP sent %s: a UC responder never sends an ACK or a NAK", p.op->name);
		}
		return;
	}
	if (!fl->active || q->kind == FZ_Q_UD)
		return; /* late: its step was judged already */
	const uint8_t *bth = roce_pkt_hdr(&p, ROCE_H_BTH);
	const uint8_t *aeth = roce_pkt_hdr(&p, ROCE_H_AETH);
	uint32_t psn = roce_bth_psn(bth);
	uint8_t syn = aeth ? (uint8_t)roce_aeth_syndrome(aeth) : 0xFF;
	if (fl->n_resp < FZ_RESP_MAX) {
		struct fz_resp *r = &fl->resp[fl->n_resp++];
		r->opcode = p.opcode;
		r->psn = psn;
		r->syndrome = syn;
		r->len = p.payload_len;
		r->ts_ns = ts;
	}
	if (fl->n_resp == 1 && ts > fl->sent_ns) {
		uint64_t lat = ts - fl->sent_ns;
		z->st.lat_sum_ns += lat;
		z->st.lat_n++;
		if (lat > z->st.lat_max_ns)
			z->st.lat_max_ns = lat;
	}
	int k = attribute(q, &p, psn, syn);
	/* One packet alone in flight on a QP whose state is certain: any
	 * answer at all is its, but for one an earlier request may have
	 * asked for: a PSN before its own or an earlier step's, or a
	 * sequence NAK (it names the expected PSN). */
	if (k < 0 && fl->step.npkt == 1 && fl->epsn_sure && !q->dead && !seq_nak(&p, syn) &&
	    roce_psn_diff(psn, fl->psn[0]) >= 0 && !late_psn(q, psn))
		k = 0;
	if (k >= 0 && !fl->judged) {
		const struct fz_expect *e = &fl->ex[k];
		/* A request behind the expected PSN is a duplicate: the
		 * responder acknowledges it again without executing it
		 * (C9-105), so its ACK accepts nothing it must refuse. */
		bool dup = fl->epsn_sure && roce_psn_diff(fl->psn[k], fl->base_psn) < 0;
		bool bad = (e->forbid & FZ_F_ANY) || ((e->forbid & FZ_F_POSITIVE) && !dup && positive(&p, syn));
		if (bad) {
			fl->judged = true;
			struct fz_obs *o = fz_observe(z, FZ_ACCEPT, e->rule, q->index, fl->step.serial, "%s/%s/%s",
						      fz_qkind_name(q->kind), roce_op_kind_name(fl->op_kind[k]),
						      (e->forbid & FZ_F_ANY) ? "dropped" : "refused");
			if (o) {
				char sum[160];
				roce_pkt_summary(&p, sum, sizeof sum);
				g_string_printf(o->text, "the DUT answered %sa packet it must %s: %s",
						(e->forbid & FZ_F_ANY) ? "" : "positively ", (e->forbid & FZ_F_ANY) ? "drop" : "refuse",
						e->why);
				g_string_printf(o->detail, "answer: %s", sum);
				o->region = e->reach.region;
				o->forbid = e->forbid;
				o->pkt = (unsigned)k;
			}
		}
	}
	if (k >= 0 && p.op->kind == ROCE_K_READ_RESP && fl->ex[k].reads)
		read_leak(z, q, k, &p, psn);
	if (k >= 0 && p.op->kind == ROCE_K_ATOMIC_ACK && fl->ex[k].reads)
		atomic_leak(z, q, k, &p);
	/* The last answer: a NAK, or one at or past the step's last PSN. */
	bool nak = p.op->kind == ROCE_K_ACK && roce_syndrome_type(syn) != ROCE_SYN_ACK;
	bool partial = p.op->kind == ROCE_K_READ_RESP &&
		       (p.op->position == ROCE_POS_FIRST || p.op->position == ROCE_POS_MIDDLE);
	if (nak || (!partial && roce_psn_diff(psn, fl->last_psn) >= 0)) {
		if (!fl->got_terminal) {
			fl->got_terminal = true;
			fl->settle_ns = ts + z->settle_ns;
		}
	}
}

void fz_judge_stray(struct fz *z, const uint8_t *frame, size_t len)
{
	struct roce_pkt p;
	roce_parse_frame(&p, frame, len, len, 0);
	if (p.err == ROCE_E_UDP_DPORT || p.err == ROCE_E_ETHERTYPE || !roce_pkt_has(&p, ROCE_H_BTH))
		return;
	dut_checks(z, NULL, &p, 0);
}

/* ---- A step is over ---- */

void fz_judge_done(struct fz *z, struct fz_qp *q)
{
	struct fz_flight *fl = &q->fl;
	bool pinned = false, positive_seen = false, fatal = false;
	if (q->kind == FZ_Q_RC || q->kind == FZ_Q_XRC) {
		for (unsigned i = 0; i < fl->n_resp; i++) {
			const struct fz_resp *r = &fl->resp[i];
			const struct roce_opcode_info *oi = roce_opcode(r->opcode);
			switch (oi->kind) {
			case ROCE_K_ACK:
				switch (roce_syndrome_type(r->syndrome)) {
				case ROCE_SYN_ACK:
					q->epsn = roce_psn_add(r->psn, 1);
					pinned = positive_seen = true;
					break;
				case ROCE_SYN_RNR_NAK:
					q->epsn = r->psn;
					pinned = true;
					break;
				case ROCE_SYN_NAK:
					if (roce_syndrome_value(r->syndrome) == ROCE_NAK_PSN_SEQ_ERR) {
						q->epsn = r->psn;
						pinned = true;
					} else {
						fatal = true;
					}
					break;
				default:
					break;
				}
				break;
			case ROCE_K_READ_RESP:
				q->epsn = roce_psn_add(r->psn, 1);
				pinned = oi->position == ROCE_POS_LAST || oi->position == ROCE_POS_ONLY;
				positive_seen = true;
				break;
			case ROCE_K_ATOMIC_ACK:
				q->epsn = roce_psn_add(r->psn, 1);
				pinned = positive_seen = true;
				break;
			default:
				break;
			}
		}
		if (fatal) {
			q->dead = true;
			q->sure = false;
		} else if (pinned) {
			q->sure = true;
		} else {
			/* Silence keeps the PSN only when every packet was one a
			 * conforming responder drops unseen. */
			bool all_dropped = true;
			for (unsigned i = 0; i < fl->step.npkt; i++)
				all_dropped = all_dropped && fl->ex[i].drop_only;
			if (!all_dropped || fl->n_resp)
				q->sure = false;
		}
	} else if (q->kind == FZ_Q_UC && fl->step.npkt) {
		q->epsn = roce_psn_add(fl->psn[fl->step.npkt - 1], 1);
	}
	if (fl->n_resp)
		z->st.answered++;
	else
		z->st.silent++;
	for (guint i = z->timeline->len; fl->n_resp && i-- > 0;) {
		struct fz_tl *t = &g_array_index(z->timeline, struct fz_tl, i);
		if (t->serial == fl->step.serial && t->qp == q->index) {
			t->answered = true;
			break;
		}
	}
	/* Into the QP's history (the oldest goes when it is full). */
	if (q->n_hist == FZ_MAX_STEPS) {
		memmove(q->hist, q->hist + 1, (FZ_MAX_STEPS - 1) * sizeof *q->hist);
		q->n_hist--;
		q->hist_dropped++;
	}
	struct fz_done *d = &q->hist[q->n_hist++];
	memset(d, 0, sizeof *d);
	d->step = fl->step;
	for (unsigned i = 0; i < fl->step.npkt; i++)
		d->psn_off[i] = (fl->psn[i] - q->psn0) & ROCE_PSN_MASK;
	d->n_resp = fl->n_resp;
	memcpy(d->resp, fl->resp, fl->n_resp * sizeof *fl->resp);
	note_late(q);
	d->epsn_sure = fl->epsn_sure;
	d->fatal = fatal;
	d->positive = positive_seen;
	d->imm = fl->imm;
	d->has_imm = fl->has_imm;
	/* The step's packets share its immediate data: a delivery is its
	 * wrong acceptance only when no packet that carries it may be
	 * delivered (a good WRITE Only with Immediate beside a cut SEND Last
	 * with Immediate delivers rightly). */
	bool deliverable = false;
	for (unsigned i = 0; i < fl->step.npkt; i++) {
		uint32_t imm;
		if (fz_pkt_imm(z, q, &fl->step.pkt[i], &imm) && !(fl->ex[i].forbid & (FZ_F_ANY | FZ_F_DELIVER)))
			deliverable = true;
	}
	for (unsigned i = 0; i < fl->step.npkt && !deliverable; i++) {
		if (fl->ex[i].forbid & (FZ_F_ANY | FZ_F_DELIVER)) {
			d->no_delivery = true;
			d->deliver_rule = fl->ex[i].rule;
			text_copy(d->deliver_why, sizeof d->deliver_why, fl->ex[i].why);
		}
	}
	fl->active = false;
}

void fz_judge_completion(struct fz *z, struct fz_qp *q, uint32_t imm, bool has_imm, const char *status)
{
	if (!has_imm || strcmp(status, "SUCCESS"))
		return;
	/* A mutated immediate (0, 1, ~0) may be two steps' own: the
	 * delivery is another step's when one of them may deliver it. */
	for (unsigned i = 0; i < q->n_hist; i++)
		if (q->hist[i].has_imm && q->hist[i].imm == imm && !q->hist[i].no_delivery)
			return;
	for (unsigned i = 0; i < q->n_hist; i++) {
		const struct fz_done *d = &q->hist[i];
		if (!d->has_imm || d->imm != imm || !d->no_delivery)
			continue;
		struct fz_obs *o = fz_observe(z, FZ_ACCEPT, d->deliver_rule, q->index, d->step.serial, "%s/delivered",
					      fz_qkind_name(q->kind));
		if (o) {
			o->forbid = FZ_F_DELIVER;
			g_string_printf(o->text, "the DUT delivered a message it must drop: %s", d->deliver_why);
		}
		return;
	}
}
