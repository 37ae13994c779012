/*
 * Protection domains, completion queues, memory regions and address
 * handles.
 *
 * MR memory is mmap()ed, one mapping per MR. Unmapping after ibv_dereg_mr
 * is then safe even if the device still held pinned pages for a late
 * access: those pages are no longer part of this process, so a late access
 * cannot land in memory that malloc has handed to someone else.
 */
#include "ibverbs.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- PD, CQ, MR ---- */

int ib_alloc_pd(struct backend *be, struct be_pd **out, struct be_error *err)
{
	struct ib_backend *ib = ib_of(be);
	struct ibv_pd *pd = ibv_alloc_pd(ib->ctx);
	if (!pd)
		return ib_verb_failed(err, errno, "ibv_alloc_pd");
	struct be_pd *p = g_new0(struct be_pd, 1);
	p->be = ib;
	p->pd = pd;
	*out = p;
	return 0;
}

int ib_dealloc_pd(struct be_pd *pd, struct be_error *err)
{
	int e = ibv_dealloc_pd(pd->pd);
	if (e)
		return ib_verb_failed(err, e, "ibv_dealloc_pd");
	g_free(pd);
	return 0;
}

int ib_create_cq(struct backend *be, unsigned cqe, struct be_cq **out, struct be_error *err)
{
	struct ib_backend *ib = ib_of(be);
	if (cqe < 1 || cqe > (unsigned)ib->attr.max_cqe)
		return be_error_set(err, BE_BAD_REQUEST, "cqe %u: %s takes 1..%d", cqe, ib->name,
				    ib->attr.max_cqe);
	struct be_cq *c = g_new0(struct be_cq, 1);
	/* Its context is c: events.c finds the CQ of a CQ_ERR by it. */
	struct ibv_cq *cq = ibv_create_cq(ib->ctx, (int)cqe, c, NULL, 0);
	if (!cq) {
		int e = errno;
		g_free(c);
		char what[64];
		snprintf(what, sizeof what, "ibv_create_cq (%u entries)", cqe);
		return ib_verb_failed(err, e, what);
	}
	c->be = ib;
	c->cq = cq;
	*out = c;
	return 0;
}

int ib_destroy_cq(struct be_cq *cq, struct be_error *err)
{
	int e = ibv_destroy_cq(cq->cq);
	if (e)
		return ib_verb_failed(err, e, "ibv_destroy_cq");
	ib_events_forget(cq->be, NULL, NULL, cq);
	g_free(cq);
	return 0;
}

int ib_reg_mr(struct be_pd *pd, uint64_t length, unsigned access, uint8_t fill,
	      struct be_mr **out, struct be_error *err)
{
	struct ib_backend *ib = pd->be;
	if (length == 0)
		return be_error_set(err, BE_BAD_REQUEST, "length 0: an MR needs at least one byte");
	if (length > ib->attr.max_mr_size)
		return be_error_set(err, BE_BAD_REQUEST, "length %" PRIu64 ": %s registers at most %" PRIu64
				    " bytes", length, ib->name, (uint64_t)ib->attr.max_mr_size);
	long page = sysconf(_SC_PAGESIZE);
	size_t map_len = (size_t)((length + (uint64_t)page - 1) / (uint64_t)page * (uint64_t)page);
	void *buf = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return ib_verb_failed(err, errno, "mmap for the MR's memory");
	memset(buf, fill, length);
	struct ibv_mr *mr = ibv_reg_mr(pd->pd, buf, length, (int)ib_access_to_ibv(access));
	if (!mr) {
		int e = errno;
		munmap(buf, map_len);
		char what[96];
		snprintf(what, sizeof what, "ibv_reg_mr (%" PRIu64 " bytes, access 0x%x)", length,
			 access);
		/* Persistence needs persistent memory behind the region (rxe
		 * refuses it on anything else): the device cannot give what
		 * the case asks of this memory, which is not a bad request. */
		if (e == EINVAL && (access & BE_ACCESS_FLUSH_PERSISTENT))
			return be_error_set(err, BE_UNSUPPORTED,
					    "%s: %s: FLUSH_PERSISTENT refused (the agent's memory is not persistent memory)",
					    what, strerror(e));
		return ib_verb_failed(err, e, what);
	}
	struct be_mr *m = g_new0(struct be_mr, 1);
	m->be = ib;
	m->mr = mr;
	m->buf = buf;
	m->map_len = map_len;
	m->length = length;
	*out = m;
	return 0;
}

int ib_dereg_mr(struct be_mr *mr, struct be_error *err)
{
	int e = ibv_dereg_mr(mr->mr);
	if (e)
		return ib_verb_failed(err, e, "ibv_dereg_mr");
	munmap(mr->buf, mr->map_len); /* safe: see the comment at the top */
	g_free(mr);
	return 0;
}

void ib_mr_info(struct be_mr *mr, struct be_mr_info *out)
{
	out->buf = mr->buf;
	out->length = mr->length;
	out->addr = (uint64_t)(uintptr_t)mr->buf;
	out->lkey = mr->mr->lkey;
	out->rkey = mr->mr->rkey;
}

/* ---- AH ---- */

int ib_create_ah(struct be_pd *pd, const struct be_av *av, struct be_ah **out,
		 struct be_error *err)
{
	struct ibv_ah_attr attr;
	ib_av_to_ah_attr(av, 1, &attr);
	if (ib_check_port(pd->be, attr.port_num, err))
		return -1;
	struct ibv_ah *ah = ibv_create_ah(pd->pd, &attr);
	if (!ah) {
		char what[128], gid[INET6_ADDRSTRLEN] = "?";
		inet_ntop(AF_INET6, av->dgid, gid, sizeof gid);
		snprintf(what, sizeof what, "ibv_create_ah (sgid_index %u, dgid %s)", av->sgid_index,
			 gid);
		return ib_verb_failed(err, errno, what);
	}
	struct be_ah *a = g_new0(struct be_ah, 1);
	a->ah = ah;
	*out = a;
	return 0;
}

int ib_destroy_ah(struct be_ah *ah, struct be_error *err)
{
	int e = ibv_destroy_ah(ah->ah);
	if (e)
		return ib_verb_failed(err, e, "ibv_destroy_ah");
	g_free(ah);
	return 0;
}
