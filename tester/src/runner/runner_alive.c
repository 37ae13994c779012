/*
 * Is the DUT still there after a case? A receiver validates what it
 * receives, drops what fails, and goes on receiving (CA17-23, A17.3.4):
 * a DUT that stops answering after a packet the case built on purpose
 * fails CA17-23, with that packet as the evidence. Two ways to stop:
 *   the agent is lost  (its host, on the soft DUT its process, ended);
 *   the wire is silent (the agent answers, the device sends nothing):
 *                      after a case that injected packets, one
 *                      known-good exchange, an RDMA WRITE and an RDMA
 *                      READ from the tester's engine on a fresh RC QP,
 *                      must get a frame of any kind from the DUT (the READ's
 *                      response needs no ACK: a device that breaks only
 *                      its ACKs still answers). It runs after the
 *                      DUT's counters are read, and its packets are
 *                      counted, not recorded: a clean case's record is
 *                      what it was without it.
 * The packet that did it is the first the case injected after the DUT's
 * last sign of life. Without one, nothing of the wire is shown to have
 * done it: a lost agent ends the case in error; a silent wire leaves a
 * failure as it was (a DUT that never answered in the case, stopped by
 * an earlier case or deaf to this case's IP version, fails its own
 * rule) and ends a case that would pass in error.
 */
#include "runner_ctx.h"

/* How long the probe waits for the DUT's answer: an answer takes well
 * under a millisecond on a working device; only a silent one waits this
 * long, with room for a loaded host. */
#define ALIVE_WAIT_NS (500 * NS_PER_MS)

/* The probe, written in the case language: its own MR and RC QP, names
 * no case uses (checked before), and a WRITE the engine sends and
 * retransmits as for any case. */
#define ALIVE_QP "alive_probe_qp"
#define ALIVE_MR "alive_probe_mr"
static const char alive_probe_text[] =
	"case ALIVE-PROBE\n"
	"title \"a known-good exchange after a case that injected packets\"\n"
	"rules CA17-23\n"
	"requires RC\n"
	"dut mr " ALIVE_MR " size=64 access=LOCAL_WRITE,REMOTE_WRITE,REMOTE_READ\n"
	"dut qp " ALIVE_QP "\n"
	"peer " ALIVE_QP " write remote=$" ALIVE_MR ".addr rkey=$" ALIVE_MR ".rkey len=8\n"
	"peer " ALIVE_QP " read remote=$" ALIVE_MR ".addr rkey=$" ALIVE_MR ".rkey len=8\n";

bool dut_agent_lost(struct runner *r)
{
	if (r->agent.broken)
		return true;
	JsonObject *res = NULL;
	bool lost = agent_call(&r->agent, AP_M_query_port, NULL, r->opts.agent_timeout_ns, &res) == AGENT_BROKEN;
	if (res)
		json_object_unref(res);
	return lost;
}

/* The packet that stopped the DUT: the first the case injected (among
 * its first n_pkts) after the DUT's last sign of life: a frame it sent,
 * and, unless the agent still answers (wire_only), an answer of its
 * agent; none once the agent was seen gone, nor before any sign of life
 * (a DUT that never answered did not stop). -1: no such packet. */
static long fatal_packet(const struct run_ctx *x, size_t n_pkts, bool wire_only)
{
	uint64_t alive_ns = 0;
	for (size_t i = 0; i < n_pkts; i++) {
		const struct case_pkt *p = &x->pkts[i];
		/* The host's ARP or neighbour discovery is not the device. */
		if (!p->tx && p->ts_ns > alive_ns && !(wire_only && is_neighbour_frame(p->data, p->len)))
			alive_ns = p->ts_ns;
	}
	const struct agent *a = &x->r->agent;
	for (size_t i = 0; !wire_only && i < a->n_log; i++)
		if (a->log[i].reply && a->log[i].reply_ns > alive_ns)
			alive_ns = a->log[i].reply_ns;
	for (size_t i = 0; (alive_ns || !wire_only) && i < n_pkts; i++)
		if (x->pkts[i].tx && x->pkts[i].injected && x->pkts[i].ts_ns > alive_ns)
			return x->agent_gone_ns && x->pkts[i].ts_ns >= x->agent_gone_ns ? -1 : (long)i;
	return -1;
}

/* The verdict of a case (v so far, its reason) whose DUT stopped
 * answering: silent_how says how the wire went silent, NULL when the
 * agent was lost. The stop is the one deviation: an earlier failure is
 * said as what followed, and its evidence and rules give way. */
static enum verdict stopped_verdict(struct run_ctx *x, enum verdict v, GString *reason, const char *silent_how,
				    size_t n_pkts)
{
	gchar *how = silent_how ? g_strdup(silent_how) : g_strdup_printf("lost the agent: %s", x->r->agent.fail_msg->str);
	gchar *was = g_strdup(reason->str);
	long fatal = fatal_packet(x, n_pkts, silent_how != NULL);
	if (fatal < 0) {
		g_string_printf(reason, "the DUT stopped answering (%s), after no packet the case injected%s%s", how,
				v == V_FAIL ? "; the earlier failure may follow from it: " : was[0] ? ": " : "", was);
		g_free(how);
		g_free(was);
		return V_ERROR;
	}
	const struct case_pkt *p = &x->pkts[fatal];
	char sum[256];
	pkt_summary(p, sum, sizeof sum);
	g_string_printf(reason, "CA17-23: the DUT stopped answering (%s) after the packet the case injected at step %d (%s), "
			"the first after its last answer%s%s", how, p->step + 1, sum, was[0] ? "; what followed: " : "", was);
	while (json_array_get_length(x->evidence))
		json_array_remove_element(x->evidence, 0);
	while (json_array_get_length(x->failed_rules))
		json_array_remove_element(x->failed_rules, 0);
	add_failed_rule(x, "CA17-23");
	JsonObject *ev = json_object_new();
	JsonArray *er = json_array_new();
	json_array_add_string_element(er, "CA17-23");
	json_object_set_array_member(ev, "rules", er);
	json_object_set_int_member(ev, "step", p->step + 1);
	if (p->step >= 0 && (unsigned)p->step < x->c->n_steps) {
		json_object_set_int_member(ev, "line", x->c->steps[p->step].loc.line);
		json_object_set_string_member(ev, "statement", x->c->steps[p->step].text);
	}
	json_object_set_string_member(ev, "expected", "the DUT drops or takes the packet and goes on answering");
	gchar *obs = g_strdup_printf("the DUT stopped answering: %s", how);
	json_object_set_string_member(ev, "observed", obs);
	g_free(obs);
	JsonArray *pk = json_array_new();
	json_array_add_int_element(pk, fatal);
	json_object_set_array_member(ev, "packets", pk);
	json_array_add_object_element(x->evidence, ev);
	g_free(how);
	g_free(was);
	return V_FAIL;
}

