/*
 * A finding as an ordinary conformance case (docs/case-language.md), which
 * `roce-tester run` replays: the regions, windows and QPs its sequence
 * uses, each packet as an inject step with the fields the fuzzer set
 * (addresses and keys by the names the case gives the DUT's objects, PSNs
 * from the QP's first), whatever the DUT answers to the steps before the
 * last taken without judgement, and after the last one what a conforming
 * DUT does instead of what this one did: the NAK or the silence a rule
 * asks for, the region's bytes read back, a duplicate acknowledged again
 * on the QP, a known-good exchange on a fresh QP.
 */
#include "fz.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

struct writer {
	struct fz *z;
	const struct fz_finding *f;
	GString *o;
	bool used[FZ_MAX_REGIONS];
	bool binder;    /* windows need a QP to bind them */
	bool stale_mr;  /* the sequence uses a deregistered region's key */
	unsigned caps;  /* AP_CAP_* the case needs */
};

static const char *qp_name(const struct writer *w, unsigned slot)
{
	static const char *const names[] = { "q", "q2", "q3", "q4" };
	(void)w;
	return names[slot < 4 ? slot : 0];
}

static void text_quoted(GString *o, const char *t)
{
	g_string_append_c(o, '"');
	for (; *t; t++) {
		if (*t == '"' || *t == '\\')
			g_string_append_c(o, '\\');
		if (*t == '\n')
			g_string_append(o, "\\n");
		else
			g_string_append_c(o, *t);
	}
	g_string_append_c(o, '"');
}

static void hex(GString *o, const uint8_t *b, size_t n)
{
	g_string_append(o, "x\"");
	for (size_t i = 0; i < n; i++) {
		if (i && i % 32 == 0)
			g_string_append_c(o, ' '); /* a byte string cannot continue on the next line */
		g_string_append_printf(o, "%02x", b[i]);
	}
	g_string_append_c(o, '"');
}

static void access_list(GString *o, unsigned access)
{
	bool first = true;
	for (unsigned bit = 1; bit; bit <<= 1) {
		if (!(access & bit) || !ap_access_name((enum ap_access)bit))
			continue;
		g_string_append_printf(o, "%s%s", first ? "" : ",", ap_access_name((enum ap_access)bit));
		first = false;
	}
}

/* ---- What the sequence uses ---- */

static void scan(struct writer *w)
{
	const struct fz *z = w->z;
	for (unsigned i = 0; i < w->f->n_seq; i++) {
		const struct fz_step *s = &w->f->seq[i].step;
		for (unsigned k = 0; k < s->npkt; k++) {
			const struct fz_pkt *p = &s->pkt[k];
			const struct roce_opcode_info *oi = roce_opcode(p->opcode);
			if (oi->kind == ROCE_K_CMP_SWAP || oi->kind == ROCE_K_FETCH_ADD)
				w->caps |= AP_CAP_ATOMIC;
			for (unsigned j = 0; j < p->nset; j++) {
				int r = p->set[j].region;
				if ((p->set[j].kind != FZ_V_ADDR && p->set[j].kind != FZ_V_RKEY) || r < 0 || (unsigned)r >= z->n_reg)
					continue;
				w->used[r] = true;
			}
		}
	}
	if (w->f->obs.region >= 0 && (unsigned)w->f->obs.region < z->n_reg)
		w->used[w->f->obs.region] = true;
	/* A window needs its MR and the QP that binds it. */
	for (unsigned r = 0; r < z->n_reg; r++) {
		if (!w->used[r])
			continue;
		if (z->reg[r].kind == FZ_RK_MW) {
			w->used[z->reg[r].mw_mr] = true;
			w->binder = true;
			w->caps |= z->reg[r].mw_type == 1 ? AP_CAP_MW1 : AP_CAP_MW2;
		}
		if (!z->reg[r].valid && z->reg[r].kind == FZ_RK_MR)
			w->stale_mr = true;
	}
	for (unsigned i = 0; i < w->f->n_qp; i++)
		w->caps |= w->f->qps[i].kind == FZ_Q_UC ? AP_CAP_UC : w->f->qps[i].kind == FZ_Q_UD ? AP_CAP_UD : AP_CAP_RC;
}

/* ---- The set-up ---- */

