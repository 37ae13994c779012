/*
 * The case language's memory windows, XRC and placement operations: a case
 * using every statement and argument parses into the steps, symbols,
 * capabilities and roles it says; each broken form fails at its line and
 * column with a message that says why and what was expected.
 */
#include <stdlib.h>
#include <string.h>

#include "caselang.h"
#include "testutil.h"

static const char *const good =
	"case MW-1\n"
	"title \"windows, XRC, FLUSH and ATOMIC WRITE\"\n"
	"rules IBA10.6.7-MW-INVALID, IBA10.6.7-MW-REBIND, A14-XRC-SRQ, IBA1.5-FLUSH-RESP, IBA1.5-ATOMIC-WRITE\n"
	"requires RC\n"
	"dut mr m access=LOCAL_WRITE,REMOTE_WRITE,REMOTE_READ,REMOTE_ATOMIC,MW_BIND,FLUSH_GLOBAL,FLUSH_PERSISTENT\n" /* 0 */
	"dut qp q\n"                                                         /* 1 */
	"dut mw w1 type=1\n"                                                 /* 2 */
	"dut mw w2 type=2\n"                                                 /* 3 */
	"dut bind w1 q m offset=64 len=128 access=REMOTE_READ\n"            /* 4 */
	"dut bind w2 q m key=0x42 access=REMOTE_WRITE,REMOTE_READ\n"        /* 5 */
	"dut bind w2 q m status=MW_BIND_ERR\n"                              /* 6 */
	"inject q READ_REQUEST rkey=$w2.rkey remote=$m.addr dmalen=8\n"     /* 7 */
	"expect q READ_RESPONSE_ONLY within 10ms\n"                         /* 8 */
	"dut post_send q LOCAL_INV invalidate=$w2.rkey\n"                   /* 9 */
	"expect completion q opcode=LOCAL_INV status=SUCCESS\n"             /* 10 */
	"inject q SEND_ONLY_WITH_INVALIDATE invalidate=$w2.rkey\n"          /* 11 */
	"expect completion q status=SUCCESS invalidated=$w2.rkey\n"         /* 12 */
	"dut post_send q ATOMIC_WRITE remote=$m.addr rkey=$m.rkey value=0x1122334455667788\n" /* 13 */
	"dut post_send q FLUSH remote=$m.addr rkey=$m.rkey len=64 placement=GLOBAL,PERSISTENT level=REGION\n" /* 14 */
	"inject q FLUSH remote=$m.addr rkey=$m.rkey dmalen=64 placement=PERSISTENT level=RANGE\n" /* 15 */
	"inject q ATOMIC_WRITE remote=$m.addr rkey=$m.rkey value=7\n"       /* 16 */
	"inject q FLUSH remote=$m.addr rkey=$m.rkey feth.plt=4 feth.sel=1\n" /* 17 */
	"expect q READ_RESPONSE_ONLY len=0 within 10ms\n"                   /* 18 */
	"peer mr pm access=REMOTE_ATOMIC,FLUSH_GLOBAL\n"                    /* 19 */
	"peer q atomic_write remote=$pm.addr rkey=$pm.rkey value=0xAB\n"    /* 20 */
	"peer q flush remote=$pm.addr rkey=$pm.rkey len=64 placement=GLOBAL level=RANGE\n" /* 21 */
	"expect peer q status=SUCCESS\n"                                    /* 22 */
	"peer q send invalidate=$pm.rkey\n"                                 /* 23 */
	"dut xrcd d\n"                                                      /* 24 */
	"dut srq xs xrcd=d max_wr=8\n"                                      /* 25 */
	"dut qp t type=XRC_RECV xrcd=d\n"                                   /* 26 */
	"dut post_recv xs m len=64\n"                                       /* 27 */
	"inject t XRC_SEND_ONLY len=8\n"                                    /* 28 */
	"inject t XRC_SEND_ONLY srqn=$xs.srqn + 1\n"                        /* 29 */
	"peer t send len=8\n"                                               /* 30 */
	"expect t XRC_ACK within 10ms\n"                                    /* 31 */
	"peer srq ps recv=2 xrc\n"                                          /* 32 */
	"dut qp i type=XRC_SEND\n"                                          /* 33 */
	"dut post_send i SEND m len=8 remote_srqn=$ps.srqn\n"               /* 34 */
	"expect peer i status=SUCCESS\n"                                    /* 35 */
	"peer srq ps recv=0 xrc\n"                                          /* 36 */
	"dut pd other\n"                                                    /* 37 */
	"dut mr n pd=other\n"                                               /* 38 */
	"dut srq xs2 xrcd=d pd=other\n";                                    /* 39 */

