/*
 * The statements of UD multicast, shared receive queues and asynchronous
 * events: group, dut attach|detach|join|leave, peer attach, expect join,
 * expect leave, dut srq|arm, peer srq, expect event; and what the other statements take
 * of them (group=, srq=, peer_srq=, a query of or a receive posted to an
 * SRQ). A group is of one IP version: every QP it is used with speaks it.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "caseparse.h"
#include "roce/roce.h"
#include "text.h"

/* The IP version a QP or group speaks: the one pinned, else the case's
 * when it runs over one only; 0: the run's. */
static int sym_ipv(const struct parser *ps, const struct cl_sym *s)
{
	if (s->ipv)
		return s->ipv;
	unsigned v = ps->c->ip_versions;
	return v == 1u << 4 ? 4 : v == 1u << 6 ? 6 : 0;
}

static void ipv_text(int ipv, char *buf, size_t n)
{
	if (ipv)
		text_printf(buf, n, "IPv%d", ipv);
	else
		text_copy(buf, n, "of the run's IP version (the case runs over both)");
}

/* A QP and a group of one IP version. */
static void check_group_ip(struct parser *ps, const struct cl_sym *q, const struct cl_sym *g, struct cl_loc loc)
{
	int a = sym_ipv(ps, q), b = sym_ipv(ps, g);
	if (a == b)
		return;
	char qv[64], gv[64];
	ipv_text(a, qv, sizeof qv);
	ipv_text(b, gv, sizeof gv);
	cl_fail_at(ps, CL_ERR_VALUE, loc,
		"group '%s' is %s and QP '%s' is %s; expected a group of the QP's IP version (ip= on 'group %s' and 'dut qp %s', or the header 'ip 4' or 'ip 6')",
		g->name, gv, q->name, qv, g->name, q->name);
}

static void need_ud(struct parser *ps, const struct cl_sym *q, struct cl_loc loc, const char *what)
{
	if (q->qp_type != ROCE_T_UD)
		cl_fail_at(ps, CL_ERR_KIND, loc, "'%s' is a %s QP; expected a UD QP (%s is UD only)", q->name,
			roce_transport_name((enum roce_transport)q->qp_type), what);
}

static bool parse_ip_version(const struct cl_arg *ip, int *out)
{
	if (ip->v.expr.n != 1 || ip->v.expr.terms[0].is_sym || (ip->v.expr.terms[0].num != 4 && ip->v.expr.terms[0].num != 6))
		return false;
	*out = (int)ip->v.expr.terms[0].num;
	return true;
}

/* group NAME [ip=4|6] [addr="A"] */
void cl_parse_group(struct parser *ps, struct cl_loc loc)
{
	struct cl_step *st = cl_new_step(ps, CL_GROUP, loc);
	struct cl_loc nl = ps->tok.loc;
	st->name = st->group = (char *)take_name(ps, "a name for the multicast group");
	cl_parse_args(ps, st, cl_args_group, false, false);
	struct cl_group g;
	memset(&g, 0, sizeof g);
	g.name = st->name;
	g.index = ps->c->n_groups;
	const struct cl_arg *ip = st->a.group.ip.arg, *addr = st->a.group.addr.arg;
	if (ip && !parse_ip_version(ip, &g.ipv))
		cl_fail_at(ps, CL_ERR_VALUE, ip->v.loc, "ip= takes the group's IP version; expected 4 or 6");
	if (addr) {
		char text[INET6_ADDRSTRLEN];
		if (addr->v.n_bytes >= sizeof text || memchr(addr->v.bytes, 0, addr->v.n_bytes))
			cl_fail_at(ps, CL_ERR_VALUE, addr->v.loc, "addr= of %zu bytes is no IP address; expected e.g. \"239.255.18.7\" or \"ff15::db8:7\"",
				addr->v.n_bytes);
		memcpy(text, addr->v.bytes, addr->v.n_bytes);
		text[addr->v.n_bytes] = '\0';
		int v = inet_pton(AF_INET, text, g.addr) == 1 ? 4 : inet_pton(AF_INET6, text, g.addr) == 1 ? 6 : 0;
		if (!v)
			cl_fail_at(ps, CL_ERR_VALUE, addr->v.loc, "addr=\"%s\" is not an IP address; expected e.g. \"239.255.18.7\" or \"ff15::db8:7\"",
				text);
		if (v == 4 ? (g.addr[0] & 0xF0) != 0xE0 : g.addr[0] != 0xFF)
			cl_fail_at(ps, CL_ERR_VALUE, addr->v.loc, "%s is not a multicast address; expected one in %s", text,
				v == 4 ? "224.0.0.0/4 (e.g. 239.255.18.7)" : "ff00::/8 (e.g. ff15::db8:7)");
		if (g.ipv && g.ipv != v)
			cl_fail_at(ps, CL_ERR_VALUE, addr->v.loc, "%s is an IPv%d address and the group has ip=%d; expected one IP version",
				text, v, g.ipv);
		g.ipv = v;
		g.has_addr = true;
	}
	if (ps->c->n_groups == 250)
		cl_fail_at(ps, CL_ERR_VALUE, loc, "too many groups; expected at most 250");
	cl_grow(ps, (void **)&ps->c->groups, ps->c->n_groups, sizeof *ps->c->groups);
	ps->c->groups[ps->c->n_groups++] = g;
	cl_define_sym(ps, st->name, CL_SYM_GROUP, -1, nl);
	cl_find_sym(ps, st->name)->ipv = g.ipv;
}

