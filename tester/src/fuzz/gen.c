/*
 * Requests mutated from valid ones. A step starts as a correct request of
 * its QP's transport (SEND, WRITE, READ, the atomics, ATOMIC WRITE, FLUSH,
 * with and without immediate data or invalidation, in one packet or
 * segmented by the path MTU), aimed at a region it may reach; then one to
 * three mutations: the opcode (another of the transport, another
 * transport's, a reserved or vendor one), the payload and DMA lengths (0,
 * 1, PMTU - 1, PMTU, PMTU + 1, 2^31 - 1, 2^31, 2^31 + 1 ...), the virtual
 * address (at, inside and past the bounds), the R_Key (valid, stale,
 * another QP's, another protection domain's, a region without the right),
 * the PSN around the expected one, the pad count, any field of the BTH and
 * the extended headers, an IP or UDP field, the ICRC, the frame's end.
 * A program strings a few steps together, sometimes a duplicate of the one
 * before. Every choice comes from the generator's stream, so the same
 * seed makes the same steps.
 */
#include "fz.h"

#include <string.h>

static int reg_named(const struct fz *z, const char *name)
{
	for (unsigned i = 0; i < z->n_reg; i++)
		if (!strcmp(z->reg[i].name, name) && z->reg[i].rkey)
			return (int)i;
	return -1;
}

/* A region the key of a correct request of this kind may name. */
static int target(const struct fz *z, struct fz_rng *r, unsigned right)
{
	const char *write[] = { "rw", "wo", "w1" }, *read[] = { "rw", "ro", "w1" };
	const char *const *names = right == FZ_RIGHT_WRITE ? write : read;
	if (right == FZ_RIGHT_ATOMIC || right == FZ_RIGHT_FLUSH)
		return reg_named(z, "rw");
	for (int tries = 0; tries < 6; tries++) {
		int i = reg_named(z, names[fz_below(r, 3)]);
		if (i >= 0 && z->reg[i].valid)
			return i;
	}
	return reg_named(z, "rw");
}

static void set(struct fz_pkt *k, enum roce_field f, enum fz_val kind, int region, uint64_t v)
{
	const struct fz_set *old;
	if (fz_pkt_field(k, f, &old)) {
		struct fz_set *s = (struct fz_set *)old;
		s->kind = (uint8_t)kind;
		s->region = (int8_t)region;
		s->v = v;
		return;
	}
	if (k->nset == FZ_MAX_SETS)
		return;
	k->set[k->nset++] = (struct fz_set){ (uint16_t)f, (uint8_t)kind, (int8_t)region, v };
}

static uint8_t opcode_of(const struct fz_qp *q, enum roce_op_kind kind, enum roce_position pos, unsigned flags)
{
	int op = roce_opcode_find(q->t, kind, pos, ROCE_OPF_IMM | ROCE_OPF_INV, flags);
	if (op < 0)
		op = roce_opcode_find(q->t, kind, pos, 0, 0);
	return (uint8_t)(op < 0 ? 0 : op);
}

/* A length a correct request of the region may have. */
static uint32_t pick_len(struct fz_rng *r, const struct fz_qp *q, uint64_t room, unsigned max_pkts)
{
	uint64_t cap = (uint64_t)q->pmtu * max_pkts;
	if (cap > room)
		cap = room;
	uint32_t choices[] = { 0, 1, 7, 8, 64, q->pmtu - 1, q->pmtu, q->pmtu + 1, 2 * q->pmtu + 3 };
	uint32_t len = fz_chance(r, 1, 2) ? choices[fz_below(r, 9)] : fz_below(r, (uint32_t)cap + 1);
	return len > cap ? (uint32_t)cap : len;
}

/* The extended headers a packet's opcode carries, filled as a correct
 * request would fill them (used when a mutation changed the opcode). */