static void test_good(void)
{
	struct cl_diag d;
	struct cl_case *c = cl_parse_text("mw.case", good, strlen(good), &d);
	CHECK(c != NULL, "the windows/XRC/placement case parses: %s", d.msg);
	if (!c)
		return;
	CHECK(c->n_steps == 40, "40 steps (%u)", c->n_steps);
	CHECK(c->uses_caps == (CL_CAP_MW1 | CL_CAP_MW2 | CL_CAP_XRC | CL_CAP_FLUSH | CL_CAP_ATOMIC_WRITE | CL_CAP_SRQ),
	      "the steps use MW1, MW2, XRC, FLUSH, ATOMIC_WRITE and (an XRC SRQ is one) SRQ (%#x)", c->uses_caps);
	const struct cl_step *s = c->steps;
	CHECK(s[0].a.dut_mr.access.flags == (AP_ACCESS_LOCAL_WRITE | AP_ACCESS_REMOTE_WRITE | AP_ACCESS_REMOTE_READ |
					      AP_ACCESS_REMOTE_ATOMIC | AP_ACCESS_MW_BIND | AP_ACCESS_FLUSH_GLOBAL |
					      AP_ACCESS_FLUSH_PERSISTENT),
	      "the MR's new access words (%#x)", s[0].a.dut_mr.access.flags);
	CHECK(s[2].kind == CL_DUT_MW && !strcmp(s[2].mw, "w1") && s[4].kind == CL_DUT_BIND && !strcmp(s[4].mw, "w1") &&
	      !strcmp(s[4].qp, "q") && !strcmp(s[4].mr, "m"), "dut mw and dut bind");
	CHECK(s[4].a.dut_bind.access.flags == AP_ACCESS_REMOTE_READ && !s[4].a.dut_bind.key.arg &&
	      s[5].a.dut_bind.key.arg && s[5].a.dut_bind.status.word_id == AP_WC_SUCCESS &&
	      s[6].a.dut_bind.status.word_id == AP_WC_MW_BIND_ERR, "bind arguments, the default status SUCCESS");
	CHECK(s[9].op == AP_WR_LOCAL_INV && s[9].a.post_send.invalidate.arg, "LOCAL_INV invalidate=");
	CHECK(s[12].kind == CL_EXPECT_COMPLETION && cl_step_arg(&s[12], "invalidated"), "expect completion invalidated=");
	CHECK(s[13].op == AP_WR_ATOMIC_WRITE && s[13].a.post_send.value.arg, "ATOMIC_WRITE value=");
	CHECK(s[14].op == AP_WR_FLUSH && s[14].a.post_send.placement.flags == 3 && s[14].a.post_send.level.word_id == 1,
	      "FLUSH placement=GLOBAL,PERSISTENT (bits 3) level=REGION (1)");
	CHECK(s[15].opcode == ROCE_OP_RC_FLUSH && s[15].a.inject.placement.flags == 2 && s[15].a.inject.level.word_id == 0,
	      "inject FLUSH placement=PERSISTENT level=RANGE");
	CHECK(s[16].opcode == ROCE_OP_RC_ATOMIC_WRITE && s[16].a.inject.value.arg, "inject ATOMIC_WRITE value=");
	CHECK(s[17].a.inject.placement.flags == 1 && !s[17].a.inject.placement.arg, "the FETH's default placement is GLOBAL");
	CHECK(s[20].kind == CL_PEER_OP && s[20].op == AP_WC_ATOMIC_WRITE && s[21].op == AP_WC_FLUSH &&
	      s[21].a.peer_op.placement.flags == 1, "peer atomic_write and flush");
	CHECK(s[25].kind == CL_DUT_SRQ && !strcmp(s[25].xrcd, "d") && s[26].kind == CL_DUT_QP &&
	      cl_qp_type_xrc(s[26].a.dut_qp.type.word_id) == CL_XRC_RECV && !strcmp(s[26].xrcd, "d"),
	      "an XRC SRQ and an XRC_RECV QP of domain d");
	CHECK(s[28].opcode == ROCE_OP_XRC_SEND_ONLY && s[31].opcode == ROCE_OP_XRC_ACK, "XRC opcodes for an XRC QP");
	CHECK(s[32].kind == CL_PEER_SRQ && s[32].a.peer_srq.xrc.arg && s[36].a.peer_srq.xrc.arg, "peer srq ... xrc");
	CHECK(cl_qp_type_xrc(s[33].a.dut_qp.type.word_id) == CL_XRC_SEND && s[34].a.post_send.remote_srqn.arg,
	      "an XRC_SEND QP and remote_srqn=");
	CHECK(s[37].kind == CL_DUT_PD && !strcmp(s[37].name, "other") && !s[0].a.dut_mr.pd.arg &&
	      !strcmp(s[38].a.dut_mr.pd.arg->v.word, "other") && !strcmp(s[39].a.dut_srq.pd.arg->v.word, "other"),
	      "dut pd, and an MR and an XRC SRQ in it (pd=)");
	/* Roles: an injected request judges the DUT as receiver and
	 * responder; a bind is the device's; the DUT's work requests make it
	 * the requester. */
	CHECK(s[4].roles == ROCE_ROLE_DEVICE && s[6].roles == ROCE_ROLE_DEVICE, "dut bind: device (%#x)", s[6].roles);
	CHECK(s[8].roles == (ROCE_ROLE_SENDER | ROCE_ROLE_RESPONDER | ROCE_ROLE_RECEIVER), "a response expected: responder");
	CHECK(s[12].roles == (ROCE_ROLE_RECEIVER | ROCE_ROLE_RESPONDER), "completion after an injected SEND with Invalidate: responder, receiver (%#x)",
	      s[12].roles);
	CHECK(s[22].roles == (ROCE_ROLE_RECEIVER | ROCE_ROLE_RESPONDER), "the tester's operation: the DUT responds");
	CHECK(s[35].roles == (ROCE_ROLE_SENDER | ROCE_ROLE_REQUESTER), "after the DUT's XRC SEND: requester (%#x)", s[35].roles);
	char caps[CL_CAPS_TEXT];
	cl_caps_format(CL_CAP_MW1 | CL_CAP_MW2 | CL_CAP_XRC | CL_CAP_FLUSH | CL_CAP_ATOMIC_WRITE, caps, sizeof caps);
	CHECK(!strcmp(caps, "MW1,MW2,XRC,FLUSH,ATOMIC_WRITE"), "the new capabilities by name: %s", caps);
	cl_case_free(c);
	/* An injected FLUSH or ATOMIC WRITE implies no capability: a DUT
	 * without them is asked what it answers. */
	static const char *const unsupported = "case U-1\ntitle \"t\"\nrules IBA1.5-PLACEMENT-UNSUPPORTED\nunless FLUSH\n"
					       "dut mr m\ndut qp q\ninject q FLUSH remote=$m.addr rkey=$m.rkey\n"
					       "expect q ACK aeth=NAK_INVALID within 10ms\n";
	c = cl_parse_text("u.case", unsupported, strlen(unsupported), &d);
	CHECK(c && c->uses_caps == 0 && c->unless_caps == CL_CAP_FLUSH, "an injected FLUSH needs no FLUSH: %s", c ? "" : d.msg);
	cl_case_free(c);
}