int cl_group_address(const struct cl_group *g, int ipv, uint8_t out[16])
{
	memset(out, 0, 16);
	if (g->has_addr) {
		memcpy(out, g->addr, 16);
		return g->ipv;
	}
	int v = g->ipv ? g->ipv : ipv;
	unsigned n = g->index + 1;
	if (v == 4) {
		static const uint8_t base4[4] = { 239, 255, 18, 0 };
		memcpy(out, base4, 4);
		out[3] = (uint8_t)n;
	} else {
		out[0] = 0xFF;
		out[1] = 0x15;
		out[12] = 0x0D;
		out[13] = 0xB8;
		out[14] = (uint8_t)(n >> 8);
		out[15] = (uint8_t)n;
	}
	return v;
}

const struct cl_group *cl_group_named(const struct cl_case *c, const char *name)
{
	for (unsigned i = 0; name && i < c->n_groups; i++)
		if (!strcmp(c->groups[i].name, name))
			return &c->groups[i];
	return NULL;
}

void cl_group_arg(struct parser *ps, struct cl_step *st, const struct cl_sym *q, const struct cl_param *prm)
{
	const struct cl_arg *a = prm ? prm->arg : NULL;
	for (unsigned i = 0; !prm && i < st->n_args; i++)
		if (st->args[i].id == CL_K_group)
			a = &st->args[i];
	if (!a)
		return;
	struct cl_sym *g = cl_use_name(ps, a->v.word, CL_SYM_GROUP, a->v.loc);
	check_group_ip(ps, q, g, a->v.loc);
	st->group = a->v.word;
}

void cl_qp_srq_args(struct parser *ps, struct cl_step *st, struct cl_sym *q)
{
	const struct cl_arg *s = st->a.dut_qp.srq.arg, *ps_ = st->a.dut_qp.peer_srq.arg;
	if (s) {
		cl_use_name(ps, s->v.word, CL_SYM_SRQ, s->v.loc);
		q->srq = s->v.word;
	}
	if (ps_) {
		cl_use_name(ps, ps_->v.word, CL_SYM_PEER_SRQ, ps_->v.loc);
		q->peer_srq = ps_->v.word;
	}
}

/* QP GROUP of a membership statement (dut detach|join|leave, peer
 * attach) and its arguments: a UD QP and a group of its IP version;
 * returns the group. */
static struct cl_sym *qp_group_args(struct parser *ps, struct cl_step *st, const struct argspec *args)
{
	struct cl_loc ql = ps->tok.loc;
	struct cl_sym *q = cl_use_next_name(ps, &st->qp, CL_SYM_QP, "a UD QP name defined by 'dut qp'");
	need_ud(ps, q, ql, "multicast");
	struct cl_loc gl = ps->tok.loc;
	struct cl_sym *g = cl_use_next_name(ps, &st->group, CL_SYM_GROUP, "a group name defined by 'group'");
	check_group_ip(ps, q, g, gl);
	cl_parse_args(ps, st, args, false, false);
	return g;
}