static void fill_headers(const struct fz *z, struct fz_qp *q, struct fz_rng *r, struct fz_pkt *k, uint32_t serial)
{
	const struct roce_opcode_info *oi = roce_opcode(k->opcode);
	if (!oi->name)
		return;
	int rw = reg_named(z, "rw");
	if ((oi->xhdrs & ROCE_XHDR_BIT(ROCE_H_RETH)) && !fz_pkt_field(k, ROCE_F_RETH_rkey, NULL)) {
		set(k, ROCE_F_RETH_va, FZ_V_ADDR, rw, fz_below(r, 64) * 8);
		set(k, ROCE_F_RETH_rkey, FZ_V_RKEY, rw, 0);
		set(k, ROCE_F_RETH_dmalen, FZ_V_LIT, -1, oi->kind == ROCE_K_ATOMIC_WRITE ? 8 : k->len);
	}
	if ((oi->xhdrs & ROCE_XHDR_BIT(ROCE_H_ATOMICETH)) && !fz_pkt_field(k, ROCE_F_ATOMICETH_rkey, NULL)) {
		set(k, ROCE_F_ATOMICETH_va, FZ_V_ADDR, rw, fz_below(r, 64) * 8);
		set(k, ROCE_F_ATOMICETH_rkey, FZ_V_RKEY, rw, 0);
		set(k, ROCE_F_ATOMICETH_swapdt, FZ_V_LIT, -1, fz_rng_next(r));
		set(k, ROCE_F_ATOMICETH_cmpdt, FZ_V_LIT, -1, fz_rng_next(r));
	}
	if ((oi->xhdrs & ROCE_XHDR_BIT(ROCE_H_IMMDT)) && !fz_pkt_field(k, ROCE_F_IMMDT_imm, NULL))
		set(k, ROCE_F_IMMDT_imm, FZ_V_LIT, -1, serial);
	if ((oi->xhdrs & ROCE_XHDR_BIT(ROCE_H_IETH)) && !fz_pkt_field(k, ROCE_F_IETH_rkey, NULL)) {
		/* Invalidating what the others use would change the model: a
		 * type 1 window (which a conforming DUT refuses to invalidate)
		 * or a key that names nothing. */
		int w1 = reg_named(z, "w1");
		if (w1 >= 0 && fz_chance(r, 1, 2))
			set(k, ROCE_F_IETH_rkey, FZ_V_RKEY, w1, 0);
		else
			set(k, ROCE_F_IETH_rkey, FZ_V_LIT, -1, 0xDEAD0000u | fz_below(r, 0x10000));
	}
	if ((oi->xhdrs & ROCE_XHDR_BIT(ROCE_H_FETH)) && !fz_pkt_field(k, ROCE_F_FETH_plt, NULL)) {
		set(k, ROCE_F_FETH_plt, FZ_V_LIT, -1, 1);
		set(k, ROCE_F_FETH_sel, FZ_V_LIT, -1, 0);
	}
	(void)q;
}

enum intent { I_SEND, I_SEND_IMM, I_SEND_INV, I_WRITE, I_WRITE_IMM, I_READ, I_CMP_SWAP, I_FETCH_ADD, I_ATOMIC_WRITE,
	      I_FLUSH, I_COUNT };

static enum intent pick_intent(const struct fz *z, const struct fz_qp *q, struct fz_rng *r)
{
	static const unsigned rc_w[I_COUNT] = { 14, 5, 3, 20, 5, 25, 5, 5, 6, 4 };
	static const unsigned uc_w[I_COUNT] = { 35, 15, 0, 35, 15, 0, 0, 0, 0, 0 };
	static const unsigned ud_w[I_COUNT] = { 60, 40, 0, 0, 0, 0, 0, 0, 0, 0 };
	const unsigned *w = q->kind == FZ_Q_UC ? uc_w : q->kind == FZ_Q_UD ? ud_w : rc_w;
	unsigned total = 0;
	for (int i = 0; i < I_COUNT; i++)
		total += w[i];
	uint32_t x = fz_below(r, total);
	for (int i = 0; i < I_COUNT; i++) {
		if (x < w[i])
			return (enum intent)i;
		x -= w[i];
	}
	(void)z;
	return I_SEND;
}