static void setup(struct writer *w)
{
	const struct fz *z = w->z;
	GString *o = w->o;
	bool other_pd = false;
	for (unsigned i = 0; i < z->n_reg; i++)
		other_pd = other_pd || (w->used[i] && z->reg[i].pd);
	if (other_pd)
		g_string_append(o, "dut pd other_pd\n");
	for (unsigned i = 0; i < z->n_reg; i++) {
		const struct fz_region *r = &z->reg[i];
		/* A deregistered MR is not registered at all: its key is
		 * written as the number it was (value()). */
		if (!w->used[i] || r->kind != FZ_RK_MR || !r->valid)
			continue;
		g_string_append_printf(o, "dut mr %s size=%llu access=", r->name, (unsigned long long)r->len);
		access_list(o, r->access);
		g_string_append_printf(o, " fill=0x%02x%s\n", r->fill, r->pd ? " pd=other_pd" : "");
	}
	bool recv = false, srq = false, xrc = false;
	for (unsigned i = 0; i < w->f->n_qp; i++) {
		recv = recv || w->f->qps[i].kind == FZ_Q_UC || w->f->qps[i].kind == FZ_Q_UD || w->f->qps[i].srq;
		srq = srq || w->f->qps[i].srq;
		xrc = xrc || w->f->qps[i].kind == FZ_Q_XRC;
	}
	if (recv || xrc)
		g_string_append_printf(o, "dut mr recv size=%u access=LOCAL_WRITE\n", 2 * FZ_REGION_LEN);
	if (srq) {
		g_string_append(o, "dut srq s max_wr=64\n");
		for (unsigned k = 0; k < 8; k++)
			g_string_append_printf(o, "dut post_recv s recv len=%u wr_id=%u\n", FZ_REGION_LEN + 64, 100 + k);
	}
	if (xrc) {
		g_string_append(o, "dut xrcd d\ndut srq xs xrcd=d max_wr=64\n");
		for (unsigned k = 0; k < 8; k++)
			g_string_append_printf(o, "dut post_recv xs recv len=%u wr_id=%u\n", FZ_REGION_LEN + 64, 200 + k);
	}
	if (w->binder)
		g_string_append(o, "dut qp binder type=RC\n");
	for (unsigned i = 0; i < z->n_reg; i++) {
		const struct fz_region *r = &z->reg[i];
		if (!w->used[i] || r->kind != FZ_RK_MW)
			continue;
		g_string_append_printf(o, "dut mw %s type=%d\n", r->name, r->mw_type);
		g_string_append_printf(o, "dut bind %s binder %s offset=%llu len=%llu access=", r->name, z->reg[r->mw_mr].name,
				       (unsigned long long)r->mw_off, (unsigned long long)r->len);
		access_list(o, r->access);
		g_string_append(o, "\n");
		if (!r->valid && r->mw_type == 2)
			g_string_append_printf(o, "dut post_send binder LOCAL_INV invalidate=$%s.rkey wr_id=9\n"
					       "expect completion binder wr_id=9 status=SUCCESS within 1s\n", r->name);
		else if (!r->valid)
			g_string_append_printf(o, "dut bind %s binder %s len=0\n", r->name, z->reg[r->mw_mr].name);
	}
	for (unsigned i = 0; i < w->f->n_qp; i++) {
		const struct fz_qp_cfg *c = &w->f->qps[i];
		const char *n = qp_name(w, i);
		switch (c->kind) {
		case FZ_Q_RC:
			g_string_append_printf(o, "dut qp %s type=RC pmtu=%u%s access=REMOTE_WRITE,REMOTE_READ%s%s\n", n, c->pmtu,
					       c->srq ? " srq=s" : "", (z->caps & AP_CAP_ATOMIC) ? ",REMOTE_ATOMIC" : "",
					       (z->caps & AP_CAP_FLUSH) ? ",FLUSH_GLOBAL" : "");
			break;
		case FZ_Q_UC:
			g_string_append_printf(o, "dut qp %s type=UC pmtu=%u\n", n, c->pmtu);
			break;
		case FZ_Q_UD:
			g_string_append_printf(o, "dut qp %s type=UD qkey=0x%08x\n", n, c->qkey);
			break;
		case FZ_Q_XRC:
			g_string_append_printf(o, "dut qp %s type=XRC_RECV xrcd=d pmtu=%u\n", n, c->pmtu);
			break;
		}
		if (c->kind == FZ_Q_UC || c->kind == FZ_Q_UD)
			for (unsigned k = 0; k < 8; k++)
				g_string_append_printf(o, "dut post_recv %s recv len=%u wr_id=%u\n", n, FZ_REGION_LEN + 64, k + 1);
	}
}

/* ---- The steps ---- */

