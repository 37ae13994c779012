/*
 * XRC domains (Annex A14): alloc_xrcd and dealloc_xrcd (refused while an
 * XRC SRQ or QP of the session uses it). XRC SRQs (create_srq with xrcd)
 * and XRC QPs (create_qp type XRC_SEND / XRC_RECV) name the domain.
 */
#include "methods.h"

static bool have_xrc(struct req *r)
{
	if (OPS(r)->alloc_xrcd && OPS(r)->dealloc_xrcd)
		return true;
	return req_fail(r, AE_UNSUPPORTED, "the %s backend has no XRC domains", OPS(r)->name);
}

void method_alloc_xrcd(struct req *r)
{
	if (!have_xrc(r) || !req_limit_handles(r))
		return;
	struct be_xrcd *x;
	struct be_error err = { 0 };
	if (OPS(r)->alloc_xrcd(BE(r->s), &x, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	result_int(r, "xrcd", session_add(r->s, H_XRCD, x)->id);
}

void method_dealloc_xrcd(struct req *r)
{
	struct handle *h = session_get(r, "xrcd", H_XRCD, true);
	if (!h || !have_xrc(r))
		return;
	if (h->users) {
		req_fail(r, AE_INVALID_STATE, "params.xrcd: XRCD %u is used by %u XRC SRQs or QPs; destroy them first",
			 h->id, h->users);
		return;
	}
	struct be_error err = { 0 };
	if (OPS(r)->dealloc_xrcd(h->obj, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	session_remove(r->s, h);
}

struct handle *param_xrcd(struct req *r, bool required)
{
	struct handle *h = session_get(r, "xrcd", H_XRCD, required);
	if (h && !have_xrc(r))
		return NULL;
	return h;
}
