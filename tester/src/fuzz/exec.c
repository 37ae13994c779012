#define _GNU_SOURCE /* ppoll */
/*
 * Steps on the wire. Many QPs at once, each with one step in flight: its
 * packets go out together (at most --rate request packets a second), its
 * answers are taken as they come, and it is over when its last answer
 * came and a short while passed for more, or when its window closed in
 * silence. UC and UD steps expect no answer and are over once sent (their
 * deliveries are read from the DUT's CQs after the batch). Frames for the
 * control QP go to the peer engine, frames for other QPs of the DUT
 * (answers to a QP of an earlier incarnation) are left alone, and any
 * other DUT frame is judged by the stateless checks.
 */
#include "fz.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>

struct fz_qp *fz_qp_by_tqpn(struct fz *z, uint32_t tqpn)
{
	for (unsigned i = 0; i < z->n_qp; i++)
		if (z->qp[i].tqpn == tqpn)
			return &z->qp[i];
	if (z->replay_qp && z->replay_qp->tqpn == tqpn)
		return z->replay_qp;
	return NULL;
}

bool fz_send_frame(struct fz *z, const uint8_t *frame, size_t len)
{
	char err[256];
	z->st.frames_tx++;
	return rawio_send(&z->io, frame, len, err, sizeof err) == 0;
}

static void on_frame(void *ctx, const uint8_t *data, size_t caplen, size_t len, uint64_t ts)
{
	struct fz *z = ctx;
	(void)len;
	z->st.frames_rx++;
	if (caplen < ROCE_ETH_LEN || memcmp(data + ROCE_ETH_SRC_OFF, z->dut_mac, 6) != 0)
		return;
	struct roce_pkt p;
	roce_parse_frame(&p, data, caplen, caplen, 0);
	const uint8_t *bth = roce_pkt_hdr(&p, ROCE_H_BTH);
	if (!bth)
		return; /* ARP, neighbour discovery, IGMP */
	uint32_t dq = roce_bth_destqp(bth);
	if (z->peer && dq == z->ctl.tqpn) {
		peer_rx(z->peer, data, caplen, ts);
		return;
	}
	struct fz_qp *q = fz_qp_by_tqpn(z, dq);
	if (q)
		fz_judge_frame(z, q, data, caplen, ts);
	else if (dq >= z->first_tqpn && dq < z->next_tqpn)
		z->st.late++; /* a QP's earlier incarnation */
	else
		fz_judge_stray(z, data, caplen);
}

/* Moves the wire until deadline; returns early when frames came (once)
 * or when fd is readable. */
static void pump(struct fz *z, int fd, uint64_t deadline, bool once)
{
	char err[256];
	for (;;) {
		uint64_t now = rawio_now();
		if (z->peer)
			peer_advance(z->peer, now);
		if (now >= deadline)
			return;
		uint64_t until = deadline;
		uint64_t t = z->peer ? peer_next_deadline(z->peer) : UINT64_MAX;
		if (t < until)
			until = t > now ? t : now;
		struct pollfd pf[2] = { { z->io.fd, POLLIN, 0 }, { fd, POLLIN, 0 } };
		uint64_t left = until - now;
		struct timespec ts = { (time_t)(left / FZ_NS_PER_S), (long)(left % FZ_NS_PER_S) };
		int n = ppoll(pf, fd >= 0 ? 2 : 1, &ts, NULL);
		if (n < 0 && errno != EINTR)
			return;
		if (n > 0 && (pf[0].revents & POLLIN) && rawio_wait(&z->io, 0, on_frame, z, err, sizeof err) > 0 && once)
			return;
		if (fd >= 0 && (pf[1].revents & (POLLIN | POLLHUP | POLLERR)))
			return;
		if (z->o->stop && *z->o->stop)
			return;
	}
}

void fz_pump(struct fz *z, uint64_t deadline)
{
	pump(z, -1, deadline, false);
}

void fz_agent_pump(void *ctx, int fd, uint64_t deadline)
{
	pump(ctx, fd, deadline, false);
}

/* The rate: request packets a second at most (a bucket a twentieth of a
 * second deep). */
static bool rate_take(struct fz *z, unsigned n, uint64_t now, uint64_t *ready)
{
	double rate = z->o->rate ? z->o->rate : 1e9;
	double depth = rate / 20 > 32 ? rate / 20 : 32;
	if (z->tokens_at)
		z->tokens += (double)(now - z->tokens_at) * rate / 1e9;
	z->tokens_at = now;
	if (z->tokens > depth)
		z->tokens = depth;
	if (z->tokens >= n) {
		z->tokens -= n;
		return true;
	}
	*ready = now + (uint64_t)((n - z->tokens) * 1e9 / rate) + 1;
	return false;
}