/* dut detach|join|leave QP GROUP */
static void parse_membership(struct parser *ps, enum cl_step_kind kind, struct cl_loc loc)
{
	struct cl_step *st = cl_new_step(ps, kind, loc);
	struct cl_sym *g = qp_group_args(ps, st, cl_args_none);
	bool cm = kind == CL_DUT_JOIN || kind == CL_DUT_LEAVE;
	ps->c->uses_caps |= cm ? CL_CAP_CM_MCAST : CL_CAP_MCAST;
	if (kind == CL_DUT_JOIN)
		g->joined = true; /* binds $GROUP.qkey */
}

/* dut attach QP (GROUP | gid=dut|peer) [lid=N] [-> refused]: a group, or
 * the unicast GID of the DUT's or the tester's address, which the device
 * should refuse (IBV-MCAST-GID); '-> refused' expects the refusal; lid=
 * the MLID, which a RoCEv2 port ignores (CA17-30). */
static void parse_dut_attach(struct parser *ps, struct cl_loc loc)
{
	struct cl_step *st = cl_new_step(ps, CL_DUT_ATTACH, loc);
	struct cl_loc ql = ps->tok.loc;
	struct cl_sym *q = cl_use_next_name(ps, &st->qp, CL_SYM_QP, "a UD QP name defined by 'dut qp'");
	need_ud(ps, q, ql, "multicast");
	if (ps->tok.kind == CL_T_WORD && !is_word(ps, "gid")) {
		struct cl_loc gl = ps->tok.loc;
		struct cl_sym *g = cl_use_next_name(ps, &st->group, CL_SYM_GROUP, "a group name defined by 'group'");
		check_group_ip(ps, q, g, gl);
	}
	cl_parse_args(ps, st, cl_args_dut_attach, false, false);
	if (!st->group == !st->a.dut_attach.gid.arg)
		cl_fail_at(ps, CL_ERR_MISSING, loc, st->group ? "'dut attach' takes a group or gid=, not both; expected one"
							      : "'dut attach' needs a group or gid=; expected e.g. 'dut attach q g' or 'dut attach q gid=dut -> refused'");
	ps->c->uses_caps |= CL_CAP_MCAST;
}

static void parse_dut_srq(struct parser *ps, struct cl_loc loc)
{
	struct cl_step *st = cl_new_step(ps, CL_DUT_SRQ, loc);
	struct cl_loc nl = ps->tok.loc;
	st->name = st->srq = (char *)take_name(ps, "a name for the new SRQ");
	cl_parse_args(ps, st, cl_args_dut_srq, false, false);
	cl_define_sym(ps, st->name, CL_SYM_SRQ, -1, nl);
	cl_srq_xrc_args(ps, st, cl_find_sym(ps, st->name));
	cl_pd_arg(ps, st, &st->a.dut_srq.pd, -1);
	ps->c->uses_caps |= CL_CAP_SRQ;
}

static void parse_dut_arm(struct parser *ps, struct cl_loc loc)
{
	struct cl_step *st = cl_new_step(ps, CL_DUT_ARM, loc);
	cl_use_next_name(ps, &st->srq, CL_SYM_SRQ, "an SRQ name defined by 'dut srq'");
	cl_parse_args(ps, st, cl_args_dut_arm, false, false);
	if (!st->a.dut_arm.limit.arg)
		cl_fail_at(ps, CL_ERR_MISSING, loc, "'dut arm' needs limit=; expected e.g. limit=2 (0 disarms)");
}

