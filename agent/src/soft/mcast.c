/*
 * UD multicast (notes §7.1, docs/services.md): the groups of the device,
 * each with the UD QPs attached to it (a QP may be in several; attached
 * twice, it is one member, ibv_attach_mcast(3)), delivery of a datagram
 * to DestQP 0xFFFFFF as one copy per attached QP whose checks pass (the
 * per-QP checks of rx.c, Q_Key included), the loopback of the device's
 * own datagrams to its attached QPs, the sender's included, as InfiniBand
 * HCAs do, and the connection manager's join and leave: the QP is
 * attached and a socket on the device's interface joins the group
 * (IP_ADD_MEMBERSHIP, IPV6_JOIN_GROUP), so that the kernel reports the
 * membership with IGMP or MLD; closing it reports the leave.
 *
 * The raw socket is told to take the frames to each group's mapped MAC
 * (PACKET_ADD_MEMBERSHIP) while a QP is attached to it.
 */
#include "soft.h"
#include "roce/mcast.h"

#include <errno.h>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct soft_mcast_group {
	struct roce_mcast_group g;
	GPtrArray *qps;    /* attached, in the order they attached */
	GPtrArray *joined; /* the QPs that joined through the CM */
	int join_fd;       /* its membership makes the host report; -1: none.
			    * Open with no QP joined only under cm-leave-silent. */
	bool mac_added;    /* the raw socket takes the mapped MAC */
};

static bool same_group(const struct soft_mcast_group *m, int ip_version, const uint8_t *ip)
{
	return m->g.ip_version == ip_version && memcmp(m->g.ip, ip, ip_version == 4 ? 4 : 16) == 0;
}

static struct soft_mcast_group *group_find(const struct soft_dev *dev, int ip_version, const uint8_t *ip)
{
	for (guint i = 0; dev->mcast && i < dev->mcast->len; i++) {
		struct soft_mcast_group *m = g_ptr_array_index(dev->mcast, i);
		if (same_group(m, ip_version, ip))
			return m;
	}
	return NULL;
}

static void packet_membership(struct soft_dev *dev, struct soft_mcast_group *m, bool add)
{
	if (dev->raw_fd < 0 || m->mac_added == add)
		return;
	struct packet_mreq mr;
	memset(&mr, 0, sizeof mr);
	mr.mr_ifindex = dev->ifindex;
	mr.mr_type = PACKET_MR_MULTICAST;
	mr.mr_alen = 6;
	memcpy(mr.mr_address, m->g.mac, 6);
	if (setsockopt(dev->raw_fd, SOL_PACKET, add ? PACKET_ADD_MEMBERSHIP : PACKET_DROP_MEMBERSHIP, &mr,
		       sizeof mr) != 0)
		g_warning("soft: %s the multicast MAC on %s: %s", add ? "taking" : "leaving", dev->ifname,
			  strerror(errno));
	else
		m->mac_added = add;
}

/* The host leaves the group: closing the socket drops its membership. */
static void join_socket_close(struct soft_mcast_group *m)
{
	if (m->join_fd >= 0)
		close(m->join_fd);
	m->join_fd = -1;
}

/* A group nobody is in any more goes, unless the host is still a member
 * (cm-leave-silent): then soft_mcast_close ends it. */
static void group_maybe_free(struct soft_dev *dev, struct soft_mcast_group *m)
{
	if (m->qps->len || m->joined->len || m->join_fd >= 0)
		return;
	packet_membership(dev, m, false);
	g_ptr_array_free(m->qps, TRUE);
	g_ptr_array_free(m->joined, TRUE);
	g_ptr_array_remove(dev->mcast, m);
	g_free(m);
}

/* The group of a GID; NULL with err set when it is not one. */
static struct soft_mcast_group *group_of_gid(struct soft_dev *dev, const uint8_t gid[16], bool create,
					     struct be_error *err)
{
	uint8_t ip[16] = { 0 };
	int v = roce_gid_to_ip(gid, ip);
	struct roce_mcast_group g;
	if (!roce_gid_is_multicast(gid) || !roce_mcast_group_from_ip(v, ip, &g)) {
		be_error_set(err, BE_BAD_REQUEST, "the GID is not a multicast group");
		return NULL;
	}
	struct soft_mcast_group *m = group_find(dev, v, ip);
	if (m || !create)
		return m;
	m = g_new0(struct soft_mcast_group, 1);
	m->g = g;
	m->qps = g_ptr_array_new();
	m->joined = g_ptr_array_new();
	m->join_fd = -1;
	if (!dev->mcast)
		dev->mcast = g_ptr_array_new();
	g_ptr_array_add(dev->mcast, m);
	return m;
}