static void value(const struct writer *w, const struct fz_set *s, unsigned slot)
{
	const struct fz *z = w->z;
	GString *o = w->o;
	const struct fz_region *r = s->region >= 0 && (unsigned)s->region < z->n_reg ? &z->reg[s->region] : NULL;
	switch ((enum fz_val)s->kind) {
	case FZ_V_ADDR:
		if (r && r->kind == FZ_RK_MW) {
			/* A window's addresses are its MR's. */
			g_string_append_printf(o, "$%s.addr+%llu", z->reg[r->mw_mr].name, (unsigned long long)(r->mw_off + s->v));
		} else if (!r || (r->kind == FZ_RK_MR && !r->valid)) {
			g_string_append_printf(o, "0x%llx", (unsigned long long)((r ? r->addr : 0) + s->v));
		} else if (!r) {
			g_string_append_printf(o, "0x%llx", (unsigned long long)s->v);
		} else {
			g_string_append_printf(o, "$%s.addr", r->name);
			if ((int64_t)s->v < 0 && (int64_t)s->v > -(1ll << 40))
				g_string_append_printf(o, "-%lld", -(long long)(int64_t)s->v);
			else if (s->v)
				g_string_append_printf(o, "+%llu", (unsigned long long)s->v);
		}
		return;
	case FZ_V_RKEY:
		if (!r || (r->kind == FZ_RK_MR && !r->valid)) {
			g_string_append_printf(o, "0x%llx", (unsigned long long)(r ? (r->rkey ^ s->v) : s->v));
		} else {
			/* A flipped key as an offset from the key the DUT gives. */
			uint32_t delta = (uint32_t)((r->rkey ^ s->v) - r->rkey);
			g_string_append_printf(o, "$%s.rkey", r->name);
			if (delta)
				g_string_append_printf(o, "+%u", delta);
		}
		return;
	case FZ_V_QKEY:
		g_string_append_printf(o, "0x%08x", (uint32_t)(w->f->qps[slot].qkey ^ s->v));
		return;
	case FZ_V_SRQN:
		g_string_append_printf(o, "$xs.srqn+%llu", (unsigned long long)s->v);
		return;
	case FZ_V_TQPN:
		g_string_append_printf(o, "$%s.peer_qpn+%llu", qp_name(w, slot), (unsigned long long)s->v);
		return;
	default:
		g_string_append_printf(o, "0x%llx", (unsigned long long)s->v);
	}
}

/* The length of the frame a packet makes (what truncate= cuts from). */
static long frame_len(struct writer *w, const struct fz_step *s, unsigned k, unsigned slot)
{
	struct fz_qp q;
	memset(&q, 0, sizeof q);
	q.kind = w->f->qps[slot].kind;
	q.pmtu = w->f->qps[slot].pmtu;
	q.qkey = w->f->qps[slot].qkey;
	fz_endpoint(w->z, &q);
	struct fz_step c = *s;
	c.pkt[k].cut = 0;
	uint8_t frame[PEER_FRAME_MAX];
	return fz_build(w->z, &q, &c, k, 0, frame, sizeof frame);
}

static void inject(struct writer *w, const struct fz_done *d, unsigned k, unsigned slot)
{
	const struct fz_pkt *p = &d->step.pkt[k];
	GString *o = w->o;
	const char *n = qp_name(w, slot);
	g_string_append_printf(o, "inject %s 0x%02x psn=$%s.peer_psn+%u", n, p->opcode, n, d->psn_off[k]);
	for (unsigned j = 0; j < p->nset; j++) {
		const struct roce_field_info *fi = roce_field_info((enum roce_field)p->set[j].field);
		if (!fi)
			continue;
		g_string_append_printf(o, " %s.%s=", roce_hdr_info(fi->hdr)->abbrev, fi->abbrev);
		value(w, &p->set[j], slot);
	}
	if (p->len && p->len <= 1024) {
		uint8_t *b = g_malloc(p->len);
		for (uint32_t j = 0; j < p->len; j++)
			b[j] = fz_payload_byte(p->fill, j);
		g_string_append(o, " data=");
		hex(o, b, p->len);
		g_free(b);
	} else {
		g_string_append_printf(o, " len=%u", p->len);
	}
	if (p->icrc == FZ_ICRC_BAD)
		g_string_append(o, " icrc=bad");
	else if (p->icrc == FZ_ICRC_ZERO)
		g_string_append(o, " icrc=0");
	if (p->cut) {
		long len = frame_len(w, &d->step, k, slot);
		long keep = len > (long)p->cut + ROCE_ETH_LEN ? len - p->cut : ROCE_ETH_LEN;
		g_string_append_printf(o, " truncate=%ld", keep);
	}
	g_string_append(o, "\n");
}

