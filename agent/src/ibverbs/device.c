/*
 * The device as the tester sees it: its attributes, the capabilities
 * probed once at open (QP types, atomics, RCM, RoCE v1, IPv4/IPv6 GIDs,
 * SRQs, multicast, the CM's joins, asynchronous events, memory windows,
 * XRC, ATOMIC WRITE and FLUSH),
 * its ports with their netdevs, and their GID tables.
 */
#include "ibverbs.h"
#include "roce/gid.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* Probes whether the device creates a QP of this type (UC in particular is
 * optional, and no device attribute says so). */
static bool can_create_qp(struct ibv_pd *pd, struct ibv_cq *cq, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = type,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &init);
	if (!qp)
		return false;
	ibv_destroy_qp(qp);
	return true;
}

/* RoCEv2 congestion management: drivers that implement it expose its
 * switches under the netdev's ecn/ directory (mlx5: ecn/roce_np, roce_rp). */
static bool has_rcm(const char *netdev)
{
	char path[PATH_MAX], val[16];
	if (!netdev[0])
		return false;
	snprintf(path, sizeof path, "/sys/class/net/%s/ecn/roce_np/enable/3", netdev);
	return ib_read_sysfs(path, val, sizeof val) == 0 && strcmp(val, "1") == 0;
}


unsigned ib_probe_caps(struct ib_backend *ib)
{
	unsigned caps = 0;
	struct ibv_pd *pd = ibv_alloc_pd(ib->ctx);
	struct ibv_cq *cq = pd ? ibv_create_cq(ib->ctx, 2, NULL, NULL, 0) : NULL;
	if (cq) {
		if (can_create_qp(pd, cq, IBV_QPT_RC))
			caps |= BE_CAP_RC;
		if (can_create_qp(pd, cq, IBV_QPT_UC))
			caps |= BE_CAP_UC;
		if (can_create_qp(pd, cq, IBV_QPT_UD))
			caps |= BE_CAP_UD;
	}
	caps |= ib_probe_placement_caps(ib, pd, cq);
	caps |= ib_probe_mw_caps(ib, pd);
	caps |= ib_probe_xrc_caps(ib);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);

	if (ib->attr.atomic_cap != IBV_ATOMIC_NONE)
		caps |= BE_CAP_ATOMIC;
	if (ib->attr.device_cap_flags & IBV_DEVICE_MEM_MGT_EXTENSIONS)
		caps |= BE_CAP_SEND_WITH_INV;
	if (ib->attr.max_srq > 0)
		caps |= BE_CAP_SRQ;
	if (ib->attr.max_mcast_grp > 0 && ib->attr.max_mcast_qp_attach > 0)
		caps |= BE_CAP_MCAST;
#ifdef ROCE_AGENT_HAVE_RDMACM
	/* The CM's join ends in an attach: it needs multicast too. */
	if (caps & BE_CAP_MCAST)
		caps |= BE_CAP_CM_MCAST;
#endif
	if (ib->async_watch) /* events.c: the async fd is watched */
		caps |= BE_CAP_ASYNC_EVENTS;

	for (unsigned port = 1; port <= ib->attr.phys_port_cnt; port++) {
		struct be_port_attr pa;
		if (ib_query_port(&ib->base, port, &pa, NULL) != 0)
			continue;
		if (has_rcm(pa.netdev))
			caps |= BE_CAP_RCM;
		struct be_gid *gids = g_new(struct be_gid, pa.gid_tbl_len ? pa.gid_tbl_len : 1);
		unsigned n = 0;
		if (ib_list_gids(&ib->base, port, gids, pa.gid_tbl_len, &n, NULL) == 0)
			for (unsigned i = 0; i < n; i++) {
				/* A RoCE v1 GID makes the port dual-mode (A17.8). */
				if (gids[i].type == BE_GID_ROCE_V1)
					caps |= BE_CAP_ROCEV1;
				if (gids[i].type != BE_GID_ROCE_V2)
					continue;
				caps |= roce_gid_is_ipv4(gids[i].gid) ? BE_CAP_IPV4 : BE_CAP_IPV6;
			}
		g_free(gids);
	}
	return caps;
}

int ib_query_device(struct backend *be, struct be_device_attr *out, struct be_error *err)
{
	struct ib_backend *ib = ib_of(be);
	struct ibv_device_attr a;
	if (ibv_query_device(ib->ctx, &a))
		return ib_verb_failed(err, errno, "ibv_query_device");
	memset(out, 0, sizeof *out);
	g_strlcpy(out->name, ib->name, sizeof out->name);
	out->vendor_id = a.vendor_id;
	out->vendor_part_id = a.vendor_part_id;
	g_strlcpy(out->fw_ver, a.fw_ver, sizeof out->fw_ver);
	out->max_qp = (uint32_t)a.max_qp;
	out->max_qp_wr = (uint32_t)a.max_qp_wr;
	out->max_sge = (uint32_t)a.max_sge;
	out->max_mr_size = a.max_mr_size;
	out->max_qp_rd_atom = (uint32_t)a.max_qp_rd_atom;
	out->max_qp_init_rd_atom = (uint32_t)a.max_qp_init_rd_atom;
	out->atomic_cap = a.atomic_cap == IBV_ATOMIC_HCA	 ? BE_ATOMIC_HCA
			  : a.atomic_cap == IBV_ATOMIC_GLOB ? BE_ATOMIC_GLOB
							    : BE_ATOMIC_NONE;
	out->caps = ib->caps;
	out->max_raw_ipv6_qp = a.max_raw_ipv6_qp > 0 ? (uint32_t)a.max_raw_ipv6_qp : 0;
	out->max_raw_ethy_qp = a.max_raw_ethy_qp > 0 ? (uint32_t)a.max_raw_ethy_qp : 0;
	return 0;
}

