/*
 * The connection manager's passive side (cm_listen) is librdmacm's: a
 * listener on the RDMA_PS_TCP port space, whose connect request is
 * accepted on the session's own QP (rdma_init_qp_attr gives the kernel
 * CM's attributes for each transition), so that the kernel's CM answers
 * the tester's REQ, RTU, LAP and DREQ as it would for any application.
 */
#include "ibverbs.h"

#ifdef ROCE_AGENT_HAVE_RDMACM
#include <errno.h>
#include <fcntl.h>
#include <glib-unix.h>
#include <netinet/in.h>
#include <rdma/rdma_cma.h>
#include <string.h>
#endif

#ifdef ROCE_AGENT_HAVE_RDMACM
struct ib_listen {
	struct be_qp *qp;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen_id, *conn_id;
	guint watch;
};

/* The kernel CM's attributes for one transition of the QP (passive side). */
static int cm_step(struct be_qp *qp, struct rdma_cm_id *id, enum ibv_qp_state to)
{
	struct ibv_qp_attr a;
	int mask = 0;
	memset(&a, 0, sizeof a);
	a.qp_state = to;
	if (rdma_init_qp_attr(id, &a, &mask))
		return errno;
	int e = ibv_modify_qp(qp->qp, &a, mask);
	if (!e)
		qp->state_set = to;
	return e;
}

/* A connect request: the session's QP through INIT, RTR and RTS with
 * the REQ's parameters (as librdmacm does for its own QPs before the
 * REP), then the accept, which makes the kernel CM send the REP. */
static bool cm_accept(struct ib_listen *l, struct rdma_cm_id *id, const struct rdma_conn_param *req)
{
	struct be_qp *qp = l->qp;
	const char *mine = ibv_get_device_name(qp->be->ctx->device);
	if (l->conn_id || !id->verbs || strcmp(ibv_get_device_name(id->verbs->device), mine) != 0) {
		g_warning("cm: refusing a connect request (%s)", l->conn_id ? "the QP is connected already"
									 : "it arrived on another device");
		return false;
	}
	int e;
	if ((e = cm_step(qp, id, IBV_QPS_INIT)) || (e = cm_step(qp, id, IBV_QPS_RTR)) ||
	    (e = cm_step(qp, id, IBV_QPS_RTS))) {
		g_warning("cm: bringing QP 0x%x up for a connect request: %s", qp->qp->qp_num, strerror(e));
		return false;
	}
	struct rdma_conn_param p;
	memset(&p, 0, sizeof p);
	p.responder_resources = req->responder_resources;
	p.initiator_depth = req->initiator_depth;
	p.rnr_retry_count = 7;
	p.qp_num = qp->qp->qp_num;
	if (rdma_accept(id, &p)) {
		g_warning("cm: rdma_accept: %s", strerror(errno));
		return false;
	}
	l->conn_id = id;
	return true;
}

static gboolean on_cm_event(gint fd, GIOCondition cond, gpointer data)
{
	(void)fd;
	(void)cond;
	struct ib_listen *l = data;
	struct rdma_cm_event *ev;
	while (rdma_get_cm_event(l->ch, &ev) == 0) {
		struct rdma_cm_id *id = ev->id;
		bool drop_id = false;
		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			if (!cm_accept(l, id, &ev->param.conn)) {
				rdma_reject(id, NULL, 0);
				drop_id = true;
			}
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			/* The DREQ: the DREP goes out, the QP to ERR (the
			 * kernel does not touch a QP it did not create). */
			if (id == l->conn_id) {
				rdma_disconnect(id);
				struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
				if (ibv_modify_qp(l->qp->qp, &a, IBV_QP_STATE) == 0)
					l->qp->state_set = IBV_QPS_ERR;
			}
			break;
		default:
			break;
		}
		rdma_ack_cm_event(ev);
		if (drop_id)
			rdma_destroy_id(id);
	}
	return G_SOURCE_CONTINUE;
}

void ib_cm_release(struct be_qp *qp)
{
	struct ib_listen *l = qp->cm;
	if (!l)
		return;
	if (l->watch)
		g_source_remove(l->watch);
	if (l->conn_id)
		rdma_destroy_id(l->conn_id);
	if (l->listen_id)
		rdma_destroy_id(l->listen_id);
	if (l->ch)
		rdma_destroy_event_channel(l->ch);
	g_free(l);
	qp->cm = NULL;
}

int ib_cm_listen(struct be_qp *qp, uint16_t port, struct be_error *err)
{
	enum ibv_qp_state st;
	if (qp->type != BE_QPT_RC)
		return be_error_set(err, BE_BAD_REQUEST, "only an RC QP can accept a connection");
	if (ib_current_state(qp, &st, err))
		return -1;
	if (st != IBV_QPS_RESET || qp->cm)
		return be_error_set(err, BE_INVALID_STATE, "the QP must be in RESET and not yet connected");
	struct ib_listen *l = g_new0(struct ib_listen, 1);
	l->qp = qp;
	qp->cm = l;
	const char *what = "rdma_create_event_channel";
	if (!(l->ch = rdma_create_event_channel()))
		goto fail;
	int fl = fcntl(l->ch->fd, F_GETFL);
	what = "fcntl";
	if (fl < 0 || fcntl(l->ch->fd, F_SETFL, fl | O_NONBLOCK) < 0)
		goto fail;
	what = "rdma_create_id";
	if (rdma_create_id(l->ch, &l->listen_id, l, RDMA_PS_TCP))
		goto fail;
	/* The IPv6 wildcard takes IPv4 connections too (unless bindv6only). */
	struct sockaddr_in6 any = { .sin6_family = AF_INET6, .sin6_port = htons(port), .sin6_addr = IN6ADDR_ANY_INIT };
	what = "rdma_bind_addr";
	if (rdma_bind_addr(l->listen_id, (struct sockaddr *)&any))
		goto fail;
	what = "rdma_listen";
	if (rdma_listen(l->listen_id, 4))
		goto fail;
	l->watch = g_unix_fd_add(l->ch->fd, G_IO_IN, on_cm_event, l);
	return 0;
fail:;
	int e = errno;
	ib_cm_release(qp);
	if (e == EADDRINUSE)
		return be_error_set(err, BE_INVALID_STATE, "port %u has a listener already (%s)", port, what);
	if (e == ENODEV || e == ENOENT)
		return be_error_set(err, BE_UNSUPPORTED, "%s: %s (no rdma_cm: is the rdma_ucm module loaded?)", what,
				    strerror(e));
	return ib_verb_failed(err, e, what);
}
#else
void ib_cm_release(struct be_qp *qp)
{
	(void)qp;
}
#endif
