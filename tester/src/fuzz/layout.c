/*
 * The fuzzer's memory on the DUT: the regions its requests target, the
 * guards registered around them, the windows (where the DUT has memory
 * windows), the keys that reach nothing (a deregistered region's, an
 * invalidated window's, another protection domain's, another QP's type 2
 * window), and what a key, an address and a length reach from a QP: the
 * rules (IBA9.7-ACCESS, C9-88, the windows' rules) as a conforming
 * responder applies them.
 */
#include "fz.h"
#include "text.h"

#include <string.h>

static struct fz_region *add(struct fz *z, const char *name, enum fz_rkind kind, int pd, uint64_t len, unsigned access)
{
	struct fz_region *r = &z->reg[z->n_reg];
	memset(r, 0, sizeof *r);
	text_copy(r->name, sizeof r->name, name);
	r->kind = kind;
	r->pd = pd;
	r->len = len;
	r->access = access;
	r->valid = true;
	r->handle = -1;
	r->mw_mr = -1;
	r->fill = (uint8_t)(0x11 * (z->n_reg % 15 + 1));
	z->n_reg++;
	return r;
}

void fz_layout_plan(struct fz *z)
{
	unsigned lw = AP_ACCESS_LOCAL_WRITE, rr = AP_ACCESS_REMOTE_READ, rw = AP_ACCESS_REMOTE_WRITE;
	unsigned ra = (z->caps & AP_CAP_ATOMIC) ? AP_ACCESS_REMOTE_ATOMIC : 0;
	unsigned fl = (z->caps & AP_CAP_FLUSH) ? AP_ACCESS_FLUSH_GLOBAL : 0;
	z->n_reg = 0;
	/* Targets with guards between them: a device that reads or writes
	 * past a region's end meets a guard first where it lays regions out
	 * in the order they were registered. */
	add(z, "g0", FZ_RK_MR, 0, FZ_REGION_LEN, lw)->guard = true;
	add(z, "rw", FZ_RK_MR, 0, FZ_REGION_LEN, lw | rr | rw | ra | fl)->writable = true;
	add(z, "g1", FZ_RK_MR, 0, FZ_REGION_LEN, lw)->guard = true;
	add(z, "ro", FZ_RK_MR, 0, FZ_REGION_LEN, rr);
	add(z, "g2", FZ_RK_MR, 0, FZ_REGION_LEN, lw)->guard = true;
	add(z, "wo", FZ_RK_MR, 0, FZ_REGION_LEN, lw | rw)->writable = true;
	add(z, "g3", FZ_RK_MR, 0, FZ_REGION_LEN, lw)->guard = true;
	/* Another protection domain's region: its key is wrong on every QP. */
	add(z, "other", FZ_RK_MR, 1, FZ_REGION_LEN, lw | rr | rw | ra);
	/* The control exchange's memory, and the receive buffers. */
	z->ctl_region = (int)z->n_reg;
	add(z, "ctl", FZ_RK_MR, 0, FZ_REGION_LEN, lw | rr | rw)->writable = true;
	z->recv_region = (int)z->n_reg;
	add(z, "recv", FZ_RK_RECV, 0, 2 * FZ_REGION_LEN, lw);
	/* Registered, then deregistered: its key reaches nothing. */
	add(z, "stale", FZ_RK_MR, 0, FZ_REGION_LEN, lw | rr | rw);
	if (!(z->caps & (AP_CAP_MW1 | AP_CAP_MW2)))
		return;
	/* Windows in one region: their guards are the region's other bytes. */
	int mwb = (int)z->n_reg;
	add(z, "mwb", FZ_RK_MR, 0, FZ_MWBASE_LEN, lw | AP_ACCESS_MW_BIND)->writable = true;
	struct fz_region *w;
	if (z->caps & AP_CAP_MW1) {
		w = add(z, "w1", FZ_RK_MW, 0, 4096, rr | rw);
		w->mw_type = 1;
		w->mw_mr = mwb;
		w->mw_off = 2048;
		w->writable = true;
	}
	if (z->caps & AP_CAP_MW2) {
		/* Bound by the control QP: another QP's key for every fuzzed QP. */
		w = add(z, "w2", FZ_RK_MW, 0, 2048, rr | rw);
		w->mw_type = 2;
		w->mw_mr = mwb;
		w->mw_off = 1024;
		w->mw_ctl = true;
		/* Bound, then invalidated: a stale key. */
		w = add(z, "w3", FZ_RK_MW, 0, 1024, rr);
		w->mw_type = 2;
		w->mw_mr = mwb;
		w->mw_off = 4096;
		w->mw_ctl = true;
	} else if (z->caps & AP_CAP_MW1) {
		/* Bound, then unbound: a stale key. */
		w = add(z, "w3", FZ_RK_MW, 0, 1024, rr);
		w->mw_type = 1;
		w->mw_mr = mwb;
		w->mw_off = 4096;
	}
}

