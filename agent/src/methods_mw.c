/*
 * Memory windows (IBA 10.6.7): alloc_mw (type 1 or 2, on a PD), dealloc_mw
 * (a bound window is invalidated with it) and bind_mw, the type 1 verb:
 * ordered with the QP's send queue and completed on its send CQ. A type 2
 * window is bound with post_send's BIND_MW work request instead.
 *
 * An MR with windows bound to it: the backend refuses to deregister it
 * (as libibverbs does on a real device, EBUSY), and the session destroys
 * its windows before its MRs.
 */
#include "methods.h"

static bool have_mw(struct req *r)
{
	if (OPS(r)->alloc_mw && OPS(r)->dealloc_mw)
		return true;
	return req_fail(r, AE_UNSUPPORTED, "the %s backend has no memory windows", OPS(r)->name);
}

void method_alloc_mw(struct req *r)
{
	struct handle *pd = session_get(r, "pd", H_PD, true);
	uint32_t type;
	if (!pd || !param_u32(r, "type", true, 0, 0xFFFFFFFFu, &type) || !have_mw(r) || !req_limit_handles(r))
		return;
	if (type != 1 && type != 2) {
		req_fail(r, AE_BAD_REQUEST, "params.type: %u is no window type; expected 1 or 2", type);
		return;
	}
	struct be_mw *mw;
	uint32_t rkey;
	struct be_error err = { 0 };
	if (OPS(r)->alloc_mw(pd->obj, (enum be_mw_type)type, &mw, &rkey, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	struct handle *h = session_add(r->s, H_MW, mw);
	h->pd = pd->id;
	h->mw_type = (int)type;
	pd->users++;
	result_int(r, "mw", h->id);
	result_u64(r, "rkey", rkey);
}

void method_dealloc_mw(struct req *r)
{
	struct handle *h = session_get(r, "mw", H_MW, true);
	if (!h || !have_mw(r))
		return;
	struct be_error err = { 0 };
	if (OPS(r)->dealloc_mw(h->obj, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	session_remove(r->s, h);
}

bool param_mw_bind(struct req *r, struct be_mw_bind *b, bool *unbind)
{
	uint64_t offset, length;
	if (!param_u64(r, "offset", false, 0, G_MAXUINT64, &offset) ||
	    !param_u64(r, "length", true, 0, G_MAXUINT64, &length))
		return false;
	bool given;
	unsigned access;
	if (!param_access(r, "access", false, &access, &given))
		return false;
	const unsigned remote = BE_ACCESS_REMOTE_READ | BE_ACCESS_REMOTE_WRITE | BE_ACCESS_REMOTE_ATOMIC;
	if (access & ~remote)
		return req_fail(r, AE_BAD_REQUEST,
				"params.access: a window carries remote rights only (REMOTE_READ, REMOTE_WRITE, REMOTE_ATOMIC)");
	bool zero_based;
	if (!param_bool(r, "zero_based", false, &zero_based))
		return false;
	*unbind = length == 0;
	struct handle *mr = session_get(r, "mr", H_MR, !*unbind);
	if (r->err)
		return false;
	/* A range past the MR's end goes to the device, whose part it is to
	 * refuse it (C10-75); only one no address can hold is refused here. */
	if (length > G_MAXUINT64 - offset)
		return req_fail(r, AE_BAD_REQUEST, "params.length: offset %llu + length %llu runs past 2^64",
				(unsigned long long)offset, (unsigned long long)length);
	b->mr = mr ? mr->obj : NULL;
	b->offset = offset;
	b->length = length;
	b->access = access;
	b->zero_based = zero_based;
	return true;
}

void method_bind_mw(struct req *r)
{
	struct handle *qp = session_get(r, "qp", H_QP, true);
	struct handle *mw = qp ? session_get(r, "mw", H_MW, true) : NULL;
	struct be_mw_bind b;
	bool unbind, signaled;
	uint64_t wr_id;
	if (!mw || !param_mw_bind(r, &b, &unbind) || !param_u64(r, "wr_id", true, 0, G_MAXUINT64, &wr_id) ||
	    !param_bool(r, "signaled", true, &signaled) || !have_mw(r))
		return;
	if (!OPS(r)->bind_mw) {
		req_fail(r, AE_UNSUPPORTED, "the %s backend has no type 1 windows (bind_mw)", OPS(r)->name);
		return;
	}
	if (mw->mw_type != 1) {
		req_fail(r, AE_BAD_REQUEST, "params.mw: MW %u is of type 2; bind it with post_send's BIND_MW", mw->id);
		return;
	}
	uint32_t rkey;
	struct be_error err = { 0 };
	if (OPS(r)->bind_mw(qp->obj, mw->obj, &b, wr_id, signaled, &rkey, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	result_u64(r, "rkey", rkey);
}
