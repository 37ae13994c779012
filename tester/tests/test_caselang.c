/*
 * The case language: a full case parses into the steps it says, and every
 * kind of parse error is reached, at the right line and column, with a
 * message that names the file and what was expected.
 */
#include <stdlib.h>
#include <string.h>

#include "caselang.h"
#include "roce/aeth.h"
#include "roce/icrc.h"
#include "roce/mad.h"
#include "caselex.h"
#include "testutil.h"

static const char *const good =
	"# A comment line\n"
	"case RC-RESP-DEMO-001\n"
	"title \"A demo: every statement \\\"kind\\\"\"\n"
	"rules IBA9.7-PSN-SEQERR, CA17-24\n"
	"requires RC, ATOMIC\n"
	"unless RCM, UD\n"
	"mutants no-seq-nak, psn-seq-nak-repeat\n"
	"ip 4\n"
	"pmtu 512\n"
	"timeout 20s\n"
	"\n"
	"dut mr m size=8192 access=LOCAL_WRITE,REMOTE_WRITE,REMOTE_READ fill=0xab\n"
	"dut qp q type=RC pmtu=1024 psn=0x100 peer_psn=1000 timeout=14 retry_cnt=7 ip=6 state=RTR\n"
	"peer mr t size=4096 fill=7\n"
	"dut post_recv q m offset=0 len=4096 wr_id=1\n"
	"dut post_send q RDMA_WRITE m offset=0 len=100 remote=$t.addr rkey=$t.rkey wr_id=2\n"
	"expect q RDMA_WRITE_ONLY psn=$q.psn ackreq=1 len=100 reth.rkey=$t.rkey within 50ms\n"
	"expect q WRITE_ONLY psn=?p len>=1 \\\n"
	"       within 1ms..2s\n"
	"inject q SEND_ONLY psn=$q.peer_psn + 1 - 0 len=$port.mtu bth.tver=1 icrc=bad\n"
	"inject q rc-send-only data=x\"de ad be ef\" ip_options=x\"01010100\" src_ip=other dst_ip=other\n"
	"expect q ACK aeth=NAK_SEQ psn=$q.peer_psn msn!=5\n"
	"expect nothing q within 100ms\n"
	"expect nothing within 1.5ms\n"
	"expect completion q wr_id=2 status=SUCCESS opcode=RDMA_WRITE within 1s\n"
	"expect no completion q within 10ms\n"
	"peer q send len=100 imm=5\n"
	"peer q write remote=$m.addr rkey=$m.rkey data=\"hello\"\n"
	"peer q cmp_swap remote=$m.addr rkey=$m.rkey compare=0 swap=1\n"
	"peer q set auto=off rnr=on rnr_timer=14 recv=3\n"
	"expect peer q status=SUCCESS value=?old\n"
	"expect mem t offset=4 data=\"abc\"\n"
	"dut write m offset=8 data=\"xyz\"\n"
	"dut read m offset=8 len=3 -> data=\"xyz\"\n"
	"dut query q -> state=RTS sq_psn=?sq\n"
	"dut modify q state=ERR\n"
	"on tx q opcode=SEND_ONLY psn=$p+1 round=2 do drop\n"
	"on rx any nth=2 count=1 do delay 5ms\n"
	"on tx q do reorder 2\n"
	"on tx q do set bth.pkey=0x7fff\n"
	"on rx q do corrupt_icrc\n"
	"on tx q do ecn_ce\n"
	"on tx q do duplicate\n"
	"off all\n"
	"wait 10ms\n"
	"inform A17.9.3-CNP-PACING \"seen\" $sq, $old\n"
	"inform \"plain\"\n"
	"check $sq * 2 / 4 + 10ms >= 5us - 1 else inform IBA9.7-TIMEOUT \"early\"\n"
	"check $old != 0\n"
	"expect q ACK delay=?d\n"
	"expect q ACK delay<2ms\n"
	"inject q SEND_ONLY len=8 repeat=3 every=10us\n"
	"measure q ACK for 5ms -> count=3 rate=?rt min_gap>=1us\n"
	"measure q any for 1ms\n"
	"check $counters.bad_icrc_dropped >= $old else inform \"not counted\"\n"
	"load q write len=64 remote=$t.addr rkey=$t.rkey count=1000 rate=100000 duration=2s within 1s -> completed=1000 lost=0 achieved=?ach\n";

