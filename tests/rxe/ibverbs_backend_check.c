/*
 * The ibverbs backend against Linux Soft-RoCE, run inside the rxe VM:
 *
 *     ibverbs_backend_check DEVICE IPV4 IPV6
 *
 * Opens DEVICE through the backend interface (as roce-agent does), checks
 * what it reports about the device, port and GIDs, then connects QPs to
 * each other on the device itself (rxe loops such packets back through its
 * full requester/responder path) and runs every work request the protocol
 * has, over IPv4 and IPv6 GIDs: RC SEND, SEND with immediate, WRITE, WRITE
 * with immediate, READ, compare-and-swap, fetch-and-add, SEND with
 * invalidate; UC SEND and WRITE; UD SEND. It checks the data that moved,
 * every completion, query_qp, the counters, and the refusals a user gets
 * for bad requests. Then an SRQ shared by a UD QP (order, the limit event,
 * Last WQE Reached), multicast attach and detach of IPv4 and IPv6 groups
 * (eth0's MAC filter as rxe leaves it), and the CM's join of an IPv4 group
 * (the guest kernel's /proc/net/igmp); then memory windows, ATOMIC WRITE,
 * FLUSH and XRC (ibverbs_backend_mw_check.c). Prints one line per check;
 * exit status 1 if any failed.
 */