/* The netdev behind a port: the one its GID 0 belongs to (sysfs), which is
 * what `rdma link` shows. */
static void port_netdev(struct ib_backend *ib, unsigned port, char *out, size_t len)
{
	char path[PATH_MAX];
	out[0] = '\0';
	snprintf(path, sizeof path, SYSFS_IB "/%s/ports/%u/gid_attrs/ndevs/0", ib->name, port);
	if (ib_read_sysfs(path, out, len) != 0)
		out[0] = '\0';
}

int ib_query_port(struct backend *be, unsigned port, struct be_port_attr *out,
		  struct be_error *err)
{
	struct ib_backend *ib = ib_of(be);
	if (ib_check_port(ib, port, err))
		return -1;
	struct ibv_port_attr pa;
	if (ibv_query_port(ib->ctx, (uint8_t)port, &pa))
		return ib_verb_failed(err, errno, "ibv_query_port");
	memset(out, 0, sizeof *out);
	switch (pa.state) {
	case IBV_PORT_INIT:
		out->state = BE_PORT_INIT;
		break;
	case IBV_PORT_ARMED:
		out->state = BE_PORT_ARMED;
		break;
	case IBV_PORT_ACTIVE:
	case IBV_PORT_ACTIVE_DEFER:
		out->state = BE_PORT_ACTIVE;
		break;
	default:
		out->state = BE_PORT_DOWN;
		break;
	}
	out->active_mtu = ib_mtu_bytes(pa.active_mtu);
	out->max_mtu = ib_mtu_bytes(pa.max_mtu);
	out->gid_tbl_len = pa.gid_tbl_len > 0 ? (unsigned)pa.gid_tbl_len : 0;
	port_netdev(ib, port, out->netdev, sizeof out->netdev);
	out->link_layer = pa.link_layer == IBV_LINK_LAYER_ETHERNET     ? BE_LINK_ETHERNET
			  : pa.link_layer == IBV_LINK_LAYER_INFINIBAND ? BE_LINK_INFINIBAND
								       : BE_LINK_UNSPECIFIED;
	out->lid = pa.lid;
	out->lmc = pa.lmc;
	out->sm_lid = pa.sm_lid;
	out->sm_sl = pa.sm_sl;
	out->max_vl_num = pa.max_vl_num;
	/* As the kernel reports it: the driver's mask, with IP_BASED_GIDS
	 * where the core says the port's GIDs are IP addresses. */
	out->cap_flags = pa.port_cap_flags;
	return 0;
}

int ib_list_gids(struct backend *be, unsigned port, struct be_gid *out, unsigned max,
		 unsigned *n, struct be_error *err)
{
	struct ib_backend *ib = ib_of(be);
	*n = 0;
	if (ib_check_port(ib, port, err))
		return -1;
	/* The table query returns the valid entries of every port. */
	size_t total = 0;
	for (unsigned p = 1; p <= ib->attr.phys_port_cnt; p++) {
		struct ibv_port_attr pa;
		if (ibv_query_port(ib->ctx, (uint8_t)p, &pa))
			return ib_verb_failed(err, errno, "ibv_query_port");
		total += pa.gid_tbl_len > 0 ? (size_t)pa.gid_tbl_len : 0;
	}
	if (total == 0)
		return 0;
	struct ibv_gid_entry *entries = g_new0(struct ibv_gid_entry, total);
	ssize_t got = ibv_query_gid_table(ib->ctx, entries, total, 0);
	if (got < 0) {
		int e = (int)-got;
		g_free(entries);
		return ib_verb_failed(err, e, "ibv_query_gid_table");
	}
	for (ssize_t i = 0; i < got && *n < max; i++) {
		if (entries[i].port_num != port)
			continue;
		struct be_gid *g = &out[(*n)++];
		g->index = entries[i].gid_index;
		memcpy(g->gid, entries[i].gid.raw, 16);
		/* A type value libibverbs has no name for is no type the
		 * annex knows (CA17-26): it is reported as such. */
		switch (entries[i].gid_type) {
		case IBV_GID_TYPE_ROCE_V2: g->type = BE_GID_ROCE_V2; break;
		case IBV_GID_TYPE_ROCE_V1: g->type = BE_GID_ROCE_V1; break;
		case IBV_GID_TYPE_IB: g->type = BE_GID_IB; break;
		default: g->type = BE_GID_UNKNOWN; break;
		}
	}
	g_free(entries);
	return 0;
}