static void test_good(void)
{
	struct cl_diag d;
	struct cl_case *c = cl_parse_text("good.case", good, strlen(good), &d);
	CHECK(c != NULL, "good case parses: %s", d.msg);
	if (!c)
		return;
	CHECK(!strcmp(c->id, "RC-RESP-DEMO-001"), "id");
	CHECK(!strcmp(c->title, "A demo: every statement \"kind\""), "title with escapes: %s", c->title);
	CHECK(c->n_rules == 2 && !strcmp(c->rules[1], "CA17-24"), "rules");
	CHECK(c->caps == (CL_CAP_RC | CL_CAP_ATOMIC), "caps");
	CHECK(c->unless_caps == (CL_CAP_RCM | CL_CAP_UD), "unless caps");
	CHECK(c->n_mutants == 2 && !strcmp(c->mutants[1], "psn-seq-nak-repeat"), "mutants");
	CHECK(c->ip_versions == 1u << 4 && c->pmtu == 512 && c->timeout_ns == 20000000000ull, "ip, pmtu, timeout");
	CHECK(c->n_steps == 44, "44 steps, got %u", c->n_steps);
	const struct cl_step *s = &c->steps[0];
	CHECK(s->kind == CL_DUT_MR && !strcmp(s->name, "m") && s->loc.line == 12 && s->loc.col == 1, "dut mr at 12:1");
	const struct cl_arg *acc = cl_step_arg(s, "access");
	CHECK(acc && acc->v.kind == CL_V_LIST && acc->v.n_list == 3, "access list");
	s = &c->steps[5];
	CHECK(s->kind == CL_EXPECT_PKT && s->opcode == ROCE_OP_RC_WRITE_ONLY && s->has_within && s->within_max == 50000000, "expect WRITE ONLY");
	CHECK(!strcmp(s->text, "expect q RDMA_WRITE_ONLY psn=$q.psn ackreq=1 len=100 reth.rkey=$t.rkey within 50ms"),
	      "step text kept: %s", s->text);
	s = &c->steps[6];
	CHECK(s->within_min == 1000000 && s->within_max == 2000000000ull, "window across a continuation line");
	CHECK(cl_step_arg(s, "psn")->v.kind == CL_V_BIND && cl_step_arg(s, "len")->cmp == CL_GE, "bind and compare");
	s = &c->steps[7];
	const struct cl_arg *psn = cl_step_arg(s, "psn");
	CHECK(psn && psn->v.expr.n == 3 && psn->v.expr.terms[1].sign == 1 && psn->v.expr.terms[2].sign == -1 &&
		      !strcmp(psn->v.expr.terms[0].member, "peer_psn"), "expression terms");
	s = &c->steps[8];
	const struct cl_arg *data = cl_step_arg(s, "data");
	CHECK(s->opcode == ROCE_OP_RC_SEND_ONLY && data && data->v.n_bytes == 4 && data->v.bytes[0] == 0xde, "hex bytes");
	CHECK(cl_step_arg(s, "ip_options")->v.n_bytes == 4 && !strcmp(cl_step_arg(s, "src_ip")->v.word, "other"),
	      "ip_options, src_ip");
	CHECK(c->steps[11].kind == CL_EXPECT_NOTHING && c->steps[11].within_max == 1500000, "fractional duration");
	CHECK(c->steps[15].kind == CL_PEER_OP && !strcmp(c->steps[15].verb, "write"), "peer write");
	CHECK(c->steps[17].kind == CL_PEER_SET, "peer set");
	CHECK(c->steps[21].kind == CL_DUT_READ && cl_step_arg(&c->steps[21], "data")->result, "-> marks results");
	s = &c->steps[24];
	CHECK(s->kind == CL_RULE && !s->rx && s->action == CL_ACT_DROP && s->opcode == ROCE_OP_RC_SEND_ONLY, "rule drop");
	s = &c->steps[25];
	CHECK(s->rx && !s->qp && s->action == CL_ACT_DELAY && s->action_ns == 5000000, "rule delay on any QP");
	CHECK(c->steps[26].action == CL_ACT_REORDER && c->steps[26].action_n == 2, "reorder 2");
	CHECK(c->steps[27].action == CL_ACT_SET && !strcmp(c->steps[27].set_field, "bth.pkey"), "set field");
	CHECK(c->steps[32].kind == CL_WAIT, "wait");
	s = &c->steps[33];
	CHECK(s->kind == CL_INFORM && !strcmp(s->info_rule, "A17.9.3-CNP-PACING") && !strcmp(s->info_text, "seen") &&
		      s->n_show == 2 && !strcmp(s->show[1].sym, "old"), "inform with a rule and symbols");
	s = &c->steps[34];
	CHECK(s->kind == CL_INFORM && !s->info_rule && !strcmp(s->info_text, "plain") && !s->n_show, "plain inform");
	s = &c->steps[35];
	CHECK(s->kind == CL_CHECK && s->cmp == CL_GE && s->else_inform && !strcmp(s->info_rule, "IBA9.7-TIMEOUT") &&
		      !strcmp(s->info_text, "early"), "check ... else inform");
	CHECK(s->lhs.n == 2 && s->lhs.terms[0].mul == 2 && s->lhs.terms[0].div == 4 && s->lhs.terms[1].duration &&
		      s->lhs.terms[1].num == 10000000 && s->rhs.n == 2 && s->rhs.terms[0].num == 5000 &&
		      s->rhs.terms[1].sign == -1, "check: products, quotients and durations in expressions");
	s = &c->steps[36];
	CHECK(s->kind == CL_CHECK && s->cmp == CL_NE && !s->else_inform, "plain check");
	CHECK(cl_step_arg(&c->steps[37], "delay")->v.kind == CL_V_BIND, "delay=?d binds");
	const struct cl_arg *dl = cl_step_arg(&c->steps[38], "delay");
	CHECK(dl->cmp == CL_LT && dl->v.kind == CL_V_EXPR && dl->v.expr.terms[0].num == 2000000, "delay<2ms");
	s = &c->steps[39];
	CHECK(s->kind == CL_INJECT && cl_step_arg(s, "repeat")->v.expr.terms[0].num == 3 &&
		      cl_step_arg(s, "every")->v.expr.terms[0].num == 10000, "inject repeat=3 every=10us");
	s = &c->steps[40];
	CHECK(s->kind == CL_MEASURE && s->opcode == ROCE_OP_RC_ACK && s->within_max == 5000000 && s->n_args == 3 &&
		      cl_step_arg(s, "count")->result && cl_step_arg(s, "rate")->v.kind == CL_V_BIND &&
		      cl_step_arg(s, "min_gap")->cmp == CL_GE, "measure with results");
	CHECK(c->steps[41].kind == CL_MEASURE && c->steps[41].opcode == -1 && !c->steps[41].n_args, "measure any");
	s = &c->steps[42];
	CHECK(s->kind == CL_CHECK && s->lhs.terms[0].is_sym && !strcmp(s->lhs.terms[0].sym, "counters") &&
		      !strcmp(s->lhs.terms[0].member, "bad_icrc_dropped"), "check $counters.MEANING");
	s = &c->steps[43];
	CHECK(s->kind == CL_LOAD && !strcmp(s->verb, "write") && s->within_max == 1000000000ull &&
		      cl_step_arg(s, "duration")->v.expr.terms[0].num == 2000000000ull &&
		      cl_step_arg(s, "completed")->result && cl_step_arg(s, "achieved")->v.kind == CL_V_BIND &&
		      !cl_step_arg(s, "count")->result, "load with bounds, a rate and results");
	cl_case_free(c);
}

struct bad {
	const char *body; /* appended to a valid header (lines 1-3) unless it starts with '!' */
	enum cl_error code;
	unsigned line, col;
	const char *says; /* a piece of the message */
};

#define HDR "case X-1\ntitle \"t\"\nrules CA17-24\n"

