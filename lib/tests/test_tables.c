/*
 * The tables: the opcode table against the spec's opcode table
 * (rocev2-rules.md §3.3, restated here independently), the field layouts,
 * and the rule catalogue.
 */
#include <string.h>

#include "roce/roce.h"
#include "testutil.h"

#define B(h) ROCE_XHDR_BIT(ROCE_H_##h)

static void check_opcodes(void)
{
	/* Spot checks, one or more per row kind and transport. */
	struct {
		uint8_t op;
		uint16_t hdrs;
		enum roce_op_kind kind;
		enum roce_position pos;
		bool payload;
	} rows[] = {
		{ 0x00, 0, ROCE_K_SEND, ROCE_POS_FIRST, true },
		{ 0x03, B(IMMDT), ROCE_K_SEND, ROCE_POS_LAST, true },
		{ 0x06, B(RETH), ROCE_K_WRITE, ROCE_POS_FIRST, true },
		{ 0x0B, B(RETH) | B(IMMDT), ROCE_K_WRITE, ROCE_POS_ONLY, true },
		{ 0x0C, B(RETH), ROCE_K_READ_REQ, ROCE_POS_ONLY, false },
		{ 0x0E, 0, ROCE_K_READ_RESP, ROCE_POS_MIDDLE, true },
		{ 0x10, B(AETH), ROCE_K_READ_RESP, ROCE_POS_ONLY, true },
		{ 0x11, B(AETH), ROCE_K_ACK, ROCE_POS_ONLY, false },
		{ 0x12, B(AETH) | B(ATOMICACKETH), ROCE_K_ATOMIC_ACK, ROCE_POS_ONLY, false },
		{ 0x13, B(ATOMICETH), ROCE_K_CMP_SWAP, ROCE_POS_ONLY, false },
		{ 0x14, B(ATOMICETH), ROCE_K_FETCH_ADD, ROCE_POS_ONLY, false },
		{ 0x16, B(IETH), ROCE_K_SEND, ROCE_POS_LAST, true },
		{ 0x17, B(IETH), ROCE_K_SEND, ROCE_POS_ONLY, true },
		{ 0x1C, B(FETH) | B(RETH), ROCE_K_FLUSH, ROCE_POS_ONLY, false },
		{ 0x1D, B(RETH), ROCE_K_ATOMIC_WRITE, ROCE_POS_ONLY, true },
		{ 0x2B, B(RETH) | B(IMMDT), ROCE_K_WRITE, ROCE_POS_ONLY, true },
		{ 0x44, B(RDETH) | B(DETH), ROCE_K_SEND, ROCE_POS_ONLY, true },
		{ 0x4C, B(RDETH) | B(DETH) | B(RETH), ROCE_K_READ_REQ, ROCE_POS_ONLY, false },
		{ 0x4D, B(RDETH) | B(AETH), ROCE_K_READ_RESP, ROCE_POS_FIRST, true },
		{ 0x55, B(RDETH) | B(DETH), ROCE_K_RESYNC, ROCE_POS_ONLY, false },
		{ 0x64, B(DETH), ROCE_K_SEND, ROCE_POS_ONLY, true },
		{ 0x65, B(DETH) | B(IMMDT), ROCE_K_SEND, ROCE_POS_ONLY, true },
		{ 0x81, B(CNPPAD), ROCE_K_CNP, ROCE_POS_ONLY, false },
		{ 0xA4, B(XRCETH), ROCE_K_SEND, ROCE_POS_ONLY, true },
		{ 0xAA, B(XRCETH) | B(RETH), ROCE_K_WRITE, ROCE_POS_ONLY, true },
		{ 0xAD, B(AETH), ROCE_K_READ_RESP, ROCE_POS_FIRST, true },
		{ 0xB1, B(AETH), ROCE_K_ACK, ROCE_POS_ONLY, false },
		{ 0xB3, B(XRCETH) | B(ATOMICETH), ROCE_K_CMP_SWAP, ROCE_POS_ONLY, false },
		{ 0xB7, B(XRCETH) | B(IETH), ROCE_K_SEND, ROCE_POS_ONLY, true },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const struct roce_opcode_info *o = roce_opcode(rows[i].op);
		CHECK(o->name, "0x%02x undefined", rows[i].op);
		if (!o->name)
			continue;
		CHECK(o->xhdrs == rows[i].hdrs, "0x%02x headers %#x", rows[i].op, o->xhdrs);
		CHECK(o->kind == rows[i].kind && o->position == rows[i].pos, "0x%02x kind/position", rows[i].op);
		CHECK(!!(o->flags & ROCE_OPF_PAYLOAD) == rows[i].payload, "0x%02x payload flag", rows[i].op);
		CHECK(o->xhdr_len == roce_xhdr_set_len(o->xhdrs), "0x%02x header length", rows[i].op);
	}
	/* FLUSH: FETH comes before RETH on the wire. */
	CHECK(roce_xhdr_offset(roce_opcode(0x1C)->xhdrs, ROCE_H_FETH) == 0 &&
	      roce_xhdr_offset(roce_opcode(0x1C)->xhdrs, ROCE_H_RETH) == 4, "FLUSH header order");
	CHECK(roce_xhdr_offset(roce_opcode(0x0B)->xhdrs, ROCE_H_IMMDT) == 16, "RETH before ImmDt");

	/* Defined opcodes per transport, and the transport bits. */
	unsigned count[8] = { 0 };
	for (unsigned op = 0; op < 256; op++) {
		const struct roce_opcode_info *o = roce_opcode((uint8_t)op);
		if (!o->name)
			continue;
		count[op >> 5]++;
		CHECK(o->transport == roce_opcode_transport((uint8_t)op), "0x%02x transport", op);
		CHECK(!strncmp(o->name, roce_transport_name(o->transport), strlen(roce_transport_name(o->transport))),
		      "0x%02x name '%s'", op, o->name);
		CHECK(!!(o->flags & ROCE_OPF_REQUEST) + !!(o->flags & ROCE_OPF_RESPONSE) <= 1,
		      "0x%02x both request and response", op);
		CHECK(o->xhdr_len == roce_xhdr_set_len(o->xhdrs), "0x%02x header length", op);
	}
	CHECK(count[ROCE_T_RC] == 25, "RC has %u opcodes", count[ROCE_T_RC]);
	CHECK(count[ROCE_T_UC] == 12, "UC has %u opcodes", count[ROCE_T_UC]);
	CHECK(count[ROCE_T_RD] == 23, "RD has %u opcodes", count[ROCE_T_RD]);
	CHECK(count[ROCE_T_UD] == 2, "UD has %u opcodes", count[ROCE_T_UD]);
	CHECK(count[ROCE_T_CNP] == 1, "CNP has %u opcodes", count[ROCE_T_CNP]);
	CHECK(count[ROCE_T_XRC] == 23, "XRC has %u opcodes", count[ROCE_T_XRC]);
	CHECK(count[6] == 0 && count[7] == 0, "reserved/vendor opcodes defined");
}

