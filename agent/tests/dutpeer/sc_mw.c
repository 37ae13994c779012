/*
 * Memory windows and remote invalidation (IBA 10.6.7): a type 2 window
 * bound with the BIND_MW work request reaches its own range only, through
 * its own QP only, until LOCAL_INV or a SEND with Invalidate; a bound
 * type 2 window is not bound again; a type 1 window (the bind_mw verb)
 * is reachable through any QP of its PD, refuses remote invalidation
 * (the receive fails with REM_INV_REQ_ERR, the key stays valid) and, once
 * unbound by a zero-length bind, reaches nothing.
 */
#include "dutpeer.h"

#include <string.h>

/* The window's MR: 16 KiB, bindable, on q's PD. */
struct wmr {
	int mr;
	uint64_t addr;
};

static bool window_mr(struct dq *q, struct wmr *m)
{
	JsonObject *r = call("reg_mr", "{\"pd\":%d,\"length\":16384,\"access\":[\"LOCAL_WRITE\",\"REMOTE_WRITE\","
				       "\"REMOTE_READ\",\"MW_BIND\"]}", q->pd);
	REQUIRE(r, "reg_mr with MW_BIND: %s %s", P.err_code, P.err_msg);
	m->mr = (int)jint(r, "mr");
	m->addr = (uint64_t)jint(r, "addr");
	return true;
}

static bool alloc_mw(struct dq *q, int type, int *mw, uint32_t *rkey)
{
	JsonObject *r = call("alloc_mw", "{\"pd\":%d,\"type\":%d}", q->pd, type);
	REQUIRE(r, "alloc_mw type %d: %s %s", type, P.err_code, P.err_msg);
	*mw = (int)jint(r, "mw");
	*rkey = (uint32_t)jint(r, "rkey");
	return true;
}

/* The first completion on q's CQ is opcode with status. */
static bool expect_wc(struct dq *q, const char *opcode, const char *status)
{
	struct wc w;
	REQUIRE(poll_cq(q, 1000, &w) >= 1, "no %s completion", opcode);
	REQUIRE(strcmp(w.status, status) == 0 && (strcmp(status, "SUCCESS") != 0 || strcmp(w.opcode, opcode) == 0),
		"completion %s %s, expected %s %s", w.opcode, w.status, opcode, status);
	return true;
}

/* Binds type 2 window mw on q with BIND_MW: [off, off + len) of m, remote
 * read and write; *rkey becomes the new key when status is SUCCESS. */
static bool bind2(struct dq *q, int mw, uint32_t *rkey, const struct wmr *m, uint64_t off, uint64_t len,
		  const char *status)
{
	uint32_t next = (*rkey & ~0xFFu) | ((*rkey + 1) & 0xFF);
	REQUIRE(call("post_send", "{\"qp\":%d,\"wr_id\":77,\"opcode\":\"BIND_MW\",\"mw\":%d,\"mr\":%d,\"offset\":%llu,"
				  "\"length\":%llu,\"access\":[\"REMOTE_WRITE\",\"REMOTE_READ\"],\"rkey\":%u}",
		     q->qp, mw, m->mr, (unsigned long long)off, (unsigned long long)len, next),
		"post_send BIND_MW: %s %s", P.err_code, P.err_msg);
	if (!expect_wc(q, "BIND_MW", status))
		return false;
	if (strcmp(status, "SUCCESS") == 0)
		*rkey = next;
	return true;
}

/* A WRITE of 64 bytes at va through rkey on q: ACKed, or NAKed Remote
 * Access Error (then the QP is in Error). */
static bool write_acked(struct dq *q, uint64_t va, uint32_t rkey, bool acked)
{
	struct got g;
	write_only(q, q->epsn, va, rkey, pattern(31), 64);
	if (!acked)
		return expect_nak(q, ROCE_NAK_REMOTE_ACCESS, q->epsn);
	if (!expect_ack(q, q->epsn, &g))
		return false;
	q->epsn++;
	return true;
}

static bool two_qps(struct dq *a, struct dq *b, struct wmr *m)
{
	return dut_qp(a, (struct dq_opts){ 0 }) && dut_qp(b, (struct dq_opts){ .same_session = true, .pd = a->pd }) &&
	       window_mr(a, m);
}

