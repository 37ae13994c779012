/*
 * UD multicast: a QP attached to a group's GID with ibv_attach_mcast
 * (RoCEv2: the group's IP address as a GID; the LID is ignored, CA17-30),
 * and the connection manager's join (librdmacm), which on a RoCEv2 port
 * makes the kernel join an IPv4 group on the netdev (ip_mc_inc_group: an
 * IGMP report) before it hands back the group's GID and Q_Key.
 *
 * The backend remembers what each QP attached and joined: the kernel
 * refuses to destroy a QP that still has a group attached, so destroy_qp
 * leaves and detaches first (ib_mcast_release).
 */
#include "ibverbs.h"
#include "roce/gid.h"
#include "roce/mcast.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#ifdef ROCE_AGENT_HAVE_RDMACM
#include <netinet/in.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#endif

struct ib_group {
	uint8_t gid[16];
	uint16_t lid;
};

/* ---- Attach and detach ---- */

static int find_group(const struct be_qp *qp, const uint8_t gid[16])
{
	for (guint i = 0; qp->groups && i < qp->groups->len; i++)
		if (!memcmp(g_array_index(qp->groups, struct ib_group, i).gid, gid, 16))
			return (int)i;
	return -1;
}

/* "ibv_attach_mcast (QPN 0x000012, group ff15::db8:1)" */
static void verb_text(char *out, size_t len, const char *verb, const struct be_qp *qp, const uint8_t gid[16])
{
	char g[64];
	roce_gid_format(gid, g, sizeof g);
	snprintf(out, len, "%s (QPN 0x%06x, group %s)", verb, qp->qp->qp_num, g);
}

int ib_attach_mcast(struct be_qp *qp, const uint8_t gid[16], uint16_t lid, struct be_error *err)
{
	if (!(qp->be->caps & BE_CAP_MCAST))
		return be_error_set(err, BE_UNSUPPORTED, "%s has no multicast (max_mcast_grp 0)", qp->be->name);
	if (qp->type != BE_QPT_UD)
		return be_error_set(err, BE_BAD_REQUEST, "attach_mcast: only a UD QP joins a multicast group");
	int e = ibv_attach_mcast(qp->qp, (const union ibv_gid *)gid, lid);
	if (e) {
		char what[160];
		verb_text(what, sizeof what, "ibv_attach_mcast", qp, gid);
		if (e == EINVAL && !roce_gid_is_multicast(gid))
			g_strlcat(what, ", not a multicast address", sizeof what);
		return ib_verb_failed(err, e, what);
	}
	if (find_group(qp, gid) < 0) { /* attaching twice is one attachment */
		if (!qp->groups)
			qp->groups = g_array_new(FALSE, FALSE, sizeof(struct ib_group));
		struct ib_group g = { .lid = lid };
		memcpy(g.gid, gid, 16);
		g_array_append_val(qp->groups, g);
	}
	return 0;
}

int ib_detach_mcast(struct be_qp *qp, const uint8_t gid[16], uint16_t lid, struct be_error *err)
{
	int e = ibv_detach_mcast(qp->qp, (const union ibv_gid *)gid, lid);
	if (e) {
		char what[128];
		verb_text(what, sizeof what, "ibv_detach_mcast", qp, gid);
		return ib_verb_failed(err, e, what);
	}
	int i = find_group(qp, gid);
	if (i >= 0)
		g_array_remove_index(qp->groups, (guint)i);
	return 0;
}

/* ---- The connection manager's join ---- */

#ifdef ROCE_AGENT_HAVE_RDMACM

/* How long a join may hold the main loop waiting for the CM's answer: on
 * RoCE the kernel answers from a work item at once (no SA to ask). */
#define JOIN_WAIT_MS 5000
/* The kernel's error for "not supported" (ENOTSUPP), which strerror does
 * not know: its CM gives it for an IPv6 group on a RoCEv2 port. */
#define KERNEL_ENOTSUPP 524

struct ib_join {
	int ip_version;
	uint8_t group[16];
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	uint8_t mgid[16];
	uint16_t mlid;
	bool attached; /* the join's attach of the QP */
};