#include "ibverbs_backend_check.h"
#include "roce/mcast.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int wait_wc(struct ctx *c, struct be_cq *cq, struct be_wc *wc)
{
	double end = now() + 5;
	while (now() < end) {
		unsigned n = 0;
		struct be_error err;
		if (c->ops->poll_cq(cq, wc, 1, &n, &err) != 0) {
			printf("FAIL: poll_cq: %s\n", err.message);
			return 0;
		}
		if (n == 1)
			return 1;
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	return 0;
}

static int parse_gid(const char *text, uint8_t gid[16])
{
	struct in_addr a4;
	if (inet_pton(AF_INET, text, &a4) == 1) {
		memset(gid, 0, 10);
		gid[10] = gid[11] = 0xff;
		memcpy(gid + 12, &a4, 4);
		return 0;
	}
	return inet_pton(AF_INET6, text, gid) == 1 ? 0 : -1;
}

static void counter_sum(void *ctx, const char *name, uint64_t value)
{
	uint64_t *sent = ctx;
	if (strcmp(name, "sent_pkts") == 0)
		*sent = value;
}

void make_ep(struct ctx *c, struct be_pd *pd, enum be_qp_type type, struct ep *ep)
{
	struct be_error err;
	MUST(c, c->ops->create_cq(c->be, 64, &ep->cq, &err), &err);
	struct be_qp_init init = { .type = type, .send_cq = ep->cq, .recv_cq = ep->cq,
				   .max_send_wr = 16, .max_recv_wr = 16,
				   .max_send_sge = 2, .max_recv_sge = 2 };
	MUST(c, c->ops->create_qp(pd, &init, &ep->qp, &ep->qpn, &err), &err);
	MUST(c, c->ops->reg_mr(pd, 8192,
			       BE_ACCESS_LOCAL_WRITE | BE_ACCESS_REMOTE_WRITE | BE_ACCESS_REMOTE_READ |
				       BE_ACCESS_REMOTE_ATOMIC,
			       0, &ep->mr, &err),
	     &err);
	c->ops->mr_info(ep->mr, &ep->mi);
}

void free_ep(struct ctx *c, struct ep *ep)
{
	struct be_error err;
	CHECK(c, c->ops->destroy_qp(ep->qp, &err) == 0, "destroy_qp");
	CHECK(c, c->ops->dereg_mr(ep->mr, &err) == 0, "dereg_mr");
	CHECK(c, c->ops->destroy_cq(ep->cq, &err) == 0, "destroy_cq");
}

void connect_qp(struct ctx *c, enum be_qp_type type, struct ep *ep, uint32_t peer_qpn,
		       const uint8_t dgid[16], unsigned sgid_index, uint32_t my_psn,
		       uint32_t peer_psn)
{
	struct be_error err;
	struct be_qp_attr a = { .mask = BE_QPA_STATE | BE_QPA_PORT | BE_QPA_PKEY_INDEX,
				.state = BE_QPS_INIT, .port = 1 };
	if (type == BE_QPT_UD) {
		a.mask |= BE_QPA_QKEY;
		a.qkey = 0x11111111;
	} else {
		a.mask |= BE_QPA_ACCESS;
		a.access = BE_ACCESS_LOCAL_WRITE | BE_ACCESS_REMOTE_WRITE |
			   (type == BE_QPT_RC ? BE_ACCESS_REMOTE_READ | BE_ACCESS_REMOTE_ATOMIC : 0);
	}
	MUST(c, c->ops->modify_qp(ep->qp, &a, &err), &err);

	memset(&a, 0, sizeof a);
	a.mask = BE_QPA_STATE;
	a.state = BE_QPS_RTR;
	if (type != BE_QPT_UD) {
		a.mask |= BE_QPA_AV | BE_QPA_PATH_MTU | BE_QPA_DEST_QPN | BE_QPA_RQ_PSN;
		memcpy(a.av.dgid, dgid, 16);
		a.av.sgid_index = (uint8_t)sgid_index;
		a.av.hop_limit = 64;
		a.av.port = 1;
		a.path_mtu = 1024;
		a.dest_qpn = peer_qpn;
		a.rq_psn = peer_psn;
	}
	if (type == BE_QPT_RC) {
		a.mask |= BE_QPA_MAX_DEST_RD_ATOMIC | BE_QPA_MIN_RNR_TIMER;
		a.max_dest_rd_atomic = 4;
		a.min_rnr_timer = 12;
	}
	MUST(c, c->ops->modify_qp(ep->qp, &a, &err), &err);

	memset(&a, 0, sizeof a);
	a.mask = BE_QPA_STATE | BE_QPA_SQ_PSN;
	a.state = BE_QPS_RTS;
	a.sq_psn = my_psn;
	if (type == BE_QPT_RC) {
		a.mask |= BE_QPA_TIMEOUT | BE_QPA_RETRY_CNT | BE_QPA_RNR_RETRY | BE_QPA_MAX_RD_ATOMIC;
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 4;
	}
	MUST(c, c->ops->modify_qp(ep->qp, &a, &err), &err);
}

int post_send(struct ctx *c, struct ep *from, enum be_wr_opcode op, uint64_t off,
		     uint32_t len, const struct be_send_wr *extra, struct be_error *err)
{
	struct be_sge sge = { .mr = from->mr, .offset = off, .length = len };
	struct be_send_wr wr = extra ? *extra : (struct be_send_wr){ 0 };
	wr.wr_id = 0x1000 + (uint64_t)op;
	wr.opcode = op;
	wr.sge = &sge;
	wr.num_sge = len ? 1 : 0;
	wr.signaled = true;
	return c->ops->post_send(from->qp, &wr, err);
}

int post_recv(struct ctx *c, struct ep *to, uint64_t off, uint32_t len, uint64_t wr_id)
{
	struct be_error err;
	struct be_sge sge = { .mr = to->mr, .offset = off, .length = len };
	struct be_recv_wr wr = { .wr_id = wr_id, .sge = &sge, .num_sge = 1 };
	int r = c->ops->post_recv(to->qp, &wr, &err);
	if (r)
		printf("post_recv: %s\n", err.message);
	return r;
}

/* Every RC work request between a and b (b is the responder). */
static void rc_ops(struct ctx *c, struct ep *a, struct ep *b, const char *family)
{
	struct be_error err;
	struct be_wc wc;
	uint8_t *abuf = a->mi.buf, *bbuf = b->mi.buf;

	/* SEND */
	memcpy(abuf, "hello, rxe", 10);
	CHECK(c, post_recv(c, b, 100, 64, 77) == 0, "%s: post_recv", family);
	CHECK(c, post_send(c, a, BE_WR_SEND, 0, 10, NULL, &err) == 0, "%s: post_send SEND", family);
	CHECK(c, wait_wc(c, a->cq, &wc) && wc.status == BE_WC_SUCCESS && wc.opcode == BE_WC_SEND,
	      "%s: SEND requester completion (status %d opcode %d)", family, wc.status, wc.opcode);
	CHECK(c, wait_wc(c, b->cq, &wc) && wc.status == BE_WC_SUCCESS && wc.opcode == BE_WC_RECV &&
			 wc.byte_len == 10 && wc.wr_id == 77 && wc.qp_num == b->qpn,
	      "%s: SEND lands in the posted receive (len %u wr_id %" PRIu64 ")", family, wc.byte_len,
	      wc.wr_id);
	CHECK(c, memcmp(bbuf + 100, "hello, rxe", 10) == 0, "%s: SEND data", family);

	/* SEND with immediate */
	struct be_send_wr x = { .imm_data = 0xdeadbeef };
	CHECK(c, post_recv(c, b, 200, 64, 78) == 0, "%s: post_recv", family);
	CHECK(c, post_send(c, a, BE_WR_SEND_WITH_IMM, 0, 4, &x, &err) == 0, "%s: SEND_WITH_IMM", family);
	CHECK(c, wait_wc(c, a->cq, &wc) && wc.status == BE_WC_SUCCESS, "%s: SEND_WITH_IMM sent", family);
	CHECK(c, wait_wc(c, b->cq, &wc) && wc.status == BE_WC_SUCCESS &&
			 (wc.wc_flags & BE_WC_WITH_IMM) && wc.imm_data == 0xdeadbeef,
	      "%s: immediate 0x%08x arrives as given", family, wc.imm_data);

	/* RDMA WRITE */
	for (int i = 0; i < 3000; i++)
		abuf[1000 + i] = (uint8_t)(i * 7);
	x = (struct be_send_wr){ .remote_addr = b->mi.addr + 4000, .rkey = b->mi.rkey };
	CHECK(c, post_send(c, a, BE_WR_RDMA_WRITE, 1000, 3000, &x, &err) == 0,
	      "%s: RDMA_WRITE of 3000 bytes (3 packets at MTU 1024)", family);
	CHECK(c, wait_wc(c, a->cq, &wc) && wc.status == BE_WC_SUCCESS && wc.opcode == BE_WC_RDMA_WRITE,
	      "%s: RDMA_WRITE completion", family);
	CHECK(c, memcmp(bbuf + 4000, abuf + 1000, 3000) == 0, "%s: RDMA_WRITE data", family);

	/* RDMA WRITE with immediate: consumes a receive, no data in it */
	x = (struct be_send_wr){ .remote_addr = b->mi.addr + 300, .rkey = b->mi.rkey,
				 .imm_data = 0x01020304 };
	CHECK(c, post_recv(c, b, 0, 0, 79) == 0, "%s: zero-length receive", family);
	CHECK(c, post_send(c, a, BE_WR_RDMA_WRITE_WITH_IMM, 0, 16, &x, &err) == 0,
	      "%s: RDMA_WRITE_WITH_IMM", family);
	CHECK(c, wait_wc(c, a->cq, &wc) && wc.status == BE_WC_SUCCESS, "%s: WRITE_WITH_IMM sent", family);
	CHECK(c, wait_wc(c, b->cq, &wc) && wc.status == BE_WC_SUCCESS &&
			 wc.opcode == BE_WC_RECV_RDMA_WITH_IMM && wc.imm_data == 0x01020304,
	      "%s: WRITE_WITH_IMM completes a receive (opcode %d imm 0x%08x)", family, wc.opcode,
	      wc.imm_data);
	CHECK(c, memcmp(bbuf + 300, abuf, 16) == 0, "%s: WRITE_WITH_IMM data", family);

	/* RDMA READ */
	memcpy(bbuf + 6000, "read me back", 12);
	x = (struct be_send_wr){ .remote_addr = b->mi.addr + 6000, .rkey = b->mi.rkey };
	CHECK(c, post_send(c, a, BE_WR_RDMA_READ, 7000, 12, &x, &err) == 0, "%s: RDMA_READ", family);
	CHECK(c, wait_wc(c, a->cq, &wc) && wc.status == BE_WC_SUCCESS && wc.opcode == BE_WC_RDMA_READ,
	      "%s: RDMA_READ completion", family);
	CHECK(c, memcmp(abuf + 7000, "read me back", 12) == 0, "%s: RDMA_READ data", family);

	/* Atomics on an 8-byte aligned word of b */
	uint64_t v = 41;
	memcpy(bbuf + 8000, &v, 8);
	x = (struct be_send_wr){ .remote_addr = b->mi.addr + 8000, .rkey = b->mi.rkey,
				 .compare_add = 41, .swap = 0x123456789abcdefULL };
	CHECK(c, post_send(c, a, BE_WR_ATOMIC_CMP_AND_SWP, 7100, 8, &x, &err) == 0, "%s: CMP_AND_SWP",
	      family);
	CHECK(c, wait_wc(c, a->cq, &wc) && wc.status == BE_WC_SUCCESS && wc.opcode == BE_WC_COMP_SWAP,
	      "%s: CMP_AND_SWP completion", family);
	memcpy(&v, abuf + 7100, 8);
	CHECK(c, v == 41, "%s: CMP_AND_SWP returns the original (%" PRIu64 ")", family, v);
	memcpy(&v, bbuf + 8000, 8);
	CHECK(c, v == 0x123456789abcdefULL, "%s: CMP_AND_SWP swapped", family);
	x = (struct be_send_wr){ .remote_addr = b->mi.addr + 8000, .rkey = b->mi.rkey,
				 .compare_add = 1 };
	CHECK(c, post_send(c, a, BE_WR_ATOMIC_FETCH_AND_ADD, 7108, 8, &x, &err) == 0,
	      "%s: FETCH_AND_ADD", family);
	CHECK(c, wait_wc(c, a->cq, &wc) && wc.status == BE_WC_SUCCESS && wc.opcode == BE_WC_FETCH_ADD,
	      "%s: FETCH_AND_ADD completion", family);
	memcpy(&v, abuf + 7108, 8);
	CHECK(c, v == 0x123456789abcdefULL, "%s: FETCH_AND_ADD returns the original", family);
	memcpy(&v, bbuf + 8000, 8);
	CHECK(c, v == 0x123456789abcdf0ULL, "%s: FETCH_AND_ADD added", family);

	/* A WRITE with a wrong rkey: the responder NAKs, the requester reports it. */
	x = (struct be_send_wr){ .remote_addr = b->mi.addr, .rkey = b->mi.rkey ^ 0x5a00 };
	CHECK(c, post_send(c, a, BE_WR_RDMA_WRITE, 0, 8, &x, &err) == 0, "%s: WRITE with a bad rkey",
	      family);
	CHECK(c, wait_wc(c, a->cq, &wc) && wc.status == BE_WC_REM_ACCESS_ERR,
	      "%s: bad rkey -> REM_ACCESS_ERR (status %d)", family, wc.status);
}

/* ---- SRQs, asynchronous events, multicast, the CM's join ---- */

/* Waits up to ms for the next asynchronous event. Returns 1 if one came. */
static int wait_event(struct ctx *c, struct be_async_event *ev, unsigned ms)
{
	double end = now() + ms / 1000.0;
	do {
		unsigned n = 0;
		struct be_error err;
		if (c->ops->get_async_events(c->be, ev, 1, &n, &err) != 0) {
			printf("FAIL: get_async_events: %s\n", err.message);
			return 0;
		}
		if (n == 1)
			return 1;
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	} while (now() < end);
	return 0;
}

/* wait_event for an event about an object (QP, SRQ, CQ). A port's or the
 * device's event (rxe's PORT_ACTIVE when the guest's link settles, which
 * can come seconds after boot) is the host's: noted and passed over, as
 * the tester's `expect event` does. */
static int wait_object_event(struct ctx *c, struct be_async_event *ev, unsigned ms)
{
	double end = now() + ms / 1000.0;
	for (;;) {
		double left = end - now();
		if (!wait_event(c, ev, left > 0 ? (unsigned)(left * 1000.0) : 0))
			return 0;
		if (ev->qp || ev->srq || ev->cq)
			return 1;
		printf("note: passed over an event of the port or device, type %d (port %u)\n", (int)ev->type,
		       ev->port);
	}
}

int kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;
	if (uname(&u) != 0 || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return 0;
	return ma > major || (ma == major && mi >= minor);
}

/* Whether a line of a /proc file holds both words (the guest's own view). */
static int proc_has(const char *path, const char *word1, const char *word2)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char line[512];
	int found = 0, in_dev = 0;
	while (fgets(line, sizeof line, f)) {
		/* /proc/net/igmp names the device on one line, its groups below */
		if (line[0] != '\t' && line[0] != ' ')
			in_dev = strstr(line, word1) != NULL;
		if (strstr(line, word2) && (in_dev || strstr(line, word1)))
			found = 1;
	}
	fclose(f);
	return found;
}