static const struct bad bads[] = {
	{ "dut qp q\nexpect q ACK @\n", CL_ERR_CHAR, 5, 14, "unexpected character '@'" },
	{ "dut qp q\nexpect q ACK $\n", CL_ERR_CHAR, 5, 14, "'$' must be followed by a name" },
	{ "dut qp q\ninject q SEND_ONLY data=\"abc\n", CL_ERR_STRING, 5, 25, "unterminated string" },
	{ "dut qp q\ninject q SEND_ONLY data=\"a\\q\"\n", CL_ERR_STRING, 5, 27, "unknown escape" },
	{ "dut qp q\ninject q SEND_ONLY data=x\"0g\"\n", CL_ERR_HEX, 5, 28, "not a hex digit" },
	{ "dut qp q\ninject q SEND_ONLY data=x\"012\"\n", CL_ERR_HEX, 5, 25, "odd number of hex digits" },
	{ "dut qp q\ninject q SEND_ONLY psn=0x\n", CL_ERR_NUMBER, 5, 24, "without hex digits" },
	{ "dut qp q\ninject q SEND_ONLY psn=99999999999999999999999\n", CL_ERR_NUMBER, 5, 24, "64 bits" },
	{ "wait 10 parsecs\n", CL_ERR_EXPECTED, 4, 6, "a duration after 'wait'" },
	{ "wait 10xs\n", CL_ERR_UNIT, 4, 6, "unknown unit" },
	{ "wait 1.5\n", CL_ERR_UNIT, 4, 6, "a fraction needs a unit" },
	{ "wait 777777777777777ms\n", CL_ERR_NUMBER, 4, 6, "duration too long" }, /* fuzz/regress/case_lang */
	{ "dut qp q\ninject q SEND_ONLY psn=\n", CL_ERR_EXPECTED, 5, 24, "expected a number or $symbol" },
	{ "dut qp q\ninject q SEND_ONLY psn 5\n", CL_ERR_EXPECTED, 5, 24, "'=' after the argument name" },
	{ "frobnicate\n", CL_ERR_STATEMENT, 4, 1, "unknown statement 'frobnicate'" },
	{ "dut dance q\n", CL_ERR_STATEMENT, 4, 5, "unknown DUT verb 'dance'" },
	{ "dut qp q\npeer q juggle\n", CL_ERR_STATEMENT, 5, 8, "unknown tester operation" },
	{ "!title \"x\"\ncase A\n", CL_ERR_HEADER_ORDER, 1, 1, "must start with 'case ID'" },
	{ "dut qp q\ntitle \"again\"\n", CL_ERR_HEADER_ORDER, 5, 1, "after the first step" },
	{ "!case A\ncase B\n", CL_ERR_DUPLICATE, 2, 1, "a second 'case'" },
	{ "!case A\ntitle \"a\"\ntitle \"b\"\n", CL_ERR_DUPLICATE, 3, 1, "a second 'title'" },
	{ "dut qp q\ndut mr q\n", CL_ERR_DUPLICATE, 5, 8, "'q' is already defined" },
	{ "dut qp q\ninject q SEND_ONLY psn=1 psn=2\n", CL_ERR_DUPLICATE, 5, 26, "given twice" },
	{ "dut qp q\nexpect q ACK within 1ms within 2ms\n", CL_ERR_DUPLICATE, 5, 25, "a second 'within'" },
	{ "!case A\ntitle \"a\"\ndut qp q\n", CL_ERR_MISSING, 3, 1, "names no rules" },
	{ "!case A\nrules CA17-1\ndut qp q\n", CL_ERR_MISSING, 3, 1, "has no title" },
	{ "!case A\ntitle \"a\"\nrules CA17-1\n", CL_ERR_MISSING, 4, 1, "without steps" },
	{ "!", CL_ERR_MISSING, 1, 1, "empty case file" },
	{ "dut qp q\nexpect nothing q\n", CL_ERR_MISSING, 5, 1, "needs a time window" },
	{ "dut mr m\ndut write m offset=0\n", CL_ERR_MISSING, 5, 1, "needs data=" },
	{ "dut qp q\npeer q write len=5\n", CL_ERR_MISSING, 5, 8, "needs remote= and rkey=" },
	{ "dut qp q\ndut modify q\n", CL_ERR_MISSING, 5, 1, "needs state=" },
	{ "dut qp q colour=blue\n", CL_ERR_ARGUMENT, 4, 10, "unknown argument 'colour' for 'dut qp'" },
	{ "dut mr m\ndut read m offset=0 data=\"x\"\n", CL_ERR_ARGUMENT, 5, 21, "is a result; expected it after '->'" },
	{ "dut qp q type=XRC\n", CL_ERR_VALUE, 4, 15, "'XRC' is not a value of type" },
	{ "dut qp q\ndut mr m\ndut read m -> l3_header=q\n", CL_ERR_KIND, 6, 25, "'q' is not a UD QP" },
	{ "dut qp q type=UD\ndut mr m\ndut read m len=4 -> l3_header=q\n", CL_ERR_ARGUMENT, 6, 21, "reads 40 bytes itself" },
	{ "dut mr m\ndut read m -> l3_header=nope\n", CL_ERR_UNDEFINED, 5, 25, "'nope' is not defined above" },
	{ "dut qp q ip=5\n", CL_ERR_VALUE, 4, 13, "ip= takes the IP version of the QP" },
	{ "dut qp q state=SQD\n", CL_ERR_VALUE, 4, 16, "'SQD' is not a value of state" },
	{ "dut qp q proto=v3\n", CL_ERR_VALUE, 4, 16, "'v3' is not a value of proto" },
	{ "dut qp q\nexpect q ACK proto=1\n", CL_ERR_VALUE, 5, 20, "proto" },
	{ "dut qp q\ndut mr m\ndut post_send q SEND m proto=v1\n", CL_ERR_VALUE, 6, 24, "is for a UD QP" },
	{ "dut qp q psn=\"abc\"\n", CL_ERR_VALUE, 4, 14, "psn: found bytes; expected a number" },
	{ "dut qp q\ninject q SEND_ONLY psn=?x\n", CL_ERR_VALUE, 5, 24, "cannot bind" },
	{ "dut qp q\ninject q SEND_ONLY src_ip=mine\n", CL_ERR_VALUE, 5, 27, "'mine' is not a value of src_ip" },
	{ "dut qp q\ninject q SEND_ONLY ip_options=\"\"\n", CL_ERR_VALUE, 5, 31, "ip_options= has 0 bytes" },
	{ "dut qp q\ninject q SEND_ONLY psn!=4\n", CL_ERR_VALUE, 5, 23, "takes only '='" },
	{ "dut qp q\nexpect q ACK aeth=MAYBE\n", CL_ERR_VALUE, 5, 19, "'MAYBE' is not a value of aeth; expected one of ACK, RNR, NAK, NAK_SEQ" },
	{ "dut qp q\non tx q do explode\n", CL_ERR_VALUE, 5, 12, "unknown action 'explode'" },
	{ "dut qp q type=UD\npeer q read remote=1 rkey=2 len=3\n", CL_ERR_VALUE, 5, 8, "a UD QP can only send" },
	{ "dut qp q\nexpect q ACK within 5ms..1ms\n", CL_ERR_VALUE, 5, 14, "ends before it starts" },
	{ "!case A\ntitle \"a\"\nrules CA17-99\n", CL_ERR_RULE_ID, 3, 7, "'CA17-99' is not in the rule catalogue" },
	{ "!case A\ntitle \"a\"\nrules CA17-1, CA17-2, CA17-1\n", CL_ERR_DUPLICATE, 3, 23, "rule CA17-1 is named twice" },
	{ "!case A\ntitle \"a\"\nrules CA17-1\nrequires RC, WARP\n", CL_ERR_CAPABILITY, 4, 14, "unknown capability 'WARP'" },
	{ "!case A\ntitle \"a\"\nrules CA17-1\nrequires RC\nunless RCM, RC\n", CL_ERR_VALUE, 5, 13, "RC is both required and excluded" },
	{ "!case A\ntitle \"a\"\nrules CA17-1\nunless RCM\nunless UD\n", CL_ERR_DUPLICATE, 5, 1, "a second 'unless'" },
	{ "!case A\ntitle \"a\"\nrules CA17-1\nmutants 5\n", CL_ERR_EXPECTED, 4, 9, "a soft-DUT fault profile name" },
	{ "expect q ACK\n", CL_ERR_UNDEFINED, 4, 8, "'q' is not defined above" },
	{ "dut qp q\ninject q SEND_ONLY psn=$nope\n", CL_ERR_UNDEFINED, 5, 24, "$nope is not defined" },
	{ "dut qp q\ninject q SEND_ONLY psn=$q.colour\n", CL_ERR_MEMBER, 5, 24, "q has no member 'colour'" },
	{ "dut qp q\ninject q SEND_ONLY psn=$q\n", CL_ERR_MEMBER, 5, 24, "expected $q.MEMBER" },
	{ "dut qp q\ninject q SEND_ONLY len=$port.speed\n", CL_ERR_MEMBER, 5, 24, "expected $port.mtu" },
	{ "check $counters.colour >= 1\n", CL_ERR_MEMBER, 4, 7, "$counters has the members bad_icrc_dropped, " },
	{ "dut qp q\nload q send len=8\n", CL_ERR_MISSING, 5, 8, "a load needs count= or duration=" },
	{ "dut qp q\nload q write count=5\n", CL_ERR_MISSING, 5, 8, "'load write' needs remote= and rkey=" },
	{ "dut qp q\nload q flood count=5\n", CL_ERR_STATEMENT, 5, 8, "unknown load operation 'flood'" },
	{ "dut qp q\nload q send duration=5\n", CL_ERR_VALUE, 5, 13, "duration= takes a duration" },
	{ "dut qp q\nload q send count=5 -> speed=5\n", CL_ERR_ARGUMENT, 5, 24, "unknown argument 'speed' for 'load'" },
	{ "check $counters >= 1\n", CL_ERR_MEMBER, 4, 7, "expected $counters.MEANING" },
	{ "dut qp q\ninject q SEND_ONLY len=$counters.cnps_sent\n", CL_ERR_MEMBER, 5, 24, "$counters is for check statements only" },
	{ "dut qp q\ndut mr m\ndut post_recv m m\n", CL_ERR_KIND, 6, 15, "'m' is a DUT MR; expected a QP" },
	{ "dut qp q type=UC\nexpect q RDMA_READ_REQUEST\n", CL_ERR_OPCODE, 5, 10, "is not an opcode of UC" },
	{ "dut qp q\ninject q SEND_ALMOST\n", CL_ERR_OPCODE, 5, 10, "is not an opcode of RC" },
	{ "dut qp q\nexpect q ACK bth.colour=1\n", CL_ERR_FIELD, 5, 14, "no header field 'bth.colour'" },
	{ "dut qp q\non tx q do set ipv4.nope=1\n", CL_ERR_FIELD, 5, 16, "no header field 'ipv4.nope'" },
	{ "!case A\ntitle \"a\"\nrules CA17-1\npmtu 1500\n", CL_ERR_EXPECTED, 4, 6, "a path MTU" },
	{ "!case A\ntitle \"a\"\nrules CA17-1\nip 5\n", CL_ERR_EXPECTED, 4, 4, "4 or 6" },
	{ "dut qp q extra\n", CL_ERR_ARGUMENT, 4, 10, "unknown argument 'extra'" },
	{ "dut qp q\non tx q opcode=ACK\n", CL_ERR_EXPECTED, 5, 19, "'do' and an action" },
	{ "dut qp q\nexpect q ACK psn=1 -> msn=2\n", CL_ERR_EXPECTED, 5, 20, "has no result to check" },
	{ "dut qp q\ndut query q -> state=RTS, RTR\n", CL_ERR_VALUE, 5, 25, "state takes one word, not a list; expected" },
	{ "inform CA17-99 \"x\"\n", CL_ERR_RULE_ID, 4, 8, "'CA17-99' is not in the rule catalogue" },
	{ "inform 5\n", CL_ERR_EXPECTED, 4, 8, "the informative finding's \"text\"" },
	{ "dut qp q\ninform \"x\" 5\n", CL_ERR_EXPECTED, 5, 12, "a $symbol whose value" },
	{ "inform \"x\" $nope\n", CL_ERR_UNDEFINED, 4, 12, "$nope is not defined" },
	{ "dut qp q\ncheck $q.psn\n", CL_ERR_EXPECTED, 5, 13, "a comparison" },
	{ "check 1 < 2 else stop\n", CL_ERR_EXPECTED, 4, 18, "'inform' after 'else'" },
	{ "check 1 / 0 < 2\n", CL_ERR_EXPECTED, 4, 11, "a number other than 0 to divide by" },
	{ "dut qp q\ncheck 1 * $q.psn < 2\n", CL_ERR_EXPECTED, 5, 11, "a number to multiply by" },
	{ "check 1 < 2 else inform\n", CL_ERR_EXPECTED, 4, 24, "the informative finding's" },
	{ "dut qp q\nmeasure q ACK\n", CL_ERR_EXPECTED, 5, 14, "'for' and the length" },
	{ "dut qp q\nmeasure q ACK for 5\n", CL_ERR_EXPECTED, 5, 19, "a duration after 'for'" },
	{ "dut qp q\nmeasure q ACK for 5ms count=1\n", CL_ERR_ARGUMENT, 5, 23, "is a result" },
	{ "dut qp q\ninject q SEND_ONLY every=1ms\n", CL_ERR_MISSING, 5, 1, "expected repeat=N" },
	{ "dut qp q type=UD\ndut listen q port=1\n", CL_ERR_KIND, 5, 1, "'q' is not an RC QP" },
	{ "dut qp q\ndut listen q\n", CL_ERR_MISSING, 5, 1, "'dut listen' needs port=" },
	{ "dut qp q\nexpect q APR else inform \"x\"\n", CL_ERR_MISSING, 5, 1, "needs a time window" },
	{ "dut qp q\nexpect q APR within 1s else stop\n", CL_ERR_EXPECTED, 5, 29, "'inform' (an informative finding when nothing comes) or 'unreached'" },
	{ "dut qp q\nexpect q ACK else unreached \"x\"\n", CL_ERR_MISSING, 5, 1, "'expect ... else unreached' needs a time window" },
	{ "dut qp q\nexpect nothing q within 1ms else inform \"x\"\n", CL_ERR_EXPECTED, 5, 34, "'unreached' after 'else'" },
	{ "dut qp q\nexpect q ACK within 1ms else unreached\n", CL_ERR_EXPECTED, 5, 39, "the informative finding's \"text\"" },
	{ "dut qp q\ninject q SEND_ONLY icrc=wobbly\n", CL_ERR_VALUE, 5, 25, "'wobbly' is not a value of icrc" },
	{ "dut qp q\nexpect q APR apr.colour=1\n", CL_ERR_FIELD, 5, 14, "no header field 'apr.colour'" },
	/* Roles, word lists, conditions. */
	{ "dut qp q\nexpect nothing q within 1ms as router\n", CL_ERR_EXPECTED, 5, 32, "a role after 'as'" },
	{ "dut qp q\ninject q SEND_ONLY as receiver\n", CL_ERR_ARGUMENT, 5, 20, "not on 'inject'" },
	{ "dut qp q\nexpect q ACK aeth=NAK_INVALID,NAK_PURPLE\n", CL_ERR_VALUE, 5, 31, "'NAK_PURPLE' is not a value of aeth" },
	{ "dut qp q\nexpect completion q status=SUCCESS,OOPS\n", CL_ERR_VALUE, 5, 36, "'OOPS' is not a value of status" },
	{ "check 1 = 2 else inform \"x\" if 3\n", CL_ERR_EXPECTED, 4, 33, "a comparison" },
	{ "dut qp qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq\n", CL_ERR_LENGTH, 4, 8, "a word of 65 characters; expected at most 64" },
	{ "dut qp q\ninject q SEND_ONLY psn=$aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", CL_ERR_LENGTH, 5, 24, "a name of 65 characters" },
	{ "dut qp q\ninject q SEND_ONLY psn=$q.mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm\n", CL_ERR_LENGTH, 5, 24, "a member name of 65 characters" },
};