static void sockaddr_of(int ip_version, const uint8_t *ip, struct sockaddr_storage *out)
{
	memset(out, 0, sizeof *out);
	if (ip_version == 4) {
		struct sockaddr_in *s = (struct sockaddr_in *)out;
		s->sin_family = AF_INET;
		memcpy(&s->sin_addr, ip, 4);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)out;
		s->sin6_family = AF_INET6;
		memcpy(&s->sin6_addr, ip, 16);
	}
}

static void ip_text(int ip_version, const uint8_t *ip, char *out, size_t len)
{
	if (!inet_ntop(ip_version == 4 ? AF_INET : AF_INET6, ip, out, (socklen_t)len))
		g_strlcpy(out, "?", len);
}

/* The QP's port's own address of this IP version (a RoCEv2 GID; for IPv6
 * not a link-local one, which would need a scope): the CM id is bound to
 * it, so that the join is made on this device and its netdev. */
static int local_address(struct be_qp *qp, int ip_version, struct sockaddr_storage *out,
			 struct be_error *err)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	if (ibv_query_qp(qp->qp, &a, IBV_QP_PORT, &ia))
		return ib_verb_failed(err, errno, "ibv_query_qp (port)");
	struct be_port_attr pa;
	if (ib_query_port(&qp->be->base, a.port_num, &pa, err))
		return -1;
	unsigned n = 0, len = pa.gid_tbl_len ? pa.gid_tbl_len : 1;
	struct be_gid *gids = g_new(struct be_gid, len);
	int r = ib_list_gids(&qp->be->base, a.port_num, gids, len, &n, err);
	bool found = false;
	for (unsigned i = 0; r == 0 && i < n && !found; i++) {
		if (gids[i].type != BE_GID_ROCE_V2 || roce_gid_is_ipv4(gids[i].gid) != (ip_version == 4))
			continue;
		if (ip_version == 6 && roce_ipv6_is_link_local(gids[i].gid))
			continue;
		uint8_t ip[16];
		roce_gid_to_ip(gids[i].gid, ip);
		sockaddr_of(ip_version, ip, out);
		found = true;
	}
	g_free(gids);
	if (r)
		return -1;
	if (!found)
		return be_error_set(err, BE_INVALID_STATE, "cm_join: port %u of %s has no RoCEv2 IPv%d address",
				    (unsigned)a.port_num, qp->be->name, ip_version);
	return 0;
}

static void join_free(struct ib_join *j)
{
	if (j->id)
		rdma_destroy_id(j->id);
	if (j->ch)
		rdma_destroy_event_channel(j->ch);
	g_free(j);
}

static struct ib_join *find_join(struct be_qp *qp, int ip_version, const uint8_t *group, guint *index)
{
	size_t len = ip_version == 4 ? 4 : 16;
	for (guint i = 0; qp->joins && i < qp->joins->len; i++) {
		struct ib_join *j = g_ptr_array_index(qp->joins, i);
		if (j->ip_version == ip_version && !memcmp(j->group, group, len)) {
			if (index)
				*index = i;
			return j;
		}
	}
	return NULL;
}

/* Waits, at most JOIN_WAIT_MS, for the join's answer on its own channel:
 * the group's GID and LID into j, its Q_Key into *qkey. */