/* The mapped MAC as /proc/net/dev_mcast writes it: 12 hex digits. */
static void mac_hex(int ip_version, const uint8_t *ip, char out[13])
{
	uint8_t mac[6];
	roce_mcast_mac(ip_version, ip, mac);
	for (int i = 0; i < 6; i++)
		sprintf(out + 2 * i, "%02x", mac[i]);
}

/* An IPv4 group as /proc/net/igmp writes it: the address's 32 bits as the
 * kernel holds them (network order), in hex. */
static void igmp_hex(const uint8_t ip[4], char out[9])
{
	uint32_t v;
	memcpy(&v, ip, 4);
	sprintf(out, "%08X", v);
}

/* A UD endpoint in RTS (Q_Key 0x11111111), its receives from srq if given. */
static void make_ud(struct ctx *c, struct be_pd *pd, struct be_srq *srq, struct ep *ep)
{
	struct be_error err;
	MUST(c, c->ops->create_cq(c->be, 64, &ep->cq, &err), &err);
	struct be_qp_init init = { .type = BE_QPT_UD, .send_cq = ep->cq, .recv_cq = ep->cq,
				   .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 2,
				   .max_recv_sge = 2, .srq = srq };
	MUST(c, c->ops->create_qp(pd, &init, &ep->qp, &ep->qpn, &err), &err);
	MUST(c, c->ops->reg_mr(pd, 8192, BE_ACCESS_LOCAL_WRITE, 0, &ep->mr, &err), &err);
	c->ops->mr_info(ep->mr, &ep->mi);
	connect_qp(c, BE_QPT_UD, ep, 0, NULL, 0, 100, 0);
}

static int post_srq(struct ctx *c, struct be_srq *srq, struct ep *owner, uint64_t off, uint64_t wr_id)
{
	struct be_error err;
	struct be_sge sge = { .mr = owner->mr, .offset = off, .length = 40 + 64 };
	struct be_recv_wr wr = { .wr_id = wr_id, .sge = &sge, .num_sge = 1 };
	int r = c->ops->post_srq_recv(srq, &wr, &err);
	if (r)
		printf("post_srq_recv: %s\n", err.message);
	return r;
}