/* A SEND Only with Invalidate naming rkey on q, ACKed. */
static bool send_inv(struct dq *q, uint32_t rkey)
{
	struct roce_desc d;
	struct got g;
	desc(q, &d, "RC SEND Only with Invalidate", q->epsn);
	roce_ieth_set_rkey(roce_desc_hdr(&d, ROCE_H_IETH), rkey);
	roce_bth_set_ackreq(d.bth, 1);
	d.payload = pattern(23);
	d.payload_len = 12;
	tx(&d);
	if (!expect_ack(q, q->epsn, &g))
		return false;
	q->epsn++;
	return true;
}

/* The first receive completion of q: its status, WITH_INV and rkey. */
static bool recv_wc(struct dq *q, const char *status, bool with_inv, uint32_t rkey)
{
	JsonObject *r = call("poll_cq", "{\"cq\":%d,\"max\":1,\"timeout_ms\":500}", q->cq);
	REQUIRE(r && json_array_get_length(json_object_get_array_member(r, "completions")) == 1, "no receive completion");
	JsonObject *c = json_array_get_object_element(json_object_get_array_member(r, "completions"), 0);
	REQUIRE(strcmp(json_object_get_string_member(c, "status"), status) == 0, "receive completion %s, expected %s",
		json_object_get_string_member(c, "status"), status);
	bool inv = false;
	JsonArray *fl = json_object_get_array_member(c, "wc_flags");
	for (guint i = 0; i < json_array_get_length(fl); i++)
		inv |= strcmp(json_array_get_string_element(fl, i), "WITH_INV") == 0;
	REQUIRE(inv == with_inv, "WITH_INV %s in wc_flags", inv ? "present" : "missing");
	if (with_inv)
		REQUIRE((uint32_t)jint(c, "invalidate_rkey") == rkey, "invalidate_rkey 0x%llx, expected 0x%x",
			(long long)jint(c, "invalidate_rkey"), rkey);
	return true;
}

/* The window's range and rights, not the MR's; an MR with a window bound
 * is not deregistered until the window goes. */
bool sc_mw_bounds(void)
{
	struct dq a, b;
	struct wmr m;
	int mw;
	uint32_t rkey;
	if (!two_qps(&a, &b, &m) || !alloc_mw(&a, 2, &mw, &rkey))
		return false;
	/* Never bound: the key reaches nothing. */
	if (!write_acked(&b, m.addr + 4096, rkey, false) || !bind2(&a, mw, &rkey, &m, 4096, 4096, "SUCCESS") ||
	    !write_acked(&a, m.addr + 4096, rkey, true))
		return false;
	JsonObject *r = call("read_mr", "{\"mr\":%d,\"offset\":4096,\"length\":64}", m.mr);
	gsize n = 0;
	guchar *bytes = r ? g_base64_decode(json_object_get_string_member(r, "data"), &n) : NULL;
	bool same = n == 64 && memcmp(bytes, pattern(31), 64) == 0;
	g_free(bytes);
	REQUIRE(same, "the WRITE through the window did not land at its offset");
	REQUIRE(!call("dereg_mr", "{\"mr\":%d}", m.mr) && strcmp(P.err_code, "invalid_state") == 0,
		"dereg_mr of an MR with a window bound: %s, expected invalid_state", P.err_code);
	/* Inside the MR, outside the window. */
	return write_acked(&a, m.addr + 8192, rkey, false);
}

/* A type 2 window through another QP of the same PD. */
bool sc_mw_type2_qp(void)
{
	struct dq a, b;
	struct wmr m;
	int mw;
	uint32_t rkey;
	return two_qps(&a, &b, &m) && alloc_mw(&a, 2, &mw, &rkey) && bind2(&a, mw, &rkey, &m, 0, 8192, "SUCCESS") &&
	       write_acked(&a, m.addr, rkey, true) && write_acked(&b, m.addr, rkey, false);
}