/* Protection domains, zero-based windows, a refused bind's key and the
 * completion's flags. */
static const char *const domains =
	"case MW-2\n"
	"title \"protection domains, zero-based windows\"\n"
	"rules IBA10.6.7-BIND-PD, IBA10.6.7-MW-ZERO-BASED, IBA10.6.7-SEND-INV-WC\n"
	"dut pd p2\n"                                                        /* 0 */
	"dut mr m2 access=LOCAL_WRITE,REMOTE_READ,MW_BIND pd=p2\n"          /* 1 */
	"dut qp o pd=p2\n"                                                   /* 2 */
	"dut qp q\n"                                                         /* 3 */
	"dut mw w type=1\n"                                                  /* 4 */
	"dut mw v type=2 pd=p2\n"                                            /* 5 */
	"dut bind w q m2 status=MW_BIND_ERR\n"                              /* 6 */
	"inject o READ_REQUEST remote=$m2.addr rkey=$w.bind_rkey dmalen=8\n" /* 7 */
	"dut bind v o m2 zero_based=on key=0x11\n"                          /* 8 */
	"expect completion q flags=WITH_INV,GRH invalidated=$v.rkey as device\n"; /* 9 */

static void test_domains(void)
{
	struct cl_diag d;
	struct cl_case *c = cl_parse_text("pd.case", domains, strlen(domains), &d);
	CHECK(c != NULL, "the protection-domain case parses: %s", d.msg);
	if (!c)
		return;
	const struct cl_step *s = c->steps;
	CHECK(c->n_steps == 10 && s[0].kind == CL_DUT_PD && !strcmp(s[0].pd, "p2"), "dut pd (%u steps)", c->n_steps);
	CHECK(!strcmp(s[1].pd, "p2") && !strcmp(s[2].pd, "p2") && !s[3].pd && !s[4].pd && !strcmp(s[5].pd, "p2"),
	      "pd= of dut mr, dut qp and dut mw; none: the case's own");
	CHECK(s[8].a.dut_bind.zero_based.word_id == CL_ON && s[6].a.dut_bind.zero_based.word_id == CL_OFF,
	      "zero_based=on; off by default");
	const struct cl_arg *f = cl_step_arg(&s[9], "flags");
	CHECK(f && f->v.n_list == 2 && !strcmp(cl_wc_flag_words[f->v.word_ids[0]], "WITH_INV") &&
	      !strcmp(cl_wc_flag_words[f->v.word_ids[1]], "GRH"), "flags= names completion flags");
	CHECK(s[9].roles == ROCE_ROLE_DEVICE, "a completion read as the device's (%#x)", s[9].roles);
	cl_case_free(c);
}