static void start(struct fz *z, struct fz_qp *q, const struct fz_step *s, uint64_t window, bool count)
{
	struct fz_flight *fl = &q->fl;
	memset(fl, 0, sizeof *fl);
	fl->active = true;
	fl->step = *s;
	fl->base_psn = q->epsn;
	fl->epsn_sure = q->sure && !q->dead;
	uint8_t frames[FZ_MAX_PKTS][PEER_FRAME_MAX];
	long len[FZ_MAX_PKTS];
	uint32_t last = q->epsn;
	for (unsigned i = 0; i < s->npkt; i++) {
		const struct fz_pkt *k = &s->pkt[i];
		const struct roce_opcode_info *oi = roce_opcode(k->opcode);
		uint32_t psn = roce_psn_add(q->epsn, k->psn);
		fl->psn[i] = psn;
		fl->span[i] = fz_pkt_span(z, q, k);
		fl->request[i] = oi->name && (oi->flags & ROCE_OPF_REQUEST);
		fl->op_kind[i] = (uint8_t)oi->kind;
		fl->rd_next[i] = psn;
		if (fz_pkt_imm(z, q, k, &fl->imm))
			fl->has_imm = true;
		len[i] = fz_build(z, q, s, i, psn, frames[i], sizeof frames[i]);
		if (len[i] > 0)
			fz_expect(z, q, i, frames[i], (size_t)len[i]);
		if (fl->request[i] && roce_psn_diff(roce_psn_add(psn, (int32_t)fl->span[i] - 1), last) > 0)
			last = roce_psn_add(psn, (int32_t)fl->span[i] - 1);
	}
	fl->last_psn = last;
	uint64_t now = rawio_now();
	for (unsigned i = 0; i < s->npkt; i++) {
		if (len[i] <= 0)
			continue;
		fz_send_frame(z, frames[i], (size_t)len[i]);
		if (count && fl->request[i])
			z->st.requests++;
	}
	fl->sent_ns = now;
	if (q->index >= 0 && !z->replaying) {
		bool expects = false;
		for (unsigned i = 0; i < s->npkt; i++)
			expects = expects || (fl->request[i] && !fl->ex[i].drop_only);
		struct fz_tl t = { q->index, s->serial, expects && (q->kind == FZ_Q_RC || q->kind == FZ_Q_XRC) && !q->dead, false };
		g_array_append_val(z->timeline, t);
	}
	/* UC and UD: no answer is waited for. */
	fl->deadline_ns = q->kind == FZ_Q_UC || q->kind == FZ_Q_UD ? now : now + window;
	z->st.steps++;
}

static bool over(const struct fz_qp *q, uint64_t now)
{
	const struct fz_flight *fl = &q->fl;
	return fl->got_terminal ? now >= fl->settle_ns : now >= fl->deadline_ns;
}

void fz_exec(struct fz *z, struct fz_qp **qps, struct fz_step **progs, const unsigned *n, unsigned nq,
	     uint64_t window_ns)
{
	unsigned next[FZ_MAX_QPS + 1] = { 0 };
	bool count = !z->replaying;
	for (;;) {
		uint64_t now = rawio_now(), wake = UINT64_MAX;
		bool busy = false;
		for (unsigned i = 0; i < nq; i++) {
			struct fz_qp *q = qps[i];
			if (q->fl.active && over(q, now))
				fz_judge_done(z, q);
			if (!q->fl.active && next[i] < n[i]) {
				const struct fz_step *s = &progs[i][next[i]];
				uint64_t ready;
				if (rate_take(z, s->npkt, now, &ready)) {
					start(z, q, s, window_ns, count);
					next[i]++;
				} else if (ready < wake) {
					wake = ready;
				}
			}
			if (q->fl.active) {
				busy = true;
				uint64_t t = q->fl.got_terminal ? q->fl.settle_ns : q->fl.deadline_ns;
				if (t < wake)
					wake = t;
			} else if (next[i] < n[i]) {
				busy = true;
			}
		}
		if (!busy || (z->o->stop && *z->o->stop && !z->replaying))
			break;
		if (wake == UINT64_MAX)
			wake = now + FZ_NS_PER_MS;
		pump(z, -1, wake, true);
	}
	/* Anything still in flight (an interruption) is over now. */
	for (unsigned i = 0; i < nq; i++)
		if (qps[i]->fl.active)
			fz_judge_done(z, qps[i]);
}