static int wait_join(struct ib_join *j, const char *gtext, uint32_t *qkey, struct be_error *err)
{
	gint64 end = g_get_monotonic_time() + (gint64)JOIN_WAIT_MS * 1000;
	for (;;) {
		gint64 left_ms = (end - g_get_monotonic_time()) / 1000;
		if (left_ms <= 0)
			return be_error_set(err, BE_DEVICE_ERROR,
					    "rdma_join_multicast (%s): no answer from the CM within %d ms", gtext,
					    JOIN_WAIT_MS);
		struct pollfd p = { .fd = j->ch->fd, .events = POLLIN };
		int r = poll(&p, 1, (int)left_ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return ib_verb_failed(err, errno, "poll on the CM's event channel");
		if (r == 0)
			continue; /* the deadline check above ends it */
		struct rdma_cm_event *ev;
		if (rdma_get_cm_event(j->ch, &ev))
			return ib_verb_failed(err, errno, "rdma_get_cm_event");
		enum rdma_cm_event_type type = ev->event;
		int status = ev->status;
		if (type == RDMA_CM_EVENT_MULTICAST_JOIN) {
			memcpy(j->mgid, ev->param.ud.ah_attr.grh.dgid.raw, 16);
			j->mlid = ev->param.ud.ah_attr.dlid;
			*qkey = ev->param.ud.qkey;
			rdma_ack_cm_event(ev);
			return 0;
		}
		rdma_ack_cm_event(ev);
		if (type == RDMA_CM_EVENT_MULTICAST_ERROR)
			return be_error_set(err, BE_DEVICE_ERROR, "rdma_join_multicast (%s): the CM's join failed: %s",
					    gtext, strerror(status < 0 ? -status : status));
		/* other events (an address change) are not the answer */
	}
}

/* The QP's Q_Key set to the group's, if it differs (UD RTS -> RTS takes it). */
static int take_qkey(struct be_qp *qp, uint32_t qkey, struct be_error *err)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	if (ibv_query_qp(qp->qp, &a, IBV_QP_QKEY, &ia))
		return ib_verb_failed(err, errno, "ibv_query_qp (qkey)");
	if (a.qkey == qkey)
		return 0;
	memset(&a, 0, sizeof a);
	a.qkey = qkey;
	int e = ibv_modify_qp(qp->qp, &a, IBV_QP_QKEY);
	if (e) {
		char what[96];
		snprintf(what, sizeof what, "ibv_modify_qp (the group's Q_Key 0x%08x)", qkey);
		return ib_verb_failed(err, e, what);
	}
	return 0;
}

int ib_cm_join(struct be_qp *qp, int ip_version, const uint8_t group[16], struct be_mcast_join *out,
	       struct be_error *err)
{
	if (qp->type != BE_QPT_UD)
		return be_error_set(err, BE_BAD_REQUEST, "cm_join: only a UD QP joins a multicast group");
	if (ip_version != 4 && ip_version != 6)
		return be_error_set(err, BE_BAD_REQUEST, "cm_join: IP version %d: 4 or 6", ip_version);
	if (!(qp->be->caps & BE_CAP_CM_MCAST))
		return be_error_set(err, BE_UNSUPPORTED, "%s has no multicast (max_mcast_grp 0)", qp->be->name);
	char gtext[INET6_ADDRSTRLEN];
	ip_text(ip_version, group, gtext, sizeof gtext);
	if (!roce_ip_is_multicast(ip_version, group))
		return be_error_set(err, BE_BAD_REQUEST, "cm_join: %s is not a multicast address", gtext);
	enum ibv_qp_state st;
	if (ib_current_state(qp, &st, err))
		return -1;
	if (st != IBV_QPS_RTS)
		return be_error_set(err, BE_INVALID_STATE, "cm_join: the QP must be in RTS (it is in %s)",
				    ib_state_name(st));
	if (find_join(qp, ip_version, group, NULL))
		return be_error_set(err, BE_INVALID_STATE, "cm_join: the QP has joined %s already", gtext);
	struct sockaddr_storage local, maddr;
	if (local_address(qp, ip_version, &local, err))
		return -1;
	sockaddr_of(ip_version, group, &maddr);