/* A correct request of the QP's transport. */
static void valid_step(struct fz *z, struct fz_qp *q, struct fz_rng *r, struct fz_step *s)
{
	enum intent in = pick_intent(z, q, r);
	s->npkt = 1;
	struct fz_pkt *k = &s->pkt[0];
	k->fill = (uint32_t)fz_rng_next(r);
	switch (in) {
	case I_SEND:
	case I_SEND_IMM:
	case I_SEND_INV:
	case I_WRITE:
	case I_WRITE_IMM: {
		bool send = in <= I_SEND_INV;
		bool ud = q->kind == FZ_Q_UD;
		int reg = send ? -1 : target(z, r, FZ_RIGHT_WRITE);
		uint64_t off = 0, room = ud ? q->pmtu : (uint64_t)q->pmtu * FZ_MAX_PKTS;
		if (reg >= 0) {
			off = fz_below(r, (uint32_t)z->reg[reg].len);
			room = z->reg[reg].len - off;
		}
		uint32_t len = pick_len(r, q, room, ud ? 1 : FZ_MAX_PKTS);
		uint32_t n = ud ? 1 : roce_packets_for(len, q->pmtu);
		unsigned flags = in == I_SEND_IMM || in == I_WRITE_IMM ? ROCE_OPF_IMM : in == I_SEND_INV ? ROCE_OPF_INV : 0;
		s->npkt = (uint8_t)n;
		for (uint32_t i = 0; i < n; i++) {
			struct fz_pkt *p = &s->pkt[i];
			enum roce_position pos = roce_position_of(i, n);
			bool last = pos == ROCE_POS_LAST || pos == ROCE_POS_ONLY;
			p->opcode = opcode_of(q, send ? ROCE_K_SEND : ROCE_K_WRITE, pos, last ? flags : 0);
			p->psn = (int32_t)i;
			p->len = last ? len - i * q->pmtu : q->pmtu;
			p->fill = k->fill + i;
			p->nset = 0;
			if (!send && i == 0) {
				set(p, ROCE_F_RETH_va, FZ_V_ADDR, reg, off);
				set(p, ROCE_F_RETH_rkey, FZ_V_RKEY, reg, 0);
				set(p, ROCE_F_RETH_dmalen, FZ_V_LIT, -1, len);
			}
			fill_headers(z, q, r, p, s->serial);
		}
		return;
	}
	case I_READ: {
		int reg = target(z, r, FZ_RIGHT_READ);
		uint64_t off = fz_below(r, (uint32_t)z->reg[reg].len);
		uint32_t len = pick_len(r, q, z->reg[reg].len - off, 8);
		k->opcode = opcode_of(q, ROCE_K_READ_REQ, ROCE_POS_ONLY, 0);
		set(k, ROCE_F_RETH_va, FZ_V_ADDR, reg, off);
		set(k, ROCE_F_RETH_rkey, FZ_V_RKEY, reg, 0);
		set(k, ROCE_F_RETH_dmalen, FZ_V_LIT, -1, len);
		return;
	}
	case I_CMP_SWAP:
	case I_FETCH_ADD:
		k->opcode = opcode_of(q, in == I_CMP_SWAP ? ROCE_K_CMP_SWAP : ROCE_K_FETCH_ADD, ROCE_POS_ONLY, 0);
		fill_headers(z, q, r, k, s->serial);
		return;
	case I_ATOMIC_WRITE:
	case I_FLUSH: {
		int reg = target(z, r, in == I_FLUSH ? FZ_RIGHT_FLUSH : FZ_RIGHT_WRITE);
		k->opcode = opcode_of(q, in == I_FLUSH ? ROCE_K_FLUSH : ROCE_K_ATOMIC_WRITE, ROCE_POS_ONLY, 0);
		k->len = in == I_FLUSH ? 0 : 8;
		set(k, ROCE_F_RETH_va, FZ_V_ADDR, reg, fz_below(r, (uint32_t)z->reg[reg].len / 8) * 8);
		set(k, ROCE_F_RETH_rkey, FZ_V_RKEY, reg, 0);
		set(k, ROCE_F_RETH_dmalen, FZ_V_LIT, -1, in == I_FLUSH ? 64 : 8);
		fill_headers(z, q, r, k, s->serial);
		return;
	}
	default:
		return;
	}
}

/* ---- Mutations ---- */

static unsigned pick_pkt(const struct fz_step *s, struct fz_rng *r)
{
	/* Mostly the last packet: the one with AckReq, the one judged. */
	return fz_chance(r, 3, 4) ? s->npkt - 1u : fz_below(r, s->npkt);
}