/* CM messages in place of opcodes, their fields, dut listen, else inform. */
static void test_cm(void)
{
	static const char text[] = "case CM-1\ntitle \"cm\"\nrules CA17-34\n"
				   "dut qp q type=RC state=RESET\ndut listen q port=18515\n"
				   "inject q REQ req.primary_local_lid=0xBEEF bth.pkey=0x7FFF\n"
				   "expect q APR apr.status=?st within 1s else inform CA17-37 \"silent\"\n";
	struct cl_diag d;
	struct cl_case *c = cl_parse_text("cm.case", text, strlen(text), &d);
	CHECK(c != NULL, "CM case parses: %s", d.msg);
	if (!c)
		return;
	CHECK(c->n_steps == 4 && c->steps[1].kind == CL_DUT_LISTEN, "dut listen");
	CHECK(c->steps[2].cm_attr == ROCE_CM_REQ && c->steps[2].opcode == ROCE_MAD_OPCODE && c->steps[2].n_args == 2,
	      "inject REQ with a CM field and a packet field");
	const struct cl_step *e = &c->steps[3];
	CHECK(e->cm_attr == ROCE_CM_APR && e->else_inform && !strcmp(e->info_rule, "CA17-37") &&
	      !strcmp(e->info_text, "silent") && e->within_max == 1000000000ull, "expect APR ... else inform");
	CHECK(cl_cm_msg_lookup("SIDR_REP") == ROCE_CM_SIDR_REP && cl_cm_msg_lookup("SEND_ONLY") == 0, "CM names");
	cl_case_free(c);
}