/* A UD SEND of 8 bytes from a to b's QPN through ah. */
static int ud_send(struct ctx *c, struct ep *a, struct be_ah *ah, uint32_t qpn, struct be_error *err)
{
	struct be_send_wr x = { .ah = ah, .remote_qpn = qpn, .remote_qkey = 0x11111111 };
	memcpy(a->mi.buf, "srq data", 8);
	return post_send(c, a, BE_WR_SEND, 0, 8, &x, err);
}

/* An SRQ shared by a UD QP: receives in posted order, the limit event,
 * the refusals. */
static void srq_checks(struct ctx *c, struct be_pd *pd, const uint8_t gid4[16], unsigned idx4)
{
	struct be_error err;
	struct be_wc wc;
	struct be_async_event ev;
	/* What came before (the port's PORT_ACTIVE at open, the access errors
	 * of the RC checks on some kernels) is not about the SRQ. */
	while (wait_event(c, &ev, 0))
		printf("note: an earlier event, type %d\n", (int)ev.type);
	struct be_srq *srq;
	struct be_srq_init si = { .max_wr = 16, .max_sge = 2 };
	MUST(c, c->ops->create_srq(pd, &si, &srq, &err), &err);
	struct be_srq_attr sa;
	MUST(c, c->ops->query_srq(srq, &sa, &err), &err);
	CHECK(c, sa.max_wr >= 16 && sa.max_sge >= 2 && sa.limit == 0,
	      "SRQ: query_srq (max_wr %u, max_sge %u, limit %u)", sa.max_wr, sa.max_sge, sa.limit);
	struct ep a, b;
	make_ud(c, pd, NULL, &a);
	make_ud(c, pd, srq, &b);
	CHECK(c, post_recv(c, &b, 0, 64, 1) != 0, "SRQ: post_recv on a QP with an SRQ is refused");
	for (unsigned i = 0; i < 4; i++)
		CHECK(c, post_srq(c, srq, &b, 1024 * i, 100 + i) == 0, "SRQ: post_srq_recv %u", 100 + i);
	/* rxe takes a limit above the receives posted (it checks the limit
	 * against the queue's size only) and raises nothing until the responder
	 * takes a receive: the event comes from the next arrival. */
	int r = c->ops->modify_srq(srq, 8, &err);
	CHECK(c, r == 0, "SRQ: modify_srq limit 8 with 4 posted%s%s", r ? ": " : "", r ? err.message : "");
	MUST(c, c->ops->query_srq(srq, &sa, &err), &err);
	CHECK(c, sa.limit == 8, "SRQ: query_srq: armed limit %u", sa.limit);
	CHECK(c, !wait_object_event(c, &ev, 200), "SRQ: no event at arming (type %d)", ev.type);

	struct be_av av = { .sgid_index = (uint8_t)idx4, .hop_limit = 64, .port = 1 };
	memcpy(av.dgid, gid4, 16);
	struct be_ah *ah;
	MUST(c, c->ops->create_ah(pd, &av, &ah, &err), &err);
	CHECK(c, ud_send(c, &a, ah, b.qpn, &err) == 0, "SRQ: UD SEND to the QP");
	CHECK(c, wait_wc(c, a.cq, &wc) && wc.status == BE_WC_SUCCESS, "SRQ: SEND completion");
	CHECK(c, wait_wc(c, b.cq, &wc) && wc.status == BE_WC_SUCCESS && wc.wr_id == 100 &&
			 wc.qp_num == b.qpn && !memcmp(b.mi.buf + 40, "srq data", 8),
	      "SRQ: the first receive posted takes it (wr_id %" PRIu64 ", qp 0x%x)", wc.wr_id, wc.qp_num);
	memset(&ev, 0, sizeof ev);
	CHECK(c, wait_object_event(c, &ev, 2000) && ev.type == BE_EVENT_SRQ_LIMIT_REACHED && ev.srq == srq &&
			 !ev.qp && !ev.cq,
	      "SRQ: SRQ_LIMIT_REACHED about the SRQ (type %d)", ev.type);
	MUST(c, c->ops->query_srq(srq, &sa, &err), &err);
	CHECK(c, sa.limit == 0, "SRQ: the event disarmed the limit (%u)", sa.limit);
	CHECK(c, ud_send(c, &a, ah, b.qpn, &err) == 0 && wait_wc(c, a.cq, &wc), "SRQ: a second SEND");
	CHECK(c, wait_wc(c, b.cq, &wc) && wc.status == BE_WC_SUCCESS && wc.wr_id == 101,
	      "SRQ: the second receive takes it (wr_id %" PRIu64 ")", wc.wr_id);
	CHECK(c, !wait_object_event(c, &ev, 200), "SRQ: disarmed, no second event (type %d)", ev.type);
	struct be_qp_attr q;
	MUST(c, c->ops->query_qp(b.qp, &q, &err), &err);
	CHECK(c, q.state == BE_QPS_RTS, "SRQ: the QP is still in RTS (%d)", q.state);

	/* The kernel keeps the SRQ while a QP uses it (EBUSY). */
	CHECK(c, c->ops->destroy_srq(srq, &err) != 0 && err.code == BE_INVALID_STATE,
	      "SRQ: destroy_srq while a QP uses it: %s", err.message);
	struct be_srq_init bad = { .max_wr = 0, .max_sge = 1 };
	struct be_srq *none;
	CHECK(c, c->ops->create_srq(pd, &bad, &none, &err) != 0 && err.code == BE_BAD_REQUEST,
	      "SRQ: max_wr 0 refused: %s", err.message);

	/* The QP of an SRQ to Error: IBA 11-5 wants Last WQE Reached. rxe
	 * raises it from 6.12 on (6.12, 7.2); 6.1 raises nothing. */
	struct be_qp_attr to_err = { .mask = BE_QPA_STATE, .state = BE_QPS_ERR };
	MUST(c, c->ops->modify_qp(b.qp, &to_err, &err), &err);
	memset(&ev, 0, sizeof ev);
	int got = wait_object_event(c, &ev, 1000);
	if (kernel_at_least(6, 12))
		CHECK(c, got && ev.type == BE_EVENT_QP_LAST_WQE_REACHED && ev.qp == b.qp,
		      "SRQ: QP_LAST_WQE_REACHED about the QP when it goes to ERR (got %d, type %d)", got,
		      (int)ev.type);
	else
		CHECK(c, !got, "SRQ: rxe before 6.12 raises no QP_LAST_WQE_REACHED when the QP goes to ERR "
		      "(got %d, type %d)", got, (int)ev.type);
	CHECK(c, c->ops->destroy_ah(ah, &err) == 0, "destroy_ah");
	free_ep(c, &a);
	free_ep(c, &b);
	CHECK(c, c->ops->destroy_srq(srq, &err) == 0, "SRQ: destroy_srq once its QP is gone");
	CHECK(c, !wait_object_event(c, &ev, 100), "SRQ: no event left (type %d)", ev.type);
}