static void mu_opcode(struct fz *z, struct fz_qp *q, struct fz_rng *r, struct fz_pkt *k, uint32_t serial)
{
	uint8_t op = k->opcode;
	switch (fz_below(r, 6)) {
	case 0: /* another opcode of the transport, defined or not */
		op = (uint8_t)((unsigned)q->t << 5 | fz_below(r, 32));
		break;
	case 1: { /* the same operation on another transport */
		static const enum roce_transport ts[] = { ROCE_T_RC, ROCE_T_UC, ROCE_T_RD, ROCE_T_UD, ROCE_T_XRC };
		op = roce_opcode_with_transport(op, ts[fz_below(r, 5)]);
		break;
	}
	case 2: /* reserved transports and the manufacturer's range */
		op = (uint8_t)(0xC0 | fz_below(r, 64));
		break;
	case 3:
		op = ROCE_OP_CNP;
		break;
	default: { /* a defined request opcode of the transport */
		for (int tries = 0; tries < 16; tries++) {
			uint8_t c = (uint8_t)((unsigned)q->t << 5 | fz_below(r, 32));
			const struct roce_opcode_info *oi = roce_opcode(c);
			if (oi->name && (oi->flags & ROCE_OPF_REQUEST)) {
				op = c;
				break;
			}
		}
		break;
	}
	}
	k->opcode = op;
	k->mut |= FZ_M_OPCODE;
	fill_headers(z, q, r, k, serial);
}

static void mu_len(struct fz *z, struct fz_qp *q, struct fz_rng *r, struct fz_pkt *k)
{
	uint32_t max = z->port_mtu + 256;
	uint32_t c[] = { 0, 1, 2, 3, 4, 8, q->pmtu - 1, q->pmtu, q->pmtu + 1, q->pmtu + 4, max };
	k->len = fz_chance(r, 3, 4) ? c[fz_below(r, 11)] : fz_below(r, max + 1);
	if (k->len > max)
		k->len = max;
	k->mut |= FZ_M_LEN;
}

static void mu_dmalen(struct fz_qp *q, struct fz_rng *r, struct fz_pkt *k)
{
	uint64_t c[] = { 0, 1, 7, 9, q->pmtu - 1, q->pmtu, q->pmtu + 1, k->len + 1, k->len ? k->len - 1 : 0,
			 FZ_REGION_LEN, FZ_REGION_LEN + 1, 0x7FFFFFFF, 0x80000000u, 0x80000001u, 0xFFFFFFFFu };
	uint64_t v = fz_chance(r, 5, 6) ? c[fz_below(r, 15)] : (uint64_t)(uint32_t)fz_rng_next(r);
	set(k, ROCE_F_RETH_dmalen, FZ_V_LIT, -1, v);
	k->mut |= FZ_M_DMALEN;
}

/* The payload and the DMA length changed together, so that they agree
 * with each other but not with the opcode (an ATOMIC WRITE of other than
 * 8 bytes: a responder that checks only their agreement executes it). */
static void mu_lengths(struct fz_qp *q, struct fz_rng *r, struct fz_pkt *k)
{
	uint32_t c[] = { 0, 1, 4, 7, 9, 16, q->pmtu + 1 };
	k->len = c[fz_below(r, 7)];
	set(k, ROCE_F_RETH_dmalen, FZ_V_LIT, -1, k->len);
	k->mut |= FZ_M_LEN | FZ_M_DMALEN;
}

static void mu_va(const struct fz *z, struct fz_rng *r, struct fz_pkt *k)
{
	bool atomic = fz_pkt_field(k, ROCE_F_ATOMICETH_va, NULL);
	enum roce_field f = atomic ? ROCE_F_ATOMICETH_va : ROCE_F_RETH_va;
	const struct fz_set *cur;
	int reg = fz_pkt_field(k, f, &cur) && cur->kind == FZ_V_ADDR ? cur->region : reg_named(z, "rw");
	uint64_t len = reg >= 0 ? z->reg[reg].len : FZ_REGION_LEN;
	const struct fz_set *dl;
	uint64_t dmalen = fz_pkt_field(k, ROCE_F_RETH_dmalen, &dl) ? dl->v : 8;
	switch (fz_below(r, 10)) {
	case 0: set(k, f, FZ_V_ADDR, reg, (uint64_t)-1); break;                 /* one byte before */
	case 1: set(k, f, FZ_V_ADDR, reg, len - 1); break;                      /* the last byte */
	case 2: set(k, f, FZ_V_ADDR, reg, len); break;                          /* just past the end */
	case 3: set(k, f, FZ_V_ADDR, reg, len - (dmalen ? dmalen : 1) + 1); break; /* its end one past */
	case 4: set(k, f, FZ_V_ADDR, reg, len - 64); break;
	case 5: set(k, f, FZ_V_ADDR, reg, (uint64_t)-4096); break;
	case 6: set(k, f, FZ_V_ADDR, reg, fz_below(r, (uint32_t)len)); break;
	case 7: set(k, f, FZ_V_LIT, -1, fz_chance(r, 1, 2) ? 0 : UINT64_MAX - fz_below(r, 16)); break;
	case 8: set(k, f, FZ_V_ADDR, reg, 0x8000000000000000ull); break;
	default: set(k, f, FZ_V_ADDR, reg, fz_below(r, (uint32_t)len / 8) * 8 + 1 + fz_below(r, 7)); break; /* unaligned */
	}
	k->mut |= FZ_M_VA;
}