/* Preconditions (else unreached) and an injected ICRC made as an
 * implementation's known mistake would make it. */
static void test_preconditions(void)
{
	static const char text[] = "case P-1\ntitle \"p\"\nrules IBA1.5-FLUSH-ACCESS\n"
				   "dut qp q\n"
				   "inject q FLUSH icrc=headers-twice\n"
				   "expect nothing q within 200ms else unreached CA17-22 \"twice\"\n"
				   "inject q FLUSH icrc=bad\n"
				   "expect q any aeth=ACK within 500ms else unreached \"no answer\"\n"
				   "expect q ACK within 1s\n";
	struct cl_diag d;
	struct cl_case *c = cl_parse_text("p.case", text, strlen(text), &d);
	CHECK(c != NULL, "preconditions parse: %s", d.msg);
	if (!c)
		return;
	const struct cl_arg *twice = &c->steps[1].args[0], *bad = &c->steps[3].args[0];
	CHECK(twice->id == CL_K_icrc && twice->v.word_id == CL_ICRC_MISTAKE + ROCE_ICRC_MISTAKE_HEADERS_TWICE,
	      "icrc=headers-twice: libroce's mistake");
	CHECK(bad->id == CL_K_icrc && bad->v.word_id == CL_ICRC_BAD, "icrc=bad");
	const struct cl_step *n = &c->steps[2], *e = &c->steps[4], *plain = &c->steps[5];
	CHECK(n->kind == CL_EXPECT_NOTHING && n->unreached && !n->else_inform && !strcmp(n->info_rule, "CA17-22") &&
	      !strcmp(n->info_text, "twice"), "expect nothing ... else unreached RULE");
	CHECK(e->kind == CL_EXPECT_PKT && e->unreached && !e->else_inform && !e->info_rule && !strcmp(e->info_text, "no answer"),
	      "expect ... else unreached");
	CHECK(!plain->unreached && !plain->else_inform, "a plain expectation");
	cl_case_free(c);
	/* Every word inject's icrc= takes is one of libroce's mistakes. */
	for (int m = ROCE_ICRC_MISTAKE_NONE + 1; m < ROCE_ICRC_MISTAKE_COUNT; m++) {
		char t[256];
		snprintf(t, sizeof t, "case P-2\ntitle \"p\"\nrules CA17-22\ndut qp q\ninject q SEND_ONLY icrc=%s\n",
			 roce_icrc_mistake_name((enum roce_icrc_mistake)m));
		c = cl_parse_text("p2.case", t, strlen(t), &d);
		CHECK(c && c->steps[1].args[0].v.word_id == CL_ICRC_MISTAKE + m, "icrc=%s parses as the mistake: %s",
		      roce_icrc_mistake_name((enum roce_icrc_mistake)m), c ? "" : d.msg);
		if (c)
			cl_case_free(c);
	}
}

/* The DUT's role in each checking step: derived from the step or its
 * stimulus, or written with 'as'; which rules bind it there. */
static void test_roles(void)
{
	static const char text[] =
		"case R-1\ntitle \"roles\"\nrules CA17-7, CA17-24, IBA9.7-RESP-CHECK, A17.3.2-SPORT\n"
		"mutants accept-no-df informative, no-resp-check\n"
		"dut mr m\ndut qp q\n"
		"dut query q -> state=RTS hop_limit=?hl\n"                                   /* 2: nothing done yet */
		"inject q SEND_ONLY ipv4.df=0\nexpect nothing q within 1ms\n"               /* 4: receiver, responder */
		"expect q ACK aeth=NAK_INVALID,NAK_ACCESS within 1ms\n"                     /* 5: sender, responder, receiver */
		"dut post_send q RDMA_READ m len=8\nexpect q READ_REQUEST within 1ms\n"     /* 7: sender, requester */
		"inject q READ_RESPONSE_LAST\nexpect completion q status!=SUCCESS\n"        /* 9: receiver, requester */
		"expect completion q status=BAD_RESP_ERR,REM_INV_REQ_ERR\n"                 /* 10 */
		"check $hl = 17 else inform \"os\" if $hl = 64\n"                          /* 11: receiver, requester */
		"expect no completion q within 1ms as sender, CM\n";                        /* 12: written */
	struct cl_diag d;
	struct cl_case *c = cl_parse_text("roles.case", text, strlen(text), &d);
	CHECK(c != NULL, "roles case parses: %s", d.msg);
	if (!c)
		return;
	const unsigned S = ROCE_ROLE_SENDER, R = ROCE_ROLE_RECEIVER, Q = ROCE_ROLE_REQUESTER, P = ROCE_ROLE_RESPONDER;
	CHECK(c->steps[2].roles == ROCE_ROLE_ALL, "a check before any stimulus: every role (%#x)", c->steps[2].roles);
	CHECK(c->steps[4].roles == (R | P), "expect nothing after an injected request: receiver, responder (%#x)", c->steps[4].roles);
	CHECK(c->steps[5].roles == (S | R | P), "an expected ACK: its sender, the responder (%#x)", c->steps[5].roles);
	CHECK(c->steps[7].roles == (S | Q), "an expected request: sender, requester (%#x)", c->steps[7].roles);
	CHECK(c->steps[9].roles == (R | Q), "a completion after an injected response: receiver, requester (%#x)", c->steps[9].roles);
	CHECK(c->steps[11].roles == (R | Q) && c->steps[11].has_cond && c->steps[11].cond_cmp == CL_EQ, "check ... if");
	CHECK(c->steps[12].roles == (S | ROCE_ROLE_CM) && c->steps[12].roles_explicit, "as sender, CM");
	CHECK(c->steps[1].roles == 0, "steps that check nothing have no roles");
	/* Which rules bind: CA17-24 the receiver, CA17-7 the sender, the
	 * response check the requester; a should binds nobody. */
	unsigned idx[8];
	CHECK(cl_binding_rules(c, 4, c->steps[4].roles, idx, 8) == 1 && !strcmp(c->rules[idx[0]], "CA17-24"),
	      "as receiver, CA17-24 binds");
	CHECK(cl_binding_rules(c, 4, c->steps[7].roles, idx, 8) == 2 && !strcmp(c->rules[idx[0]], "CA17-7") &&
	      !strcmp(c->rules[idx[1]], "IBA9.7-RESP-CHECK"), "as sender and requester, CA17-7 and the response check");
	CHECK(cl_binding_rules(c, 4, ROCE_ROLE_DEVICE, idx, 8) == 0, "nothing binds the device here");
	char why[300];
	cl_unbound_reason(c, 4, R | P, why, sizeof why);
	CHECK(strstr(why, "CA17-7 binds the sender (must)") && strstr(why, "A17.3.2-SPORT binds the sender (should)") &&
	      strstr(why, "the DUT is the receiver, responder here"), "why not judged: %s", why);
	/* Word lists and '!=' accept what they say. */
	const struct cl_arg *st = cl_step_arg(&c->steps[9], "status"), *st2 = cl_step_arg(&c->steps[10], "status");
	CHECK(st && cl_word_arg_accepts(st, AP_WC_BAD_RESP_ERR) && !cl_word_arg_accepts(st, AP_WC_SUCCESS) &&
	      !cl_word_arg_accepts(st, CL_WORD_ABSENT) && cl_word_arg_accepts(st, -1), "status!=SUCCESS");
	CHECK(st2 && cl_word_arg_accepts(st2, AP_WC_REM_INV_REQ_ERR) && !cl_word_arg_accepts(st2, AP_WC_WR_FLUSH_ERR) &&
	      !cl_word_arg_accepts(st2, -1), "status list");
	char words[100];
	cl_word_arg_text(st2, words, sizeof words);
	CHECK(!strcmp(words, "BAD_RESP_ERR or REM_INV_REQ_ERR"), "list text: %s", words);
	cl_word_arg_text(st, words, sizeof words);
	CHECK(!strcmp(words, "not SUCCESS"), "!= text: %s", words);
	CHECK(c->n_mutants == 2 && c->mutant_informative[0] && !c->mutant_informative[1], "informative mutants");
	cl_case_free(c);
}