enum verdict dut_stopped_answering(struct run_ctx *x, enum verdict v, GString *reason, const char *silent_how)
{
	return stopped_verdict(x, v, reason, silent_how, x->n_pkts);
}

/* The probe, parsed once per run. */
static const struct cl_case *alive_probe(struct runner *r)
{
	if (!r->alive_probe) {
		struct cl_diag diag = { 0 };
		r->alive_probe = cl_parse_text("<liveness probe>", alive_probe_text, strlen(alive_probe_text), &diag);
		if (!r->alive_probe) /* the text above: a bug of the tester's */
			g_error("the liveness probe does not parse: line %u: %s", diag.loc.line, diag.msg);
	}
	return r->alive_probe;
}

static bool injected_any(const struct run_ctx *x)
{
	for (size_t i = 0; i < x->n_pkts; i++)
		if (x->pkts[i].injected)
			return true;
	return false;
}

/* Runs the probe's set-up and request; false with why when it could not
 * be made (o says why; the agent may be gone). */
static bool probe_request(struct run_ctx *x, const struct cl_case *pc, GString *why)
{
	for (unsigned i = 0; i < pc->n_steps; i++) {
		const struct cl_step *s = &pc->steps[i];
		struct step_out o;
		step_out_init(&o);
		switch (s->kind) {
		case CL_DUT_MR: step_dut_mr(x, s, &o); break;
		case CL_DUT_QP:
			step_dut_qp(x, s, &o);
			if (o.st == S_OK) /* before it sends anything */
				x->probe_qpn = find_qp(x, ALIVE_QP)->tester_qpn;
			break;
		case CL_PEER_OP: step_peer_op(x, s, &o); break;
		default: o.st = S_ERROR; g_string_printf(o.detail, "a step the probe does not take"); break;
		}
		bool ok = o.st == S_OK;
		if (!ok)
			g_string_printf(why, "%s: %s", s->text, o.detail->str);
		step_out_free(&o);
		if (!ok)
			return false;
	}
	return true;
}

enum verdict dut_alive_after_case(struct run_ctx *x, enum verdict v, GString *reason)
{
	struct runner *r = x->r;
	if (!injected_any(x) || interrupted(r))
		return v;
	if (find_qp(x, ALIVE_QP) || find_mr(x, ALIVE_MR) || x->n_qps == MAX_QPS || x->n_mrs == MAX_MRS) {
		event(x, "after the case: no liveness probe (the case uses its names or every QP or MR of a case)");
		return v;
	}
	const struct cl_case *pc = alive_probe(r);
	/* The case's injection rules would change the probe's packets. */
	inj_clear(peer_rules(r->peer));
	size_t from = x->n_pkts;
	int step = x->cur_step;
	x->cur_step = -1; /* no step of the case's */
	uint64_t t0 = rawio_now();
	GString *why = g_string_new(NULL);
	bool made = probe_request(x, pc, why);
	bool answered = false;
	uint64_t deadline = rawio_now() + ALIVE_WAIT_NS;
	size_t seen = from;
	while (made && !answered && rawio_now() < deadline && !interrupted(r)) {
		pump_until(r, -1, deadline, true);
		/* Any frame of the device's: one it sent wrongly (a wrong
		 * port, address or QP) is its own rule's to judge, not a
		 * silence. */
		answered = x->probe_answers > 0;
		for (; seen < x->n_pkts && !answered; seen++)
			answered = !x->pkts[seen].tx && !is_neighbour_frame(x->pkts[seen].data, x->pkts[seen].len);
	}
	uint64_t t1 = rawio_now();
	x->cur_step = step;
	if (answered) {
		event(x, "after the case: the DUT answered a known-good WRITE and READ on a fresh RC QP (%.3f ms)",
		      (double)(t1 - t0) / 1e6);
	} else if (dut_agent_lost(r)) {
		v = stopped_verdict(x, v, reason, NULL, from);
	} else if (!made) {
		event(x, "after the case: the liveness probe could not be made: %s", why->str);
	} else if (!interrupted(r)) {
		char how[256];
		outf(how, sizeof how,
		     "a known-good RDMA WRITE and READ on a fresh RC QP after the case got no answer within %llu ms; the "
		     "agent still answers",
		     (unsigned long long)(ALIVE_WAIT_NS / NS_PER_MS));
		event(x, "after the case: %s", how);
		/* A failure with no packet to blame stands as it is. */
		if (v != V_FAIL || fatal_packet(x, from, true) >= 0)
			v = stopped_verdict(x, v, reason, how, from);
	}
	g_string_free(why, TRUE);
	return v;
}