static void mu_rkey(const struct fz *z, struct fz_rng *r, struct fz_pkt *k)
{
	bool atomic = fz_pkt_field(k, ROCE_F_ATOMICETH_rkey, NULL);
	bool ieth = !atomic && !fz_pkt_field(k, ROCE_F_RETH_rkey, NULL) && fz_pkt_field(k, ROCE_F_IETH_rkey, NULL);
	enum roce_field f = atomic ? ROCE_F_ATOMICETH_rkey : ieth ? ROCE_F_IETH_rkey : ROCE_F_RETH_rkey;
	enum roce_field va = atomic ? ROCE_F_ATOMICETH_va : ROCE_F_RETH_va;
	static const char *const keys[] = { "rw", "ro", "wo", "w1", "w2", "w3", "g0", "g1", "other", "stale", "mwb" };
	switch (fz_below(r, 4)) {
	case 0: {
		const struct fz_set *cur;
		int reg = fz_pkt_field(k, f, &cur) ? cur->region : reg_named(z, "rw");
		static const uint64_t flips[] = { 1, 0x80, 0x100, 0x80000000u, 0xFFFFFFFFu };
		set(k, f, FZ_V_RKEY, reg, flips[fz_below(r, 5)]);
		break;
	}
	case 1:
		set(k, f, FZ_V_LIT, -1, (uint32_t)fz_rng_next(r));
		break;
	default: {
		int reg = reg_named(z, keys[fz_below(r, 11)]);
		if (reg < 0)
			reg = reg_named(z, "other");
		set(k, f, FZ_V_RKEY, reg, 0);
		/* Sometimes aimed inside the key's region, so that only its
		 * rights, domain or validity are wrong. */
		const struct fz_set *cur;
		if (!ieth && fz_chance(r, 2, 3) && fz_pkt_field(k, va, &cur) && cur->kind == FZ_V_ADDR)
			set(k, va, FZ_V_ADDR, reg, cur->v % z->reg[reg].len);
	}
	}
	k->mut |= FZ_M_RKEY;
}

static void mu_psn(struct fz_rng *r, struct fz_pkt *k)
{
	static const int32_t d[] = { -1, -2, 1, 2, 3, -0x400000, 0x7FFFFF, 0x800000, -0x800000 };
	k->psn += fz_chance(r, 7, 8) ? d[fz_below(r, 9)] : (int32_t)fz_below(r, 1u << 24);
	k->mut |= FZ_M_PSN;
}

/* Any field of the BTH or an extended header, or (sometimes) of IP and UDP. */
static void mu_field(struct fz *z, struct fz_qp *q, struct fz_rng *r, struct fz_pkt *k, bool ip)
{
	const struct roce_opcode_info *oi = roce_opcode(k->opcode);
	enum roce_hdr hdrs[ROCE_H_COUNT];
	unsigned nh = 0;
	if (ip) {
		hdrs[nh++] = z->o->ip_version == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4;
		hdrs[nh++] = ROCE_H_UDP;
	} else {
		hdrs[nh++] = ROCE_H_BTH;
		for (unsigned h = ROCE_H_FIRST_XHDR; h < ROCE_H_COUNT; h++)
			if (oi->xhdrs & ROCE_XHDR_BIT(h))
				hdrs[nh++] = (enum roce_hdr)h;
	}
	enum roce_hdr h = hdrs[fz_below(r, nh)];
	enum roce_field first;
	unsigned count;
	roce_hdr_fields(h, &first, &count);
	if (!count)
		return;
	enum roce_field f = (enum roce_field)(first + fz_below(r, count));
	const struct roce_field_info *fi = roce_field_info(f);
	if (!fi || !fi->mask || (fi->flags & ROCE_FF_VIEW))
		return;
	uint64_t max = fi->mask >> fi->shift;
	if (f == ROCE_F_BTH_psn) {
		mu_psn(r, k);
		return;
	}
	if (f == ROCE_F_BTH_destqp) {
		/* Never another QP of ours: 0, QP1, the multicast QPN, or a
		 * number none of ours has. */
		static const uint64_t d[] = { 0, 1, 0xFFFFFF };
		set(k, f, FZ_V_LIT, -1, fz_chance(r, 3, 4) ? d[fz_below(r, 3)] : (q->dut_qpn ^ 0x800000u) & 0xFFFFFF);
	} else if (f == ROCE_F_DETH_qkey) {
		set(k, f, FZ_V_QKEY, -1, fz_chance(r, 1, 2) ? 0x80000000u : (uint32_t)fz_rng_next(r) | 1);
	} else if (f == ROCE_F_DETH_srcqp) {
		set(k, f, FZ_V_TQPN, -1, fz_below(r, 3) + 1);
	} else if (f == ROCE_F_XRCETH_srqn) {
		set(k, f, FZ_V_SRQN, -1, fz_below(r, 3) + 1);
	} else {
		uint64_t c[] = { 0, 1, max, max - 1, fz_rng_next(r) & max, (1ull << fz_below(r, 64)) & max };
		set(k, f, FZ_V_LIT, -1, c[fz_below(r, 6)]);
	}
	k->mut |= FZ_M_FIELD;
}

