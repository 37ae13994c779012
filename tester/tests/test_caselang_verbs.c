/*
 * The case language's verbs-level statements (dut port, dut gids, dut
 * raw_datagram_qp, dut attach ... lid=): a case using each parses into the
 * steps, results and roles it says (each judged as the device); each
 * broken form fails at its line and column with a message that says why
 * and what was expected.
 */
#include <stdlib.h>
#include <string.h>

#include "caselang.h"
#include "testutil.h"

static const char *const good =
	"case V-1\n"
	"title \"the port, its GIDs, raw datagram QPs, an MLID\"\n"
	"rules CA17-26, CA17-28, CA17-30, CA17-31\n"
	"dut port -> link_layer=ETHERNET lid=?lid client_reregistration=0 ip_based_gids=?ipg\n" /* 0 */
	"dut gids -> untyped=0 count>=1 ipv4=?n4 ipv6=?n6 ib_gid=?nib\n"                          /* 1 */
	"dut raw_datagram_qp RAW_IPV6 -> created=0\n"                                           /* 2 */
	"dut raw_datagram_qp raw_ethertype -> created=0\n"                                      /* 3 */
	"check $n4 + $n6 >= 1 as device\n"                                                      /* 4 */
	"group g\n"                                                                             /* 5 */
	"dut qp u type=UD\n"                                                                    /* 6 */
	"dut attach u g lid=0xC001\n"                                                           /* 7 */
	"dut detach u g\n"                                                                      /* 8 */
	"dut attach u g\n"                                                                      /* 9 */
	"dut port -> link_layer!=INFINIBAND\n";                                                /* 10 */

static void test_good(void)
{
	struct cl_diag d;
	struct cl_case *c = cl_parse_text("v.case", good, strlen(good), &d);
	CHECK(c != NULL, "the verbs-level case parses: %s", d.msg);
	if (!c)
		return;
	CHECK(c->n_steps == 11, "11 steps (%u)", c->n_steps);
	const struct cl_step *s = c->steps;
	CHECK(s[0].kind == CL_DUT_PORT && s[0].n_args == 4 && s[0].args[0].id == CL_K_link_layer &&
	      s[0].args[0].v.word_id == AP_LINK_ETHERNET && s[0].args[1].v.kind == CL_V_BIND &&
	      s[0].args[2].id == CL_K_client_reregistration && s[0].args[3].id == CL_K_ip_based_gids,
	      "dut port: the link layer as a word, a binding, the capability bits");
	CHECK(s[1].kind == CL_DUT_GIDS && s[1].n_args == 5 && s[1].args[0].id == CL_K_untyped && s[1].args[1].cmp == CL_GE &&
	      s[1].args[4].id == CL_K_ib_gid, "dut gids: counts checked and bound");
	CHECK(s[2].kind == CL_DUT_RAW_QP && s[2].op == AP_RAW_RAW_IPV6 && s[3].op == AP_RAW_RAW_ETHERTYPE &&
	      !strcmp(s[3].verb, "RAW_ETHERTYPE") && s[2].args[0].id == CL_K_created,
	      "dut raw_datagram_qp: the type's kernel value (5, 6), any case");
	CHECK(s[7].kind == CL_DUT_ATTACH && s[7].a.dut_attach.lid.arg && !s[9].a.dut_attach.lid.arg &&
	      s[9].a.dut_attach.lid.def->num == 0, "dut attach lid=, and its default 0");
	CHECK(s[10].args[0].cmp == CL_NE && s[10].args[0].v.word_id == AP_LINK_INFINIBAND, "link_layer!=");
	/* Each is judged as the device; an attach only with an MLID. */
	CHECK(s[0].roles == ROCE_ROLE_DEVICE && s[1].roles == ROCE_ROLE_DEVICE && s[2].roles == ROCE_ROLE_DEVICE &&
	      s[4].roles == ROCE_ROLE_DEVICE, "the verbs steps are the device's (%#x %#x %#x %#x)", s[0].roles, s[1].roles,
	      s[2].roles, s[4].roles);
	CHECK(cl_step_checks(&s[7]) && s[7].roles == ROCE_ROLE_DEVICE, "an attach with lid= checks, as the device (%#x)",
	      s[7].roles);
	CHECK(!cl_step_checks(&s[9]) && !cl_step_checks(&s[8]), "an attach without lid= and a detach check nothing");
	CHECK(c->uses_caps == CL_CAP_MCAST, "the attach uses MCAST; the verbs steps need nothing (%#x)", c->uses_caps);
	cl_case_free(c);
}