static bool has_qp(GPtrArray *a, const struct be_qp *qp)
{
	for (guint i = 0; i < a->len; i++)
		if (g_ptr_array_index(a, i) == qp)
			return true;
	return false;
}

static int attach(struct be_qp *qp, struct soft_mcast_group *m)
{
	/* Attached already: still one member (ibv_attach_mcast(3)). */
	if (has_qp(m->qps, qp) && !SOFT_FAULT_ON(qp->dev, MCAST_DOUBLE_ATTACH))
		return 0;
	g_ptr_array_add(m->qps, qp);
	qp->dev->cnt.mcast_attached++;
	packet_membership(qp->dev, m, true);
	return 0;
}

static bool detach(struct be_qp *qp, struct soft_mcast_group *m)
{
	if (!g_ptr_array_remove(m->qps, qp))
		return false;
	qp->dev->cnt.mcast_attached--;
	while (g_ptr_array_remove(m->qps, qp)) /* a member twice (mcast-double-attach) */
		qp->dev->cnt.mcast_attached--;
	if (!m->qps->len)
		packet_membership(qp->dev, m, false);
	return true;
}

int soft_attach_mcast(struct be_qp *qp, const uint8_t gid[16], uint16_t lid, struct be_error *err)
{
	/* RoCEv2 ignores the MLID (CA17-30): no subnet manager gave one. */
	if (lid && SOFT_FAULT_ON(qp->dev, MCAST_MLID_REFUSED))
		return be_error_set(err, BE_BAD_REQUEST, "MLID 0x%04x is not a multicast LID this port knows", lid);
	if (qp->type != BE_QPT_UD)
		return be_error_set(err, BE_BAD_REQUEST, "only UD QPs attach to multicast groups");
	/* A GID that is no group: refused (IBV-MCAST-GID), as the Linux
	 * RDMA core refuses it for every device. */
	if (!roce_gid_is_multicast(gid) && SOFT_FAULT_ON(qp->dev, MCAST_ATTACH_UNICAST))
		return 0;
	struct soft_mcast_group *m = group_of_gid(qp->dev, gid, true, err);
	if (m && lid && SOFT_FAULT_ON(qp->dev, MCAST_MLID_NOT_ATTACHED)) {
		group_maybe_free(qp->dev, m);
		return 0;
	}
	return m ? attach(qp, m) : -1;
}

int soft_detach_mcast(struct be_qp *qp, const uint8_t gid[16], uint16_t lid, struct be_error *err)
{
	(void)lid;
	if (!roce_gid_is_multicast(gid))
		return be_error_set(err, BE_BAD_REQUEST, "the GID is not a multicast group");
	struct soft_mcast_group *m = group_of_gid(qp->dev, gid, false, err);
	if (!m || !detach(qp, m))
		return be_error_set(err, BE_INVALID_STATE, "the QP is not attached to that group");
	group_maybe_free(qp->dev, m);
	return 0;
}

/* A socket on the device's interface joins the group: the kernel then
 * reports the membership (IGMP for IPv4, MLD for IPv6) and answers the
 * queries for it. */
static int join_socket(struct soft_dev *dev, const struct roce_mcast_group *g, struct be_error *err)
{
	int fd = socket(g->ip_version == 4 ? AF_INET : AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return be_error_set(err, BE_DEVICE_ERROR, "a socket for the join: %s", strerror(errno));
	int rc;
	if (g->ip_version == 4) {
		struct ip_mreqn mr;
		memset(&mr, 0, sizeof mr);
		memcpy(&mr.imr_multiaddr, g->ip, 4);
		mr.imr_ifindex = dev->ifindex;
		rc = setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mr, sizeof mr);
	} else {
		struct ipv6_mreq mr;
		memset(&mr, 0, sizeof mr);
		memcpy(&mr.ipv6mr_multiaddr, g->ip, 16);
		mr.ipv6mr_interface = (unsigned)dev->ifindex;
		rc = setsockopt(fd, IPPROTO_IPV6, IPV6_JOIN_GROUP, &mr, sizeof mr);
	}
	if (rc != 0) {
		int e = errno;
		close(fd);
		return be_error_set(err, BE_DEVICE_ERROR, "joining the group on %s: %s", dev->ifname, strerror(e));
	}
	return fd;
}

