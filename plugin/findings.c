/*
 * libroce findings as Wireshark expert infos: one expert info per code of
 * codes.def (parse errors, stateless checks and flow-analysis findings),
 * each raised with the rule ID and the message in words, next to a
 * rocev2.rule item so that `rocev2.rule == "CA17-7"` filters a rule.
 */
#include "rocev2.h"

#include <ctype.h>

static expert_field ei_code[ROCE_CODE_COUNT];
static int hf_rule = -1;
static int hf_code = -1;
static int ett_finding = -1;

static int severity(enum roce_severity s)
{
	switch (s) {
	case ROCE_SEV_ERROR: return PI_ERROR;
	case ROCE_SEV_WARN: return PI_WARN;
	case ROCE_SEV_NOTE: return PI_NOTE;
	default: return PI_CHAT;
	}
}

static int group(enum roce_code c, const struct roce_code_info *ci)
{
	if (c == ROCE_C_ICRC || c == ROCE_C_IPV4_CSUM || c == ROCE_C_UDP_CSUM)
		return PI_CHECKSUM;
	if (roce_code_is_parse_error(c))
		return ci->rule == ROCE_RULE_NONE ? PI_UNDECODED : PI_MALFORMED;
	if (roce_code_is_flow(c))
		return PI_SEQUENCE;
	return PI_PROTOCOL;
}

void rocev2_register_findings(int proto)
{
	static hf_register_info hf[] = {
		{ &hf_rule, { "Rule", ROCEV2_FILTER ".rule", FT_STRING, BASE_NONE, NULL, 0,
			      "ID of a rule this packet breaks (docs/rules.md)", HFILL } },
		{ &hf_code, { "Finding", ROCEV2_FILTER ".finding", FT_STRING, BASE_NONE, NULL, 0,
			      "libroce finding code", HFILL } },
	};
	static int *ett[] = { &ett_finding };
	proto_register_field_array(proto, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));

	ei_register_info *ei = g_new0(ei_register_info, ROCE_CODE_COUNT);
	int n = 0;
	for (int c = ROCE_OK + 1; c < ROCE_CODE_COUNT; c++) {
		if (c == ROCE_E_END_)
			continue;
		const struct roce_code_info *ci = roce_code_info((enum roce_code)c);
		const struct roce_rule_info *ri = roce_rule(ci->rule);
		char *abbrev = g_ascii_strdown(ci->name, -1);
		ei[n].ids = &ei_code[c];
		ei[n].eiinfo.name = g_strdup_printf(ROCEV2_FILTER ".%s", abbrev);
		ei[n].eiinfo.group = group((enum roce_code)c, ci);
		ei[n].eiinfo.severity = severity(ci->severity);
		ei[n].eiinfo.summary = ri ? g_strdup_printf("%s: %s", ri->id, ri->title) : ci->fmt;
		HFILL_INIT(ei[n].eiinfo.hf_info);
		g_free(abbrev);
		n++;
	}
	expert_module_t *m = expert_register_protocol(proto);
	expert_register_field_array(m, ei, n);
}

void rocev2_add_finding(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, int tvb_base,
			const struct roce_finding *f, const char *extra)
{
	const struct roce_code_info *ci = roce_code_info(f->code);
	const struct roce_rule_info *ri = roce_rule(ci->rule);
	char msg[256];
	roce_finding_message(f, msg, sizeof msg);

	/* Highlight the bytes concerned when the capture holds them. */
	int off = tvb_base + (int)f->off, len = (int)f->len;
	int have = (int)tvb_captured_length(tvb);
	if (off > have)
		off = have, len = 0;
	if (len > have - off)
		len = have - off;
	proto_item *ti = proto_tree_add_string(tree, hf_rule, tvb, off, len, ri ? ri->id : "-");
	proto_item_set_generated(ti);
	if (tree) {
		proto_tree *sub = proto_item_add_subtree(ti, ett_finding);
		proto_item *ci_item = proto_tree_add_string(sub, hf_code, tvb, off, len, ci->name);
		proto_item_set_generated(ci_item);
	}
	if (ri)
		expert_add_info_format(pinfo, ti, &ei_code[f->code], "%s: %s%s", ri->id, msg,
				       extra ? extra : "");
	else
		expert_add_info_format(pinfo, ti, &ei_code[f->code], "%s%s", msg, extra ? extra : "");
}