struct bad {
	const char *body; /* appended to HDR */
	enum cl_error code;
	unsigned line, col;
	const char *says;
};

/* Lines 1-4. */
#define HDR "case X-1\ntitle \"t\"\nrules CA17-30\nip 4\n"

static const struct bad bads[] = {
	{ "dut port\n", CL_ERR_MISSING, 5, 1, "'dut port' checks what the device answers; expected results after '->'" },
	{ "dut gids\n", CL_ERR_MISSING, 5, 1, "expected results after '->', e.g. 'dut gids -> untyped=0'" },
	{ "dut port link_layer=ETHERNET\n", CL_ERR_ARGUMENT, 5, 10, "'link_layer' is a result; expected it after '->'" },
	{ "dut port -> link_layer=TOKEN_RING\n", CL_ERR_VALUE, 5, 24, "'TOKEN_RING' is not a value of link_layer; expected one of UNSPECIFIED, INFINIBAND, ETHERNET" },
	{ "dut port -> lid=?l lid=1\n", CL_ERR_DUPLICATE, 5, 20, "'lid' given twice" },
	{ "dut port -> speed=1\n", CL_ERR_ARGUMENT, 5, 13, "unknown argument 'speed' for 'dut port'; expected link_layer, lid" },
	{ "dut gids -> ipv5=0\n", CL_ERR_ARGUMENT, 5, 13, "unknown argument 'ipv5' for 'dut gids'; expected count, ipv4, ipv6, ib_gid, untyped" },
	{ "dut raw_datagram_qp RAW_PACKET -> created=0\n", CL_ERR_VALUE, 5, 21, "'RAW_PACKET' is not one of IBA's raw datagram QP types; expected one of RAW_IPV6, RAW_ETHERTYPE (the Ethernet RAW_PACKET QP is another service)" },
	{ "dut raw_datagram_qp -> created=0\n", CL_ERR_EXPECTED, 5, 21, "expected a raw datagram QP type: RAW_IPV6 or RAW_ETHERTYPE" },
	{ "dut raw_datagram_qp RAW_IPV6\n", CL_ERR_MISSING, 5, 1, "expected results after '->', e.g. 'dut raw_datagram_qp RAW_IPV6 -> created=0'" },
	{ "dut raw_datagram_qp RAW_IPV6 -> created=?c created=0\n", CL_ERR_DUPLICATE, 5, 44, "'created' given twice" },
	{ "group g\ndut qp u type=UD\ndut detach u g lid=1\n", CL_ERR_ARGUMENT, 7, 16, "unknown argument 'lid' for 'dut detach'; expected nothing more" },
	{ "group g\ndut qp u type=UD\npeer attach u g lid=1\n", CL_ERR_ARGUMENT, 7, 17, "unknown argument 'lid'" },
	{ "group g\ndut qp u type=UD\ndut attach u g as device\n", CL_ERR_ARGUMENT, 7, 16, "'as' names the DUT's roles in a check" },
	{ "dut frobnicate\n", CL_ERR_STATEMENT, 5, 5, "unknown DUT verb 'frobnicate'; expected mr, qp" },
};

static void test_bad(void)
{
	for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
		const struct bad *b = &bads[i];
		char text[1024];
		snprintf(text, sizeof text, HDR "%s", b->body);
		struct cl_diag d;
		struct cl_case *c = cl_parse_text("bad.case", text, strlen(text), &d);
		CHECK(c == NULL, "#%zu should fail: %s", i, b->body);
		cl_case_free(c);
		char where[64];
		snprintf(where, sizeof where, "bad.case:%u:%u: ", b->line, b->col);
		CHECK(d.code == b->code, "#%zu: code %s, expected %s (%s)", i, cl_error_name(d.code), cl_error_name(b->code), d.msg);
		CHECK(!strncmp(d.msg, where, strlen(where)), "#%zu: location: %s (expected %s)", i, d.msg, where);
		CHECK(strstr(d.msg, b->says) != NULL, "#%zu: message '%s' lacks '%s'", i, d.msg, b->says);
		CHECK(strstr(d.msg, "expected") != NULL, "#%zu: says what was expected: %s", i, d.msg);
	}
}

int main(void)
{
	test_good();
	test_bad();
	return test_result("test_caselang_verbs");
}
