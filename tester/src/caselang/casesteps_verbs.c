/*
 * The statements that judge the device at the verbs level, where the
 * annex's statements have no wire image (A17.4-A17.5): dut port (the
 * port's attributes and capability mask), dut gids (the GID table, each
 * entry by the annex's types) and dut raw_datagram_qp (whether the device
 * creates one of IBA's raw datagram QPs). Each checks or binds its results
 * after '->' and is judged as the device.
 */
#include <stdio.h>
#include <string.h>

#include "caseparse.h"
#include "text.h"

static void need_results(struct parser *ps, struct cl_step *st, struct cl_loc loc, const char *example)
{
	for (unsigned i = 0; i < st->n_args; i++)
		if (st->args[i].result)
			return;
	cl_fail_at(ps, CL_ERR_MISSING, loc, "'%s' checks what the device answers; expected results after '->', e.g. '%s'",
		cl_step_kind_name(st->kind), example);
}

/* dut raw_datagram_qp RAW_IPV6|RAW_ETHERTYPE -> created=E */
static void parse_raw_qp(struct parser *ps, struct cl_loc loc)
{
	struct cl_step *st = cl_new_step(ps, CL_DUT_RAW_QP, loc);
	char types[96];
	cl_list_words(ap_raw_qp_type_words, types, sizeof types);
	if (ps->tok.kind != CL_T_WORD)
		fail_expected(ps, "a raw datagram QP type: RAW_IPV6 or RAW_ETHERTYPE");
	/* Words match ignoring case; the agent gets the protocol's own. */
	static const struct vocab raw_types = { ap_raw_qp_type_words, ap_raw_qp_type_by_name, false };
	int type = cl_vocab_value(&raw_types, ps->tok.text);
	if (type < 0)
		cl_fail_at(ps, CL_ERR_VALUE, ps->tok.loc,
			"'%s' is not one of IBA's raw datagram QP types; expected one of %s (the Ethernet RAW_PACKET QP is another service)",
			ps->tok.text, types);
	st->verb = (char *)ap_raw_qp_type_name((enum ap_raw_qp_type)type);
	st->op = type;
	next(ps);
	cl_parse_args(ps, st, cl_args_dut_raw_qp, false, false);
	need_results(ps, st, loc, "dut raw_datagram_qp RAW_IPV6 -> created=0");
}

bool cl_parse_dut_verbs(struct parser *ps, const char *verb, struct cl_loc loc)
{
	if (!strcmp(verb, "port") || !strcmp(verb, "gids")) {
		bool port = verb[0] == 'p';
		struct cl_step *st = cl_new_step(ps, port ? CL_DUT_PORT : CL_DUT_GIDS, loc);
		cl_parse_args(ps, st, port ? cl_args_dut_port : cl_args_dut_gids, false, false);
		need_results(ps, st, loc, port ? "dut port -> link_layer=ETHERNET" : "dut gids -> untyped=0");
		return true;
	}
	if (!strcmp(verb, "raw_datagram_qp")) {
		parse_raw_qp(ps, loc);
		return true;
	}
	return false;
}
