/*
 * The runner's load step: sustained traffic from the tester's engine on
 * one QP (load_step.c runs it), the DUT's answers counted, and what was
 * achieved checked or bound like a measurement's results.
 */
#include "runner_ctx.h"
#include "load_step.h"

static void load_pump(void *ctx, uint64_t deadline_ns)
{
	pump_until(ctx, -1, deadline_ns, true);
}

static bool load_interrupted(void *ctx)
{
	return interrupted(ctx);
}

void step_load(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_qp *q = find_qp(x, s->qp);
	const struct cl_load_args *a = &s->a.load;
	struct load_spec ls = { 0 };
	uint64_t len, rkey;
	ls.op = (enum peer_op)s->op; /* the parser's: enum peer_op is enum ap_wc_opcode */
	if (!param_u64(x, &a->len, &len, o) || !param_u64(x, &a->remote, &ls.remote, o) ||
	    !param_u64(x, &a->rkey, &rkey, o) || !param_u64(x, &a->count, &ls.count, o) ||
	    !param_u64(x, &a->duration, &ls.duration_ns, o) || !param_u64(x, &a->rate, &ls.rate, o))
		return;
	if (len > (1u << 20)) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "len=%llu: a load's operations are at most 1 MiB each", (unsigned long long)len);
		return;
	}
	uint8_t *buf = malloc(len ? len : 1);
	if (!buf)
		abort();
	pattern(buf, len, (unsigned)x->cur_step);
	ls.data = buf;
	ls.len = (uint32_t)len;
	ls.rkey = (uint32_t)rkey;
	ls.drain_ns = param_window(s, &a->within);
	ls.deadline_ns = x->deadline_ns;
	struct load_wire w = { x->r, load_pump, load_interrupted };
	struct load_result lr;
	char err[256];
	int rc = load_run(x->r->peer, q->tester_qpn, &ls, &w, &lr, err, sizeof err);
	free(buf);
	if (rc) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "%s", err);
		return;
	}
	x->ref_ns = lr.ended_ns;
	series_load(x, q, lr.started_ns, lr.ended_ns);
	struct load_answers la;
	load_count_answers(x->pkts, x->n_pkts, q->tester_qpn, lr.started_ns, lr.ended_ns, &la);
	o->record = load_record(&ls, &lr, &la, o->detail);
	const struct step_result res[] = { { CL_K_posted, SYM_PLAIN, lr.posted }, { CL_K_completed, SYM_PLAIN, lr.completed },
					   { CL_K_errors, SYM_PLAIN, lr.errors }, { CL_K_lost, SYM_PLAIN, lr.lost },
					   { CL_K_achieved, SYM_PER_S, lr.achieved },
					   { CL_K_retransmissions, SYM_PLAIN, lr.retransmissions },
					   { CL_K_naks, SYM_PLAIN, la.naks }, { CL_K_rnr_naks, SYM_PLAIN, la.rnr_naks },
					   { CL_K_cnps, SYM_PLAIN, la.cnps } };
	step_results(x, s, o, res, sizeof res / sizeof res[0]);
}