struct bad {
	const char *body; /* appended to HDR */
	enum cl_error code;
	unsigned line, col;
	const char *says;
};

/* Lines 1-4; an RC QP q and an MR m follow on 5 and 6. */
#define HDR "case X-1\ntitle \"t\"\nrules CA17-24\nip 4\n"
#define QM "dut qp q\ndut mr m\n"

static const struct bad bads[] = {
	{ "dut mr m pd=nowhere\n", CL_ERR_UNDEFINED, 5, 13, "'nowhere' is not defined above; expected a protection domain" },
	{ "dut mr m\ndut srq s pd=m\n", CL_ERR_KIND, 6, 14, "'m' is a DUT MR; expected a protection domain" },
	{ "dut pd p\ndut pd p\n", CL_ERR_DUPLICATE, 6, 8, "'p' is already defined" },
	{ "dut mw w\n", CL_ERR_MISSING, 5, 1, "'dut mw' needs type=" },
	{ "dut mw w type=3\n", CL_ERR_VALUE, 5, 15, "type= is the window's type; expected 1 or 2" },
	{ "dut mw w type=1\ndut mw w type=2\n", CL_ERR_DUPLICATE, 6, 8, "'w' is already defined" },
	{ QM "dut bind w q m\n", CL_ERR_UNDEFINED, 7, 10, "'w' is not defined above; expected a memory window" },
	{ QM "dut mw w type=1\ndut bind w m q\n", CL_ERR_KIND, 8, 12, "'m' is a DUT MR; expected a QP" },
	{ QM "dut mw w type=1\ndut bind w q m key=3\n", CL_ERR_ARGUMENT, 8, 16, "window 'w' is of type 1, whose rkey the device chooses" },
	{ QM "dut mw w type=2\ndut bind w q m len=0\n", CL_ERR_VALUE, 8, 20, "len=0 unbinds a type 1 window" },
	{ "dut qp u type=UD\ndut mr m\ndut mw w type=2\ndut bind w u m\n", CL_ERR_KIND, 8, 12, "'u' is a UD QP; expected an RC or UC QP" },
	{ QM "dut mw w type=1\ndut bind w q m status=WHATEVER\n", CL_ERR_VALUE, 8, 23, "'WHATEVER' is not a value of status" },
	{ QM "dut mw w type=1\ninject q SEND_ONLY rkey=$w.addr\n", CL_ERR_MEMBER, 8, 25, "$w is a memory window; expected $w.rkey" },
	{ QM "dut post_send q LOCAL_INV\n", CL_ERR_MISSING, 7, 17, "LOCAL_INV needs the rkey to invalidate" },
	{ QM "dut post_send q ATOMIC_WRITE remote=$m.addr rkey=$m.rkey\n", CL_ERR_MISSING, 7, 17, "ATOMIC_WRITE needs remote=, rkey= and value=" },
	{ QM "dut post_send q FLUSH len=8\n", CL_ERR_MISSING, 7, 17, "FLUSH needs remote= and rkey=" },
	{ QM "dut post_send q FLUSH m remote=0 rkey=0\n", CL_ERR_ARGUMENT, 7, 17, "FLUSH carries no data; expected no MR" },
	{ QM "dut post_send q SEND m value=3\n", CL_ERR_ARGUMENT, 7, 24, "value= is for ATOMIC_WRITE" },
	{ QM "dut post_send q SEND m placement=GLOBAL\n", CL_ERR_ARGUMENT, 7, 24, "placement= is for FLUSH" },
	{ QM "dut post_send q FLUSH remote=0 rkey=0 placement=VOLATILE\n", CL_ERR_VALUE, 7, 49, "'VOLATILE' is not a value of placement; expected one of GLOBAL, PERSISTENT" },
	{ QM "dut post_send q FLUSH remote=0 rkey=0 level=PAGE\n", CL_ERR_VALUE, 7, 45, "expected one of RANGE, REGION" },
	{ QM "dut post_send q BIND_MW\n", CL_ERR_VALUE, 7, 17, "a window is bound with 'dut bind'" },
	{ "dut qp u type=UC\ndut post_send u ATOMIC_WRITE remote=0 rkey=0 value=1\n", CL_ERR_KIND, 6, 17, "ATOMIC_WRITE is an RC operation; 'u' is a UC QP" },
	{ QM "dut post_send q SEND m remote_srqn=3\n", CL_ERR_ARGUMENT, 7, 24, "remote_srqn= is for a SEND on an XRC_SEND QP" },
	{ QM "expect completion q invalidated=x\n", CL_ERR_VALUE, 7, 33, "invalidated: found the word 'x'" },
	{ QM "inject q SEND_ONLY invalidate=1\n", CL_ERR_ARGUMENT, 7, 20, "invalidate= is for a SEND with Invalidate" },
	{ QM "inject q WRITE_ONLY placement=GLOBAL\n", CL_ERR_ARGUMENT, 7, 21, "placement= is for FLUSH" },
	{ QM "inject q ATOMIC_WRITE value=1 len=8\n", CL_ERR_ARGUMENT, 7, 31, "value= is ATOMIC WRITE's payload; expected value= or data=/len=, not both" },
	{ QM "inject q SEND_ONLY value=1\n", CL_ERR_ARGUMENT, 7, 20, "value= is for ATOMIC_WRITE" },
	{ QM "peer q atomic_write remote=0 rkey=0\n", CL_ERR_MISSING, 7, 8, "'peer atomic_write' needs value=" },
	{ QM "peer q flush len=8\n", CL_ERR_MISSING, 7, 8, "'peer flush' needs remote= and rkey=" },
	{ QM "peer q send value=1\n", CL_ERR_ARGUMENT, 7, 13, "value= is for atomic_write" },
	{ "dut qp u type=UD\npeer u flush remote=0 rkey=0\n", CL_ERR_VALUE, 6, 8, "a UD QP can only send" },
	{ "dut qp t type=XRC_RECV\n", CL_ERR_MISSING, 5, 1, "an XRC_RECV QP needs its domain; expected xrcd=D" },
	{ "dut xrcd d\ndut qp t type=XRC_SEND xrcd=d\n", CL_ERR_ARGUMENT, 6, 24, "an XRC_SEND QP belongs to no domain" },
	{ "dut xrcd d\ndut qp t type=RC xrcd=d\n", CL_ERR_ARGUMENT, 6, 18, "xrcd= is for an XRC target" },
	{ "dut mr d\ndut qp t type=XRC_RECV xrcd=d\n", CL_ERR_KIND, 6, 29, "'d' is a DUT MR; expected an XRC domain" },
	{ "dut xrcd d\ndut srq s\ndut qp t type=XRC_RECV xrcd=d srq=s\n", CL_ERR_ARGUMENT, 7, 31, "an XRC QP's receives come from the XRC SRQ each request names" },
	{ "dut xrcd d\ndut srq s xrcd=d limit=2\n", CL_ERR_ARGUMENT, 6, 18, "an XRC SRQ is made unarmed here" },
	{ "dut xrcd d\ndut qp t type=XRC_RECV xrcd=d\ninject t XRC_SEND_ONLY\n", CL_ERR_MISSING, 7, 1, "no XRC SRQ of domain 'd' above to name" },
	{ "dut xrcd d\ndut qp t type=XRC_RECV xrcd=d\npeer t send\n", CL_ERR_MISSING, 7, 8, "no XRC SRQ of domain 'd' above for the tester's requests" },
	{ "dut qp i type=XRC_SEND\npeer i send\n", CL_ERR_VALUE, 6, 8, "the tester's side of XRC_SEND QP 'i' is a target and sends no requests" },
	{ "dut qp i type=XRC_SEND\ninject i XRC_SEND_ONLY\n", CL_ERR_KIND, 6, 1, "'i' is the DUT's XRC initiator" },
	{ "dut xrcd d\ndut mr m\ndut qp t type=XRC_RECV xrcd=d\ndut post_send t SEND m\n", CL_ERR_KIND, 8, 17, "'t' is an XRC target (XRC_RECV), which sends nothing" },
	{ "dut xrcd d\ndut mr m\ndut qp t type=XRC_RECV xrcd=d\ndut post_recv t m\n", CL_ERR_KIND, 8, 15, "XRC QP 't' has no receive queue" },
	{ "dut qp t type=XRC_RECV xrcd=d\n", CL_ERR_UNDEFINED, 5, 29, "'d' is not defined above; expected an XRC domain" },
	{ "dut srq s\ndut qp x\ninject x SEND_ONLY srqn=$s.srqn\n", CL_ERR_MEMBER, 7, 25, "$s is a DUT SRQ, which has no members" },
	{ "peer srq p recv=1\ndut qp q\ninject q SEND_ONLY psn=$p.srqn\n", CL_ERR_MEMBER, 7, 24, "$p is a tester SRQ, which has no members" },
	{ "peer srq p recv=1 xrc=1\n", CL_ERR_VALUE, 5, 22, "'xrc' stands alone; expected it without '='" },
	{ "peer srq p recv=1 xrc\npeer srq p recv=2\n", CL_ERR_VALUE, 6, 10, "tester SRQ 'p' was made an XRC SRQ above" },
	{ "dut xrcd d\ndut qp q\ninject q SEND_ONLY rkey=$d.rkey\n", CL_ERR_MEMBER, 7, 25, "$d is an XRC domain, which has no members" },
	{ "dut mw w type=1\ndut mw w2 type=2\ndut qp q\ndut mr m\ndut bind w2 q m\ndut bind w q m status=SUCCESS key=1\n", CL_ERR_ARGUMENT, 10, 31, "whose rkey the device chooses" },
	{ "dut mr m pd=p\n", CL_ERR_UNDEFINED, 5, 13, "'p' is not defined above; expected a protection domain" },
	{ "dut pd p\ndut qp u type=UD pd=p\n", CL_ERR_ARGUMENT, 6, 18, "pd= is for RC and UC QPs" },
	{ "dut pd p\ndut qp q\ninject q SEND_ONLY psn=$p.x\n", CL_ERR_MEMBER, 7, 24, "$p is a protection domain, which has no members" },
	{ "dut pd p\ndut pd p\n", CL_ERR_DUPLICATE, 6, 8, "'p' is already defined" },
	{ QM "dut mw w type=1\ndut bind w q m len=0 zero_based=on\n", CL_ERR_ARGUMENT, 8, 22, "len=0 unbinds the window" },
	{ QM "dut mw w type=1\ndut bind w q m zero_based=yes\n", CL_ERR_VALUE, 8, 27, "'yes' is not a value of zero_based" },
	{ QM "expect completion q flags=WITH_CHEESE\n", CL_ERR_VALUE, 7, 27, "'WITH_CHEESE' is not a value of flags; expected one of GRH, WITH_IMM, WITH_INV" },
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
	test_domains();
	test_bad();
	return test_result("test_caselang_mw");
}