static void check_fields(void)
{
	uint8_t buf[64];
	for (unsigned h = 0; h < ROCE_H_COUNT; h++) {
		const struct roce_hdr_info *hi = roce_hdr_info((enum roce_hdr)h);
		enum roce_field first;
		unsigned count;
		roce_hdr_fields((enum roce_hdr)h, &first, &count);
		CHECK(count > 0, "%s has no fields", hi->abbrev);
		/* The run holds every field of the header, whatever the order. */
		unsigned all = 0;
		for (unsigned f = 0; f < ROCE_F_COUNT; f++)
			all += roce_field_info((enum roce_field)f)->hdr == (enum roce_hdr)h;
		CHECK(all == count, "%s has %u fields, its run %u", hi->abbrev, all, count);
		/* Non-view fields tile the header without overlap. */
		uint8_t covered[64] = { 0 };
		for (unsigned f = first; f < first + count; f++) {
			const struct roce_field_info *fi = roce_field_info((enum roce_field)f);
			CHECK(fi->hdr == (enum roce_hdr)h, "field %s in the wrong header", fi->abbrev);
			CHECK(fi->offset + fi->width <= hi->size, "%s.%s outside its header", hi->abbrev, fi->abbrev);
			char name[64];
			snprintf(name, sizeof name, "%s.%s", hi->abbrev, fi->abbrev);
			CHECK(roce_field_by_name(name) == (enum roce_field)f, "lookup of %s", name);
			if (fi->flags & ROCE_FF_VIEW)
				continue;
			for (unsigned b = 0; b < fi->width; b++) {
				uint8_t bits = fi->mask ? (uint8_t)(fi->mask >> (8 * (fi->width - 1 - b))) : 0xFF;
				CHECK(!(covered[fi->offset + b] & bits), "%s overlaps another field", name);
				covered[fi->offset + b] |= bits;
			}
			/* Generic set/get round-trips the full mask. */
			if (fi->mask) {
				memset(buf, 0, sizeof buf);
				roce_field_set(buf, (enum roce_field)f, ~0ull);
				CHECK(roce_field_get(buf, (enum roce_field)f) == fi->mask >> fi->shift, "%s max", name);
			}
		}
		for (unsigned b = 0; b < hi->size; b++)
			CHECK(covered[b] == 0xFF, "%s byte %u not fully described (%#x)", hi->abbrev, b, covered[b]);
	}
	CHECK(roce_field_by_name("bth.nosuch") == ROCE_F_COUNT && roce_field_by_name("psn") == ROCE_F_COUNT,
	      "bad names must not resolve");
	/* Generated accessors agree with the descriptor. */
	memset(buf, 0, sizeof buf);
	roce_bth_set_psn(buf, 0xABCDEF);
	roce_bth_set_padcnt(buf, 2);
	CHECK(roce_field_get(buf, ROCE_F_BTH_psn) == 0xABCDEF && buf[9] == 0xAB && buf[11] == 0xEF, "psn");
	CHECK(buf[1] == 0x20 && roce_bth_padcnt(buf) == 2, "padcnt");
}