static void test_bad(void)
{
	bool reached[CL_ERR_COUNT] = { false };
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
		CHECK(strstr(d.msg, "expected") != NULL || strstr(d.msg, "must") || strstr(d.msg, "64 bits"),
		      "#%zu: says what was expected: %s", i, d.msg);
		reached[d.code] = true;
	}
	struct cl_diag d;
	CHECK(cl_parse_file("/nonexistent/x.case", &d) == NULL && d.code == CL_ERR_IO && strstr(d.msg, "/nonexistent/x.case"),
	      "unreadable file names the path: %s", d.msg);
	reached[d.code] = true;
	for (int e = 1; e < CL_ERR_COUNT; e++)
		CHECK(reached[e], "parse error '%s' is reached by some test input", cl_error_name((enum cl_error)e));
}

/* Words of CL_MAX_WORD characters are fine; a diagnostic longer than its
 * buffer (a path of thousands of characters) keeps its location first and
 * ends visibly cut. */
static void test_lengths(void)
{
	char text[512], word[CL_MAX_WORD + 1];
	memset(word, 'q', CL_MAX_WORD);
	word[CL_MAX_WORD] = '\0';
	snprintf(text, sizeof text, HDR "dut qp %s\nwait 1ms\n", word);
	struct cl_diag d;
	struct cl_case *c = cl_parse_text("w.case", text, strlen(text), &d);
	CHECK(c != NULL, "a name of %d characters parses: %s", CL_MAX_WORD, d.msg);
	cl_case_free(c);

	char path[3000];
	memset(path, 'p', sizeof path - 1);
	path[sizeof path - 1] = '\0';
	static const char bad[] = HDR "dut qp q extra\n";
	c = cl_parse_text(path, bad, strlen(bad), &d);
	size_t n = strlen(d.msg);
	CHECK(!c && d.code == CL_ERR_ARGUMENT && d.loc.line == 4, "the error is found: %s", cl_error_name(d.code));
	CHECK(n < sizeof d.msg && !strncmp(d.msg, path, 100), "the message starts with the path");
	CHECK(n >= 3 && !strcmp(d.msg + n - 3, "\xE2\x80\xA6"), "a cut message ends with an ellipsis: ...%s",
	      d.msg + (n > 20 ? n - 20 : 0));
	cl_case_free(c);
}

static void test_rule_ip_versions(void)
{
	static const char text[] = "case IPQ-1\ntitle \"t\"\nrules CA17-4 ipv4, CA17-13 ipv6, CA17-2\nwait 1ms\n";
	struct cl_diag d;
	struct cl_case *c = cl_parse_text("ipq.case", text, strlen(text), &d);
	CHECK(c != NULL, "rules with IP qualifiers parse: %s", d.msg);
	if (!c)
		return;
	CHECK(c->n_rules == 3, "three rules");
	CHECK(cl_rule_applies(c, 0, 4) && !cl_rule_applies(c, 0, 6), "CA17-4 ipv4 only on IPv4");
	CHECK(!cl_rule_applies(c, 1, 4) && cl_rule_applies(c, 1, 6), "CA17-13 ipv6 only on IPv6");
	CHECK(cl_rule_applies(c, 2, 4) && cl_rule_applies(c, 2, 6), "CA17-2 on both");
	CHECK(!cl_rule_applies(c, 3, 4) && !cl_rule_applies(c, 0, 5), "out of range");
	cl_case_free(c);
	static const char only4[] = "case IPQ-2\ntitle \"t\"\nrules CA17-2, CA17-13 ipv6\nip 4\nwait 1ms\n";
	c = cl_parse_text("ipq.case", only4, strlen(only4), &d);
	CHECK(!c && d.code == CL_ERR_VALUE && strstr(d.msg, "ipq.case:3:15: rule CA17-13 is limited to IPv6"),
	      "a rule limited to an IP version the case excludes: %s", d.msg);
	cl_case_free(c);
}

static void test_opcodes(void)
{
	CHECK(cl_opcode_lookup(ROCE_T_RC, "SEND_ONLY") == ROCE_OP_RC_SEND_ONLY, "RC SEND Only");
	CHECK(cl_opcode_lookup(ROCE_T_UC, "SEND_ONLY") == ROCE_OP_UC_SEND_ONLY, "UC SEND Only");
	CHECK(cl_opcode_lookup(ROCE_T_UD, "SEND_ONLY_WITH_IMM") == ROCE_OP_UD_SEND_ONLY_WITH_IMM, "UD SEND Only with Imm");
	CHECK(cl_opcode_lookup(ROCE_T_RC, "ACK") == ROCE_OP_RC_ACK && cl_opcode_lookup(ROCE_T_RC, "ATOMIC_ACK") == ROCE_OP_RC_ATOMIC_ACK, "ACKs");
	CHECK(cl_opcode_lookup(ROCE_T_RC, "READ_RESPONSE_MIDDLE") == ROCE_OP_RC_READ_RESPONSE_MIDDLE, "read response middle");
	CHECK(cl_opcode_lookup(ROCE_T_RC, "RDMA_READ_REQUEST") == ROCE_OP_RC_READ_REQUEST && cl_opcode_lookup(ROCE_T_RC, "READ_REQUEST") == ROCE_OP_RC_READ_REQUEST, "read request");
	CHECK(cl_opcode_lookup(ROCE_T_RC, "WRITE_FIRST") == ROCE_OP_RC_WRITE_FIRST && cl_opcode_lookup(ROCE_T_RC, "RDMA_WRITE_FIRST") == ROCE_OP_RC_WRITE_FIRST, "write first");
	CHECK(cl_opcode_lookup(ROCE_T_RC, "CNP") == ROCE_OP_CNP && cl_opcode_lookup(ROCE_T_RC, "CMP_SWAP") == ROCE_OP_RC_CMP_SWAP, "CNP, CmpSwap");
	CHECK(cl_opcode_lookup(1, "RDMA_READ_REQUEST") < 0, "UC has no READ");
	uint8_t v, m;
	CHECK(cl_aeth_word("nak_seq", &v, &m) && v == roce_syndrome_nak(ROCE_NAK_PSN_SEQ_ERR) && m == 0xFF, "NAK_SEQ");
	CHECK(cl_aeth_word("RNR", &v, &m) && v == roce_syndrome_rnr(0) && m == ROCE_SYNDROME_TYPE_MASK, "RNR");
	char caps[64];
	cl_caps_format(CL_CAP_RC | CL_CAP_RCM, caps, sizeof caps);
	CHECK(!strcmp(caps, "RC,RCM"), "caps format: %s", caps);
}