int soft_cm_join(struct be_qp *qp, int ip_version, const uint8_t group[16], struct be_mcast_join *out,
		 struct be_error *err)
{
	struct soft_dev *dev = qp->dev;
	if (qp->type != BE_QPT_UD)
		return be_error_set(err, BE_BAD_REQUEST, "only UD QPs join multicast groups");
	if (qp->attr.state != BE_QPS_RTS)
		return be_error_set(err, BE_INVALID_STATE, "the QP is not in RTS");
	struct roce_mcast_group g;
	if ((ip_version != 4 && ip_version != 6) || !roce_mcast_group_from_ip(ip_version, group, &g))
		return be_error_set(err, BE_BAD_REQUEST, "the address is not an IPv%d multicast group", ip_version);
	/* The CM joins from the port's addresses of the group's version. */
	soft_refresh_gids(dev);
	bool have_ip = false;
	for (unsigned i = 0; i < dev->n_gids; i++)
		have_ip |= dev->gids[i].ip_version == ip_version;
	if (!have_ip)
		return be_error_set(err, BE_BAD_REQUEST, "the port has no IPv%d address to join from", ip_version);
	struct soft_mcast_group *m = group_of_gid(dev, g.gid, true, err);
	if (!m)
		return -1;
	if (has_qp(m->joined, qp))
		return be_error_set(err, BE_INVALID_STATE, "the QP has joined that group already");
	/* No interface (a device of the fuzzers): nothing to report on. */
	if (m->join_fd < 0 && dev->ifindex > 0 && !SOFT_FAULT_ON(dev, CM_JOIN_SILENT)) {
		int fd = join_socket(dev, &g, err);
		if (fd < 0) {
			group_maybe_free(dev, m);
			return -1;
		}
		m->join_fd = fd;
		dev->cnt.mcast_joins++;
	}
	g_ptr_array_add(m->joined, qp);
	attach(qp, m);
	memcpy(out->mgid, g.gid, 16);
	out->qkey = qp->attr.qkey; /* the group's Q_Key is the QP's */
	return 0;
}

int soft_cm_leave(struct be_qp *qp, int ip_version, const uint8_t group[16], struct be_error *err)
{
	struct soft_dev *dev = qp->dev;
	uint8_t ip[16] = { 0 };
	memcpy(ip, group, ip_version == 4 ? 4 : 16);
	struct soft_mcast_group *m = (ip_version == 4 || ip_version == 6) ? group_find(dev, ip_version, ip) : NULL;
	if (!m || !g_ptr_array_remove(m->joined, qp))
		return be_error_set(err, BE_INVALID_STATE, "the QP has not joined that group");
	detach(qp, m);
	/* The host leaves when its last CM member does: closing the socket
	 * makes the kernel report it (IGMP, MLD). */
	if (!m->joined->len && !SOFT_FAULT_ON(dev, CM_LEAVE_SILENT))
		join_socket_close(m);
	group_maybe_free(dev, m);
	return 0;
}

void soft_mcast_qp_gone(struct be_qp *qp)
{
	struct soft_dev *dev = qp->dev;
	for (guint i = dev->mcast ? dev->mcast->len : 0; i-- > 0;) {
		struct soft_mcast_group *m = g_ptr_array_index(dev->mcast, i);
		detach(qp, m);
		if (g_ptr_array_remove(m->joined, qp) && !m->joined->len)
			join_socket_close(m);
		group_maybe_free(dev, m);
	}
}

void soft_mcast_close(struct soft_dev *dev)
{
	while (dev->mcast && dev->mcast->len) {
		struct soft_mcast_group *m = g_ptr_array_index(dev->mcast, dev->mcast->len - 1);
		g_ptr_array_set_size(m->qps, 0);
		g_ptr_array_set_size(m->joined, 0);
		join_socket_close(m);
		group_maybe_free(dev, m);
	}
	if (dev->mcast)
		g_ptr_array_free(dev->mcast, TRUE);
	dev->mcast = NULL;
}

bool soft_mcast_mac_wanted(const struct soft_dev *dev, const uint8_t mac[6])
{
	for (guint i = 0; dev->mcast && i < dev->mcast->len; i++) {
		const struct soft_mcast_group *m = g_ptr_array_index(dev->mcast, i);
		if (m->qps->len && memcmp(m->g.mac, mac, 6) == 0)
			return true;
	}
	return false;
}

static gint by_qpn(gconstpointer a, gconstpointer b)
{
	const struct be_qp *x = *(struct be_qp *const *)a, *y = *(struct be_qp *const *)b;
	return x->qpn < y->qpn ? -1 : x->qpn > y->qpn;
}

/* The device's QPs of a transport, lowest QPN first. */
static GPtrArray *qps_of(struct soft_dev *dev, enum be_qp_type t)
{
	GPtrArray *a = g_ptr_array_new();
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, dev->qps);
	while (g_hash_table_iter_next(&it, &k, &v))
		if (((struct be_qp *)v)->type == t)
			g_ptr_array_add(a, v);
	g_ptr_array_sort(a, by_qpn);
	return a;
}