/* LOCAL_INV: the key reaches nothing afterwards. */
bool sc_mw_local_inv(void)
{
	struct dq a, b;
	struct wmr m;
	int mw;
	uint32_t rkey;
	if (!two_qps(&a, &b, &m) || !alloc_mw(&a, 2, &mw, &rkey) || !bind2(&a, mw, &rkey, &m, 0, 8192, "SUCCESS") ||
	    !write_acked(&a, m.addr, rkey, true))
		return false;
	REQUIRE(call("post_send", "{\"qp\":%d,\"wr_id\":78,\"opcode\":\"LOCAL_INV\",\"invalidate_rkey\":%u}", a.qp, rkey),
		"post_send LOCAL_INV: %s %s", P.err_code, P.err_msg);
	return expect_wc(&a, "LOCAL_INV", "SUCCESS") && write_acked(&a, m.addr, rkey, false);
}

/* A bound type 2 window is not bound again; once invalidated it is. */
bool sc_mw_rebind(void)
{
	struct dq a, b;
	struct wmr m;
	int mw;
	uint32_t rkey;
	if (!two_qps(&a, &b, &m) || !alloc_mw(&a, 2, &mw, &rkey) || !bind2(&a, mw, &rkey, &m, 0, 4096, "SUCCESS"))
		return false;
	REQUIRE(call("post_send", "{\"qp\":%d,\"wr_id\":78,\"opcode\":\"LOCAL_INV\",\"invalidate_rkey\":%u}", a.qp, rkey),
		"post_send LOCAL_INV: %s %s", P.err_code, P.err_msg);
	return expect_wc(&a, "LOCAL_INV", "SUCCESS") && bind2(&a, mw, &rkey, &m, 4096, 4096, "SUCCESS") &&
	       bind2(&a, mw, &rkey, &m, 0, 4096, "MW_BIND_ERR");
}

/* SEND with Invalidate of a type 2 window: WITH_INV and the rkey in the
 * completion, the key dead afterwards. */
bool sc_mw_send_inv(void)
{
	struct dq a, b;
	struct wmr m;
	int mw;
	uint32_t rkey;
	return two_qps(&a, &b, &m) && alloc_mw(&a, 2, &mw, &rkey) && bind2(&a, mw, &rkey, &m, 0, 8192, "SUCCESS") &&
	       send_inv(&a, rkey) && recv_wc(&a, "SUCCESS", true, rkey) && write_acked(&a, m.addr, rkey, false);
}

/* A type 1 window: any QP of the PD reaches it; a remote invalidation is
 * refused and leaves it valid; a zero-length bind unbinds it. */
bool sc_mw_type1(void)
{
	struct dq a, b;
	struct wmr m;
	int mw;
	uint32_t rkey;
	if (!two_qps(&a, &b, &m) || !alloc_mw(&a, 1, &mw, &rkey))
		return false;
	JsonObject *r = call("bind_mw", "{\"qp\":%d,\"mw\":%d,\"mr\":%d,\"offset\":0,\"length\":8192,"
					"\"access\":[\"REMOTE_WRITE\"],\"wr_id\":5}", a.qp, mw, m.mr);
	REQUIRE(r, "bind_mw: %s %s", P.err_code, P.err_msg);
	uint32_t key1 = (uint32_t)jint(r, "rkey");
	REQUIRE(key1 >> 8 == rkey >> 8 && key1 != rkey, "bind_mw's rkey 0x%x: not a new key of window 0x%x", key1, rkey);
	if (!expect_wc(&a, "BIND_MW", "SUCCESS") || !write_acked(&b, m.addr, key1, true))
		return false;
	/* Refused: the receive fails, the responder's QP goes to Error. */
	if (!send_inv(&a, key1) || !recv_wc(&a, "REM_INV_REQ_ERR", false, 0))
		return false;
	REQUIRE(strcmp(qp_state(&a), "ERR") == 0, "the QP is %s after a refused invalidation, not ERR", qp_state(&a));
	if (!write_acked(&b, m.addr, key1, true))
		return false;
	r = call("bind_mw", "{\"qp\":%d,\"mw\":%d,\"length\":0,\"wr_id\":6}", b.qp, mw);
	REQUIRE(r, "bind_mw length 0: %s %s", P.err_code, P.err_msg);
	return expect_wc(&b, "BIND_MW", "SUCCESS") && write_acked(&b, m.addr, key1, false);
}