static void mutate(struct fz *z, struct fz_qp *q, struct fz_rng *r, struct fz_step *s)
{
	unsigned n = fz_chance(r, 7, 10) ? 1 : fz_chance(r, 5, 6) ? 2 : 3;
	for (unsigned m = 0; m < n; m++) {
		struct fz_pkt *k = &s->pkt[pick_pkt(s, r)];
		switch (fz_below(r, 15)) {
		case 0: mu_opcode(z, q, r, k, s->serial); break;
		case 1:
		case 2: mu_len(z, q, r, k); break;
		case 3:
		case 4:
			if (fz_pkt_field(k, ROCE_F_RETH_dmalen, NULL) && fz_chance(r, 1, 2))
				mu_lengths(q, r, k);
			else
				mu_dmalen(q, r, k);
			break;
		case 5: mu_va(z, r, k); break;
		case 6:
		case 7: mu_rkey(z, r, k); break;
		case 8: mu_psn(r, k); break;
		case 9:
			set(k, ROCE_F_BTH_padcnt, FZ_V_LIT, -1, fz_below(r, 4));
			k->mut |= FZ_M_PAD;
			break;
		case 10:
		case 11: mu_field(z, q, r, k, false); break;
		case 12:
			k->icrc = fz_chance(r, 3, 4) ? FZ_ICRC_BAD : FZ_ICRC_ZERO;
			k->mut |= FZ_M_ICRC;
			break;
		case 13:
			if (fz_chance(r, 1, 2)) {
				k->cut = (uint16_t)(fz_chance(r, 1, 2) ? 1 + fz_below(r, 4) : 5 + fz_below(r, 60));
				k->mut |= FZ_M_CUT;
			} else {
				mu_field(z, q, r, k, true);
			}
			break;
		default:
			set(k, ROCE_F_BTH_ackreq, FZ_V_LIT, -1, fz_below(r, 2));
			k->mut |= FZ_M_ACKREQ;
			break;
		}
	}
}

unsigned fz_gen_program(struct fz *z, struct fz_qp *q, struct fz_rng *r, struct fz_step *out, unsigned max)
{
	unsigned n = 1 + fz_below(r, 3);
	if (n > max)
		n = max;
	for (unsigned i = 0; i < n; i++) {
		struct fz_step *s = &out[i];
		if (i && fz_chance(r, 1, 6)) {
			/* The step before again, as a duplicate: each PSN moved
			 * back by the PSNs it took. */
			*s = out[i - 1];
			s->serial = ++z->serial;
			int32_t back = 0;
			for (unsigned j = 0; j < s->npkt; j++)
				back += (int32_t)fz_pkt_span(z, q, &s->pkt[j]);
			for (unsigned j = 0; j < s->npkt; j++)
				s->pkt[j].psn -= back;
			continue;
		}
		memset(s, 0, sizeof *s);
		s->serial = ++z->serial;
		valid_step(z, q, r, s);
		if (!fz_chance(r, 1, 6))
			mutate(z, q, r, s);
	}
	return n;
}