static void test_fuzz(void)
{
	/* Every prefix and single-byte mutation of the good case either
	 * parses or fails with a located message: never a crash (the
	 * sanitizer build checks the memory side). */
	size_t n = strlen(good);
	char *buf = malloc(n + 1);
	unsigned long long seed = 42;
	unsigned parsed = 0, failed = 0;
	for (size_t i = 0; i < n; i += 3) {
		struct cl_diag d;
		struct cl_case *c = cl_parse_text("p.case", good, i, &d);
		c ? parsed++ : failed++;
		CHECK(c || (d.loc.line >= 1 && strstr(d.msg, "p.case:")), "prefix %zu: %s", i, d.msg);
		cl_case_free(c);
	}
	for (int k = 0; k < 3000; k++) {
		memcpy(buf, good, n + 1);
		size_t at = (size_t)(test_rand(&seed) % n);
		buf[at] = (char)(test_rand(&seed) & 0xFF);
		struct cl_diag d;
		struct cl_case *c = cl_parse_text("m.case", buf, n, &d);
		c ? parsed++ : failed++;
		if (!c && !strstr(d.msg, "m.case:"))
			CHECK(0, "mutation at %zu: message without location: %s", at, d.msg);
		cl_case_free(c);
	}
	CHECK(parsed > 0 && failed > 0, "mutations both parse and fail (%u/%u)", parsed, failed);
	free(buf);
}

/* Each step's arguments resolved by name into its kind's struct, with the
 * default of the argument table where the case gives none, and every
 * argument keyed (header fields CL_K_FIELD). */
static void test_typed_args(void)
{
	static const char *const text =
		"case RC-RESP-TYPED-001\n"
		"title \"typed arguments\"\n"
		"rules CA17-24\n"
		"dut mr m size=8192\n"
		"dut qp q type=RC timeout=9 proto=v1\n"
		"dut post_send q RDMA_WRITE m rkey=5\n"
		"peer q send len=10\n"
		"inject q SEND_ONLY psn=3 repeat=2\n"
		"expect q ACK aeth=ACK psn=3 len>=0\n"
		"on tx q count=1 do drop\n"
		"dut listen q port=18515\n"
		"load q send count=50 -> completed=50 naks=?n\n";
	struct cl_diag d;
	struct cl_case *c = cl_parse_text("typed.case", text, strlen(text), &d);
	CHECK(c != NULL, "typed case parses: %s", d.msg);
	if (!c)
		return;
	const struct cl_dut_mr_args *mr = &c->steps[0].a.dut_mr;
	CHECK(mr->size.arg && mr->size.arg->id == CL_K_size && mr->size.arg->v.expr.terms[0].num == 8192, "mr size given");
	CHECK(!mr->fill.arg && mr->fill.def->kind == CL_DEF_NUM && mr->fill.def->num == 0, "mr fill defaults to 0");
	CHECK(!mr->access.arg && mr->access.def->kind == CL_DEF_WORD && strstr(mr->access.def->word, "LOCAL_WRITE"),
	      "mr access defaults to the table's words");
	const struct cl_dut_qp_args *qp = &c->steps[1].a.dut_qp;
	CHECK(qp->timeout.arg && qp->timeout.arg->v.expr.terms[0].num == 9 && qp->timeout.def->num == 14,
	      "qp timeout given; its default 14 in the table");
	CHECK(!qp->qkey.arg && qp->qkey.def->kind == CL_DEF_NUM && qp->qkey.def->num == 0x11111111, "qkey default");
	CHECK(!qp->retry_cnt.arg && qp->retry_cnt.def->num == 7 && !qp->hop_limit.arg && qp->hop_limit.def->num == 64,
	      "retry_cnt and hop_limit defaults");
	CHECK(!qp->pmtu.arg && qp->pmtu.def->kind == CL_DEF_RUN && qp->pmtu.def->word, "pmtu default from the run, described");
	CHECK(qp->proto.arg && !strcmp(qp->proto.arg->v.word, "v1") && !strcmp(qp->state.def->word, "RTS"), "proto, state");
	const struct cl_post_send_args *ps = &c->steps[2].a.post_send;
	CHECK(ps->rkey.arg && !ps->remote.arg && ps->remote.def->kind == CL_DEF_NONE && !strcmp(ps->signaled.def->word, "on"),
	      "post_send: rkey given, remote not, signaled on by default");
	const struct cl_peer_op_args *po = &c->steps[3].a.peer_op;
	CHECK(po->len.arg && po->len.arg->id == CL_K_len && !po->data.arg && po->remote.def->num == 0, "peer op");
	const struct cl_step *inj = &c->steps[4];
	CHECK(inj->a.inject.repeat.arg && !inj->a.inject.every.arg && inj->a.inject.every.def->num == 0 &&
		      inj->a.inject.repeat.def->num == 1, "inject repeat given, every defaults");
	CHECK(inj->n_args == 2 && inj->args[0].id == CL_K_FIELD && !strcmp(inj->args[0].key, "psn") &&
		      inj->args[1].id == CL_K_repeat, "a header field is CL_K_FIELD, keyed arguments their key");
	const struct cl_step *ex = &c->steps[5];
	CHECK(ex->n_args == 3 && ex->args[0].id == CL_K_aeth && ex->args[1].id == CL_K_FIELD && ex->args[2].id == CL_K_len,
	      "expect: constraints keyed in written order");
	const struct cl_rule_args *ru = &c->steps[6].a.rule;
	CHECK(ru->count.arg && !ru->nth.arg && ru->nth.def->num == 0 && !ru->psn.arg, "rule count, nth default");
	CHECK(c->steps[7].a.dut_listen.port.arg && c->steps[7].a.dut_listen.port.arg->v.expr.terms[0].num == 18515, "listen port");
	const struct cl_step *ld = &c->steps[8];
	const struct cl_load_args *la = &ld->a.load;
	CHECK(ld->kind == CL_LOAD && la->count.arg && la->count.arg->v.expr.terms[0].num == 50 && !la->len.arg &&
		      la->len.def->kind == CL_DEF_NUM && la->len.def->num == 64 && !la->rate.arg &&
		      la->rate.def->kind == CL_DEF_NONE && !la->duration.arg,
	      "load: count given, len defaults to 64, rate and duration bound only when given");
	CHECK(ld->n_args == 3 && ld->args[1].id == CL_K_completed && ld->args[1].result && ld->args[2].id == CL_K_naks &&
		      ld->args[2].v.kind == CL_V_BIND,
	      "load results keyed in written order");
	CHECK(!strcmp(cl_key_name(CL_K_max_dest_rd_atomic), "max_dest_rd_atomic") && !strcmp(cl_key_name(CL_K_auto), "auto"),
	      "key names");
	cl_case_free(c);
}