static void check_rules(void)
{
	for (unsigned r = ROCE_RULE_NONE + 1; r < ROCE_RULE_COUNT; r++) {
		const struct roce_rule_info *ri = roce_rule((enum roce_rule)r);
		CHECK(ri->id && ri->title && ri->spec_ref && ri->title[0], "rule %u incomplete", r);
		CHECK(roce_rule_by_id(ri->id) == (enum roce_rule)r, "%s: ID not unique", ri->id);
		CHECK((ri->scope == ROCE_SCOPE_NONE) == (ri->not_wire_reason != NULL),
		      "%s: a reason exactly when not on the wire", ri->id);
		/* Every rule binds someone; a rule with no wire image binds the
		 * device as a whole, and a device rule has no packet image: it
		 * is off the wire, or seen through the verbs (DUT scope alone:
		 * an asynchronous event the tester reads from the agent). */
		CHECK(ri->binds && !(ri->binds & ~ROCE_ROLE_ALL), "%s: binds no role", ri->id);
		CHECK(ri->scope != ROCE_SCOPE_NONE || ri->binds == ROCE_ROLE_DEVICE, "%s: off the wire but not the device's",
		      ri->id);
		CHECK(!(ri->binds & ROCE_ROLE_DEVICE) || ri->scope == ROCE_SCOPE_NONE || ri->scope == ROCE_SCOPE_DUT,
		      "%s: the device's but in packets", ri->id);
		/* A rule of the CM scope binds a CM, and only those do. */
		CHECK(!(ri->scope & ROCE_SCOPE_CM) == !(ri->binds & ROCE_ROLE_CM), "%s: CM scope and CM role", ri->id);
		/* The spec's word and what a capture shows agree: an error is a
		 * must, a note a should, informative a may; a warning is a
		 * should, or a reserved field (a must every receiver ignores). */
		switch (ri->severity) {
		case ROCE_SEV_ERROR: CHECK(ri->strength == ROCE_MUST, "%s: an error that is not a must", ri->id); break;
		case ROCE_SEV_WARN:
			CHECK(ri->strength == ROCE_SHOULD || strstr(ri->title, "eserved"), "%s: a warning must be a should or a reserved field", ri->id);
			break;
		case ROCE_SEV_NOTE: CHECK(ri->strength == ROCE_SHOULD, "%s: a note that is not a should", ri->id); break;
		case ROCE_SEV_INFO: CHECK(ri->strength == ROCE_MAY, "%s: informative but not a may", ri->id); break;
		}
		CHECK(roce_rule_binds(ri, ri->binds) == (ri->strength == ROCE_MUST), "%s: binds its own roles", ri->id);
		CHECK(!roce_rule_binds(ri, ROCE_ROLE_ALL & ~ri->binds), "%s: binds roles it does not name", ri->id);
	}
	char roles[128];
	CHECK(!strcmp(roce_roles_format(ROCE_ROLE_SENDER | ROCE_ROLE_RESPONDER, roles, sizeof roles), "sender, responder"),
	      "roles text: %s", roles);
	CHECK(!strcmp(roce_roles_format(0, roles, sizeof roles), "none"), "no role");
	CHECK(roce_role_by_name("Requester") == ROCE_ROLE_REQUESTER && roce_role_by_name("cm") == ROCE_ROLE_CM &&
	      roce_role_by_name("router") == 0, "role names");
	CHECK(!strcmp(roce_strength_name(ROCE_SHOULD), "should"), "strength names");
	/* All 46 annex statements are catalogued. */
	for (int n = 1; n <= 46; n++) {
		char id[16];
		snprintf(id, sizeof id, "CA17-%d", n);
		CHECK(roce_rule_by_id(id) != ROCE_RULE_NONE, "%s missing", id);
	}
	CHECK(roce_rule(ROCE_RULE_NONE) == NULL && roce_rule_by_id("CA17-99") == ROCE_RULE_NONE, "unknown rules");
	for (unsigned c = ROCE_OK + 1; c < ROCE_CODE_COUNT; c++) {
		if (c == ROCE_E_END_)
			continue;
		const struct roce_code_info *ci = roce_code_info((enum roce_code)c);
		CHECK(ci->rule != ROCE_RULE_NONE || c == ROCE_E_CAPTURE_CUT, "%s has no rule", ci->name);
		/* A packet check judges the packet's sender (as such, or as
		 * the requester, responder or CM that sent it): a finding on a
		 * device's packet is that device's to answer for, never a rule
		 * that binds only what a receiver does. */
		if (ci->rule != ROCE_RULE_NONE)
			CHECK(roce_rule(ci->rule)->binds &
				      (ROCE_ROLE_SENDER | ROCE_ROLE_REQUESTER | ROCE_ROLE_RESPONDER | ROCE_ROLE_CM),
			      "%s: its rule %s does not bind the packet's sender", ci->name, roce_rule(ci->rule)->id);
		CHECK(roce_code_is_parse_error((enum roce_code)c) == (ci->name[0] == 'E'), "%s class", ci->name);
	}
}

int main(void)
{
	check_opcodes();
	check_fields();
	check_rules();
	return test_result("test_tables");
}
