/*
 * The case language's multicast, SRQ and asynchronous-event statements:
 * a case using every one parses into the steps, groups, capabilities and
 * roles it says; each broken form fails at its line and column with a
 * message that says why and what was expected.
 */
#include <stdlib.h>
#include <string.h>

#include "caselang.h"
#include "testutil.h"

static const char *const good =
	"case MC-1\n"
	"title \"multicast and SRQ\"\n"
	"rules IBV-MCAST-DELIVER, IBV-UD-REMOTE-QPN, RFC3376-5.1-JOIN, IBA11-SRQ-LIMIT, IBA10-SRQ-ORDER, IBV-MCAST-GID, RFC3376-5.1-LEAVE\n"
	"requires UD, MCAST\n"
	"ip 4\n"
	"group g\n"                                       /* 0 */
	"group h ip=6 addr=\"ff15::db8:42\"\n"            /* 1 */
	"group k addr=\"239.255.18.200\"\n"               /* 2 */
	"dut mr m\n"                                      /* 3 */
	"dut srq s max_wr=16 limit=2\n"                   /* 4 */
	"peer srq ps recv=1\n"                            /* 5 */
	"dut qp u type=UD srq=s\n"                        /* 6 */
	"dut qp r type=RC peer_srq=ps\n"                  /* 7 */
	"dut qp v type=UD ip=6\n"                         /* 8 */
	"dut attach u g\n"                                /* 9 */
	"peer attach u g\n"                               /* 10 */
	"dut post_recv s m len=64\n"                      /* 11 */
	"inject u SEND_ONLY group=g len=8\n"              /* 12 */
	"expect completion u status=SUCCESS\n"            /* 13 */
	"dut post_send u SEND m len=8 group=g\n"          /* 14 */
	"expect u SEND_ONLY group=g destqp=0xFFFFFF within 10ms\n" /* 15 */
	"dut join u k\n"                                  /* 16 */
	"expect join k within 1s\n"                       /* 17 */
	"inject u SEND_ONLY group=k qkey=$k.qkey\n"       /* 18 */
	"dut leave u k\n"                                 /* 19 */
	"expect no join g within 10ms\n"                  /* 20 */
	"dut detach u g\n"                                /* 21 */
	"dut arm s limit=1\n"                             /* 22 */
	"dut query s -> limit=0 max_wr>=16\n"             /* 23 */
	"expect event SRQ_LIMIT_REACHED srq=s within 100ms\n" /* 24 */
	"expect event QP_LAST_WQE_REACHED qp=u\n"         /* 25 */
	"expect no event within 5ms\n"                    /* 26 */
	"expect no event QP_FATAL within 5ms\n"           /* 27 */
	"peer srq ps recv=0\n"                            /* 28: sets the count again */
	"inject r SEND_ONLY group=g\n"                    /* 29: an RC packet to a group */
	"dut attach v h\n"                                /* 30 */
	"dut attach u gid=dut -> refused\n"               /* 31: a unicast GID, refused */
	"dut attach v gid=peer\n"                         /* 32 */
	"expect leave k within 1s\n"                      /* 33 */
	"dut attach u g -> refused as device\n";          /* 34 */