/* Words become values once, in the parser: the runner reads enums and
 * flags, never words, and a default in the table is resolved the same way
 * as a word written in the case. */
static void test_word_values(void)
{
	static const char *const text =
		"case RC-RESP-WORDS-001\n"
		"title \"word arguments as values\"\n"
		"rules CA17-24\n"
		"dut mr m access=remote_read,LOCAL_WRITE\n"            /* 0 */
		"dut qp q type=uc state=RTR\n"                         /* 1 */
		"dut qp r\n"                                           /* 2 */
		"dut post_send r rdma_write m rkey=5 signaled=off\n"   /* 3 */
		"peer r WRITE remote=0 rkey=1\n"                       /* 4 */
		"peer r set auto=off rnr=on\n"                          /* 5 */
		"expect r ACK aeth=NAK_SEQ,rnr icrc=bad proto=v1 within 1ms\n" /* 6 */
		"expect completion r status!=SUCCESS opcode=RECV\n"    /* 7 */
		"dut modify r state=ERR\n"                             /* 8 */
		"dut query r -> state=ERR\n"                           /* 9 */
		"load r read remote=0 rkey=1 count=5\n"                /* 10 */
		"load r send count=5 within 30ms\n"                    /* 11 */
		"peer mr pm\n";                                        /* 12 */
	struct cl_diag d;
	struct cl_case *c = cl_parse_text("words.case", text, strlen(text), &d);
	CHECK(c != NULL, "word case parses: %s", d.msg);
	if (!c)
		return;
	const struct cl_step *st = c->steps;
	CHECK(st[0].a.dut_mr.access.flags == (AP_ACCESS_REMOTE_READ | AP_ACCESS_LOCAL_WRITE), "written access flags, any case");
	CHECK(st[12].a.peer_mr.access.flags == (AP_ACCESS_REMOTE_WRITE | AP_ACCESS_REMOTE_READ | AP_ACCESS_REMOTE_ATOMIC),
	      "default access flags from the table's words");
	CHECK(st[1].a.dut_qp.type.word_id == AP_QPT_UC && c->syms[1].qp_type == ROCE_T_UC && st[1].a.dut_qp.state.word_id == AP_QPS_RTR,
	      "type=uc, state=RTR");
	CHECK(st[2].a.dut_qp.type.word_id == AP_QPT_RC && st[2].a.dut_qp.state.word_id == AP_QPS_RTS &&
		      st[2].a.dut_qp.proto.word_id == CL_PROTO_V2,
	      "defaults RC, RTS, v2 as values");
	CHECK(st[3].op == AP_WR_RDMA_WRITE && st[3].a.post_send.signaled.word_id == CL_OFF &&
		      st[3].a.post_send.solicited.word_id == CL_OFF && st[3].a.post_send.proto.word_id == -1,
	      "post_send verb, signaled=off, solicited's default, proto left to the QP");
	CHECK(st[4].op == AP_WC_RDMA_WRITE && st[4].a.peer_op.solicited.word_id == CL_OFF, "peer WRITE is the write operation");
	CHECK(st[5].args[0].v.word_id == CL_OFF && st[5].args[1].v.word_id == CL_ON, "peer set on/off");
	const struct cl_arg *aeth = cl_step_arg(&st[6], "aeth");
	CHECK(aeth && aeth->v.n_list == 2 && aeth->v.word_ids[0] == CL_AETH_NAK_SEQ && aeth->v.word_ids[1] == CL_AETH_RNR,
	      "aeth kinds");
	uint8_t v, m;
	cl_aeth_pattern(CL_AETH_RNR, &v, &m);
	CHECK(v == roce_syndrome_rnr(0) && m == ROCE_SYNDROME_TYPE_MASK, "RNR pattern");
	CHECK(cl_step_arg(&st[6], "icrc")->v.word_id == CL_ICRC_BAD && cl_step_arg(&st[6], "proto")->v.word_id == CL_PROTO_V1,
	      "icrc=bad proto=v1");
	const struct cl_arg *status = cl_step_arg(&st[7], "status"), *opcode = cl_step_arg(&st[7], "opcode");
	CHECK(status->v.word_ids[0] == AP_WC_SUCCESS && opcode->v.word_id == AP_WC_RECV &&
		      cl_word_arg_accepts(opcode, AP_WC_RECV) && !cl_word_arg_accepts(opcode, AP_WC_SEND),
	      "status and opcode as the protocol's values");
	CHECK(st[8].a.dut_modify.state.word_id == AP_QPS_ERR && cl_step_arg(&st[9], "state")->v.word_id == AP_QPS_ERR,
	      "modify and query states");
	CHECK(st[10].op == AP_WC_RDMA_READ && !st[10].has_within && st[10].a.load.within.def->num == 2000000000ull &&
		      !st[10].a.load.within.arg,
	      "load read; its drain time defaults to the table's 2 s");
	CHECK(st[11].op == AP_WC_SEND && st[11].has_within && st[11].within_max == 30000000ull, "load within 30ms");
	cl_case_free(c);

	/* Header fields too: resolved once, the shorthand's alternative
	 * picked by the packet's headers. */
	static const char *const fields =
		"case RC-RESP-FIELDS-001\n"
		"title \"field names as fields\"\n"
		"rules CA17-24\n"
		"dut qp q\n"
		"inject q SEND_ONLY rkey=5 bth.tver=1 len=4\n"
		"expect q REJ rej.reason=7 within 1ms\n"
		"on tx q do set ttl=3\n";
	c = cl_parse_text("fields.case", fields, strlen(fields), &d);
	CHECK(c != NULL, "field case parses: %s", d.msg);
	if (!c)
		return;
	const struct cl_arg *rk = &c->steps[1].args[0], *tv = &c->steps[1].args[1], *ln = &c->steps[1].args[2];
	CHECK(rk->field.f == roce_field_by_name("reth.rkey") && rk->field.alt == roce_field_by_name("atomiceth.rkey") &&
		      cl_field_in(&rk->field, 4, ROCE_XHDR_BIT(ROCE_H_RETH)) == rk->field.f &&
		      cl_field_in(&rk->field, 4, ROCE_XHDR_BIT(ROCE_H_ATOMICETH)) == rk->field.alt,
	      "rkey: the RETH's or the AtomicETH's");
	CHECK(tv->field.f == roce_field_by_name("bth.tver") && tv->field.alt == ROCE_F_COUNT && tv->field.mad == ROCE_MF_COUNT,
	      "a full field name");
	CHECK(ln->id == CL_K_len && ln->field.f == ROCE_F_COUNT && ln->field.mad == ROCE_MF_COUNT, "a keyed argument names no field");
	CHECK(c->steps[2].args[0].field.mad == roce_mad_field_by_name("rej.reason"), "a CM field");
	const struct cl_field *ttl = &c->steps[3].set_field_ref;
	CHECK(cl_field_in(ttl, 4, 0) == roce_field_by_name("ipv4.ttl") && cl_field_in(ttl, 6, 0) == roce_field_by_name("ipv6.hoplimit"),
	      "set ttl: IPv4's TTL or IPv6's hop limit");
	cl_case_free(c);
}

int main(void)
{
	test_good();
	test_typed_args();
	test_word_values();
	test_lengths();
	test_bad();
	test_cm();
	test_preconditions();
	test_roles();
	test_rule_ip_versions();
	test_opcodes();
	test_fuzz();
	return test_result("test_caselang");
}