	struct ib_join *j = g_new0(struct ib_join, 1);
	j->ip_version = ip_version;
	memcpy(j->group, group, ip_version == 4 ? 4 : 16);
	const char *what = "rdma_create_event_channel";
	if (!(j->ch = rdma_create_event_channel()))
		goto fail;
	what = "rdma_create_id (RDMA_PS_UDP)";
	if (rdma_create_id(j->ch, &j->id, NULL, RDMA_PS_UDP))
		goto fail;
	what = "rdma_bind_addr (the port's address)";
	if (rdma_bind_addr(j->id, (struct sockaddr *)&local))
		goto fail;
	if (!j->id->verbs || strcmp(ibv_get_device_name(j->id->verbs->device), qp->be->name) != 0) {
		be_error_set(err, BE_DEVICE_ERROR, "cm_join: the CM bound the port's address to %s, not %s",
			     j->id->verbs ? ibv_get_device_name(j->id->verbs->device) : "no device", qp->be->name);
		join_free(j);
		return -1;
	}
	what = "rdma_join_multicast";
	if (rdma_join_multicast(j->id, (struct sockaddr *)&maddr, NULL))
		goto fail;
	/* From here on the group is joined: leave it on failure. */
	uint32_t qkey = 0;
	if (wait_join(j, gtext, &qkey, err) || take_qkey(qp, qkey, err) ||
	    ib_attach_mcast(qp, j->mgid, j->mlid, err)) {
		rdma_leave_multicast(j->id, (struct sockaddr *)&maddr);
		join_free(j);
		return -1;
	}
	j->attached = true;
	if (!qp->joins)
		qp->joins = g_ptr_array_new();
	g_ptr_array_add(qp->joins, j);
	memcpy(out->mgid, j->mgid, 16);
	out->qkey = qkey;
	return 0;
fail:;
	int e = errno;
	join_free(j);
	char text[128];
	snprintf(text, sizeof text, "%s (%s)", what, gtext);
	if (e == ENODEV || e == ENOENT)
		return be_error_set(err, BE_UNSUPPORTED, "%s: %s (no rdma_cm: is the rdma_ucm module loaded?)", text,
				    strerror(e));
	if (e == KERNEL_ENOTSUPP)
		return be_error_set(err, BE_UNSUPPORTED, "%s: not supported by the kernel's CM (error %d, ENOTSUPP)%s",
				    text, e, ip_version == 6 ? ": it joins no IPv6 group on a RoCEv2 port" : "");
	return ib_verb_failed(err, e, text);
}

/* Detaches the join's QP and leaves the group; the first failure in err. */
static int leave(struct be_qp *qp, struct ib_join *j, struct be_error *err)
{
	int r = 0;
	if (j->attached && find_group(qp, j->mgid) >= 0) /* not detached by hand since */
		r = ib_detach_mcast(qp, j->mgid, j->mlid, err);
	struct sockaddr_storage maddr;
	sockaddr_of(j->ip_version, j->group, &maddr);
	if (rdma_leave_multicast(j->id, (struct sockaddr *)&maddr) && r == 0) {
		char gtext[INET6_ADDRSTRLEN], what[96];
		ip_text(j->ip_version, j->group, gtext, sizeof gtext);
		snprintf(what, sizeof what, "rdma_leave_multicast (%s)", gtext);
		r = ib_verb_failed(err, errno, what);
	}
	join_free(j);
	return r;
}

int ib_cm_leave(struct be_qp *qp, int ip_version, const uint8_t group[16], struct be_error *err)
{
	guint i = 0;
	struct ib_join *j = find_join(qp, ip_version, group, &i);
	if (!j) {
		char gtext[INET6_ADDRSTRLEN];
		ip_text(ip_version == 4 ? 4 : 6, group, gtext, sizeof gtext);
		return be_error_set(err, BE_INVALID_STATE, "cm_leave: the QP has not joined %s", gtext);
	}
	g_ptr_array_remove_index(qp->joins, i);
	return leave(qp, j, err);
}
#endif

void ib_mcast_release(struct be_qp *qp)
{
#ifdef ROCE_AGENT_HAVE_RDMACM
	while (qp->joins && qp->joins->len) {
		struct be_error err;
		struct ib_join *j = g_ptr_array_steal_index(qp->joins, qp->joins->len - 1);
		if (leave(qp, j, &err))
			g_warning("%s: leaving a group of QPN 0x%06x: %s", qp->be->name, qp->qp->qp_num, err.message);
	}
	if (qp->joins)
		g_ptr_array_free(qp->joins, TRUE);
	qp->joins = NULL;
#endif
	while (qp->groups && qp->groups->len) {
		struct ib_group g = g_array_index(qp->groups, struct ib_group, qp->groups->len - 1);
		struct be_error err;
		if (ib_detach_mcast(qp, g.gid, g.lid, &err)) {
			g_warning("%s: detaching a group of QPN 0x%06x: %s", qp->be->name, qp->qp->qp_num, err.message);
			g_array_remove_index(qp->groups, qp->groups->len - 1);
		}
	}
	if (qp->groups)
		g_array_free(qp->groups, TRUE);
	qp->groups = NULL;
}