bool cl_parse_dut_mcast_srq(struct parser *ps, const char *verb, struct cl_loc loc)
{
	static const struct {
		const char *verb;
		enum cl_step_kind kind;
	} membership[] = { { "detach", CL_DUT_DETACH }, { "join", CL_DUT_JOIN }, { "leave", CL_DUT_LEAVE } };
	if (!strcmp(verb, "attach")) {
		parse_dut_attach(ps, loc);
		return true;
	}
	for (size_t i = 0; i < sizeof membership / sizeof membership[0]; i++) {
		if (!strcmp(verb, membership[i].verb)) {
			parse_membership(ps, membership[i].kind, loc);
			return true;
		}
	}
	if (!strcmp(verb, "srq")) {
		parse_dut_srq(ps, loc);
		return true;
	}
	if (!strcmp(verb, "arm")) {
		parse_dut_arm(ps, loc);
		return true;
	}
	return false;
}

bool cl_names_srq(struct parser *ps)
{
	if (ps->tok.kind != CL_T_WORD)
		return false;
	const struct cl_sym *s = cl_find_sym(ps, ps->tok.text);
	return s && s->kind == CL_SYM_SRQ;
}

/* dut query SRQ -> limit=E max_wr=E */
void cl_parse_dut_query_srq(struct parser *ps, struct cl_loc loc)
{
	struct cl_step *st = cl_new_step(ps, CL_DUT_QUERY_SRQ, loc);
	cl_use_next_name(ps, &st->srq, CL_SYM_SRQ, "an SRQ name");
	cl_parse_args(ps, st, cl_args_dut_query_srq, false, false);
	ps->c->uses_caps |= CL_CAP_SRQ;
}

bool cl_parse_peer_mcast_srq(struct parser *ps, struct cl_loc loc)
{
	if (is_word(ps, "attach")) {
		next(ps);
		struct cl_step *st = cl_new_step(ps, CL_PEER_ATTACH, loc);
		qp_group_args(ps, st, cl_args_none);
		if (ps->n_peer_attached == sizeof ps->peer_attached / sizeof ps->peer_attached[0])
			cl_fail_at(ps, CL_ERR_VALUE, loc, "too many 'peer attach'; expected at most 64");
		ps->peer_attached[ps->n_peer_attached].qp = st->qp;
		ps->peer_attached[ps->n_peer_attached++].group = st->group;
		return true;
	}
	if (is_word(ps, "srq")) {
		next(ps);
		struct cl_step *st = cl_new_step(ps, CL_PEER_SRQ, loc);
		struct cl_loc nl = ps->tok.loc;
		st->name = st->srq = (char *)take_name(ps, "a name for the tester's SRQ");
		cl_parse_args(ps, st, cl_args_peer_srq, false, false);
		/* Repeating the statement sets the SRQ's receives anew. */
		struct cl_sym *s = cl_find_sym(ps, st->name);
		bool xrc = st->a.peer_srq.xrc.arg != NULL;
		if (!s) {
			cl_define_sym(ps, st->name, CL_SYM_PEER_SRQ, -1, nl);
			cl_find_sym(ps, st->name)->xrc = xrc;
		} else if (s->kind != CL_SYM_PEER_SRQ) {
			cl_use_name(ps, st->name, CL_SYM_PEER_SRQ, nl);
		} else if (s->xrc != xrc) {
			cl_fail_at(ps, CL_ERR_VALUE, nl, "tester SRQ '%s' was made %san XRC SRQ above; expected the same %s'xrc' when its receives are set again",
				st->name, s->xrc ? "" : "not ", s->xrc ? "" : "no ");
		}
		return true;
	}
	return false;
}

