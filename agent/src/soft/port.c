/*
 * The soft device's port as the verbs describe it (Annex A17.4-A17.5): its
 * attributes (an Ethernet link layer; the LID, LMC, VL and SM fields a
 * RoCEv2 port ignores, left at what no subnet manager ever set), its
 * capability mask (a connection manager, IP-based GIDs, no client
 * reregistration: CA17-31), its GID table with each entry's type
 * (CA17-26), its refusal of IBA's raw datagram QPs (CA17-28), and the port
 * events it never raises (CA17-31, CA17-32): a RoCEv2 port has no subnet
 * manager to change its LID, SM or P_Key table, or to ask its clients to
 * reregister.
 */
#include "soft.h"

#include <string.h>

int soft_query_port(struct backend *be, unsigned port, struct be_port_attr *out, struct be_error *err)
{
	struct soft_dev *dev = (struct soft_dev *)be;
	if (port != 1)
		return be_error_set(err, BE_BAD_REQUEST, "port %u: the soft device has port 1 only", port);
	soft_refresh_gids(dev);
	memset(out, 0, sizeof *out);
	out->state = BE_PORT_ACTIVE;
	out->active_mtu = soft_port_mtu(dev);
	out->max_mtu = 4096;
	out->gid_tbl_len = dev->n_gids;
	g_strlcpy(out->netdev, dev->ifname, sizeof out->netdev);
	out->link_layer = SOFT_FAULT_ON(dev, PORT_LINK_LAYER_IB) ? BE_LINK_INFINIBAND : BE_LINK_ETHERNET;
	/* No subnet manager assigns a RoCEv2 port a LID or tells it of one;
	 * one data VL (IBA's VLCap encoding: 1 is VL0 only). */
	out->lid = 0;
	out->lmc = 0;
	out->sm_lid = 0;
	out->sm_sl = 0;
	out->max_vl_num = 1;
	out->cap_flags = (uint32_t)AP_PORT_CM_SUP | (uint32_t)AP_PORT_IP_BASED_GIDS;
	if (SOFT_FAULT_ON(dev, CLIENT_REREG_ADVERTISED))
		out->cap_flags |= (uint32_t)AP_PORT_CLIENT_REG_SUP;
	return 0;
}

int soft_list_gids(struct backend *be, unsigned port, struct be_gid *out, unsigned max, unsigned *n,
		   struct be_error *err)
{
	struct soft_dev *dev = (struct soft_dev *)be;
	if (port != 1)
		return be_error_set(err, BE_BAD_REQUEST, "port %u: the soft device has port 1 only", port);
	soft_refresh_gids(dev);
	*n = 0;
	for (unsigned i = 0; i < dev->n_gids && *n < max; i++) {
		out[*n].index = i;
		memcpy(out[*n].gid, dev->gids[i].gid, 16);
		out[*n].type = dev->gids[i].rocev1 ? BE_GID_ROCE_V1 : BE_GID_ROCE_V2;
		(*n)++;
	}
	/* An entry past the table's, a copy of its first GID, that carries no
	 * type: nothing uses it, so only the table shows it. */
	if (SOFT_FAULT_ON(dev, GID_TYPE_UNKNOWN) && dev->n_gids && *n < max) {
		out[*n].index = dev->n_gids;
		memcpy(out[*n].gid, dev->gids[0].gid, 16);
		out[*n].type = BE_GID_UNKNOWN;
		(*n)++;
	}
	return 0;
}

int soft_probe_raw_datagram_qp(struct be_pd *pd, enum be_raw_qp_type type, struct be_raw_probe *out,
			       struct be_error *err)
{
	(void)err;
	memset(out, 0, sizeof *out);
	const char *name = type == BE_RAW_IPV6 ? "Raw IPv6" : "Raw Ethertype";
	out->n_answers = 1;
	if (SOFT_FAULT_ON(pd->dev, RAW_DATAGRAM_QP)) {
		/* Nothing could use it: made and destroyed, as the probe asks. */
		out->created = true;
		g_snprintf(out->answers[0], sizeof out->answers[0], "soft device: created a %s datagram QP (destroyed again)",
			   name);
		return 0;
	}
	g_snprintf(out->answers[0], sizeof out->answers[0],
		   "soft device: refused: a RoCEv2 port has no %s datagram service (A17.4.5); its QP types are RC, UC, UD and XRC",
		   name);
	return 0;
}

void soft_port_qp_ready(struct be_qp *qp)
{
	struct soft_dev *dev = qp->dev;
	/* What an InfiniBand port hears from its subnet manager as its QPs
	 * come up; a RoCEv2 port has none to hear it from. */
	if (SOFT_FAULT_ON(dev, PORT_CHANGE_EVENT))
		soft_event_raise(dev, BE_EVENT_LID_CHANGE, NULL, NULL);
	if (SOFT_FAULT_ON(dev, CLIENT_REREG_EVENT))
		soft_event_raise(dev, BE_EVENT_CLIENT_REREGISTER, NULL, NULL);
}