/* What the memory should hold at [off, off+len) of MR m after the
 * sequence on a conforming DUT: the region's fill, and where an allowed
 * request of the last replay placed bytes, its bytes. */
static void expected_memory(const struct writer *w, int m, uint64_t off, uint64_t len, uint8_t *out)
{
	memset(out, w->z->reg[m].fill, len);
	const GArray *pl = w->f->places;
	for (guint i = 0; pl && i < pl->len; i++) {
		const struct fz_place *p = &g_array_index(pl, struct fz_place, i);
		if (p->mr != m || !p->allowed || p->any_value || p->none)
			continue;
		for (uint64_t k = 0; k < len; k++) {
			uint64_t at = off + k;
			if (at >= p->off && at - p->off < p->len)
				out[k] = fz_payload_byte(p->fill, at - p->off + p->fill_off);
		}
	}
}

static void finale(struct writer *w)
{
	const struct fz *z = w->z;
	const struct fz_finding *f = w->f;
	const struct fz_obs *ob = &f->obs;
	GString *o = w->o;
	const struct fz_done *last = f->n_seq ? &f->seq[f->n_seq - 1] : NULL;
	const char *n = qp_name(w, f->n_seq ? f->seq_qp[f->n_seq - 1] : 0);
	const struct roce_rule_info *ri = roce_rule(ob->rule);
	if (ob->kind == FZ_HANG && ob->device && ri) {
		g_string_append(o, "# A known-good exchange on a QP the sequence never touched.\n"
				   "inject probe WRITE_ONLY psn=$probe.peer_psn remote=$probe_mr.addr rkey=$probe_mr.rkey "
				   "dmalen=8 data=x\"0102030405060708\"\n"
				   "expect probe ACK aeth=ACK psn=$probe.peer_psn within 1s\n");
		return;
	}
	if (!ri) {
		g_string_append(o, "wait 1s\ninform CA17-25 ");
		text_quoted(o, ob->text ? ob->text->str : "the fuzzer saw this");
		g_string_append(o, "\n");
		return;
	}
	if (ob->kind == FZ_HANG) {
		uint32_t psn = last ? (last->psn_off[0] - 0x400000u) & ROCE_PSN_MASK : 0x400000u;
		g_string_append_printf(o, "# The QP must still answer: a duplicate WRITE is acknowledged again (C9-105).\n"
					  "inject %s WRITE_ONLY psn=$%s.peer_psn+%u reth.dmalen=0 len=0\n"
					  "expect %s ACK aeth=ACK within 1s\n", n, n, psn, n);
		return;
	}
	if (ob->region >= 0 && ob->len && (ob->kind == FZ_CORRUPT || !ob->forbid) && !ob->from_checks &&
	    z->reg[ob->region].kind == FZ_RK_MR) {
		/* A memory oracle: the bytes read back. */
		uint64_t len = ob->len > 256 ? 256 : ob->len;
		uint8_t *b = g_malloc(len);
		expected_memory(w, ob->region, ob->off, len, b);
		g_string_append_printf(o, "wait 200ms\ndut read %s offset=%llu len=%llu -> data=", z->reg[ob->region].name,
				       (unsigned long long)ob->off, (unsigned long long)len);
		hex(o, b, len);
		g_string_append(o, "\n");
		g_free(b);
		return;
	}
	uint32_t psn = last && ob->pkt < last->step.npkt ? last->psn_off[ob->pkt] : 0;
	if (ob->forbid & FZ_F_DELIVER) {
		g_string_append_printf(o, "expect no completion %s within 500ms\n", n);
	} else if (ob->forbid & (FZ_F_ANY | FZ_F_QUIET)) {
		g_string_append_printf(o, "expect nothing %s within 500ms\n", n);
	} else if (ob->forbid & FZ_F_POSITIVE) {
		/* A request the responder must refuse: its answer is a NAK
		 * (a positive answer, or none, fails the case). */
		g_string_append_printf(o, "expect %s ACK aeth=NAK psn=$%s.peer_psn+%u within 500ms\n", n, n, psn);
	} else {
		/* Judged by the packet checks and the flow analysis, which the
		 * runner applies to every packet of the DUT. */
		g_string_append_printf(o, "measure %s any for 500ms\n", n);
	}
}