static void test_good(void)
{
	struct cl_diag d;
	struct cl_case *c = cl_parse_text("mc.case", good, strlen(good), &d);
	CHECK(c != NULL, "the multicast and SRQ case parses: %s", d.msg);
	if (!c)
		return;
	CHECK(c->n_steps == 35, "35 steps (%u)", c->n_steps);
	CHECK(c->n_groups == 3 && !strcmp(c->groups[0].name, "g") && c->groups[0].ipv == 0 && c->groups[1].ipv == 6 &&
	      c->groups[1].has_addr && c->groups[2].ipv == 4, "three groups, their IP versions");
	uint8_t a[16];
	CHECK(cl_group_address(&c->groups[0], 4, a) == 4 && a[0] == 239 && a[1] == 255 && a[2] == 18 && a[3] == 1,
	      "the first group's default IPv4 address is 239.255.18.1");
	CHECK(cl_group_address(&c->groups[0], 6, a) == 6 && a[0] == 0xFF && a[1] == 0x15 && a[12] == 0x0D && a[13] == 0xB8 &&
	      a[14] == 0 && a[15] == 1, "its default IPv6 address is ff15::db8:1");
	CHECK(cl_group_address(&c->groups[1], 4, a) == 6 && a[15] == 0x42, "addr= pins h to ff15::db8:42 whatever the run");
	CHECK(cl_group_address(&c->groups[2], 6, a) == 4 && a[3] == 200, "k is 239.255.18.200");
	CHECK(cl_group_named(c, "k") == &c->groups[2] && !cl_group_named(c, "zz"), "groups by name");
	CHECK(c->uses_caps == (CL_CAP_SRQ | CL_CAP_MCAST | CL_CAP_CM_MCAST | CL_CAP_ASYNC_EVENTS),
	      "the steps use SRQ, MCAST, CM_MCAST and ASYNC_EVENTS (%#x)", c->uses_caps);
	CHECK(c->caps == (CL_CAP_UD | CL_CAP_MCAST), "requires as written");
	const struct cl_step *s = c->steps;
	CHECK(s[0].kind == CL_GROUP && s[4].kind == CL_DUT_SRQ && s[5].kind == CL_PEER_SRQ && s[9].kind == CL_DUT_ATTACH &&
	      s[10].kind == CL_PEER_ATTACH && s[16].kind == CL_DUT_JOIN && s[17].kind == CL_EXPECT_JOIN &&
	      s[19].kind == CL_DUT_LEAVE && s[20].kind == CL_EXPECT_NO_JOIN && s[21].kind == CL_DUT_DETACH &&
	      s[22].kind == CL_DUT_ARM && s[23].kind == CL_DUT_QUERY_SRQ && s[24].kind == CL_EXPECT_EVENT &&
	      s[26].kind == CL_EXPECT_NO_EVENT && s[28].kind == CL_PEER_SRQ, "step kinds");
	CHECK(s[11].kind == CL_DUT_POST_RECV && s[11].srq && !strcmp(s[11].srq, "s") && !s[11].qp, "post_recv to an SRQ");
	CHECK(s[6].a.dut_qp.srq.arg && !strcmp(s[6].a.dut_qp.srq.arg->v.word, "s") && s[7].a.dut_qp.peer_srq.arg,
	      "dut qp srq= and peer_srq=");
	CHECK(!strcmp(s[12].group, "g") && !strcmp(s[14].group, "g") && !strcmp(s[15].group, "g") && !strcmp(s[29].group, "g"),
	      "group= of inject, post_send and expect");
	CHECK(s[4].a.dut_srq.max_wr.arg && s[4].a.dut_srq.limit.arg && s[22].a.dut_arm.limit.arg, "srq and arm arguments");
	CHECK(s[24].event == cl_event_by_name("SRQ_LIMIT_REACHED") && !strcmp(s[24].srq, "s") && s[24].within_max == 100000000ull,
	      "expect event srq=");
	CHECK(s[25].event == cl_event_by_name("QP_LAST_WQE_REACHED") && !strcmp(s[25].qp, "u"), "expect event qp=");
	CHECK(s[26].event == -1 && s[27].event == cl_event_by_name("QP_FATAL"), "expect no event [TYPE]");
	CHECK(cl_event_about(cl_event_by_name("SRQ_LIMIT_REACHED")) == CL_EVENT_SRQ &&
	      cl_event_about(cl_event_by_name("COMM_EST")) == CL_EVENT_QP && !strcmp(cl_event_name(15), "SRQ_LIMIT_REACHED"),
	      "event vocabulary");
	/* Roles: a datagram injected to a group judges the DUT as receiver,
	 * one it sends to a group as sender; joins are the CM's; events and
	 * an SRQ's state the device's. */
	CHECK(s[31].kind == CL_DUT_ATTACH && !s[31].group && s[31].a.dut_attach.gid.word_id == CL_GID_DUT &&
	      s[31].a.dut_attach.refused.arg && s[32].a.dut_attach.gid.word_id == CL_GID_PEER && !s[32].a.dut_attach.refused.arg &&
	      !strcmp(s[34].group, "g") && s[34].a.dut_attach.refused.arg, "dut attach gid=, -> refused");
	CHECK(s[33].kind == CL_EXPECT_LEAVE && !strcmp(s[33].group, "k") && s[33].within_max == 1000000000ull, "expect leave");
	CHECK(cl_step_checks(&s[31]) && !cl_step_checks(&s[32]) && !cl_step_checks(&s[9]) && cl_step_checks(&s[33]),
	      "an attach checks something only with '-> refused'");
	CHECK(s[31].roles == ROCE_ROLE_DEVICE && s[34].roles == ROCE_ROLE_DEVICE && s[34].roles_explicit,
	      "the answer to an attach: device (%#x)", s[31].roles);
	CHECK(s[33].roles == ROCE_ROLE_CM, "expect leave: CM (%#x)", s[33].roles);
	CHECK(s[13].roles == ROCE_ROLE_RECEIVER, "completion after a group datagram: receiver (%#x)", s[13].roles);
	CHECK(s[15].roles == ROCE_ROLE_SENDER, "a DUT datagram to a group: sender (%#x)", s[15].roles);
	CHECK(s[17].roles == ROCE_ROLE_CM && s[20].roles == ROCE_ROLE_CM, "expect [no] join: CM");
	CHECK(s[23].roles == ROCE_ROLE_DEVICE && s[24].roles == ROCE_ROLE_DEVICE && s[26].roles == ROCE_ROLE_DEVICE,
	      "query of an SRQ, expect [no] event: device");
	unsigned idx[8];
	/* The SRQ order is a should: it binds nobody. */
	CHECK(cl_binding_rules(c, 4, s[13].roles, idx, 8) == 1 && !strcmp(c->rules[idx[0]], "IBV-MCAST-DELIVER"),
	      "as receiver: the delivery rule binds, the SRQ-order rule (a should) does not");
	CHECK(cl_binding_rules(c, 4, s[15].roles, idx, 8) == 1 && !strcmp(c->rules[idx[0]], "IBV-UD-REMOTE-QPN"),
	      "as sender: the work request's DestQP");
	CHECK(cl_binding_rules(c, 4, s[17].roles, idx, 8) == 0 && cl_binding_rules(c, 4, s[33].roles, idx, 8) == 0,
	      "the join and leave rules are shoulds: they bind nobody (informative)");
	CHECK(cl_binding_rules(c, 4, s[31].roles, idx, 8) == 1 && !strcmp(c->rules[idx[0]], "IBA11-SRQ-LIMIT"),
	      "as device: the SRQ limit binds, IBV-MCAST-GID (a should) does not");
	CHECK(cl_binding_rules(c, 4, s[24].roles, idx, 8) == 1 && !strcmp(c->rules[idx[0]], "IBA11-SRQ-LIMIT"),
	      "as device: the SRQ limit");
	char caps[CL_CAPS_TEXT];
	cl_caps_format(CL_CAP_SRQ | CL_CAP_CM | CL_CAP_ASYNC_EVENTS, caps, sizeof caps);
	CHECK(!strcmp(caps, "SRQ,ASYNC_EVENTS,CM"), "SRQ and the tester's CM are distinct bits: %s", caps);
	CHECK(cl_cap_bit("CM_MCAST") == CL_CAP_CM_MCAST && cl_cap_bit("ASYNC_EVENTS") == CL_CAP_ASYNC_EVENTS, "capability names");
	cl_case_free(c);
}