/* attach_mcast/detach_mcast of IPv4 and IPv6 groups. rxe (6.1, 6.12, 7.2)
 * puts a MAC on eth0's filter (/proc/net/dev_mcast) at the first attach:
 * 33:33 and the GID's low 32 bits for every group, also for an IPv4 one,
 * whose MAC is 01:00:5e and the low 23 bits (RFC 1112 6.4): rxe's filter
 * then lets no frame to an IPv4 group in on a NIC that filters. It never
 * takes the MAC off again (the detach itself is done: a second one fails). */
static void mcast_checks(struct ctx *c, struct be_pd *pd, const uint8_t gid4[16])
{
	struct be_error err;
	struct ep m;
	int r;
	make_ud(c, pd, NULL, &m);
	static const struct {
		int ipv;
		uint8_t ip[16];
	} groups[] = {
		{ 4, { 239, 255, 18, 1 } },
		{ 6, { 0xff, 0x15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0d, 0xb8, 0, 1 } },
	};
	for (size_t i = 0; i < 2; i++) {
		uint8_t gid[16];
		char mac[13], name[64];
		roce_gid_from_ip(groups[i].ipv, groups[i].ip, gid);
		roce_gid_format(gid, name, sizeof name);
		char rxe_mac[13];
		mac_hex(groups[i].ipv, groups[i].ip, mac);
		mac_hex(6, gid, rxe_mac); /* rxe maps the GID as an IPv6 group */
		CHECK(c, proc_has("/proc/net/dev_mcast", "eth0", rxe_mac) == 0,
		      "mcast %s: %s not on eth0 before", name, rxe_mac);
		r = c->ops->attach_mcast(m.qp, gid, 0, &err);
		CHECK(c, r == 0, "mcast %s: attach_mcast%s%s", name, r ? ": " : "", r ? err.message : "");
		CHECK(c, proc_has("/proc/net/dev_mcast", "eth0", rxe_mac) == 1 &&
				 (groups[i].ipv == 6 || proc_has("/proc/net/dev_mcast", "eth0", mac) == 0),
		      "mcast %s: eth0 takes rxe's MAC %s (the group's: %s)", name, rxe_mac, mac);
		r = c->ops->attach_mcast(m.qp, gid, 0, &err);
		CHECK(c, r == 0, "mcast %s: attaching twice is no error%s%s", name, r ? ": " : "",
		      r ? err.message : "");
		r = c->ops->detach_mcast(m.qp, gid, 0, &err);
		CHECK(c, r == 0, "mcast %s: detach_mcast%s%s", name, r ? ": " : "", r ? err.message : "");
		CHECK(c, proc_has("/proc/net/dev_mcast", "eth0", rxe_mac) == 1,
		      "mcast %s: rxe leaves %s on eth0 after the detach", name, rxe_mac);
		CHECK(c, c->ops->detach_mcast(m.qp, gid, 0, &err) != 0 && err.code == BE_BAD_REQUEST,
		      "mcast %s: detaching again: %s", name, err.message);
	}
	CHECK(c, c->ops->attach_mcast(m.qp, gid4, 0, &err) != 0 && err.code == BE_BAD_REQUEST &&
			 strstr(err.message, "not a multicast address"),
	      "mcast: a unicast GID refused: %s", err.message);
	/* Left attached: destroy_qp detaches first (the kernel refuses to
	 * destroy a QP with a group attached: EBUSY). */
	uint8_t gid[16];
	roce_gid_from_ip(4, groups[0].ip, gid);
	CHECK(c, c->ops->attach_mcast(m.qp, gid, 0, &err) == 0, "mcast: attach again");
	free_ep(c, &m);

	struct ep rc;
	make_ep(c, pd, BE_QPT_RC, &rc);
	CHECK(c, c->ops->attach_mcast(rc.qp, gid, 0, &err) != 0 && err.code == BE_BAD_REQUEST,
	      "mcast: an RC QP refused: %s", err.message);
	free_ep(c, &rc);
}

/* cm_join: the kernel joins the IPv4 group on eth0 (/proc/net/igmp) and
 * gives the group's GID and Q_Key; cm_leave leaves it. */