/* expect event TYPE [qp=Q | srq=S] [within T] / expect no event [TYPE] within T */
static void parse_expect_event(struct parser *ps, struct cl_loc loc, bool no)
{
	struct cl_step *st = cl_new_step(ps, no ? CL_EXPECT_NO_EVENT : CL_EXPECT_EVENT, loc);
	st->event = -1;
	if (!no || (ps->tok.kind == CL_T_WORD && !is_word(ps, "within"))) {
		struct cl_loc tl = ps->tok.loc;
		const char *type = take_word(ps, "an event type: SRQ_LIMIT_REACHED, QP_LAST_WQE_REACHED, QP_FATAL, ...");
		st->event = cl_event_by_name(type);
		if (st->event < 0) {
			char all[600] = "";
			for (int v = 0; v < 64; v++)
				if (cl_event_name(v))
					text_appendf(all, sizeof all, "%s%s", all[0] ? ", " : "", cl_event_name(v));
			cl_fail_at(ps, CL_ERR_VALUE, tl, "unknown event '%s'; expected one of %s", type, all);
		}
	}
	cl_parse_args(ps, st, no ? cl_args_none : cl_args_expect_event, true, false);
	ps->c->uses_caps |= CL_CAP_ASYNC_EVENTS;
	if (no) {
		if (!st->has_within)
			cl_fail_at(ps, CL_ERR_MISSING, loc, "'expect no event' needs a time window; expected 'within T'");
		return;
	}
	const struct cl_arg *qa = NULL, *sa = NULL;
	for (unsigned i = 0; i < st->n_args; i++) {
		if (st->args[i].id == CL_K_qp)
			qa = &st->args[i];
		else
			sa = &st->args[i];
	}
	if (qa && sa)
		cl_fail_at(ps, CL_ERR_ARGUMENT, sa->loc, "an event is about one object; expected qp= or srq=, not both");
	enum cl_event_about about = cl_event_about(st->event);
	if (qa) {
		if (about != CL_EVENT_QP)
			cl_fail_at(ps, CL_ERR_ARGUMENT, qa->loc, "%s is not about a QP; expected %s", cl_event_name(st->event),
				about == CL_EVENT_SRQ ? "srq=" : "no qp=");
		cl_use_name(ps, qa->v.word, CL_SYM_QP, qa->v.loc);
		st->qp = qa->v.word;
	}
	if (sa) {
		if (about != CL_EVENT_SRQ)
			cl_fail_at(ps, CL_ERR_ARGUMENT, sa->loc, "%s is not about an SRQ; expected %s", cl_event_name(st->event),
				about == CL_EVENT_QP ? "qp=" : "no srq=");
		cl_use_name(ps, sa->v.word, CL_SYM_SRQ, sa->v.loc);
		st->srq = sa->v.word;
	}
}

bool cl_parse_expect_mcast_srq(struct parser *ps, struct cl_loc loc, bool no)
{
	if (is_word(ps, "join")) {
		next(ps);
		struct cl_step *st = cl_new_step(ps, no ? CL_EXPECT_NO_JOIN : CL_EXPECT_JOIN, loc);
		cl_use_next_name(ps, &st->group, CL_SYM_GROUP, "a group name defined by 'group'");
		cl_parse_args(ps, st, cl_args_none, true, false);
		if (no && !st->has_within)
			cl_fail_at(ps, CL_ERR_MISSING, loc, "'expect no join' needs a time window; expected 'within T'");
		return true;
	}
	if (!no && is_word(ps, "leave")) {
		next(ps);
		struct cl_step *st = cl_new_step(ps, CL_EXPECT_LEAVE, loc);
		cl_use_next_name(ps, &st->group, CL_SYM_GROUP, "a group name defined by 'group'");
		cl_parse_args(ps, st, cl_args_none, true, false);
		return true;
	}
	if (is_word(ps, "event")) {
		next(ps);
		parse_expect_event(ps, loc, no);
		return true;
	}
	return false;
}

/* group= on expect: the tester's side of the QP is attached to the group
 * above (peer attach), a UD QP, and the opcode a UD SEND. */
void cl_expect_group(struct parser *ps, struct cl_step *st, const struct cl_sym *q)
{
	const struct cl_arg *a = NULL;
	for (unsigned i = 0; i < st->n_args; i++)
		if (st->args[i].id == CL_K_group)
			a = &st->args[i];
	if (!a)
		return;
	need_ud(ps, q, a->loc, "group=");
	cl_group_arg(ps, st, q, NULL);
	for (unsigned i = 0; i < ps->n_peer_attached; i++)
		if (!strcmp(ps->peer_attached[i].qp, q->name) && !strcmp(ps->peer_attached[i].group, st->group))
			return;
	cl_fail_at(ps, CL_ERR_VALUE, a->v.loc, "the tester's side of QP '%s' is not attached to group '%s'; expected 'peer attach %s %s' above",
		q->name, st->group, q->name, st->group);
}
