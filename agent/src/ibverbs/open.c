/*
 * Opening the device (by name, or the first one), closing it, and the
 * backend's operations.
 */
#include "ibverbs.h"

#include <errno.h>
#include <string.h>

#include "text.h"

/* ---- Open and close ---- */

static void ib_close(struct backend *be)
{
	struct ib_backend *ib = ib_of(be);
	ib_events_stop(ib);
	ibv_close_device(ib->ctx);
	g_free(ib);
}

static const struct backend_ops ib_ops = {
	.name = "ibverbs",
	.close = ib_close,
	.query_device = ib_query_device,
	.query_port = ib_query_port,
	.list_gids = ib_list_gids,
	.alloc_pd = ib_alloc_pd,
	.dealloc_pd = ib_dealloc_pd,
	.create_cq = ib_create_cq,
	.destroy_cq = ib_destroy_cq,
	.reg_mr = ib_reg_mr,
	.dereg_mr = ib_dereg_mr,
	.mr_info = ib_mr_info,
	.create_qp = ib_create_qp,
	.modify_qp = ib_modify_qp,
	.query_qp = ib_query_qp,
	.destroy_qp = ib_destroy_qp,
	.create_ah = ib_create_ah,
	.destroy_ah = ib_destroy_ah,
	.post_recv = ib_post_recv,
	.post_send = ib_post_send,
	.poll_cq = ib_poll_cq,
	.read_counters = ib_read_counters,
	.create_srq = ib_create_srq,
	.modify_srq = ib_modify_srq,
	.query_srq = ib_query_srq,
	.destroy_srq = ib_destroy_srq,
	.post_srq_recv = ib_post_srq_recv,
	.get_async_events = ib_get_async_events,
	.attach_mcast = ib_attach_mcast,
	.detach_mcast = ib_detach_mcast,
	.alloc_mw = ib_alloc_mw,
	.dealloc_mw = ib_dealloc_mw,
	.bind_mw = ib_bind_mw,
	.probe_raw_datagram_qp = ib_probe_raw_datagram_qp,
	.alloc_xrcd = ib_alloc_xrcd,
	.dealloc_xrcd = ib_dealloc_xrcd,
#ifdef ROCE_AGENT_HAVE_RDMACM
	.cm_listen = ib_cm_listen,
	.cm_join = ib_cm_join,
	.cm_leave = ib_cm_leave,
#endif
};

static struct backend *ib_open(const struct backend_options *opts, char *err, size_t errlen)
{
	int num = 0;
	struct ibv_device **list = ibv_get_device_list(&num);
	if (!list) {
		text_printf(err, errlen, "ibv_get_device_list: %s (is libibverbs set up?)",
			 strerror(errno));
		return NULL;
	}
	struct ibv_device *dev = NULL;
	GString *names = g_string_new(NULL);
	for (int i = 0; i < num; i++) {
		const char *n = ibv_get_device_name(list[i]);
		g_string_append_printf(names, "%s%s", names->len ? ", " : "", n);
		if (!dev && (!opts->device || strcmp(opts->device, n) == 0))
			dev = list[i];
	}
	if (!dev) {
		if (num == 0)
			text_printf(err, errlen, "no RDMA device found (is the driver loaded, e.g. "
					      "'rdma link add rxe0 type rxe netdev eth0', and "
					      "/dev/infiniband there?)");
		else
			text_printf(err, errlen, "no RDMA device '%s' (there are: %s)", opts->device,
				 names->str);
		g_string_free(names, TRUE);
		ibv_free_device_list(list);
		return NULL;
	}
	g_string_free(names, TRUE);

	struct ib_backend *ib = g_new0(struct ib_backend, 1);
	ib->base.ops = &ib_ops;
	g_strlcpy(ib->name, ibv_get_device_name(dev), sizeof ib->name);
	ib->ctx = ibv_open_device(dev);
	ibv_free_device_list(list);
	if (!ib->ctx) {
		text_printf(err, errlen, "ibv_open_device %s: %s", ib->name, strerror(errno));
		g_free(ib);
		return NULL;
	}
	if (ibv_query_device(ib->ctx, &ib->attr)) {
		text_printf(err, errlen, "ibv_query_device %s: %s", ib->name, strerror(errno));
		ibv_close_device(ib->ctx);
		g_free(ib);
		return NULL;
	}
	ib_events_start(ib);
	ib->caps = ib_probe_caps(ib);
	return &ib->base;
}

static const char *ib_fault_name(struct backend *be)
{
	(void)be;
	return NULL;
}

const struct backend_factory backend_ibverbs_factory = {
	.name = "ibverbs",
	.open = ib_open,
	.fault_name = ib_fault_name,
};