static void cm_join_checks(struct ctx *c, struct be_pd *pd)
{
	struct be_error err;
	struct be_mcast_join j;
	const uint8_t g4[16] = { 239, 255, 18, 5 };
	const uint8_t g6[16] = { 0xff, 0x15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0d, 0xb8, 0, 5 };
	char ig[9];
	igmp_hex(g4, ig);
	struct ep u;
	make_ud(c, pd, NULL, &u);
	CHECK(c, proc_has("/proc/net/igmp", "eth0", ig) == 0, "cm_join: %s not joined before", ig);
	int r = c->ops->cm_join(u.qp, 4, g4, &j, &err);
	CHECK(c, r == 0, "cm_join 239.255.18.5: %s", r ? err.message : "joined");
	if (r == 0) {
		uint8_t want[16];
		roce_gid_from_ip(4, g4, want);
		CHECK(c, !memcmp(j.mgid, want, 16), "cm_join: mgid ::ffff:239.255.18.5");
		struct be_qp_attr q;
		MUST(c, c->ops->query_qp(u.qp, &q, &err), &err);
		CHECK(c, q.qkey == j.qkey && q.state == BE_QPS_RTS,
		      "cm_join: the QP has the group's Q_Key 0x%08x (query_qp: 0x%08x)", j.qkey, q.qkey);
		CHECK(c, proc_has("/proc/net/igmp", "eth0", ig) == 1,
		      "cm_join: the kernel joined the group on eth0 (/proc/net/igmp %s)", ig);
		CHECK(c, c->ops->cm_join(u.qp, 4, g4, &j, &err) != 0 && err.code == BE_INVALID_STATE,
		      "cm_join twice refused: %s", err.message);
		r = c->ops->cm_leave(u.qp, 4, g4, &err);
		CHECK(c, r == 0, "cm_leave%s%s", r ? ": " : "", r ? err.message : "");
		CHECK(c, proc_has("/proc/net/igmp", "eth0", ig) == 0, "cm_leave: the group is left");
	}
	CHECK(c, c->ops->cm_leave(u.qp, 4, g4, &err) != 0 && err.code == BE_INVALID_STATE,
	      "cm_leave of a group not joined: %s", err.message);
	const uint8_t unicast[16] = { 198, 18, 0, 77 };
	CHECK(c, c->ops->cm_join(u.qp, 4, unicast, &j, &err) != 0 && err.code == BE_BAD_REQUEST,
	      "cm_join of a unicast address refused: %s", err.message);
	/* The kernel's CM joins no IPv6 group on a RoCEv2 port (ENOTSUPP). */
	r = c->ops->cm_join(u.qp, 6, g6, &j, &err);
	CHECK(c, r != 0 && err.code == BE_UNSUPPORTED, "cm_join ff15::db8:5 refused: %s",
	      r ? err.message : "joined");
	if (r == 0)
		c->ops->cm_leave(u.qp, 6, g6, &err);
	/* Joined at destroy_qp: the group is left with it. */
	r = c->ops->cm_join(u.qp, 4, g4, &j, &err);
	CHECK(c, r == 0 && proc_has("/proc/net/igmp", "eth0", ig) == 1, "cm_join again%s%s", r ? ": " : "",
	      r ? err.message : "");
	free_ep(c, &u);
	CHECK(c, proc_has("/proc/net/igmp", "eth0", ig) == 0, "cm_join: destroy_qp left the group");

	struct ep init;
	MUST(c, c->ops->create_cq(c->be, 4, &init.cq, &err), &err);
	struct be_qp_init qi = { .type = BE_QPT_UD, .send_cq = init.cq, .recv_cq = init.cq,
				 .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 };
	MUST(c, c->ops->create_qp(pd, &qi, &init.qp, &init.qpn, &err), &err);
	CHECK(c, c->ops->cm_join(init.qp, 4, g4, &j, &err) != 0 && err.code == BE_INVALID_STATE,
	      "cm_join of a QP in RESET refused: %s", err.message);
	CHECK(c, c->ops->destroy_qp(init.qp, &err) == 0, "destroy_qp");
	CHECK(c, c->ops->destroy_cq(init.cq, &err) == 0, "destroy_cq");
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: ibverbs_backend_check DEVICE IPV4 IPV6\n");
		return 2;
	}
	struct ctx c = { 0 };
	uint8_t gid4[16], gid6[16];
	if (parse_gid(argv[2], gid4) || parse_gid(argv[3], gid6)) {
		fprintf(stderr, "ibverbs_backend_check: bad address\n");
		return 2;
	}
	const struct backend_factory *f = backend_find("ibverbs");
	CHECK(&c, f != NULL, "the ibverbs backend is compiled in (%s)", backend_names());
	if (!f)
		return 1;
	char msg[256];
	struct backend_options o = { .device = "nosuch9" };
	CHECK(&c, f->open(&o, msg, sizeof msg) == NULL && strstr(msg, argv[1]),
	      "an unknown device is refused, naming the real ones: %s", msg);
	o.device = argv[1];
	c.be = f->open(&o, msg, sizeof msg);
	if (!c.be) {
		printf("FAIL: open %s: %s\n", argv[1], msg);
		return 1;
	}
	c.ops = c.be->ops;
	CHECK(&c, f->fault_name(c.be) == NULL, "no fault profile");
	struct be_error err;

	struct be_device_attr da;
	MUST(&c, c.ops->query_device(c.be, &da, &err), &err);
	CHECK(&c, strcmp(da.name, argv[1]) == 0, "query_device: name %s", da.name);
	unsigned want = BE_CAP_RC | BE_CAP_UC | BE_CAP_UD | BE_CAP_ATOMIC | BE_CAP_IPV4 | BE_CAP_IPV6;
	CHECK(&c, (da.caps & want) == want, "query_device: RC UC UD ATOMIC IPV4 IPV6 (caps 0x%x)", da.caps);
	CHECK(&c, !(da.caps & BE_CAP_RCM), "query_device: rxe has no RoCEv2 congestion management");
	CHECK(&c, da.max_qp > 0 && da.max_qp_wr > 0 && da.max_sge > 0 && da.max_mr_size > 0,
	      "query_device: limits (max_qp %u, max_qp_wr %u, max_sge %u)", da.max_qp, da.max_qp_wr,
	      da.max_sge);

	struct be_port_attr pa;
	MUST(&c, c.ops->query_port(c.be, 1, &pa, &err), &err);
	CHECK(&c, pa.state == BE_PORT_ACTIVE && strcmp(pa.netdev, "eth0") == 0 && pa.active_mtu >= 1024,
	      "query_port: ACTIVE on %s, active_mtu %u, max_mtu %u, %u GIDs", pa.netdev, pa.active_mtu,
	      pa.max_mtu, pa.gid_tbl_len);
	CHECK(&c, pa.link_layer == BE_LINK_ETHERNET && (pa.cap_flags & (uint32_t)AP_PORT_CM_SUP),
	      "query_port: link layer Ethernet (%d), capability mask 0x%08x with CM_SUP, LID %u, SM LID %u", pa.link_layer,
	      pa.cap_flags, pa.lid, pa.sm_lid);
	CHECK(&c, c.ops->query_port(c.be, 2, &pa, &err) != 0 && err.code == BE_BAD_REQUEST,
	      "query_port 2 refused: %s", err.message);

	struct be_gid gids[64];
	unsigned ngid = 0;
	int idx4 = -1, idx6 = -1;
	MUST(&c, c.ops->list_gids(c.be, 1, gids, 64, &ngid, &err), &err);
	for (unsigned i = 0; i < ngid; i++) {
		if (gids[i].type == BE_GID_ROCE_V2 && !memcmp(gids[i].gid, gid4, 16))
			idx4 = (int)gids[i].index;
		if (gids[i].type == BE_GID_ROCE_V2 && !memcmp(gids[i].gid, gid6, 16))
			idx6 = (int)gids[i].index;
	}
	CHECK(&c, idx4 >= 0 && idx6 >= 0, "list_gids: RoCEv2 GIDs of %s (index %d) and %s (index %d) among %u",
	      argv[2], idx4, argv[3], idx6, ngid);
	if (idx4 < 0 || idx6 < 0)
		return 1;

	struct be_pd *pd;
	MUST(&c, c.ops->alloc_pd(c.be, &pd, &err), &err);
	/* IBA's raw datagram QPs, asked of libibverbs and of the kernel's
	 * uverbs after a UD control made the same way (rawqp.c). */
	for (int t = BE_RAW_IPV6; t <= BE_RAW_ETHERTYPE; t++) {
		struct be_raw_probe probe;
		MUST(&c, c.ops->probe_raw_datagram_qp(pd, (enum be_raw_qp_type)t, &probe, &err), &err);
		CHECK(&c, !probe.created && probe.n_answers == 2 && strstr(probe.answers[0], "libibverbs") &&
				 strstr(probe.answers[1], "refused") && strstr(probe.answers[1], "was created"),
		      "raw datagram QP type %d: not created; %s; %s", t, probe.n_answers > 0 ? probe.answers[0] : "",
		      probe.n_answers > 1 ? probe.answers[1] : "");
	}
	struct be_cq *cq;
	CHECK(&c, c.ops->create_cq(c.be, 0, &cq, &err) != 0 && err.code == BE_BAD_REQUEST,
	      "create_cq 0 refused: %s", err.message);
	struct be_mr *mr;
	CHECK(&c, c.ops->reg_mr(pd, 0, 0, 0, &mr, &err) != 0 && err.code == BE_BAD_REQUEST,
	      "reg_mr of 0 bytes refused: %s", err.message);

	uint64_t sent_before = 0, sent_after = 0;
	MUST(&c, c.ops->read_counters(c.be, 1, counter_sum, &sent_before, &err), &err);

	/* RC, over IPv4 then IPv6 GIDs */
	for (int fam = 0; fam < 2; fam++) {
		const char *name = fam ? "RC/IPv6" : "RC/IPv4";
		const uint8_t *gid = fam ? gid6 : gid4;
		unsigned sidx = (unsigned)(fam ? idx6 : idx4);
		struct ep a, b;
		make_ep(&c, pd, BE_QPT_RC, &a);
		make_ep(&c, pd, BE_QPT_RC, &b);
		if (fam == 0) {
			/* Refusals a user meets first. */
			struct be_qp_attr bad = { .mask = BE_QPA_STATE, .state = BE_QPS_INIT };
			CHECK(&c, c.ops->modify_qp(a.qp, &bad, &err) != 0 && err.code == BE_BAD_REQUEST &&
					 strstr(err.message, "pkey_index") && strstr(err.message, "access"),
			      "RESET->INIT without attributes names them: %s", err.message);
			CHECK(&c, post_send(&c, &a, BE_WR_SEND, 0, 4, NULL, &err) != 0 &&
					 err.code == BE_INVALID_STATE,
			      "post_send in RESET: %s", err.message);
			bad = (struct be_qp_attr){ .mask = BE_QPA_PATH_MTU, .path_mtu = 1500 };
			CHECK(&c, c.ops->modify_qp(a.qp, &bad, &err) != 0 && err.code == BE_BAD_REQUEST,
			      "path_mtu 1500 refused: %s", err.message);
		}
		connect_qp(&c, BE_QPT_RC, &a, b.qpn, gid, sidx, 1000, 2000);
		connect_qp(&c, BE_QPT_RC, &b, a.qpn, gid, sidx, 2000, 1000);

		struct be_qp_attr q;
		MUST(&c, c.ops->query_qp(a.qp, &q, &err), &err);
		CHECK(&c, q.state == BE_QPS_RTS && q.dest_qpn == b.qpn && q.path_mtu == 1024 &&
				 q.sq_psn == 1000 && q.rq_psn == 2000 && !memcmp(q.av.dgid, gid, 16) &&
				 q.timeout == 14 && q.retry_cnt == 7 && q.rnr_retry == 7 &&
				 q.max_dest_rd_atomic == 4,
		      "%s: query_qp reports what was set (state %d, dest 0x%x, mtu %u, psn %u/%u)", name,
		      q.state, q.dest_qpn, q.path_mtu, q.sq_psn, q.rq_psn);
		rc_ops(&c, &a, &b, name);
		MUST(&c, c.ops->query_qp(a.qp, &q, &err), &err);
		CHECK(&c, q.state == BE_QPS_ERR, "%s: the NAK put the requester in ERR (state %d)", name,
		      q.state);
		free_ep(&c, &a);
		free_ep(&c, &b);
	}

	/* SEND with invalidate: rxe offers it; a user MR cannot be invalidated,
	 * so the responder must refuse (IBA 10.6.7.2.2: only MWs and FRMRs). */
	{
		struct ep a, b;
		struct be_wc wc;
		make_ep(&c, pd, BE_QPT_RC, &a);
		make_ep(&c, pd, BE_QPT_RC, &b);
		connect_qp(&c, BE_QPT_RC, &a, b.qpn, gid4, (unsigned)idx4, 1, 1);
		connect_qp(&c, BE_QPT_RC, &b, a.qpn, gid4, (unsigned)idx4, 1, 1);
		post_recv(&c, &b, 0, 64, 5);
		struct be_send_wr x = { .invalidate_rkey = b.mi.rkey };
		int r = post_send(&c, &a, BE_WR_SEND_WITH_INV, 0, 4, &x, &err);
		if (!(da.caps & BE_CAP_SEND_WITH_INV)) {
			CHECK(&c, r != 0 && err.code == BE_UNSUPPORTED, "SEND_WITH_INV unsupported: %s",
			      err.message);
		} else {
			CHECK(&c, r == 0, "SEND_WITH_INV posted");
			CHECK(&c, wait_wc(&c, a.cq, &wc), "SEND_WITH_INV: requester completion, status %d",
			      wc.status);
			struct be_wc rw;
			int got = wait_wc(&c, b.cq, &rw);
			CHECK(&c, got && (rw.status != BE_WC_SUCCESS || (rw.wc_flags & BE_WC_WITH_INV)),
			      "SEND_WITH_INV: responder completion (status %d, flags 0x%x, rkey 0x%x)",
			      got ? (int)rw.status : -1, got ? rw.wc_flags : 0, got ? rw.invalidate_rkey : 0);
		}
		free_ep(&c, &a);
		free_ep(&c, &b);
	}

	/* UC: SEND and WRITE */
	{
		struct ep a, b;
		struct be_wc wc;
		make_ep(&c, pd, BE_QPT_UC, &a);
		make_ep(&c, pd, BE_QPT_UC, &b);
		connect_qp(&c, BE_QPT_UC, &a, b.qpn, gid4, (unsigned)idx4, 10, 20);
		connect_qp(&c, BE_QPT_UC, &b, a.qpn, gid4, (unsigned)idx4, 20, 10);
		memcpy(a.mi.buf, "unreliable", 10);
		post_recv(&c, &b, 0, 64, 9);
		CHECK(&c, post_send(&c, &a, BE_WR_SEND, 0, 10, NULL, &err) == 0, "UC: SEND");
		CHECK(&c, wait_wc(&c, a.cq, &wc) && wc.status == BE_WC_SUCCESS, "UC: SEND completion");
		CHECK(&c, wait_wc(&c, b.cq, &wc) && wc.status == BE_WC_SUCCESS && wc.byte_len == 10 &&
				 !memcmp(b.mi.buf, "unreliable", 10),
		      "UC: SEND received");
		struct be_send_wr x = { .remote_addr = b.mi.addr + 500, .rkey = b.mi.rkey };
		CHECK(&c, post_send(&c, &a, BE_WR_RDMA_WRITE, 0, 10, &x, &err) == 0, "UC: RDMA_WRITE");
		CHECK(&c, wait_wc(&c, a.cq, &wc) && wc.status == BE_WC_SUCCESS, "UC: WRITE completion");
		double end = now() + 5;
		while (memcmp(b.mi.buf + 500, "unreliable", 10) && now() < end)
			;
		CHECK(&c, !memcmp(b.mi.buf + 500, "unreliable", 10), "UC: WRITE data");
		x = (struct be_send_wr){ .remote_addr = b.mi.addr, .rkey = b.mi.rkey };
		CHECK(&c, post_send(&c, &a, BE_WR_RDMA_READ, 0, 8, &x, &err) != 0 &&
				 err.code == BE_BAD_REQUEST,
		      "UC: READ refused: %s", err.message);
		free_ep(&c, &a);
		free_ep(&c, &b);
	}

	/* UD: SEND through an address handle; the receive starts with the GRH */
	{
		struct ep a, b;
		struct be_wc wc;
		make_ep(&c, pd, BE_QPT_UD, &a);
		make_ep(&c, pd, BE_QPT_UD, &b);
		connect_qp(&c, BE_QPT_UD, &a, 0, NULL, 0, 100, 0);
		connect_qp(&c, BE_QPT_UD, &b, 0, NULL, 0, 200, 0);
		struct be_av av = { .sgid_index = (uint8_t)idx4, .hop_limit = 64, .port = 1 };
		memcpy(av.dgid, gid4, 16);
		struct be_ah *ah;
		MUST(&c, c.ops->create_ah(pd, &av, &ah, &err), &err);
		memcpy(a.mi.buf, "datagram", 8);
		post_recv(&c, &b, 0, 40 + 64, 11);
		/* Two snapshots around one packet, milliseconds apart: the second
		 * must not be the kernel's cached copy of the first (lifespan). */
		uint64_t sent_just_before = 0, sent_just_after = 0;
		MUST(&c, c.ops->read_counters(c.be, 1, counter_sum, &sent_just_before, &err), &err);
		struct be_send_wr x = { .ah = ah, .remote_qpn = b.qpn, .remote_qkey = 0x11111111 };
		CHECK(&c, post_send(&c, &a, BE_WR_SEND, 0, 8, &x, &err) == 0, "UD: SEND");
		CHECK(&c, wait_wc(&c, a.cq, &wc) && wc.status == BE_WC_SUCCESS, "UD: SEND completion");
		MUST(&c, c.ops->read_counters(c.be, 1, counter_sum, &sent_just_after, &err), &err);
		CHECK(&c, sent_just_after > sent_just_before,
		      "read_counters right after one SEND: sent_pkts went from %" PRIu64 " to %" PRIu64
		      " (a cached snapshot?)",
		      sent_just_before, sent_just_after);
		CHECK(&c, wait_wc(&c, b.cq, &wc) && wc.status == BE_WC_SUCCESS && wc.byte_len == 48 &&
				 (wc.wc_flags & BE_WC_GRH) && wc.src_qp == a.qpn &&
				 !memcmp(b.mi.buf + 40, "datagram", 8),
		      "UD: received with GRH (len %u, src_qp 0x%x)", wc.byte_len, wc.src_qp);
		x.ah = NULL;
		CHECK(&c, post_send(&c, &a, BE_WR_SEND, 0, 8, &x, &err) != 0 && err.code == BE_BAD_REQUEST,
		      "UD: SEND without an ah refused: %s", err.message);
		CHECK(&c, c.ops->destroy_ah(ah, &err) == 0, "destroy_ah");
		free_ep(&c, &a);
		free_ep(&c, &b);
	}

	/* SRQ, multicast and the CM's join: rxe has all of them. */
	want = BE_CAP_SRQ | BE_CAP_MCAST | BE_CAP_CM_MCAST | BE_CAP_ASYNC_EVENTS;
	CHECK(&c, (da.caps & want) == want, "query_device: SRQ MCAST CM_MCAST ASYNC_EVENTS (caps 0x%x)",
	      da.caps);
	srq_checks(&c, pd, gid4, (unsigned)idx4);
	mcast_checks(&c, pd, gid4);
	if (c.ops->cm_join) /* built with librdmacm (else the CM_MCAST check above failed) */
		cm_join_checks(&c, pd);
	mw_checks(&c, pd, gid4, (unsigned)idx4, &da);
	placement_checks(&c, pd, gid4, (unsigned)idx4, &da);
	xrc_checks(&c, pd, &da);

	MUST(&c, c.ops->read_counters(c.be, 1, counter_sum, &sent_after, &err), &err);
	CHECK(&c, sent_after > sent_before, "read_counters: sent_pkts went from %" PRIu64 " to %" PRIu64,
	      sent_before, sent_after);
	CHECK(&c, c.ops->dealloc_pd(pd, &err) == 0, "dealloc_pd");
	c.ops->close(c.be);
	printf("%d checks, %d failed\n", c.checks, c.failures);
	return c.failures ? 1 : 0;
}