void fz_layout_fill(struct fz *z, int i)
{
	struct fz_region *r = &z->reg[i];
	if (!r->shadow)
		return;
	for (uint64_t k = 0; k < r->len; k++)
		r->shadow[k] = fz_pattern((unsigned)i, k);
}

int fz_region_by_rkey(const struct fz *z, uint32_t rkey)
{
	for (unsigned i = 0; i < z->n_reg; i++) {
		const struct fz_region *r = &z->reg[i];
		if (r->kind != FZ_RK_RECV && r->handle != -1 && r->rkey == rkey)
			return (int)i;
	}
	/* A deregistered region keeps its entry (handle -1) and its key. */
	for (unsigned i = 0; i < z->n_reg; i++)
		if (!z->reg[i].valid && z->reg[i].rkey == rkey && z->reg[i].rkey)
			return (int)i;
	return -1;
}

static unsigned rights_of(unsigned access)
{
	return ((access & AP_ACCESS_REMOTE_READ) ? FZ_RIGHT_READ : 0) |
	       ((access & AP_ACCESS_REMOTE_WRITE) ? FZ_RIGHT_WRITE : 0) |
	       ((access & AP_ACCESS_REMOTE_ATOMIC) ? FZ_RIGHT_ATOMIC : 0) |
	       ((access & (AP_ACCESS_FLUSH_GLOBAL | AP_ACCESS_FLUSH_PERSISTENT)) ? FZ_RIGHT_FLUSH : 0);
}

static void refuse(struct fz_reach *out, enum roce_rule rule, const char *why, const char *name)
{
	out->allowed = false;
	out->rule = rule;
	text_printf(out->why, sizeof out->why, why, name);
}

void fz_reach(const struct fz *z, const struct fz_qp *q, uint32_t rkey, uint64_t va, uint64_t len, unsigned right,
	      struct fz_reach *out)
{
	(void)q;
	memset(out, 0, sizeof *out);
	out->region = fz_region_by_rkey(z, rkey);
	out->mr = -1;
	out->rule = ROCE_RULE_NONE;
	/* C9-88: a zero-length READ or WRITE needs no valid key or address. */
	bool zero = len == 0 && !(right & (FZ_RIGHT_ATOMIC | FZ_RIGHT_FLUSH));
	const struct fz_region *r = out->region >= 0 ? &z->reg[out->region] : NULL;
	if (!r) {
		if (zero) {
			out->allowed = true;
			return;
		}
		refuse(out, ROCE_RULE_IBA_ACCESS, "the R_Key names no region%s", "");
		return;
	}
	if (zero) {
		out->allowed = true;
		return;
	}
	bool mw = r->kind == FZ_RK_MW;
	if (!r->valid) {
		refuse(out, mw ? ROCE_RULE_MW_INVALID : ROCE_RULE_IBA_ACCESS,
		       mw ? "the R_Key of window %s, invalidated" : "the R_Key of region %s, deregistered", r->name);
		return;
	}
	if (r->pd != 0) {
		refuse(out, ROCE_RULE_IBA_ACCESS, "the R_Key of region %s, of another protection domain", r->name);
		return;
	}
	if (mw && r->mw_type == 2 && r->mw_ctl) {
		refuse(out, ROCE_RULE_MW_TYPE2_QP, "the R_Key of type 2 window %s, bound by another QP", r->name);
		return;
	}
	if (va < r->addr || len > r->len || va - r->addr > r->len - len) {
		refuse(out, mw ? ROCE_RULE_MW_BOUNDS : ROCE_RULE_IBA_ACCESS,
		       mw ? "outside window %s" : "outside region %s", r->name);
		return;
	}
	if ((rights_of(r->access) & right) != right) {
		out->rights = true;
		refuse(out, mw ? ROCE_RULE_MW_BOUNDS : ROCE_RULE_IBA_ACCESS,
		       mw ? "window %s lacks the right" : "region %s lacks the right", r->name);
		return;
	}
	out->allowed = true;
	out->mr = mw ? r->mw_mr : out->region;
	out->mr_off = va - z->reg[out->mr].addr;
}
