/*
 * The verbs resources other than QPs: protection domains, completion
 * queues, memory regions (with reading and writing their memory) and
 * address handles. Each is a handle of the session; a PD or CQ in use
 * cannot go.
 */
#include "methods.h"

#include <string.h>

void method_alloc_pd(struct req *r)
{
	struct be_pd *pd;
	struct be_error err = { 0 };
	if (!req_limit_handles(r))
		return;
	if (OPS(r)->alloc_pd(BE(r->s), &pd, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	result_int(r, "pd", session_add(r->s, H_PD, pd)->id);
}

void method_dealloc_pd(struct req *r)
{
	struct handle *h = session_get(r, "pd", H_PD, true);
	if (!h)
		return;
	if (h->users) {
		req_fail(r, AE_INVALID_STATE, "params.pd: PD %u still has %u MRs, QPs, AHs or SRQs", h->id, h->users);
		return;
	}
	struct be_error err = { 0 };
	if (OPS(r)->dealloc_pd(h->obj, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	session_remove(r->s, h);
}

void method_create_cq(struct req *r)
{
	uint32_t cqe;
	if (!param_u32(r, "cqe", true, 0, 1u << 20, &cqe) || !req_limit_handles(r))
		return;
	if (cqe == 0) {
		req_fail(r, AE_BAD_REQUEST, "params.cqe: must be at least 1");
		return;
	}
	struct be_cq *cq;
	struct be_error err = { 0 };
	if (OPS(r)->create_cq(BE(r->s), cqe, &cq, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	result_int(r, "cq", session_add(r->s, H_CQ, cq)->id);
}

void method_destroy_cq(struct req *r)
{
	struct handle *h = session_get(r, "cq", H_CQ, true);
	if (!h)
		return;
	if (h->users) {
		req_fail(r, AE_INVALID_STATE, "params.cq: CQ %u is still used by %u QP queues", h->id, h->users);
		return;
	}
	agent_events_drain(r->s->agent);
	struct be_error err = { 0 };
	if (OPS(r)->destroy_cq(h->obj, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	session_remove(r->s, h);
}

void method_reg_mr(struct req *r)
{
	struct handle *pd = session_get(r, "pd", H_PD, true);
	uint64_t length;
	uint32_t fill;
	unsigned access;
	bool given;
	if (!pd || !param_u64(r, "length", true, 0, AGENT_MAX_MR, &length) ||
	    !param_access(r, "access", false, &access, &given) || !param_u32(r, "fill", false, 0, 255, &fill) ||
	    !req_limit_handles(r))
		return;
	if (length == 0) {
		req_fail(r, AE_BAD_REQUEST, "params.length: must be at least 1");
		return;
	}
	if (r->s->mr_bytes + length > AGENT_MAX_SESSION_MR) {
		req_fail(r, AE_RESOURCE_LIMIT, "params.length: the session would register %llu bytes, over the limit of %llu",
			 (unsigned long long)(r->s->mr_bytes + length), (unsigned long long)AGENT_MAX_SESSION_MR);
		return;
	}
	struct be_mr *mr;
	struct be_error err = { 0 };
	if (OPS(r)->reg_mr(pd->obj, length, access, (uint8_t)fill, &mr, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	struct handle *h = session_add(r->s, H_MR, mr);
	h->pd = pd->id;
	h->length = length;
	pd->users++;
	r->s->mr_bytes += length;
	struct be_mr_info info;
	OPS(r)->mr_info(mr, &info);
	result_int(r, "mr", h->id);
	result_u64(r, "addr", info.addr);
	result_u64(r, "length", info.length);
	result_u64(r, "lkey", info.lkey);
	result_u64(r, "rkey", info.rkey);
}

void method_dereg_mr(struct req *r)
{
	struct handle *h = session_get(r, "mr", H_MR, true);
	if (!h)
		return;
	struct be_error err = { 0 };
	if (OPS(r)->dereg_mr(h->obj, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	session_remove(r->s, h);
}

/* Strict base64 (RFC 4648 with padding); g_base64_decode accepts junk. */
static guchar *b64_decode_strict(const char *s, gsize *out_len)
{
	size_t n = strlen(s);
	if (n % 4)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		bool pad_ok = c == '=' && i >= n - 2 && (i == n - 1 || s[n - 1] == '=');
		if (!(g_ascii_isalnum(c) || c == '+' || c == '/' || pad_ok))
			return NULL;
	}
	return g_base64_decode(n ? s : "", out_len);
}

void method_write_mr(struct req *r)
{
	struct handle *h = session_get(r, "mr", H_MR, true);
	uint64_t off;
	const char *data;
	if (!h || !param_u64(r, "offset", true, 0, G_MAXUINT64, &off) || !(data = param_string(r, "data", true)))
		return;
	gsize len = 0;
	guchar *bytes = b64_decode_strict(data, &len);
	if (!bytes && *data) {
		req_fail(r, AE_BAD_REQUEST, "params.data: not valid base64 (RFC 4648, with padding)");
		return;
	}
	if (off > h->length || len > h->length - off) {
		req_fail(r, AE_BAD_REQUEST, "params.offset: %llu + %zu bytes is beyond the end of MR %u (%llu bytes)",
			 (unsigned long long)off, (size_t)len, h->id, (unsigned long long)h->length);
		g_free(bytes);
		return;
	}
	struct be_mr_info info;
	OPS(r)->mr_info(h->obj, &info);
	if (len)
		memcpy(info.buf + off, bytes, len);
	g_free(bytes);
}

void method_read_mr(struct req *r)
{
	struct handle *h = session_get(r, "mr", H_MR, true);
	uint64_t off, len;
	if (!h || !param_u64(r, "offset", true, 0, G_MAXUINT64, &off) || !param_u64(r, "length", true, 0, AGENT_MAX_MR, &len))
		return;
	if (off > h->length || len > h->length - off) {
		req_fail(r, AE_BAD_REQUEST, "params.length: offset %llu + length %llu is beyond the end of MR %u (%llu bytes)",
			 (unsigned long long)off, (unsigned long long)len, h->id, (unsigned long long)h->length);
		return;
	}
	struct be_mr_info info;
	OPS(r)->mr_info(h->obj, &info);
	gchar *b64 = g_base64_encode(info.buf + off, len);
	result_str(r, "data", b64);
	g_free(b64);
}

/* The SHA-256 of an MR's bytes, read by the host as read_mr reads them:
 * what a tester compares with the contents it expects, without carrying
 * them over the wire (roce-tester fuzz checks every region after each
 * batch of requests). */
void method_digest_mr(struct req *r)
{
	struct handle *h = session_get(r, "mr", H_MR, true);
	uint64_t off, len;
	if (!h || !param_u64(r, "offset", false, 0, G_MAXUINT64, &off) ||
	    !param_u64(r, "length", false, off <= h->length ? h->length - off : 0, AGENT_MAX_MR, &len))
		return;
	if (off > h->length || len > h->length - off) {
		req_fail(r, AE_BAD_REQUEST, "params.length: offset %llu + length %llu is beyond the end of MR %u (%llu bytes)",
			 (unsigned long long)off, (unsigned long long)len, h->id, (unsigned long long)h->length);
		return;
	}
	struct be_mr_info info;
	OPS(r)->mr_info(h->obj, &info);
	gchar *hex = g_compute_checksum_for_data(G_CHECKSUM_SHA256, info.buf + off, len);
	result_str(r, "sha256", hex);
	g_free(hex);
}


void method_create_ah(struct req *r)
{
	struct handle *pd = session_get(r, "pd", H_PD, true);
	struct be_av av;
	bool given;
	memset(&av, 0, sizeof av);
	if (!pd || !param_av(r, &av, &given) || !req_limit_handles(r))
		return;
	if (!given) {
		req_fail(r, AE_BAD_REQUEST, "params.dgid: missing");
		return;
	}
	struct be_ah *ah;
	struct be_error err = { 0 };
	if (OPS(r)->create_ah(pd->obj, &av, &ah, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	struct handle *h = session_add(r->s, H_AH, ah);
	h->pd = pd->id;
	pd->users++;
	result_int(r, "ah", h->id);
}

void method_destroy_ah(struct req *r)
{
	struct handle *h = session_get(r, "ah", H_AH, true);
	if (!h)
		return;
	struct be_error err = { 0 };
	if (OPS(r)->destroy_ah(h->obj, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	session_remove(r->s, h);
}