struct bad {
	const char *body; /* appended to HDR */
	enum cl_error code;
	unsigned line, col;
	const char *says;
};

/* Lines 1-4; a UD QP u and a group g follow on 5 and 6. */
#define HDR "case X-1\ntitle \"t\"\nrules CA17-24\nip 4\n"
#define UG "dut qp u type=UD\ngroup g\n"

static const struct bad bads[] = {
	{ "group g ip=5\n", CL_ERR_VALUE, 5, 12, "ip= takes the group's IP version" },
	{ "group g addr=\"10.0.0.1\"\n", CL_ERR_VALUE, 5, 14, "10.0.0.1 is not a multicast address" },
	{ "group g addr=\"fe80::1\"\n", CL_ERR_VALUE, 5, 14, "fe80::1 is not a multicast address" },
	{ "group g addr=\"nowhere\"\n", CL_ERR_VALUE, 5, 14, "addr=\"nowhere\" is not an IP address" },
	{ "group g ip=4 addr=\"ff15::db8:1\"\n", CL_ERR_VALUE, 5, 19, "an IPv6 address and the group has ip=4" },
	{ "group g addr=239\n", CL_ERR_VALUE, 5, 14, "addr: found a number" },
	{ "group g\ngroup g\n", CL_ERR_DUPLICATE, 6, 7, "'g' is already defined" },
	{ UG "dut attach u nog\n", CL_ERR_UNDEFINED, 7, 14, "'nog' is not defined above; expected a multicast group" },
	{ UG "dut attach g u\n", CL_ERR_KIND, 7, 12, "'g' is a multicast group; expected a QP" },
	{ "dut qp r type=RC\ngroup g\ndut attach r g\n", CL_ERR_KIND, 7, 12, "'r' is a RC QP; expected a UD QP (multicast is UD only)" },
	{ "dut qp r type=RC\ngroup g\npeer attach r g\n", CL_ERR_KIND, 7, 13, "expected a UD QP" },
	{ "dut qp u type=UD\ngroup g ip=6\ndut attach u g\n", CL_ERR_VALUE, 7, 14, "group 'g' is IPv6 and QP 'u' is IPv4; expected a group of the QP's IP version" },
	{ "dut qp u type=UD ip=6\ngroup g\ndut join u g\n", CL_ERR_VALUE, 7, 12, "group 'g' is IPv4 and QP 'u' is IPv6" },
	{ "!case X-1\ntitle \"t\"\nrules CA17-24\ndut qp u type=UD\ngroup g ip=6\npeer attach u g\n", CL_ERR_VALUE, 6, 15,
	  "QP 'u' is of the run's IP version (the case runs over both)" },
	{ UG "inject u SEND_ONLY group=u\n", CL_ERR_KIND, 7, 26, "'u' is a QP; expected a multicast group" },
	{ "dut qp u type=UD\ngroup g ip=6\ninject u SEND_ONLY group=g\n", CL_ERR_VALUE, 7, 26, "group 'g' is IPv6" },
	{ "dut qp r type=RC\ngroup g\ndut mr m\ndut post_send r SEND m group=g\n", CL_ERR_VALUE, 8, 24, "group= on a work request is for a UD QP" },
	{ UG "expect u SEND_ONLY group=g\n", CL_ERR_VALUE, 7, 26, "the tester's side of QP 'u' is not attached to group 'g'; expected 'peer attach u g' above" },
	{ "dut qp r type=RC\ngroup g\nexpect r SEND_ONLY group=g\n", CL_ERR_KIND, 7, 20, "'r' is a RC QP; expected a UD QP (group= is UD only)" },
	{ UG "expect join\n", CL_ERR_EXPECTED, 7, 12, "a group name defined by 'group'" },
	{ UG "expect leave\n", CL_ERR_EXPECTED, 7, 13, "a group name defined by 'group'" },
	{ UG "dut attach u\n", CL_ERR_MISSING, 7, 1, "'dut attach' needs a group or gid=" },
	{ UG "dut attach u g gid=dut\n", CL_ERR_MISSING, 7, 1, "'dut attach' takes a group or gid=, not both" },
	{ UG "dut attach u gid=router\n", CL_ERR_VALUE, 7, 18, "router" },
	{ UG "dut attach u g refused\n", CL_ERR_ARGUMENT, 7, 16, "'refused' is a result; expected it after '->'" },
	{ UG "dut attach u g -> refused=1\n", CL_ERR_VALUE, 7, 26, "'refused' stands alone" },
	{ UG "dut detach u g -> refused\n", CL_ERR_EXPECTED, 7, 16, "this statement has no result to check" },
	{ UG "expect no join g\n", CL_ERR_MISSING, 7, 1, "'expect no join' needs a time window" },
	{ UG "expect no surprise\n", CL_ERR_EXPECTED, 7, 11, "'completion', 'join' or 'event' after 'expect no'" },
	{ UG "inject u SEND_ONLY qkey=$g.qkey\n", CL_ERR_MEMBER, 7, 25, "$g.qkey is bound by 'dut join QP g'; expected it after one" },
	{ UG "dut join u g\ninject u SEND_ONLY qkey=$g.addr\n", CL_ERR_MEMBER, 8, 25, "$g is a multicast group; expected $g.qkey" },
	{ "dut srq s\ndut srq s\n", CL_ERR_DUPLICATE, 6, 9, "'s' is already defined" },
	{ "dut srq s size=4\n", CL_ERR_ARGUMENT, 5, 11, "unknown argument 'size' for 'dut srq'" },
	{ "dut srq s\ndut arm s\n", CL_ERR_MISSING, 6, 1, "'dut arm' needs limit=" },
	{ "dut qp q\ndut arm q limit=1\n", CL_ERR_KIND, 6, 9, "'q' is a QP; expected a DUT SRQ" },
	{ "dut qp q srq=nope\n", CL_ERR_UNDEFINED, 5, 14, "'nope' is not defined above; expected a DUT SRQ" },
	{ "peer srq p\ndut qp q srq=p\n", CL_ERR_KIND, 6, 14, "'p' is a tester SRQ; expected a DUT SRQ" },
	{ "dut srq s\ndut qp q peer_srq=s\n", CL_ERR_KIND, 6, 19, "'s' is a DUT SRQ; expected a tester SRQ" },
	{ "dut srq s\ndut mr m\ndut qp q srq=s\ndut post_recv q m\n", CL_ERR_KIND, 8, 15, "QP 'q' takes its receives from SRQ 's'; expected 'dut post_recv s MR ...'" },
	{ "peer srq p\ndut qp q peer_srq=p\npeer q set recv=3\n", CL_ERR_ARGUMENT, 7, 12, "takes its receives from SRQ 'p'; expected 'peer srq p recv=N'" },
	{ "dut srq s\ndut query s -> state=RTS\n", CL_ERR_ARGUMENT, 6, 16, "unknown argument 'state' for 'dut query (SRQ)'" },
	{ "dut mr m\npeer srq m recv=1\n", CL_ERR_KIND, 6, 10, "'m' is a DUT MR; expected a tester SRQ" },
	{ "expect event SRQ_FULL\n", CL_ERR_VALUE, 5, 14, "unknown event 'SRQ_FULL'; expected one of CQ_ERR, QP_FATAL" },
	{ "dut qp q\nexpect event SRQ_LIMIT_REACHED qp=q\n", CL_ERR_ARGUMENT, 6, 32, "SRQ_LIMIT_REACHED is not about a QP; expected srq=" },
	{ "dut srq s\nexpect event QP_FATAL srq=s\n", CL_ERR_ARGUMENT, 6, 23, "QP_FATAL is not about an SRQ; expected qp=" },
	{ "dut qp q\ndut srq s\nexpect event QP_FATAL qp=q srq=s\n", CL_ERR_ARGUMENT, 7, 28, "expected qp= or srq=, not both" },
	{ "dut srq s\nexpect event QP_FATAL qp=s\n", CL_ERR_KIND, 6, 26, "'s' is a DUT SRQ; expected a QP" },
	{ "expect no event SRQ_LIMIT_REACHED\n", CL_ERR_MISSING, 5, 1, "'expect no event' needs a time window" },
	{ "expect no event PORT_LOST within 1ms\n", CL_ERR_VALUE, 5, 17, "unknown event 'PORT_LOST'" },
	{ "!case A\ntitle \"a\"\nrules CA17-1\nrequires SRQ, MULTICAST\n", CL_ERR_CAPABILITY, 4, 15, "unknown capability 'MULTICAST'; expected RC, UC, UD, ATOMIC, IPV4, IPV6, RCM, SEND_WITH_INV, ROCEV1, SRQ, MCAST, CM_MCAST, ASYNC_EVENTS, CM or VLAN" },
	{ "dut lurk u\n", CL_ERR_STATEMENT, 5, 5, "expected mr, qp, listen, post_recv, post_send, write, read, query, modify, srq, arm, attach, detach, join, leave, mw, bind, xrcd, pd, port, gids or raw_datagram_qp" },
};

static void test_bad(void)
{
	for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
		const struct bad *b = &bads[i];
		char text[1024];
		if (b->body[0] == '!')
			snprintf(text, sizeof text, "%s", b->body + 1);
		else
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
	return test_result("test_caselang_mcast");
}