int fz_case_write(struct fz *z, struct fz_finding *f, const char *dir, GString *err)
{
	if (g_mkdir_with_parents(dir, 0755) != 0) {
		g_string_printf(err, "%s: %s", dir, g_strerror(errno));
		return -1;
	}
	struct writer w = { .z = z, .f = f, .o = g_string_new(NULL) };
	scan(&w);
	GString *o = w.o;
	const struct roce_rule_info *ri = roce_rule(f->obs.rule);
	g_string_append_printf(o, "# Found by roce-tester fuzz --seed 0x%llx (batch %llu) against %s.\n",
			       (unsigned long long)z->o->seed, (unsigned long long)f->batch, z->dut_name);
	g_string_append_printf(o, "# %s: %s\n", fz_kind_name(f->obs.kind), f->obs.text ? f->obs.text->str : "");
	if (f->obs.detail && f->obs.detail->len) {
		gchar **lines = g_strsplit(f->obs.detail->str, "\n", -1);
		for (gchar **l = lines; *l; l++)
			g_string_append_printf(o, "# %s\n", *l);
		g_strfreev(lines);
	}
	if (f->reduced)
		g_string_append_printf(o, "# Reduced from %u to %u request(s) by delta debugging (%u replays).\n", f->n_orig,
				       f->n_seq, f->replays);
	else if (f->obs.console && f->replays)
		g_string_append_printf(o, "# No QP's requests of the batch, replayed alone, made the kernel print it again: "
					  "the %u request(s) sent after the DUT's last answer, not reduced.\n", f->n_seq);
	else if (f->obs.device)
		g_string_append_printf(o, "# The DUT stopped answering: the %u request(s) sent between its last answer "
					  "and the first it left unanswered, not replayed.\n", f->n_seq);
	else
		g_string_append_printf(o, "# Not reduced: %s.\n", f->replayable ? "the reduction ran out of time"
										 : "a replay did not show it again");
	g_string_append_printf(o, "case %s\ntitle ", f->id);
	GString *title = g_string_new(NULL);
	g_string_append_printf(title, "Fuzzing finding (%s): %s", fz_kind_name(f->obs.kind), f->obs.text ? f->obs.text->str : "");
	if (title->len > 160)
		g_string_truncate(title, 157), g_string_append(title, "...");
	text_quoted(o, title->str);
	g_string_free(title, TRUE);
	g_string_append_printf(o, "\nrules %s\n", ri ? ri->id : "CA17-25");
	GString *req = g_string_new(NULL);
	static const struct {
		unsigned cap;
		const char *word;
	} caps[] = { { AP_CAP_RC, "RC" }, { AP_CAP_UC, "UC" }, { AP_CAP_UD, "UD" }, { AP_CAP_ATOMIC, "ATOMIC" } };
	for (size_t i = 0; i < G_N_ELEMENTS(caps); i++)
		if (w.caps & caps[i].cap)
			g_string_append_printf(req, "%s%s", req->len ? ", " : "", caps[i].word);
	if (req->len)
		g_string_append_printf(o, "requires %s\n", req->str);
	g_string_free(req, TRUE);
	g_string_append_printf(o, "ip %d\ntimeout 30s\n\n", z->o->ip_version);
	setup(&w);
	if (f->obs.kind == FZ_HANG && f->obs.device && ri)
		g_string_append_printf(o, "dut mr probe_mr size=64 access=LOCAL_WRITE,REMOTE_WRITE\ndut qp probe type=RC\n");
	g_string_append(o, "\n");
	for (unsigned i = 0; i < f->n_seq; i++) {
		const struct fz_done *d = &f->seq[i];
		unsigned slot = f->seq_qp[i];
		for (unsigned k = 0; k < d->step.npkt; k++)
			inject(&w, d, k, slot);
		bool rc = f->qps[slot].kind == FZ_Q_RC || f->qps[slot].kind == FZ_Q_XRC;
		if (i + 1 < f->n_seq && rc)
			g_string_append_printf(o, "measure %s any for 100ms\n", qp_name(&w, slot));
	}
	finale(&w);
	gchar *name = g_strdup_printf("%s/%s.case", dir, f->id);
	for (char *c = name + strlen(dir) + 1; *c; c++)
		*c = g_ascii_tolower(*c);
	GError *gerr = NULL;
	int rc = 0;
	if (!g_file_set_contents(name, o->str, (gssize)o->len, &gerr)) {
		g_string_printf(err, "%s", gerr->message);
		g_error_free(gerr);
		g_free(name);
		rc = -1;
	} else {
		f->case_path = name;
	}
	g_string_free(o, TRUE);
	return rc;
}