/* An RC or UC packet to DestQP 0xFFFFFF, at a group or at the port's own
 * address: multicast is UD's, so it is dropped (IBA9.6-MCAST-RCUC). */
static void rx_connected(struct soft_dev *dev, const struct soft_rx *rx)
{
	if (!SOFT_FAULT_ON(dev, MCAST_ACCEPT_RCUC)) {
		dev->cnt.rx_drop_mcast_rcuc++;
		return;
	}
	GPtrArray *qps = qps_of(dev, rx->op->transport == ROCE_T_RC ? BE_QPT_RC : BE_QPT_UC);
	struct be_qp *qp = qps->len ? g_ptr_array_index(qps, 0) : NULL;
	g_ptr_array_free(qps, TRUE);
	/* The packet names a group or no QP, not the QP's peer's address. */
	if (qp && soft_rx_qp_accepts(qp, rx, SOFT_ACCEPT_ANY_ADDR)) {
		dev->cnt.rx_packets++;
		soft_rx_deliver(qp, rx);
	}
}

/* Whether the group's datagrams reach its attached QPs now: always, but
 * under mcast-attach-needs-join only while the host is a member. */
static bool group_receives(const struct soft_dev *dev, const struct soft_mcast_group *m)
{
	return m && m->qps->len && (!SOFT_FAULT_ON(dev, MCAST_ATTACH_NEEDS_JOIN) || m->joined->len);
}

/* Whether a looped-back copy skips this member: the sender itself, under
 * mcast-no-self-loopback. */
static bool loop_skips(const struct soft_dev *dev, const struct be_qp *qp)
{
	return dev->mcast_looping && qp->qpn == dev->mcast_loop_qpn && SOFT_FAULT_ON(dev, MCAST_NO_SELF_LOOPBACK);
}

void soft_mcast_rx(struct soft_dev *dev, const struct soft_rx *rx)
{
	if (rx->op->transport != ROCE_T_UD) {
		rx_connected(dev, rx);
		return;
	}
	/* DestQP 0xFFFFFF at the port's own address names no group. */
	if (!roce_ip_is_multicast(rx->ip_version, rx->dst_ip)) {
		dev->cnt.rx_drop_mcast_destqp++;
		return;
	}
	dev->cnt.rx_mcast++;
	struct soft_mcast_group *m = group_find(dev, rx->ip_version, rx->dst_ip);
	GPtrArray *to;
	if (SOFT_FAULT_ON(dev, MCAST_DELIVER_UNATTACHED)) {
		to = qps_of(dev, BE_QPT_UD);
	} else if (group_receives(dev, m)) {
		/* A copy: a delivery may move a QP to ERR, never out of the group. */
		to = g_ptr_array_copy(m->qps, NULL, NULL);
	} else {
		dev->cnt.rx_drop_mcast_unattached++;
		return;
	}
	unsigned copies = SOFT_FAULT_ON(dev, MCAST_SINGLE_COPY) ? 1 : to->len;
	unsigned relax = SOFT_FAULT_ON(dev, MCAST_IGNORE_QKEY) ? SOFT_ACCEPT_ANY_QKEY : 0;
	unsigned done = 0;
	for (guint i = 0; i < to->len && done < copies; i++) {
		struct be_qp *qp = g_ptr_array_index(to, i);
		if (loop_skips(dev, qp) || !soft_rx_qp_accepts(qp, rx, relax))
			continue;
		dev->cnt.rx_mcast_copies++;
		soft_rx_deliver(qp, rx);
		done++;
	}
	if (done)
		dev->cnt.rx_packets++;
	g_ptr_array_free(to, TRUE);
}

void soft_mcast_loopback(struct soft_dev *dev, const uint8_t *frame, size_t len)
{
	if (!dev->mcast || dev->mcast_looping)
		return;
	struct roce_pkt p;
	struct roce_mcast_group g;
	if (roce_parse_frame(&p, frame, len, len, 0) != ROCE_OK || !roce_pkt_has(&p, ROCE_H_DETH) ||
	    !roce_pkt_mcast_group(&p, &g))
		return;
	const struct soft_mcast_group *m = group_find(dev, g.ip_version, g.ip);
	if (!m || !m->qps->len || SOFT_FAULT_ON(dev, MCAST_NO_LOOPBACK))
		return;
	/* The device receives its own frame as a frame from the wire: a copy,
	 * since a delivery may make it send (and reuse its buffer). */
	uint8_t *copy = g_memdup2(frame, len);
	dev->mcast_looping = true;
	dev->mcast_loop_qpn = roce_deth_srcqp(roce_pkt_hdr(&p, ROCE_H_DETH));
	soft_rx_frame(dev, copy, len);
	dev->mcast_looping = false;
	g_free(copy);
}
